//! A worker's part of a scan, one batch at a time: from a place in its partitions (a row slot
//! of a full scan, the last index key of an index scan) it reads at most a batch of matching
//! rows and says where the next batch begins, holding nothing between batches.

use std::ops::{Bound, RangeBounds};

use base::{Error, ErrorCode, Value};
use hashbrown::HashMap;
use storage::filter::matches;
use storage::partition::prefix_bounds;
use wire::ScanOrder;

use super::{as_ref, changed, Worker};
use crate::messages::*;

/// A full scan whose partitions on one worker hold at most this many rows answers them in
/// primary-key order (`Worker::scan_sorted`), and the coordinator merges its streams by that
/// key: a small table reads back in the order InnoDB's clustered index gives, which
/// applications and ORMs written against MySQL come to rely on, though SQL promises no order
/// without ORDER BY. A larger table's full scan answers in slot order, as NDB's answer in no set
/// order.
pub(crate) const SORTED_SCAN_ROWS_MAX: usize = 1_024;

/// A transaction's uncommitted images of one table on this worker: by partition, by encoded
/// primary key (None: deleted).
type Changes<'a> = HashMap<u32, HashMap<&'a [u8], Option<&'a [u8]>>>;

/// One partition as a batch reads it: its rows projected as the plan asks, and the
/// transaction's images of its keys (by encoded primary key; None: deleted).
struct Reading<'a> {
    part: &'a storage::Partition,
    plan: &'a ScanPlan,
    mine: Option<&'a HashMap<&'a [u8], Option<&'a [u8]>>>,
    /// Scratch for a row's encoded primary key.
    pk: Vec<u8>,
}

impl Reading<'_> {
    fn project(&self, row: &[u8]) -> Vec<Value> {
        let layout = self.part.layout();
        self.plan
            .projection
            .iter()
            .map(|c| layout.value(row, *c as usize))
            .collect()
    }

    fn matches(&self, row: &[u8]) -> bool {
        matches(&self.plan.filter, &self.plan.table, self.part.layout(), row)
    }

    /// Whether a committed row is one of the batch's: the transaction did not change it (its
    /// image stands in) and the filter takes it.
    fn takes(&mut self, row: &[u8]) -> bool {
        if let Some(m) = self.mine {
            self.pk.clear();
            self.part
                .encode_row_key(row, &self.plan.table.primary_key, false, &mut self.pk);
            if m.contains_key(self.pk.as_slice()) {
                return false;
            }
        }
        self.matches(row)
    }
}

/// A batch being filled: its rows, their estimated bytes, and the most it may take.
struct Batch {
    rows: Vec<ScannedRow>,
    bytes: usize,
    rows_max: usize,
    bytes_max: usize,
}

impl Batch {
    /// Whether it is full, with `rows` more rows of `bytes` more bytes taken elsewhere.
    fn full_with(&self, rows: usize, bytes: usize) -> bool {
        self.rows.len() + rows >= self.rows_max || self.bytes + bytes >= self.bytes_max
    }

    fn full(&self) -> bool {
        self.full_with(0, 0)
    }

    fn push(&mut self, key: Vec<u8>, values: Vec<Value>) {
        self.bytes += row_bytes(&values);
        self.rows.push((key, values));
    }
}

