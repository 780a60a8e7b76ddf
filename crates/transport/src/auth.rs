//! The cluster key handshake: on a TCP connection to a data node that has a cluster key, both
//! sides prove they hold the key before any native frame (challenge-response with HMAC-SHA256
//! over fresh nonces; the key never crosses the wire). Drawn in docs/formats/native-protocol.md.
//! Shared-memory connections (same host, same user) skip it.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use ring::hmac;
use ring::rand::{SecureRandom, SystemRandom};

/// "CAIA": the first bytes of a handshake message.
pub const MAGIC: [u8; 4] = *b"CAIA";
pub const VERSION: u8 = 1;
pub const NONCE_BYTES: usize = 32;
/// The shortest and longest key file accepted.
pub const KEY_BYTES_MIN: usize = 16;
pub const KEY_BYTES_MAX: usize = 4096;
/// How long a peer has to finish the handshake.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(3);

/// The secret every node and API node of a cluster holds. Its bytes are never printed.
pub struct ClusterKey(hmac::Key);

impl std::fmt::Debug for ClusterKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ClusterKey(hidden)")
    }
}

impl ClusterKey {
    pub fn new(bytes: &[u8]) -> io::Result<ClusterKey> {
        if !(KEY_BYTES_MIN..=KEY_BYTES_MAX).contains(&bytes.len()) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "a cluster key has {KEY_BYTES_MIN} to {KEY_BYTES_MAX} bytes, not {}",
                    bytes.len()
                ),
            ));
        }
        Ok(ClusterKey(hmac::Key::new(hmac::HMAC_SHA256, bytes)))
    }

    /// Reads a key file (e.g. made with `head -c 32 /dev/urandom > cluster.key`).
    pub fn load(path: &std::path::Path) -> io::Result<ClusterKey> {
        let len = std::fs::metadata(path)?.len();
        if len > KEY_BYTES_MAX as u64 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is too long for a key", path.display()),
            ));
        }
        ClusterKey::new(&std::fs::read(path)?)
    }

    fn proof(&self, role: &[u8], first: &[u8], second: &[u8]) -> hmac::Tag {
        let mut ctx = hmac::Context::with_key(&self.0);
        ctx.update(role);
        ctx.update(first);
        ctx.update(second);
        ctx.sign()
    }

    fn verify(&self, role: &[u8], first: &[u8], second: &[u8], tag: &[u8]) -> bool {
        let mut message = Vec::with_capacity(role.len() + first.len() + second.len());
        message.extend_from_slice(role);
        message.extend_from_slice(first);
        message.extend_from_slice(second);
        hmac::verify(&self.0, &message, tag).is_ok()
    }
}

/// What a cluster link proves before its first frame: the cluster key (`--cluster-key-file`), a
/// certificate the cluster's CA signed (`--cluster-tls`, and the link is then encrypted), both,
/// or nothing.
#[derive(Clone, Default, Debug)]
pub struct Guard {
    pub key: Option<std::sync::Arc<ClusterKey>>,
    pub tls: Option<std::sync::Arc<crate::tls::ClusterTls>>,
}

impl Guard {
    /// Whether a stranger is kept out.
    pub fn is_set(&self) -> bool {
        self.key.is_some() || self.tls.is_some()
    }

    /// The dialing side: proves the key, then runs the TLS handshake.
    pub fn client(&self, mut stream: TcpStream) -> io::Result<crate::Stream> {
        if let Some(key) = &self.key {
            client_handshake(&mut stream, key)?;
        }
        match &self.tls {
            Some(tls) => Ok(crate::Stream::Tls(tls.connect(stream)?)),
            None => Ok(crate::Stream::Tcp(stream)),
        }
    }

    /// The accepting side, as `client`.
    pub fn server(&self, mut stream: TcpStream) -> io::Result<crate::Stream> {
        if let Some(key) = &self.key {
            server_handshake(&mut stream, key)?;
        }
        match &self.tls {
            Some(tls) => Ok(crate::Stream::Tls(tls.accept(stream)?)),
            None => Ok(crate::Stream::Tcp(stream)),
        }
    }
}

/// Failed attempts at one thing from one client address before the address is turned away
/// from it.
pub const FAILURES_BEFORE_BLOCK: u32 = 5;
/// How long an address is turned away once it failed that often (doubling with each further
/// failure, up to `BLOCK_MAX`).
pub const BLOCK_FIRST: Duration = Duration::from_secs(1);
pub const BLOCK_MAX: Duration = Duration::from_secs(300);
/// The most (address, scope) pairs remembered; past it one that is not blocked is forgotten
/// first (the oldest), else the one whose block ends soonest.
pub const ADDRESSES_MAX: usize = 4096;

