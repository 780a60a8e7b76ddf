//! Keys, unique indexes, collations, row locks, scans and the asynchronous API, end to end over
//! the transport against an in-process data node.

mod common;

use std::time::{Duration, Instant};

use base::schema::{ColumnDef, IndexKind};
use base::types::{Collation, ColumnType};
use client::{
    AsyncSession, ClientError, CmpOp, ErrorCode, ExecType, Filter, LockMode, OpKind, OpResult,
    Operation, Scan, ScanOrder, TableDef, Value,
};
use common::TestNode;

fn people() -> TableDef {
    TableDef::new(
        "people",
        vec![
            ColumnDef::new("id", ColumnType::Int { unsigned: false }),
            ColumnDef::new("email", ColumnType::VarChar { length: 40 }).nullable(),
            ColumnDef::new("name", ColumnType::VarChar { length: 40 }).default(Value::from("anon")),
            ColumnDef::new("age", ColumnType::Int { unsigned: false }).nullable(),
        ],
        &["id"],
    )
    .unwrap()
    .with_index("email", IndexKind::Unique, &["email"])
    .unwrap()
    .with_index("age", IndexKind::Ordered, &["age"])
    .unwrap()
}

/// Creates `people` holding person 1, aged 30.
fn one_person_aged_30(cluster: &client::Cluster) -> client::Table {
    let t = cluster.create_table(people()).unwrap();
    let mut txn = cluster.transaction();
    txn.insert(
        &t,
        t.values(&[("id", 1.into()), ("age", 30.into())]).unwrap(),
    );
    txn.commit().unwrap();
    t
}

#[test]
fn unique_violation_is_duplicate_key_and_changes_nothing() {
    let node = TestNode::start(2, Duration::from_millis(500));
    let cluster = node.connect();
    let t = cluster.create_table(people()).unwrap();
    let mut txn = cluster.transaction();
    txn.insert(
        &t,
        t.values(&[("id", 1.into()), ("email", "a@x".into())])
            .unwrap(),
    );
    txn.commit().unwrap();

    // Same email differing only in case collides under utf8mb4_general_ci.
    let mut txn = cluster.transaction();
    txn.insert(
        &t,
        t.values(&[("id", 2.into()), ("email", "b@x".into())])
            .unwrap(),
    );
    txn.insert(
        &t,
        t.values(&[("id", 3.into()), ("email", "A@X".into())])
            .unwrap(),
    );
    let err = txn.execute(ExecType::Commit).unwrap_err();
    assert_eq!(err.code(), ErrorCode::DuplicateKey, "{err}");
    assert!(
        matches!(err, ClientError::Aborted { op_index: 1, .. }),
        "{err}"
    );
    assert!(!err.is_temporary());

    let email = t.unique_index("email").unwrap();
    let mut txn = cluster.transaction();
    let b = txn.read_unique(
        &t,
        email,
        vec!["b@x".into()],
        LockMode::CommittedRead,
        vec![],
    );
    let two = txn.read(&t, vec![2.into()]);
    let three = txn.read(&t, vec![3.into()]);
    let a = txn.read_unique(
        &t,
        email,
        vec!["A@x".into()],
        LockMode::CommittedRead,
        vec![],
    );
    txn.execute(ExecType::Commit).unwrap();
    assert_eq!(txn.result(b), Some(&OpResult::NotFound));
    assert_eq!(txn.result(two), Some(&OpResult::NotFound));
    assert_eq!(txn.result(three), Some(&OpResult::NotFound));
    assert_eq!(txn.row(a).unwrap()[0], Value::Int(1));

    // A duplicate primary key is refused the same way.
    let mut txn = cluster.transaction();
    txn.insert(&t, t.values(&[("id", 1.into())]).unwrap());
    assert_eq!(
        txn.execute(ExecType::Commit).unwrap_err().code(),
        ErrorCode::DuplicateKey
    );

    // Moving the unique value frees the old one; NULLs never collide.
    let mut txn = cluster.transaction();
    txn.update(
        &t,
        vec![1.into()],
        t.values(&[("email", "c@x".into())]).unwrap(),
    );
    txn.insert(
        &t,
        t.values(&[("id", 4.into()), ("email", "a@x".into())])
            .unwrap(),
    );
    txn.insert(
        &t,
        t.values(&[("id", 5.into()), ("email", Value::Null)])
            .unwrap(),
    );
    txn.insert(
        &t,
        t.values(&[("id", 6.into()), ("email", Value::Null)])
            .unwrap(),
    );
    txn.commit().unwrap();
    let mut txn = cluster.transaction();
    let c = txn.read_unique(
        &t,
        email,
        vec!["c@x".into()],
        LockMode::CommittedRead,
        vec![],
    );
    let a = txn.read_unique(
        &t,
        email,
        vec!["a@x".into()],
        LockMode::CommittedRead,
        vec![],
    );
    let anon = txn.read(&t, vec![5.into()]);
    txn.execute(ExecType::Commit).unwrap();
    assert_eq!(txn.row(c).unwrap()[0], Value::Int(1));
    assert_eq!(txn.row(a).unwrap()[0], Value::Int(4));
    assert_eq!(
        txn.row(anon).unwrap()[2],
        Value::from("anon"),
        "default applied"
    );

    // Delete through the unique key removes the row and its index entry.
    let mut txn = cluster.transaction();
    txn.delete_unique(&t, email, vec!["C@X".into()]);
    txn.commit().unwrap();
    let mut txn = cluster.transaction();
    let gone = txn.read(&t, vec![1.into()]);
    txn.insert(
        &t,
        t.values(&[("id", 7.into()), ("email", "c@x".into())])
            .unwrap(),
    );
    txn.execute(ExecType::Commit).unwrap();
    assert_eq!(txn.result(gone), Some(&OpResult::NotFound));
}

