//! Date and time functions with MariaDB 10.11's semantics and result types: the current time
//! (fixed per statement, never folded into a plan), parts of dates and times, INTERVAL
//! arithmetic, differences, DATE_FORMAT/STR_TO_DATE, and Unix times. The session time zone is
//! UTC (what MariaDB's time_zone=SYSTEM gives on a UTC machine).

mod calendar;
mod convert;
mod format;
mod interval;

use base::value::{Date, DateTime, DateTimeText, Decimal, Time};
use base::Value;
use myproto::response::types;
use sqlparser::ast::{self, Expr as Ast};

use crate::expr::funcs::Func;
use crate::expr::{Compiler, Env, Expr};
use crate::foundation::error::SqlError;
use calendar::{DAYNR_EPOCH, WEEK_YEAR};
use convert::{Span, Stamp, DAY_MICROS, SECOND_MICROS};
pub use interval::Unit;

type Result<T> = std::result::Result<T, SqlError>;

/// The largest fractional-seconds precision.
const FSP_MAX: u8 = 6;

/// Date and time functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Temporal {
    Now,
    SysDate,
    CurDate,
    CurTime,
    UnixTimestamp,
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    Microsecond,
    DayOfWeek,
    Weekday,
    DayOfYear,
    DayName,
    MonthName,
    Quarter,
    Week,
    YearWeek,
    LastDay,
    ToDays,
    FromDays,
    Extract(Unit),
    Date,
    Time,
    Timestamp,
    TimeToSec,
    SecToTime,
    MakeDate,
    MakeTime,
    /// DATE_ADD, or DATE_SUB (true): `d ± INTERVAL n unit`.
    AddInterval(Unit, bool),
    /// ADDDATE(d, n) or SUBDATE(d, n) (true): n days.
    AddDays(bool),
    /// ADDTIME(d, t) or SUBTIME(d, t) (true): a time added to a datetime or a time.
    AddTime(bool),
    DateDiff,
    TimeDiff,
    TimestampDiff(Unit),
    TimestampAdd(Unit),
    DateFormat,
    TimeFormat,
    StrToDate,
    FromUnixtime,
}

impl Temporal {
    /// The function a name calls, with its least and most arguments.
    pub(crate) fn from_name(name: &str) -> Option<(Temporal, usize, usize)> {
        use Temporal::*;
        Some(match name {
            "now" | "current_timestamp" | "localtime" | "localtimestamp" | "utc_timestamp" => {
                (Now, 0, 1)
            }
            "sysdate" => (SysDate, 0, 1),
            "curdate" | "current_date" | "utc_date" => (CurDate, 0, 0),
            "curtime" | "current_time" | "utc_time" => (CurTime, 0, 1),
            "unix_timestamp" => (UnixTimestamp, 0, 1),
            "year" => (Year, 1, 1),
            "month" => (Month, 1, 1),
            "day" | "dayofmonth" => (Day, 1, 1),
            "hour" => (Hour, 1, 1),
            "minute" => (Minute, 1, 1),
            "second" => (Second, 1, 1),
            "microsecond" => (Microsecond, 1, 1),
            "dayofweek" => (DayOfWeek, 1, 1),
            "weekday" => (Weekday, 1, 1),
            "dayofyear" => (DayOfYear, 1, 1),
            "dayname" => (DayName, 1, 1),
            "monthname" => (MonthName, 1, 1),
            "quarter" => (Quarter, 1, 1),
            "week" => (Week, 1, 2),
            "yearweek" => (YearWeek, 1, 2),
            "last_day" => (LastDay, 1, 1),
            "to_days" => (ToDays, 1, 1),
            "from_days" => (FromDays, 1, 1),
            "date" => (Date, 1, 1),
            "time" => (Time, 1, 1),
            "timestamp" => (Timestamp, 1, 2),
            "addtime" => (AddTime(false), 2, 2),
            "subtime" => (AddTime(true), 2, 2),
            "time_to_sec" => (TimeToSec, 1, 1),
            "sec_to_time" => (SecToTime, 1, 1),
            "makedate" => (MakeDate, 2, 2),
            "maketime" => (MakeTime, 3, 3),
            "datediff" => (DateDiff, 2, 2),
            "timediff" => (TimeDiff, 2, 2),
            "date_format" => (DateFormat, 2, 2),
            "time_format" => (TimeFormat, 2, 2),
            "str_to_date" => (StrToDate, 2, 2),
            "from_unixtime" => (FromUnixtime, 1, 2),
            _ => return None,
        })
    }

    /// Functions MariaDB's grammar names (a wrong argument count there is a syntax error,
    /// not ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT).
    pub(crate) fn in_grammar(name: &str) -> bool {
        matches!(
            name,
            "now"
                | "current_timestamp"
                | "localtime"
                | "localtimestamp"
                | "utc_timestamp"
                | "sysdate"
                | "curdate"
                | "current_date"
                | "utc_date"
                | "curtime"
                | "current_time"
                | "utc_time"
                | "year"
                | "month"
                | "day"
                | "hour"
                | "minute"
                | "second"
                | "date"
                | "time"
                | "timestamp"
                | "date_add"
                | "date_sub"
                | "adddate"
                | "subdate"
                | "timestampadd"
                | "timestampdiff"
        )
    }

    /// The functions whose one optional argument is a fractional-seconds precision.
    fn takes_precision(self) -> bool {
        matches!(self, Temporal::Now | Temporal::SysDate | Temporal::CurTime)
    }
}

