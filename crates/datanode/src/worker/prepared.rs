//! A worker's records of two-phase commits in its redo log: a prepared part's images, logged
//! (not applied) before the part is answered; its end, a commit record carrying its name or a
//! drop record; a decision's name on its commit record. And the pins that keep these records
//! in the log past checkpoints (a prepared part's until it ends, a decision's for
//! `DECISION_KEPT`), so a restart after every node stopped finds the parts still in doubt and
//! the decisions their groups will ask about (`recovery::TwoPhase`).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use hashbrown::HashMap;
use storage::redo::{ChangeRef, Position, RecordHead, RecordKind};

use super::{TxnId, Worker};
use crate::replication::CommitName;

/// How long a decision's record stays in the log past checkpoints: far past the time its
/// prepared parts take to commit (the coordinator sends their commit for 30 s, and a part left
/// in doubt asks after 1 s), so a restart can still answer a part prepared elsewhere.
pub const DECISION_KEPT: Duration = Duration::from_secs(60);

/// The log positions this worker's two-phase records keep.
#[derive(Default)]
pub struct Pins {
    /// Prepared parts logged here and not ended: where their record starts.
    prepared: HashMap<CommitName, Position>,
    /// Decisions logged here, oldest first: when, and where their record starts.
    decisions: VecDeque<(Instant, Position)>,
}

/// Appends a commit record of `txn` (`head`: its sequence, transaction and participants),
/// carrying `name` when it is a two-phase commit's decision or part; returns where it starts.
/// The caller hands the result to `Worker::commit_logged`.
pub(super) fn append_commit<'a>(
    log: &mut storage::redo::RedoLog,
    (sequence, transaction, participants): (u64, TxnId, u16),
    name: Option<CommitName>,
    changes: impl Iterator<Item = ChangeRef<'a>>,
) -> Result<Position, storage::redo::RedoError> {
    let at = log.position();
    let head = RecordHead {
        sequence,
        transaction,
        participants,
        kind: RecordKind::Commit,
        name,
    };
    log.append_changes(head, changes).map(|()| at)
}

impl Worker {
    /// After `append_commit`: a failure stops the node; a named record ends the prepared part
    /// of its name logged here, or records a decision.
    pub(super) fn commit_logged(
        &mut self,
        logged: Result<Position, storage::redo::RedoError>,
        name: Option<CommitName>,
    ) {
        match (logged, name) {
            (Err(e), _) => {
                self.failure.get_or_insert(e.to_string());
            }
            (Ok(at), Some(name)) => self.named_commit_logged(name, at),
            (Ok(_), None) => {}
        }
    }