#[test]
fn collation_makes_case_variants_one_key_and_one_partition() {
    let node = TestNode::start(3, Duration::from_millis(500));
    let cluster = node.connect();
    let def = TableDef::new(
        "words",
        vec![
            ColumnDef::new("w", ColumnType::VarChar { length: 20 }),
            ColumnDef::new("n", ColumnType::Int { unsigned: false }),
        ],
        &["w"],
    )
    .unwrap();
    let t = cluster.create_table(def).unwrap();
    let mut txn = cluster.transaction();
    txn.insert(
        &t,
        t.values(&[("w", "ABC".into()), ("n", 1.into())]).unwrap(),
    );
    txn.commit().unwrap();
    for variant in ["abc", "Abc ", "àbç"] {
        let mut txn = cluster.transaction();
        let r = txn.read(&t, vec![variant.into()]);
        txn.execute(ExecType::NoCommit).unwrap();
        assert_eq!(
            txn.row(r).map(|r| r[1].clone()),
            Some(Value::Int(1)),
            "{variant}"
        );
        txn.insert(
            &t,
            t.values(&[("w", variant.into()), ("n", 2.into())]).unwrap(),
        );
        assert_eq!(
            txn.execute(ExecType::Commit).unwrap_err().code(),
            ErrorCode::DuplicateKey,
            "{variant}"
        );
    }
    // A binary collation keeps them apart.
    let def = TableDef::new(
        "bwords",
        vec![ColumnDef::new("w", ColumnType::VarChar { length: 20 })
            .collation(Collation::Utf8mb4Bin)],
        &["w"],
    )
    .unwrap();
    let t = cluster.create_table(def).unwrap();
    let mut txn = cluster.transaction();
    txn.insert(&t, vec![(0, "ABC".into())]);
    txn.insert(&t, vec![(0, "abc".into())]);
    txn.commit().unwrap();
}

#[test]
fn lock_conflict_times_out_with_a_temporary_error() {
    let node = TestNode::start(2, Duration::from_millis(300));
    let holder = node.connect();
    let waiter = node.connect();
    let t = one_person_aged_30(&holder);

    let mut a = holder.transaction();
    a.read_with(&t, vec![1.into()], LockMode::Exclusive, vec![]);
    a.execute(ExecType::NoCommit).unwrap();

    let tw = waiter.table("people").unwrap();
    let started = Instant::now();
    let mut b = waiter.transaction();
    b.update(
        &tw,
        vec![1.into()],
        tw.values(&[("age", 31.into())]).unwrap(),
    );
    let err = b.execute(ExecType::Commit).unwrap_err();
    assert_eq!(err.code(), ErrorCode::LockWaitTimeout, "{err}");
    assert!(err.is_temporary(), "lock wait timeout must be temporary");
    assert!(
        started.elapsed() >= Duration::from_millis(250),
        "waited {:?}",
        started.elapsed()
    );

    // A committed read does not wait for the lock and sees the committed value.
    let mut c = waiter.transaction();
    let r = c.read(&tw, vec![1.into()]);
    c.execute(ExecType::Commit).unwrap();
    assert_eq!(c.row(r).unwrap()[3], Value::Int(30));

    // Once the holder commits, the retry succeeds.
    a.commit().unwrap();
    let mut b = waiter.transaction();
    b.update(
        &tw,
        vec![1.into()],
        tw.values(&[("age", 31.into())]).unwrap(),
    );
    b.commit().unwrap();

    // A request left waiting by a connection that went away dies with its transaction: it must not
    // take the lock later and keep it forever.
    let mut a = holder.transaction();
    a.read_with(&t, vec![1.into()], LockMode::Exclusive, vec![]);
    a.execute(ExecType::NoCommit).unwrap();
    {
        let gone = client::Cluster::connect(&node.address).unwrap();
        let tg = gone.table("people").unwrap();
        let mut session = AsyncSession::new(&gone);
        let op = Operation {
            kind: OpKind::Update,
            table: tg.id(),
            version: tg.version(),
            index: None,
            key: vec![1.into()],
            values: tg.values(&[("age", 99.into())]).unwrap(),
            projection: vec![],
        };
        session.prepare(1, vec![op], ExecType::NoCommit).unwrap();
        session.send().unwrap();
        // Make sure the update reached the data node and is waiting before the connection goes.
        gone.ping(vec![]).unwrap();
    }
    a.commit().unwrap();
    let mut c = waiter.transaction();
    c.update(
        &tw,
        vec![1.into()],
        tw.values(&[("age", 32.into())]).unwrap(),
    );
    c.commit()
        .expect("the lock of the vanished request was released");

    // A waiter is granted the lock when the holder finishes before the timeout.
    let node = TestNode::start(1, Duration::from_secs(5));
    let holder = node.connect();
    let t = holder.create_table(people()).unwrap();
    let mut txn = holder.transaction();
    txn.insert(
        &t,
        t.values(&[("id", 1.into()), ("age", 1.into())]).unwrap(),
    );
    txn.commit().unwrap();
    let mut a = holder.transaction();
    a.update(&t, vec![1.into()], t.values(&[("age", 2.into())]).unwrap());
    a.execute(ExecType::NoCommit).unwrap();
    let address = node.address.clone();
    let other = std::thread::spawn(move || {
        let c = client::Cluster::connect(&address).unwrap();
        let t = c.table("people").unwrap();
        let mut b = c.transaction();
        let r = b.read_with(&t, vec![1.into()], LockMode::Shared, vec![]);
        b.execute(ExecType::Commit).unwrap();
        b.row(r).unwrap()[3].clone()
    });
    std::thread::sleep(Duration::from_millis(50));
    a.commit().unwrap();
    assert_eq!(
        other.join().unwrap(),
        Value::Int(2),
        "the shared reader waited for the commit"
    );
}

