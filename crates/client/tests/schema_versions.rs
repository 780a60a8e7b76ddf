//! Table definition versions: an index dropped, a table renamed or its options changed through
//! one connection make every request another connection builds from its cached (older)
//! definition fail with `SchemaChanged`, never run against the wrong index or table; after
//! fetching the definition again the same requests work. The changes survive a restart, and
//! writers racing the DDL lose nothing they were told was committed.

mod common;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use base::schema::{ColumnDef, IndexKind, TableOptions};
use base::types::ColumnType;
use client::{
    ClientError, Cluster, ColumnSource, ErrorCode, NewColumn, Scan, ScanOrder, TableChange,
    TableDef, Value,
};

fn code<T>(r: Result<T, ClientError>) -> Option<ErrorCode> {
    r.err().map(|e| e.code())
}

/// id, a (unique), b and c (ordered indexes on each).
fn table(name: &str) -> TableDef {
    TableDef::new(
        name,
        vec![
            ColumnDef::new("id", ColumnType::Int { unsigned: false }),
            ColumnDef::new("a", ColumnType::Int { unsigned: false }),
            ColumnDef::new("b", ColumnType::Int { unsigned: false }),
            ColumnDef::new("c", ColumnType::Int { unsigned: false }),
        ],
        &["id"],
    )
    .unwrap()
    .with_index("ua", IndexKind::Unique, &["a"])
    .unwrap()
    .with_index("kb", IndexKind::Ordered, &["b"])
    .unwrap()
    .with_index("kc", IndexKind::Ordered, &["c"])
    .unwrap()
}

/// Rows id 0..100: a = id, b = id % 10, c = 99 - id.
fn fill(cluster: &Cluster, name: &str) {
    let t = cluster.table(name).unwrap();
    let mut txn = cluster.transaction();
    for id in 0..100i64 {
        txn.insert(
            &t,
            vec![
                (0, Value::Int(id)),
                (1, Value::Int(id)),
                (2, Value::Int(id % 10)),
                (3, Value::Int(99 - id)),
            ],
        );
    }
    txn.commit().unwrap();
}

fn ids(rows: &[Vec<Value>]) -> Vec<i64> {
    rows.iter()
        .map(|r| match r[0] {
            Value::Int(v) => v,
            ref other => panic!("unexpected id {other:?}"),
        })
        .collect()
}

#[test]
fn requests_from_an_older_definition_are_refused_until_it_is_fetched_again() {
    let node = common::TestNode::start(2, Duration::from_millis(500));
    let ddl = node.connect();
    let other = node.connect();
    ddl.create_table(table("t")).unwrap();
    fill(&ddl, "t");
    let stale = other.table("t").unwrap();
    assert_eq!(stale.version(), 1);
    let by_c = Scan::index("kc")
        .to(vec![Value::Int(2)], true)
        .columns(&["id"])
        .order(ScanOrder::Ascending);
    assert_eq!(ids(&other.scan(&stale, &by_c).unwrap()), vec![99, 98, 97]);

    // Dropping kb moves kc to kb's position: the stale handle still says position 2.
    let after = ddl.drop_index("t", "kb").unwrap();
    assert_eq!(after.version(), 2);
    assert_eq!(after.def().indexes.len(), 2);
    assert_eq!(
        code(other.scan(&stale, &by_c)),
        Some(ErrorCode::SchemaChanged)
    );
    let mut txn = other.transaction();
    txn.read(&stale, vec![Value::Int(1)]);
    assert_eq!(code(txn.commit()), Some(ErrorCode::SchemaChanged));
    // Fetched again, the same scan reads the right index.
    other.forget_table("t");
    let fresh = other.table("t").unwrap();
    assert_eq!(fresh.version(), 2);
    assert_eq!(ids(&other.scan(&fresh, &by_c).unwrap()), vec![99, 98, 97]);
    assert_eq!(
        code(other.scan(&fresh, &Scan::index("kb"))),
        Some(ErrorCode::NoSuchIndex)
    );

    // Dropping the unique index lets its values repeat, and takes its hidden table along.
    ddl.drop_index("t", "ua").unwrap();
    let t = ddl.table("t").unwrap();
    let mut txn = ddl.transaction();
    txn.insert(
        &t,
        vec![
            (0, Value::Int(1000)),
            (1, Value::Int(5)),
            (2, Value::Int(0)),
            (3, Value::Int(0)),
        ],
    );
    txn.commit().unwrap();
    assert!(!ddl
        .list_tables()
        .unwrap()
        .iter()
        .any(|n| n.contains("$unique$")));
    assert_eq!(
        code(ddl.drop_index("t", "ua")),
        Some(ErrorCode::NoSuchIndex)
    );
    assert_eq!(
        code(ddl.drop_index("nope", "ua")),
        Some(ErrorCode::NoSuchTable)
    );

    // New options make a new version too.
    let before = ddl.table("t").unwrap().version();
    let options = TableOptions {
        read_backup: true,
        ..TableOptions::default()
    };
    let changed = ddl
        .alter_table(
            "t",
            TableChange::Options {
                options,
                comment: "NDB_TABLE=READ_BACKUP=1".into(),
            },
        )
        .unwrap();
    assert_eq!(changed.version(), before + 1);
    assert!(changed.def().options.read_backup);
    assert_eq!(changed.def().comment, "NDB_TABLE=READ_BACKUP=1");
}

