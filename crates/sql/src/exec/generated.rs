//! Generated columns' values (`GENERATED ALWAYS AS (expr) VIRTUAL | STORED`): the SQL front
//! end computes each from the row it is about to write (INSERT, REPLACE, ON DUPLICATE KEY
//! UPDATE, UPDATE, LOAD DATA), in column order so one may read those before it, stores it
//! under the column's type as any value is stored, and the data node keeps it like any other
//! column (VIRTUAL ones too: only what is shown differs).

use base::schema::ColumnDef;
use base::{TableDef, Value};
use sqlparser::ast;

use crate::exec::diagnostics::Storing;
use crate::exec::run::Executor;
use crate::expr::stored::{lenient_store, strict_store};
use crate::expr::Expr;
use crate::foundation::error::{Result, SqlError};

/// A table's generated columns, each with its expression compiled over the row by position.
pub(crate) type Generators = Vec<(u16, Expr)>;

/// MariaDB's 1906 for a value given to `column` of `def`.
pub(crate) fn value_ignored(def: &TableDef, column: &ColumnDef) -> SqlError {
    let (_, table) = crate::catalog::foreign::split_name(&def.name);
    SqlError::generated_value_ignored(table, &column.name)
}

/// A generated column's kept expression read back.
pub(crate) fn parse(text: &str) -> Result<ast::Expr> {
    crate::exec::check::parse_kept(text, "a generated column's expression")
}

/// `e` compiled against the columns of `def` (a row of every column by position), with
/// MariaDB's 1054 for a column the table lacks.
pub(crate) fn compile_expr(def: &TableDef, e: &ast::Expr) -> Result<Expr> {
    let (db, table) = crate::catalog::foreign::split_name(&def.name);
    crate::exec::check::compile_over_row(def, db, table, e, "GENERATED ALWAYS AS")
}

/// The generated columns of `def` with their expressions compiled (empty for most tables).
pub(crate) fn generators(def: &TableDef) -> Result<Generators> {
    let mut out = Vec::new();
    for (at, c) in def.columns.iter().enumerate() {
        if let Some(g) = &c.generated {
            out.push((at as u16, compile_expr(def, &parse(&g.expr)?)?));
        }
    }
    Ok(out)
}

pub(crate) trait Generating: Executor {
    /// Computes the generated columns of `def` in `full` (the row about to be written, every
    /// column by position; statement row `n` from 1 for errors and warnings), each stored
    /// under its column's type strictly or, under IGNORE, `lenient`ly; returns their values.
    fn generate(
        &mut self,
        def: &TableDef,
        generators: &Generators,
        full: &mut [Value],
        n: usize,
        lenient: bool,
    ) -> Result<Vec<(u16, Value)>> {
        let storing = if lenient {
            Storing::Ignoring
        } else {
            Storing::Strict
        };
        let mut out = Vec::with_capacity(generators.len());
        for (c, e) in generators {
            let v = self.storing(storing, |s| e.eval(&s.env(full, &[], &[])))?;
            let column = &def.columns[*c as usize];
            let v = if lenient {
                lenient_store(def, column, v, n, |code, m| self.diagnostics.warn(code, m))?
            } else {
                strict_store(def, column, v, n)?
            };
            if let Some(slot) = full.get_mut(*c as usize) {
                *slot = v.clone();
            }
            out.push((*c, v));
        }
        Ok(out)
    }
}

impl<S: Executor> Generating for S {}