#[test]
fn rollback_and_uncommitted_writes_are_invisible_to_others() {
    let node = TestNode::start(2, Duration::from_millis(300));
    let c1 = node.connect();
    let c2 = node.connect();
    let t = c1.create_table(people()).unwrap();
    let mut a = c1.transaction();
    a.insert(&t, t.values(&[("id", 9.into())]).unwrap());
    let own = a.read(&t, vec![9.into()]);
    a.execute(ExecType::NoCommit).unwrap();
    assert!(a.row(own).is_some(), "a transaction reads its own writes");
    let t2 = c2.table("people").unwrap();
    let mut b = c2.transaction();
    let r = b.read(&t2, vec![9.into()]);
    b.execute(ExecType::Commit).unwrap();
    assert_eq!(
        b.result(r),
        Some(&OpResult::NotFound),
        "uncommitted insert is invisible"
    );
    a.rollback().unwrap();

    // A commit whose last request only reads still commits the writes made before it.
    let mut w = c1.transaction();
    w.insert(&t, t.values(&[("id", 10.into())]).unwrap());
    w.execute(ExecType::NoCommit).unwrap();
    let seen = w.read(&t, vec![10.into()]);
    w.execute(ExecType::Commit).unwrap();
    assert!(w.row(seen).is_some());
    let mut b = c2.transaction();
    let r = b.read(&t2, vec![10.into()]);
    b.execute(ExecType::Commit).unwrap();
    assert!(b.row(r).is_some(), "the insert was committed");
    let mut b = c2.transaction();
    b.insert(&t2, t2.values(&[("id", 9.into())]).unwrap());
    b.commit().unwrap();
}

#[test]
fn scans_filter_project_limit_order_and_prune() {
    let node = TestNode::start(3, Duration::from_millis(300));
    let cluster = node.connect();
    let def = TableDef::new(
        "events",
        vec![
            ColumnDef::new("tenant", ColumnType::Int { unsigned: false }),
            ColumnDef::new("seq", ColumnType::Int { unsigned: false }),
            ColumnDef::new("kind", ColumnType::VarChar { length: 20 }).nullable(),
            ColumnDef::new(
                "amount",
                ColumnType::Decimal {
                    precision: 10,
                    scale: 2,
                },
            )
            .nullable(),
        ],
        &["tenant", "seq"],
    )
    .unwrap()
    .with_partition_key(&["tenant"])
    .unwrap()
    .with_index("by_tenant_seq", IndexKind::Ordered, &["tenant", "seq"])
    .unwrap()
    .with_index("by_kind", IndexKind::Ordered, &["kind"])
    .unwrap();
    let t = cluster.create_table(def).unwrap();
    let kinds = ["Login", "logout", "purchase", "refund"];
    let mut txn = cluster.transaction();
    for tenant in 0..5 {
        for seq in 0..40 {
            let kind = if seq % 7 == 0 {
                Value::Null
            } else {
                Value::from(kinds[seq as usize % 4])
            };
            txn.insert(
                &t,
                t.values(&[
                    ("tenant", tenant.into()),
                    ("seq", seq.into()),
                    ("kind", kind),
                    ("amount", Value::from(format!("{seq}.5"))),
                ])
                .unwrap(),
            );
        }
    }
    txn.commit().unwrap();
    let (kind, amount, seq) = (
        t.column("kind").unwrap(),
        t.column("amount").unwrap(),
        t.column("seq").unwrap(),
    );

    let all = cluster.scan(&t, &Scan::table()).unwrap();
    assert_eq!(all.len(), 200);
    let login = cluster
        .scan(
            &t,
            &Scan::table()
                .filter(Filter::Like {
                    column: kind,
                    pattern: b"LOG%".to_vec(),
                })
                .columns(&["kind"]),
        )
        .unwrap();
    assert_eq!(
        login.len(),
        5 * 17,
        "Login and logout rows, NULL kinds excluded"
    );
    assert!(login.iter().all(|r| r.len() == 1));
    let nulls = cluster
        .scan(&t, &Scan::table().filter(Filter::IsNull { column: kind }))
        .unwrap();
    assert_eq!(nulls.len(), 5 * 6);
    let mixed = Filter::Or(vec![
        Filter::In {
            column: seq,
            values: vec![1.into(), 2.into(), 3.into()],
        },
        Filter::And(vec![
            Filter::Between {
                column: amount,
                low: Value::from("30"),
                high: Value::from("32"),
            },
            Filter::Not(Box::new(Filter::Cmp {
                column: seq,
                op: CmpOp::Eq,
                value: 31.into(),
            })),
        ]),
    ]);
    assert_eq!(
        cluster
            .scan(&t, &Scan::table().filter(mixed))
            .unwrap()
            .len(),
        5 * (3 + 1)
    );
    assert_eq!(
        cluster.scan(&t, &Scan::table().limit(17)).unwrap().len(),
        17
    );

    // Equality on the partition key prunes to one partition and returns index order.
    let one = cluster
        .scan(
            &t,
            &Scan::index("by_tenant_seq")
                .equal(vec![3.into()])
                .order(ScanOrder::Descending)
                .columns(&["seq"]),
        )
        .unwrap();
    let seqs: Vec<Value> = one.into_iter().map(|r| r[0].clone()).collect();
    assert_eq!(seqs, (0..40).rev().map(Value::Int).collect::<Vec<_>>());
    // A bounded range over all partitions, merged in order, with a limit.
    let range = cluster
        .scan(
            &t,
            &Scan::index("by_tenant_seq")
                .from(vec![1.into(), 38.into()], false)
                .to(vec![3.into()], false)
                .order(ScanOrder::Ascending)
                .columns(&["tenant", "seq"]),
        )
        .unwrap();
    let expected: Vec<Vec<Value>> = std::iter::once(vec![1.into(), 39.into()])
        .chain((0..40).map(|s| vec![2.into(), s.into()]))
        .collect();
    assert_eq!(range, expected);
    // Strings scan in collation order: NULL first, then case-insensitively.
    let by_kind = cluster
        .scan(
            &t,
            &Scan::index("by_kind")
                .order(ScanOrder::Ascending)
                .columns(&["kind"])
                .limit(40),
        )
        .unwrap();
    assert!(by_kind[..30].iter().all(|r| r[0] == Value::Null));
    assert!(by_kind[30..].iter().all(|r| r[0] == Value::from("Login")));
    // Bad requests are refused cleanly.
    assert_eq!(
        cluster.scan(&t, &Scan::index("nope")).unwrap_err().code(),
        ErrorCode::NoSuchIndex
    );
    let bad = Filter::Cmp {
        column: 99,
        op: CmpOp::Eq,
        value: 1.into(),
    };
    assert_eq!(
        cluster
            .scan(&t, &Scan::table().filter(bad))
            .unwrap_err()
            .code(),
        ErrorCode::BadRequest
    );
}

