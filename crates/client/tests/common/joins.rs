//! The tables pushed-join tests share (`pushed_joins.rs`, `pushed_join_cases.rs`) and small
//! helpers over their rows.

use base::schema::{ColumnDef, IndexKind};
use base::types::ColumnType;
use client::{CmpOp, Filter, TableDef, Value};

/// The three tables' positions in [`defs`].
pub const PARENT: usize = 0;
pub const CHILD: usize = 1;
pub const GRAND: usize = 2;

/// parent(id BIGINT, a INT NULL, v VARCHAR), child(id BIGINT, pid BIGINT NULL, b INT) and
/// grand(id INT, cid BIGINT, w INT), each with ordered indexes to join by, over 7 partitions.
pub fn defs() -> [TableDef; 3] {
    let big = || ColumnType::BigInt { unsigned: false };
    let int = || ColumnType::Int { unsigned: false };
    let spread = |mut def: TableDef| {
        def.partition_count = 7;
        def
    };
    let parent = TableDef::new(
        "parent",
        vec![
            ColumnDef::new("id", big()),
            ColumnDef::new("a", int()).nullable(),
            ColumnDef::new("v", ColumnType::VarChar { length: 20 }),
        ],
        &["id"],
    )
    .unwrap()
    .with_index("pk", IndexKind::Ordered, &["id"])
    .unwrap()
    .with_index("by_a", IndexKind::Ordered, &["a"])
    .unwrap();
    let child = TableDef::new(
        "child",
        vec![
            ColumnDef::new("id", big()),
            ColumnDef::new("pid", big()).nullable(),
            ColumnDef::new("b", int()),
        ],
        &["id"],
    )
    .unwrap()
    .with_index("pk", IndexKind::Ordered, &["id"])
    .unwrap()
    .with_index("by_pid", IndexKind::Ordered, &["pid"])
    .unwrap();
    let grand = TableDef::new(
        "grand",
        vec![
            ColumnDef::new("id", int()),
            ColumnDef::new("cid", big()),
            ColumnDef::new("w", int()),
        ],
        &["id"],
    )
    .unwrap()
    .with_index("by_cid", IndexKind::Ordered, &["cid"])
    .unwrap()
    .with_index("by_cid_w", IndexKind::Ordered, &["cid", "w"])
    .unwrap();
    [spread(parent), spread(child), spread(grand)]
}

/// How a child joins (`JoinChild::outer`, `semi`, `anti`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Inner,
    Outer,
    Semi,
    Anti,
}

impl Kind {
    /// Whether the child adds its columns to the joined row (a semi or anti child adds none).
    pub fn adds_columns(self) -> bool {
        matches!(self, Kind::Inner | Kind::Outer)
    }
}

pub fn as_int(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::Null => None,
        other => panic!("not an integer: {other:?}"),
    }
}

/// A filter no row passes (every table's column 0 is a non-negative id).
pub fn nothing() -> Filter {
    Filter::Cmp {
        column: 0,
        op: CmpOp::Lt,
        value: Value::Int(0),
    }
}
