//! The data memory limit (NDB's DataMemory) on a real `cairn start --data-memory 64M`: the native
//! client, SQL and HandlerSocket each write until refused with their own clear error (the native
//! `TableFull`, SQL's 1114, the plugin's 135); nothing committed is lost or changed; reads and
//! deletes go on; after deletes, inserts succeed again in all three; the resident memory stays
//! within the limit plus the process's fixed overhead; and a restart recovers exactly the
//! committed rows.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;

use base::schema::ColumnDef;
use base::types::ColumnType;
use client::{Cluster, ErrorCode, ExecType, Scan, TableDef, Value};

mod common;
use common::{mysql, resident_bytes, try_mysql};

/// What `cairn start` holds besides its data memory, measured with an empty node (binary,
/// threads, front ends, redo and allocator caches): the documented allowance.
const PROCESS_OVERHEAD_BYTES: u64 = 96 << 20;

const LIMIT_BYTES: u64 = 64 << 20;

fn value_of(k: i64) -> Vec<u8> {
    let mut v = vec![(k % 251) as u8; 1000];
    v[..8].copy_from_slice(&k.to_le_bytes());
    v
}

/// Inserts rows of 1,000 bytes from `from` until the node refuses even one: 100 per
/// transaction, then one by one; returns the first key not stored (every transaction before it
/// committed) and the error.
fn fill(cluster: &Cluster, table: &client::Table, from: i64) -> (i64, client::ClientError) {
    let mut next = from;
    let mut batch = 100;
    loop {
        let mut txn = cluster.transaction();
        for k in next..next + batch {
            txn.insert(table, vec![(0, k.into()), (1, Value::Bytes(value_of(k)))]);
        }
        match txn.execute(ExecType::Commit) {
            Ok(()) => next += batch,
            Err(e) if batch == 1 => return (next, e),
            Err(_) => batch = 1,
        }
        assert!(next < 10_000_000, "the limit never refused a write");
    }
}

/// Every row of `kv`, checked whole: the keys `keys` with their values, nothing else.
fn check_rows(cluster: &Cluster, keys: std::ops::Range<i64>) {
    let table = cluster.table("kv").unwrap();
    let mut rows: Vec<(i64, Vec<u8>)> = cluster
        .scan(&table, &Scan::table())
        .unwrap()
        .into_iter()
        .map(|r| match (&r[0], &r[1]) {
            (Value::Int(k), Value::Bytes(v)) => (*k, v.clone()),
            other => panic!("unexpected row {other:?}"),
        })
        .collect();
    rows.sort();
    let expected: Vec<i64> = keys.collect();
    assert_eq!(rows.len(), expected.len(), "row count");
    for ((k, v), want) in rows.iter().zip(&expected) {
        assert_eq!(k, want);
        assert!(*v == value_of(*k), "row {k} changed");
    }
}

/// One HandlerSocket insert into `d.t` on the write port: the plugin's answer line.
fn hs_insert(address: &str, id: i64) -> String {
    let mut s = TcpStream::connect(address).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let payload = "h".repeat(1000);
    write!(s, "P\t0\td\tt\tPRIMARY\tid,v\n0\t+\t2\t{id}\t{payload}\n").unwrap();
    let mut lines = BufReader::new(s).lines();
    assert_eq!(lines.next().unwrap().unwrap(), "0\t1", "open_index");
    lines.next().unwrap().unwrap()
}

fn start(dir: &std::path::Path, port: u16) -> common::Started {
    common::start_with(
        dir,
        port,
        &["--data-memory", "64M", "--api-transport", "tcp"],
    )
}

