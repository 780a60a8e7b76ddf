//! Two node groups of one data node each (`cairn datanode --mgm`, each its own process): schema
//! changes
//! made through either node reach both (the first group's primary is the schema master), and
//! a transaction coordinated by either node reaches the other group's partitions over the
//! step link. Rows
//! written through one node are read through the other; a transaction that writes in one group
//! and reads with a lock in the other commits; one that writes in both is refused whole and
//! leaves nothing; unique-index lookups whose hidden row lives in the other group find their
//! rows; a rollback and an undone statement leave nothing behind in the other group; and when
//! the other group's node is killed, a transaction reaching it fails at once with a temporary
//! error instead of hanging. A pushed join (`Scan::join`) through either node reads its
//! children's rows in both groups, whichever group their parent lives in.

mod common;

use std::time::{Duration, Instant};

use base::schema::{ColumnDef, IndexKind};
use base::types::ColumnType;
use client::{
    ClientError, Cluster, CmpOp, Filter, JoinChild, LockMode, Scan, ScanOrder, Table, TableDef,
    Value,
};
use common::{spawn_cluster, ClusterProcesses};

fn start(name: &str) -> ClusterProcesses {
    spawn_cluster(name, 2, 1)
}

/// Connects to one data node, once it serves.
fn connect(api: &str) -> Cluster {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        match Cluster::connect_serving(api, Duration::from_secs(1)) {
            Ok(c) => return c,
            Err(e) if Instant::now() < deadline => {
                let _ = e;
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => panic!("data node {api} does not serve: {e}"),
        }
    }
}

fn def() -> TableDef {
    TableDef::new(
        "spread",
        vec![
            ColumnDef::new("id", ColumnType::BigInt { unsigned: false }),
            ColumnDef::new("v", ColumnType::BigInt { unsigned: false }),
            ColumnDef::new("code", ColumnType::BigInt { unsigned: false }).nullable(),
        ],
        &["id"],
    )
    .unwrap()
    .with_index("code", IndexKind::Unique, &["code"])
    .unwrap()
    .with_index("by_v", IndexKind::Ordered, &["v"])
    .unwrap()
}

/// The node group (0 or 1) holding the row with primary key `id`.
fn group_of(table: &Table, id: i64) -> u32 {
    let def = table.def();
    let mut bytes = Vec::new();
    def.encode_key(&def.partition_key, &[Value::Int(id)], &mut bytes);
    let partition = base::placement::partition_of(&bytes, def.partition_count);
    base::placement::group_of(partition, 2)
}

/// The first id from `from` on whose row lives in group `group`.
fn id_in(table: &Table, group: u32, from: i64) -> i64 {
    (from..).find(|id| group_of(table, *id) == group).unwrap()
}

fn int(v: &Value) -> i64 {
    match v {
        Value::Int(v) => *v,
        other => panic!("not an integer: {other:?}"),
    }
}

fn value_of(cluster: &Cluster, table: &Table, id: i64) -> Option<i64> {
    let mut txn = cluster.transaction();
    let op = txn.read(table, vec![Value::Int(id)]);
    txn.execute(client::ExecType::NoCommit)
        .unwrap_or_else(|e| panic!("reading {id}: {e}"));
    let row = txn.row(op).map(|r| r[1].clone());
    txn.rollback().unwrap();
    row.map(|v| match v {
        Value::Int(v) => v,
        other => panic!("v of {id} is {other:?}"),
    })
}

/// The unique code a row gets: id + 1,000,000 when its hidden unique-index row lives in the
/// row's own node group (a commit writing in two groups is refused for now), else NULL.
fn code_of(table: &Table, id: i64) -> Option<i64> {
    let def = table.def();
    let hidden = def.unique_index_table(&def.indexes[0]);
    let mut bytes = Vec::new();
    hidden.encode_key(
        &hidden.partition_key,
        &[Value::Int(id + 1_000_000)],
        &mut bytes,
    );
    let partition = base::placement::partition_of(&bytes, hidden.partition_count);
    (base::placement::group_of(partition, 2) == group_of(table, id)).then_some(id + 1_000_000)
}

fn insert(cluster: &Cluster, table: &Table, rows: &[(i64, i64)]) -> Result<(), ClientError> {
    let mut txn = cluster.transaction();
    for (id, v) in rows {
        let code = code_of(table, *id).map_or(Value::Null, Value::Int);
        txn.insert(
            table,
            vec![(0, Value::Int(*id)), (1, Value::Int(*v)), (2, code)],
        );
    }
    txn.commit()
}

