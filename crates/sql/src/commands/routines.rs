//! Stored procedures: CREATE PROCEDURE, DROP PROCEDURE, CALL and SHOW CREATE PROCEDURE. A
//! procedure's text is kept in the cluster (`cairn_sql_routines`, one row per procedure, so
//! every API node sees it and it survives any node); CALL reads it, parses its body into
//! statements and runs them in the calling session: SQL statements (each SELECT's rows a
//! result set of the CALL), parameters and DECLAREd variables (their names read in statements
//! as the values they hold), SET of them, IF, WHILE, LEAVE, ITERATE and SIGNAL.

use std::collections::HashMap;

use base::schema::ColumnDef;
use base::types::ColumnType;
use base::{ErrorCode, TableDef, Value};
use client::{Cluster, Scan};

use crate::commands::routine_text::{
    lex, parse_procedure, parse_statement, syntax_near, Kind, Mode, Procedure, Statement, Stmt,
};
use crate::foundation::error::Result;
use crate::foundation::error::SqlError;
use crate::session::{done, Outcome, Session};

/// The internal table of the procedures.
pub const ROUTINES_TABLE: &str = "cairn_sql_routines";
/// The longest CREATE PROCEDURE text kept.
const TEXT_BYTES_MAX: usize = 1 << 20;
/// How deep CALLs inside procedures may nest.
const CALL_DEPTH_MAX: usize = 16;

// ---------------------------------------------------------------- lexing

// ---------------------------------------------------------------- storage

fn definition() -> TableDef {
    let name = |n| ColumnDef::new(n, ColumnType::VarBinary { length: 256 });
    let columns = vec![
        name("db"),
        name("name"),
        name("definer"),
        ColumnDef::new(
            "text",
            ColumnType::Blob {
                size: base::types::LobSize::Medium,
            },
        ),
    ];
    match TableDef::new(ROUTINES_TABLE, columns, &["db", "name"]) {
        Ok(def) => def,
        Err(e) => panic!("the routines table's definition is invalid: {e}"),
    }
}

/// Creates the procedures' table when it is missing (at the SQL front end's start).
pub fn bootstrap(cluster: &Cluster) -> std::result::Result<(), SqlError> {
    let client = |e: client::ClientError| SqlError::from_client(&e);
    match cluster.table(ROUTINES_TABLE) {
        Ok(_) => Ok(()),
        Err(e) if e.code() == ErrorCode::NoSuchTable => match cluster.create_table(definition()) {
            Ok(_) => Ok(()),
            Err(e) if e.code() == ErrorCode::TableExists => Ok(()),
            Err(e) => Err(client(e)),
        },
        Err(e) => Err(client(e)),
    }
}

/// A stored procedure's row: its database, name, definer and CREATE text.
pub(crate) struct Stored {
    pub db: String,
    pub name: String,
    pub definer: String,
    pub text: String,
}

/// Every stored procedure.
pub(crate) fn load(cluster: &Cluster) -> Result<Vec<Stored>> {
    let client = |e: client::ClientError| SqlError::from_client(&e);
    let table = cluster.table(ROUTINES_TABLE).map_err(client)?;
    let scan = Scan::table().columns(&["db", "name", "definer", "text"]);
    let rows = match cluster.scan(&table, &scan) {
        Err(e) if e.code() == ErrorCode::SchemaChanged => {
            cluster.forget_table(ROUTINES_TABLE);
            let table = cluster.table(ROUTINES_TABLE).map_err(client)?;
            cluster.scan(&table, &scan).map_err(client)?
        }
        r => r.map_err(client)?,
    };
    let text = |v: &Value| match v {
        Value::Bytes(b) => String::from_utf8(b.clone()).ok(),
        _ => None,
    };
    Ok(rows
        .iter()
        .filter_map(|r| match r.as_slice() {
            [db, name, definer, t] => Some(Stored {
                db: text(db)?,
                name: text(name)?,
                definer: text(definer)?,
                text: text(t)?,
            }),
            _ => None,
        })
        .collect())
}

/// Procedure names compare in any case, as MariaDB's do.
fn key(name: &str) -> Vec<u8> {
    name.to_lowercase().into_bytes()
}

/// A stored procedure's primary key.
fn stored_key(s: &Stored) -> Vec<Value> {
    vec![
        Value::Bytes(s.db.clone().into_bytes()),
        Value::Bytes(key(&s.name)),
    ]
}

