//! Every column type round-trips through the data node, with NULL, maximum lengths and boundary
//! values; values outside a type's range are refused and change nothing.

mod common;

use std::time::Duration;

use base::limits::{LOB_BYTES_MAX, LOB_INLINE_BYTES_MAX};
use base::schema::ColumnDef;
use base::types::{Collation, ColumnType, LobSize};
use base::value::{Date, DateTime, Decimal, Time};
use client::{ClientError, ErrorCode, ExecType, TableDef, Value};
use common::TestNode;

fn all_types() -> Vec<ColumnDef> {
    let types = [
        ("ti", ColumnType::TinyInt { unsigned: false }),
        ("tiu", ColumnType::TinyInt { unsigned: true }),
        ("si", ColumnType::SmallInt { unsigned: false }),
        ("siu", ColumnType::SmallInt { unsigned: true }),
        ("mi", ColumnType::MediumInt { unsigned: false }),
        ("miu", ColumnType::MediumInt { unsigned: true }),
        ("i", ColumnType::Int { unsigned: false }),
        ("iu", ColumnType::Int { unsigned: true }),
        ("bi", ColumnType::BigInt { unsigned: false }),
        ("biu", ColumnType::BigInt { unsigned: true }),
        ("f", ColumnType::Float),
        ("d", ColumnType::Double),
        (
            "dec",
            ColumnType::Decimal {
                precision: 38,
                scale: 10,
            },
        ),
        ("ch", ColumnType::Char { length: 255 }),
        ("vc", ColumnType::VarChar { length: 16383 }),
        ("bin", ColumnType::Binary { length: 8 }),
        ("vb", ColumnType::VarBinary { length: 65535 }),
        ("tx", ColumnType::TEXT),
        ("bl", ColumnType::BLOB),
        ("dt", ColumnType::Date),
        ("dtm", ColumnType::DateTime { fsp: 6 }),
        ("ts", ColumnType::Timestamp { fsp: 0 }),
        ("tm", ColumnType::Time { fsp: 3 }),
        ("y", ColumnType::Year),
        ("l1", ColumnType::VarChar { length: 10 }),
        (
            "ttx",
            ColumnType::Text {
                size: LobSize::Tiny,
            },
        ),
        (
            "mtx",
            ColumnType::Text {
                size: LobSize::Medium,
            },
        ),
        (
            "ltx",
            ColumnType::Text {
                size: LobSize::Long,
            },
        ),
        (
            "lbl",
            ColumnType::Blob {
                size: LobSize::Long,
            },
        ),
        ("b1", ColumnType::Bit { width: 1 }),
        ("b64", ColumnType::Bit { width: 64 }),
    ];
    types
        .into_iter()
        .map(|(name, ty)| {
            let c = ColumnDef::new(name, ty).nullable();
            if name == "l1" {
                c.collation(Collation::Latin1SwedishCi)
            } else {
                c
            }
        })
        .collect()
}

fn dec(text: &str) -> Value {
    Value::Decimal(Decimal::parse(text).unwrap())
}

fn dt(y: u16, mo: u8, d: u8, h: u8, mi: u8, s: u8, us: u32) -> Value {
    Value::DateTime(DateTime {
        date: Date {
            year: y,
            month: mo,
            day: d,
        },
        hour: h,
        minute: mi,
        second: s,
        microsecond: us,
    })
}

