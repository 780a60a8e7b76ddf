//! A coordinator's keyed requests: an `Execute`'s operations prepared against the catalog, run
//! in rounds of steps on the workers owning their partitions (and other node groups' primaries),
//! unique-index lookups and maintenance as extra rounds, a failed statement undone, and the
//! transaction committed or rolled back on every worker it touched.

use std::sync::atomic::Ordering;
use std::time::Instant;

use base::lob::PartsRef;
use base::schema::{IndexKind, TableDef};
use base::{Error, ErrorCode, Value};
use wire::{ExecType, ExecuteOutcome, LockMode, Message, OpKind, OpResult, Operation};

use super::{
    commit_messages, unknown_table, Coordinator, ExecState, OpState, OpenTxn, Pending, Phase,
    UndoState,
};
use crate::catalog::TableEntry;
use crate::messages::*;
use crate::prepare::{self, locate};
use crate::replication::Start;

impl Coordinator {
    pub(super) fn on_execute(
        &mut self,
        request_id: u64,
        client_txn: u64,
        (statement, keep_from): (u32, u32),
        exec: ExecType,
        operations: Vec<Operation>,
    ) {
        if let Some(error) = self.take_rolled_back(client_txn) {
            if exec == ExecType::Rollback {
                // Already rolled back: nothing more to do.
                return self.reply(
                    request_id,
                    &Message::ExecuteReply(ExecuteOutcome::Ok(vec![])),
                );
            }
            return self.reply(
                request_id,
                &Message::ExecuteReply(ExecuteOutcome::Aborted { op_index: 0, error }),
            );
        }
        let txn_id = match self.txns.get_mut(&client_txn) {
            Some(t) if t.busy => {
                return self.fail(
                    request_id,
                    Error::new(
                        ErrorCode::BadRequest,
                        format!("transaction {client_txn} already has a request in flight"),
                    ),
                );
            }
            Some(t) => {
                t.busy = true;
                t.last_active = Instant::now();
                t.id
            }
            None => {
                if self.shared.open_transactions.load(Ordering::Relaxed)
                    >= self.shared.transactions_max
                {
                    return self.fail(
                        request_id,
                        Error::new(
                            ErrorCode::Overloaded,
                            format!(
                                "too many transactions open on the data node ({}, --transactions-max); retry",
                                self.shared.transactions_max
                            ),
                        ),
                    );
                }
                let id = self.shared.next_txn.fetch_add(1, Ordering::Relaxed);
                self.txns.insert(client_txn, OpenTxn::new(id));
                id
            }
        };
        if let Some(t) = self.txns.get_mut(&client_txn) {
            t.operations += operations.len();
            if t.operations > self.shared.transaction_operations_max {
                let error = Error::new(
                    ErrorCode::LimitExceeded,
                    format!(
                        "transaction rolled back: it passed {} operations (--transaction-operations-max)",
                        self.shared.transaction_operations_max
                    ),
                );
                if let Some(txn) = self.txns.remove(&client_txn) {
                    self.abort_txn(&txn);
                }
                return self.reply(
                    request_id,
                    &Message::ExecuteReply(ExecuteOutcome::Aborted { op_index: 0, error }),
                );
            }
            if let Some(error) = t.broken.clone() {
                if let Some(txn) = self.txns.remove(&client_txn) {
                    self.abort_txn(&txn);
                }
                return self.reply(
                    request_id,
                    &Message::ExecuteReply(ExecuteOutcome::Aborted { op_index: 0, error }),
                );
            }
        }
        if exec == ExecType::Rollback {
            return self.end_txn(request_id, client_txn, false, Vec::new());
        }
        if exec == ExecType::UndoStatement {
            return self.undo_statement(request_id, client_txn, statement, None);
        }
        // Prepare every operation against the catalog before anything runs.
        let mut ops = Vec::with_capacity(operations.len());
        let mut failure = None;
        {
            let shared = self.shared.clone();
            let Ok(catalog) = shared.catalog.read() else {
                return self.fail(
                    request_id,
                    Error::new(ErrorCode::Internal, "catalog poisoned"),
                );
            };
            for (i, op) in operations.into_iter().enumerate() {
                let Some(entry) = catalog.get(op.table).cloned() else {
                    failure = Some((i as u32, unknown_table(&catalog, op.table)));
                    break;
                };
                let placement = self.shared.placement;
                match prepare::prepare(entry, op, (placement.groups, placement.group)) {
                    Ok(mut p) => ops.push(OpState {
                        prepared: {
                            // Only what may replace or delete a value in parts needs the
                            // images (an insert replaces nothing, an increment only numbers).
                            let replaces =
                                matches!(p.kind, OpKind::Update | OpKind::Write | OpKind::Delete);
                            if replaces && base::lob::table_holds_parts(&p.table.def) {
                                p.parts_table = catalog
                                    .by_name(base::lob::PARTS_TABLE)
                                    .map(|e| e.def.clone());
                            }
                            p
                        },
                        phase: Phase::Start,
                        result: None,
                    }),
                    Err(e) => {
                        failure = Some((i as u32, e));
                        break;
                    }
                }
            }
        }
        if failure.is_none() && self.reading_as_backup {
            // A backup's READ_BACKUP reads (`backup_may_read`): of its own group's rows only.
            let placement = self.shared.placement;
            let elsewhere = ops.iter().position(|op| {
                let table = &op.prepared.table.def;
                !placement.is_local(locate(table, &table.primary_key, &op.prepared.key).1)
            });
            if let Some(at) = elsewhere {
                failure = Some((
                    at as u32,
                    Error::new(
                        ErrorCode::NotPrimary,
                        "a backup reads only its own node group's rows; send the read to the row's primary",
                    ),
                ));
            }
        }
        if failure.is_none() && !ops.is_empty() {
            // New work only: a commit or rollback with no operations ends what already runs.
            failure = self.queues_full().map(|e| (0, e));
        }
        let tag = self.tag();
        // (Not one with a part on another node group: forgetting it would leave that open.)
        let stateless = self
            .txns
            .get(&client_txn)
            .is_some_and(|t| t.touched == 0 && t.remote.is_empty());
        if failure.is_none() && stateless {
            if let Some((worker, steps)) = direct_read_steps(&ops, self.shared.placement) {
                // The transaction holds nothing on any worker and committed reads take no locks
                // and leave no state, so there is nothing to commit or roll back: the owning worker
                // answers the connection itself and the transaction is forgotten.
                self.txns.remove(&client_txn);
                let message = ToWorker::Steps {
                    txn: txn_id,
                    tag,
                    steps,
                    statement: 0,
                    keep_from: 0,
                    reply_to: self.me,
                    direct: Some(request_id),
                };
                self.outbox.push((worker, message));
                return;
            }
        }
        let mut state = Box::new(ExecState {
            request_id,
            client_txn,
            txn: txn_id,
            statement,
            keep_from,
            exec,
            ops,
            waiting: 0,
            replies: Vec::new(),
            fatal: failure.as_ref().is_some_and(|(_, e)| ends_transaction(e)),
            failure,
        });
        if state.failure.is_some() {
            return self.conclude(*state);
        }
        let steps: Vec<Step> = (0..state.ops.len())
            .flat_map(|i| advance(&mut state.ops[i], i as u32, None))
            .collect();
        self.send_round(tag, state, steps);
    }

