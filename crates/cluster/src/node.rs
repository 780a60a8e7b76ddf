//! One data node's protocol state: membership (heartbeats, read leases, suspicion, proposing and
//! learning views), its part in the takeover after a view change, and the dispatch of messages to
//! its coordinator and participant. Fed by `handle` with the time; answers through `Output`s.

use std::collections::{BTreeMap, BTreeSet};

use crate::agreement::{Acceptor, Proposal};
use crate::coordinator::Coordinator;
use crate::gcp::{Checkpoints, Save, Synced};
use crate::layout::{Epoch, Layout, Membership, NodeId, PartitionId, Time, View, ARBITRATOR};
use crate::msg::{Ballot, ClientReply, Gci, Msg, Refusal, TxnId};
use crate::participant::{Participant, PrepareError, Prepared};
use crate::{partition_of, Mutation, Observation, Output, Record, SyncResult, Timing};

/// What a node is given.
#[derive(Clone, Debug)]
pub enum Input {
    Message {
        from: NodeId,
        msg: Msg,
    },
    /// Time passed; the runtime ticks every node at least every few milliseconds.
    Tick,
    /// An `Output::Sync` of checkpoint `gci` ended.
    Synced {
        gci: Gci,
        result: SyncResult,
    },
}

/// How many past views a node keeps, to tell nodes that lag what was chosen.
pub const HISTORY_MAX: usize = 256;

/// A node's report to a takeover: what it holds prepared, and what it committed (or, as
/// coordinator, decided) with the global checkpoint.
type Doubts = (Vec<TxnId>, Vec<(TxnId, Gci)>);
/// A takeover's decision: what to commit, in which checkpoint, and what to abort.
type Decision = (Vec<(TxnId, Gci)>, Vec<TxnId>);

/// The installer's side of a takeover: every member's doubts, then every member's applying the
/// decisions, then the view opens.
#[derive(Debug)]
struct Takeover {
    epoch: Epoch,
    reports: BTreeMap<NodeId, Doubts>,
    decided: Option<Decision>,
    acks: BTreeSet<NodeId>,
    retry_at: Time,
}

#[derive(Debug)]
pub struct DataNode {
    id: NodeId,
    layout: Layout,
    timing: Timing,
    mutation: Option<Mutation>,
    view: View,
    history: BTreeMap<Epoch, (Membership, NodeId)>,
    /// The view's takeover is applied here and every member applied it: the node may coordinate.
    ready: bool,
    /// This node applied its view's takeover decisions.
    resolved: bool,
    last_heard: BTreeMap<NodeId, Time>,
    /// The newest `sent` time of each member's beats, echoed back in ours.
    their_sent: BTreeMap<NodeId, Time>,
    /// The newest of our beats each member echoed: the lease rests on these.
    echoed: BTreeMap<NodeId, Time>,
    next_beat: Time,
    suspect_since: Option<Time>,
    propose_at: Option<Time>,
    round_seen: u64,
    acceptor: Acceptor,
    proposal: Option<Proposal>,
    takeover: Option<Takeover>,
    query_at: Time,
    coordinator: Coordinator,
    participant: Participant,
    stopped: bool,
    /// Restarted and in no view yet: asking to join.
    joining: bool,
    join_at: Time,
    /// Nodes that asked to join, and starting nodes that caught up: the next view takes them in.
    joiners: BTreeSet<NodeId>,
    caught_up: BTreeSet<NodeId>,
    /// As a starting node: the partitions still to copy from their primaries.
    copies: BTreeSet<PartitionId>,
    copy_at: Time,
    /// Whether a runtime copies the node's real partitions beside the model's copy (a data
    /// node's restart: `Some(false)` until it says the copy is done), so the node says it
    /// caught up only then; `None` where the model's copy is the whole copy.
    runtime_copy: Option<bool>,
    /// Global checkpoints: this node's, its redo's, and the rounds it runs as master.
    gcp: Checkpoints,
    /// The transactions this view's takeover committed: their waiting clients are answered when
    /// the view opens (every member applied the decision), not before.
    decisions: Vec<(TxnId, Gci)>,
}

impl DataNode {
    /// A node of a cluster starting from its configuration: every data node is a member of view 1,
    /// which is open at once.
    pub fn new(
        id: NodeId,
        layout: Layout,
        timing: Timing,
        mutation: Option<Mutation>,
        now: Time,
    ) -> DataNode {
        let members: BTreeSet<NodeId> = layout.data_nodes().collect();
        let gcp_interval = timing.gcp_interval;
        let peers: BTreeMap<NodeId, Time> = members
            .iter()
            .filter(|n| **n != id)
            .map(|n| (*n, now))
            .collect();
        DataNode {
            id,
            timing,
            mutation,
            history: [(
                1,
                (
                    Membership {
                        members: members.clone(),
                        starting: BTreeSet::new(),
                    },
                    1,
                ),
            )]
            .into(),
            view: View {
                epoch: 1,
                members,
                starting: BTreeSet::new(),
            },
            ready: true,
            resolved: true,
            last_heard: peers.clone(),
            their_sent: BTreeMap::new(),
            echoed: peers,
            next_beat: now,
            suspect_since: None,
            propose_at: None,
            round_seen: 0,
            acceptor: Acceptor::default(),
            proposal: None,
            takeover: None,
            query_at: 0,
            coordinator: Coordinator::default(),
            participant: Participant::default(),
            stopped: false,
            joining: false,
            join_at: now,
            joiners: BTreeSet::new(),
            caught_up: BTreeSet::new(),
            copies: BTreeSet::new(),
            copy_at: now,
            runtime_copy: None,
            gcp: Checkpoints::new(
                (0..layout.partition_count()).filter(|p| layout.replicas(*p).contains(&id)),
                now,
                gcp_interval,
            ),
            decisions: Vec::new(),
            layout,
        }
    }

