//! A connection's session: its identity, database, variables, transaction (`transactional`
//! runs a statement's work in it or in one of its own), prepared statements, diagnostics and
//! activity, and the planning of a statement (`compile`) against its tables and privileges.
//! The dispatch of statements is `dispatch/`'s.

pub(crate) mod activity;
pub(crate) mod diagnostics;
pub(crate) mod grants;
pub(crate) mod schema_rows;
pub(crate) mod shared;
pub(crate) mod temporary;
pub(crate) mod variables;
pub(crate) mod views;

use std::collections::HashMap;
use std::sync::Arc;

use base::Value;
use client::{Cluster, ExecType, Transaction};
use myproto::handshake::status;
use myproto::response::Column;
use sqlparser::ast::{ObjectName, Statement};
use sqlparser::tokenizer::Location;

use crate::exec::ExecState;
use crate::exec::Subqueries;
use crate::expr::NoSession;
use crate::expr::{Context, SessionFn};
use crate::foundation::error::Result;
use crate::foundation::error::SqlError;
use crate::parse::ident;
use crate::plan::cache;
use crate::plan::compiled::Compiled;
use crate::plan::compiled::Deferred;
use crate::plan::{self, PlanInput, TableRef};
use shared::Shared;

pub(crate) use crate::exec::{done, Outcome};

pub(crate) mod failover;
use failover::rolled_back_in_failover;

/// Statements a session may hold prepared at once (MySQL's max_prepared_stmt_count is global;
/// this bounds one connection).
pub const PREPARED_MAX: usize = 16_382;

/// How long a new session waits for its own data node connection.
const DATA_CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

impl Compiled {
    /// The catalog name of the table the plan reads or writes.
    pub(crate) fn table_name(&self) -> Option<String> {
        let table = match self {
            Compiled::Select(p) => &p.source.as_ref()?.table,
            Compiled::Update(p) => &p.source.table,
            Compiled::Delete(p) => &p.source.table,
            Compiled::Insert(p) => p.table(),
            Compiled::Set(_)
            | Compiled::Deferred(_)
            | Compiled::Multi(_)
            | Compiled::Do(_)
            | Compiled::Other(_) => return None,
        };
        Some(table.def().name.clone())
    }
}

/// A prepared statement.
pub struct Prepared {
    /// The statement text, to plan again when its table changed under it, or the session's
    /// grants or temporary tables did (`epoch`: `Session::plan_epoch` when it was planned).
    pub(crate) sql: String,
    pub(crate) epoch: u64,
    /// Its plan expanded a view: planned again at each execution.
    pub(crate) reads_view: bool,
    /// Shared, so the plan runs while the session that holds it is borrowed (the reactor's
    /// read in flight holds it too).
    pub(crate) compiled: Arc<Compiled>,
    pub params: usize,
    pub columns: Vec<Column>,
    /// Parameter types bound by the last execute.
    pub types: Vec<(u8, bool)>,
    /// Values sent by COM_STMT_SEND_LONG_DATA since the last execute.
    pub long_data: Vec<Option<Vec<u8>>>,
}