    /// Sends one round of steps, grouped per worker (and per other node group, over the step
    /// link), or concludes when there are none.
    pub(super) fn send_round(&mut self, tag: u64, mut state: Box<ExecState>, steps: Vec<Step>) {
        if steps.is_empty() {
            return self.conclude(*state);
        }
        let workers = self.shared.worker_count();
        let placement = self.shared.placement;
        let mut groups: Vec<Vec<Step>> = (0..workers).map(|_| Vec::new()).collect();
        let mut remote: std::collections::BTreeMap<u32, Vec<Step>> = Default::default();
        for s in steps {
            if placement.is_local(s.partition) {
                groups[placement.worker_of(s.partition)].push(s);
            } else {
                remote
                    .entry(placement.group_of(s.partition))
                    .or_default()
                    .push(s);
            }
        }
        let open = self
            .txns
            .get_mut(&state.client_txn)
            .expect("open transaction");
        state.waiting += steps_to_workers(
            &mut self.outbox,
            open,
            groups,
            ToWorkerSteps {
                txn: state.txn,
                tag,
                statement: state.statement,
                keep_from: state.keep_from,
                reply_to: self.me,
            },
        );
        if !remote.is_empty() {
            state.waiting += self.send_remote(tag, &state, remote);
        }
        if state.waiting == 0 {
            return self.conclude(*state);
        }
        self.pending.insert(tag, Pending::Execute(state));
    }