    /// `new`, with the first view's epoch `epoch` rather than 1: a system restart's, above
    /// every epoch the last run's nodes or arbitrator voted in (the arbitrator keeps its votes
    /// on disk, and the new run's proposals must not meet them). Called right after `new`.
    pub fn starting_at(mut self, epoch: Epoch) -> DataNode {
        let epoch = epoch.max(1);
        if let Some((_, first)) = self.history.pop_first() {
            self.history.insert(epoch, first);
        }
        self.view.epoch = epoch;
        self
    }

    /// A node restarted with nothing: it is in no view, and asks the cluster to take it back. It
    /// then copies its partitions from their primaries before it serves.
    pub fn restarted(
        id: NodeId,
        layout: Layout,
        timing: Timing,
        mutation: Option<Mutation>,
        now: Time,
    ) -> DataNode {
        let mut node = DataNode::new(id, layout, timing, mutation, now);
        node.view = View {
            epoch: 0,
            members: BTreeSet::new(),
            starting: BTreeSet::new(),
        };
        node.history.clear();
        node.ready = false;
        node.resolved = false;
        node.last_heard.clear();
        node.echoed.clear();
        node.joining = true;
        node.gcp = Checkpoints::new(std::iter::empty(), now, node.timing.gcp_interval);
        node
    }

    /// A runtime copies this node's real partitions when it restarts: the node says it caught
    /// up only once `runtime_copied` was called as well as its own copy ended.
    pub fn wait_for_runtime_copy(&mut self) {
        self.runtime_copy = Some(false);
    }

    /// The runtime copied every partition this starting node holds.
    pub fn runtime_copied(&mut self) {
        if self.runtime_copy.is_some() {
            self.runtime_copy = Some(true);
        }
    }

    /// Whether this node is starting (copying its partitions) or still joining.
    pub fn is_starting(&self) -> bool {
        self.joining || self.view.starting.contains(&self.id)
    }

    pub fn id(&self) -> NodeId {
        self.id
    }

    pub fn view(&self) -> &View {
        &self.view
    }

    pub fn participant(&self) -> &Participant {
        &self.participant
    }

    pub fn stopped(&self) -> bool {
        self.stopped
    }

    pub fn is_ready(&self) -> bool {
        self.ready
    }

    /// Whether this node serves reads and starts transactions now: it is a member (not starting),
    /// its view is open, no member is suspected, and every member echoed a beat of ours within
    /// the lease.
    pub fn serving(&self, now: Time) -> bool {
        !self.stopped
            && self.view.members.contains(&self.id)
            && self.ready
            && self.suspect_since.is_none()
            && self
                .view
                .members
                .iter()
                .filter(|m| **m != self.id)
                .all(|m| {
                    self.mutation == Some(Mutation::ServeWithoutLease)
                        || self
                            .echoed
                            .get(m)
                            .is_some_and(|sent| sent.saturating_add(self.timing.lease) > now)
                })
    }

    pub fn handle(&mut self, now: Time, input: Input, out: &mut Vec<Output>) {
        if self.stopped {
            return;
        }
        match input {
            Input::Tick => self.tick(now, out),
            Input::Synced { gci, result } => self.on_synced(now, gci, result, out),
            Input::Message { from, msg } => self.on_message(now, from, msg, out),
        }
    }

    fn stop(&mut self, reason: String, out: &mut Vec<Output>) {
        self.stopped = true;
        out.push(Output::Stop(reason));
    }

    fn violation(&mut self, what: String, out: &mut Vec<Output>) {
        out.push(Output::Observe(Observation::Violation {
            node: self.id,
            what: what.clone(),
        }));
        self.stop(format!("invariant broken: {what}"), out);
    }

    fn send(&self, to: NodeId, msg: Msg, out: &mut Vec<Output>) {
        out.push(Output::Send { to, msg });
    }

    /// Everyone else in the view: members and starting nodes.
    fn peers(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.view.nodes().filter(move |n| *n != self.id)
    }

    /// The member that proposes the views that take in joining and caught-up nodes.
    fn lowest_member(&self) -> Option<NodeId> {
        self.view.members.first().copied()
    }

