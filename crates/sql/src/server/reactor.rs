//! The SQL front end's event loop: it holds every idle connection, reads their commands without
//! blocking, and serves itself the commands that need at most one round trip of committed reads
//! (a prepared SELECT by keys, by range or by scan while the session holds nothing on the data
//! node; BEGIN, COMMIT and ROLLBACK with nothing to end; COM_PING). Those reads go to the data
//! node over one `EventSession` in the same poll as the clients: every read of a poll round
//! leaves in one write, sent before the round's replies are answered and looked for again every
//! few answers of a large batch, and the loop sleeps until a client or the data node has
//! something. A result whose rows map one to one from the rows read is streamed a scan batch
//! at a time, the next asked for as each arrives (`Loop::stream_rows`). Any other command
//! goes to a thread (`server/threads.rs`), which runs it with blocking
//! calls (`server/conn.rs`) and parks the connection here again once its input is drained; an idle
//! connection holds no thread.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use base::Value;
use client::{
    EventSession, ExecType, OpResult, ReplicaSeen, Reply, RECONNECT_EVERY, RECONNECT_TIMEOUT,
};
use mio::{Events, Poll, Token, Waker};
use myproto::binary;
use myproto::command;
use myproto::packet::parse_payload;
use sqlparser::ast::Statement;
use tracing::{debug, info, warn};
use transport::nonblocking::{Connection, ReadState};

use crate::exec::step::{Request, Start};
use crate::exec::Stepping;
use crate::foundation::error::SqlError;
use crate::plan::cache;
use crate::plan::compiled::Compiled;
use crate::plan::SelectPlan;
use crate::server::conn::Conn;
use crate::server::values::param_values;
use crate::session::Outcome;

const WAKER: Token = Token(0);
const DATANODE: Token = Token(1);
/// The token of the loop's first READ_BACKUP reader link (`Links`); connection tokens never
/// come near it.
const FIRST_READER: usize = usize::MAX / 2;
/// How long a loop waits before looking again for replicas to read from, after a look that
/// found none or after one stopped serving reads.
const READERS_LOOK_EVERY: Duration = Duration::from_secs(5);
/// Connection tokens start here and are never reused, so a late reply cannot reach a newer
/// connection.
const FIRST_CONNECTION: u64 = 2;

/// How long the loop sleeps at most, to notice a stop.
const POLL_TIMEOUT: Duration = Duration::from_millis(500);
/// Answers given between two looks at the clients while a batch of replies is answered (see
/// `Loop::look`).
const ANSWERS_PER_LOOK: usize = 4;
/// Bytes read from one connection per turn before its commands are looked at.
const INPUT_BYTES_MAX: usize = 1 << 20;
/// Rows of a streamed result's batch (`exec::step::streams`): few enough that its first rows
/// reach the client while the data node reads the next, as MariaDB sends rows as it finds them.
const STREAM_BATCH_ROWS: u32 = 256;
/// Bytes of a streamed result waiting for the client past which the next batch is not asked
/// for until it takes them: a client that reads slowly holds the scan back.
const STREAM_BACKLOG_MAX: usize = 256 * 1024;

/// A connection handed to the loop by the thread that served its last command.
pub(crate) struct Parked {
    pub conn: Box<Conn>,
}

/// The handle connection threads park their connections through: one or more loops, each
/// with its own thread and data node session; a connection always parks in the same one.
pub(crate) struct Reactor {
    loops: Vec<LoopHandle>,
    stopping: Arc<AtomicBool>,
}

struct LoopHandle {
    parked: Sender<Parked>,
    waker: Arc<Waker>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl Reactor {
    /// Starts `loops` loops (at least one), each connecting its own data node session.
    pub fn start(datanode: &str, loops: usize) -> std::io::Result<Reactor> {
        let stopping = Arc::new(AtomicBool::new(false));
        let loops = (0..loops.max(1))
            .map(|n| LoopHandle::start(datanode, n, stopping.clone()))
            .collect::<std::io::Result<_>>()?;
        Ok(Reactor { loops, stopping })
    }

    /// Gives an idle connection to its loop; hands it back if the loops have stopped.
    pub fn park(&self, p: Parked) -> Result<(), Box<Conn>> {
        if self.stopping.load(Ordering::SeqCst) {
            return Err(p.conn);
        }
        let l = &self.loops[p.conn.session.id as usize % self.loops.len()];
        l.parked.send(p).map_err(|e| e.0.conn)?;
        let _ = l.waker.wake();
        Ok(())
    }

    /// Stops the loops; the connections they hold are closed.
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        for l in &self.loops {
            let _ = l.waker.wake();
        }
        for l in &self.loops {
            let thread = l.thread.lock().map(|mut t| t.take()).unwrap_or(None);
            if let Some(t) = thread {
                let _ = t.join();
            }
        }
    }
}

