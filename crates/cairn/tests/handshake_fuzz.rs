//! Fuzzing the authentication handshakes of every protocol (issue 42), against a real `cairn
//! start` with every credential set (cluster key and TLS on the native port, HandlerSocket
//! secrets, the SQL root password): for a fixed time per protocol (`CAIRN_FUZZ_SECONDS`, 5 s),
//! connections send random and mutated handshakes, each taken from a seed printed first
//! (`CAIRN_FUZZ_SEED` repeats one). No attempt may log in, and the server must still serve
//! clients that hold the credentials afterwards (a panic ends the process: fail-stop).
//!
//! - native: random bytes, or the cluster key proven right and then random or damaged TLS
//!   records; then a `Ping` frame, which must never be answered;
//! - SQL: the greeting read, then a damaged HandshakeResponse41 for root (random scramble, bits
//!   flipped anywhere), and random bytes for an auth switch; never an OK packet;
//! - HandlerSocket: random lines and the write secret with one byte changed, then an open_index,
//!   which must answer `unauth`.
//!
//! Native attempts come from 250 loopback addresses (127.0.0.2 ...), so that the failed-login
//! limiter, which turns an address away after 5 failures (closing its connections at once), still
//! lets hundreds of them reach each stage of the handshake; the test counts those that did.

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use common::{free_port, fresh_dir, seed_from_env, spawn};

const HS_WRITE_SECRET: &str = "the write secret of the fuzz test";
const SQL_PASSWORD: &str = "the root password of the fuzz test";

fn fuzz_time() -> Duration {
    let seconds = std::env::var("CAIRN_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5.0);
    Duration::from_secs_f64(seconds)
}

/// `common::random`, with what the fuzzing draws from it.
struct Rng(Box<dyn FnMut() -> u64>);

impl Rng {
    fn next(&mut self) -> u64 {
        (self.0)()
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn bytes(&mut self, max: u64) -> Vec<u8> {
        let len = self.below(max + 1);
        (0..len).map(|_| self.next() as u8).collect()
    }
    /// `bytes` with 1 to 4 bytes changed (never left equal).
    fn damage(&mut self, bytes: &[u8]) -> Vec<u8> {
        let mut out = bytes.to_vec();
        if out.is_empty() {
            return vec![self.next() as u8];
        }
        for _ in 0..=self.below(4) {
            let i = self.below(out.len() as u64) as usize;
            out[i] ^= (self.below(255) + 1) as u8;
        }
        if self.below(8) == 0 {
            out.truncate(self.below(out.len() as u64) as usize);
        }
        if out == bytes {
            out.push(0);
        }
        out
    }
}

/// Connects from a loopback source address of its own (`127.0.0.K`).
fn connect_from(source: u8, to: SocketAddr) -> std::io::Result<TcpStream> {
    use std::os::fd::FromRawFd;
    let SocketAddr::V4(to) = to else {
        panic!("an IPv4 address")
    };
    let address = |ip: [u8; 4], port: u16| libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: port.to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from_ne_bytes(ip),
        },
        sin_zero: [0; 8],
    };
    let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
    // SAFETY: a new socket, owned by the TcpStream from here on; bind and connect read the
    // addresses given, which live through the calls.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let stream = TcpStream::from_raw_fd(fd);
        let from = address([127, 0, 0, source], 0);
        if libc::bind(fd, (&from as *const libc::sockaddr_in).cast(), len) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let to = address(to.ip().octets(), to.port());
        if libc::connect(fd, (&to as *const libc::sockaddr_in).cast(), len) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        stream.set_read_timeout(Some(Duration::from_secs(5)))?;
        Ok(stream)
    }
}

