//! Message bodies of the native protocol, one variant per message type, with their codes.

use crate::codec::{DecodeError, DecodeResult, Reader, Writer};
use crate::frame::{write_frame, FrameHeader};
use base::filter::{CmpOp, Filter};
use base::schema::{ColumnDef, IndexDef, IndexKind, TableDef, TableOptions};
use base::types::{Collation, ColumnType, LobSize};
use base::{limits, Error, ErrorCode, Value};

/// How an execute request ends the transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum ExecType {
    /// Run the operations, keep locks and the transaction open.
    NoCommit = 1,
    /// Run the operations, then commit.
    Commit = 2,
    /// Discard everything the transaction did (operations in this request are not run).
    Rollback = 3,
    /// Undo the changes the request's statement and every later statement made (operations in
    /// this request are not run); the transaction stays open with every lock it holds.
    UndoStatement = 4,
}

/// Lock mode of a read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum LockMode {
    /// The latest committed version, no lock (NDB's dirty/committed read).
    CommittedRead = 1,
    /// Shared lock held to commit.
    Shared = 2,
    /// Exclusive lock held to commit.
    Exclusive = 3,
}

/// What an operation does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    Read(LockMode),
    Insert,
    Update,
    /// Insert, or update when the key exists.
    Write,
    Delete,
    /// Adds a signed amount to integer columns of an existing row (`values`: column and
    /// amount, an Int or UInt), in one round trip: NDB's interpreted increment, HandlerSocket's
    /// `+` and `-`. NULL stays NULL; a result outside the column's range fails the operation.
    Increment,
}

impl OpKind {
    fn code(self) -> u8 {
        match self {
            OpKind::Read(mode) => mode as u8,
            OpKind::Insert => 4,
            OpKind::Update => 5,
            OpKind::Write => 6,
            OpKind::Delete => 7,
            OpKind::Increment => 8,
        }
    }

    fn from_code(code: u8) -> DecodeResult<OpKind> {
        Ok(match code {
            1 => OpKind::Read(LockMode::CommittedRead),
            2 => OpKind::Read(LockMode::Shared),
            3 => OpKind::Read(LockMode::Exclusive),
            4 => OpKind::Insert,
            5 => OpKind::Update,
            6 => OpKind::Write,
            7 => OpKind::Delete,
            8 => OpKind::Increment,
            tag => {
                return Err(DecodeError::BadTag {
                    what: "operation",
                    tag,
                })
            }
        })
    }

    pub fn is_write(self) -> bool {
        !matches!(self, OpKind::Read(_))
    }
}

/// One keyed operation in an execute request.
#[derive(Debug, Clone, PartialEq)]
pub struct Operation {
    pub kind: OpKind,
    pub table: u32,
    /// The version of the table's definition the operation was built against.
    pub version: u32,
    /// None: by primary key; Some(i): by unique index i of the table.
    pub index: Option<u16>,
    /// The key values, one per key column; for an insert, taken from `values` when empty.
    pub key: Vec<Value>,
    /// Column values to write (insert, update, write).
    pub values: Vec<(u16, Value)>,
    /// Columns to return for a read; empty means all visible columns.
    pub projection: Vec<u16>,
}

impl Operation {
    /// A read of the row with `key`: by primary key, or through unique index `index`;
    /// `projection` names the columns returned (empty: all visible columns).
    pub fn read(
        table: u32,
        version: u32,
        index: Option<u16>,
        key: Vec<Value>,
        lock: LockMode,
        projection: Vec<u16>,
    ) -> Operation {
        Operation {
            kind: OpKind::Read(lock),
            table,
            version,
            index,
            key,
            values: Vec::new(),
            projection,
        }
    }
}

/// The outcome of one operation.
#[derive(Debug, Clone, PartialEq)]
pub enum OpResult {
    /// A read found its row: the projected values.
    Row(Vec<Value>),
    /// A write succeeded; carries the AUTO_INCREMENT or hidden key value it assigned, if any.
    Done { assigned: Option<u64> },
    /// No row with that key (not an error: the transaction goes on).
    NotFound,
}

/// The reply to an execute request.
#[derive(Debug, Clone, PartialEq)]
pub enum ExecuteOutcome {
    /// Every operation ran; for Commit, the transaction is committed.
    Ok(Vec<OpResult>),
    /// The transaction was aborted (all its changes undone) because operation `op_index` failed.
    Aborted { op_index: u32, error: Error },
    /// Operation `op_index` of a NoCommit request naming a statement failed: the changes of
    /// that statement were undone, and the transaction stays open with every lock it holds.
    StatementUndone { op_index: u32, error: Error },
}

/// A bound of an ordered-index scan over a prefix of the index columns.
#[derive(Debug, Clone, PartialEq)]
pub struct Bound {
    pub values: Vec<Value>,
    pub inclusive: bool,
}

/// Result order of a scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum ScanOrder {
    /// Whatever order partitions answer in (fastest).
    Any = 0,
    Ascending = 1,
    Descending = 2,
}

/// A table scan or an ordered-index scan with bounds, a filter, a projection and a row limit.
#[derive(Debug, Clone, PartialEq)]
pub struct ScanRequest {
    pub table: u32,
    /// The version of the table's definition the scan was built against.
    pub version: u32,
    /// None: full table scan; Some(i): ordered index i of the table.
    pub index: Option<u16>,
    pub lower: Option<Bound>,
    pub upper: Option<Bound>,
    pub filter: Filter,
    /// Columns to return; empty means all visible columns.
    pub projection: Vec<u16>,
    /// 0 means no limit.
    pub limit: u64,
    pub order: ScanOrder,
    /// The client's handle of a transaction whose changes the scan sees (as it sees committed
    /// rows for the rest); 0: none, committed rows only.
    pub transaction: u64,
    /// Rows and bytes the client takes per batch (0: the data node's default; either is held
    /// to its limit, `base::limits::SCAN_BATCH_ROWS_MAX` and `SCAN_BATCH_BYTES_MAX`). The node
    /// sends one `ScanRows` frame per batch and the next only when asked (`ScanNext`).
    pub batch_rows: u32,
    pub batch_bytes: u32,
}

/// Node status, for tools and benchmarks.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NodeStatus {
    pub node_id: u32,
    pub worker_count: u32,
    pub resident_bytes: u64,
    pub table_count: u32,
    pub row_count: u64,
    /// What the node's rows and indexes hold (its estimate), and its limit (`--data-memory`).
    pub data_memory_bytes: u64,
    pub data_memory_limit: u64,
    /// What each table holds (its unique indexes' hidden tables counted as its index memory).
    pub tables: Vec<TableMemory>,
    /// In a cluster: the epoch of the view the node serves in (the newest it opened: one it
    /// installed and has not opened yet is not counted), its node group's data nodes and the
    /// current view's members among them, the group's primary first (then ascending). Empty
    /// for a data node alone.
    pub view_epoch: u64,
    pub group: Vec<u32>,
    pub members: Vec<u32>,
    /// On a primary: its copies to starting nodes of its group (node restart), running or the
    /// last one done for each node.
    pub copies: Vec<CopyStatus>,
    /// Requests (executes and scans) the node answered as a backup: committed reads of
    /// READ_BACKUP tables.
    pub backup_reads: u64,
    /// Prepared parts of two-phase commits the node holds from its group's previous primary:
    /// as the primary it serves no new transaction until they are resolved.
    pub held_parts: u32,
    /// Prepared parts the node holds as the primary, waiting for their coordinator's second
    /// phase (asked about at the coordinator's group when it is late).
    pub in_doubt: u32,
}

/// A primary's copy of its partitions to a starting node, as it stands.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CopyStatus {
    /// The starting node.
    pub node: u32,
    pub rows: u64,
    pub partitions_done: u32,
    pub partitions: u32,
    /// Since it began (until it ended, for one done).
    pub micros: u64,
    pub done: bool,
}

/// One table's share of a node's data memory.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TableMemory {
    pub id: u32,
    pub rows: u64,
    /// Its rows and their slots.
    pub data_bytes: u64,
    /// Its primary key's hash entries, ordered indexes and unique indexes.
    pub index_bytes: u64,
}

/// What a local checkpoint wrote.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CheckpointInfo {
    pub id: u64,
    /// Whole partitions (true) or only rows changed since the previous checkpoint.
    pub full: bool,
    pub entries: u64,
    pub bytes: u64,
    pub micros: u64,
}

