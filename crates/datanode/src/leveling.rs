//! The leveler: on a new primary of a node group of three or more replicas, a thread that
//! brings every member to the same commits before the node serves (`replication::level` says
//! why). It asks each member where its log of the old primary's stream stands, takes from the
//! member furthest on the commits this node lacks and applies them, and sends every member the
//! commits it lacks (`LevelUp`), oldest first. A member whose gap it cannot fill (its log is of
//! another stream, the commits it lacks are no longer kept, or one is a schema change or a
//! two-phase commit's part) is told to start again empty and copy (`Shutdown`); when that is
//! this node, it stops so, and the next view's primary levels the group.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use transport::{FrameReader, Stream};
use wire::{Message, TakenEntry, TakenKind};

use crate::replication::{taken_log_parts, Role};
use crate::Shared;

/// How often the leveler looks whether there is leveling to do.
const POLL: Duration = Duration::from_millis(20);
/// How long a member may take to answer a question.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(2);
/// How often a failed attempt is logged.
const LOG_EVERY: Duration = Duration::from_secs(2);

/// Starts the leveler for a data node of a group of three or more.
pub fn spawn(shared: Weak<Shared>) {
    let spawned = std::thread::Builder::new()
        .name("leveler".into())
        .spawn(move || run(shared));
    if let Err(e) = spawned {
        // The node would never serve as a primary: a broken invariant.
        panic!("starting the leveler: {e}");
    }
}

fn run(weak: Weak<Shared>) {
    let mut logged = Instant::now() - LOG_EVERY;
    loop {
        std::thread::sleep(POLL);
        let Some(shared) = weak.upgrade() else {
            return;
        };
        if shared.stopping.load(Ordering::Relaxed) || shared.stop_requested().is_some() {
            return;
        }
        let Some(role) = shared.role.clone() else {
            return;
        };
        let Some(epoch) = role.leveling() else {
            continue;
        };
        match level(&shared, &role, epoch) {
            Ok(()) => role.leveled(epoch),
            Err(why) if logged.elapsed() >= LOG_EVERY => {
                logged = Instant::now();
                tracing::warn!(epoch, "bringing the node group level: {why}; trying again");
            }
            Err(_) => {}
        }
    }
}

/// Where one member's log stands, and the connection it answered on (None: this node).
struct Member {
    node: u32,
    owner: u32,
    from: u64,
    last: u64,
    link: Option<Asker>,
}

/// A connection to a member, opened as its primary in the view.
struct Asker {
    stream: Stream,
    reader: FrameReader,
}

impl Asker {
    fn open(role: &Role, node: u32, epoch: u64) -> Result<Asker, String> {
        let address = role
            .api_addresses
            .get(&node)
            .ok_or_else(|| format!("data node {node} has no address"))?;
        let hello = Message::PeerHello {
            node_id: role.me,
            epoch,
        };
        let mut stream = crate::replication::dial(address, role, &hello, "member")
            .map_err(|e| format!("data node {node}: {e}"))?;
        stream
            .set_read_timeout(Some(ANSWER_TIMEOUT))
            .map_err(|e| e.to_string())?;
        let reader = FrameReader::new(stream.try_clone().map_err(|e| e.to_string())?);
        Ok(Asker { stream, reader })
    }

    fn ask(&mut self, message: &Message) -> Result<Message, String> {
        let mut frame = Vec::new();
        message.write_frame(&mut frame, 0, 0, 1);
        self.stream.write_all(&frame).map_err(|e| e.to_string())?;
        match self.reader.read() {
            Ok(Some((_, Message::Failure(e)))) => Err(e.message),
            Ok(Some((_, answer))) => Ok(answer),
            Ok(None) => Err("the member closed the connection".into()),
            Err(e) => Err(e.to_string()),
        }
    }
}

