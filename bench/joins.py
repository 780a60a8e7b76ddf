"""Join and aggregation shapes timed on Cairn and MariaDB in one run (bench/joins.sh).

Loads the same three tables into both servers (region, customer with KEY(region), orders with
KEY(cust) and KEY(day); rows made from a fixed seed), then runs each query REPEAT times on each
server over one connection, the runs interleaved (one on each server in turn, so both meet the
machine's moments alike), checks both answer the same rows (as sorted lists), and prints a
markdown table: median milliseconds per run, Cairn / MariaDB, rows, and Cairn again with its
pushdowns off (cairn_join_pushdown = OFF and cairn_aggregate_pushdown = OFF) for comparison.
Usage: joins.py CAIRN_PORT MARIADB_PORT (environment: CUSTOMERS, ORDERS, REPEAT, SEED).
"""

import os
import random
import statistics
import sys
import time

import pymysql

CUSTOMERS = int(os.environ.get("CUSTOMERS", "20000"))
ORDERS = int(os.environ.get("ORDERS", "300000"))
REPEAT = int(os.environ.get("REPEAT", "5"))
SEED = int(os.environ.get("SEED", "44"))

SCHEMA = [
    "CREATE TABLE region (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL)",
    "CREATE TABLE customer (id INT PRIMARY KEY, region INT NOT NULL, score INT NOT NULL,"
    " KEY (region))",
    "CREATE TABLE orders (id INT PRIMARY KEY, cust INT NOT NULL, day INT NOT NULL,"
    " amount INT NOT NULL, KEY (cust), KEY (day))",
]

QUERIES = [
    ("orders by PK range, joined to customer and region by PK",
     "SELECT o.id, c.score, r.name FROM orders o JOIN customer c ON c.id = o.cust"
     " JOIN region r ON r.id = c.region WHERE o.id BETWEEN 1000 AND 1099"),
    ("parent to children through KEY(cust)",
     "SELECT o.id, o.amount FROM customer c JOIN orders o ON o.cust = c.id WHERE c.id = 4242"),
    ("the same written children first",
     "SELECT o.id, o.amount FROM orders o JOIN customer c ON o.cust = c.id WHERE c.id = 4242"),
    ("children to parent by PK (100 orders)",
     "SELECT o.id, c.score FROM orders o JOIN customer c ON c.id = o.cust"
     " WHERE o.id BETWEEN 5000 AND 5099"),
    ("parents of a region to their children (chain through two KEYs)",
     "SELECT c.id, o.id FROM region r JOIN customer c ON c.region = r.id"
     " JOIN orders o ON o.cust = c.id WHERE r.id = 3 AND c.id < 600"),
    ("LEFT JOIN parents to children (100 parents)",
     "SELECT c.id, o.id FROM customer c LEFT JOIN orders o ON o.cust = c.id"
     " WHERE c.id BETWEEN 100 AND 199"),
    ("children per parent, grouped (100 parents)",
     "SELECT c.id, COUNT(o.id), SUM(o.amount) FROM customer c JOIN orders o ON o.cust = c.id"
     " WHERE c.id BETWEEN 100 AND 199 GROUP BY c.id"),
    ("COUNT, SUM, AVG over orders",
     "SELECT COUNT(*), SUM(amount), AVG(day) FROM orders"),
    ("GROUP BY day",
     "SELECT day, COUNT(*), SUM(amount) FROM orders GROUP BY day"),
    ("GROUP BY cust (20,000 groups), MIN and MAX",
     "SELECT cust, COUNT(*), MIN(amount), MAX(amount) FROM orders GROUP BY cust"),
    ("COUNT over an index range",
     "SELECT COUNT(*), SUM(amount) FROM orders WHERE day BETWEEN 100 AND 130"),
    ("star: orders of a day with their customer and region",
     "SELECT o.id, c.score, r.name FROM orders o JOIN customer c ON c.id = o.cust"
     " JOIN region r ON r.id = c.region WHERE o.day = 17"),
    ("EXISTS: customers of a region with an order on a day",
     "SELECT c.id FROM customer c WHERE c.region = 3 AND EXISTS"
     " (SELECT * FROM orders o WHERE o.cust = c.id AND o.day = 17)"),
    ("NOT EXISTS: customers (1000) without an order",
     "SELECT c.id FROM customer c WHERE c.id < 1000 AND NOT EXISTS"
     " (SELECT * FROM orders o WHERE o.cust = c.id)"),
    ("IN subquery: customers ordering on a day",
     "SELECT c.id, c.score FROM customer c WHERE c.id IN"
     " (SELECT o.cust FROM orders o WHERE o.day = 17)"),
]


