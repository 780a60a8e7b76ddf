//! Accounts through the protocol: users kept in the data node and seen by a second API node,
//! mysql_native_password and caching_sha2_password logins (fast path, full authentication
//! refused without TLS, auth switch), wrong passwords, and privileges enforced per statement,
//! for text queries, prepared statements and the reactor's fast path alike.

use std::time::Duration;

use myproto::auth;
use myproto::handshake::native_password_answer;
use sql::{SqlConfig, SqlServer};

mod common;
use common::raw::{Answer, Raw};

/// How a login ended.
enum Login {
    Ok(Raw),
    /// ERR with this number.
    Refused(u16),
}

/// Logs in as `user` with `password`, first answering with `plugin`'s algorithm, and following
/// an auth switch and caching_sha2_password's more-data packets (never sending a cleartext
/// password: over plain TCP a client asks for the RSA key, as this one does).
fn login(port: u16, user: &str, password: &str, plugin: &str) -> Login {
    let s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut raw = Raw { s };
    let greeting = raw.packet().expect("greeting");
    // The scramble: 8 bytes after the version and thread id, then 12 more after the fixed part.
    let version_end = greeting.iter().position(|b| *b == 0).unwrap();
    let at = version_end + 1 + 4;
    let mut scramble = greeting[at..at + 8].to_vec();
    let rest = at + 8 + 1 + 2 + 1 + 2 + 2 + 1 + 10;
    scramble.extend_from_slice(&greeting[rest..rest + 12]);
    let answer = |plugin: &str, scramble: &[u8]| -> Vec<u8> {
        if plugin == auth::CACHING_SHA2_PASSWORD {
            auth::sha2_answer(password.as_bytes(), scramble)
        } else {
            native_password_answer(password.as_bytes(), scramble)
        }
    };
    let caps: u32 = 0x200 | 0x8000 | 0x80000;
    let mut p = Vec::new();
    p.extend_from_slice(&caps.to_le_bytes());
    p.extend_from_slice(&(1u32 << 24).to_le_bytes());
    p.push(45);
    p.extend_from_slice(&[0; 23]);
    p.extend_from_slice(user.as_bytes());
    p.push(0);
    let first = answer(plugin, &scramble);
    p.push(first.len() as u8);
    p.extend_from_slice(&first);
    p.extend_from_slice(plugin.as_bytes());
    p.push(0);
    raw.send(1, &p);
    let mut seq = 3;
    let mut plugin = plugin.to_string();
    loop {
        let reply = raw.packet().expect("an answer to the login");
        match reply[0] {
            0x00 => return Login::Ok(raw),
            0xff => return Login::Refused(u16::from_le_bytes([reply[1], reply[2]])),
            0xfe => {
                // Auth switch: plugin name, then the scramble.
                let body = &reply[1..];
                let nul = body.iter().position(|b| *b == 0).unwrap();
                plugin = String::from_utf8_lossy(&body[..nul]).into_owned();
                let scramble: Vec<u8> = body[nul + 1..]
                    .iter()
                    .copied()
                    .take_while(|b| *b != 0)
                    .collect();
                raw.send(seq, &answer(&plugin, &scramble));
                seq += 2;
            }
            0x01 if reply.get(1) == Some(&auth::FAST_AUTH_SUCCESS) => seq += 1,
            0x01 if reply.get(1) == Some(&auth::PERFORM_FULL_AUTHENTICATION) => {
                raw.send(seq, &[auth::REQUEST_PUBLIC_KEY]);
                seq += 2;
            }
            other => panic!("unexpected login packet {other:#x} ({plugin})"),
        }
    }
}

fn ok(login: Login) -> Raw {
    match login {
        Login::Ok(raw) => raw,
        Login::Refused(code) => panic!("login refused with {code}"),
    }
}

fn refused(login: Login) -> u16 {
    match login {
        Login::Ok(_) => panic!("login accepted"),
        Login::Refused(code) => code,
    }
}

fn root(port: u16) -> Raw {
    ok(login(port, "root", "", "mysql_native_password"))
}

