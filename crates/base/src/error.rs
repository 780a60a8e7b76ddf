//! Errors that cross a process boundary: a stable numeric code, a class (temporary or permanent)
//! and a message. The SQL and HandlerSocket front ends map the codes to their own numbers.

use std::fmt;

/// A stable error code. Numbers never change meaning once released; new ones are appended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u16)]
pub enum ErrorCode {
    /// A row with the same primary or unique key exists.
    DuplicateKey = 1,
    /// The row addressed by key does not exist.
    NotFound = 2,
    /// A row lock was not granted within the lock-wait timeout.
    LockWaitTimeout = 3,
    /// No table with that name or id.
    NoSuchTable = 4,
    /// A table with that name exists already.
    TableExists = 5,
    /// The table definition is invalid.
    BadSchema = 6,
    /// A value does not fit its column (range, length, charset).
    BadValue = 7,
    /// A NOT NULL column was given NULL or nothing and has no default.
    NullNotAllowed = 8,
    /// A request is malformed (wrong key arity, unknown column, bad bound).
    BadRequest = 9,
    /// A decoded frame or message broke the protocol.
    Protocol = 10,
    /// The transaction id is unknown or already finished.
    NoSuchTransaction = 11,
    /// The node is overloaded; retry later.
    Overloaded = 12,
    /// The connection to the data node was lost; the outcome of in-flight commits is unknown.
    ConnectionLost = 13,
    /// The node is shutting down.
    ShuttingDown = 14,
    /// A limit named in `base::limits` was exceeded.
    LimitExceeded = 15,
    /// The transaction was aborted because an earlier operation in it failed.
    TransactionAborted = 16,
    /// No index with that name.
    NoSuchIndex = 17,
    /// An internal invariant failed; the node logged details.
    Internal = 18,
    /// An AUTO_INCREMENT counter reached its column's maximum.
    AutoIncrementExhausted = 19,
    /// No database with that name.
    NoSuchDatabase = 20,
    /// A database with that name exists already.
    DatabaseExists = 21,
    /// The request was made against another version of the table's definition than the one the
    /// data node holds (DDL changed it since): fetch the definition again and retry.
    SchemaChanged = 22,
    /// Waiting for a row lock would have closed a cycle of transactions each waiting for the
    /// next; the transaction was aborted instead. Retry it.
    Deadlock = 23,
    /// The transaction held locks or changes while its client sent nothing for longer than the
    /// data node's inactive-transaction timeout (NDB's TransactionInactiveTimeout); it was
    /// rolled back and its locks freed. Retry it.
    TransactionTimedOut = 24,
    /// Storing the row would take the data node past its data memory limit (NDB's
    /// DataMemory): nothing was changed. Reads, deletes and writes that need no more memory go
    /// on; deleting rows makes room. The message names the table as `'name'`.
    TableFull = 25,
    /// This data node does not serve the request now: it is not the primary of the partitions
    /// in the cluster's current view (a backup, or a node without a view). Another node does,
    /// or will once the view changes: retry there.
    NotPrimary = 26,
    /// The cluster's view changed (a node failed or joined) before the transaction committed,
    /// and it was rolled back: nothing of it is committed. Retry it.
    ViewChanged = 27,
}

impl ErrorCode {
    /// Decodes a wire code.
    pub fn from_u16(code: u16) -> Option<ErrorCode> {
        use ErrorCode::*;
        const ALL: [ErrorCode; 27] = [
            DuplicateKey,
            NotFound,
            LockWaitTimeout,
            NoSuchTable,
            TableExists,
            BadSchema,
            BadValue,
            NullNotAllowed,
            BadRequest,
            Protocol,
            NoSuchTransaction,
            Overloaded,
            ConnectionLost,
            ShuttingDown,
            LimitExceeded,
            TransactionAborted,
            NoSuchIndex,
            Internal,
            AutoIncrementExhausted,
            NoSuchDatabase,
            DatabaseExists,
            SchemaChanged,
            Deadlock,
            TransactionTimedOut,
            TableFull,
            NotPrimary,
            ViewChanged,
        ];
        ALL.into_iter().find(|c| *c as u16 == code)
    }

    /// True when the same request may succeed if retried (NDB's "temporary" class).
    pub fn is_temporary(self) -> bool {
        matches!(
            self,
            ErrorCode::LockWaitTimeout
                | ErrorCode::Deadlock
                | ErrorCode::TransactionTimedOut
                | ErrorCode::Overloaded
                | ErrorCode::ShuttingDown
                | ErrorCode::NotPrimary
                | ErrorCode::ViewChanged
        )
    }
}

/// An error with its stable code and a human-readable message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
}

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Error {
        Error {
            code,
            message: message.into(),
        }
    }

    /// True when retrying the transaction may succeed.
    pub fn is_temporary(&self) -> bool {
        self.code.is_temporary()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let class = if self.is_temporary() {
            "temporary"
        } else {
            "permanent"
        };
        write!(
            f,
            "{} (code {}, {}): {}",
            name(self.code),
            self.code as u16,
            class,
            self.message
        )
    }
}

fn name(code: ErrorCode) -> &'static str {
    use ErrorCode::*;
    match code {
        DuplicateKey => "duplicate key",
        NotFound => "not found",
        LockWaitTimeout => "lock wait timeout",
        NoSuchTable => "no such table",
        TableExists => "table exists",
        BadSchema => "bad schema",
        BadValue => "bad value",
        NullNotAllowed => "null not allowed",
        BadRequest => "bad request",
        Protocol => "protocol error",
        NoSuchTransaction => "no such transaction",
        Overloaded => "overloaded",
        ConnectionLost => "connection lost",
        ShuttingDown => "shutting down",
        LimitExceeded => "limit exceeded",
        TransactionAborted => "transaction aborted",
        NoSuchIndex => "no such index",
        Internal => "internal error",
        AutoIncrementExhausted => "auto-increment exhausted",
        NoSuchDatabase => "no such database",
        DatabaseExists => "database exists",
        SchemaChanged => "schema changed",
        Deadlock => "deadlock",
        TransactionTimedOut => "transaction timed out",
        TableFull => "table full",
        NotPrimary => "not the primary",
        ViewChanged => "view changed",
    }
}

impl std::error::Error for Error {}

/// Shorthand used across crates.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_classify() {
        for n in 0..64u16 {
            if let Some(code) = ErrorCode::from_u16(n) {
                assert_eq!(code as u16, n);
            }
        }
        assert!(ErrorCode::LockWaitTimeout.is_temporary());
        assert!(!ErrorCode::DuplicateKey.is_temporary());
        let text = Error::new(ErrorCode::LockWaitTimeout, "row t/1").to_string();
        assert!(text.contains("temporary"), "{text}");
    }
}
