//! Foreign keys against a model: random transactions over a parent and three children (ON DELETE
//! and ON UPDATE RESTRICT, CASCADE and SET NULL) and a grandchild, over tables of several
//! partitions. Each statement's answer (done, 1451, 1452, 1062) is the model's, and after each
//! COMMIT or ROLLBACK every table holds the model's rows and no row references a missing parent.
//! Then sessions run such transactions at once, and no committed state ever holds an orphan.
//! A fixed seed by default; `CAIRN_FK_SEED` replays one (`time` draws one); every run prints
//! its seed.

mod common;

use std::collections::BTreeMap;
use std::time::SystemTime;

use common::raw::{values, Answer, Raw};
use common::Rng;
use datanode::{DataNode, DataNodeConfig};
use sql::{SqlConfig, SqlServer};

/// The seed the suite runs with by default, so its runs agree.
const DEFAULT_SEED: u64 = 1_796_359_606_635_598_005;

fn seed() -> u64 {
    let seed = match std::env::var("CAIRN_FK_SEED").ok().as_deref() {
        None => DEFAULT_SEED,
        Some("time") => {
            SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        }
        Some(s) => s.parse().expect("CAIRN_FK_SEED: a number or `time`"),
    };
    println!("foreign keys seed: {seed} (CAIRN_FK_SEED replays it)");
    seed
}

/// Parent keys and child keys are drawn from small ranges, so statements meet each other.
const PARENTS: u64 = 12;
const CHILDREN: u64 = 24;

/// The children: table name and (on delete, on update) cascades? as the model applies them.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Action {
    Restrict,
    Cascade,
    SetNull,
}

const CHILD_TABLES: [(&str, Action); 3] = [
    ("c_restrict", Action::Restrict),
    ("c_cascade", Action::Cascade),
    ("c_null", Action::SetNull),
];

fn schema() -> Vec<String> {
    let mut s = vec![
        "CREATE DATABASE fk".to_string(),
        "CREATE TABLE fk.p (id INT PRIMARY KEY, v INT)".to_string(),
    ];
    for (name, action) in CHILD_TABLES {
        let clause = match action {
            Action::Restrict => "",
            Action::Cascade => " ON DELETE CASCADE ON UPDATE CASCADE",
            Action::SetNull => " ON DELETE SET NULL ON UPDATE SET NULL",
        };
        s.push(format!(
            "CREATE TABLE fk.{name} (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES fk.p (id){clause})"
        ));
    }
    s.push(
        "CREATE TABLE fk.g (id INT PRIMARY KEY, cid INT, FOREIGN KEY (cid) REFERENCES fk.c_cascade (id) ON DELETE CASCADE)"
            .to_string(),
    );
    s
}

/// The tables' rows: parent id -> v; each child (the three, then g) id -> referenced key.
#[derive(Clone, PartialEq, Debug, Default)]
struct Model {
    parents: BTreeMap<u64, u64>,
    children: [BTreeMap<u64, Option<u64>>; 4],
}

/// What a statement answered: done, or an error number.
#[derive(Debug, PartialEq, Clone, Copy)]
enum Outcome {
    Done,
    Err(u16),
}

impl Model {
    /// Deletes child `id` of table `t` (0-2 the children, 3 g), cascading from c_cascade to g.
    fn delete_child(&mut self, t: usize, id: u64) {
        self.children[t].remove(&id);
        if t == 1 {
            self.children[3].retain(|_, cid| *cid != Some(id));
        }
    }

    fn referenced(&self, t: usize, parent: u64) -> bool {
        self.children[t].values().any(|p| *p == Some(parent))
    }

