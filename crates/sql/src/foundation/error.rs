//! SQL errors as the client sees them: MySQL's error number, SQLSTATE and message, and the
//! mapping from Cairn's error codes.

use base::ErrorCode;
use client::ClientError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlError {
    pub code: u16,
    pub state: std::borrow::Cow<'static, str>,
    pub message: String,
    /// The data node's error behind it, when it came from the client library.
    pub cause: Option<ErrorCode>,
}

impl SqlError {
    pub fn new(code: u16, state: &'static str, message: impl Into<String>) -> SqlError {
        SqlError {
            code,
            state: std::borrow::Cow::Borrowed(state),
            message: message.into(),
            cause: None,
        }
    }

    /// An error a procedure's SIGNAL raises, with the SQLSTATE it names.
    pub fn signaled(code: u16, state: String, message: impl Into<String>) -> SqlError {
        SqlError {
            code,
            state: std::borrow::Cow::Owned(state),
            message: message.into(),
            cause: None,
        }
    }

    /// Whether the statement that failed may simply run again, planned as it was, once the
    /// cluster serves again (a data node failed over): nothing of it was committed. `read_only`
    /// statements may also run again after a lost connection, which leaves a write's outcome
    /// unknown.
    pub fn failover_retry(&self, read_only: bool) -> bool {
        match self.cause {
            // A data node that is stopping refuses a request without running it.
            Some(
                ErrorCode::NotPrimary
                | ErrorCode::ViewChanged
                | ErrorCode::Overloaded
                | ErrorCode::ShuttingDown,
            ) => true,
            Some(ErrorCode::ConnectionLost) => read_only,
            _ => false,
        }
    }

    /// ER_PARSE_ERROR.
    pub fn parse(message: impl std::fmt::Display) -> SqlError {
        SqlError::new(
            1064,
            "42000",
            format!("You have an error in your SQL syntax: {message}"),
        )
    }

    /// ER_NOT_SUPPORTED_YET, naming what is not supported.
    pub fn unsupported(what: impl std::fmt::Display) -> SqlError {
        SqlError::new(
            1235,
            "42000",
            format!("This version of Cairn doesn't yet support '{what}'"),
        )
    }

    /// MariaDB's 1906: a value given to a generated column is ignored (an error unless IGNORE).
    pub fn generated_value_ignored(table: &str, column: &str) -> SqlError {
        SqlError::new(
            1906,
            "HY000",
            format!(
                "The value specified for generated column '{column}' in table '{table}' has been \
                 ignored"
            ),
        )
    }

    /// ER_NO_DB_ERROR.
    pub fn no_database() -> SqlError {
        SqlError::new(1046, "3D000", "No database selected")
    }

    /// ER_BAD_DB_ERROR.
    pub fn unknown_database(name: &str) -> SqlError {
        SqlError::new(1049, "42000", format!("Unknown database '{name}'"))
    }

    /// ER_NO_SUCH_TABLE.
    pub fn no_table(database: &str, table: &str) -> SqlError {
        SqlError::new(
            1146,
            "42S02",
            format!("Table '{database}.{table}' doesn't exist"),
        )
    }

    /// ER_BAD_FIELD_ERROR.
    pub fn unknown_column(name: &str, place: &str) -> SqlError {
        SqlError::new(
            1054,
            "42S22",
            format!("Unknown column '{name}' in '{place}'"),
        )
    }

    /// An error of the client library, as MySQL would report its kind.
    pub fn from_client(e: &ClientError) -> SqlError {
        let message = match e {
            ClientError::Aborted { error, .. }
            | ClientError::StatementUndone { error, .. }
            | ClientError::Failed(error) => error.message.clone(),
            other => other.to_string(),
        };
        let mut error = SqlError::from_code(e.code(), message);
        error.cause = Some(e.code());
        error
    }

