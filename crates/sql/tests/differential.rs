//! Differential suite for the SQL front end: the same schema, data and statements
//! (`tests/differential/cases.sql`) run on MariaDB 10.11 (started by this test, Debian's
//! mariadb-server) and on Cairn's SQL server (in process, over a data node of its own), through
//! the same client, PyMySQL (`tests/differential/run.py`). Every result set, affected-row count
//! and error number must match, except statements marked `-- expect-difference: reason`.
//!
//! Needs `mariadbd`, `mariadb-install-db` and `mariadb` (Debian `mariadb-server` and
//! `mariadb-client`) and python3 with PyMySQL (Debian `python3-pymysql`); `.ci/run` installs them.

use std::path::Path;
use std::process::{Command, Stdio};

use sql::SqlConfig;

mod common;

#[path = "../../../testsupport/mariadb.rs"]
mod mariadb;
use mariadb::Mariadb;

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
    let mariadb = Mariadb::start("sql", "");
    let (node, server) = common::start(SqlConfig::default().max_packet);
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