fn find(cluster: &Cluster, db: &str, name: &str) -> Result<Option<Stored>> {
    Ok(load(cluster)?
        .into_iter()
        .find(|s| s.db == db && key(&s.name) == key(name)))
}

fn no_procedure(db: &str, name: &str) -> SqlError {
    SqlError::new(
        1305,
        "42000",
        format!("PROCEDURE {db}.{name} does not exist"),
    )
}

// ---------------------------------------------------------------- running

/// Why running a body stopped early.
enum Flow {
    Leave(String),
    Iterate(String),
    Failed(SqlError),
}

/// A running CALL: its variables and the result sets its SELECTs made.
struct Frame {
    vars: HashMap<String, Value>,
    results: Vec<Outcome>,
    last: Outcome,
}

impl Session {
    /// Runs a procedure statement; a CALL answers each SELECT's rows and then its own OK.
    pub(crate) fn routine(&mut self, statement: Statement) -> Vec<Outcome> {
        let outcome = match statement {
            Statement::Create {
                or_replace,
                if_not_exists,
                procedure,
            } => self.create_procedure(procedure, or_replace, if_not_exists),
            Statement::Drop {
                if_exists,
                db,
                name,
            } => self.drop_procedure(db, &name, if_exists),
            Statement::ShowCreate { db, name } => self.show_create_procedure(db, &name),
            Statement::Call { db, name, args } => {
                // The body's statements count their own warnings; the CALL's answers are
                // counted by the text it is in.
                let saved = std::mem::take(&mut self.diagnostics.counts);
                let answers = self.call(db, &name, &args, 0);
                self.diagnostics.counts = saved;
                return answers;
            }
        };
        vec![outcome.unwrap_or_else(Outcome::Failed)]
    }

    /// A prepared CALL run with `params` in its `?`s; None when statement `id` is no CALL.
    pub(crate) fn execute_prepared_call(
        &mut self,
        id: u32,
        params: &[Value],
    ) -> Option<Vec<Outcome>> {
        let p = self.statements.get(&id)?;
        if !matches!(p.compiled.as_ref(), crate::plan::compiled::Compiled::Other(s) if matches!(**s, sqlparser::ast::Statement::Call(_)))
        {
            return None;
        }
        let text = bind(&p.sql, params);
        self.begin_statement(crate::exec::diagnostics::Kind::Other { tables: false });
        Some(match parse_statement(&text) {
            Some((Ok(call @ Statement::Call { .. }), _)) => self.routine(call),
            Some((Err(e), _)) => vec![Outcome::Failed(e)],
            _ => vec![Outcome::Failed(syntax_near(&text))],
        })
    }

    /// information_schema.ROUTINES's rows: each procedure of a database the session may use.
    pub(crate) fn routine_rows(&self) -> Result<Vec<Vec<Value>>> {
        let text = |s: &str| Value::Bytes(s.as_bytes().to_vec());
        Ok(load(&self.shared.cluster())?
            .into_iter()
            .filter(|s| self.need_database(&s.db).is_ok())
            .filter_map(|s| {
                let p = parse_procedure(&s.text).ok()?;
                let body = p.text.get(p.body_at..).unwrap_or_default().trim().to_string();
                let mut row = vec![
                    text(&p.name),
                    text("def"),
                    text(&s.db),
                    text(&p.name),
                    text("PROCEDURE"),
                    text(""),
                ];
                row.extend([Value::Null, Value::Null, Value::Null, Value::Null, Value::Null]);
                row.extend([text(""), text(""), text(""), text("SQL")]);
                row.push(text(&body));
                row.extend([
                    text(""),
                    text("SQL"),
                    text("SQL"),
                    text("NO"),
                    text("CONTAINS SQL"),
                    text(""),
                    text("INVOKER"),
                    Value::Null,
                    Value::Null,
                    text("STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"),
                    text(""),
                    text(&s.definer),
                    text("utf8mb4"),
                    text("utf8mb4_general_ci"),
                    text("utf8mb4_general_ci"),
                ]);
                Some(row)
            })
            .collect())
    }

