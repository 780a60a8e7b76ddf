//! The filter interpreter: evaluates a `base::filter::Filter` against one stored row with SQL's
//! three-valued logic. Constants must already be in the column's canonical form.

use std::cmp::Ordering;

use base::collation;
use base::filter::{CmpOp, Filter};
use base::{TableDef, Value};

use crate::row::RowLayout;

/// True when the row satisfies the filter (unknown counts as false, as in a WHERE clause).
pub fn matches(filter: &Filter, table: &TableDef, layout: &RowLayout, row: &[u8]) -> bool {
    eval(filter, table, layout, row) == Some(true)
}

fn compare(
    table: &TableDef,
    layout: &RowLayout,
    row: &[u8],
    column: u16,
    value: &Value,
) -> Option<Ordering> {
    let c = usize::from(column);
    if layout.is_null(row, c) || value.is_null() {
        return None;
    }
    // The data node checked the filter's columns against the table; another is unknown.
    let col = table.columns.get(c)?;
    if col.ty.is_string() {
        let Value::Bytes(constant) = value else {
            return None;
        };
        return Some(collation::compare(
            layout.bytes(row, c),
            constant,
            col.collation,
        ));
    }
    layout.value(row, c).compare(value, col.collation)
}

fn eval(filter: &Filter, table: &TableDef, layout: &RowLayout, row: &[u8]) -> Option<bool> {
    match filter {
        Filter::True => Some(true),
        Filter::Cmp { column, op, value } => {
            let ord = compare(table, layout, row, *column, value)?;
            Some(match op {
                CmpOp::Eq => ord == Ordering::Equal,
                CmpOp::Ne => ord != Ordering::Equal,
                CmpOp::Lt => ord == Ordering::Less,
                CmpOp::Le => ord != Ordering::Greater,
                CmpOp::Gt => ord == Ordering::Greater,
                CmpOp::Ge => ord != Ordering::Less,
            })
        }
        Filter::IsNull { column } => Some(layout.is_null(row, usize::from(*column))),
        Filter::IsNotNull { column } => Some(!layout.is_null(row, usize::from(*column))),
        Filter::Like { column, pattern } => {
            let c = usize::from(*column);
            if layout.is_null(row, c) {
                return None;
            }
            let col = table.columns.get(c)?;
            if col.ty.is_string() {
                Some(collation::like(
                    layout.bytes(row, c),
                    pattern,
                    col.collation,
                ))
            } else {
                let text = layout.value(row, c).to_text(col.ty)?;
                Some(collation::like(&text, pattern, col.collation))
            }
        }
        Filter::In { column, values } => {
            let mut unknown = false;
            for v in values {
                match compare(table, layout, row, *column, v) {
                    Some(Ordering::Equal) => return Some(true),
                    Some(_) => {}
                    None => unknown = true,
                }
            }
            if unknown {
                None
            } else {
                Some(false)
            }
        }
        Filter::InSorted { column, values } => {
            if layout.is_null(row, usize::from(*column)) {
                return None;
            }
            let mut unknown = false;
            let found = values
                .binary_search_by(|v| match compare(table, layout, row, *column, v) {
                    // The list's value against the row's: the reverse of the row against it.
                    Some(o) => o.reverse(),
                    None => {
                        unknown = true;
                        Ordering::Equal
                    }
                })
                .is_ok();
            if unknown {
                None
            } else {
                Some(found)
            }
        }
        Filter::Between { column, low, high } => {
            let lo = compare(table, layout, row, *column, low)?;
            let hi = compare(table, layout, row, *column, high)?;
            Some(lo != Ordering::Less && hi != Ordering::Greater)
        }
        Filter::And(list) => {
            let mut result = Some(true);
            for f in list {
                match eval(f, table, layout, row) {
                    Some(false) => return Some(false),
                    None => result = None,
                    Some(true) => {}
                }
            }
            result
        }
        Filter::Or(list) => {
            let mut result = Some(false);
            for f in list {
                match eval(f, table, layout, row) {
                    Some(true) => return Some(true),
                    None => result = None,
                    Some(false) => {}
                }
            }
            result
        }
        Filter::Not(inner) => eval(inner, table, layout, row).map(|b| !b),
    }
}
