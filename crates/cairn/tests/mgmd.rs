//! `cairn mgmd` with a configuration file: data nodes that start with only `--mgm` and an id
//! take their configuration from it, `cairn admin cluster` shows the nodes' states, a killed node
//! shows as out of the view once the others agree, and a bad file is refused with its reason.

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::{free_port, fresh_dir, spawn};

fn admin_cluster(mgm: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(["admin", "cluster", "--mgm", mgm])
        .output()
        .expect("cairn admin runs");
    assert!(
        out.status.success(),
        "admin cluster failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Writes `dir/cluster.toml`: replicas 2, the management node at `mgm`, `data_nodes` data
/// nodes on free ports.
fn config_file(dir: &std::path::Path, mgm: &str, data_nodes: usize) -> std::path::PathBuf {
    let mut config = format!("[cluster]\nreplicas = 2\n\n[mgmd]\naddress = \"{mgm}\"\n");
    for _ in 1..=data_nodes {
        config.push_str(&format!(
            "\n[[datanode]]\naddress = \"127.0.0.1:{}\"\n",
            free_port()
        ));
    }
    let file = dir.join("cluster.toml");
    std::fs::write(&file, &config).unwrap();
    file
}

#[test]
fn data_nodes_take_their_configuration_from_the_management_node() {
    let dir = fresh_dir("mgmd");
    std::fs::create_dir_all(&dir).unwrap();
    let mgm = format!("127.0.0.1:{}", free_port());
    let file = config_file(&dir, &mgm, 4);
    let mut mgmd = spawn(&["mgmd", "--config", file.to_str().unwrap()]);
    let mut nodes: Vec<_> = (1..=4)
        .map(|id| spawn(&["protocol-node", "--mgm", &mgm, "--id", &id.to_string()]))
        .collect();
    let status = admin_cluster(&mgm);
    assert!(status.contains("node 3 127.0.0.1:"), "{status}");
    assert_eq!(status.matches(" member").count(), 4, "{status}");

    // Node 3 dies: the others agree on a view without it, and the arbitrator hears of it.
    nodes[2].child.kill().unwrap();
    let _ = nodes[2].child.wait();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let status = admin_cluster(&mgm);
        if status
            .lines()
            .any(|l| l.starts_with("node 3 ") && l.ends_with("not in the view (dead or stopped)"))
        {
            assert_eq!(status.matches(" member").count(), 3, "{status}");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "node 3 never left the view: {status}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }

    // A node id the file does not have is refused with the reason.
    let out = Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(["protocol-node", "--mgm", &mgm, "--id", "9"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a data node of this cluster"));

    for n in nodes.iter_mut() {
        let _ = n.child.kill();
        let _ = n.child.wait();
    }
    let _ = mgmd.child.kill();
    let _ = mgmd.child.wait();
}

#[test]
fn a_bad_configuration_is_refused_with_its_reason() {
    let dir = fresh_dir("mgmd-bad");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("cluster.toml");
    std::fs::write(
        &file,
        "[cluster]\nreplicas = 2\n[mgmd]\naddress = \"127.0.0.1:1\"\n[[datanode]]\naddress = \"127.0.0.1:2\"\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(["mgmd", "--config", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("multiple of replicas"), "{stderr}");
}

#[test]
fn with_a_cluster_key_every_link_proves_it() {
    let dir = fresh_dir("mgmd-key");
    std::fs::create_dir_all(&dir).unwrap();
    let key = dir.join("cluster.key");
    std::fs::write(&key, b"the cluster key of this test....").unwrap();
    let wrong = dir.join("wrong.key");
    std::fs::write(&wrong, b"not the cluster key of this test").unwrap();
    let mgm = format!("127.0.0.1:{}", free_port());
    let file = config_file(&dir, &mgm, 2);
    let k = key.to_str().unwrap();
    let mut mgmd = spawn(&[
        "--cluster-key-file",
        k,
        "mgmd",
        "--config",
        file.to_str().unwrap(),
    ]);
    let mut nodes: Vec<_> = (1..=2)
        .map(|id| {
            spawn(&[
                "--cluster-key-file",
                k,
                "protocol-node",
                "--mgm",
                &mgm,
                "--id",
                &id.to_string(),
            ])
        })
        .collect();
    let with_key = Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(["--cluster-key-file", k, "admin", "cluster", "--mgm", &mgm])
        .output()
        .unwrap();
    assert!(with_key.status.success());
    assert_eq!(
        String::from_utf8_lossy(&with_key.stdout)
            .matches(" member")
            .count(),
        2
    );
    for args in [
        vec!["admin", "cluster", "--mgm", &mgm],
        vec![
            "--cluster-key-file",
            wrong.to_str().unwrap(),
            "admin",
            "cluster",
            "--mgm",
            &mgm,
        ],
        vec![
            "--cluster-key-file",
            wrong.to_str().unwrap(),
            "protocol-node",
            "--mgm",
            &mgm,
            "--id",
            "1",
        ],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_cairn"))
            .args(&args)
            .output()
            .unwrap();
        assert!(
            !out.status.success(),
            "{args:?} was served without the cluster key"
        );
    }
    // The links carry the protocol: node 2 dies, node 1 and the arbitrator agree without it.
    nodes[1].child.kill().unwrap();
    let _ = nodes[1].child.wait();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let out = Command::new(env!("CARGO_BIN_EXE_cairn"))
            .args(["--cluster-key-file", k, "admin", "cluster", "--mgm", &mgm])
            .output()
            .unwrap();
        let status = String::from_utf8_lossy(&out.stdout).to_string();
        if status
            .lines()
            .any(|l| l.starts_with("node 2 ") && l.ends_with("not in the view (dead or stopped)"))
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "node 2 never left the view: {status}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    for n in nodes.iter_mut() {
        let _ = n.child.kill();
        let _ = n.child.wait();
    }
    let _ = mgmd.child.kill();
    let _ = mgmd.child.wait();
}

/// The management node can be started again: killed with SIGKILL while its two data nodes
/// serve, it comes back with the votes it kept on disk (`--data-dir`: the view agreement's
/// promises and accepted values, and the views chosen), takes part in the membership again
/// (`cairn admin cluster` shows the view), and as the arbitrator it lets the survivor of a
/// later data node failure go on committing with every row (two data nodes alone cannot agree
/// a view without it).
#[test]
fn a_restarted_management_node_arbitrates_again() {
    use base::schema::ColumnDef;
    use base::types::ColumnType;
    use client::{Cluster, Scan, TableDef, Value};

    let mut cluster = common::spawn_cluster("mgmd-restart", 2, 2);
    let c = Cluster::connect_serving(&cluster.apis.join(","), Duration::from_secs(20)).unwrap();
    let t = c
        .create_table(
            TableDef::new(
                "kept",
                vec![ColumnDef::new("id", ColumnType::BigInt { unsigned: false })],
                &["id"],
            )
            .unwrap(),
        )
        .unwrap();
    let insert = |c: &Cluster, t: &client::Table, id: i64| {
        let mut txn = c.transaction();
        txn.insert(t, vec![(0, Value::Int(id))]);
        txn.commit()
    };
    insert(&c, &t, 1).unwrap();
    drop(c);

    cluster.mgmd.child.kill().unwrap();
    let _ = cluster.mgmd.child.wait();
    let config = cluster.dir.join("cluster.toml");
    let votes = cluster.dir.join("mgmd");
    cluster.mgmd = spawn(&[
        "mgmd",
        "--config",
        config.to_str().unwrap(),
        "--data-dir",
        votes.to_str().unwrap(),
    ]);
    // It knows the data nodes' view again once they talk to it.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let shown = admin_cluster(&cluster.mgm);
        if shown.contains("node 1 ")
            && shown.lines().filter(|l| l.ends_with(" member")).count() == 2
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no view after the restart: {shown}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }

    // Data node 2 dies: node 1 goes on only with the management node's vote.
    cluster.kill(2);
    let c = Cluster::connect_serving(&cluster.apis[0], Duration::from_secs(20)).unwrap();
    let t = c.table("kept").unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while let Err(e) = insert(&c, &t, 2) {
        assert!(
            Instant::now() < deadline,
            "the survivor does not commit: {e}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let rows = c.scan(&t, &Scan::table()).unwrap();
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(
        votes.join("arbitrator-votes").exists(),
        "the votes of the view change without node 2 are on disk"
    );
}

/// A management node started on votes it kept from an earlier run hands out, with the
/// configuration, a first epoch above them (`[run] first_epoch`): data nodes started by hand
/// for a new run take their first view there, so no kept vote answers their view changes. A
/// damaged votes file stops it at once, naming the file.
#[test]
fn kept_votes_raise_the_first_epoch_handed_out() {
    let dir = fresh_dir("mgmd-first-epoch");
    std::fs::create_dir_all(&dir).unwrap();
    let mgm = format!("127.0.0.1:{}", free_port());
    let mut config = format!("[cluster]\nreplicas = 2\n\n[mgmd]\naddress = \"{mgm}\"\n");
    for _ in 1..=2 {
        config.push_str(&format!(
            "\n[[datanode]]\naddress = \"127.0.0.1:{}\"\n",
            free_port()
        ));
    }
    let file = dir.join("cluster.toml");
    std::fs::write(&file, &config).unwrap();
    let votes = dir.join("mgmd");
    std::fs::create_dir_all(&votes).unwrap();
    datanode::votes::save(
        &datanode::votes::path_in(&votes),
        &[cluster::msg::Msg::ViewChosen {
            epoch: 40,
            members: [1].into(),
            installer: 1,
        }],
    )
    .unwrap();
    let mut mgmd = spawn(&[
        "mgmd",
        "--config",
        file.to_str().unwrap(),
        "--data-dir",
        votes.to_str().unwrap(),
    ]);
    let text = datanode::cluster_host::ask_management_node(
        &mgm,
        1,
        false,
        &transport::auth::Guard::default(),
        Duration::from_secs(5),
    )
    .unwrap();
    let handed = cluster::config::ClusterConfig::parse(&text).unwrap();
    assert_eq!(handed.first_epoch, 42, "{text}");
    mgmd.child.kill().unwrap();
    let _ = mgmd.child.wait();

    let path = datanode::votes::path_in(&votes);
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xFF;
    std::fs::write(&path, &bytes).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(["mgmd", "--config", file.to_str().unwrap(), "--data-dir"])
        .arg(&votes)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && said.contains("arbitrator-votes"),
        "{said}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
