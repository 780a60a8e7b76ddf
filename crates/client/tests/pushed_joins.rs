//! Pushed joins (NDB's SPJ, `Scan::join`) against a nested-loop model: random scans (whole
//! table, index range, by keys) of three tables spread over more partitions than workers, each
//! with a random chain of children (parent to child by an ordered index on the foreign key,
//! child to grandchild, back to the parent through its primary key's ordered index, a key of
//! two columns or of a prefix; inner or outer; with filters and projections of their own), read
//! in tiny batches, sometimes with a limit, sometimes inside a transaction holding uncommitted
//! inserts, updates and deletes; the same with semi and anti children (`JoinChild::semi`,
//! `anti`: the joined row once with / without a match, adding no columns, so later children's
//! keys skip them) and children read once (`JoinChild::read_once`) through a random range of
//! one of their indexes or the whole table, with the filter of that scan replacing the
//! child's, their rows kept for every round of the scan's tiny batches and seeing a
//! transaction's changes. The seeds are printed; rerun a failure with CAIRN_TEST_SEED. Fixed
//! cases and refusals: `pushed_join_cases.rs`.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use client::{Cluster, CmpOp, ExecType, Filter, JoinChild, Scan, Table, Transaction, Value};
use common::joins::{as_int, defs, nothing, Kind, CHILD, GRAND, PARENT};
use common::{Rng, TestNode};

const COLUMNS: [[&str; 3]; 3] = [["id", "a", "v"], ["id", "pid", "b"], ["id", "cid", "w"]];
/// Each table's ordered indexes: name and column positions.
const INDEXES: [&[(&str, &[usize])]; 3] = [
    &[("pk", &[0]), ("by_a", &[1])],
    &[("pk", &[0]), ("by_pid", &[1])],
    &[("by_cid", &[1]), ("by_cid_w", &[1, 2])],
];

/// What a column's values stand for: a join key binds an index column to a column of the same
/// domain (mostly; any integer column now and then).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Domain {
    ParentId,
    ChildId,
    GrandId,
    Small,
    Text,
}

use Domain::{ChildId, GrandId, ParentId, Small, Text};

const DOMAINS: [[Domain; 3]; 3] = [
    [ParentId, Small, Text],
    [ChildId, ParentId, Small],
    [GrandId, ChildId, Small],
];

/// Values of a domain fall below this (filters and bounds pick from it).
fn span(d: Domain) -> u64 {
    match d {
        ParentId => 70,
        ChildId => 200,
        GrandId => 520,
        Small => 8,
        Text => unreachable!("no bounds on text"),
    }
}

/// Each table's rows by primary key.
type Rows = BTreeMap<i64, Vec<Value>>;

/// A condition `column op value` on one table's integer column.
#[derive(Debug, Clone)]
struct Cond {
    column: usize,
    op: CmpOp,
    value: i64,
}

impl Cond {
    fn random(rng: &mut Rng, table: usize) -> Cond {
        let ints: Vec<usize> = (0..3).filter(|&c| DOMAINS[table][c] != Text).collect();
        let column = ints[rng.below(ints.len() as u64) as usize];
        let ops = [
            CmpOp::Eq,
            CmpOp::Ne,
            CmpOp::Lt,
            CmpOp::Le,
            CmpOp::Gt,
            CmpOp::Ge,
        ];
        Cond {
            column,
            op: ops[rng.below(6) as usize],
            value: rng.below(span(DOMAINS[table][column])) as i64,
        }
    }

    fn filter(&self) -> Filter {
        Filter::Cmp {
            column: self.column as u16,
            op: self.op,
            value: Value::Int(self.value),
        }
    }

    /// NULL fails every comparison.
    fn holds(&self, row: &[Value]) -> bool {
        let Some(v) = as_int(&row[self.column]) else {
            return false;
        };
        match self.op {
            CmpOp::Eq => v == self.value,
            CmpOp::Ne => v != self.value,
            CmpOp::Lt => v < self.value,
            CmpOp::Le => v <= self.value,
            CmpOp::Gt => v > self.value,
            CmpOp::Ge => v >= self.value,
        }
    }
}

#[derive(Debug, Clone)]
enum RootKind {
    Full,
    Range {
        index: usize,
        lo: (i64, bool),
        hi: (i64, bool),
    },
    Keys {
        index: usize,
        keys: Vec<Option<i64>>,
    },
}