impl LoopHandle {
    fn start(datanode: &str, n: usize, stopping: Arc<AtomicBool>) -> std::io::Result<LoopHandle> {
        let mut link = EventSession::connect(datanode, Duration::from_secs(5))
            .map_err(|e| std::io::Error::other(format!("connecting to {datanode}: {e}")))?;
        let poll = Poll::new()?;
        let waker = Arc::new(Waker::new(poll.registry(), WAKER)?);
        link.register(poll.registry(), DATANODE)
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        let mut links = Links::new(link);
        links.look(datanode, poll.registry());
        let (parked, arrivals) = mpsc::channel();
        let mut lp = Loop {
            poll,
            links,
            arrivals,
            slots: HashMap::new(),
            next_token: FIRST_CONNECTION,
            stopping,
            replies_ready: false,
            look_events: Events::with_capacity(256),
            datanode: datanode.to_string(),
            relink_at: Instant::now(),
        };
        let thread = std::thread::Builder::new()
            .name(format!("sql-reactor-{n}"))
            .spawn(move || lp.run())?;
        Ok(LoopHandle {
            parked,
            waker,
            thread: Mutex::new(Some(thread)),
        })
    }
}

/// Where a running statement's plan lives.
/// A statement sent to the data node, waiting for its reply.
struct Waiting {
    /// The plan it runs (a prepared statement's or a cached text query's, shared with it).
    plan: Arc<Compiled>,
    /// A prepared statement's (binary rows), or a text query's (text rows).
    binary: bool,
    params: Vec<Value>,
    /// The command packet, for the connection's thread to run again if the table changed.
    packet: Vec<u8>,
    /// The scan's pushed filter decides the WHERE: its rows need no re-check.
    decided: bool,
    /// A result streamed a batch at a time (None: answered whole).
    stream: Option<Streamed>,
}

/// A result going to its client a batch at a time, as the data node answers them.
#[derive(Default)]
struct Streamed {
    /// Its columns and the status its end carries, once its header is written.
    header: Option<(Vec<myproto::response::Column>, u16)>,
    /// Rows sent so far (FOUND_ROWS()).
    found: u64,
    /// Since when the next batch waits for the client to take the rows before it.
    paused: Option<Instant>,
}

struct Slot {
    conn: Box<Conn>,
    io: Connection,
    input: Vec<u8>,
    /// The last read stopped at INPUT_BYTES_MAX: the socket may hold more.
    more: bool,
    /// When the client last sent something (for wait_timeout).
    last: Instant,
    waiting: Option<Waiting>,
    /// The client closed its side: answer what it sent, then close.
    peer_closed: bool,
}

/// A loop's links to the data nodes: the one to the node that serves, which any read may take,
/// and, in a cluster of one node group, links to the group's other nodes that answer reads of
/// READ_BACKUP tables (NDB's READ_BACKUP: any replica may answer them), those
/// `client::read_from` chooses. Such reads take the chosen links in turn, so that replicas on
/// several hosts share them.
struct Links {
    primary: EventSession,
    /// Reader links, under tokens from `FIRST_READER` on.
    readers: Vec<EventSession>,
    /// Whether READ_BACKUP reads take the primary's link in their turn too (it is on this
    /// host, or no reader is).
    primary_reads: bool,
    turn: usize,
    /// When to look for readers again while there are none (None: the last look saw every
    /// node and chose the primary alone, as on one host; a new primary link looks again).
    look_at: Option<Instant>,
}

impl Links {
    fn new(primary: EventSession) -> Links {
        Links {
            primary,
            readers: Vec::new(),
            primary_reads: true,
            turn: 0,
            look_at: Some(Instant::now()),
        }
    }

    /// Connects to the other nodes of `datanodes` that answer READ_BACKUP reads in the
    /// primary's node group (a cluster of one group) and that `client::read_from` chooses:
    /// none when the group's nodes share one host.
    fn look(&mut self, datanodes: &str, registry: &mio::Registry) {
        self.look_at = Some(Instant::now() + READERS_LOOK_EVERY);
        let hello = self.primary.hello();
        let addresses: Vec<&str> = datanodes
            .split(',')
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .collect();
        if hello.groups != 1 || addresses.len() < 2 || !self.readers.is_empty() {
            return;
        }
        let mut seen = Vec::new();
        let mut links = Vec::new();
        // Whether every node answered, and each serves reads: a look that chose no reader
        // then stands until the primary link is made again.
        let mut settled = true;
        for address in addresses {
            let Ok(link) = EventSession::connect_node(address) else {
                settled = false;
                continue;
            };
            let h = link.hello();
            let primary = h.node_id == hello.node_id;
            settled &= primary || h.reads;
            if (primary || h.reads && h.group == hello.group)
                && !seen.iter().any(|r: &ReplicaSeen| r.node == h.node_id)
            {
                seen.push(ReplicaSeen::of(address, h.node_id, primary));
                links.push((!primary).then_some(link));
            }
        }
        let chosen = client::read_from(&seen);
        self.primary_reads = chosen.iter().any(|i| seen[*i].primary);
        for i in chosen {
            let Some(mut link) = links[i].take() else {
                continue;
            };
            let token = Token(FIRST_READER + self.readers.len());
            if link.register(registry, token).is_ok() {
                self.readers.push(link);
            }
        }
        if !self.readers.is_empty() {
            info!(
                "sql reactor: READ_BACKUP reads go to {} more data node(s) of the node group",
                self.readers.len()
            );
        } else if settled {
            self.look_at = None;
        }
    }

