//! A SELECT streamed to its client: a statement of its own, over one table scanned with
//! committed reads, whose result is its rows one by one (no grouping, DISTINCT or ORDER BY made
//! in the API node). Its rows go out a scan batch at a time, each batch filtered and projected
//! as it arrives, so the API node holds about two batches however large the result, and a
//! client that stops reading stops the scan (the connection's writes block, the next batch is
//! not asked for). Any other SELECT, and one whose scan fits in its first batch, is answered
//! whole as before.

use base::Value;
use client::ScanCursor;

use crate::diagnostics::Storing;
use crate::exec::{Outcome, Result, Session};
use crate::plan::SelectPlan;
use crate::run::{count_value, Fetch};
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

impl Session {
    /// Runs a top-level SELECT, streaming its result when it can be (see the module's comment).
    pub(crate) fn run_select_streaming(
        &mut self,
        p: &SelectPlan,
        params: &[Value],
    ) -> Result<Outcome> {
        let Some(src) = p.source.as_ref().filter(|src| {
            p.joined.is_none()
                && !p.grouped
                && !p.distinct
                && !p.rollup
                && p.order.is_empty()
                && p.having.is_none()
                && self.correlated.is_empty()
                && !src.made_in_api_node()
                && src.lock == client::LockMode::CommittedRead
                && !self.in_transaction()
        }) else {
            return self.run_select(p, params);
        };
        self.activity.interrupt.check_killed()?;
        let request = if self.diagnostics.storing == Storing::Strict {
            self.storing(Storing::No, |s| s.fetch_request(src, params))?
        } else {
            self.fetch_request(src, params)?
        };
        let Fetch::Scan(scan, decided) = request else {
            return self.run_select(p, params);
        };
        let client = |e: client::ClientError| crate::error::SqlError::from_client(&e);
        let table = src.table.clone();
        let mut cursor = self.data().scan_cursor(&table, &scan).map_err(client)?;
        let first = cursor.next_batch().map_err(client)?.unwrap_or_default();
        let first = if decided {
            first
        } else {
            self.matching(src, params, first)?
        };
        if cursor.ended() {
            // One batch holds it all: answered whole, as any other SELECT.
            return self.select_rows(p, params, first);
        }
        let free = |s: &Session, e: &Option<crate::expr::Expr>| {
            e.as_ref()
                .map(|e| s.free(e, params).and_then(count_value))
                .transpose()
        };
        let left = free(self, &p.limit)?;
        let skip = free(self, &p.offset)?.unwrap_or(0);
        let mut plan = p.clone();
        plan.limit = None;
        plan.offset = None;
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
        Ok(Outcome::Stream(Box::new(stream)))
    }

    /// The next rows of a streamed result to send (empty when the batch held none that
    /// match), or None once it has sent them all.
    pub(crate) fn stream_next(&mut self, s: &mut RowStream) -> Result<Option<Vec<Vec<Value>>>> {
        self.activity.interrupt.check_killed()?;
        let Some(cursor) = s.cursor.as_mut() else {
            return Ok(None);
        };
        let client = |e: client::ClientError| crate::error::SqlError::from_client(&e);
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
