//! SELECTs whose results take many scan batches, which the front end streams to the client a
//! batch at a time: the same rows as MariaDB (started by this test) gives for the same table,
//! with WHERE conditions the data node decides and ones the front end checks, expressions,
//! LIMIT and OFFSET, FOUND_ROWS(), index ranges, ORDER BY an index's order, the binary
//! protocol, and texts of several statements (answered whole).

mod common;
use common::raw::{values, Answer, Raw};

#[path = "../../../testsupport/mariadb.rs"]
mod mariadb;

const ROWS: usize = 20_000;

/// Loads `d.s` with ROWS rows (about 1.6 MB: a few hundred KiB of batches each).
fn load(c: &mut Raw) {
    for sql in [
        "CREATE DATABASE d",
        "CREATE TABLE d.s (id INT PRIMARY KEY, k INT NOT NULL, v VARCHAR(100) NOT NULL, KEY (k))",
    ] {
        assert_eq!(c.query(sql), Answer::Ok, "{sql}");
    }
    for chunk in (0..ROWS).collect::<Vec<_>>().chunks(1000) {
        let rows: Vec<String> = chunk
            .iter()
            .map(|i| format!("({i}, {}, '{}-{}')", i * 7919 % 1000, "v".repeat(i % 60), i))
            .collect();
        let sql = format!("INSERT INTO d.s VALUES {}", rows.join(","));
        assert_eq!(c.query(&sql), Answer::Ok);
    }
}

