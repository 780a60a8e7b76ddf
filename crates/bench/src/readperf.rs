//! `cairn bench readperf`: NDB's testReadPerf for Cairn. Per access path, a run of `range` rows in
//! one transaction (or scan), repeated `iterations` times over a table of `rows` rows; reports
//! microseconds per row and rows per second, beside a bare TCP ping-pong of the same message size
//! and the data node's resident memory per row of the sysbench row shape.

use std::net::TcpListener;
use std::time::{Duration, Instant};

use base::schema::{ColumnDef, IndexKind};
use base::types::ColumnType;
use base::{TableDef, Value};
use client::{Cluster, CmpOp, ExecType, Filter, LockMode, Scan, ScanOrder, Table};

use crate::load::{load, sysbench_row, sysbench_table, Rng};

#[derive(Debug, Clone)]
pub struct Options {
    pub connect: String,
    pub rows: u64,
    pub range: u64,
    pub iterations: u64,
    /// Each path repeats its iterations until it has run at least this long.
    pub min_time: Duration,
    pub seed: u64,
    pub progress: bool,
    /// How long the client polls for a reply before sleeping (the ping-pong baseline waits the
    /// same way); zero sleeps at once.
    pub client_spin: Duration,
    /// A `cairn` executable to run the echo server of the ping-pong baseline in a process of its
    /// own, as the data node is; None runs it as a thread of this process.
    pub echo_program: Option<std::path::PathBuf>,
    /// The data node's process, on this host: each path's server CPU per row is measured too.
    pub server_pid: Option<u32>,
}

/// CPU time this process used so far (user and system, every thread, ended ones too), in
/// nanoseconds.
pub fn own_cpu_ns() -> Option<u64> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes the struct it is given and nothing else.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) } != 0 {
        return None;
    }
    // SAFETY: initialised by the successful call above.
    let usage = unsafe { usage.assume_init() };
    let ns = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1_000;
    Some(ns(usage.ru_utime) + ns(usage.ru_stime))
}

/// CPU time of every live thread of process `pid` so far, in nanoseconds (the first field of
/// each `/proc/PID/task/TID/schedstat`); None where the kernel does not say.
pub fn cpu_ns(pid: u32) -> Option<u64> {
    let mut total = 0u64;
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).ok()? {
        let path = task.ok()?.path().join("schedstat");
        // A thread that ended between the listing and the read counts nothing.
        if let Ok(text) = std::fs::read_to_string(path) {
            total += text.split_whitespace().next()?.parse::<u64>().ok()?;
        }
    }
    Some(total)
}

/// The baseline's echo server as a child process, stopped when dropped.
struct EchoProcess(std::process::Child);

impl Drop for EchoProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `program bench echo` and returns it with the address it listens on.
fn spawn_echo(program: &std::path::Path) -> std::io::Result<(EchoProcess, std::net::SocketAddr)> {
    use std::io::BufRead;
    let mut child = std::process::Command::new(program)
        .args(["bench", "echo", "--listen", "127.0.0.1:0"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()?;
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| std::io::Error::other("echo server has no stdout"))?;
    let guard = EchoProcess(child);
    let mut line = String::new();
    std::io::BufReader::new(stdout).read_line(&mut line)?;
    let address = line
        .trim()
        .rsplit(' ')
        .next()
        .and_then(|a| a.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("echo server said {line:?}")))?;
    Ok((guard, address))
}

/// One measured access path.
#[derive(Debug, Clone)]
pub struct PathResult {
    pub name: &'static str,
    pub us_per_row: f64,
    pub rows_per_sec: f64,
    /// CPU this process (the client) spent per row.
    pub client_cpu_us_per_row: f64,
    /// CPU the data node spent per row, when its process is known (`Options::server_pid`).
    pub server_cpu_us_per_row: Option<f64>,
}

#[derive(Debug, Clone)]
pub struct Report {
    pub rows: u64,
    pub range: u64,
    pub iterations: u64,
    pub seed: u64,
    pub client_spin_us: u64,
    pub workers: u32,
    pub paths: Vec<PathResult>,
    /// Round trip to an echo server in a process of its own (the baseline), or in this process
    /// when no echo program was given.
    pub pingpong_us: f64,
    /// Round trip to an echo server thread inside the benchmark's own process.
    pub pingpong_in_process_us: f64,
    pub message_bytes: usize,
    /// Resident bytes per row of the sysbench shape (BIGINT id, INT k, CHAR(120) c, CHAR(60) pad,
    /// ordered index on k).
    pub bytes_per_row: f64,
    /// Rows the filtered full scan examined per second, per worker thread.
    pub scan_rows_examined_per_sec_per_worker: f64,
}

