//! Privileges: their bits, MariaDB's names and order for them, the levels they apply at (global,
//! a database or database pattern, a table), the errors a missing one gives, what a session may
//! see, and the check every statement passes before it is planned (`Session::check_statement`).
//!
//! A session holds its account's global privileges as one bitmask and its grants on databases
//! and tables (`Scoped`), all read when it authenticated: a change to grants reaches connections
//! made after it (as MySQL for global privileges; MariaDB applies database grants at the next
//! USE and table grants at once). The check runs where
//! a plan is made (COM_STMT_PREPARE, a text query the plan cache does not hold yet, DDL and the
//! rest), so a prepared statement or a cached plan served again, by the thread or by the reactor,
//! is never checked again: it was made under the same privileges. An account holding every
//! privilege (root) skips the statement walk after one comparison.

use sqlparser::ast::{self, ObjectName, ObjectType, Statement};

use crate::foundation::error::Result;
use crate::foundation::error::SqlError;
use crate::parse::ident;
use crate::session::Session;

pub type Privileges = u64;

pub const SELECT: Privileges = 1;
pub const INSERT: Privileges = 1 << 1;
pub const UPDATE: Privileges = 1 << 2;
pub const DELETE: Privileges = 1 << 3;
pub const CREATE: Privileges = 1 << 4;
pub const DROP: Privileges = 1 << 5;
pub const RELOAD: Privileges = 1 << 6;
pub const SHUTDOWN: Privileges = 1 << 7;
pub const PROCESS: Privileges = 1 << 8;
pub const FILE: Privileges = 1 << 9;
pub const REFERENCES: Privileges = 1 << 10;
pub const INDEX: Privileges = 1 << 11;
pub const ALTER: Privileges = 1 << 12;
pub const SHOW_DATABASES: Privileges = 1 << 13;
pub const SUPER: Privileges = 1 << 14;
pub const CREATE_TEMPORARY_TABLES: Privileges = 1 << 15;
pub const LOCK_TABLES: Privileges = 1 << 16;
pub const EXECUTE: Privileges = 1 << 17;
pub const CREATE_VIEW: Privileges = 1 << 20;
pub const SHOW_VIEW: Privileges = 1 << 21;
pub const CREATE_ROUTINE: Privileges = 1 << 22;
pub const ALTER_ROUTINE: Privileges = 1 << 23;
pub const CREATE_USER: Privileges = 1 << 24;
pub const EVENT: Privileges = 1 << 25;
pub const TRIGGER: Privileges = 1 << 26;
pub const DELETE_HISTORY: Privileges = 1 << 28;
/// WITH GRANT OPTION: kept apart from the privileges ALL names.
pub const GRANT_OPTION: Privileges = 1 << 63;

/// Every global privilege by MariaDB 10.11's name, in the order SHOW GRANTS lists them.
pub const NAMES: &[(&str, Privileges)] = &[
    ("SELECT", SELECT),
    ("INSERT", INSERT),
    ("UPDATE", UPDATE),
    ("DELETE", DELETE),
    ("CREATE", CREATE),
    ("DROP", DROP),
    ("RELOAD", RELOAD),
    ("SHUTDOWN", SHUTDOWN),
    ("PROCESS", PROCESS),
    ("FILE", FILE),
    ("REFERENCES", REFERENCES),
    ("INDEX", INDEX),
    ("ALTER", ALTER),
    ("SHOW DATABASES", SHOW_DATABASES),
    ("SUPER", SUPER),
    ("CREATE TEMPORARY TABLES", CREATE_TEMPORARY_TABLES),
    ("LOCK TABLES", LOCK_TABLES),
    ("EXECUTE", EXECUTE),
    ("REPLICATION SLAVE", 1 << 18),
    ("BINLOG MONITOR", 1 << 19),
    ("CREATE VIEW", CREATE_VIEW),
    ("SHOW VIEW", SHOW_VIEW),
    ("CREATE ROUTINE", CREATE_ROUTINE),
    ("ALTER ROUTINE", ALTER_ROUTINE),
    ("CREATE USER", CREATE_USER),
    ("EVENT", EVENT),
    ("TRIGGER", TRIGGER),
    ("CREATE TABLESPACE", 1 << 27),
    ("DELETE HISTORY", DELETE_HISTORY),
    ("SET USER", 1 << 29),
    ("FEDERATED ADMIN", 1 << 30),
    ("CONNECTION ADMIN", 1 << 31),
    ("READ_ONLY ADMIN", 1 << 32),
    ("REPLICATION SLAVE ADMIN", 1 << 33),
    ("REPLICATION MASTER ADMIN", 1 << 34),
    ("BINLOG ADMIN", 1 << 35),
    ("BINLOG REPLAY", 1 << 36),
    ("SLAVE MONITOR", 1 << 37),
];

