//! Running plans against the data nodes: the executor (keys, bounds and pushed filters to
//! operations), UPDATE and DELETE, and SELECTs streamed to their client.

pub(crate) mod check;
pub(crate) mod derived;
pub(crate) mod diagnostics;
pub(crate) mod foreign;
pub(crate) mod generated;
pub(crate) mod insert;
pub(crate) mod join;
pub(crate) mod literal;
pub(crate) mod prefetch;
pub(crate) mod run;
pub(crate) mod semijoin;
pub(crate) mod setop;
pub(crate) mod step;
pub(crate) mod stream;
pub(crate) mod subquery;
pub(crate) mod window;
pub(crate) mod write;

pub(crate) use derived::Materializing;
pub(crate) use insert::Inserting;
pub(crate) use join::Joining;
pub(crate) use run::Executor;
pub(crate) use setop::SetOperations;
pub(crate) use step::Stepping;
pub(crate) use stream::Streaming;
pub(crate) use subquery::Subqueries;
pub(crate) use write::Writes;

use crate::expr::Context;
use crate::foundation::error::SqlError;
use std::ops::DerefMut;

use base::Value;
use myproto::response::Column;

/// What one statement answers.
pub enum Outcome {
    Done {
        affected: u64,
        last_insert_id: u64,
        info: String,
    },
    Rows {
        columns: Vec<Column>,
        rows: Vec<Vec<Value>>,
    },
    /// A top-level SELECT's rows, sent to the client a batch at a time as its scan reads them
    /// (`exec/stream.rs`); only the connection that ran the statement answers it.
    Stream(Box<stream::RowStream>),
    Failed(SqlError),
}

/// A result of rows whole, as EXPLAIN and DESCRIBE make it.
pub(crate) fn rows((columns, rows): (Vec<Column>, Vec<Vec<Value>>)) -> Outcome {
    Outcome::Rows { columns, rows }
}

pub(crate) fn done(affected: u64) -> Outcome {
    Outcome::Done {
        affected,
        last_insert_id: 0,
        info: String::new(),
    }
}

use client::{Cluster, ExecType, Transaction};
use sqlparser::ast::{ObjectName, Statement};
use sqlparser::tokenizer::Location;

use crate::exec::diagnostics::{Diagnostics, Storing};
use crate::foundation::error::Result;
use crate::plan::compiled::Compiled;
use crate::plan::Source;

/// What the executor keeps in the session running it, from statement to statement: the
/// diagnostics area, the values FOUND_ROWS(), LAST_INSERT_ID() and NOW() read, and the state of
/// the subqueries and recursive common table expressions running. The session holds one and
/// dereferences to it, so both layers name its fields alike.
#[derive(Default)]
pub struct ExecState {
    pub(crate) database: Option<String>,
    /// The client asked for matched (not changed) rows as UPDATE's affected count.
    pub found_rows: bool,
    pub(crate) last_insert_id: u64,
    pub(crate) last_found_rows: u64,
    pub(crate) diagnostics: Diagnostics,
    /// When the running statement started (Unix microseconds): what NOW() reads.
    pub(crate) statement_micros: i64,
    /// Statements with subqueries running inside one another (`exec/subquery.rs`).
    pub(crate) subquery_depth: usize,
    /// The correlated subqueries of the statements running, innermost last (`exec/subquery.rs`).
    pub(crate) correlated: Vec<subquery::Correlated>,
    /// The working tables of the recursive common table expressions running, innermost last:
    /// each one's id and the rows its last step added (`exec/derived.rs`).
    pub(crate) working_tables: Vec<(u64, Vec<Vec<Value>>)>,
    /// The CHECK constraints compiled, by table id and definition version (`exec/check.rs`).
    pub(crate) checks: std::collections::HashMap<(u32, u32), check::CompiledChecks>,
    /// Set while EXPLAIN plans a statement with subqueries: each uncorrelated subquery met is
    /// planned, not run, and its EXPLAIN rows kept here (`Subqueries::explain_deferred`).
    pub(crate) explaining: Option<Vec<Vec<Vec<Value>>>>,
}

/// The executor's window on the session running it: its `ExecState`, and what only the session
/// can do (its transaction, its data node connection, planning and running a statement with
/// its privileges, the rows of information_schema). The executor's own code is default methods
/// of traits over this one (`exec/run.rs`'s `Executor`, ...), so it never names the session.
pub(crate) trait Exec: Context + Sized + DerefMut<Target = ExecState> {
    /// Runs `work` in the session's open transaction, or in one that commits with the last
    /// batch `work` sends (the `ExecType` it is given).
    fn transactional<R>(
        &mut self,
        work: impl FnOnce(&mut Self, &mut Transaction, ExecType) -> Result<R>,
    ) -> Result<R>;
    /// A transaction is open (explicit, or autocommit off).
    fn in_transaction(&self) -> bool;
    /// The session's own data node connection.
    fn data(&mut self) -> &Cluster;
    /// The table `name` names, with its database and name.
    fn table(&self, name: &ObjectName) -> Result<(client::Table, String, String)>;
    /// Plans a statement as the session would (its database, tables and privileges).
    fn compile(&self, s: Statement, sql: &str, placeholders: &[Location]) -> Result<Compiled>;
    /// Runs a planned statement as the session would.
    fn execute(&mut self, c: &Compiled, params: &[Value]) -> Result<Outcome>;
    /// Whether the data node may fold a grouped SELECT's rows (cairn_aggregate_pushdown).
    fn pushdown_aggregates(&self) -> bool;
    /// Whether the data node may run a join's first tables (cairn_join_pushdown).
    fn pushdown_joins(&self) -> bool;
    /// Whether writes check foreign keys (foreign_key_checks).
    fn foreign_key_checks(&self) -> bool;
    /// Whether writes check CHECK constraints (check_constraint_checks).
    fn check_constraint_checks(&self) -> bool;
    /// Which foreign keys reference each table.
    fn referencing(&self) -> Result<std::sync::Arc<crate::catalog::foreign::Referencing>>;
    /// The table with catalog name `full` (`database/table`), None when there is none.
    fn catalog_table(&self, full: &str) -> Result<Option<client::Table>>;
    /// The rows of an information_schema table `src` reads.
    fn schema_rows(&mut self, src: &Source) -> Result<Vec<Vec<Value>>>;
    /// The running statement was killed, or its client went away: the error to stop with.
    fn check_killed(&self) -> Result<()>;
    /// Counts a result streamed to the client.
    fn streamed(&mut self);
    /// The bytes a GROUP_CONCAT keeps.
    fn group_concat_max_len(&self) -> usize;

    /// Runs `f` with divisions by zero and bad values handled as `storing` says.
    fn storing<R>(&mut self, storing: Storing, f: impl FnOnce(&mut Self) -> R) -> R {
        let before = std::mem::replace(&mut self.diagnostics.storing, storing);
        let r = f(self);
        self.diagnostics.storing = before;
        r
    }
}
