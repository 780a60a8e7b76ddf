//! A worker's part of DDL that moves rows: the fence a column change or a unique-index build
//! puts on its table (waiting for lock holders to end), copying partitions into a new column
//! layout, collecting and filling unique-index entries, and logging what was built before the
//! catalog names it.

use std::sync::Arc;
use std::time::Instant;

use base::{Error, ErrorCode, TableDef, Value};
use storage::Partition;

use super::Worker;
use crate::messages::*;

/// Work that fenced its table on this worker, waiting until no lock on the table is held.
pub(super) struct WaitingFence {
    work: FencedWork,
    tag: u64,
    reply_to: ReplyTo,
    pub(super) deadline: Instant,
}

pub(super) enum FencedWork {
    Convert {
        conversion: Arc<crate::catalog::Conversion>,
        txn: TxnId,
        sequence: Arc<std::sync::atomic::AtomicU64>,
    },
    CollectUnique(Arc<crate::catalog::UniqueBuild>),
}

impl FencedWork {
    /// The table fenced.
    fn table(&self) -> &TableDef {
        match self {
            FencedWork::Convert { conversion, .. } => &conversion.from,
            FencedWork::CollectUnique(build) => &build.from,
        }
    }

    /// What the work is, for messages.
    fn what(&self) -> &'static str {
        match self {
            FencedWork::Convert { .. } => "column change",
            FencedWork::CollectUnique(_) => "unique index build",
        }
    }

    /// The answer to the coordinator when the work failed.
    fn failed(&self, tag: u64, error: Error) -> Event {
        match self {
            FencedWork::Convert { .. } => Event::Converted {
                tag,
                result: Err(error),
            },
            FencedWork::CollectUnique(_) => Event::Collected {
                tag,
                entries: Err(error),
            },
        }
    }
}

/// A column change logs its copied rows in records of about this many bytes.
const CONVERT_RECORD_BYTES: usize = 1 << 20;

impl Worker {
    /// Fences the table `work` is for (no new lock is taken on it, so the transactions holding
    /// one can only end), and runs the work once none is left.
    pub(super) fn fence(&mut self, work: FencedWork, tag: u64, reply_to: ReplyTo) {
        self.fenced.insert(work.table().id);
        self.fenced_work.push(WaitingFence {
            work,
            tag,
            reply_to,
            deadline: Instant::now() + self.lock_wait,
        });
        self.run_fenced();
    }

    /// Runs the fenced work whose table no transaction holds a lock on any more. Work that
    /// fails lifts its fence here; work done keeps it until the coordinator ends the change.
    pub(super) fn run_fenced(&mut self) {
        let mut c = 0;
        while c < self.fenced_work.len() {
            let from = self.fenced_work[c].work.table().id;
            if self.locks.keys().any(|(table, _)| *table == from) {
                c += 1;
                continue;
            }
            let w = self.fenced_work.swap_remove(c);
            let (event, failed) = match &w.work {
                FencedWork::Convert {
                    conversion,
                    txn,
                    sequence,
                } => {
                    let result = self.convert(conversion, *txn, sequence);
                    let failed = result.is_err();
                    (Event::Converted { tag: w.tag, result }, failed)
                }
                FencedWork::CollectUnique(build) => {
                    let entries = self.collect_unique(build);
                    let failed = entries.is_err();
                    (
                        Event::Collected {
                            tag: w.tag,
                            entries,
                        },
                        failed,
                    )
                }
            };
            if failed {
                self.fenced.remove(&from);
            }
            self.send(w.reply_to, event);
        }
    }

    /// Gives up the fenced work whose lock wait passed its deadline, lifting its fence.
    pub(super) fn expire_fenced(&mut self, now: Instant) {
        let mut c = 0;
        while c < self.fenced_work.len() {
            if self.fenced_work[c].deadline > now {
                c += 1;
                continue;
            }
            let w = self.fenced_work.swap_remove(c);
            let table = w.work.table();
            self.fenced.remove(&table.id);
            let error = Error::new(
                ErrorCode::LockWaitTimeout,
                format!(
                    "table '{}' stayed locked by an open transaction for {:?}; the {} was given up",
                    table.name,
                    self.lock_wait,
                    w.work.what()
                ),
            );
            let event = w.work.failed(w.tag, error);
            self.send(w.reply_to, event);
        }
    }

    /// A column change ended: when `done`, the old table's partitions go and the hidden
    /// unique-index tables take their new definitions; else the new partitions go. The table
    /// takes writes again.
    pub(super) fn end_conversion(
        &mut self,
        conversion: &crate::catalog::Conversion,
        done: bool,
        hidden: &[Arc<TableDef>],
    ) {
        let (from, to) = (conversion.from.id, conversion.to.id);
        self.fenced.remove(&from);
        let gone = if done { from } else { to };
        self.partitions.retain(|(table, _), _| *table != gone);
        self.retired.insert(gone);
        for table in hidden {
            self.redefine(table, None);
        }
        // Steps that waited for a lock on the old table now fail cleanly.
        self.retry_parked();
    }

