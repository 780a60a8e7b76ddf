//! No open doors off loopback: `cairn start`, `cairn datanode` and `cairn api` refuse to listen on
//! an address other hosts can reach while a listener there has no credentials, say what to set,
//! and start nothing; `--insecure` lets them start with a warning; with the credentials set the
//! front ends start.

mod common;

use std::process::Command;

use common::{free_port, fresh_dir, spawn, FREE_FRONT_END_PORTS};

fn run(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(args)
        .output()
        .expect("cairn runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// `cairn start` on every interface, the data node on a free port, over `data_dir`.
fn start_off_loopback(data_dir: &std::path::Path) -> Vec<String> {
    let mut args: Vec<String> = ["start", "--bind", "0.0.0.0", "--datanode-port"]
        .map(String::from)
        .to_vec();
    args.push(free_port().to_string());
    args.push("--data-dir".into());
    args.push(data_dir.to_string_lossy().to_string());
    args.extend(FREE_FRONT_END_PORTS.map(String::from));
    args
}

#[test]
fn start_off_loopback_without_credentials_is_refused_and_starts_nothing() {
    let dir = fresh_dir("exposure-start");
    let owned = start_off_loopback(&dir);
    let mut args: Vec<&str> = owned.iter().map(String::as_str).collect();
    let (ok, stderr) = run(&args);
    assert!(!ok, "started off loopback with no credentials");
    for expected in [
        "native protocol",
        "--hs-read-secret",
        "--hs-write-secret",
        "--sql-root-password",
        "--insecure",
    ] {
        assert!(
            stderr.contains(expected),
            "the refusal should name {expected}: {stderr}"
        );
    }
    assert!(!dir.exists(), "a refused start created its data directory");

    // With every credential but the native protocol's (which has none yet), still refused.
    args.extend([
        "--hs-read-secret",
        "r",
        "--hs-write-secret",
        "w",
        "--sql-root-password",
        "p",
    ]);
    let (ok, stderr) = run(&args);
    assert!(
        !ok && stderr.contains("native protocol") && !stderr.contains("--hs-read-secret"),
        "{stderr}"
    );

    // --insecure starts, naming what is open.
    args.push("--insecure");
    let started = spawn(&args);
    assert!(
        started
            .output
            .iter()
            .any(|l| l.contains("WARNING: --insecure")),
        "{:?}",
        started.output
    );
    assert!(
        started
            .output
            .iter()
            .any(|l| l.starts_with("sql (mysql protocol): 0.0.0.0:")),
        "{:?}",
        started.output
    );
    started.terminate();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn datanode_and_api_off_loopback() {
    let port = free_port();
    let listen = format!("0.0.0.0:{port}");
    let (ok, stderr) = run(&["datanode", "--listen", &listen]);
    assert!(!ok && stderr.contains("--cluster-key-file"), "{stderr}");

    // A data node on loopback, and front ends off loopback over it.
    let local = format!("127.0.0.1:{port}");
    let datanode = spawn(&["datanode", "--listen", &local]);
    let mut api_args = vec!["api", "--bind", "0.0.0.0", "--datanode", &local];
    api_args.extend(FREE_FRONT_END_PORTS);
    let (ok, stderr) = run(&api_args);
    assert!(
        !ok && stderr.contains("--hs-write-secret") && stderr.contains("--sql-root-password"),
        "{stderr}"
    );
    api_args.extend([
        "--hs-read-secret",
        "r",
        "--hs-write-secret",
        "w",
        "--sql-root-password",
        "secret",
    ]);
    let api = spawn(&api_args);
    api.terminate();
    let mut datanode = datanode;
    let _ = datanode.child.kill();
    let _ = datanode.child.wait();
}

#[test]
fn with_the_cluster_key_only_clients_that_prove_it_are_served() {
    let dir = fresh_dir("exposure-key");
    std::fs::create_dir_all(&dir).unwrap();
    let key = dir.join("cluster.key");
    std::fs::write(&key, b"an example cluster key, 32 bytes").unwrap();
    let other = dir.join("other.key");
    std::fs::write(&other, b"another cluster key, also 32 byt").unwrap();
    let short = dir.join("short.key");
    std::fs::write(&short, b"short").unwrap();
    let (ok, stderr) = run(&["--cluster-key-file", short.to_str().unwrap(), "datanode"]);
    assert!(!ok && stderr.contains("16 to 4096 bytes"), "{stderr}");

    // Off loopback with the key: no --insecure needed.
    let port = free_port();
    let listen = format!("0.0.0.0:{port}");
    let local = format!("127.0.0.1:{port}");
    let datanode = spawn(&[
        "--cluster-key-file",
        key.to_str().unwrap(),
        "datanode",
        "--listen",
        &listen,
    ]);
    let status = |key_file: Option<&std::path::Path>| {
        let mut args = vec![];
        if let Some(k) = key_file {
            args.extend(["--cluster-key-file", k.to_str().unwrap()]);
        }
        args.extend(["admin", "status", "--connect", &local]);
        run(&args)
    };
    let (ok, stderr) = status(Some(&key));
    assert!(ok, "a client with the key is served: {stderr}");
    let (ok, _) = status(None);
    assert!(!ok, "a client without the key is served");
    let (ok, stderr) = status(Some(&other));
    assert!(
        !ok && stderr.contains("cluster key"),
        "a client with another key is served: {stderr}"
    );
    let mut datanode = datanode;
    let _ = datanode.child.kill();
    let _ = datanode.child.wait();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn credentials_can_come_from_the_environment_out_of_the_process_list() {
    let dir = fresh_dir("exposure-env");
    std::fs::create_dir_all(&dir).unwrap();
    let key = dir.join("cluster.key");
    std::fs::write(&key, b"an example cluster key, 32 bytes").unwrap();
    let args = start_off_loopback(&dir.join("data"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(&args)
        .env("CAIRN_HS_READ_SECRET", "r")
        .env("CAIRN_HS_WRITE_SECRET", "w")
        .env("CAIRN_SQL_ROOT_PASSWORD", "p")
        .env("CAIRN_CLUSTER_KEY_FILE", &key)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // It starts (no refusal, no --insecure): read until `ready`.
    use std::io::BufRead;
    let stdout = child.stdout.take().unwrap();
    let ready = std::io::BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .any(|l| l == "ready");
    let _ = child.kill();
    let output = child.wait_with_output().unwrap();
    assert!(
        ready,
        "no ready: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
