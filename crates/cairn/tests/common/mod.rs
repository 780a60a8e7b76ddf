//! Helpers the `cairn` binary's tests share: a free port, `cairn start` (or any other command)
//! as a child process (waiting on its printed lines, with deadlines), and the mysql
//! command-line client.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub mod failover;
#[path = "../../../../testsupport/ports.rs"]
mod ports;
#[allow(unused_imports)]
pub use ports::{free_block, free_port};

pub struct Started {
    pub child: Child,
    lines: mpsc::Receiver<String>,
    pub output: Vec<String>,
}

impl Drop for Started {
    /// A process a test no longer holds is killed, so a failing test leaves none running.
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

pub fn start(data_dir: &std::path::Path, port: u16) -> Started {
    start_with(data_dir, port, &[])
}

/// `cairn start` on `data_dir`, the data node on `port`, the front ends on free ports, with
/// `extra` flags.
pub fn start_with(data_dir: &std::path::Path, port: u16, extra: &[&str]) -> Started {
    let port = port.to_string();
    let dir = data_dir.to_string_lossy();
    let mut args = vec!["start", "--datanode-port", &port, "--data-dir", &dir];
    args.extend(FREE_FRONT_END_PORTS);
    args.extend(extra);
    spawn(&args)
}

/// A data directory named `name` (and this process) in the temporary directory, emptied.
pub fn fresh_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Flags that put every front end's listeners on free ports (printed at start).
pub const FREE_FRONT_END_PORTS: [&str; 6] = [
    "--hs-read-port",
    "0",
    "--hs-write-port",
    "0",
    "--sql-port",
    "0",
];

/// The `cairn` binary the tests run: this build's, or `CAIRN_TEST_BIN` (to loop a test on a
/// saved build while the tree changes).
pub fn cairn_binary() -> std::ffi::OsString {
    std::env::var_os("CAIRN_TEST_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_cairn").into())
}

/// Runs `cairn` with `args` and returns once it printed `ready`. Its log goes nowhere, or,
/// with `CAIRN_TEST_LOGS=DIR` (for debugging a test), to a file per process in DIR.
pub fn spawn(args: &[&str]) -> Started {
    spawn_wrapped(&[], args)
}

/// `spawn`, run through `wrap` (e.g. `ip netns exec NAME`, which execs it: the child is the
/// `cairn` process itself, and SIGKILL reaches it).
pub fn spawn_wrapped(wrap: &[String], args: &[&str]) -> Started {
    let stderr = match std::env::var_os("CAIRN_TEST_LOGS") {
        Some(dir) => {
            static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
            let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let name = format!(
                "{}-{n}-{}.log",
                std::process::id(),
                args.join("_").replace('/', "_")
            );
            let name: String = name.chars().take(120).collect();
            Stdio::from(
                std::fs::File::create(std::path::Path::new(&dir).join(name)).expect("log file"),
            )
        }
        None => Stdio::null(),
    };
    let mut command = match wrap.split_first() {
        Some((program, rest)) => {
            let mut c = Command::new(program);
            c.args(rest).arg(cairn_binary());
            c
        }
        None => Command::new(cairn_binary()),
    };
    let mut child = command
        .args(args)
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("cairn starts");
    let stdout = child.stdout.take().unwrap();
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let mut started = Started {
        child,
        lines,
        output: Vec::new(),
    };
    started.wait_for("ready", Duration::from_secs(30));
    started
}

impl Started {
    pub fn wait_for(&mut self, text: &str, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            match self
                .lines
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            {
                Ok(line) => {
                    let found = line.contains(text);
                    self.output.push(line);
                    if found {
                        return;
                    }
                }
                // Its output ended: the process is gone (say how, rather than wait it out).
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    let status = self.child.wait().map(|s| s.to_string());
                    panic!(
                        "cairn ended ({status:?}) before a line with {text:?} (a port another \
                         test took meanwhile?); output: {:?}",
                        self.output
                    );
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
        }
        let _ = self.child.kill();
        panic!(
            "no line with {text:?} within {timeout:?}; output so far: {:?}",
            self.output
        );
    }

