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
}

impl Arbitrator {
    pub fn handle(&mut self, from: NodeId, msg: Msg, out: &mut Vec<Output>) {
        let answer = match msg {
            Msg::ViewPrepare { epoch, ballot } => self
                .known(epoch)
                .unwrap_or_else(|| self.acceptor.on_prepare(epoch, ballot)),
            Msg::ViewAccept {
                epoch,
                ballot,
                members,
            } => self
                .known(epoch)
                .unwrap_or_else(|| self.acceptor.on_accept(epoch, ballot, members)),
            Msg::ViewQuery { epoch } => match self.known(epoch) {
                Some(answer) => answer,
                None => return,
            },
            Msg::ViewChosen {
                epoch,
                members,
                installer,
            } => {
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
