//! One connection to a data node: a writer shared by callers, the frame reader, the table metadata
//! cache, and the waiters that replies are matched to by request id.
//!
//! There is no receiver thread: a thread waiting for a reply reads the socket itself when no other
//! thread is reading (the leader), hands frames meant for others to their channels, and on leaving
//! nudges one other waiter to take over. A lone caller therefore gets its reply with no thread
//! hop, which is most of a serial round trip's cost.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base::lob::PartsRef;
use base::schema::IndexKind;
use base::types::Collation;
use base::{Error, ErrorCode, TableDef};
use transport::{FrameReader, FrameWriter, ReadOutcome};
use wire::frame::FLAG_LAST;
use wire::{CheckpointInfo, FrameHeader, Message, NodeStatus, TableChange};

use crate::table::{Scan, Table};
use crate::transaction::Transaction;
use crate::{ClientError, Result};

/// What a waiter's channel receives.
// A decoded message moves once, from the reader to its consumer; boxing would add an allocation
// per frame for nothing.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Delivery {
    /// A reply frame for one of the waiter's requests.
    Frame(FrameHeader, Message),
    /// The reading thread left: try to become the reader.
    Nudge,
    /// The connection is gone.
    Lost(String),
}

thread_local! {
    /// The reply channel of this thread's synchronous calls, made once: a call waits for one
    /// request at a time, so one channel serves them all.
    static REPLIES: (Sender<Delivery>, Receiver<Delivery>) = mpsc::channel();
}

/// How long a waiter that is not reading sleeps before checking whether anyone reads; a safety
/// net only, since a leaving reader nudges a waiter.
const FOLLOWER_RECHECK: Duration = Duration::from_millis(2);
/// How long a reply may be waited for before the connection asks whether its node was taken
/// over (`Cluster::wait_watched`).
const TAKEOVER_CHECK: Duration = Duration::from_millis(500);

/// Data node addresses that lately failed a connection attempt or stopped answering, and
/// when: connecting to one of several tries them last for `UNANSWERED_FOR` (a paused node's
/// hello costs `ATTEMPT_TIMEOUT` at every attempt).
static UNANSWERED: Mutex<Vec<(String, Instant)>> = Mutex::new(Vec::new());
const UNANSWERED_FOR: Duration = Duration::from_secs(10);
/// At most this many addresses are remembered.
const UNANSWERED_MAX: usize = 64;

/// Notes that `address` failed to answer.
pub(crate) fn unanswered(address: &str) {
    if let Ok(mut seen) = UNANSWERED.lock() {
        seen.retain(|(a, at)| a != address && at.elapsed() < UNANSWERED_FOR);
        if seen.len() < UNANSWERED_MAX {
            seen.push((address.to_string(), Instant::now()));
        }
    }
}

/// `candidates` in their order, those that lately failed to answer (`unanswered`) last.
pub(crate) fn unanswered_last(mut candidates: Vec<&str>) -> Vec<&str> {
    if let Ok(seen) = UNANSWERED.lock() {
        let lately = |c: &&str| {
            seen.iter()
                .any(|(a, at)| a == c && at.elapsed() < UNANSWERED_FOR)
        };
        candidates.sort_by_key(|c| lately(c));
    }
    candidates
}

pub(crate) struct Inner {
    writer: Mutex<FrameWriter>,
    reader: Mutex<FrameReader>,
    waiters: Mutex<HashMap<u64, Sender<Delivery>>>,
    close_reason: Mutex<String>,
    next_request: AtomicU64,
    pub(crate) next_txn: AtomicU64,
    tables: Mutex<HashMap<String, Table>>,
    /// One more each time a cached definition is forgotten or a table is created through this
    /// connection (`catalog_epoch`).
    catalog_epoch: AtomicU64,
    closed: AtomicBool,
    pub(crate) cluster_id: u32,
    /// The data node's worker threads, from its hello (0 until it answers).
    workers: AtomicU32,
    /// The number this connection's hello gave the data node (`Message::Hello::session`).
    session: u64,
    /// The data node's node group and the cluster's count of them, from its hello.
    group: AtomicU32,
    groups: AtomicU32,
    /// Every data node address the connection was made from (its peers, to route to).
    peers: Mutex<String>,
    /// Connections to other node groups' primaries, by group, for transactions whose first
    /// row lives there (`route`), and when discovery last failed.
    routes: Mutex<(HashMap<u32, Cluster>, Option<Instant>)>,
    /// The data node's id, and whether it serves committed reads of READ_BACKUP tables, from
    /// its hello.
    node_id: AtomicU32,
    reads: AtomicBool,
    /// Whether the data node served (its group's primary) when it answered the hello.
    serving: AtomicBool,
    /// The address this connection was made to.
    address: String,
    /// Held while a waiter asks the peers whether this node was taken over (`taken_over`), with
    /// when that was last asked.
    takeover_check: Mutex<Option<Instant>>,
    /// Where committed reads of READ_BACKUP tables go, by node group (`reader`): another node
    /// of the group, or None for this connection's node; and when a look last found none.
    readers: Mutex<Readers>,
}

/// Each node group's chosen reader (None: this connection's node), and when a look last
/// found none.
type Readers = (HashMap<u32, Option<Cluster>>, Option<Instant>);

/// A connection to a Cairn cluster (today: one data node). Cheap to clone; clones share the
/// connection and may be used from many threads at once.
#[derive(Clone)]
pub struct Cluster {
    pub(crate) inner: Arc<Inner>,
}

fn lost(why: impl Into<String>) -> ClientError {
    ClientError::ConnectionLost(why.into())
}

/// With several data nodes to try, how long one node's TCP handshake, and its answer to hello
/// (for event sessions), may take.
pub(crate) const ATTEMPT_TIMEOUT: Duration = Duration::from_millis(500);
/// With several data nodes to try, the pause after a round in which none served.
pub(crate) const ROUND_PAUSE: Duration = Duration::from_millis(20);
/// How long a connection does not look again for other node groups' primaries after a look
/// that found none for a group.
const ROUTE_RETRY: Duration = Duration::from_secs(1);

