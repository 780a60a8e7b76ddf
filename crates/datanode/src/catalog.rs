//! The data node's schema catalog: databases, tables by id and name, their hidden unique-index
//! tables, and the AUTO_INCREMENT and hidden-key counters. Read by every coordinator, written only
//! by DDL. A table of database `d` is named `d/table`; tables without '/' belong to none.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use base::schema::{ColumnDef, IndexDef, IndexKind};
use base::types::Collation;
use base::{limits, Error, ErrorCode, TableDef, Value};
use wire::{ColumnSource, NewColumn};

/// A table with the state coordinators share about it.
pub struct TableEntry {
    pub def: Arc<TableDef>,
    /// Hidden tables of the unique indexes, in the order of `def.indexes` (None for ordered ones).
    pub unique_tables: Vec<Option<Arc<TableDef>>>,
    /// Next AUTO_INCREMENT value (or hidden primary key value) to hand out; shared by the
    /// entries an ALTER replaces, so no value is handed out twice.
    pub next_auto: Arc<AtomicU64>,
}

impl TableEntry {
    /// Hands out the next automatic value; None when `max` is passed. In a cluster of `groups`
    /// node groups, a coordinator of group `group` hands out only values v with
    /// (v - 1) mod groups = group, so coordinators of different groups never hand out the same
    /// value (one group: every value, in order).
    pub fn take_auto(&self, max: u64, (groups, group): (u32, u32)) -> Option<u64> {
        if groups <= 1 {
            let v = self.next_auto.fetch_add(1, Ordering::Relaxed);
            return (v <= max).then_some(v);
        }
        let (n, g) = (u64::from(groups), u64::from(group));
        let mut current = self.next_auto.load(Ordering::Relaxed);
        loop {
            // The first value of this group's class at or above `current`.
            let below = current.max(1) - 1;
            let r = below % n;
            let v = if r <= g {
                below - r + g + 1
            } else {
                below - r + n + g + 1
            };
            match self.next_auto.compare_exchange_weak(
                current,
                v.saturating_add(1),
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return (v <= max).then_some(v),
                Err(now) => current = now,
            }
        }
    }

    /// Records an explicitly given value so later automatic ones are above it.
    pub fn observe_explicit(&self, v: u64) {
        self.next_auto
            .fetch_max(v.saturating_add(1), Ordering::Relaxed);
    }
}

#[derive(Default)]
pub struct Catalog {
    tables: HashMap<u32, Arc<TableEntry>>,
    by_name: HashMap<String, u32>,
    next_id: u32,
    /// Databases by lowercased name, each with its name as created and its default collation.
    databases: BTreeMap<String, (String, Collation)>,
    /// Tables whose rows are being copied into a new layout: no other DDL may touch them.
    altering: HashSet<u32>,
    /// Ids that a column change replaced, with the table's name: requests that still name one
    /// are refused with `SchemaChanged`, so the API node fetches the new definition. Kept until
    /// the node stops.
    replaced: HashMap<u32, String>,
}

/// A table whose rows are being copied into a new column layout (ALTER TABLE ADD/DROP COLUMN).
/// The new definition has a new id, so redo records and checkpoint entries of the old layout
/// and the new one can never be mistaken for each other.
#[derive(Debug)]
pub struct Conversion {
    pub from: Arc<TableDef>,
    pub to: Arc<TableDef>,
    /// Per column of `to`: where its values come from (fill values already in canonical form).
    pub sources: Vec<ColumnSource>,
}

/// A unique index being built over a table's rows (ALTER TABLE ADD UNIQUE, CREATE UNIQUE
/// INDEX). Every worker, with the table fenced, sends its rows' index entries to the workers
/// owning their hidden-table partitions, which find any key two rows share.
#[derive(Debug)]
pub struct UniqueBuild {
    /// The table as it is while the build runs.
    pub from: Arc<TableDef>,
    /// Its definition with the index (the last of its indexes), one version on.
    pub to: Arc<TableDef>,
    /// The index's hidden table, under the id reserved for it.
    pub hidden: Arc<TableDef>,
}

impl Catalog {
    /// The highest table id given so far: a higher one names no table this catalog ever held.
    pub fn last_id(&self) -> u32 {
        self.next_id
    }

    /// Ids up to `last` are taken elsewhere (by the primary of this node's group): the next
    /// table gets a higher one. Ids only grow.
    pub fn raise_last_id(&mut self, last: u32) {
        self.next_id = self.next_id.max(last);
    }

    pub fn get(&self, id: u32) -> Option<&Arc<TableEntry>> {
        self.tables.get(&id)
    }

