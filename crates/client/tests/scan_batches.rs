//! Scans read a batch at a time: random full and index scans with small batches (bounds,
//! filters, limits, every order, over more partitions than workers, and through a transaction's
//! own uncommitted changes) against a model; a cursor dropped mid-scan ends the scan in the data
//! node; a connection's open scans are bounded; rows changed between batches; scans whose rows
//! the data node folds into groups (pushed aggregation) answer what the rows add up to. The
//! seed is printed; rerun a failure with CAIRN_TEST_SEED.

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use base::schema::{ColumnDef, IndexKind};
use base::types::ColumnType;
use client::{
    AggregateFn, Aggregation, ClientError, CmpOp, ErrorCode, ExecType, Filter, Scan, ScanOrder,
    TableDef, Value,
};
use common::{Rng, TestNode};

fn table(partitions: u32) -> TableDef {
    let mut def = TableDef::new(
        "s",
        vec![
            ColumnDef::new("id", ColumnType::BigInt { unsigned: false }),
            ColumnDef::new("k", ColumnType::Int { unsigned: false }),
            ColumnDef::new("v", ColumnType::VarChar { length: 40 }),
        ],
        &["id"],
    )
    .unwrap()
    .with_index("k", IndexKind::Ordered, &["k"])
    .unwrap();
    def.partition_count = partitions;
    def
}

fn int(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        other => panic!("not an integer: {other:?}"),
    }
}

