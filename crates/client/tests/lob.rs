//! Long TEXT and BLOB values kept in parts (`base::lob`): written and read whole through the
//! client library, in and out of transactions, by key and by scan; their parts deleted with
//! their row or value and kept by a rollback's absence; refused where the data node cannot
//! keep them (keys, indexes, filters).

mod common;

use std::time::Duration;

use base::limits::{LOB_INLINE_BYTES_MAX, LOB_PART_BYTES};
use base::lob::PARTS_TABLE;
use base::schema::ColumnDef;
use base::types::{ColumnType, LobSize};
use client::{ClientError, CmpOp, ErrorCode, ExecType, Filter, Scan, TableDef, Value};
use common::{Rng, TestNode};

fn table_def() -> TableDef {
    let long = ColumnType::Blob {
        size: LobSize::Long,
    };
    let columns = vec![
        ColumnDef::new("id", ColumnType::Int { unsigned: false }),
        ColumnDef::new("b", long).nullable(),
        ColumnDef::new(
            "t",
            ColumnType::Text {
                size: LobSize::Medium,
            },
        )
        .nullable(),
    ];
    TableDef::new("docs", columns, &["id"]).unwrap()
}

/// `table_def()` named `name`, with an ordered index over a prefix of its MEDIUMTEXT `t`.
fn indexed_table(cluster: &client::Cluster, name: &str) -> client::Table {
    let mut def = table_def();
    def.name = name.into();
    cluster.create_table(def).unwrap();
    cluster
        .add_index_of(name, "by_t", base::IndexKind::Ordered, &["t"], &[10])
        .unwrap()
}

fn random_bytes(rng: &mut Rng, len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        out.extend_from_slice(&rng.next().to_le_bytes());
    }
    out.truncate(len);
    out
}

fn parts_rows(cluster: &client::Cluster) -> usize {
    match cluster.table(PARTS_TABLE) {
        Ok(parts) => cluster.scan(&parts, &Scan::table()).unwrap().len(),
        Err(_) => 0,
    }
}

