//! information_schema: its tables (SCHEMATA, TABLES, COLUMNS, STATISTICS, KEY_COLUMN_USAGE,
//! COLLATIONS, CHARACTER_SETS, USER_PRIVILEGES, SCHEMA_PRIVILEGES, TABLE_PRIVILEGES, with
//! MariaDB's columns) and the internal tables SHOW statements select from, all virtual:
//! their definitions live here, and their rows are made in the API node from the catalog and
//! the server's state when a statement reads them. A plan over a virtual table runs the normal
//! select pipeline over those rows; nothing here is ever sent to a data node. The schema is
//! read-only: writes and DDL on it answer MariaDB's error 1044.

use std::sync::OnceLock;

use base::schema::ColumnDef;
use base::types::{Collation, ColumnType};
use base::{TableDef, Value};
use client::{Scan, ScanOrder, Table};
use sqlparser::ast::{self, ObjectName, Statement};

use crate::catalog::definition::{self, ENGINE};
use crate::foundation::error::Result;
use crate::foundation::error::SqlError;
use crate::parse::ident;
use crate::plan::Source;
use crate::session::Session;

/// The schema's name, as MariaDB spells it.
pub const NAME: &str = "information_schema";

/// Whether `name` names information_schema (in any case, as MariaDB allows).
pub fn is_schema(name: &str) -> bool {
    name.eq_ignore_ascii_case(NAME)
}

/// The virtual tables: the public ones, then the internal ones SHOW reads (named with a `$`,
/// which the public lookup never finds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Virtual {
    Schemata,
    Tables,
    Columns,
    Statistics,
    KeyColumnUsage,
    Collations,
    CharacterSets,
    UserPrivileges,
    SchemaPrivileges,
    TablePrivileges,
    /// Cairn has no triggers nor views: these answer no rows, for the tools that ask
    /// (mysqldump reads TRIGGERS for each table it dumps).
    Triggers,
    Views,
    /// PRIMARY KEY and UNIQUE constraints, one row each, as KEY_COLUMN_USAGE's keys, and each
    /// JSON column's CHECK.
    TableConstraints,
    /// The `json_valid` check of each JSON column, as MariaDB lists it.
    CheckConstraints,
    /// Cairn has no foreign keys: no rows.
    ReferentialConstraints,
    /// The stored procedures and their parameters (commands/routines.rs).
    Routines,
    Parameters,
    /// The one engine every table has.
    Engines,
    SessionVariables,
    GlobalVariables,
    SessionStatus,
    GlobalStatus,
    /// ndbinfo.nodes: the data nodes of the cluster's node group the API node reaches, each
    /// one's state in the current view and its role (NDB's ndbinfo schema).
    NdbinfoNodes,
    /// ndbinfo.memoryusage: each data node's data memory, used and its limit (NDB's columns,
    /// pages of 32 KiB).
    NdbinfoMemoryusage,
    /// mysql.user: the accounts, as MariaDB's view of them shows them to tools (read only).
    MysqlUser,
}

