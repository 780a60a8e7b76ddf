//! Primary weights of the Unicode Collation Algorithm collations (utf8mb4_unicode_ci and its
//! utf8mb3 twin, UCA 4.0.0 at the primary level: case- and accent-insensitive, with expansions
//! such as ß = ss and ignorable characters). The weights were measured on MariaDB 10.11
//! (`scripts/uca-weights.py`, which documents the file's format) and are read once, at first
//! use, from the file compiled in.

use std::sync::OnceLock;

/// The measured table (`scripts/uca-weights.py utf8mb4_unicode_ci ...`).
const UNICODE_CI: &[u8] = include_bytes!("../data/utf8mb4_unicode_ci.bin");

/// The implicit weights' base of the code points no range or entry names (unassigned ones).
const DEFAULT_BASE: u16 = 0xFBC0;
/// A table entry's flag: the code point weighs by the implicit rule with the base in its low bits.
const IMPLICIT: u32 = 1 << 31;
/// The most weights one character has in a table (a longer list is refused when it is read).
pub const EXPANSION_MAX: usize = 15;
/// The weight of a space, which PAD SPACE pads shorter strings with.
pub const SPACE: u16 = 0x0209;

/// One character's weights.
#[derive(Debug, Clone, Copy)]
pub enum CharWeights {
    Listed(&'static [u16]),
    Implicit([u16; 2]),
    One(u16),
}

impl CharWeights {
    pub fn as_slice(&self) -> &[u16] {
        match self {
            CharWeights::Listed(s) => s,
            CharWeights::Implicit(pair) => pair,
            CharWeights::One(w) => std::slice::from_ref(w),
        }
    }
}

/// A collation's table: per BMP code point, either `IMPLICIT | base` or `offset << 4 | count`
/// into `pool`.
struct Table {
    entries: Vec<u32>,
    pool: Vec<u16>,
    supplementary: u16,
}

/// Reads a table file; an error names what is wrong (a defect of the build, caught by a test).
fn parse(bytes: &[u8]) -> Result<Table, String> {
    let mut at = 0usize;
    let mut take = |n: usize| -> Result<&[u8], String> {
        let s = bytes
            .get(at..at + n)
            .ok_or_else(|| format!("truncated at byte {at}"))?;
        at += n;
        Ok(s)
    };
    if take(8)? != b"CAIRNUCA" {
        return Err("not a weight table".into());
    }
    let u16_of = |s: &[u8]| u16::from_le_bytes([s[0], s[1]]);
    let u32_of = |s: &[u8]| u32::from_le_bytes([s[0], s[1], s[2], s[3]]);
    let version = u32_of(take(4)?);
    if version != 1 {
        return Err(format!("version {version}"));
    }
    let supplementary = u16_of(take(2)?);
    let mut entries = vec![IMPLICIT | u32::from(DEFAULT_BASE); 0x10000];
    let ranges = u32_of(take(4)?);
    for _ in 0..ranges {
        let first = u32_of(take(4)?);
        let last = u32_of(take(4)?);
        let base = u16_of(take(2)?);
        if first > last || last > 0xFFFF {
            return Err(format!("range {first:#x}..={last:#x}"));
        }
        for cp in first..=last {
            entries[cp as usize] = IMPLICIT | u32::from(base);
        }
    }
    let count = u32_of(take(4)?);
    let mut pool = Vec::new();
    // Each list once in the pool, so that equal lists have one place (`identity`).
    let mut placed: std::collections::HashMap<Vec<u16>, u32> = Default::default();
    for _ in 0..count {
        let cp = u16_of(take(2)?);
        let n = usize::from(take(1)?[0]);
        if n > EXPANSION_MAX {
            return Err(format!("U+{cp:04X}: {n} weights"));
        }
        let list: Vec<u16> = take(2 * n)?.chunks_exact(2).map(u16_of).collect();
        let offset = *placed.entry(list).or_insert_with_key(|list| {
            pool.extend_from_slice(list);
            (pool.len() - list.len()) as u32
        });
        entries[usize::from(cp)] = offset << 4 | n as u32;
    }
    if at != bytes.len() {
        return Err(format!("{} bytes after the entries", bytes.len() - at));
    }
    Ok(Table {
        entries,
        pool,
        supplementary,
    })
}

fn unicode_ci() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| match parse(UNICODE_CI) {
        Ok(t) => t,
        // Compiled in and checked by a test: a bad file is a defect of the build.
        Err(e) => panic!("utf8mb4_unicode_ci's weight table is invalid: {e}"),
    })
}

