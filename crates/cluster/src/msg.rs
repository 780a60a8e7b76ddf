//! Every message the cluster protocols exchange, between data nodes, the arbitrator and clients.
//! Plain data: the runtime (sockets, or the simulator's network) moves them.

use crate::layout::{Epoch, Membership, NodeId, PartitionId, Time};

/// A proposal number in view agreement: rounds first, ties broken by the proposer's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ballot {
    pub round: u64,
    pub node: NodeId,
}

/// A global checkpoint's number (NDB's GCI). Every commit belongs to one; once every member has
/// fsynced its redo through a GCI, every commit of it and of those before is on disk everywhere,
/// and a restart of the whole cluster recovers exactly them.
pub type Gci = u64;

/// A transaction's id: its coordinator and that coordinator's sequence number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TxnId {
    pub coordinator: NodeId,
    pub seq: u64,
}

/// A key's committed value and version. The version counts the commits to the key, so replicas
/// that applied the same commits in the same order hold the same version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Versioned {
    pub value: u64,
    pub version: u64,
}

/// One operation of a transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// A locked read: the primary takes the key's lock and returns its committed value.
    Read(u64),
    /// A write of `value` to the key, under the key's lock.
    Write(u64, u64),
}

impl Op {
    pub fn key(&self) -> u64 {
        match *self {
            Op::Read(key) | Op::Write(key, _) => key,
        }
    }
}

/// Why a request was not done. Every variant but `Unknown` means nothing was committed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A key was locked by another transaction: retry.
    Busy,
    /// The view changed before the transaction committed, and it was rolled back: retry.
    ViewChanged,
    /// This node does not serve now (no view, lease lapsed, not a replica): try another node.
    NotServing,
}

/// What a client hears back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientReply {
    /// Committed on every replica; the locked reads' values, in the order asked.
    Committed {
        reads: Vec<(u64, Option<Versioned>)>,
    },
    Refused(Refusal),
    /// A committed read's value.
    Value(Option<Versioned>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    /// Sent every heartbeat interval to every other member. `echo` is the `sent` time of the newest
    /// beat heard from the receiver: a node's read lease rests on beats its peers echoed.
    /// `done_below` is the sender's coordinator watermark: it has finished every transaction of
    /// its own below that sequence number.
    Heartbeat {
        epoch: Epoch,
        ready: bool,
        sent: Time,
        echo: Option<Time>,
        done_below: u64,
    },

    // View agreement: one single-decree agreement per epoch, among the members of the view before
    // it (weight 2 each) and the arbitrator (weight 1).
    ViewPrepare {
        epoch: Epoch,
        ballot: Ballot,
    },
    ViewPromise {
        epoch: Epoch,
        ballot: Ballot,
        accepted: Option<(Ballot, Membership)>,
    },
    ViewAccept {
        epoch: Epoch,
        ballot: Ballot,
        members: Membership,
    },
    ViewAccepted {
        epoch: Epoch,
        ballot: Ballot,
    },
    ViewNack {
        epoch: Epoch,
        promised: Ballot,
    },
    /// The view of `epoch` is decided. `installer` resolves the transactions left in doubt.
    ViewChosen {
        epoch: Epoch,
        members: Membership,
        installer: NodeId,
    },
    /// Asks for the view of `epoch` (a node that saw a newer epoch than its own).
    ViewQuery {
        epoch: Epoch,
    },

    // Takeover: after a view change the installer gathers every member's undecided and committed
    // transactions from older epochs, decides each (commit if any replica committed), and opens
    // the view once every member applied the decisions.
    /// Committed transactions carry their global checkpoint, so the takeover commits them in it.
    InDoubt {
        epoch: Epoch,
        prepared: Vec<TxnId>,
        committed: Vec<(TxnId, Gci)>,
    },
    Resolve {
        epoch: Epoch,
        commit: Vec<(TxnId, Gci)>,
        abort: Vec<TxnId>,
    },
    ResolveAck {
        epoch: Epoch,
    },
    Ready {
        epoch: Epoch,
    },

    // The commit protocol: parallel prepare on every replica, commit on the backups, then on the
    // primaries, then complete (forget) everywhere.
    TxPrepare {
        epoch: Epoch,
        txn: TxnId,
        partition: PartitionId,
        ops: Vec<Op>,
        primary: bool,
    },
    /// A replica prepared; a primary also answers the locked reads, the version each write
    /// will make and its global checkpoint (the transaction commits in the highest of its
    /// primaries' and its coordinator's, so a commit that follows another on a key never falls in
    /// an earlier checkpoint).
    TxPrepared {
        epoch: Epoch,
        txn: TxnId,
        partition: PartitionId,
        reads: Vec<(u64, Option<Versioned>)>,
        versions: Vec<(u64, u64)>,
        gci: Gci,
    },
    TxRefused {
        epoch: Epoch,
        txn: TxnId,
        partition: PartitionId,
    },
    /// Commit, at the versions the primary named, in global checkpoint `gci`.
    TxCommit {
        epoch: Epoch,
        txn: TxnId,
        partition: PartitionId,
        versions: Vec<(u64, u64)>,
        gci: Gci,
    },
    TxCommitted {
        epoch: Epoch,
        txn: TxnId,
        partition: PartitionId,
    },
    TxAbort {
        epoch: Epoch,
        txn: TxnId,
        partition: PartitionId,
    },
    TxAborted {
        epoch: Epoch,
        txn: TxnId,
        partition: PartitionId,
    },
    TxComplete {
        epoch: Epoch,
        txn: TxnId,
        partition: PartitionId,
    },
    TxCompleted {
        epoch: Epoch,
        txn: TxnId,
        partition: PartitionId,
    },
    /// A replica asks the coordinator about a transaction held prepared for long.
    TxStatus {
        epoch: Epoch,
        txn: TxnId,
        partition: PartitionId,
    },

    // Node restart: a restarted node asks to join; it is added to a view as starting, copies
    // each of its partitions from the primary while taking every new commit, says it caught up,
    // and is made a member by the next view.
    Join,
    CopyRequest {
        epoch: Epoch,
        partition: PartitionId,
    },
    /// A primary's rows, every one committed in global checkpoint `gci` or before.
    CopyRows {
        epoch: Epoch,
        partition: PartitionId,
        rows: Vec<(u64, Versioned)>,
        gci: Gci,
    },
    CaughtUp {
        epoch: Epoch,
    },

    // Global checkpoints, run by the lowest member of an open view. `GcpStart` raises every
    // node's checkpoint to `gci`; a node answers once every transaction it coordinated before is
    // finished, so every commit of an earlier checkpoint is then applied on all its replicas.
    // `GcpSave` has every node write and fsync its redo through `gci`; with every answer, the
    // checkpoint is durable.
    GcpStart {
        epoch: Epoch,
        gci: Gci,
    },
    GcpStarted {
        epoch: Epoch,
        gci: Gci,
    },
    GcpSave {
        epoch: Epoch,
        gci: Gci,
    },
    GcpSaved {
        epoch: Epoch,
        gci: Gci,
    },

    // Clients.
    ClientTxn {
        request: u64,
        ops: Vec<Op>,
    },
    /// A committed read, from the primary, or from any replica with `backup_ok` (READ_BACKUP).
    ClientRead {
        request: u64,
        key: u64,
        backup_ok: bool,
    },
    ClientReply {
        request: u64,
        reply: ClientReply,
    },
}

