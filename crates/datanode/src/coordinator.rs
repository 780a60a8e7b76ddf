//! The transaction coordinator of one API connection, run by the worker thread that serves the
//! connection. It routes each step to the worker owning the step's partition, drives
//! unique-index lookups and maintenance as extra rounds, commits or aborts on every worker a
//! transaction touched, merges scan results, and collects reply frames for the connection. It
//! never touches partitions itself: everything for workers goes through `outbox`, which the event
//! loop delivers (to its own worker without leaving the thread).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use base::schema::IndexDef;
use base::{limits, Error, ErrorCode};
use tracing::warn;
use wire::{ExecType, FrameHeader, Message, NodeStatus, OpResult};

use crate::messages::*;
use crate::prepare::PreparedOp;
use crate::Shared;

mod aggregate;
mod ddl;
mod execute;
mod join;
mod remote;
mod replica;
mod scan;
pub mod twophase;

/// Where an operation is in its rounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Nothing sent yet.
    Start,
    /// Waiting for the unique-index table row that names the base row.
    IndexLookup,
    /// Waiting for the step on the base row.
    Base,
    /// Waiting for unique-index maintenance steps.
    Maintain,
    Done,
}

struct OpState {
    prepared: PreparedOp,
    phase: Phase,
    result: Option<OpResult>,
}

struct ExecState {
    request_id: u64,
    client_txn: u64,
    txn: TxnId,
    /// The client's statement number (0: a failure aborts the transaction).
    statement: u32,
    /// The oldest statement whose undo the workers keep (0: the latest only).
    keep_from: u32,
    exec: ExecType,
    ops: Vec<OpState>,
    /// Replies still expected in this round.
    waiting: usize,
    /// Replies gathered in this round.
    replies: Vec<StepReply>,
    failure: Option<(u32, Error)>,
    /// Some operation failed in a way that ends the whole transaction even within a statement
    /// (`ends_transaction`), whichever failure is reported.
    fatal: bool,
}

/// Waiting for the workers to undo a statement's changes before answering with
/// `StatementUndone` (the failed operation) or `Ok` (an `UndoStatement` request).
struct UndoState {
    request_id: u64,
    client_txn: u64,
    waiting: usize,
    failure: Option<(u32, Error)>,
}

enum Pending {
    Execute(Box<ExecState>),
    Undo(UndoState),
    /// On a node group's primary: a step link's steps running on this node's workers.
    RemoteSteps {
        request_id: u64,
        transaction: u64,
        waiting: usize,
        replies: Vec<StepReply>,
    },
    /// A transaction that wrote in several node groups: waiting for their parts to prepare
    /// (`twophase.rs`).
    Preparing {
        request_id: u64,
        client_txn: u64,
        txn: Box<OpenTxn>,
        results: Vec<OpResult>,
        waiting: usize,
        failure: Option<Error>,
    },
    /// On a node group's primary: a prepared part's rows going to the backups.
    PreparingHere {
        request_id: u64,
    },
    /// A schema change sent to the schema master for a client of this node (`remote.rs`).
    Relay {
        request_id: u64,
    },
    /// On a node group's primary: a worker reading a step link's scan part.
    RemoteScan {
        request_id: u64,
    },
    /// A commit held by a global checkpoint round (`Role::wait_for_gate`): it begins when the
    /// gate opens (`Event::GateOpen`); `two_phase`: it writes in other node groups too.
    Gated {
        request_id: u64,
        client_txn: u64,
        txn: Box<OpenTxn>,
        results: Vec<OpResult>,
        two_phase: bool,
    },
    /// Waiting for commit acknowledgements before answering.
    Commit {
        request_id: u64,
        waiting: usize,
        results: Vec<OpResult>,
    },
    /// A two-phase commit's decision, taken by the backups: its prepared parts commit once
    /// this node's workers committed it too (logged, with its name), so every node of the
    /// group holds the decision on disk before any part is committed.
    Deciding {
        request_id: u64,
        waiting: usize,
        results: Vec<OpResult>,
        decided: Box<twophase::Decided>,
        /// The client's name for the commit, answered as committed from then on too.
        name: crate::replication::CommitName,
    },
    /// A worker reading the next part of a stream of an open scan (`scan.rs`).
    Scan(scan::Reading),
    /// Waiting for every worker to apply a schema change.
    Ddl {
        request_id: u64,
        waiting: usize,
        reply: Message,
    },
    /// Waiting for every worker to copy its rows for a column change.
    Convert {
        request_id: u64,
        waiting: usize,
        conversion: Arc<crate::catalog::Conversion>,
        error: Option<Error>,
        /// The copy's records are below the global checkpoint's cut (`after_global_checkpoint`).
        durable: bool,
    },
    /// A unique index being built.
    Unique(UniqueState),
    /// Gathering every worker's partition digests.
    Checksums {
        request_id: u64,
        waiting: usize,
        sums: Vec<(u32, u32, u64, u64)>,
    },
    /// Gathering every worker's status.
    Status {
        request_id: u64,
        waiting: usize,
        status: NodeStatus,
    },
    /// A commit's row images coming from its workers, for the backups (`replica.rs`).
    Gather(Box<replica::Gather>),
    /// A commit's rows sent to the backups: once they answered, the workers commit.
    Replicating {
        request_id: u64,
        results: Vec<OpResult>,
        waiting: usize,
        /// A two-phase commit's decision: its prepared parts commit once it is recorded.
        decided: Option<Box<twophase::Decided>>,
        /// The client's name for the commit.
        name: crate::replication::CommitName,
    },
    /// A schema change sent to the backups as it started here: answered once it ended here
    /// (`local`) and every backup answered (`answers`).
    Forward {
        request_id: u64,
        local: Option<Message>,
        answers: Option<Vec<Message>>,
    },
}

