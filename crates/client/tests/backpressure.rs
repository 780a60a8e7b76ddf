//! Back-pressure on a native connection: a client that sends requests and never reads the
//! replies is paused (the data node stops reading its requests once its unsent replies pass a
//! bound) instead of being buffered without end, while other clients are served; once it reads,
//! every request is answered.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::TestNode;
use wire::frame::FLAG_LAST;
use wire::Message;

/// Pings of this many payload bytes (each answered by a pong as large).
const PAYLOAD: usize = 1024;
/// More than any socket buffers and the pause bound together: a node that never paused would
/// take it all.
const SEND_LIMIT: usize = 256 << 20;

#[test]
fn a_client_that_does_not_read_its_replies_is_paused() {
    let node = TestNode::start(2, Duration::from_millis(1200));
    let mut stream = TcpStream::connect(&node.address).unwrap();
    stream
        .set_write_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let mut batch = Vec::new();
    for i in 0..64u64 {
        let ping = Message::Ping {
            payload: vec![7; PAYLOAD],
        };
        ping.write_frame(&mut batch, 0, 0, i + 1);
    }
    let ping_bytes = batch.len() / 64;
    // Writes until the node stops taking requests (a write times out).
    let mut sent = 0usize;
    let began = Instant::now();
    let stalled = loop {
        if sent >= SEND_LIMIT {
            break false;
        }
        // The stream is the batch over and over: go on from where the last write ended.
        match stream.write(&batch[sent % batch.len()..]) {
            Ok(n) => sent += n,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                break true
            }
            Err(e) => panic!("write failed: {e}"),
        }
    };
    println!(
        "the node stopped taking requests after {:.1} MiB ({:.2} s)",
        sent as f64 / (1 << 20) as f64,
        began.elapsed().as_secs_f64()
    );
    assert!(
        stalled,
        "the node took {sent} bytes of requests whose replies were never read"
    );
    assert!(sent < 64 << 20, "paused only after {sent} bytes");
    // Others are served meanwhile.
    let other = node.connect();
    other.ping(vec![1, 2, 3]).unwrap();
    // Once the client reads, every whole request it sent is answered.
    let whole = sent / ping_bytes;
    let pong_bytes = {
        let mut b = Vec::new();
        Message::Pong {
            payload: vec![7; PAYLOAD],
        }
        .write_frame(&mut b, 0, FLAG_LAST, 1);
        b.len()
    };
    // Finish the request cut mid-frame, so the node is not left waiting for the rest.
    stream.set_write_timeout(None).unwrap();
    let reader = {
        let mut stream = stream.try_clone().unwrap();
        std::thread::spawn(move || {
            stream
                .set_read_timeout(Some(Duration::from_millis(200)))
                .unwrap();
            let expected = (whole + 1) * pong_bytes;
            let deadline = Instant::now() + Duration::from_secs(60);
            let mut got = 0usize;
            let mut buf = vec![0u8; 1 << 16];
            let mut ended = false;
            while !ended && Instant::now() < deadline {
                match stream.read(&mut buf) {
                    Ok(0) => ended = true,
                    Ok(n) => got += n,
                    Err(_) => continue,
                }
            }
            (got, expected, ended)
        })
    };
    let rest = ping_bytes - sent % ping_bytes;
    let cut = sent % batch.len();
    stream.write_all(&batch[cut..cut + rest]).unwrap();
    // Done sending: the FIN comes while the node is still paused, and must not be lost.
    stream.shutdown(std::net::Shutdown::Write).unwrap();
    let reading = Instant::now();
    let (got, expected, ended) = reader.join().unwrap();
    println!(
        "{got} bytes of replies read in {:.2} s",
        reading.elapsed().as_secs_f64()
    );
    assert_eq!(got, expected, "bytes of replies read");
    assert!(
        ended,
        "the node saw the client's FIN and closed the connection after its replies"
    );
}
