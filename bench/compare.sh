#!/usr/bin/env bash
# Before and after a change, in one run on this machine: bench/sql.sh and bench/kv.sh with two
# Cairn binaries in turn (A, B, A, B, ... ROUNDS times each), so drift over the run falls on
# both alike. Each run still measures its peers (MariaDB, memcached) beside Cairn. Prints every
# run's result table, then each Cairn row's figures per binary (median over the rounds) and
# B ÷ A. Build A from the earlier commit in a worktree of its own, e.g.
#   git worktree add /tmp/before REV && (cd /tmp/before && cargo build --release -p cairn)
#   bench/compare.sh /tmp/before/target/release/cairn target/release/cairn
# Environment: ROWS (200000), DURATION (10), ROUNDS (2), SUITES ("sql kv"); the rest goes to
# the suites (their defaults otherwise, but TRANSPORTS=tcp, FLOOR=0, TLS=0 unless set).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"

[[ $# -eq 2 ]] || die "usage: bench/compare.sh BINARY_A BINARY_B"
a=$(realpath "$1")
b=$(realpath "$2")
[[ -x $a && -x $b ]] || die "both binaries must exist and be executable"
export ROWS=${ROWS:-200000} DURATION=${DURATION:-10}
export TRANSPORTS=${TRANSPORTS:-tcp} FLOOR=${FLOOR:-0} TLS=${TLS:-0}
ROUNDS=${ROUNDS:-2}
SUITES=${SUITES:-sql kv}
out=$(mktemp -d /tmp/cairn-compare.XXXXXX)
echo "# compare.sh: $(date -u +%FT%TZ), $(nproc) cores; A = $a, B = $b; $ROUNDS rounds; output in $out"

for round in $(seq 1 "$ROUNDS"); do
  for suite in $SUITES; do
    for side in A B; do
      bin=$a
      [[ $side == B ]] && bin=$b
      echo "round $round: $suite.sh with $side" >&2
      CAIRN_BIN=$bin "bench/$suite.sh" >"$out/$suite-$side-$round.md" 2>"$out/$suite-$side-$round.err" ||
        die "bench/$suite.sh with $side failed: see $out/$suite-$side-$round.err"
    done
  done
done

# The rows of each run's result tables whose first cell names Cairn, figures only.
for suite in $SUITES; do
  echo
  echo "## $suite.sh: Cairn's rows, A then B, each round"
  for round in $(seq 1 "$ROUNDS"); do
    for side in A B; do
      grep -E '^\| [^|]*Cairn' "$out/$suite-$side-$round.md" | grep -v '÷' | sed "s/^/$side$round /" || true
    done
  done
  echo
  echo "## $suite.sh: every table of the first round with B"
  sed -n '/^## Results/,$p' "$out/$suite-B-1.md"
done
