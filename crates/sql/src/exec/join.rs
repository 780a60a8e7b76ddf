//! Running a join (`plan/join.rs`'s `Joined`): each further table read by keys computed from the
//! rows joined so far, in batches, or through an ordered index by their values (`probed`), or
//! read once, and hash-joined in the API node; NULLs for an outer join's unmatched rows.

use crate::exec::run::{key_value, of_column_kind, place, Executor, Fetch};
use crate::exec::step::Stepping;
use crate::exec::{Exec, Subqueries};
use crate::expr::aggregate::group_key;
use crate::expr::{truthy, Expr};
use crate::foundation::error::Result;
use crate::foundation::error::SqlError;
use crate::plan::join::{JoinStep, Joined, PROBE_KEYS_PER_SCAN, PROBE_SCANS_IN_FLIGHT};
use crate::plan::Source;
use base::types::Collation;
use base::Value;
use client::{ExecType, JoinChild, LockMode, Scan, ScanOrder, Transaction};

/// A bound of a pushed child's key (`client::JoinChild::within`): its values and whether it
/// includes them.
type ChildBound = Option<(Vec<Value>, bool)>;

pub(crate) trait Joining: Executor {
    /// The rows of a join ([`Joined`]): the first table's matching rows,
    /// then each step's matches appended (NULLs for an outer join's unmatched rows), then the
    /// WHERE over complete rows.
    fn join(
        &mut self,
        txn: &mut Transaction,
        last: ExecType,
        src: &Source,
        j: &Joined,
        params: &[Value],
    ) -> Result<Vec<Vec<Value>>> {
        let (mut rows, start, exact) = match self.pushed_join(txn, src, j, params)? {
            Some((rows, exact)) => (rows, j.pushed.len(), exact),
            None => {
                let first = self.fetch(txn, ExecType::NoCommit, src, params)?;
                let rows = first
                    .into_iter()
                    .map(|r| {
                        let mut joined = vec![Value::Null; j.width];
                        place(&mut joined, j.first_offset, &src.fetch, r);
                        joined
                    })
                    .collect();
                (rows, 0, false)
            }
        };
        // The joined rows before the group of a nested join being joined.
        let mut before_group: Option<Vec<Vec<Value>>> = None;
        for step in &j.steps[start..] {
            if step.group_start {
                before_group = Some(rows.clone());
            }
            if rows.is_empty() && before_group.is_none() {
                break;
            }
            if !rows.is_empty() {
                rows = self.join_step(txn, step, rows, params)?;
            }
            if let Some(end) = &step.group_end {
                let before = before_group.take().unwrap_or_default();
                rows = self.group_joined(txn, end, before, rows, params)?;
            }
        }
        self.run_correlated(txn, &j.filter, &rows, params)?;
        if txn.is_open() {
            txn.execute(last).map_err(|e| SqlError::from_client(&e))?;
        }
        self.filtered(j.rest(exact), params, rows)
    }

    /// The rows of the first table and the steps a pushed join reads with it
    /// (`plan/pushed.rs`), read by the data node in one request and joined there (see
    /// [`Joining::pushed_rows`]). None when the join is not pushed: the setting
    /// `cairn_join_pushdown` is OFF, this execution's values do not allow it, or the data node
    /// found the join too large to hold; the API node joins the steps itself then.
    fn pushed_join(
        &mut self,
        txn: &mut Transaction,
        src: &Source,
        j: &Joined,
        params: &[Value],
    ) -> Result<Option<(Vec<Vec<Value>>, bool)>> {
        let (scan, exact) = match self.pushed_scan(src, j, params)? {
            None => return Ok(None),
            Some(Fetch::Scan(scan, exact)) => (scan, exact),
            Some(_) => return Ok(Some((Vec::new(), true))),
        };
        self.check_killed()?;
        let Some(found) = read_pushed(txn, src, &scan)? else {
            return Ok(None);
        };
        let rows = self.pushed_rows(src, j, params, exact, found)?;
        Ok(Some((rows, exact)))
    }

