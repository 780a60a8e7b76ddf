//! Pushed joins (NDB's SPJ) run by a coordinator: a scan with children (`ScanRequest::join`)
//! reads its own rows a batch at a time (the root cursor), then, for each child in turn, the
//! child's rows whose index holds the joined rows' key values, by one scan by keys over every
//! node group's partitions (a child cursor, as batched key access), or, for a child read once
//! (`ChildRead`), its rows in a range read the first round and kept; and joins them here (inner,
//! outer, semi, anti), so the client gets the joined rows of all the tables in one request and
//! one round trip per batch.

use std::collections::VecDeque;
use std::sync::Arc;

use base::{key, limits, Error, ErrorCode, TableDef, Value};
use wire::{JoinChild, JoinKind, ScanOrder, ScanRequest};

use super::scan::{Progress, ScanCursor};
use super::Coordinator;
use crate::messages::row_bytes;
use crate::prepare;

/// Rows of the scan's own joined per round (a child's scan by keys takes at most one key per
/// row).
const ROOT_ROWS: u32 = 1_024;

/// When the client names its batch's rows (a client streaming the result), the joined rows the
/// last child joins first in the first round, the round's rest after: its first rows are
/// answered after a small part of the round, as MariaDB sends rows as it joins them. (A first
/// round of 32 root rows, then doubling, cost a join of 100 root rows three rounds of every
/// child; this costs the last child one more scan.)
const FIRST_CHUNK_ROWS: usize = 32;

/// The most bytes of key values one child scan reads by.
const KEY_CHUNK_BYTES: usize = 4 * 1024 * 1024;

/// A pushed join's state inside the client's cursor.
pub(super) struct Join {
    /// Reads the scan's own rows.
    root: ScanCursor,
    root_done: bool,
    /// In the first round of a client naming its batch: the joined rows the last child joins
    /// first (`FIRST_CHUNK_ROWS`; 0: all at once). The round's rest waits in `pending` (its
    /// bytes held) and is joined whole after.
    chunk: usize,
    pending: Vec<Vec<Value>>,
    pending_bytes: usize,
    children: Vec<Child>,
    /// The joined rows of the round (root rows, each child's columns appended so far).
    rows: Vec<Vec<Value>>,
    /// The child being joined (`children.len()` when none is).
    level: usize,
    /// Its distinct keys (canonical values), read in chunks of at most `limits::SCAN_KEYS_MAX`
    /// per scan from `next_key` on (`usize::MAX`: a child read once was asked for); and each
    /// joined row's key (None: it can match nothing).
    keys: Vec<Vec<Value>>,
    next_key: usize,
    row_keys: Vec<Option<Probe>>,
    /// The child scan reading a chunk of keys, and the rows it found so far.
    reading: Option<ScanCursor>,
    found: Vec<Vec<Value>>,
    /// Bytes of `rows` and `found`, bounded by `limits::JOIN_HELD_BYTES_MAX`.
    held: usize,
    /// Joined rows to answer, and their bytes (held too).
    out: VecDeque<Vec<Value>>,
    out_bytes: usize,
    /// Per child read once (`ChildRead`): its rows and where each key's are, kept for every
    /// round, and their bytes (held too).
    once: Vec<Option<Matches>>,
    once_bytes: usize,
}

/// A child's rows, and the positions of each key's among them.
type Matches = (Vec<Vec<Value>>, hashbrown::HashMap<Probe, Vec<usize>>);

/// A child of a pushed join, checked against the catalog.
struct Child {
    /// The scan by keys it reads with (keys filled in per chunk).
    request: ScanRequest,
    table: Arc<TableDef>,
    /// The index columns its key binds, and where the child's scan answers them.
    key_columns: Vec<u16>,
    answered_at: Vec<usize>,
    /// Positions of the key values in the joined row.
    key: Vec<usize>,
    /// The columns it adds to the joined row (its scan answers the key columns after them).
    width: usize,
    kind: JoinKind,
    /// Its key is one integer column: rows are matched by the value.
    one_integer: bool,
    /// Its key binds the whole primary key: a joined row has at most one match.
    unique: bool,
    /// Its rows are read once through this range (a hash join here), not by the keys.
    read: Option<wire::ChildRead>,
}

