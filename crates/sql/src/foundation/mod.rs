//! The foundation of the SQL front end: what every layer above may use and that uses none of
//! them (SQL errors with their MySQL numbers, server-wide named locks).

pub(crate) mod error;
pub(crate) mod limits;
pub(crate) mod named_locks;
