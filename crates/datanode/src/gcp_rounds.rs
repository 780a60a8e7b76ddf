//! The cluster's global checkpoint rounds (`interval` durability with node groups, NDB's GCP
//! across nodes): what makes a system restart bring every node group back to one point of the
//! commit order, not each node to its own.
//!
//! Every interval the schema master (the first group's primary) runs a round `r` (its view's
//! epoch × 2^32 + a counter), each step sent to every group's primary (the master's own on this
//! node, the others on the step links), and by each primary to its member backups
//! (`Message::Gcp`):
//!
//! 1. `Hold`: each primary begins no new commit (they wait at the gate, `Role::commit_started`)
//!    and answers once every commit under way on it ended: applied on every replica.
//! 2. `Cut`: nothing commits anywhere now. Every node notes its commit sequence as the
//!    round's cut: its commits numbered below it are exactly the round's and the earlier ones'.
//! 3. `Save`: the gates open; every node makes its commits below the cut durable (a barrier
//!    through every worker, fsyncing) and records (r, cut) in its `gcp` file.
//! 4. `Saved`: every node saved r: each records r as complete.
//!
//! A commit a client saw acknowledged before another began is in the same round or an earlier
//! one (the second waited at a gate until every node had read its cut), so restoring every
//! node to the cuts of one complete round (`DataNodeConfig::restore_round`, the newest any
//! node records as complete: each node saved it before any recorded it complete) is a prefix
//! of the commit order across the cluster. A view change abandons the round (every step checks
//! the round's epoch); a gate held longer than `HOLD_MAX`, or past a view change, opens on its
//! own, and that round's save then fails here.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use base::{Error, ErrorCode};
use wire::{GcpStep, Message};

use crate::messages::{Event, ToWorker};
use crate::Shared;

/// How long a `Hold` waits for the commits under way to end before the round gives up (new
/// commits wait that long at most).
const DRAIN_MAX: Duration = Duration::from_secs(1);
/// How long a gate stays closed at most: past it the round is taken as abandoned.
const HOLD_MAX: Duration = Duration::from_secs(2);
/// How long the master waits for every node's answer to one step.
const STEP_MAX: Duration = Duration::from_secs(10);
/// How long a column change, a copy or a checkpoint waits for a complete round to cover its
/// commits (`wait_covered`).
pub const COVER_MAX: Duration = Duration::from_secs(60);

/// Told once how a step went on this node (and its backups, on a primary).
pub type StepDone = Box<dyn FnOnce(Result<(), Error>) + Send>;

/// A step for this node's participant thread.
pub struct Job {
    round: u64,
    step: GcpStep,
    done: StepDone,
}

/// The queue to this node's participant thread.
pub struct Rounds {
    jobs: Sender<Job>,
}

impl Rounds {
    /// The queue, and its receiving end for `spawn`.
    pub fn new() -> (Rounds, Receiver<Job>) {
        let (tx, rx) = mpsc::channel();
        (Rounds { jobs: tx }, rx)
    }

    /// Runs `step` of round `round` here (and on the backups, on a primary); `done` hears.
    pub fn step(&self, round: u64, step: GcpStep, done: StepDone) {
        let job = Job { round, step, done };
        if let Err(mpsc::SendError(job)) = self.jobs.send(job) {
            (job.done)(Err(stopping()));
        }
    }
}

fn stopping() -> Error {
    Error::new(ErrorCode::ShuttingDown, "the data node is stopping")
}

/// A step that failed here: permanent, so a backup's replication link does not send it again
/// (a stale round at the head of the link held back everything after it, a starting node's
/// copy included); the round is abandoned and the next one starts afresh.
fn failed(why: impl Into<String>) -> Error {
    Error::new(ErrorCode::BadRequest, why)
}

/// Whether this node takes part in the cluster's rounds: `interval` durability in a cluster.
fn active(shared: &Shared) -> bool {
    shared.rounds.is_some()
}

/// Starts this node's participant thread and the master's loop (which runs rounds while this
/// node is the schema master), every `every`.
pub fn spawn(shared: Weak<Shared>, jobs: Receiver<Job>, every: Duration) -> std::io::Result<()> {
    let participant = shared.clone();
    std::thread::Builder::new()
        .name("gcp-participant".into())
        .spawn(move || participate(participant, jobs))?;
    let watched = shared.clone();
    std::thread::Builder::new()
        .name("gcp-gate".into())
        .spawn(move || watch_gate(watched))?;
    std::thread::Builder::new()
        .name("gcp-master".into())
        .spawn(move || master(shared, every))?;
    Ok(())
}

/// The gate's watchdog: a gate held longer than `HOLD_MAX`, or past its round's view, opens
/// (whatever the participant's thread is waiting for meanwhile).
fn watch_gate(shared: Weak<Shared>) {
    loop {
        std::thread::sleep(Duration::from_millis(10));
        let Some(shared) = shared.upgrade() else {
            return;
        };
        let Some(role) = shared.role.clone() else {
            return;
        };
        if shared.stopping.load(Ordering::SeqCst) || shared.failure().is_some() {
            wake(&shared, role.open_gate());
            return;
        }
        if let Some((round, since)) = role.gate() {
            if since.elapsed() > HOLD_MAX || role.view().epoch != round >> 32 {
                tracing::info!(round, "a global checkpoint round held commits too long, or its view changed: the gate opens");
                wake(&shared, role.open_gate());
            }
        }
    }
}

