//! The SHOW statements beyond DATABASES, TABLES and COLUMNS: SHOW CREATE TABLE, SHOW INDEX,
//! SHOW TABLE STATUS, SHOW VARIABLES, SHOW STATUS, SHOW PROCESSLIST, SHOW WARNINGS / ERRORS /
//! COUNT(*), SHOW TABLES of information_schema, and COM_FIELD_LIST's column definitions. As
//! in MariaDB, the filtered ones are SELECTs over information_schema's tables (or internal
//! ones), planned and run by the normal select pipeline.

use crate::exec::Executor;
use crate::foundation::error::Result;
use crate::parse::dialect::Cairn;
use crate::parse::ident;
use base::Value;
use myproto::response::{types, Column};
use sqlparser::ast::{self, Ident, ObjectName, ShowStatementFilter, Statement};
use sqlparser::parser::Parser;

use crate::catalog::infoschema::{self, Virtual};
use crate::foundation::error::SqlError;
use crate::plan::{self, PlanInput};
use crate::session::{Outcome, Session};

/// Whether SHOW TABLES names information_schema (which the catalog does not hold).
pub(crate) fn tables_of_information_schema(
    session: &Session,
    options: &ast::ShowStatementOptions,
) -> bool {
    match &options.show_in {
        Some(ast::ShowStatementIn {
            parent_name: Some(name),
            ..
        }) => ident(name).is_ok_and(|(_, d)| infoschema::is_schema(&d)),
        _ => session
            .database
            .as_deref()
            .is_some_and(infoschema::is_schema),
    }
}

/// LIKE under utf8mb4_general_ci, as names are matched.
fn like(name: &str, pattern: &str) -> bool {
    base::collation::like(
        name.as_bytes(),
        pattern.as_bytes(),
        base::types::Collation::Utf8mb4GeneralCi,
    )
}

/// A string as a quoted SQL literal.
fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''"))
}

