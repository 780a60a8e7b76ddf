//! Foreign keys enforced in the API node, inside the statement's transaction, once the
//! statement's own writes are sent (`Referential::enforce`): each referencing value a row
//! takes must be a parent row's, read under a shared lock held to the commit (so the parent
//! cannot go meanwhile); each parent row deleted or changed finds the child rows that
//! referenced it through the child's index and refuses (1451), deletes them, sets them NULL or
//! gives them the new values, which are enforced in turn (at most `CASCADE_DEPTH_MAX` deep).
//! A parent's delete holds its row's exclusive lock before it looks for children, so a child
//! insert either committed before (and is found) or waits for it (and finds no parent).

use std::collections::HashMap;

use base::foreign_key::{ForeignKeyDef, ReferenceAction};
use base::schema::IndexKind;
use base::{TableDef, Value};
use client::{ExecType, LockMode, Scan, Table, Transaction};

use crate::catalog::foreign::violation_detail;
use crate::exec::Exec;
use crate::foundation::error::{Result, SqlError};

/// How deep cascades go (InnoDB's limit): a deeper chain fails the statement.
pub(crate) const CASCADE_DEPTH_MAX: usize = 15;

/// Keys looked up, rows locked or rows written per batch (each one round trip), well under
/// the data node's `BATCH_OPERATIONS_MAX`.
const ROWS_PER_BATCH: usize = 1_024;

/// Parent keys gone from a parent table, by the child index's encoding of each: its old
/// values, and its new ones (None: the parent row was deleted).
type Gone = HashMap<Vec<u8>, (Vec<Value>, Option<Vec<Value>>)>;

/// A child row found referencing a key of `Gone`, every column by position, with the new
/// values its parent took (None: deleted).
type Found = (Vec<Value>, Option<Vec<Value>>);

/// Rows read whole (every column by position) by the exact bytes of their primary keys.
pub(crate) type RowsByKey = HashMap<Vec<u8>, Vec<Value>>;

/// One row a statement changed in a table, as every column by position: before (None when
/// inserted) and after (None when deleted).
#[derive(Debug, Clone)]
pub(crate) struct Changed {
    pub(crate) old: Option<Vec<Value>>,
    pub(crate) new: Option<Vec<Value>>,
}

impl Changed {
    /// `old` (every column by position) updated with `values`.
    pub(crate) fn updated(old: &[Value], values: &[(u16, Value)]) -> Changed {
        let mut new = old.to_vec();
        for (c, v) in values {
            if let Some(slot) = new.get_mut(*c as usize) {
                *slot = v.clone();
            }
        }
        Changed {
            old: Some(old.to_vec()),
            new: Some(new),
        }
    }
}

/// A row an INSERT writes as every column by position: the values it gives, each other
/// column's default.
pub(crate) fn inserted_row(def: &TableDef, values: &[(u16, Value)]) -> Vec<Value> {
    let mut full: Vec<Value> = def
        .columns
        .iter()
        .map(|c| c.default_value().unwrap_or(Value::Null))
        .collect();
    for (c, v) in values {
        if let Some(slot) = full.get_mut(*c as usize) {
            *slot = v.clone();
        }
    }
    full
}

/// A row read as `fetched` columns, as every column by position (those not fetched NULL).
pub(crate) fn by_position(def: &TableDef, fetched: &[u16], row: &[Value]) -> Vec<Value> {
    let mut full = vec![Value::Null; def.columns.len()];
    for (c, v) in fetched.iter().zip(row) {
        if let Some(slot) = full.get_mut(*c as usize) {
            *slot = v.clone();
        }
    }
    full
}

/// The rows of `table` with primary keys `keys`, every column, read under exclusive locks (a
/// multi-table UPDATE or DELETE reads its targets' rows so before it writes them), by the
/// exact bytes of their keys.
fn read_whole(
    txn: &mut Transaction,
    table: &Table,
    keys: impl Iterator<Item = Vec<Value>>,
) -> Result<RowsByKey> {
    let all: Vec<u16> = (0..table.def().columns.len() as u16).collect();
    let mut seen = std::collections::HashSet::new();
    let keys: Vec<(Vec<u8>, Vec<Value>)> = keys
        .map(|key| (crate::exec::subquery::exact_key(&key), key))
        .filter(|(exact, _)| seen.insert(exact.clone()))
        .collect();
    let mut rows = HashMap::with_capacity(keys.len());
    for chunk in keys.chunks(ROWS_PER_BATCH) {
        let reads: Vec<client::OpId> = chunk
            .iter()
            .map(|(_, key)| txn.read_with(table, key.clone(), LockMode::Exclusive, all.clone()))
            .collect();
        txn.execute(ExecType::NoCommit).map_err(client_error)?;
        for ((exact, _), op) in chunk.iter().zip(reads) {
            if let Some(r) = txn.row(op) {
                rows.insert(exact.clone(), r.to_vec());
            }
        }
    }
    Ok(rows)
}