/// Checks a compiled call: NOW(n) and the like take a constant precision of at most 6.
pub(crate) fn check(t: Temporal, name: &str, args: &[Expr]) -> Result<()> {
    if !t.takes_precision() {
        return Ok(());
    }
    match args.first() {
        None => Ok(()),
        Some(Expr::Const(Value::Int(n))) if (0..=i64::from(FSP_MAX)).contains(n) => Ok(()),
        Some(Expr::Const(v)) => Err(SqlError::new(
            1426,
            "42000",
            format!("Too big precision {v} specified for '{name}'. Maximum is {FSP_MAX}"),
        )),
        Some(_) => Err(SqlError::parse(format!(
            "{name}() takes a constant precision"
        ))),
    }
}

// ------------------------------------------------------------------ compiling special forms

/// Compiles the calls whose arguments are not all expressions: DATE_ADD and the like with
/// an INTERVAL, ADDDATE/SUBDATE, TIMESTAMPADD/TIMESTAMPDIFF with a unit. None: not one of them.
pub(crate) fn compile_call(
    c: &mut Compiler,
    name: &str,
    args: &[&ast::FunctionArg],
) -> Option<Result<Expr>> {
    let subtract = matches!(name, "date_sub" | "subdate");
    match name {
        "date_add" | "date_sub" | "adddate" | "subdate" => Some(date_add(c, name, args, subtract)),
        "timestampadd" | "timestampdiff" => Some(timestamp_unit_call(c, name, args)),
        _ => None,
    }
}

/// A wrong argument count: a syntax error for the functions of MariaDB's grammar.
pub(crate) fn wrong_count(name: &str) -> SqlError {
    if Temporal::in_grammar(name) {
        SqlError::parse(format!("{name}() takes other arguments"))
    } else {
        crate::expr::wrong_arguments(name)
    }
}

fn plain_arg(a: &ast::FunctionArg) -> Result<&Ast> {
    match a {
        ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => Ok(e),
        other => Err(SqlError::unsupported(format!("the argument {other}"))),
    }
}

fn date_add(
    c: &mut Compiler,
    name: &str,
    args: &[&ast::FunctionArg],
    subtract: bool,
) -> Result<Expr> {
    let [d, amount] = args else {
        return Err(wrong_count(name));
    };
    let d = c.compile(plain_arg(d)?)?;
    match plain_arg(amount)? {
        Ast::Interval(i) => interval_call(c, d, i, subtract),
        n if name == "adddate" || name == "subdate" => Ok(Expr::Call(
            Func::Temporal(Temporal::AddDays(subtract)),
            vec![d, c.compile(n)?],
        )),
        other => Err(SqlError::parse(format!(
            "{} takes an INTERVAL, not {other}",
            name.to_ascii_uppercase()
        ))),
    }
}

/// `d + INTERVAL n unit` (or minus): the call that adds it.
pub(crate) fn interval_call(
    c: &mut Compiler,
    d: Expr,
    i: &ast::Interval,
    subtract: bool,
) -> Result<Expr> {
    let unit = i
        .leading_field
        .as_ref()
        .and_then(Unit::from_field)
        .filter(|_| i.last_field.is_none())
        .ok_or_else(|| SqlError::unsupported(format!("the interval {i}")))?;
    let n = c.compile(&i.value)?;
    Ok(Expr::Call(
        Func::Temporal(Temporal::AddInterval(unit, subtract)),
        vec![d, n],
    ))
}

/// TIMESTAMPADD(unit, n, d) and TIMESTAMPDIFF(unit, a, b).
fn timestamp_unit_call(c: &mut Compiler, name: &str, args: &[&ast::FunctionArg]) -> Result<Expr> {
    let [unit, a, b] = args else {
        return Err(wrong_count(name));
    };
    let unit = match plain_arg(unit)? {
        Ast::Identifier(i) => Unit::from_name(&i.value),
        _ => None,
    }
    .filter(|u| u.is_simple())
    .ok_or_else(|| SqlError::parse(format!("{name} needs a unit such as DAY or SECOND")))?;
    let t = if name == "timestampadd" {
        Temporal::TimestampAdd(unit)
    } else {
        Temporal::TimestampDiff(unit)
    };
    let args = vec![c.compile(plain_arg(a)?)?, c.compile(plain_arg(b)?)?];
    Ok(Expr::Call(Func::Temporal(t), args))
}

/// EXTRACT(unit FROM e).
pub(crate) fn extract_call(field: &ast::DateTimeField, e: Expr) -> Result<Expr> {
    let unit = Unit::from_field(field)
        .ok_or_else(|| SqlError::unsupported(format!("EXTRACT of {field}")))?;
    Ok(Expr::Call(Func::Temporal(Temporal::Extract(unit)), vec![e]))
}

// ------------------------------------------------------------------ the clock

/// Microseconds since the Unix epoch now (UTC).
pub(crate) fn wall_clock_micros() -> i64 {
    base::value::unix_micros_now()
}

/// A Unix time in microseconds as a datetime (UTC); None outside years 1-9999.
fn unix_datetime(micros: i64) -> Option<DateTime> {
    convert::from_micros(micros.checked_add(DAYNR_EPOCH * DAY_MICROS)?)
}

