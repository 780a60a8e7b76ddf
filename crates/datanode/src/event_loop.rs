//! A worker thread's event loop. Each worker serves a share of the API connections and owns a
//! share of the partitions: it reads request frames from its connections (non-blocking), runs their
//! coordinators, runs the steps addressed to its partitions, and writes replies. Messages to other
//! workers go through their queues and wake them only when they sleep; messages to itself never
//! leave the thread, so a request whose rows live on the worker that reads it costs no thread hop.
//!
//! A slow socket never stalls a partition: sockets are non-blocking and unsent replies wait in the
//! connection's queue until the socket is writable again. A connection whose unsent replies pass
//! `OUTPUT_PAUSE_BYTES` is not read until they fall below half of it: a client that sends and
//! never reads is paused, not buffered without end.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, TryRecvError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mio::{Events, Poll, Token, Waker};
use tracing::{debug, warn};
use transport::nonblocking::{Connection, ReadState};

use crate::coordinator::Coordinator;
use crate::messages::{CheckpointReply, CheckpointStep, ReplyTo, ToWorker};
use crate::worker::Worker;
use crate::Durability;
use crate::Shared;

/// The token of a worker's waker; connections use tokens from 1.
const WAKER_TOKEN: Token = Token(0);

/// How another thread reaches a worker: its queue, and a waker for when it sleeps in `poll`.
pub struct WorkerHandle {
    queue: Sender<ToWorker>,
    waker: Waker,
    sleeping: AtomicBool,
    /// Messages queued and not yet taken: new requests are refused while it is at the bound.
    depth: AtomicUsize,
}

impl WorkerHandle {
    pub fn new(queue: Sender<ToWorker>, poll: &Poll) -> std::io::Result<WorkerHandle> {
        Ok(WorkerHandle {
            queue,
            waker: Waker::new(poll.registry(), WAKER_TOKEN)?,
            sleeping: AtomicBool::new(false),
            depth: AtomicUsize::new(0),
        })
    }

    /// Messages waiting in the worker's queue.
    pub fn depth(&self) -> usize {
        self.depth.load(Ordering::Relaxed)
    }

    /// Queues a message; wakes the worker if it sleeps. False if the worker has stopped.
    pub fn send(&self, message: ToWorker) -> bool {
        self.depth.fetch_add(1, Ordering::Relaxed);
        if self.queue.send(message).is_err() {
            self.depth.fetch_sub(1, Ordering::Relaxed);
            return false;
        }
        if self.sleeping.swap(false, Ordering::AcqRel) {
            if let Err(e) = self.waker.wake() {
                warn!("could not wake a worker: {e}");
            }
        }
        true
    }
}

struct Served {
    io: Connection,
    coordinator: Coordinator,
    /// In `EventLoop::dirty`: it has output to write at the end of this turn.
    dirty: bool,
    /// Since when part of a frame has waited for the rest (counted in `EventLoop::partial`).
    partial_since: Option<Instant>,
    /// Not read while its unsent replies are past `OUTPUT_PAUSE_BYTES`.
    paused: bool,
    /// The peer's FIN came while it was paused: the read on resuming goes to the end of input.
    fin_seen: bool,
    /// The peer has sent everything (FIN): closed once its answers are all written.
    draining: bool,
}

/// Unsent reply bytes past which a connection's requests are no longer read (it resumes below
/// half). One read may still take in a socket buffer's worth of requests.
pub const OUTPUT_PAUSE_BYTES: usize = 4 << 20;

/// Queued reply bytes that are written before the turn ends (see `flush_large`).
const EARLY_FLUSH_BYTES: usize = 8 * 1024;

