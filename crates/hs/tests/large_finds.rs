//! Finds on PRIMARY (hashed, so ordered in the front end) over a table of many scan batches:
//! ranges in both directions, with limits and offsets, answered as the plugin orders them while
//! the front end keeps only the rows the find can return (read a batch at a time); and requests
//! that take long (a write waiting on a lock) beside batched lookups on the same loop.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use base::schema::ColumnDef;
use base::types::ColumnType;
use base::Value;
use client::{Cluster, ExecType, LockMode, TableDef};
use datanode::{DataNode, DataNodeConfig};

const ROWS: i64 = 20_000;

fn ask(stream: &mut TcpStream, request: &str) -> String {
    stream.write_all(request.as_bytes()).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 65536];
    while !got.ends_with(b"\n") {
        let n = stream.read(&mut buf).expect("an answer");
        assert!(n > 0, "closed");
        got.extend_from_slice(&buf[..n]);
    }
    String::from_utf8(got).unwrap()
}

/// The answer line of a find returning rows with these ids (v is id * 3).
fn answer(ids: impl Iterator<Item = i64>) -> String {
    let mut line = "0\t2".to_string();
    for id in ids {
        line.push_str(&format!("\t{id}\t{}", id * 3));
    }
    line.push('\n');
    line
}

/// Table `d/NAME (id INT PRIMARY KEY, v INT)`, and a client of `node`.
fn id_v_table(node: &DataNode, name: &str) -> (Cluster, client::Table) {
    let cluster = Cluster::connect(&node.address().to_string()).unwrap();
    cluster.create_database("d").unwrap();
    let columns = vec![
        ColumnDef::new("id", ColumnType::Int { unsigned: false }),
        ColumnDef::new("v", ColumnType::Int { unsigned: false }),
    ];
    let def = TableDef::new(&format!("d/{name}"), columns, &["id"]).unwrap();
    let table = cluster.create_table(def).unwrap();
    (cluster, table)
}

#[test]
fn primary_key_ranges_over_many_batches() {
    let node = common::start_node();
    let (cluster, t) = id_v_table(&node, "big");
    for chunk in (0..ROWS).step_by(1000) {
        let mut txn = cluster.transaction();
        for id in chunk..chunk + 1000 {
            txn.insert(&t, vec![(0, Value::Int(id)), (1, Value::Int(id * 3))]);
        }
        txn.commit().unwrap();
    }
    let hs = common::start_front(&node, b"", b"");
    let mut c = TcpStream::connect(hs.read_address()).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    assert_eq!(ask(&mut c, "P\t0\td\tbig\tPRIMARY\tid,v\n"), "0\t1\n");
    for (request, ids) in [
        ("0\t>=\t1\t19990\t5\t0\n", answer(19990..19995)),
        ("0\t>\t1\t19990\t50\t0\n", answer(19991..ROWS)),
        ("0\t<\t1\t100\t3\t2\n", answer((95..98).rev())),
        ("0\t<=\t1\t15000\t7000\t1000\n", answer((7001..14001).rev())),
        ("0\t>\t1\t4999\t10000\t0\n", answer(5000..15000)),
        ("0\t>=\t1\t-5\t3\t19998\n", answer(19998..ROWS)),
    ] {
        assert!(ask(&mut c, request) == ids, "request {request:?}");
    }
    hs.stop();
    node.stop();
}

/// A request that is not batched runs beside its event loop, not on it: while a modify waits
/// for a row another transaction holds locked, a key lookup of another connection on the same
/// (only) loop is answered, and the modify is answered once the lock goes. Run on the loop,
/// the modify would hold the lookup until the lock wait timed out (two minutes here).
#[test]
fn a_write_waiting_on_a_lock_does_not_hold_up_lookups_on_its_loop() {
    let node = DataNode::start(DataNodeConfig {
        listen: "127.0.0.1:0".into(),
        workers: 2,
        lock_wait_timeout: Duration::from_secs(120),
        ..DataNodeConfig::default()
    })
    .unwrap();
    let (cluster, t) = id_v_table(&node, "w");
    let mut txn = cluster.transaction();
    for id in 0..10 {
        txn.insert(&t, vec![(0, Value::Int(id)), (1, Value::Int(id * 3))]);
    }
    txn.commit().unwrap();
    let hs = common::start_front(&node, b"", b"");

    // Another transaction holds row 1 locked.
    let mut holder = cluster.transaction();
    holder.read_with(&t, vec![Value::Int(1)], LockMode::Exclusive, Vec::new());
    holder.execute(ExecType::NoCommit).unwrap();

    let mut writer = TcpStream::connect(hs.write_address()).unwrap();
    writer
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    assert_eq!(ask(&mut writer, "P\t1\td\tw\tPRIMARY\tid,v\n"), "0\t1\n");
    writer.write_all(b"1\t=\t1\t1\t1\t0\tU\t1\t99\n").unwrap();

    let mut reader = TcpStream::connect(hs.read_address()).unwrap();
    reader
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    assert_eq!(ask(&mut reader, "P\t0\td\tw\tPRIMARY\tid,v\n"), "0\t1\n");
    assert_eq!(ask(&mut reader, "0\t=\t1\t2\n"), "0\t2\t2\t6\n");
    assert_eq!(ask(&mut reader, "0\t=\t1\t1\n"), "0\t2\t1\t3\n");

    // The modify still waits: nothing has come for it.
    writer.set_nonblocking(true).unwrap();
    let mut buf = [0u8; 64];
    let early = writer.read(&mut buf);
    assert!(
        matches!(&early, Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "the modify answered while the row was locked: {early:?}"
    );
    writer.set_nonblocking(false).unwrap();

    // More than the loop queues behind a request that is out (three lines of 3 MiB, then a
    // find): when they arrive before the lock goes, it stops reading this connection and must
    // read the rest once the modify is done; either way every line is answered, in order.
    let mut more = writer.try_clone().unwrap();
    let sending = std::thread::spawn(move || {
        let big = format!("1\t=\t1\t{}\n", "7".repeat(3 << 20));
        for _ in 0..3 {
            more.write_all(big.as_bytes()).unwrap();
        }
        more.write_all(b"1\t=\t1\t1\n").unwrap();
    });

    holder.rollback().unwrap();
    let mut got = Vec::new();
    while got.iter().filter(|&&b| b == b'\n').count() < 5 {
        let n = writer.read(&mut buf).expect("the answers");
        assert!(n > 0, "closed");
        got.extend_from_slice(&buf[..n]);
    }
    sending.join().unwrap();
    let got = String::from_utf8(got).unwrap();
    let answers: Vec<&str> = got.lines().collect();
    assert_eq!(answers.len(), 5, "{answers:?}");
    assert_eq!(answers[0], "0\t1\t1", "the modify");
    assert_eq!(answers[4], "0\t2\t1\t99", "the find after the big lines");
    assert_eq!(ask(&mut reader, "0\t=\t1\t1\n"), "0\t2\t1\t99\n");
    hs.stop();
    node.stop();
}
