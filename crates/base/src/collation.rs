//! Collations: the weight of each character, comparison with PAD SPACE, sort keys for indexes and
//! the partition hash, and LIKE matching (the Unicode Collation Algorithm's weights themselves
//! are `uca.rs`'s). Equal weights mean equal keys: under utf8mb4_general_ci
//! 'ABC', 'abc' and 'àbç' are one key and land in one partition.

use std::cmp::Ordering;

use crate::types::{Charset, Collation};
use crate::uca::{self, CharWeights, Uca};

/// Base letters (upper case) for U+00C0..=U+00FF under the case- and accent-insensitive collations;
/// 0 keeps the character's own code point.
const LATIN1_FOLD: [u8; 64] =
    *b"AAAAAA\0CEEEEIIII\0NOOOOO\0\0UUUUY\0SAAAAAA\0CEEEEIIII\0NOOOOO\0\0UUUUY\0Y";

/// latin1_swedish_ci's weights of U+00C0..=U+00FF (latin1 bytes 0xC0..=0xFF), as MariaDB 10.11
/// gives them (WEIGHT_STRING): accents fold to their letter, Å Ä Æ Ö sort after Z, Ü and Ý as Y;
/// Ð weighs as D, Ø Þ ß × ÷ ÿ as themselves (lower case as upper).
const LATIN1_SWEDISH_HIGH: [u8; 64] = [
    0x41, 0x41, 0x41, 0x41, 0x5C, 0x5B, 0x5C, 0x43, 0x45, 0x45, 0x45, 0x45, 0x49, 0x49, 0x49, 0x49,
    0x44, 0x4E, 0x4F, 0x4F, 0x4F, 0x4F, 0x5D, 0xD7, 0xD8, 0x55, 0x55, 0x55, 0x59, 0x59, 0xDE, 0xDF,
    0x41, 0x41, 0x41, 0x41, 0x5C, 0x5B, 0x5C, 0x43, 0x45, 0x45, 0x45, 0x45, 0x49, 0x49, 0x49, 0x49,
    0x44, 0x4E, 0x4F, 0x4F, 0x4F, 0x4F, 0x5D, 0xF7, 0xD8, 0x55, 0x55, 0x55, 0x59, 0x59, 0xDE, 0xFF,
];

/// The characters of latin1 bytes 0x80..=0x9F: MariaDB's latin1 is Windows-1252, its five
/// unassigned bytes standing for the C1 controls of the same number.
const LATIN1_C1: [u16; 32] = [
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039,
    0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
];

fn fold_latin1_range(code: u32) -> u16 {
    if (0xC0..=0xFF).contains(&code) {
        let base = LATIN1_FOLD[(code - 0xC0) as usize];
        if base != 0 {
            return u16::from(base);
        }
        // Æ, Ð, Ø, Þ and their lower-case forms: one weight per letter, case folded.
        return if code >= 0xE0 && code != 0xF7 {
            (code - 0x20) as u16
        } else {
            code as u16
        };
    }
    code as u16
}

/// The utf8mb4_general_ci weight of one character.
fn general_ci_weight(c: char) -> u16 {
    let code = c as u32;
    if code < 0x80 {
        return u16::from((code as u8).to_ascii_uppercase());
    }
    if code > 0xFFFF {
        return 0xFFFD;
    }
    if code <= 0xFF {
        return fold_latin1_range(code);
    }
    let mut upper = c.to_uppercase();
    match (upper.next(), upper.next()) {
        (Some(u), None) if (u as u32) <= 0xFFFF => u as u16,
        _ => code as u16,
    }
}

fn latin1_ci_weight(byte: u8) -> u16 {
    u16::from(match byte {
        0..=0x7F => byte.to_ascii_uppercase(),
        0x80..=0xBF => byte,
        _ => LATIN1_SWEDISH_HIGH[usize::from(byte - 0xC0)],
    })
}

