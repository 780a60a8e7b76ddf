//! How MariaDB spells a table's definition: column type texts, DEFAULT clauses, the Key column
//! of DESCRIBE, the keys in MariaDB's order, and SHOW CREATE TABLE's text. Shared by DESCRIBE,
//! SHOW CREATE TABLE, SHOW INDEX and information_schema, so they cannot disagree. It reads
//! definitions only; it never asks the data node anything.

use base::schema::IndexKind;
use base::types::{Collation, ColumnType};
use base::{TableDef, Value};

/// The engine SHOW CREATE TABLE and information_schema name for Cairn's tables: NDB's, whose
/// behaviour Cairn's tables share (partitioned, READ COMMITTED, no gap locks; unlike NDB, a
/// failed statement is undone alone, as in InnoDB); see docs/sql.md.
pub const ENGINE: &str = "ndbcluster";

/// MariaDB's type text for DESCRIBE, SHOW COLUMNS, SHOW CREATE TABLE and COLUMN_TYPE: MySQL 8's
/// spelling with the display widths MariaDB still prints.
pub fn type_text(ty: ColumnType) -> String {
    let (name, width, unsigned) = match ty {
        ColumnType::TinyInt { unsigned } => ("tinyint", 4, unsigned),
        ColumnType::SmallInt { unsigned } => ("smallint", 6, unsigned),
        ColumnType::MediumInt { unsigned } => ("mediumint", 9, unsigned),
        ColumnType::Int { unsigned } => ("int", 11, unsigned),
        // BIGINT UNSIGNED keeps width 20: its largest value has 20 digits.
        ColumnType::BigInt { unsigned } => ("bigint", 20 + unsigned as u32, unsigned),
        ColumnType::Year => return "year(4)".into(),
        other => return other.sql_name(),
    };
    if unsigned {
        format!("{name}({}) unsigned", width - 1)
    } else {
        format!("{name}({width})")
    }
}

/// A column's type text: [`type_text`] with the display width it was declared with (BOOL's
/// `tinyint(1)`) and ZEROFILL, as MariaDB shows them.
pub fn column_type_text(c: &base::schema::ColumnDef) -> String {
    if let Some(g) = c.geometry {
        return g.kind.sql_name();
    }
    if matches!(c.ty, ColumnType::Enum | ColumnType::Set) {
        let members: Vec<String> = c.members.iter().map(|m| quoted(m)).collect();
        return format!("{}({})", c.ty.sql_name(), members.join(","));
    }
    if let (Some(d), ColumnType::Float | ColumnType::Double) = (c.scale, c.ty) {
        return format!("{}({},{d})", c.ty.sql_name(), c.display_width);
    }
    let text = type_text(c.ty);
    let text = match (c.display_width, text.find('(')) {
        (0, _) | (_, None) => text,
        (width, Some(open)) => match text[open..].find(')') {
            Some(close) => format!("{}({width}{}", &text[..open], &text[open + close..]),
            None => text,
        },
    };
    if c.zerofill {
        format!("{text} zerofill")
    } else {
        text
    }
}

/// DESCRIBE's Key column for column `p`: PRI, UNI (the one column of a unique index), MUL (the
/// first column of another index) or empty.
pub fn column_key(def: &TableDef, p: usize) -> &'static str {
    let p = p as u16;
    if def.primary_key.contains(&p) && !def.has_hidden_pk() {
        "PRI"
    } else if def
        .indexes
        .iter()
        .any(|i| i.kind == IndexKind::Unique && i.columns.len() == 1 && i.columns[0] == p)
    {
        "UNI"
    } else if def.indexes.iter().any(|i| i.columns.first() == Some(&p)) {
        "MUL"
    } else {
        ""
    }
}

/// A key as SHOW CREATE TABLE, SHOW INDEX and information_schema list it.
pub struct Key<'a> {
    pub name: &'a str,
    pub unique: bool,
    pub columns: &'a [u16],
    /// Per column, the prefix the key holds (0: whole), or empty.
    pub prefixes: &'a [u32],
}

impl Key<'_> {
    /// The prefix the key holds of its `i`-th column, None for the whole column.
    pub fn prefix(&self, i: usize) -> Option<u32> {
        self.prefixes.get(i).copied().filter(|p| *p > 0)
    }
}

