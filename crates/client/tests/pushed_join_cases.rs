//! Pushed joins (NDB's SPJ, `Scan::join`), fixed cases: a round joining more keys than one scan
//! by keys takes (read in chunks, also through a transaction's changes); key values outside the
//! child column's range or not exactly of its type; string keys under the child column's
//! collation (every kind of child, read by keys and read once); cursors dropped mid-join;
//! semi and anti children of NULL keys and of keys no value of the column equals; keys after a
//! semi or anti child; a child read once through an empty range (and a transaction's rows put
//! in it), and one whose rows come in several batches; and requests the data node refuses.
//! The random model tests are in `pushed_joins.rs`.

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use base::schema::{ColumnDef, IndexKind};
use base::types::ColumnType;
use client::{
    AggregateFn, Aggregation, ClientError, CmpOp, ErrorCode, ExecType, Filter, JoinChild, Scan,
    TableDef, Value,
};
use common::joins::{as_int, defs, nothing, Kind, CHILD};
use common::TestNode;

/// A round of the scan's rows (1,024 at most) whose joined rows hold more distinct keys for a
/// child than one scan by keys takes (`SCAN_KEYS_MAX`): the child reads them in chunks, and
/// every joined row comes once.
#[test]
fn a_childs_keys_past_one_scan_by_keys_are_read_in_chunks() {
    const PARENTS: i64 = 1_100;
    const FAN_OUT: i64 = 17;
    assert!(1_024 * FAN_OUT as usize > base::limits::SCAN_KEYS_MAX);
    let node = TestNode::start(3, Duration::from_millis(300));
    let cluster = node.connect();
    let [parent, child, _] = defs().map(|def| cluster.create_table(def).unwrap());
    let mut txn = cluster.transaction();
    for id in 0..PARENTS {
        txn.insert(
            &parent,
            vec![(0, id.into()), (1, Value::Null), (2, "".into())],
        );
    }
    txn.execute(ExecType::Commit).unwrap();
    let ids: Vec<i64> = (0..PARENTS * FAN_OUT).collect();
    for chunk in ids.chunks(5_000) {
        let mut txn = cluster.transaction();
        for &id in chunk {
            let values = vec![(0, id.into()), (1, (id / FAN_OUT).into()), (2, 0.into())];
            txn.insert(&child, values);
        }
        txn.execute(ExecType::Commit).unwrap();
    }
    // parent.id, child.id, child.pid, then the child again by its primary key's index.
    let scan = Scan::table()
        .columns(&["id"])
        .join(JoinChild::new(&child, "by_pid", vec![0]).columns(&["id", "pid"]))
        .join(JoinChild::new(&child, "pk", vec![1]).columns(&["id", "pid"]));
    // (parent, child) pairs of the joined rows, each checked whole.
    let pairs = |rows: Vec<Vec<Value>>| {
        let mut got: Vec<(i64, i64)> = rows
            .iter()
            .map(|r| {
                let r: Vec<i64> = r.iter().map(|v| as_int(v).unwrap()).collect();
                assert_eq!((r[0], r[1]), (r[2], r[3]), "{r:?}");
                assert_eq!((r[1], r[2]), (r[3], r[4]), "{r:?}");
                (r[0], r[1])
            })
            .collect();
        got.sort_unstable();
        got
    };
    let got = pairs(cluster.scan(&parent, &scan).unwrap());
    let want: Vec<(i64, i64)> = ids.iter().map(|&id| (id / FAN_OUT, id)).collect();
    assert_eq!(got.len(), want.len());
    assert!(got == want, "joined rows differ from the model");

    // The same inside a transaction that deleted, moved and added children (uncommitted),
    // whose rows stand in for the committed ones in every chunk of keys, in small batches too.
    let mut children: BTreeMap<i64, i64> = ids.iter().map(|&id| (id, id / FAN_OUT)).collect();
    let mut txn = cluster.transaction();
    for id in (0..PARENTS * FAN_OUT).step_by(7) {
        txn.delete(&child, vec![id.into()]);
        children.remove(&id);
    }
    for id in (3..PARENTS * FAN_OUT).step_by(11) {
        if let Some(pid) = children.get_mut(&id) {
            *pid = (*pid + 1) % PARENTS;
            txn.update(&child, vec![id.into()], vec![(1, (*pid).into())]);
        }
    }
    for n in 0..700i64 {
        let (id, pid) = (1_000_000 + n, (n * 13) % PARENTS);
        txn.insert(&child, vec![(0, id.into()), (1, pid.into()), (2, 1.into())]);
        children.insert(id, pid);
    }
    txn.execute(ExecType::NoCommit).unwrap();
    let mut want: Vec<(i64, i64)> = children.iter().map(|(&id, &pid)| (pid, id)).collect();
    want.sort_unstable();
    for batch in [0, 500] {
        let got = pairs(txn.scan(&parent, &scan.clone().batch(batch, 0)).unwrap());
        assert_eq!(got.len(), want.len(), "in the transaction, batch {batch}");
        assert!(
            got == want,
            "in the transaction, batch {batch}: joined rows differ"
        );
    }
    txn.execute(ExecType::Rollback).unwrap();
}

