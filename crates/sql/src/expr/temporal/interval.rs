//! INTERVAL units and amounts (`INTERVAL '1 2:03' DAY_MINUTE`), adding them to dates, datetimes
//! and times as DATE_ADD does (months clamp to the month's last day), and TIMESTAMPDIFF's count
//! of whole units between two datetimes.

use base::value::{Date, DateTime};
use base::Value;
use sqlparser::ast::DateTimeField;

use super::calendar;
use super::convert::{self, DAY_MICROS, SECOND_MICROS};

/// MySQL's interval units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Microsecond,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Quarter,
    Year,
    SecondMicrosecond,
    MinuteMicrosecond,
    MinuteSecond,
    HourMicrosecond,
    HourSecond,
    HourMinute,
    DayMicrosecond,
    DaySecond,
    DayMinute,
    DayHour,
    YearMonth,
}

/// The fields an amount has, most significant first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Years,
    Months,
    Days,
    Hours,
    Minutes,
    Seconds,
    Micros,
}

impl Unit {
    pub fn from_name(name: &str) -> Option<Unit> {
        use Unit::*;
        Some(match name.to_ascii_uppercase().as_str() {
            "MICROSECOND" | "SQL_TSI_MICROSECOND" | "FRAC_SECOND" => Microsecond,
            "SECOND" | "SQL_TSI_SECOND" => Second,
            "MINUTE" | "SQL_TSI_MINUTE" => Minute,
            "HOUR" | "SQL_TSI_HOUR" => Hour,
            "DAY" | "SQL_TSI_DAY" => Day,
            "WEEK" | "SQL_TSI_WEEK" => Week,
            "MONTH" | "SQL_TSI_MONTH" => Month,
            "QUARTER" | "SQL_TSI_QUARTER" => Quarter,
            "YEAR" | "SQL_TSI_YEAR" => Year,
            "SECOND_MICROSECOND" => SecondMicrosecond,
            "MINUTE_MICROSECOND" => MinuteMicrosecond,
            "MINUTE_SECOND" => MinuteSecond,
            "HOUR_MICROSECOND" => HourMicrosecond,
            "HOUR_SECOND" => HourSecond,
            "HOUR_MINUTE" => HourMinute,
            "DAY_MICROSECOND" => DayMicrosecond,
            "DAY_SECOND" => DaySecond,
            "DAY_MINUTE" => DayMinute,
            "DAY_HOUR" => DayHour,
            "YEAR_MONTH" => YearMonth,
            _ => return None,
        })
    }

    pub fn from_field(f: &DateTimeField) -> Option<Unit> {
        match f {
            DateTimeField::Custom(name) => Unit::from_name(&name.value),
            DateTimeField::Week(None) => Some(Unit::Week),
            other => Unit::from_name(&other.to_string()),
        }
    }

    /// The unit counts days or more only (adding it to a DATE gives a DATE).
    pub fn is_date_only(self) -> bool {
        use Unit::*;
        matches!(self, Day | Week | Month | Quarter | Year | YearMonth)
    }

    /// The unit counts months (adding it clamps the day).
    pub fn is_monthly(self) -> bool {
        matches!(
            self,
            Unit::Month | Unit::Quarter | Unit::Year | Unit::YearMonth
        )
    }

    /// One field (TIMESTAMPADD and TIMESTAMPDIFF take no compound unit).
    pub fn is_simple(self) -> bool {
        self.fields().len() == 1
    }

    /// The unit ends in microseconds.
    pub fn has_micros(self) -> bool {
        self.fields().last() == Some(&Field::Micros)
    }

    fn fields(self) -> &'static [Field] {
        use Field::*;
        match self {
            Unit::Microsecond => &[Micros],
            Unit::Second => &[Seconds],
            Unit::Minute => &[Minutes],
            Unit::Hour => &[Hours],
            Unit::Day | Unit::Week => &[Days],
            Unit::Month | Unit::Quarter => &[Months],
            Unit::Year => &[Years],
            Unit::SecondMicrosecond => &[Seconds, Micros],
            Unit::MinuteMicrosecond => &[Minutes, Seconds, Micros],
            Unit::MinuteSecond => &[Minutes, Seconds],
            Unit::HourMicrosecond => &[Hours, Minutes, Seconds, Micros],
            Unit::HourSecond => &[Hours, Minutes, Seconds],
            Unit::HourMinute => &[Hours, Minutes],
            Unit::DayMicrosecond => &[Days, Hours, Minutes, Seconds, Micros],
            Unit::DaySecond => &[Days, Hours, Minutes, Seconds],
            Unit::DayMinute => &[Days, Hours, Minutes],
            Unit::DayHour => &[Days, Hours],
            Unit::YearMonth => &[Years, Months],
        }
    }
}

