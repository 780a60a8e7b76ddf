//! EXPLAIN and DESCRIBE: the plan chosen for a statement (access method, index bounds,
//! partition pruning, the condition pushed into the data node, round trips) in MySQL's EXPLAIN
//! columns, and a table's columns as MySQL's DESCRIBE shows them.

use base::{TableDef, Value};
use myproto::response::{types, Column};

use crate::catalog::definition::column_key;
use crate::expr::Expr;
use crate::plan::compiled::Compiled;
use crate::plan::join::JoinStep;
use crate::plan::{Access, Pushed, Source};

/// A result EXPLAIN or DESCRIBE answers: its columns and rows.
pub(crate) type Answer = (Vec<Column>, Vec<Vec<Value>>);

fn text(s: impl Into<String>) -> Value {
    Value::Bytes(s.into().into_bytes())
}

fn columns(names: &[&str]) -> Vec<Column> {
    names
        .iter()
        .map(|n| Column::computed(n, types::VAR_STRING, 256, 0))
        .collect()
}

/// A short rendering of an unresolved value.
fn show(e: &Expr) -> String {
    match e {
        Expr::Const(v) => v.to_string(),
        Expr::Param(_) => "?".into(),
        _ => "(expression)".into(),
    }
}

fn pushed_text(def: &TableDef, p: &Pushed) -> String {
    let name = |c: &u16| def.columns[*c as usize].name.clone();
    match p {
        Pushed::Cmp(c, op, e) => {
            let op = match op {
                client::CmpOp::Eq => "=",
                client::CmpOp::Ne => "<>",
                client::CmpOp::Lt => "<",
                client::CmpOp::Le => "<=",
                client::CmpOp::Gt => ">",
                client::CmpOp::Ge => ">=",
            };
            format!("{} {op} {}", name(c), show(e))
        }
        Pushed::Between(c, lo, hi) => {
            format!("{} BETWEEN {} AND {}", name(c), show(lo), show(hi))
        }
        Pushed::In(c, list) => format!(
            "{} IN ({})",
            name(c),
            list.iter().map(show).collect::<Vec<_>>().join(", ")
        ),
        Pushed::Like(c, e) => format!("{} LIKE {}", name(c), show(e)),
        Pushed::IsNull(c, false) => format!("{} IS NULL", name(c)),
        Pushed::IsNull(c, true) => format!("{} IS NOT NULL", name(c)),
        Pushed::Prefixes {
            column,
            start,
            length,
            values,
        } => format!(
            "SUBSTRING({}, {}, {}) IN ({}) as LIKE prefixes",
            name(column),
            show(start),
            show(length),
            values.iter().map(show).collect::<Vec<_>>().join(", ")
        ),
        Pushed::Any(branches) => {
            let branches: Vec<String> = branches
                .iter()
                .map(|b| {
                    let all: Vec<String> = b.iter().map(|p| pushed_text(def, p)).collect();
                    format!("({})", all.join(" AND "))
                })
                .collect();
            format!("({})", branches.join(" OR "))
        }
    }
}

/// The partitions a full scan reads: those its pushed condition fixes the partition key to (the
/// data node prunes by `col = v` and `col IN (...)` on every partition-key column), or all.
fn scan_partitions(src: &Source) -> &'static str {
    let def = src.table.def();
    let mut listed = false;
    for column in &def.partition_key {
        let fixed = src.pushed.iter().find_map(|p| match p {
            Pushed::Cmp(c, client::CmpOp::Eq, _) if c == column => Some(false),
            Pushed::In(c, _) if c == column => Some(true),
            _ => None,
        });
        match fixed {
            Some(list) => listed |= list,
            None => return "all partitions",
        }
    }
    if listed {
        "pruned to the partitions of the listed keys"
    } else {
        "pruned to one partition"
    }
}

/// The EXPLAIN row of a derived table or common table expression.
fn derived_row(src: &Source) -> Vec<Value> {
    let mut extra = vec![
        "Cairn: derived table: its query runs first and its rows are kept in the API node"
            .to_string(),
    ];
    if src.filter.is_some() {
        extra.push("Using where".into());
    }
    let mut row = vec![Value::Null; 12];
    row[0] = Value::Int(1);
    row[1] = text("SIMPLE");
    row[2] = text(src.name.clone());
    row[4] = text("ALL");
    row[11] = text(extra.join("; "));
    row
}

