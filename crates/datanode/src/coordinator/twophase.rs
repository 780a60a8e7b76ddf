//! Two-phase commit across node groups, both sides. A transaction that wrote in more than one
//! node group commits in two phases. First every other group that wrote prepares its part:
//! its primary sends the part's rows to its backups, which hold them without applying them
//! (`Prepared`), and keeps the part's locks. Then the coordinator's own group records the
//! decision: its commit's rows (maybe none) go to its backups named as the decision of the
//! transaction (`Replicate::decision`), which is the commit point. Then each prepared part
//! commits (`CommitPrepared`: its backups apply the held rows, `Resolve`, then its primary
//! commits), and the client hears. A participant that lost its coordinator asks the
//! coordinator's group (`CommitOutcome` on the decision's name), whose answer "not committed"
//! also refuses that decision for good (`Role::begin_decision`), so it stays true.

use std::time::Instant;

use base::{Error, ErrorCode};
use wire::{ExecuteOutcome, Message, OpResult, RemoteEnd, RowChange};

use super::remote::RemoteParts;
use super::{Coordinator, OpenTxn, Pending};
use crate::messages::*;

/// What a commit's gathered row images are for.
pub(super) enum Purpose {
    /// A commit of this node's group alone.
    Commit,
    /// The decision of a transaction whose parts in other groups are prepared.
    Decide(Box<Decided>),
    /// A prepared part of data node `coordinator`'s transaction `transaction`.
    Prepare { coordinator: u32, transaction: u64 },
}

/// A transaction being decided: its parts in other node groups.
pub(super) struct Decided {
    pub(super) txn: TxnId,
    pub(super) parts: RemoteParts,
    /// The workers of this node it wrote on (none: its decision gets a record of its own).
    pub(super) written: u64,
}

/// A prepared part of another node's transaction, held on this primary (its workers keep its
/// locks) until the coordinator's group says how the transaction ended.
#[derive(Debug, Clone)]
pub struct InDoubt {
    pub txn: TxnId,
    pub touched: u64,
    pub written: u64,
    pub since: Instant,
    /// The part's rows: sent again with the commit (`Resolve`), for a node that started
    /// copying after the prepare.
    pub changes: Vec<RowChange>,
}

impl Coordinator {
    /// A transaction that wrote in several groups: their parts prepare first.
    pub(super) fn prepare_across(
        &mut self,
        request_id: u64,
        client_txn: u64,
        txn: OpenTxn,
        results: Vec<OpResult>,
    ) {
        let shared = self.shared.clone();
        let Some(links) = shared.step_links.as_ref() else {
            return;
        };
        // The commit is under way from here: a client that lost its connection asks, and
        // must hear "ask again" until the prepares are answered and the decision taken (not
        // "not committed" of a transaction about to commit).
        let Some((txn, results)) = self.begin_commit(request_id, client_txn, txn, results, true)
        else {
            return;
        };
        let tag = self.tag();
        let mut waiting = 0;
        for (group, part) in txn.remote.iter().filter(|(_, p)| p.written()) {
            links.send(
                *group,
                part.link(),
                Message::EndRemote {
                    transaction: txn.id,
                    end: RemoteEnd::Prepare,
                },
                self.deliver(tag, *group, 0),
            );
            waiting += 1;
        }
        self.pending.insert(
            tag,
            Pending::Preparing {
                request_id,
                client_txn,
                txn: Box::new(txn),
                results,
                waiting,
                failure: None,
            },
        );
    }

    /// A group answered its prepare; with the last, the transaction is decided (or, after any
    /// failure, rolled back everywhere).
    pub(super) fn on_prepared(&mut self, tag: u64, group: u32, answer: Message) {
        let Some(Pending::Preparing {
            request_id,
            client_txn,
            txn,
            results,
            waiting,
            mut failure,
        }) = self.pending.remove(&tag)
        else {
            return;
        };
        if !matches!(answer, Message::ExecuteReply(ExecuteOutcome::Ok(_))) && failure.is_none() {
            failure = Some(super::remote::failure_of(answer, group));
        }
        if waiting > 1 {
            self.pending.insert(
                tag,
                Pending::Preparing {
                    request_id,
                    client_txn,
                    txn,
                    results,
                    waiting: waiting - 1,
                    failure,
                },
            );
            return;
        }
        let mut txn = *txn;
        if let Some(error) = failure {
            self.abort_txn(&txn);
            if let Some(role) = &self.shared.role {
                role.commit_ended((self.session, client_txn), false);
            }
            return self.reply(
                request_id,
                &Message::ExecuteReply(ExecuteOutcome::Aborted { op_index: 0, error }),
            );
        }
        let parts = std::mem::take(&mut txn.remote);
        let decided = Decided {
            txn: txn.id,
            parts,
            written: txn.written,
        };
        self.gather_for(
            request_id,
            client_txn,
            txn,
            results,
            Purpose::Decide(Box::new(decided)),
        );
    }

    /// The decision is recorded: every prepared part commits, and the parts that only read
    /// are released. Returns how many answers the client waits for. A commit a group's
    /// primary does not answer (it died, a new one takes over) is sent again until answered:
    /// the transaction committed, and that group's part must too.
    pub(super) fn commit_prepared_parts(&mut self, tag: u64, decided: Decided) -> usize {
        let shared = self.shared.clone();
        let Some(links) = shared.step_links.as_ref() else {
            return 0;
        };
        let mut waiting = 0;
        for (group, part) in &decided.parts {
            if !part.written() {
                links.send(
                    *group,
                    part.link(),
                    Message::EndRemote {
                        transaction: decided.txn,
                        end: RemoteEnd::Rollback,
                    },
                    Box::new(|_| {}),
                );
                continue;
            }
            links.send_until_answered(
                *group,
                Message::EndRemote {
                    transaction: decided.txn,
                    end: RemoteEnd::CommitPrepared,
                },
                self.deliver(tag, *group, 0),
            );
            waiting += 1;
        }
        waiting
    }

