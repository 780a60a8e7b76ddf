//! The reference transcripts of ../shared/reference/handlersocket.md, byte for byte, against the
//! front end serving an in-process data node: open_index, finds with every operator, limit and
//! offset, IN, filters, pipelining, errors, modify ops, inserts and auth.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use base::schema::ColumnDef;
use base::types::ColumnType;
use base::Value;
use client::{Cluster, TableDef};
use datanode::DataNode;
use hs::HsServer;

struct Setup {
    node: Option<DataNode>,
    hs: Option<HsServer>,
}

impl Drop for Setup {
    fn drop(&mut self) {
        if let Some(h) = self.hs.take() {
            h.stop();
        }
        if let Some(n) = self.node.take() {
            n.stop();
        }
    }
}

fn setup(write_secret: &[u8]) -> Setup {
    setup_loops(write_secret, 1)
}

fn setup_loops(write_secret: &[u8], loops: usize) -> Setup {
    let node = common::start_node();
    let cluster = Cluster::connect(&node.address().to_string()).unwrap();
    let t1 = common::t1();
    let t = cluster.create_table(t1).unwrap();
    let mut txn = cluster.transaction();
    for (k, v, n) in [
        ("k1", Some("v1"), 1),
        ("k2", Some("v2"), 2),
        ("k3", None, 3),
    ] {
        let v = v.map_or(Value::Null, Value::from);
        txn.insert(
            &t,
            t.values(&[("k", k.into()), ("v", v), ("n", Value::Int(n))])
                .unwrap(),
        );
    }
    txn.commit().unwrap();
    let auto = TableDef::new(
        "ai",
        vec![
            ColumnDef::new("id", ColumnType::BigInt { unsigned: true }).auto_increment(),
            ColumnDef::new("name", ColumnType::VarChar { length: 10 }),
        ],
        &["id"],
    )
    .unwrap();
    cluster.create_table(auto).unwrap();
    let hs = common::start_front_loops(&node, b"", write_secret, loops);
    Setup {
        node: Some(node),
        hs: Some(hs),
    }
}

/// Sends `request` (lines, each ended by LF) and reads as many answer lines.
fn ask(stream: &mut TcpStream, request: &[u8]) -> Vec<u8> {
    stream.write_all(request).unwrap();
    let want = request.iter().filter(|b| **b == b'\n').count();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while got.iter().filter(|b| **b == b'\n').count() < want {
        let n = stream.read(&mut buf).expect("an answer");
        assert!(n > 0, "closed after {:?}", String::from_utf8_lossy(&got));
        got.extend_from_slice(&buf[..n]);
    }
    got
}

fn connect(address: std::net::SocketAddr) -> TcpStream {
    let s = TcpStream::connect(address).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s
}

/// Sends each request line in turn and compares its answer byte for byte.
fn check_all(c: &mut TcpStream, cases: &[(&[u8], &[u8])]) {
    for (request, want) in cases {
        let got = ask(c, request);
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(want),
            "request {:?}",
            String::from_utf8_lossy(request)
        );
    }
}