#[test]
fn batched_scans_match_a_model() {
    let mut rng = Rng::from_env_or_time("batched_scans_match_a_model");
    let node = TestNode::start(3, Duration::from_millis(300));
    let cluster = node.connect();
    let t = cluster.create_table(table(7)).unwrap();
    // id -> (k, v)
    let mut model: BTreeMap<i64, (i64, String)> = BTreeMap::new();
    let mut txn = cluster.transaction();
    for id in 0..400i64 {
        let k = rng.below(50) as i64;
        let v = "x".repeat(rng.below(40) as usize);
        txn.insert(
            &t,
            vec![(0, id.into()), (1, k.into()), (2, Value::from(v.as_str()))],
        );
        model.insert(id, (k, v));
    }
    txn.execute(ExecType::Commit).unwrap();

    for round in 0..120 {
        // Half the rounds scan inside a transaction holding its own changes.
        let mut seen = model.clone();
        let mut open = cluster.transaction();
        let in_txn = rng.below(2) == 0;
        if in_txn {
            for _ in 0..rng.below(30) {
                let id = rng.below(440) as i64;
                let k = rng.below(50) as i64;
                match rng.below(3) {
                    0 => {
                        open.delete(&t, vec![id.into()]);
                        seen.remove(&id);
                    }
                    _ => {
                        open.write(&t, vec![id.into()], vec![(1, k.into()), (2, "t".into())]);
                        seen.insert(id, (k, "t".into()));
                    }
                }
            }
            open.execute(ExecType::NoCommit).unwrap();
        }
        let batch = 1 + rng.below(12) as u32;
        let bytes = if rng.below(3) == 0 { 64 } else { 0 };
        let limit = if rng.below(4) == 0 { rng.below(60) } else { 0 };
        let (lo, hi) = (rng.below(50) as i64, rng.below(50) as i64);
        let with_filter = rng.below(3) == 0;
        // Kind 4 reads by keys (batched key access): a few values of k, some twice, some absent,
        // sometimes a NULL (which matches nothing); kind 5 the same asking for each key's first
        // row only (a semi-join's probe).
        let kind = rng.below(6);
        let order = match kind {
            0 => ScanOrder::Any,
            1 => ScanOrder::Ascending,
            2 => ScanOrder::Descending,
            4 | 5 if rng.below(2) == 0 => ScanOrder::Ascending,
            _ => ScanOrder::Any,
        };
        let keys: Vec<i64> = (0..rng.below(12)).map(|_| rng.below(60) as i64).collect();
        let mut key_values: Vec<Vec<Value>> = keys.iter().map(|k| vec![Value::Int(*k)]).collect();
        if keys.is_empty() || rng.below(4) == 0 {
            key_values.push(vec![Value::Null]);
        }
        let mut scan = if kind == 3 {
            Scan::table()
        } else if kind == 4 {
            Scan::index("k").keys(key_values).order(order)
        } else if kind == 5 {
            Scan::index("k")
                .keys(key_values)
                .first_per_key()
                .order(order)
        } else {
            Scan::index("k")
                .from(vec![lo.into()], true)
                .to(vec![hi.into()], true)
                .order(order)
        };
        scan = scan.columns(&["id", "k"]).batch(batch, bytes).limit(limit);
        if with_filter {
            scan = scan.filter(Filter::Cmp {
                column: 0,
                op: CmpOp::Gt,
                value: Value::Int(100),
            });
        }
        let mut cursor = if in_txn {
            open.scan_cursor(&t, &scan).unwrap()
        } else {
            cluster.scan_cursor(&t, &scan).unwrap()
        };
        let mut got: Vec<(i64, i64)> = Vec::new();
        let mut batches = 0;
        while let Some(rows) = cursor.next_batch().unwrap() {
            assert!(
                rows.len() <= batch as usize,
                "round {round}: a batch of {} rows, asked for {batch}",
                rows.len()
            );
            batches += 1;
            got.extend(rows.iter().map(|r| (int(&r[0]), int(&r[1]))));
        }
        let want: Vec<(i64, i64)> = seen
            .iter()
            .filter(|(id, (k, _))| {
                let taken = match kind {
                    3 => true,
                    4 | 5 => keys.contains(k),
                    _ => *k >= lo && *k <= hi,
                };
                taken && (!with_filter || **id > 100)
            })
            .map(|(id, (k, _))| (*id, *k))
            .collect();
        let what = format!(
            "round {round}: kind {kind} {order:?} k in [{lo}, {hi}] keys {keys:?} batch {batch}/{bytes} limit {limit} filter {with_filter} txn {in_txn}"
        );
        if kind == 5 {
            // At most one row per key from each of the 7 partitions, each one the model's; every
            // key with a row answers one (unless the limit stopped the scan).
            let mut sorted = got.clone();
            sorted.sort_unstable_by_key(|(id, k)| (*k, *id));
            if order == ScanOrder::Ascending {
                assert_eq!(got, sorted, "{what}: not in index order");
            }
            sorted.dedup();
            assert_eq!(sorted.len(), got.len(), "{what}: a row twice");
            for row in &got {
                assert!(want.contains(row), "{what}: {row:?} not in the model");
            }
            for k in &keys {
                let answered = got.iter().filter(|(_, g)| g == k).count();
                assert!(answered <= 7, "{what}: {answered} rows of key {k}");
                let has = want.iter().any(|(_, w)| w == k);
                if limit == 0 {
                    assert_eq!(answered > 0, has, "{what}: key {k}");
                }
            }
            if limit > 0 {
                assert!(got.len() <= limit as usize, "{what}");
            }
        } else {
            // A full scan of a table this small (at most `SORTED_SCAN_ROWS_MAX` rows on each
            // worker) answers in primary-key order.
            let by_key = kind == 3;
            check_rows(&what, (order, by_key), kind, limit, got.clone(), want);
        }
        if got.len() > batch as usize {
            assert!(batches > 1, "{what}: {} rows in one batch", got.len());
        }
        drop(cursor);
        if in_txn {
            open.execute(ExecType::Rollback).unwrap();
        }
    }
}

/// A scan's rows `got` against the model's `want`: in index order when the scan is ordered, in
/// primary-key order when `by_key`, cut to the limit.
fn check_rows(
    what: &str,
    (order, by_key): (ScanOrder, bool),
    kind: u64,
    limit: u64,
    mut got: Vec<(i64, i64)>,
    mut want: Vec<(i64, i64)>,
) {
    match order {
        ScanOrder::Ascending | ScanOrder::Descending if kind != 3 => {
            // Index order: k, then the primary key.
            want.sort_by_key(|(id, k)| (*k, *id));
            if order == ScanOrder::Descending {
                want.reverse();
            }
            if limit > 0 {
                want.truncate(limit as usize);
            }
            assert_eq!(got, want, "{what}");
        }
        _ if by_key => {
            want.sort_unstable();
            if limit > 0 {
                want.truncate(limit as usize);
            }
            assert_eq!(got, want, "{what}: not in primary-key order");
        }
        _ => {
            if limit > 0 {
                assert_eq!(got.len(), want.len().min(limit as usize), "{what}");
                let mut sorted = got.clone();
                sorted.sort_unstable();
                sorted.dedup();
                assert_eq!(sorted.len(), got.len(), "{what}: a row twice");
                for row in &got {
                    assert!(want.contains(row), "{what}: {row:?} not in the model");
                }
            } else {
                got.sort_unstable();
                want.sort_unstable();
                assert_eq!(got, want, "{what}");
            }
        }
    }
}

