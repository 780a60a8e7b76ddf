//! Pushed joins (NDB's SPJ, `Scan::join`): random scans (whole table, index range, by keys) of
//! three tables spread over more partitions than workers, each with a random chain of children
//! (parent to child by an ordered index on the foreign key, child to grandchild, back to the
//! parent through its primary key's ordered index, a key of two columns or of a prefix; inner or
//! outer; with filters and projections of their own), read in tiny batches, sometimes with a
//! limit, sometimes inside a transaction holding uncommitted inserts, updates and deletes,
//! against a nested-loop model; a round joining more keys than one scan by keys takes (read in
//! chunks, also through a transaction's changes); key values outside the child column's range
//! or not exactly of its type;
//! string keys under the child column's collation; cursors dropped mid-join; and requests the
//! data node refuses. The seed is printed; rerun a failure with CAIRN_TEST_SEED.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use base::schema::{ColumnDef, IndexKind};
use base::types::ColumnType;
use client::{
    AggregateFn, Aggregation, ClientError, Cluster, CmpOp, ErrorCode, ExecType, Filter, JoinChild,
    Scan, Table, TableDef, Transaction, Value,
};
use common::{Rng, TestNode};

const PARENT: usize = 0;
const CHILD: usize = 1;
const GRAND: usize = 2;
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

fn defs() -> [TableDef; 3] {
    let big = || ColumnType::BigInt { unsigned: false };
    let int = || ColumnType::Int { unsigned: false };
    let spread = |mut def: TableDef| {
        def.partition_count = 7;
        def
    };
    let parent = TableDef::new(
        "parent",
        vec![
            ColumnDef::new("id", big()),
            ColumnDef::new("a", int()).nullable(),
            ColumnDef::new("v", ColumnType::VarChar { length: 20 }),
        ],
        &["id"],
    )
    .unwrap()
    .with_index("pk", IndexKind::Ordered, &["id"])
    .unwrap()
    .with_index("by_a", IndexKind::Ordered, &["a"])
    .unwrap();
    let child = TableDef::new(
        "child",
        vec![
            ColumnDef::new("id", big()),
            ColumnDef::new("pid", big()).nullable(),
            ColumnDef::new("b", int()),
        ],
        &["id"],
    )
    .unwrap()
    .with_index("pk", IndexKind::Ordered, &["id"])
    .unwrap()
    .with_index("by_pid", IndexKind::Ordered, &["pid"])
    .unwrap();
    let grand = TableDef::new(
        "grand",
        vec![
            ColumnDef::new("id", int()),
            ColumnDef::new("cid", big()),
            ColumnDef::new("w", int()),
        ],
        &["id"],
    )
    .unwrap()
    .with_index("by_cid", IndexKind::Ordered, &["cid"])
    .unwrap()
    .with_index("by_cid_w", IndexKind::Ordered, &["cid", "w"])
    .unwrap();
    [spread(parent), spread(child), spread(grand)]
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

/// A child of the join: `key` holds positions in the joined row so far.
#[derive(Debug, Clone)]
struct Child {
    table: usize,
    index: usize,
    key: Vec<usize>,
    filter: Option<Cond>,
    columns: Option<Vec<usize>>,
    outer: bool,
}

fn projected(columns: &Option<Vec<usize>>) -> Vec<usize> {
    columns.clone().unwrap_or_else(|| vec![0, 1, 2])
}

fn project(row: &[Value], columns: &Option<Vec<usize>>) -> Vec<Value> {
    projected(columns).iter().map(|&c| row[c].clone()).collect()
}

fn as_int(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::Null => None,
        other => panic!("not an integer: {other:?}"),
    }
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

/// A child joinable to a joined row whose columns come from `slots` (table, column).
fn random_child(rng: &mut Rng, slots: &[(usize, usize)]) -> Option<Child> {
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
    Some(Child {
        table,
        index,
        key,
        filter: (rng.below(3) == 0).then(|| Cond::random(rng, table)),
        columns: random_columns(rng),
        outer: rng.below(2) == 0,
    })
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
            match key.and_then(|k| by_key.get(&k)) {
                Some(matches) => {
                    for m in matches {
                        let mut r = row.clone();
                        r.extend(m.iter().cloned());
                        joined.push(r);
                    }
                }
                None if child.outer => {
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
        if let Some(f) = &c.filter {
            child = child.filter(f.filter());
        }
        if let Some(columns) = &c.columns {
            child = child.columns(&names(c.table, columns));
        }
        if c.outer {
            child = child.outer();
        }
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
    let mut rng = Rng::from_env_or_time("pushed_joins_match_a_nested_loop_model");
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
    for round in 0..400 {
        if failures.len() >= 5 {
            break;
        }
        let root = random_root(&mut rng);
        let mut slots: Vec<(usize, usize)> = projected(&root.columns)
            .iter()
            .map(|&c| (root.table, c))
            .collect();
        let mut children = Vec::new();
        for _ in 0..[1, 1, 2, 2, 2, 3, 3, 4][rng.below(8) as usize] {
            let Some(child) = random_child(&mut rng, &slots) else {
                break;
            };
            slots.extend(projected(&child.columns).iter().map(|&c| (child.table, c)));
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
    eprintln!("{joined_rows} joined rows read; {answered} rounds of 400 answered rows");
    assert!(
        failures.is_empty(),
        "{} failing rounds:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

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
    let narrow = cluster
        .create_table(
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
            .unwrap(),
        )
        .unwrap();
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
/// them.
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
        for outer in [false, true] {
            let mut join = JoinChild::new(child, "by_s", vec![1]).columns(&["id"]);
            if outer {
                join = join.outer();
            }
            let got = cluster
                .scan(root, &Scan::table().join(join).batch(2, 0))
                .unwrap();
            let mut got: Vec<(i64, Option<i64>)> = got
                .iter()
                .map(|r| (as_int(&r[0]).unwrap(), as_int(&r[2])))
                .collect();
            got.sort_unstable();
            // The child's own scan by each root row's value.
            let mut want = Vec::new();
            for r in cluster.scan(root, &Scan::table()).unwrap() {
                let id = as_int(&r[0]).unwrap();
                let found = cluster
                    .scan(child, &Scan::index("by_s").keys(vec![vec![r[1].clone()]]))
                    .unwrap();
                if found.is_empty() && outer {
                    want.push((id, None));
                }
                want.extend(found.iter().map(|f| (id, as_int(&f[0]))));
            }
            want.sort_unstable();
            assert_eq!(
                got,
                want,
                "{} joined to {}, outer {outer}",
                root.name(),
                child.name()
            );
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
