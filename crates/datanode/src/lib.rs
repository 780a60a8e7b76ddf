//! A Cairn data node: worker threads that each own a set of partitions and serve a share of the
//! API connections, each connection with its transaction coordinator, and the acceptor that hands
//! new connections to workers.
//!
//! It is not: a place that parses SQL or any front-end protocol, or code that API nodes link (they
//! reach it only through the `client` crate over the transport). Partition rows are touched only by
//! their owning worker thread; everything else reaches them through the workers' queues.

pub mod catalog;
pub mod coordinator;
pub mod event_loop;
pub mod messages;
pub mod prepare;
pub mod worker;

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, RwLock};
use std::thread::JoinHandle;
use std::time::Duration;

use base::{limits, Error, ErrorCode, TableDef};
use tracing::{info, warn};
use wire::Message;

use crate::catalog::Catalog;
use crate::event_loop::{EventLoop, WorkerHandle};
use crate::messages::ToWorker;
use crate::worker::Worker;

/// Settings of one data node.
#[derive(Debug, Clone)]
pub struct DataNodeConfig {
    pub node_id: u32,
    pub cluster_id: u32,
    /// Address to listen on for API connections, e.g. "127.0.0.1:2202" (port 0 picks one).
    pub listen: String,
    /// Worker threads; each owns partitions and serves connections. 0 means cores - 1, at least 1.
    pub workers: usize,
    /// How long a row-lock wait may take before the operation fails with a temporary error.
    pub lock_wait_timeout: Duration,
    /// How long a worker keeps polling after its last piece of work before it sleeps (NDB's spin
    /// time); zero sleeps at once, saving CPU at the cost of a wake-up per request.
    pub worker_spin: Duration,
}

impl Default for DataNodeConfig {
    fn default() -> Self {
        DataNodeConfig {
            node_id: 1,
            cluster_id: 0,
            listen: "127.0.0.1:2202".into(),
            workers: 0,
            lock_wait_timeout: Duration::from_millis(1200),
            worker_spin: Duration::from_micros(50),
        }
    }
}

/// State every worker and coordinator shares: the catalog and the ways to reach each worker.
pub struct Shared {
    pub node_id: u32,
    pub cluster_id: u32,
    pub catalog: RwLock<Catalog>,
    pub workers: Vec<WorkerHandle>,
    pub next_txn: AtomicU64,
    pub stopping: AtomicBool,
    connections: AtomicUsize,
}

impl Shared {
    pub fn worker_count(&self) -> usize {
        self.workers.len()
    }

    /// The partitions of `table` that `worker` owns: partition p lives on worker p % workers.
    pub fn partitions_of(&self, table: &TableDef, worker: usize) -> Vec<u32> {
        (0..table.partition_count)
            .filter(|p| *p as usize % self.workers.len() == worker)
            .collect()
    }

    /// Registers a table in the catalog; returns it and its hidden index tables. The coordinator
    /// then has every worker create its partitions before it answers.
    pub fn register_table(&self, def: TableDef) -> Result<Vec<Arc<TableDef>>, Error> {
        let created = self
            .catalog
            .write()
            .map_err(|_| Error::new(ErrorCode::Internal, "catalog poisoned"))?
            .create(def, self.workers.len() as u32)?;
        info!(table = %created[0].name, id = created[0].id, partitions = created[0].partition_count, "created table");
        Ok(created)
    }

    /// Removes a table and its hidden index tables from the catalog; returns their ids.
    pub fn unregister_table(&self, name: &str) -> Result<Vec<u32>, Error> {
        let ids = self
            .catalog
            .write()
            .map_err(|_| Error::new(ErrorCode::Internal, "catalog poisoned"))?
            .drop_table(name)?;
        info!(table = %name, "dropped table");
        Ok(ids)
    }

