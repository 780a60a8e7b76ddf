//! Messages between a connection's coordinator and the worker threads. In-process only: the
//! coordinator and the workers are roles inside one data node and talk over in-memory queues.

use crate::replication::CommitName;
use std::sync::Arc;

use base::filter::Filter;
use base::{Error, TableDef, Value};
use wire::ScanOrder;

/// A transaction's id inside the data node, unique across connections.
pub type TxnId = u64;

// Keyed steps cross the step link to other node groups too, so they are wire types.
pub use wire::{PlaceIn, ScanPlace, Step, StepKind, StepOutcome, StepReply};

/// A scan as a worker runs it over its partitions of one table.
#[derive(Debug)]
pub struct ScanPlan {
    pub table: Arc<TableDef>,
    /// Ordered index position in `table.indexes`, or None for a full table scan.
    pub index: Option<usize>,
    pub lower: Option<(Vec<Value>, bool)>,
    pub upper: Option<(Vec<Value>, bool)>,
    /// Set: the index prefixes the scan reads (no bounds then), values in canonical form.
    pub keys: Vec<Vec<Value>>,
    /// The scan reads by keys (`keys` may be empty: every key held a NULL, so nothing).
    pub by_keys: bool,
    /// With keys: at most one row per key from each partition (a semi-join's probe).
    pub first_per_key: bool,
    /// With keys: each key's partition, when the keys bind the partition key (a partition then
    /// reads only its own keys); empty: every partition reads every key.
    pub key_partitions: Vec<u32>,
    /// Constants already in the columns' canonical form.
    pub filter: Filter,
    /// Columns to return (never empty: the coordinator expands "all").
    pub projection: Vec<u16>,
    /// 0: no limit.
    pub limit: u64,
    pub order: ScanOrder,
}

/// A scanned row: its index key (empty for unordered scans) and the projected values.
pub type ScannedRow = (Vec<u8>, Vec<Value>);

/// What a scanned row's values cost in a batch (as the frame estimates them). A value kept in
/// parts counts as its whole length, which the client joins: a batch holding one is cut after
/// it, so a client joins at most one such row's values per batch.
pub fn row_bytes(values: &[Value]) -> usize {
    let cost = |v: &Value| match v {
        Value::Parts(r) => usize::try_from(r.len).unwrap_or(usize::MAX),
        v => wire::value_bytes(v),
    };
    values.iter().map(cost).fold(8, usize::saturating_add)
}

/// One batch of a worker's part of a scan, and where the next begins (None: the part is done).
#[derive(Debug)]
pub struct ScanPart {
    pub rows: Vec<ScannedRow>,
    pub next: Option<ScanPlace>,
}

/// Where a worker sends what it did for a coordinator: the worker that owns the connection, and
/// the connection's token there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplyTo {
    pub worker: usize,
    pub connection: usize,
}

/// Unique-index entries being built: rows of the index's hidden table, each with the hidden
/// partition it belongs in.
pub type IndexEntries = Vec<(u32, Box<[u8]>)>;

