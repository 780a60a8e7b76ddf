//! Runs one node's cluster protocol machine (a data node's, or the arbitrator's) on the real
//! clock and TCP links: the real runtime beside the simulator's, feeding the same
//! `cluster::node::DataNode` its messages and ticks and carrying out its outputs.
//!
//! Every peer link is a TCP connection this node dials, announcing its id in a hello frame;
//! replies to clients go back on the connection they came in on. A link's writer has a bounded
//! queue; what does not fit, or finds the peer unreachable, is dropped, and the protocol
//! retransmits. Threads: the acceptor, a reader per inbound connection, a writer per peer, the
//! redo log's fsyncs (with a redo file), and the protocol loop (the caller's thread), which
//! alone touches the machine.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use cluster::arbitrator::Arbitrator;
use cluster::codec::{self, CLUSTER_MESSAGE};
use cluster::node::{DataNode, Input};
use cluster::{
    Gci, Layout, Msg, NodeId, Observation, Output, Record, SyncResult, Time, Timing, ARBITRATOR,
};
use transport::auth::Guard;
use transport::Stream;
use wire::frame::{write_frame, FrameHeader, HEADER_BYTES};

/// The frame a dialing node sends first: its node id in the request id field, no body.
pub const CLUSTER_HELLO: u16 = 0x7c00;
/// Asks the management node for the cluster's configuration file; the reply's body is its text.
pub const CLUSTER_CONFIG_REQUEST: u16 = 0x7c02;
pub const CLUSTER_CONFIG_REPLY: u16 = 0x7c03;
/// Asks the management node for the nodes' states; the reply's body is a text table.
pub const CLUSTER_STATUS_REQUEST: u16 = 0x7c04;
pub const CLUSTER_STATUS_REPLY: u16 = 0x7c05;
/// How often the protocol is ticked.
pub const TICK: Duration = Duration::from_millis(5);
/// Frames queued for one peer before more are dropped.
pub const LINK_QUEUE_MAX: usize = 4096;
/// Messages from all connections waiting for the protocol loop.
pub const INBOX_MAX: usize = 65_536;
/// How long an inbound connection has to send its hello.
pub const HELLO_TIMEOUT: Duration = Duration::from_secs(3);
/// Inbound connections (peers, clients, admin) served at once; one more is closed.
pub const INBOUND_MAX: usize = 1024;
/// How long the protocol loop waits on one write to a client that does not read; then the
/// client's connection is closed.
pub const CLIENT_WRITE_TIMEOUT: Duration = Duration::from_millis(100);
/// The largest cluster frame body accepted.
pub const CLUSTER_FRAME_BYTES_MAX: usize = 64 << 20;

/// Where every node of the cluster listens, and the shape of the cluster.
#[derive(Clone, Debug)]
pub struct HostConfig {
    pub id: NodeId,
    pub addresses: BTreeMap<NodeId, String>,
    pub layout: Layout,
    pub timing: Timing,
    /// A fault-injection seam for tests: a file naming (comma-separated) the nodes this node's
    /// links to and from are cut, re-read every 100 ms. Clients are never cut.
    pub fault_cut_file: Option<std::path::PathBuf>,
    /// The node restarts: it holds nothing and asks the cluster to take it back.
    pub restarted: bool,
    /// On the management node: the configuration file's text, handed to nodes that ask.
    pub config_text: Option<Arc<String>>,
    /// What every link, both ways, proves before its hello (the cluster key, a certificate of
    /// the cluster's CA: transport::auth::Guard).
    pub guard: Guard,
    /// The node's redo log (`cluster::log` records), made anew at start; without one, the
    /// protocol's fsyncs are done at once.
    pub redo_file: Option<std::path::PathBuf>,
    /// Set after every input to whether the node serves now (`DataNode::serving`: a member of
    /// an open view, suspecting no one, its read lease held).
    pub serving: Option<Arc<AtomicBool>>,
    /// A restarted data node's real copy (`datanode::replication`): set once every partition
    /// came from the group's primary. With it, the node says it caught up only after that.
    pub copied: Option<Arc<AtomicBool>>,
    /// On the management node: where its votes are kept (`crate::votes`), loaded at start and
    /// saved before any answer that depends on them; None keeps them in memory only.
    pub votes_file: Option<std::path::PathBuf>,
    /// On a data node of the first view: that view's epoch (1 for a new cluster; above every
    /// epoch of the last run for a system restart, `DataNode::starting_at`).
    pub first_epoch: cluster::Epoch,
}