/// The scan a join starts from.
#[derive(Debug, Clone)]
struct Root {
    table: usize,
    kind: RootKind,
    filter: Option<Cond>,
    /// None: every column.
    columns: Option<Vec<usize>>,
}

/// A child's rows read once (`JoinChild::read_once`): through an index (None: the whole
/// table) between bounds on a prefix of its columns (each of one or more values).
#[derive(Debug, Clone)]
struct ReadOnce {
    index: Option<usize>,
    lo: Option<(Vec<i64>, bool)>,
    hi: Option<(Vec<i64>, bool)>,
    /// A filter matching nothing set on the JoinChild before `read_once`, which the scan's
    /// filter (or none) replaces.
    decoy: bool,
}

impl ReadOnce {
    fn random(rng: &mut Rng, table: usize) -> ReadOnce {
        let mut read = ReadOnce {
            index: None,
            lo: None,
            hi: None,
            decoy: rng.below(3) == 0,
        };
        if rng.below(4) == 0 {
            return read;
        }
        let index = rng.below(INDEXES[table].len() as u64) as usize;
        let columns = INDEXES[table][index].1;
        let value = |rng: &mut Rng, at: usize| rng.below(span(DOMAINS[table][columns[at]])) as i64;
        let lo: Vec<i64> = (0..1 + rng.below(columns.len() as u64) as usize)
            .map(|at| value(rng, at))
            .collect();
        let first = span(DOMAINS[table][columns[0]]) as i64;
        let mut hi = vec![match rng.below(8) {
            // Empty, or one value.
            0 => lo[0] - rng.below(3) as i64,
            _ => lo[0] + rng.below(first as u64 / 2 + 1) as i64,
        }];
        if columns.len() > 1 && rng.below(2) == 0 {
            hi.push(value(rng, 1));
        }
        read.index = Some(index);
        read.lo = (rng.below(5) != 0).then(|| (lo, rng.below(2) == 0));
        read.hi = (rng.below(5) != 0).then(|| (hi, rng.below(2) == 0));
        read
    }

    /// Whether a row of the child's table is in the range (NULL before every value in the
    /// index, a bound comparing the prefix of its length).
    fn holds(&self, table: usize, row: &[Value]) -> bool {
        let Some(index) = self.index else {
            return true;
        };
        let tuple: Vec<Option<i64>> = INDEXES[table][index]
            .1
            .iter()
            .map(|&c| as_int(&row[c]))
            .collect();
        let bound = |b: &[i64]| -> Vec<Option<i64>> { b.iter().map(|&v| Some(v)).collect() };
        let above = self.lo.as_ref().is_none_or(|(b, inclusive)| {
            let prefix = &tuple[..b.len()];
            prefix > &bound(b)[..] || (*inclusive && prefix == &bound(b)[..])
        });
        let below = self.hi.as_ref().is_none_or(|(b, inclusive)| {
            let prefix = &tuple[..b.len()];
            prefix < &bound(b)[..] || (*inclusive && prefix == &bound(b)[..])
        });
        above && below
    }

    fn scan(&self, table: usize) -> Scan {
        let values = |b: &[i64]| b.iter().map(|&v| Value::Int(v)).collect();
        let mut scan = match self.index {
            None => Scan::table(),
            Some(index) => Scan::index(INDEXES[table][index].0),
        };
        if let Some((b, inclusive)) = &self.lo {
            scan = scan.from(values(b), *inclusive);
        }
        if let Some((b, inclusive)) = &self.hi {
            scan = scan.to(values(b), *inclusive);
        }
        scan
    }
}

/// A child of the join: `key` holds positions in the joined row so far.
#[derive(Debug, Clone)]
struct Child {
    table: usize,
    index: usize,
    key: Vec<usize>,
    filter: Option<Cond>,
    columns: Option<Vec<usize>>,
    kind: Kind,
    /// Some: read once through this range (the filter set on its scan).
    read: Option<ReadOnce>,
    /// Bounds (value, inclusive) on the index column after the key's, the primary key's `id`
    /// past the index's own (`JoinChild::within`).
    within: Option<(Edge, Edge)>,
}

/// A bound: its value and whether it includes it (None: unbounded).
type Edge = Option<(i64, bool)>;

