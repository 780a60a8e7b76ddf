# Shell helpers the benchmark scripts share (sourced; not run on its own).

die() {
  echo "$(basename "$0"): $*" >&2
  exit 1
}

# utime + stime of a process in clock ticks (fields 14 and 15 of /proc/PID/stat, counted after
# the command name, which may hold spaces).
cpu_ticks() {
  local stat
  stat=$(<"/proc/$1/stat") || die "process $1 is gone"
  awk '{ print $12 + $13 }' <<<"${stat##*)}"
}
clk_tck=$(getconf CLK_TCK)

# CPU ticks of every process in $@, summed.
ticks_of() {
  local total=0 pid
  for pid in "$@"; do total=$((total + $(cpu_ticks "$pid"))); done
  echo "$total"
}

# Bytes a process caused to be written to storage (write_bytes of /proc/PID/io).
disk_bytes() {
  awk '/^write_bytes:/ { print $2 }' "/proc/$1/io" || die "process $1 is gone"
}

# A field of a flat JSON object (numbers and plain strings only).
json_field() {
  sed -n "s/.*\"$2\":\"\{0,1\}\([^,\"}]*\).*/\1/p" <<<"$1"
}

# Waits until file $1 has a line equal to $2, for at most $3 seconds, while process $4 lives.
wait_for_line() {
  local deadline=$((SECONDS + $3))
  until grep -qx "$2" "$1" 2>/dev/null; do
    kill -0 "$4" 2>/dev/null || { cat "$1" >&2; die "process $4 exited before printing '$2'"; }
    ((SECONDS < deadline)) || { cat "$1" >&2; die "no '$2' line within $3 s"; }
    sleep 0.1
  done
}

# Sends SIGTERM to our child $1 and waits for it to exit, for at most 60 s.
stop_process() {
  local deadline=$((SECONDS + 60))
  kill -TERM "$1"
  while kill -0 "$1" 2>/dev/null; do
    ((SECONDS < deadline)) || die "process $1 did not stop within 60 s of SIGTERM"
    sleep 0.1
  done
  wait "$1" 2>/dev/null || true
}

# The mean of sysbench's per-second "tps:" figures (its --report-interval=1 lines "[ Ns ] ...")
# from second $2 to second $3 of log $1; 0 when it has none.
sysbench_tps() {
  awk -v from="$2" -v to="$3" '/^\[ *[0-9]+s \]/ {
      s = $2; sub(/s$/, "", s); s += 0
      for (i = 1; i <= NF; i++) if ($i == "tps:") t = $(i + 1)
      if (s >= from && s <= to) { sum += t; n++ }
    } END { if (n) printf "%.0f", sum / n; else print "0" }' "$1"
}

# The EXIT trap of a script that runs `cairn start` ($cairn_pid) and sysbench ($sysbench_pid)
# in work directory $work: stops both, and removes $work unless KEEP=1.
stop_cairn_and_sysbench() {
  [[ -n $sysbench_pid ]] && kill "$sysbench_pid" 2>/dev/null || true
  if [[ -n $cairn_pid ]] && kill -0 "$cairn_pid" 2>/dev/null; then
    kill -TERM "$cairn_pid" 2>/dev/null || true
    wait "$cairn_pid" 2>/dev/null || true
  fi
  if [[ ${KEEP:-0} == 1 ]]; then echo "work directory kept: $work" >&2; else rm -rf "$work"; fi
}

# The EXIT trap of scripts that start `cairn start` ($cairn_pid) and the reference MariaDB
# ($mariadb_dir, through $mariadb_ref) over work directory $work (kept when KEEP=1).
stop_servers() {
  if [[ -n ${cairn_pid:-} ]] && kill -0 "$cairn_pid" 2>/dev/null; then
    kill -TERM "$cairn_pid" 2>/dev/null || true
    wait "$cairn_pid" 2>/dev/null || true
  fi
  [[ -n ${mariadb_dir:-} ]] && { "$mariadb_ref" stop "$mariadb_dir" || true; }
  if [[ ${KEEP:-0} == 1 ]]; then echo "work directory kept: $work" >&2; else rm -rf "$work"; fi
}

# Starts `cairn start` (SQL on $cairn_sql_port, other ports from BASE_PORT, no HandlerSocket)
# and the reference MariaDB (on $REF_MYSQL_PORT) for a script comparing them, in a new work
# directory /tmp/cairn-NAME.*; sets $work, $cairn_pid, $mariadb_dir, $mariadb_ref and $python
# (one with PyMySQL), and stops both on exit. Prints the run's header line first.
start_cairn_and_mariadb() {
  local name=$1 base_port=$2
  mariadb_ref=${MARIADB_REF:-$root/../shared/tools/mariadb-ref}
  cairn_bin=${CAIRN_BIN:-target/release/cairn}
  [[ -x $cairn_bin ]] || die "$cairn_bin is missing: cargo build --release -p cairn"
  python=python3
  $python -c 'import pymysql' 2>/dev/null || python=/usr/bin/python3
  $python -c 'import pymysql' 2>/dev/null || die "PyMySQL is missing: apt-get install -y python3-pymysql"
  work=$(mktemp -d "/tmp/cairn-$name.XXXXXX")
  cairn_pid=
  mariadb_dir=
  trap stop_servers EXIT
  echo "# $name.sh: $(date -u +%FT%TZ), $(nproc) cores, $(git rev-parse --short HEAD 2>/dev/null || echo '?')${CAIRN_BIN:+, Cairn binary $CAIRN_BIN}"
  "$cairn_bin" start --data-dir "$work/cairn-data" --base-port "$base_port" --sql-port "$cairn_sql_port" \
    --hs-read-port 0 --hs-write-port 0 >"$work/cairn.log" 2>&1 &
  cairn_pid=$!
  wait_for_line "$work/cairn.log" ready 120 "$cairn_pid"
  mariadb_dir=$work/mariadb
  "$mariadb_ref" start "$mariadb_dir" >/dev/null
}