    fn tick(&mut self, now: Time, out: &mut Vec<Output>) {
        if self.joining {
            if now >= self.join_at {
                self.join_at = now + self.timing.retry_interval;
                let nodes: Vec<NodeId> =
                    self.layout.data_nodes().filter(|n| *n != self.id).collect();
                for n in nodes {
                    self.send(n, Msg::Join, out);
                }
            }
            return;
        }
        self.copy_tick(now, out);
        if now >= self.next_beat {
            self.next_beat = now + self.timing.heartbeat_interval;
            let peers: Vec<NodeId> = self.peers().collect();
            for peer in peers {
                let msg = Msg::Heartbeat {
                    epoch: self.view.epoch,
                    ready: self.ready,
                    sent: now,
                    echo: self.their_sent.get(&peer).copied(),
                    done_below: self.coordinator.done_below(),
                };
                self.send(peer, msg, out);
            }
        }
        self.watch_members(now, out);
        if self.stopped {
            return;
        }
        if let Some(p) = &self.proposal {
            if p.deadline <= now {
                self.proposal = None;
                self.propose_at = Some(now + self.backoff());
            }
        }
        if self.propose_at.is_some_and(|at| at <= now) && self.proposal.is_none() {
            self.propose(now, out);
        }
        self.takeover_tick(now, out);
        self.gcp_tick(now, out);
        self.coordinator.tick(now, self.timing.retry_interval, out);
        self.participant
            .advance(self.id, self.coordinator.done_below());
        if now >= self.timing.status_after {
            let stale = self
                .participant
                .stale_prepared(self.view.epoch, now - self.timing.status_after);
            for (txn, partition) in stale {
                if self.view.members.contains(&txn.coordinator) {
                    let msg = Msg::TxStatus {
                        epoch: self.view.epoch,
                        txn,
                        partition,
                    };
                    if txn.coordinator == self.id {
                        self.coordinator
                            .on_status(txn, self.view.epoch, partition, self.id, out);
                    } else {
                        self.send(txn.coordinator, msg, out);
                    }
                }
            }
        }
    }

    /// Suspects members unheard for too long, schedules a proposal without them, and stops the
    /// node if no new view comes in time.
    fn watch_members(&mut self, now: Time, out: &mut Vec<Output>) {
        let suspects = self.suspects(now);
        if suspects.is_empty() {
            self.suspect_since = None;
            let admits = (!self.joiners.is_empty() || !self.caught_up.is_empty())
                && self.ready
                && self.lowest_member() == Some(self.id);
            if self.proposal.is_none() && !(admits && self.propose_at.is_some()) {
                self.propose_at = admits.then_some(now);
            }
            return;
        }
        let since = *self.suspect_since.get_or_insert(now);
        if self.propose_at.is_none() && self.proposal.is_none() {
            self.propose_at = Some(now + self.backoff());
        }
        if now >= since + self.timing.stop_after {
            self.stop(
                format!(
                    "node {}: members {suspects:?} unheard and no new view agreed in epoch {}",
                    self.id, self.view.epoch
                ),
                out,
            );
        }
    }

    fn suspects(&self, now: Time) -> BTreeSet<NodeId> {
        self.last_heard
            .iter()
            .filter(|(n, heard)| {
                (self.view.members.contains(n) || self.view.starting.contains(n))
                    && **heard + self.timing.suspect_after <= now
            })
            .map(|(n, _)| *n)
            .collect()
    }

    /// Nodes propose in turn, lowest id first, so two rarely race.
    fn backoff(&self) -> Time {
        let rank = self
            .view
            .members
            .iter()
            .position(|n| *n == self.id)
            .unwrap_or(0) as Time;
        (rank + 1) * self.timing.retry_interval
    }

    fn propose(&mut self, now: Time, out: &mut Vec<Output>) {
        self.propose_at = None;
        let suspects = self.suspects(now);
        let promoted: BTreeSet<NodeId> = self
            .caught_up
            .intersection(&self.view.starting)
            .copied()
            .collect();
        let members: BTreeSet<NodeId> = self
            .view
            .members
            .union(&promoted)
            .filter(|n| !suspects.contains(n))
            .copied()
            .collect();
        let starting: BTreeSet<NodeId> = self
            .view
            .starting
            .union(&self.joiners)
            .filter(|n| !suspects.contains(n) && !members.contains(n))
            .copied()
            .collect();
        if !self.layout.viable(&members) || !members.contains(&self.id) {
            return;
        }
        let candidate = Membership { members, starting };
        if candidate == self.view.membership() {
            return;
        }
        if self.mutation == Some(Mutation::DeadWithoutArbitration) {
            let epoch = self.view.epoch + 1;
            let base = self.view.nodes().collect();
            self.chosen(now, epoch, candidate, base, out);
            return;
        }
        self.round_seen += 1;
        let ballot = Ballot {
            round: self.round_seen,
            node: self.id,
        };
        let deadline = now + 3 * self.timing.retry_interval;
        let proposal = Proposal::new(self.view.clone(), ballot, candidate, deadline);
        let epoch = proposal.epoch;
        let voters: Vec<NodeId> = proposal.voters().filter(|v| *v != self.id).collect();
        self.proposal = Some(proposal);
        for voter in voters {
            self.send(voter, Msg::ViewPrepare { epoch, ballot }, out);
        }
        let own = self.acceptor.on_prepare(epoch, ballot);
        self.on_message(now, self.id, own, out);
    }

    /// A view is chosen for `epoch`: tells the voters of the view before, and installs it here.
    fn chosen(
        &mut self,
        now: Time,
        epoch: Epoch,
        members: Membership,
        base: BTreeSet<NodeId>,
        out: &mut Vec<Output>,
    ) {
        self.proposal = None;
        // The takeover is run by the view's lowest member: a function of the value chosen, so two
        // proposers that both see it chosen name the same installer (and the value may be an
        // earlier proposer's that leaves this node out: then it stops once it told everyone).
        let installer = members.members.first().copied().unwrap_or(self.id);
        let tell: BTreeSet<NodeId> = base
            .iter()
            .chain(members.starting.iter())
            .copied()
            .filter(|n| *n != self.id)
            .chain(std::iter::once(ARBITRATOR))
            .collect();
        for to in tell {
            let msg = Msg::ViewChosen {
                epoch,
                members: members.clone(),
                installer,
            };
            self.send(to, msg, out);
        }
        self.install(now, epoch, members, installer, out);
    }

