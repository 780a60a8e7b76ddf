//! The byte layout of every message body, read and checked: `Message::decode`.

use super::replication::get_changes;
use super::schema::{get_collation, get_column, get_constraints, get_index_columns, get_options};
use super::status::node_ids;
use super::*;
use crate::codec::{DecodeError, DecodeResult, Reader};
use crate::frame::FrameHeader;
use base::limits;

impl Message {
    /// Decodes a body of the type named in `header`; fails on any malformation or trailing byte.
    pub fn decode(header: &FrameHeader, body: &[u8]) -> DecodeResult<Message> {
        let mut r = Reader::new(body);
        let name = |r: &mut Reader| r.string("name", limits::WIRE_NAME_BYTES_MAX);
        let message = match header.message_type {
            1 => Message::Hello {
                client_name: r.string("client name", limits::CLIENT_NAME_BYTES_MAX)?,
                session: r.u64()?,
            },
            30 => Message::CommitOutcome {
                session: r.u64()?,
                transaction: r.u64()?,
            },
            39 => Message::StepHello {
                node_id: r.u32()?,
                epoch: r.u64()?,
            },
            40 => Message::Steps {
                transaction: r.u64()?,
                statement: r.u32()?,
                keep_from: r.u32()?,
                steps: crate::step::get_steps(&mut r)?,
            },
            41 => Message::StepsDone {
                replies: crate::step::get_step_replies(&mut r)?,
            },
            42 => Message::EndRemote {
                transaction: r.u64()?,
                end: match r.u8()? {
                    0 => RemoteEnd::Rollback,
                    1 => RemoteEnd::Commit,
                    2 => RemoteEnd::Prepare,
                    3 => RemoteEnd::CommitPrepared,
                    tag => {
                        return Err(DecodeError::BadTag {
                            what: "remote end",
                            tag,
                        })
                    }
                },
            },
            48 => Message::ChecksumsRequest,
            52 => Message::Gcp {
                round: r.u64()?,
                step: match r.u8()? {
                    0 => GcpStep::Hold,
                    1 => GcpStep::Cut,
                    2 => GcpStep::Save,
                    3 => GcpStep::Saved,
                    tag => {
                        return Err(DecodeError::BadTag {
                            what: "global checkpoint step",
                            tag,
                        })
                    }
                },
            },
            53 => Message::TakenAsk { after: r.u64()? },
            54 => {
                let from = r.u64()?;
                let last = r.u64()?;
                // Number, kind, name and an empty row count: 29 bytes at least.
                let n = r.count("taken jobs", TAKEN_ENTRIES_MAX, 29)?;
                let entries = (0..n)
                    .map(|_| {
                        Ok(TakenEntry {
                            seq: r.u64()?,
                            kind: match r.u8()? {
                                0 => TakenKind::Rows,
                                1 => TakenKind::Restart,
                                tag => {
                                    return Err(DecodeError::BadTag {
                                        what: "taken job",
                                        tag,
                                    })
                                }
                            },
                            session: r.u64()?,
                            transaction: r.u64()?,
                            changes: get_changes(&mut r)?,
                        })
                    })
                    .collect::<DecodeResult<_>>()?;
                Message::TakenLog {
                    from,
                    last,
                    entries,
                    more: r.flag("more flag")?,
                }
            }
            55 => Message::LevelUp {
                seq: r.u64()?,
                session: r.u64()?,
                transaction: r.u64()?,
                changes: get_changes(&mut r)?,
            },
            51 => {
                let epoch = r.u64()?;
                let n = r.count("node groups", NODE_GROUPS_MAX, 8)?;
                Message::CopyPrimaries {
                    epoch,
                    primaries: (0..n)
                        .map(|_| Ok((r.u32()?, r.u32()?)))
                        .collect::<DecodeResult<_>>()?,
                }
            }
            50 => {
                let n = r.count("commit names", COPY_NAMES_MAX, 16)?;
                Message::CopyNames {
                    names: (0..n)
                        .map(|_| Ok((r.u64()?, r.u64()?)))
                        .collect::<DecodeResult<_>>()?,
                }
            }
            49 => {
                let n = r.count(
                    "partitions",
                    limits::TABLES_MAX * limits::PARTITIONS_MAX as usize,
                    24,
                )?;
                Message::Checksums {
                    partitions: (0..n)
                        .map(|_| Ok((r.u32()?, r.u32()?, r.u64()?, r.u64()?)))
                        .collect::<DecodeResult<_>>()?,
                }
            }
            46 => Message::Prepared {
                coordinator: r.u32()?,
                transaction: r.u64()?,
                changes: get_changes(&mut r)?,
            },
            47 => Message::Resolve {
                coordinator: r.u32()?,
                transaction: r.u64()?,
                commit: r.flag("resolve flag")?,
                changes: get_changes(&mut r)?,
            },
            43 => Message::UndoRemote {
                transaction: r.u64()?,
                statement: r.u32()?,
            },
            44 => Message::ScanPart {
                transaction: r.u64()?,
                request: get_scan_request(&mut r)?,
                partitions: {
                    let n = r.count("partitions", limits::PARTITIONS_MAX as usize, 4)?;
                    (0..n).map(|_| r.u32()).collect::<DecodeResult<_>>()?
                },
                place: crate::step::get_place(&mut r)?,
                rows_max: r.u32()?,
                bytes_max: r.u32()?,
            },
            45 => {
                let n = r.count("rows", limits::SCAN_BATCH_ROWS_MAX, 8)?;
                let rows = (0..n)
                    .map(|_| {
                        Ok((
                            r.bytes("index key", 2 * limits::ENCODED_KEY_BYTES_MAX)?
                                .to_vec(),
                            r.values(limits::COLUMNS_MAX)?,
                        ))
                    })
                    .collect::<DecodeResult<_>>()?;
                let next = match r.u8()? {
                    0 => None,
                    1 => Some(crate::step::get_place(&mut r)?),
                    tag => {
                        return Err(DecodeError::BadTag {
                            what: "next place",
                            tag,
                        })
                    }
                };
                Message::ScanPartRows { rows, next }
            }
            31 => Message::Outcome {
                committed: r.u8()? != 0,
            },
            32 => Message::TableIds { last: r.u32()? },
            33 => Message::ScanNext,
            34 => Message::ScanClose,
            35 => Message::CopyCatalog {
                catalog: r
                    .bytes("catalog", limits::FRAME_BODY_BYTES_MAX as usize)?
                    .to_vec(),
            },
            36 => Message::CopyRows {
                changes: get_changes(&mut r)?,
            },
            37 => Message::CopyDone { rows: r.u64()? },
            38 => {
                let how = r.u8()?;
                if how > 3 {
                    return Err(DecodeError::BadTag {
                        what: "shutdown flags",
                        tag: how,
                    });
                }
                Message::Shutdown {
                    restart: how & 1 != 0,
                    initial: how & 2 != 0,
                }
            }
            2 => {
                let node_id = r.u32()?;
                let worker_count = r.u32()?;
                let flags = r.u8()?;
                Message::HelloReply {
                    node_id,
                    worker_count,
                    serving: flags & 1 != 0,
                    reads: flags & 2 != 0,
                    group: r.u32()?,
                    groups: r.u32()?,
                }
            }
            3 => Message::CreateTable(get_table(&mut r)?),
            4 => {
                let table = get_table(&mut r)?;
                let n = r.count("index tables", limits::INDEXES_MAX, 8)?;
                let index_tables = (0..n)
                    .map(|_| get_table(&mut r))
                    .collect::<DecodeResult<_>>()?;
                Message::TableInfo {
                    table,
                    index_tables,
                }
            }
            5 => Message::DropTable {
                name: name(&mut r)?,
            },
            6 => Message::GetTable {
                name: name(&mut r)?,
            },
            21 => Message::CreateDatabase {
                name: name(&mut r)?,
                collation: get_collation(&mut r)?,
            },
            22 => Message::DropDatabase {
                name: name(&mut r)?,
            },
            27 => Message::AlterDatabase {
                name: name(&mut r)?,
                collation: get_collation(&mut r)?,
            },
            28 => Message::PeerHello {
                node_id: r.u32()?,
                epoch: r.u64()?,
            },
            29 => {
                let session = r.u64()?;
                let transaction = r.u64()?;
                Message::Replicate {
                    session,
                    transaction,
                    changes: get_changes(&mut r)?,
                    decision: r.u64()?,
                }
            }
            23 => Message::ListDatabases,
            26 => {
                let n = r.count("databases", limits::TABLES_MAX, 5)?;
                let databases = (0..n)
                    .map(|_| Ok((name(&mut r)?, get_collation(&mut r)?)))
                    .collect::<DecodeResult<_>>()?;
                Message::DatabaseList { databases }
            }
            24 => {
                let (table, version, name) = (name(&mut r)?, r.u32()?, name(&mut r)?);
                let (kind, columns, prefixes) = get_index_columns(&mut r)?;
                Message::AddIndex {
                    table,
                    version,
                    name,
                    kind,
                    columns,
                    prefixes,
                }
            }
            25 => {
                let table = name(&mut r)?;
                let change = match r.u8()? {
                    1 => TableChange::DropIndex {
                        name: name(&mut r)?,
                    },
                    2 => TableChange::Rename { to: name(&mut r)? },
                    3 => TableChange::Options {
                        options: get_options(&mut r)?.0,
                        comment: r.string("table comment", limits::TABLE_COMMENT_BYTES_MAX)?,
                    },
                    4 => {
                        let version = r.u32()?;
                        let n = r.count("columns", limits::COLUMNS_MAX, 17)?;
                        let mut columns = Vec::with_capacity(n);
                        for _ in 0..n {
                            let column = get_column(&mut r)?;
                            let source = match r.u8()? {
                                1 => ColumnSource::Kept(r.u16()?),
                                2 => ColumnSource::Filled(r.value()?),
                                tag => {
                                    return Err(DecodeError::BadTag {
                                        what: "column source",
                                        tag,
                                    })
                                }
                            };
                            columns.push(NewColumn { column, source });
                        }
                        TableChange::Columns { version, columns }
                    }
                    5 => {
                        let version = r.u32()?;
                        let (foreign_keys, checks) = get_constraints(&mut r)?;
                        TableChange::Constraints {
                            version,
                            foreign_keys,
                            checks,
                        }
                    }
                    tag => {
                        return Err(DecodeError::BadTag {
                            what: "table change",
                            tag,
                        })
                    }
                };
                Message::AlterTable { table, change }
            }
            7 => {
                let transaction = r.u64()?;
                let statement = r.u32()?;
                let keep_from = r.u32()?;
                let exec = match r.u8()? {
                    1 => ExecType::NoCommit,
                    2 => ExecType::Commit,
                    3 => ExecType::Rollback,
                    4 => ExecType::UndoStatement,
                    tag => {
                        return Err(DecodeError::BadTag {
                            what: "exec type",
                            tag,
                        })
                    }
                };
                let n = r.count("operations", limits::BATCH_OPERATIONS_MAX, 16)?;
                let mut operations = Vec::with_capacity(n);
                for _ in 0..n {
                    let kind = OpKind::from_code(r.u8()?)?;
                    let table = r.u32()?;
                    let version = r.u32()?;
                    let index = match r.u16()? {
                        u16::MAX => None,
                        i => Some(i),
                    };
                    let key = r.values(limits::KEY_COLUMNS_MAX)?;
                    let nv = r.count("operation values", limits::COLUMNS_MAX, 3)?;
                    let mut values = Vec::with_capacity(nv);
                    for _ in 0..nv {
                        let c = r.u16()?;
                        values.push((c, r.value()?));
                    }
                    let projection = r.u16s("projection", limits::COLUMNS_MAX)?;
                    operations.push(Operation {
                        kind,
                        table,
                        version,
                        index,
                        key,
                        values,
                        projection,
                    });
                }
                Message::Execute {
                    transaction,
                    statement,
                    keep_from,
                    exec,
                    operations,
                }
            }
            8 => match r.u8()? {
                0 => {
                    let n = r.count("results", limits::BATCH_OPERATIONS_MAX, 1)?;
                    let mut results = Vec::with_capacity(n);
                    for _ in 0..n {
                        results.push(match r.u8()? {
                            1 => OpResult::Row(r.values(limits::COLUMNS_MAX)?),
                            2 => {
                                let some = r.u8()? != 0;
                                let v = r.u64()?;
                                OpResult::Done {
                                    assigned: some.then_some(v),
                                }
                            }
                            3 => OpResult::NotFound,
                            tag => {
                                return Err(DecodeError::BadTag {
                                    what: "result",
                                    tag,
                                })
                            }
                        });
                    }
                    Message::ExecuteReply(ExecuteOutcome::Ok(results))
                }
                1 => {
                    let op_index = r.u32()?;
                    Message::ExecuteReply(ExecuteOutcome::Aborted {
                        op_index,
                        error: get_error(&mut r)?,
                    })
                }
                2 => {
                    let op_index = r.u32()?;
                    Message::ExecuteReply(ExecuteOutcome::StatementUndone {
                        op_index,
                        error: get_error(&mut r)?,
                    })
                }
                tag => {
                    return Err(DecodeError::BadTag {
                        what: "execute outcome",
                        tag,
                    })
                }
            },
            9 => Message::Scan(get_scan_request(&mut r)?),
            10 => {
                let n = r.count("rows", limits::SCAN_BATCH_ROWS_MAX, 4)?;
                let rows = (0..n)
                    .map(|_| r.values(limits::COLUMNS_MAX))
                    .collect::<DecodeResult<_>>()?;
                Message::ScanRows { rows }
            }
            11 => Message::Failure(get_error(&mut r)?),
            12 => Message::Ping {
                payload: r
                    .bytes("ping", limits::FRAME_BODY_BYTES_MAX as usize)?
                    .to_vec(),
            },
            13 => Message::Pong {
                payload: r
                    .bytes("pong", limits::FRAME_BODY_BYTES_MAX as usize)?
                    .to_vec(),
            },
            14 => Message::ListTables,
            15 => {
                let n = r.count("table names", limits::TABLES_MAX, 4)?;
                let names = (0..n).map(|_| name(&mut r)).collect::<DecodeResult<_>>()?;
                Message::TableList { names }
            }
            16 => Message::Status,
            17 => Message::StatusReply(NodeStatus {
                node_id: r.u32()?,
                worker_count: r.u32()?,
                resident_bytes: r.u64()?,
                table_count: r.u32()?,
                row_count: r.u64()?,
                data_memory_bytes: r.u64()?,
                data_memory_limit: r.u64()?,
                tables: {
                    let n = r.count("tables", limits::TABLES_MAX, 28)?;
                    (0..n)
                        .map(|_| {
                            Ok(TableMemory {
                                id: r.u32()?,
                                rows: r.u64()?,
                                data_bytes: r.u64()?,
                                index_bytes: r.u64()?,
                            })
                        })
                        .collect::<DecodeResult<_>>()?
                },
                view_epoch: r.u64()?,
                group: node_ids(&mut r)?,
                members: node_ids(&mut r)?,
                copies: {
                    let n = r.count("copies", GROUP_NODES_MAX, 29)?;
                    (0..n)
                        .map(|_| {
                            Ok(CopyStatus {
                                node: r.u32()?,
                                rows: r.u64()?,
                                partitions_done: r.u32()?,
                                partitions: r.u32()?,
                                micros: r.u64()?,
                                done: r.u8()? != 0,
                            })
                        })
                        .collect::<DecodeResult<_>>()?
                },
                backup_reads: r.u64()?,
                held_parts: r.u32()?,
                in_doubt: r.u32()?,
            }),
            18 => Message::Done,
            19 => Message::Checkpoint,
            20 => Message::CheckpointReply(CheckpointInfo {
                id: r.u64()?,
                full: r.u8()? != 0,
                entries: r.u64()?,
                bytes: r.u64()?,
                micros: r.u64()?,
            }),
            other => return Err(DecodeError::UnknownMessage(other)),
        };
        r.finish()?;
        Ok(message)
    }
}
