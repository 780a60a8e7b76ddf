//! The redo log of one worker: every committed change, written before the commit is acknowledged
//! and replayed at restart, in preallocated segment files that are recycled once a checkpoint
//! covers them. Records carry a checksum seeded with their segment's number, so a torn tail, or
//! the stale records of a recycled file, end the log; a damaged record that a later record shows
//! was durable is an error naming the file and offset.
//!
//! Files (little-endian), drawn in docs/formats/redo-log.md: `redo-<worker>-<segment>.log`, each
//! `header: magic "CAIRNRDO" (8) | version u32 | worker u32 | segment u64 | CRC-32C u32 | 0 u32`
//! then records: `body length u32 | CRC-32C(segment, body) u32 | body`
//! body: `commit sequence u64 | transaction u64 | participants u16 | synced position u64 |
//! change count u32 | changes | [kind u8 | name session u64 | name transaction u64]`; change:
//! `table u32 | partition u32 | kind u8 (1 put, 2 delete) | key length u32 | key | [row length
//! u32 | row]` (row only for put). The trailer (version 3) gives the record's kind (1 a commit,
//! 2 a prepared part of a two-phase commit, held and not applied, 3 a prepared part dropped)
//! and the name of the two-phase commit it belongs to; a record without it (all of version 2)
//! is a commit without a name.
//!
//! All file access goes through [`LogFile`], the seam where tests inject failed writes and
//! fsyncs. After any failed write or fsync the log refuses everything (fail-stop): the node must
//! not acknowledge a commit it could not make durable.

mod file;
mod read;
mod write;

pub use file::{sync_directory, Faults, FaultyFile, LogFile};
pub use read::{read_log, LogContents};
pub use write::{LogConfig, RedoLog};

use std::io;
use std::path::{Path, PathBuf};

/// The first bytes of every redo segment.
pub const MAGIC: &[u8; 8] = b"CAIRNRDO";
pub const VERSION: u32 = 3;
/// The older version still read: its records are commits without names.
pub const VERSION_UNNAMED: u32 = 2;
/// Bytes of a record's trailer: kind and name.
const TRAILER_BYTES: usize = 17;
/// Bytes of a segment's header; the first record starts here.
pub const HEADER_BYTES: u64 = 32;
/// Largest record body (2 GiB): a segment grown by one record keeps its offsets within the 32
/// bits a packed position holds.
pub const RECORD_BYTES_MAX: usize = 1 << 31;
/// Smallest record body: sequence, transaction, participants, synced position and change count.
const RECORD_BODY_MIN: usize = 30;
/// Segment sizes allowed: positions keep the offset in 32 bits.
pub const SEGMENT_BYTES_MIN: u64 = 64 * 1024;
pub const SEGMENT_BYTES_MAX: u64 = 1 << 30;
/// Default segment size.
pub const SEGMENT_BYTES_DEFAULT: u64 = 64 << 20;
/// Recycled segment files kept for reuse; more are deleted.
const FREE_SEGMENTS_MAX: usize = 4;

/// A place in a worker's log: segment number and byte offset within it. Ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Position {
    pub segment: u64,
    pub offset: u64,
}

impl Position {
    /// The position as one number (segment in the high 32 bits), as records store it.
    pub fn packed(self) -> u64 {
        (self.segment << 32) | (self.offset & 0xFFFF_FFFF)
    }

    pub fn unpack(v: u64) -> Position {
        Position {
            segment: v >> 32,
            offset: v & 0xFFFF_FFFF,
        }
    }
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "segment {} offset {}", self.segment, self.offset)
    }
}

/// The file name of `worker`'s segment `segment`.
pub fn segment_path(dir: &Path, worker: u32, segment: u64) -> PathBuf {
    dir.join(format!("redo-{worker}-{segment:08}.log"))
}

/// Parses a segment file name into (worker, segment).
pub fn parse_segment_name(name: &str) -> Option<(u32, u64)> {
    let rest = name.strip_prefix("redo-")?.strip_suffix(".log")?;
    let (worker, segment) = rest.split_once('-')?;
    Some((worker.parse().ok()?, segment.parse().ok()?))
}

/// Every redo segment in `dir`: (worker, segment, path), sorted.
pub fn list_segments(dir: &Path) -> io::Result<Vec<(u32, u64, PathBuf)>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if let Some((w, s)) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(parse_segment_name)
        {
            found.push((w, s, path));
        }
    }
    found.sort();
    Ok(found)
}

/// One changed row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub table: u32,
    pub partition: u32,
    /// Encoded primary key.
    pub key: Vec<u8>,
    /// The row image after the commit; None for a delete.
    pub row: Option<Box<[u8]>>,
}

/// A changed row as the worker holds it, borrowed for writing.
#[derive(Debug, Clone, Copy)]
pub struct ChangeRef<'a> {
    pub table: u32,
    pub partition: u32,
    pub key: &'a [u8],
    pub row: Option<&'a [u8]>,
}

/// One worker's part of one committed transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Node-wide commit order, the same in every part: a later commit of the same row has a
    /// higher number.
    pub sequence: u64,
    pub transaction: u64,
    /// How many workers hold a part of this transaction; replay applies it only when every
    /// part is in the logs.
    pub participants: u16,
    pub changes: Vec<Change>,
    pub kind: RecordKind,
    /// The two-phase commit it belongs to (its decision's name), if any.
    pub name: Option<(u64, u64)>,
}

/// What a record says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RecordKind {
    /// Committed changes, replayed at restart.
    #[default]
    Commit,
    /// A prepared part of a two-phase commit: its changes, held (not applied) until a commit
    /// or drop record of its name follows.
    Prepared,
    /// The prepared part of its name was rolled back.
    Dropped,
}

impl RecordKind {
    fn code(self) -> u8 {
        match self {
            RecordKind::Commit => 1,
            RecordKind::Prepared => 2,
            RecordKind::Dropped => 3,
        }
    }

    fn of(code: u8) -> Option<RecordKind> {
        match code {
            1 => Some(RecordKind::Commit),
            2 => Some(RecordKind::Prepared),
            3 => Some(RecordKind::Dropped),
            _ => None,
        }
    }
}

/// What a record is, besides its changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RecordHead {
    pub sequence: u64,
    pub transaction: u64,
    pub participants: u16,
    pub kind: RecordKind,
    pub name: Option<(u64, u64)>,
}

/// Why the log cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum RedoError {
    #[error("redo log {path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("redo log {path} at byte {offset}: {what}")]
    Corrupt {
        path: PathBuf,
        offset: u64,
        what: String,
    },
    #[error("redo log {path} failed earlier ({why}); refusing further writes")]
    Poisoned { path: PathBuf, why: String },
}

#[cfg(test)]
mod tests;
