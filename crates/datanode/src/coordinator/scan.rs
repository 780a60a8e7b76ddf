//! A coordinator's scans, a batch at a time: the partitions a scan can match
//! (`filter_partitions`), its streams (one per worker holding them, or one per partition for an
//! ordered scan, naming the transaction whose changes the scan sees to the workers it wrote on),
//! and the cursor that holds, between the client's `ScanNext`s, each stream's place and the
//! rows it read ahead, merging them (in key order for an ordered scan) into one `ScanRows`
//! batch per request.

use std::collections::VecDeque;
use std::sync::Arc;

use base::{limits, Error, ErrorCode, Value};
use wire::frame::FLAG_LAST;
use wire::{Message, ScanOrder, ScanRequest};

use super::aggregate::Aggregator;
use super::{unknown_table, Coordinator, Pending};
use crate::messages::*;
use crate::prepare::{self, locate};

/// An open scan of a connection, between its batches.
pub(super) struct ScanCursor {
    /// This cursor among all of the connection's: a worker's answer names it, so one meant for
    /// an ended scan never reaches another opened later under the same request id.
    id: u64,
    /// The client's transaction whose changes the scan sees (0: none): a batch asked for after
    /// it was rolled back for inactivity fails instead of silently reading without them.
    client_txn: u64,
    plan: Arc<ScanPlan>,
    /// The client's request, for the streams of other node groups' partitions (whose primaries
    /// plan it again for each part).
    request: ScanRequest,
    streams: Vec<Stream>,
    /// Rows still to send before the scan's limit.
    remaining: u64,
    batch_rows: usize,
    batch_bytes: usize,
    /// What one stream reads per request.
    stream_bytes: usize,
    /// Requests out to workers.
    waiting: usize,
    /// The batch being made, while the client waits for one.
    batch: Option<(Vec<Vec<Value>>, usize)>,
    failure: Option<Error>,
    /// Pushed aggregation: the groups the rows fold into, and the group rows to answer.
    aggregate: Option<(Aggregator, VecDeque<Vec<Value>>)>,
    /// An unordered scan, once every stream's first part came: whether they came keyed by
    /// primary key, to be merged by it.
    by_key: Option<bool>,
    /// A pushed join: the scans it reads, whose joined rows this cursor answers (it has no
    /// streams of its own then).
    pub(super) join: Option<Box<super::join::Join>>,
}

/// What a cursor's batch came to (`Coordinator::advance`).
pub(super) enum Progress {
    /// Nothing to answer yet: reads are out.
    Wait,
    /// A batch, and whether it is the scan's last.
    Rows(Vec<Vec<Value>>, bool),
    Failed(Error),
}

/// A worker reading the next part of stream `stream` of the open scan `request_id`, the
/// connection's cursor `cursor` (`Pending::Scan`).
pub(super) struct Reading {
    request_id: u64,
    cursor: u64,
    stream: usize,
}

/// Whether a request goes on with an open scan (its next batch, or its end), which is never
/// refused for the requests the connection has in flight: the scan would stay open.
pub(super) fn continues(message: &Message) -> bool {
    matches!(message, Message::ScanNext | Message::ScanClose)
}

/// The rows of some partitions on one worker, read a batch at a time: a worker of this node,
/// or of another node group's primary (`group`), over the step link.
struct Stream {
    worker: usize,
    group: Option<u32>,
    partitions: Vec<u32>,
    /// Here: the transaction whose changes the stream sees on its worker. On another group:
    /// this node's transaction id, whose part there the stream sees (with the link connection
    /// that part lives on).
    txn: Option<TxnId>,
    link: Option<u64>,
    /// Where its next read begins; None once it has read everything.
    next: Option<ScanPlace>,
    fetching: bool,
    /// Whether its first part has come (an unordered scan waits for every stream's first).
    answered: bool,
    rows: VecDeque<ScannedRow>,
}

impl Stream {
    fn drained(&self) -> bool {
        self.next.is_none() && self.rows.is_empty() && !self.fetching
    }
}

impl ScanCursor {
    /// The client's cursor of a pushed join (`join.rs`): no streams of its own; it answers
    /// `join`'s joined rows in the client's batches, up to the request's limit.
    pub(super) fn joined(id: u64, request: &ScanRequest, join: super::join::Join) -> ScanCursor {
        let root = join.root();
        let (batch_rows, batch_bytes) = batch_limits(request.batch_rows, request.batch_bytes);
        ScanCursor {
            id,
            client_txn: root.client_txn,
            plan: root.plan.clone(),
            request: root.request.clone(),
            streams: Vec::new(),
            remaining: if request.limit == 0 {
                u64::MAX
            } else {
                request.limit
            },
            batch_rows,
            batch_bytes,
            stream_bytes: STREAM_BYTES_MIN,
            waiting: 0,
            batch: Some((Vec::new(), 0)),
            failure: None,
            aggregate: None,
            by_key: None,
            join: Some(Box::new(join)),
        }
    }

