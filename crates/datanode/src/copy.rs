//! A primary's copy of its partitions to a starting node of its group (node restart), on a
//! thread of its own: the catalog first, then every partition's committed rows in batches, then
//! `CopyDone`, all on the replication link after the commits queued there.
//!
//! Why the copy is exact, with commits running beside it:
//! 1. Once a view names the node starting, every commit the primary sends goes to it too.
//! 2. The catalog opens a new copy generation on the link (`Role::send_copy`); commits sent
//!    before it reach the node while it holds no table, and it drops them. So rows are read
//!    only once every commit of an older generation was applied here (`Role::settled_before`):
//!    the copy holds them.
//! 3. Commits sent after the catalog are applied there, and the keys they write are kept: a
//!    copied row of such a key is older than what the node holds, and is skipped. Any other
//!    copied row is the newest committed image of its key (a later commit would have been sent
//!    to the node and kept its key).
//! 4. No schema change runs while a node of the group is starting (refused, temporary), and the
//!    copy takes the catalog only after the one under way ended.
//! 5. A node restarted from its own files holds rows already: it writes a copied row only when
//!    it differs from its own, and once the copy ended deletes every row neither the copy nor
//!    a kept key accounts for (`worker::replica::Copying`): by 3, the copy and the kept keys
//!    together are every row the primary holds.
//!
//! The copy never stops the primary: when the node leaves the view (it died) or the view
//! changes, the copy ends; the next view with the node starting copies again.

use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use wire::Message;

use crate::messages::ToWorker;
use crate::replication::Role;
use crate::Shared;

/// Rows and bytes one copied batch holds at most.
pub const COPY_BATCH_ROWS: usize = 512;
pub const COPY_BATCH_BYTES: usize = 1 << 20;
/// Batches sent and not yet answered: the link's queue and the starting node's work are bounded.
/// A commit replicated to the starting node waits behind them on the link, so together with
/// the batch size this sets what a copy adds to every commit's latency (at most 2,048 rows to
/// apply first). bench/restart.sh, 1,000,000 rows under sysbench: 8 x 4,096 copied 276-281k
/// rows/s with a 69-75% dip in commits; 4 x 512, 363-370k rows/s with 59-60%
/// (docs/benchmarks.md).
pub const COPY_WINDOW: usize = 4;
/// How often the copy looks again at what it waits for (the view, settled commits, a schema
/// change under way).
const POLL: Duration = Duration::from_millis(2);
/// The longest sleep of a rate-limited copy between looks at the view.
const RATE_SLICE: Duration = Duration::from_millis(50);
/// How often progress is logged.
const PROGRESS_EVERY: Duration = Duration::from_secs(2);

/// Starts the copy to starting node `node` in view `epoch`.
pub fn spawn(shared: Weak<Shared>, node: u32, epoch: u64) {
    let spawned = std::thread::Builder::new()
        .name(format!("copy-to-{node}"))
        .spawn(move || {
            let Some(shared) = shared.upgrade() else {
                return;
            };
            let Some(role) = shared.role.clone() else {
                return;
            };
            let mut copy = Copy {
                shared,
                role,
                node,
                epoch,
                rows: 0,
                batches: 0,
                partitions_done: 0,
                partitions: 0,
                started: Instant::now(),
                logged: Instant::now(),
            };
            match copy.run() {
                Ok(()) => {}
                Err(why) => tracing::warn!(node, epoch, "copy to a starting node ended: {why}"),
            }
        });
    if let Err(e) = spawned {
        // Without its copy the node never becomes a member, and stays starting: the
        // cluster serves on, so this is logged, not fatal.
        tracing::error!(
            node,
            "could not start the copy to starting node {node}: {e}"
        );
    }
}

struct Copy {
    shared: Arc<Shared>,
    role: Arc<Role>,
    node: u32,
    epoch: u64,
    rows: u64,
    batches: u64,
    partitions_done: u32,
    partitions: u32,
    started: Instant,
    logged: Instant,
}

/// A job's answer: Ok(true) answered, Ok(false) the node left the view.
type Answer = Receiver<Result<bool, String>>;

