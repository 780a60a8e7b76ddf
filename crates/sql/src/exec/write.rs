//! UPDATE and DELETE execution. A single-table statement runs its planned `Source` (plan/mod.rs);
//! a multi-table one (`UPDATE t1 JOIN t2 ON ... SET ...`, `UPDATE t1, t2 SET ...`,
//! `DELETE t1 FROM t1 JOIN t2 ...`, `DELETE FROM t1 USING t1 JOIN t2 ...`) is planned here as
//! one locking join SELECT of each target row's primary key (and, for UPDATE, the new and old
//! values of its assigned columns), then applied by key, each target row once. Both write a
//! changed row through `write_row`.

use std::collections::HashSet;

use base::types::Collation;
use base::Value;
use client::{ClientError, ExecType, OpResult, Table, Transaction};
use sqlparser::ast::{self, ObjectName, Statement};

use crate::exec::check::Checking;
use crate::exec::diagnostics::Storing;
use crate::exec::foreign::{by_position, Changed, Referential};
use crate::exec::generated::{generators, Generating};
use crate::exec::Outcome;
use crate::exec::{Exec, Executor, Subqueries};
use crate::expr::aggregate::by_keys;
use crate::expr::aggregate::count_value;
use crate::expr::stored::{lenient_store, on_update_values, strict_store, timestamped};
use crate::expr::Expr;
use crate::foundation::error::Result;
use crate::foundation::error::SqlError;
use crate::plan::join::FromTable;
use crate::plan::write::MultiPlan;
use crate::plan::write::Target;
use crate::plan::{DeletePlan, OrderKey, PlanInput, Source, TableRef, UpdatePlan};

/// Whether an UPDATE names more than one table.
pub(crate) fn is_multi_update(u: &ast::Update) -> bool {
    !u.table.joins.is_empty() || u.from.is_some()
}

/// Whether a DELETE names more than one table (`DELETE t1 FROM ...` or `... USING ...`).
pub(crate) fn is_multi_delete(d: &ast::Delete) -> bool {
    !d.tables.is_empty() || d.using.is_some()
}

fn from_clause(
    from: &[ast::TableWithJoins],
    input: &PlanInput,
    resolve: &dyn Fn(&ObjectName) -> Result<(Table, TableRef)>,
) -> Result<Vec<FromTable>> {
    let tables = crate::plan::join::from_tables(from, input, resolve)?.0;
    if tables.iter().any(|t| t.group.is_some()) {
        return Err(SqlError::unsupported(
            "a nested join with an outer join in a multi-table UPDATE or DELETE",
        ));
    }
    Ok(tables)
}

fn name_parts(name: &ObjectName) -> Vec<String> {
    name.0
        .iter()
        .map(|p| p.as_ident().map(|i| i.value.clone()).unwrap_or_default())
        .collect()
}

/// `alias`.`column` as an expression of the join.
fn column_ref(tref: &TableRef, column: &str) -> ast::Expr {
    ast::Expr::CompoundIdentifier(vec![
        ast::Ident::with_quote('`', tref.2.clone()),
        ast::Ident::with_quote('`', column),
    ])
}

fn not_updatable(name: &str, statement: &str) -> SqlError {
    SqlError::new(
        1288,
        "HY000",
        format!("The target table {name} of the {statement} is not updatable"),
    )
}

