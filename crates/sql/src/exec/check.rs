//! CHECK constraints enforced in the API node (`Checking`): each row an INSERT, UPDATE, REPLACE
//! or LOAD DATA is about to write is checked against its table's conditions, compiled once per
//! definition version and kept in the session; a condition that is false (not NULL) fails the
//! statement with MariaDB's 4025, also under IGNORE, as MariaDB's. A foreign key's cascade does
//! not check the rows it changes, as InnoDB's does not. `check_constraint_checks = 0` turns the
//! checks off.

use std::sync::Arc;

use base::foreign_key::CheckDef;
use base::{TableDef, Value};
use client::Table;
use sqlparser::ast;

use crate::exec::run::Executor;
use crate::exec::Exec;
use crate::expr::{Compiler, Expr, Scope};
use crate::foundation::error::{Result, SqlError};

/// Tables whose compiled conditions a session keeps.
const COMPILED_TABLES_MAX: usize = 256;

/// A table's conditions compiled: each constraint's name as 4025 names it, and its condition.
pub(crate) type CompiledChecks = Arc<Vec<(String, Expr)>>;

/// `e` compiled against the columns of `def` (a row of every column by position), with
/// MariaDB's 1054 for a column the table lacks.
pub(crate) fn compile_check(def: &TableDef, db: &str, table: &str, e: &ast::Expr) -> Result<Expr> {
    compile_over_row(def, db, table, e, "CHECK")
}

/// `e` compiled against the columns of `def` (`db`.`table`), a row of every column by
/// position; `place` names the clause in 1054.
pub(crate) fn compile_over_row(
    def: &TableDef,
    db: &str,
    table: &str,
    e: &ast::Expr,
    place: &'static str,
) -> Result<Expr> {
    let scope = Scope {
        def,
        name: table,
        database: db,
        offset: 0,
    };
    let mut c = Compiler::new(Some(scope), &[]);
    c.place = place;
    c.compile(e)
}

/// An expression the catalog keeps as text (`what` it is, for the error) read back.
pub(crate) fn parse_kept(text: &str, what: &str) -> Result<ast::Expr> {
    sqlparser::parser::Parser::new(&crate::parse::dialect::Cairn)
        .try_with_sql(text)
        .and_then(|mut p| p.parse_expr())
        .map_err(|e| SqlError::parse(format!("{what}: {e}")))
}

/// The name MariaDB's 4025 gives a constraint: a column's is `table.column`.
fn shown_name(table: &str, check: &CheckDef) -> String {
    match check.column {
        Some(_) => format!("{table}.{}", check.name),
        None => check.name.clone(),
    }
}

/// `checks` of `def` compiled.
fn compile_all(def: &TableDef, checks: &[CheckDef]) -> Result<Vec<(String, Expr)>> {
    let (db, table) = crate::catalog::foreign::split_name(&def.name);
    checks
        .iter()
        .map(|c| {
            let e = compile_check(
                def,
                db,
                table,
                &parse_kept(&c.expr, "a CHECK constraint's condition")?,
            )?;
            Ok((shown_name(table, c), e))
        })
        .collect()
}

pub(crate) trait Checking: Executor {
    /// 4025 unless every CHECK of `table` holds (or is NULL) for `row`, every column by
    /// position.
    fn check_row(&mut self, table: &Table, row: &[Value]) -> Result<()> {
        let def = table.def();
        if def.checks.is_empty() || !self.check_constraint_checks() {
            return Ok(());
        }
        let key = (def.id, def.version);
        let compiled = match self.checks.get(&key) {
            Some(c) => c.clone(),
            None => {
                let c: CompiledChecks = Arc::new(compile_all(def, &def.checks)?);
                if self.checks.len() >= COMPILED_TABLES_MAX {
                    // Definitions come and go (each change is a new version): start afresh.
                    self.checks.clear();
                }
                self.checks.insert(key, c.clone());
                c
            }
        };
        self.holds(def, &compiled, row)
    }

    /// [`Checking::check_row`] for `checks` of `def` (compiled for this one call: ALTER TABLE
    /// ADD CONSTRAINT's check of the rows there).
    fn check_values(&mut self, def: &TableDef, checks: &[CheckDef], row: &[Value]) -> Result<()> {
        let compiled = compile_all(def, checks)?;
        self.holds(def, &compiled, row)
    }

    fn holds(&mut self, def: &TableDef, compiled: &[(String, Expr)], row: &[Value]) -> Result<()> {
        for (name, e) in compiled {
            let v = e.eval(&self.env(row, &[], &[]))?;
            if !v.is_null() && !crate::expr::truthy(&v) {
                let (db, table) = crate::catalog::foreign::split_name(&def.name);
                return Err(SqlError::new(
                    4025,
                    "23000",
                    format!("CONSTRAINT `{name}` failed for `{db}`.`{table}`"),
                ));
            }
        }
        Ok(())
    }
}

impl<S: Exec> Checking for S {}