    fn install(
        &mut self,
        now: Time,
        epoch: Epoch,
        members: Membership,
        installer: NodeId,
        out: &mut Vec<Output>,
    ) {
        // A joining node takes the first view that names it as starting, whatever its epoch: it
        // holds no data, so a view naming it a member is an old one, from before its restart.
        let joins = self.joining && members.starting.contains(&self.id);
        if self.joining && !joins {
            return;
        }
        if epoch != self.view.epoch + 1 && !joins {
            return;
        }
        self.history.insert(epoch, (members.clone(), installer));
        while self.history.len() > HISTORY_MAX {
            self.history.pop_first();
        }
        if !members.contains(self.id) {
            self.stop(
                format!("node {}: not in view {epoch} {members:?}", self.id),
                out,
            );
            return;
        }
        let was_copying = self.joining || !self.copies.is_empty();
        if self.joining {
            self.joining = false;
            // Sequence numbers above any this node used before its restart.
            self.coordinator.rebase(epoch << 40);
        }
        let before: BTreeSet<NodeId> = self.view.nodes().collect();
        self.view = View::new(epoch, members);
        self.joiners.retain(|n| !self.view.nodes().any(|m| m == *n));
        // A starting node says it caught up again in each view: the copy may have been redone.
        self.caught_up.clear();
        if self.view.starting.contains(&self.id) && was_copying {
            // Copy every partition this node holds, from scratch, in this view: a copy a view
            // change interrupted may miss commits the takeover decided. A node that finished
            // its copy is a full replica already, taking every commit since.
            let partitions: BTreeSet<PartitionId> = (0..self.layout.partition_count())
                .filter(|p| self.layout.replicas(*p).contains(&self.id))
                .collect();
            self.participant.start_copy(&partitions);
            self.gcp.copying(&partitions);
            self.copies = partitions;
            self.copy_at = now;
        }
        out.push(Output::Observe(Observation::Installed {
            node: self.id,
            view: self.view.clone(),
        }));
        self.ready = false;
        self.decisions.clear();
        self.resolved = false;
        self.proposal = None;
        self.propose_at = None;
        self.suspect_since = None;
        let peers: Vec<NodeId> = self.peers().collect();
        self.last_heard = peers.iter().map(|n| (*n, now)).collect();
        // A node new to the view (restarted, its clock begun again) starts with a clean slate: an
        // earlier life's beat times would be echoed back to it and never match its own clock.
        let kept = |n: &NodeId| peers.contains(n) && before.contains(n);
        self.echoed.retain(|n, _| kept(n));
        self.their_sent.retain(|n, _| kept(n));
        self.acceptor.forget_below(epoch + 1);
        self.coordinator.on_view(epoch);
        self.gcp.on_view(now);
        self.takeover = (installer == self.id).then(|| Takeover {
            epoch,
            reports: BTreeMap::new(),
            decided: None,
            acks: BTreeSet::new(),
            retry_at: now + self.timing.retry_interval,
        });
        self.report_doubts(now, installer, out);
    }

    fn report_doubts(&mut self, now: Time, installer: NodeId, out: &mut Vec<Output>) {
        let (prepared, mut committed) = self.participant.in_doubt(self.view.epoch);
        // The coordinator's own decisions count as commits: a replica that committed may be gone.
        committed.extend(self.coordinator.decided(self.view.epoch));
        committed.sort_unstable();
        committed.dedup();
        let msg = Msg::InDoubt {
            epoch: self.view.epoch,
            prepared,
            committed,
        };
        if installer == self.id {
            self.on_message(now, self.id, msg, out);
        } else {
            self.send(installer, msg, out);
        }
    }

    fn takeover_tick(&mut self, now: Time, out: &mut Vec<Output>) {
        let Some(t) = &mut self.takeover else { return };
        if t.retry_at > now {
            return;
        }
        t.retry_at = now + self.timing.retry_interval;
        let epoch = t.epoch;
        let everyone: BTreeSet<NodeId> = self.view.nodes().collect();
        let membership = self.view.membership();
        let msgs: Vec<(NodeId, Msg)> = match &t.decided {
            None => everyone
                .iter()
                .filter(|n| !t.reports.contains_key(n))
                .map(|n| {
                    (
                        *n,
                        Msg::ViewChosen {
                            epoch,
                            members: membership.clone(),
                            installer: self.id,
                        },
                    )
                })
                .collect(),
            Some((commit, abort)) => everyone
                .iter()
                .filter(|n| !t.acks.contains(n))
                .map(|n| {
                    (
                        *n,
                        Msg::Resolve {
                            epoch,
                            commit: commit.clone(),
                            abort: abort.clone(),
                        },
                    )
                })
                .collect(),
        };
        for (to, msg) in msgs {
            if to != self.id {
                self.send(to, msg, out);
            }
        }
    }

    /// Any message carrying a newer epoch means this node lags: it asks for the next view.
    fn lagging(&mut self, now: Time, from: NodeId, epoch: Epoch, out: &mut Vec<Output>) -> bool {
        if epoch <= self.view.epoch {
            return false;
        }
        if now >= self.query_at {
            self.query_at = now + self.timing.retry_interval;
            self.send(
                from,
                Msg::ViewQuery {
                    epoch: self.view.epoch + 1,
                },
                out,
            );
        }
        true
    }

