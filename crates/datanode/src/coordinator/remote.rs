//! Transactions across node groups, both sides. As coordinator: the steps of a partition held
//! by another node group go to that group's primary over the step link (`crate::steplink`),
//! and its part is undone, rolled back or committed there. As that primary: a step link's
//! steps run on this node's workers under a transaction kept per sender's transaction, until
//! the sender ends it or the link closes (then it is rolled back, as a client's).
//!
//! A commit that writes only in this node's group commits here, and the other parts, reads,
//! are released first. A commit that writes in any other group commits in two phases
//! (`twophase.rs`), its decision recorded in this node's group.

use std::collections::BTreeMap;
use std::time::Instant;

use base::{Error, ErrorCode};
use wire::{ExecuteOutcome, Message, OpResult, RemoteEnd};

use super::{Coordinator, ExecState, OpenTxn, Pending};
use crate::messages::*;

/// A step link's `ScanPart`, as the receiver takes it.
pub(super) struct ScanPartRequest {
    pub(super) transaction: u64,
    pub(super) request: wire::ScanRequest,
    pub(super) partitions: Vec<u32>,
    pub(super) place: ScanPlace,
    pub(super) rows_max: u32,
    pub(super) bytes_max: u32,
}

/// A transaction's part on another node group: the step link connection it lives on (known
/// once the first answer came) and whether it wrote there.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct RemotePart {
    generation: Option<u64>,
    written: bool,
}

impl RemotePart {
    /// The step link connection the part lives on, once known.
    pub(super) fn link(&self) -> Option<u64> {
        self.generation
    }

    /// Whether the transaction wrote there.
    pub(super) fn written(&self) -> bool {
        self.written
    }
}

/// A coordinator's transaction's parts on other node groups, by group index.
pub(super) type RemoteParts = BTreeMap<u32, RemotePart>;

impl Coordinator {
    /// On a group's primary: a step link opens from `node`, coordinating in view `epoch`.
    pub(super) fn step_hello(&mut self, id: u64, node: u32, epoch: u64) {
        let Some(role) = self.shared.role.clone() else {
            return self.fail(
                id,
                Error::new(
                    ErrorCode::Protocol,
                    "this data node runs alone, in no node group",
                ),
            );
        };
        match role.serving_links() {
            Ok(serving) if serving == epoch && role.view().members.contains(&node) => {
                self.step_peer = Some((node, epoch));
                self.session = crate::replication::DECISION_SESSION_BASE | u64::from(node);
                let reply = self.hello_reply(true);
                self.reply(id, &reply);
            }
            Ok(serving) => self.fail(
                id,
                Error::new(
                    ErrorCode::NotPrimary,
                    format!(
                        "data node {} serves in view {serving}, not in view {epoch} with data node {node} a member",
                        self.shared.node_id
                    ),
                ),
            ),
            Err(e) => self.fail(id, e),
        }
    }

    /// Whether a step link request may run here now: on a link opened in the view this node
    /// still serves in. None when it may, else why not.
    pub(super) fn refuses_step_request(&self) -> Option<Error> {
        let Some((node, epoch)) = self.step_peer else {
            return Some(Error::new(
                ErrorCode::Protocol,
                "steps come only on a step link (after StepHello)",
            ));
        };
        let role = self.shared.role.as_ref()?;
        match role.serving_links() {
            Ok(serving) if serving == epoch => None,
            Ok(serving) => Some(Error::new(
                ErrorCode::ViewChanged,
                format!(
                    "the step link from data node {node} was opened in view {epoch}; this node serves in view {serving}"
                ),
            )),
            Err(e) => Some(e),
        }
    }

