//! A coordinator's scans: the partitions a scan can match (`filter_partitions`), one request
//! per worker holding them (naming the transaction whose changes the scan sees to the workers it
//! wrote on), and the merge of their rows into `ScanRows` frames.

use std::sync::Arc;

use base::{limits, Error, ErrorCode, Value};
use wire::frame::FLAG_LAST;
use wire::{Message, ScanOrder, ScanRequest};

use super::{unknown_table, Coordinator, Pending};
use crate::messages::*;
use crate::prepare::{self, locate};

/// A scan waiting for the rows of the workers it was sent to.
pub(super) struct ScanState {
    pub(super) request_id: u64,
    pub(super) order: ScanOrder,
    pub(super) limit: u64,
    pub(super) waiting: usize,
    pub(super) parts: Vec<Vec<ScannedRow>>,
    pub(super) failure: Option<Error>,
}

impl Coordinator {
    pub(super) fn on_scan(&mut self, request_id: u64, request: ScanRequest) {
        if request.transaction != 0 && self.timed_out.contains(&request.transaction) {
            // Rolled back for inactivity: its reads would no longer see its writes.
            return self.fail(request_id, self.timed_out_error());
        }
        if let Some(t) = self.txns.get_mut(&request.transaction) {
            // A read of the transaction is activity: it does not time out meanwhile.
            t.last_active = std::time::Instant::now();
        }
        // Only workers that received a write of the transaction hold changes a scan must see.
        let (txn, written) = match self.txns.get(&request.transaction) {
            Some(t) if request.transaction != 0 => (Some(t.id), t.written),
            _ => (None, 0),
        };
        if let Some(e) = self.queues_full() {
            return self.fail(request_id, e);
        }
        match self.plan_scan(request) {
            Err(e) => self.fail(request_id, e),
            Ok((plan, partitions)) => {
                let tag = self.tag();
                let workers = self.shared.worker_count();
                let mut groups: Vec<Vec<u32>> = vec![Vec::new(); workers];
                for p in partitions {
                    groups[p as usize % workers].push(p);
                }
                let plan = Arc::new(plan);
                let mut waiting = 0;
                for (w, group) in groups.into_iter().enumerate() {
                    if group.is_empty() {
                        continue;
                    }
                    let message = ToWorker::Scan {
                        tag,
                        partitions: group,
                        plan: plan.clone(),
                        txn: txn.filter(|_| written & (1 << w) != 0),
                        reply_to: self.me,
                    };
                    self.outbox.push((w, message));
                    waiting += 1;
                }
                let state = ScanState {
                    request_id,
                    order: plan.order,
                    limit: plan.limit,
                    waiting,
                    parts: Vec::new(),
                    failure: None,
                };
                if waiting == 0 {
                    return self.finish_scan(state);
                }
                self.pending.insert(tag, Pending::Scan(state));
            }
        }
    }

    fn plan_scan(&self, request: ScanRequest) -> Result<(ScanPlan, Vec<u32>), Error> {
        let entry = {
            let catalog = self
                .shared
                .catalog
                .read()
                .map_err(|_| Error::new(ErrorCode::Internal, "catalog poisoned"))?;
            catalog
                .get(request.table)
                .cloned()
                .ok_or_else(|| unknown_table(&catalog, request.table))?
        };
        let table = entry.def.clone();
        if table.version != request.version {
            return Err(crate::worker::changed(&table, request.version));
        }
        let projection = prepare::check_projection(&table, request.projection)?;
        let filter = prepare::prepare_filter(&table, request.filter)?;
        let mut partitions: Vec<u32> = (0..table.partition_count).collect();
        let (mut lower, mut upper) = (None, None);
        let index = match request.index {
            None => None,
            Some(i) => {
                let def = table.indexes.get(i as usize).ok_or_else(|| {
                    Error::new(
                        ErrorCode::NoSuchIndex,
                        format!("table '{}' has no index {i}", table.name),
                    )
                })?;
                let bound = |b: Option<wire::Bound>| -> Result<Option<(Vec<Value>, bool)>, Error> {
                    let Some(b) = b else { return Ok(None) };
                    if b.values.len() > def.columns.len() {
                        return Err(Error::new(
                            ErrorCode::BadRequest,
                            format!(
                                "bound has more values than index '{}' has columns",
                                def.name
                            ),
                        ));
                    }
                    let values = def
                        .columns
                        .iter()
                        .zip(b.values)
                        .map(|(c, v)| prepare::comparable(&table, *c, v))
                        .collect::<Result<_, _>>()?;
                    Ok(Some((values, b.inclusive)))
                };
                lower = bound(request.lower)?;
                upper = bound(request.upper)?;
                // Prune to one partition when an equality bound fixes every partition-key column.
                if let (Some((lv, true)), Some((uv, true))) = (&lower, &upper) {
                    if lv == uv {
                        let key: Option<Vec<Value>> = table
                            .partition_key
                            .iter()
                            .map(|pc| {
                                // A column the index holds a prefix of fixes only the prefix.
                                def.columns
                                    .iter()
                                    .position(|c| c == pc)
                                    .filter(|at| def.prefix(*at).is_none())
                                    .and_then(|at| lv.get(at))
                                    .cloned()
                            })
                            .collect();
                        if let Some(key) = key {
                            let mut bytes = Vec::new();
                            table.encode_key(&table.partition_key, &key, &mut bytes);
                            partitions =
                                vec![base::placement::partition_of(&bytes, table.partition_count)];
                        }
                    }
                }
                Some(i as usize)
            }
        };
        if partitions.len() > 1 {
            if let Some(pruned) = filter_partitions(&table, &filter) {
                partitions = pruned;
            }
        }
        let order = if index.is_none() {
            ScanOrder::Any
        } else {
            request.order
        };
        let plan = ScanPlan {
            table,
            index,
            lower,
            upper,
            filter,
            projection,
            limit: request.limit,
            order,
        };
        Ok((plan, partitions))
    }

