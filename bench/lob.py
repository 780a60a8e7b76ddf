"""Long TEXT and BLOB values (bench/lob.sh): for each size, N single-row INSERTs of a
random LONGBLOB value (N: REPEAT, or as many as make 64 MiB, whichever is more) (PyMySQL's text protocol: the bytes escaped inside the statement), then
N primary-key SELECTs of them, and N UPDATEs replacing them, on Cairn and on MariaDB in
one run. Values past 1 MiB are kept in parts on Cairn. Prints, per size and statement, the mean
milliseconds per statement and the server's CPU milliseconds per statement (from
/proc/PID/stat), and Cairn / MariaDB ratios. The statement text is escaped once, outside the
timing, so the client's escaping is not counted.
Usage: lob.py CAIRN_PORT CAIRN_PID MARIADB_PORT MARIADB_PID (environment: REPEAT, SEED).
"""

import os
import random
import sys
import time

import pymysql

REPEAT = int(os.environ.get("REPEAT", "5"))
SEED = int(os.environ.get("SEED", "43"))
TICK = os.sysconf("SC_CLK_TCK")
SIZES = [256 << 10, 1 << 20, 4 << 20, 32 << 20]


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def timed(cur, pid, statements, check=None):
    cpu = cpu_seconds(pid)
    start = time.perf_counter()
    for s in statements:
        cur.execute(s)
        if check is not None:
            check(cur.fetchall())
    wall = time.perf_counter() - start
    return wall / len(statements) * 1e3, (cpu_seconds(pid) - cpu) / len(statements) * 1e3


def run(port, pid, values):
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True,
                           binary_prefix=True, max_allowed_packet=256 << 20)
    cur = conn.cursor()
    cur.execute("DROP DATABASE IF EXISTS lobbench")
    cur.execute("CREATE DATABASE lobbench")
    cur.execute("USE lobbench")
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, b LONGBLOB)")
    out = {}
    for size, (value, other) in values.items():
        n = max(REPEAT, (64 << 20) // size)
        escaped = conn.escape(value)
        inserts = [f"INSERT INTO t VALUES ({size + i}, {escaped})" for i in range(n)]
        out[(size, "INSERT")] = timed(cur, pid, inserts)

        def same(rows, value=value):
            if rows[0][0] != value:
                sys.exit(f"port {port}: a {size}-byte value came back different")

        selects = [f"SELECT b FROM t WHERE id = {size + i}" for i in range(n)]
        out[(size, "SELECT by key")] = timed(cur, pid, selects, same)
        escaped = conn.escape(other)
        updates = [f"UPDATE t SET b = {escaped} WHERE id = {size + i}" for i in range(n)]
        out[(size, "UPDATE (replace)")] = timed(cur, pid, updates)
        cur.execute("DELETE FROM t")
    cur.execute("DROP DATABASE lobbench")
    conn.close()
    return out


def main():
    cairn_port, cairn_pid, maria_port, maria_pid = (int(a) for a in sys.argv[1:5])
    rng = random.Random(SEED)
    print(f"REPEAT={REPEAT} SEED={SEED}")
    values = {size: (rng.randbytes(size), rng.randbytes(size)) for size in SIZES}
    maria = pymysql.connect(host="127.0.0.1", port=maria_port, user="root", autocommit=True)
    maria.cursor().execute("SET GLOBAL max_allowed_packet = 256 * 1024 * 1024")
    maria.close()
    cairn = run(cairn_port, cairn_pid, values)
    mariadb = run(maria_port, maria_pid, values)
    print()
    print("| value | statement | Cairn ms | MariaDB ms | ratio | Cairn server CPU ms | "
          "MariaDB server CPU ms | CPU ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for key in cairn:
        (c_ms, c_cpu), (m_ms, m_cpu) = cairn[key], mariadb[key]
        size, what = key
        label = f"{size >> 20} MiB" if size >= 1 << 20 else f"{size >> 10} KiB"
        cpu_ratio = f"{c_cpu / m_cpu:.2f}" if m_cpu > 0 else "-"
        print(f"| {label} | {what} | {c_ms:.2f} | {m_ms:.2f} | {c_ms / m_ms:.2f} | "
              f"{c_cpu:.2f} | {m_cpu:.2f} | {cpu_ratio} |")


main()
