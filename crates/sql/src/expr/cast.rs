//! CAST and CONVERT: the types they convert to (MySQL's list) and the conversion itself, with
//! MySQL's rules (numbers round, text reads its leading number, a bad date is NULL, an
//! out-of-range DECIMAL clamps).

use base::text::value_text;
use base::types::Collation;
use base::value::{DateTimeText, Decimal, TimeText};
use base::Value;
use sqlparser::ast;

use crate::expr::{dbl, dec, num, Num, DECIMAL_SCALE_MAX};
use crate::foundation::error::SqlError;

type Result<T> = std::result::Result<T, SqlError>;

/// The types CAST and CONVERT convert to (MySQL's list).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CastTo {
    Signed,
    Unsigned,
    /// CHAR[(n)]: text, at most n characters.
    Char(Option<u32>),
    /// BINARY[(n)]: bytes, padded with zero bytes to n.
    Binary(Option<u32>),
    Date,
    DateTime(u8),
    Time(u8),
    Decimal(u8, u8),
    Double,
    /// CONVERT(e USING charset) to a character set other than utf8mb4 and binary: text in that
    /// set's default collation, a character it lacks becoming `?`.
    Charset(Collation),
    /// A string literal with a character set introducer (`_utf8mb3'x'`, `_binary'x'`): the
    /// literal itself, in that set's default collation.
    Introduced(Collation),
    /// A latin1 string's bytes in latin1 (values travel as UTF-8): what HEX(), MD5() and the
    /// other byte-level functions read of a latin1 argument, and CAST(... AS BINARY) makes.
    Latin1Bytes,
    /// JSON (MySQL 8's CAST(... AS JSON)): the text read as JSON and printed as MySQL
    /// normalizes it; text that is no JSON fails the statement (3141).
    Json,
    /// A DATETIME, TIMESTAMP or TIME value as text with this many fraction digits, as MySQL
    /// shows one where a string is wanted (CONCAT of a DATETIME(2) column gives `...:00.00`);
    /// any other value as its text.
    Shown(u8),
}

impl CastTo {
    pub(crate) fn of(t: &ast::DataType) -> Result<CastTo> {
        use ast::DataType as D;
        let small = |n: u64, max: u64, what: &str| {
            if n > max {
                Err(SqlError::new(
                    1426,
                    "42000",
                    format!("Too big precision {n} specified for '{what}'. Maximum is {max}"),
                ))
            } else {
                Ok(n as u8)
            }
        };
        Ok(match t {
            D::Signed | D::SignedInteger => CastTo::Signed,
            D::Unsigned | D::UnsignedInteger => CastTo::Unsigned,
            D::Char(None) => CastTo::Char(None),
            D::Char(Some(ast::CharacterLength::IntegerLength { length, .. })) => {
                CastTo::Char(Some((*length).min(u32::MAX as u64) as u32))
            }
            D::Binary(n) => CastTo::Binary(n.map(|n| n.min(u32::MAX as u64) as u32)),
            D::Date => CastTo::Date,
            D::Datetime(fsp) => CastTo::DateTime(small(fsp.unwrap_or(0), 6, "CAST")?),
            D::Time(fsp, _) => CastTo::Time(small(fsp.unwrap_or(0), 6, "CAST")?),
            D::Decimal(info) => {
                let (p, s) = match info {
                    ast::ExactNumberInfo::None => (10, 0),
                    ast::ExactNumberInfo::Precision(p) => (*p, 0),
                    ast::ExactNumberInfo::PrecisionAndScale(p, s) => (*p, (*s).max(0) as u64),
                };
                let p = small(p, 65, "CAST")?;
                let s = small(s, DECIMAL_SCALE_MAX as u64, "CAST")?;
                if s > p {
                    return Err(SqlError::new(
                        1427,
                        "42000",
                        "For float(M,D), double(M,D) or decimal(M,D), M must be >= D",
                    ));
                }
                CastTo::Decimal(p.max(1), s)
            }
            D::Double(_) | D::DoublePrecision | D::Real | D::Float(_) => CastTo::Double,
            D::JSON => CastTo::Json,
            other => return Err(SqlError::unsupported(format!("CAST to {other}"))),
        })
    }

