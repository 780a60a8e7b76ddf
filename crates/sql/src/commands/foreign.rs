//! Foreign keys declared: CREATE TABLE's FOREIGN KEY clauses and columns' REFERENCES, and ALTER
//! TABLE's ADD and DROP FOREIGN KEY, read into `ForeignKeyDef`s and checked against the
//! referenced table as MariaDB checks them (errno 150: the referenced columns must lead one of
//! its keys, with the same types), each given an index on the child when none leads with its
//! columns; and the DDL a reference forbids (dropping or truncating a parent, dropping an
//! index a key needs).

use base::foreign_key::{ForeignKeyDef, ReferenceAction};
use base::schema::{ColumnDef, IndexKind};
use base::TableDef;
use sqlparser::ast;

use crate::catalog::foreign::{split_name, violation_detail};
use crate::foundation::error::{Result, SqlError};
use crate::session::Session;

/// Parent keys an ALTER TABLE ADD FOREIGN KEY looks up per batch.
const CHECKED_KEYS_PER_BATCH: usize = 1_000;

/// One FOREIGN KEY clause as written.
pub(crate) struct Declared {
    name: Option<String>,
    columns: Vec<String>,
    parent: ast::ObjectName,
    parent_columns: Vec<String>,
    on_delete: Option<ast::ReferentialAction>,
    on_update: Option<ast::ReferentialAction>,
}

impl Declared {
    /// A table constraint's clause, or a column's REFERENCES (`column`: its name).
    pub(crate) fn of(fk: &ast::ForeignKeyConstraint, column: Option<&str>) -> Declared {
        let columns = match column {
            Some(c) => vec![c.to_string()],
            None => fk.columns.iter().map(|c| c.value.clone()).collect(),
        };
        Declared {
            // `FOREIGN KEY name (cols)` names the constraint when CONSTRAINT does not.
            name: fk
                .name
                .as_ref()
                .or(fk.index_name.as_ref())
                .map(|n| n.value.clone()),
            columns,
            parent: fk.foreign_table.clone(),
            parent_columns: fk
                .referred_columns
                .iter()
                .map(|c| c.value.clone())
                .collect(),
            on_delete: fk.on_delete,
            on_update: fk.on_update,
        }
    }
}

/// Whether a CREATE TABLE names an engine that keeps no foreign keys (MyISAM and the like),
/// whose FOREIGN KEY clauses MariaDB reads and drops.
fn engine_without_keys(c: &ast::CreateTable) -> bool {
    crate::commands::ddl::option_list(c).iter().any(|o| {
        let text = o.to_string().to_ascii_uppercase();
        text.starts_with("ENGINE")
            && [
                "MYISAM",
                "ARIA",
                "MEMORY",
                "HEAP",
                "CSV",
                "ARCHIVE",
                "BLACKHOLE",
                "MRG_MYISAM",
            ]
            .iter()
            .any(|e| text.trim_end().ends_with(e))
    })
}

/// The FOREIGN KEY clauses of a CREATE TABLE: its columns' REFERENCES, then its constraints'
/// (none when it names an engine without foreign keys, as MariaDB drops them).
pub(crate) fn declared_in(c: &ast::CreateTable) -> Vec<Declared> {
    let mut keys = Vec::new();
    if engine_without_keys(c) {
        return keys;
    }
    for column in &c.columns {
        for option in &column.options {
            if let ast::ColumnOption::ForeignKey(fk) = &option.option {
                keys.push(Declared::of(fk, Some(&column.name.value)));
            }
        }
    }
    for constraint in &c.constraints {
        if let ast::TableConstraint::ForeignKey(fk) = constraint {
            keys.push(Declared::of(fk, None));
        }
    }
    keys
}

/// An action as kept, and whether SHOW CREATE TABLE prints it: RESTRICT never (the default),
/// SET DEFAULT is taken as RESTRICT, as InnoDB takes it.
fn action(a: Option<ast::ReferentialAction>) -> (ReferenceAction, bool) {
    match a {
        Some(ast::ReferentialAction::NoAction) => (ReferenceAction::NoAction, true),
        Some(ast::ReferentialAction::Cascade) => (ReferenceAction::Cascade, true),
        Some(ast::ReferentialAction::SetNull) => (ReferenceAction::SetNull, true),
        _ => (ReferenceAction::Restrict, false),
    }
}