def connect(port):
    return pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)


def load(conn, rng_seed):
    rng = random.Random(rng_seed)
    cur = conn.cursor()
    cur.execute("DROP DATABASE IF EXISTS joins")
    cur.execute("CREATE DATABASE joins")
    cur.execute("USE joins")
    for s in SCHEMA:
        cur.execute(s)
    cur.execute("INSERT INTO region VALUES " +
                ",".join(f"({i},'region{i}')" for i in range(10)))

    def batches(rows, table):
        for start in range(0, len(rows), 1000):
            part = rows[start:start + 1000]
            cur.execute(f"INSERT INTO {table} VALUES " +
                        ",".join("(" + ",".join(str(v) for v in r) + ")" for r in part))

    batches([(i, i % 10, rng.randrange(1000)) for i in range(1, CUSTOMERS + 1)], "customer")
    batches([(i, rng.randrange(1, CUSTOMERS + 1), rng.randrange(1, 366), rng.randrange(10000))
             for i in range(1, ORDERS + 1)], "orders")


def first_rows(conn, sql):
    """The query's rows, sorted (its first run, untimed: plans are made and cached)."""
    cur = conn.cursor()
    cur.execute(sql)
    return sorted(map(repr, cur.fetchall()))


def once(conn, sql):
    """Milliseconds of one run of the query, its rows fetched."""
    cur = conn.cursor()
    start = time.perf_counter()
    cur.execute(sql)
    cur.fetchall()
    return (time.perf_counter() - start) * 1000


def timed(conns, sql):
    """Each connection's median milliseconds over REPEAT runs, the runs interleaved (one run on
    each in turn), so every server meets the machine's moments alike; and each one's rows."""
    rows = [first_rows(c, sql) for c in conns]
    runs = [[] for _ in conns]
    for _ in range(REPEAT):
        for i, c in enumerate(conns):
            runs[i].append(once(c, sql))
    return [statistics.median(r) for r in runs], rows


def main():
    cairn_port, mariadb_port = int(sys.argv[1]), int(sys.argv[2])
    servers = {"Cairn": connect(cairn_port), "MariaDB": connect(mariadb_port)}
    for name, conn in servers.items():
        start = time.perf_counter()
        load(conn, SEED)
        # Both measure their statistics (Cairn's join order uses them).
        cur = conn.cursor()
        cur.execute("ANALYZE TABLE region, customer, orders")
        cur.fetchall()
        print(f"# loaded {name} in {time.perf_counter() - start:.1f} s", flush=True)
    print(f"\nCUSTOMERS={CUSTOMERS} ORDERS={ORDERS} REPEAT={REPEAT} SEED={SEED}\n")
    # The same statements with Cairn's pushed joins and aggregation off, on a second connection.
    unpushed = connect(cairn_port)
    unpushed.cursor().execute("USE joins")
    unpushed.cursor().execute("SET cairn_aggregate_pushdown = OFF")
    unpushed.cursor().execute("SET cairn_join_pushdown = OFF")
    print("| query | rows | Cairn ms (median) | MariaDB ms (median) | Cairn / MariaDB |"
          " Cairn, pushdown off |")
    print("|---|---:|---:|---:|---:|---:|")
    failed = 0
    for title, sql in QUERIES:
        (c_ms, m_ms, u_ms), (c_rows, m_rows, u_rows) = timed(
            [servers["Cairn"], servers["MariaDB"], unpushed], sql)
        same = c_rows == m_rows and u_rows == m_rows
        failed += not same
        mark = "" if same else " **DIFFERENT ROWS**"
        print(f"| {title}{mark} | {len(m_rows)} | {c_ms:.2f} | {m_ms:.2f} | {c_ms / m_ms:.2f} |"
              f" {u_ms:.2f} |", flush=True)
    if failed:
        print(f"\n{failed} queries answered differently", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
