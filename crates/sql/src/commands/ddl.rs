//! Data definition and catalog statements: CREATE/ALTER/DROP DATABASE, DROP/RENAME/TRUNCATE
//! TABLE, ALTER TABLE, CREATE/DROP INDEX, table options and partitioning, SHOW DATABASES/TABLES
//! (CREATE TABLE itself and column types are `commands/create.rs`'s).

use base::schema::{IndexKind, TableOptions};
use base::types::Collation;
use base::TableDef;
use myproto::response::{types, Column};
use sqlparser::ast::{self, ObjectName};

use crate::catalog::definition::PRIMARY;
use crate::commands::columns::{copies_rows, keeps};
use crate::commands::create::KeyColumns;
use crate::expr::collate::CollationSpec;
use crate::foundation::error::Result;
use crate::foundation::error::SqlError;
use crate::parse::ident;
use crate::parse::partition::PartitionBy;
use crate::session::{done, Outcome, Session};

impl Session {
    /// CREATE [UNIQUE] INDEX name ON table (columns): an index built over the rows present.
    /// An ordered one is built online; a unique one with the table's writes refused meanwhile,
    /// failing with 1062 when two rows share a key (NULLs never do).
    pub(crate) fn create_index(&mut self, c: &ast::CreateIndex) -> Result<Outcome> {
        let (full, _, table) = self.table_name(&c.table_name)?;
        let columns = index_columns(&c.columns)?;
        let Some(name) = &c.name else {
            return Err(SqlError::parse("CREATE INDEX needs a name"));
        };
        let (_, name) = ident(name)?;
        let def = self.existing(&full, &table)?;
        let kind = if c.unique {
            IndexKind::Unique
        } else {
            IndexKind::Ordered
        };
        let key =
            self.check_new_index(def.def(), name, kind, &columns, &keys_of(def.def()), &[])?;
        self.add_index(&full, &key)?;
        Ok(done(0))
    }

    /// Table `full` (`table` as the statement named it), which must exist (1146).
    fn existing(&self, full: &str, table: &str) -> Result<client::Table> {
        self.shared
            .cluster()
            .table(full)
            .map_err(|e| self.table_error(e, table))
    }

    fn add_index(&self, full: &str, key: &NewKey) -> Result<()> {
        let cols: Vec<&str> = key.columns.iter().map(String::as_str).collect();
        self.shared
            .cluster()
            .add_index_of(full, &key.name, key.kind, &cols, &key.prefixes)
            .map_err(|e| SqlError::from_client(&e))?;
        Ok(())
    }

    /// ALTER TABLE t with any of: DROP {INDEX|KEY} name, ADD [COLUMN] [IF NOT EXISTS] col ...
    /// [FIRST|AFTER c], DROP [COLUMN] [IF EXISTS] col, MODIFY/CHANGE [COLUMN] (`replace_column`),
    /// RENAME COLUMN, ALTER [COLUMN] col SET/DROP DEFAULT, ADD [UNIQUE] {INDEX|KEY} [name] (cols),
    /// RENAME [TO|AS] name. As in MariaDB, drops name indexes of the table as it is, adds are
    /// checked against the table without the dropped ones and with the new columns, and every
    /// operation is checked before the first runs; then the index drops run, the column change
    /// (the data node copies the rows into the new layout: existing rows get the new column's
    /// DEFAULT, else NULL, else the type's zero), the index adds (built over the rows present,
    /// as CREATE INDEX; when one fails, as a unique one on a duplicate key does, the ones this
    /// statement added go again), and the rename. Other operations are refused with 1235,
    /// naming them.
    pub(crate) fn alter_table(&mut self, a: &ast::AlterTable) -> Result<Outcome> {
        let (full, db, table) = self.table_name(&a.name)?;
        let current = self.existing(&full, &table)?;
        let mut def = current.def().clone();
        let mut dropped: Vec<String> = Vec::new();
        let mut rename = None;
        for op in &a.operations {
            match op {
                ast::AlterTableOperation::DropIndex { name } => {
                    let position = def
                        .index(&name.value)
                        .filter(|_| !name.value.eq_ignore_ascii_case(PRIMARY))
                        .ok_or_else(|| no_index(&name.value))?;
                    self.check_index_drop(&def, &name.value)?;
                    dropped.push(def.indexes.remove(position).name);
                }
                ast::AlterTableOperation::DropPrimaryKey { .. } => {
                    return Err(SqlError::unsupported("ALTER TABLE ... DROP PRIMARY KEY"))
                }
                ast::AlterTableOperation::RenameTable { table_name } => {
                    let (ast::RenameTableNameKind::As(to) | ast::RenameTableNameKind::To(to)) =
                        table_name;
                    rename = Some(to.clone());
                }
                _ => {}
            }
        }
        let columns = self.new_columns(&def, &table, &a.operations)?;
        if let Some(columns) = &columns {
            let names: Vec<&str> = columns.iter().map(|c| c.column.name.as_str()).collect();
            self.check_parent_change(&full, false, Some(&names))?;
            Self::check_columns_kept(&def, columns)?;
        }
        // A unique index whose every column goes is dropped first, as MariaDB drops it.
        if let Some(columns) = &columns {
            for index in std::mem::take(&mut def.indexes) {
                let gone = !index.columns.iter().any(|c| keeps(columns, *c));
                if gone && index.kind == IndexKind::Unique {
                    dropped.push(index.name);
                } else {
                    def.indexes.push(index);
                }
            }
        }
        // The keys the table keeps, named by its columns as they are (before the change).
        let kept = keys_of(&def);
        let checked;
        let def = match &columns {
            Some(columns) => {
                let mut with_columns = def.clone();
                with_columns.columns = columns.iter().map(|c| c.column.clone()).collect();
                checked = with_columns;
                &checked
            }
            None => &def,
        };
        let mut added: Vec<NewKey> = Vec::new();
        for op in &a.operations {
            let constraint = match op {
                ast::AlterTableOperation::AddConstraint {
                    constraint: ast::TableConstraint::ForeignKey(_) | ast::TableConstraint::Check(_),
                    ..
                }
                | ast::AlterTableOperation::DropConstraint { .. } => continue,
                ast::AlterTableOperation::AddConstraint { constraint, .. } => constraint,
                ast::AlterTableOperation::DropIndex { .. }
                | ast::AlterTableOperation::DropForeignKey { .. }
                | ast::AlterTableOperation::AddColumn { .. }
                | ast::AlterTableOperation::DropColumn { .. }
                | ast::AlterTableOperation::ModifyColumn { .. }
                | ast::AlterTableOperation::ChangeColumn { .. }
                | ast::AlterTableOperation::RenameColumn { .. }
                | ast::AlterTableOperation::AlterColumn { .. }
                | ast::AlterTableOperation::RenameTable { .. } => continue,
                _ => {
                    return Err(SqlError::unsupported(format!(
                        "ALTER TABLE ... {}",
                        op_name(op)
                    )))
                }
            };
            let (kind, name, columns) = match constraint {
                ast::TableConstraint::Index(index) => {
                    (IndexKind::Ordered, index.name.as_ref(), &index.columns)
                }
                ast::TableConstraint::Unique(u) => (
                    IndexKind::Unique,
                    u.index_name.as_ref().or(u.name.as_ref()),
                    &u.columns,
                ),
                ast::TableConstraint::PrimaryKey(_) if def.index(PRIMARY).is_some() => {
                    return Err(SqlError::new(1068, "42000", "Multiple primary key defined"))
                }
                ast::TableConstraint::FulltextOrSpatial(f) => {
                    return Err(no_fulltext_or_spatial(f))
                }
                _ => {
                    return Err(SqlError::unsupported(format!(
                        "ALTER TABLE ... ADD {} on an existing table",
                        constraint_name(constraint)
                    )))
                }
            };
            let columns = index_columns(columns)?;
            let name = match name {
                Some(n) => n.value.clone(),
                // MariaDB names it after its first column, numbered past names in use.
                None => crate::commands::create::unnamed_key(&columns.names, |n| {
                    name_taken(def, n, &added)
                }),
            };
            let key = self.check_new_index(def, name, kind, &columns, &kept, &added)?;
            added.push(key);
        }
        let temporary = self.temporaries.get(&db, &table).is_some();
        if temporary && adds_foreign_key(&a.operations) {
            return Err(crate::commands::foreign::incorrectly_formed(&format!(
                "{db}/{table}"
            )));
        }
        let mut renamed_temporary = None;
        let renamed = match &rename {
            Some(to) if temporary => {
                renamed_temporary = Some(self.temporary_target(to)?);
                None
            }
            Some(to) => {
                let (to_full, _, to_table) = self.permanent_table_name(to)?;
                if to_full.eq_ignore_ascii_case(&full) {
                    // Renamed to itself: nothing to do, as in MariaDB.
                    None
                } else {
                    self.check_rename(&full, &to_full, &to_table)?;
                    Some(to_full)
                }
            }
            None => None,
        };
        if let Some(columns) = &columns {
            self.check_conversions(&current, columns)?;
        }
        let cluster = &self.shared.cluster();
        for name in &dropped {
            cluster
                .drop_index(&full, name)
                .map_err(|e| self.table_error(e, &table))?;
        }
        // The definition the column list below was made from, after the drops above (one
        // version each). Had another DDL come between, the table is at another version and the
        // data node refuses the list (SchemaChanged), whose kept positions may name other columns.
        let version = current.def().version.wrapping_add(dropped.len() as u32);
        let mut affected = 0;
        if let Some(columns) = columns {
            let copies = copies_rows(current.def(), &columns);
            let changed = cluster
                .change_columns(&full, version, columns)
                .map_err(|e| self.table_error(e, &table))?;
            if copies {
                // MariaDB counts the rows when it rebuilds the table by copying them. The change
                // is made: a count that fails only leaves the count at 0.
                let first = &changed.def().columns[changed.def().primary_key[0] as usize].name;
                match self
                    .data()
                    .scan(&changed, &client::Scan::table().columns(&[first.as_str()]))
                {
                    Ok(rows) => affected = rows.len() as u64,
                    Err(e) => tracing::warn!("ALTER TABLE {full}: counting the rows failed: {e}"),
                }
            }
        }
        for (i, key) in added.iter().enumerate() {
            if let Err(e) = self.add_index(&full, key) {
                for NewKey { name, .. } in added[..i].iter().rev() {
                    if let Err(undo) = cluster.drop_index(&full, name) {
                        tracing::warn!(
                            "ALTER TABLE {full}: dropping index {name} again failed: {undo}"
                        );
                    }
                }
                return Err(e);
            }
        }
        affected = affected.max(self.alter_foreign_keys(&full, &table, &a.operations)?);
        affected = affected.max(self.alter_checks(&full, &table, &a.operations)?);
        if let Some(to) = renamed {
            cluster
                .rename_table(&full, &to)
                .map_err(|e| rename_error(e, &db, &table, &to))?;
        }
        if let Some((to_db, to_table)) = renamed_temporary {
            self.temporaries.rename(&db, &table, to_db, to_table);
            self.plans.clear();
        }
        Ok(done(affected))
    }

