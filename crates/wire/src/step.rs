//! Keyed steps: what a transaction coordinator asks of the worker owning one partition (read,
//! insert, update, write, delete or increment one row by its encoded primary key), and what the
//! worker answers; and the place a scan of a worker's partitions goes on from. Inside a data
//! node they travel on in-memory queues; to a partition of another node group they cross the
//! step link (`Message::Steps`, `Message::ScanPart`), encoded here.

use base::{limits, Error, Value};

use crate::codec::{DecodeError, DecodeResult, Reader, Writer};
use crate::message::{get_error, put_error, LockMode};

/// What one step of an operation does on the partition that owns its key.
#[derive(Debug, Clone, PartialEq)]
pub enum StepKind {
    /// Returns the projected columns (empty projection: all columns).
    Read {
        lock: LockMode,
        projection: Vec<u16>,
    },
    /// Inserts a full row (every column, canonical values).
    Insert {
        row: Vec<Value>,
    },
    /// Sets columns of an existing row.
    Update {
        updates: Vec<(u16, Value)>,
    },
    /// Update with `updates` when the key exists, else insert `row`.
    Write {
        row: Vec<Value>,
        updates: Vec<(u16, Value)>,
    },
    Delete,
    /// Adds amounts to integer columns of an existing row.
    Increment {
        amounts: Vec<(u16, i128)>,
    },
}

/// One keyed step, addressed to the worker owning `partition`.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// Which operation of the request this step belongs to.
    pub slot: u32,
    pub table: u32,
    /// The version of the table's definition the step was prepared against: the worker refuses
    /// the step when its partition holds another (DDL ran in between).
    pub version: u32,
    pub partition: u32,
    /// Encoded primary key of the target row.
    pub pk: Vec<u8>,
    pub kind: StepKind,
    /// Return the row's images before and after a write (for unique-index maintenance).
    pub want_images: bool,
}

/// What a step did.
#[derive(Debug, Clone, PartialEq)]
pub enum StepOutcome {
    Row(Vec<Value>),
    /// A write: images before (None for an insert) and after (None for a delete), if asked for.
    Written {
        old: Option<Vec<Value>>,
        new: Option<Vec<Value>>,
    },
    NotFound,
}

#[derive(Debug, Clone, PartialEq)]
pub struct StepReply {
    pub slot: u32,
    pub result: Result<StepOutcome, Error>,
}

fn put_pairs(out: &mut Vec<u8>, pairs: &[(u16, Value)]) {
    out.put_u32(pairs.len() as u32);
    for (column, value) in pairs {
        out.put_u16(*column);
        out.put_value(value);
    }
}

fn get_pairs(r: &mut Reader) -> DecodeResult<Vec<(u16, Value)>> {
    let n = r.count("step values", limits::COLUMNS_MAX, 3)?;
    (0..n).map(|_| Ok((r.u16()?, r.value()?))).collect()
}

fn put_image(out: &mut Vec<u8>, image: &Option<Vec<Value>>) {
    match image {
        None => out.put_u8(0),
        Some(values) => {
            out.put_u8(1);
            out.put_values(values);
        }
    }
}

fn get_image(r: &mut Reader) -> DecodeResult<Option<Vec<Value>>> {
    Ok(match r.u8()? {
        0 => None,
        1 => Some(r.values(limits::COLUMNS_MAX)?),
        tag => return Err(DecodeError::BadTag { what: "image", tag }),
    })
}

pub(crate) fn put_steps(out: &mut Vec<u8>, steps: &[Step]) {
    out.put_u32(steps.len() as u32);
    for s in steps {
        out.put_u32(s.slot);
        out.put_u32(s.table);
        out.put_u32(s.version);
        out.put_u32(s.partition);
        out.put_bytes(&s.pk);
        out.put_u8(u8::from(s.want_images));
        match &s.kind {
            StepKind::Read { lock, projection } => {
                out.put_u8(1);
                out.put_u8(*lock as u8);
                out.put_u16s(projection);
            }
            StepKind::Insert { row } => {
                out.put_u8(2);
                out.put_values(row);
            }
            StepKind::Update { updates } => {
                out.put_u8(3);
                put_pairs(out, updates);
            }
            StepKind::Write { row, updates } => {
                out.put_u8(4);
                out.put_values(row);
                put_pairs(out, updates);
            }
            StepKind::Delete => out.put_u8(5),
            StepKind::Increment { amounts } => {
                out.put_u8(6);
                out.put_u32(amounts.len() as u32);
                for (column, amount) in amounts {
                    out.put_u16(*column);
                    out.extend_from_slice(&amount.to_le_bytes());
                }
            }
        }
    }
}

