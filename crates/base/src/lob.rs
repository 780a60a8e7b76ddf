//! Long TEXT and BLOB values kept in parts (NDB's blob head and parts): which columns may hold
//! them, the reference a row keeps in their place, and the hidden table the parts live in.
//!
//! A MEDIUM or LONG TEXT/BLOB value longer than [`limits::LOB_INLINE_BYTES_MAX`] is cut by the
//! client library into parts of [`limits::LOB_PART_BYTES`], written as rows of
//! [`PARTS_TABLE`] (keyed by the value's random id and the part's number, partitioned by the id)
//! in the same transaction as its row, which holds a [`PartsRef`] instead. Reads are given the
//! reference and join the parts again; the data node deletes a value's parts when its row is
//! deleted or the value replaced. So a frame, a row, a redo record and a replication message
//! stay bounded whatever the value's length.

use crate::error::{Error, ErrorCode};
use crate::limits;
use crate::schema::{ColumnDef, TableDef};
use crate::types::{ColumnType, LobSize};

/// The hidden table holding every long value's parts.
pub const PARTS_TABLE: &str = "cairn_lob_parts";

/// What a row holds in place of a value stored in parts: the value's id (the parts' key) and
/// its length in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PartsRef {
    pub id: u64,
    pub len: u64,
}

impl PartsRef {
    /// Bytes of a reference in a row and on the wire: the id and the length, little-endian.
    pub const ENCODED_BYTES: usize = 16;

    pub fn encode(&self) -> [u8; Self::ENCODED_BYTES] {
        let mut out = [0u8; Self::ENCODED_BYTES];
        out[..8].copy_from_slice(&self.id.to_le_bytes());
        out[8..].copy_from_slice(&self.len.to_le_bytes());
        out
    }

    /// The reference `encode` wrote, None for bytes of another length.
    pub fn decode(bytes: &[u8]) -> Option<PartsRef> {
        if bytes.len() != Self::ENCODED_BYTES {
            return None;
        }
        let (id, len) = bytes.split_at(8);
        Some(PartsRef {
            id: u64::from_le_bytes(id.try_into().ok()?),
            len: u64::from_le_bytes(len.try_into().ok()?),
        })
    }

    /// How many parts the value has.
    pub fn part_count(&self) -> u32 {
        self.len.div_ceil(limits::LOB_PART_BYTES as u64) as u32
    }
}

/// Whether a column of type `ty` may hold a value in parts: MEDIUM and LONG TEXT and BLOB (the
/// smaller sizes are at most 65,535 bytes and always inline).
pub fn holds_parts(ty: ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::Text {
            size: LobSize::Medium | LobSize::Long
        } | ColumnType::Blob {
            size: LobSize::Medium | LobSize::Long
        }
    )
}

/// Whether a value of `len` bytes in a column that may hold parts goes to parts.
pub fn goes_to_parts(len: usize) -> bool {
    len > limits::LOB_INLINE_BYTES_MAX
}

/// Why a value of `len` bytes may not be column `c`'s as it comes, None when it may: kept in
/// parts (`cut`: a reference, or a value the client library is cutting) or longer than
/// `LOB_INLINE_BYTES_MAX` in a column that may hold parts, it is refused in a key or index
/// column, whose values are kept whole; and a long value not cut is refused in any.
pub fn refusal(def: &TableDef, c: u16, len: usize, cut: bool) -> Option<Error> {
    let col = def.columns.get(usize::from(c))?;
    let long = holds_parts(col.ty) && goes_to_parts(len);
    if !(cut || long) {
        return None;
    }
    let why = if def.column_indexed(c) {
        "is in a key or index, whose values are kept whole"
    } else if !cut {
        "keeps longer values in parts (the client library cuts them)"
    } else {
        return None;
    };
    Some(Error::new(
        ErrorCode::BadValue,
        format!(
            "a value of {len} bytes for column '{}' is longer than {} bytes: the column {why}",
            col.name,
            limits::LOB_INLINE_BYTES_MAX
        ),
    ))
}

/// Whether rows of `table` may hold references to parts.
pub fn table_holds_parts(table: &TableDef) -> bool {
    table.name != PARTS_TABLE && table.columns.iter().any(|c| holds_parts(c.ty))
}

/// The parts table's definition: `(id BIGINT UNSIGNED, part INT UNSIGNED, data MEDIUMBLOB)`
/// keyed by `(id, part)` and partitioned by `id`, so a value's parts share a partition.
pub fn parts_table() -> TableDef {
    let columns = vec![
        ColumnDef::new("id", ColumnType::BigInt { unsigned: true }),
        ColumnDef::new("part", ColumnType::Int { unsigned: true }),
        ColumnDef::new(
            "data",
            ColumnType::Blob {
                size: LobSize::Medium,
            },
        ),
    ];
    match TableDef::new(PARTS_TABLE, columns, &["id", "part"]) {
        Ok(mut def) => {
            def.partition_key = vec![0];
            def
        }
        // A fixed definition: failing to build it is a defect of this file.
        Err(e) => panic!("the parts table's definition is invalid: {e}"),
    }
}

/// The parts of `bytes`, numbered from 0.
pub fn parts(bytes: &[u8]) -> impl Iterator<Item = (u32, &[u8])> {
    bytes
        .chunks(limits::LOB_PART_BYTES)
        .enumerate()
        .map(|(i, part)| (i as u32, part))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_round_trip_and_count_their_parts() {
        let r = PartsRef {
            id: 0x0102_0304_0506_0708,
            len: limits::LOB_PART_BYTES as u64 * 3 + 1,
        };
        assert_eq!(PartsRef::decode(&r.encode()), Some(r));
        assert_eq!(PartsRef::decode(&[0; 15]), None);
        assert_eq!(r.part_count(), 4);
        let bytes = vec![7u8; r.len as usize];
        let cut: Vec<usize> = parts(&bytes).map(|(_, p)| p.len()).collect();
        assert_eq!(cut.len(), 4);
        assert_eq!(cut[3], 1);
    }

    #[test]
    fn only_medium_and_long_lobs_hold_parts() {
        assert!(holds_parts(ColumnType::Blob {
            size: LobSize::Long
        }));
        assert!(holds_parts(ColumnType::Text {
            size: LobSize::Medium
        }));
        assert!(!holds_parts(ColumnType::BLOB));
        assert!(!holds_parts(ColumnType::VarBinary { length: 10 }));
        assert!(!table_holds_parts(&parts_table()));
        assert!(goes_to_parts(limits::LOB_INLINE_BYTES_MAX + 1));
        assert!(!goes_to_parts(limits::LOB_INLINE_BYTES_MAX));
    }
}
