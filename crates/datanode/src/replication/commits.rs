//! Commits by name: those this node made or took from its primary, those under way, and the
//! answer a client that lost its connection gets (`CommitOutcome`); the names of two-phase
//! commits' decisions and the prepared parts a backup holds; the gate a global checkpoint
//! round closes on new commits.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::Role;

/// A commit's name: its client's session and transaction numbers.
pub type CommitName = (u64, u64);

/// The sessions that name two-phase commit decisions, one per coordinating data node: every
/// one has the top bit set, which no client's session has (`wire::CLIENT_SESSION_MAX`, checked
/// at its hello). Before that limit a client's random number matched this pattern about once
/// in 256 sessions, and another node group's primary answered "not committed" of its commit,
/// taking it for a decision it never saw (the failover tests' false "not committed").
pub const DECISION_SESSION_BASE: u64 = 0xC0DE_0000_0000_0000;
const _: () = assert!(DECISION_SESSION_BASE > wire::CLIENT_SESSION_MAX);

/// The name under which data node `coordinator`'s group records the decision of its
/// transaction `transaction` that wrote in other node groups too, and which those groups ask
/// about (`CommitOutcome`) when they hold its prepared part and lost the coordinator.
pub fn decision_name(coordinator: u32, transaction: u64) -> CommitName {
    (DECISION_SESSION_BASE | u64::from(coordinator), transaction)
}

/// The coordinator and transaction a decision's name stands for (None: not a decision's).
pub fn part_of_decision(name: CommitName) -> Option<(u32, u64)> {
    is_decision(name).then_some(((name.0 & !DECISION_SESSION_BASE) as u32, name.1))
}

fn is_decision(name: CommitName) -> bool {
    name.0 & DECISION_SESSION_BASE == DECISION_SESSION_BASE
}

/// How many commits a node remembers by name, for clients that lost their connection during
/// one (`Message::CommitOutcome`); the oldest are forgotten first.
pub const COMMITS_REMEMBERED: usize = 1 << 20;

pub(super) struct Commits {
    /// How many it remembers (`COMMITS_REMEMBERED`).
    capacity: usize,
    done: std::collections::HashSet<CommitName>,
    /// The remembered commits, oldest first, with when they were recorded.
    order: std::collections::VecDeque<(CommitName, Instant)>,
    under_way: std::collections::HashSet<CommitName>,
    /// Decisions of two-phase commits (`decision_name`) that must never be made: another node
    /// group asked how one ended before it was decided, and was told "not committed". Kept
    /// as long as the commits remembered (the oldest go first).
    refused: std::collections::HashSet<CommitName>,
    refused_order: std::collections::VecDeque<CommitName>,
    /// Client sessions this node's group knows: said hello here, or named by a commit taken
    /// from the group's primary. A session it does not know may have committed in another
    /// node group: its commits' outcomes are not this group's to tell.
    sessions: std::collections::HashSet<u64>,
    sessions_order: std::collections::VecDeque<u64>,
    /// When the newest commit this node forgot was recorded: a name it does not know from
    /// after then may be a commit it forgot.
    forgot_up_to: Option<Instant>,
    /// A global checkpoint round holds new commits (`GcpStep::Hold`): its round, and since when.
    gate: Option<(u64, Instant)>,
    /// Commits waiting for the gate to open: the coordinator to tell, and its tag.
    gated: Vec<(crate::messages::ReplyTo, u64)>,
}

/// Whether a commit may begin here (`Role::commit_started`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    Go,
    /// A client that lost its connection was told it did not commit: it never may.
    Refused,
    /// A global checkpoint round holds new commits: wait for the gate (`Role::wait_for_gate`).
    Gated,
}

/// How a commit named in a `CommitOutcome` ended, as this node knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Committed,
    NotCommitted,
    /// Still under way here: ask again.
    UnderWay,
    /// Not known here: this node may have forgotten it (it remembers `COMMITS_REMEMBERED`).
    Unknown,
}

impl Commits {
    pub(super) fn new(capacity: usize) -> Commits {
        Commits {
            capacity,
            done: Default::default(),
            order: Default::default(),
            under_way: Default::default(),
            refused: Default::default(),
            refused_order: Default::default(),
            sessions: Default::default(),
            sessions_order: Default::default(),
            forgot_up_to: None,
            gate: None,
            gated: Vec::new(),
        }
    }