/// A unique index being built (`ddl.rs`): first collecting every worker's entries, routed to
/// the workers owning their hidden partitions, then waiting for those to fill them.
struct UniqueState {
    request_id: u64,
    /// Answers still expected in this round.
    waiting: usize,
    build: Arc<crate::catalog::UniqueBuild>,
    /// Per worker, the entries of its hidden partitions.
    routed: Vec<IndexEntries>,
    error: Option<Error>,
    /// The fill's records are below the global checkpoint's cut (`after_global_checkpoint`).
    durable: bool,
}

struct OpenTxn {
    id: TxnId,
    /// Bit w set: worker w holds state of this transaction.
    touched: u64,
    /// Bit w set: worker w received a write of this transaction (it logs its part at commit).
    written: u64,
    busy: bool,
    /// When its last request ended (or began, while `busy`): the inactive-transaction timeout
    /// counts from here.
    last_active: Instant,
    /// Operations its requests carried, held to `Shared::transaction_operations_max`.
    operations: usize,
    /// Its parts on other node groups (`remote.rs`).
    remote: remote::RemoteParts,
    /// Its part on another node group was lost (a link ended): every later request fails.
    broken: Option<Error>,
}

impl OpenTxn {
    fn new(id: TxnId) -> OpenTxn {
        OpenTxn {
            id,
            touched: 0,
            written: 0,
            busy: true,
            last_active: Instant::now(),
            operations: 0,
            remote: Default::default(),
            broken: None,
        }
    }
}

/// A connection's open transactions by the client's id, counted in the node's
/// `Shared::open_transactions` while they are open.
struct OpenTxns {
    shared: Arc<Shared>,
    open: HashMap<u64, OpenTxn>,
}

impl OpenTxns {
    fn new(shared: Arc<Shared>) -> OpenTxns {
        OpenTxns {
            shared,
            open: HashMap::new(),
        }
    }

    fn insert(&mut self, client_txn: u64, txn: OpenTxn) {
        if self.open.insert(client_txn, txn).is_none() {
            self.shared
                .open_transactions
                .fetch_add(1, Ordering::Relaxed);
        }
    }

    fn remove(&mut self, client_txn: &u64) -> Option<OpenTxn> {
        let removed = self.open.remove(client_txn);
        if removed.is_some() {
            self.shared
                .open_transactions
                .fetch_sub(1, Ordering::Relaxed);
        }
        removed
    }

    fn drain(&mut self) -> Vec<OpenTxn> {
        let all: Vec<OpenTxn> = self.open.drain().map(|(_, t)| t).collect();
        self.shared
            .open_transactions
            .fetch_sub(all.len(), Ordering::Relaxed);
        all
    }

    fn get(&self, client_txn: &u64) -> Option<&OpenTxn> {
        self.open.get(client_txn)
    }

    fn get_mut(&mut self, client_txn: &u64) -> Option<&mut OpenTxn> {
        self.open.get_mut(client_txn)
    }

    fn iter(&self) -> impl Iterator<Item = (&u64, &OpenTxn)> {
        self.open.iter()
    }

    fn values(&self) -> impl Iterator<Item = &OpenTxn> {
        self.open.values()
    }
}

impl Drop for OpenTxns {
    fn drop(&mut self) {
        // A coordinator dropped without `close` (the node stopping) still gives its count back.
        self.shared
            .open_transactions
            .fetch_sub(self.open.len(), Ordering::Relaxed);
    }
}

/// How many rolled-back transactions' ids a connection remembers to tell their clients: past
/// it, the oldest are forgotten (their next request then starts a new transaction).
const ROLLED_BACK_REMEMBERED_MAX: usize = 1024;

