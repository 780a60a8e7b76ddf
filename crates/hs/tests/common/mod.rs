//! Test support shared by the HandlerSocket suites: the reference table of the protocol notes.

use base::schema::{ColumnDef, IndexKind};
use base::types::ColumnType;
use client::TableDef;

/// `t1 (k VARCHAR(30) PRIMARY KEY, v VARCHAR(30) NULL, n INT NULL, KEY iv (v))`.
pub fn t1() -> TableDef {
    TableDef::new(
        "t1",
        vec![
            ColumnDef::new("k", ColumnType::VarChar { length: 30 }),
            ColumnDef::new("v", ColumnType::VarChar { length: 30 }).nullable(),
            ColumnDef::new("n", ColumnType::Int { unsigned: false }).nullable(),
        ],
        &["k"],
    )
    .unwrap()
    .with_index("iv", IndexKind::Ordered, &["v"])
    .unwrap()
}