    pub(super) fn on_scan_part(&mut self, tag: u64, rows: Result<Vec<ScannedRow>, Error>) {
        let Some(Pending::Scan(mut state)) = self.pending.remove(&tag) else {
            return;
        };
        match rows {
            Ok(rows) => state.parts.push(rows),
            Err(e) => state.failure = Some(e),
        }
        state.waiting -= 1;
        if state.waiting > 0 {
            self.pending.insert(tag, Pending::Scan(state));
            return;
        }
        self.finish_scan(state);
    }

    pub(super) fn finish_scan(&mut self, state: ScanState) {
        if let Some(e) = state.failure {
            return self.fail(state.request_id, e);
        }
        let mut rows: Vec<ScannedRow> = Vec::new();
        let ordered = state.order != ScanOrder::Any && state.parts.len() > 1;
        for part in state.parts {
            rows.extend(part);
        }
        if ordered {
            // Each part is sorted; a stable sort of the concatenation is the merge.
            if state.order == ScanOrder::Descending {
                rows.sort_by(|a, b| b.0.cmp(&a.0));
            } else {
                rows.sort_by(|a, b| a.0.cmp(&b.0));
            }
        }
        if state.limit > 0 {
            rows.truncate(state.limit.min(usize::MAX as u64) as usize);
        }
        let mut batch: Vec<Vec<Value>> = Vec::new();
        let mut batch_bytes = 0usize;
        let total = rows.len();
        for (i, (_, values)) in rows.into_iter().enumerate() {
            batch_bytes += values.iter().map(wire::value_bytes).sum::<usize>() + 8;
            batch.push(values);
            let last = i + 1 == total;
            if !last
                && (batch.len() >= limits::SCAN_BATCH_ROWS_MAX || batch_bytes >= SCAN_BATCH_BYTES)
            {
                let rows = std::mem::take(&mut batch);
                Message::ScanRows { rows }.write_frame(
                    &mut self.out,
                    self.shared.cluster_id,
                    0,
                    state.request_id,
                );
                batch_bytes = 0;
            }
        }
        Message::ScanRows { rows: batch }.write_frame(
            &mut self.out,
            self.shared.cluster_id,
            FLAG_LAST,
            state.request_id,
        );
    }
}

/// Bytes of scan rows gathered into one frame before it is cut.
const SCAN_BATCH_BYTES: usize = 1024 * 1024;

/// Partition-key values a scan's filter may fix at most, across its IN lists (beyond, the scan
/// reads every partition).
const PRUNE_KEYS_MAX: usize = 256;