#[test]
fn a_dropped_cursor_ends_its_scan_and_open_scans_are_bounded() {
    let node = TestNode::start(2, Duration::from_millis(300));
    let cluster = node.connect();
    let t = cluster.create_table(table(4)).unwrap();
    let mut txn = cluster.transaction();
    for id in 0..100i64 {
        txn.insert(
            &t,
            vec![(0, id.into()), (1, (id % 10).into()), (2, "v".into())],
        );
    }
    txn.execute(ExecType::Commit).unwrap();
    let scan = Scan::table().batch(5, 0);
    let limit = base::limits::SCANS_OPEN_PER_CONNECTION_MAX;
    // Many more scans than a connection may hold open, each left after its first batch: the
    // drop ends each in the data node, so none is refused.
    for i in 0..limit * 3 {
        let mut cursor = cluster.scan_cursor(&t, &scan).unwrap();
        let rows = cursor.next_batch().unwrap().unwrap();
        assert_eq!(rows.len(), 5, "scan {i}");
    }
    // Held open at once: the one past the limit is refused with a temporary error, the others
    // go on to their end.
    let mut open = Vec::new();
    for _ in 0..limit {
        let mut cursor = cluster.scan_cursor(&t, &scan).unwrap();
        assert!(cursor.next_batch().unwrap().is_some());
        open.push(cursor);
    }
    let mut refused = cluster.scan_cursor(&t, &scan).unwrap();
    match refused.next_batch() {
        Err(ClientError::Failed(e)) => assert_eq!(e.code, ErrorCode::Overloaded, "{e}"),
        other => panic!("the scan past the limit: {other:?}"),
    }
    for (i, mut cursor) in open.into_iter().enumerate().take(3) {
        let mut rows = 5;
        while let Some(batch) = cursor.next_batch().unwrap() {
            rows += batch.len();
        }
        assert_eq!(rows, 100, "open scan {i}");
    }
    // The connection still serves, and a whole scan reads every row.
    assert_eq!(cluster.scan(&t, &Scan::table()).unwrap().len(), 100);
}

/// Full scans of a small table answer in primary-key order (at most 1,024 rows on a worker,
/// `SORTED_SCAN_ROWS_MAX`), read whole and sorted, or through an ordered index on the primary
/// key when the table has one (as SQL's tables do); past that size, in no set order, every row
/// once; and small again once rows are deleted.
#[test]
fn small_tables_read_back_in_key_order() {
    let node = TestNode::start(2, Duration::from_millis(300));
    let cluster = node.connect();
    let plain = table(5);
    let mut with_index = table(5)
        .with_index("pk", IndexKind::Ordered, &["id"])
        .unwrap();
    with_index.name = "s_pk".into();
    for def in [plain, with_index] {
        let t = cluster.create_table(def).unwrap();
        small_table_in_key_order(&cluster, &t);
    }
}