#[test]
fn many_transactions_in_flight_from_one_thread() {
    let node = TestNode::start(2, Duration::from_millis(300));
    let cluster = node.connect();
    let t = cluster.create_table(people()).unwrap();
    let mut session = AsyncSession::new(&cluster);
    for i in 0..200u64 {
        let op = Operation {
            kind: OpKind::Insert,
            table: t.id(),
            version: t.version(),
            index: None,
            key: vec![],
            values: t.values(&[("id", Value::Int(i as i64))]).unwrap(),
            projection: vec![],
        };
        session.prepare(i, vec![op], ExecType::Commit).unwrap();
    }
    // One duplicate in flight with the rest fails alone.
    let dup = Operation {
        kind: OpKind::Insert,
        table: t.id(),
        version: t.version(),
        index: None,
        key: vec![],
        values: t.values(&[("id", Value::Int(5))]).unwrap(),
        projection: vec![],
    };
    session.send().unwrap();
    let mut done = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    while done.len() < 200 && Instant::now() < deadline {
        done.extend(session.poll(1, Duration::from_secs(1)).unwrap());
    }
    assert_eq!(done.len(), 200);
    assert!(done.iter().all(|(_, r)| r.is_ok()));
    session.prepare(999, vec![dup], ExecType::Commit).unwrap();
    session.send().unwrap();
    let last = session.poll(1, Duration::from_secs(5)).unwrap();
    assert_eq!(last.len(), 1);
    assert_eq!(
        last[0].1.as_ref().unwrap_err().code(),
        ErrorCode::DuplicateKey
    );
    assert_eq!(cluster.status().unwrap().row_count, 200);
}

#[test]
fn increment_adds_in_the_data_node_and_keeps_ranges_and_indexes() {
    let node = TestNode::start(2, Duration::from_millis(500));
    let cluster = node.connect();
    let def = TableDef::new(
        "counters",
        vec![
            ColumnDef::new("id", ColumnType::Int { unsigned: false }),
            ColumnDef::new("hits", ColumnType::TinyInt { unsigned: true }),
            ColumnDef::new("score", ColumnType::BigInt { unsigned: false }).nullable(),
            ColumnDef::new("label", ColumnType::VarChar { length: 10 }),
        ],
        &["id"],
    )
    .unwrap()
    .with_index("score", IndexKind::Ordered, &["score"])
    .unwrap();
    let t = cluster.create_table(def).unwrap();
    let (hits, score, label) = (1u16, 2u16, 3u16);
    let mut txn = cluster.transaction();
    txn.insert(
        &t,
        t.values(&[
            ("id", 1.into()),
            ("hits", Value::UInt(250)),
            ("score", Value::Int(-5)),
            ("label", "a".into()),
        ])
        .unwrap(),
    );
    txn.insert(
        &t,
        t.values(&[
            ("id", 2.into()),
            ("hits", Value::UInt(0)),
            ("score", Value::Null),
            ("label", "b".into()),
        ])
        .unwrap(),
    );
    txn.commit().unwrap();
    let read = |id: i32| {
        let mut txn = cluster.transaction();
        let op = txn.read(&t, vec![id.into()]);
        txn.execute(ExecType::Commit).unwrap();
        txn.row(op).map(|r| r.to_vec())
    };

    // Add and subtract in one round trip; NULL stays NULL.
    let mut txn = cluster.transaction();
    let a = txn.increment(&t, vec![1.into()], vec![(hits, 5), (score, -10)]);
    let b = txn.increment(&t, vec![2.into()], vec![(score, 7)]);
    let missing = txn.increment(&t, vec![3.into()], vec![(hits, 1)]);
    txn.execute(ExecType::Commit).unwrap();
    assert_eq!(txn.result(a), Some(&OpResult::Done { assigned: None }));
    assert_eq!(txn.result(b), Some(&OpResult::Done { assigned: None }));
    assert_eq!(txn.result(missing), Some(&OpResult::NotFound));
    assert_eq!(read(1).unwrap()[1..3], [Value::UInt(255), Value::Int(-15)]);
    assert_eq!(read(2).unwrap()[2], Value::Null);

    // Out of the column's range (TINYINT UNSIGNED 255 + 1, 0 - 1): refused, nothing changes.
    for (id, amount) in [(1, 1), (2, -1)] {
        let mut txn = cluster.transaction();
        txn.increment(&t, vec![id.into()], vec![(hits, amount)]);
        let err = txn.commit().unwrap_err();
        assert_eq!(err.code(), ErrorCode::BadValue, "{err}");
    }
    assert_eq!(read(1).unwrap()[1], Value::UInt(255));
    assert_eq!(read(2).unwrap()[1], Value::UInt(0));

    // Only integer columns outside the primary key.
    for column in [0u16, label] {
        let mut txn = cluster.transaction();
        txn.increment(&t, vec![1.into()], vec![(column, 1)]);
        let err = txn.commit().unwrap_err();
        assert_eq!(err.code(), ErrorCode::BadRequest, "{err}");
    }

    // The ordered index follows the new value.
    let by_score = cluster
        .scan(
            &t,
            &Scan::index("score")
                .order(ScanOrder::Ascending)
                .columns(&["id", "score"]),
        )
        .unwrap();
    assert_eq!(
        by_score,
        vec![
            vec![Value::Int(2), Value::Null],
            vec![Value::Int(1), Value::Int(-15)]
        ]
    );
}

/// Ids and emails of every row `txn` sees, by id.
fn seen(txn: &client::Transaction, t: &client::Table) -> Vec<(Value, Value)> {
    let mut rows: Vec<(Value, Value)> = txn
        .scan(t, &Scan::table().columns(&["id", "email"]))
        .unwrap()
        .into_iter()
        .map(|r| (r[0].clone(), r[1].clone()))
        .collect();
    rows.sort_by_key(|(id, _)| match id {
        Value::Int(i) => *i,
        _ => i64::MAX,
    });
    rows
}