impl Worker {
    /// The next batch of `plan`'s rows in `partitions` from `from` on: at most `max.0` rows,
    /// cut once they pass `max.1` bytes. With `txn`, the transaction's uncommitted images stand
    /// in for the committed rows of their keys: a changed or deleted row is skipped where the
    /// partition has it, and each image still present is matched on its own (bounds, filter),
    /// after the committed rows of a full scan, merged in key order into an index scan's. An
    /// ordered scan's rows carry their index keys and come sorted within each partition (the
    /// coordinator sends an ordered scan one partition per request).
    pub(super) fn scan(
        &self,
        partitions: &[u32],
        plan: &ScanPlan,
        txn: Option<TxnId>,
        from: ScanPlace,
        max: (usize, usize),
    ) -> Result<ScanPart, Error> {
        let mut batch = Batch {
            rows: Vec::new(),
            bytes: 0,
            rows_max: max.0.max(1),
            bytes_max: max.1.max(1),
        };
        let changes = txn.map_or_else(HashMap::new, |t| self.changes_of(t, plan.table.id));
        if plan.index.is_none() && plan.order == ScanOrder::Any {
            match &from.at {
                PlaceIn::Sorted(after) => {
                    return self.scan_sorted(partitions, plan, &changes, Some(after), batch)
                }
                PlaceIn::Start
                    if from.partition == 0
                        && self.rows_in(partitions, plan) <= SORTED_SCAN_ROWS_MAX =>
                {
                    return self.scan_sorted(partitions, plan, &changes, None, batch);
                }
                _ => {}
            }
        }
        let mut place = from;
        while let Some(&p) = partitions.get(place.partition) {
            let next = match plan.index {
                None => self.scan_rows(p, plan, &changes, &place.at, &mut batch)?,
                Some(index) if plan.by_keys => {
                    self.scan_keys(p, index, plan, &changes, &place.at, &mut batch)?
                }
                Some(index) => self.scan_index(p, index, plan, &changes, &place.at, &mut batch)?,
            };
            match next {
                Some(at) => {
                    place.at = at;
                    return Ok(ScanPart {
                        rows: batch.rows,
                        next: Some(place),
                    });
                }
                None => {
                    place.partition += 1;
                    place.at = PlaceIn::Start;
                }
            }
            if batch.full() && place.partition < partitions.len() {
                return Ok(ScanPart {
                    rows: batch.rows,
                    next: Some(place),
                });
            }
        }
        Ok(ScanPart {
            rows: batch.rows,
            next: None,
        })
    }

    /// The committed rows a scan's partitions hold now (0 for one that is not here: reading it
    /// fails anyway).
    fn rows_in(&self, partitions: &[u32], plan: &ScanPlan) -> usize {
        partitions
            .iter()
            .filter_map(|p| self.partitions.get(&(plan.table.id, *p)))
            .map(storage::Partition::row_count)
            .sum()
    }

    /// A small table's full scan (`SORTED_SCAN_ROWS_MAX`): the matching rows of all
    /// `partitions` past key `after`, the transaction's images standing in for theirs, in
    /// primary-key order, each keyed. A batch cut short says to go on past its last key. A table
    /// with an ordered index on its primary key (SQL gives every declared one) reads each
    /// partition's next rows from it, so a batch costs the same however large the table grew
    /// while its cursor was open; the keys are that index's. Any other table's partitions are
    /// read whole and sorted, by encoded primary key.
    fn scan_sorted(
        &self,
        partitions: &[u32],
        plan: &ScanPlan,
        changes: &Changes,
        after: Option<&[u8]>,
        mut batch: Batch,
    ) -> Result<ScanPart, Error> {
        let table = &plan.table;
        let primary = table.indexes.iter().position(|i| {
            i.kind == base::schema::IndexKind::Ordered
                && i.columns == table.primary_key
                && i.prefixes.iter().all(|p| *p == 0)
        });
        let (found, more) = match primary {
            Some(index) => self.sorted_by_index(partitions, plan, changes, index, after, &batch)?,
            None => (
                self.sorted_by_reading(partitions, plan, changes, after)?,
                false,
            ),
        };
        let mut last: Option<Vec<u8>> = None;
        for (key, values) in found {
            if batch.full() {
                let at = PlaceIn::Sorted(last.unwrap_or_default());
                return Ok(ScanPart {
                    rows: batch.rows,
                    next: Some(ScanPlace { partition: 0, at }),
                });
            }
            last = Some(key.clone());
            batch.push(key, values);
        }
        // Some partition's rows were cut at the batch's size: those past the last key are next.
        let next = last.filter(|_| more).map(|key| ScanPlace {
            partition: 0,
            at: PlaceIn::Sorted(key),
        });
        Ok(ScanPart {
            rows: batch.rows,
            next,
        })
    }