pub struct Coordinator {
    shared: Arc<Shared>,
    /// Where workers send this coordinator's events.
    me: ReplyTo,
    /// Reply frames ready for the connection; the event loop writes them.
    pub out: Vec<u8>,
    /// Messages for workers; the event loop delivers them.
    pub outbox: Vec<(usize, ToWorker)>,
    txns: OpenTxns,
    pending: HashMap<u64, Pending>,
    /// Open scans by request id, between their batches (`scan.rs`).
    scans: HashMap<u64, scan::ScanCursor>,
    next_tag: u64,
    peer: String,
    /// Transactions this node rolled back on its own (idle past the inactive timeout, or a
    /// request refused in a view change) whose clients have not heard of it yet, with what
    /// to tell them, oldest first. Their next request fails with it rather than opening the
    /// transaction again unawares, which would run its later statements without its earlier
    /// ones.
    rolled_back: VecDeque<(u64, Error)>,
    /// The number the client chose for this connection in its hello (0: none): with a client
    /// transaction number, it names a commit (`replication::CommitName`).
    session: u64,
    /// On a backup: the connection is its primary's replication link: the primary's node id,
    /// and the view the link was opened in.
    replica: Option<(u32, u64)>,
    /// On a backup: the primary's schema changes running on this link, by request id.
    schema_jobs: HashMap<u64, u32>,
    /// On a primary: a schema change of this connection about to start, by request id; it goes
    /// to the backups as soon as it has changed the catalog here (`replica.rs`).
    forwarding: HashMap<u64, Message>,
    /// On a primary: schema changes sent to the backups, by request id: the tag their
    /// `Pending::Forward` waits under.
    forwarded: HashMap<u64, u64>,
    /// On a node group's primary: the connection is a step link from data node `.0`,
    /// coordinating in view `.1` (`remote.rs`).
    step_peer: Option<(u32, u64)>,
    /// The request being handled was let in as a backup's READ_BACKUP read (`replica.rs`):
    /// its operations must read this node group's rows only.
    reading_as_backup: bool,
}

impl Coordinator {
    pub fn new(shared: Arc<Shared>, me: ReplyTo, peer: String) -> Coordinator {
        Coordinator {
            txns: OpenTxns::new(shared.clone()),
            shared,
            me,
            out: Vec::new(),
            outbox: Vec::new(),
            pending: HashMap::new(),
            scans: HashMap::new(),
            next_tag: 1,
            peer,
            rolled_back: VecDeque::new(),
            session: 0,
            replica: None,
            schema_jobs: HashMap::new(),
            forwarding: HashMap::new(),
            forwarded: HashMap::new(),
            step_peer: None,
            reading_as_backup: false,
        }
    }

    /// Rolls back the transactions idle (no request in flight) for `timeout` or longer that hold
    /// state on a worker (locks, changes), as NDB's TransactionInactiveTimeout does, so a client
    /// that went away holding locks does not stall the writers waiting for them. The client
    /// hears of it at its next request on the transaction (`TransactionTimedOut`).
    pub fn expire_idle(&mut self, now: Instant, timeout: Duration) {
        let idle: Vec<u64> = self
            .txns
            .iter()
            .filter(|(_, t)| !t.busy && now.saturating_duration_since(t.last_active) >= timeout)
            .map(|(client_txn, _)| *client_txn)
            .collect();
        for client_txn in idle {
            let Some(txn) = self.txns.remove(&client_txn) else {
                continue;
            };
            if txn.touched == 0 && txn.remote.is_empty() {
                // It holds nothing: forgotten, and its next request opens it again unawares.
                continue;
            }
            warn!(
                peer = %self.peer,
                "rolled back transaction {client_txn}: idle {timeout:?} while holding locks or changes"
            );
            self.abort_txn(&txn);
            let error = self.timed_out_error();
            self.remember_rolled_back(client_txn, error);
        }
    }

    /// Notes that this node rolled back the client's transaction `client_txn` on its own: its
    /// next request is answered with `error`, not run in a transaction opened again.
    pub(super) fn remember_rolled_back(&mut self, client_txn: u64, error: Error) {
        if client_txn == 0 {
            return;
        }
        self.rolled_back.retain(|(t, _)| *t != client_txn);
        if self.rolled_back.len() == ROLLED_BACK_REMEMBERED_MAX {
            self.rolled_back.pop_front();
        }
        self.rolled_back.push_back((client_txn, error));
    }

    /// Why this node rolled back `client_txn` on its own, if it did and its client has not
    /// been told yet; forgotten once taken.
    pub(super) fn take_rolled_back(&mut self, client_txn: u64) -> Option<Error> {
        let at = self
            .rolled_back
            .iter()
            .position(|(t, _)| *t == client_txn)?;
        self.rolled_back.remove(at).map(|(_, e)| e)
    }

    /// Why this node rolled back `client_txn` on its own, if it did (kept for its next
    /// request).
    pub(super) fn rolled_back_error(&self, client_txn: u64) -> Option<Error> {
        self.rolled_back
            .iter()
            .find(|(t, _)| *t == client_txn)
            .map(|(_, e)| e.clone())
    }

    /// What a request of a transaction rolled back for inactivity answers.
    pub(super) fn timed_out_error(&self) -> Error {
        Error::new(
            ErrorCode::TransactionTimedOut,
            format!(
                "transaction rolled back: it was idle past the data node's inactive-transaction timeout ({:?})",
                self.shared.transaction_inactive_timeout
            ),
        )
    }

    /// Whether the connection holds a transaction that could time out.
    pub fn holds_idle_state(&self) -> bool {
        self.txns.values().any(|t| !t.busy)
    }