/// Each query's rows as text, sorted (no ORDER BY: the order is the server's), or their count
/// for the queries marked so.
fn answers(port: u16) -> Vec<(String, Vec<Vec<Option<String>>>)> {
    // CLIENT_MULTI_STATEMENTS, for the text of two statements at the end.
    let mut c = Raw::login_with(port, None, 0x10000);
    load(&mut c);
    let queries = [
        "SELECT * FROM d.s",
        // Decided in the data node (integer comparison), and one the front end checks.
        "SELECT id, k FROM d.s WHERE id >= 3000",
        "SELECT id, v FROM d.s WHERE id * 3 % 7 = 1",
        // An index range, expressions of the columns.
        "SELECT id + 1, UPPER(v), k * 2 FROM d.s WHERE k BETWEEN 100 AND 700",
        "SELECT id FROM d.s WHERE k > 10 AND v LIKE '%vvv%'",
    ];
    let mut out = Vec::new();
    for q in queries {
        let Answer::Rows(rows) = c.query(q) else {
            panic!("{q}: no rows");
        };
        let mut rows: Vec<_> = rows.iter().map(|r| values(r)).collect();
        rows.sort();
        out.push((q.to_string(), rows));
    }
    // ORDER BY an ordered index's columns (then the primary key, which ends its keys): the
    // rows in order, as MariaDB sorts them. On Cairn those the scan can read in the index's
    // order, more than a batch of them, are streamed, which its status counter shows.
    let streamed = |c: &mut Raw| match c.query("SHOW STATUS LIKE 'Cairn_streamed_results'") {
        Answer::Rows(r) if !r.is_empty() => values(&r[0])[1].clone(),
        _ => None,
    };
    let mut counted = streamed(&mut c);
    for (q, streams) in [
        ("SELECT id, k FROM d.s ORDER BY k, id", true),
        (
            "SELECT id FROM d.s ORDER BY k DESC, id DESC LIMIT 100 OFFSET 7000",
            true,
        ),
        (
            "SELECT * FROM d.s WHERE k BETWEEN 100 AND 700 ORDER BY k, id",
            true,
        ),
        (
            "SELECT id, v FROM d.s WHERE id * 3 % 7 = 1 ORDER BY k, id LIMIT 5000",
            true,
        ),
        // The LIMIT stops the index scan within its first batch: answered whole.
        ("SELECT id, k FROM d.s ORDER BY k, id LIMIT 3", false),
        // The primary key's ordered twin (SQL tables keep one) gives this one.
        ("SELECT id FROM d.s ORDER BY id DESC LIMIT 6000", true),
        // No ordered index gives these orders: sorted in the front end.
        ("SELECT id, v FROM d.s ORDER BY v, id", false),
        ("SELECT id, k FROM d.s ORDER BY k, id DESC", false),
    ] {
        let Answer::Rows(rows) = c.query(q) else {
            panic!("{q}: no rows");
        };
        out.push((q.to_string(), rows.iter().map(|r| values(r)).collect()));
        let now = streamed(&mut c);
        if let (Some(before), Some(after)) = (&counted, &now) {
            let grew = before != after;
            assert_eq!(
                grew, streams,
                "{q}: Cairn_streamed_results {before} -> {after}"
            );
        }
        counted = now;
    }
    // LIMIT and OFFSET without ORDER BY: how many, each once, and FOUND_ROWS() after.
    for q in [
        "SELECT id FROM d.s LIMIT 7000",
        "SELECT id FROM d.s LIMIT 5000 OFFSET 9000",
        "SELECT id FROM d.s WHERE id * 3 % 7 = 1 LIMIT 100, 4000",
    ] {
        let Answer::Rows(rows) = c.query(q) else {
            panic!("{q}: no rows");
        };
        let mut ids: Vec<_> = rows.iter().map(|r| values(r)).collect();
        ids.sort();
        ids.dedup();
        let found = match c.query("SELECT FOUND_ROWS()") {
            Answer::Rows(r) => values(&r[0]),
            other => panic!("{other:?}"),
        };
        out.push((
            format!("{q}: count, distinct, FOUND_ROWS()"),
            vec![
                vec![Some(rows.len().to_string()), Some(ids.len().to_string())],
                found,
            ],
        ));
    }
    // The binary protocol: a prepared range; rows compared as their bytes.
    let id = c.prepare("SELECT id, k, v FROM d.s WHERE id >= ?");
    let Answer::Rows(mut rows) = c.execute_with(id, &[1500]) else {
        panic!("prepared: no rows");
    };
    rows.sort();
    // Run again twice (the reactor streams it, as it did the first time): the same rows each
    // time.
    for again in 0..2 {
        let Answer::Rows(mut next) = c.execute_with(id, &[1500]) else {
            panic!("prepared, run {again}: no rows");
        };
        next.sort();
        assert!(next == rows, "prepared, run {again}: other rows");
    }
    out.push((
        "prepared SELECT id, k, v FROM d.s WHERE id >= 1500".into(),
        vec![vec![Some(rows.len().to_string())]],
    ));
    out.push((
        "prepared rows".into(),
        rows.iter().map(|r| vec![Some(format!("{r:?}"))]).collect(),
    ));
    // Several statements in one text: the first is answered whole before the second runs.
    let mut p = vec![0x03];
    p.extend_from_slice(b"SELECT id FROM d.s WHERE id < 6000; DELETE FROM d.s WHERE id < 3000");
    c.send(0, &p);
    let Answer::Rows(first) = c.answer() else {
        panic!("multi-statement: no rows");
    };
    let second = c.answer();
    let left = match c.query("SELECT COUNT(*) FROM d.s") {
        Answer::Rows(r) => values(&r[0]),
        other => panic!("{other:?}"),
    };
    // The same where the text is read a statement at a time (it names sql_mode), and where a
    // later statement does not parse (those before it run and answer first): still whole.
    let mut texts = Vec::new();
    for text in [
        "SELECT id FROM d.s WHERE id < 9000; SET sql_mode = ''; DELETE FROM d.s WHERE id < 6000",
        "SELECT id FROM d.s WHERE id < 12000; DELETE FROM d.s WHERE id < 9000; SELEC 1",
    ] {
        let mut p = vec![0x03];
        p.extend_from_slice(text.as_bytes());
        c.send(0, &p);
        let answers: Vec<String> = (0..3)
            .map(|_| match c.answer() {
                Answer::Rows(rows) => format!("{} rows", rows.len()),
                other => format!("{other:?}"),
            })
            .collect();
        texts.push(vec![Some(format!("{text}: {answers:?}"))]);
    }
    out.push(("texts of several statements".into(), texts));
    out.push((
        "SELECT id ... < 6000; DELETE ... < 3000".into(),
        vec![
            vec![Some(first.len().to_string()), Some(format!("{second:?}"))],
            left,
        ],
    ));
    out
}