    /// On a group's primary: runs a step link's steps for the sender's transaction
    /// `transaction` on this node's workers, and answers `StepsDone`.
    pub(super) fn remote_steps(
        &mut self,
        request_id: u64,
        transaction: u64,
        (statement, keep_from): (u32, u32),
        steps: Vec<Step>,
    ) {
        if let Some(error) = self.take_rolled_back(transaction) {
            return self.fail(request_id, error);
        }
        let placement = self.shared.placement;
        if let Some(s) = steps.iter().find(|s| !placement.is_local(s.partition)) {
            return self.fail(
                request_id,
                Error::new(
                    ErrorCode::BadRequest,
                    format!(
                        "partition {} is not held by this data node's node group",
                        s.partition
                    ),
                ),
            );
        }
        if let Some(e) = self.queues_full() {
            return self.fail(request_id, e);
        }
        let id = match self.txns.get_mut(&transaction) {
            Some(t) => {
                t.busy = true;
                t.last_active = Instant::now();
                t.id
            }
            None => {
                let id = self
                    .shared
                    .next_txn
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                self.txns.insert(transaction, OpenTxn::new(id));
                id
            }
        };
        let tag = self.tag();
        let workers = self.shared.worker_count();
        let mut per_worker: Vec<Vec<Step>> = (0..workers).map(|_| Vec::new()).collect();
        for s in steps {
            per_worker[placement.worker_of(s.partition)].push(s);
        }
        let open = self.txns.get_mut(&transaction).expect("open transaction");
        let waiting = super::execute::steps_to_workers(
            &mut self.outbox,
            open,
            per_worker,
            super::execute::ToWorkerSteps {
                txn: id,
                tag,
                statement,
                keep_from,
                reply_to: self.me,
            },
        );
        if waiting == 0 {
            return self.reply(request_id, &Message::StepsDone { replies: vec![] });
        }
        self.pending.insert(
            tag,
            Pending::RemoteSteps {
                request_id,
                transaction,
                waiting,
                replies: Vec::new(),
            },
        );
    }

    /// A worker's answers to a step link's steps; with the last, the link hears them all.
    pub(super) fn on_remote_steps(&mut self, tag: u64, replies: Vec<StepReply>) {
        let Some(Pending::RemoteSteps {
            request_id,
            transaction,
            waiting,
            replies: mut gathered,
        }) = self.pending.remove(&tag)
        else {
            return;
        };
        gathered.extend(replies);
        if waiting > 1 {
            self.pending.insert(
                tag,
                Pending::RemoteSteps {
                    request_id,
                    transaction,
                    waiting: waiting - 1,
                    replies: gathered,
                },
            );
            return;
        }
        if let Some(t) = self.txns.get_mut(&transaction) {
            t.busy = false;
            t.last_active = Instant::now();
        }
        self.reply(request_id, &Message::StepsDone { replies: gathered });
    }

    /// Sends a round's steps on partitions of other node groups, one `Steps` per group; returns
    /// how many answers to wait for.
    pub(super) fn send_remote(
        &mut self,
        tag: u64,
        state: &ExecState,
        per_group: BTreeMap<u32, Vec<Step>>,
    ) -> usize {
        let shared = self.shared.clone();
        let Some(links) = shared.step_links.as_ref() else {
            return 0;
        };
        let mut sent = 0;
        for (group, steps) in per_group {
            let open = self
                .txns
                .get_mut(&state.client_txn)
                .expect("open transaction");
            let part = open.remote.entry(group).or_default();
            part.written |= steps
                .iter()
                .any(|s| !matches!(s.kind, StepKind::Read { .. }));
            let generation = part.generation;
            let first_slot = steps.iter().map(|s| s.slot).min().unwrap_or(0);
            let message = Message::Steps {
                transaction: state.txn,
                statement: state.statement,
                keep_from: state.keep_from,
                steps,
            };
            links.send(
                group,
                generation,
                message,
                self.deliver(tag, group, first_slot),
            );
            sent += 1;
        }
        sent
    }

    /// A callback that hands a step link's answer to this coordinator as an event.
    pub(super) fn deliver(
        &self,
        tag: u64,
        group: u32,
        first_slot: u32,
    ) -> crate::steplink::StepDone {
        let (shared, me) = (self.shared.clone(), self.me);
        Box::new(move |result| {
            shared.workers[me.worker].send(ToWorker::ToCoordinator {
                connection: me.connection,
                event: Event::Remote {
                    tag,
                    group,
                    first_slot,
                    result: Box::new(result),
                },
            });
        })
    }

