//! Restart: the catalog from its file, then the newest checkpoint (its full files, then the
//! partial ones after them), then the redo after the checkpoint's position replayed on top, all
//! before the workers start. A transaction is replayed only when every worker that wrote in it
//! logged its part; parts are applied in commit-sequence order, so each row ends in its last
//! committed state. Progress and the rate are logged.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

use base::{Error, ErrorCode, Value};
use storage::checkpoint::{read_checkpoint, BlockKind};
use storage::redo::{read_log, Position, Record};
use storage::Partition;
use tracing::{info, warn};

use crate::catalog::Catalog;
use crate::checkpoint::Manifest;

/// Where a worker's redo log continues after a restart.
#[derive(Debug, Default)]
pub struct LogEnd {
    /// The end of its records (None: it has no segments yet).
    pub end: Option<Position>,
    /// Segment files a checkpoint covers, free for reuse.
    pub free: Vec<PathBuf>,
    /// The segments still needed, oldest first.
    pub live: Vec<u64>,
}

/// What a restart rebuilt.
pub struct Recovered {
    pub catalog: Catalog,
    /// Per worker: its partitions, keyed by (table id, partition).
    pub partitions: Vec<Vec<((u32, u32), Partition)>>,
    /// The highest commit sequence and transaction id seen; new ones continue above them.
    pub sequence_max: u64,
    pub transaction_max: u64,
    /// The newest checkpoint, if any.
    pub manifest: Option<Manifest>,
    /// Per worker of this run: where its log continues.
    pub logs: Vec<LogEnd>,
    /// The two-phase commits the logs hold.
    pub two_phase: TwoPhase,
    /// The cut the `gcp` file recorded (None: no file), and the commit numbers this restart
    /// dropped past it (first and last), which must never count again (`gcp::Durable::open`).
    pub cut: Option<crate::gcp::Cut>,
    pub dropped: Option<(u64, u64)>,
}

/// Two-phase commits a restart found in the logs (`worker::prepared`): the prepared parts no
/// commit or drop record ended, held again until their coordinator's group says how they
/// ended, and the names of the decisions recorded (the committed two-phase commits), which
/// this node's group answers about.
#[derive(Debug, Default)]
pub struct TwoPhase {
    /// By coordinator and transaction: the part's rows.
    pub held: Vec<((u32, u64), Vec<wire::RowChange>)>,
    pub decided: Vec<crate::replication::CommitName>,
    /// Transactions replayed although not every worker logged its piece: a part whose commit
    /// some workers logged before the node stopped (its decision was to commit). Their pieces
    /// are replayed in commit order, and only the rows of the workers that had not logged
    /// theirs are held again: re-applying a committed piece's rows after the redo would put
    /// back images a later commit of those keys replaced.
    replay_anyway: BTreeSet<u64>,
}