    /// The new name of a temporary table being renamed, as (database, table): 1050 when the
    /// session holds another temporary table by that name (a table that is not temporary may
    /// have it: the renamed one shadows it then).
    fn temporary_target(&self, to: &ObjectName) -> Result<(String, String)> {
        let (_, to_db, to_table) = self.permanent_table_name(to)?;
        if self.temporaries.get(&to_db, &to_table).is_some() {
            return Err(crate::commands::create::already_exists(&to_table));
        }
        Ok((to_db, to_table))
    }

    /// DROP INDEX name ON t.
    pub(crate) fn drop_index(&mut self, name: &ObjectName, table: &ObjectName) -> Result<Outcome> {
        let (full, _, table) = self.table_name(table)?;
        let (_, name) = ident(name)?;
        let def = self.existing(&full, &table)?;
        if name.eq_ignore_ascii_case(PRIMARY) {
            return Err(SqlError::unsupported(
                "DROP INDEX `PRIMARY` (dropping the primary key)",
            ));
        }
        if def.def().index(&name).is_none() {
            return Err(no_index(&name));
        }
        self.shared
            .cluster()
            .drop_index(&full, &name)
            .map_err(|e| self.table_error(e, &table))?;
        Ok(done(0))
    }

    /// RENAME TABLE a TO b[, c TO d ...]: in order, each checked against the names as the earlier
    /// ones left them; when one fails, those done are renamed back, so the statement changes
    /// nothing, as in MariaDB.
    pub(crate) fn rename_tables(&mut self, renames: &[ast::RenameTable]) -> Result<Outcome> {
        let mut done_so_far: Vec<(String, String)> = Vec::new();
        let mut temporaries_done: Vec<TemporaryRename> = Vec::new();
        for r in renames {
            let (_, from_db, from_table) = self.permanent_table_name(&r.old_name)?;
            if self.temporaries.get(&from_db, &from_table).is_some() {
                // A temporary table's new name is the session's alone to know.
                match self.temporary_target(&r.new_name) {
                    Ok((to_db, to_table)) => {
                        let to = (to_db.clone(), to_table.clone());
                        self.temporaries
                            .rename(&from_db, &from_table, to_db, to_table);
                        temporaries_done.push(((from_db, from_table), to));
                        self.plans.clear();
                        continue;
                    }
                    Err(e) => {
                        self.undo_renames(&done_so_far, &temporaries_done);
                        return Err(e);
                    }
                }
            }
            let result = (|| {
                let (from, db, table) = self.table_name(&r.old_name)?;
                // A temporary table of the new name only shadows the renamed table.
                let (to, to_db, to_table) = self.permanent_table_name(&r.new_name)?;
                if crate::catalog::view::find(&self.shared.cluster(), &to_db, &to_table)?.is_some()
                {
                    return Err(crate::commands::create::already_exists(&to_table));
                }
                self.check_parent_change(&from, true, None)?;
                // The data node makes the checks (rename_error maps its answers).
                self.shared
                    .cluster()
                    .rename_table(&from, &to)
                    .map_err(|e| rename_error(e, &db, &table, &to))?;
                Ok((from, to))
            })();
            match result {
                Ok(pair) => done_so_far.push(pair),
                Err(e) => {
                    self.undo_renames(&done_so_far, &temporaries_done);
                    return Err(e);
                }
            }
        }
        Ok(done(0))
    }