fn small_table_in_key_order(cluster: &client::Cluster, t: &client::Table) {
    let ids = |rows: Vec<Vec<Value>>| rows.iter().map(|r| int(&r[0])).collect::<Vec<i64>>();
    let insert = |range: std::ops::Range<i64>| {
        let mut txn = cluster.transaction();
        for id in range {
            // Long enough that a part is cut by bytes before rows (4 KiB a stream at least).
            let v = "v".repeat(40);
            txn.insert(
                t,
                vec![(0, id.into()), (1, 0.into()), (2, v.as_str().into())],
            );
        }
        txn.execute(ExecType::Commit).unwrap();
    };
    let delete = |ids: &mut dyn Iterator<Item = i64>| {
        let mut txn = cluster.transaction();
        for id in ids {
            txn.delete(t, vec![id.into()]);
        }
        txn.execute(ExecType::Commit).unwrap();
    };
    // Inserted out of order, over two workers' partitions.
    insert(500..1000);
    insert(0..500);
    let scan = Scan::table().columns(&["id"]);
    assert_eq!(
        ids(cluster.scan(t, &scan).unwrap()),
        (0..1000).collect::<Vec<_>>()
    );
    let first = cluster.scan(t, &scan.clone().limit(3)).unwrap();
    assert_eq!(ids(first), vec![0, 1, 2]);
    // In batches cut by rows and by bytes, the order holds; between batches, rows inserted past
    // the last key returned are seen, rows deleted ahead are not, and the table may grow past
    // the size a worker sorts.
    let mut cursor = cluster
        .scan_cursor(t, &scan.clone().columns(&["id", "v"]).batch(300, 64))
        .unwrap();
    let mut got = ids(cursor.next_batch().unwrap().unwrap());
    insert(-10..-5);
    insert(5000..7003);
    delete(&mut (900..1000));
    while let Some(rows) = cursor.next_batch().unwrap() {
        got.extend(ids(rows));
    }
    let want: Vec<i64> = (0..900).chain(5000..7003).collect();
    assert_eq!(got, want);
    // A transaction's own rows take their places.
    let mut txn = cluster.transaction();
    txn.insert(t, vec![(0, 950.into()), (1, 0.into()), (2, "t".into())]);
    txn.delete(t, vec![3.into()]);
    txn.execute(ExecType::NoCommit).unwrap();
    delete(&mut (5000..7003));
    delete(&mut (-10..-5));
    let mut cursor = txn.scan_cursor(t, &scan.clone().batch(5, 0)).unwrap();
    let mut got = Vec::new();
    while let Some(rows) = cursor.next_batch().unwrap() {
        got.extend(ids(rows));
    }
    drop(cursor);
    txn.execute(ExecType::Rollback).unwrap();
    let want: Vec<i64> = (0..900).filter(|i| *i != 3).chain([950]).collect();
    assert_eq!(got, want);
    // Past the size a worker sorts: every row once.
    insert(1000..3000);
    let mut all = ids(cluster.scan(t, &scan).unwrap());
    all.sort_unstable();
    let want: Vec<i64> = (0..900).chain(1000..3000).collect();
    assert_eq!(all, want);
    // Small again.
    delete(&mut (200..3000).filter(|i| !(900..1000).contains(i)));
    assert_eq!(
        ids(cluster.scan(t, &scan).unwrap()),
        (0..200).collect::<Vec<_>>()
    );
}

#[test]
fn rows_changed_between_batches() {
    let node = TestNode::start(2, Duration::from_millis(300));
    let cluster = node.connect();
    let t = cluster.create_table(table(1)).unwrap();
    let mut txn = cluster.transaction();
    for id in 0..20i64 {
        txn.insert(&t, vec![(0, id.into()), (1, id.into()), (2, "old".into())]);
    }
    txn.execute(ExecType::Commit).unwrap();
    // An index scan's place is a key: rows whose indexed columns stay put, updated, deleted
    // or inserted behind it or ahead of it between batches, are seen once at most, ahead of it
    // as they are when read. Read by
    // then are at most three batches (the one taken, the one on its way, the data node's read
    // ahead): rows 0 to 5.
    let scan = Scan::index("k")
        .order(ScanOrder::Ascending)
        .columns(&["id", "v"])
        .batch(2, 0);
    let mut cursor = cluster.scan_cursor(&t, &scan).unwrap();
    let first = cursor.next_batch().unwrap().unwrap();
    assert_eq!(first.len(), 2);
    let mut txn = cluster.transaction();
    txn.update(&t, vec![Value::Int(1)], vec![(2, "new".into())]);
    txn.update(&t, vec![Value::Int(12)], vec![(2, "new".into())]);
    txn.delete(&t, vec![Value::Int(15)]);
    txn.insert(&t, vec![(0, 30.into()), (1, 30.into()), (2, "new".into())]);
    txn.execute(ExecType::Commit).unwrap();
    let mut rows = first;
    while let Some(batch) = cursor.next_batch().unwrap() {
        rows.extend(batch);
    }
    let ids: Vec<i64> = rows.iter().map(|r| int(&r[0])).collect();
    let mut want: Vec<i64> = (0..20).filter(|i| *i != 15).collect();
    want.push(30);
    assert_eq!(ids, want);
    let v = |id: i64| rows.iter().find(|r| int(&r[0]) == id).map(|r| r[1].clone());
    assert_eq!(v(1), Some(Value::from("old")), "read before its update");
    assert_eq!(v(12), Some(Value::from("new")), "read after its update");
}