    /// The read of a pushed join: its first table's scan (a primary-key lookup made a scan by
    /// keys of its ordered index) with the pushed steps as its children, and whether the reads
    /// are exact (the first table's read decides its WHERE, every child's pushed values
    /// converted exactly: the conditions `plan/pushed.rs` found decided need no check);
    /// `Fetch::Nothing` when no row can match. None when the join is not pushed this time (see
    /// [`Joining::pushed_join`]).
    fn pushed_scan(&mut self, src: &Source, j: &Joined, params: &[Value]) -> Result<Option<Fetch>> {
        if j.pushed.is_empty() || !self.pushdown_joins() {
            return Ok(None);
        }
        let request = self.key_request(src, params)?;
        let decided = request.decided(src);
        let divides = crate::exec::diagnostics::divides;
        let inner_divides = j.steps[..j.pushed.len()]
            .iter()
            .any(|s| !s.outer && s.on.as_ref().is_some_and(divides));
        if inner_divides || !decided && src.filter.as_ref().is_some_and(divides) {
            // A division in the first table's WHERE or an inner join's ON warns or fails for
            // the rows it is checked over, which the rows the data node joined first (only
            // those every pushed table matched) would not follow.
            return Ok(None);
        }
        let mut scan = match pushed_root(request, src) {
            None => return Ok(None),
            Some(None) => return Ok(Some(Fetch::Nothing)),
            Some(Some(scan)) => scan,
        };
        let mut exact = decided;
        for (child, step) in j.pushed.iter().zip(&j.steps) {
            let s = &step.source;
            let (filter, all) = self.pushed_filter(s, params)?;
            if step.outer && !all {
                // A LEFT JOIN's own conditions must be decided where its NULLs are made.
                return Ok(None);
            }
            exact &= all;
            let mut read =
                JoinChild::new(&s.table, &child.index, child.key.clone()).columns(&s.fetch_names());
            if let Some(f) = filter {
                read = read.filter(f);
            }
            if step.outer {
                read = read.outer();
            }
            if let Some((lower, upper)) = self.child_bounds(s, child, params) {
                read = read.within(lower, upper);
            }
            scan = scan.join(read);
        }
        Ok(Some(Fetch::Scan(Box::new(scan), exact)))
    }

    /// The bounds a pushed child's key reads within (`PushedChild::within`), each a value of
    /// its column (inclusive: the pushed filter decides the rest); None when neither bounds it
    /// (a NULL, or a value that does not convert, bounds nothing).
    fn child_bounds(
        &mut self,
        s: &Source,
        child: &crate::plan::pushed::PushedChild,
        params: &[Value],
    ) -> Option<(ChildBound, ChildBound)> {
        let (column, lower, upper) = child.within.as_ref()?;
        let def = s.table.def();
        let col = def.columns.get(*column as usize)?;
        let mut value = |e: &Option<crate::expr::Expr>| -> ChildBound {
            let v = self
                .storing(crate::exec::diagnostics::Storing::No, |x| {
                    x.free(e.as_ref()?, params).ok()
                })
                .filter(|v| !v.is_null())?;
            Some((vec![crate::exec::run::bound_value(col, v)?], true))
        };
        let (lower, upper) = (value(lower), value(upper));
        (lower.is_some() || upper.is_some()).then_some((lower, upper))
    }

    /// The joined rows from the rows a pushed join's read answered (`found`), checked against
    /// what the data node did not decide: unless the reads were `exact`, the first table's
    /// WHERE and the inner steps' whole ON; when they were, what of those ONs is left
    /// (`PushedChild::check`). A LEFT JOIN's ON is decided there.
    fn pushed_rows(
        &self,
        src: &Source,
        j: &Joined,
        params: &[Value],
        exact: bool,
        found: Vec<Vec<Value>>,
    ) -> Result<Vec<Vec<Value>>> {
        let steps = &j.steps[..j.pushed.len()];
        let first_filter = src.filter.as_ref().filter(|_| !exact);
        let mut rows = Vec::with_capacity(found.len());
        for row in found {
            let first = src.fetch.len().min(row.len());
            if let Some(f) = first_filter {
                if !truthy(&f.eval(&self.env(&row[..first], params, &[]))?) {
                    continue;
                }
            }
            let mut joined = vec![Value::Null; j.width];
            let mut values = row.into_iter();
            place(
                &mut joined,
                j.first_offset,
                &src.fetch,
                values.by_ref().take(first),
            );
            for step in steps {
                let part = values.by_ref().take(step.source.fetch.len());
                place(&mut joined, step.offset, &step.source.fetch, part);
            }
            rows.push(joined);
        }
        for (child, step) in j.pushed.iter().zip(steps) {
            if !step.outer {
                let check = if exact { &child.check } else { &step.on };
                rows = self.filtered(check.as_ref(), params, rows)?;
            }
        }
        Ok(rows)
    }