/// The statement's start as a datetime, with `fsp` fraction digits kept.
fn statement_now(env: &Env, fsp: u8) -> DateTime {
    let mut dt = unix_datetime(env.ctx.statement_micros()).unwrap_or_default();
    dt.microsecond = truncate_micros(dt.microsecond, fsp);
    dt
}

fn truncate_micros(micros: u32, fsp: u8) -> u32 {
    let unit = 10u32.pow(u32::from(FSP_MAX - fsp.min(FSP_MAX)));
    micros / unit * unit
}

fn today(env: &Env) -> Date {
    statement_now(env, 0).date
}

/// A TIME read as a DATETIME, as MariaDB's CAST reads one: that long after the statement's
/// day began (a day or more, or a negative time, moves the date). None past year 9999.
pub(crate) fn time_on_today(env: &Env, t: base::value::Time) -> Option<DateTime> {
    let midnight = DateTime {
        date: today(env),
        ..DateTime::default()
    };
    convert::from_micros(convert::to_micros(midnight).checked_add(t.as_micros())?)
}

// ------------------------------------------------------------------ storing numbers

/// A number stored into a DATE, DATETIME, TIMESTAMP or TIME column, read as MariaDB reads it:
/// packed digits (20200101, 200101, 20200101101010; HHMMSS for a TIME), a fraction as
/// fractional seconds, 0 the zero value. Any other value, or a number that is no date or
/// time, is returned as it is (storing it then fails as before).
pub(crate) fn number_as_temporal(ty: base::ColumnType, v: Value) -> Value {
    use base::ColumnType as T;
    let temporal = matches!(
        ty,
        T::Date | T::DateTime { .. } | T::Timestamp { .. } | T::Time { .. }
    );
    // A string of digits (and a fraction) is read as the same digits as a number, as MariaDB
    // reads '20110101183025' or '183025'; other strings are left to the text reader.
    if let (true, Value::Bytes(b)) = (temporal, &v) {
        if let Some(number) = digits_as_number(b) {
            return match number_as_temporal(ty, number) {
                Value::Decimal(_) | Value::UInt(_) => v,
                read => read,
            };
        }
        return v;
    }
    let numeric = matches!(
        v,
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) | Value::Float(_)
    );
    if !numeric {
        return v;
    }
    match ty {
        T::Date => match convert::stamp(&v, Date::default()) {
            Some(s) => Value::Date(s.dt.date),
            None => v,
        },
        T::DateTime { .. } | T::Timestamp { .. } => match convert::stamp(&v, Date::default()) {
            Some(s) => Value::DateTime(s.dt),
            None => v,
        },
        T::Time { .. } => match convert::span(&v) {
            Some(s) => Value::Time(Time::from_micros(s.micros)),
            None => v,
        },
        _ => v,
    }
}

/// `text` as a number when it is digits with at most one `.` and digits after it (no sign, no
/// spaces): an unsigned integer, or a decimal.
fn digits_as_number(text: &[u8]) -> Option<Value> {
    let s = std::str::from_utf8(text).ok()?;
    let (whole, fraction) = match s.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (s, None),
    };
    let digits = |t: &str| !t.is_empty() && t.len() <= 20 && t.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || fraction.is_some_and(|f| !digits(f)) {
        return None;
    }
    match fraction {
        None => whole.parse().ok().map(Value::UInt),
        Some(_) => base::value::Decimal::parse(s).map(Value::Decimal),
    }
}

// ------------------------------------------------------------------ evaluation

pub(crate) fn call(t: Temporal, args: &[Expr], env: &Env) -> Result<Value> {
    let values: Vec<Value> = args.iter().map(|a| a.eval(env)).collect::<Result<_>>()?;
    if values.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    Ok(evaluate(t, &values, env).unwrap_or(Value::Null))
}

/// A call's value over non-NULL arguments; None is NULL.
fn evaluate(t: Temporal, v: &[Value], env: &Env) -> Option<Value> {
    use Temporal::*;
    match t {
        Now | SysDate | CurDate | CurTime | UnixTimestamp => current(t, v, env),
        Timestamp if v.len() == 2 => {
            let (s, t) = (stamp(&v[0], env)?, span(&v[1], env)?);
            let micros = i128::from(t.micros);
            interval::add(
                s.dt,
                interval::Amount {
                    months: 0,
                    micros,
                    fsp: t.fsp,
                },
            )
            .map(Value::DateTime)
        }
        Year | Month | Day | Quarter | Date | Timestamp | MonthName | LastDay => {
            date_part(t, stamp(&v[0], env)?)
        }
        AddTime(subtract) => add_time(&v[0], &v[1], subtract, env),
        DayOfWeek | Weekday | DayOfYear | DayName | ToDays | Week | YearWeek => {
            let mode = v.get(1).map_or(0, |m| interval::integer(m) as i64);
            day_part(t, full_stamp(&v[0], env)?.dt.date, mode)
        }
        Hour | Minute | Second | Microsecond | Time | TimeToSec => time_part(t, span(&v[0], env)?),
        Extract(unit) => extract(unit, &v[0], env),
        FromDays => {
            Some(Value::Date(
                calendar::date_of_daynr(
                    interval::integer(&v[0]).clamp(-1, i128::from(i64::MAX)) as i64
                )
                .unwrap_or_default(),
            ))
        }
        SecToTime => Some(convert::time_value(seconds_micros(&v[0])?)),
        MakeDate => make_date(&v[0], &v[1]),
        MakeTime => make_time(&v[0], &v[1], &v[2]),
        AddInterval(unit, subtract) => {
            let a = interval::amount(&v[1], unit)?;
            add_interval(&v[0], unit, if subtract { a.negated() } else { a }, env)
        }
        AddDays(subtract) => {
            let a = interval::amount(&v[1], Unit::Day)?;
            add_interval(
                &v[0],
                Unit::Day,
                if subtract { a.negated() } else { a },
                env,
            )
        }
        TimestampAdd(unit) => {
            let a = interval::amount(&v[0], unit)?;
            add_interval(&v[1], unit, a, env)
        }
        DateDiff => {
            let (a, b) = (full_stamp(&v[0], env)?, full_stamp(&v[1], env)?);
            Some(Value::Int(
                calendar::daynr(a.dt.date) - calendar::daynr(b.dt.date),
            ))
        }
        TimeDiff => time_diff(&v[0], &v[1], env),
        TimestampDiff(unit) => {
            let (a, b) = (full_stamp(&v[0], env)?, full_stamp(&v[1], env)?);
            interval::units_between(unit, a.dt, b.dt).map(Value::Int)
        }
        DateFormat => {
            let s = stamp(&v[0], env)?;
            formatted(&datetime_parts(s.dt), &v[1])
        }
        TimeFormat => formatted(&span_parts(span(&v[0], env)?), &v[1]),
        StrToDate => str_to_date(&v[0], &v[1]).or_else(|| {
            let text = base::text::value_text(&v[0]).unwrap_or_default();
            let text = String::from_utf8_lossy(&text);
            env.ctx.warn(
                1411,
                format!("Incorrect datetime value: '{text}' for function str_to_date"),
            );
            None
        }),
        FromUnixtime => from_unixtime(v),
    }
}

