//! The coordinator's side of the step links: one per other node group, to that group's primary
//! in the current view, carrying `Steps`, `EndRemote` and `UndoRemote` for the transactions
//! this node coordinates, and handing each answer to the callback of the request.
//!
//! Unlike a replication link, a step link sends nothing twice. A request whose connection
//! breaks, or is sent when the group's primary or the view changed, ends with `ViewChanged`
//! (temporary); the receiver rolls back every transaction of a link that closed, so the
//! coordinator rolls its transaction back too. Each answer names the connection (its
//! generation) it came on: a transaction that used a connection refuses to go on over another,
//! since its part there is gone.

use std::collections::BTreeMap;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use base::{Error, ErrorCode};
use wire::Message;

use crate::replication::Role;

/// How often an idle link looks at the view.
const LINK_POLL: Duration = Duration::from_millis(20);
/// Requests a link takes in before it writes what they queued.
const LINK_BATCH_EVENTS: usize = 256;
/// Requests waiting for answers on one link; one more is refused with `Overloaded`.
pub const STEP_LINK_REQUESTS_MAX: usize = 65_536;
/// How long a persistent request (a prepared part's commit) is sent again: past the time a
/// failed primary's successor takes over. Past it, the group learns the outcome itself.
const RESEND_FOR: Duration = Duration::from_secs(30);
/// Between attempts at a persistent request.
const RESEND_AFTER: Duration = Duration::from_millis(50);

/// Called once with the answer and the generation of the connection it came on, or with why
/// there is none.
pub type StepDone = Box<dyn FnOnce(Result<(u64, Message), Error>) + Send>;

enum LinkEvent {
    Request {
        message: Message,
        /// The connection the request must go on (None: any).
        generation: Option<u64>,
        done: StepDone,
    },
    /// Sent, and sent again over new connections to whichever node is the group's primary,
    /// until answered without a temporary failure, or until `RESEND_FOR` passed.
    Persistent {
        message: Message,
        done: StepDone,
    },
    Answer {
        generation: u64,
        request_id: u64,
        message: Message,
    },
    Closed {
        generation: u64,
    },
    /// A persistent request's attempt failed: it waits `RESEND_AFTER` and goes again.
    Retry {
        message: Message,
        done: StepDone,
        deadline: Instant,
    },
}

/// Every step link of this node, by node group index.
pub struct StepLinks {
    role: Arc<Role>,
    links: Mutex<BTreeMap<u32, Sender<LinkEvent>>>,
}

impl StepLinks {
    pub fn new(role: Arc<Role>) -> StepLinks {
        StepLinks {
            role,
            links: Mutex::new(BTreeMap::new()),
        }
    }

    /// Sends `message` to node group `group`'s primary until it answers without a temporary
    /// failure, over new connections to the group's new primary after a failover, for up to
    /// `RESEND_FOR`; for requests that are harmless twice. `done` gets the last answer.
    pub fn send_until_answered(&self, group: u32, message: Message, done: StepDone) {
        self.event(group, LinkEvent::Persistent { message, done });
    }

    /// Sends `message` to node group `group`'s primary, on connection `generation` when given;
    /// `done` gets the answer.
    pub fn send(&self, group: u32, generation: Option<u64>, message: Message, done: StepDone) {
        self.event(
            group,
            LinkEvent::Request {
                message,
                generation,
                done,
            },
        );
    }

    fn event(&self, group: u32, event: LinkEvent) {
        let mut links = self.links.lock().unwrap_or_else(|e| e.into_inner());
        let link = links.entry(group).or_insert_with(|| {
            let (tx, rx) = mpsc::channel();
            let link = Link {
                role: self.role.clone(),
                group,
                answers: tx.clone(),
                persistent: Vec::new(),
                connection: None,
                generation: 0,
                in_flight: BTreeMap::new(),
                next_id: 1,
                out: Vec::new(),
            };
            let spawned = thread::Builder::new()
                .name(format!("step-link-{group}"))
                .spawn(move || link.run(rx));
            if let Err(e) = spawned {
                // Transactions across node groups would wait for a link that never runs.
                panic!("starting the step link to node group {group}: {e}");
            }
            tx
        });
        // The link's thread runs as long as the process: a send cannot fail.
        let _ = link.send(event);
    }
}

/// A connection to a group's primary: the stream, its generation, the view epoch and the
/// primary it was opened for.
struct Open {
    stream: transport::Stream,
    generation: u64,
    epoch: u64,
    primary: u32,
}

struct Link {
    role: Arc<Role>,
    group: u32,
    answers: Sender<LinkEvent>,
    /// Persistent requests waiting to be sent (again), with their deadline and next attempt.
    persistent: Vec<(Message, StepDone, Instant, Instant)>,
    connection: Option<Open>,
    generation: u64,
    in_flight: BTreeMap<u64, StepDone>,
    next_id: u64,
    out: Vec<u8>,
}

