//! Round trips and malformed bodies of every message.
use super::*;
use crate::codec::{DecodeError, Reader, Writer};
use crate::frame::{FrameHeader, HEADER_BYTES};
use base::filter::Filter;
use base::schema::{ColumnDef, TableOptions};
use base::types::ColumnType;
use base::{limits, ErrorCode};
use proptest::prelude::*;

fn round_trip(m: &Message) -> Message {
    let mut out = Vec::new();
    m.write_frame(&mut out, 7, 0, 42);
    let header_bytes: [u8; HEADER_BYTES] = out[..HEADER_BYTES].try_into().unwrap();
    let header = FrameHeader::decode(&header_bytes).unwrap();
    header.verify(&header_bytes, &out[HEADER_BYTES..]).unwrap();
    assert_eq!(header.request_id, 42);
    Message::decode(&header, &out[HEADER_BYTES..]).unwrap()
}

#[test]
fn a_bad_table_collation_tag_is_refused() {
    let table = TableDef::new(
        "t",
        vec![ColumnDef::new("id", ColumnType::Int { unsigned: false })],
        &["id"],
    )
    .unwrap();
    let mut out = Vec::new();
    put_table(&mut out, &table);
    // The options byte sits before the u32 index of and the empty comment (its u32 length);
    // tag 15 names no collation.
    let at = out.len() - 9;
    out[at] |= 15 << 3;
    let err = get_table(&mut Reader::new(&out)).unwrap_err();
    assert!(matches!(
        err,
        DecodeError::BadTag {
            what: "table collation",
            tag: 15
        }
    ));
}

