//! Running INSERT, REPLACE and INSERT ... SELECT plans: each row's values, AUTO_INCREMENT, and the
//! rows in its way skipped (IGNORE), deleted (REPLACE) or updated (ON DUPLICATE KEY UPDATE), in
//! batches of INSERT_BATCH_ROWS.

use crate::exec::check::Checking;
use crate::exec::diagnostics::Storing;
use crate::exec::foreign::{inserted_row, Changed, Referential};
use crate::exec::generated::{generators, value_ignored, Generating};
use crate::exec::run::Executor;
use crate::exec::Exec;
use crate::exec::Outcome;
use crate::expr::stored::{
    add_current_defaults, lenient_store, on_update_values, strict_store, timestamped,
};
use crate::foundation::error::Result;
use crate::foundation::error::SqlError;
use crate::plan::write::InsertPlan;
use crate::plan::write::OnDuplicate;
use base::Value;
use client::{ExecType, LockMode, OpResult, Transaction};

/// Rows per execute of a multi-row INSERT (each a batch of the data node's).
const INSERT_BATCH_ROWS: usize = 1_000;

pub(crate) trait Inserting: Executor {
    fn run_insert(&mut self, p: &InsertPlan, params: &[Value]) -> Result<Outcome> {
        let def = p.table.def().clone();
        // The rows' values (None: DEFAULT), from VALUES or SET, or the SELECT's rows (read
        // first, so INSERT INTO t SELECT ... FROM t sees t as it was).
        let ignore = matches!(p.duplicate, OnDuplicate::Ignore);
        // The values to store: a division by zero in them is 1365 (a warning under IGNORE).
        let storing = if ignore {
            Storing::Ignoring
        } else {
            Storing::Strict
        };
        let values: Vec<Vec<Option<Value>>> = self.storing(storing, |s| match &p.select {
            Some(plan) => match s.run_query(plan, params)? {
                Outcome::Rows { rows, .. } => Ok(rows
                    .into_iter()
                    .map(|r| r.into_iter().map(Some).collect())
                    .collect()),
                _ => Ok(Vec::new()),
            },
            None => p
                .rows
                .iter()
                .map(|row| {
                    row.iter()
                        .map(|e| e.as_ref().map(|e| s.free(e, params)).transpose())
                        .collect::<Result<_>>()
                })
                .collect::<Result<_>>(),
        })?;
        // Values first: a bad value fails the statement before anything is sent.
        let mut rows = Vec::with_capacity(values.len());
        let now = self.statement_micros;
        let timed = def.columns.iter().any(|c| c.default_now.is_some());
        let generators = generators(&def)?;
        for (n, row) in values.into_iter().enumerate() {
            let mut given = Vec::with_capacity(p.columns.len());
            for (c, v) in p.columns.iter().zip(row) {
                let column = &def.columns[*c as usize];
                let Some(v) = v else {
                    // DEFAULT: the data node fills the column (SQL the current time, below).
                    continue;
                };
                if column.generated.is_some() {
                    // Computed below from the row; a value given is refused (IGNORE: warned),
                    // but NULL, which MariaDB takes as DEFAULT.
                    if v.is_null() {
                        continue;
                    }
                    let e = value_ignored(&def, column);
                    if !ignore {
                        return Err(e);
                    }
                    self.diagnostics.warn(e.code, e.message);
                    continue;
                }
                if column.auto_increment && v.is_null() {
                    continue;
                }
                let v = timestamped(column, v, now);
                let v = if ignore {
                    lenient_store(&def, column, v, n + 1, |code, m| {
                        self.diagnostics.warn(code, m)
                    })?
                } else {
                    strict_store(&def, column, v, n + 1)?
                };
                if v == Value::Int(0) && column.auto_increment {
                    continue;
                }
                given.push((*c, v));
            }
            if timed {
                // The statement's time, the same in every row, as MariaDB's.
                add_current_defaults(&def, &mut given, now);
            }
            if !generators.is_empty() {
                let mut full = inserted_row(&def, &given);
                let values = self.generate(&def, &generators, &mut full, n + 1, ignore)?;
                given.extend(values);
            }
            rows.push(given);
        }
        // With no id assigned, the client is told the last one given (MariaDB's
        // mysql_insert_id); LAST_INSERT_ID() keeps assigned ones only.
        let given = explicit_id(&def, &rows);
        if !matches!(p.duplicate, OnDuplicate::Fail) {
            let found_rows = self.found_rows;
            let (first, affected) = self.transactional(|s, txn, last| {
                s.insert_checked(txn, last, p, rows, params, found_rows)
            })?;
            if first != 0 {
                self.last_insert_id = first;
            }
            return Ok(Outcome::Done {
                affected,
                last_insert_id: if first != 0 { first } else { given },
                info: String::new(),
            });
        }
        let (first, affected) =
            self.transactional(|s, txn, last| s.insert_rows(txn, last, p, &rows))?;
        if first != 0 {
            self.last_insert_id = first;
        }
        Ok(Outcome::Done {
            affected,
            last_insert_id: if first != 0 { first } else { given },
            info: String::new(),
        })
    }

