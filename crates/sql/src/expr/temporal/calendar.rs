//! Calendar arithmetic as MariaDB counts it: day numbers from year 0 (TO_DAYS, which takes
//! year 0 as a common year), dates back from them, weekdays, and week numbers by WEEK's modes.

use base::value::{days_in_month, Date};

/// The first and last day numbers FROM_DAYS turns into a date (0001-01-01 and 9999-12-31).
pub const DAYNR_FIRST: i64 = 366;
pub const DAYNR_LAST: i64 = 3_652_424;
/// Day number of 1970-01-01.
pub const DAYNR_EPOCH: i64 = 719_528;

/// WEEK's mode bits: weeks start on Monday; weeks belong to the year holding their Thursday
/// (or Sunday/Monday) and run 1-53; week 1 is the first with the first day of the week in it.
pub const WEEK_MONDAY_FIRST: u8 = 1;
pub const WEEK_YEAR: u8 = 2;
pub const WEEK_FIRST_WEEKDAY: u8 = 4;

pub fn is_leap(year: i64) -> bool {
    year != 0 && year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

pub fn days_in_year(year: i64) -> i64 {
    if is_leap(year) {
        366
    } else {
        365
    }
}

/// True when the date names a real day (no zero month or day, the day within its month).
pub fn is_full(d: Date) -> bool {
    d.month >= 1 && d.month <= 12 && d.day >= 1 && d.day <= month_days(i64::from(d.year), d.month)
}

/// Days in a month, year 0 being a common year.
pub fn month_days(year: i64, month: u8) -> u8 {
    if month == 2 && year == 0 {
        28
    } else {
        days_in_month(year.clamp(0, 9999) as u16, month)
    }
}

/// TO_DAYS: 0000-01-01 is day 1, year 0 a common year. Zero months and days count as
/// MariaDB counts them (the day before the 1st, the month before January), 0000-00-00 is 0.
pub fn daynr(d: Date) -> i64 {
    let (mut y, m, day) = (i64::from(d.year), i64::from(d.month), i64::from(d.day));
    if y == 0 && m == 0 {
        return 0;
    }
    let mut days = 365 * y + 31 * (m - 1) + day;
    if m <= 2 {
        y -= 1;
    } else {
        // Months after February are shorter than 31 days by this much so far.
        days -= (m * 4 + 23) / 10;
    }
    // Leap days before the year (year -1 has none: Rust's division truncates, as C's).
    days + y / 4 - (y / 100 + 1) * 3 / 4
}

/// Day of the year, 1-366.
pub fn day_of_year(d: Date) -> i64 {
    daynr(d)
        - daynr(Date {
            month: 1,
            day: 1,
            ..d
        })
        + 1
}

/// The date of a day number: None outside 0001-01-01 ..= 9999-12-31 (FROM_DAYS's range).
pub fn date_of_daynr(n: i64) -> Option<Date> {
    if !(DAYNR_FIRST..=DAYNR_LAST).contains(&n) {
        return None;
    }
    Some(civil_from_epoch_days(n - DAYNR_EPOCH))
}

/// The proleptic Gregorian date `days` after 1970-01-01 (years 1-9999 only).
fn civil_from_epoch_days(days: i64) -> Date {
    // Count in 400-year eras starting on March 1st, so leap days end each era's years.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    Date {
        year: year as u16,
        month: month as u8,
        day: day as u8,
    }
}

/// The weekday of a day number: 0 is Monday, or Sunday when `sunday_first`.
pub fn weekday(daynr: i64, sunday_first: bool) -> i64 {
    (daynr + 5 + i64::from(sunday_first)).rem_euclid(7)
}

/// WEEK's mode (0-7) as mode bits: without MONDAY_FIRST the FIRST_WEEKDAY bit flips.
pub fn week_flags(mode: i64) -> u8 {
    let mut flags = (mode & 7) as u8;
    if flags & WEEK_MONDAY_FIRST == 0 {
        flags ^= WEEK_FIRST_WEEKDAY;
    }
    flags
}

/// The week of a full date under `flags`, with the year it belongs to.
pub fn week(d: Date, flags: u8) -> (i64, i64) {
    let monday_first = flags & WEEK_MONDAY_FIRST != 0;
    let mut week_year = flags & WEEK_YEAR != 0;
    let first_weekday = flags & WEEK_FIRST_WEEKDAY != 0;
    let day = daynr(d);
    let mut year = i64::from(d.year);
    let mut first = daynr(Date {
        year: d.year,
        month: 1,
        day: 1,
    });
    let mut wd = weekday(first, !monday_first);
    // Whether a year whose January 1st falls on weekday `wd` starts with a partial week 0.
    let starts_late = |wd: i64| {
        if first_weekday {
            wd != 0
        } else {
            wd >= 4
        }
    };
    if d.month == 1 && i64::from(d.day) <= 7 - wd {
        if !week_year && starts_late(wd) {
            return (year, 0);
        }
        week_year = true;
        year -= 1;
        let days = days_in_year(year);
        first -= days;
        wd = (wd + 53 * 7 - days) % 7;
    }
    let days = if starts_late(wd) {
        day - (first + (7 - wd))
    } else {
        day - (first - wd)
    };
    if week_year && days >= 52 * 7 {
        let next_wd = (wd + days_in_year(year)) % 7;
        if !starts_late(next_wd) {
            return (year + 1, 1);
        }
    }
    (year, days / 7 + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(year: u16, month: u8, day: u8) -> Date {
        Date { year, month, day }
    }

    #[test]
    fn day_numbers_are_mariadbs() {
        assert_eq!(daynr(date(2024, 1, 2)), 739_252);
        assert_eq!(daynr(date(2024, 3, 1)), 739_311);
        assert_eq!(daynr(date(2024, 2, 0)), 739_281);
        assert_eq!(daynr(date(0, 0, 0)), 0);
        assert_eq!(daynr(date(1, 1, 1)), 366);
        assert_eq!(daynr(date(0, 3, 1)), 60);
        assert_eq!(date_of_daynr(739_252), Some(date(2024, 1, 2)));
        assert_eq!(date_of_daynr(DAYNR_LAST), Some(date(9999, 12, 31)));
        assert_eq!(date_of_daynr(365), None);
        for n in [366, 700_000, 738_000, 739_251, 3_000_000] {
            assert_eq!(date_of_daynr(n).map(daynr), Some(n));
        }
    }

    #[test]
    fn weeks_follow_the_modes() {
        let d = date(2024, 1, 2);
        assert_eq!(weekday(daynr(d), false), 1);
        assert_eq!(week(d, week_flags(0)).1, 0);
        assert_eq!(week(d, week_flags(3)).1, 1);
        assert_eq!(week(d, week_flags(0) | WEEK_YEAR), (2023, 53));
        assert_eq!(week(date(2024, 12, 30), week_flags(3)), (2025, 1));
    }
}
