//! `cairn bench write`: a closed-loop write benchmark in the shapes of sysbench's `oltp_insert`
//! and `oltp_update_index`, run through the native client with one connection per thread; reports
//! operations per second, latency percentiles, retried errors and the server's CPU per operation.
//!
//! It owns the workload shapes and the measurement window; it does not start, stop or configure
//! the server (the durability mode under test is whatever the server was started with).

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::time::{Duration, Instant};

use base::{ErrorCode, Value};
use client::{ClientError, Cluster, ExecType, OpResult, Scan, Table};

use crate::load::{load_sysbench, Rng};

/// The workload one run drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    /// sysbench `oltp_insert`: one row with a fresh id per autocommit transaction.
    Insert,
    /// sysbench `oltp_update_index`: `k = k + 1` on a random existing id, one transaction.
    UpdateIndex,
}

impl Workload {
    /// Parses the command-line name: `insert` or `update-index`.
    pub fn parse(name: &str) -> Option<Workload> {
        match name {
            "insert" => Some(Workload::Insert),
            "update-index" => Some(Workload::UpdateIndex),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Workload::Insert => "insert",
            Workload::UpdateIndex => "update-index",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Options {
    pub connect: String,
    pub table: String,
    /// The table's loaded size: ids 1..=rows exist (loaded here when the table is missing or
    /// empty); update-index picks among them, insert writes ids beyond every existing one.
    pub rows: u64,
    /// Client threads, each with its own connection.
    pub threads: usize,
    pub duration: Duration,
    pub warmup: Duration,
    pub workload: Workload,
    pub seed: u64,
    /// Processes whose CPU time over the measured window is reported per operation.
    pub server_pids: Vec<u32>,
    /// Progress (loading) on stderr.
    pub progress: bool,
}

/// What a run can fail with.
#[derive(Debug)]
pub enum Error {
    /// A client call failed with an error that retrying does not cure.
    Client { context: String, error: ClientError },
    /// The table or the options do not allow the run.
    Setup(String),
    /// Reading a process's CPU time from /proc failed.
    Cpu { pid: u32, why: String },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Client { context, error } => write!(f, "{context}: {error}"),
            Error::Setup(why) => write!(f, "{why}"),
            Error::Cpu { pid, why } => write!(f, "reading CPU time of process {pid}: {why}"),
        }
    }
}

impl std::error::Error for Error {}

fn failed(context: impl Into<String>) -> impl FnOnce(ClientError) -> Error {
    let context = context.into();
    move |error| Error::Client { context, error }
}

#[derive(Debug, Clone)]
pub struct Report {
    pub workload: Workload,
    pub table: String,
    pub rows: u64,
    pub threads: usize,
    pub seed: u64,
    /// Seconds the table load took in this run (0 when it was there already).
    pub load_seconds: f64,
    pub warmup_seconds: f64,
    /// The measured window, as timed.
    pub seconds: f64,
    /// Operations completed (committed) inside the window.
    pub ops: u64,
    pub ops_per_sec: f64,
    pub p50_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
    /// Temporary errors (lock-wait timeouts, overload) inside the window; each was retried.
    pub errors: u64,
    pub server_pids: Vec<u32>,
    /// CPU seconds (user + system) of the server processes over the window.
    pub server_cpu_seconds: Option<f64>,
    pub server_cpu_us_per_op: Option<f64>,
    /// This benchmark process's own CPU per operation (the client side, for comparison).
    pub client_cpu_us_per_op: Option<f64>,
    /// Bytes the server processes sent to storage over the window (/proc/PID/io write_bytes),
    /// per operation: what durability costs the disk.
    pub server_disk_bytes_per_op: Option<f64>,
}

/// The measured window: its length, the server's and the client's CPU seconds, and the bytes
/// the server wrote to storage.
type Window = (Duration, Option<f64>, Option<f64>, Option<u64>);

/// Linux reports process CPU times in USER_HZ ticks, 100 per second on every architecture Cairn
/// runs on (x86-64, aarch64).
const TICKS_PER_SECOND: f64 = 100.0;

/// utime + stime of a process, in seconds, from /proc/PID/stat.
fn cpu_seconds(pid: u32) -> Result<f64, Error> {
    let path = format!("/proc/{pid}/stat");
    let text = std::fs::read_to_string(&path).map_err(|e| Error::Cpu {
        pid,
        why: format!("{path}: {e}"),
    })?;
    cpu_seconds_of(&text).ok_or_else(|| Error::Cpu {
        pid,
        why: format!("unexpected format of {path}"),
    })
}

/// Parses utime and stime (fields 14 and 15) out of a /proc/PID/stat line. The command name
/// (field 2) may hold spaces and parentheses, so fields are counted after its last ')'.
fn cpu_seconds_of(stat: &str) -> Option<f64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some((utime + stime) as f64 / TICKS_PER_SECOND)
}

