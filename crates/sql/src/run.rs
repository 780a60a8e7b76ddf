//! The executor: runs plans against the data node. It turns a plan's keys, bounds and pushed
//! conditions into values of the columns' types (falling back to a wider access when a value
//! cannot be one), fetches rows (keyed reads batched in one round trip, or a scan), applies the
//! WHERE, then groups, orders, deduplicates and limits in the API node; and writes with
//! INSERT, UPDATE and DELETE inside the session's transaction.

use std::cmp::Ordering;

use base::schema::ColumnDef;
use base::Value;
use client::{ExecType, Filter, LockMode, OpResult, Scan, ScanOrder, Table, Transaction};
use sqlparser::ast::{self, SetExpr};

use crate::aggregate::{group_key, Accumulator};
use crate::error::SqlError;
use crate::exec::{ident, store, Outcome, Result, Session};
use crate::expr::{compare, truthy, Compiler, Env, Expr};
use crate::plan::{
    pushable, Access, DeletePlan, OrderKey, PlanInput, Pushed, SelectPlan, Source, TableRef,
    UpdatePlan,
};

/// Rows per execute of a multi-row INSERT (each a batch of the data node's).
const INSERT_BATCH_ROWS: usize = 1_000;

/// INSERT ... VALUES over one table, its values unresolved (`?` allowed).
#[derive(Debug, Clone)]
pub struct InsertPlan {
    table: Table,
    columns: Vec<u16>,
    /// None: DEFAULT.
    rows: Vec<Vec<Option<Expr>>>,
}

impl InsertPlan {
    pub(crate) fn table(&self) -> &Table {
        &self.table
    }
}

pub(crate) fn insert_plan(
    input: &PlanInput,
    i: &ast::Insert,
    resolve: &dyn Fn(&ast::ObjectName) -> Result<(Table, TableRef)>,
) -> Result<InsertPlan> {
    let ast::TableObject::TableName(name) = &i.table else {
        return Err(SqlError::unsupported("INSERT into a table function"));
    };
    let (table, _) = resolve(name)?;
    let def = table.def().clone();
    if i.ignore || i.on.is_some() || i.replace_into || !i.assignments.is_empty() {
        return Err(SqlError::unsupported(
            "INSERT IGNORE, REPLACE, ON DUPLICATE KEY UPDATE or INSERT ... SET",
        ));
    }
    let columns: Vec<u16> = if i.columns.is_empty() {
        (0..def.columns.len() as u16)
            .filter(|c| !def.columns[*c as usize].hidden)
            .collect()
    } else {
        i.columns
            .iter()
            .map(|c| {
                let (_, n) = ident(c)?;
                def.column(&n)
                    .filter(|p| !def.columns[*p].hidden)
                    .map(|p| p as u16)
                    .ok_or_else(|| SqlError::unknown_column(&n, "field list"))
            })
            .collect::<Result<_>>()?
    };
    for (n, c) in columns.iter().enumerate() {
        if columns[..n].contains(c) {
            return Err(SqlError::new(
                1110,
                "42000",
                format!("Column '{}' specified twice", def.columns[*c as usize].name),
            ));
        }
    }
    if let Some(missing) = def.columns.iter().enumerate().find(|(p, c)| {
        !c.nullable
            && c.default.is_none()
            && !c.auto_increment
            && !c.hidden
            && !columns.contains(&(*p as u16))
    }) {
        return Err(SqlError::new(
            1364,
            "HY000",
            format!("Field '{}' doesn't have a default value", missing.1.name),
        ));
    }
    let Some(SetExpr::Values(values)) = i.source.as_ref().map(|q| q.body.as_ref()) else {
        return Err(SqlError::unsupported("INSERT ... SELECT"));
    };
    let mut c = Compiler::new(None, input.placeholders);
    let mut rows = Vec::with_capacity(values.rows.len());
    for (n, row) in values.rows.iter().enumerate() {
        if row.content.len() != columns.len() {
            return Err(SqlError::new(
                1136,
                "21S01",
                format!("Column count doesn't match value count at row {}", n + 1),
            ));
        }
        rows.push(
            row.content
                .iter()
                .map(|e| match e {
                    ast::Expr::Identifier(i) if i.value.eq_ignore_ascii_case("default") => Ok(None),
                    e => c.compile(e).map(Some),
                })
                .collect::<Result<_>>()?,
        );
    }
    Ok(InsertPlan {
        table,
        columns,
        rows,
    })
}

