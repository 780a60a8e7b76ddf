//! A single-table SELECT as one step of reads with no I/O of its own: `start_select` answers
//! the result when no row need be read, or the reads to make (a `Fetch`: keys or one scan);
//! `finish_select` answers the result from the rows those reads returned. The connection's
//! thread drives the step through its blocking transaction (`Executor::run_select`), the
//! reactor through its event links (`server/reactor.rs`, `Fetch::request`), so both run the
//! same code around their I/O.

use base::Value;
use client::{ExecType, Operation, ScanRequest};

use crate::exec::diagnostics::Storing;
use crate::exec::join::Joining;
use crate::exec::run::Fetch;
use crate::exec::{Exec, Executor, Outcome};
use crate::foundation::error::Result;
use crate::plan::{SelectPlan, Source};

/// What a step's start answers.
pub(crate) enum Start<'p> {
    /// The result, read from nothing (no table, or no key can match).
    Done(Outcome),
    /// The table read and the reads to make, then `finish_select` with their rows.
    Read(&'p Source, Fetch),
    /// A join the data node does not read whole this time (`pushed_step`): the connection's
    /// thread joins it.
    Unpushed,
}

/// A step's reads as the data node takes them, for a driver that sends them itself.
pub(crate) enum Request {
    /// One read per key, sent in one batch.
    Keys(Vec<Operation>),
    Scan(Box<ScanRequest>),
}

/// Whether `p` runs as one step: at most one table, read by the data node (not a derived or
/// information_schema table), with no other table joined.
pub(crate) fn one_step(p: &SelectPlan) -> bool {
    p.joined.is_none() && p.source.as_ref().is_none_or(|s| !s.made_in_api_node())
}

/// Whether `p` is a join the data node may read whole in one request (a pushed join of every
/// table, `Joined::fully_pushed`), which the reactor then serves as one step.
pub(crate) fn pushed_step(p: &SelectPlan) -> bool {
    p.joined.as_ref().is_some_and(|j| j.fully_pushed())
        && p.source.as_ref().is_some_and(|s| !s.made_in_api_node())
}

/// Whether `p`'s items read what answering its rows a batch at a time would change from one
/// batch to the next: FOUND_ROWS() (each batch's rows set it) or a user variable.
pub(crate) fn changes_per_batch(p: &SelectPlan) -> bool {
    let mut found = false;
    for item in &p.items {
        item.walk(&mut |x| {
            found |= matches!(
                x,
                crate::expr::Expr::Var(_)
                    | crate::expr::Expr::Session(crate::expr::SessionFn::FoundRows)
            )
        });
    }
    found
}

/// Whether `p`'s result is the rows its reads return, each answered alone and in the order
/// read (no grouping, DISTINCT, window, HAVING, ORDER BY, LIMIT or OFFSET, no long value kept
/// in parts), so each batch of a scan's rows can go to the client as it comes
/// (`server/reactor.rs`, `finish_select` on each batch).
pub(crate) fn streams(p: &SelectPlan) -> bool {
    let holds_parts = p.source.as_ref().is_some_and(|s| s.table.holds_parts())
        || p.joined
            .as_ref()
            .is_some_and(|j| j.steps.iter().any(|s| s.source.table.holds_parts()));
    // A division in a WHERE re-checked here: a strict statement's warning for its constant
    // part is raised once per check.
    let divides = p
        .source
        .as_ref()
        .and_then(|s| s.filter.as_ref())
        .is_some_and(crate::exec::diagnostics::divides);
    !p.grouped
        && !p.distinct
        && !divides
        && !changes_per_batch(p)
        && !p.rollup
        && !p.windowed()
        && p.having.is_none()
        && p.order.is_empty()
        && p.limit.is_none()
        && p.offset.is_none()
        && p.pushed_aggregate.is_none()
        && !holds_parts
}

impl Fetch {
    /// The reads as one request (None: more keys than one batch holds, or a scan the table
    /// cannot take, which the thread runs instead).
    pub(crate) fn request(self, src: &Source) -> Option<Request> {
        let columns = self.columns(src).to_vec();
        match self {
            Fetch::Keys { unique, keys, .. }
                if keys.len() <= base::limits::BATCH_OPERATIONS_MAX =>
            {
                Some(Request::Keys(
                    keys.into_iter()
                        .map(|key| {
                            Operation::read(
                                src.table.id(),
                                src.table.version(),
                                unique,
                                key,
                                src.lock,
                                columns.clone(),
                            )
                        })
                        .collect(),
                ))
            }
            Fetch::Keys { .. } | Fetch::Nothing => None,
            Fetch::Scan(scan, _) => scan
                .request(&src.table)
                .ok()
                .map(|r| Request::Scan(Box::new(r))),
        }
    }

    /// Whether any replica may answer: a committed read of a READ_BACKUP table by primary key
    /// or by scan (a backup takes no unique-index lookups).
    pub(crate) fn any_replica(&self, src: &Source) -> bool {
        src.lock == client::LockMode::CommittedRead
            && src.table.def().options.reads_any_replica()
            && matches!(self, Fetch::Keys { unique: None, .. } | Fetch::Scan(..))
    }

    /// The keys, or the scan's pushed filter, decide the WHERE: the rows read need no re-check.
    pub(crate) fn decided(&self, src: &Source) -> bool {
        match self {
            Fetch::Keys { decided, .. } => *decided,
            Fetch::Scan(_, all) => *all && src.lock == client::LockMode::CommittedRead,
            Fetch::Nothing => false,
        }
    }

