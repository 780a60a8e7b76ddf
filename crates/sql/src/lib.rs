//! Cairn's SQL front end (an API-node role): a MySQL protocol v10 server whose connections run
//! SQL, parsed by sqlparser's MySQL dialect, against the data nodes through the native client.
//!
//! Today it serves the connection phase (mysql_native_password; root with the configured
//! password), COM_QUERY (with multi-statements), COM_INIT_DB, COM_PING and COM_QUIT, and the
//! statements in `session/mod.rs`; every other statement or command gets a clean MySQL error naming
//! what is unsupported. Each connection has a thread for blocking work, but between commands it
//! is parked in one event loop (`server/reactor.rs`) that serves simple committed reads itself.

// The layers, low to high: foundation, parse, expr, catalog, plan, exec, session, commands,
// dispatch, server; each uses only those before it (crates/tidy holds the order and checks it).
mod catalog;
mod commands;
mod dispatch;
mod exec;
mod expr;
mod foundation;
mod parse;
mod plan;
mod server;
mod session;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use client::Cluster;
use tracing::{info, warn};

pub use foundation::error::SqlError;
pub use foundation::limits::{
    CONNECTIONS_MAX, CONNECTION_STACK_BYTES, GROUP_CONCAT_MAX_LEN_DEFAULT,
    GROUP_CONCAT_SORTED_BYTES_MAX, SERVER_VERSION, STRING_RESULT_BYTES_MAX,
};
pub use server::tls::TlsSetting;

/// Settings of the SQL front end.
#[derive(Debug, Clone)]
pub struct SqlConfig {
    /// The data node to serve from.
    pub datanode: String,
    /// Listening address, e.g. "127.0.0.1:3306".
    pub listen: String,
    /// Also listen on this Unix socket file, for clients on this host (`mysql -S`, PyMySQL's
    /// `unix_socket`, sysbench's `--mysql-socket`).
    pub socket: Option<PathBuf>,
    /// root@localhost's password at the first start, when the accounts table is made (empty:
    /// none); later starts keep the accounts the catalog holds.
    pub root_password: String,
    /// The largest packet accepted (MySQL's max_allowed_packet).
    pub max_packet: usize,
    /// Event loops that serve idle connections and simple reads (at least one).
    pub reactors: usize,
    /// TLS: off, a self-signed certificate made at start (the default), or PEM files.
    pub tls: TlsSetting,
    /// Connections served at once (MySQL's max_connections); one more is refused with 1040.
    pub max_connections: u32,
}

impl Default for SqlConfig {
    fn default() -> Self {
        SqlConfig {
            datanode: "127.0.0.1:2202".into(),
            listen: "127.0.0.1:3306".into(),
            socket: None,
            root_password: String::new(),
            max_packet: 64 << 20,
            reactors: REACTORS_DEFAULT,
            tls: TlsSetting::default(),
            max_connections: CONNECTIONS_MAX,
        }
    }
}

/// Reactor loops by default. One: a second loop on 2 cores measured slower (sysbench point
/// selects 38,371/s against 51,828/s with one) and no faster for oltp_read_only.
pub const REACTORS_DEFAULT: usize = 1;

/// A running SQL front end.
pub struct SqlServer {
    shared: Arc<Shared>,
    stopping: Arc<AtomicBool>,
    address: SocketAddr,
    thread: Option<JoinHandle<()>>,
    /// The Unix socket file and its acceptor, when one was asked for.
    socket: Option<(Arc<transport::UnixSocketFile>, JoinHandle<()>)>,
}

pub(crate) struct Shared {
    /// The connection DDL, logins and account statements use (see `cluster`).
    cluster: std::sync::Mutex<Cluster>,
    /// Held by the caller connecting the shared connection again (`cluster`); when its last
    /// try failed.
    connecting: std::sync::Mutex<Option<std::time::Instant>>,
    /// The event loop idle connections are parked in.
    pub reactor: server::reactor::Reactor,
    pub config: SqlConfig,
    /// The TLS configuration connections upgrade with; None when TLS is off.
    pub tls: Option<Arc<rustls::ServerConfig>>,
    /// caching_sha2_password's fast-path digests, filled after full authentications.
    pub sha2_cache: catalog::users::Sha2Cache,
    /// Failed logins per client address off this host: a password guesser is turned away for
    /// longer and longer (loopback and the socket file are never blocked).
    pub failed_logins: std::sync::Mutex<transport::auth::FailedLogins>,
    pub connections: AtomicU32,
    pub next_id: AtomicU32,
    /// Status counters and the registry of live sessions.
    pub activity: session::activity::ServerActivity,
    /// One more at each account statement this API node runs (GRANT, REVOKE, DROP USER, ...):
    /// a session that read its grants under another value reads them again before its next
    /// statement, and plans it again.
    pub grants_epoch: std::sync::atomic::AtomicU64,
    /// The threads connections' logins and commands run on.
    pub threads: server::threads::Threads,
}

