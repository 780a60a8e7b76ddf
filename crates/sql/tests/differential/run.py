#!/usr/bin/env python3
"""Runs the statements of a cases file on MariaDB and on Cairn through PyMySQL and reports every
statement whose outcome differs.

Outcomes compared, statement by statement:
- both return rows: the column names and the rows (values as str(), NULL as None), sorted unless
  the statement has an ORDER BY or a GROUP BY (MariaDB sorts by its keys) outside parentheses;
- both succeed without rows: the affected-row counts;
- both fail: the MySQL error numbers;
- one fails and the other succeeds: always a difference.

The cases file: statements end with ';' at the end of a line; lines starting with '--' are
comments. A comment '-- expect-difference: reason' directly before a statement marks a known,
documented difference: counted apart, not a failure. Comments '-- mask: REGEX' and
'-- ignore-column: NAME' directly before a statement narrow a documented difference to the part
that differs, so the rest is still compared: every match of REGEX in a value is replaced by
'<masked>', and the named column's values by '<ignored>', in both answers. A comment
'-- as: USER [PASSWORD]' directly before a statement runs it over a connection of its own,
logged in as USER@localhost with PASSWORD (none if left out) and no database, closed after it: a
failed login counts as the statement's error (1045), so accounts and privileges are compared
too, deterministically (each such statement gets a fresh session). A comment '-- in-order'
directly before a statement compares its rows in the order answered though it has no ORDER BY
(a small table's full scan answers in primary-key order, as InnoDB's does).

Exit status: 0 when every difference was expected, 1 otherwise, 2 on a usage or connection error.
"""

import argparse
import re
import sys

import pymysql
import pymysql.converters
from pymysql.constants import FIELD_TYPE

DATABASE = "diff"
EXPECT = re.compile(r"^--\s*expect-difference:\s*(.*)$", re.IGNORECASE)
MASK = re.compile(r"^--\s*mask:\s*(.+)$", re.IGNORECASE)
IGNORE_COLUMN = re.compile(r"^--\s*ignore-column:\s*(\S+)\s*$", re.IGNORECASE)
IN_ORDER = re.compile(r"^--\s*in-order\s*$", re.IGNORECASE)
AS_USER = re.compile(r"^--\s*as:\s*(\S+)(?:\s+(\S+))?\s*$", re.IGNORECASE)
# Errors after which the connection is gone: reconnect before the next statement.
CONNECTION_LOST = {2006, 2013, 2014, 2055}
SHOWN_ROWS_MAX = 25


def address(text):
    host, _, port = text.rpartition(":")
    return host or "127.0.0.1", int(port)


def tolerant(name, convert):
    """PyMySQL's own converter for a column type, but a value it cannot decode (text that does
    not fit the type the server announced) becomes a marker string, not an exception that would
    leave the rest of the result unread and the connection unusable."""

    def decode(text):
        try:
            return convert(text)
        except Exception:
            return "<%s column, undecodable %r>" % (name, text)

    return decode


TYPE_NAMES = {v: k for k, v in vars(FIELD_TYPE).items() if isinstance(v, int)}
# PyMySQL's conversions (encoders keyed by Python type, decoders by column type), the decoders
# made tolerant.
CONVERSIONS = {
    k: (
        tolerant(TYPE_NAMES.get(k, str(k)), f)
        if isinstance(k, int) and f is not pymysql.converters.through
        else f
    )
    for k, f in pymysql.converters.conversions.items()
}


def connect(addr, db=None, user="root", password=""):
    host, port = addr
    return pymysql.connect(
        host=host,
        port=port,
        user=user,
        password=password,
        database=db,
        autocommit=True,
        charset="utf8mb4",
        conv=CONVERSIONS,
        connect_timeout=10,
        read_timeout=60,
        write_timeout=60,
    )


