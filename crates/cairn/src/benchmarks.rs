//! `cairn bench`: the benchmark programs' flags, and the runs of readperf, the key-value
//! lookups and the sysbench-shaped writes, which print their figures.

use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};

#[derive(Subcommand)]
pub enum BenchCommand {
    /// NDB's testReadPerf: every access path, us/row and rows/s, against a running cluster.
    Readperf(ReadperfArgs),
    /// Creates a sysbench-shaped table and loads it (for restart and memory measurements).
    Load {
        #[arg(long, default_value = "127.0.0.1:2202")]
        connect: String,
        #[arg(long, default_value = "sbtest1")]
        table: String,
        #[arg(long, default_value_t = 1_000_000)]
        rows: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Closed-loop writes in sysbench's oltp_insert / oltp_update_index shapes: ops/s, latency,
    /// server CPU per operation.
    Write(WriteArgs),
    /// Closed-loop key lookups over HandlerSocket or memcached: ops/s, latency, server CPU.
    Kv(KvArgs),
    /// A bare TCP echo server: the ping-pong baseline readperf runs in a process of its own.
    Echo {
        #[arg(long, default_value = "127.0.0.1:0")]
        listen: String,
    },
    /// A server that answers every HandlerSocket find or MySQL SELECT with one fixed row and does
    /// no other work: what the load generator and loopback alone cost, the most any server could
    /// serve here.
    Floor(FloorArgs),
}

#[derive(Args)]
pub struct FloorArgs {
    /// hs (HandlerSocket request lines) or mysql (the MySQL protocol; any login is accepted).
    #[arg(long, default_value = "mysql", value_parser = ["hs", "mysql"])]
    pub protocol: String,
    #[arg(long, default_value = "127.0.0.1:0")]
    pub listen: String,
    /// Event loops serving the connections; 0 for a blocking thread per connection.
    #[arg(long, default_value_t = 1)]
    pub loops: usize,
}

#[derive(Args)]
pub struct ReadperfArgs {
    /// Data node address (default: the one `cairn start` runs).
    #[arg(long, default_value = "127.0.0.1:2202")]
    connect: String,
    /// Rows in the table.
    #[arg(long, default_value_t = 1_000_000)]
    rows: u64,
    /// Rows per transaction or scan.
    #[arg(long, default_value_t = 1000)]
    range: u64,
    #[arg(long, default_value_t = 3)]
    iterations: u64,
    /// Each path repeats its iterations until it has run at least this long (0: exactly
    /// `--iterations`), so fast paths are timed over enough work to measure.
    #[arg(long, default_value_t = 0)]
    min_ms: u64,
    /// Seed of the key generator (printed, so a run can be repeated).
    #[arg(long)]
    seed: Option<u64>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
    /// Microseconds the client polls for each reply before sleeping; the ping-pong baseline
    /// waits the same way (0: sleep at once, as a plain blocking client).
    #[arg(long, default_value_t = 0)]
    client_spin_us: u64,
    /// The data node's process id, when it runs on this host: each path's server CPU per row
    /// is measured too (JSON: server_cpu_us_per_row).
    #[arg(long)]
    server_pid: Option<u32>,
}

#[derive(Args)]
pub struct KvArgs {
    /// hs (HandlerSocket find on PRIMARY) or memcached (get).
    #[arg(long, default_value = "hs", value_parser = ["hs", "memcached"])]
    protocol: String,
    /// Server address (a HandlerSocket read port, or memcached).
    #[arg(long, default_value = "127.0.0.1:9998")]
    connect: String,
    /// Keys are 1..=keys (the sysbench table's ids).
    #[arg(long, default_value_t = 1_000_000)]
    keys: u64,
    #[arg(long, default_value_t = 16)]
    connections: usize,
    /// Requests in flight per connection.
    #[arg(long, default_value_t = 1)]
    depth: usize,
    #[arg(long, default_value_t = 10.0)]
    duration: f64,
    #[arg(long, default_value_t = 2.0)]
    warmup: f64,
    /// Server processes whose CPU time per operation is reported (repeat or comma-separate).
    #[arg(long = "server-pid", value_delimiter = ',')]
    server_pids: Vec<u32>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// HandlerSocket database, table and column.
    #[arg(long, default_value = "sbtest")]
    db: String,
    #[arg(long, default_value = "sbtest1")]
    table: String,
    #[arg(long, default_value = "c")]
    column: String,
    /// memcached key prefix.
    #[arg(long, default_value = "sbtest1:")]
    prefix: String,
    /// memcached: first store the c column of the rows `cairn bench load --seed` makes.
    #[arg(long)]
    load: bool,
    /// HandlerSocket over TLS (`cairn start --hs-tls`): the CA file that signed the server's
    /// certificate (`cairn admin certs`: DIR/ca.pem).
    #[arg(long)]
    tls_ca: Option<std::path::PathBuf>,
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct WriteArgs {
    /// Data node address (default: the one `cairn start` runs).
    #[arg(long, default_value = "127.0.0.1:2202")]
    connect: String,
    #[arg(long, default_value = "sbtest1")]
    table: String,
    /// Table size: loaded (ids 1..=rows) when the table is missing or empty.
    #[arg(long, default_value_t = 1_000_000)]
    rows: u64,
    /// Client threads, each with its own connection.
    #[arg(long, alias = "connections", default_value_t = 16)]
    threads: usize,
    /// Seconds measured.
    #[arg(long, default_value_t = 15.0)]
    duration: f64,
    /// Seconds run before measuring.
    #[arg(long, default_value_t = 3.0)]
    warmup: f64,
    /// insert (sysbench oltp_insert) or update-index (oltp_update_index).
    #[arg(long, default_value = "insert", value_parser = ["insert", "update-index"])]
    workload: String,
    /// Server processes whose CPU time over the measured window is reported per operation
    /// (repeat, or separate with commas).
    #[arg(long = "server-pid", value_delimiter = ',')]
    server_pids: Vec<u32>,
    /// Seed of the row and key generator (printed, so a run can be repeated).
    #[arg(long)]
    seed: Option<u64>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
}

pub fn readperf(args: ReadperfArgs) -> Result<()> {
    if args.rows == 0 || args.range == 0 || args.iterations == 0 {
        bail!("--rows, --range and --iterations must be positive");
    }
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    });
    if !args.json {
        eprintln!("readperf against {} (seed {seed})", args.connect);
    }
    let opts = bench::readperf::Options {
        connect: args.connect,
        rows: args.rows,
        range: args.range,
        iterations: args.iterations,
        min_time: Duration::from_millis(args.min_ms),
        seed,
        progress: !args.json,
        client_spin: Duration::from_micros(args.client_spin_us),
        echo_program: std::env::current_exe().ok(),
        server_pid: args.server_pid,
    };
    let report = bench::readperf::run(&opts).context("running readperf")?;
    if args.json {
        println!("{}", report.json());
    } else {
        print!("{}", report.table());
    }
    Ok(())
}

