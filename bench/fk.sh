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
start_cairn_and_mariadb fk 24600
$python bench/fk.py "$cairn_sql_port" "$cairn_pid" "$REF_MYSQL_PORT" "$(cat "$mariadb_dir/run/mysqld.pid")"
