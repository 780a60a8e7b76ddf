//! The primary's side of replication: each commit's rows, each schema change and each copy
//! sent as a job to every backup (or starting node) of the view, one link thread per backup
//! that sends its jobs again over a new connection until answered, and the dialing and frame
//! reading the other node links share.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use base::{Error, ErrorCode};
use transport::FrameReader;
use transport::Stream;
use wire::{FrameHeader, Message};

use super::Role;

/// Replication jobs (commits and schema changes) waiting for backups' answers, node-wide; one
/// more is refused with the temporary `Overloaded` before anything of it is sent.
pub const REPLICATION_JOBS_MAX: usize = 16_384;
/// How often a link looks at the view when nothing else happens.
const LINK_POLL: Duration = Duration::from_millis(20);
/// Between attempts to reach a backup that did not answer.
const RECONNECT_AFTER: Duration = Duration::from_millis(50);
/// How long a connection attempt, and the backup's answer to the hello, may take.
const CONNECT_TIMEOUT: Duration = Duration::from_millis(500);
/// Bytes a link queues before it writes them, whatever else waits.
const LINK_WRITE_BYTES: usize = 4 << 20;
/// Events a link takes in before it writes what they queued.
const LINK_BATCH_EVENTS: usize = 256;
/// How long one write to a backup may block.
const WRITE_TIMEOUT: Duration = Duration::from_secs(1);

/// What the coordinator is told when a job ends: the backups' answers, and the copy generation
/// a commit was counted in (`Role::settled` once its workers were told; 0 for other jobs and
/// for jobs refused before anything was sent).
pub type Done = Box<dyn FnOnce(Result<Vec<Message>, Error>, u64) + Send>;

pub(super) struct Job {
    message: Message,
    /// Its number in this primary's stream (`Role::job_seq`), the request id it goes under
    /// on every link: a member of a group of three or more keeps it (`level`).
    seq: u64,
    generation: u64,
    /// A schema change: the backup's answer, success or failure, is its outcome there. (A
    /// commit's rows have no failure to report: a backup that cannot apply them stops.)
    schema: bool,
    remaining: AtomicUsize,
    answers: Mutex<Vec<Message>>,
    done: Mutex<Option<Done>>,
}

impl Job {
    /// One backup answered (None: it left the view); the last one ends the job.
    fn answered(&self, answer: Option<Message>, role: &Role) {
        if let Some(answer) = answer {
            self.answers
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(answer);
        }
        if self.remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
            role.jobs.fetch_sub(1, Ordering::Relaxed);
            let done = self.done.lock().unwrap_or_else(|e| e.into_inner()).take();
            let answers =
                std::mem::take(&mut *self.answers.lock().unwrap_or_else(|e| e.into_inner()));
            if let Some(done) = done {
                done(Ok(answers), self.generation);
            }
        }
    }
}

// An answer moves once, from the reader to the link; boxing would allocate per answer.
#[allow(clippy::large_enum_variant)]
pub(super) enum LinkEvent {
    Job(Arc<Job>),
    /// An answer read on connection `generation`.
    Answer {
        generation: u64,
        request_id: u64,
        message: Message,
    },
    Closed {
        generation: u64,
    },
}

impl Role {
    /// Whether the current view has a backup (or starting node) for this node to send its
    /// commits to.
    pub fn has_backups(&self) -> bool {
        let view = self.view();
        self.group.iter().any(|n| self.takes_commits(&view, *n))
    }

    /// Sends `message` to every backup of the group in the current view; `done` is called once
    /// each answered or left the view (at once, with no answers, when there is no backup).
    /// Fails without sending anything when this node is no longer the primary, or (`bounded`,
    /// for commits) when too many jobs wait.
    pub fn replicate(self: &Arc<Role>, message: Message, bounded: bool, done: Done) {
        self.send_job(message, None, bounded, done);
    }

    /// Sends part of a copy to starting node `node` on its link, after every commit queued
    /// there; `done` as for `replicate` (no answers when the node left the view). A
    /// `CopyCatalog` begins a new copy generation: returned, for `settled_before`.
    pub fn send_copy(self: &Arc<Role>, node: u32, message: Message, done: Done) -> u64 {
        self.send_job(message, Some(node), false, done)
    }

    /// Sends a commit member `node` lacks (`Message::LevelUp`) on its link, after every job
    /// queued there; `done` as for `replicate`.
    pub fn send_level_up(self: &Arc<Role>, node: u32, message: Message, done: Done) {
        self.send_job(message, Some(node), false, done);
    }

