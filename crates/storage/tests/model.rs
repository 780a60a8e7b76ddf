//! Model-based property test: a partition and its ordered indexes against a BTreeMap model under
//! random insert/update/delete/lookup/scan sequences. Proptest prints the failing case and seed.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use base::collation;
use base::schema::{ColumnDef, IndexKind, TableDef};
use base::types::{Collation, ColumnType};
use base::Value;
use proptest::prelude::*;
use storage::partition::prefix_bounds;
use storage::Partition;

fn table() -> Arc<TableDef> {
    let mut t = TableDef::new(
        "t",
        vec![
            ColumnDef::new("id", ColumnType::Int { unsigned: false }),
            ColumnDef::new("k", ColumnType::Int { unsigned: false }).nullable(),
            ColumnDef::new("c", ColumnType::VarChar { length: 8 })
                .collation(Collation::Utf8mb4GeneralCi),
        ],
        &["id"],
    )
    .unwrap()
    .with_index("k", IndexKind::Ordered, &["k"])
    .unwrap()
    .with_index("c", IndexKind::Ordered, &["c"])
    .unwrap();
    t.validate().unwrap();
    Arc::new(t)
}

#[derive(Debug, Clone)]
enum Op {
    Insert(i32, Option<i32>, String),
    Update(i32, Option<i32>, String),
    Delete(i32),
    Get(i32),
    ScanK {
        low: Option<(i32, bool)>,
        high: Option<(i32, bool)>,
        descending: bool,
        /// The visitor stops after this many rows (scans visit rows in batches).
        stop: Option<usize>,
    },
    ScanC {
        descending: bool,
    },
}

fn op() -> impl Strategy<Value = Op> {
    let id = 0..60i32;
    let k = proptest::option::weighted(0.8, -5..5i32);
    let c = "[aAbB\u{e1}]{0,3}";
    let bound = proptest::option::of((-6..6i32, any::<bool>()));
    prop_oneof![
        (id.clone(), k.clone(), c).prop_map(|(i, k, c)| Op::Insert(i, k, c)),
        (id.clone(), k, "[ab]{0,2}").prop_map(|(i, k, c)| Op::Update(i, k, c)),
        id.clone().prop_map(Op::Delete),
        id.prop_map(Op::Get),
        (
            bound.clone(),
            bound,
            any::<bool>(),
            proptest::option::of(0..40usize)
        )
            .prop_map(|(low, high, descending, stop)| Op::ScanK {
                low,
                high,
                descending,
                stop
            }),
        any::<bool>().prop_map(|descending| Op::ScanC { descending }),
    ]
}

fn row(p: &Partition, id: i32, k: Option<i32>, c: &str) -> Box<[u8]> {
    let k = k.map_or(Value::Null, |k| Value::Int(k.into()));
    p.layout()
        .encode(&[Value::Int(id.into()), k, Value::from(c)])
        .unwrap()
}

