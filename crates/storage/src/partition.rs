//! One partition: rows in a slab addressed by row id, a hash index from encoded primary key to row
//! id, and one ordered index (a B-tree of encoded index key + primary key) per secondary index.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use base::key;
use base::placement::table_hash;
use base::{Error, ErrorCode, TableDef, Value};
use hashbrown::HashTable;
use smallvec::SmallVec;

use crate::row::RowLayout;

/// A row's slot in the partition's slab; stable while the row exists.
pub type RowId = u32;

/// What the allocator adds to a row image on average (rounding up to its size class).
const ROW_ALLOCATION_BYTES: usize = 16;

/// What one entry of an ordered index holds on average: its inline key and row id, in B-tree
/// nodes about two-thirds full.
const INDEX_ENTRY_BYTES: usize = 48;

/// A bound on encoded ordered-index keys.
pub type IndexBound = Bound<Vec<u8>>;

/// Ordered-index entries: encoded index columns followed by the encoded primary key, inline up to
/// 16 bytes (an INT plus a BIGINT key fits), so most entries need no allocation of their own.
type IndexKey = SmallVec<[u8; 16]>;

struct OrderedIndex {
    columns: Vec<u16>,
    /// Per column, the characters of its values the keys hold (0 all); empty for none.
    prefixes: Vec<u32>,
    entries: BTreeMap<IndexKey, RowId>,
}

/// One partition of one table. Owned by one worker thread; holds committed rows only.
pub struct Partition {
    table: Arc<TableDef>,
    layout: Arc<RowLayout>,
    rows: Vec<Option<Box<[u8]>>>,
    free: Vec<RowId>,
    primary: HashTable<RowId>,
    ordered: Vec<OrderedIndex>,
    live_rows: usize,
    row_bytes: usize,
    scratch: Cell<Vec<u8>>,
    /// Bulk loading: ordered indexes are left alone and rebuilt at the end.
    bulk: bool,
    /// What changed since the last [`Partition::take_changes`], when tracked.
    changes: Option<ChangeSet>,
}

/// The rows a partition changed since a point: slots written (a bitmap of row ids) and the
/// primary keys deleted. A partial checkpoint writes exactly these.
#[derive(Debug, Default)]
pub struct ChangeSet {
    written: Vec<u64>,
    pub deleted: Vec<Box<[u8]>>,
    marked: usize,
}

impl ChangeSet {
    fn mark(&mut self, id: RowId) {
        let (word, bit) = (id as usize / 64, id % 64);
        if word >= self.written.len() {
            self.written.resize(word + 1, 0);
        }
        if let Some(bits) = self.written.get_mut(word).filter(|b| **b & (1 << bit) == 0) {
            *bits |= 1 << bit;
            self.marked += 1;
        }
    }

    /// Row ids written (the slot may be empty again or hold another row by now), ascending,
    /// from `from` on.
    pub fn written_from(&self, from: RowId) -> impl Iterator<Item = RowId> + '_ {
        let first = from as usize / 64;
        self.written
            .iter()
            .enumerate()
            .skip(first)
            .flat_map(|(w, bits)| {
                (0..64u32)
                    .filter(move |b| bits & (1u64 << b) != 0)
                    .map(move |b| (w * 64) as RowId + b)
            })
            .filter(move |id| *id >= from)
    }

    /// How many slots were written.
    pub fn written_count(&self) -> usize {
        self.marked
    }
}

impl Partition {
    pub fn new(table: Arc<TableDef>) -> Partition {
        let ordered = table
            .indexes
            .iter()
            .map(|i| OrderedIndex {
                columns: i.columns.clone(),
                prefixes: i.prefixes.clone(),
                entries: BTreeMap::new(),
            })
            .collect();
        Partition {
            layout: Arc::new(RowLayout::new(&table)),
            table,
            rows: Vec::new(),
            free: Vec::new(),
            primary: HashTable::new(),
            ordered,
            live_rows: 0,
            row_bytes: 0,
            scratch: Cell::new(Vec::new()),
            bulk: false,
            changes: None,
        }
    }

    /// Starts (or restarts) recording changed rows for partial checkpoints.
    pub fn track_changes(&mut self) {
        self.changes = Some(ChangeSet::default());
    }

    /// The changes recorded since tracking started or the last call; recording goes on afresh.
    pub fn take_changes(&mut self) -> Option<ChangeSet> {
        self.changes.as_mut().map(std::mem::take)
    }