impl Join {
    /// The root or child cursor that `id` names.
    pub(super) fn cursor_with_id(&mut self, id: u64) -> Option<&mut ScanCursor> {
        if self.root.id() == id {
            return Some(&mut self.root);
        }
        self.reading.as_mut().filter(|c| c.id() == id)
    }

    /// Takes the root's next rows as the round's joined rows.
    fn begin(&mut self, mut rows: Vec<Vec<Value>>) -> Result<(), Error> {
        self.held = rows.iter().map(|r| row_bytes(r)).sum();
        // Room for every child's columns at once, not a reallocation per level.
        let children: usize = self.children.iter().map(|c| c.width).sum();
        for row in &mut rows {
            row.reserve_exact(children);
        }
        self.rows = rows;
        self.level = 0;
        self.start_level()
    }

    /// Finds the keys of the child at `level` (or, past the last child, hands the round's rows
    /// to answer).
    fn start_level(&mut self) -> Result<(), Error> {
        self.keys.clear();
        self.row_keys.clear();
        self.next_key = 0;
        self.found.clear();
        let Some(child) = self.children.get(self.level) else {
            self.out.extend(self.rows.drain(..));
            self.out_bytes += self.held;
            self.held = 0;
            if self.pending.is_empty() {
                // Only the first round is joined in chunks.
                self.chunk = 0;
                return Ok(());
            }
            // The last child joins the rest of the round's rows.
            self.rows = std::mem::take(&mut self.pending);
            self.held = std::mem::take(&mut self.pending_bytes);
            self.chunk = 0;
            self.level = self.children.len() - 1;
            return self.start_level();
        };
        // (A child matching at most one row per joined row answers no more rows than it is
        // given: nothing comes sooner by joining part of them.)
        if self.chunk > 0
            && self.level + 1 == self.children.len()
            && !child.unique
            && self.rows.len() > self.chunk
        {
            let rest = self.rows.split_off(self.chunk);
            let bytes: usize = rest.iter().map(|r| row_bytes(r)).sum();
            self.held = self.held.saturating_sub(bytes);
            self.pending_bytes += bytes;
            self.pending = rest;
        }
        let mut seen: hashbrown::HashSet<Probe> = hashbrown::HashSet::new();
        for row in &self.rows {
            let key = child.key_of(row)?;
            self.row_keys.push(match key {
                Some((probe, canonical)) => {
                    if seen.insert(probe.clone()) {
                        self.keys.push(canonical);
                    }
                    Some(probe)
                }
                None => None,
            });
        }
        Ok(())
    }

    /// Joins the child at `level` to the round's rows from the rows found (or, for a child
    /// read once, those kept), and moves on.
    fn finish_level(&mut self) -> Result<(), Error> {
        let child = &self.children[self.level];
        let kept = match self.once.get_mut(self.level).and_then(Option::take) {
            Some(kept) => kept,
            None => {
                let found = std::mem::take(&mut self.found);
                let mut by_key: hashbrown::HashMap<Probe, Vec<usize>> = hashbrown::HashMap::new();
                for (i, row) in found.iter().enumerate() {
                    if let Some(probe) = child.key_of_found(row)? {
                        by_key.entry(probe).or_default().push(i);
                    }
                }
                if child.read.is_some() {
                    let bytes: usize = found.iter().map(|r| row_bytes(r)).sum();
                    self.held = self.held.saturating_sub(bytes);
                    self.once_bytes += bytes;
                }
                (found, by_key)
            }
        };
        let (found, by_key) = &kept;
        let mut joined = Vec::with_capacity(self.rows.len());
        let mut held = 0;
        for (row, key) in self.rows.drain(..).zip(self.row_keys.drain(..)) {
            let matches = key
                .and_then(|k| by_key.get(&k))
                .map_or(&[][..], Vec::as_slice);
            match child.kind {
                JoinKind::Semi | JoinKind::Anti => {
                    // The row once: with a match for a semi-join, without one for an anti-join.
                    if (child.kind == JoinKind::Semi) != matches.is_empty() {
                        held += row_bytes(&row);
                        joined.push(row);
                    }
                }
                JoinKind::Outer if matches.is_empty() => {
                    let mut row = row;
                    row.extend(std::iter::repeat_n(Value::Null, child.width));
                    held += row_bytes(&row);
                    joined.push(row);
                }
                _ => {
                    // The row itself goes to its last match, copies to the others.
                    if let Some((&last, rest)) = matches.split_last() {
                        for &m in rest {
                            let mut extended = Vec::with_capacity(row.len() + child.width);
                            extended.extend_from_slice(&row);
                            extended.extend_from_slice(&found[m][..child.width]);
                            held += row_bytes(&extended);
                            joined.push(extended);
                        }
                        let mut row = row;
                        row.extend_from_slice(&found[last][..child.width]);
                        held += row_bytes(&row);
                        joined.push(row);
                    }
                }
            }
            if held + self.out_bytes + self.once_bytes + self.pending_bytes
                > limits::JOIN_HELD_BYTES_MAX
            {
                return Err(too_large());
            }
        }
        if child.read.is_some() {
            self.once[self.level] = Some(kept);
        }
        self.rows = joined;
        self.held = held;
        self.found.clear();
        self.level += 1;
        self.start_level()
    }

