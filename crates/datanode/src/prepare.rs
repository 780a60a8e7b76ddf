//! Checks an operation from the network against the catalog and turns its values into the
//! columns' canonical form: key arity and types, full insert rows with defaults, AUTO_INCREMENT and
//! hidden keys, NOT NULL, projections. Everything the workers receive has passed through here.

use std::sync::Arc;

use base::filter::Filter;
use base::schema::IndexKind;
use base::types::ColumnType;
use base::{placement, Error, ErrorCode, TableDef, Value};
use wire::{OpKind, Operation};

use crate::catalog::TableEntry;

fn bad(code: ErrorCode, message: String) -> Error {
    Error::new(code, message)
}

/// An operation ready to run: canonical values, resolved table and index.
pub struct PreparedOp {
    pub kind: OpKind,
    pub table: Arc<TableEntry>,
    /// Unique index position when the operation addresses rows by a unique key.
    pub unique_index: Option<usize>,
    /// Canonical key values (primary key, or unique key when `unique_index` is set).
    pub key: Vec<Value>,
    /// Full row for insert and write.
    pub row: Option<Vec<Value>>,
    /// Columns to set for update and write.
    pub updates: Vec<(u16, Value)>,
    /// Columns a read returns (never empty).
    pub projection: Vec<u16>,
    /// The automatic value assigned (AUTO_INCREMENT or hidden key).
    pub assigned: Option<u64>,
    /// The parts table (`base::lob`), when the table's rows may refer to parts: a write's
    /// old image's values in parts are deleted from it (`Phase::Maintain`).
    pub parts_table: Option<Arc<TableDef>>,
}

/// The encoded primary key of `values` and the partition that owns it.
pub fn locate(table: &TableDef, key_columns: &[u16], values: &[Value]) -> (Vec<u8>, u32) {
    let mut pk = Vec::new();
    table.encode_key(key_columns, values, &mut pk);
    let partition = if table.partition_key == key_columns {
        placement::partition_of(&pk, table.partition_count)
    } else {
        let mut part = Vec::new();
        for c in &table.partition_key {
            let at = key_columns.iter().position(|k| k == c).unwrap_or(0);
            let col = &table.columns[*c as usize];
            base::key::encode_value(&values[at], col.ty, col.collation, &mut part);
        }
        placement::partition_of(&part, table.partition_count)
    };
    (pk, partition)
}

/// Whether `v` (a value in `comparable`'s form) may equal a value of column `c`: an integer
/// outside an integer column's range equals none (the key encoding keeps only the column's
/// width, so such a key must not be read by).
pub fn within_column(table: &TableDef, c: u16, v: &Value) -> bool {
    let Some((low, high)) = table
        .columns
        .get(usize::from(c))
        .and_then(|col| col.ty.integer_range())
    else {
        return true;
    };
    let n = match v {
        Value::Int(i) => i128::from(*i),
        Value::UInt(u) => i128::from(*u),
        _ => return true,
    };
    (low..=high).contains(&n)
}

/// A key value for column `c` that equals `v` exactly, in the column's canonical form; None
/// when no value of the column can equal it (NULL, an integer out of an integer column's range,
/// a number that converts to the column's type only by rounding: 5.5 is no INT key, though
/// `comparable` would read it as 6).
pub fn exact_key_value(table: &TableDef, c: u16, v: Value) -> Result<Option<Value>, Error> {
    if v.is_null() {
        return Ok(None);
    }
    let numeric = table.columns.get(usize::from(c)).is_some_and(|col| {
        col.ty.is_integer() || matches!(col.ty, base::types::ColumnType::Decimal { .. })
    });
    let original = numeric.then(|| v.clone());
    let converted = comparable(table, c, v)?;
    if !within_column(table, c, &converted) {
        return Ok(None);
    }
    if let Some(original) = original {
        if !same_number(&converted, &original) {
            return Ok(None);
        }
    }
    Ok(Some(converted))
}

/// Whether two numbers are equal exactly: integers and decimals compared as decimals (not as
/// doubles, which lose digits past 2^53), a double only when it holds an integer of at most
/// 2^53 or the other is a double.
fn same_number(a: &Value, b: &Value) -> bool {
    use base::decimal::Decimal;
    let exact = |v: &Value| -> Option<Decimal> {
        match v {
            Value::Int(i) => Some(Decimal::new_small(i128::from(*i), 0)),
            Value::UInt(u) => Some(Decimal::new_small(i128::from(*u), 0)),
            Value::Decimal(d) => Some(*d),
            Value::Double(x) if x.fract() == 0.0 && x.abs() <= 9_007_199_254_740_992.0 => {
                Some(Decimal::new_small(*x as i128, 0))
            }
            _ => None,
        }
    };
    match (exact(a), exact(b)) {
        (Some(x), Some(y)) => {
            Value::Decimal(x).compare(&Value::Decimal(y), base::types::Collation::Binary)
                == Some(std::cmp::Ordering::Equal)
        }
        _ => matches!((a, b), (Value::Double(x), Value::Double(y)) if x == y),
    }
}