/// The join SELECT: `items` over `from` with `selection`, read FOR UPDATE.
fn join_query(
    items: Vec<ast::Expr>,
    from: Vec<ast::TableWithJoins>,
    selection: Option<ast::Expr>,
    order_by: &[ast::OrderByExpr],
    limit: Option<&ast::Expr>,
) -> Result<ast::Query> {
    let statements = sqlparser::parser::Parser::parse_sql(
        &crate::parse::dialect::Cairn,
        "SELECT 1 FROM dual FOR UPDATE",
    )
    .map_err(SqlError::parse)?;
    let Some(Statement::Query(mut q)) = statements.into_iter().next() else {
        return Err(SqlError::parse("the join of a multi-table statement"));
    };
    let ast::SetExpr::Select(select) = q.body.as_mut() else {
        return Err(SqlError::parse("the join of a multi-table statement"));
    };
    select.projection = items
        .into_iter()
        .map(ast::SelectItem::UnnamedExpr)
        .collect();
    select.from = from;
    select.selection = selection;
    if !order_by.is_empty() {
        q.order_by = Some(ast::OrderBy {
            kind: ast::OrderByKind::Expressions(order_by.to_vec()),
            interpolate: None,
        });
    }
    if let Some(limit) = limit {
        q.limit_clause = Some(ast::LimitClause::LimitOffset {
            limit: Some(limit.clone()),
            offset: None,
            limit_by: Vec::new(),
        });
    }
    Ok(*q)
}

/// Adds the items of `named`'s primary key; returns their positions.
fn key_items(named: &FromTable, items: &mut Vec<ast::Expr>) -> Vec<usize> {
    let def = named.table.def();
    def.primary_key
        .iter()
        .map(|c| {
            items.push(column_ref(&named.tref, &def.columns[*c as usize].name));
            items.len() - 1
        })
        .collect()
}

/// Plans `UPDATE t1 [JOIN t2 ...][, t3 ...] SET ... [WHERE ...] [ORDER BY ...] [LIMIT n]`.
pub(crate) fn update(
    input: &PlanInput,
    u: &ast::Update,
    resolve: &dyn Fn(&ObjectName) -> Result<(Table, TableRef)>,
) -> Result<MultiPlan> {
    if u.or.is_some() {
        return Err(SqlError::unsupported("multi-table UPDATE IGNORE"));
    }
    let mut from = vec![u.table.clone()];
    match &u.from {
        None => {}
        Some(ast::UpdateTableFromKind::BeforeSet(more)) => from.extend(more.iter().cloned()),
        Some(ast::UpdateTableFromKind::AfterSet(_)) => {
            return Err(SqlError::unsupported("UPDATE ... FROM"))
        }
    }
    let tables = from_clause(&from, input, resolve)?;
    // Each assignment's table (by position in `tables`) and column.
    let mut assigned: Vec<(usize, u16)> = Vec::with_capacity(u.assignments.len());
    for a in &u.assignments {
        let ast::AssignmentTarget::ColumnName(name) = &a.target else {
            return Err(SqlError::unsupported("tuple assignment"));
        };
        let parts = name_parts(name);
        let (qualifier, column) = match parts.as_slice() {
            [column] => (None, column),
            [.., table, column] => (Some(table), column),
            [] => return Err(SqlError::parse("an empty column name")),
        };
        let database = (parts.len() == 3).then(|| &parts[0]);
        let candidates: Vec<(usize, u16)> = tables
            .iter()
            .enumerate()
            .filter(|(_, t)| {
                qualifier.is_none_or(|q| t.tref.2.eq_ignore_ascii_case(q))
                    && database.is_none_or(|d| t.tref.0.eq_ignore_ascii_case(d))
            })
            .filter_map(|(n, t)| {
                let def = t.table.def();
                def.column(column)
                    .filter(|p| !def.columns[*p].hidden)
                    .map(|p| (n, p as u16))
            })
            .collect();
        let (n, c) = match candidates.as_slice() {
            [one] => *one,
            [] => {
                return Err(SqlError::new(
                    1054,
                    "42S22",
                    format!("Unknown column '{}' in 'SET'", parts.join(".")),
                ))
            }
            _ => {
                return Err(SqlError::new(
                    1052,
                    "23000",
                    format!("Column '{column}' in SET is ambiguous"),
                ))
            }
        };
        let target = &tables[n];
        if target.derived.is_some() {
            return Err(not_updatable(&target.tref.2, "UPDATE"));
        }
        assigned.push((n, c));
    }
    // Items: the new values first, then each target's key and the assigned columns as read.
    let mut items: Vec<ast::Expr> = u.assignments.iter().map(|a| a.value.clone()).collect();
    let mut targets: Vec<(usize, Target)> = Vec::new();
    for (i, (n, c)) in assigned.iter().enumerate() {
        let slot = match targets.iter().position(|(t, _)| t == n) {
            Some(slot) => slot,
            None => {
                let key = key_items(&tables[*n], &mut items);
                targets.push((
                    *n,
                    Target {
                        table: tables[*n].table.clone(),
                        key,
                        assignments: Vec::new(),
                        whole: Vec::new(),
                    },
                ));
                targets.len() - 1
            }
        };
        let named = &tables[*n];
        items.push(column_ref(
            &named.tref,
            &named.table.def().columns[*c as usize].name,
        ));
        let old = items.len() - 1;
        targets[slot].1.assignments.push((*c, i, old));
    }
    // A target whose primary key changes is deleted and inserted whole: every column is read.
    for (n, target) in &mut targets {
        let def = tables[*n].table.def();
        if !target
            .assignments
            .iter()
            .any(|(c, ..)| def.primary_key.contains(c))
        {
            continue;
        }
        if def.columns.iter().any(|c| c.hidden) {
            return Err(SqlError::unsupported(
                "UPDATE of a primary key column of a table with hidden columns",
            ));
        }
        for (c, column) in def.columns.iter().enumerate() {
            items.push(column_ref(&tables[*n].tref, &column.name));
            target.whole.push((c as u16, items.len() - 1));
        }
    }
    let q = join_query(
        items,
        from,
        u.selection.clone(),
        &u.order_by,
        u.limit.as_ref(),
    )?;
    Ok(MultiPlan {
        delete: false,
        select: crate::plan::select(input, &q, resolve)?,
        targets: targets.into_iter().map(|(_, t)| t).collect(),
    })
}