impl Link {
    fn run(mut self, events: Receiver<LinkEvent>) {
        loop {
            match events.recv_timeout(LINK_POLL) {
                Ok(event) => {
                    self.on_event(event);
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
            // Persistent requests due go out now, not with the next request (there may be none).
            self.resend();
            self.flush();
            // A connection opened in another view, or to a node no longer the group's primary,
            // carries nothing more: what waits on it is gone there.
            if let Some(open) = &self.connection {
                if self.target() != Some((open.primary, open.epoch)) {
                    self.close("the cluster's view changed");
                }
            }
        }
    }

    /// The group's primary and the epoch of the current view, when this node serves in an open
    /// view.
    fn target(&self) -> Option<(u32, u64)> {
        let view = self.role.view();
        if !view.open {
            return None;
        }
        let primary = *view.primaries.get(&(self.group as usize))?;
        Some((primary, view.epoch))
    }

    fn on_event(&mut self, event: LinkEvent) {
        match event {
            LinkEvent::Request {
                message,
                generation,
                done,
            } => self.request(message, generation, done),
            LinkEvent::Persistent { message, done } => {
                let now = Instant::now();
                self.persistent.push((message, done, now + RESEND_FOR, now));
                self.resend();
            }
            LinkEvent::Answer {
                generation,
                request_id,
                message,
            } => {
                if self.connection.as_ref().map(|c| c.generation) == Some(generation) {
                    if let Some(done) = self.in_flight.remove(&request_id) {
                        done(Ok((generation, message)));
                    }
                }
            }
            LinkEvent::Retry {
                message,
                done,
                deadline,
            } => {
                self.persistent
                    .push((message, done, deadline, Instant::now() + RESEND_AFTER));
            }
            LinkEvent::Closed { generation } => {
                if self.connection.as_ref().map(|c| c.generation) == Some(generation) {
                    self.close("the connection closed");
                }
            }
        }
    }

    /// Sends the persistent requests due: each goes as a request whose failure (or temporary
    /// refusal) puts it back for another attempt, until its deadline.
    fn resend(&mut self) {
        let now = Instant::now();
        let due: Vec<_> = {
            let (due, wait) = std::mem::take(&mut self.persistent)
                .into_iter()
                .partition(|p| p.3 <= now);
            self.persistent = wait;
            due
        };
        for (message, done, deadline, _) in due {
            let again = self.answers.clone();
            let copy = message.clone();
            let retry: StepDone = Box::new(move |result| {
                let temporary = match &result {
                    Err(_) => true,
                    Ok((_, Message::Failure(e))) => e.is_temporary(),
                    Ok(_) => false,
                };
                if temporary && Instant::now() < deadline {
                    let _ = again.send(LinkEvent::Retry {
                        message: copy,
                        done,
                        deadline,
                    });
                } else {
                    done(result);
                }
            });
            self.request(message, None, retry);
        }
    }

    fn request(&mut self, message: Message, generation: Option<u64>, done: StepDone) {
        let target = self.target();
        if let Some(open) = &self.connection {
            if target != Some((open.primary, open.epoch)) {
                self.close("the cluster's view changed");
            }
        }
        if self.connection.is_none() && generation.is_none() {
            if let Err(e) = self.connect(target) {
                return done(Err(e));
            }
        }
        let Some(open) = &self.connection else {
            return done(Err(lost(self.group, "its connection closed")));
        };
        if generation.is_some_and(|g| g != open.generation) {
            return done(Err(lost(self.group, "its connection closed")));
        }
        if self.in_flight.len() >= STEP_LINK_REQUESTS_MAX {
            return done(Err(Error::new(
                ErrorCode::Overloaded,
                format!(
                    "{STEP_LINK_REQUESTS_MAX} requests wait for node group {}; retry",
                    self.group + 1
                ),
            )));
        }
        let id = self.next_id;
        self.next_id += 1;
        message.write_frame(&mut self.out, 0, 0, id);
        self.in_flight.insert(id, done);
    }

    fn flush(&mut self) {
        if self.out.is_empty() {
            return;
        }
        let written = match &mut self.connection {
            Some(open) => open.stream.write_all(&self.out).is_ok(),
            None => true,
        };
        self.out.clear();
        if !written {
            self.close("a write failed");
        }
    }

    /// Ends the connection; every request waiting on it fails.
    fn close(&mut self, why: &str) {
        if let Some(open) = self.connection.take() {
            open.stream.shutdown();
        }
        self.out.clear();
        for (_, done) in std::mem::take(&mut self.in_flight) {
            done(Err(lost(self.group, why)));
        }
    }

    fn connect(&mut self, target: Option<(u32, u64)>) -> Result<(), Error> {
        let Some((primary, epoch)) = target else {
            return Err(Error::new(
                ErrorCode::ViewChanged,
                format!(
                    "node group {} has no primary in an open view here; retry",
                    self.group + 1
                ),
            ));
        };
        let Some(address) = self.role.api_addresses.get(&primary).cloned() else {
            return Err(Error::new(
                ErrorCode::Internal,
                format!("data node {primary} has no address in the configuration"),
            ));
        };
        let stream = self.dial(&address, epoch).map_err(|why| {
            Error::new(
                ErrorCode::ViewChanged,
                format!(
                    "node group {}'s primary, data node {primary} at {address}, could not be reached: {why}; retry",
                    self.group + 1
                ),
            )
        })?;
        let reader = stream
            .try_clone()
            .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        self.generation += 1;
        let generation = self.generation;
        let answers = self.answers.clone();
        thread::Builder::new()
            .name(format!("step-read-{}", self.group))
            .spawn(move || read_answers(reader, generation, answers))
            .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        self.connection = Some(Open {
            stream,
            generation,
            epoch,
            primary,
        });
        Ok(())
    }

    fn dial(&self, address: &str, epoch: u64) -> Result<transport::Stream, String> {
        let hello = Message::StepHello {
            node_id: self.role.me,
            epoch,
        };
        crate::replication::dial(address, &self.role, &hello, "node group's primary")
    }
}

/// The error a request gets when its link to `group` is gone.
fn lost(group: u32, why: &str) -> Error {
    Error::new(
        ErrorCode::ViewChanged,
        format!(
            "the link to node group {}'s primary ended ({why}): the transaction's part there was rolled back; retry",
            group + 1
        ),
    )
}

/// Reads a primary's answers until the connection ends.
fn read_answers(stream: transport::Stream, generation: u64, answers: Sender<LinkEvent>) {
    crate::replication::read_frames(
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
