//! String functions beyond the basic ones of `expr/funcs.rs`: padding, searching (in characters,
//! comparing under utf8mb4_general_ci as MariaDB does), lists (FIELD, ELT, FIND_IN_SET),
//! hexadecimal and base-64 text, digests, QUOTE and FORMAT, with MariaDB 10.11's values, NULL
//! rules and result types. No function here builds a string longer than
//! `STRING_RESULT_BYTES_MAX`: longer gives NULL, as MariaDB does above max_allowed_packet.

use base::collation;
use base::text::value_text;
use base::types::Collation;
use base::value::Decimal;
use base::Value;
use myproto::response::types;

use super::int_arg;
use crate::expr::{dbl, num, Env, Expr, Num};
use crate::foundation::error::SqlError;
use crate::foundation::limits::STRING_RESULT_BYTES_MAX;

type Result<T> = std::result::Result<T, SqlError>;

/// The decimals MariaDB reports for a string result (NOT_FIXED_DEC).
const STRING_DECIMALS: u8 = 39;
/// The display length MariaDB reports for such a result (max_allowed_packet times 4).
const LONG_BLOB_LENGTH: u32 = 67_108_864;
/// The most digits after the point FORMAT shows (MariaDB's FORMAT_MAX_DECIMALS).
const FORMAT_DECIMALS_MAX: i64 = 38;
/// The digits before the point of the largest double, as FORMAT's result length counts them.
const DOUBLE_DIGITS_MAX: u32 = 310;
/// Bytes per line of TO_BASE64's output (MariaDB breaks lines there).
const BASE64_LINE_CHARS: usize = 76;

/// String functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrFn {
    Lpad,
    Rpad,
    Instr,
    Locate,
    Hex,
    Unhex,
    Ascii,
    Ord,
    Space,
    Field,
    Elt,
    FindInSet,
    SubstringIndex,
    Strcmp,
    Insert,
    BitLength,
    Quote,
    Format,
    Md5,
    Sha1,
    Sha2,
    Crc32,
    ToBase64,
    FromBase64,
    /// CHAR(n, ...): the bytes of each code.
    Char,
    /// `s REGEXP pattern` (and RLIKE): 1 or 0 (`funcs/regexp.rs`).
    Regexp,
    RegexpReplace,
    RegexpSubstr,
    RegexpInstr,
    /// `LIKE p ESCAPE 'c'` with a pattern that is not a constant: the pattern rewritten for
    /// each row into the backslash form `Expr::Like` reads (the compiler's own; no name calls
    /// it). Its second argument is the escape character, a constant.
    LikeEscape,
}

impl StrFn {
    /// The function a name calls, with its least and most arguments.
    pub(crate) fn from_name(name: &str) -> Option<(StrFn, usize, usize)> {
        use StrFn::*;
        Some(match name {
            "lpad" => (Lpad, 3, 3),
            "rpad" => (Rpad, 3, 3),
            "instr" => (Instr, 2, 2),
            "locate" => (Locate, 2, 3),
            "hex" => (Hex, 1, 1),
            "unhex" => (Unhex, 1, 1),
            "ascii" => (Ascii, 1, 1),
            "ord" => (Ord, 1, 1),
            "space" => (Space, 1, 1),
            "field" => (Field, 2, usize::MAX),
            "elt" => (Elt, 2, usize::MAX),
            "find_in_set" => (FindInSet, 2, 2),
            "substring_index" => (SubstringIndex, 3, 3),
            "strcmp" => (Strcmp, 2, 2),
            "insert" => (Insert, 4, 4),
            "bit_length" => (BitLength, 1, 1),
            "quote" => (Quote, 1, 1),
            "format" => (Format, 2, 2),
            "md5" => (Md5, 1, 1),
            "sha1" | "sha" => (Sha1, 1, 1),
            "sha2" => (Sha2, 2, 2),
            "crc32" => (Crc32, 1, 1),
            "to_base64" => (ToBase64, 1, 1),
            "from_base64" => (FromBase64, 1, 1),
            "char" => (Char, 1, usize::MAX),
            "regexp_replace" => (RegexpReplace, 3, 3),
            "regexp_substr" => (RegexpSubstr, 2, 2),
            "regexp_instr" => (RegexpInstr, 2, 2),
            _ => return None,
        })
    }

    /// Whether the result is a binary string (MariaDB sends it with the binary collation).
    pub(crate) fn binary_result(self) -> bool {
        matches!(self, StrFn::Unhex | StrFn::FromBase64 | StrFn::Char)
    }
}