/// Every message of the native protocol.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Hello {
        client_name: String,
        /// A number the client chose at random for this connection (0: none). With the
        /// client's transaction number it names a commit, whose outcome the client may ask any
        /// data node of the cluster after losing the connection (`CommitOutcome`). At most
        /// `CLIENT_SESSION_MAX`: a hello with a larger one is refused.
        session: u64,
    },
    HelloReply {
        node_id: u32,
        worker_count: u32,
        /// The node serves requests now: a data node alone, or its node group's primary in the
        /// cluster's current view. A client given several nodes connects to one that does.
        serving: bool,
        /// The node serves committed reads of READ_BACKUP tables now: a node that serves, or a
        /// backup that is a member of the view with its read lease held (a node copying its
        /// partitions does not). A client may send such reads of its node group's rows here.
        reads: bool,
        /// The node's node group (0-based) and how many the cluster has (a data node alone:
        /// 0 of 1): partition p belongs to group `base::placement::group_of(p, groups)`, so a
        /// client can send a transaction to the primary holding its first row (NDB's hint).
        group: u32,
        groups: u32,
    },
    CreateTable(TableDef),
    /// A table's schema, with the hidden unique-index tables it owns.
    TableInfo {
        table: TableDef,
        index_tables: Vec<TableDef>,
    },
    DropTable {
        name: String,
    },
    GetTable {
        name: String,
    },
    Execute {
        transaction: u64,
        /// 0: a failed operation aborts the transaction. Otherwise the number of the
        /// statement (chosen by the client, per transaction) the operations belong to: a failed
        /// operation of a NoCommit request undoes that statement's changes only
        /// (`ExecuteOutcome::StatementUndone`), and `ExecType::UndoStatement` names the first
        /// statement to undo: it and every later one go.
        statement: u32,
        /// 0: the data node keeps what undoes the latest statement only. Otherwise the oldest
        /// statement an `UndoStatement` may still name (a savepoint's): what undoes it and every
        /// later statement is kept until the transaction ends or an execute raises this.
        keep_from: u32,
        exec: ExecType,
        operations: Vec<Operation>,
    },
    ExecuteReply(ExecuteOutcome),
    Scan(ScanRequest),
    /// One batch of a scan's rows. With FLAG_LAST the scan has ended (the data node holds
    /// nothing of it); without, it stays open for `ScanNext` or `ScanClose` under the same
    /// request id.
    ScanRows {
        rows: Vec<Vec<Value>>,
    },
    /// Sent under an open scan's request id, after its latest batch arrived: the next batch.
    ScanNext,
    /// Sent under an open scan's request id, after its latest batch arrived: ends it now,
    /// answered by an empty `ScanRows` with FLAG_LAST.
    ScanClose,
    Failure(Error),
    Ping {
        payload: Vec<u8>,
    },
    Pong {
        payload: Vec<u8>,
    },
    ListTables,
    TableList {
        names: Vec<String>,
    },
    Status,
    StatusReply(NodeStatus),
    Done,
    /// Write a local checkpoint now; answered when it is published.
    Checkpoint,
    CheckpointReply(CheckpointInfo),
    /// Databases (SQL's schemas): a table of database `d` is named `d/table`. `collation` is
    /// the default its new tables' strings take.
    CreateDatabase {
        name: String,
        collation: Collation,
    },
    /// Sets the default collation of the database's new tables (ALTER DATABASE); its tables
    /// keep theirs. Answered by `Done`.
    AlterDatabase {
        name: String,
        collation: Collation,
    },
    /// Drops the database and every table in it; answered by `Done`.
    DropDatabase {
        name: String,
    },
    /// Answered by `DatabaseList`.
    ListDatabases,
    /// Every database, with its default collation.
    DatabaseList {
        databases: Vec<(String, Collation)>,
    },
    /// Adds an index to an existing table and indexes its rows; answered by `TableInfo` with
    /// the new definition. `version` is the definition `columns` were taken from (another is
    /// `SchemaChanged`). A unique index over rows that share a key fails with `DuplicateKey`
    /// and leaves the table as it was.
    AddIndex {
        table: String,
        version: u32,
        name: String,
        kind: IndexKind,
        columns: Vec<u16>,
        /// Per column, the prefix the index holds (0 the whole value); empty for none.
        prefixes: Vec<u32>,
    },
    /// Changes a table's definition in place; answered by `TableInfo` with the new definition
    /// (its version one more).
    AlterTable {
        table: String,
        change: TableChange,
    },
    /// Opens a replication link: the sender is data node `node_id`, the primary of its node
    /// group in the cluster's view `epoch`. Answered by `HelloReply` (its worker count, which
    /// must be the sender's), or `Failure(NotPrimary)` when the receiver's view is another. Only a data node sends it, and only then `Replicate`
    /// and forwarded schema changes on that connection.
    PeerHello {
        node_id: u32,
        epoch: u64,
    },
    /// A committed transaction's rows, from the primary to a backup of the same node group, on
    /// a connection opened by `PeerHello`: the backup applies and logs them, then answers `Done`
    /// (after its redo is durable when the node's durability says so); a backup whose view is
    /// no longer the hello's answers `Failure(NotPrimary)` and applies nothing. Applying the same rows twice is harmless: the
    /// primary sends again what a lost link may have lost, and holds the rows' locks until the
    /// backups answered, so no later commit of them comes between.
    Replicate {
        /// The commit's name: its client's session and transaction numbers (0, 0: none).
        session: u64,
        transaction: u64,
        changes: Vec<RowChange>,
        /// Not 0: this commit decides the primary's transaction of this number, which wrote in
        /// other node groups too (two-phase commit): the backup records it, so as the group's
        /// primary it can tell those groups how the transaction ended.
        decision: u64,
    },
    /// Asks whether the commit of transaction `transaction` of session `session` took effect:
    /// what a client asks after losing the connection its commit went on. Answered by
    /// `Outcome` on its node group's primary in a cluster (which knows every commit its
    /// predecessor sent it), `Failure(Overloaded)` while that commit is still under way there,
    /// else `Failure(NotPrimary)` or `Failure(BadRequest)` (a data node alone keeps no record).
    CommitOutcome {
        session: u64,
        transaction: u64,
    },
    Outcome {
        committed: bool,
    },
    /// From a primary to a backup, on the replication link: table ids up to `last` are taken
    /// (a schema change that failed on the primary after reserving one), so the backup's next
    /// table gets the same id as the primary's. Answered by `Done`.
    TableIds {
        last: u32,
    },
    /// From a primary to a starting node of its group (node restart), first on the
    /// replication link: the primary's whole catalog, as its catalog file holds it. The
    /// starting node, empty, takes it as its own and creates every table's partitions; then
    /// answers `Done`. Sent again (a new view, a lost link), it is answered without change.
    CopyCatalog {
        catalog: Vec<u8>,
    },
    /// From a primary to a starting node, on the replication link: committed rows of its
    /// partitions, read after every commit the starting node did not take had been applied.
    /// The starting node keeps a row only if no replicated commit changed its key since the
    /// copy began (that commit is newer); answered by `Done`.
    CopyRows {
        changes: Vec<RowChange>,
    },
    /// From a primary to a starting node, after the rows: names of commits (client session and
    /// transaction, or a two-phase commit's decision) the primary recorded lately, which the
    /// starting node remembers as committed, so as a primary it answers `CommitOutcome` for
    /// commits whose rows came by copy. Answered by `Done`.
    CopyNames {
        names: Vec<(u64, u64)>,
    },
    /// From a primary to a starting node, right after its catalog: the primary of each node
    /// group (by group index) in the primary's view `epoch`. A group's primary stays while it is
    /// a member, so it depends on views a restarted node never saw; the starting node takes
    /// these when it is in the same view. Answered by `Done`.
    CopyPrimaries {
        epoch: u64,
        primaries: Vec<(u32, u32)>,
    },
    /// From a primary to a starting node: every partition was copied (`rows` rows). The
    /// starting node answers `Done` and tells the membership it caught up.
    CopyDone {
        rows: u64,
    },
    /// Asks the data node to stop cleanly (`cairn admin stop`), or to stop so that what runs
    /// it starts it again (`restart`: `cairn admin restart`, a rolling restart), from its own
    /// files or (`initial`, with `restart`) empty. Answered by `Done` before it stops.
    Shutdown {
        restart: bool,
        initial: bool,
    },
    /// Opens a step link: the sender is data node `node_id`, coordinating transactions in the
    /// cluster's view `epoch`, and sends steps on partitions of the receiver's node group.
    /// Answered by `HelloReply` when the receiver is its group's primary in that view, else
    /// `Failure(NotPrimary)`. Only a data node sends it, and then only `Steps`, `EndRemote`
    /// and `UndoRemote` on that connection.
    StepHello {
        node_id: u32,
        epoch: u64,
    },
    /// Steps of the sender's transaction `transaction` on partitions of the receiver's group,
    /// run by the receiver's workers under a transaction of the receiver's own (locks, undo,
    /// images) that lives until `EndRemote` or until the link closes (then it is rolled
    /// back). `statement` and `keep_from` as in `Execute`. Answered by `StepsDone`.
    Steps {
        transaction: u64,
        statement: u32,
        keep_from: u32,
        steps: Vec<crate::step::Step>,
    },
    /// What each step did, in any order (matched by slot).
    StepsDone {
        replies: Vec<crate::step::StepReply>,
    },
    /// Ends (or prepares) the sender's transaction `transaction` on the receiver, as `end`
    /// says. Answered by `ExecuteReply`: `Ok` once done, else why not.
    EndRemote {
        transaction: u64,
        end: RemoteEnd,
    },
    /// Undoes the changes statement `statement` and later ones made to the sender's
    /// transaction on the receiver (`ExecType::UndoStatement`). Answered by `Done`.
    UndoRemote {
        transaction: u64,
        statement: u32,
    },
    /// From a primary to its backups, on the replication link: the rows of its part of data
    /// node `coordinator`'s transaction `transaction`, prepared (two-phase commit). The backup
    /// holds them without applying or logging them, until `Resolve`; answered by `Done`.
    Prepared {
        coordinator: u32,
        transaction: u64,
        changes: Vec<RowChange>,
    },
    /// From a primary to its backups: the prepared part of `coordinator`'s transaction
    /// `transaction` committed (the backup applies and logs its rows, `changes`, as a
    /// replicated commit: they are sent again, since a node that started copying after the
    /// prepare holds none) or not (it drops what it holds; `changes` empty). Answered by
    /// `Done`.
    Resolve {
        coordinator: u32,
        transaction: u64,
        commit: bool,
        changes: Vec<RowChange>,
    },
    /// Asks a data node (primary or backup) for a digest of every partition it holds: to
    /// compare the replicas of a node group. Answered by `Checksums`.
    ChecksumsRequest,
    /// Per partition a node holds: its table, partition, rows, and the wrapping sum of each
    /// row's CRC-32C over its stored image (the same on every replica that holds the same
    /// rows, whatever their order).
    Checksums {
        partitions: Vec<(u32, u32, u64, u64)>,
    },
    /// On a step link: the next part of a scan over some of the receiver's `partitions` (all
    /// on one worker), read from `place` on: at most `rows_max` rows and about `bytes_max`
    /// bytes, seeing the changes the sender's transaction `transaction` made there (0: none).
    /// `request` is the client's scan (its table, index, bounds, filter, projection, order).
    /// Answered by `ScanPartRows`.
    ScanPart {
        transaction: u64,
        request: ScanRequest,
        partitions: Vec<u32>,
        place: crate::step::ScanPlace,
        rows_max: u32,
        bytes_max: u32,
    },
    /// A scan part's rows, each with its index key (empty for an unordered scan), and where
    /// the next part begins (None: those partitions are done).
    ScanPartRows {
        rows: Vec<(Vec<u8>, Vec<Value>)>,
        next: Option<crate::step::ScanPlace>,
    },
    /// A step of the cluster's global checkpoint round `round` (`interval` durability): from
    /// the schema master to every node group's primary on its step link, and from a primary to
    /// its member backups on the replication link. Answered by `Done` once the step is done
    /// on the receiver and, on a primary, on its backups.
    Gcp {
        round: u64,
        step: GcpStep,
    },
}

