//! `cairn bench kv`: a closed-loop load generator for key lookups over the HandlerSocket and
//! memcached text protocols, so Cairn and its peers are measured by the same client. Each
//! connection keeps `depth` requests in flight (pipelined) on random keys of a sysbench table;
//! the report gives throughput, latency percentiles, errors and misses, and the CPU time per
//! operation of the server processes named.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::time::{Duration, Instant};

use crate::load::{sysbench_row, Rng};
use crate::write::{percentile_us, total_cpu};

/// The protocol spoken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// `find` on PRIMARY of `db.table`, returning one column.
    HandlerSocket,
    /// `get <prefix><id>`.
    Memcached,
}

/// What to run.
#[derive(Debug, Clone)]
pub struct Options {
    pub protocol: Protocol,
    pub address: String,
    /// Keys are 1..=keys.
    pub keys: u64,
    pub connections: usize,
    /// Requests in flight per connection.
    pub depth: usize,
    pub duration: Duration,
    pub warmup: Duration,
    pub server_pids: Vec<u32>,
    pub seed: u64,
    /// HandlerSocket: database, table and the column fetched.
    pub db: String,
    pub table: String,
    pub column: String,
    /// memcached: key prefix.
    pub prefix: String,
    /// HandlerSocket over TLS: the CA that signed the server's certificate (`cairn start
    /// --hs-tls --hs-tls-cert`, made by `cairn admin certs`).
    pub tls_ca: Option<std::path::PathBuf>,
}

/// What a run measured.
#[derive(Debug, Clone)]
pub struct Report {
    pub ops: u64,
    pub seconds: f64,
    pub ops_per_sec: f64,
    pub p50_us: f64,
    pub p99_us: f64,
    pub errors: u64,
    pub misses: u64,
    pub server_cpu_us_per_op: Option<f64>,
}

impl Report {
    pub fn json(&self) -> String {
        format!(
            "{{\"ops\":{},\"seconds\":{:.3},\"ops_per_sec\":{:.1},\"p50_us\":{:.1},\"p99_us\":{:.1},\"errors\":{},\"misses\":{},\"server_cpu_us_per_op\":{}}}",
            self.ops,
            self.seconds,
            self.ops_per_sec,
            self.p50_us,
            self.p99_us,
            self.errors,
            self.misses,
            self.server_cpu_us_per_op
                .map_or("null".to_string(), |v| format!("{v:.2}"))
        )
    }
}

const WARMUP: u8 = 0;
const MEASURE: u8 = 1;
const STOP: u8 = 2;
/// Largest response kept buffered before it is parsed (one row of a sysbench table is tiny).
const RESPONSE_BYTES_MAX: usize = 16 << 20;

struct Counts {
    latencies_ns: Vec<u64>,
    errors: u64,
    misses: u64,
}

/// CPU seconds of the server processes.
fn cpu(pids: &[u32]) -> Result<f64, String> {
    total_cpu(pids).map_err(|e| e.to_string())
}

