//! Message bodies of the native protocol, one variant per message type, with their codes.
//!
//! This file holds the `Message` enum, its type codes and its framing; `encode` and `decode`
//! hold its bodies' byte layout, and the other modules each family's types and their encoders.

mod decode;
mod encode;
mod execute;
mod replication;
mod scan;
mod schema;
mod status;

pub(crate) use execute::{get_error, put_error};
pub use execute::{
    result_bytes, value_bytes, ExecType, ExecuteOutcome, LockMode, OpKind, OpResult, Operation,
};
pub use replication::{
    RowChange, COPY_NAMES_MAX, NODE_GROUPS_MAX, REPLICATED_ROWS_MAX, TAKEN_ENTRIES_MAX,
};
pub(crate) use scan::{get_scan_request, put_scan_request};
pub use scan::{
    AggregateFn, Aggregation, Bound, ChildRead, JoinChild, JoinKind, ScanOrder, ScanRequest,
};
pub use schema::{
    get_table, get_table_unversioned, put_table, ColumnSource, NewColumn, TableChange,
};
pub use status::{CheckpointInfo, CopyStatus, NodeStatus, TableMemory, GROUP_NODES_MAX};

use crate::frame::write_frame;
use base::schema::{IndexKind, TableDef};
use base::types::Collation;
use base::{Error, Value};
use execute::put_results;

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
    /// From a node group's new primary to another member of the group (three replicas or
    /// more), on its `PeerHello` link: what this member took from its primaries (`TakenLog`),
    /// its entries numbered after `after` (`u64::MAX`: none, only where its log stands).
    TakenAsk {
        after: u64,
    },
    /// The answer to `TakenAsk`: the member took every job numbered up to `last` that its
    /// primaries sent to the group's members, and keeps those numbered after `from`; `entries`
    /// are the kept ones after the asked number, oldest first, as many as fit one frame
    /// (`more`: others follow them).
    TakenLog {
        from: u64,
        last: u64,
        entries: Vec<TakenEntry>,
        more: bool,
    },
    /// From a node group's new primary to a member that lacks it: a commit an earlier primary
    /// sent as its job `seq` (its client's session and transaction, and rows), which another
    /// member took. Applied as a `Replicate` is, and kept as that job. Answered by `Done`.
    LevelUp {
        seq: u64,
        session: u64,
        transaction: u64,
        changes: Vec<RowChange>,
    },
}

/// A job a member took from its primary, as `TakenLog` carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TakenEntry {
    /// The job's number in the primary's stream (its request id on the link).
    pub seq: u64,
    pub kind: TakenKind,
    /// A commit's name (its client's session and transaction) and rows (`TakenKind::Rows`).
    pub session: u64,
    pub transaction: u64,
    pub changes: Vec<RowChange>,
}

/// What a new primary can do with a taken job another member lacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum TakenKind {
    /// A commit's rows: sent on (`LevelUp`).
    Rows = 0,
    /// A schema change, a two-phase commit's part or decision: a member that lacks it starts
    /// again empty and copies.
    Restart = 1,
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

/// Bytes of results one `ExecuteReply` frame carries before the reply goes on in another: well
/// under the frame limit, which one result (a row of at most `ROW_BYTES_MAX`) stays within.
pub const REPLY_FRAME_BYTES: usize = 8 << 20;

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
            Message::TakenAsk { .. } => 53,
            Message::TakenLog { .. } => 54,
            Message::LevelUp { .. } => 55,
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
}

#[cfg(test)]
mod tests;