/// The table's keys in MariaDB's order: PRIMARY, unique keys over NOT NULL columns, the other
/// unique keys (whole-column ones before those holding prefixes, in each of the two), then the
/// rest, each group in the order declared. The ordered index every declared primary key also
/// gets (named PRIMARY) is the primary key itself. Inserts probe unique keys in this order too.
pub fn keys(def: &TableDef) -> Vec<Key<'_>> {
    let mut keys = Vec::with_capacity(def.indexes.len() + 1);
    if !def.has_hidden_pk() {
        keys.push(Key {
            name: PRIMARY,
            unique: true,
            columns: &def.primary_key,
            prefixes: &[],
        });
    }
    for at in def.secondary_keys_in_mysql_order() {
        let index = &def.indexes[at];
        keys.push(Key {
            name: &index.name,
            unique: index.kind == IndexKind::Unique,
            columns: &index.columns,
            prefixes: &index.prefixes,
        });
    }
    keys
}

/// A string as a quoted SQL literal, as SHOW CREATE TABLE writes defaults and comments: a
/// backslash, newline, carriage return and NUL escaped with a backslash, a quote doubled (as
/// MariaDB writes them; a tab stays as it is), so the text keeps to its lines.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            '\'' => out.push_str("''"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// The column's default as SHOW CREATE TABLE writes it after DEFAULT (and information_schema's
/// COLUMN_DEFAULT): numbers bare, other values quoted, `NULL` for a nullable column without
/// one; None when the column has no default.
pub fn default_text(column: &base::schema::ColumnDef) -> Option<String> {
    if let Some(text) = &column.default_expr {
        return Some(text.clone());
    }
    if let Some(fsp) = column.default_now {
        return Some(current_time_text(fsp));
    }
    match &column.default {
        None | Some(Value::Null) if column.nullable && !column.auto_increment => {
            Some("NULL".into())
        }
        None | Some(Value::Null) => None,
        // An ENUM's or SET's default is its names.
        Some(v @ Value::UInt(_)) if matches!(column.ty, ColumnType::Enum | ColumnType::Set) => {
            let names = base::text::member_text(column, v).unwrap_or_default();
            Some(quoted(&String::from_utf8_lossy(&names)))
        }
        // A BIT's default as MariaDB writes it: b'101'.
        Some(Value::UInt(n)) if matches!(column.ty, ColumnType::Bit { .. }) => {
            Some(format!("b'{n:b}'"))
        }
        // FLOAT(M,D) and DOUBLE(M,D) write D digits after the point: 0.000000.
        Some(Value::Double(f)) if column.scale.is_some() => {
            Some(format!("{f:.*}", usize::from(column.scale.unwrap_or(0))))
        }
        Some(Value::Float(f)) if column.scale.is_some() => {
            Some(format!("{f:.*}", usize::from(column.scale.unwrap_or(0))))
        }
        Some(v) => {
            let text = String::from_utf8_lossy(&default_value_text(column, v).unwrap_or_default())
                .into_owned();
            let numeric = column.ty.is_integer()
                || matches!(
                    column.ty,
                    ColumnType::Float
                        | ColumnType::Double
                        | ColumnType::Decimal { .. }
                        | ColumnType::Year
                );
            Some(if numeric { text } else { quoted(&text) })
        }
    }
}

/// A default value's text: a time with the column's fraction digits, as MariaDB shows it.
pub(crate) fn default_value_text(column: &base::schema::ColumnDef, v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::DateTime(_) | Value::Time(_) => v.to_text(column.ty),
        v => base::text::value_text(v),
    }
}

/// CURRENT_TIMESTAMP with `fsp` fraction digits, as MySQL 8.0 (the version Cairn announces,
/// and NDB's) shows it in a column's DEFAULT or ON UPDATE; MariaDB writes
/// `current_timestamp()`, which tools reading either (SQLAlchemy's reflection) take for the
/// same.
fn current_time_text(fsp: u8) -> String {
    if fsp == 0 {
        "CURRENT_TIMESTAMP".into()
    } else {
        format!("CURRENT_TIMESTAMP({fsp})")
    }
}

/// The column's ON UPDATE clause, as SHOW CREATE TABLE writes it after ON UPDATE.
fn on_update_text(column: &base::schema::ColumnDef) -> Option<String> {
    let fsp = column.ty.datetime_digits().unwrap_or(0);
    column.on_update_now.then(|| current_time_text(fsp))
}