#[test]
fn reads_answer_as_the_plugin_does() {
    let s = setup(b"");
    let mut c = connect(s.hs.as_ref().unwrap().read_address());
    let cases: &[(&[u8], &[u8])] = &[
        (b"P\t0\thstestdb\tt1\tPRIMARY\tk,v,n\n", b"0\t1\n"),
        (b"0\t=\t1\tk1\n", b"0\t3\tk1\tv1\t1\n"),
        (b"0\t>\t1\tk1\t2\t0\n", b"0\t3\tk2\tv2\t2\tk3\t\x00\t3\n"),
        (b"0\t<=\t1\tk3\t10\t1\n", b"0\t3\tk2\tv2\t2\tk1\tv1\t1\n"),
        (b"0\t=\t1\tnope\t1\t0\n", b"0\t3\n"),
        (
            b"0\t=\t1\t\t100\t0\t@\t0\t4\tk1\tzz\tk3\tk2\n",
            b"0\t3\tk1\tv1\t1\tk3\t\x00\t3\tk2\tv2\t2\n",
        ),
        (b"0\tS\t1\tx\n", b"2\t1\tnotimpl\n"),
        // Filters: F skips, W stops.
        (b"P\t1\thstestdb\tt1\t\tk,n\tn\n", b"0\t1\n"),
        (
            b"1\t>=\t1\tk1\t10\t0\tF\t>\t0\t1\n",
            b"0\t2\tk2\t2\tk3\t3\n",
        ),
        (b"1\t>=\t1\tk1\t10\t0\tW\t<\t0\t2\n", b"0\t2\tk1\t1\n"),
        (b"1\t>=\t1\tk1\t10\t0\tF\t=\t1\t1\n", b"2\t1\tfilterfld\n"),
        // An ordered index, by name and by number; NULL sorts first.
        (b"P\t2\thstestdb\tt1\tiv\tv,k\n", b"0\t1\n"),
        (
            b"2\t>=\t1\t\x00\t10\t0\n",
            b"0\t2\t\x00\tk3\tv1\tk1\tv2\tk2\n",
        ),
        (b"2\t<\t1\tv2\t10\t0\n", b"0\t2\tv1\tk1\t\x00\tk3\n"),
        (b"P\t3\thstestdb\tt1\t1\tv\n", b"0\t1\n"),
        (b"3\t=\t1\tv2\n", b"0\t1\tv2\n"),
        // open_index errors.
        (b"P\t4\thstestdb\tnosuch\t\tk\n", b"1\t1\topen_table\n"),
        (b"P\t4\thstestdb\tt1\tnosuch\tk\n", b"2\t1\tidxnum\n"),
        (b"P\t4\thstestdb\tt1\t\tk,\n", b"2\t1\tfld\n"),
        (b"P\t4\thstestdb\tt1\t\tK\n", b"2\t1\tfld\n"),
        (b"P\t70000\thstestdb\tt1\t\tk\n", b"2\t1\tstmtnum\n"),
        // Writes on the read port.
        (b"0\t+\t3\tk9\tv9\t9\n", b"2\t1\treadonly\n"),
        (b"0\t=\t1\tk1\t1\t0\tD\n", b"2\t1\treadonly\n"),
        (b"0\t=\t2\tk1\tx\n", b"2\t1\tkpnum\n"),
    ];
    check_all(&mut c, cases);
    // Pipelined: answers in request order.
    let got = ask(
        &mut c,
        b"P\t5\thstestdb\tt1\t\tk,v\n5\t=\t1\tk1\n5\t=\t1\tk2\n5\t=\t1\tnope\n5\t!\t1\tk1\n6\t=\t1\tk1\n",
    );
    assert_eq!(
        String::from_utf8_lossy(&got),
        "0\t1\n0\t2\tk1\tv1\n0\t2\tk2\tv2\n0\t2\n2\t1\top\n2\t1\tstmtnum\n"
    );
}

