//! Miscellaneous functions, with MariaDB 10.11's values and result types: UUID (time-based,
//! version 1), UUID_SHORT, the IPv4 address conversions INET_ATON and INET_NTOA, SLEEP, and
//! the named locks (`foundation/named_locks.rs`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use base::text::value_text;
use base::Value;
use myproto::response::types;

use super::int_arg;
use crate::expr::{Env, Expr};
use crate::foundation::error::SqlError;

type Result<T> = std::result::Result<T, SqlError>;

/// UUID's time: 100-nanosecond intervals from 1582-10-15 (the Gregorian reform) to the Unix
/// epoch.
const GREGORIAN_TO_UNIX: u64 = 0x01B2_1DD2_1381_4000;
/// The server id UUID_SHORT puts in its top byte (`@@server_id`).
const SERVER_ID: u64 = 1;

/// Miscellaneous functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MiscFn {
    Uuid,
    UuidShort,
    InetAton,
    InetNtoa,
    Sleep,
    GetLock,
    ReleaseLock,
    IsFreeLock,
    IsUsedLock,
    ReleaseAllLocks,
}

impl MiscFn {
    /// The function a name calls, with its least and most arguments.
    pub(crate) fn from_name(name: &str) -> Option<(MiscFn, usize, usize)> {
        use MiscFn::*;
        Some(match name {
            "uuid" => (Uuid, 0, 0),
            "uuid_short" => (UuidShort, 0, 0),
            "inet_aton" => (InetAton, 1, 1),
            "inet_ntoa" => (InetNtoa, 1, 1),
            "sleep" => (Sleep, 1, 1),
            "get_lock" => (GetLock, 2, 2),
            "release_lock" => (ReleaseLock, 1, 1),
            "is_free_lock" => (IsFreeLock, 1, 1),
            "is_used_lock" => (IsUsedLock, 1, 1),
            "release_all_locks" => (ReleaseAllLocks, 0, 0),
            _ => return None,
        })
    }

    /// Whether each call gives another value (or waits, or changes a lock).
    pub(crate) fn is_volatile(self) -> bool {
        !matches!(self, MiscFn::InetAton | MiscFn::InetNtoa)
    }

    /// Whether a call may wait (so runs on the connection's own thread).
    pub(crate) fn waits(self) -> bool {
        matches!(self, MiscFn::Sleep | MiscFn::GetLock)
    }

    /// Whether the result is an unsigned integer.
    pub(crate) fn unsigned_result(self) -> bool {
        matches!(self, MiscFn::UuidShort | MiscFn::InetAton)
    }
}

/// A version 1 UUID: the time (later at each call, however fast they come), a clock sequence
/// and a node drawn at random once per process (the node with its multicast bit set, as RFC
/// 4122 asks of a node that is no network address).
fn uuid() -> String {
    static LAST: AtomicU64 = AtomicU64::new(0);
    static ORIGIN: OnceLock<(u16, u64)> = OnceLock::new();
    let (clock, node) = *ORIGIN.get_or_init(|| {
        let r: [u8; 8] = crate::foundation::random::random_or_clock();
        let clock = (u16::from_le_bytes([r[0], r[1]]) & 0x3FFF) | 0x8000;
        let mut node = [0u8; 8];
        node[2..].copy_from_slice(&r[2..]);
        node[2] |= 0x01;
        (clock, u64::from_be_bytes(node))
    });
    let now = crate::expr::temporal::wall_clock_micros().max(0) as u64 * 10 + GREGORIAN_TO_UNIX;
    let mut last = LAST.load(Ordering::Relaxed);
    let t = loop {
        let t = now.max(last + 1);
        match LAST.compare_exchange_weak(last, t, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => break t,
            Err(seen) => last = seen,
        }
    };
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        t & 0xFFFF_FFFF,
        (t >> 32) & 0xFFFF,
        ((t >> 48) & 0x0FFF) | 0x1000,
        clock,
        node
    )
}

/// UUID_SHORT: the server id in the top byte, the process's start in seconds from bit 24, and
/// a count of the calls below.
fn uuid_short() -> u64 {
    static NEXT: OnceLock<AtomicU64> = OnceLock::new();
    NEXT.get_or_init(|| {
        let start = (crate::expr::temporal::wall_clock_micros().max(0) / 1_000_000) as u64;
        AtomicU64::new(((SERVER_ID & 0xFF) << 56) + (start << 24))
    })
    .fetch_add(1, Ordering::Relaxed)
        + 1
}

/// INET_ATON: dotted decimal bytes as a number, with MariaDB's short forms (`127.1` is
/// 127.0.0.1); None for a byte over 255, another character, or an empty or '.'-ended text.
fn inet_aton(text: &[u8]) -> Option<u64> {
    let (mut result, mut byte, mut dots) = (0u64, 0u64, 0);
    if text.is_empty() || text.ends_with(b".") {
        return None;
    }
    for &c in text {
        match c {
            b'0'..=b'9' => {
                byte = byte * 10 + u64::from(c - b'0');
                if byte > 255 {
                    return None;
                }
            }
            b'.' => {
                dots += 1;
                result = result.wrapping_shl(8).wrapping_add(byte);
                byte = 0;
            }
            _ => return None,
        }
    }
    let shift = match dots {
        1 => 16,
        2 => 8,
        _ => 0,
    };
    Some(
        result
            .wrapping_shl(shift)
            .wrapping_shl(8)
            .wrapping_add(byte),
    )
}