/// The column's Extra, as DESCRIBE and information_schema.COLUMNS.EXTRA show it.
pub fn extra_text(column: &base::schema::ColumnDef) -> String {
    if let Some(g) = &column.generated {
        (if g.stored {
            "STORED GENERATED"
        } else {
            "VIRTUAL GENERATED"
        })
        .into()
    } else if column.auto_increment {
        "auto_increment".into()
    } else if let Some(clause) = on_update_text(column) {
        format!("on update {clause}")
    } else {
        String::new()
    }
}

/// A name quoted with backticks.
pub fn backticked(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// The table's default collation (for its new string columns and SHOW CREATE TABLE).
pub fn table_collation(def: &TableDef) -> Collation {
    def.options.collation.unwrap_or(Collation::Utf8mb4GeneralCi)
}

/// A string column's character set and collation when SHOW CREATE TABLE must name them: the
/// collation differs from the table's.
fn collation_text(column: &base::schema::ColumnDef, table: Collation) -> Option<String> {
    let textual = column.ty.is_string() && column.collation != Collation::Binary;
    if !textual || column.collation == table {
        return None;
    }
    Some(format!(
        " CHARACTER SET {} COLLATE {}",
        column.collation.charset().name(),
        column.collation.name()
    ))
}

/// The table options SHOW CREATE TABLE ends with: charset and collation, then the comment as
/// given, or (for a table made without one) NDB's comment form of the options that are on.
fn options_text(def: &TableDef) -> String {
    let collation = table_collation(def);
    let mut text = if collation == Collation::Binary {
        " DEFAULT CHARSET=binary".to_string()
    } else {
        format!(
            " DEFAULT CHARSET={} COLLATE={}",
            collation.charset().name(),
            collation.name()
        )
    };
    if !def.comment.is_empty() {
        text.push_str(&format!(" COMMENT={}", quoted(&def.comment)));
        return text;
    }
    // A table made through the native API with options and no comment.
    let o = &def.options;
    let ndb: Vec<&str> = [
        (o.read_backup, "READ_BACKUP=1"),
        (o.fully_replicated, "FULLY_REPLICATED=1"),
        (o.nologging, "NOLOGGING=1"),
    ]
    .into_iter()
    .filter_map(|(on, name)| on.then_some(name))
    .collect();
    if !ndb.is_empty() {
        text.push_str(&format!(" COMMENT='NDB_TABLE={}'", ndb.join(",")));
    }
    text
}

/// The PARTITION BY clause SHOW CREATE TABLE ends with, in MariaDB's layout: printed when the
/// table is not partitioned as by default (on its whole primary key, one partition per worker
/// of the data node, `default_partitions`).
fn partition_text(def: &TableDef, default_partitions: u32) -> String {
    if def.partition_key == def.primary_key && def.partition_count == default_partitions {
        return String::new();
    }
    let columns: Vec<String> = if def.partition_key == def.primary_key {
        Vec::new()
    } else {
        def.partition_key
            .iter()
            .map(|c| backticked(&def.columns[*c as usize].name))
            .collect()
    };
    format!(
        "\n PARTITION BY KEY ({})\nPARTITIONS {}",
        columns.join(","),
        def.partition_count
    )
}

/// SHOW CREATE TABLE's text for table `name`; `auto_increment` is the next AUTO_INCREMENT value
/// (shown when above 1, as MariaDB does); `default_partitions` the partitions a table gets when
/// its CREATE TABLE names none.
pub fn create_table(
    def: &TableDef,
    name: &str,
    auto_increment: Option<u64>,
    default_partitions: u32,
) -> String {
    let mut lines = Vec::new();
    let collation = table_collation(def);
    for (at, c) in def.columns.iter().enumerate().filter(|(_, c)| !c.hidden) {
        let mut line = format!("  {} {}", backticked(&c.name), column_type_text(c));
        if let Some(text) = collation_text(c, collation) {
            line.push_str(&text);
        }
        if let Some(g) = &c.generated {
            let kind = if g.stored { "STORED" } else { "VIRTUAL" };
            line.push_str(&format!(" GENERATED ALWAYS AS ({}) {kind}", g.expr));
            if !c.nullable {
                line.push_str(" NOT NULL");
            }
        } else if !c.nullable {
            line.push_str(" NOT NULL");
        } else if matches!(c.ty, ColumnType::Timestamp { .. }) {
            line.push_str(" NULL");
        }
        if let Some(d) = default_text(c).filter(|_| c.generated.is_none()) {
            line.push_str(" DEFAULT ");
            line.push_str(&d);
        }
        // MySQL 8's SRID attribute, in its versioned comment (MariaDB skips it).
        if let Some(srid) = c.geometry.and_then(|g| g.srid) {
            line.push_str(&format!(" /*!80003 SRID {srid} */"));
        }
        if let Some(clause) = on_update_text(c) {
            line.push_str(" ON UPDATE ");
            line.push_str(&clause);
        }
        if c.auto_increment {
            line.push_str(" AUTO_INCREMENT");
        }
        if !c.comment.is_empty() {
            line.push_str(" COMMENT ");
            line.push_str(&quoted(&c.comment));
        }
        if c.json {
            line.push_str(&format!(" CHECK (json_valid({}))", backticked(&c.name)));
        }
        for check in def.checks.iter().filter(|k| k.column == Some(at as u16)) {
            line.push_str(&format!(" CHECK ({})", check.expr));
        }
        lines.push(line);
    }
    for key in keys(def) {
        let columns: Vec<String> = key
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let name = backticked(&def.columns[*c as usize].name);
                match key.prefix(i) {
                    Some(n) => format!("{name}({n})"),
                    None => name,
                }
            })
            .collect();
        let columns = columns.join(",");
        lines.push(if key.name == PRIMARY {
            format!("  PRIMARY KEY ({columns})")
        } else if key.unique {
            format!("  UNIQUE KEY {} ({columns})", backticked(key.name))
        } else {
            format!("  KEY {} ({columns})", backticked(key.name))
        });
    }
    for fk in &def.foreign_keys {
        lines.push(format!(
            "  {}",
            crate::catalog::foreign::constraint_text(def, fk, false)
        ));
    }
    for check in def.checks.iter().filter(|k| k.column.is_none()) {
        lines.push(format!(
            "  CONSTRAINT {} CHECK ({})",
            backticked(&check.name),
            check.expr
        ));
    }
    let counter = match auto_increment {
        Some(n) if n > 1 => format!(" AUTO_INCREMENT={n}"),
        _ => String::new(),
    };
    let temporary = if def.name.starts_with(base::schema::TEMPORARY_TABLE_PREFIX) {
        "TEMPORARY "
    } else {
        ""
    };
    format!(
        "CREATE {temporary}TABLE {} (\n{}\n) ENGINE={ENGINE}{counter}{}{}",
        backticked(name),
        lines.join(",\n"),
        options_text(def),
        partition_text(def, default_partitions)
    )
}