    /// A failed RENAME TABLE's renames done before, undone in reverse order.
    fn undo_renames(&mut self, tables: &[(String, String)], temporaries: &[TemporaryRename]) {
        for (from, to) in tables.iter().rev() {
            if let Err(undo) = self.shared.cluster().rename_table(to, from) {
                tracing::warn!("RENAME TABLE: renaming {to} back to {from} failed: {undo}");
            }
        }
        for ((from_db, from), (to_db, to)) in temporaries.iter().rev() {
            self.temporaries
                .rename(to_db, to, from_db.clone(), from.clone());
        }
    }

    /// The checks MariaDB makes before an ALTER TABLE's rename, made before its other operations
    /// run: the source exists (1146), the target does not (1050). (A target database that does
    /// not exist is the data node's to find: 1025.)
    fn check_rename(&self, from: &str, to: &str, to_table: &str) -> Result<()> {
        let cluster = &self.shared.cluster();
        cluster.forget_table(from);
        cluster.forget_table(to);
        let (from_db, from_table) = from.split_once('/').unwrap_or(("", from));
        match cluster.table(from) {
            Ok(_) => {}
            Err(e) if e.code() == base::ErrorCode::NoSuchTable => {
                return Err(SqlError::no_table(from_db, from_table))
            }
            Err(e) => return Err(SqlError::from_client(&e)),
        }
        if cluster.table(to).is_ok() {
            return Err(SqlError::new(
                1050,
                "42S01",
                format!("Table '{to_table}' already exists"),
            ));
        }
        self.check_parent_change(from, true, None)?;
        Ok(())
    }

    /// DROP DATABASE, or DROP [TEMPORARY] TABLE: a name the session holds a temporary table
    /// under drops that one; DROP TEMPORARY TABLE drops nothing else.
    pub(crate) fn drop(
        &mut self,
        object_type: &ast::ObjectType,
        if_exists: bool,
        temporary: bool,
        names: &[ObjectName],
    ) -> Result<Outcome> {
        let cluster = &self.shared.cluster();
        match object_type {
            ast::ObjectType::Database | ast::ObjectType::Schema => {
                let [name] = names else {
                    return Err(SqlError::parse("DROP DATABASE takes one name"));
                };
                let (_, name) = ident(name)?;
                // MariaDB counts the tables dropped.
                let prefix = format!("{}/", name.to_ascii_lowercase());
                let tables = cluster
                    .list_tables()
                    .map_err(|e| SqlError::from_client(&e))?
                    .iter()
                    .filter(|t| t.to_ascii_lowercase().starts_with(&prefix))
                    .count() as u64;
                match cluster.drop_database(&name) {
                    Ok(()) => {
                        // MariaDB counts the views dropped too.
                        let views = crate::catalog::view::delete_database(cluster, &name)
                            .unwrap_or_else(|e| {
                                tracing::warn!("DROP DATABASE {name}: dropping its views: {e}");
                                0
                            });
                        if self
                            .database
                            .as_deref()
                            .is_some_and(|d| d.eq_ignore_ascii_case(&name))
                        {
                            self.database = None;
                        }
                        Ok(done(tables + views))
                    }
                    Err(e) if e.code() == base::ErrorCode::NoSuchDatabase => {
                        if if_exists {
                            let m = format!("Can't drop database '{name}'; database doesn't exist");
                            self.note(1008, m);
                            Ok(done(0))
                        } else {
                            Err(SqlError::new(
                                1008,
                                "HY000",
                                format!("Can't drop database '{name}'; database doesn't exist"),
                            ))
                        }
                    }
                    Err(e) => Err(SqlError::from_client(&e)),
                }
            }
            ast::ObjectType::Table => {
                let mut missing = Vec::new();
                let mut permanent = Vec::new();
                for name in names {
                    let (_, db, table) = self.permanent_table_name(name)?;
                    match self.temporaries.remove(&db, &table) {
                        Some(t) => {
                            self.shared.temporary.drop_tables(cluster, vec![t.hidden]);
                            self.plans.clear();
                        }
                        None if temporary => missing.push(format!("{db}.{table}")),
                        None => permanent.push(name.clone()),
                    }
                }
                let names = &permanent[..];
                let fulls = names
                    .iter()
                    .map(|n| Ok(self.table_name(n)?.0))
                    .collect::<Result<Vec<String>>>()?;
                for full in &fulls {
                    self.check_drop_parent(full, &fulls)?;
                }
                for name in names {
                    let (full, db, table) = self.table_name(name)?;
                    match cluster.drop_table(&full) {
                        Ok(()) => {}
                        Err(e) if e.code() == base::ErrorCode::NoSuchTable => {
                            if crate::catalog::view::find(cluster, &db, &table)?.is_some() {
                                return Err(SqlError::new(
                                    1965,
                                    "42S02",
                                    format!("'{db}.{table}' is a view"),
                                ));
                            }
                            missing.push(format!("{db}.{table}"))
                        }
                        Err(e) => return Err(SqlError::from_client(&e)),
                    }
                }
                if missing.is_empty() {
                    Ok(done(0))
                } else if if_exists {
                    self.note(1051, format!("Unknown table '{}'", missing.join(",")));
                    Ok(done(0))
                } else {
                    Err(SqlError::new(
                        1051,
                        "42S02",
                        format!("Unknown table '{}'", missing.join(",")),
                    ))
                }
            }
            other => Err(SqlError::unsupported(format!("DROP {other}"))),
        }
    }

    /// TRUNCATE [TABLE] t: the table dropped and created again with the same definition (its
    /// columns, keys, options and partitioning), so its rows go at once and AUTO_INCREMENT
    /// starts again at 1, as in MariaDB. Another session may see the table missing meanwhile.
    pub(crate) fn truncate(&mut self, t: &ast::Truncate) -> Result<Outcome> {
        if t.partitions.is_some() {
            return Err(SqlError::unsupported("TRUNCATE ... PARTITION"));
        }
        for target in &t.table_names {
            let (full, _, table) = self.table_name(&target.name)?;
            self.check_truncate_parent(&full)?;
            let cluster = &self.shared.cluster();
            let old = cluster
                .table(&full)
                .map_err(|e| self.table_error(e, &table))?;
            let def = recreated(old.def(), &full).map_err(|e| schema_error(&table, e))?;
            // A table made before keys were limited to 3072 bytes could not be made again:
            // refused before anything is dropped.
            def.check_key_sizes(None).map_err(|e| {
                SqlError::new(
                    1071,
                    "42000",
                    format!(
                        "Specified key was too long; max key length is 3072 bytes (table '{table}' \
                         was made before the limit: {}; DELETE its rows instead of TRUNCATE)",
                        e.message
                    ),
                )
            })?;
            cluster
                .drop_table(&full)
                .map_err(|e| self.table_error(e, &table))?;
            cluster
                .create_table(def)
                .map_err(|e| SqlError::from_client(&e))?;
        }
        Ok(done(0))
    }
}

