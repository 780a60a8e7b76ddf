#!/usr/bin/env bash
# Joins and aggregation, Cairn beside MariaDB in one run (issue 44): bench/joins.py loads the
# same region / customer / orders tables into `cairn start` and into MariaDB
# (../shared/tools/mariadb-ref), runs each query shape REPEAT times on each, checks both answer
# the same rows, and prints mean milliseconds per query and the ratio.
#
# Needs: target/release/cairn (or CAIRN_BIN), mariadb-server, python3 with PyMySQL.
# Environment: CUSTOMERS (20000), ORDERS (300000), REPEAT (5), SEED (44), KEEP=1.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"

export REF_MYSQL_PORT=${REF_MYSQL_PORT:-24306}
cairn_sql_port=24406
mariadb_ref=${MARIADB_REF:-$root/../shared/tools/mariadb-ref}
cairn_bin=${CAIRN_BIN:-target/release/cairn}
[[ -x $cairn_bin ]] || die "$cairn_bin is missing: cargo build --release -p cairn"
python=python3
$python -c 'import pymysql' 2>/dev/null || python=/usr/bin/python3
$python -c 'import pymysql' 2>/dev/null || die "PyMySQL is missing: apt-get install -y python3-pymysql"

work=$(mktemp -d /tmp/cairn-joins.XXXXXX)
cairn_pid=
mariadb_dir=
trap stop_servers EXIT

echo "# joins.sh: $(date -u +%FT%TZ), $(nproc) cores, $(git rev-parse --short HEAD 2>/dev/null || echo '?')${CAIRN_BIN:+, Cairn binary $CAIRN_BIN}"
"$cairn_bin" start --data-dir "$work/cairn-data" --base-port 24400 --sql-port "$cairn_sql_port" \
  --hs-read-port 0 --hs-write-port 0 >"$work/cairn.log" 2>&1 &
cairn_pid=$!
wait_for_line "$work/cairn.log" ready 120 "$cairn_pid"
mariadb_dir=$work/mariadb
"$mariadb_ref" start "$mariadb_dir" >/dev/null
$python bench/joins.py "$cairn_sql_port" "$REF_MYSQL_PORT"
