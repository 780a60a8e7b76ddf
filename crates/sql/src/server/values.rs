//! Values between Cairn and the MySQL protocol: a statement's parameters as COM_STMT_EXECUTE
//! sends them, and result rows out, as text (in the connection's results character set) or in
//! the binary protocol, with their column definitions.

use base::text::value_text;
use base::Value;
use myproto::binary::{BinaryRow, Param};
use myproto::response::{self, Column};

/// A column definition as the connection's results character set shows it.
pub(crate) fn encode_column(
    c: &Column,
    out: &mut Vec<u8>,
    charsets: &crate::foundation::charset::Charsets,
) {
    if charsets.results_as_stored() {
        return c.encode(out);
    }
    let text_collation = charsets.result_collation(45);
    let names = |s: &str| -> Vec<u8> { charsets.encode(s.as_bytes()).into_owned() };
    let names: Option<response::NameEncoder<'_>> = Some(&names);
    match charsets.results {
        // A text column's display length counts the results' bytes per character.
        Some(cs) if c.collation != crate::foundation::charset::BINARY_COLLATION_ID => {
            let mut shown = c.clone();
            // LONGTEXT's length is already the most a u32 holds, whatever the character set.
            if c.length != u32::MAX {
                shown.length = (c.length.div_ceil(4)).saturating_mul(cs.max_len() as u32);
            }
            shown.encode_in(out, text_collation, names);
        }
        _ => c.encode_in(out, text_collation, names),
    }
}

/// Appends `v` as a text-protocol value of column `c` (NULL as 0xFB): an integer's digits
/// and a string's bytes written in place, any other value through `value_text_as` and
/// `in_results`.
pub(crate) fn put_text_value(
    out: &mut Vec<u8>,
    v: &Value,
    c: &Column,
    charsets: &crate::foundation::charset::Charsets,
) {
    let plain = c.flags & response::flags::ZEROFILL == 0 && c.column_type != response::types::BIT;
    match v {
        Value::Null => out.push(0xFB),
        Value::Int(i) if plain => put_digits(out, i.unsigned_abs(), *i < 0),
        Value::UInt(u) if plain => put_digits(out, *u, false),
        Value::Bytes(b) if c.collation == crate::foundation::charset::BINARY_COLLATION_ID => {
            myproto::codec::put_lenenc_bytes(out, b)
        }
        Value::Bytes(b) => myproto::codec::put_lenenc_bytes(out, &charsets.encode(b)),
        _ => match value_text_as(v, c) {
            Some(text) => myproto::codec::put_lenenc_bytes(out, &in_results(text, c, charsets)),
            None => out.push(0xFB),
        },
    }
}

/// Appends an integer's decimal text (`negative`: with a minus sign) as a length-encoded string.
fn put_digits(out: &mut Vec<u8>, mut n: u64, negative: bool) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // At most 21 bytes: a one-byte length.
    out.push((digits.len() - at + usize::from(negative)) as u8);
    if negative {
        out.push(b'-');
    }
    out.extend_from_slice(&digits[at..]);
}

/// A text value of column `c` in the results character set (bytes of a binary column as
/// they are).
pub(crate) fn in_results(
    text: Vec<u8>,
    c: &Column,
    charsets: &crate::foundation::charset::Charsets,
) -> Vec<u8> {
    if c.collation == crate::foundation::charset::BINARY_COLLATION_ID {
        return text;
    }
    match charsets.encode(&text) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(o) => o,
    }
}

/// The parameters of an execute as values: a parameter the client typed as text (VARCHAR,
/// VAR_STRING, STRING, ENUM, SET) read in its character set, other bytes (a BLOB, long data)
/// as they came.
pub(crate) fn param_values(
    params: Vec<Param>,
    types: &[(u8, bool)],
    charsets: &crate::foundation::charset::Charsets,
) -> Vec<Value> {
    const ENUM: u8 = 0xF7;
    const SET: u8 = 0xF8;
    params
        .into_iter()
        .enumerate()
        .map(|(i, p)| match p {
            Param::Bytes(b)
                if types.get(i).is_some_and(|(t, _)| {
                    matches!(
                        *t,
                        response::types::VARCHAR
                            | response::types::VAR_STRING
                            | response::types::STRING
                            | ENUM
                            | SET
                    )
                }) =>
            {
                Value::Bytes(charsets.decode_bytes(b))
            }
            p => param_value(p),
        })
        .collect()
}