pub struct EventLoop {
    index: usize,
    shared: Arc<Shared>,
    worker: Worker,
    poll: Poll,
    inbox: Receiver<ToWorker>,
    /// Messages this worker sent to itself.
    local: VecDeque<ToWorker>,
    connections: HashMap<usize, Served>,
    /// Coordinators of closed connections still driving a schema change (`has_schema_work`),
    /// by their connection's token; each goes once its change ended.
    orphans: HashMap<usize, crate::coordinator::Coordinator>,
    /// Connections with output queued this turn, written once before the loop polls again: all
    /// the replies ready for one peer go out in one write.
    dirty: Vec<usize>,
    next_token: usize,
    spin: Duration,
    /// Interval durability: redo written but not yet fsynced.
    unsynced: bool,
    /// Fail-stop happened: the connections open then were closed; later ones get errors.
    failed: bool,
    /// Checkpoint barriers to pass once this turn's redo is written (and fsynced, when asked).
    barriers: Vec<(bool, std::sync::mpsc::SyncSender<CheckpointReply>)>,
    /// Redo bytes already counted in `Shared::redo_bytes`.
    counted_redo: u64,
    /// Fault injection (tests only): data messages left before this worker panics.
    pub(crate) fault_panic_after: Option<u64>,
    /// Connections holding part of a frame.
    partial: usize,
    /// When connections holding part of a frame are next checked against the frame timeout.
    next_frame_check: Instant,
    /// When the connections' idle transactions are next checked against the inactive-
    /// transaction timeout.
    next_txn_check: Instant,
}

impl EventLoop {
    pub fn new(
        index: usize,
        shared: Arc<Shared>,
        worker: Worker,
        poll: Poll,
        inbox: Receiver<ToWorker>,
        spin: Duration,
    ) -> EventLoop {
        EventLoop {
            index,
            shared,
            worker,
            poll,
            inbox,
            local: VecDeque::new(),
            connections: HashMap::new(),
            dirty: Vec::new(),
            next_token: 1,
            orphans: HashMap::new(),
            spin,
            unsynced: false,
            failed: false,
            barriers: Vec::new(),
            counted_redo: 0,
            fault_panic_after: None,
            partial: 0,
            next_frame_check: Instant::now(),
            next_txn_check: Instant::now(),
        }
    }

    /// Serves until `Stop`.
    pub fn run(mut self) {
        let mut events = Events::with_capacity(256);
        let mut last_work = Instant::now();
        loop {
            let mut worked = false;
            loop {
                let message = match self.local.pop_front() {
                    Some(m) => m,
                    None => match self.inbox.try_recv() {
                        Ok(m) => {
                            self.shared.workers[self.index]
                                .depth
                                .fetch_sub(1, Ordering::Relaxed);
                            m
                        }
                        Err(TryRecvError::Empty) => break,
                        Err(TryRecvError::Disconnected) => return self.stop(),
                    },
                };
                worked = true;
                if !self.dispatch(message) {
                    return self.stop();
                }
                self.flush_large();
            }
            self.worker.expire_waits();
            self.expire_partial_frames();
            self.expire_idle_transactions();
            self.write_log();
            self.deliver_worker_output();
            self.pass_barriers();
            if self.worker.checkpoint.is_some() && !self.failed {
                self.worker.checkpoint_work();
                worked = true;
            }
            self.flush_dirty();
            let now = Instant::now();
            if worked {
                last_work = now;
            }
            // Poll without sleeping while work came recently (NDB's spin): waking a sleeping thread
            // costs more than a request. Otherwise sleep until a socket, a message or a lock-wait
            // deadline needs this worker.
            // (Replies a resumed connection made after this turn's writes are written next turn.)
            let timeout = if !self.local.is_empty()
                || !self.dirty.is_empty()
                || now.duration_since(last_work) < self.spin
                || self.worker.checkpoint.is_some()
            {
                Some(Duration::ZERO)
            } else {
                let handle = &self.shared.workers[self.index];
                handle.sleeping.store(true, Ordering::Release);
                // A message queued before the flag was set would not wake us: look once more.
                match self.inbox.try_recv() {
                    Ok(m) => {
                        handle.depth.fetch_sub(1, Ordering::Relaxed);
                        handle.sleeping.store(false, Ordering::Release);
                        self.local.push_back(m);
                        continue;
                    }
                    Err(TryRecvError::Disconnected) => return self.stop(),
                    Err(TryRecvError::Empty) => {}
                }
                let lock_deadline = self.worker.next_deadline();
                let frame_deadline = (self.partial > 0).then_some(self.next_frame_check);
                let txn_deadline = (!self.shared.transaction_inactive_timeout.is_zero())
                    .then_some(self.next_txn_check);
                lock_deadline
                    .into_iter()
                    .chain(frame_deadline)
                    .chain(txn_deadline)
                    .min()
                    .map(|d| d.saturating_duration_since(now))
            };
            if let Err(e) = self.poll.poll(&mut events, timeout) {
                if e.kind() != std::io::ErrorKind::Interrupted {
                    warn!(worker = self.index, "poll failed: {e}");
                }
            }
            self.shared.workers[self.index]
                .sleeping
                .store(false, Ordering::Release);
            for event in events.iter() {
                if event.token() == WAKER_TOKEN {
                    continue;
                }
                last_work = Instant::now();
                self.on_socket(
                    event.token().0,
                    event.is_readable() || event.is_read_closed(),
                    event.is_read_closed(),
                    event.is_writable(),
                );
            }
        }
    }