/// `row`'s values of `columns`; None when one is NULL (a NULL references nothing).
fn values_of(row: &[Value], columns: &[u16]) -> Option<Vec<Value>> {
    let values: Vec<Value> = columns.iter().map(|c| row[*c as usize].clone()).collect();
    (!values.iter().any(Value::is_null)).then_some(values)
}

fn child_row_error(child: &TableDef, fk: &ForeignKeyDef) -> SqlError {
    SqlError::new(
        1452,
        "23000",
        format!(
            "Cannot add or update a child row: a foreign key constraint fails {}",
            violation_detail(child, fk, false)
        ),
    )
}

fn parent_row_error(child: &TableDef, fk: &ForeignKeyDef) -> SqlError {
    SqlError::new(
        1451,
        "23000",
        format!(
            "Cannot delete or update a parent row: a foreign key constraint fails {}",
            violation_detail(child, fk, false)
        ),
    )
}

fn client_error(e: client::ClientError) -> SqlError {
    SqlError::from_client(&e)
}

/// The position of an index of `def` whose columns begin with `columns`, in order.
fn index_leading(def: &TableDef, columns: &[u16]) -> Option<usize> {
    def.indexes
        .iter()
        .position(|i| !i.has_prefix() && i.columns.starts_with(columns))
}

pub(crate) trait Referential: Exec {
    /// Whether a statement's writes to `table` have foreign keys to enforce: checks are on and
    /// the table has keys or is referenced.
    fn references_apply(&self, table: &Table) -> Result<bool> {
        if !self.foreign_key_checks() {
            return Ok(false);
        }
        if !table.def().foreign_keys.is_empty() {
            return Ok(true);
        }
        Ok(!self.referencing()?.of(&table.def().name).is_empty())
    }

    /// Sends the statement's last batch of writes to `table` (`rows`, which it changed) as
    /// `last` asks, enforcing the foreign keys first when they apply: the batch goes without
    /// the commit, the keys are enforced on `rows` (told the transaction, whose results name
    /// the AUTO_INCREMENT values assigned), then the transaction commits if `last` says so.
    fn execute_enforced(
        &mut self,
        txn: &mut Transaction,
        last: ExecType,
        table: &Table,
        rows: impl FnOnce(&Transaction) -> Vec<Changed>,
    ) -> Result<()> {
        if !self.references_apply(table)? {
            return txn.execute(last).map_err(client_error);
        }
        txn.execute(ExecType::NoCommit).map_err(client_error)?;
        let rows = rows(txn);
        self.enforce(txn, table, rows, 0)?;
        if last != ExecType::NoCommit {
            txn.execute(last).map_err(client_error)?;
        }
        Ok(())
    }

    /// IGNORE's check of one row written as a statement of its own (`txn`'s current one): when
    /// its keys refuse it (1451, 1452), the statement is undone and the refusal kept as a
    /// warning, and the row is skipped (true).
    fn skips_row(&mut self, txn: &mut Transaction, table: &Table, row: Changed) -> Result<bool> {
        match self.enforce(txn, table, vec![row], 0) {
            Ok(()) => Ok(false),
            Err(e) if e.code == 1451 || e.code == 1452 => {
                txn.undo_statement().map_err(client_error)?;
                self.diagnostics.warn(e.code, e.message);
                Ok(true)
            }
            Err(e) => Err(e),
        }
    }