impl Child {
    /// The column `within` bounds: the index's next, else the primary key's.
    fn within_column(&self) -> usize {
        INDEXES[self.table][self.index]
            .1
            .get(self.key.len())
            .copied()
            .unwrap_or(0)
    }

    /// Whether a row of the child's table is within its bounds, as its index keys order (NULL
    /// before every value).
    fn within(&self, row: &[Value]) -> bool {
        let Some((lo, hi)) = &self.within else {
            return true;
        };
        let v = as_int(&row[self.within_column()]);
        let above = lo.is_none_or(|(b, inclusive)| v > Some(b) || (inclusive && v == Some(b)));
        let below = hi.is_none_or(|(b, inclusive)| v < Some(b) || (inclusive && v == Some(b)));
        above && below
    }
}

fn projected(columns: &Option<Vec<usize>>) -> Vec<usize> {
    columns.clone().unwrap_or_else(|| vec![0, 1, 2])
}

fn project(row: &[Value], columns: &Option<Vec<usize>>) -> Vec<Value> {
    projected(columns).iter().map(|&c| row[c].clone()).collect()
}

fn random_columns(rng: &mut Rng) -> Option<Vec<usize>> {
    if rng.below(4) == 0 {
        return None;
    }
    let mut columns: Vec<usize> = (0..3).filter(|_| rng.below(3) != 0).collect();
    for i in (1..columns.len()).rev() {
        columns.swap(i, rng.below(i as u64 + 1) as usize);
    }
    if columns.is_empty() {
        None
    } else {
        Some(columns)
    }
}

fn random_root(rng: &mut Rng) -> Root {
    let table = [PARENT, PARENT, CHILD, CHILD, GRAND][rng.below(5) as usize];
    let index = rng.below(INDEXES[table].len() as u64) as usize;
    let domain = DOMAINS[table][INDEXES[table][index].1[0]];
    let kind = match rng.below(3) {
        0 => RootKind::Full,
        1 => {
            let lo = rng.below(span(domain)) as i64;
            let hi = lo + rng.below(span(domain) / 2 + 1) as i64;
            RootKind::Range {
                index,
                lo: (lo, rng.below(2) == 0),
                hi: (hi, rng.below(2) == 0),
            }
        }
        _ => {
            let mut keys: Vec<Option<i64>> = (0..rng.below(10))
                .map(|_| Some(rng.below(span(domain) + 5) as i64))
                .collect();
            if keys.is_empty() || rng.below(4) == 0 {
                keys.push(None);
            }
            RootKind::Keys { index, keys }
        }
    };
    Root {
        table,
        kind,
        filter: (rng.below(4) == 0).then(|| Cond::random(rng, table)),
        columns: random_columns(rng),
    }
}

/// A child joinable to a joined row whose columns come from `slots` (table, column); inner or
/// outer, and, when `extended`, also semi or anti, and read once (drawn after the rest, so
/// the rounds without `extended` stay as they were for a seed).
fn random_child(rng: &mut Rng, slots: &[(usize, usize)], extended: bool) -> Option<Child> {
    let mut options = Vec::new();
    for (table, indexes) in INDEXES.iter().enumerate() {
        for (index, (_, columns)) in indexes.iter().enumerate() {
            for len in 1..=columns.len() {
                options.push((table, index, len));
            }
        }
    }
    let ints: Vec<usize> = (0..slots.len())
        .filter(|&p| DOMAINS[slots[p].0][slots[p].1] != Text)
        .collect();
    if ints.is_empty() {
        return None;
    }
    let (table, index, len) = options[rng.below(options.len() as u64) as usize];
    let key = INDEXES[table][index].1[..len]
        .iter()
        .map(|&c| {
            let same: Vec<usize> = ints
                .iter()
                .copied()
                .filter(|&p| DOMAINS[slots[p].0][slots[p].1] == DOMAINS[table][c])
                .collect();
            let pool = if !same.is_empty() && rng.below(5) != 0 {
                same
            } else {
                ints.clone()
            };
            pool[rng.below(pool.len() as u64) as usize]
        })
        .collect();
    let mut child = Child {
        table,
        index,
        key,
        filter: (rng.below(3) == 0).then(|| Cond::random(rng, table)),
        columns: random_columns(rng),
        kind: if rng.below(2) == 0 {
            Kind::Outer
        } else {
            Kind::Inner
        },
        read: None,
        within: None,
    };
    if extended {
        match rng.below(6) {
            0 | 1 => {}
            2 | 3 => child.kind = Kind::Semi,
            _ => child.kind = Kind::Anti,
        }
        if rng.below(5) < 2 {
            child.read = Some(ReadOnce::random(rng, table));
        } else if rng.below(3) == 0 {
            let domain = DOMAINS[table][child.within_column()];
            let mut bound =
                || (rng.below(4) != 0).then(|| (rng.below(span(domain)) as i64, rng.below(2) == 0));
            child.within = Some((bound(), bound()));
        }
    }
    Some(child)
}