/// A temporary table renamed: from (database, table) to (database, table).
type TemporaryRename = ((String, String), (String, String));

/// Whether an ALTER TABLE adds a foreign key.
fn adds_foreign_key(operations: &[ast::AlterTableOperation]) -> bool {
    operations.iter().any(|op| {
        matches!(
            op,
            ast::AlterTableOperation::AddConstraint {
                constraint: ast::TableConstraint::ForeignKey(_),
                ..
            }
        )
    })
}

/// An index's column list: each column's name and the prefix length given, `c(n)` (an index
/// on an expression is refused).
pub(crate) fn index_columns(columns: &[ast::IndexColumn]) -> Result<KeyColumns> {
    let mut key = KeyColumns::default();
    for c in columns {
        let (name, length) = match &c.column.expr {
            ast::Expr::Identifier(i) => (i.value.clone(), None),
            ast::Expr::Function(f) => match f.name.0.as_slice() {
                [ast::ObjectNamePart::Identifier(i)] => match prefix_length(&f.args) {
                    Some(n) => (i.value.clone(), Some(n)),
                    // MariaDB's grammar takes only a whole number of 32 bits there.
                    None => {
                        return Err(SqlError::parse(format!(
                            "a key part's length must be a whole number: {f}"
                        )))
                    }
                },
                _ => return Err(SqlError::unsupported(format!("an index on {f}"))),
            },
            other => return Err(SqlError::unsupported(format!("an index on {other}"))),
        };
        key.names.push(name);
        key.lengths.push(length);
    }
    Ok(key)
}

/// The n of a key part `c(n)`, which sqlparser reads as a call of c (and of `NOW(n)`): the
/// one argument, a whole number below 2^32.
pub(crate) fn prefix_length(args: &ast::FunctionArguments) -> Option<u64> {
    let ast::FunctionArguments::List(list) = args else {
        return None;
    };
    match list.args.as_slice() {
        [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(ast::Expr::Value(v)))]
            if list.duplicate_treatment.is_none() && list.clauses.is_empty() =>
        {
            match &v.value {
                ast::Value::Number(n, _) => n.parse::<u32>().ok().map(u64::from),
                _ => None,
            }
        }
        _ => None,
    }
}

/// An index an ALTER TABLE or CREATE INDEX adds, checked.
struct NewKey {
    name: String,
    kind: IndexKind,
    columns: Vec<String>,
    /// One per column (0: whole), or empty.
    prefixes: Vec<u32>,
}

/// The table's indexes but PRIMARY, as keys over its columns' names.
fn keys_of(def: &TableDef) -> Vec<NewKey> {
    def.indexes
        .iter()
        .filter(|i| !i.name.eq_ignore_ascii_case(PRIMARY))
        .map(|i| NewKey {
            name: i.name.clone(),
            kind: i.kind,
            columns: i
                .columns
                .iter()
                .map(|c| def.columns[*c as usize].name.clone())
                .collect(),
            prefixes: i.prefixes.clone(),
        })
        .collect()
}

/// Whether an index name is in use: by the table, or by an index the same ALTER TABLE adds
/// before it (`earlier`).
fn name_taken(def: &TableDef, name: &str, earlier: &[NewKey]) -> bool {
    def.index(name).is_some() || earlier.iter().any(|k| k.name.eq_ignore_ascii_case(name))
}

impl Session {
    /// MariaDB's errors for an index that cannot be added: those of
    /// [`crate::commands::create::check_key_columns`], 1059 a name too long, 1061 a name in use (see
    /// [`name_taken`]). A key part cut to what a key holds is noted (1071), and so is a key of
    /// the kind, columns and prefixes of one the table keeps (`kept`) or the statement adds
    /// before it (`earlier`) (1831).
    fn check_new_index(
        &mut self,
        def: &TableDef,
        name: String,
        kind: IndexKind,
        columns: &KeyColumns,
        kept: &[NewKey],
        earlier: &[NewKey],
    ) -> Result<NewKey> {
        let parts = crate::commands::create::check_key_columns(
            columns,
            kind == IndexKind::Unique,
            |col| {
                let p = def.column(col).filter(|p| !def.columns[*p].hidden)?;
                Some(def.columns[p].clone())
            },
        )?;
        if name.len() > base::limits::NAME_BYTES_MAX {
            return Err(crate::commands::create::name_too_long(&name));
        }
        if name_taken(def, &name, earlier) {
            return Err(SqlError::new(
                1061,
                "42000",
                format!("Duplicate key name '{name}'"),
            ));
        }
        for _ in parts.iter().filter(|(_, cut)| *cut) {
            self.note(1071, crate::commands::create::KEY_TOO_LONG);
        }
        let prefixes = base::schema::kept_prefixes(parts.iter().map(|(p, _)| *p).collect());
        let others = kept
            .iter()
            .chain(earlier)
            .map(|k| (k.kind, &k.columns[..], &k.prefixes[..]));
        if crate::commands::create::repeats(kind, &columns.names, &prefixes, others) {
            self.note(1831, crate::commands::create::duplicate_index(&name));
        }
        Ok(NewKey {
            name,
            kind,
            columns: columns.names.clone(),
            prefixes,
        })
    }
}

/// How an ALTER TABLE operation is named in a refusal: its first words.
fn op_name(op: &ast::AlterTableOperation) -> String {
    let text = op.to_string();
    let words: Vec<&str> = text.split_whitespace().take(2).collect();
    words.join(" ")
}

fn constraint_name(c: &ast::TableConstraint) -> &'static str {
    match c {
        ast::TableConstraint::Unique(_) => "UNIQUE",
        ast::TableConstraint::PrimaryKey(_) => "PRIMARY KEY",
        ast::TableConstraint::ForeignKey(_) => "FOREIGN KEY",
        ast::TableConstraint::Check(_) => "CHECK",
        _ => "this constraint",
    }
}

