//! Accounts of the SQL front end and their grants: kept as rows of the hidden tables
//! `cairn_sql_users` (accounts with their global privileges) and `cairn_sql_grants` (privileges
//! on one database, or database pattern, or one table) on the data node (no database, so SQL
//! never lists or reaches them), so every API node sees the same accounts and they are logged
//! and checkpointed like any row. Also the host matching that picks a connecting client's
//! account, and each API node's caching_sha2_password fast-path cache.
//!
//! It never keeps a cleartext password: native accounts store `*HEX` (SHA1(SHA1(pw))),
//! caching_sha2 accounts MySQL's salted `$A$005$` SHA-256 crypt.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Mutex;

use base::schema::{ColumnDef, TableDef};
use base::types::ColumnType;
use base::{ErrorCode, Value};
use client::{Cluster, OpResult, Scan, Table};
use myproto::auth::{self, CACHING_SHA2_PASSWORD};
use myproto::handshake::NATIVE_PASSWORD;

use crate::catalog::privilege::{self, Privileges};
use crate::foundation::error::SqlError;
use crate::foundation::random::random;

/// The table the accounts live in: an internal table (`base::schema::is_internal_table`), so no
/// other front end opens it.
pub const USERS_TABLE: &str = "cairn_sql_users";
/// The longest user name (MariaDB's 128 characters; bytes here).
pub const USER_BYTES_MAX: u32 = 128;
/// The longest host pattern (MariaDB's 255).
pub const HOST_BYTES_MAX: u32 = 255;
/// The longest stored authentication string.
pub const AUTH_BYTES_MAX: u32 = 255;
/// The table grants on databases and tables live in (internal too).
pub const GRANTS_TABLE: &str = "cairn_sql_grants";
/// The longest database name or pattern a grant names: 64 characters of up to 4 bytes, each
/// possibly escaped.
pub const GRANT_DATABASE_BYTES_MAX: u32 = 512;
/// The longest table name a grant names (64 characters of up to 4 bytes).
pub const GRANT_TABLE_BYTES_MAX: u32 = 256;

/// An authentication plugin an account may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plugin {
    Native,
    CachingSha2,
    /// MariaDB's unix_socket: no password; a client on the Unix socket file whose operating
    /// system account has the account's user name logs in (over TCP, never).
    UnixSocket,
}

/// MariaDB's name for the plugin that logs in the operating system's user of a Unix socket
/// connection (MySQL's auth_socket, which MariaDB does not know by that name either).
pub const UNIX_SOCKET: &str = "unix_socket";

impl Plugin {
    pub fn name(self) -> &'static str {
        match self {
            Plugin::Native => NATIVE_PASSWORD,
            Plugin::CachingSha2 => CACHING_SHA2_PASSWORD,
            Plugin::UnixSocket => UNIX_SOCKET,
        }
    }

    pub fn by_name(name: &str) -> Option<Plugin> {
        if name.eq_ignore_ascii_case(NATIVE_PASSWORD) {
            Some(Plugin::Native)
        } else if name.eq_ignore_ascii_case(CACHING_SHA2_PASSWORD) {
            Some(Plugin::CachingSha2)
        } else if name.eq_ignore_ascii_case(UNIX_SOCKET) {
            Some(Plugin::UnixSocket)
        } else {
            None
        }
    }

    /// The stored form of `password` under this plugin (`random` salts caching_sha2's).
    /// unix_socket takes no password: MariaDB's syntax error.
    pub fn stored(self, password: &[u8]) -> Result<String, SqlError> {
        Ok(match self {
            Plugin::Native => {
                auth::native_hash_text(&myproto::handshake::native_password_hash(password))
            }
            Plugin::CachingSha2 => auth::sha2_stored(password, &auth::salt_from_random(&random()?)),
            Plugin::UnixSocket => {
                return Err(SqlError::parse("unix_socket takes no password (near 'BY')"))
            }
        })
    }

    /// Whether `stored` is a valid stored form for this plugin (`AS 'hash'`). unix_socket keeps
    /// any text (MariaDB keeps it and does not use it).
    pub fn valid_stored(self, stored: &str) -> bool {
        match self {
            Plugin::Native => auth::parse_native_hash_text(stored).is_some(),
            Plugin::CachingSha2 => stored.is_empty() || auth::parse_sha2_stored(stored).is_some(),
            Plugin::UnixSocket => true,
        }
    }
}

