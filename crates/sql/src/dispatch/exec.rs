//! The session as the executor's context (`exec::Exec`): wired here, above both, since running
//! a statement inside another (a subquery's) goes through the dispatcher's `execute`.

use base::Value;
use client::{Cluster, ExecType, Transaction};
use sqlparser::ast::{ObjectName, Statement};
use sqlparser::tokenizer::Location;

use crate::exec::{Exec, Outcome};
use crate::foundation::error::{Result, SqlError};
use crate::plan::compiled::Compiled;
use crate::session::Session;

impl Exec for Session {
    fn transactional<R>(
        &mut self,
        work: impl FnOnce(&mut Self, &mut Transaction, ExecType) -> Result<R>,
    ) -> Result<R> {
        Session::transactional(self, work)
    }
    fn in_transaction(&self) -> bool {
        Session::in_transaction(self)
    }
    fn data(&mut self) -> &Cluster {
        Session::data(self)
    }
    fn table(&self, name: &ObjectName) -> Result<(client::Table, String, String)> {
        Session::table(self, name)
    }
    fn compile(&self, s: Statement, sql: &str, placeholders: &[Location]) -> Result<Compiled> {
        Session::compile(self, s, sql, placeholders)
    }
    fn execute(&mut self, c: &Compiled, params: &[Value]) -> Result<Outcome> {
        Session::execute(self, c, params)
    }
    fn schema_rows(&mut self, src: &crate::plan::Source) -> Result<Vec<Vec<Value>>> {
        crate::session::schema_rows::rows(self, src)
    }
    fn pushdown_aggregates(&self) -> bool {
        self.aggregate_pushdown()
    }
    fn pushdown_joins(&self) -> bool {
        self.join_pushdown()
    }
    fn foreign_key_checks(&self) -> bool {
        Session::foreign_key_checks(self)
    }
    fn check_constraint_checks(&self) -> bool {
        Session::check_constraint_checks(self)
    }
    fn referencing(&self) -> Result<std::sync::Arc<crate::catalog::foreign::Referencing>> {
        Session::referencing(self)
    }
    fn catalog_table(&self, full: &str) -> Result<Option<client::Table>> {
        match self.shared.cluster().table(full) {
            Ok(t) => Ok(Some(t)),
            Err(e) if e.code() == base::ErrorCode::NoSuchTable => Ok(None),
            Err(e) => Err(SqlError::from_client(&e)),
        }
    }
    fn check_killed(&self) -> Result<()> {
        self.activity.interrupt.check_killed()
    }
    fn streamed(&mut self) {
        let shared = self.shared.clone();
        self.activity.streamed(&shared);
    }
    fn group_concat_max_len(&self) -> usize {
        Session::group_concat_max_len(self)
    }
}
