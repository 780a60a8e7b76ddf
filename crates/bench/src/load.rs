//! Bulk loading with many transactions in flight, deterministic row contents and a progress line.

use std::io::Write;
use std::time::{Duration, Instant};

use base::schema::{ColumnDef, IndexKind};
use base::types::ColumnType;
use base::{TableDef, Value};
use client::{AsyncSession, Cluster, ExecType, OpKind, Operation, Table};

/// sysbench's table: BIGINT id, INT k, CHAR(120) c, CHAR(60) pad, an ordered index on k; and,
/// as the SQL front end gives every primary key (NDB's way), an ordered index on id named
/// PRIMARY, which sysbench's range selects read.
pub fn sysbench_table(name: &str) -> TableDef {
    TableDef::new(
        name,
        vec![
            ColumnDef::new("id", ColumnType::BigInt { unsigned: false }),
            ColumnDef::new("k", ColumnType::Int { unsigned: false }).default(Value::Int(0)),
            ColumnDef::new("c", ColumnType::Char { length: 120 }).default(Value::from("")),
            ColumnDef::new("pad", ColumnType::Char { length: 60 }).default(Value::from("")),
        ],
        &["id"],
    )
    .and_then(|t| t.with_index("PRIMARY", IndexKind::Ordered, &["id"]))
    .and_then(|t| t.with_index("k_1", IndexKind::Ordered, &["k"]))
    .expect("static schema is valid")
}

/// Row `i` of a sysbench table of `rows` rows, with sysbench's value shapes.
pub fn sysbench_row(rng: &mut Rng, i: u64, rows: u64) -> Vec<(u16, Value)> {
    vec![
        (0, Value::Int(i as i64 + 1)),
        (1, Value::Int((rng.below(rows.max(1)) + 1) as i64)),
        (2, Value::from(rng.digits(119))),
        (3, Value::from(rng.digits(59))),
    ]
}

/// `cairn bench load`: creates a sysbench table and loads it, printing progress.
pub fn load_sysbench(
    connect: &str,
    table: &str,
    rows: u64,
    seed: u64,
    progress: bool,
) -> client::Result<Duration> {
    let cluster = Cluster::connect(connect)?;
    let t = cluster.create_table(sysbench_table(table))?;
    let mut rng = Rng::new(seed);
    load(&cluster, &t, rows, 1000, 8, progress, |i| {
        sysbench_row(&mut rng, i, rows)
    })
}

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
                    version: table.version(),
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