    /// information_schema.PARAMETERS's rows: each parameter of each procedure of a database the
    /// session may use, its type read as a column of that type would be.
    pub(crate) fn parameter_rows(&self) -> Result<Vec<Vec<Value>>> {
        let text = |s: &str| Value::Bytes(s.as_bytes().to_vec());
        let mut rows = Vec::new();
        for s in load(&self.shared.cluster())? {
            if self.need_database(&s.db).is_err() {
                continue;
            }
            let Ok(p) = parse_procedure(&s.text) else {
                continue;
            };
            for (n, param) in p.params.iter().enumerate() {
                let column = sqlparser::parser::Parser::new(&crate::parse::dialect::Cairn)
                    .try_with_sql(&param.ty)
                    .and_then(|mut parser| parser.parse_data_type())
                    .ok()
                    .and_then(|data_type| {
                        let ast = sqlparser::ast::ColumnDef {
                            name: sqlparser::ast::Ident::new(&param.name),
                            data_type,
                            options: Vec::new(),
                        };
                        crate::commands::column_def::column_from_ast(
                            &ast,
                            base::types::Collation::Utf8mb4GeneralCi,
                        )
                        .ok()
                    });
                let mode = match param.mode {
                    Mode::In => "IN",
                    Mode::Out => "OUT",
                    Mode::InOut => "INOUT",
                };
                let mut row = vec![
                    text("def"),
                    text(&s.db),
                    text(&p.name),
                    Value::Int(n as i64 + 1),
                    text(mode),
                    text(&param.name),
                ];
                match column {
                    Some((c, _)) => row.extend(crate::catalog::infoschema::type_values(&c)),
                    None => {
                        let lower = param.ty.to_ascii_lowercase();
                        let name = lower
                            .split(['(', ' '])
                            .next()
                            .unwrap_or_default()
                            .to_string();
                        row.extend([
                            text(&name),
                            Value::Null,
                            Value::Null,
                            Value::Null,
                            Value::Null,
                        ]);
                        row.extend([Value::Null, Value::Null, Value::Null, text(&lower)]);
                    }
                }
                row.push(text("PROCEDURE"));
                rows.push(row);
            }
        }
        Ok(rows)
    }

    /// SHOW PROCEDURE STATUS's rows: each procedure of a database the session may use.
    pub(crate) fn procedure_status(&self) -> Result<Vec<Vec<Value>>> {
        let text = |s: &str| Value::Bytes(s.as_bytes().to_vec());
        let mut rows: Vec<Vec<Value>> = load(&self.shared.cluster())?
            .into_iter()
            .filter(|s| self.need_database(&s.db).is_ok())
            .map(|s| {
                let name = parse_procedure(&s.text).map_or(s.name.clone(), |p| p.name);
                vec![
                    text(&s.db),
                    text(&name),
                    text("PROCEDURE"),
                    text(&s.definer),
                    Value::Null,
                    Value::Null,
                    text("INVOKER"),
                    text(""),
                    text("utf8mb4"),
                    text("utf8mb4_general_ci"),
                    text("utf8mb4_general_ci"),
                ]
            })
            .collect();
        let key = |r: &Vec<Value>| (base::text::value_text(&r[0]), base::text::value_text(&r[1]));
        rows.sort_by_key(key);
        Ok(rows)
    }

    fn routine_db(&self, db: Option<String>) -> Result<String> {
        db.or_else(|| self.database.clone())
            .ok_or_else(SqlError::no_database)
    }

    fn create_procedure(
        &mut self,
        p: Procedure,
        or_replace: bool,
        if_not_exists: bool,
    ) -> Result<Outcome> {
        self.begin_statement(crate::exec::diagnostics::Kind::Other { tables: false });
        let db = self.routine_db(p.db.clone())?;
        self.need_on_database(crate::catalog::privilege::CREATE_ROUTINE, &db)?;
        if self.database(&db)?.is_none() {
            return Err(SqlError::unknown_database(&db));
        }
        if p.text.len() > TEXT_BYTES_MAX {
            return Err(SqlError::unsupported(format!(
                "a procedure text of more than {TEXT_BYTES_MAX} bytes"
            )));
        }
        self.end_transaction(true)?;
        let cluster = self.shared.cluster();
        let table = cluster
            .table(ROUTINES_TABLE)
            .map_err(|e| SqlError::from_client(&e))?;
        let replaced = find(&cluster, &db, &p.name)?;
        if replaced.is_some() {
            if if_not_exists {
                drop(cluster);
                self.note(1304, format!("PROCEDURE {} already exists", p.name));
                return Ok(done(0));
            }
            if !or_replace {
                return Err(SqlError::new(
                    1304,
                    "42000",
                    format!("PROCEDURE {} already exists", p.name),
                ));
            }
        }
        let definer = format!("{}@{}", self.user, self.account_host);
        let mut txn = cluster.transaction();
        // OR REPLACE: the old procedure goes in the same transaction the new one comes in.
        if let Some(old) = &replaced {
            txn.delete(&table, stored_key(old));
        }
        txn.insert(
            &table,
            vec![
                (0, Value::Bytes(db.into_bytes())),
                (1, Value::Bytes(key(&p.name))),
                (2, Value::Bytes(definer.into_bytes())),
                (3, Value::Bytes(p.text.into_bytes())),
            ],
        );
        match txn.commit() {
            Ok(()) => Ok(done(0)),
            Err(e) if e.code() == ErrorCode::DuplicateKey => Err(SqlError::new(
                1304,
                "42000",
                format!("PROCEDURE {} already exists", p.name),
            )),
            Err(e) => Err(SqlError::from_client(&e)),
        }
    }