/// The name of the ordered index every table with a declared primary key gets over it.
pub const PRIMARY: &str = "PRIMARY";

#[cfg(test)]
mod tests {
    use super::*;
    use base::schema::ColumnDef;

    #[test]
    fn create_table_text_matches_mariadb() {
        let columns = vec![
            ColumnDef::new("id", ColumnType::BigInt { unsigned: true }).auto_increment(),
            ColumnDef::new("email", ColumnType::VarChar { length: 60 }),
            ColumnDef::new("note", ColumnType::VarChar { length: 20 })
                .nullable()
                .default(Value::Bytes(b"it's a\\b".to_vec())),
            ColumnDef::new("v", ColumnType::Int { unsigned: false }).default(Value::Int(0)),
            ColumnDef::new("age", ColumnType::SmallInt { unsigned: false }).nullable(),
        ];
        let def = TableDef::new("d/t", columns, &["id"])
            .and_then(|d| d.with_index(PRIMARY, IndexKind::Ordered, &["id"]))
            .and_then(|d| d.with_index("iage", IndexKind::Ordered, &["age"]))
            .and_then(|d| d.with_index("uemail", IndexKind::Unique, &["email"]))
            .expect("a valid definition");
        assert_eq!(
            create_table(&def, "t", Some(4), 0),
            "CREATE TABLE `t` (\n  `id` bigint(20) unsigned NOT NULL AUTO_INCREMENT,\n  \
             `email` varchar(60) NOT NULL,\n  `note` varchar(20) DEFAULT 'it''s a\\\\b',\n  \
             `v` int(11) NOT NULL DEFAULT 0,\n  `age` smallint(6) DEFAULT NULL,\n  \
             PRIMARY KEY (`id`),\n  UNIQUE KEY `uemail` (`email`),\n  KEY `iage` (`age`)\n\
             ) ENGINE=ndbcluster AUTO_INCREMENT=4 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci"
        );
    }
}