/// A scan inside a transaction that is rolled back for inactivity while the scan is open fails
/// at its next batch, instead of reading on without the transaction's changes.
#[test]
fn a_transactions_scan_fails_once_the_transaction_timed_out() {
    let idle = Duration::from_millis(300);
    let node = TestNode::with(datanode::DataNodeConfig {
        workers: 2,
        transaction_inactive_timeout: idle,
        ..datanode::DataNodeConfig::default()
    });
    let cluster = node.connect();
    let t = cluster.create_table(table(2)).unwrap();
    let mut txn = cluster.transaction();
    for id in 0..40i64 {
        txn.insert(&t, vec![(0, id.into()), (1, id.into()), (2, "v".into())]);
    }
    txn.execute(ExecType::Commit).unwrap();
    let mut open = cluster.transaction();
    open.delete(&t, vec![Value::Int(0)]);
    open.execute(ExecType::NoCommit).unwrap();
    let mut cursor = open.scan_cursor(&t, &Scan::table().batch(2, 0)).unwrap();
    assert!(cursor.next_batch().unwrap().is_some());
    // Idle past the timeout: the transaction is rolled back (the batch already on its way
    // still arrives); the next one asked for fails.
    std::thread::sleep(idle * 4);
    let mut failed = None;
    for _ in 0..3 {
        match cursor.next_batch() {
            Ok(Some(_)) => continue,
            Ok(None) => break,
            Err(e) => {
                failed = Some(e);
                break;
            }
        }
    }
    match failed {
        Some(ClientError::Failed(e)) => assert_eq!(e.code, ErrorCode::TransactionTimedOut, "{e}"),
        other => panic!("the scan went on after its transaction timed out: {other:?}"),
    }
}

fn decimal(v: &Value) -> i128 {
    match v {
        Value::Decimal(d) if d.scale == 0 => i128::try_from(d.mantissa()).expect("an i128 sum"),
        other => panic!("not a whole DECIMAL: {other:?}"),
    }
}

fn count(v: &Value) -> u64 {
    match v {
        Value::UInt(n) => *n,
        other => panic!("not a count: {other:?}"),
    }
}