    /// Drops every reader link (one stopped serving reads, was lost, or the primary changed);
    /// the loop looks again after `READERS_LOOK_EVERY`. Returns the reads that were still out
    /// on them, failed as lost (their statements run again on their threads).
    fn drop_readers(&mut self, registry: &mio::Registry) -> Vec<(u64, client::Result<Reply>)> {
        let mut abandoned = Vec::new();
        for mut r in self.readers.drain(..) {
            r.deregister(registry);
            abandoned.extend(
                r.abandon()
                    .into_iter()
                    .map(|(token, result)| (token, result.map(Reply::Ops))),
            );
        }
        self.primary_reads = true;
        self.look_at = Some(Instant::now() + READERS_LOOK_EVERY);
        abandoned
    }

    /// The link a read goes over: for reads any replica may answer, the next in turn.
    fn pick(&mut self, any_replica: bool) -> &mut EventSession {
        if !any_replica || self.readers.is_empty() {
            return &mut self.primary;
        }
        let choices = self.readers.len() + usize::from(self.primary_reads);
        self.turn = (self.turn + 1) % choices;
        match self.turn.checked_sub(usize::from(self.primary_reads)) {
            Some(r) => &mut self.readers[r],
            None => &mut self.primary,
        }
    }

    fn all(&mut self) -> impl Iterator<Item = &mut EventSession> {
        std::iter::once(&mut self.primary).chain(self.readers.iter_mut())
    }
}

struct Loop {
    poll: Poll,
    links: Links,
    arrivals: Receiver<Parked>,
    slots: HashMap<u64, Slot>,
    next_token: u64,
    stopping: Arc<AtomicBool>,
    /// The data node's socket has replies to read.
    replies_ready: bool,
    /// Events of `look`'s polls.
    look_events: Events,
    /// The data node's address, to connect again once the link is lost (`relink`).
    datanode: String,
    /// When the data node may next be tried again.
    relink_at: Instant,
}

/// What the loop did with one command.
enum Step {
    /// Answered; look at the next command.
    Answered,
    /// Sent to the data node; the connection waits for the reply.
    Sent(Waiting),
    /// COM_QUIT.
    Quit,
    /// The connection's thread must run it.
    Thread,
}

impl Loop {
    fn run(&mut self) {
        let mut events = Events::with_capacity(1024);
        let mut swept = Instant::now();
        loop {
            if let Err(e) = self.poll.poll(&mut events, Some(POLL_TIMEOUT)) {
                if e.kind() != std::io::ErrorKind::Interrupted {
                    warn!("sql reactor poll failed: {e}");
                    return;
                }
            }
            if self.stopping.load(Ordering::SeqCst) {
                return;
            }
            if swept.elapsed() >= POLL_TIMEOUT {
                swept = Instant::now();
                self.sweep();
            }
            self.relink();
            for event in events.iter() {
                self.event(event);
            }
            // New reads leave before the replies are answered, so the data node works on them
            // meanwhile.
            self.send_reads();
            while std::mem::take(&mut self.replies_ready) {
                self.replies();
                self.send_reads();
            }
        }
    }

    /// Notes or handles one readiness event: the data node's replies are only noted
    /// (`replies_ready`), so that `look` can run in the middle of answering a batch.
    fn event(&mut self, event: &mio::event::Event) {
        match event.token() {
            WAKER => self.arrive(),
            DATANODE => {
                if event.is_writable() {
                    let _ = self.links.primary.flush(self.poll.registry());
                }
                if event.is_readable() {
                    self.replies_ready = true;
                }
            }
            Token(t) if t >= FIRST_READER => {
                if let Some(r) = self.links.readers.get_mut(t - FIRST_READER) {
                    if event.is_writable() {
                        let _ = r.flush(self.poll.registry());
                    }
                }
                if event.is_readable() || event.is_read_closed() {
                    self.replies_ready = true;
                }
            }
            Token(t) => {
                let t = t as u64;
                if event.is_writable() {
                    self.flush(t);
                    self.resume_stream(t);
                }
                if event.is_readable() || event.is_read_closed() {
                    self.readable(t, event.is_read_closed());
                }
            }
        }
    }

    /// Connects again to a data node that was lost (it restarted, or the connection broke), at
    /// most once per `RECONNECT_EVERY`; meanwhile connections' threads serve every command
    /// (each session has its own data node connection).
    fn relink(&mut self) {
        if !self.links.primary.is_lost() {
            if self.links.readers.is_empty()
                && self.links.look_at.is_some_and(|t| Instant::now() >= t)
            {
                self.links.look(&self.datanode, self.poll.registry());
            }
            return;
        }
        if Instant::now() < self.relink_at {
            return;
        }
        self.relink_at = Instant::now() + RECONNECT_EVERY;
        self.replies();
        let registry = self.poll.registry();
        match self
            .links
            .primary
            .reconnect(&self.datanode, RECONNECT_TIMEOUT, registry, DATANODE)
        {
            Ok(()) => {
                info!(
                    "sql reactor: connected to the data node {} again",
                    self.datanode
                );
                // The node group may have another primary now: its readers are looked for again.
                let abandoned = self.links.drop_readers(registry);
                self.links.look_at = Some(Instant::now());
                for (token, reply) in abandoned {
                    self.reply(token, reply);
                }
            }
            Err(e) => debug!(
                "sql reactor: data node {} still unreachable: {e}",
                self.datanode
            ),
        }
    }

