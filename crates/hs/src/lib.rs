//! Cairn's HandlerSocket front end (an API-node role): the plugin's text protocol, byte for byte,
//! on a read and a write listener, served from the data nodes through the native client, with
//! keyed reads from many connections grouped into one batch per event-loop turn.
//!
//! It is not: a storage engine (it holds no rows; every request goes to the data node), or a
//! place for the `Q` debug hook (a denial of service in the plugin). Where Cairn answers
//! differently from the plugin on purpose, docs/handlersocket.md says so.

// Bytes from the network must never panic the process (issue 41): no unwrap, no expect, no
// unchecked slice index outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

mod alone;
pub mod exec;
pub mod protocol;
pub mod server;

pub use alone::{THREADS_DEFAULT, THREADS_MAX};
pub use server::{HsConfig, HsServer, LOOPS_MAX};