/// One account: `user`@`host` with its plugin, stored password and global privileges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    pub user: String,
    /// The host or pattern, in lower case.
    pub host: String,
    pub plugin: Plugin,
    /// `*HEX`, `$A$005$...` or empty (no password).
    pub auth: String,
    pub privileges: Privileges,
}

impl Account {
    pub fn new(user: &str, host: &str) -> Account {
        Account {
            user: user.into(),
            host: host.to_ascii_lowercase(),
            plugin: Plugin::Native,
            auth: String::new(),
            privileges: 0,
        }
    }

    fn key(&self) -> Vec<Value> {
        key(&self.user, &self.host)
    }

    fn values(&self, table: &Table) -> Result<Vec<(u16, Value)>, SqlError> {
        table
            .values(&[
                ("user", Value::Bytes(self.user.clone().into_bytes())),
                ("host", Value::Bytes(self.host.clone().into_bytes())),
                (
                    "plugin",
                    Value::Bytes(self.plugin.name().as_bytes().to_vec()),
                ),
                ("auth", Value::Bytes(self.auth.clone().into_bytes())),
                ("privileges", Value::UInt(self.privileges)),
            ])
            .map_err(|e| SqlError::from_client(&e))
    }
}

fn key(user: &str, host: &str) -> Vec<Value> {
    vec![
        Value::Bytes(user.as_bytes().to_vec()),
        Value::Bytes(host.to_ascii_lowercase().into_bytes()),
    ]
}

/// The accounts table's definition.
fn definition() -> TableDef {
    let columns = vec![
        ColumnDef::new(
            "user",
            ColumnType::VarBinary {
                length: USER_BYTES_MAX,
            },
        ),
        ColumnDef::new(
            "host",
            ColumnType::VarBinary {
                length: HOST_BYTES_MAX,
            },
        ),
        ColumnDef::new("plugin", ColumnType::VarBinary { length: 64 }),
        ColumnDef::new(
            "auth",
            ColumnType::VarBinary {
                length: AUTH_BYTES_MAX,
            },
        ),
        ColumnDef::new("privileges", ColumnType::BigInt { unsigned: true }),
    ];
    match TableDef::new(USERS_TABLE, columns, &["user", "host"]) {
        Ok(def) => def,
        // A fixed definition: failing to build it is a defect of this file.
        Err(e) => panic!("the accounts table's definition is invalid: {e}"),
    }
}

/// Creates the accounts table when it is missing, with `root`@`localhost` holding every
/// privilege and `root_password` (mysql_native_password). When the table already holds
/// accounts, nothing changes: the catalog's accounts win over the flag (the return says
/// whether root's stored password differs from `root_password`, for a warning).
pub fn bootstrap(cluster: &Cluster, root_password: &str) -> Result<bool, SqlError> {
    let table = ensure(cluster, definition())?;
    // Data directories made before grants below the global level lack their table.
    ensure(cluster, grants_definition())?;
    let accounts = load_from(cluster, &table)?;
    if accounts.is_empty() {
        let root = Account {
            privileges: privilege::ALL | privilege::GRANT_OPTION,
            auth: Plugin::Native.stored(root_password.as_bytes())?,
            ..Account::new("root", "localhost")
        };
        match insert(cluster, &root) {
            Ok(_) => {}
            Err(e) => return Err(e),
        }
        return Ok(false);
    }
    let wanted = Plugin::Native.stored(root_password.as_bytes())?;
    Ok(accounts.iter().any(|a| {
        a.user == "root"
            && a.host == "localhost"
            && !(a.plugin == Plugin::Native && a.auth == wanted)
    }))
}