    /// A plain INSERT's rows, in batches of `INSERT_BATCH_ROWS`, the last sent as `last`
    /// says, each batch's foreign keys enforced; returns the first AUTO_INCREMENT id assigned
    /// and the rows inserted.
    fn insert_rows(
        &mut self,
        txn: &mut Transaction,
        last: ExecType,
        p: &InsertPlan,
        rows: &[Vec<(u16, Value)>],
    ) -> Result<(u64, u64)> {
        let def = p.table.def();
        let count = rows.len();
        let mut first = 0u64;
        let mut sent = 0;
        for chunk in rows.chunks(INSERT_BATCH_ROWS) {
            if !def.checks.is_empty() {
                for values in chunk {
                    self.check_row(&p.table, &inserted_row(def, values))?;
                }
            }
            let ops: Vec<_> = chunk
                .iter()
                .map(|values| txn.insert(&p.table, values.clone()))
                .collect();
            sent += chunk.len();
            let exec = if sent == count {
                last
            } else {
                ExecType::NoCommit
            };
            let auto = def.auto_increment_column();
            self.execute_enforced(txn, exec, &p.table, |txn| {
                chunk
                    .iter()
                    .zip(&ops)
                    .map(|(values, op)| {
                        let mut row = inserted_row(def, values);
                        // An AUTO_INCREMENT column a key may name holds the value assigned.
                        if let (Some(a), Some(OpResult::Done { assigned: Some(id) })) =
                            (auto, txn.result(*op))
                        {
                            let c = &def.columns[a];
                            row[a] = Value::UInt(*id)
                                .coerce(c.ty, c.collation, &c.name)
                                .unwrap_or(Value::UInt(*id));
                        }
                        Changed {
                            old: None,
                            new: Some(row),
                        }
                    })
                    .collect()
            })?;
            if first == 0 && def.auto_increment_column().is_some() {
                first = ops
                    .iter()
                    .find_map(|op| match txn.result(*op) {
                        Some(OpResult::Done { assigned: Some(id) }) => Some(*id),
                        _ => None,
                    })
                    .unwrap_or(0);
            }
        }
        Ok((first, count as u64))
    }

