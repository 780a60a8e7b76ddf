//! What the SQL server is doing: its status counters (server-wide, and each session's own) for
//! SHOW STATUS, and the registry of live sessions for SHOW PROCESSLIST. A session publishes its
//! command, database and statement text when a command starts and ends; readers copy the
//! registry under its lock and never wait for a session.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use base::Value;
use myproto::response::{types, Column};

use crate::exec::diagnostics::Kind;
use crate::foundation::error::SqlError;
use crate::session::shared::Shared;
use crate::session::{Outcome, Session};

/// Characters of a statement SHOW PROCESSLIST shows without FULL (MariaDB's 100).
pub const INFO_CHARS_MAX: usize = 100;
/// Bytes of a statement's text the registry keeps.
pub const INFO_BYTES_MAX: usize = 64 << 10;

/// Statement counters, server-wide.
#[derive(Default)]
struct Counters {
    questions: AtomicU64,
    select: AtomicU64,
    insert: AtomicU64,
    update: AtomicU64,
    delete: AtomicU64,
    /// SELECTs whose results were streamed (`exec/stream.rs`).
    streamed: AtomicU64,
}

/// One session as SHOW PROCESSLIST lists it, and the way to stop it (KILL).
#[derive(Clone)]
struct Process {
    user: String,
    host: String,
    database: Option<String>,
    command: &'static str,
    since: Instant,
    info: Option<String>,
    interrupt: Arc<Interrupt>,
}

/// No kill asked.
const RUNNING: u8 = 0;
/// KILL QUERY: the running statement stops (1317); the connection goes on.
const KILLED_QUERY: u8 = 1;
/// KILL [CONNECTION]: the running statement stops and the connection is closed.
const KILLED_CONNECTION: u8 = 2;

/// How a session's running statement is stopped from outside: a KILL from another session, or
/// its client going away. A statement looks while it waits (SLEEP, GET_LOCK), a tenth of a
/// second at a time, so it stops within that of either.
#[derive(Default)]
pub(crate) struct Interrupt {
    state: std::sync::atomic::AtomicU8,
    /// The client's socket: to see that it went away, and for KILL CONNECTION to close it.
    client: Mutex<Option<transport::Stream>>,
    /// The running statement has a time limit (`deadline` holds it): looked at without a lock.
    limited: std::sync::atomic::AtomicBool,
    /// When the running statement must stop, and the error it then answers.
    deadline: Mutex<Option<(Instant, SqlError)>>,
}

impl Interrupt {
    pub fn set_client(&self, client: transport::Stream) {
        if let Ok(mut c) = self.client.lock() {
            *c = Some(client);
        }
    }

    /// KILL QUERY (`connection` false) or KILL CONNECTION: the latter also closes the client's
    /// socket, which ends an idle connection at once and a busy one when its statement stops.
    pub fn kill(&self, connection: bool) {
        if connection {
            self.state.store(KILLED_CONNECTION, Ordering::SeqCst);
            if let Ok(c) = self.client.lock() {
                if let Some(c) = c.as_ref() {
                    c.shutdown();
                }
            }
        } else {
            let _ = self.state.compare_exchange(
                RUNNING,
                KILLED_QUERY,
                Ordering::SeqCst,
                Ordering::SeqCst,
            );
        }
    }

    /// Gives the statement now starting a time limit (None: none), and the error it answers
    /// past it: max_statement_time's 1969 or max_execution_time's 3024.
    pub fn limit(&self, limit: Option<(std::time::Duration, SqlError)>) {
        let deadline = limit.map(|(after, e)| (Instant::now() + after, e));
        self.limited.store(deadline.is_some(), Ordering::SeqCst);
        if let Ok(mut d) = self.deadline.lock() {
            *d = deadline;
        }
    }

    fn past_deadline(&self) -> Result<(), SqlError> {
        if !self.limited.load(Ordering::Relaxed) {
            return Ok(());
        }
        match self.deadline.lock().ok().and_then(|d| d.clone()) {
            Some((at, e)) if Instant::now() >= at => Err(e),
            _ => Ok(()),
        }
    }

    /// KILL of the session's own connection: ended once its answer is written (closing the
    /// socket now would lose the answer).
    pub fn kill_self(&self) {
        self.state.store(KILLED_CONNECTION, Ordering::SeqCst);
    }

    /// Whether a KILL CONNECTION ended this session.
    pub fn connection_killed(&self) -> bool {
        self.state.load(Ordering::SeqCst) == KILLED_CONNECTION
    }