/// A parameter as a value.
pub(crate) fn param_value(p: Param) -> Value {
    use base::value::{Date, DateTime, Time};
    match p {
        Param::Null => Value::Null,
        Param::Int(i) => Value::Int(i),
        Param::UInt(u) => Value::UInt(u),
        Param::Float(f) => Value::Double(f as f64),
        Param::Double(d) => Value::Double(d),
        Param::Bytes(b) => Value::Bytes(b),
        Param::Date { year, month, day } => Value::Date(Date { year, month, day }),
        Param::DateTime {
            year,
            month,
            day,
            hour,
            minute,
            second,
            micros,
        } => Value::DateTime(DateTime {
            date: Date { year, month, day },
            hour,
            minute,
            second,
            microsecond: micros,
        }),
        Param::Time {
            negative,
            days,
            hours,
            minutes,
            seconds,
            micros,
        } => Value::Time(Time {
            negative,
            hours: (days * 24 + hours as u32).min(u16::MAX as u32) as u16,
            minutes,
            seconds,
            microseconds: micros,
        }),
    }
}

/// The decimals of a double whose precision is not declared (MySQL's NOT_FIXED_DEC).
pub(crate) const FLOAT_NOT_FIXED: u8 = 31;

/// A value's text in the text protocol; DECIMAL results show the column's scale, DATETIME and
/// TIME results its fractional digits.
pub(crate) fn value_text_as(v: &Value, c: &Column) -> Option<Vec<u8>> {
    use base::value::{DateTimeText, TimeText};
    let fsp = c.decimals.min(6);
    match v {
        Value::DateTime(dt)
            if matches!(
                c.column_type,
                response::types::DATETIME | response::types::TIMESTAMP
            ) =>
        {
            Some(DateTimeText(*dt, fsp).to_string().into_bytes())
        }
        Value::Time(t) if c.column_type == response::types::TIME => {
            Some(TimeText(*t, fsp).to_string().into_bytes())
        }
        // A BIT(n) value is its big-endian bytes, as many as n bits take.
        Value::UInt(n) if c.column_type == response::types::BIT => {
            let bytes = (c.length as usize).div_ceil(8).clamp(1, 8);
            Some(n.to_be_bytes()[8 - bytes..].to_vec())
        }
        // A ZEROFILL column's integers are padded with zeros to its display width.
        Value::Int(_) | Value::UInt(_) if c.flags & response::flags::ZEROFILL != 0 => value_text(v)
            .map(|t| {
                let width = c.length as usize;
                let mut padded = vec![b'0'; width.saturating_sub(t.len())];
                padded.extend_from_slice(&t);
                padded
            }),
        // A FLOAT(M,D) column's values show D decimals.
        Value::Float(x)
            if c.column_type == response::types::FLOAT && c.decimals < FLOAT_NOT_FIXED =>
        {
            Some(format!("{:.*}", usize::from(c.decimals), x).into_bytes())
        }
        // A double of declared precision (PI(), TRUNCATE(x, d)) shows that many decimals.
        Value::Double(x)
            if c.column_type == response::types::DOUBLE && c.decimals < FLOAT_NOT_FIXED =>
        {
            Some(format!("{:.*}", usize::from(c.decimals), x).into_bytes())
        }
        Value::Decimal(d)
            if c.column_type == response::types::NEWDECIMAL && d.scale < c.decimals =>
        {
            d.rescale(c.decimals)
                .map(|r| r.to_string().into_bytes())
                .or_else(|| value_text(v))
        }
        _ => value_text(v),
    }
}

/// One binary-protocol row: each value encoded as its column's type.
pub(crate) fn binary_row(
    out: &mut Vec<u8>,
    columns: &[Column],
    row: &[Value],
    charsets: &crate::foundation::charset::Charsets,
) {
    use crate::expr::as_double;
    use response::types;
    let mut w = BinaryRow::begin(out, columns.len());
    for (v, c) in row.iter().zip(columns) {
        if v.is_null() {
            w.null();
            continue;
        }
        match c.column_type {
            types::TINY
            | types::SHORT
            | types::YEAR
            | types::LONG
            | types::INT24
            | types::LONGLONG => {
                let i = match v {
                    Value::Int(i) => *i,
                    Value::UInt(u) => *u as i64,
                    Value::Year(y) => *y as i64,
                    other => as_double(other).round() as i64,
                };
                w.int(c.column_type, i);
            }
            types::FLOAT => w.float(as_double(v) as f32),
            types::DOUBLE => w.double(as_double(v)),
            types::DATE | types::DATETIME | types::TIMESTAMP => match v {
                Value::Date(d) => w.datetime(d.year, d.month, d.day, 0, 0, 0, 0),
                Value::DateTime(dt) => w.datetime(
                    dt.date.year,
                    dt.date.month,
                    dt.date.day,
                    dt.hour,
                    dt.minute,
                    dt.second,
                    dt.microsecond,
                ),
                other => w.bytes(&value_text(other).unwrap_or_default()),
            },
            types::TIME => match v {
                Value::Time(t) => w.time(
                    t.negative,
                    t.hours as u32 / 24,
                    (t.hours % 24) as u8,
                    t.minutes,
                    t.seconds,
                    t.microseconds,
                ),
                other => w.bytes(&value_text(other).unwrap_or_default()),
            },
            _ => w.bytes(&in_results(
                value_text_as(v, c).unwrap_or_default(),
                c,
                charsets,
            )),
        }
    }
}
