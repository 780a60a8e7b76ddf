//! The HandlerSocket auth line under random input: with secrets on both ports, no random or
//! damaged `A` line (nor any other line) authenticates a connection, nothing panics, and a client
//! with the secret is still served.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;

const SECRET: &[u8] = b"the write secret of this test";

fn open_after(stream: &mut TcpStream, reader: &mut BufReader<TcpStream>, line: &[u8]) -> String {
    stream.write_all(&[line, b"\n"].concat()).unwrap();
    let mut answer = String::new();
    reader.read_line(&mut answer).unwrap();
    stream.write_all(b"P\t1\ttest\tt\tPRIMARY\tk,v\n").unwrap();
    let mut open = String::new();
    reader.read_line(&mut open).unwrap();
    open
}

#[test]
fn random_auth_lines_never_authenticate() {
    let node = common::start_node();
    let front = common::start_front(&node, b"the read secret", SECRET);
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    println!("seed {seed}");
    let mut x = seed;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for address in [front.write_address(), front.read_address()] {
        for _ in 0..10 {
            let mut stream = TcpStream::connect(address).unwrap();
            stream
                .set_read_timeout(Some(Duration::from_secs(10)))
                .unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            for _ in 0..100 {
                let len = (next() % 48) as usize;
                let mut noise: Vec<u8> = (0..len)
                    .map(|_| next() as u8)
                    .filter(|b| *b != b'\n')
                    .collect();
                let line = match next() % 4 {
                    // A well-formed auth line with a random key, a damaged secret, or noise.
                    0 => [b"A\t1\t".as_slice(), &noise].concat(),
                    1 => {
                        let mut damaged = SECRET.to_vec();
                        let at = (next() as usize) % damaged.len();
                        damaged[at] ^= 1 + (next() % 255) as u8;
                        [b"A\t1\t".as_slice(), &damaged].concat()
                    }
                    2 => [b"A\t".as_slice(), &noise].concat(),
                    _ => {
                        noise.retain(|b| *b != b'\t');
                        noise
                    }
                };
                let open = open_after(&mut stream, &mut reader, &line);
                assert!(!open.starts_with("0\t"), "{line:?} authenticated: {open:?}");
            }
        }
    }
    // The secret still works.
    let mut stream = TcpStream::connect(front.write_address()).unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let open = open_after(
        &mut stream,
        &mut reader,
        &[b"A\t1\t".as_slice(), SECRET].concat(),
    );
    assert!(!open.contains("unauth"), "{open:?}");
    front.stop();
    node.stop();
}

/// An address of this host that is not loopback, if it has one.
fn outside_address() -> Option<std::net::IpAddr> {
    let probe = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    probe.connect("192.0.2.1:9").ok()?;
    let ip = probe.local_addr().ok()?.ip();
    (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip)
}

/// Sends one auth line on a new connection; None when the connection was closed unanswered.
fn auth(address: std::net::SocketAddr, secret: &[u8]) -> Option<String> {
    let mut stream = TcpStream::connect(address).ok()?;
    stream.set_nodelay(true).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    stream
        .write_all(&[b"A\t1\t".as_slice(), secret, b"\n"].concat())
        .ok()?;
    let mut answer = String::new();
    match reader.read_line(&mut answer) {
        Ok(n) if n > 0 => Some(answer),
        _ => None,
    }
}

#[test]
fn a_secret_guesser_off_this_host_is_turned_away() {
    let node = common::start_node();
    let front = hs::HsServer::start(hs::HsConfig {
        datanode: node.address().to_string(),
        read_listen: "0.0.0.0:0".into(),
        write_listen: "0.0.0.0:0".into(),
        read_secret: b"read".to_vec(),
        write_secret: SECRET.to_vec(),
        ..hs::HsConfig::default()
    })
    .unwrap();
    let Some(ip) = outside_address() else {
        println!("this host has no address off loopback: the test cannot run");
        return;
    };
    let outside = std::net::SocketAddr::new(ip, front.write_address().port());
    let local = std::net::SocketAddr::from(([127, 0, 0, 1], front.write_address().port()));
    let mut early = TcpStream::connect(outside).unwrap();
    early.set_nodelay(true).unwrap();
    early
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut early_reader = BufReader::new(early.try_clone().unwrap());
    for _ in 0..transport::auth::FAILURES_BEFORE_BLOCK {
        assert_eq!(auth(outside, b"guess").as_deref(), Some("3\t1\tunauth\n"));
    }
    // Turned away: closed unanswered, even with the secret; loopback is not.
    assert_eq!(auth(outside, SECRET), None);
    // Nor can a connection opened before the block go on guessing on it: even the secret is
    // refused there until the block ends.
    early
        .write_all(&[b"A\t1\t".as_slice(), SECRET, b"\n"].concat())
        .unwrap();
    let mut answer = String::new();
    early_reader.read_line(&mut answer).unwrap();
    assert_eq!(answer, "3\t1\tunauth\n");
    assert_eq!(auth(local, SECRET).as_deref(), Some("0\t1\n"));
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while auth(outside, SECRET).as_deref() != Some("0\t1\n") {
        assert!(
            std::time::Instant::now() < deadline,
            "still turned away after 10 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    front.stop();
    node.stop();
}
