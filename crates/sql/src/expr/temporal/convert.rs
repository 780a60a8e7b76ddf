//! Values read as dates, datetimes and times the way MariaDB reads function arguments: temporal
//! values as they are, text in its delimited or packed forms ('2024-01-02 03:04:05',
//! '20240102030405'), numbers as packed digits (20240102, 103000), a TIME as today at that time.

use base::value::{Date, DateTime, Time};
use base::Value;

use super::calendar;

/// Microseconds in a day, an hour, a second.
pub const DAY_MICROS: i64 = 86_400_000_000;
pub const SECOND_MICROS: i64 = 1_000_000;
/// The largest TIME: 838:59:59.
pub const TIME_MAX_MICROS: i64 = ((838 * 60 + 59) * 60 + 59) * SECOND_MICROS;

/// A date and time read from a value, with what the value held.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stamp {
    pub dt: DateTime,
    /// The value had a time of day (a DATE or date-only text has none).
    pub has_time: bool,
    /// Fraction digits the value showed (0-6).
    pub fsp: u8,
}

/// A signed time span in microseconds, with the fraction digits its value showed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    pub micros: i64,
    pub fsp: u8,
}

/// A value as a date and time (None: NULL or not a date); `today` places a TIME.
pub fn stamp(v: &Value, today: Date) -> Option<Stamp> {
    match v {
        Value::Date(d) => Some(Stamp {
            dt: midnight(*d),
            has_time: false,
            fsp: 0,
        }),
        Value::DateTime(dt) => Some(Stamp {
            dt: *dt,
            has_time: true,
            fsp: shown_digits(dt.microsecond),
        }),
        Value::Time(t) => {
            let at = calendar::daynr(today) * DAY_MICROS + t.as_micros();
            Some(Stamp {
                dt: from_micros(at)?,
                has_time: true,
                fsp: shown_digits(t.microseconds),
            })
        }
        Value::Bytes(b) => stamp_from_text(std::str::from_utf8(b).ok()?),
        Value::Int(i) => stamp_from_number(i128::from(*i), 0, 0),
        Value::UInt(u) => stamp_from_number(i128::from(*u), 0, 0),
        Value::Year(y) => stamp_from_number(i128::from(*y), 0, 0),
        Value::Decimal(d) => {
            let (whole, micros, fsp) = split_decimal(*d)?;
            stamp_from_number(whole, micros, fsp)
        }
        Value::Double(_) | Value::Float(_) => {
            let x = crate::expr::as_double(v);
            if !x.is_finite() || !(0.0..=1e15).contains(&x) {
                return None;
            }
            let micros = ((x.fract() * 1e6).round() as u32).min(999_999);
            stamp_from_number(x.trunc() as i128, micros, 6)
        }
        Value::Null | Value::Parts(_) => None,
    }
}

/// Like [`stamp`], but only real days (no zero month or day, no February 30th).
pub fn full_stamp(v: &Value, today: Date) -> Option<Stamp> {
    stamp(v, today).filter(|s| calendar::is_full(s.dt.date))
}

/// A decimal's whole part, its fraction as microseconds, and its fraction digits (at most 6);
/// None for a negative value.
fn split_decimal(d: base::value::Decimal) -> Option<(i128, u32, u8)> {
    if d.is_negative() {
        return None;
    }
    let whole = base::value::saturating_i128(d.truncate(0).mantissa());
    // The fraction's first six digits (toward zero), as microseconds.
    let fraction = d.rescale(d.scale.max(6))?.truncate(6).mantissa() % 1_000_000;
    let fsp = d.scale.min(6);
    Some((whole, fraction.as_u32(), fsp))
}

/// The fraction digits microseconds need (trailing zeros dropped).
fn shown_digits(micros: u32) -> u8 {
    let mut digits = 6;
    let mut m = micros;
    if m == 0 {
        return 0;
    }
    while m.is_multiple_of(10) {
        m /= 10;
        digits -= 1;
    }
    digits
}

pub fn midnight(date: Date) -> DateTime {
    DateTime {
        date,
        ..DateTime::default()
    }
}

/// A datetime as microseconds from 0000-01-01 less one day (day number times a day).
pub fn to_micros(dt: DateTime) -> i64 {
    calendar::daynr(dt.date) * DAY_MICROS + time_of_day(dt)
}

/// The time of day in microseconds.
pub fn time_of_day(dt: DateTime) -> i64 {
    ((i64::from(dt.hour) * 60 + i64::from(dt.minute)) * 60 + i64::from(dt.second)) * SECOND_MICROS
        + i64::from(dt.microsecond)
}