/// Bytes a process caused to be written to storage (`write_bytes` of /proc/PID/io); None when
/// the kernel does not report it.
pub(crate) fn disk_write_bytes(pid: u32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/io")).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("write_bytes:"))
        .and_then(|v| v.trim().parse().ok())
}

fn total_disk_bytes(pids: &[u32]) -> Option<u64> {
    pids.iter().map(|&p| disk_write_bytes(p)).sum()
}

pub(crate) fn total_cpu(pids: &[u32]) -> Result<f64, Error> {
    pids.iter().map(|&p| cpu_seconds(p)).sum()
}

/// The nearest-rank percentile of sorted samples, in microseconds.
pub(crate) fn percentile_us(sorted_ns: &[u64], p: f64) -> f64 {
    if sorted_ns.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted_ns.len() as f64).ceil() as usize;
    sorted_ns[rank.clamp(1, sorted_ns.len()) - 1] as f64 / 1e3
}

/// Opens the table, loading it when it is missing or empty; returns it with the load time. A
/// table that has rows but lacks id `rows` was loaded with another size: an error, not a reload.
fn prepare_table(cluster: &Cluster, opts: &Options) -> Result<(Table, Duration), Error> {
    let existing = match cluster.table(&opts.table) {
        Ok(t) => Some(t),
        Err(e) if e.code() == ErrorCode::NoSuchTable => None,
        Err(e) => return Err(failed(format!("looking up table {}", opts.table))(e)),
    };
    if let Some(table) = &existing {
        let any = cluster
            .scan(table, &Scan::table().limit(1))
            .map_err(failed(format!("checking whether {} is empty", opts.table)))?;
        if !any.is_empty() {
            let mut txn = cluster.transaction();
            let last = txn.read(table, vec![Value::Int(opts.rows as i64)]);
            txn.execute(ExecType::Commit).map_err(failed(format!(
                "reading id {} of {}",
                opts.rows, opts.table
            )))?;
            if txn.row(last).is_none() {
                return Err(Error::Setup(format!(
                    "table {} has rows but no id {}: it was loaded with another size; pass its \
                     --rows or drop it",
                    opts.table, opts.rows
                )));
            }
            return Ok((table.clone(), Duration::ZERO));
        }
        cluster
            .drop_table(&opts.table)
            .map_err(failed(format!("dropping empty table {}", opts.table)))?;
    }
    let took = load_sysbench(
        &opts.connect,
        &opts.table,
        opts.rows,
        opts.seed,
        opts.progress,
    )
    .map_err(failed(format!(
        "loading {} rows into {}",
        opts.rows, opts.table
    )))?;
    let table = cluster
        .table(&opts.table)
        .map_err(failed(format!("opening table {}", opts.table)))?;
    Ok((table, took))
}

/// The first id above every existing one (ids 1..=rows are loaded; earlier insert runs may have
/// added more above them). One filtered scan, run inside the data node.
fn first_free_id(cluster: &Cluster, table: &Table, rows: u64) -> Result<i64, Error> {
    let id = table
        .column("id")
        .map_err(failed("the table has no id column"))?;
    let above = cluster
        .scan(
            table,
            &Scan::table()
                .filter(client::Filter::Cmp {
                    column: id,
                    op: client::CmpOp::Gt,
                    value: Value::Int(rows as i64),
                })
                .columns(&["id"]),
        )
        .map_err(failed("finding the highest id"))?;
    let mut max = rows as i64;
    for row in &above {
        if let Some(Value::Int(v)) = row.first() {
            max = max.max(*v);
        }
    }
    Ok(max + 1)
}

/// Column positions of the sysbench table.
#[derive(Clone, Copy)]
struct Columns {
    id: u16,
    k: u16,
    c: u16,
    pad: u16,
}

/// Phases shared by the driver and the client threads.
const WARMUP: u8 = 0;
const MEASURE: u8 = 1;
const STOP: u8 = 2;

