//! Cairn's benchmark programs. Each runs against a live cluster through the same client library
//! applications use, and reports figures to put side by side with a peer in the same run.
//!
//! It is not: a test suite (timings here are never asserted), or a user of data node internals.

pub mod floor;
pub mod kv;
pub mod load;
pub mod readperf;
pub mod write;
