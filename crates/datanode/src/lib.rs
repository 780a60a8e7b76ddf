//! A Cairn data node: worker threads that each own a set of partitions, one transaction coordinator
//! per API connection, and the listener that accepts those connections over the transport.
//!
//! It is not: a place that parses SQL or any front-end protocol, or code that API nodes link (they
//! reach it only through the `client` crate over the transport). Partition rows are touched only by
//! their owning worker thread; everything else talks to workers through their queues.

pub mod catalog;
pub mod coordinator;
pub mod messages;
pub mod prepare;
pub mod worker;

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, SyncSender};
use std::sync::{Arc, Mutex, RwLock};
use std::thread::JoinHandle;
use std::time::Duration;

use base::{limits, Error, ErrorCode, TableDef};
use tracing::{info, warn};
use transport::FrameWriter;
use wire::Message;

use crate::catalog::Catalog;
use crate::coordinator::Coordinator;
use crate::messages::{Event, ToWorker};
use crate::worker::Worker;

/// Settings of one data node.
#[derive(Debug, Clone)]
pub struct DataNodeConfig {
    pub node_id: u32,
    pub cluster_id: u32,
    /// Address to listen on for API connections, e.g. "127.0.0.1:2202" (port 0 picks one).
    pub listen: String,
    /// Worker threads; each owns partitions. 0 means cores - 1, at least 1.
    pub workers: usize,
    /// How long a row-lock wait may take before the operation fails with a temporary error.
    pub lock_wait_timeout: Duration,
    /// Capacity of each worker's request queue.
    pub worker_queue_capacity: usize,
    /// How long a worker polls its queue before it sleeps (NDB's spin time), while work keeps
    /// arriving soon after it slept; zero sleeps at once, saving CPU at the cost of a wake-up per
    /// request.
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
            worker_queue_capacity: 65_536,
            worker_spin: Duration::from_micros(50),
        }
    }
}

/// State every coordinator shares: the catalog and the worker queues.
pub struct Shared {
    pub node_id: u32,
    pub cluster_id: u32,
    pub catalog: RwLock<Catalog>,
    pub workers: Vec<SyncSender<ToWorker>>,
    pub next_txn: AtomicU64,
    pub stopping: AtomicBool,
    connections: AtomicUsize,
    ddl: Mutex<()>,
}

impl Shared {
    fn partitions_of(&self, table: &TableDef, worker: usize) -> Vec<u32> {
        (0..table.partition_count)
            .filter(|p| *p as usize % self.workers.len() == worker)
            .collect()
    }

    /// Registers a table and creates its partitions on the workers before answering.
    pub fn create_table(&self, def: TableDef) -> Result<Message, Error> {
        let _ddl = self
            .ddl
            .lock()
            .map_err(|_| Error::new(ErrorCode::Internal, "ddl lock poisoned"))?;
        let created = self
            .catalog
            .write()
            .map_err(|_| Error::new(ErrorCode::Internal, "catalog poisoned"))?
            .create(def, self.workers.len() as u32)?;
        let (tx, rx) = mpsc::channel();
        for (w, worker) in self.workers.iter().enumerate() {
            let tables = created
                .iter()
                .map(|t| (t.clone(), self.partitions_of(t, w)))
                .collect();
            worker
                .send(ToWorker::CreateTables {
                    tables,
                    reply: tx.clone(),
                })
                .map_err(|_| Error::new(ErrorCode::ShuttingDown, "worker stopped"))?;
        }
        for _ in &self.workers {
            let _ = rx.recv();
        }
        info!(table = %created[0].name, id = created[0].id, partitions = created[0].partition_count, "created table");
        Ok(Message::TableInfo {
            table: (*created[0]).clone(),
            index_tables: created[1..].iter().map(|t| (**t).clone()).collect(),
        })
    }