    /// Writes the reads queued for the data node.
    fn send_reads(&mut self) {
        let registry = self.poll.registry();
        for link in self.links.all() {
            if link.in_flight() > 0 {
                if let Err(e) = link.flush(registry) {
                    warn!("sql reactor: data node connection lost: {e}");
                    self.replies_ready = true;
                }
            }
        }
    }

    /// Takes in, without sleeping, the commands clients sent since the last poll, and sends
    /// their reads to the data node at once. Run between the answers to a large batch, it lets
    /// the data node work on the next reads while this loop answers the rest, instead of both
    /// taking turns with the other idle.
    fn look(&mut self) {
        let mut events = std::mem::replace(&mut self.look_events, Events::with_capacity(0));
        if self.poll.poll(&mut events, Some(Duration::ZERO)).is_ok() {
            for event in events.iter() {
                self.event(event);
            }
            self.send_reads();
        }
        self.look_events = events;
    }

    /// Closes connections idle longer than their session's wait_timeout, or holding part of a
    /// command longer than its net_read_timeout.
    fn sweep(&mut self) {
        let idle: Vec<u64> = self
            .slots
            .iter()
            .filter(|(_, s)| {
                // Idle past wait_timeout, or stalled inside a command's packets past
                // net_read_timeout (a client that sent part of a command and no more).
                let limit = if s.input.is_empty() {
                    s.conn.session.wait_timeout()
                } else {
                    s.conn.session.net_read_timeout()
                };
                // A client that takes no rows of a streamed result: closed after its
                // net_write_timeout, as MariaDB's blocked write fails.
                let stalled = s
                    .waiting
                    .as_ref()
                    .and_then(|w| w.stream.as_ref()?.paused)
                    .is_some_and(|t| t.elapsed() > s.conn.session.net_write_timeout());
                stalled || s.waiting.is_none() && s.last.elapsed() > limit
            })
            .map(|(t, _)| *t)
            .collect();
        for token in idle {
            self.close(token);
        }
    }

    /// Takes in the connections threads parked.
    fn arrive(&mut self) {
        while let Ok(p) = self.arrivals.try_recv() {
            let token = self.next_token;
            self.next_token += 1;
            let io = match p
                .conn
                .stream()
                .try_clone()
                .and_then(Connection::new)
                .and_then(|mut io| {
                    io.register(self.poll.registry(), Token(token as usize))?;
                    Ok(io)
                }) {
                Ok(io) => io,
                Err(e) => {
                    // Keep serving it from its thread.
                    warn!("sql reactor: cannot take a connection: {e}");
                    crate::server::conn::resume_on_a_thread(p.conn, false);
                    continue;
                }
            };
            self.slots.insert(
                token,
                Slot {
                    conn: p.conn,
                    io,
                    input: Vec::new(),
                    more: false,
                    last: Instant::now(),
                    waiting: None,
                    peer_closed: false,
                },
            );
            // Bytes may have arrived while the thread still held it.
            self.readable(token, false);
        }
    }

    /// `read_closed`: the event carried the client's FIN.
    fn readable(&mut self, token: u64, read_closed: bool) {
        if self.fill(token, read_closed) {
            self.commands(token);
        }
    }

    /// Reads what the socket holds, up to INPUT_BYTES_MAX buffered (to its end when the peer
    /// closed it: `read_closed`); false if the connection is gone. A client that closed its
    /// side still gets the answers to the commands it sent, as from MariaDB.
    fn fill(&mut self, token: u64, read_closed: bool) -> bool {
        let Some(slot) = self.slots.get_mut(&token) else {
            return false;
        };
        slot.last = Instant::now();
        match slot
            .io
            .read_raw(&mut slot.input, INPUT_BYTES_MAX, read_closed)
        {
            Ok(ReadState::Open | ReadState::Stopped) => {
                slot.more = slot.input.len() >= INPUT_BYTES_MAX;
                true
            }
            Ok(ReadState::Closed) => {
                slot.peer_closed = true;
                slot.more = false;
                true
            }
            Err(_) => {
                self.close(token);
                false
            }
        }
    }

    /// Runs the connection's whole commands until one waits for the data node or needs the
    /// thread.
    fn commands(&mut self, token: u64) {
        loop {
            let Some(slot) = self.slots.get_mut(&token) else {
                return;
            };
            if slot.waiting.is_some() {
                return;
            }
            let limit = slot.conn.max_packet();
            let (seq, payload, used) = match parse_payload(&slot.input, limit) {
                Ok(Some((seq, payload, used))) => (seq, payload, used),
                // A command larger than the loop buffers: the thread reads the rest.
                Ok(None) if slot.input.len() >= INPUT_BYTES_MAX => return self.hand_back(token),
                Ok(None) if slot.more => {
                    if !self.fill(token, false) {
                        return;
                    }
                    continue;
                }
                Ok(None) => break,
                // The thread reads it again and answers the error as it always does.
                Err(_) => return self.hand_back(token),
            };
            let step = self.step(token, seq, &payload);
            let Some(slot) = self.slots.get_mut(&token) else {
                return;
            };
            match step {
                Step::Answered => {
                    slot.input.drain(..used);
                }
                Step::Sent(w) => {
                    slot.input.drain(..used);
                    slot.waiting = Some(w);
                    break;
                }
                Step::Quit => return self.close(token),
                Step::Thread => return self.hand_back(token),
            }
        }
        self.flush(token);
    }