/// This node's side of the rounds, one step at a time.
fn participate(shared: Weak<Shared>, jobs: Receiver<Job>) {
    // The cuts noted for rounds not saved yet.
    let mut cuts: BTreeMap<u64, u64> = BTreeMap::new();
    loop {
        let job = jobs.recv_timeout(Duration::from_millis(50));
        let Some(shared) = shared.upgrade() else {
            return;
        };
        if shared.stopping.load(Ordering::SeqCst) || shared.failure().is_some() {
            return;
        }
        let Some(role) = shared.role.clone() else {
            return;
        };
        let job = match job {
            Ok(job) => job,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => return,
        };
        let Job { round, step, done } = job;
        let result = run_step(&shared, &role, &mut cuts, round, step);
        done(result);
    }
}

fn run_step(
    shared: &Arc<Shared>,
    role: &Arc<crate::replication::Role>,
    cuts: &mut BTreeMap<u64, u64>,
    round: u64,
    step: GcpStep,
) -> Result<(), Error> {
    let view = role.view();
    if view.epoch != round >> 32 || !view.open {
        return Err(failed(format!(
            "global checkpoint round {round} belongs to view {}; this node is in view {}",
            round >> 32,
            view.epoch
        )));
    }
    let primary = view.primary == Some(role.me);
    match step {
        GcpStep::Hold => {
            if !primary {
                return Err(failed("a round's hold goes to a node group's primary"));
            }
            let under_way = role.close_gate(round);
            let deadline = Instant::now() + DRAIN_MAX;
            while !role.drained(&under_way) {
                if Instant::now() >= deadline || role.view().epoch != view.epoch {
                    wake(shared, role.open_gate());
                    let left = role.still_under_way(&under_way);
                    return Err(failed(format!(
                        "global checkpoint round {round}: {} commits under way did not end within {DRAIN_MAX:?} (the first: {:?})",
                        left.len(),
                        &left[..left.len().min(3)]
                    )));
                }
                std::thread::sleep(Duration::from_micros(200));
            }
            Ok(())
        }
        GcpStep::Cut => {
            if primary && role.gate().map(|(r, _)| r) != Some(round) {
                return Err(failed(format!(
                    "global checkpoint round {round}: this node's gate is not held for it"
                )));
            }
            cuts.retain(|r, _| *r >= round >> 32 << 32);
            cuts.insert(round, shared.sequence.load(Ordering::SeqCst));
            forward(role, primary, round, step)
        }
        GcpStep::Save => {
            if primary {
                // Held through the cut on every node? Else commits began before some node
                // read its cut, and the round is not a consistent one.
                let held = role.gate().map(|(r, _)| r) == Some(round);
                wake(shared, role.open_gate());
                if !held {
                    return Err(failed(format!(
                        "global checkpoint round {round}: the gate opened before the save"
                    )));
                }
            }
            let Some(cut) = cuts.remove(&round) else {
                return Err(failed(format!(
                    "global checkpoint round {round}: no cut noted here"
                )));
            };
            crate::gcp::barrier(shared, false).map_err(failed)?;
            crate::gcp::barrier(shared, true).map_err(failed)?;
            if let Some(durable) = &shared.gcp {
                if let Err(why) = durable.record_round(round, cut) {
                    shared.fail(why.clone());
                    return Err(Error::new(ErrorCode::Internal, why));
                }
            }
            forward(role, primary, round, step)
        }
        GcpStep::Saved => {
            if let Some(durable) = &shared.gcp {
                if let Err(why) = durable.round_complete(round) {
                    shared.fail(why.clone());
                    return Err(Error::new(ErrorCode::Internal, why));
                }
            }
            forward(role, primary, round, step)
        }
    }
}

/// On a primary: the step goes to the group's member backups too; returns once each answered.
fn forward(
    role: &Arc<crate::replication::Role>,
    primary: bool,
    round: u64,
    step: GcpStep,
) -> Result<(), Error> {
    if !primary {
        return Ok(());
    }
    let (tx, rx) = mpsc::sync_channel(1);
    role.replicate(
        Message::Gcp { round, step },
        false,
        Box::new(move |result, _| {
            let _ = tx.send(result);
        }),
    );
    // Waited for until answered, or until the round's view is gone (a member that was down
    // never answers; the view without it ends the wait).
    let deadline = Instant::now() + STEP_MAX;
    let answer = loop {
        match rx.recv_timeout(Duration::from_millis(20)) {
            Err(mpsc::RecvTimeoutError::Timeout)
                if Instant::now() < deadline && role.view().epoch == round >> 32 => {}
            other => break other,
        }
    };
    match answer {
        Ok(Ok(answers)) => match answers.into_iter().find(|m| !matches!(m, Message::Done)) {
            None => Ok(()),
            Some(Message::Failure(e)) => Err(e),
            Some(other) => Err(failed(format!(
                "a backup answered a global checkpoint step with message {}",
                other.type_code()
            ))),
        },
        Ok(Err(e)) => Err(e),
        Err(_) => Err(failed(format!(
            "the backups did not answer global checkpoint round {round} (within {STEP_MAX:?}, in its view)"
        ))),
    }
}

