#!/usr/bin/env bash
# Reads from backups (issue 38, READ_BACKUP): sysbench oltp_point_select and oltp_read_only
# through the SQL front end (`cairn api`) over one node group of two data node processes and a
# management node, with the table READ_BACKUP=0 (every read on the group's primary) against
# READ_BACKUP=1 (committed reads may go to either replica), alternating PAIRS times so that
# drift hits both alike. Twice: with both data nodes on 127.0.0.1 (one host: the front end reads
# the primary alone, `client::read_from`), and with data node 2 on 127.0.0.2 (another host as
# far as the front end can tell: it sends reads to both in turn; on this machine they still
# share its processors). Server CPU per transaction is measured from /proc over each window,
# summed over every process (front ends, data nodes, management node), and shown per data node
# too. Ends with one markdown table and the ratios.
#
# Needs: target/release/cairn, sysbench, the mysql client; ports 25402-25502 free.
# Environment: ROWS (100000), DURATION (10), WARMUP (3), THREADS (16), PAIRS (2), KEEP=1.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"

ROWS=${ROWS:-100000}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-3}
THREADS=${THREADS:-16}
PAIRS=${PAIRS:-2}
sql_port=25406

[[ -x target/release/cairn ]] || die "target/release/cairn is missing: cargo build --release -p cairn"
command -v sysbench >/dev/null || die "sysbench is missing: apt-get install -y sysbench"

work=$(mktemp -d /tmp/cairn-read-backup.XXXXXX)
cp target/release/cairn "$work/cairn"
cairn=$work/cairn

echo "# read_backup.sh: $(date -u +%FT%TZ), $(nproc) cores, $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "ROWS=$ROWS DURATION=$DURATION WARMUP=$WARMUP THREADS=$THREADS PAIRS=$PAIRS"
echo

pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [[ ${KEEP:-0} == 1 ]]; then echo "work directory kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