    /// One command: answered here, sent, or for the thread.
    fn step(&mut self, token: u64, seq: u8, payload: &[u8]) -> Step {
        let Some(slot) = self.slots.get_mut(&token) else {
            return Step::Quit;
        };
        let conn = &mut slot.conn;
        let Some((&cmd, body)) = payload.split_first() else {
            return Step::Thread;
        };
        conn.out.seq = seq.wrapping_add(1);
        // Reads the data node answers without a transaction, which is only right while the
        // session holds none open there (else its reads must see its own writes).
        // A session whose grants changed since it read them (an account statement ran) reads
        // them again on its thread before anything is served.
        let holds = conn.session.holds_transaction()
            || conn.session.grants_epoch
                != conn
                    .session
                    .shared
                    .grants_epoch
                    .load(std::sync::atomic::Ordering::Acquire);
        match cmd {
            command::PING => {
                conn.ok(0, 0, false);
                Step::Answered
            }
            command::QUIT => Step::Quit,
            command::STMT_CLOSE => {
                // No answer, by the protocol.
                if let Ok(id) = binary::statement_id(body) {
                    conn.session.statements.remove(&id);
                }
                Step::Answered
            }
            command::STMT_EXECUTE if !holds => execute_here(&mut self.links, conn, token, payload),
            command::QUERY if !holds => query_here(&mut self.links, conn, token, payload),
            _ => Step::Thread,
        }
    }

    /// Replies from the data node: finishes the statements they answer.
    fn replies(&mut self) {
        let mut done = Vec::new();
        for link in self.links.all() {
            done.extend(link.read_replies());
            if link.is_lost() {
                // Reads still out on a lost connection fail now (their connections get the
                // error; a read-only statement runs again on its thread).
                done.extend(
                    link.abandon()
                        .into_iter()
                        .map(|(token, r)| (token, r.map(Reply::Ops))),
                );
            }
        }
        let refused = |r: &client::Result<Reply>| match r {
            Err(client::ClientError::ConnectionLost(_)) => true,
            Err(e) => e.code() == base::ErrorCode::NotPrimary,
            Ok(_) => false,
        };
        if self.links.readers.iter().any(|r| r.is_lost())
            || (!self.links.readers.is_empty() && done.iter().any(|(_, r)| refused(r)))
        {
            // A reader stopped serving reads (its lease lapsed, its view changed) or is gone:
            // reads go to the primary until the loop looks again; those still out on it run
            // again on their threads.
            let abandoned = self.links.drop_readers(self.poll.registry());
            done.extend(abandoned);
        }
        for (n, (token, reply)) in done.into_iter().enumerate() {
            if n > 0 && n % ANSWERS_PER_LOOK == 0 {
                self.look();
            }
            self.reply(token, reply);
        }
        // The ends of scans cut after their first batch (`Reply::More`) go now.
        let registry = self.poll.registry();
        for link in self.links.all() {
            let _ = link.flush(registry);
        }
    }

