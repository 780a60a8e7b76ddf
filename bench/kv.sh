#!/usr/bin/env bash
# Key lookups by primary key, Cairn beside its peers in one run (issue 4): the sysbench table
# (ROWS rows), column c fetched, with the same load generator (`cairn bench kv`) for
#   - Cairn's HandlerSocket (`cairn start`: API node and data node in one process),
#   - MariaDB's HandlerSocket plugin (../shared/tools/mariadb-ref, table made by sysbench prepare),
#   - memcached get (../shared/tools/memcached-ref; values: the c column of Cairn's rows),
# each at 1 and at DEPTH requests in flight per connection, CONNECTIONS connections; then MariaDB
# SQL point selects (sysbench oltp_point_select, CONNECTIONS threads; sysbench is the SQL client).
# Server CPU per operation is measured from /proc over each window. Last, the floor: the same
# load against `cairn bench floor --protocol hs`, a server that answers every find with a fixed
# row and does no other work (as a thread per connection and as one event loop), which is the
# most any server could serve here with the load generator on the same cores.
# Ends with one markdown table.
#
# Needs: target/release/cairn (or CAIRN_BIN), sysbench, mariadb-server (with handlersocket.so), memcached.
# Environment: ROWS (1000000), DURATION (10), WARMUP (2), CONNECTIONS (16), DEPTH (16),
# FLOOR (1; 0 skips it), TLS (1: Cairn's HandlerSocket over TLS too; 0 skips it), KEEP=1.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"

ROWS=${ROWS:-1000000}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-2}
CONNECTIONS=${CONNECTIONS:-16}
DEPTH=${DEPTH:-16}
export REF_MYSQL_PORT=${REF_MYSQL_PORT:-24306}
export REF_HS_PORT=${REF_HS_PORT:-24998}
export REF_HS_PORT_WR=${REF_HS_PORT_WR:-24999}
export REF_MEMCACHED_PORT=${REF_MEMCACHED_PORT:-24211}
mariadb_ref=${MARIADB_REF:-$root/../shared/tools/mariadb-ref}
memcached_ref=${MEMCACHED_REF:-$root/../shared/tools/memcached-ref}

cairn_bin=${CAIRN_BIN:-target/release/cairn}
[[ -x $cairn_bin ]] || die "$cairn_bin is missing: cargo build --release -p cairn"
command -v sysbench >/dev/null || die "sysbench is missing: apt-get install -y sysbench"
command -v memcached >/dev/null || die "memcached is missing: apt-get install -y memcached"

work=$(mktemp -d /tmp/cairn-kv.XXXXXX)
cp "$cairn_bin" "$work/cairn"
cairn=$work/cairn
cairn_pid=
floor_pid=
mariadb_dir=
memcached_started=