/// One EXPLAIN row for a source; `writes` adds the write round trip of UPDATE/DELETE.
fn source_row(src: &Source, writes: bool) -> Vec<Value> {
    let def = src.table.def();
    if src.derived.is_some() {
        return derived_row(src);
    }
    let (kind, key, detail, mut trips) = match &src.access {
        Access::Lookup { unique, keys } => {
            let index = unique
                .as_ref()
                .map_or("PRIMARY".to_string(), |(_, n)| n.clone());
            let how = if unique.is_some() {
                "unique-key lookup"
            } else {
                "primary-key lookup"
            };
            let kind = if keys.len() == 1 { "const" } else { "range" };
            (
                kind,
                Some(index),
                format!(
                    "{how}, {} key(s) in one batch, one partition each",
                    keys.len()
                ),
                1,
            )
        }
        Access::Range {
            index,
            columns,
            equal,
            lower,
            upper,
        } => {
            let col = |i: usize| def.columns[columns[i] as usize].name.clone();
            let mut bounds: Vec<String> = equal
                .iter()
                .enumerate()
                .map(|(i, e)| format!("{} = {}", col(i), show(e)))
                .collect();
            if let Some(l) = lower {
                bounds.push(format!("{} >= {}", col(equal.len()), show(l)));
            }
            if let Some(u) = upper {
                bounds.push(format!("{} <= {}", col(equal.len()), show(u)));
            }
            let pruned = !def.partition_key.is_empty()
                && def
                    .partition_key
                    .iter()
                    .all(|p| columns[..equal.len()].contains(p));
            (
                if equal.is_empty() { "range" } else { "ref" },
                Some(index.clone()),
                format!(
                    "ordered index scan on {index} ({}), {}",
                    bounds.join(" AND "),
                    if pruned {
                        "pruned to one partition"
                    } else {
                        "all partitions"
                    }
                ),
                1,
            )
        }
        Access::Full => (
            "ALL",
            None,
            format!("full table scan, {}", scan_partitions(src)),
            1,
        ),
    };
    let scanned = !matches!(src.access, Access::Lookup { .. });
    if scanned && src.lock != client::LockMode::CommittedRead {
        // Rows a scan found are read again under their locks.
        trips += 1;
    }
    if writes {
        trips += 1;
    }
    let mut extra = vec![format!("Cairn: {detail}")];
    if scanned && !src.pushed.is_empty() {
        let pushed: Vec<String> = src.pushed.iter().map(|p| pushed_text(def, p)).collect();
        extra.push(format!("pushed condition: {}", pushed.join(" AND ")));
    }
    if src.decided_fetch.is_some() {
        // The keys decide the WHERE when their values are of their columns' kinds.
        extra.push("the keys decide the WHERE".into());
    } else if src.filter.is_some() {
        extra.push("Using where".into());
    }
    extra.push(format!("round trips: {trips}"));
    let mut row = vec![
        Value::Int(1),
        text("SIMPLE"),
        text(src.name.clone()),
        Value::Null,
        text(kind),
        Value::Null,
        key.map(text).unwrap_or(Value::Null),
        Value::Null,
        Value::Null,
        Value::Null,
        Value::Null,
        text(extra.join("; ")),
    ];
    estimated(&mut row, src.estimate);
    row
}

/// EXPLAIN's `rows` (read, rounded up) and `filtered` (the percentage of them the conditions
/// keep) from an estimate; NULL without one (the table was never analyzed).
fn estimated(row: &mut [Value], estimate: Option<crate::plan::estimate::Estimate>) {
    let (Some(e), true) = (estimate, row.len() > 10) else {
        return;
    };
    let share = if e.read > 0.0 {
        (e.kept / e.read).min(1.0)
    } else {
        1.0
    };
    row[9] = Value::Int(e.read.ceil() as i64);
    row[10] = text(format!("{:.2}", share * 100.0));
}

