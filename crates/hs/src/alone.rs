//! Requests that do not go into a batch (scans, modifies, inserts, and reads whose batch failed
//! as a whole) run on a few threads beside each event loop, so that none of them stalls the
//! loop: the loop hands one over with its open index and goes on serving the others; the
//! answer comes back through a channel and the loop's waker. While a connection has such a request out,
//! its later lines wait, so the queue holds at most one request per connection of the loop,
//! besides the reads of batches that failed as a whole (each at most a batch's). A panic here
//! ends the process, as on any thread of a node (fail-stop).

use std::sync::atomic::Ordering;
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;

use client::Cluster;
use mio::Waker;
use tracing::warn;

use crate::exec::{self, OpenIndex};
use crate::protocol::{self, Request};

/// Threads each event loop runs its requests that are not batched on, by default.
pub const THREADS_DEFAULT: usize = 4;
/// The most such threads per loop.
pub const THREADS_MAX: usize = 256;

/// A request handed to the threads: whose it is (the connection's token and the place of its
/// answer), and what it needs to run.
pub struct Job {
    pub token: usize,
    pub slot: u64,
    pub cluster: Cluster,
    pub open: Arc<OpenIndex>,
    pub request: Request,
}

/// A job's answer, and the index opened again when DDL had changed its table.
pub struct Done {
    pub token: usize,
    pub slot: u64,
    pub answer: Vec<u8>,
    pub reopened: Option<Arc<OpenIndex>>,
}

/// One loop's threads.
pub struct Pool {
    jobs: Option<mpsc::Sender<Job>>,
    pub done: mpsc::Receiver<Done>,
    threads: Vec<JoinHandle<()>>,
}

impl Pool {
    /// Starts `threads` threads (named after the loop) whose answers wake `waker`.
    pub fn start(name: &str, threads: usize, waker: Arc<Waker>) -> std::io::Result<Pool> {
        let (jobs, queue) = mpsc::channel::<Job>();
        let (answers, done) = mpsc::channel();
        let queue = Arc::new(Mutex::new(queue));
        let threads = (0..threads.clamp(1, THREADS_MAX))
            .map(|i| {
                let (queue, answers, waker) = (queue.clone(), answers.clone(), waker.clone());
                std::thread::Builder::new()
                    .name(format!("{name}-run-{i}"))
                    .spawn(move || serve(&queue, &answers, &waker))
            })
            .collect::<std::io::Result<Vec<_>>>()?;
        Ok(Pool {
            jobs: Some(jobs),
            done,
            threads,
        })
    }

    /// Hands a job to the threads; false when they are gone (the loop is stopping).
    pub fn submit(&self, job: Job) -> bool {
        self.jobs.as_ref().is_some_and(|j| j.send(job).is_ok())
    }
}

impl Drop for Pool {
    /// Closes the queue: each thread ends after the job it runs (one waiting on a lock is not
    /// waited for).
    fn drop(&mut self) {
        self.jobs = None;
        for t in self.threads.drain(..) {
            if t.is_finished() {
                let _ = t.join();
            }
        }
    }
}

fn serve(queue: &Mutex<mpsc::Receiver<Job>>, answers: &mpsc::Sender<Done>, waker: &Waker) {
    loop {
        let job = match queue.lock() {
            Ok(q) => match q.recv() {
                Ok(job) => job,
                Err(_) => return,
            },
            Err(_) => return,
        };
        let (answer, reopened) = run(&job.cluster, job.open, &job.request);
        let done = Done {
            token: job.token,
            slot: job.slot,
            answer,
            reopened,
        };
        if answers.send(done).is_err() {
            return;
        }
        if let Err(e) = waker.wake() {
            warn!("handlersocket: waking its loop failed: {e}");
        }
    }
}

/// Runs a request on its own. When the data node refuses it because DDL changed the table since
/// the index was opened (nothing of it ran), the index is opened again and the request runs once
/// more, against the table as it is now; the index opened again is returned to be kept.
pub fn run(
    cluster: &Cluster,
    mut open: Arc<OpenIndex>,
    request: &Request,
) -> (Vec<u8>, Option<Arc<OpenIndex>>) {
    let mut reopened = None;
    let mut answer = Vec::new();
    for _ in 0..2 {
        if open.stale.load(Ordering::Relaxed) {
            open = match exec::reopen(cluster, &open) {
                Ok(again) => Arc::new(again),
                Err(answer) => return (answer, reopened),
            };
            reopened = Some(open.clone());
        }
        answer = match request {
            Request::Find(f) => exec::find(cluster, &open, f),
            Request::Insert { values, .. } => exec::insert(cluster, &open, values),
            _ => protocol::error(2, "cmd"),
        };
        if !open.stale.load(Ordering::Relaxed) {
            break;
        }
    }
    (answer, reopened)
}