/// The internal table `def` names, created when it is missing.
fn ensure(cluster: &Cluster, def: TableDef) -> Result<Table, SqlError> {
    let client = |e: client::ClientError| SqlError::from_client(&e);
    let name = def.name.clone();
    match cluster.table(&name) {
        Ok(t) => Ok(t),
        Err(e) if e.code() == ErrorCode::NoSuchTable => match cluster.create_table(def) {
            Ok(t) => Ok(t),
            // Another API node made it meanwhile.
            Err(e) if e.code() == ErrorCode::TableExists => cluster.table(&name).map_err(client),
            Err(e) => Err(client(e)),
        },
        Err(e) => Err(client(e)),
    }
}

fn users_table(cluster: &Cluster) -> Result<Table, SqlError> {
    cluster
        .table(USERS_TABLE)
        .map_err(|e| SqlError::from_client(&e))
}

/// Every account.
pub fn load(cluster: &Cluster) -> Result<Vec<Account>, SqlError> {
    load_from(cluster, &users_table(cluster)?)
}

fn load_from(cluster: &Cluster, table: &Table) -> Result<Vec<Account>, SqlError> {
    let columns = ["user", "host", "plugin", "auth", "privileges"];
    let rows = scan_all(cluster, table, &columns)?;
    Ok(rows.into_iter().filter_map(|r| account_of(&r)).collect())
}

/// Every row of internal table `table` (`columns` of it), read again under its new definition
/// when it changed since this node cached it.
fn scan_all(
    cluster: &Cluster,
    table: &Table,
    columns: &[&str],
) -> Result<Vec<Vec<Value>>, SqlError> {
    let scan = Scan::table().columns(columns);
    match cluster.scan(table, &scan) {
        Ok(rows) => Ok(rows),
        Err(e) if e.code() == ErrorCode::SchemaChanged => {
            let name = table.def().name.clone();
            cluster.forget_table(&name);
            let table = cluster
                .table(&name)
                .map_err(|e| SqlError::from_client(&e))?;
            cluster
                .scan(&table, &scan)
                .map_err(|e| SqlError::from_client(&e))
        }
        Err(e) => Err(SqlError::from_client(&e)),
    }
}

fn account_of(row: &[Value]) -> Option<Account> {
    let text = |v: &Value| match v {
        Value::Bytes(b) => String::from_utf8(b.clone()).ok(),
        _ => None,
    };
    let [user, host, plugin, auth, privileges] = row else {
        return None;
    };
    Some(Account {
        user: text(user)?,
        host: text(host)?,
        plugin: Plugin::by_name(&text(plugin)?)?,
        auth: text(auth)?,
        privileges: match privileges {
            Value::UInt(p) => *p,
            Value::Int(p) => *p as u64,
            _ => return None,
        },
    })
}

/// The account `user`@`host` (exactly, not by matching).
pub fn find(cluster: &Cluster, user: &str, host: &str) -> Result<Option<Account>, SqlError> {
    let host = host.to_ascii_lowercase();
    Ok(load(cluster)?
        .into_iter()
        .find(|a| a.user == user && a.host == host))
}

/// Adds an account; false when one of that name exists.
pub fn insert(cluster: &Cluster, account: &Account) -> Result<bool, SqlError> {
    let table = users_table(cluster)?;
    let mut txn = cluster.transaction();
    txn.insert(&table, account.values(&table)?);
    match txn.commit() {
        Ok(()) => Ok(true),
        Err(e) if e.code() == ErrorCode::DuplicateKey => Ok(false),
        Err(e) => Err(SqlError::from_client(&e)),
    }
}