pub struct Session {
    /// What the executor keeps from statement to statement (the diagnostics area, FOUND_ROWS,
    /// LAST_INSERT_ID, the database, ...): the session dereferences to it.
    exec: ExecState,
    pub shared: Arc<Shared>,
    /// This session's own connection to the data node, for its reads and writes: replies come
    /// straight to the session's thread, with no hand-off between sessions sharing a socket.
    /// Metadata and DDL go through the shared connection, whose table cache all sessions share.
    /// Made at its first use (`data`): a session that only logged in, or whose reads the
    /// reactor serves, holds none.
    data: Option<Cluster>,
    pub id: u32,
    pub user: String,
    /// The host the client connects from, as errors and USER() name it (`localhost` for a
    /// loopback address).
    pub host: String,
    /// The host (or pattern) of the account the session authenticated as: CURRENT_USER().
    pub account_host: String,
    /// The account's global privileges, read when it authenticated (`catalog/privilege.rs`).
    pub privileges: crate::catalog::privilege::Privileges,
    /// The account's grants on databases and tables, read when it authenticated.
    pub scoped: crate::catalog::privilege::Scoped,
    /// The client gave a password when it authenticated (what 1045 messages say).
    pub with_password: bool,
    /// The next statement `execute` runs is the command's only one, answered by this
    /// session's connection: a SELECT's large result may stream (`exec/stream.rs`).
    pub(crate) may_stream: bool,
    /// Set by the connection for the text `run` is given next when the connection answers its
    /// outcomes itself, one command alone (not a statement of a text read in turns); `run`
    /// takes it, so no text it runs inside itself streams.
    pub(crate) stream_allowed: bool,
    /// The text `run_once` runs now may stream its only statement (`stream_allowed`, taken).
    pub(crate) command_streams: bool,
    /// ROW_COUNT(): the last statement's affected rows, -1 after one that returned rows or
    /// failed.
    pub(crate) row_count: i64,
    pub(crate) autocommit: bool,
    /// BEGIN / START TRANSACTION was said and not yet ended.
    pub(crate) explicit: bool,
    /// The explicit transaction was started READ ONLY: its writes answer 1792.
    pub(crate) read_only: bool,
    /// The session's access mode (SET SESSION TRANSACTION READ ONLY, @@tx_read_only): when
    /// set, every statement outside an explicit transaction, every schema change and every
    /// transaction begun without a mode of its own is read only.
    pub(crate) session_read_only: bool,
    /// SET TRANSACTION READ ONLY or READ WRITE without SESSION: the next START TRANSACTION's
    /// mode.
    pub(crate) next_read_only: Option<bool>,
    /// The open transaction, between statements of an explicit one.
    pub(crate) txn: Option<Transaction>,
    pub(crate) vars: HashMap<String, Value>,
    pub statements: HashMap<u32, Prepared>,
    pub(crate) next_statement: u32,
    /// Plans of text queries by normalized text.
    pub(crate) plans: cache::QueryCache,
    pub(crate) activity: crate::session::activity::SessionActivity,
    /// RAND's generators (the session's, and the running statement's RAND(n) calls').
    pub(crate) randoms: std::cell::RefCell<crate::expr::funcs::Randoms>,
    /// The connection's character sets (SET NAMES), and those its handshake asked for, which
    /// COM_RESET_CONNECTION restores.
    pub(crate) charsets: crate::foundation::charset::Charsets,
    pub(crate) handshake_charsets: crate::foundation::charset::Charsets,
    /// The default collation of `database`, read at USE (as MariaDB reads db.opt then):
    /// @@collation_database, and the connection's with SET CHARACTER SET.
    pub(crate) database_collation: base::types::Collation,
    /// `Shared::grants_epoch` when this session read its grants.
    pub(crate) grants_epoch: u64,
    /// `Shared::tables_epoch` when its cached plans were made: another session's DDL through
    /// this API node changes it.
    pub(crate) tables_epoch: u64,
    /// The open transaction's savepoints, oldest first.
    pub(crate) savepoints: Vec<Savepoint>,
    /// A statement's own transaction whose connection was lost while its commit was out: its
    /// name, to ask the cluster how it ended (`resolve_lost_commit`).
    lost_commit: Option<(u64, u64)>,
    /// The open transaction was rolled back with a lost connection, which no statement of it
    /// reported: the next COMMIT answers the retry class instead of OK.
    lost_transaction: bool,
    /// The session's temporary tables (`session/temporary.rs`), dropped when it ends.
    pub(crate) temporaries: temporary::Temporaries,
    /// A view was expanded while planning (`session/views.rs`): the plan is not cached, since
    /// the view may change under it.
    pub(crate) planned_view: std::cell::Cell<bool>,
    /// The query of the CREATE/ALTER VIEW being planned, as typed (`views::view_query_text`),
    /// which the statement takes when it runs.
    pub(crate) view_text: std::cell::RefCell<Option<Result<String>>>,
}

