//! A data node's transaction coordinator: drives each transaction it was given through parallel
//! prepare on every replica, commit on the backups, commit on the primaries, and complete on
//! every replica (then the client is answered, so a READ_BACKUP read that follows sees the
//! commit on any replica); retransmits whatever is unanswered; and, after a view change, leaves
//! its older transactions to the takeover (telling it which it had decided to commit) and
//! answers their clients with the takeover's decision.
//!
//! Messages per commit on one partition with R replicas: R prepares and R answers, R-1 backup
//! commits and answers, 1 primary commit and answer, R completes and answers: 6R messages, all
//! before the client's answer, in four round trips.

use std::collections::{BTreeMap, BTreeSet};

use crate::layout::{Epoch, Layout, NodeId, PartitionId, Time, View};
use crate::msg::{ClientReply, Gci, Msg, Op, Refusal, TxnId, Versioned};
use crate::participant::Prepared;
use crate::{Mutation, Output};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Preparing,
    CommitBackups,
    CommitPrimaries,
    Completing,
    Aborting,
    /// The view changed before the outcome was known: the takeover decides.
    AwaitingTakeover,
}

#[derive(Debug)]
struct Txn {
    epoch: Epoch,
    client: NodeId,
    request: u64,
    /// Each partition's replicas (primary first) and operations.
    parts: BTreeMap<PartitionId, (Vec<NodeId>, Vec<Op>)>,
    phase: Phase,
    pending: BTreeSet<(PartitionId, NodeId)>,
    reads: Vec<(u64, Option<Versioned>)>,
    /// Per partition, the versions its primary named for the writes.
    versions: BTreeMap<PartitionId, Vec<(u64, u64)>>,
    answered: bool,
    /// Every replica prepared and commits were sent: the takeover must commit it.
    decided: bool,
    /// The global checkpoint it commits in: the highest of its primaries' and this node's when
    /// every replica had prepared.
    gci: Gci,
    retry_at: Time,
}

#[derive(Debug, Default)]
pub struct Coordinator {
    next_seq: u64,
    txns: BTreeMap<TxnId, Txn>,
}

impl Coordinator {
    /// Starts a transaction for a client.
    #[allow(clippy::too_many_arguments)]
    pub fn begin(
        &mut self,
        me: NodeId,
        now: Time,
        retry: Time,
        layout: &Layout,
        view: &View,
        client: NodeId,
        request: u64,
        ops: Vec<Op>,
        out: &mut Vec<Output>,
    ) {
        let mut parts: BTreeMap<PartitionId, (Vec<NodeId>, Vec<Op>)> = BTreeMap::new();
        for op in ops {
            let partition = crate::partition_of(layout, op.key());
            parts
                .entry(partition)
                .or_insert_with(|| (view.replicas(layout, partition), Vec::new()))
                .1
                .push(op);
        }
        if parts.values().any(|(replicas, _)| replicas.is_empty()) {
            out.push(reply(
                client,
                request,
                ClientReply::Refused(Refusal::NotServing),
            ));
            return;
        }
        self.next_seq += 1;
        let id = TxnId {
            coordinator: me,
            seq: self.next_seq,
        };
        let mut txn = Txn {
            epoch: view.epoch,
            client,
            request,
            parts,
            phase: Phase::Preparing,
            pending: BTreeSet::new(),
            reads: Vec::new(),
            versions: BTreeMap::new(),
            answered: false,
            decided: false,
            gci: 0,
            retry_at: now + retry,
        };
        enter(id, &mut txn, Phase::Preparing, out);
        self.txns.insert(id, txn);
    }

    #[allow(clippy::too_many_arguments)]
    pub fn on_prepared(
        &mut self,
        id: TxnId,
        epoch: Epoch,
        partition: PartitionId,
        from: NodeId,
        answer: Prepared,
        floor: Gci,
        mutation: Option<Mutation>,
        out: &mut Vec<Output>,
    ) {
        let Some(txn) = self.txns.get_mut(&id) else {
            return;
        };
        if txn.epoch != epoch
            || txn.phase != Phase::Preparing
            || !txn.pending.remove(&(partition, from))
        {
            return;
        }
        if txn.parts[&partition].0.first() == Some(&from) {
            txn.reads.extend(answer.reads);
            txn.versions.insert(partition, answer.versions);
            txn.gci = txn.gci.max(answer.gci);
        }
        txn.gci = txn.gci.max(floor);
        let primaries_done = !txn
            .pending
            .iter()
            .any(|(p, n)| txn.parts[p].0.first() == Some(n));
        if mutation == Some(Mutation::AckBeforeBackupsPrepared) && primaries_done {
            enter(id, txn, Phase::CommitPrimaries, out);
        } else if txn.pending.is_empty() {
            enter(id, txn, Phase::CommitBackups, out);
        }
    }