/// A connection to `node` (three workers) and `people` over six partitions, so over every worker.
fn people_on_three_workers(node: &TestNode) -> (client::Cluster, client::Table) {
    let cluster = node.connect();
    let mut def = people();
    def.partition_count = 6;
    let t = cluster.create_table(def).unwrap();
    (cluster, t)
}

/// A `people` row's id and email.
fn person(t: &client::Table, id: i64, email: &str) -> Vec<(u16, Value)> {
    t.values(&[("id", id.into()), ("email", email.into())])
        .unwrap()
}

#[test]
fn a_failed_statement_is_undone_alone_and_keeps_its_locks() {
    let node = TestNode::start(3, Duration::from_millis(300));
    let (cluster, t) = people_on_three_workers(&node);
    let other = node.connect();
    let row = |id: i64, email: &str| person(&t, id, email);
    let mut txn = cluster.transaction();
    txn.insert(&t, row(1, "one@x"));
    txn.commit().unwrap();

    let mut txn = cluster.transaction();
    // Statement 1 stays.
    txn.begin_statement();
    txn.insert(&t, row(2, "two@x"));
    txn.update(&t, vec![1.into()], t.values(&[("age", 41.into())]).unwrap());
    txn.execute(ExecType::NoCommit).unwrap();
    // Statement 2: two requests; the second fails on the unique email, and both go.
    txn.begin_statement();
    for id in 3..9 {
        txn.insert(&t, row(id, &format!("s2-{id}@x")));
    }
    txn.delete(&t, vec![2.into()]);
    txn.execute(ExecType::NoCommit).unwrap();
    txn.insert(&t, row(9, "s2-9@x"));
    txn.insert(&t, row(10, "ONE@X"));
    let err = txn.execute(ExecType::NoCommit).unwrap_err();
    assert_undone(&err, ErrorCode::DuplicateKey);
    assert!(txn.is_open(), "the transaction goes on");
    assert_eq!(
        seen(&txn, &t),
        vec![(1.into(), "one@x".into()), (2.into(), "two@x".into())]
    );
    // The unique values statement 2 took are free again within the transaction.
    txn.begin_statement();
    txn.insert(&t, row(3, "s2-3@x"));
    txn.execute(ExecType::NoCommit).unwrap();
    // An undo asked for by the client (a statement that failed in the API node).
    txn.begin_statement();
    txn.insert(&t, row(20, "twenty@x"));
    txn.update(&t, vec![3.into()], t.values(&[("age", 3.into())]).unwrap());
    txn.execute(ExecType::NoCommit).unwrap();
    txn.undo_statement().unwrap();
    assert!(txn.is_open());

    // The failed statements' locks stay until the transaction ends: another writer waits.
    let mut blocked = other.transaction();
    blocked.insert(&t, row(5, "other@x"));
    let err = blocked.execute(ExecType::Commit).unwrap_err();
    assert_eq!(err.code(), ErrorCode::LockWaitTimeout, "{err}");

    txn.commit().unwrap();
    let reader = other.transaction();
    assert_eq!(
        seen(&reader, &t),
        vec![
            (1.into(), "one@x".into()),
            (2.into(), "two@x".into()),
            (3.into(), "s2-3@x".into())
        ]
    );
    let mut r = other.transaction();
    let one = r.read(&t, vec![1.into()]);
    let three = r.read(&t, vec![3.into()]);
    r.execute(ExecType::Commit).unwrap();
    assert_eq!(r.row(one).unwrap()[3], Value::Int(41));
    assert_eq!(r.row(three).unwrap()[3], Value::Null);
    // Once it ended, its keys are free.
    let mut after = other.transaction();
    after.insert(&t, row(5, "other@x"));
    after.commit().unwrap();

    // A lock wait timeout undoes only its statement, as InnoDB's default: the transaction
    // keeps what it did before and goes on.
    let mut holder = other.transaction();
    holder.read_with(&t, vec![1.into()], LockMode::Exclusive, vec![]);
    holder.execute(ExecType::NoCommit).unwrap();
    let mut txn = cluster.transaction();
    txn.begin_statement();
    txn.insert(&t, row(40, "forty@x"));
    txn.execute(ExecType::NoCommit).unwrap();
    txn.begin_statement();
    txn.update(&t, vec![1.into()], t.values(&[("age", 1.into())]).unwrap());
    let err = txn.execute(ExecType::NoCommit).unwrap_err();
    assert_undone(&err, ErrorCode::LockWaitTimeout);
    assert!(txn.is_open());
    holder.commit().unwrap();
    // The statement may run again once the lock is free.
    txn.begin_statement();
    txn.update(&t, vec![1.into()], t.values(&[("age", 1.into())]).unwrap());
    txn.execute(ExecType::NoCommit).unwrap();
    txn.commit().unwrap();
    let mut r = other.transaction();
    let forty = r.read(&t, vec![40.into()]);
    let one = r.read(&t, vec![1.into()]);
    r.execute(ExecType::Commit).unwrap();
    assert!(r.row(forty).is_some(), "the earlier statement was kept");
    assert_eq!(r.row(one).unwrap()[3], Value::Int(1));

    // Without begin_statement a failure still aborts the whole transaction.
    let mut txn = cluster.transaction();
    txn.insert(&t, row(30, "thirty@x"));
    txn.execute(ExecType::NoCommit).unwrap();
    txn.insert(&t, row(31, "one@x"));
    let err = txn.execute(ExecType::NoCommit).unwrap_err();
    assert!(matches!(err, ClientError::Aborted { .. }), "{err}");
    assert!(!txn.is_open());
    let mut r = other.transaction();
    let thirty = r.read(&t, vec![30.into()]);
    r.execute(ExecType::Commit).unwrap();
    assert!(r.row(thirty).is_none());
}