    fn drop_procedure(
        &mut self,
        db: Option<String>,
        name: &str,
        if_exists: bool,
    ) -> Result<Outcome> {
        self.begin_statement(crate::exec::diagnostics::Kind::Other { tables: false });
        let db = self.routine_db(db)?;
        self.need_on_database(crate::catalog::privilege::ALTER_ROUTINE, &db)?;
        self.end_transaction(true)?;
        let cluster = self.shared.cluster();
        let Some(existing) = find(&cluster, &db, name)? else {
            drop(cluster);
            if if_exists {
                self.note(1305, format!("PROCEDURE {db}.{name} does not exist"));
                return Ok(done(0));
            }
            return Err(no_procedure(&db, name));
        };
        let table = cluster
            .table(ROUTINES_TABLE)
            .map_err(|e| SqlError::from_client(&e))?;
        let mut txn = cluster.transaction();
        txn.delete(&table, stored_key(&existing));
        txn.commit().map_err(|e| SqlError::from_client(&e))?;
        Ok(done(0))
    }

    fn show_create_procedure(&mut self, db: Option<String>, name: &str) -> Result<Outcome> {
        self.begin_statement(crate::exec::diagnostics::Kind::Other { tables: false });
        let db = self.routine_db(db)?;
        let stored =
            find(&self.shared.cluster(), &db, name)?.ok_or_else(|| no_procedure(&db, name))?;
        let shown = parse_procedure(&stored.text).map_or(stored.name.clone(), |p| p.name);
        let text = |s: &str| Value::Bytes(s.as_bytes().to_vec());
        let columns = [
            "Procedure",
            "sql_mode",
            "Create Procedure",
            "character_set_client",
            "collation_connection",
            "Database Collation",
        ]
        .iter()
        .map(|n| {
            myproto::response::Column::computed(n, myproto::response::types::VAR_STRING, 1024, 31)
        })
        .collect();
        Ok(Outcome::Rows {
            columns,
            rows: vec![vec![
                text(&shown),
                text("STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"),
                text(&stored.text),
                text(self.charsets.client.name()),
                text(self.charsets.collation),
                text("utf8mb4_general_ci"),
            ]],
        })
    }

    /// CALL: each SELECT's rows, then an OK; the first failure (a SIGNAL's too) ends it after
    /// the results before it.
    fn call(
        &mut self,
        db: Option<String>,
        name: &str,
        args: &[String],
        depth: usize,
    ) -> Vec<Outcome> {
        match self.call_inner(db, name, args, depth) {
            Ok(mut frame) => {
                let mut out = std::mem::take(&mut frame.results);
                out.push(frame.last);
                out
            }
            Err((mut results, e)) => {
                results.push(Outcome::Failed(e));
                results
            }
        }
    }

