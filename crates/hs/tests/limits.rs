//! The HandlerSocket listeners' bounds: a connection that sends part of a line and stalls is
//! closed after the idle timeout while another is served, and a connection past the most one
//! event loop serves is closed at once while the others go on.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use hs::{HsConfig, HsServer};

fn front(node: &datanode::DataNode, idle: Duration, max: usize) -> HsServer {
    HsServer::start(HsConfig {
        datanode: node.address().to_string(),
        read_listen: "127.0.0.1:0".into(),
        write_listen: "127.0.0.1:0".into(),
        idle_timeout: idle,
        max_connections: max,
        ..HsConfig::default()
    })
    .unwrap()
}

fn connect(hs: &HsServer) -> TcpStream {
    let s = TcpStream::connect(hs.read_address()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s
}

/// One request line and its answer line.
fn ask(s: &mut TcpStream, line: &str) -> String {
    s.write_all(line.as_bytes()).unwrap();
    let mut got = Vec::new();
    let mut byte = [0u8; 1];
    while !got.ends_with(b"\n") {
        assert_eq!(s.read(&mut byte).unwrap(), 1, "closed");
        got.push(byte[0]);
    }
    String::from_utf8(got).unwrap()
}

/// Whether the server closed `s`: a read answers end of stream (an error counts too: reset).
fn closed(s: &mut TcpStream) -> bool {
    let mut buf = [0u8; 16];
    !matches!(s.read(&mut buf), Ok(n) if n > 0)
}

const OPEN: &str = "P\t0\tnodb\tnotable\tPRIMARY\tk\n";

#[test]
fn a_stalled_partial_line_is_closed_after_the_idle_timeout() {
    let node = common::start_node();
    let idle = Duration::from_millis(500);
    let hs = front(&node, idle, 64);
    let mut stalled = connect(&hs);
    let began = Instant::now();
    stalled.write_all(b"P\t0\tno").unwrap();
    // Meanwhile another connection is answered (an unknown table is the plugin's 1 1 open_table).
    let mut other = connect(&hs);
    for _ in 0..3 {
        assert_eq!(ask(&mut other, OPEN), "1\t1\topen_table\n");
    }
    assert!(
        closed(&mut stalled),
        "the stalled connection was not closed"
    );
    let waited = began.elapsed();
    assert!(
        waited >= idle && waited < idle * 4 + Duration::from_secs(1),
        "closed after {waited:?} (idle timeout {idle:?})"
    );
    hs.stop();
    node.stop();
}

#[test]
fn a_connection_past_the_limit_is_closed_and_the_others_are_served() {
    let node = common::start_node();
    let hs = front(&node, Duration::from_secs(300), 3);
    let mut held: Vec<TcpStream> = (0..3).map(|_| connect(&hs)).collect();
    for s in &mut held {
        assert_eq!(ask(s, OPEN), "1\t1\topen_table\n");
    }
    let mut extra = connect(&hs);
    assert!(closed(&mut extra), "the fourth connection was served");
    for s in &mut held {
        assert_eq!(ask(s, OPEN), "1\t1\topen_table\n");
    }
    // One closed makes room (the loop notices the close, then the next is served).
    drop(held.pop());
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let mut next = connect(&hs);
        next.write_all(OPEN.as_bytes()).unwrap();
        let mut buf = [0u8; 64];
        if matches!(next.read(&mut buf), Ok(n) if n > 0) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no room after a connection closed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    hs.stop();
    node.stop();
}
