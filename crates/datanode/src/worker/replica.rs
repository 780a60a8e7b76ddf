//! A worker's part in replication (`crate::replication`): on a primary, a transaction's row
//! images for its backups; on a backup, its primary's committed rows applied and logged; and
//! committed images written into partitions, which a local commit does too.

use std::collections::HashSet;

use hashbrown::HashMap;

use super::{TxnId, Worker};
use crate::messages::CopyPhase;

/// A worker's part in its node's copy from the primary (node restart), while it runs.
#[derive(Default)]
pub(super) struct Copying {
    /// The keys replicated commits wrote here since the copy began, by table: their rows are
    /// newer than any copy of them, so copied rows of these keys are skipped, and never deleted.
    kept: HashMap<u32, HashSet<Vec<u8>>>,
    /// A node restarted from its own files: per partition, the row slots the copy found equal
    /// or wrote (a bit each). When the copy ends, the rows of the other slots are deleted unless
    /// a commit wrote them (`kept`): the primary no longer holds them.
    confirmed: Option<HashMap<(u32, u32), Vec<u64>>>,
    /// Copied rows already held here (not written again), and rows written.
    equal: u64,
    written: u64,
}

impl Copying {
    /// Notes the keys a replicated commit writes.
    pub(super) fn keep(&mut self, changes: &[wire::RowChange]) {
        for c in changes {
            self.kept.entry(c.table).or_default().insert(c.key.clone());
        }
    }

    fn is_kept(&self, table: u32, key: &[u8]) -> bool {
        self.kept.get(&table).is_some_and(|keys| keys.contains(key))
    }

    fn confirm(&mut self, table: u32, partition: u32, slot: storage::RowId) {
        if let Some(confirmed) = &mut self.confirmed {
            let bits = confirmed.entry((table, partition)).or_default();
            let (word, bit) = (slot as usize / 64, slot % 64);
            if bits.len() <= word {
                bits.resize(word + 1, 0);
            }
            bits[word] |= 1 << bit;
        }
    }

    fn is_confirmed(confirmed: Option<&Vec<u64>>, slot: storage::RowId) -> bool {
        confirmed
            .and_then(|bits| bits.get(slot as usize / 64))
            .is_some_and(|word| word & (1 << (slot % 64)) != 0)
    }
}

impl Worker {
    /// The transaction's uncommitted images on this worker (None: deleted), for the backups.
    pub(super) fn images(&self, txn: TxnId) -> Vec<wire::RowChange> {
        let Some(state) = self.txns.get(&txn) else {
            return Vec::new();
        };
        state
            .pending
            .iter()
            .map(|((table, key), (partition, image))| wire::RowChange {
                table: *table,
                partition: *partition,
                key: key.clone(),
                row: image.as_deref().map(<[u8]>::to_vec),
            })
            .collect()
    }

    /// Committed rows of one partition for a copy to a starting node, from row slot `from`:
    /// at most `rows_max` rows, and no more once `bytes_max` bytes are taken; with the slot
    /// the next batch begins at (None: the partition ended, or this worker does not hold it).
    pub(super) fn copy_read(
        &self,
        table: u32,
        partition: u32,
        from: u32,
        rows_max: usize,
        bytes_max: usize,
    ) -> crate::messages::CopiedRows {
        let Some(part) = self.partitions.get(&(table, partition)) else {
            return (Vec::new(), None);
        };
        let primary_key = &part.table().primary_key;
        let mut rows = Vec::new();
        let (mut bytes, mut next) = (0, None);
        part.scan_from(from, |slot, row| {
            if rows.len() >= rows_max || bytes >= bytes_max {
                next = Some(slot);
                return false;
            }
            let mut key = Vec::new();
            part.encode_row_key(row, primary_key, false, &mut key);
            let change = wire::RowChange {
                table,
                partition,
                key,
                row: Some(row.to_vec()),
            };
            bytes += change.encoded_bytes();
            rows.push(change);
            true
        });
        (rows, next)
    }

    /// The copy from the primary begins or ends on this worker (`CopyPhase`).
    pub(super) fn copy_phase(&mut self, phase: CopyPhase) {
        match phase {
            CopyPhase::Begin { restored } => {
                self.copying = Some(Copying {
                    confirmed: restored.then(HashMap::new),
                    ..Copying::default()
                });
            }
            CopyPhase::End { txn, sequence, end } => {
                if let Some(copying) = self.copying.take() {
                    self.sweep(copying, txn, sequence);
                }
                end.worker_done();
            }
        }
    }