    /// Aborts the transactions the connection left open.
    /// Requests still waiting for their answers, or answers not yet handed to the connection.
    pub fn busy(&self) -> bool {
        !self.pending.is_empty() || !self.out.is_empty()
    }

    pub fn close(&mut self) {
        self.scans.clear();
        let open: Vec<OpenTxn> = self.txns.drain();
        for txn in open {
            self.abort_txn(&txn);
        }
        // A commit still gathering its rows has sent nothing to the backups, and one whose
        // other groups are still preparing has decided nothing: it rolls back (its prepared
        // parts with it, and its locks here). One whose rows were sent finishes without the
        // connection (`replica.rs`).
        let unsent: Vec<u64> = self
            .pending
            .iter()
            .filter(|(_, p)| {
                matches!(
                    p,
                    Pending::Gather(_) | Pending::Preparing { .. } | Pending::Gated { .. }
                )
            })
            .map(|(tag, _)| *tag)
            .collect();
        for tag in unsent {
            let (txn, client_txn) = match self.pending.remove(&tag) {
                Some(Pending::Gather(g)) => (g.txn, g.client_txn),
                Some(Pending::Preparing {
                    txn, client_txn, ..
                }) => (*txn, client_txn),
                // Not begun: nothing to end.
                Some(Pending::Gated { txn, .. }) => {
                    self.abort_txn(&txn);
                    continue;
                }
                _ => continue,
            };
            self.abort_txn(&txn);
            if let Some(role) = &self.shared.role {
                role.commit_ended((self.session, client_txn), false);
            }
        }
        // A schema change under way (a backup's from its primary, or a primary's own that goes
        // to its backups) is finished by the coordinator kept after its connection
        // (`has_schema_work`, the event loop's orphans), so its answer is recorded and sent on.
    }

    /// Sends one message to every worker under a new tag; returns the tag and how many
    /// acknowledgements to wait for.
    fn send_to_every_worker(
        &mut self,
        mut make: impl FnMut(usize, u64, ReplyTo) -> ToWorker,
    ) -> (u64, usize) {
        let tag = self.tag();
        for w in 0..self.shared.worker_count() {
            let message = make(w, tag, self.me);
            self.outbox.push((w, message));
        }
        (tag, self.shared.worker_count())
    }

    /// Tells every worker the transaction touched to abort it.
    fn abort_on_workers(&mut self, txn: TxnId, touched: u64) {
        for w in 0..self.shared.worker_count() {
            if touched & (1 << w) != 0 {
                self.outbox.push((
                    w,
                    ToWorker::Abort {
                        txn,
                        tag: 0,
                        reply_to: None,
                    },
                ));
            }
        }
    }

    fn reply(&mut self, request_id: u64, message: &Message) {
        if self.shared.role.is_some() && self.held_for_backups(request_id, message) {
            return;
        }
        self.write_reply(request_id, message);
    }

    /// Writes an answer for the connection, past `held_for_backups`.
    fn write_reply(&mut self, request_id: u64, message: &Message) {
        message.write_reply(&mut self.out, self.shared.cluster_id, request_id);
    }

    /// The answer to a hello: this node, its workers, whether it serves (and reads from
    /// backups), and its node group.
    fn hello_reply(&self, serving: bool) -> Message {
        let reads = serving
            || self
                .shared
                .role
                .as_ref()
                .is_some_and(|r| r.serving_reads().is_ok());
        Message::HelloReply {
            node_id: self.shared.node_id,
            worker_count: self.shared.worker_count() as u32,
            serving,
            reads,
            group: self.shared.placement.group,
            groups: self.shared.placement.groups,
        }
    }

    fn fail(&mut self, request_id: u64, error: Error) {
        self.reply(request_id, &Message::Failure(error));
    }