impl Virtual {
    const ALL: [Virtual; 25] = [
        Virtual::Schemata,
        Virtual::Tables,
        Virtual::Columns,
        Virtual::Statistics,
        Virtual::KeyColumnUsage,
        Virtual::Collations,
        Virtual::CharacterSets,
        Virtual::UserPrivileges,
        Virtual::SchemaPrivileges,
        Virtual::TablePrivileges,
        Virtual::Triggers,
        Virtual::Views,
        Virtual::TableConstraints,
        Virtual::CheckConstraints,
        Virtual::ReferentialConstraints,
        Virtual::Routines,
        Virtual::Parameters,
        Virtual::Engines,
        Virtual::SessionVariables,
        Virtual::GlobalVariables,
        Virtual::SessionStatus,
        Virtual::GlobalStatus,
        Virtual::NdbinfoNodes,
        Virtual::NdbinfoMemoryusage,
        Virtual::MysqlUser,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Virtual::Schemata => "SCHEMATA",
            Virtual::Tables => "TABLES",
            Virtual::Columns => "COLUMNS",
            Virtual::Statistics => "STATISTICS",
            Virtual::KeyColumnUsage => "KEY_COLUMN_USAGE",
            Virtual::Collations => "COLLATIONS",
            Virtual::CharacterSets => "CHARACTER_SETS",
            Virtual::UserPrivileges => "USER_PRIVILEGES",
            Virtual::SchemaPrivileges => "SCHEMA_PRIVILEGES",
            Virtual::TablePrivileges => "TABLE_PRIVILEGES",
            Virtual::Triggers => "TRIGGERS",
            Virtual::Views => "VIEWS",
            Virtual::TableConstraints => "TABLE_CONSTRAINTS",
            Virtual::CheckConstraints => "CHECK_CONSTRAINTS",
            Virtual::ReferentialConstraints => "REFERENTIAL_CONSTRAINTS",
            Virtual::Routines => "ROUTINES",
            Virtual::Parameters => "PARAMETERS",
            Virtual::Engines => "ENGINES",
            Virtual::SessionVariables => "$session_variables",
            Virtual::GlobalVariables => "$global_variables",
            Virtual::SessionStatus => "$session_status",
            Virtual::GlobalStatus => "$global_status",
            Virtual::NdbinfoNodes => "$ndbinfo_nodes",
            Virtual::NdbinfoMemoryusage => "$ndbinfo_memoryusage",
            Virtual::MysqlUser => "$mysql_user",
        }
    }

    /// The internal table called `name`.
    pub(crate) fn internal_named(name: &str) -> Option<Virtual> {
        Virtual::ALL
            .iter()
            .copied()
            .find(|v| !v.public() && v.name() == name)
    }

    fn public(self) -> bool {
        !self.name().starts_with('$')
    }

    /// The columns: (name, type, nullable).
    fn columns(self) -> Vec<(&'static str, ColumnType, bool)> {
        let text = |n: u32| ColumnType::VarChar { length: n };
        let count = ColumnType::BigInt { unsigned: true };
        let named = |names: &[&'static str]| -> Vec<(&'static str, ColumnType, bool)> {
            names.iter().map(|n| (*n, text(64), false)).collect()
        };
        match self {
            Virtual::Schemata => vec![
                ("CATALOG_NAME", text(512), false),
                ("SCHEMA_NAME", text(64), false),
                ("DEFAULT_CHARACTER_SET_NAME", text(32), false),
                ("DEFAULT_COLLATION_NAME", text(64), false),
                ("SQL_PATH", text(512), true),
                ("SCHEMA_COMMENT", text(1024), false),
            ],
            Virtual::Tables => vec![
                ("TABLE_CATALOG", text(512), false),
                ("TABLE_SCHEMA", text(64), false),
                ("TABLE_NAME", text(64), false),
                ("TABLE_TYPE", text(64), false),
                ("ENGINE", text(64), true),
                ("VERSION", count, true),
                ("ROW_FORMAT", text(10), true),
                ("TABLE_ROWS", count, true),
                ("AVG_ROW_LENGTH", count, true),
                ("DATA_LENGTH", count, true),
                ("MAX_DATA_LENGTH", count, true),
                ("INDEX_LENGTH", count, true),
                ("DATA_FREE", count, true),
                ("AUTO_INCREMENT", count, true),
                ("CREATE_TIME", ColumnType::DateTime { fsp: 0 }, true),
                ("UPDATE_TIME", ColumnType::DateTime { fsp: 0 }, true),
                ("CHECK_TIME", ColumnType::DateTime { fsp: 0 }, true),
                ("TABLE_COLLATION", text(64), true),
                ("CHECKSUM", count, true),
                ("CREATE_OPTIONS", text(2048), true),
                ("TABLE_COMMENT", text(2048), false),
                ("MAX_INDEX_LENGTH", count, true),
                ("TEMPORARY", text(1), true),
            ],
            Virtual::Columns => vec![
                ("TABLE_CATALOG", text(512), false),
                ("TABLE_SCHEMA", text(64), false),
                ("TABLE_NAME", text(64), false),
                ("COLUMN_NAME", text(64), false),
                ("ORDINAL_POSITION", count, false),
                ("COLUMN_DEFAULT", ColumnType::TEXT, true),
                ("IS_NULLABLE", text(3), false),
                ("DATA_TYPE", text(64), false),
                ("CHARACTER_MAXIMUM_LENGTH", count, true),
                ("CHARACTER_OCTET_LENGTH", count, true),
                ("NUMERIC_PRECISION", count, true),
                ("NUMERIC_SCALE", count, true),
                ("DATETIME_PRECISION", count, true),
                ("CHARACTER_SET_NAME", text(32), true),
                ("COLLATION_NAME", text(64), true),
                ("COLUMN_TYPE", ColumnType::TEXT, false),
                ("COLUMN_KEY", text(3), false),
                ("EXTRA", text(80), false),
                ("PRIVILEGES", text(80), false),
                ("COLUMN_COMMENT", text(1024), false),
                ("IS_GENERATED", text(6), false),
                ("GENERATION_EXPRESSION", ColumnType::TEXT, true),
            ],
            Virtual::Statistics => vec![
                ("TABLE_CATALOG", text(512), false),
                ("TABLE_SCHEMA", text(64), false),
                ("TABLE_NAME", text(64), false),
                ("NON_UNIQUE", ColumnType::BigInt { unsigned: false }, false),
                ("INDEX_SCHEMA", text(64), false),
                ("INDEX_NAME", text(64), false),
                ("SEQ_IN_INDEX", ColumnType::Int { unsigned: true }, false),
                ("COLUMN_NAME", text(64), false),
                ("COLLATION", text(1), true),
                ("CARDINALITY", ColumnType::BigInt { unsigned: false }, true),
                ("SUB_PART", ColumnType::BigInt { unsigned: false }, true),
                ("PACKED", text(10), true),
                ("NULLABLE", text(3), false),
                ("INDEX_TYPE", text(16), false),
                ("COMMENT", text(16), true),
                ("INDEX_COMMENT", text(1024), false),
                ("IGNORED", text(3), false),
            ],
            Virtual::KeyColumnUsage => {
                let mut c = vec![("CONSTRAINT_CATALOG", text(512), false)];
                c.extend(named(&["CONSTRAINT_SCHEMA", "CONSTRAINT_NAME"]));
                c.push(("TABLE_CATALOG", text(512), false));
                c.extend(named(&["TABLE_SCHEMA", "TABLE_NAME", "COLUMN_NAME"]));
                c.push((
                    "ORDINAL_POSITION",
                    ColumnType::BigInt { unsigned: false },
                    false,
                ));
                c.push((
                    "POSITION_IN_UNIQUE_CONSTRAINT",
                    ColumnType::BigInt { unsigned: false },
                    true,
                ));
                for n in [
                    "REFERENCED_TABLE_SCHEMA",
                    "REFERENCED_TABLE_NAME",
                    "REFERENCED_COLUMN_NAME",
                ] {
                    c.push((n, text(64), true));
                }
                c
            }
            Virtual::Collations => vec![
                ("COLLATION_NAME", text(64), false),
                ("CHARACTER_SET_NAME", text(32), true),
                ("ID", ColumnType::BigInt { unsigned: false }, true),
                ("IS_DEFAULT", text(3), true),
                ("IS_COMPILED", text(3), false),
                ("SORTLEN", ColumnType::BigInt { unsigned: false }, false),
            ],
            Virtual::CharacterSets => vec![
                ("CHARACTER_SET_NAME", text(32), false),
                ("DEFAULT_COLLATE_NAME", text(64), false),
                ("DESCRIPTION", text(60), false),
                ("MAXLEN", ColumnType::BigInt { unsigned: false }, false),
            ],
            Virtual::UserPrivileges | Virtual::SchemaPrivileges | Virtual::TablePrivileges => {
                let mut c = vec![
                    ("GRANTEE", text(385), false),
                    ("TABLE_CATALOG", text(512), false),
                ];
                if self != Virtual::UserPrivileges {
                    c.push(("TABLE_SCHEMA", text(64), false));
                }
                if self == Virtual::TablePrivileges {
                    c.push(("TABLE_NAME", text(64), false));
                }
                c.push(("PRIVILEGE_TYPE", text(64), false));
                c.push(("IS_GRANTABLE", text(3), false));
                c
            }
            Virtual::Triggers => {
                let mut c = named(&[
                    "TRIGGER_CATALOG",
                    "TRIGGER_SCHEMA",
                    "TRIGGER_NAME",
                    "EVENT_MANIPULATION",
                    "EVENT_OBJECT_CATALOG",
                    "EVENT_OBJECT_SCHEMA",
                    "EVENT_OBJECT_TABLE",
                ]);
                c.push((
                    "ACTION_ORDER",
                    ColumnType::BigInt { unsigned: false },
                    false,
                ));
                c.extend([
                    ("ACTION_CONDITION", ColumnType::TEXT, true),
                    ("ACTION_STATEMENT", ColumnType::TEXT, false),
                ]);
                c.extend(named(&[
                    "ACTION_ORIENTATION",
                    "ACTION_TIMING",
                    "ACTION_REFERENCE_OLD_TABLE",
                    "ACTION_REFERENCE_NEW_TABLE",
                    "ACTION_REFERENCE_OLD_ROW",
                    "ACTION_REFERENCE_NEW_ROW",
                ]));
                c.push(("CREATED", ColumnType::DateTime { fsp: 2 }, true));
                c.extend(named(&[
                    "SQL_MODE",
                    "DEFINER",
                    "CHARACTER_SET_CLIENT",
                    "COLLATION_CONNECTION",
                    "DATABASE_COLLATION",
                ]));
                c
            }
            Virtual::Views => {
                let mut c = named(&["TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME"]);
                c.push(("VIEW_DEFINITION", ColumnType::TEXT, false));
                c.extend(named(&[
                    "CHECK_OPTION",
                    "IS_UPDATABLE",
                    "DEFINER",
                    "SECURITY_TYPE",
                    "CHARACTER_SET_CLIENT",
                    "COLLATION_CONNECTION",
                    "ALGORITHM",
                ]));
                c
            }
            Virtual::TableConstraints => {
                let mut c = vec![("CONSTRAINT_CATALOG", text(512), false)];
                c.extend(named(&[
                    "CONSTRAINT_SCHEMA",
                    "CONSTRAINT_NAME",
                    "TABLE_SCHEMA",
                    "TABLE_NAME",
                    "CONSTRAINT_TYPE",
                ]));
                c
            }
            Virtual::CheckConstraints => {
                let mut c = vec![("CONSTRAINT_CATALOG", text(512), false)];
                c.extend(named(&[
                    "CONSTRAINT_SCHEMA",
                    "TABLE_NAME",
                    "CONSTRAINT_NAME",
                    "LEVEL",
                ]));
                c.push(("CHECK_CLAUSE", ColumnType::TEXT, false));
                c
            }
            Virtual::ReferentialConstraints => {
                let mut c = vec![("CONSTRAINT_CATALOG", text(512), false)];
                c.extend(named(&["CONSTRAINT_SCHEMA", "CONSTRAINT_NAME"]));
                c.push(("UNIQUE_CONSTRAINT_CATALOG", text(512), false));
                c.extend(named(&[
                    "UNIQUE_CONSTRAINT_SCHEMA",
                    "UNIQUE_CONSTRAINT_NAME",
                    "MATCH_OPTION",
                    "UPDATE_RULE",
                    "DELETE_RULE",
                    "TABLE_NAME",
                    "REFERENCED_TABLE_NAME",
                ]));
                c
            }
            Virtual::Routines => {
                let mut c = named(&[
                    "SPECIFIC_NAME",
                    "ROUTINE_CATALOG",
                    "ROUTINE_SCHEMA",
                    "ROUTINE_NAME",
                    "ROUTINE_TYPE",
                    "DATA_TYPE",
                ]);
                c.extend(type_columns());
                c.extend(named(&[
                    "CHARACTER_SET_NAME",
                    "COLLATION_NAME",
                    "DTD_IDENTIFIER",
                    "ROUTINE_BODY",
                ]));
                c.push(("ROUTINE_DEFINITION", ColumnType::TEXT, true));
                c.extend(named(&[
                    "EXTERNAL_NAME",
                    "EXTERNAL_LANGUAGE",
                    "PARAMETER_STYLE",
                    "IS_DETERMINISTIC",
                    "SQL_DATA_ACCESS",
                    "SQL_PATH",
                    "SECURITY_TYPE",
                ]));
                c.extend([
                    ("CREATED", ColumnType::DateTime { fsp: 0 }, false),
                    ("LAST_ALTERED", ColumnType::DateTime { fsp: 0 }, false),
                ]);
                c.extend(named(&["SQL_MODE"]));
                c.push(("ROUTINE_COMMENT", ColumnType::TEXT, false));
                c.extend(named(&[
                    "DEFINER",
                    "CHARACTER_SET_CLIENT",
                    "COLLATION_CONNECTION",
                    "DATABASE_COLLATION",
                ]));
                c
            }
            Virtual::Parameters => {
                let mut c = vec![("SPECIFIC_CATALOG", text(512), false)];
                c.extend(named(&["SPECIFIC_SCHEMA", "SPECIFIC_NAME"]));
                c.push((
                    "ORDINAL_POSITION",
                    ColumnType::Int { unsigned: false },
                    false,
                ));
                c.extend(named(&["PARAMETER_MODE", "PARAMETER_NAME", "DATA_TYPE"]));
                c.extend(type_columns());
                c.extend(named(&["CHARACTER_SET_NAME", "COLLATION_NAME"]));
                c.push(("DTD_IDENTIFIER", ColumnType::TEXT, false));
                c.extend(named(&["ROUTINE_TYPE"]));
                c
            }
            Virtual::NdbinfoNodes => vec![
                ("node_id", count, false),
                ("node_group", count, false),
                ("status", text(32), false),
                ("role", text(16), false),
                ("view_epoch", count, false),
            ],
            Virtual::MysqlUser => {
                let mut c = vec![
                    ("Host", ColumnType::Char { length: 255 }, false),
                    ("User", ColumnType::Char { length: 128 }, false),
                    ("Password", ColumnType::Char { length: 41 }, false),
                ];
                c.extend(
                    MYSQL_USER_PRIVILEGES
                        .iter()
                        .map(|(name, _)| (*name, text(1), false)),
                );
                c.extend([
                    ("ssl_type", text(9), false),
                    ("ssl_cipher", ColumnType::TEXT, false),
                    ("x509_issuer", ColumnType::TEXT, false),
                    ("x509_subject", ColumnType::TEXT, false),
                    ("max_questions", count, false),
                    ("max_updates", count, false),
                    ("max_connections", count, false),
                    (
                        "max_user_connections",
                        ColumnType::BigInt { unsigned: false },
                        false,
                    ),
                    ("plugin", ColumnType::Char { length: 64 }, false),
                    ("authentication_string", ColumnType::TEXT, false),
                    ("password_expired", text(1), false),
                    ("is_role", text(1), false),
                    ("default_role", ColumnType::Char { length: 128 }, false),
                    (
                        "max_statement_time",
                        ColumnType::Decimal {
                            precision: 12,
                            scale: 6,
                        },
                        false,
                    ),
                ]);
                c
            }
            Virtual::NdbinfoMemoryusage => vec![
                ("node_id", count, false),
                ("memory_type", text(32), false),
                ("used", count, false),
                ("used_pages", count, false),
                ("total", count, false),
                ("total_pages", count, false),
            ],
            Virtual::Engines => vec![
                ("ENGINE", text(64), false),
                ("SUPPORT", text(8), false),
                ("COMMENT", text(160), false),
                ("TRANSACTIONS", text(3), true),
                ("XA", text(3), true),
                ("SAVEPOINTS", text(3), true),
            ],
            Virtual::SessionVariables
            | Virtual::GlobalVariables
            | Virtual::SessionStatus
            | Virtual::GlobalStatus => vec![
                ("Variable_name", text(64), false),
                ("Value", text(2048), true),
            ],
        }
    }

    fn definition(self) -> TableDef {
        let columns = self
            .columns()
            .into_iter()
            .map(|(name, ty, nullable)| {
                let c = ColumnDef::new(name, ty);
                let c = if ty.is_string() {
                    c.collation(Collation::Utf8mb4GeneralCi)
                } else {
                    c
                };
                if nullable {
                    c.nullable()
                } else {
                    c
                }
            })
            .collect();
        // A definition of fixed, valid columns; the hidden key numbers the rows.
        TableDef::new(&format!("{NAME}/{}", self.name()), columns, &[])
            .unwrap_or_else(|e| panic!("information_schema.{}: {e:?}", self.name()))
    }
}