#[test]
fn transactions_reach_the_other_node_groups_partitions() {
    let mut cluster = start("node-groups-reach");
    let c1 = connect(&cluster.apis[0]);
    let c2 = connect(&cluster.apis[1]);
    // A schema change made through either node reaches both groups: node 1 is the schema
    // master; node 2 relays its client's change there.
    let t1 = c1.create_table(def()).unwrap();
    let t2 = c2.table("spread").unwrap();
    assert_eq!(t1.def(), t2.def(), "both groups hold the same definition");
    // A whole copy on every data node (FULLY_REPLICATED) is not built over several groups:
    // refused, through either node, and nothing is made.
    for c in [&c1, &c2] {
        let mut full = TableDef::new(
            "everywhere",
            vec![ColumnDef::new("k", ColumnType::BigInt { unsigned: false })],
            &["k"],
        )
        .unwrap();
        full.options.fully_replicated = true;
        match c.create_table(full) {
            Err(e) => assert!(e.to_string().contains("FULLY_REPLICATED"), "{e}"),
            Ok(_) => panic!("a FULLY_REPLICATED table was made over two node groups"),
        }
        assert!(c.table("everywhere").is_err());
    }
    let other = c2
        .create_table(
            TableDef::new(
                "relayed",
                vec![ColumnDef::new("k", ColumnType::BigInt { unsigned: false })],
                &["k"],
            )
            .unwrap(),
        )
        .unwrap();
    assert_eq!(c1.table("relayed").unwrap().def(), other.def());
    c1.forget_tables();
    c2.drop_table("relayed").unwrap();
    for c in [&c1, &c2] {
        assert!(c.table("relayed").is_err(), "dropped everywhere");
    }
    let workers = c1.worker_count();
    assert_eq!(
        t1.def().partition_count,
        2 * workers,
        "2 groups x {workers} workers"
    );
    let in_group: Vec<u32> = (0..64).map(|id| group_of(&t1, id)).collect();
    assert!(
        in_group.contains(&0) && in_group.contains(&1),
        "{in_group:?}"
    );

    // One row per transaction, through node 1: those of group 2 are written there.
    for id in 0..64 {
        insert(&c1, &t1, &[(id, id * 10)]).unwrap_or_else(|e| panic!("row {id}: {e}"));
    }
    for id in 0..64 {
        assert_eq!(
            value_of(&c1, &t1, id),
            Some(id * 10),
            "row {id} through node 1"
        );
        assert_eq!(
            value_of(&c2, &t2, id),
            Some(id * 10),
            "row {id} through node 2"
        );
    }

    // Unique-index lookups through either node, wherever the hidden row lives.
    for (c, t) in [(&c1, &t1), (&c2, &t2)] {
        let index = t.unique_index("code").unwrap();
        let coded: Vec<(i64, i64)> = (0..64)
            .filter_map(|id| Some((id, code_of(t, id)?)))
            .collect();
        assert!(coded.len() > 16, "{} rows with a code", coded.len());
        let mut txn = c.transaction();
        let ops: Vec<_> = coded
            .iter()
            .map(|(_, code)| {
                txn.read_unique(
                    t,
                    index,
                    vec![Value::Int(*code)],
                    LockMode::CommittedRead,
                    vec![],
                )
            })
            .collect();
        txn.execute(client::ExecType::NoCommit).unwrap();
        for ((id, _), op) in coded.iter().zip(ops) {
            let row = txn
                .row(op)
                .unwrap_or_else(|| panic!("code of row {id} not found"));
            assert_eq!(row[0], Value::Int(*id));
        }
        txn.rollback().unwrap();
    }

    // Scans through either node read both groups' partitions: whole tables, filtered,
    // ordered through an index (merged across groups), with a limit, in small batches.
    for (c, t) in [(&c1, &t1), (&c2, &t2)] {
        let mut ids: Vec<i64> = c
            .scan(t, &Scan::table().batch(7, 0))
            .unwrap()
            .iter()
            .map(|r| int(&r[0]))
            .collect();
        ids.sort_unstable();
        assert_eq!(ids, (0..64).collect::<Vec<_>>());
        let big = c
            .scan(
                t,
                &Scan::table().filter(Filter::Cmp {
                    column: 1,
                    op: CmpOp::Ge,
                    value: Value::Int(500),
                }),
            )
            .unwrap();
        assert_eq!(big.len(), 14, "v >= 500: ids 50..64");
        let ordered: Vec<i64> = c
            .scan(
                t,
                &Scan::index("by_v")
                    .from(vec![Value::Int(100)], true)
                    .order(ScanOrder::Descending)
                    .limit(20)
                    .batch(3, 0),
            )
            .unwrap()
            .iter()
            .map(|r| int(&r[1]))
            .collect();
        let expected: Vec<i64> = (44..64).rev().map(|id| id * 10).collect();
        assert_eq!(
            ordered, expected,
            "descending through by_v, merged across groups"
        );
        // Pushed aggregation: the coordinator folds both groups' rows.
        let folded = c
            .scan(
                t,
                &Scan::table()
                    .columns(&["v"])
                    .aggregate(client::Aggregation {
                        group: vec![],
                        functions: vec![
                            client::AggregateFn::Count(None),
                            client::AggregateFn::Sum(0),
                            client::AggregateFn::Min(0),
                            client::AggregateFn::Max(0),
                        ],
                    }),
            )
            .unwrap();
        let sum = Value::Decimal(base::value::Decimal::new(
            (0..64).map(|id| id * 10).sum::<i128>(),
            0,
        ));
        assert_eq!(
            folded,
            [vec![Value::UInt(64), sum, Value::Int(0), Value::Int(630)]],
            "one row folding both groups' rows"
        );
    }

    // A scan inside a transaction sees its own uncommitted rows in the other group.
    let mut txn = c1.transaction();
    let pending: Vec<i64> = (0..4)
        .map(|i| id_in(&t1, i % 2, 7000 + 10 * i64::from(i)))
        .collect();
    for id in &pending {
        txn.insert(&t1, vec![(0, Value::Int(*id)), (1, Value::Int(-1))]);
    }
    txn.execute(client::ExecType::NoCommit).unwrap();
    let seen = txn
        .scan(
            &t1,
            &Scan::table().filter(Filter::Cmp {
                column: 1,
                op: CmpOp::Eq,
                value: Value::Int(-1),
            }),
        )
        .unwrap();
    assert_eq!(seen.len(), pending.len(), "its own rows in both groups");
    txn.rollback().unwrap();
    assert!(c2
        .scan(
            &t2,
            &Scan::table().filter(Filter::Cmp {
                column: 1,
                op: CmpOp::Eq,
                value: Value::Int(-1)
            })
        )
        .unwrap()
        .is_empty());

    // A transaction goes to the primary holding its first row (NDB's transaction hint): on a
    // connection made from both nodes' addresses (to node 1, the first that serves), one whose
    // first row lives in the second group runs on a connection to node 2.
    let both = Cluster::connect_timeout(&cluster.apis.join(","), Duration::from_secs(5)).unwrap();
    let mut txn = both.transaction();
    txn.insert(
        &t1,
        vec![(0, Value::Int(id_in(&t1, 1, 900))), (1, Value::Int(9))],
    );
    assert_ne!(
        txn.commit_name().0,
        both.session(),
        "routed to the second group's primary"
    );
    txn.commit().unwrap();
    let mut txn = both.transaction();
    txn.insert(
        &t1,
        vec![(0, Value::Int(id_in(&t1, 0, 900))), (1, Value::Int(9))],
    );
    assert_eq!(
        txn.commit_name().0,
        both.session(),
        "its own group's rows stay here"
    );
    txn.commit().unwrap();
    assert_eq!(value_of(&c2, &t2, id_in(&t1, 1, 900)), Some(9));
    assert_eq!(value_of(&c2, &t2, id_in(&t1, 0, 900)), Some(9));

    // AUTO_INCREMENT through both groups' primaries at once: no value handed out twice.
    let auto = c1
        .create_table(
            TableDef::new(
                "auto",
                vec![
                    ColumnDef::new("id", ColumnType::BigInt { unsigned: false }).auto_increment(),
                    ColumnDef::new("v", ColumnType::BigInt { unsigned: false }),
                ],
                &["id"],
            )
            .unwrap(),
        )
        .unwrap();
    let auto2 = c2.table("auto").unwrap();
    for i in 0..20 {
        for (c, t) in [(&c1, &auto), (&c2, &auto2)] {
            let mut txn = c.transaction();
            txn.insert(t, vec![(1, Value::Int(i))]);
            txn.commit()
                .unwrap_or_else(|e| panic!("automatic insert {i}: {e}"));
        }
    }
    let ids: std::collections::BTreeSet<i64> = c1
        .scan(&auto, &Scan::table())
        .unwrap()
        .iter()
        .map(|r| int(&r[0]))
        .collect();
    assert_eq!(ids.len(), 40, "40 inserts, 40 values: {ids:?}");

    // Writes in both groups commit together (two-phase), through either node; a rollback
    // leaves nothing in either.
    let a = id_in(&t1, 0, 1000);
    let b = id_in(&t1, 1, 1000);
    insert(&c1, &t1, &[(a, 1), (b, 2)]).unwrap();
    assert_eq!(value_of(&c2, &t2, a), Some(1));
    assert_eq!(value_of(&c1, &t1, b), Some(2));
    let many: Vec<(i64, i64)> = (1100..1140).map(|id| (id, id)).collect();
    let mut txn = c2.transaction();
    for (id, v) in &many {
        // Codes whose hidden rows land in either group.
        txn.insert(
            &t2,
            vec![
                (0, Value::Int(*id)),
                (1, Value::Int(*v)),
                (2, Value::Int(*id + 7)),
            ],
        );
    }
    txn.commit().unwrap();
    for (id, v) in &many {
        assert_eq!(value_of(&c1, &t1, *id), Some(*v), "row {id}");
    }
    let mut txn = c1.transaction();
    for id in 1200..1220 {
        txn.insert(&t1, vec![(0, Value::Int(id)), (1, Value::Int(id))]);
    }
    txn.execute(client::ExecType::NoCommit).unwrap();
    txn.rollback().unwrap();
    for id in 1200..1220 {
        assert_eq!(value_of(&c2, &t2, id), None, "rolled back row {id}");
    }

    // A locked read in one group and a write in the other commit together.
    let mut txn = c1.transaction();
    let read = txn.read_with(
        &t1,
        vec![Value::Int(id_in(&t1, 0, 0))],
        LockMode::Exclusive,
        vec![],
    );
    txn.update(
        &t1,
        vec![Value::Int(id_in(&t1, 1, 0))],
        vec![(1, Value::Int(-7))],
    );
    txn.execute(client::ExecType::NoCommit).unwrap();
    assert!(txn.row(read).is_some());
    txn.commit().unwrap();
    assert_eq!(value_of(&c2, &t2, id_in(&t1, 1, 0)), Some(-7));

    // A rollback leaves nothing in the other group, and releases its locks there.
    let remote = id_in(&t2, 0, 2000);
    let mut txn = c2.transaction();
    txn.insert(&t2, vec![(0, Value::Int(remote)), (1, Value::Int(5))]);
    txn.execute(client::ExecType::NoCommit).unwrap();
    txn.rollback().unwrap();
    assert_eq!(value_of(&c1, &t1, remote), None);
    insert(&c2, &t2, &[(remote, 6)]).unwrap();
    assert_eq!(value_of(&c1, &t1, remote), Some(6));

    // A failed statement is undone in the other group; the transaction goes on.
    let fresh = id_in(&t2, 0, 3000);
    let taken = id_in(&t2, 0, 0);
    let mut txn = c2.transaction();
    txn.begin_statement();
    txn.insert(&t2, vec![(0, Value::Int(fresh)), (1, Value::Int(8))]);
    txn.execute(client::ExecType::NoCommit).unwrap();
    txn.begin_statement();
    let again = id_in(&t2, 0, fresh + 1);
    txn.insert(&t2, vec![(0, Value::Int(again)), (1, Value::Int(9))]);
    txn.insert(&t2, vec![(0, Value::Int(taken)), (1, Value::Int(9))]);
    let e = txn.execute(client::ExecType::NoCommit).unwrap_err();
    assert!(matches!(e, ClientError::StatementUndone { .. }), "{e}");
    txn.commit().unwrap();
    assert_eq!(value_of(&c1, &t1, fresh), Some(8));
    assert_eq!(
        value_of(&c1, &t1, again),
        None,
        "the undone statement's row"
    );
    assert_eq!(value_of(&c1, &t1, taken), Some(taken * 10));

    // The other group's node dies: a transaction reaching it fails at once, temporarily.
    let mut node2 = cluster.nodes[1].take().unwrap();
    node2.child.kill().unwrap();
    node2.child.wait().unwrap();
    let began = Instant::now();
    let e = insert(&c1, &t1, &[(id_in(&t1, 1, 5000), 1)]).unwrap_err();
    assert!(
        e.is_temporary() || matches!(e, ClientError::ConnectionLost(_)),
        "{e}"
    );
    assert!(
        began.elapsed() < Duration::from_secs(5),
        "the failure took {:?}",
        began.elapsed()
    );
}

