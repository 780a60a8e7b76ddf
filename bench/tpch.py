"""TPC-H's 22 queries on Cairn and MariaDB in one run (bench/tpch.sh).

Loads the same generated .tbl files (tpchgen-cli) into both servers with multi-row INSERTs
(bench/tpch/schema.sql, the same DDL on both), runs ANALYZE TABLE on both, then for each query
of bench/tpch/queries: one untimed run on each server (the warm-up and the correctness check:
Cairn's rows must equal MariaDB's, in order), then REPEAT timed runs on each. A run past
TIMEOUT seconds is stopped by a watchdog (KILL QUERY from a second connection, then KILL
CONNECTION, then the socket is shut) and reported as a timeout. Prints a markdown table and the
geometric means; exits 1 when any query answered differently, failed or timed out on either.

Usage: tpch.py CAIRN_PORT MARIADB_PORT DATA_DIR [CAIRN_PID MARIADB_PID]
Environment: SF (0.1), REPEAT (3), TIMEOUT (300), QUERIES ("1 3 17"; all 22 by default),
GIT_COMMIT (shown in the closing line).
"""

import datetime
import decimal
import math
import os
import re
import socket
import sys
import threading
import time

import pymysql

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, "tpch", "schema.sql")
QUERY_DIR = os.path.join(HERE, "tpch", "queries")
TABLES = ["region", "nation", "part", "supplier", "partsupp", "customer", "orders", "lineitem"]
DB = "tpch"

SF = os.environ.get("SF", "0.1")
REPEAT = int(os.environ.get("REPEAT", "3"))
TIMEOUT = float(os.environ.get("TIMEOUT", "300"))
QUERIES = [int(q) for q in os.environ.get("QUERIES", "").split()] or list(range(1, 23))
# Statements each Cairn connection runs first (e.g. "SET cairn_join_pushdown = OFF", to compare).
CAIRN_SESSION = [s for s in os.environ.get("CAIRN_SESSION", "").split(";") if s.strip()]
# One INSERT statement holds at most this many bytes: well under MariaDB's max_allowed_packet
# (16 MiB by default) and Cairn's (64 MiB).
BATCH_BYTES = 1 << 20
# After KILL QUERY, how long the statement may take to stop before KILL CONNECTION, and after
# that before the client shuts its socket.
KILL_GRACE = 15.0

# Numbers compare equal within a relative 1e-9; columns whose name says money (prices,
# revenues, balances, costs, profits, sums of them) also within an absolute 0.005.
REL_TOL = 1e-9
MONEY_ABS_TOL = 0.005
MONEY_COLUMN = re.compile(r"price|revenue|acctbal|charge|profit|cost|value|avg_yearly|"
                          r"sum_base|sum_disc|totacctbal", re.I)


def log(*args):
    print(*args, flush=True)


def connect(port, **kw):
    return pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True,
                           database=kw.pop("database", DB), **kw)


def schema_statements():
    text = "\n".join(line for line in open(SCHEMA).read().splitlines()
                     if not line.lstrip().startswith("--"))
    return [s.strip() for s in text.split(";") if s.strip()]


def column_kinds():
    """{table: [True for a column written unquoted (a number), False for a quoted one]}."""
    kinds = {}
    for stmt in schema_statements():
        m = re.match(r"CREATE TABLE (\w+)", stmt, re.I)
        cols = []
        for line in stmt.splitlines()[1:]:
            c = re.match(r"\s*(\w+)\s+(\w+)", line)
            if not c or c.group(1).upper() in ("PRIMARY", "KEY", "UNIQUE", "INDEX"):
                continue
            cols.append(c.group(2).upper() in ("INT", "BIGINT", "DECIMAL"))
        kinds[m.group(1)] = cols
    return kinds


