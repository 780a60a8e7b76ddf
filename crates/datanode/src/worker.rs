//! A worker's data: the partitions it owns and alone touches (rows, indexes, row locks). It runs
//! keyed steps for transactions (keeping their uncommitted images and locks until commit or
//! abort), parks steps that wait for a lock until it is released or the lock-wait timeout passes
//! (or fails one at once whose wait would close a deadlock, found in the node's `WaitGraph`),
//! and scans its partitions with the filter running next to the data. What it answers goes to
//! `outgoing`; the worker's event loop (`event_loop.rs`) delivers it.

use std::collections::{HashSet, VecDeque};

use hashbrown::HashMap;
use std::ops::Bound;
use std::sync::Arc;
use std::time::{Duration, Instant};

use base::{Error, ErrorCode, TableDef, Value};
use storage::Partition;
use wire::{ExecuteOutcome, LockMode, Message, OpResult};

use crate::messages::*;

mod ddl;
mod prepared;
mod replica;
mod scan;
mod status;

use ddl::{FencedWork, WaitingFence};

use crate::waits::WaitGraph;

type LockKey = (u32, Vec<u8>);

/// A change borrowed from a transaction's pending images: table, partition, key, row.
type ChangeRefOwned<'a> = (u32, u32, &'a [u8], Option<&'a [u8]>);

struct LockEntry {
    exclusive: bool,
    holders: Vec<TxnId>,
}

/// An uncommitted row image (None: deleted) and the partition of its key.
type PendingImage = (u32, Option<Box<[u8]>>);

/// A transaction's state on this worker.
#[derive(Default)]
struct WorkerTxn {
    locks: Vec<LockKey>,
    /// The latest uncommitted image per key (None: deleted), with the key's partition.
    pending: HashMap<LockKey, PendingImage>,
    /// What `pending` held for each key before each change, with the statement that made the
    /// change, oldest first: the latest statement's changes, or with a savepoint
    /// (`Parked::keep_from`) every statement's from it on.
    undo: Vec<(u32, LockKey, Option<PendingImage>)>,
    /// Data memory its uncommitted images will take (counted in `Worker::reserved_bytes`
    /// until it ends), so the transactions in flight together cannot pass the limit.
    reserved_bytes: usize,
    /// The two-phase commit it is the decision or a prepared part of, which its commit
    /// record carries (`worker::prepared`).
    name: Option<crate::replication::CommitName>,
    /// Its images were logged here as a prepared part: its abort logs the part's drop.
    prepared: bool,
}

/// Steps of one request, run in order; parked while one waits for a lock.
struct Parked {
    txn: TxnId,
    tag: u64,
    /// The client's statement (0: none), see `WorkerTxn::undo`.
    statement: u32,
    /// The oldest statement whose undo is kept (0: the latest only).
    keep_from: u32,
    steps: VecDeque<Step>,
    replies: Vec<StepReply>,
    reply_to: ReplyTo,
    /// The request id when the worker answers the client itself.
    direct: Option<u64>,
    deadline: Instant,
    /// The number its wait is recorded under in the waits-for graph, while it waits.
    wait: Option<u64>,
    /// The lock it waits for, and whether exclusive (a shared request queues behind it).
    blocked_on: Option<(LockKey, bool)>,
}

enum StepStatus {
    Done(StepReply),
    Blocked(Step),
}

/// What a worker does with its redo log.
pub struct Logging {
    pub log: storage::redo::RedoLog,
}

/// One partition's share of a checkpoint being written.
struct PartTask {
    table: u32,
    partition: u32,
    /// Partial: the changes since the previous checkpoint (deleted keys are written first).
    changes: Option<storage::ChangeSet>,
    /// The next row id to look at.
    next: storage::RowId,
    /// A full pass stops at the slots the partition had when the checkpoint began: rows stored
    /// in new slots since are in the redo after the cut (and the next checkpoint's changes), and
    /// a pass that chased them could never end under a steady insert load.
    end: storage::RowId,
}

/// This worker's part of a checkpoint in progress: a little is written every loop turn, so
/// requests are served in between.
pub struct CheckpointTask {
    parts: Vec<PartTask>,
    builder: storage::checkpoint::BlockBuilder,
    /// A chunk the checkpointer's queue had no room for yet.
    waiting: Option<Vec<u8>>,
    reply: std::sync::mpsc::SyncSender<CheckpointReply>,
    worker: usize,
}

enum Handed {
    Sent,
    /// The checkpointer's queue is full: the chunk waits for the next turn.
    Full,
    /// The checkpointer gave up on this checkpoint.
    Gone,
}

impl CheckpointTask {
    fn hand_over(&mut self, bytes: Vec<u8>) -> Handed {
        use std::sync::mpsc::TrySendError;
        let chunk = CheckpointReply::Chunk {
            worker: self.worker,
            bytes,
        };
        match self.reply.try_send(chunk) {
            Ok(()) => Handed::Sent,
            Err(TrySendError::Full(CheckpointReply::Chunk { bytes, .. })) => {
                self.waiting = Some(bytes);
                Handed::Full
            }
            Err(_) => Handed::Gone,
        }
    }
}

/// Bytes of blocks a worker builds per loop turn while it checkpoints.
const CHECKPOINT_BYTES_PER_TURN: usize = 1024 * 1024;