/// A savepoint of the session's open transaction.
pub(crate) struct Savepoint {
    pub(crate) name: String,
    /// The writes its transaction had sent when it was set.
    pub(crate) writes: u64,
    /// The number the transaction's next statement took then (`Transaction::next_statement`):
    /// ROLLBACK TO undoes from it on.
    pub(crate) statement: u32,
}

impl Context for NoSession {
    fn variable(&self, _: &str) -> Value {
        Value::Null
    }
    fn session(&self, _: SessionFn) -> Value {
        Value::Null
    }
}

impl Context for Session {
    fn variable(&self, name: &str) -> Value {
        self.system_variable(name)
    }

    fn sleep(&self, seconds: f64) -> Result<()> {
        // In slices, looking between them whether the statement must stop.
        let deadline = std::time::Instant::now()
            + std::time::Duration::from_secs_f64(seconds.min(crate::expr::SLEEP_SECONDS_MAX));
        loop {
            self.interrupted()?;
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return Ok(());
            }
            std::thread::sleep(left.min(std::time::Duration::from_millis(100)));
        }
    }

    fn interrupted(&self) -> Result<()> {
        self.activity.interrupt.check()
    }

    fn correlated(&self, n: usize, params: &[Value], args: &[Value]) -> Option<Result<Value>> {
        self.correlated_result(n, params, args)
    }

    fn warn(&self, code: u16, message: String) {
        self.diagnostics.warn(code, message);
    }

    fn truncated(&self, kind: &str, text: &[u8], spaces_only: bool) -> Result<()> {
        use crate::exec::diagnostics::Storing;
        let message = format!(
            "Truncated incorrect {kind} value: '{}'",
            String::from_utf8_lossy(text)
        );
        if spaces_only {
            self.diagnostics.note_shared(1292, message);
            return Ok(());
        }
        match self.diagnostics.storing {
            Storing::Strict => Err(SqlError::new(1292, "22007", message)),
            Storing::No | Storing::Ignoring => {
                self.diagnostics.warn(1292, message);
                Ok(())
            }
        }
    }

    fn division_by_zero(&self) -> Result<()> {
        use crate::exec::diagnostics::Storing;
        match self.diagnostics.storing {
            Storing::Strict => Err(SqlError::new(1365, "22012", "Division by 0")),
            Storing::No | Storing::Ignoring => {
                self.diagnostics.warn(1365, "Division by 0");
                Ok(())
            }
        }
    }

    fn session(&self, f: SessionFn) -> Value {
        match f {
            SessionFn::Database => match &self.database {
                Some(d) => Value::Bytes(d.clone().into_bytes()),
                None => Value::Null,
            },
            SessionFn::Version => Value::Bytes(
                crate::foundation::limits::SERVER_VERSION
                    .as_bytes()
                    .to_vec(),
            ),
            SessionFn::ConnectionId => Value::UInt(self.id as u64),
            SessionFn::User => Value::Bytes(format!("{}@{}", self.user, self.host).into_bytes()),
            SessionFn::CurrentUser => {
                Value::Bytes(format!("{}@{}", self.user, self.account_host).into_bytes())
            }
            SessionFn::LastInsertId => Value::UInt(self.last_insert_id),
            SessionFn::FoundRows => Value::UInt(self.last_found_rows),
            SessionFn::RowCount => Value::Int(self.row_count),
        }
    }

    fn statement_micros(&self) -> i64 {
        self.statement_micros
    }

    fn random(&self, seed: Option<(usize, u32)>) -> f64 {
        self.randoms.borrow_mut().next(seed)
    }

    fn lock_owner(&self) -> Option<u32> {
        Some(self.id)
    }
}

impl std::ops::Deref for Session {
    type Target = ExecState;
    fn deref(&self) -> &ExecState {
        &self.exec
    }
}

impl std::ops::DerefMut for Session {
    fn deref_mut(&mut self) -> &mut ExecState {
        &mut self.exec
    }
}