fn text(v: &Value) -> Vec<u8> {
    value_text(v).unwrap_or_default()
}

fn string(s: String) -> Value {
    Value::Bytes(s.into_bytes())
}

/// A LIKE pattern whose escape character is `escape` in the backslash form LIKE reads: the
/// character after an escape stands for itself (an escape at the end, too), a backslash is
/// an ordinary character.
pub(crate) fn backslash_pattern(pattern: &str, escape: Option<char>) -> String {
    let mut out = String::with_capacity(pattern.len() + 4);
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if Some(c) == escape {
            out.push('\\');
            out.push(chars.next().unwrap_or(c));
        } else if c == '\\' {
            out.push_str("\\\\");
        } else {
            out.push(c);
        }
    }
    out
}

/// The characters of a string as byte ranges (invalid UTF-8 bytes count as one character each,
/// as base's collations weigh them).
fn char_bounds(b: &[u8]) -> Vec<usize> {
    let mut bounds = Vec::with_capacity(b.len() + 1);
    let mut i = 0;
    while i < b.len() {
        bounds.push(i);
        i += utf8_width(&b[i..]);
    }
    bounds.push(b.len());
    bounds
}

/// The byte length of the character at the start of `b` (1 for an invalid sequence).
fn utf8_width(b: &[u8]) -> usize {
    let width = match b.first() {
        Some(x) if *x < 0x80 => return 1,
        Some(x) if *x >> 5 == 0b110 => 2,
        Some(x) if *x >> 4 == 0b1110 => 3,
        Some(x) if *x >> 3 == 0b11110 => 4,
        _ => return 1,
    };
    match b.get(..width).map(std::str::from_utf8) {
        Some(Ok(_)) => width,
        _ => 1,
    }
}

/// The weight of each character under collation `c` (utf8mb4_general_ci: case- and
/// accent-insensitive, from base's collation; `_bin`: the code point; binary: each byte); a
/// space weighs as itself (no PAD SPACE trimming inside a search).
fn weights(b: &[u8], c: Collation) -> Vec<u32> {
    if c == Collation::Binary {
        return b.iter().map(|x| u32::from(*x)).collect();
    }
    let folds = c.weighs_as() == Collation::Utf8mb4GeneralCi;
    let bounds = char_bounds(b);
    let mut key = Vec::new();
    bounds
        .windows(2)
        .map(|w| {
            let ch = &b[w[0]..w[1]];
            if let [ascii] = ch {
                if *ascii < 0x80 {
                    return u32::from(if folds {
                        ascii.to_ascii_uppercase()
                    } else {
                        *ascii
                    });
                }
            }
            if !folds {
                return std::str::from_utf8(ch)
                    .ok()
                    .and_then(|s| s.chars().next())
                    .map_or(0xFFFD, |x| x as u32);
            }
            key.clear();
            collation::sort_key(ch, c, &mut key);
            key.iter().fold(0u32, |w, b| (w << 8) | u32::from(*b))
        })
        .collect()
}

/// The 0-based character position of the first match of `needle` in `haystack` at or after
/// character `from`, comparing characters by weight.
fn find_chars(haystack: &[u32], needle: &[u32], from: usize) -> Option<usize> {
    if needle.is_empty() {
        return (from <= haystack.len()).then_some(from);
    }
    if needle.len() > haystack.len() {
        return None;
    }
    (from..=haystack.len() - needle.len()).find(|&i| haystack[i..i + needle.len()] == *needle)
}

/// LOCATE(needle, haystack[, start]) as MariaDB computes it: 1-based character positions, 0
/// when absent or when start is out of range (compared with the byte length, as MariaDB does).
fn locate(needle: &[u8], haystack: &[u8], start: Option<i64>, c: Collation) -> i64 {
    let from = match start {
        None => 0,
        Some(s) if s <= 0 || s > haystack.len() as i64 => return 0,
        Some(s) => (s - 1) as usize,
    };
    let h = weights(haystack, c);
    if from > h.len() {
        return 0;
    }
    if needle.is_empty() {
        // MariaDB answers the byte offset of the start here, not its character position.
        return match start {
            Some(_) => char_bounds(haystack).get(from).map_or(0, |b| *b as i64 + 1),
            None => 1,
        };
    }
    match find_chars(&h, &weights(needle, c), from) {
        Some(i) => i as i64 + 1,
        None => 0,
    }
}

