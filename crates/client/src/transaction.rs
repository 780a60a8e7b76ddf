//! The synchronous transaction: define operations, then `execute` sends them all in one request.

use std::sync::atomic::Ordering;

use base::Value;
use wire::{ExecType, ExecuteOutcome, LockMode, Message, OpKind, OpResult, Operation};

use crate::connection::{unexpected, Cluster};
use crate::table::{Scan, Table};
use crate::{ClientError, Result};

/// Refers to one operation of a transaction, to read its result after `execute`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpId(usize);

/// A transaction: operations accumulate and go out together on `execute`. Locks taken by earlier
/// executes with NoCommit are held until Commit or Rollback. Dropping an open transaction rolls it
/// back.
pub struct Transaction {
    cluster: Cluster,
    id: u64,
    pending: Vec<Operation>,
    /// Inserts of the parts of long values among the pending operations (`crate::lob`), each
    /// with the index of the operation whose value it holds; sent before them.
    parts: Vec<(usize, Operation)>,
    /// The first pending operation refused before sending (a long value not valid for its
    /// column), and why: the next execute fails with it.
    refused: Option<(usize, base::Error)>,
    results: Vec<OpResult>,
    /// The data node may hold state for this transaction.
    open: bool,
    /// The current statement (`begin_statement`); 0: none, a failure aborts the transaction.
    statement: u32,
    /// The current statement sent a write.
    wrote: bool,
    /// The oldest statement `undo_from` may name (0: none, see `keep_undo_from`).
    keep_from: u32,
    /// Write operations sent by this transaction's executes, all statements together.
    writes_sent: u64,
    /// An execute was sent.
    sent: bool,
    /// An execute with Commit succeeded: the transaction took effect.
    committed: bool,
    /// Whether the pending operations may go to a READ_BACKUP reader (`Cluster::reader`).
    read_route: ReadRoute,
}

/// What the pending operations allow: committed primary-key reads of READ_BACKUP tables, all
/// in one node group, may be answered by any replica of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ReadRoute {
    /// Nothing pending.
    Empty,
    /// Every pending operation is such a read of node group `.0`'s rows.
    Group(u32),
    /// Some pending operation is not.
    No,
}

impl Transaction {
    /// The commit's name in the cluster: its connection's session and this transaction's number
    /// there (`Cluster::commit_outcome` asks how it ended after a lost connection).
    pub fn commit_name(&self) -> (u64, u64) {
        (self.cluster.session(), self.id)
    }

    pub(crate) fn new(cluster: Cluster) -> Transaction {
        let id = cluster.inner.next_txn.fetch_add(1, Ordering::Relaxed);
        Transaction {
            cluster,
            id,
            pending: Vec::new(),
            parts: Vec::new(),
            refused: None,
            results: Vec::new(),
            open: false,
            statement: 0,
            wrote: false,
            keep_from: 0,
            writes_sent: 0,
            committed: false,
            sent: false,
            read_route: ReadRoute::Empty,
        }
    }

    /// Before anything is sent: a transaction whose first row lives in another node group than
    /// the connection's goes to that group's primary, which then coordinates it with no hop
    /// for its first rows (NDB's transaction hint). Values not in their column's canonical
    /// form may hash otherwise than the data node's: the transaction then only takes the hop.
    fn route_by(&mut self, table: &Table, key: &[Value], values: &[(u16, Value)]) {
        let Some(group) = self.group_of_row(table, key, values) else {
            return;
        };
        if let Some(routed) = self.cluster.route(group) {
            self.id = routed.inner.next_txn.fetch_add(1, Ordering::Relaxed);
            self.cluster = routed;
        }
    }

    /// The node group holding the row with primary key `key` (or whose values name its
    /// primary-key columns) in a cluster of several groups; 0 in a cluster of one.
    fn group_of_row(&self, table: &Table, key: &[Value], values: &[(u16, Value)]) -> Option<u32> {
        if self.cluster.groups().1 <= 1 {
            return Some(0);
        }
        let def = table.def();
        let pk_value = |column: u16| -> Option<Value> {
            match def.primary_key.iter().position(|c| *c == column) {
                Some(at) if !key.is_empty() => key.get(at).cloned(),
                _ => values
                    .iter()
                    .find(|(c, _)| *c == column)
                    .map(|(_, v)| v.clone()),
            }
        };
        let part = def
            .partition_key
            .iter()
            .map(|c| pk_value(*c))
            .collect::<Option<Vec<Value>>>()?;
        let mut bytes = Vec::new();
        def.encode_key(&def.partition_key, &part, &mut bytes);
        let partition = base::placement::partition_of(&bytes, def.partition_count);
        self.cluster.group_of(partition)
    }

