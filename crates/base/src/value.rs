//! Values as the native API carries them, their checks against a column's type (MySQL's ranges,
//! strict mode), their MySQL text form, and comparison under a collation.

use std::cmp::Ordering;
use std::fmt;

use crate::collation;
use crate::error::{Error, ErrorCode, Result};
use crate::lob::PartsRef;
use crate::types::{Charset, Collation, ColumnType};

/// A calendar date; month and day may be 0 as MySQL allows without NO_ZERO_IN_DATE.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Date {
    pub year: u16,
    pub month: u8,
    pub day: u8,
}

/// A date and a time of day with microseconds (DATETIME and TIMESTAMP).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct DateTime {
    pub date: Date,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
    pub microsecond: u32,
}

/// A signed time span (TIME), -838:59:59.000000 ..= 838:59:59.000000.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Time {
    pub negative: bool,
    pub hours: u16,
    pub minutes: u8,
    pub seconds: u8,
    pub microseconds: u32,
}

pub use crate::decimal::{pow10, saturating_i128, Decimal, I256, U256};

/// A value of any column type, or NULL. Strings are bytes in the column's character set.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    UInt(u64),
    Float(f32),
    Double(f64),
    Decimal(Decimal),
    Bytes(Vec<u8>),
    Date(Date),
    DateTime(DateTime),
    Time(Time),
    Year(u16),
    /// A MEDIUM/LONG TEXT or BLOB value kept in parts (`crate::lob`): what its row holds and
    /// the data node answers; the client library joins the parts before a caller sees it.
    Parts(PartsRef),
}

impl fmt::Display for Value {
    /// MySQL-like text: NULL, numbers and temporal values as MySQL prints them, strings quoted
    /// (invalid UTF-8 shown with replacement characters).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => write!(f, "NULL"),
            Value::Bytes(b) => write!(f, "'{}'", String::from_utf8_lossy(b)),
            Value::DateTime(dt) => write!(
                f,
                "{}",
                DateTimeText(*dt, if dt.microsecond == 0 { 0 } else { 6 })
            ),
            Value::Time(t) => write!(
                f,
                "{}",
                TimeText(*t, if t.microseconds == 0 { 0 } else { 6 })
            ),
            other => {
                let text = other.to_text(ColumnType::Double).unwrap_or_default();
                write!(f, "{}", String::from_utf8_lossy(&text))
            }
        }
    }
}

impl From<i64> for Value {
    fn from(v: i64) -> Value {
        Value::Int(v)
    }
}
impl From<i32> for Value {
    fn from(v: i32) -> Value {
        Value::Int(v.into())
    }
}
impl From<u64> for Value {
    fn from(v: u64) -> Value {
        Value::UInt(v)
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::Bytes(v.as_bytes().to_vec())
    }
}
impl From<String> for Value {
    fn from(v: String) -> Value {
        Value::Bytes(v.into_bytes())
    }
}
impl From<Vec<u8>> for Value {
    fn from(v: Vec<u8>) -> Value {
        Value::Bytes(v)
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Value {
        Value::Double(v)
    }
}

fn bad(message: String) -> Error {
    Error::new(ErrorCode::BadValue, message)
}

/// The wall clock: microseconds since the Unix epoch (0 before it).
pub fn unix_micros_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
}

pub fn days_in_month(year: u16, month: u8) -> u8 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400) => {
            29
        }
        2 => 28,
        _ => 31,
    }
}

impl Date {
    pub fn is_valid(self) -> bool {
        self.year <= 9999
            && self.month <= 12
            && self.day <= 31
            && (self.month == 0
                || self.day == 0
                || self.day <= days_in_month(self.year, self.month))
    }

    /// Parses `YYYY-MM-DD`.
    pub fn parse(text: &str) -> Option<Date> {
        let mut parts = text.trim().splitn(3, '-');
        let year = parts.next()?.parse().ok()?;
        let month = parts.next()?.parse().ok()?;
        let day = parts.next()?.parse().ok()?;
        let date = Date { year, month, day };
        date.is_valid().then_some(date)
    }

    /// Days since 1970-01-01 (proleptic Gregorian); for valid, non-zero dates.
    pub fn days_from_epoch(self) -> i64 {
        let (y, m, d) = (
            i64::from(self.year),
            i64::from(self.month),
            i64::from(self.day),
        );
        let y = if m <= 2 { y - 1 } else { y };
        let era = if y >= 0 { y } else { y - 399 } / 400;
        let yoe = y - era * 400;
        let mp = (m + 9) % 12;
        let doy = (153 * mp + 2) / 5 + d - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }
}