/// An interval's amount: signed months and signed microseconds (one of them is 0), and the
/// fraction digits it shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Amount {
    pub months: i128,
    pub micros: i128,
    pub fsp: u8,
}

/// The amount `INTERVAL v unit` stands for (None: NULL).
pub fn amount(v: &Value, unit: Unit) -> Option<Amount> {
    if v.is_null() {
        return None;
    }
    match unit {
        Unit::Second => Some(seconds_amount(v)),
        u if u.fields().len() == 1 => {
            let n = integer(v);
            let scale: i128 = match u {
                Unit::Microsecond => 1,
                Unit::Minute => 60 * i128::from(SECOND_MICROS),
                Unit::Hour => 3_600 * i128::from(SECOND_MICROS),
                Unit::Day => i128::from(DAY_MICROS),
                Unit::Week => 7 * i128::from(DAY_MICROS),
                Unit::Month => 1,
                Unit::Quarter => 3,
                _ => 12,
            };
            let total = n.checked_mul(scale)?;
            Some(if u.is_monthly() {
                Amount {
                    months: total,
                    micros: 0,
                    fsp: 0,
                }
            } else {
                Amount {
                    months: 0,
                    micros: total,
                    fsp: if u == Unit::Microsecond { 6 } else { 0 },
                }
            })
        }
        u => compound_amount(&base::text::value_text(v)?, u),
    }
}

/// A value as an integer as MariaDB's val_int reads it: numbers round, text reads its leading
/// number.
pub fn integer(v: &Value) -> i128 {
    match crate::expr::num(v) {
        crate::expr::Num::Int(i) => i,
        crate::expr::Num::Dec(d) => d
            .rescale(0)
            .map_or(0, |d| base::value::saturating_i128(d.mantissa())),
        crate::expr::Num::Dbl(x) => x.round().clamp(-1e30, 1e30) as i128,
    }
}

/// SECOND takes a fraction: INTERVAL 1.5 SECOND is 1.5 seconds.
fn seconds_amount(v: &Value) -> Amount {
    let (micros, fsp) = match crate::expr::num(v) {
        crate::expr::Num::Int(i) => (i.saturating_mul(i128::from(SECOND_MICROS)), 0),
        crate::expr::Num::Dec(d) => {
            let fsp = d.scale.min(6);
            let m = d
                .rescale(6)
                .map_or(0, |d| base::value::saturating_i128(d.mantissa()));
            (m, fsp)
        }
        crate::expr::Num::Dbl(x) => ((x * 1e6).round().clamp(-1e30, 1e30) as i128, 6),
    };
    Amount {
        months: 0,
        micros,
        fsp,
    }
}

/// A compound amount's text: its digit groups fill the unit's fields from the right; a
/// leading '-' negates the whole; a short microsecond group is a fraction ('1.5' = 500000).
fn compound_amount(text: &[u8], unit: Unit) -> Option<Amount> {
    let s = String::from_utf8_lossy(text);
    let s = s.trim_start();
    let negative = s.starts_with('-');
    let mut values: Vec<(i128, usize)> = Vec::new();
    for group in s
        .split(|c: char| !c.is_ascii_digit())
        .filter(|g| !g.is_empty())
    {
        let digits = group.trim_start_matches('0');
        if digits.len() > 30 {
            return None;
        }
        values.push((digits.parse().unwrap_or(0), group.len()));
    }
    let fields = unit.fields();
    if values.len() > fields.len() {
        return None;
    }
    let offset = fields.len() - values.len();
    let mut months: i128 = 0;
    let mut micros: i128 = 0;
    for (i, (n, len)) in values.iter().enumerate() {
        let field = fields[offset + i];
        let n = if field == Field::Micros && *len < 6 {
            n * 10i128.pow(6 - *len as u32)
        } else {
            *n
        };
        let (target, scale): (&mut i128, i128) = match field {
            Field::Years => (&mut months, 12),
            Field::Months => (&mut months, 1),
            Field::Days => (&mut micros, i128::from(DAY_MICROS)),
            Field::Hours => (&mut micros, 3_600 * i128::from(SECOND_MICROS)),
            Field::Minutes => (&mut micros, 60 * i128::from(SECOND_MICROS)),
            Field::Seconds => (&mut micros, i128::from(SECOND_MICROS)),
            Field::Micros => (&mut micros, 1),
        };
        *target = target.checked_add(n.checked_mul(scale)?)?;
    }
    let sign = if negative { -1 } else { 1 };
    Some(Amount {
        months: months * sign,
        micros: micros * sign,
        fsp: if unit.has_micros() { 6 } else { 0 },
    })
}

