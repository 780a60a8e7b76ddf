//! Running set operations (UNION, INTERSECT, EXCEPT) planned in `plan/setop.rs`: each
//! operand's rows, combined in the API node.

use crate::exec::Outcome;
use crate::exec::{Exec, Executor, Subqueries};
use crate::expr::typing::DECIMAL_DIGITS_MAX;
use crate::expr::{CastTo, Expr};
use crate::foundation::error::Result;
use crate::plan::setop::{combine, SetNode, SetPlan};
use base::types::Collation;
use base::Value;
use client::Transaction;
use myproto::response::Column;

pub(crate) trait SetOperations: Exec {
    /// Runs a set operation as a statement: each SELECT reads in a transaction of its own (or
    /// the session's), committing with its last batch.
    fn run_set(&mut self, p: &SetPlan, params: &[Value]) -> Result<Outcome> {
        let rows = self.set_rows(None, p, params)?;
        Ok(Outcome::Rows {
            columns: p.columns.clone(),
            rows,
        })
    }

    /// A set operation's rows, ordered and limited. With `txn` (a derived table's query) every
    /// read runs in it, none committing; without, each SELECT runs as a statement would.
    fn set_rows(
        &mut self,
        txn: Option<&mut Transaction>,
        p: &SetPlan,
        params: &[Value],
    ) -> Result<Vec<Vec<Value>>> {
        let collations = crate::expr::meta::collations(&p.columns);
        let mut rows = self.node_rows(txn, &p.tree, params, (&collations, &p.columns))?;
        if !p.order.is_empty() {
            let order: Vec<(crate::plan::OrderKey, bool, Collation)> = p
                .order
                .iter()
                .map(|(c, desc)| {
                    let collation = collations
                        .get(*c)
                        .copied()
                        .unwrap_or(Collation::Utf8mb4GeneralCi);
                    (crate::plan::OrderKey::Item(*c), *desc, collation)
                })
                .collect();
            let mut keyed: Vec<(Vec<Value>, Vec<Value>)> = rows
                .into_iter()
                .map(|r| {
                    let keys = p
                        .order
                        .iter()
                        .map(|(c, _)| r.get(*c).cloned().unwrap_or(Value::Null))
                        .collect();
                    (keys, r)
                })
                .collect();
            keyed.sort_by(|a, b| crate::expr::aggregate::by_keys(&a.0, &b.0, &order));
            rows = keyed.into_iter().map(|(_, r)| r).collect();
        }
        self.last_found_rows = rows.len() as u64;
        let count = |s: &Self, e: &Option<Expr>| -> Result<Option<u64>> {
            e.as_ref()
                .map(|e| {
                    s.free(e, params)
                        .and_then(crate::expr::aggregate::count_value)
                })
                .transpose()
        };
        let offset = count(self, &p.offset)?.unwrap_or(0);
        let limit = count(self, &p.limit)?;
        Ok(rows
            .into_iter()
            .skip(usize::try_from(offset).unwrap_or(usize::MAX))
            .take(limit.map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX)))
            .collect())
    }

    /// A node's rows: its left side's operators are applied in a loop (see [`left_spine`]).
    fn node_rows(
        &mut self,
        mut txn: Option<&mut Transaction>,
        node: &SetNode,
        params: &[Value],
        (collations, columns): (&[Collation], &[Column]),
    ) -> Result<Vec<Vec<Value>>> {
        let mut operators = Vec::new();
        let mut at = node;
        while let SetNode::Op {
            op,
            distinct,
            left,
            right,
        } = at
        {
            operators.push((*op, *distinct, right.as_ref()));
            at = left;
        }
        let mut rows = self.operand_rows(txn.as_deref_mut(), at, params, columns)?;
        for (op, distinct, right) in operators.into_iter().rev() {
            let more = self.node_rows(txn.as_deref_mut(), right, params, (collations, columns))?;
            rows = combine(op, distinct, rows, more, collations);
        }
        Ok(rows)
    }

    /// An operand's rows (a SELECT, or a parenthesized set operation), their values made the
    /// set operation's `columns`' types.
    fn operand_rows(
        &mut self,
        txn: Option<&mut Transaction>,
        node: &SetNode,
        params: &[Value],
        columns: &[Column],
    ) -> Result<Vec<Vec<Value>>> {
        let (p, own) = match node {
            SetNode::Select(p) => (p, &p.columns),
            SetNode::Nested(p) => {
                let mut rows = self.set_rows(txn, p, params)?;
                self.conform(&mut rows, &p.columns, columns, params)?;
                return Ok(rows);
            }
            SetNode::Op { .. } => {
                let collations = node.collations();
                return self.node_rows(txn, node, params, (&collations, columns));
            }
        };
        let outcome = match txn {
            Some(txn) => {
                let rows = self.select_source_rows(txn, client::ExecType::NoCommit, p, params)?;
                self.select_rows(p, params, rows)?
            }
            None => self.run_select(p, params)?,
        };
        let mut rows = match outcome {
            Outcome::Rows { rows, .. } => rows,
            _ => Vec::new(),
        };
        self.conform(&mut rows, own, columns, params)?;
        Ok(rows)
    }

    /// An operand's values, of its own columns `own`, made the set operation's column types
    /// `to` (`expr::meta::union_column`) as CAST makes them: numbers as the DECIMAL or DOUBLE
    /// the types aggregate to, a DATE or TIME as a DATETIME, so they show and compare
    /// (DISTINCT) as MariaDB's do. Integers that widen and strings stay as they are.
    fn conform(
        &self,
        rows: &mut [Vec<Value>],
        own: &[Column],
        to: &[Column],
        params: &[Value],
    ) -> Result<()> {
        let casts: Vec<Option<CastTo>> = own.iter().zip(to).map(|(a, b)| cast_to(a, b)).collect();
        if casts.iter().all(Option::is_none) {
            return Ok(());
        }
        for row in rows {
            for (v, cast) in row.iter_mut().zip(&casts) {
                if let (Some(cast), false) = (cast, v.is_null()) {
                    let value = std::mem::replace(v, Value::Null);
                    *v = self.free(&Expr::Cast(Box::new(Expr::Const(value)), *cast), params)?;
                }
            }
        }
        Ok(())
    }
}

/// The conversion a value of column `a` needs to be one of set-operation column `b`, if any.
fn cast_to(a: &Column, b: &Column) -> Option<CastTo> {
    use myproto::response::{types, BINARY_COLLATION_ID};
    let string = crate::expr::meta::holds_strings;
    let temporal = |t: u8| {
        matches!(
            t,
            types::DATE | types::DATETIME | types::TIMESTAMP | types::TIME
        )
    };
    match b.column_type {
        types::NEWDECIMAL if a.column_type != b.column_type || a.decimals != b.decimals => {
            Some(CastTo::Decimal(DECIMAL_DIGITS_MAX, b.decimals))
        }
        types::DOUBLE if !matches!(a.column_type, types::DOUBLE | types::FLOAT) => {
            Some(CastTo::Double)
        }
        types::DATETIME if matches!(a.column_type, types::DATE | types::TIME) => {
            Some(CastTo::DateTime(b.decimals.min(6)))
        }
        // Numbers and dates among strings are their text, so they compare and sort as text.
        t if string(t) && !string(a.column_type) && a.column_type != types::GEOMETRY => {
            Some(if temporal(a.column_type) {
                CastTo::Shown(a.decimals.min(6))
            } else if b.collation == BINARY_COLLATION_ID {
                CastTo::Binary(None)
            } else {
                CastTo::Char(None)
            })
        }
        _ => None,
    }
}

impl<S: Exec> SetOperations for S {}
