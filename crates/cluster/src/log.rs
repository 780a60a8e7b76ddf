//! A node's redo log as bytes and as state: each record in a frame of its length and CRC-32C
//! (reading stops at the first frame that is torn or damaged, and says so), and the state a log
//! restores at a global checkpoint. The simulator's disks and the real runtime's files are read
//! with the same functions.

use std::collections::{BTreeMap, BTreeSet};

use wire::codec::{DecodeError, DecodeResult, Reader, Writer};

use crate::layout::PartitionId;
use crate::msg::{Gci, TxnId, Versioned};
use crate::participant::Applied;
use crate::Record;

/// The longest record a log may hold (a copy of a partition's rows is the longest).
pub const RECORD_BYTES_MAX: usize = 64 << 20;
/// Each frame: the body's length, then its CRC-32C.
const FRAME_HEAD: usize = 8;

/// Appends one record, framed.
pub fn encode(record: &Record, out: &mut Vec<u8>) {
    let mut body = Vec::new();
    match record {
        Record::Write(a) => {
            body.put_u8(1);
            body.put_u32(a.partition);
            body.put_u64(a.key);
            body.put_u16(a.txn.coordinator);
            body.put_u64(a.txn.seq);
            body.put_u64(a.value);
            body.put_u64(a.version);
            body.put_u64(a.gci);
        }
        Record::Copy {
            partition,
            rows,
            gci,
        } => {
            body.put_u8(2);
            body.put_u32(*partition);
            body.put_u64(*gci);
            body.put_u32(rows.len() as u32);
            for (key, row) in rows {
                body.put_u64(*key);
                body.put_u64(row.value);
                body.put_u64(row.version);
            }
        }
        Record::Saved { gci } => {
            body.put_u8(3);
            body.put_u64(*gci);
        }
    }
    out.put_u32(body.len() as u32);
    out.put_u32(crc32c::crc32c(&body));
    out.extend_from_slice(&body);
}

fn decode(body: &[u8]) -> DecodeResult<Record> {
    let mut r = Reader::new(body);
    let record = match r.u8()? {
        1 => Record::Write(Applied {
            partition: r.u32()?,
            key: r.u64()?,
            txn: TxnId {
                coordinator: r.u16()?,
                seq: r.u64()?,
            },
            value: r.u64()?,
            version: r.u64()?,
            gci: r.u64()?,
        }),
        2 => {
            let (partition, gci) = (r.u32()?, r.u64()?);
            let n = r.count("copied rows", RECORD_BYTES_MAX / 24, 24)?;
            let rows = (0..n)
                .map(|_| {
                    let key = r.u64()?;
                    let value = r.u64()?;
                    Ok((
                        key,
                        Versioned {
                            value,
                            version: r.u64()?,
                        },
                    ))
                })
                .collect::<DecodeResult<_>>()?;
            Record::Copy {
                partition,
                rows,
                gci,
            }
        }
        3 => Record::Saved { gci: r.u64()? },
        tag => {
            return Err(DecodeError::BadTag {
                what: "redo record",
                tag,
            })
        }
    };
    r.finish()?;
    Ok(record)
}

/// What a log's bytes hold.
#[derive(Debug)]
pub struct Read {
    pub records: Vec<Record>,
    /// Bytes after the last whole record: a torn or damaged frame (a crash mid-write), ignored.
    pub trailing: usize,
}

/// Reads every whole, intact record from the start; stops at the first frame that is short,
/// fails its checksum, announces more than `RECORD_BYTES_MAX` or does not decode.
pub fn read(bytes: &[u8]) -> Read {
    let mut records = Vec::new();
    let mut at = 0;
    while bytes.len() - at >= FRAME_HEAD {
        let len = u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes")) as usize;
        let crc = u32::from_le_bytes(bytes[at + 4..at + 8].try_into().expect("4 bytes"));
        let start = at + FRAME_HEAD;
        if len > RECORD_BYTES_MAX || bytes.len() - start < len {
            break;
        }
        let body = &bytes[start..start + len];
        if crc32c::crc32c(body) != crc {
            break;
        }
        match decode(body) {
            Ok(record) => records.push(record),
            Err(_) => break,
        }
        at = start + len;
    }
    Read {
        records,
        trailing: bytes.len() - at,
    }
}