#[test]
fn a_renamed_table_keeps_its_rows_and_unique_index_and_its_old_name_is_free() {
    let node = common::TestNode::start(2, Duration::from_millis(500));
    let ddl = node.connect();
    let other = node.connect();
    ddl.create_database("d1").unwrap();
    ddl.create_database("d2").unwrap();
    ddl.create_table(table("d1/t")).unwrap();
    fill(&ddl, "d1/t");
    ddl.create_table(table("d1/taken")).unwrap();
    let stale = other.table("d1/t").unwrap();

    assert_eq!(
        code(ddl.rename_table("d1/t", "d1/taken")),
        Some(ErrorCode::TableExists)
    );
    assert_eq!(
        code(ddl.rename_table("d1/t", "nodb/t")),
        Some(ErrorCode::NoSuchDatabase)
    );
    assert_eq!(
        code(ddl.rename_table("d1/gone", "d1/x")),
        Some(ErrorCode::NoSuchTable)
    );
    let renamed = ddl.rename_table("d1/t", "d2/u").unwrap();
    assert_eq!(renamed.name(), "d2/u");
    assert_eq!(renamed.id(), stale.id());

    let mut txn = other.transaction();
    txn.read(&stale, vec![Value::Int(1)]);
    assert_eq!(code(txn.commit()), Some(ErrorCode::SchemaChanged));
    other.forget_tables();
    assert_eq!(code(other.table("d1/t")), Some(ErrorCode::NoSuchTable));
    let u = other.table("d2/u").unwrap();
    assert_eq!(other.scan(&u, &Scan::table()).unwrap().len(), 100);
    // The unique index moved with the table.
    let mut txn = other.transaction();
    txn.insert(
        &u,
        vec![
            (0, Value::Int(500)),
            (1, Value::Int(7)),
            (2, Value::Int(0)),
            (3, Value::Int(0)),
        ],
    );
    assert_eq!(code(txn.commit()), Some(ErrorCode::DuplicateKey));
    let mut txn = other.transaction();
    let found = txn.read_unique(
        &u,
        u.unique_index("ua").unwrap(),
        vec![Value::Int(7)],
        client::LockMode::CommittedRead,
        vec![],
    );
    txn.execute(client::ExecType::NoCommit).unwrap();
    assert!(txn.row(found).is_some());
    txn.commit().unwrap();
    // The old name can be used again.
    ddl.create_table(table("d1/t")).unwrap();
    assert_eq!(
        ddl.scan(&ddl.table("d1/t").unwrap(), &Scan::table())
            .unwrap()
            .len(),
        0
    );
}