pub struct Worker {
    partitions: HashMap<(u32, u32), Partition>,
    /// The node's data memory, where this worker publishes what its partitions hold.
    data_memory: Arc<crate::DataMemory>,
    /// What this worker's partitions hold (`Partition::memory_bytes` summed), kept current, and
    /// what its open transactions' images will add: both are published as its use.
    memory_bytes: usize,
    reserved_bytes: usize,
    logging: Option<Logging>,
    /// The checkpoint this worker is writing, if one is.
    pub checkpoint: Option<CheckpointTask>,
    /// Set when the redo log failed: the node must stop rather than acknowledge more commits.
    pub failure: Option<String>,
    locks: HashMap<LockKey, LockEntry>,
    txns: HashMap<TxnId, WorkerTxn>,
    parked: Vec<Parked>,
    /// The statement of the request whose steps are running, and the oldest whose undo is
    /// kept (see `WorkerTxn::undo`).
    statement: (u32, u32),
    lock_wait: Duration,
    /// The node's waits-for graph and this worker's number in it.
    waits: Arc<WaitGraph>,
    index: usize,
    /// The next number a parked request's wait is recorded under.
    next_wait: u64,
    /// The transactions the last step that blocked waits for, and its lock.
    blocked_by: Vec<TxnId>,
    blocked_on: Option<(LockKey, bool)>,
    cluster_id: u32,
    /// Events for coordinators, delivered by the event loop after each message.
    pub outgoing: Vec<(ReplyTo, Event)>,
    /// Tables whose rows this worker copied for a column change still under way: reads go on,
    /// writes are refused.
    fenced: HashSet<u32>,
    /// Tables a column change replaced: a step that still names one is `SchemaChanged`.
    retired: HashSet<u32>,
    /// Column changes and unique-index builds waiting for the transactions that hold locks on
    /// their table to end.
    fenced_work: Vec<WaitingFence>,
    /// On a starting node while its copy runs (`replica::Copying`).
    copying: Option<replica::Copying>,
    /// The log records of two-phase commits kept past checkpoints (`worker::prepared`).
    pins: prepared::Pins,
    /// A record written this turn must be fsynced whatever the durability.
    sync_wanted: bool,
}

impl Worker {
    pub fn new(
        lock_wait: Duration,
        waits: (Arc<WaitGraph>, usize),
        cluster_id: u32,
        partitions: Vec<((u32, u32), Partition)>,
        logging: Option<Logging>,
        data_memory: Arc<crate::DataMemory>,
    ) -> Worker {
        let mut partitions: HashMap<(u32, u32), Partition> = partitions.into_iter().collect();
        if logging.is_some() {
            // NOLOGGING tables are never checkpointed: nothing would take their changes.
            for p in partitions
                .values_mut()
                .filter(|p| !p.table().options.nologging)
            {
                p.track_changes();
            }
        }
        let mut worker = Worker {
            partitions,
            data_memory,
            memory_bytes: 0,
            reserved_bytes: 0,
            checkpoint: None,
            logging,
            failure: None,
            locks: HashMap::new(),
            txns: HashMap::new(),
            parked: Vec::new(),
            statement: (0, 0),
            lock_wait,
            waits: waits.0,
            index: waits.1,
            next_wait: 0,
            blocked_by: Vec::new(),
            blocked_on: None,
            cluster_id,
            outgoing: Vec::new(),
            fenced: HashSet::new(),
            retired: HashSet::new(),
            fenced_work: Vec::new(),
            copying: None,
            pins: prepared::Pins::default(),
            sync_wanted: false,
        };
        worker.recount_memory();
        worker
    }

    /// Counts what every partition of this worker holds again and publishes it (after anything
    /// but a commit changed partitions: DDL, copies, recovery).
    fn recount_memory(&mut self) {
        self.memory_bytes = self.partitions.values().map(|p| p.memory_bytes()).sum();
        self.publish_memory();
    }

    fn publish_memory(&self) {
        self.data_memory
            .publish(self.index, (self.memory_bytes + self.reserved_bytes) as u64);
    }

    /// Refuses a row image of `row_bytes` for `key` when storing it would take the node past
    /// its data memory limit. Rows replaced by no larger ones, and deletes, always pass, so a
    /// full node keeps serving the writes that free memory.
    /// Returns the bytes to reserve for it.
    fn check_memory(
        &self,
        key: &LockKey,
        partition: u32,
        row_bytes: usize,
        replaces: bool,
    ) -> Result<usize, Error> {
        let Some(part) = self.partitions.get(&(key.0, partition)) else {
            return Ok(0);
        };
        let used = self.data_memory.used_by_others(self.index)
            + (self.memory_bytes + self.reserved_bytes) as u64;
        // Far from the limit (the common case): reserve what a new row takes, without looking
        // for the row it may replace (an update reserves nothing there).
        let most = part.row_memory_bytes(row_bytes);
        if used.saturating_add(most as u64) <= self.data_memory.limit {
            return Ok(if replaces { 0 } else { most });
        }
        let grows = match part.get(&key.1) {
            Some(old) => row_bytes.saturating_sub(old.len()),
            None => part.row_memory_bytes(row_bytes),
        };
        if grows == 0 {
            return Ok(0);
        }
        if used.saturating_add(grows as u64) <= self.data_memory.limit {
            return Ok(grows);
        }
        let table = part.table();
        let name = match table.index_of {
            // A hidden unique-index table's row belongs to its base table.
            Some(_) => table.name.split('$').next().unwrap_or(&table.name),
            None => &table.name,
        };
        Err(Error::new(
            ErrorCode::TableFull,
            format!(
                "table '{name}' is full: the data node's data memory ({} MiB, --data-memory) is used up ({} MiB held)",
                self.data_memory.limit >> 20,
                used >> 20
            ),
        ))
    }

    /// The earliest lock-wait deadline, so the event loop knows how long it may sleep.
    pub fn next_deadline(&self) -> Option<Instant> {
        let fenced = self.fenced_work.iter().map(|c| c.deadline);
        self.parked.iter().map(|p| p.deadline).chain(fenced).min()
    }