    fn tell_view(&self, to: NodeId, epoch: Epoch, out: &mut Vec<Output>) {
        if let Some((members, installer)) = self.history.get(&epoch) {
            let msg = Msg::ViewChosen {
                epoch,
                members: members.clone(),
                installer: *installer,
            };
            out.push(Output::Send { to, msg });
        }
    }

    fn on_message(&mut self, now: Time, from: NodeId, msg: Msg, out: &mut Vec<Output>) {
        let epoch_now = self.view.epoch;
        if self.joining {
            // A restarted node knows nothing and takes part in nothing until a view takes it in.
            match msg {
                Msg::ViewChosen { .. } => {}
                Msg::ClientTxn { request, .. } | Msg::ClientRead { request, .. } => {
                    let reply = ClientReply::Refused(Refusal::NotServing);
                    return self.send(from, Msg::ClientReply { request, reply }, out);
                }
                _ => return,
            }
        }
        match msg {
            Msg::Heartbeat {
                epoch,
                ready,
                sent,
                echo,
                done_below,
            } => {
                if self.lagging(now, from, epoch, out) {
                    return;
                }
                if epoch < epoch_now || !self.view.nodes().any(|n| n == from) {
                    // A node behind, or no longer a member: tell it the view after its own.
                    self.tell_view(from, epoch + 1, out);
                    return;
                }
                self.last_heard.insert(from, now);
                self.participant.advance(from, done_below);
                let theirs = self.their_sent.entry(from).or_insert(sent);
                *theirs = (*theirs).max(sent);
                // An echo from the future is of a beat an earlier life of this process sent (its
                // clock began again at a restart): it proves nothing about this one.
                if let Some(echo) = echo.filter(|e| *e <= now) {
                    let mine = self.echoed.entry(from).or_insert(echo);
                    *mine = (*mine).max(echo);
                }
                if ready && self.resolved && !self.ready {
                    self.open(now, out);
                }
            }
            Msg::ViewPrepare { epoch, ballot } => self.vote(now, from, epoch, ballot, None, out),
            Msg::ViewAccept {
                epoch,
                ballot,
                members,
            } => self.vote(now, from, epoch, ballot, Some(members), out),
            Msg::ViewPromise {
                epoch,
                ballot,
                accepted,
            } => {
                let Some(p) = &mut self.proposal else { return };
                if p.epoch != epoch || p.ballot != ballot {
                    return;
                }
                if let Some(value) = p.on_promise(from, accepted) {
                    let voters: Vec<NodeId> = p.voters().filter(|v| *v != self.id).collect();
                    for voter in voters {
                        self.send(
                            voter,
                            Msg::ViewAccept {
                                epoch,
                                ballot,
                                members: value.clone(),
                            },
                            out,
                        );
                    }
                    let own = self.acceptor.on_accept(epoch, ballot, value);
                    self.on_message(now, self.id, own, out);
                }
            }
            Msg::ViewAccepted { epoch, ballot } => {
                let Some(p) = &mut self.proposal else { return };
                if p.epoch == epoch && p.ballot == ballot && p.on_accepted(from) {
                    let members = p.value.clone().unwrap_or_default();
                    let base = p.base.nodes().collect();
                    self.chosen(now, epoch, members, base, out);
                }
            }
            Msg::ViewNack { epoch, promised } => {
                self.round_seen = self.round_seen.max(promised.round);
                if self.proposal.as_ref().is_some_and(|p| p.epoch == epoch) {
                    self.proposal = None;
                    self.propose_at = Some(now + self.backoff());
                }
            }
            Msg::ViewChosen {
                epoch,
                members,
                installer,
            } => {
                if epoch == epoch_now + 1 || self.joining {
                    self.install(now, epoch, members, installer, out);
                } else if epoch > epoch_now + 1 {
                    self.lagging(now, from, epoch - 1, out);
                } else if epoch == epoch_now && !self.ready {
                    // The installer did not get our doubts yet.
                    self.report_doubts(now, installer, out);
                }
            }
            Msg::ViewQuery { epoch } => self.tell_view(from, epoch, out),
            Msg::InDoubt {
                epoch,
                prepared,
                committed,
            } => self.on_in_doubt(now, from, epoch, prepared, committed, out),
            Msg::Resolve {
                epoch,
                commit,
                abort,
            } => {
                if !self.current(now, from, epoch, out) {
                    return;
                }
                if self.history.get(&epoch).map(|(_, installer)| *installer) != Some(from) {
                    // Only the view's installer decides its takeover.
                    return;
                }
                if !self.resolved {
                    match self.participant.resolve(epoch, &commit, &abort) {
                        Ok(applied) => self.observe_applied(applied, out),
                        Err(what) => return self.violation(what, out),
                    }
                    // The clients waiting on these are answered when the view opens, once every
                    // member applied the decisions: until then a crash could still lose them.
                    self.decisions = commit.clone();
                    self.resolved = true;
                }
                let ack = Msg::ResolveAck { epoch };
                if from == self.id {
                    self.on_message(now, self.id, ack, out);
                } else {
                    self.send(from, ack, out);
                }
            }
            Msg::ResolveAck { epoch } => {
                let Some(t) = &mut self.takeover else { return };
                if t.epoch != epoch || t.decided.is_none() {
                    return;
                }
                t.acks.insert(from);
                if self.view.nodes().all(|m| t.acks.contains(&m)) {
                    self.takeover = None;
                    let peers: Vec<NodeId> = self.peers().collect();
                    for peer in peers {
                        self.send(peer, Msg::Ready { epoch }, out);
                    }
                    self.open(now, out);
                }
            }
            Msg::Ready { epoch } => {
                if epoch == epoch_now && self.resolved && !self.ready {
                    self.open(now, out);
                }
            }
            Msg::TxPrepare {
                epoch,
                txn,
                partition,
                ops,
                primary,
            } => {
                let stale_ok =
                    self.mutation == Some(Mutation::SkipEpochCheckOnPrepare) && epoch < epoch_now;
                if self.lagging(now, from, epoch, out) || (epoch != epoch_now && !stale_ok) {
                    return;
                }
                if primary && self.gcp.disk_full() {
                    // No room for the redo: no new writes as primary until there is.
                    let refused = Msg::TxRefused {
                        epoch,
                        txn,
                        partition,
                    };
                    return self.reply_to(now, from, refused, out);
                }
                let answer = match self
                    .participant
                    .prepare(now, epoch, txn, partition, ops, primary)
                {
                    Ok(answer) => Msg::TxPrepared {
                        epoch,
                        txn,
                        partition,
                        reads: answer.reads,
                        versions: answer.versions,
                        gci: if primary { self.gcp.current() } else { 0 },
                    },
                    Err(PrepareError::Locked | PrepareError::Finished) => Msg::TxRefused {
                        epoch,
                        txn,
                        partition,
                    },
                };
                self.reply_to(now, from, answer, out);
            }
            Msg::TxCommit { .. } | Msg::TxAbort { .. } | Msg::TxComplete { .. } => {
                self.on_phase(now, from, msg, out)
            }
            Msg::TxPrepared {
                epoch,
                txn,
                partition,
                reads,
                versions,
                gci,
            } => {
                let answer = Prepared {
                    reads,
                    versions,
                    gci,
                };
                self.coordinator.on_prepared(
                    txn,
                    epoch,
                    partition,
                    from,
                    answer,
                    self.gcp.current(),
                    self.mutation,
                    out,
                )
            }
            Msg::TxRefused { epoch, txn, .. } => self.coordinator.on_refused(txn, epoch, out),
            Msg::TxCommitted {
                epoch,
                txn,
                partition,
            } => self
                .coordinator
                .on_committed(txn, epoch, partition, from, self.mutation, out),
            Msg::TxAborted {
                epoch,
                txn,
                partition,
            }
            | Msg::TxCompleted {
                epoch,
                txn,
                partition,
            } => self
                .coordinator
                .on_finished(txn, epoch, partition, from, out),
            Msg::TxStatus {
                epoch,
                txn,
                partition,
            } => {
                if epoch == epoch_now {
                    self.coordinator.on_status(txn, epoch, partition, from, out);
                }
            }
            Msg::ClientTxn { request, ops } => {
                if !self.serving(now) {
                    let msg = Msg::ClientReply {
                        request,
                        reply: ClientReply::Refused(Refusal::NotServing),
                    };
                    self.send(from, msg, out);
                    return;
                }
                let retry = self.timing.retry_interval;
                let (id, layout, view) = (self.id, self.layout.clone(), self.view.clone());
                let mut sent = Vec::new();
                self.coordinator.begin(
                    id, now, retry, &layout, &view, from, request, ops, &mut sent,
                );
                self.route(now, sent, out);
            }
            Msg::ClientRead {
                request,
                key,
                backup_ok,
            } => {
                let partition = partition_of(&self.layout, key);
                // A starting node serves no read: it may not have copied the row yet.
                let replicas = if self.mutation == Some(Mutation::ServeBeforeCaughtUp) {
                    self.view.replicas(&self.layout, partition)
                } else {
                    self.view.serving(&self.layout, partition)
                };
                let role_ok = if backup_ok {
                    replicas.contains(&self.id)
                } else {
                    replicas.first() == Some(&self.id)
                };
                let serving = self.serving(now)
                    || (self.mutation == Some(Mutation::ServeBeforeCaughtUp)
                        && !self.joining
                        && self.ready);
                let reply = if serving && role_ok {
                    ClientReply::Value(if replicas.first() == Some(&self.id) {
                        self.participant.read(partition, key)
                    } else {
                        self.participant.read_backup(partition, key)
                    })
                } else {
                    ClientReply::Refused(Refusal::NotServing)
                };
                self.send(from, Msg::ClientReply { request, reply }, out);
            }
            Msg::Join => {
                if !self.view.nodes().any(|n| n == from)
                    && self.layout.data_nodes().any(|n| n == from)
                {
                    self.joiners.insert(from);
                }
            }
            Msg::CopyRequest { epoch, partition } => {
                // Only an open view's primary answers: every commit after this copy reaches the
                // starting node too.
                if epoch == epoch_now
                    && self.ready
                    && self.view.primary(&self.layout, partition) == Some(self.id)
                {
                    let rows = self.participant.snapshot(partition);
                    // Every row is of this node's checkpoint or an earlier one.
                    let gci = self.gcp.current();
                    self.send(
                        from,
                        Msg::CopyRows {
                            epoch,
                            partition,
                            rows,
                            gci,
                        },
                        out,
                    );
                }
            }
            Msg::CopyRows {
                epoch,
                partition,
                rows,
                gci,
            } => {
                if epoch == epoch_now && self.copies.remove(&partition) {
                    out.push(Output::Persist(Record::Copy {
                        partition,
                        rows: rows.clone(),
                        gci,
                    }));
                    self.gcp.copied(partition, gci);
                    self.participant.merge_copy(partition, rows);
                    if self.copies.is_empty() {
                        self.copy_at = now;
                    }
                }
            }
            Msg::CaughtUp { epoch } => {
                if epoch == epoch_now && self.view.starting.contains(&from) {
                    self.caught_up.insert(from);
                }
            }
            Msg::GcpStart { epoch, gci } => {
                if self.current(now, from, epoch, out) {
                    self.gcp
                        .on_start(epoch, gci, from, self.coordinator.newest());
                    self.gcp_tick(now, out);
                }
            }
            Msg::GcpStarted { epoch, gci } | Msg::GcpSaved { epoch, gci } => {
                if epoch == epoch_now {
                    let saved = matches!(msg, Msg::GcpSaved { .. });
                    let nodes: BTreeSet<NodeId> = self.view.nodes().collect();
                    if let Some(durable) = self.gcp.on_answer(now, epoch, gci, saved, from, &nodes)
                    {
                        out.push(Output::Observe(Observation::Durable { gci: durable }));
                    }
                    self.gcp_tick(now, out);
                }
            }
            Msg::GcpSave { epoch, gci } => {
                if !self.current(now, from, epoch, out) {
                    return;
                }
                match self.gcp.on_save(epoch, gci, from) {
                    Save::Answer(to, msg) => self.reply_to(now, to, msg, out),
                    Save::Sync(gci) => self.sync(now, gci, out),
                    Save::Nothing => {}
                }
            }
            Msg::ClientReply { .. } => {}
        }
    }

