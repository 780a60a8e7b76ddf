//! No open doors off loopback: before any listener binds to an address other hosts can reach,
//! every listener there must be guarded by its credentials, or the operator must say `--insecure`
//! (and is told loudly what is open). Loopback stays the zero-configuration default.

use std::net::{IpAddr, ToSocketAddrs};

use anyhow::{bail, Result};

/// One listener a command is about to open, and whether its credentials are set.
pub struct Listener {
    pub what: &'static str,
    /// The address or host it binds to (`host`, `host:port`, or `[v6]:port`).
    pub bind: String,
    /// Its credentials are set.
    pub guarded: bool,
    /// What guards it: said when it is not.
    pub how: &'static str,
}

/// Whether a bind address is reachable from this host only. Names are resolved; any address
/// they resolve to that is not loopback counts as reachable from elsewhere (0.0.0.0 and :: too).
pub fn loopback_only(bind: &str) -> bool {
    if let Ok(ip) = bind.parse::<IpAddr>() {
        return ip.is_loopback();
    }
    if let Ok(address) = bind.parse::<std::net::SocketAddr>() {
        return address.ip().is_loopback();
    }
    let host = match bind.rsplit_once(':') {
        Some((host, port)) if port.chars().all(|c| c.is_ascii_digit()) && !host.is_empty() => host,
        _ => bind,
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = host.parse::<IpAddr>() {
        return ip.is_loopback();
    }
    match (host, 0).to_socket_addrs() {
        Ok(addresses) => {
            let addresses: Vec<_> = addresses.collect();
            !addresses.is_empty() && addresses.iter().all(|a| a.ip().is_loopback())
        }
        Err(_) => false,
    }
}

/// Refuses, naming what to set, when a listener off loopback is unguarded, unless `insecure`;
/// with `insecure`, prints a warning for each such listener and goes on.
pub fn check(listeners: &[Listener], insecure: bool) -> Result<()> {
    let open: Vec<&Listener> = listeners
        .iter()
        .filter(|l| !l.guarded && !loopback_only(&l.bind))
        .collect();
    if open.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = open
        .iter()
        .map(|l| format!("  {} on {}: {}", l.what, l.bind, l.how))
        .collect();
    if insecure {
        eprintln!(
            "WARNING: --insecure: these listeners are open to other hosts with no credentials:\n{}",
            list.join("\n")
        );
        println!(
            "WARNING: --insecure: {} listener(s) open to other hosts with no credentials",
            open.len()
        );
        return Ok(());
    }
    bail!(
        "refusing to listen off loopback with no credentials:\n{}\nBind to 127.0.0.1, set what is named, or add --insecure for a lab network.",
        list.join("\n")
    )
}

/// What guards the native protocol: the cluster key, or certificates of the cluster's CA.
pub const NATIVE_HOW: &str =
    "set --cluster-tls (certificates from `cairn admin certs`) or --cluster-key-file (without them anyone who reaches the native protocol can read, write and drop every table)";
pub const HS_READ_HOW: &str = "set --hs-read-secret (HandlerSocket bypasses SQL accounts)";
pub const HS_WRITE_HOW: &str = "set --hs-write-secret (HandlerSocket bypasses SQL accounts)";
pub const SQL_HOW: &str =
    "set --sql-root-password (root's password, kept in the catalog from the first start)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_is_told_from_the_rest() {
        for bind in [
            "127.0.0.1",
            "127.0.0.1:2202",
            "::1",
            "[::1]:3306",
            "localhost",
            "localhost:9998",
        ] {
            assert!(loopback_only(bind), "{bind}");
        }
        for bind in [
            "0.0.0.0",
            "0.0.0.0:2202",
            "::",
            "[::]:3306",
            "10.1.2.3:1",
            "no-such-host.invalid",
        ] {
            assert!(!loopback_only(bind), "{bind}");
        }
    }

    #[test]
    fn an_open_listener_is_refused_unless_insecure() {
        let listeners = [
            Listener {
                what: "sql",
                bind: "0.0.0.0:3306".into(),
                guarded: true,
                how: SQL_HOW,
            },
            Listener {
                what: "native",
                bind: "0.0.0.0:2202".into(),
                guarded: false,
                how: NATIVE_HOW,
            },
            Listener {
                what: "hs",
                bind: "127.0.0.1:9999".into(),
                guarded: false,
                how: HS_WRITE_HOW,
            },
        ];
        let error = check(&listeners, false).unwrap_err().to_string();
        assert!(
            error.contains("native on 0.0.0.0:2202") && !error.contains("hs on"),
            "{error}"
        );
        assert!(check(&listeners, true).is_ok());
        assert!(check(&listeners[..1], false).is_ok());
    }
}
