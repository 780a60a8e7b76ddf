#!/usr/bin/env bash
# Long TEXT and BLOB values, Cairn beside MariaDB in one run (issue 43): bench/lob.py writes
# and reads LONGBLOB values of 256 KiB, 1 MiB (the longest kept in its row), 4 MiB and 32 MiB
# (kept in parts past 1 MiB) over PyMySQL's text protocol, on `cairn start` and on MariaDB
# (../shared/tools/mariadb-ref, max_allowed_packet raised to 256 MiB), with each server's CPU
# per statement.
#
# Needs: target/release/cairn (or CAIRN_BIN), mariadb-server, python3 with PyMySQL.
# Environment: REPEAT (5), SEED (43).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"

export REF_MYSQL_PORT=${REF_MYSQL_PORT:-24507}
cairn_sql_port=24706
start_cairn_and_mariadb lob 24700
$python bench/lob.py "$cairn_sql_port" "$cairn_pid" "$REF_MYSQL_PORT" "$(cat "$mariadb_dir/run/mysqld.pid")"