impl Copy {
    /// Sends the prepared parts of two-phase commits this node holds undecided, as a primary
    /// (`Shared::in_doubt`) or as the backup that took over (`Role::with_held`), so that the
    /// starting node holds them too: should this node die before their coordinator's group
    /// decides, it takes the group over with them, and commits or rolls them back as asked.
    /// Each goes on the link while its map is locked, so a resolution (which takes the part
    /// first, then sends its `Resolve`) reaches the node after it. Those prepared after the
    /// copy began reach the node as every backup (it takes commits while it starts).
    fn send_in_doubt(&self, window: &mut std::collections::VecDeque<Answer>) {
        let mut sent = 0;
        {
            let in_doubt = self
                .shared
                .in_doubt
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            for (part, d) in in_doubt.iter() {
                window.push_back(self.send(prepared(*part, d.changes.clone())).0);
                sent += 1;
            }
        }
        self.role.with_held(|held| {
            for (part, changes) in held {
                window.push_back(self.send(prepared(*part, changes.clone())).0);
                sent += 1;
            }
        });
        if sent > 0 {
            tracing::info!(
                node = self.node,
                parts = sent,
                "copy to starting node: prepared parts in doubt sent"
            );
        }
    }

    fn run(&mut self) -> Result<(), String> {
        // The catalog, once the schema change under way (if any) ended; new ones are refused
        // while the node is starting, and this one holds the flag while it sends.
        while self.shared.schema_change_busy.swap(true, Ordering::AcqRel) {
            self.still_wanted()?;
            std::thread::sleep(POLL);
        }
        let catalog = self
            .shared
            .catalog
            .read()
            .map(|c| c.to_bytes())
            .map_err(|_| "the catalog is poisoned".to_string());
        let catalog = match catalog {
            Ok(c) => c,
            Err(e) => {
                self.shared
                    .schema_change_busy
                    .store(false, Ordering::Release);
                return Err(e);
            }
        };
        let tables: Vec<Arc<base::TableDef>> = self
            .shared
            .catalog
            .read()
            .map(|c| c.entries().map(|e| e.def.clone()).collect())
            .unwrap_or_default();
        let (answer, generation) = self.send(Message::CopyCatalog { catalog });
        self.shared
            .schema_change_busy
            .store(false, Ordering::Release);
        self.wait(&answer)?;
        // Each group's primary, which depends on views the starting node did not see: as this
        // copy's view has them.
        self.still_wanted()?;
        let view = self.role.view();
        if view.epoch != self.epoch {
            return Err(format!(
                "the view changed (now {}): the copy is no longer wanted",
                view.epoch
            ));
        }
        let (answer, _) = self.send(Message::CopyPrimaries {
            epoch: self.epoch,
            primaries: view
                .primaries
                .iter()
                .map(|(g, p)| (*g as u32, *p))
                .collect(),
        });
        self.wait(&answer)?;
        tracing::info!(
            node = self.node,
            tables = tables.len(),
            "copy to starting node: catalog taken; waiting for earlier commits"
        );
        while !self.role.settled_before(generation) {
            self.still_wanted()?;
            std::thread::sleep(POLL);
        }
        let mut window: std::collections::VecDeque<Answer> = Default::default();
        self.send_in_doubt(&mut window);
        let workers = self.shared.worker_count();
        let placement = self.shared.placement;
        self.partitions = tables
            .iter()
            .map(|t| {
                (0..t.partition_count)
                    .filter(|p| placement.is_local(*p))
                    .count() as u32
            })
            .sum();
        self.report(false);
        let rows_from = Instant::now();
        for table in &tables {
            for worker in 0..workers {
                for partition in self.shared.partitions_of(table, worker) {
                    let mut from = Some(0);
                    while let Some(slot) = from {
                        self.still_wanted()?;
                        let (changes, next) = self.read(worker, table.id, partition, slot)?;
                        from = next;
                        if changes.is_empty() {
                            continue;
                        }
                        self.rows += changes.len() as u64;
                        self.batches += 1;
                        if window.len() >= COPY_WINDOW {
                            if let Some(oldest) = window.pop_front() {
                                self.wait(&oldest)?;
                            }
                        }
                        window.push_back(self.send(Message::CopyRows { changes }).0);
                        self.progress(&table.name);
                        self.keep_rate(rows_from)?;
                    }
                    self.partitions_done += 1;
                    self.report(false);
                }
            }
        }
        for answer in std::mem::take(&mut window) {
            self.wait(&answer)?;
        }
        // The commits recorded lately go too: the starting node holds their rows by copy, and
        // as a primary it must know they committed when a client asks.
        let names = self.role.recent_commits();
        for chunk in names.chunks(wire::COPY_NAMES_MAX) {
            let (answer, _) = self.send(Message::CopyNames {
                names: chunk.to_vec(),
            });
            window.push_back(answer);
        }
        for answer in std::mem::take(&mut window) {
            self.wait(&answer)?;
        }
        let (answer, _) = self.send(Message::CopyDone { rows: self.rows });
        if let Err(why) = self.wait(&answer) {
            // The node may have said it caught up, and the next view made it a member,
            // before its answer reached this thread: the copy is done all the same.
            if !self.role.view().members.contains(&self.node) {
                return Err(why);
            }
        }
        self.report(true);
        let seconds = self.started.elapsed().as_secs_f64();
        tracing::info!(
            node = self.node,
            rows = self.rows,
            seconds,
            "copy to starting node done"
        );
        println!(
            "copied {} rows in {} tables to starting data node {} in {seconds:.1} s ({:.0} rows/s)",
            self.rows,
            tables.len(),
            self.node,
            self.rows as f64 / seconds.max(0.001)
        );
        Ok(())
    }

