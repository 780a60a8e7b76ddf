//! Values between MySQL's text form and a column's type (HandlerSocket's fields, SQL's string
//! literals and text results): input is stored the way MySQL's
//! `Field::store` stores a string (numbers from their leading numeric part, rounded and clamped to
//! the column's range; strings cut to the column's length; no character-set conversion), output
//! is the text MySQL shows for the stored value; `store_strict` refuses what strict mode
//! would change to fit; `number_value` reads any value as MySQL's numeric context does.

use crate::schema::ColumnDef;
use crate::types::{ColumnType, LobSize};
use crate::Value;

/// The value `column` stores for `v`, as MySQL's `Field::store` makes it from the value's text
/// (a DOUBLE into an integer column rounded half to even, as C's rint: 2.5e0 stores 2, where
/// its text would round half away from zero, as a DECIMAL does): what an INSERT of `v` stores,
/// and what a column change across types makes of each value.
pub fn store(column: &ColumnDef, v: Value) -> Result<Value, String> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    let v = match v {
        Value::Double(x) if column.ty.is_integer() => Value::Double(x.round_ties_even()),
        v => v,
    };
    if matches!(column.ty, ColumnType::Enum | ColumnType::Set) {
        return member_value(column, &v);
    }
    if let (Some(d), ColumnType::Float | ColumnType::Double) = (column.scale, column.ty) {
        return scaled_float(column, v, d);
    }
    if matches!(column.ty, ColumnType::Bit { .. }) {
        // A number is itself in a BIT, not its digits' bytes.
        return v
            .coerce(column.ty, column.collation, &column.name)
            .map_err(|e| e.message);
    }
    let text = value_text(&v).unwrap_or_default();
    from_text(column, Some(&text))
}

/// The number an ENUM or SET column stores for `v`: a member's name (compared in the column's
/// collation, trailing spaces ignored; for a SET, names joined by commas, in any order, the
/// empty string none), or a number (an ENUM's member from 1, a SET's bits). Err for anything
/// else, as MySQL's "data truncated".
pub fn member_value(column: &ColumnDef, v: &Value) -> Result<Value, String> {
    let bad = || format!("data truncated for column '{}'", column.name);
    let find = |name: &[u8]| {
        let name = name.strip_suffix(b" ").map_or(name, |_| {
            let end = name.iter().rposition(|b| *b != b' ').map_or(0, |p| p + 1);
            &name[..end]
        });
        column.members.iter().position(|m| {
            crate::collation::compare(m.as_bytes(), name, column.collation)
                == std::cmp::Ordering::Equal
        })
    };
    let count = column.members.len() as u32;
    match (column.ty, v) {
        (ColumnType::Enum, Value::Bytes(b)) => {
            find(b).map(|i| Value::UInt(i as u64 + 1)).ok_or_else(bad)
        }
        (ColumnType::Set, Value::Bytes(b)) => {
            let mut bits = 0u64;
            if !b.is_empty() {
                for part in b.split(|c| *c == b',') {
                    bits |= 1 << find(part).ok_or_else(bad)?;
                }
            }
            Ok(Value::UInt(bits))
        }
        (_, Value::Null) => Ok(Value::Null),
        (ty, number) => {
            let n = match number {
                Value::Int(i) => i128::from(*i),
                Value::UInt(u) => i128::from(*u),
                Value::Decimal(_) | Value::Double(_) | Value::Float(_) => {
                    let f = value_text(number)
                        .and_then(|t| String::from_utf8_lossy(&t).parse::<f64>().ok())
                        .ok_or_else(bad)?;
                    f.round() as i128
                }
                _ => return Err(bad()),
            };
            let fits = match ty {
                ColumnType::Enum => (1..=i128::from(count)).contains(&n),
                _ => n >= 0 && (count >= 64 || n < 1i128 << count),
            };
            if fits {
                Ok(Value::UInt(n as u64))
            } else {
                Err(bad())
            }
        }
    }
}