    /// Handles one message; false on Stop.
    fn dispatch(&mut self, message: ToWorker) -> bool {
        match message {
            ToWorker::Stop => return false,
            ToWorker::Checkpoint(step) => self.checkpoint_step(step),
            ToWorker::Connection(stream) => self.accept(stream),
            ToWorker::ToCoordinator { connection, event } => {
                if let Some(served) = self.connections.get_mut(&connection) {
                    served.coordinator.handle(event);
                    self.after_coordinator(connection);
                } else if let Some(orphan) = self.orphans.get_mut(&connection) {
                    orphan.handle(event);
                    orphan.out.clear();
                    let outbox = std::mem::take(&mut orphan.outbox);
                    if !orphan.has_schema_work() {
                        self.orphans.remove(&connection);
                    }
                    for (worker, message) in outbox {
                        self.route(worker, message);
                    }
                }
            }
            ToWorker::CommitReplicated {
                txn,
                touched,
                written,
                tag,
                reply_to,
                generation,
            } => {
                let (messages, _) = crate::coordinator::commit_messages(
                    &self.shared,
                    txn,
                    touched,
                    written,
                    tag,
                    reply_to,
                );
                for (worker, message) in messages {
                    self.route(worker, message);
                }
                // Its own worker's part waits in `local`: settled once that ran too.
                self.route(self.index, ToWorker::Settled { generation });
            }
            ToWorker::Settled { generation } => {
                if let Some(role) = &self.shared.role {
                    role.settled(generation);
                }
            }
            data => {
                if let Some(left) = &mut self.fault_panic_after {
                    assert!(*left > 0, "fault injection: worker {} panics", self.index);
                    *left -= 1;
                }
                self.worker.handle(data);
                // A record the log refused (poisoned, or too large) must not be acknowledged.
                if self.worker.failure.is_some() {
                    self.fail_stop();
                    return true;
                }
                // Answers wait while redo records are unwritten: no commit is acknowledged, and
                // no read shows a commit, before its record is written (and in commit mode,
                // fsynced) together with the rest of this turn's records.
                if !self.worker.log_pending() {
                    self.deliver_worker_output();
                }
            }
        }
        true
    }

    fn checkpoint_step(&mut self, step: CheckpointStep) {
        match step {
            CheckpointStep::Mark { reply } => {
                // (Not past a record a two-phase commit still needs: `worker::prepared`.)
                if let Some(position) = self.worker.log_keep_from() {
                    let _ = reply.send(CheckpointReply::Position {
                        worker: self.index,
                        position,
                    });
                }
            }
            CheckpointStep::Barrier { sync, reply } => self.barriers.push((sync, reply)),
            CheckpointStep::Write { full, reply } => {
                self.worker.start_checkpoint(self.index, full, reply)
            }
            CheckpointStep::Release { upto } => self.worker.release_log(upto),
        }
    }