    pub(super) fn id(&self) -> u64 {
        self.id
    }

    /// The columns of each row it answers.
    pub(super) fn width(&self) -> usize {
        self.plan.projection.len()
    }

    /// Asks for the next batch.
    pub(super) fn ask(&mut self) {
        self.batch.get_or_insert_with(Default::default);
    }

    /// Whether the client waits for a batch.
    pub(super) fn waits(&self) -> bool {
        self.batch.is_some()
    }

    /// The batch made, which the client no longer waits for.
    pub(super) fn take_batch(&mut self) -> Vec<Vec<Value>> {
        self.batch.take().map(|(rows, _)| rows).unwrap_or_default()
    }

    /// A pushed join's cursor: moves joined rows into the batch the client waits for. True
    /// when the scan has answered everything (its limit reached, or every row joined).
    pub(super) fn take_joined(&mut self) -> bool {
        let Some(join) = self.join.as_mut() else {
            return true;
        };
        if let Some((batch, bytes)) = self.batch.as_mut() {
            while batch.len() < self.batch_rows && *bytes < self.batch_bytes && self.remaining > 0 {
                let Some(row) = join.pop() else {
                    break;
                };
                *bytes += row_bytes(&row);
                batch.push(row);
                self.remaining -= 1;
            }
        }
        self.remaining == 0 || join.finished()
    }

    /// This cursor, or the one of its pushed join, that `id` names.
    fn with_id(&mut self, id: u64) -> Option<&mut ScanCursor> {
        if self.id == id {
            return Some(self);
        }
        self.join.as_mut()?.cursor_with_id(id)
    }

    /// Whether the batch being made holds as much as the client takes.
    pub(super) fn batch_full(&self) -> bool {
        self.batch.as_ref().is_some_and(|(rows, bytes)| {
            rows.len() >= self.batch_rows || *bytes >= self.batch_bytes
        })
    }

    /// Pushed aggregation: folds what the streams hold into groups, and moves the groups to
    /// answer (all of them once every row is folded, or the aggregator's when it is full) into
    /// the batch the client waits for. True once every group is answered.
    fn fold(&mut self) -> bool {
        let (rows_max, bytes_max) = (self.batch_rows, self.batch_bytes);
        let Some((aggregator, answer)) = self.aggregate.as_mut() else {
            return false;
        };
        loop {
            if !answer.is_empty() {
                let Some((batch, bytes)) = self.batch.as_mut() else {
                    break;
                };
                while batch.len() < rows_max && *bytes < bytes_max {
                    let Some(row) = answer.pop_front() else {
                        break;
                    };
                    *bytes += row_bytes(&row);
                    batch.push(row);
                }
                if !answer.is_empty() || batch.len() >= rows_max || *bytes >= bytes_max {
                    break;
                }
                // Room left in the batch: fold on (the streams may hold rows no worker will
                // send again until they are folded).
                continue;
            }
            if aggregator.full() {
                answer.extend(aggregator.take());
                continue;
            }
            if let Some(s) = self.streams.iter_mut().find(|s| !s.rows.is_empty()) {
                while let (Some((_, row)), false) = (s.rows.front(), aggregator.full()) {
                    if let Err(e) = aggregator.fold(row) {
                        self.failure = Some(e);
                        return false;
                    }
                    s.rows.pop_front();
                }
                continue;
            }
            if self.streams.iter().all(Stream::drained) {
                answer.extend(aggregator.take());
                if answer.is_empty() {
                    break;
                }
                continue;
            }
            break;
        }
        answer.is_empty() && self.streams.iter().all(Stream::drained)
    }
}

impl Coordinator {
    pub(super) fn on_scan(&mut self, request_id: u64, request: ScanRequest) {
        if let Some(error) = self.rolled_back_error(request.transaction) {
            // Rolled back here on its own: its reads would no longer see its writes.
            return self.fail(request_id, error);
        }
        if let Some(t) = self.txns.get_mut(&request.transaction) {
            // A read of the transaction is activity: it does not time out meanwhile.
            t.last_active = std::time::Instant::now();
        }
        if let Some(e) = self.queues_full() {
            return self.fail(request_id, e);
        }
        if self.scans.len() >= limits::SCANS_OPEN_PER_CONNECTION_MAX {
            return self.fail(
                request_id,
                Error::new(
                    ErrorCode::Overloaded,
                    format!(
                        "this connection holds {} open scans, the most it may",
                        limits::SCANS_OPEN_PER_CONNECTION_MAX
                    ),
                ),
            );
        }
        if self.scans.contains_key(&request_id) {
            return self.fail(
                request_id,
                Error::new(
                    ErrorCode::BadRequest,
                    "a scan is already open under this request id",
                ),
            );
        }
        let joins = self.scans.values().filter(|c| c.join.is_some()).count();
        if !request.join.is_empty() && joins >= JOINS_OPEN_PER_CONNECTION_MAX {
            return self.fail(
                request_id,
                Error::new(
                    ErrorCode::Overloaded,
                    format!(
                        "this connection holds {JOINS_OPEN_PER_CONNECTION_MAX} open pushed \
                         joins, the most it may"
                    ),
                ),
            );
        }
        let cursor = if request.join.is_empty() {
            self.cursor(request)
        } else {
            self.join_cursor(request)
        };
        match cursor {
            Err(e) => self.fail(request_id, e),
            Ok(cursor) => {
                self.scans.insert(request_id, cursor);
                self.pump_scan(request_id);
            }
        }
    }