    /// Adds any operation; returns its id. Its long TEXT or BLOB values are not cut into parts
    /// (the typed methods below do), so the data node refuses one past
    /// `LOB_INLINE_BYTES_MAX`; references to parts it reads are joined as any.
    pub fn push(&mut self, op: Operation) -> OpId {
        self.read_route = ReadRoute::No;
        self.push_op(op)
    }

    fn push_op(&mut self, op: Operation) -> OpId {
        self.pending.push(op);
        OpId(self.results.len() + self.pending.len() - 1)
    }

    fn keyed(
        &mut self,
        kind: OpKind,
        table: &Table,
        index: Option<u16>,
        key: Vec<Value>,
        mut values: Vec<(u16, Value)>,
        projection: Vec<u16>,
    ) -> OpId {
        if table.holds_parts() && !matches!(kind, OpKind::Read(_) | OpKind::Delete) {
            let owner = self.results.len() + self.pending.len();
            match crate::lob::cut(&self.cluster, table.def(), &mut values) {
                Ok(parts) => self.parts.extend(parts.into_iter().map(|op| (owner, op))),
                Err(e) => {
                    self.refused.get_or_insert((owner, e));
                }
            }
        }
        if !self.sent && self.pending.is_empty() && index.is_none() {
            self.route_by(table, &key, &values);
        }
        self.read_route = match self.read_route {
            ReadRoute::No => ReadRoute::No,
            route
                if kind == OpKind::Read(LockMode::CommittedRead)
                    && index.is_none()
                    && table.def().options.reads_any_replica() =>
            {
                match (route, self.group_of_row(table, &key, &values)) {
                    (ReadRoute::Empty, Some(g)) => ReadRoute::Group(g),
                    (ReadRoute::Group(h), Some(g)) if g == h => ReadRoute::Group(g),
                    _ => ReadRoute::No,
                }
            }
            _ => ReadRoute::No,
        };
        self.push_op(Operation {
            kind,
            table: table.id(),
            version: table.version(),
            index,
            key,
            values,
            projection,
        })
    }

    /// Reads the row with primary key `key`: all visible columns, committed read.
    pub fn read(&mut self, table: &Table, key: Vec<Value>) -> OpId {
        self.keyed(
            OpKind::Read(LockMode::CommittedRead),
            table,
            None,
            key,
            Vec::new(),
            Vec::new(),
        )
    }

    /// Reads by primary key with a lock mode and the columns to return (empty: all).
    pub fn read_with(
        &mut self,
        table: &Table,
        key: Vec<Value>,
        lock: LockMode,
        columns: Vec<u16>,
    ) -> OpId {
        self.keyed(OpKind::Read(lock), table, None, key, Vec::new(), columns)
    }

    /// Reads through unique index `index` (see `Table::unique_index`).
    pub fn read_unique(
        &mut self,
        table: &Table,
        index: u16,
        key: Vec<Value>,
        lock: LockMode,
        columns: Vec<u16>,
    ) -> OpId {
        self.keyed(
            OpKind::Read(lock),
            table,
            Some(index),
            key,
            Vec::new(),
            columns,
        )
    }

    pub fn insert(&mut self, table: &Table, values: Vec<(u16, Value)>) -> OpId {
        self.keyed(OpKind::Insert, table, None, Vec::new(), values, Vec::new())
    }

    pub fn update(&mut self, table: &Table, key: Vec<Value>, values: Vec<(u16, Value)>) -> OpId {
        self.keyed(OpKind::Update, table, None, key, values, Vec::new())
    }

    /// Inserts, or updates the given columns when the key exists.
    pub fn write(&mut self, table: &Table, key: Vec<Value>, values: Vec<(u16, Value)>) -> OpId {
        self.keyed(OpKind::Write, table, None, key, values, Vec::new())
    }