    /// For a multi-table UPDATE or DELETE: each target's rows (`tables`: the target and the
    /// positions of its primary key in the joined `rows`) read whole under their locks when its
    /// foreign keys or CHECK constraints apply (`read_whole`), else None.
    fn read_targets<'a>(
        &self,
        txn: &mut Transaction,
        tables: impl Iterator<Item = (&'a Table, &'a [usize])>,
        rows: &[Vec<Value>],
    ) -> Result<Vec<Option<RowsByKey>>> {
        let mut olds = Vec::new();
        for (table, key) in tables {
            let constrained = !table.def().checks.is_empty() && self.check_constraint_checks();
            let old = if constrained || self.references_apply(table)? {
                let keys = rows.iter().filter_map(|row| {
                    let key: Vec<Value> = key.iter().map(|i| row[*i].clone()).collect();
                    (!key.iter().any(Value::is_null)).then_some(key)
                });
                Some(read_whole(txn, table, keys)?)
            } else {
                None
            };
            olds.push(old);
        }
        Ok(olds)
    }

    /// [`Referential::execute_enforced`] for writes to several tables, each with the rows it
    /// changed that its foreign keys check (none: nothing to enforce).
    fn execute_enforced_all(
        &mut self,
        txn: &mut Transaction,
        last: ExecType,
        checked: Vec<(&Table, Vec<Changed>)>,
    ) -> Result<()> {
        if checked.iter().all(|(_, rows)| rows.is_empty()) {
            return txn.execute(last).map_err(client_error);
        }
        txn.execute(ExecType::NoCommit).map_err(client_error)?;
        for (table, rows) in checked {
            self.enforce(txn, table, rows, 0)?;
        }
        if last != ExecType::NoCommit {
            txn.execute(last).map_err(client_error)?;
        }
        Ok(())
    }

    /// Enforces the foreign keys of `table` (as a child) and of the tables referencing it (as
    /// a parent) on `rows`, written in `txn` already; `depth` cascades deep.
    fn enforce(
        &mut self,
        txn: &mut Transaction,
        table: &Table,
        rows: Vec<Changed>,
        depth: usize,
    ) -> Result<()> {
        if rows.is_empty() || !self.foreign_key_checks() {
            return Ok(());
        }
        if depth > CASCADE_DEPTH_MAX {
            return Err(SqlError::new(
                1451,
                "23000",
                format!(
                    "Cannot delete or update a parent row: foreign key cascades go more than {CASCADE_DEPTH_MAX} deep"
                ),
            ));
        }
        let def = table.def().clone();
        for fk in &def.foreign_keys {
            self.check_parents(txn, &def, fk, &rows)?;
        }
        let referencing = self.referencing()?;
        for (child, at) in referencing.of(&def.name) {
            let fk = &child.def().foreign_keys[*at];
            self.act_on_children(txn, &def, child, fk, &rows, depth)?;
        }
        Ok(())
    }

    /// 1452 unless every referencing value `rows` newly hold under `fk` is a row of its
    /// parent, read under a shared lock.
    fn check_parents(
        &mut self,
        txn: &mut Transaction,
        child: &TableDef,
        fk: &ForeignKeyDef,
        rows: &[Changed],
    ) -> Result<()> {
        let mut keys: Vec<Vec<Value>> = Vec::new();
        // Keys the collation calls equal are looked up once.
        let mut seen = std::collections::HashSet::new();
        for row in rows {
            let Some(new) = row.new.as_deref().and_then(|r| values_of(r, &fk.columns)) else {
                continue;
            };
            let old = row.old.as_deref().and_then(|r| values_of(r, &fk.columns));
            let mut encoded = Vec::new();
            child.encode_key(&fk.columns, &new, &mut encoded);
            if old.as_ref() != Some(&new) && seen.insert(encoded) {
                keys.push(new);
            }
        }
        if keys.is_empty() {
            return Ok(());
        }
        let Some(parent) = self.catalog_table(&fk.parent)? else {
            return Err(child_row_error(child, fk));
        };
        let pdef = parent.def();
        let Some(positions) = fk.parent_positions(pdef) else {
            return Err(child_row_error(child, fk));
        };
        if !parent_rows_exist(txn, &parent, &positions, &keys)? {
            return Err(child_row_error(child, fk));
        }
        Ok(())
    }

    /// What `fk`'s action asks of the child rows that referenced the parent rows `rows`
    /// deleted or changed in `parent`.
    fn act_on_children(
        &mut self,
        txn: &mut Transaction,
        parent: &TableDef,
        child: &Table,
        fk: &ForeignKeyDef,
        rows: &[Changed],
        depth: usize,
    ) -> Result<()> {
        let Some(positions) = fk.parent_positions(parent) else {
            // The key names a column the parent no longer has: refused rather than unchecked.
            return Err(parent_row_error(child.def(), fk));
        };
        let cdef = child.def();
        let mut gone: Gone = HashMap::new();
        let mut deleted = false;
        for row in rows {
            let Some(old) = row.old.as_deref().and_then(|r| values_of(r, &positions)) else {
                continue;
            };
            let new = row.new.as_deref().map(|r| {
                positions
                    .iter()
                    .map(|c| r[*c as usize].clone())
                    .collect::<Vec<Value>>()
            });
            if new.as_ref() == Some(&old) {
                continue;
            }
            deleted |= new.is_none();
            let mut encoded = Vec::new();
            cdef.encode_key(&fk.columns, &old, &mut encoded);
            gone.insert(encoded, (old, new));
        }
        if gone.is_empty() {
            return Ok(());
        }
        let found = referencing_rows(txn, child, fk, &gone)?;
        if found.is_empty() {
            return Ok(());
        }
        let action = if deleted { fk.on_delete } else { fk.on_update };
        let mut changed = Vec::with_capacity(found.len());
        for (row, new) in found {
            let new_row = match (action, new) {
                (ReferenceAction::Restrict | ReferenceAction::NoAction, _) => {
                    return Err(parent_row_error(cdef, fk))
                }
                (ReferenceAction::Cascade, None) => None,
                (ReferenceAction::Cascade, Some(values)) => {
                    let mut r = row.clone();
                    for (c, v) in fk.columns.iter().zip(values) {
                        r[*c as usize] = v;
                    }
                    Some(r)
                }
                (ReferenceAction::SetNull, _) => {
                    let mut r = row.clone();
                    for c in &fk.columns {
                        r[*c as usize] = Value::Null;
                    }
                    Some(r)
                }
            };
            changed.push(Changed {
                old: Some(row),
                new: new_row,
            });
        }
        for (n, c) in changed.iter().enumerate() {
            if n > 0 && n % ROWS_PER_BATCH == 0 {
                txn.execute(ExecType::NoCommit).map_err(client_error)?;
            }
            let key: Vec<Value> = cdef
                .primary_key
                .iter()
                .map(|p| {
                    c.old
                        .as_ref()
                        .map_or(Value::Null, |r| r[*p as usize].clone())
                })
                .collect();
            match &c.new {
                None => {
                    txn.delete(child, key);
                }
                Some(new) => {
                    let values: Vec<(u16, Value)> = fk
                        .columns
                        .iter()
                        .map(|c| (*c, new[*c as usize].clone()))
                        .collect();
                    crate::exec::write::write_row(txn, child, key, values, |_| {
                        (0..new.len() as u16).zip(new.iter().cloned()).collect()
                    });
                }
            }
        }
        txn.execute(ExecType::NoCommit).map_err(client_error)?;
        self.enforce(txn, child, changed, depth + 1)
    }
}