    /// A cursor for `request`, its streams planned and nothing read yet (its batch asked for).
    pub(super) fn cursor(&mut self, request: ScanRequest) -> Result<ScanCursor, Error> {
        // Only workers that received a write of the transaction hold changes a scan must see.
        let (txn, written) = match self.txns.get(&request.transaction) {
            Some(t) if request.transaction != 0 => (Some(t.id), t.written),
            _ => (None, 0),
        };
        let (batch_rows, batch_bytes) = (request.batch_rows, request.batch_bytes);
        let client_txn = if txn.is_some() {
            request.transaction
        } else {
            0
        };
        let remote_parts = self
            .txns
            .get(&request.transaction)
            .filter(|_| request.transaction != 0)
            .map(|t| (t.id, t.remote.clone()));
        let mut kept = request.clone();
        // Other node groups' parts answer rows; this coordinator folds them.
        kept.aggregate = None;
        let aggregation = request.aggregate.clone();
        let (plan, partitions) = self.plan_scan(request)?;
        let aggregate = match aggregation.map(|spec| {
            Aggregator::new(spec, &plan.table, &plan.projection, plan.limit, plan.order)
        }) {
            None => None,
            Some(Ok(a)) => Some((a, VecDeque::new())),
            Some(Err(e)) => return Err(e),
        };
        let workers = self.shared.worker_count();
        let placement = self.shared.placement;
        let ordered = plan.order != ScanOrder::Any;
        let mut streams: Vec<Stream> = Vec::new();
        let stream = |worker: usize, partitions: Vec<u32>| {
            let group = placement.group_of(partitions[0]);
            if placement.is_local(partitions[0]) {
                return Stream {
                    worker,
                    group: None,
                    partitions,
                    txn: txn.filter(|_| written & (1 << worker) != 0),
                    link: None,
                    next: Some(ScanPlace::default()),
                    fetching: false,
                    answered: false,
                    rows: VecDeque::new(),
                };
            }
            // The transaction's part on that group, if it has one there.
            let part = remote_parts
                .as_ref()
                .and_then(|(id, parts)| Some((*id, parts.get(&group)?.link())));
            Stream {
                worker,
                group: Some(group),
                partitions,
                txn: part.map(|(id, _)| id),
                link: part.and_then(|(_, link)| link),
                next: Some(ScanPlace::default()),
                fetching: false,
                answered: false,
                rows: VecDeque::new(),
            }
        };
        if ordered {
            // Each partition's rows come sorted; the cursor merges them.
            for p in partitions {
                streams.push(stream(placement.worker_of(p), vec![p]));
            }
        } else {
            // One stream per worker of each node group the partitions are in.
            let mut per: std::collections::BTreeMap<(u32, usize), Vec<u32>> = Default::default();
            for p in partitions {
                per.entry((placement.group_of(p), placement.worker_of(p)))
                    .or_default()
                    .push(p);
            }
            for ((_, w), group) in per {
                debug_assert!(w < workers);
                streams.push(stream(w, group));
            }
        }
        let (batch_rows, batch_bytes) = batch_limits(batch_rows, batch_bytes);
        let cursor = ScanCursor {
            id: self.tag(),
            client_txn,
            remaining: if plan.limit == 0 {
                u64::MAX
            } else {
                plan.limit
            },
            plan: Arc::new(plan),
            request: kept,
            // Together the streams read about one batch ahead, each at least a little.
            stream_bytes: (batch_bytes / streams.len().max(1)).max(STREAM_BYTES_MIN),
            streams,
            batch_rows,
            batch_bytes,
            waiting: 0,
            batch: Some((Vec::new(), 0)),
            failure: None,
            aggregate,
            by_key: None,
            join: None,
        };
        Ok(cursor)
    }

