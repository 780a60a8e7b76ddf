//! The in-doubt resolver: a thread that ends the prepared parts of two-phase commits whose
//! coordinator went quiet. A prepared part this primary holds (its locks kept) for longer
//! than `IN_DOUBT_AFTER`, and every prepared part a node holds as a backup once it became its
//! group's primary (its old primary died holding the part), is asked about at the
//! coordinator's node group (`CommitOutcome` on the decision's name: that group's primary
//! knows every decision its predecessor recorded, and refuses for good one it says did not
//! commit). Committed: the part commits here; not committed: it is rolled back. Any other
//! answer (under way, no primary reachable) asks again a moment later. A node serves no new
//! transaction while it holds parts of its old primary (`Role::serving`), so none meets rows
//! whose fate is not known.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use wire::{Message, RowChange};

use crate::coordinator::twophase::InDoubt;
use crate::messages::{Event, ReplyTo, ToWorker};
use crate::replication::decision_name;
use crate::Shared;

/// How long a prepared part may wait for its coordinator's second phase before this node
/// asks how the transaction ended.
pub const IN_DOUBT_AFTER: Duration = Duration::from_secs(1);
/// How often the resolver looks.
const POLL: Duration = Duration::from_millis(50);
/// How often the log says a prepared part is still unresolved, with the last answer.
const STILL_ASKING_EVERY: Duration = Duration::from_secs(5);
/// Where the answers of the workers to a commit or apply made here go: nowhere (no
/// connection has this token).
const NOWHERE: ReplyTo = ReplyTo {
    worker: 0,
    connection: usize::MAX,
};

/// Starts the resolver for a data node of a cluster of more than one node group.
pub fn spawn(shared: Weak<Shared>) {
    let spawned = std::thread::Builder::new()
        .name("in-doubt".into())
        .spawn(move || run(shared));
    if let Err(e) = spawned {
        // Prepared parts would keep their locks for good: a broken invariant.
        panic!("starting the in-doubt resolver: {e}");
    }
}

/// A prepared part the resolver asked about and has not resolved yet.
struct Asked {
    since: Instant,
    /// When the log last said it is unresolved.
    logged: Instant,
    /// Whether a question is out.
    waiting: bool,
    /// The last answer that did not tell.
    last: Option<String>,
}

fn run(weak: Weak<Shared>) {
    let (tx, rx) = mpsc::channel::<((u32, u64), Result<bool, String>)>();
    let mut asked: BTreeMap<(u32, u64), Asked> = BTreeMap::new();
    loop {
        std::thread::sleep(POLL);
        let Some(shared) = weak.upgrade() else {
            return;
        };
        if shared.stopping.load(Ordering::Relaxed) {
            return;
        }
        while let Ok((part, answer)) = rx.try_recv() {
            match answer {
                Ok(commit) => {
                    asked.remove(&part);
                    resolve(&shared, part, commit);
                }
                Err(why) => {
                    if let Some(a) = asked.get_mut(&part) {
                        a.waiting = false;
                        a.last = Some(why);
                    }
                }
            }
        }
        let (Some(role), Some(links)) = (shared.role.as_ref(), shared.step_links.as_ref()) else {
            return;
        };
        let now = Instant::now();
        let mut due: BTreeSet<(u32, u64)> = shared
            .in_doubt
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .filter(|(_, d)| now.saturating_duration_since(d.since) >= IN_DOUBT_AFTER)
            .map(|(part, _)| *part)
            .collect();
        // (A new primary bringing its group level sends nothing else first: `crate::leveling`.)
        if role.view().primary == Some(role.me) && role.leveling().is_none() {
            due.extend(role.held_parts());
        }
        // Parts resolved another way (their second phase came) are no longer asked about.
        asked.retain(|part, a| a.waiting || due.contains(part));
        for (part, a) in asked.iter_mut() {
            if now.saturating_duration_since(a.logged) >= STILL_ASKING_EVERY {
                a.logged = now;
                tracing::warn!(
                    coordinator = part.0,
                    transaction = part.1,
                    seconds = now.saturating_duration_since(a.since).as_secs(),
                    answer = a.last.as_deref().unwrap_or("none yet"),
                    "a prepared part is still unresolved: its coordinator's node group has not said how it ended"
                );
            }
        }
        for part in due {
            // (A coordinator in no group of the configuration is never asked about.)
            let Some(group) = role.groups.iter().position(|g| g.contains(&part.0)) else {
                continue;
            };
            let a = asked.entry(part).or_insert(Asked {
                since: now,
                logged: now,
                waiting: false,
                last: None,
            });
            if a.waiting {
                continue;
            }
            a.waiting = true;
            let name = decision_name(part.0, part.1);
            let answers = tx.clone();
            links.send(
                group as u32,
                None,
                Message::CommitOutcome {
                    session: name.0,
                    transaction: name.1,
                },
                Box::new(move |result| {
                    let committed = match result {
                        Ok((_, Message::Outcome { committed })) => Ok(committed),
                        Ok((_, other)) => Err(format!("{other:?}")),
                        Err(e) => Err(format!("{e:?}")),
                    };
                    let _ = answers.send((part, committed));
                }),
            );
        }
    }
}

