//! Connection phase: the server's initial handshake (protocol v10), the client's handshake
//! response, the auth-switch request, and mysql_native_password's scramble check.

use sha1::{Digest, Sha1};

use crate::codec::{put_nul, Decoder};
use crate::ProtoError;

/// Capability flags (the ones Cairn uses or must recognize).
pub mod cap {
    pub const LONG_PASSWORD: u32 = 1;
    pub const FOUND_ROWS: u32 = 1 << 1;
    pub const LONG_FLAG: u32 = 1 << 2;
    pub const CONNECT_WITH_DB: u32 = 1 << 3;
    pub const NO_SCHEMA: u32 = 1 << 4;
    pub const LOCAL_FILES: u32 = 1 << 7;
    pub const IGNORE_SPACE: u32 = 1 << 8;
    pub const PROTOCOL_41: u32 = 1 << 9;
    pub const INTERACTIVE: u32 = 1 << 10;
    pub const SSL: u32 = 1 << 11;
    pub const TRANSACTIONS: u32 = 1 << 13;
    pub const SECURE_CONNECTION: u32 = 1 << 15;
    pub const MULTI_STATEMENTS: u32 = 1 << 16;
    pub const MULTI_RESULTS: u32 = 1 << 17;
    pub const PS_MULTI_RESULTS: u32 = 1 << 18;
    pub const PLUGIN_AUTH: u32 = 1 << 19;
    pub const CONNECT_ATTRS: u32 = 1 << 20;
    pub const PLUGIN_AUTH_LENENC_CLIENT_DATA: u32 = 1 << 21;
    pub const SESSION_TRACK: u32 = 1 << 23;
    pub const DEPRECATE_EOF: u32 = 1 << 24;

    /// What Cairn's server offers.
    pub const SERVER: u32 = LONG_PASSWORD
        | FOUND_ROWS
        | LONG_FLAG
        | CONNECT_WITH_DB
        | NO_SCHEMA
        | IGNORE_SPACE
        | LOCAL_FILES
        | PROTOCOL_41
        | INTERACTIVE
        | TRANSACTIONS
        | SECURE_CONNECTION
        | MULTI_STATEMENTS
        | MULTI_RESULTS
        | PS_MULTI_RESULTS
        | PLUGIN_AUTH
        | CONNECT_ATTRS
        | PLUGIN_AUTH_LENENC_CLIENT_DATA
        | DEPRECATE_EOF;
}

/// Server status flags.
pub mod status {
    pub const IN_TRANS: u16 = 1;
    pub const AUTOCOMMIT: u16 = 2;
    pub const MORE_RESULTS_EXISTS: u16 = 8;
    pub const NO_INDEX_USED: u16 = 32;
    /// The session's sql_mode holds NO_BACKSLASH_ESCAPES: clients escape quotes by doubling.
    pub const NO_BACKSLASH_ESCAPES: u16 = 0x200;
}

pub const NATIVE_PASSWORD: &str = "mysql_native_password";
/// utf8mb4_general_ci, the connection collation the handshake announces.
pub const DEFAULT_COLLATION_ID: u8 = 45;
/// Length of the random scramble (auth-plugin data), without its trailing NUL.
pub const SCRAMBLE_BYTES: usize = 20;

/// The server's first packet.
///
/// `tls` adds CLIENT_SSL to the capabilities offered; `plugin` is the authentication plugin
/// whose answer the client should send first.
pub fn initial_handshake(
    server_version: &str,
    connection_id: u32,
    scramble: &[u8; SCRAMBLE_BYTES],
    status_flags: u16,
    tls: bool,
    plugin: &str,
) -> Vec<u8> {
    let offered = if tls {
        cap::SERVER | cap::SSL
    } else {
        cap::SERVER
    };
    let mut p = Vec::with_capacity(128);
    p.push(10);
    put_nul(&mut p, server_version.as_bytes());
    p.extend_from_slice(&connection_id.to_le_bytes());
    p.extend_from_slice(&scramble[..8]);
    p.push(0);
    p.extend_from_slice(&(offered as u16).to_le_bytes());
    p.push(DEFAULT_COLLATION_ID);
    p.extend_from_slice(&status_flags.to_le_bytes());
    p.extend_from_slice(&((offered >> 16) as u16).to_le_bytes());
    p.push(SCRAMBLE_BYTES as u8 + 1);
    p.extend_from_slice(&[0u8; 10]);
    put_nul(&mut p, &scramble[8..]);
    put_nul(&mut p, plugin.as_bytes());
    p
}