    /// A unique-index build ended: when `done`, the table's partitions take the definition
    /// with the index and index their rows by it; else the hidden partitions go. The table
    /// takes writes again.
    pub(super) fn end_unique(&mut self, build: &crate::catalog::UniqueBuild, done: bool) {
        self.fenced.remove(&build.from.id);
        if done {
            for ((id, _), part) in self.partitions.iter_mut() {
                if *id == build.to.id {
                    part.add_ordered_index(build.to.clone());
                }
            }
        } else {
            self.partitions
                .retain(|(table, _), _| *table != build.hidden.id);
        }
        self.retry_parked();
    }

    /// Copies this worker's partitions of `c.from` into new partitions of `c.to`, each row
    /// taking its kept columns' values and the added columns' fill values, then logs and
    /// installs them (`install_logged`).
    fn convert(
        &mut self,
        c: &crate::catalog::Conversion,
        txn: TxnId,
        sequence: &std::sync::atomic::AtomicU64,
    ) -> Result<(), Error> {
        use wire::ColumnSource;
        let from = c.from.id;
        let layout = storage::RowLayout::new(&c.to);
        let mut numbers: Vec<u32> = self
            .partitions
            .keys()
            .filter(|(table, _)| *table == from)
            .map(|(_, p)| *p)
            .collect();
        numbers.sort_unstable();
        let mut built = Vec::with_capacity(numbers.len());
        for p in numbers {
            let old = &self.partitions[&(from, p)];
            let old_layout = old.layout().clone();
            // Every copied row is a change, so a checkpoint taken from here on holds it.
            let mut part = self.new_partition(&c.to);
            part.reserve(old.row_count());
            part.begin_bulk();
            let mut failed = None;
            old.scan(|row| {
                let values: Result<Vec<Value>, Error> = c
                    .sources
                    .iter()
                    .zip(&c.to.columns)
                    .map(|(source, to)| match source {
                        ColumnSource::Kept(i) => {
                            let v = old_layout.value(row, *i as usize);
                            if v.is_null() && !to.nullable {
                                return Err(Error::new(
                                    ErrorCode::NullNotAllowed,
                                    format!("column '{}' cannot be NULL", to.name),
                                ));
                            }
                            // A converted column: the value as the new definition holds it, or
                            // an error when it does not fit.
                            c.from.columns[*i as usize].convert_value(to, v)
                        }
                        ColumnSource::Filled(v) => Ok(v.clone()),
                    })
                    .collect();
                match values
                    .and_then(|v| layout.encode(&v))
                    .and_then(|r| part.insert(r))
                {
                    Ok(_) => true,
                    Err(e) => {
                        failed = Some(e);
                        false
                    }
                }
            });
            if let Some(e) = failed {
                return Err(e);
            }
            part.end_bulk();
            built.push((p, part));
        }
        let rows: usize = built.iter().map(|(_, part)| part.row_count()).sum();
        self.install_logged(&c.to, built, txn, sequence)?;
        tracing::info!(table = %c.from.name, rows, "copied rows into the new column layout");
        Ok(())
    }

    /// Builds this worker's part of a unique index: the entry of every row of its partitions
    /// of `b.from` whose key has no NULL, as a row of the hidden table with the hidden
    /// partition it belongs in.
    fn collect_unique(&self, b: &crate::catalog::UniqueBuild) -> Result<IndexEntries, Error> {
        let index = &b.to.indexes[b.to.indexes.len() - 1];
        let key_columns: Vec<u16> = (0..index.columns.len() as u16).collect();
        let layout = storage::RowLayout::new(&b.hidden);
        let mut entries = Vec::new();
        let mut failed = None;
        for ((table, _), part) in &self.partitions {
            if *table != b.from.id {
                continue;
            }
            let base = part.layout();
            entries.reserve(part.row_count());
            part.scan(|row| {
                let mut values: Vec<Value> = index
                    .columns
                    .iter()
                    .enumerate()
                    .map(|(i, c)| index.cut(&b.from, i, base.value(row, *c as usize)))
                    .collect();
                // Rows with a NULL in a unique key are not indexed: NULLs never collide.
                if values.iter().any(Value::is_null) {
                    return true;
                }
                let (_, partition) = crate::prepare::locate(&b.hidden, &key_columns, &values);
                values.extend(
                    b.from
                        .primary_key
                        .iter()
                        .map(|c| base.value(row, *c as usize)),
                );
                match layout.encode(&values) {
                    Ok(entry) => {
                        entries.push((partition, entry));
                        true
                    }
                    Err(e) => {
                        failed = Some(e);
                        false
                    }
                }
            });
            if let Some(e) = failed {
                return Err(e);
            }
        }
        Ok(entries)
    }