#[test]
fn streamed_results_match_mariadb() {
    let (node, server) = common::start(64 << 20);
    let cairn = answers(server.address().port());
    server.stop();
    node.stop();
    let peer = mariadb::Mariadb::start("streaming", "");
    let reference = answers(peer.port);
    assert_eq!(cairn.len(), reference.len());
    for ((q, got), (_, want)) in cairn.iter().zip(&reference) {
        assert!(
            got == want,
            "{q}: {} rows, MariaDB {}; first differences: {:?}",
            got.len(),
            want.len(),
            got.iter()
                .zip(want)
                .filter(|(a, b)| a != b)
                .take(3)
                .collect::<Vec<_>>()
        );
    }
}

/// COM_STMT_EXECUTE of statement `id` with one BIGINT parameter, `from`.
fn execute_from(id: u32, from: i64) -> Vec<u8> {
    let mut p = vec![0x17];
    p.extend_from_slice(&id.to_le_bytes());
    p.push(0);
    p.extend_from_slice(&1u32.to_le_bytes());
    // No NULL; the parameter's type follows: LONGLONG, signed.
    p.extend_from_slice(&[0, 1, 8, 0]);
    p.extend_from_slice(&from.to_le_bytes());
    p
}

/// A client that reads none of a large streamed result for a while: the event loop stops
/// asking for its batches (the rows waiting for it stay bounded) and serves other clients
/// meanwhile; once the client reads, every row comes, in the primary key's order of the scan,
/// once. Then a pushed join whose rows take several batches, streamed the same way.
#[test]
fn a_client_that_reads_slowly_holds_back_only_its_own_stream() {
    let (node, server) = common::start(64 << 20);
    let port = server.address().port();
    let mut c = Raw::login_to(port, None);
    load(&mut c);
    let mut slow = Raw::login(port);
    // A prepared statement runs in the event loop: its rows come a batch at a time.
    let id = slow.prepare("SELECT id, v FROM d.s WHERE id >= ?");
    slow.send(0, &execute_from(id, 0));
    // Meanwhile other clients are answered, many times over.
    let mut other = Raw::login(port);
    for i in 0..200 {
        let Answer::Rows(rows) = other.query(&format!("SELECT v FROM d.s WHERE id = {i}")) else {
            panic!("point read {i}: no rows");
        };
        assert_eq!(rows.len(), 1);
    }
    let Answer::Rows(rows) = slow.answer() else {
        panic!("the slow client's result: no rows");
    };
    assert_eq!(rows.len(), ROWS, "every row, once");
    // The binary row: a NULL bitmap (2 bytes for 2 columns), then the INT id.
    let ids: Vec<i32> = rows
        .iter()
        .map(|r| i32::from_le_bytes([r[2], r[3], r[4], r[5]]))
        .collect();
    let mut sorted = ids.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), ROWS, "no row twice");
    // A join through KEY(k) of 1,000 rows (a pushed join, streamed), three times: the same
    // rows.
    let parents: Vec<String> = (1..=50).map(|i| format!("({i}, 'p{i}')")).collect();
    for sql in [
        "CREATE TABLE d.p (id INT PRIMARY KEY, name VARCHAR(10) NOT NULL)".to_string(),
        format!("INSERT INTO d.p VALUES {}", parents.join(",")),
        "ANALYZE TABLE d.p, d.s".to_string(),
    ] {
        let a = c.query(&sql);
        assert!(matches!(a, Answer::Ok | Answer::Rows(_)), "{sql}: {a:?}");
    }
    let join =
        "SELECT p.name, s.id FROM d.p p JOIN d.s s ON s.k = p.id WHERE p.id BETWEEN 1 AND 50";
    let streamed = |c: &mut Raw| match c.query("SHOW STATUS LIKE 'Cairn_streamed_results'") {
        Answer::Rows(r) if !r.is_empty() => values(&r[0])[1].clone(),
        other => panic!("{other:?}"),
    };
    let before = streamed(&mut c);
    let mut first = None;
    for run in 0..3 {
        let Answer::Rows(rows) = c.query(join) else {
            panic!("join, run {run}: no rows");
        };
        let mut rows: Vec<_> = rows.iter().map(|r| values(r)).collect();
        rows.sort();
        // k = i * 7919 % 1000: 20 rows of each k.
        assert_eq!(rows.len(), 1000, "join, run {run}");
        match &first {
            None => first = Some(rows),
            Some(f) => assert!(f == &rows, "join, run {run}: other rows"),
        }
    }
    // The event loop streamed it (a thread answers a join whole).
    assert_ne!(streamed(&mut c), before, "the join was streamed");
    // FOUND_ROWS() in the items is the statement before's in every row, however many batches
    // the rows take (such a result is answered whole).
    for run in 0..3 {
        assert!(matches!(
            c.query("SELECT id FROM d.s WHERE id < 7"),
            Answer::Rows(_)
        ));
        let Answer::Rows(rows) = c.query("SELECT id, FOUND_ROWS() FROM d.s") else {
            panic!("FOUND_ROWS(), run {run}: no rows");
        };
        assert_eq!(rows.len(), ROWS);
        for r in &rows {
            assert_eq!(
                values(r)[1].as_deref(),
                Some("7"),
                "FOUND_ROWS(), run {run}"
            );
        }
    }
    server.stop();
    node.stop();
}