    pub fn by_name(&self, name: &str) -> Option<&Arc<TableEntry>> {
        self.by_name
            .get(&name.to_ascii_lowercase())
            .and_then(|id| self.tables.get(id))
    }

    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .tables
            .values()
            .filter(|t| t.def.index_of.is_none())
            .map(|t| t.def.name.clone())
            .collect();
        names.sort();
        names
    }

    pub fn table_count(&self) -> usize {
        self.tables.len()
    }

    /// Validates and registers a table and its hidden index tables; returns every table created
    /// (the base table first) so the workers can create their partitions.
    pub fn create(
        &mut self,
        mut def: TableDef,
        default_partitions: u32,
    ) -> Result<Vec<Arc<TableDef>>, Error> {
        def.validate()?;
        def.check_key_sizes(None)?;
        if let Some((database, _)) = def.name.split_once('/') {
            if !self.databases.contains_key(&database.to_ascii_lowercase()) {
                return Err(Error::new(
                    ErrorCode::NoSuchDatabase,
                    format!("unknown database '{database}'"),
                ));
            }
        }
        if self.by_name.contains_key(&def.name.to_ascii_lowercase()) {
            return Err(Error::new(
                ErrorCode::TableExists,
                format!("table '{}' already exists", def.name),
            ));
        }
        let unique = def
            .indexes
            .iter()
            .filter(|i| i.kind == IndexKind::Unique)
            .count();
        if self.tables.len() + 1 + unique > limits::TABLES_MAX {
            return Err(Error::new(
                ErrorCode::LimitExceeded,
                format!("at most {} tables", limits::TABLES_MAX),
            ));
        }
        if def.partition_count == 0 {
            def.partition_count = default_partitions;
        }
        self.next_id += 1;
        def.id = self.next_id;
        def.version = 1;
        let mut created = Vec::new();
        let mut unique_tables = Vec::new();
        for i in 0..def.indexes.len() {
            if def.indexes[i].kind != IndexKind::Unique {
                unique_tables.push(None);
                continue;
            }
            self.next_id += 1;
            def.indexes[i].index_table = self.next_id;
            let mut hidden = def.unique_index_table(&def.indexes[i]);
            hidden.id = self.next_id;
            let hidden = Arc::new(hidden);
            unique_tables.push(Some(hidden.clone()));
            created.push(hidden);
        }
        let def = Arc::new(def);
        created.insert(0, def.clone());
        for t in &created {
            let entry = TableEntry {
                def: t.clone(),
                unique_tables: if t.id == def.id {
                    unique_tables.clone()
                } else {
                    Vec::new()
                },
                next_auto: Arc::new(AtomicU64::new(1)),
            };
            self.tables.insert(t.id, Arc::new(entry));
            self.by_name.insert(t.name.to_ascii_lowercase(), t.id);
        }
        Ok(created)
    }

    /// Adds an ordered index to a table (its rows are indexed by the workers after this);
    /// returns the table's new definition. `version` is the definition the index's column
    /// positions were taken from.
    pub fn add_index(
        &mut self,
        table: &str,
        version: u32,
        index: IndexDef,
    ) -> Result<Arc<TableDef>, Error> {
        let entry = self.base_table(table)?;
        if index.kind != IndexKind::Ordered {
            return Err(Error::new(
                ErrorCode::BadRequest,
                "a unique index is built by begin_unique",
            ));
        }
        let def = with_index(&entry.def, version, index)?;
        let mut unique_tables = entry.unique_tables.clone();
        unique_tables.push(None);
        let replaced = TableEntry {
            def: def.clone(),
            unique_tables,
            next_auto: entry.next_auto.clone(),
        };
        self.tables.insert(def.id, Arc::new(replaced));
        Ok(def)
    }

    /// Starts building unique `index` over a table with rows: checks it,
    /// reserves its hidden table's id (taken from the counter, which the caller saves before
    /// any entry is written under it), and returns the build. The table takes no other DDL
    /// until `finish_unique` or `abort_unique`; the index is named in the catalog only by
    /// `finish_unique`, once every entry is in place and no two rows shared a key.
    pub fn begin_unique(
        &mut self,
        table: &str,
        version: u32,
        index: IndexDef,
    ) -> Result<UniqueBuild, Error> {
        let entry = self.base_table(table)?;
        if self.tables.len() + 1 > limits::TABLES_MAX {
            return Err(Error::new(
                ErrorCode::LimitExceeded,
                format!("at most {} tables", limits::TABLES_MAX),
            ));
        }
        let id = self.next_id + 1;
        let index = IndexDef {
            kind: IndexKind::Unique,
            index_table: id,
            ..index
        };
        let to = with_index(&entry.def, version, index)?;
        let mut hidden = to.unique_index_table(&to.indexes[to.indexes.len() - 1]);
        hidden.id = id;
        self.next_id = id;
        self.altering.insert(to.id);
        Ok(UniqueBuild {
            from: entry.def.clone(),
            to,
            hidden: Arc::new(hidden),
        })
    }

    /// Ends a unique-index build every worker filled: the table takes its new definition and
    /// the hidden table its place.
    pub fn finish_unique(&mut self, build: &UniqueBuild) {
        self.altering.remove(&build.from.id);
        let Some(entry) = self.tables.get(&build.from.id).cloned() else {
            return;
        };
        let mut unique_tables = entry.unique_tables.clone();
        unique_tables.push(Some(build.hidden.clone()));
        self.tables.insert(
            build.to.id,
            Arc::new(TableEntry {
                def: build.to.clone(),
                unique_tables,
                next_auto: entry.next_auto.clone(),
            }),
        );
        self.tables.insert(
            build.hidden.id,
            Arc::new(TableEntry {
                def: build.hidden.clone(),
                unique_tables: Vec::new(),
                next_auto: Arc::new(AtomicU64::new(1)),
            }),
        );
        self.by_name
            .insert(build.hidden.name.to_ascii_lowercase(), build.hidden.id);
    }

    /// Ends a unique-index build that failed: the table stays as it was.
    pub fn abort_unique(&mut self, build: &UniqueBuild) {
        self.altering.remove(&build.from.id);
    }

    /// A base table by name, unless a column change is copying its rows.
    fn base_table(&self, name: &str) -> Result<Arc<TableEntry>, Error> {
        let entry = self
            .by_name(name)
            .filter(|t| t.def.index_of.is_none())
            .cloned()
            .ok_or_else(|| Error::new(ErrorCode::NoSuchTable, format!("unknown table '{name}'")))?;
        self.check_idle(&entry.def)?;
        Ok(entry)
    }

    fn check_idle(&self, def: &TableDef) -> Result<(), Error> {
        if self.altering.contains(&def.id) {
            return Err(Error::new(
                ErrorCode::LockWaitTimeout,
                format!("table '{}' is being altered", def.name),
            ));
        }
        Ok(())
    }

    /// The name of the table a column change replaced under this id, if one did.
    pub fn replaced(&self, id: u32) -> Option<&str> {
        self.replaced.get(&id).map(String::as_str)
    }

    /// A column change that leaves every column's type, collation, nullability and place as
    /// they are (names and defaults may change: RENAME COLUMN, ALTER COLUMN SET/DROP DEFAULT, a
    /// CHANGE to the same type) needs no row copied: the table keeps its id and rows and takes
    /// the new definition, one version on. `None` when the change moves rows
    /// (`begin_columns`); errors as `begin_columns` gives them.
    pub fn columns_in_place(
        &mut self,
        table: &str,
        version: u32,
        columns: &[NewColumn],
    ) -> Result<Option<Arc<TableDef>>, Error> {
        let entry = self.base_table(table)?;
        let old = &entry.def;
        check_version(old, version)?;
        if columns.len() != old.columns.len() {
            return Ok(None);
        }
        let mut defs = Vec::with_capacity(columns.len());
        for (i, c) in columns.iter().enumerate() {
            if c.source != ColumnSource::Kept(i as u16) || !old.columns[i].stores_as(&c.column) {
                return Ok(None);
            }
            defs.push(with_default_coerced(c.column.clone())?);
        }
        let mut def = (**old).clone();
        def.columns = defs;
        def.version = next_version(old)?;
        def.validate()?;
        Ok(Some(self.redefine_base(&entry, def)))
    }

    /// Starts a column change of `table`: checks the new column list against the table, and
    /// returns the new definition (a new id, the next version; keys and indexes follow their
    /// columns, an ordered index loses dropped columns and goes when none is left). The table
    /// takes no other DDL until `finish_columns` or `abort_columns`. The new id is taken from
    /// the counter, which the caller saves before any row is copied under it. `version` is the
    /// definition the list was built from: another is `SchemaChanged`, since its kept positions
    /// would name other columns.
    pub fn begin_columns(
        &mut self,
        table: &str,
        version: u32,
        columns: &[NewColumn],
    ) -> Result<Conversion, Error> {
        let entry = self.base_table(table)?;
        let old = &entry.def;
        check_version(old, version)?;
        let bad = |why: String| Error::new(ErrorCode::BadSchema, why);
        if columns.is_empty() {
            return Err(bad("a table needs at least one column".into()));
        }
        let mut new_of_old: Vec<Option<u16>> = vec![None; old.columns.len()];
        let mut sources = Vec::with_capacity(columns.len());
        let mut defs = Vec::with_capacity(columns.len());
        for (position, c) in columns.iter().enumerate() {
            let column = c.column.clone();
            match &c.source {
                ColumnSource::Kept(from) => {
                    let Some(was) = old.columns.get(*from as usize) else {
                        return Err(bad(format!("column {from} of '{table}' does not exist")));
                    };
                    if new_of_old[*from as usize]
                        .replace(position as u16)
                        .is_some()
                    {
                        return Err(bad(format!("column '{}' is kept twice", was.name)));
                    }
                    if !old.converts_values(*from, &column) {
                        return Err(bad(format!(
                            "column '{}' would change type or attributes in a way that cannot convert its values{}",
                            was.name,
                            if old.column_in_key(*from) { " (it is in a key)" } else { "" }
                        )));
                    }
                    sources.push(ColumnSource::Kept(*from));
                }
                ColumnSource::Filled(value) => {
                    if column.auto_increment || column.hidden {
                        return Err(bad(format!(
                            "column '{}': an AUTO_INCREMENT or hidden column cannot be added to an existing table",
                            column.name
                        )));
                    }
                    let value = match value {
                        Value::Null if column.nullable => Value::Null,
                        Value::Null => {
                            return Err(Error::new(
                                ErrorCode::NullNotAllowed,
                                format!("column '{}' cannot be NULL", column.name),
                            ))
                        }
                        v => v
                            .clone()
                            .coerce(column.ty, column.collation, &column.name)?,
                    };
                    sources.push(ColumnSource::Filled(value));
                }
            }
            defs.push(with_default_coerced(column)?);
        }
        let moved = |cols: &[u16], what: &str| -> Result<Vec<u16>, Error> {
            cols.iter()
                .map(|c| {
                    new_of_old[*c as usize].ok_or_else(|| {
                        bad(format!(
                            "column '{}' is in the {what} and cannot be dropped",
                            old.columns[*c as usize].name
                        ))
                    })
                })
                .collect()
        };
        let mut def = (**old).clone();
        def.primary_key = moved(&old.primary_key, "primary key")?;
        def.partition_key = moved(&old.partition_key, "partition key")?;
        def.indexes.clear();
        for index in &old.indexes {
            let mut index = index.clone();
            match index.kind {
                IndexKind::Unique => {
                    index.columns =
                        moved(&index.columns, &format!("unique index '{}'", index.name))?
                }
                IndexKind::Ordered => {
                    let mut prefixes = Vec::new();
                    let mut columns = Vec::new();
                    for (i, c) in index.columns.iter().enumerate() {
                        let Some(new) = new_of_old[*c as usize] else {
                            continue;
                        };
                        columns.push(new);
                        prefixes.push(refit_prefix(
                            &old.columns[*c as usize],
                            &defs[new as usize],
                            index.prefix(i).unwrap_or(0),
                        ));
                    }
                    if columns.is_empty() {
                        continue;
                    }
                    index.columns = columns;
                    index.prefixes = base::schema::kept_prefixes(prefixes);
                }
            }
            def.indexes.push(index);
        }
        for key in &mut def.foreign_keys {
            key.columns = moved(&key.columns, &format!("foreign key '{}'", key.name))?;
        }
        // A column's own CHECK goes with it (as MariaDB drops it); the table's are the API
        // node's to keep right.
        def.checks.retain_mut(|c| match c.column {
            Some(at) => match new_of_old[at as usize] {
                Some(new) => {
                    c.column = Some(new);
                    true
                }
                None => false,
            },
            None => true,
        });
        def.columns = defs;
        def.version = next_version(old)?;
        def.id = self.next_id + 1;
        def.validate()?;
        def.check_key_sizes(Some(old))?;
        self.next_id += 1;
        self.altering.insert(old.id);
        Ok(Conversion {
            from: old.clone(),
            to: Arc::new(def),
            sources,
        })
    }

    /// Ends a column change whose rows every worker copied: the new definition takes the
    /// table's name, the hidden unique-index tables point at it. Returns the hidden tables'
    /// new definitions.
    pub fn finish_columns(&mut self, conversion: &Conversion) -> Vec<Arc<TableDef>> {
        let from = conversion.from.id;
        self.altering.remove(&from);
        let Some(entry) = self.tables.remove(&from) else {
            return Vec::new();
        };
        let to = conversion.to.clone();
        let mut hidden_defs = Vec::new();
        // One per index of the new definition (an ordered index may have gone with its columns).
        let mut unique_tables = Vec::with_capacity(to.indexes.len());
        for index in &to.indexes {
            let hidden = entry
                .unique_tables
                .iter()
                .flatten()
                .find(|h| index.kind == IndexKind::Unique && h.id == index.index_table);
            let Some(hidden) = hidden else {
                unique_tables.push(None);
                continue;
            };
            let mut def = (**hidden).clone();
            def.index_of = Some(to.id);
            def.version = def.version.saturating_add(1);
            let def = Arc::new(def);
            self.redefine_hidden(&def);
            hidden_defs.push(def.clone());
            unique_tables.push(Some(def));
        }
        self.by_name.insert(to.name.to_ascii_lowercase(), to.id);
        self.replaced.insert(from, to.name.clone());
        self.tables.insert(
            to.id,
            Arc::new(TableEntry {
                def: to,
                unique_tables,
                next_auto: entry.next_auto.clone(),
            }),
        );
        hidden_defs
    }

    /// Gives a hidden unique-index table its new definition.
    fn redefine_hidden(&mut self, def: &Arc<TableDef>) {
        if let Some(old) = self.tables.get(&def.id).cloned() {
            self.tables.insert(
                def.id,
                Arc::new(TableEntry {
                    def: def.clone(),
                    unique_tables: Vec::new(),
                    next_auto: old.next_auto.clone(),
                }),
            );
        }
    }

    /// Ends a column change that failed: the table stays as it was.
    pub fn abort_columns(&mut self, conversion: &Conversion) {
        self.altering.remove(&conversion.from.id);
    }

    /// Drops index `name` of `table`. Returns the table's new definition, the index's position
    /// in the old one, and the id of the hidden table of a unique index (dropped with it).
    pub fn drop_index(
        &mut self,
        table: &str,
        name: &str,
    ) -> Result<(Arc<TableDef>, usize, Option<u32>), Error> {
        let entry = self.base_table(table)?;
        let position = entry.def.index(name).ok_or_else(|| {
            Error::new(
                ErrorCode::NoSuchIndex,
                format!("table '{table}' has no index '{name}'"),
            )
        })?;
        let mut def = (*entry.def).clone();
        let dropped = def.indexes.remove(position);
        def.version = next_version(&def)?;
        let def = Arc::new(def);
        let mut unique_tables = entry.unique_tables.clone();
        let hidden = unique_tables.remove(position).map(|t| t.id);
        if let Some(id) = hidden {
            if let Some(t) = self.tables.remove(&id) {
                self.by_name.remove(&t.def.name.to_ascii_lowercase());
            }
        }
        debug_assert_eq!(dropped.index_table, hidden.unwrap_or(0));
        let replaced = TableEntry {
            def: def.clone(),
            unique_tables,
            next_auto: entry.next_auto.clone(),
        };
        self.tables.insert(def.id, Arc::new(replaced));
        Ok((def, position, hidden))
    }

    /// Renames `table` to `to` (which may be in another database), its hidden unique-index
    /// tables with it. Returns every definition that changed, the base table's first.
    pub fn rename_table(&mut self, table: &str, to: &str) -> Result<Vec<Arc<TableDef>>, Error> {
        let entry = self.base_table(table)?;
        if let Some((database, _)) = to.split_once('/') {
            if !self.databases.contains_key(&database.to_ascii_lowercase()) {
                return Err(Error::new(
                    ErrorCode::NoSuchDatabase,
                    format!("unknown database '{database}'"),
                ));
            }
        }
        if self.by_name.contains_key(&to.to_ascii_lowercase()) {
            return Err(Error::new(
                ErrorCode::TableExists,
                format!("table '{to}' already exists"),
            ));
        }
        let mut def = (*entry.def).clone();
        def.name = to.to_string();
        def.validate()?;
        def.version = next_version(&def)?;
        let def = Arc::new(def);
        let mut changed = vec![def.clone()];
        let mut unique_tables = Vec::with_capacity(entry.unique_tables.len());
        for (index, hidden) in def.indexes.iter().zip(&entry.unique_tables) {
            let Some(hidden) = hidden else {
                unique_tables.push(None);
                continue;
            };
            let mut renamed = (**hidden).clone();
            renamed.name = def.unique_index_table(index).name;
            renamed.version = next_version(&renamed)?;
            let renamed = Arc::new(renamed);
            self.by_name.remove(&hidden.name.to_ascii_lowercase());
            self.by_name
                .insert(renamed.name.to_ascii_lowercase(), renamed.id);
            self.redefine_hidden(&renamed);
            changed.push(renamed.clone());
            unique_tables.push(Some(renamed));
        }
        self.by_name.remove(&entry.def.name.to_ascii_lowercase());
        self.by_name.insert(to.to_ascii_lowercase(), def.id);
        self.tables.insert(
            def.id,
            Arc::new(TableEntry {
                def,
                unique_tables,
                next_auto: entry.next_auto.clone(),
            }),
        );
        Ok(changed)
    }

    /// Replaces the options and the comment of `table`; returns its new definition.
    pub fn set_options(
        &mut self,
        table: &str,
        options: base::schema::TableOptions,
        comment: &str,
    ) -> Result<Arc<TableDef>, Error> {
        let entry = self.base_table(table)?;
        let mut def = (*entry.def).clone();
        def.options = options;
        def.comment = comment.to_string();
        def.validate()?;
        def.version = next_version(&def)?;
        Ok(self.redefine_base(&entry, def))
    }

    /// Replaces the foreign keys and CHECK constraints of `table` (their enforcement is the API
    /// node's); `version` is the definition they were built from. Returns the table's new
    /// definition.
    pub fn set_constraints(
        &mut self,
        table: &str,
        version: u32,
        keys: &[base::foreign_key::ForeignKeyDef],
        checks: &[base::foreign_key::CheckDef],
    ) -> Result<Arc<TableDef>, Error> {
        let entry = self.base_table(table)?;
        check_version(&entry.def, version)?;
        let mut def = (*entry.def).clone();
        def.foreign_keys = keys.to_vec();
        def.checks = checks.to_vec();
        def.validate()?;
        def.version = next_version(&def)?;
        Ok(self.redefine_base(&entry, def))
    }

    /// Gives a base table its new definition (the same id), keeping its hidden tables and
    /// AUTO_INCREMENT counter.
    fn redefine_base(&mut self, entry: &TableEntry, def: TableDef) -> Arc<TableDef> {
        let def = Arc::new(def);
        self.tables.insert(
            def.id,
            Arc::new(TableEntry {
                def: def.clone(),
                unique_tables: entry.unique_tables.clone(),
                next_auto: entry.next_auto.clone(),
            }),
        );
        def
    }

    /// Databases, in name order, with their default collations.
    pub fn databases(&self) -> Vec<(String, Collation)> {
        self.databases.values().cloned().collect()
    }

    pub fn create_database(&mut self, name: &str, collation: Collation) -> Result<(), Error> {
        base::schema::check_database_name(name)?;
        let key = name.to_ascii_lowercase();
        if self.databases.contains_key(&key) {
            return Err(Error::new(
                ErrorCode::DatabaseExists,
                format!("database '{name}' already exists"),
            ));
        }
        self.databases.insert(key, (name.to_string(), collation));
        Ok(())
    }

    /// Sets the default collation of a database's new tables.
    pub fn alter_database(&mut self, name: &str, collation: Collation) -> Result<(), Error> {
        match self.databases.get_mut(&name.to_ascii_lowercase()) {
            Some(entry) => {
                entry.1 = collation;
                Ok(())
            }
            None => Err(Error::new(
                ErrorCode::NoSuchDatabase,
                format!("no database '{name}'"),
            )),
        }
    }

    /// Removes a database and every table in it; returns the ids of the tables removed.
    pub fn drop_database(&mut self, name: &str) -> Result<Vec<u32>, Error> {
        let prefix = format!("{}/", name.to_ascii_lowercase());
        for t in self.tables.values() {
            if t.def.name.to_ascii_lowercase().starts_with(&prefix) {
                self.check_idle(&t.def)?;
            }
        }
        if self.databases.remove(&name.to_ascii_lowercase()).is_none() {
            return Err(Error::new(
                ErrorCode::NoSuchDatabase,
                format!("unknown database '{name}'"),
            ));
        }
        let tables: Vec<String> = self
            .tables
            .values()
            .filter(|t| t.def.index_of.is_none())
            .filter(|t| t.def.name.to_ascii_lowercase().starts_with(&prefix))
            .map(|t| t.def.name.clone())
            .collect();
        let mut ids = Vec::new();
        for t in tables {
            ids.extend(self.drop_table(&t)?);
        }
        Ok(ids)
    }

    /// Removes a table and its hidden index tables; returns their ids.
    pub fn drop_table(&mut self, name: &str) -> Result<Vec<u32>, Error> {
        let entry = self.base_table(name)?;
        let mut ids = vec![entry.def.id];
        ids.extend(entry.unique_tables.iter().flatten().map(|t| t.id));
        for id in &ids {
            if let Some(t) = self.tables.remove(id) {
                self.by_name.remove(&t.def.name.to_ascii_lowercase());
            }
        }
        Ok(ids)
    }
}