class Narrowing:
    """What of a statement's answers is left out of the comparison (see the cases file format)."""

    def __init__(self):
        self.masks = []
        self.columns = []
        # (user, password) to run the statement as, or None for the shared root connection.
        self.login = None
        # Rows compared in the order answered, with no ORDER BY.
        self.in_order = False

    def __bool__(self):
        """Whether any part of the answers is left out (a login is no narrowing)."""
        return bool(self.masks or self.columns)

    def apply(self, outcome):
        if outcome[0] != "rows" or not self:
            return outcome
        names, rows = outcome[1], outcome[2]
        ignored = {i for i, n in enumerate(names) if n in self.columns}

        def value(i, v):
            if i in ignored:
                return "<ignored>"
            if v is None:
                return v
            for m in self.masks:
                v = m.sub("<masked>", v)
            return v

        return ("rows", names, [tuple(value(i, v) for i, v in enumerate(r)) for r in rows])


def parse_cases(path):
    """Yields (line number, statement text without the ';', expected-difference reason or None,
    Narrowing)."""
    pending = []
    start = None
    reason = None
    narrowing = Narrowing()
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            stripped = line.strip()
            if not pending:
                if not stripped:
                    reason = None
                    narrowing = Narrowing()
                    continue
                if stripped.startswith("--"):
                    m = EXPECT.match(stripped)
                    if m:
                        reason = m.group(1).strip() or "(no reason given)"
                    m = MASK.match(stripped)
                    if m:
                        narrowing.masks.append(re.compile(m.group(1).strip()))
                    m = IGNORE_COLUMN.match(stripped)
                    if m:
                        narrowing.columns.append(m.group(1))
                    m = AS_USER.match(stripped)
                    if m:
                        narrowing.login = (m.group(1), m.group(2) or "")
                    if IN_ORDER.match(stripped):
                        narrowing.in_order = True
                    continue
                start = number
            elif stripped.startswith("--"):
                continue
            pending.append(line.rstrip("\n"))
            if stripped.endswith(";"):
                text = "\n".join(pending).strip()
                yield start, text[:-1].rstrip(), reason, narrowing
                pending = []
                reason = None
                narrowing = Narrowing()
    if pending:
        yield start, "\n".join(pending).strip(), reason, narrowing


def has_order_by(statement):
    """Whether the statement's rows come in a defined order: it has ORDER BY or GROUP BY at
    parenthesis depth 0 (not inside GROUP_CONCAT or a subquery)."""
    depth = 0
    top = []
    quote = None
    for ch in statement:
        if quote:
            if ch == quote:
                quote = None
            if depth == 0:
                top.append(" ")
            continue
        if ch in "'\"`":
            quote = ch
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0:
            top.append(ch)
    return re.search(r"\b(order|group)\s+by\b", "".join(top), re.IGNORECASE) is not None


def sort_key(row):
    return tuple((0, "") if v is None else (1, v) for v in row)


class Server:
    def __init__(self, name, addr):
        self.name = name
        self.addr = addr
        self.conn = None

    def reconnect(self, db):
        try:
            if self.conn is not None:
                self.conn.close()
        except Exception:
            pass
        self.conn = connect(self.addr, db)

    def run_as(self, login, statement, ordered):
        """Runs the statement over a connection of its own, logged in as login = (user,
        password)."""
        try:
            conn = connect(self.addr, None, login[0], login[1])
        except pymysql.err.MySQLError as e:
            return ("error", e.args[0] if e.args else None, "login: %s" % (e,))
        own = Server(self.name, self.addr)
        own.conn = conn
        try:
            return own.run(statement, ordered)
        finally:
            try:
                conn.close()
            except Exception:
                pass

    def run(self, statement, ordered):
        """('rows', names, rows) | ('ok', rowcount) | ('error', errno, message)."""
        if self.conn is None:
            try:
                self.reconnect(DATABASE)
            except pymysql.err.MySQLError as e:
                return ("error", e.args[0] if e.args else None, "reconnect: %s" % (e,))
        try:
            with self.conn.cursor() as cur:
                cur.execute(statement)
                if cur.description is None:
                    return ("ok", cur.rowcount)
                names = tuple(d[0] for d in cur.description)
                rows = [tuple(None if v is None else str(v) for v in row) for row in cur.fetchall()]
                if not ordered:
                    rows.sort(key=sort_key)
                return ("rows", names, rows)
        except pymysql.err.MySQLError as e:
            errno = e.args[0] if e.args else None
            message = e.args[1] if len(e.args) > 1 else str(e)
            if errno in CONNECTION_LOST or not isinstance(errno, int):
                self.conn = None
            return ("error", errno, message)
        except Exception as e:  # a protocol the client could not decode
            self.conn = None
            return ("error", None, "%s: %s" % (type(e).__name__, e))