/// Other spellings MariaDB accepts for the same privileges.
const ALIASES: &[(&str, Privileges)] = &[
    ("REPLICATION CLIENT", 1 << 19),
    ("SLAVE MONITOR", 1 << 37),
    ("REPLICA MONITOR", 1 << 37),
    ("REPLICATION REPLICA", 1 << 18),
];

/// ALL [PRIVILEGES]: every privilege but GRANT OPTION.
pub const ALL: Privileges = (1 << 38) - 1;

/// The privileges a grant on one table may hold.
pub const TABLE_LEVEL: Privileges = SELECT
    | INSERT
    | UPDATE
    | DELETE
    | CREATE
    | DROP
    | REFERENCES
    | INDEX
    | ALTER
    | CREATE_VIEW
    | SHOW_VIEW
    | TRIGGER
    | DELETE_HISTORY;

/// The privileges that apply to databases (and a grant on one may hold): holding any of them
/// globally lets an account see and use every database.
pub const DATABASE_LEVEL: Privileges = TABLE_LEVEL
    | CREATE_TEMPORARY_TABLES
    | LOCK_TABLES
    | EXECUTE
    | CREATE_ROUTINE
    | ALTER_ROUTINE
    | EVENT;

/// A session's grants below the global level, as `users::grants_of` gives them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scoped {
    /// (database name or pattern, privileges): the first that matches a database is the one
    /// that applies to it, as in MariaDB, so exact names (listed first) win over patterns.
    databases: Vec<(String, Privileges)>,
    /// (database, table, privileges).
    tables: Vec<(String, String, Privileges)>,
}

impl Scoped {
    pub fn new(grants: Vec<crate::catalog::users::Grant>) -> Scoped {
        let mut scoped = Scoped::default();
        for g in grants {
            if g.table.is_empty() {
                scoped.databases.push((g.database, g.privileges));
            } else {
                scoped.tables.push((g.database, g.table, g.privileges));
            }
        }
        scoped
    }

    /// The privileges a database grant gives on database `db`.
    pub fn on_database(&self, db: &str) -> Privileges {
        self.databases
            .iter()
            .find(|(pattern, _)| {
                crate::catalog::users::like(pattern.as_bytes(), db.as_bytes(), true)
            })
            .map_or(0, |(_, p)| *p)
    }

    /// The privileges a table grant gives on `db`.`table`.
    pub fn on_table(&self, db: &str, table: &str) -> Privileges {
        self.tables
            .iter()
            .filter(|(d, t, _)| d.eq_ignore_ascii_case(db) && t.eq_ignore_ascii_case(table))
            .fold(0, |all, (_, _, p)| all | p)
    }

    /// Whether a table grant names a table of `db`.
    pub fn any_table_in(&self, db: &str) -> bool {
        self.tables
            .iter()
            .any(|(d, _, _)| d.eq_ignore_ascii_case(db))
    }
}

/// A privilege by name (words joined by one space, upper case).
pub fn by_name(name: &str) -> Option<Privileges> {
    NAMES
        .iter()
        .chain(ALIASES)
        .find(|(n, _)| *n == name)
        .map(|(_, p)| *p)
}

/// The privilege list of a GRANT statement as SHOW GRANTS prints it: ALL PRIVILEGES, the names
/// in MariaDB's order, or USAGE for none.
pub fn grant_list(privileges: Privileges) -> String {
    grant_list_of(privileges, ALL)
}

