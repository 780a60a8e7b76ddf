//! The simulated disks: each data node's redo log as the records it wrote and how many of them an
//! fsync made durable; what a crash keeps (every durable record and a prefix of the others, the
//! last of which may be torn, so recovery drops it); and the state a log restores at a global
//! checkpoint, which the checkers compare.

use std::collections::{BTreeMap, BTreeSet};

use cluster::{Gci, PartitionId, Record, Time};

use crate::rng::Rng;

/// A restored state: per partition and key, the version and value.
pub type State = BTreeMap<(PartitionId, u64), (u64, u64)>;

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

/// The state `records` restore at checkpoint `gci`, for `partitions`: per key, the newest version
/// among the writes of checkpoints up to `gci` and the copies taken at or before it.
pub fn restore(records: &[Record], gci: Gci, partitions: &BTreeSet<PartitionId>) -> State {
    let mut state = State::new();
    let mut keep = |partition: PartitionId, key: u64, version: u64, value: u64| {
        let slot = state.entry((partition, key)).or_insert((0, 0));
        if version > slot.0 {
            *slot = (version, value);
        }
    };
    for record in records {
        match record {
            Record::Write(a) if a.gci <= gci && partitions.contains(&a.partition) => {
                keep(a.partition, a.key, a.version, a.value)
            }
            Record::Copy {
                partition,
                rows,
                gci: at,
            } if *at <= gci && partitions.contains(partition) => {
                for (key, row) in rows {
                    keep(*partition, *key, row.version, row.value);
                }
            }
            _ => {}
        }
    }
    state
}

/// The newest checkpoint a log says it saved.
pub fn saved(records: &[Record]) -> Gci {
    records
        .iter()
        .filter_map(|r| match r {
            Record::Saved { gci } => Some(*gci),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// The first difference between two states, for a failure message.
pub fn difference(expected: &State, got: &State) -> Option<String> {
    let keys: BTreeSet<&(PartitionId, u64)> = expected.keys().chain(got.keys()).collect();
    keys.into_iter().find_map(|k| {
        let (e, g) = (expected.get(k), got.get(k));
        (e != g).then(|| {
            format!(
                "partition {} key {}: expected (version, value) {e:?}, restored {g:?}",
                k.0, k.1
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use cluster::{Applied, TxnId, Versioned};

    fn write(key: u64, version: u64, gci: Gci) -> Record {
        Record::Write(Applied {
            partition: 0,
            key,
            txn: TxnId {
                coordinator: 1,
                seq: version,
            },
            value: version * 10,
            version,
            gci,
        })
    }

    #[test]
    fn a_log_restores_the_newest_version_up_to_the_checkpoint() {
        let records = vec![
            Record::Copy {
                partition: 0,
                rows: vec![(
                    1,
                    Versioned {
                        value: 10,
                        version: 1,
                    },
                )],
                gci: 2,
            },
            write(1, 2, 3),
            write(2, 1, 2),
            write(1, 3, 5),
            Record::Saved { gci: 3 },
        ];
        let all: BTreeSet<PartitionId> = [0].into();
        let at3 = restore(&records, 3, &all);
        assert_eq!(at3[&(0, 1)], (2, 20));
        assert_eq!(at3[&(0, 2)], (1, 10));
        assert_eq!(restore(&records, 5, &all)[&(0, 1)], (3, 30));
        assert!(restore(&records, 1, &all).is_empty());
        assert_eq!(saved(&records), 3);
    }

    #[test]
    fn a_crash_keeps_the_durable_records_and_a_prefix_of_the_rest() {
        let mut disk = Disk::default();
        for v in 1..=10 {
            disk.append(write(1, v, 1));
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