    /// Handles one event from a worker.
    pub fn handle(&mut self, event: Event) {
        match event {
            Event::StepsDone { tag, replies } => match self.pending.get(&tag) {
                Some(Pending::RemoteSteps { .. }) => self.on_remote_steps(tag, replies),
                _ => self.on_steps(tag, replies),
            },
            Event::Remote {
                tag,
                group,
                first_slot,
                result,
            } => self.on_remote(tag, group, first_slot, *result),
            Event::Finished { tag } => self.on_finished(tag),
            Event::Converted { tag, result } => match self.pending.get(&tag) {
                Some(Pending::Unique(_)) => self.on_filled(tag, result),
                _ => self.on_converted(tag, result),
            },
            Event::Collected { tag, entries } => self.on_collected(tag, entries),
            Event::ScanDone { tag, rows } => match self.pending.get(&tag) {
                Some(Pending::RemoteScan { .. }) => self.on_remote_scan(tag, rows),
                _ => self.on_scan_part(tag, rows),
            },
            Event::Status { tag, status } => self.on_status(tag, status),
            Event::Checksums { tag, sums } => {
                let Some(Pending::Checksums {
                    request_id,
                    waiting,
                    sums: mut all,
                }) = self.pending.remove(&tag)
                else {
                    return;
                };
                all.extend(sums);
                if waiting > 1 {
                    self.pending.insert(
                        tag,
                        Pending::Checksums {
                            request_id,
                            waiting: waiting - 1,
                            sums: all,
                        },
                    );
                    return;
                }
                all.sort_unstable();
                self.reply(request_id, &Message::Checksums { partitions: all });
            }
            Event::Images { tag, changes } => self.on_images(tag, changes),
            Event::Replicated { tag, result } => self.on_replicated(tag, result),
            Event::CheckpointDone { request_id, result } => match result {
                Ok(r) => self.reply(
                    request_id,
                    &Message::CheckpointReply(wire::CheckpointInfo {
                        id: r.id,
                        full: r.full,
                        entries: r.entries,
                        bytes: r.bytes,
                        micros: (r.seconds * 1e6) as u64,
                    }),
                ),
                Err(why) => self.reply(
                    request_id,
                    &Message::Failure(Error::new(
                        ErrorCode::Internal,
                        format!("checkpoint failed: {why}"),
                    )),
                ),
            },
            Event::GateOpen { tag } => self.gate_opened(tag),
            Event::Reply {
                request_id,
                message,
            } => self.reply(request_id, &message),
            Event::Frames(mut bytes) => {
                if self.out.is_empty() {
                    // Take the worker's buffer as it is rather than copying it.
                    std::mem::swap(&mut self.out, &mut bytes);
                } else {
                    self.out.extend_from_slice(&bytes);
                }
            }
        }
    }

    /// Asks the checkpointer for a checkpoint; its outcome comes back as an event to this
    /// connection, so no worker waits for it.
    fn request_checkpoint(&mut self, request_id: u64) {
        let control = self.shared.checkpoints.lock().ok().and_then(|c| c.clone());
        let Some(control) = control else {
            return self.reply(
                request_id,
                &Message::Failure(Error::new(
                    ErrorCode::BadRequest,
                    "this data node keeps no redo log (no data directory, or durability none), so it takes no checkpoints",
                )),
            );
        };
        let (shared, me) = (self.shared.clone(), self.me);
        let done: crate::checkpoint::Done = Box::new(move |result| {
            shared.workers[me.worker].send(ToWorker::ToCoordinator {
                connection: me.connection,
                event: Event::CheckpointDone { request_id, result },
            });
        });
        if control.send(crate::checkpoint::Control::Now(done)).is_err() {
            self.reply(
                request_id,
                &Message::Failure(Error::new(
                    ErrorCode::ShuttingDown,
                    "the checkpointer has stopped",
                )),
            );
        }
    }

    fn on_status(&mut self, tag: u64, worker: WorkerStatus) {
        let Some(Pending::Status {
            request_id,
            waiting,
            mut status,
        }) = self.pending.remove(&tag)
        else {
            return;
        };
        status.row_count += worker.rows;
        status.data_memory_bytes += worker.memory_bytes;
        for t in worker.tables {
            match status.tables.iter_mut().find(|s| s.id == t.id) {
                Some(s) => {
                    s.rows += t.rows;
                    s.data_bytes += t.data_bytes;
                    s.index_bytes += t.index_bytes;
                }
                None => status.tables.push(t),
            }
        }
        if waiting > 1 {
            self.pending.insert(
                tag,
                Pending::Status {
                    request_id,
                    waiting: waiting - 1,
                    status,
                },
            );
        } else {
            self.reply(request_id, &Message::StatusReply(status));
        }
    }

    /// Has worker 0 log a decision's name as a record of its own (`ToWorker::LogDecision`),
    /// answering `Finished` under `tag`.
    pub(super) fn log_decision(&mut self, name: crate::replication::CommitName, tag: u64) {
        self.outbox.push((
            0,
            ToWorker::LogDecision {
                name,
                tag,
                reply_to: self.me,
            },
        ));
    }

    /// Answers `Done` to request `request_id` once `waiting` workers finished what was sent
    /// them under `tag` (at once when none).
    pub(super) fn done_after_workers(&mut self, request_id: u64, tag: u64, waiting: usize) {
        if waiting == 0 {
            return self.reply(request_id, &Message::Done);
        }
        self.pending.insert(
            tag,
            Pending::Ddl {
                request_id,
                waiting,
                reply: Message::Done,
            },
        );
    }