    pub(super) fn on_steps(&mut self, tag: u64, replies: Vec<StepReply>) {
        let Some(Pending::Execute(mut state)) = self.pending.remove(&tag) else {
            return;
        };
        state.replies.extend(replies);
        state.waiting -= 1;
        if state.waiting > 0 {
            self.pending.insert(tag, Pending::Execute(state));
            return;
        }
        // Advance in operation order, so the next round's steps keep the batch's order per key.
        let mut replies = std::mem::take(&mut state.replies);
        replies.sort_by_key(|r| r.slot);
        let mut next = Vec::new();
        for reply in replies {
            let slot = reply.slot;
            match reply.result {
                Err(e) => {
                    state.fatal |= ends_transaction(&e);
                    if state.failure.as_ref().is_none_or(|(s, _)| *s > slot) {
                        state.failure = Some((slot, e));
                    }
                }
                Ok(outcome) => {
                    if state.failure.is_none() {
                        next.extend(advance(&mut state.ops[slot as usize], slot, Some(outcome)));
                    }
                }
            }
        }
        if state.failure.is_some() {
            return self.conclude(*state);
        }
        self.send_round(tag, state, next);
    }

    /// Every round is done (or one failed): commit, keep open, or abort, and answer.
    pub(super) fn conclude(&mut self, state: ExecState) {
        if let Some((op_index, error)) = state.failure {
            // Within a statement of a transaction that stays open, only the statement goes, as
            // InnoDB rolls back a failed statement, unless a failure `ends_transaction`.
            if state.statement != 0 && state.exec == ExecType::NoCommit && !state.fatal {
                return self.undo_statement(
                    state.request_id,
                    state.client_txn,
                    state.statement,
                    Some((op_index, error)),
                );
            }
            if let Some(txn) = self.txns.remove(&state.client_txn) {
                self.abort_txn(&txn);
            }
            return self.reply(
                state.request_id,
                &Message::ExecuteReply(ExecuteOutcome::Aborted { op_index, error }),
            );
        }
        let results: Vec<OpResult> = state
            .ops
            .into_iter()
            .map(|o| o.result.unwrap_or(OpResult::NotFound))
            .collect();
        match state.exec {
            ExecType::NoCommit => {
                if let Some(t) = self.txns.get_mut(&state.client_txn) {
                    t.busy = false;
                    t.last_active = Instant::now();
                }
                self.reply(
                    state.request_id,
                    &Message::ExecuteReply(ExecuteOutcome::Ok(results)),
                );
            }
            ExecType::Commit | ExecType::Rollback | ExecType::UndoStatement => {
                self.end_txn(state.request_id, state.client_txn, true, results)
            }
        }
    }