/// Rows of (given, expected-after-store) per column, in column order after the id.
fn boundary_rows() -> Vec<Vec<(Value, Value)>> {
    let same = |v: Value| (v.clone(), v);
    let low = vec![
        same(Value::Int(-128)),
        (Value::from("0"), Value::UInt(0)),
        same(Value::Int(-32768)),
        (Value::Int(0), Value::UInt(0)),
        same(Value::Int(-8_388_608)),
        (Value::Int(0), Value::UInt(0)),
        same(Value::Int(i32::MIN.into())),
        (Value::Int(0), Value::UInt(0)),
        same(Value::Int(i64::MIN)),
        same(Value::UInt(0)),
        same(Value::Float(-3.402_823_5e38)),
        same(Value::Double(f64::MIN)),
        (
            dec("-9999999999999999999999999999.9999999999"),
            dec("-9999999999999999999999999999.9999999999"),
        ),
        same(Value::from("")),
        same(Value::from("")),
        (Value::Bytes(vec![]), Value::Bytes(vec![0; 8])),
        same(Value::Bytes(vec![])),
        same(Value::from("")),
        same(Value::Bytes(vec![])),
        (
            Value::from("1000-01-01"),
            Value::Date(Date {
                year: 1000,
                month: 1,
                day: 1,
            }),
        ),
        (
            Value::from("1000-01-01 00:00:00.000000"),
            dt(1000, 1, 1, 0, 0, 0, 0),
        ),
        (
            Value::from("1970-01-01 00:00:01"),
            dt(1970, 1, 1, 0, 0, 1, 0),
        ),
        (
            Value::from("-838:59:59.000"),
            Value::Time(Time {
                negative: true,
                hours: 838,
                minutes: 59,
                seconds: 59,
                microseconds: 0,
            }),
        ),
        (Value::Int(1901), Value::Year(1901)),
        same(Value::Bytes(vec![0xE5, b'a'])),
        same(Value::from("")),
        same(Value::from("")),
        same(Value::from("")),
        same(Value::Bytes(vec![])),
        (Value::Int(0), Value::UInt(0)),
        (Value::Bytes(vec![]), Value::UInt(0)),
    ];
    let high = vec![
        same(Value::Int(127)),
        same(Value::UInt(255)),
        same(Value::Int(32767)),
        same(Value::UInt(65535)),
        same(Value::Int(8_388_607)),
        same(Value::UInt(16_777_215)),
        same(Value::Int(i32::MAX.into())),
        same(Value::UInt(u32::MAX.into())),
        same(Value::Int(i64::MAX)),
        same(Value::UInt(u64::MAX)),
        same(Value::Float(3.402_823_5e38)),
        same(Value::Double(f64::MAX)),
        (
            dec("9999999999999999999999999999.9999999999"),
            dec("9999999999999999999999999999.9999999999"),
        ),
        same(Value::from("€".repeat(255).as_str())),
        same(Value::from("ä".repeat(16383).as_str())),
        same(Value::Bytes(vec![0xFF; 8])),
        same(Value::Bytes(vec![0; 65535])),
        same(Value::from("x".repeat(65535).as_str())),
        same(Value::Bytes(vec![7; 65535])),
        (
            Value::from("9999-12-31"),
            Value::Date(Date {
                year: 9999,
                month: 12,
                day: 31,
            }),
        ),
        (
            Value::from("9999-12-31 23:59:59.999999"),
            dt(9999, 12, 31, 23, 59, 59, 999_999),
        ),
        (
            Value::from("2038-01-19 03:14:07"),
            dt(2038, 1, 19, 3, 14, 7, 0),
        ),
        (
            Value::from("838:59:59"),
            Value::Time(Time {
                negative: false,
                hours: 838,
                minutes: 59,
                seconds: 59,
                microseconds: 0,
            }),
        ),
        (Value::Int(2155), Value::Year(2155)),
        same(Value::from("abcdefghij")),
        same(Value::from("x".repeat(255).as_str())),
        same(Value::from("ü".repeat(LOB_INLINE_BYTES_MAX / 2).as_str())),
        same(Value::from("x".repeat(LOB_INLINE_BYTES_MAX).as_str())),
        same(Value::Bytes(vec![9; LOB_INLINE_BYTES_MAX])),
        (Value::Bytes(vec![1]), Value::UInt(1)),
        (Value::Bytes(vec![0xFF; 8]), Value::UInt(u64::MAX)),
    ];
    let nulls = low.iter().map(|_| (Value::Null, Value::Null)).collect();
    vec![low, high, nulls]
}