    /// Adds `amounts` to integer columns of the row with primary key `key`, in the data node
    /// (no read round trip): (column, amount) with a signed amount. NotFound when no such row.
    pub fn increment(&mut self, table: &Table, key: Vec<Value>, amounts: Vec<(u16, i64)>) -> OpId {
        let values = amounts
            .into_iter()
            .map(|(c, n)| (c, Value::Int(n)))
            .collect();
        self.keyed(OpKind::Increment, table, None, key, values, Vec::new())
    }

    pub fn delete(&mut self, table: &Table, key: Vec<Value>) -> OpId {
        self.keyed(OpKind::Delete, table, None, key, Vec::new(), Vec::new())
    }

    pub fn update_unique(
        &mut self,
        table: &Table,
        index: u16,
        key: Vec<Value>,
        values: Vec<(u16, Value)>,
    ) -> OpId {
        self.keyed(OpKind::Update, table, Some(index), key, values, Vec::new())
    }

    pub fn delete_unique(&mut self, table: &Table, index: u16, key: Vec<Value>) -> OpId {
        self.keyed(
            OpKind::Delete,
            table,
            Some(index),
            key,
            Vec::new(),
            Vec::new(),
        )
    }

    /// Starts a statement: from now on, until the next one, a failed operation of a NoCommit
    /// execute undoes only what this statement changed (`ClientError::StatementUndone`) and
    /// the transaction stays open with its locks, as a failed statement inside an InnoDB
    /// transaction; `undo_statement` does the same on demand. Before the first call, a
    /// failure aborts the whole transaction.
    pub fn begin_statement(&mut self) {
        self.statement = self.statement.wrapping_add(1).max(1);
        self.wrote = false;
    }

    /// The number the next `begin_statement` gives its statement (a savepoint's place).
    pub fn next_statement(&self) -> u32 {
        self.statement.wrapping_add(1).max(1)
    }

    /// Keeps what undoes every statement from `statement` on (0: only the current one's), so
    /// that `undo_from(statement)` can roll back to that point, as to an SQL savepoint. Takes
    /// effect from the next execute; what earlier executes' statements before `statement`
    /// wrote is no longer kept once a later execute writes on the same worker.
    pub fn keep_undo_from(&mut self, statement: u32) {
        self.keep_from = statement;
    }

    /// The statement set by `keep_undo_from` (0: none).
    pub fn kept_undo_from(&self) -> u32 {
        self.keep_from
    }

    /// Undoes what `statement` (kept with `keep_undo_from`) and every later statement changed
    /// on the data node; the transaction stays open with every lock it took, as InnoDB's
    /// ROLLBACK TO SAVEPOINT keeps them.
    pub fn undo_from(&mut self, statement: u32) -> Result<()> {
        self.pending.clear();
        self.parts.clear();
        self.refused = None;
        self.read_route = ReadRoute::Empty;
        if !self.open {
            return Ok(());
        }
        self.wrote = false;
        let current = std::mem::replace(&mut self.statement, statement);
        let r = self.execute(ExecType::UndoStatement);
        self.statement = current;
        r
    }

    /// Whether an execute was sent: a transaction that is not open then was ended by the data
    /// node (or by its commit or rollback), while one that never sent any holds nothing yet.
    pub fn has_executed(&self) -> bool {
        self.sent
    }

    /// How many write operations this transaction's executes have sent so far (a savepoint
    /// with none since has nothing to undo).
    pub fn writes_sent(&self) -> u64 {
        self.writes_sent
    }

    /// Undoes what the current statement changed on the data node (nothing when it wrote
    /// nothing); the transaction stays open with every lock it took.
    pub fn undo_statement(&mut self) -> Result<()> {
        if self.statement == 0 || !self.wrote {
            self.pending.clear();
            self.parts.clear();
            self.refused = None;
            self.read_route = ReadRoute::Empty;
            return Ok(());
        }
        self.undo_from(self.statement)
    }