/// What the client answered to the handshake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandshakeResponse {
    /// Client capabilities (already intersected with the server's).
    pub capabilities: u32,
    pub max_packet: u32,
    pub collation: u8,
    pub user: String,
    pub auth_response: Vec<u8>,
    pub database: Option<String>,
    pub auth_plugin: Option<String>,
    /// Connection attributes (name, value), as sent.
    pub attributes: Vec<(String, String)>,
}

/// Longest user name accepted (MySQL's is 32 characters; bytes here, for utf8mb4 names).
pub const USER_BYTES_MAX: usize = 128;
/// Longest database name accepted in the handshake.
pub const DATABASE_BYTES_MAX: usize = 256;
/// Most connection attributes kept.
pub const ATTRIBUTES_MAX: usize = 64;

fn text(b: &[u8], what: &str, max: usize) -> Result<String, ProtoError> {
    if b.len() > max {
        return Err(ProtoError::Malformed(format!(
            "{what} longer than {max} bytes"
        )));
    }
    String::from_utf8(b.to_vec()).map_err(|_| ProtoError::Malformed(format!("{what} is not UTF-8")))
}

impl HandshakeResponse {
    /// Parses a HandshakeResponse41. An SSL request (the short packet a client sends before TLS)
    /// is reported as `ProtoError::SslRequested`.
    pub fn parse(payload: &[u8]) -> Result<HandshakeResponse, ProtoError> {
        let mut d = Decoder::new(payload, "handshake response");
        let client = d.u32()?;
        if client & cap::PROTOCOL_41 == 0 {
            return Err(ProtoError::Unsupported(
                "clients older than protocol 4.1".into(),
            ));
        }
        let capabilities = client & cap::SERVER | (client & cap::SSL);
        let max_packet = d.u32()?;
        let collation = d.u8()?;
        d.bytes(23)?;
        if d.is_empty() && client & cap::SSL != 0 {
            return Err(ProtoError::SslRequested);
        }
        let user = text(d.nul()?, "user name", USER_BYTES_MAX)?;
        let auth_response = if client & cap::PLUGIN_AUTH_LENENC_CLIENT_DATA != 0 {
            d.lenenc_bytes()?.to_vec()
        } else if client & cap::SECURE_CONNECTION != 0 {
            let n = d.u8()? as usize;
            d.bytes(n)?.to_vec()
        } else {
            d.nul()?.to_vec()
        };
        let database = if client & cap::CONNECT_WITH_DB != 0 && !d.is_empty() {
            Some(text(d.nul()?, "database name", DATABASE_BYTES_MAX)?).filter(|s| !s.is_empty())
        } else {
            None
        };
        let auth_plugin = if client & cap::PLUGIN_AUTH != 0 && !d.is_empty() {
            Some(text(d.nul()?, "auth plugin name", 64)?)
        } else {
            None
        };
        let mut attributes = Vec::new();
        if client & cap::CONNECT_ATTRS != 0 && !d.is_empty() {
            let block = d.lenenc_bytes()?;
            let mut a = Decoder::new(block, "connection attributes");
            while !a.is_empty() && attributes.len() < ATTRIBUTES_MAX {
                let k = String::from_utf8_lossy(a.lenenc_bytes()?).into_owned();
                let v = String::from_utf8_lossy(a.lenenc_bytes()?).into_owned();
                attributes.push((k, v));
            }
        }
        Ok(HandshakeResponse {
            capabilities,
            max_packet,
            collation,
            user,
            auth_response,
            database,
            auth_plugin,
            attributes,
        })
    }
}

/// The request to answer the scramble with another plugin.
pub fn auth_switch_request(plugin: &str, scramble: &[u8; SCRAMBLE_BYTES]) -> Vec<u8> {
    let mut p = vec![0xFE];
    put_nul(&mut p, plugin.as_bytes());
    put_nul(&mut p, scramble);
    p
}

