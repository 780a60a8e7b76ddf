//! Real clients log in as created accounts: the mysql command-line client (Debian's
//! mariadb-client, whose caching_sha2_password plugin Debian ships) and PyMySQL, with
//! mysql_native_password and caching_sha2_password, over TLS (the server's self-signed
//! certificate) and not; a wrong password is refused with 1045, a missing privilege with 1142.

use sha2::Digest;
use std::process::{Command, Output};

mod common;

/// Runs `script` through the mysql client as `user` with `password`, over TLS when `tls`.
fn mysql(port: u16, user: &str, password: &str, tls: bool, script: &str) -> Output {
    let mut c = Command::new("mysql");
    c.args(["-h", "127.0.0.1", "-P", &port.to_string(), "-u", user])
        .arg(format!("--password={password}"))
        .args(["--batch", "--skip-column-names"]);
    // This client asks for TLS by default when the server offers it.
    c.arg(if tls { "--ssl" } else { "--skip-ssl" });
    c.args(["-e", script])
        .output()
        .expect("the mysql client runs (apt-get install mariadb-client)")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A python3 that can import pymysql (PATH first, then Debian's).
fn python() -> String {
    for p in ["python3", "/usr/bin/python3"] {
        if Command::new(p)
            .args(["-c", "import pymysql"])
            .output()
            .is_ok_and(|o| o.status.success())
        {
            return p.into();
        }
    }
    panic!("python3 with pymysql is missing (apt-get install python3-pymysql; .ci/run does)");
}

/// Logs in with PyMySQL and runs `sql`: its first row, or `error <number>`.
fn pymysql(port: u16, user: &str, password: &str, tls: bool, sql: &str) -> String {
    let script = r#"
import ssl, sys, pymysql
port, user, password, tls, sql = sys.argv[1:]
options = {}
if tls == "1":
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    options["ssl"] = context
try:
    c = pymysql.connect(host="127.0.0.1", port=int(port), user=user, password=password, **options)
    with c.cursor() as cur:
        cur.execute(sql)
        print(cur.fetchone()[0])
except pymysql.err.MySQLError as e:
    print("error %s" % e.args[0])
except Exception as e:
    print("failed %s" % type(e).__name__)
"#;
    let out = Command::new(python())
        .args(["-c", script, &port.to_string(), user, password])
        .arg(if tls { "1" } else { "0" })
        .arg(sql)
        .output()
        .expect("python3 runs");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn real_clients_log_in_with_both_plugins_over_tls_and_not() {
    let (node, server) = common::start(16 << 20);
    let port = server.address().port();
    // The caching_sha2 accounts get stored hashes, so no cleartext reached this API node: its
    // fast-path cache is empty until a client authenticates in full, which needs TLS.
    let salt = myproto::auth::salt_from_random(&[7; 20]);
    let sha_hash = myproto::auth::sha2_stored(b"spw", &salt);
    let setup = format!(
        "CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY); INSERT INTO d.t VALUES (7);
         CREATE USER n@localhost IDENTIFIED BY 'npw';
         CREATE USER s@localhost IDENTIFIED WITH caching_sha2_password AS '{sha_hash}';
         CREATE USER p@localhost IDENTIFIED WITH caching_sha2_password AS '{sha_hash}';
         CREATE USER lim@localhost IDENTIFIED BY 'lpw';
         GRANT SELECT ON *.* TO n@localhost, s@localhost, p@localhost;"
    );
    let out = mysql(port, "root", "", false, &setup);
    assert!(out.status.success(), "{}", text(&out));

    // mysql_native_password, plain and over TLS.
    for tls in [false, true] {
        let out = mysql(port, "n", "npw", tls, "SELECT id FROM d.t");
        assert_eq!(text(&out), "7\n", "tls {tls}");
        let out = mysql(port, "n", "nope", tls, "SELECT 1");
        assert!(text(&out).contains("ERROR 1045"), "{}", text(&out));
    }
    // caching_sha2_password: refused without TLS while nothing is cached; over TLS the full
    // authentication succeeds and fills the cache; then the fast path serves plain logins.
    let out = mysql(port, "s", "spw", false, "SELECT 1");
    assert!(!out.status.success(), "{}", text(&out));
    let out = mysql(port, "s", "spw", true, "SELECT CURRENT_USER()");
    assert_eq!(text(&out), "s@localhost\n");
    let out = mysql(port, "s", "spw", false, "SELECT id FROM d.t");
    assert_eq!(text(&out), "7\n");
    let out = mysql(port, "s", "bad", true, "SELECT 1");
    assert!(text(&out).contains("ERROR 1045"), "{}", text(&out));
    // A missing privilege.
    let out = mysql(port, "lim", "lpw", true, "SELECT id FROM d.t");
    assert!(text(&out).contains("ERROR 1142"), "{}", text(&out));

    // PyMySQL, the same ways.
    assert_eq!(pymysql(port, "n", "npw", false, "SELECT id FROM d.t"), "7");
    assert_eq!(pymysql(port, "n", "npw", true, "SELECT id FROM d.t"), "7");
    assert_eq!(pymysql(port, "n", "x", false, "SELECT 1"), "error 1045");
    assert_ne!(pymysql(port, "p", "spw", false, "SELECT 1"), "1");
    assert_eq!(pymysql(port, "p", "spw", true, "SELECT id FROM d.t"), "7");
    assert_eq!(pymysql(port, "p", "spw", false, "SELECT id FROM d.t"), "7");
    assert_eq!(pymysql(port, "p", "bad", true, "SELECT 1"), "error 1045");
    assert_eq!(
        pymysql(port, "lim", "lpw", true, "SELECT id FROM d.t"),
        "error 1142"
    );
    assert_eq!(
        pymysql(port, "lim", "lpw", false, "INSERT INTO d.t VALUES (8)"),
        "error 1142"
    );
    server.stop();
    node.stop();
}

/// Runs `script` through the mysql client as root over the Unix socket file `socket`.
fn mysql_socket(socket: &str, script: &str) -> Output {
    Command::new("mysql")
        .args([
            "-S",
            socket,
            "-u",
            "root",
            "--batch",
            "--skip-column-names",
            "-e",
            script,
        ])
        .output()
        .expect("the mysql client runs (apt-get install mariadb-client)")
}

#[test]
fn clients_on_this_host_connect_over_the_unix_socket() {
    let dir = std::env::temp_dir().join(format!("cairn-sql-socket-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("mysql.sock");
    // A regular file in the way is refused, not removed.
    std::fs::write(&path, b"not a socket").unwrap();
    let node = datanode::DataNode::start(datanode::DataNodeConfig {
        listen: "127.0.0.1:0".into(),
        ..datanode::DataNodeConfig::default()
    })
    .unwrap();
    let config = sql::SqlConfig {
        datanode: node.address().to_string(),
        listen: "127.0.0.1:0".into(),
        socket: Some(path.clone()),
        ..sql::SqlConfig::default()
    };
    let refused = sql::SqlServer::start(config.clone()).map(|_| ());
    assert!(refused.is_err(), "{refused:?}");
    assert_eq!(std::fs::read(&path).unwrap(), b"not a socket");
    std::fs::remove_file(&path).unwrap();

    let server = sql::SqlServer::start(config.clone()).unwrap();
    assert_eq!(server.socket(), Some(path.as_path()));
    // A second server on the same socket is refused while the first answers there.
    assert!(sql::SqlServer::start(sql::SqlConfig {
        listen: "127.0.0.1:0".into(),
        ..config.clone()
    })
    .is_err());
    let socket = path.to_str().unwrap();
    let out = mysql_socket(
        socket,
        "CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(10));
             INSERT INTO d.t VALUES (1, 'one'), (2, 'two');
             SELECT USER(), COUNT(*) FROM d.t",
    );
    assert_eq!(text(&out), "root@localhost\t2\n");
    // PyMySQL, with server-side reads the event loop serves once the plan is cached.
    let script = r#"
import sys, pymysql
c = pymysql.connect(unix_socket=sys.argv[1], user="root", database="d")
with c.cursor() as cur:
    got = []
    for i in range(40):
        cur.execute("SELECT v FROM t WHERE id = %s", (1 + i % 2,))
        got.append(cur.fetchone()[0])
    print(",".join(sorted(set(got))), len(got))
"#;
    let out = Command::new(python())
        .args(["-c", script, socket])
        .output()
        .expect("python3 runs");
    assert_eq!(text(&out).trim(), "one,two 40");
    // The socket counts as secure for caching_sha2_password's full authentication (the
    // clients send the password in the clear there, as over TLS), and its clients are
    // `localhost`, which an account for 127.0.0.1 does not admit.
    let salt = myproto::auth::salt_from_random(&[9; 20]);
    let sha_hash = myproto::auth::sha2_stored(b"spw", &salt);
    let out = mysql_socket(
        socket,
        &format!(
            "CREATE USER s@localhost IDENTIFIED WITH caching_sha2_password AS '{sha_hash}';
             CREATE USER ip@'127.0.0.1' IDENTIFIED BY 'ipw';
             GRANT SELECT ON *.* TO s@localhost, ip@'127.0.0.1'"
        ),
    );
    assert!(out.status.success(), "{}", text(&out));
    let as_user = |user: &str, password: &str| {
        Command::new("mysql")
            .args(["-S", socket, "-u", user, "--batch", "--skip-column-names"])
            .arg(format!("--password={password}"))
            .args(["-e", "SELECT CURRENT_USER()"])
            .output()
            .unwrap()
    };
    assert_eq!(text(&as_user("s", "spw")), "s@localhost\n");
    assert!(text(&as_user("s", "bad")).contains("ERROR 1045"));
    assert!(text(&as_user("ip", "ipw")).contains("ERROR 1045"));
    let port = server.address().port();
    assert_eq!(
        pymysql(port, "ip", "ipw", false, "SELECT CURRENT_USER()"),
        "ip@127.0.0.1"
    );
    server.stop();
    assert!(!path.exists(), "the socket file goes when the server stops");
    // A socket file left by a server that is gone is replaced.
    let stale = std::os::unix::net::UnixListener::bind(&path).unwrap();
    drop(stale);
    let server = sql::SqlServer::start(config).unwrap();
    let out = mysql_socket(socket, "SELECT COUNT(*) FROM d.t");
    assert_eq!(text(&out), "2\n");
    // Stopping returns even when the file went meanwhile, and removes no file that is not
    // its socket.
    std::fs::remove_file(&path).unwrap();
    std::fs::write(&path, b"someone else's").unwrap();
    server.stop();
    assert_eq!(std::fs::read(&path).unwrap(), b"someone else's");
    node.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs a PyMySQL script (`c` connects with the character set given) against `port`; its
/// printed lines.
/// A PyMySQL script whose `cur` is a cursor of a connection that sends several statements in
/// one text.
fn multi_statements(port: u16, body: &str) -> String {
    let connect = format!(
        "from pymysql.constants import CLIENT\nc = pymysql.connect(host=\"127.0.0.1\", port={port}, user=\"root\", client_flag=CLIENT.MULTI_STATEMENTS)\ncur = c.cursor()\n"
    );
    pymysql_script(port, &format!("{connect}{body}"))
}

fn pymysql_script(port: u16, body: &str) -> String {
    let script = format!(
        r#"
import sys, pymysql
def connect(charset):
    return pymysql.connect(host="127.0.0.1", port={port}, user="root", charset=charset, autocommit=True)
{body}
"#
    );
    let out = Command::new(python())
        .args(["-c", &script])
        .output()
        .expect("python3 runs");
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn a_latin1_client_writes_and_reads_its_own_characters() {
    let (node, server) = common::start(16 << 20);
    let port = server.address().port();
    let out = pymysql_script(
        port,
        r#"
u = connect("utf8mb4").cursor()
u.execute("CREATE DATABASE d")
u.execute("CREATE TABLE d.t (id INT PRIMARY KEY, s VARCHAR(10), l VARCHAR(10) CHARACTER SET latin1)")
# The handshake asks for latin1 (collation 8): PyMySQL sends cp1252 bytes.
l = connect("latin1").cursor()
l.execute("SELECT @@character_set_client, @@character_set_results, @@collation_connection")
print(l.fetchone())
l.execute("INSERT INTO d.t VALUES (1, 'ñ€', 'ñ€')")
l.execute("INSERT INTO d.t VALUES (%s, %s, %s)", (2, "é", "é"))
u.execute("SELECT id, s, l, CHAR_LENGTH(s) FROM d.t ORDER BY id")
print(u.fetchall())
l.execute("SELECT s, l FROM d.t WHERE s = 'ñ€'")
print(l.fetchall(), [f.charsetnr for f in l._result.fields])
# A character latin1 lacks reaches a latin1 client as '?', as from MariaDB.
u.execute("INSERT INTO d.t VALUES (3, 'żx', 'x')")
l.execute("SELECT s FROM d.t WHERE id = 3")
print(l.fetchall())
l.execute("SET NAMES utf8mb4")
l.execute("SELECT @@character_set_client")
print(l.fetchone())
"#,
    );
    assert_eq!(
        out,
        "('latin1', 'latin1', 'latin1_swedish_ci')\n\
         ((1, 'ñ€', 'ñ€', 2), (2, 'é', 'é', 1))\n\
         (('ñ€', 'ñ€'),) [8, 8]\n\
         (('?x',),)\n\
         ('utf8mb4',)\n",
        "{out}"
    );
    server.stop();
    node.stop();
}

/// A MariaDB client program (`mysqldump`, `mysql`) as root against `port`, without TLS, with
/// `args` after the connection's.
fn as_root(program: &str, port: u16, args: &[&str]) -> Command {
    let mut c = Command::new(program);
    c.args([
        "-h",
        "127.0.0.1",
        "-P",
        &port.to_string(),
        "-u",
        "root",
        "--skip-ssl",
    ])
    .args(args);
    c
}

#[test]
fn mysqldump_backs_up_a_database_and_the_mysql_client_restores_it() {
    let (node, server) = common::start(16 << 20);
    let port = server.address().port();
    let setup = "CREATE DATABASE src; USE src;
        CREATE TABLE people (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, email VARCHAR(40) NOT NULL,
            name VARCHAR(20) CHARACTER SET latin1 NULL, born DATE NULL, balance DECIMAL(10,2) NOT NULL DEFAULT 0,
            UNIQUE KEY uemail (email), KEY iname (name)) COMMENT 'who';
        CREATE TABLE notes (id BIGINT UNSIGNED NOT NULL PRIMARY KEY, person INT NOT NULL, body TEXT,
            at DATETIME(3) NULL, KEY iperson (person));
        INSERT INTO people (email, name, born, balance) VALUES
            ('a@x', 'Ann', '1990-01-02', 10.5), ('b@x', 'Bé\\'s', NULL, -3),
            ('c@x', NULL, '2001-12-31', 0), ('d@x', 'Zoë \"Z\"', '1970-01-01', 99999999.99);
        INSERT INTO notes VALUES (1, 1, 'first\\nline', '2024-01-02 03:04:05.678'),
            (18446744073709551615, 2, NULL, NULL), (3, 4, '', '1999-09-09 09:09:09.000');";
    let out = mysql(port, "root", "", false, setup);
    assert!(out.status.success(), "{}", text(&out));
    let dump = as_root("mysqldump", port, &["src"])
        .output()
        .expect("mysqldump runs (apt-get install mariadb-client)");
    assert!(dump.status.success(), "{}", text(&dump));
    let sql = String::from_utf8(dump.stdout).expect("the dump is UTF-8");
    assert!(sql.contains("CREATE TABLE `people`"), "{sql}");
    // In one transaction (START TRANSACTION WITH CONSISTENT SNAPSHOT, savepoints), with the
    // routines, events and triggers Cairn has none of, the same tables and rows.
    let single = as_root(
        "mysqldump",
        port,
        &[
            "--single-transaction",
            "--routines",
            "--events",
            "--triggers",
            "src",
        ],
    )
    .output()
    .expect("mysqldump runs");
    assert!(single.status.success(), "{}", text(&single));
    let data = |dump: &str| -> Vec<String> {
        dump.lines()
            .filter(|l| l.starts_with('(') || l.starts_with("CREATE TABLE"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(data(&String::from_utf8_lossy(&single.stdout)), data(&sql));
    // Restore into another database through the mysql client, as a user would.
    let out = mysql(port, "root", "", false, "CREATE DATABASE dst");
    assert!(out.status.success(), "{}", text(&out));
    let mut restore = as_root("mysql", port, &["dst"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the mysql client runs");
    {
        use std::io::Write;
        let mut stdin = restore.stdin.take().unwrap();
        stdin.write_all(sql.as_bytes()).unwrap();
    }
    let restored = restore.wait_with_output().unwrap();
    assert!(restored.status.success(), "{}", text(&restored));
    for (query, shown) in [
        ("SELECT * FROM {} ORDER BY id", true),
        ("SELECT * FROM {} ORDER BY id DESC", true),
        ("SHOW CREATE TABLE {}", false),
    ] {
        for table in ["people", "notes"] {
            let run = |db: &str| {
                let q = query.replace("{}", &format!("{db}.{table}"));
                let o = mysql(port, "root", "", false, &q);
                assert!(o.status.success(), "{}", text(&o));
                String::from_utf8_lossy(&o.stdout).replace(db, "DB")
            };
            let (a, b) = (run("src"), run("dst"));
            assert_eq!(a, b, "{query} on {table}");
            if shown {
                assert!(a.lines().count() >= 3, "{a}");
            }
        }
    }
    // The next AUTO_INCREMENT value came back too.
    let out = mysql(
        port,
        "root",
        "",
        false,
        "INSERT INTO dst.people (email) VALUES ('e@x'); SELECT MAX(id) FROM dst.people",
    );
    assert_eq!(text(&out), "5\n");
    server.stop();
    node.stop();
}

#[test]
fn grants_and_revokes_reach_connected_sessions_and_processlist_needs_process() {
    let (node, server) = common::start(16 << 20);
    let port = server.address().port();
    let out = pymysql_script(
        port,
        r#"
root = connect("utf8mb4").cursor()
for sql in ["CREATE DATABASE g", "CREATE TABLE g.t (id INT PRIMARY KEY)", "INSERT INTO g.t VALUES (1), (2)",
            "CREATE USER u@localhost IDENTIFIED BY 'pw'", "GRANT SELECT ON g.* TO u@localhost"]:
    root.execute(sql)
u = pymysql.connect(host="127.0.0.1", port=PORT, user="u", password="pw", autocommit=True).cursor()
def count():
    try:
        u.execute("SELECT COUNT(*) FROM g.t")
        return u.fetchone()[0]
    except pymysql.err.MySQLError as e:
        return "error %d" % e.args[0]
print(count())
root.execute("REVOKE SELECT ON g.* FROM u@localhost")
print(count())
root.execute("GRANT SELECT ON g.t TO u@localhost")
print(count())
# Without PROCESS, SHOW PROCESSLIST lists the account's own sessions only.
u.execute("SHOW PROCESSLIST")
print(sorted(set(r[1] for r in u.fetchall())))
root.execute("SHOW PROCESSLIST")
print(sorted(set(r[1] for r in root.fetchall())))
"#
        .replace("PORT", &port.to_string())
        .as_str(),
    );
    assert_eq!(out, "2\nerror 1142\n2\n['u']\n['root', 'u']\n", "{out}");
    server.stop();
    node.stop();
}

/// Bytes are bytes: every byte value, a 1 MiB and a 32 MiB random blob (kept in parts), written
/// as string literals over the text protocol (PyMySQL sends Python bytes as quoted raw bytes,
/// or `_binary'...'` with binary_prefix) come back exactly; a literal that is no UTF-8 aimed at
/// a utf8mb4 column is refused with 1366 as in MariaDB's strict mode, and a prepared
/// statement's BLOB parameter keeps its bytes too, every byte value and 32 MiB (sent over
/// three packets).
#[test]
fn binary_data_in_text_literals_and_parameters_is_stored_byte_for_byte() {
    let (node, server) = common::start(64 << 20);
    let port = server.address().port();
    let out = pymysql_script(
        port,
        r#"
import random
seed = random.randrange(1 << 32)
print("seed", seed, file=sys.stderr)
rng = random.Random(seed)
c = connect("utf8mb4").cursor()
c.execute("CREATE DATABASE d")
c.execute("CREATE TABLE d.b (id INT PRIMARY KEY, b MEDIUMBLOB, v VARBINARY(300), t VARCHAR(300))")
c.execute("CREATE TABLE d.l (id INT PRIMARY KEY, b LONGBLOB)")
every = bytes(range(256))
big = bytes(rng.getrandbits(8) for _ in range(1 << 20))
c.execute("INSERT INTO d.b (id, b, v) VALUES (%s, %s, %s)", (1, every, every))
c.execute("INSERT INTO d.b (id, b) VALUES (%s, %s)", (2, big))
p = pymysql.connect(host="127.0.0.1", port=PORT, user="root", autocommit=True, binary_prefix=True).cursor()
p.execute("INSERT INTO d.b (id, b, v) VALUES (%s, %s, %s)", (3, every[::-1], every[::-1]))
c.execute("SELECT id, b, v FROM d.b ORDER BY id")
rows = c.fetchall()
print([(r[0], r[1] == {1: every, 2: big, 3: every[::-1]}[r[0]], r[2] == {1: every, 2: None, 3: every[::-1]}[r[0]]) for r in rows])
c.execute("SELECT LENGTH(b), LENGTH(v) FROM d.b WHERE id = 1")
print(c.fetchone())
# Found by their bytes, too.
c.execute("SELECT id FROM d.b WHERE v = %s", (every,))
print(c.fetchall())
try:
    c.execute("INSERT INTO d.b (id, t) VALUES (%s, %s)", (4, b"ok \xff\xfe"))
    print("stored")
except pymysql.err.MySQLError as e:
    print("error", e.args[0])
huge = rng.randbytes(32 << 20)
c.execute("INSERT INTO d.l (id, b) VALUES (%s, %s)", (1, huge))
p.execute("INSERT INTO d.l (id, b) VALUES (%s, %s)", (2, huge[::-1]))
c.execute("SELECT id, b FROM d.l ORDER BY id")
print([(r[0], r[1] == {1: huge, 2: huge[::-1]}[r[0]]) for r in c.fetchall()])
"#
        .replace("PORT", &port.to_string())
        .as_str(),
    );
    // The script prints its seed on stderr, after what it printed on stdout.
    assert!(
        out.starts_with(
            "[(1, True, True), (2, True, True), (3, True, True)]\n(256, 256)\n((1,),)\nerror 1366\n[(1, True), (2, True)]\nseed "
        ),
        "{out}"
    );
    // A server-side prepared statement's BLOB parameter.
    let mut raw = common::raw::Raw::login(port);
    let id = raw.prepare("INSERT INTO d.b (id, b) VALUES (?, ?)");
    let every: Vec<u8> = (0..=255).collect();
    assert_eq!(
        raw.execute_int_and_bytes(id, 5, &every),
        common::raw::Answer::Ok
    );
    let hex: String = every.iter().map(|b| format!("{b:02X}")).collect();
    let mut row = vec![0xfc, 0, 2];
    row.extend_from_slice(hex.as_bytes());
    assert_eq!(
        raw.query("SELECT HEX(b) FROM d.b WHERE id = 5"),
        common::raw::Answer::Rows(vec![row])
    );
    // 32 MiB of random bytes as a prepared statement's parameter, checked by their digest.
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64)
        | 1;
    eprintln!("32 MiB parameter: seed {seed}");
    let mut x = seed;
    let huge: Vec<u8> = (0..32 << 20)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    let id = raw.prepare("INSERT INTO d.l (id, b) VALUES (?, ?)");
    assert_eq!(
        raw.execute_int_and_bytes(id, 7, &huge),
        common::raw::Answer::Ok
    );
    let digest: String = sha2::Sha256::digest(&huge)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let expected = format!("{}\t{digest}", huge.len());
    match raw.query("SELECT LENGTH(b), SHA2(b, 256) FROM d.l WHERE id = 7") {
        common::raw::Answer::Rows(rows) => {
            let got: Vec<String> = common::raw::values(&rows[0])
                .into_iter()
                .flatten()
                .collect();
            assert_eq!(got.join("\t"), expected);
        }
        other => panic!("the 32 MiB parameter's digest: {other:?}"),
    }
    server.stop();
    node.stop();
}

/// Several statements in one text, a later one not parsing: the ones before it answer first
/// and the error comes in its place, as from MariaDB (PyMySQL's test_nextset_error).
#[test]
fn a_statement_that_does_not_parse_fails_after_the_ones_before_it() {
    let (node, server) = common::start(16 << 20);
    let port = server.address().port();
    let out = multi_statements(
        port,
        r#"
cur.execute("SELECT 0; SELECT 1; xyzzy; SELECT 3")
print(cur.fetchall())
cur.nextset()
print(cur.fetchall())
try:
    cur.nextset()
    print("no error")
except pymysql.err.ProgrammingError as e:
    print("error", e.args[0])
cur.execute("SELECT 42")
print(cur.fetchall())
"#,
    );
    assert_eq!(out, "((0,),)\n((1,),)\nerror 1064\n((42,),)\n", "{out}");
    server.stop();
    node.stop();
}

/// NO_BACKSLASH_ESCAPES sets its status flag, so a client escapes quotes by doubling them
/// (PyMySQL's test_escape_string), and the server reads backslashes as characters.
#[test]
fn no_backslash_escapes_is_announced_and_followed() {
    let (node, server) = common::start(16 << 20);
    let port = server.address().port();
    let out = pymysql_script(
        port,
        r#"
c = connect("utf8mb4")
print(c.escape("foo'bar"))
cur = c.cursor()
cur.execute("SET sql_mode='NO_BACKSLASH_ESCAPES'")
print(c.escape("foo'bar"), bool(c.server_status & 0x200))
cur.execute("SELECT %s, LENGTH(%s)", ("a\\b'c", "a\\b'c"))
print(cur.fetchone())
"#,
    );
    assert_eq!(
        out, "'foo\\'bar'\n'foo''bar' True\n(\"a\\\\b'c\", 5)\n",
        "{out}"
    );
    server.stop();
    node.stop();
}

/// A text of several statements is read one statement at a time, as MariaDB reads it: after
/// `SET sql_mode='NO_BACKSLASH_ESCAPES'` the next statement's backslashes are characters
/// (MariaDB answers 615C5C62; read with the text's first mode it was 615C62), and a `;` inside a
/// literal ends nothing.
#[test]
fn a_mode_set_in_a_text_of_several_statements_reads_the_statements_after_it() {
    let (node, server) = common::start(16 << 20);
    let port = server.address().port();
    let out = multi_statements(
        port,
        r#"
cur.execute("SET sql_mode='NO_BACKSLASH_ESCAPES'; SELECT HEX('a\\\\b'), 'x;y'")
cur.nextset()
print(cur.fetchall())
cur.execute("SET sql_mode=''; SELECT HEX('a\\\\b'); SELECT 'it''s; \\'quoted\\''")
cur.nextset()
print(cur.fetchall())
cur.nextset()
print(cur.fetchall())
"#,
    );
    assert_eq!(
        out, "(('615C5C62', 'x;y'),)\n(('615C62',),)\n((\"it's; 'quoted'\",),)\n",
        "{out}"
    );
    server.stop();
    node.stop();
}

/// After `SET NAMES latin1` in a text of several statements, the statements after it are read
/// as latin1, as MariaDB 10.11 reads them: the UTF-8 bytes of 'é' are two latin1 characters,
/// and they go back to the client as the same two bytes. (Before, the whole text was read as
/// UTF-8, and the column name went out in latin1: PyMySQL could not read it.)
#[test]
fn a_character_set_set_in_a_text_of_several_statements_reads_the_statements_after_it() {
    let (node, server) = common::start(16 << 20);
    let port = server.address().port();
    let out = multi_statements(
        port,
        r#"
c._execute_command(3, "SET NAMES latin1; SELECT 'é', CHAR_LENGTH('é') AS c".encode("utf8"))
c._read_query_result()
c.next_result()
print(c._result.fields[0].name, c._result.rows)
"#,
    );
    assert_eq!(out, "é (('é', 2),)\n", "{out}");
    server.stop();
    node.stop();
}

/// LOAD DATA LOCAL INFILE through PyMySQL, answered as MariaDB 10.11 answered the same
/// statements and files (its answers written here): tab-separated rows with escapes, `\N`,
/// too few and too many fields and a duplicate key (skipped with a warning, as LOCAL does); a
/// CSV file with quotes, IGNORE 1 LINES, a user variable and SET; REPLACE, strict about
/// values; a file of 2,500 rows, which goes in several batches; a client that did not enable
/// local files (4166), a missing table (1146), a server-side file (refused, 1235).
#[test]
fn load_data_local_infile_reads_the_clients_file_as_mariadb_does() {
    let (node, server) = common::start(16 << 20);
    let port = server.address().port();
    let dir = std::env::temp_dir().join(format!("cairn-load-data-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = pymysql_script(
        port,
        &format!(
            r#"
d = "{dir}"
open(d + "/a.tsv", "wb").write(b"1\tone\t2020-01-02\n2\t\\N\t2021-02-03\n3\ttab\\there\tbad\n1\tdup\t2020-01-01\n4\textra\t2020-01-01\tx\n5\n")
open(d + "/b.csv", "wb").write(b'id,name\n10,"a,b"\n11,"say ""hi"""\n12,NULL\n')
open(d + "/c.tsv", "wb").write(b"".join(b"%d\tr%d\t2020-01-01\n" % (i, i) for i in range(100, 2600)))
c = pymysql.connect(host="127.0.0.1", port={port}, user="root", autocommit=True, local_infile=True)
cur = c.cursor()
cur.execute("CREATE DATABASE d")
cur.execute("CREATE TABLE d.ld (id INT PRIMARY KEY, name VARCHAR(20), d DATE)")
print(cur.execute("LOAD DATA LOCAL INFILE '" + d + "/a.tsv' INTO TABLE d.ld"), c._result.message)
cur.execute("SHOW WARNINGS")
print(sorted(cur.fetchall()))
cur.execute("SELECT * FROM d.ld ORDER BY id")
print(cur.fetchall())
print(cur.execute("LOAD DATA LOCAL INFILE '" + d + "/b.csv' INTO TABLE d.ld FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' LINES TERMINATED BY '\\n' IGNORE 1 LINES (id, @n) SET name = UPPER(@n)"), c._result.message)
cur.execute("SELECT * FROM d.ld WHERE id >= 10 ORDER BY id")
print(cur.fetchall())
print(cur.execute("LOAD DATA LOCAL INFILE '" + d + "/b.csv' REPLACE INTO TABLE d.ld FIELDS TERMINATED BY ',' ENCLOSED BY '\"' IGNORE 1 LINES (id, name)"), c._result.message)
cur.execute("SELECT * FROM d.ld WHERE id >= 10 ORDER BY id")
print(cur.fetchall())
for q in ["LOAD DATA LOCAL INFILE '" + d + "/a.tsv' REPLACE INTO TABLE d.ld", "LOAD DATA LOCAL INFILE '" + d + "/a.tsv' INTO TABLE d.nosuch", "LOAD DATA INFILE '" + d + "/a.tsv' INTO TABLE d.ld"]:
    try:
        cur.execute(q)
    except pymysql.MySQLError as e:
        print(e.args[0], e.args[1].replace(d, "DIR"))
print(cur.execute("LOAD DATA LOCAL INFILE '" + d + "/c.tsv' INTO TABLE d.ld"), c._result.message)
cur.execute("SELECT COUNT(*), MIN(id), MAX(id), SUM(LENGTH(name)) FROM d.ld WHERE id >= 100")
print(cur.fetchall())
open(d + "/e.csv", "wb").write(b"1,2,3\n4,5,\n6,7,,\n8\n9,\n")
cur.execute("CREATE TABLE d.tw (a INT, b INT)")
print(cur.execute("LOAD DATA LOCAL INFILE '" + d + "/e.csv' INTO TABLE d.tw FIELDS TERMINATED BY ','"), c._result.message)
cur.execute("SHOW WARNINGS")
print(cur.fetchall())
cur.execute("SELECT * FROM d.tw ORDER BY a")
print(cur.fetchall())
plain = pymysql.connect(host="127.0.0.1", port={port}, user="root")
try:
    plain.cursor().execute("LOAD DATA LOCAL INFILE '" + d + "/a.tsv' INTO TABLE d.ld")
except pymysql.MySQLError as e:
    print(e.args[0])
cur.execute("SELECT 1")
print(cur.fetchall())
"#,
            dir = dir.display()
        ),
    );
    assert_eq!(
        out,
        "5 b'/Records: 6  Deleted: 0  Skipped: 1  Warnings: 5'\n\
         [('Warning', 1062, \"Duplicate entry '1' for key 'PRIMARY'\"), ('Warning', 1261, \"Row 6 doesn't contain data for all columns\"), ('Warning', 1261, \"Row 6 doesn't contain data for all columns\"), ('Warning', 1262, 'Row 5 was truncated; it contained more data than there were input columns'), ('Warning', 1265, \"Data truncated for column 'd' at row 3\")]\n\
         ((1, 'one', datetime.date(2020, 1, 2)), (2, None, datetime.date(2021, 2, 3)), (3, 'tab\\there', '0000-00-00'), (4, 'extra', datetime.date(2020, 1, 1)), (5, None, None))\n\
         3 b'/Records: 3  Deleted: 0  Skipped: 0  Warnings: 0'\n\
         ((10, 'A,B', None), (11, 'SAY \"HI\"', None), (12, None, None))\n\
         6 b'/Records: 3  Deleted: 3  Skipped: 0  Warnings: 0'\n\
         ((10, 'a,b', None), (11, 'say \"hi\"', None), (12, None, None))\n\
         1292 Incorrect date value: 'bad' for column `d`.`ld`.`d` at row 3\n\
         1146 Table 'd.nosuch' doesn't exist\n\
         1235 This version of Cairn doesn't yet support 'LOAD DATA INFILE from the server's disk (LOAD DATA LOCAL INFILE sends the client's file)'\n\
         2500 b'2Records: 2500  Deleted: 0  Skipped: 0  Warnings: 0'\n\
         ((2500, 100, 2599, Decimal('11600')),)\n\
         5 b'/Records: 5  Deleted: 0  Skipped: 0  Warnings: 4'\n\
         (('Warning', 1262, 'Row 1 was truncated; it contained more data than there were input columns'), ('Warning', 1262, 'Row 3 was truncated; it contained more data than there were input columns'), ('Warning', 1261, \"Row 4 doesn't contain data for all columns\"), ('Warning', 1366, \"Incorrect integer value: '' for column `d`.`tw`.`b` at row 5\"))\n\
         ((1, 2), (4, 5), (6, 7), (8, None), (9, 0))\n\
         4166\n\
         ((1,),)\n",
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    server.stop();
    node.stop();
}

/// Stored procedures through PyMySQL, answered as MariaDB 10.11 answered the same statements
/// (its answers written here): a procedure with IN and OUT parameters, a DECLAREd variable, a
/// WHILE loop, IF, SELECTs (each a result set of the CALL), an INSERT, called with user
/// variables; PyMySQL's callproc (quoted user variable names); SIGNAL with and without
/// MYSQL_ERRNO; the errors for a wrong argument count, a missing procedure and one created
/// twice; DROP PROCEDURE [IF EXISTS]; and the procedure still there for a new connection.
#[test]
fn stored_procedures_run_as_mariadb_runs_them() {
    let (node, server) = common::start(16 << 20);
    let port = server.address().port();
    let out = multi_statements(
        port,
        r#"
def q(s, args=None):
    try:
        cur.execute(s, args)
        res = [cur.fetchall()]
        while cur.nextset():
            res.append(cur.fetchall())
        print(res)
    except pymysql.MySQLError as e:
        print(e.args[0], e.args[1])
q("CREATE DATABASE test1")
q("USE test1")
q("DROP PROCEDURE IF EXISTS p1; CREATE TABLE pt (pos INT PRIMARY KEY, tree CHAR(20))")
q("INSERT INTO pt VALUES (0,'ash'),(1,'birch'),(3,'larch')")
q("""CREATE PROCEDURE p1(IN t VARCHAR(255), OUT n INT)
BEGIN
  DECLARE i INT DEFAULT 0;
  SELECT pos FROM pt WHERE tree = t;
  WHILE i < 3 DO
    SET i = i + 1;
    IF i = 2 THEN SELECT i, 'two'; END IF;
  END WHILE;
  SET n = i * 10;
  INSERT INTO pt VALUES (10 + i, t);
END""")
q("SET @a='larch'; CALL p1(@a, @out); SELECT CAST(@out AS SIGNED)")
q("SELECT * FROM pt WHERE pos > 9")
q("CALL p1('x')")
q("CALL nosuch()")
q("CREATE PROCEDURE p1() SELECT 1")
q("CREATE PROCEDURE p2(ret INT) BEGIN SELECT ret; SIGNAL SQLSTATE '45001' SET MESSAGE_TEXT = 'an error', MYSQL_ERRNO = 45001; END")
q("CALL p2(42)")
q("CREATE PROCEDURE p3() BEGIN SIGNAL SQLSTATE '45000'; END")
q("CALL p3()")
q("DROP PROCEDURE p3")
q("DROP PROCEDURE p3")
q("DROP PROCEDURE IF EXISTS p3")
q("CREATE PROCEDURE `foo.bar` (arg1 int) begin select arg1*2; end")
q("SET @`_foo.bar_0` = 123; CALL `foo.bar`(@`_foo.bar_0`)")
cur.callproc("p1", args=("ash", 0))
print(cur.fetchall())
try:
    while cur.nextset():
        pass
except pymysql.MySQLError as e:
    print(e.args[0])
other = pymysql.connect(host="127.0.0.1", port=cur.connection.port, user="root", database="test1").cursor()
try:
    other.execute("CALL p2(7)")
    print(other.fetchall())
    other.nextset()
except pymysql.MySQLError as e:
    print(e.args[0])
q("DROP PROCEDURE p1; DROP PROCEDURE p2; DROP PROCEDURE `foo.bar`; DROP TABLE pt")
"#,
    );
    assert_eq!(
        out,
        "[()]\n\
         [()]\n\
         [(), ()]\n\
         [()]\n\
         [()]\n\
         [(), ((3,),), ((2, 'two'),), (), ((30,),)]\n\
         [((13, 'larch'),)]\n\
         1318 Incorrect number of arguments for PROCEDURE test1.p1; expected 2, got 1\n\
         1305 PROCEDURE test1.nosuch does not exist\n\
         1304 PROCEDURE p1 already exists\n\
         [()]\n\
         -20535 an error\n\
         [()]\n\
         1644 Unhandled user-defined exception condition\n\
         [()]\n\
         1305 PROCEDURE test1.p3 does not exist\n\
         [()]\n\
         [()]\n\
         [(), ((246,),), ()]\n\
         ((0,),)\n\
         1062\n\
         ((7,),)\n\
         -20535\n\
         [(), (), (), ()]\n",
        "{out}"
    );
    server.stop();
    node.stop();
}

/// MariaDB's unix_socket accounts over the socket file, with PyMySQL as a client of another
/// operating-system user than the server's when the test runs as root (`runuser -u nobody`),
/// else as the test's own user: the account named after the client's operating-system user
/// logs in with no password; one named otherwise, or the same one over TCP, gets MariaDB's
/// 1698. SHOW PLUGINS lists the plugin (PyMySQL's suite looks for it there), SHOW GRANTS names
/// it, and INSTALL PLUGIN answers MariaDB's 1126 for a library it cannot load.
#[test]
fn unix_socket_accounts_log_in_the_socket_clients_own_user() {
    let dir = std::env::temp_dir().join(format!("cairn-sql-unix-auth-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("mysql.sock");
    let node = datanode::DataNode::start(datanode::DataNodeConfig {
        listen: "127.0.0.1:0".into(),
        ..datanode::DataNodeConfig::default()
    })
    .unwrap();
    let server = sql::SqlServer::start(sql::SqlConfig {
        datanode: node.address().to_string(),
        listen: "127.0.0.1:0".into(),
        socket: Some(path.clone()),
        ..sql::SqlConfig::default()
    })
    .unwrap();
    let socket = path.to_str().unwrap();
    let port = server.address().port();
    let own = |args: &[&str]| {
        let out = Command::new(args[0]).args(&args[1..]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    // The client's operating-system user, and how to run a program as it.
    let as_root = own(&["id", "-u"]) == "0";
    let (os_user, python): (String, Vec<String>) = if as_root {
        (
            "nobody".into(),
            ["runuser", "-u", "nobody", "--", "/usr/bin/python3"]
                .map(String::from)
                .to_vec(),
        )
    } else {
        (own(&["id", "-un"]), vec![python()])
    };
    let out = mysql_socket(
        socket,
        &format!(
            "CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY); INSERT INTO d.t VALUES (7);
             CREATE USER '{os_user}'@localhost IDENTIFIED VIA unix_socket;
             CREATE USER someone_else@localhost IDENTIFIED VIA unix_socket;
             GRANT SELECT ON d.* TO '{os_user}'@localhost;
             SHOW GRANTS FOR '{os_user}'@localhost;
             SHOW PLUGINS"
        ),
    );
    let shown = text(&out);
    assert!(out.status.success(), "{shown}");
    assert!(
        shown.contains(&format!(
            "GRANT USAGE ON *.* TO `{os_user}`@`localhost` IDENTIFIED VIA unix_socket\n"
        )),
        "{shown}"
    );
    assert!(
        shown.contains("unix_socket\tACTIVE\tAUTHENTICATION\tNULL\tGPL"),
        "{shown}"
    );
    let script = r#"
import sys, pymysql
socket, port, me = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def attempt(**how):
    try:
        c = pymysql.connect(database="d", **how)
        with c.cursor() as cur:
            cur.execute("SELECT CURRENT_USER(), id FROM t")
            return "%s %s" % cur.fetchone()
    except pymysql.err.MySQLError as e:
        return "error %d" % e.args[0]
print(attempt(unix_socket=socket, user=me))
print(attempt(unix_socket=socket, user=me, password="anything"))
print(attempt(unix_socket=socket, user="someone_else"))
print(attempt(host="127.0.0.1", port=port, user=me))
"#;
    let out = Command::new(&python[0])
        .args(&python[1..])
        .args(["-c", script, socket, &port.to_string(), &os_user])
        .output()
        .expect("python3 runs");
    assert_eq!(
        text(&out),
        format!("{os_user}@localhost 7\n{os_user}@localhost 7\nerror 1698\nerror 1698\n"),
        "as {os_user}"
    );
    for (sql, error) in [
        (
            "INSTALL PLUGIN auth_socket SONAME 'auth_socket.so'",
            "ERROR 1126",
        ),
        ("UNINSTALL PLUGIN unix_socket", "ERROR 1619"),
        (
            "CREATE USER pw@localhost IDENTIFIED VIA unix_socket BY 'x'",
            "ERROR 1064",
        ),
    ] {
        let out = mysql_socket(socket, sql);
        assert!(text(&out).contains(error), "{sql}: {}", text(&out));
    }
    server.stop();
    node.stop();
    let _ = std::fs::remove_dir_all(&dir);
}
