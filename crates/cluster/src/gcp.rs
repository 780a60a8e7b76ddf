//! Global checkpoints (NDB's GCP): the checkpoint number each commit belongs to, the rounds the
//! lowest member of an open view runs to close one checkpoint and have every node fsync its redo
//! through it, and what a node may claim is on its disk. Knows nothing of messages' transport.
//!
//! A round for checkpoint `n`: the master raises its own checkpoint to `n` and sends `GcpStart`;
//! each node raises its checkpoint to `n` (so every transaction it coordinates from then on, and
//! every one whose primary it is, commits in `n` or later) and answers once every transaction it
//! coordinated before is finished, that is committed on all its replicas or aborted. With every
//! answer, every commit of `n - 1` or before is applied on every replica, so the master sends
//! `GcpSave(n - 1)`: each node appends a `Saved` record and fsyncs, then answers. With every
//! answer, `n - 1` is durable. A view change abandons a round; the next master starts afresh.

use std::collections::{BTreeMap, BTreeSet};

use crate::layout::{Epoch, NodeId, PartitionId, Time};
use crate::msg::{Gci, Msg};
use crate::SyncResult;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Starting,
    Saving,
}

/// The master's round in progress.
#[derive(Debug)]
struct Round {
    epoch: Epoch,
    gci: Gci,
    phase: Phase,
    acks: BTreeSet<NodeId>,
    retry_at: Time,
}

/// What a node does with a `GcpSave`.
#[derive(Debug, PartialEq, Eq)]
pub enum Save {
    /// Already on disk: answer at once.
    Answer(NodeId, Msg),
    /// Append the `Saved` record and fsync, then answer when the fsync is done.
    Sync(Gci),
    Nothing,
}

/// What an fsync's end asks of the node.
#[derive(Debug, PartialEq, Eq)]
pub enum Synced {
    /// Saved: answer the master (if the round's view is still the node's), and the partitions
    /// the claim covers.
    Saved {
        gci: Gci,
        answer: Option<(NodeId, Msg)>,
        partitions: Vec<PartitionId>,
    },
    /// The disk is full: try the fsync again later; meanwhile the node takes no new writes as
    /// primary.
    Full,
    /// The disk failed: stop.
    Failed,
    Nothing,
}

#[derive(Debug)]
pub struct Checkpoints {
    /// This node's checkpoint: every commit it coordinates or takes as primary from now on is in
    /// this one or later. Raised by rounds and by every commit applied here.
    current: Gci,
    /// The newest checkpoint this node's disk holds.
    saved: Gci,
    round: Option<Round>,
    next_round: Time,
    /// A start to answer once the coordinator has finished every transaction up to the mark.
    start: Option<(Epoch, Gci, NodeId, u64)>,
    /// An fsync in flight (or to retry), and whom to answer.
    saving: Option<(Epoch, Gci, NodeId)>,
    /// The fsyncs asked for and not answered, each with the partitions its `Saved` record
    /// covers (those held whole when it was appended: a copy that arrives later is not in it).
    in_flight: BTreeMap<Gci, Vec<PartitionId>>,
    disk_full: bool,
    sync_at: Time,
    /// The partitions this node holds whole, each since which checkpoint: all of them from the
    /// start for a node of the first view, each from its copy for a restarted one.
    whole_since: BTreeMap<PartitionId, Gci>,
    /// Between rounds.
    interval: Time,
}

impl Checkpoints {
    pub fn new(
        partitions: impl Iterator<Item = PartitionId>,
        now: Time,
        interval: Time,
    ) -> Checkpoints {
        Checkpoints {
            interval,
            current: 1,
            saved: 0,
            round: None,
            next_round: now,
            start: None,
            saving: None,
            in_flight: BTreeMap::new(),
            disk_full: false,
            sync_at: now,
            whole_since: partitions.map(|p| (p, 0)).collect(),
        }
    }

    pub fn current(&self) -> Gci {
        self.current
    }

    /// A commit of checkpoint `gci` was applied here: later transactions that meet its rows
    /// commit in it or later.
    pub fn applied(&mut self, gci: Gci) {
        self.current = self.current.max(gci);
    }

    pub fn disk_full(&self) -> bool {
        self.disk_full
    }

    /// A new view: any round is abandoned; the new master starts one after an interval.
    pub fn on_view(&mut self, now: Time) {
        self.round = None;
        self.start = None;
        self.next_round = now + self.interval;
    }

    /// The partitions are being copied afresh: not whole until their copy arrives.
    pub fn copying(&mut self, partitions: &BTreeSet<PartitionId>) {
        self.whole_since.retain(|p, _| !partitions.contains(p));
    }

    /// A copy of `partition` taken at checkpoint `gci` arrived.
    pub fn copied(&mut self, partition: PartitionId, gci: Gci) {
        self.whole_since.insert(partition, gci);
        self.applied(gci);
    }

