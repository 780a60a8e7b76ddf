//! Values as a column stores them for a statement that stores them: under MySQL's strict mode
//! (`strict_store`, MariaDB's errors for what it refuses, from `base::text::store_strict`), and
//! under IGNORE (`lenient_store`, what strict mode refuses changed to fit, with MariaDB's
//! warnings). INSERT, UPDATE and ALTER TABLE's checks store through them. Also the values
//! that take the statement's time: a DEFAULT CURRENT_TIMESTAMP left out, ON UPDATE
//! CURRENT_TIMESTAMP, and NULL stored in a TIMESTAMP NOT NULL column. A JSON column takes
//! only valid JSON text, a spatial column only spatial values of its kind.

use base::schema::{ColumnDef, TableDef};
use base::{ColumnType, Value};

use crate::foundation::error::Result;
use crate::foundation::error::SqlError;

/// `v` as given to `column` by a statement started at `micros` (Unix microseconds): NULL
/// given to a TIMESTAMP NOT NULL column is that time, as in MariaDB; any other value as it is.
pub(crate) fn timestamped(column: &ColumnDef, v: Value, micros: i64) -> Value {
    if v.is_null() && !column.nullable && matches!(column.ty, ColumnType::Timestamp { .. }) {
        column.time_at(micros)
    } else {
        v
    }
}

/// The DEFAULT CURRENT_TIMESTAMP columns of `def`, with their value in a row an INSERT started
/// at `micros` writes without them: pushed onto `given` for each such column it lacks.
pub(crate) fn add_current_defaults(def: &TableDef, given: &mut Vec<(u16, Value)>, micros: i64) {
    for (c, column) in def.columns.iter().enumerate() {
        let c = c as u16;
        if column.default_now.is_some() && given.iter().all(|(g, _)| *g != c) {
            given.extend(column.default_at(micros).map(|v| (c, v)));
        }
    }
}

/// The ON UPDATE CURRENT_TIMESTAMP columns of `def` an update started at `micros` leaves
/// unassigned, with that time: the values to add to a row it changes.
pub(crate) fn on_update_values(
    def: &TableDef,
    assigned: impl Fn(u16) -> bool,
    micros: i64,
) -> Vec<(u16, Value)> {
    def.columns
        .iter()
        .enumerate()
        .filter(|(c, column)| column.on_update_now && !assigned(*c as u16))
        .map(|(c, column)| (c as u16, column.time_at(micros)))
        .collect()
}

/// A value as `column` stores it under MySQL's strict mode (STRICT_TRANS_TABLES, the default):
/// what would be changed to fit is refused instead: a value out of range (1264), a string too
/// long (1406), text that is not a number (1366) or only starts with one (1265), a bad date
/// (1292), a character the column's character set lacks (1366). `row` counts from 1.
/// A number given to a DATE, DATETIME, TIMESTAMP or TIME column is read as MariaDB reads it
/// (`temporal::number_as_temporal`).
pub(crate) fn strict_store(
    table: &base::TableDef,
    column: &ColumnDef,
    v: Value,
    row: usize,
) -> Result<Value> {
    let read = crate::expr::temporal::number_as_temporal(column.ty, v.clone());
    let read = year_of_text(column, read);
    store_refusing(table, column, read, &v, row)
}

/// The strings '0' and '00' for a YEAR column are 2000, as MariaDB reads them (two digits
/// below 70 are 20xx); the number 0 stays the zero year.
fn year_of_text(column: &ColumnDef, v: Value) -> Value {
    match &v {
        Value::Bytes(b)
            if column.ty == ColumnType::Year && matches!(b.trim_ascii(), b"0" | b"00") =>
        {
            Value::Year(2000)
        }
        _ => v,
    }
}

/// [`strict_store`] without reading numbers as dates and times: what the data node's copy
/// of ALTER TABLE stores (`base::text::store_strict`), which refuses them.
pub(crate) fn strict_store_as_is(
    table: &base::TableDef,
    column: &ColumnDef,
    v: Value,
    row: usize,
) -> Result<Value> {
    store_refusing(table, column, v.clone(), &v, row)
}

