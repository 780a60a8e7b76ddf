//! The global checkpoint of `interval` durability (NDB's GCP, within one data node): every
//! interval the commits numbered below a cut are made durable in every worker's redo log at once,
//! and the cut is recorded in the data directory's `gcp` file, so a restart replays exactly the
//! commits below the newest recorded cut: a prefix of the commit order across the workers,
//! whatever a crash or a power cut kept of each log beyond it.
//!
//! A round: read the commit sequence C, then two barriers through every worker, the second
//! fsyncing its log: every commit numbered below C was sent, then applied, logged and fsynced
//! (the order the checkpoint's steps 3 and 5 rely on too, `checkpoint.rs`; a commit takes its
//! number while it holds its locks, so a commit that depends on another has a higher number);
//! then the file records C. A published checkpoint raises the cut past every commit its files
//! may hold, first, so a restart never loads rows a cut would drop.
//!
//! Records a restart drops (numbered from the cut up to the highest it found) stay in the logs;
//! later cuts pass their numbers, so the file lists them as void until a checkpoint of the new
//! run is published (replay then starts after them). In `commit` mode the file, when there is
//! one, records no cut (every acknowledged commit is on disk) but keeps its void ranges.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use crate::messages::{CheckpointReply, CheckpointStep, ToWorker};
use crate::Shared;

/// The file in the data directory that records the cut.
pub const GCP_FILE: &str = "gcp";
const MAGIC: &[u8; 8] = b"CAIRNGCP";
/// Version 2 added the cluster's rounds (`Cut::complete`, `Cut::rounds`); version 1 files
/// are read as having none.
const VERSION: u32 = 2;
/// Cluster rounds the file keeps the cuts of: the newest, from the newest complete one on.
pub const ROUNDS_KEPT: usize = 8;
/// Void ranges the file holds at most: one is added per restart that dropped records, and all
/// are cleared by the first checkpoint a run publishes. A node that restarted this many times
/// without one refuses to start (it says to take a checkpoint with `--durability commit`).
pub const VOIDS_MAX: usize = 1024;
/// How long a round waits for the workers' barriers before it gives up (and tries again).
const BARRIER_TIMEOUT: Duration = Duration::from_secs(30);

/// What a restart replays: commits numbered below `below`, except the void ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    /// Commits numbered this or above are not replayed (`u64::MAX`: none is cut).
    pub below: u64,
    /// Inclusive ranges of commit numbers that are never replayed.
    pub void: Vec<(u64, u64)>,
    /// The newest cluster round this node heard every node saved (0: none), `GcpStep::Saved`.
    pub complete: u64,
    /// Cluster rounds this node saved, oldest first, each with its cut here (this node's
    /// commits numbered below it belong to the round): a system restart to round G replays
    /// up to G's cut (`gcp_rounds`).
    pub rounds: Vec<(u64, u64)>,
}

impl Default for Cut {
    fn default() -> Cut {
        Cut {
            below: u64::MAX,
            void: Vec::new(),
            complete: 0,
            rounds: Vec::new(),
        }
    }
}

impl Cut {
    /// Whether a commit record numbered `sequence` is replayed.
    pub fn keeps(&self, sequence: u64) -> bool {
        sequence < self.below && !self.void.iter().any(|(a, b)| (*a..=*b).contains(&sequence))
    }