    /// As the open view's master: starts a round when one is due, and retransmits what is not
    /// answered. `nodes` are the view's members and starting nodes, this one included.
    pub fn master_tick(
        &mut self,
        now: Time,
        retry: Time,
        epoch: Epoch,
        nodes: &BTreeSet<NodeId>,
    ) -> Vec<(NodeId, Msg)> {
        if self.round.is_none() && now >= self.next_round {
            self.current += 1;
            self.round = Some(Round {
                epoch,
                gci: self.current,
                phase: Phase::Starting,
                acks: BTreeSet::new(),
                retry_at: now,
            });
        }
        let Some(r) = &mut self.round else {
            return Vec::new();
        };
        if r.retry_at > now {
            return Vec::new();
        }
        r.retry_at = now + retry;
        let msg = match r.phase {
            Phase::Starting => Msg::GcpStart {
                epoch: r.epoch,
                gci: r.gci,
            },
            Phase::Saving => Msg::GcpSave {
                epoch: r.epoch,
                gci: r.gci - 1,
            },
        };
        nodes
            .iter()
            .filter(|n| !r.acks.contains(n))
            .map(|n| (*n, msg.clone()))
            .collect()
    }

    /// A master's `GcpStart`: raise the checkpoint, and answer once the coordinator passed
    /// `newest` (the newest transaction it has begun).
    pub fn on_start(&mut self, epoch: Epoch, gci: Gci, from: NodeId, newest: u64) {
        self.current = self.current.max(gci);
        self.start = Some((epoch, gci, from, newest));
    }

    /// The answer to a start, once every transaction up to its mark is finished
    /// (`done_below` is the coordinator's watermark).
    pub fn start_answer(&mut self, epoch: Epoch, done_below: u64) -> Option<(NodeId, Msg)> {
        let (e, gci, master, mark) = self.start?;
        if e != epoch {
            self.start = None;
            return None;
        }
        if done_below <= mark {
            return None;
        }
        self.start = None;
        Some((master, Msg::GcpStarted { epoch, gci }))
    }

    /// A node's answer to the master's round; with every node's, the round moves on. Returns the
    /// checkpoint made durable when the round ends.
    pub fn on_answer(
        &mut self,
        now: Time,
        epoch: Epoch,
        gci: Gci,
        saved: bool,
        from: NodeId,
        nodes: &BTreeSet<NodeId>,
    ) -> Option<Gci> {
        let r = self.round.as_mut()?;
        let (phase, expected) = if saved {
            (Phase::Saving, r.gci - 1)
        } else {
            (Phase::Starting, r.gci)
        };
        if r.epoch != epoch || r.phase != phase || gci != expected {
            return None;
        }
        r.acks.insert(from);
        if !nodes.iter().all(|n| r.acks.contains(n)) {
            return None;
        }
        match phase {
            Phase::Starting => {
                r.phase = Phase::Saving;
                r.acks.clear();
                r.retry_at = now;
                None
            }
            Phase::Saving => {
                self.round = None;
                self.next_round = now + self.interval;
                Some(gci)
            }
        }
    }

    /// A master's `GcpSave`.
    pub fn on_save(&mut self, epoch: Epoch, gci: Gci, from: NodeId) -> Save {
        if self.saved >= gci {
            return Save::Answer(from, Msg::GcpSaved { epoch, gci });
        }
        if self.disk_full {
            // The next try writes the newest checkpoint asked for.
            let newest = gci.max(self.saving.map_or(0, |s| s.1));
            self.saving = Some((epoch, newest, from));
            return Save::Nothing;
        }
        if self.saving == Some((epoch, gci, from)) && self.in_flight.contains_key(&gci) {
            // Its fsync is in flight: the answer follows it.
            return Save::Nothing;
        }
        self.saving = Some((epoch, gci, from));
        Save::Sync(gci)
    }

    /// The node appended the `Saved` record of `gci` and asks for the fsync: what it will claim
    /// is fixed now.
    pub fn issue(&mut self, gci: Gci) {
        let whole = self
            .whole_since
            .iter()
            .filter(|(_, since)| **since <= gci)
            .map(|(p, _)| *p)
            .collect();
        self.in_flight.insert(gci, whole);
    }

    /// A save still owed whose fsync is not in flight (the disk was full, or an earlier fsync
    /// ended without it) is due again: the node appends the `Saved` record again and fsyncs.
    pub fn retry_sync(&mut self, now: Time, retry: Time) -> Option<Gci> {
        let (_, gci, _) = self.saving?;
        let idle = self.disk_full || !self.in_flight.contains_key(&gci);
        if !idle || now < self.sync_at {
            return None;
        }
        self.sync_at = now + retry;
        Some(gci)
    }