    /// Has every worker the transaction touched undo the changes of `statement` and every later
    /// statement, then answers: with
    /// `StatementUndone` for a failed operation, else `Ok`. The transaction stays open.
    pub(super) fn undo_statement(
        &mut self,
        request_id: u64,
        client_txn: u64,
        statement: u32,
        failure: Option<(u32, Error)>,
    ) {
        let Some(txn) = self.txns.get(&client_txn) else {
            return self.reply(
                request_id,
                &Message::ExecuteReply(ExecuteOutcome::Ok(Vec::new())),
            );
        };
        let (id, touched, reached) = (txn.id, txn.touched, !txn.remote.is_empty());
        let tag = self.tag();
        let mut waiting = 0;
        if reached {
            let txn = self.txns.remove(&client_txn).expect("open transaction");
            waiting += self.undo_remote(tag, &txn, statement);
            self.txns.insert(client_txn, txn);
        } else if touched == 0 {
            // Nothing is held anywhere (an UndoStatement before any write): nothing to keep.
            self.txns.remove(&client_txn);
        }
        for w in 0..self.shared.worker_count() {
            if touched & (1 << w) != 0 {
                self.outbox.push((
                    w,
                    ToWorker::UndoStatement {
                        txn: id,
                        statement,
                        tag,
                        reply_to: self.me,
                    },
                ));
                waiting += 1;
            }
        }
        let state = UndoState {
            request_id,
            client_txn,
            waiting,
            failure,
        };
        if waiting == 0 {
            return self.undone(state);
        }
        self.pending.insert(tag, Pending::Undo(state));
    }

    /// Answers a request once its statement's changes are undone everywhere.
    pub(super) fn undone(&mut self, state: UndoState) {
        if let Some(t) = self.txns.get_mut(&state.client_txn) {
            t.busy = false;
            t.last_active = Instant::now();
        }
        let outcome = match state.failure {
            Some((op_index, error)) => ExecuteOutcome::StatementUndone { op_index, error },
            None => ExecuteOutcome::Ok(Vec::new()),
        };
        self.reply(state.request_id, &Message::ExecuteReply(outcome));
    }

    /// Commits or aborts on every worker the transaction touched; a commit answers after all acks.
    pub(super) fn end_txn(
        &mut self,
        request_id: u64,
        client_txn: u64,
        commit: bool,
        results: Vec<OpResult>,
    ) {
        let Some(txn) = self.txns.remove(&client_txn) else {
            return self.reply(
                request_id,
                &Message::ExecuteReply(ExecuteOutcome::Ok(results)),
            );
        };
        if !commit || (txn.touched == 0 && txn.remote.is_empty()) {
            self.abort_txn(&txn);
            return self.reply(
                request_id,
                &Message::ExecuteReply(ExecuteOutcome::Ok(results)),
            );
        }
        let (txn, results) = if txn.remote.is_empty() {
            (txn, results)
        } else {
            match self.commit_across_groups(request_id, client_txn, txn, results) {
                Some(local) => local,
                None => return,
            }
        };
        self.commit_here(request_id, client_txn, txn, results);
    }

    /// A commit held by a global checkpoint round's gate begins now.
    pub(super) fn gate_opened(&mut self, tag: u64) {
        let Some(Pending::Gated {
            request_id,
            client_txn,
            txn,
            results,
            two_phase,
        }) = self.pending.remove(&tag)
        else {
            return;
        };
        if two_phase {
            self.prepare_across(request_id, client_txn, *txn, results);
        } else {
            self.commit_here(request_id, client_txn, *txn, results);
        }
    }

    /// Begins the commit of `client_txn` here (`Role::commit_started`), and returns the
    /// transaction to go on with; None when it was answered (a client that lost its
    /// connection was told it did not commit) or parked at a global checkpoint round's gate
    /// until it opens (`gate_opened`; `two_phase`: it resumes in `prepare_across`).
    pub(super) fn begin_commit(
        &mut self,
        request_id: u64,
        client_txn: u64,
        txn: OpenTxn,
        results: Vec<OpResult>,
        two_phase: bool,
    ) -> Option<(OpenTxn, Vec<OpResult>)> {
        let Some(role) = self.shared.role.clone() else {
            return Some((txn, results));
        };
        loop {
            match role.commit_started((self.session, client_txn), true) {
                Start::Go => return Some((txn, results)),
                Start::Refused => {
                    self.abort_txn(&txn);
                    self.reply(
                        request_id,
                        &Message::ExecuteReply(ExecuteOutcome::Aborted {
                            op_index: 0,
                            error: told_not_committed(),
                        }),
                    );
                    return None;
                }
                Start::Gated => {
                    let tag = self.tag();
                    if role.wait_for_gate(self.me, tag) {
                        self.pending.insert(
                            tag,
                            Pending::Gated {
                                request_id,
                                client_txn,
                                txn: Box::new(txn),
                                results,
                                two_phase,
                            },
                        );
                        return None;
                    }
                    // The gate opened meanwhile: ask again.
                }
            }
        }
    }

