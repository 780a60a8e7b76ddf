//! The checkers: fed every observation and every client's history as the run goes, they fail the
//! run on the first broken property, and check the rest once the cluster is quiet: no
//! acknowledged commit lost, replicas identical, every transaction all or nothing, each key's
//! history linearizable, and progress once faults stop.

use std::collections::{BTreeMap, BTreeSet};

use cluster::{
    partition_of, Epoch, Layout, Membership, NodeId, Observation, PartitionId, Time, Versioned,
    View,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Committed,
    /// Refused: nothing was committed.
    Refused,
    /// No answer in time: it may or may not have committed.
    Unknown,
}

/// A write transaction as its client saw it. `value` is unique to the attempt and written to every
/// key.
#[derive(Clone, Debug)]
pub struct WriteRecord {
    pub value: u64,
    pub keys: Vec<u64>,
    pub invoke: Time,
    pub complete: Time,
    pub outcome: Outcome,
}

/// A read as its client saw it: a committed read, or a locked read inside a committed transaction.
#[derive(Clone, Debug)]
pub struct ReadRecord {
    pub key: u64,
    pub invoke: Time,
    pub complete: Time,
    pub result: Option<Versioned>,
    /// Served by the primary (or under its lock), so it must be linearizable; a READ_BACKUP read
    /// must only never be older than an acknowledged write.
    pub primary: bool,
}

/// A running node at the end of a run.
pub struct FinalNode<'a> {
    pub id: NodeId,
    pub view: &'a View,
    pub ready: bool,
    pub rows: &'a BTreeMap<PartitionId, BTreeMap<u64, Versioned>>,
    pub prepared: usize,
    /// Restarted and not yet a member again.
    pub starting: bool,
}

#[derive(Default)]
pub struct Checker {
    views: BTreeMap<Epoch, Membership>,
    /// Per key, each version's value and the replicas that applied it.
    versions: BTreeMap<u64, BTreeMap<u64, (u64, BTreeSet<NodeId>)>>,
    /// The members of the newest view installed: a replica outside it no longer counts.
    members: BTreeSet<NodeId>,
    newest: Epoch,
    pub writes: Vec<WriteRecord>,
    pub reads: Vec<ReadRecord>,
    pub failures: Vec<String>,
}

impl Checker {
    pub fn fail(&mut self, now: Time, what: String) {
        if self.failures.len() < 20 {
            self.failures.push(format!("at {}: {what}", show_time(now)));
        }
    }

    pub fn observe(&mut self, now: Time, observation: &Observation) {
        match observation {
            Observation::Installed { node, view } => {
                if view.epoch > self.newest {
                    self.newest = view.epoch;
                    self.members = view.members.clone();
                }
                self.installed(now, *node, view)
            }
            Observation::Applied { node, applied } => {
                let members = &self.members;
                let versions = self.versions.entry(applied.key).or_default();
                let mut diverged = None;
                match versions.get_mut(&applied.version) {
                    Some((value, _)) if *value == applied.value => {}
                    Some((value, appliers)) => {
                        // A replica dropped from the view may hold commits the takeover rolled
                        // back: only members of the newest view must agree.
                        if appliers.iter().all(|a| !members.contains(a)) {
                            *value = applied.value;
                            appliers.clear();
                        } else if members.contains(node) {
                            diverged = Some(*value);
                        }
                    }
                    None => {
                        versions.insert(applied.version, (applied.value, BTreeSet::new()));
                    }
                }
                if let Some((_, appliers)) = versions.get_mut(&applied.version) {
                    if appliers.is_empty() || diverged.is_none() {
                        appliers.insert(*node);
                    }
                }
                if let Some(value) = diverged {
                    let what = format!(
                        "replicas diverge: key {} version {} is {value} on one replica and {} on node {node}",
                        applied.key, applied.version, applied.value
                    );
                    self.fail(now, what);
                }
            }
            Observation::Violation { node, what } => self.fail(now, format!("node {node}: {what}")),
            Observation::Opened { .. }
            | Observation::Saved { .. }
            | Observation::Durable { .. } => {}
        }
    }