    /// Remembers a client session (see `sessions`), as many as the commits remembered.
    fn seen(&mut self, session: u64) {
        if session != 0 && self.sessions.insert(session) {
            self.sessions_order.push_back(session);
            if self.sessions_order.len() > self.capacity {
                if let Some(old) = self.sessions_order.pop_front() {
                    self.sessions.remove(&old);
                }
            }
        }
    }

    /// Refuses the decision `name` for good (see `refused`).
    fn refuse(&mut self, name: CommitName) {
        if self.refused.insert(name) {
            self.refused_order.push_back(name);
            if self.refused_order.len() > self.capacity {
                if let Some(old) = self.refused_order.pop_front() {
                    self.refused.remove(&old);
                }
            }
        }
    }

    fn ended(&mut self, name: CommitName, committed: bool, now: Instant) {
        self.under_way.remove(&name);
        if !is_decision(name) {
            self.seen(name.0);
        }
        if committed && self.done.insert(name) {
            self.order.push_back((name, now));
            if self.order.len() > self.capacity {
                if let Some((old, at)) = self.order.pop_front() {
                    self.done.remove(&old);
                    self.forgot_up_to = Some(at);
                }
            }
        }
    }

    fn outcome(&self, name: CommitName, now: Instant) -> Outcome {
        if self.under_way.contains(&name) {
            return Outcome::UnderWay;
        }
        if self.done.contains(&name) {
            return Outcome::Committed;
        }
        match self.forgot_up_to {
            Some(at) if now.saturating_duration_since(at) < OUTCOME_WINDOW => Outcome::Unknown,
            _ => Outcome::NotCommitted,
        }
    }
}

/// How long after a commit a client may ask about it and get a sure "not committed": a name
/// unknown here is "not committed" only if this node forgot nothing recorded in this window.
pub const OUTCOME_WINDOW: Duration = Duration::from_secs(60);

impl Role {
    /// A commit named `name` is under way here: its rows are going to the backups (or its
    /// other groups prepare). `Refused`, and nothing recorded, when a client that lost its
    /// connection was already told it did not commit (`commit_outcome`): it never may.
    /// `Gated`, and nothing recorded, when a global checkpoint round holds new commits and
    /// this one is not under way yet (`gated`: the caller would wait; a commit going on from
    /// an earlier step passes false).
    #[must_use]
    pub fn commit_started(&self, name: CommitName, gated: bool) -> Start {
        let mut c = self.commits.lock().unwrap_or_else(|e| e.into_inner());
        if name.0 != 0 && c.refused.contains(&name) {
            return Start::Refused;
        }
        if gated && c.gate.is_some() && !c.under_way.contains(&name) {
            return Start::Gated;
        }
        if name.0 != 0 {
            c.under_way.insert(name);
        }
        Start::Go
    }

    /// A commit `commit_started` found gated waits: `tag` goes to coordinator `to` when the
    /// gate opens (`open_gate`). False when it is open already (begin the commit again now).
    pub fn wait_for_gate(&self, to: crate::messages::ReplyTo, tag: u64) -> bool {
        let mut c = self.commits.lock().unwrap_or_else(|e| e.into_inner());
        if c.gate.is_none() {
            return false;
        }
        c.gated.push((to, tag));
        true
    }

    /// Holds new commits for global checkpoint round `round`; returns the commits under way
    /// now, which the round waits for (`drained`).
    pub fn close_gate(&self, round: u64) -> Vec<CommitName> {
        let mut c = self.commits.lock().unwrap_or_else(|e| e.into_inner());
        c.gate = Some((round, Instant::now()));
        c.under_way.iter().copied().collect()
    }

    /// Those of `names` still under way.
    pub fn still_under_way(&self, names: &[CommitName]) -> Vec<CommitName> {
        let c = self.commits.lock().unwrap_or_else(|e| e.into_inner());
        names
            .iter()
            .filter(|n| c.under_way.contains(n))
            .copied()
            .collect()
    }

    /// Whether none of `names` is under way any more.
    pub fn drained(&self, names: &[CommitName]) -> bool {
        self.still_under_way(names).is_empty()
    }

