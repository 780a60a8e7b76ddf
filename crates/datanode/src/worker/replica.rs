//! A worker's part in replication (`crate::replication`): on a primary, a transaction's row
//! images for its backups; on a backup, its primary's committed rows applied and logged; and
//! committed images written into partitions, which a local commit does too.

use super::{TxnId, Worker};

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