/// A FLOAT(M,D) or DOUBLE(M,D) value: rounded to D digits after the point, out of range past
/// M digits in all (as MariaDB's 999.9999 for FLOAT(7,4)).
fn scaled_float(column: &ColumnDef, v: Value, d: u8) -> Result<Value, String> {
    let text = value_text(&v).unwrap_or_default();
    let plain = ColumnDef::new(&column.name, ColumnType::Double);
    let x = match from_text(&plain, Some(&text))? {
        Value::Double(x) => x,
        _ => return Err(format!("out of range value for column '{}'", column.name)),
    };
    let factor = 10f64.powi(i32::from(d));
    let rounded = (x * factor).round() / factor;
    let limit = 10f64.powi(i32::from(column.display_width) - i32::from(d));
    if !rounded.is_finite() || rounded.abs() >= limit {
        return Err(format!("out of range value for column '{}'", column.name));
    }
    Ok(match column.ty {
        ColumnType::Float => Value::Float(rounded as f32),
        _ => Value::Double(rounded),
    })
}

/// An ENUM's or SET's stored number as its text: the member's name, or the names of a SET's
/// bits joined by commas in the members' order; None for a value that is none of these.
pub fn member_text(column: &ColumnDef, v: &Value) -> Option<Vec<u8>> {
    let Value::UInt(n) = v else { return None };
    match column.ty {
        ColumnType::Enum if *n == 0 => Some(Vec::new()),
        ColumnType::Enum => column
            .members
            .get(*n as usize - 1)
            .map(|m| m.as_bytes().to_vec()),
        ColumnType::Set => Some(
            column
                .members
                .iter()
                .enumerate()
                .filter(|(i, _)| *i < 64 && n >> i & 1 == 1)
                .map(|(_, m)| m.as_str())
                .collect::<Vec<_>>()
                .join(",")
                .into_bytes(),
        ),
        _ => None,
    }
}

/// Why MySQL's strict mode refuses a value for a column (`store_strict`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// A date or time the column cannot read (MariaDB's 1292).
    BadTemporal,
    /// A number outside the column's range (1264).
    OutOfRange,
    /// A string longer than the column (1406).
    TooLong,
    /// Text that is not a number (1366).
    NotNumber,
    /// Text that only starts with a number (1265).
    Truncated,
    /// A character the column's character set lacks, at this byte of the value (1366).
    Repertoire(usize),
    /// No spatial value for a spatial column (1416).
    NotGeometry,
    /// A spatial value of another kind than the column's (1366).
    WrongGeometry,
    /// A spatial value with this SRID for a column declaring another (MySQL's 3643).
    WrongSrid(u32),
}

/// Why a spatial column refuses `v` (None: it takes it, or the column is no spatial one).
pub fn geometry_refusal(column: &ColumnDef, v: &Value) -> Option<Refusal> {
    let g = column.geometry?;
    let b = match v {
        Value::Null => return None,
        Value::Bytes(b) => b,
        _ => return Some(Refusal::NotGeometry),
    };
    let Some((kind, srid)) = crate::geometry::kind_and_srid(b) else {
        return Some(Refusal::NotGeometry);
    };
    if !g.kind.holds(kind) {
        return Some(Refusal::WrongGeometry);
    }
    match g.srid {
        Some(want) if srid != want => Some(Refusal::WrongSrid(srid)),
        _ => None,
    }
}