    /// INSERT IGNORE, REPLACE and ON DUPLICATE KEY UPDATE, row by row: each row's primary key
    /// (unless the data node assigns it) and unique keys are read under exclusive locks, then the
    /// row is skipped, the rows in its way deleted, or the row found updated. Returns the first
    /// AUTO_INCREMENT id assigned and the affected rows as MySQL counts them (1 per insert, 1 per
    /// row REPLACE deletes, 2 per row updated, 0 per row left as it was (1 with
    /// CLIENT_FOUND_ROWS)).
    fn insert_checked(
        &mut self,
        txn: &mut Transaction,
        last: ExecType,
        p: &InsertPlan,
        rows: Vec<Vec<(u16, Value)>>,
        params: &[Value],
        found_rows: bool,
    ) -> Result<(u64, u64)> {
        let client = |e: client::ClientError| SqlError::from_client(&e);
        let def = p.table.def();
        let generators = generators(def)?;
        let all: Vec<u16> = (0..def.columns.len() as u16).collect();
        let key_of = |row: &[Value]| -> Vec<Value> {
            def.primary_key
                .iter()
                .map(|c| row[*c as usize].clone())
                .collect()
        };
        let auto = def.auto_increment_column().map(|c| c as u16);
        let unique_order: Vec<u16> = crate::catalog::definition::keys(def)
            .iter()
            .filter(|k| k.unique && k.name != crate::catalog::definition::PRIMARY)
            .filter_map(|k| def.index(k.name).map(|i| i as u16))
            .collect();
        let (mut first, mut affected) = (0u64, 0u64);
        // What the foreign keys check: each row inserted, deleted or updated.
        let mut changed: Vec<Changed> = Vec::new();
        let several = rows.len() > 1;
        // INSERT IGNORE skips a row whose reference is missing, with a warning (1452).
        let ignore_references = matches!(p.duplicate, OnDuplicate::Ignore)
            && !def.foreign_keys.is_empty()
            && self.foreign_key_checks();
        let self_referencing = def
            .foreign_keys
            .iter()
            .any(|k| k.parent.eq_ignore_ascii_case(&def.name));
        for (n, values) in rows.into_iter().enumerate() {
            // The row as the INSERT gives it: its values, each other column's default.
            let full = inserted_row(def, &values);
            match self.check_row(&p.table, &full) {
                // IGNORE skips a row a CHECK refuses, with the refusal as a warning, when the
                // statement has several (MariaDB's single-row INSERT IGNORE fails).
                Err(e)
                    if e.code == 4025 && several && matches!(p.duplicate, OnDuplicate::Ignore) =>
                {
                    self.diagnostics.warn(e.code, e.message);
                    continue;
                }
                checked => checked?,
            }
            let assigned = auto.filter(|a| !values.iter().any(|(c, _)| c == a));
            // Each probe's read, with its key's name and values (for IGNORE's warning).
            let mut probes = Vec::new();
            // In MariaDB's order of keys: the first taken is the one a warning names and
            // ON DUPLICATE KEY UPDATE changes.
            let keys = std::iter::once((None, &def.primary_key))
                .filter(|_| !def.has_hidden_pk())
                .chain(unique_order.iter().map(|i| {
                    let index = &def.indexes[*i as usize];
                    (Some(*i), &index.columns)
                }));
            for (unique, columns) in keys {
                if assigned.is_some_and(|a| columns.contains(&a)) {
                    continue;
                }
                let key: Vec<Value> = columns.iter().map(|c| full[*c as usize].clone()).collect();
                if key.iter().any(Value::is_null) {
                    // NULL never equals a key.
                    continue;
                }
                let name = unique.map_or("PRIMARY", |i| def.indexes[i as usize].name.as_str());
                // A key holding prefixes is named by them (the data node cuts the key too).
                let shown = match unique {
                    Some(i) => def.indexes[i as usize].key_values(def, &full),
                    None => key.clone(),
                };
                let read = match unique {
                    None => txn.read_with(&p.table, key.clone(), LockMode::Exclusive, all.clone()),
                    Some(i) => {
                        txn.read_unique(&p.table, i, key.clone(), LockMode::Exclusive, all.clone())
                    }
                };
                probes.push((read, name, shown));
            }
            if !probes.is_empty() {
                txn.execute(ExecType::NoCommit).map_err(client)?;
            }
            let mut taken: Vec<Vec<Value>> = Vec::new();
            let mut first_taken = None;
            for (op, name, key) in &probes {
                if let Some(r) = txn.row(*op) {
                    first_taken.get_or_insert((*name, key));
                    if !taken.iter().any(|t| t.as_slice() == r) {
                        taken.push(r.to_vec());
                    }
                }
            }
            match (&p.duplicate, taken.first()) {
                (OnDuplicate::Ignore, Some(_)) => {
                    // MariaDB's warning for the first key found taken.
                    if let Some((name, key)) = first_taken {
                        self.diagnostics
                            .warn(1062, base::text::duplicate_entry(key, name));
                    }
                }
                (OnDuplicate::Update(assignments), Some(existing)) => {
                    // The existing row, then the row the INSERT gave (VALUES(col)).
                    let mut row = existing.clone();
                    row.extend(full);
                    let now = self.statement_micros;
                    for (c, e) in assignments {
                        let column = &def.columns[*c as usize];
                        if column.generated.is_some() {
                            return Err(value_ignored(def, column));
                        }
                        let v =
                            self.storing(Storing::Strict, |s| e.eval(&s.env(&row, params, &[])))?;
                        let v = timestamped(column, v, now);
                        row[*c as usize] = strict_store(def, column, v, n + 1)?;
                    }
                    let width = def.columns.len();
                    if (0..width).any(|c| row[c] != existing[c]) {
                        let assigned = |c: u16| assignments.iter().any(|(a, _)| *a == c);
                        for (c, v) in on_update_values(def, assigned, now) {
                            row[c as usize] = v;
                        }
                        if !generators.is_empty() {
                            // Written into the row's own columns (its first), after ON UPDATE.
                            self.generate(def, &generators, &mut row[..width], n + 1, false)?;
                        }
                    }
                    let changes: Vec<(u16, Value)> = (0..width)
                        .filter(|c| row[*c] != existing[*c])
                        .map(|c| (c as u16, row[c].clone()))
                        .collect();
                    if changes.is_empty() {
                        affected += found_rows as u64;
                    } else {
                        let update = Changed::updated(existing, &changes);
                        if let Some(new) = &update.new {
                            self.check_row(&p.table, new)?;
                        }
                        changed.push(update);
                        txn.update(&p.table, key_of(existing), changes);
                        txn.execute(ExecType::NoCommit).map_err(client)?;
                        affected += 2;
                    }
                }
                _ => {
                    if matches!(p.duplicate, OnDuplicate::Replace) {
                        for r in &taken {
                            txn.delete(&p.table, key_of(r));
                            changed.push(Changed {
                                old: Some(r.clone()),
                                new: None,
                            });
                            affected += 1;
                        }
                    }
                    // A row whose parent is missing is skipped before it is written, unless
                    // the table references itself (the row may be its own parent).
                    if ignore_references
                        && !self_referencing
                        && self.skips_reference(txn, p, &full, false)?
                    {
                        continue;
                    }
                    let op = txn.insert(&p.table, values);
                    txn.execute(ExecType::NoCommit).map_err(client)?;
                    let mut full = full;
                    if let (Some(a), Some(OpResult::Done { assigned: Some(id) })) =
                        (assigned, txn.result(op))
                    {
                        let c = &def.columns[a as usize];
                        full[a as usize] = Value::UInt(*id)
                            .coerce(c.ty, c.collation, &c.name)
                            .unwrap_or(Value::UInt(*id));
                    }
                    if ignore_references
                        && self_referencing
                        && self.skips_reference(txn, p, &full, true)?
                    {
                        continue;
                    }
                    changed.push(Changed {
                        old: None,
                        new: Some(full),
                    });
                    affected += 1;
                    if let (0, Some(OpResult::Done { assigned: Some(id) })) =
                        (first, txn.result(op))
                    {
                        first = *id;
                    }
                }
            }
        }
        if txn.is_open() {
            self.execute_enforced(txn, last, &p.table, |_| changed)?;
        }
        Ok((first, affected))
    }

