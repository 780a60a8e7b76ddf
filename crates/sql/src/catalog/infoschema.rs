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
use client::Table;

use crate::catalog::definition::{self};
use crate::foundation::error::SqlError;

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
    /// ndbinfo.table_fragments: each table partition (NDB's fragment), its node group's
    /// replicas and which of them is its primary now (NDB's columns).
    NdbinfoTableFragments,
    /// mysql.user: the accounts, as MariaDB's view of them shows them to tools (read only).
    MysqlUser,
}

impl Virtual {
    pub(crate) const ALL: [Virtual; 26] = [
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
        Virtual::NdbinfoTableFragments,
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
            Virtual::NdbinfoTableFragments => "$ndbinfo_table_fragments",
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

    pub(crate) fn public(self) -> bool {
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
            Virtual::NdbinfoTableFragments => [
                "node_id",
                "table_id",
                "partition_id",
                "fragment_id",
                "partition_order",
                "log_part_id",
                "no_of_replicas",
                "current_primary",
                "preferred_primary",
                "current_first_backup",
                "current_second_backup",
                "current_third_backup",
                "num_alive_replicas",
                "num_dead_replicas",
                "num_lcp_replicas",
            ]
            .map(|name| (name, count, false))
            .to_vec(),
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

pub(crate) fn tables() -> &'static [(Virtual, Table)] {
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

/// The collations Cairn's SQL front end stores, with MariaDB's numbers.
pub(crate) const COLLATIONS: [Collation; 11] = [
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
pub(crate) fn is_default(c: Collation) -> bool {
    matches!(
        c,
        Collation::Utf8mb4GeneralCi
            | Collation::Utf8mb3GeneralCi
            | Collation::Latin1TextSwedishCi
            | Collation::Binary
    )
}

pub(crate) fn collations() -> Vec<Vec<Value>> {
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

pub(crate) fn character_sets() -> Vec<Vec<Value>> {
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

/// information_schema's numeric facts of a type: (precision, scale).
/// A column's type as information_schema's COLUMNS and PARAMETERS describe it, in their order:
/// DATA_TYPE, the lengths, precision, scale and fraction digits, the character set and
/// collation (NULL for no text), and the type's whole text.
pub(crate) fn type_values(c: &ColumnDef) -> [Value; 9] {
    let opt = |v: Option<u64>| v.map(count).unwrap_or(Value::Null);
    // A spatial column has no character lengths (it is a LONGBLOB underneath).
    let (length, octets) = match c.geometry {
        Some(_) => (None, None),
        None => characters(c.ty, c.collation),
    };
    let (precision, scale) = numeric(c.ty);
    let fsp = match c.ty {
        ColumnType::DateTime { fsp } | ColumnType::Timestamp { fsp } | ColumnType::Time { fsp } => {
            Some(fsp as u64)
        }
        _ => None,
    };
    let collated = c.ty.is_string() && c.collation != Collation::Binary;
    [
        match c.geometry {
            Some(g) => text(g.kind.sql_name()),
            None => text(c.ty.data_type()),
        },
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

pub(crate) fn numeric(ty: ColumnType) -> (Option<u64>, Option<u64>) {
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
pub(crate) fn characters(ty: ColumnType, collation: Collation) -> (Option<u64>, Option<u64>) {
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

/// The columns ROUTINES and PARAMETERS describe a type with (after DATA_TYPE).
pub(crate) fn type_columns() -> [(&'static str, ColumnType, bool); 5] {
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

/// ENGINES (and SHOW ENGINES): Cairn's tables have one engine, which SHOW CREATE TABLE names.
/// The schema NDB's monitoring tables live in: `ndbinfo.nodes` reads `Virtual::NdbinfoNodes`,
/// `ndbinfo.memoryusage` `Virtual::NdbinfoMemoryusage`, `ndbinfo.table_fragments`
/// `Virtual::NdbinfoTableFragments`.
pub const NDBINFO: &str = "ndbinfo";

/// The ndbinfo table called `name` (any case), if Cairn has it.
pub fn ndbinfo_table(name: &str) -> Option<Table> {
    [
        ("nodes", Virtual::NdbinfoNodes),
        ("memoryusage", Virtual::NdbinfoMemoryusage),
        ("table_fragments", Virtual::NdbinfoTableFragments),
    ]
    .into_iter()
    .find(|(n, _)| name.eq_ignore_ascii_case(n))
    .map(|(_, v)| internal(v))
}

/// The schema of MariaDB's system tables; Cairn has `mysql.user` of them, read only.
pub const MYSQL: &str = "mysql";

/// The mysql table called `name` (any case), if Cairn has it.
pub fn mysql_table(name: &str) -> Option<Table> {
    name.eq_ignore_ascii_case("user")
        .then(|| internal(Virtual::MysqlUser))
}

/// mysql.user's privilege columns, in MariaDB's order, with the privilege each shows.
pub(crate) const MYSQL_USER_PRIVILEGES: &[(&str, crate::catalog::privilege::Privileges)] = {
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

/// NDB's page, the unit of memoryusage's page columns.
pub(crate) const NDB_PAGE_BYTES: u64 = 32 * 1024;

/// How long memoryusage waits for each data node it asks.
pub(crate) const NODE_STATUS_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(500);

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

pub(crate) fn text(s: impl Into<String>) -> Value {
    Value::Bytes(s.into().into_bytes())
}

pub(crate) fn count(n: u64) -> Value {
    Value::UInt(n)
}