    /// The next chunk of keys to read the current child by, as its scan request; None once
    /// every key was read.
    fn next_request(&mut self) -> Option<ScanRequest> {
        let child = self.children.get(self.level)?;
        if let Some(read) = &child.read {
            // Read once, the first round that reaches it.
            if self.once[self.level].is_some() || self.next_key == usize::MAX {
                return None;
            }
            self.next_key = usize::MAX;
            let mut request = child.request.clone();
            request.index = read.index;
            request.lower = read.lower.clone();
            request.upper = read.upper.clone();
            request.first_per_key = false;
            return Some(request);
        }
        if self.next_key >= self.keys.len() {
            return None;
        }
        // At most SCAN_KEYS_MAX keys, and of at most KEY_CHUNK_BYTES (so the scan's part sent to
        // another node group stays well inside a frame), at least one.
        let mut end = self.next_key;
        let mut bytes = 0;
        while end < self.keys.len() && end - self.next_key < limits::SCAN_KEYS_MAX {
            let key_bytes: usize = self.keys[end].iter().map(wire::value_bytes).sum();
            if end > self.next_key && bytes + key_bytes > KEY_CHUNK_BYTES {
                break;
            }
            bytes += key_bytes;
            end += 1;
        }
        let mut request = child.request.clone();
        request.keys = self.keys[self.next_key..end].to_vec();
        self.next_key = end;
        Some(request)
    }

    /// Whether every joined row was handed over to answer.
    pub(super) fn finished(&self) -> bool {
        self.root_done
            && self.level >= self.children.len()
            && self.reading.is_none()
            && self.rows.is_empty()
            && self.pending.is_empty()
            && self.out.is_empty()
    }

    /// The next joined row to answer.
    pub(super) fn pop(&mut self) -> Option<Vec<Value>> {
        let row = self.out.pop_front()?;
        self.out_bytes = self.out_bytes.saturating_sub(row_bytes(&row));
        Some(row)
    }

    /// The root's cursor.
    pub(super) fn root(&self) -> &ScanCursor {
        &self.root
    }
}

/// A key as rows are matched to it: an integer key of one column by its value, any other by
/// its encoding as the child's index orders it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Probe {
    Int(i128),
    Bytes(Vec<u8>),
}

fn integer(v: &Value) -> Option<i128> {
    match v {
        Value::Int(i) => Some(i128::from(*i)),
        Value::UInt(u) => Some(i128::from(*u)),
        _ => None,
    }
}

impl Child {
    /// The key of joined row `row`, as rows are matched to it and as the child's scan reads by
    /// it (the values in the key columns' canonical form); None when it holds a NULL (it
    /// matches nothing).
    fn key_of(&self, row: &[Value]) -> Result<Option<(Probe, Vec<Value>)>, Error> {
        let mut canonical = Vec::with_capacity(self.key.len());
        for (&c, &at) in self.key_columns.iter().zip(&self.key) {
            let v = &row[at];
            if v.is_null() {
                return Ok(None);
            }
            let exact = match integer(v) {
                Some(_) if self.one_integer => {
                    Some(v.clone()).filter(|v| prepare::within_column(&self.table, c, v))
                }
                _ => prepare::exact_key_value(&self.table, c, v.clone())?,
            };
            // None: no row's column holds it.
            let Some(v) = exact else { return Ok(None) };
            canonical.push(v);
        }
        Ok(self.probe(&canonical).map(|p| (p, canonical)))
    }

