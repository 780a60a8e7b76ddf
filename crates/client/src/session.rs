//! Many transactions in flight from one thread, as NDB's executeAsynchPrepare / sendPollNdb:
//! `prepare` queues a transaction, `send` writes every queued frame in one write, `poll` collects
//! completions.

use std::collections::HashMap;
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

use wire::{ExecType, ExecuteOutcome, Message, OpResult, Operation};

use crate::connection::{unexpected, Cluster, Delivery};
use crate::{ClientError, Result};

/// A completed asynchronous transaction: the token `prepare` returned and its outcome.
pub type Completion = (u64, Result<Vec<OpResult>>);

/// Many transactions in flight from one thread. Its operations go as given: a long TEXT or
/// BLOB value is neither cut into parts nor joined (`crate::has_parts` finds the references;
/// `Transaction` does both).
pub struct AsyncSession {
    cluster: Cluster,
    sink: Sender<Delivery>,
    replies: Receiver<Delivery>,
    out: Vec<u8>,
    /// Request id -> caller's token.
    in_flight: HashMap<u64, u64>,
}

impl AsyncSession {
    pub fn new(cluster: &Cluster) -> AsyncSession {
        let (sink, replies) = mpsc::channel();
        AsyncSession {
            cluster: cluster.clone(),
            sink,
            replies,
            out: Vec::with_capacity(64 * 1024),
            in_flight: HashMap::new(),
        }
    }

    /// Queues one transaction (its operations, then `exec`); `token` comes back with its result.
    pub fn prepare(
        &mut self,
        token: u64,
        operations: Vec<Operation>,
        exec: ExecType,
    ) -> Result<()> {
        let transaction = self
            .cluster
            .inner
            .next_txn
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let id = self.cluster.register(self.sink.clone())?;
        self.cluster.frame(
            &Message::Execute {
                transaction,
                statement: 0,
                keep_from: 0,
                exec,
                operations,
            },
            id,
            &mut self.out,
        )?;
        self.in_flight.insert(id, token);
        Ok(())
    }

    /// Sends every prepared transaction in one write.
    pub fn send(&mut self) -> Result<()> {
        if self.out.is_empty() {
            return Ok(());
        }
        let sent = self.cluster.send_frames(&self.out);
        self.out.clear();
        sent
    }

    /// Transactions sent and not yet completed.
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// Waits until at least `min` transactions completed or `timeout` passed; returns those done.
    pub fn poll(&mut self, min: usize, timeout: Duration) -> Result<Vec<Completion>> {
        let deadline = Instant::now() + timeout;
        let mut done = Vec::new();
        while !self.in_flight.is_empty() {
            // Once `min` are done, take only what has already arrived.
            let until = if done.len() < min {
                deadline
            } else {
                Instant::now()
            };
            let Some((header, message)) = self.cluster.wait(&self.replies, Some(until))? else {
                break;
            };
            let Some(token) = self.in_flight.remove(&header.request_id) else {
                continue;
            };
            done.push((token, outcome(message)));
        }
        Ok(done)
    }
}

/// The result an `Execute` reply carries.
pub(crate) fn outcome(message: Message) -> Result<Vec<OpResult>> {
    match message {
        Message::ExecuteReply(ExecuteOutcome::Ok(results)) => Ok(results),
        Message::ExecuteReply(ExecuteOutcome::Aborted { op_index, error }) => {
            Err(ClientError::Aborted { op_index, error })
        }
        Message::ExecuteReply(ExecuteOutcome::StatementUndone { op_index, error }) => {
            Err(ClientError::StatementUndone { op_index, error })
        }
        Message::Failure(e) => Err(ClientError::Failed(e)),
        other => Err(unexpected(&other)),
    }
}