    fn send_job(
        self: &Arc<Role>,
        message: Message,
        only: Option<u32>,
        bounded: bool,
        done: Done,
    ) -> u64 {
        // The view is read, and a commit counted in it, under one look: a copy that begins
        // once a view adds a starting node waits for every commit sent without it.
        let guard = self.view.read().unwrap_or_else(|e| e.into_inner());
        let view = guard.clone();
        // A primary bringing its group level sends nothing but what the members lack first
        // (anything else would be numbered below what they lack: `level`).
        let leveling = self.leveling().is_some() && !matches!(message, Message::LevelUp { .. });
        if leveling || self.primary_in(&view) != Some(self.me) {
            drop(guard);
            let why = if leveling {
                format!(
                    "data node {} brings its node group level first in the cluster's view {}",
                    self.me, view.epoch
                )
            } else {
                format!(
                    "data node {} is no longer the primary in the cluster's view {}",
                    self.me, view.epoch
                )
            };
            done(Err(Error::new(ErrorCode::ViewChanged, why)), 0);
            return 0;
        }
        // A commit's rows and a copy go to starting nodes too; a schema change only to
        // members (a starting node takes the whole catalog in its copy, and none changes
        // while it copies).
        let schema = !matches!(
            message,
            Message::Replicate { .. }
                | Message::LevelUp { .. }
                | Message::Prepared { .. }
                | Message::Resolve { .. }
                | Message::CopyCatalog { .. }
                | Message::CopyRows { .. }
                | Message::CopyNames { .. }
                | Message::CopyPrimaries { .. }
                | Message::CopyDone { .. }
        );
        let mut backups: Vec<u32> = self
            .group
            .iter()
            .copied()
            .filter(|n| only.is_none_or(|o| o == *n))
            .filter(|n| {
                if schema {
                    *n != self.me && view.members.contains(n)
                } else {
                    self.takes_commits(&view, *n)
                }
            })
            .collect();
        let own_group_only = matches!(message, Message::Gcp { .. });
        if schema && !own_group_only && only.is_none() && Self::master_in(&view) == Some(self.me) {
            // The master's schema changes go to every other group's primary too (a global
            // checkpoint's step only to its own backups: the master sends it to the other
            // groups itself, on the step links).
            backups.extend(
                view.primaries
                    .iter()
                    .filter(|(g, _)| **g != self.group_index)
                    .map(|(_, p)| *p),
            );
        }
        if !backups.is_empty()
            && self.jobs.fetch_add(1, Ordering::Relaxed) >= REPLICATION_JOBS_MAX
            && bounded
        {
            self.jobs.fetch_sub(1, Ordering::Relaxed);
            drop(guard);
            done(
                Err(Error::new(
                    ErrorCode::Overloaded,
                    format!("{REPLICATION_JOBS_MAX} commits are waiting for backups; retry"),
                )),
                0,
            );
            return 0;
        }
        // A commit is counted, and a copy's catalog begins a generation, together with putting
        // them on the links, so every link holds the commits of older generations first.
        let mut links = self.links.lock().unwrap_or_else(|e| e.into_inner());
        let generation = {
            let mut unsettled = self.unsettled.lock().unwrap_or_else(|e| e.into_inner());
            match message {
                Message::Replicate { .. } | Message::Resolve { commit: true, .. } => {
                    unsettled.count()
                }
                // A prepared part is counted until it is recorded in doubt (`send_prepared`), so
                // a copy that begins finds it there and sends it (`crate::copy`); the copy's
                // own sending of it is not counted.
                Message::Prepared { .. } if only.is_none() => unsettled.count(),
                Message::CopyCatalog { .. } => {
                    unsettled.generation += 1;
                    unsettled.generation
                }
                _ => 0,
            }
        };
        drop(guard);
        if backups.is_empty() {
            drop(links);
            done(Ok(Vec::new()), generation);
            return generation;
        }
        // Numbered under the links' lock: every link takes its jobs in the order numbered.
        let seq = self.job_seq.fetch_add(1, Ordering::Relaxed);
        let job = Arc::new(Job {
            seq,
            schema,
            generation,
            message,
            remaining: AtomicUsize::new(backups.len()),
            answers: Mutex::new(Vec::new()),
            done: Mutex::new(Some(done)),
        });
        for peer in backups {
            let link = links.entry(peer).or_insert_with(|| self.spawn_link(peer));
            // The link's thread runs as long as the process: a send cannot fail.
            let _ = link.send(LinkEvent::Job(job.clone()));
        }
        generation
    }

    /// Starts the link to `peer`. A thread that cannot start leaves the node unable to reach a
    /// backup, with commits waiting for it: a broken invariant, so the node stops (the panic
    /// hook ends the process).
    fn spawn_link(self: &Arc<Role>, peer: u32) -> Sender<LinkEvent> {
        let (tx, rx) = mpsc::channel();
        let role = self.clone();
        let answers = tx.clone();
        let spawned = thread::Builder::new()
            .name(format!("replica-link-{peer}"))
            .spawn(move || Link::new(role, peer, answers).run(rx));
        if let Err(e) = spawned {
            panic!("starting the replication link to data node {peer}: {e}");
        }
        tx
    }
}

