#!/usr/bin/env bash
# Node restart (issue 40): in a `cairn start --data-nodes 2 --replicas 2` cluster holding ROWS
# sysbench rows, the backup (data node 2) is restarted with `cairn admin restart 2` (it stops,
# cairn start starts it again from its own files, and the primary's copy brings them level;
# with INITIAL=1, `--initial`: it starts empty and writes every copied row) while sysbench
# oltp_update_index commits through SQL. Reports the copy (rows, seconds, rows/s, from the
# primary's log), the whole restart (the request to stop until a member again), and sysbench's
# commits/s before the restart and while it ran (its per-second report), so the dip shows.
#
# Needs: target/release/cairn, sysbench, the mysql client.
# Environment: ROWS (1000000), THREADS (8), BEFORE (5: seconds measured before the restart),
# AFTER (3: seconds run after it), DURABILITY (commit), COPY_RATE (0: the copy's rows/s limit,
# `--copy-rows-per-s`; 0 copies as fast as it can), INITIAL (0), KEEP=1.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"

ROWS=${ROWS:-1000000}
THREADS=${THREADS:-8}
BEFORE=${BEFORE:-5}
AFTER=${AFTER:-3}
DURABILITY=${DURABILITY:-commit}
COPY_RATE=${COPY_RATE:-0}
INITIAL=${INITIAL:-0}
restart_flags=()
[[ $INITIAL == 1 ]] && restart_flags=(--initial)
base=24600
sql_port=24699
mgm=127.0.0.1:$((base + 100))
apis=127.0.0.1:$((base + 2)),127.0.0.1:$((base + 3))

[[ -x target/release/cairn ]] || die "target/release/cairn is missing: cargo build --release -p cairn"
command -v sysbench >/dev/null || die "sysbench is missing: apt-get install -y sysbench"

work=$(mktemp -d /tmp/cairn-restart.XXXXXX)
cp target/release/cairn "$work/cairn"
cairn=$work/cairn
cairn_pid=
sysbench_pid=

trap stop_cairn_and_sysbench EXIT

echo "ROWS=$ROWS THREADS=$THREADS DURABILITY=$DURABILITY COPY_RATE=$COPY_RATE INITIAL=$INITIAL"
"$cairn" start --data-nodes 2 --replicas 2 --data-dir "$work/data" --base-port "$base" \
  --sql-port "$sql_port" --hs-read-port 0 --hs-write-port 0 --durability "$DURABILITY" \
  --copy-rows-per-s "$COPY_RATE" >"$work/cairn.log" 2>&1 &
cairn_pid=$!
wait_for_line "$work/cairn.log" ready 120 "$cairn_pid"
mysql -h127.0.0.1 -P"$sql_port" -uroot -e "CREATE DATABASE sbtest"
"$cairn" bench load --connect "$apis" --table sbtest/sbtest1 --rows "$ROWS" 2>/dev/null

# sysbench runs through the restart; its per-second report gives the commits/s.
sysbench oltp_update_index --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$sql_port" \
  --mysql-user=root --mysql-password= --mysql-db=sbtest --tables=1 --table-size="$ROWS" \
  --rand-type=uniform --threads="$THREADS" --time=3600 --report-interval=1 run \
  >"$work/sysbench.log" 2>&1 &
sysbench_pid=$!
sleep "$((BEFORE + 1))"
began=$(date +%s.%N)
"$cairn" admin restart 2 "${restart_flags[@]}" --mgm "$mgm" >"$work/restart.log"
ended=$(date +%s.%N)
sleep "$AFTER"
# (sysbench ends on SIGTERM, not SIGINT.)
kill -TERM "$sysbench_pid" 2>/dev/null || true
wait "$sysbench_pid" 2>/dev/null || true
sysbench_pid=

restart_s=$(awk -v a="$began" -v b="$ended" 'BEGIN { printf "%.2f", b - a }')
copied=$(grep -h "to starting data node 2" "$work/data/logs/datanode-1.log" | tail -n 1)
[[ -n $copied ]] || die "the primary's log has no finished copy"
# "copied N rows in T tables to starting data node 2 in S s (R rows/s)"
copy_rows=$(awk '{ print $2 }' <<<"$copied")
copy_s=$(sed -n 's/.* in \([0-9.]*\) s (.*/\1/p' <<<"$copied")
copy_rate=$(sed -n 's/.*(\([0-9]*\) rows\/s).*/\1/p' <<<"$copied")
# sysbench's "[ Ns ] ... tps: X" lines: the BEFORE seconds before the restart, and the seconds
# it ran.
restart_from=$((BEFORE + 1))
restart_to=$(awk -v f="$restart_from" -v r="$restart_s" 'BEGIN { printf "%d", f + r + 0.999 }')
errors=$(grep -c "FATAL\|error" "$work/sysbench.log" || true)
tps_before=$(sysbench_tps "$work/sysbench.log" 1 "$BEFORE")
tps_during=$(sysbench_tps "$work/sysbench.log" "$restart_from" "$restart_to")
dip=$(awk -v a="$tps_before" -v b="$tps_during" 'BEGIN { if (a > 0) printf "%.0f", (1 - b / a) * 100; else print "?" }')

echo
echo "| rows | copy | copy rows/s | restart (stop to member) | commits/s before | commits/s during | dip |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
echo "| $copy_rows | $copy_s s | $copy_rate | $restart_s s | $tps_before | $tps_during | $dip% |"
echo
echo "sysbench error lines: $errors"
# From its own files, each worker of the restarted node says what the copy changed.
sed -n 's/.*node restart from its own files: \([0-9]*\) copied rows were here already, \([0-9]*\) written, \([0-9]*\) deleted.*/\1 \2 \3/p' \
  "$work/data/logs/datanode-2.log" |
  awk '{ e += $1; w += $2; d += $3 }
    END { if (NR > 0) printf "restarted node: %d copied rows equal to its own, %d written, %d deleted\n", e, w, d }'
sed 's/^/  /' "$work/restart.log"
