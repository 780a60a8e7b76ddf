//! More than two replicas (`replication/level.rs`, `leveling.rs` in the data node): node groups of
//! three and four data nodes, each its own process, under native writers, whose primary is
//! killed with SIGKILL while the backups differ (the primary's link to one of them slowed by
//! `--fault-slow-link`). The new primary must bring them level before it serves: every
//! acknowledged commit whole, the replicas left equal (per-partition checksums), commits back
//! within 3 s. Fixed cases and rounds drawn from a printed seed (`CAIRN_LEVEL_SEED`).

mod common;

use std::time::{Duration, Instant};

use common::failover::*;
use common::spawn_node;

/// Three replicas: the primary (node 1) is killed while the backup whose link it slows by
/// 300 ms has taken fewer of its commits than the other. Node 2, the new primary, must bring
/// the two level before it serves: when node 3 is slow it sends node 3 what it lacks; when
/// itself is slow it first takes what it lacks from node 3. Four replicas: nodes 1 and then 2
/// are killed in turn, each slowing its link to node 4, so the second takeover levels node
/// 4 with jobs of node 2's. Three replicas with a node restart: node 1 is killed, starts again
/// from its files and copies, then node 2 (which slows its link to node 1) is killed, so the
/// restarted node 1 takes over behind node 3. Each time every acknowledged commit is whole on
/// the new primary, the replicas left hold the same rows (per-partition checksums), and
/// commits came back within 3 s of each kill.
#[test]
fn three_and_four_replicas_are_brought_level_when_the_primary_dies() {
    let rounds = [
        (49, 3, 2, false),
        (50, 3, 3, false),
        (52, 4, 4, false),
        (60, 3, 3, true),
    ];
    let rounds: Vec<std::thread::JoinHandle<()>> = rounds
        .into_iter()
        .map(|(round, replicas, slow, restart)| {
            let setup = Leveling {
                round,
                replicas,
                slow,
                delay_ms: 300,
                restart,
                kill_after_ms: [500, 500],
            };
            std::thread::spawn(move || leveling_round(setup))
        })
        .collect();
    for round in rounds {
        round.join().unwrap();
    }
}

/// `leveling_round`s drawn from a seed (`CAIRN_LEVEL_SEED` repeats one): three or four
/// replicas, which backup's link is slowed and by how much (50-400 ms), how long the load runs
/// before each kill, and whether the first killed primary starts again before the next kill.
#[test]
fn replicas_are_brought_level_in_random_rounds() {
    let seed = common::seed_from_env("CAIRN_LEVEL_SEED");
    println!("leveling rounds: seed {seed} (CAIRN_LEVEL_SEED={seed} repeats them)");
    let mut next = common::random(seed);
    // Two at a time: each round runs four or five processes.
    for pair in 0..2 {
        let rounds: Vec<std::thread::JoinHandle<()>> = (0..2)
            .map(|k| {
                let replicas = 3 + (next() % 2) as usize;
                let setup = Leveling {
                    round: 70 + pair * 2 + k,
                    replicas,
                    slow: 2 + (next() % (replicas as u64 - 1)) as usize,
                    delay_ms: 50 + next() % 351,
                    restart: replicas == 3 && next().is_multiple_of(2),
                    kill_after_ms: [200 + next() % 1300, 200 + next() % 1300],
                };
                println!("leveling round {}: {setup:?}", setup.round);
                std::thread::spawn(move || leveling_round(setup))
            })
            .collect();
        for round in rounds {
            round.join().unwrap();
        }
    }
}

/// A leveling round: a group of `replicas` under native writers, whose primaries slow their
/// links to node `slow` by `delay_ms` (with `restart`, node 2 slows its link to node 1 by 100
/// ms instead), killed one after the other (each after `kill_after_ms` of load) until two
/// nodes are left; with `restart`, the first killed primary starts again from its files before
/// the second kill.
#[derive(Debug, Clone, Copy)]
struct Leveling {
    round: usize,
    replicas: usize,
    slow: usize,
    delay_ms: u64,
    restart: bool,
    kill_after_ms: [u64; 2],
}

fn leveling_round(setup: Leveling) {
    let Leveling {
        round,
        replicas,
        slow,
        delay_ms,
        restart,
        kill_after_ms,
    } = setup;
    let slow_link = [
        "--fault-slow-link".to_string(),
        format!("{slow}:{delay_ms}"),
    ];
    let slowed: Vec<&str> = slow_link.iter().map(String::as_str).collect();
    let to_first = ["--fault-slow-link", "1:100"];
    let mut extra: Vec<&[&str]> = (1..=replicas)
        .map(|id| {
            if id + 2 <= replicas {
                &slowed[..]
            } else {
                &[][..]
            }
        })
        .collect();
    if restart {
        extra[1] = &to_first;
    }
    let (
        mut cluster,
        Load {
            stop,
            since: killed,
            seen,
            writers,
        },
    ) = load(start_group(round, replicas, &extra), WRITERS);
    let what = format!(
        "round {round}: {replicas} replicas, node {slow} slow by {delay_ms} ms{}",
        if restart { ", node 1 restarted" } else { "" }
    );
    let victims: Vec<usize> = if restart {
        vec![0, 1]
    } else {
        (0..replicas - 2).collect()
    };
    for (k, victim) in victims.into_iter().enumerate() {
        std::thread::sleep(Duration::from_millis(kill_after_ms[k]));
        let before = seen.lock().unwrap().acknowledged.len();
        cluster.nodes[victim].process.child.kill().unwrap();
        let kill_time = Instant::now();
        *killed.lock().unwrap() = Some(kill_time);
        // (Commits of the last round may still come in: only those after this kill count.)
        seen.lock().unwrap().after_kill.retain(|t| *t > kill_time);
        let _ = cluster.nodes[victim].process.child.wait();
        let deadline = kill_time + RECOVERY_MAX + Duration::from_millis(500);
        while Instant::now() < deadline && seen.lock().unwrap().after_kill.len() < 20 {
            std::thread::sleep(Duration::from_millis(20));
        }
        let first = seen
            .lock()
            .unwrap()
            .after_kill
            .iter()
            .filter(|t| **t > kill_time)
            .min()
            .map(|t| *t - kill_time);
        println!(
            "{what}: killed node {} (the primary) after {before} commits; first commit {first:?} after the kill",
            victim + 1
        );
        let first = first.unwrap_or_else(|| panic!("{what}: no commit succeeded after the kill"));
        assert!(
            first <= RECOVERY_MAX,
            "{what}: commits came back {first:?} after the kill"
        );
        if restart && victim == 0 {
            let mut back = spawn_node(&cluster.dir, &cluster.mgm, 1, &[]);
            back.wait_until(|l| l.contains("a member again"), Duration::from_secs(60));
            cluster.nodes[0].process = back;
        }
    }
    stop_writers(&stop, writers);
    let seen = seen.lock().unwrap();
    println!("{what}: {}", seen.summary());
    let left: Vec<&str> = if restart {
        vec![&cluster.nodes[0].api, &cluster.nodes[2].api]
    } else {
        cluster.nodes[replicas - 2..]
            .iter()
            .map(|n| n.api.as_str())
            .collect()
    };
    check_survivor(&what, left[0], &seen);
    // The replicas left hold the same rows, once nothing is under way.
    common::replicas_equal(&what, &left);
}