    pub(crate) fn convert(self, v: Value) -> Value {
        use base::types::ColumnType as T;
        if v.is_null() {
            return Value::Null;
        }
        let text = || value_text(&v).unwrap_or_default();
        // An integer the way CAST makes one: numbers round, text reads its leading integer.
        let integer = || -> i128 {
            match &v {
                Value::Bytes(b) => {
                    let t = String::from_utf8_lossy(b);
                    let t = t.trim_start();
                    let end = t
                        .char_indices()
                        .find(|(i, c)| {
                            !(c.is_ascii_digit() || (*i == 0 && (*c == '-' || *c == '+')))
                        })
                        .map_or(t.len(), |(i, _)| i);
                    t[..end].parse::<i128>().unwrap_or(0)
                }
                other => match num(other) {
                    Num::Int(i) => i,
                    // Past i128 it is clamped below, as any integer past BIGINT's range.
                    Num::Dec(d) => d
                        .rescale(0)
                        .map_or(0, |d| base::value::saturating_i128(d.mantissa())),
                    Num::Dbl(f) => f.round() as i128,
                },
            }
        };
        let temporal = |ty: T| {
            base::text::from_text(&base::schema::ColumnDef::new("", ty), Some(&text()))
                .unwrap_or(Value::Null)
        };
        // A DECIMAL or a double past the target's range is clamped to it, as MariaDB does; an
        // integer or text wraps (its 64 bits read the other way).
        let fractional = matches!(&v, Value::Decimal(_) | Value::Double(_) | Value::Float(_));
        match self {
            CastTo::Signed if fractional => {
                Value::Int(integer().clamp(i64::MIN.into(), i64::MAX.into()) as i64)
            }
            CastTo::Unsigned if fractional => {
                Value::UInt(integer().clamp(0, u64::MAX.into()) as u64)
            }
            CastTo::Signed => {
                Value::Int(integer().clamp(i64::MIN as i128, u64::MAX as i128) as u64 as i64)
            }
            CastTo::Unsigned => {
                Value::UInt(integer().clamp(i64::MIN as i128, u64::MAX as i128) as i64 as u64)
            }
            CastTo::Char(n) => {
                let t = text();
                match (n, std::str::from_utf8(&t)) {
                    (Some(n), Ok(s)) => {
                        Value::Bytes(s.chars().take(n as usize).collect::<String>().into_bytes())
                    }
                    (Some(n), Err(_)) => Value::Bytes(t.into_iter().take(n as usize).collect()),
                    (None, _) => Value::Bytes(t),
                }
            }
            CastTo::Binary(n) => {
                let mut t = text();
                if let Some(n) = n {
                    t.resize(n as usize, 0);
                }
                Value::Bytes(t)
            }
            CastTo::Date => temporal(T::Date),
            CastTo::DateTime(fsp) => temporal(T::DateTime { fsp }),
            CastTo::Time(fsp) => match temporal(T::Time { fsp }) {
                Value::Null => time_from_other(&text(), fsp),
                time => time,
            },
            CastTo::Decimal(p, scale) => {
                let d = match &v {
                    Value::Bytes(b) => {
                        Decimal::parse(String::from_utf8_lossy(b).trim()).unwrap_or(dec(num(&v)))
                    }
                    other => dec(num(other)),
                };
                match d.rescale(scale) {
                    Some(d) if d.digits() <= u32::from(p) => Value::Decimal(d),
                    // Out of range: the largest value of the type, as MySQL clamps.
                    r => {
                        let max = base::value::pow10(u32::from(p))
                            .map_or(base::value::I256::MAX, |m| m - 1);
                        let negative = r.is_some_and(|d| d.is_negative())
                            || (r.is_none() && dbl(num(&v)) < 0.0);
                        Value::Decimal(Decimal::new(if negative { -max } else { max }, scale))
                    }
                }
            }
            CastTo::Double => Value::Double(dbl(num(&v))),
            // Read with its error in `Expr::eval` (`funcs::json::cast`); here as text.
            CastTo::Json => Value::Bytes(text()),
            CastTo::Charset(c) => {
                let t = text();
                match std::str::from_utf8(&t) {
                    Ok(s) if !base::collation::fits(s, c.charset()) => {
                        Value::Bytes(base::collation::convert_lossy(s, c.charset()).into_bytes())
                    }
                    _ => Value::Bytes(t),
                }
            }
            CastTo::Introduced(_) => v,
            CastTo::Shown(fsp) => Value::Bytes(match &v {
                Value::DateTime(dt) => DateTimeText(*dt, fsp).to_string().into_bytes(),
                Value::Time(t) => TimeText(*t, fsp).to_string().into_bytes(),
                _ => text(),
            }),
            CastTo::Latin1Bytes => Value::Bytes(
                String::from_utf8_lossy(&text())
                    .chars()
                    .map(|c| base::collation::latin1_byte(c).unwrap_or(b'?'))
                    .collect(),
            ),
        }
    }
}

/// CAST(text AS TIME) where the text is no TIME as it stands, read as MariaDB reads it: a
/// DATETIME gives its time of day; hours past 838 clamp to 838:59:59 (either sign). NULL else.
fn time_from_other(text: &[u8], fsp: u8) -> Value {
    use base::types::ColumnType as T;
    let column = |ty| base::schema::ColumnDef::new("", ty);
    if let Ok(Value::DateTime(dt)) =
        base::text::from_text(&column(T::DateTime { fsp: 6 }), Some(text))
    {
        let time = base::value::Time {
            negative: false,
            hours: u16::from(dt.hour),
            minutes: dt.minute,
            seconds: dt.second,
            microseconds: dt.microsecond,
        };
        // Cut to the cast's digits as a TIME column would.
        let shown = Value::Time(time).to_string();
        return base::text::from_text(&column(T::Time { fsp }), Some(shown.as_bytes()))
            .unwrap_or(Value::Null);
    }
    let Ok(s) = std::str::from_utf8(text) else {
        return Value::Null;
    };
    let s = s.trim();
    let (negative, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let mut parts = body.splitn(3, ':');
    let hours: Option<u64> = parts.next().and_then(|h| h.parse().ok());
    let valid_rest = parts.all(|p| {
        let whole = p.split('.').next().unwrap_or_default();
        !whole.is_empty() && whole.len() <= 2 && whole.bytes().all(|b| b.is_ascii_digit())
    });
    match hours {
        Some(h) if h > u64::from(base::value::Time::MAX_HOURS) && valid_rest => {
            Value::Time(base::value::Time {
                negative,
                hours: base::value::Time::MAX_HOURS,
                minutes: 59,
                seconds: 59,
                microseconds: 0,
            })
        }
        _ => Value::Null,
    }
}