impl TwoPhase {
    /// Reads the two-phase records among `records` (every record read with its worker, the
    /// checkpoint's too): a commit record's name counts as decided once its transaction is
    /// whole (every worker's piece logged, or below `cut`, so in the checkpoint).
    fn of(records: &[(u32, Record)], cut: u64) -> TwoPhase {
        use std::collections::BTreeMap;
        use storage::redo::RecordKind;
        type Name = crate::replication::CommitName;
        let mut parts: HashMap<u64, (u16, u16)> = HashMap::new();
        for (_, r) in records.iter().filter(|(_, r)| r.kind == RecordKind::Commit) {
            // Decisions logged without rows all carry transaction 0 (one piece each), and a
            // node that restarted often holds more than a u16 counts of them.
            let e = parts.entry(r.transaction).or_insert((0, r.participants));
            e.0 = e.0.saturating_add(1);
        }
        let whole = |r: &Record| {
            r.sequence < cut
                || parts
                    .get(&r.transaction)
                    .is_some_and(|(seen, needed)| seen >= needed)
        };
        let mut prepared: BTreeMap<Name, BTreeMap<u32, Vec<wire::RowChange>>> = BTreeMap::new();
        let mut dropped: BTreeSet<Name> = BTreeSet::new();
        // Per name: the workers that logged a commit piece, its transactions, and whether one
        // is whole.
        #[derive(Default)]
        struct Committed {
            workers: BTreeSet<u32>,
            transactions: BTreeSet<u64>,
            whole: bool,
        }
        let mut committed: BTreeMap<Name, Committed> = BTreeMap::new();
        for (w, r) in records {
            let Some(name) = r.name else { continue };
            match r.kind {
                RecordKind::Prepared => {
                    let rows = prepared.entry(name).or_default().entry(*w).or_default();
                    for c in &r.changes {
                        // Logged again after an earlier restart: the latest image of a key.
                        rows.retain(|h| {
                            !(h.table == c.table && h.partition == c.partition && h.key == c.key)
                        });
                        rows.push(wire::RowChange {
                            table: c.table,
                            partition: c.partition,
                            key: c.key.clone(),
                            row: c.row.as_ref().map(|r| r.to_vec()),
                        });
                    }
                }
                RecordKind::Dropped => {
                    dropped.insert(name);
                }
                RecordKind::Commit => {
                    let e = committed.entry(name).or_default();
                    e.workers.insert(*w);
                    e.transactions.insert(r.transaction);
                    e.whole |= whole(r);
                }
            }
        }
        let mut found = TwoPhase::default();
        for (name, per_worker) in prepared {
            if dropped.contains(&name) {
                continue;
            }
            let rows: Vec<wire::RowChange> = match committed.get(&name) {
                Some(c) if c.whole => continue,
                Some(c) => {
                    found.replay_anyway.extend(c.transactions.iter().copied());
                    per_worker
                        .into_iter()
                        .filter(|(w, _)| !c.workers.contains(w))
                        .flat_map(|(_, rows)| rows)
                        .collect()
                }
                None => per_worker.into_values().flatten().collect(),
            };
            if let (false, Some(part)) =
                (rows.is_empty(), crate::replication::part_of_decision(name))
            {
                found.held.push((part, rows));
            }
        }
        found.decided = committed
            .into_iter()
            .filter(|(_, c)| c.whole)
            .map(|(name, _)| name)
            .collect();
        found
    }
}

/// An empty node's state.
pub fn empty(workers: usize) -> Recovered {
    Recovered {
        catalog: Catalog::default(),
        partitions: (0..workers).map(|_| Vec::new()).collect(),
        sequence_max: 0,
        transaction_max: 0,
        manifest: None,
        logs: (0..workers).map(|_| LogEnd::default()).collect(),
        two_phase: TwoPhase::default(),
        cut: None,
        dropped: None,
    }
}

fn internal(message: String) -> Error {
    Error::new(ErrorCode::Internal, message)
}

