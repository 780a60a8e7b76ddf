//! Values between MySQL's text form and a column's type (HandlerSocket's fields, SQL's string
//! literals and text results): input is stored the way MySQL's
//! `Field::store` stores a string (numbers from their leading numeric part, rounded and clamped to
//! the column's range; strings cut to the column's length; no character-set conversion), output
//! is the text MySQL shows for the stored value.

use crate::schema::ColumnDef;
use crate::types::ColumnType;
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
    let text = value_text(&v).unwrap_or_default();
    from_text(column, Some(&text))
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
                    let nines = "9".repeat((precision - scale) as usize);
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
        ColumnType::Text => Value::Bytes(text[..text.len().min(65_535)].to_vec()),
        ColumnType::Binary { length } | ColumnType::VarBinary { length } => {
            Value::Bytes(text[..text.len().min(length as usize)].to_vec())
        }
        ColumnType::Blob => Value::Bytes(text[..text.len().min(65_535)].to_vec()),
        ColumnType::Date
        | ColumnType::DateTime { .. }
        | ColumnType::Timestamp { .. }
        | ColumnType::Time { .. }
        | ColumnType::Year => Value::Bytes(text.to_vec()),
    };
    v.coerce(column.ty, column.collation, &column.name)
        .map_err(|e| e.message)
}

/// The text MySQL shows for a value (None: NULL).
pub fn value_text(value: &Value) -> Option<Vec<u8>> {
    Some(match value {
        Value::Null => return None,
        Value::Bytes(b) => b.clone(),
        Value::Float(f) => float_text(*f as f64, 6).into_bytes(),
        Value::Double(d) => float_text(*d, 17).into_bytes(),
        other => other.to_string().into_bytes(),
    })
}

/// A float as MySQL prints it: the shortest text that reads back to the value, with at most
/// `digits` significant digits.
fn float_text(v: f64, digits: usize) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let shortest = format!("{v}");
    let significant = shortest.chars().filter(|c| c.is_ascii_digit()).count();
    if significant <= digits {
        return shortest;
    }
    let formatted = format!("{:.*e}", digits - 1, v);
    let parsed: f64 = formatted.parse().unwrap_or(v);
    let plain = format!("{parsed}");
    plain
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
    }
}