    /// Fails when the copy is no longer wanted: the view changed, or this node is no longer
    /// the primary, or the node is not starting any more.
    fn still_wanted(&self) -> Result<(), String> {
        let view = self.role.view();
        if view.epoch != self.epoch
            || view.primary != Some(self.role.me)
            || !view.starting.contains(&self.node)
        {
            return Err(format!(
                "the view changed (now {}): the copy is no longer wanted",
                view.epoch
            ));
        }
        if self.shared.stopping.load(Ordering::Relaxed) {
            return Err("the node is stopping".into());
        }
        Ok(())
    }

    /// With `DataNodeConfig::copy_rows_per_s` set, waits until the rows sent since `from` are
    /// within that rate (in slices, so a view change still ends the copy at once).
    fn keep_rate(&self, from: Instant) -> Result<(), String> {
        let limit = self.shared.copy_rows_per_s;
        if limit == 0 {
            return Ok(());
        }
        let due = from + Duration::from_secs_f64(self.rows as f64 / limit as f64);
        while Instant::now() < due {
            self.still_wanted()?;
            std::thread::sleep(
                due.saturating_duration_since(Instant::now())
                    .min(RATE_SLICE),
            );
        }
        Ok(())
    }

    /// Reads a batch of a partition on its worker.
    fn read(
        &self,
        worker: usize,
        table: u32,
        partition: u32,
        from: u32,
    ) -> Result<crate::messages::CopiedRows, String> {
        let (reply, rows) = mpsc::channel();
        let sent = self.shared.workers[worker].send(ToWorker::CopyRead {
            table,
            partition,
            from,
            rows_max: COPY_BATCH_ROWS,
            bytes_max: COPY_BATCH_BYTES,
            reply,
        });
        if !sent {
            return Err("the worker stopped".into());
        }
        loop {
            match rows.recv_timeout(Duration::from_millis(100)) {
                Ok(batch) => return Ok(batch),
                Err(RecvTimeoutError::Timeout) => self.still_wanted()?,
                Err(RecvTimeoutError::Disconnected) => return Err("the worker stopped".into()),
            }
        }
    }

    fn send(&self, message: Message) -> (Answer, u64) {
        let (tx, rx) = mpsc::channel();
        let generation = self.role.send_copy(
            self.node,
            message,
            Box::new(move |result, _| {
                let _ = tx.send(
                    result
                        .map(|answers| !answers.is_empty())
                        .map_err(|e| e.message),
                );
            }),
        );
        (rx, generation)
    }

    /// Waits for a job's answer while the copy is still wanted.
    fn wait(&self, answer: &Answer) -> Result<(), String> {
        loop {
            match answer.recv_timeout(Duration::from_millis(100)) {
                Ok(Ok(true)) => return Ok(()),
                Ok(Ok(false)) => return Err("the starting node left the view".into()),
                Ok(Err(e)) => return Err(e),
                Err(RecvTimeoutError::Timeout) => self.still_wanted()?,
                Err(RecvTimeoutError::Disconnected) => return Err("the link ended".into()),
            }
        }
    }

    /// Publishes where the copy stands, for the node's status (`cairn admin status`).
    fn report(&self, done: bool) {
        self.role.copy_progress(wire::CopyStatus {
            node: self.node,
            rows: self.rows,
            partitions_done: self.partitions_done,
            partitions: self.partitions,
            micros: self.started.elapsed().as_micros() as u64,
            done,
        });
    }

    fn progress(&mut self, table: &str) {
        self.report(false);
        if self.logged.elapsed() < PROGRESS_EVERY {
            return;
        }
        self.logged = Instant::now();
        let seconds = self.started.elapsed().as_secs_f64();
        tracing::info!(
            node = self.node,
            rows = self.rows,
            batches = self.batches,
            table,
            rows_per_second = (self.rows as f64 / seconds.max(0.001)) as u64,
            "copying to starting node"
        );
    }
}

/// A prepared part's rows, as its primary sends them to a backup.
fn prepared(part: (u32, u64), changes: Vec<wire::RowChange>) -> Message {
    Message::Prepared {
        coordinator: part.0,
        transaction: part.1,
        changes,
    }
}