    fn installed(&mut self, now: Time, node: NodeId, view: &View) {
        let membership = view.membership();
        match self.views.get(&view.epoch) {
            Some(other) if *other != membership => {
                let what = format!(
                    "two views for epoch {}: {:?} and {:?} (installed by node {node})",
                    view.epoch, other.members, view.members
                );
                self.fail(now, what);
            }
            Some(_) => {}
            None => {
                self.views.insert(view.epoch, membership);
            }
        }
    }

    /// A node crashed or stopped: what it applied is gone with it (a restart copies rows anew).
    pub fn forget(&mut self, node: NodeId) {
        for versions in self.versions.values_mut() {
            for (_, appliers) in versions.values_mut() {
                appliers.remove(&node);
            }
        }
    }

    /// The version a write got on a key, if any replica applied it.
    fn version_of(&self, key: u64, value: u64) -> Option<u64> {
        self.versions
            .get(&key)?
            .iter()
            .find(|(_, (v, _))| *v == value)
            .map(|(version, _)| *version)
    }

    /// The end-of-run checks over the nodes still running.
    pub fn finish(
        &mut self,
        layout: &Layout,
        nodes: &[FinalNode],
        progress_from: Option<Time>,
    ) -> Vec<String> {
        let mut failures = Vec::new();
        let newest = nodes.iter().map(|n| n.view.epoch).max().unwrap_or(0);
        let current: Vec<&FinalNode> = nodes.iter().filter(|n| n.view.epoch == newest).collect();
        // Replicas (the members of the newest view) converge.
        let holders = |partition| -> Vec<&&FinalNode> {
            current
                .iter()
                .filter(|n| n.view.serving(layout, partition).contains(&n.id))
                .collect()
        };
        let empty = BTreeMap::new();
        for partition in 0..layout.partition_count() {
            let holders = holders(partition);
            let rows: Vec<&BTreeMap<u64, Versioned>> = holders
                .iter()
                .map(|n| n.rows.get(&partition).unwrap_or(&empty))
                .collect();
            if rows.windows(2).any(|w| w[0] != w[1]) {
                failures.push(format!(
                    "partition {partition}: replicas {:?} differ",
                    holders.iter().map(|n| n.id).collect::<Vec<_>>()
                ));
            }
        }
        // A write took effect on a key if its version is still its value's and the key's row has
        // reached that version (a restarted replica copies rows, not their history).
        let final_version = |key: u64| -> Option<u64> {
            let partition = partition_of(layout, key);
            let holder = holders(partition).into_iter().next()?;
            Some(
                holder
                    .rows
                    .get(&partition)
                    .and_then(|r| r.get(&key))
                    .map_or(0, |v| v.version),
            )
        };
        for w in &self.writes {
            let mut took = 0;
            let mut known = 0;
            for &key in &w.keys {
                let Some(at) = final_version(key) else {
                    continue;
                };
                known += 1;
                if self.version_of(key, w.value).is_some_and(|v| v <= at) {
                    took += 1;
                }
            }
            if known < w.keys.len() {
                continue;
            }
            if w.outcome == Outcome::Committed && took != w.keys.len() {
                failures.push(format!(
                    "acknowledged commit lost: value {} keys {:?} (acknowledged at {})",
                    w.value,
                    w.keys,
                    show_time(w.complete)
                ));
            } else if took > 0 && took != w.keys.len() {
                failures.push(format!(
                    "transaction partly committed: value {} keys {:?} ({took} of them)",
                    w.value, w.keys
                ));
            } else if w.outcome == Outcome::Refused && took > 0 {
                failures.push(format!(
                    "refused transaction committed: value {} keys {:?}",
                    w.value, w.keys
                ));
            }
        }
        failures.extend(self.linearizable());
        // Progress once faults stop, when enough of the cluster is left to make any.
        let running: BTreeSet<NodeId> = current
            .iter()
            .filter(|n| !n.starting)
            .map(|n| n.id)
            .collect();
        if layout.viable(&running) {
            for n in nodes.iter().filter(|n| n.view.epoch != newest) {
                failures.push(format!(
                    "node {} still runs in epoch {} while others are in {newest}",
                    n.id, n.view.epoch
                ));
            }
            for n in &current {
                if n.starting {
                    failures.push(format!("node {} is still starting when quiet", n.id));
                }
                if !n.ready {
                    failures.push(format!(
                        "node {} never opened view {newest} after faults stopped",
                        n.id
                    ));
                }
                if n.prepared > 0 {
                    failures.push(format!(
                        "node {} still holds {} prepared transactions when quiet",
                        n.id, n.prepared
                    ));
                }
            }
            if let Some(from) = progress_from {
                if !self
                    .writes
                    .iter()
                    .any(|w| w.outcome == Outcome::Committed && w.invoke >= from)
                {
                    failures.push(format!(
                        "no commit begun after {} though faults had stopped",
                        show_time(from)
                    ));
                }
            }
        }
        failures
    }