    /// Applies a statement to the model and returns what it must answer.
    fn apply(&mut self, op: &Op) -> Outcome {
        match *op {
            Op::InsertParent(id) => {
                if self.parents.contains_key(&id) {
                    return Outcome::Err(1062);
                }
                self.parents.insert(id, 0);
            }
            Op::DeleteParent(id) => {
                if !self.parents.contains_key(&id) {
                    return Outcome::Done;
                }
                if self.referenced(0, id) {
                    return Outcome::Err(1451);
                }
                self.parents.remove(&id);
                let doomed: Vec<u64> = self.children[1]
                    .iter()
                    .filter(|(_, p)| **p == Some(id))
                    .map(|(c, _)| *c)
                    .collect();
                for c in doomed {
                    self.delete_child(1, c);
                }
                for p in self.children[2].values_mut() {
                    if *p == Some(id) {
                        *p = None;
                    }
                }
            }
            Op::MoveParent(id, to) => {
                if !self.parents.contains_key(&id) || id == to {
                    return Outcome::Done;
                }
                if self.parents.contains_key(&to) {
                    return Outcome::Err(1062);
                }
                if self.referenced(0, id) {
                    return Outcome::Err(1451);
                }
                let v = self.parents.remove(&id).unwrap_or(0);
                self.parents.insert(to, v);
                for p in self.children[1].values_mut() {
                    if *p == Some(id) {
                        *p = Some(to);
                    }
                }
                for p in self.children[2].values_mut() {
                    if *p == Some(id) {
                        *p = None;
                    }
                }
            }
            Op::InsertChild(t, id, parent) => {
                if self.children[t].contains_key(&id) {
                    return Outcome::Err(1062);
                }
                if let Some(p) = parent {
                    if !self.has_parent(t, p) {
                        return Outcome::Err(1452);
                    }
                }
                self.children[t].insert(id, parent);
            }
            Op::PointChild(t, id, parent) => {
                let Some(current) = self.children[t].get(&id).copied() else {
                    return Outcome::Done;
                };
                if current == parent {
                    return Outcome::Done;
                }
                if let Some(p) = parent {
                    if !self.has_parent(t, p) {
                        return Outcome::Err(1452);
                    }
                }
                self.children[t].insert(id, parent);
            }
            Op::DeleteChild(t, id) => self.delete_child(t, id),
        }
        Outcome::Done
    }

    fn has_parent(&self, t: usize, key: u64) -> bool {
        if t == 3 {
            self.children[1].contains_key(&key)
        } else {
            self.parents.contains_key(&key)
        }
    }

    /// Whether every reference finds its row.
    fn whole(&self) -> bool {
        (0..4).all(|t| {
            self.children[t]
                .values()
                .flatten()
                .all(|p| self.has_parent(t, *p))
        })
    }
}

/// One statement of a transaction.
#[derive(Debug, Clone)]
enum Op {
    InsertParent(u64),
    DeleteParent(u64),
    MoveParent(u64, u64),
    /// Table (0-2 the children, 3 g), id, referenced key.
    InsertChild(usize, u64, Option<u64>),
    PointChild(usize, u64, Option<u64>),
    DeleteChild(usize, u64),
}

fn table(t: usize) -> &'static str {
    match t {
        0..=2 => CHILD_TABLES[t].0,
        _ => "g",
    }
}

fn column(t: usize) -> &'static str {
    if t == 3 {
        "cid"
    } else {
        "pid"
    }
}

fn sql_value(v: Option<u64>) -> String {
    v.map_or("NULL".to_string(), |v| v.to_string())
}

impl Op {
    fn random(rng: &mut Rng) -> Op {
        let t = rng.up_to(4) as usize;
        let key = |rng: &mut Rng, t: usize| -> Option<u64> {
            // A NULL now and then; references drawn a little past the keys that exist.
            match rng.up_to(10) {
                0 => None,
                _ if t == 3 => Some(rng.up_to(CHILDREN + 4)),
                _ => Some(rng.up_to(PARENTS + 3)),
            }
        };
        match rng.up_to(9) {
            0 | 1 => Op::InsertParent(rng.up_to(PARENTS)),
            2 => Op::DeleteParent(rng.up_to(PARENTS)),
            3 => Op::MoveParent(rng.up_to(PARENTS), rng.up_to(PARENTS + 3)),
            4 | 5 => Op::InsertChild(t, rng.up_to(CHILDREN), key(rng, t)),
            6 | 7 => Op::PointChild(t, rng.up_to(CHILDREN), key(rng, t)),
            _ => Op::DeleteChild(t, rng.up_to(CHILDREN)),
        }
    }