    pub fn drop_table(&self, name: &str) -> Result<(), Error> {
        let _ddl = self
            .ddl
            .lock()
            .map_err(|_| Error::new(ErrorCode::Internal, "ddl lock poisoned"))?;
        let ids = self
            .catalog
            .write()
            .map_err(|_| Error::new(ErrorCode::Internal, "catalog poisoned"))?
            .drop_table(name)?;
        let (tx, rx) = mpsc::channel();
        for worker in &self.workers {
            let _ = worker.send(ToWorker::DropTables {
                ids: ids.clone(),
                reply: tx.clone(),
            });
        }
        for _ in &self.workers {
            let _ = rx.recv();
        }
        info!(table = %name, "dropped table");
        Ok(())
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

    pub fn status(&self) -> wire::NodeStatus {
        coordinator::node_status(self)
    }
}

/// A running data node.
pub struct DataNode {
    shared: Arc<Shared>,
    address: SocketAddr,
    acceptor: Option<JoinHandle<()>>,
    workers: Vec<JoinHandle<()>>,
    connections: Arc<Mutex<Vec<FrameWriter>>>,
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
        let mut senders = Vec::with_capacity(worker_count);
        let mut workers = Vec::with_capacity(worker_count);
        for w in 0..worker_count {
            let (tx, rx) = mpsc::sync_channel(config.worker_queue_capacity);
            senders.push(tx);
            let worker = Worker::new(config.lock_wait_timeout, config.worker_spin);
            workers.push(
                std::thread::Builder::new()
                    .name(format!("worker-{w}"))
                    .spawn(move || worker.run(rx))?,
            );
        }
        let shared = Arc::new(Shared {
            node_id: config.node_id,
            cluster_id: config.cluster_id,
            catalog: RwLock::new(Catalog::default()),
            workers: senders,
            next_txn: AtomicU64::new(1),
            stopping: AtomicBool::new(false),
            connections: AtomicUsize::new(0),
            ddl: Mutex::new(()),
        });
        let listener = transport::listen(&config.listen)?;
        let address = listener.local_addr()?;
        let connections = Arc::new(Mutex::new(Vec::new()));
        let acceptor = {
            let shared = shared.clone();
            let connections = connections.clone();
            std::thread::Builder::new()
                .name("acceptor".into())
                .spawn(move || accept_loop(listener, shared, connections))?
        };
        info!(%address, workers = worker_count, "data node listening");
        Ok(DataNode {
            shared,
            address,
            acceptor: Some(acceptor),
            workers,
            connections,
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
        if let Ok(conns) = self.connections.lock() {
            for c in conns.iter() {
                c.shutdown();
            }
        }
        for w in &self.shared.workers {
            let _ = w.send(ToWorker::Stop);
        }
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
        info!("data node stopped");
    }
}

fn accept_loop(
    listener: TcpListener,
    shared: Arc<Shared>,
    connections: Arc<Mutex<Vec<FrameWriter>>>,
) {
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
        let peer = stream
            .peer_addr()
            .map(|a| a.to_string())
            .unwrap_or_default();
        let (mut reader, writer) = match transport::split(stream) {
            Ok(pair) => pair,
            Err(e) => {
                warn!(%peer, "could not set up connection: {e}");
                continue;
            }
        };
        if let (Ok(mut list), Ok(w)) = (connections.lock(), writer.try_clone()) {
            list.retain(|c| c.peer().is_some());
            list.push(w);
        }
        shared.connections.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::channel::<Event>();
        let coordinator = Arc::new(Mutex::new(Coordinator::new(
            shared.clone(),
            tx.clone(),
            writer,
            peer.clone(),
        )));
        let reader_coordinator = coordinator.clone();
        let reader_peer = peer.clone();
        let spawned = std::thread::Builder::new()
            .name("conn-reader".into())
            .spawn(move || {
                let why = loop {
                    match reader.read() {
                        Ok(Some((header, message))) => {
                            let Ok(mut c) = reader_coordinator.lock() else {
                                break "coordinator poisoned".to_string();
                            };
                            c.on_frame(header, message);
                            if !c.flush() {
                                break "write failed".to_string();
                            }
                        }
                        Ok(None) => break "peer closed".to_string(),
                        Err(e) => {
                            warn!(peer = %reader_peer, "closing connection: {e}");
                            break e.to_string();
                        }
                    }
                };
                if let Ok(mut c) = reader_coordinator.lock() {
                    c.close();
                }
                let _ = tx.send(Event::Closed(why));
            });
        if let Err(e) = spawned {
            warn!(%peer, "could not start connection reader: {e}");
            continue;
        }
        let counter = shared.clone();
        let _ = std::thread::Builder::new()
            .name("coordinator".into())
            .spawn(move || {
                coordinator::run_completions(coordinator, rx);
                counter.connections.fetch_sub(1, Ordering::Relaxed);
            });
    }
}