/// LPAD or RPAD (`left`): the string cut or padded to `count` characters; NULL for a negative
/// count, an empty pad that would be needed, or a result above the limit.
fn pad(s: &[u8], count: i64, pad: &[u8], left: bool) -> Option<Vec<u8>> {
    if count < 0 {
        return None;
    }
    let count = count.min(i64::from(i32::MAX)) as usize;
    let bounds = char_bounds(s);
    let length = bounds.len() - 1;
    if count <= length {
        return Some(s[..bounds[count]].to_vec());
    }
    // MariaDB reserves 4 bytes per character (utf8mb4) when checking max_allowed_packet.
    if count.saturating_mul(4) > STRING_RESULT_BYTES_MAX {
        return None;
    }
    let pad_bounds = char_bounds(pad);
    let pad_length = pad_bounds.len() - 1;
    if pad_length == 0 {
        return None;
    }
    let missing = count - length;
    let mut filler = pad.repeat(missing / pad_length);
    filler.extend_from_slice(&pad[..pad_bounds[missing % pad_length]]);
    Some(if left {
        [filler, s.to_vec()].concat()
    } else {
        [s.to_vec(), filler].concat()
    })
}

/// HEX of a number: the two's complement of the BIGINT it rounds to; beyond BIGINT UNSIGNED's
/// range all ones, as MariaDB.
fn hex_number(v: &Value) -> String {
    let bits: u64 = match v {
        Value::Int(i) => *i as u64,
        Value::UInt(u) => *u,
        other => {
            let x = dbl(num(other));
            if x.is_nan() || x <= i64::MIN as f64 || x >= u64::MAX as f64 {
                u64::MAX
            } else {
                let r = x + if x > 0.0 { 0.5 } else { -0.5 };
                if r < 0.0 {
                    (r as i64) as u64
                } else {
                    r as u64
                }
            }
        }
    };
    format!("{bits:X}")
}

fn unhex(s: &[u8]) -> Option<Vec<u8>> {
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(s.len() / 2 + 1);
    let (first, rest) = s.split_at(s.len() % 2);
    if let [c] = first {
        out.push(digit(*c)?);
    }
    for pair in rest.chunks_exact(2) {
        out.push(digit(pair[0])? << 4 | digit(pair[1])?);
    }
    Some(out)
}

/// ORD: the bytes of the first character as one big-endian number.
fn ord(s: &[u8]) -> i64 {
    let width = utf8_width(s).min(s.len());
    s[..width]
        .iter()
        .fold(0i64, |n, b| (n << 8) | i64::from(*b))
}

/// FIELD's comparison: as strings under the collation when every value is a string, else as
/// numbers (MariaDB compares mixed arguments as doubles).
fn field(v: &[Value], c: Collation) -> i64 {
    let target = &v[0];
    if target.is_null() {
        return 0;
    }
    let strings = v.iter().all(|x| matches!(x, Value::Bytes(_) | Value::Null));
    for (i, x) in v.iter().enumerate().skip(1) {
        let equal = match (target, x) {
            (_, Value::Null) => false,
            (Value::Bytes(a), Value::Bytes(b)) if strings => collation::compare(a, b, c).is_eq(),
            (a, b) => dbl(num(a)) == dbl(num(b)),
        };
        if equal {
            return i as i64;
        }
    }
    0
}

/// FIND_IN_SET: the 1-based position of `s` in the comma-separated `list`, compared without
/// PAD SPACE; 0 when absent, when the list is empty or when `s` holds a comma.
fn find_in_set(s: &[u8], list: &[u8], c: Collation) -> i64 {
    if list.is_empty() || s.contains(&b',') {
        return 0;
    }
    let want = weights(s, c);
    list.split(|b| *b == b',')
        .position(|item| weights(item, c) == want)
        .map_or(0, |i| i as i64 + 1)
}

/// SUBSTRING_INDEX: the text before the `count`th delimiter (from the right when negative),
/// matched byte for byte (case-sensitively) as MariaDB does.
fn substring_index(s: &[u8], delimiter: &[u8], count: i64) -> Vec<u8> {
    if delimiter.is_empty() || count == 0 {
        return Vec::new();
    }
    let d = delimiter.len();
    if count > 0 {
        let mut at = 0;
        let mut seen = 0;
        while at + d <= s.len() {
            if &s[at..at + d] == delimiter {
                seen += 1;
                if seen == count {
                    return s[..at].to_vec();
                }
                at += d;
            } else {
                at += 1;
            }
        }
        s.to_vec()
    } else {
        let mut end = s.len();
        let mut seen = 0;
        while end >= d {
            let at = end - d;
            if &s[at..end] == delimiter {
                seen += 1;
                if seen == count.unsigned_abs() {
                    return s[end..].to_vec();
                }
                end = at;
            } else {
                end -= 1;
            }
        }
        s.to_vec()
    }
}

