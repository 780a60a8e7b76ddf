//! Primary weights of the Unicode Collation Algorithm collations: utf8mb4_unicode_ci (UCA 4.0.0)
//! and utf8mb4_unicode_520_ci (UCA 5.2.0), with their utf8mb3 twins, at the primary level:
//! case- and accent-insensitive, with expansions such as ß = ss and ignorable characters. The
//! weights were measured on MariaDB 10.11 (`scripts/uca-weights.py`, which documents the files'
//! format) and are read once, at first use, from the files compiled in.

use std::sync::OnceLock;

/// The measured tables (`scripts/uca-weights.py utf8mb4_unicode_ci ...`, `... 520 ...`).
const UNICODE_CI: &[u8] = include_bytes!("../data/utf8mb4_unicode_ci.bin");
const UNICODE_520_CI: &[u8] = include_bytes!("../data/utf8mb4_unicode_520_ci.bin");

/// The implicit weights' base of the code points no range or entry names (unassigned ones).
const DEFAULT_BASE: u16 = 0xFBC0;
/// A table entry's flag: the code point weighs by the implicit rule with the base in its low bits.
const IMPLICIT: u32 = 1 << 31;
/// The most weights one character has in a table (a longer list is refused when it is read).
pub const EXPANSION_MAX: usize = 15;

/// Which UCA version's weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Uca {
    /// UCA 4.0.0: utf8mb4_unicode_ci.
    V400,
    /// UCA 5.2.0: utf8mb4_unicode_520_ci.
    V520,
}

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

/// A collation's table: per code point, either `IMPLICIT | base` or `offset << 4 | count` into
/// `pool`; a dense array for the Basic Multilingual Plane, sorted lists above it.
struct Table {
    bmp: Vec<u32>,
    /// Above U+FFFF: (code point, entry) for the listed ones, ...
    above: Vec<(u32, u32)>,
    /// ... (first, last, base) for the implicit ranges not at the default base.
    above_ranges: Vec<(u32, u32, u16)>,
    /// The one weight of every character above U+FFFF, when the collation has one.
    above_fixed: Option<u16>,
    pool: Vec<u16>,
    /// A space's weight, which PAD SPACE pads shorter strings with.
    space: u16,
}

impl Table {
    fn entry(&self, cp: u32) -> u32 {
        if let Some(e) = self.bmp.get(cp as usize) {
            return *e;
        }
        if let Ok(i) = self.above.binary_search_by_key(&cp, |(c, _)| *c) {
            return self.above[i].1;
        }
        let i = self
            .above_ranges
            .partition_point(|(first, _, _)| *first <= cp);
        match i.checked_sub(1).map(|i| self.above_ranges[i]) {
            Some((_, last, base)) if cp <= last => IMPLICIT | u32::from(base),
            _ => IMPLICIT | u32::from(DEFAULT_BASE),
        }
    }

    fn weights(&'static self, c: char) -> CharWeights {
        let cp = c as u32;
        if let (Some(w), true) = (self.above_fixed, cp > 0xFFFF) {
            return CharWeights::One(w);
        }
        let entry = self.entry(cp);
        if entry & IMPLICIT != 0 {
            let base = (entry & 0xFFFF) as u16;
            return CharWeights::Implicit([
                base.wrapping_add((cp >> 15) as u16),
                (cp & 0x7FFF) as u16 | 0x8000,
            ]);
        }
        let (offset, n) = ((entry >> 4) as usize, (entry & 0xF) as usize);
        CharWeights::Listed(&self.pool[offset..offset + n])
    }
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
    if version != 2 {
        return Err(format!("version {version}"));
    }
    let fixed = u16_of(take(2)?);
    let mut table = Table {
        bmp: vec![IMPLICIT | u32::from(DEFAULT_BASE); 0x10000],
        above: Vec::new(),
        above_ranges: Vec::new(),
        above_fixed: (fixed != 0).then_some(fixed),
        pool: Vec::new(),
        space: 0,
    };
    let ranges = u32_of(take(4)?);
    for _ in 0..ranges {
        let first = u32_of(take(4)?);
        let last = u32_of(take(4)?);
        let base = u16_of(take(2)?);
        if first > last || last > 0x10FFFF {
            return Err(format!("range {first:#x}..={last:#x}"));
        }
        for cp in first..=last.min(0xFFFF) {
            table.bmp[cp as usize] = IMPLICIT | u32::from(base);
        }
        if last > 0xFFFF {
            table.above_ranges.push((first.max(0x10000), last, base));
        }
    }
    let count = u32_of(take(4)?);
    // Each list once in the pool, so that equal lists have one place (`identity`).
    let mut placed: std::collections::HashMap<Vec<u16>, u32> = Default::default();
    for _ in 0..count {
        let cp = u32_of(take(4)?);
        let n = usize::from(take(1)?[0]);
        if n > EXPANSION_MAX || cp > 0x10FFFF {
            return Err(format!("U+{cp:04X}: {n} weights"));
        }
        let list: Vec<u16> = take(2 * n)?.chunks_exact(2).map(u16_of).collect();
        let pool = &mut table.pool;
        let offset = *placed.entry(list).or_insert_with_key(|list| {
            pool.extend_from_slice(list);
            (pool.len() - list.len()) as u32
        });
        let entry = offset << 4 | n as u32;
        match table.bmp.get_mut(cp as usize) {
            Some(e) => *e = entry,
            None => table.above.push((cp, entry)),
        }
    }
    if at != bytes.len() {
        return Err(format!("{} bytes after the entries", bytes.len() - at));
    }
    table.above.sort_unstable();
    table.above_ranges.sort_unstable();
    let space = table.bmp[0x20];
    if space & IMPLICIT != 0 || space & 0xF != 1 {
        return Err("a space has no single weight".into());
    }
    table.space = table.pool[(space >> 4) as usize];
    Ok(table)
}

