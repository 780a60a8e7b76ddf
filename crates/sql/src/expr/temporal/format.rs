//! DATE_FORMAT and TIME_FORMAT's `%` specifiers, and STR_TO_DATE's reading of text by them,
//! as MariaDB does both (names in English; a specifier that needs a day the date lacks gives
//! NULL).

use base::value::Date;

use super::calendar::{self, WEEK_FIRST_WEEKDAY, WEEK_MONDAY_FIRST, WEEK_YEAR};

pub const DAY_NAMES: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];
pub const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// What a formatter reads: a date (maybe with zero parts) and a time whose hours may pass 23
/// (TIME_FORMAT's spans).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Parts {
    pub date: Date,
    pub negative: bool,
    pub hours: u64,
    pub minutes: u8,
    pub seconds: u8,
    pub micros: u32,
}

/// The text of `fmt` for `p`; None when a specifier needs a month, weekday or week the date
/// does not have.
pub fn format(p: &Parts, fmt: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(fmt.len() * 2);
    if p.negative {
        out.push(b'-');
    }
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' || i + 1 == fmt.len() {
            out.push(fmt[i]);
            i += 1;
            continue;
        }
        specifier(p, fmt[i + 1], &mut out)?;
        i += 2;
    }
    Some(out)
}

/// Appends one specifier's text.
fn specifier(p: &Parts, c: u8, out: &mut Vec<u8>) -> Option<()> {
    let d = p.date;
    let hour12 = (p.hours % 24 + 11) % 12 + 1;
    let text = match c {
        b'M' => month_name(d.month)?.to_string(),
        b'b' => month_name(d.month)?[..3].to_string(),
        b'W' => day_name(d)?.to_string(),
        b'a' => day_name(d)?[..3].to_string(),
        b'D' => format!("{}{}", d.day, ordinal_suffix(d.day)),
        b'Y' => format!("{:04}", d.year),
        b'y' => format!("{:02}", d.year % 100),
        b'm' => format!("{:02}", d.month),
        b'c' => d.month.to_string(),
        b'd' => format!("{:02}", d.day),
        b'e' => d.day.to_string(),
        b'j' => format!("{:03}", calendar::day_of_year(with_month(d)?)),
        b'f' => format!("{:06}", p.micros),
        b'H' => format!("{:02}", p.hours),
        b'k' => p.hours.to_string(),
        b'h' | b'I' => format!("{hour12:02}"),
        b'l' => hour12.to_string(),
        b'i' => format!("{:02}", p.minutes),
        b'S' | b's' => format!("{:02}", p.seconds),
        b'p' => am_pm(p.hours).to_string(),
        b'r' => format!(
            "{hour12:02}:{:02}:{:02} {}",
            p.minutes,
            p.seconds,
            am_pm(p.hours)
        ),
        b'T' => format!("{:02}:{:02}:{:02}", p.hours, p.minutes, p.seconds),
        b'U' => format!("{:02}", week_of(d, WEEK_FIRST_WEEKDAY)?.1),
        b'u' => format!("{:02}", week_of(d, WEEK_MONDAY_FIRST)?.1),
        b'V' => format!("{:02}", week_of(d, WEEK_YEAR | WEEK_FIRST_WEEKDAY)?.1),
        b'v' => format!("{:02}", week_of(d, WEEK_YEAR | WEEK_MONDAY_FIRST)?.1),
        b'X' => format!("{:04}", week_of(d, WEEK_YEAR | WEEK_FIRST_WEEKDAY)?.0),
        b'x' => format!("{:04}", week_of(d, WEEK_YEAR | WEEK_MONDAY_FIRST)?.0),
        b'w' => calendar::weekday(calendar::daynr(not_zero(d)?), true).to_string(),
        other => {
            out.push(other);
            return Some(());
        }
    };
    out.extend_from_slice(text.as_bytes());
    Some(())
}

/// A date not 0000-00-00 (weekdays of other zero parts count as MariaDB's day numbers do).
fn not_zero(d: Date) -> Option<Date> {
    (d.year != 0 || d.month != 0).then_some(d)
}

/// A date with a month (days of the year and weeks need one).
fn with_month(d: Date) -> Option<Date> {
    (d.month != 0).then_some(d)
}

fn month_name(month: u8) -> Option<&'static str> {
    MONTH_NAMES.get(usize::from(month).checked_sub(1)?).copied()
}

fn day_name(d: Date) -> Option<&'static str> {
    let wd = calendar::weekday(calendar::daynr(not_zero(d)?), false);
    Some(DAY_NAMES[wd as usize])
}

fn week_of(d: Date, flags: u8) -> Option<(i64, i64)> {
    Some(calendar::week(with_month(d)?, flags))
}