    /// A statement starts: a KILL QUERY that came between statements stopped nothing, as in
    /// MariaDB, and is forgotten.
    pub fn statement_starts(&self) {
        let _ =
            self.state
                .compare_exchange(KILLED_QUERY, RUNNING, Ordering::SeqCst, Ordering::SeqCst);
    }

    /// Whether a KILL stops the running statement: an atomic load, cheap enough for every
    /// batch of rows a statement reads (`check` also looks at the client's socket).
    pub fn check_killed(&self) -> Result<(), SqlError> {
        match self.state.load(Ordering::Relaxed) {
            RUNNING => self.past_deadline(),
            _ => self.check(),
        }
    }

    /// Whether the running statement must stop: KILL, or the client is gone.
    pub fn check(&self) -> Result<(), SqlError> {
        match self.state.load(Ordering::SeqCst) {
            KILLED_QUERY => Err(SqlError::new(
                1317,
                "70100",
                "Query execution was interrupted",
            )),
            KILLED_CONNECTION => Err(SqlError::new(1927, "70100", "Connection was killed")),
            _ => {
                self.past_deadline()?;
                let gone = self
                    .client
                    .lock()
                    .map(|c| c.as_ref().is_some_and(transport::Stream::peer_closed))
                    .unwrap_or(false);
                if gone {
                    Err(SqlError::new(
                        1927,
                        "70100",
                        "Connection was killed: the client went away",
                    ))
                } else {
                    Ok(())
                }
            }
        }
    }
}

/// The server's side: counters, start time and the registry of live sessions.
pub(crate) struct ServerActivity {
    started: Instant,
    counters: Counters,
    sessions: Mutex<BTreeMap<u32, Arc<Mutex<Process>>>>,
}

impl Default for ServerActivity {
    fn default() -> Self {
        ServerActivity {
            started: Instant::now(),
            counters: Counters::default(),
            sessions: Mutex::new(BTreeMap::new()),
        }
    }
}

/// A session's side: its own counters and its entry in the registry (removed on drop).
pub(crate) struct SessionActivity {
    id: u32,
    shared: Arc<Shared>,
    process: Arc<Mutex<Process>>,
    /// How KILL or the client's going away stops this session's statement.
    pub interrupt: Arc<Interrupt>,
    questions: u64,
    select: u64,
    insert: u64,
    update: u64,
    delete: u64,
    streamed: u64,
}

impl SessionActivity {
    /// Registers session `id` (replacing an entry of the same id, as after
    /// COM_RESET_CONNECTION).
    pub(crate) fn new(shared: &Arc<Shared>, id: u32) -> SessionActivity {
        let interrupt = Arc::new(Interrupt::default());
        let process = Arc::new(Mutex::new(Process {
            user: "unauthenticated user".into(),
            host: String::new(),
            database: None,
            command: "Connect",
            since: Instant::now(),
            info: None,
            interrupt: interrupt.clone(),
        }));
        if let Ok(mut sessions) = shared.activity.sessions.lock() {
            sessions.insert(id, process.clone());
        }
        SessionActivity {
            id,
            shared: shared.clone(),
            process,
            interrupt,
            questions: 0,
            select: 0,
            insert: 0,
            update: 0,
            delete: 0,
            streamed: 0,
        }
    }