pub(crate) fn get_steps(r: &mut Reader) -> DecodeResult<Vec<Step>> {
    let n = r.count("steps", limits::BATCH_OPERATIONS_MAX * 4, 22)?;
    let mut steps = Vec::with_capacity(n);
    for _ in 0..n {
        let slot = r.u32()?;
        let table = r.u32()?;
        let version = r.u32()?;
        let partition = r.u32()?;
        let pk = r.bytes("step key", limits::ENCODED_KEY_BYTES_MAX)?.to_vec();
        let want_images = r.flag("images flag")?;
        let kind = match r.u8()? {
            1 => StepKind::Read {
                lock: match r.u8()? {
                    1 => LockMode::CommittedRead,
                    2 => LockMode::Shared,
                    3 => LockMode::Exclusive,
                    tag => {
                        return Err(DecodeError::BadTag {
                            what: "lock mode",
                            tag,
                        })
                    }
                },
                projection: r.u16s("projection", limits::COLUMNS_MAX)?,
            },
            2 => StepKind::Insert {
                row: r.values(limits::COLUMNS_MAX)?,
            },
            3 => StepKind::Update {
                updates: get_pairs(r)?,
            },
            4 => StepKind::Write {
                row: r.values(limits::COLUMNS_MAX)?,
                updates: get_pairs(r)?,
            },
            5 => StepKind::Delete,
            6 => {
                let n = r.count("increments", limits::COLUMNS_MAX, 18)?;
                StepKind::Increment {
                    amounts: (0..n)
                        .map(|_| Ok((r.u16()?, r.i128()?)))
                        .collect::<DecodeResult<_>>()?,
                }
            }
            tag => return Err(DecodeError::BadTag { what: "step", tag }),
        };
        steps.push(Step {
            slot,
            table,
            version,
            partition,
            pk,
            kind,
            want_images,
        });
    }
    Ok(steps)
}

pub(crate) fn put_step_replies(out: &mut Vec<u8>, replies: &[StepReply]) {
    out.put_u32(replies.len() as u32);
    for reply in replies {
        out.put_u32(reply.slot);
        match &reply.result {
            Err(e) => {
                out.put_u8(0);
                put_error(out, e);
            }
            Ok(StepOutcome::Row(values)) => {
                out.put_u8(1);
                out.put_values(values);
            }
            Ok(StepOutcome::Written { old, new }) => {
                out.put_u8(2);
                put_image(out, old);
                put_image(out, new);
            }
            Ok(StepOutcome::NotFound) => out.put_u8(3),
        }
    }
}

pub(crate) fn get_step_replies(r: &mut Reader) -> DecodeResult<Vec<StepReply>> {
    let n = r.count("step replies", limits::BATCH_OPERATIONS_MAX * 4, 5)?;
    let mut replies = Vec::with_capacity(n);
    for _ in 0..n {
        let slot = r.u32()?;
        let result = match r.u8()? {
            0 => Err(get_error(r)?),
            1 => Ok(StepOutcome::Row(r.values(limits::COLUMNS_MAX)?)),
            2 => Ok(StepOutcome::Written {
                old: get_image(r)?,
                new: get_image(r)?,
            }),
            3 => Ok(StepOutcome::NotFound),
            tag => {
                return Err(DecodeError::BadTag {
                    what: "step reply",
                    tag,
                })
            }
        };
        replies.push(StepReply { slot, result });
    }
    Ok(replies)
}

/// Where a worker's part of a scan goes on: a position in the request's partition list and the
/// place in that partition. It names rows by slot or key, never by pointer, so the partition
/// may change between batches.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScanPlace {
    pub partition: usize,
    pub at: PlaceIn,
}

/// The place inside one partition.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum PlaceIn {
    #[default]
    Start,
    /// A full scan: the next row slot to visit.
    Slot(u32),
    /// A full scan, past the committed rows: the transaction's own images after this encoded
    /// primary key (None: from the first).
    Images(Option<Vec<u8>>),
    /// An index scan: the index key of the last row returned (the next batch starts past it).
    After(Vec<u8>),
    /// A small table's full scan in primary-key order, over all the stream's partitions at
    /// once: the encoded primary key of the last row returned.
    Sorted(Vec<u8>),
}

pub(crate) fn put_place(out: &mut Vec<u8>, place: &ScanPlace) {
    out.put_u32(place.partition as u32);
    match &place.at {
        PlaceIn::Start => out.put_u8(0),
        PlaceIn::Slot(slot) => {
            out.put_u8(1);
            out.put_u32(*slot);
        }
        PlaceIn::Images(None) => out.put_u8(2),
        PlaceIn::Images(Some(key)) => {
            out.put_u8(3);
            out.put_bytes(key);
        }
        PlaceIn::After(key) => {
            out.put_u8(4);
            out.put_bytes(key);
        }
        PlaceIn::Sorted(key) => {
            out.put_u8(5);
            out.put_bytes(key);
        }
    }
}

pub(crate) fn get_place(r: &mut Reader) -> DecodeResult<ScanPlace> {
    let partition = r.u32()? as usize;
    if partition > limits::PARTITIONS_MAX as usize {
        return Err(DecodeError::TooLong {
            what: "scan place",
            length: partition,
            limit: limits::PARTITIONS_MAX as usize,
        });
    }
    let at = match r.u8()? {
        0 => PlaceIn::Start,
        1 => PlaceIn::Slot(r.u32()?),
        2 => PlaceIn::Images(None),
        3 => PlaceIn::Images(Some(
            r.bytes("scan key", 2 * limits::ENCODED_KEY_BYTES_MAX)?
                .to_vec(),
        )),
        4 => PlaceIn::After(
            r.bytes("scan key", 2 * limits::ENCODED_KEY_BYTES_MAX)?
                .to_vec(),
        ),
        5 => PlaceIn::Sorted(
            r.bytes("scan key", 2 * limits::ENCODED_KEY_BYTES_MAX)?
                .to_vec(),
        ),
        tag => {
            return Err(DecodeError::BadTag {
                what: "scan place",
                tag,
            })
        }
    };
    Ok(ScanPlace { partition, at })
}