    /// Answers one statement's reply from the data node, then runs the connection's next
    /// commands.
    fn reply(&mut self, token: u64, reply: client::Result<Reply>) {
        let Some(w) = self.slots.get_mut(&token).and_then(|s| s.waiting.take()) else {
            // Its connection is gone: a streamed scan it left open ends.
            if matches!(reply, Ok(Reply::Part(_))) {
                self.end_stream(token);
            }
            return;
        };
        let streaming = w.stream.as_ref().is_some_and(|s| s.header.is_some());
        if w.stream.is_some() && reply.is_err() {
            // Its statement ends here (or runs again on the thread, which shows it itself).
            if let Some(slot) = self.slots.get_mut(&token) {
                slot.conn.session.publish("Sleep", None);
            }
        }
        match reply {
            Ok(Reply::Part(rows)) => return self.stream_rows(token, w, rows, false),
            Ok(Reply::Rows(rows)) if w.stream.is_some() => {
                return self.stream_rows(token, w, rows, true)
            }
            // Rows went out already: the result ends with the error (as a thread's stream).
            Err(e) if streaming => {
                if let Some(slot) = self.slots.get_mut(&token) {
                    slot.conn
                        .answer(Outcome::Failed(SqlError::from_client(&e)), w.binary);
                    slot.conn.session.publish("Sleep", None);
                }
                return self.commands(token);
            }
            _ => {}
        }
        let Some(slot) = self.slots.get_mut(&token) else {
            return;
        };
        let conn = &mut slot.conn;
        let rows = match reply {
            Ok(Reply::Ops(results)) => results
                .into_iter()
                .filter_map(|r| match r {
                    OpResult::Row(values) => Some(values),
                    _ => None,
                })
                .collect(),
            Ok(Reply::Rows(rows) | Reply::Part(rows)) => rows,
            Ok(Reply::More(_)) => {
                // More than one batch: the thread answers it (streaming it where it can), and
                // the plan, marked large, goes to the thread from now on.
                if let Compiled::Select(plan) = w.plan.as_ref() {
                    plan.large.set(true);
                }
                self.replay(token, &w.packet);
                return;
            }
            Err(e) => {
                let error = SqlError::from_client(&e);
                if error.code == 1146 || error.code == 1412 || error.failover_retry(true) {
                    // The table changed under the plan: the thread plans it again. Or a data
                    // node failed over under the read: the thread runs it again once the
                    // cluster serves.
                    self.replay(token, &w.packet);
                    return;
                }
                conn.answer(Outcome::Failed(error), w.binary);
                self.commands(token);
                return;
            }
        };
        // A long value kept in parts: the thread's client library joins them, and the plan
        // goes there from now on (the event loop never waits for more reads).
        if let Compiled::Select(plan) = w.plan.as_ref() {
            let may_hold = plan.source.as_ref().is_some_and(|s| s.table.holds_parts())
                || plan
                    .joined
                    .as_ref()
                    .is_some_and(|j| j.steps.iter().any(|s| s.source.table.holds_parts()));
            if may_hold && client::has_parts(rows.iter().map(Vec::as_slice)) {
                plan.large.set(true);
                self.replay(token, &w.packet);
                return;
            }
        }
        let session = &mut conn.session;
        // ROW_COUNT() reads the statement before's count; `conclude` (in `answer`) leaves -1.
        let outcome = match w.plan.as_ref() {
            Compiled::Select(plan) => session.finish_select(plan, &w.params, w.decided, rows),
            _ => Err(SqlError::new(
                1105,
                "HY000",
                "internal: a reply for a statement that sent nothing",
            )),
        };
        conn.answer(outcome.unwrap_or_else(Outcome::Failed), w.binary);
        self.commands(token);
    }

    /// Answers a batch of a streamed result (`last`: its final one): asks for the next first,
    /// so the data node reads it while these rows are answered, unless the client has not
    /// taken `STREAM_BACKLOG_MAX` of the rows before; writes the result's header before its
    /// first rows and its end after its last.
    fn stream_rows(&mut self, token: u64, mut w: Waiting, rows: Vec<Vec<Value>>, last: bool) {
        let Some(slot) = self.slots.get_mut(&token) else {
            return self.end_stream(token);
        };
        let mut s = w.stream.take().unwrap_or_default();
        if !last {
            if slot.io.backlog() < STREAM_BACKLOG_MAX {
                self.links.all().any(|link| link.scan_next(token));
            } else {
                s.paused = Some(Instant::now());
            }
        }
        let Some(slot) = self.slots.get_mut(&token) else {
            return;
        };
        let conn = &mut slot.conn;
        let answered = match w.plan.as_ref() {
            // KILL QUERY and max_statement_time stop it between batches, as a thread's.
            Compiled::Select(plan) => crate::exec::Exec::check_killed(&conn.session)
                .and_then(|()| conn.session.finish_select(plan, &w.params, w.decided, rows))
                .and_then(|outcome| match outcome {
                    Outcome::Rows { columns, rows } => Ok((columns, rows)),
                    _ => Err(SqlError::new(
                        1105,
                        "HY000",
                        "internal: a streamed result answered no rows",
                    )),
                }),
            _ => Err(SqlError::new(
                1105,
                "HY000",
                "internal: a streamed reply for a statement that sent nothing",
            )),
        };
        let (columns, rows) = match answered {
            Ok(answer) => answer,
            Err(e) => {
                conn.answer(Outcome::Failed(e), w.binary);
                conn.session.publish("Sleep", None);
                if !last {
                    self.end_stream(token);
                }
                return self.commands(token);
            }
        };
        // The statement ends with its last batch: its warnings, then FOUND_ROWS() of every
        // batch. (A result of one batch says its warnings in its header too, as one answered
        // whole.)
        let warnings = match last {
            true => conn.session.conclude(&Outcome::Rows {
                columns: Vec::new(),
                rows: Vec::new(),
            }),
            false => 0,
        };
        let (columns, status) = match s.header.take() {
            Some(header) => header,
            None => {
                if !last {
                    // More than one batch: counted in Cairn_streamed_results.
                    crate::exec::Exec::streamed(&mut conn.session);
                }
                let status = conn.result_header(&columns, false, warnings);
                (columns, status)
            }
        };
        for row in &rows {
            conn.result_row(&columns, row, w.binary);
        }
        s.found += rows.len() as u64;
        if last {
            conn.session.last_found_rows = s.found;
            conn.result_end(status, warnings);
            conn.session.publish("Sleep", None);
            return self.commands(token);
        }
        s.header = Some((columns, status));
        w.stream = Some(s);
        slot.waiting = Some(w);
        self.flush(token);
        // The write may have taken every byte waiting (no writable event comes then).
        self.resume_stream(token);
    }

