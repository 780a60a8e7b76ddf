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
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use client::Cluster;
use server::Server;
use session::shared::{Shared, FAILOVER_RECONNECT};
use tracing::{info, warn};

pub use foundation::config::{SqlConfig, REACTORS_DEFAULT};
pub use foundation::error::SqlError;
pub use foundation::limits::{
    CONNECTIONS_MAX, CONNECTION_STACK_BYTES, GROUP_CONCAT_MAX_LEN_DEFAULT,
    GROUP_CONCAT_SORTED_BYTES_MAX, SERVER_VERSION, STRING_RESULT_BYTES_MAX,
};
pub use server::tls::TlsSetting;

/// Settings of the SQL front end.
/// A running SQL front end.
pub struct SqlServer {
    server: Arc<Server>,
    stopping: Arc<AtomicBool>,
    address: SocketAddr,
    thread: Option<JoinHandle<()>>,
    /// The Unix socket file and its acceptor, when one was asked for.
    socket: Option<(Arc<transport::UnixSocketFile>, JoinHandle<()>)>,
    /// The thread keeping this API node's lease and dropping ended sessions' temporary tables
    /// (`session/temporary.rs`), and its mailbox.
    lease: Option<(
        std::sync::mpsc::Sender<session::temporary::Work>,
        JoinHandle<()>,
    )>,
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
        let instance = api_instance()?;
        let bootstrapped = loop {
            let made = catalog::users::bootstrap(&cluster, &config.root_password)
                .and_then(|b| commands::routines::bootstrap(&cluster).map(|()| b))
                .and_then(|b| session::temporary::renew(&cluster, instance).map(|()| b));
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
        let server = Arc::new(Server {
            shared: Arc::new(Shared {
                cluster: std::sync::Mutex::new(cluster),
                connecting: std::sync::Mutex::new(None),
                sha2_cache: catalog::users::Sha2Cache::default(),
                config,
                connections: AtomicU32::new(0),
                activity: session::activity::ServerActivity::default(),
                grants_epoch: std::sync::atomic::AtomicU64::new(0),
                tables_epoch: std::sync::atomic::AtomicU64::new(0),
                next_id: AtomicU32::new(1),
                referencing: std::sync::Mutex::new(None),
                temporary: session::temporary::NodeTemporaries::new(instance),
            }),
            reactor,
            failed_logins: std::sync::Mutex::new(transport::auth::FailedLogins::default()),
            tls,
            threads: server::threads::Threads::new(CONNECTION_STACK_BYTES),
        });
        let socket = match unix {
            Some(file) => {
                let accepting = file.clone();
                let thread = spawn_acceptor(
                    "sql-accept-unix",
                    move || accepting.accept(),
                    server.clone(),
                    stopping.clone(),
                )?;
                info!(path = %file.path().display(), "sql listening on a unix socket");
                Some((file, thread))
            }
            None => None,
        };
        let (work, mailbox) = std::sync::mpsc::channel();
        server.shared.temporary.set_worker(Some(work.clone()));
        let leased = server.clone();
        let lease = std::thread::Builder::new()
            .name("sql-lease".into())
            .spawn(move || {
                let shared = &leased.shared;
                session::temporary::keep_lease(|| shared.cluster(), &shared.temporary, mailbox)
            })?;
        let incoming = move || listener.accept().map(|(s, _)| transport::Stream::from(s));
        let thread = spawn_acceptor("sql-accept", incoming, server.clone(), stopping.clone())?;
        info!(%address, "sql listening");
        Ok(SqlServer {
            server,
            stopping,
            address,
            thread: Some(thread),
            socket,
            lease: Some((work, lease)),
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
        self.server.reactor.stop();
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
        if let Some((work, thread)) = self.lease.take() {
            self.server.shared.temporary.set_worker(None);
            let _ = work.send(session::temporary::Work::Stop);
            let _ = thread.join();
        }
    }
}

/// A random number naming this API node's start (its temporary tables and lease).
fn api_instance() -> std::io::Result<u64> {
    let mut bytes = [0u8; 8];
    getrandom::getrandom(&mut bytes)
        .map_err(|e| std::io::Error::other(format!("drawing an instance number: {e}")))?;
    Ok(u64::from_le_bytes(bytes))
}

/// Starts thread `name` running [`accept_loop`] over `accept`.
fn spawn_acceptor(
    name: &str,
    accept: impl FnMut() -> std::io::Result<transport::Stream> + Send + 'static,
    server: Arc<Server>,
    stopping: Arc<AtomicBool>,
) -> std::io::Result<JoinHandle<()>> {
    std::thread::Builder::new()
        .name(name.into())
        .spawn(move || accept_loop(accept, server, stopping))
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
/// thread of `Server::threads`.
fn accept_loop(
    mut accept: impl FnMut() -> std::io::Result<transport::Stream>,
    server: Arc<Server>,
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
        let id = server.shared.next_id.fetch_add(1, Ordering::Relaxed);
        let serving = server.clone();
        if let Err(e) = server
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