/// Replaces an account's plugin, password and privileges; false when it does not exist.
pub fn update(cluster: &Cluster, account: &Account) -> Result<bool, SqlError> {
    let table = users_table(cluster)?;
    let mut txn = cluster.transaction();
    let op = txn.update(&table, account.key(), account.values(&table)?);
    txn.execute(client::ExecType::NoCommit)
        .map_err(|e| SqlError::from_client(&e))?;
    let found = !matches!(txn.result(op), Some(OpResult::NotFound));
    txn.commit().map_err(|e| SqlError::from_client(&e))?;
    Ok(found)
}

/// Removes an account; false when it did not exist.
pub fn delete(cluster: &Cluster, user: &str, host: &str) -> Result<bool, SqlError> {
    let table = users_table(cluster)?;
    let mut txn = cluster.transaction();
    let op = txn.delete(&table, key(user, host));
    txn.execute(client::ExecType::NoCommit)
        .map_err(|e| SqlError::from_client(&e))?;
    let found = !matches!(txn.result(op), Some(OpResult::NotFound));
    txn.commit().map_err(|e| SqlError::from_client(&e))?;
    Ok(found)
}

/// A grant below the global level: privileges on a database (or every database a pattern
/// matches) when `table` is empty, else on one table of `database`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub user: String,
    /// The account's host, in lower case.
    pub host: String,
    pub database: String,
    pub table: String,
    pub privileges: Privileges,
}

impl Grant {
    fn key(&self) -> Vec<Value> {
        let mut key = key(&self.user, &self.host);
        key.push(Value::Bytes(self.database.clone().into_bytes()));
        key.push(Value::Bytes(self.table.clone().into_bytes()));
        key
    }
}

/// The grants table's definition.
fn grants_definition() -> TableDef {
    let bytes = |name: &str, length: u32| ColumnDef::new(name, ColumnType::VarBinary { length });
    let columns = vec![
        bytes("user", USER_BYTES_MAX),
        bytes("host", HOST_BYTES_MAX),
        bytes("db", GRANT_DATABASE_BYTES_MAX),
        bytes("tbl", GRANT_TABLE_BYTES_MAX),
        ColumnDef::new("privileges", ColumnType::BigInt { unsigned: true }),
    ];
    match TableDef::new(GRANTS_TABLE, columns, &["user", "host", "db", "tbl"]) {
        Ok(def) => def,
        // A fixed definition: failing to build it is a defect of this file.
        Err(e) => panic!("the grants table's definition is invalid: {e}"),
    }
}

fn grants_table(cluster: &Cluster) -> Result<Table, SqlError> {
    cluster
        .table(GRANTS_TABLE)
        .map_err(|e| SqlError::from_client(&e))
}

/// Every grant below the global level, of every account.
pub fn all_grants(cluster: &Cluster) -> Result<Vec<Grant>, SqlError> {
    let columns = ["user", "host", "db", "tbl", "privileges"];
    let rows = scan_all(cluster, &grants_table(cluster)?, &columns)?;
    let text = |v: &Value| match v {
        Value::Bytes(b) => String::from_utf8(b.clone()).ok(),
        _ => None,
    };
    Ok(rows
        .iter()
        .filter_map(|row| {
            let [user, host, db, tbl, privileges] = row.as_slice() else {
                return None;
            };
            Some(Grant {
                user: text(user)?,
                host: text(host)?,
                database: text(db)?,
                table: text(tbl)?,
                privileges: match privileges {
                    Value::UInt(p) => *p,
                    _ => return None,
                },
            })
        })
        .collect())
}

/// The grants of account `user`@`host` below the global level: database grants first, exact
/// names before patterns (a pattern that leaves its wildcard later before one that has it
/// sooner, as MariaDB sorts them), then table grants, each by name.
pub fn grants_of(cluster: &Cluster, user: &str, host: &str) -> Result<Vec<Grant>, SqlError> {
    let host = host.to_ascii_lowercase();
    let mut grants: Vec<Grant> = all_grants(cluster)?
        .into_iter()
        .filter(|g| g.user == user && g.host == host)
        .collect();
    grants.sort_by_cached_key(|g| {
        let rank = match g.database.find(['%', '_']) {
            Some(at) if is_pattern(&g.database) => usize::MAX - at,
            _ => 0,
        };
        (
            !g.table.is_empty(),
            rank,
            g.database.clone(),
            g.table.clone(),
        )
    });
    Ok(grants)
}