/// `v` read as a date and time; when it is none, MariaDB's warning 1292.
fn stamp(v: &Value, env: &Env) -> Option<Stamp> {
    convert::stamp(v, today(env)).or_else(|| incorrect(v, env))
}

/// `v` read as a date with no zero part; when it is none, warning 1292.
fn full_stamp(v: &Value, env: &Env) -> Option<Stamp> {
    convert::full_stamp(v, today(env)).or_else(|| incorrect(v, env))
}

/// `v` read as a time span; when it is none, warning 1292.
fn span(v: &Value, env: &Env) -> Option<convert::Span> {
    convert::span(v).or_else(|| incorrect_as("time", v, env))
}

/// Raises MariaDB's warning 1292 for a value no date function can read; None.
fn incorrect<T>(v: &Value, env: &Env) -> Option<T> {
    incorrect_as("datetime", v, env)
}

fn incorrect_as<T>(kind: &str, v: &Value, env: &Env) -> Option<T> {
    let text = base::text::value_text(v).unwrap_or_default();
    env.ctx.warn(
        1292,
        format!(
            "Incorrect {kind} value: '{}'",
            String::from_utf8_lossy(&text)
        ),
    );
    None
}

/// Raises MariaDB's warning 1441 for a date moved past the calendar's ends; None.
fn overflow<T>(env: &Env) -> Option<T> {
    env.ctx
        .warn(1441, "Datetime function: datetime field overflow".into());
    None
}

/// NOW(), SYSDATE(), CURDATE(), CURTIME(), UNIX_TIMESTAMP(...).
fn current(t: Temporal, v: &[Value], env: &Env) -> Option<Value> {
    let fsp = v
        .first()
        .map_or(0, |n| interval::integer(n).clamp(0, 6) as u8);
    Some(match t {
        Temporal::Now => Value::DateTime(statement_now(env, fsp)),
        Temporal::SysDate => {
            let mut dt = unix_datetime(wall_clock_micros())?;
            dt.microsecond = truncate_micros(dt.microsecond, fsp);
            Value::DateTime(dt)
        }
        Temporal::CurDate => Value::Date(today(env)),
        Temporal::CurTime => {
            let now = statement_now(env, fsp);
            Value::Time(Time::from_micros(convert::time_of_day(now)))
        }
        _ => match v.first() {
            None => Value::Int(env.ctx.statement_micros().div_euclid(SECOND_MICROS)),
            Some(d) => unix_timestamp(stamp(d, env)?)?,
        },
    })
}

/// UNIX_TIMESTAMP(d): seconds since 1970 (UTC), with d's fraction; None outside
/// 1970-01-01 00:00:00 ..= 2038-01-19 03:14:07.
fn unix_timestamp(s: Stamp) -> Option<Value> {
    if !calendar::is_full(s.dt.date) {
        return None;
    }
    let micros = convert::to_micros(s.dt) - DAYNR_EPOCH * DAY_MICROS;
    if !(0..=i64::from(i32::MAX) * SECOND_MICROS + 999_999).contains(&micros) {
        return None;
    }
    Some(seconds_value(micros, s.fsp))
}

/// Seconds as an integer, or a decimal with `fsp` fraction digits.
fn seconds_value(micros: i64, fsp: u8) -> Value {
    if fsp == 0 {
        return Value::Int(micros / SECOND_MICROS);
    }
    let unit = 10i64.pow(u32::from(FSP_MAX - fsp));
    Value::Decimal(Decimal::new(i128::from(micros / unit), fsp))
}