/// INSERT(s, pos, len, new): `len` characters from `pos` replaced by `new`; `s` itself when pos
/// is outside it; a negative or too long `len` replaces the rest.
fn insert(s: &[u8], pos: i64, len: i64, new: &[u8]) -> Option<Vec<u8>> {
    let bounds = char_bounds(s);
    let length = (bounds.len() - 1) as i64;
    if pos < 1 || pos > length {
        return Some(s.to_vec());
    }
    let start = (pos - 1) as usize;
    let len = if len < 0 || len > length { length } else { len };
    let end = (start as i64 + len).min(length) as usize;
    let out = [&s[..bounds[start]], new, &s[bounds[end]..]].concat();
    (out.len() <= STRING_RESULT_BYTES_MAX).then_some(out)
}

fn quote(s: Option<&[u8]>) -> Vec<u8> {
    let Some(s) = s else {
        return b"NULL".to_vec();
    };
    let mut out = Vec::with_capacity(s.len() + 2);
    out.push(b'\'');
    for &b in s {
        match b {
            b'\\' | b'\'' => out.extend_from_slice(&[b'\\', b]),
            0 => out.extend_from_slice(b"\\0"),
            0x1A => out.extend_from_slice(b"\\Z"),
            _ => out.push(b),
        }
    }
    out.push(b'\'');
    out
}

/// Digits with ',' between each group of three, keeping a leading '-'.
fn group_thousands(digits: &str) -> String {
    let (sign, digits) = match digits.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", digits),
    };
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    out.push_str(sign);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// FORMAT(x, d): x rounded to d decimals (exact numbers half away from zero, doubles half to
/// even as rint), with thousands separators.
fn format_number(x: &Value, decimals: i64) -> String {
    let decimals = decimals.clamp(0, FORMAT_DECIMALS_MAX) as u8;
    let plain = match num(x) {
        n @ (Num::Int(_) | Num::Dec(_)) if !matches!(x, Value::Bytes(_)) => {
            let d = match n {
                Num::Int(i) => Decimal::new(i, 0),
                Num::Dec(d) => d,
                Num::Dbl(_) => unreachable!("matched above"),
            };
            if decimals >= d.scale {
                // Padding with zeros as text: the mantissa may not hold 38 more digits.
                let mut t = d.to_string();
                if d.scale == 0 && decimals > 0 {
                    t.push('.');
                }
                t.extend(std::iter::repeat_n('0', usize::from(decimals - d.scale)));
                t
            } else {
                d.rescale(decimals).unwrap_or(d).to_string()
            }
        }
        n => {
            let x = dbl(n);
            let p = 10f64.powi(i32::from(decimals));
            let scaled = x * p;
            let rounded = if scaled.is_infinite() {
                x
            } else {
                scaled.round_ties_even() / p
            };
            format!("{:.*}", usize::from(decimals), rounded)
        }
    };
    // A value that rounds to zero shows no sign, as MariaDB.
    let plain = match plain.strip_prefix('-') {
        Some(rest) if rest.bytes().all(|b| b == b'0' || b == b'.') => rest.to_string(),
        _ => plain,
    };
    let (whole, fraction) = match plain.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (plain.as_str(), None),
    };
    let mut out = group_thousands(whole);
    if let Some(f) = fraction {
        out.push('.');
        out.push_str(f);
    }
    out
}

fn lower_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn sha2(s: &[u8], bits: i64) -> Option<String> {
    use sha2::Digest;
    Some(match bits {
        0 | 256 => lower_hex(&sha2::Sha256::digest(s)),
        224 => lower_hex(&sha2::Sha224::digest(s)),
        384 => lower_hex(&sha2::Sha384::digest(s)),
        512 => lower_hex(&sha2::Sha512::digest(s)),
        _ => return None,
    })
}