    /// Answers the barriers that arrived this turn: everything before them is processed and
    /// its redo written (the turn's `write_log` ran), and fsynced when a barrier asks.
    fn pass_barriers(&mut self) {
        if self.barriers.is_empty() || self.failed {
            return;
        }
        if self.barriers.iter().any(|(sync, _)| *sync) && self.unsynced {
            self.worker.flush_log(true);
            self.unsynced = false;
            if self.worker.failure.is_some() {
                self.fail_stop();
                return;
            }
        }
        for (_, reply) in self.barriers.drain(..) {
            let _ = reply.send(CheckpointReply::BarrierPassed { worker: self.index });
        }
    }

    /// Writes this turn's redo records: fsynced at once in commit mode (one fsync for every commit
    /// gathered, the group commit), or written now and fsynced on the interval. A failure stops
    /// the node: what waited for the log is never acknowledged.
    fn write_log(&mut self) {
        self.write_log_inner();
        let written = self.worker.log_bytes();
        if written > self.counted_redo {
            self.shared
                .redo_bytes
                .fetch_add(written - self.counted_redo, Ordering::Relaxed);
            self.counted_redo = written;
        }
    }

    fn write_log_inner(&mut self) {
        // In `interval` mode the global checkpoint's barriers fsync (`gcp`).
        let interval = matches!(self.shared.durability, Durability::Interval(_));
        let pending = self.worker.log_pending();
        // A prepared part's record is answered only once on disk, in either durability.
        let wanted = self.worker.take_sync_wanted();
        if pending && !self.failed {
            let sync = !interval || wanted;
            self.worker.flush_log(sync);
            self.unsynced = !sync;
        }
        if self.worker.failure.is_some() {
            self.fail_stop();
        }
    }

    /// After a failed write or fsync: drop every answer that waited for the log and close every
    /// connection, whose clients then see the outcome of their commits as unknown.
    fn fail_stop(&mut self) {
        if self.failed {
            self.worker.outgoing.clear();
            return;
        }
        self.failed = true;
        if let Some(why) = self.worker.failure.clone() {
            self.shared.fail(why);
        }
        self.worker.outgoing.clear();
        let tokens: Vec<usize> = self.connections.keys().copied().collect();
        for t in tokens {
            self.close(t, "the data node failed");
        }
    }

    /// Sends the worker's answers to their coordinators.
    fn deliver_worker_output(&mut self) {
        for (to, event) in std::mem::take(&mut self.worker.outgoing) {
            self.route(
                to.worker,
                ToWorker::ToCoordinator {
                    connection: to.connection,
                    event,
                },
            );
        }
    }

    fn route(&mut self, worker: usize, message: ToWorker) {
        if worker == self.index {
            self.local.push_back(message);
        } else if !self.shared.workers[worker].send(message) {
            debug!(worker, "message for a stopped worker dropped");
        }
    }

    fn accept(&mut self, stream: transport::Stream) {
        let mut io = match Connection::new(stream) {
            Ok(io) => io,
            Err(e) => {
                warn!("could not set up a connection: {e}");
                self.shared.connection_closed();
                return;
            }
        };
        let token = self.next_token;
        self.next_token += 1;
        if let Err(e) = io.register(self.poll.registry(), Token(token)) {
            warn!(peer = io.peer(), "could not register a connection: {e}");
            self.shared.connection_closed();
            return;
        }
        let coordinator = Coordinator::new(
            self.shared.clone(),
            ReplyTo {
                worker: self.index,
                connection: token,
            },
            io.peer().to_string(),
        );
        self.connections.insert(
            token,
            Served {
                io,
                coordinator,
                dirty: false,
                partial_since: None,
                paused: false,
                fin_seen: false,
                draining: false,
            },
        );
        // Bytes may have arrived before registration; read them now.
        self.on_socket(token, true, false, false);
    }

