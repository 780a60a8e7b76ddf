//! The simulated world: the event queue, the network and its faults, the clients, and the run.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, VecDeque};
use std::time::{Duration, Instant};

use cluster::arbitrator::Arbitrator;
use cluster::node::{DataNode, Input};
use cluster::{
    partition_of, ClientReply, Gci, Layout, Msg, Mutation, NodeId, Observation, Op, Output,
    PartitionId, Refusal, SyncResult, Time, Timing, ARBITRATOR,
};

use crate::check::{show_time, Checker, FinalNode, Outcome, ReadRecord, WriteRecord};
use crate::disk::{Disk, SavedStates};
use crate::rng::Rng;
use cluster::log::{difference, restore};

/// Clients' node ids start here.
const CLIENT_BASE: NodeId = 1000;
/// Every node is ticked this often.
const TICK: Time = 10_000;
/// The injector decides on faults this often.
const INJECT_EVERY: Time = 100_000;
/// A client gives up on a request after this long (the outcome of a write is then unknown).
const CLIENT_TIMEOUT: Time = 2_000_000;
/// How many events the failure report shows.
const TAIL_EVENTS: usize = 400;

/// Each fault's knob: a probability per message, or a rate per simulated second.
#[derive(Clone, Debug)]
pub struct FaultRates {
    pub drop: f64,
    pub duplicate: f64,
    /// Probability that a message is held back up to `delay_max`.
    pub delay: f64,
    pub delay_max: Time,
    pub crash_per_s: f64,
    pub partition_per_s: f64,
    pub slow_per_s: f64,
    /// A node's process stops for a while (SIGSTOP, a stalled VM): it handles nothing until it
    /// resumes, often after the others have dropped it from the view.
    pub pause_per_s: f64,
    pub arbitrator_crash_per_s: f64,
    /// Probability that an fsync fails (the node then stops).
    pub fsync_fail: f64,
    /// A node's disk fills up for a while.
    pub disk_full_per_s: f64,
}

impl Default for FaultRates {
    fn default() -> FaultRates {
        FaultRates {
            drop: 0.01,
            duplicate: 0.005,
            delay: 0.02,
            delay_max: 300_000,
            crash_per_s: 0.05,
            partition_per_s: 0.1,
            slow_per_s: 0.1,
            pause_per_s: 0.03,
            arbitrator_crash_per_s: 0.03,
            fsync_fail: 0.002,
            disk_full_per_s: 0.03,
        }
    }
}

