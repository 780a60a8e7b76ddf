//! Every message that crosses a process boundary in Cairn's native protocol: the fixed frame header,
//! the message bodies, and their encoders and decoders. Pure functions over bytes: no I/O.
//!
//! Decoders never trust a length: each is checked against a limit in `base::limits` (or the bytes
//! actually left) before anything is allocated, and every failure is a `DecodeError`, never a panic.
//! The byte layout is drawn in docs/formats/native-protocol.md.

// Bytes from the network must never panic the process (issue 41): no unwrap, no expect, no
// unchecked slice index outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

pub mod codec;
pub mod frame;
pub mod message;
pub mod step;

pub use codec::DecodeError;
pub use frame::{FrameHeader, HEADER_BYTES, MAGIC, PROTOCOL_VERSION};
pub use message::*;
pub use step::{PlaceIn, ScanPlace, Step, StepKind, StepOutcome, StepReply};