/// The joined rows, by nested loops over the model's rows.
fn model(data: &[Rows; 3], root: &Root, children: &[Child]) -> Vec<Vec<Value>> {
    let taken = |row: &[Value]| -> bool {
        let first = |index: usize| as_int(&row[INDEXES[root.table][index].1[0]]);
        match &root.kind {
            RootKind::Full => true,
            RootKind::Range { index, lo, hi } => first(*index).is_some_and(|v| {
                (v > lo.0 || (lo.1 && v == lo.0)) && (v < hi.0 || (hi.1 && v == hi.0))
            }),
            RootKind::Keys { index, keys } => {
                first(*index).is_some_and(|v| keys.contains(&Some(v)))
            }
        }
    };
    let mut rows: Vec<Vec<Value>> = data[root.table]
        .values()
        .filter(|r| taken(r) && root.filter.as_ref().is_none_or(|f| f.holds(r)))
        .map(|r| project(r, &root.columns))
        .collect();
    for child in children {
        let columns = INDEXES[child.table][child.index].1;
        let mut by_key: HashMap<Vec<i64>, Vec<Vec<Value>>> = HashMap::new();
        for r in data[child.table].values() {
            if !child.filter.as_ref().is_none_or(|f| f.holds(r)) {
                continue;
            }
            if !child
                .read
                .as_ref()
                .is_none_or(|read| read.holds(child.table, r))
                || !child.within(r)
            {
                continue;
            }
            let key: Option<Vec<i64>> = columns[..child.key.len()]
                .iter()
                .map(|&c| as_int(&r[c]))
                .collect();
            if let Some(key) = key {
                by_key
                    .entry(key)
                    .or_default()
                    .push(project(r, &child.columns));
            }
        }
        let width = projected(&child.columns).len();
        let mut joined = Vec::new();
        for row in rows {
            let key: Option<Vec<i64>> = child.key.iter().map(|&p| as_int(&row[p])).collect();
            let matches = key.and_then(|k| by_key.get(&k));
            match child.kind {
                Kind::Semi | Kind::Anti => {
                    if matches.is_some() == (child.kind == Kind::Semi) {
                        joined.push(row);
                    }
                    continue;
                }
                Kind::Inner | Kind::Outer => {}
            }
            match matches {
                Some(matches) => {
                    for m in matches {
                        let mut r = row.clone();
                        r.extend(m.iter().cloned());
                        joined.push(r);
                    }
                }
                None if child.kind == Kind::Outer => {
                    let mut r = row;
                    r.extend(std::iter::repeat_n(Value::Null, width));
                    joined.push(r);
                }
                None => {}
            }
        }
        rows = joined;
    }
    rows
}