impl DateTime {
    pub fn is_valid(self) -> bool {
        self.date.is_valid()
            && self.hour < 24
            && self.minute < 60
            && self.second < 60
            && self.microsecond < 1_000_000
    }

    /// Parses `YYYY-MM-DD[ HH:MM:SS[.ffffff]]`.
    pub fn parse(text: &str) -> Option<DateTime> {
        let text = text.trim();
        let (date, time) = match text.split_once([' ', 'T']) {
            Some((d, t)) => (d, Some(t)),
            None => (text, None),
        };
        let date = Date::parse(date)?;
        let mut value = DateTime {
            date,
            ..DateTime::default()
        };
        if let Some(time) = time {
            let t = Time::parse(time)?;
            if t.negative || t.hours > 23 {
                return None;
            }
            value.hour = t.hours as u8;
            value.minute = t.minutes;
            value.second = t.seconds;
            value.microsecond = t.microseconds;
        }
        value.is_valid().then_some(value)
    }

    /// Seconds since the Unix epoch, reading the value as UTC.
    pub fn unix_seconds(self) -> i64 {
        self.date.days_from_epoch() * 86_400
            + i64::from(self.hour) * 3600
            + i64::from(self.minute) * 60
            + i64::from(self.second)
    }

    /// The time `micros` microseconds after the Unix epoch (UTC), with `fsp` fraction digits
    /// kept (the rest cut, as NOW(fsp) cuts); None outside years 1..=9999.
    pub fn from_unix_micros(micros: i64, fsp: u8) -> Option<DateTime> {
        const DAY: i64 = 86_400_000_000;
        let days = micros.div_euclid(DAY);
        let t = micros.rem_euclid(DAY);
        // Days since 0000-03-01, counted in 400-year eras of 146,097 days.
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = yoe + era * 400 + i64::from(month <= 2);
        if !(1..=9999).contains(&year) {
            return None;
        }
        let unit = 10u32.pow(6 - u32::from(fsp.min(6)));
        let microsecond = (t % 1_000_000) as u32 / unit * unit;
        Some(DateTime {
            date: Date {
                year: year as u16,
                month: month as u8,
                day: day as u8,
            },
            hour: (t / 3_600_000_000) as u8,
            minute: (t / 60_000_000 % 60) as u8,
            second: (t / 1_000_000 % 60) as u8,
            microsecond,
        })
    }

    /// True for MySQL's TIMESTAMP range (UTC) or the zero value.
    pub fn in_timestamp_range(self) -> bool {
        if self == DateTime::default() {
            return true;
        }
        if self.date.month == 0 || self.date.day == 0 {
            return false;
        }
        let s = self.unix_seconds();
        (1..=i64::from(i32::MAX)).contains(&s)
    }
}

impl Time {
    pub const MAX_HOURS: u16 = 838;

    /// Whether the fields are in range: at most 838:59:59.000000 either way, as MariaDB's
    /// TIME (838:59:58.999999 is one).
    pub fn is_valid(self) -> bool {
        self.minutes < 60
            && self.seconds < 60
            && self.microseconds < 1_000_000
            && (self.hours < Self::MAX_HOURS
                || (self.hours == Self::MAX_HOURS
                    && (self.minutes, self.seconds, self.microseconds) <= (59, 59, 0)))
    }

    /// Parses `[-]H:MM:SS[.ffffff]`.
    pub fn parse(text: &str) -> Option<Time> {
        let text = text.trim();
        let (negative, text) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (whole, fraction) = match text.split_once('.') {
            Some((w, f)) => (w, Some(f)),
            None => (text, None),
        };
        let mut parts = whole.splitn(3, ':');
        let hours = parts.next()?.parse().ok()?;
        let minutes = parts.next()?.parse().ok()?;
        let seconds = parts.next().map_or(Some(0), |s| s.parse().ok())?;
        let microseconds = match fraction {
            None => 0,
            Some(f) if !f.is_empty() && f.len() <= 6 && f.bytes().all(|b| b.is_ascii_digit()) => {
                let digits: u32 = f.parse().ok()?;
                digits * 10u32.pow(6 - f.len() as u32)
            }
            Some(_) => return None,
        };
        let time = Time {
            negative,
            hours,
            minutes,
            seconds,
            microseconds,
        };
        time.is_valid().then_some(time)
    }

