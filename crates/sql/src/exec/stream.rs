//! A SELECT streamed to its client: a statement of its own, over one table scanned with
//! committed reads, whose result is its rows one by one (no grouping or DISTINCT, and an ORDER BY
//! only where an ordered index returns the rows in that order). Its rows go out a scan batch at a time, each batch filtered and projected
//! as it arrives, so the API node holds about two batches however large the result, and a
//! client that stops reading stops the scan (the connection's writes block, the next batch is
//! not asked for). Any other SELECT, and one whose scan fits in its first batch, is answered
//! whole as before.

use base::Value;
use client::ScanCursor;

use crate::exec::run::Fetch;
use crate::exec::Outcome;
use crate::exec::Stepping;
use crate::exec::{Exec, Executor};
use crate::expr::aggregate::count_value;
use crate::expr::Expr;
use crate::foundation::error::Result;
use crate::plan::{Access, OrderKey, SelectPlan, Source};
use myproto::response::Column;

/// A result being streamed: the rows of the batch in hand, and the scan for the rest.
pub(crate) struct RowStream {
    pub(crate) columns: Vec<Column>,
    /// The first batch's rows, to send before asking for more.
    pub(crate) first: Vec<Vec<Value>>,
    /// The statement's plan without its LIMIT and OFFSET, which the stream applies itself.
    plan: SelectPlan,
    params: Vec<Value>,
    /// The pushed filter decides the WHERE: no row needs checking again.
    decided: bool,
    cursor: Option<ScanCursor>,
    /// Matching rows still to skip (OFFSET), and to send (LIMIT; None: all).
    skip: u64,
    left: Option<u64>,
    /// Rows skipped and sent so far (FOUND_ROWS()).
    found: u64,
}

pub(crate) trait Streaming: Exec {
    /// Runs a top-level SELECT, streaming its result when it can be (see the module's comment).
    fn run_select_streaming(&mut self, p: &SelectPlan, params: &[Value]) -> Result<Outcome> {
        let Some(src) = p.source.as_ref().filter(|src| {
            p.joined.is_none()
                && !p.grouped
                && !p.distinct
                && !p.rollup
                && !p.windowed()
                && p.having.is_none()
                && !crate::exec::step::changes_per_batch(p)
                && self.correlated.is_empty()
                && !src.made_in_api_node()
                && src.lock == client::LockMode::CommittedRead
                && !self.in_transaction()
        }) else {
            return self.run_select(p, params);
        };
        // An ORDER BY the scan can give: its rows come in the index's order, sorted by none.
        let order = match p.order.is_empty() {
            true => None,
            false => match index_order(p, src) {
                Some(order) => Some(order),
                None => return self.run_select(p, params),
            },
        };
        self.check_killed()?;
        let request = self.key_request(src, params)?;
        let Fetch::Scan(mut scan, decided) = request else {
            return self.run_select(p, params);
        };
        if let Some((index, direction, fixed)) = order {
            // Columns fixed by the range's equalities give the order only where it reads them.
            if scan.index_name().is_some_and(|i| i != index) || fixed && scan.index_name().is_none()
            {
                return self.run_select(p, params);
            }
            *scan = scan.through_index(&index).order(direction);
        }
        let free = |s: &Self, e: &Option<crate::expr::Expr>| {
            e.as_ref()
                .map(|e| s.free(e, params).and_then(count_value))
                .transpose()
        };
        let left = free(self, &p.limit)?;
        let skip = free(self, &p.offset)?.unwrap_or(0);
        if let Some(limit) = left.filter(|_| decided) {
            // Every row the data node returns is a row of the result: it stops at the last.
            *scan = scan.limit(skip.saturating_add(limit).max(1));
        }
        let client = |e: client::ClientError| crate::foundation::error::SqlError::from_client(&e);
        let table = src.table.clone();
        let mut cursor = self.data().scan_cursor(&table, &scan).map_err(client)?;
        let first = cursor.next_batch().map_err(client)?.unwrap_or_default();
        let first = if decided {
            first
        } else {
            self.matching(src, params, first)?
        };
        // Whether it took more than one batch, for the reactor's next look at the plan.
        p.large.set(!cursor.ended());
        if cursor.ended() {
            // One batch holds it all: answered whole, as any other SELECT.
            return self.select_rows(p, params, first);
        }
        let mut plan = p.clone();
        plan.limit = None;
        plan.offset = None;
        plan.order.clear();
        let mut stream = RowStream {
            columns: p.columns.clone(),
            first: Vec::new(),
            plan,
            params: params.to_vec(),
            decided,
            cursor: Some(cursor),
            skip,
            left,
            found: 0,
        };
        stream.first = self.stream_rows(&mut stream, first)?;
        self.streamed();
        Ok(Outcome::Stream(Box::new(stream)))
    }