    /// INSERT IGNORE's row `full` (`inserted` already, or not yet): when a foreign key finds no
    /// parent for it, it is skipped (deleted again if inserted) and the statement warns (1452)
    /// and goes on, as MariaDB skips it.
    fn skips_reference(
        &mut self,
        txn: &mut Transaction,
        p: &InsertPlan,
        full: &[Value],
        inserted: bool,
    ) -> Result<bool> {
        let row = Changed {
            old: None,
            new: Some(full.to_vec()),
        };
        match self.enforce(txn, &p.table, vec![row], 0) {
            Ok(()) => Ok(false),
            Err(e) if e.code == 1452 && !inserted => {
                self.diagnostics.warn(1452, e.message);
                Ok(true)
            }
            Err(e) if e.code == 1452 => {
                let key = p
                    .table
                    .def()
                    .primary_key
                    .iter()
                    .map(|c| full[*c as usize].clone())
                    .collect();
                txn.delete(&p.table, key);
                txn.execute(ExecType::NoCommit)
                    .map_err(|e| SqlError::from_client(&e))?;
                self.diagnostics.warn(1452, e.message);
                Ok(true)
            }
            Err(e) => Err(e),
        }
    }
}

impl<S: Exec> Inserting for S {}

/// The AUTO_INCREMENT value the last row of `rows` gives its column itself (0: none given).
fn explicit_id(def: &base::TableDef, rows: &[Vec<(u16, Value)>]) -> u64 {
    let Some(auto) = def.columns.iter().position(|c| c.auto_increment) else {
        return 0;
    };
    let given = rows
        .iter()
        .rev()
        .find_map(|r| r.iter().find(|(c, _)| *c as usize == auto));
    match given.map(|(_, v)| v) {
        Some(Value::Int(i)) if *i > 0 => *i as u64,
        Some(Value::UInt(u)) => *u,
        _ => 0,
    }
}