    /// The span in microseconds, negative for negative times.
    pub fn as_micros(self) -> i64 {
        let m = ((i64::from(self.hours) * 60 + i64::from(self.minutes)) * 60
            + i64::from(self.seconds))
            * 1_000_000
            + i64::from(self.microseconds);
        if self.negative {
            -m
        } else {
            m
        }
    }

    /// The inverse of [`Time::as_micros`].
    pub fn from_micros(micros: i64) -> Time {
        let negative = micros < 0;
        let m = micros.unsigned_abs();
        Time {
            negative,
            hours: (m / 3_600_000_000) as u16,
            minutes: (m / 60_000_000 % 60) as u8,
            seconds: (m / 1_000_000 % 60) as u8,
            microseconds: (m % 1_000_000) as u32,
        }
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

fn write_fraction(f: &mut fmt::Formatter<'_>, micros: u32, fsp: u8) -> fmt::Result {
    if fsp > 0 {
        let text = format!("{micros:06}");
        write!(f, ".{}", &text[..usize::from(fsp.min(6))])?;
    }
    Ok(())
}

/// Formats a DATETIME/TIMESTAMP with `fsp` fractional digits, as MySQL prints it.
pub struct DateTimeText(pub DateTime, pub u8);
impl fmt::Display for DateTimeText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        write!(
            f,
            "{} {:02}:{:02}:{:02}",
            v.date, v.hour, v.minute, v.second
        )?;
        write_fraction(f, v.microsecond, self.1)
    }
}

/// Formats a TIME with `fsp` fractional digits, as MySQL prints it.
pub struct TimeText(pub Time, pub u8);
impl fmt::Display for TimeText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        let sign = if v.negative && v.as_micros() != 0 {
            "-"
        } else {
            ""
        };
        write!(f, "{sign}{:02}:{:02}:{:02}", v.hours, v.minutes, v.seconds)?;
        write_fraction(f, v.microseconds, self.1)
    }
}

/// Counts characters of `bytes` in `charset`, or fails on invalid UTF-8.
pub fn char_count(bytes: &[u8], charset: Charset) -> Result<usize> {
    match charset {
        Charset::Utf8mb4 => std::str::from_utf8(bytes)
            .map(|s| s.chars().count())
            .map_err(|e| {
                bad(format!(
                    "incorrect utf8mb4 string value at byte {}",
                    e.valid_up_to()
                ))
            }),
        Charset::Utf8mb3 => {
            let text = std::str::from_utf8(bytes).map_err(|e| {
                bad(format!(
                    "incorrect utf8mb3 string value at byte {}",
                    e.valid_up_to()
                ))
            })?;
            match text.char_indices().find(|(_, c)| c.len_utf8() > 3) {
                Some((at, _)) => Err(bad(format!("incorrect utf8mb3 string value at byte {at}"))),
                None => Ok(text.chars().count()),
            }
        }
        Charset::Latin1 | Charset::Binary => Ok(bytes.len()),
    }
}

/// Counts characters of `bytes` as a column of `collation` stores them: latin1 kept as UTF-8
/// text must be valid UTF-8 holding latin1's characters only.
pub fn char_count_in(bytes: &[u8], collation: Collation) -> Result<usize> {
    if !collation.is_latin1_text() {
        return char_count(bytes, collation.charset());
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        bad(format!(
            "incorrect latin1 string value at byte {}",
            e.valid_up_to()
        ))
    })?;
    if !crate::collation::fits(text, Charset::Latin1) {
        return Err(bad("incorrect latin1 string value".to_string()));
    }
    Ok(text.chars().count())
}