#[test]
fn long_values_round_trip_and_their_parts_follow_their_rows() {
    let mut rng = Rng::from_env_or_time("long_values_round_trip");
    let node = TestNode::start(2, Duration::from_millis(500));
    let cluster = node.connect();
    let table = cluster.create_table(table_def()).unwrap();
    let big = random_bytes(&mut rng, 32 << 20);
    let text = "ü€x".repeat((3 << 20) / 6).into_bytes();
    let inline = random_bytes(&mut rng, LOB_INLINE_BYTES_MAX);

    // Written and read back in one transaction, before and after its commit.
    let mut txn = cluster.transaction();
    txn.insert(
        &table,
        vec![
            (0, Value::Int(1)),
            (1, Value::Bytes(big.clone())),
            (2, Value::Bytes(text.clone())),
        ],
    );
    txn.insert(
        &table,
        vec![(0, Value::Int(2)), (1, Value::Bytes(inline.clone()))],
    );
    txn.execute(ExecType::NoCommit).unwrap();
    let read = txn.read(&table, vec![Value::Int(1)]);
    txn.execute(ExecType::NoCommit).unwrap();
    assert!(txn.row(read).unwrap()[1] == Value::Bytes(big.clone()));
    let seen = txn.scan(&table, &Scan::table()).unwrap();
    assert_eq!(seen.len(), 2);
    txn.commit().unwrap();
    let expected_parts = big.len().div_ceil(LOB_PART_BYTES) + text.len().div_ceil(LOB_PART_BYTES);
    assert_eq!(parts_rows(&cluster), expected_parts);

    let mut txn = cluster.transaction();
    let one = txn.read(&table, vec![Value::Int(1)]);
    let two = txn.read(&table, vec![Value::Int(2)]);
    txn.execute(ExecType::Commit).unwrap();
    let row = txn.row(one).unwrap();
    assert!(row[1] == Value::Bytes(big.clone()), "32 MiB read back");
    assert!(
        row[2] == Value::Bytes(text.clone()),
        "3 MiB of text read back"
    );
    assert!(txn.row(two).unwrap()[1] == Value::Bytes(inline.clone()));
    let mut rows = cluster.scan(&table, &Scan::table()).unwrap();
    rows.sort_by_key(|r| format!("{:?}", r[0]));
    assert!(rows[0][1] == Value::Bytes(big.clone()), "scanned whole");

    // A value replaced: the old one's parts go; a shorter one is kept inline.
    let mut txn = cluster.transaction();
    let replacement = random_bytes(&mut rng, 5 << 20);
    txn.update(
        &table,
        vec![Value::Int(1)],
        vec![(1, Value::Bytes(replacement.clone()))],
    );
    txn.update(&table, vec![Value::Int(2)], vec![(1, Value::from("short"))]);
    txn.commit().unwrap();
    let expected_parts =
        replacement.len().div_ceil(LOB_PART_BYTES) + text.len().div_ceil(LOB_PART_BYTES);
    assert_eq!(parts_rows(&cluster), expected_parts);
    // Another column changed: the value and its parts stay.
    let mut txn = cluster.transaction();
    txn.update(
        &table,
        vec![Value::Int(1)],
        vec![(2, Value::from("now short"))],
    );
    txn.commit().unwrap();
    assert_eq!(
        parts_rows(&cluster),
        replacement.len().div_ceil(LOB_PART_BYTES)
    );
    let mut txn = cluster.transaction();
    let one = txn.read(&table, vec![Value::Int(1)]);
    txn.execute(ExecType::Commit).unwrap();
    assert!(txn.row(one).unwrap()[1] == Value::Bytes(replacement.clone()));

    // An index over a column holding a value in parts cannot be built.
    match cluster.add_index_of("docs", "by_b", base::IndexKind::Ordered, &["b"], &[10]) {
        Err(ClientError::Failed(e)) => {
            assert_eq!(e.code, ErrorCode::BadValue, "{e}");
            assert!(e.message.contains("kept in parts"), "{e}");
        }
        other => panic!("an index over values in parts: {other:?}"),
    }
    let table = cluster.table("docs").unwrap();
    assert!(table.def().indexes.is_empty());

    // A rollback leaves no parts; a delete takes them with the row.
    let mut txn = cluster.transaction();
    txn.insert(
        &table,
        vec![(0, Value::Int(3)), (1, Value::Bytes(big.clone()))],
    );
    txn.execute(ExecType::NoCommit).unwrap();
    txn.rollback().unwrap();
    let mut txn = cluster.transaction();
    txn.delete(&table, vec![Value::Int(1)]);
    txn.commit().unwrap();
    assert_eq!(parts_rows(&cluster), 0);

    // A dropped column's parts go after it.
    let mut txn = cluster.transaction();
    txn.insert(
        &table,
        vec![(0, Value::Int(5)), (1, Value::Bytes(big.clone()))],
    );
    txn.commit().unwrap();
    assert_eq!(parts_rows(&cluster), big.len().div_ceil(LOB_PART_BYTES));
    let current = cluster.table("docs").unwrap();
    let def = current.def();
    let without_b = vec![wire::NewColumn::kept(def, 0), wire::NewColumn::kept(def, 2)];
    cluster
        .change_columns("docs", def.version, without_b)
        .unwrap();
    assert_eq!(parts_rows(&cluster), 0);
    let mut def = table_def();
    def.name = "docs2".into();
    let table = cluster.create_table(def).unwrap();

    // A dropped table's parts go after it.
    let mut txn = cluster.transaction();
    txn.insert(
        &table,
        vec![(0, Value::Int(4)), (1, Value::Bytes(big.clone()))],
    );
    txn.commit().unwrap();
    assert_eq!(parts_rows(&cluster), big.len().div_ceil(LOB_PART_BYTES));
    cluster.drop_table("docs2").unwrap();
    assert_eq!(parts_rows(&cluster), 0);
}