    /// Completes a group of a nested join: the joined rows its ON keeps, and under a LEFT JOIN
    /// each row from `before` that none of them extends, its group's columns NULL, in the order
    /// of `before`. A kept row extends a row before when they agree outside the group's columns
    /// (equal rows before have the same extensions, so each gets its own).
    fn group_joined(
        &mut self,
        txn: &mut Transaction,
        end: &crate::plan::join::StepGroup,
        before: Vec<Vec<Value>>,
        rows: Vec<Vec<Value>>,
        params: &[Value],
    ) -> Result<Vec<Vec<Value>>> {
        self.run_correlated(txn, &end.on, &rows, params)?;
        let mut rows = self.filtered(end.on.as_ref(), params, rows)?;
        if !end.outer {
            return Ok(rows);
        }
        let exact = vec![Collation::Binary; before.first().map_or(0, Vec::len)];
        let outside = |row: &[Value]| {
            let mut masked = row.to_vec();
            for v in &mut masked[end.columns.clone()] {
                *v = Value::Null;
            }
            group_key(&masked, &exact)
        };
        // In the order of the rows before: each one's extensions, or it with NULLs (so a
        // small table's rows keep their key order, as MariaDB answers them).
        let mut order = Vec::new();
        let mut extensions: std::collections::HashMap<Vec<u8>, Option<Vec<Vec<Value>>>> =
            std::collections::HashMap::new();
        for row in rows.drain(..) {
            let key = outside(&row);
            let slot = extensions.entry(key.clone()).or_insert_with(|| {
                order.push(key);
                Some(Vec::new())
            });
            if let Some(slot) = slot {
                slot.push(row);
            }
        }
        for row in before {
            match extensions.get_mut(&outside(&row)) {
                // Equal rows before share their extensions, which come once per copy already.
                Some(slot) => rows.extend(slot.take().unwrap_or_default()),
                None => rows.push(row),
            }
        }
        for key in order {
            if let Some(Some(left)) = extensions.remove(&key) {
                rows.extend(left);
            }
        }
        Ok(rows)
    }

    /// Joins one more table to `rows`.
    fn join_step(
        &mut self,
        txn: &mut Transaction,
        step: &JoinStep,
        rows: Vec<Vec<Value>>,
        params: &[Value],
    ) -> Result<Vec<Vec<Value>>> {
        let src = &step.source;
        // The table's rows, and for each joined row the ones that may match (None: all).
        let (found, candidates) = match self.join_keys(step, &rows, params)? {
            Some((unique, keys, wanted)) => {
                let read =
                    self.read_each(txn, ExecType::NoCommit, unique, &keys, src, &src.fetch)?;
                let mut found = Vec::new();
                let mut at = Vec::with_capacity(read.len());
                for r in read {
                    at.push(r.map(|r| {
                        found.push(r);
                        found.len() - 1
                    }));
                }
                let candidates = wanted
                    .into_iter()
                    .map(|ks| Some(ks.into_iter().filter_map(|k| at[k]).collect()))
                    .collect();
                (found, candidates)
            }
            None => {
                let found = match self.probed(txn, step, &rows, params)? {
                    Some(found) => found,
                    None => self.fetch(txn, ExecType::NoCommit, src, params)?,
                };
                let candidates = self.hashed(step, &rows, &found, params)?;
                (found, candidates)
            }
        };
        let all: Vec<usize> = (0..found.len()).collect();
        if step.on.as_ref().is_some_and(Expr::holds_correlated) {
            // The correlated subqueries of the ON run first for every pair it will check.
            let mut pairs = Vec::new();
            for (row, wanted) in rows.iter().zip(&candidates) {
                for &c in wanted.as_deref().unwrap_or(&all) {
                    let mut joined = row.clone();
                    place(&mut joined, step.offset, &src.fetch, found[c].clone());
                    pairs.push(joined);
                }
            }
            self.run_correlated(txn, &step.on, &pairs, params)?;
        }
        let mut out = Vec::new();
        for (row, wanted) in rows.into_iter().zip(candidates) {
            let mut matched = false;
            for &c in wanted.as_deref().unwrap_or(&all) {
                let mut joined = row.clone();
                place(&mut joined, step.offset, &src.fetch, found[c].clone());
                if let Some(on) = &step.on {
                    if !truthy(&on.eval(&self.env(&joined, params, &[]))?) {
                        continue;
                    }
                }
                matched = true;
                out.push(joined);
            }
            if !matched && step.outer {
                out.push(row);
            }
        }
        Ok(out)
    }