/// Parts that zero months and days allow.
fn date_part(t: Temporal, s: Stamp) -> Option<Value> {
    let d = s.dt.date;
    Some(match t {
        Temporal::Year => Value::Int(i64::from(d.year)),
        Temporal::Month => Value::Int(i64::from(d.month)),
        Temporal::Day => Value::Int(i64::from(d.day)),
        Temporal::Quarter => Value::Int((i64::from(d.month) + 2) / 3),
        Temporal::Date => Value::Date(d),
        Temporal::Timestamp => Value::DateTime(s.dt),
        Temporal::MonthName => {
            let name = format::MONTH_NAMES.get(usize::from(d.month).checked_sub(1)?)?;
            Value::Bytes(name.as_bytes().to_vec())
        }
        _ => {
            if d.month == 0 {
                return None;
            }
            let last = calendar::month_days(i64::from(d.year), d.month);
            Value::Date(Date { day: last, ..d })
        }
    })
}

/// Parts of a real day.
fn day_part(t: Temporal, d: Date, mode: i64) -> Option<Value> {
    let daynr = calendar::daynr(d);
    Some(match t {
        Temporal::DayOfWeek => Value::Int(calendar::weekday(daynr, true) + 1),
        Temporal::Weekday => Value::Int(calendar::weekday(daynr, false)),
        Temporal::DayOfYear => Value::Int(calendar::day_of_year(d)),
        Temporal::DayName => Value::Bytes(
            format::DAY_NAMES[calendar::weekday(daynr, false) as usize]
                .as_bytes()
                .to_vec(),
        ),
        Temporal::ToDays => Value::Int(daynr),
        Temporal::Week => Value::Int(calendar::week(d, calendar::week_flags(mode)).1),
        _ => {
            let (year, week) = calendar::week(d, calendar::week_flags(mode) | WEEK_YEAR);
            Value::Int(year * 100 + week)
        }
    })
}

/// Parts of a time span.
fn time_part(t: Temporal, s: Span) -> Option<Value> {
    let m = s.micros.unsigned_abs();
    let hour_micros = 3_600 * SECOND_MICROS as u64;
    Some(match t {
        Temporal::Hour => Value::Int((m / hour_micros) as i64),
        Temporal::Minute => Value::Int((m / 60_000_000 % 60) as i64),
        Temporal::Second => Value::Int((m / 1_000_000 % 60) as i64),
        Temporal::Microsecond => Value::Int((m % 1_000_000) as i64),
        Temporal::Time => convert::time_value(s.micros),
        _ => seconds_value(s.micros, s.fsp),
    })
}

/// EXTRACT(unit FROM v): units with days read a date, the others a time span.
fn extract(unit: Unit, v: &Value, env: &Env) -> Option<Value> {
    use Unit::*;
    let dated = matches!(
        unit,
        Year | Quarter
            | Month
            | Week
            | Day
            | YearMonth
            | DayHour
            | DayMinute
            | DaySecond
            | DayMicrosecond
    );
    if dated {
        let s = stamp(v, env)?;
        let d = s.dt.date;
        let (y, mo, day) = (i64::from(d.year), i64::from(d.month), i64::from(d.day));
        let clock = |dt: DateTime| {
            (
                i64::from(dt.hour),
                i64::from(dt.minute),
                i64::from(dt.second),
            )
        };
        let (h, mi, sec) = clock(s.dt);
        let us = i64::from(s.dt.microsecond);
        return Some(Value::Int(match unit {
            Year => y,
            Quarter => (mo + 2) / 3,
            Month => mo,
            Week => calendar::week(convert::full_stamp(v, today(env))?.dt.date, 4).1,
            Day => day,
            YearMonth => y * 100 + mo,
            DayHour => day * 100 + h,
            DayMinute => (day * 100 + h) * 100 + mi,
            DaySecond => ((day * 100 + h) * 100 + mi) * 100 + sec,
            _ => (((day * 100 + h) * 100 + mi) * 100 + sec) * 1_000_000 + us,
        }));
    }
    let s = span(v, env)?;
    let m = s.micros.unsigned_abs() as i64;
    let (h, mi, sec, us) = (
        m / 3_600_000_000,
        m / 60_000_000 % 60,
        m / 1_000_000 % 60,
        m % 1_000_000,
    );
    let n = match unit {
        Hour => h,
        Minute => mi,
        Second => sec,
        Microsecond => us,
        HourMinute => h * 100 + mi,
        HourSecond => (h * 100 + mi) * 100 + sec,
        HourMicrosecond => ((h * 100 + mi) * 100 + sec) * 1_000_000 + us,
        MinuteSecond => mi * 100 + sec,
        MinuteMicrosecond => (mi * 100 + sec) * 1_000_000 + us,
        _ => sec * 1_000_000 + us,
    };
    Some(Value::Int(if s.micros < 0 { -n } else { n }))
}

/// A number of seconds (with its fraction) in microseconds.
fn seconds_micros(v: &Value) -> Option<i64> {
    let micros = match crate::expr::num(v) {
        crate::expr::Num::Int(i) => i.saturating_mul(i128::from(SECOND_MICROS)),
        crate::expr::Num::Dec(d) => base::value::saturating_i128(d.rescale(6)?.mantissa()),
        crate::expr::Num::Dbl(x) => (x * 1e6).round().clamp(-1e30, 1e30) as i128,
    };
    Some(micros.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64)
}

