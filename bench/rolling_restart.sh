#!/usr/bin/env bash
# Rolling restart (issue 40): a `cairn start --data-nodes 4 --replicas 2` cluster (two node
# groups of two data nodes, each under cairn start's care) holding ROWS sysbench rows, while
# sysbench oltp_read_write runs through the SQL front end: `cairn admin rolling-restart` restarts
# every data node in turn (backups first, then the groups' primaries), each coming back by node
# restart before the next goes. Checks afterwards that nothing was lost or torn: the table still
# holds ROWS rows (each oltp_read_write transaction deletes a row and inserts it again, so a
# partly applied one shows as a missing or extra row), and every group's replicas hold the same
# rows (`cairn admin replicas`). Reports sysbench's errors by class (the retry class, 1213 and
# 1205, which sysbench retries; anything else fails the run), its transactions/s before and
# during the restarts, and each node's restart time.
#
# Needs: target/release/cairn, sysbench, the mysql client.
# Environment: ROWS (100000), THREADS (8), BEFORE (5: seconds measured before the restarts),
# AFTER (3), DURABILITY (commit), KEEP=1.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"

ROWS=${ROWS:-100000}
THREADS=${THREADS:-8}
BEFORE=${BEFORE:-5}
AFTER=${AFTER:-3}
DURABILITY=${DURABILITY:-commit}
base=24700
sql_port=24799
mgm=127.0.0.1:$((base + 100))
apis=127.0.0.1:$((base + 2)),127.0.0.1:$((base + 3)),127.0.0.1:$((base + 4)),127.0.0.1:$((base + 5))

[[ -x target/release/cairn ]] || die "target/release/cairn is missing: cargo build --release -p cairn"
command -v sysbench >/dev/null || die "sysbench is missing: apt-get install -y sysbench"

work=$(mktemp -d /tmp/cairn-rolling.XXXXXX)
cp target/release/cairn "$work/cairn"
cairn=$work/cairn
cairn_pid=
sysbench_pid=

trap stop_cairn_and_sysbench EXIT

echo "# rolling_restart.sh: $(date -u +%FT%TZ), $(nproc) cores, $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "ROWS=$ROWS THREADS=$THREADS DURABILITY=$DURABILITY"
"$cairn" start --data-nodes 4 --replicas 2 --data-dir "$work/data" --base-port "$base" \
  --sql-port "$sql_port" --hs-read-port 0 --hs-write-port 0 --durability "$DURABILITY" \
  >"$work/cairn.log" 2>&1 &
cairn_pid=$!
wait_for_line "$work/cairn.log" ready 120 "$cairn_pid"
sql() { mysql -h127.0.0.1 -P"$sql_port" -uroot -N -B -e "$1"; }
sql "CREATE DATABASE sbtest"
"$cairn" bench load --connect "$apis" --table sbtest/sbtest1 --rows "$ROWS" 2>/dev/null
[[ $(sql "SELECT COUNT(*) FROM sbtest.sbtest1") == "$ROWS" ]] || die "the load did not leave $ROWS rows"

# sysbench runs through the restarts, retrying the retry class (its default list, named here).
sysbench oltp_read_write --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$sql_port" \
  --mysql-user=root --mysql-password= --mysql-db=sbtest --tables=1 --table-size="$ROWS" \
  --rand-type=uniform --threads="$THREADS" --time=3600 --report-interval=1 \
  --mysql-ignore-errors=1213,1205 run >"$work/sysbench.log" 2>&1 &
sysbench_pid=$!
sleep "$((BEFORE + 1))"
kill -0 "$sysbench_pid" 2>/dev/null || { cat "$work/sysbench.log" >&2; die "sysbench stopped before the restarts"; }
began=$(date +%s.%N)
"$cairn" admin rolling-restart --mgm "$mgm" >"$work/restart.log" 2>&1 ||
  { cat "$work/restart.log" >&2; die "the rolling restart failed"; }
ended=$(date +%s.%N)
sleep "$AFTER"
alive=yes
kill -0 "$sysbench_pid" 2>/dev/null || alive=no
# (sysbench ends on SIGTERM, not SIGINT.)
kill -TERM "$sysbench_pid" 2>/dev/null || true
wait "$sysbench_pid" 2>/dev/null || true
sysbench_pid=

rolling_s=$(awk -v a="$began" -v b="$ended" 'BEGIN { printf "%.1f", b - a }')
restart_from=$((BEFORE + 1))
restart_to=$(awk -v f="$restart_from" -v r="$rolling_s" 'BEGIN { printf "%d", f + r + 0.999 }')
tps_before=$(sysbench_tps "$work/sysbench.log" 1 "$BEFORE")
tps_during=$(sysbench_tps "$work/sysbench.log" "$restart_from" "$restart_to")
# The per-second "err/s" column summed: the errors sysbench ignored (the retry class) and retried.
retried=$(awk '/^\[ *[0-9]+s \]/ { for (i = 1; i <= NF; i++) if ($i == "err/s:") n += $(i + 1) } END { printf "%.0f", n }' "$work/sysbench.log")
codes=$({ grep -o "error [0-9]*" "$work/sysbench.log" || true; } | sort | uniq -c | awk '{ printf "%s%s x%s", sep, $3, $1; sep = ", " }')
fatal=$(grep -c "FATAL" "$work/sysbench.log" || true)

count=$(sql "SELECT COUNT(*) FROM sbtest.sbtest1")
"$cairn" admin replicas --mgm "$mgm" >"$work/replicas.log" 2>&1 || { cat "$work/replicas.log" >&2; die "the replicas differ"; }

echo
echo "| nodes restarted | rolling restart | tps before | tps during | dip | errors retried (1213/1205) | other errors | rows after |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
restarted=$(grep -c "is a member again" "$work/restart.log" || true)
dip=$(awk -v a="$tps_before" -v b="$tps_during" 'BEGIN { if (a > 0) printf "%.0f", (1 - b / a) * 100; else print "?" }')
echo "| $restarted | $rolling_s s | $tps_before | $tps_during | $dip% | $retried | $fatal | $count of $ROWS |"
echo
echo "sysbench still running at the end: $alive; error codes it printed: ${codes:-none}"
sed 's/^/  /' "$work/restart.log" | grep -v "^  *data node [0-9]*: "
sed 's/^/  /' "$work/replicas.log"
[[ $alive == yes ]] || die "sysbench stopped during the restarts (an error outside the retry class)"
((fatal == 0)) || die "sysbench printed $fatal FATAL lines"
[[ $count == "$ROWS" ]] || die "the table holds $count rows, not $ROWS: a transaction was lost or torn"
((restarted == 4)) || die "$restarted data nodes came back, not 4"
echo "rolling restart: every node back, nothing lost or torn, replicas equal"