    pub fn on_refused(&mut self, id: TxnId, epoch: Epoch, out: &mut Vec<Output>) {
        let Some(txn) = self.txns.get_mut(&id) else {
            return;
        };
        if txn.epoch != epoch || txn.phase != Phase::Preparing {
            return;
        }
        out.push(reply(
            txn.client,
            txn.request,
            ClientReply::Refused(Refusal::Busy),
        ));
        txn.answered = true;
        enter(id, txn, Phase::Aborting, out);
    }

    pub fn on_committed(
        &mut self,
        id: TxnId,
        epoch: Epoch,
        partition: PartitionId,
        from: NodeId,
        mutation: Option<Mutation>,
        out: &mut Vec<Output>,
    ) {
        let Some(txn) = self.txns.get_mut(&id) else {
            return;
        };
        if txn.epoch != epoch
            || !matches!(txn.phase, Phase::CommitBackups | Phase::CommitPrimaries)
            || !txn.pending.remove(&(partition, from))
            || !txn.pending.is_empty()
        {
            return;
        }
        if txn.phase == Phase::CommitBackups {
            enter(id, txn, Phase::CommitPrimaries, out);
        } else {
            if mutation == Some(Mutation::AckBeforeBackupsPrepared) {
                let reads = std::mem::take(&mut txn.reads);
                out.push(reply(
                    txn.client,
                    txn.request,
                    ClientReply::Committed { reads },
                ));
                txn.answered = true;
            }
            enter(id, txn, Phase::Completing, out);
        }
    }

    /// Counts a Completed or Aborted answer; once all are in, answers the client of a commit and
    /// forgets the transaction.
    pub fn on_finished(
        &mut self,
        id: TxnId,
        epoch: Epoch,
        partition: PartitionId,
        from: NodeId,
        out: &mut Vec<Output>,
    ) {
        let Some(txn) = self.txns.get_mut(&id) else {
            return;
        };
        if txn.epoch == epoch
            && matches!(txn.phase, Phase::Completing | Phase::Aborting)
            && txn.pending.remove(&(partition, from))
            && txn.pending.is_empty()
        {
            if let Some(txn) = self.txns.remove(&id) {
                if !txn.answered {
                    out.push(reply(
                        txn.client,
                        txn.request,
                        ClientReply::Committed { reads: txn.reads },
                    ));
                }
            }
        }
    }