/// What one client thread measured.
struct ThreadResult {
    latencies_ns: Vec<u64>,
    errors: u64,
}

/// One client thread's connection and workload.
struct Client<'a> {
    cluster: Cluster,
    table: &'a Table,
    cols: Columns,
    workload: Workload,
    rows: u64,
    /// Ids this thread inserts next; it steps by the thread count, so threads never collide.
    next_id: i64,
    id_step: i64,
    rng: Rng,
}

impl Client<'_> {
    /// One operation of the workload, retried while it fails with a temporary error. Returns the
    /// number of temporary errors met.
    fn op(&mut self) -> Result<u64, Error> {
        let mut errors = 0;
        match self.workload {
            Workload::Insert => {
                let id = self.next_id;
                self.next_id += self.id_step;
                let values = vec![
                    (self.cols.id, Value::Int(id)),
                    (
                        self.cols.k,
                        Value::Int((self.rng.below(self.rows) + 1) as i64),
                    ),
                    (self.cols.c, Value::from(self.rng.digits(119))),
                    (self.cols.pad, Value::from(self.rng.digits(59))),
                ];
                loop {
                    let mut txn = self.cluster.transaction();
                    txn.insert(self.table, values.clone());
                    match txn.execute(ExecType::Commit) {
                        Ok(()) => return Ok(errors),
                        Err(e) if e.is_temporary() => errors += 1,
                        Err(e) => return Err(failed(format!("inserting id {id}"))(e)),
                    }
                }
            }
            Workload::UpdateIndex => {
                let id = (self.rng.below(self.rows) + 1) as i64;
                loop {
                    match update_k(&self.cluster, self.table, self.cols.k, id) {
                        Ok(()) => return Ok(errors),
                        Err(e) if e.is_temporary() => errors += 1,
                        Err(e) => return Err(failed(format!("updating k of id {id}"))(e)),
                    }
                }
            }
        }
    }
}

/// `UPDATE t SET k = k + 1 WHERE id = ?` as one committed transaction of one increment
/// operation: the data node adds 1 to k and maintains k's index, in one round trip, as an SQL
/// server does inside one statement.
fn update_k(cluster: &Cluster, table: &Table, k: u16, id: i64) -> client::Result<()> {
    let mut txn = cluster.transaction();
    let op = txn.increment(table, vec![Value::Int(id)], vec![(k, 1)]);
    txn.execute(ExecType::Commit)?;
    match txn.result(op) {
        Some(OpResult::Done { .. }) => Ok(()),
        other => Err(ClientError::Failed(base::Error::new(
            ErrorCode::NotFound,
            format!("no row with id {id}: {other:?}"),
        ))),
    }
}

/// Sleeps until `deadline`, waking early when `aborted` is set.
fn sleep_until(deadline: Instant, aborted: &AtomicBool) {
    loop {
        let now = Instant::now();
        if now >= deadline || aborted.load(Ordering::Acquire) {
            return;
        }
        std::thread::sleep((deadline - now).min(Duration::from_millis(50)));
    }
}

