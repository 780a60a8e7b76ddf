//! View agreement: for each new epoch, one single-decree agreement (Paxos) on the set of data
//! nodes that serve in it. The voters are the members of the view before (weight 2 each) and the
//! arbitrator (weight 1), so a strict majority of data nodes decides alone, exactly half needs
//! the arbitrator, and at most one view is ever chosen per epoch, even when a proposer dies
//! half-way or two proposers race.

use std::collections::{BTreeMap, BTreeSet};

use crate::layout::{Epoch, Membership, NodeId, Time, View, ARBITRATOR};
use crate::msg::{Ballot, Msg};

/// A voter's promises and accepted values, per epoch being agreed.
#[derive(Debug, Default)]
pub struct Acceptor {
    promised: BTreeMap<Epoch, Ballot>,
    accepted: BTreeMap<Epoch, (Ballot, Membership)>,
}

impl Acceptor {
    /// Answers phase 1: a promise (with any value accepted before) or a refusal.
    pub fn on_prepare(&mut self, epoch: Epoch, ballot: Ballot) -> Msg {
        match self.promised.get(&epoch) {
            Some(&promised) if promised > ballot => Msg::ViewNack { epoch, promised },
            _ => {
                self.promised.insert(epoch, ballot);
                Msg::ViewPromise {
                    epoch,
                    ballot,
                    accepted: self.accepted.get(&epoch).cloned(),
                }
            }
        }
    }

    /// Answers phase 2: accepts the value unless a higher ballot was promised.
    pub fn on_accept(&mut self, epoch: Epoch, ballot: Ballot, members: Membership) -> Msg {
        match self.promised.get(&epoch) {
            Some(&promised) if promised > ballot => Msg::ViewNack { epoch, promised },
            _ => {
                self.promised.insert(epoch, ballot);
                self.accepted.insert(epoch, (ballot, members));
                Msg::ViewAccepted { epoch, ballot }
            }
        }
    }

    /// Every promise and accepted value, as the messages that made them (`ViewPrepare` for a
    /// promise, `ViewAccept` for an accepted value): what a voter keeps on disk.
    pub fn votes(&self) -> Vec<Msg> {
        let promised = self
            .promised
            .iter()
            .map(|(&epoch, &ballot)| Msg::ViewPrepare { epoch, ballot });
        let accepted = self
            .accepted
            .iter()
            .map(|(&epoch, (ballot, members))| Msg::ViewAccept {
                epoch,
                ballot: *ballot,
                members: members.clone(),
            });
        promised.chain(accepted).collect()
    }

    /// Takes back one vote `votes` gave (other messages are ignored); the promise and the
    /// accepted value of an epoch are restored apart, exactly as they were.
    pub fn restore(&mut self, vote: &Msg) {
        match vote {
            Msg::ViewPrepare { epoch, ballot } => {
                self.promised.insert(*epoch, *ballot);
            }
            Msg::ViewAccept {
                epoch,
                ballot,
                members,
            } => {
                self.accepted.insert(*epoch, (*ballot, members.clone()));
            }
            _ => {}
        }
    }

    /// Drops the state of agreements below `epoch` (decided and known).
    pub fn forget_below(&mut self, epoch: Epoch) {
        self.promised = self.promised.split_off(&epoch);
        self.accepted = self.accepted.split_off(&epoch);
    }
}

/// One proposer's attempt to have a view chosen for `epoch` (= `base.epoch + 1`).
#[derive(Debug)]
pub struct Proposal {
    pub epoch: Epoch,
    pub ballot: Ballot,
    pub base: View,
    /// The members this proposer would choose, if no voter has accepted another value.
    pub candidate: Membership,
    promises: BTreeMap<NodeId, Option<(Ballot, Membership)>>,
    /// Phase 2's value, once a quorum promised.
    pub value: Option<Membership>,
    accepts: BTreeSet<NodeId>,
    pub deadline: Time,
}

impl Proposal {
    pub fn new(base: View, ballot: Ballot, candidate: Membership, deadline: Time) -> Proposal {
        Proposal {
            epoch: base.epoch + 1,
            ballot,
            base,
            candidate,
            promises: BTreeMap::new(),
            value: None,
            accepts: BTreeSet::new(),
            deadline,
        }
    }

    /// Everyone who votes on this epoch's view.
    pub fn voters(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.base
            .members
            .iter()
            .copied()
            .chain(std::iter::once(ARBITRATOR))
    }

    fn weight(&self, voters: impl Iterator<Item = NodeId>) -> u32 {
        voters.map(|v| self.base.weight(v)).sum()
    }

    /// Counts a promise; returns phase 2's value once promises reach the quorum: the value with the
    /// highest ballot any of them accepted, else this proposer's candidate.
    pub fn on_promise(
        &mut self,
        from: NodeId,
        accepted: Option<(Ballot, Membership)>,
    ) -> Option<Membership> {
        if self.value.is_some() || self.base.weight(from) == 0 {
            return None;
        }
        self.promises.insert(from, accepted);
        if self.weight(self.promises.keys().copied()) < self.base.next_quorum() {
            return None;
        }
        let value = self
            .promises
            .values()
            .flatten()
            .max_by_key(|(ballot, _)| *ballot)
            .map(|(_, members)| members.clone())
            .unwrap_or_else(|| self.candidate.clone());
        self.value = Some(value.clone());
        Some(value)
    }

    /// Counts an acceptance; true once acceptances reach the quorum (the value is chosen).
    pub fn on_accepted(&mut self, from: NodeId) -> bool {
        if self.value.is_none() || self.base.weight(from) == 0 {
            return false;
        }
        self.accepts.insert(from);
        self.weight(self.accepts.iter().copied()) >= self.base.next_quorum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ballot(round: u64, node: NodeId) -> Ballot {
        Ballot { round, node }
    }

    #[test]
    fn a_later_proposer_adopts_an_accepted_value() {
        let base = View {
            epoch: 1,
            members: [1, 2, 3, 4].into(),
            starting: BTreeSet::new(),
        };
        let mut a: Vec<Acceptor> = (0..5).map(|_| Acceptor::default()).collect();
        // Proposer 1 gets {1,2,3} accepted by voters 1 and 2 only, then dies.
        let first: Membership = [1, 2, 3].into();
        for v in [1, 2] {
            a[v].on_prepare(2, ballot(1, 1));
            a[v].on_accept(2, ballot(1, 1), first.clone());
        }
        // Proposer 4 wants {2,3,4}; voters 2, 3 and the arbitrator promise (weight 5 = quorum).
        let mut p = Proposal::new(base, ballot(2, 4), [2, 3, 4].into(), 0);
        let mut value = None;
        for v in [2usize, 3, 0] {
            if let Msg::ViewPromise { accepted, .. } = a[v].on_prepare(2, ballot(2, 4)) {
                value = value.or(p.on_promise(v as NodeId, accepted));
            }
        }
        assert_eq!(value, Some(first));
    }

    #[test]
    fn a_promise_refuses_older_ballots() {
        let mut a = Acceptor::default();
        a.on_prepare(2, ballot(3, 1));
        assert_eq!(
            a.on_prepare(2, ballot(2, 9)),
            Msg::ViewNack {
                epoch: 2,
                promised: ballot(3, 1)
            }
        );
        assert!(matches!(
            a.on_accept(2, ballot(2, 9), [1].into()),
            Msg::ViewNack { .. }
        ));
        assert!(matches!(
            a.on_accept(2, ballot(3, 1), [1].into()),
            Msg::ViewAccepted { .. }
        ));
    }
}
