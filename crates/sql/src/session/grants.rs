//! The privilege check each statement passes when a session plans it (`Session::compile`):
//! the privileges a statement needs, at which level, against the account's global bits and its
//! grants (`catalog/privilege.rs`), with MariaDB's errors.

use crate::catalog::privilege::*;
use crate::foundation::error::Result;
use crate::foundation::error::SqlError;
use crate::parse::ident;
use crate::session::Session;
use sqlparser::ast::{self, ObjectName, ObjectType, Statement};

impl Session {
    /// The user and host errors name (the client's host, as MariaDB's messages do).
    pub(crate) fn who(&self) -> (&str, &str) {
        (&self.user, &self.host)
    }

    /// Whether the session holds every privilege in `needed`.
    pub(crate) fn holds(&self, needed: Privileges) -> bool {
        self.privileges & needed == needed
    }

    /// `name` as (database, table) for an error: the current database when unqualified; None
    /// when there is none (the statement then fails with 1046 when it is planned).
    pub(crate) fn qualified(&self, name: &ObjectName) -> Option<(String, String)> {
        let (db, table) = ident(name).ok()?;
        Some((db.or_else(|| self.database.clone())?, table))
    }

    /// The privileges the session holds on database `db`: global and the database grant's.
    pub(crate) fn on_database(&self, db: &str) -> Privileges {
        self.privileges | self.scoped.on_database(db)
    }

    /// The privileges the session holds on table `db`.`table`, at every level.
    pub(crate) fn on_table(&self, db: &str, table: &str) -> Privileges {
        self.on_database(db) | self.scoped.on_table(db, table)
    }

    /// The privileges the session holds on the table `name` names (the global ones when it
    /// names no database and none is current).
    pub(crate) fn privileges_on(&self, name: &ObjectName) -> Privileges {
        match self.qualified(name) {
            Some((db, table)) => self.on_table(&db, &table),
            None => self.privileges,
        }
    }

    /// Whether SHOW DATABASES and information_schema list database `db` to the session: it
    /// holds a privilege that applies to databases globally, or SHOW DATABASES, or a grant on
    /// `db` or on one of its tables.
    pub(crate) fn sees_database(&self, db: &str) -> bool {
        self.privileges & SHOW_DATABASES != 0 || self.uses_database(db)
    }

    /// Whether the session holds anything in database `db`: a privilege that applies to
    /// databases globally, or a grant on `db` or on one of its tables (information_schema is
    /// everyone's).
    pub(crate) fn uses_database(&self, db: &str) -> bool {
        self.privileges & DATABASE_LEVEL != 0
            || crate::catalog::infoschema::is_schema(db)
            || self.scoped.on_database(db) != 0
            || self.scoped.any_table_in(db)
    }

    /// Whether SHOW TABLES and information_schema list table `db`.`table` to the session: it
    /// holds some privilege on it, at any level.
    pub(crate) fn sees_table(&self, db: &str, table: &str) -> bool {
        self.privileges & DATABASE_LEVEL != 0
            || crate::catalog::infoschema::is_schema(db)
            || self.scoped.on_database(db) | self.scoped.on_table(db, table) != 0
    }

    /// Fails with 1142 naming the first table of `names` on which the session lacks `needed`
    /// (information_schema's tables are exempt). A common table expression's name is checked as
    /// a table's: it may hide the table it reads, so a session without SELECT reads neither.
    pub(crate) fn need_on_tables(
        &self,
        needed: Privileges,
        command: &str,
        names: &[ObjectName],
    ) -> Result<()> {
        if self.holds(needed) {
            return Ok(());
        }
        for n in names {
            let Some((db, table)) = self.qualified(n) else {
                continue;
            };
            if crate::catalog::infoschema::is_schema(&db)
                || self.on_table(&db, &table) & needed == needed
            {
                continue;
            }
            let (user, host) = self.who();
            return Err(table_denied(command, user, host, &db, &table));
        }
        Ok(())
    }

    /// Fails with 1142 (naming `command`) unless the session holds some privilege on table
    /// `name`.
    pub(crate) fn need_any(&self, name: &ObjectName, command: &str) -> Result<()> {
        match self.qualified(name) {
            Some((db, table)) if !self.sees_table(&db, &table) => {
                let (user, host) = self.who();
                Err(table_denied(command, user, host, &db, &table))
            }
            _ => Ok(()),
        }
    }