impl FaultRates {
    pub fn none() -> FaultRates {
        FaultRates {
            drop: 0.0,
            duplicate: 0.0,
            delay: 0.0,
            delay_max: 0,
            crash_per_s: 0.0,
            partition_per_s: 0.0,
            slow_per_s: 0.0,
            pause_per_s: 0.0,
            arbitrator_crash_per_s: 0.0,
            fsync_fail: 0.0,
            disk_full_per_s: 0.0,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Config {
    pub seed: u64,
    /// Simulated time of the whole run; faults stop `quiet` before its end.
    pub duration: Time,
    pub quiet: Time,
    pub data_nodes: u16,
    pub replicas: u16,
    pub partitions_per_group: u32,
    pub clients: usize,
    pub keys: u64,
    pub faults: FaultRates,
    pub mutation: Option<Mutation>,
    pub timing: Timing,
    /// Keep the last events to print them when a check fails.
    pub keep_tail: bool,
    /// Print every event as it happens.
    pub trace: bool,
    /// Restart crashed and stopped nodes (empty), 1 to 5 s later.
    pub restarts: bool,
}

impl Config {
    pub fn new(seed: u64) -> Config {
        Config {
            seed,
            duration: 40_000_000,
            quiet: 12_000_000,
            data_nodes: 4,
            replicas: 2,
            partitions_per_group: 4,
            clients: 8,
            keys: 48,
            faults: FaultRates::default(),
            mutation: None,
            timing: Timing::default(),
            keep_tail: false,
            trace: false,
            restarts: true,
        }
    }
}

#[derive(Debug, Default)]
pub struct Report {
    pub seed: u64,
    pub events: u64,
    pub digest: u64,
    pub simulated: Time,
    pub wall: Duration,
    pub faults: BTreeMap<&'static str, u64>,
    pub commits: u64,
    pub refused: u64,
    pub unknown: u64,
    pub reads: u64,
    pub newest_epoch: u64,
    /// The newest global checkpoint every member saved.
    pub durable_gci: Gci,
    /// Commits begun after faults stopped.
    pub quiet_commits: u64,
    /// The nodes left running could not serve: some node group had no member left.
    pub cluster_lost: bool,
    pub stops: Vec<String>,
    pub failures: Vec<String>,
    pub tail: Vec<String>,
}

impl Report {
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

enum Event {
    Deliver {
        from: NodeId,
        to: NodeId,
        msg: Msg,
    },
    Tick(NodeId),
    ClientNext(usize),
    ClientTimeout(usize, u64),
    Inject,
    Heal,
    Unslow(NodeId),
    ArbitratorUp,
    /// A crashed or stopped node's process comes back, empty (its disk is checked when it goes
    /// down, then wiped: a node restart copies everything from its peers).
    Restart(NodeId),
    /// An fsync of the first `upto` records of a node's log ends (if the node's process is still
    /// the same `life`).
    SyncDone {
        id: NodeId,
        life: u64,
        gci: Gci,
        upto: usize,
    },
}

struct Scheduled {
    at: Time,
    seq: u64,
    event: Event,
}

impl PartialEq for Scheduled {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}
impl Eq for Scheduled {}
impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Scheduled {
    /// Reversed, so the heap pops the earliest event (ties in scheduling order).
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

enum ClientOp {
    Write {
        value: u64,
        keys: Vec<u64>,
        ops: Vec<Op>,
    },
    Read {
        key: u64,
        backup_ok: bool,
    },
}

struct Client {
    request: u64,
    op: Option<(ClientOp, Time)>,
    attempt: u64,
    target: NodeId,
}

struct World {
    config: Config,
    layout: Layout,
    now: Time,
    seq: u64,
    queue: BinaryHeap<Scheduled>,
    rng: Rng,
    nodes: BTreeMap<NodeId, DataNode>,
    arbitrator: Arbitrator,
    arbitrator_up: bool,
    /// One side of a network partition (data nodes and arbitrator); the rest is the other side.
    cut: Option<BTreeSet<NodeId>>,
    slow: BTreeMap<NodeId, Time>,
    /// Paused nodes and when they resume: their ticks, deliveries and disk completions wait
    /// until then.
    paused: BTreeMap<NodeId, Time>,
    crashed: BTreeSet<NodeId>,
    /// The members of the newest view any node installed.
    members: BTreeSet<NodeId>,
    clients: Vec<Client>,
    checker: Checker,
    report: Report,
    digest: u64,
    tail: VecDeque<String>,
    quiet_from: Time,
    clients_stop: Time,
    outputs: Vec<Output>,
    disks: BTreeMap<NodeId, Disk>,
    lives: BTreeMap<NodeId, u64>,
    /// When each node's process started: its clock reads the time since, as a real process's
    /// monotonic clock does (a restarted node's clock begins again).
    life_start: BTreeMap<NodeId, Time>,
    /// Per partition and checkpoint, the state the first node that saved it restores: every other
    /// node that saves it must restore the same.
    saved_states: SavedStates,
}

/// Runs one simulation to its end and checks it.
pub fn run(config: Config) -> Result<Report, String> {
    let layout = Layout::new(
        config.data_nodes,
        config.replicas,
        config.partitions_per_group,
    )?;
    let started = Instant::now();
    let mut world = World::new(config, layout);
    world.members = world.layout.data_nodes().collect();
    world.run();
    world.report.wall = started.elapsed();
    Ok(world.report)
}

impl World {
    fn new(config: Config, layout: Layout) -> World {
        let nodes = layout
            .data_nodes()
            .map(|id| {
                (
                    id,
                    DataNode::new(
                        id,
                        layout.clone(),
                        config.timing.clone(),
                        config.mutation,
                        0,
                    ),
                )
            })
            .collect();
        let clients = (0..config.clients)
            .map(|i| Client {
                request: 0,
                op: None,
                attempt: 0,
                target: (i as NodeId % config.data_nodes) + 1,
            })
            .collect();
        let quiet_from = config.duration.saturating_sub(config.quiet);
        let clients_stop = config.duration.saturating_sub(1_000_000);
        World {
            rng: Rng::new(config.seed),
            report: Report {
                seed: config.seed,
                newest_epoch: 1,
                ..Report::default()
            },
            config,
            layout,
            now: 0,
            seq: 0,
            queue: BinaryHeap::new(),
            nodes,
            arbitrator: Arbitrator::default(),
            arbitrator_up: true,
            cut: None,
            slow: BTreeMap::new(),
            paused: BTreeMap::new(),
            crashed: BTreeSet::new(),
            members: BTreeSet::new(),
            clients,
            checker: Checker::default(),
            digest: 0xcbf2_9ce4_8422_2325,
            tail: VecDeque::new(),
            quiet_from,
            clients_stop,
            outputs: Vec::new(),
            disks: BTreeMap::new(),
            lives: BTreeMap::new(),
            life_start: BTreeMap::new(),
            saved_states: SavedStates::default(),
        }
    }

    fn schedule(&mut self, at: Time, event: Event) {
        self.seq += 1;
        self.queue.push(Scheduled {
            at,
            seq: self.seq,
            event,
        });
    }

    fn hash(&mut self, words: &[u64]) {
        for word in words {
            for byte in word.to_le_bytes() {
                self.digest ^= u64::from(byte);
                self.digest = self.digest.wrapping_mul(0x0100_0000_01b3);
            }
        }
    }

    fn note(&mut self, line: impl FnOnce() -> String) {
        if self.config.trace {
            println!("{} {}", show_time(self.now), line());
        } else if self.config.keep_tail {
            if self.tail.len() == TAIL_EVENTS {
                self.tail.pop_front();
            }
            let line = format!("{} {}", show_time(self.now), line());
            self.tail.push_back(line);
        }
    }

    fn count_fault(&mut self, kind: &'static str) {
        *self.report.faults.entry(kind).or_default() += 1;
    }

    fn run(&mut self) {
        let ids: Vec<NodeId> = self.nodes.keys().copied().collect();
        for id in ids {
            self.schedule(u64::from(id) * 97, Event::Tick(id));
        }
        for i in 0..self.clients.len() {
            self.schedule(1_000 + i as Time * 131, Event::ClientNext(i));
        }
        self.schedule(INJECT_EVERY, Event::Inject);
        while let Some(Scheduled { at, event, .. }) = self.queue.pop() {
            if at > self.config.duration {
                break;
            }
            self.now = at;
            self.report.events += 1;
            self.step(event);
            if !self.checker.failures.is_empty() {
                // The first broken property ends the run, so the tail shows what led to it.
                break;
            }
        }
        self.now = self.config.duration;
        self.report.simulated = self.now;
        self.finish();
    }

    fn step(&mut self, event: Event) {
        // A paused node handles its events when it resumes, in the order they came.
        let target = match &event {
            Event::Tick(id) | Event::SyncDone { id, .. } => Some(*id),
            Event::Deliver { to, .. } => Some(*to),
            _ => None,
        };
        if let Some(until) = target.and_then(|id| self.paused.get(&id).copied()) {
            if until > self.now {
                self.schedule(until, event);
                return;
            }
        }
        match event {
            Event::Tick(id) => {
                self.hash(&[self.now, 1, u64::from(id)]);
                if self.nodes.contains_key(&id) {
                    self.feed(id, Input::Tick);
                    let jitter = self.rng.below(1_000);
                    self.schedule(
                        self.now + TICK + jitter + self.slow.get(&id).copied().unwrap_or(0),
                        Event::Tick(id),
                    );
                }
            }
            Event::Deliver { from, to, msg } => {
                self.hash(&[self.now, 2, u64::from(from), u64::from(to), kind_code(&msg)]);
                if self.is_cut(from, to) {
                    self.count_fault("dropped by partition");
                    return;
                }
                self.note(|| format!("{from} -> {to}: {msg:?}"));
                if to >= CLIENT_BASE {
                    self.client_reply(usize::from(to - CLIENT_BASE), msg);
                } else if to == ARBITRATOR {
                    if self.arbitrator_up {
                        let mut out = std::mem::take(&mut self.outputs);
                        self.arbitrator.handle(from, msg, &mut out);
                        self.carry(ARBITRATOR, &mut out);
                        self.outputs = out;
                    }
                } else if self.nodes.contains_key(&to) {
                    self.feed(to, Input::Message { from, msg });
                } else if from >= CLIENT_BASE {
                    // The process is gone: its client's connection is refused at once.
                    if let Msg::ClientTxn { request, .. } | Msg::ClientRead { request, .. } = msg {
                        let reply = ClientReply::Refused(Refusal::NotServing);
                        self.send(to, from, Msg::ClientReply { request, reply });
                    }
                }
            }
            Event::ClientNext(i) => {
                self.hash(&[self.now, 3, i as u64]);
                self.client_next(i);
            }
            Event::ClientTimeout(i, request) => {
                self.hash(&[self.now, 4, i as u64, request]);
                self.client_timeout(i, request);
            }
            Event::Inject => {
                self.hash(&[self.now, 5]);
                if self.now < self.quiet_from {
                    self.inject();
                    self.schedule(self.now + INJECT_EVERY, Event::Inject);
                } else {
                    self.calm();
                }
            }
            Event::Heal => {
                self.hash(&[self.now, 6]);
                self.note(|| "network partition healed".into());
                self.cut = None;
            }
            Event::Unslow(id) => {
                self.hash(&[self.now, 7, u64::from(id)]);
                self.slow.remove(&id);
            }
            Event::Restart(id) => {
                self.hash(&[self.now, 10, u64::from(id)]);
                // With no member left running the cluster is gone (the model keeps nothing on
                // disk): a restarted node would have no one to copy from.
                let alive = self.nodes.values().any(|n| !n.is_starting());
                if !self.nodes.contains_key(&id) && alive {
                    self.note(|| format!("node {id} restarts"));
                    self.count_fault("node restarted");
                    let node = DataNode::restarted(
                        id,
                        self.layout.clone(),
                        self.config.timing.clone(),
                        self.config.mutation,
                        0,
                    );
                    self.nodes.insert(id, node);
                    self.life_start.insert(id, self.now);
                    self.disks.insert(id, Disk::default());
                    *self.lives.entry(id).or_default() += 1;
                    self.crashed.remove(&id);
                    self.schedule(self.now + TICK, Event::Tick(id));
                }
            }
            Event::SyncDone {
                id,
                life,
                gci,
                upto,
            } => {
                self.hash(&[self.now, 11, u64::from(id), gci]);
                if !self.nodes.contains_key(&id)
                    || self.lives.get(&id).copied().unwrap_or(0) != life
                {
                    return;
                }
                let full = self.disks.get(&id).is_some_and(|d| d.full_until > self.now);
                let result = if self.now < self.quiet_from
                    && self.rng.chance(self.config.faults.fsync_fail)
                {
                    self.count_fault("fsync failed");
                    SyncResult::Failed
                } else if full {
                    self.count_fault("fsync on a full disk");
                    SyncResult::Full
                } else {
                    if let Some(d) = self.disks.get_mut(&id) {
                        d.synced(upto);
                    }
                    SyncResult::Done
                };
                self.note(|| format!("node {id}: fsync of checkpoint {gci}: {result:?}"));
                self.feed(id, Input::Synced { gci, result });
            }
            Event::ArbitratorUp => {
                self.hash(&[self.now, 8]);
                self.note(|| "arbitrator restarted".into());
                self.arbitrator_up = true;
            }
        }
    }

    fn is_cut(&self, from: NodeId, to: NodeId) -> bool {
        let Some(side) = &self.cut else { return false };
        from < CLIENT_BASE && to < CLIENT_BASE && side.contains(&from) != side.contains(&to)
    }

    fn feed(&mut self, id: NodeId, input: Input) {
        let mut out = std::mem::take(&mut self.outputs);
        let clock = self.now - self.life_start.get(&id).copied().unwrap_or(0);
        if let Some(node) = self.nodes.get_mut(&id) {
            node.handle(clock, input, &mut out);
        }
        self.carry(id, &mut out);
        self.outputs = out;
    }

    /// Carries out a node's outputs: messages onto the network, observations to the checker.
    fn carry(&mut self, from: NodeId, out: &mut Vec<Output>) {
        for output in out.drain(..) {
            match output {
                Output::Send { to, msg } => self.send(from, to, msg),
                Output::Persist(record) => {
                    let disk = self.disks.entry(from).or_default();
                    // Every commit of a saved checkpoint was applied before the save.
                    let late = match (&record, disk.claimed()) {
                        (cluster::Record::Write(a), Some((g, parts))) => {
                            (a.gci <= *g && parts.contains(&a.partition)).then_some((a.gci, *g))
                        }
                        _ => None,
                    };
                    disk.append(record);
                    if let Some((gci, saved)) = late {
                        let what = format!(
                            "node {from} wrote a commit of checkpoint {gci} after it said it saved checkpoint {saved}"
                        );
                        self.checker.fail(self.now, what);
                    }
                }
                Output::Sync { gci } => {
                    let upto = self.disks.get(&from).map_or(0, Disk::written);
                    let latency = self.rng.between(1_000, 20_000)
                        + self.slow.get(&from).copied().unwrap_or(0);
                    let life = self.lives.get(&from).copied().unwrap_or(0);
                    self.schedule(
                        self.now + latency,
                        Event::SyncDone {
                            id: from,
                            life,
                            gci,
                            upto,
                        },
                    );
                }
                Output::Observe(observation) => {
                    match &observation {
                        Observation::Saved {
                            node,
                            gci,
                            partitions,
                        } => self.saved(*node, *gci, partitions),
                        Observation::Durable { gci } => {
                            self.report.durable_gci = self.report.durable_gci.max(*gci);
                        }
                        _ => {}
                    }
                    if let Observation::Installed { view, .. } = &observation {
                        if view.epoch > self.report.newest_epoch {
                            self.report.newest_epoch = view.epoch;
                            self.members = view.members.clone();
                        }
                    }
                    self.note(|| format!("{observation:?}"));
                    self.checker.observe(self.now, &observation);
                }
                Output::Stop(reason) => {
                    self.note(|| format!("node {from} stops: {reason}"));
                    self.hash(&[self.now, 9, u64::from(from)]);
                    self.report
                        .stops
                        .push(format!("{}: {reason}", show_time(self.now)));
                    self.nodes.remove(&from);
                    self.down(from);
                }
            }
        }
    }

    fn send(&mut self, from: NodeId, to: NodeId, msg: Msg) {
        let faulty = self.now < self.quiet_from && from < CLIENT_BASE && to < CLIENT_BASE;
        if faulty && self.rng.chance(self.config.faults.drop) {
            self.count_fault("message dropped");
            return;
        }
        let mut latency = self.rng.between(50, 400) + self.slow.get(&to).copied().unwrap_or(0);
        if faulty && self.rng.chance(self.config.faults.delay) {
            self.count_fault("message delayed");
            latency += self.rng.below(self.config.faults.delay_max.max(1));
        }
        if faulty && self.rng.chance(self.config.faults.duplicate) {
            self.count_fault("message duplicated");
            let again = latency + self.rng.below(50_000);
            self.schedule(
                self.now + again,
                Event::Deliver {
                    from,
                    to,
                    msg: msg.clone(),
                },
            );
        }
        self.schedule(self.now + latency, Event::Deliver { from, to, msg });
    }

    /// A node said its redo is on disk through `gci` for `partitions`: what its log restores
    /// there must be what every other node that saved the checkpoint restores.
    fn saved(&mut self, node: NodeId, gci: Gci, partitions: &[PartitionId]) {
        let Some(d) = self.disks.get_mut(&node) else {
            return;
        };
        d.claim(gci, partitions.iter().copied().collect());
        for what in self.saved_states.check(node, gci, partitions, d.records()) {
            self.checker.fail(self.now, what);
        }
    }

    /// A node's process ended: its unsynced records may be lost (and the last one torn), but
    /// every checkpoint it said it saved must restore from what is left as from what it wrote.
    fn lose_disk(&mut self, id: NodeId) {
        let Some(d) = self.disks.remove(&id) else {
            return;
        };
        let survivors = d.crash(&mut self.rng);
        if survivors.lost > 0 {
            self.count_fault("unsynced records lost");
        }
        if survivors.torn {
            self.count_fault("torn write");
        }
        let Some((gci, partitions)) = d.claimed() else {
            return;
        };
        let wrote = restore(d.records(), *gci, partitions);
        let left = restore(&survivors.records, *gci, partitions);
        if let Some(diff) = difference(&wrote, &left) {
            let what = format!(
                "node {id} said checkpoint {gci} was on disk, but after its crash the disk restores otherwise: {diff}"
            );
            self.checker.fail(self.now, what);
        }
        let marked = cluster::log::saved(&survivors.records);
        if marked < *gci {
            let what = format!(
                "node {id} said checkpoint {gci} was on disk, but its disk's newest saved checkpoint is {marked}"
            );
            self.checker.fail(self.now, what);
        }
    }

    /// A node's process ended: what it held is gone, and a supervisor restarts it a little later.
    fn down(&mut self, id: NodeId) {
        self.paused.remove(&id);
        self.lose_disk(id);
        self.checker.forget(id);
        if self.config.restarts {
            let after = self.rng.between(1_000_000, 5_000_000);
            self.schedule(self.now + after, Event::Restart(id));
        }
    }

    fn inject(&mut self) {
        let per_tick = INJECT_EVERY as f64 / 1e6;
        let rates = self.config.faults.clone();
        if self.rng.chance(rates.crash_per_s * per_tick) {
            // Never the last running member of a node group: without node restart the group's
            // data would be gone for good.
            let running: BTreeSet<NodeId> = self
                .nodes
                .iter()
                .filter(|(id, n)| self.members.contains(id) && !n.is_starting())
                .map(|(id, _)| *id)
                .collect();
            let candidates: Vec<NodeId> = running
                .iter()
                .copied()
                .filter(|n| {
                    let group = self.layout.groups().iter().find(|g| g.contains(n));
                    group.is_some_and(|g| g.iter().filter(|m| running.contains(m)).count() > 1)
                })
                .collect();
            if !candidates.is_empty() {
                let victim = candidates[self.rng.below(candidates.len() as u64) as usize];
                self.note(|| format!("node {victim} crashes"));
                self.count_fault("node crashed");
                self.nodes.remove(&victim);
                self.crashed.insert(victim);
                self.down(victim);
            }
        }
        if self.cut.is_none() && self.rng.chance(rates.partition_per_s * per_tick) {
            let mut side = BTreeSet::new();
            let everyone: Vec<NodeId> = std::iter::once(ARBITRATOR)
                .chain(self.layout.data_nodes())
                .collect();
            if self.rng.chance(0.4) {
                side.insert(everyone[self.rng.below(everyone.len() as u64) as usize]);
                self.count_fault("node isolated");
            } else {
                for n in everyone {
                    if self.rng.chance(0.5) {
                        side.insert(n);
                    }
                }
                self.count_fault("network partitioned");
            }
            let heal = self.rng.between(300_000, 5_000_000);
            self.note(|| format!("network cut: {side:?} | the rest, for {}", show_time(heal)));
            self.cut = Some(side);
            self.schedule(self.now + heal, Event::Heal);
        }
        if self.rng.chance(rates.slow_per_s * per_tick) {
            let id = self.rng.between(1, u64::from(self.config.data_nodes)) as NodeId;
            let extra = self.rng.between(5_000, 100_000);
            let lasts = self.rng.between(500_000, 5_000_000);
            self.count_fault("node slowed");
            self.slow.insert(id, extra);
            self.schedule(self.now + lasts, Event::Unslow(id));
        }
        if self.rng.chance(rates.pause_per_s * per_tick) {
            let id = self.rng.between(1, u64::from(self.config.data_nodes)) as NodeId;
            // Often past the time the others suspect it, sometimes past `stop_after`.
            let lasts = self.rng.between(200_000, 6_000_000);
            self.count_fault("node paused");
            self.note(|| format!("node {id} pauses for {}", show_time(lasts)));
            self.paused.insert(id, self.now + lasts);
        }
        if self.rng.chance(rates.disk_full_per_s * per_tick) {
            let id = self.rng.between(1, u64::from(self.config.data_nodes)) as NodeId;
            let lasts = self.rng.between(300_000, 4_000_000);
            let until = self.now + lasts;
            if let Some(d) = self.disks.get_mut(&id) {
                d.full_until = until;
                self.count_fault("disk full");
                self.note(|| format!("node {id}'s disk is full for {}", show_time(lasts)));
            }
        }
        if self.arbitrator_up && self.rng.chance(rates.arbitrator_crash_per_s * per_tick) {
            // Its votes are on disk: it comes back with them.
            self.count_fault("arbitrator crashed");
            self.note(|| "arbitrator crashes".into());
            self.arbitrator_up = false;
            let down = self.rng.between(300_000, 4_000_000);
            self.schedule(self.now + down, Event::ArbitratorUp);
        }
    }

    /// Faults stop: the network heals, slow nodes recover, the arbitrator is up.
    fn calm(&mut self) {
        self.cut = None;
        for d in self.disks.values_mut() {
            d.full_until = 0;
        }
        self.slow.clear();
        self.paused.clear();
        self.arbitrator_up = true;
    }

    fn client_next(&mut self, i: usize) {
        if self.now >= self.clients_stop {
            return;
        }
        let keys = self.config.keys;
        let choice = self.rng.below(10);
        let client = &mut self.clients[i];
        client.request += 1;
        let request = client.request;
        let op = if choice < 5 {
            let count = self.rng.between(1, 3);
            let mut picked = BTreeSet::new();
            for _ in 0..count {
                picked.insert(self.rng.below(keys));
            }
            let value = ((i as u64 + 1) << 40) | request;
            let mut ops: Vec<Op> = picked.iter().map(|k| Op::Write(*k, value)).collect();
            if self.rng.chance(0.3) {
                let key = self.rng.below(keys);
                if !picked.contains(&key) {
                    ops.push(Op::Read(key));
                }
            }
            if self.rng.chance(0.3) || self.clients[i].attempt > 0 {
                let target = self.rng.between(1, u64::from(self.config.data_nodes)) as NodeId;
                self.clients[i].target = target;
            }
            ClientOp::Write {
                value,
                keys: picked.into_iter().collect(),
                ops,
            }
        } else {
            let key = self.rng.below(keys);
            ClientOp::Read {
                key,
                backup_ok: choice >= 8,
            }
        };
        let client = &mut self.clients[i];
        let (to, msg) = match &op {
            ClientOp::Write { ops, .. } => (
                client.target,
                Msg::ClientTxn {
                    request,
                    ops: ops.clone(),
                },
            ),
            ClientOp::Read { key, backup_ok } => {
                let replicas = self.layout.replicas(partition_of(&self.layout, *key));
                let to = replicas[(client.attempt as usize) % replicas.len()];
                (
                    to,
                    Msg::ClientRead {
                        request,
                        key: *key,
                        backup_ok: *backup_ok,
                    },
                )
            }
        };
        client.op = Some((op, self.now));
        self.send(CLIENT_BASE + i as NodeId, to, msg);
        self.schedule(self.now + CLIENT_TIMEOUT, Event::ClientTimeout(i, request));
    }

    fn client_reply(&mut self, i: usize, msg: Msg) {
        let Msg::ClientReply { request, reply } = msg else {
            return;
        };
        let client = &mut self.clients[i];
        if client.request != request {
            return;
        }
        let Some((op, invoke)) = client.op.take() else {
            return;
        };
        let now = self.now;
        let mut pause = self.rng.between(0, 2_000);
        match (op, reply) {
            (ClientOp::Write { value, keys, .. }, ClientReply::Committed { reads }) => {
                self.report.commits += 1;
                self.report.quiet_commits += u64::from(invoke >= self.quiet_from);
                self.clients[i].attempt = 0;
                self.checker.writes.push(WriteRecord {
                    value,
                    keys,
                    invoke,
                    complete: now,
                    outcome: Outcome::Committed,
                });
                for (key, result) in reads {
                    self.checker.reads.push(ReadRecord {
                        key,
                        invoke,
                        complete: now,
                        result,
                        primary: true,
                    });
                }
            }
            (ClientOp::Write { value, keys, .. }, ClientReply::Refused(why)) => {
                self.report.refused += 1;
                self.checker.writes.push(WriteRecord {
                    value,
                    keys,
                    invoke,
                    complete: now,
                    outcome: Outcome::Refused,
                });
                if why == Refusal::NotServing {
                    self.clients[i].attempt += 1;
                    pause += 20_000;
                }
            }
            (ClientOp::Read { key, backup_ok }, ClientReply::Value(result)) => {
                self.report.reads += 1;
                self.clients[i].attempt = 0;
                self.checker.reads.push(ReadRecord {
                    key,
                    invoke,
                    complete: now,
                    result,
                    primary: !backup_ok,
                });
            }
            (ClientOp::Read { .. }, _) => {
                self.clients[i].attempt += 1;
                pause += 20_000;
            }
            (ClientOp::Write { .. }, ClientReply::Value(_)) => {
                self.checker
                    .fail(now, "a transaction was answered with a read's value".into());
            }
        }
        self.schedule(now + pause, Event::ClientNext(i));
    }

    fn client_timeout(&mut self, i: usize, request: u64) {
        let client = &mut self.clients[i];
        if client.request != request {
            return;
        }
        let Some((op, invoke)) = client.op.take() else {
            return;
        };
        client.attempt += 1;
        if let ClientOp::Write { value, keys, .. } = op {
            self.report.unknown += 1;
            let record = WriteRecord {
                value,
                keys,
                invoke,
                complete: self.now,
                outcome: Outcome::Unknown,
            };
            self.checker.writes.push(record);
        }
        self.schedule(self.now + 1_000, Event::ClientNext(i));
    }

    fn finish(&mut self) {
        // Every node still running is checked as if the power went now.
        let running: Vec<NodeId> = self.nodes.keys().copied().collect();
        for id in running {
            self.lose_disk(id);
        }
        let finals: Vec<FinalNode> = self
            .nodes
            .values()
            .map(|n| FinalNode {
                id: n.id(),
                view: n.view(),
                ready: n.is_ready(),
                rows: n.participant().rows(),
                prepared: n.participant().prepared_count(),
                starting: n.is_starting(),
            })
            .collect();
        let members: BTreeSet<NodeId> = self
            .nodes
            .iter()
            .filter(|(_, n)| !n.is_starting())
            .map(|(id, _)| *id)
            .collect();
        self.report.cluster_lost = !self.layout.viable(&members);
        let mut failures = std::mem::take(&mut self.checker.failures);
        if failures.is_empty() {
            let settle = self.quiet_from + 5_000_000;
            let progress_from = (self.clients_stop > settle).then_some(settle);
            failures.extend(self.checker.finish(&self.layout, &finals, progress_from));
        }
        failures.truncate(20);
        self.report.failures = failures;
        self.report.digest = self.digest;
        self.report.tail = self.tail.drain(..).collect();
    }
}

/// A stable number for each message kind, for the trace digest.
fn kind_code(msg: &Msg) -> u64 {
    msg.kind()
        .bytes()
        .fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)))
}