#[test]
fn writes_and_auth_answer_as_the_plugin_does() {
    let s = setup(b"sesame");
    let mut c = connect(s.hs.as_ref().unwrap().write_address());
    let cases: &[(&[u8], &[u8])] = &[
        (b"P\t0\thstestdb\tt1\t\tk,v,n\n", b"3\t1\tunauth\n"),
        (b"A\t2\tsesame\n", b"3\t1\tauthtype\n"),
        (b"A\t1\twrong\n", b"3\t1\tunauth\n"),
        (b"A\t1\tsesame\n", b"0\t1\n"),
        (b"P\t0\thstestdb\tt1\t\tk,v,n\n", b"0\t1\n"),
        (b"0\t+\t3\tk4\tv4\t4\n", b"0\t1\n"),
        (b"0\t+\t3\tk4\tv4\t4\n", b"1\t1\t121\n"),
        (b"0\t=\t1\tk4\n", b"0\t3\tk4\tv4\t4\n"),
        // Update returns the count; with ? the rows as they were.
        (b"0\t=\t1\tk4\t1\t0\tU\tk4\tw4\t40\n", b"0\t1\t1\n"),
        (
            b"0\t=\t1\tk4\t1\t0\tU?\tk4\tx4\t\x00\n",
            b"0\t3\tk4\tw4\t40\n",
        ),
        (b"0\t=\t1\tk4\n", b"0\t3\tk4\tx4\t\x00\n"),
        // Increment skips NULL columns; decrement never crosses zero.
        (b"P\t1\thstestdb\tt1\t\tn\n", b"0\t1\n"),
        (b"1\t=\t1\tk2\t1\t0\t+\t5\n", b"0\t1\t1\n"),
        (b"1\t=\t1\tk2\n", b"0\t1\t7\n"),
        (b"1\t=\t1\tk2\t1\t0\t-\t8\n", b"0\t1\t0\n"),
        (b"1\t=\t1\tk2\t1\t0\t-?\t7\n", b"0\t1\t7\n"),
        (b"1\t=\t1\tk2\n", b"0\t1\t0\n"),
        (b"0\t=\t1\tk4\t1\t0\tD\n", b"0\t1\t1\n"),
        (b"0\t=\t1\tk4\n", b"0\t3\n"),
        (b"0\t=\t1\tk4\t1\t0\tX\n", b"2\t1\tmodop\n"),
        // AUTO_INCREMENT: the id generated, or 0 when one was given.
        (b"P\t2\tdb\tai\t\tid,name\n", b"0\t1\n"),
        (b"2\t+\t2\t0\talice\n", b"0\t1\t1\n"),
        (b"2\t+\t2\t\x00\tbob\n", b"0\t1\t2\n"),
        (b"2\t+\t2\t10\tcarol\n", b"0\t1\t0\n"),
        (b"2\t+\t2\t0\tdave\n", b"0\t1\t11\n"),
        (
            b"2\t>=\t1\t0\t10\t0\n",
            b"0\t2\t1\talice\t2\tbob\t10\tcarol\t11\tdave\n",
        ),
        // Escapes round trip.
        (b"0\t+\t3\tk5\ta\x01\x49b\t5\n", b"0\t1\n"),
        (b"0\t=\t1\tk5\n", b"0\t3\tk5\ta\x01\x49b\t5\n"),
    ];
    check_all(&mut c, cases);
    // A wrong key takes an earlier authorization away.
    assert_eq!(ask(&mut c, b"A\t1\tnope\n"), b"3\t1\tunauth\n");
    assert_eq!(ask(&mut c, b"0\t=\t1\tk1\n"), b"3\t1\tunauth\n");
}

#[test]
fn an_overlong_line_closes_only_its_connection() {
    let s = setup(b"");
    let address = s.hs.as_ref().unwrap().read_address();
    let mut good = connect(address);
    assert_eq!(ask(&mut good, b"P\t0\tdb\tt1\t\tk\n"), b"0\t1\n");
    let mut bad = connect(address);
    let chunk = vec![b'x'; 1 << 20];
    let mut closed = false;
    for _ in 0..8 {
        if bad.write_all(&chunk).is_err() {
            closed = true;
            break;
        }
    }
    if !closed {
        let mut buf = [0u8; 16];
        closed = matches!(bad.read(&mut buf), Ok(0) | Err(_));
    }
    assert!(closed, "an endless line must close its connection");
    assert_eq!(ask(&mut good, b"0\t=\t1\tk1\n"), b"0\t1\tk1\n");
}

#[test]
fn a_client_that_sends_and_closes_gets_its_answers_and_the_close() {
    let s = setup(b"");
    let address = s.hs.as_ref().unwrap().read_address();
    for round in 0..20 {
        let mut c = connect(address);
        // The requests and the FIN leave together: often one readiness event on the server.
        c.write_all(b"P\t0\tdb\tt1\tPRIMARY\tk,v\n0\t=\t1\tk2\n")
            .unwrap();
        c.shutdown(std::net::Shutdown::Write).unwrap();
        // Read to the server's close, well before its idle timeout.
        let mut got = Vec::new();
        c.read_to_end(&mut got)
            .unwrap_or_else(|e| panic!("round {round}: no close after the answers: {e}"));
        assert_eq!(got, b"0\t1\n0\t2\tk2\tv2\n", "round {round}");
    }
}