fn round_half_away(v: f64) -> f64 {
    v.round()
}

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The value as i128 if it is an integer (or a whole number given as another numeric).
    fn as_integer(&self, column: &str) -> Result<i128> {
        match self {
            Value::Int(v) => Ok(i128::from(*v)),
            Value::UInt(v) => Ok(i128::from(*v)),
            Value::Year(v) => Ok(i128::from(*v)),
            Value::Double(v) => float_to_int(*v, column),
            Value::Float(v) => float_to_int(f64::from(*v), column),
            Value::Decimal(d) => d
                .rescale(0)
                .and_then(|d| i128::try_from(d.mantissa()).ok())
                .ok_or_else(|| bad(format!("out of range value for column '{column}'"))),
            Value::Bytes(b) => {
                let text = std::str::from_utf8(b)
                    .map_err(|_| bad(format!("incorrect integer value for column '{column}'")))?;
                let text = text.trim();
                if let Ok(v) = text.parse::<i128>() {
                    return Ok(v);
                }
                match Decimal::parse(text) {
                    Some(d) => d
                        .rescale(0)
                        .and_then(|d| i128::try_from(d.mantissa()).ok())
                        .ok_or_else(|| bad(format!("out of range value for column '{column}'"))),
                    None => Err(bad(format!(
                        "incorrect integer value: '{text}' for column '{column}'"
                    ))),
                }
            }
            other => Err(bad(format!(
                "cannot store {} in integer column '{column}'",
                other.kind()
            ))),
        }
    }

    fn as_f64(&self, column: &str) -> Result<f64> {
        match self {
            Value::Int(v) => Ok(*v as f64),
            Value::UInt(v) => Ok(*v as f64),
            Value::Float(v) => Ok(f64::from(*v)),
            Value::Double(v) => Ok(*v),
            Value::Year(v) => Ok(f64::from(*v)),
            Value::Decimal(d) => Ok(d.to_string().parse().unwrap_or(0.0)),
            Value::Bytes(b) => std::str::from_utf8(b)
                .ok()
                .and_then(|s| s.trim().parse::<f64>().ok())
                .ok_or_else(|| bad(format!("incorrect double value for column '{column}'"))),
            other => Err(bad(format!(
                "cannot store {} in numeric column '{column}'",
                other.kind()
            ))),
        }
    }

    /// A short name of the value's kind for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "NULL",
            Value::Int(_) | Value::UInt(_) => "an integer",
            Value::Float(_) | Value::Double(_) => "a floating-point number",
            Value::Decimal(_) => "a decimal",
            Value::Bytes(_) => "a string",
            Value::Date(_) => "a date",
            Value::DateTime(_) => "a datetime",
            Value::Time(_) => "a time",
            Value::Year(_) => "a year",
            Value::Parts(_) => "a value stored in parts",
        }
    }

    /// Converts the value to the canonical form stored for `ty` (strict mode: out-of-range and
    /// too-long values are errors, never truncated). NULL passes through; the caller checks NOT NULL.
    pub fn coerce(self, ty: ColumnType, collation: Collation, column: &str) -> Result<Value> {
        if self.is_null() {
            return Ok(Value::Null);
        }
        let range_error = || bad(format!("out of range value for column '{column}'"));
        match ty {
            ColumnType::TinyInt { unsigned }
            | ColumnType::SmallInt { unsigned }
            | ColumnType::MediumInt { unsigned }
            | ColumnType::Int { unsigned }
            | ColumnType::BigInt { unsigned } => {
                let v = self.as_integer(column)?;
                let (lo, hi) = ty.integer_range().ok_or_else(range_error)?;
                if v < lo || v > hi {
                    return Err(range_error());
                }
                Ok(if unsigned {
                    Value::UInt(v as u64)
                } else {
                    Value::Int(v as i64)
                })
            }
            // The stored number of an ENUM or SET (its members are the column's, which
            // `text::member_value` reads names with).
            ColumnType::Enum | ColumnType::Set => match self {
                Value::UInt(n) => Ok(Value::UInt(n)),
                _ => Err(bad(format!("data truncated for column '{column}'"))),
            },
            ColumnType::Bit { width } => {
                // A string is its bytes, big-endian (b'101', X'05', '5' is 0x35); a number is
                // itself. Either must fit the width.
                let n: u128 = match &self {
                    Value::Bytes(b) if b.len() <= 16 => {
                        b.iter().fold(0u128, |n, byte| n << 8 | u128::from(*byte))
                    }
                    Value::Bytes(_) => return Err(range_error()),
                    _ => {
                        let v = self.as_integer(column)?;
                        u128::try_from(v).map_err(|_| range_error())?
                    }
                };
                if width < 64 && n >> width != 0 || n > u128::from(u64::MAX) {
                    return Err(range_error());
                }
                Ok(Value::UInt(n as u64))
            }
            ColumnType::Float => {
                let v = self.as_f64(column)?;
                if !v.is_finite() || v.abs() > f64::from(f32::MAX) {
                    return Err(range_error());
                }
                Ok(Value::Float(v as f32))
            }
            ColumnType::Double => {
                let v = self.as_f64(column)?;
                if !v.is_finite() {
                    return Err(range_error());
                }
                Ok(Value::Double(v))
            }
            ColumnType::Decimal { precision, scale } => {
                let d = match self {
                    Value::Decimal(d) => d,
                    Value::Int(v) => Decimal::new(v, 0),
                    Value::UInt(v) => Decimal::new(v, 0),
                    Value::Bytes(ref b) => std::str::from_utf8(b)
                        .ok()
                        .and_then(Decimal::parse)
                        .ok_or_else(|| {
                            bad(format!("incorrect decimal value for column '{column}'"))
                        })?,
                    Value::Double(_) | Value::Float(_) => {
                        let f = self.as_f64(column)?;
                        Decimal::parse(&format!("{f:.*}", usize::from(scale) + 1))
                            .ok_or_else(range_error)?
                    }
                    other => {
                        return Err(bad(format!(
                            "cannot store {} in decimal column '{column}'",
                            other.kind()
                        )))
                    }
                };
                let d = d.rescale(scale).ok_or_else(range_error)?;
                if d.digits() > u32::from(precision) {
                    return Err(range_error());
                }
                Ok(Value::Decimal(d))
            }
            ColumnType::Char { length } | ColumnType::VarChar { length } => {
                let mut bytes = self.into_bytes(column)?;
                if matches!(ty, ColumnType::Char { .. }) {
                    // CHAR drops trailing spaces on store, as MySQL returns it without them.
                    while bytes.last() == Some(&b' ') {
                        bytes.pop();
                    }
                }
                let chars = char_count_in(&bytes, collation)?;
                if chars > length as usize {
                    return Err(bad(format!("data too long for column '{column}'")));
                }
                Ok(Value::Bytes(bytes))
            }
            ColumnType::Binary { length } => {
                let mut bytes = self.into_bytes(column)?;
                if bytes.len() > length as usize {
                    return Err(bad(format!("data too long for column '{column}'")));
                }
                bytes.resize(length as usize, 0);
                Ok(Value::Bytes(bytes))
            }
            ColumnType::VarBinary { length } => {
                let bytes = self.into_bytes(column)?;
                if bytes.len() > length as usize {
                    return Err(bad(format!("data too long for column '{column}'")));
                }
                Ok(Value::Bytes(bytes))
            }
            ColumnType::Text { size } | ColumnType::Blob { size } => {
                if let Value::Parts(r) = self {
                    return parts_fit(r, ty, size, collation, column);
                }
                let bytes = self.into_bytes(column)?;
                // Counted in the column's character set: latin1 text is kept as UTF-8.
                let mut len = bytes.len();
                if matches!(ty, ColumnType::Text { .. }) {
                    let chars = char_count_in(&bytes, collation)?;
                    if collation.is_latin1_text() {
                        len = chars;
                    }
                }
                if len > size.stored_bytes() {
                    return Err(bad(format!("data too long for column '{column}'")));
                }
                Ok(Value::Bytes(bytes))
            }
            ColumnType::Date => {
                let d = match self {
                    Value::Date(d) => d,
                    Value::DateTime(dt) => dt.date,
                    Value::Bytes(ref b) => std::str::from_utf8(b)
                        .ok()
                        .and_then(|s| {
                            Date::parse(s).or_else(|| DateTime::parse(s).map(|dt| dt.date))
                        })
                        .ok_or_else(|| {
                            bad(format!("incorrect date value for column '{column}'"))
                        })?,
                    other => {
                        return Err(bad(format!(
                            "cannot store {} in date column '{column}'",
                            other.kind()
                        )))
                    }
                };
                if !d.is_valid() {
                    return Err(bad(format!("incorrect date value for column '{column}'")));
                }
                Ok(Value::Date(d))
            }
            ColumnType::DateTime { fsp } | ColumnType::Timestamp { fsp } => {
                let mut dt = match self {
                    Value::DateTime(dt) => dt,
                    Value::Date(d) => DateTime {
                        date: d,
                        ..DateTime::default()
                    },
                    Value::Bytes(ref b) => std::str::from_utf8(b)
                        .ok()
                        .and_then(DateTime::parse)
                        .ok_or_else(|| {
                            bad(format!("incorrect datetime value for column '{column}'"))
                        })?,
                    other => {
                        return Err(bad(format!(
                            "cannot store {} in datetime column '{column}'",
                            other.kind()
                        )))
                    }
                };
                if !dt.is_valid() {
                    return Err(bad(format!(
                        "incorrect datetime value for column '{column}'"
                    )));
                }
                dt.microsecond = truncate_micros(dt.microsecond, fsp);
                if matches!(ty, ColumnType::Timestamp { .. }) && !dt.in_timestamp_range() {
                    return Err(bad(format!(
                        "incorrect timestamp value for column '{column}'"
                    )));
                }
                Ok(Value::DateTime(dt))
            }
            ColumnType::Time { fsp } => {
                let mut t = match self {
                    Value::Time(t) => t,
                    Value::Bytes(ref b) => std::str::from_utf8(b)
                        .ok()
                        .and_then(Time::parse)
                        .ok_or_else(|| {
                            bad(format!("incorrect time value for column '{column}'"))
                        })?,
                    other => {
                        return Err(bad(format!(
                            "cannot store {} in time column '{column}'",
                            other.kind()
                        )))
                    }
                };
                if !t.is_valid() {
                    return Err(range_error());
                }
                t.microseconds = truncate_micros(t.microseconds, fsp);
                Ok(Value::Time(t))
            }
            ColumnType::Year => {
                let v = self.as_integer(column)?;
                let year = match v {
                    0 => 0,
                    1..=69 => 2000 + v,
                    70..=99 => 1900 + v,
                    1901..=2155 => v,
                    _ => return Err(range_error()),
                };
                Ok(Value::Year(year as u16))
            }
        }
    }

    fn into_bytes(self, column: &str) -> Result<Vec<u8>> {
        Ok(match self {
            Value::Bytes(b) => b,
            Value::Int(v) => v.to_string().into_bytes(),
            Value::UInt(v) => v.to_string().into_bytes(),
            Value::Float(v) => v.to_string().into_bytes(),
            Value::Double(v) => v.to_string().into_bytes(),
            Value::Decimal(d) => d.to_string().into_bytes(),
            Value::Year(y) => y.to_string().into_bytes(),
            Value::Date(d) => d.to_string().into_bytes(),
            Value::DateTime(dt) => DateTimeText(dt, 0).to_string().into_bytes(),
            Value::Time(t) => TimeText(t, 0).to_string().into_bytes(),
            Value::Null => return Err(bad(format!("NULL for column '{column}'"))),
            Value::Parts(_) => {
                return Err(bad(format!(
                    "a value stored in parts cannot be stored in column '{column}'"
                )))
            }
        })
    }

    /// MySQL's text form of a stored value of type `ty` (what the mysql client shows).
    pub fn to_text(&self, ty: ColumnType) -> Option<Vec<u8>> {
        Some(match self {
            Value::Null => return None,
            Value::Int(v) => v.to_string().into_bytes(),
            Value::UInt(v) => v.to_string().into_bytes(),
            Value::Float(v) => format!("{v}").into_bytes(),
            Value::Double(v) => format!("{v}").into_bytes(),
            Value::Decimal(d) => d.to_string().into_bytes(),
            Value::Bytes(b) => b.clone(),
            Value::Date(d) => d.to_string().into_bytes(),
            Value::DateTime(dt) => {
                let fsp = match ty {
                    ColumnType::DateTime { fsp } | ColumnType::Timestamp { fsp } => fsp,
                    _ => 0,
                };
                DateTimeText(*dt, fsp).to_string().into_bytes()
            }
            Value::Time(t) => {
                let fsp = if let ColumnType::Time { fsp } = ty {
                    fsp
                } else {
                    0
                };
                TimeText(*t, fsp).to_string().into_bytes()
            }
            Value::Year(y) => format!("{y:04}").into_bytes(),
            // Never shown: the client library joins the parts first (a visible marker rather
            // than a silent NULL, should one slip through).
            Value::Parts(r) => format!("<{} bytes in parts>", r.len).into_bytes(),
        })
    }

    /// Compares two values of one column under its collation; None when either is NULL (SQL's
    /// unknown) or the kinds cannot be compared.
    pub fn compare(&self, other: &Value, collation: Collation) -> Option<Ordering> {
        use Value::*;
        match (self, other) {
            (Null, _) | (_, Null) => None,
            (Int(a), Int(b)) => Some(a.cmp(b)),
            (UInt(a), UInt(b)) => Some(a.cmp(b)),
            (Int(a), UInt(b)) => Some(i128::from(*a).cmp(&i128::from(*b))),
            (UInt(a), Int(b)) => Some(i128::from(*a).cmp(&i128::from(*b))),
            (Float(a), Float(b)) => a.partial_cmp(b),
            (Double(a), Double(b)) => a.partial_cmp(b),
            (Decimal(a), Decimal(b)) => {
                let scale = a.scale.max(b.scale);
                Some(
                    a.rescale(scale)?
                        .mantissa()
                        .cmp(&b.rescale(scale)?.mantissa()),
                )
            }
            (Bytes(a), Bytes(b)) => Some(collation::compare(a, b, collation)),
            (Date(a), Date(b)) => Some(a.cmp(b)),
            (DateTime(a), DateTime(b)) => Some(a.cmp(b)),
            (Time(a), Time(b)) => Some(a.as_micros().cmp(&b.as_micros())),
            (Year(a), Year(b)) => Some(a.cmp(b)),
            (a, b) => {
                let (x, y) = (a.as_f64("").ok()?, b.as_f64("").ok()?);
                x.partial_cmp(&y)
            }
        }
    }
}