    /// The checkpoint master's rounds, the answer to a start once older transactions are
    /// finished, and a full disk's fsync tried again.
    fn gcp_tick(&mut self, now: Time, out: &mut Vec<Output>) {
        let epoch = self.view.epoch;
        if self.ready && self.lowest_member() == Some(self.id) {
            let nodes: BTreeSet<NodeId> = self.view.nodes().collect();
            let sends = self
                .gcp
                .master_tick(now, self.timing.retry_interval, epoch, &nodes);
            for (to, msg) in sends {
                self.reply_to(now, to, msg, out);
            }
        }
        if let Some((to, msg)) = self.gcp.start_answer(epoch, self.coordinator.done_below()) {
            self.reply_to(now, to, msg, out);
        }
        if let Some(gci) = self.gcp.retry_sync(now, self.timing.retry_interval) {
            self.sync(now, gci, out);
        }
    }

    /// Appends the `Saved` record of `gci` and asks for the fsync.
    fn sync(&mut self, now: Time, gci: Gci, out: &mut Vec<Output>) {
        out.push(Output::Persist(Record::Saved { gci }));
        self.gcp.issue(gci);
        if self.mutation == Some(Mutation::SkipGcpFsync) {
            return self.on_synced(now, gci, SyncResult::Done, out);
        }
        out.push(Output::Sync { gci });
    }