    /// The client asks for an open scan's next batch.
    pub(super) fn on_scan_next(&mut self, request_id: u64) {
        let Some(cursor) = self.scans.get_mut(&request_id) else {
            return self.fail(
                request_id,
                Error::new(ErrorCode::BadRequest, "no open scan under this request id"),
            );
        };
        if cursor.batch.is_some() {
            self.scans.remove(&request_id);
            return self.fail(
                request_id,
                Error::new(
                    ErrorCode::BadRequest,
                    "ScanNext before the scan's last batch arrived: the scan is ended",
                ),
            );
        }
        cursor.batch = Some((Vec::new(), 0));
        let client_txn = cursor.client_txn;
        if client_txn != 0 {
            if let Some(error) = self.rolled_back_error(client_txn) {
                self.scans.remove(&request_id);
                return self.fail(request_id, error);
            }
            if let Some(t) = self.txns.get_mut(&client_txn) {
                // Reading its scan is activity: the transaction does not time out meanwhile.
                t.last_active = std::time::Instant::now();
            }
        }
        self.pump_scan(request_id);
    }

    /// The client ends an open scan; one that already ended is not answered.
    pub(super) fn on_scan_close(&mut self, request_id: u64) {
        if self.scans.remove(&request_id).is_some() {
            self.send_rows(request_id, Vec::new(), true);
        }
    }

    /// Sends a batch of a scan's rows; the last ends the scan.
    pub(super) fn send_rows(&mut self, request_id: u64, rows: Vec<Vec<Value>>, last: bool) {
        let flags = if last { FLAG_LAST } else { 0 };
        Message::ScanRows { rows }.write_frame(
            &mut self.out,
            self.shared.cluster_id,
            flags,
            request_id,
        );
    }

    /// Makes what progress it can on a scan: the batch the client waits for, from the rows the
    /// streams hold, asking workers for more where a stream ran out.
    pub(super) fn pump_scan(&mut self, request_id: u64) {
        let Some(mut c) = self.scans.remove(&request_id) else {
            return;
        };
        if c.join.is_some() {
            return self.pump_join(request_id, c);
        }
        match self.advance(request_id, &mut c) {
            Progress::Wait => {}
            Progress::Rows(rows, last) => {
                self.send_rows(request_id, rows, last);
                if last {
                    // Reads still out come back to a scan that is gone, and are dropped.
                    return;
                }
            }
            Progress::Failed(e) => return self.fail(request_id, e),
        }
        self.scans.insert(request_id, c);
    }

    /// Makes what progress it can on cursor `c` of the scan `request_id`: its batch (when one
    /// is asked for, `batch`), from the rows its streams hold, asking workers for more where a
    /// stream ran out.
    pub(super) fn advance(&mut self, request_id: u64, c: &mut ScanCursor) -> Progress {
        let ordered = c.plan.order != ScanOrder::Any;
        let descending = c.plan.order == ScanOrder::Descending;
        // An unordered full scan starts once every stream's first part is here. When each came
        // keyed by primary key (a small table's: `SORTED_SCAN_ROWS_MAX` in `worker/scan.rs`),
        // it merges them by key as an ordered scan does; else (an index scan, or a part came
        // without keys) it takes what any stream holds.
        if !ordered && c.by_key.is_none() {
            let unkeyed = |s: &Stream| s.rows.front().is_some_and(|(key, _)| key.is_empty());
            if c.plan.index.is_some() || c.streams.iter().any(unkeyed) {
                c.by_key = Some(false);
            } else if c.streams.iter().all(|s| s.answered) {
                c.by_key = Some(true);
            }
        }
        let merge = ordered || c.by_key == Some(true);
        let mut ended = false;
        if c.aggregate.is_some() {
            let done = c.failure.is_none() && c.fold();
            if c.failure.is_none() && (done || c.batch_full()) {
                if let Some((rows, _)) = c.batch.take() {
                    if !done {
                        self.read_ahead(request_id, c);
                    }
                    return Progress::Rows(rows, done);
                }
            }
        } else if let Some((batch, bytes)) = c.batch.as_mut().filter(|_| c.failure.is_none()) {
            loop {
                if batch.len() >= c.batch_rows || *bytes >= c.batch_bytes || c.remaining == 0 {
                    break;
                }
                // An ordered merge needs the head of every stream not yet drained; any other
                // takes what some stream holds.
                let starved = |s: &Stream| s.rows.is_empty() && !s.drained();
                let pick = if merge {
                    if c.streams.iter().any(starved) {
                        break;
                    }
                    let heads = c.streams.iter().enumerate();
                    let heads = heads.filter_map(|(i, s)| Some((i, &s.rows.front()?.0)));
                    if descending {
                        heads.max_by(|a, b| a.1.cmp(b.1)).map(|(i, _)| i)
                    } else {
                        heads.min_by(|a, b| a.1.cmp(b.1)).map(|(i, _)| i)
                    }
                } else if c.by_key.is_none() {
                    break;
                } else {
                    c.streams.iter().position(|s| !s.rows.is_empty())
                };
                let Some(i) = pick else {
                    ended = c.streams.iter().all(Stream::drained);
                    break;
                };
                let Some((_, values)) = c.streams[i].rows.pop_front() else {
                    break;
                };
                *bytes += row_bytes(&values);
                batch.push(values);
                c.remaining -= 1;
            }
            ended |= c.remaining == 0 || c.streams.iter().all(Stream::drained);
            if ended || c.batch_full() {
                let (rows, _) = c.batch.take().unwrap_or_default();
                if !ended {
                    self.read_ahead(request_id, c);
                }
                return Progress::Rows(rows, ended);
            }
        }
        if c.failure.is_some() && c.batch.is_some() && c.waiting == 0 {
            let e = c
                .failure
                .take()
                .unwrap_or_else(|| Error::new(ErrorCode::Internal, "scan"));
            return Progress::Failed(e);
        }
        if c.failure.is_none() {
            self.read_ahead(request_id, c);
        }
        Progress::Wait
    }