fn pk(p: &Partition, id: i32) -> Vec<u8> {
    let mut out = Vec::new();
    p.encode_primary_key(&[Value::Int(id.into())], &mut out);
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    #[test]
    fn partition_matches_model(ops in proptest::collection::vec(op(), 1..120)) {
        let mut p = Partition::new(table());
        let mut model: BTreeMap<i32, (Option<i32>, String)> = BTreeMap::new();
        for op in ops {
            match op {
                Op::Insert(id, k, c) => {
                    let result = p.insert(row(&p, id, k, &c));
                    prop_assert_eq!(result.is_ok(), !model.contains_key(&id));
                    model.entry(id).or_insert((k, c));
                }
                Op::Update(id, k, c) => {
                    let result = p.replace(&pk(&p, id), row(&p, id, k, &c));
                    prop_assert_eq!(result.is_ok(), model.contains_key(&id));
                    if let Some(v) = model.get_mut(&id) { *v = (k, c); }
                }
                Op::Delete(id) => {
                    prop_assert_eq!(p.delete(&pk(&p, id)).is_some(), model.remove(&id).is_some());
                }
                Op::Get(id) => {
                    let got = p.get(&pk(&p, id)).map(|r| p.layout().values(r));
                    let want = model.get(&id).map(|(k, c)| vec![Value::Int(id.into()), k.map_or(Value::Null, |k| Value::Int(k.into())), Value::from(c.as_str())]);
                    prop_assert_eq!(got, want);
                }
                Op::ScanK { low, high, descending, stop } => {
                    let enc = |v: i32| { let mut o = Vec::new(); p.encode_index_prefix(0, &[Value::Int(v.into())], &mut o); o };
                    let (lo, hi) = prefix_bounds(low.map(|(v, inc)| (enc(v), inc)), high.map(|(v, inc)| (enc(v), inc)));
                    let mut got = Vec::new();
                    p.scan_index(0, as_ref(&lo), as_ref(&hi), descending, |_, r| {
                        got.push(p.layout().value(r, 0));
                        stop.is_none_or(|n| got.len() < n)
                    });
                    // The probe's scan reads the same rows.
                    let mut few = Vec::new();
                    p.scan_index_few(0, (as_ref(&lo), as_ref(&hi)), descending, |_, r| {
                        few.push(p.layout().value(r, 0));
                        stop.is_none_or(|n| few.len() < n)
                    });
                    prop_assert_eq!(&few, &got);
                    let mut want: Vec<(Option<i32>, i32)> = model.iter().filter(|(_, (k, _))| {
                        // NULL sorts first and is below every bound value.
                        let above = match low { None => true, Some((b, inc)) => k.is_some_and(|k| if inc { k >= b } else { k > b }) };
                        let below = match high { None => true, Some((b, inc)) => k.is_none() || k.is_some_and(|k| if inc { k <= b } else { k < b }) };
                        above && below
                    }).map(|(id, (k, _))| (*k, *id)).collect();
                    want.sort();
                    if descending { want.reverse(); }
                    let want: Vec<Value> = want.into_iter().map(|(_, id)| Value::Int(id.into())).take(stop.map_or(usize::MAX, |n| n.max(1))).collect();
                    prop_assert_eq!(got, want);
                }
                Op::ScanC { descending } => {
                    let mut got = Vec::new();
                    p.scan_index(1, Bound::Unbounded, Bound::Unbounded, descending, |_, r| {
                        got.push(p.layout().value(r, 0));
                        true
                    });
                    let mut want: Vec<(&String, i32)> = model.iter().map(|(id, (_, c))| (c, *id)).collect();
                    want.sort_by(|a, b| match collation::compare(a.0.as_bytes(), b.0.as_bytes(), Collation::Utf8mb4GeneralCi) {
                        Ordering::Equal => a.1.cmp(&b.1),
                        o => o,
                    });
                    if descending { want.reverse(); }
                    let want: Vec<Value> = want.into_iter().map(|(_, id)| Value::Int(id.into())).collect();
                    prop_assert_eq!(got, want);
                }
            }
            prop_assert_eq!(p.row_count(), model.len());
        }
    }
}