/// The steps of a global checkpoint round, in order (`Message::Gcp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum GcpStep {
    /// Begin no new commit (they wait), and answer once every commit begun here ended.
    Hold = 0,
    /// Nothing commits anywhere now: note the node's commit sequence as the round's cut.
    Cut = 1,
    /// Commit again; make every commit below the round's cut durable, record it, answer.
    Save = 2,
    /// Every node saved the round: it is the one a system restart may restore.
    Saved = 3,
}

/// Commit names in one `CopyNames`.
pub const COPY_NAMES_MAX: usize = 65_536;

/// The largest session number a client may give in its `Hello`: the numbers with the top bit
/// set are the data nodes' own, naming two-phase commits' decisions (a client's number there
/// could be taken for one, and a node of another group would answer for a commit it never saw).
pub const CLIENT_SESSION_MAX: u64 = u64::MAX >> 1;

/// How a coordinator ends its transaction's part on another node group (`Message::EndRemote`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum RemoteEnd {
    /// Roll the part back (a prepared one too).
    Rollback = 0,
    /// Commit the part as the receiver commits its own transactions (the only group that
    /// wrote): its rows go to the group's backups first.
    Commit = 1,
    /// Two-phase commit, first phase: the part's rows go to the group's backups, which hold
    /// them without applying (`Prepared`); its locks stay held until the second phase, or until
    /// the receiver learns how the transaction ended from the coordinator's group.
    Prepare = 2,
    /// Two-phase commit, second phase, once the coordinator's group recorded the commit: the
    /// backups apply the held rows (`Resolve`), then the part commits here. A part not held
    /// (already resolved) answers `Ok`.
    CommitPrepared = 3,
}

/// One row's new image in a replicated commit: its table, partition and encoded primary key,
/// and the row (None: deleted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowChange {
    pub table: u32,
    pub partition: u32,
    pub key: Vec<u8>,
    pub row: Option<Vec<u8>>,
}

impl RowChange {
    /// Bytes the change takes in a `Replicate` body.
    pub fn encoded_bytes(&self) -> usize {
        8 + 4 + self.key.len() + 1 + self.row.as_ref().map_or(0, |r| 4 + r.len())
    }
}

/// A change to an existing table. Only `Columns` moves rows.
#[derive(Debug, Clone, PartialEq)]
pub enum TableChange {
    /// Drops the index with this name (a unique index's hidden table goes with it).
    DropIndex { name: String },
    /// Renames the table (to a name in any database).
    Rename { to: String },
    /// Replaces the table options (NDB_TABLE=... and the default collation) and the comment.
    Options {
        options: TableOptions,
        comment: String,
    },
    /// Replaces the column list (ALTER TABLE ADD/DROP COLUMN): the table's rows are copied into
    /// the new layout, each new column taken from an old one or filled with a value. Columns of
    /// the old list that no new column keeps are dropped (never a key column). `version` is the
    /// definition version the list was built from: the positions it keeps name that
    /// definition's columns, so another version answers `SchemaChanged`.
    Columns {
        version: u32,
        columns: Vec<NewColumn>,
    },
}

/// One column of a `TableChange::Columns` list.
#[derive(Debug, Clone, PartialEq)]
pub struct NewColumn {
    pub column: ColumnDef,
    pub source: ColumnSource,
}

impl NewColumn {
    /// Column `i` of `def`, kept as it is.
    #[allow(
        clippy::indexing_slicing,
        reason = "`i` is the caller's choice among `def`'s columns (tests build changes with it), \
                  never a decoded number; out of range is the caller's bug"
    )]
    pub fn kept(def: &TableDef, i: usize) -> NewColumn {
        NewColumn {
            column: def.columns[i].clone(),
            source: ColumnSource::Kept(i as u16),
        }
    }

    /// Every column of `def`, kept as it is: the list a change starts from.
    pub fn all_kept(def: &TableDef) -> Vec<NewColumn> {
        def.columns
            .iter()
            .enumerate()
            .map(|(i, column)| NewColumn {
                column: column.clone(),
                source: ColumnSource::Kept(i as u16),
            })
            .collect()
    }
}

/// Where a changed table's column takes its values from.
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnSource {
    /// The old column at this position, value unchanged (same type).
    Kept(u16),
    /// Every existing row gets this value (an added column).
    Filled(Value),
}

impl Message {
    /// The message type code carried in the frame header.
    pub fn type_code(&self) -> u16 {
        match self {
            Message::Hello { .. } => 1,
            Message::HelloReply { .. } => 2,
            Message::CreateTable(_) => 3,
            Message::TableInfo { .. } => 4,
            Message::DropTable { .. } => 5,
            Message::GetTable { .. } => 6,
            Message::Execute { .. } => 7,
            Message::ExecuteReply(_) => 8,
            Message::Scan(_) => 9,
            Message::ScanRows { .. } => 10,
            Message::Failure(_) => 11,
            Message::Ping { .. } => 12,
            Message::Pong { .. } => 13,
            Message::ListTables => 14,
            Message::TableList { .. } => 15,
            Message::Status => 16,
            Message::StatusReply(_) => 17,
            Message::Done => 18,
            Message::Checkpoint => 19,
            Message::CheckpointReply(_) => 20,
            Message::CreateDatabase { .. } => 21,
            Message::DropDatabase { .. } => 22,
            Message::ListDatabases => 23,
            Message::AddIndex { .. } => 24,
            Message::AlterTable { .. } => 25,
            Message::DatabaseList { .. } => 26,
            Message::AlterDatabase { .. } => 27,
            Message::PeerHello { .. } => 28,
            Message::Replicate { .. } => 29,
            Message::CommitOutcome { .. } => 30,
            Message::Outcome { .. } => 31,
            Message::TableIds { .. } => 32,
            Message::ScanNext => 33,
            Message::ScanClose => 34,
            Message::CopyCatalog { .. } => 35,
            Message::CopyRows { .. } => 36,
            Message::CopyDone { .. } => 37,
            Message::Shutdown { .. } => 38,
            Message::StepHello { .. } => 39,
            Message::Steps { .. } => 40,
            Message::StepsDone { .. } => 41,
            Message::EndRemote { .. } => 42,
            Message::UndoRemote { .. } => 43,
            Message::ScanPart { .. } => 44,
            Message::ScanPartRows { .. } => 45,
            Message::Prepared { .. } => 46,
            Message::Resolve { .. } => 47,
            Message::ChecksumsRequest => 48,
            Message::Checksums { .. } => 49,
            Message::CopyNames { .. } => 50,
            Message::CopyPrimaries { .. } => 51,
            Message::Gcp { .. } => 52,
        }
    }

    /// Appends this message as one frame.
    pub fn write_frame(&self, out: &mut Vec<u8>, cluster_id: u32, flags: u32, request_id: u64) {
        write_frame(
            out,
            self.type_code(),
            cluster_id,
            flags,
            request_id,
            |body| self.encode_body(body),
        );
    }

    /// Writes the message as the reply to `request_id`, its last frame flagged
    /// [`FLAG_LAST`](crate::frame::FLAG_LAST). An `ExecuteReply` whose results pass
    /// [`REPLY_FRAME_BYTES`] (many rows, or large ones) goes in several frames of whole results,
    /// which the receiver's frame buffer joins; every other message is one frame.
    pub fn write_reply(&self, out: &mut Vec<u8>, cluster_id: u32, request_id: u64) {
        use crate::frame::FLAG_LAST;
        let start = out.len();
        self.write_frame(out, cluster_id, FLAG_LAST, request_id);
        let Message::ExecuteReply(ExecuteOutcome::Ok(results)) = self else {
            return;
        };
        if out.len() - start <= REPLY_FRAME_BYTES {
            return;
        }
        out.truncate(start);
        let mut rest = &results[..];
        while !rest.is_empty() {
            let mut take = 0;
            let mut bytes = 0;
            for r in rest {
                let b = result_bytes(r);
                if take > 0 && bytes + b > REPLY_FRAME_BYTES {
                    break;
                }
                bytes += b;
                take += 1;
            }
            let (chunk, after) = rest.split_at(take);
            let flags = if after.is_empty() { FLAG_LAST } else { 0 };
            write_frame(
                out,
                self.type_code(),
                cluster_id,
                flags,
                request_id,
                |body| put_results(body, chunk),
            );
            rest = after;
        }
    }