/// EXPLAIN of a planned statement.
pub(crate) fn explain(c: &Compiled) -> Answer {
    let row = match c {
        Compiled::Select(p) => return explain_select(p),
        // The join that finds the rows, read with exclusive locks; their writes follow by key.
        Compiled::Multi(p) => return explain_select(&p.select),
        Compiled::Update(p) => source_row(&p.source, true),
        Compiled::Delete(p) => source_row(&p.source, true),
        Compiled::Insert(_) => {
            let mut r = vec![Value::Null; 12];
            r[0] = Value::Int(1);
            r[1] = text("INSERT");
            r[11] = text("Cairn: inserts in one batch; round trips: 1");
            r
        }
        Compiled::Set(p) => {
            let mut rows = Vec::new();
            set_rows(&p.tree, &mut rows);
            return explained(rows);
        }
        Compiled::Deferred(_) | Compiled::Do(_) | Compiled::Other(_) => {
            // The session refuses EXPLAIN of these before planning; say so if one gets here.
            let mut r = vec![Value::Null; 12];
            r[0] = Value::Int(1);
            r[1] = text("SIMPLE");
            r[11] = text("Cairn: not explained");
            r
        }
    };
    explained(vec![row])
}

/// EXPLAIN of a SELECT plan: its first table, then each table joined to it.
/// The rows of each SELECT of a set operation's tree, in order: the first PRIMARY, the others
/// UNION (as MariaDB names them for INTERSECT and EXCEPT too), each SELECT its own id.
fn set_rows(node: &crate::plan::setop::SetNode, out: &mut Vec<Vec<Value>>) {
    use crate::plan::setop::SetNode;
    match node {
        SetNode::Select(p) => {
            let id = match out.last().and_then(|r| r.first()) {
                Some(Value::Int(n)) => n + 1,
                _ => 1,
            };
            let kind = if out.is_empty() { "PRIMARY" } else { "UNION" };
            let (_, rows) = explain_select(p);
            out.extend(numbered(rows, id, Some(kind)));
        }
        SetNode::Nested(p) => set_rows(&p.tree, out),
        SetNode::Op { left, right, .. } => {
            set_rows(left, out);
            set_rows(right, out);
        }
    }
}

/// `rows` as the rows of SELECT number `id`, of `kind` (None: the kind they have).
pub(crate) fn numbered(rows: Vec<Vec<Value>>, id: i64, kind: Option<&str>) -> Vec<Vec<Value>> {
    rows.into_iter()
        .map(|mut r| {
            if let Some(slot) = r.get_mut(0) {
                *slot = Value::Int(id);
            }
            if let (Some(slot), Some(kind)) = (r.get_mut(1), kind) {
                *slot = text(kind);
            }
            r
        })
        .collect()
}

fn explain_select(p: &crate::plan::SelectPlan) -> Answer {
    let mut answer = explain_tables(p);
    if p.pushed_aggregate.is_some() {
        if let Some(Value::Bytes(extra)) = answer.1.first_mut().and_then(|r| r.get_mut(11)) {
            extra.extend_from_slice(
                b"; aggregates pushed: the data node answers a row per group \
                  (cairn_aggregate_pushdown)",
            );
        }
    }
    answer
}

/// NDB's markers of a pushed join in Extra: its first table the parent of the tables the
/// data node reads with it (when `cairn_join_pushdown` is ON), each of those its child.
fn mark_pushed(rows: &mut [Vec<Value>], src: &crate::plan::Source, j: &crate::plan::join::Joined) {
    let n = j.pushed.len();
    if n == 0 {
        return;
    }
    let mut extend = |row: usize, text: String| {
        if let Some(Value::Bytes(extra)) = rows.get_mut(row).and_then(|r| r.get_mut(11)) {
            if !extra.is_empty() {
                extra.extend_from_slice(b"; ");
            }
            extra.extend_from_slice(text.as_bytes());
        }
    };
    extend(
        0,
        format!("Parent of {} pushed join@1 (cairn_join_pushdown)", n + 1),
    );
    // Each child's parent: the table whose columns its key reads.
    let mut members = vec![(src.fetch.len(), src.name.as_str())];
    for (row, (child, step)) in j.pushed.iter().zip(&j.steps).enumerate() {
        let at = child.key.first().map_or(0, |k| usize::from(*k));
        let mut end = 0;
        let parent = members
            .iter()
            .find(|(width, _)| {
                end += width;
                at < end
            })
            .map_or(src.name.as_str(), |(_, name)| name);
        let mut text = format!("Child of '{parent}' in pushed join@1");
        if let Some((column, lower, upper)) = &child.within {
            // Each key reads its rows within the bounds on the index's next column.
            let def = step.source.table.def();
            let name = def
                .columns
                .get(*column as usize)
                .map_or("?", |c| c.name.as_str());
            let mut bounds = Vec::new();
            if let Some(l) = lower {
                bounds.push(format!("{name} >= {}", show(l)));
            }
            if let Some(u) = upper {
                bounds.push(format!("{name} <= {}", show(u)));
            }
            text.push_str(&format!(", each key within {}", bounds.join(" AND ")));
        }
        extend(row + 1, text);
        members.push((step.source.fetch.len(), step.source.name.as_str()));
    }
}