/// Loads the table if needed, then runs the workload: `warmup` unmeasured, then `duration`
/// measured, all threads in a closed loop (each sends its next operation when the last is done).
pub fn run(opts: &Options) -> Result<Report, Error> {
    if opts.threads == 0 || opts.rows == 0 || opts.duration.is_zero() {
        return Err(Error::Setup(
            "--threads, --rows and --duration must be positive".into(),
        ));
    }
    let rows = opts.rows;
    for &pid in &opts.server_pids {
        cpu_seconds(pid)?;
    }
    let cluster = Cluster::connect(&opts.connect)
        .map_err(failed(format!("connecting to {}", opts.connect)))?;
    let (table, load_took) = prepare_table(&cluster, opts)?;
    let cols = Columns {
        id: table.column("id").map_err(failed("sysbench table"))?,
        k: table.column("k").map_err(failed("sysbench table"))?,
        c: table.column("c").map_err(failed("sysbench table"))?,
        pad: table.column("pad").map_err(failed("sysbench table"))?,
    };
    let first_id = match opts.workload {
        Workload::Insert => first_free_id(&cluster, &table, rows)?,
        Workload::UpdateIndex => 0,
    };
    drop(cluster);

    let connections = (0..opts.threads)
        .map(|t| {
            Cluster::connect(&opts.connect)
                .map_err(failed(format!("connection {t} to {}", opts.connect)))
        })
        .collect::<Result<Vec<_>, _>>()?;

    let phase = AtomicU8::new(WARMUP);
    let aborted = AtomicBool::new(false);
    let self_pid = [std::process::id()];
    let (results, window, server_cpu, client_cpu, server_disk) = std::thread::scope(|s| {
        let handles: Vec<_> = connections
            .into_iter()
            .enumerate()
            .map(|(t, cluster)| {
                let (phase, aborted, table) = (&phase, &aborted, &table);
                s.spawn(move || -> Result<ThreadResult, Error> {
                    let mut c = Client {
                        cluster,
                        table,
                        cols,
                        workload: opts.workload,
                        rows,
                        // Thread t inserts first_id + t, then + threads each time.
                        next_id: first_id + t as i64,
                        id_step: opts.threads as i64,
                        rng: Rng::new(
                            opts.seed ^ (t as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                        ),
                    };
                    let mut out = ThreadResult {
                        latencies_ns: Vec::new(),
                        errors: 0,
                    };
                    loop {
                        if phase.load(Ordering::Acquire) == STOP {
                            return Ok(out);
                        }
                        let start = Instant::now();
                        let result = c.op();
                        let took = start.elapsed();
                        let errors = match result {
                            Ok(errors) => errors,
                            Err(e) => {
                                aborted.store(true, Ordering::Release);
                                return Err(e);
                            }
                        };
                        if phase.load(Ordering::Acquire) == MEASURE {
                            out.latencies_ns.push(took.as_nanos() as u64);
                            out.errors += errors;
                        }
                    }
                })
            })
            .collect();

        let measure = || -> Result<Window, Error> {
            sleep_until(Instant::now() + opts.warmup, &aborted);
            let disk_before = total_disk_bytes(&opts.server_pids);
            let server_before = total_cpu(&opts.server_pids)?;
            let client_before = total_cpu(&self_pid).ok();
            let start = Instant::now();
            phase.store(MEASURE, Ordering::Release);
            sleep_until(start + opts.duration, &aborted);
            phase.store(STOP, Ordering::Release);
            let window = start.elapsed();
            let server = total_cpu(&opts.server_pids)? - server_before;
            let client = client_before.and_then(|b| total_cpu(&self_pid).ok().map(|a| a - b));
            let server = (!opts.server_pids.is_empty()).then_some(server);
            let disk = disk_before
                .zip(total_disk_bytes(&opts.server_pids))
                .map(|(b, a)| a.saturating_sub(b))
                .filter(|_| !opts.server_pids.is_empty());
            Ok((window, server, client, disk))
        };
        let measured = measure();
        phase.store(STOP, Ordering::Release);
        let results: Vec<Result<ThreadResult, Error>> = handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::Setup("a client thread panicked".into())))
            })
            .collect();
        match measured {
            Ok((window, server, client, disk)) => Ok((results, window, server, client, disk)),
            Err(e) => Err(e),
        }
    })?;

    let mut latencies = Vec::new();
    let mut errors = 0;
    for r in results {
        let r = r?;
        latencies.extend(r.latencies_ns);
        errors += r.errors;
    }
    latencies.sort_unstable();
    let ops = latencies.len() as u64;
    let seconds = window.as_secs_f64();
    let per_op = |cpu: f64| cpu * 1e6 / ops.max(1) as f64;
    Ok(Report {
        workload: opts.workload,
        table: opts.table.clone(),
        rows,
        threads: opts.threads,
        seed: opts.seed,
        load_seconds: load_took.as_secs_f64(),
        warmup_seconds: opts.warmup.as_secs_f64(),
        seconds,
        ops,
        ops_per_sec: ops as f64 / seconds.max(1e-9),
        p50_us: percentile_us(&latencies, 50.0),
        p99_us: percentile_us(&latencies, 99.0),
        max_us: latencies.last().map_or(0.0, |&ns| ns as f64 / 1e3),
        errors,
        server_pids: opts.server_pids.clone(),
        server_cpu_seconds: server_cpu,
        server_cpu_us_per_op: server_cpu.map(per_op),
        client_cpu_us_per_op: client_cpu.map(per_op),
        server_disk_bytes_per_op: server_disk.map(|b| b as f64 / ops.max(1) as f64),
    })
}