    /// The columns these reads fetch: of decided keys, only those the statement reads beyond
    /// the WHERE (`Source::decided_fetch`).
    pub(crate) fn columns<'s>(&self, src: &'s Source) -> &'s [u16] {
        match (self, src.decided_fetch) {
            (Fetch::Keys { decided: true, .. }, Some(n)) => {
                src.fetch.get(..n).unwrap_or(&src.fetch)
            }
            _ => &src.fetch,
        }
    }
}

/// A single-table SELECT's step, over the executor's context.
pub(crate) trait Stepping: Executor {
    /// The start of `p` (which `one_step` or `pushed_step` accepts) with these parameters.
    fn start_select<'p>(&mut self, p: &'p SelectPlan, params: &[Value]) -> Result<Start<'p>> {
        let Some(src) = &p.source else {
            return Ok(Start::Done(self.select_rows(
                p,
                params,
                vec![Vec::new()],
            )?));
        };
        if let Some(j) = &p.joined {
            return Ok(match self.pushed_scan(src, j, params)? {
                None => Start::Unpushed,
                Some(Fetch::Nothing) => Start::Done(self.select_rows(p, params, Vec::new())?),
                Some(fetch) => Start::Read(src, fetch),
            });
        }
        match self.key_request(src, params)? {
            Fetch::Nothing => Ok(Start::Done(self.select_rows(p, params, Vec::new())?)),
            Fetch::Scan(scan, decided) => {
                let scan = self.in_index_order(p, src, params, *scan, decided)?;
                Ok(Start::Read(src, Fetch::Scan(Box::new(scan), decided)))
            }
            fetch => Ok(Start::Read(src, fetch)),
        }
    }

    /// `scan` read in the order of the index that gives `p`'s ORDER BY, if one does
    /// (`stream::index_order`), and, when its rows are the result's one to one and the filter
    /// `decided` the WHERE, stopped at the LIMIT (past the OFFSET): `WHERE cust = ? AND id > ?
    /// ORDER BY id LIMIT 20` reads 20 entries of KEY (cust). The rows are sorted again after,
    /// which keeps that order.
    fn in_index_order(
        &mut self,
        p: &SelectPlan,
        src: &Source,
        params: &[Value],
        scan: client::Scan,
        decided: bool,
    ) -> Result<client::Scan> {
        if p.order.is_empty() || p.pushed_aggregate.is_some() || p.grouped {
            return Ok(scan);
        }
        let Some((index, direction, fixed)) = crate::exec::stream::index_order(p, src) else {
            return Ok(scan);
        };
        if scan.index_name().is_some_and(|i| i != index) || fixed && scan.index_name().is_none() {
            return Ok(scan);
        }
        let mut scan = scan.through_index(&index).order(direction);
        let one_to_one = !p.distinct
            && !p.rollup
            && !p.windowed()
            && p.having.is_none()
            && !changes_per_batch(p);
        if let (Some(limit), true) = (&p.limit, decided && one_to_one) {
            use crate::expr::aggregate::count_value;
            let limit = self.free(limit, params).and_then(count_value)?;
            let skip = match &p.offset {
                Some(o) => self.free(o, params).and_then(count_value)?,
                None => 0,
            };
            scan = scan.limit(skip.saturating_add(limit).max(1));
        }
        Ok(scan)
    }

    /// The result of `p` from the rows its reads returned (`decided`: the data node's filter
    /// decided the WHERE).
    fn finish_select(
        &mut self,
        p: &SelectPlan,
        params: &[Value],
        decided: bool,
        rows: Vec<Vec<Value>>,
    ) -> Result<Outcome> {
        let rows = match (&p.source, &p.joined) {
            (Some(src), Some(j)) => {
                let rows = self.pushed_rows(src, j, params, decided, rows)?;
                self.filtered(j.rest(decided), params, rows)?
            }
            (Some(src), None) if !decided => self.matching(src, params, rows)?,
            _ => rows,
        };
        self.select_rows(p, params, rows)
    }

    /// What `src` asks of the data node for these parameters. The keys and bounds read no
    /// row: a division by zero there warns, as MariaDB works them out while optimizing, even
    /// where one met row by row fails the statement.
    fn key_request(&mut self, src: &Source, params: &[Value]) -> Result<Fetch> {
        if self.diagnostics.storing == Storing::Strict {
            self.storing(Storing::No, |s| s.fetch_request(src, params))
        } else {
            self.fetch_request(src, params)
        }
    }

    /// Runs a step on this thread: its reads in the session's transaction.
    fn run_step(&mut self, p: &SelectPlan, params: &[Value]) -> Result<Outcome> {
        let (src, fetch) = match self.start_select(p, params)? {
            Start::Done(outcome) => return Ok(outcome),
            Start::Read(src, fetch) => (src, fetch),
            Start::Unpushed => {
                return Err(crate::foundation::error::SqlError::new(
                    1105,
                    "HY000",
                    "internal: a join run as one step",
                ))
            }
        };
        // A scan whose filter decides the WHERE, of a plan the data node can group: it folds
        // the rows and answers a row per group.
        if let (Some(pushed), Fetch::Scan(scan, true)) = (&p.pushed_aggregate, &fetch) {
            if self.pushdown_aggregates() {
                let scan = (**scan).clone().aggregate(pushed.spec.clone());
                let fetch = Fetch::Scan(Box::new(scan), true);
                let rows = self.transactional(|s, txn, last: ExecType| {
                    s.read_fetch(txn, last, src, fetch, false)
                })?;
                return self.select_rows_from(p, params, rows, Some(pushed));
            }
        }
        let decided = fetch.decided(src);
        let rows =
            self.transactional(|s, txn, last: ExecType| s.read_fetch(txn, last, src, fetch, true))?;
        self.finish_select(p, params, decided, rows)
    }
}

impl<S: Exec> Stepping for S {}