    /// The next rows of a streamed result to send (empty when the batch held none that
    /// match), or None once it has sent them all.
    fn stream_next(&mut self, s: &mut RowStream) -> Result<Option<Vec<Vec<Value>>>> {
        self.check_killed()?;
        let Some(cursor) = s.cursor.as_mut() else {
            return Ok(None);
        };
        let client = |e: client::ClientError| crate::foundation::error::SqlError::from_client(&e);
        let Some(batch) = cursor.next_batch().map_err(client)? else {
            s.cursor = None;
            return Ok(None);
        };
        let Some(src) = s.plan.source.as_ref() else {
            return Ok(None);
        };
        let batch = if s.decided {
            batch
        } else {
            let params = std::mem::take(&mut s.params);
            let matched = self.matching(src, &params, batch);
            s.params = params;
            matched?
        };
        self.stream_rows(s, batch).map(Some)
    }

    /// A batch of matching rows as the client gets them: past the OFFSET, within the LIMIT,
    /// projected. The scan ends (its cursor dropped) once the LIMIT is reached.
    fn stream_rows(
        &mut self,
        s: &mut RowStream,
        mut rows: Vec<Vec<Value>>,
    ) -> Result<Vec<Vec<Value>>> {
        let skipped = s.skip.min(rows.len() as u64);
        rows.drain(..skipped as usize);
        s.skip -= skipped;
        if let Some(left) = s.left.as_mut() {
            if rows.len() as u64 >= *left {
                rows.truncate(*left as usize);
                s.cursor = None;
            }
            *left -= rows.len() as u64;
        }
        // FOUND_ROWS() counts what the statement went through: skipped and sent.
        s.found += skipped + rows.len() as u64;
        let params = std::mem::take(&mut s.params);
        let outcome = self.select_rows(&s.plan, &params, rows);
        s.params = params;
        self.last_found_rows = s.found;
        match outcome? {
            Outcome::Rows { rows, .. } => Ok(rows),
            _ => Ok(Vec::new()),
        }
    }
}

impl<S: Exec> Streaming for S {}

/// The ordered index of `src` whose order is the SELECT's ORDER BY, and the direction to read
/// it in: every key a plain column (a string sorted under its own collation), all one way, naming the
/// index's columns in order (a prefix of them, or all of them followed by a prefix of the
/// primary key, which ends every index key), from the first the access path's range does not
/// fix by equality (then true: it gives the order only through that range). None when no index
/// gives the order, or when the access path reads another index or by keys.
pub(crate) fn index_order(
    p: &SelectPlan,
    src: &Source,
) -> Option<(String, client::ScanOrder, bool)> {
    let def = src.table.def();
    let descending = p.order.first()?.1;
    let mut columns = Vec::with_capacity(p.order.len());
    for (key, desc, collation) in &p.order {
        let e = match key {
            OrderKey::Item(n) => p.items.get(*n)?,
            OrderKey::Expr(e) => e,
        };
        let Expr::Column(at) = e else { return None };
        let column = *src.fetch.get(*at)?;
        let c = def.columns.get(column as usize)?;
        // A string sorts under its collation, which the index's keys must be made with; any
        // other value sorts as its key encodes it.
        let same_order = !c.ty.is_string() || c.collation == *collation;
        if *desc != descending || !same_order || c.json {
            return None;
        }
        columns.push(column);
    }
    // The index columns (then the primary key's) the range fixes by equality: each row read
    // has the same values there, so the order may go on from any of them or the next. Only
    // the index the range reads can give it.
    let (reads, equal) = match &src.access {
        Access::Range { index, equal, .. } => (Some(index), equal.len()),
        _ => (None, 0),
    };
    let mut fixed = false;
    let index = def.indexes.iter().find(|ix| {
        let whole = |n: usize| ix.prefixes.iter().take(n).all(|p| *p == 0);
        let keys = ix.columns.len() + def.primary_key.len();
        let starts = if reads == Some(&ix.name) { equal } else { 0 };
        ix.kind == base::schema::IndexKind::Ordered
            && reads.is_none_or(|r| *r == ix.name)
            && (0..=starts).any(|from| {
                let in_order = ix.columns.iter().chain(&def.primary_key).skip(from);
                let gives = from + columns.len() <= keys
                    && in_order.take(columns.len()).eq(&columns)
                    && whole((from + columns.len()).min(ix.columns.len()));
                fixed |= gives && from > 0;
                gives
            })
    })?;
    match &src.access {
        Access::Lookup { .. } => return None,
        Access::Range { index: read, .. } if *read != index.name => return None,
        _ => {}
    }
    let direction = if descending {
        client::ScanOrder::Descending
    } else {
        client::ScanOrder::Ascending
    };
    Some((index.name.clone(), direction, fixed))
}