/// The value `column` stores for `v` under MySQL's strict mode (STRICT_TRANS_TABLES): what
/// `store` would change to fit is refused instead, and why. Rounding a number to the column's
/// scale is not a change; a string's trailing spaces may be cut.
pub fn store_strict(column: &ColumnDef, v: Value) -> Result<Value, Refusal> {
    use crate::types::{Charset, ColumnType as T};
    if v.is_null() {
        return Ok(Value::Null);
    }
    if let Some(why) = geometry_refusal(column, &v) {
        return Err(why);
    }
    if column.ty.is_string() {
        let charset = column.collation.charset();
        if let (Value::Bytes(b), Charset::Utf8mb4 | Charset::Utf8mb3) = (&v, charset) {
            // Bytes that are no UTF-8 (a hex or binary literal, or raw bytes a client sent) are
            // no text of the column's character set: MariaDB's 1366, at the first such byte.
            if let Err(e) = std::str::from_utf8(b) {
                return Err(Refusal::Repertoire(e.valid_up_to()));
            }
        }
        if let (Value::Bytes(b), Charset::Utf8mb3 | Charset::Latin1) = (&v, charset) {
            if let Ok(text) = std::str::from_utf8(b) {
                if let Some((at, _)) = text
                    .char_indices()
                    .find(|(_, c)| !crate::collation::holds(*c, charset))
                {
                    return Err(Refusal::Repertoire(at));
                }
            }
        }
    }
    let temporal = matches!(
        column.ty,
        T::Date | T::DateTime { .. } | T::Timestamp { .. } | T::Time { .. } | T::Year
    );
    let shown = value_text(&v).unwrap_or_default();
    let stored = match store(column, v.clone()) {
        Ok(s) => s,
        // A BIT takes bytes or a number no wider than it: MySQL's "too long".
        Err(_) if matches!(column.ty, T::Bit { .. }) => return Err(Refusal::TooLong),
        Err(_) if matches!(column.ty, T::Enum | T::Set) => return Err(Refusal::Truncated),
        // A YEAR takes numbers: one out of its range, or text that is none.
        Err(_) if column.ty == T::Year => {
            let number = value_text(&v)
                .is_some_and(|t| String::from_utf8_lossy(&t).trim().parse::<f64>().is_ok());
            return Err(if number {
                Refusal::OutOfRange
            } else {
                Refusal::NotNumber
            });
        }
        Err(_) if temporal => return Err(Refusal::BadTemporal),
        Err(_) if column.ty.is_string() => return Err(Refusal::TooLong),
        Err(_) if matches!(column.ty, T::Float | T::Double) => return Err(Refusal::OutOfRange),
        Err(_) => return Err(Refusal::NotNumber),
    };
    if column.ty.is_string() {
        let kept = value_text(&stored).unwrap_or_default();
        let longer = if matches!(
            column.ty,
            T::Binary { .. } | T::VarBinary { .. } | T::Blob { .. }
        ) {
            shown.len() > kept.len()
        } else {
            let given = String::from_utf8_lossy(&shown);
            given.trim_end_matches(' ').chars().count()
                > String::from_utf8_lossy(&kept).chars().count()
        };
        return if longer {
            Err(Refusal::TooLong)
        } else {
            Ok(stored)
        };
    }
    if temporal || matches!(column.ty, T::Bit { .. } | T::Enum | T::Set) {
        return Ok(stored);
    }
    if let Value::Bytes(b) = &v {
        let text = String::from_utf8_lossy(b);
        let text = text.trim();
        if text.parse::<f64>().is_err() {
            let starts_numeric = text
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit() || c == '-' || c == '+' || c == '.');
            return Err(if starts_numeric && number_value(&v) != 0.0 {
                Refusal::Truncated
            } else {
                Refusal::NotNumber
            });
        }
    }
    if let (T::Decimal { scale, .. }, Value::Decimal(kept), Some(given)) =
        (column.ty, &stored, exact_decimal(&v))
    {
        // Exact: the given number rounded to the column's scale is what was kept, else it
        // was clipped to the column's range (compared as doubles, 24 digits differ by more
        // than half a unit of the 12th decimal).
        return match given.rescale(scale) {
            Some(rounded) if rounded == *kept => Ok(stored),
            _ => Err(Refusal::OutOfRange),
        };
    }
    let unit = match column.ty {
        T::Decimal { scale, .. } => 10f64.powi(-(scale as i32)),
        T::Float | T::Double => return Ok(stored),
        _ => 1.0,
    };
    // Rounding to the column's scale loses at most half a unit; more is out of range.
    if (number_value(&v) - number_value(&stored)).abs() > unit * (0.5 + 1e-9) {
        return Err(Refusal::OutOfRange);
    }
    Ok(stored)
}

/// A number given exactly as a DECIMAL: an integer, a DECIMAL, or text holding a plain number
/// (no exponent); None for anything else, read as a double.
fn exact_decimal(v: &Value) -> Option<crate::value::Decimal> {
    use crate::value::Decimal;
    match v {
        Value::Int(i) => Some(Decimal::new(*i, 0)),
        Value::UInt(u) => Some(Decimal::new(*u, 0)),
        Value::Decimal(d) => Some(*d),
        Value::Bytes(b) => std::str::from_utf8(b).ok().and_then(Decimal::parse),
        _ => None,
    }
}