/// A data node and an SQL server, root logged in, and `setup` run as root.
fn started(setup: &[&str]) -> (datanode::DataNode, SqlServer, u16, Raw) {
    let (node, server) = common::start(16 << 20);
    let port = server.address().port();
    let mut admin = root(port);
    for sql in setup {
        assert_eq!(admin.query(sql), Answer::Ok, "{sql}");
    }
    (node, server, port, admin)
}

#[test]
fn accounts_passwords_and_privileges() {
    let (node, server, port, mut admin) = started(&[
        "CREATE DATABASE d",
        "CREATE TABLE d.t (id INT PRIMARY KEY, v INT)",
        "INSERT INTO d.t VALUES (1, 10), (2, 20)",
        "CREATE USER 'native'@'localhost' IDENTIFIED BY 'pw1'",
        "CREATE USER 'sha'@'%' IDENTIFIED WITH caching_sha2_password BY 'pw2'",
        "CREATE USER reader@localhost IDENTIFIED BY 'r'",
        "GRANT SELECT ON *.* TO reader@localhost",
    ]);
    assert_eq!(
        admin.query("CREATE USER 'native'@'localhost'"),
        Answer::Err(1396)
    );
    assert_eq!(
        admin.query("CREATE USER IF NOT EXISTS 'native'@'localhost'"),
        Answer::Ok
    );
    assert_eq!(admin.query("DROP USER nobody@localhost"), Answer::Err(1396));

    // mysql_native_password, answered at once or after an auth switch.
    let mut native = ok(login(port, "native", "pw1", "mysql_native_password"));
    ok(login(port, "native", "pw1", "caching_sha2_password"));
    assert_eq!(
        refused(login(port, "native", "wrong", "mysql_native_password")),
        1045
    );
    assert_eq!(
        refused(login(port, "nobody", "", "mysql_native_password")),
        1045
    );
    // caching_sha2_password: this API node set the password, so its fast path knows it.
    ok(login(port, "sha", "pw2", "caching_sha2_password"));
    ok(login(port, "sha", "pw2", "mysql_native_password"));
    assert_eq!(
        refused(login(port, "sha", "bad", "caching_sha2_password")),
        1045
    );

    // A user without privileges: 1142 naming the table, 1044 for a database, 1227.
    assert_eq!(native.query("SELECT 1"), Answer::Rows(vec![vec![1, b'1']]));
    assert_eq!(native.query("SELECT * FROM d.t"), Answer::Err(1142));
    assert_eq!(
        native.query("INSERT INTO d.t VALUES (3, 30)"),
        Answer::Err(1142)
    );
    assert_eq!(native.query("UPDATE d.t SET v = 1"), Answer::Err(1142));
    assert_eq!(native.query("DELETE FROM d.t"), Answer::Err(1142));
    assert_eq!(native.query("DROP TABLE d.t"), Answer::Err(1142));
    assert_eq!(
        native.query("CREATE TABLE d.u (a INT PRIMARY KEY)"),
        Answer::Err(1142)
    );
    assert_eq!(native.query("USE d"), Answer::Err(1044));
    assert_eq!(native.query("CREATE DATABASE e"), Answer::Err(1044));
    assert_eq!(native.query("CREATE USER x"), Answer::Err(1227));
    assert_eq!(
        native.query("GRANT SELECT ON *.* TO native@localhost"),
        Answer::Err(1045)
    );
    assert_eq!(
        native.query("SHOW GRANTS FOR reader@localhost"),
        Answer::Err(1044)
    );
    assert!(matches!(native.query("SHOW GRANTS"), Answer::Rows(r) if r.len() == 1));

    // A reader reads, by text, cached text and prepared statements (the reactor serves the
    // repeats), and writes nothing.
    let mut reader = ok(login(port, "reader", "r", "mysql_native_password"));
    for _ in 0..3 {
        assert!(
            matches!(reader.query("SELECT v FROM d.t WHERE id = 1"), Answer::Rows(r) if r.len() == 1)
        );
    }
    let id = reader.prepare("SELECT v FROM d.t WHERE id = ?");
    for _ in 0..3 {
        assert!(matches!(reader.execute(id, 1), Answer::Rows(r) if r.len() == 1));
    }
    assert_eq!(
        reader.query("UPDATE d.t SET v = 1 WHERE id = 1"),
        Answer::Err(1142)
    );
    assert_eq!(reader.prepare_error("DELETE FROM d.t WHERE id = ?"), 1142);
    assert_eq!(native.prepare_error("SELECT v FROM d.t WHERE id = ?"), 1142);

    // Privileges reach new connections; a connection keeps those it logged in with.
    assert_eq!(
        admin.query("GRANT SELECT, INSERT ON *.* TO native@localhost"),
        Answer::Ok
    );
    assert_eq!(native.query("SELECT * FROM d.t"), Answer::Err(1142));
    let mut native2 = ok(login(port, "native", "pw1", "mysql_native_password"));
    assert!(matches!(native2.query("SELECT * FROM d.t"), Answer::Rows(r) if r.len() == 2));
    assert_eq!(native2.query("INSERT INTO d.t VALUES (3, 30)"), Answer::Ok);
    assert_eq!(
        native2.query("DELETE FROM d.t WHERE id = 3"),
        Answer::Err(1142)
    );
    assert_eq!(
        admin.query("REVOKE INSERT ON *.* FROM native@localhost"),
        Answer::Ok
    );
    let mut native3 = ok(login(port, "native", "pw1", "mysql_native_password"));
    assert_eq!(
        native3.query("INSERT INTO d.t VALUES (4, 40)"),
        Answer::Err(1142)
    );

    // Passwords change for new logins; a user may change their own.
    assert_eq!(
        admin.query("ALTER USER native@localhost IDENTIFIED BY 'pw3'"),
        Answer::Ok
    );
    assert_eq!(
        refused(login(port, "native", "pw1", "mysql_native_password")),
        1045
    );
    let mut native4 = ok(login(port, "native", "pw3", "mysql_native_password"));
    assert_eq!(native4.query("SET PASSWORD = PASSWORD('pw4')"), Answer::Ok);
    ok(login(port, "native", "pw4", "mysql_native_password"));

    // A second API node over the same data node sees the accounts, but its caching_sha2 cache
    // is empty: without TLS the full authentication is refused, cleanly.
    let second = SqlServer::start(SqlConfig {
        datanode: node.address().to_string(),
        listen: "127.0.0.1:0".into(),
        ..SqlConfig::default()
    })
    .unwrap();
    let port2 = second.address().port();
    ok(login(port2, "native", "pw4", "mysql_native_password"));
    ok(login(port2, "reader", "r", "caching_sha2_password"));
    assert_eq!(
        refused(login(port2, "sha", "pw2", "caching_sha2_password")),
        1045
    );
    // Dropped accounts are gone for both.
    assert_eq!(
        admin.query("DROP USER native@localhost, 'sha'@'%'"),
        Answer::Ok
    );
    assert_eq!(
        refused(login(port2, "native", "pw4", "mysql_native_password")),
        1045
    );
    assert_eq!(
        refused(login(port, "sha", "pw2", "caching_sha2_password")),
        1045
    );
    second.stop();
    server.stop();
    node.stop();
}