fn as_ref(b: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    match b {
        Bound::Included(v) => Bound::Included(v.as_slice()),
        Bound::Excluded(v) => Bound::Excluded(v.as_slice()),
        Bound::Unbounded => Bound::Unbounded,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    /// Bulk loading (as at restart) ends with the same indexes as row-by-row maintenance.
    #[test]
    fn bulk_loaded_indexes_match_maintained_ones(ops in proptest::collection::vec(op(), 1..150)) {
        let mut bulk = Partition::new(table());
        let mut plain = Partition::new(table());
        bulk.begin_bulk();
        for op in ops {
            for p in [&mut bulk, &mut plain] {
                match &op {
                    Op::Insert(id, k, c) => { let r = row(p, *id, *k, c); let _ = p.insert(r); }
                    Op::Update(id, k, c) => { let (r, key) = (row(p, *id, *k, c), pk(p, *id)); let _ = p.replace(&key, r); }
                    Op::Delete(id) => { let key = pk(p, *id); p.delete(&key); }
                    _ => {}
                }
            }
        }
        bulk.end_bulk();
        for index in 0..2 {
            for descending in [false, true] {
                let scan = |p: &Partition| {
                    let mut ids = Vec::new();
                    p.scan_index(index, Bound::Unbounded, Bound::Unbounded, descending, |_, r| { ids.push(p.layout().value(r, 0)); true });
                    ids
                };
                prop_assert_eq!(scan(&bulk), scan(&plain));
            }
        }
    }
}

/// A table whose index `p` holds the first `prefix` characters of `s`, in `collation`.
fn prefixed_table(collation: Collation, prefix: u32) -> Arc<TableDef> {
    let ty = if collation == Collation::Binary {
        ColumnType::VarBinary { length: 16 }
    } else {
        ColumnType::VarChar { length: 8 }
    };
    let mut t = TableDef::new(
        "t",
        vec![
            ColumnDef::new("id", ColumnType::Int { unsigned: false }),
            ColumnDef::new("s", ty).collation(collation).nullable(),
        ],
        &["id"],
    )
    .unwrap()
    .with_index("p", IndexKind::Ordered, &["s"])
    .unwrap()
    .with_prefixes(&[prefix]);
    t.validate().unwrap();
    Arc::new(t)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    /// An index holding prefixes finds, for inclusive bounds on whole values, every row whose
    /// whole value is within them under the collation (the reader then checks the values), and
    /// a bulk-built one holds the same keys as one kept row by row.
    #[test]
    fn prefix_index_ranges_hold_every_matching_row(
        collation in prop::sample::select(vec![
            Collation::Utf8mb4GeneralCi,
            Collation::Utf8mb4Bin,
            Collation::Utf8mb4Unicode520Ci,
            Collation::Utf8mb4UnicodeCi,
            Collation::Latin1TextSwedishCi,
            Collation::Binary,
        ]),
        prefix in 1..4u32,
        rows in proptest::collection::vec(proptest::option::weighted(0.9, "[asSß\u{e9}E \u{301}]{0,5}"), 0..40),
        bounds in proptest::collection::vec((proptest::option::of("[asSß\u{e9}E ]{0,5}"), proptest::option::of("[asSß\u{e9}E ]{0,5}")), 1..8),
    ) {
        let table = prefixed_table(collation, prefix);
        let mut p = Partition::new(table.clone());
        let mut bulk = Partition::new(table);
        bulk.begin_bulk();
        for (id, s) in rows.iter().enumerate() {
            let values = [Value::Int(id as i64), s.as_deref().map_or(Value::Null, Value::from)];
            p.insert(p.layout().encode(&values).unwrap()).unwrap();
            bulk.insert(bulk.layout().encode(&values).unwrap()).unwrap();
        }
        bulk.end_bulk();
        for (low, high) in bounds {
            let enc = |v: &str| { let mut o = Vec::new(); p.encode_index_prefix(0, &[Value::from(v)], &mut o); o };
            let (lo, hi) = prefix_bounds(low.as_deref().map(|v| (enc(v), true)), high.as_deref().map(|v| (enc(v), true)));
            let scan = |part: &Partition| {
                let mut got = Vec::new();
                part.scan_index(0, as_ref(&lo), as_ref(&hi), false, |_, r| {
                    got.push(part.layout().value(r, 0));
                    true
                });
                got
            };
            let got = scan(&p);
            prop_assert_eq!(&got, &scan(&bulk));
            let cmp = |a: &str, b: &str| collation::compare(a.as_bytes(), b.as_bytes(), collation);
            for (id, s) in rows.iter().enumerate() {
                let Some(s) = s else { continue };
                let above = low.as_deref().is_none_or(|l| cmp(s, l) != Ordering::Less);
                let below = high.as_deref().is_none_or(|h| cmp(s, h) != Ordering::Greater);
                if above && below {
                    prop_assert!(got.contains(&Value::Int(id as i64)), "row {} ({:?}) is within {:?}..{:?} but was not found", id, s, low, high);
                }
            }
        }
    }
}