/// A value for a JSON column: valid JSON text (or NULL), else MariaDB's 4025 for the
/// column's `json_valid` check.
fn json_checked(table: &base::TableDef, column: &ColumnDef, v: Value) -> Result<Value> {
    match &v {
        Value::Bytes(text) if column.json && !crate::expr::funcs::json::valid(text) => {
            let (db, t) = table.name.split_once('/').unwrap_or(("", &table.name));
            Err(SqlError::new(
                4025,
                "23000",
                format!("CONSTRAINT `{t}.{}` failed for `{db}`.`{t}`", column.name),
            ))
        }
        _ => Ok(v),
    }
}

/// `v` stored under strict mode, or MariaDB's error naming the value as `given`.
fn store_refusing(
    table: &base::TableDef,
    column: &ColumnDef,
    v: Value,
    given: &Value,
    row: usize,
) -> Result<Value> {
    use base::text::Refusal;
    use base::types::ColumnType as T;
    let refusal = match base::text::store_strict(column, v.clone()) {
        Ok(stored) => return json_checked(table, column, stored),
        Err(r) => r,
    };
    let shown =
        String::from_utf8_lossy(&base::text::value_text(given).unwrap_or_default()).into_owned();
    let name = &column.name;
    // MariaDB names the column in full in 1292 and 1366.
    let (db, t) = table.name.split_once('/').unwrap_or(("", &table.name));
    let full = format!("`{db}`.`{t}`.`{name}`");
    let kind = match column.ty {
        T::Date => "date",
        T::DateTime { .. } | T::Timestamp { .. } => "datetime",
        T::Time { .. } => "time",
        T::Decimal { .. } => "decimal",
        T::Float | T::Double => "double",
        _ => "integer",
    };
    Err(match refusal {
        Refusal::BadTemporal => SqlError::new(
            1292,
            "22007",
            format!("Incorrect {kind} value: '{shown}' for column {full} at row {row}"),
        ),
        Refusal::OutOfRange => SqlError::new(
            1264,
            "22003",
            format!("Out of range value for column '{name}' at row {row}"),
        ),
        Refusal::TooLong => SqlError::new(
            1406,
            "22001",
            match held_back(column, &v) {
                Some(max) => format!(
                    "Data too long for column '{name}' at row {row}: Cairn stores at most \
                     {max} bytes in a {} value",
                    column.ty.sql_name().to_uppercase()
                ),
                None => format!("Data too long for column '{name}' at row {row}"),
            },
        ),
        Refusal::Truncated => SqlError::new(
            1265,
            "01000",
            format!("Data truncated for column '{name}' at row {row}"),
        ),
        Refusal::NotNumber => SqlError::new(
            1366,
            "22007",
            format!("Incorrect {kind} value: '{shown}' for column {full} at row {row}"),
        ),
        Refusal::NotGeometry | Refusal::WrongGeometry | Refusal::WrongSrid(_) => {
            geometry_error(refusal, column, &v, &full, row)
        }
        Refusal::Repertoire(at) => {
            // MariaDB shows the bytes from the first such character, six at most, printable
            // ASCII as itself and the rest as `\xNN`.
            let b = match &v {
                Value::Bytes(b) => &b[..],
                _ => &[][..],
            };
            let from = b.get(at..).unwrap_or_default();
            let mut shown = String::new();
            for x in from.iter().take(6) {
                if (0x20..0x7F).contains(x) {
                    shown.push(char::from(*x));
                } else {
                    shown.push_str(&format!("\\x{x:02X}"));
                }
            }
            if from.len() > 6 {
                shown.push_str("...");
            }
            SqlError::new(
                1366,
                "22007",
                format!("Incorrect string value: '{shown}' for column {full} at row {row}"),
            )
        }
    })
}

