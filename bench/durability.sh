#!/usr/bin/env bash
# Write throughput by durability mode, Cairn beside MariaDB in one run (issue 5).
#
# For each Cairn mode (commit, interval, none): a fresh `cairn start --durability MODE`, a
# sysbench-shaped table of ROWS rows (`cairn bench load`), then `cairn bench write` with the
# workloads of sysbench's oltp_insert and oltp_update_index through the native client (Cairn has
# no SQL front end yet), measuring the server's CPU. Then MariaDB (InnoDB, started by
# ../shared/tools/mariadb-ref) with innodb_flush_log_at_trx_commit=1 and =2, driven by real
# sysbench oltp_insert and oltp_update_index over TCP, measuring mariadbd's CPU from /proc over
# each measured run. Ends with one markdown table.
#
# Needs: target/release/cairn (cargo build --release -p cairn), sysbench, and mariadb-ref's
# packages (sudo ../shared/tools/mariadb-ref install; apt-get install -y sysbench).
#
# Environment: ROWS (1000000), DURATION seconds measured (15), THREADS (16), WARMUP seconds run
# unmeasured before each measured run (3), SEED of Cairn's generators (1), INTERVAL_MS for
# Cairn's interval mode (2000), CAIRN_BASE_PORT (23200: the data node takes +2),
# REF_MYSQL_PORT (23306), REF_HS_PORT / REF_HS_PORT_WR (29998 / 29999), KEEP=1 keeps the work
# directory (data and logs) after the run.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"

ROWS=${ROWS:-1000000}
DURATION=${DURATION:-15}
THREADS=${THREADS:-16}
WARMUP=${WARMUP:-3}
SEED=${SEED:-1}
INTERVAL_MS=${INTERVAL_MS:-2000}
CAIRN_BASE_PORT=${CAIRN_BASE_PORT:-23200}
export REF_MYSQL_PORT=${REF_MYSQL_PORT:-23306}
export REF_HS_PORT=${REF_HS_PORT:-29998}
export REF_HS_PORT_WR=${REF_HS_PORT_WR:-29999}
mariadb_ref=${MARIADB_REF:-$root/../shared/tools/mariadb-ref}
cairn_address=127.0.0.1:$((CAIRN_BASE_PORT + 2))


[[ -x target/release/cairn ]] || die "target/release/cairn is missing: cargo build --release -p cairn"
command -v sysbench >/dev/null || die "sysbench is missing: apt-get install -y sysbench"
[[ -x $mariadb_ref ]] || die "$mariadb_ref is missing"
command -v mariadbd >/dev/null || [[ -x /usr/sbin/mariadbd ]] ||
  die "MariaDB is missing: sudo $mariadb_ref install"

work=$(mktemp -d /tmp/cairn-durability.XXXXXX)
# One copy of the binary for the whole run, so a rebuild meanwhile cannot mix two builds.
cp target/release/cairn "$work/cairn"
cairn=$work/cairn
cairn_pid=
mariadb_dir=