impl Drop for Session {
    /// A session's named locks and temporary tables go with it.
    fn drop(&mut self) {
        crate::foundation::named_locks::release_all(self.id);
        if !self.temporaries.is_empty() {
            let tables = self.temporaries.take_all();
            let shared = &self.shared;
            shared.temporary.discard(|| shared.cluster(), tables);
        }
    }
}

impl Session {
    pub fn new(shared: Arc<Shared>, id: u32) -> Session {
        Session {
            exec: ExecState {
                statement_micros: crate::expr::temporal::wall_clock_micros(),
                ..ExecState::default()
            },
            data: None,
            activity: crate::session::activity::SessionActivity::new(&shared, id),
            shared,
            id,
            user: String::new(),
            host: String::new(),
            account_host: String::new(),
            privileges: 0,
            scoped: Default::default(),
            with_password: false,
            may_stream: false,
            stream_allowed: false,
            command_streams: false,
            row_count: 0,
            autocommit: true,
            explicit: false,
            read_only: false,
            session_read_only: false,
            next_read_only: None,
            txn: None,
            vars: HashMap::new(),
            statements: HashMap::new(),
            next_statement: 1,
            plans: cache::QueryCache::default(),
            randoms: Default::default(),
            charsets: Default::default(),
            handshake_charsets: Default::default(),
            database_collation: base::types::Collation::Utf8mb4GeneralCi,
            grants_epoch: 0,
            tables_epoch: 0,
            savepoints: Vec::new(),
            lost_commit: None,
            lost_transaction: false,
            temporaries: Default::default(),
            planned_view: Default::default(),
            view_text: Default::default(),
        }
    }

    /// What a prepared statement's plan was made under: it is planned again when this changes
    /// (the session's grants were read again, or a temporary table came, went or was renamed,
    /// so a name may now mean another table).
    pub(crate) fn plan_epoch(&self) -> u64 {
        self.grants_epoch
            .wrapping_add(self.temporaries.changes())
            .wrapping_add(self.tables_epoch)
    }

    /// Statements run inside a transaction that outlives them.
    pub(crate) fn in_transaction(&self) -> bool {
        self.explicit || !self.autocommit
    }

    /// The data node holds a transaction of this session open.
    pub(crate) fn holds_transaction(&self) -> bool {
        self.txn.as_ref().is_some_and(|t| t.is_open())
    }

    pub fn status_flags(&self) -> u16 {
        let mut s = 0;
        if self.autocommit {
            s |= status::AUTOCOMMIT;
        }
        if self.explicit || self.holds_transaction() {
            s |= status::IN_TRANS;
        }
        if self.no_backslash_escapes() {
            s |= status::NO_BACKSLASH_ESCAPES;
        }
        s
    }

    pub fn use_database(&mut self, name: &str) -> Result<()> {
        self.need_database(name)?;
        if crate::catalog::infoschema::is_schema(name) {
            self.database = Some(crate::catalog::infoschema::NAME.into());
            return Ok(());
        }
        if name.eq_ignore_ascii_case(crate::catalog::infoschema::MYSQL)
            || name.eq_ignore_ascii_case(crate::catalog::infoschema::NDBINFO)
        {
            // The schemas of Cairn's read-only system tables (mysql.user, ndbinfo.nodes).
            self.database = Some(name.to_ascii_lowercase());
            return Ok(());
        }
        let known = self
            .shared
            .cluster()
            .databases()
            .map_err(|e| SqlError::from_client(&e))?;
        match known.into_iter().find(|d| d.eq_ignore_ascii_case(name)) {
            Some(d) => {
                self.database = Some(d);
                self.database_collation = self
                    .database(name)?
                    .map_or(base::types::Collation::Utf8mb4GeneralCi, |(_, c)| c);
                Ok(())
            }
            None => Err(SqlError::unknown_database(name)),
        }
    }