    #[allow(clippy::type_complexity)]
    fn call_inner(
        &mut self,
        db: Option<String>,
        name: &str,
        args: &[String],
        depth: usize,
    ) -> std::result::Result<Frame, (Vec<Outcome>, SqlError)> {
        let fail = |e| (Vec::new(), e);
        let db = self.routine_db(db).map_err(fail)?;
        if depth >= CALL_DEPTH_MAX {
            return Err(fail(SqlError::new(
                1456,
                "HY000",
                format!("Recursive limit {CALL_DEPTH_MAX} was exceeded for routine {name}"),
            )));
        }
        self.need_on_database(crate::catalog::privilege::EXECUTE, &db)
            .map_err(fail)?;
        let stored = find(&self.shared.cluster(), &db, name)
            .map_err(fail)?
            .ok_or_else(|| fail(no_procedure(&db, name)))?;
        let p = parse_procedure(&stored.text).map_err(fail)?;
        if p.params.len() != args.len() {
            return Err(fail(SqlError::new(
                1318,
                "42000",
                format!(
                    "Incorrect number of arguments for PROCEDURE {db}.{}; expected {}, got {}",
                    p.name,
                    p.params.len(),
                    args.len()
                ),
            )));
        }
        let mut frame = Frame {
            vars: HashMap::new(),
            results: Vec::new(),
            last: done(0),
        };
        for (param, arg) in p.params.iter().zip(args) {
            let value = match param.mode {
                Mode::Out => Value::Null,
                Mode::In | Mode::InOut => self.value_of(arg, &frame.vars).map_err(fail)?,
            };
            frame.vars.insert(param.name.to_ascii_lowercase(), value);
        }
        // The procedure's statements read its database unqualified names in.
        let caller_db = self.database.replace(db.clone());
        let flow = self.run_body(&p.body, &mut frame, depth);
        self.database = caller_db;
        match flow {
            None | Some(Flow::Leave(_)) | Some(Flow::Iterate(_)) => {}
            Some(Flow::Failed(e)) => return Err((std::mem::take(&mut frame.results), e)),
        }
        // OUT and INOUT parameters reach the user variables passed for them.
        for (param, arg) in p.params.iter().zip(args) {
            if param.mode == Mode::In {
                continue;
            }
            let arg =
                crate::parse::literals::quoted_user_variables(arg).unwrap_or_else(|| arg.clone());
            if let Some(var) = arg.trim().strip_prefix('@') {
                let value = frame
                    .vars
                    .get(&param.name.to_ascii_lowercase())
                    .cloned()
                    .unwrap_or(Value::Null);
                self.vars
                    .insert(format!("@{}", var.to_ascii_lowercase()), value);
            }
        }
        Ok(frame)
    }

    /// Runs statements in order; Some when one left, iterated or failed.
    fn run_body(&mut self, body: &[Stmt], frame: &mut Frame, depth: usize) -> Option<Flow> {
        for s in body {
            if let Err(killed) = self.activity.interrupt.check_killed() {
                return Some(Flow::Failed(killed));
            }
            if let Some(flow) = self.run_stmt(s, frame, depth) {
                return Some(flow);
            }
        }
        None
    }

    fn run_stmt(&mut self, s: &Stmt, frame: &mut Frame, depth: usize) -> Option<Flow> {
        let failed = |e| Some(Flow::Failed(e));
        match s {
            Stmt::Block(label, body) => match self.run_body(body, frame, depth) {
                Some(Flow::Leave(l)) if label.as_ref() == Some(&l) => None,
                flow => flow,
            },
            Stmt::Declare(names, default) => {
                let value = match default {
                    Some(e) => match self.value_of(e, &frame.vars) {
                        Ok(v) => v,
                        Err(e) => return failed(e),
                    },
                    None => Value::Null,
                };
                for n in names {
                    frame.vars.insert(n.to_ascii_lowercase(), value.clone());
                }
                None
            }
            Stmt::Set(pairs) => {
                for (name, e) in pairs {
                    match self.value_of(e, &frame.vars) {
                        Ok(v) => {
                            frame.vars.insert(name.clone(), v);
                        }
                        Err(e) => return failed(e),
                    }
                }
                None
            }
            Stmt::If(arms, otherwise) => {
                for (cond, body) in arms {
                    match self.value_of(cond, &frame.vars) {
                        Ok(v) if crate::expr::truthy(&v) => {
                            return self.run_body(body, frame, depth)
                        }
                        Ok(_) => {}
                        Err(e) => return failed(e),
                    }
                }
                self.run_body(otherwise, frame, depth)
            }
            Stmt::While(label, cond, body) => loop {
                match self.value_of(cond, &frame.vars) {
                    Ok(v) if crate::expr::truthy(&v) => {}
                    Ok(_) => return None,
                    Err(e) => return failed(e),
                }
                match self.run_body(body, frame, depth) {
                    Some(Flow::Leave(l)) if label.as_ref() == Some(&l) => return None,
                    Some(Flow::Iterate(l)) if label.as_ref() == Some(&l) => continue,
                    None => continue,
                    flow => return flow,
                }
            },
            Stmt::Leave(l) => Some(Flow::Leave(l.clone())),
            Stmt::Iterate(l) => Some(Flow::Iterate(l.clone())),
            Stmt::Signal {
                sqlstate,
                message,
                errno,
            } => match self.signaled(sqlstate, message, errno, frame) {
                Ok(e) | Err(e) => failed(e),
            },
            Stmt::Sql(sql) => self.run_sql(sql, frame, depth),
        }
    }