/// A value as a number, as MySQL reads one in a numeric context: text by its leading number,
/// a date as YYYYMMDD, a datetime as YYYYMMDDhhmmss.ffffff, a time as hhmmss.ffffff.
pub fn number_value(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::UInt(u) => *u as f64,
        Value::Double(d) => *d,
        Value::Float(f) => *f as f64,
        Value::Decimal(d) => d.to_f64(),
        Value::Null => 0.0,
        Value::Bytes(b) => leading_number(b),
        Value::Date(d) => (d.year as f64) * 10_000.0 + (d.month as f64) * 100.0 + d.day as f64,
        Value::DateTime(dt) => {
            let d = dt.date;
            let date = (d.year as f64) * 10_000.0 + (d.month as f64) * 100.0 + d.day as f64;
            date * 1_000_000.0
                + (dt.hour as f64) * 10_000.0
                + (dt.minute as f64) * 100.0
                + dt.second as f64
                + dt.microsecond as f64 / 1e6
        }
        Value::Time(t) => {
            let v = (t.hours as f64) * 10_000.0
                + (t.minutes as f64) * 100.0
                + t.seconds as f64
                + t.microseconds as f64 / 1e6;
            if t.negative {
                -v
            } else {
                v
            }
        }
        Value::Year(y) => *y as f64,
        Value::Parts(_) => 0.0,
    }
}

fn leading_number(b: &[u8]) -> f64 {
    let s = String::from_utf8_lossy(b);
    let s = s.trim_start();
    let bytes = s.as_bytes();
    let mut end = 0;
    let mut seen_digit = false;
    let mut seen_point = false;
    let mut seen_exp = false;
    while end < bytes.len() {
        let c = bytes[end];
        let ok = match c {
            b'0'..=b'9' => {
                seen_digit = true;
                true
            }
            b'+' | b'-' => end == 0 || matches!(bytes[end - 1], b'e' | b'E'),
            b'.' if !seen_point && !seen_exp => {
                seen_point = true;
                true
            }
            b'e' | b'E' if seen_digit && !seen_exp => {
                seen_exp = true;
                true
            }
            _ => false,
        };
        if !ok {
            break;
        }
        end += 1;
    }
    let mut text = &s[..end];
    while !text.is_empty() && text.parse::<f64>().is_err() {
        text = &text[..text.len() - 1];
    }
    text.parse().unwrap_or(0.0)
}

/// The value a column stores for `text` (None: NULL). Errors only where MySQL would store a
/// zero date, which Cairn does not hold (documented in docs/handlersocket.md).
pub fn from_text(column: &ColumnDef, text: Option<&[u8]>) -> Result<Value, String> {
    let Some(text) = text else {
        return Ok(Value::Null);
    };
    let v = match column.ty {
        ColumnType::TinyInt { unsigned }
        | ColumnType::SmallInt { unsigned }
        | ColumnType::MediumInt { unsigned }
        | ColumnType::Int { unsigned }
        | ColumnType::BigInt { unsigned } => {
            let (lo, hi) = int_range(column.ty, unsigned);
            let n = leading_integer(text).clamp(lo, hi);
            if unsigned {
                Value::UInt(n as u64)
            } else {
                Value::Int(n as i64)
            }
        }
        ColumnType::Float => Value::Float(leading_float(text) as f32),
        ColumnType::Double => Value::Double(leading_float(text)),
        ColumnType::Decimal { precision, scale } => {
            let mut number = leading_number_text(text);
            if number.iter().any(|b| *b == b'e' || *b == b'E') {
                // Decimal text has no exponent: write the number out.
                let f = leading_float(&number);
                number = format!("{f:.prec$}", prec = scale as usize + 1).into_bytes();
            }
            let candidate = Value::Bytes(if number.is_empty() {
                b"0".to_vec()
            } else {
                number
            });
            match candidate.coerce(column.ty, column.collation, &column.name) {
                Ok(v) => v,
                // Out of range: the largest (or smallest) value the column holds.
                Err(_) => {
                    let nines = "9".repeat(precision.saturating_sub(scale) as usize);
                    let frac = "9".repeat(scale as usize);
                    let max = if scale > 0 {
                        format!("{nines}.{frac}")
                    } else {
                        nines
                    };
                    let negative = text.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'-');
                    let text = if negative { format!("-{max}") } else { max };
                    Value::Bytes(text.into_bytes())
                }
            }
        }
        ColumnType::Char { length } | ColumnType::VarChar { length } => {
            Value::Bytes(cut_chars(text, length as usize))
        }
        ColumnType::Text { size } => Value::Bytes(cut_lob(text, size, |t, n| {
            if column.collation.is_latin1_text() {
                // Kept as UTF-8, counted in latin1's one byte per character.
                cut_chars(t, n)
            } else {
                cut_text_bytes(t, n)
            }
        })),
        ColumnType::Binary { length } | ColumnType::VarBinary { length } => {
            Value::Bytes(text[..text.len().min(length as usize)].to_vec())
        }
        ColumnType::Blob { size } => {
            Value::Bytes(cut_lob(text, size, |t, n| t[..n.min(t.len())].to_vec()))
        }
        ColumnType::Date
        | ColumnType::DateTime { .. }
        | ColumnType::Timestamp { .. }
        | ColumnType::Time { .. }
        | ColumnType::Year
        // Text into a BIT column is its bytes, big-endian, as MySQL stores it.
        | ColumnType::Bit { .. } => Value::Bytes(text.to_vec()),
        ColumnType::Enum | ColumnType::Set => {
            return member_value(column, &Value::Bytes(text.to_vec()));
        }
    };
    v.coerce(column.ty, column.collation, &column.name)
        .map_err(|e| e.message)
}

