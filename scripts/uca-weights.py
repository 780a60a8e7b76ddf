#!/usr/bin/env python3
"""Measures a UCA collation's primary weights on a running MariaDB and writes them in the form
crates/base/src/uca.rs reads (crates/base/data/*.bin).

Usage: scripts/uca-weights.py COLLATION OUT.bin [--port 3411]
  e.g. scripts/uca-weights.py utf8mb4_unicode_ci crates/base/data/utf8mb4_unicode_ci.bin

Start a reference server first (../shared/tools/mariadb-ref start DIR with REF_MYSQL_PORT=3411).
For every code point but the surrogates it asks the server for WEIGHT_STRING(character COLLATE
collation), the character's primary weights (none for an ignorable character, several for an
expansion such as ß). When every character above U+FFFF weighs one and the same weight (UCA
4.0.0 collations), only that weight is kept for them.

Most code points weigh by UCA's implicit rule, two weights derived from the code point:
  (base + (cp >> 15), (cp & 0x7FFF) | 0x8000)
with base 0xFB40 (CJK unified ideographs), 0xFB80 (other CJK ideographs) or 0xFBC0 (unassigned
code points). The file keeps those as ranges and lists every other code point's weights.

Format, little-endian:
  b"CAIRNUCA", u32 version (2)
  u16 weight of every character above U+FFFF, or 0: they weigh by the ranges and entries too
  u32 range count, then per range: u32 first, u32 last, u16 base
  u32 entry count, then per entry: u32 code point, u8 weight count, that many u16 weights
Code points in no range and no entry weigh by the implicit rule with base 0xFBC0 (checked here).
"""

import argparse
import struct
import sys

import pymysql

BATCH = 1000
DEFAULT_BASE = 0xFBC0


def implicit(cp, base):
    return [base + (cp >> 15), (cp & 0x7FFF) | 0x8000]


def measure(conn, collation, cps):
    cur = conn.cursor()
    out = {}
    for at in range(0, len(cps), BATCH):
        chunk = cps[at:at + BATCH]
        items = ",".join(
            "HEX(WEIGHT_STRING(CONVERT(CHAR(%d USING utf32) USING utf8mb4) COLLATE %s))"
            % (cp, collation)
            for cp in chunk
        )
        cur.execute("SELECT " + items)
        for cp, hexed in zip(chunk, cur.fetchone()):
            raw = bytes.fromhex(hexed or "")
            out[cp] = [int.from_bytes(raw[i:i + 2], "big") for i in range(0, len(raw), 2)]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("collation")
    ap.add_argument("out")
    ap.add_argument("--port", type=int, default=3411)
    args = ap.parse_args()
    conn = pymysql.connect(host="127.0.0.1", port=args.port, user="root", charset="utf8mb4")
    bmp = [cp for cp in range(0x10000) if not 0xD800 <= cp <= 0xDFFF]
    weights = measure(conn, args.collation, bmp)
    above = measure(conn, args.collation, [0x1F600, 0x10000, 0x2A700])
    distinct = {tuple(w) for w in above.values()}
    sup_weight = 0
    cps = bmp
    if len(distinct) == 1 and len(next(iter(distinct))) == 1:
        (sup_weight,) = next(iter(distinct))
    else:
        cps = bmp + list(range(0x10000, 0x110000))
        weights.update(measure(conn, args.collation, cps[len(bmp):]))

    ranges = []  # [first, last, base]
    entries = []  # (cp, weights)
    for cp in cps:
        w = weights[cp]
        base = None
        for b in (0xFB40, 0xFB80):
            if w == implicit(cp, b):
                base = b
        if base is not None:
            if ranges and ranges[-1][2] == base and ranges[-1][1] == cp - 1:
                ranges[-1][1] = cp
            else:
                ranges.append([cp, cp, base])
        elif w != implicit(cp, DEFAULT_BASE):
            if len(w) > 255:
                sys.exit("U+%04X: %d weights" % (cp, len(w)))
            entries.append((cp, w))

    blob = bytearray(b"CAIRNUCA")
    blob += struct.pack("<IH", 2, sup_weight)
    blob += struct.pack("<I", len(ranges))
    for first, last, base in ranges:
        blob += struct.pack("<IIH", first, last, base)
    blob += struct.pack("<I", len(entries))
    for cp, w in entries:
        blob += struct.pack("<IB", cp, len(w))
        blob += struct.pack("<%dH" % len(w), *w)
    with open(args.out, "wb") as f:
        f.write(blob)
    print(
        "%s: %d ranges, %d entries, %d bytes, U+10000 and above weigh %s"
        % (
            args.collation,
            len(ranges),
            len(entries),
            len(blob),
            "%04X" % sup_weight if sup_weight else "by the table",
        )
    )


if __name__ == "__main__":
    main()
