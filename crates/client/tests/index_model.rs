//! Unique and ordered indexes against a reference model (a BTreeMap) under random transactions of
//! inserts, updates, writes and deletes, checked by unique-key reads and ordered scans. The seed is
//! printed; rerun a failure with CAIRN_TEST_SEED.

mod common;

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::time::Duration;

use base::collation;
use base::schema::{ColumnDef, IndexKind};
use base::types::{Collation, ColumnType};
use client::{
    ClientError, CmpOp, ErrorCode, ExecType, Filter, LockMode, OpResult, Scan, ScanOrder, TableDef,
    Value,
};
use common::{Rng, TestNode};

type Row = (Option<String>, i64);

const UNIQUE: [&str; 7] = ["a", "A", "b", "B", "ab", "Ab", "x"];

#[derive(Debug, Clone)]
enum Op {
    Insert(i64, Option<String>, i64),
    Update(i64, Option<String>, i64),
    Write(i64, Option<String>, i64),
    Delete(i64),
}

fn same_key(a: &str, b: &str) -> bool {
    collation::compare(a.as_bytes(), b.as_bytes(), Collation::Utf8mb4GeneralCi) == Ordering::Equal
}

/// Applies an operation to the model; Err for a duplicate key.
fn apply(model: &mut BTreeMap<i64, Row>, op: &Op) -> Result<(), ()> {
    let collides = |model: &BTreeMap<i64, Row>, id: i64, u: &Option<String>| {
        u.as_ref().is_some_and(|u| {
            model.iter().any(|(other, (ou, _))| {
                *other != id && ou.as_ref().is_some_and(|ou| same_key(ou, u))
            })
        })
    };
    match op {
        Op::Insert(id, u, k) => {
            if model.contains_key(id) || collides(model, *id, u) {
                return Err(());
            }
            model.insert(*id, (u.clone(), *k));
        }
        Op::Update(id, u, k) | Op::Write(id, u, k) => {
            if !model.contains_key(id) && matches!(op, Op::Update(..)) {
                return Ok(());
            }
            if collides(model, *id, u) {
                return Err(());
            }
            model.insert(*id, (u.clone(), *k));
        }
        Op::Delete(id) => {
            model.remove(id);
        }
    }
    Ok(())
}

fn random_op(rng: &mut Rng) -> Op {
    let id = rng.below(24) as i64;
    let u = if rng.below(5) == 0 {
        None
    } else {
        Some(UNIQUE[rng.below(UNIQUE.len() as u64) as usize].to_string())
    };
    let k = rng.below(6) as i64;
    match rng.below(7) {
        0..=2 => Op::Insert(id, u, k),
        3 => Op::Update(id, u, k),
        4 => Op::Write(id, u, k),
        _ => Op::Delete(id),
    }
}

fn u_value(u: &Option<String>) -> Value {
    u.as_ref().map_or(Value::Null, |s| Value::from(s.as_str()))
}