/// The utf8mb4_unicode_ci weights of `c`.
pub fn weights(c: char) -> CharWeights {
    let table = unicode_ci();
    let cp = c as u32;
    let Some(entry) = table.entries.get(cp as usize) else {
        return CharWeights::One(table.supplementary);
    };
    if entry & IMPLICIT != 0 {
        let base = (entry & 0xFFFF) as u16;
        return CharWeights::Implicit([base + (cp >> 15) as u16, (cp & 0x7FFF) as u16 | 0x8000]);
    }
    let (offset, n) = ((entry >> 4) as usize, (entry & 0xF) as usize);
    CharWeights::Listed(&table.pool[offset..offset + n])
}

/// An identity of `c`'s weights: equal for two characters exactly when their weights are.
pub fn identity(c: char) -> u64 {
    let w = weights(c);
    let s = w.as_slice();
    match w {
        // Four or more weights: the list's one place in the pool, flagged.
        CharWeights::Listed(list) if s.len() > 3 => {
            let offset = (list.as_ptr() as usize - unicode_ci().pool.as_ptr() as usize) / 2;
            1 << 63 | offset as u64
        }
        // Up to three weights, and their count.
        _ => s
            .iter()
            .fold(s.len() as u64, |acc, w| acc << 16 | u64::from(*w)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(c: char) -> Vec<u16> {
        weights(c).as_slice().to_vec()
    }

    #[test]
    fn the_table_reads_and_weighs_as_mariadb_measured() {
        parse(UNICODE_CI).expect("the compiled-in table reads");
        // Values from MariaDB 10.11's WEIGHT_STRING(... COLLATE utf8mb4_unicode_ci).
        assert_eq!(w('a'), [0x0E33]);
        assert_eq!(w('A'), [0x0E33]);
        assert_eq!(w('á'), [0x0E33]);
        assert_eq!(w('Æ'), [0x0E38]);
        assert_eq!(w('ß'), [0x0FEA, 0x0FEA]);
        assert_eq!(w(' '), [SPACE]);
        assert_eq!(w('\t'), [0x0201]);
        assert_eq!(w('\0'), Vec::<u16>::new());
        assert_eq!(w('\u{FFFD}'), [0x0DC6]);
        assert_eq!(w('一'), [0xFB40, 0xCE00]);
        assert_eq!(w('가'), [0xFBC1, 0xAC00]);
        assert_eq!(w('\u{0378}'), [0xFBC0, 0x8378]);
        assert_eq!(w('😀'), [0xFFFD]);
        assert_eq!(w('\u{10000}'), [0xFFFD]);
    }

    #[test]
    fn identities_are_equal_exactly_when_weights_are() {
        let chars: Vec<char> = (0u32..0x3000)
            .chain(0xF900..0xFB00)
            .chain(0xFDF0..0xFE00)
            .filter_map(char::from_u32)
            .collect();
        let mut seen: std::collections::HashMap<u64, Vec<u16>> = Default::default();
        for c in chars {
            let id = identity(c);
            let ws = w(c);
            if let Some(before) = seen.insert(id, ws.clone()) {
                assert_eq!(before, ws, "{c:?} shares its identity with other weights");
            }
        }
    }
}
