//! The foundation of the SQL front end: what every layer above may use and that uses none of
//! them: SQL errors with their MySQL numbers, the bounds (`limits.rs`), the configuration, the connection's
//! character sets, random bytes and the server-wide named locks.

pub(crate) mod charset;
pub(crate) mod config;
pub(crate) mod error;
pub(crate) mod limits;
pub(crate) mod named_locks;
pub(crate) mod random;