/// Pushed aggregation: more groups than a data node folds at once (answered in parts), groups
/// of strings under their collation, an index range with a filter, a transaction's own
/// changes, and a request the node refuses.
#[test]
fn aggregated_scans_answer_what_the_rows_add_up_to() {
    let node = TestNode::start(3, Duration::from_millis(300));
    let cluster = node.connect();
    let t = cluster.create_table(table(7)).unwrap();
    let rows = base::limits::AGGREGATE_GROUPS_MAX as i64 + 4_000;
    let names = ["a", "A", "b"];
    for chunk in (0..rows).collect::<Vec<_>>().chunks(10_000) {
        let mut txn = cluster.transaction();
        for &id in chunk {
            let v = Value::from(names[(id % 3) as usize]);
            txn.insert(&t, vec![(0, id.into()), (1, (id % 100).into()), (2, v)]);
        }
        txn.execute(ExecType::Commit).unwrap();
    }
    // One group per row: more than the node holds at once, so groups come in parts, in
    // batches cut by rows (three values a row) or by bytes (five), neither dividing the groups.
    for functions in [
        vec![AggregateFn::Count(None), AggregateFn::Sum(1)],
        vec![
            AggregateFn::Count(None),
            AggregateFn::Sum(1),
            AggregateFn::Min(1),
            AggregateFn::Max(1),
        ],
    ] {
        let by_id = Scan::table().columns(&["id", "k"]).aggregate(Aggregation {
            group: vec![0],
            functions,
        });
        let answered = cluster.scan(&t, &by_id).unwrap();
        assert_eq!(answered.len() as i64, rows);
        let mut seen = std::collections::HashSet::new();
        for r in &answered {
            let id = int(&r[0]);
            assert!(seen.insert(id), "group {id} answered twice");
            assert_eq!((count(&r[1]), decimal(&r[2])), (1, i128::from(id % 100)));
        }
    }
    // Strings group under their collation: 'a' and 'A' are one group.
    let by_name = Scan::table().columns(&["v", "k"]).aggregate(Aggregation {
        group: vec![0],
        functions: vec![
            AggregateFn::Count(None),
            AggregateFn::Sum(1),
            AggregateFn::Min(1),
            AggregateFn::Max(1),
        ],
    });
    let mut groups = cluster.scan(&t, &by_name).unwrap();
    groups.sort_by_key(|r| matches!(&r[0], Value::Bytes(b) if b == b"b"));
    assert_eq!(groups.len(), 2, "{groups:?}");
    let model = |keep: &dyn Fn(i64) -> bool| {
        let ids: Vec<i64> = (0..rows).filter(|id| keep(*id)).collect();
        let sum: i128 = ids.iter().map(|id| i128::from(id % 100)).sum();
        (ids.len() as u64, sum)
    };
    assert_eq!(
        (count(&groups[0][1]), decimal(&groups[0][2])),
        model(&|id| id % 3 != 2)
    );
    assert_eq!(
        (count(&groups[1][1]), decimal(&groups[1][2])),
        model(&|id| id % 3 == 2)
    );
    assert_eq!((int(&groups[0][3]), int(&groups[0][4])), (0, 99));
    // An index range with a filter, no group: one row, or none when nothing matches.
    let range = |lo: i64, hi: i64| {
        Scan::index("k")
            .from(vec![lo.into()], true)
            .to(vec![hi.into()], true)
            .filter(Filter::Cmp {
                column: 0,
                op: CmpOp::Lt,
                value: 1_000i64.into(),
            })
            .columns(&["k"])
            .aggregate(Aggregation {
                group: vec![],
                functions: vec![AggregateFn::Count(None), AggregateFn::Sum(0)],
            })
    };
    let one = cluster.scan(&t, &range(10, 19)).unwrap();
    assert_eq!(one.len(), 1, "{one:?}");
    assert_eq!(
        (count(&one[0][0]), decimal(&one[0][1])),
        model(&|id| id < 1_000 && (10..=19).contains(&(id % 100)))
    );
    assert!(cluster.scan(&t, &range(200, 300)).unwrap().is_empty());
    // A transaction's own deletes are not counted by its scan.
    let mut txn = cluster.transaction();
    for id in 0..10i64 {
        txn.delete(&t, vec![id.into()]);
    }
    txn.execute(ExecType::NoCommit).unwrap();
    let all = Scan::table().columns(&["id"]).aggregate(Aggregation {
        group: vec![],
        functions: vec![AggregateFn::Count(None)],
    });
    let mine = txn.scan(&t, &all).unwrap();
    assert_eq!(count(&mine[0][0]) as i64, rows - 10);
    txn.execute(ExecType::Rollback).unwrap();
    // What the node cannot fold is refused, not answered wrong.
    let refused = Scan::table().columns(&["v"]).aggregate(Aggregation {
        group: vec![],
        functions: vec![AggregateFn::Sum(0)],
    });
    match cluster.scan(&t, &refused) {
        Err(e) => assert!(e.to_string().contains("pushed aggregation"), "{e}"),
        Ok(r) => panic!("a SUM of strings answered {r:?}"),
    }
}

