#!/usr/bin/env bash
# SQL over the MySQL protocol, Cairn beside MariaDB in one run (issue 3): sysbench
# oltp_point_select and oltp_read_only on the same table (1 table x ROWS rows, made by sysbench
# prepare on each server), THREADS threads, server-side prepared statements (--db-ps-mode=auto),
# first against `cairn start` (API node and data node in one process), then against MariaDB
# (../shared/tools/mariadb-ref). Each server is measured over loopback TCP and then over its
# Unix socket file (sysbench --mysql-socket), the two ways a client on the same host connects.
# Server CPU per query is measured from /proc over each window. Ends with one markdown table
# and the ratios per transport. Last, the floor: point selects against `cairn bench floor`, a
# server that answers every query with one fixed row and does no other work (over TCP, as a
# thread per connection and as one event loop), which is the most any server could serve here
# with sysbench beside it on the same cores.
#
# Needs: target/release/cairn (or CAIRN_BIN), sysbench, mariadb-server.
# Environment: ROWS (1000000), DURATION (10), WARMUP (3), THREADS (16),
# TRANSPORTS ("tcp socket"), FLOOR (1; 0 skips it), KEEP=1.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"

ROWS=${ROWS:-1000000}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-3}
THREADS=${THREADS:-16}
TRANSPORTS=${TRANSPORTS:-tcp socket}
export REF_MYSQL_PORT=${REF_MYSQL_PORT:-24306}
cairn_sql_port=24406
floor_port=24506
mariadb_ref=${MARIADB_REF:-$root/../shared/tools/mariadb-ref}

cairn_bin=${CAIRN_BIN:-target/release/cairn}
[[ -x $cairn_bin ]] || die "$cairn_bin is missing: cargo build --release -p cairn"
command -v sysbench >/dev/null || die "sysbench is missing: apt-get install -y sysbench"

work=$(mktemp -d /tmp/cairn-sql.XXXXXX)
cp "$cairn_bin" "$work/cairn"
cairn=$work/cairn
cairn_pid=
floor_pid=
mariadb_dir=