    fn on_synced(&mut self, now: Time, gci: Gci, result: SyncResult, out: &mut Vec<Output>) {
        let retry = self.timing.retry_interval;
        match self.gcp.on_synced(now, retry, self.view.epoch, gci, result) {
            Synced::Saved {
                gci,
                answer,
                partitions,
            } => {
                out.push(Output::Observe(Observation::Saved {
                    node: self.id,
                    gci,
                    partitions,
                }));
                if let Some((to, msg)) = answer {
                    self.reply_to(now, to, msg, out);
                }
            }
            Synced::Failed => self.stop(
                format!("node {}: an fsync of the redo log failed", self.id),
                out,
            ),
            Synced::Full | Synced::Nothing => {}
        }
    }

    /// A starting node asks each primary for the partitions it has not copied yet, and, once it
    /// has them all, tells the lowest member it caught up; both until the view changes.
    fn copy_tick(&mut self, now: Time, out: &mut Vec<Output>) {
        if !self.view.starting.contains(&self.id) || now < self.copy_at || !self.ready {
            return;
        }
        self.copy_at = now + self.timing.retry_interval;
        let epoch = self.view.epoch;
        if self.copies.is_empty() {
            if self.runtime_copy == Some(false) {
                return;
            }
            if let Some(lowest) = self.lowest_member() {
                self.send(lowest, Msg::CaughtUp { epoch }, out);
            }
            return;
        }
        let asks: Vec<(NodeId, PartitionId)> = self
            .copies
            .iter()
            .filter_map(|p| {
                self.view
                    .primary(&self.layout, *p)
                    .map(|primary| (primary, *p))
            })
            .collect();
        for (primary, partition) in asks {
            self.send(primary, Msg::CopyRequest { epoch, partition }, out);
        }
    }

    /// A replica's part of a transaction's commit, abort or complete phase, answered to the
    /// coordinator.
    fn on_phase(&mut self, now: Time, from: NodeId, msg: Msg, out: &mut Vec<Output>) {
        let answer = match msg {
            Msg::TxCommit {
                epoch,
                txn,
                partition,
                versions,
                gci,
            } if self.current(now, from, epoch, out) => {
                match self.participant.commit(txn, partition, &versions, gci) {
                    Ok(applied) => self.observe_applied(applied, out),
                    Err(what) => return self.violation(what, out),
                }
                Msg::TxCommitted {
                    epoch,
                    txn,
                    partition,
                }
            }
            Msg::TxAbort {
                epoch,
                txn,
                partition,
            } if self.current(now, from, epoch, out) => {
                self.participant.abort(epoch, txn, partition);
                Msg::TxAborted {
                    epoch,
                    txn,
                    partition,
                }
            }
            Msg::TxComplete {
                epoch,
                txn,
                partition,
            } if self.current(now, from, epoch, out) => {
                self.participant.complete(txn, partition);
                Msg::TxCompleted {
                    epoch,
                    txn,
                    partition,
                }
            }
            _ => return,
        };
        self.reply_to(now, from, answer, out);
    }