#[test]
fn undo_from_a_savepoint_puts_back_every_statement_since_on_every_worker() {
    let node = TestNode::start(3, Duration::from_millis(300));
    let (cluster, t) = people_on_three_workers(&node);
    let row = |id: i64, email: &str| person(&t, id, email);
    let mut txn = cluster.transaction();
    for id in 1..4 {
        txn.insert(&t, row(id, &format!("{id}@x")));
    }
    txn.commit().unwrap();

    let mut txn = cluster.transaction();
    txn.begin_statement();
    txn.insert(&t, row(10, "ten@x"));
    txn.execute(ExecType::NoCommit).unwrap();
    // The savepoint: statements from the next one on stay undoable.
    let savepoint = txn.next_statement();
    txn.keep_undo_from(savepoint);
    // Rows spread over the partitions, so over every worker.
    txn.begin_statement();
    for id in 20..32 {
        txn.insert(&t, row(id, &format!("s1-{id}@x")));
    }
    txn.update(&t, vec![1.into()], t.values(&[("age", 7.into())]).unwrap());
    txn.execute(ExecType::NoCommit).unwrap();
    txn.begin_statement();
    txn.delete(&t, vec![2.into()]);
    txn.update(&t, vec![1.into()], t.values(&[("age", 8.into())]).unwrap());
    txn.execute(ExecType::NoCommit).unwrap();
    // A failed statement after the savepoint is undone alone; the ones before it stay.
    txn.begin_statement();
    txn.insert(&t, row(40, "forty@x"));
    txn.insert(&t, row(41, "3@X"));
    assert_undone(
        &txn.execute(ExecType::NoCommit).unwrap_err(),
        ErrorCode::DuplicateKey,
    );
    assert_eq!(seen(&txn, &t).len(), 3 - 1 + 1 + 12);
    txn.undo_from(savepoint).unwrap();
    assert!(txn.is_open());
    assert_eq!(
        seen(&txn, &t),
        vec![
            (1.into(), "1@x".into()),
            (2.into(), "2@x".into()),
            (3.into(), "3@x".into()),
            (10.into(), "ten@x".into())
        ]
    );
    // The savepoint stays usable: more statements, undone again.
    txn.begin_statement();
    txn.delete(&t, vec![3.into()]);
    txn.execute(ExecType::NoCommit).unwrap();
    txn.undo_from(savepoint).unwrap();
    txn.keep_undo_from(0);
    txn.begin_statement();
    txn.update(&t, vec![2.into()], t.values(&[("age", 2.into())]).unwrap());
    txn.execute(ExecType::NoCommit).unwrap();
    txn.commit().unwrap();

    let mut r = cluster.transaction();
    let one = r.read(&t, vec![1.into()]);
    let two = r.read(&t, vec![2.into()]);
    r.execute(ExecType::Commit).unwrap();
    assert_eq!(
        r.row(one).unwrap()[3],
        Value::Null,
        "row 1's updates undone"
    );
    assert_eq!(r.row(two).unwrap()[3], Value::Int(2));
    assert_eq!(seen(&cluster.transaction(), &t).len(), 4);
}

/// Asserts `err` undid only its statement, for a failure of `code`.
fn assert_undone(err: &ClientError, code: ErrorCode) {
    assert!(
        matches!(err, ClientError::StatementUndone { error, .. } if error.code == code),
        "{err}"
    );
}

/// Locks row `key` of `t` exclusively in `txn` (a read under the lock, not committed).
fn lock_row(txn: &mut client::Transaction, t: &client::Table, key: i32, mode: LockMode) {
    txn.read_with(t, vec![key.into()], mode, vec![]);
}