/// A table partitioned as its CREATE TABLE asks: `PARTITION BY KEY (cols)` narrows the partition
/// key to those primary-key columns, `PARTITIONS n` or NDB's `PARTITION_BALANCE` sets the count
/// (else one partition per data-node worker). Errors are MariaDB's.
pub(crate) fn partitioned(
    mut def: TableDef,
    by: Option<PartitionBy>,
    balance: Option<Balance>,
    workers: u32,
) -> Result<TableDef> {
    let explicit = by.is_some();
    let by = by.unwrap_or(PartitionBy {
        columns: Vec::new(),
        partitions: None,
    });
    if by.columns.is_empty() && explicit && def.has_hidden_pk() {
        // KEY () hashes the primary key, and there is none.
        return Err(SqlError::new(
            1488,
            "HY000",
            "Field in list of fields for partition function not found in table",
        ));
    }
    if !by.columns.is_empty() {
        let mut positions = Vec::new();
        for name in &by.columns {
            let p = def
                .column(name)
                .filter(|p| !def.columns[*p].hidden)
                .ok_or_else(|| {
                    SqlError::new(
                        1488,
                        "HY000",
                        "Field in list of fields for partition function not found in table",
                    )
                })?;
            if positions.contains(&(p as u16)) {
                return Err(SqlError::new(
                    1652,
                    "HY000",
                    format!("Duplicate partition field name '{name}'"),
                ));
            }
            positions.push(p as u16);
        }
        if def.has_hidden_pk() {
            return Err(SqlError::unsupported(
                "PARTITION BY KEY (columns) on a table without a PRIMARY KEY: its rows hash on the hidden key",
            ));
        }
        if !positions.iter().all(|p| def.primary_key.contains(p)) {
            return Err(SqlError::new(
                1503,
                "HY000",
                "A PRIMARY KEY must include all columns in the table's partitioning function",
            ));
        }
        def.partition_key = positions;
    }
    match (by.partitions, balance) {
        (Some(_), Some(_)) => {
            return Err(SqlError::new(
                1296,
                "HY000",
                "Got error 4501 'Syntax error in COMMENT modifier' from NDB: PARTITION_BALANCE \
                 cannot be combined with PARTITIONS",
            ))
        }
        (Some(0), None) => {
            return Err(SqlError::new(
                1504,
                "HY000",
                "Number of partitions = 0 is not an allowed value",
            ))
        }
        (Some(n), None) if n > base::limits::PARTITIONS_MAX => {
            return Err(SqlError::new(
                1499,
                "HY000",
                format!(
                "Too many partitions (including subpartitions) were defined (at most {} in Cairn)",
                base::limits::PARTITIONS_MAX
            ),
            ))
        }
        (Some(n), None) => def.partition_count = n,
        (None, Some(b)) => def.partition_count = b.partitions(workers),
        (None, None) => {}
    }
    Ok(def)
}

/// A create request for a table like `old` named `name` (TRUNCATE, CREATE TABLE ... LIKE),
/// without its catalog-assigned ids and rows.
pub(crate) fn recreated(old: &TableDef, table: &str) -> std::result::Result<TableDef, base::Error> {
    let name = |p: &u16| old.columns[*p as usize].name.as_str();
    let columns = old.columns.iter().filter(|c| !c.hidden).cloned().collect();
    let pk: Vec<&str> = if old.has_hidden_pk() {
        Vec::new()
    } else {
        old.primary_key.iter().map(name).collect()
    };
    let mut def = TableDef::new(table, columns, &pk)?;
    if !old.has_hidden_pk() {
        let partition_key: Vec<&str> = old.partition_key.iter().map(name).collect();
        def = def.with_partition_key(&partition_key)?;
    }
    for index in &old.indexes {
        let columns: Vec<&str> = index.columns.iter().map(name).collect();
        def = def
            .with_index(&index.name, index.kind, &columns)?
            .with_prefixes(&index.prefixes);
    }
    def.partition_count = old.partition_count;
    def.options = old.options;
    def.comment = old.comment.clone();
    // Kept by TRUNCATE; CREATE TABLE ... LIKE drops the foreign keys (not the CHECKs), as
    // MariaDB.
    def.foreign_keys = old.foreign_keys.clone();
    def.checks = old.checks.clone();
    Ok(def)
}

impl CollationSpec {
    pub fn is_empty(&self) -> bool {
        self.charset.is_none() && self.collation.is_none()
    }

    /// The collation named, or the character set's default one, as MariaDB picks it: 1115 for
    /// an unknown character set, 1273 for an unknown collation, 1253 when they disagree. The
    /// SQL front end stores utf8mb4 and binary strings; other character sets it would have to
    /// transcode, and are refused with 1235.
    pub fn resolve(&self) -> Result<Collation> {
        let charset = match self.charset.as_deref().map(unquote) {
            None => None,
            Some(name) => Some(match name.to_ascii_lowercase().as_str() {
                "utf8mb4" => Collation::Utf8mb4GeneralCi,
                "utf8mb3" | "utf8" => Collation::Utf8mb3GeneralCi,
                "binary" => Collation::Binary,
                "latin1" => Collation::Latin1TextSwedishCi,
                "ascii" | "ucs2" | "utf16" | "utf32" => {
                    return Err(SqlError::unsupported(format!(
                        "CHARACTER SET {name} (the SQL front end stores utf8mb4, utf8mb3, latin1 and binary strings)"
                    )))
                }
                _ => {
                    return Err(SqlError::new(
                        1115,
                        "42000",
                        format!("Unknown character set: '{name}'"),
                    ))
                }
            }),
        };
        let Some(name) = self.collation.as_deref().map(unquote) else {
            return Ok(charset.unwrap_or(Collation::Utf8mb4GeneralCi));
        };
        let collation = match Collation::from_name(name) {
            Some(c) => c.text_form(),
            // A name of MariaDB's form that Cairn lacks (utf8mb4_unicode_ci, latin1_german1_ci, ...).
            None if mariadb_form(name) => {
                return Err(SqlError::unsupported(format!(
                    "COLLATE {name} (utf8mb4's and utf8mb3's _general_ci and _bin, latin1_swedish_ci and latin1_bin are supported)"
                )))
            }
            None => {
                return Err(SqlError::new(
                    1273,
                    "HY000",
                    format!("Unknown collation: '{name}'"),
                ))
            }
        };
        match charset {
            Some(cs) if cs.charset() != collation.charset() => Err(SqlError::new(
                1253,
                "42000",
                format!(
                    "COLLATION '{}' is not valid for CHARACTER SET '{}'",
                    collation.name(),
                    self.charset.as_deref().map(unquote).unwrap_or_default()
                ),
            )),
            _ => Ok(collation),
        }
    }
}

/// `ALTER TABLE [db.]t {DISABLE | ENABLE} KEYS` (mysqldump's output has it), which sqlparser
/// does not read: the table's name and the text after the statement's `;`. MariaDB does nothing
/// for a table whose engine keeps every index current, as Cairn does.
pub(crate) fn alter_keys(sql: &str) -> Option<(ObjectName, &str)> {
    let (tokens, rest) = crate::commands::account::lex(sql)?;
    let mut c = crate::commands::account::Cursor::new(tokens);
    if !c.words(&["ALTER", "TABLE"]) {
        return None;
    }
    // A bare `db.t` lexes as one word; `\`db\`.\`t\`` as two names and a dot.
    let first = c.identifier()?;
    let mut parts: Vec<ast::Ident> = first.split('.').map(ast::Ident::new).collect();
    if c.punct('.') {
        parts.push(ast::Ident::new(c.identifier()?));
    }
    if !(c.words(&["DISABLE", "KEYS"]) || c.words(&["ENABLE", "KEYS"])) || !c.done() {
        return None;
    }
    Some((ObjectName::from(parts), rest))
}

