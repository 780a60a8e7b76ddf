//! What a node reports of itself: its status (`StatusReply`) and its checkpoints
//! (`CheckpointReply`).

use crate::codec::{DecodeResult, Reader};

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

/// The most data nodes a node group lists (NDB's most replicas).
pub const GROUP_NODES_MAX: usize = 4;

pub(super) fn node_ids(r: &mut Reader) -> DecodeResult<Vec<u32>> {
    let n = r.count("node group", GROUP_NODES_MAX, 4)?;
    (0..n).map(|_| r.u32()).collect()
}