/// The inverse of [`to_micros`]: None outside years 1-9999.
pub fn from_micros(micros: i64) -> Option<DateTime> {
    let date = calendar::date_of_daynr(micros.div_euclid(DAY_MICROS))?;
    let t = micros.rem_euclid(DAY_MICROS);
    Some(DateTime {
        date,
        hour: (t / 3_600_000_000) as u8,
        minute: (t / 60_000_000 % 60) as u8,
        second: (t / SECOND_MICROS % 60) as u8,
        microsecond: (t % SECOND_MICROS) as u32,
    })
}

/// Packed digits as a date (YYMMDD, YYYYMMDD) or datetime (YYMMDDhhmmss, YYYYMMDDhhmmss),
/// by MariaDB's ranges; 0 is the zero date.
pub fn stamp_from_number(n: i128, micros: u32, fsp: u8) -> Option<Stamp> {
    if n == 0 {
        return Some(Stamp {
            dt: DateTime::default(),
            has_time: false,
            fsp: 0,
        });
    }
    let (date, time) = match n {
        101..=691_231 => (n + 20_000_000, None),
        700_101..=991_231 => (n + 19_000_000, None),
        10_000_101..=99_991_231 => (n, None),
        101_000_000..=691_231_235_959 => (n / 1_000_000 + 20_000_000, Some(n % 1_000_000)),
        700_101_000_000..=991_231_235_959 => (n / 1_000_000 + 19_000_000, Some(n % 1_000_000)),
        10_000_101_000_000..=99_991_231_235_959 => (n / 1_000_000, Some(n % 1_000_000)),
        _ => return None,
    };
    let d = Date {
        year: (date / 10_000) as u16,
        month: (date / 100 % 100) as u8,
        day: (date % 100) as u8,
    };
    let t = time.unwrap_or(0);
    let dt = DateTime {
        date: d,
        hour: (t / 10_000) as u8,
        minute: (t / 100 % 100) as u8,
        second: (t % 100) as u8,
        microsecond: micros,
    };
    valid(dt).then_some(Stamp {
        dt,
        has_time: time.is_some(),
        fsp,
    })
}

/// MariaDB's check of a read date: months and days in range, zero parts allowed.
fn valid(dt: DateTime) -> bool {
    let d = dt.date;
    d.year <= 9999
        && d.month <= 12
        && d.day <= 31
        && (d.month == 0 || d.day == 0 || d.day <= calendar::month_days(i64::from(d.year), d.month))
        && dt.hour < 24
        && dt.minute < 60
        && dt.second < 60
}

/// The digit groups of a text: each run of digits with where it starts and the character
/// before it.
fn groups(s: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            out.push((start, &s[start..i]));
        } else {
            i += 1;
        }
    }
    out
}

/// A fraction's digits as microseconds (extra digits cut) and how many were shown.
fn fraction(digits: &str) -> (u32, u8) {
    let shown = digits.len().min(6);
    let mut micros: u32 = digits[..shown].parse().unwrap_or(0);
    for _ in shown..6 {
        micros *= 10;
    }
    (micros, shown as u8)
}

/// The fraction of `.digits` at the start of `rest` (none: 0 digits).
fn fraction_after(rest: &str) -> (u32, u8) {
    match rest.strip_prefix('.') {
        Some(r) => {
            let end = r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len());
            fraction(&r[..end])
        }
        None => (0, 0),
    }
}

/// Text as a date or datetime: packed digits, or delimited year-month-day with an optional
/// time after a space or 'T'; trailing garbage is ignored, as MariaDB does with a warning.
pub fn stamp_from_text(text: &str) -> Option<Stamp> {
    let s = text.trim_start();
    let digits_end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    if digits_end >= 6 && (digits_end == s.len() || s[digits_end..].starts_with('.')) {
        return packed_text(s, digits_end);
    }
    let g = groups(s);
    if g.len() < 3 || g[0].0 != 0 {
        return None;
    }
    let year = year_of(g[0].1)?;
    let month: u8 = g[1].1.parse().ok()?;
    let day: u8 = g[2].1.parse().ok()?;
    if g[1].1.len() > 2 || g[2].1.len() > 2 {
        return None;
    }
    let mut dt = midnight(Date { year, month, day });
    let mut fsp = 0;
    // The time starts after a space or 'T' right after the day.
    let after_day = g[2].0 + g[2].1.len();
    let rest = &s[after_day..];
    let has_time = g.len() >= 4 && (rest.starts_with(' ') || rest.starts_with('T'));
    if has_time {
        let parts: Vec<&str> = g[3..].iter().map(|(_, t)| *t).take(3).collect();
        dt.hour = parts[0].parse().ok()?;
        dt.minute = parts.get(1).map_or(Some(0), |p| p.parse().ok())?;
        dt.second = parts.get(2).map_or(Some(0), |p| p.parse().ok())?;
        if let Some((start, digits)) = g.get(6) {
            if s.as_bytes()[start - 1] == b'.' {
                let (micros, shown) = fraction(digits);
                dt.microsecond = micros;
                fsp = shown;
            }
        }
    }
    valid(dt).then_some(Stamp { dt, has_time, fsp })
}