    /// Counts a SELECT whose result is streamed (`Cairn_streamed_results`).
    pub(crate) fn streamed(&mut self, shared: &Shared) {
        self.streamed += 1;
        shared
            .activity
            .counters
            .streamed
            .fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a statement of `kind` in the Com_ counters.
    pub(crate) fn count(&mut self, shared: &Shared, kind: Kind) {
        let (mine, all) = match kind {
            Kind::Select { .. } => (&mut self.select, &shared.activity.counters.select),
            Kind::Insert => (&mut self.insert, &shared.activity.counters.insert),
            Kind::Update => (&mut self.update, &shared.activity.counters.update),
            Kind::Delete => (&mut self.delete, &shared.activity.counters.delete),
            Kind::Other { .. } | Kind::Diagnostic => return,
        };
        *mine += 1;
        all.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a statement answered (Questions).
    pub(crate) fn question(&mut self, shared: &Shared) {
        self.questions += 1;
        shared
            .activity
            .counters
            .questions
            .fetch_add(1, Ordering::Relaxed);
    }

    /// Sets the client's address as SHOW PROCESSLIST shows it.
    pub(crate) fn set_host(&self, host: &str) {
        if let Ok(mut p) = self.process.lock() {
            p.host = host.to_string();
        }
    }
}

impl Drop for SessionActivity {
    fn drop(&mut self) {
        if let Ok(mut sessions) = self.shared.activity.sessions.lock() {
            // Only this session's own entry: a session made anew under the same id (after
            // COM_RESET_CONNECTION) registered its own first.
            if sessions
                .get(&self.id)
                .is_some_and(|p| Arc::ptr_eq(p, &self.process))
            {
                sessions.remove(&self.id);
            }
        }
    }
}

impl Session {
    /// Command `cmd` (with `body`) starts: a KILL QUERY that came between commands is
    /// forgotten, the statement's time limit is set, and the process list shows it (the head
    /// of its text for a query or a prepare). `publish("Sleep", None)` when it ends.
    pub(crate) fn command_starts(&mut self, cmd: u8, body: &[u8]) {
        use myproto::command;
        self.activity.interrupt.statement_starts();
        let limit = self.statement_time_limit(cmd, body);
        self.activity.interrupt.limit(limit);
        // The process list keeps the text's head only: only that much is decoded (a few bytes
        // over, so the last character is whole).
        let head = &body[..body.len().min(INFO_BYTES_MAX + 4)];
        let (name, info) = match cmd {
            command::QUERY => ("Query", Some(self.charsets.decode(head))),
            command::STMT_EXECUTE => ("Execute", None),
            command::STMT_PREPARE => ("Prepare", Some(self.charsets.decode(head))),
            command::FIELD_LIST => ("Field List", None),
            command::INIT_DB => ("Init DB", None),
            _ => ("Query", None),
        };
        self.publish(name, info.as_deref());
    }

    /// Publishes what the session does now: `command` (MySQL's names: Query, Execute, Sleep,
    /// ...) and the statement text, if any.
    pub(crate) fn publish(&self, command: &'static str, info: Option<&str>) {
        if let Ok(mut p) = self.activity.process.lock() {
            if !self.user.is_empty() {
                p.user.clone_from(&self.user);
            }
            p.database.clone_from(&self.database);
            p.command = command;
            p.since = Instant::now();
            p.info = info.map(|i| {
                if carries_password(i) {
                    // Another session's SHOW PROCESSLIST must not see it.
                    return "<statement with a password hidden>".to_string();
                }
                let mut end = i.len().min(INFO_BYTES_MAX);
                while !i.is_char_boundary(end) {
                    end -= 1;
                }
                i[..end].to_string()
            });
        }
    }

    /// KILL [CONNECTION | QUERY] id: stops session `id`'s running statement (1317 there), and
    /// for CONNECTION closes it too, its transaction rolled back and its locks freed. Another
    /// account's session needs SUPER (MariaDB's 1095 without); an unknown id is 1094.
    pub(crate) fn kill(&self, id: u64, connection: bool) -> Result<Outcome, SqlError> {
        let unknown = || SqlError::new(1094, "HY000", format!("Unknown thread id: {id}"));
        let target = u32::try_from(id).map_err(|_| unknown())?;
        let process = self
            .shared
            .activity
            .sessions
            .lock()
            .ok()
            .and_then(|s| s.get(&target).cloned())
            .ok_or_else(unknown)?;
        let (user, interrupt) = match process.lock() {
            Ok(p) => (p.user.clone(), p.interrupt.clone()),
            Err(_) => return Err(unknown()),
        };
        if user != self.user && !self.holds(crate::catalog::privilege::SUPER) {
            return Err(SqlError::new(
                1095,
                "HY000",
                format!("You are not owner of thread {id}"),
            ));
        }
        if target == self.id && connection {
            // The session killed itself: MariaDB answers it with 1927, then closes it.
            interrupt.kill_self();
            return Err(SqlError::new(1927, "70100", "Connection was killed"));
        }
        interrupt.kill(connection);
        Ok(crate::session::done(0))
    }

    /// SHOW [FULL] PROCESSLIST: Id, User, Host, db, Command, Time, State, Info, Progress.
    pub(crate) fn process_list(&self, full: bool) -> Outcome {
        // Without the PROCESS privilege a session sees its account's own sessions only, as in
        // MariaDB: another user's statement text is not for it.
        let everyone = self.holds(crate::catalog::privilege::PROCESS);
        let sessions: Vec<(u32, Process)> = match self.shared.activity.sessions.lock() {
            Ok(s) => s
                .iter()
                .filter_map(|(id, p)| p.lock().ok().map(|p| (*id, p.clone())))
                .filter(|(_, p)| everyone || p.user == self.user)
                .collect(),
            Err(_) => Vec::new(),
        };
        let text = |s: &str| Value::Bytes(s.as_bytes().to_vec());
        let rows = sessions
            .into_iter()
            .map(|(id, p)| {
                let running = p.command != "Sleep";
                let info = p.info.as_deref().map(|i| {
                    if full {
                        text(i)
                    } else {
                        text(&i.chars().take(INFO_CHARS_MAX).collect::<String>())
                    }
                });
                vec![
                    Value::UInt(id as u64),
                    text(&p.user),
                    text(&p.host),
                    p.database.as_deref().map(text).unwrap_or(Value::Null),
                    text(p.command),
                    Value::UInt(p.since.elapsed().as_secs()),
                    text(if running { "executing" } else { "" }),
                    info.unwrap_or(Value::Null),
                    Value::Bytes(b"0.000".to_vec()),
                ]
            })
            .collect();
        let string =
            |name: &str, chars: u32| Column::computed(name, types::VAR_STRING, chars * 4, 0);
        Outcome::Rows {
            columns: vec![
                Column::computed("Id", types::LONGLONG, 21, 0),
                string("User", 128),
                string("Host", 64),
                string("db", 64),
                string("Command", 16),
                Column::computed("Time", types::LONG, 7, 0),
                string("State", 64),
                string("Info", if full { 65_535 } else { 100 }),
                Column::computed("Progress", types::NEWDECIMAL, 9, 3),
            ],
            rows,
        }
    }
}

/// SHOW STATUS's variables as (name, value), in name order: this session's counters, or the
/// server's for `global`; server-wide values (Uptime, Threads_connected) in both.
pub(crate) fn status(session: &Session, global: bool) -> Vec<(String, String)> {
    let a = &session.shared.activity;
    let c = &a.counters;
    let me = &session.activity;
    let pick = |mine: u64, all: &AtomicU64| {
        if global {
            all.load(Ordering::Relaxed)
        } else {
            mine
        }
    };
    let questions = pick(me.questions, &c.questions);
    let list = [
        ("Cairn_streamed_results", pick(me.streamed, &c.streamed)),
        ("Com_delete", pick(me.delete, &c.delete)),
        ("Com_insert", pick(me.insert, &c.insert)),
        ("Com_select", pick(me.select, &c.select)),
        ("Com_update", pick(me.update, &c.update)),
        (
            "Connections",
            session
                .shared
                .next_id
                .load(Ordering::Relaxed)
                .saturating_sub(1) as u64,
        ),
        ("Queries", questions),
        ("Questions", questions),
        (
            "Threads_connected",
            session.shared.connections.load(Ordering::Relaxed) as u64,
        ),
        ("Uptime", a.started.elapsed().as_secs()),
    ];
    list.iter()
        .map(|(name, v)| (name.to_string(), v.to_string()))
        .collect()
}

/// COM_STATISTICS's line, from the same counters.
pub(crate) fn statistics_line(session: &Session) -> String {
    let a = &session.shared.activity;
    let uptime = a.started.elapsed().as_secs();
    let questions = a.counters.questions.load(Ordering::Relaxed);
    format!(
        "Uptime: {uptime}  Threads: {}  Questions: {questions}  Slow queries: 0  Opens: 0  Open tables: 0  Queries per second avg: {:.3}",
        session.shared.connections.load(Ordering::Relaxed),
        questions as f64 / uptime.max(1) as f64
    )
}

/// Whether a statement's text may hold a password (CREATE/ALTER USER, SET PASSWORD, GRANT ...
/// IDENTIFIED BY): such text is not published for SHOW PROCESSLIST. Every statement that
/// carries one names IDENTIFIED or PASSWORD, so a text naming either anywhere (after comments
/// or spaces that would hide its first words) is held back: a harmless one now and then is the
/// price of never showing a secret.
fn carries_password(text: &str) -> bool {
    crate::parse::mentions(text, "identified") || crate::parse::mentions(text, "password")
}

#[cfg(test)]
mod tests {
    use super::carries_password;

    #[test]
    fn a_text_naming_a_password_is_held_back_however_it_begins() {
        for text in [
            "CREATE USER u IDENTIFIED BY 'secret'",
            "create /* a comment */ user u identified by 'secret'",
            "CREATE            \n\n          USER u IDENTIFIED BY 'secret'",
            "ALTER USER u IDENTIFIED VIA mysql_native_password USING PASSWORD('secret')",
            "SET PASSWORD FOR u = PASSWORD('secret')",
            "GRANT ALL ON *.* TO u IDENTIFIED BY 'secret'",
        ] {
            assert!(carries_password(text), "{text}");
        }
        assert!(!carries_password("SELECT 1"));
        assert!(!carries_password("INSERT INTO t VALUES ('x')"));
    }
}
