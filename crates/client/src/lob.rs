//! Long TEXT and BLOB values in parts (`base::lob`), as the client library keeps them: a long
//! value of a write is cut into part rows sent before it, and the references in rows read are
//! joined again from their parts, so no frame carries more than a part or a short row.

use base::lob::{self, PartsRef};
use base::{limits, Error, ErrorCode, TableDef, Value};
use wire::{ExecType, ExecuteOutcome, LockMode, Message, OpResult, Operation};

use crate::connection::{unexpected, Cluster};
use crate::table::Table;
use crate::{ClientError, Result};

/// Parts one request reads: a reply of at most 4 MiB of values.
const PARTS_PER_READ: usize = 16;

/// The parts table, made when it is missing.
pub(crate) fn parts_table(cluster: &Cluster) -> Result<Table> {
    match cluster.table(lob::PARTS_TABLE) {
        Err(e) if e.code() == ErrorCode::NoSuchTable => {
            match cluster.create_table(lob::parts_table()) {
                // Another API node made it meanwhile.
                Err(e) if e.code() == ErrorCode::TableExists => cluster.table(lob::PARTS_TABLE),
                made => made,
            }
        }
        found => found,
    }
}

/// Replaces each value of `values` that goes to parts (a MEDIUM/LONG TEXT or BLOB value above
/// `LOB_INLINE_BYTES_MAX`, outside every key and index) with a reference; returns the inserts
/// of its parts (for a table that holds parts: `Table::holds_parts`). A long value the data node would refuse (too long, text not in its character
/// set, in a key or index) is refused here, since it may not fit a frame whole; one whose parts
/// table is unreachable stays whole, and the data node refuses it with the reason.
pub(crate) fn cut(
    cluster: &Cluster,
    def: &TableDef,
    values: &mut [(u16, Value)],
) -> std::result::Result<Vec<Operation>, Error> {
    let mut inserts = Vec::new();
    let mut parts = None;
    for (c, v) in values.iter_mut() {
        let Some(col) = def.columns.get(usize::from(*c)) else {
            continue;
        };
        let long = matches!(v, Value::Bytes(b) if lob::goes_to_parts(b.len()));
        if !long || !lob::holds_parts(col.ty) {
            continue;
        }
        let Value::Bytes(bytes) = v.clone().coerce(col.ty, col.collation, &col.name)? else {
            continue;
        };
        if let Some(e) = lob::refusal(def, *c, bytes.len(), true) {
            return Err(e);
        }
        if parts.is_none() {
            parts = parts_table(cluster).ok();
        }
        let Some(table) = &parts else { continue };
        let reference = PartsRef {
            id: crate::connection::random_u64(),
            len: bytes.len() as u64,
        };
        for (part, data) in lob::parts(&bytes) {
            inserts.push(Operation {
                kind: wire::OpKind::Insert,
                table: table.id(),
                version: table.version(),
                index: None,
                key: Vec::new(),
                values: vec![
                    (0, Value::UInt(reference.id)),
                    (1, Value::UInt(u64::from(part))),
                    (2, Value::Bytes(data.to_vec())),
                ],
                projection: Vec::new(),
            });
        }
        *v = Value::Parts(reference);
    }
    Ok(inserts)
}

/// Refuses an index over `columns` of `table` when one of them holds a value kept in parts: an
/// index key is made of a value's bytes, which the data node does not have (NDB indexes no
/// BLOB or TEXT). A value written in parts while the index is being added is refused by the
/// data node once the index exists; one written just before may escape this check.
pub(crate) fn refuse_index_over_parts(
    cluster: &Cluster,
    table: &Table,
    columns: &[u16],
) -> Result<()> {
    let Some((mut cursor, names)) = scan_parts_columns(cluster, table, columns)? else {
        return Ok(());
    };
    while let Some(rows) = cursor.next_batch()? {
        for row in rows {
            if let Some(at) = row.iter().position(|v| matches!(v, Value::Parts(_))) {
                return Err(ClientError::Failed(Error::new(
                    ErrorCode::BadValue,
                    format!(
                        "column '{}' holds a value longer than {} bytes, kept in parts: an index over it cannot be built",
                        names[at],
                        limits::LOB_INLINE_BYTES_MAX
                    ),
                )));
            }
        }
    }
    Ok(())
}