    /// Asks for the next batch of a streamed result that waited for its client to take the
    /// rows before, once it has taken enough of them.
    fn resume_stream(&mut self, token: u64) {
        let Some(slot) = self.slots.get_mut(&token) else {
            return;
        };
        if slot.io.backlog() >= STREAM_BACKLOG_MAX {
            return;
        }
        let Some(s) = slot.waiting.as_mut().and_then(|w| w.stream.as_mut()) else {
            return;
        };
        if s.paused.take().is_some() {
            self.links.all().any(|link| link.scan_next(token));
            self.send_reads();
        }
    }

    /// Ends the streamed scan `token` holds open, if any (its connection is gone, or its
    /// result failed).
    fn end_stream(&mut self, token: u64) {
        self.links.all().any(|link| link.scan_close(token));
        // Written now, even with no other read in flight on the link.
        let registry = self.poll.registry();
        for link in self.links.all() {
            let _ = link.flush(registry);
        }
    }

    /// Hands the connection to its thread with `payload` (a command already taken from its
    /// input) first again.
    fn replay(&mut self, token: u64, payload: &[u8]) {
        let Some(slot) = self.slots.get_mut(&token) else {
            return;
        };
        let mut packet = Vec::with_capacity(payload.len() + 4 + slot.input.len());
        let mut seq = 0;
        myproto::packet::write_packet(&mut packet, &mut seq, payload);
        packet.append(&mut slot.input);
        slot.input = packet;
        self.hand_back(token);
    }

    /// Writes what the connection's socket takes of its answers.
    /// Writes what the connection has to say; closes it once a client that closed its side has
    /// every answer.
    fn flush(&mut self, token: u64) {
        let Some(slot) = self.slots.get_mut(&token) else {
            return;
        };
        if slot.conn.out.flush_to(slot.io.output()).is_err()
            || slot
                .io
                .flush(self.poll.registry(), Token(token as usize))
                .is_err()
            || (slot.peer_closed && slot.waiting.is_none() && slot.io.backlog() == 0)
        {
            self.close(token);
        }
    }

    /// Gives the connection to a thread, with every byte not yet run.
    fn hand_back(&mut self, token: u64) {
        let Some(mut slot) = self.slots.remove(&token) else {
            return;
        };
        // Answers not yet written go first, in order.
        let mut unsent = Vec::new();
        if slot.conn.out.flush_to(&mut unsent).is_err() {
            return;
        }
        let backlog = slot.io.backlog();
        let out = slot.io.output();
        let mut unwritten = out.split_off(out.len() - backlog);
        unwritten.append(&mut unsent);
        slot.io.deregister(self.poll.registry());
        drop(slot.io);
        let mut conn = slot.conn;
        conn.resume(unwritten, std::mem::take(&mut slot.input));
        crate::server::conn::resume_on_a_thread(conn, true);
    }

    /// Closes the connection (dropping it ends its session).
    fn close(&mut self, token: u64) {
        if let Some(mut slot) = self.slots.remove(&token) {
            slot.io.deregister(self.poll.registry());
            if slot.waiting.is_some_and(|w| w.stream.is_some()) {
                self.end_stream(token);
            }
        }
    }
}

/// COM_STMT_EXECUTE of a committed-read SELECT, or of transaction control with nothing open,
/// served here (the session holds no transaction on the data node); else `Step::Thread`.
fn execute_here(links: &mut Links, conn: &mut Conn, token: u64, payload: &[u8]) -> Step {
    let body = payload.get(1..).unwrap_or_default();
    let Ok(id) = binary::statement_id(body) else {
        return Step::Thread;
    };
    let session = &mut conn.session;
    // Plans made before another session's DDL are made again on the thread.
    session.refresh_catalog();
    let epoch = session.plan_epoch();
    let join_pushdown = session.join_pushdown();
    let Some(p) = session.statements.get_mut(&id) else {
        return Step::Thread;
    };
    // A statement checked under grants that changed since is checked again there; one with
    // COM_STMT_SEND_LONG_DATA values runs there too, which a hand-back would otherwise lose.
    if p.epoch != epoch || p.reads_view || p.long_data.iter().any(Option::is_some) {
        return Step::Thread;
    }
    let fast = match p.compiled.as_ref() {
        Compiled::Select(plan) => reads_committed(plan, join_pushdown),
        Compiled::Other(s) => matches!(
            **s,
            Statement::StartTransaction { .. }
                | Statement::Commit { .. }
                | Statement::Rollback { .. }
        ),
        _ => false,
    };
    if !fast {
        return Step::Thread;
    }
    let Ok(request) = binary::parse_execute(body, p.params, &mut p.types, &p.long_data) else {
        return Step::Thread;
    };
    let params = param_values(request.params, &p.types, &session.charsets);
    p.long_data.clear();
    let plan = p.compiled.clone();
    match plan.as_ref() {
        Compiled::Select(select) => {
            start_select(links, conn, token, &plan, select, params, payload)
        }
        c => {
            // Transaction control with nothing open on the data node: no I/O.
            let outcome = session.execute(c, &params).unwrap_or_else(Outcome::Failed);
            conn.answer(outcome, true);
            Step::Answered
        }
    }
}