/// The text MySQL shows for a value (None: NULL).
pub fn value_text(value: &Value) -> Option<Vec<u8>> {
    Some(match value {
        Value::Null => return None,
        Value::Bytes(b) => b.clone(),
        Value::Int(i) => i.to_string().into_bytes(),
        Value::UInt(u) => u.to_string().into_bytes(),
        Value::Float(f) => float_text(*f as f64, 6).into_bytes(),
        Value::Double(d) => float_text(*d, 17).into_bytes(),
        other => other.to_string().into_bytes(),
    })
}

/// A float as MySQL prints it: the shortest text that reads back to the value, with at most
/// `digits` significant digits; in exponent form (`1e308`, `1.5e-16`) when the first digit's
/// power of ten is 15 or more or below -15, as MariaDB prints.
fn float_text(v: f64, digits: usize) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let shortest = format!("{v:e}");
    let significant = shortest
        .split('e')
        .next()
        .unwrap_or_default()
        .chars()
        .filter(|c| c.is_ascii_digit())
        .count();
    let v = if significant <= digits {
        v
    } else {
        format!("{:.*e}", digits - 1, v).parse().unwrap_or(v)
    };
    let exponent = format!("{v:e}");
    let power: i32 = exponent
        .split_once('e')
        .and_then(|(_, p)| p.parse().ok())
        .unwrap_or(0);
    if !(-15..15).contains(&power) {
        exponent
    } else {
        format!("{v}")
    }
}

fn int_range(ty: ColumnType, unsigned: bool) -> (i128, i128) {
    let bits = match ty {
        ColumnType::TinyInt { .. } => 8,
        ColumnType::SmallInt { .. } => 16,
        ColumnType::MediumInt { .. } => 24,
        ColumnType::Int { .. } => 32,
        _ => 64,
    };
    if unsigned {
        (0, (1i128 << bits) - 1)
    } else {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    }
}

/// The leading number of a string as MySQL reads it into an integer column: spaces, a sign,
/// digits, a fraction (rounded half away from zero) and an exponent; nothing numeric is 0.
fn leading_integer(text: &[u8]) -> i128 {
    let number = leading_number_text(text);
    let s = std::str::from_utf8(&number).unwrap_or("0");
    if s.contains(['e', 'E']) {
        let f: f64 = s.parse().unwrap_or(0.0);
        return f.round().clamp(-1e30, 1e30) as i128;
    }
    let (int_part, frac) = s.split_once('.').unwrap_or((s, ""));
    let negative = int_part.starts_with('-');
    let digits = int_part.trim_start_matches(['-', '+']);
    let mut n: i128 = 0;
    for d in digits.bytes() {
        n = (n * 10 + (d - b'0') as i128).min(1i128 << 100);
    }
    if frac.as_bytes().first().is_some_and(|d| *d >= b'5') {
        n += 1;
    }
    if negative {
        -n
    } else {
        n
    }
}

fn leading_float(text: &[u8]) -> f64 {
    let number = leading_number_text(text);
    std::str::from_utf8(&number)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.0)
}