    /// A batch of copied rows: those of keys a replicated commit wrote since the copy began
    /// are skipped; on a node restarted from its own files so are those it holds already,
    /// equal; the rest are logged and applied as one transaction.
    pub(super) fn apply_copied(
        &mut self,
        mut changes: Vec<wire::RowChange>,
        txn: TxnId,
        numbers: (u16, u64),
    ) {
        let Some(copying) = &mut self.copying else {
            return self.apply_replicated(changes, txn, numbers, None);
        };
        changes.retain(|c| !copying.is_kept(c.table, &c.key));
        if copying.confirmed.is_some() {
            let partitions = &self.partitions;
            changes.retain(|c| {
                let Some(part) = partitions.get(&(c.table, c.partition)) else {
                    return true;
                };
                match part.find(&c.key) {
                    Some(slot) if part.row(slot) == c.row.as_deref() => {
                        copying.confirm(c.table, c.partition, slot);
                        copying.equal += 1;
                        false
                    }
                    _ => true,
                }
            });
        }
        copying.written += changes.len() as u64;
        let written: Vec<(u32, u32, Vec<u8>)> = if copying.confirmed.is_some() {
            changes
                .iter()
                .map(|c| (c.table, c.partition, c.key.clone()))
                .collect()
        } else {
            Vec::new()
        };
        if changes.is_empty() {
            return;
        }
        self.apply_replicated(changes, txn, numbers, None);
        if let Some(copying) = &mut self.copying {
            for (table, partition, key) in written {
                if let Some(slot) = self
                    .partitions
                    .get(&(table, partition))
                    .and_then(|p| p.find(&key))
                {
                    copying.confirm(table, partition, slot);
                }
            }
        }
    }

    /// The copy ended. On a node restarted from its own files, every row neither the copy
    /// brought nor a replicated commit wrote since it began is one its primary no longer
    /// holds (deleted while this node was down): deleted here, logged as one transaction.
    fn sweep(&mut self, copying: Copying, txn: TxnId, sequence: u64) {
        let Some(confirmed) = &copying.confirmed else {
            return;
        };
        let mut deletes = Vec::new();
        for ((table, partition), part) in &self.partitions {
            let bits = confirmed.get(&(*table, *partition));
            let primary_key = &part.table().primary_key;
            part.scan_from(0, |slot, row| {
                if !Copying::is_confirmed(bits, slot) {
                    let mut key = Vec::new();
                    part.encode_row_key(row, primary_key, false, &mut key);
                    if !copying.is_kept(*table, &key) {
                        deletes.push(wire::RowChange {
                            table: *table,
                            partition: *partition,
                            key,
                            row: None,
                        });
                    }
                }
                true
            });
        }
        tracing::info!(
            equal = copying.equal,
            written = copying.written,
            deleted = deletes.len(),
            kept = copying.kept.values().map(HashSet::len).sum::<usize>(),
            "copy from the primary ended on a node restarted from its own files"
        );
        // One line per worker, for whoever restarted the node.
        println!(
            "node restart from its own files: {} copied rows were here already, {} written, {} deleted",
            copying.equal,
            copying.written,
            deletes.len()
        );
        if !deletes.is_empty() {
            self.apply_replicated(deletes, txn, (1, sequence), None);
        }
    }

    /// Writes committed row images (None: delete) into their partitions, counting the memory
    /// they take. An image of a partition this worker does not hold is skipped (its table was
    /// dropped); a row the partition refuses is an error.
    pub(super) fn apply_images(
        &mut self,
        images: impl Iterator<Item = (u32, u32, Vec<u8>, Option<Box<[u8]>>)>,
    ) -> Result<(), String> {
        let mut memory = self.memory_bytes;
        let mut failed = None;
        for (table, partition, pk, image) in images {
            let Some(part) = self.partitions.get_mut(&(table, partition)) else {
                continue;
            };
            let before = part.memory_bytes();
            let applied = match image {
                Some(row) => {
                    if part.find(&pk).is_some() {
                        part.replace(&pk, row).map(|_| ())
                    } else {
                        part.insert(row).map(|_| ())
                    }
                }
                None => {
                    part.delete(&pk);
                    Ok(())
                }
            };
            memory = memory.saturating_sub(before) + part.memory_bytes();
            if let Err(e) = applied {
                failed.get_or_insert(format!("table {table} partition {partition}: {e:?}"));
            }
        }
        self.memory_bytes = memory;
        self.publish_memory();
        failed.map_or(Ok(()), Err)
    }

    /// A backup's part of a commit its primary made: log the rows (logged tables only), then
    /// apply them. The primary held the rows' locks until every backup answered, so nothing
    /// here waits for a lock; one that cannot be applied means this replica has left its
    /// primary's state, and the node stops.
    pub(super) fn apply_replicated(
        &mut self,
        changes: Vec<wire::RowChange>,
        txn: TxnId,
        (participants, sequence): (u16, u64),
        name: Option<crate::replication::CommitName>,
    ) {
        if let Some(logging) = &mut self.logging {
            let partitions = &self.partitions;
            let refs = changes
                .iter()
                .filter(|c| {
                    partitions
                        .get(&(c.table, c.partition))
                        .is_some_and(|p| !p.table().options.nologging)
                })
                .map(|c| storage::redo::ChangeRef {
                    table: c.table,
                    partition: c.partition,
                    key: &c.key,
                    row: c.row.as_deref(),
                });
            let logged = super::prepared::append_commit(
                &mut logging.log,
                (sequence, txn, participants),
                name,
                refs,
            );
            let failed = logged.is_err();
            self.commit_logged(logged, name);
            if failed {
                return;
            }
        }
        let images = changes.into_iter().map(|c| {
            (
                c.table,
                c.partition,
                c.key,
                c.row.map(Vec::into_boxed_slice),
            )
        });
        if let Err(why) = self.apply_images(images) {
            self.failure
                .get_or_insert(format!("a replicated commit could not be applied: {why}"));
        }
    }
}