/// MariaDB's (and for the SRID MySQL's) error for a value a spatial column refuses; `full` is
/// the column's whole name.
fn geometry_error(
    refusal: base::text::Refusal,
    column: &ColumnDef,
    v: &Value,
    full: &str,
    row: usize,
) -> SqlError {
    use base::text::Refusal as R;
    let name = &column.name;
    match refusal {
        // A number or a date: MariaDB's cast error, naming both types.
        R::NotGeometry if !matches!(v, Value::Bytes(_) | Value::Parts(_)) => {
            let from = match &v {
                Value::Int(i) if i32::try_from(*i).is_ok() => "int",
                Value::Int(_) | Value::UInt(_) => "bigint",
                Value::Decimal(_) => "decimal",
                Value::Float(_) | Value::Double(_) => "double",
                Value::Date(_) => "date",
                Value::Time(_) => "time",
                Value::Year(_) => "year",
                _ => "datetime",
            };
            let to = column
                .geometry
                .map_or("geometry".into(), |g| g.kind.sql_name());
            SqlError::new(
                4078,
                "HY000",
                format!("Cannot cast '{from}' as '{to}' in assignment of {full}"),
            )
        }
        R::WrongGeometry => {
            let kind = column.geometry.map_or("GEOMETRY", |g| g.kind.name());
            let wkt = match &v {
                Value::Bytes(b) => base::geometry::to_wkt(b).unwrap_or_default(),
                _ => String::new(),
            };
            SqlError::new(
                1366,
                "22007",
                format!("Incorrect {kind} value: '{wkt}' for column {full} at row {row}"),
            )
        }
        R::WrongSrid(srid) => SqlError::new(
            3643,
            "HY000",
            format!(
                "The SRID of the geometry does not match the SRID of the column '{name}'. The \
                 SRID of the geometry is {srid}, but the SRID of the column is {}. Consider \
                 changing the SRID of the geometry or the SRID property of the column.",
                column.geometry.and_then(|g| g.srid).unwrap_or_default()
            ),
        ),
        // No spatial value (bytes that are none).
        _ => SqlError::new(
            1416,
            "22003",
            "Cannot get geometry object from data you send to the GEOMETRY field",
        ),
    }
}

/// A value as INSERT IGNORE stores it: what strict mode refuses is changed to fit, as MySQL's
/// non-strict conversion does, and `warn` gets MariaDB's warning for it: 1264 with the value
/// clipped to the column's range, 1366 or 1265 with the number the text holds or starts with,
/// 1265 with a string cut to the column's length or a bad date or time stored as the type's
/// zero. A character the column's character set lacks still fails (1366).
pub(crate) fn lenient_store(
    table: &base::TableDef,
    column: &ColumnDef,
    v: Value,
    row: usize,
    warn: impl FnOnce(u16, String),
) -> Result<Value> {
    let e = match strict_store(table, column, v.clone(), row) {
        Ok(stored) => return Ok(stored),
        // A spatial column takes no value changed to fit.
        Err(e) if column.geometry.is_some() => return Err(e),
        Err(e) => e,
    };
    let truncated = || format!("Data truncated for column '{}' at row {row}", column.name);
    let (stored, code, message) = match e.code {
        // A date a TIMESTAMP cannot hold (before 1970, after 2038) is out of its range.
        1292 if outside_timestamps(column, &v) => (
            crate::expr::stored::zero_value(column),
            1264,
            format!(
                "Out of range value for column '{}' at row {row}",
                column.name
            ),
        ),
        1292 => (crate::expr::stored::zero_value(column), 1265, truncated()),
        // Cut to Cairn's limit, a value MariaDB would keep whole: refused even here.
        1406 if held_back(column, &v).is_some() => return Err(e),
        1406 => (store(column, v), 1265, truncated()),
        1264 => {
            // FLOAT(M,D) and DOUBLE(M,D) clip to their largest value, 10^(M-D) - 10^-D.
            let largest = column.scale.map(|d| {
                10f64.powi(i32::from(column.display_width) - i32::from(d))
                    - 10f64.powi(-i32::from(d))
            });
            let stored = match (column.ty, store(column, v.clone())) {
                (_, Ok(s)) => Ok(s),
                (base::types::ColumnType::Float, _) if largest.is_some() => Ok(Value::Float(
                    (largest.unwrap_or_default() as f32)
                        .copysign(crate::expr::as_double(&v) as f32),
                )),
                (base::types::ColumnType::Double, _) if largest.is_some() => Ok(Value::Double(
                    largest
                        .unwrap_or_default()
                        .copysign(crate::expr::as_double(&v)),
                )),
                (base::types::ColumnType::Float, _) => Ok(Value::Float(
                    f32::MAX.copysign(crate::expr::as_double(&v) as f32),
                )),
                (base::types::ColumnType::Double, _) => {
                    Ok(Value::Double(f64::MAX.copysign(crate::expr::as_double(&v))))
                }
                // A year out of range is the zero year, as MariaDB stores it.
                (base::types::ColumnType::Year, _) => Ok(Value::Year(0)),
                (_, Err(e)) => Err(e),
            };
            (stored, 1264, e.message.clone())
        }
        // No member of an ENUM: the empty value; a SET keeps the members it names, as
        // MariaDB stores them.
        1265 if matches!(column.ty, ColumnType::Enum | ColumnType::Set) => {
            let kept = match (&column.ty, &v) {
                (ColumnType::Set, Value::Bytes(b)) => b
                    .split(|c| *c == b',')
                    .filter_map(|part| {
                        base::text::member_value(column, &Value::Bytes(part.to_vec())).ok()
                    })
                    .fold(0, |bits, n| match n {
                        Value::UInt(n) => bits | n,
                        _ => bits,
                    }),
                _ => 0,
            };
            (Ok(Value::UInt(kept)), 1265, e.message.clone())
        }
        1265 | 1366 if !column.ty.is_string() => (store(column, v), e.code, e.message.clone()),
        _ => return Err(e),
    };
    let stored = stored.map_err(|_| e)?;
    warn(code, message);
    Ok(stored)
}