fn am_pm(hours: u64) -> &'static str {
    if hours % 24 < 12 {
        "AM"
    } else {
        "PM"
    }
}

fn ordinal_suffix(day: u8) -> &'static str {
    match (day % 100, day % 10) {
        (11..=13, _) => "th",
        (_, 1) => "st",
        (_, 2) => "nd",
        (_, 3) => "rd",
        _ => "th",
    }
}

/// What a format's specifiers produce, for STR_TO_DATE's result type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Shape {
    pub date: bool,
    pub time: bool,
    pub fraction: bool,
}

pub fn shape(fmt: &[u8]) -> Shape {
    let mut s = Shape::default();
    let mut i = 0;
    while i + 1 < fmt.len() {
        if fmt[i] != b'%' {
            i += 1;
            continue;
        }
        match fmt[i + 1] {
            b'Y' | b'y' | b'm' | b'c' | b'd' | b'e' | b'M' | b'b' | b'j' | b'a' | b'W' | b'D'
            | b'U' | b'u' | b'V' | b'v' | b'X' | b'x' | b'w' => s.date = true,
            b'H' | b'k' | b'h' | b'I' | b'l' | b'i' | b's' | b'S' | b'p' | b'T' | b'r' => {
                s.time = true
            }
            b'f' => {
                s.time = true;
                s.fraction = true
            }
            _ => {}
        }
        i += 2;
    }
    s
}

/// What STR_TO_DATE read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Read {
    pub year: u16,
    pub month: u8,
    pub day: u8,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
    pub micros: u32,
}

/// The reader's state over the input.
struct Reader<'a> {
    input: &'a [u8],
    at: usize,
    read: Read,
    /// %h, %I or %l was read: the hour is on a 12-hour clock.
    twelve: bool,
    pm: bool,
    day_of_year: Option<u16>,
}

/// STR_TO_DATE(text, fmt): None when the text does not fit the format or a field is out of
/// range. Input left over is ignored (MariaDB warns); a format left over when the input ends
/// is ignored too.
pub fn parse(text: &[u8], fmt: &[u8]) -> Option<Read> {
    let mut r = Reader {
        input: text,
        at: 0,
        read: Read::default(),
        twelve: false,
        pm: false,
        day_of_year: None,
    };
    r.follow(fmt)?;
    r.finish()
}