    /// The round holding new commits, and since when (None: they go).
    pub fn gate(&self) -> Option<(u64, Instant)> {
        self.commits.lock().unwrap_or_else(|e| e.into_inner()).gate
    }

    /// Lets commits begin again; returns the ones waiting, to be told (`wait_for_gate`).
    pub fn open_gate(&self) -> Vec<(crate::messages::ReplyTo, u64)> {
        let mut c = self.commits.lock().unwrap_or_else(|e| e.into_inner());
        c.gate = None;
        std::mem::take(&mut c.gated)
    }

    /// The commit named `name` ended here: committed or not.
    pub fn commit_ended(&self, name: CommitName, committed: bool) {
        if name.0 == 0 {
            return;
        }
        let mut c = self.commits.lock().unwrap_or_else(|e| e.into_inner());
        c.ended(name, committed, Instant::now());
    }

    /// How the commit named `name` ended, as this node (its group's primary) knows it. A
    /// two-phase commit's decision not made yet is refused for good as it is answered "not
    /// committed", so the answer stays true.
    pub fn commit_outcome(&self, name: CommitName) -> Outcome {
        let mut c = self.commits.lock().unwrap_or_else(|e| e.into_inner());
        let outcome = c.outcome(name, Instant::now());
        if is_decision(name) && outcome != Outcome::Committed && outcome != Outcome::UnderWay {
            // Refused for good either way; but a decision this node may have forgotten (it
            // forgot commits lately) may have been made: that is not "not committed".
            c.refuse(name);
            return if outcome == Outcome::Unknown {
                Outcome::Unknown
            } else {
                Outcome::NotCommitted
            };
        }
        if outcome == Outcome::NotCommitted && !is_decision(name) && !c.sessions.contains(&name.0) {
            // Not a session of this group's: it may have committed in another group.
            return Outcome::Unknown;
        }
        if outcome == Outcome::NotCommitted {
            // Its coordinator may still be running it (the client lost its connection while
            // the transaction's steps were out): refused for good, so the answer stays true.
            c.refuse(name);
        }
        outcome
    }

    /// The names of the commits this node recorded within `OUTCOME_WINDOW` (the ones a client
    /// may still ask about), oldest first: for a copy to a starting node (`Message::CopyNames`).
    pub fn recent_commits(&self) -> Vec<CommitName> {
        let c = self.commits.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        c.order
            .iter()
            .filter(|(_, at)| now.saturating_duration_since(*at) < OUTCOME_WINDOW)
            .map(|(name, _)| *name)
            .collect()
    }

    /// A client said hello to this node with `session`.
    pub fn session_seen(&self, session: u64) {
        self.commits
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .seen(session);
    }

    /// This node, coordinating a transaction that wrote in several node groups, decides to
    /// commit it (`decision_name`): false when another group was told it did not commit.
    pub fn begin_decision(&self, name: CommitName) -> bool {
        let mut c = self.commits.lock().unwrap_or_else(|e| e.into_inner());
        if c.refused.contains(&name) {
            return false;
        }
        c.under_way.insert(name);
        true
    }

    /// On a backup: holds the rows of a prepared part (`Message::Prepared`) until `Resolve`.
    pub fn hold(&self, part: (u32, u64), changes: Vec<wire::RowChange>) {
        self.held
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(part, changes);
    }

