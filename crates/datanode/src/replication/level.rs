//! What a node group of three or more replicas needs when its primary changes: each member's
//! log of the jobs it took from its primaries (numbered in one order across primaries), and the
//! gate that keeps a new primary from serving until every member holds the same commits.
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
//! what it took is every member job numbered up to the last it took. A new primary numbers its
//! own jobs above every job any member took (`Role::leveled`), so the order holds across
//! primaries: a member that took a job of the new primary's that another lacks is simply
//! further on.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;

use base::{Error, ErrorCode};
use wire::{Message, TakenEntry, TakenKind};

use super::{Restart, Role, ViewState};

/// Jobs a member keeps of those it took; older ones are forgotten first (a member whose gap
/// reaches past what the member furthest on keeps starts again empty instead).
pub const TAKEN_KEPT: usize = wire::TAKEN_ENTRIES_MAX;
/// Bytes of rows a member keeps of the jobs it took.
pub const TAKEN_KEPT_BYTES: usize = 64 << 20;
/// Bytes of rows one `TakenLog` carries.
const TAKEN_PAGE_BYTES: usize = 8 << 20;

/// A member's log of the jobs it took.
#[derive(Default)]
pub(super) struct Taken {
    /// The log holds every member job numbered after this and up to `last` (0: every one since
    /// the first view: the node was a member of it).
    from: u64,
    last: u64,
    entries: VecDeque<TakenEntry>,
    bytes: usize,
    /// A restarted node: its log begins where its copy left it (`seen`).
    fresh: bool,
    /// A schema change it took (this job) failed here with a temporary error: it lacks a job
    /// its log says it took, and must start again empty if the primary dies before sending it
    /// again and it succeeds.
    broken: Option<u64>,
}

fn entry_bytes(entry: &TakenEntry) -> usize {
    64 + entry
        .changes
        .iter()
        .map(wire::RowChange::encoded_bytes)
        .sum::<usize>()
}

