//! Table statistics, the planner's figures: a table's rows and the distinct values of each of
//! its keys' leading columns (NDB's index statistics). [`Cluster::analyze`] measures them with
//! one scan of the indexed columns (distinct values counted exactly up to
//! [`EXACT_DISTINCT_MAX`], then by a HyperLogLog sketch) and keeps them as a row of the internal
//! table [`STATS_TABLE`], so every API node plans with the same figures and they survive
//! restarts like any row; a table's handle carries them from when its definition was loaded.

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hasher};
use std::sync::Arc;

use base::schema::{ColumnDef, TableDef};
use base::types::ColumnType;
use base::{ErrorCode, Value};

use crate::connection::Cluster;
use crate::table::{Scan, Table};
use crate::Result;

/// The internal table statistics are kept in: one row per analyzed table, by its name.
pub const STATS_TABLE: &str = "cairn_table_stats";
/// The longest statistics text a row keeps (64 keys of 16 columns fit many times over).
pub const STATS_TEXT_BYTES_MAX: u32 = 16_384;
/// Distinct values counted exactly; past this many a key prefix's count is the sketch's
/// estimate (about 1.6% off).
pub const EXACT_DISTINCT_MAX: usize = 1 << 16;
/// Distinct values held exactly over all of a table's key prefixes at once (about 16 MiB of
/// hashes): a table with many keys counts each exactly up to its share.
const EXACT_DISTINCT_TOTAL_MAX: usize = 1 << 21;
/// A sketch has 2^SKETCH_BITS registers.
const SKETCH_BITS: u32 = 12;

/// What ANALYZE measured of one table.
#[derive(Debug, Clone, PartialEq)]
pub struct TableStats {
    /// The table's id when measured: a table dropped and made again under its name has
    /// another, and no statistics until it is analyzed.
    pub table_id: u32,
    pub rows: u64,
    /// Per key, by name ("PRIMARY" for the primary key): the distinct values of its first 1,
    /// 2, ... columns.
    pub keys: Vec<(String, Vec<u64>)>,
}

impl TableStats {
    /// The distinct values of key `name`'s first `prefix` columns (1-based), if measured.
    pub fn distinct(&self, name: &str, prefix: usize) -> Option<u64> {
        let (_, counts) = self
            .keys
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))?;
        counts.get(prefix.checked_sub(1)?).copied()
    }

    /// The rows one value of key `name`'s first `prefix` columns matches, on average.
    pub fn rows_per_value(&self, name: &str, prefix: usize) -> Option<f64> {
        let d = self.distinct(name, prefix)?;
        Some(self.rows as f64 / d.max(1) as f64)
    }

    /// The statistics as kept in their row: `rows id` on the first line, then a line per key,
    /// its counts separated by commas and its name after one space.
    fn encode(&self) -> String {
        let mut out = format!("{} {}\n", self.rows, self.table_id);
        for (name, counts) in &self.keys {
            let counts: Vec<String> = counts.iter().map(u64::to_string).collect();
            out.push_str(&format!("{} {name}\n", counts.join(",")));
        }
        out
    }

    /// Reads [`TableStats::encode`]'s text; None when it is not such text (a row written by
    /// another version, or damaged): the table is then planned without statistics.
    fn decode(text: &str) -> Option<TableStats> {
        let mut lines = text.lines();
        let (rows, id) = lines.next()?.split_once(' ')?;
        let mut keys = Vec::new();
        for line in lines {
            let (counts, name) = line.split_once(' ')?;
            let counts = counts
                .split(',')
                .map(|c| c.parse().ok())
                .collect::<Option<Vec<u64>>>()?;
            keys.push((name.to_string(), counts));
        }
        Some(TableStats {
            table_id: id.parse().ok()?,
            rows: rows.parse().ok()?,
            keys,
        })
    }
}

/// The statistics table's definition.
fn definition() -> TableDef {
    let columns = vec![
        ColumnDef::new("name", ColumnType::VarBinary { length: 512 }),
        ColumnDef::new(
            "stats",
            ColumnType::VarBinary {
                length: STATS_TEXT_BYTES_MAX,
            },
        ),
    ];
    match TableDef::new(STATS_TABLE, columns, &["name"]) {
        Ok(def) => def,
        // A fixed definition: failing to build it is a defect of this file.
        Err(e) => panic!("the statistics table's definition is invalid: {e}"),
    }
}

/// A count of distinct values: exact while few, then a HyperLogLog sketch.
struct Distinct {
    exact: Option<HashSet<u64>>,
    /// The most values `exact` holds before the sketch alone counts.
    exact_max: usize,
    registers: Vec<u8>,
}