    /// `read_closed`: the peer's FIN arrived with this event. A short read stops before the end
    /// of input, and no later event will announce a FIN that has already come, so then the
    /// socket is read once more, to its end.
    fn on_socket(&mut self, token: usize, readable: bool, read_closed: bool, writable: bool) {
        let Some(served) = self.connections.get_mut(&token) else {
            return;
        };
        let mut closing = None;
        let mut partial_change = 0isize;
        // A FIN no later event will announce again.
        served.fin_seen |= read_closed;
        let read_closed = served.fin_seen;
        if readable && served.io.backlog() >= OUTPUT_PAUSE_BYTES {
            // Its replies are not being read: neither are its requests, until they are.
            served.paused = true;
            self.mark_dirty(token);
        } else if readable {
            let coordinator = &mut served.coordinator;
            let mut frames = 0usize;
            // After a FIN every read makes progress, so this ends at the end of input.
            let backlog = served.io.backlog();
            let state = loop {
                let state = served.io.read_frames_while(|header, message| {
                    frames += 1;
                    coordinator.on_frame(header, message);
                    // Replies not yet handed to the connection count too.
                    backlog + coordinator.out.len() < OUTPUT_PAUSE_BYTES
                });
                if !(read_closed && matches!(state, Ok(ReadState::Open))) {
                    break state;
                }
            };
            // Input left unread while paused is the node's wait, not a stalled frame.
            let stopped = matches!(state, Ok(ReadState::Stopped));
            match (served.io.is_partial() && !stopped, served.partial_since) {
                (true, None) => {
                    served.partial_since = Some(Instant::now());
                    partial_change = 1;
                }
                // A frame completed: the wait counts from there (a pipelining peer whose reads
                // keep ending inside a frame is not stalled).
                (true, Some(_)) if frames > 0 => served.partial_since = Some(Instant::now()),
                (false, Some(_)) => {
                    served.partial_since = None;
                    partial_change = -1;
                }
                _ => {}
            }
            match state {
                Ok(ReadState::Open) => {}
                // Its replies are not being read: neither are its requests, until they are (a
                // FIN that came meanwhile is read then).
                Ok(ReadState::Stopped) => served.paused = true,
                // A peer that has sent everything still reads its answers: they are written
                // first (`flush_dirty` closes the connection then).
                Ok(ReadState::Closed) if served.io.backlog() > 0 || served.coordinator.busy() => {
                    served.draining = true;
                }
                Ok(ReadState::Closed) => closing = Some(String::new()),
                Err(e) => {
                    warn!(peer = served.io.peer(), "closing connection: {e}");
                    closing = Some(e.to_string());
                }
            }
        }
        self.partial = self.partial.wrapping_add_signed(partial_change);
        if writable {
            self.mark_dirty(token);
        }
        self.after_coordinator(token);
        if let Some(why) = closing {
            self.close(token, &why);
        }
    }

    /// Closes the connections that have held part of a frame for longer than the frame timeout
    /// (a peer that stalled mid-frame, or sends a header whose body never comes). Looked at a
    /// few times per timeout, and only while some connection holds part of a frame.
    fn expire_partial_frames(&mut self) {
        let now = Instant::now();
        if self.partial == 0 || now < self.next_frame_check {
            return;
        }
        let timeout = self.shared.frame_timeout;
        self.next_frame_check = now + (timeout / 8).max(Duration::from_millis(10));
        let stalled: Vec<usize> = self
            .connections
            .iter()
            .filter(|(_, s)| {
                s.partial_since
                    .is_some_and(|t| now.duration_since(t) >= timeout)
            })
            .map(|(t, _)| *t)
            .collect();
        for token in stalled {
            let peer = self
                .connections
                .get(&token)
                .map(|s| s.io.peer().to_string());
            warn!(
                peer,
                "closing connection: part of a frame waited {timeout:?} for the rest"
            );
            self.close(token, "frame timeout");
        }
    }

    /// Rolls back the transactions idle past the inactive-transaction timeout, looking a few
    /// times per timeout (so one is rolled back within 1.25 times the timeout).
    fn expire_idle_transactions(&mut self) {
        let timeout = self.shared.transaction_inactive_timeout;
        let now = Instant::now();
        if timeout.is_zero() || now < self.next_txn_check {
            return;
        }
        self.next_txn_check = now + (timeout / 4).max(Duration::from_millis(10));
        let holding: Vec<usize> = self
            .connections
            .iter()
            .filter(|(_, s)| s.coordinator.holds_idle_state())
            .map(|(t, _)| *t)
            .collect();
        for token in holding {
            if let Some(served) = self.connections.get_mut(&token) {
                served.coordinator.expire_idle(now, timeout);
            }
            self.after_coordinator(token);
        }
    }