/// A scan by keys inside a transaction that added a row to every key, in batches cut by bytes:
/// every committed row and every added row comes once, whichever key a batch ends at.
#[test]
fn a_scan_by_keys_sees_every_row_through_a_transaction_in_byte_cut_batches() {
    let node = TestNode::start(2, Duration::from_millis(300));
    let cluster = node.connect();
    let t = cluster.create_table(table(3)).unwrap();
    let pad = "p".repeat(40);
    let mut txn = cluster.transaction();
    for id in 0..6000i64 {
        txn.insert(
            &t,
            vec![
                (0, id.into()),
                (1, (id % 50).into()),
                (2, pad.as_str().into()),
            ],
        );
    }
    txn.execute(ExecType::Commit).unwrap();
    let mut open = cluster.transaction();
    for k in 0..50i64 {
        open.insert(
            &t,
            vec![(0, (100_000 + k).into()), (1, k.into()), (2, "n".into())],
        );
    }
    open.execute(ExecType::NoCommit).unwrap();
    for bytes in [300u32, 700, 1500, 4096] {
        let scan = Scan::index("k")
            .keys((0..50i64).map(|k| vec![Value::Int(k)]).collect())
            .columns(&["id", "k", "v"])
            .batch(0, bytes);
        let mut got: Vec<i64> = open
            .scan(&t, &scan)
            .unwrap()
            .iter()
            .map(|r| int(&r[0]))
            .collect();
        got.sort_unstable();
        let mut want: Vec<i64> = (0..6000).chain(100_000..100_050).collect();
        want.sort_unstable();
        assert_eq!(got.len(), want.len(), "batch bytes {bytes}");
        assert_eq!(got, want, "batch bytes {bytes}");
    }
    open.execute(ExecType::Rollback).unwrap();
}

#[test]
fn a_scan_by_keys_can_ask_for_each_keys_first_row_only() {
    let node = TestNode::start(2, Duration::from_millis(300));
    let cluster = node.connect();
    let t = cluster.create_table(table(1)).unwrap();
    let mut txn = cluster.transaction();
    for id in 0..300i64 {
        txn.insert(
            &t,
            vec![(0, id.into()), (1, (id % 3).into()), (2, "x".into())],
        );
    }
    txn.execute(ExecType::Commit).unwrap();
    let keys: Vec<Vec<Value>> = [0, 1, 2, 7]
        .map(|k| vec![Value::Int(k)])
        .into_iter()
        .chain([vec![Value::Null]])
        .collect();
    let probe = |filter: Option<Filter>| {
        let scan = Scan::index("k")
            .keys(keys.clone())
            .first_per_key()
            .columns(&["id", "k"])
            .order(ScanOrder::Ascending)
            .batch(1, 0);
        match filter {
            Some(f) => scan.filter(f),
            None => scan,
        }
    };
    let rows = |got: Vec<Vec<Value>>| -> Vec<(i64, i64)> {
        got.iter().map(|r| (int(&r[0]), int(&r[1]))).collect()
    };
    // One partition: each key answers its first row in index order (k, then id).
    let got = rows(cluster.scan(&t, &probe(None)).unwrap());
    assert_eq!(got, vec![(0, 0), (1, 1), (2, 2)]);
    let over_100 = Filter::Cmp {
        column: 0,
        op: CmpOp::Gt,
        value: Value::Int(100),
    };
    let got = rows(cluster.scan(&t, &probe(Some(over_100))).unwrap());
    assert_eq!(got, vec![(102, 0), (103, 1), (101, 2)]);
    // Inside a transaction its own changes stand in for the committed rows.
    let mut open = cluster.transaction();
    open.delete(&t, vec![0i64.into()]);
    open.update(&t, vec![1i64.into()], vec![(1, 7i64.into())]);
    open.execute(ExecType::NoCommit).unwrap();
    let got = rows(open.scan(&t, &probe(None)).unwrap());
    assert_eq!(got, vec![(3, 0), (4, 1), (2, 2), (1, 7)]);
    open.execute(ExecType::Rollback).unwrap();
    // Only NULL keys: nothing matches, nothing is read.
    let nulls = Scan::index("k")
        .keys(vec![vec![Value::Null]])
        .first_per_key();
    assert!(cluster.scan(&t, &nulls).unwrap().is_empty());
    let nulls = Scan::index("k").keys(vec![vec![Value::Null]; 3]);
    assert!(cluster.scan(&t, &nulls).unwrap().is_empty());
    // First per key without keys is refused.
    match cluster.scan(&t, &Scan::index("k").first_per_key()) {
        Err(ClientError::Failed(e)) => assert_eq!(e.code, ErrorCode::BadRequest, "{e}"),
        other => panic!("first per key without keys: {other:?}"),
    }
}