impl Amount {
    pub fn negated(self) -> Amount {
        Amount {
            months: -self.months,
            micros: -self.micros,
            fsp: self.fsp,
        }
    }
}

/// A datetime plus an amount; None when the result leaves years 1-9999 (MariaDB's datetime
/// field overflow) or the date is not a real day.
pub fn add(dt: DateTime, a: Amount) -> Option<DateTime> {
    if !calendar::is_full(dt.date) {
        return None;
    }
    if a.months != 0 {
        return add_months(dt, a.months);
    }
    let at = i128::from(convert::to_micros(dt)).checked_add(a.micros)?;
    convert::from_micros(i64::try_from(at).ok()?)
}

/// Months added, the day cut to the new month's length.
fn add_months(dt: DateTime, months: i128) -> Option<DateTime> {
    let total =
        (i128::from(dt.date.year) * 12 + i128::from(dt.date.month) - 1).checked_add(months)?;
    if !(0..=9999 * 12 + 11).contains(&total) {
        return None;
    }
    let year = (total / 12) as u16;
    let month = (total % 12) as u8 + 1;
    let day = dt
        .date
        .day
        .min(calendar::month_days(i64::from(year), month));
    Some(DateTime {
        date: Date { year, month, day },
        ..dt
    })
}

/// TIMESTAMPDIFF(unit, a, b): whole units from a to b, truncated toward zero.
pub fn units_between(unit: Unit, a: DateTime, b: DateTime) -> Option<i64> {
    let (earlier, later, sign) = if b >= a { (a, b, 1) } else { (b, a, -1) };
    let n = match unit {
        Unit::Month | Unit::Quarter | Unit::Year | Unit::YearMonth => {
            let months = months_between(earlier, later);
            match unit {
                Unit::Quarter => months / 3,
                Unit::Year => months / 12,
                _ => months,
            }
        }
        _ => {
            let micros = convert::to_micros(later) - convert::to_micros(earlier);
            let per: i64 = match unit {
                Unit::Microsecond => 1,
                Unit::Second => SECOND_MICROS,
                Unit::Minute => 60 * SECOND_MICROS,
                Unit::Hour => 3_600 * SECOND_MICROS,
                Unit::Day => DAY_MICROS,
                Unit::Week => 7 * DAY_MICROS,
                _ => return None,
            };
            micros / per
        }
    };
    Some(n * sign)
}

/// Whole months from `a` to a later `b`: a month counts once b's day and time reach a's.
fn months_between(a: DateTime, b: DateTime) -> i64 {
    let mut months = (i64::from(b.date.year) - i64::from(a.date.year)) * 12
        + i64::from(b.date.month)
        - i64::from(a.date.month);
    let rest = |dt: DateTime| (dt.date.day, convert::time_of_day(dt));
    if rest(b) < rest(a) {
        months -= 1;
    }
    months
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime {
        convert::stamp_from_text(s).unwrap().dt
    }

    #[test]
    fn amounts_read_as_mariadb_reads_them() {
        let a = amount(&Value::from("1 2"), Unit::DayHour).unwrap();
        assert_eq!(a.micros, 26 * 3_600 * i128::from(SECOND_MICROS));
        let b = amount(&Value::from("1.5"), Unit::MinuteSecond).unwrap();
        assert_eq!(b.micros, 65 * i128::from(SECOND_MICROS));
        let c = amount(&Value::from("-1-2"), Unit::YearMonth).unwrap();
        assert_eq!(c.months, -14);
        assert_eq!(amount(&Value::from("1:2:3:4"), Unit::HourSecond), None);
    }

    #[test]
    fn months_clamp_and_ranges_hold() {
        let a = Amount {
            months: 1,
            micros: 0,
            fsp: 0,
        };
        assert_eq!(add(at("2024-01-31"), a), Some(at("2024-02-29")));
        let huge = Amount {
            months: 0,
            micros: i128::MAX,
            fsp: 0,
        };
        assert_eq!(add(at("2024-01-31"), huge), None);
        let months = Amount {
            months: i128::MAX,
            micros: 0,
            fsp: 0,
        };
        assert_eq!(add(at("2024-01-31"), months), None);
        assert_eq!(
            units_between(Unit::Month, at("2024-01-31"), at("2024-02-29")),
            Some(0)
        );
        assert_eq!(
            units_between(Unit::Day, at("2024-03-01"), at("2024-02-01")),
            Some(-29)
        );
    }
}