/// A result the event loop streams shows in SHOW PROCESSLIST as its command while the client has
/// not taken it (the stream waits, paused, for the client), and as Sleep once it has.
#[test]
fn a_streamed_result_shows_in_the_process_list_until_it_is_taken() {
    let (node, server) = common::start(64 << 20);
    let port = server.address().port();
    let mut c = Raw::login_to(port, None);
    load(&mut c);
    let mut slow = Raw::login(port);
    // About 70 MB of rows: more than the sockets' buffers hold, so the stream has to wait.
    let id = slow.prepare("SELECT id, REPEAT(v, 100) FROM d.s WHERE id >= ?");
    let p = execute_from(id, 0);
    let commands = |c: &mut Raw| -> Vec<String> {
        let Answer::Rows(rows) = c.query("SHOW PROCESSLIST") else {
            panic!("SHOW PROCESSLIST: no rows");
        };
        rows.iter()
            .filter_map(|r| values(r).get(4).cloned().flatten())
            .collect()
    };
    slow.wait_up_to(std::time::Duration::from_secs(60));
    // A first run of one batch, on the connection's thread (which prepared it): the connection
    // then waits in the event loop, which runs the statement from now on (a first run of many
    // batches would have marked its plan for the thread).
    let Answer::Rows(few) = slow.execute_with(id, &[(ROWS - 10) as i64]) else {
        panic!("the first run: no rows");
    };
    assert_eq!(few.len(), 10);
    for run in 0..3 {
        slow.send(0, &p);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !commands(&mut c).iter().any(|s| s == "Execute") {
            assert!(
                std::time::Instant::now() < deadline,
                "run {run}: the streamed EXECUTE never showed: {:?}",
                commands(&mut c)
            );
            std::thread::yield_now();
        }
        let Answer::Rows(rows) = slow.answer() else {
            panic!("run {run}: the slow client's result: no rows");
        };
        assert_eq!(rows.len(), ROWS);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while commands(&mut c).iter().any(|s| s == "Execute") {
            assert!(
                std::time::Instant::now() < deadline,
                "run {run}: still shown after its last row"
            );
            std::thread::yield_now();
        }
    }
    server.stop();
    node.stop();
}