/// MAKEDATE(year, day of year).
fn make_date(year: &Value, day: &Value) -> Option<Value> {
    let (y, n) = (interval::integer(year), interval::integer(day));
    if !(0..=9999).contains(&y) || n <= 0 {
        return None;
    }
    let y = match y {
        0..=69 => y + 2000,
        70..=99 => y + 1900,
        _ => y,
    } as u16;
    let first = calendar::daynr(Date {
        year: y,
        month: 1,
        day: 1,
    });
    let n = i64::try_from(n).ok()?;
    calendar::date_of_daynr(first.checked_add(n - 1)?).map(Value::Date)
}

/// MAKETIME(hours, minutes, seconds): minutes and seconds must be under 60.
fn make_time(h: &Value, m: &Value, s: &Value) -> Option<Value> {
    let (h, m) = (interval::integer(h), interval::integer(m));
    let s = seconds_micros(s)?;
    if !(0..60).contains(&m) || !(0..60 * SECOND_MICROS).contains(&s) {
        return None;
    }
    let h = h.clamp(-1_000_000, 1_000_000) as i64;
    let magnitude = (h.abs() * 60 + m as i64) * 60 * SECOND_MICROS + s;
    Some(convert::time_value(if h < 0 {
        -magnitude
    } else {
        magnitude
    }))
}

/// DATE_ADD and its kin: the result's kind follows the argument's (a DATE stays a DATE for
/// units of days or more, a TIME stays a TIME, text and numbers give text).
fn add_interval(v: &Value, unit: Unit, a: interval::Amount, env: &Env) -> Option<Value> {
    match v {
        Value::Time(t) => {
            if unit.is_monthly() {
                return None;
            }
            let micros = i128::from(t.as_micros()).checked_add(a.micros)?;
            convert::time_value_exact(i64::try_from(micros).ok()?)
        }
        Value::Date(d) => {
            let dt = interval::add(convert::midnight(*d), a).or_else(|| overflow(env))?;
            Some(if unit.is_date_only() {
                Value::Date(dt.date)
            } else {
                Value::DateTime(dt)
            })
        }
        Value::DateTime(dt) => interval::add(*dt, a)
            .map(Value::DateTime)
            .or_else(|| overflow(env)),
        other => {
            let s = stamp(other, env)?;
            let dt = interval::add(s.dt, a).or_else(|| overflow(env))?;
            Some(Value::Bytes(if !s.has_time && unit.is_date_only() {
                dt.date.to_string().into_bytes()
            } else {
                DateTimeText(dt, s.fsp.max(a.fsp)).to_string().into_bytes()
            }))
        }
    }
}

/// ADDTIME(a, b) or SUBTIME: time span `b` added to (taken from) `a`, a datetime (a DATE
/// becomes one) or a time; text stays text, a datetime's or a time's as `a` reads.
fn add_time(a: &Value, b: &Value, subtract: bool, env: &Env) -> Option<Value> {
    let t = span(b, env)?;
    let micros = if subtract { -t.micros } else { t.micros };
    let amount = interval::Amount {
        months: 0,
        micros: i128::from(micros),
        fsp: t.fsp,
    };
    // Text shows six fraction digits when the result has a fraction, else none (MariaDB's).
    let digits = |micros: i64| if micros % 1_000_000 == 0 { 0 } else { FSP_MAX };
    match a {
        // Text of a date alone reads as a time, as MariaDB reads it ('2024-01-01' is 00:20:24).
        Value::Bytes(_) if dated(a) => {
            let dt = interval::add(stamp(a, env)?.dt, amount).or_else(|| overflow(env))?;
            let fsp = digits(i64::from(dt.microsecond));
            Some(Value::Bytes(DateTimeText(dt, fsp).to_string().into_bytes()))
        }
        Value::Bytes(_) => {
            let sum = span(a, env)?.micros.checked_add(micros)?;
            let time = convert::time_value_exact(sum)?;
            let fsp = digits(sum);
            Some(Value::Bytes(
                time.to_text(base::types::ColumnType::Time { fsp })?
                    .to_vec(),
            ))
        }
        _ => add_interval(a, Unit::Microsecond, amount, env),
    }
}

/// TIMEDIFF(a, b): both datetimes or both times, else NULL.
fn time_diff(a: &Value, b: &Value, env: &Env) -> Option<Value> {
    let micros = match (dated(a), dated(b)) {
        (true, true) => {
            let (x, y) = (stamp(a, env)?, stamp(b, env)?);
            if !calendar::is_full(x.dt.date) || !calendar::is_full(y.dt.date) {
                return None;
            }
            convert::to_micros(x.dt) - convert::to_micros(y.dt)
        }
        (false, false) => span(a, env)?.micros - span(b, env)?.micros,
        _ => return None,
    };
    Some(convert::time_value(micros))
}

/// Whether TIMEDIFF reads a value as a datetime: a DATE, a DATETIME, or text of a date and a
/// time (text of a date alone it reads as a time, as MariaDB).
fn dated(v: &Value) -> bool {
    match v {
        Value::Date(_) | Value::DateTime(_) => true,
        Value::Bytes(b) => {
            let text = String::from_utf8_lossy(b);
            convert::text_is_dated(&text)
                && convert::stamp_from_text(&text).is_some_and(|s| s.has_time)
        }
        _ => false,
    }
}

fn datetime_parts(dt: DateTime) -> format::Parts {
    format::Parts {
        date: dt.date,
        negative: false,
        hours: u64::from(dt.hour),
        minutes: dt.minute,
        seconds: dt.second,
        micros: dt.microsecond,
    }
}

