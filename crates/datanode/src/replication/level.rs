//! What a node group of three or more replicas needs when its primary changes: each member's
//! log of the jobs it took from its primary (numbered in one stream per primary), and the gate
//! that keeps a new primary from serving until every member holds the same commits.
//!
//! Why: a primary sends each commit to every backup and answers its client once all took it,
//! so when it dies one backup may hold a commit another never got. With two replicas the one
//! backup left becomes the primary and there is nothing to compare; with more, the new primary
//! gathers where each member stands (`Message::TakenAsk`), takes what it lacks from the member
//! furthest on, and sends each member what it lacks (`Message::LevelUp`), all before it serves
//! (`crate::leveling` does it). What any member took is kept, so no commit a reader may have
//! seen on a backup is lost.
//!
//! The rule it rests on: a member takes its primary's jobs in the order they were numbered
//! (one connection at a time, each job sent again in order on a new one until answered), so
//! what it took of a stream is every member job numbered up to the last it took.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;

use base::{Error, ErrorCode};
use wire::{Message, TakenEntry, TakenKind};

use super::{Restart, Role};

/// Jobs a member keeps of its primary's stream; older ones are forgotten first (a member whose
/// gap reaches past what the member furthest on keeps starts again empty instead).
pub const TAKEN_KEPT: usize = wire::TAKEN_ENTRIES_MAX;
/// Bytes of rows a member keeps of its primary's stream.
pub const TAKEN_KEPT_BYTES: usize = 64 << 20;
/// Bytes of rows one `TakenLog` carries.
const TAKEN_PAGE_BYTES: usize = 8 << 20;

/// A member's log of its primary's stream.
#[derive(Default)]
pub(super) struct Taken {
    /// The primary whose stream it is (0: none yet).
    owner: u32,
    /// The log holds every logged job numbered after this and up to `last`.
    from: u64,
    last: u64,
    entries: VecDeque<TakenEntry>,
    bytes: usize,
}

fn entry_bytes(entry: &TakenEntry) -> usize {
    64 + entry
        .changes
        .iter()
        .map(wire::RowChange::encoded_bytes)
        .sum::<usize>()
}

impl Taken {
    /// Job `entry.seq` of `owner`'s stream was taken here. A job of another primary begins
    /// that primary's stream; a job sent again (numbered at or below the last) is not kept
    /// twice.
    fn took(&mut self, owner: u32, entry: TakenEntry) {
        if owner != self.owner {
            *self = Taken {
                owner,
                from: entry.seq.saturating_sub(1),
                last: entry.seq.saturating_sub(1),
                ..Taken::default()
            };
        }
        if entry.seq <= self.last {
            return;
        }
        self.last = entry.seq;
        self.bytes += entry_bytes(&entry);
        self.entries.push_back(entry);
        while self.entries.len() > TAKEN_KEPT || self.bytes > TAKEN_KEPT_BYTES {
            let Some(old) = self.entries.pop_front() else {
                break;
            };
            self.bytes -= entry_bytes(&old);
            self.from = old.seq;
        }
    }

    /// The kept entries numbered after `after`, as many as fit one page.
    fn page(&self, after: u64) -> Message {
        let mut entries = Vec::new();
        let mut bytes = 0;
        let mut more = false;
        if after != u64::MAX {
            let start = self.entries.partition_point(|e| e.seq <= after);
            for e in self.entries.range(start..) {
                let b = entry_bytes(e);
                if !entries.is_empty() && bytes + b > TAKEN_PAGE_BYTES {
                    more = true;
                    break;
                }
                bytes += b;
                entries.push(e.clone());
            }
        }
        Message::TakenLog {
            owner: self.owner,
            from: self.from,
            last: self.last,
            entries,
            more,
        }
    }
}

/// What a job is to a member that lacks it (`TakenKind`), and its commit (name and rows)
/// when it is one.
pub fn taken_entry(seq: u64, message: &Message) -> Option<TakenEntry> {
    let (kind, session, transaction, changes) = match message {
        Message::Replicate {
            session,
            transaction,
            changes,
            decision: 0,
        } => (TakenKind::Rows, *session, *transaction, changes.clone()),
        // The next round covers a missed step.
        Message::Gcp { .. } => return None,
        _ => (TakenKind::Restart, 0, 0, Vec::new()),
    };
    Some(TakenEntry {
        seq,
        kind,
        session,
        transaction,
        changes,
    })
}

/// A `TakenLog`'s fields: owner, from, last, entries and more.
pub type TakenLogParts = (u32, u64, u64, Vec<TakenEntry>, bool);

/// A `TakenLog`'s fields, or what else came.
pub fn taken_log_parts(page: Message) -> Result<TakenLogParts, String> {
    match page {
        Message::TakenLog {
            owner,
            from,
            last,
            entries,
            more,
        } => Ok((owner, from, last, entries, more)),
        other => Err(format!(
            "answered TakenAsk with message {}",
            other.type_code()
        )),
    }
}

impl Role {
    /// Whether this node keeps a log of its primary's jobs: a member (not copying) of a group
    /// of three or more.
    fn keeps_taken(&self) -> bool {
        self.group.len() >= 3 && self.restart() == Restart::No
    }