fn refused(what: &str, result: Result<Vec<Vec<Value>>, ClientError>, code: Option<ErrorCode>) {
    match result {
        Err(ClientError::Failed(e)) => {
            if let Some(code) = code {
                assert_eq!(e.code, code, "{what}: {e}");
            }
        }
        other => panic!("{what}: {other:?}"),
    }
}

/// What the data node refuses of a pushed join, each through a connection that serves on.
#[test]
fn pushed_joins_the_data_node_refuses() {
    let node = TestNode::start(2, Duration::from_millis(300));
    let cluster = node.connect();
    let [parent, child, grand] = defs().map(|def| cluster.create_table(def).unwrap());
    let mut txn = cluster.transaction();
    for id in 0..10i64 {
        txn.insert(
            &parent,
            vec![(0, id.into()), (1, id.into()), (2, "p".into())],
        );
        txn.insert(&child, vec![(0, id.into()), (1, id.into()), (2, id.into())]);
        txn.insert(&grand, vec![(0, id.into()), (1, id.into()), (2, id.into())]);
    }
    txn.execute(ExecType::Commit).unwrap();
    let works = |what: &str| {
        let scan = Scan::table()
            .columns(&["id"])
            .join(JoinChild::new(&child, "by_pid", vec![0]));
        let rows = cluster
            .scan(&parent, &scan)
            .unwrap_or_else(|e| panic!("after {what}: {e}"));
        assert_eq!(rows.len(), 10, "after {what}");
    };
    works("nothing");

    // A key position past the joined row: the scan's two columns, then the child's.
    let past = Scan::table()
        .columns(&["id", "a"])
        .join(JoinChild::new(&child, "by_pid", vec![2]));
    refused(
        "a key past the scan's columns",
        cluster.scan(&parent, &past),
        Some(ErrorCode::BadRequest),
    );
    works("a key past the scan's columns");
    let second = |at: u16| {
        Scan::table()
            .columns(&["id"])
            .join(JoinChild::new(&child, "by_pid", vec![0]).columns(&["id", "b"]))
            .join(JoinChild::new(&grand, "by_cid", vec![at]))
    };
    assert_eq!(cluster.scan(&parent, &second(2)).unwrap().len(), 10);
    refused(
        "a second child's key past the joined row",
        cluster.scan(&parent, &second(3)),
        Some(ErrorCode::BadRequest),
    );
    works("a second child's key past the joined row");

    // Aggregates with a join.
    let folded = Scan::table()
        .columns(&["id"])
        .join(JoinChild::new(&child, "by_pid", vec![0]))
        .aggregate(Aggregation {
            group: vec![],
            functions: vec![AggregateFn::Count(None)],
        });
    refused(
        "an aggregate with a join",
        cluster.scan(&parent, &folded),
        Some(ErrorCode::BadRequest),
    );
    works("an aggregate with a join");

    // A key longer than the index, or empty.
    for key in [vec![0, 1], vec![]] {
        let scan =
            Scan::table()
                .columns(&["id", "a"])
                .join(JoinChild::new(&parent, "pk", key.clone()));
        refused(
            &format!("key {key:?} on a one-column index"),
            cluster.scan(&parent, &scan),
            Some(ErrorCode::BadRequest),
        );
        works(&format!("key {key:?} on a one-column index"));
    }
    let three = Scan::table()
        .columns(&["id", "cid", "w"])
        .join(JoinChild::new(&grand, "by_cid_w", vec![1, 2, 0]));
    refused(
        "three key columns on a two-column index",
        cluster.scan(&grand, &three),
        Some(ErrorCode::BadRequest),
    );
    works("three key columns on a two-column index");

    // A child read once through an index its table lacks (the client finds none), or between
    // bounds of more values than its index has columns (a lower one; an upper one of a semi
    // child, in batches of one row).
    let once = |read: Scan| {
        Scan::table()
            .columns(&["id"])
            .join(JoinChild::new(&child, "by_pid", vec![0]).read_once(&read))
    };
    refused(
        "a child read once through an index it lacks",
        cluster.scan(&parent, &once(Scan::index("by_cid"))),
        Some(ErrorCode::NoSuchIndex),
    );
    works("a child read once through an index it lacks");
    let three = vec![Value::Int(1), Value::Int(2), Value::Int(3)];
    for semi in [false, true] {
        let mut scan = once(Scan::index("by_pid").from(three.clone(), true));
        if semi {
            scan = Scan::table()
                .columns(&["id"])
                .join(
                    JoinChild::new(&child, "by_pid", vec![0])
                        .read_once(&Scan::index("by_pid").to(three.clone(), true))
                        .semi(),
                )
                .batch(1, 0);
        }
        refused(
            &format!("a child read once by a bound past its index, semi {semi}"),
            cluster.scan(&parent, &scan),
            Some(ErrorCode::BadRequest),
        );
        works(&format!(
            "a child read once by a bound past its index, semi {semi}"
        ));
    }
    // A semi child's key past the columns (it adds none of its own).
    let semi = Scan::table()
        .columns(&["id"])
        .join(JoinChild::new(&child, "by_pid", vec![0]).semi())
        .join(JoinChild::new(&grand, "by_cid", vec![1]));
    refused(
        "a key past a semi child",
        cluster.scan(&parent, &semi),
        Some(ErrorCode::BadRequest),
    );
    works("a key past a semi child");

    // More children than a join takes (`JOIN_CHILDREN_MAX`).
    let mut many = Scan::table().columns(&["id"]);
    for _ in 0..=base::limits::JOIN_CHILDREN_MAX {
        many = many.join(JoinChild::new(&parent, "pk", vec![0]).columns(&["id"]));
    }
    // The client sends them; the data node cannot read the request, and closes the connection
    // that sent it (as any malformed frame), or refuses it.
    let other = node.connect();
    match other.scan(&parent, &many) {
        Err(ClientError::Failed(_)) | Err(ClientError::ConnectionLost(_)) => {}
        other => panic!("too many children: {other:?}"),
    }
    works("too many children, asked on another connection");

    // A child table dropped since its handle was taken.
    let mut gone_def = defs()[CHILD].clone();
    gone_def.name = "gone".into();
    let gone = cluster.create_table(gone_def).unwrap();
    cluster.drop_table("gone").unwrap();
    let scan = Scan::table()
        .columns(&["id"])
        .join(JoinChild::new(&gone, "by_pid", vec![0]));
    refused("a dropped child table", cluster.scan(&parent, &scan), None);
    works("a dropped child table");
}