    fn send(&mut self, to: ReplyTo, event: Event) {
        self.outgoing.push((to, event));
    }

    /// Handles one data message (connections and coordinator events belong to the event loop).
    pub fn handle(&mut self, message: ToWorker) {
        // Commits keep the count current as they go; other changes to partitions (DDL, copies,
        // unique index builds) are counted again after their message.
        let recount = !matches!(
            message,
            ToWorker::Steps { .. }
                | ToWorker::Commit { .. }
                | ToWorker::UndoStatement { .. }
                | ToWorker::Abort { .. }
                | ToWorker::Scan { .. }
                | ToWorker::Status { .. }
        );
        self.handle_message(message);
        if recount {
            self.recount_memory();
        }
    }

    fn handle_message(&mut self, message: ToWorker) {
        match message {
            ToWorker::Steps {
                txn,
                tag,
                steps,
                statement,
                keep_from,
                reply_to,
                direct,
            } => {
                let parked = Parked {
                    txn,
                    tag,
                    statement,
                    keep_from,
                    steps: steps.into(),
                    replies: Vec::new(),
                    reply_to,
                    direct,
                    deadline: Instant::now() + self.lock_wait,
                    wait: None,
                    blocked_on: None,
                };
                self.run_parked(parked);
            }
            ToWorker::Commit {
                txn,
                tag,
                reply_to,
                participants,
                counted,
                sequence,
            } => {
                self.log_commit(txn, participants, counted, sequence);
                self.finish(txn, true);
                self.send(reply_to, Event::Finished { tag });
            }
            ToWorker::UndoStatement {
                txn,
                statement,
                tag,
                reply_to,
            } => {
                self.undo_statement(txn, statement);
                self.send(reply_to, Event::Finished { tag });
            }
            ToWorker::Abort { txn, tag, reply_to } => {
                self.finish(txn, false);
                if let Some(reply_to) = reply_to {
                    self.send(reply_to, Event::Finished { tag });
                }
            }
            ToWorker::Scan {
                tag,
                partitions,
                plan,
                txn,
                from,
                rows_max,
                bytes_max,
                reply_to,
            } => {
                let rows = self.scan(&partitions, &plan, txn, from, (rows_max, bytes_max));
                self.send(reply_to, Event::ScanDone { tag, rows });
            }
            ToWorker::CreateTables {
                tables,
                tag,
                reply_to,
            } => {
                for (table, partitions) in tables {
                    for p in partitions {
                        let part = self.new_partition(&table);
                        self.partitions.insert((table.id, p), part);
                    }
                }
                self.send(reply_to, Event::Finished { tag });
            }
            ToWorker::AddIndex {
                table,
                tag,
                reply_to,
            } => {
                for ((id, _), part) in self.partitions.iter_mut() {
                    if *id == table.id {
                        part.add_ordered_index(table.clone());
                    }
                }
                self.send(reply_to, Event::Finished { tag });
            }
            ToWorker::DropTables { ids, tag, reply_to } => {
                self.partitions.retain(|(table, _), _| !ids.contains(table));
                self.send(reply_to, Event::Finished { tag });
            }
            ToWorker::Redefine {
                tables,
                dropped_index,
                drop,
                tag,
                reply_to,
            } => {
                self.partitions
                    .retain(|(table, _), _| !drop.contains(table));
                for (i, table) in tables.iter().enumerate() {
                    let dropped = if i == 0 { dropped_index } else { None };
                    self.redefine(table, dropped);
                }
                self.send(reply_to, Event::Finished { tag });
            }
            ToWorker::Convert {
                conversion,
                txn,
                sequence,
                tag,
                reply_to,
            } => {
                let work = FencedWork::Convert {
                    conversion,
                    txn,
                    sequence,
                };
                self.fence(work, tag, reply_to);
            }
            ToWorker::CollectUnique {
                build,
                tag,
                reply_to,
            } => self.fence(FencedWork::CollectUnique(build), tag, reply_to),
            ToWorker::FillUnique {
                build,
                partitions,
                entries,
                txn,
                sequence,
                tag,
                reply_to,
            } => {
                let result = self.fill_unique(&build, &partitions, entries, txn, &sequence);
                self.send(reply_to, Event::Converted { tag, result });
            }
            ToWorker::EndUnique {
                build,
                done,
                tag,
                reply_to,
            } => {
                self.end_unique(&build, done);
                self.send(reply_to, Event::Finished { tag });
            }
            ToWorker::EndConversion {
                conversion,
                done,
                hidden,
                tag,
                reply_to,
            } => {
                self.end_conversion(&conversion, done, &hidden);
                self.send(reply_to, Event::Finished { tag });
            }
            ToWorker::Status { tag, reply_to } => {
                let status = self.status();
                self.send(reply_to, Event::Status { tag, status });
            }
            ToWorker::Checksums { tag, reply_to } => {
                let sums = self.checksums();
                self.send(reply_to, Event::Checksums { tag, sums });
            }
            ToWorker::Images {
                txn,
                tag,
                reply_to,
                named,
            } => {
                let changes = self.images(txn);
                match named {
                    Some((name, true)) => self.log_prepared_txn(txn, name, &changes),
                    Some((name, false)) => {
                        if let Some(state) = self.txns.get_mut(&txn) {
                            state.name = Some(name);
                        }
                    }
                    None => {}
                }
                self.send(reply_to, Event::Images { tag, changes });
            }
            ToWorker::LogPrepared {
                name,
                changes,
                tag,
                reply_to,
            } => {
                self.log_prepared(0, name, &changes);
                self.send(reply_to, Event::Finished { tag });
            }
            ToWorker::LogDropped { name } => self.log_dropped(name),
            ToWorker::LogDecision {
                name,
                tag,
                reply_to,
            } => {
                self.log_decision(name);
                self.send(reply_to, Event::Finished { tag });
            }
            ToWorker::Apply {
                changes,
                txn,
                participants,
                sequence,
                tag,
                reply_to,
                copy,
                name,
            } => {
                if copy {
                    self.apply_copied(changes, txn, (participants, sequence));
                } else {
                    if let Some(copying) = &mut self.copying {
                        copying.keep(&changes);
                    }
                    self.apply_replicated(changes, txn, (participants, sequence), name);
                }
                self.send(reply_to, Event::Finished { tag });
            }
            ToWorker::Copying(phase) => self.copy_phase(phase),
            ToWorker::CopyRead {
                table,
                partition,
                from,
                rows_max,
                bytes_max,
                reply,
            } => {
                // The copy's driver may have ended (its node left the view): nothing to do.
                let _ = reply.send(self.copy_read(table, partition, from, rows_max, bytes_max));
            }
            ToWorker::Connection(_)
            | ToWorker::Settled { .. }
            | ToWorker::CommitReplicated { .. }
            | ToWorker::ToCoordinator { .. }
            | ToWorker::Checkpoint(_)
            | ToWorker::Stop => {}
        }
    }