    /// Asks every stream that holds no rows and has more for its next part.
    fn read_ahead(&mut self, request_id: u64, c: &mut ScanCursor) {
        for (i, s) in c.streams.iter_mut().enumerate() {
            if s.fetching || !s.rows.is_empty() {
                continue;
            }
            let Some(from) = s.next.take() else {
                continue;
            };
            let tag = self.tag();
            s.fetching = true;
            c.waiting += 1;
            self.pending.insert(
                tag,
                Pending::Scan(Reading {
                    request_id,
                    cursor: c.id,
                    stream: i,
                }),
            );
            let rows_max = c
                .batch_rows
                .min(c.remaining.min(usize::MAX as u64) as usize);
            if let Some(group) = s.group {
                let stream = (s.txn, s.link, s.partitions.as_slice());
                self.read_remote(
                    tag,
                    group,
                    stream,
                    &c.request,
                    from,
                    rows_max,
                    c.stream_bytes,
                );
                continue;
            }
            self.outbox.push((
                s.worker,
                ToWorker::Scan {
                    tag,
                    partitions: s.partitions.clone(),
                    plan: c.plan.clone(),
                    txn: s.txn,
                    from,
                    rows_max,
                    bytes_max: c.stream_bytes,
                    reply_to: self.me,
                },
            ));
        }
    }

    /// Table `id`'s definition, which must be of `version`.
    pub(super) fn table_def(&self, id: u32, version: u32) -> Result<Arc<base::TableDef>, Error> {
        let table = {
            let catalog = self
                .shared
                .catalog
                .read()
                .map_err(|_| Error::new(ErrorCode::Internal, "catalog poisoned"))?;
            catalog
                .get(id)
                .map(|e| e.def.clone())
                .ok_or_else(|| unknown_table(&catalog, id))?
        };
        if table.version != version {
            return Err(crate::worker::changed(&table, version));
        }
        Ok(table)
    }

