//! Unique indexes built over a table's rows (ALTER TABLE ADD UNIQUE, CREATE UNIQUE INDEX): the
//! entries of rows on every worker reach the workers owning their hidden partitions, lookups
//! find every row, rows with a NULL key are not indexed, two rows with one key (as the key's
//! collation compares them) make the build fail and leave the table as it was, a transaction
//! holding a lock makes it wait and then give up, and a built index survives restarts from the
//! redo and from a checkpoint.

mod common;

use std::time::Duration;

use base::schema::{ColumnDef, IndexKind};
use base::types::{Collation, ColumnType};
use client::{ClientError, Cluster, ErrorCode, LockMode, TableDef, Value};

fn int(name: &str) -> ColumnDef {
    ColumnDef::new(name, ColumnType::Int { unsigned: false })
}

/// id, a, b (NULL for even ids), c = id % 7, s (a case-insensitive string), over 6 partitions
/// so every worker holds rows and hidden partitions.
fn table() -> TableDef {
    let mut def = TableDef::new(
        "t",
        vec![
            int("id"),
            int("a"),
            int("b").nullable(),
            int("c"),
            ColumnDef::new("s", ColumnType::VarChar { length: 20 })
                .collation(Collation::Utf8mb4GeneralCi),
        ],
        &["id"],
    )
    .unwrap();
    def.partition_count = 6;
    def
}

const ROWS: i64 = 300;

/// Rows id 1..=ROWS: a = 1000 + id, b = id or NULL, c = id % 7, s = "k{id}".
fn fill(cluster: &Cluster) {
    let t = cluster.table("t").unwrap();
    let mut txn = cluster.transaction();
    for id in 1..=ROWS {
        txn.insert(&t, row(id, 1000 + id));
    }
    txn.commit().unwrap();
}

fn row(id: i64, a: i64) -> Vec<(u16, Value)> {
    vec![
        (0, Value::Int(id)),
        (1, Value::Int(a)),
        (
            2,
            if id % 2 == 0 {
                Value::Null
            } else {
                Value::Int(id)
            },
        ),
        (3, Value::Int(id % 7)),
        (4, Value::Bytes(format!("k{id}").into_bytes())),
    ]
}

fn code<T>(r: Result<T, ClientError>) -> Option<ErrorCode> {
    r.err().map(|e| e.code())
}

/// Every a in `ids` is found through unique index `ua`, naming its row's id.
fn check_lookups(cluster: &Cluster, ids: impl Iterator<Item = i64>) {
    let t = cluster.table("t").unwrap();
    let ua = t.unique_index("ua").unwrap();
    let mut txn = cluster.transaction();
    let reads: Vec<(i64, client::OpId)> = ids
        .map(|id| {
            let op = txn.read_unique(
                &t,
                ua,
                vec![Value::Int(1000 + id)],
                LockMode::CommittedRead,
                vec![0],
            );
            (id, op)
        })
        .collect();
    txn.execute(client::ExecType::NoCommit).unwrap();
    for (id, op) in reads {
        assert_eq!(
            txn.row(op),
            Some(&[Value::Int(id)][..]),
            "a = {}",
            1000 + id
        );
    }
    txn.rollback().unwrap();
}

/// The id of the row unique index `ua` finds for `a`.
fn id_of(cluster: &Cluster, a: i64) -> Option<Value> {
    let t = cluster.table("t").unwrap();
    let mut txn = cluster.transaction();
    let read = txn.read_unique(
        &t,
        t.unique_index("ua").unwrap(),
        vec![Value::Int(a)],
        LockMode::CommittedRead,
        vec![0],
    );
    txn.execute(client::ExecType::NoCommit).unwrap();
    let id = txn.row(read).map(|r| r[0].clone());
    txn.rollback().unwrap();
    id
}

