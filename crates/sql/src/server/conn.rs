//! One client connection and its thread: the connection phase (handshake, authentication, auth
//! switch), then the command phase, each command answered with OK, ERR or result sets. Between
//! commands the connection is parked in the reactor (`server/reactor.rs`), which serves the simple reads
//! itself and hands anything else back to this thread. A malformed or oversized packet closes
//! only this connection.

use std::io::{BufReader, Read};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use transport::Stream;

use base::Value;
use myproto::auth;
use myproto::binary::{self};
use myproto::handshake::{self, cap, status, HandshakeResponse, SCRAMBLE_BYTES};
use myproto::packet::{PacketReader, PacketWriter};
use myproto::response::{self, Column};
use myproto::{command, ProtoError};
use tracing::{debug, warn};

use crate::catalog::privilege;
use crate::catalog::users::{self, Peer, Plugin};
use crate::dispatch::unknown_statement;
use crate::exec::Streaming;
use crate::foundation::error::SqlError;
use crate::foundation::limits::CONNECT_TIMEOUT;
use crate::foundation::limits::NET_WRITE_TIMEOUT;
use crate::foundation::limits::SERVER_VERSION;
use crate::foundation::limits::WAIT_TIMEOUT;
use crate::server::reactor::Parked;
use crate::server::values::{binary_row, encode_column, param_values, put_text_value};
use crate::server::Server;
use crate::session::shared::Shared;
use crate::session::{Outcome, Session};

/// Runs one connection to its end.
pub(crate) fn serve(mut stream: Stream, server: Arc<Server>, id: u32) {
    let shared = &server.shared;
    let _ = stream.set_nodelay();
    let peer = match stream.peer_addr() {
        Some(a) => a.to_string(),
        None => "localhost".to_string(),
    };
    // MySQL's connect_timeout for the connection phase; `run` sets wait_timeout after it.
    let _ = stream.set_read_timeout(Some(CONNECT_TIMEOUT));
    let open = shared.connections.fetch_add(1, Ordering::SeqCst) + 1;
    let write = match stream.try_clone() {
        Ok(write) => write,
        Err(e) => {
            shared.connections.fetch_sub(1, Ordering::SeqCst);
            warn!(id, %peer, "sql connection closed: {e}");
            return;
        }
    };
    let inbound = Inbound {
        pending: Vec::new(),
        at: 0,
        stream,
        tls: None,
    };
    // Counted in `Shared::connections` from here until the connection is dropped.
    let mut conn = Box::new(Conn {
        reader: PacketReader::new(BufReader::new(inbound), shared.config.max_packet),
        write,
        out: PacketWriter::default(),
        capabilities: 0,
        secure: false,
        tls: None,
        session: Session::new(shared.clone(), id),
        server: server.clone(),
    });
    conn.session.activity.set_host(&peer);
    if let Ok(client) = conn.write.try_clone() {
        conn.session.activity.interrupt.set_client(client);
    }
    let result = if open > shared.config.max_connections {
        conn.refuse()
    } else {
        conn.run()
    };
    ended(id, result);
}