/// The latin1 byte of character `c`, or None when latin1 lacks it.
pub fn latin1_byte(c: char) -> Option<u8> {
    let code = c as u32;
    match code {
        0..=0x7F | 0xA0..=0xFF => Some(code as u8),
        _ => LATIN1_C1
            .iter()
            .position(|x| u32::from(*x) == code)
            .map(|i| 0x80 + i as u8),
    }
}

/// The character of latin1 byte `b`.
pub fn latin1_char(b: u8) -> char {
    match b {
        0x80..=0x9F => char::from_u32(u32::from(LATIN1_C1[usize::from(b - 0x80)])).unwrap_or('?'),
        _ => char::from(b),
    }
}

/// Whether `charset` holds character `c`.
pub fn holds(c: char, charset: Charset) -> bool {
    match charset {
        Charset::Utf8mb4 | Charset::Binary => true,
        Charset::Utf8mb3 => c.len_utf8() <= 3,
        Charset::Latin1 => latin1_byte(c).is_some(),
    }
}

/// Whether every character of `text` is one `charset` holds.
pub fn fits(text: &str, charset: Charset) -> bool {
    text.chars().all(|c| holds(c, charset))
}

/// `text` with every character `charset` lacks replaced by `?`, as a conversion to it does.
pub fn convert_lossy(text: &str, charset: Charset) -> String {
    text.chars()
        .map(|c| if holds(c, charset) { c } else { '?' })
        .collect()
}

fn trim_spaces(bytes: &[u8]) -> &[u8] {
    let mut end = bytes.len();
    while end > 0 && bytes[end - 1] == b' ' {
        end -= 1;
    }
    &bytes[..end]
}

/// Weights of a string under a collation, after PAD SPACE trimming where the collation pads.
/// Invalid UTF-8 bytes weigh as U+FFFD so that no input can fail a comparison.
fn weights(bytes: &[u8], collation: Collation) -> impl Iterator<Item = u32> + '_ {
    let (bytes, mode) = match collation {
        Collation::Binary => (bytes, 0u8),
        Collation::Latin1Bin => (trim_spaces(bytes), 0),
        Collation::Latin1SwedishCi => (trim_spaces(bytes), 1),
        Collation::Utf8mb4Bin | Collation::Utf8mb3Bin => (trim_spaces(bytes), 2),
        Collation::Utf8mb4GeneralCi | Collation::Utf8mb3GeneralCi => (trim_spaces(bytes), 3),
        Collation::Latin1TextSwedishCi => (trim_spaces(bytes), 4),
        Collation::Latin1TextBin => (trim_spaces(bytes), 5),
        // Several weights a character, or none: `UcaWeights` (compare and sort_key take that
        // path first); code point order would be utf8mb4_bin's.
        Collation::Utf8mb4UnicodeCi
        | Collation::Utf8mb3UnicodeCi
        | Collation::Utf8mb4Unicode520Ci
        | Collation::Utf8mb3Unicode520Ci => (trim_spaces(bytes), 2),
    };
    let mut rest = bytes;
    std::iter::from_fn(move || {
        let (&first, tail) = rest.split_first()?;
        match mode {
            0 => {
                rest = tail;
                Some(u32::from(first))
            }
            1 => {
                rest = tail;
                Some(u32::from(latin1_ci_weight(first)))
            }
            _ => {
                let (c, used) = decode_utf8(rest);
                rest = &rest[used..];
                // A character latin1 lacks weighs as `?`, as converting it to latin1 makes it.
                let latin1 = || latin1_byte(c).unwrap_or(b'?');
                Some(match mode {
                    2 => c as u32,
                    3 => u32::from(general_ci_weight(c)),
                    4 => u32::from(latin1_ci_weight(latin1())),
                    _ => u32::from(latin1()),
                })
            }
        }
    })
}

