//! Running plans against the data nodes: the executor (keys, bounds and pushed filters to
//! operations), UPDATE and DELETE, and SELECTs streamed to their client.

pub(crate) mod derived;
pub(crate) mod run;
pub(crate) mod setop;
pub(crate) mod stream;
pub(crate) mod subquery;
pub(crate) mod write;

use crate::foundation::error::SqlError;
use base::Value;
use myproto::response::Column;

/// What one statement answers.
pub enum Outcome {
    Done {
        affected: u64,
        last_insert_id: u64,
        info: String,
    },
    Rows {
        columns: Vec<Column>,
        rows: Vec<Vec<Value>>,
    },
    /// A top-level SELECT's rows, sent to the client a batch at a time as its scan reads them
    /// (`exec/stream.rs`); only the connection that ran the statement answers it.
    Stream(Box<stream::RowStream>),
    Failed(SqlError),
}

/// A result of rows whole, as EXPLAIN and DESCRIBE make it.
pub(crate) fn rows((columns, rows): (Vec<Column>, Vec<Vec<Value>>)) -> Outcome {
    Outcome::Rows { columns, rows }
}

pub(crate) fn done(affected: u64) -> Outcome {
    Outcome::Done {
        affected,
        last_insert_id: 0,
        info: String::new(),
    }
}