impl Taken {
    /// Job `entry.seq` was taken here; a job sent again (numbered at or below the last) is not
    /// kept twice.
    fn took(&mut self, entry: TakenEntry) {
        self.fresh = false;
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

    /// A restarted node still copying took job `seq` (a commit or part of its copy): it holds
    /// every job up to it once a member.
    fn seen(&mut self, seq: u64) {
        if self.fresh {
            self.last = self.last.max(seq);
            self.from = self.last;
        }
    }

    /// The kept entries numbered after `after`, as many as fit one page.
    fn page(&self, after: u64) -> Message {
        if self.broken.is_some() {
            // Behind everyone, and a source for no one.
            return Message::TakenLog {
                from: u64::MAX,
                last: 0,
                entries: Vec::new(),
                more: false,
            };
        }
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
        }
        | Message::LevelUp {
            session,
            transaction,
            changes,
            ..
        } => (TakenKind::Rows, *session, *transaction, changes.clone()),
        // The next round covers a missed step; a copy goes to a starting node only.
        Message::Gcp { .. }
        | Message::CopyCatalog { .. }
        | Message::CopyRows { .. }
        | Message::CopyNames { .. }
        | Message::CopyPrimaries { .. }
        | Message::CopyDone { .. } => return None,
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

/// A `TakenLog`'s fields: from, last, entries and more.
pub type TakenLogParts = (u64, u64, Vec<TakenEntry>, bool);

/// A `TakenLog`'s fields, or what else came.
pub fn taken_log_parts(page: Message) -> Result<TakenLogParts, String> {
    match page {
        Message::TakenLog {
            from,
            last,
            entries,
            more,
        } => Ok((from, last, entries, more)),
        other => Err(format!(
            "answered TakenAsk with message {}",
            other.type_code()
        )),
    }
}

impl Role {
    /// Whether this node keeps a log of the jobs it takes: a member (not copying) of a group
    /// of three or more in `view`.
    fn keeps_taken(&self, view: &ViewState) -> bool {
        self.group.len() >= 3
            && view.members.contains(&self.me)
            && !view.starting.contains(&self.me)
            && self.restart() == Restart::No
    }

    /// Keeps job `seq` (`message`) taken here in `view` (called under the look at the view
    /// that let it in, so a new primary asking after the view changed finds it); a restarted
    /// node still copying notes how far it got.
    pub(super) fn log_taken(&self, view: &ViewState, seq: u64, message: &Message) {
        if self.group.len() < 3 {
            return;
        }
        if self.keeps_taken(view) {
            if let Some(entry) = taken_entry(seq, message) {
                self.taken
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .took(entry);
            }
        } else if self.restart() == Restart::Copying || view.starting.contains(&self.me) {
            self.taken
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .seen(seq);
        }
    }

    /// Schema change `seq` this member took ended here: failed with a temporary error
    /// (`Taken::broken`), or done (as sent again, it mends that).
    pub fn schema_job_ended(&self, seq: u64, failed: bool) {
        if self.group.len() >= 3 {
            let mut taken = self.taken.lock().unwrap_or_else(|e| e.into_inner());
            if failed {
                taken.broken = Some(seq);
            } else if taken.broken == Some(seq) {
                taken.broken = None;
            }
        }
    }

    /// A new primary applied a commit another member took (`crate::leveling`): kept as that
    /// job, so an attempt made again does not apply it twice.
    pub fn took_while_leveling(&self, entry: TakenEntry) {
        self.taken
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .took(entry);
    }

    /// A restarted node's log begins at the first job it takes as a member.
    pub(super) fn restart_log(&self) {
        *self.taken.lock().unwrap_or_else(|e| e.into_inner()) = Taken {
            fresh: true,
            ..Taken::default()
        };
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
        // (Epochs begin at 1: 0 is none.)
        Some(self.leveling.load(Ordering::Acquire)).filter(|e| *e != 0)
    }

    /// Called by `install` under the view's lock: a node that becomes its group's primary
    /// (its old primary left) in a group of three or more, with another member to compare
    /// with, levels the group first; one that levels and stays primary levels again in the
    /// new view (its members may have changed); any other stops leveling.
    pub(super) fn level_in(&self, was_primary: Option<u32>, view: &ViewState) {
        let primary = view.primary == Some(self.me);
        let others = self
            .group
            .iter()
            .any(|n| *n != self.me && view.members.contains(n) && !view.starting.contains(n));
        let took_over = was_primary.is_some_and(|p| p != self.me);
        let level =
            self.group.len() >= 3 && primary && others && (took_over || self.leveling().is_some());
        self.leveling
            .store(if level { view.epoch } else { 0 }, Ordering::Release);
        if primary && took_over && !level {
            // Alone: its jobs go above every one it took.
            let last = self.taken.lock().unwrap_or_else(|e| e.into_inner()).last;
            self.job_seq.fetch_max(last + 1, Ordering::Relaxed);
        }
    }

    /// The group is level in view `epoch` up to job `last`: the node numbers its own jobs
    /// above it, serves, and starts the copies the view's opening held back.
    pub fn leveled(&self, epoch: u64, last: u64) {
        if self.leveling() != Some(epoch) {
            return;
        }
        // Numbered above `last` before the gate opens (a raise for a view that changed
        // meanwhile is harmless).
        self.job_seq.fetch_max(last + 1, Ordering::Relaxed);
        if self
            .leveling
            .compare_exchange(epoch, 0, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return;
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
    use std::collections::BTreeMap;

    /// A backup of a group of three that takes over levels first, serves only once level, and
    /// numbers its own jobs above the last any member took; with two replicas nothing of it.
    #[test]
    fn a_new_primary_of_three_levels_first_and_numbers_above_what_was_taken() {
        let role = Role::new(
            2,
            vec![vec![1, 2, 3]],
            BTreeMap::new(),
            transport::auth::Guard::default(),
            1,
        );
        role.install(1, [1, 2, 3].into(), Default::default());
        assert_eq!(role.leveling(), None);
        role.install(2, [2, 3].into(), Default::default());
        role.open(2);
        role.lease().store(true, Ordering::Relaxed);
        assert_eq!(role.leveling(), Some(2));
        assert!(role.serving().is_err() && role.serving_links().is_err());
        // Another view while leveling: level again in it.
        role.install(3, [2, 3].into(), Default::default());
        role.open(3);
        assert_eq!(role.leveling(), Some(3));
        role.leveled(2, u64::MAX / 2);
        assert_eq!(
            role.leveling(),
            Some(3),
            "an older view's leveling ends nothing"
        );
        let last = role.job_seq.load(Ordering::Relaxed) + 1_000;
        role.leveled(3, last);
        assert_eq!(role.leveling(), None);
        assert_eq!(role.serving(), Ok(3));
        assert_eq!(role.job_seq.load(Ordering::Relaxed), last + 1);

        let two = Role::new(
            2,
            vec![vec![1, 2]],
            BTreeMap::new(),
            transport::auth::Guard::default(),
            1,
        );
        two.install(1, [1, 2].into(), Default::default());
        two.install(2, [2].into(), Default::default());
        assert_eq!(two.leveling(), None);
    }

    #[test]
    fn a_commit_sent_on_is_kept_as_rows_and_anything_else_asks_for_a_restart() {
        let rows = vec![wire::RowChange {
            table: 1,
            partition: 0,
            key: vec![1],
            row: None,
        }];
        let level_up = Message::LevelUp {
            seq: 9,
            session: 1,
            transaction: 2,
            changes: rows.clone(),
        };
        let replicate = Message::Replicate {
            session: 1,
            transaction: 2,
            changes: rows.clone(),
            decision: 0,
        };
        for m in [&level_up, &replicate] {
            let e = taken_entry(9, m).unwrap();
            assert_eq!(
                (e.kind, e.transaction, e.changes.len()),
                (TakenKind::Rows, 2, 1)
            );
        }
        let decided = Message::Replicate {
            session: 1,
            transaction: 2,
            changes: rows,
            decision: 5,
        };
        assert_eq!(taken_entry(9, &decided).unwrap().kind, TakenKind::Restart);
        let step = Message::Gcp {
            round: 1,
            step: wire::GcpStep::Hold,
        };
        assert!(taken_entry(9, &step).is_none());
    }

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

    fn seqs(page: &Message) -> (u64, u64, Vec<u64>, bool) {
        let (from, last, entries, more) = taken_log_parts(page.clone()).unwrap();
        (from, last, entries.iter().map(|e| e.seq).collect(), more)
    }

    #[test]
    fn jobs_are_kept_in_order_once_and_a_restarted_node_begins_at_its_first() {
        let mut t = Taken::default();
        t.took(commit(100, 1));
        t.took(commit(103, 1));
        // Sent again on a new connection.
        t.took(commit(100, 1));
        t.took(commit(105, 1));
        assert_eq!(seqs(&t.page(0)), (0, 105, vec![100, 103, 105], false));
        assert_eq!(seqs(&t.page(103)), (0, 105, vec![105], false));
        assert_eq!(seqs(&t.page(u64::MAX)), (0, 105, vec![], false));
        // A restarted node: where its copy left it, then what it takes as a member.
        let mut t = Taken {
            fresh: true,
            ..Taken::default()
        };
        assert_eq!(seqs(&t.page(0)), (0, 0, vec![], false));
        t.seen(5);
        t.seen(4);
        assert_eq!(seqs(&t.page(0)), (5, 5, vec![], false));
        t.took(commit(7, 1));
        t.seen(9);
        assert_eq!(seqs(&t.page(0)), (5, 7, vec![7], false));
        t.broken = Some(7);
        assert_eq!(seqs(&t.page(0)), (u64::MAX, 0, vec![], false));
    }

    #[test]
    fn the_log_forgets_its_oldest_past_its_bounds_and_pages_by_bytes() {
        let mut t = Taken::default();
        let big = TAKEN_KEPT_BYTES / 4;
        for seq in 1..=6 {
            t.took(commit(seq, big));
        }
        let (from, last, kept, _) = seqs(&t.page(0));
        assert_eq!((from, last), (3, 6));
        assert_eq!(kept.len(), 1, "a page holds what fits 8 MiB, at least one");
        let (_, _, all, more) = seqs(&t.page(3));
        assert!(more && all == vec![4]);
        let mut t = Taken::default();
        for seq in 1..=(TAKEN_KEPT as u64 + 2) {
            t.took(commit(seq, 0));
        }
        assert_eq!(t.entries.len(), TAKEN_KEPT);
        assert_eq!(t.from, 2);
    }
}
