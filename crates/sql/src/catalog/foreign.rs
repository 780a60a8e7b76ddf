//! Foreign keys as the SQL front end reads them: MariaDB's text of a constraint (SHOW CREATE
//! TABLE, and the errors that name one), and which keys reference each table (`Referencing`),
//! derived from the catalog's definitions. Enforcing them is `exec/foreign.rs`'s.

use std::collections::HashMap;

use base::foreign_key::ForeignKeyDef;
use base::TableDef;

use crate::catalog::definition::backticked;

/// The database and table of a catalog name (`database/table`).
pub(crate) fn split_name(full: &str) -> (&str, &str) {
    full.split_once('/').unwrap_or(("", full))
}

/// A referenced table as MariaDB names it in a constraint's text: bare in the child's own
/// database (`qualified` false), else with its database.
fn parent_text(fk: &ForeignKeyDef, child_db: &str, qualified: bool) -> String {
    let (db, table) = split_name(&fk.parent);
    if qualified || !db.eq_ignore_ascii_case(child_db) {
        format!("{}.{}", backticked(db), backticked(table))
    } else {
        backticked(table)
    }
}

fn column_list<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names.map(backticked).collect::<Vec<_>>().join(", ")
}

/// `CONSTRAINT `name` FOREIGN KEY (`a`) REFERENCES `p` (`id`)`, with the actions declared,
/// as SHOW CREATE TABLE and MariaDB's 1451 and 1452 print it (a parent in the child's own
/// database bare); `truncate`: as TRUNCATE's 1701 prints it (the parent with its database, no
/// actions).
pub(crate) fn constraint_text(child: &TableDef, fk: &ForeignKeyDef, truncate: bool) -> String {
    let (child_db, _) = split_name(&child.name);
    let columns = column_list(fk.columns.iter().map(|c| {
        child
            .columns
            .get(*c as usize)
            .map_or("?", |c| c.name.as_str())
    }));
    let mut text = format!(
        "CONSTRAINT {} FOREIGN KEY ({columns}) REFERENCES {} ({})",
        backticked(&fk.name),
        parent_text(fk, child_db, truncate),
        column_list(fk.parent_columns.iter().map(String::as_str))
    );
    if truncate {
        return text;
    }
    if fk.declared.0 {
        text.push_str(" ON DELETE ");
        text.push_str(fk.on_delete.sql_name());
    }
    if fk.declared.1 {
        text.push_str(" ON UPDATE ");
        text.push_str(fk.on_update.sql_name());
    }
    text
}

/// The detail MariaDB's 1451, 1452 and (`truncate`) 1701 give: `` (`db`.`child`, CONSTRAINT
/// ...) ``.
pub(crate) fn violation_detail(child: &TableDef, fk: &ForeignKeyDef, truncate: bool) -> String {
    let (db, table) = split_name(&child.name);
    format!(
        "({}.{}, {})",
        backticked(db),
        backticked(table),
        constraint_text(child, fk, truncate)
    )
}

/// Which foreign keys reference each table: derived from every table's definition under one
/// catalog epoch of the API node's connection (`client::Cluster::catalog_epoch`), and built
/// again under another.
#[derive(Debug, Default)]
pub(crate) struct Referencing {
    pub(crate) epoch: u64,
    /// By the parent's catalog name, lowercased: each child table and the position of the key
    /// in its `foreign_keys`.
    by_parent: HashMap<String, Vec<(client::Table, usize)>>,
}

impl Referencing {
    pub(crate) fn new(epoch: u64, tables: impl IntoIterator<Item = client::Table>) -> Referencing {
        let mut by_parent: HashMap<String, Vec<(client::Table, usize)>> = HashMap::new();
        for table in tables {
            for (at, fk) in table.def().foreign_keys.iter().enumerate() {
                by_parent
                    .entry(fk.parent.to_ascii_lowercase())
                    .or_default()
                    .push((table.clone(), at));
            }
        }
        Referencing { epoch, by_parent }
    }

    /// The keys that reference table `parent` (its catalog name).
    pub(crate) fn of(&self, parent: &str) -> &[(client::Table, usize)] {
        self.by_parent
            .get(&parent.to_ascii_lowercase())
            .map_or(&[], Vec::as_slice)
    }
}