fn scan_of(tables: &[Table; 3], root: &Root, children: &[Child]) -> Scan {
    let names = |table: usize, columns: &[usize]| -> Vec<&'static str> {
        columns.iter().map(|&c| COLUMNS[table][c]).collect()
    };
    let mut scan = match &root.kind {
        RootKind::Full => Scan::table(),
        RootKind::Range { index, lo, hi } => Scan::index(INDEXES[root.table][*index].0)
            .from(vec![Value::Int(lo.0)], lo.1)
            .to(vec![Value::Int(hi.0)], hi.1),
        RootKind::Keys { index, keys } => Scan::index(INDEXES[root.table][*index].0).keys(
            keys.iter()
                .map(|k| vec![k.map_or(Value::Null, Value::Int)])
                .collect(),
        ),
    };
    if let Some(f) = &root.filter {
        scan = scan.filter(f.filter());
    }
    if let Some(columns) = &root.columns {
        scan = scan.columns(&names(root.table, columns));
    }
    for c in children {
        let key = c.key.iter().map(|&p| p as u16).collect();
        let mut child = JoinChild::new(&tables[c.table], INDEXES[c.table][c.index].0, key);
        match &c.read {
            None => {
                if let Some(f) = &c.filter {
                    child = child.filter(f.filter());
                }
            }
            Some(read) => {
                if read.decoy {
                    child = child.filter(nothing());
                }
                let mut scan = read.scan(c.table);
                if let Some(f) = &c.filter {
                    scan = scan.filter(f.filter());
                }
                child = child.read_once(&scan);
            }
        }
        if let Some(columns) = &c.columns {
            child = child.columns(&names(c.table, columns));
        }
        if let Some((lo, hi)) = &c.within {
            let bound = |b: &Option<(i64, bool)>| b.map(|(v, i)| (vec![Value::Int(v)], i));
            child = child.within(bound(lo), bound(hi));
        }
        child = match c.kind {
            Kind::Inner => child,
            Kind::Outer => child.outer(),
            Kind::Semi => child.semi(),
            Kind::Anti => child.anti(),
        };
        scan = scan.join(child);
    }
    scan
}

/// A value as something to sort by.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Cell {
    Null,
    Int(i64),
    Bytes(Vec<u8>),
}

fn cells(rows: &[Vec<Value>]) -> Vec<Vec<Cell>> {
    let mut out: Vec<Vec<Cell>> = rows
        .iter()
        .map(|r| {
            r.iter()
                .map(|v| match v {
                    Value::Null => Cell::Null,
                    Value::Int(i) => Cell::Int(*i),
                    Value::Bytes(b) => Cell::Bytes(b.clone()),
                    other => panic!("unexpected value {other:?}"),
                })
                .collect()
        })
        .collect();
    out.sort();
    out
}

/// Rows of `got` missing from `want` and of `want` missing from `got` (both sorted), counted
/// as multisets.
fn difference(got: &[Vec<Cell>], want: &[Vec<Cell>]) -> (Vec<Vec<Cell>>, Vec<Vec<Cell>>) {
    let (mut i, mut j) = (0, 0);
    let (mut extra, mut missing) = (Vec::new(), Vec::new());
    while i < got.len() || j < want.len() {
        if j >= want.len() || (i < got.len() && got[i] < want[j]) {
            extra.push(got[i].clone());
            i += 1;
        } else if i >= got.len() || want[j] < got[i] {
            missing.push(want[j].clone());
            j += 1;
        } else {
            i += 1;
            j += 1;
        }
    }
    (extra, missing)
}

fn random_text(rng: &mut Rng) -> Value {
    let len = rng.below(12) as usize;
    let s: String = (0..len)
        .map(|_| (b'a' + rng.below(26) as u8) as char)
        .collect();
    Value::from(s.as_str())
}

fn random_rows(rng: &mut Rng) -> [Rows; 3] {
    let mut data: [Rows; 3] = Default::default();
    for id in 0..60i64 {
        if rng.below(8) == 0 {
            continue;
        }
        let a = if rng.below(6) == 0 {
            Value::Null
        } else {
            Value::Int(rng.below(8) as i64)
        };
        data[PARENT].insert(id, vec![Value::Int(id), a, random_text(rng)]);
    }
    // Children of parents 0..70 (some of them not there), 0 to 5 each, and a few with no
    // parent (NULL).
    let mut cid = 0i64;
    for pid in (0..70i64).map(Some).chain([None; 8]) {
        let n = if pid.is_some() { rng.below(6) } else { 1 };
        for _ in 0..n {
            let pid = pid.map_or(Value::Null, Value::Int);
            let b = Value::Int(rng.below(8) as i64);
            data[CHILD].insert(cid, vec![Value::Int(cid), pid, b]);
            cid += 1;
        }
    }
    let mut gid = 0i64;
    for c in 0..cid + 10 {
        for _ in 0..rng.below(6) {
            let w = Value::Int(rng.below(8) as i64);
            data[GRAND].insert(gid, vec![Value::Int(gid), Value::Int(c), w]);
            gid += 1;
        }
    }
    data
}