/// Runs the load and reports.
pub fn run(opts: &Options) -> Result<Report, String> {
    if opts.keys == 0 || opts.connections == 0 || opts.depth == 0 {
        return Err("--keys, --connections and --depth must be positive".into());
    }
    let mut streams = Vec::with_capacity(opts.connections);
    for c in 0..opts.connections {
        let s = TcpStream::connect(&opts.address)
            .map_err(|e| format!("connection {c} to {}: {e}", opts.address))?;
        s.set_nodelay(true).map_err(|e| e.to_string())?;
        s.set_read_timeout(Some(Duration::from_secs(30)))
            .map_err(|e| e.to_string())?;
        let mut s = match &opts.tls_ca {
            None => transport::Stream::Tcp(s),
            Some(ca) => transport::Stream::Tls(
                transport::tls::connect_checked(s, ca)
                    .map_err(|e| format!("connection {c}: TLS: {e}"))?,
            ),
        };
        if opts.protocol == Protocol::HandlerSocket {
            let open = format!(
                "P\t0\t{}\t{}\tPRIMARY\t{}\n",
                opts.db, opts.table, opts.column
            );
            s.write_all(open.as_bytes()).map_err(|e| e.to_string())?;
            let mut answer = Vec::new();
            read_line(&mut s, &mut answer)?;
            if answer != b"0\t1\n" {
                return Err(format!(
                    "open_index answered {:?}",
                    String::from_utf8_lossy(&answer)
                ));
            }
        }
        streams.push(s);
    }
    let phase = AtomicU8::new(WARMUP);
    let failed = AtomicBool::new(false);
    let (results, window, server_cpu) = std::thread::scope(|scope| {
        let handles: Vec<_> = streams
            .into_iter()
            .enumerate()
            .map(|(i, stream)| {
                let (phase, failed) = (&phase, &failed);
                scope.spawn(move || -> Result<Counts, String> {
                    let r = connection(opts, stream, opts.seed ^ ((i as u64 + 1) * 0x9E37), phase);
                    if r.is_err() {
                        failed.store(true, Ordering::SeqCst);
                    }
                    r
                })
            })
            .collect();
        let wait = |d: Duration| {
            let end = Instant::now() + d;
            while Instant::now() < end && !failed.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(20).min(end - Instant::now()));
            }
        };
        wait(opts.warmup);
        let before = cpu(&opts.server_pids);
        let start = Instant::now();
        phase.store(MEASURE, Ordering::SeqCst);
        wait(opts.duration);
        phase.store(STOP, Ordering::SeqCst);
        let window = start.elapsed();
        let after = cpu(&opts.server_pids);
        let results: Vec<Result<Counts, String>> = handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a connection thread panicked".into()))
            })
            .collect();
        let server = match (before, after) {
            (Ok(b), Ok(a)) if !opts.server_pids.is_empty() => Some(a - b),
            _ => None,
        };
        (results, window, server)
    });
    let mut latencies = Vec::new();
    let (mut errors, mut misses) = (0, 0);
    for r in results {
        let c = r?;
        latencies.extend(c.latencies_ns);
        errors += c.errors;
        misses += c.misses;
    }
    latencies.sort_unstable();
    let ops = latencies.len() as u64;
    let seconds = window.as_secs_f64();
    Ok(Report {
        ops,
        seconds,
        ops_per_sec: ops as f64 / seconds.max(1e-9),
        p50_us: percentile_us(&latencies, 50.0),
        p99_us: percentile_us(&latencies, 99.0),
        errors,
        misses,
        server_cpu_us_per_op: server_cpu.map(|c| c * 1e6 / ops.max(1) as f64),
    })
}

fn read_line(s: &mut impl Read, out: &mut Vec<u8>) -> Result<(), String> {
    let mut b = [0u8; 1];
    loop {
        match s.read(&mut b) {
            Ok(0) => return Err("the server closed the connection".into()),
            Ok(_) => {
                out.push(b[0]);
                if b[0] == b'\n' {
                    return Ok(());
                }
            }
            Err(e) => return Err(e.to_string()),
        }
    }
}

/// One connection's closed loop: keep `depth` requests out, time each answer.
fn connection(
    opts: &Options,
    mut s: transport::Stream,
    seed: u64,
    phase: &AtomicU8,
) -> Result<Counts, String> {
    let mut rng = Rng::new(seed);
    let mut counts = Counts {
        latencies_ns: Vec::new(),
        errors: 0,
        misses: 0,
    };
    let mut sent: VecDeque<Instant> = VecDeque::with_capacity(opts.depth);
    let mut out = Vec::with_capacity(opts.depth * 64);
    let mut input: Vec<u8> = Vec::with_capacity(64 * 1024);
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let stopping = phase.load(Ordering::Relaxed) == STOP;
        if stopping && sent.is_empty() {
            return Ok(counts);
        }
        if !stopping {
            out.clear();
            while sent.len() < opts.depth {
                let key = rng.below(opts.keys) + 1;
                match opts.protocol {
                    Protocol::HandlerSocket => {
                        let _ = writeln!(out, "0\t=\t1\t{key}");
                    }
                    Protocol::Memcached => {
                        let _ = write!(out, "get {}{key}\r\n", opts.prefix);
                    }
                }
                sent.push_back(Instant::now());
            }
            if !out.is_empty() {
                s.write_all(&out).map_err(|e| format!("write: {e}"))?;
            }
        }
        let n = s.read(&mut chunk).map_err(|e| format!("read: {e}"))?;
        if n == 0 {
            return Err("the server closed the connection".into());
        }
        input.extend_from_slice(&chunk[..n]);
        if input.len() > RESPONSE_BYTES_MAX {
            return Err("an answer larger than 16 MiB".into());
        }
        let mut at = 0;
        while let Some((len, outcome)) = parse(opts.protocol, &input[at..]) {
            at += len;
            let Some(start) = sent.pop_front() else {
                return Err("an answer nobody asked for".into());
            };
            if phase.load(Ordering::Relaxed) == MEASURE {
                counts.latencies_ns.push(start.elapsed().as_nanos() as u64);
                match outcome {
                    Outcome::Hit => {}
                    Outcome::Miss => counts.misses += 1,
                    Outcome::Error => counts.errors += 1,
                }
            }
        }
        input.drain(..at);
    }
}