def quote(s):
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def insert_statements(path, table, numeric):
    """The table's rows as multi-row INSERTs of at most BATCH_BYTES each."""
    head = f"INSERT INTO {table} VALUES "
    stmts, parts, size = [], [], len(head)
    with open(path) as f:
        for line in f:
            fields = line.rstrip("\n").split("|")
            if fields and fields[-1] == "":
                fields.pop()
            if len(fields) != len(numeric):
                raise SystemExit(f"{path}: {len(fields)} fields where {table} has "
                                 f"{len(numeric)} columns: {line!r}")
            row = "(" + ",".join(v if n else quote(v) for v, n in zip(fields, numeric)) + ")"
            if parts and size + len(row) + 1 > BATCH_BYTES:
                stmts.append(head + ",".join(parts))
                parts, size = [], len(head)
            parts.append(row)
            size += len(row) + 1
    if parts:
        stmts.append(head + ",".join(parts))
    return stmts


def load(servers, data_dir):
    """Creates the schema on every server and loads the tables; {server: {table: seconds}}."""
    for conn in servers.values():
        cur = conn.cursor()
        cur.execute(f"DROP DATABASE IF EXISTS {DB}")
        cur.execute(f"CREATE DATABASE {DB}")
        cur.execute(f"USE {DB}")
        for stmt in schema_statements():
            cur.execute(stmt)
    kinds = column_kinds()
    times = {name: {} for name in servers}
    rows = {}
    for table in TABLES:
        path = os.path.join(data_dir, f"{table}.tbl")
        stmts = insert_statements(path, table, kinds[table])
        with open(path) as f:
            rows[table] = sum(1 for _ in f)
        for name, conn in servers.items():
            cur = conn.cursor()
            start = time.perf_counter()
            for s in stmts:
                cur.execute(s)
            times[name][table] = time.perf_counter() - start
        log(f"# loaded {table}: {rows[table]} rows in {len(stmts)} INSERTs: " +
            ", ".join(f"{name} {times[name][table]:.2f} s" for name in servers))
        del stmts
    return times, rows


def analyze(servers):
    for name, conn in servers.items():
        cur = conn.cursor()
        start = time.perf_counter()
        try:
            cur.execute("ANALYZE TABLE " + ", ".join(TABLES))
            msgs = sorted({f"{r[2]}: {r[3]}" for r in cur.fetchall()})
            log(f"# ANALYZE TABLE on {name} ({time.perf_counter() - start:.1f} s): "
                + "; ".join(msgs))
        except pymysql.Error as e:
            log(f"# ANALYZE TABLE on {name} answered an error: {e}")


def read_query(n):
    text = open(os.path.join(QUERY_DIR, f"q{n:02d}.sql")).read()
    return "\n".join(line for line in text.splitlines()
                     if not line.lstrip().startswith("--")).strip().rstrip(";")


class Server:
    def __init__(self, name, port, pid):
        self.name, self.port, self.pid = name, port, pid
        self.conn = self.connect()

    def connect(self):
        conn = connect(self.port)
        if self.name == "Cairn":
            for statement in CAIRN_SESSION:
                conn.cursor().execute(statement)
        return conn

    def reconnect(self):
        try:
            self.conn.close()
        except Exception:
            pass
        self.conn = self.connect()

    def cpu_ticks(self):
        if not self.pid:
            return 0
        try:
            stat = open(f"/proc/{self.pid}/stat").read()
        except OSError:
            return 0
        fields = stat.rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])

    def run(self, sql):
        """('ok', ms, description, rows) | ('timeout', ms, note, None) | ('error', ms, msg, None)."""
        conn = self.conn
        tid = conn.thread_id()
        done = threading.Event()
        killed = []

        def kill(how):
            try:
                admin = connect(self.port, connect_timeout=10, read_timeout=10,
                                write_timeout=10)
                try:
                    admin.cursor().execute(f"KILL {how} {tid}")
                finally:
                    admin.close()
            except Exception as e:  # the note says what failed; the next step follows anyway
                killed.append(f"KILL {how} failed: {e}")

        def watchdog():
            if done.wait(TIMEOUT):
                return
            killed.append("KILL QUERY")
            kill("QUERY")
            if done.wait(KILL_GRACE):
                return
            killed.append("KILL CONNECTION")
            kill("CONNECTION")
            if done.wait(KILL_GRACE):
                return
            killed.append("socket shut")
            try:
                conn._sock.shutdown(socket.SHUT_RDWR)
            except Exception:
                pass

        dog = threading.Thread(target=watchdog, daemon=True)
        dog.start()
        start = time.perf_counter()
        try:
            cur = conn.cursor()
            cur.execute(sql)
            rows = cur.fetchall()
            desc = cur.description
            outcome = ("ok", None)
        except pymysql.Error as e:
            outcome = ("error", f"{e.args[0]} {e.args[1]}" if len(e.args) > 1 else str(e))
        finally:
            ms = (time.perf_counter() - start) * 1000
            done.set()
            dog.join()
        if killed:
            # A KILL may arrive after the statement ended: a fresh connection is safe either way.
            self.reconnect()
            note = ", ".join(killed)
            return "timeout", ms, f"stopped after {ms / 1000:.1f} s ({note})", None
        if outcome[0] == "error":
            if not conn.open:
                self.reconnect()
            return "error", ms, outcome[1], None
        return "ok", ms, desc, rows


