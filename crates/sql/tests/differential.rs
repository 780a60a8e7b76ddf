//! Differential suite for the SQL front end: the same schema, data and statements
//! (`tests/differential/cases.sql`) run on MariaDB 10.11 (started by this test, Debian's
//! mariadb-server) and on Cairn's SQL server (in process, over a data node of its own), through
//! the same client, PyMySQL (`tests/differential/run.py`). Every result set, affected-row count
//! and error number must match, except statements marked `-- expect-difference: reason`.
//!
//! Needs `mariadbd`, `mariadb-install-db` and `mariadb` (Debian `mariadb-server` and
//! `mariadb-client`) and python3 with PyMySQL (Debian `python3-pymysql`); `.ci/run` installs them.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use datanode::{DataNode, DataNodeConfig};
use sql::{SqlConfig, SqlServer};

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A private MariaDB, stopped (and its directory removed) on drop.
struct Mariadb {
    child: Child,
    dir: PathBuf,
    cnf: PathBuf,
    port: u16,
}

impl Drop for Mariadb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Mariadb {
    fn start() -> Mariadb {
        for tool in ["mariadbd", "mariadb-install-db", "mariadb"] {
            let found = Command::new("sh")
                .args([
                    "-c",
                    &format!("command -v {tool} || test -x /usr/sbin/{tool}"),
                ])
                .output()
                .map(|o| o.status.success())
                .unwrap_or(false);
            assert!(
                found,
                "{tool} is missing: install Debian's mariadb-server and mariadb-client (.ci/run does)"
            );
        }
        let dir = std::env::temp_dir().join(format!("cairn-sql-mariadb-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("data")).unwrap();
        std::fs::create_dir_all(dir.join("run")).unwrap();
        let port = free_port();
        let cnf = dir.join("my.cnf");
        std::fs::write(
            &cnf,
            format!(
                "[mysqld]\ndatadir={d}/data\nsocket={d}/run/mysqld.sock\npid-file={d}/run/mysqld.pid\n\
                 port={port}\nbind-address=127.0.0.1\nuser=root\nskip-log-bin\n\
                 innodb_buffer_pool_size=64M\ninnodb_log_file_size=16M\n\
                 character-set-server=utf8mb4\ncollation-server=utf8mb4_general_ci\n\
                 [client]\nsocket={d}/run/mysqld.sock\nuser=root\n",
                d = dir.display()
            ),
        )
        .unwrap();
        let install = Command::new("mariadb-install-db")
            .arg(format!("--defaults-file={}", cnf.display()))
            .args(["--user=root", "--auth-root-authentication-method=normal"])
            .output()
            .expect("mariadb-install-db runs");
        assert!(
            install.status.success(),
            "mariadb-install-db failed: {}",
            String::from_utf8_lossy(&install.stderr)
        );
        let log = std::fs::File::create(dir.join("mariadbd.log")).unwrap();
        let child = Command::new("mariadbd")
            .arg(format!("--defaults-file={}", cnf.display()))
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("mariadbd starts");
        let mut m = Mariadb {
            child,
            dir,
            cnf,
            port,
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if m.answers() {
                break;
            }
            if let Ok(Some(status)) = m.child.try_wait() {
                panic!(
                    "mariadbd exited ({status}): {}",
                    std::fs::read_to_string(m.dir.join("mariadbd.log")).unwrap_or_default()
                );
            }
            assert!(Instant::now() < deadline, "mariadbd did not answer in time");
            std::thread::sleep(Duration::from_millis(100));
        }
        m
    }

    /// Whether the server answers a query over TCP (the port the suite uses).
    fn answers(&self) -> bool {
        Command::new("mariadb")
            .arg(format!("--defaults-file={}", self.cnf.display()))
            .args([
                "--protocol=tcp",
                "-h",
                "127.0.0.1",
                "-P",
                &self.port.to_string(),
                "-e",
                "SELECT 1",
            ])
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    }
}

/// A python3 that can import pymysql: `python3` on PATH first, then Debian's own (where
/// `apt-get install python3-pymysql` puts the module, which a pyenv python3 does not see).
fn python_with_pymysql() -> String {
    let mut any_python = false;
    for python in ["python3", "/usr/bin/python3"] {
        match Command::new(python)
            .args(["-c", "import pymysql"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
        {
            Ok(status) if status.success() => return python.to_string(),
            Ok(_) => any_python = true,
            Err(_) => {}
        }
    }
    if !any_python {
        panic!("python3 is missing: apt-get install python3 python3-pymysql (.ci/run does)");
    }
    panic!(
        "python3 cannot import pymysql: apt-get install python3-pymysql (.ci/run does), \
         or pip install pymysql"
    );
}

#[test]
fn same_answers_as_mariadb() {
    let python = python_with_pymysql();
    let mariadb = Mariadb::start();
    let node = DataNode::start(DataNodeConfig {
        listen: "127.0.0.1:0".into(),
        ..DataNodeConfig::default()
    })
    .unwrap();
    let server = SqlServer::start(SqlConfig {
        datanode: node.address().to_string(),
        listen: "127.0.0.1:0".into(),
        ..SqlConfig::default()
    })
    .unwrap();
    let cairn_port = server.address().port();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/differential");
    let out = Command::new(&python)
        .arg(dir.join("run.py"))
        .args(["--cairn", &format!("127.0.0.1:{cairn_port}")])
        .args(["--mariadb", &format!("127.0.0.1:{}", mariadb.port)])
        .arg("--cases")
        .arg(dir.join("cases.sql"))
        .output()
        .expect("run.py runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    eprintln!("{stderr}");
    server.stop();
    node.stop();
    drop(mariadb);
    assert!(
        out.status.success(),
        "run.py found differences or failed ({}); its output is above",
        out.status
    );
}