#[test]
fn every_type_round_trips_with_null_and_boundaries() {
    let node = TestNode::start(2, Duration::from_millis(500));
    let cluster = node.connect();
    let mut columns = vec![ColumnDef::new("id", ColumnType::Int { unsigned: false })];
    columns.extend(all_types());
    let table = cluster
        .create_table(TableDef::new("types", columns, &["id"]).unwrap())
        .unwrap();
    let rows = boundary_rows();
    let mut txn = cluster.transaction();
    for (id, row) in rows.iter().enumerate() {
        let mut values = vec![(0u16, Value::Int(id as i64))];
        values.extend(
            row.iter()
                .enumerate()
                .map(|(c, (given, _))| ((c + 1) as u16, given.clone())),
        );
        txn.insert(&table, values);
    }
    txn.commit().unwrap();

    let mut txn = cluster.transaction();
    let ops: Vec<_> = (0..rows.len())
        .map(|id| txn.read(&table, vec![Value::Int(id as i64)]))
        .collect();
    txn.execute(ExecType::Commit).unwrap();
    for (id, (op, row)) in ops.into_iter().zip(&rows).enumerate() {
        let got = txn.row(op).expect("row stored");
        assert_eq!(got[0], Value::Int(id as i64));
        for (c, (_, expected)) in row.iter().enumerate() {
            assert_eq!(
                &got[c + 1],
                expected,
                "row {id} column {}",
                table.def().columns[c + 1].name
            );
        }
    }
}

#[test]
fn out_of_range_values_are_refused_and_change_nothing() {
    let node = TestNode::start(1, Duration::from_millis(500));
    let cluster = node.connect();
    let mut columns = vec![ColumnDef::new("id", ColumnType::Int { unsigned: false })];
    columns.extend(all_types());
    let table = cluster
        .create_table(TableDef::new("types", columns, &["id"]).unwrap())
        .unwrap();
    let bad: Vec<(&str, Value)> = vec![
        ("ti", Value::Int(128)),
        ("tiu", Value::Int(-1)),
        ("mi", Value::Int(8_388_608)),
        ("iu", Value::Int(4_294_967_296)),
        ("bi", Value::UInt(u64::MAX)),
        ("f", Value::Double(1e39)),
        ("dec", dec("99999999999999999999999999999")),
        ("ch", Value::from("x".repeat(256).as_str())),
        ("vc", Value::Bytes(vec![0xC3])),
        ("bin", Value::Bytes(vec![1; 9])),
        ("vb", Value::Bytes(vec![1; 65536])),
        ("dt", Value::from("2023-02-29")),
        ("dtm", Value::from("2023-13-01 00:00:00")),
        ("ts", Value::from("2038-01-19 03:14:08")),
        ("tm", Value::from("839:00:00")),
        ("y", Value::Int(1900)),
        ("l1", Value::from("abcdefghijk")),
        ("ttx", Value::from("x".repeat(256).as_str())),
        ("mtx", Value::from("x".repeat(16 << 20).as_str())),
        ("lbl", Value::Bytes(vec![0; LOB_BYTES_MAX + 1])),
    ];
    for (i, (column, value)) in bad.into_iter().enumerate() {
        let mut txn = cluster.transaction();
        txn.insert(
            &table,
            vec![
                (0, Value::Int(1)),
                (table.column("i").unwrap(), Value::Int(5)),
            ],
        );
        txn.insert(
            &table,
            vec![
                (0, Value::Int(100 + i as i64)),
                (table.column(column).unwrap(), value.clone()),
            ],
        );
        match txn.execute(ExecType::Commit) {
            Err(ClientError::Aborted { op_index: 1, error }) => {
                assert_eq!(error.code, ErrorCode::BadValue, "{column}: {error}");
                assert!(!error.is_temporary());
            }
            other => panic!(
                "{column} = {} should be refused, got {other:?}",
                value.kind()
            ),
        }
    }
    // The good first insert of every failed transaction was rolled back too.
    let rows = cluster.scan(&table, &client::Scan::table()).unwrap();
    assert!(rows.is_empty(), "{} rows left behind", rows.len());
}

