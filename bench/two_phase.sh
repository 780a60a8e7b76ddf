#!/usr/bin/env bash
# Two-phase commits across node groups (issues 38 and 40): sysbench oltp_write_only through the
# SQL front end of a `cairn start --data-nodes 4 --replicas 2` cluster (two node groups of two,
# commit durability by default). Each of its transactions updates two rows and deletes and inserts a third
# at random ids, so most write in both groups and commit in two phases. Compares two builds in
# one run, alternating them ROUNDS times on a fresh cluster each: CAIRN_A (default
# target/release/cairn) against CAIRN_B (none by default: A alone), e.g. the build before a
# change to the commit path. Reports, per build, the mean over its rounds of commits/s, p99
# latency and the server CPU per commit (every process of the configuration: front ends, data
# nodes, management node), and the ratio B ÷ A.
#
# Needs: a release build of cairn, sysbench, the mysql client.
# Environment: CAIRN_A, CAIRN_B, ROWS (50000), THREADS (16), DURATION (10), WARMUP (3),
# ROUNDS (2), DURABILITY (commit; or interval, with INTERVAL_MS, 2000), KEEP=1.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"

CAIRN_A=${CAIRN_A:-target/release/cairn}
CAIRN_B=${CAIRN_B:-}
ROWS=${ROWS:-50000}
THREADS=${THREADS:-16}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-3}
ROUNDS=${ROUNDS:-2}
DURABILITY=${DURABILITY:-commit}
INTERVAL_MS=${INTERVAL_MS:-2000}
base=25600
sql_port=25699
apis=127.0.0.1:$((base + 2)),127.0.0.1:$((base + 3)),127.0.0.1:$((base + 4)),127.0.0.1:$((base + 5))

[[ -x $CAIRN_A ]] || die "$CAIRN_A is missing: cargo build --release -p cairn"
[[ -z $CAIRN_B || -x $CAIRN_B ]] || die "CAIRN_B=$CAIRN_B is not an executable"
command -v sysbench >/dev/null || die "sysbench is missing: apt-get install -y sysbench"

work=$(mktemp -d /tmp/cairn-two-phase.XXXXXX)
cairn_pid=
sysbench_pid=
trap stop_cairn_and_sysbench EXIT

builds=(A)
cp "$CAIRN_A" "$work/cairn-A"
if [[ -n $CAIRN_B ]]; then
  builds+=(B)
  cp "$CAIRN_B" "$work/cairn-B"
fi
declare -A sum_tps sum_p99 sum_cpu

# One round of build $1: a fresh cluster, the table loaded, a warm-up, then the measured run.
round() {
  local build=$1 cairn=$work/cairn-$1 before after events seconds
  rm -rf "$work/data"
  "$cairn" start --data-nodes 4 --replicas 2 --data-dir "$work/data" --base-port "$base" \
    --sql-port "$sql_port" --hs-read-port 0 --hs-write-port 0 \
    --durability "$DURABILITY" --durability-interval-ms "$INTERVAL_MS" >"$work/cairn.log" 2>&1 &
  cairn_pid=$!
  wait_for_line "$work/cairn.log" ready 120 "$cairn_pid"
  mapfile -t node_pids < <(sed -n 's/.*, pid \([0-9]*\)$/\1/p' "$work/cairn.log")
  ((${#node_pids[@]} == 5)) || { cat "$work/cairn.log" >&2; die "expected the pids of a management node and 4 data nodes"; }
  mysql -h127.0.0.1 -P"$sql_port" -uroot -e "CREATE DATABASE sbtest"
  "$cairn" bench load --connect "$apis" --table sbtest/sbtest1 --rows "$ROWS" 2>/dev/null
  local common=(--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$sql_port"
    --mysql-user=root --mysql-password= --mysql-db=sbtest --tables=1 --table-size="$ROWS"
    --rand-type=uniform --percentile=99 --threads="$THREADS" --mysql-ignore-errors=1213,1205)
  sysbench oltp_write_only "${common[@]}" --time="$WARMUP" run >/dev/null 2>&1 ||
    die "build $build: the warm-up failed"
  before=$(ticks_of "$cairn_pid" "${node_pids[@]}")
  sysbench oltp_write_only "${common[@]}" --time="$DURATION" run >"$work/run.log" 2>&1 ||
    { cat "$work/run.log" >&2; die "build $build: sysbench failed"; }
  after=$(ticks_of "$cairn_pid" "${node_pids[@]}")
  stop_process "$cairn_pid"
  cairn_pid=
  events=$(awk '/transactions:/ { print $2; exit }' "$work/run.log")
  seconds=$(awk '/total time:/ { sub(/s$/, "", $3); print $3 }' "$work/run.log")
  local tps p99 cpu
  tps=$(awk -v n="$events" -v s="$seconds" 'BEGIN { printf "%.1f", n / s }')
  p99=$(awk '/99th percentile:/ { printf "%.2f", $3 }' "$work/run.log")
  cpu=$(awk -v t=$((after - before)) -v hz="$clk_tck" -v n="$events" 'BEGIN { printf "%.1f", t / hz * 1e6 / n }')
  echo "build $build: $tps commits/s, p99 $p99 ms, $cpu us server CPU/commit"
  sum_tps[$build]=$(awk -v a="${sum_tps[$build]:-0}" -v b="$tps" 'BEGIN { print a + b }')
  sum_p99[$build]=$(awk -v a="${sum_p99[$build]:-0}" -v b="$p99" 'BEGIN { print a + b }')
  sum_cpu[$build]=$(awk -v a="${sum_cpu[$build]:-0}" -v b="$cpu" 'BEGIN { print a + b }')
}

echo "# two_phase.sh: $(date -u +%FT%TZ), $(nproc) cores, $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "CAIRN_A=$CAIRN_A CAIRN_B=${CAIRN_B:-none} ROWS=$ROWS THREADS=$THREADS DURATION=$DURATION WARMUP=$WARMUP ROUNDS=$ROUNDS DURABILITY=$DURABILITY INTERVAL_MS=$INTERVAL_MS"
for ((r = 1; r <= ROUNDS; r++)); do
  for build in "${builds[@]}"; do round "$build"; done
done
mean() { awk -v s="$1" -v n="$ROUNDS" 'BEGIN { printf "%.1f", s / n }'; }
echo
echo "| build | commits/s | p99 ms | server CPU us/commit |"
echo "|---|---:|---:|---:|"
for build in "${builds[@]}"; do
  echo "| $build | $(mean "${sum_tps[$build]}") | $(mean "${sum_p99[$build]}") | $(mean "${sum_cpu[$build]}") |"
done
if [[ -n $CAIRN_B ]]; then
  ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
  echo "| B ÷ A | $(ratio "${sum_tps[B]}" "${sum_tps[A]}")× | $(ratio "${sum_p99[B]}" "${sum_p99[A]}")× | $(ratio "${sum_cpu[B]}" "${sum_cpu[A]}")× |"
fi
