//! The management node's part in membership: a voter of weight 1 in every view agreement (so
//! exactly half of the data nodes can continue with it, and never both halves), and a memory of
//! the views chosen, for nodes that ask.

use std::collections::BTreeMap;

use crate::agreement::Acceptor;
use crate::layout::{Epoch, Membership, NodeId};
use crate::msg::Msg;
use crate::Output;

/// How many chosen views the arbitrator remembers.
pub const VIEWS_REMEMBERED_MAX: usize = 256;

#[derive(Debug, Default)]
pub struct Arbitrator {
    acceptor: Acceptor,
    chosen: BTreeMap<Epoch, (Membership, NodeId)>,
    /// Promises, accepted values and chosen views taken so far (the management node saves
    /// its votes when this moves, before its answers go out).
    changes: u64,
}

impl Arbitrator {
    /// An arbitrator holding the votes a management node kept on disk (`votes`).
    pub fn from_votes(votes: impl IntoIterator<Item = Msg>) -> Arbitrator {
        let mut arbitrator = Arbitrator::default();
        for vote in votes {
            match vote {
                Msg::ViewChosen {
                    epoch,
                    members,
                    installer,
                } => {
                    arbitrator.chosen.insert(epoch, (members, installer));
                }
                other => arbitrator.acceptor.restore(&other),
            }
        }
        arbitrator
    }

    /// Its whole state as messages: the acceptor's promises and accepted values, and the
    /// views it was told were chosen.
    pub fn votes(&self) -> Vec<Msg> {
        let mut votes = self.acceptor.votes();
        votes.extend(
            self.chosen
                .iter()
                .map(|(&epoch, (members, installer))| Msg::ViewChosen {
                    epoch,
                    members: members.clone(),
                    installer: *installer,
                }),
        );
        votes
    }

    /// How many times its state changed.
    pub fn changes(&self) -> u64 {
        self.changes
    }

    pub fn handle(&mut self, from: NodeId, msg: Msg, out: &mut Vec<Output>) {
        let answer = match msg {
            Msg::ViewPrepare { epoch, ballot } => self.known(epoch).unwrap_or_else(|| {
                self.changes += 1;
                self.acceptor.on_prepare(epoch, ballot)
            }),
            Msg::ViewAccept {
                epoch,
                ballot,
                members,
            } => self.known(epoch).unwrap_or_else(|| {
                self.changes += 1;
                self.acceptor.on_accept(epoch, ballot, members)
            }),
            Msg::ViewQuery { epoch } => match self.known(epoch) {
                Some(answer) => answer,
                None => return,
            },
            Msg::ViewChosen {
                epoch,
                members,
                installer,
            } => {
                self.changes += 1;
                self.chosen.insert(epoch, (members, installer));
                while self.chosen.len() > VIEWS_REMEMBERED_MAX {
                    self.chosen.pop_first();
                }
                if let Some((&oldest, _)) = self.chosen.first_key_value() {
                    self.acceptor.forget_below(oldest);
                }
                return;
            }
            _ => return,
        };
        out.push(Output::Send {
            to: from,
            msg: answer,
        });
    }

    /// The newest view it has been told was chosen.
    pub fn latest(&self) -> Option<(Epoch, &Membership)> {
        self.chosen.last_key_value().map(|(e, (m, _))| (*e, m))
    }

    fn known(&self, epoch: Epoch) -> Option<Msg> {
        self.chosen
            .get(&epoch)
            .map(|(members, installer)| Msg::ViewChosen {
                epoch,
                members: members.clone(),
                installer: *installer,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msg::Ballot;

    fn answer(a: &mut Arbitrator, msg: Msg) -> Msg {
        let mut out = Vec::new();
        a.handle(1, msg, &mut out);
        match out.pop() {
            Some(Output::Send { msg, .. }) => msg,
            other => panic!("no answer: {other:?}"),
        }
    }

    /// An arbitrator made from another's votes answers as that one would: a lower ballot of an
    /// epoch it promised is refused, a promise shows what it accepted, and a chosen view is
    /// answered as chosen. Its changes are counted, for the management node to save them.
    #[test]
    fn an_arbitrator_made_from_its_votes_keeps_every_promise() {
        let mut a = Arbitrator::default();
        let low = Ballot { round: 1, node: 1 };
        let high = Ballot { round: 2, node: 2 };
        let members: Membership = [1, 2].into();
        answer(
            &mut a,
            Msg::ViewPrepare {
                epoch: 5,
                ballot: high,
            },
        );
        answer(
            &mut a,
            Msg::ViewAccept {
                epoch: 5,
                ballot: high,
                members: members.clone(),
            },
        );
        answer(
            &mut a,
            Msg::ViewPrepare {
                epoch: 6,
                ballot: high,
            },
        );
        a.handle(
            1,
            Msg::ViewChosen {
                epoch: 4,
                members: [1, 2, 3].into(),
                installer: 1,
            },
            &mut Vec::new(),
        );
        assert_eq!(a.changes(), 4);
        let mut b = Arbitrator::from_votes(a.votes());
        assert_eq!(b.changes(), 0);
        assert_eq!(
            answer(
                &mut b,
                Msg::ViewPrepare {
                    epoch: 6,
                    ballot: low
                }
            ),
            Msg::ViewNack {
                epoch: 6,
                promised: high
            }
        );
        let third = Ballot { round: 3, node: 1 };
        assert_eq!(
            answer(
                &mut b,
                Msg::ViewPrepare {
                    epoch: 5,
                    ballot: third
                }
            ),
            Msg::ViewPromise {
                epoch: 5,
                ballot: third,
                accepted: Some((high, members)),
            }
        );
        assert!(matches!(
            answer(&mut b, Msg::ViewQuery { epoch: 4 }),
            Msg::ViewChosen { epoch: 4, .. }
        ));
        assert_eq!(b.latest().map(|(e, _)| e), Some(4));
    }
}
