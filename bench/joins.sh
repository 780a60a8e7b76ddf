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
start_cairn_and_mariadb joins 24400
$python bench/joins.py "$cairn_sql_port" "$REF_MYSQL_PORT"
