//! An API node outlives its data node: `cairn api` keeps serving HandlerSocket and SQL after the
//! `cairn datanode` it uses is killed and started again on the same address and data directory,
//! on the connections that were open before as well as on new ones; over TCP and over shared
//! memory (where only the Unix socket beside the rings tells the API node its peer died).

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

mod common;
use common::{free_port, mysql, spawn, Started, FREE_FRONT_END_PORTS};

fn datanode(address: &str, dir: &str, shm: Option<&str>) -> Started {
    let mut args = vec![
        "datanode",
        "--listen",
        address,
        "--workers",
        "1",
        "--data-dir",
        dir,
    ];
    if let Some(name) = shm {
        args.extend(["--shm-listen", name]);
    }
    spawn(&args)
}

/// One HandlerSocket request line and its answer line.
fn ask(hs: &mut BufReader<TcpStream>, line: &str) -> String {
    hs.get_mut().write_all(line.as_bytes()).unwrap();
    let mut answer = String::new();
    hs.read_line(&mut answer).unwrap();
    answer
}

#[test]
fn front_ends_serve_again_when_their_data_node_comes_back() {
    serve_again(false);
}

#[test]
fn front_ends_over_shared_memory_serve_again_when_their_data_node_comes_back() {
    serve_again(true);
}

fn serve_again(over_shm: bool) {
    let tag = if over_shm { "shm" } else { "tcp" };
    let root =
        std::env::temp_dir().join(format!("cairn-reconnect-test-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let dir = root.to_string_lossy().to_string();
    let address = format!("127.0.0.1:{}", free_port());
    let shm_name = format!("cairn-reconnect-test-{}", std::process::id());
    let shm = over_shm.then_some(shm_name.as_str());
    let mut node = datanode(&address, &dir, shm);
    let api_address = match shm {
        Some(name) => format!("shm:{name}"),
        None => address.clone(),
    };
    let mut args = vec!["api", "--datanode", &api_address];
    args.extend(FREE_FRONT_END_PORTS);
    let api = spawn(&args);
    let sql = api.listening("sql (mysql protocol): ");
    let hs_read = api
        .listening("handlersocket: read ")
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    mysql(
        &sql,
        "create database rc; create table rc.t (id int primary key, v varchar(10)); \
         insert into rc.t values (1, 'one'), (2, 'two')",
    );
    let mut hs = BufReader::new(TcpStream::connect(&hs_read).unwrap());
    hs.get_mut()
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    assert_eq!(ask(&mut hs, "P\t1\trc\tt\tPRIMARY\tid,v\n"), "0\t1\n");
    assert_eq!(ask(&mut hs, "1\t=\t1\t2\n"), "0\t2\t2\ttwo\n");
    // The SQL front end's accounts are no HandlerSocket client's to open.
    assert_eq!(
        ask(&mut hs, "P\t2\trc\tcairn_sql_users\tPRIMARY\tuser,auth\n"),
        "1\t1\topen_table\n"
    );

    // An SQL session whose transaction a lost data node connection rolled back (1213) begins
    // another: that one is a transaction too (its INSERT is undone by ROLLBACK), not a run of
    // statements each committed on its own (sysbench's 1062 in the rolling-restart test).
    let mut held = std::process::Command::new("mysql")
        .args(["-h", "127.0.0.1", "-P"])
        .arg(sql.rsplit_once(':').unwrap().1)
        .args(["-u", "root", "--batch", "-n", "--force"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the mysql client runs");
    let mut held_in = held.stdin.take().unwrap();
    held_in
        .write_all(b"INSERT INTO rc.t VALUES (20, 'twenty');\nSELECT 'inserted' AS done;\n")
        .unwrap();
    held_in.flush().unwrap();
    // Its data node connection exists, and the row is committed, before the kill.
    let mut held_out = BufReader::new(held.stdout.take().unwrap());
    let mut line = String::new();
    while line.trim() != "inserted" {
        line.clear();
        assert!(
            held_out.read_line(&mut line).unwrap() > 0,
            "the held session ended"
        );
    }

    // Killed hard, then started again on the same address and data directory.
    node.child.kill().unwrap();
    node.child.wait().unwrap();
    let node = datanode(&address, &dir, shm);

    // The open HandlerSocket connection and its open index answer again: the first requests
    // after the restart may answer an error while the front end connects again.
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut last = String::new();
    while last != "0\t2\t1\tone\n" {
        assert!(
            Instant::now() < deadline,
            "HandlerSocket still answers {last:?} 30 s after its data node came back"
        );
        if !last.is_empty() {
            std::thread::sleep(Duration::from_millis(50));
        }
        last = ask(&mut hs, "1\t=\t1\t1\n");
    }
    // A new HandlerSocket connection too.
    let mut fresh = BufReader::new(TcpStream::connect(&hs_read).unwrap());
    assert_eq!(ask(&mut fresh, "P\t7\trc\tt\t\tv\n"), "0\t1\n");
    assert_eq!(ask(&mut fresh, "7\t>=\t1\t1\t2\n"), "0\t1\tone\ttwo\n");

    // SQL: a new connection logs in (the accounts are read from the data node), reads and
    // writes, and runs DDL.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let out = std::process::Command::new("mysql")
            .args(["-h", "127.0.0.1", "-P"])
            .arg(sql.rsplit_once(':').unwrap().1)
            .args([
                "-u",
                "root",
                "--batch",
                "-e",
                "select v from rc.t where id = 2",
            ])
            .output()
            .expect("the mysql client runs");
        if out.status.success() {
            assert_eq!(String::from_utf8_lossy(&out.stdout), "v\ntwo\n");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "SQL still fails 30 s after the data node came back: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // The held session: a read, a write, ROLLBACK. Its write is gone.
    held_in
        .write_all(
            b"BEGIN;\nUPDATE rc.t SET v = 'x' WHERE id = 20;\nBEGIN;\n\
              INSERT INTO rc.t VALUES (10, 'ten');\nROLLBACK;\n\
              SELECT count(*) AS ten FROM rc.t WHERE id = 10;\n",
        )
        .unwrap();
    drop(held_in);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut held_out, &mut rest).unwrap();
    let held = held.wait_with_output().unwrap();
    assert!(
        rest.ends_with("ten\n0\n"),
        "the transaction begun after the lost one was not one (its INSERT stayed after ROLLBACK): {rest:?}, errors {:?}",
        String::from_utf8_lossy(&held.stderr)
    );
    let out = mysql(
        &sql,
        "insert into rc.t values (3, 'three'); create table rc.u (id int primary key); \
         select count(*) from rc.t",
    );
    assert_eq!(out, "count(*)\n4\n");

    api.terminate();
    let mut node = node;
    node.child.kill().unwrap();
    node.child.wait().unwrap();
    let _ = std::fs::remove_dir_all(&root);
}
