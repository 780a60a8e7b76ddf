#!/usr/bin/env bash
# What TLS on the native protocol costs (issue 42): `cairn bench readperf` against a data node
# (`cairn datanode --workers 1`, in memory) over loopback TCP, without and with `--cluster-tls`
# (certificates from `cairn admin certs`; the same flag on readperf, the client), alternating
# PAIRS times so that drift hits both alike. For every access path: latency (us/row), the data
# node's CPU per row (every thread of its process, from /proc/PID/task/*/schedstat over the
# path's timed runs) and the client's. Ends with one markdown table: the medians of each mode and
# the ratios TLS / plain.
#
# Needs: target/release/cairn; port 25702 free.
# Environment: ROWS (200000), RANGE (1000), ITERATIONS (3), MIN_MS (1000: each path runs at
# least this long, so a scan's CPU is measured over thousands of scans, not three), PAIRS (2),
# SEED (7), KEEP=1.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"

ROWS=${ROWS:-200000}
RANGE=${RANGE:-1000}
ITERATIONS=${ITERATIONS:-3}
MIN_MS=${MIN_MS:-1000}
PAIRS=${PAIRS:-2}
SEED=${SEED:-7}
port=25702

[[ -x target/release/cairn ]] || die "target/release/cairn is missing: cargo build --release -p cairn"
work=$(mktemp -d /tmp/cairn-tls.XXXXXX)
cp target/release/cairn "$work/cairn"
cairn=$work/cairn
node_pid=""
cleanup() {
  if [[ -n $node_pid ]] && kill -0 "$node_pid" 2>/dev/null; then stop_process "$node_pid"; fi
  if [[ ${KEEP:-0} == 1 ]]; then echo "work directory kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

echo "# tls.sh: $(date -u +%FT%TZ), $(nproc) cores, $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "ROWS=$ROWS RANGE=$RANGE ITERATIONS=$ITERATIONS MIN_MS=$MIN_MS PAIRS=$PAIRS SEED=$SEED"
"$cairn" admin certs --dir "$work/certs" node client >/dev/null

# One readperf run against a fresh data node; $1 is "plain" or "tls"; appends its JSON to
# $work/$1.json.
run() {
  local mode=$1 node_flags=() client_flags=()
  if [[ $mode == tls ]]; then
    node_flags=(--cluster-tls "$work/certs/node")
    client_flags=(--cluster-tls "$work/certs/client")
  fi
  "$cairn" "${node_flags[@]}" datanode --workers 1 --listen "127.0.0.1:$port" \
    >"$work/node-$mode.out" 2>"$work/node-$mode.err" &
  node_pid=$!
  wait_for_line "$work/node-$mode.out" ready 30 "$node_pid"
  "$cairn" "${client_flags[@]}" bench readperf --connect "127.0.0.1:$port" --rows "$ROWS" \
    --range "$RANGE" --iterations "$ITERATIONS" --min-ms "$MIN_MS" --seed "$SEED" --json \
    --server-pid "$node_pid" >>"$work/$mode.json"
  stop_process "$node_pid"
  node_pid=""
  echo "  $mode run done" >&2
}

for ((pair = 1; pair <= PAIRS; pair++)); do
  if ((pair % 2)); then run plain; run tls; else run tls; run plain; fi
done

python3 - "$work/plain.json" "$work/tls.json" <<'PY'
import json, sys

def load(path):
    runs = [json.loads(line) for line in open(path) if line.strip()]
    paths = {}
    for run in runs:
        for p in run["paths"]:
            paths.setdefault(p["name"], []).append(p)
    # Medians: on a shared machine a run now and then is slowed by what else runs.
    mean = lambda xs: sorted(xs)[len(xs) // 2] if len(xs) % 2 else sum(sorted(xs)[len(xs) // 2 - 1:len(xs) // 2 + 1]) / 2
    return {
        name: {
            k: mean([p[k] for p in ps])
            for k in ("us_per_row", "server_cpu_us_per_row", "client_cpu_us_per_row")
        }
        for name, ps in paths.items()
    }, len(runs)

plain, n = load(sys.argv[1])
tls, _ = load(sys.argv[2])
print(f"\nmedians of {n} runs each\n")
print("| access path | us/row plain | us/row TLS | ratio | server CPU us/row plain | TLS | ratio | client CPU us/row plain | TLS | ratio |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for name, a in plain.items():
    b = tls[name]
    r = lambda k: b[k] / a[k] if a[k] else float("nan")
    print(
        f"| {name} | {a['us_per_row']:.2f} | {b['us_per_row']:.2f} | {r('us_per_row'):.2f} "
        f"| {a['server_cpu_us_per_row']:.2f} | {b['server_cpu_us_per_row']:.2f} | {r('server_cpu_us_per_row'):.2f} "
        f"| {a['client_cpu_us_per_row']:.2f} | {b['client_cpu_us_per_row']:.2f} | {r('client_cpu_us_per_row'):.2f} |"
    )
PY
