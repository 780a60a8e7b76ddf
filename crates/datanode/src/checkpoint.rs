//! Local checkpoints: the checkpointer thread that writes every worker's partitions to disk in the
//! background (whole, or only the rows changed since the previous one), and the manifest that
//! names the checkpoint files and the redo position they cover, so a restart loads them and
//! replays only the redo after it, and older redo segments can be recycled.
//!
//! One checkpoint, step by step (the why of each is in ARCHITECTURE.md, "Checkpoints"):
//! 1. Mark: every worker answers its redo position P_w (all it logged so far lies before it).
//! 2. Cut: read the commit sequence C. Every record before some P_w has a sequence below C.
//! 3. Two barriers: every Commit with a sequence below C has been sent, then applied.
//! 4. Write: each worker writes its partitions a piece per loop turn; this thread appends the
//!    pieces to `lcp-<id>-<w>.ckpt` and fsyncs the files.
//! 5. Two barriers with fsync: every commit whose rows the files may hold is durable in full.
//! 6. Publish: the manifest (id, C, P_w, the chain of files) replaces the old one by rename and
//!    a directory fsync. Then workers may reuse redo segments before P_w, and files no longer
//!    in the chain are deleted.
//!
//! A restart loads the chain (the last full checkpoint, then the partial ones after it), then
//! replays the records from each P_w whose sequence is C or above.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use base::{Error, ErrorCode};
use storage::checkpoint::CheckpointFile;
use storage::redo::Position;
use tracing::{info, warn};

use crate::messages::{CheckpointReply, CheckpointStep, ToWorker};
use crate::Shared;

pub const MANIFEST_FILE: &str = "checkpoint";
const MANIFEST_MAGIC: &[u8; 8] = b"CAIRNMAN";
const MANIFEST_VERSION: u32 = 1;
/// Checkpoints in a chain (the full one and the partial ones after it) before the next is full
/// again: a restart reads at most this many files per worker.
pub const CHAIN_MAX: usize = 8;

/// One checkpoint in the manifest's chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link {
    pub id: u64,
    /// Workers that wrote it (one file each).
    pub workers: u32,
    pub full: bool,
}

/// The newest published checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Manifest {
    pub id: u64,
    /// Every commit with a lower sequence is in the files; replay starts at this sequence.
    pub cut: u64,
    /// The next transaction id to hand out when the checkpoint began (every id in the files is
    /// below it).
    pub transaction_max: u64,
    /// Per worker: where its redo replay starts.
    pub positions: Vec<Position>,
    /// The full checkpoint, then the partial ones after it, oldest first.
    pub chain: Vec<Link>,
    /// Per table id: the next AUTO_INCREMENT (or hidden key) value at the cut, above every
    /// value a row in the files can hold unless the redo after the cut holds that row too.
    pub counters: Vec<(u32, u64)>,
}