/// An ALTER DATABASE statement: the database named (None for the session's), and the
/// character set and collation given.
pub(crate) type AlterDatabase = (Option<String>, CollationSpec);

/// `ALTER {DATABASE | SCHEMA} [name] option ...`, which sqlparser does not read as MariaDB
/// writes it, and the text after the statement's `;`. None when the text is no such statement.
pub(crate) fn alter_database(sql: &str) -> Option<(Result<AlterDatabase>, &str)> {
    let (tokens, rest) = crate::commands::account::lex(sql)?;
    let mut c = crate::commands::account::Cursor::new(tokens);
    if !(c.words(&["ALTER", "DATABASE"]) || c.words(&["ALTER", "SCHEMA"])) {
        return None;
    }
    Some((alter_database_options(&mut c), rest))
}

fn alter_database_options(c: &mut crate::commands::account::Cursor) -> Result<AlterDatabase> {
    // As in MariaDB, a name is absent only before a reserved word: `ALTER DATABASE charset x`
    // names a database `charset`.
    let name = if ["DEFAULT", "CHARACTER", "COLLATE"]
        .iter()
        .any(|w| c.at_word(w))
    {
        None
    } else {
        Some(c.identifier().ok_or_else(|| c.syntax())?)
    };
    let mut spec = CollationSpec {
        charset: None,
        collation: None,
    };
    if c.done() {
        return Err(c.syntax());
    }
    while !c.done() {
        c.word("DEFAULT");
        let (slot, what) = if c.words(&["CHARACTER", "SET"]) || c.word("CHARSET") {
            (&mut spec.charset, "CHARACTER SET")
        } else if c.word("COLLATE") {
            (&mut spec.collation, "COLLATE")
        } else if c.word("COMMENT") {
            return Err(SqlError::unsupported(
                "ALTER DATABASE ... COMMENT (a database keeps no comment)",
            ));
        } else {
            return Err(c.syntax());
        };
        c.punct('=');
        let value = c.name()?;
        match slot {
            Some(old) if !old.eq_ignore_ascii_case(&value) => {
                return Err(SqlError::new(
                    1302,
                    "HY000",
                    format!("Conflicting declarations: '{what} {old}' and '{what} {value}'"),
                ))
            }
            _ => *slot = Some(value),
        }
    }
    Ok((name, spec))
}

impl Session {
    /// ALTER DATABASE: the default character set and collation the database's new tables
    /// take; its tables keep theirs.
    pub(crate) fn alter_database(
        &mut self,
        name: Option<String>,
        spec: &CollationSpec,
    ) -> Result<Outcome> {
        let name = match name.or_else(|| self.database.clone()) {
            Some(n) => n,
            None => return Err(SqlError::no_database()),
        };
        if crate::catalog::infoschema::is_schema(&name) {
            return Err(crate::catalog::privilege::database_denied(
                &self.user, &self.host, &name,
            ));
        }
        self.need_on_database(crate::catalog::privilege::ALTER, &name)?;
        let (_, current) = self
            .database(&name)?
            .ok_or_else(|| SqlError::unknown_database(&name))?;
        // Only a collation keeps the character set's default unless named with it.
        let collation = match (&spec.charset, &spec.collation) {
            (None, None) => current,
            _ => spec.resolve()?,
        };
        self.shared
            .cluster()
            .alter_database(&name, collation)
            .map_err(|e| SqlError::from_client(&e))?;
        if self
            .database
            .as_deref()
            .is_some_and(|d| d.eq_ignore_ascii_case(&name))
        {
            self.database_collation = collation;
        }
        Ok(done(1))
    }
}

/// Whether a collation name has the form of MariaDB's: a character set it has, then a
/// `_ci`, `_cs` or `_bin` ending.
fn mariadb_form(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    let charsets = [
        "utf8mb4_", "utf8mb3_", "utf8_", "latin1_", "latin2_", "ascii_", "ucs2_", "utf16_",
        "utf16le_", "utf32_", "cp1250_", "cp1251_", "cp1256_", "cp1257_", "greek_", "hebrew_",
        "big5_", "gbk_", "gb2312_", "sjis_", "ujis_", "euckr_", "koi8r_", "koi8u_", "tis620_",
    ];
    charsets.iter().any(|c| name.starts_with(c))
        && ["_ci", "_cs", "_bin"].iter().any(|e| name.ends_with(e))
}

fn unquote(s: &str) -> &str {
    s.trim_matches(|c| c == '\'' || c == '"' || c == '`')
}

/// A CREATE TABLE's table options, however sqlparser read them.
pub(crate) fn option_list(c: &ast::CreateTable) -> &[ast::SqlOption] {
    match &c.table_options {
        ast::CreateTableOptions::Plain(l)
        | ast::CreateTableOptions::With(l)
        | ast::CreateTableOptions::Options(l)
        | ast::CreateTableOptions::TableProperties(l) => l.as_slice(),
        ast::CreateTableOptions::None => &[],
    }
}

/// The table options of CREATE TABLE: the default character set and collation, and NDB's
/// `COMMENT="NDB_TABLE=..."` options. ENGINE is accepted whatever it names (every table is a
/// Cairn table); other storage options MariaDB takes are accepted and have no effect.
/// The collation, when the options name one or a character set, is in `TableOptions` (None
/// for utf8mb4_general_ci); the last value says whether they did.
pub(crate) fn table_options(
    c: &ast::CreateTable,
) -> Result<(TableOptions, Option<Balance>, String, bool)> {
    let mut options = TableOptions::default();
    let mut spec = CollationSpec::default();
    let mut comment = c.comment.as_ref().map(comment_text);
    for option in option_list(c) {
        match option {
            ast::SqlOption::KeyValue { key, value } => {
                let text = value.to_string();
                match key.value.to_ascii_uppercase().as_str() {
                    "DEFAULT CHARSET" | "CHARSET" | "DEFAULT CHARACTER SET" | "CHARACTER SET" => {
                        spec.charset = Some(text)
                    }
                    "DEFAULT COLLATE" | "COLLATE" => spec.collation = Some(text),
                    _ => {}
                }
            }
            ast::SqlOption::Comment(c) => comment = Some(comment_text(c)),
            _ => {}
        }
    }
    if !spec.is_empty() {
        options.collation = Some(spec.resolve()?).filter(|c| *c != Collation::Utf8mb4GeneralCi);
    }
    let comment = comment.unwrap_or_default();
    check_comment(&c.name.to_string(), &comment)?;
    let balance = ndb_table_options(&comment, &mut options)?;
    Ok((options, balance, comment, !spec.is_empty()))
}

/// MariaDB's limit on a table comment: 2,048 characters (1628).
fn check_comment(table: &str, comment: &str) -> Result<()> {
    const CHARS_MAX: usize = 2048;
    if comment.chars().count() > CHARS_MAX {
        return Err(SqlError::new(
            1628,
            "HY000",
            format!("Comment for table '{table}' is too long (max = {CHARS_MAX})"),
        ));
    }
    Ok(())
}

