//! CHECK constraints declared: a column's `CHECK (cond)` and a table's `[CONSTRAINT name] CHECK
//! (cond)` in CREATE TABLE, ALTER TABLE's ADD CONSTRAINT ... CHECK (the rows there checked)
//! and DROP CONSTRAINT, with MariaDB's names (a column's is the column's, a table's unnamed one
//! `CONSTRAINT_<n>`) and errors (1054, 1826, 1901, 1970); the condition kept in MariaDB's
//! spelling (`catalog/check.rs`). Enforcing them is `exec/check.rs`'s.

use base::foreign_key::CheckDef;
use base::TableDef;
use sqlparser::ast;

use crate::catalog::foreign::split_name;
use crate::exec::check::Checking;
use crate::foundation::error::{Result, SqlError};
use crate::session::Session;

/// One CHECK clause as written: its name (None: unnamed), condition, and the column it was
/// declared with (None: the table's).
pub(crate) struct DeclaredCheck {
    name: Option<String>,
    expr: ast::Expr,
    column: Option<String>,
}

/// The CHECK clauses of a CREATE TABLE: its columns' (but a JSON column's own `json_valid`
/// check, which is the column's type), then its constraints'.
pub(crate) fn declared_in(c: &ast::CreateTable) -> Vec<DeclaredCheck> {
    let mut checks = Vec::new();
    for column in &c.columns {
        for option in &column.options {
            if let ast::ColumnOption::Check(ck) = &option.option {
                if crate::commands::column_def::is_json_check(&ck.expr, &column.name.value) {
                    continue;
                }
                checks.push(DeclaredCheck {
                    name: None,
                    expr: (*ck.expr).clone(),
                    column: Some(column.name.value.clone()),
                });
            }
        }
    }
    for constraint in &c.constraints {
        if let ast::TableConstraint::Check(ck) = constraint {
            checks.push(DeclaredCheck {
                name: ck.name.as_ref().map(|n| n.value.clone()),
                expr: (*ck.expr).clone(),
                column: None,
            });
        }
    }
    checks
}

/// A function whose value is not the row's alone: MariaDB's 1901 in a CHECK.
fn volatile(name: &str) -> bool {
    [
        "rand",
        "uuid",
        "uuid_short",
        "now",
        "sysdate",
        "curdate",
        "current_date",
        "curtime",
        "current_time",
        "current_timestamp",
        "localtime",
        "localtimestamp",
        "unix_timestamp",
        "utc_date",
        "utc_time",
        "utc_timestamp",
        "connection_id",
        "current_user",
        "user",
        "database",
        "last_insert_id",
        "found_rows",
        "row_count",
        "sleep",
        "get_lock",
        "release_lock",
    ]
    .contains(&name)
}

/// The names a condition reads (its columns, and `@` variables).
pub(crate) fn names_read(e: &ast::Expr) -> Vec<String> {
    let mut names = Vec::new();
    let _ = ast::visit_expressions(e, |e| {
        match e {
            ast::Expr::Identifier(i) => names.push(i.value.clone()),
            ast::Expr::CompoundIdentifier(parts) => {
                names.extend(parts.last().map(|i| i.value.clone()))
            }
            _ => {}
        }
        std::ops::ControlFlow::<()>::Continue(())
    });
    names
}

/// MariaDB's 1901 for what a condition may not read: a variable, an AUTO_INCREMENT column.
fn cannot_read(what: &str, name: &str) -> SqlError {
    SqlError::new(
        1901,
        "HY000",
        format!("Function or expression '{what}' cannot be used in the CHECK clause of `{name}`"),
    )
}