/// Bytes of a one-row primary-key read request frame (header + body): the ping-pong size.
fn request_bytes(table: &Table, columns: &[u16]) -> usize {
    let op = wire::Operation {
        kind: wire::OpKind::Read(LockMode::CommittedRead),
        table: table.id(),
        version: table.version(),
        index: None,
        key: vec![Value::Int(1)],
        values: Vec::new(),
        projection: columns.to_vec(),
    };
    let mut out = Vec::new();
    wire::Message::Execute {
        transaction: 1,
        statement: 0,
        keep_from: 0,
        exec: ExecType::NoCommit,
        operations: vec![op],
    }
    .write_frame(&mut out, 0, 0, 1);
    out.len()
}

fn readperf_table() -> TableDef {
    let mut t = sysbench_table("readperf");
    t.columns
        .push(ColumnDef::new("u", ColumnType::Int { unsigned: true }));
    t.with_index("u_1", IndexKind::Unique, &["u"])
        .expect("static schema is valid")
}

fn io_error(e: std::io::Error) -> client::ClientError {
    client::ClientError::ConnectionLost(format!("ping-pong: {e}"))
}

fn recreate(cluster: &Cluster, def: TableDef) -> client::Result<Table> {
    if cluster.table(&def.name).is_ok() {
        cluster.drop_table(&def.name)?;
    }
    cluster.create_table(def)
}