    /// Row slots, used or free: row ids are below this.
    pub fn slots(&self) -> usize {
        self.rows.len()
    }

    pub fn table(&self) -> &Arc<TableDef> {
        &self.table
    }

    pub fn layout(&self) -> &Arc<RowLayout> {
        &self.layout
    }

    pub fn row_count(&self) -> usize {
        self.live_rows
    }

    /// Bytes held by row images (not counting index overhead).
    pub fn row_bytes(&self) -> usize {
        self.row_bytes
    }

    /// An estimate of the memory the partition holds, what a data node's data memory limit
    /// bounds: the row images with their allocations' rounding, the slab of row slots, the
    /// primary-key hash table and the ordered indexes' entries. Cheap: no walk over rows.
    pub fn memory_bytes(&self) -> usize {
        self.row_bytes
            + self.live_rows * (ROW_ALLOCATION_BYTES + self.ordered.len() * INDEX_ENTRY_BYTES)
            + self.rows.len() * std::mem::size_of::<Option<Box<[u8]>>>()
            + self.live_rows * (std::mem::size_of::<RowId>() + 1)
    }

    /// The part of [`Partition::memory_bytes`] its indexes hold: the primary key's hash entries
    /// and the ordered indexes' entries.
    pub fn index_memory_bytes(&self) -> usize {
        self.live_rows * (self.ordered.len() * INDEX_ENTRY_BYTES + std::mem::size_of::<RowId>() + 1)
    }

    /// What one more row of `row_bytes` adds to [`Partition::memory_bytes`] (its slot and hash
    /// entry counted as they are on average).
    pub fn row_memory_bytes(&self, row_bytes: usize) -> usize {
        row_bytes
            + ROW_ALLOCATION_BYTES
            + self.ordered.len() * INDEX_ENTRY_BYTES
            + std::mem::size_of::<Option<Box<[u8]>>>()
            + std::mem::size_of::<RowId>()
            + 1
    }

    /// Appends the encoding of columns `columns` of `row`; nullable columns get a tag byte.
    pub fn encode_row_key(&self, row: &[u8], columns: &[u16], tagged: bool, out: &mut Vec<u8>) {
        encode_row_key(&self.table, &self.layout, row, columns, tagged, out);
    }

    /// Appends the encoding of a primary key given as canonical values.
    pub fn encode_primary_key(&self, values: &[Value], out: &mut Vec<u8>) {
        self.table.encode_key(&self.table.primary_key, values, out);
    }

    /// Appends the encoding of a prefix of ordered index `index`, given as canonical values.
    /// A column the index holds a prefix of takes the value's cut sort key, as the rows'
    /// keys do. Values past the index's columns are of the primary key's, which ends every
    /// entry (an extended key, as InnoDB's secondary keys hold the primary key). An index the
    /// partition lacks gives no key.
    pub fn encode_index_prefix(&self, index: usize, values: &[Value], out: &mut Vec<u8>) {
        let Some(ordered) = self.ordered.get(index) else {
            return;
        };
        let (own, extended) = values.split_at(values.len().min(ordered.columns.len()));
        for (i, (c, v)) in ordered.columns.iter().zip(own).enumerate() {
            // The definition's indexes name its own columns (checked when it was made).
            let Some(col) = self.table.columns.get(usize::from(*c)) else {
                continue;
            };
            let prefix = ordered.prefixes.get(i).copied().unwrap_or(0);
            match v {
                Value::Bytes(b) if prefix > 0 => {
                    if col.nullable {
                        out.push(key::VALUE_TAG);
                    }
                    key::encode_string_prefix(b, col.collation, prefix, out);
                }
                _ if col.nullable => key::encode_nullable(v, col.ty, col.collation, out),
                _ => key::encode_value(v, col.ty, col.collation, out),
            }
        }
        // The primary key's columns are never NULL, and encoded whole (`encode_key_columns`).
        for (c, v) in self.table.primary_key.iter().zip(extended) {
            if let Some(col) = self.table.columns.get(usize::from(*c)) {
                key::encode_value(v, col.ty, col.collation, out);
            }
        }
    }

    /// Appends the key `row` has in ordered index `index`, without its primary key.
    fn encode_index_columns(&self, index: usize, row: &[u8], out: &mut Vec<u8>) {
        let Some(ordered) = self.ordered.get(index) else {
            return;
        };
        encode_key_columns(
            &self.table,
            &self.layout,
            row,
            (&ordered.columns, &ordered.prefixes),
            true,
            out,
        );
    }