/// The redo log on a real file: records are written through a buffer as the protocol appends
/// them; an fsync flushes the buffer and hands the file to the syncing thread, whose answers
/// come back as `Input::Synced`.
struct Redo {
    writer: io::BufWriter<std::fs::File>,
    to_sync: SyncSender<Gci>,
    synced: Receiver<(Gci, SyncResult)>,
    /// A write failed: every fsync from now on fails.
    broken: bool,
}

impl Redo {
    fn create(path: &std::path::Path) -> io::Result<Redo> {
        let file = std::fs::File::create(path)?;
        let syncing = file.try_clone()?;
        let (to_sync, requests) = mpsc::sync_channel::<Gci>(64);
        let (done, synced) = mpsc::sync_channel(64);
        thread::Builder::new()
            .name("cluster-redo".into())
            .spawn(move || {
                for gci in requests {
                    // Any fsync error fails the node, ENOSPC included: the kernel may have
                    // dropped the dirty pages it could not write and report it only once, so a
                    // later fsync that succeeds proves nothing about them.
                    let result = match syncing.sync_data() {
                        Ok(()) => SyncResult::Done,
                        Err(_) => SyncResult::Failed,
                    };
                    if done.send((gci, result)).is_err() {
                        return;
                    }
                }
            })?;
        Ok(Redo {
            writer: io::BufWriter::with_capacity(1 << 16, file),
            to_sync,
            synced,
            broken: false,
        })
    }

    /// (A write that fails, even for want of space, breaks the log: the buffer cannot say how
    /// much of the record reached the file, so the node stops at its next fsync.)
    fn append(&mut self, record: &Record) {
        let mut bytes = Vec::new();
        cluster::log::encode(record, &mut bytes);
        if self.writer.write_all(&bytes).is_err() {
            self.broken = true;
        }
    }

    /// Starts an fsync; an answer that is known at once is returned.
    fn sync(&mut self, gci: Gci) -> Option<SyncResult> {
        if self.broken {
            return Some(SyncResult::Failed);
        }
        match self.writer.flush() {
            // What was not written stays in the buffer for the next try.
            Err(e) if e.kind() == io::ErrorKind::StorageFull => Some(SyncResult::Full),
            Err(_) => Some(SyncResult::Failed),
            Ok(()) => match self.to_sync.try_send(gci) {
                Ok(()) => None,
                // Too many fsyncs queued: say full, so the protocol tries again later.
                Err(TrySendError::Full(_)) => Some(SyncResult::Full),
                Err(TrySendError::Disconnected(_)) => Some(SyncResult::Failed),
            },
        }
    }
}

/// What the management node tells `cairn admin cluster`: the newest view it knows.
type Known = Arc<Mutex<Option<(cluster::Epoch, cluster::Membership)>>>;

/// How often the fault file is re-read.
const FAULT_FILE_EVERY: Duration = Duration::from_millis(100);

fn read_cut(path: &std::path::Path) -> BTreeSet<NodeId> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .split(',')
        .filter_map(|id| id.trim().parse().ok())
        .collect()
}

/// Why the protocol loop ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Ended {
    /// Asked to stop (`stop` was set).
    Stopped,
    /// The node stopped itself (fail-stop): the reason.
    Failed(String),
}

type ClientWriters = Arc<Mutex<BTreeMap<NodeId, Stream>>>;

