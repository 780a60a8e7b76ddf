#!/usr/bin/env bash
# Replicated writes (issue 38): sysbench oltp_insert and oltp_update_index through the SQL front
# end, first with one replica (`cairn start --api-transport tcp`: the front ends reach the data
# node over loopback TCP), then with two (`cairn start --data-nodes 2 --replicas 2`: a
# management node and two data node processes, every commit on both before it is
# acknowledged), then with three (`--data-nodes 3 --replicas 3`), then with two node groups of two (`cairn start --data-nodes 4 --replicas 2`:
# each table's partitions spread over both groups, the front ends' coordinator on the first
# group's primary, a commit touching both groups two-phase), in one run. Server CPU per
# transaction is measured from /proc over each window,
# summed over every process of the configuration (front ends, data nodes, management node), and
# shown per replica too. Ends with one markdown table and the ratios.
#
# Needs: target/release/cairn, sysbench, the mysql client.
# Environment: ROWS (100000), DURATION (10), WARMUP (3), THREADS (16),
# DURABILITY (commit), KEEP=1.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"

ROWS=${ROWS:-100000}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-3}
THREADS=${THREADS:-16}
DURABILITY=${DURABILITY:-commit}
sql_port=25406

[[ -x target/release/cairn ]] || die "target/release/cairn is missing: cargo build --release -p cairn"
command -v sysbench >/dev/null || die "sysbench is missing: apt-get install -y sysbench"

work=$(mktemp -d /tmp/cairn-replication.XXXXXX)
cp target/release/cairn "$work/cairn"
cairn=$work/cairn
cairn_pid=