/// Decodes one UTF-8 character; a malformed sequence yields U+FFFD and consumes one byte.
fn decode_utf8(bytes: &[u8]) -> (char, usize) {
    let width = match bytes.first() {
        Some(b) if *b < 0x80 => return (char::from(*b), 1),
        Some(b) if *b >> 5 == 0b110 => 2,
        Some(b) if *b >> 4 == 0b1110 => 3,
        Some(b) if *b >> 3 == 0b11110 => 4,
        _ => return ('\u{FFFD}', 1),
    };
    match bytes.get(..width).and_then(|s| std::str::from_utf8(s).ok()) {
        Some(s) => (s.chars().next().unwrap_or('\u{FFFD}'), width),
        None => ('\u{FFFD}', 1),
    }
}

/// The UCA weights of a UTF-8 string, character after character (malformed bytes weigh as
/// U+FFFD).
#[derive(Clone)]
struct UcaWeights<'a> {
    uca: Uca,
    rest: &'a [u8],
    pending: CharWeights,
    at: usize,
}

impl<'a> UcaWeights<'a> {
    fn new(uca: Uca, bytes: &'a [u8]) -> UcaWeights<'a> {
        UcaWeights {
            uca,
            rest: bytes,
            pending: CharWeights::Listed(&[]),
            at: 0,
        }
    }
}

impl Iterator for UcaWeights<'_> {
    type Item = u16;

    fn next(&mut self) -> Option<u16> {
        loop {
            if let Some(w) = self.pending.as_slice().get(self.at) {
                self.at += 1;
                return Some(*w);
            }
            if self.rest.is_empty() {
                return None;
            }
            let (c, used) = decode_utf8(self.rest);
            self.rest = &self.rest[used..];
            self.pending = uca::weights(self.uca, c);
            self.at = 0;
        }
    }
}

/// Compares under a UCA collation with PAD SPACE, as MariaDB does: weights in turn, the
/// shorter string padded with spaces' weight (so 'a' = 'a ' = 'a' + NBSP, and 'a' + TAB, whose
/// weight is below a space's, sorts before 'a').
fn uca_compare(uca: Uca, a: &[u8], b: &[u8]) -> Ordering {
    let space = uca::space(uca);
    let (mut x, mut y) = (UcaWeights::new(uca, a), UcaWeights::new(uca, b));
    loop {
        let (from_x, from_y) = (x.clone(), y.clone());
        match (x.next(), y.next()) {
            (None, None) => return Ordering::Equal,
            (Some(u), Some(v)) if u == v => continue,
            (u, v) => {
                // They part here; against a side left with spaces only (or nothing), the other
                // side's first weight that is not a space's decides.
                let beyond = |mut rest: UcaWeights| rest.find(|w| *w != space);
                return match (beyond(from_x), beyond(from_y)) {
                    (None, None) => Ordering::Equal,
                    (None, Some(w)) => space.cmp(&w),
                    (Some(w), None) => w.cmp(&space),
                    (Some(_), Some(_)) => u.cmp(&v),
                };
            }
        }
    }
}

/// Appends the UCA sort key of `bytes`, ordered as `uca_compare`. A weight follows the spaces
/// before it (their count, k); the string ends in spaces without end. A weight with no space
/// before it is its two bytes, which no other token begins with 0x0209 (the space's weight);
/// the others begin with 0x0209 and a byte placing them between the weights below a space's
/// and those above, as padding compares: 01 and k ascending, then the weight, for a weight
/// below a space's; 02 for the end; 03 and k descending, then the weight, for one above. A run
/// of more than 65,535 spaces inside a string (longer than any key) counts as 65,535.
fn uca_sort_key(uca: Uca, bytes: &[u8], out: &mut Vec<u8>) {
    let space = uca::space(uca);
    let mut k: u32 = 0;
    for w in UcaWeights::new(uca, bytes) {
        if w == space {
            k += 1;
            continue;
        }
        if k > 0 {
            let k16 = k.min(u32::from(u16::MAX)) as u16;
            out.extend_from_slice(&space.to_be_bytes());
            if w < space {
                out.push(0x01);
                out.extend_from_slice(&k16.to_be_bytes());
            } else {
                out.push(0x03);
                out.extend_from_slice(&(u16::MAX - k16).to_be_bytes());
            }
            k = 0;
        }
        out.extend_from_slice(&w.to_be_bytes());
    }
    out.extend_from_slice(&space.to_be_bytes());
    out.push(0x02);
}