/// A failure count, when the last attempt began, and until when the pair is turned away.
type Failures = (u32, Instant, Instant);

/// Failed logins per client address and scope (what was tried: an SQL account, a HandlerSocket
/// port's secret, the cluster key), so a guesser is slowed down, a stranger's failures never lock
/// out anyone else, and a success at one scope does not forgive guesses at another. Every
/// attempt counts as a failure from the moment it begins (`begin`) until it passes, so attempts
/// made in parallel cannot each slip through before the others are counted.
#[derive(Default)]
pub struct FailedLogins {
    by_key: std::collections::HashMap<(std::net::IpAddr, String), Failures>,
}

impl FailedLogins {
    /// Whether `address` may try `scope` now (without counting an attempt).
    pub fn allowed(&self, address: std::net::IpAddr, scope: &str, now: Instant) -> bool {
        self.by_key
            .get(&(address, scope.to_string()))
            .is_none_or(|(_, _, until)| now >= *until)
    }

    /// An attempt begins: false if the address is turned away from `scope`; otherwise the
    /// attempt is counted as a failure until `passed` says otherwise (past
    /// `FAILURES_BEFORE_BLOCK` the address waits, longer each time).
    pub fn begin(&mut self, address: std::net::IpAddr, scope: &str, now: Instant) -> bool {
        if !self.allowed(address, scope, now) {
            return false;
        }
        let key = (address, scope.to_string());
        if self.by_key.len() >= ADDRESSES_MAX && !self.by_key.contains_key(&key) {
            self.forget_one(now);
        }
        let entry = self.by_key.entry(key).or_insert((0, now, now));
        entry.0 += 1;
        entry.1 = now;
        if entry.0 >= FAILURES_BEFORE_BLOCK {
            let doublings = (entry.0 - FAILURES_BEFORE_BLOCK).min(16);
            entry.2 = now + (BLOCK_FIRST * 2u32.pow(doublings)).min(BLOCK_MAX);
        }
        true
    }

    /// The attempt passed: the address's failures at `scope` are forgotten.
    pub fn passed(&mut self, address: std::net::IpAddr, scope: &str) {
        self.by_key.remove(&(address, scope.to_string()));
    }

    /// Makes room: a pair that is not turned away now (the oldest), else the one whose block
    /// ends soonest, so many addresses cannot flush a blocked one out of the table.
    fn forget_one(&mut self, now: Instant) {
        let victim = self
            .by_key
            .iter()
            .filter(|(_, (_, _, until))| *until <= now)
            .min_by_key(|(_, (_, last, _))| *last)
            .or_else(|| self.by_key.iter().min_by_key(|(_, (_, _, until))| *until))
            .map(|(k, _)| k.clone());
        if let Some(k) = victim {
            self.by_key.remove(&k);
        }
    }
}

static CLIENT_KEY: OnceLock<ClusterKey> = OnceLock::new();

/// Sets the key this process's clients prove when they connect to data nodes over TCP (once).
pub fn set_client_key(key: ClusterKey) {
    let _ = CLIENT_KEY.set(key);
}

pub fn client_key() -> Option<&'static ClusterKey> {
    CLIENT_KEY.get()
}

fn nonce() -> io::Result<[u8; NONCE_BYTES]> {
    let mut n = [0u8; NONCE_BYTES];
    SystemRandom::new()
        .fill(&mut n)
        .map_err(|_| io::Error::other("no randomness for a nonce"))?;
    Ok(n)
}

fn refused(why: &str) -> io::Error {
    io::Error::new(io::ErrorKind::PermissionDenied, why.to_string())
}

const CLIENT_ROLE: &[u8] = b"cairn cluster key, client";
const SERVER_ROLE: &[u8] = b"cairn cluster key, server";

/// A socket whose reads and writes all end by one deadline: a peer that trickles its bytes, or
/// takes none, cannot hold a handshake (`what`) open past it in all.
pub(crate) struct ByDeadline<'a> {
    pub sock: &'a TcpStream,
    pub deadline: Instant,
    pub what: &'static str,
}

impl ByDeadline<'_> {
    fn left(&self) -> io::Result<Duration> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("{} took too long", self.what),
            ));
        }
        Ok(left)
    }
}

impl Read for ByDeadline<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.sock.set_read_timeout(Some(self.left()?))?;
        (&*self.sock).read(buf)
    }
}

