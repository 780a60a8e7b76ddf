//! `cairn sim`: runs the deterministic cluster simulator over one seed or many, or for a wall-clock
//! soak, prints each run's figures and trace digest, replays a failing seed with its last events,
//! and can shrink a failing run to the shortest that still fails.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use clap::Args;
use cluster::Mutation;
use sim::{Config, FaultRates, Report};

#[derive(Args)]
pub struct SimArgs {
    /// The first seed (default: from the clock, and printed).
    #[arg(long)]
    seed: Option<u64>,
    /// How many seeds to run, from --seed upwards.
    #[arg(long, default_value_t = 1)]
    seeds: u64,
    /// Wall-clock seconds to keep running new seeds (a soak); overrides --seeds.
    #[arg(long)]
    duration: Option<u64>,
    /// Simulated seconds per run; faults stop --quiet-seconds before the end.
    #[arg(long, default_value_t = 40)]
    run_seconds: u64,
    #[arg(long, default_value_t = 12)]
    quiet_seconds: u64,
    #[arg(long, default_value_t = 4)]
    data_nodes: u16,
    #[arg(long, default_value_t = 2)]
    replicas: u16,
    #[arg(long, default_value_t = 8)]
    clients: usize,
    /// Size of the key space the clients write (smaller: more lock conflicts).
    #[arg(long, default_value_t = 48)]
    keys: u64,
    /// Switches on a deliberate bug, to show the checkers catch it: ack-before-backups-prepared,
    /// skip-epoch-check-on-prepare, dead-without-arbitration, serve-before-caught-up or
    /// skip-gcp-fsync.
    #[arg(long)]
    mutation: Option<String>,
    /// Injects no faults at all.
    #[arg(long)]
    no_faults: bool,
    /// Probability that a message between nodes is dropped.
    #[arg(long)]
    drop: Option<f64>,
    #[arg(long)]
    duplicate: Option<f64>,
    /// Probability that a message is held back (up to 300 ms).
    #[arg(long)]
    delay: Option<f64>,
    /// Data node crashes per simulated second.
    #[arg(long)]
    crash_rate: Option<f64>,
    /// Network partitions per simulated second.
    #[arg(long)]
    partition_rate: Option<f64>,
    #[arg(long)]
    slow_rate: Option<f64>,
    /// Pauses of a node's whole process (it handles nothing for 0.2-6 s) per simulated second.
    #[arg(long)]
    pause_rate: Option<f64>,
    #[arg(long)]
    arbitrator_crash_rate: Option<f64>,
    /// Probability that an fsync fails (the node stops).
    #[arg(long)]
    fsync_fail: Option<f64>,
    /// Disks filling up per simulated second.
    #[arg(long)]
    disk_full_rate: Option<f64>,
    /// On a failure, look for the shortest run with the same seed that still fails.
    #[arg(long)]
    shrink: bool,
    /// Print every event of the run.
    #[arg(long)]
    trace: bool,
    /// Stop at the first failing seed.
    #[arg(long)]
    fail_fast: bool,
}

impl SimArgs {
    fn config(&self, seed: u64) -> Result<Config> {
        let mut config = Config::new(seed);
        config.duration = self.run_seconds * 1_000_000;
        config.quiet = self.quiet_seconds.min(self.run_seconds) * 1_000_000;
        config.data_nodes = self.data_nodes;
        config.replicas = self.replicas;
        config.clients = self.clients;
        config.keys = self.keys.max(1);
        config.trace = self.trace;
        config.mutation = match &self.mutation {
            None => None,
            Some(name) => match Mutation::parse(name) {
                Some(m) => Some(m),
                None => bail!(
                    "unknown mutation {name:?}; known: {}",
                    Mutation::ALL.map(|m| m.name()).join(", ")
                ),
            },
        };
        let mut f = if self.no_faults {
            FaultRates::none()
        } else {
            FaultRates::default()
        };
        let probability = |v: Option<f64>, d: f64| -> Result<f64> {
            match v {
                Some(p) if !(0.0..=1.0).contains(&p) => {
                    bail!("a probability must be in 0..=1, not {p}")
                }
                Some(p) => Ok(p),
                None => Ok(d),
            }
        };
        f.drop = probability(self.drop, f.drop)?;
        f.duplicate = probability(self.duplicate, f.duplicate)?;
        f.delay = probability(self.delay, f.delay)?;
        f.crash_per_s = self.crash_rate.unwrap_or(f.crash_per_s);
        f.partition_per_s = self.partition_rate.unwrap_or(f.partition_per_s);
        f.slow_per_s = self.slow_rate.unwrap_or(f.slow_per_s);
        f.pause_per_s = self.pause_rate.unwrap_or(f.pause_per_s);
        f.arbitrator_crash_per_s = self
            .arbitrator_crash_rate
            .unwrap_or(f.arbitrator_crash_per_s);
        f.fsync_fail = self.fsync_fail.unwrap_or(f.fsync_fail);
        f.disk_full_per_s = self.disk_full_rate.unwrap_or(f.disk_full_per_s);
        config.faults = f;
        Ok(config)
    }
}

