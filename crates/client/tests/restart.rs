//! A data node restarted on its data directory finds every committed row, its unique and ordered
//! indexes, its schema and its AUTO_INCREMENT counters again, and nothing that was rolled back;
//! also when it restarts with another number of worker threads.

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use base::schema::{ColumnDef, IndexKind};
use base::types::{Collation, ColumnType};
use client::{Cluster, ExecType, LockMode, OpResult, Scan, ScanOrder, TableDef, Value};
use datanode::{DataNode, DataNodeConfig, Durability};

use common::start_durable as start;

fn rows(cluster: &Cluster) -> BTreeMap<u64, (String, i64)> {
    let t = cluster.table("accounts").unwrap();
    cluster
        .scan(&t, &Scan::table())
        .unwrap()
        .into_iter()
        .map(|r| match (&r[0], &r[1], &r[2]) {
            (Value::UInt(id), Value::Bytes(e), Value::Int(b)) => {
                (*id, (String::from_utf8(e.clone()).unwrap(), *b))
            }
            other => panic!("unexpected row {other:?}"),
        })
        .collect()
}

#[test]
fn restart_finds_committed_rows_indexes_and_counters() {
    let dir = std::env::temp_dir().join(format!("cairn-restart-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let node = start(&dir, 2);
    let cluster = Cluster::connect(&node.address().to_string()).unwrap();
    let def = TableDef::new(
        "accounts",
        vec![
            ColumnDef::new("id", ColumnType::BigInt { unsigned: true }).auto_increment(),
            ColumnDef::new("email", ColumnType::VarChar { length: 40 }),
            ColumnDef::new("balance", ColumnType::BigInt { unsigned: false }),
        ],
        &["id"],
    )
    .unwrap()
    .with_index("email", IndexKind::Unique, &["email"])
    .unwrap()
    .with_index("balance", IndexKind::Ordered, &["balance"])
    .unwrap();
    let t = cluster.create_table(def).unwrap();
    // Multi-row transactions spread over partitions, then updates, deletes and a rollback.
    for batch in 0..5 {
        let mut txn = cluster.transaction();
        for i in 0..10 {
            let n = batch * 10 + i;
            txn.insert(
                &t,
                t.values(&[
                    ("email", format!("user{n}@x").into()),
                    ("balance", Value::Int(n)),
                ])
                .unwrap(),
            );
        }
        txn.commit().unwrap();
    }
    let mut txn = cluster.transaction();
    txn.update(
        &t,
        vec![Value::UInt(3)],
        t.values(&[("email", "moved@x".into()), ("balance", Value::Int(1000))])
            .unwrap(),
    );
    txn.delete(&t, vec![Value::UInt(7)]);
    txn.commit().unwrap();
    let mut txn = cluster.transaction();
    txn.insert(
        &t,
        t.values(&[("email", "ghost@x".into()), ("balance", Value::Int(-1))])
            .unwrap(),
    );
    txn.execute(ExecType::NoCommit).unwrap();
    txn.rollback().unwrap();
    let before = rows(&cluster);
    assert_eq!(before.len(), 49);
    drop(cluster);
    node.stop();

    for workers in [2, 3] {
        let node = start(&dir, workers);
        let cluster = Cluster::connect(&node.address().to_string()).unwrap();
        assert_eq!(
            rows(&cluster),
            before,
            "rows after a restart with {workers} workers"
        );
        let t = cluster.table("accounts").unwrap();
        let email = t.unique_index("email").unwrap();
        let mut txn = cluster.transaction();
        let moved = txn.read_unique(
            &t,
            email,
            vec!["MOVED@x".into()],
            LockMode::CommittedRead,
            vec![],
        );
        let old = txn.read_unique(
            &t,
            email,
            vec!["user2@x".into()],
            LockMode::CommittedRead,
            vec![],
        );
        let deleted = txn.read_unique(
            &t,
            email,
            vec!["user6@x".into()],
            LockMode::CommittedRead,
            vec![],
        );
        let ghost = txn.read_unique(
            &t,
            email,
            vec!["ghost@x".into()],
            LockMode::CommittedRead,
            vec![],
        );
        txn.execute(ExecType::Commit).unwrap();
        assert_eq!(txn.row(moved).unwrap()[0], Value::UInt(3));
        assert_eq!(txn.result(old), Some(&OpResult::NotFound));
        assert_eq!(txn.result(deleted), Some(&OpResult::NotFound));
        assert_eq!(txn.result(ghost), Some(&OpResult::NotFound));
        let top = cluster
            .scan(
                &t,
                &Scan::index("balance")
                    .order(ScanOrder::Descending)
                    .limit(2)
                    .columns(&["id"]),
            )
            .unwrap();
        assert_eq!(top[0], vec![Value::UInt(3)]);
        // AUTO_INCREMENT continues above every stored id, also for the rolled-back insert's.
        let mut txn = cluster.transaction();
        let op = txn.insert(
            &t,
            t.values(&[
                ("email", format!("new{workers}@x").into()),
                ("balance", Value::Int(5)),
            ])
            .unwrap(),
        );
        txn.execute(ExecType::Commit).unwrap();
        let Some(OpResult::Done { assigned: Some(id) }) = txn.result(op) else {
            panic!("no id assigned")
        };
        assert!(*id > *before.keys().max().unwrap(), "assigned {id}");
        drop(cluster);
        node.stop();
        // The next start expects the new row too.
        let mut expected = before.clone();
        expected.insert(*id, (format!("new{workers}@x"), 5));
        if workers == 2 {
            let node = start(&dir, 3);
            let cluster = Cluster::connect(&node.address().to_string()).unwrap();
            assert_eq!(rows(&cluster), expected);
            cluster.drop_table("accounts").unwrap();
            drop(cluster);
            node.stop();
            let node = start(&dir, 2);
            let cluster = Cluster::connect(&node.address().to_string()).unwrap();
            assert!(
                cluster.table("accounts").is_err(),
                "a dropped table stays dropped"
            );
            drop(cluster);
            node.stop();
            break;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Unix microseconds of a stored DATETIME/TIMESTAMP value.
fn micros_of(v: &Value) -> i64 {
    match v {
        Value::DateTime(dt) => dt.unix_seconds() * 1_000_000 + i64::from(dt.microsecond),
        other => panic!("not a time: {other:?}"),
    }
}

#[test]
fn current_time_defaults_fill_rows_and_survive_restarts() {
    let dir = std::env::temp_dir().join(format!("cairn-now-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let node = start(&dir, 2);
    let cluster = Cluster::connect(&node.address().to_string()).unwrap();
    let def = TableDef::new(
        "stamps",
        vec![
            ColumnDef::new("id", ColumnType::Int { unsigned: false }),
            ColumnDef::new("at", ColumnType::Timestamp { fsp: 3 })
                .default_current_time(2)
                .on_update_current_time(),
            ColumnDef::new("v", ColumnType::Int { unsigned: false }).nullable(),
        ],
        &["id"],
    )
    .unwrap();
    cluster.create_table(def).unwrap();
    // A row left without `at` takes the data node's clock, cut to two digits.
    let insert = |cluster: &Cluster, id: i32| -> (i64, i64) {
        let t = cluster.table("stamps").unwrap();
        let before = base::value::unix_micros_now();
        let mut txn = cluster.transaction();
        txn.insert(&t, t.values(&[("id", Value::Int(id.into()))]).unwrap());
        txn.commit().unwrap();
        (before, base::value::unix_micros_now())
    };
    let read = |cluster: &Cluster, id: i32| -> Vec<Value> {
        let t = cluster.table("stamps").unwrap();
        let mut txn = cluster.transaction();
        let op = txn.read(&t, vec![Value::Int(id.into())]);
        txn.execute(ExecType::Commit).unwrap();
        txn.row(op).unwrap().to_vec()
    };
    let (before, after) = insert(&cluster, 1);
    let row = read(&cluster, 1);
    let at = micros_of(&row[1]);
    assert!(
        (before - before % 10_000..=after).contains(&at),
        "{before} <= {at} <= {after}"
    );
    assert_eq!(at % 10_000, 0, "cut to two digits: {:?}", row[1]);
    // ON UPDATE CURRENT_TIMESTAMP is SQL's: a native update leaves the column as it was.
    let t = cluster.table("stamps").unwrap();
    let mut txn = cluster.transaction();
    txn.update(
        &t,
        vec![Value::Int(1)],
        t.values(&[("v", Value::Int(5))]).unwrap(),
    );
    txn.commit().unwrap();
    assert_eq!(
        read(&cluster, 1),
        vec![Value::Int(1), row[1].clone(), Value::Int(5)]
    );
    drop(cluster);
    node.stop();

    let node = start(&dir, 2);
    let cluster = Cluster::connect(&node.address().to_string()).unwrap();
    let t = cluster.table("stamps").unwrap();
    let column = &t.def().columns[1];
    assert_eq!((column.default_now, column.on_update_now), (Some(2), true));
    assert_eq!(read(&cluster, 1)[1], row[1]);
    let (before, after) = insert(&cluster, 2);
    let at = micros_of(&read(&cluster, 2)[1]);
    assert!((before - before % 10_000..=after).contains(&at));
    drop(cluster);
    node.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_failed_fsync_stops_the_node_and_acknowledged_commits_survive() {
    let failure = a_fault_stops_the_node("fsync", storage::redo::Faults::fail_sync(3));
    assert!(failure.contains("injected failure of fsync"), "{failure}");
}

#[test]
fn a_torn_redo_write_stops_the_node_and_the_restart_cuts_it() {
    let failure = a_fault_stops_the_node("torn", storage::redo::Faults::torn_write(3));
    assert!(failure.contains("injected torn write"), "{failure}");
}

#[test]
fn a_full_disk_stops_the_node_and_names_the_file_and_offset() {
    let failure = a_fault_stops_the_node("full", storage::redo::Faults::disk_full_from_write(3));
    assert!(
        failure.contains("redo-0-00000001.log")
            && failure.contains("at byte")
            && failure.contains("No space left"),
        "{failure}"
    );
}

/// Two commits succeed, the third meets the fault: it is never acknowledged, the node stops
/// serving (fail-stop), and a restart finds the two. Returns the node's failure message.
fn a_fault_stops_the_node(name: &str, faults: storage::redo::Faults) -> String {
    let dir = std::env::temp_dir().join(format!("cairn-{name}-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let faults = std::sync::Arc::new(faults);
    let node = DataNode::start(DataNodeConfig {
        listen: "127.0.0.1:0".into(),
        workers: 1,
        data_dir: Some(dir.clone()),
        durability: Durability::Commit,
        redo_faults: Some(faults),
        ..DataNodeConfig::default()
    })
    .unwrap();
    let cluster = Cluster::connect(&node.address().to_string()).unwrap();
    let def = TableDef::new(
        "t",
        vec![ColumnDef::new("id", ColumnType::BigInt { unsigned: false })],
        &["id"],
    )
    .unwrap();
    let t = cluster.create_table(def).unwrap();
    for id in [1i64, 2] {
        let mut txn = cluster.transaction();
        txn.insert(&t, vec![(0, id.into())]);
        txn.commit().expect("fsyncs 1 and 2 succeed");
    }
    let mut txn = cluster.transaction();
    txn.insert(&t, vec![(0, 3i64.into())]);
    let err = txn
        .commit()
        .expect_err("the third write or fsync fails, so the commit is never acknowledged");
    assert_eq!(err.code(), client::ErrorCode::ConnectionLost, "{err}");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while node.failure().is_none() {
        assert!(
            std::time::Instant::now() < deadline,
            "the node did not record its failure"
        );
        std::thread::yield_now();
    }
    let failure = node.failure().unwrap_or_default();
    // Fail-stop: the node serves nothing more.
    match Cluster::connect_timeout(&node.address().to_string(), Duration::from_secs(5)) {
        Err(e) => assert_eq!(e.code(), client::ErrorCode::ShuttingDown, "{e}"),
        Ok(_) => panic!("a failed node accepted a new client"),
    }
    node.stop();

    let node = start(&dir, 1);
    let cluster = Cluster::connect(&node.address().to_string()).unwrap();
    let t = cluster.table("t").unwrap();
    let ids: Vec<Value> = cluster
        .scan(&t, &Scan::table().order(ScanOrder::Any))
        .unwrap()
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    assert!(
        ids.contains(&Value::Int(1)) && ids.contains(&Value::Int(2)),
        "acknowledged commits survive: {ids:?}"
    );
    if name == "torn" {
        // Half a record reached the file: the restart cut it, and its commit is not there.
        assert!(
            !ids.contains(&Value::Int(3)),
            "a torn commit came back: {ids:?}"
        );
    }
    // The node serves and commits again after the restart.
    let mut txn = cluster.transaction();
    txn.insert(&t, vec![(0, 4i64.into())]);
    txn.commit().expect("a commit after the restart");
    drop(cluster);
    node.stop();
    let _ = std::fs::remove_dir_all(&dir);
    failure
}

#[test]
fn databases_hold_their_tables_and_survive_a_restart() {
    let dir = std::env::temp_dir().join(format!("cairn-databases-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let node = start(&dir, 1);
    let cluster = Cluster::connect(&node.address().to_string()).unwrap();
    let table = |name: &str| {
        TableDef::new(
            name,
            vec![ColumnDef::new("id", ColumnType::Int { unsigned: false })],
            &["id"],
        )
        .unwrap()
    };
    let code = |r: client::Result<_>| r.err().map(|e| e.code());
    assert_eq!(
        code(cluster.create_table(table("shop/items")).map(|_| ())),
        Some(client::ErrorCode::NoSuchDatabase)
    );
    cluster.create_database("shop").unwrap();
    cluster
        .create_database_with("Other", Collation::Utf8mb4Bin)
        .unwrap();
    assert_eq!(
        code(cluster.create_database("SHOP")),
        Some(client::ErrorCode::DatabaseExists)
    );
    assert_eq!(
        code(cluster.create_database("a/b")),
        Some(client::ErrorCode::BadSchema)
    );
    cluster.create_table(table("shop/items")).unwrap();
    cluster.create_table(table("other/items")).unwrap();
    cluster
        .alter_database("SHOP", Collation::Latin1TextSwedishCi)
        .unwrap();
    assert_eq!(
        code(cluster.alter_database("nosuch", Collation::Binary)),
        Some(client::ErrorCode::NoSuchDatabase)
    );
    drop(cluster);
    node.stop();

    let node = start(&dir, 1);
    let cluster = Cluster::connect(&node.address().to_string()).unwrap();
    assert_eq!(cluster.databases().unwrap(), vec!["Other", "shop"]);
    // Each keeps its default collation.
    assert_eq!(
        cluster.database_collations().unwrap(),
        vec![
            ("Other".to_string(), Collation::Utf8mb4Bin),
            ("shop".to_string(), Collation::Latin1TextSwedishCi)
        ]
    );
    cluster.drop_database("shop").unwrap();
    assert_eq!(cluster.databases().unwrap(), vec!["Other"]);
    assert_eq!(cluster.list_tables().unwrap(), vec!["other/items"]);
    assert_eq!(
        code(cluster.drop_database("shop")),
        Some(client::ErrorCode::NoSuchDatabase)
    );
    drop(cluster);
    node.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_index_added_to_a_full_table_serves_ranges_and_survives_a_restart() {
    let dir = std::env::temp_dir().join(format!("cairn-add-index-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let node = start(&dir, 2);
    let cluster = Cluster::connect(&node.address().to_string()).unwrap();
    let def = TableDef::new(
        "t",
        vec![
            ColumnDef::new("id", ColumnType::Int { unsigned: false }),
            ColumnDef::new("k", ColumnType::Int { unsigned: false }),
        ],
        &["id"],
    )
    .unwrap();
    let table = cluster.create_table(def).unwrap();
    let mut txn = cluster.transaction();
    for id in 0..1_000i64 {
        txn.insert(&table, vec![(0, Value::Int(id)), (1, Value::Int(id % 100))]);
    }
    txn.commit().unwrap();
    let in_range = |cluster: &Cluster| {
        let table = cluster.table("t").unwrap();
        let scan = Scan::index("k_1")
            .from(vec![Value::Int(10)], true)
            .to(vec![Value::Int(12)], false)
            .order(ScanOrder::Ascending);
        cluster.scan(&table, &scan).unwrap()
    };
    assert_eq!(
        cluster
            .add_index("t", "k", &["nope"])
            .err()
            .map(|e| e.code()),
        Some(client::ErrorCode::BadSchema)
    );
    let table = cluster.add_index("t", "k_1", &["k"]).unwrap();
    assert_eq!(table.def().indexes.len(), 1);
    assert_eq!(
        cluster
            .add_index("t", "k_1", &["id"])
            .err()
            .map(|e| e.code()),
        Some(client::ErrorCode::BadSchema)
    );
    let rows = in_range(&cluster);
    assert_eq!(rows.len(), 20);
    let ks: Vec<Value> = rows.iter().map(|r| r[1].clone()).collect();
    assert_eq!(&ks[..10], &vec![Value::Int(10); 10][..]);
    assert_eq!(&ks[10..], &vec![Value::Int(11); 10][..]);
    // Writes after the build maintain the new index.
    let mut txn = cluster.transaction();
    txn.insert(&table, vec![(0, Value::Int(5_000)), (1, Value::Int(11))]);
    txn.delete(&table, vec![Value::Int(10)]);
    txn.commit().unwrap();
    assert_eq!(in_range(&cluster).len(), 20);
    drop(cluster);
    node.stop();

    let node = start(&dir, 2);
    let cluster = Cluster::connect(&node.address().to_string()).unwrap();
    let rows = in_range(&cluster);
    assert_eq!(rows.len(), 20);
    assert!(rows.iter().any(|r| r[0] == Value::Int(5_000)));
    drop(cluster);
    node.stop();
    let _ = std::fs::remove_dir_all(&dir);
}