/// The longest prefix (after leading spaces) that reads as a decimal number:
/// `[+-]digits[.digits][e[+-]digits]`.
fn leading_number_text(text: &[u8]) -> Vec<u8> {
    let start = text
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(text.len());
    let t = &text[start..];
    let mut i = 0;
    if matches!(t.first(), Some(b'+') | Some(b'-')) {
        i += 1;
    }
    let int_start = i;
    while t.get(i).is_some_and(|b| b.is_ascii_digit()) {
        i += 1;
    }
    let mut digits = i > int_start;
    if t.get(i) == Some(&b'.') {
        let mut j = i + 1;
        while t.get(j).is_some_and(|b| b.is_ascii_digit()) {
            j += 1;
        }
        if j > i + 1 || digits {
            digits |= j > i + 1;
            i = j;
        }
    }
    if !digits {
        return Vec::new();
    }
    if matches!(t.get(i), Some(b'e') | Some(b'E')) {
        let mut j = i + 1;
        if matches!(t.get(j), Some(b'+') | Some(b'-')) {
            j += 1;
        }
        let exp_start = j;
        while t.get(j).is_some_and(|b| b.is_ascii_digit()) {
            j += 1;
        }
        if j > exp_start {
            i = j;
        }
    }
    let mut out = t[..i].to_vec();
    if out.last() == Some(&b'.') {
        out.pop();
    }
    out
}

/// The first `chars` characters of UTF-8 text (bytes that are not UTF-8 count one each).
/// A TEXT or BLOB value cut (by `cut`, to a count of bytes) to the most its size holds. A size
/// Cairn holds less of than MySQL (MEDIUM, LONG) keeps the value whole, for the store to refuse
/// rather than cut what MySQL would keep.
fn cut_lob(text: &[u8], size: LobSize, cut: impl Fn(&[u8], usize) -> Vec<u8>) -> Vec<u8> {
    let declared = size.declared_bytes().min(usize::MAX as u64) as usize;
    if size.stored_bytes() < declared {
        return text.to_vec();
    }
    cut(text, declared)
}

/// The longest start of UTF-8 `text` of at most `bytes` bytes that ends on a character.
fn cut_text_bytes(text: &[u8], bytes: usize) -> Vec<u8> {
    let mut end = bytes.min(text.len());
    while end > 0 && end < text.len() && (text[end] & 0xC0) == 0x80 {
        end -= 1;
    }
    text[..end].to_vec()
}

fn cut_chars(text: &[u8], chars: usize) -> Vec<u8> {
    match std::str::from_utf8(text) {
        Ok(s) => s.chars().take(chars).collect::<String>().into_bytes(),
        Err(_) => text[..text.len().min(chars)].to_vec(),
    }
}