/// Requests to a worker thread.
pub enum ToWorker {
    /// Keyed steps of one request; with `direct` (a request id) the worker answers the client
    /// itself instead of reporting to the coordinator.
    Steps {
        txn: TxnId,
        tag: u64,
        steps: Vec<Step>,
        /// The client's statement the steps belong to (0: none); a worker keeps what undoes
        /// the changes of a transaction's latest statement.
        statement: u32,
        /// The oldest statement whose undo is kept too (0: the latest only; see
        /// `Message::Execute`).
        keep_from: u32,
        reply_to: ReplyTo,
        direct: Option<u64>,
    },
    /// Undoes the changes `statement` and every later statement made to the transaction's
    /// uncommitted images on this worker (locks stay); answered with `Finished`.
    UndoStatement {
        txn: TxnId,
        statement: u32,
        tag: u64,
        reply_to: ReplyTo,
    },
    /// Commits the transaction's part on this worker. `participants` workers wrote in it; this
    /// one is among them when `counted`, and then logs its part (even an empty one) so replay
    /// can tell a whole transaction from a torn one.
    /// `sequence` is the node-wide commit order the coordinator took for it (the same for every
    /// part; 0 when nothing was written).
    Commit {
        txn: TxnId,
        tag: u64,
        reply_to: ReplyTo,
        participants: u16,
        counted: bool,
        sequence: u64,
    },
    Abort {
        txn: TxnId,
        tag: u64,
        reply_to: Option<ReplyTo>,
    },
    /// The next rows of a scan over `partitions`, from `from` on: at most `rows_max` rows and
    /// about `bytes_max` bytes of them.
    Scan {
        tag: u64,
        partitions: Vec<u32>,
        plan: Arc<ScanPlan>,
        /// The transaction whose uncommitted changes the scan sees.
        txn: Option<TxnId>,
        from: ScanPlace,
        rows_max: usize,
        bytes_max: usize,
        reply_to: ReplyTo,
    },
    CreateTables {
        tables: Vec<(Arc<TableDef>, Vec<u32>)>,
        tag: u64,
        reply_to: ReplyTo,
    },
    /// The table gained an ordered index (the last of `table.indexes`): build it.
    AddIndex {
        table: Arc<TableDef>,
        tag: u64,
        reply_to: ReplyTo,
    },
    DropTables {
        ids: Vec<u32>,
        tag: u64,
        reply_to: ReplyTo,
    },
    /// New definitions of tables whose rows stay as they are (a rename, new options, an index
    /// dropped): the first is the base table, which lost its ordered index `dropped_index`
    /// (position in its old definition) when that is set; the partitions of the tables in
    /// `drop` (a dropped unique index's hidden table) go.
    Redefine {
        tables: Vec<Arc<TableDef>>,
        dropped_index: Option<usize>,
        drop: Vec<u32>,
        tag: u64,
        reply_to: ReplyTo,
    },
    /// Fence `conversion.from` (from now on its partitions here take committed reads but no
    /// step that writes or locks, until `EndConversion`), wait until no transaction holds a
    /// lock on it here (at most the lock-wait timeout, else answer `LockWaitTimeout`), then copy
    /// its partitions into new ones of `conversion.to` (ALTER TABLE ADD/DROP COLUMN), log them
    /// as one transaction `txn` with a commit number taken from `sequence` at that moment, fsync
    /// the log, and answer `Converted`.
    Convert {
        conversion: Arc<crate::catalog::Conversion>,
        txn: TxnId,
        sequence: Arc<std::sync::atomic::AtomicU64>,
        tag: u64,
        reply_to: ReplyTo,
    },
    /// The column change ended: when `done`, the old table's partitions go and the hidden
    /// unique-index tables take their new definitions (`hidden`); else the new partitions go
    /// and the old table takes writes again.
    EndConversion {
        conversion: Arc<crate::catalog::Conversion>,
        done: bool,
        hidden: Vec<Arc<TableDef>>,
        tag: u64,
        reply_to: ReplyTo,
    },
    /// Fence `build.from` (as `Convert` does), wait until no transaction holds a lock on it
    /// here, then answer `Collected` with the unique-index entries of its rows here (rows with
    /// a NULL in the key have none), each encoded as a row of `build.hidden` and paired with
    /// the hidden partition it belongs in.
    CollectUnique {
        build: Arc<crate::catalog::UniqueBuild>,
        tag: u64,
        reply_to: ReplyTo,
    },
    /// Create this worker's `partitions` of `build.hidden` and insert `entries` into them
    /// (`DuplicateKey`, naming the key, when two share one), log them as one transaction `txn`
    /// with a commit number taken from `sequence`, fsync, and answer `Converted`.
    FillUnique {
        build: Arc<crate::catalog::UniqueBuild>,
        partitions: Vec<u32>,
        entries: IndexEntries,
        txn: TxnId,
        sequence: Arc<std::sync::atomic::AtomicU64>,
        tag: u64,
        reply_to: ReplyTo,
    },
    /// The unique-index build ended: when `done`, the table's partitions take `build.to` and
    /// index their rows by it; else the hidden partitions go. Either way the table takes
    /// writes again.
    EndUnique {
        build: Arc<crate::catalog::UniqueBuild>,
        done: bool,
        tag: u64,
        reply_to: ReplyTo,
    },
    Status {
        tag: u64,
        reply_to: ReplyTo,
    },
    /// Answer every partition's digest (`Event::Checksums`): to compare replicas.
    Checksums {
        tag: u64,
        reply_to: ReplyTo,
    },
    /// On a primary with backups, before `Commit`: answer with the transaction's row images on
    /// this worker (`Event::Images`), which the backups take first. Its locks stay held.
    Images {
        txn: TxnId,
        tag: u64,
        reply_to: ReplyTo,
        /// The two-phase commit the transaction is part of (`replication::decision_name`):
        /// its decision (false), whose commit record carries the name; or a prepared part
        /// (true), whose images are logged now as a prepared record before they are answered.
        named: Option<(CommitName, bool)>,
    },
    /// On a backup: apply a replicated commit's rows of this worker's partitions, log them as
    /// this worker's part of transaction `txn` (`participants` workers take a part, with
    /// commit number `sequence`), and answer `Finished`. With `copy`, on a starting node, the
    /// rows are copied ones: each is applied unless a replicated commit changed its key since
    /// the copy began.
    Apply {
        changes: Vec<wire::RowChange>,
        txn: TxnId,
        participants: u16,
        sequence: u64,
        tag: u64,
        reply_to: ReplyTo,
        copy: bool,
        /// The two-phase commit it is the decision or a part of, logged with the record.
        name: Option<CommitName>,
    },
    /// Log the rows of a prepared part held here (a backup's `Prepared`, a copy's held parts,
    /// those a restart found) as a prepared record of `name`, without applying them; kept in
    /// the log past checkpoints until a commit or drop record of the name. Answers `Finished`
    /// once written (fsynced in either durability).
    LogPrepared {
        name: CommitName,
        changes: Vec<wire::RowChange>,
        tag: u64,
        reply_to: ReplyTo,
    },
    /// The prepared part `name` was dropped: a drop record, if this worker logged it.
    LogDropped {
        name: CommitName,
    },
    /// A two-phase commit's decision that wrote no rows here: an empty commit record carrying
    /// its name, so a restart knows the decision. Answers `Finished` once written.
    LogDecision {
        name: CommitName,
        tag: u64,
        reply_to: ReplyTo,
    },
    /// On a primary, from a replication link once the backups took a commit's rows: commit
    /// the transaction on every worker it touched (`Commit`, the commit number taken here, on
    /// the coordinator's worker, so a checkpoint's barrier sees it as any other commit). Its
    /// answers go to `reply_to`, whether or not the connection is still there.
    CommitReplicated {
        txn: TxnId,
        touched: u64,
        written: u64,
        tag: u64,
        reply_to: ReplyTo,
        /// The copy generation its rows were counted in (`Role::settled` once the workers
        /// were sent their commit).
        generation: u64,
    },
    /// A commit counted in copy generation `generation` was sent to its workers (this comes
    /// after those messages): `Role::settled`.
    Settled {
        generation: u64,
    },
    /// On a primary, for a copy to a starting node (`crate::copy`): up to `rows_max` rows
    /// (and about `bytes_max` bytes) of partition `partition` of `table` from row slot `from`
    /// on, and the slot the next batch begins at (None: the partition ended), sent to `reply`.
    CopyRead {
        table: u32,
        partition: u32,
        from: u32,
        rows_max: usize,
        bytes_max: usize,
        reply: std::sync::mpsc::Sender<CopiedRows>,
    },
    /// On a starting node, the copy from its primary begins or ends (`CopyPhase`).
    Copying(CopyPhase),
    /// A step of a local checkpoint (`checkpoint.rs`).
    Checkpoint(CheckpointStep),
    /// A newly accepted API connection for this worker to serve.
    Connection(transport::Stream),
    /// An event for the coordinator of one of this worker's connections.
    ToCoordinator {
        connection: usize,
        event: Event,
    },
    Stop,
}

