//! A data node's replicas: the committed rows of the partitions it holds, the row locks it keeps
//! as primary, the transactions prepared on it and the commits it must remember until the
//! coordinator says every replica has them. Knows nothing of views or messages.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::layout::{Epoch, NodeId, PartitionId, Time};
use crate::msg::{Gci, Op, TxnId, Versioned};

/// A commit applied to one key: what the simulator's checkers observe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    pub partition: PartitionId,
    pub key: u64,
    pub txn: TxnId,
    pub value: u64,
    pub version: u64,
    /// The global checkpoint of the transaction.
    pub gci: Gci,
}

#[derive(Debug)]
struct Pending {
    ops: Vec<Op>,
    /// Whether this replica took the keys' locks (it is the primary).
    locked: bool,
    answer: Prepared,
    since: Time,
}

/// A primary's answer to a prepare: the locked reads' values, and the version each written key
/// will have once committed. A backup answers with neither.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prepared {
    pub reads: Vec<(u64, Option<Versioned>)>,
    pub versions: Vec<(u64, u64)>,
    /// The primary's global checkpoint (the node fills it in).
    pub gci: Gci,
}

/// What a replica knows of one transaction on one of its partitions. Finished transactions are
/// remembered until their coordinator says every transaction before a later one is finished (its
/// watermark), so a prepare or commit that arrives late, or twice, is recognised and never
/// applies anything a second time.
#[derive(Debug)]
enum State {
    Prepared(Pending),
    /// Committed here; `completed` once the coordinator said every replica has it.
    Committed {
        completed: bool,
        keys: Vec<u64>,
        gci: Gci,
    },
    Aborted,
}

#[derive(Debug)]
struct Record {
    epoch: Epoch,
    state: State,
}

/// A backup's commit not yet completed: its transaction and epoch, and the key's value before it.
type Uncompleted = (TxnId, Epoch, Option<Versioned>);

/// Why a prepare was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum PrepareError {
    Locked,
    /// The transaction was aborted here already (its abort may come before its prepare), or its
    /// coordinator has finished it.
    Finished,
}

#[derive(Debug, Default)]
pub struct Participant {
    data: BTreeMap<PartitionId, BTreeMap<u64, Versioned>>,
    locks: BTreeMap<(PartitionId, u64), TxnId>,
    records: BTreeMap<(TxnId, PartitionId), Record>,
    /// Per coordinator, the sequence number below which it has finished every transaction.
    watermarks: BTreeMap<NodeId, u64>,
    /// Per key on a backup, its commits not yet completed, oldest first, each with the value
    /// before it. A backup commits before the primary; if it died with the coordinator before any
    /// other replica committed, the takeover would roll the commit back, so a READ_BACKUP read
    /// answers the value before the oldest of them (the client's answer waits for Complete, so it
    /// still reads its own writes).
    uncompleted: BTreeMap<(PartitionId, u64), VecDeque<Uncompleted>>,
    /// Partitions this replica is copying from their primary after a restart.
    copying: BTreeSet<PartitionId>,
}