/// How long the shared connection waits for a node group to serve again after a failover.
pub const FAILOVER_RECONNECT: Duration = Duration::from_secs(3);
/// After a failed try to connect the shared connection again, how long callers get the lost
/// connection without a new try.
pub const RECONNECT_BACKOFF: Duration = Duration::from_secs(1);

impl Shared {
    /// The shared data node connection, connected again first if a call found it lost. With
    /// one data node the wait is short (the call that found it lost failed, the next one
    /// works); with several (a node group failing over) it waits up to `FAILOVER_RECONNECT`
    /// for one to serve, so logins and catalog reads go on after a failover. One caller
    /// connects at a time and the others wait for it; after a failed try, callers get the lost
    /// connection at once for `RECONNECT_BACKOFF`, so no queue of waits forms while the
    /// cluster is down.
    pub fn cluster(&self) -> Cluster {
        let current = self
            .cluster
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if !current.is_closed() {
            return current;
        }
        let mut failed_at = self.connecting.lock().unwrap_or_else(|e| e.into_inner());
        let current = self
            .cluster
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if !current.is_closed() || failed_at.is_some_and(|t| t.elapsed() < RECONNECT_BACKOFF) {
            return current;
        }
        let wait = if self.config.datanode.contains(',') {
            FAILOVER_RECONNECT
        } else {
            client::RECONNECT_TIMEOUT
        };
        match Cluster::connect_timeout(&self.config.datanode, wait) {
            Ok(fresh) => {
                info!(
                    "sql: connected to the data node {} again",
                    self.config.datanode
                );
                *self.cluster.lock().unwrap_or_else(|e| e.into_inner()) = fresh.clone();
                *failed_at = None;
                fresh
            }
            Err(e) => {
                warn!("sql: data node {} unreachable: {e}", self.config.datanode);
                *failed_at = Some(std::time::Instant::now());
                current
            }
        }
    }
}

impl SqlServer {
    /// Binds the listener, connects to the data node and starts accepting.
    pub fn start(config: SqlConfig) -> std::io::Result<SqlServer> {
        let cluster = Cluster::connect(&config.datanode).map_err(|e| {
            std::io::Error::other(format!("connecting to {}: {e}", config.datanode))
        })?;
        // A view change (a node coming back) stops the node group for a moment: the accounts
        // are read again then.
        let since = std::time::Instant::now();
        let bootstrapped = loop {
            let made = catalog::users::bootstrap(&cluster, &config.root_password)
                .and_then(|b| commands::routines::bootstrap(&cluster).map(|()| b));
            match made {
                Err(e) if e.failover_retry(true) && since.elapsed() < FAILOVER_RECONNECT => {
                    std::thread::sleep(Duration::from_millis(50));
                }
                result => break result,
            }
        };
        match bootstrapped {
            Ok(false) => {}
            Ok(true) => warn!(
                "root@localhost's password is kept in the catalog from an earlier start: \
                 --sql-root-password applies at the first start only (ALTER USER changes it)"
            ),
            Err(e) => return Err(std::io::Error::other(format!("reading the accounts: {e}"))),
        }
        let tls = server::tls::server_config(&config.tls)?;
        let listener = transport::listen(&config.listen)?;
        let address = listener.local_addr()?;
        let unix = match &config.socket {
            Some(path) => Some(Arc::new(transport::UnixSocketFile::bind(path)?)),
            None => None,
        };
        let stopping = Arc::new(AtomicBool::new(false));
        let reactor = server::reactor::Reactor::start(&config.datanode, config.reactors)?;
        let shared = Arc::new(Shared {
            cluster: std::sync::Mutex::new(cluster),
            connecting: std::sync::Mutex::new(None),
            reactor,
            sha2_cache: catalog::users::Sha2Cache::default(),
            failed_logins: std::sync::Mutex::new(transport::auth::FailedLogins::default()),
            tls,
            config,
            connections: AtomicU32::new(0),
            next_id: AtomicU32::new(1),
            activity: session::activity::ServerActivity::default(),
            grants_epoch: std::sync::atomic::AtomicU64::new(0),
            threads: server::threads::Threads::new(CONNECTION_STACK_BYTES),
        });
        let socket = match unix {
            Some(file) => {
                let accepting = file.clone();
                let thread = spawn_acceptor(
                    "sql-accept-unix",
                    move || accepting.accept(),
                    shared.clone(),
                    stopping.clone(),
                )?;
                info!(path = %file.path().display(), "sql listening on a unix socket");
                Some((file, thread))
            }
            None => None,
        };
        let incoming = move || listener.accept().map(|(s, _)| transport::Stream::from(s));
        let thread = spawn_acceptor("sql-accept", incoming, shared.clone(), stopping.clone())?;
        info!(%address, "sql listening");
        Ok(SqlServer {
            shared,
            stopping,
            address,
            thread: Some(thread),
            socket,
        })
    }

    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The Unix socket file clients on this host may connect to, if one was asked for.
    pub fn socket(&self) -> Option<&Path> {
        self.socket.as_ref().map(|(f, _)| f.path())
    }