impl Write for ByDeadline<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.sock.set_write_timeout(Some(self.left()?))?;
        (&*self.sock).write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The data node's side: challenge, check the client's proof, prove the key back.
pub fn server_handshake(stream: &mut TcpStream, key: &ClusterKey) -> io::Result<()> {
    within_deadline(stream, key, |s, k| server_exchange(s, k))
}

/// Runs one side of the handshake with every read and write ending by one deadline, then gives the
/// stream back without timeouts.
fn within_deadline(
    stream: &mut TcpStream,
    key: &ClusterKey,
    exchange: impl FnOnce(&mut ByDeadline<'_>, &ClusterKey) -> io::Result<()>,
) -> io::Result<()> {
    let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
    let mut io = ByDeadline {
        sock: stream,
        deadline,
        what: "the cluster key handshake",
    };
    exchange(&mut io, key)?;
    stream.set_write_timeout(None)?;
    stream.set_read_timeout(None)
}

fn server_exchange(stream: &mut (impl Read + Write), key: &ClusterKey) -> io::Result<()> {
    let server_nonce = nonce()?;
    let mut challenge = Vec::with_capacity(5 + NONCE_BYTES);
    challenge.extend_from_slice(&MAGIC);
    challenge.push(VERSION);
    challenge.extend_from_slice(&server_nonce);
    stream.write_all(&challenge)?;
    let mut answer = [0u8; 4 + NONCE_BYTES + 32];
    stream.read_exact(&mut answer)?;
    if answer[..4] != MAGIC {
        return Err(refused(
            "the client did not answer the cluster key challenge",
        ));
    }
    let client_nonce = &answer[4..4 + NONCE_BYTES];
    if !key.verify(
        CLIENT_ROLE,
        &server_nonce,
        client_nonce,
        &answer[4 + NONCE_BYTES..],
    ) {
        let _ = stream.write_all(&[0u8; 33]);
        return Err(refused("the client's cluster key is wrong"));
    }
    let mut done = vec![1u8];
    done.extend_from_slice(key.proof(SERVER_ROLE, client_nonce, &server_nonce).as_ref());
    stream.write_all(&done)
}

/// The client's side: answer the challenge, then check the data node proved the key too.
pub fn client_handshake(stream: &mut TcpStream, key: &ClusterKey) -> io::Result<()> {
    within_deadline(stream, key, |s, k| client_exchange(s, k))
}

fn client_exchange(stream: &mut (impl Read + Write), key: &ClusterKey) -> io::Result<()> {
    let mut challenge = [0u8; 5 + NONCE_BYTES];
    stream.read_exact(&mut challenge).map_err(|e| {
        refused(&format!(
            "the data node sent no cluster key challenge (does it have a key?): {e}"
        ))
    })?;
    if challenge[..4] != MAGIC || challenge[4] != VERSION {
        return Err(refused(
            "the data node does not speak the cluster key handshake",
        ));
    }
    let server_nonce = &challenge[5..];
    let client_nonce = nonce()?;
    let mut answer = Vec::with_capacity(4 + NONCE_BYTES + 32);
    answer.extend_from_slice(&MAGIC);
    answer.extend_from_slice(&client_nonce);
    answer.extend_from_slice(key.proof(CLIENT_ROLE, server_nonce, &client_nonce).as_ref());
    stream.write_all(&answer)?;
    let mut done = [0u8; 33];
    stream.read_exact(&mut done)?;
    if done[0] != 1 {
        return Err(refused("the data node refused this cluster key"));
    }
    if !key.verify(SERVER_ROLE, &client_nonce, server_nonce, &done[1..]) {
        return Err(refused("the data node did not prove the cluster key"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    fn pair(
        server_key: &'static [u8],
        client_key: &'static [u8],
    ) -> (io::Result<()>, io::Result<()>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let server = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            server_handshake(&mut s, &ClusterKey::new(server_key).unwrap())
        });
        let mut c = TcpStream::connect(address).unwrap();
        let client = client_handshake(&mut c, &ClusterKey::new(client_key).unwrap());
        (server.join().unwrap(), client)
    }

    #[test]
    fn a_trickling_client_is_cut_off_at_the_handshake_deadline() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let client = std::thread::spawn(move || {
            let mut c = TcpStream::connect(address).unwrap();
            let mut challenge = [0u8; 37];
            c.read_exact(&mut challenge).unwrap();
            // One byte a second: each read is quick, the whole is not.
            for _ in 0..6 {
                if c.write_all(b"C").is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_secs(1));
            }
        });
        let (mut s, _) = listener.accept().unwrap();
        let started = Instant::now();
        let result = server_handshake(&mut s, &ClusterKey::new(b"0123456789abcdef").unwrap());
        assert!(result.is_err());
        assert!(
            started.elapsed() < HANDSHAKE_TIMEOUT + Duration::from_millis(900),
            "{:?}",
            started.elapsed()
        );
        drop(s);
        client.join().unwrap();
    }

    #[test]
    fn the_same_key_passes_and_another_fails_on_both_sides() {
        let (s, c) = pair(b"0123456789abcdef", b"0123456789abcdef");
        assert!(s.is_ok() && c.is_ok(), "{s:?} {c:?}");
        let (s, c) = pair(b"0123456789abcdef", b"0123456789abcdeX");
        assert!(s.is_err() && c.is_err(), "{s:?} {c:?}");
    }

    /// A peer that reads from `input` and writes to nowhere.
    struct Scripted(io::Cursor<Vec<u8>>);
    impl Read for Scripted {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.0.read(buf)
        }
    }
    impl Write for Scripted {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// Random and damaged answers never pass either side's check, and never panic.
    #[test]
    fn random_answers_never_pass() {
        let seed = 0xa11ce_u64;
        println!("seed {seed}");
        let mut state = seed;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let key = ClusterKey::new(b"0123456789abcdef").unwrap();
        for _ in 0..5000 {
            let len = (next() % 120) as usize;
            let mut bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            if next() % 2 == 0 && bytes.len() >= 5 {
                bytes[..4].copy_from_slice(&MAGIC);
                bytes[4] = VERSION;
            }
            assert!(server_exchange(&mut Scripted(io::Cursor::new(bytes.clone())), &key).is_err());
            assert!(client_exchange(&mut Scripted(io::Cursor::new(bytes)), &key).is_err());
        }
    }

    #[test]
    fn repeated_failures_turn_one_address_away_for_longer_and_longer() {
        let mut f = FailedLogins::default();
        let (guesser, other): (std::net::IpAddr, std::net::IpAddr) =
            ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let t = Instant::now();
        for _ in 0..FAILURES_BEFORE_BLOCK {
            assert!(f.begin(guesser, "root", t));
        }
        assert!(!f.begin(guesser, "root", t) && f.allowed(other, "root", t));
        assert!(f.allowed(guesser, "root", t + BLOCK_FIRST));
        assert!(f.begin(guesser, "root", t + BLOCK_FIRST));
        assert!(
            !f.allowed(guesser, "root", t + BLOCK_FIRST * 2)
                && f.allowed(guesser, "root", t + BLOCK_FIRST * 3)
        );
        f.passed(guesser, "root");
        assert!(f.allowed(guesser, "root", t));
    }

    #[test]
    fn a_success_forgives_only_its_own_scope_and_parallel_attempts_are_counted_at_once() {
        let mut f = FailedLogins::default();
        let guesser: std::net::IpAddr = "10.0.0.1".parse().unwrap();
        let t = Instant::now();
        // Attempts begun together, none finished yet: the sixth is already turned away.
        for _ in 0..FAILURES_BEFORE_BLOCK {
            assert!(f.begin(guesser, "root", t));
        }
        assert!(!f.begin(guesser, "root", t));
        // A login to another account from the same address passes: root's count stays.
        assert!(f.begin(guesser, "bob", t));
        f.passed(guesser, "bob");
        assert!(!f.allowed(guesser, "root", t));
    }

    #[test]
    fn a_full_table_forgets_an_unblocked_pair_before_a_blocked_one() {
        let mut f = FailedLogins::default();
        let t = Instant::now();
        let blocked: std::net::IpAddr = "10.0.0.1".parse().unwrap();
        for _ in 0..FAILURES_BEFORE_BLOCK {
            f.begin(blocked, "key", t);
        }
        // Thousands of other addresses, one failure each: the blocked one stays blocked.
        for i in 0..(ADDRESSES_MAX as u32 * 2) {
            let a = std::net::IpAddr::from(std::net::Ipv6Addr::from(u128::from(i) + 1));
            f.begin(a, "key", t + Duration::from_millis(1));
        }
        assert!(!f.allowed(blocked, "key", t + Duration::from_millis(2)));
        assert!(f.by_key.len() <= ADDRESSES_MAX);
    }

    #[test]
    fn short_keys_are_refused_and_keys_never_print() {
        assert!(ClusterKey::new(b"short").is_err());
        let key = ClusterKey::new(b"0123456789abcdef").unwrap();
        assert!(!format!("{key:?}").contains("0123"));
    }
}