/// A number for a connection's session, unlikely to be any other connection's in the cluster:
/// random where the system gives randomness, else from the clock, the process and a counter;
/// never above `wire::CLIENT_SESSION_MAX` (the larger ones are the data nodes' own).
fn session_number() -> u64 {
    (random_u64() & wire::CLIENT_SESSION_MAX).max(1)
}

/// A random number (or, where the system gives no randomness, one from the clock, the process
/// and a counter).
pub(crate) fn random_u64() -> u64 {
    let mut bytes = [0u8; 8];
    if getrandom::getrandom(&mut bytes).is_ok() {
        return u64::from_le_bytes(bytes);
    }
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let clock = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    clock ^ (u64::from(std::process::id()) << 40) ^ COUNTER.fetch_add(1, Ordering::Relaxed)
}

/// A replica that answers READ_BACKUP reads, as a client sees it (`read_from`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplicaSeen {
    pub node: u32,
    /// Its group's primary (it serves every request).
    pub primary: bool,
    /// On this host (`transport::is_this_host`), and the host it is on (`transport::host_of`).
    pub local: bool,
    pub host: Option<std::net::IpAddr>,
}

impl ReplicaSeen {
    pub fn of(address: &str, node: u32, primary: bool) -> ReplicaSeen {
        let host = transport::host_of(address);
        ReplicaSeen {
            node,
            primary,
            local: host.is_some_and(transport::is_this_host),
            host,
        }
    }
}

/// The replicas of a node group a client may send READ_BACKUP reads to (indices into
/// `replicas`, by node id), nearest first as NDB chooses: those on this host when any is, else
/// all. When the ones left share one host, only one of them: the primary if among them, else
/// the lowest node. Replicas on one host share its processors, so spreading reads over them
/// adds no capacity and costs batching: on this project's 2-core machine, sysbench point
/// selects spread over both replicas of a one-host group ran at 0.91x and read_only at 0.87x
/// of reading the primary alone (`bench/read_backup.sh`).
pub fn read_from(replicas: &[ReplicaSeen]) -> Vec<usize> {
    let any_local = replicas.iter().any(|r| r.local);
    let mut near: Vec<usize> = (0..replicas.len())
        .filter(|i| replicas[*i].local || !any_local)
        .collect();
    near.sort_by_key(|i| replicas[*i].node);
    let one_host = near
        .iter()
        .all(|i| replicas[*i].host.is_some() && replicas[*i].host == replicas[near[0]].host);
    if one_host && near.len() > 1 {
        let one = near
            .iter()
            .copied()
            .find(|i| replicas[*i].primary)
            .unwrap_or(near[0]);
        return vec![one];
    }
    near
}

/// A data node that answered hello but does not serve now (a backup of its node group).
pub(crate) fn not_serving(address: &str) -> ClientError {
    ClientError::Failed(Error::new(
        ErrorCode::NotPrimary,
        format!("data node {address} does not serve now (not its node group's primary)"),
    ))
}

/// The data nodes an address names: one, or several comma-separated.
pub(crate) fn addresses(address: &str) -> Vec<&str> {
    address
        .split(',')
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .collect()
}

impl Cluster {
    /// Connects to a data node at `address` ("host:port"), retrying for up to 10 seconds.
    pub fn connect(address: &str) -> Result<Cluster> {
        Cluster::connect_timeout(address, Duration::from_secs(10))
    }

    /// Connects within `timeout`. `address` may list several data nodes, comma-separated
    /// (`host:port,host:port`): they are tried in turn until one serves (a backup of a node
    /// group, or a node without a view, answers `NotPrimary` and the next is tried).
    pub fn connect_timeout(address: &str, timeout: Duration) -> Result<Cluster> {
        let candidates = addresses(address);
        if candidates.len() == 1 {
            return Cluster::connect_one(address, Some(timeout)).map(|(cluster, _)| cluster);
        }
        Cluster::connect_serving(address, timeout)
    }

    /// In a cluster of several node groups, a connection to group `group`'s primary (one of
    /// this connection's peers), for a transaction whose first row lives there: it coordinates
    /// it without a hop to another node (NDB's transaction hint). None when this connection is
    /// that group's already, or none of the peers serves it now (the transaction then goes
    /// here, which forwards its steps).
    pub(crate) fn route(&self, group: u32) -> Option<Cluster> {
        if self.inner.groups.load(Ordering::Relaxed) <= 1
            || self.inner.group.load(Ordering::Relaxed) == group
        {
            return None;
        }
        let mut routes = self.inner.routes.lock().ok()?;
        if let Some(c) = routes.0.get(&group).filter(|c| !c.is_closed()) {
            return Some(c.clone());
        }
        // Discovery costs a connection attempt per peer: not again within a second of a failed one.
        if routes.1.is_some_and(|t| t.elapsed() < ROUTE_RETRY) {
            return None;
        }
        let peers = self.inner.peers.lock().ok()?.clone();
        routes.0.retain(|_, c| !c.is_closed());
        for peer in addresses(&peers) {
            let Ok((c, serving)) = Cluster::connect_one(peer, None) else {
                continue;
            };
            let g = c.inner.group.load(Ordering::Relaxed);
            if serving && g != self.inner.group.load(Ordering::Relaxed) {
                // Its peers too, so that a wait on it watches for its group's takeover.
                if let Ok(mut theirs) = c.inner.peers.lock() {
                    theirs.clone_from(&peers);
                }
                routes.0.entry(g).or_insert(c);
            }
        }
        let found = routes.0.get(&group).cloned();
        routes.1 = found.is_none().then(Instant::now);
        found
    }

