//! Materializing derived tables and recursive common table expressions: running their queries
//! and keeping their rows, under their limits (planned in `plan/derived.rs`).

use crate::exec::Outcome;
use crate::exec::{Exec, Executor, SetOperations, Subqueries};
use crate::foundation::error::Result;
use crate::plan::derived::{
    bounded, Derived, DerivedKind, DERIVED_TABLE_ROWS_MAX, RECURSION_STEPS_MAX,
};
use crate::plan::QueryPlan;
use base::Value;
use client::{ExecType, Transaction};

pub(crate) trait Materializing: Exec {
    /// Materializes a derived table: runs its query, its reads in `txn` (the last with `exec`
    /// when it is a single SELECT), and keeps the result rows.
    fn derived_rows(
        &mut self,
        txn: &mut Transaction,
        exec: ExecType,
        d: &Derived,
        params: &[Value],
    ) -> Result<Vec<Vec<Value>>> {
        match &d.kind {
            DerivedKind::Query => {}
            DerivedKind::Working(id) => {
                return Ok(self
                    .working_tables
                    .iter()
                    .rev()
                    .find(|(w, _)| w == id)
                    .map(|(_, rows)| rows.clone())
                    .unwrap_or_default())
            }
            DerivedKind::Recursive {
                step,
                working,
                distinct,
            } => return self.recursive_rows(txn, d, step, *working, *distinct, params),
        }
        let rows = self.query_plan_rows(txn, exec, &d.query, params)?;
        bounded(rows, &d.name, DERIVED_TABLE_ROWS_MAX)
    }

    /// A derived table's query's rows, read in `txn`.
    fn query_plan_rows(
        &mut self,
        txn: &mut Transaction,
        exec: ExecType,
        query: &QueryPlan,
        params: &[Value],
    ) -> Result<Vec<Vec<Value>>> {
        Ok(match query {
            QueryPlan::Select(p) => {
                let rows = self.select_source_rows(txn, exec, p, params)?;
                match self.select_rows(p, params, rows)? {
                    Outcome::Rows { rows, .. } => rows,
                    _ => Vec::new(),
                }
            }
            QueryPlan::Set(p) => self.set_rows(Some(txn), p, params)?,
        })
    }

    /// A recursive common table expression's rows: the anchor's, then each step's new rows
    /// (read with the step before's as the working table) until a step adds none.
    fn recursive_rows(
        &mut self,
        txn: &mut Transaction,
        d: &Derived,
        step: &QueryPlan,
        working: u64,
        distinct: bool,
        params: &[Value],
    ) -> Result<Vec<Vec<Value>>> {
        let collations = crate::expr::meta::collations(d.query.columns());
        let mut seen = hashbrown::HashSet::new();
        let mut keep = |rows: Vec<Vec<Value>>| -> Vec<Vec<Value>> {
            if !distinct {
                return rows;
            }
            rows.into_iter()
                .filter(|r| seen.insert(crate::expr::aggregate::group_key(r, &collations)))
                .collect()
        };
        let first = self.query_plan_rows(txn, ExecType::NoCommit, &d.query, params)?;
        let mut all = keep(first);
        let mut last = all.clone();
        let mut steps = 0;
        while !last.is_empty() {
            steps += 1;
            if steps > RECURSION_STEPS_MAX {
                self.diagnostics.warn(
                    1931,
                    format!(
                        "Query execution was interrupted. The query exceeded max_recursive_iterations = {RECURSION_STEPS_MAX}. The query result may be incomplete"
                    ),
                );
                break;
            }
            self.working_tables.push((working, last));
            let rows = self.query_plan_rows(txn, ExecType::NoCommit, step, params);
            self.working_tables.pop();
            last = keep(rows?);
            all.extend(last.iter().cloned());
            if all.len() > DERIVED_TABLE_ROWS_MAX {
                return bounded(all, &d.name, DERIVED_TABLE_ROWS_MAX);
            }
        }
        Ok(all)
    }
}

impl<S: Exec> Materializing for S {}