/// Loads the catalog, the newest checkpoint and the redo after it, found in `dir`.
pub fn recover(
    dir: &Path,
    placement: crate::Placement,
    restore_round: Option<u64>,
) -> Result<Recovered, Error> {
    let workers = placement.workers as usize;
    let started = Instant::now();
    std::fs::create_dir_all(dir)
        .map_err(|e| internal(format!("creating {}: {e}", dir.display())))?;
    let catalog = Catalog::load(dir)?;
    let mut partitions: HashMap<(u32, u32), Partition> = HashMap::new();
    for entry in catalog.entries() {
        for p in (0..entry.def.partition_count).filter(|p| placement.is_local(*p)) {
            partitions.insert((entry.def.id, p), Partition::new(entry.def.clone()));
        }
    }
    for part in partitions.values_mut() {
        part.begin_bulk();
    }
    let manifest = Manifest::load(dir)?;
    let mut loaded = 0u64;
    if let Some(m) = &manifest {
        // Size every partition once for the whole chain: growing a hash index rehashes it.
        let mut sizes: HashMap<(u32, u32), u64> = HashMap::new();
        for (link, w, path) in m.files(dir) {
            let directory = storage::checkpoint::read_directory(&path, w, link.id)
                .map_err(|e| internal(e.to_string()))?;
            for (table, partition, rows) in directory {
                *sizes.entry((table, partition)).or_default() += rows;
            }
        }
        for (key, rows) in sizes {
            if let Some(part) = partitions.get_mut(&key) {
                part.reserve(rows as usize);
            }
        }
        for (link, w, path) in m.files(dir) {
            let file_started = Instant::now();
            let mut rows = 0u64;
            let mut parts_loaded = std::collections::HashSet::new();
            read_checkpoint(
                &path,
                w,
                link.id,
                |_| {},
                |block| {
                    // Tables dropped since are skipped.
                    let Some(part) = partitions.get_mut(&(block.table, block.partition)) else {
                        return Ok(());
                    };
                    rows += block.entries.len() as u64;
                    parts_loaded.insert((block.table, block.partition));
                    match block.kind {
                        // A fuzzy file may hold a row twice (moved while it was written): the later
                        // image is the newer one, so every load is an upsert.
                        BlockKind::Rows => {
                            for row in block.entries {
                                part.put(row).map_err(|e| e.to_string())?;
                            }
                        }
                        BlockKind::Deleted => {
                            for key in block.entries {
                                part.delete(&key);
                            }
                        }
                        BlockKind::End => {}
                    }
                    Ok(())
                },
            )
            .map_err(|e| internal(e.to_string()))?;
            loaded += rows;
            let seconds = file_started.elapsed().as_secs_f64();
            info!(
                file = %path.display(),
                partitions = parts_loaded.len(),
                entries = rows,
                seconds,
                rows_per_second = (rows as f64 / seconds.max(1e-9)) as u64,
                "restart loaded a checkpoint file"
            );
        }
    }
    let cut = manifest.as_ref().map_or(0, |m| m.cut);
    // Every worker that has a log, and every worker of this run.
    let mut log_workers: BTreeSet<u32> = storage::redo::list_segments(dir)
        .map_err(|e| internal(format!("listing {}: {e}", dir.display())))?
        .into_iter()
        .map(|(w, _, _)| w)
        .collect();
    log_workers.extend(0..workers as u32);
    let mut records: Vec<(u32, Record)> = Vec::new();
    let mut logs: Vec<LogEnd> = (0..workers).map(|_| LogEnd::default()).collect();
    let mut segments = 0;
    for w in log_workers {
        let from = manifest
            .as_ref()
            .and_then(|m| m.positions.get(w as usize).copied())
            .unwrap_or_default();
        let contents = read_log(dir, w, from).map_err(|e| internal(e.to_string()))?;
        if let Some((path, offset)) = &contents.cut_at {
            warn!(file = %path.display(), offset, "redo log ended in a torn or corrupt record; cut there");
        }
        segments += contents.segments;
        records.extend(contents.records.into_iter().map(|r| (w, r)));
        if let Some(log) = logs.get_mut(w as usize) {
            log.end = contents.end;
            log.free = contents.free;
            log.live = contents.live;
        }
    }
    // Commits past the global checkpoint's cut (`interval` mode), or void, are not replayed:
    // what is kept is a prefix of the commit order, whatever a power cut kept of each log.
    let mut gcp = crate::gcp::Cut::load(dir).map_err(internal)?;
    if let Some(round) = restore_round {
        // A system restart to a cluster round: this node's commits of that round and before,
        // which it made durable before the round was saved anywhere.
        let found = gcp
            .as_mut()
            .and_then(|g| g.round_cut(round).map(|c| (g, c)));
        let Some((g, below)) = found else {
            return Err(internal(format!(
                "{} holds no cut for global checkpoint round {round} (it saved rounds {:?}): this node cannot restore that round; start it with --initial, to copy its node group's partitions",
                dir.join(crate::gcp::GCP_FILE).display(),
                gcp.as_ref().map(|g| g.rounds.iter().map(|(r, _)| *r).collect::<Vec<_>>()).unwrap_or_default()
            )));
        };
        info!(
            round,
            below, "restoring the cluster's global checkpoint round"
        );
        g.below = below;
        // Rounds after it named commits this restart drops: they never count.
        g.rounds.retain(|(r, _)| *r <= round);
    }
    let mut dropped: Option<(u64, u64)> = None;
    if let Some(g) = &gcp {
        let before = records.len();
        records.retain(|(_, r)| {
            if r.kind != storage::redo::RecordKind::Commit || r.sequence == 0 || g.keeps(r.sequence)
            {
                return true;
            }
            if r.sequence >= g.below {
                // Void from the cut on: every number up to the highest dropped.
                let (_, last) = dropped.get_or_insert((g.below, r.sequence));
                *last = (*last).max(r.sequence);
            }
            false
        });
        if let Some((_, last)) = dropped {
            warn!(
                records = before - records.len(),
                last,
                cut = g.below,
                "restart dropped the commits logged past the last global checkpoint (interval durability: not a prefix of the commit order on disk)"
            );
        }
    }
    // (The log may begin before the checkpoint's cut: records a two-phase commit still
    // needed were kept, `worker::prepared`.)
    let two_phase = TwoPhase::of(&records, cut);
    if !two_phase.held.is_empty() {
        info!(
            parts = two_phase.held.len(),
            "restart found prepared parts of two-phase commits not ended: held until their coordinator's node group says how they ended"
        );
    }
    // Commits below the cut are in the checkpoint already; prepared rows are not applied.
    let mut records: Vec<Record> = records
        .into_iter()
        .map(|(_, r)| r)
        .filter(|r| r.sequence >= cut && r.kind == storage::redo::RecordKind::Commit)
        .collect();
    let mut parts: HashMap<u64, (u16, u16)> = HashMap::new();
    for r in &records {
        // (Saturating: decisions without rows all carry transaction 0, `TwoPhase::of`.)
        let e = parts.entry(r.transaction).or_insert((0, r.participants));
        e.0 = e.0.saturating_add(1);
    }
    let sequence_max = records
        .iter()
        .map(|r| r.sequence)
        .max()
        .unwrap_or(0)
        .max(cut)
        .max(dropped.map_or(0, |(_, last)| last));
    let transaction_max = records
        .iter()
        .map(|r| r.transaction)
        .max()
        .unwrap_or(0)
        .max(manifest.as_ref().map_or(0, |m| m.transaction_max));
    records.retain(|r| {
        two_phase.replay_anyway.contains(&r.transaction)
            || parts
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
    let mut applied = 0u64;
    // The largest AUTO_INCREMENT (or hidden key) value among the rows the redo puts.
    let auto_columns: HashMap<u32, usize> = catalog
        .entries()
        .filter_map(|e| auto_column(&e.def).map(|c| (e.def.id, c)))
        .collect();
    let mut auto_max: HashMap<u32, u64> = HashMap::new();
    for record in records {
        for change in record.changes {
            // Changes of tables dropped since are skipped with their partitions.
            let Some(part) = partitions.get_mut(&(change.table, change.partition)) else {
                continue;
            };
            if let (Some(row), Some(&column)) = (&change.row, auto_columns.get(&change.table)) {
                let v = counter_value(part.layout().value(row, column));
                let max = auto_max.entry(change.table).or_default();
                *max = (*max).max(v);
            }
            match change.row {
                Some(row) => part.put(row).map_err(|e| {
                    internal(format!("replaying a change of table {}: {e}", change.table))
                })?,
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
    match &manifest {
        // The manifest's counters cover the checkpoint's rows; the redo's rows were seen above.
        Some(m) => {
            for (table, next) in &m.counters {
                if let Some(entry) = catalog.get(*table) {
                    entry.observe_explicit(next.saturating_sub(1));
                }
            }
            for (table, max) in auto_max {
                if let Some(entry) = catalog.get(table) {
                    entry.observe_explicit(max);
                }
            }
            // A table the manifest has no counter for (a column change's new table, made
            // after the checkpoint's counters were read) may have rows in the checkpoint.
            restore_counters(&catalog, &partitions, |id| {
                !m.counters.iter().any(|(table, _)| *table == id)
            });
        }
        None => restore_counters(&catalog, &partitions, |_| true),
    }
    let rows: usize = partitions
        .values()
        .filter(|p| p.table().index_of.is_none())
        .map(|p| p.row_count())
        .sum();
    let elapsed = started.elapsed();
    info!(
        tables = catalog.names().len(),
        checkpoint = manifest.as_ref().map_or(0, |m| m.id),
        checkpoint_entries = loaded,
        redo_segments = segments,
        changes_replayed = applied,
        rows,
        seconds = elapsed.as_secs_f64(),
        rows_per_second = (rows as f64 / elapsed.as_secs_f64().max(1e-9)) as u64,
        "restart recovered the data directory"
    );
    let mut per_worker: Vec<Vec<((u32, u32), Partition)>> =
        (0..workers).map(|_| Vec::new()).collect();
    for ((table, p), part) in partitions {
        per_worker[placement.worker_of(p)].push(((table, p), part));
    }
    Ok(Recovered {
        catalog,
        partitions: per_worker,
        sequence_max,
        transaction_max,
        manifest,
        logs,
        two_phase,
        cut: gcp,
        dropped,
    })
}

/// The column whose values a table's counter hands out: AUTO_INCREMENT, or the hidden key.
fn auto_column(def: &base::TableDef) -> Option<usize> {
    match def.auto_increment_column() {
        Some(c) => Some(c),
        None if def.has_hidden_pk() => Some(def.primary_key[0] as usize),
        None => None,
    }
}

fn counter_value(v: Value) -> u64 {
    match v {
        Value::Int(v) => v.max(0) as u64,
        Value::UInt(v) => v,
        _ => 0,
    }
}

/// Raises the AUTO_INCREMENT (or hidden key) counters of the tables `changes` write above the
/// values their rows hold (rows a backup takes from its primary, or copies).
pub fn observe_counters(shared: &crate::Shared, changes: &[wire::RowChange]) {
    let Ok(catalog) = shared.catalog.read() else {
        return;
    };
    /// A table's entry, the column its counter hands out, and its row layout.
    type Counted = (
        std::sync::Arc<crate::catalog::TableEntry>,
        usize,
        storage::row::RowLayout,
    );
    let mut last: Option<(u32, Option<Counted>)> = None;
    for change in changes {
        let Some(row) = &change.row else {
            continue;
        };
        if last.as_ref().map(|(t, _)| *t) != Some(change.table) {
            let found = catalog.get(change.table).and_then(|entry| {
                let column = auto_column(&entry.def)?;
                let layout = storage::row::RowLayout::new(&entry.def);
                Some((entry.clone(), column, layout))
            });
            last = Some((change.table, found));
        }
        if let Some((_, Some((entry, column, layout)))) = &last {
            let v = counter_value(layout.value(row, *column));
            if v > 0 {
                entry.observe_explicit(v);
            }
        }
    }
}

/// Sets the AUTO_INCREMENT (or hidden key) counters of the `wanted` tables above the largest
/// value stored (all of them on a restart without a checkpoint, whose rows all came from the
/// redo).
fn restore_counters(
    catalog: &Catalog,
    partitions: &HashMap<(u32, u32), Partition>,
    wanted: impl Fn(u32) -> bool,
) {
    for entry in catalog.entries().filter(|e| wanted(e.def.id)) {
        let def = &entry.def;
        let Some(column) = auto_column(def) else {
            continue;
        };
        let mut max = 0u64;
        for p in 0..def.partition_count {
            if let Some(part) = partitions.get(&(def.id, p)) {
                part.scan(|row| {
                    max = max.max(counter_value(part.layout().value(row, column)));
                    true
                });
            }
        }
        if max > 0 {
            entry.observe_explicit(max);
        }
    }
}

/// Deletes the catalog, the checkpoints and every redo log in `dir` (an initial start); other
/// files stay. Returns how many files were removed.
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
        let manifest = crate::checkpoint::MANIFEST_FILE;
        let ours = name == crate::catalog::CATALOG_FILE
            || name == format!("{}.tmp", crate::catalog::CATALOG_FILE)
            || name == manifest
            || name == format!("{manifest}.tmp")
            || name == crate::gcp::GCP_FILE
            || name == format!("{}.tmp", crate::gcp::GCP_FILE)
            || (name.starts_with("lcp-") && name.ends_with(".ckpt"))
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

#[cfg(test)]
mod tests {
    use storage::redo::{Change, Record, RecordKind};

    use super::TwoPhase;
    use crate::replication::decision_name;

    fn record(
        kind: RecordKind,
        part: (u32, u64),
        sequence: u64,
        participants: u16,
    ) -> (u32, Record) {
        (
            0,
            Record {
                sequence,
                transaction: sequence,
                participants,
                changes: vec![Change {
                    table: 1,
                    partition: 0,
                    key: vec![part.1 as u8],
                    row: Some(vec![1, 2, 3].into_boxed_slice()),
                }],
                kind,
                name: Some(decision_name(part.0, part.1)),
            },
        )
    }

    fn on(worker: u32, (_, r): (u32, Record)) -> (u32, Record) {
        (worker, r)
    }

    /// A prepared part is held again unless a whole commit record or a drop record of its
    /// name followed; a commit is whole with every worker's part logged, or below the cut.
    #[test]
    fn prepared_parts_are_held_unless_a_whole_commit_or_a_drop_ended_them() {
        use RecordKind::*;
        let records = vec![
            record(Prepared, (1, 10), 0, 1),
            record(Commit, (1, 10), 50, 1),
            record(Prepared, (1, 11), 0, 1),
            record(Dropped, (1, 11), 0, 1),
            record(Prepared, (1, 12), 0, 1),
            // Prepared on two workers, whose commit only worker 0 logged before the node
            // stopped: worker 0's piece is replayed, worker 1's rows held again.
            record(Prepared, (1, 13), 0, 1),
            on(1, record(Prepared, (1, 13), 0, 1)),
            record(Commit, (1, 13), 60, 2),
            // A decision in the checkpoint already (below the cut of 40).
            record(Commit, (2, 14), 30, 2),
        ];
        let found = TwoPhase::of(&records, 40);
        let held: Vec<(u32, u64)> = found.held.iter().map(|(part, _)| *part).collect();
        assert_eq!(held, vec![(1, 12), (1, 13)]);
        assert_eq!(found.held[0].1.len(), 1, "the part's rows");
        assert_eq!(found.held[1].1.len(), 1, "worker 1's rows of part 13 only");
        assert!(
            found.replay_anyway.contains(&60),
            "worker 0's piece is replayed"
        );
        assert_eq!(
            found.decided,
            vec![decision_name(1, 10), decision_name(2, 14)]
        );
    }

    /// Decisions logged without rows all carry transaction 0: a node restarted many times
    /// (each restart logs its decisions again) holds more of them than a u16 counts. Found
    /// by system_restart.rs once nodes restarted from their own files (the count overflowed).
    #[test]
    fn more_decisions_than_a_u16_counts_are_read() {
        let records: Vec<(u32, Record)> = (0..70_000u64)
            .map(|i| {
                let (w, mut r) = record(RecordKind::Commit, (1, i), 0, 1);
                r.transaction = 0;
                r.changes.clear();
                (w, r)
            })
            .collect();
        let found = TwoPhase::of(&records, 0);
        assert_eq!(found.decided.len(), 70_000);
    }
}