    pub(super) fn plan_scan(
        &self,
        mut request: ScanRequest,
    ) -> Result<(ScanPlan, Vec<u32>), Error> {
        if !request.join.is_empty() {
            return Err(Error::new(
                ErrorCode::BadRequest,
                "a scan part or child carries no pushed join",
            ));
        }
        let table = self.table_def(request.table, request.version)?;
        let projection = prepare::check_projection(&table, request.projection)?;
        let filter = prepare::prepare_filter(&table, request.filter)?;
        let mut partitions: Vec<u32> = (0..table.partition_count).collect();
        let (mut lower, mut upper) = (None, None);
        let mut keys = Vec::new();
        let mut key_partitions = Vec::new();
        let by_keys = !request.keys.is_empty();
        if request.first_per_key && !by_keys {
            return Err(Error::new(
                ErrorCode::BadRequest,
                "first per key needs the scan's keys",
            ));
        }
        let index = match request.index {
            None if !request.keys.is_empty() => {
                return Err(Error::new(
                    ErrorCode::BadRequest,
                    "a scan by keys needs an ordered index",
                ))
            }
            None => None,
            Some(i) => {
                let def = table.indexes.get(i as usize).ok_or_else(|| {
                    Error::new(
                        ErrorCode::NoSuchIndex,
                        format!("table '{}' has no index {i}", table.name),
                    )
                })?;
                // An ordered index's entries end with the primary key: a bound may go on into
                // its columns (an extended key).
                let extended: &[u16] = match def.kind {
                    base::schema::IndexKind::Ordered => &table.primary_key,
                    _ => &[],
                };
                // A scan by keys' bounds go on from each key's columns.
                let after = request.keys.first().map_or(0, Vec::len);
                let bound = |b: Option<wire::Bound>,
                             upper: bool|
                 -> Result<Option<(Vec<Value>, bool)>, Error> {
                    let Some(b) = b else { return Ok(None) };
                    if after + b.values.len() > def.columns.len() + extended.len() {
                        return Err(Error::new(
                            ErrorCode::BadRequest,
                            format!(
                                "bound has more values than index '{}' and the primary key have columns",
                                def.name
                            ),
                        ));
                    }
                    let columns = def.columns.iter().chain(extended).skip(after);
                    let values = columns
                        .clone()
                        .zip(b.values)
                        .map(|(c, v)| prepare::comparable(&table, *c, v))
                        .collect::<Result<_, _>>()?;
                    Ok(Some(within_integers(
                        &table,
                        columns,
                        values,
                        b.inclusive,
                        upper,
                    )))
                };
                lower = bound(request.lower, false)?;
                upper = bound(request.upper, true)?;
                if !request.keys.is_empty() {
                    if request.order == ScanOrder::Descending {
                        return Err(Error::new(
                            ErrorCode::BadRequest,
                            "a scan by index keys reads in ascending order only",
                        ));
                    }
                    let width = request.keys[0].len();
                    for key in std::mem::take(&mut request.keys) {
                        if key.len() != width || width == 0 {
                            return Err(Error::new(
                                ErrorCode::BadRequest,
                                "the keys of a scan must all have the same, nonzero length",
                            ));
                        }
                        if key.len() > def.columns.len() {
                            return Err(Error::new(
                                ErrorCode::BadRequest,
                                format!(
                                    "a key has more values than index '{}' has columns",
                                    def.name
                                ),
                            ));
                        }
                        // A key holding NULL, or a value no row's column can equal exactly,
                        // matches no row (as SQL's equality).
                        let mut exact = Vec::with_capacity(key.len());
                        for (c, v) in def.columns.iter().zip(key) {
                            match prepare::exact_key_value(&table, *c, v)? {
                                Some(v) => exact.push(v),
                                None => break,
                            }
                        }
                        if exact.len() == width {
                            keys.push(exact);
                        }
                    }
                }
                // Keys that bind the partition key: each read only where its row would live.
                if let Some(at) = bound_partition_key(&table, def, keys.first().map_or(0, Vec::len))
                {
                    key_partitions = keys
                        .iter()
                        .map(|k| {
                            let values: Vec<Value> = at.iter().map(|i| k[*i].clone()).collect();
                            locate(&table, &table.partition_key, &values).1
                        })
                        .collect();
                    partitions = key_partitions.clone();
                    partitions.sort_unstable();
                    partitions.dedup();
                    if partitions.is_empty() {
                        partitions.push(0);
                    }
                }
                // Prune to one partition when an equality bound fixes every partition-key column
                // (a scan by keys' bounds are on the columns after its keys').
                if let (Some((lv, true)), Some((uv, true)), false) = (&lower, &upper, by_keys) {
                    if lv == uv {
                        let key: Option<Vec<Value>> = table
                            .partition_key
                            .iter()
                            .map(|pc| {
                                // A column the index holds a prefix of fixes only the prefix.
                                def.columns
                                    .iter()
                                    .position(|c| c == pc)
                                    .filter(|at| def.prefix(*at).is_none())
                                    .and_then(|at| lv.get(at))
                                    .cloned()
                            })
                            .collect();
                        if let Some(key) = key {
                            let mut bytes = Vec::new();
                            table.encode_key(&table.partition_key, &key, &mut bytes);
                            partitions =
                                vec![base::placement::partition_of(&bytes, table.partition_count)];
                        }
                    }
                }
                Some(i as usize)
            }
        };
        if partitions.len() > 1 {
            if let Some(pruned) = filter_partitions(&table, &filter) {
                partitions = pruned;
            }
        }
        let order = if index.is_none() {
            ScanOrder::Any
        } else {
            request.order
        };
        let plan = ScanPlan {
            table,
            index,
            lower,
            upper,
            keys,
            by_keys,
            first_per_key: request.first_per_key,
            key_partitions,
            filter,
            projection,
            limit: request.limit,
            order,
        };
        Ok((plan, partitions))
    }

    /// A worker's part of a scan arrived.
    pub(super) fn on_scan_part(&mut self, tag: u64, part: Result<ScanPart, Error>) {
        let Some(Pending::Scan(Reading {
            request_id,
            cursor,
            stream,
        })) = self.pending.remove(&tag)
        else {
            return;
        };
        let Some(c) = self
            .scans
            .get_mut(&request_id)
            .and_then(|c| c.with_id(cursor))
        else {
            // The scan ended (closed, failed, or its limit reached) while this was out.
            return;
        };
        if stream >= c.streams.len() {
            return;
        }
        c.waiting -= 1;
        let s = &mut c.streams[stream];
        s.fetching = false;
        s.answered = true;
        match part {
            Ok(part) => {
                s.rows.extend(part.rows);
                s.next = part.next;
            }
            Err(e) => {
                c.failure.get_or_insert(e);
            }
        }
        self.pump_scan(request_id);
    }
}

