//! Constraints as a table's definition holds them beside its keys: foreign keys (the child's
//! columns, the parent table and columns they reference, by name as InnoDB keeps them, so a
//! parent may be created after its child or dropped and created again, and the actions on the
//! parent's deletes and updates) and CHECK constraints (their expressions as SQL text). The data
//! node only keeps them; the API node's SQL front end enforces them.

use crate::error::{Error, ErrorCode, Result};
use crate::limits;

/// What happens to child rows when the parent row they reference is deleted or its referenced
/// columns change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReferenceAction {
    /// Refused while a child row references it (the default; InnoDB checks at once).
    #[default]
    Restrict,
    /// As RESTRICT (InnoDB checks NO ACTION at once too); shown as declared.
    NoAction,
    /// The child rows are deleted, or take the parent's new values.
    Cascade,
    /// The child rows' referencing columns become NULL.
    SetNull,
}

impl ReferenceAction {
    pub fn to_u8(self) -> u8 {
        match self {
            ReferenceAction::Restrict => 0,
            ReferenceAction::NoAction => 1,
            ReferenceAction::Cascade => 2,
            ReferenceAction::SetNull => 3,
        }
    }

    pub fn from_u8(tag: u8) -> Option<ReferenceAction> {
        Some(match tag {
            0 => ReferenceAction::Restrict,
            1 => ReferenceAction::NoAction,
            2 => ReferenceAction::Cascade,
            3 => ReferenceAction::SetNull,
            _ => return None,
        })
    }

    /// SQL's spelling: `RESTRICT`, `NO ACTION`, `CASCADE`, `SET NULL`.
    pub fn sql_name(self) -> &'static str {
        match self {
            ReferenceAction::Restrict => "RESTRICT",
            ReferenceAction::NoAction => "NO ACTION",
            ReferenceAction::Cascade => "CASCADE",
            ReferenceAction::SetNull => "SET NULL",
        }
    }
}

/// One foreign key of a (child) table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForeignKeyDef {
    /// The constraint's name (MariaDB's `<table>_ibfk_<n>` when not given), unique per
    /// database in MariaDB; Cairn checks it per table.
    pub name: String,
    /// Positions of the referencing columns in the child table.
    pub columns: Vec<u16>,
    /// The referenced table's catalog name (`database/table`).
    pub parent: String,
    /// The referenced columns' names, one per referencing column.
    pub parent_columns: Vec<String>,
    pub on_delete: ReferenceAction,
    pub on_update: ReferenceAction,
    /// Whether each action was declared (SHOW CREATE TABLE prints only those, RESTRICT never).
    pub declared: (bool, bool),
}

impl ForeignKeyDef {
    /// The positions of the referenced columns in `parent` (its definition now), None when one
    /// is not there.
    pub fn parent_positions(&self, parent: &crate::TableDef) -> Option<Vec<u16>> {
        self.parent_columns
            .iter()
            .map(|n| parent.column(n).map(|p| p as u16))
            .collect()
    }

    /// Checks the key's shape against its table's column count: names and counts within
    /// their limits, each column once.
    pub fn validate(&self, table_columns: usize) -> Result<()> {
        let bad = |m: String| Err(Error::new(ErrorCode::BadSchema, m));
        if self.name.is_empty() || self.name.len() > limits::WIRE_NAME_BYTES_MAX {
            return bad(format!(
                "a foreign key's name has 1..={} bytes",
                limits::WIRE_NAME_BYTES_MAX
            ));
        }
        if self.columns.is_empty()
            || self.columns.len() > limits::KEY_COLUMNS_MAX
            || self.columns.len() != self.parent_columns.len()
        {
            return bad(format!(
                "foreign key '{}' has 1..={} columns, as many as it references",
                self.name,
                limits::KEY_COLUMNS_MAX
            ));
        }
        for (i, c) in self.columns.iter().enumerate() {
            if *c as usize >= table_columns || self.columns[..i].contains(c) {
                return bad(format!(
                    "foreign key '{}' names column {c} twice or past the table's columns",
                    self.name
                ));
            }
        }
        if self.parent.is_empty()
            || self.parent.len() > limits::WIRE_NAME_BYTES_MAX
            || self
                .parent_columns
                .iter()
                .any(|c| c.is_empty() || c.len() > limits::WIRE_NAME_BYTES_MAX)
        {
            return bad(format!(
                "foreign key '{}' references a table or column whose name has 1..={} bytes",
                self.name,
                limits::WIRE_NAME_BYTES_MAX
            ));
        }
        Ok(())
    }
}

/// One CHECK constraint: a condition every row written must not make false.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckDef {
    /// The constraint's name: given, `CONSTRAINT_<n>` for a table's unnamed one, or the
    /// column's name for a column's (as MariaDB names them).
    pub name: String,
    /// The condition as SQL text, in MariaDB's spelling (SHOW CREATE TABLE prints it).
    pub expr: String,
    /// Set for a column's own constraint (declared with the column, shown with it): the
    /// column's position.
    pub column: Option<u16>,
}

impl CheckDef {
    /// Checks the name and text against their limits and the column against the table's.
    pub fn validate(&self, table_columns: usize) -> Result<()> {
        let bad = |m: String| Err(Error::new(ErrorCode::BadSchema, m));
        if self.name.is_empty() || self.name.len() > limits::WIRE_NAME_BYTES_MAX {
            return bad(format!(
                "a CHECK constraint's name has 1..={} bytes",
                limits::WIRE_NAME_BYTES_MAX
            ));
        }
        if self.expr.is_empty() || self.expr.len() > limits::CHECK_TEXT_BYTES_MAX {
            return bad(format!(
                "CHECK constraint '{}' has a condition of 1..={} bytes",
                self.name,
                limits::CHECK_TEXT_BYTES_MAX
            ));
        }
        if self.column.is_some_and(|c| c as usize >= table_columns) {
            return bad(format!(
                "CHECK constraint '{}' names a column past the table's",
                self.name
            ));
        }
        Ok(())
    }
}