    pub fn table_info(&self, name: &str) -> Option<Message> {
        let catalog = self.catalog.read().ok()?;
        let entry = catalog.by_name(name).filter(|t| t.def.index_of.is_none())?;
        Some(Message::TableInfo {
            table: (*entry.def).clone(),
            index_tables: entry
                .unique_tables
                .iter()
                .flatten()
                .map(|t| (**t).clone())
                .collect(),
        })
    }

    pub(crate) fn connection_closed(&self) {
        self.connections.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A running data node.
pub struct DataNode {
    shared: Arc<Shared>,
    address: SocketAddr,
    acceptor: Option<JoinHandle<()>>,
    workers: Vec<JoinHandle<()>>,
}

impl DataNode {
    /// Starts the workers and the listener; returns once the listener accepts connections.
    pub fn start(config: DataNodeConfig) -> std::io::Result<DataNode> {
        let worker_count = match config.workers {
            0 => {
                std::thread::available_parallelism().map_or(1, |n| n.get().saturating_sub(1).max(1))
            }
            n => n.min(limits::WORKERS_MAX),
        };
        let mut handles = Vec::with_capacity(worker_count);
        let mut loops = Vec::with_capacity(worker_count);
        for _ in 0..worker_count {
            let poll = mio::Poll::new()?;
            let (tx, rx) = mpsc::channel();
            handles.push(WorkerHandle::new(tx, &poll)?);
            loops.push((poll, rx));
        }
        let shared = Arc::new(Shared {
            node_id: config.node_id,
            cluster_id: config.cluster_id,
            catalog: RwLock::new(Catalog::default()),
            workers: handles,
            next_txn: AtomicU64::new(1),
            stopping: AtomicBool::new(false),
            connections: AtomicUsize::new(0),
        });
        let mut workers = Vec::with_capacity(worker_count);
        for (w, (poll, rx)) in loops.into_iter().enumerate() {
            let worker = Worker::new(config.lock_wait_timeout, config.cluster_id);
            let event_loop =
                EventLoop::new(w, shared.clone(), worker, poll, rx, config.worker_spin);
            workers.push(
                std::thread::Builder::new()
                    .name(format!("worker-{w}"))
                    .spawn(move || event_loop.run())?,
            );
        }
        let listener = transport::listen(&config.listen)?;
        let address = listener.local_addr()?;
        let acceptor = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("acceptor".into())
                .spawn(move || accept_loop(listener, shared))?
        };
        info!(%address, workers = worker_count, "data node listening");
        Ok(DataNode {
            shared,
            address,
            acceptor: Some(acceptor),
            workers,
        })
    }

    pub fn address(&self) -> SocketAddr {
        self.address
    }

    pub fn worker_count(&self) -> usize {
        self.shared.workers.len()
    }

    /// Stops accepting, closes every connection, stops the workers and waits for the threads.
    pub fn stop(mut self) {
        self.shared.stopping.store(true, Ordering::SeqCst);
        // Wake the acceptor blocked in accept().
        let _ = TcpStream::connect_timeout(&self.address, Duration::from_secs(1));
        if let Some(a) = self.acceptor.take() {
            let _ = a.join();
        }
        for w in &self.shared.workers {
            w.send(ToWorker::Stop);
        }
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
        info!("data node stopped");
    }
}

/// Accepts API connections and deals them to the workers in turn.
fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    let mut next = 0usize;
    for stream in listener.incoming() {
        if shared.stopping.load(Ordering::SeqCst) {
            return;
        }
        let stream = match stream {
            Ok(s) => s,
            Err(e) => {
                warn!("accept failed: {e}");
                continue;
            }
        };
        if shared.connections.load(Ordering::Relaxed) >= limits::CONNECTIONS_MAX {
            warn!(
                "refusing connection: {} connections open",
                limits::CONNECTIONS_MAX
            );
            continue;
        }
        shared.connections.fetch_add(1, Ordering::Relaxed);
        let worker = next % shared.workers.len();
        next = next.wrapping_add(1);
        if !shared.workers[worker].send(ToWorker::Connection(stream)) {
            shared.connection_closed();
        }
    }
}
