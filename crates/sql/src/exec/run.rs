//! The executor: runs plans against the data node. It turns a plan's keys, bounds and pushed
//! conditions into values of the columns' types (falling back to a wider access when a value
//! cannot be one), fetches rows (keyed reads batched in one round trip, or a scan), applies the
//! WHERE (a derived table's rows are its query's, `plan/derived.rs`), then groups, orders,
//! deduplicates and limits in the API node; and writes with
//! INSERT (with IGNORE, REPLACE, ON DUPLICATE KEY UPDATE, SET or SELECT), UPDATE and DELETE
//! inside the session's transaction.

use std::cmp::Ordering;

use base::schema::ColumnDef;
use base::types::Collation;
use base::Value;
use client::{ExecType, Filter, LockMode, Scan, ScanOrder, Transaction};

use crate::exec::diagnostics::Storing;
use crate::exec::step::Stepping;
use crate::exec::Joining;
use crate::exec::Outcome;
use crate::exec::{Exec, Materializing, SetOperations, Subqueries};
use crate::expr::aggregate::count_value;
use crate::expr::aggregate::order_values;
use crate::expr::aggregate::{group_key, Accumulator};
use crate::expr::stored::store;
use crate::expr::{compare, truthy, Env, Expr};
use crate::foundation::error::Result;
use crate::foundation::error::SqlError;
use crate::plan::aggregate::PushedAggregate;
use crate::plan::{pushable, Access, OrderKey, Pushed, QueryPlan, SelectPlan, Source};

/// Puts a fetched row (`fetch[i]` holds table column i) in its place in a joined row.
pub(crate) fn place(
    joined: &mut [Value],
    offset: usize,
    fetch: &[u16],
    row: impl IntoIterator<Item = Value>,
) {
    for (c, v) in fetch.iter().zip(row) {
        if let Some(slot) = joined.get_mut(offset + *c as usize) {
            *slot = v;
        }
    }
}

/// The groups of one prefix length of WITH ROLLUP's keys: by key, the group's first row and
/// accumulators.
#[derive(Default)]
struct Level {
    index: hashbrown::HashMap<Vec<u8>, usize>,
    groups: Vec<(Vec<Value>, Vec<Accumulator>)>,
}

/// What a source needs from the data node for one execution.
pub(crate) enum Fetch {
    /// No row can match.
    Nothing,
    /// Keyed reads: by primary key, or through unique index `unique`. `decided`: the keys
    /// decide the WHERE (`Source::decided_fetch`, every key value of its column's kind), so the
    /// rows found need no re-check and the columns only it reads need not be fetched.
    Keys {
        unique: Option<u16>,
        keys: Vec<Vec<Value>>,
        decided: bool,
    },
    /// One scan (ordered-index range or whole table) with its pushed filter, and whether that
    /// filter decides the whole WHERE (`Source::pushed_decides`, every value converted exactly).
    Scan(Box<Scan>, bool),
}

/// How a plan's access resolved for one execution's parameters.
pub(crate) enum Resolved {
    /// The keys, and whether each value was of its column's kind (an integer for an integer
    /// column, a string for a string column), so the key compares as the WHERE does.
    Keys(Vec<Vec<Value>>, bool),
    Range {
        lower: Option<Vec<Value>>,
        upper: Option<Vec<Value>>,
    },
    Full,
    /// No row can match (a NULL or impossible key).
    Empty,
}

/// A key value for `column`: Ok(Some) exact, Ok(None) no row can equal it, Err(()) the index
/// cannot be used (a comparison MySQL makes as numbers on a string column, or no conversion).
pub(crate) fn key_value(column: &ColumnDef, v: Value) -> std::result::Result<Option<Value>, ()> {
    if v.is_null() {
        return Ok(None);
    }
    if column.ty.is_string() != matches!(v, Value::Bytes(_)) && column.ty.is_string() {
        return Err(());
    }
    let stored = store(column, v.clone()).map_err(|_| ())?;
    if compare(&stored, &v) == Some(Ordering::Equal) {
        Ok(Some(stored))
    } else {
        Ok(None)
    }
}

/// Whether `v` is of `column`'s kind as a key compares it: an integer for an integer column,
/// a string for a string column (NULL is of no kind).
pub(crate) fn of_column_kind(column: &ColumnDef, v: &Value) -> bool {
    match v {
        Value::Int(_) | Value::UInt(_) => column.ty.is_integer(),
        Value::Bytes(_) => column.ty.is_string(),
        _ => false,
    }
}

/// A bound value for `column` (rounded conversions still bound a superset); None drops it.
pub(crate) fn bound_value(column: &ColumnDef, v: Value) -> Option<Value> {
    if column.ty.is_string() && !matches!(v, Value::Bytes(_)) {
        return None;
    }
    store(column, v).ok()
}