fn insert_all(cluster: &Cluster, tables: &[Table; 3], data: &[Rows; 3]) {
    for t in 0..3 {
        let mut txn = cluster.transaction();
        for row in data[t].values() {
            let values = row
                .iter()
                .enumerate()
                .map(|(c, v)| (c as u16, v.clone()))
                .collect();
            txn.insert(&tables[t], values);
        }
        txn.execute(ExecType::Commit).unwrap();
    }
}

/// Uncommitted changes in every table, made in `txn` and in `seen`.
fn change(rng: &mut Rng, txn: &mut Transaction, tables: &[Table; 3], seen: &mut [Rows; 3]) {
    for _ in 0..rng.below(25) {
        let t = rng.below(3) as usize;
        let existing = |seen: &[Rows; 3], rng: &mut Rng| {
            let n = seen[t].len() as u64;
            (n > 0).then(|| *seen[t].keys().nth(rng.below(n) as usize).unwrap())
        };
        match rng.below(4) {
            0 => {
                if let Some(id) = existing(seen, rng) {
                    txn.delete(&tables[t], vec![Value::Int(id)]);
                    seen[t].remove(&id);
                }
            }
            1 if t != PARENT => {
                // A child or grandchild moved to another parent.
                if let Some(id) = existing(seen, rng) {
                    let to = match t {
                        CHILD if rng.below(5) == 0 => Value::Null,
                        CHILD => Value::Int(rng.below(span(ParentId)) as i64),
                        _ => Value::Int(rng.below(span(ChildId)) as i64),
                    };
                    txn.update(&tables[t], vec![Value::Int(id)], vec![(1, to.clone())]);
                    seen[t].get_mut(&id).unwrap()[1] = to;
                }
            }
            _ => {
                // Inserted, or written over.
                let id = match t {
                    PARENT => rng.below(span(ParentId) + 10),
                    CHILD => rng.below(span(ChildId) + 20),
                    _ => rng.below(span(GrandId) + 20),
                } as i64;
                let small = Value::Int(rng.below(8) as i64);
                let row = match t {
                    PARENT => {
                        let a = if rng.below(5) == 0 {
                            Value::Null
                        } else {
                            small
                        };
                        vec![Value::Int(id), a, random_text(rng)]
                    }
                    CHILD => {
                        let pid = if rng.below(6) == 0 {
                            Value::Null
                        } else {
                            Value::Int(rng.below(span(ParentId)) as i64)
                        };
                        vec![Value::Int(id), pid, small]
                    }
                    _ => {
                        let cid = Value::Int(rng.below(span(ChildId)) as i64);
                        vec![Value::Int(id), cid, small]
                    }
                };
                let values = (1..3).map(|c| (c as u16, row[c].clone())).collect();
                txn.write(&tables[t], vec![Value::Int(id)], values);
                seen[t].insert(id, row);
            }
        }
    }
}

#[test]
fn pushed_joins_match_a_nested_loop_model() {
    rounds_against_the_model("pushed_joins_match_a_nested_loop_model", 400, false);
}

/// The same with semi and anti children (adding no columns, so later children's keys skip
/// them) and children read once through a random range of one of their indexes (or the
/// whole table), with the filter of that scan, kept for every round of the scan's tiny
/// batches, also inside a transaction with its own changes in the child's table.
#[test]
fn semi_anti_and_read_once_children_match_the_model() {
    rounds_against_the_model(
        "semi_anti_and_read_once_children_match_the_model",
        400,
        true,
    );
}