/// The columns a read returns when it names none: every visible column.
pub fn visible_columns(table: &TableDef) -> Vec<u16> {
    (0..table.columns.len() as u16)
        .filter(|c| !table.columns[*c as usize].hidden)
        .collect()
}

pub fn check_projection(table: &TableDef, projection: Vec<u16>) -> Result<Vec<u16>, Error> {
    if projection.is_empty() {
        return Ok(visible_columns(table));
    }
    for c in &projection {
        if *c as usize >= table.columns.len() {
            return Err(bad(
                ErrorCode::BadRequest,
                format!("column {c} does not exist in table '{}'", table.name),
            ));
        }
    }
    Ok(projection)
}

/// Refuses what reads the contents of a MEDIUM/LONG TEXT or BLOB column (a filter, an
/// aggregate): its values may be kept in parts, which the data node never joins.
pub fn refuse_parts_column(table: &TableDef, c: u16, what: &str) -> Result<(), Error> {
    match table.columns.get(usize::from(c)) {
        Some(col) if base::lob::holds_parts(col.ty) => Err(bad(
            ErrorCode::BadRequest,
            format!(
                "{what} cannot read the contents of column '{}' ({}): its values may be kept in parts; test them in the client",
                col.name,
                col.ty.sql_name()
            ),
        )),
        _ => Ok(()),
    }
}

fn coerce(table: &TableDef, c: u16, v: Value) -> Result<Value, Error> {
    let col = table.columns.get(c as usize).ok_or_else(|| {
        bad(
            ErrorCode::BadRequest,
            format!("column {c} does not exist in table '{}'", table.name),
        )
    })?;
    let v = v.coerce(col.ty, col.collation, &col.name)?;
    let refused = match &v {
        Value::Parts(r) => base::lob::refusal(table, c, r.len as usize, true),
        Value::Bytes(b) => base::lob::refusal(table, c, b.len(), false),
        _ => None,
    };
    if let Some(e) = refused {
        return Err(e);
    }
    if v.is_null() && !col.nullable {
        return Err(bad(
            ErrorCode::NullNotAllowed,
            format!("Column '{}' cannot be null", col.name),
        ));
    }
    Ok(v)
}

/// Coerces a value for comparison with column `c`: strings keep any length, numbers that do not
/// fit the column stay as given (comparison then works numerically).
pub fn comparable(table: &TableDef, c: u16, v: Value) -> Result<Value, Error> {
    let col = table.columns.get(c as usize).ok_or_else(|| {
        bad(
            ErrorCode::BadRequest,
            format!("column {c} does not exist in table '{}'", table.name),
        )
    })?;
    if v.is_null() {
        return Ok(v);
    }
    if col.ty.is_string() {
        return Ok(match v {
            Value::Bytes(b) => Value::Bytes(b),
            other => Value::Bytes(other.to_text(col.ty).unwrap_or_default()),
        });
    }
    Ok(v.clone()
        .coerce(col.ty, col.collation, &col.name)
        .unwrap_or(v))
}

/// IN lists at least this long are searched by halves (`Filter::InSorted`).
const IN_SORTED_MIN: usize = 8;

/// A long IN list of values that all compare with column `column`'s values (none NULL) as
/// `Filter::InSorted`, sorted and without duplicates in the order the filter compares by; any
/// other stays `In`.
fn sorted_in(table: &TableDef, column: u16, mut values: Vec<Value>) -> Filter {
    let Some(col) = table.columns.get(column as usize) else {
        return Filter::In { column, values };
    };
    let compare = |a: &Value, b: &Value| match (a, b) {
        (Value::Bytes(x), Value::Bytes(y)) if col.ty.is_string() => {
            Some(base::collation::compare(x, y, col.collation))
        }
        _ if col.ty.is_string() => None,
        _ => a.compare(b, col.collation),
    };
    let comparable = values.len() >= IN_SORTED_MIN
        && values
            .iter()
            .all(|v| !v.is_null() && compare(v, &values[0]).is_some());
    if !comparable {
        return Filter::In { column, values };
    }
    values.sort_by(|a, b| compare(a, b).unwrap_or(std::cmp::Ordering::Equal));
    values.dedup_by(|a, b| compare(a, b) == Some(std::cmp::Ordering::Equal));
    Filter::InSorted { column, values }
}