    /// The transactions of epochs before `epoch` this coordinator decided to commit, with their
    /// global checkpoints.
    pub fn decided(&self, epoch: Epoch) -> impl Iterator<Item = (TxnId, Gci)> + '_ {
        self.txns
            .iter()
            .filter(move |(_, t)| t.decided && t.epoch < epoch)
            .map(|(id, t)| (*id, t.gci))
    }

    /// A replica asks about a transaction it has held prepared for long: one this coordinator no
    /// longer knows was finished (aborted, or committed and completed everywhere), so the replica
    /// may drop it.
    pub fn on_status(
        &self,
        id: TxnId,
        epoch: Epoch,
        partition: PartitionId,
        from: NodeId,
        out: &mut Vec<Output>,
    ) {
        if !self.txns.contains_key(&id) && id.seq <= self.next_seq {
            out.push(Output::Send {
                to: from,
                msg: Msg::TxAbort {
                    epoch,
                    txn: id,
                    partition,
                },
            });
        }
    }

    /// Retransmits every phase message not yet answered.
    pub fn tick(&mut self, now: Time, retry: Time, out: &mut Vec<Output>) {
        for (id, txn) in &mut self.txns {
            if txn.retry_at <= now && txn.phase != Phase::AwaitingTakeover {
                txn.retry_at = now + retry;
                send_phase(*id, txn, out);
            }
        }
    }

    /// A new view is installed: transactions of older epochs are decided by its takeover.
    pub fn on_view(&mut self, epoch: Epoch) {
        self.txns
            .retain(|_, txn| txn.epoch >= epoch || !txn.answered);
        for txn in self.txns.values_mut() {
            if txn.epoch < epoch {
                txn.phase = Phase::AwaitingTakeover;
                txn.pending.clear();
            }
        }
    }

    /// The takeover decided: answers the clients of this coordinator's transactions left waiting.
    pub fn on_resolve(&mut self, commit: &[(TxnId, Gci)], out: &mut Vec<Output>) {
        let waiting: Vec<TxnId> = self
            .txns
            .iter()
            .filter(|(_, t)| t.phase == Phase::AwaitingTakeover)
            .map(|(id, _)| *id)
            .collect();
        for id in waiting {
            let Some(txn) = self.txns.remove(&id) else {
                continue;
            };
            let answer = if commit.binary_search_by_key(&id, |(t, _)| *t).is_ok() {
                ClientReply::Committed { reads: txn.reads }
            } else {
                ClientReply::Refused(Refusal::ViewChanged)
            };
            out.push(reply(txn.client, txn.request, answer));
        }
    }

    /// Starts this coordinator's sequence numbers at `base` at least: a restarted node joins with
    /// a base above any its earlier life used (the epoch it joins in, shifted), so replicas'
    /// memory of its old transactions never refuses its new ones.
    pub fn rebase(&mut self, base: u64) {
        self.next_seq = self.next_seq.max(base);
    }

    /// The sequence number of the newest transaction begun.
    pub fn newest(&self) -> u64 {
        self.next_seq
    }

    /// The sequence number below which every transaction of this coordinator is finished.
    pub fn done_below(&self) -> u64 {
        self.txns
            .keys()
            .next()
            .map_or(self.next_seq + 1, |id| id.seq)
    }

    /// Transactions in progress.
    pub fn active(&self) -> usize {
        self.txns.len()
    }
}

fn reply(client: NodeId, request: u64, reply: ClientReply) -> Output {
    Output::Send {
        to: client,
        msg: Msg::ClientReply { request, reply },
    }
}

/// Moves a transaction to `phase`, with every replica that phase waits on pending, and sends them.
fn enter(id: TxnId, txn: &mut Txn, phase: Phase, out: &mut Vec<Output>) {
    txn.phase = phase;
    txn.decided |= matches!(
        phase,
        Phase::CommitBackups | Phase::CommitPrimaries | Phase::Completing
    );
    txn.pending = txn
        .parts
        .iter()
        .flat_map(|(p, (replicas, _))| {
            let chosen: &[NodeId] = match phase {
                Phase::CommitBackups => &replicas[1..],
                Phase::CommitPrimaries => &replicas[..1],
                _ => replicas,
            };
            chosen.iter().map(move |n| (*p, *n))
        })
        .collect();
    if phase == Phase::CommitBackups && txn.pending.is_empty() {
        return enter(id, txn, Phase::CommitPrimaries, out);
    }
    send_phase(id, txn, out);
}

fn send_phase(id: TxnId, txn: &Txn, out: &mut Vec<Output>) {
    let epoch = txn.epoch;
    for &(partition, to) in &txn.pending {
        let msg = match txn.phase {
            Phase::Preparing => {
                let (replicas, ops) = &txn.parts[&partition];
                Msg::TxPrepare {
                    epoch,
                    txn: id,
                    partition,
                    ops: ops.clone(),
                    primary: replicas[0] == to,
                }
            }
            Phase::CommitBackups | Phase::CommitPrimaries => Msg::TxCommit {
                epoch,
                txn: id,
                partition,
                versions: txn.versions.get(&partition).cloned().unwrap_or_default(),
                gci: txn.gci,
            },
            Phase::Completing => Msg::TxComplete {
                epoch,
                txn: id,
                partition,
            },
            Phase::Aborting => Msg::TxAbort {
                epoch,
                txn: id,
                partition,
            },
            Phase::AwaitingTakeover => continue,
        };
        out.push(Output::Send { to, msg });
    }
}