/// A year of 2 digits (70-99: 19xx, else 20xx) or up to 4.
fn year_of(digits: &str) -> Option<u16> {
    let y: u16 = digits.parse().ok()?;
    Some(match digits.len() {
        1 | 2 if y < 70 => 2000 + y,
        1 | 2 => 1900 + y,
        3 | 4 => y,
        _ => return None,
    })
}

/// Packed text digits: YYMMDD, YYYYMMDD, YYMMDDhhmmss or YYYYMMDDhhmmss, then a fraction.
fn packed_text(s: &str, digits_end: usize) -> Option<Stamp> {
    let digits = &s[..digits_end];
    let (micros, fsp) = fraction_after(&s[digits_end..]);
    let (year_len, has_time) = match digits.len() {
        6 => (2, false),
        8 => (4, false),
        12 => (2, true),
        14 => (4, true),
        _ => return None,
    };
    let year = year_of(&digits[..year_len])?;
    let field = |at: usize| digits[at..at + 2].parse::<u8>().ok();
    let mut dt = midnight(Date {
        year,
        month: field(year_len)?,
        day: field(year_len + 2)?,
    });
    if has_time {
        dt.hour = field(year_len + 4)?;
        dt.minute = field(year_len + 6)?;
        dt.second = field(year_len + 8)?;
        dt.microsecond = micros;
    }
    valid(dt).then_some(Stamp {
        dt,
        has_time,
        fsp: if has_time { fsp } else { 0 },
    })
}

/// A value as a TIME span (None: NULL or not a time). Datetimes give their time of day.
pub fn span(v: &Value) -> Option<Span> {
    match v {
        Value::Time(t) => Some(Span {
            micros: t.as_micros(),
            fsp: shown_digits(t.microseconds),
        }),
        Value::DateTime(dt) => Some(Span {
            micros: time_of_day(*dt),
            fsp: shown_digits(dt.microsecond),
        }),
        Value::Date(_) => Some(Span { micros: 0, fsp: 0 }),
        Value::Bytes(b) => span_from_text(std::str::from_utf8(b).ok()?),
        Value::Int(i) => span_from_number(i128::from(*i), 0, 0),
        Value::UInt(u) => span_from_number(i128::from(*u), 0, 0),
        Value::Year(y) => span_from_number(i128::from(*y), 0, 0),
        Value::Decimal(d) => {
            let negative = d.is_negative();
            let (whole, micros, fsp) = split_decimal(base::value::Decimal::new(
                d.mantissa().checked_abs()?,
                d.scale,
            ))?;
            let s = span_from_number(whole, micros, fsp)?;
            Some(negate_if(s, negative))
        }
        Value::Double(_) | Value::Float(_) => {
            let x = crate::expr::as_double(v);
            if !x.is_finite() || x.abs() > 1e15 {
                return None;
            }
            let micros = ((x.abs().fract() * 1e6).round() as u32).min(999_999);
            let s = span_from_number(x.abs().trunc() as i128, micros, 6)?;
            Some(negate_if(s, x < 0.0))
        }
        Value::Null | Value::Parts(_) => None,
    }
}

fn negate_if(s: Span, negative: bool) -> Span {
    Span {
        micros: if negative { -s.micros } else { s.micros },
        fsp: s.fsp,
    }
}

/// Packed digits as a time: [H..]HHMMSS; numbers of a datetime's size give its time of day.
fn span_from_number(n: i128, micros: u32, fsp: u8) -> Option<Span> {
    let negative = n < 0;
    let n = n.abs();
    if n >= 10_000_000_000 {
        let s = stamp_from_number(n, micros, fsp)?;
        return Some(Span {
            micros: time_of_day(s.dt),
            fsp,
        });
    }
    let (h, m, sec) = (n / 10_000, n / 100 % 100, n % 100);
    if m >= 60 || sec >= 60 {
        return None;
    }
    let total = ((h * 60 + m) * 60 + sec) * i128::from(SECOND_MICROS) + i128::from(micros);
    let total = i64::try_from(total).ok()?;
    Some(negate_if(Span { micros: total, fsp }, negative))
}

/// Whether text holds a date: digits then a date separator, or packed digits of a date.
pub fn text_is_dated(text: &str) -> bool {
    let s = text.trim_start();
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    match s[end..].chars().next() {
        Some('-' | '/') => end > 0,
        None | Some('.') => end >= 8,
        _ => false,
    }
}

