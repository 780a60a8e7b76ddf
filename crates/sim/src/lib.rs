//! The deterministic simulator: a whole cluster (arbitrator, data nodes in node groups, clients
//! running transactions and reads) in one thread, on simulated time, from one seed. It carries
//! the `cluster` crate's outputs over a simulated network that drops, delays, reorders and
//! duplicates messages, cuts the cluster in two, crashes nodes and slows them, runs the checkers
//! on every observation and at the end, and prints a digest of the whole event trace.
//!
//! It is not: a place for protocol logic. Nodes here run the same `cluster::node::DataNode` the
//! data node process runs; the simulator only decides what happens when, from its seed.

pub mod check;
pub mod disk;
pub mod rng;
mod world;

pub use world::{run, Config, FaultRates, Report};