#[test]
fn an_open_index_does_not_block_drop_and_answers_cleanly_after() {
    let s = setup(b"");
    let node = s.node.as_ref().unwrap();
    let mut c = connect(s.hs.as_ref().unwrap().read_address());
    check_all(
        &mut c,
        &[
            (b"P\t0\thstestdb\tt1\tPRIMARY\tk,v\n", b"0\t1\n"),
            (b"P\t1\thstestdb\tt1\tiv\tv,k\n", b"0\t1\n"),
            (b"0\t=\t1\tk1\n", b"0\t2\tk1\tv1\n"),
        ],
    );
    // Another client drops the table while the index is open: the drop proceeds.
    let other = Cluster::connect(&node.address().to_string()).unwrap();
    other.drop_table("t1").unwrap();
    check_all(
        &mut c,
        &[
            // A batched keyed read and an index scan on the dropped table: clean errors.
            (b"0\t=\t1\tk1\n", b"1\t1\topen_table\n"),
            (b"1\t>=\t1\tv1\n", b"1\t1\topen_table\n"),
            (b"P\t2\thstestdb\tt1\tPRIMARY\tk\n", b"1\t1\topen_table\n"),
        ],
    );
    // Created again with another schema: a reopened index sees it.
    let t = other
        .create_table(
            TableDef::new(
                "t1",
                vec![
                    ColumnDef::new("k", ColumnType::VarChar { length: 10 }),
                    ColumnDef::new("w", ColumnType::Int { unsigned: false }),
                ],
                &["k"],
            )
            .unwrap(),
        )
        .unwrap();
    let mut txn = other.transaction();
    txn.insert(
        &t,
        t.values(&[("k", "k1".into()), ("w", Value::Int(7))])
            .unwrap(),
    );
    txn.commit().unwrap();
    check_all(
        &mut c,
        &[
            // The open index is opened again as the table is now, which has no column v.
            (b"0\t=\t1\tk1\n", b"2\t1\tfld\n"),
            (b"P\t0\thstestdb\tt1\tPRIMARY\tk,v\n", b"2\t1\tfld\n"),
            (b"P\t0\thstestdb\tt1\tPRIMARY\tk,w\n", b"0\t1\n"),
            (b"0\t=\t1\tk1\n", b"0\t2\tk1\t7\n"),
        ],
    );
    // A connection opened after the change sees the new table too.
    let mut fresh = connect(s.hs.as_ref().unwrap().read_address());
    check_all(
        &mut fresh,
        &[
            (b"P\t0\thstestdb\tt1\t\tw\n", b"0\t1\n"),
            (b"0\t=\t1\tk1\n", b"0\t1\t7\n"),
        ],
    );
}

#[test]
fn open_indexes_follow_indexes_added_and_dropped_and_a_rename() {
    let s = setup(b"");
    let node = s.node.as_ref().unwrap();
    let mut c = connect(s.hs.as_ref().unwrap().read_address());
    check_all(
        &mut c,
        &[
            (b"P\t0\thstestdb\tt1\tPRIMARY\tk,v\n", b"0\t1\n"),
            (b"P\t1\thstestdb\tt1\tiv\tv,k\n", b"0\t1\n"),
            (b"P\t5\thstestdb\tai\tPRIMARY\tid,name\n", b"0\t1\n"),
            (b"1\t>=\t1\tv1\n", b"0\t2\tv1\tk1\n"),
        ],
    );
    let other = Cluster::connect(&node.address().to_string()).unwrap();
    let ai = other.table("ai").unwrap();
    let mut txn = other.transaction();
    txn.insert(&ai, ai.values(&[("name", "a".into())]).unwrap());
    txn.commit().unwrap();
    // A new index makes a new definition: requests built from the old one are refused by the
    // data node, and the front end opens the index again and answers from the table as it is.
    other.add_index("t1", "inn", &["n"]).unwrap();
    check_all(
        &mut c,
        &[
            (b"1\t>=\t1\tv1\n", b"0\t2\tv1\tk1\n"),
            (b"0\t=\t1\tk2\n", b"0\t2\tk2\tv2\n"),
        ],
    );
    // A batch holding reads of a changed table and of an unchanged one: each answers for itself.
    other.drop_index("t1", "inn").unwrap();
    check_all(
        &mut c,
        &[(
            b"0\t=\t1\tk1\n5\t=\t1\t1\n0\t=\t1\tk9\n",
            b"0\t2\tk1\tv1\n0\t2\t1\ta\n0\t2\n",
        )],
    );
    // The index itself dropped: a clean error, as open_index of it would answer now.
    other.drop_index("t1", "iv").unwrap();
    check_all(
        &mut c,
        &[
            (b"1\t>=\t1\tv1\n", b"2\t1\tidxnum\n"),
            (b"0\t=\t1\tk3\n", b"0\t2\tk3\t\0\n"),
        ],
    );
    // Renamed: the old name is gone, the new one opens.
    other.rename_table("t1", "t9").unwrap();
    check_all(
        &mut c,
        &[
            (b"0\t=\t1\tk1\n", b"1\t1\topen_table\n"),
            (b"P\t0\thstestdb\tt9\tPRIMARY\tk,v\n", b"0\t1\n"),
            (b"0\t=\t1\tk1\n", b"0\t2\tk1\tv1\n"),
            (b"5\t=\t1\t1\n", b"0\t2\t1\ta\n"),
        ],
    );
}

