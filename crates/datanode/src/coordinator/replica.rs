//! A coordinator's part in its node group (`crate::replication`): on the primary, a commit's
//! rows gathered from its workers and sent to the backups before the workers commit, and schema
//! changes sent after they are done here; on a backup, the primary's link (its hello, the rows
//! it sends, its schema changes); on either, refusing what the node does not serve in the
//! current view.

use std::sync::atomic::Ordering;

use base::{limits, Error, ErrorCode};
use wire::{ExecuteOutcome, Message, OpResult, RowChange};

use super::{commit_messages, Coordinator, OpenTxn, Pending};
use crate::messages::*;

/// A commit whose row images are coming from its workers.
pub(super) struct Gather {
    pub(super) request_id: u64,
    pub(super) txn: OpenTxn,
    pub(super) results: Vec<OpResult>,
    pub(super) waiting: usize,
    pub(super) changes: Vec<RowChange>,
}

/// Requests that change the schema: done here first, then by every backup.
fn is_schema_change(message: &Message) -> bool {
    matches!(
        message,
        Message::CreateTable(_)
            | Message::AddIndex { .. }
            | Message::AlterTable { .. }
            | Message::CreateDatabase { .. }
            | Message::AlterDatabase { .. }
            | Message::DropTable { .. }
            | Message::DropDatabase { .. }
    )
}

impl Coordinator {
    /// Refuses (and answers) a request this node does not serve in the current view: data and
    /// schema requests anywhere but on the group's primary, except what the primary's own link
    /// brings a backup. A schema change a primary will do is noted for the backups. True when
    /// the request was answered.
    pub(super) fn refused_by_role(&mut self, id: u64, message: &Message) -> bool {
        let Some(role) = self.shared.role.clone() else {
            return false;
        };
        let refusal = match message {
            Message::Hello { .. }
            | Message::Ping { .. }
            | Message::Status
            | Message::GetTable { .. }
            | Message::ListTables
            | Message::ListDatabases
            | Message::Checkpoint
            | Message::PeerHello { .. } => None,
            Message::Replicate { .. } => match self.replica_epoch {
                Some(epoch) => role.accepts_commit(epoch).err(),
                None => Some(Error::new(
                    ErrorCode::Protocol,
                    "replicated rows come only on a primary's link (after PeerHello)",
                )),
            },
            m if self.replica_epoch.is_some() && is_schema_change(m) => role
                .accepts_commit(self.replica_epoch.unwrap_or_default())
                .err(),
            m => match role.serving() {
                Err(e) => Some(e),
                Ok(_) if is_schema_change(m) && role.has_backups() => {
                    if self.shared.schema_change_busy.swap(true, Ordering::AcqRel) {
                        Some(Error::new(
                            ErrorCode::Overloaded,
                            "another schema change is being made on the node group; retry",
                        ))
                    } else {
                        self.forwarding.insert(id, message.clone());
                        None
                    }
                }
                Ok(_) => None,
            },
        };
        match refusal {
            Some(e) => {
                self.fail(id, e);
                true
            }
            None => false,
        }
    }

    /// A primary opens its replication link to this node.
    pub(super) fn peer_hello(&mut self, id: u64, node: u32, epoch: u64) {
        let Some(role) = self.shared.role.clone() else {
            return self.fail(
                id,
                Error::new(
                    ErrorCode::Protocol,
                    "this data node runs alone, in no node group",
                ),
            );
        };
        match role.accepts_peer(node, epoch) {
            Ok(()) => {
                self.replica_epoch = Some(epoch);
                let reply = Message::HelloReply {
                    node_id: self.shared.node_id,
                    worker_count: self.shared.worker_count() as u32,
                    serving: false,
                };
                self.reply(id, &reply);
            }
            Err(e) => self.fail(id, e),
        }
    }

    /// A backup applies its primary's commit on the workers owning the rows' partitions, as one
    /// logged transaction, and answers once every part is written (and synced, as the node's
    /// durability says).
    pub(super) fn apply_replicated(&mut self, id: u64, changes: Vec<RowChange>) {
        let workers = self.shared.worker_count();
        let mut parts: Vec<Vec<RowChange>> = (0..workers).map(|_| Vec::new()).collect();
        for change in changes {
            parts[change.partition as usize % workers].push(change);
        }
        let participants = parts.iter().filter(|p| !p.is_empty()).count();
        if participants == 0 {
            return self.reply(id, &Message::Done);
        }
        let txn = self.shared.next_txn.fetch_add(1, Ordering::Relaxed);
        let sequence = self.shared.sequence.fetch_add(1, Ordering::SeqCst);
        let tag = self.tag();
        for (w, part) in parts.into_iter().enumerate() {
            if part.is_empty() {
                continue;
            }
            self.outbox.push((
                w,
                ToWorker::Apply {
                    changes: part,
                    txn,
                    participants: participants as u16,
                    sequence,
                    tag,
                    reply_to: self.me,
                },
            ));
        }
        self.pending.insert(
            tag,
            Pending::Ddl {
                request_id: id,
                waiting: participants,
                reply: Message::Done,
            },
        );
    }

    /// Asks every worker the transaction wrote on for its row images.
    pub(super) fn gather_images(&mut self, request_id: u64, txn: OpenTxn, results: Vec<OpResult>) {
        let tag = self.tag();
        let mut waiting = 0;
        for w in 0..self.shared.worker_count() {
            if txn.written & (1 << w) != 0 {
                self.outbox.push((
                    w,
                    ToWorker::Images {
                        txn: txn.id,
                        tag,
                        reply_to: self.me,
                    },
                ));
                waiting += 1;
            }
        }
        self.pending.insert(
            tag,
            Pending::Gather(Box::new(Gather {
                request_id,
                txn,
                results,
                waiting,
                changes: Vec::new(),
            })),
        );
    }

