//! Column changes (ALTER TABLE ADD/DROP COLUMN): the rows are copied into the new layout with
//! kept values and fill values, keys and indexes follow their columns, requests built from the
//! old definition fail with `SchemaChanged`, a transaction holding a lock on the table makes the
//! change fail and leaves the table as it was, and the new layout survives restarts from the
//! redo alone and from a checkpoint taken after the change.

mod common;

use std::time::Duration;

use base::schema::{ColumnDef, IndexKind};
use base::types::ColumnType;
use client::{
    ClientError, Cluster, ColumnSource, ErrorCode, NewColumn, Scan, ScanOrder, TableDef, Value,
};

fn int(name: &str) -> ColumnDef {
    ColumnDef::new(name, ColumnType::Int { unsigned: false })
}

/// id (AUTO_INCREMENT), a (unique), b (ordered), c (ordered together with b).
fn table() -> TableDef {
    TableDef::new(
        "t",
        vec![
            int("id").auto_increment(),
            int("a"),
            int("b"),
            int("c").nullable(),
        ],
        &["id"],
    )
    .unwrap()
    .with_index("ua", IndexKind::Unique, &["a"])
    .unwrap()
    .with_index("kb", IndexKind::Ordered, &["b"])
    .unwrap()
    .with_index("kbc", IndexKind::Ordered, &["b", "c"])
    .unwrap()
}

/// Rows id 1..=50: a = 100 + id, b = id % 5, c = id.
fn fill(cluster: &Cluster) {
    let t = cluster.table("t").unwrap();
    let mut txn = cluster.transaction();
    for id in 1..=50i64 {
        txn.insert(
            &t,
            vec![
                (0, Value::Int(id)),
                (1, Value::Int(100 + id)),
                (2, Value::Int(id % 5)),
                (3, Value::Int(id)),
            ],
        );
    }
    txn.commit().unwrap();
}

/// id, then a new column d (filled with 7), a, b; c dropped.
fn change() -> Vec<NewColumn> {
    vec![
        NewColumn {
            column: int("id").auto_increment(),
            source: ColumnSource::Kept(0),
        },
        NewColumn {
            column: int("d").default(Value::Int(9)),
            source: ColumnSource::Filled(Value::Int(7)),
        },
        NewColumn {
            column: int("a"),
            source: ColumnSource::Kept(1),
        },
        NewColumn {
            column: int("b"),
            source: ColumnSource::Kept(2),
        },
    ]
}

fn code<T>(r: Result<T, ClientError>) -> Option<ErrorCode> {
    r.err().map(|e| e.code())
}

fn sorted_rows(cluster: &Cluster) -> Vec<Vec<Value>> {
    let t = cluster.table("t").unwrap();
    let mut rows = cluster.scan(&t, &Scan::table()).unwrap();
    rows.sort_by_key(|r| match r[0] {
        Value::Int(v) => v,
        _ => panic!("bad id {:?}", r[0]),
    });
    rows
}

/// Checks the table after `change()`: layout, rows, indexes, unique index, counters.
fn check_changed(cluster: &Cluster, expect_rows: usize) {
    let t = cluster.table("t").unwrap();
    let names: Vec<&str> = t.def().columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, vec!["id", "d", "a", "b"]);
    let indexes: Vec<(&str, Vec<u16>)> = t
        .def()
        .indexes
        .iter()
        .map(|i| (i.name.as_str(), i.columns.clone()))
        .collect();
    assert_eq!(
        indexes,
        vec![("ua", vec![2]), ("kb", vec![3]), ("kbc", vec![3])]
    );
    let rows = sorted_rows(cluster);
    assert_eq!(rows.len(), expect_rows);
    assert_eq!(
        rows[0],
        vec![Value::Int(1), Value::Int(7), Value::Int(101), Value::Int(1)]
    );
    // The ordered index on b answers in b order.
    let b3 = Scan::index("kb")
        .equal(vec![Value::Int(3)])
        .columns(&["id"])
        .order(ScanOrder::Ascending);
    let found = cluster.scan(&t, &b3).unwrap();
    assert_eq!(
        found,
        (1..=50)
            .filter(|i| i % 5 == 3)
            .map(|i| vec![Value::Int(i)])
            .collect::<Vec<_>>()
    );
    // The unique index still finds rows and refuses duplicates.
    let ua = t.unique_index("ua").unwrap();
    let mut txn = cluster.transaction();
    let read = txn.read_unique(
        &t,
        ua,
        vec![Value::Int(117)],
        client::LockMode::CommittedRead,
        vec![0, 1],
    );
    txn.execute(client::ExecType::NoCommit).unwrap();
    assert_eq!(txn.row(read).unwrap(), &[Value::Int(17), Value::Int(7)]);
    txn.rollback().unwrap();
    let mut txn = cluster.transaction();
    txn.insert(
        &t,
        vec![
            (0, Value::Int(-5)),
            (1, Value::Int(0)),
            (2, Value::Int(117)),
            (3, Value::Int(0)),
        ],
    );
    assert_eq!(code(txn.commit()), Some(ErrorCode::DuplicateKey));
}