/// MySQL's 1062 text for a key's values: `Duplicate entry 'v1-v2' for key 'name'` (NULL as
/// `NULL`).
pub fn duplicate_entry<'a>(key: impl IntoIterator<Item = &'a Value>, index: &str) -> String {
    let values: Vec<String> = key
        .into_iter()
        .map(|v| {
            value_text(v).map_or_else(
                || "NULL".to_string(),
                |t| String::from_utf8_lossy(&t).into_owned(),
            )
        })
        .collect();
    format!("Duplicate entry '{}' for key '{index}'", values.join("-"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(ty: ColumnType) -> ColumnDef {
        ColumnDef::new("c", ty)
    }

    #[test]
    fn a_decimal_of_many_digits_is_kept_exactly_not_refused_as_out_of_range() {
        let column = col(ColumnType::Decimal {
            precision: 38,
            scale: 12,
        });
        // Compared as doubles, the given number and the one kept differ by more than half a
        // unit of the 12th decimal.
        for given in ["319438950232418390.273596", "-31943895023241839027.3596"] {
            let d = crate::value::Decimal::parse(given).unwrap();
            let kept = store_strict(&column, Value::Decimal(d)).unwrap();
            assert_eq!(kept, Value::Decimal(d.rescale(12).unwrap()), "{given}");
            let kept = store_strict(&column, Value::from(given)).unwrap();
            assert_eq!(kept, Value::Decimal(d.rescale(12).unwrap()), "{given}");
        }
        // Rounding is no change; a number past the column's range still is.
        let d = crate::value::Decimal::parse("1.0000000000005").unwrap();
        assert!(store_strict(&column, Value::Decimal(d)).is_ok());
        let wide = crate::value::Decimal::parse("123456789012345678901234567.5").unwrap();
        assert!(matches!(
            store_strict(&column, Value::Decimal(wide)),
            Err(Refusal::OutOfRange)
        ));
        assert!(matches!(
            store_strict(&column, Value::from("-123456789012345678901234567")),
            Err(Refusal::OutOfRange)
        ));
    }

    #[test]
    fn text_and_blob_values_are_cut_on_a_character_to_their_size() {
        let bytes = |v: Result<Value, String>| match v {
            Ok(Value::Bytes(b)) => b,
            other => panic!("{other:?}"),
        };
        let tiny = col(ColumnType::Text {
            size: LobSize::Tiny,
        });
        // 400 bytes of two-byte characters: 127 of them, not 255 bytes ending mid-character.
        let cut = bytes(from_text(&tiny, Some("é".repeat(200).as_bytes())));
        assert_eq!(cut, "é".repeat(127).as_bytes());
        // latin1 text is kept as UTF-8 and counted in latin1's one byte per character.
        let latin1 = tiny
            .clone()
            .collation(crate::types::Collation::Latin1TextSwedishCi);
        let cut = bytes(from_text(&latin1, Some("é".repeat(300).as_bytes())));
        assert_eq!(cut, "é".repeat(255).as_bytes());
        let blob = col(ColumnType::Blob {
            size: LobSize::Tiny,
        });
        assert_eq!(bytes(from_text(&blob, Some(&[7; 300]))), vec![7; 255]);
        // Past what Cairn holds of a LONGTEXT but within MySQL's size: refused rather than
        // cut, as MySQL would keep it whole.
        let long_text = col(ColumnType::Text {
            size: LobSize::Long,
        });
        let long = vec![b'x'; crate::limits::LOB_BYTES_MAX + 1];
        assert!(from_text(&long_text, Some(&long)).is_err());
        assert_eq!(bytes(from_text(&long_text, Some(&long[1..]))), &long[1..]);
    }

    #[test]
    fn numbers_are_stored_the_way_mysql_stores_strings() {
        let int = col(ColumnType::Int { unsigned: false });
        let cases: &[(&[u8], i64)] = &[
            (b"abc", 0),
            (b"99999999999", 2_147_483_647),
            (b"-3.7", -4),
            (b"3.4", 3),
            (b" 12x", 12),
            (b"1e3", 1000),
            (b"", 0),
            (b"-99999999999", -2_147_483_648),
        ];
        for (text, want) in cases {
            assert_eq!(
                from_text(&int, Some(text)),
                Ok(Value::Int(*want)),
                "{:?}",
                String::from_utf8_lossy(text)
            );
        }
        let tiny = col(ColumnType::TinyInt { unsigned: true });
        assert_eq!(from_text(&tiny, Some(b"-5")), Ok(Value::UInt(0)));
        assert_eq!(from_text(&tiny, Some(b"300")), Ok(Value::UInt(255)));
        assert_eq!(from_text(&int, None), Ok(Value::Null));
        let vc = col(ColumnType::VarChar { length: 3 });
        assert_eq!(
            from_text(&vc, Some("añbc".as_bytes())),
            Ok(Value::Bytes("añb".as_bytes().to_vec()))
        );
    }

    #[test]
    fn floats_print_as_mysql_shows_them() {
        assert_eq!(float_text(1.5, 6), "1.5");
        assert_eq!(float_text(2.718_281_7_f32 as f64, 6), "2.71828");
        assert_eq!(float_text(0.1, 17), "0.1");
        // MariaDB's exponent form from 1e15 and below 1e-15.
        assert_eq!(float_text(1e308, 17), "1e308");
        assert_eq!(float_text(1e15, 17), "1e15");
        assert_eq!(float_text(999_999_999_999_999.9, 17), "999999999999999.9");
        assert_eq!(
            float_text(12_345_678_901_234_567_890.0, 17),
            "1.2345678901234567e19"
        );
        assert_eq!(float_text(1e-15, 17), "0.000000000000001");
        assert_eq!(float_text(-1.5e-16, 17), "-1.5e-16");
        assert_eq!(float_text(1e20, 6), "1e20");
        assert_eq!(float_text(1_234_567.0, 6), "1234570");
    }
}
