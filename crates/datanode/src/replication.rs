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

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, RwLock};
use std::thread;
use std::time::{Duration, Instant};

use base::{Error, ErrorCode};
use transport::auth::Guard;
use transport::FrameReader;
use transport::Stream;
use wire::{FrameHeader, Message};

/// Replication jobs (commits and schema changes) waiting for backups' answers, node-wide; one
/// more is refused with the temporary `Overloaded` before anything of it is sent.
pub const REPLICATION_JOBS_MAX: usize = 16_384;
/// How often a link looks at the view when nothing else happens.
const LINK_POLL: Duration = Duration::from_millis(20);
/// Between attempts to reach a backup that did not answer.
const RECONNECT_AFTER: Duration = Duration::from_millis(50);
/// How long a connection attempt, and the backup's answer to the hello, may take.
const CONNECT_TIMEOUT: Duration = Duration::from_millis(500);
/// Bytes a link queues before it writes them, whatever else waits.
const LINK_WRITE_BYTES: usize = 4 << 20;
/// Events a link takes in before it writes what they queued.
const LINK_BATCH_EVENTS: usize = 256;
/// How long one write to a backup may block.
const WRITE_TIMEOUT: Duration = Duration::from_secs(1);

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

/// What the coordinator is told when a job ends: the backups' answers, and the copy generation
/// a commit was counted in (`Role::settled` once its workers were told; 0 for other jobs and
/// for jobs refused before anything was sent).
pub type Done = Box<dyn FnOnce(Result<Vec<Message>, Error>, u64) + Send>;

struct Job {
    message: Message,
    generation: u64,
    /// A schema change: the backup's answer, success or failure, is its outcome there. (A
    /// commit's rows have no failure to report: a backup that cannot apply them stops.)
    schema: bool,
    remaining: AtomicUsize,
    answers: Mutex<Vec<Message>>,
    done: Mutex<Option<Done>>,
}

impl Job {
    /// One backup answered (None: it left the view); the last one ends the job.
    fn answered(&self, answer: Option<Message>, role: &Role) {
        if let Some(answer) = answer {
            self.answers
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(answer);
        }
        if self.remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
            role.jobs.fetch_sub(1, Ordering::Relaxed);
            let done = self.done.lock().unwrap_or_else(|e| e.into_inner()).take();
            let answers =
                std::mem::take(&mut *self.answers.lock().unwrap_or_else(|e| e.into_inner()));
            if let Some(done) = done {
                done(Ok(answers), self.generation);
            }
        }
    }
}

// An answer moves once, from the reader to the link; boxing would allocate per answer.
#[allow(clippy::large_enum_variant)]
enum LinkEvent {
    Job(Arc<Job>),
    /// An answer read on connection `generation`.
    Answer {
        generation: u64,
        request_id: u64,
        message: Message,
    },
    Closed {
        generation: u64,
    },
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

/// A commit's name: its client's session and transaction numbers.
pub type CommitName = (u64, u64);

/// The sessions that name two-phase commit decisions, one per coordinating data node: every
/// one has the top bit set, which no client's session has (`wire::CLIENT_SESSION_MAX`, checked
/// at its hello). Before that limit a client's random number matched this pattern about once
/// in 256 sessions, and another node group's primary answered "not committed" of its commit,
/// taking it for a decision it never saw (the failover tests' false "not committed").
pub const DECISION_SESSION_BASE: u64 = 0xC0DE_0000_0000_0000;
const _: () = assert!(DECISION_SESSION_BASE > wire::CLIENT_SESSION_MAX);

/// The name under which data node `coordinator`'s group records the decision of its
/// transaction `transaction` that wrote in other node groups too, and which those groups ask
/// about (`CommitOutcome`) when they hold its prepared part and lost the coordinator.
pub fn decision_name(coordinator: u32, transaction: u64) -> CommitName {
    (DECISION_SESSION_BASE | u64::from(coordinator), transaction)
}

/// The coordinator and transaction a decision's name stands for (None: not a decision's).
pub fn part_of_decision(name: CommitName) -> Option<(u32, u64)> {
    is_decision(name).then_some(((name.0 & !DECISION_SESSION_BASE) as u32, name.1))
}

fn is_decision(name: CommitName) -> bool {
    name.0 & DECISION_SESSION_BASE == DECISION_SESSION_BASE
}

/// How many commits a node remembers by name, for clients that lost their connection during
/// one (`Message::CommitOutcome`); the oldest are forgotten first.
pub const COMMITS_REMEMBERED: usize = 1 << 20;

struct Commits {
    /// How many it remembers (`COMMITS_REMEMBERED`).
    capacity: usize,
    done: std::collections::HashSet<CommitName>,
    /// The remembered commits, oldest first, with when they were recorded.
    order: std::collections::VecDeque<(CommitName, Instant)>,
    under_way: std::collections::HashSet<CommitName>,
    /// Decisions of two-phase commits (`decision_name`) that must never be made: another node
    /// group asked how one ended before it was decided, and was told "not committed". Kept
    /// as long as the commits remembered (the oldest go first).
    refused: std::collections::HashSet<CommitName>,
    refused_order: std::collections::VecDeque<CommitName>,
    /// Client sessions this node's group knows: said hello here, or named by a commit taken
    /// from the group's primary. A session it does not know may have committed in another
    /// node group: its commits' outcomes are not this group's to tell.
    sessions: std::collections::HashSet<u64>,
    sessions_order: std::collections::VecDeque<u64>,
    /// When the newest commit this node forgot was recorded: a name it does not know from
    /// after then may be a commit it forgot.
    forgot_up_to: Option<Instant>,
    /// A global checkpoint round holds new commits (`GcpStep::Hold`): its round, and since when.
    gate: Option<(u64, Instant)>,
    /// Commits waiting for the gate to open: the coordinator to tell, and its tag.
    gated: Vec<(crate::messages::ReplyTo, u64)>,
}

/// Whether a commit may begin here (`Role::commit_started`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    Go,
    /// A client that lost its connection was told it did not commit: it never may.
    Refused,
    /// A global checkpoint round holds new commits: wait for the gate (`Role::wait_for_gate`).
    Gated,
}