/// Stores grants in one transaction, each replacing the one on the same object; one holding
/// no privileges is removed.
pub fn put_grants(cluster: &Cluster, grants: &[Grant]) -> Result<(), SqlError> {
    let table = grants_table(cluster)?;
    let mut txn = cluster.transaction();
    for grant in grants {
        if grant.privileges == 0 {
            txn.delete(&table, grant.key());
            continue;
        }
        let values = table
            .values(&[
                ("user", Value::Bytes(grant.user.clone().into_bytes())),
                ("host", Value::Bytes(grant.host.clone().into_bytes())),
                ("db", Value::Bytes(grant.database.clone().into_bytes())),
                ("tbl", Value::Bytes(grant.table.clone().into_bytes())),
                ("privileges", Value::UInt(grant.privileges)),
            ])
            .map_err(|e| SqlError::from_client(&e))?;
        txn.write(&table, grant.key(), values);
    }
    txn.commit().map_err(|e| SqlError::from_client(&e))
}

/// Removes every grant of `user`@`host` below the global level (DROP USER, REVOKE ALL).
pub fn drop_grants(cluster: &Cluster, user: &str, host: &str) -> Result<(), SqlError> {
    let gone: Vec<Grant> = grants_of(cluster, user, host)?
        .into_iter()
        .map(|g| Grant { privileges: 0, ..g })
        .collect();
    put_grants(cluster, &gone)
}

/// Moves every grant of one account to another's name (RENAME USER).
pub fn rename_grants(
    cluster: &Cluster,
    (user, host): (&str, &str),
    (new_user, new_host): (&str, &str),
) -> Result<(), SqlError> {
    let mut moves = Vec::new();
    for grant in grants_of(cluster, user, host)? {
        moves.push(Grant {
            user: new_user.into(),
            host: new_host.to_ascii_lowercase(),
            ..grant.clone()
        });
        moves.push(Grant {
            privileges: 0,
            ..grant
        });
    }
    put_grants(cluster, &moves)
}

/// Where a client connects from: the host name its errors and USER() show (`localhost` for a
/// loopback address, as MariaDB resolves it, else the address) and the names its accounts'
/// hosts are matched against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Peer {
    pub name: String,
    pub loopback: bool,
    pub address: String,
}

impl Peer {
    pub fn of(address: Option<SocketAddr>) -> Peer {
        let ip = match address.map(|a| a.ip()) {
            Some(IpAddr::V6(v6)) => match v6.to_ipv4_mapped() {
                Some(v4) => IpAddr::V4(v4),
                None => IpAddr::V6(v6),
            },
            Some(ip) => ip,
            None => IpAddr::V4(std::net::Ipv4Addr::LOCALHOST),
        };
        let loopback = ip.is_loopback();
        Peer {
            name: if loopback {
                "localhost".into()
            } else {
                ip.to_string()
            },
            loopback,
            address: ip.to_string(),
        }
    }

    /// A client on this host's Unix socket: `localhost`, which no address pattern admits.
    pub fn local() -> Peer {
        Peer {
            name: "localhost".into(),
            loopback: true,
            address: "localhost".into(),
        }
    }

    /// Whether an account's host (name, address or pattern with `%` and `_`) admits this peer.
    pub fn matches(&self, host: &str) -> bool {
        if host.eq_ignore_ascii_case("localhost") {
            return self.loopback;
        }
        like(host.as_bytes(), self.address.as_bytes(), false)
            || (self.loopback && like(host.as_bytes(), b"localhost", false))
    }
}

/// One element of a LIKE pattern.
#[derive(Clone, Copy)]
enum Pat {
    /// `%`: any run of bytes.
    Any,
    /// `_`: one byte.
    One,
    Byte(u8),
}

