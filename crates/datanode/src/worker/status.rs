//! A worker's report of what it holds: rows, row bytes and data memory, in all and per table
//! (a hidden unique-index table's memory counted as its base table's index memory).

use std::collections::BTreeMap;

use super::Worker;
use crate::messages::WorkerStatus;

impl Worker {
    /// Each partition's rows and the wrapping sum of its rows' CRC-32C over their stored
    /// images: equal on replicas holding the same rows, in any order.
    pub(super) fn checksums(&self) -> Vec<(u32, u32, u64, u64)> {
        let mut sums: Vec<(u32, u32, u64, u64)> = self
            .partitions
            .iter()
            .map(|((table, partition), p)| {
                let (mut rows, mut sum) = (0u64, 0u64);
                p.scan(|row| {
                    rows += 1;
                    sum = sum.wrapping_add(u64::from(crc32c::crc32c(row)));
                    true
                });
                (*table, *partition, rows, sum)
            })
            .collect();
        sums.sort_unstable();
        sums
    }

    pub(super) fn status(&self) -> WorkerStatus {
        let mut status = WorkerStatus {
            memory_bytes: self.memory_bytes as u64,
            ..WorkerStatus::default()
        };
        let mut tables: BTreeMap<u32, wire::TableMemory> = BTreeMap::new();
        for p in self.partitions.values() {
            let (index, memory) = (p.index_memory_bytes() as u64, p.memory_bytes() as u64);
            match p.table().index_of {
                // Its rows are index entries, not rows.
                Some(base) => tables.entry(base).or_default().index_bytes += memory,
                None => {
                    status.rows += p.row_count() as u64;
                    status.row_bytes += p.row_bytes() as u64;
                    let t = tables.entry(p.table().id).or_default();
                    t.rows += p.row_count() as u64;
                    t.data_bytes += memory - index;
                    t.index_bytes += index;
                }
            }
        }
        status.tables = tables
            .into_iter()
            .map(|(id, t)| wire::TableMemory { id, ..t })
            .collect();
        status
    }
}
