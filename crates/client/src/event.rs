//! A data-node connection owned by the caller's event loop: transactions are queued and sent
//! without blocking, and replies are read when the loop's poll reports the socket readable, so a
//! front end sleeps in one poll for its clients and the data node alike (no thread waits, none
//! spins).

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use transport::nonblocking::{Connection, ReadState, Registry, Token};
use transport::{FrameReader, ReadOutcome};
use wire::frame::FLAG_LAST;
use wire::{ExecType, Message, OpResult, Operation, ScanRequest};

use crate::connection::{check_frame, unexpected};
use crate::session::{outcome, Completion};
use crate::{ClientError, Result};

/// What a request queued on an `EventSession` completes with.
#[derive(Debug)]
pub enum Reply {
    /// A transaction's operation results, in operation order.
    Ops(Vec<OpResult>),
    /// A scan's rows.
    Rows(Vec<Vec<base::Value>>),
    /// A scan's first batch, when the scan has more: an event session takes one batch of a
    /// scan and ends it there (the caller reads a large result some other way).
    More(Vec<Vec<base::Value>>),
    /// A batch of a streamed scan (`EventSession::prepare_streamed_scan`) with more to come:
    /// the scan stays open until the caller asks for the next (`scan_next`) or ends it
    /// (`scan_close`). Its last batch completes it as `Rows`.
    Part(Vec<Vec<base::Value>>),
}

/// A connection an event loop drives. Replies are answered as the data node sent them: a
/// caller finding a reference to parts in one (`crate::has_parts`) reads it again through a
/// `Transaction`, which joins it; its operations' long values are not cut.
pub struct EventSession {
    io: Connection,
    registry_token: Option<Token>,
    next_request: u64,
    next_txn: u64,
    /// Request id -> caller's token.
    in_flight: HashMap<u64, u64>,
    /// Scans sent whose first batch (a streamed scan: whose last) has not come yet.
    scans: HashSet<u64>,
    /// Those of `scans` that stream: each batch is answered as it comes (`Reply::Part`).
    streamed: HashSet<u64>,
    /// Set once the connection failed; every later call answers it.
    lost: Option<String>,
    /// What the data node's hello said (`Message::HelloReply`).
    hello: NodeHello,
}

/// What a data node said of itself in its hello.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NodeHello {
    pub node_id: u32,
    /// It serves every request now (a data node alone, or its group's primary).
    pub serving: bool,
    /// It serves committed reads of READ_BACKUP tables now (see `Message::HelloReply`).
    pub reads: bool,
    /// Its node group (0-based), and the cluster's count of them.
    pub group: u32,
    pub groups: u32,
}

fn lost(why: impl Into<String>) -> ClientError {
    ClientError::ConnectionLost(why.into())
}

/// How often a front end tries again to reach a data node it lost, and how long one try waits
/// (the front end's loop is blocked meanwhile).
pub const RECONNECT_EVERY: Duration = Duration::from_secs(1);
pub const RECONNECT_TIMEOUT: Duration = Duration::from_millis(200);

