//! One client connection: the connection phase (handshake, authentication, auth switch), then
//! the command phase, each command answered with OK, ERR or result sets. A malformed or oversized
//! packet closes only this connection.

use std::io::{BufReader, Read};
use std::net::TcpStream;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use myproto::handshake::{self, cap, status, HandshakeResponse, SCRAMBLE_BYTES};
use myproto::packet::{PacketReader, PacketWriter};
use myproto::response::{self, Column};
use myproto::{command, ProtoError};
use tracing::{debug, warn};

use crate::error::SqlError;
use crate::exec::{Outcome, Session};
use crate::{Shared, CONNECTIONS_MAX, SERVER_VERSION};

/// Runs one connection to its end.
pub(crate) fn serve(stream: TcpStream, shared: Arc<Shared>, id: u32) {
    let _ = stream.set_nodelay(true);
    let peer = stream
        .peer_addr()
        .map(|a| a.to_string())
        .unwrap_or_default();
    // MySQL's connect_timeout for the connection phase; `run` sets wait_timeout after it.
    let _ = stream.set_read_timeout(Some(CONNECT_TIMEOUT));
    let open = shared.connections.fetch_add(1, Ordering::SeqCst) + 1;
    let result = match stream.try_clone() {
        Ok(write) => {
            let mut conn = Conn {
                reader: PacketReader::new(BufReader::new(stream), shared.config.max_packet),
                write,
                out: PacketWriter::default(),
                capabilities: 0,
                session: Session::new(shared.clone(), id),
            };
            if open > CONNECTIONS_MAX {
                conn.refuse()
            } else {
                conn.run()
            }
        }
        Err(e) => Err(ProtoError::Io(e)),
    };
    shared.connections.fetch_sub(1, Ordering::SeqCst);
    match result {
        Ok(()) => debug!(id, %peer, "sql connection closed"),
        Err(ProtoError::Io(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => {}
        Err(e) => warn!(id, %peer, "sql connection closed: {e}"),
    }
}

/// How long the connection phase may take (MySQL's connect_timeout).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a connection may sit idle between commands (MySQL's wait_timeout).
const WAIT_TIMEOUT: Duration = Duration::from_secs(28_800);

struct Conn {
    reader: PacketReader<BufReader<TcpStream>>,
    write: TcpStream,
    out: PacketWriter,
    capabilities: u32,
    session: Session,
}

/// Random printable bytes for the authentication scramble.
fn scramble() -> [u8; SCRAMBLE_BYTES] {
    let mut raw = [0u8; SCRAMBLE_BYTES];
    if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
        let _ = f.read_exact(&mut raw);
    }
    raw.map(|b| 33 + b % 94)
}

impl Conn {
    fn flush(&mut self) -> Result<(), ProtoError> {
        self.out.flush_to(&mut self.write).map_err(ProtoError::Io)
    }

    fn error(&mut self, e: &SqlError) {
        let p = self.out.begin();
        response::err(p, e.code, e.state, &e.message);
        self.out.finish();
    }

    fn status(&self) -> u16 {
        self.session.status_flags()
    }

    fn ok(&mut self, affected: u64, last_insert_id: u64, more: bool) {
        let mut status = self.status();
        if more {
            status |= status::MORE_RESULTS_EXISTS;
        }
        let warnings = self.session.warning_count();
        let p = self.out.begin();
        response::ok(p, 0, affected, last_insert_id, status, warnings, "");
        self.out.finish();
    }

    fn refuse(&mut self) -> Result<(), ProtoError> {
        self.error(&SqlError::new(1040, "08004", "Too many connections"));
        self.flush()
    }

    fn run(&mut self) -> Result<(), ProtoError> {
        if !self.connect()? {
            return Ok(());
        }
        self.reader
            .get_ref()
            .get_ref()
            .set_read_timeout(Some(WAIT_TIMEOUT))?;
        loop {
            let Some((_, payload)) = self.reader.read()? else {
                return Ok(());
            };
            self.out.seq = 1;
            let Some((&cmd, body)) = payload.split_first() else {
                return Err(ProtoError::Malformed("empty command packet".into()));
            };
            match cmd {
                command::QUIT => return Ok(()),
                command::PING => self.ok(0, 0, false),
                command::QUERY => {
                    let sql = String::from_utf8_lossy(body).into_owned();
                    self.query(&sql);
                }
                command::INIT_DB => {
                    let name = String::from_utf8_lossy(body).into_owned();
                    match self.session.use_database(&name) {
                        Ok(()) => self.ok(0, 0, false),
                        Err(e) => self.error(&e),
                    }
                }
                other => self.error(&SqlError::new(
                    1047,
                    "08S01",
                    format!("Unknown command {other:#04x} (not supported by Cairn yet)"),
                )),
            }
            self.flush()?;
        }
    }

    /// The connection phase; false when authentication failed (the client was told).
    fn connect(&mut self) -> Result<bool, ProtoError> {
        let scramble = scramble();
        let greeting =
            handshake::initial_handshake(SERVER_VERSION, self.session.id, &scramble, self.status());
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
                self.error(&SqlError::new(
                    1045,
                    "28000",
                    "TLS is not available on this server yet",
                ));
                self.flush()?;
                return Ok(false);
            }
            Err(e) => return Err(e),
        };
        self.capabilities = hello.capabilities;
        let mut answer = hello.auth_response.clone();
        let plugin = hello
            .auth_plugin
            .as_deref()
            .unwrap_or(handshake::NATIVE_PASSWORD);
        if plugin != handshake::NATIVE_PASSWORD {
            // Ask for mysql_native_password's answer instead.
            self.out.packet(&handshake::auth_switch_request(&scramble));
            self.flush()?;
            let Some((seq, payload)) = self.reader.read()? else {
                return Ok(false);
            };
            self.out.seq = seq.wrapping_add(1);
            answer = payload;
        }
        let shared = self.session.shared.clone();
        let known = hello.user == "root"
            && handshake::native_password_matches(&shared.root_hash, &scramble, &answer);
        if !known {
            let using = if answer.is_empty() { "NO" } else { "YES" };
            self.error(&SqlError::new(
                1045,
                "28000",
                format!(
                    "Access denied for user '{}'@'localhost' (using password: {using})",
                    hello.user
                ),
            ));
            self.flush()?;
            return Ok(false);
        }
        self.session.user = hello.user.clone();
        if let Some(db) = &hello.database {
            if let Err(e) = self.session.use_database(db) {
                self.error(&e);
                self.flush()?;
                return Ok(false);
            }
        }
        self.ok(0, 0, false);
        self.flush()?;
        Ok(true)
    }

    /// Runs a COM_QUERY: every statement in it, each answered in turn; the first error ends it.
    fn query(&mut self, sql: &str) {
        let outcomes = self.session.run(sql);
        let n = outcomes.len();
        for (i, outcome) in outcomes.into_iter().enumerate() {
            let more = i + 1 < n;
            match outcome {
                Outcome::Done {
                    affected,
                    last_insert_id,
                } => self.ok(affected, last_insert_id, more),
                Outcome::Rows { columns, rows } => self.result_set(&columns, &rows, more),
                Outcome::Failed(e) => {
                    self.error(&e);
                    return;
                }
            }
        }
    }

    fn result_set(&mut self, columns: &[Column], rows: &[Vec<Option<Vec<u8>>>], more: bool) {
        let p = self.out.begin();
        myproto::codec::put_lenenc(p, columns.len() as u64);
        self.out.finish();
        for c in columns {
            c.encode(self.out.begin());
            self.out.finish();
        }
        let mut status = self.status();
        if more {
            status |= status::MORE_RESULTS_EXISTS;
        }
        let warnings = self.session.warning_count();
        if self.capabilities & cap::DEPRECATE_EOF == 0 {
            response::eof(self.out.begin(), status, warnings);
            self.out.finish();
        }
        for row in rows {
            response::text_row(self.out.begin(), row.iter().map(|v| v.as_deref()));
            self.out.finish();
        }
        response::end_of(self.out.begin(), self.capabilities, status, warnings);
        self.out.finish();
    }
}