    /// Runs steps in order until one blocks on a lock (park the rest) or fails (stop there).
    fn run_parked(&mut self, mut parked: Parked) {
        self.statement = (parked.statement, parked.keep_from);
        while let Some(step) = parked.steps.pop_front() {
            match self.run_step(parked.txn, step) {
                StepStatus::Done(reply) => {
                    let failed = reply.result.is_err();
                    parked.replies.push(reply);
                    if failed {
                        break;
                    }
                }
                StepStatus::Blocked(step) => {
                    let wait = *parked.wait.get_or_insert_with(|| {
                        self.next_wait += 1;
                        self.next_wait
                    });
                    if self
                        .waits
                        .wait(parked.txn, (self.index, wait), &self.blocked_by)
                    {
                        parked.blocked_on = self.blocked_on.take();
                        parked.steps.push_front(step);
                        self.parked.push(parked);
                        return;
                    }
                    self.blocked_on = None;
                    // Waiting would close a cycle of transactions each waiting for the next:
                    // this one gives way at once, and its coordinator aborts it whole.
                    parked.wait = None;
                    parked.replies.push(StepReply {
                        slot: step.slot,
                        result: Err(Error::new(
                            ErrorCode::Deadlock,
                            format!(
                                "deadlock on a row of table {}: transaction {} waits for {:?}, which wait for it",
                                step.table, parked.txn, self.blocked_by
                            ),
                        )),
                    });
                    break;
                }
            }
        }
        self.complete(parked);
    }

    /// Reports a finished request: to the coordinator, or straight to the client for direct reads.
    fn complete(&mut self, parked: Parked) {
        if let Some(wait) = parked.wait {
            self.waits.clear(parked.txn, (self.index, wait));
        }
        let event = match parked.direct {
            Some(request_id) => {
                Event::Frames(direct_reply(self.cluster_id, request_id, parked.replies))
            }
            None => Event::StepsDone {
                tag: parked.tag,
                replies: parked.replies,
            },
        };
        self.send(parked.reply_to, event);
    }

    /// Fails the first waiting step of every request whose lock wait passed its deadline.
    pub fn expire_waits(&mut self) {
        let now = Instant::now();
        self.expire_fenced(now);
        let mut i = 0;
        while i < self.parked.len() {
            if self.parked[i].deadline <= now {
                let mut p = self.parked.swap_remove(i);
                if let Some(step) = p.steps.pop_front() {
                    p.replies.push(StepReply {
                        slot: step.slot,
                        result: Err(Error::new(
                            ErrorCode::LockWaitTimeout,
                            format!(
                                "lock wait timeout on a row of table {} after {:?}",
                                step.table, self.lock_wait
                            ),
                        )),
                    });
                }
                self.complete(p);
            } else {
                i += 1;
            }
        }
    }

    /// Grants `mode` on `key` to `txn`, or returns false when it must wait.
    fn acquire(&mut self, txn: TxnId, key: &LockKey, exclusive: bool) -> bool {
        match self.locks.get_mut(key) {
            None => {
                self.locks.insert(
                    key.clone(),
                    LockEntry {
                        exclusive,
                        holders: vec![txn],
                    },
                );
                self.txns.entry(txn).or_default().locks.push(key.clone());
                true
            }
            Some(entry) => {
                let holds = entry.holders.contains(&txn);
                if holds {
                    if !exclusive || entry.exclusive {
                        return true;
                    }
                    if entry.holders.len() == 1 {
                        entry.exclusive = true;
                        return true;
                    }
                    // An upgrade waits for the other holders of the shared lock.
                } else if !exclusive && !entry.exclusive {
                    // A shared request queues behind a request of another transaction waiting
                    // for this lock exclusively: joining the holders would keep that one
                    // waiting as long as readers come, and it would wait for a holder its
                    // recorded wait does not name (a deadlock found late).
                    let writers: Vec<TxnId> = self
                        .parked
                        .iter()
                        .filter(|p| {
                            p.txn != txn
                                && p.blocked_on
                                    .as_ref()
                                    .is_some_and(|(k, exclusive)| *exclusive && k == key)
                        })
                        .map(|p| p.txn)
                        .collect();
                    let Some(entry) = self.locks.get_mut(key) else {
                        return false;
                    };
                    if writers.is_empty() {
                        entry.holders.push(txn);
                        self.txns.entry(txn).or_default().locks.push(key.clone());
                        return true;
                    }
                    self.blocked_by.clear();
                    self.blocked_by.extend(entry.holders.iter().copied());
                    self.blocked_by.extend(writers);
                    self.blocked_on = Some((key.clone(), false));
                    return false;
                }
                self.blocked_by.clear();
                self.blocked_by
                    .extend(entry.holders.iter().filter(|t| **t != txn));
                self.blocked_on = Some((key.clone(), exclusive));
                false
            }
        }
    }