    /// Per key: acknowledged writes take versions in real-time order; a primary (or locked) read
    /// sees at least every write acknowledged and every primary read finished before it began,
    /// and a version really written with that value by a write begun before it ended; a
    /// READ_BACKUP read is never older than a write acknowledged before it began.
    pub fn linearizable(&self) -> Vec<String> {
        let mut failures = Vec::new();
        let mut acked: BTreeMap<u64, Vec<(Time, u64)>> = BTreeMap::new();
        let mut acked_writes: BTreeMap<u64, Vec<(Time, u64)>> = BTreeMap::new(); // (invoke, version)
        let mut writer_invoke: BTreeMap<(u64, u64), Time> = BTreeMap::new();
        for w in &self.writes {
            for &key in &w.keys {
                let Some(version) = self.version_of(key, w.value) else {
                    continue;
                };
                writer_invoke.insert((key, version), w.invoke);
                if w.outcome == Outcome::Committed {
                    acked.entry(key).or_default().push((w.complete, version));
                    acked_writes
                        .entry(key)
                        .or_default()
                        .push((w.invoke, version));
                }
            }
        }
        let mut finished = acked.clone();
        for r in self.reads.iter().filter(|r| r.primary) {
            finished
                .entry(r.key)
                .or_default()
                .push((r.complete, r.result.map_or(0, |v| v.version)));
        }
        for list in acked.values_mut().chain(finished.values_mut()) {
            list.sort_unstable();
            let mut top = 0;
            for entry in list.iter_mut() {
                top = top.max(entry.1);
                entry.1 = top;
            }
        }
        // The highest version in a prefix-maxed list among entries finished before `t`.
        let floor = |lists: &BTreeMap<u64, Vec<(Time, u64)>>, key: u64, t: Time| -> u64 {
            let Some(list) = lists.get(&key) else {
                return 0;
            };
            match list.partition_point(|(done, _)| *done < t) {
                0 => 0,
                n => list[n - 1].1,
            }
        };
        for (key, writes) in &acked_writes {
            for &(invoke, version) in writes {
                let before = floor(&acked, *key, invoke);
                if version <= before {
                    failures.push(format!(
                        "key {key}: a write begun at {} got version {version}, not after version {before} acknowledged before it began",
                        show_time(invoke)
                    ));
                }
            }
        }
        for r in &self.reads {
            let version = r.result.map_or(0, |v| v.version);
            if let Some(v) = r.result {
                if self
                    .versions
                    .get(&r.key)
                    .and_then(|vs| vs.get(&v.version))
                    .map(|(value, _)| *value)
                    != Some(v.value)
                {
                    failures.push(format!(
                        "read of key {} returned {v:?}, which no write made",
                        r.key
                    ));
                }
                if writer_invoke
                    .get(&(r.key, v.version))
                    .is_some_and(|invoke| *invoke > r.complete)
                {
                    failures.push(format!(
                        "read of key {} saw version {} before its write began",
                        r.key, v.version
                    ));
                }
            }
            let least = if r.primary {
                floor(&finished, r.key, r.invoke)
            } else {
                floor(&acked, r.key, r.invoke)
            };
            if version < least {
                failures.push(format!(
                    "key {}: a {} read begun at {} saw version {version}, older than version {least} finished before it",
                    r.key,
                    if r.primary { "primary" } else { "READ_BACKUP" },
                    show_time(r.invoke)
                ));
            }
            if failures.len() > 20 {
                break;
            }
        }
        failures
    }
}

