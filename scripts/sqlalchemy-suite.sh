#!/usr/bin/env bash
# SQLAlchemy's own test suite against a MySQL-protocol server (issue 45): the pinned sdist
# (which carries its tests) downloaded from PyPI into a virtualenv under $CAIRN_CACHE (default
# ~/.cache/cairn), with pytest and PyMySQL, then run over the server at DBURI.
#
#   scripts/sqlalchemy-suite.sh setup                 prepare the virtualenv; print its directory
#   scripts/sqlalchemy-suite.sh run DBURI [TESTS...]  run TESTS (default: the selection)
#
# DBURI is e.g. mysql+pymysql://root@127.0.0.1:3306/test?charset=utf8mb4; its server needs the
# databases `test` and `test_schema` (utf8mb4). The run writes pytest's JUnit XML to $JUNIT when
# set, and ends with pytest's one-line totals.
set -euo pipefail
version=2.0.58
cache=${CAIRN_CACHE:-$HOME/.cache/cairn}
dir=$cache/sqlalchemy-$version
venv=$dir/venv

setup() {
  mkdir -p "$dir"
  if [[ ! -x $venv/bin/python ]]; then
    python3 -m venv "$venv" >&2
  fi
  if [[ ! -d $dir/sqlalchemy-$version/test ]]; then
    "$venv/bin/pip" download -q --no-deps --no-binary :all: "sqlalchemy==$version" -d "$dir/dl" >&2
    tar -xzf "$dir/dl/sqlalchemy-$version.tar.gz" -C "$dir"
  fi
  if ! "$venv/bin/python" -c 'import sqlalchemy, pytest, pymysql' 2>/dev/null; then
    "$venv/bin/pip" install -q "pytest==9.2.0" "pymysql==1.2.4" "typing_extensions==4.16.0" \
      "greenlet==3.5.6" >&2
    "$venv/bin/pip" install -q --no-deps "$dir/sqlalchemy-$version" >&2
  fi
  echo "$dir"
}

case ${1:-} in
  setup) setup ;;
  run)
    [[ $# -ge 2 ]] || { echo "usage: $0 run DBURI [TESTS...]" >&2; exit 2; }
    dburi=$2
    shift 2
    setup >/dev/null
    tests=("$@")
    if ((${#tests[@]} == 0)); then
      tests=(test/dialect/mysql test/sql test/dialect/test_suite.py test/engine test/orm)
    fi
    cd "$dir/sqlalchemy-$version"
    "$venv/bin/python" -m pytest "${tests[@]}" --dburi "$dburi" -p no:cacheprovider -q \
      --tb=no --maxfail=1000000 ${JUNIT:+--junitxml="$JUNIT"} | tail -1 || true
    ;;
  *)
    echo "usage: $0 setup | run DBURI [TESTS...]" >&2
    exit 2
    ;;
esac