pub fn run(args: SimArgs) -> Result<()> {
    let first = match args.seed {
        Some(seed) => seed,
        // The clock is only the seed's source; the run itself never reads it.
        None => {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)?
                .as_nanos() as u64
                >> 1
        }
    };
    let soak = args.duration.map(Duration::from_secs);
    let started = Instant::now();
    let mut totals = Totals::default();
    let mut seed = first;
    loop {
        let report = sim::run(args.config(seed)?).map_err(anyhow::Error::msg)?;
        print_run(&report);
        totals.add(&report);
        if !report.passed() {
            explain(&args, seed)?;
            if args.fail_fast {
                break;
            }
        }
        seed = seed.wrapping_add(1);
        let more = match soak {
            Some(limit) => started.elapsed() < limit,
            None => seed.wrapping_sub(first) < args.seeds,
        };
        if !more {
            break;
        }
    }
    totals.print(started.elapsed());
    if totals.failed > 0 {
        bail!(
            "{} of {} seeds failed (first seed {first})",
            totals.failed,
            totals.runs
        );
    }
    Ok(())
}

fn print_run(r: &Report) {
    let faults: Vec<String> = r.faults.iter().map(|(k, v)| format!("{k} {v}")).collect();
    println!(
        "seed {} {}: {:.1} simulated s in {:.2} s, {} events, digest {:016x}; {} commits ({} after faults), {} refused, {} unknown, {} reads; views up to {}; checkpoints durable up to {}; {} nodes stopped{}; faults: {}",
        r.seed,
        if r.passed() { "passed" } else { "FAILED" },
        r.simulated as f64 / 1e6,
        r.wall.as_secs_f64(),
        r.events,
        r.digest,
        r.commits,
        r.quiet_commits,
        r.refused,
        r.unknown,
        r.reads,
        r.newest_epoch,
        r.durable_gci,
        r.stops.len(),
        if r.cluster_lost { ", cluster lost" } else { "" },
        if faults.is_empty() { "none".into() } else { faults.join(", ") },
    );
    for f in &r.failures {
        println!("  check failed: {f}");
    }
}

/// Replays a failing seed keeping its last events, and shrinks it if asked.
fn explain(args: &SimArgs, seed: u64) -> Result<()> {
    let mut config = args.config(seed)?;
    config.keep_tail = true;
    let replay = sim::run(config.clone()).map_err(anyhow::Error::msg)?;
    println!(
        "  replayed: digest {:016x} ({})",
        replay.digest,
        if replay.passed() {
            "passed?"
        } else {
            "same failure"
        }
    );
    for stop in &replay.stops {
        println!("  stop: {stop}");
    }
    println!("  the last events before the end:");
    for line in &replay.tail {
        println!("    {line}");
    }
    if args.shrink {
        // The run's prefix is the same for any length (one random stream in event order), so the
        // shortest failing length is found by bisection on the time faults stop.
        let (mut good, mut bad) = (0u64, config.duration.saturating_sub(config.quiet));
        while bad - good > 500_000 {
            let mid = (good + bad) / 2;
            let mut c = config.clone();
            c.keep_tail = false;
            c.duration = mid + c.quiet;
            if sim::run(c).map_err(anyhow::Error::msg)?.passed() {
                good = mid;
            } else {
                bad = mid;
            }
        }
        println!(
            "  shrunk: faults for {:.1} s still fail (--seed {seed} --run-seconds {})",
            bad as f64 / 1e6,
            (bad + config.quiet).div_ceil(1_000_000)
        );
    }
    Ok(())
}

#[derive(Default)]
struct Totals {
    runs: u64,
    failed: u64,
    simulated: u64,
    events: u64,
    commits: u64,
    lost: u64,
    faults: BTreeMap<&'static str, u64>,
}

impl Totals {
    fn add(&mut self, r: &Report) {
        self.runs += 1;
        self.failed += u64::from(!r.passed());
        self.simulated += r.simulated;
        self.events += r.events;
        self.commits += r.commits;
        self.lost += u64::from(r.cluster_lost);
        for (k, v) in &r.faults {
            *self.faults.entry(k).or_default() += v;
        }
    }

    fn print(&self, wall: Duration) {
        let wall_s = wall.as_secs_f64().max(1e-9);
        println!(
            "{} seeds, {} failed, {} ended with a node group lost; {:.0} simulated s in {:.1} s wall ({:.0} cluster-seconds per second, {:.0} seeds per hour); {} events, {} commits",
            self.runs,
            self.failed,
            self.lost,
            self.simulated as f64 / 1e6,
            wall_s,
            self.simulated as f64 / 1e6 / wall_s,
            self.runs as f64 * 3600.0 / wall_s,
            self.events,
            self.commits
        );
        let faults: Vec<String> = self
            .faults
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        println!("faults injected: {}", faults.join(", "));
    }
}