    /// Commits a transaction whose writes are all in this node's group.
    fn commit_here(
        &mut self,
        request_id: u64,
        client_txn: u64,
        mut txn: OpenTxn,
        mut results: Vec<OpResult>,
    ) {
        if txn.touched == 0 {
            return self.reply(
                request_id,
                &Message::ExecuteReply(ExecuteOutcome::Ok(results)),
            );
        }
        if self.step_peer.is_some() && txn.written != 0 {
            // Another group's coordinator commits its part here, named by its decision name
            // (this link's session): one it was told did not commit never does.
            if let Some(role) = &self.shared.role {
                if !role.begin_decision((self.session, client_txn)) {
                    self.abort_txn(&txn);
                    let error = Error::new(
                        ErrorCode::ViewChanged,
                        "transaction rolled back: its coordinator was told it did not commit here; retry",
                    );
                    return self.reply(
                        request_id,
                        &Message::ExecuteReply(ExecuteOutcome::Aborted { op_index: 0, error }),
                    );
                }
            }
        }
        if txn.written != 0 && self.step_peer.is_none() {
            let Some(begun) = self.begin_commit(request_id, client_txn, txn, results, false) else {
                return;
            };
            (txn, results) = begun;
        }
        let mut settled = None;
        if let Some(role) = &self.shared.role {
            if txn.written != 0 {
                let Some(generation) = role.local_commit() else {
                    return self.gather_images(request_id, client_txn, txn, results);
                };
                settled = Some(generation);
                role.commit_ended((self.session, client_txn), true);
            }
        }
        let tag = self.tag();
        let (messages, waiting) =
            commit_messages(&self.shared, txn.id, txn.touched, txn.written, tag, self.me);
        self.outbox.extend(messages);
        if let Some(generation) = settled {
            self.outbox
                .push((self.me.worker, ToWorker::Settled { generation }));
        }
        self.await_commit(tag, request_id, waiting, results);
    }

    pub(super) fn on_finished(&mut self, tag: u64) {
        let (request_id, waiting, results) = match self.pending.remove(&tag) {
            Some(Pending::Undo(mut state)) => {
                state.waiting -= 1;
                if state.waiting > 0 {
                    self.pending.insert(tag, Pending::Undo(state));
                } else {
                    self.undone(state);
                }
                return;
            }
            Some(Pending::Commit {
                request_id,
                waiting,
                results,
            }) => (request_id, waiting, results),
            Some(Pending::Deciding {
                request_id,
                waiting,
                results,
                decided,
                name,
            }) => {
                if waiting > 1 {
                    self.pending.insert(
                        tag,
                        Pending::Deciding {
                            request_id,
                            waiting: waiting - 1,
                            results,
                            decided,
                            name,
                        },
                    );
                    return;
                }
                // Logged here too: the decision is answered as committed, and the other
                // groups commit their parts now.
                if let Some(role) = &self.shared.role {
                    role.commit_ended(name, true);
                    role.commit_ended(
                        crate::replication::decision_name(self.shared.node_id, decided.txn),
                        true,
                    );
                }
                let remote = self.commit_prepared_parts(tag, *decided);
                return self.await_commit(tag, request_id, remote, results);
            }
            Some(Pending::Ddl {
                request_id,
                waiting,
                reply,
            }) => {
                if waiting > 1 {
                    self.pending.insert(
                        tag,
                        Pending::Ddl {
                            request_id,
                            waiting: waiting - 1,
                            reply,
                        },
                    );
                } else {
                    self.reply(request_id, &reply);
                }
                return;
            }
            Some(other) => {
                self.pending.insert(tag, other);
                return;
            }
            None => return,
        };
        if waiting > 1 {
            self.pending.insert(
                tag,
                Pending::Commit {
                    request_id,
                    waiting: waiting - 1,
                    results,
                },
            );
            return;
        }
        self.reply(
            request_id,
            &Message::ExecuteReply(ExecuteOutcome::Ok(results)),
        );
    }
}