# --- comparing answers -----------------------------------------------------------------------

def norm(v):
    if isinstance(v, (bytes, bytearray)):
        v = v.decode("utf-8", "replace")
    if isinstance(v, str):
        return v.rstrip(" ")
    if isinstance(v, (datetime.date, datetime.datetime)):
        return v.isoformat()
    if isinstance(v, datetime.timedelta):
        return str(v)
    return v


def is_number(v):
    return isinstance(v, (int, float, decimal.Decimal)) and not isinstance(v, bool)


def same_value(a, b, money):
    if is_number(a) and is_number(b):
        if a == b:
            return True
        fa, fb = float(a), float(b)
        diff = abs(fa - fb)
        return diff <= REL_TOL * max(abs(fa), abs(fb)) or (money and diff <= MONEY_ABS_TOL)
    return a == b


def same_row(a, b, money):
    return len(a) == len(b) and all(same_value(x, y, m) for x, y, m in zip(a, b, money))


def sort_key(row):
    return tuple((0, float(v), "") if is_number(v) else (1, 0.0, "" if v is None else str(v))
                 for v in row)


def compare(m_rows, c_rows, money):
    """('yes'|'order'|'rows differ', detail)."""
    m = [tuple(norm(v) for v in r) for r in m_rows]
    c = [tuple(norm(v) for v in r) for r in c_rows]
    if len(m) == len(c) and all(same_row(x, y, money) for x, y in zip(m, c)):
        return "yes", ""
    ms, cs = sorted(m, key=sort_key), sorted(c, key=sort_key)
    if len(m) == len(c) and all(same_row(x, y, money) for x, y in zip(ms, cs)):
        i = next(i for i, (x, y) in enumerate(zip(m, c)) if not same_row(x, y, money))
        return "order", f"same rows in another order; first at row {i}: MariaDB {m[i]!r}, Cairn {c[i]!r}"
    for i in range(max(len(m), len(c))):
        x = m[i] if i < len(m) else None
        y = c[i] if i < len(c) else None
        if x is None or y is None or not same_row(x, y, money):
            return "rows differ", (f"{len(m)} rows on MariaDB, {len(c)} on Cairn; first difference "
                                   f"at row {i}: MariaDB {x!r}, Cairn {y!r}")
    return "rows differ", "?"


# --- the run ---------------------------------------------------------------------------------

def geomean(xs):
    return math.exp(sum(math.log(max(x, 1e-3)) for x in xs) / len(xs)) if xs else float("nan")