pub(crate) fn call(f: MiscFn, args: &[Expr], env: &Env) -> Result<Value> {
    use crate::foundation::named_locks;
    let name = |i: usize| -> Result<Option<String>> {
        Ok(value_text(&args[i].eval(env)?).map(|t| String::from_utf8_lossy(&t).into_owned()))
    };
    let int = |b: bool| Value::Int(i64::from(b));
    Ok(match f {
        MiscFn::Sleep => {
            let v = args[0].eval(env)?;
            let seconds = if v.is_null() {
                0.0
            } else {
                crate::expr::as_double(&v)
            };
            if seconds > 0.0 {
                env.ctx.sleep(seconds)?;
            }
            Value::Int(0)
        }
        MiscFn::GetLock | MiscFn::ReleaseLock | MiscFn::IsFreeLock | MiscFn::IsUsedLock => {
            let (Some(owner), Some(lock)) = (env.ctx.lock_owner(), name(0)?) else {
                return Ok(Value::Null);
            };
            match f {
                MiscFn::GetLock => {
                    let t = args[1].eval(env)?;
                    let timeout = if t.is_null() {
                        0.0
                    } else {
                        crate::expr::as_double(&t)
                    };
                    int(named_locks::get(&lock, owner, timeout, &|| {
                        env.ctx.interrupted()
                    })?)
                }
                MiscFn::ReleaseLock => named_locks::release(&lock, owner).map_or(Value::Null, int),
                MiscFn::IsFreeLock => int(named_locks::owner(&lock).is_none()),
                _ => named_locks::owner(&lock).map_or(Value::Null, |o| Value::UInt(u64::from(o))),
            }
        }
        MiscFn::ReleaseAllLocks => match env.ctx.lock_owner() {
            Some(owner) => Value::UInt(named_locks::release_all(owner)),
            None => Value::Null,
        },
        MiscFn::Uuid => Value::Bytes(uuid().into_bytes()),
        MiscFn::UuidShort => Value::UInt(uuid_short()),
        MiscFn::InetAton => match args[0].eval(env)? {
            Value::Null => Value::Null,
            v => inet_aton(&value_text(&v).unwrap_or_default()).map_or(Value::Null, Value::UInt),
        },
        MiscFn::InetNtoa => match args[0].eval(env)? {
            Value::Null => Value::Null,
            v => match u32::try_from(int_arg(&v)) {
                Ok(n) => Value::Bytes(std::net::Ipv4Addr::from(n).to_string().into_bytes()),
                Err(_) => Value::Null,
            },
        },
    })
}

/// The result type MariaDB reports: (type code, display length, decimals).
pub(crate) fn result_type(f: MiscFn) -> (u8, u32, u8) {
    match f {
        MiscFn::Uuid => (types::VAR_STRING, 36 * 3, 0),
        MiscFn::UuidShort | MiscFn::InetAton => (types::LONGLONG, 21, 0),
        MiscFn::InetNtoa => (types::VAR_STRING, 31 * 4, 0),
        MiscFn::Sleep | MiscFn::GetLock | MiscFn::ReleaseLock | MiscFn::IsFreeLock => {
            (types::LONG, 1, 0)
        }
        MiscFn::IsUsedLock => (types::LONGLONG, 10, 0),
        MiscFn::ReleaseAllLocks => (types::LONG, 11, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inet_aton_reads_short_forms_and_refuses_bad_bytes() {
        assert_eq!(inet_aton(b"1.2.3.4"), Some(16_909_060));
        assert_eq!(inet_aton(b"127.1"), Some(2_130_706_433));
        assert_eq!(inet_aton(b"1.2.3"), Some(16_908_291));
        assert_eq!(inet_aton(b"1..2"), Some(16_777_218));
        assert_eq!(inet_aton(b"1.2.3.4.5"), Some(4_328_719_365));
        assert_eq!(inet_aton(b"1.2.3.256"), None);
        assert_eq!(inet_aton(b" 1.2.3.4"), None);
        assert_eq!(inet_aton(b""), None);
        assert_eq!(inet_aton(b"1.2."), None);
    }

    #[test]
    fn uuids_are_version_1_and_increase() {
        let (a, b) = (uuid(), uuid());
        assert_ne!(a, b);
        for u in [&a, &b] {
            assert_eq!(u.len(), 36);
            assert_eq!(&u[14..15], "1");
            assert!(matches!(&u[19..20], "8" | "9" | "a" | "b"));
        }
        assert!(uuid_short() < uuid_short());
    }
}