    /// Handles one request frame from the connection.
    pub fn on_frame(&mut self, header: FrameHeader, message: Message) {
        let id = header.request_id;
        if header.cluster_id != self.shared.cluster_id {
            return self.fail(
                id,
                Error::new(
                    ErrorCode::Protocol,
                    format!(
                        "frame for cluster {} reached cluster {}",
                        header.cluster_id, self.shared.cluster_id
                    ),
                ),
            );
        }
        if let Some(why) = self.shared.failure() {
            return self.fail(
                id,
                Error::new(
                    ErrorCode::ShuttingDown,
                    format!("the data node failed and must restart: {why}"),
                ),
            );
        }
        if self.shared.stopping.load(Ordering::Relaxed) {
            return self.fail(
                id,
                Error::new(ErrorCode::ShuttingDown, "the data node is shutting down"),
            );
        }
        // (A primary's link is bounded by the primary: `replication::REPLICATION_JOBS_MAX`.)
        // (Never a scan's next batch or its end: refused, the scan would stay open.)
        let busy = self.pending.len() >= limits::REQUESTS_IN_FLIGHT_MAX;
        if busy && self.replica.is_none() && !scan::continues(&message) {
            return self.fail(
                id,
                Error::new(
                    ErrorCode::Overloaded,
                    "too many requests in flight on this connection",
                ),
            );
        }
        self.reading_as_backup = false;
        if self.shared.role.is_some() && self.refused_by_role(id, &message) {
            // A scan refused its next batch is ended.
            self.scans.remove(&id);
            return;
        }
        match message {
            Message::TableIds { .. }
            | Message::Replicate { .. }
            | Message::Prepared { .. }
            | Message::Resolve { .. }
            | Message::CopyCatalog { .. }
            | Message::CopyRows { .. }
            | Message::CopyDone { .. }
            | Message::CopyNames { .. }
            | Message::CopyPrimaries { .. }
            | Message::TakenAsk { .. }
            | Message::LevelUp { .. }
                if self.shared.role.is_none() =>
            {
                self.fail(
                    id,
                    Error::new(
                        ErrorCode::Protocol,
                        "this data node runs alone: it takes no replicated rows or table ids",
                    ),
                )
            }
            Message::PeerHello { node_id, epoch } => self.peer_hello(id, node_id, epoch),
            Message::StepHello { node_id, epoch } => self.step_hello(id, node_id, epoch),
            Message::Steps {
                transaction,
                statement,
                keep_from,
                steps,
            } => self.remote_steps(id, transaction, (statement, keep_from), steps),
            Message::EndRemote { transaction, end } => self.end_remote(id, transaction, end),
            Message::UndoRemote {
                transaction,
                statement,
            } => self.undo_statement(id, transaction, statement, None),
            Message::ScanPart {
                transaction,
                request,
                partitions,
                place,
                rows_max,
                bytes_max,
            } => self.remote_scan_part(
                id,
                remote::ScanPartRequest {
                    transaction,
                    request,
                    partitions,
                    place,
                    rows_max,
                    bytes_max,
                },
            ),
            Message::Replicate {
                session,
                transaction,
                changes,
                decision,
            } => {
                // A decision carries its name into this backup's log too (`worker::prepared`).
                let decision = (decision != 0).then(|| {
                    let primary = self.replica.map_or(0, |(node, _)| node);
                    crate::replication::decision_name(primary, decision)
                });
                self.apply_replicated(id, (session, transaction), changes, decision)
            }
            Message::Prepared {
                coordinator,
                transaction,
                changes,
            } => self.hold_prepared(id, (coordinator, transaction), changes),
            Message::LevelUp {
                session,
                transaction,
                changes,
                ..
            } => self.apply_replicated(id, (session, transaction), changes, None),
            Message::TakenAsk { after } => {
                let page = self
                    .shared
                    .role
                    .as_ref()
                    .map_or(Message::Done, |r| r.taken_page(after));
                self.reply(id, &page)
            }
            Message::Resolve {
                coordinator,
                transaction,
                commit,
                changes,
            } => {
                let role = self.shared.role.clone();
                let held = role
                    .as_ref()
                    .and_then(|r| r.take_held((coordinator, transaction)));
                // A restarted node that holds no table yet drops them, as replicated rows: the
                // copy reads them once committed on the primary.
                let awaiting = role
                    .as_ref()
                    .is_some_and(|r| r.restart() == crate::replication::Restart::AwaitingCatalog);
                let name = crate::replication::decision_name(coordinator, transaction);
                if commit && !awaiting {
                    // The rows came again with the commit: a node that started copying after
                    // the prepare holds none.
                    let rows = if changes.is_empty() {
                        held.unwrap_or_default()
                    } else {
                        changes
                    };
                    self.apply_rows(id, Some(name), rows, false)
                } else {
                    for w in 0..self.shared.worker_count() {
                        self.outbox.push((w, ToWorker::LogDropped { name }));
                    }
                    self.reply(id, &Message::Done)
                }
            }
            Message::CommitOutcome {
                session,
                transaction,
            } => self.commit_outcome(id, (session, transaction)),
            Message::Gcp { round, step } => self.gcp_step(id, round, step),
            Message::Shutdown { restart, initial } => {
                self.shared.request_stop(restart, restart && initial);
                self.reply(id, &Message::Done);
            }
            Message::CopyCatalog { catalog } => self.take_catalog(id, &catalog),
            Message::CopyRows { changes } => self.apply_copied(id, changes),
            Message::CopyDone { rows } => self.copy_done(id, rows),
            Message::CopyPrimaries { epoch, primaries } => {
                // Answered either way, as every copy message is (a refusal would have the link
                // send it again for good). Primaries of another view are not taken, and the
                // copy then does not end here (`copy_done`): the next view's copy sends them.
                if let Some(role) = &self.shared.role {
                    role.learn_primaries(epoch, &primaries);
                }
                self.reply(id, &Message::Done)
            }
            Message::CopyNames { names } => {
                let Some(role) = self.shared.role.clone() else {
                    return self.reply(id, &Message::Done);
                };
                // Decisions go in this node's log too (`worker::prepared`): as a restart's
                // source it answers a part still prepared elsewhere.
                let tag = self.tag();
                let mut waiting = 0;
                for name in names {
                    role.commit_ended(name, true);
                    if crate::replication::part_of_decision(name).is_some() {
                        self.log_decision(name, tag);
                        waiting += 1;
                    }
                }
                self.done_after_workers(id, tag, waiting);
            }
            Message::TableIds { last } => match self.shared.raise_table_ids(last) {
                Ok(()) => {
                    // Another group's primary sends the master's ids on to its backups.
                    if let Some(role) = &self.shared.role {
                        if role.view().primary == Some(role.me) {
                            role.replicate(Message::TableIds { last }, false, Box::new(|_, _| {}));
                        }
                    }
                    self.reply(id, &Message::Done)
                }
                Err(e) => self.fail(id, e),
            },
            // A step link's session names its coordinator's decisions (`step_hello`): a
            // client's hello may not rename it.
            Message::Hello { .. } if self.step_peer.is_some() => self.fail(
                id,
                Error::new(
                    ErrorCode::Protocol,
                    "a step link says StepHello, not Hello, and only once",
                ),
            ),
            Message::Hello { session, .. } if session > wire::CLIENT_SESSION_MAX => self.fail(
                id,
                Error::new(
                    ErrorCode::Protocol,
                    format!(
                        "a client's session number is at most {} (the larger ones name the data nodes' own two-phase decisions); got {session}",
                        wire::CLIENT_SESSION_MAX
                    ),
                ),
            ),
            Message::Hello { session, .. } => {
                tracing::debug!(session, peer = self.peer, "client hello");
                self.session = session;
                if let Some(role) = &self.shared.role {
                    role.session_seen(session);
                }
                let serving = self
                    .shared
                    .role
                    .as_ref()
                    .is_none_or(|r| r.serving().is_ok());
                let reply = self.hello_reply(serving);
                self.reply(id, &reply);
            }
            Message::Ping { payload } => self.reply(id, &Message::Pong { payload }),
            Message::Execute {
                transaction,
                statement,
                keep_from,
                exec,
                operations,
            } => self.on_execute(id, transaction, (statement, keep_from), exec, operations),
            Message::Scan(request) => self.on_scan(id, request),
            Message::ScanNext => self.on_scan_next(id),
            Message::ScanClose => self.on_scan_close(id),
            Message::CreateTable(def) => self.create_table(id, def),
            Message::AddIndex {
                table,
                version,
                name,
                kind,
                columns,
                prefixes,
            } => {
                let mut index = IndexDef::new(&name, kind, columns);
                index.prefixes = prefixes;
                self.add_index(id, &table, version, index)
            }
            Message::AlterTable {
                table,
                change: wire::TableChange::Columns { version, columns },
            } => self.change_columns(id, &table, version, &columns),
            Message::AlterTable { table, change } => self.alter_table(id, &table, &change),
            Message::CreateDatabase { name, collation } => {
                match self.shared.register_database(&name, collation) {
                    Ok(()) => self.reply(id, &Message::Done),
                    Err(e) => self.fail(id, e),
                }
            }
            Message::AlterDatabase { name, collation } => {
                match self.shared.alter_database(&name, collation) {
                    Ok(()) => self.reply(id, &Message::Done),
                    Err(e) => self.fail(id, e),
                }
            }
            Message::ListDatabases => {
                let databases = self
                    .shared
                    .catalog
                    .read()
                    .map(|c| c.databases())
                    .unwrap_or_default();
                self.reply(id, &Message::DatabaseList { databases });
            }
            Message::DropTable { name } => {
                let dropped = self.shared.unregister_table(&name);
                self.drop_tables(id, dropped);
            }
            Message::DropDatabase { name } => {
                let dropped = self.shared.unregister_database(&name);
                self.drop_tables(id, dropped);
            }
            Message::GetTable { name } => {
                let reply = match self.shared.table_info(&name) {
                    Some(m) => m,
                    None => Message::Failure(Error::new(
                        ErrorCode::NoSuchTable,
                        format!("unknown table '{name}'"),
                    )),
                };
                self.reply(id, &reply);
            }
            Message::Checkpoint => self.request_checkpoint(id),
            Message::ChecksumsRequest => {
                let (tag, waiting) = self
                    .send_to_every_worker(|_, tag, reply_to| ToWorker::Checksums { tag, reply_to });
                self.pending.insert(
                    tag,
                    Pending::Checksums {
                        request_id: id,
                        waiting,
                        sums: Vec::new(),
                    },
                );
            }
            Message::ListTables => {
                let names = self
                    .shared
                    .catalog
                    .read()
                    .map(|c| c.names())
                    .unwrap_or_default();
                self.reply(id, &Message::TableList { names });
            }
            Message::Status => {
                let (tag, waiting) = self
                    .send_to_every_worker(|_, tag, reply_to| ToWorker::Status { tag, reply_to });
                let status = NodeStatus {
                    node_id: self.shared.node_id,
                    worker_count: self.shared.worker_count() as u32,
                    resident_bytes: resident_bytes(),
                    table_count: self
                        .shared
                        .catalog
                        .read()
                        .map(|c| c.table_count() as u32)
                        .unwrap_or(0),
                    row_count: 0,
                    data_memory_bytes: 0,
                    data_memory_limit: self.shared.data_memory.limit,
                    tables: Vec::new(),
                    view_epoch: 0,
                    group: Vec::new(),
                    members: Vec::new(),
                    copies: Vec::new(),
                    backup_reads: 0,
                    held_parts: 0,
                    in_doubt: self.shared.in_doubt.lock().map_or(0, |d| d.len() as u32),
                };
                let status = match &self.shared.role {
                    Some(role) => role.describe(status),
                    None => status,
                };
                self.pending.insert(
                    tag,
                    Pending::Status {
                        request_id: id,
                        waiting,
                        status,
                    },
                );
            }
            other => {
                warn!(peer = %self.peer, "unexpected message type {} from an API connection", other.type_code());
                self.fail(
                    id,
                    Error::new(
                        ErrorCode::Protocol,
                        format!("message type {} is not a request", other.type_code()),
                    ),
                );
            }
        }
        // A schema change still running changed the catalog here: it goes to the backups now,
        // before any commit that could use it. (One that copies rows or builds a unique index
        // goes once it has, `forward_long`.)
        if let Some(forward) = self.forwarding.remove(&id) {
            if replica::copies_rows(&forward) {
                self.forwarding.insert(id, forward);
            } else {
                self.forward(id, forward, None);
            }
        }
    }

