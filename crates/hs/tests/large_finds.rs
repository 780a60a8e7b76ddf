//! Finds on PRIMARY (hashed, so ordered in the front end) over a table of many scan batches:
//! ranges in both directions, with limits and offsets, answered as the plugin orders them while
//! the front end keeps only the rows the find can return (read a batch at a time).

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use base::schema::ColumnDef;
use base::types::ColumnType;
use base::Value;
use client::{Cluster, TableDef};

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

#[test]
fn primary_key_ranges_over_many_batches() {
    let node = common::start_node();
    let cluster = Cluster::connect(&node.address().to_string()).unwrap();
    cluster.create_database("d").unwrap();
    let t = cluster
        .create_table(
            TableDef::new(
                "d/big",
                vec![
                    ColumnDef::new("id", ColumnType::Int { unsigned: false }),
                    ColumnDef::new("v", ColumnType::Int { unsigned: false }),
                ],
                &["id"],
            )
            .unwrap(),
        )
        .unwrap();
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