pub fn bench_kv(args: KvArgs) -> Result<()> {
    let protocol = if args.protocol == "memcached" {
        bench::kv::Protocol::Memcached
    } else {
        bench::kv::Protocol::HandlerSocket
    };
    if args.load {
        if protocol != bench::kv::Protocol::Memcached {
            bail!("--load is for memcached; load Cairn with cairn bench load");
        }
        bench::kv::load_memcached(&args.connect, &args.prefix, args.keys, args.seed)
            .map_err(anyhow::Error::msg)
            .context("loading memcached")?;
        eprintln!("stored {} keys in memcached at {}", args.keys, args.connect);
    }
    let report = bench::kv::run(&bench::kv::Options {
        protocol,
        address: args.connect.clone(),
        keys: args.keys,
        connections: args.connections,
        depth: args.depth,
        duration: Duration::from_secs_f64(args.duration.max(0.1)),
        warmup: Duration::from_secs_f64(args.warmup.max(0.0)),
        server_pids: args.server_pids,
        seed: args.seed,
        db: args.db,
        table: args.table,
        column: args.column,
        prefix: args.prefix,
        tls_ca: args.tls_ca,
    })
    .map_err(anyhow::Error::msg)
    .context("kv benchmark")?;
    if args.json {
        println!("{}", report.json());
    } else {
        println!(
            "{} {} connections x {} in flight: {:.0} ops/s, p50 {:.0} us, p99 {:.0} us, {} errors, {} misses, server CPU {} us/op",
            args.protocol,
            args.connections,
            args.depth,
            report.ops_per_sec,
            report.p50_us,
            report.p99_us,
            report.errors,
            report.misses,
            report
                .server_cpu_us_per_op
                .map_or("-".to_string(), |v| format!("{v:.1}"))
        );
    }
    Ok(())
}

pub fn bench_write(args: WriteArgs) -> Result<()> {
    let seconds = |name: &str, v: f64| -> Result<Duration> {
        Duration::try_from_secs_f64(v).with_context(|| format!("--{name} {v} is not a duration"))
    };
    let workload = bench::write::Workload::parse(&args.workload)
        .with_context(|| format!("unknown workload {}", args.workload))?;
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    });
    if !args.json {
        eprintln!(
            "write {} against {} (seed {seed})",
            workload.name(),
            args.connect
        );
    }
    let opts = bench::write::Options {
        connect: args.connect,
        table: args.table,
        rows: args.rows,
        threads: args.threads,
        duration: seconds("duration", args.duration)?,
        warmup: seconds("warmup", args.warmup)?,
        workload,
        seed,
        server_pids: args.server_pids,
        progress: !args.json,
    };
    let report = bench::write::run(&opts).context("running the write benchmark")?;
    if args.json {
        println!("{}", report.json());
    } else {
        print!("{}", report.table());
    }
    Ok(())
}