    fn tag(&mut self) -> u64 {
        self.next_tag += 1;
        self.next_tag
    }
}

/// The messages that commit `txn` on every worker it touched, under `tag`, and how many answers
/// they bring. The commit order is taken here, while every lock is held (a later commit of the
/// same row gets a higher number), and the caller sends them in one go, so a checkpoint
/// barrier behind a worker's turn sees every Commit of a number it read (checkpoint.rs).
pub(crate) fn commit_messages(
    shared: &Shared,
    txn: TxnId,
    touched: u64,
    written: u64,
    tag: u64,
    reply_to: ReplyTo,
) -> (Vec<(usize, ToWorker)>, usize) {
    let sequence = if written != 0 {
        shared
            .sequence
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
    } else {
        0
    };
    let messages: Vec<(usize, ToWorker)> = (0..shared.worker_count())
        .filter(|w| touched & (1 << w) != 0)
        .map(|w| {
            (
                w,
                ToWorker::Commit {
                    txn,
                    tag,
                    reply_to,
                    participants: written.count_ones() as u16,
                    counted: written & (1 << w) != 0,
                    sequence,
                },
            )
        })
        .collect();
    let waiting = messages.len();
    (messages, waiting)
}

/// Resident set size of this process, from /proc/self/statm (0 where unavailable).
pub fn resident_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| {
            s.split_whitespace()
                .nth(1)
                .and_then(|p| p.parse::<u64>().ok())
        })
        .map_or(0, |pages| pages * 4096)
}