    /// Waits for a printed line that satisfies `found`, returning it.
    pub fn wait_until(&mut self, found: impl Fn(&str) -> bool, timeout: Duration) -> String {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Ok(line) = self
                .lines
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            {
                self.output.push(line.clone());
                if found(&line) {
                    return line;
                }
            }
        }
        panic!(
            "no such line within {timeout:?}; output so far: {:?}",
            self.output
        );
    }

    /// Every line printed until the process ends (or `timeout` passes).
    pub fn lines_until_exit(&mut self, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        while let Ok(line) = self
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            self.output.push(line);
        }
        std::mem::take(&mut self.output)
    }

    /// The address printed after `prefix` (e.g. "sql (mysql protocol): ").
    /// The HandlerSocket read and write addresses `cairn start` printed.
    pub fn hs_addresses(&self) -> (String, String) {
        let line = self.listening("handlersocket: read ");
        let (read, write) = line
            .split_once(" write ")
            .expect("read and write addresses");
        (read.trim().to_string(), write.trim().to_string())
    }

    pub fn listening(&self, prefix: &str) -> String {
        self.output
            .iter()
            .find_map(|l| l.strip_prefix(prefix))
            .unwrap_or_else(|| panic!("no line starting {prefix:?}: {:?}", self.output))
            .to_string()
    }

    pub fn terminate(mut self) {
        // The shell's own kill, so the test needs no procps.
        let status = Command::new("sh")
            .args(["-c", &format!("kill -TERM {}", self.child.id())])
            .status()
            .unwrap();
        assert!(status.success());
        self.wait_for("stopped", Duration::from_secs(30));
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "cairn exited with {status}");
                return;
            }
            assert!(
                Instant::now() < deadline,
                "cairn did not exit after SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Runs `script` through the mysql command-line client in batch mode; its output, or a panic
/// with its error.
pub fn mysql(address: &str, script: &str) -> String {
    try_mysql(address, script).unwrap_or_else(|e| panic!("mysql failed: {e}"))
}

/// Runs `script` through the mysql command-line client in batch mode: its output, or what it
/// printed on stderr (the error) when it failed.
pub fn try_mysql(address: &str, script: &str) -> Result<String, String> {
    let (host, port) = address.rsplit_once(':').unwrap();
    let out = Command::new("mysql")
        .args([
            "-h", host, "-P", port, "-u", "root", "--batch", "-e", script,
        ])
        .output()
        .expect("the mysql client runs (apt-get install mariadb-client)");
    if out.status.success() {
        Ok(String::from_utf8(out.stdout).unwrap())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// The pid on a line `cairn start` printed that begins with `prefix` ("..., pid N").
#[allow(dead_code)]
pub fn pid_of(cluster: &Started, prefix: &str) -> i32 {
    cluster
        .listening(prefix)
        .rsplit("pid ")
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no pid after {prefix:?}"))
}

/// sysbench's connection and table options for the SQL front end at `address`: database
/// sbtest, one table of `rows` rows, user root.
pub fn sysbench_args(address: &str, rows: &str) -> Vec<String> {
    let (host, port) = address.rsplit_once(':').unwrap();
    vec![
        "--db-driver=mysql".into(),
        format!("--mysql-host={host}"),
        format!("--mysql-port={port}"),
        "--mysql-user=root".into(),
        "--mysql-db=sbtest".into(),
        "--tables=1".into(),
        format!("--table-size={rows}"),
    ]
}

/// A process's resident memory (VmRSS), in bytes.
pub fn resident_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .unwrap()
        * 1024
}

/// A random test's seed: the number in the environment variable `var` (to repeat a run), else
/// one taken from the clock. The test prints it.
pub fn seed_from_env(var: &str) -> u64 {
    std::env::var(var)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        })
}

/// A cluster run by `cairn mgmd` with its data nodes (`cairn datanode --mgm`), each its own
/// process, in a fresh directory; the processes are killed and the directory removed on drop.
pub struct ClusterProcesses {
    pub dir: std::path::PathBuf,
    pub mgmd: Started,
    /// The management node's address.
    pub mgm: String,
    /// Data node K is `nodes[K - 1]` (None once a test took it, to kill it).
    pub nodes: Vec<Option<Started>>,
    /// Each data node's native address, in id order.
    pub apis: Vec<String>,
    /// What runs data node K (`wrap[K - 1]`): in its own network namespace, or empty.
    pub wrap: Vec<Vec<String>>,
    /// Flags every process of the cluster and every `cairn admin` the test runs get (e.g.
    /// `--cluster-tls DIR`).
    pub creds: Vec<String>,
}