/// SQL LIKE, ASCII case-insensitive: `%` any run, `_` one byte; with `escapes`, `\` makes the
/// byte after it literal (database names in grants; account hosts take no escapes).
pub(crate) fn like(pattern: &[u8], text: &[u8], escapes: bool) -> bool {
    let mut pat = Vec::with_capacity(pattern.len());
    let mut i = 0;
    while i < pattern.len() {
        pat.push(match pattern[i] {
            b'\\' if escapes && i + 1 < pattern.len() => {
                i += 1;
                Pat::Byte(pattern[i])
            }
            b'%' => Pat::Any,
            b'_' => Pat::One,
            c => Pat::Byte(c),
        });
        i += 1;
    }
    let (mut p, mut t) = (0, 0);
    let mut back: Option<(usize, usize)> = None;
    while t < text.len() {
        match pat.get(p) {
            Some(Pat::Any) => {
                back = Some((p, t));
                p += 1;
            }
            Some(Pat::One) => {
                p += 1;
                t += 1;
            }
            Some(Pat::Byte(c)) if c.eq_ignore_ascii_case(&text[t]) => {
                p += 1;
                t += 1;
            }
            _ => match back {
                Some((bp, bt)) => {
                    p = bp + 1;
                    t = bt + 1;
                    back = Some((bp, bt + 1));
                }
                None => return false,
            },
        }
    }
    pat[p.min(pat.len())..]
        .iter()
        .all(|c| matches!(c, Pat::Any))
}

/// Whether a grant's database name holds a wildcard (`%` or `_` not escaped by `\\`).
pub(crate) fn is_pattern(name: &str) -> bool {
    let mut escaped = false;
    for c in name.bytes() {
        match c {
            b'\\' if !escaped => escaped = true,
            b'%' | b'_' if !escaped => return true,
            _ => escaped = false,
        }
    }
    false
}

/// How specific an account's host is, most specific first (MySQL's sort): a literal host, then
/// patterns by how far their first wildcard stands, `%` (or empty) last.
fn host_rank(host: &str) -> (u8, usize) {
    match host.find(['%', '_']) {
        None if !host.is_empty() => (0, 0),
        Some(at) if at > 0 => (1, usize::MAX - at),
        _ => (2, 0),
    }
}

/// The account a client named `user` connecting from `peer` is: the most specific host that
/// admits it, among accounts of that name (or the anonymous account, after named ones).
pub fn choose<'a>(accounts: &'a [Account], user: &str, peer: &Peer) -> Option<&'a Account> {
    accounts
        .iter()
        .filter(|a| (a.user == user || a.user.is_empty()) && peer.matches(&a.host))
        .min_by_key(|a| (host_rank(&a.host), a.user.is_empty()))
}

/// (user, host) of an account.
type AccountKey = (String, String);

/// Each API node's caching_sha2_password fast-path cache: SHA256(SHA256(password)) by account,
/// filled after a full authentication (or when this node sets the password), and valid only
/// while the account's stored hash is the one it was filled under.
#[derive(Default)]
pub struct Sha2Cache {
    /// (stored hash the digest was made under, SHA256(SHA256(password))) by account.
    digests: Mutex<HashMap<AccountKey, (String, [u8; 32])>>,
}

impl Sha2Cache {
    /// The digest for `account`, if cached under its current stored hash.
    pub fn get(&self, account: &Account) -> Option<[u8; 32]> {
        let map = self.digests.lock().ok()?;
        match map.get(&(account.user.clone(), account.host.clone())) {
            Some((stored, digest)) if *stored == account.auth => Some(*digest),
            _ => None,
        }
    }