impl Participant {
    /// Prepares the transaction's operations on one partition. The primary locks every key (and
    /// refuses if another transaction holds one) and answers the locked reads; a backup only keeps
    /// the operations. Repeating a prepare answers as the first time.
    pub fn prepare(
        &mut self,
        now: Time,
        epoch: Epoch,
        txn: TxnId,
        partition: PartitionId,
        ops: Vec<Op>,
        primary: bool,
    ) -> Result<Prepared, PrepareError> {
        match self.records.get(&(txn, partition)).map(|r| &r.state) {
            Some(State::Prepared(p)) => return Ok(p.answer.clone()),
            Some(State::Committed { .. }) => return Ok(Prepared::default()),
            Some(State::Aborted) => return Err(PrepareError::Finished),
            None if self.finished(txn) => return Err(PrepareError::Finished),
            None => {}
        }
        if primary {
            let taken = ops.iter().any(|op| {
                self.locks
                    .get(&(partition, op.key()))
                    .is_some_and(|holder| *holder != txn)
            });
            if taken {
                return Err(PrepareError::Locked);
            }
            for op in &ops {
                self.locks.insert((partition, op.key()), txn);
            }
        }
        let rows = self.data.get(&partition);
        let current = |key: &u64| rows.and_then(|r| r.get(key)).copied();
        let mut answer = Prepared::default();
        if primary {
            // The primary holds the keys' locks until it commits, so it alone knows the version
            // each write will make; every replica applies exactly that version.
            for op in &ops {
                match op {
                    Op::Read(key) => answer.reads.push((*key, current(key))),
                    Op::Write(key, _) if !answer.versions.iter().any(|(k, _)| k == key) => {
                        answer
                            .versions
                            .push((*key, current(key).map_or(0, |v| v.version) + 1));
                    }
                    Op::Write(..) => {}
                }
            }
        }
        let prepared = Pending {
            ops,
            locked: primary,
            answer: answer.clone(),
            since: now,
        };
        self.records.insert(
            (txn, partition),
            Record {
                epoch,
                state: State::Prepared(prepared),
            },
        );
        Ok(answer)
    }

    fn finished(&self, txn: TxnId) -> bool {
        self.watermarks
            .get(&txn.coordinator)
            .is_some_and(|w| txn.seq < *w)
    }

    /// Applies a prepared transaction's writes on one partition, at the versions the primary
    /// named (or, in a takeover's commit, each key's next), and releases its locks. A commit of a
    /// transaction not prepared here (a duplicate, or one whose prepare never arrived) does
    /// nothing. A replica catching up (`copying`) keeps whichever of its row and the commit's is
    /// newer; any other replica must be at the version just before, or replicas have applied
    /// commits in different orders: an error.
    pub fn commit(
        &mut self,
        txn: TxnId,
        partition: PartitionId,
        versions: &[(u64, u64)],
        gci: Gci,
    ) -> Result<Vec<Applied>, String> {
        let Some(record) = self.records.get_mut(&(txn, partition)) else {
            return Ok(Vec::new());
        };
        let State::Prepared(p) = &record.state else {
            return Ok(Vec::new());
        };
        // The last write to each key is the one that counts.
        let mut writes: Vec<(u64, u64)> = Vec::new();
        for op in &p.ops {
            if let Op::Write(key, value) = *op {
                writes.retain(|(k, _)| *k != key);
                writes.push((key, value));
            }
        }
        let keys: Vec<u64> = writes.iter().map(|(k, _)| *k).collect();
        let epoch = record.epoch;
        let State::Prepared(p) = std::mem::replace(
            &mut record.state,
            State::Committed {
                completed: false,
                keys,
                gci,
            },
        ) else {
            return Ok(Vec::new());
        };
        self.release(txn, partition, &p);
        let copying = self.copying.contains(&partition);
        let rows = self.data.entry(partition).or_default();
        let mut applied = Vec::new();
        for (key, value) in writes {
            let before = rows.get(&key).copied();
            let next = before.map_or(0, |v| v.version) + 1;
            let version = versions
                .iter()
                .find(|(k, _)| *k == key)
                .map_or(next, |(_, v)| *v);
            if copying {
                if version < next {
                    continue;
                }
            } else if version != next {
                return Err(format!(
                    "partition {partition} key {key}: commit of {txn:?} makes version {version}, but this replica is at {}",
                    next - 1
                ));
            }
            rows.insert(key, Versioned { value, version });
            applied.push(Applied {
                partition,
                key,
                txn,
                value,
                version,
                gci,
            });
            if !p.locked {
                self.uncompleted
                    .entry((partition, key))
                    .or_default()
                    .push_back((txn, epoch, before));
            }
        }
        Ok(applied)
    }