/// A reference to parts given for a TEXT or BLOB column: the column must be one that holds
/// parts and the length within its limit (latin1 text is kept as UTF-8, up to 2 bytes a
/// character; the client library counted its characters before cutting it).
fn parts_fit(
    r: PartsRef,
    ty: ColumnType,
    size: crate::types::LobSize,
    collation: Collation,
    column: &str,
) -> Result<Value> {
    if !crate::lob::holds_parts(ty) {
        return Err(bad(format!(
            "a value stored in parts cannot be stored in column '{column}'"
        )));
    }
    let per_char = if matches!(ty, ColumnType::Text { .. }) && collation.is_latin1_text() {
        2
    } else {
        1
    };
    if r.len > size.stored_bytes() as u64 * per_char {
        return Err(bad(format!("data too long for column '{column}'")));
    }
    Ok(Value::Parts(r))
}

fn float_to_int(v: f64, column: &str) -> Result<i128> {
    if !v.is_finite() || v.abs() > 1.8e19 {
        return Err(bad(format!("out of range value for column '{column}'")));
    }
    Ok(round_half_away(v) as i128)
}

fn truncate_micros(micros: u32, fsp: u8) -> u32 {
    let unit = 10u32.pow(u32::from(6 - fsp.min(6)));
    micros / unit * unit
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(v: Value, ty: ColumnType) -> Result<Value> {
        v.coerce(ty, Collation::Utf8mb4GeneralCi, "c")
    }

    #[test]
    fn unix_micros_give_the_calendar_dates_back() {
        // Every day from 0001-01-01 to 9999-12-31 converts back to its own day number.
        let first = Date {
            year: 1,
            month: 1,
            day: 1,
        }
        .days_from_epoch();
        let last = Date {
            year: 9999,
            month: 12,
            day: 31,
        }
        .days_from_epoch();
        for days in first..=last {
            let dt = DateTime::from_unix_micros(days * 86_400_000_000, 6).unwrap();
            assert!(dt.is_valid(), "{dt:?}");
            assert_eq!(dt.date.days_from_epoch(), days);
        }
        assert_eq!(
            DateTime::from_unix_micros((first - 1) * 86_400_000_000, 0),
            None
        );
        assert_eq!(
            DateTime::from_unix_micros((last + 1) * 86_400_000_000, 0),
            None
        );
        // 2026-11-23 04:10:28.994033 UTC, cut to 3 and 0 digits.
        let micros = 1_795_407_028_994_033;
        let dt = DateTime::from_unix_micros(micros, 3).unwrap();
        assert_eq!(
            DateTimeText(dt, 6).to_string(),
            "2026-11-23 04:10:28.994000"
        );
        assert_eq!(dt.unix_seconds(), micros / 1_000_000);
        let dt = DateTime::from_unix_micros(-1, 0).unwrap();
        assert_eq!(DateTimeText(dt, 0).to_string(), "1969-12-31 23:59:59");
    }

    #[test]
    fn integer_ranges_are_mysqls() {
        let tiny = ColumnType::TinyInt { unsigned: false };
        assert_eq!(c(Value::Int(-128), tiny), Ok(Value::Int(-128)));
        assert!(c(Value::Int(128), tiny).is_err());
        let ubig = ColumnType::BigInt { unsigned: true };
        assert_eq!(c(Value::UInt(u64::MAX), ubig), Ok(Value::UInt(u64::MAX)));
        assert!(c(Value::Int(-1), ubig).is_err());
        let medium = ColumnType::MediumInt { unsigned: true };
        assert_eq!(
            c(Value::Int(16_777_215), medium),
            Ok(Value::UInt(16_777_215))
        );
        assert!(c(Value::Int(16_777_216), medium).is_err());
    }

    #[test]
    fn decimals_round_and_check_precision() {
        let ty = ColumnType::Decimal {
            precision: 5,
            scale: 2,
        };
        assert_eq!(
            c("123.456".into(), ty).unwrap(),
            Value::Decimal(Decimal::new(12346, 2))
        );
        assert!(c("1234.5".into(), ty).is_err());
        assert_eq!(Decimal::new(-5, 2).to_string(), "-0.05");
    }

    #[test]
    fn decimals_of_65_digits_parse_print_round_and_count() {
        let d = |s: &str| Decimal::parse(s).unwrap();
        let nines = format!("-{}.{}", "9".repeat(35), "9".repeat(30));
        let wide = d(&nines);
        assert_eq!(wide.to_string(), nines);
        assert_eq!(wide.digits(), 65);
        assert!(wide.is_negative() && !wide.is_zero());
        // Rounding half away from zero carries into a 36th whole digit.
        assert_eq!(
            wide.rescale(0).unwrap().to_string(),
            format!("-1{}", "0".repeat(35))
        );
        assert_eq!(
            wide.truncate(2).to_string(),
            format!("-{}.99", "9".repeat(35))
        );
        assert_eq!(Decimal::new(0, 3).digits(), 0);
        assert_eq!(d("10").digits(), 2);
        // 77 digits do not fit 256 bits.
        assert_eq!(Decimal::parse(&"9".repeat(77)), None);
        assert!(Decimal::parse(&"9".repeat(76)).is_some());
        assert_eq!(Decimal::parse(&format!("1{}", "0".repeat(76))), None);
        // Words hold the two's complement: a value survives the trip, and equal values are
        // equal (Hash and Eq on the words).
        for m in [
            I256::MIN,
            I256::MAX,
            I256::from(-1),
            I256::from(i128::MIN) - 1,
        ] {
            assert_eq!(Decimal::new(m, 7).mantissa(), m);
        }
        // Stored in a DECIMAL(65,30) column, and refused past its 35 whole digits.
        let ty = ColumnType::Decimal {
            precision: 65,
            scale: 30,
        };
        assert_eq!(c(nines.as_str().into(), ty).unwrap(), Value::Decimal(wide));
        assert!(c(format!("1{}", "0".repeat(35)).as_str().into(), ty).is_err());
    }

    #[test]
    fn strings_count_characters_and_strip_char_padding() {
        let ty = ColumnType::Char { length: 3 };
        assert_eq!(
            c("äöü  ".into(), ty).unwrap(),
            Value::Bytes("äöü".as_bytes().to_vec())
        );
        assert!(c("abcd".into(), ty).is_err());
        assert!(c(Value::Bytes(vec![0xff]), ty).is_err());
        let bin = ColumnType::Binary { length: 4 };
        assert_eq!(
            c("ab".into(), bin).unwrap(),
            Value::Bytes(b"ab\0\0".to_vec())
        );
    }

    #[test]
    fn temporal_values_parse_and_print() {
        let ty = ColumnType::DateTime { fsp: 3 };
        let v = c("2024-02-29 23:59:59.123456".into(), ty).unwrap();
        assert_eq!(v.to_text(ty).unwrap(), b"2024-02-29 23:59:59.123");
        assert!(c("2023-02-29".into(), ColumnType::Date).is_err());
        let ts = ColumnType::Timestamp { fsp: 0 };
        assert!(c("2038-01-19 03:14:07".into(), ts).is_ok());
        assert!(c("2038-01-19 03:14:08".into(), ts).is_err());
        let t = ColumnType::Time { fsp: 0 };
        assert_eq!(
            c("-838:59:59".into(), t).unwrap().to_text(t).unwrap(),
            b"-838:59:59"
        );
        assert!(c("839:00:00".into(), t).is_err());
        assert_eq!(c(Value::Int(69), ColumnType::Year), Ok(Value::Year(2069)));
        assert!(c(Value::Int(1900), ColumnType::Year).is_err());
    }
}