/// Reads until the peer closes or `limit` bytes came, for at most the stream's read timeout.
fn read_some(stream: &mut TcpStream, limit: usize) -> Vec<u8> {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while got.len() < limit {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
    got
}

struct Server {
    _process: common::Started,
    native: SocketAddr,
    sql: String,
    hs_write: String,
    key: std::path::PathBuf,
    client_tls: std::path::PathBuf,
    dir: std::path::PathBuf,
}

fn start() -> Server {
    let dir = fresh_dir("handshake-fuzz");
    std::fs::create_dir_all(&dir).unwrap();
    let key = dir.join("cluster.key");
    std::fs::write(&key, b"the cluster key of the fuzz test").unwrap();
    let certs = dir.join("certs");
    let made = std::process::Command::new(common::cairn_binary())
        .args([
            "admin",
            "certs",
            "--dir",
            certs.to_str().unwrap(),
            "node",
            "client",
        ])
        .output()
        .unwrap();
    assert!(made.status.success());
    let port = free_port();
    let data = dir.join("data");
    let node_tls = certs.join("node");
    let args = [
        "--cluster-key-file",
        key.to_str().unwrap(),
        "--cluster-tls",
        node_tls.to_str().unwrap(),
        "start",
        "--datanode-port",
        &port.to_string(),
        "--data-dir",
        data.to_str().unwrap(),
        "--hs-read-secret",
        "the read secret of the fuzz test",
        "--hs-write-secret",
        HS_WRITE_SECRET,
        "--sql-root-password",
        SQL_PASSWORD,
        "--hs-read-port",
        "0",
        "--hs-write-port",
        "0",
        "--sql-port",
        "0",
    ];
    let process = spawn(&args);
    let sql = process.listening("sql (mysql protocol): ");
    let (_, hs_write) = process.hs_addresses();
    Server {
        native: format!("127.0.0.1:{port}").parse().unwrap(),
        sql,
        hs_write,
        key,
        client_tls: certs.join("client"),
        _process: process,
        dir,
    }
}

/// The native port: nothing but the cluster key and then a certificate of the cluster's CA
/// gets a frame answered.
fn fuzz_native(server: &Server, rng: &mut Rng) -> (usize, usize, usize) {
    let key = transport::auth::ClusterKey::load(&server.key).unwrap();
    let mut ping = Vec::new();
    wire::Message::Ping {
        payload: b"fuzz".to_vec(),
    }
    .write_frame(&mut ping, 0, 0, 1);
    let (mut attempts, mut challenged, mut past_key) = (0, 0, 0);
    let deadline = Instant::now() + fuzz_time();
    while Instant::now() < deadline {
        let source = 2 + (attempts % 250) as u8;
        attempts += 1;
        let Ok(mut stream) = connect_from(source, server.native) else {
            continue;
        };
        if rng.below(2) == 0 {
            // The key's stage: random bytes, or a damaged answer to the real challenge.
            let mut challenge = [0u8; 37];
            if stream.read_exact(&mut challenge).is_err() {
                continue;
            }
            challenged += 1;
            let mut answer = b"CAIA".to_vec();
            answer.extend(rng.bytes(80));
            let _ = stream.write_all(&rng.damage(&answer));
        } else {
            // Past the key, then random or damaged TLS records.
            if transport::auth::client_handshake(&mut stream, &key).is_err() {
                continue;
            }
            past_key += 1;
            let mut record = vec![0x16, 0x03, 0x01];
            let body = rng.bytes(300);
            record.extend((body.len() as u16).to_be_bytes());
            record.extend(body);
            let bytes = if rng.below(2) == 0 {
                record
            } else {
                rng.bytes(400)
            };
            let _ = stream.write_all(&bytes);
        }
        let _ = stream.write_all(&ping);
        // Nothing more comes: the node decides on what it has.
        let _ = stream.shutdown(std::net::Shutdown::Write);
        let answer = read_some(&mut stream, 64 * 1024);
        // A Pong would carry the payload back in the clear: the handshake never let it through.
        assert!(
            !answer.windows(4).any(|w| w == b"fuzz"),
            "attempt {attempts}: a native frame was answered"
        );
    }
    (attempts, challenged, past_key)
}

/// One MySQL packet: length, sequence, payload.
fn packet(seq: u8, payload: &[u8]) -> Vec<u8> {
    let mut p = (payload.len() as u32).to_le_bytes()[..3].to_vec();
    p.push(seq);
    p.extend_from_slice(payload);
    p
}

/// Runs `attempt` on fresh connections to `address` for the fuzz time; how many ran.
fn attempts(address: &str, mut attempt: impl FnMut(TcpStream, usize)) -> usize {
    let address: SocketAddr = address.parse().unwrap();
    let mut count = 0;
    let deadline = Instant::now() + fuzz_time();
    while Instant::now() < deadline {
        count += 1;
        let stream = TcpStream::connect(address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        attempt(stream, count);
    }
    count
}

fn fuzz_sql(server: &Server, rng: &mut Rng) -> usize {
    attempts(&server.sql, |mut stream, attempts| {
        let mut header = [0u8; 4];
        stream.read_exact(&mut header).expect("a greeting");
        let len = u32::from_le_bytes([header[0], header[1], header[2], 0]) as usize;
        let mut greeting = vec![0u8; len];
        stream.read_exact(&mut greeting).unwrap();
        // HandshakeResponse41: PROTOCOL_41 | SECURE_CONNECTION | PLUGIN_AUTH, root, a scramble.
        let mut response = Vec::new();
        response.extend((0x0000_0200u32 | 0x0000_8000 | 0x0008_0000).to_le_bytes());
        response.extend(16_777_216u32.to_le_bytes());
        response.push(45);
        response.extend([0u8; 23]);
        response.extend(b"root\0");
        let scramble = rng.bytes(20);
        response.push(scramble.len() as u8);
        response.extend(&scramble);
        response.extend(b"mysql_native_password\0");
        let sent = if rng.below(3) == 0 {
            rng.damage(&response)
        } else {
            response
        };
        let _ = stream.write_all(&packet(1, &sent));
        let mut answer = read_some(&mut stream, 4);
        if answer.len() >= 5 && answer[4] == 0xfe {
            // An auth switch: answer it with random bytes.
            let _ = stream.write_all(&packet(answer[3].wrapping_add(1), &rng.bytes(32)));
            answer = read_some(&mut stream, 4);
        }
        // An OK packet (0x00 after the header) would be a login.
        assert!(
            !(answer.len() >= 5 && answer[4] == 0x00),
            "attempt {attempts}: SQL logged in: {answer:?}"
        );
    })
}

fn fuzz_hs(server: &Server, rng: &mut Rng) -> usize {
    attempts(&server.hs_write, |mut stream, attempts| {
        let mut line = match rng.below(3) {
            0 => rng.bytes(200),
            1 => {
                let mut l = b"A\t1\t".to_vec();
                l.extend(rng.damage(HS_WRITE_SECRET.as_bytes()));
                l
            }
            _ => rng.damage(format!("A\t1\t{HS_WRITE_SECRET}").as_bytes()),
        };
        line.retain(|b| *b != b'\n');
        line.push(b'\n');
        line.extend(b"P\t0\tfuzz\tnone\tPRIMARY\tc\n");
        if stream.write_all(&line).is_err() {
            return;
        }
        let answer = read_some(&mut stream, 1);
        let mut all = answer;
        while all.iter().filter(|b| **b == b'\n').count() < 2 {
            let more = read_some(&mut stream, all.len() + 1);
            if more.is_empty() {
                break;
            }
            all.extend(more);
        }
        let text = String::from_utf8_lossy(&all);
        let last = text.lines().last().unwrap_or("");
        assert!(
            last.contains("unauth"),
            "attempt {attempts}: open_index after {:?} answered {text:?}",
            String::from_utf8_lossy(&line)
        );
    })
}

#[test]
fn no_handshake_lets_anyone_in_without_credentials() {
    let seed = seed_from_env("CAIRN_FUZZ_SEED");
    println!(
        "seed {seed} (CAIRN_FUZZ_SEED repeats it), {:?} per protocol",
        fuzz_time()
    );
    let server = start();
    let mut rng = Rng(Box::new(common::random(seed)));
    let (native, challenged, past_key) = fuzz_native(&server, &mut rng);
    println!(
        "native: {native} attempts ({} closed at once by the failed-login limiter), {challenged} answered the key's challenge wrongly, {past_key} proved the key and sent TLS garbage",
        native - challenged - past_key
    );
    let sql = fuzz_sql(&server, &mut rng);
    println!("sql: {sql} attempts");
    let hs = fuzz_hs(&server, &mut rng);
    println!("handlersocket: {hs} attempts");
    assert!(challenged > 50 && past_key > 50 && sql > 50 && hs > 50);

    // Still serving those who hold the credentials, on every port.
    let out = std::process::Command::new(common::cairn_binary())
        .args([
            "--cluster-key-file",
            server.key.to_str().unwrap(),
            "--cluster-tls",
            server.client_tls.to_str().unwrap(),
            "admin",
            "status",
            "--connect",
            &server.native.to_string(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (host, port) = server.sql.rsplit_once(':').unwrap();
    let out = std::process::Command::new("mysql")
        .args([
            "-h",
            host,
            "-P",
            port,
            "-uroot",
            &format!("-p{SQL_PASSWORD}"),
            "-e",
            "SELECT 1",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut hs = TcpStream::connect(&server.hs_write).unwrap();
    hs.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    hs.write_all(format!("A\t1\t{HS_WRITE_SECRET}\n").as_bytes())
        .unwrap();
    let mut reply = [0u8; 4];
    hs.read_exact(&mut reply).unwrap();
    assert_eq!(&reply, b"0\t1\n");
    let _ = std::fs::remove_dir_all(&server.dir);
}
