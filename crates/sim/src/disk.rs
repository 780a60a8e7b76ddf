//! The simulated disks: each data node's redo log as the records it wrote and how many of them an
//! fsync made durable; what a crash keeps (every durable record and a prefix of the others, the
//! last of which may be torn, so recovery drops it). What a log restores at a global checkpoint
//! is `cluster::log`'s, as for the real runtime's files.

use std::collections::{BTreeMap, BTreeSet};

use cluster::log::{difference, restore, State};
use cluster::{Gci, NodeId, PartitionId, Record, Time};

use crate::rng::Rng;

#[derive(Debug, Default)]
pub struct Disk {
    records: Vec<Record>,
    /// Records before this index are on disk.
    durable: usize,
    /// The newest checkpoint the node said it saved, and the partitions the claim covers.
    claim: Option<(Gci, BTreeSet<PartitionId>)>,
    /// No space until then.
    pub full_until: Time,
}

/// What a crash left of a log.
pub struct Survivors {
    pub records: Vec<Record>,
    /// Written but not durable records lost.
    pub lost: usize,
    /// The last record that reached the disk was torn (recovery drops it by its checksum).
    pub torn: bool,
}

impl Disk {
    pub fn append(&mut self, record: Record) {
        self.records.push(record);
    }

    /// How many records are written: an fsync begun now covers them.
    pub fn written(&self) -> usize {
        self.records.len()
    }

    /// An fsync that covers the first `upto` records ended.
    pub fn synced(&mut self, upto: usize) {
        self.durable = self.durable.max(upto.min(self.records.len()));
    }

    pub fn claim(&mut self, gci: Gci, partitions: BTreeSet<PartitionId>) {
        if self.claim.as_ref().is_none_or(|(g, _)| *g <= gci) {
            self.claim = Some((gci, partitions));
        }
    }

    pub fn claimed(&self) -> Option<&(Gci, BTreeSet<PartitionId>)> {
        self.claim.as_ref()
    }

    /// Every record written, durable or not: what the node's memory held.
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// The process died: the durable records stay, and of the rest a random prefix reached the
    /// disk, its last record possibly torn.
    pub fn crash(&self, rng: &mut Rng) -> Survivors {
        let pending = self.records.len() - self.durable;
        let mut kept = rng.below(pending as u64 + 1) as usize;
        let torn = kept > 0 && kept < pending && rng.chance(0.5);
        if torn {
            kept -= 1;
        }
        Survivors {
            records: self.records[..self.durable + kept].to_vec(),
            lost: pending - kept,
            torn,
        }
    }
}

/// What each checkpoint restores per partition on the first node that said it saved it: every
/// other node that says so must restore the same (the simulator's disks and the real-process
/// tests' redo files are held to it alike).
#[derive(Debug, Default)]
pub struct SavedStates {
    first: BTreeMap<(PartitionId, Gci), (NodeId, State)>,
}

impl SavedStates {
    /// `node`, whose log is `records`, said it saved `gci` for `partitions`: the differences
    /// from the first node that said so, as failure messages.
    pub fn check(
        &mut self,
        node: NodeId,
        gci: Gci,
        partitions: &[PartitionId],
        records: &[Record],
    ) -> Vec<String> {
        let mut failures = Vec::new();
        for p in partitions {
            let state = restore(records, gci, &[*p].into());
            match self.first.get(&(*p, gci)) {
                None => {
                    self.first.insert((*p, gci), (node, state));
                }
                Some((other, expected)) => {
                    if let Some(diff) = difference(expected, &state) {
                        failures.push(format!(
                            "node {node} saved checkpoint {gci} with other commits than node {other}, which saved it before: {diff}"
                        ));
                    }
                }
            }
        }
        failures
    }

    /// No node saved any checkpoint.
    pub fn is_empty(&self) -> bool {
        self.first.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crash_keeps_the_durable_records_and_a_prefix_of_the_rest() {
        let mut disk = Disk::default();
        for v in 1..=10 {
            disk.append(Record::Saved { gci: v });
        }
        disk.synced(4);
        for seed in 0..50 {
            let mut rng = Rng::new(seed);
            let s = disk.crash(&mut rng);
            assert!(s.records.len() >= 4, "seed {seed}");
            assert_eq!(s.records.len() + s.lost, 10, "seed {seed}");
            assert_eq!(s.records[..], disk.records()[..s.records.len()]);
        }
    }
}