impl Manifest {
    fn encode(&self) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(MANIFEST_MAGIC);
        b.extend_from_slice(&MANIFEST_VERSION.to_le_bytes());
        b.extend_from_slice(&self.id.to_le_bytes());
        b.extend_from_slice(&self.cut.to_le_bytes());
        b.extend_from_slice(&self.transaction_max.to_le_bytes());
        b.extend_from_slice(&(self.positions.len() as u32).to_le_bytes());
        for p in &self.positions {
            b.extend_from_slice(&p.segment.to_le_bytes());
            b.extend_from_slice(&p.offset.to_le_bytes());
        }
        b.extend_from_slice(&(self.chain.len() as u32).to_le_bytes());
        for l in &self.chain {
            b.extend_from_slice(&l.id.to_le_bytes());
            b.extend_from_slice(&l.workers.to_le_bytes());
            b.push(l.full as u8);
        }
        b.extend_from_slice(&(self.counters.len() as u32).to_le_bytes());
        for (table, next) in &self.counters {
            b.extend_from_slice(&table.to_le_bytes());
            b.extend_from_slice(&next.to_le_bytes());
        }
        let crc = crc32c::crc32c(&b);
        b.extend_from_slice(&crc.to_le_bytes());
        b
    }

    fn decode(bytes: &[u8]) -> Result<Manifest, String> {
        if bytes.len() < 12 + 4 || &bytes[..8] != MANIFEST_MAGIC {
            return Err("bad header".into());
        }
        let (body, crc) = bytes.split_at(bytes.len() - 4);
        if crc32c::crc32c(body) != u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]) {
            return Err("checksum mismatch".into());
        }
        let mut r = wire::codec::Reader::new(&body[8..]);
        let e = |e: wire::DecodeError| e.to_string();
        let version = r.u32().map_err(e)?;
        if version != MANIFEST_VERSION {
            return Err(format!("unsupported version {version}"));
        }
        let id = r.u64().map_err(e)?;
        let cut = r.u64().map_err(e)?;
        let transaction_max = r.u64().map_err(e)?;
        let workers = r
            .count("workers", base::limits::WORKERS_MAX, 16)
            .map_err(e)?;
        let mut positions = Vec::with_capacity(workers);
        for _ in 0..workers {
            positions.push(Position {
                segment: r.u64().map_err(e)?,
                offset: r.u64().map_err(e)?,
            });
        }
        let links = r.count("chain", CHAIN_MAX, 13).map_err(e)?;
        let mut chain = Vec::with_capacity(links);
        for _ in 0..links {
            chain.push(Link {
                id: r.u64().map_err(e)?,
                workers: r.u32().map_err(e)?,
                full: r.u8().map_err(e)? != 0,
            });
        }
        if chain.first().is_some_and(|l| !l.full) || chain.iter().skip(1).any(|l| l.full) {
            return Err("the chain does not start with its only full checkpoint".into());
        }
        let tables = r
            .count("counters", base::limits::TABLES_MAX, 12)
            .map_err(e)?;
        let mut counters = Vec::with_capacity(tables);
        for _ in 0..tables {
            counters.push((r.u32().map_err(e)?, r.u64().map_err(e)?));
        }
        r.finish().map_err(e)?;
        Ok(Manifest {
            id,
            cut,
            transaction_max,
            positions,
            chain,
            counters,
        })
    }

    /// The manifest in `dir`, if a checkpoint was ever published there.
    pub fn load(dir: &Path) -> Result<Option<Manifest>, Error> {
        let path = dir.join(MANIFEST_FILE);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => {
                return Err(Error::new(
                    ErrorCode::Internal,
                    format!("reading {}: {e}", path.display()),
                ))
            }
        };
        Manifest::decode(&bytes).map(Some).map_err(|what| {
            Error::new(
                ErrorCode::Internal,
                format!("checkpoint manifest {} is corrupt: {what}", path.display()),
            )
        })
    }

    /// Replaces the manifest durably: temporary file, fsync, rename, directory fsync.
    fn save(&self, dir: &Path) -> std::io::Result<()> {
        use std::io::Write;
        let tmp = dir.join(format!("{MANIFEST_FILE}.tmp"));
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(&self.encode())?;
        file.sync_all()?;
        std::fs::rename(&tmp, dir.join(MANIFEST_FILE))?;
        storage::redo::sync_directory(&dir.join(MANIFEST_FILE))
    }

    /// The checkpoint files the chain needs.
    pub fn files(&self, dir: &Path) -> Vec<(Link, u32, PathBuf)> {
        self.chain
            .iter()
            .flat_map(|l| {
                (0..l.workers).map(move |w| (*l, w, storage::checkpoint::file_path(dir, l.id, w)))
            })
            .collect()
    }
}

/// When checkpoints run.
#[derive(Debug, Clone, Copy)]
pub struct CheckpointPolicy {
    /// Start one once this many redo bytes were written since the last one began.
    pub redo_bytes: u64,
}