#[test]
fn added_and_dropped_columns_copy_the_rows_and_old_requests_are_refused() {
    let node = common::TestNode::start(2, Duration::from_millis(300));
    let ddl = node.connect();
    let other = node.connect();
    ddl.create_table(table()).unwrap();
    fill(&ddl);
    let stale = other.table("t").unwrap();

    // A transaction holding a lock on the table makes the change fail; nothing changes.
    let holder = node.connect();
    let mut txn = holder.transaction();
    txn.update(&stale, vec![Value::Int(1)], vec![(2, Value::Int(1))]);
    txn.execute(client::ExecType::NoCommit).unwrap();
    assert_eq!(
        code(ddl.change_columns("t", stale.version(), change())),
        Some(ErrorCode::LockWaitTimeout)
    );
    txn.commit().unwrap();
    assert_eq!(ddl.table("t").unwrap().def().columns.len(), 4);
    assert_eq!(ddl.table("t").unwrap().id(), stale.id());

    // Key columns and unique-index columns cannot be dropped; nothing changes.
    let mut no_pk = change();
    no_pk.remove(0);
    assert_eq!(
        code(ddl.change_columns("t", stale.version(), no_pk)),
        Some(ErrorCode::BadSchema)
    );
    let mut no_a = change();
    no_a.remove(2);
    assert_eq!(
        code(ddl.change_columns("t", stale.version(), no_a)),
        Some(ErrorCode::BadSchema)
    );
    let mut not_null = change();
    not_null[1].source = ColumnSource::Filled(Value::Null);
    assert_eq!(
        code(ddl.change_columns("t", stale.version(), not_null)),
        Some(ErrorCode::NullNotAllowed)
    );
    assert_eq!(ddl.table("t").unwrap().id(), stale.id());

    let changed = ddl.change_columns("t", stale.version(), change()).unwrap();
    assert_ne!(changed.id(), stale.id());
    assert_eq!(changed.version(), stale.version() + 1);
    // A list made from the old definition names its positions: refused, nothing changes.
    assert_eq!(
        code(other.change_columns("t", stale.version(), change())),
        Some(ErrorCode::SchemaChanged)
    );
    assert_eq!(ddl.table("t").unwrap().id(), changed.id());
    check_changed(&ddl, 50);

    // Requests from the old definition are refused, then work once it is fetched again.
    let mut txn = other.transaction();
    txn.read(&stale, vec![Value::Int(1)]);
    assert_eq!(code(txn.commit()), Some(ErrorCode::SchemaChanged));
    assert_eq!(
        code(other.scan(&stale, &Scan::table())),
        Some(ErrorCode::SchemaChanged)
    );
    other.forget_table("t");
    let fresh = other.table("t").unwrap();
    // AUTO_INCREMENT goes on above the copied rows; an omitted new column takes its default.
    let mut txn = other.transaction();
    txn.insert(&fresh, vec![(2, Value::Int(500)), (3, Value::Int(1))]);
    txn.commit().unwrap();
    let rows = sorted_rows(&other);
    assert_eq!(
        rows.last().unwrap(),
        &vec![
            Value::Int(51),
            Value::Int(9),
            Value::Int(500),
            Value::Int(1)
        ]
    );

    check_changed(&ddl, 51);
}