    /// The key a row the child's scan found has (its key columns answered after its own).
    fn key_of_found(&self, row: &[Value]) -> Result<Option<Probe>, Error> {
        if self.one_integer {
            return Ok(row
                .get(self.answered_at[0])
                .and_then(integer)
                .map(Probe::Int));
        }
        let values: Vec<Value> = self.answered_at.iter().map(|&at| row[at].clone()).collect();
        if values.iter().any(Value::is_null) {
            return Ok(None);
        }
        let canonical = values
            .into_iter()
            .zip(&self.key_columns)
            .map(|(v, &c)| prepare::comparable(&self.table, c, v))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(self.probe(&canonical))
    }

    /// The probe of canonical key values.
    fn probe(&self, canonical: &[Value]) -> Option<Probe> {
        if self.one_integer {
            return canonical.first().and_then(integer).map(Probe::Int);
        }
        let mut bytes = Vec::new();
        for (&c, v) in self.key_columns.iter().zip(canonical) {
            let col = &self.table.columns[c as usize];
            key::encode_value(v, col.ty, col.collation, &mut bytes);
        }
        Some(Probe::Bytes(bytes))
    }
}

fn too_large() -> Error {
    Error::new(
        ErrorCode::Overloaded,
        format!(
            "a pushed join's rows for one batch of its scan passed {} bytes",
            limits::JOIN_HELD_BYTES_MAX
        ),
    )
}

impl Coordinator {
    /// The client's cursor of a scan with a pushed join: no streams of its own, the root and
    /// children's cursors in its `join`.
    pub(super) fn join_cursor(&mut self, mut request: ScanRequest) -> Result<ScanCursor, Error> {
        if request.aggregate.is_some() {
            return Err(Error::new(
                ErrorCode::BadRequest,
                "a scan with a pushed join folds no aggregates",
            ));
        }
        let children = std::mem::take(&mut request.join);
        let root_request = ScanRequest {
            limit: 0,
            batch_rows: match request.batch_rows {
                0 => ROOT_ROWS,
                n => n.min(ROOT_ROWS),
            },
            batch_bytes: 0,
            ..request.clone()
        };
        let root = self.cursor(root_request)?;
        let mut width = root.width();
        let mut planned = Vec::with_capacity(children.len());
        for child in children {
            let child = self.plan_child(child, width, request.transaction)?;
            width += child.width;
            planned.push(child);
        }
        let join = Join {
            root,
            root_done: false,
            chunk: match request.batch_rows {
                0 => 0,
                _ => FIRST_CHUNK_ROWS,
            },
            pending: Vec::new(),
            pending_bytes: 0,
            once: planned.iter().map(|_| None).collect(),
            level: planned.len(),
            children: planned,
            rows: Vec::new(),
            keys: Vec::new(),
            next_key: 0,
            row_keys: Vec::new(),
            reading: None,
            found: Vec::new(),
            held: 0,
            out: VecDeque::new(),
            out_bytes: 0,
            once_bytes: 0,
        };
        Ok(ScanCursor::joined(self.tag(), &request, join))
    }