/// `rounds` random joins read and compared with the model; `extended`: children may be semi,
/// anti and read once.
fn rounds_against_the_model(name: &str, rounds: usize, extended: bool) {
    let mut rng = Rng::from_env_or_time(name);
    let node = TestNode::start(3, Duration::from_millis(300));
    let cluster = node.connect();
    let tables = defs().map(|def| cluster.create_table(def).unwrap());
    let data = random_rows(&mut rng);
    insert_all(&cluster, &tables, &data);
    eprintln!(
        "rows: {} parents, {} children, {} grandchildren",
        data[PARENT].len(),
        data[CHILD].len(),
        data[GRAND].len()
    );

    let mut failures: Vec<String> = Vec::new();
    let mut joined_rows = 0;
    let mut answered = 0;
    // Rounds answering rows with a semi, an anti and a read-once child.
    let mut answered_with = [0; 3];
    for round in 0..rounds {
        if failures.len() >= 5 {
            break;
        }
        let root = random_root(&mut rng);
        let mut slots: Vec<(usize, usize)> = projected(&root.columns)
            .iter()
            .map(|&c| (root.table, c))
            .collect();
        let mut children = Vec::new();
        let counts = if extended {
            [1, 2, 2, 3, 3, 4, 4, 5]
        } else {
            [1, 1, 2, 2, 2, 3, 3, 4]
        };
        for _ in 0..counts[rng.below(8) as usize] {
            let Some(child) = random_child(&mut rng, &slots, extended) else {
                break;
            };
            if child.kind.adds_columns() {
                slots.extend(projected(&child.columns).iter().map(|&c| (child.table, c)));
            }
            children.push(child);
        }
        // A third of the rounds read inside a transaction holding its own changes.
        let in_txn = rng.below(3) == 0;
        let mut seen = data.clone();
        let mut txn = cluster.transaction();
        if in_txn {
            change(&mut rng, &mut txn, &tables, &mut seen);
            txn.execute(ExecType::NoCommit).unwrap();
        }
        let batch = match rng.below(4) {
            0 => 0,
            _ => 1 + rng.below(5) as u32,
        };
        let bytes = match rng.below(3) {
            0 => 30 + rng.below(200) as u32,
            _ => 0,
        };
        let limit = match rng.below(5) {
            0 => 1 + rng.below(30),
            _ => 0,
        };
        let by_cursor = rng.below(3) != 0;
        let what = format!(
            "round {round}: root {root:?} children {children:?} batch {batch}/{bytes} limit {limit} txn {in_txn} cursor {by_cursor}"
        );
        let scan = scan_of(&tables, &root, &children)
            .batch(batch, bytes)
            .limit(limit);
        let t = &tables[root.table];
        let read = || -> Result<Vec<Vec<Value>>, String> {
            if !by_cursor {
                return if in_txn {
                    txn.scan(t, &scan)
                } else {
                    cluster.scan(t, &scan)
                }
                .map_err(|e| format!("failed: {e}"));
            }
            let mut cursor = if in_txn {
                txn.scan_cursor(t, &scan)
            } else {
                cluster.scan_cursor(t, &scan)
            }
            .map_err(|e| format!("failed to open: {e}"))?;
            let mut got = Vec::new();
            while let Some(rows) = cursor
                .next_batch()
                .map_err(|e| format!("failed after {} rows: {e}", got.len()))?
            {
                if batch > 0 && rows.len() > batch as usize {
                    return Err(format!("a batch of {} rows", rows.len()));
                }
                got.extend(rows);
            }
            Ok(got)
        };
        let got = read();
        if in_txn {
            txn.execute(ExecType::Rollback).unwrap();
        }
        let got = match got {
            Ok(got) => got,
            Err(e) => {
                failures.push(format!("{what}: {e}"));
                continue;
            }
        };
        let want = cells(&model(&seen, &root, &children));
        let got = cells(&got);
        joined_rows += got.len();
        answered += usize::from(!want.is_empty());
        if !want.is_empty() {
            let has = |f: &dyn Fn(&Child) -> bool| usize::from(children.iter().any(f));
            answered_with[0] += has(&|c| c.kind == Kind::Semi);
            answered_with[1] += has(&|c| c.kind == Kind::Anti);
            answered_with[2] += has(&|c| c.read.is_some());
        }
        let (extra, missing) = difference(&got, &want);
        let wrong = if limit > 0 {
            got.len() != want.len().min(limit as usize) || !extra.is_empty()
        } else {
            !extra.is_empty() || !missing.is_empty()
        };
        if wrong {
            failures.push(format!(
                "{what}: {} rows, the model {}; not in the model ({}): {:?}; missing ({}): {:?}",
                got.len(),
                want.len(),
                extra.len(),
                &extra[..extra.len().min(6)],
                missing.len(),
                &missing[..missing.len().min(6)],
            ));
        }
    }
    eprintln!("{joined_rows} joined rows read; {answered} rounds of {rounds} answered rows");
    if extended {
        let [semi, anti, once] = answered_with;
        eprintln!(
            "answering rounds with a semi child {semi}, an anti child {anti}, read once {once}"
        );
    }
    assert!(
        failures.is_empty(),
        "{} failing rounds:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
