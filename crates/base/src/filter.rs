//! Filter programs: the conditions a scan evaluates inside the data node so only matching rows
//! cross the wire. Built by clients, checked against named limits here, run by `storage`.

use crate::error::{Error, ErrorCode, Result};
use crate::limits;
use crate::value::Value;

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum CmpOp {
    Eq = 1,
    Ne = 2,
    Lt = 3,
    Le = 4,
    Gt = 5,
    Ge = 6,
}

impl CmpOp {
    pub fn from_u8(v: u8) -> Option<CmpOp> {
        [
            CmpOp::Eq,
            CmpOp::Ne,
            CmpOp::Lt,
            CmpOp::Le,
            CmpOp::Gt,
            CmpOp::Ge,
        ]
        .into_iter()
        .find(|o| *o as u8 == v)
    }
}

/// A condition over one row's columns (by position). NULL makes a comparison unknown, which
/// filters the row out, as in SQL.
#[derive(Debug, Clone, PartialEq)]
pub enum Filter {
    Cmp {
        column: u16,
        op: CmpOp,
        value: Value,
    },
    IsNull {
        column: u16,
    },
    IsNotNull {
        column: u16,
    },
    /// SQL LIKE; `%` and `_` wildcards, `\` escape.
    Like {
        column: u16,
        pattern: Vec<u8>,
    },
    In {
        column: u16,
        values: Vec<Value>,
    },
    Between {
        column: u16,
        low: Value,
        high: Value,
    },
    /// An IN list in its column's order, without NULL and without two equal values: the data
    /// node makes it of a long `In` (`prepare_filter`) to look a row's value up by halves. It
    /// travels as `In`.
    InSorted {
        column: u16,
        values: Vec<Value>,
    },
    And(Vec<Filter>),
    Or(Vec<Filter>),
    Not(Box<Filter>),
    /// Always true: the empty program.
    True,
}

impl Filter {
    /// Checks node count, depth, IN-list length and column positions against `column_count`.
    pub fn validate(&self, column_count: usize) -> Result<()> {
        let mut nodes = 0usize;
        self.walk(column_count, 0, &mut nodes)
    }

    fn walk(&self, column_count: usize, depth: usize, nodes: &mut usize) -> Result<()> {
        *nodes += 1;
        if *nodes > limits::FILTER_NODES_MAX || depth > limits::FILTER_DEPTH_MAX {
            return Err(Error::new(
                ErrorCode::LimitExceeded,
                "filter program too large or too deep",
            ));
        }
        let check = |c: u16| {
            if usize::from(c) >= column_count {
                Err(Error::new(
                    ErrorCode::BadRequest,
                    format!("filter names column {c} of {column_count}"),
                ))
            } else {
                Ok(())
            }
        };
        match self {
            Filter::Cmp { column, .. }
            | Filter::IsNull { column }
            | Filter::IsNotNull { column }
            | Filter::Like { column, .. }
            | Filter::Between { column, .. } => check(*column),
            Filter::In { column, values } | Filter::InSorted { column, values } => {
                if values.len() > limits::FILTER_IN_VALUES_MAX {
                    return Err(Error::new(ErrorCode::LimitExceeded, "IN list too long"));
                }
                check(*column)
            }
            Filter::And(list) | Filter::Or(list) => list
                .iter()
                .try_for_each(|f| f.walk(column_count, depth + 1, nodes)),
            Filter::Not(inner) => inner.walk(column_count, depth + 1, nodes),
            Filter::True => Ok(()),
        }
    }
}