    /// [`Worker::scan_sorted`] through ordered index `index` (on the primary key): each
    /// partition's first rows past `after`, as many as a batch takes, merged in key order up to
    /// the least last key of a partition cut short (past it that partition's rows are unread);
    /// and whether one was.
    fn sorted_by_index(
        &self,
        partitions: &[u32],
        plan: &ScanPlan,
        changes: &Changes,
        index: usize,
        after: Option<&[u8]>,
        batch: &Batch,
    ) -> Result<(Vec<ScannedRow>, bool), Error> {
        let through = ScanPlan {
            table: plan.table.clone(),
            index: Some(index),
            lower: None,
            upper: None,
            keys: Vec::new(),
            by_keys: false,
            first_per_key: false,
            key_partitions: Vec::new(),
            filter: plan.filter.clone(),
            projection: plan.projection.clone(),
            limit: 0,
            order: ScanOrder::Ascending,
        };
        let lower = after.map_or(Bound::Unbounded, |a| Bound::Excluded(a.to_vec()));
        let mut found = Vec::new();
        // The least last key of the partitions cut short: past it, their rows are not read yet.
        let mut edge: Option<Vec<u8>> = None;
        for &p in partitions {
            let mut own = Batch {
                rows: Vec::new(),
                bytes: 0,
                rows_max: batch.rows_max,
                bytes_max: batch.bytes_max,
            };
            let bounds = (lower.clone(), Bound::Unbounded);
            let (resume, _) = self.scan_range(
                p,
                index,
                &through,
                changes,
                bounds,
                &PlaceIn::Start,
                &mut own,
            )?;
            if let (Some(_), Some((last, _))) = (resume, own.rows.last()) {
                if edge.as_ref().is_none_or(|e| last < e) {
                    edge = Some(last.clone());
                }
            }
            found.append(&mut own.rows);
        }
        found.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        if let Some(edge) = &edge {
            found.retain(|(key, _)| key <= edge);
        }
        Ok((found, edge.is_some()))
    }

    /// [`Worker::scan_sorted`] reading every row of the partitions: those past primary key
    /// `after`, sorted by it and projected.
    fn sorted_by_reading(
        &self,
        partitions: &[u32],
        plan: &ScanPlan,
        changes: &Changes,
        after: Option<&[u8]>,
    ) -> Result<Vec<ScannedRow>, Error> {
        let past = |pk: &[u8]| after.is_none_or(|a| pk > a);
        // Each row found: its key, its partition, and its slot there or the transaction's image.
        type Found<'a> = (Vec<u8>, &'a storage::Partition, Result<u32, &'a [u8]>);
        let mut found: Vec<Found> = Vec::new();
        let mut pk = Vec::new();
        for &p in partitions {
            let reading = self.reading(p, plan, changes)?;
            let part = reading.part;
            part.scan_from(0, |slot, row| {
                pk.clear();
                part.encode_row_key(row, &plan.table.primary_key, false, &mut pk);
                let mine = reading.mine.is_some_and(|m| m.contains_key(pk.as_slice()));
                if !mine && past(&pk) && reading.matches(row) {
                    found.push((pk.clone(), part, Ok(slot)));
                }
                true
            });
            for (pk, image) in reading.mine.into_iter().flatten() {
                if let Some(image) = image.filter(|i| past(pk) && reading.matches(i)) {
                    found.push((pk.to_vec(), part, Err(image)));
                }
            }
        }
        found.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        Ok(found
            .into_iter()
            .filter_map(|(key, part, row)| {
                let row = row.map_or_else(Some, |slot| part.row(slot))?;
                let layout = part.layout();
                let values = plan.projection.iter();
                Some((
                    key,
                    values.map(|c| layout.value(row, *c as usize)).collect(),
                ))
            })
            .collect())
    }