    /// Delivers what a coordinator produced: messages to workers, frames to its socket.
    fn after_coordinator(&mut self, token: usize) {
        let Some(served) = self.connections.get_mut(&token) else {
            return;
        };
        let outbox = std::mem::take(&mut served.coordinator.outbox);
        if !served.coordinator.out.is_empty() {
            let output = served.io.output();
            if output.is_empty() {
                // Hand the whole buffer over instead of copying it; the coordinator gets the
                // connection's empty one back to fill next.
                std::mem::swap(output, &mut served.coordinator.out);
            } else {
                output.append(&mut served.coordinator.out);
            }
        }
        let queued = served.io.backlog() > 0;
        for (worker, message) in outbox {
            self.route(worker, message);
        }
        if queued {
            self.mark_dirty(token);
        }
    }

    fn mark_dirty(&mut self, token: usize) {
        if let Some(served) = self.connections.get_mut(&token) {
            if !served.dirty {
                served.dirty = true;
                self.dirty.push(token);
            }
        }
    }

    /// Writes the replies of connections that have queued at least EARLY_FLUSH_BYTES this turn,
    /// so the API node can work on a batch's first answers while this worker runs the rest.
    fn flush_large(&mut self) {
        let large = self.dirty.iter().any(|t| {
            self.connections
                .get(t)
                .is_some_and(|s| s.io.backlog() >= EARLY_FLUSH_BYTES)
        });
        if large {
            self.flush_dirty();
        }
    }

    /// Writes every connection's queued replies, one write each (more only when the socket is
    /// full; the rest then waits for a writable event).
    fn flush_dirty(&mut self) {
        let mut resume = Vec::new();
        for token in std::mem::take(&mut self.dirty) {
            let Some(served) = self.connections.get_mut(&token) else {
                continue;
            };
            served.dirty = false;
            if let Err(e) = served.io.flush(self.poll.registry(), Token(token)) {
                self.close(token, &format!("write failed: {e}"));
            } else if served.draining && served.io.backlog() == 0 && !served.coordinator.busy() {
                self.close(token, "");
            } else if served.paused && served.io.backlog() < OUTPUT_PAUSE_BYTES / 2 {
                served.paused = false;
                resume.push(token);
            }
        }
        // Requests that arrived while paused raised no new event: read them now.
        for token in resume {
            self.on_socket(token, true, false, false);
        }
    }

    fn close(&mut self, token: usize, why: &str) {
        let Some(mut served) = self.connections.remove(&token) else {
            return;
        };
        if served.partial_since.is_some() {
            self.partial -= 1;
        }
        if why.is_empty() {
            debug!(
                peer = served.io.peer(),
                "connection closed: the peer closed it"
            );
        } else {
            debug!(peer = served.io.peer(), "connection closed: {why}");
        }
        served.coordinator.close();
        for (worker, message) in std::mem::take(&mut served.coordinator.outbox) {
            self.route(worker, message);
        }
        served.io.deregister(self.poll.registry());
        served.io.shutdown();
        self.shared.connection_closed();
        if served.coordinator.has_schema_work() {
            // Its schema change runs to its end without the connection (tokens are never
            // reused, so its workers' answers still find it).
            self.orphans.insert(token, served.coordinator);
        }
    }

    fn stop(mut self) {
        self.flush_dirty();
        // What this worker logged is made durable (in `interval` mode, a stopping node's last
        // global checkpoint counts on it).
        if !self.failed {
            self.worker.flush_log(true);
        }
        let tokens: Vec<usize> = self.connections.keys().copied().collect();
        for t in tokens {
            self.close(t, "data node stopping");
        }
    }
}