/// How a commit named in a `CommitOutcome` ended, as this node knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Committed,
    NotCommitted,
    /// Still under way here: ask again.
    UnderWay,
    /// Not known here: this node may have forgotten it (it remembers `COMMITS_REMEMBERED`).
    Unknown,
}

impl Commits {
    fn new(capacity: usize) -> Commits {
        Commits {
            capacity,
            done: Default::default(),
            order: Default::default(),
            under_way: Default::default(),
            refused: Default::default(),
            refused_order: Default::default(),
            sessions: Default::default(),
            sessions_order: Default::default(),
            forgot_up_to: None,
            gate: None,
            gated: Vec::new(),
        }
    }

    /// Remembers a client session (see `sessions`), as many as the commits remembered.
    fn seen(&mut self, session: u64) {
        if session != 0 && self.sessions.insert(session) {
            self.sessions_order.push_back(session);
            if self.sessions_order.len() > self.capacity {
                if let Some(old) = self.sessions_order.pop_front() {
                    self.sessions.remove(&old);
                }
            }
        }
    }

    /// Refuses the decision `name` for good (see `refused`).
    fn refuse(&mut self, name: CommitName) {
        if self.refused.insert(name) {
            self.refused_order.push_back(name);
            if self.refused_order.len() > self.capacity {
                if let Some(old) = self.refused_order.pop_front() {
                    self.refused.remove(&old);
                }
            }
        }
    }

    fn ended(&mut self, name: CommitName, committed: bool, now: Instant) {
        self.under_way.remove(&name);
        if !is_decision(name) {
            self.seen(name.0);
        }
        if committed && self.done.insert(name) {
            self.order.push_back((name, now));
            if self.order.len() > self.capacity {
                if let Some((old, at)) = self.order.pop_front() {
                    self.done.remove(&old);
                    self.forgot_up_to = Some(at);
                }
            }
        }
    }

    fn outcome(&self, name: CommitName, now: Instant) -> Outcome {
        if self.under_way.contains(&name) {
            return Outcome::UnderWay;
        }
        if self.done.contains(&name) {
            return Outcome::Committed;
        }
        match self.forgot_up_to {
            Some(at) if now.saturating_duration_since(at) < OUTCOME_WINDOW => Outcome::Unknown,
            _ => Outcome::NotCommitted,
        }
    }
}