/// One batch of a partition's rows for a copy, and the slot the next begins at (None: done).
pub type CopiedRows = (Vec<wire::RowChange>, Option<u32>);

#[derive(Debug, Default, Clone)]
pub struct WorkerStatus {
    pub rows: u64,
    pub row_bytes: u64,
    /// What the worker's partitions hold (`Partition::memory_bytes`).
    pub memory_bytes: u64,
    /// Per table, what its partitions on this worker hold; a hidden unique-index table's
    /// memory is its base table's index memory.
    pub tables: Vec<wire::TableMemory>,
}

/// What a coordinator receives from workers.
pub enum Event {
    StepsDone {
        tag: u64,
        replies: Vec<StepReply>,
    },
    Finished {
        tag: u64,
    },
    /// A worker copied its partitions for a column change, or filled its part of a unique
    /// index being built, or could not.
    Converted {
        tag: u64,
        result: Result<(), Error>,
    },
    /// A worker's unique-index entries for a build (`CollectUnique`), or why it has none.
    Collected {
        tag: u64,
        entries: Result<IndexEntries, Error>,
    },
    ScanDone {
        tag: u64,
        rows: Result<ScanPart, Error>,
    },
    Status {
        tag: u64,
        status: WorkerStatus,
    },
    /// A worker's partitions' digests: (table, partition, rows, wrapping sum of row CRCs).
    Checksums {
        tag: u64,
        sums: Vec<(u32, u32, u64, u64)>,
    },
    /// A transaction's row images on one worker (`ToWorker::Images`).
    Images {
        tag: u64,
        changes: Vec<wire::RowChange>,
    },
    /// The backups took a commit's rows or a schema change (`replication::Role::replicate`),
    /// with their answers; or why nothing was sent.
    Replicated {
        tag: u64,
        result: Result<Vec<wire::Message>, Error>,
    },
    /// A checkpoint the client asked for (`Message::Checkpoint`) was published, or failed.
    CheckpointDone {
        request_id: u64,
        result: Result<crate::checkpoint::Report, String>,
    },
    /// Whole reply frames a worker built for the connection (direct replies).
    Frames(Vec<u8>),
    /// The global checkpoint's gate opened: the commit parked under `tag` begins now
    /// (`replication::Role::wait_for_gate`).
    GateOpen {
        tag: u64,
    },
    /// An answer to request `request_id` made elsewhere (a global checkpoint step, `gcp`).
    Reply {
        request_id: u64,
        message: Box<wire::Message>,
    },
    /// A step link answered a request sent for `tag` to node group `group` (its steps began at
    /// slot `first_slot`), on the link connection of the generation given; or why it did not.
    Remote {
        tag: u64,
        group: u32,
        first_slot: u32,
        /// Boxed: a message is large, and every event and worker message would be as large.
        result: Box<Result<(u64, wire::Message), Error>>,
    },
}