    /// SIGNAL's error: MYSQL_ERRNO (1644 without one, as in MariaDB for SQLSTATE class 45) and
    /// MESSAGE_TEXT; Err when working out either failed.
    fn signaled(
        &mut self,
        sqlstate: &str,
        message: &Option<String>,
        errno: &Option<String>,
        frame: &Frame,
    ) -> Result<SqlError> {
        let message = message
            .as_ref()
            .map(|e| self.value_of(e, &frame.vars))
            .transpose()?;
        let errno = errno
            .as_ref()
            .map(|e| self.value_of(e, &frame.vars))
            .transpose()?;
        let code = errno
            .map(|v| crate::expr::as_double(&v) as i64)
            .filter(|n| (1..=65535).contains(n))
            .map_or(1644, |n| n as u16);
        let message = message
            .and_then(|m| base::text::value_text(&m))
            .map(|m| String::from_utf8_lossy(&m).into_owned())
            .unwrap_or_else(|| "Unhandled user-defined exception condition".into());
        Ok(SqlError::signaled(code, sqlstate.to_string(), message))
    }

    /// A statement of the body run as SQL, its local variables substituted: a CALL runs the
    /// procedure it names one level deeper; a result set is kept for the client.
    fn run_sql(&mut self, sql: &str, frame: &mut Frame, depth: usize) -> Option<Flow> {
        let failed = |e| Some(Flow::Failed(e));
        let text = substitute(sql, &frame.vars);
        if let Some((Ok(Statement::Call { db, name, args }), rest)) = parse_statement(&text) {
            if !rest.trim().is_empty() {
                return failed(syntax_near(rest));
            }
            return match self.call_inner(db, &name, &args, depth + 1) {
                Ok(mut inner) => {
                    frame.results.append(&mut inner.results);
                    frame.last = inner.last;
                    None
                }
                Err((mut results, e)) => {
                    frame.results.append(&mut results);
                    failed(e)
                }
            };
        }
        self.stream_allowed = false;
        for outcome in self.run(&text) {
            match outcome {
                Outcome::Failed(e) => return failed(e),
                rows @ Outcome::Rows { .. } => frame.results.push(rows),
                Outcome::Stream(_) => {
                    return failed(SqlError::unsupported("a streamed result in a procedure"))
                }
                ok @ Outcome::Done { .. } => frame.last = ok,
            }
        }
        None
    }

    /// The value of expression text `e` with the procedure's variables in it.
    fn value_of(&mut self, e: &str, vars: &HashMap<String, Value>) -> Result<Value> {
        let text = format!("SELECT {}", substitute(e, vars));
        self.stream_allowed = false;
        let outcome = self.run(&text).pop();
        match outcome {
            Some(Outcome::Rows { rows, .. }) => Ok(rows
                .into_iter()
                .next()
                .and_then(|r| r.into_iter().next())
                .unwrap_or(Value::Null)),
            Some(Outcome::Failed(e)) => Err(e),
            _ => Ok(Value::Null),
        }
    }
}

/// `sql` with every bare word that names one of `vars` replaced by its value as a literal
/// (a variable shadows a column of the same name, as in MySQL).
fn substitute(sql: &str, vars: &HashMap<String, Value>) -> String {
    if vars.is_empty() {
        return sql.to_string();
    }
    let Some(toks) = lex(sql) else {
        return sql.to_string();
    };
    let mut out = String::with_capacity(sql.len());
    let mut at = 0;
    for (i, t) in toks.iter().enumerate() {
        if t.kind != Kind::Word {
            continue;
        }
        let word = &sql[t.start..t.end];
        let after_at = i > 0 && toks[i - 1].kind == Kind::Punct(b'@') && toks[i - 1].end == t.start;
        let Some(v) = vars.get(&word.to_ascii_lowercase()).filter(|_| !after_at) else {
            continue;
        };
        out.push_str(&sql[at..t.start]);
        out.push_str(&literal(v));
        at = t.end;
    }
    out.push_str(&sql[at..]);
    out
}