/// Plans `DELETE t1[, t2] FROM joins [WHERE ...]` and `DELETE FROM t1[, t2] USING joins [WHERE ...]`.
pub(crate) fn delete(
    input: &PlanInput,
    d: &ast::Delete,
    resolve: &dyn Fn(&ObjectName) -> Result<(Table, TableRef)>,
) -> Result<MultiPlan> {
    if d.returning.is_some() {
        return Err(SqlError::unsupported("DELETE ... RETURNING"));
    }
    // MariaDB's grammar has no ORDER BY or LIMIT for a multi-table DELETE.
    if !d.order_by.is_empty() {
        return Err(SqlError::parse("ORDER BY in a multi-table DELETE"));
    }
    if d.limit.is_some() {
        return Err(SqlError::parse("LIMIT in a multi-table DELETE"));
    }
    let listed = match &d.from {
        ast::FromTable::WithFromKeyword(f) | ast::FromTable::WithoutKeyword(f) => f,
    };
    let (names, from): (Vec<ObjectName>, Vec<ast::TableWithJoins>) = match &d.using {
        None => (d.tables.clone(), listed.clone()),
        Some(using) => {
            let names = listed
                .iter()
                .map(|t| match (&t.relation, t.joins.is_empty()) {
                    (
                        ast::TableFactor::Table {
                            name, alias: None, ..
                        },
                        true,
                    ) => Ok(name.clone()),
                    _ => Err(SqlError::parse("the tables to delete from, before USING")),
                })
                .collect::<Result<_>>()?;
            (names, using.clone())
        }
    };
    let tables = from_clause(&from, input, resolve)?;
    let mut items = Vec::new();
    let mut targets: Vec<(usize, Target)> = Vec::new();
    for name in &names {
        let parts = name_parts(name);
        let (database, table) = match parts.as_slice() {
            [table] => (None, table),
            [database, table] => (Some(database), table),
            _ => return Err(SqlError::parse(format!("the table name {name}"))),
        };
        let Some(n) = tables.iter().position(|t| {
            t.tref.2.eq_ignore_ascii_case(table)
                && database.is_none_or(|d| t.tref.0.eq_ignore_ascii_case(d))
        }) else {
            return Err(SqlError::new(
                1109,
                "42S02",
                format!("Unknown table '{table}' in MULTI DELETE"),
            ));
        };
        if tables[n].derived.is_some() {
            return Err(not_updatable(table, "DELETE"));
        }
        if targets.iter().any(|(t, _)| *t == n) {
            continue;
        }
        let key = key_items(&tables[n], &mut items);
        targets.push((
            n,
            Target {
                table: tables[n].table.clone(),
                key,
                assignments: Vec::new(),
                whole: Vec::new(),
            },
        ));
    }
    let q = join_query(items, from, d.selection.clone(), &[], None)?;
    Ok(MultiPlan {
        delete: true,
        select: crate::plan::select(input, &q, resolve)?,
        targets: targets.into_iter().map(|(_, t)| t).collect(),
    })
}