/// Where each order key's value sits in an output row (items, values of the order keys that
/// are not items): in the items (true) or among the other values, at that index.
fn order_slots(order: &[(OrderKey, bool, Collation)]) -> Vec<(bool, usize)> {
    let mut exprs = 0;
    order
        .iter()
        .map(|(k, ..)| match k {
            OrderKey::Item(i) => (true, *i),
            OrderKey::Expr(_) => {
                exprs += 1;
                (false, exprs - 1)
            }
        })
        .collect()
}

fn slot_value(row: &(Vec<Value>, Vec<Value>), (item, i): (bool, usize)) -> Option<&Value> {
    if item {
        row.0.get(i)
    } else {
        row.1.get(i)
    }
}

/// The order of `rows` (items, values of the order keys that are not items) under `order`, as
/// indices, stable. Sorting indices moves 4 bytes per swap instead of a row's two vectors, and
/// a string first key is compared by its sort key's first eight bytes, weighed once per row,
/// before whole values are compared.
fn sorted_order(
    rows: &[(Vec<Value>, Vec<Value>)],
    order: &[(OrderKey, bool, Collation)],
) -> Vec<u32> {
    let mut index: Vec<u32> = (0..rows.len() as u32).collect();
    let (Some(&(_, first_desc, first_collation)), true) = (order.first(), rows.len() > 1) else {
        return index;
    };
    let slots = order_slots(order);
    let prefixes: Vec<Option<u64>> = rows
        .iter()
        .map(|row| match slot_value(row, slots[0]) {
            Some(Value::Bytes(b)) => base::collation::sort_key_prefix(b, first_collation),
            _ => None,
        })
        .collect();
    index.sort_by(|&a, &b| {
        if let (Some(x), Some(y)) = (prefixes[a as usize], prefixes[b as usize]) {
            if x != y {
                return if first_desc { y.cmp(&x) } else { x.cmp(&y) };
            }
        }
        let (a, b) = (&rows[a as usize], &rows[b as usize]);
        for (slot, (_, desc, collation)) in slots.iter().zip(order) {
            let (Some(x), Some(y)) = (slot_value(a, *slot), slot_value(b, *slot)) else {
                continue;
            };
            let o = order_values(x, y, *desc, *collation);
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    });
    index
}

pub(crate) trait Executor: Exec {
    fn env<'a>(&'a self, row: &'a [Value], params: &'a [Value], aggs: &'a [Value]) -> Env<'a> {
        Env {
            row,
            params,
            aggs,
            ctx: self,
        }
    }

    fn free(&self, e: &Expr, params: &[Value]) -> Result<Value> {
        e.eval(&self.env(&[], params, &[]))
    }

    fn resolve(&self, src: &Source, params: &[Value]) -> Result<Resolved> {
        let def = src.table.def();
        match &src.access {
            Access::Lookup { unique, keys } => {
                let columns = crate::plan::key_columns(def, unique.as_ref().map(|u| u.0));
                let mut out: Vec<Vec<Value>> = Vec::with_capacity(keys.len());
                let mut own_kind = true;
                let mut seen = hashbrown::HashSet::new();
                'keys: for key in keys {
                    let mut values = Vec::with_capacity(key.len());
                    for (e, c) in key.iter().zip(columns) {
                        let column = &def.columns[*c as usize];
                        let v = self.free(e, params)?;
                        own_kind &= of_column_kind(column, &v);
                        match key_value(column, v) {
                            Ok(Some(v)) => values.push(v),
                            Ok(None) => continue 'keys,
                            Err(()) => return Ok(Resolved::Full),
                        }
                    }
                    // IN (3, 3) reads row 3 once, and so does IN ('a', 'A ') where the key's
                    // collation makes the two one key (compared as the data node keys them).
                    if keys.len() > 1 {
                        let mut encoded = Vec::new();
                        def.encode_key(columns, &values, &mut encoded);
                        if !seen.insert(encoded) {
                            continue;
                        }
                    }
                    out.push(values);
                }
                Ok(if out.is_empty() {
                    Resolved::Empty
                } else {
                    Resolved::Keys(out, own_kind)
                })
            }
            Access::Range {
                columns,
                equal,
                lower,
                upper,
                ..
            } => {
                let mut prefix = Vec::with_capacity(equal.len());
                for (e, c) in equal.iter().zip(columns) {
                    match key_value(&def.columns[*c as usize], self.free(e, params)?) {
                        Ok(Some(v)) => prefix.push(v),
                        Ok(None) => return Ok(Resolved::Empty),
                        Err(()) => return Ok(Resolved::Full),
                    }
                }
                let next = columns.get(equal.len()).map(|c| &def.columns[*c as usize]);
                let bound = |e: &Option<Expr>| -> Result<Option<Option<Value>>> {
                    match (e, next) {
                        (Some(e), Some(column)) => {
                            let v = self.free(e, params)?;
                            if v.is_null() {
                                return Ok(None);
                            }
                            Ok(Some(bound_value(column, v)))
                        }
                        _ => Ok(Some(None)),
                    }
                };
                let (Some(lo), Some(hi)) = (bound(lower)?, bound(upper)?) else {
                    return Ok(Resolved::Empty);
                };
                let with = |b: Option<Value>| -> Option<Vec<Value>> {
                    match b {
                        Some(v) => {
                            let mut k = prefix.clone();
                            k.push(v);
                            Some(k)
                        }
                        None if prefix.is_empty() => None,
                        None => Some(prefix.clone()),
                    }
                };
                Ok(Resolved::Range {
                    lower: with(lo),
                    upper: with(hi),
                })
            }
            Access::Full => Ok(Resolved::Full),
        }
    }

    /// The pushed conditions whose values convert exactly to their columns' types, and whether
    /// that is all of them.
    fn pushed_filter(&self, src: &Source, params: &[Value]) -> Result<(Option<Filter>, bool)> {
        let mut parts = Vec::new();
        for p in &src.pushed {
            parts.extend(self.pushed_one(src, p, params)?);
        }
        let all = parts.len() == src.pushed.len();
        Ok((
            match parts.len() {
                0 => None,
                1 => parts.pop(),
                _ => Some(Filter::And(parts)),
            },
            all,
        ))
    }

    /// One pushed condition as the data node's filter, None when a value does not convert
    /// exactly to its column's type (or an OR branch keeps nothing).
    fn pushed_one(&self, src: &Source, p: &Pushed, params: &[Value]) -> Result<Option<Filter>> {
        let def = src.table.def();
        let exact = |c: u16, e: &Expr| -> Result<Option<Value>> {
            let column = &def.columns[c as usize];
            if !pushable(column.ty) {
                return Ok(None);
            }
            Ok(key_value(column, self.free(e, params)?).ok().flatten())
        };
        Ok({
            match p {
                Pushed::Cmp(c, op, e) => exact(*c, e)?.map(|value| Filter::Cmp {
                    column: *c,
                    op: *op,
                    value,
                }),
                Pushed::Between(c, lo, hi) => match (exact(*c, lo)?, exact(*c, hi)?) {
                    (Some(low), Some(high)) => Some(Filter::Between {
                        column: *c,
                        low,
                        high,
                    }),
                    _ => None,
                },
                Pushed::In(c, list) => {
                    let mut values = Vec::with_capacity(list.len());
                    for e in list {
                        match exact(*c, e)? {
                            Some(v) => values.push(v),
                            None => {
                                values.clear();
                                break;
                            }
                        }
                    }
                    (!values.is_empty() && values.len() <= base::limits::FILTER_IN_VALUES_MAX)
                        .then_some(Filter::In { column: *c, values })
                }
                Pushed::Like(c, e) => {
                    let column = &def.columns[*c as usize];
                    match self.free(e, params)? {
                        Value::Bytes(pattern) if column.ty.is_string() && pushable(column.ty) => {
                            Some(Filter::Like {
                                column: *c,
                                pattern,
                            })
                        }
                        _ => None,
                    }
                }
                Pushed::Prefixes {
                    column,
                    start,
                    length,
                    values,
                } => {
                    let whole = |v: Value| match v {
                        Value::Int(i) => u64::try_from(i).ok(),
                        Value::UInt(u) => Some(u),
                        _ => None,
                    };
                    let start = whole(self.free(start, params)?);
                    let n = match (start, whole(self.free(length, params)?)) {
                        (Some(1), Some(n)) if (1..=PREFIX_CHARS_MAX).contains(&n) => n as usize,
                        _ => return Ok(None),
                    };
                    let mut any = Vec::with_capacity(values.len());
                    for v in values {
                        match self.free(v, params)? {
                            Value::Bytes(mut b)
                                if b.len() == n && crate::plan::prefix_literal(&b) =>
                            {
                                b.push(b'%');
                                any.push(Filter::Like {
                                    column: *column,
                                    pattern: b,
                                });
                            }
                            _ => return Ok(None),
                        }
                    }
                    Some(match any.len() {
                        1 => any.swap_remove(0),
                        _ => Filter::Or(any),
                    })
                }
                Pushed::IsNull(c, negated) => Some(if *negated {
                    Filter::IsNotNull { column: *c }
                } else {
                    Filter::IsNull { column: *c }
                }),
                Pushed::Any(branches) => {
                    let mut any = Vec::with_capacity(branches.len());
                    for branch in branches {
                        let mut all = Vec::with_capacity(branch.len());
                        for c in branch {
                            all.extend(self.pushed_one(src, c, params)?);
                        }
                        // A branch that keeps nothing narrows nothing: neither does the OR.
                        match all.len() {
                            0 => return Ok(None),
                            1 => any.extend(all.pop()),
                            _ => any.push(Filter::And(all)),
                        }
                    }
                    Some(Filter::Or(any))
                }
            }
        })
    }

    /// What `src` asks of the data node for these parameters: keyed reads or one scan.
    fn fetch_request(&self, src: &Source, params: &[Value]) -> Result<Fetch> {
        Ok(match self.resolve(src, params)? {
            Resolved::Empty => Fetch::Nothing,
            Resolved::Keys(keys, own_kind) => Fetch::Keys {
                unique: match &src.access {
                    Access::Lookup { unique, .. } => unique.as_ref().map(|u| u.0),
                    _ => None,
                },
                keys,
                decided: own_kind && src.decided_fetch.is_some(),
            },
            resolved => {
                let names = src.fetch_names();
                let mut scan = match (&resolved, &src.access) {
                    (Resolved::Range { lower, upper }, Access::Range { index, .. }) => {
                        let mut s = Scan::index(index);
                        if let Some(l) = lower {
                            s = s.from(l.clone(), true);
                        }
                        if let Some(u) = upper {
                            s = s.to(u.clone(), true);
                        }
                        s
                    }
                    _ => Scan::table(),
                };
                scan = scan.columns(&names).order(ScanOrder::Any);
                let (filter, all) = self.pushed_filter(src, params)?;
                if let Some(f) = filter {
                    scan = scan.filter(f);
                }
                Fetch::Scan(Box::new(scan), all && src.pushed_decides)
            }
        })
    }

    /// The rows of `src` that satisfy its WHERE, as fetched rows. Keyed reads run in `txn`
    /// with `exec`; scans read committed rows and `txn`'s own changes and, when the source
    /// locks, are read again by primary key in `txn` with the lock.
    fn fetch(
        &mut self,
        txn: &mut Transaction,
        exec: ExecType,
        src: &Source,
        params: &[Value],
    ) -> Result<Vec<Vec<Value>>> {
        // A KILL QUERY stops a statement between the tables and batches it reads.
        self.check_killed()?;
        if let Some(d) = &src.derived {
            // A derived table: its query's rows, made in the API node.
            let rows = self.derived_rows(txn, exec, d, params)?;
            let rows = crate::plan::derived::fetched(rows, &src.fetch);
            return self.matching_in(txn, src, params, rows);
        }
        if crate::plan::virtual_of(src).is_some() {
            // information_schema: rows made from the catalog, never sent to the data node.
            let rows = self.schema_rows(src)?;
            return self.matching_in(txn, src, params, rows);
        }
        // Correlated EXISTS the data node answers with the rows (pushed semi-joins).
        if let Some(rows) = crate::exec::semijoin::semi_pushed(self, txn, src, params)? {
            return Ok(rows);
        }
        let request = self.key_request(src, params)?;
        let decided = request.decided(src);
        let rows = self.read_fetch(txn, exec, src, request, false)?;
        if decided {
            return Ok(rows);
        }
        self.matching_in(txn, src, params, rows)
    }

    /// The rows `request`'s reads find in `txn` (the last batch with `exec`); a locking scan's
    /// rows are read again by key under their locks. `trim`: the caller takes the rows of
    /// decided keys without the columns only the WHERE reads (`Fetch::columns`).
    fn read_fetch(
        &mut self,
        txn: &mut Transaction,
        exec: ExecType,
        src: &Source,
        request: Fetch,
        trim: bool,
    ) -> Result<Vec<Vec<Value>>> {
        let columns = if trim {
            request.columns(src)
        } else {
            &src.fetch
        };
        let table = &src.table;
        let client = |e: client::ClientError| SqlError::from_client(&e);
        Ok(match request {
            Fetch::Nothing => Vec::new(),
            Fetch::Keys { unique, keys, .. } => {
                self.read_keys(txn, exec, unique, keys, src, columns)?
            }
            Fetch::Scan(scan, _) => {
                let rows = txn.scan(table, &scan).map_err(client)?;
                if src.lock == LockMode::CommittedRead {
                    rows
                } else {
                    // Lock what the scan found, reading each row again under the lock.
                    let pk: Vec<usize> = table
                        .def()
                        .primary_key
                        .iter()
                        .map(|c| src.fetch.iter().position(|f| f == c).unwrap_or(0))
                        .collect();
                    let keys = rows
                        .iter()
                        .map(|r| pk.iter().map(|p| r[*p].clone()).collect())
                        .collect();
                    self.read_keys(txn, ExecType::NoCommit, None, keys, src, columns)?
                }
            }
        })
    }

    /// [`Self::matching`], once the correlated subqueries its WHERE holds ran for `rows`.
    fn matching_in(
        &mut self,
        txn: &mut Transaction,
        src: &Source,
        params: &[Value],
        rows: Vec<Vec<Value>>,
    ) -> Result<Vec<Vec<Value>>> {
        // The conditions without a correlated subquery first, so the subqueries run only for
        // the rows those keep (not where evaluating them twice could warn twice).
        let rows = match &src.filter {
            Some(f) if f.has_correlated() => {
                let mut parts = Vec::new();
                crate::plan::conjuncts(f, &mut parts);
                parts.retain(|p| !p.has_correlated());
                let plain = parts
                    .into_iter()
                    .reduce(|a, b| Expr::Binary(crate::expr::BinOp::And, Box::new(a), Box::new(b)));
                match plain {
                    Some(p) if !crate::exec::diagnostics::divides(&p) => {
                        self.filtered(Some(&p), params, rows)?
                    }
                    _ => rows,
                }
            }
            _ => rows,
        };
        self.run_correlated(txn, &src.filter, &rows, params)?;
        self.matching(src, params, rows)
    }

    /// The fetched rows that satisfy the source's whole WHERE (re-checked in the API node).
    fn matching(
        &self,
        src: &Source,
        params: &[Value],
        rows: Vec<Vec<Value>>,
    ) -> Result<Vec<Vec<Value>>> {
        // Where a division by zero fails the statement, one MariaDB works out while optimizing
        // only warns: in a condition reading no row, or in the value a key is compared with.
        if let Some(f) = src.filter.as_ref().filter(|f| {
            !rows.is_empty()
                && self.diagnostics.storing == Storing::Strict
                && crate::exec::diagnostics::divides(f)
        }) {
            let folded = crate::exec::diagnostics::fold_optimized(self, src, f, params)?;
            return self.filtered(Some(&folded), params, rows);
        }
        self.filtered(src.filter.as_ref(), params, rows)
    }

    /// The rows for which `filter` (if any) is true.
    fn filtered(
        &self,
        filter: Option<&Expr>,
        params: &[Value],
        rows: Vec<Vec<Value>>,
    ) -> Result<Vec<Vec<Value>>> {
        let Some(filter) = filter.filter(|_| !rows.is_empty()) else {
            return Ok(rows);
        };
        let mut kept = Vec::with_capacity(rows.len());
        for row in rows {
            if truthy(&filter.eval(&self.env(&row, params, &[]))?) {
                kept.push(row);
            }
        }
        Ok(kept)
    }

    /// The rows `keys` find in `src`'s table (its lock), of `columns`.
    fn read_keys(
        &mut self,
        txn: &mut Transaction,
        exec: ExecType,
        unique: Option<u16>,
        keys: Vec<Vec<Value>>,
        src: &Source,
        columns: &[u16],
    ) -> Result<Vec<Vec<Value>>> {
        let rows = self.read_each(txn, exec, unique, &keys, src, columns)?;
        Ok(rows.into_iter().flatten().collect())
    }

    /// Reads each key of `src`'s table (batches of the data node's size), returning the row
    /// found for each, of `columns`.
    fn read_each(
        &mut self,
        txn: &mut Transaction,
        exec: ExecType,
        unique: Option<u16>,
        keys: &[Vec<Value>],
        src: &Source,
        columns: &[u16],
    ) -> Result<Vec<Option<Vec<Value>>>> {
        let table = &src.table;
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let mut ops = Vec::with_capacity(keys.len());
        for chunk in keys.chunks(base::limits::BATCH_OPERATIONS_MAX) {
            for key in chunk {
                ops.push(match unique {
                    None => txn.read_with(table, key.clone(), src.lock, columns.to_vec()),
                    Some(i) => txn.read_unique(table, i, key.clone(), src.lock, columns.to_vec()),
                });
            }
            let this = if ops.len() == keys.len() {
                exec
            } else {
                ExecType::NoCommit
            };
            txn.execute(this).map_err(|e| SqlError::from_client(&e))?;
        }
        Ok(ops
            .into_iter()
            .map(|op| txn.row(op).map(<[Value]>::to_vec))
            .collect())
    }

    fn run_select(&mut self, p: &SelectPlan, params: &[Value]) -> Result<Outcome> {
        if crate::exec::step::one_step(p) && self.correlated.is_empty() {
            // A KILL QUERY stops a statement before it reads.
            self.check_killed()?;
            return self.run_step(p, params);
        }
        let rows = match &p.source {
            None => vec![Vec::new()],
            // Correlated subqueries of the items, HAVING or ORDER BY run for the rows found,
            // in the statement's transaction, still open for them.
            Some(_) if !self.correlated.is_empty() => {
                self.transactional(|s, txn, _| s.correlated_source_rows(txn, p, params))?
            }
            Some(_) => self.transactional(|s, txn, last| s.source_rows(txn, last, p, params))?,
        };
        self.select_rows(p, params, rows)
    }

    /// Runs a query: a SELECT or a set operation.
    fn run_query(&mut self, p: &QueryPlan, params: &[Value]) -> Result<Outcome> {
        match p {
            QueryPlan::Select(p) => self.run_select(p, params),
            QueryPlan::Set(p) => self.run_set(p, params),
        }
    }

    /// The rows a SELECT's FROM clause gives, joined and filtered by its WHERE: its reads in
    /// `txn`, the last with `last`.
    fn source_rows(
        &mut self,
        txn: &mut Transaction,
        last: ExecType,
        p: &SelectPlan,
        params: &[Value],
    ) -> Result<Vec<Vec<Value>>> {
        match (&p.source, &p.joined) {
            (None, _) => Ok(vec![Vec::new()]),
            (Some(src), None) => self.fetch(txn, last, src, params),
            (Some(src), Some(j)) => self.join(txn, last, src, j, params),
        }
    }

    /// A SELECT's result from its source's matching rows: grouping, aggregates, HAVING, the
    /// select list, DISTINCT, ORDER BY and LIMIT.
    fn select_rows(
        &mut self,
        p: &SelectPlan,
        params: &[Value],
        rows: Vec<Vec<Value>>,
    ) -> Result<Outcome> {
        self.select_rows_from(p, params, rows, None)
    }

    /// The result of `p` from its fetched rows, or from the group rows a data node answered
    /// for `pushed` (group values, then partial aggregates), merged group by group.
    fn select_rows_from(
        &mut self,
        p: &SelectPlan,
        params: &[Value],
        rows: Vec<Vec<Value>>,
        pushed: Option<&PushedAggregate>,
    ) -> Result<Outcome> {
        let limit = p
            .limit
            .as_ref()
            .map(|e| self.free(e, params).and_then(count_value))
            .transpose()?;
        let offset = p
            .offset
            .as_ref()
            .map(|e| self.free(e, params).and_then(count_value))
            .transpose()?
            .unwrap_or(0);
        // (items, values of the order keys that are not items) per output row.
        let mut out: Vec<(Vec<Value>, Vec<Value>)> = Vec::new();
        let windowed = p.windowed();
        // Window functions' rows wait for their values (`exec/window.rs`).
        let mut pending: Vec<crate::exec::window::Pending> = Vec::new();
        let early_stop = p.order.is_empty() && !p.distinct && !windowed;
        let order_exprs = || {
            p.order.iter().filter_map(|(k, ..)| match k {
                OrderKey::Expr(e) => Some(e),
                OrderKey::Item(_) => None,
            })
        };
        // A row's items and the values of its order keys that are not items.
        let output_row = |env: &Env| -> Result<(Vec<Value>, Vec<Value>)> {
            let items = p.items.iter().map(|e| e.eval(env)).collect::<Result<_>>()?;
            let keys = order_exprs().map(|e| e.eval(env)).collect::<Result<_>>()?;
            Ok((items, keys))
        };
        let emit = |s: &Self,
                    row: &[Value],
                    aggs: &[Value],
                    out: &mut Vec<(Vec<Value>, Vec<Value>)>|
         -> Result<()> {
            let env = s.env(row, params, aggs);
            if let Some(h) = &p.having {
                if !truthy(&h.eval(&env)?) {
                    return Ok(());
                }
            }
            out.push(output_row(&env)?);
            Ok(())
        };
        if !p.grouped {
            // Items that are plain columns move out of the fetched row instead of being copied,
            // and the items go back into the row's allocation (through `scratch`).
            let mut scratch: Vec<Value> = Vec::with_capacity(p.items.len());
            for mut row in rows {
                let env = self.env(&row, params, &[]);
                if let Some(h) = &p.having {
                    if !truthy(&h.eval(&env)?) {
                        continue;
                    }
                }
                if windowed {
                    pending.push((row, vec![Value::Null; p.aggregates.len()]));
                    continue;
                }
                let items = &mut scratch;
                for e in &p.items {
                    items.push(match e {
                        Expr::Column(_) => Value::Null,
                        e => e.eval(&env)?,
                    });
                }
                let keys = order_exprs().map(|e| e.eval(&env)).collect::<Result<_>>()?;
                for (i, e) in p.items.iter().enumerate() {
                    if let Expr::Column(c) = e {
                        let earlier = p.items[..i].iter().position(|x| x == e);
                        items[i] = match earlier {
                            Some(j) => items[j].clone(),
                            None => row
                                .get_mut(*c)
                                .map(|v| std::mem::replace(v, Value::Null))
                                .unwrap_or(Value::Null),
                        };
                    }
                }
                row.clear();
                row.append(items);
                out.push((row, keys));
                if early_stop && limit.is_some_and(|l| out.len() as u64 >= offset.saturating_add(l))
                {
                    break;
                }
            }
        } else {
            let mut index: hashbrown::HashMap<Vec<u8>, usize> = if p.group_by.is_empty() {
                hashbrown::HashMap::new()
            } else {
                hashbrown::HashMap::with_capacity(rows.len().min(1 << 16))
            };
            let mut groups: Vec<(Vec<Value>, Vec<Accumulator>)> = Vec::new();
            let max_len = self.group_concat_max_len();
            // WITH ROLLUP: each group's key values, and the groups of each shorter prefix of
            // them (by its length), each with its first row and its own accumulators.
            let mut group_keys: Vec<Vec<Value>> = Vec::new();
            let mut levels: Vec<Level> = if p.rollup {
                (0..p.group_by.len()).map(|_| Level::default()).collect()
            } else {
                Vec::new()
            };
            let width = p.source.as_ref().map_or(0, |s| s.fetch.len());
            let fold = |accs: &mut [Accumulator], env: &Env, n: u64, partials: &[Value]| {
                for (i, (acc, agg)) in accs.iter_mut().zip(&p.aggregates).enumerate() {
                    match pushed.and_then(|pa| pa.slots.get(i)) {
                        Some(slot) => {
                            let at = |s: Option<usize>| s.and_then(|s| partials.get(s));
                            acc.merge(agg, at(slot.count), at(slot.sum), at(slot.best))?;
                        }
                        None => acc.add(agg, env, n, max_len)?,
                    }
                }
                Ok::<(), SqlError>(())
            };
            for (n, row) in rows.into_iter().enumerate() {
                let n = n as u64 + 1;
                // A group row answered by the data node: its group values where the fetched
                // row has their columns, its partials beside.
                let (row, partials) = match pushed {
                    Some(pa) => {
                        let mut fetched = vec![Value::Null; width];
                        for (v, at) in row.iter().zip(&pa.group) {
                            if let Some(slot) = fetched.get_mut(*at) {
                                *slot = v.clone();
                            }
                        }
                        (fetched, row)
                    }
                    None => (row, Vec::new()),
                };
                let env = self.env(&row, params, &[]);
                if p.group_by.is_empty() {
                    // One group: no key to hash (comparing empty keys is not free either; glibc's
                    // memcmp does a masked load from the empty Vec's dangling pointer).
                    if groups.is_empty() {
                        groups.push((
                            row.clone(),
                            p.aggregates.iter().map(Accumulator::new).collect(),
                        ));
                    }
                    fold(&mut groups[0].1, &env, n, &partials)?;
                    continue;
                }
                let key_values: Vec<Value> = p
                    .group_by
                    .iter()
                    .map(|e| e.eval(&env))
                    .collect::<Result<_>>()?;
                let key = group_key(&key_values, &p.group_collations);
                let (g, new) = match index.get(&key) {
                    Some(g) => (*g, false),
                    None => {
                        index.insert(key, groups.len());
                        groups.push((
                            Vec::new(),
                            p.aggregates.iter().map(Accumulator::new).collect(),
                        ));
                        (groups.len() - 1, true)
                    }
                };
                fold(&mut groups[g].1, &env, n, &partials)?;
                if p.rollup {
                    for (len, level) in levels.iter_mut().enumerate() {
                        let key = group_key(&key_values[..len], &p.group_collations[..len]);
                        let at = match level.index.get(&key) {
                            Some(at) => *at,
                            None => {
                                level.index.insert(key, level.groups.len());
                                level.groups.push((
                                    row.clone(),
                                    p.aggregates.iter().map(Accumulator::new).collect(),
                                ));
                                level.groups.len() - 1
                            }
                        };
                        for (acc, agg) in level.groups[at].1.iter_mut().zip(&p.aggregates) {
                            acc.add(agg, &env, n, max_len)?;
                        }
                    }
                    if new {
                        group_keys.push(key_values);
                    }
                }
                if new {
                    // A group's first row is kept for its non-aggregate items, moved, not copied.
                    groups[g].0 = row;
                }
            }
            if groups.is_empty() && p.group_by.is_empty() {
                groups.push((
                    Vec::new(),
                    p.aggregates.iter().map(Accumulator::new).collect(),
                ));
            }
            let finish = |s: &mut Self, accs: &[Accumulator]| -> Result<Vec<Value>> {
                for row in accs.iter().filter_map(Accumulator::cut_at) {
                    let m = format!("Row {row} was cut by GROUP_CONCAT()");
                    s.diagnostics.warn(1260, m);
                }
                accs.iter()
                    .zip(&p.aggregates)
                    .map(|(a, agg)| a.finish(agg, max_len))
                    .collect()
            };
            if windowed {
                for (first, accs) in std::mem::take(&mut groups) {
                    let aggs = finish(self, &accs)?;
                    let passes = match &p.having {
                        Some(h) => truthy(&h.eval(&self.env(&first, params, &aggs))?),
                        None => true,
                    };
                    if passes {
                        pending.push((first, aggs));
                    }
                }
            } else if !p.rollup {
                for (first, accs) in &groups {
                    let aggs = finish(self, accs)?;
                    emit(self, first, &aggs, &mut out)?;
                }
            } else {
                // The groups in their keys' order, each followed by the prefixes ending with it:
                // those its next group does not share, longest first.
                let keys = p.group_by.len();
                let mut sorted: Vec<usize> = (0..groups.len()).collect();
                sorted.sort_by(|&a, &b| {
                    group_keys[a]
                        .iter()
                        .zip(&group_keys[b])
                        .zip(&p.group_collations)
                        .map(|((x, y), c)| order_values(x, y, false, *c))
                        .find(|o| *o != Ordering::Equal)
                        .unwrap_or(Ordering::Equal)
                });
                for (i, &g) in sorted.iter().enumerate() {
                    let aggs = finish(self, &groups[g].1)?;
                    emit(self, &groups[g].0, &aggs, &mut out)?;
                    let mine = &group_keys[g];
                    let shortest = match sorted.get(i + 1) {
                        Some(&next) => (0..keys)
                            .find(|&k| {
                                let c = &p.group_collations[k..=k];
                                group_key(&mine[k..=k], c) != group_key(&group_keys[next][k..=k], c)
                            })
                            .map_or(keys, |k| k + 1),
                        None => 0,
                    };
                    for len in (shortest..keys).rev() {
                        let level = &levels[len];
                        let key = group_key(&mine[..len], &p.group_collations[..len]);
                        let Some((first, accs)) =
                            level.index.get(&key).map(|at| &level.groups[*at])
                        else {
                            continue;
                        };
                        // The keys past the prefix are NULL, and so are the items they are.
                        let mut row = first.clone();
                        for e in &p.group_by[len..] {
                            if let Some(v) = match e {
                                Expr::Column(c) => row.get_mut(*c),
                                _ => None,
                            } {
                                *v = Value::Null;
                            }
                        }
                        let aggs = finish(self, accs)?;
                        let before = out.len();
                        emit(self, &row, &aggs, &mut out)?;
                        if let Some((items, _)) = out.get_mut(before..).and_then(|o| o.first_mut())
                        {
                            for (item, e) in items.iter_mut().zip(&p.items) {
                                if p.group_by[len..].contains(e) {
                                    *item = Value::Null;
                                }
                            }
                        }
                    }
                }
            }
        }
        if windowed {
            let max_len = self.group_concat_max_len();
            let ctx: &dyn crate::expr::Context = self;
            let order =
                crate::exec::window::compute(ctx, params, &p.aggregates, &mut pending, max_len)?;
            out.reserve(pending.len());
            for r in order {
                let (row, aggs) = &pending[r];
                out.push(output_row(&self.env(row, params, aggs))?);
            }
        }
        if p.distinct {
            let mut seen = hashbrown::HashSet::with_capacity(out.len().min(1 << 16));
            let collations = crate::expr::meta::collations(&p.columns);
            out.retain(|(items, _)| seen.insert(group_key(items, &collations)));
        }
        self.last_found_rows = out.len() as u64;
        let take = limit.map_or(usize::MAX, |l| l as usize);
        let rows: Vec<Vec<Value>> = if p.order.is_empty() || p.rollup {
            out.into_iter()
                .skip(offset as usize)
                .take(take)
                .map(|(items, _)| items)
                .collect()
        } else {
            let order = sorted_order(&out, &p.order);
            let mut out: Vec<Option<Vec<Value>>> =
                out.into_iter().map(|(items, _)| Some(items)).collect();
            order
                .into_iter()
                .skip(offset as usize)
                .take(take)
                .filter_map(|i| out[i as usize].take())
                .collect()
        };
        let mut columns = p.columns.clone();
        self.type_user_variables(&p.items, &mut columns);
        Ok(Outcome::Rows { columns, rows })
    }

    /// A select item that is a user variable alone takes the type of the variable's value now,
    /// as MariaDB's does (the plan cannot know it): a number comes back as a number to
    /// drivers that convert by type, not as a string.
    fn type_user_variables(&self, items: &[Expr], columns: &mut [myproto::response::Column]) {
        use myproto::response::flags;
        use myproto::response::types;
        for (item, column) in items.iter().zip(columns.iter_mut()) {
            let Expr::Var(name) = item else {
                continue;
            };
            if name.starts_with("@@") {
                continue;
            }
            let (column_type, length, decimals, unsigned) =
                match crate::expr::Context::variable(self, name.as_str()) {
                    Value::Int(_) => (types::LONGLONG, 20, 0, false),
                    Value::UInt(_) => (types::LONGLONG, 20, 0, true),
                    Value::Double(_) | Value::Float(_) => (types::DOUBLE, 23, 31, false),
                    // (MariaDB says 38 decimals and sends the value's own digits; a text
                    // result here is written with the column's decimals, so the value's.)
                    Value::Decimal(d) => (types::NEWDECIMAL, 83, d.scale, false),
                    _ => continue,
                };
            column.column_type = column_type;
            column.length = length;
            column.decimals = decimals;
            column.collation = myproto::response::BINARY_COLLATION_ID;
            column.flags |= flags::NUM | flags::BINARY;
            if unsigned {
                column.flags |= flags::UNSIGNED;
            }
        }
    }
}

impl<S: Exec> Executor for S {}

/// The longest constant a `SUBSTRING(col, 1, n) = constant` pushes as a LIKE prefix (longer
/// ones are checked in the API node only).
const PREFIX_CHARS_MAX: u64 = 256;