    /// Each commit applied goes to the redo log and raises this node's checkpoint.
    fn observe_applied(&mut self, applied: Vec<crate::Applied>, out: &mut Vec<Output>) {
        for applied in applied {
            self.gcp.applied(applied.gci);
            out.push(Output::Persist(Record::Write(applied.clone())));
            out.push(Output::Observe(Observation::Applied {
                node: self.id,
                applied,
            }));
        }
    }

    /// Answers a voter's part of view agreement: phase 1 (`members` is None) or phase 2.
    fn vote(
        &mut self,
        now: Time,
        from: NodeId,
        epoch: Epoch,
        ballot: Ballot,
        members: Option<Membership>,
        out: &mut Vec<Output>,
    ) {
        self.round_seen = self.round_seen.max(ballot.round);
        if self.joining {
            // A restarted node lost its promises: it must not vote.
            return;
        }
        if epoch <= self.view.epoch {
            self.tell_view(from, epoch, out);
        } else if epoch == self.view.epoch + 1 {
            let answer = match members {
                None => self.acceptor.on_prepare(epoch, ballot),
                Some(members) => self.acceptor.on_accept(epoch, ballot, members),
            };
            self.send(from, answer, out);
        } else {
            self.lagging(now, from, epoch - 1, out);
        }
    }

    /// Whether a transaction message belongs to this node's epoch (asking for a newer view if
    /// it comes from one).
    fn current(&mut self, now: Time, from: NodeId, epoch: Epoch, out: &mut Vec<Output>) -> bool {
        !self.lagging(now, from, epoch, out) && epoch == self.view.epoch
    }

    /// Sends a reply, or handles it here when it is addressed to this node's own coordinator.
    fn reply_to(&mut self, now: Time, to: NodeId, msg: Msg, out: &mut Vec<Output>) {
        if to == self.id {
            self.on_message(now, self.id, msg, out);
        } else {
            self.send(to, msg, out);
        }
    }

    /// Carries out a coordinator's messages: those to this node are handled here at once.
    fn route(&mut self, now: Time, outputs: Vec<Output>, out: &mut Vec<Output>) {
        for output in outputs {
            match output {
                Output::Send { to, msg } if to == self.id => {
                    self.on_message(now, self.id, msg, out)
                }
                other => out.push(other),
            }
        }
    }

    fn on_in_doubt(
        &mut self,
        now: Time,
        from: NodeId,
        epoch: Epoch,
        prepared: Vec<TxnId>,
        committed: Vec<(TxnId, Gci)>,
        out: &mut Vec<Output>,
    ) {
        let Some(t) = &mut self.takeover else { return };
        if t.epoch != epoch || t.decided.is_some() || !self.view.nodes().any(|n| n == from) {
            return;
        }
        t.reports.insert(from, (prepared, committed));
        if !self.view.nodes().all(|m| t.reports.contains_key(&m)) {
            return;
        }
        let mut commit: BTreeMap<TxnId, Gci> = BTreeMap::new();
        let mut disagree = None;
        for (txn, gci) in t.reports.values().flat_map(|(_, c)| c.iter().copied()) {
            if commit.insert(txn, gci).is_some_and(|g| g != gci) {
                disagree = Some(txn);
            }
        }
        if let Some(txn) = disagree {
            return self.violation(
                format!("the reports of {txn:?} name different global checkpoints"),
                out,
            );
        }
        let abort: BTreeSet<TxnId> = t
            .reports
            .values()
            .flat_map(|(p, _)| p.iter().copied())
            .filter(|x| !commit.contains_key(x))
            .collect();
        let (commit, abort): (Vec<(TxnId, Gci)>, Vec<TxnId>) =
            (commit.into_iter().collect(), abort.into_iter().collect());
        t.decided = Some((commit.clone(), abort.clone()));
        t.retry_at = now + self.timing.retry_interval;
        let peers: Vec<NodeId> = self.peers().collect();
        for peer in peers {
            self.send(
                peer,
                Msg::Resolve {
                    epoch,
                    commit: commit.clone(),
                    abort: abort.clone(),
                },
                out,
            );
        }
        self.on_message(
            now,
            self.id,
            Msg::Resolve {
                epoch,
                commit,
                abort,
            },
            out,
        );
    }

    /// Every member applied the takeover: the view opens.
    fn open(&mut self, now: Time, out: &mut Vec<Output>) {
        let _ = now;
        self.ready = true;
        let decisions = std::mem::take(&mut self.decisions);
        self.coordinator.on_resolve(&decisions, out);
        let left = self.participant.open_epoch(self.view.epoch);
        out.push(Output::Observe(Observation::Opened {
            node: self.id,
            epoch: self.view.epoch,
        }));
        if !left.is_empty() {
            self.violation(
                format!(
                    "view {} opened with transactions of older epochs still prepared: {left:?}",
                    self.view.epoch
                ),
                out,
            );
        }
    }
}