/// Runs every path and returns the report.
pub fn run(opts: &Options) -> client::Result<Report> {
    let cluster = Cluster::connect(&opts.connect)?;
    cluster.set_reply_spin(opts.client_spin);
    let status = cluster.status()?;
    let mut rng = Rng::new(opts.seed);
    let rows = opts.rows.max(1);
    let range = opts.range.clamp(1, rows);

    // Memory of the sysbench row shape, measured on its own table first.
    let before = cluster.status()?.resident_bytes;
    let sb = recreate(&cluster, sysbench_table("readperf_sysbench"))?;
    let mut text_rng = rng.clone();
    load(&cluster, &sb, rows, 1000, 8, opts.progress, |i| {
        sysbench_row(&mut text_rng, i, rows)
    })?;
    let after = cluster.status()?.resident_bytes;
    let bytes_per_row = after.saturating_sub(before) as f64 / rows as f64;
    cluster.drop_table("readperf_sysbench")?;

    let table = recreate(&cluster, readperf_table())?;
    load(&cluster, &table, rows, 1000, 8, opts.progress, |i| {
        vec![
            (0, Value::Int(i as i64)),
            (1, Value::Int(i as i64)),
            (2, Value::from(text_rng.digits(119))),
            (3, Value::from(text_rng.digits(59))),
            (4, Value::UInt(i)),
        ]
    })?;

    let u_index = table.unique_index("u_1")?;
    let columns = table.columns(&["id", "k", "c"])?;
    let mut paths = Vec::new();
    let per = |elapsed: Duration, rows: u64| {
        let us = elapsed.as_secs_f64() * 1e6 / rows.max(1) as f64;
        (us, 1e6 / us.max(1e-9))
    };
    // Time a path spent on work it does not count (the interleaved ping-pong).
    let excluded = std::cell::Cell::new(Duration::ZERO);
    let mut measure = |name: &'static str,
                       f: &mut dyn FnMut(&mut Rng) -> client::Result<u64>|
     -> client::Result<()> {
        // One untimed run first warms caches, buffers and the connection, as the seed's
        // program did by running each test repeatedly.
        f(&mut rng)?;
        excluded.set(Duration::ZERO);
        // The client's threads may end within a path: its whole process's count. The data
        // node's threads live through it: theirs, to the nanosecond.
        let cpu = || (own_cpu_ns(), opts.server_pid.and_then(cpu_ns));
        let cpu_before = cpu();
        let start = Instant::now();
        let mut counted = 0;
        let mut done = 0;
        while done < opts.iterations.max(1) || start.elapsed() < opts.min_time {
            counted += f(&mut rng)?;
            done += 1;
        }
        let elapsed = start
            .elapsed()
            .saturating_sub(excluded.replace(Duration::ZERO));
        let (us_per_row, rows_per_sec) = per(elapsed, counted);
        let cpu_after = cpu();
        let per_row = |before: Option<u64>, after: Option<u64>| {
            Some(after?.saturating_sub(before?) as f64 / 1e3 / counted.max(1) as f64)
        };
        let client_cpu_us_per_row = per_row(cpu_before.0, cpu_after.0).unwrap_or(0.0);
        let server_cpu_us_per_row = per_row(cpu_before.1, cpu_after.1);
        if opts.progress {
            eprintln!("  {name:<24} {us_per_row:>10.2} us/row {rows_per_sec:>12.0} rows/s");
        }
        paths.push(PathResult {
            name,
            us_per_row,
            rows_per_sec,
            client_cpu_us_per_row,
            server_cpu_us_per_row,
        });
        Ok(())
    };
    let expect_row = |found: bool| -> client::Result<()> {
        if found {
            Ok(())
        } else {
            Err(client::ClientError::Failed(base::Error::new(
                base::ErrorCode::NotFound,
                "readperf row missing",
            )))
        }
    };

    // Serial reads alternate with slices of a bare TCP ping-pong of the same request size, so both
    // run under the same machine conditions (idle states and scheduling vary a lot on small VMs).
    // The baseline crosses a process boundary like every request to the data node does; on this
    // kind of machine a thread-to-thread round trip inside one process is several times cheaper.
    let listener = TcpListener::bind("127.0.0.1:0").map_err(io_error)?;
    let local_addr = listener.local_addr().map_err(io_error)?;
    std::thread::spawn(move || transport::echo::serve(listener));
    let message_bytes = request_bytes(&table, &columns);
    let mut ping_local =
        transport::echo::PingPong::connect(local_addr, message_bytes).map_err(io_error)?;
    ping_local.set_spin(opts.client_spin);
    let (_echo, echo_addr) = match &opts.echo_program {
        Some(program) => {
            let (child, addr) = spawn_echo(program).map_err(io_error)?;
            (Some(child), addr)
        }
        None => (None, local_addr),
    };
    let mut ping =
        transport::echo::PingPong::connect(echo_addr, message_bytes).map_err(io_error)?;
    let mut pingpong = Duration::ZERO;
    let mut pingpong_local = Duration::ZERO;
    let mut pingpongs = 0u64;
    measure("serial pk read", &mut |rng| {
        let mut txn = cluster.transaction();
        let slice = (range / 10).max(1);
        let mut done = 0;
        while done < range {
            let n = slice.min(range - done);
            for _ in 0..n {
                let op = txn.read_with(
                    &table,
                    vec![Value::Int(rng.below(rows) as i64)],
                    LockMode::CommittedRead,
                    columns.clone(),
                );
                txn.execute(ExecType::NoCommit)?;
                expect_row(txn.row(op).is_some())?;
            }
            let pp = ping.run(n as usize).map_err(io_error)?;
            let local = ping_local.run(n as usize).map_err(io_error)?;
            excluded.set(excluded.get() + pp + local);
            pingpong += pp;
            pingpong_local += local;
            pingpongs += n;
            done += n;
        }
        txn.commit()?;
        Ok(range)
    })?;
    measure("batched pk read", &mut |rng| {
        let mut txn = cluster.transaction();
        let ops: Vec<_> = (0..range)
            .map(|_| {
                txn.read_with(
                    &table,
                    vec![Value::Int(rng.below(rows) as i64)],
                    LockMode::CommittedRead,
                    columns.clone(),
                )
            })
            .collect();
        txn.execute(ExecType::Commit)?;
        for op in ops {
            expect_row(txn.row(op).is_some())?;
        }
        Ok(range)
    })?;
    measure("serial uk read", &mut |rng| {
        let mut txn = cluster.transaction();
        for _ in 0..range {
            let op = txn.read_unique(
                &table,
                u_index,
                vec![Value::UInt(rng.below(rows))],
                LockMode::CommittedRead,
                columns.clone(),
            );
            txn.execute(ExecType::NoCommit)?;
            expect_row(txn.row(op).is_some())?;
        }
        txn.commit()?;
        Ok(range)
    })?;
    measure("batched uk read", &mut |rng| {
        let mut txn = cluster.transaction();
        let ops: Vec<_> = (0..range)
            .map(|_| {
                txn.read_unique(
                    &table,
                    u_index,
                    vec![Value::UInt(rng.below(rows))],
                    LockMode::CommittedRead,
                    columns.clone(),
                )
            })
            .collect();
        txn.execute(ExecType::Commit)?;
        for op in ops {
            expect_row(txn.row(op).is_some())?;
        }
        Ok(range)
    })?;
    measure("index eq-bound scan", &mut |rng| {
        for _ in 0..range {
            let v = rng.below(rows) as i64;
            let got = cluster.scan(
                &table,
                &Scan::index("k_1")
                    .equal(vec![Value::Int(v)])
                    .columns(&["id", "k", "c"]),
            )?;
            expect_row(got.len() == 1)?;
        }
        Ok(range)
    })?;
    measure("index range scan", &mut |rng| {
        let low = rng.below(rows - range + 1) as i64;
        let scan = Scan::index("k_1")
            .from(vec![Value::Int(low)], true)
            .to(vec![Value::Int(low + range as i64)], false)
            .columns(&["id", "k", "c"]);
        let got = cluster.scan(&table, &scan)?;
        expect_row(got.len() as u64 == range)?;
        Ok(range)
    })?;
    measure("sorted range scan", &mut |rng| {
        let low = rng.below(rows - range + 1) as i64;
        let scan = Scan::index("k_1")
            .from(vec![Value::Int(low)], true)
            .to(vec![Value::Int(low + range as i64)], false)
            .columns(&["id", "k", "c"])
            .order(ScanOrder::Ascending);
        let got = cluster.scan(&table, &scan)?;
        expect_row(
            got.len() as u64 == range
                && got.windows(2).all(|w| {
                    w[0][1].compare(&w[1][1], base::Collation::Binary)
                        == Some(std::cmp::Ordering::Less)
                }),
        )?;
        Ok(range)
    })?;
    let k = table.column("k")?;
    let scan_start = Instant::now();
    let mut examined = 0u64;
    measure("full scan with filter", &mut |rng| {
        let low = rng.below(rows - range + 1) as i64;
        let filter = Filter::And(vec![
            Filter::Cmp {
                column: k,
                op: CmpOp::Ge,
                value: Value::Int(low),
            },
            Filter::Cmp {
                column: k,
                op: CmpOp::Lt,
                value: Value::Int(low + range as i64),
            },
        ]);
        let got = cluster.scan(
            &table,
            &Scan::table().filter(filter).columns(&["id", "k", "c"]),
        )?;
        expect_row(got.len() as u64 == range)?;
        examined += rows;
        Ok(range)
    })?;
    let scan_elapsed = scan_start.elapsed();
    let scan_rows_examined_per_sec_per_worker =
        examined as f64 / scan_elapsed.as_secs_f64() / f64::from(status.worker_count.max(1));

    let pingpong_us = pingpong.as_secs_f64() * 1e6 / pingpongs.max(1) as f64;
    let pingpong_in_process_us = pingpong_local.as_secs_f64() * 1e6 / pingpongs.max(1) as f64;

    cluster.drop_table("readperf")?;
    Ok(Report {
        rows,
        range,
        iterations: opts.iterations,
        seed: opts.seed,
        client_spin_us: opts.client_spin.as_micros() as u64,
        workers: status.worker_count,
        paths,
        pingpong_us,
        pingpong_in_process_us,
        message_bytes,
        bytes_per_row,
        scan_rows_examined_per_sec_per_worker,
    })
}