    /// The connection committed reads of READ_BACKUP tables in node group `group` go over
    /// (NDB's READ_BACKUP: any replica may answer them, the nearest preferred): one of the
    /// group's nodes that serve such reads among this connection's peers, as `read_from`
    /// chooses, by this connection's session number when several remain, so that clients
    /// spread over them.
    /// None: this connection's node was chosen, or none other serves reads now (the reads then
    /// go where the transaction goes). A choice holds until its connection closes or refuses
    /// a read (`forget_reader`).
    pub(crate) fn reader(&self, group: u32) -> Option<Cluster> {
        let mut readers = self.inner.readers.lock().ok()?;
        match readers.0.get(&group) {
            Some(Some(c)) if !c.is_closed() => return Some(c.clone()),
            Some(None) => return None,
            _ => {}
        }
        // Discovery costs a connection attempt per peer: not again within a second of a failed one.
        if readers.1.is_some_and(|t| t.elapsed() < ROUTE_RETRY) {
            return None;
        }
        let peers = self.inner.peers.lock().ok()?.clone();
        let me = self.inner.node_id.load(Ordering::Relaxed);
        let mine = self.inner.group.load(Ordering::Relaxed) == group
            && self.inner.reads.load(Ordering::Relaxed);
        // Each replica seen, and its connection (None for this one).
        let mut found: Vec<(ReplicaSeen, Option<Cluster>)> = Vec::new();
        for peer in addresses(&peers) {
            let Ok((c, serving)) = Cluster::connect_one(peer, None) else {
                continue;
            };
            let node = c.inner.node_id.load(Ordering::Relaxed);
            if c.inner.group.load(Ordering::Relaxed) != group
                || !c.inner.reads.load(Ordering::Relaxed)
                || found.iter().any(|(r, _)| r.node == node)
            {
                continue;
            }
            let seen = ReplicaSeen::of(peer, node, serving);
            found.push((seen, (node != me || !mine).then_some(c)));
        }
        let seen: Vec<ReplicaSeen> = found.iter().map(|(r, _)| *r).collect();
        let choices = read_from(&seen);
        if choices.is_empty() {
            readers.1 = Some(Instant::now());
            return None;
        }
        let at = choices[(self.inner.session % choices.len() as u64) as usize];
        let chosen = found.swap_remove(at).1;
        readers.0.insert(group, chosen.clone());
        readers.1 = None;
        chosen
    }

    /// Drops the reader chosen for `group` (it refused a read or its connection broke): the
    /// next READ_BACKUP read looks again, at most once a second.
    pub(crate) fn forget_reader(&self, group: u32) {
        if let Ok(mut readers) = self.inner.readers.lock() {
            readers.0.remove(&group);
            readers.1 = Some(Instant::now());
        }
    }

    /// The node group (0-based) this connection's data node belongs to, and the cluster's count.
    pub(crate) fn groups(&self) -> (u32, u32) {
        (
            self.inner.group.load(Ordering::Relaxed),
            self.inner.groups.load(Ordering::Relaxed),
        )
    }

    /// The node group (0-based) holding partition `partition` of a table, and whether the
    /// cluster has more than one.
    pub(crate) fn group_of(&self, partition: u32) -> Option<u32> {
        let groups = self.inner.groups.load(Ordering::Relaxed);
        (groups > 1).then(|| base::placement::group_of(partition, groups))
    }

    /// Connects within `timeout` to a data node among `address` (one or several,
    /// comma-separated) that serves now, even when only one is named.
    pub fn connect_serving(address: &str, timeout: Duration) -> Result<Cluster> {
        let candidates = unanswered_last(addresses(address));
        // Each node is tried once per round (a refused connection is not waited on: the next
        // node may serve), round after round until the deadline.
        let deadline = Instant::now() + timeout;
        loop {
            let mut last = None;
            for candidate in &candidates {
                match Cluster::connect_one(candidate, None) {
                    Ok((cluster, true)) => {
                        // Its peers, to route transactions to other node groups' primaries.
                        if let Ok(mut peers) = cluster.inner.peers.lock() {
                            *peers = address.to_string();
                        }
                        return Ok(cluster);
                    }
                    Ok((_, false)) => last = Some(not_serving(candidate)),
                    Err(e) => {
                        unanswered(candidate);
                        last = Some(e);
                    }
                }
            }
            if Instant::now() >= deadline {
                return Err(last.unwrap_or_else(|| lost(format!("no data node in {address:?}"))));
            }
            std::thread::sleep(ROUND_PAUSE.min(deadline.saturating_duration_since(Instant::now())));
        }
    }

    /// Connects to one data node, retrying a refused connection for `retry` (None: one
    /// attempt, its handshake allowed `ATTEMPT_TIMEOUT`); says whether it serves (see
    /// `Message::HelloReply`).
    fn connect_one(address: &str, retry: Option<Duration>) -> Result<(Cluster, bool)> {
        // A node whose process is stopped still has its connections accepted by the kernel:
        // its hello answer is waited for as long as the connection was.
        let hello_by = Instant::now() + retry.unwrap_or(ATTEMPT_TIMEOUT);
        let connected = match retry {
            Some(retry) => transport::connect(address, retry),
            None => transport::connect_once(address, ATTEMPT_TIMEOUT),
        };
        let (mut reader, writer) =
            connected.map_err(|e| lost(format!("connecting to {address}: {e}")))?;
        reader.join_replies();
        let inner = Arc::new(Inner {
            writer: Mutex::new(writer),
            reader: Mutex::new(reader),
            waiters: Mutex::new(HashMap::new()),
            close_reason: Mutex::new(String::new()),
            next_request: AtomicU64::new(1),
            next_txn: AtomicU64::new(1),
            tables: Mutex::new(HashMap::new()),
            catalog_epoch: AtomicU64::new(0),
            closed: AtomicBool::new(false),
            cluster_id: 0,
            workers: AtomicU32::new(0),
            session: session_number(),
            group: AtomicU32::new(0),
            groups: AtomicU32::new(1),
            peers: Mutex::new(address.to_string()),
            routes: Mutex::new((HashMap::new(), None)),
            node_id: AtomicU32::new(0),
            reads: AtomicBool::new(false),
            serving: AtomicBool::new(false),
            address: address.to_string(),
            takeover_check: Mutex::new(None),
            readers: Mutex::new((HashMap::new(), None)),
        });
        let cluster = Cluster { inner };
        let hello = Message::Hello {
            client_name: "cairn-client".into(),
            session: cluster.inner.session,
        };
        // Its own channel: this may run inside another call's wait on this thread
        // (`taken_over`), whose replies must stay on the thread's channel.
        let (tx, rx) = mpsc::channel();
        let by = hello_by.max(Instant::now() + ATTEMPT_TIMEOUT);
        match cluster.call_on(&hello, Some(by), (&tx, &rx))? {
            Message::HelloReply {
                node_id,
                worker_count,
                serving,
                reads,
                group,
                groups,
            } => {
                cluster.inner.node_id.store(node_id, Ordering::Relaxed);
                cluster.inner.reads.store(reads, Ordering::Relaxed);
                cluster.inner.serving.store(serving, Ordering::Relaxed);
                cluster.inner.workers.store(worker_count, Ordering::Relaxed);
                cluster.inner.group.store(group, Ordering::Relaxed);
                cluster.inner.groups.store(groups.max(1), Ordering::Relaxed);
                Ok((cluster, serving))
            }
            other => Err(unexpected(&other)),
        }
    }