/// What a source needs from the data node for one execution.
pub(crate) enum Fetch {
    /// No row can match.
    Nothing,
    /// Keyed reads: by primary key, or through unique index `unique`.
    Keys {
        unique: Option<u16>,
        keys: Vec<Vec<Value>>,
    },
    /// One scan (ordered-index range or whole table) with its pushed filter.
    Scan(Box<Scan>),
}

/// How a plan's access resolved for one execution's parameters.
enum Resolved {
    Keys(Vec<Vec<Value>>),
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
fn key_value(column: &ColumnDef, v: Value) -> std::result::Result<Option<Value>, ()> {
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

/// A value as `column` stores it under MySQL's strict mode (STRICT_TRANS_TABLES, the default):
/// what would be changed to fit is refused instead: a value out of range (1264), a string too
/// long (1406), text that is not a number (1366) or only starts with one (1265), a bad date
/// (1292). `row` counts from 1.
fn strict_store(column: &ColumnDef, v: Value, row: usize) -> Result<Value> {
    use base::types::ColumnType as T;
    if v.is_null() {
        return Ok(Value::Null);
    }
    let shown =
        String::from_utf8_lossy(&base::text::value_text(&v).unwrap_or_default()).into_owned();
    let name = &column.name;
    let temporal = matches!(
        column.ty,
        T::Date | T::DateTime { .. } | T::Timestamp { .. } | T::Time { .. } | T::Year
    );
    let kind = match column.ty {
        T::Date => "date",
        T::DateTime { .. } | T::Timestamp { .. } => "datetime",
        T::Time { .. } => "time",
        T::Decimal { .. } => "decimal",
        T::Float | T::Double => "double",
        _ => "integer",
    };
    let stored = match store(column, v.clone()) {
        Ok(s) => s,
        Err(_) if temporal => {
            return Err(SqlError::new(
                1292,
                "22007",
                format!("Incorrect {kind} value: '{shown}' for column '{name}' at row {row}"),
            ))
        }
        Err(_) if column.ty.is_string() => {
            return Err(SqlError::new(
                1406,
                "22001",
                format!("Data too long for column '{name}' at row {row}"),
            ))
        }
        Err(e) => return Err(e),
    };
    let too_long = || {
        SqlError::new(
            1406,
            "22001",
            format!("Data too long for column '{name}' at row {row}"),
        )
    };
    if column.ty.is_string() {
        let given = shown.trim_end_matches(' ').chars().count();
        let kept = String::from_utf8_lossy(&base::text::value_text(&stored).unwrap_or_default())
            .chars()
            .count();
        if matches!(column.ty, T::Binary { .. } | T::VarBinary { .. } | T::Blob) {
            if shown.len() > base::text::value_text(&stored).map_or(0, |t| t.len()) {
                return Err(too_long());
            }
        } else if given > kept {
            return Err(too_long());
        }
        return Ok(stored);
    }
    if temporal {
        return Ok(stored);
    }
    if let Value::Bytes(b) = &v {
        let text = String::from_utf8_lossy(b);
        let text = text.trim();
        if text.parse::<f64>().is_err() {
            let starts_numeric = text
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit() || c == '-' || c == '+' || c == '.');
            return Err(if starts_numeric && crate::expr::as_double(&v) != 0.0 {
                SqlError::new(
                    1265,
                    "01000",
                    format!("Data truncated for column '{name}' at row {row}"),
                )
            } else {
                SqlError::new(
                    1366,
                    "22007",
                    format!("Incorrect {kind} value: '{shown}' for column '{name}' at row {row}"),
                )
            });
        }
    }
    let unit = match column.ty {
        T::Decimal { scale, .. } => 10f64.powi(-(scale as i32)),
        T::Float | T::Double => return Ok(stored),
        _ => 1.0,
    };
    let (given, kept) = (crate::expr::as_double(&v), crate::expr::as_double(&stored));
    // Rounding to the column's scale loses at most half a unit; more is out of range.
    if (given - kept).abs() > unit * (0.5 + 1e-9) {
        return Err(SqlError::new(
            1264,
            "22003",
            format!("Out of range value for column '{name}' at row {row}"),
        ));
    }
    Ok(stored)
}

/// A bound value for `column` (rounded conversions still bound a superset); None drops it.
fn bound_value(column: &ColumnDef, v: Value) -> Option<Value> {
    if column.ty.is_string() && !matches!(v, Value::Bytes(_)) {
        return None;
    }
    store(column, v).ok()
}

/// ORDER BY's order of two rows' sort keys: NULL first, each key ascending or descending.
fn by_keys(a: &[Value], b: &[Value], order: &[(OrderKey, bool)]) -> Ordering {
    for ((x, y), (_, desc)) in a.iter().zip(b).zip(order) {
        let o = match (x.is_null(), y.is_null()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            _ => compare(x, y).unwrap_or(Ordering::Equal),
        };
        if o != Ordering::Equal {
            return if *desc { o.reverse() } else { o };
        }
    }
    Ordering::Equal
}

fn count_value(v: Value) -> Result<u64> {
    match v {
        Value::Int(i) if i >= 0 => Ok(i as u64),
        Value::UInt(u) => Ok(u),
        Value::Bytes(b) => String::from_utf8_lossy(&b)
            .trim()
            .parse()
            .map_err(|_| SqlError::new(1210, "HY000", "Incorrect arguments to LIMIT")),
        _ => Err(SqlError::new(1210, "HY000", "Incorrect arguments to LIMIT")),
    }
}

impl Session {
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
                let columns: &[u16] = match unique {
                    None => &def.primary_key,
                    Some((i, _)) => &def.indexes[*i as usize].columns,
                };
                let mut out: Vec<Vec<Value>> = Vec::with_capacity(keys.len());
                'keys: for key in keys {
                    let mut values = Vec::with_capacity(key.len());
                    for (e, c) in key.iter().zip(columns) {
                        match key_value(&def.columns[*c as usize], self.free(e, params)?) {
                            Ok(Some(v)) => values.push(v),
                            Ok(None) => continue 'keys,
                            Err(()) => return Ok(Resolved::Full),
                        }
                    }
                    // IN (3, 3) reads row 3 once.
                    if !out.contains(&values) {
                        out.push(values);
                    }
                }
                Ok(if out.is_empty() {
                    Resolved::Empty
                } else {
                    Resolved::Keys(out)
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

    /// The pushed conditions whose values convert exactly to their columns' types.
    fn pushed_filter(&self, src: &Source, params: &[Value]) -> Result<Option<Filter>> {
        let def = src.table.def();
        let exact = |c: u16, e: &Expr| -> Result<Option<Value>> {
            let column = &def.columns[c as usize];
            if !pushable(column.ty) {
                return Ok(None);
            }
            Ok(key_value(column, self.free(e, params)?).ok().flatten())
        };
        let mut parts = Vec::new();
        for p in &src.pushed {
            let f = match p {
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
                        Value::Bytes(pattern) if column.ty.is_string() => Some(Filter::Like {
                            column: *c,
                            pattern,
                        }),
                        _ => None,
                    }
                }
                Pushed::IsNull(c, negated) => Some(if *negated {
                    Filter::IsNotNull { column: *c }
                } else {
                    Filter::IsNull { column: *c }
                }),
            };
            parts.extend(f);
        }
        Ok(match parts.len() {
            0 => None,
            1 => parts.pop(),
            _ => Some(Filter::And(parts)),
        })
    }