#[test]
fn root_password_is_set_at_the_first_start_only() {
    let node = datanode::DataNode::start(datanode::DataNodeConfig {
        listen: "127.0.0.1:0".into(),
        ..datanode::DataNodeConfig::default()
    })
    .unwrap();
    let start = |password: &str| {
        SqlServer::start(SqlConfig {
            datanode: node.address().to_string(),
            listen: "127.0.0.1:0".into(),
            root_password: password.into(),
            ..SqlConfig::default()
        })
        .unwrap()
    };
    let first = start("secret");
    let port = first.address().port();
    assert_eq!(
        refused(login(port, "root", "", "mysql_native_password")),
        1045
    );
    ok(login(port, "root", "secret", "mysql_native_password"));
    first.stop();
    // A later start with another password keeps the catalog's.
    let later = start("other");
    let port = later.address().port();
    assert_eq!(
        refused(login(port, "root", "other", "mysql_native_password")),
        1045
    );
    ok(login(port, "root", "secret", "caching_sha2_password"));
    later.stop();
    node.stop();
}

/// What a review found an account could do beyond its grants, each refused now.
#[test]
fn accounts_stay_within_their_grants() {
    let (node, server, port, mut admin) = started(&[
        "CREATE DATABASE d",
        "CREATE TABLE d.t (id INT PRIMARY KEY, v INT)",
        "INSERT INTO d.t VALUES (1, 10)",
        "CREATE USER granter@localhost IDENTIFIED BY 'g'",
        "GRANT INSERT, UPDATE, SELECT ON *.* TO granter@localhost WITH GRANT OPTION",
        "CREATE USER inserter@localhost IDENTIFIED BY 'i'",
        "GRANT INSERT ON *.* TO inserter@localhost",
        "CREATE USER tablereader@localhost IDENTIFIED BY 't'",
        "GRANT SELECT ON d.t TO tablereader@localhost",
    ]);
    let mut granter = ok(login(port, "granter", "g", "mysql_native_password"));
    // Another account's password: neither GRANT ... IDENTIFIED nor SET PASSWORD FOR, and its
    // grants (with the hash) stay hidden, without CREATE USER.
    assert_eq!(
        granter.query("GRANT SELECT ON *.* TO root@localhost IDENTIFIED BY 'mine'"),
        Answer::Err(1227)
    );
    assert_eq!(
        granter.query("SET PASSWORD FOR root@localhost = PASSWORD('mine')"),
        Answer::Err(1044)
    );
    assert_eq!(
        granter.query("SHOW GRANTS FOR root@localhost"),
        Answer::Err(1044)
    );
    ok(login(port, "root", "", "mysql_native_password"));
    // Its own password it may change.
    assert_eq!(granter.query("SET PASSWORD = PASSWORD('g2')"), Answer::Ok);
    ok(login(port, "granter", "g2", "mysql_native_password"));

    let mut inserter = ok(login(port, "inserter", "i", "mysql_native_password"));
    // A WITH clause named after the table it reads does not hide the read.
    assert_eq!(
        inserter.query("WITH t AS (SELECT * FROM d.t) SELECT * FROM t"),
        Answer::Err(1142)
    );
    // An upsert updates: INSERT alone is not enough; nor for a subquery's table.
    assert_eq!(
        inserter.query("INSERT INTO d.t VALUES (1, 11) ON DUPLICATE KEY UPDATE v = 11"),
        Answer::Err(1142)
    );
    assert_eq!(
        inserter.query("INSERT INTO d.t VALUES (5, (SELECT MAX(v) FROM d.t))"),
        Answer::Err(1142)
    );
    // Option-only ALTER TABLE needs ALTER.
    assert_eq!(
        inserter.query("ALTER TABLE d.t COMMENT = 'x'"),
        Answer::Err(1142)
    );
    // A prepared SELECT the reactor served is checked again after its table grant is revoked,
    // even once the session read its new grants for another statement on its thread.
    let mut tablereader = ok(login(port, "tablereader", "t", "mysql_native_password"));
    let id = tablereader.prepare("SELECT v FROM d.t WHERE id = ?");
    for _ in 0..3 {
        assert!(matches!(tablereader.execute(id, 1), Answer::Rows(r) if r.len() == 1));
    }
    assert_eq!(
        admin.query("REVOKE SELECT ON d.t FROM tablereader@localhost"),
        Answer::Ok
    );
    assert_eq!(tablereader.query("SET @x = 1"), Answer::Ok);
    assert_eq!(tablereader.execute(id, 1), Answer::Err(1142));

    // A long chain of account statements in one query answers each, and the server stays.
    // COM_SET_OPTION: multi-statements on.
    admin.send(0, &[0x1b, 0, 0]);
    let _ = admin.packet();
    let chain = "SHOW GRANTS; ".repeat(5_000);
    let answer = admin.query(&chain);
    assert!(matches!(answer, Answer::Rows(_)), "{answer:?}");
    ok(login(port, "root", "", "mysql_native_password"));
    server.stop();
    node.stop();
}