/// MariaDB's refusals of a condition's form: a subquery (1970), a function whose value is not
/// the row's alone, a variable or an AUTO_INCREMENT column (1901).
fn check_form(def: &TableDef, e: &ast::Expr, name: &str) -> Result<()> {
    for read in names_read(e) {
        if read.starts_with('@') {
            return Err(cannot_read(&read, name));
        }
        if def
            .column(&read)
            .is_some_and(|at| def.columns[at].auto_increment)
        {
            return Err(cannot_read("AUTO_INCREMENT", name));
        }
    }
    let mut found: Option<SqlError> = None;
    let _ = ast::visit_expressions(e, |e| {
        match e {
            ast::Expr::Subquery(_) | ast::Expr::Exists { .. } | ast::Expr::InSubquery { .. } => {
                found = Some(SqlError::new(
                    1970,
                    "42000",
                    "CHECK does not support subqueries or stored functions",
                ));
            }
            ast::Expr::Function(f) if volatile(&f.name.to_string().to_ascii_lowercase()) => {
                found = Some(SqlError::new(
                    1901,
                    "HY000",
                    format!(
                        "Function or expression '{}()' cannot be used in the CHECK clause of `{name}`",
                        f.name.to_string().to_ascii_lowercase()
                    ),
                ));
            }
            _ => {}
        }
        if found.is_some() {
            std::ops::ControlFlow::Break(())
        } else {
            std::ops::ControlFlow::Continue(())
        }
    });
    match found {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// MariaDB's refusals of a generated column's expression (the column at `at` of `def`): what
/// is not the row's alone (a subquery, a variable, a function such as NOW() or RAND(), which
/// Cairn computes once, on writing: MariaDB would compute a VIRTUAL one on reading) and an
/// AUTO_INCREMENT column (assigned by the data node after the expression runs), 1901; a
/// generated column at or after it, 4029; a column the table lacks, 1054.
pub(crate) fn check_generated(def: &TableDef) -> Result<()> {
    for (at, column) in def.columns.iter().enumerate() {
        let Some(g) = &column.generated else { continue };
        let e = crate::exec::generated::parse(&g.expr)?;
        let refused = |what: &str| {
            SqlError::new(
                1901,
                "HY000",
                format!(
                    "Function or expression '{what}' cannot be used in the GENERATED ALWAYS AS \
                     clause of `{}`",
                    column.name
                ),
            )
        };
        for read in names_read(&e) {
            if read.starts_with('@') {
                return Err(refused(&read));
            }
            let Some(other) = def.column(&read) else {
                continue;
            };
            if def.columns[other].auto_increment {
                return Err(refused("AUTO_INCREMENT"));
            }
            if other >= at && def.columns[other].generated.is_some() {
                return Err(SqlError::new(
                    4029,
                    "01000",
                    format!(
                        "Expression for field `{}` is referring to uninitialized field `{}`",
                        column.name, def.columns[other].name
                    ),
                ));
            }
        }
        let mut found: Option<SqlError> = None;
        let _ = ast::visit_expressions(&e, |e| {
            found = match e {
                ast::Expr::Subquery(_)
                | ast::Expr::Exists { .. }
                | ast::Expr::InSubquery { .. } => Some(refused("select ...")),
                ast::Expr::Function(f) if volatile(&f.name.to_string().to_ascii_lowercase()) => {
                    Some(refused(&format!(
                        "{}()",
                        f.name.to_string().to_ascii_lowercase()
                    )))
                }
                _ => None,
            };
            match found {
                Some(_) => std::ops::ControlFlow::Break(()),
                None => std::ops::ControlFlow::Continue(()),
            }
        });
        if let Some(e) = found {
            return Err(e);
        }
        crate::exec::generated::compile_expr(def, &e)?;
        // A foreign key's cascade writes the child's key columns alone: none may be generated
        // or read by a generated column it would leave stale.
        let reads: Vec<usize> = names_read(&e)
            .iter()
            .filter_map(|n| def.column(n))
            .collect();
        for key in &def.foreign_keys {
            use base::foreign_key::ReferenceAction as A;
            let writes = [key.on_delete, key.on_update]
                .iter()
                .any(|a| matches!(a, A::Cascade | A::SetNull));
            let generated = key.columns.contains(&(at as u16));
            let read = key.columns.iter().any(|c| reads.contains(&(*c as usize)));
            if generated || (writes && read) {
                return Err(SqlError::unsupported(format!(
                    "the foreign key `{}` on a generated column or, with CASCADE or SET NULL, on \
                     a column the generated column `{}` reads",
                    key.name, column.name
                )));
            }
        }
    }
    Ok(())
}

/// The next unnamed table constraint's name: `CONSTRAINT_<n>`, one past the highest in use.
fn next_name(checks: &[CheckDef]) -> String {
    let highest = checks
        .iter()
        .filter_map(|c| {
            c.name
                .to_ascii_uppercase()
                .strip_prefix("CONSTRAINT_")
                .and_then(|n| n.parse::<u32>().ok())
        })
        .max()
        .unwrap_or(0);
    format!("CONSTRAINT_{}", highest + 1)
}

impl Session {
    /// Adds the checks `declared` to `def` (its catalog name in `def.name`), each named and its
    /// condition compiled against the table as MariaDB checks it.
    pub(crate) fn add_checks(
        &self,
        mut def: TableDef,
        declared: Vec<DeclaredCheck>,
    ) -> Result<TableDef> {
        let (db, table) = split_name(&def.name);
        let (db, table) = (db.to_string(), table.to_string());
        for d in declared {
            let column = match &d.column {
                Some(c) => Some(def.column(c).ok_or_else(|| {
                    SqlError::new(1054, "42S22", format!("Unknown column '{c}' in 'CHECK'"))
                })? as u16),
                None => None,
            };
            let name = match (&d.name, &d.column) {
                (Some(n), _) => n.clone(),
                (None, Some(c)) => c.clone(),
                (None, None) => next_name(&def.checks),
            };
            if def
                .checks
                .iter()
                .any(|c| c.name.eq_ignore_ascii_case(&name))
            {
                return Err(SqlError::new(
                    1826,
                    "HY000",
                    format!("Duplicate CHECK constraint name '{name}'"),
                ));
            }
            check_form(&def, &d.expr, &name)?;
            crate::exec::check::compile_check(&def, &db, &table, &d.expr)?;
            let Some(expr) = crate::catalog::check::kept(&d.expr) else {
                return Err(SqlError::unsupported(format!(
                    "the CHECK condition of `{name}` in a form Cairn cannot keep as MariaDB spells it"
                )));
            };
            def.checks.push(CheckDef { name, expr, column });
        }
        Ok(def)
    }

    /// ALTER TABLE's ADD [CONSTRAINT name] CHECK (cond), the rows there checked first (4025),
    /// and DROP CONSTRAINT name of a CHECK or a foreign key (1091 for neither). Returns the rows
    /// checked, which MariaDB counts as it copies the table.
    pub(crate) fn alter_checks(
        &mut self,
        full: &str,
        table: &str,
        operations: &[ast::AlterTableOperation],
    ) -> Result<u64> {
        let mut declared = Vec::new();
        let mut dropped = Vec::new();
        for op in operations {
            match op {
                ast::AlterTableOperation::AddConstraint {
                    constraint: ast::TableConstraint::Check(ck),
                    ..
                } => declared.push(DeclaredCheck {
                    name: ck.name.as_ref().map(|n| n.value.clone()),
                    expr: (*ck.expr).clone(),
                    column: None,
                }),
                ast::AlterTableOperation::DropConstraint {
                    name, if_exists, ..
                } => dropped.push((name.value.clone(), *if_exists)),
                ast::AlterTableOperation::AddColumn { column_def, .. } => {
                    for option in &column_def.options {
                        if let ast::ColumnOption::Check(ck) = &option.option {
                            if crate::commands::column_def::is_json_check(
                                &ck.expr,
                                &column_def.name.value,
                            ) {
                                continue;
                            }
                            declared.push(DeclaredCheck {
                                name: None,
                                expr: (*ck.expr).clone(),
                                column: Some(column_def.name.value.clone()),
                            });
                        }
                    }
                }
                ast::AlterTableOperation::ModifyColumn { options, .. }
                | ast::AlterTableOperation::ChangeColumn { options, .. }
                    if options
                        .iter()
                        .any(|o| matches!(o, ast::ColumnOption::Check(_))) =>
                {
                    return Err(SqlError::unsupported(
                        "CHECK in ALTER TABLE ... MODIFY or CHANGE COLUMN (add it as a constraint)",
                    ));
                }
                _ => {}
            }
        }
        if declared.is_empty() && dropped.is_empty() {
            return Ok(0);
        }
        let adding = !declared.is_empty();
        let current = self.fresh_table(full, table)?;
        let mut def = current.def().clone();
        for (name, if_exists) in &dropped {
            if let Some(at) = def
                .checks
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case(name))
            {
                def.checks.remove(at);
            } else if let Some(at) = def
                .foreign_keys
                .iter()
                .position(|k| k.name.eq_ignore_ascii_case(name))
            {
                def.foreign_keys.remove(at);
            } else if *if_exists {
                self.note(
                    1091,
                    format!("Can't DROP CONSTRAINT `{name}`; check that it exists"),
                );
            } else {
                return Err(SqlError::new(
                    1091,
                    "42000",
                    format!("Can't DROP CONSTRAINT `{name}`; check that it exists"),
                ));
            }
        }
        let before = current.def().checks.clone();
        let def = self.add_checks(def, declared)?;
        // In force first, then the rows there checked, so that no write between escapes both;
        // a row that fails takes the new constraints away again.
        let installed = self.set_constraints(full, def.foreign_keys.clone(), def.checks.clone())?;
        if !adding || !self.check_constraint_checks() {
            return Ok(0);
        }
        let names: Vec<&str> = def.columns.iter().map(|c| c.name.as_str()).collect();
        let rows = self
            .data()
            .clone()
            .scan(&installed, &client::Scan::table().columns(&names))
            .map_err(|e| SqlError::from_client(&e))?;
        for row in &rows {
            if let Err(e) = self.check_values(&def, &def.checks, row) {
                if let Err(undo) = self.set_constraints(full, def.foreign_keys.clone(), before) {
                    tracing::warn!("ALTER TABLE {full}: taking the new CHECKs away failed: {undo}");
                }
                return Err(e);
            }
        }
        Ok(rows.len() as u64)
    }

    /// The refusals of a column change (`columns`: the new list) that loses a column a CHECK of
    /// the table reads (but a column's own CHECK, which goes with it): dropped, MariaDB's 1054;
    /// renamed, 1235 (MariaDB carries the new name into the condition; Cairn does not yet).
    pub(crate) fn check_columns_kept(def: &TableDef, columns: &[client::NewColumn]) -> Result<()> {
        let kept = |n: &str| {
            columns
                .iter()
                .any(|c| c.column.name.eq_ignore_ascii_case(n))
        };
        for check in &def.checks {
            if check
                .column
                .is_some_and(|c| !kept(&def.columns[c as usize].name))
            {
                continue;
            }
            let read = sqlparser::parser::Parser::new(&crate::parse::dialect::Cairn)
                .try_with_sql(&check.expr)
                .and_then(|mut p| p.parse_expr())
                .map(|e| names_read(&e))
                .unwrap_or_default();
            let Some(lost) = read.iter().find(|n| !kept(n)) else {
                continue;
            };
            let renamed = def.column(lost).is_some_and(|at| {
                columns
                    .iter()
                    .any(|c| c.source == client::ColumnSource::Kept(at as u16))
            });
            if renamed {
                return Err(SqlError::unsupported(format!(
                    "renaming a column that CHECK constraint `{}` reads (drop the constraint first)",
                    check.name
                )));
            }
            return Err(SqlError::new(
                1054,
                "42S22",
                format!("Unknown column '{lost}' in 'CHECK'"),
            ));
        }
        Ok(())
    }

    /// A table's definition as the data node holds it now (an ALTER TABLE's earlier operations
    /// changed it).
    pub(crate) fn fresh_table(&self, full: &str, table: &str) -> Result<client::Table> {
        let cluster = self.shared.cluster();
        cluster.forget_table(full);
        cluster.table(full).map_err(|e| self.table_error(e, table))
    }

    /// Replaces a table's foreign keys and CHECK constraints (a new definition version).
    pub(crate) fn set_constraints(
        &self,
        full: &str,
        foreign_keys: Vec<base::foreign_key::ForeignKeyDef>,
        checks: Vec<CheckDef>,
    ) -> Result<client::Table> {
        let cluster = self.shared.cluster();
        let version = cluster
            .table(full)
            .map_err(|e| SqlError::from_client(&e))?
            .def()
            .version;
        cluster
            .alter_table(
                full,
                client::TableChange::Constraints {
                    version,
                    foreign_keys,
                    checks,
                },
            )
            .map_err(|e| SqlError::from_client(&e))
    }
}