/// COM_QUERY of a SELECT whose plan the session cached, or of BEGIN, COMMIT or ROLLBACK with
/// nothing open, served here (the session holds no transaction on the data node); else
/// `Step::Thread`.
fn query_here(links: &mut Links, conn: &mut Conn, token: u64, payload: &[u8]) -> Step {
    let body = payload.get(1..).unwrap_or_default();
    let session = &mut conn.session;
    session.refresh_catalog();
    let Ok(sql) = std::str::from_utf8(body) else {
        return Step::Thread;
    };
    if !session.charsets.client_is_utf8() && !body.is_ascii() {
        // The thread reads the client's latin1.
        return Step::Thread;
    }
    if body.contains(&b'\\') && session.no_backslash_escapes() {
        // The thread reads literals whose backslashes are characters.
        return Step::Thread;
    }
    let bare = sql.trim().trim_end_matches(';').trim_end();
    if ["BEGIN", "START TRANSACTION", "COMMIT", "ROLLBACK"]
        .iter()
        .any(|w| bare.eq_ignore_ascii_case(w))
    {
        // Nothing open on the data node: no I/O.
        let outcomes = session.run(bare);
        conn.answer_text(outcomes);
        return Step::Answered;
    }
    // Only a SELECT can be served here: anything else goes to the thread without being
    // tokenized twice.
    let select = bare
        .get(..6)
        .is_some_and(|w| w.eq_ignore_ascii_case("SELECT"));
    let Some(n) = select.then(|| cache::normalize(sql)).flatten() else {
        return Step::Thread;
    };
    // Only a plan the thread made and cached; the first run of a text is its.
    let Some(plan) = session.plans.get(&session.database, &n.text) else {
        return Step::Thread;
    };
    match plan.as_ref() {
        Compiled::Select(select) if reads_committed(select, session.join_pushdown()) => {
            start_select(links, conn, token, &plan, select, n.values, payload)
        }
        _ => Step::Thread,
    }
}

/// Whether a SELECT reads only committed rows without locks (what the reactor serves): of
/// joins, one the data node reads whole when `join_pushdown`.
fn reads_committed(plan: &SelectPlan, join_pushdown: bool) -> bool {
    // A virtual (information_schema) or derived table's rows are made by the session's thread,
    // and so are statements that may wait (SLEEP, GET_LOCK).
    (plan.joined.is_none() || (join_pushdown && crate::exec::step::pushed_step(plan)))
        && !plan.waits
        && !plan.large.get()
        && plan
            .source
            .as_ref()
            .is_none_or(|s| s.lock == client::LockMode::CommittedRead && !s.made_in_api_node())
}

/// Starts a committed-read SELECT (`exec/step.rs`): answered at once when it needs no data,
/// else its reads are queued on a link (Step::Sent), or it is left to the thread.
fn start_select(
    links: &mut Links,
    conn: &mut Conn,
    token: u64,
    plan: &Arc<Compiled>,
    select: &SelectPlan,
    params: Vec<Value>,
    payload: &[u8],
) -> Step {
    let binary = matches!(payload.first(), Some(&command::STMT_EXECUTE));
    let session = &mut conn.session;
    session.begin_statement(crate::exec::diagnostics::Kind::Select {
        tables: select.source.is_some(),
    });
    let (src, fetch) = match session.start_select(select, &params) {
        Ok(Start::Done(outcome)) => {
            conn.answer(outcome, binary);
            return Step::Answered;
        }
        Err(e) => {
            conn.answer(Outcome::Failed(e), binary);
            return Step::Answered;
        }
        Ok(Start::Read(src, fetch)) => (src, fetch),
        Ok(Start::Unpushed) => return Step::Thread,
    };
    let decided = fetch.decided(src);
    // A pushed join's tables must all allow it.
    let any_replica = fetch.any_replica(src)
        && select.joined.as_ref().is_none_or(|j| {
            j.steps
                .iter()
                .all(|s| s.source.table.def().options.reads_any_replica())
        });
    let mut stream = None;
    let sent = match fetch.request(src) {
        Some(Request::Keys(ops)) => {
            let link = links.pick(any_replica);
            link.prepare(token, ops, ExecType::Commit).is_ok()
        }
        Some(Request::Scan(mut r)) if crate::exec::step::streams(select) => {
            // Its rows go to the client a batch at a time, as they come, from the primary's
            // link: dropping the reader links (one stopped serving reads) would fail a result
            // already partly sent, where a read answered whole runs again on the thread.
            r.batch_rows = match r.batch_rows {
                0 => STREAM_BATCH_ROWS,
                n => n.min(STREAM_BATCH_ROWS),
            };
            stream = Some(Streamed::default());
            // Its batches check for KILL QUERY and the statement's time limit, and the process
            // list shows it running until its last batch is answered, as a thread's command.
            let (cmd, body) = payload.split_first().unwrap_or((&0, &[]));
            session.command_starts(*cmd, body);
            links.primary.prepare_streamed_scan(token, *r).is_ok()
        }
        Some(Request::Scan(r)) => links.pick(any_replica).prepare_scan(token, *r).is_ok(),
        None => false,
    };
    if sent {
        Step::Sent(Waiting {
            plan: plan.clone(),
            binary,
            params,
            packet: payload.to_vec(),
            decided,
            stream,
        })
    } else {
        Step::Thread
    }
}