    /// A step link answered (or failed) a request of this coordinator.
    pub(super) fn on_remote(
        &mut self,
        tag: u64,
        group: u32,
        first_slot: u32,
        result: Result<(u64, Message), Error>,
    ) {
        let answer = match result {
            Ok((generation, message)) => {
                let client_txn = match self.pending.get(&tag) {
                    Some(Pending::Execute(state)) => Some(state.client_txn),
                    Some(Pending::Undo(state)) => Some(state.client_txn),
                    _ => None,
                };
                if let Some(t) = client_txn.and_then(|c| self.txns.get_mut(&c)) {
                    t.remote.entry(group).or_default().generation = Some(generation);
                }
                message
            }
            Err(e) => Message::Failure(e),
        };
        match self.pending.get(&tag) {
            Some(Pending::Execute(_)) => match answer {
                Message::StepsDone { replies } => self.on_steps(tag, replies),
                other => {
                    let error = failure_of(other, group);
                    self.on_steps(
                        tag,
                        vec![StepReply {
                            slot: first_slot,
                            result: Err(error),
                        }],
                    );
                }
            },
            Some(Pending::Undo(_)) => {
                if !matches!(answer, Message::ExecuteReply(ExecuteOutcome::Ok(_))) {
                    let error = failure_of(answer, group);
                    if let Some(Pending::Undo(state)) = self.pending.get(&tag) {
                        let client_txn = state.client_txn;
                        if let Some(t) = self.txns.get_mut(&client_txn) {
                            t.broken = Some(error);
                        }
                    }
                }
                self.on_finished(tag);
            }
            Some(Pending::Preparing { .. }) => self.on_prepared(tag, group, answer),
            // A prepared part's commit: answered, or given up on after long (the transaction
            // committed all the same; that group learns it from the coordinator's group).
            Some(Pending::Commit { .. }) => self.on_finished(tag),
            Some(Pending::Scan(_)) => match answer {
                Message::ScanPartRows { rows, next } => {
                    self.on_scan_part(tag, Ok(ScanPart { rows, next }))
                }
                other => self.on_scan_part(tag, Err(failure_of(other, group))),
            },
            Some(Pending::Relay { .. }) => {
                if let Some(Pending::Relay { request_id }) = self.pending.remove(&tag) {
                    self.reply(request_id, &answer);
                }
            }
            _ => {}
        }
    }

