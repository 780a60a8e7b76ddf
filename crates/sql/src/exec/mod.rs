//! Running plans against the data nodes: the executor (keys, bounds and pushed filters to
//! operations), UPDATE and DELETE, and SELECTs streamed to their client.

pub(crate) mod run;
pub(crate) mod stream;
pub(crate) mod write;
