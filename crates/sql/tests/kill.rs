//! Stopping what a session runs from outside: KILL QUERY stops a running statement (1317) and
//! the connection goes on; KILL CONNECTION closes a session, rolling back its transaction so
//! its row locks are freed at once; a client that goes away in the middle of a statement frees
//! its session within a second; an unknown id is 1094; a connection idle past its session's
//! wait_timeout, or stalled inside a command past its net_read_timeout, is closed; a
//! statement past max_statement_time (MariaDB's) or MAX_EXECUTION_TIME (MySQL's) stops.

use std::time::{Duration, Instant};

mod common;
use common::raw::{values, Answer, Raw};

/// The session id of `c` (CONNECTION_ID()).
fn id_of(c: &mut Raw) -> u64 {
    match c.query("SELECT CONNECTION_ID()") {
        Answer::Rows(rows) => std::str::from_utf8(&rows[0][1..]).unwrap().parse().unwrap(),
        other => panic!("{other:?}"),
    }
}

/// The statement session `id` runs (Info), if SHOW FULL PROCESSLIST lists it: None when it is
/// gone, Some(None) while it is idle.
fn running(observer: &mut Raw, id: u64) -> Option<Option<String>> {
    match observer.query("SHOW FULL PROCESSLIST") {
        Answer::Rows(rows) => rows
            .iter()
            .map(|r| values(r))
            .find(|v| v[0].as_deref() == Some(id.to_string().as_str()))
            .map(|v| v[7].clone()),
        other => panic!("{other:?}"),
    }
}

/// Whether session `id` is in SHOW PROCESSLIST, as `observer` sees it.
fn listed(observer: &mut Raw, id: u64) -> bool {
    running(observer, id).is_some()
}