    /// The session's own data node connection, made now if it has none yet.
    pub(crate) fn data(&mut self) -> &Cluster {
        let (shared, id) = (&self.shared, self.id);
        self.data.get_or_insert_with(|| {
            Cluster::connect_timeout(&shared.config.datanode, DATA_CONNECT_TIMEOUT).unwrap_or_else(
                |e| {
                    tracing::warn!("sql session {id}: no connection of its own ({e}); sharing one");
                    shared.cluster()
                },
            )
        })
    }

    /// The session's own connection if it has one, else the shared one: for a committed read
    /// made where the session is not borrowed mutably.
    pub(crate) fn reading(&self) -> Cluster {
        self.data.clone().unwrap_or_else(|| self.shared.cluster())
    }

    /// Connects the session to the data node again when a statement found its connection lost
    /// (the data node restarted). The statement that found it failed and rolled back any open
    /// transaction with it, so nothing is lost by starting over.
    pub(crate) fn reconnect_if_lost(&mut self) {
        if !self.data.as_ref().is_some_and(Cluster::is_closed) {
            return;
        }
        match Cluster::connect_timeout(&self.shared.config.datanode, client::RECONNECT_TIMEOUT) {
            Ok(fresh) => {
                // A transaction the lost connection held open is gone (the data node rolled it
                // back): the session leaves it, and its next statement or COMMIT says so. One
                // begun (BEGIN) with nothing on the data node yet lost nothing: the session
                // stays in it. (Leaving it silently ran the client's next statements each in
                // a transaction of its own, and its DELETE and INSERT of one row met another
                // session's between them: sysbench's 1062 in the rolling-restart test.)
                if let Some(t) = self.txn.take().filter(|t| t.is_open()) {
                    tracing::debug!(
                        "sql session {}: reconnected; its transaction {:?} is lost",
                        self.id,
                        t.commit_name()
                    );
                    self.lost_transaction = true;
                    self.explicit = false;
                    self.savepoints.clear();
                }
                self.data = Some(fresh);
            }
            Err(e) => tracing::debug!("sql session {}: data node unreachable: {e}", self.id),
        }
    }

    /// Forgets the session's cached plans when a table was created, changed or dropped through
    /// this API node since they were made (by any session): a plan holds the definitions it
    /// was made with, and what the API node checks before the data node sees a request
    /// (CHECK constraints, defaults, NOT NULL) would answer from the old one. DDL through
    /// another API node is found when the data node refuses the old definition (1412).
    pub(crate) fn refresh_catalog(&mut self) {
        let now = self
            .shared
            .tables_epoch
            .load(std::sync::atomic::Ordering::Acquire);
        if now != self.tables_epoch {
            self.plans.clear();
            self.tables_epoch = now;
        }
    }

    /// Reads the session's grants again when an account statement ran since it read them
    /// (GRANT and REVOKE on databases and tables take effect at the next statement, as in
    /// MariaDB; global privileges stay as they were at login, as MariaDB keeps them), and
    /// forgets the plans checked under the old ones.
    pub(crate) fn refresh_grants(&mut self) {
        let now = self
            .shared
            .grants_epoch
            .load(std::sync::atomic::Ordering::Acquire);
        if now == self.grants_epoch {
            return;
        }
        if self.privileges & crate::catalog::privilege::ALL != crate::catalog::privilege::ALL {
            match crate::catalog::users::grants_of(
                &self.shared.cluster(),
                &self.user,
                &self.account_host,
            ) {
                Ok(grants) => self.scoped = crate::catalog::privilege::Scoped::new(grants),
                Err(e) => {
                    // Kept as they were; the next statement tries again.
                    tracing::warn!("sql session {}: reading its grants again: {e}", self.id);
                    return;
                }
            }
        }
        self.plans.clear();
        self.grants_epoch = now;
    }