impl Coordinator {
    /// Answers a commit once `waiting` acknowledgements (workers, other groups) came: now when
    /// none is awaited.
    pub(super) fn await_commit(
        &mut self,
        tag: u64,
        request_id: u64,
        waiting: usize,
        results: Vec<OpResult>,
    ) {
        if waiting == 0 {
            return self.reply(
                request_id,
                &Message::ExecuteReply(ExecuteOutcome::Ok(results)),
            );
        }
        self.pending.insert(
            tag,
            Pending::Commit {
                request_id,
                waiting,
                results,
            },
        );
    }
}

/// What a round's steps go to a worker under.
pub(super) struct ToWorkerSteps {
    pub(super) txn: TxnId,
    pub(super) tag: u64,
    pub(super) statement: u32,
    pub(super) keep_from: u32,
    pub(super) reply_to: ReplyTo,
}

/// Sends each worker its steps of transaction `open` (`per_worker[w]`, empty: none), marking
/// the workers it touched and wrote on; returns how many answers to wait for.
pub(super) fn steps_to_workers(
    outbox: &mut Vec<(usize, ToWorker)>,
    open: &mut OpenTxn,
    per_worker: Vec<Vec<Step>>,
    to: ToWorkerSteps,
) -> usize {
    let mut waiting = 0;
    for (w, steps) in per_worker.into_iter().enumerate() {
        if steps.is_empty() {
            continue;
        }
        open.touched |= 1 << w;
        if steps
            .iter()
            .any(|s| !matches!(s.kind, StepKind::Read { .. }))
        {
            open.written |= 1 << w;
        }
        waiting += 1;
        outbox.push((
            w,
            ToWorker::Steps {
                txn: to.txn,
                tag: to.tag,
                steps,
                statement: to.statement,
                keep_from: to.keep_from,
                reply_to: to.reply_to,
                direct: None,
            },
        ));
    }
    waiting
}

/// When every operation is a committed read by primary key and all land on one worker: that worker
/// and the steps for it.
fn direct_read_steps(ops: &[OpState], placement: crate::Placement) -> Option<(usize, Vec<Step>)> {
    let mut worker = None;
    let mut steps = Vec::with_capacity(ops.len());
    for (slot, op) in ops.iter().enumerate() {
        let p = &op.prepared;
        if p.kind != OpKind::Read(LockMode::CommittedRead) || p.unique_index.is_some() {
            return None;
        }
        let step = base_step(op, slot as u32, &p.key, false);
        if !placement.is_local(step.partition) {
            return None;
        }
        let w = placement.worker_of(step.partition);
        if *worker.get_or_insert(w) != w {
            return None;
        }
        steps.push(step);
    }
    Some((worker?, steps))
}