    /// Fails with 1143 when a statement that writes the tables `target` reads column `read`
    /// (in its WHERE, its assignments, its ORDER BY or its joins) and the session lacks SELECT
    /// on one of them, as MariaDB, which asks SELECT of each column a write reads. The column
    /// is not matched to its table: a column of another table read by a multi-table write asks
    /// SELECT of the written tables too (stricter than MariaDB, never looser).
    pub(crate) fn need_columns(&self, target: &[ObjectName], read: Option<String>) -> Result<()> {
        let Some(column) = read else {
            return Ok(());
        };
        if self.holds(SELECT) {
            return Ok(());
        }
        for n in target {
            let Some((db, table)) = self.qualified(n) else {
                continue;
            };
            if crate::catalog::infoschema::is_schema(&db)
                || self.on_table(&db, &table) & SELECT != 0
            {
                continue;
            }
            let (user, host) = self.who();
            return Err(SqlError::new(
                1143,
                "42000",
                format!("SELECT command denied to user '{user}'@'{host}' for column '{column}' in table '{table}'"),
            ));
        }
        Ok(())
    }

    /// Fails with 1044 when the session may not use database `db`: it holds no privilege that
    /// applies to databases, globally or on `db` or on one of its tables.
    pub(crate) fn need_database(&self, db: &str) -> Result<()> {
        if self.uses_database(db) {
            return Ok(());
        }
        let (user, host) = self.who();
        Err(database_denied(user, host, db))
    }

    /// Fails with 1227 unless the session holds `needed` (named `name`).
    pub(crate) fn need_global(&self, needed: Privileges, name: &str) -> Result<()> {
        if self.holds(needed) {
            Ok(())
        } else {
            Err(privilege_needed(name))
        }
    }

    /// Checks that the session may change table `name`'s options (ALTER TABLE with options
    /// only, which does not go through `check_statement`).
    pub(crate) fn check_alter(&self, name: &ObjectName) -> Result<()> {
        self.need_on_tables(ALTER, "ALTER", std::slice::from_ref(name))
    }

