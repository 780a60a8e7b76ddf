//! The plans of writes that are not one table's UPDATE or DELETE: INSERT (rows, DEFAULTs, ... SELECT,
//! ON DUPLICATE KEY UPDATE) and UPDATE or DELETE over several tables, as `exec/run.rs` and
//! `exec/write.rs` run them.

use client::Table;

use crate::expr::Expr;
use crate::plan::{QueryPlan, SelectPlan};

/// A multi-table UPDATE or DELETE, planned.
#[derive(Debug, Clone)]
pub(crate) struct MultiPlan {
    pub delete: bool,
    /// The join, its WHERE (and for UPDATE its ORDER BY and LIMIT), read with exclusive locks;
    /// its items are the ones `targets` name.
    pub select: SelectPlan,
    pub targets: Vec<Target>,
}

/// A table the statement writes.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    pub table: Table,
    /// The items holding its primary key, in key order.
    pub(crate) key: Vec<usize>,
    /// UPDATE: (column, item of its new value, item of its value as read).
    pub(crate) assignments: Vec<(u16, usize, usize)>,
    /// UPDATE of a primary-key column: every column's item, to insert the row anew.
    pub(crate) whole: Vec<(u16, usize)>,
}

/// INSERT (or REPLACE) over one table, its values unresolved (`?` allowed): VALUES rows, SET,
/// or a SELECT's rows.
#[derive(Debug, Clone)]
pub struct InsertPlan {
    pub(crate) table: Table,
    pub(crate) columns: Vec<u16>,
    /// None: DEFAULT.
    pub(crate) rows: Vec<Vec<Option<Expr>>>,
    /// INSERT ... SELECT (or a set operation): the rows come from this plan instead.
    pub(crate) select: Option<Box<QueryPlan>>,
    pub(crate) duplicate: OnDuplicate,
}

/// What an INSERT does with a row whose primary or unique key is taken.
#[derive(Debug, Clone)]
pub enum OnDuplicate {
    /// Fails with error 1062.
    Fail,
    /// INSERT IGNORE: skips the row.
    Ignore,
    /// REPLACE: deletes the rows in the way, then inserts.
    Replace,
    /// ON DUPLICATE KEY UPDATE: (table column, new value) over the existing row's columns
    /// followed by the row the INSERT gave (`VALUES(col)`, or the row alias).
    Update(Vec<(u16, Expr)>),
}