    pub fn encode_body(&self, out: &mut Vec<u8>) {
        match self {
            Message::Hello {
                client_name,
                session,
            } => {
                out.put_bytes(client_name.as_bytes());
                out.put_u64(*session);
            }
            Message::CommitOutcome {
                session,
                transaction,
            } => {
                out.put_u64(*session);
                out.put_u64(*transaction);
            }
            Message::Outcome { committed } => out.put_u8(u8::from(*committed)),
            Message::TableIds { last } => out.put_u32(*last),
            Message::CopyCatalog { catalog } => out.put_bytes(catalog),
            Message::CopyRows { changes } => put_changes(out, changes),
            Message::CopyDone { rows } => out.put_u64(*rows),
            Message::Shutdown { restart, initial } => {
                out.put_u8(u8::from(*restart) | (u8::from(*initial) << 1))
            }
            Message::StepHello { node_id, epoch } => {
                out.put_u32(*node_id);
                out.put_u64(*epoch);
            }
            Message::Steps {
                transaction,
                statement,
                keep_from,
                steps,
            } => {
                out.put_u64(*transaction);
                out.put_u32(*statement);
                out.put_u32(*keep_from);
                crate::step::put_steps(out, steps);
            }
            Message::StepsDone { replies } => crate::step::put_step_replies(out, replies),
            Message::EndRemote { transaction, end } => {
                out.put_u64(*transaction);
                out.put_u8(*end as u8);
            }
            Message::Gcp { round, step } => {
                out.put_u64(*round);
                out.put_u8(*step as u8);
            }
            Message::Prepared {
                coordinator,
                transaction,
                changes,
            } => {
                out.put_u32(*coordinator);
                out.put_u64(*transaction);
                put_changes(out, changes);
            }
            Message::Resolve {
                coordinator,
                transaction,
                commit,
                changes,
            } => {
                out.put_u32(*coordinator);
                out.put_u64(*transaction);
                out.put_u8(u8::from(*commit));
                put_changes(out, changes);
            }
            Message::ChecksumsRequest => {}
            Message::CopyPrimaries { epoch, primaries } => {
                out.put_u64(*epoch);
                out.put_u32(primaries.len() as u32);
                for (group, node) in primaries {
                    out.put_u32(*group);
                    out.put_u32(*node);
                }
            }
            Message::CopyNames { names } => {
                out.put_u32(names.len() as u32);
                for (session, transaction) in names {
                    out.put_u64(*session);
                    out.put_u64(*transaction);
                }
            }
            Message::Checksums { partitions } => {
                out.put_u32(partitions.len() as u32);
                for (table, partition, rows, sum) in partitions {
                    out.put_u32(*table);
                    out.put_u32(*partition);
                    out.put_u64(*rows);
                    out.put_u64(*sum);
                }
            }
            Message::UndoRemote {
                transaction,
                statement,
            } => {
                out.put_u64(*transaction);
                out.put_u32(*statement);
            }
            Message::ScanPart {
                transaction,
                request,
                partitions,
                place,
                rows_max,
                bytes_max,
            } => {
                out.put_u64(*transaction);
                put_scan_request(out, request);
                out.put_u32(partitions.len() as u32);
                for p in partitions {
                    out.put_u32(*p);
                }
                crate::step::put_place(out, place);
                out.put_u32(*rows_max);
                out.put_u32(*bytes_max);
            }
            Message::ScanPartRows { rows, next } => {
                out.put_u32(rows.len() as u32);
                for (key, values) in rows {
                    out.put_bytes(key);
                    out.put_values(values);
                }
                match next {
                    None => out.put_u8(0),
                    Some(place) => {
                        out.put_u8(1);
                        crate::step::put_place(out, place);
                    }
                }
            }
            Message::HelloReply {
                node_id,
                worker_count,
                serving,
                reads,
                group,
                groups,
            } => {
                out.put_u32(*node_id);
                out.put_u32(*worker_count);
                out.put_u8(u8::from(*serving) | u8::from(*reads) << 1);
                out.put_u32(*group);
                out.put_u32(*groups);
            }
            Message::CreateTable(t) => put_table(out, t),
            Message::PeerHello { node_id, epoch } => {
                out.put_u32(*node_id);
                out.put_u64(*epoch);
            }
            Message::Replicate {
                session,
                transaction,
                changes,
                decision,
            } => {
                out.put_u64(*session);
                out.put_u64(*transaction);
                put_changes(out, changes);
                out.put_u64(*decision);
            }
            Message::TableInfo {
                table,
                index_tables,
            } => {
                put_table(out, table);
                out.put_u32(index_tables.len() as u32);
                for t in index_tables {
                    put_table(out, t);
                }
            }
            Message::DropTable { name }
            | Message::GetTable { name }
            | Message::DropDatabase { name } => out.put_bytes(name.as_bytes()),
            Message::CreateDatabase { name, collation }
            | Message::AlterDatabase { name, collation } => {
                out.put_bytes(name.as_bytes());
                out.put_u8(*collation as u8);
            }
            Message::DatabaseList { databases } => {
                out.put_u32(databases.len() as u32);
                for (name, collation) in databases {
                    out.put_bytes(name.as_bytes());
                    out.put_u8(*collation as u8);
                }
            }
            Message::AddIndex {
                table,
                version,
                name,
                kind,
                columns,
                prefixes,
            } => {
                out.put_bytes(table.as_bytes());
                out.put_u32(*version);
                out.put_bytes(name.as_bytes());
                put_index_columns(out, *kind, columns, prefixes);
            }
            Message::AlterTable { table, change } => {
                out.put_bytes(table.as_bytes());
                match change {
                    TableChange::DropIndex { name } => {
                        out.put_u8(1);
                        out.put_bytes(name.as_bytes());
                    }
                    TableChange::Rename { to } => {
                        out.put_u8(2);
                        out.put_bytes(to.as_bytes());
                    }
                    TableChange::Options { options, comment } => {
                        out.put_u8(3);
                        put_options(out, options);
                        out.put_bytes(comment.as_bytes());
                    }
                    TableChange::Columns { version, columns } => {
                        out.put_u8(4);
                        out.put_u32(*version);
                        out.put_u32(columns.len() as u32);
                        for c in columns {
                            put_column(out, &c.column);
                            match &c.source {
                                ColumnSource::Kept(position) => {
                                    out.put_u8(1);
                                    out.put_u16(*position);
                                }
                                ColumnSource::Filled(value) => {
                                    out.put_u8(2);
                                    out.put_value(value);
                                }
                            }
                        }
                    }
                }
            }
            Message::Execute {
                transaction,
                statement,
                keep_from,
                exec,
                operations,
            } => {
                out.put_u64(*transaction);
                out.put_u32(*statement);
                out.put_u32(*keep_from);
                out.put_u8(*exec as u8);
                out.put_u32(operations.len() as u32);
                for op in operations {
                    out.put_u8(op.kind.code());
                    out.put_u32(op.table);
                    out.put_u32(op.version);
                    out.put_u16(op.index.map_or(u16::MAX, |i| i));
                    out.put_values(&op.key);
                    out.put_u32(op.values.len() as u32);
                    for (c, v) in &op.values {
                        out.put_u16(*c);
                        out.put_value(v);
                    }
                    out.put_u16s(&op.projection);
                }
            }
            Message::ExecuteReply(outcome) => match outcome {
                ExecuteOutcome::Ok(results) => put_results(out, results),
                ExecuteOutcome::Aborted { op_index, error } => {
                    out.put_u8(1);
                    out.put_u32(*op_index);
                    put_error(out, error);
                }
                ExecuteOutcome::StatementUndone { op_index, error } => {
                    out.put_u8(2);
                    out.put_u32(*op_index);
                    put_error(out, error);
                }
            },
            Message::Scan(s) => put_scan_request(out, s),
            Message::ScanRows { rows } => {
                out.put_u32(rows.len() as u32);
                for r in rows {
                    out.put_values(r);
                }
            }
            Message::Failure(e) => put_error(out, e),
            Message::Ping { payload } | Message::Pong { payload } => out.put_bytes(payload),
            Message::ListTables
            | Message::ListDatabases
            | Message::Status
            | Message::Done
            | Message::Checkpoint
            | Message::ScanNext
            | Message::ScanClose => {}
            Message::CheckpointReply(c) => {
                out.put_u64(c.id);
                out.put_u8(c.full as u8);
                out.put_u64(c.entries);
                out.put_u64(c.bytes);
                out.put_u64(c.micros);
            }
            Message::TableList { names } => {
                out.put_u32(names.len() as u32);
                for n in names {
                    out.put_bytes(n.as_bytes());
                }
            }
            Message::StatusReply(s) => {
                out.put_u32(s.node_id);
                out.put_u32(s.worker_count);
                out.put_u64(s.resident_bytes);
                out.put_u32(s.table_count);
                out.put_u64(s.row_count);
                out.put_u64(s.data_memory_bytes);
                out.put_u64(s.data_memory_limit);
                out.put_u32(s.tables.len() as u32);
                for t in &s.tables {
                    out.put_u32(t.id);
                    out.put_u64(t.rows);
                    out.put_u64(t.data_bytes);
                    out.put_u64(t.index_bytes);
                }
                out.put_u64(s.view_epoch);
                for list in [&s.group, &s.members] {
                    out.put_u32(list.len() as u32);
                    for n in list {
                        out.put_u32(*n);
                    }
                }
                out.put_u32(s.copies.len() as u32);
                for c in &s.copies {
                    out.put_u32(c.node);
                    out.put_u64(c.rows);
                    out.put_u32(c.partitions_done);
                    out.put_u32(c.partitions);
                    out.put_u64(c.micros);
                    out.put_u8(u8::from(c.done));
                }
                out.put_u64(s.backup_reads);
                out.put_u32(s.held_parts);
                out.put_u32(s.in_doubt);
            }
        }
    }