    /// Sends every operation defined since the last execute, in one request, and waits.
    /// On failure the whole transaction is rolled back (or, within a statement and with
    /// NoCommit, that statement's changes) and the error names the failed operation.
    ///
    /// Operations whose values pass one frame's room ([`REQUEST_BYTES`]: many large rows), or
    /// more than `BATCH_OPERATIONS_MAX` of them, go in several requests, one after another, all
    /// but the last with NoCommit, so the data node runs them as it would the one batch.
    ///
    /// Long values' parts (`crate::lob`) go first, in requests of their own; references to
    /// parts in the rows read come back joined.
    pub fn execute(&mut self, exec: ExecType) -> Result<()> {
        if matches!(exec, ExecType::Rollback | ExecType::UndoStatement) {
            // Nothing pending is sent: its parts and any refusal go with it.
            self.parts.clear();
            self.refused = None;
        }
        if let Some((op_index, error)) = self.refused.take() {
            return self.refuse(op_index as u32, error, exec);
        }
        let start = self.results.len();
        if !self.parts.is_empty() {
            self.send_parts(exec)?;
        }
        let mut operations = std::mem::take(&mut self.pending);
        while let Some(cut) = first_cut(&operations) {
            let rest = operations.split_off(cut);
            self.pending = operations;
            self.execute_one(ExecType::NoCommit)?;
            operations = rest;
        }
        self.pending = operations;
        self.execute_one(exec)?;
        let read = self.results.get(start..).unwrap_or_default();
        let rows = read.iter().filter_map(|r| match r {
            OpResult::Row(values) => Some(values.as_slice()),
            _ => None,
        });
        if crate::lob::has_parts(rows) {
            let reading = self.reading();
            let results = self.results.get_mut(start..).unwrap_or_default();
            let joined = crate::lob::join_results(&self.cluster, reading, results, start as u32);
            // Joined in the open transaction, whose failure ends it or its statement.
            match &joined {
                Err(ClientError::Aborted { .. }) => self.open = false,
                Err(ClientError::StatementUndone { .. }) => self.wrote = false,
                _ => {}
            }
            joined?;
        }
        Ok(())
    }

    /// Fails an execute refused before anything was sent (a long value the data node would
    /// refuse), as the data node fails a bad value: within a statement and with NoCommit, the
    /// statement is undone and the transaction stays open; otherwise it is rolled back.
    /// When the undo is refused, the transaction is rolled back instead; when that is refused
    /// too, its error is returned and the transaction stays open (dropping it rolls it back).
    fn refuse(&mut self, op_index: u32, error: base::Error, exec: ExecType) -> Result<()> {
        self.pending.clear();
        self.parts.clear();
        if self.statement != 0 && exec == ExecType::NoCommit {
            let wrote = self.wrote;
            if !(self.open && wrote) || self.undo_from(self.statement).is_ok() {
                return Err(ClientError::StatementUndone { op_index, error });
            }
            self.wrote = wrote;
        }
        if self.open {
            self.execute_one(ExecType::Rollback)?;
        }
        self.open = false;
        Err(ClientError::Aborted { op_index, error })
    }

    /// Where references to parts this transaction reads are joined: in it while it is open.
    fn reading(&self) -> crate::lob::Reading {
        crate::lob::Reading {
            transaction: self
                .open
                .then_some((self.id, self.statement, self.keep_from)),
        }
    }

    /// Sends the pending parts, with NoCommit, ahead of the operations they belong to. On a
    /// failure the operations are dropped (they never go without their parts), the error names
    /// the operation whose value failed, and parts already sent are undone with their
    /// statement, or with the transaction outside one.
    fn send_parts(&mut self, exec: ExecType) -> Result<()> {
        let pending = std::mem::take(&mut self.pending);
        let (owners, mut operations): (Vec<usize>, Vec<Operation>) =
            std::mem::take(&mut self.parts).into_iter().unzip();
        let kept = self.results.len();
        let mut sent_any = false;
        let mut outcome = Ok(());
        while !operations.is_empty() {
            let cut = first_cut(&operations).unwrap_or(operations.len());
            let rest = operations.split_off(cut);
            self.pending = std::mem::replace(&mut operations, rest);
            outcome = self.execute_one(ExecType::NoCommit);
            if outcome.is_err() {
                break;
            }
            sent_any = true;
        }
        // The operation whose part the failed request began with.
        let failed_owner = owners.get(self.results.len() - kept).copied().unwrap_or(0) as u32;
        self.results.truncate(kept);
        let e = match outcome {
            Ok(()) => {
                self.pending = pending;
                return Ok(());
            }
            Err(e) => e,
        };
        match e {
            ClientError::Aborted { op_index, error } => Err(ClientError::Aborted {
                op_index: owner_of(&owners, op_index as usize, kept),
                error,
            }),
            ClientError::StatementUndone { op_index, error } => Err(ClientError::StatementUndone {
                op_index: owner_of(&owners, op_index as usize, kept),
                error,
            }),
            // Refused as a whole after earlier parts went: they must not stay.
            ClientError::Failed(error) if sent_any && self.open => {
                self.refuse(failed_owner, error, exec)
            }
            other => Err(other),
        }
    }