impl Msg {
    /// A short name for traces and fault counts.
    pub fn kind(&self) -> &'static str {
        match self {
            Msg::Heartbeat { .. } => "heartbeat",
            Msg::ViewPrepare { .. } => "view-prepare",
            Msg::ViewPromise { .. } => "view-promise",
            Msg::ViewAccept { .. } => "view-accept",
            Msg::ViewAccepted { .. } => "view-accepted",
            Msg::ViewNack { .. } => "view-nack",
            Msg::ViewChosen { .. } => "view-chosen",
            Msg::ViewQuery { .. } => "view-query",
            Msg::InDoubt { .. } => "in-doubt",
            Msg::Resolve { .. } => "resolve",
            Msg::ResolveAck { .. } => "resolve-ack",
            Msg::Ready { .. } => "ready",
            Msg::TxPrepare { .. } => "tx-prepare",
            Msg::TxPrepared { .. } => "tx-prepared",
            Msg::TxRefused { .. } => "tx-refused",
            Msg::TxCommit { .. } => "tx-commit",
            Msg::TxCommitted { .. } => "tx-committed",
            Msg::TxAbort { .. } => "tx-abort",
            Msg::TxAborted { .. } => "tx-aborted",
            Msg::TxComplete { .. } => "tx-complete",
            Msg::TxCompleted { .. } => "tx-completed",
            Msg::TxStatus { .. } => "tx-status",
            Msg::Join => "join",
            Msg::CopyRequest { .. } => "copy-request",
            Msg::CopyRows { .. } => "copy-rows",
            Msg::CaughtUp { .. } => "caught-up",
            Msg::GcpStart { .. } => "gcp-start",
            Msg::GcpStarted { .. } => "gcp-started",
            Msg::GcpSave { .. } => "gcp-save",
            Msg::GcpSaved { .. } => "gcp-saved",
            Msg::ClientTxn { .. } => "client-txn",
            Msg::ClientRead { .. } => "client-read",
            Msg::ClientReply { .. } => "client-reply",
        }
    }
}