impl Report {
    /// The terminal table, in the seed's style.
    pub fn table(&self) -> String {
        let mut s = format!(
            "readperf: {} rows, range {}, {} iterations, {} worker threads, client spin {} us, seed {}\n\n{:<26} {:>12} {:>14}\n",
            self.rows, self.range, self.iterations, self.workers, self.client_spin_us, self.seed, "access path", "us/row", "rows/sec"
        );
        for p in &self.paths {
            s += &format!(
                "{:<26} {:>12.2} {:>14.0}\n",
                p.name, p.us_per_row, p.rows_per_sec
            );
        }
        s += &format!(
            "{:<26} {:>12.2}\n",
            format!("tcp ping-pong ({} B)", self.message_bytes),
            self.pingpong_us
        );
        s += &format!(
            "{:<26} {:>12.2}\n",
            "  same-process ping-pong", self.pingpong_in_process_us
        );
        s += &format!(
            "\nfull scan examined {:.0} rows/s per worker thread\n",
            self.scan_rows_examined_per_sec_per_worker
        );
        s += &format!(
            "data node resident memory per row: {:.0} bytes (sysbench shape: BIGINT id, INT k, CHAR(120) c, CHAR(60) pad, ordered index on k)\n",
            self.bytes_per_row
        );
        s
    }

    /// One JSON object: the paths plus pingpong_us and bytes_per_row.
    pub fn json(&self) -> String {
        let paths: Vec<String> = self
            .paths
            .iter()
            .map(|p| {
                format!(
                    "{{\"name\":\"{}\",\"us_per_row\":{:.3},\"rows_per_sec\":{:.0},\"client_cpu_us_per_row\":{:.3},\"server_cpu_us_per_row\":{}}}",
                    p.name,
                    p.us_per_row,
                    p.rows_per_sec,
                    p.client_cpu_us_per_row,
                    p.server_cpu_us_per_row
                        .map_or("null".to_string(), |c| format!("{c:.3}"))
                )
            })
            .collect();
        format!(
            "{{\"rows\":{},\"range\":{},\"iterations\":{},\"workers\":{},\"client_spin_us\":{},\"seed\":{},\"paths\":[{}],\"pingpong_us\":{:.3},\"pingpong_in_process_us\":{:.3},\"bytes_per_row\":{:.1},\"scan_rows_examined_per_sec_per_worker\":{:.0}}}",
            self.rows,
            self.range,
            self.iterations,
            self.workers,
            self.client_spin_us,
            self.seed,
            paths.join(","),
            self.pingpong_us,
            self.pingpong_in_process_us,
            self.bytes_per_row,
            self.scan_rows_examined_per_sec_per_worker
        )
    }
}