/// Coerces every constant of a filter program for the columns it compares.
pub fn prepare_filter(table: &TableDef, filter: Filter) -> Result<Filter, Error> {
    filter.validate(table.columns.len())?;
    if let Filter::Cmp { column, .. }
    | Filter::Like { column, .. }
    | Filter::In { column, .. }
    | Filter::InSorted { column, .. }
    | Filter::Between { column, .. } = &filter
    {
        refuse_parts_column(table, *column, "a filter")?;
    }
    Ok(match filter {
        Filter::Cmp { column, op, value } => Filter::Cmp {
            column,
            op,
            value: comparable(table, column, value)?,
        },
        Filter::In { column, values } => {
            let values: Vec<Value> = values
                .into_iter()
                .map(|v| comparable(table, column, v))
                .collect::<Result<_, _>>()?;
            sorted_in(table, column, values)
        }
        Filter::Between { column, low, high } => Filter::Between {
            column,
            low: comparable(table, column, low)?,
            high: comparable(table, column, high)?,
        },
        Filter::And(list) => Filter::And(
            list.into_iter()
                .map(|f| prepare_filter(table, f))
                .collect::<Result<_, _>>()?,
        ),
        Filter::Or(list) => Filter::Or(
            list.into_iter()
                .map(|f| prepare_filter(table, f))
                .collect::<Result<_, _>>()?,
        ),
        Filter::Not(inner) => Filter::Not(Box::new(prepare_filter(table, *inner)?)),
        other => other,
    })
}

/// Builds a full row for an insert: given values over defaults, automatic values, NOT NULL checks.
fn insert_row(
    entry: &TableEntry,
    values: &[(u16, Value)],
    assigned: &mut Option<u64>,
    stride: (u32, u32),
) -> Result<Vec<Value>, Error> {
    let table = &entry.def;
    // A DEFAULT CURRENT_TIMESTAMP column left out takes the data node's clock (SQL gives
    // every column its statement's time).
    let now = if table.columns.iter().any(|c| c.default_now.is_some()) {
        base::value::unix_micros_now()
    } else {
        0
    };
    let mut row: Vec<Option<Value>> = table.columns.iter().map(|c| c.default_at(now)).collect();
    for (c, v) in values {
        let col = table.columns.get(*c as usize).ok_or_else(|| {
            bad(
                ErrorCode::BadRequest,
                format!("column {c} does not exist in table '{}'", table.name),
            )
        })?;
        if col.hidden {
            return Err(bad(
                ErrorCode::BadRequest,
                "the hidden primary key cannot be set".into(),
            ));
        }
        row[*c as usize] = Some(v.clone());
    }
    let mut out = Vec::with_capacity(row.len());
    for (i, (col, v)) in table.columns.iter().zip(row).enumerate() {
        let automatic = col.auto_increment || col.hidden;
        let given = v.filter(|v| {
            !(automatic && (v.is_null() || *v == Value::Int(0) || *v == Value::UInt(0)))
        });
        let v = match given {
            Some(v) => {
                let v = coerce(table, i as u16, v)?;
                if automatic {
                    if let Value::Int(n) = v {
                        entry.observe_explicit(n.max(0) as u64);
                    } else if let Value::UInt(n) = v {
                        entry.observe_explicit(n);
                    }
                }
                v
            }
            None if automatic => {
                let max = col
                    .ty
                    .integer_range()
                    .map_or(0, |(_, hi)| hi.min(i128::from(u64::MAX)) as u64);
                let n = entry.take_auto(max, stride).ok_or_else(|| {
                    bad(
                        ErrorCode::AutoIncrementExhausted,
                        format!("AUTO_INCREMENT of '{}' reached its maximum", col.name),
                    )
                })?;
                *assigned = Some(n);
                if matches!(
                    col.ty,
                    base::ColumnType::BigInt { unsigned: true }
                        | base::ColumnType::Int { unsigned: true }
                ) || col.hidden
                {
                    Value::UInt(n)
                } else {
                    coerce(table, i as u16, Value::UInt(n))?
                }
            }
            None if col.nullable => Value::Null,
            None => {
                return Err(bad(
                    ErrorCode::NullNotAllowed,
                    format!("field '{}' doesn't have a default value", col.name),
                ))
            }
        };
        out.push(v);
    }
    Ok(out)
}

