//! The HandlerSocket listeners and their event loops: each loop's thread reads every ready
//! connection it holds, splits complete lines, and runs them in rounds. In each round the
//! plain keyed reads of every connection go to the data node as ONE batch (the plugin's
//! grouping, without its flaw: a failed read answers only its own request), sent without waiting over an `EventSession`
//! whose socket sits in the same poll as the clients': while batches are out the loop sleeps
//! until a client or the data node has something, keeps reading requests and sending further
//! batches, and answers each request when its batch returns. Any other request (a scan, a
//! modify, an insert) waits, with the rest of its connection's lines, until every batch sent
//! before it has returned, then runs on the loop's threads (`alone.rs`), so a long scan or a
//! write waiting on a lock never holds up the other connections; the lines after it wait for
//! its answer. Answers keep each connection's request order.
//! With several loops (`HsConfig::loops`), the first accepts every connection and deals them
//! out in turn; each loop has its own data node connections and never touches another's.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use client::{
    Cluster, EventSession, ExecType, LockMode, OpResult, Operation, RECONNECT_EVERY,
    RECONNECT_TIMEOUT,
};
use mio::net::TcpListener;
use mio::{Events, Interest, Poll, Token, Waker};
use tracing::{debug, info, warn};
use transport::nonblocking::{Connection, ReadState};

use crate::alone::{self, Job};
use crate::exec::{self, Indexes, OpenIndex};
use crate::protocol::{self, Request, LINE_BYTES_MAX};

/// Settings of the HandlerSocket front end.
#[derive(Debug, Clone)]
pub struct HsConfig {
    /// The data node to serve from.
    pub datanode: String,
    /// Read listener, e.g. "127.0.0.1:9998" (finds only).
    pub read_listen: String,
    /// Write listener, e.g. "127.0.0.1:9999" (finds, modifies, inserts).
    pub write_listen: String,
    /// Secrets (`A` command); empty: none.
    pub read_secret: Vec<u8>,
    pub write_secret: Vec<u8>,
    /// Connections idle this long are closed (one that sent part of a line and stalled too).
    pub idle_timeout: Duration,
    /// Connections one event loop serves at once; one more is closed as it is accepted.
    pub max_connections: usize,
    /// Event loops (threads) serving the connections, at least 1.
    pub loops: usize,
    /// TLS on both ports (off by default, as the plugin): every connection then starts with
    /// a TLS handshake, which the event loop runs as it reads.
    pub tls: transport::tls::TlsSetting,
    /// Threads beside each loop that run the requests not batched (scans, modifies, inserts),
    /// so none of them stalls the loop (1 to `THREADS_MAX`).
    pub threads: usize,
}

impl Default for HsConfig {
    fn default() -> Self {
        HsConfig {
            datanode: "127.0.0.1:2202".into(),
            read_listen: "127.0.0.1:9998".into(),
            write_listen: "127.0.0.1:9999".into(),
            read_secret: Vec::new(),
            write_secret: Vec::new(),
            idle_timeout: Duration::from_secs(300),
            max_connections: CONNECTIONS_MAX,
            loops: 1,
            tls: transport::tls::TlsSetting::Off,
            threads: crate::alone::THREADS_DEFAULT,
        }
    }
}

const READ_LISTENER: Token = Token(0);
const WRITE_LISTENER: Token = Token(1);
const WAKER: Token = Token(2);
const DATANODE: Token = Token(3);
const FIRST_CONNECTION: usize = 4;
/// Connections answered between two looks at the clients in one turn (see `Server::look`).
const ANSWERS_PER_LOOK: usize = 4;
/// Connections one event loop serves at most by default; more are closed at accept.
pub const CONNECTIONS_MAX: usize = 4_096;
/// Event loops one front end runs at most.
pub const LOOPS_MAX: usize = 64;
/// Bytes of request lines a connection may have queued behind one of its requests that is
/// still out (on the loop's threads, or waiting for batches); past it the loop stops reading
/// that connection until the request is answered.
const QUEUED_BYTES_MAX: usize = LINE_BYTES_MAX;

/// A running HandlerSocket front end.
pub struct HsServer {
    stopping: Arc<AtomicBool>,
    wakers: Vec<Arc<Waker>>,
    threads: Vec<JoinHandle<()>>,
    read_address: SocketAddr,
    write_address: SocketAddr,
}