/// Runs the node until `stop` is set or the protocol stops it. `observe` sees every observation
/// and, when the loop ends, the data node itself (for a final report).
pub fn run(
    config: HostConfig,
    stop: Arc<AtomicBool>,
    listening: impl FnOnce(),
    mut observe: impl FnMut(&Observation),
    mut at_end: impl FnMut(Option<&DataNode>),
) -> io::Result<Ended> {
    let own = config.addresses.get(&config.id).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("no address for node {}", config.id),
        )
    })?;
    let listener = transport::listen(own)?;
    listening();
    let (inbox, messages) = mpsc::sync_channel::<(NodeId, Msg)>(INBOX_MAX);
    let clients: ClientWriters = Arc::new(Mutex::new(BTreeMap::new()));
    let known: Known = Arc::new(Mutex::new(None));
    let answers = Answers {
        guard: config.guard.clone(),
        config: config.config_text.clone(),
        known: known.clone(),
        addresses: config.addresses.clone(),
    };
    {
        let (inbox, clients) = (inbox.clone(), clients.clone());
        let answers = Arc::new(answers);
        thread::Builder::new()
            .name("cluster-accept".into())
            .spawn(move || {
                let open = Arc::new(AtomicUsize::new(0));
                for stream in listener.incoming().flatten() {
                    if open.load(Ordering::Relaxed) >= INBOUND_MAX {
                        tracing::warn!("refusing a cluster connection: {INBOUND_MAX} open");
                        continue;
                    }
                    open.fetch_add(1, Ordering::Relaxed);
                    let (inbox, clients, answers, done) = (
                        inbox.clone(),
                        clients.clone(),
                        answers.clone(),
                        open.clone(),
                    );
                    let spawned =
                        thread::Builder::new()
                            .name("cluster-read".into())
                            .spawn(move || {
                                read_loop(stream, inbox, clients, &answers);
                                done.fetch_sub(1, Ordering::Relaxed);
                            });
                    if spawned.is_err() {
                        open.fetch_sub(1, Ordering::Relaxed);
                    }
                }
            })?;
    }
    let links: BTreeMap<NodeId, SyncSender<Vec<u8>>> = config
        .addresses
        .iter()
        .filter(|(id, _)| **id != config.id)
        .map(|(id, address)| {
            Ok((
                *id,
                spawn_link(config.id, address.clone(), config.guard.clone())?,
            ))
        })
        .collect::<io::Result<_>>()?;
    let origin = Instant::now();
    let now = || origin.elapsed().as_micros() as Time;
    let mut node = (config.id != ARBITRATOR).then(|| {
        let mut node = if config.restarted {
            DataNode::restarted(
                config.id,
                config.layout.clone(),
                config.timing.clone(),
                None,
                now(),
            )
        } else {
            DataNode::new(
                config.id,
                config.layout.clone(),
                config.timing.clone(),
                None,
                now(),
            )
            .starting_at(config.first_epoch)
        };
        if config.restarted && config.copied.is_some() {
            node.wait_for_runtime_copy();
        }
        node
    });
    let mut copied_told = false;
    let mut arbitrator = match &config.votes_file {
        Some(path) => {
            let votes = crate::votes::load(path).map_err(io::Error::other)?;
            if !votes.is_empty() {
                tracing::info!(votes = votes.len(), file = %path.display(), "the arbitrator's votes, kept from its last run");
            }
            Arbitrator::from_votes(votes)
        }
        None => Arbitrator::default(),
    };
    let mut saved = arbitrator.changes();
    // The newest view it knows, from the votes it kept (`cairn admin cluster` shows it).
    if let Some((epoch, members)) = arbitrator.latest() {
        *known.lock().unwrap_or_else(|e| e.into_inner()) = Some((epoch, members.clone()));
    }
    let mut out = Vec::new();
    let mut own: VecDeque<(NodeId, Msg)> = VecDeque::new();
    let mut synced: VecDeque<(Gci, SyncResult)> = VecDeque::new();
    let mut redo = config.redo_file.as_deref().map(Redo::create).transpose()?;
    let mut next_tick = Instant::now();
    let mut cut: BTreeSet<NodeId> = BTreeSet::new();
    let mut cut_read_at = Instant::now();
    let ended = loop {
        if stop.load(Ordering::Relaxed) {
            break Ended::Stopped;
        }
        if let Some(path) = &config.fault_cut_file {
            if Instant::now() >= cut_read_at {
                cut_read_at = Instant::now() + FAULT_FILE_EVERY;
                cut = read_cut(path);
            }
        }
        // Ticks come first when due, so a steady stream of messages cannot starve heartbeats.
        if let Some(Ok(done)) = redo.as_ref().map(|r| r.synced.try_recv()) {
            synced.push_back(done);
        }
        let input = if let Some((from, msg)) = own.pop_front() {
            Input::Message { from, msg }
        } else if let Some((gci, result)) = synced.pop_front() {
            Input::Synced { gci, result }
        } else if Instant::now() >= next_tick {
            next_tick = Instant::now() + TICK;
            Input::Tick
        } else {
            match messages.recv_timeout(next_tick.saturating_duration_since(Instant::now())) {
                Ok((from, _)) if cut.contains(&from) => continue,
                Ok((from, msg)) => Input::Message { from, msg },
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => break Ended::Stopped,
            }
        };
        match (&mut node, input) {
            (Some(node), input) => {
                if !copied_told
                    && config
                        .copied
                        .as_ref()
                        .is_some_and(|c| c.load(Ordering::Acquire))
                {
                    copied_told = true;
                    node.runtime_copied();
                }
                node.handle(now(), input, &mut out);
                if let Some(flag) = &config.serving {
                    flag.store(node.serving(now()), Ordering::Relaxed);
                }
            }
            (None, Input::Message { from, msg }) => {
                arbitrator.handle(from, msg, &mut out);
                *known.lock().unwrap_or_else(|e| e.into_inner()) =
                    arbitrator.latest().map(|(e, m)| (e, m.clone()));
                if let (Some(path), true) = (&config.votes_file, arbitrator.changes() != saved) {
                    // On disk before any answer that depends on it goes out; a voter that
                    // cannot keep its promises stops (fail-stop).
                    if let Err(e) = crate::votes::save(path, &arbitrator.votes()) {
                        out.clear();
                        break Ended::Failed(format!(
                            "saving the arbitrator's votes in {}: {e}",
                            path.display()
                        ));
                    }
                    saved = arbitrator.changes();
                }
            }
            (None, Input::Tick | Input::Synced { .. }) => {}
        }
        let mut failed = None;
        for output in out.drain(..) {
            match output {
                // What a node sends itself comes back as its next input, as the simulator's
                // network delivers it.
                Output::Send { to, msg } if to == config.id => own.push_back((to, msg)),
                Output::Send { to, .. } if cut.contains(&to) => {}
                Output::Send { to, msg } => send(&links, &clients, to, &msg),
                Output::Observe(o) => observe(&o),
                // (The data node's own redo and checkpoints are not these: this runtime runs the
                // protocol over the model's rows.)
                Output::Persist(record) => {
                    if let Some(redo) = &mut redo {
                        redo.append(&record);
                    }
                }
                Output::Sync { gci } => match &mut redo {
                    None => synced.push_back((gci, SyncResult::Done)),
                    Some(redo) => {
                        if let Some(result) = redo.sync(gci) {
                            synced.push_back((gci, result));
                        }
                    }
                },
                Output::Stop(reason) => failed = Some(reason),
            }
        }
        if let Some(reason) = failed {
            break Ended::Failed(reason);
        }
    };
    at_end(node.as_ref());
    Ok(ended)
}