    /// Asks node group `group`'s primary for the next part of a scan stream over its
    /// partitions (`scan.rs`); the answer comes as a scan part.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn read_remote(
        &mut self,
        tag: u64,
        group: u32,
        stream: (Option<TxnId>, Option<u64>, &[u32]),
        request: &wire::ScanRequest,
        place: ScanPlace,
        rows_max: usize,
        bytes_max: usize,
    ) {
        let shared = self.shared.clone();
        let Some(links) = shared.step_links.as_ref() else {
            return self.on_scan_part(
                tag,
                Err(Error::new(
                    ErrorCode::Internal,
                    "no step links on this node",
                )),
            );
        };
        let (txn, link, partitions) = stream;
        let message = Message::ScanPart {
            transaction: txn.unwrap_or(0),
            request: request.clone(),
            partitions: partitions.to_vec(),
            place,
            rows_max: rows_max.min(u32::MAX as usize) as u32,
            bytes_max: bytes_max.min(u32::MAX as usize) as u32,
        };
        links.send(group, link, message, self.deliver(tag, group, 0));
    }

    /// On a group's primary: the next part of a step link's scan stream, read by the worker
    /// holding its partitions, seeing the changes of the sender's transaction there.
    pub(super) fn remote_scan_part(&mut self, request_id: u64, part: ScanPartRequest) {
        let placement = self.shared.placement;
        let Some(&first) = part.partitions.first() else {
            return self.fail(
                request_id,
                Error::new(ErrorCode::BadRequest, "no partitions"),
            );
        };
        let worker = placement.worker_of(first);
        if part
            .partitions
            .iter()
            .any(|p| !placement.is_local(*p) || placement.worker_of(*p) != worker)
            || part.place.partition >= part.partitions.len()
        {
            return self.fail(
                request_id,
                Error::new(
                    ErrorCode::BadRequest,
                    "a scan part names partitions of another node group or worker",
                ),
            );
        }
        if let Some(e) = self.queues_full() {
            return self.fail(request_id, e);
        }
        let plan = match self.plan_scan(part.request) {
            Ok((plan, _)) => plan,
            Err(e) => return self.fail(request_id, e),
        };
        let txn = self
            .txns
            .get_mut(&part.transaction)
            .filter(|_| part.transaction != 0)
            .map(|t| {
                t.last_active = Instant::now();
                (t.id, t.written)
            })
            .filter(|(_, written)| written & (1 << worker) != 0)
            .map(|(id, _)| id);
        let tag = self.tag();
        self.pending.insert(tag, Pending::RemoteScan { request_id });
        self.outbox.push((
            worker,
            ToWorker::Scan {
                tag,
                partitions: part.partitions,
                plan: std::sync::Arc::new(plan),
                txn,
                from: part.place,
                rows_max: (part.rows_max as usize).clamp(1, base::limits::SCAN_BATCH_ROWS_MAX),
                bytes_max: (part.bytes_max as usize).clamp(1, base::limits::SCAN_BATCH_BYTES_MAX),
                reply_to: self.me,
            },
        ));
    }

    /// A worker read a step link's scan part.
    pub(super) fn on_remote_scan(&mut self, tag: u64, rows: Result<ScanPart, Error>) {
        let Some(Pending::RemoteScan { request_id }) = self.pending.remove(&tag) else {
            return;
        };
        match rows {
            Ok(part) => self.reply(
                request_id,
                &Message::ScanPartRows {
                    rows: part.rows,
                    next: part.next,
                },
            ),
            Err(e) => self.fail(request_id, e),
        }
    }

    /// A schema change asked of a primary that is not the schema master goes to the master
    /// (over the step link to the first node group), which makes it and sends it to every
    /// group's primary, this one too; its answer is the client's.
    pub(super) fn relay_schema(&mut self, request_id: u64, change: Message) {
        let shared = self.shared.clone();
        let Some(links) = shared.step_links.as_ref() else {
            return self.fail(
                request_id,
                Error::new(ErrorCode::Internal, "no step link to the schema master"),
            );
        };
        let tag = self.tag();
        self.pending.insert(tag, Pending::Relay { request_id });
        links.send(0, None, change, self.deliver(tag, 0, 0));
    }

    /// Undoes statement `statement` and later ones on every other node group the transaction
    /// reached; returns how many answers to wait for.
    pub(super) fn undo_remote(&mut self, tag: u64, txn: &OpenTxn, statement: u32) -> usize {
        let Some(links) = self.shared.step_links.as_ref() else {
            return 0;
        };
        for (group, part) in &txn.remote {
            links.send(
                *group,
                part.generation,
                Message::UndoRemote {
                    transaction: txn.id,
                    statement,
                },
                self.deliver(tag, *group, 0),
            );
        }
        txn.remote.len()
    }

    /// Rolls back a transaction everywhere it is: this node's workers and other groups' parts.
    pub(super) fn abort_txn(&mut self, txn: &OpenTxn) {
        self.abort_on_workers(txn.id, txn.touched);
        self.release_remote(txn.id, &txn.remote, RemoteEnd::Rollback);
    }

    /// Ends the transaction's parts on other node groups without waiting for their answers.
    pub(super) fn release_remote(&self, txn: TxnId, parts: &RemoteParts, end: RemoteEnd) {
        let Some(links) = self.shared.step_links.as_ref() else {
            return;
        };
        for (group, part) in parts {
            links.send(
                *group,
                part.generation,
                Message::EndRemote {
                    transaction: txn,
                    end,
                },
                Box::new(|_| {}),
            );
        }
    }

    /// Commits a transaction that reached other node groups. Writes in another group go to
    /// two-phase commit (`prepare_across`); else the parts there only read, and are released.
    /// Returns the transaction when it is this node's to commit (only its own group wrote).
    pub(super) fn commit_across_groups(
        &mut self,
        request_id: u64,
        client_txn: u64,
        txn: OpenTxn,
        results: Vec<OpResult>,
    ) -> Option<(OpenTxn, Vec<OpResult>)> {
        let written: Vec<u32> = txn
            .remote
            .iter()
            .filter(|(_, p)| p.written)
            .map(|(g, _)| *g)
            .collect();
        // Writes in another group commit in two phases even when only that group wrote: the
        // decision is recorded in this node's group under the client's commit name (and
        // replicated to its backups), which is where a client that lost its connection asks.
        // (A one-phase commit there was named only in that group: with this node dead, the
        // client was told "not committed" of a transaction that was there.)
        if !written.is_empty() {
            self.prepare_across(request_id, client_txn, txn, results);
            return None;
        }
        // Only this node wrote (or nothing did): the remote parts are reads, released first;
        // this node commits as always.
        let mut txn = txn;
        let parts = std::mem::take(&mut txn.remote);
        self.release_remote(txn.id, &parts, RemoteEnd::Rollback);
        Some((txn, results))
    }
}

/// The error a step link's answer carries when it is not the one expected.
pub(super) fn failure_of(answer: Message, group: u32) -> Error {
    match answer {
        Message::Failure(e) => e,
        Message::ExecuteReply(ExecuteOutcome::Aborted { error, .. })
        | Message::ExecuteReply(ExecuteOutcome::StatementUndone { error, .. }) => error,
        other => Error::new(
            ErrorCode::Protocol,
            format!(
                "node group {}'s primary answered with message {}",
                group + 1,
                other.type_code()
            ),
        ),
    }
}