fn span_parts(s: Span) -> format::Parts {
    let t = Time::from_micros(
        s.micros
            .clamp(-convert::TIME_MAX_MICROS, convert::TIME_MAX_MICROS),
    );
    format::Parts {
        date: Date::default(),
        negative: t.negative && s.micros != 0,
        hours: u64::from(t.hours),
        minutes: t.minutes,
        seconds: t.seconds,
        micros: t.microseconds,
    }
}

fn formatted(p: &format::Parts, fmt: &Value) -> Option<Value> {
    format::format(p, &base::text::value_text(fmt)?).map(Value::Bytes)
}

/// STR_TO_DATE(text, fmt): a DATE, TIME or DATETIME by what the format reads.
fn str_to_date(text: &Value, fmt: &Value) -> Option<Value> {
    let fmt = base::text::value_text(fmt)?;
    let r = format::parse(&base::text::value_text(text)?, &fmt)?;
    let date = Date {
        year: r.year,
        month: r.month,
        day: r.day,
    };
    let shape = format::shape(&fmt);
    Some(match (shape.date, shape.time) {
        (_, false) => Value::Date(date),
        (false, true) => Value::Time(Time {
            negative: false,
            hours: u16::from(r.hour),
            minutes: r.minute,
            seconds: r.second,
            microseconds: r.micros,
        }),
        _ => Value::DateTime(DateTime {
            date,
            hour: r.hour,
            minute: r.minute,
            second: r.second,
            microsecond: r.micros,
        }),
    })
}

/// FROM_UNIXTIME(n[, fmt]): None outside 0 ..= 2^31 - 1 seconds.
fn from_unixtime(v: &[Value]) -> Option<Value> {
    let micros = match &v[0] {
        Value::Bytes(b) => {
            let text = String::from_utf8_lossy(b);
            let d = Decimal::parse(text.trim()).unwrap_or(Decimal::new(0, 0));
            seconds_micros(&Value::Decimal(d))?
        }
        other => seconds_micros(other)?,
    };
    if !(0..=i64::from(i32::MAX) * SECOND_MICROS + 999_999).contains(&micros) {
        return None;
    }
    let dt = unix_datetime(micros)?;
    match v.get(1) {
        None => Some(Value::DateTime(dt)),
        Some(fmt) => formatted(&datetime_parts(dt), fmt),
    }
}

// ------------------------------------------------------------------ result types

/// The result type of a call: (type code, display length, decimals), as MariaDB announces it.
pub(crate) fn result_type(
    t: Temporal,
    args: &[Expr],
    arg_type: &dyn Fn(&Expr) -> (u8, u32, u8),
) -> (u8, u32, u8) {
    use Temporal::*;
    let fsp_arg = |i: usize| args.get(i).map_or(0, |a| fsp_of(a, arg_type));
    let constant_fsp = || match args.first() {
        Some(Expr::Const(Value::Int(n))) => (*n).clamp(0, 6) as u8,
        _ => 0,
    };
    match t {
        Now | SysDate => datetime_type(constant_fsp()),
        CurTime => time_type(constant_fsp()),
        CurDate | LastDay | FromDays | MakeDate | Date => (types::DATE, 10, 0),
        UnixTimestamp | TimeToSec => match fsp_arg(0) {
            0 => (types::LONGLONG, 17, 0),
            f => (types::NEWDECIMAL, 18 + u32::from(f), f),
        },
        Year => (types::LONG, 4, 0),
        Month | Day | Hour | Minute | Second | Week => (types::LONG, 2, 0),
        Microsecond | YearWeek | ToDays => (types::LONG, 6, 0),
        DayOfWeek | Weekday | Quarter => (types::LONG, 1, 0),
        DayOfYear => (types::LONG, 3, 0),
        DateDiff => (types::LONG, 8, 0),
        Extract(_) => (types::LONG, 8, 0),
        TimestampDiff(_) => (types::LONGLONG, 21, 0),
        DayName | MonthName => (types::VAR_STRING, 36, 0),
        DateFormat | TimeFormat => (types::VAR_STRING, 256, 0),
        Time => time_type(fsp_arg(0)),
        SecToTime => time_type(fsp_arg(0)),
        MakeTime => time_type(fsp_arg(2)),
        Timestamp => datetime_type(fsp_arg(0).max(fsp_arg(1))),
        AddTime(_) => {
            let fsp = fsp_arg(0).max(fsp_arg(1));
            match arg_type(&args[0]).0 {
                types::DATE | types::DATETIME | types::TIMESTAMP => datetime_type(fsp),
                types::TIME => time_type(fsp),
                // Text: a datetime with six fraction digits at most, four bytes a character.
                _ => (types::VAR_STRING, 26 * 4, FSP_MAX),
            }
        }
        TimeDiff => time_type(fsp_arg(0).max(fsp_arg(1))),
        AddInterval(unit, _) => added_type(unit, interval_fsp(unit, &args[1]), &args[0], arg_type),
        AddDays(_) => added_type(Unit::Day, 0, &args[0], arg_type),
        TimestampAdd(unit) => added_type(unit, interval_fsp(unit, &args[0]), &args[1], arg_type),
        StrToDate => str_to_date_type(args.get(1)),
        FromUnixtime if args.len() > 1 => (types::VAR_STRING, 256, 0),
        FromUnixtime => datetime_type(fsp_arg(0)),
    }
}

fn datetime_type(fsp: u8) -> (u8, u32, u8) {
    (types::DATETIME, 19 + fraction_width(fsp), fsp)
}

