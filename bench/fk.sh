#!/usr/bin/env bash
# The cost of foreign keys, Cairn beside MariaDB in one run (issue 45): bench/fk.py times the
# same single-row INSERTs into a child table with and without a FOREIGN KEY, and the same
# single-row DELETEs from a referenced and an unreferenced parent table, on `cairn start` and
# on MariaDB (../shared/tools/mariadb-ref), with each server's CPU per statement.
#
# Needs: target/release/cairn (or CAIRN_BIN), mariadb-server, python3 with PyMySQL.
# Environment: ROWS (5000), SEED (45).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"

export REF_MYSQL_PORT=${REF_MYSQL_PORT:-24506}
cairn_sql_port=24606
mariadb_ref=${MARIADB_REF:-$root/../shared/tools/mariadb-ref}
cairn_bin=${CAIRN_BIN:-target/release/cairn}
[[ -x $cairn_bin ]] || die "$cairn_bin is missing: cargo build --release -p cairn"
python=python3
$python -c 'import pymysql' 2>/dev/null || python=/usr/bin/python3
$python -c 'import pymysql' 2>/dev/null || die "PyMySQL is missing: apt-get install -y python3-pymysql"

work=$(mktemp -d /tmp/cairn-fk.XXXXXX)
cairn_pid=
mariadb_dir=
trap stop_servers EXIT

echo "# fk.sh: $(date -u +%FT%TZ), $(nproc) cores, $(git rev-parse --short HEAD 2>/dev/null || echo '?')${CAIRN_BIN:+, Cairn binary $CAIRN_BIN}"
"$cairn_bin" start --data-dir "$work/cairn-data" --base-port 24600 --sql-port "$cairn_sql_port" \
  --hs-read-port 0 --hs-write-port 0 >"$work/cairn.log" 2>&1 &
cairn_pid=$!
wait_for_line "$work/cairn.log" ready 120 "$cairn_pid"
mariadb_dir=$work/mariadb
"$mariadb_ref" start "$mariadb_dir" >/dev/null
$python bench/fk.py "$cairn_sql_port" "$cairn_pid" "$REF_MYSQL_PORT" "$(cat "$mariadb_dir/run/mysqld.pid")"
