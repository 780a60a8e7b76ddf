//! Window functions over random data checked against a model (what the differential suite's
//! few rows cannot show: many partitions, sliding ROWS frames, RANGE frames found by halving,
//! NULL keys), and a prepared statement whose window is read again at every execution.

mod common;
use common::raw::{values, Answer, Raw};

/// One row of the table: id, g (partition), v (nullable value).
type Row = (i64, i64, Option<i64>);

fn rows_of(c: &mut Raw, sql: &str) -> Vec<Vec<Option<String>>> {
    match c.query(sql) {
        Answer::Rows(rows) => rows.iter().map(|r| values(r)).collect(),
        other => panic!("{sql}: {other:?}"),
    }
}

/// The model's value of each window function for each row, by id order: ROW_NUMBER and RANK
/// over (PARTITION BY g ORDER BY v[, id]), SUM(v) over ROWS a PRECEDING..b FOLLOWING by id,
/// COUNT(v) over RANGE c PRECEDING..CURRENT ROW by v, LAG(v, 2) by id.
fn model(rows: &[Row], a: usize, b: usize, c: i64) -> Vec<Vec<Option<String>>> {
    let mut out = Vec::new();
    for &(id, g, v) in rows {
        let part: Vec<&Row> = rows.iter().filter(|r| r.1 == g).collect();
        // NULL sorts first.
        let key = |r: &Row| (r.2.is_some(), r.2.unwrap_or(0));
        let row_number = part
            .iter()
            .filter(|r| (key(r), r.0) < (key(&(id, g, v)), id))
            .count()
            + 1;
        let rank = part.iter().filter(|r| key(r) < key(&(id, g, v))).count() + 1;
        // `part` is in id order, as `rows` is.
        let k = part.iter().position(|r| r.0 == id).unwrap();
        let window = &part[k.saturating_sub(a)..(k + b + 1).min(part.len())];
        let values: Vec<i64> = window.iter().filter_map(|r| r.2).collect();
        let sum = (!values.is_empty()).then(|| values.iter().sum::<i64>().to_string());
        let count = match v {
            None => 0,
            Some(v) => part
                .iter()
                .filter(|r| r.2.is_some_and(|x| x >= v - c && x <= v))
                .count(),
        };
        let lag = k
            .checked_sub(2)
            .and_then(|p| part[p].2)
            .map(|x| x.to_string());
        out.push(vec![
            Some(id.to_string()),
            Some(row_number.to_string()),
            Some(rank.to_string()),
            sum,
            Some(count.to_string()),
            lag,
        ]);
    }
    out
}

#[test]
fn window_functions_over_random_rows_agree_with_a_model() {
    let seed = std::env::var("WINDOW_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    println!("window functions: seed {seed} (WINDOW_SEED={seed} replays it)");
    let mut rng = common::Rng(seed);
    let (node, server) = common::start(1 << 20);
    let mut c = Raw::login_to(server.address().port(), None);
    for sql in [
        "CREATE DATABASE d",
        "USE d",
        "CREATE TABLE w (id INT PRIMARY KEY, g INT NOT NULL, v INT NULL)",
    ] {
        assert_eq!(c.query(sql), Answer::Ok, "{sql}");
    }
    let rows: Vec<Row> = (1..=1500)
        .map(|id| {
            let g = rng.below(7) as i64;
            let v = (rng.below(10) != 0).then(|| rng.below(60) as i64);
            (id, g, v)
        })
        .collect();
    for chunk in rows.chunks(500) {
        let values: Vec<String> = chunk
            .iter()
            .map(|(id, g, v)| match v {
                Some(v) => format!("({id}, {g}, {v})"),
                None => format!("({id}, {g}, NULL)"),
            })
            .collect();
        let sql = format!("INSERT INTO w VALUES {}", values.join(", "));
        assert_eq!(c.query(&sql), Answer::Ok);
    }
    for round in 0..4 {
        let (a, b, range) = (rng.below(5), rng.below(40), rng.below(8) as i64);
        let sql = format!(
            "SELECT id, ROW_NUMBER() OVER (PARTITION BY g ORDER BY v, id), \
             RANK() OVER (PARTITION BY g ORDER BY v), \
             SUM(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN {a} PRECEDING AND {b} FOLLOWING), \
             COUNT(v) OVER (PARTITION BY g ORDER BY v RANGE BETWEEN {range} PRECEDING AND CURRENT ROW), \
             LAG(v, 2) OVER (PARTITION BY g ORDER BY id) FROM w ORDER BY id"
        );
        let got = rows_of(&mut c, &sql);
        let want = model(&rows, a, b, range);
        assert_eq!(got.len(), want.len(), "round {round}, seed {seed}: {sql}");
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g, w, "round {round}, seed {seed}: {sql}");
        }
    }
    server.stop();
    node.stop();
}

#[test]
fn a_prepared_window_reads_its_parameters_at_every_execution() {
    let (node, server) = common::start(1 << 20);
    let mut c = Raw::login_to(server.address().port(), None);
    let values: Vec<String> = (1..=30).map(|i| format!("({i}, {})", i % 3)).collect();
    for sql in [
        "CREATE DATABASE d".to_string(),
        "USE d".to_string(),
        "CREATE TABLE w (id INT PRIMARY KEY, g INT NOT NULL)".to_string(),
        format!("INSERT INTO w VALUES {}", values.join(", ")),
    ] {
        assert_eq!(c.query(&sql), Answer::Ok, "{sql}");
    }
    // The first `n` rows of each of the 3 partitions.
    let top = c.prepare(
        "SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY g ORDER BY id) AS rn \
         FROM w) x WHERE rn <= ?",
    );
    let counted = |c: &mut Raw, n: i64| match c.execute_with(top, &[n]) {
        Answer::Rows(rows) => rows.len(),
        other => panic!("{n}: {other:?}"),
    };
    assert_eq!(counted(&mut c, 2), 6);
    assert_eq!(counted(&mut c, 4), 12);
    assert_eq!(c.query("INSERT INTO w VALUES (31, 7)"), Answer::Ok);
    assert_eq!(counted(&mut c, 1), 4, "the new partition is seen");
    // A frame's offset as a parameter.
    let framed = c.prepare(
        "SELECT id FROM (SELECT id, COUNT(*) OVER (ORDER BY id ROWS BETWEEN ? PRECEDING AND \
         CURRENT ROW) AS n FROM w) x WHERE n = 3",
    );
    match c.execute_with(framed, &[2]) {
        Answer::Rows(rows) => assert_eq!(rows.len(), 29, "every row from the third"),
        other => panic!("{other:?}"),
    }
    match c.execute_with(framed, &[5]) {
        Answer::Rows(rows) => assert_eq!(rows.len(), 1, "only the third row"),
        other => panic!("{other:?}"),
    }
    server.stop();
    node.stop();
}