    /// Sends the pending operations in one request and waits.
    fn execute_one(&mut self, exec: ExecType) -> Result<()> {
        let route = std::mem::replace(&mut self.read_route, ReadRoute::Empty);
        if let ReadRoute::Group(group) = route {
            if !self.open && matches!(exec, ExecType::Commit | ExecType::NoCommit) {
                if let Some(done) = self.read_at_replica(group, exec) {
                    return done;
                }
            }
        }
        let operations = std::mem::take(&mut self.pending);
        let count = operations.len();
        let writes = operations
            .iter()
            .filter(|op| !matches!(op.kind, OpKind::Read(_)))
            .count() as u64;
        if writes > 0 {
            self.wrote = true;
            self.writes_sent += writes;
        }
        self.sent = true;
        let reply = self.cluster.call(&Message::Execute {
            transaction: self.id,
            statement: self.statement,
            keep_from: self.keep_from,
            exec,
            operations,
        });
        self.open = matches!(exec, ExecType::NoCommit | ExecType::UndoStatement);
        match reply {
            Ok(Message::ExecuteReply(ExecuteOutcome::Ok(results))) => {
                if !matches!(exec, ExecType::Rollback | ExecType::UndoStatement)
                    && results.len() != count
                {
                    return Err(unexpected(&Message::ExecuteReply(ExecuteOutcome::Ok(
                        results,
                    ))));
                }
                self.results.extend(results);
                self.committed |= exec == ExecType::Commit;
                Ok(())
            }
            Ok(Message::ExecuteReply(ExecuteOutcome::Aborted { op_index, error })) => {
                self.open = false;
                Err(ClientError::Aborted {
                    op_index: op_index + (self.results.len() as u32),
                    error,
                })
            }
            Ok(Message::ExecuteReply(ExecuteOutcome::StatementUndone { op_index, error })) => {
                self.wrote = false;
                Err(ClientError::StatementUndone {
                    op_index: op_index + (self.results.len() as u32),
                    error,
                })
            }
            Ok(other) => Err(unexpected(&other)),
            Err(e) => {
                // A request refused as a whole ran nothing: the data node may still hold the
                // transaction, so it stays open and dropping it rolls it back.
                self.open = matches!(e, ClientError::Failed(_));
                Err(e)
            }
        }
    }

    /// Sends the pending operations, committed primary-key reads of READ_BACKUP tables in
    /// node group `group`, to the replica this connection reads that group from, while the
    /// transaction holds nothing on any data node: they take no locks and leave no state, so
    /// they end there at once (with Commit) and the transaction may still begin anywhere.
    /// None when no other replica was chosen, or it refused the reads or was lost (they then
    /// go where the transaction goes).
    fn read_at_replica(&mut self, group: u32, exec: ExecType) -> Option<Result<()>> {
        if self.pending.is_empty() {
            return None;
        }
        let reader = self.cluster.reader(group)?;
        let count = self.pending.len();
        let reply = reader.call(&Message::Execute {
            transaction: reader.inner.next_txn.fetch_add(1, Ordering::Relaxed),
            statement: 0,
            keep_from: 0,
            exec: ExecType::Commit,
            operations: self.pending.clone(),
        });
        match reply {
            Ok(Message::ExecuteReply(ExecuteOutcome::Ok(results))) if results.len() == count => {
                self.pending.clear();
                self.results.extend(results);
                self.committed |= exec == ExecType::Commit;
                Some(Ok(()))
            }
            Ok(Message::ExecuteReply(ExecuteOutcome::Aborted { op_index, error }))
                if error.code != base::ErrorCode::NotPrimary =>
            {
                self.pending.clear();
                Some(Err(ClientError::Aborted {
                    op_index: op_index + (self.results.len() as u32),
                    error,
                }))
            }
            Err(e) if !crate::cursor::reader_refused(&e) => {
                self.pending.clear();
                Some(Err(e))
            }
            _ => {
                // Refused here (the node no longer serves reads) or lost: the primary answers.
                self.cluster.forget_reader(group);
                None
            }
        }
    }