cleanup() {
  if [[ -n $cairn_pid ]] && kill -0 "$cairn_pid" 2>/dev/null; then
    kill -TERM "$cairn_pid" 2>/dev/null || true
    wait "$cairn_pid" 2>/dev/null || true
  fi
  [[ -n $floor_pid ]] && { kill "$floor_pid" 2>/dev/null || true; }
  [[ -n $mariadb_dir ]] && { "$mariadb_ref" stop "$mariadb_dir" || true; }
  [[ -n $memcached_started ]] && { "$memcached_ref" stop || true; }
  if [[ ${KEEP:-0} == 1 ]]; then echo "work directory kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

declare -A ops p99 cpu
configs=()
kv() { # config depth protocol address pid [extra...]
  local config=$1 depth=$2 protocol=$3 address=$4 pid=$5
  shift 5
  local json
  json=$("$cairn" bench kv --protocol "$protocol" --connect "$address" --keys "$ROWS" \
    --connections "$CONNECTIONS" --depth "$depth" --duration "$DURATION" --warmup "$WARMUP" \
    --server-pid "$pid" --json "$@")
  echo "$config, $depth in flight: $json"
  [[ $(json_field "$json" errors) == 0 && $(json_field "$json" misses) == 0 ]] ||
    die "$config: errors or misses: $json"
  ops[$config,$depth]=$(json_field "$json" ops_per_sec)
  p99[$config,$depth]=$(json_field "$json" p99_us)
  cpu[$config,$depth]=$(json_field "$json" server_cpu_us_per_op)
}

echo "# kv.sh: $(date -u +%FT%TZ), $(nproc) cores, $(git rev-parse --short HEAD 2>/dev/null || echo '?')${CAIRN_BIN:+, Cairn binary $CAIRN_BIN}"
echo "ROWS=$ROWS DURATION=$DURATION WARMUP=$WARMUP CONNECTIONS=$CONNECTIONS DEPTH=$DEPTH"
echo

# Cairn.
config="Cairn HandlerSocket"
configs+=("$config")
"$cairn" start --data-dir "$work/cairn-data" --base-port 24200 --hs-read-port 24298 --sql-port 0 \
  --hs-write-port 24299 >"$work/cairn.log" 2>&1 &
cairn_pid=$!
wait_for_line "$work/cairn.log" ready 120 "$cairn_pid"
"$cairn" bench load --connect 127.0.0.1:24202 --rows "$ROWS" --seed 1 2>/dev/null
for depth in 1 "$DEPTH"; do
  kv "$config" "$depth" hs 127.0.0.1:24298 "$cairn_pid" --db sbtest --table sbtest1
done
stop_process "$cairn_pid"
cairn_pid=
echo

# Cairn again over the same data, HandlerSocket under TLS (--hs-tls, a certificate from `cairn
# admin certs`; the load generator checks it against the CA): what encryption costs.
if [[ ${TLS:-1} == 1 ]]; then
  config="Cairn HandlerSocket over TLS"
  configs+=("$config")
  "$cairn" admin certs --dir "$work/certs" hs >/dev/null
  "$cairn" start --data-dir "$work/cairn-data" --base-port 24200 --hs-read-port 24298 --sql-port 0 \
    --hs-write-port 24299 --hs-tls --hs-tls-cert "$work/certs/hs/node.pem" \
    --hs-tls-key "$work/certs/hs/node.key" >"$work/cairn-tls.log" 2>&1 &
  cairn_pid=$!
  wait_for_line "$work/cairn-tls.log" ready 120 "$cairn_pid"
  for depth in 1 "$DEPTH"; do
    kv "$config" "$depth" hs 127.0.0.1:24298 "$cairn_pid" --db sbtest --table sbtest1 \
      --tls-ca "$work/certs/ca.pem"
  done
  stop_process "$cairn_pid"
  cairn_pid=
  echo
fi

# memcached, holding the same values.
config="memcached"
configs+=("$config")
"$memcached_ref" start >/dev/null
memcached_started=1
# memcached -d may open its port before it writes the pid file.
pidfile=/tmp/memcached-ref.$REF_MEMCACHED_PORT.pid
for _ in $(seq 1 100); do [[ -s $pidfile ]] && break; sleep 0.05; done
[[ -s $pidfile ]] || die "memcached wrote no pid file"
memcached_pid=$(<"$pidfile")
"$cairn" bench kv --protocol memcached --connect "127.0.0.1:$REF_MEMCACHED_PORT" --keys "$ROWS" \
  --load --duration 0.1 --warmup 0 --connections 1 >/dev/null
for depth in 1 "$DEPTH"; do
  kv "$config" "$depth" memcached "127.0.0.1:$REF_MEMCACHED_PORT" "$memcached_pid"
done
"$memcached_ref" stop
memcached_started=
echo

# MariaDB: the plugin, then SQL point selects.
config="MariaDB HandlerSocket"
configs+=("$config")
mariadb_dir=$work/mariadb
"$mariadb_ref" start "$mariadb_dir" >/dev/null
mariadb_pid=$(<"$mariadb_dir/run/mysqld.pid")
sql=(mariadb --defaults-file="$mariadb_dir/my.cnf" -N -B)
"${sql[@]}" -e "CREATE DATABASE IF NOT EXISTS sbtest"
sysbench_common=(--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$REF_MYSQL_PORT"
  --mysql-user=root --mysql-password= --mysql-db=sbtest --tables=1 --table-size="$ROWS"
  --rand-type=uniform --percentile=99)
sysbench oltp_point_select "${sysbench_common[@]}" --threads=2 prepare >"$work/prepare.log" 2>&1 ||
  { cat "$work/prepare.log" >&2; die "sysbench prepare failed"; }
"${sql[@]}" -e "SELECT COUNT(*) FROM sbtest.sbtest1" >/dev/null # warm the buffer pool
for depth in 1 "$DEPTH"; do
  kv "$config" "$depth" hs "127.0.0.1:$REF_HS_PORT" "$mariadb_pid" --db sbtest --table sbtest1
done
config="MariaDB SQL (sysbench oltp_point_select)"
configs+=("$config")
sysbench oltp_point_select "${sysbench_common[@]}" --threads="$CONNECTIONS" --time="$WARMUP" run >/dev/null 2>&1
before=$(cpu_ticks "$mariadb_pid")
sysbench oltp_point_select "${sysbench_common[@]}" --threads="$CONNECTIONS" --time="$DURATION" run >"$work/ps.log" 2>&1 ||
  { cat "$work/ps.log" >&2; die "sysbench oltp_point_select failed"; }
after=$(cpu_ticks "$mariadb_pid")
events=$(awk '/queries:/ { print $2; exit }' "$work/ps.log")
seconds=$(awk '/total time:/ { sub(/s$/, "", $3); print $3 }' "$work/ps.log")
ops[$config,1]=$(awk -v n="$events" -v s="$seconds" 'BEGIN { printf "%.1f", n / s }')
p99[$config,1]=$(awk '/99th percentile:/ { printf "%.1f", $3 * 1000 }' "$work/ps.log")
cpu[$config,1]=$(awk -v t=$((after - before)) -v hz="$clk_tck" -v n="$events" 'BEGIN { printf "%.2f", t / hz * 1e6 / n }')
echo "$config: ${ops[$config,1]} queries/s, p99 ${p99[$config,1]} us, ${cpu[$config,1]} us CPU/query"
"$mariadb_ref" stop "$mariadb_dir"
mariadb_dir=
echo

if [[ ${FLOOR:-1} == 1 ]]; then
  for loops in 0 1; do
    config="floor, $([[ $loops == 0 ]] && echo "thread per connection" || echo "1 event loop")"
    configs+=("$config")
    "$cairn" bench floor --protocol hs --listen 127.0.0.1:24598 --loops "$loops" >"$work/floor.log" 2>&1 &
    floor_pid=$!
    wait_for_line "$work/floor.log" "floor server listening on 127.0.0.1:24598" 30 "$floor_pid"
    for depth in 1 "$DEPTH"; do
      kv "$config" "$depth" hs 127.0.0.1:24598 "$floor_pid"
    done
    kill "$floor_pid"
    wait "$floor_pid" 2>/dev/null || true
    floor_pid=
  done
  echo
fi

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
echo "## Results: $ROWS rows, $CONNECTIONS connections, $DURATION s after $WARMUP s warm-up"
echo
echo "| server | 1 in flight ops/s | p99 us | server CPU us/op | $DEPTH in flight ops/s | p99 us | server CPU us/op |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for config in "${configs[@]}"; do
  printf '| %s | %.0f | %.0f | %s | %s | %s | %s |\n' "$config" "${ops[$config,1]}" "${p99[$config,1]}" \
    "${cpu[$config,1]}" "${ops[$config,$DEPTH]:--}" "${p99[$config,$DEPTH]:--}" "${cpu[$config,$DEPTH]:--}"
done
a="Cairn HandlerSocket"
for b in "MariaDB HandlerSocket" memcached; do
  printf '| Cairn ÷ %s | %s× | | %s× | %s× | | %s× |\n' "$b" \
    "$(ratio "${ops[$a,1]}" "${ops[$b,1]}")" "$(ratio "${cpu[$a,1]}" "${cpu[$b,1]}")" \
    "$(ratio "${ops[$a,$DEPTH]}" "${ops[$b,$DEPTH]}")" "$(ratio "${cpu[$a,$DEPTH]}" "${cpu[$b,$DEPTH]}")"
done
if [[ ${FLOOR:-1} == 1 ]]; then
  echo
  for depth in 1 "$DEPTH"; do
    best=$(awk -v a="${ops[floor, thread per connection,$depth]}" -v b="${ops[floor, 1 event loop,$depth]}" 'BEGIN { printf "%.0f", (a > b ? a : b) }')
    echo "At $depth in flight, 1.5x MariaDB's HandlerSocket would be $(awk -v q="${ops[MariaDB HandlerSocket,$depth]}" 'BEGIN { printf "%.0f", q * 1.5 }') ops/s;" \
      "the floor server's best is $best ($(ratio "$best" "${ops[MariaDB HandlerSocket,$depth]}")x MariaDB's)."
  done
fi