cleanup() {
  if [[ -n $cairn_pid ]] && kill -0 "$cairn_pid" 2>/dev/null; then
    kill -TERM "$cairn_pid" 2>/dev/null || true
    wait "$cairn_pid" 2>/dev/null || true
  fi
  if [[ -n $mariadb_dir ]]; then
    "$mariadb_ref" stop "$mariadb_dir" || true
  fi
  if [[ ${KEEP:-0} == 1 ]]; then
    echo "work directory kept: $work" >&2
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT


declare -A ops p99 cpu disk
configs=()

echo "# durability.sh: $(date -u +%FT%TZ), $(nproc) cores, $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet 2>/dev/null || echo ' (work tree modified)')"
echo "ROWS=$ROWS DURATION=$DURATION THREADS=$THREADS WARMUP=$WARMUP SEED=$SEED INTERVAL_MS=$INTERVAL_MS"
echo "work directory: $work"
echo

for mode in commit interval none; do
  config="Cairn $mode"
  configs+=("$config")
  log=$work/cairn-$mode.log
  "$cairn" start --data-dir "$work/cairn-$mode" --base-port "$CAIRN_BASE_PORT" \
    --sql-port 0 --hs-read-port 0 --hs-write-port 0 --durability "$mode" --durability-interval-ms "$INTERVAL_MS" >"$log" 2>&1 &
  cairn_pid=$!
  wait_for_line "$log" ready 120 "$cairn_pid"
  echo "## $config (pid $cairn_pid): $(grep '^durability:' "$log")"
  "$cairn" bench load --connect "$cairn_address" --rows "$ROWS" --seed "$SEED" 2>/dev/null
  for workload in insert update-index; do
    json=$("$cairn" bench write --connect "$cairn_address" --rows "$ROWS" --threads "$THREADS" \
      --duration "$DURATION" --warmup "$WARMUP" --workload "$workload" --seed "$SEED" \
      --server-pid "$cairn_pid" --json)
    echo "$workload: $json"
    ops[$config,$workload]=$(json_field "$json" ops_per_sec)
    p99[$config,$workload]=$(awk -v us="$(json_field "$json" p99_us)" 'BEGIN { printf "%.2f", us / 1000 }')
    cpu[$config,$workload]=$(json_field "$json" server_cpu_us_per_op)
    disk[$config,$workload]=$(json_field "$json" server_disk_bytes_per_op)
  done
  stop_process "$cairn_pid"
  cairn_pid=
  rm -rf "$work/cairn-$mode"
  echo
done

sysbench_common=(--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$REF_MYSQL_PORT"
  --mysql-user=root --mysql-password= --mysql-db=sbtest --tables=1 --table-size="$ROWS"
  --rand-type=uniform --percentile=99)

for flush in 1 2; do
  config="MariaDB flush=$flush"
  configs+=("$config")
  mariadb_dir=$work/mariadb-flush$flush
  REF_FLUSH_AT_COMMIT=$flush "$mariadb_ref" start "$mariadb_dir" >/dev/null
  mariadb_pid=$(<"$mariadb_dir/run/mysqld.pid")
  sql=(mariadb --defaults-file="$mariadb_dir/my.cnf" -N -B)
  "${sql[@]}" -e "CREATE DATABASE IF NOT EXISTS sbtest"
  echo "## $config (mariadbd pid $mariadb_pid): $("${sql[@]}" -e \
    "SELECT CONCAT(VERSION(), ', innodb_flush_log_at_trx_commit=', @@innodb_flush_log_at_trx_commit, ', buffer pool ', @@innodb_buffer_pool_size >> 20, ' MiB, binlog ', @@log_bin)")"
  start=$EPOCHREALTIME
  sysbench oltp_insert "${sysbench_common[@]}" --threads=1 prepare >"$work/prepare-$flush.log" 2>&1 ||
    { cat "$work/prepare-$flush.log" >&2; die "sysbench prepare failed"; }
  echo "sysbench prepare: $ROWS rows in $(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
  for test in oltp_insert oltp_update_index; do
    workload=${test#oltp_}
    workload=${workload/_/-}
    if ((WARMUP > 0)); then
      sysbench "$test" "${sysbench_common[@]}" --threads="$THREADS" --time="$WARMUP" run \
        >"$work/warmup-$flush-$test.log" 2>&1 ||
        { cat "$work/warmup-$flush-$test.log" >&2; die "sysbench $test warm-up failed"; }
    fi
    out=$work/run-$flush-$test.log
    before=$(cpu_ticks "$mariadb_pid")
    disk_before=$(disk_bytes "$mariadb_pid")
    TIMEFORMAT='%U %S'
    client_time=$({ time sysbench "$test" "${sysbench_common[@]}" --threads="$THREADS" \
      --time="$DURATION" run >"$out" 2>&1; } 2>&1) ||
      { cat "$out" >&2; die "sysbench $test failed"; }
    after=$(cpu_ticks "$mariadb_pid")
    disk_after=$(disk_bytes "$mariadb_pid")
    events=$(awk '/transactions:/ { print $2 }' "$out")
    per_sec=$(awk '/transactions:/ { gsub(/\(/, "", $3); print $3 }' "$out")
    p99_ms=$(awk '/99th percentile:/ { print $3 }' "$out")
    errors=$(awk '/ignored errors:/ { print $3 }' "$out")
    seconds=$(awk '/total time:/ { sub(/s$/, "", $3); print $3 }' "$out")
    [[ -n $events && $events -gt 0 ]] || { cat "$out" >&2; die "sysbench $test: no transactions"; }
    server_us=$(awk -v t=$((after - before)) -v hz="$clk_tck" -v n="$events" \
      'BEGIN { printf "%.1f", t / hz * 1e6 / n }')
    client_us=$(awk -v n="$events" -v u="${client_time% *}" -v s="${client_time#* }" \
      'BEGIN { printf "%.1f", (u + s) * 1e6 / n }')
    echo "$workload: sysbench $test: $events transactions in $seconds s, $per_sec/s, p99 $p99_ms ms, ignored errors $errors, mariadbd $(((after - before))) ticks = $server_us us/op, sysbench client $client_us us/op"
    ops[$config,$workload]=$per_sec
    p99[$config,$workload]=$p99_ms
    cpu[$config,$workload]=$server_us
    disk[$config,$workload]=$(awk -v d=$((disk_after - disk_before)) -v n="$events" 'BEGIN { printf "%.0f", d / n }')
  done
  sysbench oltp_insert "${sysbench_common[@]}" cleanup >/dev/null 2>&1
  "$mariadb_ref" stop "$mariadb_dir"
  mariadb_dir=
  echo
done

ratio() {
  awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'
}

echo "## Results: $ROWS rows, $THREADS client threads, $DURATION s measured after $WARMUP s warm-up"
echo
echo "| config | insert ops/s | insert p99 ms | insert server CPU us/op | insert disk bytes/op | update-index ops/s | update-index p99 ms | update-index server CPU us/op | update-index disk bytes/op |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for config in "${configs[@]}"; do
  printf '| %s | %.0f | %.2f | %.1f | %.0f | %.0f | %.2f | %.1f | %.0f |\n' "$config" \
    "${ops[$config,insert]}" "${p99[$config,insert]}" "${cpu[$config,insert]}" "${disk[$config,insert]}" \
    "${ops[$config,update-index]}" "${p99[$config,update-index]}" "${cpu[$config,update-index]}" "${disk[$config,update-index]}"
done
a="Cairn commit"
b="MariaDB flush=1"
printf '| Cairn commit ÷ MariaDB flush=1 | %s× | %s× | %s× | %s× | %s× | %s× | %s× | %s× |\n' \
  "$(ratio "${ops[$a,insert]}" "${ops[$b,insert]}")" \
  "$(ratio "${p99[$a,insert]}" "${p99[$b,insert]}")" \
  "$(ratio "${cpu[$a,insert]}" "${cpu[$b,insert]}")" \
  "$(ratio "${disk[$a,insert]}" "${disk[$b,insert]}")" \
  "$(ratio "${ops[$a,update-index]}" "${ops[$b,update-index]}")" \
  "$(ratio "${p99[$a,update-index]}" "${p99[$b,update-index]}")" \
  "$(ratio "${cpu[$a,update-index]}" "${cpu[$b,update-index]}")" \
  "$(ratio "${disk[$a,update-index]}" "${disk[$b,update-index]}")"
echo
echo "Cairn: cairn bench write over the native client (insert: one row per committed transaction;"
echo "update-index: k = k + 1 by primary key as one Increment operation, committed)."
echo "Disk bytes/op: write_bytes of /proc/PID/io over the measured window (redo, checkpoints, InnoDB's log and pages)."
echo "MariaDB: sysbench $(sysbench --version | awk '{ print $2 }') oltp_insert / oltp_update_index, ${sysbench_common[*]} --threads=$THREADS --time=$DURATION (autocommit, auto_inc), over TCP."