/// Brings the group level in view `epoch`, or says why not yet.
fn level(shared: &Arc<Shared>, role: &Arc<Role>, epoch: u64) -> Result<(), String> {
    let view = role.view();
    if view.epoch != epoch {
        return Err(format!("the view is {} now", view.epoch));
    }
    let (owner, from, last, _, _) = taken_log_parts(role.taken_page(u64::MAX))?;
    let mut members = vec![Member {
        node: role.me,
        owner,
        from,
        last,
        link: None,
    }];
    for node in role
        .group
        .iter()
        .copied()
        .filter(|n| *n != role.me && view.members.contains(n) && !view.starting.contains(n))
    {
        let mut link = Asker::open(role, node, epoch)?;
        let (owner, from, last, _, _) =
            taken_log_parts(link.ask(&Message::TakenAsk { after: u64::MAX })?)?;
        members.push(Member {
            node,
            owner,
            from,
            last,
            link: Some(link),
        });
    }
    let plan = plan(&members);
    tracing::info!(
        epoch,
        stream = plan.stream,
        last = plan.last,
        behind = ?plan.behind,
        restart = ?plan.restart,
        "took over the node group: bringing its replicas level"
    );
    if plan.restart.contains(&role.me) {
        shared.request_stop(true, true);
        return Err(
            "this node lacks commits another replica took that it cannot be sent: it starts again empty"
                .into(),
        );
    }
    // The commits after the furthest-behind member's last, from the member furthest on.
    let entries = match plan.behind.values().min() {
        Some(after) => fetch(role, &mut members, plan.source, *after)?,
        None => Vec::new(),
    };
    let (tx, rx) = mpsc::channel();
    let mut waiting = 0;
    for (node, after) in &plan.behind {
        let lacking: Vec<&TakenEntry> = entries.iter().filter(|e| e.seq > *after).collect();
        if lacking.iter().any(|e| e.kind == TakenKind::Restart) {
            if *node == role.me {
                shared.request_stop(true, true);
                return Err("this node lacks a schema change or a two-phase commit's part another replica took: it starts again empty".into());
            }
            restart(&mut members, *node)?;
            continue;
        }
        for e in lacking.into_iter().filter(|e| e.kind == TakenKind::Rows) {
            if *node == role.me {
                role.commit_ended((e.session, e.transaction), true);
                crate::indoubt::apply_here(shared, None, e.changes.clone());
                continue;
            }
            let tx = tx.clone();
            waiting += 1;
            role.send_level_up(
                *node,
                Message::LevelUp {
                    primary: plan.stream,
                    seq: e.seq,
                    session: e.session,
                    transaction: e.transaction,
                    changes: e.changes.clone(),
                },
                Box::new(move |result, _| {
                    let _ = tx.send(result.map(|_| ()).map_err(|e| e.message));
                }),
            );
        }
    }
    for node in &plan.restart {
        restart(&mut members, *node)?;
    }
    // Every member answered (or left the view, and stopped serving).
    while waiting > 0 {
        match rx.recv_timeout(POLL) {
            Ok(Ok(())) => waiting -= 1,
            Ok(Err(e)) => return Err(e),
            Err(_) if role.leveling() != Some(epoch) => {
                return Err("the view changed while the group was brought level".into())
            }
            Err(_) => {}
        }
    }
    Ok(())
}

/// What leveling does, decided from where each member's log stands.
#[derive(Debug, PartialEq, Eq)]
struct Plan {
    /// The primary whose stream is leveled: this node's (the first member's) log's.
    stream: u32,
    /// The stream's last job any member took.
    last: u64,
    /// The member that took it (index in the members).
    source: usize,
    /// Members that lack jobs of the stream and can be sent them: after which job.
    behind: BTreeMap<u32, u64>,
    /// Members that must start again empty.
    restart: Vec<u32>,
}

