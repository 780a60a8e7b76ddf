//! A data node's replicas: the committed rows of the partitions it holds, the row locks it keeps
//! as primary, the transactions prepared on it and the commits it must remember until the
//! coordinator says every replica has them. Knows nothing of views or messages.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::layout::{Epoch, NodeId, PartitionId, Time};
use crate::msg::{Op, TxnId, Versioned};

/// A commit applied to one key: what the simulator's checkers observe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    pub partition: PartitionId,
    pub key: u64,
    pub txn: TxnId,
    pub value: u64,
    pub version: u64,
}

#[derive(Debug)]
struct Prepared {
    ops: Vec<Op>,
    /// Whether this replica took the keys' locks (it is the primary).
    locked: bool,
    reads: Vec<(u64, Option<Versioned>)>,
    since: Time,
}

/// What a replica knows of one transaction on one of its partitions. Finished transactions are
/// remembered until their coordinator says every transaction before a later one is finished (its
/// watermark), so a prepare or commit that arrives late, or twice, is recognised and never
/// applies anything a second time.
#[derive(Debug)]
enum State {
    Prepared(Prepared),
    /// Committed here; `completed` once the coordinator said every replica has it.
    Committed {
        completed: bool,
        keys: Vec<u64>,
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
    ) -> Result<Vec<(u64, Option<Versioned>)>, PrepareError> {
        match self.records.get(&(txn, partition)).map(|r| &r.state) {
            Some(State::Prepared(p)) => return Ok(p.reads.clone()),
            Some(State::Committed { .. }) => return Ok(Vec::new()),
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
        let reads: Vec<(u64, Option<Versioned>)> = ops
            .iter()
            .filter_map(|op| match op {
                Op::Read(key) if primary => Some((*key, rows.and_then(|r| r.get(key)).copied())),
                _ => None,
            })
            .collect();
        let prepared = Prepared {
            ops,
            locked: primary,
            reads: reads.clone(),
            since: now,
        };
        self.records.insert(
            (txn, partition),
            Record {
                epoch,
                state: State::Prepared(prepared),
            },
        );
        Ok(reads)
    }

    fn finished(&self, txn: TxnId) -> bool {
        self.watermarks
            .get(&txn.coordinator)
            .is_some_and(|w| txn.seq < *w)
    }

    /// Applies a prepared transaction's writes on one partition and releases its locks. A commit of
    /// a transaction not prepared here (a duplicate, or one whose prepare never arrived) does
    /// nothing.
    pub fn commit(&mut self, txn: TxnId, partition: PartitionId) -> Vec<Applied> {
        let Some(record) = self.records.get_mut(&(txn, partition)) else {
            return Vec::new();
        };
        if !matches!(record.state, State::Prepared(_)) {
            return Vec::new();
        }
        let keys: Vec<u64> = match &record.state {
            State::Prepared(p) => p
                .ops
                .iter()
                .filter(|op| matches!(op, Op::Write(..)))
                .map(|op| op.key())
                .collect(),
            _ => Vec::new(),
        };
        let epoch = record.epoch;
        let State::Prepared(p) = std::mem::replace(
            &mut record.state,
            State::Committed {
                completed: false,
                keys,
            },
        ) else {
            return Vec::new();
        };
        self.release(txn, partition, &p);
        let rows = self.data.entry(partition).or_default();
        let mut applied = Vec::new();
        for op in &p.ops {
            if let Op::Write(key, value) = *op {
                let before = rows.get(&key).copied();
                let version = before.map_or(0, |v| v.version) + 1;
                rows.insert(key, Versioned { value, version });
                applied.push(Applied {
                    partition,
                    key,
                    txn,
                    value,
                    version,
                });
                if !p.locked {
                    self.uncompleted
                        .entry((partition, key))
                        .or_default()
                        .push_back((txn, epoch, before));
                }
            }
        }
        applied
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
            state: State::Committed { completed, keys },
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

    fn release(&mut self, txn: TxnId, partition: PartitionId, p: &Prepared) {
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
    pub fn in_doubt(&self, epoch: Epoch) -> (Vec<TxnId>, Vec<TxnId>) {
        let mut prepared = BTreeSet::new();
        let mut committed = BTreeSet::new();
        for ((txn, _), r) in self.records.range(..) {
            if r.epoch < epoch {
                match r.state {
                    State::Prepared(_) => prepared.insert(*txn),
                    State::Committed { .. } => committed.insert(*txn),
                    State::Aborted => false,
                };
            }
        }
        (
            prepared.into_iter().collect(),
            committed.into_iter().collect(),
        )
    }

    /// Applies a takeover's decisions to every partition a transaction was prepared on here.
    pub fn resolve(&mut self, epoch: Epoch, commit: &[TxnId], abort: &[TxnId]) -> Vec<Applied> {
        let mut applied = Vec::new();
        let prepared: Vec<(TxnId, PartitionId)> = self
            .records
            .iter()
            .filter(|(_, r)| matches!(r.state, State::Prepared(_)))
            .map(|(k, _)| *k)
            .collect();
        for (txn, partition) in prepared {
            if commit.binary_search(&txn).is_ok() {
                applied.extend(self.commit(txn, partition));
            } else if abort.binary_search(&txn).is_ok() {
                self.abort(epoch, txn, partition);
            }
        }
        applied
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
        let applied = primary.commit(T1, 0);
        assert_eq!(applied[0].version, 1);
        assert_eq!(
            primary
                .prepare(0, 1, T2, 0, vec![Op::Read(5)], true)
                .unwrap(),
            vec![(
                5,
                Some(Versioned {
                    value: 10,
                    version: 1
                })
            )]
        );
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
        p.commit(T2, 1);
        assert_eq!(p.in_doubt(2), (vec![T1], vec![T2]));
        let applied = p.resolve(2, &[T1], &[]);
        assert_eq!(applied.len(), 1);
        assert!(p.open_epoch(2).is_empty());
        assert_eq!(p.in_doubt(2), (vec![], vec![]));
    }

    #[test]
    fn late_and_repeated_messages_apply_nothing_twice() {
        let mut p = Participant::default();
        p.prepare(0, 1, T1, 0, vec![Op::Write(1, 1)], false)
            .unwrap();
        assert_eq!(p.commit(T1, 0).len(), 1);
        p.complete(T1, 0);
        // A late copy of the prepare, then of the commit.
        assert!(p.prepare(0, 1, T1, 0, vec![Op::Write(1, 1)], false).is_ok());
        assert!(p.commit(T1, 0).is_empty());
        p.advance(1, T1.seq + 1);
        assert_eq!(p.remembered(), 0);
        assert_eq!(
            p.prepare(0, 1, T1, 0, vec![Op::Write(1, 1)], false),
            Err(PrepareError::Finished)
        );
        assert!(p.commit(T1, 0).is_empty());
        // An abort before its prepare.
        p.abort(1, T2, 0);
        assert_eq!(
            p.prepare(0, 1, T2, 0, vec![Op::Write(1, 2)], true),
            Err(PrepareError::Finished)
        );
    }
}
