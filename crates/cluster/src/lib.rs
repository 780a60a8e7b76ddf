//! Cairn's cluster protocols, written as deterministic state machines: membership with heartbeats
//! and read leases, view agreement with the arbitrator's vote, the replicated commit protocol,
//! and the takeover of transactions a view change leaves in doubt.
//!
//! It is not: a place that reads a clock, draws a random number, opens a socket, starts a thread
//! or touches a file. A runtime feeds each node its inputs (messages, ticks) with the time, and
//! carries out its outputs (messages to send, a stop); the simulator (`sim` crate) is one such
//! runtime, the real data node's event loop the other. So any run is reproducible from the
//! simulator's seed.

pub mod agreement;
pub mod arbitrator;
pub mod codec;
pub mod config;
pub mod coordinator;
pub mod layout;
pub mod msg;
pub mod node;
pub mod participant;

pub use layout::{Epoch, Layout, Membership, NodeId, PartitionId, Time, View, ARBITRATOR};
pub use msg::{Ballot, ClientReply, Msg, Op, Refusal, TxnId, Versioned};
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
    /// A fact for the checkers and logs; the real runtime may ignore it.
    Observe(Observation),
    /// The node must stop now (fail-stop): the reason.
    Stop(String),
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
}

impl Mutation {
    pub const ALL: [Mutation; 4] = [
        Mutation::AckBeforeBackupsPrepared,
        Mutation::SkipEpochCheckOnPrepare,
        Mutation::DeadWithoutArbitration,
        Mutation::ServeBeforeCaughtUp,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Mutation::AckBeforeBackupsPrepared => "ack-before-backups-prepared",
            Mutation::SkipEpochCheckOnPrepare => "skip-epoch-check-on-prepare",
            Mutation::DeadWithoutArbitration => "dead-without-arbitration",
            Mutation::ServeBeforeCaughtUp => "serve-before-caught-up",
        }
    }

    pub fn parse(name: &str) -> Option<Mutation> {
        Mutation::ALL.into_iter().find(|m| m.name() == name)
    }
}