    /// Checks that the session may run `s` (see the module comment); called before planning.
    pub(crate) fn check_statement(&self, s: &Statement) -> Result<()> {
        if self.privileges & ALL == ALL {
            return Ok(());
        }
        let reads = |names: Vec<ObjectName>| self.need_on_tables(SELECT, "SELECT", &names);
        match s {
            Statement::Query(_) => reads(relations(s)),
            Statement::Insert(i) => {
                let target = match &i.table {
                    ast::TableObject::TableName(n) => vec![n.clone()],
                    _ => Vec::new(),
                };
                // REPLACE deletes, and ON DUPLICATE KEY UPDATE updates, as well as inserting.
                let held = target
                    .first()
                    .map_or(self.privileges, |n| self.privileges_on(n));
                let (needed, command) = if i.replace_into {
                    let command = if held & INSERT != 0 {
                        "DELETE"
                    } else {
                        "INSERT"
                    };
                    (INSERT | DELETE, command)
                } else if i.on.is_some() {
                    let command = if held & INSERT != 0 {
                        "UPDATE"
                    } else {
                        "INSERT"
                    };
                    (INSERT | UPDATE, command)
                } else {
                    (INSERT, "INSERT")
                };
                self.need_on_tables(needed, command, &target)?;
                // Every other table it names (its SELECT, subqueries anywhere) is read.
                let mut others = relations(s);
                others.retain(|n| !target.contains(n));
                reads(others)
            }
            Statement::Update(u) => {
                let target = relations(&u.table);
                self.need_on_tables(UPDATE, "UPDATE", &target)?;
                let read = first_column(&u.selection)
                    .or_else(|| u.assignments.iter().find_map(|a| first_column(&a.value)))
                    .or_else(|| first_column(&u.order_by))
                    .or_else(|| first_column(&u.table));
                self.need_columns(&target, read)?;
                let mut others = relations(s);
                others.retain(|n| !target.contains(n));
                self.need_on_tables(SELECT, "SELECT", &others)
            }
            Statement::Delete(d) => {
                let target: Vec<ObjectName> = match &d.from {
                    ast::FromTable::WithFromKeyword(t) | ast::FromTable::WithoutKeyword(t) => {
                        t.iter().flat_map(relations).collect()
                    }
                };
                self.need_on_tables(DELETE, "DELETE", &target)?;
                let read = first_column(&d.selection)
                    .or_else(|| first_column(&d.order_by))
                    .or_else(|| first_column(&d.from))
                    .or_else(|| first_column(&d.using));
                self.need_columns(&target, read)?;
                let mut others = relations(s);
                others.retain(|n| !target.contains(n));
                self.need_on_tables(SELECT, "SELECT", &others)
            }
            Statement::CreateTable(c) => {
                self.need_on_tables(CREATE, "CREATE", std::slice::from_ref(&c.name))
            }
            Statement::CreateIndex(c) => {
                self.need_on_tables(INDEX, "INDEX", std::slice::from_ref(&c.table_name))
            }
            Statement::AlterTable(a) => {
                self.need_on_tables(ALTER, "ALTER", std::slice::from_ref(&a.name))
            }
            Statement::Truncate(t) => {
                let names: Vec<ObjectName> = t.table_names.iter().map(|n| n.name.clone()).collect();
                self.need_on_tables(DROP, "DROP", &names)
            }
            Statement::RenameTable(renames) => {
                for r in renames {
                    self.need_on_tables(ALTER | DROP, "ALTER", std::slice::from_ref(&r.old_name))?;
                    self.need_on_tables(
                        CREATE | INSERT,
                        "CREATE",
                        std::slice::from_ref(&r.new_name),
                    )?;
                }
                Ok(())
            }
            Statement::Drop {
                object_type: ObjectType::Index,
                table: Some(table),
                ..
            } => self.need_on_tables(INDEX, "INDEX", std::slice::from_ref(table)),
            Statement::Drop {
                object_type: ObjectType::Table,
                names,
                ..
            } => self.need_on_tables(DROP, "DROP", names),
            Statement::Drop {
                object_type: ObjectType::Database | ObjectType::Schema,
                names,
                ..
            } => self.need_on_databases(DROP, names),
            Statement::CreateDatabase { db_name, .. } => {
                self.need_on_databases(CREATE, std::slice::from_ref(db_name))
            }
            // Describing a table asks some privilege on it, as MariaDB.
            Statement::ExplainTable { table_name, .. } => self.need_any(table_name, "SELECT"),
            Statement::ShowColumns { show_options, .. } => match &show_options.show_in {
                Some(ast::ShowStatementIn {
                    parent_name: Some(name),
                    ..
                }) => self.need_any(name, "SELECT"),
                _ => Ok(()),
            },
            Statement::ShowCreate { obj_name, .. } => self.need_any(obj_name, "SHOW"),
            Statement::ShowTables { show_options, .. } => match &show_options.show_in {
                Some(ast::ShowStatementIn {
                    parent_name: Some(name),
                    ..
                }) => match ident(name) {
                    Ok((_, db)) => self.need_database(&db),
                    Err(_) => Ok(()),
                },
                _ => match &self.database {
                    Some(db) => self.need_database(db),
                    None => Ok(()),
                },
            },
            Statement::Explain { statement, .. } => self.check_statement(statement),
            Statement::LockTables { tables } => {
                let names: Vec<ObjectName> = tables
                    .iter()
                    .map(|t| ObjectName::from(vec![t.table.clone()]))
                    .collect();
                self.need_on_tables(SELECT | LOCK_TABLES, "LOCK TABLES", &names)
            }
            _ => Ok(()),
        }
    }

    /// Fails with 1044 naming the first database of `names` when the session lacks `needed`.
    pub(crate) fn need_on_databases(&self, needed: Privileges, names: &[ObjectName]) -> Result<()> {
        match names.first().map(ident) {
            Some(Ok((_, db))) => self.need_on_database(needed, &db),
            _ => Ok(()),
        }
    }

    /// Fails with 1044 when the session lacks `needed` on database `db`.
    pub(crate) fn need_on_database(&self, needed: Privileges, db: &str) -> Result<()> {
        if self.holds(needed) || self.on_database(db) & needed == needed {
            return Ok(());
        }
        let (user, host) = self.who();
        Err(database_denied(user, host, db))
    }
}