    /// Decodes a body of the type named in `header`; fails on any malformation or trailing byte.
    pub fn decode(header: &FrameHeader, body: &[u8]) -> DecodeResult<Message> {
        let mut r = Reader::new(body);
        let name = |r: &mut Reader| r.string("name", limits::WIRE_NAME_BYTES_MAX);
        let message = match header.message_type {
            1 => Message::Hello {
                client_name: r.string("client name", limits::CLIENT_NAME_BYTES_MAX)?,
                session: r.u64()?,
            },
            30 => Message::CommitOutcome {
                session: r.u64()?,
                transaction: r.u64()?,
            },
            39 => Message::StepHello {
                node_id: r.u32()?,
                epoch: r.u64()?,
            },
            40 => Message::Steps {
                transaction: r.u64()?,
                statement: r.u32()?,
                keep_from: r.u32()?,
                steps: crate::step::get_steps(&mut r)?,
            },
            41 => Message::StepsDone {
                replies: crate::step::get_step_replies(&mut r)?,
            },
            42 => Message::EndRemote {
                transaction: r.u64()?,
                end: match r.u8()? {
                    0 => RemoteEnd::Rollback,
                    1 => RemoteEnd::Commit,
                    2 => RemoteEnd::Prepare,
                    3 => RemoteEnd::CommitPrepared,
                    tag => {
                        return Err(DecodeError::BadTag {
                            what: "remote end",
                            tag,
                        })
                    }
                },
            },
            48 => Message::ChecksumsRequest,
            52 => Message::Gcp {
                round: r.u64()?,
                step: match r.u8()? {
                    0 => GcpStep::Hold,
                    1 => GcpStep::Cut,
                    2 => GcpStep::Save,
                    3 => GcpStep::Saved,
                    tag => {
                        return Err(DecodeError::BadTag {
                            what: "global checkpoint step",
                            tag,
                        })
                    }
                },
            },
            51 => {
                let epoch = r.u64()?;
                let n = r.count("node groups", NODE_GROUPS_MAX, 8)?;
                Message::CopyPrimaries {
                    epoch,
                    primaries: (0..n)
                        .map(|_| Ok((r.u32()?, r.u32()?)))
                        .collect::<DecodeResult<_>>()?,
                }
            }
            50 => {
                let n = r.count("commit names", COPY_NAMES_MAX, 16)?;
                Message::CopyNames {
                    names: (0..n)
                        .map(|_| Ok((r.u64()?, r.u64()?)))
                        .collect::<DecodeResult<_>>()?,
                }
            }
            49 => {
                let n = r.count(
                    "partitions",
                    limits::TABLES_MAX * limits::PARTITIONS_MAX as usize,
                    24,
                )?;
                Message::Checksums {
                    partitions: (0..n)
                        .map(|_| Ok((r.u32()?, r.u32()?, r.u64()?, r.u64()?)))
                        .collect::<DecodeResult<_>>()?,
                }
            }
            46 => Message::Prepared {
                coordinator: r.u32()?,
                transaction: r.u64()?,
                changes: get_changes(&mut r)?,
            },
            47 => Message::Resolve {
                coordinator: r.u32()?,
                transaction: r.u64()?,
                commit: match r.u8()? {
                    0 => false,
                    1 => true,
                    tag => {
                        return Err(DecodeError::BadTag {
                            what: "resolve flag",
                            tag,
                        })
                    }
                },
                changes: get_changes(&mut r)?,
            },
            43 => Message::UndoRemote {
                transaction: r.u64()?,
                statement: r.u32()?,
            },
            44 => Message::ScanPart {
                transaction: r.u64()?,
                request: get_scan_request(&mut r)?,
                partitions: {
                    let n = r.count("partitions", limits::PARTITIONS_MAX as usize, 4)?;
                    (0..n).map(|_| r.u32()).collect::<DecodeResult<_>>()?
                },
                place: crate::step::get_place(&mut r)?,
                rows_max: r.u32()?,
                bytes_max: r.u32()?,
            },
            45 => {
                let n = r.count("rows", limits::SCAN_BATCH_ROWS_MAX, 8)?;
                let rows = (0..n)
                    .map(|_| {
                        Ok((
                            r.bytes("index key", 2 * limits::KEY_BYTES_MAX)?.to_vec(),
                            r.values(limits::COLUMNS_MAX)?,
                        ))
                    })
                    .collect::<DecodeResult<_>>()?;
                let next = match r.u8()? {
                    0 => None,
                    1 => Some(crate::step::get_place(&mut r)?),
                    tag => {
                        return Err(DecodeError::BadTag {
                            what: "next place",
                            tag,
                        })
                    }
                };
                Message::ScanPartRows { rows, next }
            }
            31 => Message::Outcome {
                committed: r.u8()? != 0,
            },
            32 => Message::TableIds { last: r.u32()? },
            33 => Message::ScanNext,
            34 => Message::ScanClose,
            35 => Message::CopyCatalog {
                catalog: r
                    .bytes("catalog", limits::FRAME_BODY_BYTES_MAX as usize)?
                    .to_vec(),
            },
            36 => Message::CopyRows {
                changes: get_changes(&mut r)?,
            },
            37 => Message::CopyDone { rows: r.u64()? },
            38 => {
                let how = r.u8()?;
                if how > 3 {
                    return Err(DecodeError::BadTag {
                        what: "shutdown flags",
                        tag: how,
                    });
                }
                Message::Shutdown {
                    restart: how & 1 != 0,
                    initial: how & 2 != 0,
                }
            }
            2 => {
                let node_id = r.u32()?;
                let worker_count = r.u32()?;
                let flags = r.u8()?;
                Message::HelloReply {
                    node_id,
                    worker_count,
                    serving: flags & 1 != 0,
                    reads: flags & 2 != 0,
                    group: r.u32()?,
                    groups: r.u32()?,
                }
            }
            3 => Message::CreateTable(get_table(&mut r)?),
            4 => {
                let table = get_table(&mut r)?;
                let n = r.count("index tables", limits::INDEXES_MAX, 8)?;
                let index_tables = (0..n)
                    .map(|_| get_table(&mut r))
                    .collect::<DecodeResult<_>>()?;
                Message::TableInfo {
                    table,
                    index_tables,
                }
            }
            5 => Message::DropTable {
                name: name(&mut r)?,
            },
            6 => Message::GetTable {
                name: name(&mut r)?,
            },
            21 => Message::CreateDatabase {
                name: name(&mut r)?,
                collation: get_collation(&mut r)?,
            },
            22 => Message::DropDatabase {
                name: name(&mut r)?,
            },
            27 => Message::AlterDatabase {
                name: name(&mut r)?,
                collation: get_collation(&mut r)?,
            },
            28 => Message::PeerHello {
                node_id: r.u32()?,
                epoch: r.u64()?,
            },
            29 => {
                let session = r.u64()?;
                let transaction = r.u64()?;
                Message::Replicate {
                    session,
                    transaction,
                    changes: get_changes(&mut r)?,
                    decision: r.u64()?,
                }
            }
            23 => Message::ListDatabases,
            26 => {
                let n = r.count("databases", limits::TABLES_MAX, 5)?;
                let databases = (0..n)
                    .map(|_| Ok((name(&mut r)?, get_collation(&mut r)?)))
                    .collect::<DecodeResult<_>>()?;
                Message::DatabaseList { databases }
            }
            24 => {
                let (table, version, name) = (name(&mut r)?, r.u32()?, name(&mut r)?);
                let (kind, columns, prefixes) = get_index_columns(&mut r)?;
                Message::AddIndex {
                    table,
                    version,
                    name,
                    kind,
                    columns,
                    prefixes,
                }
            }
            25 => {
                let table = name(&mut r)?;
                let change = match r.u8()? {
                    1 => TableChange::DropIndex {
                        name: name(&mut r)?,
                    },
                    2 => TableChange::Rename { to: name(&mut r)? },
                    3 => TableChange::Options {
                        options: get_options(&mut r)?,
                        comment: r.string("table comment", limits::TABLE_COMMENT_BYTES_MAX)?,
                    },
                    4 => {
                        let version = r.u32()?;
                        let n = r.count("columns", limits::COLUMNS_MAX, 17)?;
                        let mut columns = Vec::with_capacity(n);
                        for _ in 0..n {
                            let column = get_column(&mut r)?;
                            let source = match r.u8()? {
                                1 => ColumnSource::Kept(r.u16()?),
                                2 => ColumnSource::Filled(r.value()?),
                                tag => {
                                    return Err(DecodeError::BadTag {
                                        what: "column source",
                                        tag,
                                    })
                                }
                            };
                            columns.push(NewColumn { column, source });
                        }
                        TableChange::Columns { version, columns }
                    }
                    tag => {
                        return Err(DecodeError::BadTag {
                            what: "table change",
                            tag,
                        })
                    }
                };
                Message::AlterTable { table, change }
            }
            7 => {
                let transaction = r.u64()?;
                let statement = r.u32()?;
                let keep_from = r.u32()?;
                let exec = match r.u8()? {
                    1 => ExecType::NoCommit,
                    2 => ExecType::Commit,
                    3 => ExecType::Rollback,
                    4 => ExecType::UndoStatement,
                    tag => {
                        return Err(DecodeError::BadTag {
                            what: "exec type",
                            tag,
                        })
                    }
                };
                let n = r.count("operations", limits::BATCH_OPERATIONS_MAX, 16)?;
                let mut operations = Vec::with_capacity(n);
                for _ in 0..n {
                    let kind = OpKind::from_code(r.u8()?)?;
                    let table = r.u32()?;
                    let version = r.u32()?;
                    let index = match r.u16()? {
                        u16::MAX => None,
                        i => Some(i),
                    };
                    let key = r.values(limits::KEY_COLUMNS_MAX)?;
                    let nv = r.count("operation values", limits::COLUMNS_MAX, 3)?;
                    let mut values = Vec::with_capacity(nv);
                    for _ in 0..nv {
                        let c = r.u16()?;
                        values.push((c, r.value()?));
                    }
                    let projection = r.u16s("projection", limits::COLUMNS_MAX)?;
                    operations.push(Operation {
                        kind,
                        table,
                        version,
                        index,
                        key,
                        values,
                        projection,
                    });
                }
                Message::Execute {
                    transaction,
                    statement,
                    keep_from,
                    exec,
                    operations,
                }
            }
            8 => match r.u8()? {
                0 => {
                    let n = r.count("results", limits::BATCH_OPERATIONS_MAX, 1)?;
                    let mut results = Vec::with_capacity(n);
                    for _ in 0..n {
                        results.push(match r.u8()? {
                            1 => OpResult::Row(r.values(limits::COLUMNS_MAX)?),
                            2 => {
                                let some = r.u8()? != 0;
                                let v = r.u64()?;
                                OpResult::Done {
                                    assigned: some.then_some(v),
                                }
                            }
                            3 => OpResult::NotFound,
                            tag => {
                                return Err(DecodeError::BadTag {
                                    what: "result",
                                    tag,
                                })
                            }
                        });
                    }
                    Message::ExecuteReply(ExecuteOutcome::Ok(results))
                }
                1 => {
                    let op_index = r.u32()?;
                    Message::ExecuteReply(ExecuteOutcome::Aborted {
                        op_index,
                        error: get_error(&mut r)?,
                    })
                }
                2 => {
                    let op_index = r.u32()?;
                    Message::ExecuteReply(ExecuteOutcome::StatementUndone {
                        op_index,
                        error: get_error(&mut r)?,
                    })
                }
                tag => {
                    return Err(DecodeError::BadTag {
                        what: "execute outcome",
                        tag,
                    })
                }
            },
            9 => Message::Scan(get_scan_request(&mut r)?),
            10 => {
                let n = r.count("rows", limits::SCAN_BATCH_ROWS_MAX, 4)?;
                let rows = (0..n)
                    .map(|_| r.values(limits::COLUMNS_MAX))
                    .collect::<DecodeResult<_>>()?;
                Message::ScanRows { rows }
            }
            11 => Message::Failure(get_error(&mut r)?),
            12 => Message::Ping {
                payload: r
                    .bytes("ping", limits::FRAME_BODY_BYTES_MAX as usize)?
                    .to_vec(),
            },
            13 => Message::Pong {
                payload: r
                    .bytes("pong", limits::FRAME_BODY_BYTES_MAX as usize)?
                    .to_vec(),
            },
            14 => Message::ListTables,
            15 => {
                let n = r.count("table names", limits::TABLES_MAX, 4)?;
                let names = (0..n).map(|_| name(&mut r)).collect::<DecodeResult<_>>()?;
                Message::TableList { names }
            }
            16 => Message::Status,
            17 => Message::StatusReply(NodeStatus {
                node_id: r.u32()?,
                worker_count: r.u32()?,
                resident_bytes: r.u64()?,
                table_count: r.u32()?,
                row_count: r.u64()?,
                data_memory_bytes: r.u64()?,
                data_memory_limit: r.u64()?,
                tables: {
                    let n = r.count("tables", limits::TABLES_MAX, 28)?;
                    (0..n)
                        .map(|_| {
                            Ok(TableMemory {
                                id: r.u32()?,
                                rows: r.u64()?,
                                data_bytes: r.u64()?,
                                index_bytes: r.u64()?,
                            })
                        })
                        .collect::<DecodeResult<_>>()?
                },
                view_epoch: r.u64()?,
                group: node_ids(&mut r)?,
                members: node_ids(&mut r)?,
                copies: {
                    let n = r.count("copies", GROUP_NODES_MAX, 29)?;
                    (0..n)
                        .map(|_| {
                            Ok(CopyStatus {
                                node: r.u32()?,
                                rows: r.u64()?,
                                partitions_done: r.u32()?,
                                partitions: r.u32()?,
                                micros: r.u64()?,
                                done: r.u8()? != 0,
                            })
                        })
                        .collect::<DecodeResult<_>>()?
                },
                backup_reads: r.u64()?,
                held_parts: r.u32()?,
                in_doubt: r.u32()?,
            }),
            18 => Message::Done,
            19 => Message::Checkpoint,
            20 => Message::CheckpointReply(CheckpointInfo {
                id: r.u64()?,
                full: r.u8()? != 0,
                entries: r.u64()?,
                bytes: r.u64()?,
                micros: r.u64()?,
            }),
            other => return Err(DecodeError::UnknownMessage(other)),
        };
        r.finish()?;
        Ok(message)
    }
}