    /// Takes a held prepared part's rows (None: not held, or resolved already).
    pub fn take_held(&self, part: (u32, u64)) -> Option<Vec<wire::RowChange>> {
        self.held
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&part)
    }

    /// Takes a held part to commit: the node still does not serve until `applied_held`, once
    /// its rows are on their way to the workers (ahead of any request after).
    pub fn take_held_to_apply(&self, part: (u32, u64)) -> Option<Vec<wire::RowChange>> {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        let rows = held.remove(&part)?;
        self.applying.fetch_add(1, Ordering::AcqRel);
        Some(rows)
    }

    /// A part taken with `take_held_to_apply` was handed to the workers.
    pub fn applied_held(&self) {
        self.applying.fetch_sub(1, Ordering::AcqRel);
    }

    /// Runs `f` over the prepared parts this node holds as a backup, none resolved meanwhile
    /// (a resolution takes the part first, then sends its `Resolve`).
    pub fn with_held<T>(
        &self,
        f: impl FnOnce(&std::collections::HashMap<(u32, u64), Vec<wire::RowChange>>) -> T,
    ) -> T {
        f(&self.held.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// The prepared parts this node holds as a backup, by coordinator and transaction.
    pub fn held_parts(&self) -> Vec<(u32, u64)> {
        self.held
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .keys()
            .copied()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use transport::auth::Guard;

    /// A commit the node still remembers is known; one under way is "ask again"; a name it does
    /// not know is "not committed" only when it forgot nothing recent, else unknown.
    #[test]
    fn commit_outcomes_are_sure_only_while_nothing_recent_was_forgotten() {
        let start = Instant::now();
        let mut c = Commits::new(2);
        c.ended((1, 1), true, start);
        c.ended((1, 2), false, start);
        assert_eq!(c.outcome((1, 1), start), Outcome::Committed);
        assert_eq!(c.outcome((1, 2), start), Outcome::NotCommitted);
        c.under_way.insert((1, 3));
        assert_eq!(c.outcome((1, 3), start), Outcome::UnderWay);
        c.ended((1, 3), true, start);
        c.ended((1, 4), true, start);
        // (1, 1) is forgotten now: it, and any name not known, may have committed.
        assert_eq!(c.outcome((1, 1), start), Outcome::Unknown);
        assert_eq!(c.outcome((9, 9), start), Outcome::Unknown);
        assert_eq!(c.outcome((1, 4), start), Outcome::Committed);
        // Once the forgotten ones are older than any question may be, not knowing is sure.
        let later = start + OUTCOME_WINDOW;
        assert_eq!(c.outcome((9, 9), later), Outcome::NotCommitted);
    }

    /// A client told "not committed" of a name its coordinator had not begun to commit (the
    /// client lost its connection while the transaction's steps were out) fences that commit:
    /// it may never start. One under way is "ask again", and then ends as it ends.
    #[test]
    fn a_not_committed_answer_fences_the_commit_it_names() {
        let role = Role::new(
            1,
            vec![vec![1, 2], vec![3, 4]],
            BTreeMap::new(),
            Guard::default(),
            1,
        );
        role.session_seen(7);
        assert_eq!(role.commit_outcome((7, 1)), Outcome::NotCommitted);
        assert_eq!(
            role.commit_started((7, 1), true),
            Start::Refused,
            "told not committed: never starts"
        );
        assert_eq!(role.commit_started((7, 2), true), Start::Go);
        assert_eq!(role.commit_outcome((7, 2)), Outcome::UnderWay);
        role.commit_ended((7, 2), true);
        assert_eq!(role.commit_outcome((7, 2)), Outcome::Committed);
        // A session this group never saw may have committed in another group.
        assert_eq!(role.commit_outcome((8, 1)), Outcome::Unknown);
        assert_eq!(role.commit_started((8, 1), true), Start::Go);
    }

    /// A global checkpoint round's gate: commits not begun wait, commits under way go on and
    /// are the ones the round waits for; opening it tells the waiting ones.
    #[test]
    fn a_closed_gate_holds_new_commits_and_waits_for_those_under_way() {
        let role = Role::new(1, vec![vec![1, 2]], BTreeMap::new(), Guard::default(), 1);
        let to = crate::messages::ReplyTo {
            worker: 0,
            connection: 5,
        };
        assert_eq!(role.commit_started((7, 1), true), Start::Go);
        assert!(!role.wait_for_gate(to, 1), "open: nothing to wait for");
        let under_way = role.close_gate(3);
        assert_eq!(under_way, vec![(7, 1)]);
        assert!(!role.drained(&under_way));
        assert_eq!(role.commit_started((7, 2), true), Start::Gated);
        assert!(role.wait_for_gate(to, 9));
        // The commit under way goes on to its next step (a two-phase decision) and ends.
        assert_eq!(role.commit_started((7, 1), true), Start::Go);
        role.commit_ended((7, 1), true);
        assert!(role.drained(&under_way));
        assert_eq!(role.gate().map(|(r, _)| r), Some(3));
        assert_eq!(role.open_gate(), vec![(to, 9)]);
        assert_eq!(role.commit_started((7, 2), true), Start::Go);
    }
}