    /// Whether `outcome` failed because a table's definition changed under the statement's plan
    /// (1412) and the statement may simply run again, planned anew: it ran `alone`, in a
    /// transaction of its own, which the data node aborted whole. Inside a longer transaction
    /// the client must retry the transaction, as MariaDB says. Either way the cached
    /// definitions and plans, which may all predate the change, are dropped.
    pub(crate) fn schema_changed(&mut self, outcome: &Outcome, alone: bool) -> bool {
        if !matches!(outcome, Outcome::Failed(e) if e.code == 1412) {
            return false;
        }
        self.shared.cluster().forget_tables();
        self.plans.clear();
        // Other sessions' plans predate the change too.
        self.shared.tables_changed();
        alone
    }

    /// Plans a statement (SELECT, UPDATE, DELETE, INSERT) or keeps it to run as it is.
    pub(crate) fn compile(
        &self,
        s: Statement,
        sql: &str,
        placeholders: &[Location],
    ) -> Result<Compiled> {
        crate::session::schema_rows::refuse_writes(self, &s)?;
        self.check_statement(&s)?;
        match &s {
            Statement::CreateView(sqlparser::ast::CreateView { name, .. })
            | Statement::AlterView { name, .. } => {
                // Its tables are named as at its creation: in the current database (MariaDB's).
                let text = match &self.database {
                    Some(db) => views::view_query_text(sql, name, db),
                    None => Err(SqlError::no_database()),
                };
                *self.view_text.borrow_mut() = Some(text);
            }
            _ => {
                if let Some(e) = self.expand_views(&s, sql)? {
                    return self
                        .compile(e.statement, &e.sql, &e.placeholders)
                        .map_err(|err| self.expanded_error(err, &s, &e.views));
                }
            }
        }
        let input = PlanInput::new(sql, placeholders);
        let resolve = |name: &ObjectName| -> Result<(client::Table, TableRef)> {
            let (table, db, name) = self.table(name)?;
            Ok((table, (db, name.clone(), name)))
        };
        // CREATE TABLE ... SELECT plans its SELECT when it runs (the statement text names its
        // columns), so it is kept whole, subqueries and all.
        let creates_from_select = matches!(&s, Statement::CreateTable(c) if c.query.is_some());
        // EXPLAIN plans its statement's subqueries itself (never runs them): not deferred.
        let explains = matches!(&s, Statement::Explain { .. });
        if creates_from_select || (!explains && crate::exec::subquery::has_subquery(&s)) {
            return Ok(Compiled::Deferred(Box::new(Deferred {
                statement: s,
                sql: sql.to_string(),
                placeholders: placeholders.to_vec(),
            })));
        }
        Ok(match &s {
            Statement::Query(q) => match plan::query(&input, q, &resolve)? {
                plan::QueryPlan::Select(p) => Compiled::Select(p),
                plan::QueryPlan::Set(p) => Compiled::Set(p),
            },
            Statement::Update(u) if crate::exec::write::is_multi_update(u) => {
                Compiled::Multi(Box::new(crate::exec::write::update(&input, u, &resolve)?))
            }
            Statement::Delete(d) if crate::exec::write::is_multi_delete(d) => {
                Compiled::Multi(Box::new(crate::exec::write::delete(&input, d, &resolve)?))
            }
            Statement::Update(u) => Compiled::Update(plan::update(&input, u, &resolve)?),
            Statement::Delete(d) => Compiled::Delete(plan::delete(&input, d, &resolve)?),
            Statement::Insert(i) => {
                Compiled::Insert(crate::plan::insert::insert_plan(&input, i, &resolve)?)
            }
            // A CALL's `?`s are bound into its text at each execution (commands/routines.rs).
            Statement::Call(_) => Compiled::Other(Box::new(s)),
            _ if !placeholders.is_empty() => {
                return Err(SqlError::new(
                    1295,
                    "HY000",
                    "This command is not supported in the prepared statement protocol yet",
                ))
            }
            _ => Compiled::Other(Box::new(s)),
        })
    }