    /// The row image `txn` sees for `key`: its own uncommitted image, else the committed row.
    fn visible(&self, txn: TxnId, key: &LockKey, partition: u32) -> Option<&[u8]> {
        if let Some((_, image)) = self.txns.get(&txn).and_then(|t| t.pending.get(key)) {
            return image.as_deref();
        }
        self.partitions.get(&(key.0, partition))?.get(&key.1)
    }

    /// A committed read of a transaction with no state here: the committed row, read in place.
    fn committed_read(&self, step: &Step, projection: &[u16]) -> StepReply {
        let result = self
            .partition_of(step)
            .map(|part| match part.get(&step.pk) {
                None => StepOutcome::NotFound,
                Some(row) => StepOutcome::Row(project(part.layout(), row, projection)),
            });
        StepReply {
            slot: step.slot,
            result,
        }
    }

    /// The partition `step` addresses, holding the definition version it was prepared for.
    fn partition_of(&self, step: &Step) -> Result<&Partition, Error> {
        let Some(part) = self.partitions.get(&(step.table, step.partition)) else {
            if self.retired.contains(&step.table) {
                return Err(Error::new(
                    ErrorCode::SchemaChanged,
                    format!("table {} was altered", step.table),
                ));
            }
            return Err(not_here(step));
        };
        if part.table().version != step.version {
            return Err(changed(part.table(), step.version));
        }
        let locking = !matches!(
            step.kind,
            StepKind::Read {
                lock: LockMode::CommittedRead,
                ..
            }
        );
        if locking && !self.fenced.is_empty() && self.fenced.contains(&step.table) {
            return Err(Error::new(
                ErrorCode::SchemaChanged,
                format!("table '{}' is being altered", part.table().name),
            ));
        }
        Ok(part)
    }

    fn run_step(&mut self, txn: TxnId, step: Step) -> StepStatus {
        if let StepKind::Read {
            lock: LockMode::CommittedRead,
            projection,
        } = &step.kind
        {
            if !self.txns.contains_key(&txn) {
                return StepStatus::Done(self.committed_read(&step, projection));
            }
        }
        let key: LockKey = (step.table, step.pk.clone());
        let part = match self.partition_of(&step) {
            Ok(part) => part,
            Err(e) => {
                return StepStatus::Done(StepReply {
                    slot: step.slot,
                    result: Err(e),
                })
            }
        };
        let layout = part.layout().clone();
        let lock = match &step.kind {
            StepKind::Read {
                lock: LockMode::CommittedRead,
                ..
            } => None,
            StepKind::Read {
                lock: LockMode::Shared,
                ..
            } => Some(false),
            _ => Some(true),
        };
        if let Some(exclusive) = lock {
            if !self.acquire(txn, &key, exclusive) {
                return StepStatus::Blocked(step);
            }
        }
        let slot = step.slot;
        let want = step.want_images;
        if let StepKind::Read { projection, .. } = &step.kind {
            // Reads decode only the columns asked for.
            let outcome = match self.visible(txn, &key, step.partition) {
                None => StepOutcome::NotFound,
                Some(row) => StepOutcome::Row(project(&layout, row, projection)),
            };
            return StepStatus::Done(StepReply {
                slot,
                result: Ok(outcome),
            });
        }
        let current = self
            .visible(txn, &key, step.partition)
            .map(|r| layout.values(r));
        let result = match step.kind {
            StepKind::Read { .. } => unreachable!("reads returned above"),
            StepKind::Insert { row } => match current {
                Some(_) => Err(duplicate(
                    self.partitions
                        .get(&(step.table, step.partition))
                        .map(|p| p.table()),
                    &row,
                )),
                None => self.write(txn, &key, step.partition, &layout, Some(row), None, want),
            },
            StepKind::Update { updates } => match current {
                None => Ok(StepOutcome::NotFound),
                Some(old) => self.update(txn, &key, step.partition, &layout, old, &updates, want),
            },
            StepKind::Write { row, updates } => match current {
                None => self.write(txn, &key, step.partition, &layout, Some(row), None, want),
                Some(old) => self.update(txn, &key, step.partition, &layout, old, &updates, want),
            },
            StepKind::Increment { amounts } => match current {
                None => Ok(StepOutcome::NotFound),
                Some(old) => match self.incremented(step.table, step.partition, &old, &amounts) {
                    Ok(updates) => {
                        self.update(txn, &key, step.partition, &layout, old, &updates, want)
                    }
                    Err(e) => Err(e),
                },
            },
            StepKind::Delete => match current {
                None => Ok(StepOutcome::NotFound),
                Some(old) => self.write(txn, &key, step.partition, &layout, None, Some(old), want),
            },
        };
        StepStatus::Done(StepReply { slot, result })
    }