/// A key value that does not fit the child's index column (a BIGINT value past INT's range, a
/// negative value for an unsigned column) equals no value of the column: it joins no row, and
/// takes no match from a row whose key does fit.
/// narrow(id INT, w INT, u INT UNSIGNED) with ordered indexes on w, u and (w, u): keys of wider
/// values join it.
fn narrow() -> TableDef {
    TableDef::new(
        "narrow",
        vec![
            ColumnDef::new("id", ColumnType::Int { unsigned: false }),
            ColumnDef::new("w", ColumnType::Int { unsigned: false }),
            ColumnDef::new("u", ColumnType::Int { unsigned: true }),
        ],
        &["id"],
    )
    .unwrap()
    .with_index("by_w", IndexKind::Ordered, &["w"])
    .unwrap()
    .with_index("by_u", IndexKind::Ordered, &["u"])
    .unwrap()
    .with_index("by_w_u", IndexKind::Ordered, &["w", "u"])
    .unwrap()
}

#[test]
fn keys_out_of_the_child_columns_range_match_nothing() {
    let node = TestNode::start(2, Duration::from_millis(300));
    let cluster = node.connect();
    let wide = cluster
        .create_table(
            TableDef::new(
                "wide",
                vec![
                    ColumnDef::new("id", ColumnType::BigInt { unsigned: false }),
                    ColumnDef::new("n", ColumnType::BigInt { unsigned: false }),
                ],
                &["id"],
            )
            .unwrap(),
        )
        .unwrap();
    let narrow = cluster.create_table(narrow()).unwrap();
    // n: 5, 5 + 2^32 and 5 - 2^32 (the same low 32 bits), -1 (2^32 - 1 as an unsigned INT's
    // low bits).
    let ns = [5i64, 5 + (1 << 32), 5 - (1 << 32), -1];
    let mut txn = cluster.transaction();
    for (id, n) in ns.iter().enumerate() {
        txn.insert(&wide, vec![(0, (id as i64).into()), (1, (*n).into())]);
    }
    txn.insert(
        &narrow,
        vec![(0, 1.into()), (1, 5.into()), (2, Value::UInt(5))],
    );
    txn.insert(
        &narrow,
        vec![
            (0, 2.into()),
            (1, 6.into()),
            (2, Value::UInt(u32::MAX.into())),
        ],
    );
    txn.execute(ExecType::Commit).unwrap();
    let mut wrong = Vec::new();
    // One column, and two (w = n and u = n).
    for (index, outer) in [
        ("by_w", false),
        ("by_w", true),
        ("by_u", false),
        ("by_u", true),
        ("by_w_u", false),
        ("by_w_u", true),
    ] {
        let key = if index == "by_w_u" {
            vec![1, 1]
        } else {
            vec![1]
        };
        let mut child = JoinChild::new(&narrow, index, key).columns(&["id"]);
        if outer {
            child = child.outer();
        }
        // One row a batch of the scan (each key joined alone), and all at once.
        for batch in [1, 0] {
            let scan = Scan::table().join(child.clone()).batch(batch, 0);
            let rows = cluster.scan(&wide, &scan).unwrap();
            let mut got: Vec<(i64, Option<i64>)> = rows
                .iter()
                .map(|r| (as_int(&r[1]).unwrap(), as_int(&r[2])))
                .collect();
            got.sort_unstable();
            let mut want: Vec<(i64, Option<i64>)> = if outer {
                ns.iter().map(|&n| (n, (n == 5).then_some(1))).collect()
            } else {
                vec![(5, Some(1))]
            };
            want.sort_unstable();
            if got != want {
                wrong.push(format!(
                    "join on {index}, outer {outer}, batch {batch}: (n, narrow.id) {got:?}, want {want:?}"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A key value that converts to the child column's type only by rounding (5.5 for an INT)
/// matches no row, in a pushed join and in a scan by keys; 5.0 matches 5.
#[test]
fn inexact_numeric_keys_match_nothing() {
    let node = TestNode::start(2, Duration::from_millis(300));
    let cluster = node.connect();
    let prices = cluster
        .create_table(
            TableDef::new(
                "prices",
                vec![
                    ColumnDef::new("id", ColumnType::BigInt { unsigned: false }),
                    ColumnDef::new(
                        "p",
                        ColumnType::Decimal {
                            precision: 10,
                            scale: 1,
                        },
                    ),
                ],
                &["id"],
            )
            .unwrap(),
        )
        .unwrap();
    let ints = cluster
        .create_table(
            TableDef::new(
                "ints",
                vec![
                    ColumnDef::new("id", ColumnType::Int { unsigned: false }),
                    ColumnDef::new("w", ColumnType::Int { unsigned: false }),
                ],
                &["id"],
            )
            .unwrap()
            .with_index("by_w", IndexKind::Ordered, &["w"])
            .unwrap(),
        )
        .unwrap();
    let decimal = |s: &str| Value::Decimal(base::decimal::Decimal::parse(s).unwrap());
    let mut txn = cluster.transaction();
    for (id, p) in [(1i64, "5.5"), (2, "5.0"), (3, "6.0")] {
        txn.insert(&prices, vec![(0, id.into()), (1, decimal(p))]);
    }
    for (id, w) in [(1i64, 5i64), (2, 6)] {
        txn.insert(&ints, vec![(0, id.into()), (1, w.into())]);
    }
    txn.execute(ExecType::Commit).unwrap();
    let scan = Scan::table().join(JoinChild::new(&ints, "by_w", vec![1]).columns(&["id"]));
    let mut got: Vec<(i64, i64)> = cluster
        .scan(&prices, &scan)
        .unwrap()
        .iter()
        .map(|r| (as_int(&r[0]).unwrap(), as_int(&r[2]).unwrap()))
        .collect();
    got.sort_unstable();
    // 5.5 joins nothing (it would have been read as 6); 5.0 joins 5, 6.0 joins 6.
    assert_eq!(got, vec![(2, 1), (3, 2)]);
    let by_keys = Scan::index("by_w").keys(vec![vec![decimal("5.5")], vec![Value::Double(6.0)]]);
    let rows = cluster.scan(&ints, &by_keys).unwrap();
    let ids: Vec<i64> = rows.iter().map(|r| as_int(&r[0]).unwrap()).collect();
    assert_eq!(ids, vec![2]);
}

/// String keys compare under the child index column's collation (case and trailing spaces
/// ignored by utf8mb4_general_ci, not by a binary one), as the child's own scan by keys finds
/// them: for inner, outer, semi and anti children, read by keys and read once.
#[test]
fn string_keys_join_under_the_child_columns_collation() {
    let node = TestNode::start(2, Duration::from_millis(300));
    let cluster = node.connect();
    let strings = |name: &str, collation: base::types::Collation| {
        TableDef::new(
            name,
            vec![
                ColumnDef::new("id", ColumnType::BigInt { unsigned: false }),
                ColumnDef::new("s", ColumnType::VarChar { length: 20 }).collation(collation),
            ],
            &["id"],
        )
        .unwrap()
        .with_index("by_s", IndexKind::Ordered, &["s"])
        .unwrap()
    };
    use base::types::Collation::{Utf8mb4Bin, Utf8mb4GeneralCi};
    let ci = cluster
        .create_table(strings("ci", Utf8mb4GeneralCi))
        .unwrap();
    let bin = cluster.create_table(strings("bin", Utf8mb4Bin)).unwrap();
    let words = ["abc", "ABC", "abc ", "Abc  ", "abd", "", " ", "b", "B"];
    let mut txn = cluster.transaction();
    for (id, w) in words.iter().enumerate() {
        for t in [&ci, &bin] {
            txn.insert(t, vec![(0, (id as i64).into()), (1, (*w).into())]);
        }
    }
    txn.execute(ExecType::Commit).unwrap();
    for (root, child) in [(&ci, &bin), (&bin, &ci), (&ci, &ci), (&bin, &bin)] {
        // The child's own scan by each root row's value: (root id, the child ids found).
        let found: Vec<(i64, Vec<i64>)> = cluster
            .scan(root, &Scan::table())
            .unwrap()
            .iter()
            .map(|r| {
                let by_key = Scan::index("by_s").keys(vec![vec![r[1].clone()]]);
                let ids = cluster.scan(child, &by_key).unwrap();
                (
                    as_int(&r[0]).unwrap(),
                    ids.iter().map(|f| as_int(&f[0]).unwrap()).collect(),
                )
            })
            .collect();
        for kind in [Kind::Inner, Kind::Outer, Kind::Semi, Kind::Anti] {
            for once in [false, true] {
                let mut join = JoinChild::new(child, "by_s", vec![1]).columns(&["id"]);
                if once {
                    join = join.read_once(&Scan::table());
                }
                join = match kind {
                    Kind::Inner => join,
                    Kind::Outer => join.outer(),
                    Kind::Semi => join.semi(),
                    Kind::Anti => join.anti(),
                };
                let what = format!(
                    "{} joined to {}, {kind:?}, read once {once}",
                    root.name(),
                    child.name()
                );
                let got = cluster
                    .scan(root, &Scan::table().join(join).batch(2, 0))
                    .unwrap();
                let width = if kind.adds_columns() { 3 } else { 2 };
                let mut got: Vec<(i64, Option<i64>)> = got
                    .iter()
                    .map(|r| {
                        assert_eq!(r.len(), width, "{what}: {r:?}");
                        (as_int(&r[0]).unwrap(), r.get(2).and_then(as_int))
                    })
                    .collect();
                got.sort_unstable();
                let mut want = Vec::new();
                for (id, ids) in &found {
                    match kind {
                        Kind::Inner | Kind::Outer => {
                            if ids.is_empty() && kind == Kind::Outer {
                                want.push((*id, None));
                            }
                            want.extend(ids.iter().map(|&c| (*id, Some(c))));
                        }
                        Kind::Semi | Kind::Anti => {
                            if ids.is_empty() == (kind == Kind::Anti) {
                                want.push((*id, None));
                            }
                        }
                    }
                }
                want.sort_unstable();
                assert_eq!(got, want, "{what}");
            }
        }
    }
}

/// A pushed join's cursor dropped after its first batch (its child's reads still out) ends the
/// scan in the data node: many more than a connection may hold open, one after another, are
/// never refused, and the connection serves on.
#[test]
fn a_dropped_join_cursor_ends_its_scan() {
    let node = TestNode::start(3, Duration::from_millis(300));
    let cluster = node.connect();
    let [parent, child, _] = defs().map(|def| cluster.create_table(def).unwrap());
    let mut txn = cluster.transaction();
    for id in 0..200i64 {
        txn.insert(
            &parent,
            vec![(0, id.into()), (1, Value::Null), (2, "p".into())],
        );
        for k in 0..3 {
            let values = vec![(0, (id * 3 + k).into()), (1, id.into()), (2, 0.into())];
            txn.insert(&child, values);
        }
    }
    txn.execute(ExecType::Commit).unwrap();
    let scan = Scan::table()
        .columns(&["id"])
        .join(JoinChild::new(&child, "by_pid", vec![0]).columns(&["id"]))
        .join(JoinChild::new(&child, "pk", vec![1]).columns(&["pid"]))
        .batch(2, 0);
    for i in 0..base::limits::SCANS_OPEN_PER_CONNECTION_MAX * 3 {
        let mut cursor = cluster.scan_cursor(&parent, &scan).unwrap();
        let rows = cursor
            .next_batch()
            .unwrap_or_else(|e| panic!("scan {i}: {e}"))
            .unwrap();
        assert_eq!(rows.len(), 2, "scan {i}");
    }
    let rows = cluster.scan(&parent, &scan).unwrap();
    assert_eq!(rows.len(), 600);
    assert!(
        rows.iter().all(|r| r[0] == r[2]),
        "child's pid is its parent"
    );
}

/// Sorted ids (the first column) of joined rows.
fn ids(rows: &[Vec<Value>]) -> Vec<i64> {
    let mut ids: Vec<i64> = rows.iter().map(|r| as_int(&r[0]).unwrap()).collect();
    ids.sort_unstable();
    ids
}

/// A key holding NULL, or a value the child's column cannot equal (past INT's range, negative
/// for an unsigned column), has no match: an anti child keeps its row, a semi child drops it;
/// a key with several matches keeps its row once. By keys and read once, in batches of one
/// row and whole.
#[test]
fn semi_and_anti_children_of_null_and_unequal_keys() {
    let node = TestNode::start(2, Duration::from_millis(300));
    let cluster = node.connect();
    let wide = cluster
        .create_table(
            TableDef::new(
                "wide",
                vec![
                    ColumnDef::new("id", ColumnType::BigInt { unsigned: false }),
                    ColumnDef::new("n", ColumnType::BigInt { unsigned: false }).nullable(),
                ],
                &["id"],
            )
            .unwrap(),
        )
        .unwrap();
    let narrow = cluster.create_table(narrow()).unwrap();
    // wide.id: n.
    let ns: [(i64, Option<i64>); 6] = [
        (0, Some(5)),
        (1, Some(5 + (1 << 32))),
        (2, None),
        (3, Some(7)),
        (4, Some(-1)),
        (5, None),
    ];
    let mut txn = cluster.transaction();
    for (id, n) in ns {
        let n = n.map_or(Value::Null, Value::Int);
        txn.insert(&wide, vec![(0, id.into()), (1, n)]);
    }
    // w = 5 twice (u 5), w = -1 (u u32::MAX: -1's low bits).
    for (id, w, u) in [(1i64, 5i64, 5u64), (2, 5, 5), (3, -1, u32::MAX.into())] {
        txn.insert(
            &narrow,
            vec![(0, id.into()), (1, w.into()), (2, Value::UInt(u))],
        );
    }
    txn.execute(ExecType::Commit).unwrap();
    // (index, key, the wide rows with a match).
    let cases: [(&str, Vec<u16>, Vec<i64>); 3] = [
        ("by_w", vec![1], vec![0, 4]),
        ("by_u", vec![1], vec![0]),
        ("by_w_u", vec![1, 1], vec![0]),
    ];
    let mut wrong = Vec::new();
    for (index, key, matched) in cases {
        for once in [None, Some(Scan::table()), Some(Scan::index(index))] {
            for semi in [true, false] {
                let mut child = JoinChild::new(&narrow, index, key.clone()).columns(&["id"]);
                if let Some(scan) = &once {
                    child = child.read_once(scan);
                }
                child = if semi { child.semi() } else { child.anti() };
                let want: Vec<i64> = (0..6).filter(|id| matched.contains(id) == semi).collect();
                for batch in [1, 0] {
                    let scan = Scan::table().join(child.clone()).batch(batch, 0);
                    let rows = cluster.scan(&wide, &scan).unwrap();
                    let what = format!(
                        "{} on {index}, read once {}, batch {batch}",
                        if semi { "semi" } else { "anti" },
                        once.is_some()
                    );
                    if rows.iter().any(|r| r.len() != 2) {
                        wrong.push(format!(
                            "{what}: rows of other than wide's 2 columns {rows:?}"
                        ));
                    } else if ids(&rows) != want {
                        wrong.push(format!("{what}: wide ids {:?}, want {want:?}", ids(&rows)));
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A semi or anti child adds no columns, whatever its projection: the key of a child after it
/// counts only the columns before it and those of the inner children, and a key position past
/// those is refused.
#[test]
fn keys_after_a_semi_or_anti_child_skip_it() {
    let node = TestNode::start(2, Duration::from_millis(300));
    let cluster = node.connect();
    let [parent, child, grand] = defs().map(|def| cluster.create_table(def).unwrap());
    let mut txn = cluster.transaction();
    for id in 0..6i64 {
        txn.insert(
            &parent,
            vec![(0, id.into()), (1, Value::Null), (2, "p".into())],
        );
    }
    // Children 10 and 11 of parent 0, 12 of 1, 13 of 3, 14 of 4; grandchildren of 10 (two),
    // 12 and 14.
    for (id, pid) in [(10i64, 0i64), (11, 0), (12, 1), (13, 3), (14, 4)] {
        txn.insert(&child, vec![(0, id.into()), (1, pid.into()), (2, 0.into())]);
    }
    for (id, cid) in [(100i64, 10i64), (101, 10), (102, 12), (103, 14)] {
        txn.insert(&grand, vec![(0, id.into()), (1, cid.into()), (2, 1.into())]);
    }
    txn.execute(ExecType::Commit).unwrap();
    let all = |rows: Vec<Vec<Value>>| -> Vec<Vec<i64>> {
        let mut rows: Vec<Vec<i64>> = rows
            .iter()
            .map(|r| r.iter().map(|v| as_int(v).unwrap()).collect())
            .collect();
        rows.sort_unstable();
        rows
    };
    for once in [false, true] {
        let read = |c: JoinChild| {
            if once {
                c.read_once(&Scan::table())
            } else {
                c
            }
        };
        for batch in [1, 0] {
            let what = format!("read once {once}, batch {batch}");
            // parent.id; parents with a child (semi, adding none of its three columns); their
            // children's ids (at 1); those children's grandchildren by the id at 1.
            let semi = |at: u16| {
                Scan::table()
                    .columns(&["id"])
                    .join(read(
                        JoinChild::new(&child, "by_pid", vec![0])
                            .columns(&["id", "pid", "b"])
                            .semi(),
                    ))
                    .join(JoinChild::new(&child, "by_pid", vec![0]).columns(&["id"]))
                    .join(JoinChild::new(&grand, "by_cid", vec![at]).columns(&["id"]))
                    .batch(batch, 0)
            };
            let got = all(cluster.scan(&parent, &semi(1)).unwrap());
            let want = vec![
                vec![0, 10, 100],
                vec![0, 10, 101],
                vec![1, 12, 102],
                vec![4, 14, 103],
            ];
            assert_eq!(got, want, "semi, {what}");
            refused(
                &format!("a key past the columns after a semi child, {what}"),
                cluster.scan(&parent, &semi(2)),
                Some(ErrorCode::BadRequest),
            );

            // parent.id; its children's ids (at 1); those without a grandchild (anti, adding
            // none of its columns); the child again by its id at 1, its pid (at 2).
            let anti = |at: u16| {
                Scan::table()
                    .columns(&["id"])
                    .join(JoinChild::new(&child, "by_pid", vec![0]).columns(&["id"]))
                    .join(read(
                        JoinChild::new(&grand, "by_cid", vec![1])
                            .columns(&["id", "w"])
                            .anti(),
                    ))
                    .join(JoinChild::new(&child, "pk", vec![at]).columns(&["pid"]))
                    .batch(batch, 0)
            };
            let got = all(cluster.scan(&parent, &anti(1)).unwrap());
            assert_eq!(got, vec![vec![0, 11, 0], vec![3, 13, 3]], "anti, {what}");
            refused(
                &format!("a key past the columns after an anti child, {what}"),
                cluster.scan(&parent, &anti(2)),
                Some(ErrorCode::BadRequest),
            );
        }
    }
}

/// A child read once through an empty range (bounds crossed, a value no row holds, rows none
/// of which passes the filter) has no rows: a semi child drops every joined row, an anti child
/// keeps every one, an inner one drops them, an outer one keeps them with NULLs; in one-row
/// batches (a round each) too. In a transaction, the rows it inserted and updated into two of
/// the ranges are the matches there, in every round.
#[test]
fn a_child_read_once_through_an_empty_range() {
    let node = TestNode::start(2, Duration::from_millis(300));
    let cluster = node.connect();
    let [parent, child, _] = defs().map(|def| cluster.create_table(def).unwrap());
    let mut txn = cluster.transaction();
    for id in 0..40i64 {
        txn.insert(
            &parent,
            vec![(0, id.into()), (1, Value::Null), (2, "p".into())],
        );
        for k in 0..2 {
            let values = vec![(0, (id * 2 + k).into()), (1, id.into()), (2, k.into())];
            txn.insert(&child, values);
        }
    }
    txn.execute(ExecType::Commit).unwrap();
    let ranges = [
        Scan::index("by_pid")
            .from(vec![Value::Int(5)], true)
            .to(vec![Value::Int(4)], true),
        Scan::index("by_pid")
            .from(vec![Value::Int(5)], false)
            .to(vec![Value::Int(5)], true),
        Scan::index("pk").equal(vec![Value::Int(1_000)]),
        // Rows in range, none through the filter (set on the scan, replacing the child's).
        Scan::index("by_pid")
            .from(vec![Value::Int(0)], true)
            .filter(Filter::Cmp {
                column: 2,
                op: CmpOp::Gt,
                value: Value::Int(5),
            }),
    ];
    // `matched[i]`: (parent, child) of range i's rows.
    let check =
        |read: &dyn Fn(&Scan) -> Vec<Vec<Value>>, matched: [&[(i64, i64)]; 4], what: &str| {
            for (i, range) in ranges.iter().enumerate() {
                for kind in ["semi", "anti", "inner", "outer"] {
                    let mut c = JoinChild::new(&child, "by_pid", vec![0])
                        .columns(&["id"])
                        .filter(nothing())
                        .read_once(range);
                    c = match kind {
                        "semi" => c.semi(),
                        "anti" => c.anti(),
                        "outer" => c.outer(),
                        _ => c,
                    };
                    let found = |p: i64| matched[i].iter().find(|m| m.0 == p).map(|m| m.1);
                    let want: Vec<(i64, Option<i64>)> = (0..40)
                        .filter_map(|p| match (kind, found(p)) {
                            ("semi", Some(_)) | ("anti", None) => Some((p, None)),
                            ("inner", Some(c)) | ("outer", Some(c)) => Some((p, Some(c))),
                            ("outer", None) => Some((p, None)),
                            _ => None,
                        })
                        .collect();
                    for batch in [1, 3, 0] {
                        let scan = Scan::table()
                            .columns(&["id"])
                            .join(c.clone())
                            .batch(batch, 0);
                        let rows = read(&scan);
                        let width = if kind == "semi" || kind == "anti" {
                            1
                        } else {
                            2
                        };
                        let mut got: Vec<(i64, Option<i64>)> = rows
                            .iter()
                            .map(|r| {
                                assert_eq!(r.len(), width, "{kind}, range {i}{what}: {r:?}");
                                (as_int(&r[0]).unwrap(), r.get(1).and_then(as_int))
                            })
                            .collect();
                        got.sort_unstable();
                        assert_eq!(got, want, "{kind} through range {i}, batch {batch}{what}");
                    }
                }
            }
        };
    check(
        &|scan| cluster.scan(&parent, scan).unwrap(),
        [&[], &[], &[], &[]],
        "",
    );

    // Children moved to a parent that is not there (pid 2,000), and into the ranges: 1,000
    // inserted under parent 7 with b 9 (ranges 2 and 3), child 11 of parent 5 given b 6
    // (range 3).
    let mut txn = cluster.transaction();
    for id in (1..80i64).step_by(3) {
        txn.update(&child, vec![id.into()], vec![(1, 2_000.into())]);
    }
    txn.insert(
        &child,
        vec![(0, 1_000.into()), (1, 7.into()), (2, 9.into())],
    );
    txn.update(&child, vec![11.into()], vec![(2, 6.into())]);
    txn.execute(ExecType::NoCommit).unwrap();
    check(
        &|scan| txn.scan(&parent, scan).unwrap(),
        [&[], &[], &[(7, 1_000)], &[(5, 11), (7, 1_000)]],
        ", in a transaction",
    );
    txn.execute(ExecType::Rollback).unwrap();
}

/// A child read once whose rows come in several batches (more than `SCAN_BATCH_ROWS_MAX`),
/// kept for every round of the scan's tiny batches: inner through the whole table, semi and
/// anti through a range of its index, inner through a filter; committed and inside a
/// transaction that deleted, moved and inserted children.
#[test]
fn a_child_read_once_in_several_batches() {
    const PARENTS: i64 = 200;
    const CHILDREN: i64 = 5_000;
    assert!(CHILDREN as usize > base::limits::SCAN_BATCH_ROWS_MAX);
    let node = TestNode::start(3, Duration::from_millis(300));
    let cluster = node.connect();
    let [parent, child, _] = defs().map(|def| cluster.create_table(def).unwrap());
    let mut txn = cluster.transaction();
    for id in 0..PARENTS {
        txn.insert(
            &parent,
            vec![(0, id.into()), (1, Value::Null), (2, "".into())],
        );
    }
    // child id: (pid, b); pids 200..250 have no parent.
    let mut children: BTreeMap<i64, (i64, i64)> = BTreeMap::new();
    for id in 0..CHILDREN {
        let (pid, b) = (id % 250, id % 7);
        txn.insert(&child, vec![(0, id.into()), (1, pid.into()), (2, b.into())]);
        children.insert(id, (pid, b));
    }
    txn.execute(ExecType::Commit).unwrap();
    let b_is_3 = Filter::Cmp {
        column: 2,
        op: CmpOp::Eq,
        value: Value::Int(3),
    };
    let joins = [
        (
            "inner, the whole table",
            JoinChild::new(&child, "by_pid", vec![0])
                .columns(&["id"])
                .read_once(&Scan::table()),
        ),
        (
            "semi, pid in [50, 150)",
            JoinChild::new(&child, "by_pid", vec![0])
                .read_once(
                    &Scan::index("by_pid")
                        .from(vec![Value::Int(50)], true)
                        .to(vec![Value::Int(150)], false),
                )
                .semi(),
        ),
        (
            "anti, pid in [50, 150)",
            JoinChild::new(&child, "by_pid", vec![0])
                .read_once(
                    &Scan::index("by_pid")
                        .from(vec![Value::Int(50)], true)
                        .to(vec![Value::Int(150)], false),
                )
                .anti(),
        ),
        (
            "inner, b = 3",
            JoinChild::new(&child, "by_pid", vec![0])
                .columns(&["id"])
                .read_once(&Scan::table().filter(b_is_3)),
        ),
    ];
    // The joined rows (parent id, child id) of each join over `children`.
    let model = |children: &BTreeMap<i64, (i64, i64)>| -> [Vec<(i64, Option<i64>)>; 4] {
        let mut want: [Vec<(i64, Option<i64>)>; 4] = Default::default();
        let in_range = |pid: i64| (50..150).contains(&pid);
        for p in 0..PARENTS {
            let mine = || children.iter().filter(move |(_, (pid, _))| *pid == p);
            want[0].extend(mine().map(|(&id, _)| (p, Some(id))));
            let matched = in_range(p) && mine().next().is_some();
            want[if matched { 1 } else { 2 }].push((p, None));
            want[3].extend(
                mine()
                    .filter(|(_, (_, b))| *b == 3)
                    .map(|(&id, _)| (p, Some(id))),
            );
        }
        want
    };
    let check = |read: &dyn Fn(&Scan) -> Vec<Vec<Value>>,
                 want: [Vec<(i64, Option<i64>)>; 4],
                 what: &str| {
        for ((name, join), want) in joins.iter().zip(want) {
            for batch in [3, 0] {
                let scan = Scan::table()
                    .columns(&["id"])
                    .join(join.clone())
                    .batch(batch, 0);
                let mut got: Vec<(i64, Option<i64>)> = read(&scan)
                    .iter()
                    .map(|r| (as_int(&r[0]).unwrap(), r.get(1).and_then(as_int)))
                    .collect();
                got.sort_unstable();
                assert_eq!(got.len(), want.len(), "{name}, batch {batch}{what}");
                assert!(got == want, "{name}, batch {batch}{what}: rows differ");
            }
        }
    };
    check(
        &|scan| cluster.scan(&parent, scan).unwrap(),
        model(&children),
        "",
    );

    let mut txn = cluster.transaction();
    for id in (0..CHILDREN).step_by(5) {
        txn.delete(&child, vec![id.into()]);
        children.remove(&id);
    }
    // Every child of parents 60 and 199 gone (the rest of theirs moved to 7).
    for id in (3..CHILDREN).step_by(250) {
        for pid in [60, 199] {
            let id = id - 3 + pid;
            if children.contains_key(&id) {
                txn.update(&child, vec![id.into()], vec![(1, 7.into())]);
                children.insert(id, (7, id % 7));
            }
        }
    }
    for n in 0..300i64 {
        let (id, pid, b) = (10_000 + n, n % 40, 3);
        txn.insert(&child, vec![(0, id.into()), (1, pid.into()), (2, b.into())]);
        children.insert(id, (pid, b));
    }
    txn.execute(ExecType::NoCommit).unwrap();
    let want = model(&children);
    assert!(
        want[2].iter().any(|&(p, _)| p == 60),
        "60 lost its children"
    );
    check(
        &|scan| txn.scan(&parent, scan).unwrap(),
        want,
        ", in a transaction",
    );
    txn.execute(ExecType::Rollback).unwrap();
}