    /// A job (`seq` on the link, `message`) was taken here from primary `peer`.
    pub fn took(&self, peer: u32, seq: u64, message: &Message) {
        if !self.keeps_taken() {
            return;
        }
        if let Some(entry) = taken_entry(seq, message) {
            self.taken
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .took(peer, entry);
        }
    }

    /// A commit of old primary `primary`'s job `seq` came from a new primary (`LevelUp`): kept
    /// as that job, when this node's log is that primary's stream.
    pub fn took_level_up(&self, primary: u32, entry: TakenEntry) {
        if !self.keeps_taken() {
            return;
        }
        let mut taken = self.taken.lock().unwrap_or_else(|e| e.into_inner());
        if taken.owner == primary {
            taken.took(primary, entry);
        }
    }

    /// This member's log after job `after` (`Message::TakenLog`).
    pub fn taken_page(&self, after: u64) -> Message {
        self.taken
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .page(after)
    }

    /// The view this new primary must bring its group level in before it serves, if any.
    pub fn leveling(&self) -> Option<u64> {
        *self.leveling.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Called by `install` under the view's lock: a node that becomes its group's primary
    /// (its old primary left) in a group of three or more, with another member to compare
    /// with, levels the group first; one that levels and stays primary levels again in the
    /// new view (its members may have changed); any other stops leveling.
    pub(super) fn level_in(&self, was_primary: Option<u32>, view: &super::ViewState) {
        let mut leveling = self.leveling.lock().unwrap_or_else(|e| e.into_inner());
        let primary = view.primary == Some(self.me);
        let others = self
            .group
            .iter()
            .any(|n| *n != self.me && view.members.contains(n) && !view.starting.contains(n));
        let took_over = was_primary.is_some_and(|p| p != self.me);
        *leveling =
            (self.group.len() >= 3 && primary && others && (took_over || leveling.is_some()))
                .then_some(view.epoch);
    }

    /// The group is level in view `epoch`: the node serves, and starts the copies the view's
    /// opening held back.
    pub fn leveled(&self, epoch: u64) {
        {
            let mut leveling = self.leveling.lock().unwrap_or_else(|e| e.into_inner());
            if *leveling != Some(epoch) {
                return;
            }
            *leveling = None;
        }
        tracing::info!(epoch, "the node group's replicas are level: serving");
        if self.opened.load(Ordering::Acquire) == epoch {
            self.start_copies(epoch);
        }
    }

    /// The refusal while this node brings its group level.
    pub(super) fn leveling_refusal(&self) -> Result<(), Error> {
        match self.leveling() {
            None => Ok(()),
            Some(epoch) => Err(Error::new(
                ErrorCode::NotPrimary,
                format!(
                    "data node {} took over its node group in view {epoch} and brings the other replicas level first",
                    self.me
                ),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commit(seq: u64, bytes: usize) -> TakenEntry {
        TakenEntry {
            seq,
            kind: TakenKind::Rows,
            session: 1,
            transaction: seq,
            changes: vec![wire::RowChange {
                table: 1,
                partition: 0,
                key: vec![1],
                row: Some(vec![0; bytes]),
            }],
        }
    }

    fn seqs(page: &Message) -> (u32, u64, u64, Vec<u64>, bool) {
        let (owner, from, last, entries, more) = taken_log_parts(page.clone()).unwrap();
        (
            owner,
            from,
            last,
            entries.iter().map(|e| e.seq).collect(),
            more,
        )
    }

    #[test]
    fn a_stream_is_kept_in_order_once_and_begins_again_with_another_primary() {
        let mut t = Taken::default();
        t.took(4, commit(100, 1));
        t.took(4, commit(103, 1));
        // Sent again on a new connection.
        t.took(4, commit(100, 1));
        t.took(4, commit(105, 1));
        assert_eq!(seqs(&t.page(0)), (4, 99, 105, vec![100, 103, 105], false));
        assert_eq!(seqs(&t.page(103)), (4, 99, 105, vec![105], false));
        assert_eq!(seqs(&t.page(u64::MAX)), (4, 99, 105, vec![], false));
        t.took(2, commit(7, 1));
        assert_eq!(seqs(&t.page(0)), (2, 6, 7, vec![7], false));
    }

    #[test]
    fn the_log_forgets_its_oldest_past_its_bounds_and_pages_by_bytes() {
        let mut t = Taken::default();
        let big = TAKEN_KEPT_BYTES / 4;
        for seq in 1..=6 {
            t.took(1, commit(seq, big));
        }
        let (_, from, last, kept, _) = seqs(&t.page(0));
        assert_eq!((from, last), (3, 6));
        assert_eq!(kept.len(), 1, "a page holds what fits 8 MiB, at least one");
        let (_, _, _, all, more) = seqs(&t.page(3));
        assert!(more && all == vec![4]);
        let mut t = Taken::default();
        for seq in 1..=(TAKEN_KEPT as u64 + 2) {
            t.took(1, commit(seq, 0));
        }
        assert_eq!(t.entries.len(), TAKEN_KEPT);
        assert_eq!(t.from, 2);
    }
}