/// Forty rows of 1 MiB each: the insert goes in several requests and the read's reply in several
/// frames (each under the 16 MiB frame limit), and both behave as one batch; a failure in a
/// later request names its operation and undoes the earlier requests' rows too.
#[test]
fn batches_of_large_rows_cross_frames_whole() {
    let node = TestNode::start(2, Duration::from_millis(500));
    let cluster = node.connect();
    let columns = vec![
        ColumnDef::new("id", ColumnType::Int { unsigned: false }),
        ColumnDef::new(
            "b",
            ColumnType::Blob {
                size: LobSize::Long,
            },
        ),
    ];
    let table = cluster
        .create_table(TableDef::new("large", columns, &["id"]).unwrap())
        .unwrap();
    let value = |id: i64| {
        let mut v = vec![id as u8; LOB_INLINE_BYTES_MAX];
        v[..8].copy_from_slice(&id.to_le_bytes());
        Value::Bytes(v)
    };
    const ROWS: i64 = 40;
    let mut txn = cluster.transaction();
    for id in 0..ROWS {
        txn.insert(&table, vec![(0, Value::Int(id)), (1, value(id))]);
    }
    txn.commit().expect("40 MiB of rows in one commit");

    let mut txn = cluster.transaction();
    let ops: Vec<_> = (0..ROWS)
        .map(|id| txn.read(&table, vec![Value::Int(id)]))
        .collect();
    txn.execute(ExecType::Commit)
        .expect("40 MiB of rows read at once");
    for (id, op) in (0..ROWS).zip(ops) {
        let row = txn.row(op).expect("row read");
        assert_eq!(row, &[Value::Int(id), value(id)][..], "row {id}");
    }

    // The 31st insert repeats a key: every insert before it, in every request, is undone.
    let mut txn = cluster.transaction();
    for id in 0..ROWS {
        let key = if id == 30 { 5 } else { 100 + id };
        txn.insert(&table, vec![(0, Value::Int(key)), (1, value(id))]);
    }
    match txn.execute(ExecType::Commit) {
        Err(ClientError::Aborted { op_index, error }) => {
            assert_eq!(op_index, 30, "{error}");
            assert_eq!(error.code, ErrorCode::DuplicateKey, "{error}");
        }
        other => panic!("a repeated key should abort the transaction, got {other:?}"),
    }
    let rows = cluster.scan(&table, &client::Scan::table()).unwrap();
    assert_eq!(
        rows.len(),
        ROWS as usize,
        "only the first commit's rows are left"
    );
}

/// More operations than one request holds (`BATCH_OPERATIONS_MAX`) go in several and behave as
/// one batch (before: the data node refused the frame and closed the connection).
#[test]
fn more_operations_than_one_request_holds() {
    let node = TestNode::start(1, Duration::from_millis(500));
    let cluster = node.connect();
    let columns = vec![
        ColumnDef::new("id", ColumnType::Int { unsigned: false }),
        ColumnDef::new("v", ColumnType::Int { unsigned: false }),
    ];
    let table = cluster
        .create_table(TableDef::new("many", columns, &["id"]).unwrap())
        .unwrap();
    let rows = base::limits::BATCH_OPERATIONS_MAX as i64 * 2 + 10;
    let mut txn = cluster.transaction();
    for id in 0..rows {
        txn.insert(&table, vec![(0, Value::Int(id)), (1, Value::Int(id * 2))]);
    }
    txn.commit()
        .expect("more operations than one request holds");
    let mut txn = cluster.transaction();
    let ops: Vec<_> = (0..rows)
        .map(|id| txn.read(&table, vec![Value::Int(id)]))
        .collect();
    txn.execute(ExecType::Commit).expect("as many reads");
    for (id, op) in (0..rows).zip(ops) {
        assert_eq!(
            txn.row(op),
            Some(&[Value::Int(id), Value::Int(id * 2)][..]),
            "row {id}"
        );
    }
}