def main():
    cairn_port, mariadb_port, data_dir = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    cairn_pid = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    mariadb_pid = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    # MariaDB first: its answer is the reference.
    servers = {"MariaDB": connect(mariadb_port, database=None),
               "Cairn": connect(cairn_port, database=None)}
    for name, conn in servers.items():
        cur = conn.cursor()
        cur.execute("SELECT VERSION()")
        log(f"# {name}: version {cur.fetchone()[0]}")
    load_start = time.perf_counter()
    times, rows = load(servers, data_dir)
    log(f"# load took {time.perf_counter() - load_start:.1f} s in all")
    analyze(servers)
    log("\n## Load (seconds)\n")
    log("| table | rows | MariaDB s | Cairn s |")
    log("|---|---:|---:|---:|")
    for t in TABLES:
        log(f"| {t} | {rows[t]} | {times['MariaDB'][t]:.2f} | {times['Cairn'][t]:.2f} |")
    log(f"| total | {sum(rows.values())} | {sum(times['MariaDB'].values()):.2f} |"
        f" {sum(times['Cairn'].values()):.2f} |")
    for conn in servers.values():
        conn.close()

    maria = Server("MariaDB", mariadb_port, mariadb_pid)
    cairn = Server("Cairn", cairn_port, cairn_pid)
    cpu = {"MariaDB": 0, "Cairn": 0}
    results = []
    problems = []
    log(f"\n## Queries (SF {SF}, REPEAT {REPEAT}, TIMEOUT {TIMEOUT:g} s)\n")
    log("| query | MariaDB ms | Cairn ms | Cairn/MariaDB | same rows |")
    log("|---|---:|---:|---:|---|")
    for n in QUERIES:
        sql = read_query(n)
        first = {}
        for srv in (maria, cairn):
            first[srv.name] = srv.run(sql)
        mean = {}
        for srv in (maria, cairn):
            status, ms, detail, _ = first[srv.name]
            if status != "ok":
                mean[srv.name] = (status, detail)
                continue
            before = srv.cpu_ticks()
            total, bad = 0.0, None
            for _ in range(REPEAT):
                status, ms, detail, _ = srv.run(sql)
                if status != "ok":
                    bad = (status, detail)
                    break
                total += ms
            cpu[srv.name] += srv.cpu_ticks() - before
            mean[srv.name] = bad or ("ok", total / REPEAT if REPEAT else first[srv.name][1])
        m_status, c_status = first["MariaDB"][0], first["Cairn"][0]
        if m_status == "ok" and c_status == "ok":
            money = [bool(MONEY_COLUMN.search(d[0])) for d in first["MariaDB"][2]]
            same, detail = compare(first["MariaDB"][3], first["Cairn"][3], money)
            same_cell = f"{same} ({len(first['MariaDB'][3])} rows)"
            if same != "yes":
                problems.append(f"Q{n}: {same}: {detail}")
        else:
            same_cell = "-"
        for name in ("MariaDB", "Cairn"):
            st, d = mean[name]
            if st != "ok":
                problems.append(f"Q{n} on {name}: {st}: {d}")

        def cell(name):
            st, v = mean[name]
            return f"{v:.1f}" if st == "ok" else st

        both = mean["MariaDB"][0] == "ok" and mean["Cairn"][0] == "ok"
        ratio = f"{mean['Cairn'][1] / max(mean['MariaDB'][1], 1e-3):.2f}" if both else "-"
        results.append((n, mean, both))
        log(f"| Q{n} | {cell('MariaDB')} | {cell('Cairn')} | {ratio} | {same_cell} |")

    finished = [(mean["MariaDB"][1], mean["Cairn"][1]) for _, mean, both in results if both]
    gm_m = geomean([m for m, _ in finished])
    gm_c = geomean([c for _, c in finished])
    slow = [f"Q{n}" for n, mean, both in results
            if both and mean["Cairn"][1] > 3 * mean["MariaDB"][1]]
    log(f"| geometric mean ({len(finished)} queries finished on both) | {gm_m:.1f} | {gm_c:.1f} |"
        f" {gm_c / gm_m:.2f} | |")
    log(f"\nqueries more than 3x slower on Cairn: {len(slow)}" + (f" ({' '.join(slow)})" if slow else ""))
    tck = os.sysconf("SC_CLK_TCK")
    if cairn_pid and mariadb_pid:
        log(f"server CPU seconds during the timed runs: MariaDB {cpu['MariaDB'] / tck:.1f},"
            f" Cairn {cpu['Cairn'] / tck:.1f}")
    log(f"run: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%dT%H:%M:%SZ},"
        f" {os.cpu_count()} cores, commit {os.environ.get('GIT_COMMIT', '?')}, SF {SF},"
        f" REPEAT {REPEAT}, TIMEOUT {TIMEOUT:g} s")
    if problems:
        log("\n## Problems\n")
        for p in problems:
            log(f"- {p}")
        sys.exit(1)
    log("\nall queries answered the same on both servers")


if __name__ == "__main__":
    main()