/// MariaDB's 1005 with InnoDB's errno 150.
pub(crate) fn incorrectly_formed(full: &str) -> SqlError {
    let (db, table) = split_name(full);
    SqlError::new(
        1005,
        "HY000",
        format!(
            "Can't create table `{db}`.`{table}` (errno: 150 \"Foreign key constraint is incorrectly formed\")"
        ),
    )
}

/// MariaDB's 1005 with errno 121: a constraint name in use.
fn name_in_use(full: &str) -> SqlError {
    let (db, table) = split_name(full);
    SqlError::new(
        1005,
        "HY000",
        format!(
            "Can't create table `{db}`.`{table}` (errno: 121 \"Duplicate key on write or update\")"
        ),
    )
}

/// Whether a referencing column may reference `parent`'s values: strings of one collation
/// (lengths may differ), other types the same.
fn compatible(child: &ColumnDef, parent: &ColumnDef) -> bool {
    if child.ty.is_string() || parent.ty.is_string() {
        return child.ty.is_string()
            && parent.ty.is_string()
            && child.collation == parent.collation;
    }
    child.ty == parent.ty
}

/// Whether some key of `def` (its primary key's index, a unique or an ordered one, over whole
/// values) begins with `columns`, in order.
fn leads_a_key(def: &TableDef, columns: &[u16]) -> bool {
    def.indexes
        .iter()
        .any(|i| !i.has_prefix() && i.columns.starts_with(columns))
}

/// MariaDB's name for the `n`th unnamed key of `table`: `<table>_ibfk_<n>`, one past the
/// highest such number in use.
fn next_name(table: &str, keys: &[ForeignKeyDef]) -> String {
    let stem = format!("{table}_ibfk_");
    let highest = keys
        .iter()
        .filter_map(|k| {
            let lower = k.name.to_ascii_lowercase();
            lower
                .strip_prefix(&stem.to_ascii_lowercase())
                .and_then(|n| n.parse::<u32>().ok())
        })
        .max()
        .unwrap_or(0);
    format!("{stem}{}", highest + 1)
}

impl Session {
    /// Adds the keys `declared` to the child definition `def` (`def.name` its catalog name),
    /// checked as MariaDB checks them; an ordered index over a key's columns is added when no
    /// key of the child begins with them (named as the constraint, else after its first
    /// column). A referenced table that does not exist is errno 150, unless
    /// foreign_key_checks is off.
    pub(crate) fn add_foreign_keys(
        &self,
        mut def: TableDef,
        declared: Vec<Declared>,
    ) -> Result<TableDef> {
        let full = def.name.clone();
        let (_, table) = split_name(&full);
        let table = table.to_string();
        for d in declared {
            let mut columns = Vec::with_capacity(d.columns.len());
            for name in &d.columns {
                let at = def.column(name).filter(|at| !def.columns[*at].hidden);
                let Some(at) = at else {
                    return Err(SqlError::new(
                        1072,
                        "42000",
                        format!("Key column '{name}' doesn't exist in table"),
                    ));
                };
                columns.push(at as u16);
            }
            // A temporary table is no parent (InnoDB's rule): the name means the table.
            let (parent_full, ..) = self.permanent_table_name(&d.parent)?;
            let (on_delete, delete_declared) = action(d.on_delete);
            let (on_update, update_declared) = action(d.on_update);
            if d.parent_columns.len() != columns.len() {
                return Err(SqlError::new(
                    1239,
                    "42000",
                    format!(
                        "Incorrect foreign key definition for '{}': Key reference and table reference don't match",
                        d.name.as_deref().unwrap_or("foreign key without name")
                    ),
                ));
            }
            let set_null = matches!(on_delete, ReferenceAction::SetNull)
                || matches!(on_update, ReferenceAction::SetNull);
            if set_null && columns.iter().any(|c| !def.columns[*c as usize].nullable) {
                return Err(incorrectly_formed(&full));
            }
            let parent = if parent_full.eq_ignore_ascii_case(&full) {
                Some(def.clone())
            } else {
                match self.shared.cluster().table(&parent_full) {
                    Ok(t) => Some(t.def().clone()),
                    Err(e) if e.code() == base::ErrorCode::NoSuchTable => None,
                    Err(e) => return Err(SqlError::from_client(&e)),
                }
            };
            match parent {
                Some(parent) => self.check_parent(&def, &columns, &parent, &d.parent_columns)?,
                None if self.foreign_key_checks() => return Err(incorrectly_formed(&full)),
                None => {}
            }
            let name = d
                .name
                .clone()
                .unwrap_or_else(|| next_name(&table, &def.foreign_keys));
            if def
                .foreign_keys
                .iter()
                .any(|k| k.name.eq_ignore_ascii_case(&name))
            {
                return Err(name_in_use(&full));
            }
            if !leads_a_key(&def, &columns) {
                let names: Vec<String> = columns
                    .iter()
                    .map(|c| def.columns[*c as usize].name.clone())
                    .collect();
                let index = match &d.name {
                    Some(n) if def.index(n).is_none() => n.clone(),
                    _ => crate::commands::create::unnamed_key(&names, |n| def.index(n).is_some()),
                };
                def.indexes.push(base::IndexDef::new(
                    &index,
                    IndexKind::Ordered,
                    columns.clone(),
                ));
            }
            def.foreign_keys.push(ForeignKeyDef {
                name,
                columns,
                parent: parent_full,
                parent_columns: d.parent_columns,
                on_delete,
                on_update,
                declared: (delete_declared, update_declared),
            });
            // InnoDB keeps a table's keys by name: SHOW CREATE TABLE lists them so, and
            // checks them in that order.
            def.foreign_keys.sort_by(|a, b| a.name.cmp(&b.name));
        }
        Ok(def)
    }