    /// On a group's primary: a step link ends, prepares or commits the sender's transaction.
    pub(super) fn end_remote(&mut self, id: u64, transaction: u64, end: RemoteEnd) {
        let coordinator = self.step_peer.map_or(0, |(node, _)| node);
        match end {
            RemoteEnd::Commit => self.end_txn(id, transaction, true, Vec::new()),
            RemoteEnd::Rollback => {
                let held = self.shared.take_in_doubt((coordinator, transaction));
                match held {
                    Some(part) => {
                        self.resolve_part((coordinator, transaction), part, false, None);
                        self.reply(id, &Message::ExecuteReply(ExecuteOutcome::Ok(Vec::new())));
                    }
                    None => self.end_txn(id, transaction, false, Vec::new()),
                }
            }
            RemoteEnd::Prepare => {
                let Some(txn) = self.txns.remove(&transaction) else {
                    return self.fail(
                        id,
                        Error::new(
                            ErrorCode::ViewChanged,
                            "the transaction's part here is gone (rolled back); retry",
                        ),
                    );
                };
                if txn.written == 0 {
                    // Nothing to prepare: it only read here, and is released.
                    self.abort_txn(&txn);
                    return self.reply(id, &Message::ExecuteReply(ExecuteOutcome::Ok(Vec::new())));
                }
                self.gather_for(
                    id,
                    transaction,
                    txn,
                    Vec::new(),
                    Purpose::Prepare {
                        coordinator,
                        transaction,
                    },
                );
            }
            RemoteEnd::CommitPrepared => {
                let held = self.shared.take_in_doubt((coordinator, transaction));
                match held {
                    Some(part) => {
                        self.resolve_part((coordinator, transaction), part, true, Some(id))
                    }
                    None => self.commit_held((coordinator, transaction), id),
                }
            }
        }
    }

    /// On a group's primary: a prepared part's rows go to the backups, which hold them; then
    /// the part waits, its locks held, for the coordinator's second phase.
    pub(super) fn send_prepared(
        &mut self,
        tag: u64,
        request_id: u64,
        txn: OpenTxn,
        part: (u32, u64),
        changes: Vec<RowChange>,
    ) {
        let Some(role) = self.shared.role.clone() else {
            return;
        };
        self.pending
            .insert(tag, Pending::PreparingHere { request_id });
        let (shared, me) = (self.shared.clone(), self.me);
        let prepared = InDoubt {
            txn: txn.id,
            touched: txn.touched,
            written: txn.written,
            since: Instant::now(),
            changes: changes.clone(),
        };
        let counted = role.clone();
        role.replicate(
            Message::Prepared {
                coordinator: part.0,
                transaction: part.1,
                changes,
            },
            true,
            Box::new(move |result, generation| {
                if result.is_ok() {
                    shared
                        .in_doubt
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .insert(part, prepared);
                    // Recorded: a copy that begins from now on sends it (a refused job was
                    // never counted).
                    counted.settled(generation);
                } else {
                    for w in (0..shared.worker_count()).filter(|w| prepared.touched & (1 << w) != 0)
                    {
                        shared.workers[w].send(ToWorker::Abort {
                            txn: prepared.txn,
                            tag: 0,
                            reply_to: None,
                        });
                    }
                }
                shared.workers[me.worker].send(ToWorker::ToCoordinator {
                    connection: me.connection,
                    event: Event::Replicated {
                        tag,
                        result: result.map(|_| Vec::new()),
                    },
                });
            }),
        );
    }

    /// The backups hold a prepared part (or could not take it): the coordinator hears.
    pub(super) fn on_prepared_here(&mut self, request_id: u64, result: Result<(), Error>) {
        let outcome = match result {
            Ok(()) => ExecuteOutcome::Ok(Vec::new()),
            Err(error) => ExecuteOutcome::Aborted { op_index: 0, error },
        };
        self.reply(request_id, &Message::ExecuteReply(outcome));
    }

    /// Ends a prepared part held here (`crate::indoubt::resolve_held`); with `answer`, the
    /// request hears once committed.
    pub(super) fn resolve_part(
        &mut self,
        part: (u32, u64),
        held: InDoubt,
        commit: bool,
        answer: Option<u64>,
    ) {
        let waiting = held.touched.count_ones() as usize;
        let reply = answer.map(|request_id| {
            let tag = self.tag();
            self.pending.insert(
                tag,
                Pending::Replicating {
                    request_id,
                    results: Vec::new(),
                    waiting,
                    decided: None,
                    name: (0, 0),
                },
            );
            (self.me, tag)
        });
        crate::indoubt::resolve_held(&self.shared, part, held, commit, reply);
    }

    /// A second phase for a part this node does not hold as a primary: one it held as a
    /// backup of a primary that died is applied now (this node took over); one it holds
    /// nowhere was resolved already.
    fn commit_held(&mut self, part: (u32, u64), id: u64) {
        let held = self
            .shared
            .role
            .as_ref()
            .and_then(|r| r.take_held_to_apply(part));
        match held {
            Some(changes) => {
                // This node took its group over holding the part: the commit goes to its own
                // backups (if any) and is applied here, as a replicated commit is. (The
                // transaction is decided already: the coordinator need not wait for the log.)
                crate::indoubt::apply(&self.shared, part, changes);
                self.reply(id, &Message::ExecuteReply(ExecuteOutcome::Ok(Vec::new())));
            }
            None => self.reply(id, &Message::ExecuteReply(ExecuteOutcome::Ok(Vec::new()))),
        }
    }
}
