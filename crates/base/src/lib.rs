//! Cairn's shared vocabulary: limits, error codes, column types, values, collations, the
//! order-preserving key encoding, table schemas, filter programs and the key -> partition function.
//!
//! It is not: a place for I/O, threads or anything that allocates without a named limit. Every other
//! crate depends on it, so it stays small and free of heavy dependencies.

pub mod collation;
pub mod decimal;
pub mod error;
pub mod filter;
pub mod foreign_key;
pub mod geometry;
pub mod key;
pub mod limits;
pub mod lob;
pub mod placement;
pub mod schema;
pub mod text;
pub mod types;
pub mod uca;
pub mod value;

pub use error::{Error, ErrorCode};
pub use schema::{ColumnDef, IndexDef, IndexKind, TableDef};
pub use types::{Charset, Collation, ColumnType};
pub use value::Value;