/// Tells the commits that waited at the gate to begin.
fn wake(shared: &Shared, waiting: Vec<(crate::messages::ReplyTo, u64)>) {
    for (to, tag) in waiting {
        if let Some(worker) = shared.workers.get(to.worker) {
            worker.send(ToWorker::ToCoordinator {
                connection: to.connection,
                event: Event::GateOpen { tag },
            });
        }
    }
}

/// The master's loop: a round every `every` while this node is the schema master of an open
/// view.
fn master(shared: Weak<Shared>, every: Duration) {
    let mut epoch = 0u64;
    let mut counter = 0u64;
    crate::gcp::each_interval(shared, every, |shared| {
        let Some(role) = shared.role.clone() else {
            return false;
        };
        let view = role.view();
        if !view.open || !role.is_master() || role.serving().is_err() {
            return true;
        }
        if view.epoch != epoch {
            (epoch, counter) = (view.epoch, 0);
        }
        counter += 1;
        let round = (epoch << 32) | counter;
        let started = Instant::now();
        match run_round(shared, &role, round) {
            Ok(()) => tracing::debug!(
                round,
                micros = started.elapsed().as_micros() as u64,
                "global checkpoint round saved"
            ),
            Err(e) => {
                if !shared.stopping.load(Ordering::SeqCst) {
                    tracing::info!(round, "global checkpoint round abandoned: {e}");
                }
            }
        }
        true
    });
}

/// One round, step by step, on every node group.
fn run_round(
    shared: &Arc<Shared>,
    role: &Arc<crate::replication::Role>,
    round: u64,
) -> Result<(), Error> {
    let Some(rounds) = &shared.rounds else {
        return Ok(());
    };
    let groups = role.groups.len() as u32;
    for step in [GcpStep::Hold, GcpStep::Cut, GcpStep::Save, GcpStep::Saved] {
        let (tx, rx) = mpsc::channel::<Result<(), Error>>();
        let own = tx.clone();
        rounds.step(round, step, Box::new(move |r| drop(own.send(r))));
        for group in (0..groups).filter(|g| *g as usize != role.group_index) {
            let Some(links) = &shared.step_links else {
                return Err(failed("no step links to the other node groups"));
            };
            let answer = tx.clone();
            links.send(
                group,
                None,
                Message::Gcp { round, step },
                Box::new(move |result| {
                    let _ = answer.send(match result {
                        Ok((_, Message::Done)) => Ok(()),
                        Ok((_, Message::Failure(e))) => Err(e),
                        Ok((_, other)) => Err(failed(format!(
                            "node group {} answered a global checkpoint step with message {}",
                            group + 1,
                            other.type_code()
                        ))),
                        Err(e) => Err(e),
                    });
                }),
            );
        }
        drop(tx);
        let deadline = Instant::now() + STEP_MAX;
        for _ in 0..groups {
            match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(Ok(())) => {}
                Ok(Err(e)) => return Err(e),
                Err(_) => {
                    return Err(failed(format!(
                        "not every node group answered step {step:?} within {STEP_MAX:?}"
                    )))
                }
            }
        }
    }
    Ok(())
}

/// Waits until a complete round covers every commit numbered below `below` on this node (a
/// column change's rows, a copy's, a checkpoint's files), for up to `timeout`. Only for a
/// member of the view taking part in the rounds; a node copying its partitions is not one.
pub fn wait_covered(shared: &Shared, below: u64, timeout: Duration) -> Result<(), String> {
    let Some(durable) = &shared.gcp else {
        return Ok(());
    };
    let deadline = Instant::now() + timeout;
    while durable.complete_cut() < below {
        if shared.stopping.load(Ordering::SeqCst) || shared.failure().is_some() {
            return Err("the data node is stopping".into());
        }
        if Instant::now() >= deadline {
            return Err(format!(
                "no global checkpoint round of the cluster completed within {timeout:?}"
            ));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    Ok(())
}

/// Whether this node takes part in the rounds and holds its partitions whole (not a
/// restarted node still copying): a checkpoint it publishes must then hold nothing a restored
/// round lacks, even while a view change leaves it out of the rounds for a moment.
pub fn holds_partitions(shared: &Shared) -> bool {
    active(shared)
        && shared
            .role
            .as_ref()
            .is_some_and(|r| r.restart() == crate::replication::Restart::No)
}

/// Whether this node takes part in the rounds and is a member of its open view.
pub fn member(shared: &Shared) -> bool {
    active(shared)
        && shared.role.as_ref().is_some_and(|r| {
            let view = r.view();
            view.open && view.members.contains(&r.me)
        })
}
