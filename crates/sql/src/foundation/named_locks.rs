//! Named locks: GET_LOCK, RELEASE_LOCK, IS_FREE_LOCK, IS_USED_LOCK and RELEASE_ALL_LOCKS, as
//! MariaDB keeps them: a lock is a name (compared exactly) held by one session, any number of
//! times (each GET_LOCK counts, each RELEASE_LOCK takes one back); another session waits for it
//! up to its timeout. The locks live in this API node (sessions of another API node do not see
//! them), and a session's locks go when it ends.

use std::collections::HashMap;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The longest wait a timeout asks for (a negative one, or one above this, waits this long).
const WAIT_MAX: Duration = Duration::from_secs(365 * 24 * 3600);

struct Held {
    owner: u32,
    count: u64,
}

struct Locks {
    held: Mutex<HashMap<String, Held>>,
    released: Condvar,
}

fn locks() -> &'static Locks {
    static LOCKS: std::sync::OnceLock<Locks> = std::sync::OnceLock::new();
    LOCKS.get_or_init(|| Locks {
        held: Mutex::new(HashMap::new()),
        released: Condvar::new(),
    })
}

fn held() -> MutexGuard<'static, HashMap<String, Held>> {
    locks().held.lock().unwrap_or_else(|e| e.into_inner())
}

/// How long a wait sleeps at most before it looks whether its statement must stop.
const WAIT_SLICE: Duration = Duration::from_millis(100);

/// GET_LOCK: takes `name` for `owner` (once more if it holds it), waiting up to `timeout`
/// seconds while another session holds it; false when the wait ran out, `stop`'s error when
/// the statement must stop first (KILL, or the client went away).
pub(crate) fn get(
    name: &str,
    owner: u32,
    timeout: f64,
    stop: &dyn Fn() -> crate::foundation::error::Result<()>,
) -> crate::foundation::error::Result<bool> {
    let wait = if timeout.is_finite() && timeout >= 0.0 {
        Duration::from_secs_f64(timeout.min(WAIT_MAX.as_secs_f64()))
    } else {
        WAIT_MAX
    };
    let deadline = Instant::now() + wait;
    let mut map = held();
    loop {
        match map.get_mut(name) {
            None => {
                map.insert(name.to_string(), Held { owner, count: 1 });
                return Ok(true);
            }
            Some(h) if h.owner == owner => {
                h.count += 1;
                return Ok(true);
            }
            Some(_) => {
                let now = Instant::now();
                if now >= deadline {
                    return Ok(false);
                }
                drop(map);
                stop()?;
                map = held();
                if map.get(name).is_none_or(|h| h.owner == owner) {
                    continue;
                }
                map = locks()
                    .released
                    .wait_timeout(map, (deadline - now).min(WAIT_SLICE))
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
        }
    }
}

/// RELEASE_LOCK: None when nobody holds `name`, Some(false) when another session does,
/// Some(true) when `owner` gave one of its holds back.
pub(crate) fn release(name: &str, owner: u32) -> Option<bool> {
    let mut map = held();
    let h = map.get_mut(name)?;
    if h.owner != owner {
        return Some(false);
    }
    h.count -= 1;
    if h.count == 0 {
        map.remove(name);
        locks().released.notify_all();
    }
    Some(true)
}

/// RELEASE_ALL_LOCKS (and a session's end): gives back every hold of `owner`; how many.
pub(crate) fn release_all(owner: u32) -> u64 {
    let mut map = held();
    let mut count = 0;
    map.retain(|_, h| {
        if h.owner == owner {
            count += h.count;
            false
        } else {
            true
        }
    });
    if count > 0 {
        locks().released.notify_all();
    }
    count
}

/// IS_USED_LOCK: the session holding `name`.
pub(crate) fn owner(name: &str) -> Option<u32> {
    held().get(name).map(|h| h.owner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn go_on() -> crate::foundation::error::Result<()> {
        Ok(())
    }

    fn get(name: &str, owner: u32, timeout: f64) -> bool {
        super::get(name, owner, timeout, &go_on).unwrap()
    }

    #[test]
    fn a_wait_stops_when_its_statement_must() {
        assert!(get("t-stop", 1, 0.0));
        let stopped = super::get("t-stop", 2, 60.0, &|| {
            Err(crate::foundation::error::SqlError::new(
                1317,
                "70100",
                "interrupted",
            ))
        });
        assert!(stopped.is_err_and(|e| e.code == 1317));
        assert_eq!(release_all(1), 1);
    }

    #[test]
    fn locks_count_wait_and_go_with_their_session() {
        assert!(get("t-a", 1, 0.0));
        assert!(get("t-a", 1, 0.0));
        assert!(!get("t-a", 2, 0.01));
        assert_eq!(release("t-a", 2), Some(false));
        assert_eq!(release("t-a", 1), Some(true));
        assert_eq!(owner("t-a"), Some(1));
        let waiter = std::thread::spawn(|| get("t-a", 2, 60.0));
        assert_eq!(release_all(1), 1);
        assert!(waiter.join().unwrap());
        assert_eq!(owner("t-a"), Some(2));
        assert_eq!(release("t-a", 2), Some(true));
        assert_eq!(release("t-a", 2), None);
    }
}