#[test]
fn a_spatial_flag_on_another_type_is_refused() {
    let mut c = ColumnDef::new("g", ColumnType::Int { unsigned: false });
    c.geometry = Some(base::geometry::GeometryColumn {
        kind: base::geometry::GeometryKind::Point,
        srid: None,
    });
    let mut out = Vec::new();
    super::schema::put_column(&mut out, &c);
    let err = super::schema::get_column(&mut Reader::new(&out)).unwrap_err();
    assert!(
        matches!(
            err,
            DecodeError::BadTag {
                what: "spatial column type",
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn messages_round_trip() {
    let table = TableDef::new(
        "t",
        vec![
            ColumnDef::new("id", ColumnType::BigInt { unsigned: false }),
            ColumnDef::new("c", ColumnType::VarChar { length: 10 })
                .nullable()
                .default(Value::from("x")),
            ColumnDef::new("t", ColumnType::Timestamp { fsp: 3 })
                .default_current_time(2)
                .on_update_current_time(),
            ColumnDef::new("u", ColumnType::DateTime { fsp: 0 })
                .nullable()
                .on_update_current_time(),
            ColumnDef::new(
                "j",
                ColumnType::Text {
                    size: base::types::LobSize::Long,
                },
            )
            .collation(base::types::Collation::Utf8mb4Bin)
            .nullable()
            .json(),
            ColumnDef {
                display_width: 5,
                zerofill: true,
                ..ColumnDef::new("z", ColumnType::Int { unsigned: true })
            },
            ColumnDef {
                display_width: 7,
                scale: Some(4),
                ..ColumnDef::new("f", ColumnType::Float)
            },
            ColumnDef {
                members: vec!["a".into(), "b'c".into()],
                ..ColumnDef::new("e", ColumnType::Enum)
            },
            ColumnDef {
                members: vec!["x".into(), "y".into()],
                ..ColumnDef::new("s", ColumnType::Set)
            },
            ColumnDef {
                display_width: 1,
                comment: "a flag, 'quoted'".into(),
                ..ColumnDef::new("b", ColumnType::TinyInt { unsigned: false })
            },
            ColumnDef {
                generated: Some(base::schema::Generated {
                    expr: "`b` + 1".into(),
                    stored: false,
                }),
                ..ColumnDef::new("gv", ColumnType::Int { unsigned: false }).nullable()
            },
            ColumnDef {
                geometry: Some(base::geometry::GeometryColumn {
                    kind: base::geometry::GeometryKind::LineString,
                    srid: Some(4326),
                }),
                ..ColumnDef::new(
                    "ls",
                    ColumnType::Blob {
                        size: base::types::LobSize::Long,
                    },
                )
            },
            ColumnDef {
                geometry: Some(base::geometry::GeometryColumn {
                    kind: base::geometry::GeometryKind::Geometry,
                    srid: None,
                }),
                ..ColumnDef::new(
                    "gg",
                    ColumnType::Blob {
                        size: base::types::LobSize::Long,
                    },
                )
                .nullable()
            },
            ColumnDef {
                default: Some(base::Value::Int(8)),
                default_expr: Some("(3 + 5)".into()),
                ..ColumnDef::new("de", ColumnType::Int { unsigned: false }).nullable()
            },
            ColumnDef {
                display_width: 3,
                generated: Some(base::schema::Generated {
                    expr: "concat(`e`,'x')".into(),
                    stored: true,
                }),
                ..ColumnDef::new("gs", ColumnType::VarChar { length: 9 }).nullable()
            },
        ],
        &["id"],
    )
    .unwrap()
    .with_index("c", IndexKind::Unique, &["c"])
    .unwrap();
    let mut with_options = table
        .clone()
        .with_index("p", IndexKind::Ordered, &["c", "id"])
        .unwrap()
        .with_prefixes(&[4, 0]);
    with_options.options = TableOptions {
        read_backup: true,
        fully_replicated: false,
        nologging: true,
        collation: Some(Collation::Binary),
    };
    let fk = |name: &str, on_delete, declared| base::foreign_key::ForeignKeyDef {
        name: name.into(),
        columns: vec![1, 0],
        parent: "db/parent".into(),
        parent_columns: vec!["a".into(), "b".into()],
        on_delete,
        on_update: base::foreign_key::ReferenceAction::SetNull,
        declared,
    };
    let mut with_keys = table.clone();
    with_keys.foreign_keys = vec![
        fk(
            "t_ibfk_1",
            base::foreign_key::ReferenceAction::Cascade,
            (true, false),
        ),
        fk(
            "f2",
            base::foreign_key::ReferenceAction::NoAction,
            (true, true),
        ),
    ];
    with_keys.options.collation = Some(Collation::Utf8mb3Unicode520Ci);
    with_keys.checks = vec![
        base::foreign_key::CheckDef {
            name: "CONSTRAINT_1".into(),
            expr: "`c` > 0 or `b` like 'it\\'s'".into(),
            column: None,
        },
        base::foreign_key::CheckDef {
            name: "b".into(),
            expr: "`b` <> 5".into(),
            column: Some(2),
        },
    ];
    let mut only_checks = table.clone();
    only_checks.checks = with_keys.checks.clone();
    let messages = vec![
        Message::CreateTable(with_keys.clone()),
        Message::CreateTable(only_checks),
        Message::AlterTable {
            table: "db/t".into(),
            change: TableChange::Constraints {
                version: 9,
                foreign_keys: with_keys.foreign_keys.clone(),
                checks: with_keys.checks.clone(),
            },
        },
        Message::CreateTable(with_options),
        Message::CreateTable(table.clone()),
        Message::TableInfo {
            table: table.clone(),
            index_tables: vec![table],
        },
        Message::Execute {
            transaction: 9,
            statement: 3,
            keep_from: 2,
            exec: ExecType::Commit,
            operations: vec![Operation {
                kind: OpKind::Write,
                table: 3,
                version: 4,
                index: Some(0),
                key: vec![Value::Int(1)],
                values: vec![(1, Value::from("a")), (2, Value::Null)],
                projection: vec![0, 1],
            }],
        },
        Message::ExecuteReply(ExecuteOutcome::Ok(vec![
            OpResult::Row(vec![
                Value::Double(1.5),
                Value::Decimal(base::value::Decimal::new(-12345, 2)),
                Value::Decimal(base::value::Decimal::new(
                    -(base::value::I256::from(10).pow(65) - 1),
                    30,
                )),
            ]),
            OpResult::Done { assigned: Some(7) },
            OpResult::NotFound,
        ])),
        Message::ExecuteReply(ExecuteOutcome::Aborted {
            op_index: 3,
            error: Error::new(ErrorCode::DuplicateKey, "k"),
        }),
        Message::ExecuteReply(ExecuteOutcome::StatementUndone {
            op_index: 2,
            error: Error::new(ErrorCode::LockWaitTimeout, "t"),
        }),
        Message::Scan(ScanRequest {
            table: 1,
            version: 2,
            index: Some(0),
            lower: Some(Bound {
                values: vec![Value::Int(1)],
                inclusive: true,
            }),
            upper: None,
            filter: Filter::Not(Box::new(Filter::And(vec![
                Filter::Like {
                    column: 1,
                    pattern: b"a%".to_vec(),
                },
                Filter::In {
                    column: 0,
                    values: vec![Value::Int(1)],
                },
            ]))),
            projection: vec![],
            limit: 10,
            order: ScanOrder::Descending,
            transaction: 7,
            batch_rows: 100,
            batch_bytes: 65_536,
            aggregate: None,
            keys: vec![],
            first_per_key: false,
            join: vec![
                JoinChild {
                    table: 3,
                    version: 4,
                    index: 1,
                    key: vec![0, 2],
                    filter: Filter::IsNull { column: 1 },
                    projection: vec![1, 0],
                    kind: JoinKind::Outer,
                    read: None,
                    lower: Some(Bound {
                        values: vec![Value::Int(3)],
                        inclusive: false,
                    }),
                    upper: Some(Bound {
                        values: vec![Value::Int(9), Value::Int(-1)],
                        inclusive: true,
                    }),
                },
                JoinChild {
                    table: 5,
                    version: 1,
                    index: 0,
                    key: vec![4],
                    filter: Filter::True,
                    projection: vec![],
                    kind: JoinKind::Anti,
                    read: Some(ChildRead {
                        index: Some(2),
                        lower: Some(Bound {
                            values: vec![Value::Int(17)],
                            inclusive: true,
                        }),
                        upper: None,
                    }),
                    lower: None,
                    upper: None,
                },
            ],
        }),
        Message::Scan(ScanRequest {
            table: 1,
            version: 2,
            index: None,
            lower: None,
            upper: None,
            filter: Filter::True,
            projection: vec![2, 0, 3],
            limit: 0,
            order: ScanOrder::Any,
            transaction: 0,
            batch_rows: 0,
            batch_bytes: 0,
            aggregate: Some(Aggregation {
                group: vec![0],
                functions: vec![
                    AggregateFn::Count(None),
                    AggregateFn::Count(Some(1)),
                    AggregateFn::Sum(1),
                    AggregateFn::Min(2),
                    AggregateFn::Max(2),
                ],
            }),
            keys: vec![],
            first_per_key: false,
            join: vec![],
        }),
        Message::ScanRows {
            rows: vec![vec![Value::Null, Value::Year(2001)]],
        },
        Message::ScanNext,
        Message::ScanClose,
        Message::StatusReply(NodeStatus {
            node_id: 1,
            worker_count: 2,
            resident_bytes: 3,
            table_count: 4,
            row_count: 5,
            data_memory_bytes: 6,
            data_memory_limit: 7,
            tables: vec![TableMemory {
                id: 8,
                rows: 9,
                data_bytes: 10,
                index_bytes: 11,
            }],
            view_epoch: 12,
            group: vec![1, 2],
            members: vec![2],
            copies: vec![CopyStatus {
                node: 1,
                rows: 13,
                partitions_done: 2,
                partitions: 4,
                micros: 15,
                done: false,
            }],
            backup_reads: 16,
            held_parts: 2,
            in_doubt: 3,
        }),
        Message::Checkpoint,
        Message::CheckpointReply(CheckpointInfo {
            id: 7,
            full: true,
            entries: 8,
            bytes: 9,
            micros: 10,
        }),
        Message::CreateDatabase {
            name: "db".into(),
            collation: Collation::Utf8mb4Bin,
        },
        Message::AlterDatabase {
            name: "db".into(),
            collation: Collation::Latin1TextSwedishCi,
        },
        Message::DatabaseList {
            databases: vec![
                ("a".into(), Collation::Utf8mb4GeneralCi),
                ("b".into(), Collation::Binary),
            ],
        },
        Message::DropDatabase { name: "db".into() },
        Message::ListDatabases,
        Message::AddIndex {
            table: "db/t".into(),
            version: 3,
            name: "k".into(),
            kind: IndexKind::Ordered,
            columns: vec![1, 2],
            prefixes: Vec::new(),
        },
        Message::AddIndex {
            table: "db/t".into(),
            version: 4,
            name: "u".into(),
            kind: IndexKind::Unique,
            columns: vec![2],
            prefixes: vec![10],
        },
        Message::AlterTable {
            table: "db/t".into(),
            change: TableChange::DropIndex { name: "k".into() },
        },
        Message::AlterTable {
            table: "db/t".into(),
            change: TableChange::Rename { to: "db2/u".into() },
        },
        Message::AlterTable {
            table: "db/t".into(),
            change: TableChange::Options {
                options: TableOptions {
                    read_backup: true,
                    fully_replicated: false,
                    nologging: true,
                    collation: Some(Collation::Utf8mb4Bin),
                },
                comment: "NDB_TABLE=READ_BACKUP=1,NOLOGGING=1".into(),
            },
        },
        Message::AlterTable {
            table: "db/t".into(),
            change: TableChange::Columns {
                version: 3,
                columns: vec![
                    NewColumn {
                        column: ColumnDef::new("id", ColumnType::Int { unsigned: false }),
                        source: ColumnSource::Kept(0),
                    },
                    NewColumn {
                        column: ColumnDef::new("c", ColumnType::Int { unsigned: false })
                            .nullable()
                            .default(Value::Int(7)),
                        source: ColumnSource::Filled(Value::Int(7)),
                    },
                ],
            },
        },
        Message::HelloReply {
            node_id: 3,
            worker_count: 2,
            serving: false,
            reads: true,
            group: 1,
            groups: 2,
        },
        Message::HelloReply {
            node_id: 1,
            worker_count: 4,
            serving: true,
            reads: true,
            group: 0,
            groups: 1,
        },
        Message::PeerHello {
            node_id: 2,
            epoch: 9,
        },
        Message::Hello {
            client_name: "x".into(),
            session: 0x1234_5678_9abc,
        },
        Message::CommitOutcome {
            session: 5,
            transaction: 6,
        },
        Message::Outcome { committed: true },
        Message::TableIds { last: 17 },
        Message::CopyCatalog {
            catalog: b"CAIRNCAT...".to_vec(),
        },
        Message::CopyRows {
            changes: vec![RowChange {
                table: 4,
                partition: 2,
                key: vec![7],
                row: Some(vec![1; 12]),
            }],
        },
        Message::CopyDone { rows: 12_345 },
        Message::Gcp {
            round: (7 << 32) | 3,
            step: crate::GcpStep::Save,
        },
        Message::TakenAsk { after: u64::MAX },
        Message::TakenLog {
            from: 1 << 50,
            last: (1 << 50) + 9,
            entries: vec![
                crate::TakenEntry {
                    seq: (1 << 50) + 4,
                    kind: crate::TakenKind::Rows,
                    session: 8,
                    transaction: 9,
                    changes: vec![RowChange {
                        table: 4,
                        partition: 1,
                        key: vec![1, 2],
                        row: None,
                    }],
                },
                crate::TakenEntry {
                    seq: (1 << 50) + 9,
                    kind: crate::TakenKind::Restart,
                    session: 0,
                    transaction: 0,
                    changes: Vec::new(),
                },
            ],
            more: true,
        },
        Message::LevelUp {
            seq: 77,
            session: 5,
            transaction: 6,
            changes: vec![RowChange {
                table: 4,
                partition: 0,
                key: vec![3],
                row: Some(vec![9; 5]),
            }],
        },
        Message::CopyPrimaries {
            epoch: 71,
            primaries: vec![(0, 2), (1, 4)],
        },
        Message::Shutdown {
            restart: true,
            initial: false,
        },
        Message::Shutdown {
            restart: true,
            initial: true,
        },
        Message::StepHello {
            node_id: 3,
            epoch: 9,
        },
        Message::Steps {
            transaction: (3 << 48) | 77,
            statement: 2,
            keep_from: 1,
            steps: vec![
                crate::Step {
                    slot: 0,
                    table: 5,
                    version: 2,
                    partition: 3,
                    pk: vec![1, 2],
                    kind: crate::StepKind::Read {
                        lock: LockMode::Shared,
                        projection: vec![0, 2],
                    },
                    want_images: false,
                },
                crate::Step {
                    slot: 1,
                    table: 5,
                    version: 2,
                    partition: 1,
                    pk: vec![],
                    kind: crate::StepKind::Write {
                        row: vec![Value::Int(1), Value::Null],
                        updates: vec![(1, Value::Bytes(b"x".to_vec()))],
                    },
                    want_images: true,
                },
                crate::Step {
                    slot: 2,
                    table: 6,
                    version: 1,
                    partition: 0,
                    pk: vec![9],
                    kind: crate::StepKind::Increment {
                        amounts: vec![(2, -5), (3, i128::MAX)],
                    },
                    want_images: false,
                },
                crate::Step {
                    slot: 3,
                    table: 6,
                    version: 1,
                    partition: 0,
                    pk: vec![9],
                    kind: crate::StepKind::Delete,
                    want_images: true,
                },
                crate::Step {
                    slot: 4,
                    table: 6,
                    version: 1,
                    partition: 2,
                    pk: vec![8],
                    kind: crate::StepKind::Insert {
                        row: vec![Value::UInt(3)],
                    },
                    want_images: false,
                },
                crate::Step {
                    slot: 5,
                    table: 6,
                    version: 1,
                    partition: 2,
                    pk: vec![8],
                    kind: crate::StepKind::Update {
                        updates: vec![(0, Value::Int(-1))],
                    },
                    want_images: false,
                },
            ],
        },
        Message::StepsDone {
            replies: vec![
                crate::StepReply {
                    slot: 0,
                    result: Ok(crate::StepOutcome::Row(vec![Value::Int(4)])),
                },
                crate::StepReply {
                    slot: 1,
                    result: Ok(crate::StepOutcome::Written {
                        old: None,
                        new: Some(vec![Value::Null]),
                    }),
                },
                crate::StepReply {
                    slot: 2,
                    result: Ok(crate::StepOutcome::NotFound),
                },
                crate::StepReply {
                    slot: 3,
                    result: Err(Error::new(ErrorCode::DuplicateKey, "duplicate")),
                },
            ],
        },
        Message::EndRemote {
            transaction: 12,
            end: RemoteEnd::CommitPrepared,
        },
        Message::EndRemote {
            transaction: 13,
            end: RemoteEnd::Prepare,
        },
        Message::Prepared {
            coordinator: 2,
            transaction: 99,
            changes: vec![RowChange {
                table: 4,
                partition: 3,
                key: vec![1],
                row: None,
            }],
        },
        Message::Resolve {
            coordinator: 2,
            transaction: 99,
            commit: true,
            changes: vec![RowChange {
                table: 4,
                partition: 3,
                key: vec![1],
                row: Some(vec![2; 9]),
            }],
        },
        Message::ChecksumsRequest,
        Message::CopyNames {
            names: vec![(1, 2), (u64::MAX, 0)],
        },
        Message::Checksums {
            partitions: vec![(1, 0, 10, u64::MAX), (1, 2, 0, 0)],
        },
        Message::UndoRemote {
            transaction: 12,
            statement: 4,
        },
        Message::ScanPart {
            transaction: 9,
            request: ScanRequest {
                table: 3,
                version: 2,
                index: Some(1),
                lower: Some(Bound {
                    inclusive: true,
                    values: vec![Value::Int(4)],
                }),
                upper: None,
                filter: Filter::True,
                projection: vec![0, 1],
                limit: 10,
                order: ScanOrder::Descending,
                transaction: 0,
                batch_rows: 100,
                batch_bytes: 0,
                aggregate: None,
                keys: vec![vec![Value::Int(4)], vec![Value::Int(9)]],
                first_per_key: true,
                join: vec![],
            },
            partitions: vec![1, 3],
            place: crate::ScanPlace {
                partition: 1,
                at: crate::PlaceIn::After(vec![1, 2, 3]),
            },
            rows_max: 64,
            bytes_max: 4096,
        },
        Message::ScanPart {
            transaction: 0,
            request: ScanRequest {
                table: 3,
                version: 2,
                index: None,
                lower: None,
                upper: None,
                filter: Filter::True,
                projection: vec![],
                limit: 0,
                order: ScanOrder::Any,
                transaction: 0,
                batch_rows: 0,
                batch_bytes: 0,
                aggregate: None,
                keys: vec![],
                first_per_key: false,
                join: vec![],
            },
            partitions: vec![0],
            place: crate::ScanPlace {
                partition: 0,
                at: crate::PlaceIn::Images(Some(vec![7])),
            },
            rows_max: 1,
            bytes_max: 1,
        },
        Message::ScanPartRows {
            rows: vec![(vec![1], vec![Value::Int(1)]), (vec![], vec![Value::Null])],
            next: Some(crate::ScanPlace {
                partition: 0,
                at: crate::PlaceIn::Slot(77),
            }),
        },
        Message::ScanPartRows {
            rows: vec![],
            next: None,
        },
        Message::ScanPartRows {
            rows: vec![(vec![4, 5], vec![Value::Int(2)])],
            next: Some(crate::ScanPlace {
                partition: 0,
                at: crate::PlaceIn::Sorted(vec![4, 5]),
            }),
        },
        Message::Replicate {
            decision: 41,
            session: 5,
            transaction: 6,
            changes: vec![
                RowChange {
                    table: 3,
                    partition: 1,
                    key: vec![1, 2, 3],
                    row: Some(vec![9; 40]),
                },
                RowChange {
                    table: 4,
                    partition: 0,
                    key: vec![],
                    row: None,
                },
            ],
        },
    ];
    for m in &messages {
        assert_eq!(&round_trip(m), m);
    }
}

proptest! {
    #[test]
    fn random_bodies_never_panic(ty in 0u16..57, body in proptest::collection::vec(any::<u8>(), 0..256)) {
        let header = FrameHeader { message_type: ty, cluster_id: 0, flags: 0, request_id: 0, body_len: body.len() as u32, checksum: 0 };
        let _ = Message::decode(&header, &body);
    }

    #[test]
    fn random_headers_never_panic(bytes in proptest::array::uniform32(any::<u8>())) {
        let _ = FrameHeader::decode(&bytes);
    }
}

#[test]
fn a_decimal_past_76_digits_or_decimals_is_refused() {
    use base::value::{Decimal, I256};
    let decode = |d: Decimal| {
        let mut out = Vec::new();
        out.put_value(&Value::Decimal(d));
        Reader::new(&out).value()
    };
    let widest = I256::from(10).pow(76) - 1;
    assert!(decode(Decimal::new(widest, 76)).is_ok());
    assert!(decode(Decimal::new(widest + 1, 0)).is_err());
    assert!(decode(Decimal::new(I256::MIN, 0)).is_err());
    assert!(decode(Decimal::new_small(1, 77)).is_err());
    assert!(decode(Decimal::new_small(-1, 255)).is_err());
}

#[test]
fn forged_counts_are_refused_before_allocating() {
    let mut body = Vec::new();
    body.put_u64(1);
    body.put_u32(0);
    body.put_u32(0);
    body.put_u8(2);
    body.put_u32(u32::MAX);
    let header = FrameHeader {
        message_type: 7,
        cluster_id: 0,
        flags: 0,
        request_id: 0,
        body_len: 0,
        checksum: 0,
    };
    assert!(matches!(
        Message::decode(&header, &body),
        Err(DecodeError::TooLong { .. })
    ));
}

#[test]
fn a_scan_with_too_many_join_children_is_refused() {
    let child = JoinChild {
        table: 1,
        version: 1,
        index: 0,
        key: vec![0],
        filter: Filter::True,
        projection: vec![],
        kind: JoinKind::Inner,
        read: None,
        lower: None,
        upper: None,
    };
    let scan = |children: usize| {
        Message::Scan(ScanRequest {
            table: 1,
            version: 1,
            index: None,
            lower: None,
            upper: None,
            filter: Filter::True,
            projection: vec![],
            limit: 0,
            order: ScanOrder::Any,
            transaction: 0,
            batch_rows: 0,
            batch_bytes: 0,
            aggregate: None,
            keys: vec![],
            first_per_key: false,
            join: vec![child.clone(); children],
        })
    };
    let most = scan(limits::JOIN_CHILDREN_MAX);
    assert_eq!(round_trip(&most), most);
    let mut frame = Vec::new();
    scan(limits::JOIN_CHILDREN_MAX + 1).write_frame(&mut frame, 0, 0, 1);
    let header_bytes: [u8; HEADER_BYTES] = frame[..HEADER_BYTES].try_into().unwrap();
    let header = FrameHeader::decode(&header_bytes).unwrap();
    assert!(matches!(
        Message::decode(&header, &frame[HEADER_BYTES..]),
        Err(DecodeError::TooLong { .. })
    ));
}