    /// A worker's images came; with the last, the rows go to the backups. Once they answered,
    /// the commit goes to the workers from the link's thread, so it ends even if this
    /// connection closed meanwhile.
    pub(super) fn on_images(&mut self, tag: u64, changes: Vec<RowChange>) {
        let Some(Pending::Gather(mut gather)) = self.pending.remove(&tag) else {
            return;
        };
        gather.changes.extend(changes);
        gather.waiting -= 1;
        if gather.waiting > 0 {
            self.pending.insert(tag, Pending::Gather(gather));
            return;
        }
        let Gather {
            request_id,
            txn,
            results,
            changes,
            ..
        } = *gather;
        let bytes: usize = changes.iter().map(RowChange::encoded_bytes).sum();
        if bytes + 64 > limits::FRAME_BODY_BYTES_MAX as usize {
            self.abort_on_workers(txn.id, txn.touched);
            let error = Error::new(
                ErrorCode::LimitExceeded,
                format!(
                    "transaction rolled back: its rows take {bytes} bytes, more than one replication message holds ({} bytes)",
                    limits::FRAME_BODY_BYTES_MAX
                ),
            );
            return self.reply(
                request_id,
                &Message::ExecuteReply(ExecuteOutcome::Aborted { op_index: 0, error }),
            );
        }
        let Some(role) = self.shared.role.clone() else {
            return;
        };
        let (shared, me) = (self.shared.clone(), self.me);
        let waiting = txn.touched.count_ones() as usize;
        self.pending.insert(
            tag,
            Pending::Replicating {
                request_id,
                results,
                waiting,
            },
        );
        role.replicate(
            Message::Replicate { changes },
            true,
            Box::new(move |result| {
                let ok = result.is_ok();
                // The coordinator hears first: the workers' answers to the commit come after.
                shared.workers[me.worker].send(ToWorker::ToCoordinator {
                    connection: me.connection,
                    event: Event::Replicated {
                        tag,
                        result: result.map(|_| Vec::new()),
                    },
                });
                let messages = if ok {
                    commit_messages(&shared, &txn, tag, me).0
                } else {
                    (0..shared.worker_count())
                        .filter(|w| txn.touched & (1 << w) != 0)
                        .map(|w| {
                            (
                                w,
                                ToWorker::Abort {
                                    txn: txn.id,
                                    tag: 0,
                                    reply_to: None,
                                },
                            )
                        })
                        .collect()
                };
                for (w, message) in messages {
                    shared.workers[w].send(message);
                }
            }),
        );
    }

    /// The backups answered a commit's rows (the workers are committing it now), or a schema
    /// change's.
    pub(super) fn on_replicated(&mut self, tag: u64, result: Result<Vec<Message>, Error>) {
        match self.pending.remove(&tag) {
            Some(Pending::Replicating {
                request_id,
                results,
                waiting,
            }) => match result {
                Ok(_) => {
                    self.pending.insert(
                        tag,
                        Pending::Commit {
                            request_id,
                            waiting,
                            results,
                        },
                    );
                }
                Err(error) => self.reply(
                    request_id,
                    &Message::ExecuteReply(ExecuteOutcome::Aborted { op_index: 0, error }),
                ),
            },
            Some(Pending::Forward { request_id, reply }) => {
                if let Ok(answers) = &result {
                    self.check_backups_agree(&reply, answers);
                }
                match result {
                    Ok(_) => self.reply(request_id, &reply),
                    Err(e) => self.fail(request_id, e),
                }
            }
            Some(other) => {
                self.pending.insert(tag, other);
            }
            None => {}
        }
    }

    /// Holds a schema change's answer until the backups did it too; on a backup, a schema change
    /// of the primary's that fails here stops the node (its catalog would differ). True when
    /// the answer is held.
    pub(super) fn held_for_backups(&mut self, request_id: u64, message: &Message) -> bool {
        if self.replica_epoch.is_some() {
            if let Message::Failure(e) = message {
                if e.code != ErrorCode::NotPrimary {
                    self.shared.fail(format!(
                        "the primary's schema change or commit failed on this backup: {e}"
                    ));
                }
            }
            return false;
        }
        let Some(forwarded) = self.forwarding.remove(&request_id) else {
            return false;
        };
        if matches!(message, Message::Failure(_)) {
            self.shared
                .schema_change_busy
                .store(false, Ordering::Release);
            return false;
        }
        let Some(role) = self.shared.role.clone() else {
            return false;
        };
        let tag = self.tag();
        self.pending.insert(
            tag,
            Pending::Forward {
                request_id,
                reply: message.clone(),
            },
        );
        let (shared, me) = (self.shared.clone(), self.me);
        role.replicate(
            forwarded,
            false,
            Box::new(move |result| {
                shared.schema_change_busy.store(false, Ordering::Release);
                shared.workers[me.worker].send(ToWorker::ToCoordinator {
                    connection: me.connection,
                    event: Event::Replicated { tag, result },
                });
            }),
        );
        true
    }

    /// A table's definition on a backup must be the primary's (same ids, versions, partitions):
    /// a difference is a broken invariant, and the node stops.
    fn check_backups_agree(&self, own: &Message, answers: &[Message]) {
        if !matches!(own, Message::TableInfo { .. }) {
            return;
        }
        if let Some(other) = answers.iter().find(|a| *a != own) {
            self.shared.fail(format!(
                "a backup's table definition differs from this primary's after a schema change: here {own:?}, there {other:?}"
            ));
        }
    }
}