/// The rows and bytes a batch takes at most, for a request's (0: the defaults).
fn batch_limits(rows: u32, bytes: u32) -> (usize, usize) {
    let rows = match rows as usize {
        0 => limits::SCAN_BATCH_ROWS_MAX,
        n => n.min(limits::SCAN_BATCH_ROWS_MAX),
    };
    let bytes = match bytes as usize {
        0 => limits::SCAN_BATCH_BYTES_DEFAULT,
        n => n.min(limits::SCAN_BATCH_BYTES_MAX),
    };
    (rows, bytes)
}

/// Pushed joins one connection keeps open at most (each holds up to
/// `limits::JOIN_HELD_BYTES_MAX` of rows).
const JOINS_OPEN_PER_CONNECTION_MAX: usize = 8;

/// What a stream reads per request at least, however many streams share a batch (an ordered
/// scan of 1,024 partitions then holds 4 MiB read ahead at most, past a row each).
const STREAM_BYTES_MIN: usize = 4 * 1024;

/// Where each partition-key column sits in a key of `index`'s first `width` columns, when
/// those columns hold the whole partition key (none cut to a prefix).
fn bound_partition_key(
    table: &base::TableDef,
    index: &base::schema::IndexDef,
    width: usize,
) -> Option<Vec<usize>> {
    let bound = index.columns.get(..width)?;
    table
        .partition_key
        .iter()
        .map(|pc| {
            bound
                .iter()
                .position(|c| c == pc)
                .filter(|at| index.prefix(*at).is_none())
        })
        .collect()
}

/// Partition-key values a scan's filter may fix at most, across its IN lists (beyond, the scan
/// reads every partition).
const PRUNE_KEYS_MAX: usize = 256;

/// The partitions a scan's filter can match, when it fixes every partition-key column: a
/// conjunction with `col = v` or `col IN (...)` for each (NDB's partition pruning). None when it
/// does not. Values are the filter's prepared ones, comparable as the key's columns hash.
fn filter_partitions(table: &base::TableDef, filter: &base::filter::Filter) -> Option<Vec<u32>> {
    use base::filter::{CmpOp, Filter};
    let conjuncts = match filter {
        Filter::And(list) => list.as_slice(),
        one => std::slice::from_ref(one),
    };
    let values_of = |col: u16| -> Option<Vec<&Value>> {
        conjuncts.iter().find_map(|f| match f {
            Filter::Cmp {
                column,
                op: CmpOp::Eq,
                value,
            } if *column == col => Some(vec![value]),
            Filter::In { column, values } | Filter::InSorted { column, values }
                if *column == col =>
            {
                Some(values.iter().collect())
            }
            _ => None,
        })
    };
    let mut keys: Vec<Vec<Value>> = vec![Vec::new()];
    for &column in &table.partition_key {
        // NULL equals nothing: a key holding one matches no row.
        let values: Vec<&Value> = values_of(column)?
            .into_iter()
            .filter(|v| !v.is_null())
            .collect();
        if keys.len() * values.len() > PRUNE_KEYS_MAX {
            return None;
        }
        keys = keys
            .iter()
            .flat_map(|k| {
                values.iter().map(move |v| {
                    let mut k = k.clone();
                    k.push((*v).clone());
                    k
                })
            })
            .collect();
    }
    let mut partitions: Vec<u32> = keys
        .iter()
        .map(|k| locate(table, &table.partition_key, k).1)
        .collect();
    partitions.sort_unstable();
    partitions.dedup();
    if partitions.is_empty() {
        // No key can match: one partition, where the filter finds nothing, answers.
        partitions.push(0);
    }
    Some(partitions)
}

/// Which side of `lo..=hi` an integer lies on, None within.
fn outside(n: i128, lo: i128, hi: i128) -> Option<std::cmp::Ordering> {
    match n {
        n if n < lo => Some(std::cmp::Ordering::Less),
        n if n > hi => Some(std::cmp::Ordering::Greater),
        _ => None,
    }
}

/// `outside` for a float (NaN: within, left as it was). `hi + 1` is a power of two, exact as a
/// float where `hi` may not be (BIGINT's rounds up to 2^63).
fn outside_f64(x: f64, lo: i128, hi: i128) -> Option<std::cmp::Ordering> {
    match x {
        x if x < lo as f64 => Some(std::cmp::Ordering::Less),
        x if x >= (hi + 1) as f64 => Some(std::cmp::Ordering::Greater),
        _ => None,
    }
}