enum Outcome {
    Hit,
    Miss,
    Error,
}

/// The length of the first whole answer in `b`, and what it said.
fn parse(protocol: Protocol, b: &[u8]) -> Option<(usize, Outcome)> {
    match protocol {
        Protocol::HandlerSocket => {
            let end = b.iter().position(|c| *c == b'\n')?;
            let line = &b[..end];
            let outcome = if !line.starts_with(b"0\t") {
                Outcome::Error
            } else if line.iter().filter(|c| **c == b'\t').count() >= 2 {
                Outcome::Hit
            } else {
                Outcome::Miss
            };
            Some((end + 1, outcome))
        }
        Protocol::Memcached => {
            if b.starts_with(b"END\r\n") {
                return Some((5, Outcome::Miss));
            }
            if !b.starts_with(b"VALUE ") {
                let end = b.windows(2).position(|w| w == b"\r\n")?;
                return Some((end + 2, Outcome::Error));
            }
            let header_end = b.windows(2).position(|w| w == b"\r\n")?;
            let header = std::str::from_utf8(&b[..header_end]).ok()?;
            let bytes: usize = header.split(' ').nth(3)?.parse().ok()?;
            let total = header_end + 2 + bytes + 2 + 5;
            if b.len() < total {
                return None;
            }
            Some((total, Outcome::Hit))
        }
    }
}

/// Loads memcached with the `c` column of the sysbench rows `cairn bench load` makes with the
/// same seed: key `<prefix><id>`, value `c`.
pub fn load_memcached(address: &str, prefix: &str, keys: u64, seed: u64) -> Result<(), String> {
    let mut s = TcpStream::connect(address).map_err(|e| format!("{address}: {e}"))?;
    s.set_read_timeout(Some(Duration::from_secs(30)))
        .map_err(|e| e.to_string())?;
    let mut rng = Rng::new(seed);
    let mut batch = Vec::new();
    let mut pending = 0usize;
    let mut input = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    for i in 0..keys {
        let row = sysbench_row(&mut rng, i, keys);
        let c = match &row[2].1 {
            base::Value::Bytes(b) => b.clone(),
            _ => Vec::new(),
        };
        let _ = write!(batch, "set {prefix}{} 0 0 {}\r\n", i + 1, c.len());
        batch.extend_from_slice(&c);
        batch.extend_from_slice(b"\r\n");
        pending += 1;
        if pending == 200 || i + 1 == keys {
            s.write_all(&batch).map_err(|e| e.to_string())?;
            batch.clear();
            while pending > 0 {
                let n = s.read(&mut chunk).map_err(|e| e.to_string())?;
                if n == 0 {
                    return Err("memcached closed the connection".into());
                }
                input.extend_from_slice(&chunk[..n]);
                while let Some(end) = input.windows(2).position(|w| w == b"\r\n") {
                    if &input[..end] != b"STORED" {
                        return Err(format!(
                            "memcached answered {:?}",
                            String::from_utf8_lossy(&input[..end])
                        ));
                    }
                    input.drain(..end + 2);
                    pending -= 1;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_split_and_judged() {
        let hs = b"0\t1\tvalue\n0\t1\n2\t1\top\n0\t1\tpart";
        let mut at = 0;
        let mut seen = Vec::new();
        while let Some((len, o)) = parse(Protocol::HandlerSocket, &hs[at..]) {
            at += len;
            seen.push(matches!(o, Outcome::Hit) as u8 + 2 * matches!(o, Outcome::Miss) as u8);
        }
        assert_eq!(seen, vec![1, 2, 0]);
        let mc = b"VALUE k1 0 3\r\nabc\r\nEND\r\nEND\r\nVALUE k2 0 5\r\nab";
        let (len, o) = parse(Protocol::Memcached, mc).unwrap();
        assert_eq!(len, 24);
        assert!(matches!(o, Outcome::Hit));
        let (len, o) = parse(Protocol::Memcached, &mc[24..]).unwrap();
        assert_eq!(len, 5);
        assert!(matches!(o, Outcome::Miss));
        assert!(parse(Protocol::Memcached, &mc[29..]).is_none());
    }
}
