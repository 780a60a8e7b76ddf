//! A private MariaDB server for the differential suites (Debian's mariadb-server): its own
//! directory and my.cnf, `mariadb-install-db`, then `mariadbd`, polled over TCP with a deadline
//! until it answers; killed and removed on drop. Included by tests with `#[path]`.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

#[path = "ports.rs"]
mod ports;
pub use ports::free_port;

pub struct Mariadb {
    child: Child,
    dir: PathBuf,
    /// The defaults file, for the `mariadb` client too (its [client] section).
    pub cnf: PathBuf,
    /// The SQL port on 127.0.0.1.
    pub port: u16,
}

impl Drop for Mariadb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Mariadb {
    /// Starts a server in a temporary directory named after `name`; `extra` holds more
    /// [mysqld] lines (plugins and their settings).
    pub fn start(name: &str, extra: &str) -> Mariadb {
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
        let dir = std::env::temp_dir().join(format!("cairn-{name}-mariadb-{}", std::process::id()));
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
                 character-set-server=utf8mb4\ncollation-server=utf8mb4_general_ci\n{extra}\
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
        while !m.answers() {
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

    /// The server's process id (to read its resident memory).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the server answers a query over TCP.
    pub fn answers(&self) -> bool {
        Command::new("mariadb")
            .arg(format!("--defaults-file={}", self.cnf.display()))
            .args([
                "--protocol=tcp",
                "-h",
                "127.0.0.1",
                "-P",
                &self.port.to_string(),
            ])
            .args(["-e", "SELECT 1"])
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    }

    /// Runs SQL through the `mariadb` client; panics with its error.
    pub fn sql(&self, sql: &str) {
        let out = Command::new("mariadb")
            .arg(format!("--defaults-file={}", self.cnf.display()))
            .args(["-e", sql])
            .output()
            .expect("mariadb runs");
        assert!(
            out.status.success(),
            "{sql}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