/// A restored state: per partition and key, the version and value.
pub type State = BTreeMap<(PartitionId, u64), (u64, u64)>;

/// The state `records` restore at checkpoint `gci`, for `partitions`: per key, the newest version
/// among the writes of checkpoints up to `gci` and the copies taken at or before it.
pub fn restore(records: &[Record], gci: Gci, partitions: &BTreeSet<PartitionId>) -> State {
    let mut state = State::new();
    let mut keep = |partition: PartitionId, key: u64, version: u64, value: u64| {
        let slot = state.entry((partition, key)).or_insert((0, 0));
        if version > slot.0 {
            *slot = (version, value);
        }
    };
    for record in records {
        match record {
            Record::Write(a) if a.gci <= gci && partitions.contains(&a.partition) => {
                keep(a.partition, a.key, a.version, a.value)
            }
            Record::Copy {
                partition,
                rows,
                gci: at,
            } if *at <= gci && partitions.contains(partition) => {
                for (key, row) in rows {
                    keep(*partition, *key, row.version, row.value);
                }
            }
            _ => {}
        }
    }
    state
}

/// The newest checkpoint a log says it saved.
pub fn saved(records: &[Record]) -> Gci {
    records
        .iter()
        .filter_map(|r| match r {
            Record::Saved { gci } => Some(*gci),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// The first difference between two states, for a failure message.
pub fn difference(expected: &State, got: &State) -> Option<String> {
    let keys: BTreeSet<&(PartitionId, u64)> = expected.keys().chain(got.keys()).collect();
    keys.into_iter().find_map(|k| {
        let (e, g) = (expected.get(k), got.get(k));
        (e != g).then(|| {
            format!(
                "partition {} key {}: expected (version, value) {e:?}, restored {g:?}",
                k.0, k.1
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(key: u64, version: u64, gci: Gci) -> Record {
        Record::Write(Applied {
            partition: 0,
            key,
            txn: TxnId {
                coordinator: 1,
                seq: version,
            },
            value: version * 10,
            version,
            gci,
        })
    }

    fn sample() -> Vec<Record> {
        vec![
            Record::Copy {
                partition: 0,
                rows: vec![(
                    1,
                    Versioned {
                        value: 10,
                        version: 1,
                    },
                )],
                gci: 2,
            },
            write(1, 2, 3),
            write(2, 1, 2),
            write(1, 3, 5),
            Record::Saved { gci: 3 },
        ]
    }

    #[test]
    fn a_log_restores_the_newest_version_up_to_the_checkpoint() {
        let records = sample();
        let all: BTreeSet<PartitionId> = [0].into();
        let at3 = restore(&records, 3, &all);
        assert_eq!(at3[&(0, 1)], (2, 20));
        assert_eq!(at3[&(0, 2)], (1, 10));
        assert_eq!(restore(&records, 5, &all)[&(0, 1)], (3, 30));
        assert!(restore(&records, 1, &all).is_empty());
        assert_eq!(saved(&records), 3);
        assert!(difference(&at3, &restore(&records, 5, &all)).is_some());
    }

    #[test]
    fn records_come_back_and_a_torn_or_damaged_tail_is_left() {
        let records = sample();
        let mut bytes = Vec::new();
        for r in &records {
            encode(r, &mut bytes);
        }
        let whole = read(&bytes);
        assert_eq!(whole.records, records);
        assert_eq!(whole.trailing, 0);
        // Every cut of the last record leaves the others.
        let last = {
            let mut b = Vec::new();
            encode(records.last().unwrap(), &mut b);
            b.len()
        };
        for cut in 1..last {
            let torn = read(&bytes[..bytes.len() - cut]);
            assert_eq!(torn.records, records[..records.len() - 1], "cut {cut}");
            assert_eq!(torn.trailing, last - cut);
        }
        // A flipped bit anywhere stops the read there, never a panic or a wrong record.
        for at in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x10;
            let read = read(&damaged);
            assert!(read.records.len() < records.len(), "byte {at}");
            assert_eq!(read.records[..], records[..read.records.len()]);
        }
    }
}