/// Cairn's limit on a MEDIUM- or LONGTEXT/BLOB value (`base::limits::LOB_BYTES_MAX`) when `v`
/// is refused by it only: longer than Cairn stores, within what the type holds in MySQL.
/// True when `column` is a TIMESTAMP and `v` a real date and time outside its range.
fn outside_timestamps(column: &ColumnDef, v: &Value) -> bool {
    let ColumnType::Timestamp { fsp } = column.ty else {
        return false;
    };
    let mut wider = column.clone();
    wider.ty = ColumnType::DateTime { fsp };
    let v = crate::expr::temporal::number_as_temporal(wider.ty, v.clone());
    // A real date (no zero month or day), which a DATETIME holds.
    matches!(base::text::store_strict(&wider, v), Ok(Value::DateTime(dt))
        if dt.date.month > 0 && dt.date.day > 0)
}

fn held_back(column: &ColumnDef, v: &Value) -> Option<usize> {
    use base::types::ColumnType as T;
    let (T::Text { size } | T::Blob { size }) = column.ty else {
        return None;
    };
    let text = base::text::value_text(v).unwrap_or_default();
    // Counted in the column's character set: latin1 text is kept as UTF-8.
    let len = if column.collation.is_latin1_text() {
        String::from_utf8_lossy(&text).chars().count()
    } else {
        text.len()
    } as u64;
    (len > size.stored_bytes() as u64 && len <= size.declared_bytes()).then(|| size.stored_bytes())
}

/// What a NOT NULL column added without a DEFAULT holds in the existing rows: the type's zero,
/// as MariaDB fills it (0, '', the zero date and time).
pub(crate) fn zero_value(column: &ColumnDef) -> Result<base::Value> {
    let text: &[u8] = match column.ty {
        ColumnType::Date => b"0000-00-00",
        ColumnType::DateTime { .. } | ColumnType::Timestamp { .. } => b"0000-00-00 00:00:00",
        ColumnType::Time { .. } => b"00:00:00",
        ty if ty.is_string() => b"",
        _ => return store(column, base::Value::Int(0)),
    };
    store(column, base::Value::Bytes(text.to_vec()))
}

/// A value as `column` stores it (MySQL's conversion from the value's text, `text::store`).
pub(crate) fn store(column: &ColumnDef, v: Value) -> Result<Value> {
    base::text::store(column, v).map_err(|m| SqlError::new(1366, "22007", m))
}
