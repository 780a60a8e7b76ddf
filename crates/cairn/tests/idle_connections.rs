//! What an idle SQL connection costs: 2,000 clients log in to `cairn start` and to MariaDB (the
//! peer, started by this test) and stay idle; each server's resident memory must grow by less
//! than 100 MB for them (Cairn's bound), and both figures are printed side by side. Before
//! connections shared threads, each held a thread whose allocator pages cost 4.4 MiB. And the
//! connection past --sql-max-connections is refused cleanly.

// `common` and `mariadb` both take the port helpers from testsupport/ports.rs.
#![allow(clippy::duplicate_mod)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

mod common;

#[path = "../../../testsupport/mariadb.rs"]
mod mariadb;

const CONNECTIONS: usize = 2_000;

/// Resident memory of a process, in KiB.
fn resident_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS in /proc/PID/status")
}

/// A python3 that can import pymysql (PATH first, then Debian's).
fn python() -> String {
    ["python3", "/usr/bin/python3"]
        .into_iter()
        .find(|p| {
            Command::new(p)
                .args(["-c", "import pymysql"])
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .expect("python3 with pymysql (apt-get install python3-pymysql; ./scripts/test does)")
        .to_string()
}

/// How much `pid`'s resident memory grows while `CONNECTIONS` PyMySQL clients stay logged in
/// to `port` as root, in KiB (measured once every login is done, after one warm-up login).
fn growth_for_idle_connections(pid: u32, port: u16) -> u64 {
    let script = r#"
import resource, sys, pymysql
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
want = 8192 if hard == resource.RLIM_INFINITY else min(8192, hard)
resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, want), hard))
port, n = int(sys.argv[1]), int(sys.argv[2])
def login():
    return pymysql.connect(host="127.0.0.1", port=port, user="root", ssl_disabled=True)
first = login()
print("warm", flush=True)
sys.stdin.readline()
held = [login() for _ in range(n)]
cur = held[-1].cursor()
cur.execute("SELECT 1")
print("held", cur.fetchone()[0], flush=True)
sys.stdin.readline()
"#;
    let mut child = Command::new(python())
        .args(["-c", script, &port.to_string(), &CONNECTIONS.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    assert_eq!(lines.next().unwrap().unwrap(), "warm");
    let before = resident_kib(pid);
    writeln!(stdin).unwrap();
    assert_eq!(
        lines.next().unwrap().unwrap(),
        "held 1",
        "every client logged in"
    );
    let after = resident_kib(pid);
    writeln!(stdin).unwrap();
    child.wait().unwrap();
    after.saturating_sub(before)
}

#[test]
fn two_thousand_idle_sql_connections_cost_less_than_100_mb() {
    let dir = common::fresh_dir("cairn-idle-test");
    let cairn = common::start_with(
        &dir,
        common::free_port(),
        &["--sql-max-connections", "2100"],
    );
    let sql: u16 = cairn
        .listening("sql (mysql protocol): 127.0.0.1:")
        .trim()
        .parse()
        .expect("the SQL port");
    let cairn_kib = growth_for_idle_connections(cairn.child.id(), sql);
    cairn.terminate();
    let _ = std::fs::remove_dir_all(&dir);

    let peer = mariadb::Mariadb::start("idle", "max_connections=2100\n");
    let mariadb_kib = growth_for_idle_connections(peer.pid(), peer.port);
    eprintln!(
        "{CONNECTIONS} idle SQL connections: Cairn +{:.1} MB ({:.1} KB each), MariaDB +{:.1} MB ({:.1} KB each)",
        cairn_kib as f64 / 1024.0,
        cairn_kib as f64 / CONNECTIONS as f64,
        mariadb_kib as f64 / 1024.0,
        mariadb_kib as f64 / CONNECTIONS as f64,
    );
    assert!(
        cairn_kib < 100 * 1024,
        "Cairn grew by {cairn_kib} KiB for {CONNECTIONS} idle connections"
    );
    drop(peer);
}

/// With --sql-max-connections 1000, the 1,001st client is refused with 1040 (Too many
/// connections) and the others go on; once one leaves, a new login is served.
#[test]
fn the_connection_past_the_limit_is_refused_cleanly() {
    let dir = common::fresh_dir("cairn-limit-test");
    let cairn = common::start_with(
        &dir,
        common::free_port(),
        &["--sql-max-connections", "1000"],
    );
    let sql = cairn
        .listening("sql (mysql protocol): 127.0.0.1:")
        .trim()
        .to_string();
    let script = r#"
import resource, sys, pymysql
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
want = 8192 if hard == resource.RLIM_INFINITY else min(8192, hard)
resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, want), hard))
port = int(sys.argv[1])
def login():
    return pymysql.connect(host="127.0.0.1", port=port, user="root", ssl_disabled=True)
held = [login() for _ in range(1000)]
try:
    login()
    print("1001st served")
except pymysql.err.OperationalError as e:
    print("1001st refused", e.args[0])
cur = held[0].cursor()
cur.execute("SELECT 1")
print("held ones served", cur.fetchone()[0])
held.pop().close()
for _ in range(100):
    try:
        c = login()
        break
    except pymysql.err.OperationalError:
        # The server frees a closed connection's slot as soon as it reads the close.
        import time
        time.sleep(0.01)
c.cursor().execute("SELECT 1")
print("after one left: served")
"#;
    let out = Command::new(python())
        .args(["-c", script, &sql])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text,
        "1001st refused 1040\nheld ones served 1\nafter one left: served\n",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    cairn.terminate();
    let _ = std::fs::remove_dir_all(&dir);
}
