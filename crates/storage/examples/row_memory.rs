//! Prints resident bytes per row of the sysbench row shape in one partition, built directly.

use std::sync::Arc;

use base::schema::{ColumnDef, IndexKind, TableDef};
use base::types::ColumnType;
use base::Value;
use storage::Partition;

fn rss() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse().ok())
        .unwrap_or(0)
        * 4096
}

fn main() {
    let rows: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let with_index = std::env::args().nth(2).as_deref() != Some("noindex");
    let mut t = TableDef::new(
        "sbtest",
        vec![
            ColumnDef::new("id", ColumnType::BigInt { unsigned: false }),
            ColumnDef::new("k", ColumnType::Int { unsigned: false }),
            ColumnDef::new("c", ColumnType::Char { length: 120 }),
            ColumnDef::new("pad", ColumnType::Char { length: 60 }),
        ],
        &["id"],
    )
    .unwrap();
    if with_index {
        t = t.with_index("k_1", IndexKind::Ordered, &["k"]).unwrap();
    }
    t.validate().unwrap();
    let mut p = Partition::new(Arc::new(t));
    let c = "1".repeat(119);
    let pad = "2".repeat(59);
    let before = rss();
    for i in 0..rows {
        let row = p
            .layout()
            .encode(&[
                Value::Int(i as i64),
                Value::Int((i % 1_000_003) as i64),
                Value::from(c.as_str()),
                Value::from(pad.as_str()),
            ])
            .unwrap();
        p.insert(row).unwrap();
    }
    let after = rss();
    println!(
        "{} rows, index {with_index}: {:.1} bytes/row resident, {:.1} bytes/row of row images",
        rows,
        (after - before) as f64 / rows as f64,
        p.row_bytes() as f64 / rows as f64
    );
}