    /// Drops a prepared transaction on one partition and releases its locks; an abort that comes
    /// before its prepare is remembered, so the prepare is refused.
    pub fn abort(&mut self, epoch: Epoch, txn: TxnId, partition: PartitionId) {
        let finished = self.finished(txn);
        match self.records.get_mut(&(txn, partition)) {
            Some(record) => {
                if let State::Prepared(_) = record.state {
                    if let State::Prepared(p) = std::mem::replace(&mut record.state, State::Aborted)
                    {
                        self.release(txn, partition, &p);
                    }
                }
            }
            None if !finished => {
                self.records.insert(
                    (txn, partition),
                    Record {
                        epoch,
                        state: State::Aborted,
                    },
                );
            }
            None => {}
        }
    }

    /// Notes that every replica has a commit.
    pub fn complete(&mut self, txn: TxnId, partition: PartitionId) {
        if let Some(Record {
            state: State::Committed {
                completed, keys, ..
            },
            ..
        }) = self.records.get_mut(&(txn, partition))
        {
            *completed = true;
            for key in keys.iter() {
                if let Some(list) = self.uncompleted.get_mut(&(partition, *key)) {
                    // Commits before it on this key are on every replica too: the primary took
                    // them, one after another, only once every backup had.
                    if let Some(at) = list.iter().position(|(t, _, _)| *t == txn) {
                        list.drain(..=at);
                    }
                    if list.is_empty() {
                        self.uncompleted.remove(&(partition, *key));
                    }
                }
            }
        }
    }

    /// The coordinator has finished every transaction below `watermark`: forgets their records.
    pub fn advance(&mut self, coordinator: NodeId, watermark: u64) {
        let w = self.watermarks.entry(coordinator).or_insert(0);
        if watermark <= *w {
            return;
        }
        *w = watermark;
        self.records.retain(|(txn, _), r| {
            txn.coordinator != coordinator
                || txn.seq >= watermark
                || matches!(
                    r.state,
                    State::Prepared(_)
                        | State::Committed {
                            completed: false,
                            ..
                        }
                )
        });
    }

    fn release(&mut self, txn: TxnId, partition: PartitionId, p: &Pending) {
        if p.locked {
            for op in &p.ops {
                if self.locks.get(&(partition, op.key())) == Some(&txn) {
                    self.locks.remove(&(partition, op.key()));
                }
            }
        }
    }

    /// The transactions of epochs before `epoch` prepared here and not decided, and those
    /// committed here: what a view's takeover needs from this replica.
    pub fn in_doubt(&self, epoch: Epoch) -> (Vec<TxnId>, Vec<(TxnId, Gci)>) {
        let mut prepared = BTreeSet::new();
        let mut committed = BTreeSet::new();
        for ((txn, _), r) in self.records.range(..) {
            if r.epoch < epoch {
                match r.state {
                    State::Prepared(_) => prepared.insert(*txn),
                    State::Committed { gci, .. } => committed.insert((*txn, gci)),
                    State::Aborted => false,
                };
            }
        }
        (
            prepared.into_iter().collect(),
            committed.into_iter().collect(),
        )
    }

    /// Applies a takeover's decisions to every partition a transaction was prepared on here;
    /// each commit in the global checkpoint its replicas or coordinator gave it.
    pub fn resolve(
        &mut self,
        epoch: Epoch,
        commit: &[(TxnId, Gci)],
        abort: &[TxnId],
    ) -> Result<Vec<Applied>, String> {
        let mut applied = Vec::new();
        let prepared: Vec<(TxnId, PartitionId)> = self
            .records
            .iter()
            .filter(|(_, r)| matches!(r.state, State::Prepared(_)))
            .map(|(k, _)| *k)
            .collect();
        for (txn, partition) in prepared {
            if let Ok(at) = commit.binary_search_by_key(&txn, |(t, _)| *t) {
                applied.extend(self.commit(txn, partition, &[], commit[at].1)?);
            } else if abort.binary_search(&txn).is_ok() {
                self.abort(epoch, txn, partition);
            }
        }
        Ok(applied)
    }

