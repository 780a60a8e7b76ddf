//! A data node's place in its node group: the cluster view it serves in (set by the membership
//! thread, `cluster_host`), whether it is the group's primary now, and the links that carry each
//! commit's rows and each schema change from the primary to the group's backups before the
//! client hears of it.
//!
//! The rule the links keep: a job sent to a backup ends only when that backup answered it, or
//! when an agreed view no longer has the backup as a member (it was declared dead, and it stops
//! serving). It never ends in failure after anything was sent, so no backup holds a commit its
//! primary rolled back. Until one of the two happens the job is sent again, over a new
//! connection with the view's epoch when the old one broke or the view changed.

mod backup;
mod commits;
mod level;
mod primary;

pub use backup::SchemaJob;
pub use commits::{
    decision_name, part_of_decision, CommitName, Outcome, Start, COMMITS_REMEMBERED,
    DECISION_SESSION_BASE, OUTCOME_WINDOW,
};
pub use level::{taken_entry, taken_log_parts, TakenLogParts, TAKEN_KEPT, TAKEN_KEPT_BYTES};
pub(crate) use primary::{dial, read_frames};
pub use primary::{Done, REPLICATION_JOBS_MAX};

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, RwLock};

use base::{Error, ErrorCode};
use commits::Commits;
use primary::LinkEvent;
use transport::auth::Guard;
use wire::Message;

/// The view this node serves in, as the membership thread last reported it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ViewState {
    pub epoch: u64,
    pub members: BTreeSet<u32>,
    /// Restarted nodes copying their partitions (node restart): they take every commit as
    /// backups do, but no schema change, serve nothing and are never primary.
    pub starting: BTreeSet<u32>,
    /// The group's primary in this view: the previous view's, while it stays a member, else
    /// the group's lowest member. A node that restarts and becomes a member again so does not
    /// take the primary's place from a node that served through its absence (moving a
    /// primary while it runs needs a handover, not built yet).
    pub primary: Option<u32>,
    /// Every node group's primary in this view (by the same rule), by group index; a group
    /// with no member has none (such a view is never agreed).
    pub primaries: BTreeMap<usize, u32>,
    /// The view is open: its takeover is done and the node may serve in it.
    pub open: bool,
}

/// This node's role in its node group.
pub struct Role {
    pub me: u32,
    /// The nodes of this node's group, ascending.
    pub group: Vec<u32>,
    /// Every node group of the cluster, in the configuration's order (this node's is
    /// `groups[group_index]`); partition p belongs to group `base::placement::group_of`.
    pub groups: Vec<Vec<u32>>,
    pub group_index: usize,
    /// The API (native protocol) address of every data node of the cluster.
    pub api_addresses: BTreeMap<u32, String>,
    guard: Guard,
    /// This node's worker count: a backup must run as many (partitions are per worker).
    workers: u32,
    view: RwLock<ViewState>,
    /// Whether the membership says the node serves now (its read lease holds); set by the
    /// membership thread after every input.
    lease: Arc<AtomicBool>,
    links: Mutex<BTreeMap<u32, Sender<LinkEvent>>>,
    jobs: AtomicUsize,
    /// On a backup: the last schema change a primary sent (its node, request id, answer).
    last_schema: Mutex<Option<(u32, u64, Option<Message>)>>,
    /// The commits this node made or took from its primary, by name, and those under way.
    commits: Mutex<Commits>,
    /// Commits under way on this primary by the copy generation they were sent in, until their
    /// workers were sent their commit (or abort). A copy to a starting node begins a new
    /// generation as its catalog goes on the link, and reads partitions only once no commit
    /// of an older generation is left: those reach the starting node before it holds any
    /// table (so it cannot apply them), and the copy must read them applied.
    unsettled: Mutex<Unsettled>,
    /// Starts the copy of this node's partitions to a starting node (`crate::copy`), set by
    /// the data node once it runs.
    copier: Mutex<Option<Copier>>,
    /// The copies started: (starting node, epoch).
    copies: Mutex<BTreeSet<(u32, u64)>>,
    /// Each starting node's copy as it stands (the running one, or the last one done), for
    /// the node's status.
    copy_progress: Mutex<BTreeMap<u32, wire::CopyStatus>>,
    /// On a starting node: set once its primary's copy ended, for the membership to say it
    /// caught up.
    copied: Arc<AtomicBool>,
    /// A starting node took every group's primary from its copy in its own view
    /// (`learn_primaries`); its copy ends only then.
    primaries_learned: AtomicBool,
    /// Where this node's own restart stands (`Restart`).
    restart: Mutex<Restart>,
    /// On a backup: prepared parts of two-phase commits (`Message::Prepared`), by coordinator
    /// and transaction, until resolved.
    held: Mutex<std::collections::HashMap<(u32, u64), Vec<wire::RowChange>>>,
    /// Held parts resolved as committed whose rows are not yet handed to the workers: the node
    /// serves once they are, so no request meets the rows missing (`applying_held`).
    applying: AtomicU64,
    /// Requests answered here as a backup's READ_BACKUP reads.
    backup_reads: AtomicU64,
    /// Batches of copied rows this node took as a starting node (node restart): a sign its copy
    /// source is alive even when too busy to answer a new connection.
    copy_batches: AtomicU64,
    /// The newest view this node opened (the one it serves in, until a newer one opens).
    opened: AtomicU64,
    /// The number the next job this node sends as a primary takes (`Job::seq`), one order for
    /// every link: begun at the microseconds since 1970 when the node started, and raised
    /// above every job any member took when the node becomes its group's primary
    /// (`Role::leveled`, `Role::level_in`).
    job_seq: AtomicU64,
    /// On a member of a group of three or more: the jobs it took from its primaries
    /// (`level`).
    taken: Mutex<level::Taken>,
    /// On a new primary of such a group: the view it brings the group level in before it
    /// serves (`level`, `crate::leveling`).
    leveling: AtomicU64,
    /// Fault injection (`cairn datanode --fault-slow-link`): the link to this node waits this
    /// long before each write.
    slow_link: std::sync::OnceLock<(u32, std::time::Duration)>,
}