#[test]
fn unique_and_ordered_indexes_match_a_model() {
    let mut rng = Rng::from_env_or_time("unique_and_ordered_indexes_match_a_model");
    let node = TestNode::start(3, Duration::from_millis(300));
    let cluster = node.connect();
    let def = TableDef::new(
        "m",
        vec![
            ColumnDef::new("id", ColumnType::BigInt { unsigned: false }),
            ColumnDef::new("u", ColumnType::VarChar { length: 4 }).nullable(),
            ColumnDef::new("k", ColumnType::Int { unsigned: false }),
        ],
        &["id"],
    )
    .unwrap()
    .with_index("u", IndexKind::Unique, &["u"])
    .unwrap()
    .with_index("k", IndexKind::Ordered, &["k"])
    .unwrap();
    let t = cluster.create_table(def).unwrap();
    let u_index = t.unique_index("u").unwrap();
    let mut model: BTreeMap<i64, Row> = BTreeMap::new();

    for round in 0..400 {
        let ops: Vec<Op> = (0..1 + rng.below(3)).map(|_| random_op(&mut rng)).collect();
        let mut next = model.clone();
        let expected_ok = ops.iter().all(|op| apply(&mut next, op).is_ok());
        let mut txn = cluster.transaction();
        for op in &ops {
            match op {
                Op::Insert(id, u, k) => txn.insert(
                    &t,
                    vec![(0, (*id).into()), (1, u_value(u)), (2, (*k).into())],
                ),
                Op::Update(id, u, k) => txn.update(
                    &t,
                    vec![(*id).into()],
                    vec![(1, u_value(u)), (2, (*k).into())],
                ),
                Op::Write(id, u, k) => txn.write(
                    &t,
                    vec![(*id).into()],
                    vec![(1, u_value(u)), (2, (*k).into())],
                ),
                Op::Delete(id) => txn.delete(&t, vec![(*id).into()]),
            };
        }
        match txn.execute(ExecType::Commit) {
            Ok(()) => assert!(
                expected_ok,
                "round {round}: {ops:?} succeeded, model expected a duplicate key"
            ),
            Err(ClientError::Aborted { error, .. }) => {
                assert!(
                    !expected_ok,
                    "round {round}: {ops:?} failed with {error}, model expected success"
                );
                assert_eq!(
                    error.code,
                    ErrorCode::DuplicateKey,
                    "round {round}: {error}"
                );
            }
            Err(e) => panic!("round {round}: {e}"),
        }
        if expected_ok {
            model = next;
        }

        // Unique-key reads for every value (each case variant finds the same row).
        let mut txn = cluster.transaction();
        let reads: Vec<_> = UNIQUE
            .iter()
            .map(|u| {
                txn.read_unique(
                    &t,
                    u_index,
                    vec![Value::from(*u)],
                    LockMode::CommittedRead,
                    vec![0],
                )
            })
            .collect();
        txn.execute(ExecType::Commit).unwrap();
        for (u, op) in UNIQUE.iter().zip(reads) {
            let want = model
                .iter()
                .find(|(_, (mu, _))| mu.as_ref().is_some_and(|mu| same_key(mu, u)))
                .map(|(id, _)| *id);
            let got = match txn.result(op) {
                Some(OpResult::Row(r)) => match r[0] {
                    Value::Int(id) => Some(id),
                    _ => panic!("bad id"),
                },
                Some(OpResult::NotFound) => None,
                other => panic!("unexpected {other:?}"),
            };
            assert_eq!(got, want, "round {round}: unique read of {u:?}");
        }

        // An ordered scan over a random k range, ascending or descending.
        let (lo, hi) = (rng.below(6) as i64, rng.below(6) as i64);
        let descending = rng.below(2) == 0;
        let scan = Scan::index("k")
            .from(vec![lo.into()], true)
            .to(vec![hi.into()], false)
            .columns(&["id"])
            .order(if descending {
                ScanOrder::Descending
            } else {
                ScanOrder::Ascending
            });
        let got: Vec<Value> = cluster
            .scan(&t, &scan)
            .unwrap()
            .into_iter()
            .map(|r| r[0].clone())
            .collect();
        let mut want: Vec<(i64, i64)> = model
            .iter()
            .filter(|(_, (_, k))| *k >= lo && *k < hi)
            .map(|(id, (_, k))| (*k, *id))
            .collect();
        want.sort();
        if descending {
            want.reverse();
        }
        let want: Vec<Value> = want.into_iter().map(|(_, id)| Value::Int(id)).collect();
        assert_eq!(
            got, want,
            "round {round}: k in [{lo}, {hi}) descending={descending}"
        );
    }

    // The unique index's own order: NULLs first, then case-insensitive, then by primary key.
    let got: Vec<Value> = cluster
        .scan(
            &t,
            &Scan::index("u")
                .columns(&["id"])
                .order(ScanOrder::Ascending),
        )
        .unwrap()
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    let mut want: Vec<(&Option<String>, i64)> = model.iter().map(|(id, (u, _))| (u, *id)).collect();
    want.sort_by(|a, b| match (a.0, b.0) {
        (None, None) => a.1.cmp(&b.1),
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(x), Some(y)) => {
            collation::compare(x.as_bytes(), y.as_bytes(), Collation::Utf8mb4GeneralCi)
                .then(a.1.cmp(&b.1))
        }
    });
    assert_eq!(
        got,
        want.into_iter()
            .map(|(_, id)| Value::Int(id))
            .collect::<Vec<_>>()
    );
}

