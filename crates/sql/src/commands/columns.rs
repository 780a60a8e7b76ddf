//! ALTER TABLE's column operations (ADD, DROP, MODIFY, CHANGE, RENAME and ALTER COLUMN): the new
//! column list the data node copies the rows into, each column kept (its values unchanged, or
//! widened) or added with the value existing rows get, checked as MariaDB checks it.

use base::schema::{ColumnDef, IndexKind};
use base::types::{Collation, ColumnType};
use base::TableDef;
use sqlparser::ast;

use crate::commands::column_def::{column_from_ast, default_value};
use crate::expr::stored::zero_value;
use crate::foundation::error::Result;
use crate::foundation::error::SqlError;
use crate::session::Session;

impl Session {
    /// The column list after ALTER TABLE's column operations (ADD, DROP, MODIFY, CHANGE, RENAME
    /// and ALTER COLUMN), in order
    /// (None when there are none or they change nothing): each column kept from `def`'s, or
    /// added with the value existing rows get. Errors and notes are MariaDB's; dropping a
    /// primary-key column, or some but not all columns of a unique index, is refused (1235).
    pub(crate) fn new_columns(
        &mut self,
        def: &TableDef,
        table: &str,
        operations: &[ast::AlterTableOperation],
    ) -> Result<Option<Vec<client::NewColumn>>> {
        use client::{ColumnSource, NewColumn};
        let mut columns = NewColumn::all_kept(def);
        let visible = |columns: &[NewColumn], name: &str| {
            columns
                .iter()
                .position(|c| !c.column.hidden && c.column.name.eq_ignore_ascii_case(name))
        };
        let table_collation = def.options.collation.unwrap_or(Collation::Utf8mb4GeneralCi);
        let mut changed = false;
        for op in operations {
            match op {
                ast::AlterTableOperation::AddColumn {
                    if_not_exists,
                    column_def,
                    column_position,
                    ..
                } => {
                    let (column, key) = column_from_ast(column_def, table_collation)?;
                    if key.is_some() {
                        return Err(SqlError::unsupported(
                            "ALTER TABLE ... ADD COLUMN with PRIMARY KEY or UNIQUE",
                        ));
                    }
                    if column.generated.is_some() {
                        return Err(SqlError::unsupported(
                            "ALTER TABLE ... ADD COLUMN of a generated column",
                        ));
                    }
                    if column.auto_increment {
                        return Err(SqlError::unsupported(
                            "ALTER TABLE ... ADD COLUMN ... AUTO_INCREMENT",
                        ));
                    }
                    if visible(&columns, &column.name).is_some() {
                        let message = format!("Duplicate column name '{}'", column.name);
                        if *if_not_exists {
                            self.note(1060, message);
                            continue;
                        }
                        return Err(SqlError::new(1060, "42S21", message));
                    }
                    let at = match column_position {
                        None => columns.len(),
                        Some(ast::MySQLColumnPosition::First) => 0,
                        Some(ast::MySQLColumnPosition::After(after)) => {
                            visible(&columns, &after.value).ok_or_else(|| {
                                SqlError::new(
                                    1054,
                                    "42S22",
                                    format!("Unknown column '{}' in '{table}'", after.value),
                                )
                            })? + 1
                        }
                    };
                    // Rows there take the default as rows inserted now would.
                    let fill = match column.default_at(self.statement_micros) {
                        Some(v) => v,
                        None if column.nullable => base::Value::Null,
                        None => zero_value(&column)?,
                    };
                    columns.insert(
                        at,
                        NewColumn {
                            column,
                            source: ColumnSource::Filled(fill),
                        },
                    );
                    changed = true;
                }
                ast::AlterTableOperation::ModifyColumn {
                    col_name: old,
                    data_type,
                    options,
                    column_position,
                }
                | ast::AlterTableOperation::ChangeColumn {
                    old_name: old,
                    data_type,
                    options,
                    column_position,
                    ..
                } => {
                    let (verb, new) = match op {
                        ast::AlterTableOperation::ChangeColumn { new_name, .. } => {
                            ("CHANGE", new_name)
                        }
                        _ => ("MODIFY", old),
                    };
                    let change = Change {
                        verb,
                        old: &old.value,
                        new: &new.value,
                        data_type,
                        options,
                        position: column_position.as_ref(),
                    };
                    replace_column(&mut columns, def, table, table_collation, change)?;
                    changed = true;
                }
                ast::AlterTableOperation::RenameColumn {
                    old_column_name,
                    new_column_name,
                } => {
                    let p = visible_column(&columns, &old_column_name.value, table)?;
                    check_new_name(&columns, p, &new_column_name.value)?;
                    columns[p].column.name = new_column_name.value.clone();
                    changed = true;
                }
                ast::AlterTableOperation::AlterColumn { column_name, op } => {
                    let p = visible_column(&columns, &column_name.value, table)?;
                    if !matches!(columns[p].source, ColumnSource::Kept(_)) {
                        return Err(SqlError::unsupported(
                            "ALTER TABLE ... ALTER COLUMN of a column added by the same statement",
                        ));
                    }
                    let column = &mut columns[p].column;
                    match op {
                        // As in MariaDB, a column whose default was the current time loses
                        // its ON UPDATE with it.
                        ast::AlterColumnOperation::SetDefault { value } => {
                            let new = default_value(column, value, true)?;
                            if column.default_now.is_some() {
                                column.on_update_now = false;
                            }
                            new.apply(column);
                        }
                        ast::AlterColumnOperation::DropDefault => {
                            if column.default_now.is_some() {
                                column.on_update_now = false;
                            }
                            column.default = None;
                            column.default_now = None;
                            column.default_expr = None;
                        }
                        other => {
                            return Err(SqlError::unsupported(format!(
                                "ALTER TABLE ... ALTER COLUMN ... {other}"
                            )))
                        }
                    }
                    changed = true;
                }
                ast::AlterTableOperation::DropColumn {
                    column_names,
                    if_exists,
                    ..
                } => {
                    for name in column_names {
                        match visible(&columns, &name.value) {
                            Some(p) => {
                                columns.remove(p);
                                changed = true;
                            }
                            None => {
                                let message = format!(
                                    "Can't DROP COLUMN `{}`; check that it exists",
                                    name.value
                                );
                                if !*if_exists {
                                    return Err(SqlError::new(1091, "42000", message));
                                }
                                self.note(1091, message);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        if !changed {
            return Ok(None);
        }
        if columns.iter().all(|c| c.column.hidden) {
            return Err(SqlError::new(
                1090,
                "42000",
                "You can't delete all columns with ALTER TABLE; use DROP TABLE instead",
            ));
        }
        let kept = |c: u16| keeps(&columns, c);
        if !def.primary_key.iter().all(|c| kept(*c)) {
            return Err(SqlError::unsupported(
                "ALTER TABLE ... DROP COLUMN of a primary-key column",
            ));
        }
        for index in def.indexes.iter().filter(|i| i.kind == IndexKind::Unique) {
            let left = index.columns.iter().filter(|c| kept(**c)).count();
            if left > 0 && left < index.columns.len() {
                return Err(SqlError::unsupported(format!(
                    "ALTER TABLE ... DROP COLUMN of some columns of unique index '{}'",
                    index.name
                )));
            }
        }
        if columns.iter().any(|c| c.column.generated.is_some()) {
            // The expressions still read columns the table has, before their own.
            let mut changed = def.clone();
            changed.columns = columns.iter().map(|c| c.column.clone()).collect();
            // Their positions are the old ones (foreign keys are checked when declared).
            changed.foreign_keys.clear();
            crate::commands::check::check_generated(&changed)?;
        }
        Ok(Some(columns))
    }
}

/// One MODIFY or CHANGE COLUMN: column `old` gets the definition `new` `data_type` `options`.
struct Change<'a> {
    verb: &'static str,
    old: &'a str,
    new: &'a str,
    data_type: &'a ast::DataType,
    options: &'a [ast::ColumnOption],
    position: Option<&'a ast::MySQLColumnPosition>,
}

/// The position of visible column `name` in the new column list, else MariaDB's 1054.
fn visible_column(columns: &[client::NewColumn], name: &str, table: &str) -> Result<usize> {
    columns
        .iter()
        .position(|c| !c.column.hidden && c.column.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| {
            SqlError::new(
                1054,
                "42S22",
                format!("Unknown column '{name}' in '{table}'"),
            )
        })
}

/// MariaDB's 1060 when a column other than the one at `p` is already called `name`.
fn check_new_name(columns: &[client::NewColumn], p: usize, name: &str) -> Result<()> {
    let taken = columns
        .iter()
        .enumerate()
        .any(|(i, c)| i != p && !c.column.hidden && c.column.name.eq_ignore_ascii_case(name));
    if taken {
        return Err(SqlError::new(
            1060,
            "42S21",
            format!("Duplicate column name '{name}'"),
        ));
    }
    Ok(())
}

/// Applies one MODIFY or CHANGE COLUMN to the new column list. Outside every key (a key
/// column's type places rows and fills the unique indexes) the column may take another integer
/// range, DECIMAL digits, CHAR/VARCHAR/VARBINARY length or nullability, its values converted
/// (`TableDef::converts_values`; `check_conversions` finds a value that would not fit before
/// anything runs); anything else is refused with 1235, naming the change. Name, DEFAULT and
/// position may change freely.
fn replace_column(
    columns: &mut Vec<client::NewColumn>,
    def: &TableDef,
    table: &str,
    table_collation: Collation,
    change: Change,
) -> Result<()> {
    let p = visible_column(columns, change.old, table)?;
    check_new_name(columns, p, change.new)?;
    if let Some(ast::MySQLColumnPosition::After(after)) = change.position {
        visible_column(columns, &after.value, table)?;
    }
    let ast_def = ast::ColumnDef {
        name: ast::Ident::new(change.new),
        data_type: change.data_type.clone(),
        options: change
            .options
            .iter()
            .map(|option| ast::ColumnOptionDef {
                name: None,
                option: option.clone(),
            })
            .collect(),
    };
    let (mut column, key) = column_from_ast(&ast_def, table_collation)?;
    let verb = change.verb;
    if column.generated.is_some() {
        return Err(SqlError::unsupported(format!(
            "ALTER TABLE ... {verb} COLUMN to a generated column"
        )));
    }
    if key.is_some() {
        return Err(SqlError::unsupported(format!(
            "ALTER TABLE ... {verb} COLUMN with PRIMARY KEY or UNIQUE"
        )));
    }
    let client::ColumnSource::Kept(from) = columns[p].source else {
        return Err(SqlError::unsupported(format!(
            "ALTER TABLE ... {verb} COLUMN of a column added by the same statement"
        )));
    };
    let was = &def.columns[from as usize];
    if def.primary_key.contains(&from) {
        // As in MariaDB, a primary-key column is NOT NULL whatever the definition says.
        column.nullable = false;
    }
    if !def.converts_values(from, &column) {
        let shown = |c: &ColumnDef| {
            let mut s = c.ty.sql_name();
            if c.ty.is_string() && c.collation != Collation::Binary {
                s.push_str(&format!(" COLLATE {}", c.collation.name()));
            }
            s.push_str(if c.nullable { " NULL" } else { " NOT NULL" });
            if c.auto_increment {
                s.push_str(" AUTO_INCREMENT");
            }
            s
        };
        let why = if def.column_in_key(from) {
            "a column of a primary or unique key keeps its type"
        } else {
            "binary strings do not become text, YEAR, BIT, ENUM and SET change to or from no other type (an ENUM or SET may only gain members at its end), and AUTO_INCREMENT stays as it is"
        };
        return Err(SqlError::unsupported(format!(
            "ALTER TABLE ... {verb} COLUMN changing '{}' from {} to {} ({why})",
            was.name,
            shown(was),
            shown(&column)
        )));
    }
    let moved = columns.remove(p);
    let at = match change.position {
        None => p,
        Some(ast::MySQLColumnPosition::First) => 0,
        Some(ast::MySQLColumnPosition::After(after)) => {
            visible_column(columns, &after.value, table)? + 1
        }
    };
    columns.insert(
        at,
        client::NewColumn {
            column,
            source: moved.source,
        },
    );
    Ok(())
}

impl Session {
    /// Before a column change runs, the first value a converted column cannot hold, as MariaDB
    /// reports it in strict mode: 1264 an integer or DECIMAL out of the new range, 1265 a string
    /// longer than the new length or a NULL for NOT NULL, each naming the row (in scan order).
    /// Across types, the errors of MariaDB's ALTER for what strict mode's INSERT refuses
    /// (`alter_error`). The data node converts the values again as it copies them, under the
    /// same rules (`ColumnDef::convert_value`), failing the change on any that a write made
    /// since does not convert.
    pub(crate) fn check_conversions(
        &self,
        table: &client::Table,
        columns: &[client::NewColumn],
    ) -> Result<()> {
        let def = table.def();
        let converted: Vec<(u16, &ColumnDef)> = columns
            .iter()
            .filter_map(|n| match n.source {
                client::ColumnSource::Kept(from) if !def.keeps_values(from, &n.column) => {
                    Some((from, &n.column))
                }
                _ => None,
            })
            .collect();
        if converted.is_empty() {
            return Ok(());
        }
        let names: Vec<&str> = converted
            .iter()
            .map(|(from, _)| def.columns[*from as usize].name.as_str())
            .collect();
        let rows = self
            .reading()
            .scan(table, &client::Scan::table().columns(&names))
            .map_err(|e| SqlError::from_client(&e))?;
        for (n, row) in rows.into_iter().enumerate() {
            for (value, (from, to)) in row.into_iter().zip(&converted) {
                let truncated = || {
                    SqlError::new(
                        1265,
                        "01000",
                        format!("Data truncated for column '{}' at row {}", to.name, n + 1),
                    )
                };
                if value.is_null() {
                    if !to.nullable {
                        return Err(truncated());
                    }
                    continue;
                }
                let was = &def.columns[*from as usize];
                if !was.converts_in_family(to) || !was.geometry_kept(to) {
                    // Across types, as an INSERT of the value would store it under strict
                    // mode, with the errors MariaDB's ALTER gives.
                    if let Err(e) =
                        crate::expr::stored::strict_store_as_is(def, to, value.clone(), n + 1)
                    {
                        return Err(alter_error(e, &value, to, def, n + 1));
                    }
                    continue;
                }
                if value.coerce(to.ty, to.collation, &to.name).is_err() {
                    return Err(if to.ty.is_string() {
                        truncated()
                    } else {
                        SqlError::new(
                            1264,
                            "22003",
                            format!(
                                "Out of range value for column '{}' at row {}",
                                to.name,
                                n + 1
                            ),
                        )
                    });
                }
            }
        }
        Ok(())
    }
}

/// MariaDB's error for a value an ALTER TABLE cannot convert across types, from the error an
/// INSERT under strict mode gives (`strict_store`): text that is no number is 1292
/// `Truncated incorrect INTEGER value` (DECIMAL, DOUBLE), a bad date or time 1292 naming a
/// datetime; the others as INSERT's (1264, 1406, 1366 for a character the column lacks).
fn alter_error(
    e: SqlError,
    value: &base::Value,
    to: &ColumnDef,
    def: &TableDef,
    row: usize,
) -> SqlError {
    let shown =
        String::from_utf8_lossy(&base::text::value_text(value).unwrap_or_default()).into_owned();
    let number = match to.ty {
        ColumnType::Decimal { .. } => Some("DECIMAL"),
        ColumnType::Float | ColumnType::Double => Some("DOUBLE"),
        t if t.is_integer() => Some("INTEGER"),
        _ => None,
    };
    match (e.code, number) {
        (1366 | 1265, Some(kind)) => SqlError::new(
            1292,
            "22007",
            format!("Truncated incorrect {kind} value: '{shown}'"),
        ),
        (1292, _) => {
            let (db, t) = def.name.split_once('/').unwrap_or(("", &def.name));
            SqlError::new(
                1292,
                "22007",
                format!(
                    "Incorrect datetime value: '{shown}' for column `{db}`.`{t}`.`{}` at row {row}",
                    to.name
                ),
            )
        }
        _ => e,
    }
}

/// True when MariaDB (InnoDB) would rebuild the table by copying its rows for this column list,
/// and so report them as affected: a kept column changes type (a spatial kind too), other
/// than a VARCHAR or VARBINARY growing within the same length-prefix size (fewer than 256
/// bytes, or not).
pub(crate) fn copies_rows(def: &TableDef, columns: &[client::NewColumn]) -> bool {
    columns.iter().any(|n| {
        let client::ColumnSource::Kept(from) = n.source else {
            return false;
        };
        let was = &def.columns[from as usize];
        let bytes = |c: &ColumnDef| match c.ty {
            ColumnType::VarChar { length } => {
                Some(length as usize * c.collation.charset().max_len())
            }
            ColumnType::VarBinary { length } => Some(length as usize),
            _ => None,
        };
        match (bytes(was), bytes(&n.column)) {
            _ if was.ty == n.column.ty => was.geometry != n.column.geometry,
            (Some(a), Some(b)) => b < a || (a < 256) != (b < 256),
            _ => true,
        }
    })
}

/// True when the new column list keeps old column `c`.
pub(crate) fn keeps(columns: &[client::NewColumn], c: u16) -> bool {
    columns
        .iter()
        .any(|n| n.source == client::ColumnSource::Kept(c))
}