    fn with_scratch<R>(&self, f: impl FnOnce(&mut Vec<u8>) -> R) -> R {
        let mut buf = self.scratch.take();
        buf.clear();
        let r = f(&mut buf);
        self.scratch.set(buf);
        r
    }

    /// Makes room for `additional` more rows, so bulk loading (restart) grows nothing row by row.
    pub fn reserve(&mut self, additional: usize) {
        self.rows.reserve(additional);
        let (rows, table, layout) = (&self.rows, &self.table, &self.layout);
        self.primary.reserve(additional, |existing| {
            let mut buf = Vec::new();
            let row = slot_row(rows, *existing).unwrap_or_default();
            encode_row_key(table, layout, row, &table.primary_key, false, &mut buf);
            table_hash(&buf)
        });
    }

    /// The row id holding primary key `pk` (encoded).
    pub fn find(&self, pk: &[u8]) -> Option<RowId> {
        let hash = table_hash(pk);
        self.with_scratch(|buf| {
            self.primary
                .find(hash, |id| {
                    buf.clear();
                    let row = slot_row(&self.rows, *id).unwrap_or_default();
                    encode_row_key(
                        &self.table,
                        &self.layout,
                        row,
                        &self.table.primary_key,
                        false,
                        buf,
                    );
                    buf.as_slice() == pk
                })
                .copied()
        })
    }

    /// The committed row with primary key `pk`.
    pub fn get(&self, pk: &[u8]) -> Option<&[u8]> {
        self.find(pk).and_then(|id| self.row(id))
    }

    pub fn row(&self, id: RowId) -> Option<&[u8]> {
        slot_row(&self.rows, id)
    }

    /// Inserts a row; fails with DuplicateKey if its primary key exists.
    pub fn insert(&mut self, row: Box<[u8]>) -> Result<RowId, Error> {
        let mut pk = Vec::new();
        self.encode_row_key(&row, &self.table.primary_key, false, &mut pk);
        if self.find(&pk).is_some() {
            return Err(Error::new(
                ErrorCode::DuplicateKey,
                format!("duplicate primary key in table '{}'", self.table.name),
            ));
        }
        Ok(self.insert_new(row, &pk))
    }

    /// Inserts the row, or replaces the one with its primary key (a restart's loading). The
    /// image comes from disk: one that does not hold every column of the table is refused.
    pub fn put(&mut self, row: Box<[u8]>) -> Result<(), Error> {
        self.layout.check(&row).map_err(|e| {
            Error::new(
                e.code,
                format!("table '{}': {}", self.table.name, e.message),
            )
        })?;
        let mut pk = Vec::new();
        self.encode_row_key(&row, &self.table.primary_key, false, &mut pk);
        if self.find(&pk).is_some() {
            return self.replace(&pk, row).map(|_| ());
        }
        self.insert_new(row, &pk);
        Ok(())
    }

