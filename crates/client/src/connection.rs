//! One connection to a data node: a writer shared by callers, a receiver thread that matches reply
//! frames to waiting requests by request id, and the table metadata cache.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base::{Error, ErrorCode, TableDef};
use transport::{FrameReader, FrameWriter};
use wire::frame::FLAG_LAST;
use wire::{FrameHeader, Message, NodeStatus};

use crate::table::{Scan, Table};
use crate::transaction::Transaction;
use crate::{ClientError, Result};

/// A reply frame delivered to the request that waits for it.
pub(crate) type Reply = Result<(FrameHeader, Message)>;

pub(crate) struct Inner {
    writer: Mutex<FrameWriter>,
    waiters: Mutex<HashMap<u64, Sender<Reply>>>,
    next_request: AtomicU64,
    pub(crate) next_txn: AtomicU64,
    tables: Mutex<HashMap<String, Table>>,
    closed: AtomicBool,
    pub(crate) cluster_id: u32,
}

/// A connection to a Cairn cluster (today: one data node). Cheap to clone; clones share the
/// connection and may be used from many threads at once.
#[derive(Clone)]
pub struct Cluster {
    pub(crate) inner: Arc<Inner>,
}

fn lost(why: impl Into<String>) -> ClientError {
    ClientError::ConnectionLost(why.into())
}

impl Cluster {
    /// Connects to a data node at `address` ("host:port"), retrying for up to 10 seconds.
    pub fn connect(address: &str) -> Result<Cluster> {
        Cluster::connect_timeout(address, Duration::from_secs(10))
    }

    pub fn connect_timeout(address: &str, timeout: Duration) -> Result<Cluster> {
        let (reader, writer) = transport::connect(address, timeout)
            .map_err(|e| lost(format!("connecting to {address}: {e}")))?;
        let inner = Arc::new(Inner {
            writer: Mutex::new(writer),
            waiters: Mutex::new(HashMap::new()),
            next_request: AtomicU64::new(1),
            next_txn: AtomicU64::new(1),
            tables: Mutex::new(HashMap::new()),
            closed: AtomicBool::new(false),
            cluster_id: 0,
        });
        let receiver = inner.clone();
        std::thread::Builder::new()
            .name("cairn-client-rx".into())
            .spawn(move || receive(reader, receiver))
            .map_err(|e| lost(format!("starting receiver: {e}")))?;
        let cluster = Cluster { inner };
        match cluster.call(&Message::Hello {
            client_name: "cairn-client".into(),
        })? {
            Message::HelloReply { .. } => {}
            other => return Err(unexpected(&other)),
        }
        Ok(cluster)
    }

    /// Registers a waiter for a new request id.
    pub(crate) fn register(&self, sink: Sender<Reply>) -> Result<u64> {
        if self.inner.closed.load(Ordering::Acquire) {
            return Err(lost("connection closed"));
        }
        let id = self.inner.next_request.fetch_add(1, Ordering::Relaxed);
        self.inner
            .waiters
            .lock()
            .map_err(|_| lost("poisoned"))?
            .insert(id, sink);
        Ok(id)
    }

    pub(crate) fn forget(&self, id: u64) {
        if let Ok(mut w) = self.inner.waiters.lock() {
            w.remove(&id);
        }
    }

    /// Writes a buffer of whole frames in one write.
    pub(crate) fn send_frames(&self, frames: &[u8]) -> Result<()> {
        let mut writer = self.inner.writer.lock().map_err(|_| lost("poisoned"))?;
        writer.send(frames).map_err(|e| lost(format!("write: {e}")))
    }

    /// Appends a request frame; refuses one the data node would reject for its size.
    pub(crate) fn frame(
        &self,
        message: &Message,
        request_id: u64,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let start = out.len();
        message.write_frame(out, self.inner.cluster_id, 0, request_id);
        let body = out.len() - start - wire::HEADER_BYTES;
        if body > base::limits::FRAME_BODY_BYTES_MAX as usize {
            out.truncate(start);
            self.forget(request_id);
            return Err(ClientError::Failed(Error::new(
                ErrorCode::LimitExceeded,
                format!(
                    "request of {body} bytes exceeds the frame limit of {} bytes",
                    base::limits::FRAME_BODY_BYTES_MAX
                ),
            )));
        }
        Ok(())
    }

    /// Sends one request and waits for its single reply.
    pub(crate) fn call(&self, message: &Message) -> Result<Message> {
        let (tx, rx) = mpsc::channel();
        let id = self.register(tx)?;
        let mut out = Vec::with_capacity(128);
        self.frame(message, id, &mut out)?;
        if let Err(e) = self.send_frames(&out) {
            self.forget(id);
            return Err(e);
        }
        let (_, reply) = rx.recv().map_err(|_| lost("connection closed"))??;
        match reply {
            Message::Failure(e) => Err(ClientError::Failed(e)),
            other => Ok(other),
        }
    }