    /// errno 150 unless the referenced columns exist in `parent`, lead one of its keys in
    /// order, and hold the referencing columns' types.
    fn check_parent(
        &self,
        child: &TableDef,
        columns: &[u16],
        parent: &TableDef,
        parent_columns: &[String],
    ) -> Result<()> {
        let mut positions = Vec::with_capacity(parent_columns.len());
        for (name, c) in parent_columns.iter().zip(columns) {
            let at = parent.column(name).filter(|at| !parent.columns[*at].hidden);
            let Some(at) = at else {
                return Err(incorrectly_formed(&child.name));
            };
            if !compatible(&child.columns[*c as usize], &parent.columns[at]) {
                return Err(incorrectly_formed(&child.name));
            }
            positions.push(at as u16);
        }
        if !leads_a_key(parent, &positions) {
            return Err(incorrectly_formed(&child.name));
        }
        Ok(())
    }

    /// ALTER TABLE's ADD [CONSTRAINT name] FOREIGN KEY and DROP FOREIGN KEY, applied after the
    /// statement's other changes: the rows checked against each new key's parent (unless
    /// foreign_key_checks is off), the indexes the new keys need, then the key list. Returns
    /// the rows checked, which MariaDB counts as it copies the table.
    pub(crate) fn alter_foreign_keys(
        &mut self,
        full: &str,
        table: &str,
        operations: &[ast::AlterTableOperation],
    ) -> Result<u64> {
        let mut declared = Vec::new();
        let mut dropped = Vec::new();
        for op in operations {
            match op {
                ast::AlterTableOperation::AddConstraint {
                    constraint: ast::TableConstraint::ForeignKey(fk),
                    ..
                } => declared.push(Declared::of(fk, None)),
                ast::AlterTableOperation::DropForeignKey { name, .. } => {
                    dropped.push(name.value.clone())
                }
                _ => {}
            }
        }
        if declared.is_empty() && dropped.is_empty() {
            return Ok(0);
        }
        let cluster = self.shared.cluster();
        let current = self.fresh_table(full, table)?;
        let mut def = current.def().clone();
        for name in &dropped {
            let Some(at) = def
                .foreign_keys
                .iter()
                .position(|k| k.name.eq_ignore_ascii_case(name))
            else {
                return Err(SqlError::new(
                    1091,
                    "42000",
                    format!("Can't DROP FOREIGN KEY `{name}`; check that it exists"),
                ));
            };
            def.foreign_keys.remove(at);
        }
        let (indexes, keys) = (def.indexes.len(), def.foreign_keys.clone());
        let def = self.add_foreign_keys(def, declared)?;
        crate::commands::check::check_generated(&def)?;
        let added: Vec<&ForeignKeyDef> = def
            .foreign_keys
            .iter()
            .filter(|k| !keys.contains(k))
            .collect();
        for index in &def.indexes[indexes..] {
            let names: Vec<&str> = index
                .columns
                .iter()
                .map(|c| def.columns[*c as usize].name.as_str())
                .collect();
            cluster
                .add_index(full, &index.name, &names)
                .map_err(|e| self.table_error(e, table))?;
        }
        let checks = def.checks.clone();
        let set_keys =
            |s: &Self, keys: Vec<ForeignKeyDef>| s.set_constraints(full, keys, checks.clone());
        let installed = set_keys(self, def.foreign_keys.clone())?;
        self.touch_parents(&def);
        // The rows there are checked once the keys are in force, so that no write between the
        // check and the key escapes both; a row that fails takes the new keys away again.
        if added.is_empty() || !self.foreign_key_checks() {
            return Ok(0);
        }
        match self.check_rows(&installed, &added) {
            Ok(checked) => Ok(checked),
            Err(e) => {
                if let Err(undo) = set_keys(self, keys.clone()) {
                    tracing::warn!("ALTER TABLE {full}: taking the new keys away failed: {undo}");
                }
                Err(e)
            }
        }
    }