    /// The new values of incremented columns, checked against each column's range.
    fn incremented(
        &self,
        table: u32,
        partition: u32,
        old: &[Value],
        amounts: &[(u16, i128)],
    ) -> Result<Vec<(u16, Value)>, Error> {
        let part = self
            .partitions
            .get(&(table, partition))
            .ok_or_else(|| Error::new(ErrorCode::NoSuchTable, "partition gone"))?;
        let def = part.table();
        amounts
            .iter()
            .map(|&(c, amount)| {
                let col = &def.columns[c as usize];
                let sum = match old.get(c as usize) {
                    Some(Value::Int(v)) => *v as i128 + amount,
                    Some(Value::UInt(v)) => *v as i128 + amount,
                    _ => return Ok((c, Value::Null)),
                };
                let value = if sum < 0 {
                    Value::Int(i64::try_from(sum).map_err(|_| out_of_range(&col.name))?)
                } else {
                    Value::UInt(u64::try_from(sum).map_err(|_| out_of_range(&col.name))?)
                };
                Ok((c, value.coerce(col.ty, col.collation, &col.name)?))
            })
            .collect()
    }

    #[allow(clippy::too_many_arguments)]
    fn update(
        &mut self,
        txn: TxnId,
        key: &LockKey,
        partition: u32,
        layout: &storage::RowLayout,
        old: Vec<Value>,
        updates: &[(u16, Value)],
        want: bool,
    ) -> Result<StepOutcome, Error> {
        let mut new = old.clone();
        for (c, v) in updates {
            if let Some(slot) = new.get_mut(*c as usize) {
                *slot = v.clone();
            }
        }
        let part = self
            .partitions
            .get(&(key.0, partition))
            .ok_or_else(|| Error::new(ErrorCode::NoSuchTable, "partition gone"))?;
        let mut new_pk = Vec::new();
        part.encode_primary_key(
            &part
                .table()
                .primary_key
                .iter()
                .map(|c| new[*c as usize].clone())
                .collect::<Vec<_>>(),
            &mut new_pk,
        );
        if new_pk != key.1 {
            return Err(Error::new(
                ErrorCode::BadRequest,
                "an update cannot change the primary key; delete and insert instead",
            ));
        }
        self.write(txn, key, partition, layout, Some(new), Some(old), want)
    }

    #[allow(clippy::too_many_arguments)]
    fn write(
        &mut self,
        txn: TxnId,
        key: &LockKey,
        partition: u32,
        layout: &storage::RowLayout,
        new: Option<Vec<Value>>,
        old: Option<Vec<Value>>,
        want: bool,
    ) -> Result<StepOutcome, Error> {
        let image = match &new {
            Some(values) => Some(layout.encode(values)?),
            None => None,
        };
        // A key this transaction already wrote holds its reservation; a row that exists (an
        // update) is checked for what it grows by.
        let rewritten = self
            .txns
            .get(&txn)
            .is_some_and(|t| t.pending.contains_key(key));
        let reserve = match &image {
            Some(row) if !rewritten => {
                self.check_memory(key, partition, row.len(), old.is_some())?
            }
            _ => 0,
        };
        if reserve > 0 {
            self.reserved_bytes += reserve;
            self.publish_memory();
        }
        let state = self.txns.entry(txn).or_default();
        state.reserved_bytes += reserve;
        let before = state.pending.insert(key.clone(), (partition, image));
        let (statement, keep_from) = self.statement;
        if statement != 0 {
            // Drop what no undo can name any more: earlier statements' changes, or with a
            // savepoint those of statements before it.
            let oldest = if keep_from == 0 {
                statement
            } else {
                keep_from.min(statement)
            };
            if state.undo.first().is_some_and(|(s, ..)| *s < oldest) {
                let keep = state.undo.partition_point(|(s, ..)| *s < oldest);
                state.undo.drain(..keep);
            }
            state.undo.push((statement, key.clone(), before));
        }
        Ok(if want {
            StepOutcome::Written { old, new }
        } else {
            StepOutcome::Written {
                old: None,
                new: None,
            }
        })
    }

    /// Appends this worker's part of a commit to the redo log buffer; the event loop writes (and
    /// in commit mode fsyncs) it before any acknowledgement leaves the worker.
    fn log_commit(&mut self, txn: TxnId, participants: u16, counted: bool, sequence: u64) {
        let Some(logging) = &mut self.logging else {
            return;
        };
        let state = self.txns.get(&txn);
        let logged = |table: u32, partition: u32| {
            self.partitions
                .get(&(table, partition))
                .is_some_and(|p| !p.table().options.nologging)
        };
        let changes: Vec<ChangeRefOwned> = state
            .map(|s| {
                s.pending
                    .iter()
                    .filter(|((table, _), (partition, _))| logged(*table, *partition))
                    .map(|((table, key), (partition, image))| {
                        (*table, *partition, key.as_slice(), image.as_deref())
                    })
                    .collect()
            })
            .unwrap_or_default();
        let name = state.and_then(|s| s.name);
        if !counted || (changes.is_empty() && participants <= 1 && name.is_none()) {
            return;
        }
        let refs = changes
            .iter()
            .map(|(table, partition, key, row)| storage::redo::ChangeRef {
                table: *table,
                partition: *partition,
                key,
                row: *row,
            });
        let logged =
            prepared::append_commit(&mut logging.log, (sequence, txn, participants), name, refs);
        self.commit_logged(logged, name);
    }

    /// Writes buffered redo records; with `sync` makes them durable. False after a failure.
    pub fn flush_log(&mut self, sync: bool) -> bool {
        if let Some(logging) = &mut self.logging {
            if let Err(e) = logging.log.flush(sync) {
                self.failure.get_or_insert(e.to_string());
            }
        }
        self.failure.is_none()
    }

    /// The redo position after every record logged so far (None without a log).
    pub fn log_position(&self) -> Option<storage::redo::Position> {
        self.logging.as_ref().map(|l| l.log.position())
    }

    /// Bytes written to the redo log since it was opened.
    pub fn log_bytes(&self) -> u64 {
        self.logging.as_ref().map_or(0, |l| l.log.written_bytes())
    }