    /// Partition `p` as a batch of `plan` reads it, with `changes`' images of its keys.
    fn reading<'a>(
        &'a self,
        p: u32,
        plan: &'a ScanPlan,
        changes: &'a Changes<'a>,
    ) -> Result<Reading<'a>, Error> {
        Ok(Reading {
            part: self.partition(p, plan)?,
            plan,
            mine: changes.get(&p),
            pk: Vec::new(),
        })
    }

    fn partition(&self, p: u32, plan: &ScanPlan) -> Result<&storage::Partition, Error> {
        let Some(part) = self.partitions.get(&(plan.table.id, p)) else {
            return Err(Error::new(
                ErrorCode::NoSuchTable,
                format!("table '{}' partition {p} is not here", plan.table.name),
            ));
        };
        if part.table().version != plan.table.version {
            return Err(changed(part.table(), plan.table.version));
        }
        Ok(part)
    }

    /// A full scan of partition `p` from `at`: its committed rows by slot, then the
    /// transaction's images by primary key. Returns where the next batch begins, or None when
    /// the partition is done.
    fn scan_rows(
        &self,
        p: u32,
        plan: &ScanPlan,
        changes: &Changes,
        at: &PlaceIn,
        batch: &mut Batch,
    ) -> Result<Option<PlaceIn>, Error> {
        let mut reading = self.reading(p, plan, changes)?;
        let part = reading.part;
        let after_images = match at {
            PlaceIn::Images(after) => after.as_deref(),
            _ => {
                let from = match at {
                    PlaceIn::Slot(s) => *s,
                    _ => 0,
                };
                let mut stopped = None;
                part.scan_from(from, |slot, row| {
                    if batch.full() {
                        stopped = Some(slot);
                        return false;
                    }
                    if reading.takes(row) {
                        batch.push(Vec::new(), reading.project(row));
                    }
                    true
                });
                if let Some(slot) = stopped {
                    return Ok(Some(PlaceIn::Slot(slot)));
                }
                None
            }
        };
        let Some(mine) = reading.mine else {
            return Ok(None);
        };
        let mut images: Vec<(&[u8], &[u8])> = mine
            .iter()
            .filter_map(|(pk, image)| Some((*pk, (*image)?)))
            .filter(|(pk, _)| after_images.is_none_or(|a| *pk > a))
            .collect();
        images.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let mut last: Option<&[u8]> = after_images;
        for (pk, image) in images {
            if batch.full() {
                return Ok(Some(PlaceIn::Images(last.map(<[u8]>::to_vec))));
            }
            if reading.matches(image) {
                batch.push(Vec::new(), reading.project(image));
            }
            last = Some(pk);
        }
        Ok(None)
    }

    /// An index scan of partition `p` past `at`, the transaction's images in range merged in
    /// key order. Returns where the next batch begins (the key of the last row taken), or None
    /// when the partition is done.
    fn scan_index(
        &self,
        p: u32,
        index: usize,
        plan: &ScanPlan,
        changes: &Changes,
        at: &PlaceIn,
        batch: &mut Batch,
    ) -> Result<Option<PlaceIn>, Error> {
        let part = self.partition(p, plan)?;
        let descending = plan.order == ScanOrder::Descending;
        let enc = |b: &Option<(Vec<Value>, bool)>| {
            b.as_ref().map(|(values, inclusive)| {
                let mut k = Vec::new();
                part.encode_index_prefix(index, values, &mut k);
                (k, *inclusive)
            })
        };
        let (mut lower, mut upper) = prefix_bounds(enc(&plan.lower), enc(&plan.upper));
        if let PlaceIn::After(key) = at {
            // The keys already returned are behind it, whichever bound it tightens.
            if descending {
                upper = Bound::Excluded(key.clone());
            } else {
                lower = Bound::Excluded(key.clone());
            }
        }
        let (resume, _) = self.scan_range(p, index, plan, changes, (lower, upper), at, batch)?;
        Ok(resume)
    }

    /// An index scan of partition `p` by the plan's keys (batched key access): each key's
    /// rows in key order, those up to `at` already returned. Returns where the next batch
    /// begins, or None when the partition is done.
    fn scan_keys(
        &self,
        p: u32,
        index: usize,
        plan: &ScanPlan,
        changes: &Changes,
        at: &PlaceIn,
        batch: &mut Batch,
    ) -> Result<Option<PlaceIn>, Error> {
        let part = self.partition(p, plan)?;
        let mine = |i: &usize| plan.key_partitions.get(*i).is_none_or(|kp| *kp == p);
        let def = &plan.table;
        let whole_primary_key = def.indexes.get(index).is_some_and(|i| {
            i.columns == def.primary_key && (0..i.columns.len()).all(|at| i.prefix(at).is_none())
        }) && plan
            .keys
            .first()
            .is_some_and(|k| k.len() == def.primary_key.len())
            && plan.lower.is_none()
            && plan.upper.is_none();
        if whole_primary_key {
            return self.scan_primary_keys(p, index, plan, changes, at, batch);
        }
        // Each key's range: its prefix, within the bounds on the columns after it (if any).
        let encode = |k: &[Value], b: &Option<(Vec<Value>, bool)>| {
            let mut e = Vec::new();
            match b {
                Some((after, inclusive)) => {
                    let values: Vec<Value> = k.iter().chain(after).cloned().collect();
                    part.encode_index_prefix(index, &values, &mut e);
                    (e, *inclusive)
                }
                None => {
                    part.encode_index_prefix(index, k, &mut e);
                    (e, true)
                }
            }
        };
        // (encoded bound, inclusive) from and to.
        type Edge = (Vec<u8>, bool);
        let mut ranges: Vec<(Edge, Edge)> = plan
            .keys
            .iter()
            .enumerate()
            .filter(|(i, _)| mine(i))
            .map(|(_, k)| (encode(k, &plan.lower), encode(k, &plan.upper)))
            .collect();
        ranges.sort_unstable();
        ranges.dedup();
        // The key of the last row returned: the keys' ranges up to it are done.
        let mut last: Option<Vec<u8>> = match at {
            PlaceIn::After(k) => Some(k.clone()),
            _ => None,
        };
        for (from, to) in ranges {
            if batch.full() {
                // The next batch starts after the last row returned (or where this one did).
                return Ok(Some(last.map_or_else(|| at.clone(), PlaceIn::After)));
            }
            let (mut lower, upper) = prefix_bounds(Some(from), Some(to));
            let place = match &last {
                Some(k) => {
                    let done = match &upper {
                        Bound::Included(u) | Bound::Excluded(u) => u.as_slice() <= k.as_slice(),
                        Bound::Unbounded => false,
                    };
                    if done {
                        continue;
                    }
                    let within = match &lower {
                        Bound::Included(l) | Bound::Excluded(l) => k.as_slice() >= l.as_slice(),
                        Bound::Unbounded => true,
                    };
                    if within {
                        if plan.first_per_key {
                            // The last row returned was this key's one row.
                            continue;
                        }
                        lower = Bound::Excluded(k.clone());
                    }
                    PlaceIn::After(k.clone())
                }
                None => PlaceIn::Start,
            };
            let (resume, taken) =
                self.scan_range(p, index, plan, changes, (lower, upper), &place, batch)?;
            if resume.is_some() {
                return Ok(resume);
            }
            if taken.is_some() {
                last = taken;
            }
        }
        Ok(None)
    }

    /// `scan_keys` when each key is a whole primary key (a pushed join's child read by its
    /// primary key's ordered index): each key's row found by the primary key's hash, not by a
    /// range of the index, in the index's order, the transaction's image standing in for its
    /// row. Resumes past `at`'s index key as `scan_keys` does.
    fn scan_primary_keys(
        &self,
        p: u32,
        index: usize,
        plan: &ScanPlan,
        changes: &Changes,
        at: &PlaceIn,
        batch: &mut Batch,
    ) -> Result<Option<PlaceIn>, Error> {
        let reading = self.reading(p, plan, changes)?;
        let part = reading.part;
        let mut keys: Vec<(Vec<u8>, Vec<u8>)> = plan
            .keys
            .iter()
            .enumerate()
            .filter(|(i, _)| plan.key_partitions.get(*i).is_none_or(|kp| *kp == p))
            .map(|(_, k)| {
                let (mut prefix, mut pk) = (Vec::new(), Vec::new());
                part.encode_index_prefix(index, k, &mut prefix);
                part.encode_primary_key(k, &mut pk);
                (prefix, pk)
            })
            .collect();
        keys.sort_unstable();
        keys.dedup();
        let ordered = plan.order != ScanOrder::Any;
        // Keys up to the place a batch before ended at are done (a key's one row has an index
        // key starting with the key's; the keys go in order, so only the first ones can be).
        let done = match at {
            PlaceIn::After(k) => Some(k.as_slice()),
            _ => None,
        };
        // The last row returned: the next batch begins after its index key, made only when a
        // batch is cut (or each row's, for an ordered scan).
        let mut last: Option<&[u8]> = None;
        for (prefix, pk) in keys {
            if done.is_some_and(|d| prefix.as_slice() <= d) {
                continue;
            }
            if batch.full() {
                return Ok(Some(match last {
                    Some(row) => PlaceIn::After(part.index_key_of(index, row)),
                    None => at.clone(),
                }));
            }
            let row = match reading.mine.and_then(|m| m.get(pk.as_slice())) {
                Some(image) => *image,
                None => part.get(&pk),
            };
            let Some(row) = row.filter(|row| reading.matches(row)) else {
                continue;
            };
            let key = match ordered {
                true => part.index_key_of(index, row),
                false => Vec::new(),
            };
            batch.push(key, reading.project(row));
            last = Some(row);
        }
        Ok(None)
    }

    /// Partition `p`'s index rows between `bounds` into the batch, the transaction's images in
    /// range merged in key order. Returns where the next batch begins (the key of the last row
    /// taken; `at` when cut before any) or None when the range is done, and the key of the last
    /// row taken.
    #[allow(clippy::too_many_arguments)]
    fn scan_range(
        &self,
        p: u32,
        index: usize,
        plan: &ScanPlan,
        changes: &Changes,
        bounds: (
            storage::partition::IndexBound,
            storage::partition::IndexBound,
        ),
        at: &PlaceIn,
        batch: &mut Batch,
    ) -> Result<(Option<PlaceIn>, Option<Vec<u8>>), Error> {
        let mut reading = self.reading(p, plan, changes)?;
        let part = reading.part;
        let descending = plan.order == ScanOrder::Descending;
        let (lower, upper) = bounds;
        let mut here_bytes = 0;
        let mut rows: Vec<ScannedRow> = Vec::new();
        let mut cut = false;
        // A scan by keys wanting a key's first row only (a semi-join's probe).
        let one = plan.first_per_key;
        let visit = |key: &[u8], row: &[u8]| {
            if batch.full_with(rows.len(), here_bytes) {
                cut = true;
                return false;
            }
            if reading.takes(row) {
                let values = reading.project(row);
                here_bytes += row_bytes(&values);
                rows.push((key.to_vec(), values));
                // The key's first row is all a probe takes: read no further.
                return !one;
            }
            true
        };
        let (from, to) = (as_ref(&lower), as_ref(&upper));
        match one {
            true => part.scan_index_few(index, (from, to), descending, visit),
            false => part.scan_index(index, from, to, descending, visit),
        }
        let range = (as_ref(&lower), as_ref(&upper));
        let mut images: Vec<ScannedRow> = reading
            .mine
            .into_iter()
            .flat_map(|m| m.values().flatten())
            .filter_map(|image| {
                let key = part.index_key_of(index, image);
                (RangeBounds::<[u8]>::contains(&range, key.as_slice()) && reading.matches(image))
                    .then(|| (key, reading.project(image)))
            })
            .collect();
        if cut && rows.is_empty() {
            // Cut before any row: the images in range belong to the batch that resumes at `at`.
            images.clear();
        }
        if !images.is_empty() {
            if cut {
                // The partition's rows stopped at the last one read: an image past it waits
                // for the next batch, which starts there.
                if let Some((edge, _)) = rows.last() {
                    images.retain(|(k, _)| if descending { k >= edge } else { k <= edge });
                }
            }
            rows.append(&mut images);
            if descending {
                rows.sort_by(|a, b| b.0.cmp(&a.0));
            } else {
                rows.sort_by(|a, b| a.0.cmp(&b.0));
            }
            if one {
                rows.truncate(1);
            }
            let fits = batch.rows_max.saturating_sub(batch.rows.len());
            if rows.len() > fits {
                rows.truncate(fits);
                cut = true;
            }
        }
        let resume = if cut {
            rows.last().map(|(k, _)| PlaceIn::After(k.clone()))
        } else {
            None
        };
        let taken = rows.last().map(|(k, _)| k.clone());
        let ordered = plan.order != ScanOrder::Any;
        for (key, values) in rows {
            batch.push(if ordered { key } else { Vec::new() }, values);
        }
        // Cut before any row was taken (the batch was already full): the place stays.
        let resume = match (cut, resume) {
            (true, None) => Some(at.clone()),
            (_, resume) => resume,
        };
        Ok((resume, taken))
    }

    /// The uncommitted images `txn` holds for `table` on this worker, by partition and encoded
    /// primary key (None: deleted).
    fn changes_of(&self, txn: TxnId, table: u32) -> Changes<'_> {
        let mut by_partition: Changes = HashMap::new();
        let Some(state) = self.txns.get(&txn) else {
            return by_partition;
        };
        for ((t, pk), (partition, image)) in &state.pending {
            if *t == table {
                by_partition
                    .entry(*partition)
                    .or_default()
                    .insert(pk.as_slice(), image.as_deref());
            }
        }
        by_partition
    }
}