fn tables() -> &'static [(Virtual, Table)] {
    static TABLES: OnceLock<Vec<(Virtual, Table)>> = OnceLock::new();
    TABLES.get_or_init(|| {
        Virtual::ALL
            .iter()
            .map(|v| (*v, Table::virtual_table(v.definition())))
            .collect()
    })
}

/// The public information_schema table called `name` (any case).
pub fn table(name: &str) -> Option<Table> {
    tables()
        .iter()
        .find(|(v, _)| v.public() && v.name().eq_ignore_ascii_case(name))
        .map(|(_, t)| t.clone())
}

/// An internal table SHOW reads.
pub(crate) fn internal(v: Virtual) -> Table {
    tables()
        .iter()
        .find(|(x, _)| *x == v)
        .map(|(_, t)| t.clone())
        .unwrap_or_else(|| Table::virtual_table(v.definition()))
}

/// The names of the public tables.
pub fn table_names() -> Vec<String> {
    Virtual::ALL
        .iter()
        .filter(|v| v.public())
        .map(|v| v.name().to_string())
        .collect()
}

/// Which virtual table a source reads, if it reads one.
pub(crate) fn virtual_of(src: &Source) -> Option<Virtual> {
    let def = src.table.def();
    if def.id != 0 {
        return None;
    }
    let name = def.name.strip_prefix(NAME)?.strip_prefix('/')?;
    Virtual::ALL.iter().copied().find(|v| v.name() == name)
}