/// NDB's `PARTITION_BALANCE`: how many partitions a table gets. Cairn has one data node in one
/// node group today, so "per node" is one partition and "per LDM" one per worker thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Balance {
    /// FOR_RP_BY_LDM, FOR_RA_BY_LDM and its _X_2, _X_3, _X_4: that many per worker.
    PerWorker(u32),
    /// FOR_RP_BY_NODE, FOR_RA_BY_NODE.
    PerNode,
}

impl Balance {
    fn partitions(self, workers: u32) -> u32 {
        match self {
            Balance::PerWorker(k) => workers.max(1) * k,
            Balance::PerNode => 1,
        }
    }
}

fn comment_text(c: &ast::CommentDef) -> String {
    match c {
        ast::CommentDef::WithEq(s) | ast::CommentDef::WithoutEq(s) => s.clone(),
    }
}

/// Applies `NDB_TABLE=opt[,opt...]` from a table comment (other comments set no option):
/// READ_BACKUP, FULLY_REPLICATED and NOLOGGING take 0 or 1, PARTITION_BALANCE one of NDB's
/// balances (returned). Anything else is error 1296 with NDB's wording.
pub(crate) fn ndb_table_options(
    comment: &str,
    options: &mut TableOptions,
) -> Result<Option<Balance>> {
    const PREFIX: &str = "NDB_TABLE=";
    let comment = comment.trim();
    let Some(rest) = comment
        .get(..PREFIX.len())
        .filter(|p| p.eq_ignore_ascii_case(PREFIX))
        .map(|_| &comment[PREFIX.len()..])
    else {
        return Ok(None);
    };
    let mut balance = None;
    let bad = |what: &str| {
        SqlError::new(
            1296,
            "HY000",
            format!("Got error 4501 'Syntax error in COMMENT modifier' from NDB: {what}"),
        )
    };
    for part in rest.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, value) = part
            .split_once('=')
            .ok_or_else(|| bad(&format!("'{part}' needs a value")))?;
        let flag = || match value.trim() {
            "1" => Ok(true),
            "0" => Ok(false),
            other => Err(bad(&format!("{name}={other}: the value must be 0 or 1"))),
        };
        match name.trim().to_ascii_uppercase().as_str() {
            "READ_BACKUP" => options.read_backup = flag()?,
            "FULLY_REPLICATED" => options.fully_replicated = flag()?,
            "NOLOGGING" => options.nologging = flag()?,
            "PARTITION_BALANCE" => {
                balance = Some(match value.trim().to_ascii_uppercase().as_str() {
                    "FOR_RP_BY_LDM" | "FOR_RA_BY_LDM" => Balance::PerWorker(1),
                    "FOR_RA_BY_LDM_X_2" => Balance::PerWorker(2),
                    "FOR_RA_BY_LDM_X_3" => Balance::PerWorker(3),
                    "FOR_RA_BY_LDM_X_4" => Balance::PerWorker(4),
                    "FOR_RP_BY_NODE" | "FOR_RA_BY_NODE" => Balance::PerNode,
                    other => return Err(bad(&format!("unknown PARTITION_BALANCE {other}"))),
                })
            }
            other => return Err(bad(&format!("unknown option {other}"))),
        }
    }
    Ok(balance)
}

/// MySQL's spellings in ALTER TABLE that sqlparser 0.63 does not read, in the spelling it does:
/// `DROP KEY k` as `DROP INDEX k`, and `RENAME t` (no TO or AS) as `RENAME TO t`. Other text is
/// returned as it is.
pub(crate) fn alter_spellings(sql: &str) -> std::borrow::Cow<'_, str> {
    use sqlparser::tokenizer::{Token, Tokenizer};
    let Ok(tokens) = Tokenizer::new(&crate::parse::dialect::Cairn, sql).tokenize_with_location()
    else {
        return sql.into();
    };
    let words: Vec<(Option<String>, &sqlparser::tokenizer::TokenWithSpan)> = tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .map(|t| match &t.token {
            Token::Word(w) if w.quote_style.is_none() => (Some(w.value.to_ascii_uppercase()), t),
            _ => (None, t),
        })
        .collect();
    let mut edits: Vec<(usize, usize, &str)> = Vec::new();
    for pair in words.windows(2) {
        let (Some(first), (second, at)) = (&pair[0].0, &pair[1]) else {
            continue;
        };
        let (Some(start), Some(end)) = (
            crate::parse::offset(sql, at.span.start),
            crate::parse::offset(sql, at.span.end),
        ) else {
            return sql.into();
        };
        match (first.as_str(), second.as_deref()) {
            ("DROP", Some("KEY")) => edits.push((start, end, "INDEX")),
            ("RENAME", Some("TO" | "AS" | "INDEX" | "KEY" | "COLUMN")) => {}
            ("RENAME", _) if matches!(at.token, Token::Word(_)) => {
                edits.push((start, start, "TO "))
            }
            _ => {}
        }
    }
    if edits.is_empty() {
        return sql.into();
    }
    let mut out = String::with_capacity(sql.len() + 8);
    let mut from = 0;
    for (a, b, text) in edits {
        out.push_str(&sql[from..a]);
        out.push_str(text);
        from = b;
    }
    out.push_str(&sql[from..]);
    out.into()
}

/// A table option given alone to ALTER TABLE.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum AlterOption {
    Comment(String),
    /// ENGINE=...: accepted, every table is a Cairn table.
    Engine,
    Charset(String),
    Collate(String),
}

/// `ALTER TABLE name option [[,] option ...]` where each option is `COMMENT`, `ENGINE`,
/// `[DEFAULT] {CHARSET | CHARACTER SET}` or `[DEFAULT] COLLATE`, with or without `=`, which
/// sqlparser 0.63 does not parse: the table name and the options. None for any other text
/// (sqlparser then parses it, or names what it could not).
pub(crate) fn option_alter(sql: &str) -> Option<(ObjectName, Vec<AlterOption>)> {
    use sqlparser::tokenizer::{Token, Tokenizer};
    let tokens: Vec<Token> = Tokenizer::new(&crate::parse::dialect::Cairn, sql)
        .tokenize()
        .ok()?
        .into_iter()
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .collect();
    let word = |t: Option<&Token>, w: &str| matches!(t, Some(Token::Word(x)) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w));
    let mut at = 0;
    if !word(tokens.first(), "ALTER") {
        return None;
    }
    at += 1;
    if word(tokens.get(at), "ONLINE") || word(tokens.get(at), "IGNORE") {
        at += 1;
    }
    if !word(tokens.get(at), "TABLE") {
        return None;
    }
    at += 1;
    let mut name = Vec::new();
    loop {
        let Some(Token::Word(w)) = tokens.get(at) else {
            return None;
        };
        name.push(ast::Ident {
            value: w.value.clone(),
            quote_style: w.quote_style,
            span: sqlparser::tokenizer::Span::empty(),
        });
        at += 1;
        if tokens.get(at) != Some(&Token::Period) {
            break;
        }
        at += 1;
    }
    let mut options = Vec::new();
    loop {
        match tokens.get(at) {
            None | Some(Token::SemiColon) if !options.is_empty() => break,
            Some(Token::Comma) if !options.is_empty() => at += 1,
            _ => {}
        }
        if word(tokens.get(at), "DEFAULT") {
            at += 1;
        }
        let key = if word(tokens.get(at), "CHARACTER") && word(tokens.get(at + 1), "SET") {
            at += 2;
            "CHARSET".to_string()
        } else {
            let Some(Token::Word(w)) = tokens.get(at) else {
                return None;
            };
            at += 1;
            w.value.to_ascii_uppercase()
        };
        if tokens.get(at) == Some(&Token::Eq) {
            at += 1;
        }
        let value = match tokens.get(at)? {
            Token::SingleQuotedString(v) | Token::DoubleQuotedString(v) => v.clone(),
            Token::Word(w) => w.value.clone(),
            _ => return None,
        };
        at += 1;
        options.push(match key.as_str() {
            "COMMENT" => AlterOption::Comment(value),
            "ENGINE" => AlterOption::Engine,
            "CHARSET" => AlterOption::Charset(value),
            "COLLATE" => AlterOption::Collate(value),
            _ => return None,
        });
        if options.len() > 64 {
            return None;
        }
    }
    if tokens.get(at) == Some(&Token::SemiColon) {
        at += 1;
    }
    (at == tokens.len()).then(|| (ObjectName::from(name), options))
}