impl HsServer {
    /// Binds both listeners, connects each loop to the data node and starts serving.
    pub fn start(config: HsConfig) -> std::io::Result<HsServer> {
        if config.loops == 0 || config.loops > LOOPS_MAX {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "HandlerSocket loops must be 1 to {LOOPS_MAX}, not {}",
                    config.loops
                ),
            ));
        }
        let stopping = Arc::new(AtomicBool::new(false));
        let read = Self::listener(&config.read_listen)?;
        let write = Self::listener(&config.write_listen)?;
        let read_address = read.local_addr()?;
        let write_address = write.local_addr()?;
        // The first loop accepts; every other is ready before it accepts anything.
        let failures = Arc::new(std::sync::Mutex::new(
            transport::auth::FailedLogins::default(),
        ));
        let tls = transport::tls::server_config(&config.tls)?;
        let (mut first, waker) = Server::new(
            config.clone(),
            tls.clone(),
            stopping.clone(),
            Some((read, write)),
            failures.clone(),
            0,
        )?;
        let mut others = Vec::new();
        let mut wakers = vec![waker];
        for index in 1..config.loops {
            let (mut server, waker) = Server::new(
                config.clone(),
                tls.clone(),
                stopping.clone(),
                None,
                failures.clone(),
                index,
            )?;
            let (tx, rx) = mpsc::channel();
            server.incoming = Some(rx);
            first.peers.push((tx, waker.clone()));
            others.push(server);
            wakers.push(waker);
        }
        let threads = std::iter::once(first)
            .chain(others)
            .enumerate()
            .map(|(i, server)| {
                let name = match i {
                    0 => "handlersocket".to_string(),
                    i => format!("handlersocket-{i}"),
                };
                std::thread::Builder::new()
                    .name(name)
                    .spawn(move || server.run())
            })
            .collect::<std::io::Result<Vec<_>>>()?;
        info!(read = %read_address, write = %write_address, loops = threads.len(), "handlersocket listening");
        Ok(HsServer {
            stopping,
            wakers,
            threads,
            read_address,
            write_address,
        })
    }

    fn listener(address: &str) -> std::io::Result<TcpListener> {
        let l = transport::listen(address)?;
        l.set_nonblocking(true)?;
        Ok(TcpListener::from_std(l))
    }

    pub fn read_address(&self) -> SocketAddr {
        self.read_address
    }

    pub fn write_address(&self) -> SocketAddr {
        self.write_address
    }

    pub fn stop(mut self) {
        self.stopping.store(true, Ordering::SeqCst);
        for w in &self.wakers {
            let _ = w.wake();
        }
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

impl Server {
    /// One loop: its poll, its data node connections, and the listeners when it accepts.
    fn new(
        config: HsConfig,
        tls: Option<Arc<transport::tls::ServerConfig>>,
        stopping: Arc<AtomicBool>,
        mut listeners: Option<(TcpListener, TcpListener)>,
        failures: Arc<std::sync::Mutex<transport::auth::FailedLogins>>,
        index: usize,
    ) -> std::io::Result<(Server, Arc<Waker>)> {
        let cluster = Cluster::connect(&config.datanode).map_err(|e| {
            std::io::Error::other(format!("connecting to {}: {e}", config.datanode))
        })?;
        let poll = Poll::new()?;
        let link = EventSession::connect(&config.datanode, Duration::from_secs(10))
            .and_then(|mut link| link.register(poll.registry(), DATANODE).map(|()| link))
            .map_err(|e| {
                std::io::Error::other(format!("connecting to {}: {e}", config.datanode))
            })?;
        if let Some((read, write)) = &mut listeners {
            poll.registry()
                .register(read, READ_LISTENER, Interest::READABLE)?;
            poll.registry()
                .register(write, WRITE_LISTENER, Interest::READABLE)?;
        }
        let waker = Arc::new(Waker::new(poll.registry(), WAKER)?);
        let name = format!("handlersocket-{index}");
        let pool = alone::Pool::start(&name, config.threads, waker.clone())?;
        let server = Server {
            pool,
            paused: Vec::new(),
            poll,
            tls,
            listeners,
            peers: Vec::new(),
            next_loop: 0,
            incoming: None,
            link,
            batches: HashMap::new(),
            next_batch: 0,
            cluster,
            config,
            connections: HashMap::new(),
            next_token: FIRST_CONNECTION,
            stopping,
            link_ready: false,
            look_events: Events::with_capacity(256),
            failures,
            looked: false,
            relink_at: Instant::now(),
            tokens: Vec::new(),
        };
        Ok((server, waker))
    }
}

struct Conn {
    io: Connection,
    write_port: bool,
    authed: bool,
    /// The client's address, when it is off this host (counted for failed authentication).
    remote: Option<std::net::IpAddr>,
    indexes: Indexes,
    input: Vec<u8>,
    lines: VecDeque<Vec<u8>>,
    /// Answers not yet written, in request order; None while a batched read is out.
    answers: VecDeque<Option<Vec<u8>>>,
    /// Answers written so far: answer n sits at `answers[n - written]`.
    written: u64,
    last_active: Instant,
    closing: Option<String>,
    /// A request that runs on its own, waiting (with every line after it) until the batches
    /// numbered below the first field have returned.
    waiting: Option<(u64, Request)>,
    /// Requests of this connection out on the loop's threads; the lines after them wait for
    /// their answers.
    running: u32,
}

struct Server {
    poll: Poll,
    /// The read and write listeners, on the loop that accepts (the first).
    listeners: Option<(TcpListener, TcpListener)>,
    /// The other loops, which the first deals connections to in turn, and whose turn is next
    /// (0: this loop).
    peers: Vec<(mpsc::Sender<Handoff>, Arc<Waker>)>,
    next_loop: usize,
    /// Connections the first loop dealt to this one.
    incoming: Option<mpsc::Receiver<Handoff>>,
    cluster: Cluster,
    /// The data node connection the batches go over, and the batches out by number.
    link: EventSession,
    batches: HashMap<u64, Vec<Pending>>,
    next_batch: u64,
    config: HsConfig,
    /// TLS's server side, when on (`HsConfig::tls`).
    tls: Option<Arc<transport::tls::ServerConfig>>,
    connections: HashMap<usize, Conn>,
    /// The threads the requests not batched run on, and their answers.
    pool: alone::Pool,
    /// Connections whose reading stopped while a request of theirs is out.
    paused: Vec<usize>,
    next_token: usize,
    stopping: Arc<AtomicBool>,
    /// The data node's socket has replies to read.
    link_ready: bool,
    /// Events of `look`'s polls.
    look_events: Events,
    /// A look ran this turn.
    looked: bool,
    /// When the data node may next be tried again, once lost (`relink`).
    relink_at: Instant,
    /// The connections `flush_and_reap` walks, kept between turns (no allocation per turn).
    tokens: Vec<usize>,
    /// Failed `A` lines per client address off this host, shared by every loop: a secret
    /// guesser is turned away for longer and longer (loopback never is).
    failures: Arc<std::sync::Mutex<transport::auth::FailedLogins>>,
}

/// An accepted connection dealt to another loop, and whether it came to the write port.
type Handoff = (std::net::TcpStream, bool);

/// A keyed read waiting for the round's batch: connection, answer number, index, key.
struct Pending {
    token: usize,
    slot: u64,
    open: Arc<OpenIndex>,
    key: Vec<base::Value>,
    /// The find itself, to run on its own if the batch fails as a whole.
    request: Request,
}

impl Server {
    fn run(mut self) {
        let mut events = Events::with_capacity(1024);
        loop {
            if self.stopping.load(Ordering::SeqCst) {
                return;
            }
            // Sleeps until a client or the data node has something; wakes at least each second
            // for idle timeouts.
            if let Err(e) = self.poll.poll(&mut events, Some(Duration::from_secs(1))) {
                if e.kind() != std::io::ErrorKind::Interrupted {
                    warn!("handlersocket poll failed: {e}");
                }
            }
            self.relink();
            for event in events.iter() {
                self.event(event);
            }
            loop {
                if std::mem::take(&mut self.link_ready) {
                    self.collect();
                }
                self.execute();
                self.flush_and_reap();
                // A look may have queued answers for connections already written this turn.
                let again = self.link_ready || std::mem::take(&mut self.looked);
                if !again || self.stopping.load(Ordering::SeqCst) {
                    break;
                }
            }
        }
    }

    /// Connects again to a data node that was lost (it restarted, or the connection broke), at
    /// most once per `RECONNECT_EVERY`; meanwhile requests that need it answer errors. Open
    /// indexes stay open: a definition that changed meanwhile is caught by its version.
    fn relink(&mut self) {
        let (link_lost, cluster_lost) = (self.link.is_lost(), self.cluster.is_closed());
        if !(link_lost || cluster_lost) || Instant::now() < self.relink_at {
            return;
        }
        self.relink_at = Instant::now() + RECONNECT_EVERY;
        let address = self.config.datanode.clone();
        if link_lost {
            let abandoned = self.link.abandon();
            self.complete(abandoned);
            let registry = self.poll.registry();
            if let Err(e) = self
                .link
                .reconnect(&address, RECONNECT_TIMEOUT, registry, DATANODE)
            {
                debug!("handlersocket: data node {address} still unreachable: {e}");
                return;
            }
        }
        // A lost link means the blocking connection is gone too, though no call found it yet.
        if cluster_lost || link_lost {
            match Cluster::connect_timeout(&address, RECONNECT_TIMEOUT) {
                Ok(cluster) => self.cluster = cluster,
                Err(e) => {
                    debug!("handlersocket: data node {address} still unreachable: {e}");
                    return;
                }
            }
        }
        info!("handlersocket: connected to the data node {address} again");
    }

    /// Handles one readiness event; the data node's replies are only noted (`link_ready`).
    fn event(&mut self, event: &mio::event::Event) {
        match event.token() {
            READ_LISTENER => self.accept(false),
            WRITE_LISTENER => self.accept(true),
            WAKER => {
                self.adopt();
                self.answered();
            }
            DATANODE => self.link_ready = true,
            Token(t) => self.on_socket(t, event.is_read_closed()),
        }
    }

    /// Takes in, without sleeping, what clients sent since the last poll and sends its reads to
    /// the data node at once. Run between the answers of a turn, it lets the data node work on
    /// the next batch while this loop writes the rest of the answers, instead of both taking
    /// turns with the other idle.
    fn look(&mut self) {
        let mut events = std::mem::replace(&mut self.look_events, Events::with_capacity(0));
        if self.poll.poll(&mut events, Some(Duration::ZERO)).is_ok() {
            for event in events.iter() {
                self.event(event);
            }
            self.execute();
        }
        self.looked = true;
        self.look_events = events;
    }

    fn accept(&mut self, write_port: bool) {
        loop {
            let Some((read, write)) = &self.listeners else {
                return;
            };
            let listener = if write_port { write } else { read };
            let stream = match listener.accept() {
                Ok((s, peer)) if self.blocked(peer.ip(), write_port) => {
                    // Closed at once: the address failed authentication too often lately.
                    drop(s);
                    continue;
                }
                Ok((s, _)) => s,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return,
                Err(e) => {
                    warn!("handlersocket accept failed: {e}");
                    return;
                }
            };
            // Back to a std stream: the transport crate owns socket setup.
            let std_stream = {
                use std::os::fd::{FromRawFd, IntoRawFd};
                // SAFETY: the descriptor comes from the mio stream we give up here.
                unsafe { std::net::TcpStream::from_raw_fd(stream.into_raw_fd()) }
            };
            let turn = self.next_loop;
            self.next_loop = (self.next_loop + 1) % (self.peers.len() + 1);
            // Turn 0 is this loop's; turn n the nth peer's (the modulo keeps it in range).
            let Some((tx, waker)) = turn.checked_sub(1).and_then(|p| self.peers.get(p)) else {
                self.add(std_stream, write_port);
                continue;
            };
            if tx.send((std_stream, write_port)).is_err() || waker.wake().is_err() {
                warn!("handlersocket: loop {turn} is gone; a connection was dropped");
            }
        }
    }

    /// Whether an address off this host failed this port's authentication too often lately.
    fn blocked(&self, ip: std::net::IpAddr, write_port: bool) -> bool {
        !ip.is_loopback()
            && self
                .failures
                .lock()
                .map(|f| !f.allowed(ip, scope(write_port), Instant::now()))
                .unwrap_or(false)
    }

    /// Takes the connections the first loop dealt to this one.
    fn adopt(&mut self) {
        let Some(incoming) = &self.incoming else {
            return;
        };
        let dealt: Vec<Handoff> = incoming.try_iter().collect();
        for (stream, write_port) in dealt {
            self.add(stream, write_port);
        }
    }

    /// Starts serving an accepted connection.
    fn add(&mut self, std_stream: std::net::TcpStream, write_port: bool) {
        let remote = std_stream
            .peer_addr()
            .ok()
            .map(|a| a.ip())
            .filter(|ip| !ip.is_loopback());
        if self.connections.len() >= self.config.max_connections {
            warn!(
                "handlersocket: refusing a connection, {} open",
                self.connections.len()
            );
            return;
        }
        let stream = match &self.tls {
            None => transport::Stream::Tcp(std_stream),
            Some(tls) => match transport::tls::accept_later(std_stream, tls.clone()) {
                Ok(s) => transport::Stream::Tls(s),
                Err(e) => {
                    warn!("handlersocket: could not start TLS on a connection: {e}");
                    return;
                }
            },
        };
        let mut io = match Connection::new(stream) {
            Ok(io) => io,
            Err(e) => {
                warn!("handlersocket: could not set up a connection: {e}");
                return;
            }
        };
        let token = self.next_token;
        self.next_token += 1;
        if let Err(e) = io.register(self.poll.registry(), Token(token)) {
            warn!("handlersocket: could not register a connection: {e}");
            return;
        }
        self.connections.insert(
            token,
            Conn {
                io,
                write_port,
                authed: false,
                remote,
                indexes: Indexes {
                    open: HashMap::new(),
                    write_port,
                },
                input: Vec::new(),
                lines: VecDeque::new(),
                answers: VecDeque::new(),
                written: 0,
                last_active: Instant::now(),
                closing: None,
                waiting: None,
                running: 0,
            },
        );
        self.on_socket(token, false);
    }

    /// Reads what a connection sent; `read_closed`: the event carried the client's FIN.
    fn on_socket(&mut self, token: usize, read_closed: bool) {
        let Some(conn) = self.connections.get_mut(&token) else {
            return;
        };
        conn.last_active = Instant::now();
        let blocked = conn.running > 0 || conn.waiting.is_some();
        if blocked && conn.lines.iter().map(Vec::len).sum::<usize>() >= QUEUED_BYTES_MAX {
            // Its lines wait for an earlier request: leave the rest in the socket (the
            // client's sends wait) until it is answered (`resume_paused`).
            if !self.paused.contains(&token) {
                self.paused.push(token);
            }
            return;
        }
        match conn
            .io
            .read_raw(&mut conn.input, LINE_BYTES_MAX + 1, read_closed)
        {
            Ok(ReadState::Open | ReadState::Stopped) => {}
            Ok(ReadState::Closed) => conn.closing = Some(String::new()),
            Err(e) => conn.closing = Some(format!("read failed: {e}")),
        }
        // Complete lines go to the queue; a partial one waits, within the bound.
        let mut start = 0;
        for piece in conn.input.split_inclusive(|b| *b == b'\n') {
            let Some(line) = piece.strip_suffix(b"\n") else {
                break;
            };
            conn.lines.push_back(line.to_vec());
            start += piece.len();
        }
        conn.input.drain(..start);
        if conn.input.len() > LINE_BYTES_MAX {
            conn.closing = Some(format!("a request line longer than {LINE_BYTES_MAX} bytes"));
            conn.lines.clear();
        }
    }

    /// Runs every queued line in rounds (see the module comment).
    fn execute(&mut self) {
        self.resume_paused();
        loop {
            let mut batch: Vec<Pending> = Vec::new();
            let mut progressed = false;
            // Requests on their own whose batches have all returned run first.
            let oldest_out = self
                .batches
                .keys()
                .min()
                .copied()
                .unwrap_or(self.next_batch);
            let ready: Vec<usize> = self
                .connections
                .iter()
                .filter(|(_, c)| {
                    c.waiting
                        .as_ref()
                        .is_some_and(|(after, _)| oldest_out >= *after)
                        && c.running == 0
                })
                .map(|(t, _)| *t)
                .collect();
            for token in ready {
                let Some(conn) = self.connections.get_mut(&token) else {
                    continue;
                };
                if let Some((_, request)) = conn.waiting.take() {
                    let slot = conn.written + conn.answers.len() as u64;
                    conn.answers.push_back(None);
                    hand_over(&self.pool, &self.cluster, conn, token, slot, request, None);
                    progressed = true;
                }
            }
            let mut blocked = Vec::new();
            for (&token, conn) in self.connections.iter_mut() {
                if conn.waiting.is_some() || conn.running > 0 {
                    continue;
                }
                while let Some(line) = conn.lines.pop_front() {
                    progressed = true;
                    match classify(conn, &self.config, &self.failures, &line) {
                        Step::Answer(a) => conn.answers.push_back(Some(a)),
                        Step::Open(id, req) => {
                            let a = run_open(&self.cluster, conn, id, req);
                            conn.answers.push_back(Some(a));
                        }
                        Step::Batch(open, key, request) => {
                            batch.push(Pending {
                                token,
                                slot: conn.written + conn.answers.len() as u64,
                                open,
                                key,
                                request,
                            });
                            conn.answers.push_back(None);
                        }
                        Step::Alone(req) => {
                            blocked.push(token);
                            conn.waiting = Some((0, req));
                            break;
                        }
                    }
                }
            }
            self.send_batch(batch);
            // A request on its own waits for every batch sent so far, this round's included.
            for token in blocked {
                if let Some((after, _)) = self
                    .connections
                    .get_mut(&token)
                    .and_then(|c| c.waiting.as_mut())
                {
                    *after = self.next_batch;
                }
            }
            if !progressed {
                return;
            }
        }
    }

    /// Takes in the answers the loop's threads finished: each fills its place, keeps an index
    /// opened again, and lets the lines after it run.
    fn answered(&mut self) {
        while let Ok(done) = self.pool.done.try_recv() {
            let Some(conn) = self.connections.get_mut(&done.token) else {
                continue; // closed meanwhile (tokens are never reused)
            };
            if let Some(open) = done.reopened {
                // Kept unless the client opened that id anew meanwhile.
                let id = open.spec.id;
                if conn
                    .indexes
                    .open
                    .get(&id)
                    .is_none_or(|o| o.stale.load(Ordering::Relaxed))
                {
                    conn.indexes.open.insert(id, open);
                }
            }
            fill(conn, done.slot, done.answer);
            conn.running = conn.running.saturating_sub(1);
            conn.last_active = Instant::now();
        }
        self.resume_paused();
    }

    /// Reads again the connections whose reading stopped while a request of theirs was out
    /// (`QUEUED_BYTES_MAX`) and that are free now: what they sent meanwhile waited in the
    /// socket, and no new event would report it.
    fn resume_paused(&mut self) {
        if self.paused.is_empty() {
            return;
        }
        let paused = std::mem::take(&mut self.paused);
        for token in paused {
            match self.connections.get(&token) {
                Some(c) if c.running > 0 || c.waiting.is_some() => self.paused.push(token),
                Some(_) => self.on_socket(token, false),
                None => {}
            }
        }
    }

    /// Sends every plain keyed read of the round as one request, without waiting for it.
    fn send_batch(&mut self, batch: Vec<Pending>) {
        if batch.is_empty() {
            return;
        }
        let operations: Vec<Operation> = batch
            .iter()
            .map(|p| {
                let index = match p.open.index {
                    exec::IndexChoice::Unique(n) => Some(n),
                    _ => None,
                };
                Operation::read(
                    p.open.table.id(),
                    p.open.table.version(),
                    index,
                    p.key.clone(),
                    LockMode::CommittedRead,
                    p.open.columns.clone(),
                )
            })
            .collect();
        let token = self.next_batch;
        self.next_batch += 1;
        let sent = self
            .link
            .prepare(token, operations, ExecType::Commit)
            .and_then(|()| self.link.flush(self.poll.registry()));
        match sent {
            Ok(()) => {
                self.batches.insert(token, batch);
            }
            Err(e) => {
                self.answer_batch(batch, Err(e));
                // A failed write fails every batch out too.
                let abandoned = self.link.abandon();
                self.complete(abandoned);
            }
        }
    }

    /// Answers the batches whose replies arrived (or all, failed, if the data node is lost),
    /// and writes requests the socket did not take before.
    fn collect(&mut self) {
        let done = self.link.read();
        self.complete(done);
        if let Err(e) = self.link.flush(self.poll.registry()) {
            warn!("handlersocket lost its data node connection: {e}");
            self.link.deregister(self.poll.registry());
            let abandoned = self.link.abandon();
            self.complete(abandoned);
        }
    }

    fn complete(&mut self, done: Vec<client::Completion>) {
        for (token, result) in done {
            if let Some(batch) = self.batches.remove(&token) {
                self.answer_batch(batch, result);
            }
        }
    }

    fn answer_batch(&mut self, batch: Vec<Pending>, result: client::Result<Vec<OpResult>>) {
        let may_hold = batch.iter().any(|p| p.open.table.holds_parts());
        let parts = may_hold
            && matches!(&result, Ok(results) if client::has_parts(
                results.iter().filter_map(|r| match r {
                    OpResult::Row(values) => Some(values.as_slice()),
                    _ => None,
                })
            ));
        if parts || matches!(&result, Err(client::ClientError::Aborted { .. })) {
            // One read failed the whole batch (its table was changed or dropped), or found a
            // long value kept in parts, which the event loop does not wait to join: every read
            // runs again on its own and answers for itself only (opening its index again when
            // its table changed).
            debug!("handlersocket batch runs its reads one by one (parts: {parts})");
            for p in batch {
                let Some(conn) = self.connections.get_mut(&p.token) else {
                    continue;
                };
                let open = Some(p.open.clone());
                hand_over(
                    &self.pool,
                    &self.cluster,
                    conn,
                    p.token,
                    p.slot,
                    p.request,
                    open,
                );
            }
            return;
        }
        for (i, p) in batch.iter().enumerate() {
            let answer = match &result {
                Ok(results) => match results.get(i) {
                    Some(OpResult::Row(values)) => {
                        exec::answer_projected(&p.open, Some(values.as_slice()))
                    }
                    _ => exec::answer_projected(&p.open, None),
                },
                Err(e) => exec::failure(&self.cluster, &p.open, e),
            };
            if let Some(conn) = self.connections.get_mut(&p.token) {
                fill(conn, p.slot, answer);
            }
        }
        if let Err(e) = result {
            debug!("handlersocket batch failed: {e}");
        }
    }

    fn flush_and_reap(&mut self) {
        let now = Instant::now();
        let mut closed = Vec::new();
        // A look may add connections meanwhile: walk the ones there are now.
        let mut tokens = std::mem::take(&mut self.tokens);
        tokens.clear();
        tokens.extend(self.connections.keys().copied());
        let mut answered = 0;
        for &token in &tokens {
            let Some(conn) = self.connections.get_mut(&token) else {
                continue;
            };
            let out = conn.io.output();
            let before = conn.written;
            while let Some(Some(_)) = conn.answers.front() {
                if let Some(Some(a)) = conn.answers.pop_front() {
                    out.extend_from_slice(&a);
                    conn.written += 1;
                }
            }
            if let Err(e) = conn.io.flush(self.poll.registry(), Token(token)) {
                conn.closing = Some(format!("write failed: {e}"));
            }
            // A connection whose request is still out is not idle.
            let out = conn.running > 0 || conn.waiting.is_some();
            if !out && now.duration_since(conn.last_active) > self.config.idle_timeout {
                conn.closing.get_or_insert("idle timeout".into());
            }
            // A client that closed its side still gets every answer to what it sent, as from
            // the plugin; a connection closed for a fault goes at once.
            let drained = conn.lines.is_empty()
                && conn.waiting.is_none()
                && conn.answers.is_empty()
                && conn.io.backlog() == 0;
            if conn.closing.is_some() && (drained || conn.closing.as_deref() != Some("")) {
                closed.push(token);
            }
            if conn.written != before {
                answered += 1;
                if answered % ANSWERS_PER_LOOK == 0 {
                    self.look();
                }
            }
        }
        self.tokens = tokens;
        for token in closed {
            if let Some(mut conn) = self.connections.remove(&token) {
                if let Some(why) = conn.closing.as_deref().filter(|w| !w.is_empty()) {
                    warn!(
                        peer = conn.io.peer(),
                        "handlersocket connection closed: {why}"
                    );
                }
                conn.io.deregister(self.poll.registry());
                conn.io.shutdown();
            }
        }
    }
}

enum Step {
    Answer(Vec<u8>),
    Open(u32, Request),
    Batch(Arc<OpenIndex>, Vec<base::Value>, Request),
    Alone(Request),
}

/// What a failed login is counted against besides the address: the port's secret.
fn scope(write_port: bool) -> &'static str {
    if write_port {
        "handlersocket write"
    } else {
        "handlersocket read"
    }
}

