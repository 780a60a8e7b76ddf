//! Running set operations (UNION, INTERSECT, EXCEPT) planned in `plan/setop.rs`: each
//! operand's rows, combined in the API node.

use crate::exec::Outcome;
use crate::exec::{Exec, Executor, Subqueries};
use crate::expr::Expr;
use crate::foundation::error::Result;
use crate::plan::setop::{combine, SetNode, SetPlan};
use base::types::Collation;
use base::Value;
use client::Transaction;

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
        let mut rows = self.node_rows(txn, &p.tree, params, &collations)?;
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
        collations: &[Collation],
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
        let mut rows = self.operand_rows(txn.as_deref_mut(), at, params)?;
        for (op, distinct, right) in operators.into_iter().rev() {
            let more = self.node_rows(txn.as_deref_mut(), right, params, collations)?;
            rows = combine(op, distinct, rows, more, collations);
        }
        Ok(rows)
    }

    /// An operand's rows (a SELECT, or a parenthesized set operation).
    fn operand_rows(
        &mut self,
        txn: Option<&mut Transaction>,
        node: &SetNode,
        params: &[Value],
    ) -> Result<Vec<Vec<Value>>> {
        let p = match node {
            SetNode::Select(p) => p,
            SetNode::Nested(p) => return self.set_rows(txn, p, params),
            SetNode::Op { .. } => return self.node_rows(txn, node, params, &node.collations()),
        };
        let outcome = match txn {
            Some(txn) => {
                let rows = self.select_source_rows(txn, client::ExecType::NoCommit, p, params)?;
                self.select_rows(p, params, rows)?
            }
            None => self.run_select(p, params)?,
        };
        Ok(match outcome {
            Outcome::Rows { rows, .. } => rows,
            _ => Vec::new(),
        })
    }
}

impl<S: Exec> SetOperations for S {}
