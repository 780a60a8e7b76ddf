//! One partition of one table, owned by exactly one worker thread: the compact row store, the
//! primary-key hash index, the ordered indexes and the filter interpreter that runs inside scans;
//! and the redo log a worker writes its commits to.
//!
//! It is not: thread-safe (it needs no locks because one thread owns it), aware of transactions or
//! row locks (the data node's worker layers those on top), or allowed to touch the network.
//! It holds committed data only.

pub mod checkpoint;
pub mod filter;
pub mod partition;
pub mod redo;
pub mod row;

pub use partition::{ChangeSet, IndexBound, Partition, RowId};
pub use row::RowLayout;
