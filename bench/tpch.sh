#!/usr/bin/env bash
# TPC-H, Cairn beside MariaDB in one run: generates the data for scale factor SF with
# tpchgen-cli (PyPI, installed into a venv under ~/.cache/cairn-bench when missing; the .tbl
# files are kept there per SF for the next run), loads it into `cairn start` and into MariaDB
# (../shared/tools/mariadb-ref) with bench/tpch/schema.sql, and runs the 22 queries of
# bench/tpch/queries on both with bench/tpch.py: each query's rows from Cairn must equal
# MariaDB's; prints the mean milliseconds per query side by side and their geometric means.
# Exits 1 when a query answered differently, failed or timed out on either server.
#
# Needs: target/release/cairn (or CAIRN_BIN), mariadb-server, python3 with PyMySQL and venv.
# Environment: SF (0.1), REPEAT (3), TIMEOUT (seconds per query run, 300), QUERIES ("1 3 17";
# all 22 by default), KEEP=1 (keep the work directory), TPCH_CACHE (~/.cache/cairn-bench),
# CAIRN_DATA_MEMORY (--data-memory; sized from SF by default), REF_BUFFER_POOL (MariaDB's
# InnoDB buffer pool; sized from SF by default).
# CAIRN_SESSION: statements each Cairn connection runs first, ";"-separated (e.g.
# "SET cairn_join_pushdown = OFF", to compare).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"

SF=${SF:-0.1}
export SF REPEAT=${REPEAT:-3} TIMEOUT=${TIMEOUT:-300} QUERIES=${QUERIES:-}
export REF_MYSQL_PORT=${REF_MYSQL_PORT:-25306}
# mariadb-ref's HandlerSocket ports, away from its defaults so another run's server is no bother.
export REF_HS_PORT=${REF_HS_PORT:-25398} REF_HS_PORT_WR=${REF_HS_PORT_WR:-25399}
cairn_base_port=25400
cairn_sql_port=25406
mariadb_ref=${MARIADB_REF:-$root/../shared/tools/mariadb-ref}
cairn_bin=${CAIRN_BIN:-target/release/cairn}
[[ -x $cairn_bin ]] || die "$cairn_bin is missing: cargo build --release -p cairn"
[[ $SF =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "SF must be a number, not '$SF'"
python=python3
$python -c 'import pymysql' 2>/dev/null || python=/usr/bin/python3
$python -c 'import pymysql' 2>/dev/null || die "PyMySQL is missing: apt-get install -y python3-pymysql"

# Memory for the rows: Cairn holds everything in its data memory and MariaDB should too (the
# whole data set in the buffer pool), so both answer from memory. SF 1 is about 1 GB of .tbl
# text, 8.7M rows (lineitem 6M).
sf_gib=$(awk -v sf="$SF" 'BEGIN { g = int(sf * 8 + 0.999); if (g < 2) g = 2; print g }')
cairn_data_memory=${CAIRN_DATA_MEMORY:-${sf_gib}G}
export REF_BUFFER_POOL=${REF_BUFFER_POOL:-$(awk -v sf="$SF" 'BEGIN { g = int(sf * 4 + 0.999); if (g < 2) g = 2; print g }')G}

# The generator and the data, kept between runs.
cache=${TPCH_CACHE:-$HOME/.cache/cairn-bench}
tpchgen=$cache/tpchgen-venv/bin/tpchgen-cli
if [[ ! -x $tpchgen ]]; then
  echo "# installing tpchgen-cli 4.0.0 into $cache/tpchgen-venv" >&2
  mkdir -p "$cache"
  python3 -m venv "$cache/tpchgen-venv" || /usr/bin/python3 -m venv "$cache/tpchgen-venv" ||
    die "cannot make a Python venv (apt-get install -y python3-venv)"
  "$cache/tpchgen-venv/bin/pip" install -q 'tpchgen-cli==4.0.0' || die "pip install tpchgen-cli failed"
fi
data=$cache/tpch/sf$SF
if [[ ! -f $data/.complete ]]; then
  echo "# generating TPC-H data for SF $SF into $data" >&2
  rm -rf "$data"
  mkdir -p "$data"
  gen_start=$SECONDS
  "$tpchgen" tbl --scale-factor "$SF" --output-dir "$data" --quiet
  for t in region nation part supplier partsupp customer orders lineitem; do
    [[ -s $data/$t.tbl ]] || die "tpchgen-cli made no $data/$t.tbl"
  done
  echo "$("$tpchgen" --version)" >"$data/.complete"
  echo "# generated in $((SECONDS - gen_start)) s" >&2
fi

work=$(mktemp -d /tmp/cairn-tpch.XXXXXX)
cairn_pid=
mariadb_dir=
trap stop_servers EXIT

export GIT_COMMIT
GIT_COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo '?')
echo "# tpch.sh: $(date -u +%FT%TZ), $(nproc) cores, $GIT_COMMIT, SF $SF, REPEAT $REPEAT, TIMEOUT $TIMEOUT s${CAIRN_BIN:+, Cairn binary $CAIRN_BIN}"
echo "# data: $data ($(cat "$data/.complete")); Cairn --data-memory $cairn_data_memory, MariaDB innodb_buffer_pool_size $REF_BUFFER_POOL"
run_start=$SECONDS
"$cairn_bin" start --data-dir "$work/cairn-data" --base-port "$cairn_base_port" \
  --sql-port "$cairn_sql_port" --hs-read-port 0 --hs-write-port 0 \
  --data-memory "$cairn_data_memory" >"$work/cairn.log" 2>&1 &
cairn_pid=$!
wait_for_line "$work/cairn.log" ready 120 "$cairn_pid"
mariadb_dir=$work/mariadb
"$mariadb_ref" start "$mariadb_dir" >/dev/null
mariadb_pid=$(cat "$mariadb_dir/run/mysqld.pid")
status=0
$python bench/tpch.py "$cairn_sql_port" "$REF_MYSQL_PORT" "$data" "$cairn_pid" "$mariadb_pid" || status=$?
kill -0 "$cairn_pid" 2>/dev/null || { echo "# Cairn exited during the run:" >&2; tail -20 "$work/cairn.log" >&2; status=1; }
echo "# the run took $((SECONDS - run_start)) s (servers started, loaded, queried)"
exit "$status"