pub(crate) fn put_scan_request(out: &mut Vec<u8>, s: &ScanRequest) {
    out.put_u32(s.table);
    out.put_u32(s.version);
    out.put_u16(s.index.map_or(u16::MAX, |i| i));
    put_bound(out, &s.lower);
    put_bound(out, &s.upper);
    put_filter(out, &s.filter);
    out.put_u16s(&s.projection);
    out.put_u64(s.limit);
    out.put_u8(s.order as u8);
    out.put_u64(s.transaction);
    out.put_u32(s.batch_rows);
    out.put_u32(s.batch_bytes);
}

pub(crate) fn get_scan_request(r: &mut Reader) -> DecodeResult<ScanRequest> {
    let table = r.u32()?;
    let version = r.u32()?;
    let index = match r.u16()? {
        u16::MAX => None,
        i => Some(i),
    };
    let lower = get_bound(r)?;
    let upper = get_bound(r)?;
    let filter = get_filter(r, 0)?;
    let projection = r.u16s("projection", limits::COLUMNS_MAX)?;
    let limit = r.u64()?;
    let order = match r.u8()? {
        0 => ScanOrder::Any,
        1 => ScanOrder::Ascending,
        2 => ScanOrder::Descending,
        tag => {
            return Err(DecodeError::BadTag {
                what: "scan order",
                tag,
            })
        }
    };
    Ok(ScanRequest {
        table,
        version,
        index,
        lower,
        upper,
        filter,
        projection,
        limit,
        order,
        transaction: r.u64()?,
        batch_rows: r.u32()?,
        batch_bytes: r.u32()?,
    })
}

pub(crate) fn put_error(out: &mut Vec<u8>, e: &Error) {
    out.put_u16(e.code as u16);
    // Cut long messages at a character boundary so the peer's decoder limit always holds.
    let mut end = e.message.len().min(limits::ERROR_MESSAGE_BYTES_MAX);
    while !e.message.is_char_boundary(end) {
        end -= 1;
    }
    // `end` is a char boundary within the message, so the cut is always there.
    out.put_bytes(e.message.get(..end).unwrap_or_default().as_bytes());
}

pub(crate) fn get_error(r: &mut Reader) -> DecodeResult<Error> {
    let code = r.u16()?;
    let message = r.string("error message", limits::ERROR_MESSAGE_BYTES_MAX)?;
    Ok(Error::new(
        ErrorCode::from_u16(code).unwrap_or(ErrorCode::Internal),
        message,
    ))
}

fn put_bound(out: &mut Vec<u8>, b: &Option<Bound>) {
    match b {
        None => out.put_u8(0),
        Some(b) => {
            out.put_u8(if b.inclusive { 1 } else { 2 });
            out.put_values(&b.values);
        }
    }
}

fn get_bound(r: &mut Reader) -> DecodeResult<Option<Bound>> {
    Ok(match r.u8()? {
        0 => None,
        tag @ (1 | 2) => Some(Bound {
            inclusive: tag == 1,
            values: r.values(limits::KEY_COLUMNS_MAX)?,
        }),
        tag => return Err(DecodeError::BadTag { what: "bound", tag }),
    })
}

fn put_filter(out: &mut Vec<u8>, f: &Filter) {
    match f {
        Filter::True => out.put_u8(0),
        Filter::Cmp { column, op, value } => {
            out.put_u8(1);
            out.put_u16(*column);
            out.put_u8(*op as u8);
            out.put_value(value);
        }
        Filter::IsNull { column } => {
            out.put_u8(2);
            out.put_u16(*column);
        }
        Filter::IsNotNull { column } => {
            out.put_u8(3);
            out.put_u16(*column);
        }
        Filter::Like { column, pattern } => {
            out.put_u8(4);
            out.put_u16(*column);
            out.put_bytes(pattern);
        }
        Filter::In { column, values } => {
            out.put_u8(5);
            out.put_u16(*column);
            out.put_values(values);
        }
        Filter::Between { column, low, high } => {
            out.put_u8(6);
            out.put_u16(*column);
            out.put_value(low);
            out.put_value(high);
        }
        Filter::And(list) | Filter::Or(list) => {
            out.put_u8(if matches!(f, Filter::And(_)) { 7 } else { 8 });
            out.put_u32(list.len() as u32);
            for x in list {
                put_filter(out, x);
            }
        }
        Filter::Not(inner) => {
            out.put_u8(9);
            put_filter(out, inner);
        }
    }
}