fn explain_tables(p: &crate::plan::SelectPlan) -> Answer {
    let row = match (&p.source, &p.joined) {
        (Some(src), Some(j)) => {
            let mut rows = vec![source_row(src, false)];
            rows.extend(j.steps.iter().map(step_row));
            mark_pushed(&mut rows, src, j);
            return explained(rows);
        }
        (Some(src), None) => source_row(src, false),
        (None, _) => {
            let mut r = vec![Value::Null; 12];
            r[0] = Value::Int(1);
            r[1] = text("SIMPLE");
            r[11] = text("No tables used");
            r
        }
    };
    explained(vec![row])
}

/// One EXPLAIN row for a table joined to the rows before it.
fn step_row(step: &JoinStep) -> Vec<Value> {
    let mut row = source_row(&step.source, false);
    estimated(&mut row, step.estimate);
    let join = if step.outer { "left join" } else { "join" };
    match &step.lookup {
        Some((unique, keys)) => {
            let def = step.source.table.def();
            let index = unique.map_or("PRIMARY".to_string(), |i| {
                def.indexes[i as usize].name.clone()
            });
            row[4] = text("eq_ref");
            row[6] = text(index.clone());
            row[11] = text(format!(
                "Cairn: {join} by {} lookup on {index}, {} key(s) per joined row, every row's keys \
                 in batches; round trips: 1 per {} keys",
                if unique.is_some() { "unique-key" } else { "primary-key" },
                keys.len(),
                base::limits::BATCH_OPERATIONS_MAX
            ));
        }
        None if step.probe.is_some() => {
            let index = step.probe.as_ref().map_or("", |p| p.index.as_str());
            row[4] = text("ref");
            row[6] = text(index);
            row[11] = text(format!(
                "Cairn: {join} by batched key access on {index}: the joined rows' values as the \
                 keys of index scans ({} keys per scan, at most {} scans in flight), hash join \
                 in the API node; over {} values: read once, hash join",
                crate::plan::join::PROBE_KEYS_PER_SCAN,
                crate::plan::join::PROBE_SCANS_IN_FLIGHT,
                crate::plan::join::probe_values_max(&step.source.table),
            ));
        }
        None => {
            let how = if step.equal.is_empty() {
                "nested loop"
            } else {
                "hash join"
            };
            if let Value::Bytes(b) = &mut row[11] {
                let extra = format!("; {join}: read once, {how} in the API node");
                b.extend_from_slice(extra.as_bytes());
            }
        }
    }
    row
}

fn explained(rows: Vec<Vec<Value>>) -> Answer {
    (
        columns(&[
            "id",
            "select_type",
            "table",
            "partitions",
            "type",
            "possible_keys",
            "key",
            "key_len",
            "ref",
            "rows",
            "filtered",
            "Extra",
        ]),
        rows,
    )
}

/// DESCRIBE table and SHOW [FULL] COLUMNS: Field, Type, (FULL: Collation,) Null, Key,
/// Default, Extra (FULL: then Privileges, Comment), for the columns whose names match `like`.
pub(crate) fn describe(def: &TableDef, full: bool, like: Option<&str>) -> Answer {
    let mut rows = Vec::new();
    for (p, c) in def.columns.iter().enumerate() {
        if c.hidden {
            continue;
        }
        if let Some(pattern) = like {
            let ci = base::types::Collation::Utf8mb4GeneralCi;
            if !base::collation::like(c.name.as_bytes(), pattern.as_bytes(), ci) {
                continue;
            }
        }
        let key = column_key(def, p);
        let mut row = vec![
            text(c.name.clone()),
            text(crate::catalog::definition::column_type_text(c)),
        ];
        if full {
            let textual = c.ty.is_string() && c.collation != base::types::Collation::Binary;
            row.push(if textual {
                text(c.collation.name())
            } else {
                Value::Null
            });
        }
        row.extend([
            text(if c.nullable { "YES" } else { "NO" }),
            text(key),
            described_default(c),
            text(crate::catalog::definition::extra_text(c)),
        ]);
        if full {
            // The privileges information_schema.COLUMNS shows too, and the comment.
            row.extend([
                text("select,insert,update,references"),
                text(c.comment.clone()),
            ]);
        }
        rows.push(row);
    }
    let names: &[&str] = if full {
        &[
            "Field",
            "Type",
            "Collation",
            "Null",
            "Key",
            "Default",
            "Extra",
            "Privileges",
            "Comment",
        ]
    } else {
        &["Field", "Type", "Null", "Key", "Default", "Extra"]
    };
    (columns(names), rows)
}