/// Compares two strings under a collation.
pub fn compare(a: &[u8], b: &[u8], collation: Collation) -> Ordering {
    let collation = collation.weighs_as();
    match collation {
        Collation::Binary => a.cmp(b),
        Collation::Utf8mb4UnicodeCi => uca_compare(Uca::V400, a, b),
        Collation::Utf8mb4Unicode520Ci => uca_compare(Uca::V520, a, b),
        Collation::Utf8mb4GeneralCi => {
            // The common case first: while both sides are ASCII, a weight is the uppercase byte.
            let (a, b) = (trim_spaces(a), trim_spaces(b));
            let mut i = 0;
            while i < a.len().min(b.len()) && a[i] < 0x80 && b[i] < 0x80 {
                let (x, y) = (a[i].to_ascii_uppercase(), b[i].to_ascii_uppercase());
                if x != y {
                    return x.cmp(&y);
                }
                i += 1;
            }
            weights(&a[i..], collation).cmp(weights(&b[i..], collation))
        }
        _ => weights(a, collation).cmp(weights(b, collation)),
    }
}

/// The first eight bytes of `sort_key(bytes, collation)` as a big-endian number, zero-filled when
/// the key is shorter, for the collations whose key is each character's weight in turn (None for
/// the UCA ones). Two strings whose prefixes differ order as their prefixes do; equal prefixes
/// decide nothing. A sort compares these first and weighs whole strings only on a tie.
pub fn sort_key_prefix(bytes: &[u8], collation: Collation) -> Option<u64> {
    let mut key = [0u8; 8];
    let fill = |key: &mut [u8; 8], from: &[u8]| {
        let n = from.len().min(8);
        key[..n].copy_from_slice(&from[..n]);
    };
    match collation {
        Collation::Binary => fill(&mut key, bytes),
        Collation::Latin1Bin | Collation::Utf8mb4Bin | Collation::Utf8mb3Bin => {
            fill(&mut key, trim_spaces(bytes))
        }
        Collation::Latin1SwedishCi | Collation::Latin1TextSwedishCi | Collation::Latin1TextBin => {
            for (k, w) in key.iter_mut().zip(weights(bytes, collation)) {
                *k = w as u8;
            }
        }
        Collation::Utf8mb4GeneralCi | Collation::Utf8mb3GeneralCi => {
            for (k, w) in key.chunks_exact_mut(2).zip(weights(bytes, collation)) {
                k.copy_from_slice(&(w as u16).to_be_bytes());
            }
        }
        Collation::Utf8mb4UnicodeCi
        | Collation::Utf8mb3UnicodeCi
        | Collation::Utf8mb4Unicode520Ci
        | Collation::Utf8mb3Unicode520Ci => return None,
    }
    Some(u64::from_be_bytes(key))
}

/// Appends the collation's sort key for `bytes`: equal strings give equal keys and byte order of
/// keys is the collation's order. The key is not self-delimiting; `key::encode_value` frames it.
pub fn sort_key(bytes: &[u8], collation: Collation, out: &mut Vec<u8>) {
    match collation {
        Collation::Binary => out.extend_from_slice(bytes),
        Collation::Latin1Bin | Collation::Utf8mb4Bin | Collation::Utf8mb3Bin => {
            out.extend_from_slice(trim_spaces(bytes))
        }
        Collation::Latin1SwedishCi | Collation::Latin1TextSwedishCi | Collation::Latin1TextBin => {
            out.extend(weights(bytes, collation).map(|w| w as u8))
        }
        Collation::Utf8mb4UnicodeCi | Collation::Utf8mb3UnicodeCi => {
            uca_sort_key(Uca::V400, bytes, out)
        }
        Collation::Utf8mb4Unicode520Ci | Collation::Utf8mb3Unicode520Ci => {
            uca_sort_key(Uca::V520, bytes, out)
        }
        Collation::Utf8mb4GeneralCi | Collation::Utf8mb3GeneralCi => {
            // The common case first: an ASCII character's weight is its uppercase byte.
            let bytes = trim_spaces(bytes);
            out.reserve(bytes.len() * 2);
            let ascii = bytes.iter().position(|b| *b >= 0x80).unwrap_or(bytes.len());
            let start = out.len();
            out.resize(start + 2 * ascii, 0);
            for (pair, b) in out[start..].chunks_exact_mut(2).zip(&bytes[..ascii]) {
                pair[1] = b.to_ascii_uppercase();
            }
            for w in weights(&bytes[ascii..], collation) {
                out.extend_from_slice(&(w as u16).to_be_bytes());
            }
        }
    }
}