# Starts a management node, data node 1 on 127.0.0.1 and data node 2 on $2 (127.0.0.1: one
# host; 127.0.0.2: another host as far as the front end can tell), and the front ends over
# both, in directory $work/$1; sets pids (api, mgmd, dn1, dn2).
cluster_up() {
  local dir=$work/$1 host2=$2 k workers=$(($(nproc) - 1))
  ((workers >= 1)) || workers=1
  mkdir -p "$dir"
  cat >"$dir/cluster.toml" <<TOML
[cluster]
replicas = 2
workers = $workers

[mgmd]
address = "127.0.0.1:25500"

[[datanode]]
address = "127.0.0.1:25501"
api = "127.0.0.1:25402"

[[datanode]]
address = "127.0.0.1:25502"
api = "$host2:25403"
TOML
  "$cairn" mgmd --config "$dir/cluster.toml" >"$dir/mgmd.log" 2>&1 &
  local mgmd=$!
  local deadline=$((SECONDS + 30))
  until (exec 3<>/dev/tcp/127.0.0.1/25500) 2>/dev/null; do
    ((SECONDS < deadline)) || { cat "$dir/mgmd.log" >&2; die "the management node did not listen"; }
    sleep 0.1
  done
  for k in 1 2; do
    "$cairn" datanode --mgm 127.0.0.1:25500 --node-id "$k" --data-dir "$dir/node$k" --no-angel >"$dir/node$k.log" 2>&1 &
    eval "dn$k=\$!"
  done
  # The front ends start once a data node serves (a try fails while none does).
  local api
  deadline=$((SECONDS + 120))
  while :; do
    "$cairn" api --datanode "127.0.0.1:25402,$host2:25403" --sql-port "$sql_port" \
      --hs-read-port 0 --hs-write-port 0 >"$dir/api.log" 2>&1 &
    api=$!
    pids=("$api" "$mgmd" "$dn1" "$dn2")
    until mysql -h127.0.0.1 -P"$sql_port" -uroot -e "SELECT 1" >/dev/null 2>&1; do
      kill -0 "$api" 2>/dev/null || break
      sleep 0.2
    done
    kill -0 "$api" 2>/dev/null && break
    ((SECONDS < deadline)) || { cat "$dir"/*.log >&2; die "the front end did not start within 120 s"; }
    sleep 1
  done
}

cluster_down() {
  local pid
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  pids=()
}

sql() { mysql -h127.0.0.1 -P"$sql_port" -uroot -e "$1"; }
common=(--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$sql_port" --mysql-user=root
  --mysql-password= --mysql-db=sbtest --tables=1 --table-size="$ROWS" --rand-type=uniform
  --percentile=99 --db-ps-mode=auto)

per_op() { awk -v t="$1" -v hz="$clk_tck" -v n="$2" 'BEGIN { printf "%.1f", t / hz * 1e6 / n }'; }

declare -A tps cpu cpu1 cpu2 p99
tests=(oltp_point_select oltp_read_only)
configs=("one host" "two hosts")

# One window of $3 on configuration $1 with READ_BACKUP=$2: adds its throughput, p99 and CPU
# per transaction.
measure() {
  local config=$1 flag=$2 test=$3 key="$1,$2,$3" before b1 b2 after a1 a2 events seconds
  sysbench "$test" "${common[@]}" --threads="$THREADS" --time="$WARMUP" run >/dev/null 2>&1 ||
    die "$test warm-up failed ($config, READ_BACKUP=$flag)"
  before=$(ticks_of "${pids[@]}"); b1=$(cpu_ticks "${pids[2]}"); b2=$(cpu_ticks "${pids[3]}")
  sysbench "$test" "${common[@]}" --threads="$THREADS" --time="$DURATION" run >"$work/run.log" 2>&1 ||
    { cat "$work/run.log" >&2; die "sysbench $test failed ($config, READ_BACKUP=$flag)"; }
  after=$(ticks_of "${pids[@]}"); a1=$(cpu_ticks "${pids[2]}"); a2=$(cpu_ticks "${pids[3]}")
  events=$(awk '/transactions:/ { print $2; exit }' "$work/run.log")
  seconds=$(awk '/total time:/ { sub(/s$/, "", $3); print $3 }' "$work/run.log")
  local t c c1 c2 p
  t=$(awk -v n="$events" -v s="$seconds" 'BEGIN { printf "%.0f", n / s }')
  c=$(per_op $((after - before)) "$events"); c1=$(per_op $((a1 - b1)) "$events"); c2=$(per_op $((a2 - b2)) "$events")
  p=$(awk '/99th percentile:/ { printf "%.2f", $3 }' "$work/run.log")
  echo "$config, READ_BACKUP=$flag, $test: $t/s, p99 $p ms, server CPU $c us/txn (data node 1 $c1, data node 2 $c2)"
  add() { awk -v a="${1:-0}" -v b="$2" 'BEGIN { print a + b }'; }
  tps[$key]=$(add "${tps[$key]:-0}" "$t")
  cpu[$key]=$(add "${cpu[$key]:-0}" "$c")
  cpu1[$key]=$(add "${cpu1[$key]:-0}" "$c1")
  cpu2[$key]=$(add "${cpu2[$key]:-0}" "$c2")
  p99[$key]=$(add "${p99[$key]:-0}" "$p")
}

for config in "${configs[@]}"; do
  if [[ $config == "one host" ]]; then host2=127.0.0.1; else host2=127.0.0.2; fi
  cluster_up "${config// /-}" "$host2"
  sql "CREATE DATABASE sbtest"
  sysbench oltp_point_select "${common[@]}" --threads=2 prepare >"$work/prepare.log" 2>&1 ||
    { cat "$work/prepare.log" >&2; die "sysbench prepare failed"; }
  for ((pair = 1; pair <= PAIRS; pair++)); do
    for flag in 0 1; do
      sql "ALTER TABLE sbtest.sbtest1 COMMENT='NDB_TABLE=READ_BACKUP=$flag'"
      # The front end's loops look for replicas to read from every 5 s.
      sleep 6
      for test in "${tests[@]}"; do measure "$config" "$flag" "$test"; done
    done
  done
  cluster_down
  echo
done

avg() { awk -v a="$1" -v n="$PAIRS" -v f="${2:-%.0f}" 'BEGIN { printf f, a / n }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
echo "## Results: 1 table x $ROWS rows, $THREADS threads, $DURATION s after $WARMUP s warm-up, mean of $PAIRS alternating pairs"
echo
echo "| replicas on | test | READ_BACKUP | transactions/s | p99 ms | server CPU us/txn | data node 1 | data node 2 |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for config in "${configs[@]}"; do
  for test in "${tests[@]}"; do
    for flag in 0 1; do
      k="$config,$flag,$test"
      echo "| $config | $test | $flag | $(avg "${tps[$k]}") | $(avg "${p99[$k]}" %.2f) | $(avg "${cpu[$k]}" %.1f) | $(avg "${cpu1[$k]}" %.1f) | $(avg "${cpu2[$k]}" %.1f) |"
    done
    echo "| $config | $test | 1 ÷ 0 | $(ratio "${tps[$config,1,$test]}" "${tps[$config,0,$test]}")× | | $(ratio "${cpu[$config,1,$test]}" "${cpu[$config,0,$test]}")× | | |"
  done
done