    fn sql(&self) -> String {
        match *self {
            Op::InsertParent(id) => format!("INSERT INTO fk.p VALUES ({id}, 0)"),
            Op::DeleteParent(id) => format!("DELETE FROM fk.p WHERE id = {id}"),
            Op::MoveParent(id, to) => format!("UPDATE fk.p SET id = {to} WHERE id = {id}"),
            Op::InsertChild(t, id, p) => {
                format!(
                    "INSERT INTO fk.{} VALUES ({id}, {})",
                    table(t),
                    sql_value(p)
                )
            }
            Op::PointChild(t, id, p) => format!(
                "UPDATE fk.{} SET {} = {} WHERE id = {id}",
                table(t),
                column(t),
                sql_value(p)
            ),
            Op::DeleteChild(t, id) => format!("DELETE FROM fk.{} WHERE id = {id}", table(t)),
        }
    }
}

fn answer(s: &mut Raw, sql: &str) -> Outcome {
    match s.query(sql) {
        Answer::Ok => Outcome::Done,
        Answer::Err(code) => Outcome::Err(code),
        Answer::Rows(_) => panic!("{sql} answered rows"),
    }
}

fn number(v: &Option<String>) -> Option<u64> {
    v.as_ref().map(|s| s.parse().expect("a number"))
}

/// The tables' committed rows, as the model holds them.
fn read(s: &mut Raw) -> Model {
    let mut m = Model::default();
    let Answer::Rows(rows) = s.query("SELECT id, v FROM fk.p") else {
        panic!("reading fk.p")
    };
    for r in rows {
        let v = values(&r);
        m.parents
            .insert(number(&v[0]).unwrap(), number(&v[1]).unwrap());
    }
    for t in 0..4 {
        let sql = format!("SELECT id, {} FROM fk.{}", column(t), table(t));
        let Answer::Rows(rows) = s.query(&sql) else {
            panic!("{sql}")
        };
        for r in rows {
            let v = values(&r);
            m.children[t].insert(number(&v[0]).unwrap(), number(&v[1]));
        }
    }
    m
}

fn start() -> (DataNode, SqlServer, u16) {
    // Several workers: each table's rows spread over several partitions.
    let node = DataNode::start(DataNodeConfig {
        listen: "127.0.0.1:0".into(),
        workers: 3,
        ..DataNodeConfig::default()
    })
    .unwrap();
    let server = SqlServer::start(SqlConfig {
        datanode: node.address().to_string(),
        listen: "127.0.0.1:0".into(),
        ..SqlConfig::default()
    })
    .unwrap();
    let port = server.address().port();
    let mut setup = Raw::login_to(port, None);
    for sql in schema() {
        assert_eq!(setup.query(&sql), Answer::Ok, "{sql}");
    }
    (node, server, port)
}

#[test]
fn random_transactions_keep_every_reference_as_the_model_does() {
    let seed = seed();
    let mut rng = Rng(seed);
    let (_node, _server, port) = start();
    let mut s = Raw::login_to(port, None);
    let mut committed = Model::default();
    for round in 0..150 {
        let explicit = rng.up_to(3) > 0;
        let mut working = committed.clone();
        if explicit {
            assert_eq!(s.query("BEGIN"), Answer::Ok);
        }
        for _ in 0..1 + rng.up_to(4) {
            let op = Op::random(&mut rng);
            let mut after = working.clone();
            let expected = after.apply(&op);
            let got = answer(&mut s, &op.sql());
            assert_eq!(got, expected, "seed {seed} round {round}: {}", op.sql());
            if expected == Outcome::Done {
                working = after;
            }
            if !explicit {
                committed = working.clone();
            }
        }
        if explicit {
            if rng.up_to(4) == 0 {
                assert_eq!(s.query("ROLLBACK"), Answer::Ok);
            } else {
                assert_eq!(s.query("COMMIT"), Answer::Ok);
                committed = working;
            }
        }
        assert!(committed.whole(), "seed {seed}: the model lost a reference");
        let seen = read(&mut s);
        assert_eq!(
            seen, committed,
            "seed {seed} round {round}: the tables differ"
        );
    }
}