def same(a, b):
    if a[0] != b[0]:
        return False
    if a[0] == "rows":
        return a[1] == b[1] and a[2] == b[2]
    return a[1] == b[1]


def describe(outcome):
    kind = outcome[0]
    if kind == "ok":
        return "OK, %s row(s) affected" % outcome[1]
    if kind == "error":
        return "ERROR %s: %s" % (outcome[1], outcome[2])
    names, rows = outcome[1], outcome[2]
    lines = ["%d row(s), columns %s" % (len(rows), list(names))]
    for row in rows[:SHOWN_ROWS_MAX]:
        lines.append("    %s" % (row,))
    if len(rows) > SHOWN_ROWS_MAX:
        lines.append("    ... %d more" % (len(rows) - SHOWN_ROWS_MAX))
    return "\n".join(lines)


def indent(text, prefix):
    return "\n".join(prefix + line for line in text.splitlines())


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cairn", required=True, help="host:port of Cairn's SQL server")
    p.add_argument("--mariadb", required=True, help="host:port of MariaDB")
    p.add_argument("--cases", required=True, help="the cases file")
    args = p.parse_args()

    servers = [Server("MariaDB", address(args.mariadb)), Server("Cairn", address(args.cairn))]
    for s in servers:
        try:
            s.reconnect(None)
            with s.conn.cursor() as cur:
                cur.execute("DROP DATABASE IF EXISTS %s" % DATABASE)
                cur.execute("CREATE DATABASE %s" % DATABASE)
            s.conn.select_db(DATABASE)
        except pymysql.err.MySQLError as e:
            print("%s: cannot set up database %s: %s" % (s.name, DATABASE, e))
            return 2

    total = differences = expected = narrowed = 0
    unexpected_agreement = []
    for line, statement, reason, narrowing in parse_cases(args.cases):
        total += 1
        narrowed += bool(narrowing)
        ordered = narrowing.in_order or has_order_by(statement)
        if narrowing.login is not None:
            answers = (s.run_as(narrowing.login, statement, ordered) for s in servers)
        else:
            answers = (s.run(statement, ordered) for s in servers)
        mariadb, cairn = (narrowing.apply(a) for a in answers)
        if same(mariadb, cairn):
            if reason is not None:
                unexpected_agreement.append((line, statement, reason))
            continue
        if reason is not None:
            expected += 1
            print("EXPECTED DIFFERENCE (%s) at line %d: %s" % (reason, line, statement))
            continue
        differences += 1
        print("DIFFERENCE at line %d:" % line)
        print(indent(statement, "  | "))
        print("  MariaDB: " + indent(describe(mariadb), "  ").lstrip())
        print("  Cairn:   " + indent(describe(cairn), "  ").lstrip())
        print()

    for line, statement, reason in unexpected_agreement:
        print("NOTE: expected difference (%s) did not occur at line %d: %s" % (reason, line, statement))
    print("%d statements, %d differences" % (total, differences)
          + (", %d expected differences" % expected if expected else "")
          + (", %d compared in part (mask, ignore-column)" % narrowed if narrowed else ""))
    for s in servers:
        try:
            if s.conn is not None:
                s.conn.close()
        except Exception:
            pass
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