fn to_base64(s: &[u8]) -> Option<Vec<u8>> {
    use base64::Engine;
    let encoded = base64::engine::general_purpose::STANDARD.encode(s);
    let lines: Vec<&[u8]> = encoded.as_bytes().chunks(BASE64_LINE_CHARS).collect();
    let out = lines.join(&b'\n');
    (out.len() <= STRING_RESULT_BYTES_MAX).then_some(out)
}

/// FROM_BASE64: whitespace is skipped; bad characters or missing padding give NULL.
fn from_base64(s: &[u8]) -> Option<Vec<u8>> {
    use base64::Engine;
    let compact: Vec<u8> = s
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    let engine = base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new().with_decode_allow_trailing_bits(true),
    );
    engine.decode(compact).ok()
}

pub(crate) fn call(f: StrFn, args: &[Expr], env: &Env, c: Collation) -> Result<Value> {
    use StrFn::*;
    let v: Vec<Value> = args.iter().map(|a| a.eval(env)).collect::<Result<_>>()?;
    // Functions with their own NULL rules; the rest are NULL when any argument is.
    match f {
        Field => return Ok(Value::Int(field(&v, c))),
        Elt => {
            let n = if v[0].is_null() { 0 } else { int_arg(&v[0]) };
            return Ok(match usize::try_from(n) {
                Ok(i) if i >= 1 => v.get(i).map_or(Value::Null, |x| match value_text(x) {
                    Some(t) => Value::Bytes(t),
                    None => Value::Null,
                }),
                _ => Value::Null,
            });
        }
        Quote => {
            let quoted = quote(value_text(&v[0]).as_deref());
            return Ok(if quoted.len() > STRING_RESULT_BYTES_MAX {
                Value::Null
            } else {
                Value::Bytes(quoted)
            });
        }
        // Each code's low 32 bits, without leading zero bytes (0 is one zero byte); NULLs
        // are skipped.
        Char => {
            let mut out = Vec::with_capacity(v.len());
            for code in v.iter().filter(|x| !x.is_null()) {
                let n = int_arg(code) as u32;
                let bytes = n.to_be_bytes();
                let skip = (n.leading_zeros() / 8).min(3) as usize;
                out.extend_from_slice(&bytes[skip..]);
            }
            return Ok(Value::Bytes(out));
        }
        Sha2 => {
            if v[0].is_null() {
                return Ok(Value::Null);
            }
            // A NULL length reads as 0, which means 256.
            let bits = if v[1].is_null() { 0 } else { int_arg(&v[1]) };
            return Ok(sha2(&text(&v[0]), bits).map_or(Value::Null, string));
        }
        _ => {}
    }
    if v.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let bytes = |o: Option<Vec<u8>>| o.map_or(Value::Null, Value::Bytes);
    Ok(match f {
        Lpad | Rpad => bytes(pad(&text(&v[0]), int_arg(&v[1]), &text(&v[2]), f == Lpad)),
        Instr => Value::Int(locate(&text(&v[1]), &text(&v[0]), None, c)),
        Locate => Value::Int(locate(&text(&v[0]), &text(&v[1]), v.get(2).map(int_arg), c)),
        Hex => match &v[0] {
            Value::Int(_)
            | Value::UInt(_)
            | Value::Decimal(_)
            | Value::Double(_)
            | Value::Float(_) => string(hex_number(&v[0])),
            other => {
                let t = text(other);
                if t.len().saturating_mul(2) > STRING_RESULT_BYTES_MAX {
                    return Ok(Value::Null);
                }
                string(t.iter().map(|b| format!("{b:02X}")).collect())
            }
        },
        Unhex => bytes(unhex(&text(&v[0]))),
        Ascii => Value::Int(text(&v[0]).first().map_or(0, |b| i64::from(*b))),
        Ord => Value::Int(ord(&text(&v[0]))),
        Space => {
            let n = int_arg(&v[0]).max(0);
            if n > STRING_RESULT_BYTES_MAX as i64 {
                return Ok(Value::Null);
            }
            Value::Bytes(vec![b' '; n as usize])
        }
        FindInSet => Value::Int(find_in_set(&text(&v[0]), &text(&v[1]), c)),
        SubstringIndex => Value::Bytes(substring_index(&text(&v[0]), &text(&v[1]), int_arg(&v[2]))),
        Strcmp => Value::Int(match collation::compare(&text(&v[0]), &text(&v[1]), c) {
            std::cmp::Ordering::Less => -1,
            std::cmp::Ordering::Equal => 0,
            std::cmp::Ordering::Greater => 1,
        }),
        Insert => bytes(insert(
            &text(&v[0]),
            int_arg(&v[1]),
            int_arg(&v[2]),
            &text(&v[3]),
        )),
        BitLength => Value::Int(text(&v[0]).len() as i64 * 8),
        Format => string(format_number(&v[0], int_arg(&v[1]))),
        Md5 => {
            use md5::Digest;
            string(lower_hex(&md5::Md5::digest(text(&v[0]))))
        }
        Sha1 => {
            use sha1::Digest;
            string(lower_hex(&sha1::Sha1::digest(text(&v[0]))))
        }
        Crc32 => Value::Int(i64::from(crc32fast::hash(&text(&v[0])))),
        ToBase64 => bytes(to_base64(&text(&v[0]))),
        FromBase64 => bytes(from_base64(&text(&v[0]))),
        Regexp => Value::Int(i64::from(
            super::regexp::compiled(&text(&v[1]), c)?.is_match(&text(&v[0])),
        )),
        RegexpReplace => {
            let r = super::regexp::compiled(&text(&v[1]), c)?;
            bytes(Some(super::regexp::replace(&text(&v[0]), &r, &text(&v[2]))))
        }
        RegexpSubstr => {
            let r = super::regexp::compiled(&text(&v[1]), c)?;
            let subject = text(&v[0]);
            Value::Bytes(
                r.find(&subject)
                    .map_or(Vec::new(), |m| m.as_bytes().to_vec()),
            )
        }
        RegexpInstr => {
            let r = super::regexp::compiled(&text(&v[1]), c)?;
            Value::Int(super::regexp::instr(&text(&v[0]), &r))
        }
        LikeEscape => {
            let escape = std::str::from_utf8(&text(&v[1]))
                .ok()
                .and_then(|t| t.chars().next());
            let pattern = String::from_utf8_lossy(&text(&v[0])).into_owned();
            string(backslash_pattern(&pattern, escape))
        }
        Field | Elt | Quote | Sha2 | Char => unreachable!("handled above"),
    })
}