/// Logs how a connection's work on a thread ended (a parked connection's is not over).
fn ended(id: u32, result: Result<(), ProtoError>) {
    match result {
        Ok(()) => {}
        Err(ProtoError::Io(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => {}
        Err(e) => warn!(id, "sql connection closed: {e}"),
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        debug!(id = self.session.id, "sql connection closed");
        self.session
            .shared
            .connections
            .fetch_sub(1, Ordering::SeqCst);
    }
}

/// Serves a connection the reactor handed back (a command it does not run itself) on a thread of
/// the cache; the connection is closed if no thread can be had.
/// `parking` false keeps it on that thread (the reactor could not take it).
pub(crate) fn resume_on_a_thread(mut conn: Box<Conn>, parking: bool) {
    let threads = conn.server.threads.clone();
    let id = conn.session.id;
    let job = move || {
        // The reactor's copy of the socket made it non-blocking (one file description). A
        // parked connection comes back for a command it began: the rest of it must come within
        // net_read_timeout.
        let idle = if parking {
            conn.session.net_read_timeout()
        } else {
            conn.session.wait_timeout()
        };
        let result = match conn
            .write
            .set_nonblocking(false)
            .and_then(|()| conn.write.set_read_timeout(Some(idle)))
        {
            Ok(()) => conn.serve_commands(parking),
            Err(e) => Err(ProtoError::Io(e)),
        };
        ended(id, result);
    };
    if let Err(e) = threads.run(Box::new(job)) {
        warn!(
            id,
            "sql: no thread to serve a connection's command ({e}); closing it"
        );
    }
}

pub(crate) struct Conn {
    reader: PacketReader<BufReader<Inbound>>,
    write: Stream,
    pub(crate) out: PacketWriter,
    capabilities: u32,
    /// The connection runs over TLS.
    secure: bool,
    /// The TLS stream, once the client asked for TLS (writes go through it).
    tls: Option<crate::server::tls::Shared>,
    pub(crate) session: Session,
    /// The server's reactor, TLS configuration, login throttling and threads.
    server: Arc<Server>,
}

/// The client socket, read after the bytes the reactor had already read from it; through TLS
/// once the connection is upgraded.
struct Inbound {
    pending: Vec<u8>,
    at: usize,
    stream: Stream,
    tls: Option<crate::server::tls::Shared>,
}

impl Read for Inbound {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.at < self.pending.len() {
            let n = buf.len().min(self.pending.len() - self.at);
            buf[..n].copy_from_slice(&self.pending[self.at..self.at + n]);
            self.at += n;
            if self.at == self.pending.len() {
                self.pending = Vec::new();
                self.at = 0;
            }
            return Ok(n);
        }
        match &self.tls {
            Some(tls) => crate::server::tls::read(tls, buf),
            None => self.stream.read(buf),
        }
    }
}

/// Random printable bytes for the authentication scramble; an error when the operating system
/// has no random bytes to give (the login is refused, never run on a guessable scramble).
fn scramble() -> Result<[u8; SCRAMBLE_BYTES], SqlError> {
    Ok(crate::foundation::random::random::<SCRAMBLE_BYTES>()?.map(|b| 33 + b % 94))
}

impl Conn {
    /// The client socket.
    pub(crate) fn stream(&self) -> &Stream {
        &self.write
    }

    pub(crate) fn max_packet(&self) -> usize {
        self.session.shared.config.max_packet
    }

    /// Input read from the socket and not yet run.
    fn buffered(&self) -> bool {
        let buffer = self.reader.get_ref();
        !buffer.buffer().is_empty() || buffer.get_ref().at < buffer.get_ref().pending.len()
    }

    /// Takes the connection back from the reactor: the answers it had not written yet (written
    /// first), and the input it had read and not run.
    pub(crate) fn resume(&mut self, unwritten: Vec<u8>, input: Vec<u8>) {
        self.out.raw(&unwritten);
        let inbound = self.reader.get_mut().get_mut();
        inbound.pending = input;
        inbound.at = 0;
    }

    fn flush(&mut self) -> Result<(), ProtoError> {
        match &self.tls {
            Some(tls) => self.out.flush_to(&mut crate::server::tls::Writer(tls)),
            None => self.out.flush_to(&mut self.write),
        }
        .map_err(ProtoError::Io)
    }

    fn error(&mut self, e: &SqlError) {
        let p = self.out.begin();
        // MariaDB sends the message in character_set_results, cut to 512 bytes first on a
        // character's boundary (encoding it never makes it longer).
        let mut end = e.message.len().min(512);
        while !e.message.is_char_boundary(end) {
            end -= 1;
        }
        let message = self.session.charsets.encode(&e.message.as_bytes()[..end]);
        response::err_bytes(p, e.code, &e.state, &message);
        self.out.finish();
    }

    fn status(&self) -> u16 {
        self.session.status_flags()
    }

    pub(crate) fn ok(&mut self, affected: u64, last_insert_id: u64, more: bool) {
        self.ok_info(affected, last_insert_id, more, "", 0);
    }

    fn ok_info(
        &mut self,
        affected: u64,
        last_insert_id: u64,
        more: bool,
        info: &str,
        warnings: u16,
    ) {
        let mut status = self.status();
        if more {
            status |= status::MORE_RESULTS_EXISTS;
        }
        let p = self.out.begin();
        response::ok(p, 0, affected, last_insert_id, status, warnings, info);
        self.out.finish();
    }

    /// COM_STMT_PREPARE: the statement id, then parameter and column definitions.
    fn prepare(&mut self, sql: &str) {
        let id = match self.session.prepare(sql) {
            Ok(id) => id,
            Err(e) => return self.error(&e),
        };
        let prepared = &self.session.statements[&id];
        let params = prepared.params;
        let columns = prepared.columns.clone();
        binary::prepare_ok(self.out.begin(), id, columns.len() as u16, params as u16, 0);
        self.out.finish();
        let deprecate_eof = self.capabilities & cap::DEPRECATE_EOF != 0;
        if params > 0 {
            let param = Column::computed("?", response::types::VAR_STRING, 0, 0);
            for _ in 0..params {
                param.encode(self.out.begin());
                self.out.finish();
            }
            if !deprecate_eof {
                let status = self.status();
                response::eof(self.out.begin(), status, 0);
                self.out.finish();
            }
        }
        if !columns.is_empty() {
            for c in &columns {
                c.encode(self.out.begin());
                self.out.finish();
            }
            if !deprecate_eof {
                let status = self.status();
                response::eof(self.out.begin(), status, 0);
                self.out.finish();
            }
        }
    }

    /// COM_STMT_SEND_LONG_DATA: appends to a parameter's value.
    fn long_data(&mut self, body: &[u8]) -> Result<(), ProtoError> {
        let mut d = myproto::codec::Decoder::new(body, "COM_STMT_SEND_LONG_DATA");
        let id = d.u32()?;
        let param = d.u16()? as usize;
        let data = d.rest();
        if let Some(p) = self.session.statements.get_mut(&id) {
            if param < p.params {
                p.long_data.resize(p.params, None);
                let slot = p.long_data[param].get_or_insert_with(Vec::new);
                if slot.len() + data.len() <= self.session.shared.config.max_packet {
                    slot.extend_from_slice(data);
                }
            }
        }
        Ok(())
    }

    /// COM_STMT_EXECUTE: decodes the parameters and answers with OK or a binary result set.
    fn execute(&mut self, body: &[u8]) -> Result<(), ProtoError> {
        let id = binary::statement_id(body)?;
        let Some(p) = self.session.statements.get_mut(&id) else {
            self.error(&unknown_statement(id));
            return Ok(());
        };
        let request = match binary::parse_execute(body, p.params, &mut p.types, &p.long_data) {
            Ok(r) => r,
            Err(e) => {
                self.error(&SqlError::new(
                    1210,
                    "HY000",
                    format!("Incorrect arguments to mysqld_stmt_execute: {e}"),
                ));
                return Ok(());
            }
        };
        let params = param_values(request.params, &p.types, &self.session.charsets);
        if let Some(outcomes) = self.session.execute_prepared_call(id, &params) {
            // A prepared CALL: each SELECT's rows in the binary protocol, then its OK.
            let n = outcomes.len();
            for (i, outcome) in outcomes.into_iter().enumerate() {
                let warnings = if i + 1 == n {
                    self.session.conclude(&outcome)
                } else {
                    0
                };
                self.answer_one(outcome, i + 1 < n, true, warnings);
            }
            return Ok(());
        }
        let outcome = self.session.execute_prepared(id, &params);
        self.answer(outcome, true);
        Ok(())
    }

    /// Answers one statement's outcome (binary rows for an execute), ending the statement in
    /// the session's diagnostics.
    pub(crate) fn answer(&mut self, outcome: Outcome, binary: bool) {
        let warnings = self.session.conclude(&outcome);
        self.answer_one(outcome, false, binary, warnings);
    }

    /// Answers a COM_QUERY's outcomes in turn (`Session::run` stops at the first failure, and
    /// ended each statement), each but the last saying more results follow.
    pub(crate) fn answer_text(&mut self, outcomes: Vec<Outcome>) {
        let n = outcomes.len();
        let counts = self.session.take_counts();
        for (i, outcome) in outcomes.into_iter().enumerate() {
            let warnings = counts.get(i).copied().unwrap_or(0);
            self.answer_one(outcome, i + 1 < n, false, warnings);
        }
    }

    fn answer_one(&mut self, outcome: Outcome, more: bool, binary: bool, warnings: u16) {
        match outcome {
            Outcome::Done {
                affected,
                last_insert_id,
                info,
            } => self.ok_info(affected, last_insert_id, more, &info, warnings),
            Outcome::Rows { columns, rows } => {
                self.result_set(&columns, &rows, more, binary, warnings)
            }
            Outcome::Stream(stream) => self.streamed(*stream, more, binary, warnings),
            Outcome::Failed(e) => self.error(&e),
        }
    }

    /// Sends a streamed result (`exec/stream.rs`): the columns, then each batch's rows as the scan
    /// reads them, written out once they pass `STREAM_FLUSH_BYTES`, so a client that reads
    /// slowly holds the scan back (the write blocks) instead of the rows piling up here. A
    /// failure after the first rows ends the result with its error, as MariaDB's does.
    fn streamed(
        &mut self,
        mut stream: crate::exec::stream::RowStream,
        more: bool,
        binary: bool,
        warnings: u16,
    ) {
        let columns = std::mem::take(&mut stream.columns);
        // The session's net_write_timeout bounds each write of the rows.
        let _ = self
            .write
            .set_write_timeout(Some(self.session.net_write_timeout()));
        let status = self.result_header(&columns, more, warnings);
        let mut rows = std::mem::take(&mut stream.first);
        loop {
            for row in &rows {
                self.result_row(&columns, row, binary);
            }
            if self.out.len() >= STREAM_FLUSH_BYTES {
                if let Err(e) = self.flush() {
                    // The client is gone or stopped reading past net_write_timeout: part of
                    // the rows may be on the wire, so the connection cannot go on; it is
                    // closed (its next read ends it) and the scan ends with the cursor.
                    tracing::debug!("sql session {}: streaming a result: {e:?}", self.session.id);
                    self.out = PacketWriter::default();
                    self.write.shutdown();
                    return;
                }
            }
            match self.session.stream_next(&mut stream) {
                Ok(Some(next)) => rows = next,
                Ok(None) => break,
                Err(e) => {
                    self.session.conclude(&Outcome::Failed(e.clone()));
                    return self.error(&e);
                }
            }
        }
        self.result_end(status, warnings);
    }

    fn refuse(&mut self) -> Result<(), ProtoError> {
        self.error(&SqlError::new(1040, "08004", "Too many connections"));
        self.flush()
    }

    /// Authenticates, then serves commands: those already read here, the rest through the
    /// reactor, which hands back what it does not serve itself.
    fn run(mut self: Box<Self>) -> Result<(), ProtoError> {
        if !self.connect()? {
            return Ok(());
        }
        self.write.set_read_timeout(Some(WAIT_TIMEOUT))?;
        // A client that stops reading its result (a streamed one holds a scan open) is
        // dropped after MariaDB's net_write_timeout.
        self.write.set_write_timeout(Some(NET_WRITE_TIMEOUT))?;
        // A TLS connection stays on its thread: the reactor serves plain sockets only.
        let parking = !self.secure;
        self.serve_commands(parking)
    }

    /// Serves commands on this thread while the client has sent some; then parks the connection
    /// in the reactor (when `parking`) and returns, leaving the thread free: the reactor hands
    /// it back (`resume_on_a_thread`) when a command needs a thread again.
    fn serve_commands(self: Box<Self>, mut parking: bool) -> Result<(), ProtoError> {
        let server = self.server.clone();
        let mut conn = self;
        loop {
            if !conn.out.is_empty() {
                conn.flush()?;
            }
            while !parking || conn.buffered() {
                if !parking {
                    // A connection kept on its thread (TLS) waits for its next command as long
                    // as its session's wait_timeout.
                    let idle = conn.session.wait_timeout();
                    conn.write.set_read_timeout(Some(idle))?;
                }
                let Some((seq, payload)) = conn.reader.read()? else {
                    return Ok(());
                };
                if !conn.command(seq, payload)? {
                    return Ok(());
                }
                if conn.session.activity.interrupt.connection_killed() {
                    // KILL of its own connection: the answer went out, then the connection ends.
                    conn.flush()?;
                    return Ok(());
                }
                conn.flush()?;
            }
            match server.reactor.park(Parked { conn }) {
                // The reactor holds it now, and hands it to a thread when it must.
                Ok(()) => return Ok(()),
                Err(c) => {
                    // The reactor has stopped: serve the rest here.
                    conn = c;
                    parking = false;
                }
            }
            conn.write.set_nonblocking(false)?;
        }
    }

    /// Runs one command, published in the process list while it runs; false for COM_QUIT.
    /// `seq` is the sequence id of the command's last packet: the answer's numbers follow it
    /// (a command of 16 MiB or more came in several packets).
    fn command(&mut self, seq: u8, payload: Vec<u8>) -> Result<bool, ProtoError> {
        self.out.seq = seq.wrapping_add(1);
        self.session.activity.interrupt.statement_starts();
        let Some((&cmd, body)) = payload.split_first() else {
            return Err(ProtoError::Malformed("empty command packet".into()));
        };
        self.session.command_starts(cmd, body);
        let more = self.dispatch(cmd, body);
        self.session.publish("Sleep", None);
        more
    }

    fn dispatch(&mut self, cmd: u8, body: &[u8]) -> Result<bool, ProtoError> {
        match cmd {
            command::QUIT => return Ok(false),
            command::PING => self.ok(0, 0, false),
            command::QUERY if crate::commands::load::is_load(body) => self.load_data(body)?,
            command::QUERY if crate::parse::literals::changes_reading(body) => {
                self.query_in_turn(body)
            }
            command::QUERY => {
                let sql = crate::parse::literals::statement_text(
                    &self.session.charsets,
                    body,
                    self.session.no_backslash_escapes(),
                )
                .into_owned();
                self.query(&sql);
            }
            command::INIT_DB => {
                let name = self.session.charsets.decode(body).into_owned();
                match self.session.use_database(&name) {
                    Ok(()) => self.ok(0, 0, false),
                    Err(e) => self.error(&e),
                }
            }
            command::STMT_PREPARE => {
                let sql = crate::parse::literals::statement_text(
                    &self.session.charsets,
                    body,
                    self.session.no_backslash_escapes(),
                )
                .into_owned();
                self.prepare(&sql);
            }
            command::STMT_EXECUTE => self.execute(body)?,
            command::STMT_CLOSE => {
                // No answer, by the protocol.
                if let Ok(id) = binary::statement_id(body) {
                    self.session.statements.remove(&id);
                }
                return Ok(true);
            }
            command::STMT_RESET => match binary::statement_id(body) {
                Ok(id) => match self.session.statements.get_mut(&id) {
                    Some(p) => {
                        p.long_data.clear();
                        self.ok(0, 0, false);
                    }
                    None => self.error(&unknown_statement(id)),
                },
                Err(e) => return Err(e),
            },
            command::STMT_SEND_LONG_DATA => {
                // No answer; errors surface at the execute.
                self.long_data(body)?;
                return Ok(true);
            }
            command::SET_OPTION => {
                // MULTI_STATEMENTS on (0) or off (1): both are served.
                let status = self.status();
                response::eof(self.out.begin(), status, 0);
                self.out.finish();
            }
            command::RESET_CONNECTION => {
                let shared = self.session.shared.clone();
                let user = std::mem::take(&mut self.session.user);
                let host = std::mem::take(&mut self.session.host);
                let account_host = std::mem::take(&mut self.session.account_host);
                let privileges = self.session.privileges;
                let scoped = std::mem::take(&mut self.session.scoped);
                let with_password = self.session.with_password;
                let id = self.session.id;
                let found_rows = self.session.found_rows;
                let charsets = self.session.handshake_charsets;
                self.session = Session::new(shared, id);
                if let Ok(client) = self.write.try_clone() {
                    self.session.activity.interrupt.set_client(client);
                }
                self.session.charsets = charsets;
                self.session.handshake_charsets = charsets;
                self.session.user = user;
                self.session.host = host;
                self.session.account_host = account_host;
                self.session.privileges = privileges;
                self.session.scoped = scoped;
                self.session.with_password = with_password;
                self.session.found_rows = found_rows;
                self.ok(0, 0, false);
            }
            command::STATISTICS => {
                let text = crate::session::activity::statistics_line(&self.session);
                self.out.packet(text.as_bytes());
            }
            command::FIELD_LIST => self.field_list(body),
            other => self.error(&SqlError::new(
                1047,
                "08S01",
                format!("Unknown command {other:#04x} (not supported by Cairn yet)"),
            )),
        }
        Ok(true)
    }

    /// The connection phase; false when authentication failed (the client was told).
    fn connect(&mut self) -> Result<bool, ProtoError> {
        let scramble = match scramble() {
            Ok(s) => s,
            Err(e) => {
                self.out.seq = 0;
                self.error(&e);
                self.flush()?;
                return Ok(false);
            }
        };
        let shared = self.session.shared.clone();
        let server = self.server.clone();
        let greeting = handshake::initial_handshake(
            SERVER_VERSION,
            self.session.id,
            &scramble,
            self.status(),
            server.tls.is_some(),
            handshake::NATIVE_PASSWORD,
        );
        self.out.seq = 0;
        self.out.packet(&greeting);
        self.flush()?;
        let Some((seq, payload)) = self.reader.read()? else {
            return Ok(false);
        };
        self.out.seq = seq.wrapping_add(1);
        let hello = match HandshakeResponse::parse(&payload) {
            Ok(h) => h,
            Err(ProtoError::SslRequested) => {
                let Some(config) = &server.tls else {
                    self.error(&SqlError::new(
                        1045,
                        "28000",
                        "TLS is not configured on this server",
                    ));
                    self.flush()?;
                    return Ok(false);
                };
                self.start_tls(config)?;
                // The handshake response again, now over TLS.
                let Some((seq, payload)) = self.reader.read()? else {
                    return Ok(false);
                };
                self.out.seq = seq.wrapping_add(1);
                match HandshakeResponse::parse(&payload) {
                    Ok(h) => h,
                    Err(ProtoError::SslRequested) => {
                        return Err(ProtoError::Malformed("a second SSL request".into()))
                    }
                    Err(e) => return Err(e),
                }
            }
            Err(e) => return Err(e),
        };
        self.capabilities = hello.capabilities;
        self.session.found_rows = hello.capabilities & cap::FOUND_ROWS != 0;
        self.session.charsets =
            crate::foundation::charset::Charsets::for_collation_id(hello.collation);
        self.session.handshake_charsets = self.session.charsets;
        let peer = match &self.write {
            // A client on the socket file is `localhost` only, never a loopback address.
            Stream::Unix(_) => Peer::local(),
            other => Peer::of(other.peer_addr()),
        };
        let with_password = !hello.auth_response.is_empty();
        // Only addresses off this host are counted and blocked.
        let remote = match &self.write {
            Stream::Unix(_) => None,
            other => other
                .peer_addr()
                .map(|a| a.ip())
                .filter(|ip| !ip.is_loopback()),
        };
        if let Some(ip) = remote {
            // Counted against this address and account from now until it passes.
            let allowed = server
                .failed_logins
                .lock()
                .map(|mut f| f.begin(ip, &hello.user, std::time::Instant::now()))
                .unwrap_or(true);
            if !allowed {
                self.error(&SqlError::new(
                    1129,
                    "HY000",
                    format!("Host '{ip}' is blocked for a while after too many failed logins; try again later"),
                ));
                self.flush()?;
                return Ok(false);
            }
        }
        let accounts = match read_for_login(&shared, users::load) {
            Ok(a) => a,
            Err(e) => {
                self.error(&e);
                self.flush()?;
                return Ok(false);
            }
        };
        let Some(account) = users::choose(&accounts, &hello.user, &peer).cloned() else {
            return self.deny(&hello.user, &peer, with_password);
        };
        if account.plugin == Plugin::UnixSocket {
            // MariaDB's unix_socket: no answer is asked for or read; the kernel names the
            // client's operating-system account, which must be the user it logs in as (so never
            // over TCP). Refused with MariaDB's 1698.
            let os_user = self.write.peer_os_user();
            if os_user.as_deref() != Some(hello.user.as_str()) {
                self.error(&SqlError::new(
                    1698,
                    "28000",
                    format!("Access denied for user '{}'@'{}'", hello.user, peer.name),
                ));
                self.flush()?;
                return Ok(false);
            }
            return self.logged_in(&shared, &hello, &account, &peer, remote, with_password);
        }
        let mut answer = hello.auth_response.clone();
        let plugin = hello
            .auth_plugin
            .as_deref()
            .unwrap_or(handshake::NATIVE_PASSWORD);
        if plugin != account.plugin.name() {
            // Ask for the answer of the account's own plugin.
            self.out.packet(&handshake::auth_switch_request(
                account.plugin.name(),
                &scramble,
            ));
            self.flush()?;
            let Some((seq, payload)) = self.reader.read()? else {
                return Ok(false);
            };
            self.out.seq = seq.wrapping_add(1);
            answer = payload;
        }
        let known = match account.plugin {
            Plugin::Native => match auth::parse_native_hash_text(&account.auth) {
                Some(stored) => handshake::native_password_matches(&stored, &scramble, &answer),
                None => false,
            },
            Plugin::CachingSha2 => match self.caching_sha2(&account, &peer, &scramble, &answer)? {
                Some(known) => known,
                // Refused and told, or the client left.
                None => return Ok(false),
            },
            // Handled above, before any answer is read.
            Plugin::UnixSocket => false,
        };
        if !known {
            return self.deny(&hello.user, &peer, with_password);
        }
        self.logged_in(&shared, &hello, &account, &peer, remote, with_password)
    }

    /// The session of an authenticated login: the account's privileges and grants, the
    /// database it asked for, and the OK that ends the connection phase.
    fn logged_in(
        &mut self,
        shared: &Arc<Shared>,
        hello: &handshake::HandshakeResponse,
        account: &users::Account,
        peer: &Peer,
        remote: Option<std::net::IpAddr>,
        with_password: bool,
    ) -> Result<bool, ProtoError> {
        self.login_passed(remote, &hello.user);
        // The account's own name (empty for an anonymous account), not the one the client
        // gave: privileges and "self" in account statements follow the account.
        self.session.user = account.user.clone();
        self.session.host = peer.name.clone();
        self.session.account_host = account.host.clone();
        self.session.privileges = account.privileges;
        // Read before the grants: an account statement in between makes the first statement
        // read them again.
        self.session.grants_epoch = shared
            .grants_epoch
            .load(std::sync::atomic::Ordering::Acquire);
        // An account holding every privilege globally needs no narrower grant.
        if account.privileges & privilege::ALL != privilege::ALL {
            match read_for_login(shared, |c| {
                users::grants_of(c, &account.user, &account.host)
            }) {
                Ok(grants) => self.session.scoped = privilege::Scoped::new(grants),
                Err(e) => {
                    self.error(&e);
                    self.flush()?;
                    return Ok(false);
                }
            }
        }
        self.session.with_password = with_password;
        if let Some(db) = &hello.database {
            if let Err(e) = self.session.use_database(db) {
                self.error(&e);
                self.flush()?;
                return Ok(false);
            }
        }
        self.session.publish("Sleep", None);
        self.ok(0, 0, false);
        self.flush()?;
        Ok(true)
    }

    /// Upgrades the connection to TLS after the client's SSLRequest: the bytes read past it
    /// (the start of the client's TLS hello) go to the TLS handshake, which runs to its end;
    /// reads and writes then go through TLS.
    fn start_tls(&mut self, config: &Arc<rustls::ServerConfig>) -> Result<(), ProtoError> {
        use std::io::BufRead;
        let buffer = self.reader.get_mut();
        let mut pending = buffer.buffer().to_vec();
        let n = pending.len();
        buffer.consume(n);
        let inbound = buffer.get_mut();
        pending.extend_from_slice(inbound.pending.get(inbound.at..).unwrap_or_default());
        inbound.pending = Vec::new();
        inbound.at = 0;
        let socket = crate::server::tls::Socket {
            pending,
            at: 0,
            stream: self.write.try_clone()?,
        };
        let tls = crate::server::tls::accept(config, socket)?;
        self.reader.get_mut().get_mut().tls = Some(tls.clone());
        self.tls = Some(tls);
        self.secure = true;
        Ok(())
    }

    /// A login from an address off this host passed: its failures at this account are
    /// forgotten (every attempt counted as one from its start).
    fn login_passed(&self, remote: Option<std::net::IpAddr>, user: &str) {
        let Some(ip) = remote else { return };
        if let Ok(mut f) = self.server.failed_logins.lock() {
            f.passed(ip, user);
        }
    }

    /// Answers 1045 (Access denied) and ends the connection phase.
    fn deny(&mut self, user: &str, peer: &Peer, with_password: bool) -> Result<bool, ProtoError> {
        self.error(&crate::catalog::privilege::access_denied(
            user,
            &peer.name,
            with_password,
        ));
        self.flush()?;
        Ok(false)
    }

    /// caching_sha2_password after the client's first answer: the fast path when this API node
    /// holds the account's digest, else full authentication, whose cleartext password is read
    /// only over TLS. None when the client was refused (and told) or left.
    fn caching_sha2(
        &mut self,
        account: &users::Account,
        peer: &Peer,
        scramble: &[u8; SCRAMBLE_BYTES],
        answer: &[u8],
    ) -> Result<Option<bool>, ProtoError> {
        if account.auth.is_empty() || answer.is_empty() {
            return Ok(Some(account.auth.is_empty() && answer.is_empty()));
        }
        let shared = self.session.shared.clone();
        if let Some(digest) = shared.sha2_cache.get(account) {
            // After an auth switch PyMySQL hashes the switch request's data whole, the
            // scramble's trailing NUL included: that answer is taken too.
            let mut with_nul = [0u8; SCRAMBLE_BYTES + 1];
            with_nul[..SCRAMBLE_BYTES].copy_from_slice(scramble);
            if !auth::sha2_matches(&digest, scramble, answer)
                && !auth::sha2_matches(&digest, &with_nul, answer)
            {
                return Ok(Some(false));
            }
            self.out
                .packet(&auth::more_data(&[auth::FAST_AUTH_SUCCESS]));
            return Ok(Some(true));
        }
        self.out
            .packet(&auth::more_data(&[auth::PERFORM_FULL_AUTHENTICATION]));
        self.flush()?;
        let Some((seq, payload)) = self.reader.read()? else {
            return Ok(None);
        };
        self.out.seq = seq.wrapping_add(1);
        // A Unix socket never leaves the host, so the password may cross it in the clear, as
        // MySQL allows (clients send it there as over TLS).
        let local = matches!(self.write, Stream::Unix(_));
        if !self.secure && !local {
            // The client asks for the server's RSA key (or sends its password in the clear,
            // which is refused as MySQL refuses it): without TLS there is no safe way.
            self.error(&SqlError::new(
                1045,
                "28000",
                format!(
                    "Access denied for user '{}'@'{}': caching_sha2_password needs TLS for a full \
                     authentication on this server (it has no RSA key exchange); connect once \
                     over TLS, or use mysql_native_password",
                    account.user, peer.name
                ),
            ));
            self.flush()?;
            return Ok(None);
        }
        let Some(password) = auth::cleartext_password(&payload) else {
            return Ok(Some(false));
        };
        if !auth::sha2_stored_matches(&account.auth, password) {
            return Ok(Some(false));
        }
        shared.sha2_cache.put(account, password);
        Ok(Some(true))
    }

    /// COM_FIELD_LIST: the table's column definitions (those matching the wildcard), each
    /// with its default value, then EOF, as MySQL sends them.
    fn field_list(&mut self, body: &[u8]) {
        let (table, wildcard) = match body.iter().position(|b| *b == 0) {
            Some(nul) => (&body[..nul], &body[nul + 1..]),
            None => (body, &[][..]),
        };
        let table = self.session.charsets.decode(table).into_owned();
        let wildcard = self.session.charsets.decode(wildcard).into_owned();
        self.session
            .begin_statement(crate::exec::diagnostics::Kind::Other { tables: true });
        let columns = self.session.field_list(&table, &wildcard);
        let warnings = match &columns {
            Ok(_) => self.session.conclude(&crate::session::done(0)),
            Err(e) => self.session.conclude(&Outcome::Failed(e.clone())),
        };
        match columns {
            Ok(columns) => {
                let charsets = self.session.charsets;
                for (c, default) in &columns {
                    let p = self.out.begin();
                    encode_column(c, p, &charsets);
                    // COM_FIELD_LIST's definitions end with the column's default value.
                    match default {
                        Some(d) => myproto::codec::put_lenenc_bytes(p, d),
                        None => p.push(0xFB),
                    }
                    self.out.finish();
                }
                let status = self.status();
                response::end_of(self.out.begin(), self.capabilities, status, warnings);
                self.out.finish();
            }
            Err(e) => self.error(&e),
        }
    }

    /// LOAD DATA LOCAL INFILE: asks the client for its file, reads it as it comes (a row at most
    /// ROW_BYTES_MAX), and inserts its rows in batches through the session, each as INSERT
    /// IGNORE or REPLACE (so outside a transaction each batch commits on its own, as NDB's LOAD
    /// DATA does). The whole file is read even after a failure, so the connection stays in step.
    fn load_data(&mut self, body: &[u8]) -> Result<(), ProtoError> {
        use crate::commands::load;
        let escapes = !self.session.no_backslash_escapes();
        let sql = crate::parse::literals::statement_text(&self.session.charsets, body, !escapes)
            .into_owned();
        self.session
            .begin_statement(crate::exec::diagnostics::Kind::Insert);
        let spec = match load::parse(&sql) {
            Ok(spec) => spec,
            Err(e) => {
                let failed = self.session.concluded(Outcome::Failed(e));
                self.answer_text(vec![failed]);
                return Ok(());
            }
        };
        if self.capabilities & cap::LOCAL_FILES == 0 {
            let e = SqlError::new(
                4166,
                "HY000",
                "The used command is not allowed because the MariaDB server or client has disabled the local infile capability",
            );
            let failed = self.session.concluded(Outcome::Failed(e));
            self.answer_text(vec![failed]);
            return Ok(());
        }
        // The file's character set, when named, is how its text is read.
        let mut charsets = self.session.charsets;
        let columns = match spec
            .charset
            .as_deref()
            .map(crate::foundation::charset::named)
            .transpose()
            .and_then(|cs| {
                if let Some(cs) = cs {
                    charsets.client = cs;
                }
                self.session.load_columns(&spec.table)
            }) {
            Ok(columns) => columns,
            Err(e) => {
                let failed = self.session.concluded(Outcome::Failed(e));
                self.answer_text(vec![failed]);
                return Ok(());
            }
        };
        let batches = load::Batches::new(&spec, &columns, escapes);
        // The file request: 0xFB and the name, as the client sent it.
        let p = self.out.begin();
        p.push(0xFB);
        p.extend_from_slice(spec.file.as_bytes());
        self.out.finish();
        self.flush()?;
        let mut loaded = load::Loaded::default();
        let mut pending: Vec<u8> = Vec::new();
        let mut batch = batches.start();
        let mut batch_rows = 0usize;
        // The first row's line, and the warnings of splitting the batch's rows.
        let mut batch_line = 0u64;
        let mut pending_warnings = Vec::new();
        let mut failed: Option<SqlError> = None;
        let mut line = 0u64;
        let mut end = false;
        while !end {
            let Some((seq, data)) = self.reader.read()? else {
                return Err(ProtoError::Malformed(
                    "the client left during LOAD DATA".into(),
                ));
            };
            self.out.seq = seq.wrapping_add(1);
            end = data.is_empty();
            if failed.is_some() {
                continue;
            }
            pending.extend_from_slice(&data);
            let mut at = 0;
            loop {
                match load::next_row(&spec.format, &pending[at..], end) {
                    load::Next::Row(mut row, used, trailing) => {
                        at += used;
                        line += 1;
                        if line <= spec.skip_lines {
                            continue;
                        }
                        loaded.records += 1;
                        if batch_rows == 0 {
                            batch_line = line;
                        }
                        if trailing && row.len() == batches.fields() + 1 {
                            row.pop();
                        }
                        let warnings = batches.add(&mut batch, &row, line);
                        pending_warnings.extend(warnings);
                        batch_rows += 1;
                        if batch_rows >= load::BATCH_ROWS || batch.len() >= load::BATCH_BYTES {
                            let run = (&batch[..], batch_line, &charsets);
                            let warnings = std::mem::take(&mut pending_warnings);
                            if let Err(e) = self.load_batch(&mut loaded, run, warnings, escapes) {
                                failed = Some(e);
                                break;
                            }
                            batch = batches.start();
                            batch_rows = 0;
                        }
                    }
                    load::Next::Skip(used) if used > 0 => at += used,
                    load::Next::Skip(_) | load::Next::More => break,
                }
                if at == pending.len() {
                    break;
                }
            }
            pending.drain(..at);
            if failed.is_none() && pending.len() > load::ROW_BYTES_MAX {
                failed = Some(SqlError::new(
                    1153,
                    "08S01",
                    format!(
                        "A row of the file is longer than {} bytes (line {})",
                        load::ROW_BYTES_MAX,
                        line + 1
                    ),
                ));
                pending = Vec::new();
            }
        }
        if failed.is_none() && batch_rows > 0 {
            let run = (&batch[..], batch_line, &charsets);
            if let Err(e) = self.load_batch(&mut loaded, run, pending_warnings, escapes) {
                failed = Some(e);
            }
        }
        let outcome = match failed {
            Some(e) => Outcome::Failed(e),
            None => loaded.outcome(spec.duplicates),
        };
        self.session
            .begin_statement(crate::exec::diagnostics::Kind::Insert);
        for (code, message) in &loaded.warnings {
            self.session.diagnostics.warn(*code, message.clone());
        }
        self.session
            .diagnostics
            .count_unlisted(loaded.warning_total - loaded.warnings.len());
        let outcome = self.session.concluded(outcome);
        self.answer_text(vec![outcome]);
        Ok(())
    }

    /// Runs one INSERT batch of a LOAD DATA (its text, its first row's line in the file, the
    /// character set its text is in), counting what it did and keeping its warnings in the
    /// file's order: each row's own from splitting it, then the batch's, renumbered.
    fn load_batch(
        &mut self,
        loaded: &mut crate::commands::load::Loaded,
        (batch, first, charsets): (&[u8], u64, &crate::foundation::charset::Charsets),
        split: Vec<(u16, String)>,
        escapes: bool,
    ) -> Result<(), SqlError> {
        let sql = crate::parse::literals::statement_text(charsets, batch, !escapes).into_owned();
        let outcomes = self.session.run(&sql);
        self.session.take_counts();
        for (code, message) in split {
            loaded.warn(code, message);
        }
        let (conditions, total) = self.session.diagnostics.last_conditions();
        let listed = conditions.len();
        for (code, message) in conditions {
            loaded.warn(code, crate::commands::load::renumbered(message, first));
        }
        loaded.warning_total += total - listed;
        match outcomes.into_iter().next() {
            Some(Outcome::Done { affected, .. }) => {
                loaded.affected += affected;
                Ok(())
            }
            Some(Outcome::Failed(e)) => Err(e),
            _ => Ok(()),
        }
    }

    /// Runs a COM_QUERY: every statement in it, each answered in turn; the first error ends it.
    fn query(&mut self, sql: &str) {
        // A text of one statement may stream its result (the session checks it is one).
        self.session.stream_allowed = true;
        let outcomes = self.session.run(sql);
        self.answer_text(outcomes);
    }

    /// A text whose statements may change how the later ones are read (it names sql_mode):
    /// each is read as text under the mode its turn finds, as MariaDB reads one statement at a
    /// time, and the answers go out together, as for any text of several statements.
    fn query_in_turn(&mut self, body: &[u8]) {
        let mut outcomes = Vec::new();
        let mut counts = Vec::new();
        let mut text = body;
        loop {
            let escapes = self.session.no_backslash_escapes();
            let (first, rest) = match crate::parse::literals::first_statement(text, escapes) {
                Some((first, rest)) => (first, Some(rest)),
                None => (text, None),
            };
            let sql =
                crate::parse::literals::statement_text(&self.session.charsets, first, escapes)
                    .into_owned();
            outcomes.extend(self.session.run(&sql));
            counts.extend(self.session.take_counts());
            let failed = outcomes
                .iter()
                .any(|o| matches!(o, crate::session::Outcome::Failed(_)));
            match rest {
                Some(rest) if !failed => text = rest,
                _ => break,
            }
        }
        self.session.diagnostics.counts = counts;
        self.answer_text(outcomes);
    }

    fn result_set(
        &mut self,
        columns: &[Column],
        rows: &[Vec<Value>],
        more: bool,
        binary: bool,
        warnings: u16,
    ) {
        let status = self.result_header(columns, more, warnings);
        for row in rows {
            self.result_row(columns, row, binary);
        }
        self.result_end(status, warnings);
    }

    /// A result set's column count and definitions; returns the status its end carries.
    pub(crate) fn result_header(&mut self, columns: &[Column], more: bool, warnings: u16) -> u16 {
        let p = self.out.begin();
        myproto::codec::put_lenenc(p, columns.len() as u64);
        self.out.finish();
        let charsets = self.session.charsets;
        for c in columns {
            encode_column(c, self.out.begin(), &charsets);
            self.out.finish();
        }
        let mut status = self.status();
        if more {
            status |= status::MORE_RESULTS_EXISTS;
        }
        if self.capabilities & cap::DEPRECATE_EOF == 0 {
            response::eof(self.out.begin(), status, warnings);
            self.out.finish();
        }
        status
    }

    /// A result set's end, after its rows (`result_header`'s status).
    pub(crate) fn result_end(&mut self, status: u16, warnings: u16) {
        response::end_of(self.out.begin(), self.capabilities, status, warnings);
        self.out.finish();
    }

    /// One row of a result set, in the text or the binary protocol.
    pub(crate) fn result_row(&mut self, columns: &[Column], row: &[Value], binary: bool) {
        let charsets = self.session.charsets;
        let out = self.out.begin();
        if binary {
            binary_row(out, columns, row, &charsets);
        } else {
            for (v, c) in row.iter().zip(columns) {
                put_text_value(out, v, c, &charsets);
            }
        }
        self.out.finish();
    }
}

/// Bytes of a streamed result's rows gathered before they are written to the client.
const STREAM_FLUSH_BYTES: usize = 256 * 1024;

/// How long a login waits for its node group to serve again when a view change (a failover, or
/// a node coming back) stops it for a moment.
const LOGIN_FAILOVER_WAIT: Duration = Duration::from_secs(5);

/// Reads what a login needs from the cluster, again (a read repeats safely) while the node
/// group does not serve for a moment, up to `LOGIN_FAILOVER_WAIT`.
fn read_for_login<T>(
    shared: &Shared,
    read: impl Fn(&client::Cluster) -> Result<T, SqlError>,
) -> Result<T, SqlError> {
    let since = std::time::Instant::now();
    let mut pause = Duration::from_millis(10);
    loop {
        match read(&shared.cluster()) {
            Err(e) if e.failover_retry(true) && since.elapsed() < LOGIN_FAILOVER_WAIT => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(200));
            }
            result => return result,
        }
    }
}