/// A scan of `table`'s rows reading those of `columns` that may hold parts (named, in that
/// order), references unjoined; None when none may (or `table` is the parts table itself).
fn scan_parts_columns<'t>(
    cluster: &Cluster,
    table: &'t Table,
    columns: &[u16],
) -> Result<Option<(crate::ScanCursor, Vec<&'t str>)>> {
    let def = table.def();
    if !lob::table_holds_parts(def) {
        return Ok(None);
    }
    let names: Vec<&str> = columns
        .iter()
        .filter_map(|c| def.columns.get(usize::from(*c)))
        .filter(|col| lob::holds_parts(col.ty))
        .map(|col| col.name.as_str())
        .collect();
    if names.is_empty() {
        return Ok(None);
    }
    let scan = crate::table::Scan::table().columns(&names);
    let cursor = cluster.scan_cursor(table, &scan)?.unjoined();
    Ok(Some((cursor, names)))
}

/// Deletes of parts one transaction carries (`delete_parts`).
const DELETES_PER_COMMIT: usize = 1024;

/// The references to parts held by the rows of `tables`, read before they are dropped (whose
/// parts the data node does not delete). Best effort: a table that cannot be read gives none,
/// and a value written in parts while the table is being dropped escapes (its parts stay).
pub(crate) fn parts_of_tables(cluster: &Cluster, tables: &[String]) -> Vec<PartsRef> {
    let mut found = Vec::new();
    for name in tables {
        if let Ok(table) = cluster.table(name) {
            let all: Vec<u16> = (0..table.def().columns.len() as u16).collect();
            found.extend(parts_of_columns(cluster, &table, &all));
        }
    }
    found
}

/// The references to parts held by `columns` of `table`'s rows (those columns that may hold
/// any), read unjoined; best effort, as `parts_of_tables`.
pub(crate) fn parts_of_columns(cluster: &Cluster, table: &Table, columns: &[u16]) -> Vec<PartsRef> {
    let mut found = Vec::new();
    let Ok(Some((mut cursor, _))) = scan_parts_columns(cluster, table, columns) else {
        return found;
    };
    while let Ok(Some(rows)) = cursor.next_batch() {
        for v in rows.into_iter().flatten() {
            if let Value::Parts(r) = v {
                found.push(r);
            }
        }
    }
    found
}

/// Deletes the parts of `references` (of a dropped table), a commit per
/// [`DELETES_PER_COMMIT`] parts. Best effort: a failure leaves the rest behind, logged.
pub(crate) fn delete_parts(cluster: &Cluster, references: &[PartsRef]) {
    if references.is_empty() {
        return;
    }
    let Ok(table) = cluster.table(lob::PARTS_TABLE) else {
        return;
    };
    let keys: Vec<Vec<Value>> = references
        .iter()
        .flat_map(|r| {
            (0..r.part_count()).map(|part| vec![Value::UInt(r.id), Value::UInt(u64::from(part))])
        })
        .collect();
    for batch in keys.chunks(DELETES_PER_COMMIT) {
        let mut txn = cluster.transaction();
        for key in batch {
            txn.delete(&table, key.clone());
        }
        if let Err(e) = txn.commit() {
            tracing::warn!("parts of a dropped table left behind: {e}");
            return;
        }
    }
}

/// Whether any value of `rows` is a reference to parts.
pub fn has_parts<'a>(mut rows: impl Iterator<Item = &'a [Value]>) -> bool {
    rows.any(|row| row.iter().any(|v| matches!(v, Value::Parts(_))))
}

/// Where the parts of references are read: in an open transaction (which sees its own parts
/// not yet committed), or committed, each request a transaction of its own.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reading {
    /// The open transaction's id, statement and oldest kept statement; None: committed reads.
    pub transaction: Option<(u64, u32, u32)>,
}

/// Replaces every reference to parts in `rows` with the value its parts make. A failure of
/// the reads in an open transaction is the transaction's (`Aborted`, `StatementUndone`, named
/// as operation `op_index`).
pub(crate) fn join<'a>(
    cluster: &Cluster,
    reading: Reading,
    rows: impl Iterator<Item = &'a mut Vec<Value>>,
    op_index: u32,
) -> Result<()> {
    let mut table = None;
    for row in rows {
        for v in row.iter_mut() {
            let Value::Parts(reference) = v else { continue };
            let reference = *reference;
            if table.is_none() {
                table = Some(cluster.table(lob::PARTS_TABLE)?);
            }
            let Some(table) = &table else { continue };
            *v = Value::Bytes(read_value(cluster, reading, table, reference, op_index)?);
        }
    }
    Ok(())
}

