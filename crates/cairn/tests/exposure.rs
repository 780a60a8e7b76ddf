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

/// With `--cluster-tls` (certificates from `cairn admin certs`), only holders of a certificate
/// the cluster's CA signed take part: a data node with another CA's certificate cannot join
/// (it gets no configuration from the management node), clients without a certificate or with
/// another CA's are refused by the data nodes, and nothing they sent was applied; the data
/// nodes listen off loopback with no --insecure.
#[test]
fn with_cluster_tls_only_holders_of_the_cluster_ca_join_or_are_served() {
    let dir = fresh_dir("exposure-tls");
    std::fs::create_dir_all(&dir).unwrap();
    let (ours, theirs) = (dir.join("ours"), dir.join("theirs"));
    for (ca, names) in [
        (&ours, &["mgm", "n1", "n2", "client"][..]),
        (&theirs, &["n2", "client"][..]),
    ] {
        let mut args = vec!["admin", "certs", "--dir", ca.to_str().unwrap()];
        args.extend(names);
        let (ok, stderr) = run(&args);
        assert!(ok, "{stderr}");
    }
    let tls = |ca: &std::path::Path, name: &str| ca.join(name).to_str().unwrap().to_string();
    let mgm = format!("127.0.0.1:{}", free_port());
    let apis: Vec<String> = (0..2).map(|_| format!("0.0.0.0:{}", free_port())).collect();
    let mut config = format!("[cluster]\nreplicas = 2\n\n[mgmd]\naddress = \"{mgm}\"\n");
    for api in &apis {
        config.push_str(&format!(
            "\n[[datanode]]\naddress = \"127.0.0.1:{}\"\napi = \"{api}\"\n",
            free_port()
        ));
    }
    let file = dir.join("cluster.toml");
    std::fs::write(&file, &config).unwrap();
    let mgmd = spawn(&[
        "--cluster-tls",
        &tls(&ours, "mgm"),
        "mgmd",
        "--config",
        file.to_str().unwrap(),
    ]);
    let node = |id: usize, identity: &str| -> Vec<String> {
        [
            "--cluster-tls",
            identity,
            "datanode",
            "--mgm",
            &mgm,
            "--node-id",
            &id.to_string(),
            "--no-angel",
            "--data-dir",
            dir.join(format!("node{id}")).to_str().unwrap(),
        ]
        .map(String::from)
        .to_vec()
    };
    let args = node(1, &tls(&ours, "n1"));
    let one = spawn(&args.iter().map(String::as_str).collect::<Vec<_>>());
    // Node 2 with a certificate of another CA: the management node refuses it.
    let impostor = node(2, &tls(&theirs, "n2"));
    let (ok, stderr) = run(&impostor.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        !ok && stderr.contains("TLS"),
        "a node of another CA started: {stderr}"
    );
    let args = node(2, &tls(&ours, "n2"));
    let two = spawn(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let local: Vec<String> = apis
        .iter()
        .map(|a| a.replace("0.0.0.0", "127.0.0.1"))
        .collect();
    // Clients without a certificate, or with another CA's, try to create and fill a table.
    for api in &local {
        for identity in [None, Some(tls(&theirs, "client"))] {
            let mut args = vec![];
            if let Some(i) = &identity {
                args.extend(["--cluster-tls", i.as_str()]);
            }
            args.extend(["bench", "load", "--connect", api, "--rows", "10"]);
            let (ok, _) = run(&args);
            assert!(!ok, "{api} served a client with {identity:?}");
        }
    }
    let client = tls(&ours, "client");
    let status = |api: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_cairn"))
            .args([
                "--cluster-tls",
                &client,
                "admin",
                "status",
                "--connect",
                api,
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    for api in &local {
        assert!(status(api).contains(" 0 tables"), "{}", status(api));
    }
    // The cluster's own client is served.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let (ok, stderr) = run(&[
            "--cluster-tls",
            &client,
            "bench",
            "load",
            "--connect",
            &local.join(","),
            "--rows",
            "100",
        ]);
        if ok {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{stderr}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    for api in &local {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !status(api).contains(" 1 tables, 100 rows") {
            assert!(std::time::Instant::now() < deadline, "{}", status(api));
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
    drop((one, two, mgmd));
    let _ = std::fs::remove_dir_all(&dir);
}

/// HandlerSocket with `--hs-tls`: a client that runs the TLS handshake (checking the server's
/// certificate against the CA of `cairn admin certs`) opens an index and finds a row; a client
/// that speaks plain HandlerSocket to the port gets no answer and is closed.
#[test]
fn handlersocket_with_tls_serves_only_clients_that_speak_it() {
    use std::io::{Read, Write};
    let dir = fresh_dir("exposure-hs-tls");
    std::fs::create_dir_all(&dir).unwrap();
    let certs = dir.join("certs");
    let (ok, stderr) = run(&["admin", "certs", "--dir", certs.to_str().unwrap(), "hs"]);
    assert!(ok, "{stderr}");
    let port = free_port();
    let data = dir.join("data");
    let mut args = vec![
        "start".to_string(),
        "--datanode-port".into(),
        port.to_string(),
        "--data-dir".into(),
        data.to_str().unwrap().into(),
        "--hs-tls".into(),
        "--hs-tls-cert".into(),
        certs.join("hs/node.pem").to_str().unwrap().into(),
        "--hs-tls-key".into(),
        certs.join("hs/node.key").to_str().unwrap().into(),
    ];
    args.extend(FREE_FRONT_END_PORTS.map(String::from));
    let started = spawn(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let (read, _) = started.hs_addresses();
    let (ok, stderr) = run(&[
        "bench",
        "load",
        "--connect",
        &format!("127.0.0.1:{port}"),
        "--rows",
        "10",
    ]);
    assert!(ok, "{stderr}");
    let sock = std::net::TcpStream::connect(&read).unwrap();
    sock.set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    let mut tls = transport::Stream::Tls(
        transport::tls::connect_checked(sock, &certs.join("ca.pem")).unwrap(),
    );
    tls.write_all(b"P\t0\tsbtest\tsbtest1\tPRIMARY\tid,k\n0\t=\t1\t7\n")
        .unwrap();
    let mut answer = Vec::new();
    let mut buf = [0u8; 256];
    while answer.iter().filter(|b| **b == b'\n').count() < 2 {
        let n = tls.read(&mut buf).unwrap();
        assert!(n > 0, "closed after {:?}", String::from_utf8_lossy(&answer));
        answer.extend_from_slice(&buf[..n]);
    }
    let text = String::from_utf8_lossy(&answer);
    assert!(text.starts_with("0\t1\n0\t2\t7\t"), "{text:?}");

    let mut plain = std::net::TcpStream::connect(&read).unwrap();
    plain
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    plain
        .write_all(b"P\t0\tsbtest\tsbtest1\tPRIMARY\tid\n")
        .unwrap();
    let mut got = Vec::new();
    let _ = plain.read_to_end(&mut got);
    assert!(
        !got.starts_with(b"0\t"),
        "a plain client was answered: {:?}",
        String::from_utf8_lossy(&got)
    );
    started.terminate();
    let _ = std::fs::remove_dir_all(&dir);
}
