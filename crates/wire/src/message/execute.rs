//! Keyed operations and their outcomes (`Execute`, `ExecuteReply`), and errors as messages
//! carry them.

use crate::codec::{DecodeError, DecodeResult, Reader, Writer};
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
    pub(super) fn code(self) -> u8 {
        match self {
            OpKind::Read(mode) => mode as u8,
            OpKind::Insert => 4,
            OpKind::Update => 5,
            OpKind::Write => 6,
            OpKind::Delete => 7,
            OpKind::Increment => 8,
        }
    }

    pub(super) fn from_code(code: u8) -> DecodeResult<OpKind> {
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

/// An `ExecuteOutcome::Ok`'s body: the outcome's tag and its results.
pub(super) fn put_results(out: &mut Vec<u8>, results: &[OpResult]) {
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