/// Text as a time: '[-][D ]H:MM[:SS][.frac]', packed 'HHMMSS', or a datetime's time of day.
pub fn span_from_text(text: &str) -> Option<Span> {
    let s = text.trim();
    // A datetime gives its time of day; a date alone reads as MariaDB reads it, by its leading
    // digits ('2024-01-01' is 00:20:24).
    if let Some(st) = stamp_from_text(s) {
        if st.has_time && text_is_dated(s) {
            return Some(Span {
                micros: time_of_day(st.dt),
                fsp: st.fsp,
            });
        }
    }
    let (negative, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest.trim_start()),
        None => (false, s),
    };
    if !body.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let span = if body.contains(':') {
        delimited_time(body)?
    } else {
        let end = body
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(body.len());
        let n: i128 = body[..end].parse().ok()?;
        let (micros, fsp) = fraction_after(&body[end..]);
        span_from_number(n, micros, fsp)?
    };
    Some(negate_if(span, negative))
}

/// '[D ]H:MM[:SS][.frac]'.
fn delimited_time(body: &str) -> Option<Span> {
    let (days, clock) = match body.split_once(' ') {
        Some((d, rest)) if d.bytes().all(|b| b.is_ascii_digit()) => {
            (d.parse::<i64>().ok()?, rest.trim_start())
        }
        _ => (0, body),
    };
    let g = groups(clock);
    if g.is_empty() || g[0].0 != 0 {
        return None;
    }
    let number = |i: usize| -> Option<i64> {
        g.get(i)
            .filter(|(start, _)| clock.as_bytes()[start - 1] == b':')
            .map_or(Some(0), |(_, t)| t.parse().ok())
    };
    let hours: i64 = g[0].1.parse().ok()?;
    let minutes = number(1)?;
    let seconds = number(2)?;
    if minutes >= 60 || seconds >= 60 {
        return None;
    }
    let (micros, fsp) = g
        .iter()
        .skip(1)
        .find(|(start, _)| clock.as_bytes()[start - 1] == b'.')
        .map_or((0, 0), |(_, t)| fraction(t));
    let total = days
        .checked_mul(24)?
        .checked_add(hours)?
        .checked_mul(3_600)?
        .checked_add(minutes * 60 + seconds)?
        .checked_mul(SECOND_MICROS)?
        .checked_add(i64::from(micros))?;
    Some(Span { micros: total, fsp })
}

/// A span as a TIME value, clamped to ±838:59:59 (as MariaDB clamps, with a warning).
pub fn time_value(micros: i64) -> Value {
    Value::Time(Time::from_micros(
        micros.clamp(-TIME_MAX_MICROS, TIME_MAX_MICROS),
    ))
}

/// A span as a TIME value, or None beyond ±838:59:59.
pub fn time_value_exact(micros: i64) -> Option<Value> {
    (micros.abs() <= TIME_MAX_MICROS).then(|| Value::Time(Time::from_micros(micros)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Option<DateTime> {
        stamp_from_text(s).map(|s| s.dt)
    }

    #[test]
    fn text_reads_as_mariadb_reads_it() {
        let dt = text("2024-01-02 03:04:05.5").unwrap();
        assert_eq!((dt.hour, dt.second, dt.microsecond), (3, 5, 500_000));
        assert_eq!(text("20240102").unwrap().date.day, 2);
        assert_eq!(text("24-1-2").unwrap().date.year, 2024);
        assert_eq!(text("2024-01-02x").unwrap().date.month, 1);
        assert!(text("2024-13-01").is_none());
        assert!(text("2024-02-30").is_none());
        assert!(text("abc").is_none());
        assert!(text("").is_none());
        assert_eq!(text("0000-00-00"), Some(DateTime::default()));
    }

    #[test]
    fn times_read_as_mariadb_reads_them() {
        let micros = |s: &str| span_from_text(s).map(|s| s.micros / SECOND_MICROS);
        assert_eq!(micros("01:00:01"), Some(3601));
        assert_eq!(micros("-01:00:00"), Some(-3600));
        assert_eq!(micros("103000"), Some(37_800));
        assert_eq!(micros("1 01:00:00"), Some(90_000));
        assert_eq!(micros("2024-01-01 01:00:00"), Some(3600));
        assert_eq!(micros("838:00:00"), Some(838 * 3600));
        assert_eq!(micros("abc"), None);
        assert_eq!(micros("2024-01-01"), Some(20 * 60 + 24));
        assert_eq!(micros("9223372036854775807:00:00"), None);
        assert_eq!(
            span_from_number(103_000, 0, 0).map(|s| s.micros),
            Some(37_800_000_000)
        );
    }
}