/// Moves an operation to its next phase given the outcome of its last step; returns the steps of
/// the next round (none when the operation is done).
fn advance(op: &mut OpState, slot: u32, outcome: Option<StepOutcome>) -> Vec<Step> {
    let p = &op.prepared;
    let table = &p.table.def;
    // Old and new images: to keep the unique indexes, and to delete the parts of values
    // replaced or deleted.
    let has_unique = p.table.unique_tables.iter().any(Option::is_some) || p.parts_table.is_some();
    match (op.phase, outcome) {
        (Phase::Start, _) => {
            if let (Some(i), false) = (p.unique_index, p.kind == OpKind::Insert) {
                // First hop: the unique-index table row holding the base row's primary key.
                let index_table = p.table.unique_tables[i]
                    .as_ref()
                    .expect("unique index has a table");
                let lock = match p.kind {
                    OpKind::Read(mode) => mode,
                    _ => LockMode::Exclusive,
                };
                let key_columns: Vec<u16> = (0..p.key.len() as u16).collect();
                let at = locate(index_table, &key_columns, &p.key);
                op.phase = Phase::IndexLookup;
                let kind = StepKind::Read {
                    lock,
                    projection: Vec::new(),
                };
                return vec![step_at(index_table, slot, at, kind, false)];
            }
            let key = if p.unique_index.is_some() {
                // Insert addressed by unique key: the primary key comes from the row.
                let row = p.row.as_ref().expect("insert has a row");
                table
                    .primary_key
                    .iter()
                    .map(|c| row[*c as usize].clone())
                    .collect()
            } else {
                p.key.clone()
            };
            op.phase = Phase::Base;
            vec![base_step(op, slot, &key, has_unique)]
        }
        (Phase::IndexLookup, Some(StepOutcome::Row(index_row))) => {
            let base_pk: Vec<Value> = index_row[op.prepared.key.len()..].to_vec();
            op.phase = Phase::Base;
            vec![base_step(op, slot, &base_pk, has_unique)]
        }
        (Phase::IndexLookup, Some(_)) => {
            if op.prepared.kind == OpKind::Write {
                // Write through a unique key that does not exist yet: insert the row.
                let row = op.prepared.row.clone().expect("write has a row");
                let key: Vec<Value> = table
                    .primary_key
                    .iter()
                    .map(|c| row[*c as usize].clone())
                    .collect();
                op.prepared.kind = OpKind::Insert;
                op.phase = Phase::Base;
                return vec![base_step(op, slot, &key, has_unique)];
            }
            op.phase = Phase::Done;
            op.result = Some(OpResult::NotFound);
            Vec::new()
        }
        (Phase::Base, Some(StepOutcome::Row(values))) => {
            op.phase = Phase::Done;
            op.result = Some(OpResult::Row(values));
            Vec::new()
        }
        (Phase::Base, Some(StepOutcome::NotFound)) => {
            op.phase = Phase::Done;
            op.result = Some(OpResult::NotFound);
            Vec::new()
        }
        (Phase::Base, Some(StepOutcome::Written { old, new })) => {
            op.result = Some(OpResult::Done {
                assigned: p.assigned,
            });
            let mut steps = if has_unique {
                maintenance_steps(&p.table, slot, old.as_deref(), new.as_deref())
            } else {
                Vec::new()
            };
            if let Some(parts) = &p.parts_table {
                steps.extend(parts_deletes(parts, slot, old.as_deref(), new.as_deref()));
            }
            op.phase = if steps.is_empty() {
                Phase::Done
            } else {
                Phase::Maintain
            };
            steps
        }
        (Phase::Maintain, Some(_)) => {
            // Every maintenance step of this operation reports here; the result is already set.
            op.phase = Phase::Done;
            Vec::new()
        }
        (_, _) => {
            op.phase = Phase::Done;
            Vec::new()
        }
    }
}

/// The step on the base row, addressed by primary key values.
fn base_step(op: &OpState, slot: u32, pk_values: &[Value], want_images: bool) -> Step {
    let p = &op.prepared;
    let table = &p.table.def;
    let at = locate(table, &table.primary_key, pk_values);
    let kind = match p.kind {
        OpKind::Read(lock) => StepKind::Read {
            lock,
            projection: p.projection.clone(),
        },
        OpKind::Insert => StepKind::Insert {
            row: p.row.clone().unwrap_or_default(),
        },
        OpKind::Update => StepKind::Update {
            updates: p.updates.clone(),
        },
        OpKind::Write => StepKind::Write {
            row: p.row.clone().unwrap_or_default(),
            updates: p.updates.clone(),
        },
        OpKind::Delete => StepKind::Delete,
        OpKind::Increment => StepKind::Increment {
            amounts: p
                .updates
                .iter()
                .map(|(c, v)| match v {
                    Value::Int(n) => (*c, *n as i128),
                    Value::UInt(n) => (*c, *n as i128),
                    _ => (*c, 0),
                })
                .collect(),
        },
    };
    step_at(table, slot, at, kind, want_images)
}