    /// 1452 unless every row of `child` finds its parent under each of `keys` (a key ALTER
    /// TABLE adds); returns the rows read.
    fn check_rows(&mut self, child: &client::Table, keys: &[&ForeignKeyDef]) -> Result<u64> {
        let def = child.def();
        // Every column, the hidden key too: the rows' values sit at their columns' positions.
        let names: Vec<&str> = def.columns.iter().map(|c| c.name.as_str()).collect();
        let cluster = self.data().clone();
        let rows = cluster
            .scan(child, &client::Scan::table().columns(&names))
            .map_err(|e| SqlError::from_client(&e))?;
        for fk in keys {
            let Some(parent) = self.shared.cluster().table(&fk.parent).ok() else {
                continue;
            };
            let Some(positions) = fk.parent_positions(parent.def()) else {
                continue;
            };
            let mut seen = std::collections::HashSet::new();
            let mut wanted: Vec<Vec<base::Value>> = Vec::new();
            for row in &rows {
                let values: Vec<base::Value> = fk
                    .columns
                    .iter()
                    .map(|c| row[*c as usize].clone())
                    .collect();
                if !values.iter().any(base::Value::is_null)
                    && seen.insert(crate::exec::subquery::exact_key(&values))
                {
                    wanted.push(values);
                }
            }
            let mut found = true;
            for chunk in wanted.chunks(CHECKED_KEYS_PER_BATCH) {
                let mut txn = cluster.transaction();
                found &=
                    crate::exec::foreign::parent_rows_exist(&mut txn, &parent, &positions, chunk)?;
                let _ = txn.rollback();
            }
            if !found {
                return Err(SqlError::new(
                    1452,
                    "23000",
                    format!(
                        "Cannot add or update a child row: a foreign key constraint fails {}",
                        violation_detail(def, fk, false)
                    ),
                ));
            }
        }
        Ok(rows.len() as u64)
    }

    /// Gives every table `child`'s keys reference a new definition version (its keys as they
    /// are), so that an API node holding the old one is refused its next write there
    /// (`SchemaChanged`), reads the catalog again and finds the new child. A parent that is
    /// gone or changing is left: it has no writes to check.
    pub(crate) fn touch_parents(&self, child: &TableDef) {
        let cluster = self.shared.cluster();
        for fk in &child.foreign_keys {
            if fk.parent.eq_ignore_ascii_case(&child.name) {
                continue;
            }
            // Another API node may have changed the parent since this one cached it: read
            // it again and try once more.
            for _ in 0..3 {
                let Ok(parent) = cluster.table(&fk.parent) else {
                    break;
                };
                let change = client::TableChange::Constraints {
                    version: parent.def().version,
                    foreign_keys: parent.def().foreign_keys.clone(),
                    checks: parent.def().checks.clone(),
                };
                match cluster.alter_table(&fk.parent, change) {
                    Ok(_) => break,
                    Err(e) if e.code() == base::ErrorCode::SchemaChanged => {
                        cluster.forget_table(&fk.parent)
                    }
                    Err(e) => {
                        tracing::debug!("touching {} for its new child: {e}", fk.parent);
                        break;
                    }
                }
            }
        }
    }