#[test]
fn a_unique_index_built_over_rows_finds_them_and_refuses_duplicates() {
    let node = common::TestNode::start(2, Duration::from_millis(300));
    let ddl = node.connect();
    ddl.create_table(table()).unwrap();
    fill(&ddl);
    let before = ddl.table("t").unwrap();

    let built = ddl.add_unique_index("t", "ua", &["a"]).unwrap();
    assert_eq!(built.id(), before.id());
    assert_eq!(built.version(), before.version() + 1);
    check_lookups(&ddl, 1..=ROWS);
    assert_eq!(id_of(&ddl, 999), None);

    // The index is kept from now on: a key in use is refused, by insert and by update.
    let t = ddl.table("t").unwrap();
    let mut txn = ddl.transaction();
    txn.insert(&t, row(ROWS + 1, 1005));
    assert_eq!(code(txn.commit()), Some(ErrorCode::DuplicateKey));
    let mut txn = ddl.transaction();
    txn.update(&t, vec![Value::Int(9)], vec![(1, Value::Int(1010))]);
    assert_eq!(code(txn.commit()), Some(ErrorCode::DuplicateKey));
    let mut txn = ddl.transaction();
    txn.insert(&t, row(ROWS + 1, 1000 + ROWS + 1));
    txn.commit().unwrap();
    check_lookups(&ddl, std::iter::once(ROWS + 1));

    // Many rows with a NULL key are not indexed, so they never collide.
    ddl.add_unique_index("t", "ub", &["b"]).unwrap();

    // c repeats every 7 rows: the build fails, naming a key, and the table stays as it was.
    let version = ddl.table("t").unwrap().version();
    let failed = ddl.add_unique_index("t", "uc", &["c"]).unwrap_err();
    assert_eq!(failed.code(), ErrorCode::DuplicateKey);
    let message = failed.to_string();
    assert!(
        message.contains("Duplicate entry '") && message.contains("for key 'uc'"),
        "{message}"
    );
    let t = ddl.table("t").unwrap();
    assert_eq!(t.version(), version);
    assert!(t.def().index("uc").is_none());
    // It takes writes again, and the name is free once the keys are.
    let mut txn = ddl.transaction();
    for id in 8..=ROWS + 1 {
        txn.delete(&t, vec![Value::Int(id)]);
    }
    txn.commit().unwrap();
    ddl.add_unique_index("t", "uc", &["c"]).unwrap();
    let t = ddl.table("t").unwrap();
    let mut txn = ddl.transaction();
    txn.insert(&t, row(14, 1014));
    assert_eq!(code(txn.commit()), Some(ErrorCode::DuplicateKey));

    // Keys compare by the column's collation: 'K3' is 'k3' under utf8mb4_general_ci.
    let mut txn = ddl.transaction();
    let mut upper = row(100, 1100);
    upper[3] = (3, Value::Int(100));
    upper[4] = (4, Value::Bytes(b"K3".to_vec()));
    txn.insert(&t, upper);
    txn.commit().unwrap();
    assert_eq!(
        code(ddl.add_unique_index("t", "us", &["s"])),
        Some(ErrorCode::DuplicateKey)
    );
    assert!(ddl.table("t").unwrap().def().index("us").is_none());

    // A name in use and a column the table lacks are refused before any work.
    assert!(ddl.add_unique_index("t", "ua", &["b"]).is_err());
    assert!(ddl.add_unique_index("t", "ux", &["nope"]).is_err());
}

