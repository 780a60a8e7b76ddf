//! Malformed frames (truncated, oversized length, unknown message type, bad checksum, random
//! bytes) close only the connection that sent them; the node keeps serving everyone else and no
//! data changes.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use base::schema::ColumnDef;
use base::types::ColumnType;
use client::{ExecType, TableDef, Value};
use common::{Rng, TestNode};
use wire::frame::write_frame;
use wire::Message;

/// True when the peer closed the connection (EOF or reset) before the deadline.
fn closed_by_peer(stream: &mut TcpStream) -> bool {
    stream
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut buf = [0u8; 4096];
    while Instant::now() < deadline {
        match stream.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                continue
            }
            Err(_) => return true,
        }
    }
    false
}

/// Creates table `t` of one BIGINT key column, `id`.
fn id_table(cluster: &client::Cluster) -> client::Table {
    cluster
        .create_table(
            TableDef::new(
                "t",
                vec![ColumnDef::new("id", ColumnType::BigInt { unsigned: false })],
                &["id"],
            )
            .unwrap(),
        )
        .unwrap()
}

fn insert_frame(table: &client::Table, id: i64) -> Vec<u8> {
    let op = client::Operation {
        kind: client::OpKind::Insert,
        table: table.id(),
        version: table.version(),
        index: None,
        key: vec![],
        values: vec![(0, Value::Int(id))],
        projection: vec![],
    };
    let mut out = Vec::new();
    Message::Execute {
        transaction: 1,
        statement: 0,
        keep_from: 0,
        exec: ExecType::Commit,
        operations: vec![op],
    }
    .write_frame(&mut out, 0, 0, 1);
    out
}

#[test]
fn bad_frames_close_only_their_connection() {
    let node = TestNode::start(2, Duration::from_millis(300));
    let good = node.connect();
    let t = id_table(&good);
    let mut txn = good.transaction();
    txn.insert(&t, vec![(0, Value::Int(1))]);
    txn.commit().unwrap();

    let valid = insert_frame(&t, 2);
    let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
    // A frame cut short, then the sender closes its write side.
    cases.push(("truncated", valid[..valid.len() - 3].to_vec()));
    // A header that declares a body over the frame limit.
    let mut oversized = valid.clone();
    oversized[24..28].copy_from_slice(&(base::limits::FRAME_BODY_BYTES_MAX + 1).to_le_bytes());
    cases.push(("oversized length", oversized));
    // A well-formed frame of a message type that does not exist.
    let mut unknown = Vec::new();
    write_frame(&mut unknown, 999, 0, 0, 7, |b| {
        b.extend_from_slice(b"hello")
    });
    cases.push(("unknown message type", unknown));
    // A valid insert whose body was altered after the checksum.
    let mut corrupt = valid.clone();
    let last = corrupt.len() - 1;
    corrupt[last] ^= 0x55;
    cases.push(("checksum mismatch", corrupt));
    // A known type whose body does not decode.
    let mut garbage_body = Vec::new();
    write_frame(&mut garbage_body, 7, 0, 0, 8, |b| {
        b.extend_from_slice(&[0xFF; 40])
    });
    cases.push(("undecodable body", garbage_body));
    let mut rng = Rng::from_env_or_time("bad_frames_close_only_their_connection");
    for i in 0..8 {
        let bytes: Vec<u8> = (0..(32 + rng.below(200)))
            .map(|_| rng.next() as u8)
            .collect();
        cases.push((
            if i % 2 == 0 {
                "random bytes"
            } else {
                "random bytes after magic"
            },
            {
                let mut b = bytes;
                if i % 2 == 1 {
                    b[..4].copy_from_slice(&wire::MAGIC.to_le_bytes());
                    b[4..6].copy_from_slice(&wire::PROTOCOL_VERSION.to_le_bytes());
                }
                b
            },
        ));
    }

    for (name, bytes) in cases {
        let mut bad = TcpStream::connect(&node.address).unwrap();
        let _ = bad.write_all(&bytes);
        // A valid header may announce a body that never comes: the sender then closes its side,
        // and the node must drop the partial frame rather than wait.
        if name == "truncated" || name == "random bytes after magic" {
            let _ = bad.shutdown(std::net::Shutdown::Write);
        }
        assert!(
            closed_by_peer(&mut bad),
            "{name}: the data node kept the connection open"
        );
        // The other connection still works, and nothing changed.
        good.ping(vec![1, 2, 3])
            .unwrap_or_else(|e| panic!("{name}: good connection broken: {e}"));
        let rows = good.scan(&t, &client::Scan::table()).unwrap();
        assert_eq!(rows, vec![vec![Value::Int(1)]], "{name}: data changed");
    }
    // A fresh connection is served as usual.
    let again = node.connect();
    let mut txn = again.transaction();
    txn.insert(&again.table("t").unwrap(), vec![(0, Value::Int(2))]);
    txn.commit().unwrap();
    assert_eq!(good.status().unwrap().row_count, 2);
}