impl Reader<'_> {
    fn follow(&mut self, fmt: &[u8]) -> Option<()> {
        let mut i = 0;
        while i < fmt.len() {
            self.skip_spaces();
            if self.at >= self.input.len() {
                break;
            }
            if fmt[i] == b'%' && i + 1 < fmt.len() {
                self.field(fmt[i + 1])?;
                i += 2;
                continue;
            }
            if !fmt[i].is_ascii_whitespace() {
                if self.input[self.at] != fmt[i] {
                    return None;
                }
                self.at += 1;
            }
            i += 1;
        }
        Some(())
    }

    fn skip_spaces(&mut self) {
        while self.at < self.input.len() && self.input[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    /// Up to `max` digits as a number, and how many digits there were (at least one).
    fn digits(&mut self, max: usize) -> Option<(u32, usize)> {
        let start = self.at;
        while self.at < self.input.len()
            && self.at - start < max
            && self.input[self.at].is_ascii_digit()
        {
            self.at += 1;
        }
        let n = self.at - start;
        if n == 0 {
            return None;
        }
        let text = std::str::from_utf8(&self.input[start..self.at]).ok()?;
        Some((text.parse().ok()?, n))
    }

    fn number<T: TryFrom<u32>>(&mut self, max: usize) -> Option<T> {
        T::try_from(self.digits(max)?.0).ok()
    }

    /// A name from `names` (whole, or its first three letters when `short`), case-blind; its
    /// position.
    fn name(&mut self, names: &[&str], short: bool) -> Option<usize> {
        let rest = &self.input[self.at..];
        for (i, n) in names.iter().enumerate() {
            let n = if short { &n[..3] } else { n };
            if rest.len() >= n.len() && rest[..n.len()].eq_ignore_ascii_case(n.as_bytes()) {
                self.at += n.len();
                return Some(i);
            }
        }
        None
    }

    fn field(&mut self, c: u8) -> Option<()> {
        match c {
            b'Y' => {
                let (y, n) = self.digits(4)?;
                self.read.year = if n <= 2 { two_digit_year(y) } else { y as u16 };
            }
            b'y' => self.read.year = two_digit_year(self.digits(2)?.0),
            b'm' | b'c' => self.read.month = self.number(2)?,
            b'd' | b'e' => self.read.day = self.number(2)?,
            b'D' => {
                self.read.day = self.number(2)?;
                self.at = (self.at + 2).min(self.input.len());
            }
            b'H' | b'k' => self.read.hour = self.number(2)?,
            b'h' | b'I' | b'l' => {
                self.read.hour = self.number(2)?;
                self.twelve = true;
            }
            b'i' => self.read.minute = self.number(2)?,
            b's' | b'S' => self.read.second = self.number(2)?,
            b'f' => {
                let (f, n) = self.digits(6)?;
                self.read.micros = f * 10u32.pow(6 - n as u32);
            }
            b'p' => {
                let i = self.name(&["AM", "PM"], false)?;
                if !self.twelve {
                    return None;
                }
                self.pm = i == 1;
            }
            b'M' => self.read.month = self.name(&MONTH_NAMES, false)? as u8 + 1,
            b'b' => self.read.month = self.name(&MONTH_NAMES, true)? as u8 + 1,
            b'W' => {
                self.name(&DAY_NAMES, false)?;
            }
            b'a' => {
                self.name(&DAY_NAMES, true)?;
            }
            b'j' => self.day_of_year = Some(self.number(3)?),
            b'U' | b'u' | b'V' | b'v' => {
                self.digits(2)?;
            }
            b'X' | b'x' => {
                self.digits(4)?;
            }
            b'w' => {
                self.digits(1)?;
            }
            b'T' => self.follow(b"%H:%i:%S")?,
            b'r' => self.follow(b"%I:%i:%S %p")?,
            b'.' => self.skip_while(|b| b.is_ascii_punctuation()),
            b'@' => self.skip_while(|b| b.is_ascii_alphabetic()),
            b'#' => self.skip_while(|b| b.is_ascii_digit()),
            other => {
                if self.input[self.at] != other {
                    return None;
                }
                self.at += 1;
            }
        }
        Some(())
    }

    fn skip_while(&mut self, f: impl Fn(u8) -> bool) {
        while self.at < self.input.len() && f(self.input[self.at]) {
            self.at += 1;
        }
    }

    fn finish(mut self) -> Option<Read> {
        if self.twelve {
            if self.read.hour == 0 || self.read.hour > 12 {
                return None;
            }
            self.read.hour = self.read.hour % 12 + if self.pm { 12 } else { 0 };
        }
        if let Some(yday) = self.day_of_year {
            let first = calendar::daynr(Date {
                year: self.read.year,
                month: 1,
                day: 1,
            });
            let d = calendar::date_of_daynr(first + i64::from(yday) - 1)?;
            self.read.month = d.month;
            self.read.day = d.day;
        }
        let r = self.read;
        let fits = r.month <= 12 && r.day <= 31 && r.hour <= 23 && r.minute <= 59 && r.second <= 59;
        fits.then_some(r)
    }
}

fn two_digit_year(y: u32) -> u16 {
    (if y < 70 { 2000 + y } else { 1900 + y }) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(y: u16, m: u8, d: u8, h: u64) -> Parts {
        Parts {
            date: Date {
                year: y,
                month: m,
                day: d,
            },
            hours: h,
            minutes: 4,
            seconds: 5,
            ..Parts::default()
        }
    }

    fn text(p: &Parts, fmt: &str) -> Option<String> {
        format(p, fmt.as_bytes()).map(|t| String::from_utf8(t).unwrap())
    }

    #[test]
    fn specifiers_print_as_mariadb_prints_them() {
        let p = parts(2024, 1, 2, 15);
        assert_eq!(text(&p, "%Y %j %W").as_deref(), Some("2024 002 Tuesday"));
        assert_eq!(
            text(&p, "%D %b %a %r %T %p %%").as_deref(),
            Some("2nd Jan Tue 03:04:05 PM 15:04:05 PM %")
        );
        assert_eq!(
            text(&p, "%U %u %V %v %X %x").as_deref(),
            Some("00 01 53 01 2023 2024")
        );
        assert_eq!(text(&parts(0, 0, 0, 0), "%W"), None);
        assert_eq!(
            text(&parts(2024, 0, 0, 0), "%W").as_deref(),
            Some("Thursday")
        );
        assert_eq!(
            text(&parts(0, 0, 0, 100), "%H %k %h %i").as_deref(),
            Some("100 100 04 04")
        );
    }

    #[test]
    fn text_is_read_by_the_format() {
        let r = parse(b"Jan 5 2024 3:04:05 PM", b"%b %e %Y %r").unwrap();
        assert_eq!((r.year, r.month, r.day, r.hour), (2024, 1, 5, 15));
        let r = parse(b"01/02", b"%d/%m/%Y").unwrap();
        assert_eq!((r.year, r.month, r.day), (0, 2, 1));
        assert_eq!(parse(b"abc", b"%Y"), None);
        assert_eq!(parse(b"13/13/2024", b"%d/%m/%Y"), None);
    }
}