    /// Sends a request whose reply may span several frames (scans) and gathers them.
    pub(crate) fn call_multi(
        &self,
        message: &Message,
        mut each: impl FnMut(Message) -> Result<()>,
    ) -> Result<()> {
        let (tx, rx) = mpsc::channel();
        let id = self.register(tx)?;
        let mut out = Vec::with_capacity(256);
        self.frame(message, id, &mut out)?;
        if let Err(e) = self.send_frames(&out) {
            self.forget(id);
            return Err(e);
        }
        loop {
            let (header, reply) = rx.recv().map_err(|_| lost("connection closed"))??;
            match reply {
                Message::Failure(e) => return Err(ClientError::Failed(e)),
                other => each(other)?,
            }
            if header.flags & FLAG_LAST != 0 {
                return Ok(());
            }
        }
    }

    /// Creates a table; returns its metadata with ids assigned.
    pub fn create_table(&self, def: TableDef) -> Result<Table> {
        match self.call(&Message::CreateTable(def))? {
            Message::TableInfo { table, .. } => {
                let t = Table::new(table);
                self.cache(&t);
                Ok(t)
            }
            other => Err(unexpected(&other)),
        }
    }

    pub fn drop_table(&self, name: &str) -> Result<()> {
        if let Ok(mut t) = self.inner.tables.lock() {
            t.remove(&name.to_ascii_lowercase());
        }
        match self.call(&Message::DropTable { name: name.into() })? {
            Message::Done => Ok(()),
            other => Err(unexpected(&other)),
        }
    }

    /// A table's metadata, from the cache or the data node.
    pub fn table(&self, name: &str) -> Result<Table> {
        if let Some(t) = self
            .inner
            .tables
            .lock()
            .ok()
            .and_then(|t| t.get(&name.to_ascii_lowercase()).cloned())
        {
            return Ok(t);
        }
        match self.call(&Message::GetTable { name: name.into() })? {
            Message::TableInfo { table, .. } => {
                let t = Table::new(table);
                self.cache(&t);
                Ok(t)
            }
            other => Err(unexpected(&other)),
        }
    }

    fn cache(&self, t: &Table) {
        if let Ok(mut tables) = self.inner.tables.lock() {
            tables.insert(t.def().name.to_ascii_lowercase(), t.clone());
        }
    }

    pub fn list_tables(&self) -> Result<Vec<String>> {
        match self.call(&Message::ListTables)? {
            Message::TableList { names } => Ok(names),
            other => Err(unexpected(&other)),
        }
    }

    pub fn status(&self) -> Result<NodeStatus> {
        match self.call(&Message::Status)? {
            Message::StatusReply(s) => Ok(s),
            other => Err(unexpected(&other)),
        }
    }

    /// One round trip with `payload` echoed back.
    pub fn ping(&self, payload: Vec<u8>) -> Result<()> {
        match self.call(&Message::Ping { payload })? {
            Message::Pong { .. } => Ok(()),
            other => Err(unexpected(&other)),
        }
    }

    /// Starts a transaction; nothing is sent until `execute`.
    pub fn transaction(&self) -> Transaction {
        Transaction::new(self.clone())
    }

    /// Runs a scan and returns its rows (projected columns, in the order asked for).
    pub fn scan(&self, table: &Table, scan: &Scan) -> Result<Vec<Vec<base::Value>>> {
        let request = scan.request(table)?;
        let mut rows = Vec::new();
        self.call_multi(&Message::Scan(request), |m| match m {
            Message::ScanRows { rows: batch } => {
                rows.extend(batch);
                Ok(())
            }
            other => Err(unexpected(&other)),
        })?;
        Ok(rows)
    }
}

pub(crate) fn unexpected(m: &Message) -> ClientError {
    ClientError::Failed(Error::new(
        ErrorCode::Protocol,
        format!("unexpected reply type {}", m.type_code()),
    ))
}

fn receive(mut reader: FrameReader, inner: Arc<Inner>) {
    let why = loop {
        match reader.read() {
            Ok(Some((header, message))) => {
                let last = header.flags & FLAG_LAST != 0;
                let sink = {
                    let Ok(mut waiters) = inner.waiters.lock() else {
                        break "poisoned".to_string();
                    };
                    if last {
                        waiters.remove(&header.request_id)
                    } else {
                        waiters.get(&header.request_id).cloned()
                    }
                };
                if let Some(sink) = sink {
                    let _ = sink.send(Ok((header, message)));
                }
            }
            Ok(None) => break "closed by the data node".to_string(),
            Err(e) => break e.to_string(),
        }
    };
    inner.closed.store(true, Ordering::Release);
    if let Ok(mut waiters) = inner.waiters.lock() {
        for (_, sink) in waiters.drain() {
            let _ = sink.send(Err(lost(why.clone())));
        }
    }
}
