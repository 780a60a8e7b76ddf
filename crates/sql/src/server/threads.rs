//! The SQL front end's threads: connections' work (a login, then the commands the reactor does
//! not serve itself) runs on threads of a cache that grows when every thread is busy and
//! shrinks as threads stay idle past `THREAD_IDLE_LINGER`. An idle connection is held by the
//! reactor and owns no thread, so thousands of idle connections cost their buffers and session
//! only (a thread kept per connection cost about 150 KB of allocator pages and stack each).
//!
//! It must never queue work behind a busy thread: a statement may wait (a row lock, SLEEP,
//! GET_LOCK) for as long as it likes, so work goes to an idle thread or to a new one.

use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tracing::warn;

/// How long a thread with nothing to do waits for more before it ends.
pub const THREAD_IDLE_LINGER: Duration = Duration::from_secs(10);

/// Work for one thread: a connection's login and commands, until it parks or ends.
pub type Job = Box<dyn FnOnce() + Send>;

/// The idle threads by id, each waiting on its own channel.
type Idle = Arc<Mutex<Vec<(u64, Sender<Job>)>>>;

/// The thread cache.
#[derive(Clone)]
pub(crate) struct Threads {
    idle: Idle,
    stack_bytes: usize,
    next: Arc<std::sync::atomic::AtomicU64>,
}

impl Threads {
    pub fn new(stack_bytes: usize) -> Threads {
        Threads {
            idle: Arc::new(Mutex::new(Vec::new())),
            stack_bytes,
            next: Arc::new(std::sync::atomic::AtomicU64::new(1)),
        }
    }

    /// Runs `job` on an idle thread, or on a new one when none is idle. Fails only when no
    /// thread could be started (the job is dropped, which closes its connection).
    pub fn run(&self, mut job: Job) -> std::io::Result<()> {
        loop {
            let waiting = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
            let Some((_, thread)) = waiting else {
                break;
            };
            // A thread that left the list never misses its job: it leaves only under the lock,
            // and one taken off the list always receives (see `wait`).
            match thread.send(job) {
                Ok(()) => return Ok(()),
                Err(mpsc::SendError(back)) => job = back,
            }
        }
        let threads = self.clone();
        let id = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        std::thread::Builder::new()
            .name(format!("sql-thread-{id}"))
            .stack_size(self.stack_bytes)
            .spawn(move || threads.serve(id, job))
            .map(|_| ())
    }

    /// A thread's life: its first job, then whatever comes while it is idle, until it lingers
    /// idle too long.
    fn serve(self, id: u64, first: Job) {
        let mut job = first;
        loop {
            job();
            match self.wait(id) {
                Some(next) => job = next,
                None => return,
            }
        }
    }

    /// Waits in the idle list for the next job; None once `THREAD_IDLE_LINGER` passed with none.
    fn wait(&self, id: u64) -> Option<Job> {
        let (tx, rx) = mpsc::channel();
        self.idle
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((id, tx));
        match rx.recv_timeout(THREAD_IDLE_LINGER) {
            Ok(job) => Some(job),
            Err(RecvTimeoutError::Timeout) => {
                let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
                match idle.iter().position(|(t, _)| *t == id) {
                    Some(at) => {
                        idle.swap_remove(at);
                        None
                    }
                    // Taken off the list just now: its job is on the way.
                    None => {
                        drop(idle);
                        rx.recv().ok()
                    }
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                warn!("sql thread {id}: its channel closed while idle");
                None
            }
        }
    }

    /// Threads idle now (for tests and status).
    #[cfg(test)]
    pub fn idle_count(&self) -> usize {
        self.idle.lock().map(|i| i.len()).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;

    /// A job that sends the name of the thread it ran on.
    fn report(done: &std::sync::mpsc::Sender<Option<String>>) -> Job {
        let done = done.clone();
        Box::new(move || {
            let _ = done.send(std::thread::current().name().map(String::from));
        })
    }

    #[test]
    fn idle_threads_are_reused_and_busy_ones_never_delay_new_work() {
        let threads = Threads::new(256 << 10);
        let (done_tx, done) = channel();
        // One job blocks until told; a second must run meanwhile, on another thread.
        let (release_tx, release) = channel::<()>();
        let d = done_tx.clone();
        threads
            .run(Box::new(move || {
                let _ = release.recv();
                d.send(std::thread::current().name().map(String::from))
                    .unwrap();
            }))
            .unwrap();
        threads.run(report(&done_tx)).unwrap();
        let second = done.recv_timeout(Duration::from_secs(10)).unwrap();
        release_tx.send(()).unwrap();
        let first = done.recv_timeout(Duration::from_secs(10)).unwrap();
        assert_ne!(first, second);
        // Both are idle now; the next job reuses one of them.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while threads.idle_count() < 2 {
            assert!(
                std::time::Instant::now() < deadline,
                "threads never went idle"
            );
            std::thread::yield_now();
        }
        threads.run(report(&done_tx)).unwrap();
        let third = done.recv_timeout(Duration::from_secs(10)).unwrap();
        assert!(third == first || third == second, "{third:?}");
    }
}