    /// What `src` asks of the data node for these parameters: keyed reads or one scan.
    pub(crate) fn fetch_request(&self, src: &Source, params: &[Value]) -> Result<Fetch> {
        let table = &src.table;
        let def = table.def();
        Ok(match self.resolve(src, params)? {
            Resolved::Empty => Fetch::Nothing,
            Resolved::Keys(keys) => Fetch::Keys {
                unique: match &src.access {
                    Access::Lookup { unique, .. } => unique.as_ref().map(|u| u.0),
                    _ => None,
                },
                keys,
            },
            resolved => {
                let names: Vec<&str> = src
                    .fetch
                    .iter()
                    .map(|c| def.columns[*c as usize].name.as_str())
                    .collect();
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
                if let Some(f) = self.pushed_filter(src, params)? {
                    scan = scan.filter(f);
                }
                Fetch::Scan(Box::new(scan))
            }
        })
    }

    /// The rows of `src` that satisfy its WHERE, as fetched rows. Keyed reads run in `txn`
    /// with `exec`; scans read committed rows and, when the source locks, are read again by
    /// primary key in `txn` with the lock.
    pub(crate) fn fetch(
        &mut self,
        txn: &mut Transaction,
        exec: ExecType,
        src: &Source,
        params: &[Value],
    ) -> Result<Vec<Vec<Value>>> {
        let table = &src.table;
        let def = table.def();
        let client = |e: client::ClientError| SqlError::from_client(&e);
        let rows = match self.fetch_request(src, params)? {
            Fetch::Nothing => Vec::new(),
            Fetch::Keys { unique, keys } => self.read_keys(txn, exec, table, unique, keys, src)?,
            Fetch::Scan(scan) => {
                let rows = self.data.scan(table, &scan).map_err(client)?;
                if src.lock == LockMode::CommittedRead {
                    rows
                } else {
                    // Lock what the scan found, reading each row again under the lock.
                    let pk: Vec<usize> = def
                        .primary_key
                        .iter()
                        .map(|c| src.fetch.iter().position(|f| f == c).unwrap_or(0))
                        .collect();
                    let keys = rows
                        .iter()
                        .map(|r| pk.iter().map(|p| r[*p].clone()).collect())
                        .collect();
                    self.read_keys(txn, ExecType::NoCommit, table, None, keys, src)?
                }
            }
        };
        self.matching(src, params, rows)
    }