/// What one checkpoint did.
#[derive(Debug, Clone)]
pub struct Report {
    pub id: u64,
    pub full: bool,
    pub entries: u64,
    pub bytes: u64,
    pub seconds: f64,
}

/// Called with the outcome of a checkpoint someone asked for.
pub type Done = Box<dyn FnOnce(Result<Report, String>) + Send>;

/// What the checkpointer thread is asked to do.
pub enum Control {
    Now(Done),
    Stop,
}

/// The running checkpointer thread.
pub struct Checkpointer {
    control: Sender<Control>,
    thread: Option<JoinHandle<()>>,
}

impl Checkpointer {
    pub fn spawn(
        shared: Arc<Shared>,
        dir: PathBuf,
        policy: CheckpointPolicy,
        last: Option<Manifest>,
    ) -> std::io::Result<Checkpointer> {
        let (control, rx) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("checkpointer".into())
            .spawn(move || {
                let mut state = State {
                    shared,
                    dir,
                    last,
                    full_needed: true,
                    publishing: false,
                    next_id: 0,
                };
                state.run(rx, policy)
            })?;
        Ok(Checkpointer {
            control,
            thread: Some(thread),
        })
    }

    /// Runs a checkpoint now and waits for it.
    pub fn checkpoint(&self) -> Result<Report, String> {
        let (tx, rx) = mpsc::channel();
        self.control
            .send(Control::Now(Box::new(move |r| {
                let _ = tx.send(r);
            })))
            .map_err(|_| "the checkpointer has stopped".to_string())?;
        rx.recv()
            .map_err(|_| "the checkpointer has stopped".to_string())?
    }

    /// The way to ask for a checkpoint without waiting (a coordinator's request).
    pub fn control(&self) -> Sender<Control> {
        self.control.clone()
    }