/// A connection that sends part of a frame and stalls (half a header, or a whole header whose
/// body never comes) is closed once it has waited the frame timeout, not before, while the node
/// goes on serving other clients.
#[test]
fn a_stalled_partial_frame_is_closed_after_the_frame_timeout() {
    let timeout = Duration::from_millis(700);
    let node = TestNode::with(datanode::DataNodeConfig {
        workers: 2,
        frame_timeout: timeout,
        ..datanode::DataNodeConfig::default()
    });
    let address = node.address.clone();
    let good = node.connect();
    let t = id_table(&good);
    let frame = insert_frame(&t, 7);
    // Half a header; a header and part of its body (one connection per worker, dealt in turn).
    let mut stalled: Vec<TcpStream> = [12, wire::HEADER_BYTES + 3]
        .iter()
        .map(|n| {
            let mut s = TcpStream::connect(&address).unwrap();
            s.write_all(&frame[..*n]).unwrap();
            s
        })
        .collect();
    let sent = Instant::now();
    for s in &mut stalled {
        s.set_read_timeout(Some(Duration::from_millis(10))).unwrap();
    }
    // Served meanwhile, and the stalled connections stay open until the timeout.
    let mut served = 0;
    while sent.elapsed() < timeout * 3 / 4 {
        let mut txn = good.transaction();
        txn.insert(&t, vec![(0, Value::Int(1000 + served))]);
        txn.execute(ExecType::Commit).unwrap();
        served += 1;
        for s in &mut stalled {
            let mut b = [0u8; 16];
            let still_open =
                matches!(s.read(&mut b), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock);
            assert!(
                still_open || sent.elapsed() >= timeout,
                "closed before the timeout"
            );
        }
    }
    for (i, s) in stalled.iter_mut().enumerate() {
        assert!(closed_by_peer(s), "stalled connection {i} was never closed");
    }
    let waited = sent.elapsed();
    assert!(waited >= timeout, "closed after {waited:?}");
    eprintln!("closed after {waited:?} (timeout {timeout:?}); {served} commits served meanwhile");
    // The stalled insert never ran; the others did.
    let rows = good.scan(&t, &client::Scan::table()).unwrap();
    assert_eq!(rows.len(), served as usize);
}

/// The data node serves at most `connections_max` TCP connections: one more is closed as it is
/// accepted (its hello gets no answer) while the others go on, and a closed one makes room.
#[test]
fn a_connection_past_the_limit_is_refused_and_the_others_are_served() {
    let node = TestNode::with(datanode::DataNodeConfig {
        workers: 2,
        connections_max: 4,
        ..datanode::DataNodeConfig::default()
    });
    let mut held: Vec<client::Cluster> = (0..4).map(|_| node.connect()).collect();
    match client::Cluster::connect_timeout(&node.address, Duration::from_secs(2)) {
        Err(e) => eprintln!("the fifth connection: {e}"),
        Ok(c) => panic!("the fifth connection was served: {:?}", c.ping(vec![1])),
    }
    for c in &held {
        c.ping(vec![1, 2, 3]).unwrap();
    }
    drop(held.pop());
    let deadline = Instant::now() + Duration::from_secs(10);
    while client::Cluster::connect_timeout(&node.address, Duration::from_secs(1)).is_err() {
        assert!(
            Instant::now() < deadline,
            "no room after a connection closed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Sends `message` on `stream` and reads the one frame that answers it.
fn ask(stream: &mut TcpStream, message: &Message, request_id: u64) -> Message {
    let mut out = Vec::new();
    message.write_frame(&mut out, 0, 0, request_id);
    stream.write_all(&out).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut head = [0u8; wire::HEADER_BYTES];
    stream.read_exact(&mut head).unwrap();
    let header = wire::FrameHeader::decode(&head).unwrap();
    let mut body = vec![0u8; header.body_len as usize];
    stream.read_exact(&mut body).unwrap();
    assert_eq!(header.request_id, request_id);
    Message::decode(&header, &body).unwrap()
}

/// A hello whose session number has the top bit set is refused, with the reason: those
/// numbers name the data nodes' own two-phase decisions. A client's random number there was
/// taken for a decision by another node group's primary, which answered "not committed" of
/// a commit it never saw (0xDADE111B3F88F765 is one the failover tests met). The client
/// library never picks one.
#[test]
fn a_hello_with_a_session_number_of_the_decisions_is_refused() {
    let node = TestNode::start(1, Duration::from_millis(300));
    let mut raw = TcpStream::connect(&node.address).unwrap();
    let hello = |session| Message::Hello {
        client_name: "test".into(),
        session,
    };
    match ask(&mut raw, &hello(0xDADE_111B_3F88_F765), 1) {
        Message::Failure(e) => {
            assert_eq!(e.code, base::ErrorCode::Protocol, "{e}");
            assert!(e.message.contains("session number"), "{e}");
        }
        other => panic!("a reserved session number was taken: {other:?}"),
    }
    // The same connection says hello again with a client's number, and is served.
    assert!(matches!(
        ask(&mut raw, &hello(wire::CLIENT_SESSION_MAX), 2),
        Message::HelloReply { .. }
    ));
    for _ in 0..64 {
        let c = node.connect();
        assert!(c.session() <= wire::CLIENT_SESSION_MAX && c.session() != 0);
    }
}