    pub fn commit(mut self) -> Result<()> {
        self.execute(ExecType::Commit)
    }

    pub fn rollback(mut self) -> Result<()> {
        self.pending.clear();
        self.parts.clear();
        self.refused = None;
        self.execute(ExecType::Rollback)
    }

    /// Runs a scan that sees this transaction's changes sent by earlier executes (its inserts
    /// and updated rows in place of the committed ones, not its deleted rows), and committed
    /// rows for the rest. It takes no locks. Operations defined but not yet executed are not
    /// seen.
    pub fn scan(&self, table: &Table, scan: &Scan) -> Result<Vec<Vec<Value>>> {
        self.scan_cursor(table, scan)?.collect_all()
    }

    /// [`Transaction::scan`] a batch at a time (see [`crate::ScanCursor`]). Changes the
    /// transaction makes while the cursor is open may or may not be seen.
    pub fn scan_cursor(&self, table: &Table, scan: &Scan) -> Result<crate::ScanCursor> {
        let mut request = scan.request(table)?;
        if self.open {
            request.transaction = self.id;
        }
        let mut cursor = self.cluster.open_scan(table, request)?;
        cursor.join_in(self.reading());
        Ok(cursor)
    }

    /// True once an execute with Commit succeeded (the transaction took effect).
    pub fn is_committed(&self) -> bool {
        self.committed
    }

    /// True while the data node holds this transaction open (after an execute with NoCommit,
    /// until Commit, Rollback or an abort).
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// The result of an executed operation.
    pub fn result(&self, op: OpId) -> Option<&OpResult> {
        self.results.get(op.0)
    }

    /// The row an executed read found (None if not found or not yet executed).
    pub fn row(&self, op: OpId) -> Option<&[Value]> {
        match self.results.get(op.0) {
            Some(OpResult::Row(values)) => Some(values),
            _ => None,
        }
    }
}

/// The operation a failed part insert belongs to: `op_index` counts the results before the
/// parts (`kept`) and the parts sent before it.
fn owner_of(owners: &[usize], op_index: usize, kept: usize) -> u32 {
    let part = op_index.saturating_sub(kept);
    owners.get(part).or(owners.last()).copied().unwrap_or(0) as u32
}

/// Bytes of operations one execute request carries before the rest go in another: well under
/// the frame limit, which one operation (a row of at most `ROW_BYTES_MAX`) stays within.
pub const REQUEST_BYTES: usize = 8 << 20;

/// Where `operations` must be cut to keep a request within [`REQUEST_BYTES`] and
/// `BATCH_OPERATIONS_MAX` operations: the count of those that fit (at least one), None when all
/// do.
fn first_cut(operations: &[Operation]) -> Option<usize> {
    let max = base::limits::BATCH_OPERATIONS_MAX;
    let by_bytes = first_cut_by_bytes(&operations[..operations.len().min(max + 1)]);
    if operations.len() > max {
        Some(by_bytes.map_or(max, |cut| cut.min(max)))
    } else {
        by_bytes
    }
}

fn first_cut_by_bytes(operations: &[Operation]) -> Option<usize> {
    let mut bytes = 0;
    for (i, op) in operations.iter().enumerate() {
        bytes += 64
            + 2 * op.projection.len()
            + op.key.iter().map(wire::value_bytes).sum::<usize>()
            + op.values
                .iter()
                .map(|(_, v)| 2 + wire::value_bytes(v))
                .sum::<usize>();
        if bytes > REQUEST_BYTES && i > 0 {
            return Some(i);
        }
    }
    None
}

impl Drop for Transaction {
    fn drop(&mut self) {
        if self.open {
            // Best effort: the data node also aborts a connection's open transactions when it closes.
            let mut out = Vec::new();
            let message = Message::Execute {
                transaction: self.id,
                statement: 0,
                keep_from: 0,
                exec: ExecType::Rollback,
                operations: Vec::new(),
            };
            let (tx, _rx) = std::sync::mpsc::channel();
            if let Ok(id) = self.cluster.register(tx) {
                if self.cluster.frame(&message, id, &mut out).is_ok() {
                    let _ = self.cluster.send_frames(&out);
                }
            }
        }
    }
}
