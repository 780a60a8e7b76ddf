//! Messages between a connection's coordinator and the worker threads. In-process only: the
//! coordinator and the workers are roles inside one data node and talk over bounded queues.

use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};

use base::filter::Filter;
use base::{Error, TableDef, Value};
use transport::FrameWriter;
use wire::{LockMode, ScanOrder};

/// A transaction's id inside the data node, unique across connections.
pub type TxnId = u64;

/// What one step of an operation does on the partition that owns its key.
#[derive(Debug)]
pub enum StepKind {
    /// Returns the projected columns (empty projection: all columns).
    Read {
        lock: LockMode,
        projection: Vec<u16>,
    },
    /// Inserts a full row (every column, canonical values).
    Insert {
        row: Vec<Value>,
    },
    /// Sets columns of an existing row.
    Update {
        updates: Vec<(u16, Value)>,
    },
    /// Update with `updates` when the key exists, else insert `row`.
    Write {
        row: Vec<Value>,
        updates: Vec<(u16, Value)>,
    },
    Delete,
}

/// One keyed step, addressed to the worker owning `partition`.
#[derive(Debug)]
pub struct Step {
    /// Which operation of the request this step belongs to.
    pub slot: u32,
    pub table: u32,
    pub partition: u32,
    /// Encoded primary key of the target row.
    pub pk: Vec<u8>,
    pub kind: StepKind,
    /// Return the row's images before and after a write (for unique-index maintenance).
    pub want_images: bool,
}

/// What a step did.
#[derive(Debug)]
pub enum StepOutcome {
    Row(Vec<Value>),
    /// A write: images before (None for an insert) and after (None for a delete), if asked for.
    Written {
        old: Option<Vec<Value>>,
        new: Option<Vec<Value>>,
    },
    NotFound,
}

#[derive(Debug)]
pub struct StepReply {
    pub slot: u32,
    pub result: Result<StepOutcome, Error>,
}

/// A scan as a worker runs it over its partitions of one table.
#[derive(Debug)]
pub struct ScanPlan {
    pub table: Arc<TableDef>,
    /// Ordered index position in `table.indexes`, or None for a full table scan.
    pub index: Option<usize>,
    pub lower: Option<(Vec<Value>, bool)>,
    pub upper: Option<(Vec<Value>, bool)>,
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

/// Where a worker writes the reply of a request it completes alone: committed reads by primary
/// key go from the partition's owner straight to the API connection, as NDB's LQH sends read
/// results to the API without passing through TC.
#[derive(Clone)]
pub struct DirectReply {
    pub writer: Arc<Mutex<FrameWriter>>,
    pub cluster_id: u32,
    pub request_id: u64,
}

/// Requests to a worker thread.
pub enum ToWorker {
    Steps {
        txn: TxnId,
        tag: u64,
        steps: Vec<Step>,
        reply: Sender<Event>,
        direct: Option<DirectReply>,
    },
    Commit {
        txn: TxnId,
        tag: u64,
        reply: Sender<Event>,
    },
    Abort {
        txn: TxnId,
        tag: u64,
        reply: Option<Sender<Event>>,
    },
    Scan {
        tag: u64,
        partitions: Vec<u32>,
        plan: Arc<ScanPlan>,
        reply: Sender<Event>,
    },
    CreateTables {
        tables: Vec<(Arc<TableDef>, Vec<u32>)>,
        reply: Sender<()>,
    },
    DropTables {
        ids: Vec<u32>,
        reply: Sender<()>,
    },
    Status {
        reply: Sender<WorkerStatus>,
    },
    Stop,
}

#[derive(Debug, Default, Clone, Copy)]
pub struct WorkerStatus {
    pub rows: u64,
    pub row_bytes: u64,
}

/// What a coordinator's completion thread receives: replies from workers, and the reader's notice
/// that the connection closed.
pub enum Event {
    Closed(String),
    StepsDone {
        tag: u64,
        replies: Vec<StepReply>,
    },
    Finished {
        tag: u64,
    },
    ScanDone {
        tag: u64,
        rows: Result<Vec<ScannedRow>, Error>,
    },
}