cleanup() {
  if [[ -n $cairn_pid ]] && kill -0 "$cairn_pid" 2>/dev/null; then
    kill -TERM "$cairn_pid" 2>/dev/null || true
    wait "$cairn_pid" 2>/dev/null || true
  fi
  [[ -n $floor_pid ]] && { kill "$floor_pid" 2>/dev/null || true; }
  [[ -n $mariadb_dir ]] && { "$mariadb_ref" stop "$mariadb_dir" || true; }
  if [[ ${KEEP:-0} == 1 ]]; then echo "work directory kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

declare -A qps cpu p99
configs=()
tests=(oltp_point_select oltp_read_only)

# sysbench's options to reach a server over transport $1 (tcp: port $2; socket: file $3).
connect_options() {
  local transport=$1 port=$2 socket=$3
  if [[ $transport == socket ]]; then
    echo "--mysql-socket=$socket"
  else
    echo "--mysql-host=127.0.0.1 --mysql-port=$port"
  fi
}

# Makes the table on the server at port $2 (name $1).
prepare() {
  local config=$1 port=$2 started=$SECONDS
  sysbench oltp_point_select --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$port" \
    --mysql-user=root --mysql-password= --mysql-db=sbtest --tables=1 --table-size="$ROWS" \
    --threads=2 prepare >"$work/prepare.log" 2>&1 ||
    { cat "$work/prepare.log" >&2; die "$config: sysbench prepare failed"; }
  echo "$config: prepared $ROWS rows in $((SECONDS - started)) s"
}

# Runs every test against a server (process $2) with connection options $3, recording under
# name $1.
measure() {
  local config=$1 pid=$2 connect=$3 test before after queries seconds
  # shellcheck disable=SC2206 # the options are words
  local common=(--db-driver=mysql $connect --mysql-user=root
    --mysql-password= --mysql-db=sbtest --tables=1 --table-size="$ROWS" --rand-type=uniform
    --percentile=99 --db-ps-mode=auto)
  configs+=("$config")
  for test in "${tests[@]}"; do
    sysbench "$test" "${common[@]}" --threads="$THREADS" --time="$WARMUP" run >/dev/null 2>&1 ||
      die "$config: $test warm-up failed"
    before=$(cpu_ticks "$pid")
    sysbench "$test" "${common[@]}" --threads="$THREADS" --time="$DURATION" run >"$work/run.log" 2>&1 ||
      { cat "$work/run.log" >&2; die "$config: sysbench $test failed"; }
    after=$(cpu_ticks "$pid")
    grep -q "ignored errors: *0 " "$work/run.log" || { cat "$work/run.log" >&2; die "$config: $test had errors"; }
    queries=$(awk '/queries:/ { print $2; exit }' "$work/run.log")
    seconds=$(awk '/total time:/ { sub(/s$/, "", $3); print $3 }' "$work/run.log")
    qps[$config,$test]=$(awk -v n="$queries" -v s="$seconds" 'BEGIN { printf "%.0f", n / s }')
    p99[$config,$test]=$(awk '/99th percentile:/ { printf "%.2f", $3 }' "$work/run.log")
    cpu[$config,$test]=$(awk -v t=$((after - before)) -v hz="$clk_tck" -v n="$queries" 'BEGIN { printf "%.2f", t / hz * 1e6 / n }')
    echo "$config $test: ${qps[$config,$test]} queries/s, p99 ${p99[$config,$test]} ms, ${cpu[$config,$test]} us server CPU/query"
  done
}

echo "# sql.sh: $(date -u +%FT%TZ), $(nproc) cores, $(git rev-parse --short HEAD 2>/dev/null || echo '?')${CAIRN_BIN:+, Cairn binary $CAIRN_BIN}"
echo "ROWS=$ROWS DURATION=$DURATION WARMUP=$WARMUP THREADS=$THREADS"
echo

"$cairn" start --data-dir "$work/cairn-data" --base-port 24400 --sql-port "$cairn_sql_port" \
  --sql-socket "$work/cairn.sock" --hs-read-port 0 --hs-write-port 0 >"$work/cairn.log" 2>&1 &
cairn_pid=$!
wait_for_line "$work/cairn.log" ready 120 "$cairn_pid"
mysql -h127.0.0.1 -P"$cairn_sql_port" -uroot -e "CREATE DATABASE sbtest"
prepare Cairn "$cairn_sql_port"
for transport in $TRANSPORTS; do
  measure "Cairn $transport" "$cairn_pid" "$(connect_options "$transport" "$cairn_sql_port" "$work/cairn.sock")"
done
stop_process "$cairn_pid"
cairn_pid=
echo

mariadb_dir=$work/mariadb
"$mariadb_ref" start "$mariadb_dir" >/dev/null
mariadb_pid=$(<"$mariadb_dir/run/mysqld.pid")
mariadb --defaults-file="$mariadb_dir/my.cnf" -e "CREATE DATABASE IF NOT EXISTS sbtest"
prepare MariaDB "$REF_MYSQL_PORT"
for transport in $TRANSPORTS; do
  measure "MariaDB $transport" "$mariadb_pid" "$(connect_options "$transport" "$REF_MYSQL_PORT" "$mariadb_dir/run/mysqld.sock")"
done
"$mariadb_ref" stop "$mariadb_dir"
mariadb_dir=
echo

floors=()
if [[ ${FLOOR:-1} == 1 ]]; then
  tests=(oltp_point_select)
  for loops in 0 1; do
    config="floor, $([[ $loops == 0 ]] && echo "thread per connection" || echo "1 event loop") (tcp)"
    "$cairn" bench floor --protocol mysql --listen "127.0.0.1:$floor_port" --loops "$loops" >"$work/floor.log" 2>&1 &
    floor_pid=$!
    wait_for_line "$work/floor.log" "floor server listening on 127.0.0.1:$floor_port" 30 "$floor_pid"
    measure "$config" "$floor_pid" "$(connect_options tcp "$floor_port" -)"
    floors+=("$config")
    kill "$floor_pid"
    wait "$floor_pid" 2>/dev/null || true
    floor_pid=
  done
  echo
fi

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
echo "## Results: 1 table x $ROWS rows, $THREADS threads, $DURATION s after $WARMUP s warm-up, --db-ps-mode=auto"
echo
echo "| server | point_select queries/s | p99 ms | server CPU us/query | read_only queries/s | p99 ms | server CPU us/query |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for config in "${configs[@]}"; do
  echo "| $config | ${qps[$config,oltp_point_select]} | ${p99[$config,oltp_point_select]} | ${cpu[$config,oltp_point_select]} | ${qps[$config,oltp_read_only]:--} | ${p99[$config,oltp_read_only]:--} | ${cpu[$config,oltp_read_only]:--} |"
done
for transport in $TRANSPORTS; do
  printf '| Cairn ÷ MariaDB (%s) | %s× | | %s× | %s× | | %s× |\n' "$transport" \
    "$(ratio "${qps[Cairn $transport,oltp_point_select]}" "${qps[MariaDB $transport,oltp_point_select]}")" \
    "$(ratio "${cpu[Cairn $transport,oltp_point_select]}" "${cpu[MariaDB $transport,oltp_point_select]}")" \
    "$(ratio "${qps[Cairn $transport,oltp_read_only]}" "${qps[MariaDB $transport,oltp_read_only]}")" \
    "$(ratio "${cpu[Cairn $transport,oltp_read_only]}" "${cpu[MariaDB $transport,oltp_read_only]}")"
done
if ((${#floors[@]} > 0)) && [[ -n ${qps[MariaDB tcp,oltp_point_select]:-} ]]; then
  best=0
  for config in "${floors[@]}"; do
    ((${qps[$config,oltp_point_select]} > best)) && best=${qps[$config,oltp_point_select]}
  done
  echo
  echo "1.5x MariaDB's point selects over TCP would be $(awk -v q="${qps[MariaDB tcp,oltp_point_select]}" 'BEGIN { printf "%.0f", q * 1.5 }') queries/s;" \
    "the floor server's best is $best ($(ratio "$best" "${qps[MariaDB tcp,oltp_point_select]}")x MariaDB's)."
fi