fn get_filter(r: &mut Reader, depth: usize) -> DecodeResult<Filter> {
    if depth > limits::FILTER_DEPTH_MAX {
        return Err(DecodeError::TooDeep(limits::FILTER_DEPTH_MAX));
    }
    Ok(match r.u8()? {
        0 => Filter::True,
        1 => {
            let column = r.u16()?;
            let tag = r.u8()?;
            let op = CmpOp::from_u8(tag).ok_or(DecodeError::BadTag {
                what: "comparison",
                tag,
            })?;
            Filter::Cmp {
                column,
                op,
                value: r.value()?,
            }
        }
        2 => Filter::IsNull { column: r.u16()? },
        3 => Filter::IsNotNull { column: r.u16()? },
        4 => Filter::Like {
            column: r.u16()?,
            pattern: r.bytes("LIKE pattern", limits::VARCHAR_BYTES_MAX)?.to_vec(),
        },
        5 => Filter::In {
            column: r.u16()?,
            values: r.values(limits::FILTER_IN_VALUES_MAX)?,
        },
        6 => Filter::Between {
            column: r.u16()?,
            low: r.value()?,
            high: r.value()?,
        },
        tag @ (7 | 8) => {
            let n = r.count("filter list", limits::FILTER_NODES_MAX, 1)?;
            let list = (0..n)
                .map(|_| get_filter(r, depth + 1))
                .collect::<DecodeResult<Vec<_>>>()?;
            if tag == 7 {
                Filter::And(list)
            } else {
                Filter::Or(list)
            }
        }
        9 => Filter::Not(Box::new(get_filter(r, depth + 1)?)),
        tag => {
            return Err(DecodeError::BadTag {
                what: "filter",
                tag,
            })
        }
    })
}

fn put_type(out: &mut Vec<u8>, ty: ColumnType) {
    let (tag, a, b, length): (u8, u8, u8, u32) = match ty {
        ColumnType::TinyInt { unsigned } => (1, unsigned as u8, 0, 0),
        ColumnType::SmallInt { unsigned } => (2, unsigned as u8, 0, 0),
        ColumnType::MediumInt { unsigned } => (3, unsigned as u8, 0, 0),
        ColumnType::Int { unsigned } => (4, unsigned as u8, 0, 0),
        ColumnType::BigInt { unsigned } => (5, unsigned as u8, 0, 0),
        ColumnType::Float => (6, 0, 0, 0),
        ColumnType::Double => (7, 0, 0, 0),
        ColumnType::Decimal { precision, scale } => (8, precision, scale, 0),
        ColumnType::Char { length } => (9, 0, 0, length),
        ColumnType::VarChar { length } => (10, 0, 0, length),
        ColumnType::Binary { length } => (11, 0, 0, length),
        ColumnType::VarBinary { length } => (12, 0, 0, length),
        ColumnType::Text { size } => (13, lob_size_tag(size), 0, 0),
        ColumnType::Blob { size } => (14, lob_size_tag(size), 0, 0),
        ColumnType::Date => (15, 0, 0, 0),
        ColumnType::DateTime { fsp } => (16, fsp, 0, 0),
        ColumnType::Timestamp { fsp } => (17, fsp, 0, 0),
        ColumnType::Time { fsp } => (18, fsp, 0, 0),
        ColumnType::Year => (19, 0, 0, 0),
        ColumnType::Bit { width } => (20, width, 0, 0),
        ColumnType::Enum => (21, 0, 0, 0),
        ColumnType::Set => (22, 0, 0, 0),
    };
    out.extend_from_slice(&[tag, a, b]);
    out.put_u32(length);
}

fn get_type(r: &mut Reader) -> DecodeResult<ColumnType> {
    let (tag, a, b, length) = (r.u8()?, r.u8()?, r.u8()?, r.u32()?);
    let unsigned = a != 0;
    Ok(match tag {
        1 => ColumnType::TinyInt { unsigned },
        2 => ColumnType::SmallInt { unsigned },
        3 => ColumnType::MediumInt { unsigned },
        4 => ColumnType::Int { unsigned },
        5 => ColumnType::BigInt { unsigned },
        6 => ColumnType::Float,
        7 => ColumnType::Double,
        8 => ColumnType::Decimal {
            precision: a,
            scale: b,
        },
        9 => ColumnType::Char { length },
        10 => ColumnType::VarChar { length },
        11 => ColumnType::Binary { length },
        12 => ColumnType::VarBinary { length },
        13 => ColumnType::Text { size: lob_size(a)? },
        14 => ColumnType::Blob { size: lob_size(a)? },
        15 => ColumnType::Date,
        16 => ColumnType::DateTime { fsp: a },
        17 => ColumnType::Timestamp { fsp: a },
        18 => ColumnType::Time { fsp: a },
        19 => ColumnType::Year,
        20 if (1..=64).contains(&a) => ColumnType::Bit { width: a },
        20 => {
            return Err(DecodeError::BadTag {
                what: "bit width",
                tag: a,
            })
        }
        21 => ColumnType::Enum,
        22 => ColumnType::Set,
        tag => {
            return Err(DecodeError::BadTag {
                what: "column type",
                tag,
            })
        }
    })
}

/// Bytes of results one `ExecuteReply` frame carries before the reply goes on in another: well
/// under the frame limit, which one result (a row of at most `ROW_BYTES_MAX`) stays within.
pub const REPLY_FRAME_BYTES: usize = 8 << 20;

/// The most data nodes a node group lists (NDB's most replicas).
pub const GROUP_NODES_MAX: usize = 4;
/// Node groups in one `CopyPrimaries` (data node ids are one byte).
pub const NODE_GROUPS_MAX: usize = 256;

fn node_ids(r: &mut Reader) -> DecodeResult<Vec<u32>> {
    let n = r.count("node group", GROUP_NODES_MAX, 4)?;
    (0..n).map(|_| r.u32()).collect()
}

/// Writes the rows of a `Replicate` or `CopyRows`.
fn put_changes(out: &mut Vec<u8>, changes: &[RowChange]) {
    out.put_u32(changes.len() as u32);
    for c in changes {
        out.put_u32(c.table);
        out.put_u32(c.partition);
        out.put_bytes(&c.key);
        match &c.row {
            None => out.put_u8(0),
            Some(row) => {
                out.put_u8(1);
                out.put_bytes(row);
            }
        }
    }
}

/// Reads the rows of a `Replicate` or `CopyRows`, each checked against its limit.
fn get_changes(r: &mut Reader) -> DecodeResult<Vec<RowChange>> {
    // Table, partition, key length and presence: 13 bytes at least.
    let n = r.count("replicated rows", REPLICATED_ROWS_MAX, 13)?;
    let mut changes = Vec::with_capacity(n);
    for _ in 0..n {
        let table = r.u32()?;
        let partition = r.u32()?;
        let key = r.bytes("replicated key", limits::KEY_BYTES_MAX)?.to_vec();
        let row = match r.u8()? {
            0 => None,
            1 => Some(r.bytes("replicated row", limits::ROW_BYTES_MAX)?.to_vec()),
            other => {
                return Err(DecodeError::BadTag {
                    what: "replicated row",
                    tag: other,
                })
            }
        };
        changes.push(RowChange {
            table,
            partition,
            key,
            row,
        });
    }
    Ok(changes)
}

/// The most rows one `Replicate` may carry (a transaction's operations are bounded far below).
pub const REPLICATED_ROWS_MAX: usize = 1 << 20;

/// An `ExecuteOutcome::Ok`'s body: the outcome's tag and its results.
fn put_results(out: &mut Vec<u8>, results: &[OpResult]) {
    out.put_u8(0);
    out.put_u32(results.len() as u32);
    for r in results {
        match r {
            OpResult::Row(values) => {
                out.put_u8(1);
                out.put_values(values);
            }
            OpResult::Done { assigned } => {
                out.put_u8(2);
                out.put_u8(u8::from(assigned.is_some()));
                out.put_u64(assigned.unwrap_or(0));
            }
            OpResult::NotFound => out.put_u8(3),
        }
    }
}

/// The most bytes `put_results` writes for one result.
pub fn result_bytes(r: &OpResult) -> usize {
    match r {
        OpResult::Row(values) => 5 + values.iter().map(value_bytes).sum::<usize>(),
        _ => 10,
    }
}

/// The most bytes `put_value` writes for one value (its tag, a length and the bytes, or the
/// widest fixed-size value, a DECIMAL).
pub fn value_bytes(v: &Value) -> usize {
    match v {
        Value::Bytes(b) => 5 + b.len(),
        _ => 18,
    }
}

/// A TEXT or BLOB size's byte in a column type: 0 for the plain size, so catalogs written before
/// the sizes existed read as TEXT and BLOB.
fn lob_size_tag(size: LobSize) -> u8 {
    match size {
        LobSize::Regular => 0,
        LobSize::Tiny => 1,
        LobSize::Medium => 2,
        LobSize::Long => 3,
    }
}

fn lob_size(tag: u8) -> DecodeResult<LobSize> {
    Ok(match tag {
        0 => LobSize::Regular,
        1 => LobSize::Tiny,
        2 => LobSize::Medium,
        3 => LobSize::Long,
        tag => {
            return Err(DecodeError::BadTag {
                what: "TEXT or BLOB size",
                tag,
            })
        }
    })
}