    /// The cut of cluster round `round` here, if this node saved it and still keeps it.
    pub fn round_cut(&self, round: u64) -> Option<u64> {
        self.rounds
            .iter()
            .find(|(r, _)| *r == round)
            .map(|(_, cut)| *cut)
    }

    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(40 + 16 * (self.void.len() + self.rounds.len()));
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&self.below.to_le_bytes());
        out.extend_from_slice(&(self.void.len() as u32).to_le_bytes());
        for (from, to) in &self.void {
            out.extend_from_slice(&from.to_le_bytes());
            out.extend_from_slice(&to.to_le_bytes());
        }
        out.extend_from_slice(&self.complete.to_le_bytes());
        out.extend_from_slice(&(self.rounds.len() as u32).to_le_bytes());
        for (round, cut) in &self.rounds {
            out.extend_from_slice(&round.to_le_bytes());
            out.extend_from_slice(&cut.to_le_bytes());
        }
        let crc = crc32c::crc32c(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    fn decode(bytes: &[u8]) -> Result<Cut, String> {
        let u32_at = |at: usize| -> u32 {
            u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or_default())
        };
        let u64_at = |at: usize| -> u64 {
            u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or_default())
        };
        if bytes.len() < 28 || &bytes[..8] != MAGIC {
            return Err(format!(
                "not a cut file ({} bytes, no CAIRNGCP at its start)",
                bytes.len()
            ));
        }
        let version = u32_at(8);
        if version != 1 && version != VERSION {
            return Err(format!(
                "version {version}; this build reads 1 and {VERSION}"
            ));
        }
        let count = u32_at(20) as usize;
        if count > VOIDS_MAX {
            return Err(format!("{count} void ranges, more than {VOIDS_MAX}"));
        }
        let rounds_at = 24 + 16 * count;
        let (complete, rounds) = if version == 1 {
            (0, 0)
        } else {
            if bytes.len() < rounds_at + 12 + 4 {
                return Err(format!("{} bytes: cut short", bytes.len()));
            }
            let rounds = u32_at(rounds_at + 8) as usize;
            if rounds > ROUNDS_KEPT {
                return Err(format!("{rounds} rounds, more than {ROUNDS_KEPT}"));
            }
            (u64_at(rounds_at), rounds)
        };
        let length = if version == 1 {
            rounds_at + 4
        } else {
            rounds_at + 12 + 16 * rounds + 4
        };
        if bytes.len() != length {
            return Err(format!(
                "{} bytes where {count} void ranges and {rounds} rounds make {length}",
                bytes.len()
            ));
        }
        let stored = u32_at(length - 4);
        let crc = crc32c::crc32c(&bytes[..length - 4]);
        if stored != crc {
            return Err(format!(
                "checksum {stored:#010x}, computed {crc:#010x}: damaged"
            ));
        }
        let void = (0..count)
            .map(|i| (u64_at(24 + 16 * i), u64_at(32 + 16 * i)))
            .collect();
        let rounds = (0..rounds)
            .map(|i| {
                let at = rounds_at + 12 + 16 * i;
                (u64_at(at), u64_at(at + 8))
            })
            .collect();
        Ok(Cut {
            below: u64_at(12),
            void,
            complete,
            rounds,
        })
    }

    /// The cut recorded in `dir` (None: no file, so nothing is cut). A damaged file is an
    /// error: replaying past a cut would put back commits that are not a prefix.
    pub fn load(dir: &Path) -> Result<Option<Cut>, String> {
        let path = dir.join(GCP_FILE);
        match std::fs::read(&path) {
            Ok(bytes) => Cut::decode(&bytes)
                .map(Some)
                .map_err(|e| format!("{}: {e}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    }

    /// Replaces the file in `dir` atomically: written and fsynced beside it, renamed over it,
    /// and the directory fsynced.
    pub fn save(&self, dir: &Path) -> std::io::Result<()> {
        use std::io::Write;
        let tmp = dir.join(format!("{GCP_FILE}.tmp"));
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(&self.encode())?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, dir.join(GCP_FILE))?;
        storage::redo::sync_directory(&dir.join(GCP_FILE))
    }
}

/// The node's recorded cut, kept in step with its file.
pub struct Durable {
    dir: PathBuf,
    /// `interval` mode: rounds raise the cut; in `commit` mode it stays `u64::MAX`.
    interval: bool,
    cut: Mutex<Cut>,
    /// Whether the file exists (in `commit` mode one is written only to keep void ranges).
    filed: Mutex<bool>,
}

impl Durable {
    /// At start, after recovery: `found` is the file's cut (if any), `next` the first number
    /// of this run and `dropped` the numbers recovery dropped. In `interval` mode the cut
    /// becomes `next` (everything kept is on disk); the dropped numbers become void.
    pub fn open(
        dir: &Path,
        interval: bool,
        found: Option<Cut>,
        next: u64,
        dropped: Option<(u64, u64)>,
    ) -> Result<Durable, String> {
        let filed = found.is_some();
        let mut cut = found.unwrap_or_default();
        if let Some(range) = dropped {
            if cut.void.len() >= VOIDS_MAX {
                return Err(format!(
                    "{} lists {VOIDS_MAX} ranges of dropped commits, the most it holds: start once with --durability commit and take a checkpoint (cairn admin checkpoint)",
                    dir.join(GCP_FILE).display()
                ));
            }
            cut.void.push(range);
        }
        cut.below = if interval { next } else { u64::MAX };
        let durable = Durable {
            dir: dir.to_path_buf(),
            interval,
            cut: Mutex::new(Cut::default()),
            filed: Mutex::new(filed),
        };
        if interval || filed || !cut.void.is_empty() {
            durable.store(cut)?;
        } else {
            *durable.cut.lock().unwrap_or_else(|e| e.into_inner()) = cut;
        }
        Ok(durable)
    }

    fn store(&self, cut: Cut) -> Result<(), String> {
        let mut now = self.cut.lock().unwrap_or_else(|e| e.into_inner());
        self.write(&mut now, cut)
    }

    /// Writes `cut` to the file and makes it the one recorded; `now` is the lock held over
    /// the whole change, so changes from several threads (the rounds, a checkpoint, a column
    /// change's round) never write an older cut over a newer one.
    fn write(&self, now: &mut Cut, cut: Cut) -> Result<(), String> {
        cut.save(&self.dir)
            .map_err(|e| format!("writing {}: {e}", self.dir.join(GCP_FILE).display()))?;
        *self.filed.lock().unwrap_or_else(|e| e.into_inner()) = true;
        *now = cut;
        Ok(())
    }

    /// The cut as recorded now.
    pub fn cut(&self) -> Cut {
        self.cut.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Records that every commit numbered below `below` is durable in every worker's log
    /// (`interval` mode; nothing to do in `commit` mode or when the cut is there already).
    pub fn raise(&self, below: u64) -> Result<(), String> {
        let mut now = self.cut.lock().unwrap_or_else(|e| e.into_inner());
        if !self.interval || below <= now.below {
            return Ok(());
        }
        let mut cut = now.clone();
        cut.below = below;
        self.write(&mut now, cut)
    }

    /// Records that every commit numbered below `cut` here is durable and belongs to cluster
    /// round `round` (`GcpStep::Save`). Keeps the newest `ROUNDS_KEPT` rounds.
    pub fn record_round(&self, round: u64, cut: u64) -> Result<(), String> {
        let mut now = self.cut.lock().unwrap_or_else(|e| e.into_inner());
        if now.rounds.iter().any(|(r, _)| *r >= round) {
            return Ok(());
        }
        let mut next = now.clone();
        next.rounds.push((round, cut));
        while next.rounds.len() > ROUNDS_KEPT {
            next.rounds.remove(0);
        }
        self.write(&mut now, next)
    }

    /// Records that every node saved cluster round `round` (`GcpStep::Saved`).
    pub fn round_complete(&self, round: u64) -> Result<(), String> {
        let mut now = self.cut.lock().unwrap_or_else(|e| e.into_inner());
        if round <= now.complete {
            return Ok(());
        }
        let mut next = now.clone();
        next.complete = round;
        self.write(&mut now, next)
    }

    /// The cut of the newest complete cluster round this node saved: every commit numbered
    /// below it here is in a round a system restart may restore (0: none).
    pub fn complete_cut(&self) -> u64 {
        let now = self.cut.lock().unwrap_or_else(|e| e.into_inner());
        now.rounds
            .iter()
            .filter(|(r, _)| *r <= now.complete)
            .map(|(_, cut)| *cut)
            .max()
            .unwrap_or(0)
    }

    /// A checkpoint of this run was published: replay starts after every record a void range
    /// names, so the ranges go.
    pub fn checkpoint_published(&self) -> Result<(), String> {
        let mut now = self.cut.lock().unwrap_or_else(|e| e.into_inner());
        if now.void.is_empty() {
            return Ok(());
        }
        let mut cut = now.clone();
        cut.void.clear();
        self.write(&mut now, cut)
    }
}

/// Starts the rounds of `interval` mode, one every `every`, on a thread of their own; it ends
/// when the node stops. A failed write of the file stops the node (fail-stop).
pub fn spawn(shared: Weak<Shared>, every: Duration) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("global-checkpoint".into())
        .spawn(move || {
            each_interval(shared, every, |shared| {
                if let Err(why) = round(shared) {
                    if shared.stopping.load(Ordering::SeqCst) || shared.failure().is_some() {
                        return false;
                    }
                    tracing::warn!("global checkpoint round: {why}; trying again");
                }
                true
            })
        })?;
    Ok(())
}

/// Calls `tick` every `every` while the node runs (and `tick` answers true).
pub(crate) fn each_interval(
    shared: Weak<Shared>,
    every: Duration,
    mut tick: impl FnMut(&Arc<Shared>) -> bool,
) {
    let mut next = Instant::now() + every;
    loop {
        let now = Instant::now();
        if now < next {
            std::thread::sleep((next - now).min(Duration::from_millis(50)));
        }
        let Some(shared) = shared.upgrade() else {
            return;
        };
        if shared.stopping.load(Ordering::SeqCst) || shared.failure().is_some() {
            return;
        }
        if Instant::now() < next {
            continue;
        }
        next = Instant::now() + every;
        if !tick(&shared) {
            return;
        }
    }
}

/// One round: makes every commit numbered below the sequence read now durable, then records it.
pub fn round(shared: &Arc<Shared>) -> Result<(), String> {
    let Some(durable) = &shared.gcp else {
        return Ok(());
    };
    let below = shared.sequence.load(Ordering::SeqCst);
    if below <= durable.cut().below {
        return Ok(());
    }
    barrier(shared, false)?;
    barrier(shared, true)?;
    if let Err(why) = durable.raise(below) {
        shared.fail(why.clone());
        return Err(why);
    }
    Ok(())
}

/// Passes a barrier through every worker: each answers after its turn's redo is written (and
/// fsynced, with `sync`).
pub(crate) fn barrier(shared: &Shared, sync: bool) -> Result<(), String> {
    let (tx, rx) = mpsc::sync_channel(shared.workers.len());
    for w in &shared.workers {
        w.send(ToWorker::Checkpoint(CheckpointStep::Barrier {
            sync,
            reply: tx.clone(),
        }));
    }
    let deadline = Instant::now() + BARRIER_TIMEOUT;
    let mut passed = 0;
    while passed < shared.workers.len() {
        if shared.stopping.load(Ordering::SeqCst) || shared.failure().is_some() {
            return Err("the data node is stopping".into());
        }
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(CheckpointReply::BarrierPassed { .. }) => passed += 1,
            Ok(_) => {}
            Err(RecvTimeoutError::Timeout) if Instant::now() < deadline => {}
            Err(_) => return Err("the workers did not pass the barrier".into()),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_file_reads_back_and_damage_is_refused() {
        let cut = Cut {
            below: 77,
            void: vec![(5, 9), (20, 20)],
            complete: 9 << 32,
            rounds: vec![((9 << 32) | 1, 60), ((9 << 32) | 2, 70)],
        };
        assert_eq!(cut.round_cut((9 << 32) | 2), Some(70));
        assert_eq!(cut.round_cut(9 << 32), None);
        let bytes = cut.encode();
        assert_eq!(Cut::decode(&bytes), Ok(cut.clone()));
        assert!(cut.keeps(4) && !cut.keeps(5) && !cut.keeps(9) && cut.keeps(10));
        assert!(!cut.keeps(20) && cut.keeps(76) && !cut.keeps(77));
        for at in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x40;
            assert!(Cut::decode(&damaged).is_err(), "byte {at} flipped was read");
        }
        assert!(Cut::decode(&bytes[..bytes.len() - 1]).is_err());
        assert!(Cut::default().keeps(u64::MAX - 1));
        // A version 1 file (before the cluster's rounds) reads as one with none.
        let mut v1 = Vec::new();
        v1.extend_from_slice(MAGIC);
        v1.extend_from_slice(&1u32.to_le_bytes());
        v1.extend_from_slice(&33u64.to_le_bytes());
        v1.extend_from_slice(&0u32.to_le_bytes());
        let crc = crc32c::crc32c(&v1);
        v1.extend_from_slice(&crc.to_le_bytes());
        let old = Cut::decode(&v1).unwrap();
        assert_eq!((old.below, old.complete, old.rounds.len()), (33, 0, 0));
    }

    #[test]
    fn a_restart_voids_what_it_dropped_until_a_checkpoint() {
        let dir = std::env::temp_dir().join(format!("cairn-gcp-unit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // Commit mode, no file, nothing dropped: no file is written.
        Durable::open(&dir, false, None, 10, None).unwrap();
        assert_eq!(Cut::load(&dir).unwrap(), None);
        // Interval mode: the cut starts at the run's first number and rises.
        let d = Durable::open(&dir, true, None, 10, None).unwrap();
        d.raise(15).unwrap();
        d.raise(12).unwrap();
        assert_eq!(Cut::load(&dir).unwrap().unwrap().below, 15);
        // A restart that dropped 15..=30 voids them; a checkpoint clears the range.
        let d = Durable::open(&dir, true, Cut::load(&dir).unwrap(), 31, Some((15, 30))).unwrap();
        let cut = Cut::load(&dir).unwrap().unwrap();
        assert_eq!((cut.below, cut.void.clone()), (31, vec![(15, 30)]));
        assert!(!cut.keeps(20) && cut.keeps(14));
        d.checkpoint_published().unwrap();
        assert!(Cut::load(&dir).unwrap().unwrap().void.is_empty());
        // Commit mode after interval mode: no cut, the void ranges kept.
        Durable::open(&dir, false, Cut::load(&dir).unwrap(), 40, Some((33, 35))).unwrap();
        let cut = Cut::load(&dir).unwrap().unwrap();
        assert_eq!((cut.below, cut.void), (u64::MAX, vec![(33, 35)]));
        // Cluster rounds: saved ones are kept (the newest ROUNDS_KEPT), a complete one covers
        // its cut, and a restart keeps them.
        let d = Durable::open(&dir, true, Cut::load(&dir).unwrap(), 50, None).unwrap();
        assert_eq!(d.complete_cut(), 0);
        for r in 1..=10u64 {
            d.record_round(r, 100 + r).unwrap();
        }
        d.record_round(3, 1).unwrap();
        d.round_complete(9).unwrap();
        d.round_complete(4).unwrap();
        assert_eq!(d.complete_cut(), 109);
        let cut = Cut::load(&dir).unwrap().unwrap();
        assert_eq!(cut.rounds.len(), ROUNDS_KEPT);
        assert_eq!(
            (cut.complete, cut.round_cut(10), cut.round_cut(2)),
            (9, Some(110), None)
        );
        Durable::open(&dir, true, Some(cut.clone()), 200, None).unwrap();
        assert_eq!(Cut::load(&dir).unwrap().unwrap().rounds, cut.rounds);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
