//! A first program against Cairn's native client library: create a table, insert a batch in one
//! round trip, read by primary key and by unique key, scan an ordered index with a pushed filter,
//! and keep many transactions in flight from one thread.
//!
//! Start a cluster with `cairn start`, then: `cargo run -p client --example quickstart [address]`.

use std::time::Duration;

use base::schema::{ColumnDef, IndexKind};
use base::types::ColumnType;
use client::{
    AsyncSession, Cluster, CmpOp, ExecType, Filter, LockMode, OpKind, Operation, Scan, ScanOrder,
    TableDef, Value,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let address = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:2202".into());
    let cluster = Cluster::connect(&address)?;

    let _ = cluster.drop_table("quickstart_users");
    let def = TableDef::new(
        "quickstart_users",
        vec![
            ColumnDef::new("id", ColumnType::BigInt { unsigned: true }).auto_increment(),
            ColumnDef::new("email", ColumnType::VarChar { length: 100 }),
            ColumnDef::new("age", ColumnType::Int { unsigned: false }).nullable(),
        ],
        &["id"],
    )?
    .with_index("email", IndexKind::Unique, &["email"])?
    .with_index("age", IndexKind::Ordered, &["age"])?;
    let users = cluster.create_table(def)?;

    // One round trip inserts three rows; AUTO_INCREMENT assigns the ids.
    let mut txn = cluster.transaction();
    for (email, age) in [
        ("ada@example.com", 36),
        ("alan@example.com", 41),
        ("grace@example.com", 85),
    ] {
        txn.insert(
            &users,
            users.values(&[("email", email.into()), ("age", age.into())])?,
        );
    }
    txn.commit()?;

    // Read by primary key and by unique key (case-insensitive) in one batch.
    let email = users.unique_index("email")?;
    let mut txn = cluster.transaction();
    let first = txn.read(&users, vec![Value::UInt(1)]);
    let grace = txn.read_unique(
        &users,
        email,
        vec!["GRACE@example.com".into()],
        LockMode::CommittedRead,
        vec![],
    );
    txn.execute(ExecType::Commit)?;
    println!("id 1: {}", show(txn.row(first)));
    println!("grace: {}", show(txn.row(grace)));

    // Ordered-index range scan with a filter evaluated inside the data node.
    let age = users.column("age")?;
    let scan = Scan::index("age")
        .from(vec![30.into()], true)
        .to(vec![90.into()], false)
        .filter(Filter::Cmp {
            column: age,
            op: CmpOp::Ne,
            value: 41.into(),
        })
        .columns(&["email", "age"])
        .order(ScanOrder::Descending);
    for row in cluster.scan(&users, &scan)? {
        println!("scan: {}", show(Some(&row)));
    }

    // Many transactions in flight from one thread (NDB's executeAsynchPrepare / pollNdb).
    let mut session = AsyncSession::new(&cluster);
    for i in 0..100u64 {
        let op = Operation {
            kind: OpKind::Insert,
            table: users.id(),
            version: users.version(),
            index: None,
            key: vec![],
            values: users.values(&[("email", format!("user{i}@example.com").into())])?,
            projection: vec![],
        };
        session.prepare(i, vec![op], ExecType::Commit)?;
    }
    session.send()?;
    let mut done = 0;
    while done < 100 {
        for (_, result) in session.poll(1, Duration::from_secs(5))? {
            result?;
            done += 1;
        }
    }
    let status = cluster.status()?;
    println!(
        "inserted {done} rows asynchronously; the node holds {} rows in {} tables",
        status.row_count, status.table_count
    );
    cluster.drop_table("quickstart_users")?;
    Ok(())
}

fn show(row: Option<&[Value]>) -> String {
    match row {
        None => "not found".into(),
        Some(values) => values
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(", "),
    }
}