    /// The runtime finished an fsync. `epoch` is the node's view now.
    pub fn on_synced(
        &mut self,
        now: Time,
        retry: Time,
        epoch: Epoch,
        gci: Gci,
        result: SyncResult,
    ) -> Synced {
        let claim = self.in_flight.remove(&gci);
        match result {
            SyncResult::Failed => Synced::Failed,
            SyncResult::Full => {
                self.disk_full = true;
                self.sync_at = now + retry;
                Synced::Full
            }
            SyncResult::Done => {
                self.disk_full = false;
                self.saved = self.saved.max(gci);
                let answer = match self.saving {
                    Some((e, g, master)) if g <= gci => {
                        self.saving = None;
                        (e == epoch).then_some((master, Msg::GcpSaved { epoch, gci: g }))
                    }
                    // A newer save is owed: tried again at once if its fsync is not in flight.
                    _ => {
                        self.sync_at = now;
                        None
                    }
                };
                // Only what the fsync's `Saved` record covered (nothing, for one not asked for).
                let partitions = claim.unwrap_or_default();
                Synced::Saved {
                    gci,
                    answer,
                    partitions,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_starts_waits_for_every_node_then_saves() {
        let nodes: BTreeSet<NodeId> = [1, 2].into();
        let mut master = Checkpoints::new(0..2, 0, 100);
        let sent = master.master_tick(0, 10, 1, &nodes);
        assert_eq!(sent.len(), 2);
        assert_eq!(sent[0].1, Msg::GcpStart { epoch: 1, gci: 2 });
        assert_eq!(master.on_answer(1, 1, 2, false, 1, &nodes), None);
        // Retransmitted only to the node that has not answered.
        assert_eq!(master.master_tick(10, 10, 1, &nodes).len(), 1);
        assert_eq!(master.on_answer(11, 1, 2, false, 2, &nodes), None);
        let sent = master.master_tick(11, 10, 1, &nodes);
        assert_eq!(sent[0].1, Msg::GcpSave { epoch: 1, gci: 1 });
        master.on_answer(12, 1, 1, true, 1, &nodes);
        assert_eq!(master.on_answer(12, 1, 1, true, 2, &nodes), Some(1));
        // The next round waits for the interval.
        assert!(master.master_tick(50, 10, 1, &nodes).is_empty());
        assert_eq!(master.master_tick(112, 10, 1, &nodes).len(), 2);
    }

    #[test]
    fn a_node_answers_a_start_once_its_older_transactions_are_finished() {
        let mut node = Checkpoints::new(0..1, 0, 100);
        node.on_start(1, 5, 1, 7);
        assert_eq!(node.current(), 5);
        assert_eq!(node.start_answer(1, 7), None);
        assert_eq!(
            node.start_answer(1, 8),
            Some((1, Msg::GcpStarted { epoch: 1, gci: 5 }))
        );
    }

    #[test]
    fn a_save_answers_after_the_fsync_and_a_full_disk_retries() {
        let mut node = Checkpoints::new(0..2, 0, 100);
        assert_eq!(node.on_save(1, 4, 1), Save::Sync(4));
        node.issue(4);
        assert_eq!(node.on_synced(0, 10, 1, 4, SyncResult::Full), Synced::Full);
        assert!(node.disk_full());
        assert_eq!(node.retry_sync(5, 10), None);
        assert_eq!(node.retry_sync(10, 10), Some(4));
        // Partition 1 is copied afresh before the Saved record is appended again: not claimed.
        node.copying(&[1].into());
        node.issue(4);
        assert_eq!(
            node.on_synced(11, 10, 1, 4, SyncResult::Done),
            Synced::Saved {
                gci: 4,
                answer: Some((1, Msg::GcpSaved { epoch: 1, gci: 4 })),
                partitions: vec![0],
            }
        );
        assert!(!node.disk_full());
        // Saved already: answered at once.
        assert_eq!(
            node.on_save(1, 3, 1),
            Save::Answer(1, Msg::GcpSaved { epoch: 1, gci: 3 })
        );
    }

    #[test]
    fn a_save_owed_after_an_older_fsync_ends_is_tried_again() {
        let mut node = Checkpoints::new(0..1, 0, 100);
        assert_eq!(node.on_save(1, 4, 1), Save::Sync(4));
        node.issue(4);
        // A newer save comes while the fsync of 4 is in flight, and its flush finds no room.
        assert_eq!(node.on_save(2, 5, 1), Save::Sync(5));
        node.issue(5);
        assert_eq!(node.on_synced(1, 10, 2, 5, SyncResult::Full), Synced::Full);
        // The older fsync ends well: the disk has room again, and 5 is still owed.
        assert!(matches!(
            node.on_synced(2, 10, 2, 4, SyncResult::Done),
            Synced::Saved { answer: None, .. }
        ));
        assert_eq!(node.retry_sync(2, 10), Some(5));
        // And the master's resend of the save asks for it again too, not for nothing.
        assert_eq!(node.on_save(2, 5, 1), Save::Sync(5));
    }
}