/// A column's Default as DESCRIBE shows it: the value unquoted, `CURRENT_TIMESTAMP` for the
/// current time, NULL without one.
pub(crate) fn described_default(c: &base::schema::ColumnDef) -> Value {
    if c.default_now.is_some() {
        return crate::catalog::definition::default_text(c)
            .map_or(Value::Null, |t| Value::Bytes(t.into()));
    }
    match &c.default {
        Some(v) => crate::catalog::definition::default_value_text(c, v)
            .map(Value::Bytes)
            .unwrap_or(Value::Null),
        None => Value::Null,
    }
}

/// EXPLAIN of a fixed set of statements over a fixed schema, compared with
/// `tests/snapshots/explain.txt`: a change of plan shows as a diff in review, without a data
/// node or MariaDB. `UPDATE_EXPECT=1 cargo test -p sql --lib explain` writes the file anew.
#[cfg(test)]
mod snapshot {
    use base::schema::{IndexDef, IndexKind};
    use base::types::ColumnType;
    use base::{ColumnDef, TableDef};
    use sqlparser::ast::{ObjectName, Statement};
    use sqlparser::parser::Parser;

    use crate::foundation::error::{Result, SqlError};
    use crate::parse::dialect::Cairn;
    use crate::plan::compiled::Compiled;
    use crate::plan::{PlanInput, TableRef};

    fn int(name: &str) -> ColumnDef {
        ColumnDef::new(name, ColumnType::Int { unsigned: false })
    }

    /// `name` with columns `cols` (the first is the primary key, with the ordered index
    /// CREATE TABLE gives it, `catalog::definition::PRIMARY`) and secondary indexes (name,
    /// kind, column positions).
    fn table(name: &str, cols: &[&str], indexes: &[(&str, IndexKind, &[u16])]) -> TableDef {
        let columns = cols.iter().map(|c| int(c)).collect();
        let mut def = TableDef::new(name, columns, &cols[..1]).expect("a valid definition");
        let primary = (
            crate::catalog::definition::PRIMARY,
            IndexKind::Ordered,
            &[0u16][..],
        );
        for (n, kind, columns) in std::iter::once(&primary).chain(indexes) {
            def.indexes.push(IndexDef::new(n, *kind, columns.to_vec()));
        }
        def.partition_count = 2;
        def
    }

    fn schema() -> Vec<TableDef> {
        use IndexKind::{Ordered, Unique};
        vec![
            table(
                "t",
                &["id", "u", "k", "v"],
                &[("u", Unique, &[1]), ("k", Ordered, &[2])],
            ),
            table("region", &["id", "name"], &[]),
            table(
                "customer",
                &["id", "region", "score"],
                &[("region", Ordered, &[1])],
            ),
            table(
                "orders",
                &["id", "cust", "day", "amount"],
                &[("cust", Ordered, &[1]), ("day", Ordered, &[2])],
            ),
            // No primary key declared: the hidden one, and no ordered index.
            TableDef::new("nokey", vec![int("a"), int("b")], &[]).expect("a valid definition"),
            TableDef::new(
                "phones",
                vec![
                    int("id"),
                    ColumnDef::new("ph", ColumnType::VarChar { length: 20 }),
                ],
                &["id"],
            )
            .expect("a valid definition"),
        ]
    }