#[test]
fn kill_query_stops_a_sleep_and_the_connection_goes_on() {
    let (node, server) = common::start(16 << 20);
    let port = server.address().port();
    let mut sleeper = Raw::login_to(port, None);
    let id = id_of(&mut sleeper);
    let started = Instant::now();
    let sleeping = std::thread::spawn(move || {
        let answer = sleeper.query("SELECT SLEEP(100)");
        (answer, sleeper)
    });
    let mut killer = Raw::login_to(port, None);
    // KILL once the statement runs: poll for it with a deadline.
    let deadline = Instant::now() + Duration::from_secs(10);
    while running(&mut killer, id) != Some(Some("SELECT SLEEP(100)".into())) {
        assert!(Instant::now() < deadline, "the sleep never showed");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(killer.query(&format!("KILL QUERY {id}")), Answer::Ok);
    let (answer, mut sleeper) = sleeping.join().unwrap();
    assert_eq!(answer, Answer::Err(1317));
    assert!(started.elapsed() < Duration::from_secs(10));
    // The connection goes on, and a later statement is not stopped.
    assert_eq!(id_of(&mut sleeper), id);
    assert_eq!(killer.query("KILL 987654"), Answer::Err(1094));
    // A session killing itself gets MariaDB's 1927, then its connection closes.
    let own = id_of(&mut killer);
    assert_eq!(killer.query(&format!("KILL {own}")), Answer::Err(1927));
    assert!(killer.packet().is_none());
    server.stop();
    node.stop();
}

#[test]
fn kill_connection_rolls_back_and_frees_the_locks() {
    let (node, server, port, mut setup) = common::start_with("(1, 1)");
    let mut holder = Raw::login_to(port, Some("d"));
    let id = id_of(&mut holder);
    assert_eq!(holder.query("BEGIN"), Answer::Ok);
    assert_eq!(holder.query("UPDATE t SET v = 2 WHERE id = 1"), Answer::Ok);
    assert_eq!(setup.query(&format!("KILL {id}")), Answer::Ok);
    // Its row lock is free at once: well inside the lock wait timeout.
    let started = Instant::now();
    assert_eq!(setup.query("UPDATE d.t SET v = 3 WHERE id = 1"), Answer::Ok);
    assert!(
        started.elapsed() < Duration::from_millis(900),
        "{:?}",
        started.elapsed()
    );
    match setup.query("SELECT v FROM d.t WHERE id = 1") {
        Answer::Rows(rows) => assert_eq!(rows[0][1..], *b"3"),
        other => panic!("{other:?}"),
    }
    // The killed client finds its connection closed.
    assert!(holder.packet().is_none() || holder.query("SELECT 1") != Answer::Ok);
    server.stop();
    node.stop();
}

#[test]
fn a_client_that_leaves_mid_statement_frees_its_session_within_a_second() {
    let (node, server) = common::start(16 << 20);
    let port = server.address().port();
    let mut leaver = Raw::login_to(port, None);
    let id = id_of(&mut leaver);
    let mut observer = Raw::login_to(port, None);
    leaver.send(0, b"\x03SELECT SLEEP(100)");
    let deadline = Instant::now() + Duration::from_secs(10);
    while running(&mut observer, id) != Some(Some("SELECT SLEEP(100)".into())) {
        assert!(Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(10));
    }
    drop(leaver);
    let left = Instant::now();
    while listed(&mut observer, id) {
        assert!(
            left.elapsed() < Duration::from_secs(1),
            "the session outlived its client by a second"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    eprintln!("freed {:?} after the client left", left.elapsed());
    server.stop();
    node.stop();
}

#[test]
fn a_connection_idle_past_its_wait_timeout_is_closed() {
    let (node, server) = common::start(16 << 20);
    let port = server.address().port();
    let mut idle = Raw::login_to(port, None);
    let id = id_of(&mut idle);
    assert_eq!(idle.query("SET SESSION wait_timeout = 1"), Answer::Ok);
    let mut observer = Raw::login_to(port, None);
    let set = Instant::now();
    while listed(&mut observer, id) {
        assert!(
            set.elapsed() < Duration::from_secs(10),
            "an idle connection outlived its wait_timeout of 1 s by far"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        set.elapsed() >= Duration::from_secs(1),
        "closed before its timeout"
    );
    assert!(
        idle.packet().is_none(),
        "the client finds its connection closed"
    );
    // Others are not affected.
    assert!(id_of(&mut observer) > 0);
    server.stop();
    node.stop();
}

#[test]
fn a_client_stalled_inside_a_command_is_closed_after_net_read_timeout() {
    let (node, server) = common::start(16 << 20);
    let port = server.address().port();
    let mut stalled = Raw::login_to(port, None);
    assert_eq!(
        stalled.query("SET SESSION net_read_timeout = 1"),
        Answer::Ok
    );
    // A packet announcing 100 bytes, of which 10 come.
    use std::io::Write;
    stalled.s.write_all(&[100, 0, 0, 0, 0x03]).unwrap();
    stalled.s.write_all(b"SELECT 1 ").unwrap();
    let sent = Instant::now();
    let mut other = Raw::login_to(port, None);
    stalled
        .s
        .set_read_timeout(Some(Duration::from_millis(20)))
        .unwrap();
    loop {
        // Others are served meanwhile.
        assert!(id_of(&mut other) > 0);
        let mut byte = [0u8; 1];
        match std::io::Read::read(&mut stalled.s, &mut byte) {
            Ok(0) | Err(_) if sent.elapsed() >= Duration::from_secs(1) => {
                if matches!(std::io::Read::read(&mut stalled.s, &mut byte), Ok(0)) {
                    break;
                }
            }
            Ok(0) => panic!("closed before its net_read_timeout"),
            _ => {}
        }
        assert!(
            sent.elapsed() < Duration::from_secs(10),
            "a stalled command held its connection past net_read_timeout"
        );
    }
    eprintln!("closed {:?} after the stall", sent.elapsed());
    server.stop();
    node.stop();
}

#[test]
fn statements_past_their_time_limit_stop() {
    let (node, server) = common::start(16 << 20);
    let port = server.address().port();
    let mut c = Raw::login_to(port, None);
    let timed = |c: &mut Raw, sql: &str| {
        let started = Instant::now();
        let answer = c.query(sql);
        (answer, started.elapsed())
    };
    let (answer, took) = timed(&mut c, "SELECT /*+ MAX_EXECUTION_TIME(200) */ SLEEP(10)");
    assert_eq!(answer, Answer::Err(3024));
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert_eq!(c.query("SET SESSION max_statement_time = 0.3"), Answer::Ok);
    let (answer, took) = timed(&mut c, "SELECT SLEEP(10)");
    assert_eq!(answer, Answer::Err(1969));
    assert!(
        took >= Duration::from_millis(300) && took < Duration::from_secs(5),
        "{took:?}"
    );
    // Within the limit, and without one, statements run to their end; each statement of a
    // text has a limit of its own.
    assert!(matches!(c.query("SELECT SLEEP(0.05)"), Answer::Rows(_)));
    let many = ["SELECT SLEEP(0.2)"; 3].join("; ");
    c.send(0, &[&[0x03u8][..], many.as_bytes()].concat());
    for _ in 0..3 {
        assert!(
            matches!(c.answer(), Answer::Rows(_)),
            "each within its own 0.3 s"
        );
    }
    assert_eq!(c.query("SET SESSION max_statement_time = 0"), Answer::Ok);
    assert!(matches!(c.query("SELECT SLEEP(0.5)"), Answer::Rows(_)));
    server.stop();
    node.stop();
}

/// A client that stops reading a large streamed result is closed once a write has waited its
/// net_write_timeout (the scan ends with it), while others are served.
#[test]
fn a_client_that_stops_reading_a_streamed_result_is_closed_after_net_write_timeout() {
    let (node, server) = common::start(16 << 20);
    let port = server.address().port();
    let mut setup = Raw::login_to(port, None);
    for sql in [
        "CREATE DATABASE d",
        "CREATE TABLE d.big (id INT PRIMARY KEY, v VARCHAR(200) NOT NULL)",
    ] {
        assert_eq!(setup.query(sql), Answer::Ok, "{sql}");
    }
    // About 12 MB of rows: more than the sockets between the two hold.
    for chunk in 0..60 {
        let rows: Vec<String> = (chunk * 1000..(chunk + 1) * 1000)
            .map(|i| format!("({i}, REPEAT('x', 200))"))
            .collect();
        let sql = format!("INSERT INTO d.big VALUES {}", rows.join(","));
        assert_eq!(setup.query(&sql), Answer::Ok);
    }
    let mut stalled = Raw::login_to(port, None);
    let id = id_of(&mut stalled);
    assert_eq!(
        stalled.query("SET SESSION net_write_timeout = 1"),
        Answer::Ok
    );
    let mut p = vec![0x03];
    p.extend_from_slice(b"SELECT * FROM d.big");
    stalled.send(0, &p);
    let sent = Instant::now();
    // It never reads; the session is dropped after its write waited a second.
    while listed(&mut setup, id) {
        assert!(
            sent.elapsed() < Duration::from_secs(20),
            "a client that stopped reading held its session past net_write_timeout"
        );
        // Others are served meanwhile.
        assert!(id_of(&mut setup) > 0);
        std::thread::sleep(Duration::from_millis(50));
    }
    let waited = sent.elapsed();
    eprintln!("closed {waited:?} after the result began");
    assert!(waited >= Duration::from_secs(1), "closed after {waited:?}");
    server.stop();
    node.stop();
}