pub(crate) trait Writes: Exec {
    /// Orders and limits the rows an UPDATE or DELETE found.
    fn order_and_limit(
        &self,
        rows: Vec<Vec<Value>>,
        order: &[(OrderKey, bool, Collation)],
        limit: &Option<Expr>,
        params: &[Value],
    ) -> Result<Vec<Vec<Value>>> {
        let mut rows = rows;
        if !order.is_empty() {
            let mut keyed: Vec<(Vec<Value>, Vec<Value>)> = Vec::with_capacity(rows.len());
            for row in rows {
                let env = self.env(&row, params, &[]);
                let keys = order
                    .iter()
                    .map(|(k, ..)| match k {
                        OrderKey::Expr(e) => e.eval(&env),
                        OrderKey::Item(_) => Ok(Value::Null),
                    })
                    .collect::<Result<_>>()?;
                keyed.push((keys, row));
            }
            keyed.sort_by(|a, b| by_keys(&a.0, &b.0, order));
            rows = keyed.into_iter().map(|(_, r)| r).collect();
        }
        if let Some(l) = limit {
            let l = count_value(self.free(l, params)?)?;
            rows.truncate(l.min(usize::MAX as u64) as usize);
        }
        Ok(rows)
    }

    /// Primary key values of a fetched row.
    fn primary_key(src: &Source, row: &[Value]) -> Vec<Value> {
        src.table
            .def()
            .primary_key
            .iter()
            .map(|c| {
                src.fetch
                    .iter()
                    .position(|f| f == c)
                    .map(|p| row[p].clone())
                    .unwrap_or(Value::Null)
            })
            .collect()
    }