impl Session {
    /// ALTER TABLE t with table options only. A comment replaces the table's: the NDB_TABLE=
    /// options it names are set, the others go back to their defaults (PARTITION_BALANCE, which
    /// would move rows between partitions, and a change of NOLOGGING, which would change what
    /// the redo log holds, are refused with 1235). The default character set and collation
    /// replace the table's; ENGINE is accepted. Online: the table's definition gets a new version
    /// and no row moves.
    pub(crate) fn alter_options(
        &mut self,
        name: &ObjectName,
        given: &[AlterOption],
    ) -> Result<Outcome> {
        let (full, _, table) = self.table_name(name)?;
        self.check_alter(name)?;
        crate::session::schema_rows::refuse_in_schema(self, name)?;
        let current = self.existing(&full, &table)?;
        let mut options = current.def().options;
        let mut comment = current.def().comment.clone();
        let mut spec = CollationSpec::default();
        for option in given {
            match option {
                AlterOption::Comment(text) => {
                    check_comment(&table, text)?;
                    comment = text.clone();
                    let mut changed = TableOptions {
                        collation: options.collation,
                        ..TableOptions::default()
                    };
                    if ndb_table_options(text, &mut changed)?.is_some() {
                        return Err(SqlError::unsupported(
                            "ALTER TABLE ... COMMENT=\"NDB_TABLE=PARTITION_BALANCE=...\" (repartitioning)",
                        ));
                    }
                    if changed.nologging != options.nologging {
                        return Err(SqlError::unsupported(
                            "ALTER TABLE ... COMMENT=\"NDB_TABLE=NOLOGGING=...\" on an existing table",
                        ));
                    }
                    options = changed;
                }
                AlterOption::Engine => {}
                AlterOption::Charset(c) => spec.charset = Some(c.clone()),
                AlterOption::Collate(c) => spec.collation = Some(c.clone()),
            }
        }
        if !spec.is_empty() {
            options.collation = Some(spec.resolve()?).filter(|c| *c != Collation::Utf8mb4GeneralCi);
        }
        if options != current.def().options || comment != current.def().comment {
            self.shared
                .cluster()
                .alter_table(&full, client::TableChange::Options { options, comment })
                .map_err(|e| self.table_error(e, &table))?;
        }
        Ok(done(0))
    }
}

/// ER_CANT_DROP_FIELD_OR_KEY.
fn no_index(name: &str) -> SqlError {
    SqlError::new(
        1091,
        "42000",
        format!("Can't DROP INDEX `{name}`; check that it exists"),
    )
}

/// A rename the data node refused: MariaDB's 1050 for a name in use, its 1025 for a missing
/// target database.
fn rename_error(e: client::ClientError, db: &str, table: &str, to: &str) -> SqlError {
    match e.code() {
        base::ErrorCode::TableExists => SqlError::new(
            1050,
            "42S01",
            format!(
                "Table '{}' already exists",
                to.split_once('/').map_or(to, |(_, t)| t)
            ),
        ),
        base::ErrorCode::NoSuchDatabase => SqlError::new(
            1025,
            "HY000",
            format!(
                "Error on rename of './{db}/{table}' to './{}' (errno: 168 \"Unknown (generic) error from engine\")",
                to
            ),
        ),
        base::ErrorCode::NoSuchTable => SqlError::no_table(db, table),
        _ => SqlError::from_client(&e),
    }
}

pub(crate) fn schema_error(table: &str, e: base::Error) -> SqlError {
    SqlError::new(1105, "HY000", format!("table '{table}': {}", e.message))
}

/// A one-column result of names (SHOW DATABASES, SHOW TABLES).
/// A FULLTEXT or SPATIAL index: NDB's tables take neither, and MySQL Cluster answers with the
/// engine's errors (1214, 1464), which ORMs and migration tools recognise.
pub(crate) fn no_fulltext_or_spatial(f: &ast::FullTextOrSpatialConstraint) -> SqlError {
    if f.fulltext {
        SqlError::new(
            1214,
            "HY000",
            "The used table type doesn't support FULLTEXT indexes",
        )
    } else {
        SqlError::new(
            1464,
            "HY000",
            "The used table type doesn't support SPATIAL indexes",
        )
    }
}

/// `CREATE FULLTEXT|SPATIAL INDEX ...`, which sqlparser does not read: the engine's refusal
/// (1214, 1464), as for such a key in CREATE or ALTER TABLE; None for any other text.
pub(crate) fn fulltext_or_spatial_index(sql: &str) -> Option<SqlError> {
    let mut words = sql.split_whitespace();
    let create = words.next()?;
    let kind = words.next()?.to_ascii_uppercase();
    let index = words.next()?;
    if !create.eq_ignore_ascii_case("create") || !index.eq_ignore_ascii_case("index") {
        return None;
    }
    let spec = |fulltext| ast::FullTextOrSpatialConstraint {
        fulltext,
        index_type_display: ast::KeyOrIndexDisplay::Index,
        opt_index_name: None,
        columns: Vec::new(),
    };
    match kind.as_str() {
        "FULLTEXT" => Some(no_fulltext_or_spatial(&spec(true))),
        "SPATIAL" => Some(no_fulltext_or_spatial(&spec(false))),
        _ => None,
    }
}

pub(crate) fn one_column(title: &str, names: Vec<String>) -> Outcome {
    Outcome::Rows {
        columns: vec![Column::computed(title, types::VAR_STRING, 256, 0)],
        rows: names
            .into_iter()
            .map(|n| vec![base::Value::Bytes(n.into_bytes())])
            .collect(),
    }
}