/// A privilege list at a level whose privileges are `all` (ALL PRIVILEGES when it holds them).
pub fn grant_list_of(privileges: Privileges, all: Privileges) -> String {
    let p = privileges & ALL;
    if p == all {
        return "ALL PRIVILEGES".into();
    }
    if p == 0 {
        return "USAGE".into();
    }
    NAMES
        .iter()
        .filter(|(_, bit)| p & bit != 0)
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

/// ER_TABLEACCESS_DENIED_ERROR.
pub fn table_denied(command: &str, user: &str, host: &str, db: &str, table: &str) -> SqlError {
    SqlError::new(
        1142,
        "42000",
        format!("{command} command denied to user '{user}'@'{host}' for table `{db}`.`{table}`"),
    )
}

/// ER_DBACCESS_DENIED_ERROR.
pub fn database_denied(user: &str, host: &str, db: &str) -> SqlError {
    SqlError::new(
        1044,
        "42000",
        format!("Access denied for user '{user}'@'{host}' to database '{db}'"),
    )
}

/// ER_SPECIFIC_ACCESS_DENIED_ERROR.
pub fn privilege_needed(name: &str) -> SqlError {
    SqlError::new(
        1227,
        "42000",
        format!(
            "Access denied; you need (at least one of) the {name} privilege(s) for this operation"
        ),
    )
}

/// ER_ACCESS_DENIED_ERROR, as the connection phase and GRANT without the grant option give it.
pub fn access_denied(user: &str, host: &str, password: bool) -> SqlError {
    let using = if password { "YES" } else { "NO" };
    SqlError::new(
        1045,
        "28000",
        format!("Access denied for user '{user}'@'{host}' (using password: {using})"),
    )
}

/// The first column `node` names, if any (an identifier in one of its expressions).
fn first_column(node: &impl ast::Visit) -> Option<String> {
    let mut found = None;
    let _ = ast::visit_expressions(node, |e| {
        found = match e {
            ast::Expr::Identifier(i) => Some(i.value.clone()),
            ast::Expr::CompoundIdentifier(parts) => parts.last().map(|i| i.value.clone()),
            _ => None,
        };
        if found.is_some() {
            std::ops::ControlFlow::Break(())
        } else {
            std::ops::ControlFlow::Continue(())
        }
    });
    found
}

/// The tables a statement reads (besides the one it writes), by name.
fn relations(s: &impl ast::Visit) -> Vec<ObjectName> {
    let mut names = Vec::new();
    let _ = ast::visit_relations(s, |n| {
        names.push(n.clone());
        std::ops::ControlFlow::<()>::Continue(())
    });
    names
}

impl Session {
    /// The user and host errors name (the client's host, as MariaDB's messages do).
    fn who(&self) -> (&str, &str) {
        (&self.user, &self.host)
    }

    /// Whether the session holds every privilege in `needed`.
    pub(crate) fn holds(&self, needed: Privileges) -> bool {
        self.privileges & needed == needed
    }

    /// `name` as (database, table) for an error: the current database when unqualified; None
    /// when there is none (the statement then fails with 1046 when it is planned).
    fn qualified(&self, name: &ObjectName) -> Option<(String, String)> {
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
    fn privileges_on(&self, name: &ObjectName) -> Privileges {
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
    fn uses_database(&self, db: &str) -> bool {
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
    fn need_any(&self, name: &ObjectName, command: &str) -> Result<()> {
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
    fn need_columns(&self, target: &[ObjectName], read: Option<String>) -> Result<()> {
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
    fn need_on_databases(&self, needed: Privileges, names: &[ObjectName]) -> Result<()> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_lists() {
        assert_eq!(grant_list(ALL), "ALL PRIVILEGES");
        assert_eq!(grant_list(ALL | GRANT_OPTION), "ALL PRIVILEGES");
        assert_eq!(grant_list(0), "USAGE");
        assert_eq!(grant_list(INSERT | SELECT), "SELECT, INSERT");
        assert_eq!(by_name("REPLICATION CLIENT"), by_name("BINLOG MONITOR"));
        assert_eq!(by_name("CREATE USER"), Some(CREATE_USER));
        assert_eq!(by_name("NOPE"), None);
        let mut seen = 0;
        for (_, bit) in NAMES {
            assert_eq!(seen & bit, 0, "each name has its own bit");
            seen |= bit;
        }
        assert_eq!(seen, ALL);
    }
}