/// Unique-index rows to delete and insert after a base row changed from `old` to `new`.
fn maintenance_steps(
    entry: &TableEntry,
    slot: u32,
    old: Option<&[Value]>,
    new: Option<&[Value]>,
) -> Vec<Step> {
    let table = &entry.def;
    let mut steps = Vec::new();
    for (index, hidden) in table.indexes.iter().zip(&entry.unique_tables) {
        let (Some(hidden), IndexKind::Unique) = (hidden, index.kind) else {
            continue;
        };
        let key_of = |row: Option<&[Value]>| -> Option<Vec<Value>> {
            let key = index.key_values(table, row?);
            // Rows with a NULL in a unique key are not indexed: NULLs never collide.
            (!key.iter().any(Value::is_null)).then_some(key)
        };
        let (old_key, new_key) = (key_of(old), key_of(new));
        let key_columns: Vec<u16> = (0..index.columns.len() as u16).collect();
        let encoded = |k: &Option<Vec<Value>>| k.as_ref().map(|k| locate(hidden, &key_columns, k));
        let (old_loc, new_loc) = (encoded(&old_key), encoded(&new_key));
        if old_loc.as_ref().map(|l| &l.0) == new_loc.as_ref().map(|l| &l.0) {
            continue;
        }
        if let Some(at) = old_loc {
            steps.push(step_at(hidden, slot, at, StepKind::Delete, false));
        }
        if let (Some(at), Some(key), Some(new)) = (new_loc, new_key, new) {
            let mut row = key;
            row.extend(table.primary_key.iter().map(|c| new[*c as usize].clone()));
            steps.push(step_at(hidden, slot, at, StepKind::Insert { row }, false));
        }
    }
    steps
}

/// Deletes of the parts of every value in parts that `old` held and `new` no longer does (the
/// row deleted, or the value replaced).
fn parts_deletes(
    parts: &TableDef,
    slot: u32,
    old: Option<&[Value]>,
    new: Option<&[Value]>,
) -> Vec<Step> {
    let kept = |r: &PartsRef| new.is_some_and(|n| n.contains(&Value::Parts(*r)));
    let mut steps = Vec::new();
    for v in old.unwrap_or_default() {
        let Value::Parts(r) = v else { continue };
        if kept(r) {
            continue;
        }
        for part in 0..r.part_count() {
            let key = [Value::UInt(r.id), Value::UInt(u64::from(part))];
            let at = locate(parts, &parts.primary_key, &key);
            steps.push(step_at(parts, slot, at, StepKind::Delete, false));
        }
    }
    steps
}

/// A step of operation `slot` on `table`'s row at `at` (its encoded primary key and partition,
/// as `locate` gives them).
fn step_at(
    table: &TableDef,
    slot: u32,
    at: (Vec<u8>, u32),
    kind: StepKind,
    want_images: bool,
) -> Step {
    let (pk, partition) = at;
    Step {
        slot,
        table: table.id,
        version: table.version,
        partition,
        pk,
        kind,
        want_images,
    }
}

fn ends_transaction(e: &Error) -> bool {
    // A step link's failure too: the transaction's part on that node group is gone (its
    // primary stopping rolled it back, or rolled it back idle).
    matches!(
        e.code,
        ErrorCode::SchemaChanged
            | ErrorCode::Deadlock
            | ErrorCode::ViewChanged
            | ErrorCode::NotPrimary
            | ErrorCode::ConnectionLost
            | ErrorCode::ShuttingDown
            | ErrorCode::TransactionTimedOut
    )
}

/// Why a commit is refused whose client, having lost its connection, was told it did not
/// commit (`Role::commit_started`).
pub(super) fn told_not_committed() -> Error {
    Error::new(
        ErrorCode::ViewChanged,
        "transaction rolled back: its client, asking after a lost connection, was told it did not commit",
    )
}