/// What a scan of the model returns: ids of rows with `k` in [lo, hi) (and `v` = `odd` when
/// asked), in (k, id) order, reversed when descending, cut at `limit` (0: none).
fn model_scan(
    model: &BTreeMap<i64, (i64, i64)>,
    lo: i64,
    hi: i64,
    odd: Option<i64>,
    descending: bool,
    limit: usize,
) -> Vec<Value> {
    let mut want: Vec<(i64, i64)> = model
        .iter()
        .filter(|(_, (k, v))| *k >= lo && *k < hi && odd.is_none_or(|o| *v == o))
        .map(|(id, (k, _))| (*k, *id))
        .collect();
    want.sort();
    if descending {
        want.reverse();
    }
    if limit > 0 {
        want.truncate(limit);
    }
    want.into_iter().map(|(_, id)| Value::Int(id)).collect()
}

#[test]
fn scans_in_a_transaction_see_its_changes() {
    let mut rng = Rng::from_env_or_time("scans_in_a_transaction_see_its_changes");
    let node = TestNode::start(3, Duration::from_millis(300));
    let cluster = node.connect();
    let other = node.connect();
    let mut def = TableDef::new(
        "s",
        vec![
            ColumnDef::new("id", ColumnType::BigInt { unsigned: false }),
            ColumnDef::new("k", ColumnType::Int { unsigned: false }),
            ColumnDef::new("v", ColumnType::Int { unsigned: false }),
        ],
        &["id"],
    )
    .unwrap()
    .with_index("k", IndexKind::Ordered, &["k"])
    .unwrap();
    def.partition_count = 6;
    let t = cluster.create_table(def).unwrap();
    // id -> (k, v), committed.
    let mut committed: BTreeMap<i64, (i64, i64)> = BTreeMap::new();

    for round in 0..120 {
        let mut txn = cluster.transaction();
        let mut mine = committed.clone();
        for step in 0..1 + rng.below(6) {
            // A few changes, each sent on its own (NoCommit), then scans checked against `mine`.
            for _ in 0..1 + rng.below(4) {
                let id = rng.below(40) as i64;
                if rng.below(4) == 0 {
                    txn.delete(&t, vec![id.into()]);
                    mine.remove(&id);
                } else {
                    let (k, v) = (rng.below(8) as i64, rng.below(2) as i64);
                    txn.write(&t, vec![id.into()], vec![(1, k.into()), (2, v.into())]);
                    mine.insert(id, (k, v));
                }
            }
            txn.execute(ExecType::NoCommit).unwrap();

            let (lo, hi) = (rng.below(9) as i64, rng.below(9) as i64);
            let descending = rng.below(2) == 0;
            let limit = rng.below(4) as usize * 3;
            let odd = (rng.below(2) == 0).then(|| rng.below(2) as i64);
            let mut scan = Scan::index("k")
                .from(vec![lo.into()], true)
                .to(vec![hi.into()], false)
                .columns(&["id"])
                .limit(limit as u64)
                .order(if descending {
                    ScanOrder::Descending
                } else {
                    ScanOrder::Ascending
                });
            if let Some(o) = odd {
                scan = scan.filter(Filter::Cmp {
                    column: 2,
                    op: CmpOp::Eq,
                    value: o.into(),
                });
            }
            let ids = |rows: Vec<Vec<Value>>| -> Vec<Value> {
                rows.into_iter().map(|r| r[0].clone()).collect()
            };
            let context = format!(
                "round {round} step {step}: k in [{lo}, {hi}) v={odd:?} descending={descending} limit={limit}"
            );
            assert_eq!(
                ids(txn.scan(&t, &scan).unwrap()),
                model_scan(&mine, lo, hi, odd, descending, limit),
                "{context}, in the transaction"
            );
            assert_eq!(
                ids(other.scan(&t, &scan).unwrap()),
                model_scan(&committed, lo, hi, odd, descending, limit),
                "{context}, from another connection"
            );

            // A full table scan: every row the transaction sees, unordered.
            let mut all: Vec<(i64, i64, i64)> = txn
                .scan(&t, &Scan::table())
                .unwrap()
                .into_iter()
                .map(|r| match r[..] {
                    [Value::Int(id), Value::Int(k), Value::Int(v)] => (id, k, v),
                    _ => panic!("{context}: bad row {r:?}"),
                })
                .collect();
            all.sort();
            let want: Vec<(i64, i64, i64)> =
                mine.iter().map(|(id, (k, v))| (*id, *k, *v)).collect();
            assert_eq!(all, want, "{context}, full scan in the transaction");
            if limit > 0 {
                let cut = txn.scan(&t, &Scan::table().limit(limit as u64)).unwrap();
                assert_eq!(
                    cut.len(),
                    limit.min(mine.len()),
                    "{context}, full scan limit"
                );
            }
        }
        if rng.below(3) == 0 {
            txn.execute(ExecType::Rollback).unwrap();
        } else {
            txn.execute(ExecType::Commit).unwrap();
            committed = mine;
        }
    }
}