/// MariaDB's ER_UNKNOWN_TABLE for a name information_schema lacks.
pub fn no_table(name: &str) -> SqlError {
    SqlError::new(
        1109,
        "42S02",
        format!("Unknown table '{name}' in information_schema"),
    )
}

/// MariaDB's ER_DBACCESS_DENIED_ERROR, its answer to writes and DDL on information_schema.
pub fn read_only(user: &str) -> SqlError {
    SqlError::new(
        1044,
        "42000",
        format!("Access denied for user '{user}'@'localhost' to database '{NAME}'"),
    )
}

/// Whether table `name`, as the session reads it, is in information_schema.
fn names_schema(session: &Session, name: &ObjectName) -> bool {
    match ident(name) {
        Ok((Some(db), _)) => is_schema(&db),
        Ok((None, _)) => session.database.as_deref().is_some_and(is_schema),
        Err(_) => false,
    }
}

/// Refuses a change to table `name` of information_schema.
pub(crate) fn refuse_in_schema(session: &Session, name: &ObjectName) -> Result<()> {
    if names_schema(session, name) {
        Err(read_only(&session.user))
    } else {
        Ok(())
    }
}

/// Refuses a statement that would write to or change information_schema.
pub(crate) fn refuse_writes(session: &Session, s: &Statement) -> Result<()> {
    let in_schema = |name: &ObjectName| names_schema(session, name);
    let from_tables = |from: &[ast::TableWithJoins]| {
        from.iter().any(|t| match &t.relation {
            ast::TableFactor::Table { name, .. } => in_schema(name),
            _ => false,
        })
    };
    let refused = match s {
        Statement::Insert(i) => match &i.table {
            ast::TableObject::TableName(n) => in_schema(n),
            _ => false,
        },
        Statement::Update(u) => from_tables(std::slice::from_ref(&u.table)),
        Statement::Delete(d) => match &d.from {
            ast::FromTable::WithFromKeyword(f) | ast::FromTable::WithoutKeyword(f) => {
                from_tables(f)
            }
        },
        Statement::CreateTable(c) => in_schema(&c.name),
        Statement::CreateIndex(c) => in_schema(&c.table_name),
        Statement::AlterTable(a) => in_schema(&a.name),
        Statement::Truncate(t) => t.table_names.iter().any(|n| in_schema(&n.name)),
        Statement::Drop {
            object_type: ast::ObjectType::Database | ast::ObjectType::Schema,
            names,
            ..
        } => names
            .iter()
            .any(|n| ident(n).is_ok_and(|(_, d)| is_schema(&d))),
        Statement::CreateDatabase { db_name, .. } => {
            ident(db_name).is_ok_and(|(_, d)| is_schema(&d))
        }
        Statement::Drop {
            object_type: ast::ObjectType::Index,
            table: Some(table),
            ..
        } => in_schema(table),
        Statement::Drop { names, .. } => names.iter().any(in_schema),
        Statement::RenameTable(renames) => renames
            .iter()
            .any(|r| in_schema(&r.old_name) || in_schema(&r.new_name)),
        _ => false,
    };
    if refused {
        Err(read_only(&session.user))
    } else {
        Ok(())
    }
}

fn text(s: impl Into<String>) -> Value {
    Value::Bytes(s.into().into_bytes())
}

fn count(n: u64) -> Value {
    Value::UInt(n)
}

/// Every table SQL sees, as (database, table, definition), in name order.
pub(crate) fn catalog(session: &Session) -> Result<Vec<(String, String, Table)>> {
    let cluster = &session.shared.cluster();
    let client = |e: client::ClientError| SqlError::from_client(&e);
    let mut out = Vec::new();
    for full in cluster.list_tables().map_err(client)? {
        let Some((db, name)) = full.split_once('/') else {
            continue;
        };
        if !session.sees_table(db, name) {
            continue;
        }
        match cluster.table(&full) {
            Ok(t) => out.push((db.to_string(), name.to_string(), t)),
            // Dropped meanwhile.
            Err(e) if e.code() == base::ErrorCode::NoSuchTable => {}
            Err(e) => return Err(client(e)),
        }
    }
    out.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    Ok(out)
}

