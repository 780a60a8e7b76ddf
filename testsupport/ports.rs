//! Ports for tests' servers: free now, never handed out twice by one process, and outside the
//! kernel's ephemeral range, so a client's outgoing connection (another test's, or MariaDB's)
//! cannot take the port between the moment it is chosen and the moment the server binds it.
#![allow(dead_code)]

use std::net::TcpListener;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

/// The lowest port handed out: above the well-known and most registered services' ports.
const LOWEST: u16 = 12000;

/// The step between two ports tried in turn: a prime, so the walk visits every port of the
/// stretch before repeating, and large, so blocks handed out one after another lie far apart.
const STRIDE: u32 = 7919;

/// What this process has handed out, and where its walk over the stretch stands.
struct Given {
    ports: Vec<u16>,
    next: Option<u32>,
}

static GIVEN: Mutex<Given> = Mutex::new(Given {
    ports: Vec::new(),
    next: None,
});

/// The kernel's ephemeral range (`ip_local_port_range`); Linux's default when unreadable.
fn ephemeral() -> (u16, u16) {
    let text =
        std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range").unwrap_or_default();
    let mut parts = text
        .split_whitespace()
        .filter_map(|p| p.parse::<u16>().ok());
    match (parts.next(), parts.next()) {
        (Some(low), Some(high)) if low <= high => (low, high),
        _ => (32768, 60999),
    }
}

/// The widest stretch of ports outside the ephemeral range, first and last.
fn stretch() -> (u16, u16) {
    let (low, high) = ephemeral();
    if low.saturating_sub(LOWEST) >= u16::MAX - high {
        (LOWEST, low.saturating_sub(1))
    } else {
        (high.saturating_add(1), u16::MAX)
    }
}

/// Whether a server could bind `port` now, on loopback and on every interface.
fn bindable(port: u16) -> bool {
    // One at a time: a listener on loopback would make the wildcard bind fail.
    let loopback = TcpListener::bind(("127.0.0.1", port)).is_ok();
    loopback && TcpListener::bind(("0.0.0.0", port)).is_ok()
}

/// A port nothing listens on now, that this process has not handed out before, outside the
/// ephemeral range.
pub fn free_port() -> u16 {
    free_block(&[0])
}

/// A base port such that every `base + offset` is free now and none was handed out before by
/// this process; all of them are then counted as handed out. Each process starts its walk at
/// its own place (from its pid and the clock), so test processes running side by side rarely
/// try the same ports.
pub fn free_block(offsets: &[u16]) -> u16 {
    let mut given = GIVEN.lock().unwrap_or_else(|e| e.into_inner());
    let widest = offsets.iter().copied().max().unwrap_or(0);
    let (first, last) = stretch();
    let last = last.saturating_sub(widest);
    assert!(
        last > first,
        "no room for a block of ports {offsets:?} outside the ephemeral range"
    );
    let span = u32::from(last - first) + 1;
    let mut at = *given.next.get_or_insert_with(|| {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        (std::process::id().wrapping_mul(2_654_435_761) ^ nanos) % span
    });
    for _ in 0..span {
        let base = first + (at % span) as u16;
        at = (at + STRIDE) % span;
        let ports: Vec<u16> = offsets.iter().map(|o| base + o).collect();
        if ports
            .iter()
            .all(|p| !given.ports.contains(p) && bindable(*p))
        {
            given.ports.extend(ports);
            given.next = Some(at);
            return base;
        }
    }
    panic!("no free block of ports {offsets:?} in {first}..={last}");
}