/// Range bounds with integers past their column's range (TINYINT, TINYINT UNSIGNED) read what
/// they mean: 300 is above every TINYINT, not the byte 44 its encoding would wrap to. Random
/// bounds of one or two values over KEY (a, b), against the rows filtered in the test.
#[test]
fn bounds_past_an_integer_columns_range_read_what_they_mean() {
    let mut rng = Rng::from_env_or_time("bounds_past_an_integer_columns_range_read_what_they_mean");
    let node = TestNode::start(2, Duration::from_millis(300));
    let cluster = node.connect();
    let def = TableDef::new(
        "r",
        vec![
            ColumnDef::new("id", ColumnType::BigInt { unsigned: false }),
            ColumnDef::new("a", ColumnType::TinyInt { unsigned: false }),
            ColumnDef::new("b", ColumnType::TinyInt { unsigned: true }),
        ],
        &["id"],
    )
    .unwrap()
    .with_index("ab", IndexKind::Ordered, &["a", "b"])
    .unwrap();
    let t = cluster.create_table(def).unwrap();
    let (a_values, b_values) = ([-128i64, -5, 0, 44, 127], [0i64, 1, 44, 254, 255]);
    let mut rows = Vec::new();
    let mut txn = cluster.transaction();
    for a in a_values {
        for b in b_values {
            let id = rows.len() as i64;
            txn.insert(&t, vec![(0, id.into()), (1, a.into()), (2, b.into())]);
            rows.push((id, a, b));
        }
    }
    txn.execute(ExecType::Commit).unwrap();
    // In range, at the edges, and past them (300 wraps to 44 in one byte, 256 to 0); each may
    // go as a DOUBLE too (1e30 was once encoded as 0).
    let edges = [
        -1000i64, -129, -128, -1, 0, 44, 127, 128, 255, 256, 300, 1000,
    ];
    let pick = |rng: &mut Rng| -> Option<(Vec<i64>, bool)> {
        let n = rng.below(3) as usize;
        (n > 0).then(|| {
            let values = (0..n).map(|_| edges[rng.below(edges.len() as u64) as usize]);
            (values.collect(), rng.below(2) == 0)
        })
    };
    let holds = |(a, b): (i64, i64), bound: &Option<(Vec<i64>, bool)>, upper: bool| {
        let Some((values, inclusive)) = bound else {
            return true;
        };
        let order = [a, b][..values.len()].cmp(&values[..]);
        match (order, upper) {
            (Ordering::Equal, _) => *inclusive,
            (Ordering::Less, upper) => upper,
            (Ordering::Greater, upper) => !upper,
        }
    };
    for round in 0..300 {
        let (lower, upper) = (pick(&mut rng), pick(&mut rng));
        let descending = rng.below(2) == 0;
        let mut scan = Scan::index("ab").columns(&["id"]).order(if descending {
            ScanOrder::Descending
        } else {
            ScanOrder::Ascending
        });
        let double = rng.below(3) == 0;
        let values = |v: &[i64]| {
            v.iter()
                .map(|x| match double {
                    true => Value::Double(*x as f64),
                    false => Value::from(*x),
                })
                .collect::<Vec<_>>()
        };
        if let Some((v, inclusive)) = &lower {
            scan = scan.from(values(v), *inclusive);
        }
        if let Some((v, inclusive)) = &upper {
            scan = scan.to(values(v), *inclusive);
        }
        let mut want: Vec<(i64, i64, i64)> = rows
            .iter()
            .filter(|(_, a, b)| holds((*a, *b), &lower, false) && holds((*a, *b), &upper, true))
            .map(|(id, a, b)| (*a, *b, *id))
            .collect();
        want.sort();
        if descending {
            want.reverse();
        }
        let want: Vec<Value> = want.into_iter().map(|(.., id)| Value::Int(id)).collect();
        let got: Vec<Value> = cluster
            .scan(&t, &scan)
            .unwrap()
            .into_iter()
            .map(|r| r[0].clone())
            .collect();
        assert_eq!(
            got, want,
            "round {round}: from {lower:?} to {upper:?}, descending {descending}, doubles {double}"
        );
    }
}