    /// Stops accepting and closes idle connections; a connection in the middle of a command
    /// finishes it on its thread and is served there until its client leaves.
    pub fn stop(mut self) {
        self.shared.reactor.stop();
        self.stopping.store(true, Ordering::SeqCst);
        // Wake the acceptor with a connection of our own.
        let _ =
            transport::connect_stream(&self.address.to_string(), std::time::Duration::from_secs(1));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        if let Some((file, thread)) = self.socket.take() {
            file.close();
            let _ = thread.join();
        }
    }
}

/// Starts thread `name` running [`accept_loop`] over `accept`.
fn spawn_acceptor(
    name: &str,
    accept: impl FnMut() -> std::io::Result<transport::Stream> + Send + 'static,
    shared: Arc<Shared>,
    stopping: Arc<AtomicBool>,
) -> std::io::Result<JoinHandle<()>> {
    std::thread::Builder::new()
        .name(name.into())
        .spawn(move || accept_loop(accept, shared, stopping))
}

/// The first and the longest pause after a failed accept.
const ACCEPT_BACKOFF_MIN: Duration = Duration::from_millis(5);
const ACCEPT_BACKOFF_MAX: Duration = Duration::from_millis(200);

/// The pause after each of a run of failed accepts: doubling from ACCEPT_BACKOFF_MIN up to
/// ACCEPT_BACKOFF_MAX.
#[derive(Default)]
struct Backoff(Duration);

impl Backoff {
    fn failed(&mut self) -> Duration {
        self.0 = (self.0 * 2).clamp(ACCEPT_BACKOFF_MIN, ACCEPT_BACKOFF_MAX);
        self.0
    }
}

/// Accepts connections (from `accept`, a listener's) until `stopping`, each logging in on a
/// thread of `Shared::threads`.
fn accept_loop(
    mut accept: impl FnMut() -> std::io::Result<transport::Stream>,
    shared: Arc<Shared>,
    stopping: Arc<AtomicBool>,
) {
    // After a failed accept (EMFILE: out of descriptors) the next waits, longer each time up
    // to ACCEPT_BACKOFF_MAX, instead of spinning on the same error.
    let mut backoff = Backoff::default();
    loop {
        let stream = accept();
        if stopping.load(Ordering::SeqCst) {
            return;
        }
        let stream = match stream {
            Ok(s) => {
                backoff = Backoff::default();
                s
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let pause = backoff.failed();
                if pause == ACCEPT_BACKOFF_MIN {
                    warn!("sql accept failed: {e}; retrying with a backoff");
                }
                std::thread::sleep(pause);
                continue;
            }
        };
        let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
        let serving = shared.clone();
        if let Err(e) = shared
            .threads
            .run(Box::new(move || server::conn::serve(stream, serving, id)))
        {
            warn!("sql: could not start a connection thread: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_accepts_back_off_doubling_to_a_cap() {
        let mut b = Backoff::default();
        let pauses: Vec<u64> = (0..8).map(|_| b.failed().as_millis() as u64).collect();
        assert_eq!(pauses, [5, 10, 20, 40, 80, 160, 200, 200]);
    }
}