/// Checks and converts one operation.
/// `stride`: the cluster's node groups and this node's (`TableEntry::take_auto`).
pub fn prepare(
    entry: Arc<TableEntry>,
    op: Operation,
    stride: (u32, u32),
) -> Result<PreparedOp, Error> {
    let table = entry.def.clone();
    if table.index_of.is_some() {
        return Err(bad(
            ErrorCode::BadRequest,
            "hidden index tables are not addressable".into(),
        ));
    }
    if table.version != op.version {
        return Err(crate::worker::changed(&table, op.version));
    }
    let unique_index = match op.index {
        None => None,
        Some(i) => {
            let index = table.indexes.get(i as usize).ok_or_else(|| {
                bad(
                    ErrorCode::NoSuchIndex,
                    format!("table '{}' has no index {i}", table.name),
                )
            })?;
            if index.kind != IndexKind::Unique {
                return Err(bad(
                    ErrorCode::BadRequest,
                    format!("index '{}' is not unique", index.name),
                ));
            }
            Some(i as usize)
        }
    };
    let mut op = op;
    if matches!(op.kind, OpKind::Insert | OpKind::Write)
        && unique_index.is_none()
        && op.key.len() == table.primary_key.len()
    {
        // Key columns given only as the key are part of the row too.
        for (c, v) in table.primary_key.iter().zip(&op.key) {
            if !op.values.iter().any(|(vc, _)| vc == c) && !table.columns[*c as usize].hidden {
                op.values.push((*c, v.clone()));
            }
        }
    }
    let mut assigned = None;
    let mut row = None;
    let mut updates = Vec::new();
    match op.kind {
        OpKind::Insert | OpKind::Write => {
            row = Some(insert_row(&entry, &op.values, &mut assigned, stride)?);
            if op.kind == OpKind::Write {
                for (c, v) in op.values {
                    updates.push((c, coerce(&table, c, v)?));
                }
            }
        }
        OpKind::Update => {
            for (c, v) in op.values {
                if table.columns.get(c as usize).is_some_and(|col| col.hidden) {
                    return Err(bad(
                        ErrorCode::BadRequest,
                        "the hidden primary key cannot be set".into(),
                    ));
                }
                updates.push((c, coerce(&table, c, v)?));
            }
        }
        OpKind::Increment => {
            for (c, v) in op.values {
                let col = table.columns.get(c as usize).ok_or_else(|| {
                    bad(
                        ErrorCode::BadRequest,
                        format!("column {c} does not exist in table '{}'", table.name),
                    )
                })?;
                let integer = matches!(
                    col.ty,
                    ColumnType::TinyInt { .. }
                        | ColumnType::SmallInt { .. }
                        | ColumnType::MediumInt { .. }
                        | ColumnType::Int { .. }
                        | ColumnType::BigInt { .. }
                );
                if !integer || col.hidden || table.primary_key.contains(&c) {
                    return Err(bad(
                        ErrorCode::BadRequest,
                        format!(
                            "column '{}' cannot be incremented: only integer columns outside the primary key can",
                            col.name
                        ),
                    ));
                }
                let amount = match v {
                    Value::Int(n) => Value::Int(n),
                    Value::UInt(n) => Value::UInt(n),
                    other => {
                        return Err(bad(
                            ErrorCode::BadRequest,
                            format!("an increment amount must be an integer, not {other:?}"),
                        ))
                    }
                };
                updates.push((c, amount));
            }
        }
        OpKind::Read(_) | OpKind::Delete => {}
    }
    let key_columns: Vec<u16> = match unique_index {
        Some(i) => table.indexes[i].columns.clone(),
        None => table.primary_key.clone(),
    };
    let key = if let (Some(r), true) = (&row, op.key.is_empty()) {
        key_columns.iter().map(|c| r[*c as usize].clone()).collect()
    } else {
        if op.key.len() != key_columns.len() {
            return Err(bad(
                ErrorCode::BadRequest,
                format!(
                    "key of table '{}' has {} columns, {} given",
                    table.name,
                    key_columns.len(),
                    op.key.len()
                ),
            ));
        }
        key_columns
            .iter()
            .zip(op.key)
            .map(|(c, v)| coerce(&table, *c, v))
            .collect::<Result<Vec<_>, _>>()?
    };
    // A unique index holding column prefixes finds the row whose prefixes the key's are.
    let key = match unique_index {
        Some(i) if table.indexes[i].has_prefix() => {
            let index = &table.indexes[i];
            key.into_iter()
                .enumerate()
                .map(|(at, v)| index.cut(&table, at, v))
                .collect()
        }
        _ => key,
    };
    if let (Some(r), None) = (&row, unique_index) {
        // For insert and write by primary key, the key given must agree with the row.
        for (c, k) in key_columns.iter().zip(&key) {
            if r[*c as usize].compare(k, table.columns[*c as usize].collation)
                != Some(std::cmp::Ordering::Equal)
            {
                return Err(bad(
                    ErrorCode::BadRequest,
                    "key and row values disagree".into(),
                ));
            }
        }
    }
    let projection = match op.kind {
        OpKind::Read(_) => check_projection(&table, std::mem::take(&mut op.projection))?,
        _ => Vec::new(),
    };
    Ok(PreparedOp {
        kind: op.kind,
        table: entry,
        unique_index,
        key,
        row,
        updates,
        projection,
        assigned,
        parts_table: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use base::schema::ColumnDef;
    use base::types::{Collation, ColumnType};
    use storage::row::RowLayout;

    /// A key value is one only when it equals a value of its column exactly.
    #[test]
    fn exact_key_values_are_exact() {
        let table = TableDef::new(
            "t",
            vec![
                ColumnDef::new("i", ColumnType::Int { unsigned: false }),
                ColumnDef::new("b", ColumnType::BigInt { unsigned: false }),
                ColumnDef::new("u", ColumnType::Int { unsigned: true }),
            ],
            &["i"],
        )
        .unwrap();
        let decimal = |s: &str| Value::Decimal(base::decimal::Decimal::parse(s).unwrap());
        let key = |c: u16, v: Value| exact_key_value(&table, c, v).unwrap();
        assert_eq!(key(0, Value::Int(5)), Some(Value::Int(5)));
        assert_eq!(key(0, decimal("5.0")), Some(Value::Int(5)));
        assert_eq!(key(0, Value::Double(6.0)), Some(Value::Int(6)));
        assert_eq!(key(0, decimal("5.5")), None);
        assert_eq!(key(0, Value::Double(5.5)), None);
        assert_eq!(key(0, Value::Int(5 + (1 << 32))), None);
        assert_eq!(key(2, Value::Int(-1)), None);
        assert_eq!(key(0, Value::Null), None);
        // Past 2^53 a double cannot tell the two apart: only exact decimals pass.
        assert_eq!(key(1, decimal("9007199254740993.5")), None);
        assert_eq!(
            key(1, decimal("9007199254740993")),
            Some(Value::Int(9_007_199_254_740_993))
        );
    }

    /// A long IN list searched by halves keeps exactly the rows the list read one by one keeps
    /// (integers of both signs, a case-insensitive string column, NULLs in rows and in lists).
    #[test]
    fn a_sorted_in_list_keeps_the_rows_the_plain_one_keeps() {
        let mut name = ColumnDef::new("s", ColumnType::VarChar { length: 10 }).nullable();
        name.collation = Collation::Utf8mb4GeneralCi;
        let table = TableDef::new(
            "t",
            vec![
                ColumnDef::new("n", ColumnType::Int { unsigned: false }).nullable(),
                name,
            ],
            &[],
        )
        .unwrap();
        let layout = RowLayout::new(&table);
        let words = ["a", "B", "b", "c ", "x", "Y", "zz", "é", "E", "e"];
        let text = |w: &str| Value::Bytes(w.as_bytes().to_vec());
        let lists: Vec<(u16, Vec<Value>)> = vec![
            (0, (-20..20).step_by(3).map(Value::Int).collect()),
            (0, [9, -4, 9, 1000, 7, 3, -1, 0, 2].map(Value::Int).to_vec()),
            (
                0,
                [1, 2, 3, 4, 5, 6, 7, 8]
                    .map(Value::Int)
                    .into_iter()
                    .chain([Value::Null])
                    .collect(),
            ),
            (1, words.iter().map(|w| text(w)).collect()),
        ];
        for (column, values) in lists {
            let plain = Filter::In {
                column,
                values: values.clone(),
            };
            let sorted = prepare_filter(&table, plain.clone()).unwrap();
            let has_null = values.iter().any(Value::is_null);
            assert_eq!(matches!(sorted, Filter::InSorted { .. }), !has_null);
            for n in (-25..25).map(Value::Int).chain([Value::Null]) {
                for w in words
                    .iter()
                    .map(|w| text(w))
                    .chain([text("q"), Value::Null])
                {
                    let row = layout.encode(&[n.clone(), w.clone()]).unwrap();
                    assert_eq!(
                        storage::filter::matches(&sorted, &table, &layout, &row),
                        storage::filter::matches(&plain, &table, &layout, &row),
                        "{column} {values:?} row {n:?} {w:?}"
                    );
                }
            }
        }
    }
}