    const STATEMENTS: &[&str] = &[
        "SELECT v FROM t WHERE id = 7",
        "SELECT v FROM t WHERE id IN (1, 2, 3)",
        "SELECT v FROM t WHERE u = 5",
        "SELECT v FROM t WHERE u = 5 AND v = 1",
        "SELECT v FROM t WHERE id = 7 AND id = 8",
        "SELECT v FROM t WHERE id BETWEEN 10 AND 20",
        "SELECT v FROM t WHERE k > 3 ORDER BY k LIMIT 10",
        "SELECT v FROM t WHERE k = 3 AND v < 100",
        "SELECT v FROM t WHERE v = 1",
        "SELECT v FROM t WHERE v + 1 = 2",
        "SELECT COUNT(*), SUM(v) FROM t",
        "SELECT k, COUNT(*) FROM t GROUP BY k",
        "SELECT DISTINCT v FROM t ORDER BY v DESC",
        "SELECT * FROM t WHERE id = 1 OR u = 2",
        "SELECT * FROM nokey WHERE a = 1",
        "SELECT id FROM phones WHERE SUBSTRING(ph FROM 1 FOR 2) IN ('13', '31') AND LEFT(ph, 1) = '%'",
        "SELECT o.id, c.score, r.name FROM orders o JOIN customer c ON c.id = o.cust \
         JOIN region r ON r.id = c.region WHERE o.id BETWEEN 1 AND 100",
        "SELECT o.amount FROM customer c JOIN orders o ON o.cust = c.id WHERE c.id = 4242",
        "SELECT o.amount FROM orders o JOIN customer c ON o.cust = c.id WHERE c.id = 4242",
        "SELECT o.amount FROM orders o STRAIGHT_JOIN customer c ON o.cust = c.id WHERE c.id = 4242",
        "SELECT c.id FROM customer c LEFT JOIN orders o ON o.cust = c.id WHERE o.id IS NULL",
        "SELECT r.name, o.id FROM region r, orders o, customer c \
         WHERE c.region = r.id AND o.cust = c.id AND r.id = 3",
        "SELECT o.id FROM orders o, customer c \
         WHERE (o.cust = c.id AND c.score > 5) OR (o.cust = c.id AND o.amount < 3)",
        "SELECT id FROM t WHERE id < 5 UNION SELECT v FROM t WHERE u = 2 EXCEPT SELECT k FROM t",
        "UPDATE t SET v = v + 1 WHERE id = 3",
        "UPDATE t SET v = 0 WHERE k BETWEEN 1 AND 5",
        "DELETE FROM t WHERE u = 9",
        "DELETE FROM t WHERE v > 10",
    ];

    /// Statements planned with statistics: 1,000 rows of `t`, 10 regions, 20,000 customers
    /// and 300,000 orders over 365 days.
    const ANALYZED: &[&str] = &[
        "SELECT v FROM t WHERE k = 3 AND v < 100",
        "SELECT v FROM t WHERE u > 5 AND k = 3",
        "SELECT o.amount FROM orders o JOIN customer c ON o.cust = c.id WHERE c.id = 4242",
        "SELECT r.name, o.id FROM orders o, customer c, region r \
         WHERE c.region = r.id AND o.cust = c.id AND r.name = 'north'",
        "SELECT c.id, o.id FROM orders o, customer c \
         WHERE o.cust = c.id AND o.day = 17 AND c.score > 90",
        "SELECT COUNT(*) FROM orders o, customer c, region r \
         WHERE o.cust = c.id AND c.region = r.id",
        "SELECT o.id, c.score, r.name FROM orders o JOIN customer c ON c.id = o.cust \
         JOIN region r ON r.id = c.region WHERE o.id BETWEEN 1 AND 100",
        // An extended key: KEY(region)'s entries end with the primary key.
        "SELECT id, score FROM customer WHERE region = 3 AND id < 600",
        "SELECT c.id, o.id FROM region r JOIN customer c ON c.region = r.id \
         JOIN orders o ON o.cust = c.id WHERE r.id = 3 AND c.id < 600",
        "SELECT id FROM orders WHERE cust = 42 AND id > 1000 ORDER BY id LIMIT 10",
    ];

    fn stats_of(def: &TableDef) -> client::TableStats {
        let (rows, keys): (u64, Vec<(&str, Vec<u64>)>) = match def.name.as_str() {
            "t" => (
                1_000,
                vec![
                    ("PRIMARY", vec![1_000]),
                    ("u", vec![1_000]),
                    ("k", vec![50]),
                ],
            ),
            "region" => (10, vec![("PRIMARY", vec![10])]),
            "customer" => (
                20_000,
                vec![("PRIMARY", vec![20_000]), ("region", vec![10])],
            ),
            "orders" => (
                300_000,
                vec![
                    ("PRIMARY", vec![300_000]),
                    ("cust", vec![20_000]),
                    ("day", vec![365]),
                ],
            ),
            _ => (100, Vec::new()),
        };
        client::TableStats {
            table_id: def.id,
            rows,
            keys: keys
                .into_iter()
                .map(|(n, counts)| (n.to_string(), counts))
                .collect(),
        }
    }