    /// A published checkpoint covers the log before `upto`.
    pub fn release_log(&mut self, upto: storage::redo::Position) {
        if let Some(l) = &mut self.logging {
            l.log.release(upto);
        }
    }

    /// Starts writing this worker's part of a checkpoint: every logged partition, whole when
    /// `full`, else only what changed since the last checkpoint. The change sets are taken now:
    /// changes from here on go to the next checkpoint (and are in the redo after its mark).
    pub fn start_checkpoint(
        &mut self,
        worker: usize,
        full: bool,
        reply: std::sync::mpsc::SyncSender<CheckpointReply>,
    ) {
        let mut parts: Vec<PartTask> = self
            .partitions
            .iter_mut()
            .filter(|(_, p)| !p.table().options.nologging)
            .map(|(&(table, partition), p)| {
                let changes = p.take_changes();
                PartTask {
                    table,
                    partition,
                    changes: if full { None } else { changes },
                    next: 0,
                    end: p.slots() as storage::RowId,
                }
            })
            .collect();
        parts.sort_by_key(|p| (p.table, p.partition));
        self.checkpoint = Some(CheckpointTask {
            parts,
            builder: storage::checkpoint::BlockBuilder::new(),
            waiting: None,
            reply,
            worker,
        });
    }

    /// Writes the next piece of the checkpoint in progress (about 256 KiB of blocks) and hands
    /// it to the checkpointer; answers `Written` after the last piece.
    pub fn checkpoint_work(&mut self) {
        use storage::checkpoint::BlockKind;
        let Some(task) = &mut self.checkpoint else {
            return;
        };
        if let Some(chunk) = task.waiting.take() {
            match task.hand_over(chunk) {
                Handed::Sent => {}
                Handed::Full => return,
                Handed::Gone => {
                    self.checkpoint = None;
                    return;
                }
            }
        }
        while task.builder.len() < CHECKPOINT_BYTES_PER_TURN {
            let Some(part) = task.parts.last_mut() else {
                break;
            };
            // A table dropped meanwhile is skipped.
            let Some(partition) = self.partitions.get(&(part.table, part.partition)) else {
                task.parts.pop();
                continue;
            };
            let mut done = true;
            match &mut part.changes {
                None => {
                    let slots = part.end.min(partition.slots() as storage::RowId);
                    while part.next < slots {
                        let id = part.next;
                        part.next += 1;
                        if let Some(row) = partition.row(id) {
                            task.builder
                                .push(BlockKind::Rows, part.table, part.partition, row);
                            if task.builder.len() >= CHECKPOINT_BYTES_PER_TURN {
                                done = part.next >= slots;
                                break;
                            }
                        }
                    }
                }
                Some(changes) => {
                    for key in changes.deleted.drain(..) {
                        task.builder
                            .push(BlockKind::Deleted, part.table, part.partition, &key);
                    }
                    let mut ids = changes.written_from(part.next);
                    for id in ids.by_ref() {
                        part.next = id + 1;
                        if let Some(row) = partition.row(id) {
                            task.builder
                                .push(BlockKind::Rows, part.table, part.partition, row);
                            if task.builder.len() >= CHECKPOINT_BYTES_PER_TURN {
                                break;
                            }
                        }
                    }
                    done = ids.next().is_none();
                }
            }
            if done {
                task.parts.pop();
            }
        }
        let finished = task.parts.is_empty();
        if !task.builder.is_empty() {
            let chunk = task.builder.take();
            match task.hand_over(chunk) {
                Handed::Sent => {}
                Handed::Full => return,
                Handed::Gone => {
                    self.checkpoint = None;
                    return;
                }
            }
        }
        if finished {
            let (entries, blocks) = task.builder.totals();
            let _ = task.reply.send(CheckpointReply::Written {
                worker: task.worker,
                entries,
                blocks,
                directory: task.builder.directory(),
            });
            self.checkpoint = None;
        }
    }

    /// True when redo records wait to be written.
    pub fn log_pending(&self) -> bool {
        self.logging.as_ref().is_some_and(|l| l.log.has_pending())
    }

    /// Puts back the uncommitted images `txn` had before `statement` and the statements after
    /// it changed them (nothing for changes no longer kept). Locks stay, as InnoDB keeps a
    /// failed statement's locks and those taken after a savepoint.
    fn undo_statement(&mut self, txn: TxnId, statement: u32) {
        let Some(state) = self.txns.get_mut(&txn) else {
            return;
        };
        if statement == 0 {
            return;
        }
        while state.undo.last().is_some_and(|(s, ..)| *s >= statement) {
            let Some((_, key, before)) = state.undo.pop() else {
                break;
            };
            match before {
                Some(image) => state.pending.insert(key, image),
                None => state.pending.remove(&key),
            };
        }
    }