/// `SELECT a AS b, ...` for (column, shown name) pairs.
fn renamed(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(c, n)| format!("`{c}` AS `{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `SHOW CREATE {DATABASE | SCHEMA} [IF NOT EXISTS] name [;]`, which sqlparser does not parse:
/// whether IF NOT EXISTS was given, the name, and the text after the statement's `;`.
pub(crate) fn show_create_database(sql: &str) -> Option<(bool, String, &str)> {
    let (tokens, rest) = crate::commands::account::lex(sql)?;
    let mut c = crate::commands::account::Cursor::new(tokens);
    if !(c.words(&["SHOW", "CREATE", "DATABASE"]) || c.words(&["SHOW", "CREATE", "SCHEMA"])) {
        return None;
    }
    let if_not_exists = c.words(&["IF", "NOT", "EXISTS"]);
    let name = c.identifier()?;
    c.done().then_some((if_not_exists, name, rest))
}

/// `SHOW TABLE STATUS [{FROM | IN} db] {LIKE 'pattern' | WHERE expr}`, whose pattern or
/// condition sqlparser drops: the database, the filter as the text of a WHERE over SHOW's
/// column names, and the text after the statement's `;`. None for any other text (and for the
/// forms without a filter, which sqlparser reads).
pub(crate) fn show_table_status_filtered(sql: &str) -> Option<(Option<String>, String, &str)> {
    let (tokens, ends, rest) = crate::commands::account::lex_ends(sql)?;
    let mut c = crate::commands::account::Cursor::new(tokens);
    if !c.words(&["SHOW", "TABLE", "STATUS"]) {
        return None;
    }
    let db = if c.word("FROM") || c.word("IN") {
        Some(c.identifier()?)
    } else {
        None
    };
    if c.word("LIKE") {
        let pattern = c.name().ok()?;
        return c.done().then(|| {
            (
                db,
                format!(" WHERE `Name` LIKE {}", literal(&pattern)),
                rest,
            )
        });
    }
    if !c.at_word("WHERE") {
        return None;
    }
    // The condition's text: from the WHERE to the statement's end.
    let body = &sql[..sql.len() - rest.len()];
    let condition = body.get(*ends.get(c.index())?..)?;
    let condition = condition.trim_end().trim_end_matches(';');
    // A line of its own: a comment ending the condition ends there.
    Some((db, format!(" WHERE {condition}\n"), rest))
}

/// `SHOW {FUNCTION | PROCEDURE} STATUS [LIKE ... | WHERE ...]`, whose WHERE sqlparser does not
/// read: the text after the statement's `;`, or None for any other text.
pub(crate) fn show_routine_status(sql: &str) -> Option<&str> {
    let (tokens, rest) = crate::commands::account::lex(sql)?;
    let mut c = crate::commands::account::Cursor::new(tokens);
    (c.words(&["SHOW", "FUNCTION", "STATUS"]) || c.words(&["SHOW", "PROCEDURE", "STATUS"]))
        .then_some(rest)
}

/// SHOW FUNCTION/PROCEDURE STATUS: `rows`, one per procedure (Cairn has no stored
/// functions); a LIKE or WHERE after it is not applied.
pub(crate) fn routine_status(rows: Vec<Vec<base::Value>>) -> Outcome {
    let Outcome::Rows { columns, .. } = empty_list(&[
        "Db",
        "Name",
        "Type",
        "Definer",
        "Modified",
        "Created",
        "Security_type",
        "Comment",
        "character_set_client",
        "collation_connection",
        "Database Collation",
    ]) else {
        unreachable!("a list is rows")
    };
    Outcome::Rows { columns, rows }
}

/// A SHOW's answer with no rows.
fn empty_list(names: &[&str]) -> Outcome {
    Outcome::Rows {
        columns: list_columns(names),
        rows: Vec::new(),
    }
}

/// A SHOW's columns of text, named `names`.
fn list_columns(names: &[&str]) -> Vec<Column> {
    names
        .iter()
        .map(|n| Column::computed(n, types::VAR_STRING, 64 * 4, 0))
        .collect()
}

fn filter_text(column: &str, filter: &Option<ShowStatementFilter>) -> Result<String> {
    Ok(match filter {
        None => String::new(),
        Some(ShowStatementFilter::Like(p)) | Some(ShowStatementFilter::NoKeyword(p)) => {
            format!(" WHERE `{column}` LIKE {}", literal(p))
        }
        Some(ShowStatementFilter::Where(e)) => format!(" WHERE {e}"),
        Some(other) => return Err(SqlError::unsupported(format!("SHOW ... {other}"))),
    })
}

impl Session {
    /// Runs a SHOW statement of this module's.
    pub(crate) fn show(&mut self, s: &Statement) -> Result<Outcome> {
        match s {
            Statement::ShowVariables { filter, global, .. } => {
                let table = [Virtual::SessionVariables, Virtual::GlobalVariables][*global as usize];
                self.show_pairs(table, filter)
            }
            Statement::ShowStatus { filter, global, .. } => {
                let table = [Virtual::SessionStatus, Virtual::GlobalStatus][*global as usize];
                self.show_pairs(table, filter)
            }
            Statement::ShowProcessList { full } => Ok(self.process_list(*full)),
            Statement::ShowCreate {
                obj_type: ast::ShowCreateObject::Table,
                obj_name,
            } => self.show_create_table(obj_name),
            Statement::ShowCreate {
                obj_type: ast::ShowCreateObject::View,
                obj_name,
            } => match self.view_of(obj_name)? {
                Some(view) => Ok(self.show_create_view(&view)),
                None => {
                    let (_, db, table) = self.table(obj_name)?;
                    Err(SqlError::new(
                        1347,
                        "HY000",
                        format!("'{db}.{table}' is not of type 'VIEW'"),
                    ))
                }
            },
            Statement::ShowTables {
                show_options, full, ..
            } => Ok(tables_like(
                infoschema::NAME,
                infoschema::table_names(),
                show_options,
                full.then_some("SYSTEM VIEW"),
                &[],
            )?),
            Statement::ShowVariable { variable } => self.show_words(variable),
            Statement::ShowCollation { filter } => self.show_renamed(
                "COLLATIONS",
                &[
                    ("COLLATION_NAME", "Collation"),
                    ("CHARACTER_SET_NAME", "Charset"),
                    ("ID", "Id"),
                    ("IS_DEFAULT", "Default"),
                    ("IS_COMPILED", "Compiled"),
                    ("SORTLEN", "Sortlen"),
                ],
                filter,
            ),
            Statement::ShowCharset(ast::ShowCharset { filter, .. }) => self.show_renamed(
                "CHARACTER_SETS",
                &[
                    ("CHARACTER_SET_NAME", "Charset"),
                    ("DESCRIPTION", "Description"),
                    ("DEFAULT_COLLATE_NAME", "Default collation"),
                    ("MAXLEN", "Maxlen"),
                ],
                filter,
            ),
            other => Err(SqlError::unsupported(other)),
        }
    }

    /// SHOW forms sqlparser keeps as words: WARNINGS, ERRORS, COUNT(*) WARNINGS/ERRORS,
    /// INDEX|INDEXES|KEYS FROM t [FROM db], TABLE STATUS [FROM db].
    fn show_words(&mut self, words: &[Ident]) -> Result<Outcome> {
        let upper: Vec<String> = words.iter().map(|i| i.value.to_ascii_uppercase()).collect();
        let w: Vec<&str> = upper.iter().map(String::as_str).collect();
        let unsupported = || {
            let text: Vec<&str> = words.iter().map(|i| i.value.as_str()).collect();
            SqlError::unsupported(format!("SHOW {}", text.join(" ")))
        };
        match w.as_slice() {
            ["WARNINGS"] => Ok(self.show_conditions(false)),
            // Cairn has no events, stored routines nor triggers: empty lists, with MariaDB's
            // columns, for the tools that ask (mysqldump --events, --routines).
            ["EVENTS", ..] => {
                if w.len() < 3 && self.database.is_none() {
                    return Err(SqlError::no_database());
                }
                Ok(empty_list(&[
                    "Db",
                    "Name",
                    "Definer",
                    "Time zone",
                    "Type",
                    "Execute at",
                    "Interval value",
                    "Interval field",
                    "Starts",
                    "Ends",
                    "Status",
                    "Originator",
                    "character_set_client",
                    "collation_connection",
                    "Database Collation",
                ]))
            }
            ["FUNCTION", "STATUS", ..] => Ok(routine_status(Vec::new())),
            ["PROCEDURE", "STATUS", ..] => self.procedure_status().map(routine_status),
            ["ENGINES"] | ["STORAGE", "ENGINES"] => {
                let names = [
                    "Engine",
                    "Support",
                    "Comment",
                    "Transactions",
                    "XA",
                    "Savepoints",
                ];
                Ok(Outcome::Rows {
                    columns: list_columns(&names),
                    rows: infoschema::engines(),
                })
            }
            ["TRIGGERS", ..] => Ok(empty_list(&[
                "Trigger",
                "Event",
                "Table",
                "Statement",
                "Timing",
                "Created",
                "sql_mode",
                "Definer",
                "character_set_client",
                "collation_connection",
                "Database Collation",
            ])),
            // What tools look through for authentication plugins (PyMySQL's tests, clients
            // choosing how to log in): the ones Cairn serves, and its engine.
            ["PLUGINS"] => Ok(Outcome::Rows {
                columns: list_columns(&["Name", "Status", "Type", "Library", "License"]),
                rows: crate::catalog::plugins::BUILT_IN
                    .iter()
                    .map(|&(name, kind)| {
                        vec![
                            Value::Bytes(name.into()),
                            Value::Bytes(b"ACTIVE".to_vec()),
                            Value::Bytes(kind.into()),
                            Value::Null,
                            Value::Bytes(b"GPL".to_vec()),
                        ]
                    })
                    .collect(),
            }),
            ["ERRORS"] => Ok(self.show_conditions(true)),
            ["COUNT", "WARNINGS"] => Ok(self.show_condition_count(false)),
            ["COUNT", "ERRORS"] => Ok(self.show_condition_count(true)),
            ["INDEX" | "INDEXES" | "KEYS", "FROM" | "IN", ..] => {
                let rest = &words[2..];
                let from = |i: usize| upper.get(i).is_some_and(|u| u == "FROM" || u == "IN");
                let name = match rest {
                    [t] => ObjectName::from(vec![t.clone()]),
                    [d, t] => ObjectName::from(vec![d.clone(), t.clone()]),
                    [t, _, d] if from(3) => ObjectName::from(vec![d.clone(), t.clone()]),
                    _ => return Err(unsupported()),
                };
                self.show_index(&name)
            }
            ["TABLE", "STATUS"] => self.show_table_status(None, ""),
            ["TABLE", "STATUS", "FROM" | "IN", _] => {
                let db = words[3].value.clone();
                self.show_table_status(Some(db), "")
            }
            _ => Err(unsupported()),
        }
    }

    /// Plans and runs a SELECT over virtual tables (`$name` resolves to an internal one).
    fn select_virtual(&mut self, sql: &str) -> Result<Outcome> {
        let mut statements = Parser::parse_sql(&Cairn, sql).map_err(SqlError::parse)?;
        let (Some(Statement::Query(q)), 1) = (statements.pop(), statements.len() + 1) else {
            return Err(SqlError::new(1105, "HY000", "internal: SHOW made no query"));
        };
        let input = PlanInput::new(sql, &[]);
        let plan = {
            let resolve = |name: &ObjectName| {
                let (_, t) = ident(name)?;
                if let Some(v) = Virtual::internal_named(&t) {
                    let tref = (infoschema::NAME.to_string(), t.clone(), t);
                    return Ok((infoschema::internal(v), tref));
                }
                let (table, db, n) = self.table(name)?;
                Ok((table, (db, n.clone(), n)))
            };
            plan::select(&input, &q, &resolve)?
        };
        self.run_select(&plan, &[])
    }

    /// A SHOW over information_schema table `table` under SHOW's column names (`pairs`), its
    /// LIKE matching and rows ordered by the first.
    fn show_renamed(
        &mut self,
        table: &str,
        pairs: &[(&str, &str)],
        filter: &Option<ShowStatementFilter>,
    ) -> Result<Outcome> {
        let first = pairs.first().map_or("", |(_, shown)| *shown);
        let filter = filter_text(first, filter)?;
        self.select_virtual(&format!(
            "SELECT * FROM (SELECT {} FROM information_schema.{table}) AS c{filter} \
             ORDER BY `{first}`",
            renamed(pairs)
        ))
    }

    fn show_pairs(
        &mut self,
        table: Virtual,
        filter: &Option<ShowStatementFilter>,
    ) -> Result<Outcome> {
        let filter = filter_text("Variable_name", filter)?;
        self.select_virtual(&format!(
            "SELECT * FROM `{}`{filter} ORDER BY `Variable_name`",
            table.name()
        ))
    }

    /// SHOW CREATE TABLE: Table, Create Table.
    /// SHOW CREATE DATABASE, with the database's default character set and collation.
    pub(crate) fn show_create_database(
        &mut self,
        name: &str,
        if_not_exists: bool,
    ) -> Result<Outcome> {
        self.need_database(name)?;
        let (shown, charset, collation) = if infoschema::is_schema(name) {
            // information_schema's text is in utf8mb3, as MariaDB's.
            (
                infoschema::NAME.to_string(),
                "utf8mb3",
                "utf8mb3_general_ci",
            )
        } else {
            let (shown, c) = self
                .database(name)?
                .ok_or_else(|| SqlError::unknown_database(name))?;
            (shown, c.charset().name(), c.name())
        };
        // MariaDB names no collation for the binary character set.
        let collate = if charset == "binary" {
            String::new()
        } else {
            format!(" COLLATE {collation}")
        };
        let text = format!(
            "CREATE DATABASE {}{} /*!40100 DEFAULT CHARACTER SET {charset}{collate} */",
            if if_not_exists {
                "/*!32312 IF NOT EXISTS*/ "
            } else {
                ""
            },
            crate::catalog::definition::backticked(&shown)
        );
        Ok(Outcome::Rows {
            columns: vec![
                Column::computed("Database", types::VAR_STRING, 64 * 4, 0),
                Column::computed("Create Database", types::VAR_STRING, 1024 * 4, 0),
            ],
            rows: vec![vec![
                Value::Bytes(shown.into_bytes()),
                Value::Bytes(text.into_bytes()),
            ]],
        })
    }

    fn show_create_table(&mut self, name: &ObjectName) -> Result<Outcome> {
        let (table, db, shown) = match self.table(name) {
            Err(e) if e.code == 1146 => match self.view_of(name)? {
                Some(view) => return Ok(self.show_create_view(&view)),
                None => return Err(e),
            },
            other => other?,
        };
        let counter = if infoschema::is_schema(&db) {
            None
        } else {
            crate::session::schema_rows::next_auto_increment(self, &table)?
        };
        let text = crate::catalog::definition::create_table(
            table.def(),
            &shown,
            counter,
            self.shared.cluster().worker_count(),
        );
        Ok(Outcome::Rows {
            columns: vec![
                Column::computed("Table", types::VAR_STRING, 64 * 4, 0),
                Column::computed("Create Table", types::VAR_STRING, 1024 * 4, 0),
            ],
            rows: vec![vec![
                Value::Bytes(shown.into_bytes()),
                Value::Bytes(text.into_bytes()),
            ]],
        })
    }

    /// SHOW INDEX: information_schema.STATISTICS under SHOW's column names.
    fn show_index(&mut self, name: &ObjectName) -> Result<Outcome> {
        let (_, db, table) = self.table(name)?;
        let columns = renamed(&[
            ("TABLE_NAME", "Table"),
            ("NON_UNIQUE", "Non_unique"),
            ("INDEX_NAME", "Key_name"),
            ("SEQ_IN_INDEX", "Seq_in_index"),
            ("COLUMN_NAME", "Column_name"),
            ("COLLATION", "Collation"),
            ("CARDINALITY", "Cardinality"),
            ("SUB_PART", "Sub_part"),
            ("PACKED", "Packed"),
            ("NULLABLE", "Null"),
            ("INDEX_TYPE", "Index_type"),
            ("COMMENT", "Comment"),
            ("INDEX_COMMENT", "Index_comment"),
            ("IGNORED", "Ignored"),
        ]);
        self.select_virtual(&format!(
            "SELECT {columns} FROM information_schema.STATISTICS \
             WHERE TABLE_SCHEMA = {} AND TABLE_NAME = {}",
            literal(&db),
            literal(&table)
        ))
    }

    /// SHOW TABLE STATUS: information_schema.TABLES under SHOW's column names, filtered by
    /// `filter` (a ` WHERE ...` over those names, or empty).
    pub(crate) fn show_table_status(
        &mut self,
        database: Option<String>,
        filter: &str,
    ) -> Result<Outcome> {
        let Some(db) = database.or_else(|| self.database.clone()) else {
            return Err(SqlError::no_database());
        };
        if !infoschema::is_schema(&db) {
            let known = self
                .shared
                .cluster()
                .databases()
                .map_err(|e| SqlError::from_client(&e))?;
            if !known.iter().any(|d| d.eq_ignore_ascii_case(&db)) {
                return Err(SqlError::unknown_database(&db));
            }
        }
        let columns = renamed(&[
            ("TABLE_NAME", "Name"),
            ("ENGINE", "Engine"),
            ("VERSION", "Version"),
            ("ROW_FORMAT", "Row_format"),
            ("TABLE_ROWS", "Rows"),
            ("AVG_ROW_LENGTH", "Avg_row_length"),
            ("DATA_LENGTH", "Data_length"),
            ("MAX_DATA_LENGTH", "Max_data_length"),
            ("INDEX_LENGTH", "Index_length"),
            ("DATA_FREE", "Data_free"),
            ("AUTO_INCREMENT", "Auto_increment"),
            ("CREATE_TIME", "Create_time"),
            ("UPDATE_TIME", "Update_time"),
            ("CHECK_TIME", "Check_time"),
            ("TABLE_COLLATION", "Collation"),
            ("CHECKSUM", "Checksum"),
            ("CREATE_OPTIONS", "Create_options"),
            ("TABLE_COMMENT", "Comment"),
            ("MAX_INDEX_LENGTH", "Max_index_length"),
            ("TEMPORARY", "Temporary"),
        ]);
        self.select_virtual(&format!(
            "SELECT * FROM (SELECT {columns} FROM information_schema.TABLES \
             WHERE TABLE_SCHEMA = {}) AS s{filter} ORDER BY `Name`",
            literal(&db)
        ))
    }

    /// COM_FIELD_LIST: the definitions of the table's columns whose names match `wildcard`
    /// (a LIKE pattern; all when empty), as a SELECT * would send them, each with its default
    /// value's text (None: NULL or none).
    pub(crate) fn field_list(
        &mut self,
        table: &str,
        wildcard: &str,
    ) -> Result<Vec<(Column, Option<Vec<u8>>)>> {
        let name = ObjectName::from(vec![Ident::new(table)]);
        let (table, db, shown) = self.table(&name)?;
        let def = table.def();
        Ok(def
            .columns
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.hidden)
            .filter(|(_, c)| wildcard.is_empty() || like(&c.name, wildcard))
            .map(|(p, c)| {
                let column = crate::expr::meta::table_column(&db, &shown, &shown, def, p, &c.name);
                let default = match crate::plan::explain::described_default(c) {
                    Value::Bytes(b) => Some(b),
                    _ => None,
                };
                (column, default)
            })
            .collect())
    }
}

/// The LIKE pattern of a SHOW's options (`what` names the statement when a WHERE is refused).
pub(crate) fn like_pattern(
    what: &str,
    options: &ast::ShowStatementOptions,
) -> Result<Option<String>> {
    Ok(match &options.filter_position {
        None => None,
        Some(
            ast::ShowStatementFilterPosition::Infix(f)
            | ast::ShowStatementFilterPosition::Suffix(f),
        ) => match f {
            ShowStatementFilter::Like(p) | ShowStatementFilter::NoKeyword(p) => Some(p.clone()),
            other => return Err(SqlError::unsupported(format!("{what} {other}"))),
        },
    })
}

/// SHOW [FULL] TABLES' answer: `names` of database `db`, those matching its LIKE pattern if it
/// has one (the column title then names the pattern, as MariaDB's does); FULL adds each one's
/// `Table_type`, `kind` (BASE TABLE, or SYSTEM VIEW for information_schema's).
pub(crate) fn tables_like(
    db: &str,
    names: Vec<String>,
    show_options: &ast::ShowStatementOptions,
    full: Option<&str>,
    views: &[String],
) -> Result<Outcome> {
    let listed = names_like(
        "SHOW TABLES",
        &format!("Tables_in_{db}"),
        names,
        show_options,
    )?;
    let Some(kind) = full else {
        return Ok(listed);
    };
    let (mut columns, rows) = match listed {
        Outcome::Rows { columns, rows } => (columns, rows),
        other => return Ok(other),
    };
    columns.push(Column::computed("Table_type", types::VAR_STRING, 64, 0));
    let rows = rows
        .into_iter()
        .map(|mut r| {
            let view = matches!(r.first(), Some(Value::Bytes(n)) if views.iter().any(|v| v.as_bytes() == n));
            let kind = if view { "VIEW" } else { kind };
            r.push(Value::Bytes(kind.as_bytes().to_vec()));
            r
        })
        .collect();
    Ok(Outcome::Rows { columns, rows })
}

/// SHOW DATABASES' answer: `names` (information_schema first), those matching its LIKE pattern
/// if it has one.
pub(crate) fn databases_like(
    mut names: Vec<String>,
    show_options: &ast::ShowStatementOptions,
) -> Result<Outcome> {
    names.insert(0, "information_schema".into());
    names_like("SHOW DATABASES", "Database", names, show_options)
}

/// A one-column list of `names` titled `title`, those matching the statement's LIKE pattern if
/// it has one (the title then names the pattern, as MariaDB's does).
fn names_like(
    what: &str,
    title: &str,
    mut names: Vec<String>,
    show_options: &ast::ShowStatementOptions,
) -> Result<Outcome> {
    let mut title = title.to_string();
    if let Some(p) = like_pattern(what, show_options)? {
        names.retain(|n| like(n, &p));
        title = format!("{title} ({p})");
    }
    Ok(crate::commands::ddl::one_column(&title, names))
}

#[cfg(test)]
mod tests {
    use super::show_create_database as parse;

    #[test]
    fn show_create_database_forms() {
        assert_eq!(
            parse("SHOW CREATE DATABASE d"),
            Some((false, "d".into(), ""))
        );
        assert_eq!(
            parse(" show create schema if not exists `a``b`; SELECT 1"),
            Some((true, "a`b".into(), " SELECT 1"))
        );
        assert_eq!(
            parse("SHOW CREATE DATABASE d ;"),
            Some((false, "d".into(), ""))
        );
        for other in [
            "SHOW CREATE TABLE t",
            "SHOW CREATE DATABASE",
            "SHOW CREATE DATABASE d e",
            "SHOW CREATE DATABASE IF EXISTS d",
            "SHOW CREATE DATABASE `d",
        ] {
            assert_eq!(parse(other), None, "{other}");
        }
    }
}
