//! Cairn's cluster protocols, written as deterministic state machines: membership with heartbeats
//! and read leases, view agreement with the arbitrator's vote, the replicated commit protocol,
//! the takeover of transactions a view change leaves in doubt, and global checkpoints (what each
//! node writes to its redo log, and when it must be on disk).
//!
//! It is not: a place that reads a clock, draws a random number, opens a socket, starts a thread
//! or touches a file. A runtime feeds each node its inputs (messages, ticks, disk completions)
//! with the time, and carries out its outputs (messages to send, records to write, fsyncs, a
//! stop); the simulator (`sim` crate) is one such
//! runtime, the real data node's event loop the other. So any run is reproducible from the
//! simulator's seed.

pub mod agreement;
pub mod arbitrator;
pub mod codec;
pub mod config;
pub mod coordinator;
pub mod gcp;
pub mod layout;
pub mod log;
pub mod msg;
pub mod node;
pub mod participant;

pub use layout::{Epoch, Layout, Membership, NodeId, PartitionId, Time, View, ARBITRATOR};
pub use msg::{Ballot, ClientReply, Gci, Msg, Op, Refusal, TxnId, Versioned};
pub use participant::Applied;

/// The key → partition function of the simulated key space. (The SQL and native paths place rows
/// with `base::placement`; this protocol model uses integer keys.)
pub fn partition_of(layout: &Layout, key: u64) -> PartitionId {
    (key % u64::from(layout.partition_count())) as PartitionId
}

/// What a node asks its runtime to do, or lets it observe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    Send {
        to: NodeId,
        msg: Msg,
    },
    /// Append a record to this node's redo log (written, not yet on disk).
    Persist(Record),
    /// Make every record appended so far durable (fsync); the runtime answers with
    /// `Input::Synced` for the same checkpoint.
    Sync {
        gci: Gci,
    },
    /// A fact for the checkers and logs; the real runtime may ignore it.
    Observe(Observation),
    /// The node must stop now (fail-stop): the reason.
    Stop(String),
}

/// One record of a node's redo log. A node restored at global checkpoint `g` holds, per key, the
/// newest version among its records of checkpoints up to `g`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Record {
    /// A commit applied to one key.
    Write(Applied),
    /// A primary's copy of a partition, taken by a starting node: rows of checkpoint `gci` or
    /// before. The partition restores at `gci` or later.
    Copy {
        partition: PartitionId,
        rows: Vec<(u64, Versioned)>,
        gci: Gci,
    },
    /// Every commit of checkpoint `gci` and before is in the records before this one.
    Saved { gci: Gci },
}

/// How an fsync ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncResult {
    Done,
    /// No space left: nothing is lost yet, the node tries again later.
    Full,
    /// An I/O error: what was written may be gone, so the node stops (fail-stop).
    Failed,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Observation {
    Installed {
        node: NodeId,
        view: View,
    },
    Opened {
        node: NodeId,
        epoch: Epoch,
    },
    Applied {
        node: NodeId,
        applied: Applied,
    },
    /// A node told the checkpoint's master that its redo is on disk through `gci`: restored
    /// from its disk at `gci`, it must hold exactly the commits of checkpoints up to `gci` in
    /// `partitions` (those it held whole since a checkpoint no later than `gci`).
    Saved {
        node: NodeId,
        gci: Gci,
        partitions: Vec<PartitionId>,
    },
    /// Every member saved `gci`: the cluster could restart from it.
    Durable {
        gci: Gci,
    },
    /// A broken invariant: always a bug.
    Violation {
        node: NodeId,
        what: String,
    },
}

/// Timing of the protocols, in microseconds. Defaults suit loopback and one machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timing {
    pub heartbeat_interval: Time,
    /// A member unheard this long is suspected and a view without it is proposed.
    pub suspect_after: Time,
    /// A node serves only while every member echoed one of its beats sent within this long.
    /// Shorter than `suspect_after`, so a node others suspect has stopped serving first.
    pub lease: Time,
    /// Retransmission of unanswered protocol messages.
    pub retry_interval: Time,
    /// A node that suspects a member and sees no new view agreed for this long stops.
    pub stop_after: Time,
    /// A prepared transaction this old makes its replica ask the coordinator about it.
    pub status_after: Time,
    /// Between global checkpoints (NDB's TimeBetweenGlobalCheckpoints).
    pub gcp_interval: Time,
}

impl Default for Timing {
    fn default() -> Timing {
        Timing {
            heartbeat_interval: 100_000,
            suspect_after: 600_000,
            lease: 450_000,
            retry_interval: 100_000,
            stop_after: 3_000_000,
            status_after: 1_000_000,
            gcp_interval: 2_000_000,
        }
    }
}

/// Deliberate bugs, switched on only by the simulator's mutation checks, to show its checkers
/// catch them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mutation {
    /// The coordinator commits on the primaries and answers the client once the primaries
    /// prepared, before the backups did.
    AckBeforeBackupsPrepared,
    /// A replica takes a transaction's prepare from an older epoch.
    SkipEpochCheckOnPrepare,
    /// A node that suspects others installs a view without them, without agreement or arbitration.
    DeadWithoutArbitration,
    /// A restarted node serves reads while it is still copying its partitions.
    ServeBeforeCaughtUp,
    /// A node tells the checkpoint's master it saved a global checkpoint without the fsync.
    SkipGcpFsync,
    /// A node serves without its read lease: it answers as long as no member is suspected yet,
    /// even when none echoed its beats lately (a node paused, then resumed, reads old state).
    ServeWithoutLease,
}

impl Mutation {
    pub const ALL: [Mutation; 6] = [
        Mutation::AckBeforeBackupsPrepared,
        Mutation::SkipEpochCheckOnPrepare,
        Mutation::DeadWithoutArbitration,
        Mutation::ServeBeforeCaughtUp,
        Mutation::SkipGcpFsync,
        Mutation::ServeWithoutLease,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Mutation::AckBeforeBackupsPrepared => "ack-before-backups-prepared",
            Mutation::SkipEpochCheckOnPrepare => "skip-epoch-check-on-prepare",
            Mutation::DeadWithoutArbitration => "dead-without-arbitration",
            Mutation::ServeBeforeCaughtUp => "serve-before-caught-up",
            Mutation::SkipGcpFsync => "skip-gcp-fsync",
            Mutation::ServeWithoutLease => "serve-without-lease",
        }
    }

    pub fn parse(name: &str) -> Option<Mutation> {
        Mutation::ALL.into_iter().find(|m| m.name() == name)
    }
}