/// A restarted node's copy from its primary, as it stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restart {
    /// Not restarted (a node of the configuration's first view), or its copy ended.
    No,
    /// Restarted, holding no table: replicated rows reach it before the catalog does, and
    /// are dropped (the copy reads them once they are applied on the primary).
    AwaitingCatalog,
    /// It took the catalog; copied rows and replicated commits arrive.
    Copying,
}

#[derive(Default)]
struct Unsettled {
    generation: u64,
    counts: BTreeMap<u64, usize>,
}

impl Unsettled {
    fn count(&mut self) -> u64 {
        *self.counts.entry(self.generation).or_default() += 1;
        self.generation
    }
}

/// Starts the copy to starting node `node` in view `epoch`.
pub type Copier = Box<dyn Fn(u32, u64) + Send + Sync>;

impl std::fmt::Debug for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Role")
            .field("me", &self.me)
            .field("group", &self.group)
            .field("view", &self.view())
            .finish()
    }
}

impl Role {
    /// A data node's role: `groups` are every node group of the cluster (one of them holds
    /// `me`), `api_addresses` every data node's native address.
    pub fn new(
        me: u32,
        groups: Vec<Vec<u32>>,
        api_addresses: BTreeMap<u32, String>,
        guard: Guard,
        workers: u32,
    ) -> Arc<Role> {
        let group_index = groups.iter().position(|g| g.contains(&me)).unwrap_or(0);
        let group = groups.get(group_index).cloned().unwrap_or_default();
        Arc::new(Role {
            me,
            group,
            groups,
            group_index,
            api_addresses,
            guard,
            workers,
            view: RwLock::new(ViewState::default()),
            // Nothing is served before the membership says the lease holds.
            lease: Arc::new(AtomicBool::new(false)),
            links: Mutex::new(BTreeMap::new()),
            jobs: AtomicUsize::new(0),
            last_schema: Mutex::new(None),
            commits: Mutex::new(Commits::new(COMMITS_REMEMBERED)),
            unsettled: Mutex::new(Unsettled::default()),
            copier: Mutex::new(None),
            copies: Mutex::new(BTreeSet::new()),
            copy_progress: Mutex::new(BTreeMap::new()),
            copied: Arc::new(AtomicBool::new(false)),
            primaries_learned: AtomicBool::new(false),
            restart: Mutex::new(Restart::No),
            held: Mutex::new(Default::default()),
            applying: AtomicU64::new(0),
            backup_reads: AtomicU64::new(0),
            copy_batches: AtomicU64::new(0),
            opened: AtomicU64::new(0),
            job_seq: AtomicU64::new(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |d| d.as_micros() as u64),
            ),
            taken: Mutex::new(level::Taken::default()),
            leveling: AtomicU64::new(0),
            slow_link: std::sync::OnceLock::new(),
        })
    }

    /// Adds this node's view and node group to its status report.
    pub fn describe(&self, mut status: wire::NodeStatus) -> wire::NodeStatus {
        let view = self.view();
        // The view it serves in: one installed but not open yet is not (its requests are
        // refused with a temporary error until it opens).
        status.view_epoch = self.opened.load(Ordering::Acquire);
        // The primary first: it is not always the lowest (a node that came back does not take
        // the primary's place).
        status.members = view
            .primary
            .into_iter()
            .chain(
                self.group
                    .iter()
                    .copied()
                    .filter(|n| view.members.contains(n) && view.primary != Some(*n)),
            )
            .collect();
        status.group = self.group.clone();
        status.backup_reads = self.backup_reads.load(Ordering::Relaxed);
        status.held_parts = self.held.lock().unwrap_or_else(|e| e.into_inner()).len() as u32;
        status.copies = self
            .copy_progress
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect();
        status
    }

    /// Where the copy to a starting node stands (`crate::copy`).
    pub fn copy_progress(&self, progress: wire::CopyStatus) {
        self.copy_progress
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(progress.node, progress);
    }

    /// The flag the membership thread keeps: whether the node's lease holds.
    pub fn lease(&self) -> Arc<AtomicBool> {
        self.lease.clone()
    }

    pub fn view(&self) -> ViewState {
        self.view.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The membership thread installed a view (not yet open).
    pub fn install(&self, epoch: u64, members: BTreeSet<u32>, starting: BTreeSet<u32>) {
        let mut view = self.view.write().unwrap_or_else(|e| e.into_inner());
        if epoch > view.epoch {
            let was_primary = view.primary;
            let primaries: BTreeMap<usize, u32> = self
                .groups
                .iter()
                .enumerate()
                .filter_map(|(g, nodes)| {
                    let kept = view.primaries.get(&g).filter(|p| members.contains(p));
                    let p = kept
                        .copied()
                        .or_else(|| nodes.iter().copied().find(|n| members.contains(n)))?;
                    Some((g, p))
                })
                .collect();
            let primary = primaries.get(&self.group_index).copied();
            *view = ViewState {
                epoch,
                members,
                starting,
                primary,
                primaries,
                open: false,
            };
            self.level_in(was_primary, &view);
        }
    }

    /// A starting node takes its primary's view of every group's primary (`CopyPrimaries`): a
    /// primary stays while it is a member, so the rule `install` follows needs views this node
    /// never saw (it restarted after them). Taken only in the same view; true if taken.
    pub fn learn_primaries(&self, epoch: u64, primaries: &[(u32, u32)]) -> bool {
        let mut view = self.view.write().unwrap_or_else(|e| e.into_inner());
        if view.epoch != epoch {
            return false;
        }
        let learned: BTreeMap<usize, u32> = primaries
            .iter()
            .filter(|(g, p)| {
                self.groups
                    .get(*g as usize)
                    .is_some_and(|nodes| nodes.contains(p))
                    && view.members.contains(p)
            })
            .map(|(g, p)| (*g as usize, *p))
            .collect();
        if learned != view.primaries {
            tracing::info!(
                epoch,
                was = ?view.primaries,
                now = ?learned,
                "took the node groups' primaries from the copy's primary"
            );
        }
        view.primary = learned.get(&self.group_index).copied();
        view.primaries = learned;
        self.primaries_learned.store(true, Ordering::Release);
        true
    }

    /// Whether `learn_primaries` took a copy's primaries (see `primaries_learned`).
    pub fn primaries_learned(&self) -> bool {
        self.primaries_learned.load(Ordering::Acquire)
    }

    /// The membership thread opened the view of `epoch`. A primary then starts the copy to
    /// each starting node of its group (once the group is level, when it brings it level).
    pub fn open(&self, epoch: u64) {
        {
            let mut view = self.view.write().unwrap_or_else(|e| e.into_inner());
            if view.epoch != epoch {
                return;
            }
            view.open = true;
            self.opened.fetch_max(epoch, Ordering::AcqRel);
        }
        if self.leveling().is_none() {
            self.start_copies(epoch);
        }
    }

    /// A primary starts the copy to each starting node of its group in view `epoch`.
    fn start_copies(&self, epoch: u64) {
        let starting: Vec<u32> = {
            let view = self.view.read().unwrap_or_else(|e| e.into_inner());
            if view.epoch != epoch || view.primary != Some(self.me) {
                return;
            }
            self.group
                .iter()
                .copied()
                .filter(|n| view.starting.contains(n))
                .collect()
        };
        for node in starting {
            let new = self
                .copies
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert((node, epoch));
            if new {
                if let Some(copier) = &*self.copier.lock().unwrap_or_else(|e| e.into_inner()) {
                    copier(node, epoch);
                }
            }
        }
    }

    /// Fault injection for tests: the replication link to `node` waits `delay` before each
    /// write, so that node takes this primary's jobs later than the others.
    pub fn slow_link_for_tests(&self, node: u32, delay: std::time::Duration) {
        let _ = self.slow_link.set((node, delay));
    }

    /// Sets what starts a copy to a starting node (the data node, once it runs).
    pub fn set_copier(&self, copier: Copier) {
        *self.copier.lock().unwrap_or_else(|e| e.into_inner()) = Some(copier);
    }

    /// The flag a starting node's membership reads: its copy ended.
    pub fn copied_flag(&self) -> Arc<AtomicBool> {
        self.copied.clone()
    }

    /// This node restarted empty: it takes the catalog and rows from its primary's copy.
    pub fn begin_restart(&self) {
        self.restart_log();
        *self.restart.lock().unwrap_or_else(|e| e.into_inner()) = Restart::AwaitingCatalog;
    }

    pub fn restart(&self) -> Restart {
        *self.restart.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The copy's catalog arrived (`Copying`) or the copy ended (`No`; the membership says
    /// the node caught up once its workers are done with the end too, `caught_up`).
    pub fn restart_reached(&self, now: Restart) {
        *self.restart.lock().unwrap_or_else(|e| e.into_inner()) = now;
    }

    /// Every worker is done with the copy's end (`messages::CopyEnd`): the membership may say
    /// this node caught up.
    pub fn caught_up(&self) {
        self.copied.store(true, Ordering::Release);
    }

    /// The group's primary in `view` (every partition of the group has the same primary for
    /// now; spreading primaries over the group needs steps sent to other nodes' workers).
    pub fn primary_in(&self, view: &ViewState) -> Option<u32> {
        view.primary
    }

    /// Whether `node` takes this primary's commits in `view`: a member or starting node of the
    /// group other than this one.
    fn takes_commits(&self, view: &ViewState, node: u32) -> bool {
        node != self.me && (view.members.contains(&node) || view.starting.contains(&node))
    }

    /// Whether the group has a starting node in the current view (schema changes wait).
    pub fn has_starting(&self) -> Option<u32> {
        let view = self.view();
        self.group
            .iter()
            .copied()
            .find(|n| view.starting.contains(n))
    }

    /// A commit with writes is decided here: None when the view has backups (its rows go to
    /// them first, `replicate`), else the generation it is counted in until `settled`
    /// (checked and counted under one look at the view).
    pub fn local_commit(&self) -> Option<u64> {
        let view = self.view.read().unwrap_or_else(|e| e.into_inner());
        if self.group.iter().any(|n| self.takes_commits(&view, *n)) {
            return None;
        }
        Some(
            self.unsettled
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .count(),
        )
    }

    /// A commit counted in `generation` had its workers sent their commit or abort.
    pub fn settled(&self, generation: u64) {
        let mut unsettled = self.unsettled.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = unsettled.counts.get_mut(&generation) {
            *n -= 1;
            if *n == 0 {
                unsettled.counts.remove(&generation);
            }
        }
    }

    /// Whether every commit counted before copy generation `generation` was settled.
    pub fn settled_before(&self, generation: u64) -> bool {
        self.unsettled
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .counts
            .range(..generation)
            .next()
            .is_none()
    }

    /// The epoch this node serves in as its group's primary, or why it does not. A primary
    /// that holds prepared parts its previous primary left (two-phase commit) serves no new
    /// transaction until they are resolved (`crate::indoubt`).
    pub fn serving(&self) -> Result<u64, Error> {
        let epoch = self.serving_links()?;
        let held = self.held.lock().unwrap_or_else(|e| e.into_inner()).len()
            + self.applying.load(Ordering::Acquire) as usize;
        if held > 0 {
            return Err(Error::new(
                ErrorCode::NotPrimary,
                format!(
                    "data node {} took over its node group holding {held} prepared transactions of its previous primary: it serves once they are resolved",
                    self.me
                ),
            ));
        }
        Ok(epoch)
    }

    /// `serving`, without waiting for prepared parts to be resolved: what other node groups'
    /// links (their steps, second phases and questions) need.
    pub fn serving_links(&self) -> Result<u64, Error> {
        // (Nor does it answer how a commit ended: one another member took may yet commit.)
        self.leveling_refusal()?;
        let view = self.view();
        if !view.open || !self.lease.load(Ordering::Relaxed) {
            return Err(Error::new(
                ErrorCode::NotPrimary,
                format!(
                    "data node {} is not serving: the cluster's view {} is not open here, or a member is suspected, or its lease lapsed",
                    self.me, view.epoch
                ),
            ));
        }
        match self.primary_in(&view) {
            Some(p) if p == self.me => Ok(view.epoch),
            Some(p) => Err(Error::new(
                ErrorCode::NotPrimary,
                format!(
                    "data node {} is a backup in view {}: data node {p} is the primary",
                    self.me, view.epoch
                ),
            )),
            None => Err(Error::new(
                ErrorCode::NotPrimary,
                format!("data node {} has no view", self.me),
            )),
        }
    }

    /// Whether this node may answer committed reads of READ_BACKUP tables of its group's
    /// partitions: it is a member of an open view (not a node still copying) and its read
    /// lease holds. A backup has every commit its primary acknowledged (the primary answers a
    /// client only once each backup of the view applied the rows, or left the view), and the
    /// lease ends before the others can agree a view without it, so no read here misses a
    /// commit acknowledged before the read began.
    pub fn serving_reads(&self) -> Result<u64, Error> {
        let view = self.view();
        if !view.open
            || !self.lease.load(Ordering::Relaxed)
            || !view.members.contains(&self.me)
            || view.starting.contains(&self.me)
        {
            return Err(Error::new(
                ErrorCode::NotPrimary,
                format!(
                    "data node {} serves no reads now: the cluster's view {} is not open here, it is not a member yet, or its lease lapsed",
                    self.me, view.epoch
                ),
            ));
        }
        Ok(view.epoch)
    }

    /// Counts a batch of copied rows taken (`copy_batches`).
    pub fn copy_batch_taken(&self) {
        self.copy_batches.fetch_add(1, Ordering::Relaxed);
    }

    /// Batches of copied rows taken so far.
    pub fn copy_batches(&self) -> u64 {
        self.copy_batches.load(Ordering::Relaxed)
    }

    /// Counts a request let in as a backup's READ_BACKUP read.
    pub fn count_backup_read(&self) {
        self.backup_reads.fetch_add(1, Ordering::Relaxed);
    }

    pub fn worker_count(&self) -> u32 {
        self.workers
    }

    /// What node links prove (the cluster key, a certificate of the cluster's CA).
    pub fn guard(&self) -> &Guard {
        &self.guard
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A node that restarted into a view takes the lowest member of each group as its primary;
    /// its copy's `CopyPrimaries` puts the real ones in place (in the same view only), and the
    /// views after keep them while they stay members.
    #[test]
    fn a_restarted_node_takes_each_groups_primary_from_its_copy() {
        let role = Role::new(
            2,
            vec![vec![1, 2], vec![3, 4]],
            BTreeMap::new(),
            Guard::default(),
            1,
        );
        role.install(40, [1, 3, 4].into(), [2].into());
        assert_eq!(role.view().primaries, [(0, 1), (1, 3)].into());
        // The copy's primary saw node 3 restart earlier, while node 4 served.
        assert!(!role.learn_primaries(39, &[(0, 1), (1, 4)]));
        assert!(role.learn_primaries(40, &[(0, 1), (1, 4)]));
        assert_eq!(role.view().primaries, [(0, 1), (1, 4)].into());
        assert_eq!(role.view().primary, Some(1));
        role.install(41, [1, 2, 3, 4].into(), BTreeSet::new());
        assert_eq!(role.view().primaries, [(0, 1), (1, 4)].into());
        role.install(42, [1, 2, 3].into(), BTreeSet::new());
        assert_eq!(role.view().primaries, [(0, 1), (1, 3)].into());
    }
}