/// What the checkpointer asks of a worker; answers go back on `reply`.
pub enum CheckpointStep {
    /// Answer with the redo position after every record logged so far.
    Mark {
        reply: std::sync::mpsc::SyncSender<CheckpointReply>,
    },
    /// Answer once everything received before this is processed and its redo written (and,
    /// with `sync`, fsynced).
    Barrier {
        sync: bool,
        reply: std::sync::mpsc::SyncSender<CheckpointReply>,
    },
    /// Write this worker's partitions (all rows, or with `full` false only those changed since
    /// the last checkpoint) as block chunks, then answer `Written`.
    Write {
        full: bool,
        reply: std::sync::mpsc::SyncSender<CheckpointReply>,
    },
    /// A checkpoint covering everything before `upto` is published: older redo segments may
    /// be reused.
    Release { upto: storage::redo::Position },
}

/// A worker's answers to the checkpointer.
pub enum CheckpointReply {
    Position {
        worker: usize,
        position: storage::redo::Position,
    },
    BarrierPassed {
        worker: usize,
    },
    Chunk {
        worker: usize,
        bytes: Vec<u8>,
    },
    Written {
        worker: usize,
        entries: u64,
        blocks: u64,
        directory: storage::checkpoint::Directory,
    },
}

/// A starting node's copy from its primary, as a worker sees it (`ToWorker::Copying`).
pub enum CopyPhase {
    /// From now on keep the keys of replicated commits, so copied rows of those keys are
    /// skipped. `restored`: the node restarted from its own files, so a copied row equal to the
    /// one it holds is not written again, and every row the copy neither brought nor a commit
    /// wrote is deleted when it ends.
    Begin { restored: bool },
    /// The copy ended. A restored node deletes the rows its primary no longer holds, as one
    /// logged transaction of its own (`txn`, `sequence`: numbered by the coordinator); the
    /// last worker to be done says the node caught up (`CopyEnd`).
    End {
        txn: u64,
        sequence: u64,
        end: Arc<CopyEnd>,
    },
}

/// The end of a starting node's copy, shared by its workers: once every one is done with its
/// part (a restored node's deletions), the membership may say the node caught up.
pub struct CopyEnd {
    pub left: std::sync::atomic::AtomicUsize,
    pub role: Arc<crate::replication::Role>,
}

impl CopyEnd {
    /// A worker is done with the copy's end.
    pub fn worker_done(&self) {
        if self.left.fetch_sub(1, std::sync::atomic::Ordering::AcqRel) == 1 {
            self.role.caught_up();
        }
    }
}