/// The error for a request naming a table id the catalog does not hold: `SchemaChanged` when a
/// column change replaced it (the API node fetches the definition again), else `NoSuchTable`.
fn unknown_table(catalog: &crate::catalog::Catalog, id: u32) -> Error {
    match catalog.replaced(id) {
        Some(name) => Error::new(
            ErrorCode::SchemaChanged,
            format!("table '{name}' was altered"),
        ),
        None => Error::new(ErrorCode::NoSuchTable, format!("no table with id {id}")),
    }
}

/// A failure that aborts the whole transaction even within a statement: a changed definition
/// (the client plans its statements again) and a deadlock (as InnoDB: releasing the victim's
/// locks is what lets the others go on). A lock wait timeout undoes only the statement, as
/// InnoDB's default (innodb_rollback_on_timeout=OFF): deadlocks are found without it.
impl Coordinator {
    /// New work is refused while any worker's queue holds its bound of messages (what is already
    /// running, its commits and aborts, always goes through): the node answers a temporary error
    /// rather than queueing without end.
    pub(super) fn queues_full(&self) -> Option<Error> {
        let max = self.shared.worker_queue_max;
        self.shared
            .workers
            .iter()
            .any(|w| w.depth() >= max)
            .then(|| {
                Error::new(
                    ErrorCode::Overloaded,
                    format!("a worker's queue holds {max} messages (--worker-queue-max); retry"),
                )
            })
    }
}