impl Drop for ClusterProcesses {
    fn drop(&mut self) {
        for node in self.nodes.iter_mut().flatten() {
            let _ = node.child.kill();
            let _ = node.child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[allow(dead_code)]
impl ClusterProcesses {
    /// Starts data node `id` again, empty (`--initial`: a node restart), after it was killed;
    /// returns once it printed `ready` (it then copies from its group's primary).
    pub fn restart_empty(&mut self, id: usize) {
        self.restart(id, &["--initial", "--yes"]);
    }

    /// Starts data node `id` again from its own files (a node restart: its group's primary
    /// brings them level), after it was killed; returns once it printed `ready`.
    pub fn restart_from_files(&mut self, id: usize) {
        self.restart(id, &[]);
    }

    fn restart(&mut self, id: usize, flags: &[&str]) {
        let mut extra = flags.to_vec();
        extra.extend(self.creds.iter().map(String::as_str));
        self.nodes[id - 1] = Some(spawn_node_wrapped(
            &self.wrap[id - 1],
            &self.dir,
            &self.mgm,
            id,
            &extra,
        ));
    }

    /// Kills data node `id` with SIGKILL and reaps it.
    pub fn kill(&mut self, id: usize) {
        let mut node = self.nodes[id - 1].take().expect("the node runs");
        node.child.kill().unwrap();
        let _ = node.child.wait();
    }

    /// Waits until the management node shows data node `id` a member of its newest view
    /// (`member`) or out of it, polling; panics after `timeout`, the message led by `what`.
    pub fn wait_membership(&self, what: &str, id: usize, member: bool, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        while self.is_member(id) != member {
            assert!(
                Instant::now() < deadline,
                "{what}: data node {id} {}",
                if member {
                    "is not a member again"
                } else {
                    "stays in the view"
                }
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Whether the management node shows data node `id` a member of its newest view.
    pub fn is_member(&self, id: usize) -> bool {
        let out = Command::new(cairn_binary())
            .args(&self.creds)
            .args(["admin", "cluster", "--mgm", &self.mgm])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .any(|l| l.starts_with(&format!("node {id} ")) && l.ends_with(" member"))
    }
    /// Cuts data node K's membership links from the nodes `cuts[K - 1]` names (comma-separated
    /// ids, 0 the management node); the nodes read their files within 100 ms.
    pub fn cut(&self, cuts: &[&str]) {
        for (k, cut) in cuts.iter().enumerate() {
            std::fs::write(self.dir.join(format!("cut{}", k + 1)), cut).unwrap();
        }
    }
}

/// Starts data node `id` of the cluster whose management node is at `mgm`, its data and its
/// fault file (`ClusterProcesses::cut`) in `dir`, with `extra` arguments; returns once it
/// printed `ready`.
#[allow(dead_code)]
pub fn spawn_node(dir: &std::path::Path, mgm: &str, id: usize, extra: &[&str]) -> Started {
    spawn_node_wrapped(&[], dir, mgm, id, extra)
}

/// `spawn_node`, run through `wrap` (`spawn_wrapped`).
pub fn spawn_node_wrapped(
    wrap: &[String],
    dir: &std::path::Path,
    mgm: &str,
    id: usize,
    extra: &[&str],
) -> Started {
    let data = dir.join(format!("node{id}"));
    let cut = dir.join(format!("cut{id}"));
    let id = id.to_string();
    let mut args = vec![
        "datanode",
        "--mgm",
        mgm,
        "--node-id",
        &id,
        "--data-dir",
        data.to_str().unwrap(),
        "--fault-cut-file",
        cut.to_str().unwrap(),
        // Small redo segments: each is preallocated, and a test needs little.
        "--redo-segment-kib",
        "1024",
        // Tests kill and restart nodes themselves (`angel.rs` tests the angel).
        "--no-angel",
    ];
    args.extend(extra);
    spawn_wrapped(wrap, &args)
}

/// Starts a management node and `data_nodes` data nodes in node groups of `replicas`, two
/// workers each, in directory `name` (and this process's id) under the temporary directory.
#[allow(dead_code)]
pub fn spawn_cluster(name: &str, data_nodes: usize, replicas: usize) -> ClusterProcesses {
    spawn_cluster_on(name, data_nodes, replicas, &["127.0.0.1"])
}

/// `spawn_cluster`, with data node K's native protocol on loopback address
/// `hosts[(K - 1) % hosts.len()]` (127.0.0.2 stands for another host: clients spread reads only
/// over replicas on several hosts).
#[allow(dead_code)]
pub fn spawn_cluster_on(
    name: &str,
    data_nodes: usize,
    replicas: usize,
    hosts: &[&str],
) -> ClusterProcesses {
    let dir = fresh_dir(name);
    std::fs::create_dir_all(&dir).unwrap();
    let mgm = format!("127.0.0.1:{}", free_port());
    let apis: Vec<String> = (0..data_nodes)
        .map(|k| format!("{}:{}", hosts[k % hosts.len()], free_port()))
        .collect();
    let links = (0..data_nodes)
        .map(|_| format!("127.0.0.1:{}", free_port()))
        .collect();
    let wrap = vec![Vec::new(); data_nodes + 1];
    spawn_cluster_in(dir, replicas, mgm, links, apis, wrap, Vec::new())
}

/// A cluster whose management node and data nodes each run on a host of their own (`hosts`:
/// 0 the management node, K data node K), every process given `creds`.
#[allow(dead_code)]
pub fn spawn_cluster_across(
    name: &str,
    data_nodes: usize,
    replicas: usize,
    hosts: &Hosts,
    creds: &[String],
) -> ClusterProcesses {
    assert!(hosts.addresses.len() > data_nodes, "a host per process");
    let dir = fresh_dir(name);
    std::fs::create_dir_all(&dir).unwrap();
    let mgm = format!("{}:{}", hosts.addresses[0], free_port());
    let at = |k: usize| format!("{}:{}", hosts.addresses[k], free_port());
    let links = (1..=data_nodes).map(at).collect();
    let apis = (1..=data_nodes).map(at).collect();
    let wrap = (0..=data_nodes).map(|k| hosts.wrap(k)).collect();
    spawn_cluster_in(dir, replicas, mgm, links, apis, wrap, creds.to_vec())
}

/// Writes the configuration file and starts the processes: `links[K - 1]` and `apis[K - 1]` are
/// data node K's membership and native addresses, `wrap[0]` runs the management node and
/// `wrap[K]` data node K.
fn spawn_cluster_in(
    dir: std::path::PathBuf,
    replicas: usize,
    mgm: String,
    links: Vec<String>,
    apis: Vec<String>,
    wrap: Vec<Vec<String>>,
    creds: Vec<String>,
) -> ClusterProcesses {
    let mut config =
        format!("[cluster]\nreplicas = {replicas}\nworkers = 2\n\n[mgmd]\naddress = \"{mgm}\"\n");
    for (link, api) in links.iter().zip(&apis) {
        config.push_str(&format!(
            "\n[[datanode]]\naddress = \"{link}\"\napi = \"{api}\"\n"
        ));
    }
    let file = dir.join("cluster.toml");
    std::fs::write(&file, &config).unwrap();
    let votes = dir.join("mgmd");
    let mut args = vec![
        "mgmd",
        "--config",
        file.to_str().unwrap(),
        "--data-dir",
        votes.to_str().unwrap(),
    ];
    args.extend(creds.iter().map(String::as_str));
    let mgmd = spawn_wrapped(&wrap[0], &args);
    let extra: Vec<&str> = creds.iter().map(String::as_str).collect();
    let nodes = (1..=apis.len())
        .map(|id| Some(spawn_node_wrapped(&wrap[id], &dir, &mgm, id, &extra)))
        .collect();
    ClusterProcesses {
        dir,
        mgmd,
        mgm,
        nodes,
        apis,
        wrap: wrap[1..].to_vec(),
        creds,
    }
}

/// Hosts for a cluster test on this machine: network namespaces, each with one address on a
/// bridge this process reaches, made by the test and removed on drop (as root: `ip netns`).
pub struct Hosts {
    pub namespaces: Vec<String>,
    /// Host k's address.
    pub addresses: Vec<String>,
    bridge: String,
}

fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("ip {}: {e}", args.join(" ")))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

impl Hosts {
    /// `count` hosts; panics, saying why, when network namespaces cannot be made here.
    pub fn new(count: usize) -> Hosts {
        Hosts::remove_stale();
        let pid = std::process::id();
        let bridge = format!("cb{pid}");
        let subnet = format!("10.{}.{}", 240 + (pid >> 8) % 16, pid & 255);
        let mut hosts = Hosts {
            namespaces: Vec::new(),
            addresses: Vec::new(),
            bridge: bridge.clone(),
        };
        let made = (|| {
            ip(&["link", "add", &bridge, "type", "bridge"])?;
            ip(&["addr", "add", &format!("{subnet}.1/24"), "dev", &bridge])?;
            ip(&["link", "set", &bridge, "up"])?;
            for k in 0..count {
                let ns = format!("cairnt{pid}h{k}");
                let (outer, inner) = (format!("cv{pid}h{k}"), format!("cp{pid}h{k}"));
                let address = format!("{subnet}.{}", k + 2);
                ip(&["netns", "add", &ns])?;
                hosts.namespaces.push(ns.clone());
                ip(&[
                    "link", "add", &outer, "type", "veth", "peer", "name", &inner,
                ])?;
                ip(&["link", "set", &inner, "netns", &ns])?;
                ip(&["link", "set", &outer, "master", &bridge])?;
                ip(&["link", "set", &outer, "up"])?;
                let inside = |args: &[&str]| {
                    let mut all = vec!["netns", "exec", &ns, "ip"];
                    all.extend(args);
                    ip(&all)
                };
                inside(&["addr", "add", &format!("{address}/24"), "dev", &inner])?;
                inside(&["link", "set", &inner, "up"])?;
                inside(&["link", "set", "lo", "up"])?;
                hosts.addresses.push(address);
            }
            Ok::<(), String>(())
        })();
        if let Err(e) = made {
            panic!("making network namespaces for the hosts of this test (needs root and iproute2): {e}");
        }
        hosts
    }

    /// What runs a command on host k.
    pub fn wrap(&self, k: usize) -> Vec<String> {
        ["ip", "netns", "exec", &self.namespaces[k]]
            .map(String::from)
            .to_vec()
    }

    /// Namespaces and bridges a test process that is gone left behind.
    fn remove_stale() {
        let Ok(out) = Command::new("ip").args(["netns", "list"]).output() else {
            return;
        };
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let name = line.split_whitespace().next().unwrap_or("");
            let Some(pid) = name
                .strip_prefix("cairnt")
                .and_then(|r| r.split('h').next())
                .and_then(|p| p.parse::<u32>().ok())
            else {
                continue;
            };
            if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
                let _ = ip(&["netns", "del", name]);
                let _ = ip(&["link", "del", &format!("cb{pid}")]);
            }
        }
    }
}

impl Drop for Hosts {
    fn drop(&mut self) {
        for ns in &self.namespaces {
            let _ = ip(&["netns", "del", ns]);
        }
        let _ = ip(&["link", "del", &self.bridge]);
    }
}

/// What the SQL writer saw: transaction numbers committed, refused (1213: rolled back), and
/// failed otherwise (outcome not known to it).
#[derive(Default, Debug)]
#[allow(dead_code)]
pub struct SqlSeen {
    pub committed: std::collections::BTreeSet<i64>,
    pub refused: std::collections::BTreeSet<i64>,
    pub unknown: std::collections::BTreeSet<i64>,
    /// The other errors' first lines, with how many times each came.
    pub errors: std::collections::BTreeMap<String, usize>,
}

/// Commits two-row transactions through the SQL front end (a mysql client process each, as an
/// application's connection pool would open one), until `stop`.
#[allow(dead_code)]
pub fn sql_writer(sql: &str, stop: &std::sync::atomic::AtomicBool) -> SqlSeen {
    let mut seen = SqlSeen::default();
    let mut n = 0i64;
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        n += 1;
        let script = format!(
            "BEGIN; INSERT INTO d.p VALUES ({}, {n}); INSERT INTO d.p VALUES ({}, {n}); COMMIT",
            2 * n,
            2 * n + 1
        );
        match try_mysql(sql, &script) {
            Ok(_) => {
                seen.committed.insert(n);
            }
            Err(e) if e.contains("ERROR 1213") => {
                seen.refused.insert(n);
            }
            Err(e) => {
                seen.unknown.insert(n);
                let first = e.lines().next().unwrap_or_default();
                // The error without its line number, which varies.
                let kind = first.split(':').skip(1).collect::<Vec<_>>().join(":");
                *seen.errors.entry(kind).or_default() += 1;
            }
        }
    }
    seen
}

/// Every SQL transaction acknowledged is there whole, none refused is, none is there in part.
#[allow(dead_code)]
pub fn check_sql(what: &str, sql: &str, seen: &SqlSeen) {
    let out = try_mysql(sql, "SELECT n, COUNT(*) FROM d.p GROUP BY n").unwrap();
    let present: std::collections::BTreeMap<i64, i64> = out
        .lines()
        .skip(1)
        .map(|l| {
            let (n, c) = l.split_once('\t').unwrap();
            (n.parse().unwrap(), c.parse().unwrap())
        })
        .collect();
    for n in &seen.committed {
        assert_eq!(
            present.get(n),
            Some(&2),
            "{what}: SQL transaction {n} was acknowledged but is not whole"
        );
    }
    for (n, count) in &present {
        assert_eq!(*count, 2, "{what}: SQL transaction {n} is there in part");
        assert!(
            !seen.refused.contains(n),
            "{what}: SQL transaction {n} was refused but is committed"
        );
    }
    println!(
        "{what}: SQL transactions: {} committed, {} refused (1213), {} other errors {:?}",
        seen.committed.len(),
        seen.refused.len(),
        seen.unknown.len(),
        seen.errors
    );
}

/// Waits until `child`, a data node on the losing side of a cut, stops as the membership
/// stops it (exit code 70), by `deadline`; prints when, counted from `since`.
#[allow(dead_code)]
pub fn wait_stopped(
    child: &mut Child,
    what: &str,
    since: std::time::Instant,
    deadline: std::time::Instant,
) {
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert_eq!(status.code(), Some(70), "{what} exited {status}");
            println!(
                "{what} stopped {:.0} ms after the cut",
                since.elapsed().as_secs_f64() * 1e3
            );
            return;
        }
        assert!(std::time::Instant::now() < deadline, "{what} did not stop");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A base port whose block (`cairn start --data-nodes 2`: base + 2, + 3, + 100, + 101, + 102)
/// is free now and handed out to no other test.
#[allow(dead_code)]
pub fn free_cluster_base() -> u16 {
    free_block(&[2, 3, 100, 101, 102])
}

#[allow(dead_code)]
/// `cairn start` arguments for `data_nodes` data nodes in groups of `replicas` (2 workers
/// each) with their data in `dir` and ports from `base`.
pub fn cluster_args(
    dir: &std::path::Path,
    data_nodes: u16,
    replicas: u16,
    base: u16,
) -> Vec<String> {
    let mut args: Vec<String> = [
        "start",
        "--data-nodes",
        &data_nodes.to_string(),
        "--replicas",
        &replicas.to_string(),
        "--workers",
        "2",
        "--base-port",
        &base.to_string(),
        "--data-dir",
        dir.to_str().unwrap(),
    ]
    .map(String::from)
    .to_vec();
    args.extend(FREE_FRONT_END_PORTS.map(String::from));
    args
}

/// The ledger the failover and restart tests write: rows (id, txn), txn naming the transaction
/// that wrote the row, so a transaction present in part shows.
#[allow(dead_code)]
pub fn ledger_def() -> client::TableDef {
    use base::schema::ColumnDef;
    use base::types::ColumnType;
    client::TableDef::new(
        "ledger",
        vec![
            ColumnDef::new("id", ColumnType::BigInt { unsigned: false }),
            ColumnDef::new("txn", ColumnType::BigInt { unsigned: false }),
        ],
        &["id"],
    )
    .unwrap()
}

/// Numbers from `seed` (xorshift64*), for a test's random choices: the same seed makes the
/// same choices.
#[allow(dead_code)]
pub fn random(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed | 1;
    move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// A table `long_values (id BIGINT PRIMARY KEY, b LONGBLOB)`, whose values past 1 MiB are kept
/// in parts (`base::lob`).
#[allow(dead_code)]
pub fn long_values_table() -> client::TableDef {
    use base::schema::ColumnDef;
    use base::types::{ColumnType, LobSize};
    let long = ColumnType::Blob {
        size: LobSize::Long,
    };
    let columns = vec![
        ColumnDef::new("id", ColumnType::BigInt { unsigned: false }),
        ColumnDef::new("b", long),
    ];
    client::TableDef::new("long_values", columns, &["id"]).expect("a valid definition")
}

/// The data nodes at `apis`, replicas of one node group, hold the same rows: every partition's
/// rows and the sum of their CRCs, once nothing is under way (within 10 s).
#[allow(dead_code)]
pub fn replicas_equal(what: &str, apis: &[&str]) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let sums: Vec<Vec<(u32, u32, u64, u64)>> = apis
            .iter()
            .map(|api| {
                client::Cluster::connect_timeout(api, Duration::from_secs(5))
                    .unwrap()
                    .checksums()
                    .unwrap()
            })
            .collect();
        if sums.iter().all(|s| *s == sums[0]) {
            assert!(!sums[0].is_empty(), "{what}: no partitions");
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: the replicas of a group differ: {sums:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