    /// The data node's worker threads: the partitions a table gets by default (one per worker,
    /// NDB's one per LDM thread).
    pub fn worker_count(&self) -> u32 {
        self.inner.workers.load(Ordering::Relaxed)
    }

    /// Sets how long a thread waiting for a reply polls the socket before it sleeps (NDB's
    /// spinning receive). Zero, the default, sleeps at once; a short spin (tens of microseconds)
    /// cuts the latency of serial requests where waking a sleeping thread is slow, at the cost of
    /// client CPU.
    pub fn set_reply_spin(&self, spin: Duration) {
        if let Ok(mut reader) = self.inner.reader.lock() {
            reader.set_spin(spin);
        }
    }

    /// Registers a waiter for a new request id.
    pub(crate) fn register(&self, sink: Sender<Delivery>) -> Result<u64> {
        if self.inner.closed.load(Ordering::Acquire) {
            return Err(self.lost_error());
        }
        let id = self.inner.next_request.fetch_add(1, Ordering::Relaxed);
        self.inner
            .waiters
            .lock()
            .map_err(|_| lost("poisoned"))?
            .insert(id, sink);
        Ok(id)
    }

    pub(crate) fn forget(&self, id: u64) {
        if let Ok(mut w) = self.inner.waiters.lock() {
            w.remove(&id);
        }
    }

    /// Writes a buffer of whole frames in one write.
    pub(crate) fn send_frames(&self, frames: &[u8]) -> Result<()> {
        let mut writer = self.inner.writer.lock().map_err(|_| lost("poisoned"))?;
        writer.send(frames).map_err(|e| lost(format!("write: {e}")))
    }

    /// Appends a request frame; refuses one the data node would reject for its size.
    pub(crate) fn frame(
        &self,
        message: &Message,
        request_id: u64,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let start = out.len();
        message.write_frame(out, self.inner.cluster_id, 0, request_id);
        check_frame(out, start).inspect_err(|_| self.forget(request_id))
    }

    pub(crate) fn lost_error(&self) -> ClientError {
        let why = self
            .inner
            .close_reason
            .lock()
            .map(|r| r.clone())
            .unwrap_or_default();
        lost(if why.is_empty() {
            "connection closed".to_string()
        } else {
            why
        })
    }

    /// A frame already delivered to `rx`, if any (nudges are dropped: the caller reads anyway).
    fn delivered(&self, rx: &Receiver<Delivery>) -> Result<Option<(FrameHeader, Message)>> {
        loop {
            return match rx.try_recv() {
                Ok(Delivery::Frame(h, m)) => Ok(Some((h, m))),
                Ok(Delivery::Lost(why)) => Err(lost(why)),
                Ok(Delivery::Nudge) => continue,
                Err(TryRecvError::Empty) => Ok(None),
                Err(TryRecvError::Disconnected) => Err(self.lost_error()),
            };
        }
    }