/// A range bound with an integer column's value past the column's range (a native client's,
/// as an integer, DOUBLE, FLOAT or DECIMAL; SQL sends none) as the bound it means on the values
/// before it, which the key encoding can hold: the values up to it, past all rows with them when
/// it lies beyond the range on the bound's far side (above the largest value for a lower bound,
/// below the smallest for an upper one), else taking every such row. Without this the value's
/// encoding wraps into the column's width (300 in a TINYINT's byte reads as 44; 1e30 as 0). An
/// empty exclusive bound matches nothing.
fn within_integers<'a>(
    table: &base::TableDef,
    columns: impl Iterator<Item = &'a u16>,
    mut values: Vec<Value>,
    inclusive: bool,
    upper: bool,
) -> (Vec<Value>, bool) {
    for (at, c) in columns.enumerate().take(values.len()) {
        let Some((lo, hi)) = table
            .columns
            .get(usize::from(*c))
            .and_then(|col| col.ty.integer_range())
        else {
            continue;
        };
        // Below the range (Less) or above it (Greater); a number the column's type did not
        // take (a DOUBLE of 1e30) is compared as it is.
        let side = match &values[at] {
            Value::Int(i) => outside(i128::from(*i), lo, hi),
            Value::UInt(u) => outside(i128::from(*u), lo, hi),
            Value::Double(d) => outside_f64(*d, lo, hi),
            Value::Float(f) => outside_f64(f64::from(*f), lo, hi),
            Value::Decimal(d) => outside_f64(d.to_f64(), lo, hi),
            _ => None,
        };
        let Some(side) = side else { continue };
        values.truncate(at);
        // Past the far side: beyond every row with the values before it.
        let beyond = match upper {
            true => side == std::cmp::Ordering::Less,
            false => side == std::cmp::Ordering::Greater,
        };
        return (values, !beyond);
    }
    (values, inclusive)
}

#[cfg(test)]
mod tests {
    use super::*;
    use base::filter::{CmpOp, Filter};
    use base::schema::ColumnDef;
    use base::types::ColumnType;

    fn table() -> base::TableDef {
        let columns = vec![
            ColumnDef::new("a", ColumnType::Int { unsigned: false }),
            ColumnDef::new("b", ColumnType::VarChar { length: 5 }),
            ColumnDef::new("v", ColumnType::Int { unsigned: false }).nullable(),
        ];
        let mut t = base::TableDef::new("t", columns, &["a", "b"])
            .unwrap()
            .with_partition_key(&["b"])
            .unwrap();
        t.partition_count = 8;
        t
    }

    fn eq(column: u16, value: Value) -> Filter {
        Filter::Cmp {
            column,
            op: CmpOp::Eq,
            value,
        }
    }

    /// The partition a row with `b` lives in, as writes place it (by its primary key).
    fn home(t: &base::TableDef, b: &str) -> u32 {
        locate(t, &t.primary_key, &[Value::Int(1), Value::Bytes(b.into())]).1
    }

    #[test]
    fn filter_fixing_the_partition_key_prunes() {
        let t = table();
        let b = |s: &str| Value::Bytes(s.into());
        let gt = Filter::Cmp {
            column: 0,
            op: CmpOp::Gt,
            value: Value::Int(1),
        };
        assert_eq!(
            filter_partitions(&t, &eq(1, b("x"))),
            Some(vec![home(&t, "x")])
        );
        assert_eq!(
            filter_partitions(&t, &Filter::And(vec![gt.clone(), eq(1, b("x"))])),
            Some(vec![home(&t, "x")])
        );
        let mut both = vec![home(&t, "x"), home(&t, "yy")];
        both.sort_unstable();
        both.dedup();
        let listed = Filter::In {
            column: 1,
            values: vec![b("x"), Value::Null, b("yy"), b("x")],
        };
        assert_eq!(filter_partitions(&t, &listed), Some(both));
        // Only NULL: nothing can match, one partition answers that.
        let nulls = Filter::In {
            column: 1,
            values: vec![Value::Null],
        };
        assert_eq!(filter_partitions(&t, &nulls), Some(vec![0]));
        // Not fixed: a primary-key column that is not in the partition key, OR, a range.
        assert_eq!(filter_partitions(&t, &eq(0, Value::Int(1))), None);
        assert_eq!(filter_partitions(&t, &gt), None);
        let either = Filter::Or(vec![eq(1, b("x")), eq(1, b("y"))]);
        assert_eq!(filter_partitions(&t, &either), None);
        assert_eq!(filter_partitions(&t, &Filter::True), None);
        // Too many keys to list: every partition.
        let many = Filter::In {
            column: 1,
            values: (0..=PRUNE_KEYS_MAX).map(|i| b(&i.to_string())).collect(),
        };
        assert_eq!(filter_partitions(&t, &many), None);
    }
}