/// A transaction holding a lock on the table makes the build wait, then give up after the lock
/// wait timeout; the holder's commit is kept and the table stays as it was.
#[test]
fn a_unique_build_waits_for_a_lock_holder_then_gives_up() {
    let node = common::TestNode::start(2, Duration::from_millis(300));
    let ddl = node.connect();
    ddl.create_table(table()).unwrap();
    fill(&ddl);
    let holder = node.connect();
    let t = holder.table("t").unwrap();
    let mut txn = holder.transaction();
    txn.update(&t, vec![Value::Int(1)], vec![(1, Value::Int(77))]);
    txn.execute(client::ExecType::NoCommit).unwrap();
    assert_eq!(
        code(ddl.add_unique_index("t", "ua", &["a"])),
        Some(ErrorCode::LockWaitTimeout)
    );
    txn.commit().unwrap();
    assert!(ddl.table("t").unwrap().def().index("ua").is_none());
    ddl.add_unique_index("t", "ua", &["a"]).unwrap();
    assert_eq!(id_of(&ddl, 77), Some(Value::Int(1)));
}

#[test]
fn a_unique_index_survives_restarts_from_the_redo_and_from_a_checkpoint() {
    let dir = std::env::temp_dir().join(format!("cairn-unique-build-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let start = || common::start_durable(&dir, 2);
    let node = start();
    let cluster = Cluster::connect(&node.address().to_string()).unwrap();
    cluster.create_table(table()).unwrap();
    fill(&cluster);
    cluster.checkpoint().unwrap();
    // A failed build leaves nothing a restart would find.
    assert_eq!(
        code(cluster.add_unique_index("t", "uc", &["c"])),
        Some(ErrorCode::DuplicateKey)
    );
    cluster.add_unique_index("t", "ua", &["a"]).unwrap();
    drop(cluster);
    node.stop();

    // From the redo: the entries were logged under the hidden table's id.
    let node = start();
    let cluster = Cluster::connect(&node.address().to_string()).unwrap();
    let t = cluster.table("t").unwrap();
    assert!(t.def().index("uc").is_none());
    check_lookups(&cluster, 1..=ROWS);
    let mut txn = cluster.transaction();
    txn.insert(&t, row(ROWS + 1, 1001));
    assert_eq!(code(txn.commit()), Some(ErrorCode::DuplicateKey));
    let mut txn = cluster.transaction();
    txn.delete(&t, vec![Value::Int(2)]);
    txn.insert(&t, row(ROWS + 1, 1002));
    txn.commit().unwrap();
    // From a checkpoint taken after the build.
    cluster.checkpoint().unwrap();
    drop(cluster);
    node.stop();

    let node = start();
    let cluster = Cluster::connect(&node.address().to_string()).unwrap();
    check_lookups(&cluster, (1..=ROWS).filter(|id| *id != 2));
    assert_eq!(id_of(&cluster, 1002), Some(Value::Int(ROWS + 1)));
    assert_eq!(
        code(cluster.add_unique_index("t", "uc", &["c"])),
        Some(ErrorCode::DuplicateKey)
    );
    drop(cluster);
    node.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

/// The id of the row unique index `index` of `t` finds for `key`.
fn found_by(cluster: &Cluster, index: &str, key: &str) -> Option<Value> {
    let t = cluster.table("t").unwrap();
    let mut txn = cluster.transaction();
    let read = txn.read_unique(
        &t,
        t.unique_index(index).unwrap(),
        vec![Value::from(key)],
        LockMode::CommittedRead,
        vec![0],
    );
    txn.execute(client::ExecType::NoCommit).unwrap();
    let id = txn.row(read).map(|r| r[0].clone());
    txn.rollback().unwrap();
    id
}

/// Ids of the rows an equality scan of ordered index `index` returns for `key`.
fn scanned(cluster: &Cluster, index: &str, key: &str) -> Vec<Value> {
    let t = cluster.table("t").unwrap();
    let scan = client::Scan::index(index)
        .equal(vec![Value::from(key)])
        .columns(&["id"]);
    let mut ids: Vec<Value> = cluster
        .scan(&t, &scan)
        .unwrap()
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    ids.sort_by_key(|v| match v {
        Value::Int(n) => *n,
        _ => i64::MAX,
    });
    ids
}

/// Indexes holding prefixes of their column (MySQL's `KEY (s(2))`): a unique one keeps the
/// prefixes unique (as the column's collation compares them), naming the prefix in its 1062,
/// and a lookup by a longer value finds the row whose prefix it shares; an ordered one finds
/// every row sharing the prefix of the value scanned for. Both are built over rows, and both
/// survive restarts from the redo and from a checkpoint.
#[test]
fn prefix_indexes_keep_prefixes_and_survive_restarts() {
    let dir = std::env::temp_dir().join(format!("cairn-prefix-index-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let start = || common::start_durable(&dir, 2);
    let node = start();
    let cluster = Cluster::connect(&node.address().to_string()).unwrap();
    cluster.create_table(table()).unwrap();
    fill(&cluster);
    // s is "k{id}": "k1", "k10".."k19", "k100".. share the prefix "k1".
    let failed = cluster
        .add_index_of("t", "us2", IndexKind::Unique, &["s"], &[2])
        .unwrap_err();
    assert_eq!(failed.code(), ErrorCode::DuplicateKey);
    // Every prefix "k1".."k9" is shared; which the build meets first depends on the workers.
    // The message names the two-character prefix, not a whole value.
    let message = failed.to_string();
    let named = message
        .split_once("Duplicate entry '")
        .and_then(|(_, rest)| rest.split_once("' for key 'us2'"))
        .map(|(entry, _)| entry.to_string());
    assert!(
        named.is_some_and(|e| e.len() == 2 && e.starts_with('k')),
        "{message}"
    );
    cluster
        .add_index_of("t", "ks2", IndexKind::Ordered, &["s"], &[2])
        .unwrap();
    let with_k1: Vec<Value> = (1..=ROWS)
        .filter(|id| id.to_string().starts_with('1'))
        .map(Value::Int)
        .collect();
    assert_eq!(scanned(&cluster, "ks2", "k1"), with_k1);
    assert_eq!(scanned(&cluster, "ks2", "K1xyz"), with_k1);

    // Keep only ids 1..=9: each prefix of 2 characters ("k1".."k9") is then one row's.
    let t = cluster.table("t").unwrap();
    let mut txn = cluster.transaction();
    for id in 10..=ROWS {
        txn.delete(&t, vec![Value::Int(id)]);
    }
    txn.commit().unwrap();
    cluster
        .add_index_of("t", "us2", IndexKind::Unique, &["s"], &[2])
        .unwrap();
    let check = |cluster: &Cluster| {
        assert_eq!(found_by(cluster, "us2", "k5"), Some(Value::Int(5)));
        assert_eq!(found_by(cluster, "us2", "K5-anything"), Some(Value::Int(5)));
        assert_eq!(found_by(cluster, "us2", "k"), None);
        let t = cluster.table("t").unwrap();
        let mut txn = cluster.transaction();
        let mut taken = row(50, 1050);
        taken[4] = (4, Value::from("K50"));
        txn.insert(&t, taken);
        let refused = txn.commit().unwrap_err();
        assert_eq!(refused.code(), ErrorCode::DuplicateKey);
        assert!(
            refused
                .to_string()
                .contains("Duplicate entry 'K5' for key 'us2'"),
            "{refused}"
        );
        assert_eq!(scanned(cluster, "ks2", "k5"), vec![Value::Int(5)]);
    };
    check(&cluster);
    drop(cluster);
    node.stop();

    // From the redo.
    let node = start();
    let cluster = Cluster::connect(&node.address().to_string()).unwrap();
    let t = cluster.table("t").unwrap();
    assert_eq!(
        t.def().indexes[t.index("us2").unwrap() as usize].prefixes,
        vec![2]
    );
    check(&cluster);
    cluster.checkpoint().unwrap();
    drop(cluster);
    node.stop();

    // From a checkpoint.
    let node = start();
    let cluster = Cluster::connect(&node.address().to_string()).unwrap();
    check(&cluster);
    drop(cluster);
    node.stop();
    let _ = std::fs::remove_dir_all(&dir);
}