    /// Fills this worker's `partitions` of a unique index's hidden table with `entries`; two
    /// with one key are `DuplicateKey`, naming the key as MariaDB does. Logged and installed as
    /// a column change's copy is (`install_logged`).
    pub(super) fn fill_unique(
        &mut self,
        b: &crate::catalog::UniqueBuild,
        partitions: &[u32],
        entries: IndexEntries,
        txn: TxnId,
        sequence: &std::sync::atomic::AtomicU64,
    ) -> Result<(), Error> {
        let mut built: Vec<(u32, Partition)> = partitions
            .iter()
            .map(|p| (*p, self.new_partition(&b.hidden)))
            .collect();
        built.sort_unstable_by_key(|(p, _)| *p);
        let index = &b.to.indexes[b.to.indexes.len() - 1];
        let count = entries.len();
        let mut key = Vec::new();
        for (p, entry) in entries {
            let Ok(at) = built.binary_search_by_key(&p, |(p, _)| *p) else {
                return Err(Error::new(
                    ErrorCode::Internal,
                    format!("partition {p} of '{}' is not on this worker", b.hidden.name),
                ));
            };
            let part = &mut built[at].1;
            key.clear();
            part.encode_row_key(&entry, &b.hidden.primary_key, false, &mut key);
            if let Some(held) = part.get(&key) {
                let values = part.layout().values(held);
                return Err(super::duplicate_entry(
                    &values[..index.columns.len()],
                    &index.name,
                ));
            }
            part.insert(entry)?;
        }
        self.install_logged(&b.hidden, built, txn, sequence)?;
        tracing::info!(table = %b.from.name, index = %b.hidden.name, entries = count, "filled unique index");
        Ok(())
    }

    /// Logs the rows of `built`, new partitions of `table` (when the table is logged), as
    /// transaction `txn` under a commit number taken now, fsynced before the caller answers:
    /// the catalog names the table only after every worker answered, and a restart then finds
    /// its rows in the redo or in a checkpoint taken after this. Then installs the partitions.
    fn install_logged(
        &mut self,
        table: &TableDef,
        built: Vec<(u32, Partition)>,
        txn: TxnId,
        sequence: &std::sync::atomic::AtomicU64,
    ) -> Result<(), Error> {
        let logged = self.logging.is_some() && !table.options.nologging;
        let number = sequence.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        if let (true, Some(logging)) = (logged, &mut self.logging) {
            let mut appended = Ok(());
            for (p, part) in &built {
                let mut chunk: Vec<(Vec<u8>, &[u8])> = Vec::new();
                let mut bytes = 0;
                for id in 0..part.slots() {
                    let Some(row) = part.row(id as storage::RowId) else {
                        continue;
                    };
                    let mut key = Vec::new();
                    part.encode_row_key(row, &table.primary_key, false, &mut key);
                    bytes += key.len() + row.len() + 20;
                    chunk.push((key, row));
                    if bytes >= CONVERT_RECORD_BYTES {
                        appended = appended.and_then(|()| {
                            log_rows(&mut logging.log, number, txn, table.id, *p, &chunk)
                        });
                        chunk.clear();
                        bytes = 0;
                    }
                }
                if !chunk.is_empty() {
                    appended = appended.and_then(|()| {
                        log_rows(&mut logging.log, number, txn, table.id, *p, &chunk)
                    });
                }
            }
            if let Err(e) = appended.and_then(|()| logging.log.flush(true)) {
                self.failure.get_or_insert(e.to_string());
                // The node fails (fail-stop); the change may be partly done here, so this is
                // not the "not run" refusal of a stopping node (`ShuttingDown`).
                return Err(Error::new(ErrorCode::Internal, format!("redo log: {e}")));
            }
        }
        for (p, part) in built {
            self.partitions.insert((table.id, p), part);
        }
        Ok(())
    }
}

fn log_rows(
    log: &mut storage::redo::RedoLog,
    sequence: u64,
    txn: TxnId,
    table: u32,
    partition: u32,
    rows: &[(Vec<u8>, &[u8])],
) -> Result<(), storage::redo::RedoError> {
    let refs = rows.iter().map(|(key, row)| storage::redo::ChangeRef {
        table,
        partition,
        key,
        row: Some(row),
    });
    log.append_changes(
        storage::redo::RecordHead {
            sequence,
            transaction: txn,
            participants: 1,
            ..Default::default()
        },
        refs,
    )
}