/// The result type MariaDB reports: (type code, display length, decimals).
pub(crate) fn result_type(
    f: StrFn,
    args: &[Expr],
    arg_type: &dyn Fn(&Expr) -> (u8, u32, u8),
) -> (u8, u32, u8) {
    use StrFn::*;
    // An argument's length in characters as MariaDB counts it: a string's display length is
    // 4 bytes per character, a number's its digits.
    let chars = |i: usize| -> u32 {
        args.get(i).map_or(0, |a| {
            let t = arg_type(a);
            match t.0 {
                types::VAR_STRING
                | types::STRING
                | types::VARCHAR
                | types::BLOB
                | types::LONG_BLOB => t.1 / 4,
                _ => t.1,
            }
        })
    };
    let constant = |i: usize| args.get(i).and_then(super::constant_int);
    let text_of = |n: u32| (types::VAR_STRING, n.saturating_mul(4), STRING_DECIMALS);
    match f {
        Lpad | Rpad => match constant(1) {
            Some(n) => text_of(n.clamp(0, i64::from(u32::MAX / 4)) as u32),
            None => (types::LONG_BLOB, LONG_BLOB_LENGTH, STRING_DECIMALS),
        },
        Space => match constant(0) {
            Some(n) => text_of(n.clamp(0, i64::from(u32::MAX / 4)) as u32),
            None => (types::LONG_BLOB, LONG_BLOB_LENGTH, STRING_DECIMALS),
        },
        Instr | Locate => (types::LONG, 11, 0),
        Ascii => (types::LONG, 3, 0),
        Ord => (types::LONG, 7, 0),
        Field | FindInSet => (types::LONG, 3, 0),
        Strcmp => (types::LONG, 2, 0),
        Crc32 => (types::LONG, 10, 0),
        BitLength => (types::LONGLONG, 11, 0),
        Hex => match args.first().map(arg_type) {
            Some((types::VAR_STRING | types::STRING | types::VARCHAR | types::BLOB, n, _)) => {
                (types::VAR_STRING, n.saturating_mul(8), 0)
            }
            _ => (types::VAR_STRING, 64, 0),
        },
        Unhex => (types::VAR_STRING, chars(0).saturating_mul(2), 0),
        Elt => text_of((1..args.len()).map(chars).max().unwrap_or(0)),
        SubstringIndex => text_of(chars(0)),
        Insert => text_of(chars(0).saturating_add(chars(3))),
        Quote => text_of(chars(0).saturating_mul(2).saturating_add(2)),
        LikeEscape => text_of(chars(0).saturating_mul(2)),
        Format => {
            let decimals =
                constant(1).map_or(FORMAT_DECIMALS_MAX, |d| d.clamp(0, FORMAT_DECIMALS_MAX)) as u32;
            // Digits before the point (with the sign's place), as MariaDB counts them.
            let digits = match args.first().map(arg_type) {
                Some((types::NEWDECIMAL, n, scale)) => n.saturating_sub(u32::from(scale) + 1),
                Some((
                    types::TINY | types::SHORT | types::INT24 | types::LONG | types::LONGLONG,
                    n,
                    _,
                )) => n.saturating_sub(1),
                _ => DOUBLE_DIGITS_MAX,
            };
            let separators = digits / 3 + u32::from(decimals > 0) + 1;
            text_of(digits.saturating_add(separators).saturating_add(decimals))
        }
        Md5 => text_of(32),
        Sha1 => text_of(40),
        Sha2 => match args.get(1) {
            Some(Expr::Const(Value::Int(0 | 256)) | Expr::Const(Value::Null)) => text_of(64),
            Some(Expr::Const(Value::Int(b @ (224 | 384 | 512)))) => text_of(*b as u32 / 4),
            Some(Expr::Const(_)) => text_of(0),
            _ => text_of(128),
        },
        ToBase64 => {
            let n = chars(0).saturating_mul(4);
            let encoded = n.div_ceil(3).saturating_mul(4);
            text_of(encoded.saturating_add(encoded / BASE64_LINE_CHARS as u32))
        }
        Char => (types::VAR_STRING, 4 * args.len() as u32, STRING_DECIMALS),
        Regexp => (types::LONG, 1, 0),
        RegexpInstr => (types::LONG, 11, 0),
        RegexpSubstr => text_of(chars(0)),
        RegexpReplace => (types::LONG_BLOB, LONG_BLOB_LENGTH, STRING_DECIMALS),
        FromBase64 => (
            types::VAR_STRING,
            chars(0).saturating_mul(3),
            STRING_DECIMALS,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: Collation = Collation::Utf8mb4GeneralCi;

    #[test]
    fn pads_in_characters_and_bounds_the_result() {
        assert_eq!(pad(b"ab", 5, b"xy", true).unwrap(), b"xyxab");
        assert_eq!(pad(b"ab", 5, b"xy", false).unwrap(), b"abxyx");
        assert_eq!(
            pad("é".as_bytes(), 3, "ü".as_bytes(), true).unwrap(),
            "üüé".as_bytes()
        );
        assert_eq!(pad(b"abc", 2, b"", true).unwrap(), b"ab");
        assert_eq!(pad(b"abc", 5, b"", true), None);
        assert_eq!(pad(b"a", -1, b"x", true), None);
        assert_eq!(pad(b"a", i64::MAX, b"x", true), None);
        assert_eq!(
            pad(b"a", 4_194_304, b"x", true).map(|v| v.len()),
            Some(4_194_304)
        );
        assert_eq!(pad(b"a", 4_194_305, b"x", true), None);
    }

    #[test]
    fn locates_case_insensitively_in_characters() {
        assert_eq!(locate(b"B", b"abc", None, G), 2);
        assert_eq!(locate("é".as_bytes(), "aÉé".as_bytes(), None, G), 2);
        assert_eq!(locate(b"b", b"abcb", Some(3), G), 4);
        assert_eq!(locate(b"b", b"abcb", Some(0), G), 0);
        assert_eq!(locate(b"b", b"abcb", Some(-1), G), 0);
        assert_eq!(locate(b"", b"abc", Some(3), G), 3);
        assert_eq!(locate(b"", b"abc", Some(4), G), 0);
        assert_eq!(locate(b"", b"", None, G), 1);
        assert_eq!(locate(b"", "éé".as_bytes(), Some(3), G), 5);
        assert_eq!(locate(b"abcd", b"abc", None, G), 0);
        assert_eq!(locate(b"b", b"abc", Some(i64::MAX), G), 0);
    }

    #[test]
    fn lists() {
        let s = |x: &str| Value::Bytes(x.as_bytes().to_vec());
        assert_eq!(field(&[s("B"), s("a"), s("b")], G), 2);
        assert_eq!(field(&[Value::Null, s("a"), Value::Null], G), 0);
        assert_eq!(field(&[s("1.0"), Value::Int(1)], G), 1);
        assert_eq!(find_in_set(b"B", b"a,b,c", G), 2);
        assert_eq!(find_in_set(b"", b"a,,b", G), 2);
        assert_eq!(find_in_set(b"b ", b"a,b", G), 0);
        assert_eq!(find_in_set(b"a,b", b"a,b", G), 0);
        assert_eq!(find_in_set(b"", b"", G), 0);
    }

    #[test]
    fn substring_index_counts_from_either_end() {
        assert_eq!(substring_index(b"a,b,c", b",", 2), b"a,b");
        assert_eq!(substring_index(b"a,b,c", b",", -2), b"b,c");
        assert_eq!(substring_index(b"a,b,c", b",", 5), b"a,b,c");
        assert_eq!(substring_index(b"a,b,c", b",", i64::MIN), b"a,b,c");
        assert_eq!(substring_index(b"a,b,c", b"", 1), b"");
        assert_eq!(substring_index(b"aXbxc", b"x", 1), b"aXb");
        assert_eq!(substring_index(b"a::b::c", b"::", -1), b"c");
    }

    #[test]
    fn insert_hex_ord_quote() {
        assert_eq!(insert(b"abcdef", 2, -1, b"X").unwrap(), b"aX");
        assert_eq!(insert(b"abcdef", 7, 2, b"X").unwrap(), b"abcdef");
        assert_eq!(insert(b"abcdef", 6, 2, b"X").unwrap(), b"abcdeX");
        assert_eq!(
            insert(b"abcdef", i64::MIN, i64::MAX, b"X").unwrap(),
            b"abcdef"
        );
        assert_eq!(hex_number(&Value::Int(-1)), "FFFFFFFFFFFFFFFF");
        assert_eq!(hex_number(&Value::Double(-1.5)), "FFFFFFFFFFFFFFFE");
        assert_eq!(hex_number(&Value::Double(2.5)), "3");
        assert_eq!(hex_number(&Value::Double(1e30)), "FFFFFFFFFFFFFFFF");
        assert_eq!(hex_number(&Value::Double(f64::NAN)), "FFFFFFFFFFFFFFFF");
        assert_eq!(unhex(b"414").unwrap(), [4, 0x14]);
        assert_eq!(unhex(b"zz"), None);
        assert_eq!(ord("€".as_bytes()), 14_844_588);
        assert_eq!(ord(b""), 0);
        assert_eq!(ord(&[0xE2, 0x82]), 0xE2);
        assert_eq!(quote(Some(b"a'b\\\0")), b"'a\\'b\\\\\\0'");
        assert_eq!(quote(None), b"NULL");
    }

    #[test]
    fn formats_with_separators_and_rounding() {
        let d = |s: &str| Value::Decimal(Decimal::parse(s).unwrap());
        assert_eq!(format_number(&d("1234567.891"), 2), "1,234,567.89");
        assert_eq!(format_number(&d("2.5"), 0), "3");
        assert_eq!(format_number(&d("-1234567.456"), 2), "-1,234,567.46");
        assert_eq!(format_number(&Value::Double(0.5), 0), "0");
        assert_eq!(format_number(&d("12345.678"), -1), "12,346");
        assert_eq!(
            format_number(&Value::Double(1e20), 2),
            "100,000,000,000,000,000,000.00"
        );
        assert_eq!(format_number(&Value::Int(-123), 1), "-123.0");
        assert_eq!(format_number(&Value::Double(-0.4), 0), "0");
        assert_eq!(format_number(&Value::Double(-1e-10), 3), "0.000");
        assert!(format_number(&Value::Double(f64::MAX), 38).len() > 300);
        assert_eq!(
            format_number(&Value::Bytes(b"1234.5".to_vec()), 1),
            "1,234.5"
        );
    }

    #[test]
    fn digests_and_base64() {
        assert_eq!(sha2(b"", 100), None);
        assert_eq!(sha2(b"a", 0), sha2(b"a", 256));
        assert_eq!(
            to_base64(&[b'x'; 60])
                .unwrap()
                .iter()
                .filter(|b| **b == b'\n')
                .count(),
            1
        );
        assert_eq!(from_base64(b"YW Jj\n").unwrap(), b"abc");
        assert_eq!(from_base64(b"YQ"), None);
        assert_eq!(from_base64(b"!!"), None);
    }
}