    fn from_code(code: ErrorCode, message: String) -> SqlError {
        match code {
            ErrorCode::DuplicateKey => SqlError::new(1062, "23000", message),
            // MariaDB's words first: drivers and ORMs match them (the data node's detail after).
            ErrorCode::LockWaitTimeout => SqlError::new(
                1205,
                "HY000",
                format!("Lock wait timeout exceeded; try restarting transaction ({message})"),
            ),
            // The whole transaction is gone, as after a deadlock; 1205 is what drivers retry.
            ErrorCode::TransactionTimedOut => SqlError::new(
                1205,
                "HY000",
                format!("Lock wait timeout exceeded; try restarting transaction ({message})"),
            ),
            ErrorCode::Deadlock => SqlError::new(
                1213,
                "40001",
                "Deadlock found when trying to get lock; try restarting transaction",
            ),
            // The cluster's view changed under the transaction (a data node failed): rolled
            // back, as after a deadlock, so drivers and ORMs retry it.
            ErrorCode::ViewChanged | ErrorCode::NotPrimary => SqlError::new(
                1213,
                "40001",
                format!("Deadlock found when trying to get lock; try restarting transaction ({message})"),
            ),
            // A stopping data node (a restart, a rolling restart) refused the request without
            // running it, and rolls back what it holds of the transaction: the retry class.
            ErrorCode::ShuttingDown => SqlError::new(
                1213,
                "40001",
                format!("Deadlock found when trying to get lock; try restarting transaction (the transaction was rolled back: {message})"),
            ),
            ErrorCode::NullNotAllowed => SqlError::new(1048, "23000", message),
            ErrorCode::TableFull => {
                // The data node names the table 'db/t' (or a bare name) first in its message.
                let table = message
                    .split('\'')
                    .nth(1)
                    .map(|t| t.rsplit('/').next().unwrap_or(t))
                    .unwrap_or_default();
                SqlError::new(1114, "HY000", format!("The table '{table}' is full"))
            }
            ErrorCode::BadValue => SqlError::new(1366, "22007", message),
            ErrorCode::TableExists => SqlError::new(1050, "42S01", message),
            ErrorCode::NoSuchTable => SqlError::new(1146, "42S02", message),
            ErrorCode::NoSuchDatabase => SqlError::new(1049, "42000", message),
            ErrorCode::DatabaseExists => SqlError::new(1007, "HY000", message),
            ErrorCode::BadSchema => SqlError::new(1105, "HY000", message),
            ErrorCode::SchemaChanged => SqlError::new(
                1412,
                "HY000",
                "Table definition has changed, please retry transaction",
            ),
            // (MySQL's 2013 is a client's own error: a server that sends it confuses libmysqlclient
            // and libmariadb, which report a malformed packet.) Whether the statement took effect
            // is unknown here: NDB's "unknown result" class, as its API reports it.
            ErrorCode::ConnectionLost => SqlError::new(
                1297,
                "HY000",
                format!("Got temporary error 4012 'Unknown result: the connection to the data node was lost ({message})' from NDBCLUSTER"),
            ),
            _ => SqlError::new(1105, "HY000", message),
        }
    }
}

impl SqlError {
    /// The error of a statement inside a transaction whose data node connection was lost
    /// before its commit: the transaction is rolled back (the data node aborts what a closed
    /// connection left open, and a dead one holds nothing), so it is the retry class.
    pub fn rolled_back_by_lost_connection(&self) -> Option<SqlError> {
        matches!(
            self.cause,
            Some(ErrorCode::ConnectionLost | ErrorCode::ShuttingDown)
        )
        .then(|| {
            let mut e = SqlError::new(
                1213,
                "40001",
                format!("Deadlock found when trying to get lock; try restarting transaction (the transaction was rolled back: {})", self.message),
            );
            e.cause = self.cause;
            e
        })
    }
}

impl std::fmt::Display for SqlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ERROR {} ({}): {}", self.code, self.state, self.message)
    }
}

impl std::error::Error for SqlError {}

pub(crate) type Result<T> = std::result::Result<T, SqlError>;