fn send(
    links: &BTreeMap<NodeId, SyncSender<Vec<u8>>>,
    clients: &ClientWriters,
    to: NodeId,
    msg: &Msg,
) {
    let mut frame = Vec::new();
    codec::encode(msg, &mut frame);
    if let Some(link) = links.get(&to) {
        // A full queue means the peer is not keeping up or is gone: the protocol retransmits.
        if let Err(TrySendError::Full(_)) = link.try_send(frame) {
            tracing::debug!("link to node {to} full; message dropped");
        }
        return;
    }
    let mut clients = clients.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(stream) = clients.get_mut(&to) {
        // A failed or timed-out write may have sent part of the frame: the connection is done.
        if stream.write_all(&frame).is_err() {
            stream.shutdown();
            clients.remove(&to);
        }
    }
}

/// A peer's writer: dials on demand, and drops what it cannot deliver.
fn spawn_link(me: NodeId, address: String, guard: Guard) -> io::Result<SyncSender<Vec<u8>>> {
    let (tx, rx) = mpsc::sync_channel::<Vec<u8>>(LINK_QUEUE_MAX);
    thread::Builder::new()
        .name("cluster-link".into())
        .spawn(move || write_loop(me, &address, &guard, rx))?;
    Ok(tx)
}

fn write_loop(me: NodeId, address: &str, guard: &Guard, frames: Receiver<Vec<u8>>) {
    let mut stream: Option<Stream> = None;
    let mut retry_at = Instant::now();
    while let Ok(frame) = frames.recv() {
        if stream.is_none() && Instant::now() >= retry_at {
            retry_at = Instant::now() + Duration::from_millis(50);
            stream = transport::connect_stream(address, Duration::from_millis(50))
                .ok()
                .and_then(|s| {
                    s.set_nodelay(true).ok()?;
                    let s = guard.client(s).ok()?;
                    s.write_all(&hello(me)).ok()?;
                    Some(s)
                });
        }
        if let Some(s) = &mut stream {
            if s.write_all(&frame).is_err() {
                stream = None;
            }
        }
    }
}

/// Reads one connection's frames into the inbox, after its hello; a client's connection is also
/// where its replies go. A bad frame closes only this connection.
/// What a connection's reader answers by itself, without the protocol loop.
struct Answers {
    guard: Guard,
    config: Option<Arc<String>>,
    known: Known,
    addresses: BTreeMap<NodeId, String>,
}

impl Answers {
    /// One line per node: id, address, and its state in the newest view the arbitrator knows.
    fn status(&self) -> String {
        let known = self.known.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let mut text = match &known {
            Some((epoch, _)) => format!("view {epoch}\n"),
            None => "view 1 (as configured)\n".to_string(),
        };
        for (id, address) in &self.addresses {
            let state = match (&known, *id) {
                (_, ARBITRATOR) => "management node (arbitrator)",
                (None, _) => "member",
                (Some((_, m)), id) if m.members.contains(&id) => "member",
                (Some((_, m)), id) if m.starting.contains(&id) => "starting",
                _ => "not in the view (dead or stopped)",
            };
            text.push_str(&format!("node {id} {address} {state}\n"));
        }
        text
    }
}