    fn run_update(&mut self, p: &UpdatePlan, params: &[Value]) -> Result<Outcome> {
        let found_rows = self.found_rows;
        self.transactional(|s, txn, last| {
            let src = &p.source;
            // A division by zero met row by row in the WHERE fails an UPDATE, as strict mode
            // makes MariaDB's (a DELETE's only warns; constants warn while planning).
            let storing = if p.ignore {
                Storing::Ignoring
            } else {
                Storing::Strict
            };
            let rows = s.storing(storing, |s| s.fetch(txn, ExecType::NoCommit, src, params))?;
            let mut rows = s.order_and_limit(rows, &p.order, &p.limit, params)?;
            let def = src.table.def().clone();
            if p.ignore && p.order.is_empty() {
                // Which rows IGNORE skips depends on the order they are written in: InnoDB
                // writes them in primary-key order, its clustered index's.
                let order: Vec<((), bool, Collation)> = def
                    .primary_key
                    .iter()
                    .map(|c| ((), false, def.columns[*c as usize].collation))
                    .collect();
                rows.sort_by(|a, b| {
                    by_keys(
                        &Self::primary_key(src, a),
                        &Self::primary_key(src, b),
                        &order,
                    )
                });
            }
            s.run_correlated(txn, p.assignments.iter().map(|(_, e)| e), &rows, params)?;
            let now = s.statement_micros;
            let generators = generators(&def)?;
            let assigned = |c: u16| p.assignments.iter().any(|(a, _)| *a == c);
            let at = |c: &u16| {
                src.fetch
                    .iter()
                    .position(|f| f == c)
                    .expect("every column is fetched")
            };
            let mut written_rows: Vec<Changed> = Vec::new();
            // Rows are kept for the foreign keys only when they apply.
            let enforced = s.references_apply(&src.table)?;
            let mut write_all = |s: &mut Self,
                                 txn: &mut Transaction,
                                 changed: &mut u64,
                                 wrote: &mut bool|
             -> Result<()> {
                for (n, row) in rows.iter().enumerate() {
                    // Assignments run left to right, each seeing the ones before it (MariaDB's
                    // default, without SIMULTANEOUS_ASSIGNMENT): `SET a = a + 1, b = a`. Every
                    // column is fetched, so each has its place in the row.
                    let mut current = row.clone();
                    for (i, (c, e)) in p.assignments.iter().enumerate() {
                        let column = &def.columns[*c as usize];
                        if i > 0 && e.has_correlated() && current != *row {
                            // A subquery reading a column assigned before it runs for the
                            // new value (the batch above ran for the row as fetched).
                            s.run_correlated(txn, [e], std::slice::from_ref(&current), params)?;
                        }
                        let v = s.storing(storing, |s| e.eval(&s.env(&current, params, &[])))?;
                        let v = timestamped(column, v, now);
                        let v = if p.ignore {
                            lenient_store(&def, column, v, n + 1, |code, m| {
                                s.diagnostics.warn(code, m)
                            })?
                        } else {
                            strict_store(&def, column, v, n + 1)?
                        };
                        current[at(c)] = v;
                    }
                    let mut values: Vec<(u16, Value)> = Vec::new();
                    for (c, _) in &p.assignments {
                        let i = at(c);
                        if current[i] != row[i] && values.iter().all(|(done, _)| done != c) {
                            values.push((*c, current[i].clone()));
                        }
                    }
                    if values.is_empty() {
                        continue;
                    }
                    for (c, v) in on_update_values(&def, assigned, now) {
                        current[at(&c)] = v.clone();
                        values.push((c, v));
                    }
                    if !generators.is_empty() {
                        // Generated columns follow the row's new values.
                        let mut full = by_position(&def, &src.fetch, &current);
                        for (c, v) in s.generate(&def, &generators, &mut full, n + 1, p.ignore)? {
                            let i = at(&c);
                            if current[i] != v {
                                current[i] = v.clone();
                                values.retain(|(done, _)| *done != c);
                                values.push((c, v));
                            }
                        }
                    }
                    let key = Self::primary_key(src, row);
                    let new = (enforced || !def.checks.is_empty())
                        .then(|| by_position(&def, &src.fetch, &current));
                    if let Some(new) = &new {
                        match s.check_row(&src.table, new) {
                            // IGNORE skips a row a CHECK refuses, with a warning.
                            Err(e) if e.code == 4025 && p.ignore => {
                                s.diagnostics.warn(e.code, e.message);
                                continue;
                            }
                            checked => checked?,
                        }
                    }
                    let written_row = enforced.then(|| Changed {
                        old: Some(by_position(&def, &src.fetch, row)),
                        new,
                    });
                    if p.ignore {
                        // Each row is written on its own, as a statement of its own: a row
                        // whose new key is taken is undone alone and skipped, silently, as
                        // MariaDB skips it.
                        txn.begin_statement();
                    }
                    write_row(txn, &src.table, key, values, |_| {
                        src.fetch.iter().copied().zip(current).collect()
                    });
                    if p.ignore {
                        let written = txn.execute(ExecType::NoCommit);
                        *wrote = true;
                        match written {
                            Ok(_) => {}
                            Err(ClientError::StatementUndone { error, .. })
                                if error.code == base::ErrorCode::DuplicateKey =>
                            {
                                continue
                            }
                            Err(e) => return Err(SqlError::from_client(&e)),
                        }
                        // Its keys are enforced with it: a row they refuse is undone and
                        // skipped with the refusal as a warning, as MariaDB's IGNORE does.
                        if let Some(written_row) = written_row {
                            if s.skips_row(txn, &src.table, written_row)? {
                                continue;
                            }
                        }
                    } else {
                        written_rows.extend(written_row);
                    }
                    *changed += 1;
                }
                Ok(())
            };
            // The rows of an UPDATE IGNORE in a transaction go as statements of their own: the
            // data node keeps what undoes all of them, so that a failure undoes the whole
            // UPDATE and the transaction goes on, as in InnoDB.
            let kept = txn.kept_undo_from();
            let first = (p.ignore && last == ExecType::NoCommit).then(|| txn.next_statement());
            if let (Some(first), 0) = (first, kept) {
                txn.keep_undo_from(first);
            }
            let (mut changed, mut wrote) = (0u64, false);
            let written = write_all(s, txn, &mut changed, &mut wrote);
            txn.keep_undo_from(kept);
            if let Err(e) = written {
                if let (Some(first), true) = (first, wrote && txn.is_open()) {
                    if let Err(undo) = txn.undo_from(first) {
                        tracing::debug!(
                            "sql session {}: undoing an UPDATE IGNORE: {undo}",
                            s.lock_owner().unwrap_or_default()
                        );
                    }
                }
                return Err(e);
            }
            if changed > 0 || txn.is_open() {
                s.execute_enforced(txn, last, &src.table, |_| written_rows)?;
            }
            let matched = rows.len() as u64;
            Ok(Outcome::Done {
                affected: if found_rows { matched } else { changed },
                last_insert_id: 0,
                info: format!("Rows matched: {matched}  Changed: {changed}  Warnings: 0"),
            })
        })
    }