    /// The fetched rows that satisfy the source's whole WHERE (re-checked in the API node).
    pub(crate) fn matching(
        &self,
        src: &Source,
        params: &[Value],
        rows: Vec<Vec<Value>>,
    ) -> Result<Vec<Vec<Value>>> {
        let Some(filter) = &src.filter else {
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

    fn read_keys(
        &mut self,
        txn: &mut Transaction,
        exec: ExecType,
        table: &Table,
        unique: Option<u16>,
        keys: Vec<Vec<Value>>,
        src: &Source,
    ) -> Result<Vec<Vec<Value>>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let mut ops = Vec::with_capacity(keys.len());
        for chunk in keys.chunks(base::limits::BATCH_OPERATIONS_MAX) {
            for key in chunk {
                ops.push(match unique {
                    None => txn.read_with(table, key.clone(), src.lock, src.fetch.clone()),
                    Some(i) => txn.read_unique(table, i, key.clone(), src.lock, src.fetch.clone()),
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
            .filter_map(|op| txn.row(op).map(<[Value]>::to_vec))
            .collect())
    }

    pub(crate) fn run_select(&mut self, p: &SelectPlan, params: &[Value]) -> Result<Outcome> {
        let rows = match &p.source {
            None => vec![Vec::new()],
            Some(src) if crate::infoschema::virtual_of(src).is_some() => {
                let rows = crate::infoschema::rows(self, src)?;
                self.matching(src, params, rows)?
            }
            Some(src) => self.transactional(|s, txn, last| s.fetch(txn, last, src, params))?,
        };
        self.select_rows(p, params, rows)
    }

    /// A SELECT's result from its source's matching rows: grouping, aggregates, HAVING, the
    /// select list, DISTINCT, ORDER BY and LIMIT.
    pub(crate) fn select_rows(
        &mut self,
        p: &SelectPlan,
        params: &[Value],
        rows: Vec<Vec<Value>>,
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
        // (items, order keys) per output row.
        let mut out: Vec<(Vec<Value>, Vec<Value>)> = Vec::new();
        let early_stop = p.order.is_empty() && !p.distinct;
        let emit = |s: &Session,
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
            let items: Vec<Value> = p
                .items
                .iter()
                .map(|e| e.eval(&env))
                .collect::<Result<_>>()?;
            let keys = p
                .order
                .iter()
                .map(|(k, _)| match k {
                    OrderKey::Item(i) => Ok(items[*i].clone()),
                    OrderKey::Expr(e) => e.eval(&env),
                })
                .collect::<Result<_>>()?;
            out.push((items, keys));
            Ok(())
        };
        if !p.grouped {
            for row in &rows {
                emit(self, row, &[], &mut out)?;
                if early_stop && limit.is_some_and(|l| out.len() as u64 >= offset + l) {
                    break;
                }
            }
        } else {
            let mut index: hashbrown::HashMap<Vec<u8>, usize> = hashbrown::HashMap::new();
            let mut groups: Vec<(Vec<Value>, Vec<Accumulator>)> = Vec::new();
            for row in rows {
                let env = self.env(&row, params, &[]);
                let key_values: Vec<Value> = p
                    .group_by
                    .iter()
                    .map(|e| e.eval(&env))
                    .collect::<Result<_>>()?;
                let key = group_key(&key_values);
                let g = match index.get(&key) {
                    Some(g) => *g,
                    None => {
                        index.insert(key, groups.len());
                        groups.push((
                            row.clone(),
                            p.aggregates.iter().map(Accumulator::new).collect(),
                        ));
                        groups.len() - 1
                    }
                };
                for (acc, agg) in groups[g].1.iter_mut().zip(&p.aggregates) {
                    acc.add(agg, &env)?;
                }
            }
            if groups.is_empty() && p.group_by.is_empty() {
                groups.push((
                    Vec::new(),
                    p.aggregates.iter().map(Accumulator::new).collect(),
                ));
            }
            for (first, accs) in &groups {
                let aggs: Vec<Value> = accs
                    .iter()
                    .zip(&p.aggregates)
                    .map(|(a, agg)| a.finish(agg))
                    .collect::<Result<_>>()?;
                emit(self, first, &aggs, &mut out)?;
            }
        }
        if p.distinct {
            let mut seen = hashbrown::HashSet::new();
            out.retain(|(items, _)| seen.insert(group_key(items)));
        }
        if !p.order.is_empty() {
            out.sort_by(|a, b| by_keys(&a.1, &b.1, &p.order));
        }
        self.last_found_rows = out.len() as u64;
        let rows: Vec<Vec<Value>> = out
            .into_iter()
            .skip(offset as usize)
            .take(limit.map_or(usize::MAX, |l| l as usize))
            .map(|(items, _)| items)
            .collect();
        Ok(Outcome::Rows {
            columns: p.columns.clone(),
            rows,
        })
    }

    /// Orders and limits the rows an UPDATE or DELETE found.
    fn order_and_limit(
        &self,
        rows: Vec<Vec<Value>>,
        order: &[(OrderKey, bool)],
        limit: &Option<Expr>,
        params: &[Value],
    ) -> Result<Vec<Vec<Value>>> {
        let mut rows = rows;
        if !order.is_empty() {
            let mut keyed: Vec<(Vec<Value>, Vec<Value>)> = Vec::with_capacity(rows.len());
            for row in rows {
                let env = self.env(&row, params, &[]);
                let keys = order
                    .iter()
                    .map(|(k, _)| match k {
                        OrderKey::Expr(e) => e.eval(&env),
                        OrderKey::Item(_) => Ok(Value::Null),
                    })
                    .collect::<Result<_>>()?;
                keyed.push((keys, row));
            }
            keyed.sort_by(|a, b| by_keys(&a.0, &b.0, order));
            rows = keyed.into_iter().map(|(_, r)| r).collect();
        }
        if let Some(l) = limit {
            let l = count_value(self.free(l, params)?)?;
            rows.truncate(l.min(usize::MAX as u64) as usize);
        }
        Ok(rows)
    }

    /// Primary key values of a fetched row.
    fn primary_key(src: &Source, row: &[Value]) -> Vec<Value> {
        src.table
            .def()
            .primary_key
            .iter()
            .map(|c| {
                src.fetch
                    .iter()
                    .position(|f| f == c)
                    .map(|p| row[p].clone())
                    .unwrap_or(Value::Null)
            })
            .collect()
    }

    pub(crate) fn run_update(&mut self, p: &UpdatePlan, params: &[Value]) -> Result<Outcome> {
        let found_rows = self.found_rows;
        self.transactional(|s, txn, last| {
            let src = &p.source;
            let rows = s.fetch(txn, ExecType::NoCommit, src, params)?;
            let rows = s.order_and_limit(rows, &p.order, &p.limit, params)?;
            let def = src.table.def().clone();
            let mut changed = 0u64;
            for (n, row) in rows.iter().enumerate() {
                let env = s.env(row, params, &[]);
                let mut values = Vec::new();
                for (c, e) in &p.assignments {
                    let column = &def.columns[*c as usize];
                    let v = strict_store(column, e.eval(&env)?, n + 1)?;
                    let old = src.fetch.iter().position(|f| f == c).map(|i| &row[i]);
                    if old != Some(&v) {
                        values.push((*c, v));
                    }
                }
                if !values.is_empty() {
                    txn.update(&src.table, Session::primary_key(src, row), values);
                    changed += 1;
                }
            }
            if changed > 0 || txn.is_open() {
                txn.execute(last).map_err(|e| SqlError::from_client(&e))?;
            }
            let matched = rows.len() as u64;
            Ok(Outcome::Done {
                affected: if found_rows { matched } else { changed },
                last_insert_id: 0,
                info: format!("Rows matched: {matched}  Changed: {changed}  Warnings: 0"),
            })
        })
    }

    pub(crate) fn run_delete(&mut self, p: &DeletePlan, params: &[Value]) -> Result<Outcome> {
        self.transactional(|s, txn, last| {
            let src = &p.source;
            let rows = s.fetch(txn, ExecType::NoCommit, src, params)?;
            let rows = s.order_and_limit(rows, &p.order, &p.limit, params)?;
            let ops: Vec<_> = rows
                .iter()
                .map(|row| txn.delete(&src.table, Session::primary_key(src, row)))
                .collect();
            if !ops.is_empty() || txn.is_open() {
                txn.execute(last).map_err(|e| SqlError::from_client(&e))?;
            }
            let deleted = ops
                .iter()
                .filter(|op| matches!(txn.result(**op), Some(OpResult::Done { .. })))
                .count();
            Ok(Outcome::Done {
                affected: deleted as u64,
                last_insert_id: 0,
                info: String::new(),
            })
        })
    }

    pub(crate) fn run_insert(&mut self, p: &InsertPlan, params: &[Value]) -> Result<Outcome> {
        let def = p.table.def().clone();
        // Values first: a bad value fails the statement before anything is sent.
        let mut rows = Vec::with_capacity(p.rows.len());
        for (n, row) in p.rows.iter().enumerate() {
            let mut given = Vec::with_capacity(p.columns.len());
            for (c, e) in p.columns.iter().zip(row) {
                let column = &def.columns[*c as usize];
                let Some(e) = e else {
                    // DEFAULT: the data node fills the column.
                    continue;
                };
                let v = self.free(e, params)?;
                if column.auto_increment && v.is_null() {
                    continue;
                }
                let v = strict_store(column, v, n + 1)?;
                if v == Value::Int(0) && column.auto_increment {
                    continue;
                }
                given.push((*c, v));
            }
            rows.push(given);
        }
        let count = rows.len();
        let (first, affected) = self.transactional(|_, txn, last| {
            let mut first = 0u64;
            let mut sent = 0;
            for chunk in rows.chunks(INSERT_BATCH_ROWS) {
                let ops: Vec<_> = chunk
                    .iter()
                    .map(|values| txn.insert(&p.table, values.clone()))
                    .collect();
                sent += chunk.len();
                let exec = if sent == count {
                    last
                } else {
                    ExecType::NoCommit
                };
                txn.execute(exec).map_err(|e| SqlError::from_client(&e))?;
                if first == 0 && def.auto_increment_column().is_some() {
                    first = ops
                        .iter()
                        .find_map(|op| match txn.result(*op) {
                            Some(OpResult::Done { assigned: Some(id) }) => Some(*id),
                            _ => None,
                        })
                        .unwrap_or(0);
                }
            }
            Ok((first, count as u64))
        })?;
        if first != 0 {
            self.last_insert_id = first;
        }
        Ok(Outcome::Done {
            affected,
            last_insert_id: first,
            info: String::new(),
        })
    }
}