/// Replaces every reference to parts in the rows of `results`.
pub(crate) fn join_results(
    cluster: &Cluster,
    reading: Reading,
    results: &mut [OpResult],
    op_index: u32,
) -> Result<()> {
    let rows = results.iter_mut().filter_map(|r| match r {
        OpResult::Row(values) => Some(values),
        _ => None,
    });
    join(cluster, reading, rows, op_index)
}

/// The bytes of the value `reference` names, read a few parts a request.
fn read_value(
    cluster: &Cluster,
    reading: Reading,
    table: &Table,
    reference: PartsRef,
    op_index: u32,
) -> Result<Vec<u8>> {
    let len = usize::try_from(reference.len)
        .ok()
        .filter(|len| *len <= 2 * limits::LOB_BYTES_MAX)
        .ok_or_else(|| changed(reference, "its length is above every column's limit"))?;
    let mut bytes = Vec::with_capacity(len);
    let parts: Vec<u32> = (0..reference.part_count()).collect();
    for batch in parts.chunks(PARTS_PER_READ) {
        // Committed first: a value's parts never change, and committed reads leave the
        // transaction alone. Only its own parts, not yet committed, are read in it.
        let mut found = read_parts(cluster, None, table, reference.id, batch, op_index)?;
        if found.iter().any(Option::is_none) && reading.transaction.is_some() {
            found = read_parts(
                cluster,
                reading.transaction,
                table,
                reference.id,
                batch,
                op_index,
            )?;
        }
        for part in found {
            let part = part.ok_or_else(|| changed(reference, "a part is missing"))?;
            bytes.extend_from_slice(&part);
        }
    }
    if bytes.len() != len {
        return Err(changed(reference, "its parts do not add up to its length"));
    }
    Ok(bytes)
}

/// Parts `batch` of the value `id` (None for one not found): committed reads in a request of
/// their own, or reads in the open `transaction` (id, statement, oldest kept statement).
fn read_parts(
    cluster: &Cluster,
    transaction: Option<(u64, u32, u32)>,
    table: &Table,
    id: u64,
    batch: &[u32],
    op_index: u32,
) -> Result<Vec<Option<Vec<u8>>>> {
    let operations: Vec<Operation> = batch
        .iter()
        .map(|part| {
            let key = vec![Value::UInt(id), Value::UInt(u64::from(*part))];
            Operation::read(
                table.id(),
                table.version(),
                None,
                key,
                LockMode::CommittedRead,
                vec![2],
            )
        })
        .collect();
    let inside = transaction.is_some();
    let (transaction, statement, keep_from, exec) = match transaction {
        Some((id, statement, keep_from)) => (id, statement, keep_from, ExecType::NoCommit),
        None => (cluster.next_transaction(), 0, 0, ExecType::Commit),
    };
    let reply = cluster.call(&Message::Execute {
        transaction,
        statement,
        keep_from,
        exec,
        operations,
    })?;
    let results = match reply {
        Message::ExecuteReply(ExecuteOutcome::Ok(results)) if results.len() == batch.len() => {
            results
        }
        // Reads of a request of their own fail alone: the caller's transaction is untouched.
        Message::ExecuteReply(
            ExecuteOutcome::Aborted { error, .. } | ExecuteOutcome::StatementUndone { error, .. },
        ) if !inside => return Err(ClientError::Failed(error)),
        Message::ExecuteReply(ExecuteOutcome::Aborted { error, .. }) => {
            return Err(ClientError::Aborted { op_index, error })
        }
        Message::ExecuteReply(ExecuteOutcome::StatementUndone { error, .. }) => {
            return Err(ClientError::StatementUndone { op_index, error })
        }
        other => return Err(unexpected(&other)),
    };
    Ok(results
        .into_iter()
        .map(|result| match result {
            OpResult::Row(mut values) => match values.pop() {
                Some(Value::Bytes(part)) => Some(part),
                _ => None,
            },
            _ => None,
        })
        .collect())
}

/// A value whose parts are not what its reference says: deleted or replaced since its row was
/// read (a committed read raced a write), which reading again resolves.
fn changed(reference: PartsRef, why: &str) -> ClientError {
    ClientError::Failed(Error::new(
        ErrorCode::LockWaitTimeout,
        format!(
            "a value of {} bytes kept in parts changed while it was read ({why}); read it again",
            reference.len
        ),
    ))
}