/// The characters of `bytes` as LIKE reads them: each byte for a byte-wise collation, else
/// each UTF-8 character's code point.
fn units(bytes: &[u8], binary: bool) -> impl Iterator<Item = u32> + '_ {
    let mut rest = bytes;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        if binary {
            let b = rest[0];
            rest = &rest[1..];
            return Some(u32::from(b));
        }
        let (c, used) = decode_utf8(rest);
        rest = &rest[used..];
        Some(c as u32)
    })
}

/// The weight LIKE compares a character `c` by under `collation` (already `weighs_as`).
fn like_weight(c: u32, collation: Collation) -> u64 {
    let latin1 = |c: u32| char::from_u32(c).and_then(latin1_byte).unwrap_or(b'?');
    match collation {
        Collation::Utf8mb4GeneralCi => {
            char::from_u32(c).map_or(u64::from(c), |c| u64::from(general_ci_weight(c)))
        }
        Collation::Utf8mb4UnicodeCi => {
            char::from_u32(c).map_or(u64::from(c), |c| uca::identity(Uca::V400, c))
        }
        Collation::Utf8mb4Unicode520Ci => {
            char::from_u32(c).map_or(u64::from(c), |c| uca::identity(Uca::V520, c))
        }
        Collation::Latin1SwedishCi => u64::from(latin1_ci_weight(c as u8)),
        Collation::Latin1TextSwedishCi => u64::from(latin1_ci_weight(latin1(c))),
        Collation::Latin1TextBin => u64::from(latin1(c)),
        _ => u64::from(c),
    }
}