fn secret<'a>(conn: &Conn, config: &'a HsConfig) -> &'a [u8] {
    if conn.write_port {
        &config.write_secret
    } else {
        &config.read_secret
    }
}

/// Compares a key with the secret in time that does not depend on where they differ, so the
/// secret cannot be guessed a byte at a time from answer times.
fn same_secret(key: &[u8], secret: &[u8]) -> bool {
    key.len() == secret.len()
        && key
            .iter()
            .zip(secret)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

fn classify(
    conn: &mut Conn,
    config: &HsConfig,
    failures: &std::sync::Mutex<transport::auth::FailedLogins>,
    line: &[u8],
) -> Step {
    let request = match protocol::parse(line, &conn.indexes) {
        Ok(r) => r,
        Err(answer) => {
            // Unauthenticated connections learn nothing about open indexes.
            let first = line.first().copied().unwrap_or_default();
            if !secret(conn, config).is_empty()
                && !conn.authed
                && (first == b'P' || first.is_ascii_digit())
            {
                return Step::Answer(protocol::error(3, "unauth"));
            }
            return Step::Answer(answer);
        }
    };
    if let Request::Auth { kind, key } = &request {
        if kind.as_slice() != b"1" {
            return Step::Answer(protocol::error(3, "authtype"));
        }
        // A blocked address is not even compared: guesses pipelined on one connection are held
        // to the same pace as new connections. Each attempt counts as a failure until it passes.
        let scope = scope(conn.write_port);
        let blocked = conn.remote.is_some_and(|ip| {
            failures
                .lock()
                .map(|mut f| !f.begin(ip, scope, Instant::now()))
                .unwrap_or(false)
        });
        if blocked {
            conn.authed = false;
            return Step::Answer(protocol::error(3, "unauth"));
        }
        let passed = same_secret(key, secret(conn, config));
        if let (true, Some(ip), Ok(mut f)) = (passed, conn.remote, failures.lock()) {
            f.passed(ip, scope);
        }
        if passed {
            conn.authed = true;
            return Step::Answer(protocol::ok());
        }
        conn.authed = false;
        return Step::Answer(protocol::error(3, "unauth"));
    }
    if !secret(conn, config).is_empty() && !conn.authed {
        return Step::Answer(protocol::error(3, "unauth"));
    }
    match request {
        Request::OpenIndex { id, .. } => Step::Open(id, request),
        Request::Insert { .. } if !conn.write_port => Step::Answer(protocol::error(2, "readonly")),
        Request::Find(ref f) if f.modify.is_some() && !conn.write_port => {
            Step::Answer(protocol::error(2, "readonly"))
        }
        Request::Find(ref f) => {
            let Some(open) = conn.indexes.open.get(&f.index_id) else {
                return Step::Answer(protocol::error(2, "stmtnum"));
            };
            if open.stale.load(std::sync::atomic::Ordering::Relaxed) {
                // Opened again (a round trip) when it runs.
                return Step::Alone(request);
            }
            if f.key.len() > open.key_columns.len() {
                return Step::Answer(protocol::error(2, "kpnum"));
            }
            match exec::simple_read(open, f) {
                Some(key) => Step::Batch(Arc::clone(open), key, request),
                None => Step::Alone(request),
            }
        }
        other => Step::Alone(other),
    }
}

/// The table an open_index names: `db/table` (a table made through SQL, in database `db`) when
/// the database holds it, else the bare name (a table made through the native API without a
/// database).
fn qualified(cluster: &Cluster, db: &[u8], table: &[u8]) -> Vec<u8> {
    if !db.is_empty() {
        let mut name = db.to_vec();
        name.push(b'/');
        name.extend_from_slice(table);
        if cluster.table(&String::from_utf8_lossy(&name)).is_ok() {
            return name;
        }
    }
    table.to_vec()
}

fn run_open(cluster: &Cluster, conn: &mut Conn, id: u32, request: Request) -> Vec<u8> {
    let Request::OpenIndex {
        db,
        table,
        index,
        columns,
        filter_columns,
        ..
    } = request
    else {
        return protocol::error(2, "cmd");
    };
    let table = qualified(cluster, &db, &table);
    match exec::open_index(cluster, id, &table, &index, &columns, &filter_columns) {
        Ok(open) => {
            conn.indexes.open.insert(id, Arc::new(open));
            protocol::ok()
        }
        Err(answer) => answer,
    }
}

/// Hands a request that is not batched to the loop's threads; its answer fills `slot` when it
/// comes back (`Server::answered`), and the connection's later lines wait till then. It runs on
/// `open`, else on the index its id names now. When that is not open, or the threads are gone,
/// the slot is answered now.
fn hand_over(
    pool: &alone::Pool,
    cluster: &Cluster,
    conn: &mut Conn,
    token: usize,
    slot: u64,
    request: Request,
    open: Option<Arc<OpenIndex>>,
) {
    let id = match &request {
        Request::Find(f) => f.index_id,
        Request::Insert { index_id, .. } => *index_id,
        _ => u32::MAX,
    };
    let answer = match open.as_ref().or_else(|| conn.indexes.open.get(&id)) {
        Some(open) => {
            let job = Job {
                token,
                slot,
                cluster: cluster.clone(),
                open: open.clone(),
                request,
            };
            if pool.submit(job) {
                conn.running += 1;
                return;
            }
            protocol::error(1, "stopping")
        }
        None => protocol::error(2, "stmtnum"),
    };
    fill(conn, slot, answer);
}

/// Puts an answer in its place among a connection's answers not yet written.
fn fill(conn: &mut Conn, slot: u64, answer: Vec<u8>) {
    if let Some(place) = slot
        .checked_sub(conn.written)
        .and_then(|i| conn.answers.get_mut(i as usize))
    {
        *place = Some(answer);
    }
}