#[test]
fn concurrent_transactions_never_commit_an_orphan() {
    let seed = seed();
    let (_node, _server, port) = start();
    for phase in 0..6u64 {
        std::thread::scope(|scope| {
            for n in 0..4u64 {
                scope.spawn(move || {
                    let mut rng = Rng(seed.wrapping_mul(phase * 4 + n + 7) | 1);
                    let mut s = Raw::login_to(port, None);
                    for _ in 0..40 {
                        assert_eq!(s.query("BEGIN"), Answer::Ok);
                        for _ in 0..1 + rng.up_to(3) {
                            let op = Op::random(&mut rng);
                            match answer(&mut s, &op.sql()) {
                                // A lock wait timeout or a deadlock between sessions is
                                // theirs to meet; the others are the keys' own answers.
                                Outcome::Done | Outcome::Err(1062 | 1451 | 1452 | 1205 | 1213) => {}
                                other => panic!("seed {seed}: {} answered {other:?}", op.sql()),
                            }
                        }
                        let end = if rng.up_to(4) == 0 {
                            "ROLLBACK"
                        } else {
                            "COMMIT"
                        };
                        // After a deadlock the transaction is gone, and COMMIT answers too.
                        let _ = s.query(end);
                    }
                });
            }
        });
        let mut s = Raw::login_to(port, None);
        let seen = read(&mut s);
        assert!(
            seen.whole(),
            "seed {seed} phase {phase}: a committed row references a missing one: {seen:?}"
        );
    }
}

/// The locks behind the checks, step by step: a child's insert holds its parent row under a
/// shared lock to its commit, so the parent's delete waits (1205 after the data node's lock
/// wait) and, once the child commits, is refused (1451); a parent's delete holds the row, so a
/// child's insert waits, and finds no parent once the delete commits (1452).
#[test]
fn a_reference_and_its_parent_wait_for_each_other() {
    let (_node, _server, port) = start();
    let (mut a, mut b) = (Raw::login_to(port, None), Raw::login_to(port, None));
    assert_eq!(
        a.query("INSERT INTO fk.p VALUES (1, 0), (2, 0)"),
        Answer::Ok
    );
    assert_eq!(a.query("BEGIN"), Answer::Ok);
    assert_eq!(
        a.query("INSERT INTO fk.c_restrict VALUES (1, 1)"),
        Answer::Ok
    );
    assert_eq!(b.query("DELETE FROM fk.p WHERE id = 1"), Answer::Err(1205));
    assert_eq!(a.query("COMMIT"), Answer::Ok);
    assert_eq!(b.query("DELETE FROM fk.p WHERE id = 1"), Answer::Err(1451));

    assert_eq!(b.query("BEGIN"), Answer::Ok);
    assert_eq!(b.query("DELETE FROM fk.p WHERE id = 2"), Answer::Ok);
    assert_eq!(
        a.query("INSERT INTO fk.c_restrict VALUES (2, 2)"),
        Answer::Err(1205)
    );
    assert_eq!(b.query("COMMIT"), Answer::Ok);
    assert_eq!(
        a.query("INSERT INTO fk.c_restrict VALUES (2, 2)"),
        Answer::Err(1452)
    );
    let seen = read(&mut a);
    assert!(seen.whole(), "{seen:?}");
    assert_eq!(seen.parents.keys().copied().collect::<Vec<_>>(), vec![1]);
}