impl Distinct {
    fn new(exact_max: usize) -> Distinct {
        Distinct {
            exact: Some(HashSet::new()),
            exact_max,
            registers: vec![0; 1 << SKETCH_BITS],
        }
    }

    fn add(&mut self, hash: u64) {
        if let Some(exact) = &mut self.exact {
            exact.insert(hash);
            if exact.len() > self.exact_max {
                self.exact = None;
            }
        }
        let register = (hash >> (64 - SKETCH_BITS)) as usize;
        // The rank of the first 1 bit after the register's bits (a sentinel bounds it).
        let rest = (hash << SKETCH_BITS) | (1 << (SKETCH_BITS - 1));
        let rank = rest.leading_zeros() as u8 + 1;
        if let Some(r) = self.registers.get_mut(register) {
            *r = (*r).max(rank);
        }
    }

    fn count(&self) -> u64 {
        if let Some(exact) = &self.exact {
            return exact.len() as u64;
        }
        let m = self.registers.len() as f64;
        let alpha = 0.7213 / (1.0 + 1.079 / m);
        let sum: f64 = self
            .registers
            .iter()
            .map(|r| 2f64.powi(-i32::from(*r)))
            .sum();
        let raw = alpha * m * m / sum;
        let zeros = self.registers.iter().filter(|r| **r == 0).count();
        // Few values: linear counting over the empty registers is the better estimate.
        let estimate = if raw <= 2.5 * m && zeros > 0 {
            m * (m / zeros as f64).ln()
        } else {
            raw
        };
        estimate.round() as u64
    }
}

fn hash_of(bytes: &[u8]) -> u64 {
    let mut h = DefaultHasher::new();
    h.write(bytes);
    h.finish()
}

/// The keys whose prefixes are counted: (name, columns). A hidden primary key is unique and
/// not read.
fn keys_of(def: &TableDef) -> Vec<(String, Vec<u16>)> {
    let mut keys = Vec::new();
    if !def.has_hidden_pk() {
        keys.push(("PRIMARY".to_string(), def.primary_key.clone()));
    }
    for index in &def.indexes {
        keys.push((index.name.clone(), index.columns.clone()));
    }
    keys
}

/// Counts `table`'s rows and its keys' distinct prefixes from rows of `columns` (the keys'
/// columns, in that order).
fn measure(
    def: &TableDef,
    columns: &[u16],
    rows: impl Iterator<Item = Result<Vec<Vec<Value>>>>,
) -> Result<TableStats> {
    let keys = keys_of(def);
    let prefixes: usize = keys.iter().map(|(_, cols)| cols.len()).sum();
    let exact_max = (EXACT_DISTINCT_TOTAL_MAX / prefixes.max(1)).min(EXACT_DISTINCT_MAX);
    let mut counters: Vec<Vec<Distinct>> = keys
        .iter()
        .map(|(_, cols)| cols.iter().map(|_| Distinct::new(exact_max)).collect())
        .collect();
    // Each key column's place in the scanned row.
    let places: Vec<Vec<usize>> = keys
        .iter()
        .map(|(_, cols)| {
            cols.iter()
                .map(|c| columns.iter().position(|x| x == c).unwrap_or(0))
                .collect()
        })
        .collect();
    let mut total = 0u64;
    let mut key = Vec::new();
    for batch in rows {
        for row in batch? {
            total += 1;
            for ((_, cols), (places, counters)) in
                keys.iter().zip(places.iter().zip(counters.iter_mut()))
            {
                key.clear();
                for ((c, place), counter) in cols.iter().zip(places).zip(counters.iter_mut()) {
                    let value = row.get(*place).unwrap_or(&Value::Null);
                    def.encode_key(&[*c], std::slice::from_ref(value), &mut key);
                    counter.add(hash_of(&key));
                }
            }
        }
    }
    Ok(TableStats {
        table_id: def.id,
        rows: total,
        keys: keys
            .into_iter()
            .zip(counters)
            .map(|((name, _), counters)| (name, counters.iter().map(Distinct::count).collect()))
            .collect(),
    })
}

