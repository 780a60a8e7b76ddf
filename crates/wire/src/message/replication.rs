//! Rows a primary sends its backups and starting nodes (`Replicate`, `CopyRows`, `Prepared`,
//! `Resolve`), and the limits of the copy messages.

use crate::codec::{DecodeError, DecodeResult, Reader, Writer};
use base::limits;

/// Commit names in one `CopyNames`.
pub const COPY_NAMES_MAX: usize = 65_536;

/// One row's new image in a replicated commit: its table, partition and encoded primary key,
/// and the row (None: deleted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowChange {
    pub table: u32,
    pub partition: u32,
    pub key: Vec<u8>,
    pub row: Option<Vec<u8>>,
}

impl RowChange {
    /// Bytes the change takes in a `Replicate` body.
    pub fn encoded_bytes(&self) -> usize {
        8 + 4 + self.key.len() + 1 + self.row.as_ref().map_or(0, |r| 4 + r.len())
    }
}

/// Jobs one `TakenLog` may carry (a member keeps at most this many).
pub const TAKEN_ENTRIES_MAX: usize = 1 << 16;

/// Node groups in one `CopyPrimaries` (data node ids are one byte).
pub const NODE_GROUPS_MAX: usize = 256;

/// Writes the rows of a `Replicate` or `CopyRows`.
pub(super) fn put_changes(out: &mut Vec<u8>, changes: &[RowChange]) {
    out.put_u32(changes.len() as u32);
    for c in changes {
        out.put_u32(c.table);
        out.put_u32(c.partition);
        out.put_bytes(&c.key);
        match &c.row {
            None => out.put_u8(0),
            Some(row) => {
                out.put_u8(1);
                out.put_bytes(row);
            }
        }
    }
}

/// Reads the rows of a `Replicate` or `CopyRows`, each checked against its limit.
pub(super) fn get_changes(r: &mut Reader) -> DecodeResult<Vec<RowChange>> {
    // Table, partition, key length and presence: 13 bytes at least.
    let n = r.count("replicated rows", REPLICATED_ROWS_MAX, 13)?;
    let mut changes = Vec::with_capacity(n);
    for _ in 0..n {
        let table = r.u32()?;
        let partition = r.u32()?;
        let key = r
            .bytes("replicated key", limits::ENCODED_KEY_BYTES_MAX)?
            .to_vec();
        let row = match r.u8()? {
            0 => None,
            1 => Some(r.bytes("replicated row", limits::ROW_BYTES_MAX)?.to_vec()),
            other => {
                return Err(DecodeError::BadTag {
                    what: "replicated row",
                    tag: other,
                })
            }
        };
        changes.push(RowChange {
            table,
            partition,
            key,
            row,
        });
    }
    Ok(changes)
}

/// The most rows one `Replicate` may carry (a transaction's operations are bounded far below).
pub const REPLICATED_ROWS_MAX: usize = 1 << 20;