fn read_loop(
    stream: TcpStream,
    inbox: SyncSender<(NodeId, Msg)>,
    clients: ClientWriters,
    answers: &Answers,
) {
    let _ = stream.set_nodelay(true);
    let mut stream = match answers.guard.server(stream) {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!("refusing a cluster link: {e}");
            return;
        }
    };
    // A connection must say who it is promptly: an idle one would hold a slot for good.
    let _ = stream.set_read_timeout(Some(HELLO_TIMEOUT));
    let hello = read_frame(&mut stream);
    let _ = stream.set_read_timeout(None);
    let from = match hello {
        Ok((h, _)) if h.message_type == CLUSTER_HELLO && h.request_id <= u64::from(NodeId::MAX) => {
            h.request_id as NodeId
        }
        _ => return,
    };
    if let Ok(mut writer) = stream.try_clone() {
        // The protocol loop writes replies itself: a client that stops reading may hold it
        // for this long, then loses its connection.
        let _ = writer.set_write_timeout(Some(CLIENT_WRITE_TIMEOUT));
        clients
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(from, writer);
    }
    loop {
        let msg = match read_frame(&mut stream) {
            Ok((h, _))
                if h.message_type == CLUSTER_CONFIG_REQUEST
                    || h.message_type == CLUSTER_STATUS_REQUEST =>
            {
                let (kind, text) = if h.message_type == CLUSTER_CONFIG_REQUEST {
                    let Some(text) = &answers.config else { return };
                    (CLUSTER_CONFIG_REPLY, text.to_string())
                } else {
                    (CLUSTER_STATUS_REPLY, answers.status())
                };
                let mut reply = Vec::new();
                write_frame(&mut reply, kind, 0, 0, 0, |b| {
                    b.extend_from_slice(text.as_bytes())
                });
                if stream.write_all(&reply).is_err() {
                    return;
                }
                continue;
            }
            Ok((h, body)) if h.message_type == CLUSTER_MESSAGE => match codec::decode(&body) {
                Ok(msg) => msg,
                Err(e) => {
                    tracing::warn!("closing the link from node {from}: {e}");
                    return;
                }
            },
            Ok(_) | Err(_) => return,
        };
        if inbox.send((from, msg)).is_err() {
            return;
        }
    }
}

/// Asks the management node at `mgm` for the configuration file (`status`: false) or the nodes'
/// states (true), as node `me`.
pub fn ask_management_node(
    mgm: &str,
    me: NodeId,
    status: bool,
    guard: &Guard,
    timeout: Duration,
) -> io::Result<String> {
    let mut stream = guard.client(transport::connect_stream(mgm, timeout)?)?;
    stream.set_read_timeout(Some(timeout))?;
    let mut request = hello(me);
    let kind = if status {
        CLUSTER_STATUS_REQUEST
    } else {
        CLUSTER_CONFIG_REQUEST
    };
    write_frame(&mut request, kind, 0, 0, 0, |_| {});
    stream.write_all(&request)?;
    let (h, body) = read_frame(&mut stream)?;
    if h.message_type != kind + 1 || body.len() > cluster::config::CONFIG_BYTES_MAX {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "the management node answered something else",
        ));
    }
    String::from_utf8(body)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "the answer is not UTF-8"))
}

/// The hello frame a connection to a cluster node starts with.
pub fn hello(me: NodeId) -> Vec<u8> {
    let mut frame = Vec::new();
    write_frame(&mut frame, CLUSTER_HELLO, 0, 0, u64::from(me), |_| {});
    frame
}

/// Reads one whole cluster frame, checking its header, length and checksum.
pub fn read_frame(stream: &mut impl Read) -> io::Result<(FrameHeader, Vec<u8>)> {
    let mut header = [0u8; HEADER_BYTES];
    stream.read_exact(&mut header)?;
    let h =
        FrameHeader::decode(&header).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    if h.body_len as usize > CLUSTER_FRAME_BYTES_MAX {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "cluster frame too long",
        ));
    }
    // The body grows as it arrives: a header announcing a large one costs nothing until the
    // bytes come.
    let len = h.body_len as usize;
    let mut body = Vec::with_capacity(len.min(64 << 10));
    stream.take(len as u64).read_to_end(&mut body)?;
    if body.len() != len {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the connection ended inside a cluster frame",
        ));
    }
    h.verify(&header, &body)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    Ok((h, body))
}