#[test]
fn dropped_indexes_and_renames_survive_a_restart() {
    let dir =
        std::env::temp_dir().join(format!("cairn-schema-version-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let start = || common::start_durable(&dir, 2);
    let node = start();
    let cluster = Cluster::connect(&node.address().to_string()).unwrap();
    cluster.create_table(table("t")).unwrap();
    fill(&cluster, "t");
    cluster.drop_index("t", "ua").unwrap();
    cluster.drop_index("t", "kb").unwrap();
    cluster.rename_table("t", "v").unwrap();
    let v = cluster.table("v").unwrap();
    let mut txn = cluster.transaction();
    txn.insert(
        &v,
        vec![
            (0, Value::Int(100)),
            (1, Value::Int(3)),
            (2, Value::Int(0)),
            (3, Value::Int(-1)),
        ],
    );
    txn.commit().unwrap();
    drop(cluster);
    node.stop();

    let node = start();
    let cluster = Cluster::connect(&node.address().to_string()).unwrap();
    assert_eq!(cluster.list_tables().unwrap(), vec!["v"]);
    let v = cluster.table("v").unwrap();
    assert_eq!(v.version(), 4);
    let names: Vec<&str> = v.def().indexes.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, vec!["kc"]);
    let low = Scan::index("kc")
        .to(vec![Value::Int(0)], true)
        .columns(&["id"])
        .order(ScanOrder::Ascending);
    assert_eq!(ids(&cluster.scan(&v, &low).unwrap()), vec![100, 99]);
    assert_eq!(cluster.scan(&v, &Scan::table()).unwrap().len(), 101);
    drop(cluster);
    node.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Writers keep inserting through definitions that go stale under them (they fetch the table
/// again on `SchemaChanged` and retry) while indexes are dropped and added, columns are added
/// and dropped (the rows copied each time) and the table is renamed back and forth: every insert that reported success is there at the end.
#[test]
fn writers_racing_ddl_lose_no_committed_row() {
    let node = common::TestNode::start(2, Duration::from_millis(500));
    let ddl = node.connect();
    ddl.create_table(table("r0")).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let mut writers = Vec::new();
    for w in 0..2i64 {
        let address = node.address.clone();
        let stop = stop.clone();
        writers.push(std::thread::spawn(move || {
            let cluster = Cluster::connect(&address).unwrap();
            let mut committed = BTreeSet::new();
            let mut refused = 0u32;
            let mut next = w * 1_000_000;
            while !stop.load(Ordering::Relaxed) {
                let t = ["r0", "r1"].iter().find_map(|n| cluster.table(n).ok());
                let Some(t) = t else {
                    cluster.forget_tables();
                    continue;
                };
                let mut txn = cluster.transaction();
                txn.insert(
                    &t,
                    vec![
                        (0, Value::Int(next)),
                        (1, Value::Int(next)),
                        (2, Value::Int(next % 7)),
                        (3, Value::Int(-next)),
                    ],
                );
                match txn.commit() {
                    Ok(_) => {
                        committed.insert(next);
                        next += 1;
                    }
                    Err(e)
                        if matches!(
                            e.code(),
                            ErrorCode::SchemaChanged | ErrorCode::NoSuchTable
                        ) =>
                    {
                        refused += 1;
                        cluster.forget_tables();
                    }
                    Err(e) => panic!("insert {next} failed: {e}"),
                }
            }
            (committed, refused)
        }));
    }
    let names = ["r0", "r1"];
    for round in 0..200 {
        let (from, to) = (names[round % 2], names[(round + 1) % 2]);
        match round % 4 {
            0 => {
                ddl.drop_index(from, "kb").unwrap();
            }
            2 => {
                ddl.add_index(from, "kb", &["b"]).unwrap();
            }
            // A column added at the end, then dropped: the rows are copied each time, and the
            // writers' positions 0..4 stay valid.
            _ => {
                let def = ddl.table(from).unwrap().def().clone();
                let mut columns = NewColumn::all_kept(&def);
                columns.truncate(4);
                if def.columns.len() == 4 {
                    columns.push(NewColumn {
                        column: ColumnDef::new("x", ColumnType::Int { unsigned: false }).nullable(),
                        source: ColumnSource::Filled(Value::Int(round as i64)),
                    });
                }
                ddl.change_columns(from, def.version, columns).unwrap();
            }
        }
        ddl.rename_table(from, to).unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    let mut expected = BTreeSet::new();
    for w in writers {
        let (committed, refused) = w.join().unwrap();
        eprintln!("writer: {} committed, {refused} refused", committed.len());
        expected.extend(committed);
    }
    ddl.forget_tables();
    let t = ddl.table("r0").unwrap();
    let found: BTreeSet<i64> = ids(&ddl.scan(&t, &Scan::table().columns(&["id"])).unwrap())
        .into_iter()
        .collect();
    assert_eq!(found, expected);
    // The ordered index holds every row too.
    let all = Scan::index("kc").columns(&["id"]);
    assert_eq!(ddl.scan(&t, &all).unwrap().len(), expected.len());
}