fn optional(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.decimals$}"))
}

fn json_optional(v: Option<f64>) -> String {
    v.map_or_else(|| "null".into(), |v| format!("{v:.3}"))
}

impl Report {
    /// The terminal table.
    pub fn table(&self) -> String {
        let mut s = format!(
            "write {}: table {} ({} rows{}), {} connections, {:.1} s measured after {:.1} s warm-up, seed {}\n\n",
            self.workload.name(),
            self.table,
            self.rows,
            if self.load_seconds > 0.0 {
                format!(", loaded in {:.1} s", self.load_seconds)
            } else {
                String::new()
            },
            self.threads,
            self.seconds,
            self.warmup_seconds,
            self.seed
        );
        s += &format!(
            "{:>12} {:>10} {:>10} {:>10} {:>8} {:>18} {:>18}\n",
            "ops/s", "p50 us", "p99 us", "max us", "errors", "server cpu us/op", "client cpu us/op"
        );
        s += &format!(
            "{:>12.0} {:>10.0} {:>10.0} {:>10.0} {:>8} {:>18} {:>18}\n",
            self.ops_per_sec,
            self.p50_us,
            self.p99_us,
            self.max_us,
            self.errors,
            optional(self.server_cpu_us_per_op, 1),
            optional(self.client_cpu_us_per_op, 1)
        );
        if let Some(cpu) = self.server_cpu_seconds {
            let pids: Vec<String> = self.server_pids.iter().map(|p| p.to_string()).collect();
            s += &format!(
                "\n{} operations; server (pid {}) used {:.2} CPU s, {:.2} cores\n",
                self.ops,
                pids.join(","),
                cpu,
                cpu / self.seconds.max(1e-9)
            );
        } else {
            s += &format!("\n{} operations\n", self.ops);
        }
        if let Some(bytes) = self.server_disk_bytes_per_op {
            s += &format!("server wrote {bytes:.0} bytes to storage per operation\n");
        }
        s
    }

    /// One JSON object.
    pub fn json(&self) -> String {
        let pids: Vec<String> = self.server_pids.iter().map(|p| p.to_string()).collect();
        format!(
            "{{\"workload\":\"{}\",\"table\":\"{}\",\"rows\":{},\"threads\":{},\"seed\":{},\"load_seconds\":{:.3},\"warmup_seconds\":{:.3},\"seconds\":{:.3},\"ops\":{},\"ops_per_sec\":{:.1},\"p50_us\":{:.1},\"p99_us\":{:.1},\"max_us\":{:.1},\"errors\":{},\"server_pids\":[{}],\"server_cpu_seconds\":{},\"server_cpu_us_per_op\":{},\"client_cpu_us_per_op\":{},\"server_disk_bytes_per_op\":{}}}",
            self.workload.name(),
            self.table.replace('\\', "\\\\").replace('"', "\\\""),
            self.rows,
            self.threads,
            self.seed,
            self.load_seconds,
            self.warmup_seconds,
            self.seconds,
            self.ops,
            self.ops_per_sec,
            self.p50_us,
            self.p99_us,
            self.max_us,
            self.errors,
            pids.join(","),
            json_optional(self.server_cpu_seconds),
            json_optional(self.server_cpu_us_per_op),
            json_optional(self.client_cpu_us_per_op),
            json_optional(self.server_disk_bytes_per_op)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_parsing_counts_fields_after_the_command_name() {
        let line =
            "1234 (cairn (x) y) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 9 0 1 2 3";
        assert_eq!(cpu_seconds_of(line), Some(3.0));
        assert_eq!(cpu_seconds_of("garbage"), None);
    }

    #[test]
    fn percentiles_use_the_nearest_rank() {
        let ns: Vec<u64> = (1..=100).map(|i| i * 1000).collect();
        assert_eq!(percentile_us(&ns, 50.0), 50.0);
        assert_eq!(percentile_us(&ns, 99.0), 99.0);
        assert_eq!(percentile_us(&[], 99.0), 0.0);
        assert_eq!(percentile_us(&[7000], 50.0), 7.0);
    }

    #[test]
    fn workload_names_round_trip() {
        for w in [Workload::Insert, Workload::UpdateIndex] {
            assert_eq!(Workload::parse(w.name()), Some(w));
        }
        assert_eq!(Workload::parse("delete"), None);
    }
}