    pub fn stop(mut self) {
        let _ = self.control.send(Control::Stop);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

struct State {
    shared: Arc<Shared>,
    dir: PathBuf,
    last: Option<Manifest>,
    /// The first checkpoint after a start is full: partitions track changes only from then.
    full_needed: bool,
    /// The manifest naming this checkpoint's files is being written (or was).
    publishing: bool,
    /// The id the next checkpoint takes.
    next_id: u64,
}

/// How long a step may wait for the workers before the checkpoint is abandoned.
const STEP_TIMEOUT: Duration = Duration::from_secs(600);

impl State {
    fn run(&mut self, control: Receiver<Control>, policy: CheckpointPolicy) {
        let mut started_at_bytes = self.shared.redo_bytes.load(Ordering::Relaxed);
        loop {
            // Polled rather than signalled: a worker never waits on this thread.
            match control.recv_timeout(Duration::from_millis(20)) {
                Ok(Control::Stop) | Err(RecvTimeoutError::Disconnected) => return,
                Ok(Control::Now(done)) => {
                    started_at_bytes = self.shared.redo_bytes.load(Ordering::Relaxed);
                    done(self.checkpoint());
                }
                Err(RecvTimeoutError::Timeout) => {
                    let bytes = self.shared.redo_bytes.load(Ordering::Relaxed);
                    if bytes.saturating_sub(started_at_bytes) >= policy.redo_bytes {
                        started_at_bytes = bytes;
                        if let Err(why) = self.checkpoint() {
                            warn!("checkpoint abandoned: {why}");
                        }
                    }
                }
            }
            if self.shared.failure().is_some() || self.shared.stopping.load(Ordering::SeqCst) {
                return;
            }
        }
    }

    fn checkpoint(&mut self) -> Result<Report, String> {
        let started = Instant::now();
        // Ids are never reused, even after a failed attempt whose manifest may have reached the
        // disk: its files must not be overwritten.
        let id = self.next_id.max(self.last.as_ref().map_or(0, |m| m.id) + 1);
        self.next_id = id + 1;
        let full = self.full_needed
            || self.last.as_ref().is_none_or(|m| {
                m.chain.len() >= CHAIN_MAX
                    || m.chain[0].workers as usize != self.shared.workers.len()
            });
        self.publishing = false;
        let result = self.run_checkpoint(id, full, started);
        if result.is_err() {
            // The workers may have handed over their change sets: only a full checkpoint is
            // sure to hold every row now.
            self.full_needed = true;
        }
        if result.is_err() && !self.publishing {
            // Leave nothing half-written behind; the redo still holds everything. Once the
            // manifest may name the files (its save failed partway), they stay.
            for w in 0..self.shared.workers.len() {
                let _ =
                    std::fs::remove_file(storage::checkpoint::file_path(&self.dir, id, w as u32));
            }
        }
        result
    }

    fn run_checkpoint(&mut self, id: u64, full: bool, started: Instant) -> Result<Report, String> {
        let workers = self.shared.workers.len();
        let (tx, rx) = mpsc::sync_channel::<CheckpointReply>(16 * workers);
        // 1. Mark.
        self.broadcast(|| CheckpointStep::Mark { reply: tx.clone() });
        let mut positions = vec![Position::default(); workers];
        self.gather(&rx, workers, |reply| match reply {
            CheckpointReply::Position { worker, position } => {
                positions[worker] = position;
                true
            }
            _ => false,
        })?;
        // 2. Cut.
        let cut = self.shared.sequence.load(Ordering::SeqCst);
        let transaction_max = self.shared.next_txn.load(Ordering::SeqCst);
        let counters: Vec<(u32, u64)> = self
            .shared
            .catalog
            .read()
            .map(|c| {
                c.entries()
                    .map(|e| (e.def.id, e.next_auto.load(Ordering::SeqCst)))
                    .collect()
            })
            .unwrap_or_default();
        // 3. Everything below the cut is sent, then applied.
        self.barrier(&tx, &rx, false)?;
        self.barrier(&tx, &rx, false)?;
        // 4. Write.
        let mut files = Vec::with_capacity(workers);
        for w in 0..workers {
            files.push(Some(
                CheckpointFile::create(&self.dir, id, w as u32)
                    .map_err(|e| format!("creating checkpoint file {id} of worker {w}: {e}"))?,
            ));
        }
        self.broadcast(|| CheckpointStep::Write {
            full,
            reply: tx.clone(),
        });
        let mut entries_total = 0;
        let mut bytes_total = 0;
        let mut io_error = None;
        self.gather(&rx, workers, |reply| match reply {
            CheckpointReply::Chunk { worker, bytes } => {
                if let Some(file) = &mut files[worker] {
                    if let Err(e) = file.append(&bytes) {
                        io_error.get_or_insert(format!("{}: {e}", file.path().display()));
                    }
                }
                false
            }
            CheckpointReply::Written {
                worker,
                entries,
                blocks,
                directory,
            } => {
                if let Some(file) = files[worker].take() {
                    let path = file.path().to_path_buf();
                    match file.finish(entries, blocks, &directory) {
                        Ok(b) => bytes_total += b,
                        Err(e) => {
                            io_error.get_or_insert(format!("{}: {e}", path.display()));
                        }
                    }
                }
                entries_total += entries;
                true
            }
            _ => false,
        })?;
        if let Some(e) = io_error {
            return Err(e);
        }
        // 5. Every commit the files may hold is durable in full: every one numbered below
        // `held` (read after the files were written).
        let held = self.shared.sequence.load(Ordering::SeqCst);
        self.barrier(&tx, &rx, true)?;
        self.barrier(&tx, &rx, true)?;
        // A restart must replay every commit the files hold: the global checkpoint's cut
        // passes them before the manifest names the files (`gcp`).
        if let Some(durable) = &self.shared.gcp {
            if let Err(why) = durable.raise(held) {
                self.shared.fail(why.clone());
                return Err(why);
            }
        }
        // In a cluster, also a round of the cluster's: a system restart restores one, and the
        // files must hold nothing past it.
        if crate::gcp_rounds::holds_partitions(&self.shared) {
            crate::gcp_rounds::wait_covered(&self.shared, held, crate::gcp_rounds::COVER_MAX)?;
        }
        // 6. Publish.
        let mut chain = match (&self.last, full) {
            (Some(m), false) => m.chain.clone(),
            _ => Vec::new(),
        };
        chain.push(Link {
            id,
            workers: workers as u32,
            full,
        });
        let manifest = Manifest {
            id,
            cut,
            transaction_max,
            positions: positions.clone(),
            chain,
            counters,
        };
        self.publishing = true;
        manifest
            .save(&self.dir)
            .map_err(|e| format!("writing the checkpoint manifest: {e}"))?;
        for (w, upto) in positions.iter().enumerate() {
            self.shared.workers[w].send(ToWorker::Checkpoint(CheckpointStep::Release {
                upto: *upto,
            }));
        }
        self.remove_unneeded(&manifest);
        self.last = Some(manifest);
        // Replay now starts past every record a restart dropped.
        if let Some(durable) = &self.shared.gcp {
            if let Err(why) = durable.checkpoint_published() {
                self.shared.fail(why.clone());
                return Err(why);
            }
        }
        self.full_needed = false;
        let report = Report {
            id,
            full,
            entries: entries_total,
            bytes: bytes_total,
            seconds: started.elapsed().as_secs_f64(),
        };
        info!(
            checkpoint = id,
            full,
            entries = report.entries,
            bytes = report.bytes,
            seconds = report.seconds,
            "checkpoint written"
        );
        Ok(report)
    }

    /// Deletes checkpoint files the manifest no longer names, and the redo segments of workers
    /// this node no longer has (every record in them is below the cut).
    fn remove_unneeded(&self, manifest: &Manifest) {
        let keep: Vec<PathBuf> = manifest.files(&self.dir).into_iter().map(|f| f.2).collect();
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().to_string();
            let stale_checkpoint =
                name.starts_with("lcp-") && name.ends_with(".ckpt") && !keep.contains(&path);
            let stale_log = storage::redo::parse_segment_name(&name)
                .is_some_and(|(w, _)| w as usize >= manifest.positions.len());
            if stale_checkpoint || stale_log {
                if let Err(e) = std::fs::remove_file(&path) {
                    warn!(file = %path.display(), "could not delete an old checkpoint file: {e}");
                }
            }
        }
    }

    fn broadcast(&self, step: impl Fn() -> CheckpointStep) {
        for w in &self.shared.workers {
            w.send(ToWorker::Checkpoint(step()));
        }
    }

    fn barrier(
        &self,
        tx: &SyncSender<CheckpointReply>,
        rx: &Receiver<CheckpointReply>,
        sync: bool,
    ) -> Result<(), String> {
        self.broadcast(|| CheckpointStep::Barrier {
            sync,
            reply: tx.clone(),
        });
        self.gather(rx, self.shared.workers.len(), |r| {
            matches!(r, CheckpointReply::BarrierPassed { .. })
        })
    }

    /// Receives replies until `done` counted `count` of them.
    fn gather(
        &self,
        rx: &Receiver<CheckpointReply>,
        count: usize,
        mut done: impl FnMut(CheckpointReply) -> bool,
    ) -> Result<(), String> {
        let deadline = Instant::now() + STEP_TIMEOUT;
        let mut seen = 0;
        while seen < count {
            if self.shared.failure().is_some() || self.shared.stopping.load(Ordering::SeqCst) {
                return Err("the data node is stopping".into());
            }
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(reply) => {
                    if done(reply) {
                        seen += 1;
                    }
                }
                Err(RecvTimeoutError::Timeout) if Instant::now() < deadline => {}
                Err(_) => return Err("the workers did not answer".into()),
            }
        }
        Ok(())
    }
}
