//! Bulk loading with many transactions in flight, deterministic row contents and a progress line.

use std::io::Write;
use std::time::{Duration, Instant};

use base::Value;
use client::{AsyncSession, Cluster, ExecType, OpKind, Operation, Table};

/// A small deterministic generator (xorshift64*), so a run can be repeated from its seed.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in 0..n.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// sysbench's string shape: groups of 11 digits joined by '-', `len` characters.
    pub fn digits(&mut self, len: usize) -> String {
        let mut s = String::with_capacity(len);
        while s.len() < len {
            if s.len() % 12 == 11 {
                s.push('-');
            } else {
                s.push((b'0' + (self.below(10) as u8)) as char);
            }
        }
        s
    }
}

/// Inserts `rows` rows made by `make(i)` in transactions of `batch` rows, `depth` in flight,
/// printing progress to stderr when `progress` is set.
pub fn load(
    cluster: &Cluster,
    table: &Table,
    rows: u64,
    batch: u64,
    depth: usize,
    progress: bool,
    mut make: impl FnMut(u64) -> Vec<(u16, Value)>,
) -> client::Result<Duration> {
    let mut session = AsyncSession::new(cluster);
    let start = Instant::now();
    let mut next = 0u64;
    let mut done = 0u64;
    let mut last_print = Instant::now();
    while done < rows {
        while next < rows && session.in_flight() < depth {
            let end = (next + batch).min(rows);
            let ops = (next..end)
                .map(|i| Operation {
                    kind: OpKind::Insert,
                    table: table.id(),
                    index: None,
                    key: Vec::new(),
                    values: make(i),
                    projection: Vec::new(),
                })
                .collect();
            session.prepare(end - next, ops, ExecType::Commit)?;
            next = end;
        }
        session.send()?;
        for (count, result) in session.poll(1, Duration::from_secs(60))? {
            result?;
            done += count;
        }
        if progress && (last_print.elapsed() > Duration::from_millis(250) || done == rows) {
            last_print = Instant::now();
            let rate = done as f64 / start.elapsed().as_secs_f64().max(1e-9);
            eprint!(
                "\r  loading {}: {:>3}% ({done}/{rows} rows, {rate:.0} rows/s)   ",
                table.name(),
                done * 100 / rows.max(1)
            );
            let _ = std::io::stderr().flush();
        }
    }
    if progress {
        eprintln!();
    }
    Ok(start.elapsed())
}