/// How long after a commit a client may ask about it and get a sure "not committed": a name
/// unknown here is "not committed" only if this node forgot nothing recorded in this window.
pub const OUTCOME_WINDOW: Duration = Duration::from_secs(60);

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
    /// each starting node of its group.
    pub fn open(&self, epoch: u64) {
        let starting: Vec<u32> = {
            let mut view = self.view.write().unwrap_or_else(|e| e.into_inner());
            if view.epoch != epoch {
                return;
            }
            view.open = true;
            self.opened.fetch_max(epoch, Ordering::AcqRel);
            if view.primary != Some(self.me) {
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

    /// Whether a peer connection's hello may be taken: the sender is the primary of this
    /// node's view `epoch`.
    pub fn accepts_peer(&self, node: u32, epoch: u64) -> Result<(), Error> {
        let view = self.view();
        if view.epoch == epoch && self.primary_in(&view) == Some(node) && node != self.me {
            return Ok(());
        }
        if view.epoch == epoch && self.takes_schema_from_master(&view, node) {
            return Ok(());
        }
        Err(Error::new(
            ErrorCode::NotPrimary,
            format!(
                "data node {} is in view {} (primary {:?}), not in view {epoch} with {node} as primary",
                self.me,
                view.epoch,
                self.primary_in(&view)
            ),
        ))
    }

    /// Whether a replicated commit or schema change sent on a connection whose hello named
    /// `epoch` may be applied here now.
    pub fn accepts_commit(&self, epoch: u64) -> Result<(), Error> {
        self.backup_in(&self.view.read().unwrap_or_else(|e| e.into_inner()), epoch)
    }

    /// `accepts_commit`, and, when it does, records the commit named `name` as committed here
    /// under the same look at the view: a view this node opens later (as the new primary)
    /// already knows it, so no client hears "not committed" for rows about to be applied.
    pub fn take_commit(
        &self,
        epoch: u64,
        name: CommitName,
        decision: Option<CommitName>,
    ) -> Result<(), Error> {
        let view = self.view.read().unwrap_or_else(|e| e.into_inner());
        self.backup_in(&view, epoch)?;
        self.commit_ended(name, true);
        if let Some(decision) = decision {
            self.commit_ended(decision, true);
        }
        Ok(())
    }

    /// The schema master in `view`: the primary of the first node group. Every schema change
    /// of the cluster is made there, and sent from there to its backups and to every other
    /// group's primary (which sends it on to its own backups), so every catalog takes them in
    /// one order and gives tables the same ids.
    pub fn master_in(view: &ViewState) -> Option<u32> {
        view.primaries.get(&0).copied()
    }

    /// Whether this node is the schema master now.
    pub fn is_master(&self) -> bool {
        Self::master_in(&self.view()) == Some(self.me)
    }

    /// Whether `node` is the schema master of `view` and this node another group's primary in
    /// it: it takes the master's schema changes (and sends them on to its backups).
    fn takes_schema_from_master(&self, view: &ViewState, node: u32) -> bool {
        self.group_index != 0
            && Self::master_in(view) == Some(node)
            && self.primary_in(view) == Some(self.me)
    }

    /// Whether a schema change, or table ids, sent on a link whose hello named `from` and
    /// `epoch` may be done here now: as a backup of `from`'s group, or as another group's
    /// primary taking the master's (`forward`: it then sends it on to its own backups).
    pub fn accepts_schema(&self, from: u32, epoch: u64) -> Result<bool, Error> {
        let view = self.view.read().unwrap_or_else(|e| e.into_inner());
        if view.epoch == epoch && self.takes_schema_from_master(&view, from) {
            return Ok(true);
        }
        self.backup_in(&view, epoch).map(|()| false)
    }

    /// Whether `view` is the view of `epoch` and this node a backup (or starting) in it.
    fn backup_in(&self, view: &ViewState, epoch: u64) -> Result<(), Error> {
        if view.epoch == epoch && self.primary_in(view) != Some(self.me) {
            return Ok(());
        }
        Err(Error::new(
            ErrorCode::NotPrimary,
            format!(
                "data node {} is in view {}, not {epoch}: the commit is not applied",
                self.me, view.epoch
            ),
        ))
    }

    pub fn worker_count(&self) -> u32 {
        self.workers
    }

    /// What node links prove (the cluster key, a certificate of the cluster's CA).
    pub fn guard(&self) -> &Guard {
        &self.guard
    }

    /// Whether the current view has a backup (or starting node) for this node to send its
    /// commits to.
    pub fn has_backups(&self) -> bool {
        let view = self.view();
        self.group.iter().any(|n| self.takes_commits(&view, *n))
    }

    /// Sends `message` to every backup of the group in the current view; `done` is called once
    /// each answered or left the view (at once, with no answers, when there is no backup).
    /// Fails without sending anything when this node is no longer the primary, or (`bounded`,
    /// for commits) when too many jobs wait.
    pub fn replicate(self: &Arc<Role>, message: Message, bounded: bool, done: Done) {
        self.send_job(message, None, bounded, done);
    }

    /// Sends part of a copy to starting node `node` on its link, after every commit queued
    /// there; `done` as for `replicate` (no answers when the node left the view). A
    /// `CopyCatalog` begins a new copy generation: returned, for `settled_before`.
    pub fn send_copy(self: &Arc<Role>, node: u32, message: Message, done: Done) -> u64 {
        self.send_job(message, Some(node), false, done)
    }

    fn send_job(
        self: &Arc<Role>,
        message: Message,
        only: Option<u32>,
        bounded: bool,
        done: Done,
    ) -> u64 {
        // The view is read, and a commit counted in it, under one look: a copy that begins
        // once a view adds a starting node waits for every commit sent without it.
        let guard = self.view.read().unwrap_or_else(|e| e.into_inner());
        let view = guard.clone();
        if self.primary_in(&view) != Some(self.me) {
            drop(guard);
            done(
                Err(Error::new(
                    ErrorCode::ViewChanged,
                    format!(
                        "data node {} is no longer the primary in the cluster's view {}",
                        self.me, view.epoch
                    ),
                )),
                0,
            );
            return 0;
        }
        // A commit's rows and a copy go to starting nodes too; a schema change only to
        // members (a starting node takes the whole catalog in its copy, and none changes
        // while it copies).
        let schema = !matches!(
            message,
            Message::Replicate { .. }
                | Message::Prepared { .. }
                | Message::Resolve { .. }
                | Message::CopyCatalog { .. }
                | Message::CopyRows { .. }
                | Message::CopyNames { .. }
                | Message::CopyPrimaries { .. }
                | Message::CopyDone { .. }
        );
        let mut backups: Vec<u32> = self
            .group
            .iter()
            .copied()
            .filter(|n| only.is_none_or(|o| o == *n))
            .filter(|n| {
                if schema {
                    *n != self.me && view.members.contains(n)
                } else {
                    self.takes_commits(&view, *n)
                }
            })
            .collect();
        let own_group_only = matches!(message, Message::Gcp { .. });
        if schema && !own_group_only && only.is_none() && Self::master_in(&view) == Some(self.me) {
            // The master's schema changes go to every other group's primary too (a global
            // checkpoint's step only to its own backups: the master sends it to the other
            // groups itself, on the step links).
            backups.extend(
                view.primaries
                    .iter()
                    .filter(|(g, _)| **g != self.group_index)
                    .map(|(_, p)| *p),
            );
        }
        if !backups.is_empty()
            && self.jobs.fetch_add(1, Ordering::Relaxed) >= REPLICATION_JOBS_MAX
            && bounded
        {
            self.jobs.fetch_sub(1, Ordering::Relaxed);
            drop(guard);
            done(
                Err(Error::new(
                    ErrorCode::Overloaded,
                    format!("{REPLICATION_JOBS_MAX} commits are waiting for backups; retry"),
                )),
                0,
            );
            return 0;
        }
        // A commit is counted, and a copy's catalog begins a generation, together with putting
        // them on the links, so every link holds the commits of older generations first.
        let mut links = self.links.lock().unwrap_or_else(|e| e.into_inner());
        let generation = {
            let mut unsettled = self.unsettled.lock().unwrap_or_else(|e| e.into_inner());
            match message {
                Message::Replicate { .. } | Message::Resolve { commit: true, .. } => {
                    unsettled.count()
                }
                // A prepared part is counted until it is recorded in doubt (`send_prepared`), so
                // a copy that begins finds it there and sends it (`crate::copy`); the copy's
                // own sending of it is not counted.
                Message::Prepared { .. } if only.is_none() => unsettled.count(),
                Message::CopyCatalog { .. } => {
                    unsettled.generation += 1;
                    unsettled.generation
                }
                _ => 0,
            }
        };
        drop(guard);
        if backups.is_empty() {
            drop(links);
            done(Ok(Vec::new()), generation);
            return generation;
        }
        let job = Arc::new(Job {
            schema,
            generation,
            message,
            remaining: AtomicUsize::new(backups.len()),
            answers: Mutex::new(Vec::new()),
            done: Mutex::new(Some(done)),
        });
        for peer in backups {
            let link = links.entry(peer).or_insert_with(|| self.spawn_link(peer));
            // The link's thread runs as long as the process: a send cannot fail.
            let _ = link.send(LinkEvent::Job(job.clone()));
        }
        generation
    }

    /// Starts the link to `peer`. A thread that cannot start leaves the node unable to reach a
    /// backup, with commits waiting for it: a broken invariant, so the node stops (the panic
    /// hook ends the process).
    fn spawn_link(self: &Arc<Role>, peer: u32) -> Sender<LinkEvent> {
        let (tx, rx) = mpsc::channel();
        let role = self.clone();
        let answers = tx.clone();
        let spawned = thread::Builder::new()
            .name(format!("replica-link-{peer}"))
            .spawn(move || Link::new(role, peer, answers).run(rx));
        if let Err(e) = spawned {
            panic!("starting the replication link to data node {peer}: {e}");
        }
        tx
    }

    /// Remembers the answer to a schema change a primary sent (`Some` once done), so the same
    /// job sent again after a lost connection is answered as before, not done twice.
    pub fn schema_job(&self, node: u32, request_id: u64) -> SchemaJob {
        let mut last = self.last_schema.lock().unwrap_or_else(|e| e.into_inner());
        match &*last {
            Some((n, id, Some(answer))) if (*n, *id) == (node, request_id) => {
                SchemaJob::Done(Box::new(answer.clone()))
            }
            Some((n, id, None)) if (*n, *id) == (node, request_id) => SchemaJob::Running,
            _ => {
                *last = Some((node, request_id, None));
                SchemaJob::New
            }
        }
    }

    /// The schema change `request_id` from `node` ended here with `answer`. A temporary failure
    /// (nothing changed; retry) is not kept: the same job sent again runs again.
    pub fn schema_job_done(&self, node: u32, request_id: u64, answer: &Message) {
        let mut last = self.last_schema.lock().unwrap_or_else(|e| e.into_inner());
        if last
            .as_ref()
            .is_some_and(|(n, id, _)| (*n, *id) == (node, request_id))
        {
            *last = match answer {
                Message::Failure(e) if e.is_temporary() => None,
                answer => Some((node, request_id, Some(answer.clone()))),
            };
        }
    }
}

impl Role {
    /// A commit named `name` is under way here: its rows are going to the backups (or its
    /// other groups prepare). `Refused`, and nothing recorded, when a client that lost its
    /// connection was already told it did not commit (`commit_outcome`): it never may.
    /// `Gated`, and nothing recorded, when a global checkpoint round holds new commits and
    /// this one is not under way yet (`gated`: the caller would wait; a commit going on from
    /// an earlier step passes false).
    #[must_use]
    pub fn commit_started(&self, name: CommitName, gated: bool) -> Start {
        let mut c = self.commits.lock().unwrap_or_else(|e| e.into_inner());
        if name.0 != 0 && c.refused.contains(&name) {
            return Start::Refused;
        }
        if gated && c.gate.is_some() && !c.under_way.contains(&name) {
            return Start::Gated;
        }
        if name.0 != 0 {
            c.under_way.insert(name);
        }
        Start::Go
    }

    /// A commit `commit_started` found gated waits: `tag` goes to coordinator `to` when the
    /// gate opens (`open_gate`). False when it is open already (begin the commit again now).
    pub fn wait_for_gate(&self, to: crate::messages::ReplyTo, tag: u64) -> bool {
        let mut c = self.commits.lock().unwrap_or_else(|e| e.into_inner());
        if c.gate.is_none() {
            return false;
        }
        c.gated.push((to, tag));
        true
    }

    /// Holds new commits for global checkpoint round `round`; returns the commits under way
    /// now, which the round waits for (`drained`).
    pub fn close_gate(&self, round: u64) -> Vec<CommitName> {
        let mut c = self.commits.lock().unwrap_or_else(|e| e.into_inner());
        c.gate = Some((round, Instant::now()));
        c.under_way.iter().copied().collect()
    }

    /// Those of `names` still under way.
    pub fn still_under_way(&self, names: &[CommitName]) -> Vec<CommitName> {
        let c = self.commits.lock().unwrap_or_else(|e| e.into_inner());
        names
            .iter()
            .filter(|n| c.under_way.contains(n))
            .copied()
            .collect()
    }

    /// Whether none of `names` is under way any more.
    pub fn drained(&self, names: &[CommitName]) -> bool {
        self.still_under_way(names).is_empty()
    }

    /// The round holding new commits, and since when (None: they go).
    pub fn gate(&self) -> Option<(u64, Instant)> {
        self.commits.lock().unwrap_or_else(|e| e.into_inner()).gate
    }

    /// Lets commits begin again; returns the ones waiting, to be told (`wait_for_gate`).
    pub fn open_gate(&self) -> Vec<(crate::messages::ReplyTo, u64)> {
        let mut c = self.commits.lock().unwrap_or_else(|e| e.into_inner());
        c.gate = None;
        std::mem::take(&mut c.gated)
    }

    /// The commit named `name` ended here: committed or not.
    pub fn commit_ended(&self, name: CommitName, committed: bool) {
        if name.0 == 0 {
            return;
        }
        let mut c = self.commits.lock().unwrap_or_else(|e| e.into_inner());
        c.ended(name, committed, Instant::now());
    }

    /// How the commit named `name` ended, as this node (its group's primary) knows it. A
    /// two-phase commit's decision not made yet is refused for good as it is answered "not
    /// committed", so the answer stays true.
    pub fn commit_outcome(&self, name: CommitName) -> Outcome {
        let mut c = self.commits.lock().unwrap_or_else(|e| e.into_inner());
        let outcome = c.outcome(name, Instant::now());
        if is_decision(name) && outcome != Outcome::Committed && outcome != Outcome::UnderWay {
            // Refused for good either way; but a decision this node may have forgotten (it
            // forgot commits lately) may have been made: that is not "not committed".
            c.refuse(name);
            return if outcome == Outcome::Unknown {
                Outcome::Unknown
            } else {
                Outcome::NotCommitted
            };
        }
        if outcome == Outcome::NotCommitted && !is_decision(name) && !c.sessions.contains(&name.0) {
            // Not a session of this group's: it may have committed in another group.
            return Outcome::Unknown;
        }
        if outcome == Outcome::NotCommitted {
            // Its coordinator may still be running it (the client lost its connection while
            // the transaction's steps were out): refused for good, so the answer stays true.
            c.refuse(name);
        }
        outcome
    }

    /// The names of the commits this node recorded within `OUTCOME_WINDOW` (the ones a client
    /// may still ask about), oldest first: for a copy to a starting node (`Message::CopyNames`).
    pub fn recent_commits(&self) -> Vec<CommitName> {
        let c = self.commits.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        c.order
            .iter()
            .filter(|(_, at)| now.saturating_duration_since(*at) < OUTCOME_WINDOW)
            .map(|(name, _)| *name)
            .collect()
    }

    /// A client said hello to this node with `session`.
    pub fn session_seen(&self, session: u64) {
        self.commits
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .seen(session);
    }

    /// This node, coordinating a transaction that wrote in several node groups, decides to
    /// commit it (`decision_name`): false when another group was told it did not commit.
    pub fn begin_decision(&self, name: CommitName) -> bool {
        let mut c = self.commits.lock().unwrap_or_else(|e| e.into_inner());
        if c.refused.contains(&name) {
            return false;
        }
        c.under_way.insert(name);
        true
    }

    /// On a backup: holds the rows of a prepared part (`Message::Prepared`) until `Resolve`.
    pub fn hold(&self, part: (u32, u64), changes: Vec<wire::RowChange>) {
        self.held
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(part, changes);
    }

    /// Takes a held prepared part's rows (None: not held, or resolved already).
    pub fn take_held(&self, part: (u32, u64)) -> Option<Vec<wire::RowChange>> {
        self.held
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&part)
    }

    /// Takes a held part to commit: the node still does not serve until `applied_held`, once
    /// its rows are on their way to the workers (ahead of any request after).
    pub fn take_held_to_apply(&self, part: (u32, u64)) -> Option<Vec<wire::RowChange>> {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        let rows = held.remove(&part)?;
        self.applying.fetch_add(1, Ordering::AcqRel);
        Some(rows)
    }

    /// A part taken with `take_held_to_apply` was handed to the workers.
    pub fn applied_held(&self) {
        self.applying.fetch_sub(1, Ordering::AcqRel);
    }

    /// Runs `f` over the prepared parts this node holds as a backup, none resolved meanwhile
    /// (a resolution takes the part first, then sends its `Resolve`).
    pub fn with_held<T>(
        &self,
        f: impl FnOnce(&std::collections::HashMap<(u32, u64), Vec<wire::RowChange>>) -> T,
    ) -> T {
        f(&self.held.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// The prepared parts this node holds as a backup, by coordinator and transaction.
    pub fn held_parts(&self) -> Vec<(u32, u64)> {
        self.held
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .keys()
            .copied()
            .collect()
    }
}

/// What a backup does with a schema change its primary sent.
pub enum SchemaJob {
    New,
    /// Sent again while the first copy still runs: answer "retry".
    Running,
    /// Done before: its answer again.
    Done(Box<Message>),
}

/// The primary's side of one backup's link.
struct Link {
    role: Arc<Role>,
    peer: u32,
    /// Where the connection's reader sends the answers it reads.
    answers: Sender<LinkEvent>,
    /// The connection, its generation and the epoch its hello named.
    connection: Option<(Stream, u64, u64)>,
    generation: u64,
    /// Jobs sent and not answered, by request id (ascending: the order they were sent in).
    in_flight: BTreeMap<u64, Arc<Job>>,
    next_id: u64,
    retry_at: Instant,
    /// Frames queued for the next write.
    out: Vec<u8>,
}

impl Link {
    fn new(role: Arc<Role>, peer: u32, answers: Sender<LinkEvent>) -> Link {
        Link {
            role,
            peer,
            answers,
            connection: None,
            generation: 0,
            in_flight: BTreeMap::new(),
            next_id: 1,
            retry_at: Instant::now(),
            out: Vec::new(),
        }
    }

    fn run(mut self, events: Receiver<LinkEvent>) {
        loop {
            match events.recv_timeout(LINK_POLL) {
                Ok(event) => {
                    self.on_event(event);
                    // What else waits goes out in the same write (a group of commits).
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
            let view = self.role.view();
            if !view.members.contains(&self.peer) && !view.starting.contains(&self.peer) {
                // An agreed view without the backup: it stops serving, and what it did not
                // answer is done without it.
                for (_, job) in std::mem::take(&mut self.in_flight) {
                    job.answered(None, &self.role);
                }
                self.close();
                continue;
            }
            if self.connection.as_ref().is_some_and(|c| c.2 != view.epoch) {
                self.close();
            }
            if self.connection.is_none()
                && !self.in_flight.is_empty()
                && Instant::now() >= self.retry_at
            {
                self.connect(view.epoch);
            }
        }
    }

    fn on_event(&mut self, event: LinkEvent) {
        match event {
            LinkEvent::Job(job) => {
                let id = self.next_id;
                self.next_id += 1;
                self.in_flight.insert(id, job.clone());
                self.send(id, &job);
            }
            LinkEvent::Answer {
                generation,
                request_id,
                message,
            } => self.on_answer(generation, request_id, message),
            LinkEvent::Closed { generation } => {
                if self.connection.as_ref().is_some_and(|c| c.1 == generation) {
                    self.close();
                }
            }
        }
    }

    fn on_answer(&mut self, generation: u64, request_id: u64, message: Message) {
        if self.connection.as_ref().map(|c| c.1) != Some(generation) {
            return;
        }
        match message {
            // The backup's view is not this one: it applied nothing. Sent again once the
            // views agree (a new connection names the epoch), or until the view drops it.
            Message::Failure(e) if e.code == ErrorCode::NotPrimary => {
                tracing::debug!(peer = self.peer, "backup refused: {}", e.message);
                self.close();
            }
            // Busy: sent again after a pause.
            Message::Failure(e) if e.is_temporary() => {
                tracing::debug!(peer = self.peer, "backup asks to retry: {}", e.message);
                self.close();
            }
            // A schema change that failed there too: its outcome, for the primary to compare.
            Message::Failure(e)
                if self
                    .in_flight
                    .get(&request_id)
                    .is_some_and(|job| job.schema) =>
            {
                if let Some(job) = self.in_flight.remove(&request_id) {
                    job.answered(Some(Message::Failure(e)), &self.role);
                }
            }
            // A backup that cannot apply a commit's rows stops itself (fail-stop); the job
            // waits for the view without it.
            Message::Failure(e) => {
                tracing::error!(
                    peer = self.peer,
                    "backup failed a replicated commit: {}",
                    e.message
                );
                self.close();
            }
            answer => {
                if let Some(job) = self.in_flight.remove(&request_id) {
                    job.answered(Some(answer), &self.role);
                }
            }
        }
    }

    /// Queues a job's frame for the next `flush` (nothing while there is no connection: a
    /// new one sends every job in flight).
    fn send(&mut self, id: u64, job: &Job) {
        if self.connection.is_some() {
            job.message.write_frame(&mut self.out, 0, 0, id);
            if self.out.len() >= LINK_WRITE_BYTES {
                self.flush();
            }
        }
    }

    /// Writes the queued frames in one go.
    fn flush(&mut self) {
        if self.out.is_empty() {
            return;
        }
        let written = match &mut self.connection {
            Some((stream, _, _)) => stream.write_all(&self.out).is_ok(),
            None => true,
        };
        self.out.clear();
        if !written {
            self.close();
        }
    }

    fn close(&mut self) {
        if let Some((stream, _, _)) = self.connection.take() {
            stream.shutdown();
        }
        self.out.clear();
        self.retry_at = Instant::now() + RECONNECT_AFTER;
    }

    /// Dials the backup, says hello with the view's epoch, and sends every unanswered job again.
    fn connect(&mut self, epoch: u64) {
        self.retry_at = Instant::now() + RECONNECT_AFTER;
        let Some(address) = self.role.api_addresses.get(&self.peer).cloned() else {
            return;
        };
        let stream = match self.dial(&address, epoch) {
            Ok(s) => s,
            Err(why) => {
                tracing::debug!(peer = self.peer, "replication link to {address}: {why}");
                return;
            }
        };
        let reader = match stream.try_clone() {
            Ok(r) => r,
            Err(_) => return,
        };
        self.generation += 1;
        let generation = self.generation;
        let answers = self.answers.clone();
        let spawned = thread::Builder::new()
            .name(format!("replica-read-{}", self.peer))
            .spawn(move || read_answers(reader, generation, answers));
        if spawned.is_err() {
            return;
        }
        self.connection = Some((stream, generation, epoch));
        let jobs: Vec<(u64, Arc<Job>)> = self
            .in_flight
            .iter()
            .map(|(id, job)| (*id, job.clone()))
            .collect();
        for (id, job) in jobs {
            self.send(id, &job);
        }
        self.flush();
    }

    fn dial(&self, address: &str, epoch: u64) -> Result<Stream, String> {
        let hello = Message::PeerHello {
            node_id: self.role.me,
            epoch,
        };
        dial(address, &self.role, &hello, "backup")
    }
}

/// Dials a data node of this cluster for a node link, proves what the guard asks (cluster key, TLS), says `hello`,
/// and checks that it runs as many workers as this node (a partition's worker is the same on
/// every node). `what` names the peer in errors.
pub(crate) fn dial(
    address: &str,
    role: &Role,
    hello: &Message,
    what: &str,
) -> Result<Stream, String> {
    let stream = transport::connect_stream(address, CONNECT_TIMEOUT).map_err(|e| e.to_string())?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let mut stream = role.guard.client(stream).map_err(|e| e.to_string())?;
    let mut frame = Vec::new();
    hello.write_frame(&mut frame, 0, 0, 0);
    stream.write_all(&frame).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(CONNECT_TIMEOUT))
        .map_err(|e| e.to_string())?;
    let mut reader = FrameReader::new(stream.try_clone().map_err(|e| e.to_string())?);
    let answer = reader.read().map_err(|e| e.to_string())?;
    stream.set_read_timeout(None).map_err(|e| e.to_string())?;
    // A peer that stops reading (stopped, or cut off) must not hold the link: the write
    // fails, and the link dials again or finds the peer gone from the view.
    stream
        .set_write_timeout(Some(WRITE_TIMEOUT))
        .map_err(|e| e.to_string())?;
    match answer {
        Some((_, Message::HelloReply { worker_count, .. })) if worker_count == role.workers => {
            Ok(stream)
        }
        Some((_, Message::HelloReply { worker_count, .. })) => Err(format!(
            "the {what} runs {worker_count} workers and this node {}: every data node must run as many (each partition belongs to one worker)",
            role.workers
        )),
        Some((_, Message::Failure(e))) => Err(e.message),
        Some((_, other)) => Err(format!("answered hello with message {}", other.type_code())),
        None => Err("closed before answering hello".into()),
    }
}

/// Reads a backup's answers until the connection ends.
fn read_answers(stream: Stream, generation: u64, answers: Sender<LinkEvent>) {
    read_frames(
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

/// Reads a node link's answers, handing each to `answer` (which says whether to go on), and
/// calls `closed` once the connection ends.
pub(crate) fn read_frames(
    stream: Stream,
    mut answer: impl FnMut(u64, Message) -> bool,
    closed: impl FnOnce(),
) {
    let mut reader = FrameReader::new(stream);
    loop {
        match reader.read() {
            Ok(Some((header, message))) => {
                let FrameHeader { request_id, .. } = header;
                if !answer(request_id, message) {
                    return;
                }
            }
            Ok(None) | Err(_) => return closed(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A commit the node still remembers is known; one under way is "ask again"; a name it does
    /// not know is "not committed" only when it forgot nothing recent, else unknown.
    #[test]
    fn commit_outcomes_are_sure_only_while_nothing_recent_was_forgotten() {
        let start = Instant::now();
        let mut c = Commits::new(2);
        c.ended((1, 1), true, start);
        c.ended((1, 2), false, start);
        assert_eq!(c.outcome((1, 1), start), Outcome::Committed);
        assert_eq!(c.outcome((1, 2), start), Outcome::NotCommitted);
        c.under_way.insert((1, 3));
        assert_eq!(c.outcome((1, 3), start), Outcome::UnderWay);
        c.ended((1, 3), true, start);
        c.ended((1, 4), true, start);
        // (1, 1) is forgotten now: it, and any name not known, may have committed.
        assert_eq!(c.outcome((1, 1), start), Outcome::Unknown);
        assert_eq!(c.outcome((9, 9), start), Outcome::Unknown);
        assert_eq!(c.outcome((1, 4), start), Outcome::Committed);
        // Once the forgotten ones are older than any question may be, not knowing is sure.
        let later = start + OUTCOME_WINDOW;
        assert_eq!(c.outcome((9, 9), later), Outcome::NotCommitted);
    }

    /// A client told "not committed" of a name its coordinator had not begun to commit (the
    /// client lost its connection while the transaction's steps were out) fences that commit:
    /// it may never start. One under way is "ask again", and then ends as it ends.
    #[test]
    fn a_not_committed_answer_fences_the_commit_it_names() {
        let role = Role::new(
            1,
            vec![vec![1, 2], vec![3, 4]],
            BTreeMap::new(),
            Guard::default(),
            1,
        );
        role.session_seen(7);
        assert_eq!(role.commit_outcome((7, 1)), Outcome::NotCommitted);
        assert_eq!(
            role.commit_started((7, 1), true),
            Start::Refused,
            "told not committed: never starts"
        );
        assert_eq!(role.commit_started((7, 2), true), Start::Go);
        assert_eq!(role.commit_outcome((7, 2)), Outcome::UnderWay);
        role.commit_ended((7, 2), true);
        assert_eq!(role.commit_outcome((7, 2)), Outcome::Committed);
        // A session this group never saw may have committed in another group.
        assert_eq!(role.commit_outcome((8, 1)), Outcome::Unknown);
        assert_eq!(role.commit_started((8, 1), true), Start::Go);
    }

    /// A global checkpoint round's gate: commits not begun wait, commits under way go on and
    /// are the ones the round waits for; opening it tells the waiting ones.
    #[test]
    fn a_closed_gate_holds_new_commits_and_waits_for_those_under_way() {
        let role = Role::new(1, vec![vec![1, 2]], BTreeMap::new(), Guard::default(), 1);
        let to = crate::messages::ReplyTo {
            worker: 0,
            connection: 5,
        };
        assert_eq!(role.commit_started((7, 1), true), Start::Go);
        assert!(!role.wait_for_gate(to, 1), "open: nothing to wait for");
        let under_way = role.close_gate(3);
        assert_eq!(under_way, vec![(7, 1)]);
        assert!(!role.drained(&under_way));
        assert_eq!(role.commit_started((7, 2), true), Start::Gated);
        assert!(role.wait_for_gate(to, 9));
        // The commit under way goes on to its next step (a two-phase decision) and ends.
        assert_eq!(role.commit_started((7, 1), true), Start::Go);
        role.commit_ended((7, 1), true);
        assert!(role.drained(&under_way));
        assert_eq!(role.gate().map(|(r, _)| r), Some(3));
        assert_eq!(role.open_gate(), vec![(to, 9)]);
        assert_eq!(role.commit_started((7, 2), true), Start::Go);
    }

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