    /// Stores a row whose primary key `pk` is known to be absent.
    fn insert_new(&mut self, row: Box<[u8]>, pk: &[u8]) -> RowId {
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                self.rows.push(None);
                (self.rows.len() - 1) as RowId
            }
        };
        self.add_index_entries(&row, pk, id);
        self.row_bytes += row.len();
        self.live_rows += 1;
        // `id` is a slot `delete` emptied, or the one just pushed.
        if let Some(slot) = self.rows.get_mut(id as usize) {
            *slot = Some(row);
        }
        if let Some(changes) = &mut self.changes {
            changes.mark(id);
        }
        let (rows, table, layout) = (&self.rows, &self.table, &self.layout);
        self.primary.insert_unique(table_hash(pk), id, |existing| {
            let mut buf = Vec::new();
            let row = slot_row(rows, *existing).unwrap_or_default();
            encode_row_key(table, layout, row, &table.primary_key, false, &mut buf);
            table_hash(&buf)
        });
        id
    }

    /// Replaces the row with primary key `pk` by `row` (same primary key); returns the old image.
    pub fn replace(&mut self, pk: &[u8], row: Box<[u8]>) -> Result<Box<[u8]>, Error> {
        let id = self
            .find(pk)
            .ok_or_else(|| Error::new(ErrorCode::NotFound, "row to update not found"))?;
        let mut new_pk = Vec::new();
        self.encode_row_key(&row, &self.table.primary_key, false, &mut new_pk);
        if new_pk != pk {
            return Err(Error::new(
                ErrorCode::BadRequest,
                "an update cannot change the primary key",
            ));
        }
        // `find` gave a slot that holds a row.
        let old = self
            .rows
            .get_mut(id as usize)
            .and_then(Option::take)
            .unwrap_or_default();
        self.remove_index_entries(&old, pk);
        self.add_index_entries(&row, pk, id);
        self.row_bytes = self.row_bytes + row.len() - old.len();
        if let Some(slot) = self.rows.get_mut(id as usize) {
            *slot = Some(row);
        }
        if let Some(changes) = &mut self.changes {
            changes.mark(id);
        }
        Ok(old)
    }

    /// Deletes the row with primary key `pk`; returns its image.
    pub fn delete(&mut self, pk: &[u8]) -> Option<Box<[u8]>> {
        let hash = table_hash(pk);
        let id = self.find(pk)?;
        if let Ok(entry) = self.primary.find_entry(hash, |x| *x == id) {
            entry.remove();
        }
        let old = self.rows.get_mut(id as usize)?.take()?;
        self.remove_index_entries(&old, pk);
        self.free.push(id);
        if let Some(changes) = &mut self.changes {
            changes.deleted.push(pk.into());
        }
        self.live_rows -= 1;
        self.row_bytes -= old.len();
        Some(old)
    }

    /// The key `row` has (or would have) in ordered index `index`: its columns, then the
    /// primary key.
    pub fn index_key_of(&self, index: usize, row: &[u8]) -> Vec<u8> {
        let mut key = Vec::new();
        self.encode_index_columns(index, row, &mut key);
        self.encode_row_key(row, &self.table.primary_key, false, &mut key);
        key
    }

    fn index_key(&self, index: usize, row: &[u8], pk: &[u8]) -> IndexKey {
        self.with_scratch(|buf| {
            self.encode_index_columns(index, row, buf);
            buf.extend_from_slice(pk);
            IndexKey::from_slice(buf)
        })
    }

    /// Starts bulk loading (restart): inserts, replaces and deletes skip the ordered indexes,
    /// which [`Partition::end_bulk`] then builds once from sorted keys, far faster than
    /// inserting keys in random order and with fuller B-tree nodes.
    pub fn begin_bulk(&mut self) {
        self.bulk = true;
        for index in &mut self.ordered {
            index.entries.clear();
        }
    }

    /// Ends bulk loading: builds every ordered index from the rows present.
    pub fn end_bulk(&mut self) {
        self.bulk = false;
        for i in 0..self.ordered.len() {
            self.build_ordered(i);
        }
    }

    /// Builds ordered index `i` from the rows present, from sorted keys.
    fn build_ordered(&mut self, i: usize) {
        let mut entries: Vec<(IndexKey, RowId)> = Vec::with_capacity(self.live_rows);
        let mut pk = Vec::new();
        for (id, row) in self.rows.iter().enumerate() {
            if let Some(row) = row {
                pk.clear();
                self.encode_row_key(row, &self.table.primary_key, false, &mut pk);
                entries.push((self.index_key(i, row, &pk), id as RowId));
            }
        }
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        if let Some(index) = self.ordered.get_mut(i) {
            index.entries = entries.into_iter().collect();
        }
    }

    /// Takes `table`, the partition's table with one more ordered index at the end of its
    /// indexes (columns unchanged), and builds that index over the rows present.
    pub fn add_ordered_index(&mut self, table: Arc<TableDef>) {
        debug_assert_eq!(table.indexes.len(), self.ordered.len() + 1);
        let Some(index) = table.indexes.last() else {
            return;
        };
        self.ordered.push(OrderedIndex {
            columns: index.columns.clone(),
            prefixes: index.prefixes.clone(),
            entries: BTreeMap::new(),
        });
        self.table = table;
        if !self.bulk {
            self.build_ordered(self.ordered.len() - 1);
        }
    }

    /// Takes a new definition of the partition's table whose rows and columns are unchanged (a
    /// rename, new options, or ordered index `dropped` of the old definition removed).
    pub fn redefine(&mut self, table: Arc<TableDef>, dropped: Option<usize>) {
        if let Some(i) = dropped {
            if i < self.ordered.len() {
                self.ordered.remove(i);
            }
        }
        debug_assert_eq!(table.indexes.len(), self.ordered.len());
        self.table = table;
    }

    fn add_index_entries(&mut self, row: &[u8], pk: &[u8], id: RowId) {
        if self.bulk {
            return;
        }
        for i in 0..self.ordered.len() {
            let k = self.index_key(i, row, pk);
            if let Some(index) = self.ordered.get_mut(i) {
                index.entries.insert(k, id);
            }
        }
    }

    fn remove_index_entries(&mut self, row: &[u8], pk: &[u8]) {
        if self.bulk {
            return;
        }
        for i in 0..self.ordered.len() {
            let k = self.index_key(i, row, pk);
            if let Some(index) = self.ordered.get_mut(i) {
                index.entries.remove(&k);
            }
        }
    }

    /// Visits every row; the visitor returns false to stop.
    pub fn scan(&self, mut visit: impl FnMut(&[u8]) -> bool) {
        self.scan_from(0, |_, row| visit(row));
    }

    /// Visits the rows in slot order from slot `from` on, each with its slot; the visitor
    /// returns false to stop. A scan taken up again at the slot after the last one it visited
    /// sees every row that stayed in place meanwhile exactly once.
    pub fn scan_from(&self, from: RowId, visit: impl FnMut(RowId, &[u8]) -> bool) {
        let rows = self
            .rows
            .iter()
            .enumerate()
            .skip(from as usize)
            .filter_map(|(id, row)| Some((id as RowId, &**row.as_ref()?)));
        visit_batched(rows, 4, visit);
    }

    /// Visits rows of ordered index `index` between two bounds on encoded keys, in key order (or
    /// reverse); the visitor gets the index key and the row and returns false to stop. An index
    /// the partition lacks holds no rows.
    pub fn scan_index(
        &self,
        index: usize,
        lower: Bound<&[u8]>,
        upper: Bound<&[u8]>,
        descending: bool,
        visit: impl FnMut(&[u8], &[u8]) -> bool,
    ) {
        if let (Bound::Included(l) | Bound::Excluded(l), Bound::Included(u) | Bound::Excluded(u)) =
            (lower, upper)
        {
            if l > u
                || (l == u
                    && !(matches!(lower, Bound::Included(_))
                        && matches!(upper, Bound::Included(_))))
            {
                return;
            }
        }
        let Some(ordered) = self.ordered.get(index) else {
            return;
        };
        let range = ordered.entries.range::<[u8], _>((lower, upper));
        if descending {
            visit_batched(range.rev().filter_map(|e| self.entry_row(e)), 4, visit);
        } else {
            visit_batched(range.filter_map(|e| self.entry_row(e)), 4, visit);
        }
    }

    /// [`Partition::scan_index`] for a visitor that wants a row or two (a semi-join's probe
    /// takes a key's first row): only the near bound is searched for in the index, the far
    /// one checked on each entry read, and rows are touched from the first on, not four ahead.
    pub fn scan_index_few(
        &self,
        index: usize,
        (lower, upper): (Bound<&[u8]>, Bound<&[u8]>),
        descending: bool,
        visit: impl FnMut(&[u8], &[u8]) -> bool,
    ) {
        let Some(ordered) = self.ordered.get(index) else {
            return;
        };
        let under = |k: &IndexKey| match upper {
            Bound::Included(u) => k.as_slice() <= u,
            Bound::Excluded(u) => k.as_slice() < u,
            Bound::Unbounded => true,
        };
        let over = |k: &IndexKey| match lower {
            Bound::Included(l) => k.as_slice() >= l,
            Bound::Excluded(l) => k.as_slice() > l,
            Bound::Unbounded => true,
        };
        if descending {
            let range = ordered.entries.range::<[u8], _>((Bound::Unbounded, upper));
            let range = range.rev().take_while(|(k, _)| over(k));
            visit_batched(range.filter_map(|e| self.entry_row(e)), 1, visit);
        } else {
            let range = ordered.entries.range::<[u8], _>((lower, Bound::Unbounded));
            let range = range.take_while(|(k, _)| under(k));
            visit_batched(range.filter_map(|e| self.entry_row(e)), 1, visit);
        }
    }

    /// An ordered-index entry's key and row (None: the row is gone).
    fn entry_row<'a>(
        &'a self,
        (key, id): (&'a IndexKey, &'a RowId),
    ) -> Option<(&'a [u8], &'a [u8])> {
        Some((key.as_slice(), self.row(*id)?))
    }
}