impl<S: Exec> Referential for S {}

/// Whether `parent` holds a row for each of `keys` (values of its columns `positions`), each
/// read under a shared lock: by primary key or unique index when the columns are one, else
/// found through an index they lead and locked by its primary key.
pub(crate) fn parent_rows_exist(
    txn: &mut Transaction,
    parent: &Table,
    positions: &[u16],
    keys: &[Vec<Value>],
) -> Result<bool> {
    for chunk in keys.chunks(ROWS_PER_BATCH) {
        if !parent_rows_exist_in(txn, parent, positions, chunk)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// [`parent_rows_exist`] for one batch of keys.
fn parent_rows_exist_in(
    txn: &mut Transaction,
    parent: &Table,
    positions: &[u16],
    keys: &[Vec<Value>],
) -> Result<bool> {
    let pdef = parent.def();
    let pk = &pdef.primary_key;
    let in_pk_order = |key: &[Value]| -> Option<Vec<Value>> {
        pk.iter()
            .map(|c| {
                positions
                    .iter()
                    .position(|p| p == c)
                    .map(|i| key[i].clone())
            })
            .collect()
    };
    let whole_pk = positions.len() == pk.len() && !pdef.has_hidden_pk();
    let unique = pdef
        .indexes
        .iter()
        .position(|i| i.kind == IndexKind::Unique && !i.has_prefix() && i.columns == positions);
    let reads: Vec<client::OpId> = if whole_pk && in_pk_order(&keys[0]).is_some() {
        keys.iter()
            .map(|k| {
                let key = in_pk_order(k).unwrap_or_default();
                txn.read_with(parent, key, LockMode::Shared, vec![pk[0]])
            })
            .collect()
    } else if let Some(i) = unique {
        keys.iter()
            .map(|k| txn.read_unique(parent, i as u16, k.clone(), LockMode::Shared, vec![pk[0]]))
            .collect()
    } else {
        let Some(index) = index_leading(pdef, positions) else {
            return Ok(false);
        };
        let index = &pdef.indexes[index];
        let names: Vec<&str> = pk
            .iter()
            .chain(positions)
            .map(|c| pdef.columns[*c as usize].name.as_str())
            .collect();
        let scan = Scan::index(&index.name)
            .keys(keys.to_vec())
            .first_per_key()
            .columns(&names);
        let found = txn.scan(parent, &scan).map_err(client_error)?;
        let encode = |values: &[Value]| {
            let mut encoded = Vec::new();
            pdef.encode_key(positions, values, &mut encoded);
            encoded
        };
        let mut seen = std::collections::HashSet::new();
        let mut locks = Vec::new();
        for row in &found {
            if seen.insert(encode(&row[pk.len()..])) {
                locks.push(txn.read_with(
                    parent,
                    row[..pk.len()].to_vec(),
                    LockMode::Shared,
                    positions.to_vec(),
                ));
            }
        }
        txn.execute(ExecType::NoCommit).map_err(client_error)?;
        // The row found may have changed between the scan and its lock: it counts only if
        // it still holds the key, now that no one can change it.
        let held: std::collections::HashSet<Vec<u8>> = locks
            .iter()
            .filter_map(|op| txn.row(*op).map(encode))
            .collect();
        return Ok(keys.iter().all(|k| held.contains(&encode(k))));
    };
    txn.execute(ExecType::NoCommit).map_err(client_error)?;
    Ok(reads.iter().all(|op| txn.row(*op).is_some()))
}

/// The child rows (every column by position) whose `fk` values are one of the keys `gone`
/// names, each with the new values its parent took (None: deleted), read again by primary key
/// under an exclusive lock and kept only if they still reference a key `gone` names.
fn referencing_rows(
    txn: &mut Transaction,
    child: &Table,
    fk: &ForeignKeyDef,
    gone: &Gone,
) -> Result<Vec<Found>> {
    let cdef = child.def();
    let Some(index) = index_leading(cdef, &fk.columns) else {
        return Err(SqlError::new(
            1451,
            "23000",
            format!(
                "Cannot delete or update a parent row: no index of {} leads with the columns of {}",
                cdef.name, fk.name
            ),
        ));
    };
    let index = &cdef.indexes[index];
    let all: Vec<u16> = (0..cdef.columns.len() as u16).collect();
    let pk = &cdef.primary_key;
    let keys: Vec<Vec<Value>> = gone.values().map(|(old, _)| old.clone()).collect();
    let pk_names: Vec<&str> = pk
        .iter()
        .map(|c| cdef.columns[*c as usize].name.as_str())
        .collect();
    let mut found = Vec::new();
    for chunk in keys.chunks(ROWS_PER_BATCH) {
        let scan = Scan::index(&index.name)
            .keys(chunk.to_vec())
            .columns(&pk_names);
        found.extend(txn.scan(child, &scan).map_err(client_error)?);
    }
    let mut locked = Vec::with_capacity(found.len());
    for chunk in found.chunks(ROWS_PER_BATCH) {
        let locks: Vec<client::OpId> = chunk
            .iter()
            .map(|key| txn.read_with(child, key.clone(), LockMode::Exclusive, all.clone()))
            .collect();
        txn.execute(ExecType::NoCommit).map_err(client_error)?;
        locked.extend(
            locks
                .into_iter()
                .filter_map(|op| txn.row(op).map(<[Value]>::to_vec)),
        );
    }
    let mut rows = Vec::with_capacity(locked.len());
    for row in locked {
        let Some(values) = values_of(&row, &fk.columns) else {
            continue;
        };
        let mut encoded = Vec::new();
        cdef.encode_key(&fk.columns, &values, &mut encoded);
        if let Some((_, new)) = gone.get(&encoded) {
            rows.push((row, new.clone()));
        }
    }
    Ok(rows)
}