impl Cluster {
    /// Measures table `name`'s statistics (one scan of its keys' columns), keeps them in
    /// [`STATS_TABLE`] and returns its handle carrying them.
    pub fn analyze(&self, name: &str) -> Result<Table> {
        let table = self.table(name)?;
        let def = table.def();
        let mut columns: Vec<u16> = Vec::new();
        for (_, cols) in keys_of(def) {
            for c in cols {
                if !columns.contains(&c) {
                    columns.push(c);
                }
            }
        }
        let names: Vec<&str> = columns
            .iter()
            .map(|c| def.columns[*c as usize].name.as_str())
            .collect();
        let stats = if names.is_empty() {
            // No key to count: the rows alone, counted in the data node.
            let rows = self.count_rows(&table)?;
            TableStats {
                table_id: def.id,
                rows,
                keys: Vec::new(),
            }
        } else {
            let mut cursor = self.scan_cursor(&table, &Scan::table().columns(&names))?;
            measure(
                def,
                &columns,
                std::iter::from_fn(|| cursor.next_batch().transpose()),
            )?
        };
        let kept = self.stats_table()?;
        let mut stats = stats;
        let mut text = stats.encode();
        // A table of very many keys: the last keys go unmeasured rather than fail the write.
        while text.len() > STATS_TEXT_BYTES_MAX as usize && stats.keys.pop().is_some() {
            text = stats.encode();
        }
        let mut txn = self.transaction();
        txn.write(
            &kept,
            vec![Value::Bytes(name.to_ascii_lowercase().into_bytes())],
            vec![(1, Value::Bytes(text.into_bytes()))],
        );
        txn.commit()?;
        let measured = table.with_stats(Arc::new(stats));
        self.cache(&measured);
        Ok(measured)
    }

    /// Table `name`'s kept statistics, when it has some measured under its current id.
    pub(crate) fn kept_stats(&self, table: &Table) -> Option<Arc<TableStats>> {
        if base::schema::is_internal_table(table.name()) {
            return None;
        }
        let kept = self.table(STATS_TABLE).ok()?;
        let mut txn = self.transaction();
        let op = txn.read(
            &kept,
            vec![Value::Bytes(table.name().to_ascii_lowercase().into_bytes())],
        );
        txn.execute(wire::ExecType::Commit).ok()?;
        let Some(Value::Bytes(text)) = txn.row(op)?.get(1) else {
            return None;
        };
        let stats = TableStats::decode(std::str::from_utf8(text).ok()?)?;
        (stats.table_id == table.id()).then(|| Arc::new(stats))
    }

    /// The statistics table, made when it is missing.
    fn stats_table(&self) -> Result<Table> {
        match self.table(STATS_TABLE) {
            Ok(t) => Ok(t),
            Err(e) if e.code() == ErrorCode::NoSuchTable => match self.create_table(definition()) {
                Ok(t) => Ok(t),
                // Another API node made it meanwhile.
                Err(e) if e.code() == ErrorCode::TableExists => self.table(STATS_TABLE),
                Err(e) => Err(e),
            },
            Err(e) => Err(e),
        }
    }

    /// The rows of `table`, counted by the data nodes.
    fn count_rows(&self, table: &Table) -> Result<u64> {
        let aggregation = wire::Aggregation {
            group: Vec::new(),
            functions: vec![wire::AggregateFn::Count(None)],
        };
        let scan = Scan::table().aggregate(aggregation);
        let mut total = 0u64;
        for row in self.scan(table, &scan)? {
            match row.first() {
                Some(Value::UInt(n)) => total += n,
                Some(Value::Int(n)) => total += (*n).max(0) as u64,
                _ => {}
            }
        }
        Ok(total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_exact_while_few_and_close_after() {
        let mut d = Distinct::new(EXACT_DISTINCT_MAX);
        for i in 0..1000u64 {
            d.add(hash_of(&(i % 100).to_be_bytes()));
        }
        assert_eq!(d.count(), 100);
        let mut d = Distinct::new(EXACT_DISTINCT_MAX);
        let n = 500_000u64;
        for i in 0..n {
            d.add(hash_of(&i.to_be_bytes()));
        }
        let c = d.count() as f64;
        assert!(
            (c - n as f64).abs() / (n as f64) < 0.05,
            "estimated {c} of {n}"
        );
    }

    #[test]
    fn text_round_trips_and_damage_is_none() {
        let s = TableStats {
            table_id: 7,
            rows: 600,
            keys: vec![
                ("PRIMARY".into(), vec![150, 600]),
                ("by cust".into(), vec![99]),
            ],
        };
        assert_eq!(TableStats::decode(&s.encode()), Some(s.clone()));
        assert_eq!(s.rows_per_value("by cust", 1), Some(600.0 / 99.0));
        assert_eq!(s.distinct("primary", 2), Some(600));
        assert_eq!(s.distinct("primary", 3), None);
        for bad in ["", "x 7\n", "600 7\n1,a PRIMARY\n", "600 7\nPRIMARY\n"] {
            assert_eq!(TableStats::decode(bad), None, "{bad:?}");
        }
    }
}