    /// Waits for the next reply frame on `rx`, reading the socket itself when no other thread is.
    /// Ok(None) when `deadline` passes first.
    pub(crate) fn wait(
        &self,
        rx: &Receiver<Delivery>,
        deadline: Option<Instant>,
    ) -> Result<Option<(FrameHeader, Message)>> {
        loop {
            if let Some(frame) = self.delivered(rx)? {
                return Ok(Some(frame));
            }
            if self.inner.closed.load(Ordering::Acquire) {
                return Err(self.lost_error());
            }
            if let Ok(mut reader) = self.inner.reader.try_lock() {
                let got = self.lead(&mut reader, rx, deadline);
                drop(reader);
                self.nudge_one();
                return got;
            }
            let nap = match deadline {
                Some(d) => d
                    .saturating_duration_since(Instant::now())
                    .min(FOLLOWER_RECHECK),
                None => FOLLOWER_RECHECK,
            };
            match rx.recv_timeout(nap) {
                Ok(Delivery::Frame(h, m)) => return Ok(Some((h, m))),
                Ok(Delivery::Lost(why)) => return Err(lost(why)),
                Ok(Delivery::Nudge) | Err(RecvTimeoutError::Timeout) => {
                    if deadline.is_some_and(|d| Instant::now() >= d) {
                        return Ok(None);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => return Err(self.lost_error()),
            }
        }
    }

    /// Waits for a frame for `rx` with no deadline of its own; but after each
    /// `TAKEOVER_CHECK` without one it asks whether another node of the group now serves in
    /// this node's place (`taken_over`): the node then stopped answering (a paused process, a
    /// cut link) and never will, so the connection closes and every waiter gets ConnectionLost,
    /// as when a node dies. A slow answer from a node still primary (long DDL, a long filtered
    /// batch) is waited for.
    pub(crate) fn wait_watched(&self, rx: &Receiver<Delivery>) -> Result<(FrameHeader, Message)> {
        loop {
            if let Some(frame) = self.wait(rx, Some(Instant::now() + TAKEOVER_CHECK))? {
                return Ok(frame);
            }
            if self.taken_over() {
                unanswered(&self.inner.address);
                self.close(
                    "its data node stopped answering and another node of its group took over",
                );
                return Err(self.lost_error());
            }
        }
    }

    /// Whether a node of this connection's node group other than its own now serves as the
    /// group's primary, which this node was when the connection was made: asked of the peers
    /// (each answer bounded by `ATTEMPT_TIMEOUT`), at most once per `TAKEOVER_CHECK` per
    /// connection, whichever waiter asks.
    fn taken_over(&self) -> bool {
        if !self.inner.serving.load(Ordering::Relaxed) {
            return false;
        }
        let Ok(mut last) = self.inner.takeover_check.try_lock() else {
            return false;
        };
        if last.is_some_and(|t| t.elapsed() < TAKEOVER_CHECK) {
            return false;
        }
        let Ok(peers) = self.inner.peers.lock().map(|p| p.clone()) else {
            return false;
        };
        if addresses(&peers).len() < 2 {
            // Only this node is known: no other can have taken over.
            return false;
        }
        let (me, group) = (
            self.inner.node_id.load(Ordering::Relaxed),
            self.inner.group.load(Ordering::Relaxed),
        );
        let others = addresses(&peers)
            .into_iter()
            .filter(|peer| *peer != self.inner.address);
        let taken = others.into_iter().any(|peer| {
            Cluster::connect_one(peer, None).is_ok_and(|(c, serving)| {
                serving
                    && c.inner.node_id.load(Ordering::Relaxed) != me
                    && c.inner.group.load(Ordering::Relaxed) == group
            })
        });
        *last = Some(Instant::now());
        taken
    }

    /// Reads frames as the connection's reader, delivering each to its waiter, until one arrives
    /// for `rx` or the deadline passes.
    fn lead(
        &self,
        reader: &mut FrameReader,
        rx: &Receiver<Delivery>,
        deadline: Option<Instant>,
    ) -> Result<Option<(FrameHeader, Message)>> {
        loop {
            if let Some(frame) = self.delivered(rx)? {
                return Ok(Some(frame));
            }
            let why = match reader.read_until(deadline) {
                Ok(ReadOutcome::Frame(header, message)) => {
                    let last = header.flags & FLAG_LAST != 0;
                    let sink = self.inner.waiters.lock().ok().and_then(|mut w| {
                        if last {
                            w.remove(&header.request_id)
                        } else {
                            w.get(&header.request_id).cloned()
                        }
                    });
                    if let Some(sink) = sink {
                        let _ = sink.send(Delivery::Frame(header, message));
                    }
                    continue;
                }
                Ok(ReadOutcome::TimedOut) => return Ok(None),
                Ok(ReadOutcome::Closed) => "closed by the data node".to_string(),
                Err(e) => e.to_string(),
            };
            self.close(&why);
            return Err(lost(why));
        }
    }

    /// Wakes one other waiter so it can take over reading.
    fn nudge_one(&self) {
        let Ok(mut waiters) = self.inner.waiters.lock() else {
            return;
        };
        // Waiters whose receiver is gone (abandoned requests) are dropped on the way.
        let mut dead = Vec::new();
        let mut woke = false;
        for (id, sink) in waiters.iter() {
            if sink.send(Delivery::Nudge).is_ok() {
                woke = true;
                break;
            }
            dead.push(*id);
        }
        for id in dead {
            waiters.remove(&id);
        }
        let _ = woke;
    }

    /// Whether the connection is gone (a call found it closed); every later call fails, so the
    /// holder connects again.
    pub fn is_closed(&self) -> bool {
        self.inner.closed.load(Ordering::Acquire)
    }

    /// Marks the connection closed and tells every waiter.
    fn close(&self, why: &str) {
        if let Ok(mut r) = self.inner.close_reason.lock() {
            if r.is_empty() {
                *r = why.to_string();
            }
        }
        self.inner.closed.store(true, Ordering::Release);
        if let Ok(mut waiters) = self.inner.waiters.lock() {
            for (_, sink) in waiters.drain() {
                let _ = sink.send(Delivery::Lost(why.to_string()));
            }
        }
    }

    /// Registers `sink` for a new request id and sends the request in one write.
    pub(crate) fn send_request(&self, message: &Message, sink: Sender<Delivery>) -> Result<u64> {
        let id = self.register(sink)?;
        let mut out = Vec::with_capacity(256);
        self.frame(message, id, &mut out)?;
        if let Err(e) = self.send_frames(&out) {
            self.forget(id);
            return Err(e);
        }
        Ok(id)
    }

    /// Sends one request and waits for its single reply (`wait_watched`), over the thread's
    /// reply channel.
    pub(crate) fn call(&self, message: &Message) -> Result<Message> {
        REPLIES.with(|(tx, rx)| self.call_on(message, None, (tx, rx)))
    }

    /// `call` over the reply channel `(tx, rx)`, given up at `deadline` (ConnectionLost) when
    /// there is one.
    fn call_on(
        &self,
        message: &Message,
        deadline: Option<Instant>,
        (tx, rx): (&Sender<Delivery>, &Receiver<Delivery>),
    ) -> Result<Message> {
        // Left over from an earlier call on this thread: nudges, or a lost connection's notice.
        while rx.try_recv().is_ok() {}
        let id = self.send_request(message, tx.clone())?;
        loop {
            let (header, reply) = match deadline {
                None => self.wait_watched(rx)?,
                Some(d) => self.wait(rx, Some(d))?.ok_or_else(|| {
                    self.forget(id);
                    lost("the data node did not answer in time")
                })?,
            };
            if header.request_id != id {
                continue;
            }
            return match reply {
                Message::Failure(e) => Err(ClientError::Failed(e)),
                other => Ok(other),
            };
        }
    }

    /// Creates a table; returns its metadata with ids assigned.
    pub fn create_table(&self, def: TableDef) -> Result<Table> {
        let reply = self.call(&Message::CreateTable(def));
        self.inner.catalog_epoch.fetch_add(1, Ordering::Relaxed);
        match reply? {
            Message::TableInfo { table, .. } => {
                let t = Table::new(table);
                self.cache(&t);
                Ok(t)
            }
            other => Err(unexpected(&other)),
        }
    }

    /// Drops a table, and then the parts of its values kept in parts (`crate::lob`).
    pub fn drop_table(&self, name: &str) -> Result<()> {
        let parts = crate::lob::parts_of_tables(self, &[name.to_string()]);
        self.forget_table(name);
        self.call_done(&Message::DropTable { name: name.into() })?;
        crate::lob::delete_parts(self, &parts);
        Ok(())
    }

    /// A request answered by `Done`.
    fn call_done(&self, message: &Message) -> Result<()> {
        match self.call(message)? {
            Message::Done => Ok(()),
            other => Err(unexpected(&other)),
        }
    }

    /// A table's metadata, from the cache or the data node.
    pub fn table(&self, name: &str) -> Result<Table> {
        if let Some(t) = self
            .inner
            .tables
            .lock()
            .ok()
            .and_then(|t| t.get(&name.to_ascii_lowercase()).cloned())
        {
            return Ok(t);
        }
        let table = match self.call(&Message::GetTable { name: name.into() })? {
            Message::TableInfo { table, .. } => Table::new(table),
            other => return Err(unexpected(&other)),
        };
        let table = match self.kept_stats(&table) {
            Some(stats) => table.with_stats(stats),
            None => table,
        };
        self.cache(&table);
        Ok(table)
    }

    /// Adds an ordered index over `columns` to an existing table; the data node indexes the rows
    /// present before answering. Returns the table's new definition.
    pub fn add_index(&self, table: &str, name: &str, columns: &[&str]) -> Result<Table> {
        self.add_index_of(table, name, IndexKind::Ordered, columns, &[])
    }

    /// Adds a unique index over `columns` to an existing table. The data node builds it over
    /// the rows present, with writes to the table refused (`SchemaChanged`) meanwhile, as a
    /// column change copies; when two rows share a key (NULLs never do) it fails with
    /// `DuplicateKey`, naming the key, and the table stays as it was. Returns the table's new
    /// definition.
    pub fn add_unique_index(&self, table: &str, name: &str, columns: &[&str]) -> Result<Table> {
        self.add_index_of(table, name, IndexKind::Unique, columns, &[])
    }

    /// Adds an index of either kind whose columns may hold prefixes of their values (one
    /// length per column, 0 the whole value; empty for none), as [`Cluster::add_index`]
    /// and [`Cluster::add_unique_index`] do.
    pub fn add_index_of(
        &self,
        table: &str,
        name: &str,
        kind: IndexKind,
        columns: &[&str],
        prefixes: &[u32],
    ) -> Result<Table> {
        // The columns' positions come from the definition the data node holds now.
        self.forget_table(table);
        let current = self.table(table)?;
        let columns = current
            .def()
            .column_positions(columns)
            .map_err(ClientError::Failed)?;
        crate::lob::refuse_index_over_parts(self, &current, &columns)?;
        let reply = self.call(&Message::AddIndex {
            table: table.into(),
            version: current.def().version,
            name: name.into(),
            kind,
            columns,
            prefixes: prefixes.to_vec(),
        });
        self.forget_table(table);
        self.cached_info(reply?)
    }

    /// Changes a table's definition (drop an index, rename, new options, new columns);
    /// returns the new definition (under its new name for a rename). Requests built from the
    /// old definition are refused with `SchemaChanged` from then on.
    ///
    /// A column change that drops columns holding values in parts deletes those parts after
    /// it (`crate::lob`).
    pub fn alter_table(&self, table: &str, change: TableChange) -> Result<Table> {
        let renamed = match &change {
            TableChange::Rename { to } => Some(to.clone()),
            _ => None,
        };
        let dropped_parts = match &change {
            TableChange::Columns { columns, .. } => self.parts_of_dropped(table, columns),
            _ => Vec::new(),
        };
        let reply = self.call(&Message::AlterTable {
            table: table.into(),
            change,
        });
        self.forget_table(table);
        if let Some(to) = renamed {
            self.forget_table(&to);
        }
        let changed = self.cached_info(reply?)?;
        crate::lob::delete_parts(self, &dropped_parts);
        Ok(changed)
    }

    /// The references to parts of the columns of `table` that a column change to `columns`
    /// keeps no value of.
    fn parts_of_dropped(&self, table: &str, columns: &[wire::NewColumn]) -> Vec<PartsRef> {
        let Ok(current) = self.table(table) else {
            return Vec::new();
        };
        let kept: Vec<u16> = columns
            .iter()
            .filter_map(|c| match c.source {
                wire::ColumnSource::Kept(i) => Some(i),
                wire::ColumnSource::Filled(_) => None,
            })
            .collect();
        let dropped: Vec<u16> = (0..current.def().columns.len() as u16)
            .filter(|c| !kept.contains(c))
            .collect();
        crate::lob::parts_of_columns(self, &current, &dropped)
    }

    /// Replaces a table's column list (ALTER TABLE ADD/DROP COLUMN): the data node copies the
    /// rows into the new layout, each column kept from an old one or filled with a value, under
    /// a new table id. Writes to the table are refused (`SchemaChanged`) while the rows are
    /// copied; the change waits for transactions holding locks on the table to end, and fails
    /// with `LockWaitTimeout` when one outlasts the data node's lock-wait timeout. `version` is
    /// the definition version the list was made from (`Table::def().version`); the change fails
    /// with `SchemaChanged` when the table has another, since its kept positions would name
    /// other columns.
    pub fn change_columns(
        &self,
        table: &str,
        version: u32,
        columns: Vec<wire::NewColumn>,
    ) -> Result<Table> {
        self.alter_table(table, TableChange::Columns { version, columns })
    }

    /// Drops an index of a table; a unique index's hidden table goes with it.
    pub fn drop_index(&self, table: &str, name: &str) -> Result<Table> {
        self.alter_table(table, TableChange::DropIndex { name: name.into() })
    }

    /// Renames a table (`to` may name another database: `db/table`).
    pub fn rename_table(&self, table: &str, to: &str) -> Result<Table> {
        self.alter_table(table, TableChange::Rename { to: to.into() })
    }

    /// Creates a database (SQL's schema); its tables are named `database/table`.
    pub fn create_database(&self, name: &str) -> Result<()> {
        self.create_database_with(name, Collation::Utf8mb4GeneralCi)
    }

    /// Creates a database whose tables' strings default to `collation`.
    pub fn create_database_with(&self, name: &str, collation: Collation) -> Result<()> {
        self.call_done(&Message::CreateDatabase {
            name: name.into(),
            collation,
        })
    }

    /// Sets the default collation of the database's new tables; its tables keep theirs.
    pub fn alter_database(&self, name: &str, collation: Collation) -> Result<()> {
        self.call_done(&Message::AlterDatabase {
            name: name.into(),
            collation,
        })
    }

    /// Drops a database and every table in it.
    pub fn drop_database(&self, name: &str) -> Result<()> {
        let prefix = format!("{}/", name.to_ascii_lowercase());
        let tables: Vec<String> = self
            .list_tables()
            .unwrap_or_default()
            .into_iter()
            .filter(|t| t.to_ascii_lowercase().starts_with(&prefix))
            .collect();
        let parts = crate::lob::parts_of_tables(self, &tables);
        if let Ok(mut t) = self.inner.tables.lock() {
            t.retain(|k, _| !k.starts_with(&prefix));
        }
        self.call_done(&Message::DropDatabase { name: name.into() })?;
        crate::lob::delete_parts(self, &parts);
        Ok(())
    }

    /// The databases, in name order.
    pub fn databases(&self) -> Result<Vec<String>> {
        Ok(self
            .database_collations()?
            .into_iter()
            .map(|(name, _)| name)
            .collect())
    }

    /// The databases, in name order, each with its default collation.
    pub fn database_collations(&self) -> Result<Vec<(String, Collation)>> {
        match self.call(&Message::ListDatabases)? {
            Message::DatabaseList { databases } => Ok(databases),
            other => Err(unexpected(&other)),
        }
    }

    /// Drops a cached table definition, so the next `table` asks the data node (after another
    /// connection dropped or changed the table).
    pub fn forget_table(&self, name: &str) {
        if let Ok(mut t) = self.inner.tables.lock() {
            t.remove(&name.to_ascii_lowercase());
        }
        self.inner.catalog_epoch.fetch_add(1, Ordering::Relaxed);
    }

    /// Drops every cached table definition (after a request was refused with
    /// `SchemaChanged` and the caller cannot tell which table changed).
    pub fn forget_tables(&self) {
        if let Ok(mut t) = self.inner.tables.lock() {
            t.clear();
        }
        self.inner.catalog_epoch.fetch_add(1, Ordering::Relaxed);
    }

    /// A number that changes whenever this connection creates a table or forgets a cached
    /// definition (its own DDL, or a request refused with `SchemaChanged`): what a caller
    /// derived from the catalog under another number may be out of date.
    pub fn catalog_epoch(&self) -> u64 {
        self.inner.catalog_epoch.load(Ordering::Relaxed)
    }

    /// The definition a DDL reply carries, cached (with the statistics cached for the same
    /// table, which name its keys).
    fn cached_info(&self, reply: Message) -> Result<Table> {
        match reply {
            Message::TableInfo { table, .. } => {
                let before = self
                    .inner
                    .tables
                    .lock()
                    .ok()
                    .and_then(|t| t.get(&table.name.to_ascii_lowercase()).cloned());
                let mut t = Table::new(table);
                if let Some(stats) = before.and_then(|b| b.stats_arc()) {
                    if stats.table_id == t.id() {
                        t = t.with_stats(stats);
                    }
                }
                self.cache(&t);
                Ok(t)
            }
            other => Err(unexpected(&other)),
        }
    }

    pub(crate) fn cache(&self, t: &Table) {
        if let Ok(mut tables) = self.inner.tables.lock() {
            tables.insert(t.def().name.to_ascii_lowercase(), t.clone());
        }
    }

    pub fn list_tables(&self) -> Result<Vec<String>> {
        match self.call(&Message::ListTables)? {
            Message::TableList { names } => Ok(names),
            other => Err(unexpected(&other)),
        }
    }

    pub fn status(&self) -> Result<NodeStatus> {
        match self.call(&Message::Status)? {
            Message::StatusReply(s) => Ok(s),
            other => Err(unexpected(&other)),
        }
    }

    /// Has the data node write a local checkpoint now; returns once it is published.
    /// Every partition the data node holds, primary or backup: (table, partition, rows, the
    /// wrapping sum of its rows' CRC-32C), to compare the replicas of a node group.
    pub fn checksums(&self) -> Result<Vec<(u32, u32, u64, u64)>> {
        match self.call(&Message::ChecksumsRequest)? {
            Message::Checksums { partitions } => Ok(partitions),
            other => Err(unexpected(&other)),
        }
    }

    pub fn checkpoint(&self) -> Result<CheckpointInfo> {
        match self.call(&Message::Checkpoint)? {
            Message::CheckpointReply(c) => Ok(c),
            other => Err(unexpected(&other)),
        }
    }

    /// Asks the data node to stop (`restart`: so that what runs it starts it again, from its
    /// own files or, `initial`, empty); it answers before it stops.
    pub fn shutdown(&self, restart: bool, initial: bool) -> Result<()> {
        match self.call(&Message::Shutdown { restart, initial })? {
            Message::Done => Ok(()),
            other => Err(unexpected(&other)),
        }
    }

    /// The number this connection gave the data node in its hello.
    pub fn session(&self) -> u64 {
        self.inner.session
    }

    /// How the commit `name` ended, asked of every data node among `addresses` (one or
    /// several, comma-separated) until one can tell, for up to `timeout`: in a cluster of
    /// several node groups only the group that coordinated the commit knows it (another
    /// answers that it cannot tell, and the next node is asked), and while that group takes
    /// over after a failure its nodes answer "ask again". None when none could tell.
    pub fn outcome_among(addresses: &str, name: (u64, u64), timeout: Duration) -> Option<bool> {
        let deadline = Instant::now() + timeout;
        loop {
            let mut again = false;
            for address in self::addresses(addresses) {
                let Ok((node, _)) = Cluster::connect_one(address, None) else {
                    again = true;
                    continue;
                };
                match node.commit_outcome(name) {
                    Ok(committed) => return Some(committed),
                    Err(e) if e.is_temporary() => again = true,
                    Err(ClientError::ConnectionLost(_)) => again = true,
                    // This node cannot tell (another group's, or it forgot): the next may.
                    Err(_) => {}
                }
            }
            if !again || Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(ROUND_PAUSE.min(deadline.saturating_duration_since(Instant::now())));
        }
    }

    /// How the commit named `name` (`Transaction::commit_name`, of a connection that was lost)
    /// ended, as the node group's primary knows it: true if it took effect. A node that does
    /// not know yet answers a temporary error (ask again), one that keeps no record a
    /// permanent one.
    pub fn commit_outcome(&self, name: (u64, u64)) -> Result<bool> {
        match self.call(&Message::CommitOutcome {
            session: name.0,
            transaction: name.1,
        })? {
            Message::Outcome { committed } => Ok(committed),
            other => Err(unexpected(&other)),
        }
    }

    pub fn ping(&self, payload: Vec<u8>) -> Result<()> {
        match self.call(&Message::Ping { payload })? {
            Message::Pong { .. } => Ok(()),
            other => Err(unexpected(&other)),
        }
    }

    /// Starts a transaction; nothing is sent until `execute`.
    /// A transaction number of this connection's no transaction has used.
    pub(crate) fn next_transaction(&self) -> u64 {
        self.inner.next_txn.fetch_add(1, Ordering::Relaxed)
    }

    pub fn transaction(&self) -> Transaction {
        Transaction::new(self.clone())
    }

    /// Runs a scan and returns its rows (projected columns, in the order asked for).
    pub fn scan(&self, table: &Table, scan: &Scan) -> Result<Vec<Vec<base::Value>>> {
        self.open_scan(table, scan.request(table)?)?.collect_all()
    }
}

/// Refuses (and takes back off `out`) the frame written from `start` if the data node would
/// reject it for its size.
pub(crate) fn check_frame(out: &mut Vec<u8>, start: usize) -> Result<()> {
    let body = out.len() - start - wire::HEADER_BYTES;
    if body > base::limits::FRAME_BODY_BYTES_MAX as usize {
        out.truncate(start);
        return Err(ClientError::Failed(Error::new(
            ErrorCode::LimitExceeded,
            format!(
                "request of {body} bytes exceeds the frame limit of {} bytes",
                base::limits::FRAME_BODY_BYTES_MAX
            ),
        )));
    }
    Ok(())
}

pub(crate) fn unexpected(m: &Message) -> ClientError {
    ClientError::Failed(Error::new(
        ErrorCode::Protocol,
        format!("unexpected reply type {}", m.type_code()),
    ))
}

#[cfg(test)]
mod tests {
    use super::{read_from, unanswered, unanswered_last, ReplicaSeen};

    #[test]
    fn nodes_that_failed_to_answer_are_tried_last() {
        let list = vec!["10.9.9.1:1", "10.9.9.2:1", "10.9.9.3:1"];
        assert_eq!(unanswered_last(list.clone()), list);
        unanswered("10.9.9.1:1");
        assert_eq!(
            unanswered_last(list),
            vec!["10.9.9.2:1", "10.9.9.3:1", "10.9.9.1:1"]
        );
    }

    fn replica(node: u32, primary: bool, local: bool, host: &str) -> ReplicaSeen {
        ReplicaSeen {
            node,
            primary,
            local,
            host: host.parse().ok(),
        }
    }

    #[test]
    fn reads_go_to_the_nearest_replicas_and_spread_only_over_hosts() {
        // One host: the primary alone, wherever it is listed.
        let one_host = [
            replica(2, false, true, "127.0.0.1"),
            replica(1, true, true, "127.0.0.1"),
        ];
        assert_eq!(read_from(&one_host), vec![1]);
        // One host and no primary among the replicas seen: the lowest node.
        let backups = [
            replica(3, false, true, "127.0.0.1"),
            replica(2, false, true, "127.0.0.1"),
        ];
        assert_eq!(read_from(&backups), vec![1]);
        // Two hosts, both this one's (loopback addresses): both, by node id.
        let two_local = [
            replica(2, false, true, "127.0.0.2"),
            replica(1, true, true, "127.0.0.1"),
        ];
        assert_eq!(read_from(&two_local), vec![1, 0]);
        // A replica on this host beats the primary on another.
        let near = [
            replica(1, true, false, "10.0.0.1"),
            replica(2, false, true, "10.0.0.2"),
        ];
        assert_eq!(read_from(&near), vec![1]);
        // None here, on two other hosts: both.
        let far = [
            replica(1, true, false, "10.0.0.1"),
            replica(2, false, false, "10.0.0.2"),
        ];
        assert_eq!(read_from(&far), vec![0, 1]);
        assert!(read_from(&[]).is_empty());
    }
}