    /// Database `db` as created, with its default collation (None when there is no such
    /// database).
    pub(crate) fn database(&self, db: &str) -> Result<Option<(String, base::types::Collation)>> {
        Ok(self
            .shared
            .cluster()
            .database_collations()
            .map_err(|e| SqlError::from_client(&e))?
            .into_iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(db)))
    }

    /// The catalog name of `db.table` (or `table` in the current database): the hidden name of
    /// the session's temporary table of that name when it has one, which shadows the table.
    pub(crate) fn table_name(&self, name: &ObjectName) -> Result<(String, String, String)> {
        let (full, db, table) = self.permanent_table_name(name)?;
        match self.temporaries.get(&db, &table) {
            Some(t) => Ok((t.hidden.clone(), db, table)),
            None => Ok((full, db, table)),
        }
    }

    /// The catalog name of the table `db.table` (or `table` in the current database), whatever
    /// temporary table of the session shadows it.
    pub(crate) fn permanent_table_name(
        &self,
        name: &ObjectName,
    ) -> Result<(String, String, String)> {
        let (db, table) = ident(name)?;
        let db = match db.or_else(|| self.database.clone()) {
            Some(d) => d,
            None => return Err(SqlError::no_database()),
        };
        Ok((format!("{db}/{table}"), db, table))
    }

    pub(crate) fn table(&self, name: &ObjectName) -> Result<(client::Table, String, String)> {
        let (full, db, table) = self.table_name(name)?;
        if crate::catalog::infoschema::is_schema(&db) {
            let t = crate::catalog::infoschema::table(&table)
                .ok_or_else(|| crate::catalog::infoschema::no_table(&table))?;
            return Ok((t, db, table));
        }
        if db.eq_ignore_ascii_case(crate::catalog::infoschema::NDBINFO) {
            if let Some(t) = crate::catalog::infoschema::ndbinfo_table(&table) {
                return Ok((t, db, table));
            }
        }
        if db.eq_ignore_ascii_case(crate::catalog::infoschema::MYSQL) {
            if let Some(t) = crate::catalog::infoschema::mysql_table(&table) {
                return Ok((t, db, table));
            }
        }
        match self.shared.cluster().table(&full) {
            Ok(t) => Ok((t, db, table)),
            Err(e) if e.code() == base::ErrorCode::NoSuchTable => {
                Err(SqlError::no_table(&db, &table))
            }
            Err(e) => Err(SqlError::from_client(&e)),
        }
    }

    /// Which foreign keys reference each table (`Shared::referencing`).
    pub(crate) fn referencing(
        &self,
    ) -> Result<std::sync::Arc<crate::catalog::foreign::Referencing>> {
        self.shared.referencing()
    }

    pub(crate) fn table_error(&self, e: client::ClientError, table: &str) -> SqlError {
        if e.code() == base::ErrorCode::NoSuchTable {
            SqlError::no_table(self.database.as_deref().unwrap_or_default(), table)
        } else {
            SqlError::from_client(&e)
        }
    }

    /// Runs `work` in the session's transaction, or in one of its own that commits with the
    /// statement's last batch (`work` is told which exec type its last batch takes). Inside
    /// the session's transaction, a failure undoes the statement's changes and the transaction
    /// goes on; when the data node aborted the whole transaction (a changed definition, a lost
    /// connection), or the failure is the retry class (1213), the session leaves it.
    pub(crate) fn transactional<R>(
        &mut self,
        work: impl FnOnce(&mut Session, &mut Transaction, ExecType) -> Result<R>,
    ) -> Result<R> {
        let mut txn = match self.txn.take() {
            Some(txn) => txn,
            None => self.data().transaction(),
        };
        let was_open = txn.is_open();
        let keep = self.in_transaction();
        if keep {
            // A failure undoes this statement alone, as InnoDB rolls back a failed statement.
            txn.begin_statement();
        }
        let last = if keep {
            ExecType::NoCommit
        } else {
            ExecType::Commit
        };
        let mut result = work(self, &mut txn, last);
        if !keep && txn.has_executed() {
            if let Err(e) = &result {
                if e.rolled_back_by_lost_connection().is_some() {
                    self.lost_commit = Some(txn.commit_name());
                }
            }
        }
        if keep {
            // A statement of a longer transaction commits nothing: a lost connection rolled
            // the transaction back, which the client hears as the retry class.
            if let Err(e) = &result {
                if let Some(rolled_back) = e.rolled_back_by_lost_connection() {
                    result = Err(rolled_back);
                }
            }
        }
        if let (true, Err(e)) = (keep, &result) {
            tracing::debug!(
                "sql session {}: a statement of transaction {:?} failed ({}; open on the data node: {})",
                self.id,
                txn.commit_name(),
                e,
                txn.is_open()
            );
        }
        match &result {
            Ok(_) => {
                if keep {
                    self.txn = Some(txn);
                } else if txn.is_open() {
                    txn.commit().map_err(|e| SqlError::from_client(&e))?;
                }
            }
            Err(e) if keep && e.code == 1213 => {
                // The retry class (a deadlock, a failover, a stopping data node): as in MySQL,
                // the whole transaction is rolled back and the session is out of it. Kept open,
                // the client's retry from BEGIN would commit what ran before the failure
                // (BEGIN commits a transaction in progress): half a transaction.
                self.leave_transaction(Some(txn));
            }
            Err(_) => {
                if keep && txn.is_open() {
                    // The data node undid the statement's changes, or the statement failed in
                    // the API node: what it sent is undone (nothing when the data node did it).
                    match txn.undo_statement() {
                        Ok(()) => self.txn = Some(txn),
                        Err(e) => {
                            tracing::debug!("sql session {}: undoing a statement: {e}", self.id);
                            self.explicit = false;
                            self.savepoints.clear();
                        }
                    }
                } else if was_open || txn.has_executed() {
                    // The data node rolled the transaction back.
                    self.explicit = false;
                    self.savepoints.clear();
                } else if keep {
                    // It failed before reaching the data node: the transaction is still the
                    // session's, as its savepoints are (and what they keep).
                    self.txn = Some(txn);
                }
            }
        }
        result
    }

    /// Where savepoint `name` of the open transaction is (1305 when it has none of that name).
    pub(crate) fn savepoint(&self, name: &str) -> Result<usize> {
        let none = || SqlError::new(1305, "42000", format!("SAVEPOINT {name} does not exist"));
        if !self.in_transaction() {
            return Err(none());
        }
        self.savepoints
            .iter()
            .rposition(|s| s.name.eq_ignore_ascii_case(name))
            .ok_or_else(none)
    }

    /// Has the session's transaction keep what undoes every statement since its oldest
    /// savepoint (only the latest statement's without one).
    pub(crate) fn keep_savepoints_undo(&mut self) {
        let from = self.savepoints.first().map_or(0, |s| s.statement);
        if let Some(txn) = self.txn.as_mut() {
            txn.keep_undo_from(from);
        }
    }

    pub(crate) fn end_transaction(&mut self, commit: bool) -> Result<()> {
        self.explicit = false;
        self.savepoints.clear();
        let Some(txn) = self.txn.take() else {
            return Ok(());
        };
        // A transaction that never reached the data node, or that the data node already
        // ended, holds nothing to commit or roll back.
        if !txn.is_open() {
            return Ok(());
        }
        let name = txn.commit_name();
        let r = if commit { txn.commit() } else { txn.rollback() };
        match r {
            // A rollback whose connection is gone is done: the data node aborts what a closed
            // connection left open.
            Err(client::ClientError::ConnectionLost(_)) if !commit => Ok(()),
            // A commit whose connection is gone: the cluster is asked how it ended.
            Err(e @ client::ClientError::ConnectionLost(_)) => match self.commit_outcome(name) {
                Some(true) => Ok(()),
                Some(false) => Err(rolled_back_in_failover(&e)),
                None => Err(SqlError::from_client(&e)),
            },
            r => r.map_err(|e| SqlError::from_client(&e)),
        }
    }
}