/// `sql` with its `?`s replaced by `params` as literals, in order.
fn bind(sql: &str, params: &[Value]) -> String {
    let Some(toks) = lex(sql) else {
        return sql.to_string();
    };
    let mut out = String::with_capacity(sql.len());
    let mut at = 0;
    let mut next = params.iter();
    for t in toks.iter().filter(|t| t.kind == Kind::Punct(b'?')) {
        out.push_str(&sql[at..t.start]);
        out.push_str(&next.next().map_or_else(|| "NULL".to_string(), literal));
        at = t.end;
    }
    out.push_str(&sql[at..]);
    out
}

/// A value as an SQL literal.
fn literal(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) | Value::Float(_) => {
            String::from_utf8_lossy(&base::text::value_text(v).unwrap_or_default()).into_owned()
        }
        other => {
            let bytes = base::text::value_text(other).unwrap_or_default();
            match std::str::from_utf8(&bytes) {
                Ok(s) => format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''")),
                Err(_) => format!(
                    "X'{}'",
                    bytes.iter().map(|b| format!("{b:02X}")).collect::<String>()
                ),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_procedure_reads_its_parameters_blocks_and_control_statements() {
        let text = "CREATE DEFINER=`root`@`localhost` PROCEDURE `foo.bar` (IN arg1 INT, OUT r VARCHAR(10))\n\
                    COMMENT 'x' DETERMINISTIC\n\
                    BEGIN\n DECLARE i INT DEFAULT 0;\n lbl: WHILE i < 3 DO\n SET i = i + 1;\n \
                    IF i = 2 THEN ITERATE lbl; ELSEIF i > 5 THEN LEAVE lbl; ELSE SELECT i, 'a;b'; END IF;\n \
                    END WHILE lbl;\n SIGNAL SQLSTATE '45001' SET MESSAGE_TEXT = \"an error\", MYSQL_ERRNO = 45001;\nEND; SELECT 1";
        let Some((Ok(Statement::Create { procedure, .. }), rest)) = parse_statement(text) else {
            panic!("not read");
        };
        assert_eq!(procedure.name, "foo.bar");
        assert_eq!(procedure.params.len(), 2);
        assert_eq!(procedure.params[1].mode, Mode::Out);
        assert_eq!(rest.trim(), "SELECT 1");
        assert!(procedure.text.ends_with("END"));
        let Stmt::Block(_, body) = &procedure.body[0] else {
            panic!("no block");
        };
        assert_eq!(body.len(), 3);
        assert!(
            matches!(&body[1], Stmt::While(Some(l), c, b) if l == "lbl" && c == "i < 3" && b.len() == 2)
        );
    }

    #[test]
    fn variables_become_literals_and_other_words_stay() {
        let mut vars = HashMap::new();
        vars.insert("t".to_string(), Value::Bytes(b"it's".to_vec()));
        vars.insert("n".to_string(), Value::Int(5));
        assert_eq!(
            substitute("SELECT pos FROM x.t WHERE tree = t AND n > @n + n", &vars),
            "SELECT pos FROM x.t WHERE tree = 'it''s' AND 5 > @n + 5"
        );
    }

    #[test]
    fn calls_and_drops_read_their_names_and_arguments() {
        let Some((Ok(Statement::Call { db, name, args }), rest)) =
            parse_statement("CALL d.p(1, @x, CONCAT('a', 'b')); SELECT 2")
        else {
            panic!("not read");
        };
        assert_eq!((db.as_deref(), name.as_str()), (Some("d"), "p"));
        assert_eq!(args, ["1", "@x", "CONCAT('a', 'b')"]);
        assert_eq!(rest.trim(), "SELECT 2");
        assert!(matches!(
            parse_statement("DROP PROCEDURE IF EXISTS `foo.bar`"),
            Some((Ok(Statement::Drop { if_exists: true, db: None, name }), "")) if name == "foo.bar"
        ));
        assert!(parse_statement("DROP TABLE t").is_none());
        assert!(parse_statement("CREATE TABLE t (a INT)").is_none());
    }
}