/// The next AUTO_INCREMENT value of a table with such a column: one above the largest value
/// stored (read from the end of an index that starts with the column when there is one).
pub(crate) fn next_auto_increment(session: &Session, table: &Table) -> Result<Option<u64>> {
    let def = table.def();
    let Some(column) = def.auto_increment_column() else {
        return Ok(None);
    };
    let name = def.columns[column].name.as_str();
    let index = def
        .indexes
        .iter()
        .find(|i| i.columns.first() == Some(&(column as u16)));
    let scan = match index {
        Some(i) => Scan::index(&i.name).order(ScanOrder::Descending).limit(1),
        None => Scan::table(),
    };
    let rows = session
        .reading()
        .scan(table, &scan.columns(&[name]))
        .map_err(|e| SqlError::from_client(&e))?;
    let largest = rows
        .iter()
        .filter_map(|r| match r.first() {
            Some(Value::UInt(u)) => Some(*u),
            Some(Value::Int(i)) => Some((*i).max(0) as u64),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    Ok(Some(largest.saturating_add(1)))
}

/// The rows of the virtual table `src` reads, as fetched rows (its `fetch` columns); the
/// caller applies the WHERE.
pub(crate) fn rows(session: &Session, src: &Source) -> Result<Vec<Vec<Value>>> {
    let Some(v) = virtual_of(src) else {
        return Ok(Vec::new());
    };
    let def = src.table.def();
    let wants = |column: &str| {
        def.column(column)
            .is_some_and(|p| src.fetch.contains(&(p as u16)))
    };
    let full = match v {
        Virtual::Schemata => schemata(session)?,
        Virtual::Tables => tables_rows(session, wants("AUTO_INCREMENT"))?,
        Virtual::Columns => columns_rows(session)?,
        Virtual::Statistics => statistics(session)?,
        Virtual::KeyColumnUsage => key_column_usage(session)?,
        Virtual::Collations => collations(),
        Virtual::CharacterSets => character_sets(),
        Virtual::UserPrivileges | Virtual::SchemaPrivileges | Virtual::TablePrivileges => {
            privilege_rows(session, v)?
        }
        Virtual::Triggers | Virtual::Views | Virtual::ReferentialConstraints => Vec::new(),
        Virtual::TableConstraints => table_constraints(session)?,
        Virtual::CheckConstraints => check_constraints(session)?,
        Virtual::Engines => engines(),
        Virtual::SessionVariables => pairs(crate::session::variables::shown(session, false)),
        Virtual::GlobalVariables => pairs(crate::session::variables::shown(session, true)),
        Virtual::SessionStatus => pairs(crate::session::activity::status(session, false)),
        Virtual::GlobalStatus => pairs(crate::session::activity::status(session, true)),
        Virtual::Routines => session.routine_rows()?,
        Virtual::Parameters => session.parameter_rows()?,
        Virtual::NdbinfoNodes => ndbinfo_nodes(session)?,
        Virtual::NdbinfoMemoryusage => ndbinfo_memoryusage(session)?,
        Virtual::MysqlUser => mysql_user(session)?,
    };
    Ok(full
        .into_iter()
        .enumerate()
        .map(|(n, mut row)| {
            // The hidden key, last.
            row.push(count(n as u64 + 1));
            src.fetch
                .iter()
                .map(|c| row.get(*c as usize).cloned().unwrap_or(Value::Null))
                .collect()
        })
        .collect())
}

fn pairs(list: Vec<(String, String)>) -> Vec<Vec<Value>> {
    list.into_iter()
        .map(|(name, value)| vec![text(name), text(value)])
        .collect()
}

/// The collations Cairn's SQL front end stores, with MariaDB's numbers.
const COLLATIONS: [Collation; 11] = [
    Collation::Latin1TextSwedishCi,
    Collation::Utf8mb3GeneralCi,
    Collation::Binary,
    Collation::Utf8mb4GeneralCi,
    Collation::Latin1TextBin,
    Collation::Utf8mb4Bin,
    Collation::Utf8mb3Bin,
    Collation::Utf8mb3UnicodeCi,
    Collation::Utf8mb3Unicode520Ci,
    Collation::Utf8mb4UnicodeCi,
    Collation::Utf8mb4Unicode520Ci,
];

/// The default collation of each character set Cairn's SQL front end stores.
fn is_default(c: Collation) -> bool {
    matches!(
        c,
        Collation::Utf8mb4GeneralCi
            | Collation::Utf8mb3GeneralCi
            | Collation::Latin1TextSwedishCi
            | Collation::Binary
    )
}

fn collations() -> Vec<Vec<Value>> {
    COLLATIONS
        .iter()
        .map(|c| {
            vec![
                text(c.name()),
                text(c.charset().name()),
                Value::Int(i64::from(crate::expr::meta::collation_id(*c))),
                text(if is_default(*c) { "Yes" } else { "" }),
                text("Yes"),
                // Bytes of sort key per character at most, as MariaDB counts them.
                Value::Int(
                    if matches!(
                        c.weighs_as(),
                        Collation::Utf8mb4UnicodeCi | Collation::Utf8mb4Unicode520Ci
                    ) {
                        8
                    } else {
                        1
                    },
                ),
            ]
        })
        .collect()
}

fn character_sets() -> Vec<Vec<Value>> {
    COLLATIONS
        .iter()
        .filter(|c| is_default(**c))
        .map(|c| {
            let charset = c.charset();
            let description = match charset {
                base::types::Charset::Binary => "Binary pseudo charset",
                base::types::Charset::Latin1 => "cp1252 West European",
                _ => "UTF-8 Unicode",
            };
            vec![
                text(charset.name()),
                text(c.name()),
                text(description),
                Value::Int(charset.max_len() as i64),
            ]
        })
        .collect()
}

/// The rows of USER_PRIVILEGES, SCHEMA_PRIVILEGES or TABLE_PRIVILEGES: one per privilege an
/// account holds at that level (USER_PRIVILEGES shows USAGE for none), of every account when
/// the session may read every account's (it holds SELECT globally, as MariaDB's SELECT on
/// `mysql`), else of its own.
fn privilege_rows(session: &Session, v: Virtual) -> Result<Vec<Vec<Value>>> {
    use crate::catalog::privilege::{self, GRANT_OPTION};
    let cluster = session.shared.cluster();
    let everyone = session.privileges & privilege::SELECT != 0;
    let mine =
        |user: &str, host: &str| everyone || (user == session.user && host == session.account_host);
    let grantee = |user: &str, host: &str| text(format!("'{user}'@'{host}'"));
    let grantable = |p: u64| text(if p & GRANT_OPTION != 0 { "YES" } else { "NO" });
    let names = |p: u64| {
        privilege::NAMES
            .iter()
            .filter(move |(_, bit)| p & bit != 0)
            .map(|(name, _)| *name)
    };
    let mut rows = Vec::new();
    if v == Virtual::UserPrivileges {
        for a in crate::catalog::users::load(&cluster)? {
            if !mine(&a.user, &a.host) {
                continue;
            }
            let mut held: Vec<&str> = names(a.privileges).collect();
            if held.is_empty() {
                held.push("USAGE");
            }
            for name in held {
                rows.push(vec![
                    grantee(&a.user, &a.host),
                    text("def"),
                    text(name),
                    grantable(a.privileges),
                ]);
            }
        }
        return Ok(rows);
    }
    for g in crate::catalog::users::all_grants(&cluster)? {
        if !mine(&g.user, &g.host) || g.table.is_empty() != (v == Virtual::SchemaPrivileges) {
            continue;
        }
        for name in names(g.privileges) {
            let mut row = vec![grantee(&g.user, &g.host), text("def"), text(&g.database)];
            if v == Virtual::TablePrivileges {
                row.push(text(&g.table));
            }
            row.push(text(name));
            row.push(grantable(g.privileges));
            rows.push(row);
        }
    }
    Ok(rows)
}

fn schemata(session: &Session) -> Result<Vec<Vec<Value>>> {
    let mut names: Vec<(String, Option<Collation>)> = session
        .shared
        .cluster()
        .database_collations()
        .map_err(|e| SqlError::from_client(&e))?
        .into_iter()
        .filter(|(n, _)| session.sees_database(n))
        .map(|(n, c)| (n, Some(c)))
        .collect();
    names.insert(0, (NAME.to_string(), None));
    Ok(names
        .into_iter()
        .map(|(n, c)| {
            let (charset, collation) = match c {
                None => ("utf8mb3", "utf8mb3_general_ci"),
                Some(c) => (c.charset().name(), c.name()),
            };
            vec![
                text("def"),
                text(n),
                text(charset),
                text(collation),
                Value::Null,
                text(""),
            ]
        })
        .collect())
}

/// Every table information_schema describes: its own, then the catalog's.
fn described(session: &Session) -> Result<Vec<(String, String, Table)>> {
    let mut all: Vec<(String, String, Table)> = tables()
        .iter()
        .filter(|(v, _)| v.public())
        .map(|(v, t)| (NAME.to_string(), v.name().to_string(), t.clone()))
        .collect();
    all.extend(catalog(session)?);
    Ok(all)
}

fn tables_rows(session: &Session, auto_increment: bool) -> Result<Vec<Vec<Value>>> {
    // What the data node holds per table (its memory estimate), and its free data memory.
    let status = session
        .reading()
        .status()
        .map_err(|e| SqlError::from_client(&e))?;
    let free = status
        .data_memory_limit
        .saturating_sub(status.data_memory_bytes);
    let mut rows = Vec::new();
    for (db, name, table) in described(session)? {
        let system = is_schema(&db);
        let counter = if auto_increment && !system {
            next_auto_increment(session, &table)?
        } else {
            None
        };
        let collation = if system {
            "utf8mb3_general_ci"
        } else {
            definition::table_collation(table.def()).name()
        };
        rows.push(vec![
            text("def"),
            text(db),
            text(name),
            text(if system { "SYSTEM VIEW" } else { "BASE TABLE" }),
            text(if system { "MEMORY" } else { ENGINE }),
            count(10),
            text(if system { "Fixed" } else { "Dynamic" }),
        ]);
        // Sizes from the data node's memory estimate (a table not on it yet holds nothing);
        // Cairn keeps no times.
        let memory = status.tables.iter().find(|t| t.id == table.def().id);
        let row = rows.last_mut().expect("pushed");
        if system {
            row.extend(std::iter::repeat_n(Value::Null, 6));
        } else {
            let (n, data, index) =
                memory.map_or((0, 0, 0), |m| (m.rows, m.data_bytes, m.index_bytes));
            row.extend([
                count(n),
                count(data.checked_div(n).unwrap_or(0)),
                count(data),
                count(status.data_memory_limit),
                count(index),
                count(free),
            ]);
        }
        row.extend([
            counter.map(count).unwrap_or(Value::Null),
            Value::Null,
            Value::Null,
            Value::Null,
            text(collation),
            Value::Null,
            text(""),
            text(&table.def().comment),
            Value::Null,
            text(if system { "Y" } else { "N" }),
        ]);
    }
    Ok(rows)
}

/// information_schema's numeric facts of a type: (precision, scale).
/// A column's type as information_schema's COLUMNS and PARAMETERS describe it, in their order:
/// DATA_TYPE, the lengths, precision, scale and fraction digits, the character set and
/// collation (NULL for no text), and the type's whole text.
pub(crate) fn type_values(c: &ColumnDef) -> [Value; 9] {
    let opt = |v: Option<u64>| v.map(count).unwrap_or(Value::Null);
    let (length, octets) = characters(c.ty, c.collation);
    let (precision, scale) = numeric(c.ty);
    let fsp = match c.ty {
        ColumnType::DateTime { fsp } | ColumnType::Timestamp { fsp } | ColumnType::Time { fsp } => {
            Some(fsp as u64)
        }
        _ => None,
    };
    let collated = c.ty.is_string() && c.collation != Collation::Binary;
    [
        text(definition::data_type(c.ty)),
        opt(length),
        opt(octets),
        opt(precision),
        opt(scale),
        opt(fsp),
        if collated {
            text(c.collation.charset().name())
        } else {
            Value::Null
        },
        if collated {
            text(c.collation.name())
        } else {
            Value::Null
        },
        text(definition::column_type_text(c)),
    ]
}

fn numeric(ty: ColumnType) -> (Option<u64>, Option<u64>) {
    match ty {
        ColumnType::TinyInt { .. } => (Some(3), Some(0)),
        ColumnType::SmallInt { .. } => (Some(5), Some(0)),
        ColumnType::MediumInt { unsigned } => (Some(if unsigned { 8 } else { 7 }), Some(0)),
        ColumnType::Int { .. } => (Some(10), Some(0)),
        ColumnType::BigInt { unsigned } => (Some(if unsigned { 20 } else { 19 }), Some(0)),
        ColumnType::Float => (Some(12), None),
        ColumnType::Double => (Some(22), None),
        ColumnType::Decimal { precision, scale } => (Some(precision as u64), Some(scale as u64)),
        _ => (None, None),
    }
}

/// information_schema's character facts of a type: (maximum length, octet length).
fn characters(ty: ColumnType, collation: Collation) -> (Option<u64>, Option<u64>) {
    match ty {
        ColumnType::Char { length } | ColumnType::VarChar { length } => (
            Some(length as u64),
            Some(length as u64 * collation.charset().max_len() as u64),
        ),
        ColumnType::Binary { length } | ColumnType::VarBinary { length } => {
            (Some(length as u64), Some(length as u64))
        }
        ColumnType::Text { size } | ColumnType::Blob { size } => {
            (Some(size.declared_bytes()), Some(size.declared_bytes()))
        }
        _ => (None, None),
    }
}

fn columns_rows(session: &Session) -> Result<Vec<Vec<Value>>> {
    let mut rows = Vec::new();
    for (db, name, table) in described(session)? {
        let def = table.def();
        for (n, (p, c)) in def
            .columns
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.hidden)
            .enumerate()
        {
            rows.push(vec![
                text("def"),
                text(db.clone()),
                text(name.clone()),
                text(c.name.clone()),
                count(n as u64 + 1),
                definition::default_text(c).map(text).unwrap_or(Value::Null),
                text(if c.nullable { "YES" } else { "NO" }),
            ]);
            let row = rows.last_mut().expect("pushed");
            row.extend(type_values(c));
            row.extend([
                text(definition::column_key(def, p)),
                text(definition::extra_text(c)),
                text("select,insert,update,references"),
                text(&c.comment),
                text("NEVER"),
                Value::Null,
            ]);
        }
    }
    Ok(rows)
}

/// Calls `each` for every column of every key: (database, table, key, column position in
/// the key from 1, table column).
fn key_columns(
    session: &Session,
    each: &mut dyn FnMut(&str, &str, &definition::Key, usize, &ColumnDef),
) -> Result<()> {
    for (db, name, table) in catalog(session)? {
        let def = table.def();
        for key in definition::keys(def) {
            for (seq, c) in key.columns.iter().enumerate() {
                each(&db, &name, &key, seq + 1, &def.columns[*c as usize]);
            }
        }
    }
    Ok(())
}

fn statistics(session: &Session) -> Result<Vec<Vec<Value>>> {
    let mut rows = Vec::new();
    key_columns(session, &mut |db, name, key, seq, c| {
        rows.push(vec![
            text("def"),
            text(db),
            text(name),
            Value::Int(!key.unique as i64),
            text(db),
            text(key.name),
            count(seq as u64),
            text(c.name.clone()),
            text("A"),
            // Cairn keeps no statistics.
            Value::Null,
            key.prefix(seq - 1)
                .map_or(Value::Null, |n| count(u64::from(n))),
            Value::Null,
            text(if c.nullable { "YES" } else { "" }),
            text("BTREE"),
            text(""),
            text(""),
            text("NO"),
        ]);
    })?;
    Ok(rows)
}

/// The columns ROUTINES and PARAMETERS describe a type with (after DATA_TYPE).
fn type_columns() -> [(&'static str, ColumnType, bool); 5] {
    let int = ColumnType::Int { unsigned: false };
    [
        ("CHARACTER_MAXIMUM_LENGTH", int, true),
        ("CHARACTER_OCTET_LENGTH", int, true),
        ("NUMERIC_PRECISION", int, true),
        ("NUMERIC_SCALE", int, true),
        (
            "DATETIME_PRECISION",
            ColumnType::BigInt { unsigned: true },
            true,
        ),
    ]
}

/// TABLE_CONSTRAINTS: a row per primary or unique key, and per JSON column's check.
fn table_constraints(session: &Session) -> Result<Vec<Vec<Value>>> {
    let mut rows = Vec::new();
    key_columns(session, &mut |db, name, key, seq, _| {
        if key.unique && seq == 1 {
            let kind = if key.name == crate::catalog::definition::PRIMARY {
                "PRIMARY KEY"
            } else {
                "UNIQUE"
            };
            rows.push(vec![
                text("def"),
                text(db),
                text(key.name),
                text(db),
                text(name),
                text(kind),
            ]);
        }
    })?;
    for (db, name, column) in json_columns(session)? {
        rows.push(vec![
            text("def"),
            text(db.clone()),
            text(column.clone()),
            text(db),
            text(name),
            text("CHECK"),
        ]);
    }
    Ok(rows)
}

/// Each JSON column's database, table and name.
fn json_columns(session: &Session) -> Result<Vec<(String, String, String)>> {
    let mut columns = Vec::new();
    for (db, name, table) in catalog(session)? {
        for c in table.def().columns.iter().filter(|c| c.json) {
            columns.push((db.clone(), name.clone(), c.name.clone()));
        }
    }
    Ok(columns)
}

/// CHECK_CONSTRAINTS: a JSON column's check, named after the column, as MariaDB.
fn check_constraints(session: &Session) -> Result<Vec<Vec<Value>>> {
    Ok(json_columns(session)?
        .into_iter()
        .map(|(db, name, column)| {
            let clause = format!(
                "json_valid({})",
                crate::catalog::definition::backticked(&column)
            );
            vec![
                text("def"),
                text(db),
                text(name),
                text(column),
                text("Column"),
                text(clause),
            ]
        })
        .collect())
}

/// ENGINES (and SHOW ENGINES): Cairn's tables have one engine, which SHOW CREATE TABLE names.
/// The schema NDB's monitoring tables live in: `ndbinfo.nodes` reads `Virtual::NdbinfoNodes`,
/// `ndbinfo.memoryusage` `Virtual::NdbinfoMemoryusage`.
pub const NDBINFO: &str = "ndbinfo";

/// The ndbinfo table called `name` (any case), if Cairn has it.
pub fn ndbinfo_table(name: &str) -> Option<Table> {
    if name.eq_ignore_ascii_case("nodes") {
        return Some(internal(Virtual::NdbinfoNodes));
    }
    name.eq_ignore_ascii_case("memoryusage")
        .then(|| internal(Virtual::NdbinfoMemoryusage))
}

/// The schema of MariaDB's system tables; Cairn has `mysql.user` of them, read only.
pub const MYSQL: &str = "mysql";

/// The mysql table called `name` (any case), if Cairn has it.
pub fn mysql_table(name: &str) -> Option<Table> {
    name.eq_ignore_ascii_case("user")
        .then(|| internal(Virtual::MysqlUser))
}

/// mysql.user's privilege columns, in MariaDB's order, with the privilege each shows.
const MYSQL_USER_PRIVILEGES: &[(&str, crate::catalog::privilege::Privileges)] = {
    use crate::catalog::privilege as p;
    &[
        ("Select_priv", p::SELECT),
        ("Insert_priv", p::INSERT),
        ("Update_priv", p::UPDATE),
        ("Delete_priv", p::DELETE),
        ("Create_priv", p::CREATE),
        ("Drop_priv", p::DROP),
        ("Reload_priv", p::RELOAD),
        ("Shutdown_priv", p::SHUTDOWN),
        ("Process_priv", p::PROCESS),
        ("File_priv", p::FILE),
        ("Grant_priv", p::GRANT_OPTION),
        ("References_priv", p::REFERENCES),
        ("Index_priv", p::INDEX),
        ("Alter_priv", p::ALTER),
        ("Show_db_priv", p::SHOW_DATABASES),
        ("Super_priv", p::SUPER),
        ("Create_tmp_table_priv", p::CREATE_TEMPORARY_TABLES),
        ("Lock_tables_priv", p::LOCK_TABLES),
        ("Execute_priv", p::EXECUTE),
        ("Repl_slave_priv", 1 << 18),
        ("Repl_client_priv", 1 << 19),
        ("Create_view_priv", p::CREATE_VIEW),
        ("Show_view_priv", p::SHOW_VIEW),
        ("Create_routine_priv", p::CREATE_ROUTINE),
        ("Alter_routine_priv", p::ALTER_ROUTINE),
        ("Create_user_priv", p::CREATE_USER),
        ("Event_priv", p::EVENT),
        ("Trigger_priv", p::TRIGGER),
        ("Create_tablespace_priv", 1 << 27),
        ("Delete_history_priv", p::DELETE_HISTORY),
    ]
};

/// mysql.user's rows, one per account, for a session with the global SELECT privilege (as
/// reading MariaDB's needs SELECT on it); 1142 for any other.
fn mysql_user(session: &Session) -> Result<Vec<Vec<Value>>> {
    if session.privileges & crate::catalog::privilege::SELECT == 0 {
        return Err(SqlError::new(
            1142,
            "42000",
            format!(
                "SELECT command denied to user '{}'@'{}' for table `mysql`.`user`",
                session.user, session.account_host
            ),
        ));
    }
    let cluster = session.shared.cluster();
    let yes_no = |held: bool| text(if held { "Y" } else { "N" });
    Ok(crate::catalog::users::load(&cluster)?
        .into_iter()
        .map(|a| {
            // The native plugin's hash is also the old Password column.
            let native = a.plugin == crate::catalog::users::Plugin::Native;
            let mut row = vec![
                text(&a.host),
                text(&a.user),
                text(if native { a.auth.as_str() } else { "" }),
            ];
            row.extend(
                MYSQL_USER_PRIVILEGES
                    .iter()
                    .map(|(_, bit)| yes_no(a.privileges & bit != 0)),
            );
            row.extend([
                text(""),
                text(""),
                text(""),
                text(""),
                count(0),
                count(0),
                count(0),
                Value::Int(0),
                text(a.plugin.name()),
                text(&a.auth),
                text("N"),
                text("N"),
                text(""),
                Value::Decimal(base::value::Decimal {
                    mantissa: 0,
                    scale: 6,
                }),
            ]);
            row
        })
        .collect())
}

/// NDB's page, the unit of memoryusage's page columns.
const NDB_PAGE_BYTES: u64 = 32 * 1024;

/// How long memoryusage waits for each data node it asks.
const NODE_STATUS_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(500);

/// One row per data node the front end was given (each asked for its status; one that does
/// not answer in time is left out): its data memory in use and its limit.
fn ndbinfo_memoryusage(session: &Session) -> Result<Vec<Vec<Value>>> {
    let addresses: Vec<&str> = session.shared.config.datanode.split(',').collect();
    let statuses = if addresses.len() == 1 {
        vec![session
            .shared
            .cluster()
            .status()
            .map_err(|e| SqlError::from_client(&e))?]
    } else {
        addresses
            .iter()
            .filter_map(|a| client::Cluster::connect_timeout(a.trim(), NODE_STATUS_TIMEOUT).ok())
            .filter_map(|c| c.status().ok())
            .collect()
    };
    let mut statuses = statuses;
    statuses.sort_by_key(|s| s.node_id);
    Ok(statuses
        .into_iter()
        .map(|s| {
            vec![
                count(u64::from(s.node_id)),
                text("Data memory"),
                count(s.data_memory_bytes),
                count(s.data_memory_bytes.div_ceil(NDB_PAGE_BYTES)),
                count(s.data_memory_limit),
                count(s.data_memory_limit / NDB_PAGE_BYTES),
            ]
        })
        .collect())
}

/// One row per data node of every node group the front end reaches (a data node alone:
/// itself, started, the primary of its partitions). Each group is described by a member the
/// front end was given that answers (its status names its group and the group's members, the
/// primary first); node groups are numbered in the order of their nodes' ids.
fn ndbinfo_nodes(session: &Session) -> Result<Vec<Vec<Value>>> {
    let s = session
        .shared
        .cluster()
        .status()
        .map_err(|e| SqlError::from_client(&e))?;
    if s.group.is_empty() {
        return Ok(vec![vec![
            count(u64::from(s.node_id)),
            count(1),
            text("STARTED"),
            text("primary"),
            count(0),
        ]]);
    }
    let mut statuses = vec![s];
    for address in session.shared.config.datanode.split(',') {
        let known = |n: u32| statuses.iter().any(|s| s.group.contains(&n));
        if let Some(status) = client::Cluster::connect_timeout(address.trim(), NODE_STATUS_TIMEOUT)
            .ok()
            .and_then(|c| c.status().ok())
        {
            if !known(status.node_id) {
                statuses.push(status);
            }
        }
    }
    statuses.sort_by_key(|s| s.group.first().copied());
    let mut rows = Vec::new();
    for (g, s) in statuses.iter().enumerate() {
        // The answering node lists the group's primary first.
        let primary = s.members.first().copied();
        for n in &s.group {
            let member = s.members.contains(n);
            rows.push(vec![
                count(u64::from(*n)),
                count(g as u64 + 1),
                text(if member { "STARTED" } else { "NOT IN VIEW" }),
                text(match (member, primary == Some(*n)) {
                    (true, true) => "primary",
                    (true, false) => "backup",
                    _ => "",
                }),
                count(s.view_epoch),
            ]);
        }
    }
    rows.sort_by_key(|r| match r[0] {
        Value::UInt(n) => n,
        Value::Int(n) => n as u64,
        _ => 0,
    });
    Ok(rows)
}

pub(crate) fn engines() -> Vec<Vec<Value>> {
    vec![vec![
        text(crate::catalog::definition::ENGINE),
        text("DEFAULT"),
        text("Cairn: in-memory, partitioned, transactional tables"),
        text("YES"),
        text("NO"),
        text("YES"),
    ]]
}

fn key_column_usage(session: &Session) -> Result<Vec<Vec<Value>>> {
    let mut rows = Vec::new();
    key_columns(session, &mut |db, name, key, seq, c| {
        if key.unique {
            rows.push(vec![
                text("def"),
                text(db),
                text(key.name),
                text("def"),
                text(db),
                text(name),
                text(c.name.clone()),
                Value::Int(seq as i64),
                Value::Null,
                Value::Null,
                Value::Null,
                Value::Null,
            ]);
        }
    })?;
    Ok(rows)
}