    pub fn put(&self, account: &Account, password: &[u8]) {
        if let Ok(mut map) = self.digests.lock() {
            map.insert(
                (account.user.clone(), account.host.clone()),
                (account.auth.clone(), auth::sha2_digest(password)),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_accounts_table_is_internal() {
        assert!(base::schema::is_internal_table(USERS_TABLE));
    }

    fn peer(ip: &str) -> Peer {
        Peer::of(Some(SocketAddr::new(ip.parse().unwrap(), 1)))
    }

    #[test]
    fn hosts_match_as_mysql_does() {
        let local = peer("127.0.0.1");
        assert_eq!(local.name, "localhost");
        assert!(local.matches("localhost"));
        assert!(local.matches("127.0.0.1"));
        assert!(local.matches("%"));
        assert!(local.matches("127.%"));
        assert!(local.matches("local%"));
        assert!(!local.matches("10.%"));
        let remote = peer("10.1.2.3");
        assert_eq!(remote.name, "10.1.2.3");
        assert!(!remote.matches("localhost"));
        assert!(remote.matches("10.1.2._"));
        assert!(remote.matches("10.%.3"));
        assert!(!remote.matches("10.1.2.4"));
        assert!(peer("::ffff:127.0.0.1").loopback);
        assert!(peer("::1").matches("localhost"));
    }

    #[test]
    fn database_patterns_match_as_mariadb_grants_do() {
        let m = |p: &str, t: &str| like(p.as_bytes(), t.as_bytes(), true);
        assert!(m("app", "app"));
        assert!(m("app", "APP"));
        assert!(!m("app", "app2"));
        assert!(m("app_%", "app_one"));
        assert!(m("app_db", "appxdb"), "an unescaped _ is a wildcard");
        assert!(!m("app\\_db", "appxdb"));
        assert!(m("app\\_db", "app_db"));
        assert!(m("a\\%", "a%"));
        assert!(!m("a\\%", "ab"));
        assert!(m("%", ""));
        assert!(!is_pattern("app\\_db"));
        assert!(is_pattern("app_db"));
        assert!(is_pattern("a%"));
        assert!(!is_pattern("plain"));
        // Hosts take no escapes.
        assert!(like(b"10.\\%", b"10.\\1", false));
    }

    #[test]
    fn the_first_matching_database_grant_applies() {
        let grant = |db: &str, table: &str, privileges| Grant {
            user: "u".into(),
            host: "%".into(),
            database: db.into(),
            table: table.into(),
            privileges,
        };
        let scoped = privilege::Scoped::new(vec![
            grant("app", "", privilege::SELECT),
            grant("a%", "", privilege::INSERT),
            grant("app", "t", privilege::UPDATE),
        ]);
        assert_eq!(scoped.on_database("app"), privilege::SELECT);
        assert_eq!(scoped.on_database("abc"), privilege::INSERT);
        assert_eq!(scoped.on_database("zzz"), 0);
        assert_eq!(scoped.on_table("APP", "T"), privilege::UPDATE);
        assert_eq!(scoped.on_table("app", "u"), 0);
        assert!(scoped.any_table_in("app"));
        assert!(!scoped.any_table_in("abc"));
    }

    #[test]
    fn the_most_specific_host_wins() {
        let mut accounts = vec![
            Account::new("u", "%"),
            Account::new("u", "127.%"),
            Account::new("u", "localhost"),
            Account::new("v", "localhost"),
        ];
        let local = peer("127.0.0.1");
        assert_eq!(choose(&accounts, "u", &local).unwrap().host, "localhost");
        accounts.remove(2);
        assert_eq!(choose(&accounts, "u", &local).unwrap().host, "127.%");
        assert_eq!(choose(&accounts, "u", &peer("10.0.0.1")).unwrap().host, "%");
        assert!(choose(&accounts, "w", &local).is_none());
    }

    #[test]
    fn stored_forms_are_valid() {
        assert!(Plugin::Native.valid_stored(&Plugin::Native.stored(b"x").unwrap()));
        assert!(Plugin::CachingSha2.valid_stored(&Plugin::CachingSha2.stored(b"x").unwrap()));
        assert!(!Plugin::Native.valid_stored("plain"));
        assert!(Plugin::Native.valid_stored(""));
    }
}