/// A change made for definition `version` of a table now at `def`: another version is
/// `SchemaChanged`, since the column positions the change names may now be other columns.
fn check_version(def: &TableDef, version: u32) -> Result<(), Error> {
    if def.version == version {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::SchemaChanged,
        format!(
            "'{}' is at definition version {}, the change was made for {version}",
            def.name, def.version
        ),
    ))
}

/// `column` with its default converted to the column's type.
fn with_default_coerced(mut column: ColumnDef) -> Result<ColumnDef, Error> {
    if let Some(d) = column.default.take() {
        column.default = Some(match d {
            Value::Null => Value::Null,
            d => d.coerce(column.ty, column.collation, &column.name)?,
        });
    }
    Ok(column)
}

/// The version after `def`'s; an error once 2^32 - 1 changes were made.
/// `def` with `index` added last, one version on; `version` is the definition the index's
/// column positions were taken from.
fn with_index(def: &TableDef, version: u32, index: IndexDef) -> Result<Arc<TableDef>, Error> {
    check_version(def, version)?;
    if def.index(&index.name).is_some() {
        return Err(Error::new(
            ErrorCode::BadSchema,
            format!("duplicate key name '{}'", index.name),
        ));
    }
    let old = def;
    let mut def = def.clone();
    def.indexes.push(index);
    def.validate()?;
    def.check_key_sizes(Some(old))?;
    def.version = next_version(&def)?;
    Ok(Arc::new(def))
}