#[test]
fn what_the_data_node_cannot_keep_in_parts_is_refused() {
    let node = TestNode::start(2, Duration::from_millis(500));
    let cluster = node.connect();
    let table = indexed_table(&cluster, "indexed");
    let long = "x".repeat(LOB_INLINE_BYTES_MAX + 1);

    // An indexed column keeps its values whole.
    let mut txn = cluster.transaction();
    txn.insert(
        &table,
        vec![(0, Value::Int(1)), (2, Value::from(long.as_str()))],
    );
    match txn.commit() {
        Err(ClientError::Aborted { op_index: 0, error }) => {
            assert_eq!(error.code, ErrorCode::BadValue, "{error}");
            assert!(error.message.contains("key or index"), "{error}");
        }
        other => panic!("a long value in an indexed column: {other:?}"),
    }
    // Longer than the column holds: refused before anything is sent.
    let mut txn = cluster.transaction();
    txn.insert(&table, vec![(0, Value::Int(1)), (1, Value::from("fine"))]);
    txn.insert(
        &table,
        vec![
            (0, Value::Int(2)),
            (2, Value::from("y".repeat(16 << 20).as_str())),
        ],
    );
    match txn.commit() {
        Err(ClientError::Aborted { op_index: 1, error }) => {
            assert_eq!(error.code, ErrorCode::BadValue, "{error}");
        }
        other => panic!("a MEDIUMTEXT value of 16 MiB: {other:?}"),
    }
    assert!(cluster.scan(&table, &Scan::table()).unwrap().is_empty());
    // A filter reading a column that may hold parts is refused; one testing NULL is not.
    let by_content = Scan::table().filter(Filter::Cmp {
        column: 1,
        op: CmpOp::Eq,
        value: Value::from("x"),
    });
    match cluster.scan(&table, &by_content) {
        Err(ClientError::Failed(e)) => assert_eq!(e.code, ErrorCode::BadRequest, "{e}"),
        other => panic!("a filter on a LONGBLOB: {other:?}"),
    }
    let by_null = Scan::table().filter(Filter::IsNull { column: 1 });
    assert!(cluster.scan(&table, &by_null).unwrap().is_empty());
}

/// References and parts survive a restart, from the redo log and from a checkpoint.
#[test]
fn values_in_parts_survive_a_restart() {
    let mut rng = Rng::from_env_or_time("values_in_parts_survive_a_restart");
    let dir = std::env::temp_dir().join(format!("cairn-lob-restart-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let first = random_bytes(&mut rng, 3 << 20);
    let second = random_bytes(&mut rng, (2 << 20) + 17);
    let node = common::start_durable(&dir, 2);
    let cluster = client::Cluster::connect(&node.address().to_string()).unwrap();
    let table = cluster.create_table(table_def()).unwrap();
    let mut txn = cluster.transaction();
    txn.insert(
        &table,
        vec![(0, Value::Int(1)), (1, Value::Bytes(first.clone()))],
    );
    txn.commit().unwrap();
    cluster.checkpoint().unwrap();
    let mut txn = cluster.transaction();
    txn.insert(
        &table,
        vec![(0, Value::Int(2)), (1, Value::Bytes(second.clone()))],
    );
    txn.commit().unwrap();
    drop(cluster);
    node.stop();

    let node = common::start_durable(&dir, 2);
    let cluster = client::Cluster::connect(&node.address().to_string()).unwrap();
    let table = cluster.table("docs").unwrap();
    let mut rows = cluster.scan(&table, &Scan::table()).unwrap();
    rows.sort_by_key(|r| format!("{:?}", r[0]));
    assert_eq!(rows.len(), 2);
    assert!(rows[0][1] == Value::Bytes(first), "from the checkpoint");
    assert!(rows[1][1] == Value::Bytes(second), "from the redo log");
    drop(cluster);
    node.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Within a statement, a long value refused before sending undoes only that statement: the
/// transaction stays open with its earlier statements, as for a bad value the data node refuses.
#[test]
fn a_refused_long_value_undoes_only_its_statement() {
    let node = TestNode::start(2, Duration::from_millis(500));
    let cluster = node.connect();
    let table = indexed_table(&cluster, "statements");
    let mut txn = cluster.transaction();
    txn.begin_statement();
    txn.insert(&table, vec![(0, Value::Int(1)), (1, Value::from("kept"))]);
    txn.execute(ExecType::NoCommit).unwrap();
    txn.begin_statement();
    txn.insert(&table, vec![(0, Value::Int(2)), (1, Value::from("undone"))]);
    txn.execute(ExecType::NoCommit).unwrap();
    txn.insert(
        &table,
        vec![
            (0, Value::Int(3)),
            (
                2,
                Value::from("x".repeat(LOB_INLINE_BYTES_MAX + 1).as_str()),
            ),
        ],
    );
    match txn.execute(ExecType::NoCommit) {
        Err(ClientError::StatementUndone { error, .. }) => {
            assert_eq!(error.code, ErrorCode::BadValue, "{error}")
        }
        other => panic!("a long value in an indexed column: {other:?}"),
    }
    assert!(txn.is_open());
    txn.commit().unwrap();
    let rows = cluster.scan(&table, &Scan::table()).unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0][0], Value::Int(1));
}
