//! Restart: the catalog from its file, then every redo log replayed into fresh partitions before
//! the workers start. A transaction is replayed only when every worker that wrote in it logged
//! its part; parts are applied in commit-sequence order, so each row ends in its last committed
//! state. Progress and the rate are logged.

use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

use base::{Error, ErrorCode, Value};
use storage::redo::{read_log, Record};
use storage::Partition;
use tracing::{info, warn};

use crate::catalog::Catalog;

/// What a restart rebuilt.
pub struct Recovered {
    pub catalog: Catalog,
    /// Per worker: its partitions, keyed by (table id, partition).
    pub partitions: Vec<Vec<((u32, u32), Partition)>>,
    /// The highest commit sequence and transaction id seen; new ones continue above them.
    pub sequence_max: u64,
    pub transaction_max: u64,
}

/// An empty node's state.
pub fn empty(workers: usize) -> Recovered {
    Recovered {
        catalog: Catalog::default(),
        partitions: (0..workers).map(|_| Vec::new()).collect(),
        sequence_max: 0,
        transaction_max: 0,
    }
}

/// The redo log file of worker `w`.
pub fn log_path(dir: &Path, w: usize) -> std::path::PathBuf {
    dir.join(format!("redo-{w}.log"))
}

fn internal(message: String) -> Error {
    Error::new(ErrorCode::Internal, message)
}

/// Loads the catalog and replays the redo logs found in `dir`.
pub fn recover(dir: &Path, workers: usize) -> Result<Recovered, Error> {
    let started = Instant::now();
    std::fs::create_dir_all(dir)
        .map_err(|e| internal(format!("creating {}: {e}", dir.display())))?;
    let catalog = Catalog::load(dir)?;
    let mut partitions: HashMap<(u32, u32), Partition> = HashMap::new();
    for entry in catalog.entries() {
        for p in 0..entry.def.partition_count {
            partitions.insert((entry.def.id, p), Partition::new(entry.def.clone()));
        }
    }
    let mut records: Vec<Record> = Vec::new();
    let mut logs: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| internal(format!("listing {}: {e}", dir.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("redo-") && n.ends_with(".log"))
        })
        .collect();
    logs.sort();
    for path in &logs {
        let contents = read_log(path).map_err(|e| internal(e.to_string()))?;
        if let Some(offset) = contents.cut_at {
            warn!(file = %path.display(), offset, "redo log ended in a torn or corrupt record; cut there");
        }
        records.extend(contents.records);
    }
    let mut parts: HashMap<u64, (u16, u16)> = HashMap::new();
    for r in &records {
        let e = parts.entry(r.transaction).or_insert((0, r.participants));
        e.0 += 1;
    }
    let sequence_max = records.iter().map(|r| r.sequence).max().unwrap_or(0);
    let transaction_max = records.iter().map(|r| r.transaction).max().unwrap_or(0);
    records.retain(|r| {
        parts
            .get(&r.transaction)
            .is_some_and(|(seen, needed)| seen >= needed)
    });
    records.sort_by_key(|r| r.sequence);
    let mut puts: HashMap<(u32, u32), usize> = HashMap::new();
    for change in records
        .iter()
        .flat_map(|r| &r.changes)
        .filter(|c| c.row.is_some())
    {
        *puts.entry((change.table, change.partition)).or_default() += 1;
    }
    for (key, count) in puts {
        if let Some(part) = partitions.get_mut(&key) {
            part.reserve(count);
        }
    }
    for part in partitions.values_mut() {
        part.begin_bulk();
    }
    let mut applied = 0u64;
    for record in records {
        for change in record.changes {
            // Changes of tables dropped since are skipped with their partitions.
            let Some(part) = partitions.get_mut(&(change.table, change.partition)) else {
                continue;
            };
            match change.row {
                Some(row) => {
                    let result = if part.find(&change.key).is_some() {
                        part.replace(&change.key, row).map(|_| ())
                    } else {
                        part.insert(row).map(|_| ())
                    };
                    result.map_err(|e| {
                        internal(format!("replaying a change of table {}: {e}", change.table))
                    })?;
                }
                None => {
                    part.delete(&change.key);
                }
            }
            applied += 1;
        }
    }
    for part in partitions.values_mut() {
        part.end_bulk();
    }
    restore_counters(&catalog, &partitions);
    let rows: usize = partitions
        .values()
        .filter(|p| p.table().index_of.is_none())
        .map(|p| p.row_count())
        .sum();
    let elapsed = started.elapsed();
    info!(
        tables = catalog.names().len(),
        logs = logs.len(),
        changes_replayed = applied,
        rows,
        seconds = elapsed.as_secs_f64(),
        rows_per_second = (rows as f64 / elapsed.as_secs_f64().max(1e-9)) as u64,
        "restart recovered the data directory"
    );
    let mut per_worker: Vec<Vec<((u32, u32), Partition)>> =
        (0..workers).map(|_| Vec::new()).collect();
    for ((table, p), part) in partitions {
        per_worker[p as usize % workers].push(((table, p), part));
    }
    Ok(Recovered {
        catalog,
        partitions: per_worker,
        sequence_max,
        transaction_max,
    })
}

/// Sets every AUTO_INCREMENT (or hidden key) counter above the largest value stored.
fn restore_counters(catalog: &Catalog, partitions: &HashMap<(u32, u32), Partition>) {
    for entry in catalog.entries() {
        let def = &entry.def;
        let column = match def.auto_increment_column() {
            Some(c) => c,
            None if def.has_hidden_pk() => def.primary_key[0] as usize,
            None => continue,
        };
        let mut max = 0u64;
        for p in 0..def.partition_count {
            if let Some(part) = partitions.get(&(def.id, p)) {
                part.scan(|row| {
                    match part.layout().value(row, column) {
                        Value::Int(v) => max = max.max(v.max(0) as u64),
                        Value::UInt(v) => max = max.max(v),
                        _ => {}
                    }
                    true
                });
            }
        }
        if max > 0 {
            entry.observe_explicit(max);
        }
    }
}

/// Deletes the catalog and every redo log in `dir` (an initial start); other files stay. Returns
/// how many files were removed.
pub fn wipe(dir: &Path) -> std::io::Result<usize> {
    let mut removed = 0;
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let path = entry?.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        let ours = name == crate::catalog::CATALOG_FILE
            || name == format!("{}.tmp", crate::catalog::CATALOG_FILE)
            || (name.starts_with("redo-") && name.ends_with(".log"));
        if ours {
            std::fs::remove_file(&path)?;
            removed += 1;
        }
    }
    if removed > 0 {
        storage::redo::sync_directory(&dir.join(crate::catalog::CATALOG_FILE))?;
    }
    Ok(removed)
}