/// Simulated time as seconds with microseconds.
pub fn show_time(t: Time) -> String {
    format!("{}.{:06}s", t / 1_000_000, t % 1_000_000)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cluster::{Applied, TxnId};

    fn applied(checker: &mut Checker, key: u64, value: u64, version: u64) {
        let applied = Applied {
            partition: 0,
            key,
            txn: TxnId {
                coordinator: 1,
                seq: value,
            },
            value,
            version,
            gci: 1,
        };
        checker.observe(0, &Observation::Applied { node: 1, applied });
    }

    fn write(value: u64, invoke: Time, complete: Time) -> WriteRecord {
        WriteRecord {
            value,
            keys: vec![7],
            invoke,
            complete,
            outcome: Outcome::Committed,
        }
    }

    fn read(invoke: Time, complete: Time, value: u64, version: u64) -> ReadRecord {
        let result = (version > 0).then_some(Versioned { value, version });
        ReadRecord {
            key: 7,
            invoke,
            complete,
            result,
            primary: true,
        }
    }

    #[test]
    fn a_good_history_passes() {
        let mut c = Checker::default();
        applied(&mut c, 7, 100, 1);
        applied(&mut c, 7, 200, 2);
        c.writes = vec![write(100, 0, 10), write(200, 20, 30)];
        c.reads = vec![read(5, 8, 0, 0), read(12, 14, 100, 1), read(25, 40, 200, 2)];
        assert_eq!(c.linearizable(), Vec::<String>::new());
    }

    #[test]
    fn a_stale_read_fails() {
        let mut c = Checker::default();
        applied(&mut c, 7, 100, 1);
        applied(&mut c, 7, 200, 2);
        c.writes = vec![write(100, 0, 10), write(200, 20, 30)];
        c.reads = vec![read(35, 40, 100, 1)];
        assert_eq!(c.linearizable().len(), 1);
    }

    #[test]
    fn a_read_going_back_fails() {
        let mut c = Checker::default();
        applied(&mut c, 7, 100, 1);
        c.writes = vec![WriteRecord {
            outcome: Outcome::Unknown,
            ..write(100, 0, 50)
        }];
        c.reads = vec![read(5, 8, 100, 1), read(10, 12, 0, 0)];
        assert_eq!(c.linearizable().len(), 1);
    }

    #[test]
    fn a_read_from_the_future_or_of_nothing_fails() {
        let mut c = Checker::default();
        applied(&mut c, 7, 100, 1);
        c.writes = vec![write(100, 20, 30)];
        c.reads = vec![read(5, 8, 100, 1), read(40, 41, 999, 1)];
        assert_eq!(c.linearizable().len(), 2);
    }

    #[test]
    fn writes_out_of_real_time_order_fail() {
        let mut c = Checker::default();
        applied(&mut c, 7, 200, 1);
        applied(&mut c, 7, 100, 2);
        c.writes = vec![write(100, 0, 10), write(200, 20, 30)];
        assert_eq!(c.linearizable().len(), 1);
    }

    #[test]
    fn two_views_for_one_epoch_fail() {
        let mut c = Checker::default();
        let view = |members: &[NodeId]| View {
            epoch: 2,
            members: members.iter().copied().collect(),
            starting: BTreeSet::new(),
        };
        c.observe(
            0,
            &Observation::Installed {
                node: 1,
                view: view(&[1, 2]),
            },
        );
        c.observe(
            0,
            &Observation::Installed {
                node: 3,
                view: view(&[3, 4]),
            },
        );
        assert_eq!(c.failures.len(), 1);
    }
}