/// Visits (key, row) pairs [`SCAN_BATCH`] at a time: each batch's rows are touched (`touch`)
/// before any is visited, so their cache misses (rows are scattered over the heap) overlap
/// instead of coming one by one. The visitor returns false to stop. The first batch is of
/// `first` rows: a scan that stops after a row or two (LIMIT 1) touches little.
fn visit_batched<'a, K: Copy>(
    mut entries: impl Iterator<Item = (K, &'a [u8])>,
    first: usize,
    mut visit: impl FnMut(K, &[u8]) -> bool,
) {
    let mut batch: SmallVec<[(K, &[u8]); SCAN_BATCH]> = SmallVec::new();
    let mut size = first;
    loop {
        batch.clear();
        batch.extend(
            entries
                .by_ref()
                .take(std::mem::replace(&mut size, SCAN_BATCH)),
        );
        if batch.is_empty() {
            return;
        }
        touch(batch.iter().map(|(_, row)| *row));
        for (key, row) in batch.drain(..) {
            if !visit(key, row) {
                return;
            }
        }
    }
}

/// Rows a scan touches ahead of visiting them (see `visit_batched`).
const SCAN_BATCH: usize = 16;
/// Bytes of each row `touch` reads ahead.
const TOUCH_BYTES: usize = 512;

