//! Cairn's native client library, the NDB API analogue: connect to a data node, read table
//! metadata, define batches of keyed operations and execute them with NoCommit, Commit or Rollback
//! in one round trip, scan with bounds, filters and projection, and keep many transactions in
//! flight from one thread (`AsyncSession`, as NDB's executeAsynchPrepare/pollNdb).
//!
//! It is not: aware of data node internals (it speaks only the wire protocol over the transport),
//! and never retries by itself a commit whose outcome is unknown (`Runner` asks the cluster how
//! it ended first).

mod connection;
mod cursor;
mod event;
mod lob;
mod runner;
mod session;
mod stats;
mod table;
mod transaction;

pub use base::filter::{CmpOp, Filter};
pub use base::{Error, ErrorCode, TableDef, Value};
pub use connection::{read_from, Cluster, ReplicaSeen};
pub use cursor::ScanCursor;
pub use event::{EventSession, NodeHello, Reply, RECONNECT_EVERY, RECONNECT_TIMEOUT};
pub use lob::has_parts;
pub use runner::Runner;
pub use session::{AsyncSession, Completion};
pub use stats::{TableStats, STATS_TABLE};
pub use table::{JoinChild, Scan, Table};
pub use transaction::{OpId, Transaction};
pub use wire::{
    AggregateFn, Aggregation, CheckpointInfo, ColumnSource, ExecType, LockMode, NewColumn,
    NodeStatus, OpKind, OpResult, Operation, ScanOrder, ScanRequest, TableChange,
};

/// What a client call can fail with. Every variant says whether a retry may succeed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClientError {
    /// The transaction was aborted (nothing it did remains) because operation `op_index` failed.
    #[error("transaction aborted at operation {op_index}: {error}")]
    Aborted { op_index: u32, error: Error },
    /// Operation `op_index` failed and the changes of the current statement were undone
    /// (`Transaction::begin_statement`); the transaction is still open.
    #[error("statement undone at operation {op_index}: {error}")]
    StatementUndone { op_index: u32, error: Error },
    /// The request failed as a whole.
    #[error("{0}")]
    Failed(Error),
    /// The connection is gone; requests in flight have an unknown outcome.
    #[error("connection lost: {0}")]
    ConnectionLost(String),
}

impl ClientError {
    /// True when running the same transaction again may succeed (lock timeout, overload).
    pub fn is_temporary(&self) -> bool {
        match self {
            ClientError::Aborted { error, .. }
            | ClientError::StatementUndone { error, .. }
            | ClientError::Failed(error) => error.is_temporary(),
            ClientError::ConnectionLost(_) => false,
        }
    }

    /// The stable error code.
    pub fn code(&self) -> ErrorCode {
        match self {
            ClientError::Aborted { error, .. }
            | ClientError::StatementUndone { error, .. }
            | ClientError::Failed(error) => error.code,
            ClientError::ConnectionLost(_) => ErrorCode::ConnectionLost,
        }
    }
}

pub type Result<T, E = ClientError> = std::result::Result<T, E>;
