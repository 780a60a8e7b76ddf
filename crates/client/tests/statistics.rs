//! Table statistics (`Cluster::analyze`): the rows and distinct key prefixes of a table on a real
//! data node, kept in the statistics table so another connection loads them with the
//! definition, and dropped with the table they measured.

mod common;

use std::time::Duration;

use base::schema::{ColumnDef, IndexKind};
use base::types::{Collation, ColumnType};
use client::{TableDef, Value};
use common::TestNode;

fn definition() -> TableDef {
    let mut text = ColumnDef::new("name", ColumnType::VarChar { length: 20 });
    text.collation = Collation::Utf8mb4GeneralCi;
    TableDef::new(
        "stats_t",
        vec![
            ColumnDef::new("a", ColumnType::Int { unsigned: false }),
            ColumnDef::new("b", ColumnType::Int { unsigned: false }),
            ColumnDef::new("grp", ColumnType::Int { unsigned: false }),
            text,
        ],
        &["a", "b"],
    )
    .unwrap()
    .with_index("by_grp", IndexKind::Ordered, &["grp", "name"])
    .unwrap()
}

#[test]
fn analyze_counts_rows_and_distinct_prefixes_and_every_connection_sees_them() {
    let node = TestNode::start(2, Duration::from_millis(1200));
    let cluster = node.connect();
    let table = cluster.create_table(definition()).unwrap();
    assert!(table.stats().is_none(), "a new table has no statistics");
    // 1,000 rows: a in 0..100, b in 0..10; grp = a % 7; names differ only in case per pair.
    let mut txn = cluster.transaction();
    for a in 0..100i64 {
        for b in 0..10i64 {
            let name = if b % 2 == 0 { "x" } else { "X" };
            txn.insert(
                &table,
                vec![
                    (0, Value::Int(a)),
                    (1, Value::Int(b)),
                    (2, Value::Int(a % 7)),
                    (3, Value::Bytes(name.into())),
                ],
            );
        }
    }
    txn.commit().unwrap();
    let analyzed = cluster.analyze("stats_t").unwrap();
    let stats = analyzed.stats().expect("measured");
    assert_eq!(stats.rows, 1000);
    assert_eq!(stats.distinct("PRIMARY", 1), Some(100));
    assert_eq!(stats.distinct("PRIMARY", 2), Some(1000));
    assert_eq!(stats.distinct("by_grp", 1), Some(7));
    // 'x' and 'X' are one value in a case-insensitive collation.
    assert_eq!(stats.distinct("by_grp", 2), Some(7));
    assert_eq!(stats.rows_per_value("PRIMARY", 1), Some(10.0));
    // Another connection loads them with the definition.
    let other = node.connect();
    let seen = other.table("stats_t").unwrap();
    assert_eq!(seen.stats(), Some(stats));
    // A table made again under the name is another table: no statistics until analyzed.
    other.drop_table("stats_t").unwrap();
    let again = other.create_table(definition()).unwrap();
    let third = node.connect();
    assert!(third.table("stats_t").unwrap().stats().is_none());
    assert_ne!(again.id(), stats.table_id);
}

#[test]
fn a_table_without_keys_is_counted_in_the_data_node() {
    let node = TestNode::start(2, Duration::from_millis(1200));
    let cluster = node.connect();
    let def = TableDef::new(
        "stats_nokey",
        vec![ColumnDef::new("v", ColumnType::Int { unsigned: false })],
        &[],
    )
    .unwrap();
    let table = cluster.create_table(def).unwrap();
    let mut txn = cluster.transaction();
    for v in 0..37i64 {
        txn.insert(&table, vec![(0, Value::Int(v))]);
    }
    txn.commit().unwrap();
    let stats = cluster
        .analyze("stats_nokey")
        .unwrap()
        .stats()
        .cloned()
        .unwrap();
    assert_eq!(stats.rows, 37);
    assert!(stats.keys.is_empty());
}