    /// Commits (applies the pending images) or aborts (drops them), then releases the locks and
    /// retries the steps that waited for them.
    fn finish(&mut self, txn: TxnId, commit: bool) {
        // Steps of this transaction still waiting for a lock die with it; left parked, they would
        // take locks for a transaction nobody will finish.
        let (index, waits) = (self.index, &self.waits);
        self.parked.retain(|p| {
            if p.txn != txn {
                return true;
            }
            if let Some(wait) = p.wait {
                waits.clear(txn, (index, wait));
            }
            false
        });
        if !commit {
            if let Some(name) = self
                .txns
                .get(&txn)
                .filter(|s| s.prepared)
                .and_then(|s| s.name)
            {
                self.log_dropped(name);
            }
        }
        let Some(state) = self.txns.remove(&txn) else {
            return;
        };
        assert!(
            self.reserved_bytes >= state.reserved_bytes,
            "data memory: transaction {txn} reserved {} bytes of the worker's {}",
            state.reserved_bytes,
            self.reserved_bytes
        );
        self.reserved_bytes -= state.reserved_bytes;
        if !commit && state.reserved_bytes > 0 {
            self.publish_memory();
        }
        if commit {
            let images = state
                .pending
                .into_iter()
                .map(|((table, pk), (partition, image))| (table, partition, pk, image));
            if let Err(why) = self.apply_images(images) {
                // Locks made the checks at prepare time; a failure here is a broken invariant.
                panic!("commit of a prepared row failed: {why}");
            }
        }
        for key in state.locks {
            if let Some(entry) = self.locks.get_mut(&key) {
                // An exclusive lock has one holder; a shared one only shared holders.
                assert!(
                    !entry.exclusive || entry.holders == [txn],
                    "lock table: transaction {txn} ends holding an exclusive lock with {:?}",
                    entry.holders
                );
                entry.holders.retain(|t| *t != txn);
                if entry.holders.is_empty() {
                    self.locks.remove(&key);
                }
            }
        }
        self.retry_parked();
        if !self.fenced_work.is_empty() {
            self.run_fenced();
            self.recount_memory();
        }
    }

    /// Runs the parked steps again (a lock was released, or a table changed under them).
    fn retry_parked(&mut self) {
        for p in std::mem::take(&mut self.parked) {
            self.run_parked(p);
        }
    }

    /// Gives this worker's partitions of `table` its new definition (no row moves).
    fn redefine(&mut self, table: &Arc<TableDef>, dropped_index: Option<usize>) {
        for ((id, _), part) in self.partitions.iter_mut() {
            if *id == table.id {
                part.redefine(table.clone(), dropped_index);
            }
        }
    }

    /// An empty partition of `table`, recording its changes for checkpoints when the table is
    /// logged.
    fn new_partition(&self, table: &Arc<TableDef>) -> Partition {
        let mut part = Partition::new(table.clone());
        if self.logging.is_some() && !table.options.nologging {
            part.track_changes();
        }
        part
    }
}

/// The reply frame of a request this worker ran alone (committed reads by primary key), which
/// goes to the client without passing through the coordinator, as NDB's LQH sends read results
/// straight to the API.
fn direct_reply(cluster_id: u32, request_id: u64, replies: Vec<StepReply>) -> Vec<u8> {
    let mut results = Vec::with_capacity(replies.len());
    let mut outcome = None;
    for r in replies {
        match r.result {
            Ok(StepOutcome::Row(values)) => results.push(OpResult::Row(values)),
            Ok(StepOutcome::NotFound) => results.push(OpResult::NotFound),
            Ok(StepOutcome::Written { .. }) => results.push(OpResult::Done { assigned: None }),
            Err(error) => {
                outcome = Some(ExecuteOutcome::Aborted {
                    op_index: r.slot,
                    error,
                });
                break;
            }
        }
    }
    // Sized up front: growing a large reply by doubling costs copies and, in glibc, heap
    // consolidation on every large allocation.
    let estimate: usize = results.iter().map(wire::result_bytes).sum();
    let message = Message::ExecuteReply(outcome.unwrap_or(ExecuteOutcome::Ok(results)));
    let mut out = Vec::with_capacity(128 + estimate);
    message.write_reply(&mut out, cluster_id, request_id);
    out
}

/// Appends one redo record putting `rows` (encoded primary key, row image) into a partition.
/// A request built against version `asked` of a table whose partition holds `held`.
pub(crate) fn changed(held: &TableDef, asked: u32) -> Error {
    Error::new(
        ErrorCode::SchemaChanged,
        format!(
            "table '{}' is at definition version {}, the request was made for version {asked}",
            held.name, held.version
        ),
    )
}

fn not_here(step: &Step) -> Error {
    Error::new(
        ErrorCode::NoSuchTable,
        format!(
            "table {} partition {} is not here",
            step.table, step.partition
        ),
    )
}

/// The columns `projection` names (all when empty) of a stored row.
fn project(layout: &storage::RowLayout, row: &[u8], projection: &[u16]) -> Vec<Value> {
    if projection.is_empty() {
        return layout.values(row);
    }
    projection
        .iter()
        .map(|c| {
            if (*c as usize) < layout.column_count() {
                layout.value(row, *c as usize)
            } else {
                Value::Null
            }
        })
        .collect()
}

fn out_of_range(column: &str) -> Error {
    Error::new(
        ErrorCode::BadValue,
        format!("out of range value for column '{column}'"),
    )
}

/// MySQL's 1062 for inserting `row` into `table` (a base table: its primary key; a unique
/// index's hidden table: that index, whose key is the hidden table's primary key).
fn duplicate(table: Option<&Arc<TableDef>>, row: &[Value]) -> Error {
    let Some(table) = table else {
        return Error::new(ErrorCode::DuplicateKey, "Duplicate entry for a key");
    };
    let index = table
        .name
        .split_once("$unique$")
        .map_or("PRIMARY", |(_, index)| index);
    let key = table
        .primary_key
        .iter()
        .filter_map(|c| row.get(*c as usize));
    duplicate_entry(key, index)
}

/// `Duplicate entry 'v1-v2' for key 'name'`, MySQL's 1062 text.
pub(crate) fn duplicate_entry<'a>(key: impl IntoIterator<Item = &'a Value>, index: &str) -> Error {
    Error::new(
        ErrorCode::DuplicateKey,
        base::text::duplicate_entry(key, index),
    )
}

fn as_ref(b: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    match b {
        Bound::Included(v) => Bound::Included(v.as_slice()),
        Bound::Excluded(v) => Bound::Excluded(v.as_slice()),
        Bound::Unbounded => Bound::Unbounded,
    }
}