/// The partitions a scan's filter can match, when it fixes every partition-key column: a
/// conjunction with `col = v` or `col IN (...)` for each (NDB's partition pruning). None when it
/// does not. Values are the filter's prepared ones, comparable as the key's columns hash.
fn filter_partitions(table: &base::TableDef, filter: &base::filter::Filter) -> Option<Vec<u32>> {
    use base::filter::{CmpOp, Filter};
    let conjuncts = match filter {
        Filter::And(list) => list.as_slice(),
        one => std::slice::from_ref(one),
    };
    let values_of = |col: u16| -> Option<Vec<&Value>> {
        conjuncts.iter().find_map(|f| match f {
            Filter::Cmp {
                column,
                op: CmpOp::Eq,
                value,
            } if *column == col => Some(vec![value]),
            Filter::In { column, values } if *column == col => Some(values.iter().collect()),
            _ => None,
        })
    };
    let mut keys: Vec<Vec<Value>> = vec![Vec::new()];
    for &column in &table.partition_key {
        // NULL equals nothing: a key holding one matches no row.
        let values: Vec<&Value> = values_of(column)?
            .into_iter()
            .filter(|v| !v.is_null())
            .collect();
        if keys.len() * values.len() > PRUNE_KEYS_MAX {
            return None;
        }
        keys = keys
            .iter()
            .flat_map(|k| {
                values.iter().map(move |v| {
                    let mut k = k.clone();
                    k.push((*v).clone());
                    k
                })
            })
            .collect();
    }
    let mut partitions: Vec<u32> = keys
        .iter()
        .map(|k| locate(table, &table.partition_key, k).1)
        .collect();
    partitions.sort_unstable();
    partitions.dedup();
    if partitions.is_empty() {
        // No key can match: one partition, where the filter finds nothing, answers.
        partitions.push(0);
    }
    Some(partitions)
}

#[cfg(test)]
mod tests {
    use super::*;
    use base::filter::{CmpOp, Filter};
    use base::schema::ColumnDef;
    use base::types::ColumnType;

    fn table() -> base::TableDef {
        let columns = vec![
            ColumnDef::new("a", ColumnType::Int { unsigned: false }),
            ColumnDef::new("b", ColumnType::VarChar { length: 5 }),
            ColumnDef::new("v", ColumnType::Int { unsigned: false }).nullable(),
        ];
        let mut t = base::TableDef::new("t", columns, &["a", "b"])
            .unwrap()
            .with_partition_key(&["b"])
            .unwrap();
        t.partition_count = 8;
        t
    }

    fn eq(column: u16, value: Value) -> Filter {
        Filter::Cmp {
            column,
            op: CmpOp::Eq,
            value,
        }
    }

    /// The partition a row with `b` lives in, as writes place it (by its primary key).
    fn home(t: &base::TableDef, b: &str) -> u32 {
        locate(t, &t.primary_key, &[Value::Int(1), Value::Bytes(b.into())]).1
    }

    #[test]
    fn filter_fixing_the_partition_key_prunes() {
        let t = table();
        let b = |s: &str| Value::Bytes(s.into());
        let gt = Filter::Cmp {
            column: 0,
            op: CmpOp::Gt,
            value: Value::Int(1),
        };
        assert_eq!(
            filter_partitions(&t, &eq(1, b("x"))),
            Some(vec![home(&t, "x")])
        );
        assert_eq!(
            filter_partitions(&t, &Filter::And(vec![gt.clone(), eq(1, b("x"))])),
            Some(vec![home(&t, "x")])
        );
        let mut both = vec![home(&t, "x"), home(&t, "yy")];
        both.sort_unstable();
        both.dedup();
        let listed = Filter::In {
            column: 1,
            values: vec![b("x"), Value::Null, b("yy"), b("x")],
        };
        assert_eq!(filter_partitions(&t, &listed), Some(both));
        // Only NULL: nothing can match, one partition answers that.
        let nulls = Filter::In {
            column: 1,
            values: vec![Value::Null],
        };
        assert_eq!(filter_partitions(&t, &nulls), Some(vec![0]));
        // Not fixed: a primary-key column that is not in the partition key, OR, a range.
        assert_eq!(filter_partitions(&t, &eq(0, Value::Int(1))), None);
        assert_eq!(filter_partitions(&t, &gt), None);
        let either = Filter::Or(vec![eq(1, b("x")), eq(1, b("y"))]);
        assert_eq!(filter_partitions(&t, &either), None);
        assert_eq!(filter_partitions(&t, &Filter::True), None);
        // Too many keys to list: every partition.
        let many = Filter::In {
            column: 1,
            values: (0..=PRUNE_KEYS_MAX).map(|i| b(&i.to_string())).collect(),
        };
        assert_eq!(filter_partitions(&t, &many), None);
    }
}