impl EventSession {
    /// Connects to a data node at `address` and says hello, blocking up to `timeout`; the
    /// connection is non-blocking afterwards.
    /// Connects within `timeout`; `address` may list several data nodes, comma-separated, tried
    /// in turn until one serves (as `Cluster::connect_timeout`).
    pub fn connect(address: &str, timeout: Duration) -> Result<EventSession> {
        use crate::connection::{addresses, unanswered, unanswered_last};
        let candidates = unanswered_last(addresses(address));
        if candidates.len() == 1 {
            return EventSession::connect_one(address, Some(timeout), timeout)
                .map(|(session, _)| session);
        }
        let deadline = std::time::Instant::now() + timeout;
        loop {
            let mut last = None;
            for candidate in &candidates {
                // Once per round: a refused connection is not waited on (the next node may
                // serve); a live node's hello has its own time.
                let left = deadline.saturating_duration_since(std::time::Instant::now());
                let hello = left
                    .min(crate::connection::ATTEMPT_TIMEOUT)
                    .max(std::time::Duration::from_millis(10));
                match EventSession::connect_one(candidate, None, hello) {
                    Ok((session, true)) => return Ok(session),
                    Ok((_, false)) => last = Some(crate::connection::not_serving(candidate)),
                    Err(e) => {
                        unanswered(candidate);
                        last = Some(e);
                    }
                }
            }
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return Err(last.unwrap_or_else(|| lost(format!("no data node in {address:?}"))));
            }
            std::thread::sleep(crate::connection::ROUND_PAUSE.min(left));
        }
    }

    /// Connects to one data node; says whether it serves (see `Message::HelloReply`).
    /// (A refused connection is tried again for `retry`, None: once, its handshake allowed
    /// `ATTEMPT_TIMEOUT`; hello's answer may take `timeout`.)
    fn connect_one(
        address: &str,
        retry: Option<Duration>,
        timeout: Duration,
    ) -> Result<(EventSession, bool)> {
        let connected = match retry {
            Some(retry) => transport::connect_any(address, retry),
            None => transport::connect_any_once(address, crate::connection::ATTEMPT_TIMEOUT),
        };
        let mut stream = connected.map_err(|e| lost(format!("connecting to {address}: {e}")))?;
        let io_error = |e: std::io::Error| lost(format!("{address}: {e}"));
        stream.set_read_timeout(Some(timeout)).map_err(io_error)?;
        let mut hello = Vec::new();
        Message::Hello {
            client_name: "cairn-event-session".into(),
            // Its commits are not asked about after a lost connection.
            session: 0,
        }
        .write_frame(&mut hello, 0, 0, 0);
        stream.write_all(&hello).map_err(io_error)?;
        // Nothing else was asked, so the reader holds no bytes beyond the reply it returns.
        let mut reader = FrameReader::new(stream.try_clone().map_err(io_error)?);
        let hello = match reader.read_until(Some(std::time::Instant::now() + timeout)) {
            Ok(ReadOutcome::Frame(
                _,
                Message::HelloReply {
                    node_id,
                    serving,
                    reads,
                    group,
                    groups,
                    ..
                },
            )) => NodeHello {
                node_id,
                serving,
                reads,
                group,
                groups,
            },
            Ok(ReadOutcome::Frame(_, Message::Failure(e))) => return Err(ClientError::Failed(e)),
            Ok(ReadOutcome::Frame(_, other)) => return Err(unexpected(&other)),
            Ok(ReadOutcome::Closed) => return Err(lost(format!("{address} closed during hello"))),
            Ok(ReadOutcome::TimedOut) => {
                return Err(lost(format!(
                    "{address} did not answer hello within {timeout:?}"
                )))
            }
            Err(e) => return Err(lost(format!("{address}: {e}"))),
        };
        drop(reader);
        stream.set_read_timeout(None).map_err(io_error)?;
        let mut io = Connection::new(stream).map_err(io_error)?;
        io.join_replies();
        let session = EventSession {
            io,
            registry_token: None,
            next_request: 1,
            next_txn: 1,
            in_flight: HashMap::new(),
            scans: HashSet::new(),
            streamed: HashSet::new(),
            lost: None,
            hello,
        };
        Ok((session, hello.serving))
    }

    /// Connects to the data node at `address` whatever it serves, trying once (its handshake
    /// and its hello each allowed half a second): for a front end looking for replicas to send
    /// READ_BACKUP reads to (`hello` says whether it serves them).
    pub fn connect_node(address: &str) -> Result<EventSession> {
        let timeout = crate::connection::ATTEMPT_TIMEOUT;
        EventSession::connect_one(address, None, timeout).map(|(session, _)| session)
    }

    /// What the data node said of itself when this session connected.
    pub fn hello(&self) -> NodeHello {
        self.hello
    }

    /// Puts the connection into the caller's poll under `token` (readable; writable too while
    /// output waits).
    pub fn register(&mut self, registry: &Registry, token: Token) -> Result<()> {
        self.io
            .register(registry, token)
            .map_err(|e| lost(format!("register: {e}")))?;
        self.registry_token = Some(token);
        Ok(())
    }

    /// Takes the connection out of the caller's poll (after it failed, so a closed socket does
    /// not keep waking the loop).
    pub fn deregister(&mut self, registry: &Registry) {
        if self.registry_token.take().is_some() {
            self.io.deregister(registry);
        }
    }

    /// Whether the connection is gone; every later request fails, so the holder connects again.
    pub fn is_lost(&self) -> bool {
        self.lost.is_some()
    }

    /// Replaces this session with a new connection to `address`, registered in the same poll
    /// under `token` (a front end whose data node came back). The caller has completed what
    /// was in flight on the old connection (`abandon`); on failure this session is unchanged.
    pub fn reconnect(
        &mut self,
        address: &str,
        timeout: Duration,
        registry: &Registry,
        token: Token,
    ) -> Result<()> {
        let mut fresh = EventSession::connect(address, timeout)?;
        fresh.register(registry, token)?;
        self.deregister(registry);
        *self = fresh;
        Ok(())
    }

    fn check(&self) -> Result<()> {
        match &self.lost {
            Some(why) => Err(lost(why.clone())),
            None => Ok(()),
        }
    }

    /// Queues one transaction (its operations, then `exec`); `token` comes back with its result.
    /// Nothing is written until `flush`.
    pub fn prepare(
        &mut self,
        token: u64,
        operations: Vec<Operation>,
        exec: ExecType,
    ) -> Result<()> {
        self.check()?;
        let out = self.io.output();
        let start = out.len();
        let request = self.next_request;
        Message::Execute {
            transaction: self.next_txn,
            statement: 0,
            keep_from: 0,
            exec,
            operations,
        }
        .write_frame(out, 0, 0, request);
        check_frame(out, start)?;
        self.next_request += 1;
        self.next_txn += 1;
        self.in_flight.insert(request, token);
        Ok(())
    }

    /// Queues one scan; `token` comes back with all its rows (`Reply::Rows`) when they fit in
    /// one batch, else with the first batch (`Reply::More`), the scan ended in the data node.
    /// Nothing is written until `flush`.
    pub fn prepare_scan(&mut self, token: u64, request: ScanRequest) -> Result<()> {
        self.queue_scan(token, request, false)
    }

    /// Queues one scan whose batches come back one at a time: each but the last as
    /// `Reply::Part`, after which the data node waits for `scan_next` (or `scan_close`), the
    /// last as `Reply::Rows`. The caller holds one batch at a time, and a slow reader of its
    /// rows holds the scan back. Nothing is written until `flush`.
    pub fn prepare_streamed_scan(&mut self, token: u64, request: ScanRequest) -> Result<()> {
        self.queue_scan(token, request, true)
    }

    fn queue_scan(&mut self, token: u64, request: ScanRequest, streamed: bool) -> Result<()> {
        self.check()?;
        let out = self.io.output();
        let start = out.len();
        let id = self.next_request;
        Message::Scan(request).write_frame(out, 0, 0, id);
        check_frame(out, start)?;
        self.next_request += 1;
        self.in_flight.insert(id, token);
        self.scans.insert(id);
        if streamed {
            self.streamed.insert(id);
        }
        Ok(())
    }

    /// The request id of `token`'s streamed scan on this connection, if it has one open.
    fn streamed_id(&self, token: u64) -> Option<u64> {
        self.in_flight
            .iter()
            .find(|(id, t)| **t == token && self.streamed.contains(id))
            .map(|(id, _)| *id)
    }

    /// Asks for the next batch of `token`'s streamed scan, after a `Reply::Part`; false when
    /// this connection holds no such scan (or is lost). Written with the next `flush`.
    pub fn scan_next(&mut self, token: u64) -> bool {
        match (self.lost.is_none(), self.streamed_id(token)) {
            (true, Some(id)) => {
                Message::ScanNext.write_frame(self.io.output(), 0, 0, id);
                true
            }
            _ => false,
        }
    }

    /// Ends `token`'s streamed scan, after a `Reply::Part`, with no more of its rows asked
    /// for; false when this connection holds no such scan. Written with the next `flush`.
    pub fn scan_close(&mut self, token: u64) -> bool {
        let Some(id) = self.streamed_id(token) else {
            return false;
        };
        self.in_flight.remove(&id);
        self.scans.remove(&id);
        self.streamed.remove(&id);
        if self.lost.is_none() {
            // The data node's empty last frame then finds no request.
            Message::ScanClose.write_frame(self.io.output(), 0, 0, id);
        }
        true
    }

    /// Writes what the socket takes of the queued requests; the rest goes when the poll reports
    /// the socket writable (call `flush` again then).
    pub fn flush(&mut self, registry: &Registry) -> Result<()> {
        self.check()?;
        let Some(token) = self.registry_token else {
            return Err(lost("flush before register"));
        };
        if let Err(e) = self.io.flush(registry, token) {
            return Err(self.fail(format!("write: {e}")));
        }
        Ok(())
    }

    /// Transactions sent and not yet completed.
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// Reads every reply that has arrived; returns the transactions they complete. On a lost
    /// connection, every transaction in flight completes with the error. For a caller that
    /// queues no scans.
    pub fn read(&mut self) -> Vec<Completion> {
        self.read_replies()
            .into_iter()
            .map(|(token, reply)| {
                let ops = reply.and_then(|r| match r {
                    Reply::Ops(ops) => Ok(ops),
                    Reply::Rows(_) | Reply::More(_) | Reply::Part(_) => {
                        Err(lost("scan reply to a caller of read()"))
                    }
                });
                (token, ops)
            })
            .collect()
    }

    /// Reads every reply that has arrived; returns the transactions and scans they complete.
    /// On a lost connection, everything in flight completes with the error.
    pub fn read_replies(&mut self) -> Vec<(u64, Result<Reply>)> {
        let mut done = Vec::new();
        if self.lost.is_some() {
            return done;
        }
        let in_flight = &mut self.in_flight;
        let scans = &mut self.scans;
        let streamed = &mut self.streamed;
        let mut closes = Vec::new();
        let read = self.io.read_frames(|header, message| {
            let id = header.request_id;
            let last = header.flags & FLAG_LAST != 0;
            if scans.contains(&id) {
                // A streamed scan's batch with more to come: it stays open.
                let part = !last && streamed.contains(&id);
                let reply = match message {
                    Message::ScanRows { rows } if part => {
                        if let Some(token) = in_flight.get(&id) {
                            done.push((*token, Ok(Reply::Part(rows))));
                        }
                        return;
                    }
                    Message::ScanRows { rows } if last => Ok(Reply::Rows(rows)),
                    Message::ScanRows { rows } => {
                        // Ended here: the data node's empty last frame finds no request.
                        closes.push(id);
                        Ok(Reply::More(rows))
                    }
                    // A failure ends the scan whether or not its frame says so.
                    Message::Failure(e) => Err(ClientError::Failed(e)),
                    other => Err(unexpected(&other)),
                };
                scans.remove(&id);
                streamed.remove(&id);
                if let Some(token) = in_flight.remove(&id) {
                    done.push((token, reply));
                }
                return;
            }
            if !last {
                return;
            }
            let Some(token) = in_flight.remove(&id) else {
                return;
            };
            done.push((token, outcome(message).map(Reply::Ops)));
        });
        for id in closes {
            // Written with the next flush (the caller's, or the one after its next request).
            Message::ScanClose.write_frame(self.io.output(), 0, 0, id);
        }
        let why = match read {
            Ok(ReadState::Open | ReadState::Stopped) => return done,
            Ok(ReadState::Closed) => "closed by the data node".to_string(),
            Err(e) => e.to_string(),
        };
        self.fail(why);
        done.extend(
            self.abandon()
                .into_iter()
                .map(|(t, r)| (t, r.map(Reply::Ops))),
        );
        done
    }

    /// Marks the connection failed; the error every later call answers.
    fn fail(&mut self, why: String) -> ClientError {
        self.io.shutdown();
        let why = self.lost.get_or_insert(why).clone();
        lost(why)
    }

    /// Completions of every transaction in flight, failed: for a caller that gives up on the
    /// connection (a write failure already reported by `flush`).
    pub fn abandon(&mut self) -> Vec<Completion> {
        let error = lost(self.lost.clone().unwrap_or_else(|| "abandoned".into()));
        self.scans.clear();
        self.streamed.clear();
        self.in_flight
            .drain()
            .map(|(_, t)| (t, Err(error.clone())))
            .collect()
    }
}