    /// The refusal (1235) of a change that would lose a foreign key's parent: renaming a table
    /// another table's key references (`renamed`), or a column change (`columns`: the new
    /// list's names) that drops or renames a column a key references. Cairn's keys name their
    /// parent and its columns, and it does not yet carry such a change into them.
    pub(crate) fn check_parent_change(
        &self,
        full: &str,
        renamed: bool,
        columns: Option<&[&str]>,
    ) -> Result<()> {
        // A rename goes by the catalog as it is now (another API node may have made a child).
        let referencing = if renamed {
            self.fresh_referencing()?
        } else {
            self.referencing()?
        };
        for (child, at) in referencing.of(full) {
            let fk = &child.def().foreign_keys[*at];
            // A table's key on itself names it too: renamed, it would name a table gone.
            if renamed {
                return Err(SqlError::unsupported(format!(
                    "renaming a table that foreign key `{}` references (drop the key first)",
                    fk.name
                )));
            }
            let kept = columns.is_none_or(|columns| {
                fk.parent_columns
                    .iter()
                    .all(|c| columns.iter().any(|n| n.eq_ignore_ascii_case(c)))
            });
            if !kept {
                return Err(SqlError::unsupported(format!(
                    "dropping or renaming a column that foreign key `{}` references (drop the key first)",
                    fk.name
                )));
            }
        }
        Ok(())
    }

    /// DROP TABLE's refusal (1451) of a table another table's key references, unless that
    /// table goes in the same statement or foreign_key_checks is off.
    pub(crate) fn check_drop_parent(&self, full: &str, dropping: &[String]) -> Result<()> {
        if !self.foreign_key_checks() {
            return Ok(());
        }
        let referencing = self.fresh_referencing()?;
        let kept_child = referencing.of(full).iter().any(|(child, _)| {
            !dropping
                .iter()
                .any(|d| d.eq_ignore_ascii_case(&child.def().name))
        });
        if kept_child {
            return Err(SqlError::new(
                1451,
                "23000",
                "Cannot delete or update a parent row: a foreign key constraint fails",
            ));
        }
        Ok(())
    }

    /// TRUNCATE's refusal (1701) of a table another table's key references.
    pub(crate) fn check_truncate_parent(&self, full: &str) -> Result<()> {
        if !self.foreign_key_checks() {
            return Ok(());
        }
        let referencing = self.fresh_referencing()?;
        let other = referencing
            .of(full)
            .iter()
            .find(|(child, _)| !child.def().name.eq_ignore_ascii_case(full));
        if let Some((child, at)) = other {
            return Err(SqlError::new(
                1701,
                "42000",
                format!(
                    "Cannot truncate a table referenced in a foreign key constraint {}",
                    violation_detail(child.def(), &child.def().foreign_keys[*at], true)
                ),
            ));
        }
        Ok(())
    }

    /// Which keys reference each table, read from the catalog anew (DDL that a reference
    /// forbids must not go by a map that another API node's new child has outdated).
    fn fresh_referencing(&self) -> Result<std::sync::Arc<crate::catalog::foreign::Referencing>> {
        self.shared.cluster().forget_tables();
        self.referencing()
    }

    /// ALTER TABLE's refusal (1553) to drop an index a foreign key needs: the last one the
    /// columns of a key of the table lead, or the last one the columns another table's key
    /// references lead.
    pub(crate) fn check_index_drop(&self, def: &TableDef, index: &str) -> Result<()> {
        let mut without = def.clone();
        without
            .indexes
            .retain(|i| !i.name.eq_ignore_ascii_case(index));
        let referencing = self.fresh_referencing()?;
        let referenced = referencing.of(&def.name).iter().any(|(child, at)| {
            child.def().foreign_keys[*at]
                .parent_positions(def)
                .is_some_and(|p| !leads_a_key(&without, &p))
        });
        if referenced
            || def
                .foreign_keys
                .iter()
                .any(|k| !leads_a_key(&without, &k.columns))
        {
            return Err(SqlError::new(
                1553,
                "HY000",
                format!("Cannot drop index '{index}': needed in a foreign key constraint"),
            ));
        }
        Ok(())
    }
}