/// Columns added and dropped under open indexes: the rows are copied into a new table, and an
/// open index follows it by name (its columns found again by name), or answers the error
/// open_index of it would answer now when a column it names is gone.
#[test]
fn open_indexes_follow_columns_added_and_dropped() {
    use client::{ColumnSource, NewColumn};
    let s = setup(b"");
    let node = s.node.as_ref().unwrap();
    let mut c = connect(s.hs.as_ref().unwrap().read_address());
    check_all(
        &mut c,
        &[
            (b"P\t0\thstestdb\tt1\tPRIMARY\tk,v\n", b"0\t1\n"),
            (b"P\t1\thstestdb\tt1\tPRIMARY\tk,n\n", b"0\t1\n"),
            (b"0\t=\t1\tk2\n", b"0\t2\tk2\tv2\n"),
        ],
    );
    let other = Cluster::connect(&node.address().to_string()).unwrap();
    let t = other.table("t1").unwrap();
    let kept = |i: usize| NewColumn::kept(t.def(), i);
    // A column added first: every position moves, the answers do not.
    let added = NewColumn {
        column: ColumnDef::new("z", ColumnType::Int { unsigned: false }).nullable(),
        source: ColumnSource::Filled(Value::Int(4)),
    };
    other
        .change_columns("t1", t.version(), vec![added, kept(0), kept(1), kept(2)])
        .unwrap();
    check_all(
        &mut c,
        &[
            (b"0\t=\t1\tk2\n", b"0\t2\tk2\tv2\n"),
            (b"1\t=\t1\tk3\n", b"0\t2\tk3\t3\n"),
            (b"P\t2\thstestdb\tt1\tPRIMARY\tz,k\n", b"0\t1\n"),
            (b"2\t=\t1\tk1\n", b"0\t2\t4\tk1\n"),
        ],
    );
    // Column v dropped: the index that names it answers as opening it would; the others go on.
    let t = other.table("t1").unwrap();
    let keep = |i: usize| NewColumn::kept(t.def(), i);
    other
        .change_columns("t1", t.version(), vec![keep(0), keep(1), keep(3)])
        .unwrap();
    check_all(
        &mut c,
        &[
            (b"1\t=\t1\tk1\n", b"0\t2\tk1\t1\n"),
            (b"0\t=\t1\tk1\n", b"2\t1\tfld\n"),
            (b"P\t3\thstestdb\tt1\tPRIMARY\tk,v\n", b"2\t1\tfld\n"),
            (b"2\t=\t1\tk3\n", b"0\t2\t4\tk3\n"),
        ],
    );
}

#[test]
fn several_loops_serve_every_connection_in_turn() {
    let s = setup_loops(b"", 3);
    let hs = s.hs.as_ref().unwrap();
    // Seven connections over three loops: each loop holds two or three, from both ports.
    let mut conns: Vec<(bool, TcpStream)> = (0..7)
        .map(|i| {
            let write = i % 2 == 1;
            let address = if write {
                hs.write_address()
            } else {
                hs.read_address()
            };
            (write, connect(address))
        })
        .collect();
    for (_, c) in &mut conns {
        check_all(c, &[(b"P\t0\thstestdb\tt1\tPRIMARY\tk,n\n", b"0\t1\n")]);
    }
    // Each write connection adds 1 to k1's n in turn; every connection then reads it back.
    let writers = conns.iter().filter(|(w, _)| *w).count() as i64;
    for (write, c) in &mut conns {
        if *write {
            check_all(c, &[(b"0\t=\t1\tk1\t1\t0\t+\tk1\t1\n", b"0\t1\t1\n")]);
        }
    }
    let want = format!("0\t2\tk1\t{}\n", 1 + writers);
    for (_, c) in &mut conns {
        // Pipelined: three finds in one write, answered in order.
        let got = ask(c, b"0\t=\t1\tk2\n0\t=\t1\tk1\n0\t=\t1\tnone\n");
        assert_eq!(
            String::from_utf8_lossy(&got),
            format!("0\t2\tk2\t2\n{want}0\t2\n")
        );
    }
}