    fn plan(sql: &str, tables: &[TableDef]) -> Result<Compiled> {
        plan_with(sql, tables, false)
    }

    fn plan_with(sql: &str, tables: &[TableDef], analyzed: bool) -> Result<Compiled> {
        let statement = Parser::parse_sql(&Cairn, sql)
            .map_err(SqlError::parse)?
            .pop()
            .expect("one statement");
        let resolve = |name: &ObjectName| -> Result<(client::Table, TableRef)> {
            let wanted = name.to_string();
            let def = tables
                .iter()
                .find(|t| t.name == wanted)
                .ok_or_else(|| SqlError::new(1146, "42S02", format!("no table {wanted}")))?;
            let mut table = client::Table::virtual_table(def.clone());
            if analyzed {
                table = table.with_stats(std::sync::Arc::new(stats_of(def)));
            }
            Ok((table, ("test".into(), wanted.clone(), wanted)))
        };
        let placeholders = crate::plan::placeholders(sql)?;
        let input = PlanInput::new(sql, &placeholders);
        Ok(match &statement {
            Statement::Query(q) => match crate::plan::query(&input, q, &resolve)? {
                crate::plan::QueryPlan::Select(p) => Compiled::Select(p),
                crate::plan::QueryPlan::Set(p) => Compiled::Set(p),
            },
            Statement::Update(u) => Compiled::Update(crate::plan::update(&input, u, &resolve)?),
            Statement::Delete(d) => Compiled::Delete(crate::plan::delete(&input, d, &resolve)?),
            _ => Compiled::Other(Box::new(statement)),
        })
    }

    /// A key lookup that decides the WHERE fetches the columns only the WHERE reads last, so
    /// a read may leave them out; one that does not decide it fetches in table order.
    #[test]
    fn a_deciding_lookup_fetches_the_where_columns_last() {
        let tables = schema();
        let source = |sql: &str| match plan(sql, &tables) {
            Ok(Compiled::Select(p)) => p.source.expect("a source"),
            Ok(_) => panic!("{sql}: not a select"),
            Err(e) => panic!("{sql}: {}", e.message),
        };
        let s = source("SELECT v FROM t WHERE id = ?");
        assert_eq!((s.fetch, s.decided_fetch), (vec![3, 0], Some(1)));
        let s = source("SELECT v, u FROM t WHERE u IN (1, 2)");
        assert_eq!((s.fetch, s.decided_fetch), (vec![1, 3], Some(2)));
        // Nothing but the WHERE read: one column stays, as an empty list fetches them all.
        let s = source("SELECT COUNT(*) FROM t WHERE id = 1");
        assert_eq!((s.fetch, s.decided_fetch), (vec![0], Some(1)));
        for sql in [
            "SELECT v FROM t WHERE id = ? AND v = 1",
            "SELECT v FROM t WHERE id = 1 AND id = 2",
            "SELECT v FROM t WHERE id = 1 + ?",
            "SELECT v FROM t WHERE k = 1",
        ] {
            let s = source(sql);
            assert_eq!(s.decided_fetch, None, "{sql}");
            assert!(s.fetch.is_sorted(), "{sql}: {:?}", s.fetch);
        }
    }

    #[test]
    fn explain_output_matches_its_snapshot() {
        let tables = schema();
        let mut out = String::new();
        let unanalyzed = STATEMENTS.iter().map(|s| (*s, false));
        let analyzed = ANALYZED.iter().map(|s| (*s, true));
        for (sql, stats) in unanalyzed.chain(analyzed) {
            let with = if stats { " -- analyzed" } else { "" };
            out.push_str(&format!("EXPLAIN {sql}{with}\n"));
            match plan_with(sql, &tables, stats) {
                Ok(c) => {
                    let (_, rows) = super::explain(&c);
                    for row in rows {
                        let cells: Vec<String> = row
                            .iter()
                            .map(|v| match v {
                                base::Value::Null => "NULL".to_string(),
                                v => v.to_string(),
                            })
                            .collect();
                        out.push_str(&format!("  {}\n", cells.join(" | ")));
                    }
                }
                Err(e) => out.push_str(&format!("  error {}: {}\n", e.code, e.message)),
            }
            out.push('\n');
        }
        expect_test::expect_file!["../../tests/snapshots/explain.txt"].assert_eq(&out);
    }
}