/// Transfers between accounts spread over both groups, from several clients through both
/// nodes at once: every commit is two-phase or single-group, lock waits and retries happen, and
/// at the end the total is what it was and every acknowledged transfer is there.
#[test]
fn concurrent_transfers_across_groups_keep_the_total() {
    let cluster = start("node-groups-transfers");
    let c1 = connect(&cluster.apis[0]);
    // Both groups serve before the first transaction across them.
    connect(&cluster.apis[1]);
    let accounts = c1
        .create_table(
            TableDef::new(
                "accounts",
                vec![
                    ColumnDef::new("id", ColumnType::BigInt { unsigned: false }),
                    ColumnDef::new("balance", ColumnType::BigInt { unsigned: false }),
                    ColumnDef::new("moves", ColumnType::BigInt { unsigned: false }),
                ],
                &["id"],
            )
            .unwrap(),
        )
        .unwrap();
    const ACCOUNTS: i64 = 16;
    let mut txn = c1.transaction();
    for id in 0..ACCOUNTS {
        txn.insert(
            &accounts,
            vec![
                (0, Value::Int(id)),
                (1, Value::Int(1000)),
                (2, Value::Int(0)),
            ],
        );
    }
    txn.commit().unwrap();
    let seed = common::seed_from_env("CAIRN_NODE_GROUPS_SEED");
    println!("seed {seed} (CAIRN_NODE_GROUPS_SEED repeats it)");
    let acknowledged = std::sync::Arc::new(std::sync::atomic::AtomicI64::new(0));
    let threads: Vec<_> = (0..4u64)
        .map(|t| {
            let api = cluster.apis[(t % 2) as usize].clone();
            let acknowledged = acknowledged.clone();
            std::thread::spawn(move || {
                let c = connect(&api);
                let table = c.table("accounts").unwrap();
                let mut state = seed ^ (t + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                let mut next = || {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    state
                };
                let mut done = 0;
                while done < 60 {
                    let from = (next() % ACCOUNTS as u64) as i64;
                    let to = (next() % ACCOUNTS as u64) as i64;
                    if from == to {
                        continue;
                    }
                    let amount = (next() % 50) as i64;
                    let mut txn = c.transaction();
                    let a =
                        txn.read_with(&table, vec![Value::Int(from)], LockMode::Exclusive, vec![]);
                    let b =
                        txn.read_with(&table, vec![Value::Int(to)], LockMode::Exclusive, vec![]);
                    if let Err(e) = txn.execute(client::ExecType::NoCommit) {
                        assert!(e.is_temporary(), "{e}");
                        continue;
                    }
                    let (ra, rb) = (txn.row(a).unwrap().to_vec(), txn.row(b).unwrap().to_vec());
                    txn.update(
                        &table,
                        vec![Value::Int(from)],
                        vec![
                            (1, Value::Int(int(&ra[1]) - amount)),
                            (2, Value::Int(int(&ra[2]) + 1)),
                        ],
                    );
                    txn.update(
                        &table,
                        vec![Value::Int(to)],
                        vec![
                            (1, Value::Int(int(&rb[1]) + amount)),
                            (2, Value::Int(int(&rb[2]) + 1)),
                        ],
                    );
                    match txn.commit() {
                        Ok(()) => {
                            done += 1;
                            acknowledged.fetch_add(2, std::sync::atomic::Ordering::Relaxed);
                        }
                        Err(e) => assert!(e.is_temporary(), "{e}"),
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let rows = c1.scan(&accounts, &Scan::table()).unwrap();
    let total: i64 = rows.iter().map(|r| int(&r[1])).sum();
    let moves: i64 = rows.iter().map(|r| int(&r[2])).sum();
    assert_eq!(total, 1000 * ACCOUNTS, "money made or lost");
    assert_eq!(
        moves,
        acknowledged.load(std::sync::atomic::Ordering::Relaxed),
        "every acknowledged transfer, and nothing else"
    );
}

/// A transaction whose only writes so far are in the other node group stays one transaction
/// when it next reads a row of the coordinator's own group (a read the coordinator answers
/// from one worker when the transaction holds nothing on its own node): its commit commits
/// the earlier write. The coordinator once forgot such a transaction at that read, leaving its
/// part in the other group open and never committed, while the commit said it was.
#[test]
fn a_read_after_writes_only_in_the_other_group_keeps_the_transaction_whole() {
    let cluster = start("node-groups-read-after-remote");
    let c1 = connect(&cluster.apis[0]);
    connect(&cluster.apis[1]);
    let t = c1.create_table(def()).unwrap();
    let (here, there) = (id_in(&t, 0, 0), id_in(&t, 1, 0));
    insert(&c1, &t, &[(here, 1), (there, 1)]).unwrap();
    for round in 2..6 {
        let mut txn = c1.transaction();
        txn.update(&t, vec![Value::Int(there)], vec![(1, Value::Int(round))]);
        txn.execute(client::ExecType::NoCommit).unwrap();
        let read = txn.read(&t, vec![Value::Int(here)]);
        txn.execute(client::ExecType::NoCommit).unwrap();
        assert_eq!(txn.row(read).map(|r| int(&r[1])), Some(1));
        txn.commit()
            .unwrap_or_else(|e| panic!("round {round}: {e}"));
        assert_eq!(
            value_of(&c1, &t, there),
            Some(round),
            "round {round}: the committed write in the other group"
        );
    }
}

/// Long values kept in parts (`base::lob`), whose parts land in either group whatever group
/// their row is in: written through one node and read whole through the other, replaced and
/// deleted with their parts, and a dropped table's parts gone, over both groups.
#[test]
fn values_in_parts_spread_over_both_groups() {
    let cluster = start("node-groups-parts");
    let c1 = connect(&cluster.apis[0]);
    let c2 = connect(&cluster.apis[1]);
    let def = common::long_values_table();
    let t = c1.create_table(def).unwrap();
    let value =
        |id: i64, len: usize| -> Vec<u8> { (0..len).map(|i| (i as i64 * 31 + id) as u8).collect() };
    let ids = [
        id_in(&t, 0, 0),
        id_in(&t, 1, 0),
        id_in(&t, 0, 100),
        id_in(&t, 1, 100),
    ];
    let mut txn = c1.transaction();
    for id in ids {
        txn.insert(
            &t,
            vec![(0, Value::Int(id)), (1, Value::Bytes(value(id, 3 << 20)))],
        );
    }
    txn.commit().expect("long values over both groups commit");
    let parts_rows = |c: &Cluster| {
        let parts = c.table(base::lob::PARTS_TABLE).unwrap();
        c.scan(&parts, &Scan::table()).unwrap().len()
    };
    let per_value = (3usize << 20).div_ceil(base::limits::LOB_PART_BYTES);
    assert_eq!(parts_rows(&c2), 4 * per_value);
    let t2 = c2.table("long_values").unwrap();
    let mut txn = c2.transaction();
    let reads: Vec<_> = ids
        .iter()
        .map(|id| txn.read(&t2, vec![Value::Int(*id)]))
        .collect();
    txn.execute(client::ExecType::Commit).unwrap();
    for (id, op) in ids.iter().zip(reads) {
        assert!(
            txn.row(op).unwrap()[1] == Value::Bytes(value(*id, 3 << 20)),
            "row {id} read whole through the other node"
        );
    }
    // Replaced (shorter, kept inline) and deleted through the other node: their parts go.
    let mut txn = c2.transaction();
    txn.update(
        &t2,
        vec![Value::Int(ids[0])],
        vec![(1, Value::from("short"))],
    );
    txn.delete(&t2, vec![Value::Int(ids[1])]);
    txn.commit().unwrap();
    assert_eq!(parts_rows(&c1), 2 * per_value);
    let rows = c1.scan(&t, &Scan::table()).unwrap();
    assert_eq!(rows.len(), 3);
    c1.drop_table("long_values").unwrap();
    assert_eq!(parts_rows(&c1), 0);
}

/// Joined rows of a pushed join as comparable values (None for NULL), sorted.
fn joined(rows: Vec<Vec<Value>>) -> Vec<Vec<Option<i64>>> {
    let mut rows: Vec<Vec<Option<i64>>> = rows
        .iter()
        .map(|r| {
            r.iter()
                .map(|v| match v {
                    Value::Null => None,
                    v => Some(int(v)),
                })
                .collect()
        })
        .collect();
    rows.sort();
    rows
}

/// A pushed join whose children live in both node groups, some in the other group than their
/// parent: through either node, from parents to their children and from children back to their
/// parent, inner and outer, in small batches and whole, and inside a transaction holding
/// uncommitted rows in both groups, the joined rows are the model's.
#[test]
fn pushed_joins_read_children_in_both_groups() {
    let cluster = start("node-groups-pushed-joins");
    let c1 = connect(&cluster.apis[0]);
    let c2 = connect(&cluster.apis[1]);
    let big = || ColumnType::BigInt { unsigned: false };
    let parent = c1
        .create_table(
            TableDef::new(
                "jparent",
                vec![ColumnDef::new("id", big()), ColumnDef::new("v", big())],
                &["id"],
            )
            .unwrap()
            .with_index("pk", IndexKind::Ordered, &["id"])
            .unwrap(),
        )
        .unwrap();
    let child = c1
        .create_table(
            TableDef::new(
                "jchild",
                vec![
                    ColumnDef::new("id", big()),
                    ColumnDef::new("pid", big()).nullable(),
                    ColumnDef::new("w", big()),
                ],
                &["id"],
            )
            .unwrap()
            .with_index("by_pid", IndexKind::Ordered, &["pid"])
            .unwrap()
            .with_index("pk", IndexKind::Ordered, &["id"])
            .unwrap(),
        )
        .unwrap();
    // Parents 0..24 with v = 10 * id; parent p has p % 4 children, the first in the other group
    // than its parent, the next in its own, and so on; and children without a parent (NULL, or
    // a parent that is not there) in both groups.
    let mut parents: Vec<(i64, i64)> = Vec::new();
    let mut children: Vec<(i64, Option<i64>, i64)> = Vec::new();
    let mut next = 0;
    for p in 0..24i64 {
        parents.push((p, 10 * p));
        for k in 0..p % 4 {
            let g = (group_of(&parent, p) + 1 + k as u32) % 2;
            let id = id_in(&child, g, next);
            next = id + 1;
            children.push((id, Some(p), 3 * id));
        }
    }
    for (g, pid) in [(0, None), (1, None), (0, Some(100)), (1, Some(101))] {
        let id = id_in(&child, g, next);
        next = id + 1;
        children.push((id, pid, 3 * id));
    }
    let across = children
        .iter()
        .filter(|(id, pid, _)| {
            pid.is_some_and(|p| p < 24 && group_of(&child, *id) != group_of(&parent, p))
        })
        .count();
    let along = children
        .iter()
        .filter(|(id, pid, _)| {
            pid.is_some_and(|p| p < 24 && group_of(&child, *id) == group_of(&parent, p))
        })
        .count();
    assert!(
        across > 4 && along > 4,
        "{across} children across groups, {along} along"
    );
    let mut txn = c1.transaction();
    for (id, v) in &parents {
        txn.insert(&parent, vec![(0, Value::Int(*id)), (1, Value::Int(*v))]);
    }
    for (id, pid, w) in &children {
        let pid = pid.map_or(Value::Null, Value::Int);
        txn.insert(
            &child,
            vec![(0, Value::Int(*id)), (1, pid), (2, Value::Int(*w))],
        );
    }
    txn.commit().unwrap();

    // parent (id, v) ++ child (id, pid, w); child (id, pid, w) ++ parent (id, v).
    let down = |parents: &[(i64, i64)], children: &[(i64, Option<i64>, i64)], outer: bool| {
        let mut rows = Vec::new();
        for (p, v) in parents {
            let mine: Vec<_> = children.iter().filter(|c| c.1 == Some(*p)).collect();
            if mine.is_empty() && outer {
                rows.push(vec![Some(*p), Some(*v), None, None, None]);
            }
            for (id, pid, w) in mine {
                rows.push(vec![Some(*p), Some(*v), Some(*id), *pid, Some(*w)]);
            }
        }
        rows.sort();
        rows
    };
    let up = |parents: &[(i64, i64)], children: &[(i64, Option<i64>, i64)], outer: bool| {
        let mut rows = Vec::new();
        for (id, pid, w) in children {
            match parents.iter().find(|p| Some(p.0) == *pid) {
                Some((p, v)) => rows.push(vec![Some(*id), *pid, Some(*w), Some(*p), Some(*v)]),
                None if outer => rows.push(vec![Some(*id), *pid, Some(*w), None, None]),
                None => {}
            }
        }
        rows.sort();
        rows
    };
    let with = |child: JoinChild, outer: bool| if outer { child.outer() } else { child };
    for (node, c) in [(1, &c1), (2, &c2)] {
        let (p, ch) = (c.table("jparent").unwrap(), c.table("jchild").unwrap());
        for outer in [false, true] {
            for batch in [2, 0] {
                let what = format!("through node {node}, outer {outer}, batch {batch}");
                let scan = Scan::table()
                    .join(with(JoinChild::new(&ch, "by_pid", vec![0]), outer))
                    .batch(batch, 0);
                let got = joined(c.scan(&p, &scan).unwrap_or_else(|e| panic!("{what}: {e}")));
                assert_eq!(
                    got,
                    down(&parents, &children, outer),
                    "parents to children {what}"
                );
                let scan = Scan::table()
                    .join(with(JoinChild::new(&p, "pk", vec![1]), outer))
                    .batch(batch, 0);
                let got = joined(c.scan(&ch, &scan).unwrap_or_else(|e| panic!("{what}: {e}")));
                assert_eq!(
                    got,
                    up(&parents, &children, outer),
                    "children to parents {what}"
                );
            }
        }
        // Inside a transaction: a new child in each group of a parent in group 0 and of one in
        // group 1, a new parent with a child in the other group, a child deleted and one moved;
        // none committed.
        let mut seen_parents = parents.clone();
        let mut seen_children = children.clone();
        let mut txn = c.transaction();
        let mut fresh = 10_000;
        for parent_group in [0, 1] {
            let pid = (0..24).find(|q| group_of(&p, *q) == parent_group).unwrap();
            for g in [0, 1] {
                let id = id_in(&ch, g, fresh);
                fresh = id + 1;
                txn.insert(
                    &ch,
                    vec![
                        (0, Value::Int(id)),
                        (1, Value::Int(pid)),
                        (2, Value::Int(-id)),
                    ],
                );
                seen_children.push((id, Some(pid), -id));
            }
        }
        let new_parent = id_in(&p, 1, 500);
        txn.insert(&p, vec![(0, Value::Int(new_parent)), (1, Value::Int(-1))]);
        seen_parents.push((new_parent, -1));
        let id = id_in(&ch, 0, fresh);
        txn.insert(
            &ch,
            vec![
                (0, Value::Int(id)),
                (1, Value::Int(new_parent)),
                (2, Value::Int(-id)),
            ],
        );
        seen_children.push((id, Some(new_parent), -id));
        let (gone, _, _) = seen_children.remove(0);
        txn.delete(&ch, vec![Value::Int(gone)]);
        let moved = seen_children.iter_mut().find(|c| c.1 == Some(3)).unwrap();
        moved.1 = Some(2);
        txn.update(&ch, vec![Value::Int(moved.0)], vec![(1, Value::Int(2))]);
        txn.execute(client::ExecType::NoCommit).unwrap();
        for outer in [false, true] {
            let what = format!("in a transaction through node {node}, outer {outer}");
            let scan = Scan::table()
                .join(with(JoinChild::new(&ch, "by_pid", vec![0]), outer))
                .batch(3, 0);
            let got = joined(
                txn.scan(&p, &scan)
                    .unwrap_or_else(|e| panic!("{what}: {e}")),
            );
            assert_eq!(
                got,
                down(&seen_parents, &seen_children, outer),
                "parents to children {what}"
            );
            let scan = Scan::table().join(with(JoinChild::new(&p, "pk", vec![1]), outer));
            let got = joined(
                txn.scan(&ch, &scan)
                    .unwrap_or_else(|e| panic!("{what}: {e}")),
            );
            assert_eq!(
                got,
                up(&seen_parents, &seen_children, outer),
                "children to parents {what}"
            );
        }
        txn.rollback().unwrap();
    }
}
