//! One partition of one table, owned by exactly one worker thread: the compact row store, the
//! primary-key hash index, the ordered indexes and the filter interpreter that runs inside scans;
//! and the redo log a worker writes its commits to.
//!
//! It is not: thread-safe (it needs no locks because one thread owns it), aware of transactions or
//! row locks (the data node's worker layers those on top), or allowed to touch the network.
//! It holds committed data only.

// Bytes from disk must never panic the process (issue 41): no unwrap, no expect, no unchecked
// slice index outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

pub mod checkpoint;
pub mod filter;
pub mod partition;
pub mod redo;
pub mod row;

pub use partition::{ChangeSet, IndexBound, Partition, RowId};
pub use row::RowLayout;

/// Writes `bytes` over `out` at `at`: a field a file writer reserved and fills in once it knows
/// it (a length, a count, a checksum). Nothing is written where `out` is too short, which a
/// writer that reserved the place never meets.
pub(crate) fn fill_at(out: &mut [u8], at: usize, bytes: &[u8]) {
    if let Some(place) = out.get_mut(at..at + bytes.len()) {
        place.copy_from_slice(bytes);
    }
}