fn table(uca: Uca) -> &'static Table {
    static V400: OnceLock<Table> = OnceLock::new();
    static V520: OnceLock<Table> = OnceLock::new();
    let (cell, bytes) = match uca {
        Uca::V400 => (&V400, UNICODE_CI),
        Uca::V520 => (&V520, UNICODE_520_CI),
    };
    cell.get_or_init(|| match parse(bytes) {
        Ok(t) => t,
        // Compiled in and checked by a test: a bad file is a defect of the build.
        Err(e) => panic!("the {uca:?} weight table is invalid: {e}"),
    })
}

/// The weights of `c`.
pub fn weights(uca: Uca, c: char) -> CharWeights {
    table(uca).weights(c)
}

/// A space's weight, which PAD SPACE pads the shorter string with.
pub fn space(uca: Uca) -> u16 {
    table(uca).space
}

/// An identity of `c`'s weights: equal for two characters exactly when their weights are.
pub fn identity(uca: Uca, c: char) -> u64 {
    let table = table(uca);
    let w = table.weights(c);
    let s = w.as_slice();
    match w {
        // Four or more weights: the list's one place in the pool, flagged.
        CharWeights::Listed(list) if s.len() > 3 => {
            let offset = (list.as_ptr() as usize - table.pool.as_ptr() as usize) / 2;
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
        weights(Uca::V400, c).as_slice().to_vec()
    }

    fn w520(c: char) -> Vec<u16> {
        weights(Uca::V520, c).as_slice().to_vec()
    }

    #[test]
    fn the_table_reads_and_weighs_as_mariadb_measured() {
        parse(UNICODE_CI).expect("the compiled-in table reads");
        parse(UNICODE_520_CI).expect("the compiled-in 5.2.0 table reads");
        // Values from MariaDB 10.11's WEIGHT_STRING(... COLLATE utf8mb4_unicode_ci).
        assert_eq!(w('a'), [0x0E33]);
        assert_eq!(w('A'), [0x0E33]);
        assert_eq!(w('á'), [0x0E33]);
        assert_eq!(w('Æ'), [0x0E38]);
        assert_eq!(w('ß'), [0x0FEA, 0x0FEA]);
        assert_eq!(w(' '), [0x0209]);
        assert_eq!(space(Uca::V400), 0x0209);
        assert_eq!(w('\t'), [0x0201]);
        assert_eq!(w('\0'), Vec::<u16>::new());
        assert_eq!(w('\u{FFFD}'), [0x0DC6]);
        assert_eq!(w('一'), [0xFB40, 0xCE00]);
        assert_eq!(w('가'), [0xFBC1, 0xAC00]);
        assert_eq!(w('\u{0378}'), [0xFBC0, 0x8378]);
        assert_eq!(w('😀'), [0xFFFD]);
        assert_eq!(w('\u{10000}'), [0xFFFD]);
        // utf8mb4_unicode_520_ci's, as measured the same way.
        assert_eq!(w520('a'), [0x120F]);
        assert_eq!(w520('ß'), [0x1410, 0x1410]);
        assert_eq!(space(Uca::V520), 0x020A);
        assert_eq!(w520('\u{2028}'), [0x0208]);
        assert_eq!(w520('\u{FFFD}'), [0x110F]);
        assert_eq!(w520('\u{10000}'), [0x3148]);
        assert_eq!(w520('😀'), [0xFBC3, 0xF600]);
        assert_eq!(w520('\u{20000}'), [0xFBC4, 0x8000]);
        assert_eq!(w520('\u{2F81C}'), [0xFB85, 0x91DF]);
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
            let id = identity(Uca::V400, c);
            let ws = w(c);
            if let Some(before) = seen.insert(id, ws.clone()) {
                assert_eq!(before, ws, "{c:?} shares its identity with other weights");
            }
        }
    }
}
