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

use base::schema::{IndexDef, IndexKind};
use base::{limits, Error, ErrorCode, Value};
use tracing::warn;
use wire::{
    ExecType, ExecuteOutcome, FrameHeader, LockMode, Message, NodeStatus, OpKind, OpResult,
    Operation,
};

use crate::catalog::TableEntry;
use crate::messages::*;
use crate::prepare::{self, locate, PreparedOp};
use crate::Shared;

mod ddl;
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
    /// The one other node group that wrote is committing the transaction; the rest of it is
    /// released once it answered (`remote.rs`).
    RemoteCommit {
        request_id: u64,
        txn: Box<OpenTxn>,
        results: Vec<OpResult>,
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
    /// Waiting for commit acknowledgements before answering.
    Commit {
        request_id: u64,
        waiting: usize,
        results: Vec<OpResult>,
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
const TIMED_OUT_REMEMBERED_MAX: usize = 1024;

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
    /// Transactions rolled back for inactivity whose clients have not heard of it yet, oldest
    /// first.
    timed_out: VecDeque<u64>,
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
            timed_out: VecDeque::new(),
            session: 0,
            replica: None,
            schema_jobs: HashMap::new(),
            forwarding: HashMap::new(),
            forwarded: HashMap::new(),
            step_peer: None,
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
            if txn.touched == 0 {
                // It holds nothing: forgotten, and its next request opens it again unawares.
                continue;
            }
            warn!(
                peer = %self.peer,
                "rolled back transaction {client_txn}: idle {timeout:?} while holding locks or changes"
            );
            self.abort_txn(&txn);
            if self.timed_out.len() == TIMED_OUT_REMEMBERED_MAX {
                self.timed_out.pop_front();
            }
            self.timed_out.push_back(client_txn);
        }
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
        // A commit still gathering its rows has sent nothing to the backups: it rolls back. One
        // whose rows were sent finishes without the connection (`replica.rs`).
        let gathering: Vec<u64> = self
            .pending
            .iter()
            .filter(|(_, p)| matches!(p, Pending::Gather(_)))
            .map(|(tag, _)| *tag)
            .collect();
        for tag in gathering {
            if let Some(Pending::Gather(g)) = self.pending.remove(&tag) {
                self.abort_txn(&g.txn);
                if let Some(role) = &self.shared.role {
                    role.commit_ended((self.session, g.client_txn), false);
                }
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
            } => self.on_remote(tag, group, first_slot, result),
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
                ..
            } => self.apply_replicated(id, (session, transaction), changes),
            Message::Prepared {
                coordinator,
                transaction,
                changes,
            } => {
                if let Some(role) = &self.shared.role {
                    role.hold((coordinator, transaction), changes);
                }
                self.reply(id, &Message::Done)
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
                if commit && !awaiting {
                    // The rows came again with the commit: a node that started copying after
                    // the prepare holds none.
                    let rows = if changes.is_empty() {
                        held.unwrap_or_default()
                    } else {
                        changes
                    };
                    let name = crate::replication::decision_name(coordinator, transaction);
                    self.apply_rows(id, name, rows, false)
                } else {
                    self.reply(id, &Message::Done)
                }
            }
            Message::CommitOutcome {
                session,
                transaction,
            } => self.commit_outcome(id, (session, transaction)),
            Message::Shutdown { restart } => {
                self.shared.request_stop(restart);
                self.reply(id, &Message::Done);
            }
            Message::CopyCatalog { catalog } => self.take_catalog(id, &catalog),
            Message::CopyRows { changes } => self.apply_copied(id, changes),
            Message::CopyDone { rows } => self.copy_done(id, rows),
            Message::CopyNames { names } => {
                if let Some(role) = &self.shared.role {
                    for name in names {
                        role.commit_ended(name, true);
                    }
                }
                self.reply(id, &Message::Done)
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
            Message::Hello { session, .. } => {
                self.session = session;
                if let Some(role) = &self.shared.role {
                    role.session_seen(session);
                }
                let reply = Message::HelloReply {
                    node_id: self.shared.node_id,
                    worker_count: self.shared.worker_count() as u32,
                    serving: self
                        .shared
                        .role
                        .as_ref()
                        .is_none_or(|r| r.serving().is_ok()),
                    group: self.shared.placement.group,
                    groups: self.shared.placement.groups,
                };
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

    fn on_execute(
        &mut self,
        request_id: u64,
        client_txn: u64,
        (statement, keep_from): (u32, u32),
        exec: ExecType,
        operations: Vec<Operation>,
    ) {
        if let Some(at) = self.timed_out.iter().position(|t| *t == client_txn) {
            self.timed_out.remove(at);
            if exec == ExecType::Rollback {
                // Already rolled back: nothing more to do.
                return self.reply(
                    request_id,
                    &Message::ExecuteReply(ExecuteOutcome::Ok(vec![])),
                );
            }
            let error = self.timed_out_error();
            return self.reply(
                request_id,
                &Message::ExecuteReply(ExecuteOutcome::Aborted { op_index: 0, error }),
            );
        }
        let txn_id = match self.txns.get_mut(&client_txn) {
            Some(t) if t.busy => {
                return self.fail(
                    request_id,
                    Error::new(
                        ErrorCode::BadRequest,
                        format!("transaction {client_txn} already has a request in flight"),
                    ),
                );
            }
            Some(t) => {
                t.busy = true;
                t.last_active = Instant::now();
                t.id
            }
            None => {
                if self.shared.open_transactions.load(Ordering::Relaxed)
                    >= self.shared.transactions_max
                {
                    return self.fail(
                        request_id,
                        Error::new(
                            ErrorCode::Overloaded,
                            format!(
                                "too many transactions open on the data node ({}, --transactions-max); retry",
                                self.shared.transactions_max
                            ),
                        ),
                    );
                }
                let id = self.shared.next_txn.fetch_add(1, Ordering::Relaxed);
                self.txns.insert(client_txn, OpenTxn::new(id));
                id
            }
        };
        if let Some(t) = self.txns.get_mut(&client_txn) {
            t.operations += operations.len();
            if t.operations > self.shared.transaction_operations_max {
                let error = Error::new(
                    ErrorCode::LimitExceeded,
                    format!(
                        "transaction rolled back: it passed {} operations (--transaction-operations-max)",
                        self.shared.transaction_operations_max
                    ),
                );
                if let Some(txn) = self.txns.remove(&client_txn) {
                    self.abort_txn(&txn);
                }
                return self.reply(
                    request_id,
                    &Message::ExecuteReply(ExecuteOutcome::Aborted { op_index: 0, error }),
                );
            }
            if let Some(error) = t.broken.clone() {
                if let Some(txn) = self.txns.remove(&client_txn) {
                    self.abort_txn(&txn);
                }
                return self.reply(
                    request_id,
                    &Message::ExecuteReply(ExecuteOutcome::Aborted { op_index: 0, error }),
                );
            }
        }
        if exec == ExecType::Rollback {
            return self.end_txn(request_id, client_txn, false, Vec::new());
        }
        if exec == ExecType::UndoStatement {
            return self.undo_statement(request_id, client_txn, statement, None);
        }
        // Prepare every operation against the catalog before anything runs.
        let mut ops = Vec::with_capacity(operations.len());
        let mut failure = None;
        {
            let shared = self.shared.clone();
            let Ok(catalog) = shared.catalog.read() else {
                return self.fail(
                    request_id,
                    Error::new(ErrorCode::Internal, "catalog poisoned"),
                );
            };
            for (i, op) in operations.into_iter().enumerate() {
                let Some(entry) = catalog.get(op.table).cloned() else {
                    failure = Some((i as u32, unknown_table(&catalog, op.table)));
                    break;
                };
                let placement = self.shared.placement;
                match prepare::prepare(entry, op, (placement.groups, placement.group)) {
                    Ok(p) => ops.push(OpState {
                        prepared: p,
                        phase: Phase::Start,
                        result: None,
                    }),
                    Err(e) => {
                        failure = Some((i as u32, e));
                        break;
                    }
                }
            }
        }
        if failure.is_none() && !ops.is_empty() {
            // New work only: a commit or rollback with no operations ends what already runs.
            failure = self.queues_full().map(|e| (0, e));
        }
        let tag = self.tag();
        let stateless = self.txns.get(&client_txn).is_some_and(|t| t.touched == 0);
        if failure.is_none() && stateless {
            if let Some((worker, steps)) = direct_read_steps(&ops, self.shared.placement) {
                // The transaction holds nothing on any worker and committed reads take no locks
                // and leave no state, so there is nothing to commit or roll back: the owning worker
                // answers the connection itself and the transaction is forgotten.
                self.txns.remove(&client_txn);
                let message = ToWorker::Steps {
                    txn: txn_id,
                    tag,
                    steps,
                    statement: 0,
                    keep_from: 0,
                    reply_to: self.me,
                    direct: Some(request_id),
                };
                self.outbox.push((worker, message));
                return;
            }
        }
        let mut state = Box::new(ExecState {
            request_id,
            client_txn,
            txn: txn_id,
            statement,
            keep_from,
            exec,
            ops,
            waiting: 0,
            replies: Vec::new(),
            fatal: failure.as_ref().is_some_and(|(_, e)| ends_transaction(e)),
            failure,
        });
        if state.failure.is_some() {
            return self.conclude(*state);
        }
        let steps: Vec<Step> = (0..state.ops.len())
            .flat_map(|i| advance(&mut state.ops[i], i as u32, None))
            .collect();
        self.send_round(tag, state, steps);
    }

    fn tag(&mut self) -> u64 {
        self.next_tag += 1;
        self.next_tag
    }

    /// Sends one round of steps, grouped per worker (and per other node group, over the step
    /// link), or concludes when there are none.
    fn send_round(&mut self, tag: u64, mut state: Box<ExecState>, steps: Vec<Step>) {
        if steps.is_empty() {
            return self.conclude(*state);
        }
        let workers = self.shared.worker_count();
        let placement = self.shared.placement;
        let mut groups: Vec<Vec<Step>> = (0..workers).map(|_| Vec::new()).collect();
        let mut remote: std::collections::BTreeMap<u32, Vec<Step>> = Default::default();
        for s in steps {
            if placement.is_local(s.partition) {
                groups[placement.worker_of(s.partition)].push(s);
            } else {
                remote
                    .entry(placement.group_of(s.partition))
                    .or_default()
                    .push(s);
            }
        }
        let open = self
            .txns
            .get_mut(&state.client_txn)
            .expect("open transaction");
        for (w, group) in groups.into_iter().enumerate() {
            if group.is_empty() {
                continue;
            }
            open.touched |= 1 << w;
            if group
                .iter()
                .any(|s| !matches!(s.kind, StepKind::Read { .. }))
            {
                open.written |= 1 << w;
            }
            state.waiting += 1;
            let message = ToWorker::Steps {
                txn: state.txn,
                tag,
                steps: group,
                statement: state.statement,
                keep_from: state.keep_from,
                reply_to: self.me,
                direct: None,
            };
            self.outbox.push((w, message));
        }
        if !remote.is_empty() {
            state.waiting += self.send_remote(tag, &state, remote);
        }
        if state.waiting == 0 {
            return self.conclude(*state);
        }
        self.pending.insert(tag, Pending::Execute(state));
    }

    fn on_steps(&mut self, tag: u64, replies: Vec<StepReply>) {
        let Some(Pending::Execute(mut state)) = self.pending.remove(&tag) else {
            return;
        };
        state.replies.extend(replies);
        state.waiting -= 1;
        if state.waiting > 0 {
            self.pending.insert(tag, Pending::Execute(state));
            return;
        }
        // Advance in operation order, so the next round's steps keep the batch's order per key.
        let mut replies = std::mem::take(&mut state.replies);
        replies.sort_by_key(|r| r.slot);
        let mut next = Vec::new();
        for reply in replies {
            let slot = reply.slot;
            match reply.result {
                Err(e) => {
                    state.fatal |= ends_transaction(&e);
                    if state.failure.as_ref().is_none_or(|(s, _)| *s > slot) {
                        state.failure = Some((slot, e));
                    }
                }
                Ok(outcome) => {
                    if state.failure.is_none() {
                        next.extend(advance(&mut state.ops[slot as usize], slot, Some(outcome)));
                    }
                }
            }
        }
        if state.failure.is_some() {
            return self.conclude(*state);
        }
        self.send_round(tag, state, next);
    }

    /// Every round is done (or one failed): commit, keep open, or abort, and answer.
    fn conclude(&mut self, state: ExecState) {
        if let Some((op_index, error)) = state.failure {
            // Within a statement of a transaction that stays open, only the statement goes, as
            // InnoDB rolls back a failed statement, unless a failure `ends_transaction`.
            if state.statement != 0 && state.exec == ExecType::NoCommit && !state.fatal {
                return self.undo_statement(
                    state.request_id,
                    state.client_txn,
                    state.statement,
                    Some((op_index, error)),
                );
            }
            if let Some(txn) = self.txns.remove(&state.client_txn) {
                self.abort_txn(&txn);
            }
            return self.reply(
                state.request_id,
                &Message::ExecuteReply(ExecuteOutcome::Aborted { op_index, error }),
            );
        }
        let results: Vec<OpResult> = state
            .ops
            .into_iter()
            .map(|o| o.result.unwrap_or(OpResult::NotFound))
            .collect();
        match state.exec {
            ExecType::NoCommit => {
                if let Some(t) = self.txns.get_mut(&state.client_txn) {
                    t.busy = false;
                    t.last_active = Instant::now();
                }
                self.reply(
                    state.request_id,
                    &Message::ExecuteReply(ExecuteOutcome::Ok(results)),
                );
            }
            ExecType::Commit | ExecType::Rollback | ExecType::UndoStatement => {
                self.end_txn(state.request_id, state.client_txn, true, results)
            }
        }
    }

    /// Has every worker the transaction touched undo the changes of `statement` and every later
    /// statement, then answers: with
    /// `StatementUndone` for a failed operation, else `Ok`. The transaction stays open.
    fn undo_statement(
        &mut self,
        request_id: u64,
        client_txn: u64,
        statement: u32,
        failure: Option<(u32, Error)>,
    ) {
        let Some(txn) = self.txns.get(&client_txn) else {
            return self.reply(
                request_id,
                &Message::ExecuteReply(ExecuteOutcome::Ok(Vec::new())),
            );
        };
        let (id, touched, reached) = (txn.id, txn.touched, !txn.remote.is_empty());
        let tag = self.tag();
        let mut waiting = 0;
        if reached {
            let txn = self.txns.remove(&client_txn).expect("open transaction");
            waiting += self.undo_remote(tag, &txn, statement);
            self.txns.insert(client_txn, txn);
        } else if touched == 0 {
            // Nothing is held anywhere (an UndoStatement before any write): nothing to keep.
            self.txns.remove(&client_txn);
        }
        for w in 0..self.shared.worker_count() {
            if touched & (1 << w) != 0 {
                self.outbox.push((
                    w,
                    ToWorker::UndoStatement {
                        txn: id,
                        statement,
                        tag,
                        reply_to: self.me,
                    },
                ));
                waiting += 1;
            }
        }
        let state = UndoState {
            request_id,
            client_txn,
            waiting,
            failure,
        };
        if waiting == 0 {
            return self.undone(state);
        }
        self.pending.insert(tag, Pending::Undo(state));
    }

    /// Answers a request once its statement's changes are undone everywhere.
    fn undone(&mut self, state: UndoState) {
        if let Some(t) = self.txns.get_mut(&state.client_txn) {
            t.busy = false;
            t.last_active = Instant::now();
        }
        let outcome = match state.failure {
            Some((op_index, error)) => ExecuteOutcome::StatementUndone { op_index, error },
            None => ExecuteOutcome::Ok(Vec::new()),
        };
        self.reply(state.request_id, &Message::ExecuteReply(outcome));
    }

    /// Commits or aborts on every worker the transaction touched; a commit answers after all acks.
    fn end_txn(&mut self, request_id: u64, client_txn: u64, commit: bool, results: Vec<OpResult>) {
        let Some(txn) = self.txns.remove(&client_txn) else {
            return self.reply(
                request_id,
                &Message::ExecuteReply(ExecuteOutcome::Ok(results)),
            );
        };
        if !commit || (txn.touched == 0 && txn.remote.is_empty()) {
            self.abort_txn(&txn);
            return self.reply(
                request_id,
                &Message::ExecuteReply(ExecuteOutcome::Ok(results)),
            );
        }
        let (txn, results) = if txn.remote.is_empty() {
            (txn, results)
        } else {
            match self.commit_across_groups(request_id, client_txn, txn, results) {
                Some(local) => local,
                None => return,
            }
        };
        if txn.touched == 0 {
            return self.reply(
                request_id,
                &Message::ExecuteReply(ExecuteOutcome::Ok(results)),
            );
        }
        let mut settled = None;
        if let Some(role) = &self.shared.role {
            if txn.written != 0 {
                let Some(generation) = role.local_commit() else {
                    return self.gather_images(request_id, client_txn, txn, results);
                };
                settled = Some(generation);
                role.commit_ended((self.session, client_txn), true);
            }
        }
        let tag = self.tag();
        let (messages, waiting) =
            commit_messages(&self.shared, txn.id, txn.touched, txn.written, tag, self.me);
        self.outbox.extend(messages);
        if let Some(generation) = settled {
            self.outbox
                .push((self.me.worker, ToWorker::Settled { generation }));
        }
        self.pending.insert(
            tag,
            Pending::Commit {
                request_id,
                waiting,
                results,
            },
        );
    }

    fn on_finished(&mut self, tag: u64) {
        let (request_id, waiting, results) = match self.pending.remove(&tag) {
            Some(Pending::Undo(mut state)) => {
                state.waiting -= 1;
                if state.waiting > 0 {
                    self.pending.insert(tag, Pending::Undo(state));
                } else {
                    self.undone(state);
                }
                return;
            }
            Some(Pending::Commit {
                request_id,
                waiting,
                results,
            }) => (request_id, waiting, results),
            Some(Pending::Ddl {
                request_id,
                waiting,
                reply,
            }) => {
                if waiting > 1 {
                    self.pending.insert(
                        tag,
                        Pending::Ddl {
                            request_id,
                            waiting: waiting - 1,
                            reply,
                        },
                    );
                } else {
                    self.reply(request_id, &reply);
                }
                return;
            }
            Some(other) => {
                self.pending.insert(tag, other);
                return;
            }
            None => return,
        };
        if waiting > 1 {
            self.pending.insert(
                tag,
                Pending::Commit {
                    request_id,
                    waiting: waiting - 1,
                    results,
                },
            );
            return;
        }
        self.reply(
            request_id,
            &Message::ExecuteReply(ExecuteOutcome::Ok(results)),
        );
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

/// When every operation is a committed read by primary key and all land on one worker: that worker
/// and the steps for it.
fn direct_read_steps(ops: &[OpState], placement: crate::Placement) -> Option<(usize, Vec<Step>)> {
    let mut worker = None;
    let mut steps = Vec::with_capacity(ops.len());
    for (slot, op) in ops.iter().enumerate() {
        let p = &op.prepared;
        if p.kind != OpKind::Read(LockMode::CommittedRead) || p.unique_index.is_some() {
            return None;
        }
        let step = base_step(op, slot as u32, &p.key, false);
        if !placement.is_local(step.partition) {
            return None;
        }
        let w = placement.worker_of(step.partition);
        if *worker.get_or_insert(w) != w {
            return None;
        }
        steps.push(step);
    }
    Some((worker?, steps))
}

/// Moves an operation to its next phase given the outcome of its last step; returns the steps of
/// the next round (none when the operation is done).
fn advance(op: &mut OpState, slot: u32, outcome: Option<StepOutcome>) -> Vec<Step> {
    let p = &op.prepared;
    let table = &p.table.def;
    let has_unique = p.table.unique_tables.iter().any(Option::is_some);
    match (op.phase, outcome) {
        (Phase::Start, _) => {
            if let (Some(i), false) = (p.unique_index, p.kind == OpKind::Insert) {
                // First hop: the unique-index table row holding the base row's primary key.
                let index_table = p.table.unique_tables[i]
                    .as_ref()
                    .expect("unique index has a table");
                let lock = match p.kind {
                    OpKind::Read(mode) => mode,
                    _ => LockMode::Exclusive,
                };
                let key_columns: Vec<u16> = (0..p.key.len() as u16).collect();
                let (pk, partition) = locate(index_table, &key_columns, &p.key);
                op.phase = Phase::IndexLookup;
                return vec![Step {
                    slot,
                    table: index_table.id,
                    version: index_table.version,
                    partition,
                    pk,
                    kind: StepKind::Read {
                        lock,
                        projection: Vec::new(),
                    },
                    want_images: false,
                }];
            }
            let key = if p.unique_index.is_some() {
                // Insert addressed by unique key: the primary key comes from the row.
                let row = p.row.as_ref().expect("insert has a row");
                table
                    .primary_key
                    .iter()
                    .map(|c| row[*c as usize].clone())
                    .collect()
            } else {
                p.key.clone()
            };
            op.phase = Phase::Base;
            vec![base_step(op, slot, &key, has_unique)]
        }
        (Phase::IndexLookup, Some(StepOutcome::Row(index_row))) => {
            let base_pk: Vec<Value> = index_row[op.prepared.key.len()..].to_vec();
            op.phase = Phase::Base;
            vec![base_step(op, slot, &base_pk, has_unique)]
        }
        (Phase::IndexLookup, Some(_)) => {
            if op.prepared.kind == OpKind::Write {
                // Write through a unique key that does not exist yet: insert the row.
                let row = op.prepared.row.clone().expect("write has a row");
                let key: Vec<Value> = table
                    .primary_key
                    .iter()
                    .map(|c| row[*c as usize].clone())
                    .collect();
                op.prepared.kind = OpKind::Insert;
                op.phase = Phase::Base;
                return vec![base_step(op, slot, &key, has_unique)];
            }
            op.phase = Phase::Done;
            op.result = Some(OpResult::NotFound);
            Vec::new()
        }
        (Phase::Base, Some(StepOutcome::Row(values))) => {
            op.phase = Phase::Done;
            op.result = Some(OpResult::Row(values));
            Vec::new()
        }
        (Phase::Base, Some(StepOutcome::NotFound)) => {
            op.phase = Phase::Done;
            op.result = Some(OpResult::NotFound);
            Vec::new()
        }
        (Phase::Base, Some(StepOutcome::Written { old, new })) => {
            op.result = Some(OpResult::Done {
                assigned: p.assigned,
            });
            let steps = if has_unique {
                maintenance_steps(&p.table, slot, old.as_deref(), new.as_deref())
            } else {
                Vec::new()
            };
            op.phase = if steps.is_empty() {
                Phase::Done
            } else {
                Phase::Maintain
            };
            steps
        }
        (Phase::Maintain, Some(_)) => {
            // Every maintenance step of this operation reports here; the result is already set.
            op.phase = Phase::Done;
            Vec::new()
        }
        (_, _) => {
            op.phase = Phase::Done;
            Vec::new()
        }
    }
}

/// The step on the base row, addressed by primary key values.
fn base_step(op: &OpState, slot: u32, pk_values: &[Value], want_images: bool) -> Step {
    let p = &op.prepared;
    let table = &p.table.def;
    let (pk, partition) = locate(table, &table.primary_key, pk_values);
    let kind = match p.kind {
        OpKind::Read(lock) => StepKind::Read {
            lock,
            projection: p.projection.clone(),
        },
        OpKind::Insert => StepKind::Insert {
            row: p.row.clone().unwrap_or_default(),
        },
        OpKind::Update => StepKind::Update {
            updates: p.updates.clone(),
        },
        OpKind::Write => StepKind::Write {
            row: p.row.clone().unwrap_or_default(),
            updates: p.updates.clone(),
        },
        OpKind::Delete => StepKind::Delete,
        OpKind::Increment => StepKind::Increment {
            amounts: p
                .updates
                .iter()
                .map(|(c, v)| match v {
                    Value::Int(n) => (*c, *n as i128),
                    Value::UInt(n) => (*c, *n as i128),
                    _ => (*c, 0),
                })
                .collect(),
        },
    };
    Step {
        slot,
        table: table.id,
        version: table.version,
        partition,
        pk,
        kind,
        want_images,
    }
}

/// Unique-index rows to delete and insert after a base row changed from `old` to `new`.
fn maintenance_steps(
    entry: &TableEntry,
    slot: u32,
    old: Option<&[Value]>,
    new: Option<&[Value]>,
) -> Vec<Step> {
    let table = &entry.def;
    let mut steps = Vec::new();
    for (index, hidden) in table.indexes.iter().zip(&entry.unique_tables) {
        let (Some(hidden), IndexKind::Unique) = (hidden, index.kind) else {
            continue;
        };
        let key_of = |row: Option<&[Value]>| -> Option<Vec<Value>> {
            let key = index.key_values(table, row?);
            // Rows with a NULL in a unique key are not indexed: NULLs never collide.
            (!key.iter().any(Value::is_null)).then_some(key)
        };
        let (old_key, new_key) = (key_of(old), key_of(new));
        let key_columns: Vec<u16> = (0..index.columns.len() as u16).collect();
        let encoded = |k: &Option<Vec<Value>>| k.as_ref().map(|k| locate(hidden, &key_columns, k));
        let (old_loc, new_loc) = (encoded(&old_key), encoded(&new_key));
        if old_loc.as_ref().map(|l| &l.0) == new_loc.as_ref().map(|l| &l.0) {
            continue;
        }
        if let Some((pk, partition)) = old_loc {
            steps.push(Step {
                slot,
                table: hidden.id,
                version: hidden.version,
                partition,
                pk,
                kind: StepKind::Delete,
                want_images: false,
            });
        }
        if let (Some((pk, partition)), Some(key), Some(new)) = (new_loc, new_key, new) {
            let mut row = key;
            row.extend(table.primary_key.iter().map(|c| new[*c as usize].clone()));
            steps.push(Step {
                slot,
                table: hidden.id,
                version: hidden.version,
                partition,
                pk,
                kind: StepKind::Insert { row },
                want_images: false,
            });
        }
    }
    steps
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

fn ends_transaction(e: &Error) -> bool {
    // A step link's failure too: the transaction's part on that node group is gone.
    matches!(
        e.code,
        ErrorCode::SchemaChanged
            | ErrorCode::Deadlock
            | ErrorCode::ViewChanged
            | ErrorCode::NotPrimary
            | ErrorCode::ConnectionLost
    )
}