/// Ends a prepared part as its transaction ended: held here as the primary (its workers keep
/// its locks), or as a backup of a primary that died.
fn resolve(shared: &Arc<Shared>, part: (u32, u64), commit: bool) {
    if let Some(held) = shared.take_in_doubt(part) {
        tracing::info!(
            coordinator = part.0,
            transaction = part.1,
            commit,
            "resolved a prepared part its coordinator left"
        );
        return resolve_held(shared, part, held, commit, None);
    }
    let Some(role) = shared.role.as_ref() else {
        return;
    };
    if role.view().primary != Some(role.me) {
        return;
    }
    let taken = if commit {
        role.take_held_to_apply(part)
    } else {
        role.take_held(part)
    };
    if let Some(changes) = taken {
        tracing::info!(
            coordinator = part.0,
            transaction = part.1,
            commit,
            "resolved a prepared part the previous primary left"
        );
        if commit {
            apply(shared, part, changes);
        } else {
            drop_held(shared, part);
        }
    }
}

/// A prepared part this primary holds: its backups apply (the rows go again with the commit)
/// or drop it, then its workers commit or roll it back. With `answer` (a coordinator and the
/// tag its request waits under), that coordinator hears the backups' answer
/// (`Event::Replicated`) and its workers' commit; else nobody does.
pub(crate) fn resolve_held(
    shared: &Arc<Shared>,
    part: (u32, u64),
    held: InDoubt,
    commit: bool,
    answer: Option<(ReplyTo, u64)>,
) {
    let Some(role) = shared.role.clone() else {
        return;
    };
    let target = shared.clone();
    let (txn, touched, written) = (held.txn, held.touched, held.written);
    role.replicate(
        Message::Resolve {
            coordinator: part.0,
            transaction: part.1,
            commit,
            changes: if commit { held.changes } else { Vec::new() },
        },
        false,
        Box::new(move |result, generation| {
            if !commit {
                for w in (0..target.worker_count()).filter(|w| touched & (1 << w) != 0) {
                    target.workers[w].send(ToWorker::Abort {
                        txn,
                        tag: 0,
                        reply_to: None,
                    });
                }
                return;
            }
            let (reply_to, tag) = answer.unwrap_or((NOWHERE, 0));
            if answer.is_some() {
                target.workers[reply_to.worker].send(ToWorker::ToCoordinator {
                    connection: reply_to.connection,
                    event: Event::Replicated {
                        tag,
                        result: result.map(|_| Vec::new()),
                    },
                });
            }
            // Committed in the coordinator's group: the part commits here whatever the
            // backups did (one that could not take it left the view).
            target.workers[reply_to.worker].send(ToWorker::CommitReplicated {
                txn,
                touched,
                written,
                tag,
                reply_to,
                generation,
            });
        }),
    );
}

/// A prepared part of a primary that died, rolled back: this node's backups, which may hold it
/// too (a node that copied from this one after the takeover was sent it), drop it.
fn drop_held(shared: &Arc<Shared>, part: (u32, u64)) {
    // Its prepared records here end (`worker::prepared`).
    let name = decision_name(part.0, part.1);
    for w in 0..shared.worker_count() {
        shared.workers[w].send(ToWorker::LogDropped { name });
    }
    if let Some(role) = shared.role.clone() {
        role.replicate(
            Message::Resolve {
                coordinator: part.0,
                transaction: part.1,
                commit: false,
                changes: Vec::new(),
            },
            false,
            Box::new(|_, _| {}),
        );
    }
}

/// A prepared part of a primary that died, committed: its rows go to this node's backups (as
/// the part's `Resolve`, so one that holds the part drops it rather than keep it to apply
/// again later) and are applied here as one logged transaction, as a replicated commit is.
/// The part was taken with `Role::take_held_to_apply`: the node serves again once its rows
/// are queued to the workers, ahead of any request after.
pub(crate) fn apply(shared: &Arc<Shared>, part: (u32, u64), changes: Vec<RowChange>) {
    let Some(role) = shared.role.clone() else {
        return;
    };
    let target = shared.clone();
    let settle = role.clone();
    let name = decision_name(part.0, part.1);
    role.replicate(
        Message::Resolve {
            coordinator: part.0,
            transaction: part.1,
            commit: true,
            changes: changes.clone(),
        },
        false,
        Box::new(move |_, generation| {
            apply_here(&target, Some(name), changes);
            settle.settled(generation);
            settle.applied_held();
        }),
    );
}

/// Applies a commit's rows on this node's workers as one logged transaction (of the two-phase
/// commit `name`, if one), as a backup applies a replicated commit; nobody hears when it is
/// done.
pub(crate) fn apply_here(
    shared: &Arc<Shared>,
    name: Option<crate::replication::CommitName>,
    changes: Vec<RowChange>,
) {
    crate::recovery::observe_counters(shared, &changes);
    let workers = shared.worker_count();
    let mut parts: Vec<Vec<RowChange>> = (0..workers).map(|_| Vec::new()).collect();
    for change in changes {
        parts[shared.placement.worker_of(change.partition)].push(change);
    }
    let participants = parts.iter().filter(|p| !p.is_empty()).count() as u16;
    let txn = shared.next_txn.fetch_add(1, Ordering::Relaxed);
    let sequence = shared.sequence.fetch_add(1, Ordering::SeqCst);
    for (w, part) in parts.into_iter().enumerate() {
        if !part.is_empty() {
            shared.workers[w].send(ToWorker::Apply {
                changes: part,
                txn,
                participants,
                sequence,
                tag: 0,
                reply_to: NOWHERE,
                copy: false,
                name,
            });
        }
    }
}