/// SQL LIKE with `%` and `_` wildcards and `\` as escape, comparing characters by weight.
pub fn like(value: &[u8], pattern: &[u8], collation: Collation) -> bool {
    let collation = collation.weighs_as();
    let binary = matches!(
        collation,
        Collation::Binary | Collation::Latin1Bin | Collation::Latin1SwedishCi
    );
    let weigh = |c: u32| like_weight(c, collation);
    // The common patterns, a literal prefix then one `%` (`'abc%'`) or no wildcard at all,
    // compared a character at a time with nothing allocated. (`%`, `_` and `\` are ASCII, so
    // no UTF-8 sequence holds their bytes.)
    let literal = |b: &u8| !matches!(b, b'%' | b'_' | b'\\');
    let (head, open) = match pattern.split_last() {
        Some((b'%', head)) => (head, true),
        _ => (pattern, false),
    };
    if head.iter().all(literal) {
        let mut text = units(value, binary);
        for p in units(head, binary) {
            match text.next() {
                Some(t) if weigh(t) == weigh(p) => {}
                _ => return false,
            }
        }
        return open || text.next().is_none();
    }
    let text: Vec<u64> = units(value, binary).map(weigh).collect();
    // Pattern items: Some(weight) for a literal, None for '_' and u64::MAX for '%' (no weight
    // or identity is all ones).
    let mut items: Vec<Option<u64>> = Vec::new();
    let raw: Vec<u32> = units(pattern, binary).collect();
    let mut i = 0;
    while i < raw.len() {
        match raw[i] {
            0x5C if i + 1 < raw.len() => {
                items.push(Some(weigh(raw[i + 1])));
                i += 1;
            }
            0x25 => items.push(Some(u64::MAX)),
            0x5F => items.push(None),
            c => items.push(Some(weigh(c))),
        }
        i += 1;
    }
    // Iterative wildcard matching with backtracking to the last '%'.
    let (mut t, mut p) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match items.get(p) {
            Some(Some(u64::MAX)) => {
                star = Some((p, t));
                p += 1;
            }
            Some(None) => {
                t += 1;
                p += 1;
            }
            Some(Some(w)) if *w == text[t] => {
                t += 1;
                p += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    items[p..].iter().all(|i| *i == Some(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn general_ci_folds_case_accents_and_trailing_spaces() {
        let ci = Collation::Utf8mb4GeneralCi;
        assert_eq!(compare(b"ABC", b"abc", ci), Ordering::Equal);
        assert_eq!(compare("àbç".as_bytes(), b"ABC  ", ci), Ordering::Equal);
        assert_eq!(compare(b"abc", b"abd", ci), Ordering::Less);
        assert_eq!(
            compare(b"abc", b"ABC", Collation::Utf8mb4Bin),
            Ordering::Greater
        );
        assert_eq!(compare(b"a ", b"a", Collation::Binary), Ordering::Greater);
        let (mut k1, mut k2) = (Vec::new(), Vec::new());
        sort_key(b"Hello", ci, &mut k1);
        sort_key("HÉLLO ".as_bytes(), ci, &mut k2);
        assert_eq!(k1, k2);
    }

    #[test]
    fn general_ci_compare_agrees_with_its_sort_keys() {
        compare_agrees_with_sort_keys(Collation::Utf8mb4GeneralCi);
    }

    #[test]
    fn unicode_ci_compare_agrees_with_its_sort_keys() {
        compare_agrees_with_sort_keys(Collation::Utf8mb4UnicodeCi);
        compare_agrees_with_sort_keys(Collation::Utf8mb3UnicodeCi);
        compare_agrees_with_sort_keys(Collation::Utf8mb4Unicode520Ci);
    }

    #[test]
    fn unicode_520_ci_weighs_characters_above_the_bmp_apart() {
        let ci = Collation::Utf8mb4Unicode520Ci;
        let eq = |a: &str, b: &str| compare(a.as_bytes(), b.as_bytes(), ci);
        assert_eq!(eq("Straße", "STRASSE"), Ordering::Equal);
        assert_eq!(eq("a\u{00A0} ", "a"), Ordering::Equal);
        assert_eq!(eq("a\t", "a"), Ordering::Less);
        assert_eq!(eq("😀", "😁"), Ordering::Less);
        assert_eq!(
            compare(
                "😀".as_bytes(),
                "😁".as_bytes(),
                Collation::Utf8mb4UnicodeCi
            ),
            Ordering::Equal
        );
        assert!(!like("😀".as_bytes(), "😁".as_bytes(), ci));
    }

    #[test]
    fn unicode_ci_folds_as_mariadb() {
        let ci = Collation::Utf8mb4UnicodeCi;
        let eq = |a: &str, b: &str| compare(a.as_bytes(), b.as_bytes(), ci);
        // Each pair as MariaDB 10.11 compares it under utf8mb4_unicode_ci.
        assert_eq!(eq("a", "á"), Ordering::Equal);
        assert_eq!(eq("ABC", "abc"), Ordering::Equal);
        assert_eq!(eq("ß", "ss"), Ordering::Equal);
        assert_eq!(eq("Straße", "STRASSE"), Ordering::Equal);
        assert_eq!(eq("æ", "ae"), Ordering::Greater);
        assert_eq!(eq("a ", "a"), Ordering::Equal);
        assert_eq!(eq("a\u{00A0}", "a"), Ordering::Equal);
        assert_eq!(eq("a\u{3000} ", "a"), Ordering::Equal);
        assert_eq!(eq("a b", "ab"), Ordering::Less);
        assert_eq!(eq("a\t", "a"), Ordering::Less, "a tab weighs below a space");
        assert_eq!(eq("a\u{2028}", "a "), Ordering::Less);
        assert_eq!(eq("a \t", "a"), Ordering::Less);
        assert_eq!(eq("a z", "a"), Ordering::Greater);
        assert_eq!(eq("a\0b", "ab"), Ordering::Equal, "U+0000 is ignorable");
        assert_eq!(eq("😀", "😁"), Ordering::Equal);
        assert_eq!(eq("z", "ä"), Ordering::Greater);
        assert!(like("Straße".as_bytes(), b"stra%e", ci));
        assert!(like("ÀBC".as_bytes(), b"a_c", ci));
        assert!(!like(b"abd", b"a_c", ci));
        // LIKE compares character by character: ß is one character, not two.
        assert!(!like("ß".as_bytes(), b"ss", ci));
        assert!(like("ß".as_bytes(), b"_", ci));
    }

    fn compare_agrees_with_sort_keys(ci: Collation) {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64);
        println!("seed {seed}");
        let alphabet = [
            "a",
            "A",
            "z",
            "~",
            " ",
            "é",
            "É",
            "ß",
            "Ä",
            "0",
            "\u{1F600}",
            "\u{00A0}",
            "\t",
            "\0",
            "ss",
            "\u{3000}",
            "一",
            "\u{2028}",
        ];
        let mut x = seed | 1;
        let mut word = || {
            let mut w = String::new();
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            for i in 0..(x % 6) {
                w.push_str(alphabet[((x >> (8 * i)) % alphabet.len() as u64) as usize]);
            }
            w
        };
        for _ in 0..5_000 {
            let (a, b) = (word(), word());
            let (mut ka, mut kb) = (Vec::new(), Vec::new());
            sort_key(a.as_bytes(), ci, &mut ka);
            sort_key(b.as_bytes(), ci, &mut kb);
            assert_eq!(
                compare(a.as_bytes(), b.as_bytes(), ci),
                ka.cmp(&kb),
                "{a:?} {b:?}"
            );
            if let Some(prefix) = sort_key_prefix(a.as_bytes(), ci) {
                let mut first = [0u8; 8];
                let n = ka.len().min(8);
                first[..n].copy_from_slice(&ka[..n]);
                assert_eq!(prefix, u64::from_be_bytes(first), "{a:?} under {ci:?}");
            }
        }
    }

    #[test]
    fn sort_key_prefixes_are_the_keys_first_bytes() {
        for ci in (0..=u8::MAX).filter_map(Collation::from_u8) {
            compare_agrees_with_sort_keys(ci);
            let has_prefix = sort_key_prefix(b"abc", ci).is_some();
            assert_eq!(has_prefix, !ci.name().contains("unicode"), "{ci:?}");
        }
    }

    #[test]
    fn like_matches_wildcards_under_collation() {
        let ci = Collation::Utf8mb4GeneralCi;
        assert!(like(b"Hello world", b"hello%", ci));
        assert!(like(b"Hello world", b"%WORLD", ci));
        assert!(like(b"abc", b"a_c", ci));
        assert!(!like(b"abc", b"a_d", ci));
        assert!(like(b"a%c", b"a\\%c", ci));
        assert!(!like(b"abc", b"ABC", Collation::Utf8mb4Bin));
        assert!(like(b"", b"%", ci));
        assert!(like(b"aaa", b"%a%a", ci));
    }

    #[test]
    fn a_literal_prefix_pattern_matches_as_the_general_matcher_does() {
        // An escaped first character sends the same pattern through the general matcher.
        let words: [&[u8]; 12] = [
            b"",
            b"a",
            b"ab",
            b"AB",
            b"abc",
            b"ab ",
            "àb".as_bytes(),
            "ÀBC".as_bytes(),
            b"13-555",
            b"1",
            "ß".as_bytes(),
            &[0xC3, 0x28, 0x61],
        ];
        let collations = [
            Collation::Utf8mb4GeneralCi,
            Collation::Utf8mb4Bin,
            Collation::Latin1SwedishCi,
            Collation::Latin1Bin,
            Collation::Binary,
            Collation::Utf8mb4UnicodeCi,
            Collation::Latin1TextSwedishCi,
        ];
        for collation in collations {
            for value in words {
                for pattern in words.iter().filter(|w| !w.is_empty()) {
                    for open in [false, true] {
                        let mut fast = pattern.to_vec();
                        let mut general = vec![b'\\'];
                        general.extend_from_slice(pattern);
                        if open {
                            fast.push(b'%');
                            general.push(b'%');
                        }
                        assert_eq!(
                            like(value, &fast, collation),
                            like(value, &general, collation),
                            "{value:?} LIKE {fast:?} under {collation:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn utf8mb3_weighs_as_utf8mb4_and_is_named_both_ways() {
        let pairs = [
            (Collation::Utf8mb3GeneralCi, Collation::Utf8mb4GeneralCi),
            (Collation::Utf8mb3Bin, Collation::Utf8mb4Bin),
        ];
        let words: [&[u8]; 5] = [b"abc", "ÀBC".as_bytes(), b"abd ", "Über".as_bytes(), b""];
        for (three, four) in pairs {
            for a in words {
                for b in words {
                    assert_eq!(compare(a, b, three), compare(a, b, four));
                    assert_eq!(like(a, b, three), like(a, b, four));
                }
                let (mut x, mut y) = (Vec::new(), Vec::new());
                sort_key(a, three, &mut x);
                sort_key(a, four, &mut y);
                assert_eq!(x, y);
            }
        }
        assert_eq!(
            Collation::from_name("UTF8_general_ci"),
            Some(Collation::Utf8mb3GeneralCi)
        );
        assert_eq!(
            Collation::from_name("utf8mb3_bin"),
            Some(Collation::Utf8mb3Bin)
        );
        assert_eq!(Collation::from_name("utf8_nosuch"), None);
        let text = crate::types::Charset::Utf8mb3;
        assert_eq!(
            crate::value::char_count("aé€".as_bytes(), text).ok(),
            Some(3)
        );
        assert!(crate::value::char_count("a😀".as_bytes(), text).is_err());
    }

    #[test]
    fn latin1_text_weighs_by_latin1_bytes() {
        let ci = Collation::Latin1TextSwedishCi;
        let bin = Collation::Latin1TextBin;
        assert_eq!(compare("ÀBC".as_bytes(), b"abc ", ci), Ordering::Equal);
        assert_eq!(compare("Über".as_bytes(), b"yber", ci), Ordering::Equal);
        assert_eq!(compare("Åsa".as_bytes(), b"Zebra", ci), Ordering::Greater);
        assert_eq!(compare("Ø".as_bytes(), "ø".as_bytes(), ci), Ordering::Equal);
        assert_eq!(compare("€".as_bytes(), "é".as_bytes(), bin), Ordering::Less);
        assert_eq!(compare(b"X", b"x", bin), Ordering::Less);
        assert!(like("Ärlig".as_bytes(), "ä%".as_bytes(), ci));
        // The byte collation and the text one agree on every latin1 character.
        for b in 0..=255u8 {
            let text = latin1_char(b).to_string();
            assert_eq!(latin1_byte(latin1_char(b)), Some(b));
            let (mut x, mut y) = (Vec::new(), Vec::new());
            sort_key(&[b], Collation::Latin1SwedishCi, &mut x);
            sort_key(text.as_bytes(), ci, &mut y);
            assert_eq!(x, y, "byte {b:#x}");
        }
        assert!(fits("aé€", Charset::Latin1));
        assert!(!fits("a中", Charset::Latin1));
        assert_eq!(convert_lossy("a中é", Charset::Latin1), "a?é");
        assert_eq!(Collation::Latin1Bin.text_form(), bin);
    }
}
