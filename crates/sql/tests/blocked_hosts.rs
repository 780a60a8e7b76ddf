//! Failed logins from an address off this host turn it away from that account for a while
//! (MariaDB answers 1129 for a blocked host): a password guesser gets five tries, then waits
//! longer after each further failure; a success forgets, but only that account's failures;
//! clients on loopback are never blocked.

use std::process::Command;
use std::time::{Duration, Instant};

mod common;

use sql::SqlConfig;

fn login(host: &str, port: u16, password: &str) -> Result<(), String> {
    login_as(host, port, "root", password)
}

fn login_as(host: &str, port: u16, user: &str, password: &str) -> Result<(), String> {
    let out = Command::new("mysql")
        .args([
            "-h",
            host,
            "-P",
            &port.to_string(),
            "-u",
            user,
            &format!("-p{password}"),
            "--ssl=0",
            "-N",
            "-e",
            "select 1",
        ])
        .output()
        .expect("the mysql client runs");
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).to_string())
    }
}

/// An address of this host that is not loopback, if it has one.
fn outside_address() -> Option<String> {
    let probe = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    probe.connect("192.0.2.1:9").ok()?;
    let ip = probe.local_addr().ok()?.ip();
    (!ip.is_loopback() && !ip.is_unspecified()).then(|| ip.to_string())
}

#[test]
fn a_password_guesser_off_this_host_is_turned_away_and_loopback_never_is() {
    let (node, server) = common::start_configured(SqlConfig {
        listen: "0.0.0.0:0".into(),
        root_password: "right".into(),
        ..SqlConfig::default()
    });
    let port = server.address().port();
    // Loopback: any number of failures, and the right password still works at once.
    for _ in 0..8 {
        assert!(login("127.0.0.1", port, "wrong")
            .unwrap_err()
            .contains("1045"));
    }
    login("127.0.0.1", port, "right").unwrap();

    let Some(outside) = outside_address() else {
        println!("this host has no address off loopback: the remote half of the test cannot run");
        server.stop();
        node.stop();
        return;
    };
    println!("logging in from {outside}");
    // root@localhost does not match a remote peer: make an account that does.
    let out = Command::new("mysql")
        .args([
            "-h",
            "127.0.0.1",
            "-P",
            &port.to_string(),
            "-u",
            "root",
            "-pright",
            "--ssl=0",
            "-e",
            "CREATE USER 'root'@'%' IDENTIFIED BY 'right'; CREATE USER 'bob'@'%' IDENTIFIED BY 'bobs'",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    login(&outside, port, "right").unwrap();
    for i in 0..transport::auth::FAILURES_BEFORE_BLOCK {
        if i == transport::auth::FAILURES_BEFORE_BLOCK - 1 {
            // Another account's success from the same address forgives nothing of root's.
            login_as(&outside, port, "bob", "bobs").unwrap();
        }
        let e = login(&outside, port, "wrong").unwrap_err();
        assert!(e.contains("1045"), "{e}");
    }
    // Blocked now, even with the right password.
    let e = login(&outside, port, "right").unwrap_err();
    assert!(e.contains("1129") && e.contains("blocked"), "{e}");
    // Loopback is not, nor is another account from the same address.
    login("127.0.0.1", port, "right").unwrap();
    login_as(&outside, port, "bob", "bobs").unwrap();
    // After the block the right password is taken, and the failures are forgotten.
    let deadline = Instant::now() + Duration::from_secs(10);
    while let Err(e) = login(&outside, port, "right") {
        assert!(e.contains("1129"), "{e}");
        assert!(Instant::now() < deadline, "still blocked after 10 s");
        std::thread::sleep(Duration::from_millis(100));
    }
    let e = login(&outside, port, "wrong").unwrap_err();
    assert!(
        e.contains("1045"),
        "one failure after a success is not a block: {e}"
    );
    server.stop();
    node.stop();
}