fn time_type(fsp: u8) -> (u8, u32, u8) {
    (types::TIME, 10 + fraction_width(fsp), fsp)
}

fn fraction_width(fsp: u8) -> u32 {
    if fsp > 0 {
        u32::from(fsp) + 1
    } else {
        0
    }
}

/// The fraction digits an argument shows: a constant's own, a column's declared ones, six for
/// text and doubles that are not constants.
fn fsp_of(e: &Expr, arg_type: &dyn Fn(&Expr) -> (u8, u32, u8)) -> u8 {
    match e {
        Expr::Const(Value::Bytes(b)) => {
            let text = String::from_utf8_lossy(b);
            convert::stamp_from_text(&text)
                .map(|s| s.fsp)
                .or_else(|| convert::span_from_text(&text).map(|s| s.fsp))
                .unwrap_or(FSP_MAX)
        }
        Expr::Const(Value::Decimal(d)) => d.scale.min(FSP_MAX),
        Expr::Const(Value::Int(_) | Value::UInt(_)) => 0,
        _ => {
            let (code, _, decimals) = arg_type(e);
            match code {
                types::DATETIME | types::TIMESTAMP | types::TIME | types::NEWDECIMAL => {
                    decimals.min(FSP_MAX)
                }
                types::DATE
                | types::TINY
                | types::SHORT
                | types::INT24
                | types::LONG
                | types::LONGLONG
                | types::YEAR
                | types::NULL => 0,
                _ => FSP_MAX,
            }
        }
    }
}

/// The fraction digits an interval adds.
fn interval_fsp(unit: Unit, amount: &Expr) -> u8 {
    if unit.has_micros() {
        return FSP_MAX;
    }
    match (unit, amount) {
        (Unit::Second, Expr::Const(Value::Decimal(d))) => d.scale.min(FSP_MAX),
        (Unit::Second, Expr::Const(Value::Double(_))) => FSP_MAX,
        _ => 0,
    }
}

/// DATE_ADD's type: by its first argument's type and the unit.
fn added_type(
    unit: Unit,
    interval_fsp: u8,
    d: &Expr,
    arg_type: &dyn Fn(&Expr) -> (u8, u32, u8),
) -> (u8, u32, u8) {
    let (code, _, decimals) = arg_type(d);
    match code {
        types::DATE if unit.is_date_only() => (types::DATE, 10, 0),
        types::DATE => datetime_type(interval_fsp),
        types::DATETIME | types::TIMESTAMP => datetime_type(decimals.max(interval_fsp)),
        types::TIME if unit.is_date_only() && unit != Unit::Day && unit != Unit::Week => {
            datetime_type(decimals.max(interval_fsp))
        }
        types::TIME => time_type(decimals.max(interval_fsp)),
        _ => {
            let fsp = fsp_of(d, arg_type).max(interval_fsp);
            (types::STRING, 19 + fraction_width(fsp), fsp)
        }
    }
}

/// STR_TO_DATE's type: by what a constant format reads; DATETIME(6) for any other format.
fn str_to_date_type(fmt: Option<&Expr>) -> (u8, u32, u8) {
    let Some(Expr::Const(Value::Bytes(f))) = fmt else {
        return datetime_type(FSP_MAX);
    };
    let shape = format::shape(f);
    let fsp = if shape.fraction { FSP_MAX } else { 0 };
    match (shape.date, shape.time) {
        (_, false) => (types::DATE, 10, 0),
        (false, true) => time_type(fsp),
        _ => datetime_type(fsp),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Odd text through every reader and formatter: values or NULL, never a panic.
    #[test]
    fn odd_input_never_panics() {
        let texts = [
            "",
            " ",
            "-",
            ".",
            ":",
            "%",
            "0",
            "-0",
            "9999999999999999999999999",
            "2024-",
            "2024-01",
            "2024-01-02 ",
            "2024-01-02 25:61:61",
            "2024-01-02 10:11:12.1234567",
            "838:59:59.9",
            "-838:59:59",
            "1 2 3 4 5",
            "99999:99:99",
            "é",
            "2024\u{0}01\u{0}02",
            "1e400",
            "-1e400",
            "20240102030405.999999999",
            ".5",
            "T",
            "2024-01-02T",
            "00000000000000000000",
        ];
        let formats = [
            "",
            "%",
            "%%",
            "%Y%m%d",
            "%r %T %p",
            "%j",
            "%U%u%V%v%X%x",
            "%f%f",
            "%D %W",
        ];
        for t in texts {
            let _ = convert::stamp_from_text(t);
            let _ = convert::span_from_text(t);
            let _ = convert::text_is_dated(t);
            for unit in [
                Unit::DayMicrosecond,
                Unit::YearMonth,
                Unit::Second,
                Unit::Week,
            ] {
                let _ = interval::amount(&Value::from(t), unit);
            }
            for f in formats {
                let _ = format::parse(t.as_bytes(), f.as_bytes());
                let parts = format::Parts {
                    hours: u64::MAX,
                    ..format::Parts::default()
                };
                let _ = format::format(&parts, f.as_bytes());
            }
        }
        for n in [i128::MIN, -1, 0, 1, 99_999_999_999_999_999, i128::MAX] {
            let _ = convert::stamp_from_number(n, 999_999, 6);
            let _ = convert::span(&Value::Decimal(Decimal::new(n, 38)));
        }
    }
}