    /// Forgets finished transactions of epochs before `epoch`, once every member applied that
    /// view's takeover. Returns the prepared transactions of older epochs still here: there must
    /// be none.
    pub fn open_epoch(&mut self, epoch: Epoch) -> Vec<TxnId> {
        self.records
            .retain(|_, r| r.epoch >= epoch || matches!(r.state, State::Prepared(_)));
        // Every member applied the takeover: older commits can no longer be rolled back.
        self.uncompleted.retain(|_, list| {
            list.retain(|(_, e, _)| *e >= epoch);
            !list.is_empty()
        });
        self.records
            .iter()
            .filter(|(_, r)| r.epoch < epoch)
            .map(|((t, _), _)| *t)
            .collect()
    }

    /// Prepared transactions of `epoch` older than `before`: their coordinator is asked about them.
    pub fn stale_prepared(&self, epoch: Epoch, before: Time) -> Vec<(TxnId, PartitionId)> {
        self.records
            .iter()
            .filter(|(_, r)| {
                r.epoch == epoch && matches!(&r.state, State::Prepared(p) if p.since < before)
            })
            .map(|(k, _)| *k)
            .collect()
    }

    /// Drops everything held for `partitions` and starts copying them: a restarted node, or one
    /// whose copy a view change interrupted, takes them afresh from their primaries.
    pub fn start_copy(&mut self, partitions: &BTreeSet<PartitionId>) {
        for p in partitions {
            self.data.remove(p);
        }
        self.records.retain(|(_, p), _| !partitions.contains(p));
        self.locks.retain(|(p, _), _| !partitions.contains(p));
        self.uncompleted.retain(|(p, _), _| !partitions.contains(p));
        self.copying = partitions.clone();
    }

    /// A partition's committed rows, for a starting replica.
    pub fn snapshot(&self, partition: PartitionId) -> Vec<(u64, Versioned)> {
        self.data
            .get(&partition)
            .map(|rows| rows.iter().map(|(k, v)| (*k, *v)).collect())
            .unwrap_or_default()
    }

    /// Takes a primary's copy of a partition: each row unless this replica already has it at a
    /// newer version (a commit that reached it after the copy was read). The partition is then
    /// a full replica.
    pub fn merge_copy(&mut self, partition: PartitionId, rows: Vec<(u64, Versioned)>) {
        let mine = self.data.entry(partition).or_default();
        for (key, row) in rows {
            if mine.get(&key).is_none_or(|v| v.version < row.version) {
                mine.insert(key, row);
            }
        }
        self.copying.remove(&partition);
    }

    /// A committed read on the primary.
    pub fn read(&self, partition: PartitionId, key: u64) -> Option<Versioned> {
        self.data
            .get(&partition)
            .and_then(|rows| rows.get(&key))
            .copied()
    }

    /// A committed read on a backup (READ_BACKUP): the newest value no takeover can roll back.
    pub fn read_backup(&self, partition: PartitionId, key: u64) -> Option<Versioned> {
        match self
            .uncompleted
            .get(&(partition, key))
            .and_then(|list| list.front())
        {
            Some((_, _, before)) => *before,
            None => self.read(partition, key),
        }
    }

    /// Every partition's rows, for the checkers' convergence test.
    pub fn rows(&self) -> &BTreeMap<PartitionId, BTreeMap<u64, Versioned>> {
        &self.data
    }

    /// How many transactions are prepared here.
    pub fn prepared_count(&self) -> usize {
        self.records
            .values()
            .filter(|r| matches!(r.state, State::Prepared(_)))
            .count()
    }