#[test]
fn a_deadlock_fails_one_transaction_at_once_and_the_others_go_on() {
    // A lock-wait timeout far longer than the test: only deadlock detection ends the waits.
    let timeout = Duration::from_secs(60);
    let node = TestNode::start(2, timeout);
    let setup = node.connect();
    let t = setup.create_table(people()).unwrap();
    let mut txn = setup.transaction();
    for id in 1..=3 {
        txn.insert(&t, t.values(&[("id", id.into())]).unwrap());
    }
    txn.commit().unwrap();

    // Three transactions on three connections each hold one row and then ask for the next
    // one's: 1 -> 2 -> 3 -> 1, over both workers. The wait that closes the cycle, whichever
    // comes last, fails with Deadlock; its transaction is aborted, so the others get their
    // rows in turn as each commits.
    let started = Instant::now();
    let clusters: Vec<_> = (0..3).map(|_| node.connect()).collect();
    let mut txns: Vec<_> = clusters
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let t = c.table("people").unwrap();
            let mut txn = c.transaction();
            lock_row(&mut txn, &t, i as i32 + 1, LockMode::Exclusive);
            txn.execute(ExecType::NoCommit).unwrap();
            (txn, t)
        })
        .collect();
    let outcomes: Vec<Option<ErrorCode>> = std::thread::scope(|s| {
        let handles: Vec<_> = txns
            .drain(..)
            .enumerate()
            .map(|(i, (mut txn, t))| {
                s.spawn(move || {
                    lock_row(&mut txn, &t, (i as i32 + 1) % 3 + 1, LockMode::Exclusive);
                    match txn.execute(ExecType::NoCommit) {
                        Ok(_) => {
                            txn.update(
                                &t,
                                vec![(i as i32 + 1).into()],
                                t.values(&[("age", (i as i32 + 10).into())]).unwrap(),
                            );
                            txn.commit().unwrap();
                            None
                        }
                        Err(e) => {
                            assert!(e.is_temporary(), "{e}");
                            Some(e.code())
                        }
                    }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(
        started.elapsed() < timeout / 4,
        "waited {:?}",
        started.elapsed()
    );
    let failed: Vec<usize> = (0..3).filter(|i| outcomes[*i].is_some()).collect();
    assert_eq!(failed.len(), 1, "one transaction gives way: {outcomes:?}");
    assert_eq!(outcomes[failed[0]], Some(ErrorCode::Deadlock));
    // The victim's update never happened; the other two committed theirs.
    let mut txn = setup.transaction();
    let reads: Vec<_> = (1..=3).map(|id| txn.read(&t, vec![id.into()])).collect();
    txn.execute(ExecType::Commit).unwrap();
    for (i, r) in reads.into_iter().enumerate() {
        let age = match txn.result(r) {
            Some(OpResult::Row(row)) => row[3].clone(),
            other => panic!("row {}: {other:?}", i + 1),
        };
        let expected = if i == failed[0] {
            Value::Null
        } else {
            Value::from(i as i64 + 10)
        };
        assert_eq!(age, expected, "row {}", i + 1);
    }

    // Two holders of a shared lock that both ask to upgrade it: the second gives way.
    let (a, b) = (node.connect(), node.connect());
    let (ta, tb) = (a.table("people").unwrap(), b.table("people").unwrap());
    let (mut x, mut y) = (a.transaction(), b.transaction());
    lock_row(&mut x, &ta, 1, LockMode::Shared);
    x.execute(ExecType::NoCommit).unwrap();
    lock_row(&mut y, &tb, 1, LockMode::Shared);
    y.execute(ExecType::NoCommit).unwrap();
    let outcomes: Vec<Option<ErrorCode>> = std::thread::scope(|s| {
        [(x, ta), (y, tb)]
            .map(|(mut txn, t)| {
                s.spawn(move || {
                    lock_row(&mut txn, &t, 1, LockMode::Exclusive);
                    match txn.execute(ExecType::NoCommit) {
                        Ok(_) => {
                            txn.commit().unwrap();
                            None
                        }
                        Err(e) => Some(e.code()),
                    }
                })
            })
            .into_iter()
            .map(|h| h.join().unwrap())
            .collect()
    });
    let mut sorted = outcomes.clone();
    sorted.sort_by_key(|o| o.is_some());
    assert_eq!(
        sorted,
        vec![None, Some(ErrorCode::Deadlock)],
        "{outcomes:?}"
    );
    assert!(started.elapsed() < timeout / 4);
}

/// A transaction left idle holding a lock is rolled back after the inactive-transaction timeout
/// (NDB's TransactionInactiveTimeout): the writer waiting for the lock proceeds, and the idle
/// client hears of it, as a temporary error, at its next request.
#[test]
fn an_idle_transaction_holding_a_lock_is_rolled_back_and_the_waiter_proceeds() {
    let idle = Duration::from_millis(400);
    let node = TestNode::with(datanode::DataNodeConfig {
        workers: 2,
        lock_wait_timeout: Duration::from_secs(5),
        transaction_inactive_timeout: idle,
        ..datanode::DataNodeConfig::default()
    });
    let holder = node.connect();
    let waiter = node.connect();
    let t = one_person_aged_30(&holder);

    // A transaction that only reads without locks holds nothing and never times out.
    let mut reader = holder.transaction();
    reader.read(&t, vec![1.into()]);
    reader.execute(ExecType::NoCommit).unwrap();

    let mut a = holder.transaction();
    a.update(&t, vec![1.into()], t.values(&[("age", 40.into())]).unwrap());
    a.execute(ExecType::NoCommit).unwrap();
    let locked = Instant::now();

    let tw = waiter.table("people").unwrap();
    let mut b = waiter.transaction();
    b.update(
        &tw,
        vec![1.into()],
        tw.values(&[("age", 31.into())]).unwrap(),
    );
    b.execute(ExecType::Commit).unwrap();
    let waited = locked.elapsed();
    assert!(
        waited >= idle && waited < idle * 2 + Duration::from_millis(500),
        "the waiter got the lock after {waited:?} (timeout {idle:?})"
    );

    let err = a.execute(ExecType::Commit).unwrap_err();
    assert_eq!(err.code(), ErrorCode::TransactionTimedOut, "{err}");

    assert!(err.is_temporary());
    let mut c = waiter.transaction();
    let r = c.read(&tw, vec![1.into()]);
    c.execute(ExecType::Commit).unwrap();
    assert_eq!(
        c.row(r).unwrap()[3],
        Value::Int(31),
        "the idle writer's change is gone"
    );

    // Reading in the transaction (scans) is activity: it keeps it from timing out.
    let mut busy = holder.transaction();
    busy.update(&t, vec![1.into()], t.values(&[("age", 50.into())]).unwrap());
    busy.execute(ExecType::NoCommit).unwrap();
    let started = Instant::now();
    while started.elapsed() < idle * 3 {
        busy.scan(&t, &Scan::table()).unwrap();
        std::thread::sleep(idle / 8);
    }
    busy.commit().unwrap();
    reader.commit().unwrap();
}

/// A transaction past the operations limit is rolled back whole (its locks freed, nothing of it
/// kept), and one more transaction than the node's limit is refused with a temporary error
/// until another ends.
#[test]
fn oversized_and_surplus_transactions_are_refused_cleanly() {
    let node = TestNode::with(datanode::DataNodeConfig {
        workers: 2,
        transaction_operations_max: 100,
        transactions_max: 3,
        ..datanode::DataNodeConfig::default()
    });
    let cluster = node.connect();
    let t = cluster.create_table(people()).unwrap();
    let insert = |txn: &mut client::Transaction, ids: std::ops::Range<i32>| {
        for id in ids {
            txn.insert(&t, t.values(&[("id", id.into())]).unwrap());
        }
    };
    let mut big = cluster.transaction();
    insert(&mut big, 0..60);
    big.execute(ExecType::NoCommit).unwrap();
    insert(&mut big, 60..120);
    let err = big.execute(ExecType::NoCommit).unwrap_err();
    assert_eq!(err.code(), ErrorCode::LimitExceeded, "{err}");
    assert!(err.to_string().contains("100 operations"), "{err}");
    // Nothing of it stays, and its locks are free: the same rows go in at once.
    assert!(cluster.scan(&t, &Scan::table()).unwrap().is_empty());
    let mut again = cluster.transaction();
    insert(&mut again, 0..60);
    again.execute(ExecType::Commit).unwrap();

    // Three open at once; a fourth waits for one of them to end.
    let mut open: Vec<_> = (0..3)
        .map(|i| {
            let mut txn = cluster.transaction();
            insert(&mut txn, 1000 + i..1001 + i);
            txn.execute(ExecType::NoCommit).unwrap();
            txn
        })
        .collect();
    let mut surplus = cluster.transaction();
    insert(&mut surplus, 2000..2001);
    let err = surplus.execute(ExecType::Commit).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Overloaded, "{err}");
    assert!(err.is_temporary());
    open.pop().unwrap().commit().unwrap();
    let mut retry = cluster.transaction();
    insert(&mut retry, 2000..2001);
    retry.execute(ExecType::Commit).unwrap();
    for txn in open {
        txn.commit().unwrap();
    }
    assert_eq!(cluster.scan(&t, &Scan::table()).unwrap().len(), 64);
}

/// A worker whose queue holds its bound refuses new requests with a temporary error rather than
/// queueing without end: under load across two workers with a bound of one message, some
/// transactions are refused; every one that committed is there, none refused is, and the node
/// serves on.
#[test]
fn a_full_worker_queue_refuses_new_requests_with_a_temporary_error() {
    let node = TestNode::with(datanode::DataNodeConfig {
        workers: 2,
        worker_queue_max: 1,
        ..datanode::DataNodeConfig::default()
    });
    let t = node.connect().create_table(people()).unwrap();
    let committed = std::sync::Mutex::new(Vec::new());
    let refused = std::sync::atomic::AtomicUsize::new(0);
    let deadline = Instant::now() + Duration::from_secs(30);
    std::thread::scope(|s| {
        for thread in 0..8 {
            let (node, t, committed, refused) = (&node, &t, &committed, &refused);
            s.spawn(move || {
                let cluster = node.connect();
                let mut n = 0;
                // Until a refusal is seen (polled, with a deadline), and at least some work.
                while (refused.load(std::sync::atomic::Ordering::Relaxed) == 0 || n < 50)
                    && Instant::now() < deadline
                {
                    let ids: Vec<i32> = (0..4).map(|k| thread * 1_000_000 + n * 4 + k).collect();
                    n += 1;
                    let mut txn = cluster.transaction();
                    for id in &ids {
                        txn.insert(t, t.values(&[("id", (*id).into())]).unwrap());
                    }
                    match txn.execute(ExecType::Commit) {
                        Ok(_) => committed.lock().unwrap().extend(ids),
                        Err(e) => {
                            assert_eq!(e.code(), ErrorCode::Overloaded, "{e}");
                            assert!(e.is_temporary() && e.to_string().contains("queue"), "{e}");
                            refused.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                    }
                }
            });
        }
    });
    let refused = refused.into_inner();
    let mut committed = committed.into_inner().unwrap();
    println!(
        "{} rows committed, {refused} transactions refused",
        committed.len()
    );
    assert!(refused > 0, "no transaction was refused within 30 s");
    let cluster = node.connect();
    let mut stored: Vec<i32> = cluster
        .scan(&t, &Scan::table().columns(&["id"]))
        .unwrap()
        .into_iter()
        .map(|r| match r[0] {
            base::Value::Int(id) => id as i32,
            ref other => panic!("an id, not {other:?}"),
        })
        .collect();
    stored.sort_unstable();
    committed.sort_unstable();
    assert_eq!(stored, committed, "exactly the committed rows are stored");
    let mut after = cluster.transaction();
    after.insert(&t, t.values(&[("id", (-1).into())]).unwrap());
    after.execute(ExecType::Commit).unwrap();
}

/// The transaction runner tries a transaction again after a temporary error (here a lock wait
/// timeout behind a holder), returns a permanent error at once, and gives up with the last
/// temporary error once its patience is used up.
#[test]
fn the_runner_retries_what_may_be_retried_and_nothing_else() {
    let node = TestNode::start(2, Duration::from_millis(50));
    let holder = node.connect();
    let t = one_person_aged_30(&holder);
    let runner = client::Runner::new(&node.address, Duration::from_secs(20));
    let tries = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));

    // A holder keeps person 1 locked until the runner has failed twice on it.
    let mut hold = holder.transaction();
    hold.read_with(&t, vec![1.into()], LockMode::Exclusive, vec![]);
    hold.execute(ExecType::NoCommit).unwrap();
    let release = {
        let tries = tries.clone();
        std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(20);
            while tries.load(std::sync::atomic::Ordering::SeqCst) < 3 {
                assert!(Instant::now() < deadline, "the runner never tried again");
                std::thread::sleep(Duration::from_millis(5));
            }
            hold.commit().unwrap();
        })
    };
    let age = runner
        .run(|cluster, txn| {
            tries.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let people = cluster.table("people")?;
            let r = txn.read_with(&people, vec![1.into()], LockMode::Exclusive, vec![]);
            txn.execute(ExecType::NoCommit)?;
            let Some(Value::Int(age)) = txn.row(r).map(|row| row[3].clone()) else {
                panic!("no age");
            };
            txn.update(
                &people,
                vec![1.into()],
                people.values(&[("age", (age + 1).into())])?,
            );
            Ok(age + 1)
        })
        .expect("the runner gets through once the lock is free");
    release.join().unwrap();
    assert_eq!(age, 31);
    assert!(tries.load(std::sync::atomic::Ordering::SeqCst) >= 3);

    // A permanent error: one try, returned as it is.
    let tries = std::sync::atomic::AtomicUsize::new(0);
    let err = runner
        .run(|cluster, txn| {
            tries.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let people = cluster.table("people")?;
            txn.insert(&people, people.values(&[("id", 1.into())])?);
            txn.execute(ExecType::NoCommit)
        })
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::DuplicateKey, "{err}");
    assert_eq!(tries.load(std::sync::atomic::Ordering::SeqCst), 1);

    // A lock never freed: the runner gives up after its patience with the temporary error.
    let mut hold = holder.transaction();
    hold.read_with(&t, vec![1.into()], LockMode::Exclusive, vec![]);
    hold.execute(ExecType::NoCommit).unwrap();
    let impatient = client::Runner::new(&node.address, Duration::from_millis(400));
    let started = Instant::now();
    let err = impatient
        .run(|cluster, txn| {
            let people = cluster.table("people")?;
            txn.update(
                &people,
                vec![1.into()],
                people.values(&[("age", 99.into())])?,
            );
            txn.execute(ExecType::NoCommit)
        })
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::LockWaitTimeout, "{err}");
    assert!(started.elapsed() < Duration::from_secs(5));
    hold.rollback().unwrap();
}