cleanup() {
  if [[ -n $cairn_pid ]] && kill -0 "$cairn_pid" 2>/dev/null; then
    kill -TERM "$cairn_pid" 2>/dev/null || true
    wait "$cairn_pid" 2>/dev/null || true
  fi
  if [[ ${KEEP:-0} == 1 ]]; then echo "work directory kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

declare -A tps cpu p99 replicas_of
configs=()
tests=(oltp_insert oltp_update_index)

# Runs every test against the SQL front end, recording under name $1 ($2 replicas) the CPU of
# the processes $3... .
measure() {
  local config=$1 replicas=$2 test before after events seconds
  shift 2
  local pids=("$@")
  local common=(--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$sql_port"
    --mysql-user=root --mysql-password= --mysql-db=sbtest --tables=1 --table-size="$ROWS"
    --rand-type=uniform --percentile=99 --db-ps-mode=auto)
  configs+=("$config")
  replicas_of[$config]=$replicas
  sysbench oltp_insert "${common[@]}" --threads=2 prepare >"$work/prepare.log" 2>&1 ||
    { cat "$work/prepare.log" >&2; die "$config: sysbench prepare failed"; }
  for test in "${tests[@]}"; do
    sysbench "$test" "${common[@]}" --threads="$THREADS" --time="$WARMUP" run >/dev/null 2>&1 ||
      die "$config: $test warm-up failed"
    before=$(ticks_of "${pids[@]}")
    sysbench "$test" "${common[@]}" --threads="$THREADS" --time="$DURATION" run >"$work/run.log" 2>&1 ||
      { cat "$work/run.log" >&2; die "$config: sysbench $test failed"; }
    after=$(ticks_of "${pids[@]}")
    events=$(awk '/transactions:/ { print $2; exit }' "$work/run.log")
    seconds=$(awk '/total time:/ { sub(/s$/, "", $3); print $3 }' "$work/run.log")
    tps[$config,$test]=$(awk -v n="$events" -v s="$seconds" 'BEGIN { printf "%.0f", n / s }')
    p99[$config,$test]=$(awk '/99th percentile:/ { printf "%.2f", $3 }' "$work/run.log")
    cpu[$config,$test]=$(awk -v t=$((after - before)) -v hz="$clk_tck" -v n="$events" 'BEGIN { printf "%.1f", t / hz * 1e6 / n }')
    echo "$config $test: ${tps[$config,$test]} commits/s, p99 ${p99[$config,$test]} ms, ${cpu[$config,$test]} us server CPU/commit"
  done
}

echo "# replication.sh: $(date -u +%FT%TZ), $(nproc) cores, $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "ROWS=$ROWS DURATION=$DURATION WARMUP=$WARMUP THREADS=$THREADS DURABILITY=$DURABILITY"
echo

# One replica: the data node in the front ends' process, reached over loopback TCP.
"$cairn" start --data-dir "$work/one" --base-port 25400 --sql-port "$sql_port" --api-transport tcp \
  --durability "$DURABILITY" --hs-read-port 0 --hs-write-port 0 >"$work/one.log" 2>&1 &
cairn_pid=$!
wait_for_line "$work/one.log" ready 120 "$cairn_pid"
mysql -h127.0.0.1 -P"$sql_port" -uroot -e "CREATE DATABASE sbtest"
measure "replicas 1" 1 "$cairn_pid"
stop_process "$cairn_pid"
cairn_pid=
echo

# A cluster of $3 data nodes in groups of $2 replicas, measured under name $1: a management
# node and the data node processes, each its own.
cluster() {
  local config=$1 replicas=$2 nodes=$3 dir
  dir="$work/$nodes-$replicas"
  "$cairn" start --data-nodes "$nodes" --replicas "$replicas" --data-dir "$dir" --base-port 25400 \
    --sql-port "$sql_port" --durability "$DURABILITY" --hs-read-port 0 --hs-write-port 0 \
    >"$dir.log" 2>&1 &
  cairn_pid=$!
  wait_for_line "$dir.log" ready 120 "$cairn_pid"
  mapfile -t node_pids < <(sed -n 's/.*, pid \([0-9]*\)$/\1/p' "$dir.log")
  ((${#node_pids[@]} == nodes + 1)) || { cat "$dir.log" >&2; die "expected the pids of a management node and $nodes data nodes"; }
  mysql -h127.0.0.1 -P"$sql_port" -uroot -e "CREATE DATABASE sbtest"
  measure "$config" "$replicas" "$cairn_pid" "${node_pids[@]}"
  stop_process "$cairn_pid"
  cairn_pid=
  echo
}

# Two replicas: a node group of two data node processes.
cluster "replicas 2" 2 2
# Three replicas: a node group of three (each member keeps what it took, for a takeover).
cluster "replicas 3" 3 3
# Two node groups of two.
cluster "2 groups x 2 replicas" 2 4

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
per_replica() { awk -v a="$1" -v r="$2" 'BEGIN { printf "%.1f", a / r }'; }
echo "## Results: 1 table x $ROWS rows, $THREADS threads, $DURATION s after $WARMUP s warm-up, durability $DURABILITY"
echo
echo "| configuration | insert commits/s | p99 ms | server CPU us/commit | per replica | update_index commits/s | p99 ms | server CPU us/commit | per replica |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for config in "${configs[@]}"; do
  r=${replicas_of[$config]}
  echo "| $config | ${tps[$config,oltp_insert]} | ${p99[$config,oltp_insert]} | ${cpu[$config,oltp_insert]} | $(per_replica "${cpu[$config,oltp_insert]}" "$r") | ${tps[$config,oltp_update_index]} | ${p99[$config,oltp_update_index]} | ${cpu[$config,oltp_update_index]} | $(per_replica "${cpu[$config,oltp_update_index]}" "$r") |"
done
printf '| replicas 2 ÷ replicas 1 | %s× | | %s× | | %s× | | %s× | |\n' \
  "$(ratio "${tps[replicas 2,oltp_insert]}" "${tps[replicas 1,oltp_insert]}")" \
  "$(ratio "${cpu[replicas 2,oltp_insert]}" "${cpu[replicas 1,oltp_insert]}")" \
  "$(ratio "${tps[replicas 2,oltp_update_index]}" "${tps[replicas 1,oltp_update_index]}")" \
  "$(ratio "${cpu[replicas 2,oltp_update_index]}" "${cpu[replicas 1,oltp_update_index]}")"
printf '| replicas 3 ÷ replicas 2 | %s× | | %s× | | %s× | | %s× | |\n' \
  "$(ratio "${tps[replicas 3,oltp_insert]}" "${tps[replicas 2,oltp_insert]}")" \
  "$(ratio "${cpu[replicas 3,oltp_insert]}" "${cpu[replicas 2,oltp_insert]}")" \
  "$(ratio "${tps[replicas 3,oltp_update_index]}" "${tps[replicas 2,oltp_update_index]}")" \
  "$(ratio "${cpu[replicas 3,oltp_update_index]}" "${cpu[replicas 2,oltp_update_index]}")"
printf '| 2 groups ÷ 1 group (replicas 2) | %s× | | %s× | | %s× | | %s× | |\n' \
  "$(ratio "${tps[2 groups x 2 replicas,oltp_insert]}" "${tps[replicas 2,oltp_insert]}")" \
  "$(ratio "${cpu[2 groups x 2 replicas,oltp_insert]}" "${cpu[replicas 2,oltp_insert]}")" \
  "$(ratio "${tps[2 groups x 2 replicas,oltp_update_index]}" "${tps[replicas 2,oltp_update_index]}")" \
  "$(ratio "${cpu[2 groups x 2 replicas,oltp_update_index]}" "${cpu[replicas 2,oltp_update_index]}")"