/// Plans the leveling of `members` (this node first). A member whose log is of another stream
/// than this node's starts again, as does a member that lacks jobs the member furthest on no
/// longer keeps; a node that took nothing yet (no stream) is level with one that took nothing
/// either. When this node has no stream but another member has, this node is the one that
/// starts again.
fn plan(members: &[Member]) -> Plan {
    let me = &members[0];
    if me.owner == 0 && members.iter().any(|m| m.owner != 0) {
        return Plan {
            stream: 0,
            last: 0,
            source: 0,
            behind: BTreeMap::new(),
            restart: vec![me.node],
        };
    }
    let stream = me.owner;
    let mut restart: Vec<u32> = members
        .iter()
        .filter(|m| m.owner != stream)
        .map(|m| m.node)
        .collect();
    let same: Vec<(usize, &Member)> = members
        .iter()
        .enumerate()
        .filter(|(_, m)| m.owner == stream)
        .collect();
    let (source, furthest) = same
        .iter()
        .copied()
        .max_by_key(|(i, m)| (m.last, std::cmp::Reverse(*i)))
        .unwrap_or((0, me));
    let mut behind = BTreeMap::new();
    for (_, m) in same {
        if m.last >= furthest.last {
            continue;
        }
        if furthest.from > m.last {
            restart.push(m.node);
        } else {
            behind.insert(m.node, m.last);
        }
    }
    Plan {
        stream,
        last: furthest.last,
        source,
        behind,
        restart,
    }
}

/// The jobs member `source` keeps after job `after`, oldest first, page by page.
fn fetch(
    role: &Role,
    members: &mut [Member],
    source: usize,
    after: u64,
) -> Result<Vec<TakenEntry>, String> {
    let mut entries: Vec<TakenEntry> = Vec::new();
    loop {
        let at = entries.last().map_or(after, |e| e.seq);
        let page = match &mut members[source].link {
            None => role.taken_page(at),
            Some(link) => link.ask(&Message::TakenAsk { after: at })?,
        };
        let (_, _, _, got, more) = taken_log_parts(page)?;
        let empty = got.is_empty();
        entries.extend(got);
        if !more || empty {
            return Ok(entries);
        }
    }
}

/// Tells member `node` to start again empty and copy from this primary.
fn restart(members: &mut [Member], node: u32) -> Result<(), String> {
    let Some(link) = members
        .iter_mut()
        .find(|m| m.node == node)
        .and_then(|m| m.link.as_mut())
    else {
        return Ok(());
    };
    tracing::warn!(
        node,
        "a replica holds commits this node cannot bring level: it starts again empty"
    );
    link.ask(&Message::Shutdown {
        restart: true,
        initial: true,
    })
    .map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(node: u32, owner: u32, from: u64, last: u64) -> Member {
        Member {
            node,
            owner,
            from,
            last,
            link: None,
        }
    }

    #[test]
    fn the_member_furthest_on_fills_the_others_gaps_where_it_keeps_them() {
        // Node 2 took over; node 3 took two more of node 1's jobs, node 4 fewer.
        let p = plan(&[
            member(2, 1, 100, 150),
            member(3, 1, 120, 152),
            member(4, 1, 90, 149),
        ]);
        assert_eq!(p.stream, 1);
        assert_eq!((p.last, p.source), (152, 1));
        assert_eq!(p.behind, [(2, 150), (4, 149)].into());
        assert!(p.restart.is_empty());
        // Node 3 no longer keeps what node 4 lacks.
        let p = plan(&[
            member(2, 1, 100, 152),
            member(3, 1, 151, 152),
            member(4, 1, 90, 120),
        ]);
        assert_eq!((p.source, p.restart.clone()), (0, vec![]));
        assert_eq!(p.behind, [(4, 120)].into());
        let p = plan(&[member(2, 1, 130, 152), member(4, 1, 90, 120)]);
        assert_eq!(p.restart, vec![4]);
        assert!(p.behind.is_empty());
    }

    #[test]
    fn a_member_of_another_stream_starts_again_and_so_does_a_primary_with_none() {
        let p = plan(&[member(2, 1, 0, 10), member(3, 5, 0, 900)]);
        assert_eq!(p.restart, vec![3]);
        let p = plan(&[member(2, 0, 0, 0), member(3, 1, 0, 9)]);
        assert_eq!(p.restart, vec![2]);
        // Nobody took anything: level.
        let p = plan(&[member(2, 0, 0, 0), member(3, 0, 0, 0)]);
        assert!(p.restart.is_empty() && p.behind.is_empty());
        // Everyone took the same.
        let p = plan(&[member(2, 1, 3, 9), member(3, 1, 5, 9)]);
        assert!(p.restart.is_empty() && p.behind.is_empty());
    }
}