    fn run_delete(&mut self, p: &DeletePlan, params: &[Value]) -> Result<Outcome> {
        self.transactional(|s, txn, last| {
            let src = &p.source;
            let rows = s.fetch(txn, ExecType::NoCommit, src, params)?;
            let rows = s.order_and_limit(rows, &p.order, &p.limit, params)?;
            let ops: Vec<_> = rows
                .iter()
                .map(|row| txn.delete(&src.table, Self::primary_key(src, row)))
                .collect();
            if !ops.is_empty() || txn.is_open() {
                let def = src.table.def();
                s.execute_enforced(txn, last, &src.table, |_| {
                    rows.iter()
                        .map(|row| Changed {
                            old: Some(by_position(def, &src.fetch, row)),
                            new: None,
                        })
                        .collect()
                })?;
            }
            let deleted = ops
                .iter()
                .filter(|op| matches!(txn.result(**op), Some(OpResult::Done { .. })))
                .count();
            Ok(Outcome::Done {
                affected: deleted as u64,
                last_insert_id: 0,
                info: String::new(),
            })
        })
    }

    /// Runs a multi-table UPDATE or DELETE: the locking join, then each target row's change
    /// by its key, once however many joined rows name it, in one transaction.
    fn run_multi(&mut self, p: &MultiPlan, params: &[Value]) -> Result<Outcome> {
        let found_rows = self.found_rows;
        let kept_found = self.last_found_rows;
        let outcome = self.transactional(|s, txn, last| {
            // The new values are the select's items: a division by zero in one, or met row
            // by row in the WHERE, fails the UPDATE (strict mode's 1365), as a single-table
            // UPDATE's does.
            let storing = if p.delete {
                Storing::No
            } else {
                Storing::Strict
            };
            let rows = s.storing(storing, |s| {
                if s.correlated.is_empty() {
                    s.source_rows(txn, ExecType::NoCommit, &p.select, params)
                } else {
                    s.correlated_source_rows(txn, &p.select, params)
                }
            })?;
            let selected = s.storing(storing, |s| s.select_rows(&p.select, params, rows))?;
            let Outcome::Rows { rows, .. } = selected else {
                return Err(SqlError::parse("the join of a multi-table statement"));
            };
            // The rows of targets whose foreign keys apply, read whole under their locks before
            // any is written, by target and key.
            let targets = p.targets.iter().map(|t| (&t.table, t.key.as_slice()));
            let olds = s.read_targets(txn, targets, &rows)?;
            let mut checked: Vec<Vec<Changed>> = vec![Vec::new(); p.targets.len()];
            let mut seen: HashSet<(usize, Vec<u8>)> = HashSet::new();
            let mut ops = Vec::new();
            let (mut matched, mut changed) = (0u64, 0u64);
            for (n, row) in rows.iter().enumerate() {
                for (t, target) in p.targets.iter().enumerate() {
                    let key: Vec<Value> = target.key.iter().map(|i| row[*i].clone()).collect();
                    // A LEFT JOIN's missing row, or a row already written.
                    if key.iter().any(Value::is_null)
                        || !seen.insert((t, crate::exec::subquery::exact_key(&key)))
                    {
                        continue;
                    }
                    let old = olds[t]
                        .as_ref()
                        .and_then(|o| o.get(&crate::exec::subquery::exact_key(&key)));
                    if p.delete {
                        if let Some(old) = old {
                            checked[t].push(Changed {
                                old: Some(old.clone()),
                                new: None,
                            });
                        }
                        ops.push(txn.delete(&target.table, key));
                        continue;
                    }
                    matched += 1;
                    let mut values = Vec::new();
                    let def = target.table.def();
                    if def.columns.iter().any(|c| c.generated.is_some()) {
                        return Err(SqlError::unsupported(
                            "a multi-table UPDATE of a table with generated columns",
                        ));
                    }
                    for (c, new, old) in &target.assignments {
                        let column = &def.columns[*c as usize];
                        let v = timestamped(column, row[*new].clone(), s.statement_micros);
                        let v = strict_store(def, column, v, n + 1)?;
                        if row[*old] != v {
                            values.push((*c, v));
                        }
                    }
                    if values.is_empty() {
                        continue;
                    }
                    let assigned = |c: u16| target.assignments.iter().any(|(a, ..)| *a == c);
                    values.extend(on_update_values(def, assigned, s.statement_micros));
                    if let Some(old) = old {
                        let update = Changed::updated(old, &values);
                        if let Some(new) = &update.new {
                            s.check_row(&target.table, new)?;
                        }
                        checked[t].push(update);
                    }
                    changed += 1;
                    write_row(txn, &target.table, key, values, |values| {
                        target
                            .whole
                            .iter()
                            .map(|(c, i)| {
                                let new = values.iter().find(|(v, _)| v == c);
                                (*c, new.map_or_else(|| row[*i].clone(), |(_, v)| v.clone()))
                            })
                            .collect()
                    });
                }
            }
            if !ops.is_empty() || changed > 0 || txn.is_open() {
                let checked = p.targets.iter().map(|t| &t.table).zip(checked).collect();
                s.execute_enforced_all(txn, last, checked)?;
            }
            if p.delete {
                let deleted = ops
                    .iter()
                    .filter(|op| matches!(txn.result(**op), Some(OpResult::Done { .. })))
                    .count();
                return Ok(Outcome::Done {
                    affected: deleted as u64,
                    last_insert_id: 0,
                    info: String::new(),
                });
            }
            Ok(Outcome::Done {
                affected: if found_rows { matched } else { changed },
                last_insert_id: 0,
                info: format!("Rows matched: {matched}  Changed: {changed}  Warnings: 0"),
            })
        });
        self.last_found_rows = kept_found;
        outcome
    }
}

impl<S: Exec> Writes for S {}

/// Writes an updated row: its changed `values` in place, or, when one of them is a primary-key
/// column, the row deleted and inserted again `whole` under its new key (maybe in another
/// partition), in this order on the data node (a key still taken is 1062, as InnoDB's
/// row-by-row update).
pub(crate) fn write_row(
    txn: &mut Transaction,
    table: &Table,
    key: Vec<Value>,
    values: Vec<(u16, Value)>,
    whole: impl FnOnce(&[(u16, Value)]) -> Vec<(u16, Value)>,
) {
    if values
        .iter()
        .any(|(c, _)| table.def().primary_key.contains(c))
    {
        let row = whole(&values);
        txn.delete(table, key);
        txn.insert(table, row);
    } else {
        txn.update(table, key, values);
    }
}