/// The primary's side of one backup's link.
struct Link {
    role: Arc<Role>,
    peer: u32,
    /// Where the connection's reader sends the answers it reads.
    answers: Sender<LinkEvent>,
    /// The connection, its generation and the epoch its hello named.
    connection: Option<(Stream, u64, u64)>,
    generation: u64,
    /// Jobs sent and not answered, by request id (their `Job::seq`, ascending: the order
    /// they were sent in).
    in_flight: BTreeMap<u64, Arc<Job>>,
    retry_at: Instant,
    /// Frames queued for the next write.
    out: Vec<u8>,
}

impl Link {
    fn new(role: Arc<Role>, peer: u32, answers: Sender<LinkEvent>) -> Link {
        Link {
            role,
            peer,
            answers,
            connection: None,
            generation: 0,
            in_flight: BTreeMap::new(),
            retry_at: Instant::now(),
            out: Vec::new(),
        }
    }

    fn run(mut self, events: Receiver<LinkEvent>) {
        loop {
            match events.recv_timeout(LINK_POLL) {
                Ok(event) => {
                    self.on_event(event);
                    // What else waits goes out in the same write (a group of commits).
                    for _ in 0..LINK_BATCH_EVENTS {
                        match events.try_recv() {
                            Ok(event) => self.on_event(event),
                            Err(_) => break,
                        }
                    }
                    self.flush();
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return,
            }
            let view = self.role.view();
            if !view.members.contains(&self.peer) && !view.starting.contains(&self.peer) {
                // An agreed view without the backup: it stops serving, and what it did not
                // answer is done without it.
                for (_, job) in std::mem::take(&mut self.in_flight) {
                    job.answered(None, &self.role);
                }
                self.close();
                continue;
            }
            if self.connection.as_ref().is_some_and(|c| c.2 != view.epoch) {
                self.close();
            }
            if self.connection.is_none()
                && !self.in_flight.is_empty()
                && Instant::now() >= self.retry_at
            {
                self.connect(view.epoch);
            }
        }
    }

    fn on_event(&mut self, event: LinkEvent) {
        match event {
            LinkEvent::Job(job) => {
                let id = job.seq;
                self.in_flight.insert(id, job.clone());
                self.send(id, &job);
            }
            LinkEvent::Answer {
                generation,
                request_id,
                message,
            } => self.on_answer(generation, request_id, message),
            LinkEvent::Closed { generation } => {
                if self.connection.as_ref().is_some_and(|c| c.1 == generation) {
                    self.close();
                }
            }
        }
    }

    fn on_answer(&mut self, generation: u64, request_id: u64, message: Message) {
        if self.connection.as_ref().map(|c| c.1) != Some(generation) {
            return;
        }
        match message {
            // The backup's view is not this one: it applied nothing. Sent again once the
            // views agree (a new connection names the epoch), or until the view drops it.
            Message::Failure(e) if e.code == ErrorCode::NotPrimary => {
                tracing::debug!(peer = self.peer, "backup refused: {}", e.message);
                self.close();
            }
            // Busy: sent again after a pause.
            Message::Failure(e) if e.is_temporary() => {
                tracing::debug!(peer = self.peer, "backup asks to retry: {}", e.message);
                self.close();
            }
            // A schema change that failed there too: its outcome, for the primary to compare.
            Message::Failure(e)
                if self
                    .in_flight
                    .get(&request_id)
                    .is_some_and(|job| job.schema) =>
            {
                if let Some(job) = self.in_flight.remove(&request_id) {
                    job.answered(Some(Message::Failure(e)), &self.role);
                }
            }
            // A backup that cannot apply a commit's rows stops itself (fail-stop); the job
            // waits for the view without it.
            Message::Failure(e) => {
                tracing::error!(
                    peer = self.peer,
                    "backup failed a replicated commit: {}",
                    e.message
                );
                self.close();
            }
            answer => {
                if let Some(job) = self.in_flight.remove(&request_id) {
                    job.answered(Some(answer), &self.role);
                }
            }
        }
    }

    /// Queues a job's frame for the next `flush` (nothing while there is no connection: a
    /// new one sends every job in flight).
    fn send(&mut self, id: u64, job: &Job) {
        if self.connection.is_some() {
            job.message.write_frame(&mut self.out, 0, 0, id);
            if self.out.len() >= LINK_WRITE_BYTES {
                self.flush();
            }
        }
    }

    /// Writes the queued frames in one go.
    fn flush(&mut self) {
        if self.out.is_empty() {
            return;
        }
        if let Some((_, delay)) = self.role.slow_link.get().filter(|(n, _)| *n == self.peer) {
            thread::sleep(*delay);
        }
        let written = match &mut self.connection {
            Some((stream, _, _)) => stream.write_all(&self.out).is_ok(),
            None => true,
        };
        self.out.clear();
        if !written {
            self.close();
        }
    }

    fn close(&mut self) {
        if let Some((stream, _, _)) = self.connection.take() {
            stream.shutdown();
        }
        self.out.clear();
        self.retry_at = Instant::now() + RECONNECT_AFTER;
    }

    /// Dials the backup, says hello with the view's epoch, and sends every unanswered job again.
    fn connect(&mut self, epoch: u64) {
        self.retry_at = Instant::now() + RECONNECT_AFTER;
        let Some(address) = self.role.api_addresses.get(&self.peer).cloned() else {
            return;
        };
        let stream = match self.dial(&address, epoch) {
            Ok(s) => s,
            Err(why) => {
                tracing::debug!(peer = self.peer, "replication link to {address}: {why}");
                return;
            }
        };
        let reader = match stream.try_clone() {
            Ok(r) => r,
            Err(_) => return,
        };
        self.generation += 1;
        let generation = self.generation;
        let answers = self.answers.clone();
        let spawned = thread::Builder::new()
            .name(format!("replica-read-{}", self.peer))
            .spawn(move || read_answers(reader, generation, answers));
        if spawned.is_err() {
            return;
        }
        self.connection = Some((stream, generation, epoch));
        let jobs: Vec<(u64, Arc<Job>)> = self
            .in_flight
            .iter()
            .map(|(id, job)| (*id, job.clone()))
            .collect();
        for (id, job) in jobs {
            self.send(id, &job);
        }
        self.flush();
    }

    fn dial(&self, address: &str, epoch: u64) -> Result<Stream, String> {
        let hello = Message::PeerHello {
            node_id: self.role.me,
            epoch,
        };
        dial(address, &self.role, &hello, "backup")
    }
}

/// Dials a data node of this cluster for a node link, proves what the guard asks (cluster key, TLS), says `hello`,
/// and checks that it runs as many workers as this node (a partition's worker is the same on
/// every node). `what` names the peer in errors.
pub(crate) fn dial(
    address: &str,
    role: &Role,
    hello: &Message,
    what: &str,
) -> Result<Stream, String> {
    let stream = transport::connect_stream(address, CONNECT_TIMEOUT).map_err(|e| e.to_string())?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let mut stream = role.guard.client(stream).map_err(|e| e.to_string())?;
    let mut frame = Vec::new();
    hello.write_frame(&mut frame, 0, 0, 0);
    stream.write_all(&frame).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(CONNECT_TIMEOUT))
        .map_err(|e| e.to_string())?;
    let mut reader = FrameReader::new(stream.try_clone().map_err(|e| e.to_string())?);
    let answer = reader.read().map_err(|e| e.to_string())?;
    stream.set_read_timeout(None).map_err(|e| e.to_string())?;
    // A peer that stops reading (stopped, or cut off) must not hold the link: the write
    // fails, and the link dials again or finds the peer gone from the view.
    stream
        .set_write_timeout(Some(WRITE_TIMEOUT))
        .map_err(|e| e.to_string())?;
    match answer {
        Some((_, Message::HelloReply { worker_count, .. })) if worker_count == role.workers => {
            Ok(stream)
        }
        Some((_, Message::HelloReply { worker_count, .. })) => Err(format!(
            "the {what} runs {worker_count} workers and this node {}: every data node must run as many (each partition belongs to one worker)",
            role.workers
        )),
        Some((_, Message::Failure(e))) => Err(e.message),
        Some((_, other)) => Err(format!("answered hello with message {}", other.type_code())),
        None => Err("closed before answering hello".into()),
    }
}

/// Reads a backup's answers until the connection ends.
fn read_answers(stream: Stream, generation: u64, answers: Sender<LinkEvent>) {
    read_frames(
        stream,
        |request_id, message| {
            answers
                .send(LinkEvent::Answer {
                    generation,
                    request_id,
                    message,
                })
                .is_ok()
        },
        || {
            let _ = answers.send(LinkEvent::Closed { generation });
        },
    );
}

/// Reads a node link's answers, handing each to `answer` (which says whether to go on), and
/// calls `closed` once the connection ends.
pub(crate) fn read_frames(
    stream: Stream,
    mut answer: impl FnMut(u64, Message) -> bool,
    closed: impl FnOnce(),
) {
    let mut reader = FrameReader::new(stream);
    loop {
        match reader.read() {
            Ok(Some((header, message))) => {
                let FrameHeader { request_id, .. } = header;
                if !answer(request_id, message) {
                    return;
                }
            }
            Ok(None) | Err(_) => return closed(),
        }
    }
}