fn next_version(def: &TableDef) -> Result<u32, Error> {
    def.version.checked_add(1).ok_or_else(|| {
        Error::new(
            ErrorCode::LimitExceeded,
            format!("table '{}' was changed too many times", def.name),
        )
    })
}

/// The catalog file's first bytes.
const CATALOG_MAGIC: &[u8; 8] = b"CAIRNCAT";
/// Version 2 added the databases after the tables; version 3 the tables' definition versions;
/// version 4 each database's default collation after its name.
const CATALOG_VERSION: u32 = 4;
/// The catalog file's name inside the data directory.
pub const CATALOG_FILE: &str = "catalog";

impl Catalog {
    /// Writes the catalog durably: a temporary file, fsync, rename over the old one, then an fsync
    /// of the directory, so a crash leaves either the old catalog or the new one.
    pub fn save(&self, dir: &std::path::Path) -> std::io::Result<()> {
        use std::io::Write;
        let bytes = self.to_bytes();
        let tmp = dir.join(format!("{CATALOG_FILE}.tmp"));
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(&bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, dir.join(CATALOG_FILE))?;
        storage::redo::sync_directory(&dir.join(CATALOG_FILE))
    }

    /// The catalog as its file holds it (what a copy to a starting node sends, too).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(CATALOG_MAGIC);
        bytes.extend_from_slice(&CATALOG_VERSION.to_le_bytes());
        bytes.extend_from_slice(&self.next_id.to_le_bytes());
        let mut ids: Vec<u32> = self.tables.keys().copied().collect();
        ids.sort_unstable();
        bytes.extend_from_slice(&(ids.len() as u32).to_le_bytes());
        for id in ids {
            wire::message::put_table(&mut bytes, &self.tables[&id].def);
        }
        bytes.extend_from_slice(&(self.databases.len() as u32).to_le_bytes());
        for (name, collation) in self.databases.values() {
            bytes.extend_from_slice(&(name.len() as u32).to_le_bytes());
            bytes.extend_from_slice(name.as_bytes());
            bytes.push(*collation as u8);
        }
        let crc = crc32c::crc32c(&bytes);
        bytes.extend_from_slice(&crc.to_le_bytes());
        bytes
    }

    /// Reads the catalog saved in `dir`; an empty catalog when there is none yet.
    pub fn load(dir: &std::path::Path) -> Result<Catalog, Error> {
        let path = dir.join(CATALOG_FILE);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Catalog::default()),
            Err(e) => {
                return Err(Error::new(
                    ErrorCode::Internal,
                    format!("reading {}: {e}", path.display()),
                ))
            }
        };
        Catalog::from_bytes(&bytes, &path.display().to_string())
    }

    /// Reads a catalog from the bytes `to_bytes` gave; `source` names them in errors.
    pub fn from_bytes(bytes: &[u8], source: &str) -> Result<Catalog, Error> {
        let corrupt = |what: &str| {
            Error::new(
                ErrorCode::Internal,
                format!("catalog {source} is corrupt: {what}"),
            )
        };
        if bytes.len() < 24 || &bytes[..8] != CATALOG_MAGIC {
            return Err(corrupt("bad header"));
        }
        let (body, crc) = bytes.split_at(bytes.len() - 4);
        if crc32c::crc32c(body) != u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]) {
            return Err(corrupt("checksum mismatch"));
        }
        let mut r = wire::codec::Reader::new(&body[8..]);
        let version = r.u32().map_err(|e| corrupt(&e.to_string()))?;
        if !(1..=CATALOG_VERSION).contains(&version) {
            return Err(corrupt(&format!("unsupported version {version}")));
        }
        let next_id = r.u32().map_err(|e| corrupt(&e.to_string()))?;
        let count = r
            .count("tables", limits::TABLES_MAX, 8)
            .map_err(|e| corrupt(&e.to_string()))?;
        let mut defs = Vec::with_capacity(count);
        for _ in 0..count {
            let def = if version >= 3 {
                wire::message::get_table(&mut r)
            } else {
                wire::message::get_table_unversioned(&mut r)
            };
            defs.push(Arc::new(def.map_err(|e| corrupt(&e.to_string()))?));
        }
        let mut catalog = Catalog {
            next_id,
            ..Catalog::default()
        };
        if version >= 2 {
            let n = r
                .count("databases", limits::TABLES_MAX, 4)
                .map_err(|e| corrupt(&e.to_string()))?;
            for _ in 0..n {
                let name = r
                    .string("database name", limits::NAME_BYTES_MAX)
                    .map_err(|e| corrupt(&e.to_string()))?;
                let collation = if version >= 4 {
                    let tag = r.u8().map_err(|e| corrupt(&e.to_string()))?;
                    Collation::from_u8(tag)
                        .ok_or_else(|| corrupt(&format!("database collation {tag}")))?
                } else {
                    Collation::Utf8mb4GeneralCi
                };
                catalog
                    .databases
                    .insert(name.to_ascii_lowercase(), (name, collation));
            }
        }
        for def in &defs {
            let unique_tables = def
                .indexes
                .iter()
                .map(|i| match i.kind {
                    IndexKind::Unique => defs.iter().find(|t| t.id == i.index_table).cloned(),
                    IndexKind::Ordered => None,
                })
                .collect();
            let entry = TableEntry {
                def: def.clone(),
                unique_tables,
                next_auto: Arc::new(AtomicU64::new(1)),
            };
            catalog
                .by_name
                .insert(def.name.to_ascii_lowercase(), def.id);
            catalog.tables.insert(def.id, Arc::new(entry));
        }
        Ok(catalog)
    }

    /// Every table, hidden ones included.
    pub fn entries(&self) -> impl Iterator<Item = &Arc<TableEntry>> {
        self.tables.values()
    }
}