/// Appends a table schema in the protocol's encoding (also the catalog file's).
pub fn put_table(out: &mut Vec<u8>, t: &TableDef) {
    out.put_u32(t.id);
    out.put_u32(t.version);
    out.put_bytes(t.name.as_bytes());
    out.put_u32(t.columns.len() as u32);
    for c in &t.columns {
        put_column(out, c);
    }
    out.put_u16s(&t.primary_key);
    out.put_u16s(&t.partition_key);
    out.put_u32(t.partition_count);
    out.put_u32(t.indexes.len() as u32);
    for i in &t.indexes {
        out.put_bytes(i.name.as_bytes());
        put_index_columns(out, i.kind, &i.columns, &i.prefixes);
        out.put_u32(i.index_table);
    }
    put_options(out, &t.options);
    out.put_u32(t.index_of.map_or(u32::MAX, |i| i));
    out.put_bytes(t.comment.as_bytes());
}

fn put_column(out: &mut Vec<u8>, c: &ColumnDef) {
    out.put_bytes(c.name.as_bytes());
    put_type(out, c.ty);
    out.put_u8(c.collation as u8);
    out.put_u8(
        u8::from(c.nullable)
            | u8::from(c.auto_increment) << 1
            | u8::from(c.hidden) << 2
            | u8::from(c.default_now.is_some()) << 3
            | u8::from(c.on_update_now) << 4
            | u8::from(c.json) << 5
            | u8::from(c.display_width > 0 || c.zerofill || c.scale.is_some()) << 6
            | u8::from(!c.comment.is_empty()) << 7,
    );
    match &c.default {
        None => out.put_u8(0),
        Some(v) => {
            out.put_u8(1);
            out.put_value(v);
        }
    }
    if let Some(fsp) = c.default_now {
        out.put_u8(fsp);
    }
    if c.display_width > 0 || c.zerofill || c.scale.is_some() {
        out.put_u8(c.display_width);
        // Bit 0: ZEROFILL; bit 1: a FLOAT(M,D)'s D follows.
        out.put_u8(u8::from(c.zerofill) | u8::from(c.scale.is_some()) << 1);
        if let Some(d) = c.scale {
            out.put_u8(d);
        }
    }
    if !c.comment.is_empty() {
        out.put_bytes(c.comment.as_bytes());
    }
    // An ENUM's or SET's members (types older catalogs never hold).
    if matches!(c.ty, ColumnType::Enum | ColumnType::Set) {
        out.put_u32(c.members.len() as u32);
        for m in &c.members {
            out.put_bytes(m.as_bytes());
        }
    }
}

fn get_collation(r: &mut Reader) -> DecodeResult<Collation> {
    let tag = r.u8()?;
    Collation::from_u8(tag).ok_or(DecodeError::BadTag {
        what: "collation",
        tag,
    })
}

fn get_column(r: &mut Reader) -> DecodeResult<ColumnDef> {
    let name = r.string("column name", limits::WIRE_NAME_BYTES_MAX)?;
    let ty = get_type(r)?;
    let tag = r.u8()?;
    let collation = Collation::from_u8(tag).ok_or(DecodeError::BadTag {
        what: "collation",
        tag,
    })?;
    let flags = r.u8()?;
    let default = match r.u8()? {
        0 => None,
        1 => Some(r.value()?),
        tag => {
            return Err(DecodeError::BadTag {
                what: "default",
                tag,
            })
        }
    };
    // Bit 3: a current-time default, its fraction digits after the default (older catalogs
    // never set it).
    let default_now = if flags & 8 != 0 { Some(r.u8()?) } else { None };
    // Bit 6: how the column is shown, a display width and ZEROFILL (older catalogs never set
    // it).
    let (display_width, zerofill, scale) = if flags & 64 != 0 {
        let width = r.u8()?;
        let shown = r.u8()?;
        if shown > 3 {
            return Err(DecodeError::BadTag {
                what: "column display flags",
                tag: shown,
            });
        }
        let scale = if shown & 2 != 0 { Some(r.u8()?) } else { None };
        (width, shown & 1 != 0, scale)
    } else {
        (0, false, None)
    };
    // Bit 7: a comment follows (older catalogs never set it).
    let comment = if flags & 128 != 0 {
        r.string("column comment", limits::COLUMN_COMMENT_BYTES_MAX)?
    } else {
        String::new()
    };
    let mut members = Vec::new();
    if matches!(ty, ColumnType::Enum | ColumnType::Set) {
        let count = r.u32()? as usize;
        if count > limits::ENUM_MEMBERS_MAX {
            return Err(DecodeError::BadTag {
                what: "member count",
                tag: 0,
            });
        }
        for _ in 0..count {
            members.push(r.string("member", limits::ENUM_MEMBER_BYTES_MAX)?);
        }
    }
    Ok(ColumnDef {
        name,
        ty,
        collation,
        nullable: flags & 1 != 0,
        default,
        default_now,
        on_update_now: flags & 16 != 0,
        auto_increment: flags & 2 != 0,
        hidden: flags & 4 != 0,
        json: flags & 32 != 0,
        display_width,
        zerofill,
        scale,
        comment,
        members,
    })
}

/// An index's kind and columns: the kind's byte, with [`PREFIXES_FOLLOW`] when some column
/// has a prefix length (older catalogs have none), the columns, then a u32 prefix length per
/// column when flagged.
fn put_index_columns(out: &mut Vec<u8>, kind: IndexKind, columns: &[u16], prefixes: &[u32]) {
    let tag = match kind {
        IndexKind::Unique => 1,
        IndexKind::Ordered => 2,
    };
    let cut = prefixes.iter().any(|p| *p > 0);
    out.put_u8(if cut { tag | PREFIXES_FOLLOW } else { tag });
    out.put_u16s(columns);
    if cut {
        for i in 0..columns.len() {
            out.put_u32(prefixes.get(i).copied().unwrap_or(0));
        }
    }
}

/// Reads what [`put_index_columns`] writes.
fn get_index_columns(r: &mut Reader) -> DecodeResult<(IndexKind, Vec<u16>, Vec<u32>)> {
    let (kind, cut) = get_index_kind(r)?;
    let columns = r.u16s("index columns", limits::KEY_COLUMNS_MAX)?;
    let prefixes = if cut {
        (0..columns.len())
            .map(|_| r.u32())
            .collect::<DecodeResult<_>>()?
    } else {
        Vec::new()
    };
    Ok((kind, columns, prefixes))
}

/// In an index's kind byte: a u32 prefix length per column follows the columns.
const PREFIXES_FOLLOW: u8 = 0x80;

/// The index kind, and whether prefix lengths follow.
fn get_index_kind(r: &mut Reader) -> DecodeResult<(IndexKind, bool)> {
    let byte = r.u8()?;
    let kind = match byte & !PREFIXES_FOLLOW {
        1 => IndexKind::Unique,
        2 => IndexKind::Ordered,
        _ => {
            return Err(DecodeError::BadTag {
                what: "index kind",
                tag: byte,
            })
        }
    };
    Ok((kind, byte & PREFIXES_FOLLOW != 0))
}

fn put_options(out: &mut Vec<u8>, options: &TableOptions) {
    out.put_u8(
        u8::from(options.read_backup)
            | u8::from(options.fully_replicated) << 1
            | u8::from(options.nologging) << 2
            | options.collation.map_or(0, |c| c as u8) << 3,
    );
}

fn get_options(r: &mut Reader) -> DecodeResult<TableOptions> {
    let flags = r.u8()?;
    let collation = match flags >> 3 {
        0 => None,
        tag => Some(Collation::from_u8(tag).ok_or(DecodeError::BadTag {
            what: "table collation",
            tag,
        })?),
    };
    Ok(TableOptions {
        read_backup: flags & 1 != 0,
        fully_replicated: flags & 2 != 0,
        nologging: flags & 4 != 0,
        collation,
    })
}

/// Reads a table schema written by [`put_table`].
pub fn get_table(r: &mut Reader) -> DecodeResult<TableDef> {
    read_table(r, true)
}

/// Reads a table schema written before definitions had versions (catalog files of format 1
/// and 2): the definition is version 1.
pub fn get_table_unversioned(r: &mut Reader) -> DecodeResult<TableDef> {
    read_table(r, false)
}

fn read_table(r: &mut Reader, versioned: bool) -> DecodeResult<TableDef> {
    let name_limit = limits::WIRE_NAME_BYTES_MAX;
    let id = r.u32()?;
    let version = if versioned { r.u32()? } else { 1 };
    let name = r.string("table name", name_limit)?;
    let n = r.count("columns", limits::COLUMNS_MAX, 14)?;
    let mut columns = Vec::with_capacity(n);
    for _ in 0..n {
        columns.push(get_column(r)?);
    }
    let primary_key = r.u16s("primary key", limits::KEY_COLUMNS_MAX)?;
    let partition_key = r.u16s("partition key", limits::KEY_COLUMNS_MAX)?;
    let partition_count = r.u32()?;
    let ni = r.count("indexes", limits::INDEXES_MAX, 13)?;
    let mut indexes = Vec::with_capacity(ni);
    for _ in 0..ni {
        let iname = r.string("index name", name_limit)?;
        let (kind, columns, prefixes) = get_index_columns(r)?;
        indexes.push(IndexDef {
            name: iname,
            kind,
            columns,
            prefixes,
            index_table: r.u32()?,
        });
    }
    let options = get_options(r)?;
    let index_of = match r.u32()? {
        u32::MAX => None,
        v => Some(v),
    };
    let comment = if versioned {
        r.string("table comment", limits::TABLE_COMMENT_BYTES_MAX)?
    } else {
        String::new()
    };
    Ok(TableDef {
        id,
        version,
        name,
        columns,
        primary_key,
        partition_key,
        partition_count,
        indexes,
        options,
        index_of,
        comment,
    })
}

#[cfg(test)]
mod tests;
