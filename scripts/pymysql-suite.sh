#!/usr/bin/env bash
# PyMySQL's own test suite against a MySQL-protocol server (issue 43). PyMySQL's PyPI release
# carries no tests, so they come from a git clone of its repository (GIT_DIR, any clone or bare
# mirror holding the pinned commit), checked out into $CAIRN_CACHE (default ~/.cache/cairn) with
# a virtualenv holding pytest, and run over 127.0.0.1:PORT with its CI's accounts: the
# databases test1 and test2 and the user test2 (what ci/docker-entrypoint-initdb.d/init.sql
# makes; `init` prints the statements), root without a password.
#
#   scripts/pymysql-suite.sh setup GIT_DIR            check out the tests; print the directory
#   scripts/pymysql-suite.sh init                     print the SQL that makes the accounts
#   scripts/pymysql-suite.sh run GIT_DIR PORT [ARGS]  run the suite (ARGS go to pytest)
#
# The run writes pytest's JUnit XML to $JUNIT when set, and ends with pytest's one-line totals.
set -euo pipefail
commit=0305ab344f2026aaa17b405684a521b092a650bd
cache=${CAIRN_CACHE:-$HOME/.cache/cairn}
dir=$cache/pymysql-${commit:0:7}
venv=$dir/venv

setup() {
  local git_dir=$1
  mkdir -p "$dir"
  if [[ ! -d $dir/src/pymysql/tests ]]; then
    rm -rf "$dir/src"
    mkdir -p "$dir/src"
    git -C "$git_dir" archive "$commit" | tar -x -C "$dir/src"
  fi
  if [[ ! -x $venv/bin/python ]]; then
    python3 -m venv "$venv" >&2
  fi
  if ! "$venv/bin/python" -c 'import pytest' 2>/dev/null; then
    "$venv/bin/pip" install -q "pytest==9.2.0" >&2
  fi
  echo "$dir"
}

init_sql() {
  cat <<'SQL'
CREATE DATABASE IF NOT EXISTS test1 DEFAULT CHARACTER SET utf8mb4;
CREATE DATABASE IF NOT EXISTS test2 DEFAULT CHARACTER SET utf8mb4;
CREATE USER IF NOT EXISTS test2 IDENTIFIED BY 'some password';
GRANT ALL ON test2.* TO test2;
CREATE USER IF NOT EXISTS test2@localhost IDENTIFIED BY 'some password';
GRANT ALL ON test2.* TO test2@localhost;
SQL
}

case ${1:-} in
  setup)
    [[ $# -ge 2 ]] || { echo "usage: $0 setup GIT_DIR" >&2; exit 2; }
    setup "$2"
    ;;
  init) init_sql ;;
  run)
    [[ $# -ge 3 ]] || { echo "usage: $0 run GIT_DIR PORT [PYTEST ARGS...]" >&2; exit 2; }
    setup "$2" >/dev/null
    port=$3
    shift 3
    cd "$dir/src"
    # The CI's two accounts, both over TCP to PORT (its first one uses a unix socket there).
    cat >pymysql/tests/databases.json <<JSON
[
  {"host": "127.0.0.1", "port": $port, "user": "root", "password": "", "database": "test1",
   "use_unicode": true, "local_infile": true},
  {"host": "127.0.0.1", "port": $port, "user": "test2", "password": "some password",
   "database": "test2"}
]
JSON
    "$venv/bin/python" -m pytest pymysql/tests -p no:cacheprovider -q --tb=no "$@" \
      ${JUNIT:+--junitxml="$JUNIT"} | tail -1 || true
    ;;
  *)
    echo "usage: $0 setup GIT_DIR | init | run GIT_DIR PORT [PYTEST ARGS...]" >&2
    exit 2
    ;;
esac
