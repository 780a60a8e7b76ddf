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

use sqlparser::ast::{self, ObjectName};

use crate::foundation::error::SqlError;

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
pub(crate) fn first_column(node: &impl ast::Visit) -> Option<String> {
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
pub(crate) fn relations(s: &impl ast::Visit) -> Vec<ObjectName> {
    let mut names = Vec::new();
    let _ = ast::visit_relations(s, |n| {
        names.push(n.clone());
        std::ops::ControlFlow::<()>::Continue(())
    });
    names
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