    /// For a step read by keys: the index (None: primary key), the distinct keys of all
    /// joined rows, and each row's keys (positions in them). None when the step reads its
    /// table once instead, or a row's key value is not exact for its column.
    #[allow(clippy::type_complexity)]
    fn join_keys(
        &self,
        step: &JoinStep,
        rows: &[Vec<Value>],
        params: &[Value],
    ) -> Result<Option<(Option<u16>, Vec<Vec<Value>>, Vec<Vec<usize>>)>> {
        let Some((unique, keys)) = &step.lookup else {
            return Ok(None);
        };
        let def = step.source.table.def();
        let columns = crate::plan::key_columns(def, *unique);
        let mut distinct: hashbrown::HashMap<String, usize> = hashbrown::HashMap::new();
        let mut all = Vec::new();
        let mut wanted = Vec::with_capacity(rows.len());
        for row in rows {
            let env = self.env(row, params, &[]);
            let mut mine = Vec::new();
            'keys: for key in keys {
                let mut values = Vec::with_capacity(key.len());
                for (e, c) in key.iter().zip(columns) {
                    match key_value(&def.columns[*c as usize], e.eval(&env)?) {
                        Ok(Some(v)) => values.push(v),
                        Ok(None) => continue 'keys,
                        Err(()) => return Ok(None),
                    }
                }
                let n = *distinct.entry(format!("{values:?}")).or_insert_with(|| {
                    all.push(values);
                    all.len() - 1
                });
                if !mine.contains(&n) {
                    mine.push(n);
                }
            }
            wanted.push(mine);
        }
        Ok(Some((*unique, all, wanted)))
    }

    /// For a step read through an index probe: the rows of its table whose index column holds
    /// one of the joined rows' values (and that meet the table's own pushed conditions), one
    /// index scan per batch of values. None when the step has no probe or a value is not an
    /// exact key of the column (the table is read once instead).
    fn probed(
        &mut self,
        txn: &mut Transaction,
        step: &JoinStep,
        rows: &[Vec<Value>],
        params: &[Value],
    ) -> Result<Option<Vec<Vec<Value>>>> {
        let Some(probe) = &step.probe else {
            return Ok(None);
        };
        let src = &step.source;
        let def = src.table.def();
        let Some(column) = def.columns.get(probe.column as usize) else {
            return Ok(None);
        };
        // Distinct values in order, by their number.
        let mut values = std::collections::BTreeMap::new();
        for row in rows {
            match key_value(column, probe.key.eval(&self.env(row, params, &[]))?) {
                Ok(Some(v)) => {
                    let n = match v {
                        Value::Int(i) => i128::from(i),
                        Value::UInt(u) => i128::from(u),
                        _ => return Ok(None),
                    };
                    values.insert(n, v);
                }
                Ok(None) => {}
                Err(()) => return Ok(None),
            }
        }
        // Many values against a table they would read most of: read it once instead.
        if values.len() > crate::plan::join::probe_values_max(&src.table) {
            return Ok(None);
        }
        let keys: Vec<Vec<Value>> = values.into_values().map(|v| vec![v]).collect();
        let (own, _) = self.pushed_filter(src, params)?;
        self.scan_by_keys(txn, src, &probe.index, &keys, own, false)
            .map(Some)
    }

    /// The rows of `src` whose index `index` prefix equals one of `keys` and that `filter`
    /// keeps, read by batched key access: scans of up to [`PROBE_KEYS_PER_SCAN`] keys each, a
    /// window of them in flight (a locking read reads each scan's rows again by key, locked).
    /// `first`: each partition answers only a key's first row (a semi-join's probe).
    fn scan_by_keys(
        &mut self,
        txn: &mut Transaction,
        src: &Source,
        index: &str,
        keys: &[Vec<Value>],
        filter: Option<client::Filter>,
        first: bool,
    ) -> Result<Vec<Vec<Value>>> {
        let names = src.fetch_names();
        let scans: Vec<Scan> = keys
            .chunks(PROBE_KEYS_PER_SCAN)
            .map(|chunk| {
                let scan = Scan::index(index)
                    .keys(chunk.to_vec())
                    .columns(&names)
                    .order(ScanOrder::Any);
                let scan = if first { scan.first_per_key() } else { scan };
                match &filter {
                    Some(f) => scan.filter(f.clone()),
                    None => scan,
                }
            })
            .collect();
        let mut found = Vec::new();
        if src.lock != LockMode::CommittedRead {
            // A locking read: each scan's rows are read again by key under their locks.
            for scan in scans {
                let fetch = Fetch::Scan(Box::new(scan), false);
                found.extend(self.read_fetch(txn, ExecType::NoCommit, src, fetch, false)?);
            }
            return Ok(found);
        }
        // Committed reads: a window of scans in flight at once, so a batch of values costs
        // about one round trip per window, not one per value.
        let client = |e: client::ClientError| SqlError::from_client(&e);
        for window in scans.chunks(PROBE_SCANS_IN_FLIGHT) {
            self.check_killed()?;
            let cursors = window
                .iter()
                .map(|scan| txn.scan_cursor(&src.table, scan).map_err(client))
                .collect::<Result<Vec<_>>>()?;
            for cursor in cursors {
                found.extend(cursor.collect_all().map_err(client)?);
            }
        }
        Ok(found)
    }

    /// For a step read once: each joined row's possible matches by a hashed equality (None:
    /// every row, when there is no equality to hash or a value compares as another type).
    fn hashed(
        &self,
        step: &JoinStep,
        rows: &[Vec<Value>],
        found: &[Vec<Value>],
        params: &[Value],
    ) -> Result<Vec<Option<Vec<usize>>>> {
        let src = &step.source;
        let def = src.table.def();
        let pair = step.equal.iter().find_map(|(p, e)| {
            let c = (p - step.offset) as u16;
            let column = &def.columns[c as usize];
            let at = src.fetch.iter().position(|f| *f == c)?;
            (column.ty.is_integer() || column.ty.is_string()).then_some((column, at, e))
        });
        let Some((column, at, e)) = pair else {
            return Ok(vec![None; rows.len()]);
        };
        let mut buckets: hashbrown::HashMap<Vec<u8>, Vec<usize>> = hashbrown::HashMap::new();
        // The equality compares under the column's own collation (`plan::look_through`).
        let collation =
            [crate::expr::collate::of_column(column).unwrap_or(Collation::Utf8mb4GeneralCi)];
        let same_kind = |v: &Value| v.is_null() || of_column_kind(column, v);
        // A derived table's column holds what its query computed, whatever its declared type:
        // hash only when every value is of the type's kind.
        if !found.iter().all(|r| r.get(at).is_some_and(same_kind)) {
            return Ok(vec![None; rows.len()]);
        }
        for (i, r) in found.iter().enumerate() {
            if !r[at].is_null() {
                buckets
                    .entry(group_key(std::slice::from_ref(&r[at]), &collation))
                    .or_default()
                    .push(i);
            }
        }
        rows.iter()
            .map(|row| {
                let v = e.eval(&self.env(row, params, &[]))?;
                if v.is_null() {
                    return Ok(Some(Vec::new()));
                }
                Ok(same_kind(&v).then(|| {
                    buckets
                        .get(&group_key(std::slice::from_ref(&v), &collation))
                        .cloned()
                        .unwrap_or_default()
                }))
            })
            .collect()
    }
}