/// The prefix an ordered index keeps of a column whose definition a column change turns from
/// `was` to `now`, as MySQL refits it: none of a column that is no string any more, the whole
/// column when it is now no longer than the prefix (TEXT and BLOB: the most they hold), all an
/// ordinary key holds of a TEXT or BLOB column indexed whole before.
fn refit_prefix(was: &ColumnDef, now: &ColumnDef, prefix: u32) -> u32 {
    if was.ty == now.ty && was.collation == now.collation {
        return prefix;
    }
    let given = match (prefix, now.prefix_limit()) {
        (0, _) | (_, None) => None,
        (p, Some(max)) => Some(u64::from(p).min(max)),
    };
    base::schema::key_part(now, given, false).map_or(0, |(p, _)| p)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Coordinators of different node groups hand out disjoint AUTO_INCREMENT values, each in
    /// order above what it saw; one group hands out every value.
    #[test]
    fn automatic_values_of_node_groups_never_meet() {
        let entry = |start: u64| TableEntry {
            def: Arc::new(
                TableDef::new(
                    "t",
                    vec![base::schema::ColumnDef::new(
                        "id",
                        base::types::ColumnType::BigInt { unsigned: false },
                    )],
                    &["id"],
                )
                .unwrap(),
            ),
            unique_tables: Vec::new(),
            next_auto: Arc::new(AtomicU64::new(start)),
        };
        let one = entry(1);
        let taken: Vec<u64> = (0..4)
            .map(|_| one.take_auto(100, (1, 0)).unwrap())
            .collect();
        assert_eq!(taken, [1, 2, 3, 4]);
        for groups in [2u32, 3] {
            let mut seen = std::collections::BTreeSet::new();
            for group in 0..groups {
                let e = entry(1);
                e.observe_explicit(4);
                for _ in 0..5 {
                    let v = e.take_auto(1000, (groups, group)).unwrap();
                    assert!(v > 4, "{v}");
                    assert_eq!((v - 1) % u64::from(groups), u64::from(group));
                    assert!(seen.insert(v), "{v} handed out twice");
                }
            }
        }
        assert_eq!(entry(9).take_auto(9, (2, 1)), None, "past the maximum");
    }

    /// The example catalogs of docs/formats/redo-log.md: version 4 as written now, and version
    /// 2 as an earlier data directory holds it, both read back; a version 3 database takes
    /// utf8mb4_general_ci, a version 4 one keeps its collation.
    #[test]
    fn documented_catalog_files_load() {
        let dir = std::env::temp_dir().join(format!("cairn-catalog-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let catalog = Catalog {
            next_id: 1,
            ..Catalog::default()
        };
        catalog.save(&dir).unwrap();
        let written = std::fs::read(dir.join(CATALOG_FILE)).unwrap();
        let documented: Vec<u8> = [
            b"CAIRNCAT".as_slice(),
            &[4, 0, 0, 0, 1, 0, 0, 0],
            &[0; 8],
            &[0xee, 0x6d, 0x1a, 0xa8],
        ]
        .concat();
        assert_eq!(written, documented);
        let version_2: Vec<u8> = [
            b"CAIRNCAT".as_slice(),
            &[2, 0, 0, 0, 1, 0, 0, 0],
            &[0; 8],
            &[0x08, 0xac, 0xea, 0x8f],
        ]
        .concat();
        std::fs::write(dir.join(CATALOG_FILE), version_2).unwrap();
        let loaded = Catalog::load(&dir).unwrap();
        assert_eq!(loaded.next_id, 1);
        assert_eq!(loaded.table_count(), 0);

        let with_crc = |body: Vec<u8>| {
            let crc = crc32c::crc32c(&body);
            [body, crc.to_le_bytes().to_vec()].concat()
        };
        let version_3 = with_crc(
            [
                b"CAIRNCAT".as_slice(),
                &[3, 0, 0, 0, 1, 0, 0, 0],
                &[0, 0, 0, 0, 1, 0, 0, 0],
                &[4, 0, 0, 0],
                b"Shop",
            ]
            .concat(),
        );
        std::fs::write(dir.join(CATALOG_FILE), version_3).unwrap();
        let mut loaded = Catalog::load(&dir).unwrap();
        assert_eq!(
            loaded.databases(),
            vec![("Shop".to_string(), Collation::Utf8mb4GeneralCi)]
        );
        loaded.create_database("raw", Collation::Binary).unwrap();
        loaded.save(&dir).unwrap();
        let loaded = Catalog::load(&dir).unwrap();
        assert_eq!(
            loaded.databases(),
            vec![
                ("raw".to_string(), Collation::Binary),
                ("Shop".to_string(), Collation::Utf8mb4GeneralCi)
            ]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
