"""The cost of a checked write (bench/fk.sh): the same single-row INSERTs into a child table
with and without a FOREIGN KEY, and the same single-row DELETEs of parent rows from a table
that a foreign key references and from one that none does, each statement on its own
(autocommit) over one connection, on Cairn and on MariaDB in one run. Prints mean
microseconds per statement and the server's CPU microseconds per statement (from
/proc/PID/stat), and the checked / unchecked ratio on each server.
Usage: fk.py CAIRN_PORT CAIRN_PID MARIADB_PORT MARIADB_PID (environment: ROWS, SEED).
"""

import os
import random
import sys
import time

import pymysql

ROWS = int(os.environ.get("ROWS", "5000"))
SEED = int(os.environ.get("SEED", "45"))
TICK = os.sysconf("SC_CLK_TCK")

SCHEMA = [
    "CREATE TABLE p (id INT PRIMARY KEY, v INT NOT NULL)",
    "CREATE TABLE p_free (id INT PRIMARY KEY, v INT NOT NULL)",
    "CREATE TABLE c_free (id INT PRIMARY KEY, pid INT NOT NULL, KEY (pid))",
    "CREATE TABLE c_fk (id INT PRIMARY KEY, pid INT NOT NULL, FOREIGN KEY (pid) REFERENCES p (id))",
]


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def load(cur):
    cur.execute("DROP DATABASE IF EXISTS fkbench")
    cur.execute("CREATE DATABASE fkbench")
    cur.execute("USE fkbench")
    for s in SCHEMA:
        cur.execute(s)
    for table in ("p", "p_free"):
        for start in range(1, 2 * ROWS + 1, 1000):
            rows = range(start, min(start + 1000, 2 * ROWS + 1))
            cur.execute(f"INSERT INTO {table} VALUES " + ",".join(f"({i}, 0)" for i in rows))


def phases(rng):
    # Children reference the first ROWS parents; the deletes take the other ROWS, childless.
    pids = [rng.randrange(1, ROWS + 1) for _ in range(ROWS)]
    doomed = list(range(ROWS + 1, 2 * ROWS + 1))
    rng.shuffle(doomed)
    return [
        ("INSERT a child row, no foreign key", "c_free",
         [f"INSERT INTO c_free VALUES ({i + 1}, {p})" for i, p in enumerate(pids)]),
        ("INSERT a child row, its parent checked", "c_fk",
         [f"INSERT INTO c_fk VALUES ({i + 1}, {p})" for i, p in enumerate(pids)]),
        ("DELETE a parent row nothing references", "p_free",
         [f"DELETE FROM p_free WHERE id = {k}" for k in doomed]),
        ("DELETE a referenced table's row (its children looked for)", "p",
         [f"DELETE FROM p WHERE id = {k}" for k in doomed]),
    ]


def run(conn, pid, statements):
    cur = conn.cursor()
    cpu = cpu_seconds(pid)
    start = time.perf_counter()
    for s in statements:
        cur.execute(s)
    wall = time.perf_counter() - start
    cpu = cpu_seconds(pid) - cpu
    return wall * 1e6 / len(statements), cpu * 1e6 / len(statements)


def main():
    cairn_port, cairn_pid, mariadb_port, mariadb_pid = map(int, sys.argv[1:5])
    servers = [("Cairn", cairn_port, cairn_pid), ("MariaDB", mariadb_port, mariadb_pid)]
    results = {}
    for name, port, pid in servers:
        conn = pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)
        load(conn.cursor())
        for label, _, statements in phases(random.Random(SEED)):
            results[(name, label)] = run(conn, pid, statements)
        cur = conn.cursor()
        cur.execute("SELECT COUNT(*) FROM c_fk")
        assert cur.fetchone()[0] == ROWS
        cur.execute("SELECT COUNT(*) FROM p")
        assert cur.fetchone()[0] == ROWS
        conn.close()
    print(f"\n{ROWS} statements each, autocommit, one connection; microseconds per statement"
          " (server CPU microseconds per statement)\n")
    print("| statement | Cairn | MariaDB | Cairn ÷ MariaDB |")
    print("|---|---:|---:|---:|")
    for label, _, _ in phases(random.Random(SEED)):
        c, m = results[("Cairn", label)], results[("MariaDB", label)]
        print(f"| {label} | {c[0]:.1f} ({c[1]:.1f}) | {m[0]:.1f} ({m[1]:.1f}) | {c[0] / m[0]:.2f} |")
    labels = [label for label, _, _ in phases(random.Random(SEED))]
    for name, _, _ in servers:
        ins = results[(name, labels[1])][0] / results[(name, labels[0])][0]
        dele = results[(name, labels[3])][0] / results[(name, labels[2])][0]
        print(f"\n{name}: a checked INSERT costs {ins:.2f}x an unchecked one,"
              f" a checked DELETE {dele:.2f}x", end="")
    print()


if __name__ == "__main__":
    main()