/// A column change waits for a transaction holding a lock on the table to end, and copies
/// what it committed.
#[test]
fn a_column_change_waits_for_a_lock_holder_and_keeps_its_commit() {
    let node = common::TestNode::start(2, Duration::from_secs(20));
    let ddl = node.connect();
    ddl.create_table(table()).unwrap();
    fill(&ddl);
    let holder = node.connect();
    let t = holder.table("t").unwrap();
    let mut txn = holder.transaction();
    txn.update(&t, vec![Value::Int(3)], vec![(2, Value::Int(4))]);
    txn.execute(client::ExecType::NoCommit).unwrap();
    let version = t.version();
    let alter = std::thread::spawn(move || {
        ddl.change_columns("t", version, change()).unwrap();
        ddl
    });
    txn.commit().unwrap();
    let ddl = alter.join().unwrap();
    let rows = sorted_rows(&ddl);
    assert_eq!(
        rows[2],
        vec![Value::Int(3), Value::Int(7), Value::Int(103), Value::Int(4)]
    );
}

#[test]
fn a_column_change_survives_restarts_from_the_redo_and_from_a_checkpoint() {
    let dir = std::env::temp_dir().join(format!("cairn-column-change-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let start = || common::start_durable(&dir, 2);
    let node = start();
    let cluster = Cluster::connect(&node.address().to_string()).unwrap();
    cluster.create_table(table()).unwrap();
    fill(&cluster);
    // A checkpoint before the change holds the old layout's rows under the old id.
    cluster.checkpoint().unwrap();
    let version = cluster.table("t").unwrap().version();
    cluster.change_columns("t", version, change()).unwrap();
    drop(cluster);
    node.stop();

    // From the redo: the copied rows were logged under the new id.
    let node = start();
    let cluster = Cluster::connect(&node.address().to_string()).unwrap();
    check_changed(&cluster, 50);
    let t = cluster.table("t").unwrap();
    let mut txn = cluster.transaction();
    txn.delete(&t, vec![Value::Int(2)]);
    txn.insert(&t, vec![(2, Value::Int(600)), (3, Value::Int(4))]);
    txn.commit().unwrap();
    // From a checkpoint taken after the change (the redo before it is not read).
    cluster.checkpoint().unwrap();
    drop(cluster);
    node.stop();

    let node = start();
    let cluster = Cluster::connect(&node.address().to_string()).unwrap();
    let rows = sorted_rows(&cluster);
    assert_eq!(rows.len(), 50);
    assert!(rows.iter().all(|r| r[0] != Value::Int(2)));
    // The counter was restored above every id the rows hold.
    assert_eq!(
        rows.last().unwrap(),
        &vec![
            Value::Int(51),
            Value::Int(9),
            Value::Int(600),
            Value::Int(4)
        ]
    );
    let t = cluster.table("t").unwrap();
    let mut txn = cluster.transaction();
    txn.insert(&t, vec![(2, Value::Int(700)), (3, Value::Int(4))]);
    txn.commit().unwrap();
    assert_eq!(sorted_rows(&cluster).last().unwrap()[0], Value::Int(52));
    drop(cluster);
    node.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A change of names and defaults only moves no row: the table keeps its id and rows, takes the
/// new names and defaults at once (even while a transaction holds a lock on it), and a request
/// from the definition before is refused until the new one is fetched.
#[test]
fn names_and_defaults_change_in_place() {
    let node = common::TestNode::start(2, Duration::from_millis(300));
    let ddl = node.connect();
    let other = node.connect();
    ddl.create_table(table()).unwrap();
    fill(&ddl);
    let before = other.table("t").unwrap();
    let holder = node.connect();
    let mut txn = holder.transaction();
    txn.update(&before, vec![Value::Int(1)], vec![(2, Value::Int(1))]);
    txn.execute(client::ExecType::NoCommit).unwrap();

    let mut columns = NewColumn::all_kept(before.def());
    columns[2].column.name = "bee".into();
    columns[3].column.default = Some(Value::Int(77));
    let changed = ddl.change_columns("t", before.version(), columns).unwrap();
    txn.commit().unwrap();
    assert_eq!(changed.id(), before.id(), "no copy: the same table id");
    assert_eq!(changed.version(), before.version() + 1);
    assert_eq!(changed.def().columns[2].name, "bee");
    assert_eq!(changed.def().columns[3].default, Some(Value::Int(77)));

    let mut txn = other.transaction();
    txn.read(&before, vec![Value::Int(1)]);
    assert_eq!(code(txn.commit()), Some(ErrorCode::SchemaChanged));
    other.forget_table("t");
    let fresh = other.table("t").unwrap();
    let mut txn = other.transaction();
    txn.insert(&fresh, vec![(1, Value::Int(900)), (2, Value::Int(3))]);
    txn.commit().unwrap();
    let rows = sorted_rows(&other);
    assert_eq!(rows.len(), 51);
    assert_eq!(
        rows[0],
        vec![Value::Int(1), Value::Int(101), Value::Int(1), Value::Int(1)]
    );
    assert_eq!(
        rows[50],
        vec![
            Value::Int(51),
            Value::Int(900),
            Value::Int(3),
            Value::Int(77)
        ]
    );
    // The indexes still find the rows through the renamed column.
    let by_b = other
        .scan(&fresh, &Scan::index("kb").equal(vec![Value::Int(3)]))
        .unwrap();
    assert_eq!(by_b.len(), 11);
}

/// A column outside every key may narrow: the data node converts each value as it copies, and a
/// value the new definition cannot hold (out of range, NULL for NOT NULL) fails the change and
/// leaves the table as it was.
#[test]
fn a_narrowing_converts_every_value_or_changes_nothing() {
    let node = common::TestNode::start(2, Duration::from_millis(300));
    let ddl = node.connect();
    ddl.create_table(table()).unwrap();
    fill(&ddl);
    let kept = |i: u16, column: ColumnDef| NewColumn {
        column,
        source: ColumnSource::Kept(i),
    };
    let small = |name: &str| ColumnDef::new(name, ColumnType::TinyInt { unsigned: false });
    let narrowed = |c: ColumnDef| {
        vec![
            kept(0, int("id").auto_increment()),
            kept(1, int("a")),
            kept(2, int("b")),
            kept(3, c),
        ]
    };
    let before = ddl.table("t").unwrap();
    // c holds 1..=50 and fits TINYINT; NOT NULL fails only while a NULL is there.
    let mut txn = ddl.transaction();
    txn.update(&before, vec![Value::Int(7)], vec![(3, Value::Null)]);
    txn.commit().unwrap();
    assert_eq!(
        code(ddl.change_columns("t", before.version(), narrowed(small("c")))),
        Some(ErrorCode::NullNotAllowed)
    );
    let mut txn = ddl.transaction();
    txn.update(&before, vec![Value::Int(7)], vec![(3, Value::Int(300))]);
    txn.commit().unwrap();
    assert_eq!(
        code(ddl.change_columns("t", before.version(), narrowed(small("c").nullable()))),
        Some(ErrorCode::BadValue)
    );
    let t = ddl.table("t").unwrap();
    assert_eq!((t.id(), t.version()), (before.id(), before.version()));
    assert_eq!(sorted_rows(&ddl)[6][3], Value::Int(300));

    let mut txn = ddl.transaction();
    txn.update(&before, vec![Value::Int(7)], vec![(3, Value::Int(7))]);
    txn.commit().unwrap();
    let changed = ddl
        .change_columns("t", before.version(), narrowed(small("c")))
        .unwrap();
    assert_ne!(changed.id(), before.id());
    assert_eq!(
        changed.def().columns[3].ty,
        ColumnType::TinyInt { unsigned: false }
    );
    let rows = sorted_rows(&ddl);
    assert_eq!(rows.len(), 50);
    assert!(rows
        .iter()
        .all(|r| r[3] == r[0] && matches!(r[3], Value::Int(_))));
    // The ordered index over (b, c) still orders by the converted values.
    let t = ddl.table("t").unwrap();
    let found = ddl
        .scan(
            &t,
            &Scan::index("kbc")
                .equal(vec![Value::Int(2)])
                .columns(&["c"])
                .order(ScanOrder::Descending),
        )
        .unwrap();
    assert_eq!(found.first(), Some(&vec![Value::Int(47)]));
}