    /// Appends a record of `head` with `changes` (rows of logged tables only); returns where
    /// it starts, or None without a log (or after a failure, which stops the node).
    fn append_named<'a>(
        &mut self,
        head: RecordHead,
        changes: impl Iterator<Item = ChangeRef<'a>>,
    ) -> Option<Position> {
        let logging = self.logging.as_mut()?;
        let at = logging.log.position();
        match logging.log.append_changes(head, changes) {
            Ok(()) => Some(at),
            Err(e) => {
                self.failure.get_or_insert(e.to_string());
                None
            }
        }
    }

    fn is_logged(&self, table: u32, partition: u32) -> bool {
        self.partitions
            .get(&(table, partition))
            .is_some_and(|p| !p.table().options.nologging)
    }

    /// Logs `txn`'s uncommitted images here (`changes`, as `images` gives them) as the
    /// prepared part `name` (its locks stay held) and marks the transaction, whose commit
    /// record then ends the part and whose abort logs its drop. Fsynced before the answer
    /// leaves the worker, in either durability.
    pub(super) fn log_prepared_txn(
        &mut self,
        txn: TxnId,
        name: CommitName,
        changes: &[wire::RowChange],
    ) {
        let Some(state) = self.txns.get_mut(&txn) else {
            return;
        };
        state.name = Some(name);
        state.prepared = true;
        self.log_prepared(txn, name, changes);
    }

    /// Logs held rows as the prepared part `name` (not applied), kept until it ends.
    pub(super) fn log_prepared(
        &mut self,
        txn: TxnId,
        name: CommitName,
        changes: &[wire::RowChange],
    ) {
        let logged: Vec<&wire::RowChange> = changes
            .iter()
            .filter(|c| self.is_logged(c.table, c.partition))
            .collect();
        if logged.is_empty() {
            // Nothing a restart would restore (no rows, or NOLOGGING tables only).
            return;
        }
        let head = RecordHead {
            sequence: 0,
            transaction: txn,
            participants: 1,
            kind: RecordKind::Prepared,
            name: Some(name),
        };
        let refs = logged.iter().map(|c| ChangeRef {
            table: c.table,
            partition: c.partition,
            key: &c.key,
            row: c.row.as_deref(),
        });
        if let Some(at) = self.append_named(head, refs) {
            self.pins.prepared.entry(name).or_insert(at);
            self.sync_wanted = true;
        }
    }

    /// The prepared part `name` was dropped: a drop record when this worker logged it.
    pub(super) fn log_dropped(&mut self, name: CommitName) {
        if self.pins.prepared.remove(&name).is_none() {
            return;
        }
        let head = RecordHead {
            sequence: 0,
            transaction: 0,
            participants: 1,
            kind: RecordKind::Dropped,
            name: Some(name),
        };
        self.append_named(head, std::iter::empty());
    }

    /// A decision without rows here: an empty commit record carrying its name.
    pub(super) fn log_decision(&mut self, name: CommitName) {
        let head = RecordHead {
            sequence: 0,
            transaction: 0,
            participants: 1,
            kind: RecordKind::Commit,
            name: Some(name),
        };
        if let Some(at) = self.append_named(head, std::iter::empty()) {
            self.pins.decisions.push_back((Instant::now(), at));
        }
    }

    /// A commit record named `name` was appended at `at`: it ends the prepared part of that
    /// name logged here, or else records a decision.
    fn named_commit_logged(&mut self, name: CommitName, at: Position) {
        if self.pins.prepared.remove(&name).is_none() {
            self.pins.decisions.push_back((Instant::now(), at));
        }
    }

    /// Where a checkpoint taken now must keep this worker's log from: its end, or the oldest
    /// record a pin keeps (None without a log).
    pub fn log_keep_from(&mut self) -> Option<Position> {
        let end = self.log_position()?;
        let now = Instant::now();
        while self
            .pins
            .decisions
            .front()
            .is_some_and(|(when, _)| now.saturating_duration_since(*when) > DECISION_KEPT)
        {
            self.pins.decisions.pop_front();
        }
        let oldest = self
            .pins
            .prepared
            .values()
            .chain(self.pins.decisions.iter().map(|(_, at)| at))
            .min()
            .copied();
        Some(oldest.map_or(end, |at| at.min(end)))
    }

    /// Whether a record since the last write asks for an fsync whatever the durability (a
    /// prepared part is answered only once on disk); cleared by asking.
    pub fn take_sync_wanted(&mut self) -> bool {
        std::mem::take(&mut self.sync_wanted)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::messages::{ReplyTo, ToWorker};

    const NOWHERE: ReplyTo = ReplyTo {
        worker: 0,
        connection: usize::MAX,
    };

    fn worker(dir: &std::path::Path) -> Worker {
        use base::schema::ColumnDef;
        use base::types::ColumnType;
        let mut def = base::TableDef::new(
            "t",
            vec![ColumnDef::new("id", ColumnType::BigInt { unsigned: false })],
            &["id"],
        )
        .unwrap();
        def.id = 1;
        def.partition_count = 1;
        let log = storage::redo::RedoLog::open(
            storage::redo::LogConfig {
                dir: dir.to_path_buf(),
                worker: 0,
                segment_bytes: storage::redo::SEGMENT_BYTES_MIN,
                faults: None,
            },
            None,
            Vec::new(),
            Vec::new(),
        )
        .unwrap();
        Worker::new(
            Duration::from_secs(1),
            (Arc::new(crate::waits::WaitGraph::default()), 0),
            1,
            vec![((1, 0), storage::Partition::new(Arc::new(def)))],
            Some(super::super::Logging { log }),
            Arc::new(crate::DataMemory::new(u64::MAX, 1)),
        )
    }

    fn row(key: u8) -> wire::RowChange {
        wire::RowChange {
            table: 1,
            partition: 0,
            key: vec![key],
            row: None,
        }
    }

    /// A checkpoint taken while a prepared part is held, or shortly after a decision, keeps
    /// the log from its record; once the part ends it no longer does. A part of no logged
    /// rows is not logged at all.
    #[test]
    fn checkpoints_keep_the_records_of_parts_not_ended_and_of_recent_decisions() {
        let dir = std::env::temp_dir().join(format!("cairn-prepared-pins-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut w = worker(&dir);
        let name = crate::replication::decision_name(3, 77);
        let start = w.log_position().unwrap();
        w.handle(ToWorker::LogPrepared {
            name,
            changes: vec![row(1), row(2)],
            tag: 0,
            reply_to: NOWHERE,
        });
        assert!(
            w.take_sync_wanted(),
            "a prepared record is fsynced in either durability"
        );
        assert!(w.flush_log(true));
        let after = w.log_position().unwrap();
        assert!(after > start);
        assert_eq!(
            w.log_keep_from(),
            Some(start),
            "the prepared record is kept"
        );
        w.handle(ToWorker::LogDropped { name });
        assert!(w.flush_log(true));
        let end = w.log_position().unwrap();
        assert_eq!(w.log_keep_from(), Some(end), "a dropped part keeps nothing");
        let other = crate::replication::decision_name(3, 78);
        w.handle(ToWorker::LogPrepared {
            name: other,
            changes: vec![wire::RowChange { table: 9, ..row(1) }],
            tag: 0,
            reply_to: NOWHERE,
        });
        assert_eq!(
            w.log_position(),
            Some(end),
            "rows of no table here: nothing logged"
        );
        let decision = crate::replication::decision_name(1, 5);
        w.handle(ToWorker::LogDecision {
            name: decision,
            tag: 0,
            reply_to: NOWHERE,
        });
        assert!(w.flush_log(true));
        assert_eq!(w.log_keep_from(), Some(end), "a decision's record is kept");
        drop(w);
        let records = storage::redo::read_log(&dir, 0, Default::default())
            .unwrap()
            .records;
        let kinds: Vec<_> = records.iter().map(|r| (r.kind, r.name)).collect();
        use storage::redo::RecordKind::*;
        assert_eq!(
            kinds,
            vec![
                (Prepared, Some(name)),
                (Dropped, Some(name)),
                (Commit, Some(decision))
            ]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