#[test]
fn writes_past_the_data_memory_are_refused_everywhere_and_nothing_is_lost() {
    let dir = common::fresh_dir("cairn-data-memory");
    let port = common::free_port();
    let node = start(&dir, port);
    assert!(
        node.output
            .iter()
            .any(|l| l == "data memory: 64 MiB (--data-memory)"),
        "the limit is shown at start: {:?}",
        node.output
    );
    let address = format!("127.0.0.1:{port}");
    let sql = node.listening("sql (mysql protocol): ").trim().to_string();
    let (_, hs_write) = node.hs_addresses();
    mysql(
        &sql,
        "CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY, v VARBINARY(1000))",
    );
    let cluster = Cluster::connect(&address).unwrap();
    let kv = cluster
        .create_table(
            TableDef::new(
                "kv",
                vec![
                    ColumnDef::new("k", ColumnType::BigInt { unsigned: false }),
                    ColumnDef::new("v", ColumnType::VarBinary { length: 1000 }),
                ],
                &["k"],
            )
            .unwrap(),
        )
        .unwrap();

    // Native: refused with TableFull naming the table; everything before it is there.
    let (end, e) = fill(&cluster, &kv, 0);
    assert_eq!(e.code(), ErrorCode::TableFull, "{e}");
    assert!(e.to_string().contains("'kv' is full"), "{e}");
    assert!(end > 40_000, "only {end} rows of 1 KB fit in 64 MiB");
    let resident = resident_bytes(node.child.id());
    let status = cluster.status().unwrap();
    eprintln!(
        "{end} rows stored: data memory {} of {} MiB, resident {} MiB",
        status.data_memory_bytes >> 20,
        status.data_memory_limit >> 20,
        resident >> 20,
    );
    assert_eq!(status.data_memory_limit, LIMIT_BYTES);
    assert!(status.data_memory_bytes <= LIMIT_BYTES);
    assert!(
        status.data_memory_bytes > LIMIT_BYTES - (1 << 20),
        "refused with {} bytes in use",
        status.data_memory_bytes
    );
    assert!(
        resident <= LIMIT_BYTES + PROCESS_OVERHEAD_BYTES,
        "resident {} MiB",
        resident >> 20
    );
    check_rows(&cluster, 0..end);
    // The scan came a batch at a time (the client gathered them): the node held a batch per
    // worker, not the rows.
    let scanned = resident_bytes(node.child.id());
    eprintln!("after scanning every row: resident {} MiB", scanned >> 20);
    assert!(
        scanned <= LIMIT_BYTES + PROCESS_OVERHEAD_BYTES,
        "resident {} MiB after a scan",
        scanned >> 20
    );

    // The node's data memory in SQL, as NDB's ndbinfo.memoryusage shows it.
    assert_eq!(
        mysql(
            &sql,
            "SELECT node_id, memory_type, used = total, total FROM ndbinfo.memoryusage"
        )
        .lines()
        .nth(1),
        Some(format!("1\tData memory\t0\t{LIMIT_BYTES}").as_str())
    );

    // SQL: 1114, and reads go on.
    let refused = try_mysql(&sql, "INSERT INTO d.t VALUES (1, REPEAT('s', 1000))").unwrap_err();
    assert!(
        refused.contains("ERROR 1114") && refused.contains("The table 't' is full"),
        "{refused}"
    );
    assert_eq!(mysql(&sql, "SELECT COUNT(*) FROM d.t"), "COUNT(*)\n0\n");
    // HandlerSocket: the plugin's 135.
    assert_eq!(hs_insert(&hs_write, 2), "1\t1\t135");

    // Deletes go on and make room; then all three write again.
    let mut txn = cluster.transaction();
    for k in end - 2_000..end {
        txn.delete(&kv, vec![k.into()]);
    }
    txn.execute(ExecType::Commit).unwrap();
    let kept = end - 2_000;
    mysql(&sql, "INSERT INTO d.t VALUES (1, REPEAT('s', 1000))");
    assert_eq!(hs_insert(&hs_write, 2), "0\t1");
    let mut txn = cluster.transaction();
    txn.insert(
        &kv,
        vec![(0, kept.into()), (1, Value::Bytes(value_of(kept)))],
    );
    txn.execute(ExecType::Commit).unwrap();
    check_rows(&cluster, 0..kept + 1);
    assert_eq!(
        mysql(&sql, "SELECT id, LENGTH(v) FROM d.t ORDER BY id"),
        "id\tLENGTH(v)\n1\t1000\n2\t1000\n"
    );

    // Memory per table: in the node's status, `admin status` and information_schema.TABLES.
    let status = cluster.status().unwrap();
    let of_kv = status.tables.iter().find(|t| t.id == kv.id()).unwrap();
    assert_eq!(of_kv.rows, kept as u64 + 1);
    assert!(
        of_kv.data_bytes > of_kv.rows * 1000 && of_kv.index_bytes > 0,
        "{of_kv:?}"
    );
    let used: u64 = status
        .tables
        .iter()
        .map(|t| t.data_bytes + t.index_bytes)
        .sum();
    assert!(used <= status.data_memory_bytes, "{status:?}");
    let admin = std::process::Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(["admin", "status", "--connect", &address])
        .output()
        .unwrap();
    let admin = String::from_utf8_lossy(&admin.stdout).to_string();
    let line = admin
        .lines()
        .find(|l| l.starts_with("kv "))
        .unwrap_or_else(|| panic!("no line for kv in: {admin}"));
    assert_eq!(
        line.split_whitespace().nth(1),
        Some((kept + 1).to_string().as_str()),
        "{line}"
    );
    let sizes = mysql(
        &sql,
        "SELECT TABLE_ROWS, DATA_LENGTH > 1000, INDEX_LENGTH > 0, DATA_FREE > 0, \
         DATA_FREE < 8 * 1024 * 1024, MAX_DATA_LENGTH FROM information_schema.TABLES \
         WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 't'",
    );
    assert_eq!(
        sizes.lines().nth(1),
        Some(format!("2\t1\t1\t1\t1\t{LIMIT_BYTES}").as_str()),
        "{sizes}"
    );

    // A restart recovers exactly the committed rows.
    drop(cluster);
    node.terminate();
    let node = start(&dir, port);
    let cluster = Cluster::connect(&address).unwrap();
    check_rows(&cluster, 0..kept + 1);
    let sql = node.listening("sql (mysql protocol): ").trim().to_string();
    assert_eq!(
        mysql(&sql, "SELECT id, LENGTH(v) FROM d.t ORDER BY id"),
        "id\tLENGTH(v)\n1\t1000\n2\t1000\n"
    );
    drop(cluster);
    node.terminate();
    let _ = std::fs::remove_dir_all(&dir);
}