    /// How many finished transactions this replica still remembers.
    pub fn remembered(&self) -> usize {
        self.records.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T1: TxnId = TxnId {
        coordinator: 1,
        seq: 1,
    };
    const T2: TxnId = TxnId {
        coordinator: 2,
        seq: 1,
    };

    #[test]
    fn the_primary_locks_and_a_backup_does_not() {
        let mut primary = Participant::default();
        assert!(primary
            .prepare(0, 1, T1, 0, vec![Op::Write(5, 10)], true)
            .is_ok());
        assert_eq!(
            primary.prepare(0, 1, T2, 0, vec![Op::Read(5)], true),
            Err(PrepareError::Locked)
        );
        let applied = primary.commit(T1, 0, &[(5, 1)], 1).unwrap();
        assert_eq!(applied[0].version, 1);
        let answer = primary
            .prepare(0, 1, T2, 0, vec![Op::Read(5), Op::Write(5, 12)], true)
            .unwrap();
        assert_eq!(
            answer.reads,
            vec![(
                5,
                Some(Versioned {
                    value: 10,
                    version: 1
                })
            )]
        );
        assert_eq!(answer.versions, vec![(5, 2)]);
        let mut backup = Participant::default();
        backup
            .prepare(0, 1, T1, 0, vec![Op::Write(5, 10)], false)
            .unwrap();
        backup
            .prepare(0, 1, T2, 0, vec![Op::Write(5, 11)], false)
            .unwrap();
    }

    #[test]
    fn takeover_sees_prepared_and_uncompleted_commits() {
        let mut p = Participant::default();
        p.prepare(0, 1, T1, 0, vec![Op::Write(1, 1)], true).unwrap();
        p.prepare(0, 1, T2, 1, vec![Op::Write(2, 2)], true).unwrap();
        p.commit(T2, 1, &[], 1).unwrap();
        assert_eq!(p.in_doubt(2), (vec![T1], vec![(T2, 1)]));
        let applied = p.resolve(2, &[(T1, 1)], &[]).unwrap();
        assert_eq!(applied.len(), 1);
        assert!(p.open_epoch(2).is_empty());
        assert_eq!(p.in_doubt(2), (vec![], vec![]));
    }

    #[test]
    fn late_and_repeated_messages_apply_nothing_twice() {
        let mut p = Participant::default();
        p.prepare(0, 1, T1, 0, vec![Op::Write(1, 1)], false)
            .unwrap();
        assert_eq!(p.commit(T1, 0, &[(1, 1)], 1).unwrap().len(), 1);
        p.complete(T1, 0);
        // A late copy of the prepare, then of the commit.
        assert!(p.prepare(0, 1, T1, 0, vec![Op::Write(1, 1)], false).is_ok());
        assert!(p.commit(T1, 0, &[(1, 1)], 1).unwrap().is_empty());
        p.advance(1, T1.seq + 1);
        assert_eq!(p.remembered(), 0);
        assert_eq!(
            p.prepare(0, 1, T1, 0, vec![Op::Write(1, 1)], false),
            Err(PrepareError::Finished)
        );
        assert!(p.commit(T1, 0, &[(1, 1)], 1).unwrap().is_empty());
        // An abort before its prepare.
        p.abort(1, T2, 0);
        assert_eq!(
            p.prepare(0, 1, T2, 0, vec![Op::Write(1, 2)], true),
            Err(PrepareError::Finished)
        );
    }

    #[test]
    fn replicas_apply_the_primarys_versions_and_a_copying_one_keeps_the_newer() {
        let mut backup = Participant::default();
        backup
            .prepare(0, 1, T1, 0, vec![Op::Write(1, 1)], false)
            .unwrap();
        // Out of order: this replica is at version 0, the primary says 2.
        assert!(backup.commit(T1, 0, &[(1, 2)], 1).is_err());
        let mut starter = Participant::default();
        starter.start_copy(&[0].into());
        starter
            .prepare(0, 1, T2, 0, vec![Op::Write(1, 7)], false)
            .unwrap();
        assert_eq!(starter.commit(T2, 0, &[(1, 5)], 1).unwrap()[0].version, 5);
        // The copy was read before that commit: the newer row stays.
        starter.merge_copy(
            0,
            vec![
                (
                    1,
                    Versioned {
                        value: 6,
                        version: 4,
                    },
                ),
                (
                    2,
                    Versioned {
                        value: 9,
                        version: 3,
                    },
                ),
            ],
        );
        assert_eq!(
            starter.read(0, 1),
            Some(Versioned {
                value: 7,
                version: 5
            })
        );
        assert_eq!(
            starter.read(0, 2),
            Some(Versioned {
                value: 9,
                version: 3
            })
        );
    }
}