/// Reads a byte of every cache line of `rows`: the loads do not depend on each other, so their
/// misses are in flight together.
fn touch<'a>(rows: impl IntoIterator<Item = &'a [u8]>) {
    let touched = rows.into_iter().fold(0u8, |acc, row| {
        // The first TOUCH_BYTES only: a large row's tail is read in sequence anyway.
        let head = row.get(..TOUCH_BYTES).unwrap_or(row);
        head.iter().step_by(64).fold(acc, |a, b| a ^ b) ^ head.last().copied().unwrap_or(0)
    });
    std::hint::black_box(touched);
}

/// Appends the key encoding of `columns` of `row`, reading strings in place.
fn encode_row_key(
    table: &TableDef,
    layout: &RowLayout,
    row: &[u8],
    columns: &[u16],
    tagged: bool,
    out: &mut Vec<u8>,
) {
    encode_key_columns(table, layout, row, (columns, &[]), tagged, out);
}

/// [`encode_row_key`] for `columns` of which those with a prefix in `prefixes` (one per
/// column, 0 the whole value; or empty) take their cut sort key.
fn encode_key_columns(
    table: &TableDef,
    layout: &RowLayout,
    row: &[u8],
    (columns, prefixes): (&[u16], &[u32]),
    tagged: bool,
    out: &mut Vec<u8>,
) {
    for (i, c) in columns.iter().enumerate() {
        let c = *c as usize;
        // The definition's keys name its own columns (checked when it was made).
        let Some(col) = table.columns.get(c) else {
            continue;
        };
        if tagged && col.nullable {
            if layout.is_null(row, c) {
                out.push(key::NULL_TAG);
                continue;
            }
            out.push(key::VALUE_TAG);
        }
        let prefix = prefixes.get(i).copied().unwrap_or(0);
        if prefix > 0 {
            key::encode_string_prefix(layout.bytes(row, c), col.collation, prefix, out);
        } else if col.ty.is_string() {
            key::encode_string(layout.bytes(row, c), col.collation, out);
        } else {
            key::encode_value(&layout.value(row, c), col.ty, col.collation, out);
        }
    }
}

/// The row in slot `id`, if the slot holds one.
fn slot_row(rows: &[Option<Box<[u8]>>], id: RowId) -> Option<&[u8]> {
    rows.get(id as usize).and_then(|r| r.as_deref())
}

/// Turns bounds on a key prefix (encoded, with inclusivity) into bounds on whole index keys.
pub fn prefix_bounds(
    lower: Option<(Vec<u8>, bool)>,
    upper: Option<(Vec<u8>, bool)>,
) -> (IndexBound, IndexBound) {
    let lower = match lower {
        None => Bound::Unbounded,
        Some((p, true)) => Bound::Included(p),
        Some((p, false)) => match key::prefix_successor(&p) {
            Some(s) => Bound::Included(s),
            None => Bound::Excluded(vec![0xFF; 2 * base::limits::ENCODED_KEY_BYTES_MAX + 1]),
        },
    };
    let upper = match upper {
        None => Bound::Unbounded,
        Some((p, false)) => Bound::Excluded(p),
        Some((p, true)) => match key::prefix_successor(&p) {
            Some(s) => Bound::Excluded(s),
            None => Bound::Unbounded,
        },
    };
    (lower, upper)
}