    /// Checks a child against the catalog; `width`: the joined row's columns before it.
    fn plan_child(&self, child: JoinChild, width: usize, transaction: u64) -> Result<Child, Error> {
        let table = self.table_def(child.table, child.version)?;
        let bad = |what: String| Error::new(ErrorCode::BadRequest, what);
        let index = table.indexes.get(child.index as usize).ok_or_else(|| {
            Error::new(
                ErrorCode::NoSuchIndex,
                format!("table '{}' has no index {}", table.name, child.index),
            )
        })?;
        if let Some(read) = child.read.as_ref().and_then(|r| r.index) {
            if table.indexes.get(usize::from(read)).is_none() {
                return Err(Error::new(
                    ErrorCode::NoSuchIndex,
                    format!("table '{}' has no index {read}", table.name),
                ));
            }
        }
        if child.read.is_some() && (child.lower.is_some() || child.upper.is_some()) {
            return Err(bad(
                "a pushed join's child read once takes no bounds after its key".into(),
            ));
        }
        if child.key.is_empty() || child.key.len() > index.columns.len() {
            return Err(bad(format!(
                "a pushed join's key binds 1 to {} columns of index '{}'",
                index.columns.len(),
                index.name
            )));
        }
        if let Some(at) = child.key.iter().find(|at| usize::from(**at) >= width) {
            return Err(bad(format!(
                "a pushed join's key reads column {at} of a joined row of {width}"
            )));
        }
        let key_columns: Vec<u16> = index.columns[..child.key.len()].to_vec();
        if (0..key_columns.len()).any(|at| index.prefix(at).is_some()) {
            return Err(bad(format!(
                "a pushed join's key may not bind a prefix column of index '{}'",
                index.name
            )));
        }
        let unique = key_columns == table.primary_key;
        let one_integer =
            key_columns.len() == 1 && table.columns[key_columns[0] as usize].ty.is_integer();
        let semi = matches!(child.kind, JoinKind::Semi | JoinKind::Anti);
        let mut projection = if semi {
            // It adds no columns: its scan answers only the key columns.
            Vec::new()
        } else {
            prepare::check_projection(&table, child.projection)?
        };
        let width = projection.len();
        // The key columns come after the answered ones, to match rows to keys.
        let answered_at = key_columns
            .iter()
            .map(|c| {
                projection.push(*c);
                projection.len() - 1
            })
            .collect();
        Ok(Child {
            request: ScanRequest {
                table: child.table,
                version: child.version,
                index: Some(child.index),
                // Each key's rows within them (`ScanRequest::keys`).
                lower: child.lower,
                upper: child.upper,
                filter: child.filter,
                projection,
                limit: 0,
                order: ScanOrder::Any,
                transaction,
                batch_rows: 0,
                batch_bytes: 0,
                aggregate: None,
                keys: Vec::new(),
                // Whether a key has a match needs its first row only.
                first_per_key: semi,
                join: Vec::new(),
            },
            table,
            key_columns,
            answered_at,
            key: child.key.iter().map(|&k| usize::from(k)).collect(),
            width,
            kind: child.kind,
            one_integer,
            unique,
            read: child.read,
        })
    }

    /// Makes what progress it can on a pushed join: the joined rows the client waits for, from
    /// the rounds joined, reading the root's next rows and each child's rows as they are
    /// needed.
    pub(super) fn pump_join(&mut self, request_id: u64, mut c: ScanCursor) {
        loop {
            if c.waits() {
                let ended = c.take_joined();
                if ended || c.batch_full() {
                    let rows = c.take_batch();
                    self.send_rows(request_id, rows, ended);
                    if ended {
                        // Reads still out come back to a scan that is gone, and are dropped.
                        return;
                    }
                }
            }
            let Some(j) = c.join.as_mut() else { return };
            if !j.out.is_empty() {
                // The client takes these first.
                break;
            }
            match self.join_step(request_id, j) {
                Ok(true) => continue,
                Ok(false) => break,
                Err(e) => return self.fail(request_id, e),
            }
        }
        self.scans.insert(request_id, c);
    }

    /// One step of a pushed join: a child's rows read, a child joined, or the root's next rows
    /// taken. False when it waits for reads.
    fn join_step(&mut self, request_id: u64, j: &mut Join) -> Result<bool, Error> {
        if let Some(child) = j.reading.as_mut() {
            return match self.advance(request_id, child) {
                Progress::Wait => Ok(false),
                Progress::Failed(e) => Err(e),
                Progress::Rows(rows, last) => {
                    for row in rows {
                        j.held += row_bytes(&row);
                        j.found.push(row);
                    }
                    if j.held + j.out_bytes + j.once_bytes + j.pending_bytes
                        > limits::JOIN_HELD_BYTES_MAX
                    {
                        return Err(too_large());
                    }
                    if last {
                        j.reading = None;
                    } else {
                        child.ask();
                    }
                    Ok(true)
                }
            };
        }
        if j.level < j.children.len() {
            match j.next_request() {
                Some(request) => {
                    if let Some(e) = self.rolled_back_error(request.transaction) {
                        // Its children would no longer see its writes.
                        return Err(e);
                    }
                    j.reading = Some(self.cursor(request)?);
                }
                None => j.finish_level()?,
            }
            return Ok(true);
        }
        if j.root_done {
            return Ok(false);
        }
        match self.advance(request_id, &mut j.root) {
            Progress::Wait => Ok(false),
            Progress::Failed(e) => Err(e),
            Progress::Rows(rows, last) => {
                j.root_done = last;
                if !last {
                    j.root.ask();
                }
                j.begin(rows)?;
                Ok(true)
            }
        }
    }
}