/// What mysql_native_password stores for a password: SHA1(SHA1(password)); empty for none.
pub fn native_password_hash(password: &[u8]) -> Vec<u8> {
    if password.is_empty() {
        return Vec::new();
    }
    Sha1::digest(Sha1::digest(password)).to_vec()
}

/// The client's answer for `password` to `scramble` (what a client computes; for tests).
pub fn native_password_answer(password: &[u8], scramble: &[u8]) -> Vec<u8> {
    if password.is_empty() {
        return Vec::new();
    }
    let stage1 = Sha1::digest(password);
    let stage2 = Sha1::digest(stage1);
    let mut h = Sha1::new();
    h.update(scramble);
    h.update(stage2);
    let mask = h.finalize();
    stage1.iter().zip(mask.iter()).map(|(a, b)| a ^ b).collect()
}

/// Checks a mysql_native_password answer against the stored hash (`native_password_hash`):
/// answer XOR SHA1(scramble + hash) must be a value whose SHA1 is the hash.
pub fn native_password_matches(stored: &[u8], scramble: &[u8], answer: &[u8]) -> bool {
    if stored.is_empty() {
        return answer.is_empty();
    }
    if answer.len() != 20 || stored.len() != 20 {
        return false;
    }
    let mut h = Sha1::new();
    h.update(scramble);
    h.update(stored);
    let mask = h.finalize();
    let stage1: Vec<u8> = answer.iter().zip(mask.iter()).map(|(a, b)| a ^ b).collect();
    let check = Sha1::digest(&stage1);
    // Constant-time comparison.
    check
        .iter()
        .zip(stored)
        .fold(0u8, |acc, (a, b)| acc | (a ^ b))
        == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::put_lenenc_bytes;

    #[test]
    fn native_password_checks() {
        let scramble = [7u8; SCRAMBLE_BYTES];
        let stored = native_password_hash(b"secret");
        assert!(native_password_matches(
            &stored,
            &scramble,
            &native_password_answer(b"secret", &scramble)
        ));
        assert!(!native_password_matches(
            &stored,
            &scramble,
            &native_password_answer(b"Secret", &scramble)
        ));
        assert!(!native_password_matches(&stored, &scramble, b""));
        assert!(native_password_matches(&[], &scramble, b""));
        assert!(!native_password_matches(&[], &scramble, b"x"));
    }

    #[test]
    fn parses_a_handshake_response() {
        let mut p = Vec::new();
        let caps = cap::PROTOCOL_41
            | cap::SECURE_CONNECTION
            | cap::PLUGIN_AUTH
            | cap::CONNECT_WITH_DB
            | cap::CONNECT_ATTRS
            | cap::PLUGIN_AUTH_LENENC_CLIENT_DATA;
        p.extend_from_slice(&caps.to_le_bytes());
        p.extend_from_slice(&(1u32 << 24).to_le_bytes());
        p.push(45);
        p.extend_from_slice(&[0; 23]);
        put_nul(&mut p, b"root");
        put_lenenc_bytes(&mut p, &[1, 2, 3]);
        put_nul(&mut p, b"test");
        put_nul(&mut p, NATIVE_PASSWORD.as_bytes());
        let mut attrs = Vec::new();
        put_lenenc_bytes(&mut attrs, b"_client_name");
        put_lenenc_bytes(&mut attrs, b"libmariadb");
        put_lenenc_bytes(&mut p, &attrs);
        let r = HandshakeResponse::parse(&p).unwrap();
        assert_eq!(r.user, "root");
        assert_eq!(r.auth_response, vec![1, 2, 3]);
        assert_eq!(r.database.as_deref(), Some("test"));
        assert_eq!(r.auth_plugin.as_deref(), Some(NATIVE_PASSWORD));
        assert_eq!(
            r.attributes,
            vec![("_client_name".into(), "libmariadb".into())]
        );
        // Every truncation is an error, never a panic.
        for n in 0..p.len() {
            let _ = HandshakeResponse::parse(&p[..n]);
        }
    }
}
