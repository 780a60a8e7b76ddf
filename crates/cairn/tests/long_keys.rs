//! Keys as long as a key may be (`limits::KEY_BYTES_MAX`, 3,072 declared bytes) replicate: one
//! node group of two replicas (`cairn datanode --mgm`, each its own process), a primary key of
//! 3,072 zero bytes (which encodes to twice that, every zero escaped), a unique and an ordered
//! index over a VARCHAR(768) in utf8mb4 (3,072 bytes, three encoded bytes to a character). Rows
//! committed on the primary are read back on the backup after the primary is killed (SIGKILL),
//! by primary key, unique key, full scan and ordered-index scan, then updated and deleted there;
//! a key past 3,072 bytes is refused when the table is defined. (Decoders took at most 3,072
//! encoded bytes for a key, so such rows jammed the replication link.)

mod common;

use std::time::{Duration, Instant};

use base::schema::{ColumnDef, IndexKind};
use base::types::{Collation, ColumnType};
use client::{Cluster, LockMode, Scan, ScanOrder, TableDef, Value};

/// Connects to one data node, once it serves.
fn connect(api: &str) -> Cluster {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match Cluster::connect_serving(api, Duration::from_secs(1)) {
            Ok(c) => return c,
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => panic!("data node {api} does not serve: {e}"),
        }
    }
}

const ROWS: u8 = 24;

/// Row `i`'s primary key: 3,071 zero bytes, then `i`.
fn key(i: u8) -> Vec<u8> {
    let mut k = vec![0u8; 3071];
    k.push(i);
    k
}

/// Row `i`'s unique value: 767 characters, the last one `i`'s letter.
fn unique(i: u8) -> Vec<u8> {
    let mut u = vec![b'a'; 767];
    u.push(b'A' + i);
    u
}

fn def() -> TableDef {
    let k =
        ColumnDef::new("k", ColumnType::VarBinary { length: 3072 }).collation(Collation::Binary);
    let u = ColumnDef::new("u", ColumnType::VarChar { length: 768 })
        .collation(Collation::Utf8mb4GeneralCi)
        .nullable();
    let v = ColumnDef::new("v", ColumnType::BigInt { unsigned: false });
    TableDef::new("long_keys", vec![k, u, v], &["k"])
        .unwrap()
        .with_index("u", IndexKind::Unique, &["u"])
        .unwrap()
        .with_index("by_u", IndexKind::Ordered, &["u"])
        .unwrap()
}

#[test]
fn the_longest_keys_replicate_and_cross_links() {
    let mut cluster = common::spawn_cluster("long-keys", 2, 2);
    let c1 = connect(&cluster.apis.join(","));
    let too_long =
        ColumnDef::new("k", ColumnType::VarBinary { length: 3073 }).collation(Collation::Binary);
    let refused = c1.create_table(TableDef::new("too_long", vec![too_long], &["k"]).unwrap());
    let e = refused.expect_err("a primary key of 3,073 bytes is refused");
    assert!(e.to_string().contains("3073 bytes"), "{e}");
    let wide = ColumnDef::new("w", ColumnType::VarChar { length: 769 })
        .collation(Collation::Utf8mb4GeneralCi);
    let id = ColumnDef::new("id", ColumnType::Int { unsigned: false });
    let wide = TableDef::new("too_wide", vec![id, wide], &["id"])
        .unwrap()
        .with_index("w", IndexKind::Unique, &["w"])
        .unwrap();
    let e = c1
        .create_table(wide)
        .expect_err("a unique key of 3,076 bytes is refused");
    assert!(e.to_string().contains("3076 bytes"), "{e}");

    let t1 = c1.create_table(def()).unwrap();
    let mut txn = c1.transaction();
    for i in 0..ROWS {
        txn.insert(
            &t1,
            vec![
                (0, Value::Bytes(key(i))),
                (1, Value::Bytes(unique(i))),
                (2, Value::Int(i64::from(i))),
            ],
        );
    }
    txn.commit()
        .expect("rows with the longest keys commit on both replicas");
    drop(c1);

    // The primary (the node that serves) is killed; the backup takes over with every row.
    let primary = match Cluster::connect_serving(&cluster.apis[0], Duration::from_secs(2)) {
        Ok(_) => 1,
        Err(_) => 2,
    };
    cluster.kill(primary);
    let c2 = connect(&cluster.apis[2 - primary]);
    let t2 = c2.table("long_keys").unwrap();
    let index = t2.unique_index("u").unwrap();
    let mut txn = c2.transaction();
    let by_key: Vec<_> = (0..ROWS)
        .map(|i| txn.read(&t2, vec![Value::Bytes(key(i))]))
        .collect();
    let by_unique: Vec<_> = (0..ROWS)
        .map(|i| {
            txn.read_unique(
                &t2,
                index,
                vec![Value::Bytes(unique(i))],
                LockMode::CommittedRead,
                vec![],
            )
        })
        .collect();
    txn.execute(client::ExecType::NoCommit).unwrap();
    for i in 0..ROWS {
        let row = txn
            .row(by_key[usize::from(i)])
            .expect("read by primary key");
        assert_eq!(row[2], Value::Int(i64::from(i)), "row {i} by primary key");
        let row = txn
            .row(by_unique[usize::from(i)])
            .expect("read by unique key");
        assert!(row[0] == Value::Bytes(key(i)), "row {i} by unique key");
    }
    txn.rollback().unwrap();

    let all = c2.scan(&t2, &Scan::table().batch(5, 0)).unwrap();
    assert_eq!(all.len(), usize::from(ROWS), "a full scan in batches");
    // Each row by its unique value's last letter (the values are too long to show whole).
    let letter = |v: &Value| match v {
        Value::Bytes(b) if b.len() == 768 => b[767],
        other => panic!(
            "a unique value of 768 bytes, not {} long",
            other.to_string().len()
        ),
    };
    let ordered: Vec<u8> = c2
        .scan(
            &t2,
            &Scan::index("by_u").order(ScanOrder::Ascending).batch(5, 0),
        )
        .unwrap()
        .iter()
        .map(|r| letter(&r[1]))
        .collect();
    let expected: Vec<u8> = (0..ROWS).map(|i| b'A' + i).collect();
    assert_eq!(ordered, expected, "an ordered-index scan in batches");

    // Changed and removed on the survivor.
    let mut txn = c2.transaction();
    for i in 0..ROWS {
        if i % 3 == 0 {
            txn.delete(&t2, vec![Value::Bytes(key(i))]);
        } else {
            txn.update(
                &t2,
                vec![Value::Bytes(key(i))],
                vec![(2, Value::Int(1000 + i64::from(i)))],
            );
        }
    }
    txn.commit().unwrap();
    let rows = c2.scan(&t2, &Scan::table()).unwrap();
    assert_eq!(rows.len(), usize::from(ROWS - ROWS.div_ceil(3)));
    for row in rows {
        let Value::Bytes(k) = &row[0] else {
            panic!("a key of bytes")
        };
        let i = *k.last().unwrap();
        assert_eq!(row[2], Value::Int(1000 + i64::from(i)), "row {i} updated");
    }
}