impl<S: Exec> Joining for S {}

/// The first table's read of a pushed join (or of pushed semi-joins) as a scan its children
/// can join: a scan as it is, keyed reads by primary key a scan by keys of the primary key's
/// ordered index, of `src`'s fetched columns. Some(None): no row can match. None: it cannot be
/// (reads through a unique index, more keys than one scan takes, a primary key without an
/// ordered index).
pub(crate) fn pushed_root(fetch: Fetch, src: &Source) -> Option<Option<Scan>> {
    let scan = match fetch {
        Fetch::Nothing => return Some(None),
        Fetch::Keys {
            unique: None, keys, ..
        } if keys.len() <= base::limits::SCAN_KEYS_MAX
            && crate::plan::pushed::primary_ordered(src) =>
        {
            Scan::index(crate::plan::pushed::PRIMARY).keys(keys)
        }
        Fetch::Keys { .. } => return None,
        Fetch::Scan(scan, _) => *scan,
    };
    Some(Some(scan.columns(&src.fetch_names())))
}

/// The rows a pushed join's `scan` of `src` answers; None when the data node would not hold
/// the join (`Overloaded`), which the API node then joins itself.
pub(crate) fn read_pushed(
    txn: &mut Transaction,
    src: &Source,
    scan: &Scan,
) -> Result<Option<Vec<Vec<Value>>>> {
    match txn.scan(&src.table, scan) {
        Ok(rows) => Ok(Some(rows)),
        Err(client::ClientError::Failed(e)) if e.code == base::ErrorCode::Overloaded => Ok(None),
        Err(e) => Err(SqlError::from_client(&e)),
    }
}
