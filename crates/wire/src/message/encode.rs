//! The byte layout of every message body, written: `Message::encode_body`.

use super::replication::put_changes;
use super::schema::{put_column, put_constraints, put_index_columns, put_options};
use super::*;
use crate::codec::Writer;

impl Message {
    pub fn encode_body(&self, out: &mut Vec<u8>) {
        match self {
            Message::Hello {
                client_name,
                session,
            } => {
                out.put_bytes(client_name.as_bytes());
                out.put_u64(*session);
            }
            Message::CommitOutcome {
                session,
                transaction,
            } => {
                out.put_u64(*session);
                out.put_u64(*transaction);
            }
            Message::Outcome { committed } => out.put_u8(u8::from(*committed)),
            Message::TableIds { last } => out.put_u32(*last),
            Message::CopyCatalog { catalog } => out.put_bytes(catalog),
            Message::CopyRows { changes } => put_changes(out, changes),
            Message::CopyDone { rows } => out.put_u64(*rows),
            Message::Shutdown { restart, initial } => {
                out.put_u8(u8::from(*restart) | (u8::from(*initial) << 1))
            }
            Message::StepHello { node_id, epoch } => {
                out.put_u32(*node_id);
                out.put_u64(*epoch);
            }
            Message::Steps {
                transaction,
                statement,
                keep_from,
                steps,
            } => {
                out.put_u64(*transaction);
                out.put_u32(*statement);
                out.put_u32(*keep_from);
                crate::step::put_steps(out, steps);
            }
            Message::StepsDone { replies } => crate::step::put_step_replies(out, replies),
            Message::EndRemote { transaction, end } => {
                out.put_u64(*transaction);
                out.put_u8(*end as u8);
            }
            Message::Gcp { round, step } => {
                out.put_u64(*round);
                out.put_u8(*step as u8);
            }
            Message::TakenAsk { after } => out.put_u64(*after),
            Message::TakenLog {
                from,
                last,
                entries,
                more,
            } => {
                out.put_u64(*from);
                out.put_u64(*last);
                out.put_u32(entries.len() as u32);
                for e in entries {
                    out.put_u64(e.seq);
                    out.put_u8(e.kind as u8);
                    out.put_u64(e.session);
                    out.put_u64(e.transaction);
                    put_changes(out, &e.changes);
                }
                out.put_u8(u8::from(*more));
            }
            Message::LevelUp {
                seq,
                session,
                transaction,
                changes,
            } => {
                out.put_u64(*seq);
                out.put_u64(*session);
                out.put_u64(*transaction);
                put_changes(out, changes);
            }
            Message::Prepared {
                coordinator,
                transaction,
                changes,
            } => {
                out.put_u32(*coordinator);
                out.put_u64(*transaction);
                put_changes(out, changes);
            }
            Message::Resolve {
                coordinator,
                transaction,
                commit,
                changes,
            } => {
                out.put_u32(*coordinator);
                out.put_u64(*transaction);
                out.put_u8(u8::from(*commit));
                put_changes(out, changes);
            }
            Message::ChecksumsRequest => {}
            Message::CopyPrimaries { epoch, primaries } => {
                out.put_u64(*epoch);
                out.put_u32(primaries.len() as u32);
                for (group, node) in primaries {
                    out.put_u32(*group);
                    out.put_u32(*node);
                }
            }
            Message::CopyNames { names } => {
                out.put_u32(names.len() as u32);
                for (session, transaction) in names {
                    out.put_u64(*session);
                    out.put_u64(*transaction);
                }
            }
            Message::Checksums { partitions } => {
                out.put_u32(partitions.len() as u32);
                for (table, partition, rows, sum) in partitions {
                    out.put_u32(*table);
                    out.put_u32(*partition);
                    out.put_u64(*rows);
                    out.put_u64(*sum);
                }
            }
            Message::UndoRemote {
                transaction,
                statement,
            } => {
                out.put_u64(*transaction);
                out.put_u32(*statement);
            }
            Message::ScanPart {
                transaction,
                request,
                partitions,
                place,
                rows_max,
                bytes_max,
            } => {
                out.put_u64(*transaction);
                put_scan_request(out, request);
                out.put_u32(partitions.len() as u32);
                for p in partitions {
                    out.put_u32(*p);
                }
                crate::step::put_place(out, place);
                out.put_u32(*rows_max);
                out.put_u32(*bytes_max);
            }
            Message::ScanPartRows { rows, next } => {
                out.put_u32(rows.len() as u32);
                for (key, values) in rows {
                    out.put_bytes(key);
                    out.put_values(values);
                }
                match next {
                    None => out.put_u8(0),
                    Some(place) => {
                        out.put_u8(1);
                        crate::step::put_place(out, place);
                    }
                }
            }
            Message::HelloReply {
                node_id,
                worker_count,
                serving,
                reads,
                group,
                groups,
            } => {
                out.put_u32(*node_id);
                out.put_u32(*worker_count);
                out.put_u8(u8::from(*serving) | u8::from(*reads) << 1);
                out.put_u32(*group);
                out.put_u32(*groups);
            }
            Message::CreateTable(t) => put_table(out, t),
            Message::PeerHello { node_id, epoch } => {
                out.put_u32(*node_id);
                out.put_u64(*epoch);
            }
            Message::Replicate {
                session,
                transaction,
                changes,
                decision,
            } => {
                out.put_u64(*session);
                out.put_u64(*transaction);
                put_changes(out, changes);
                out.put_u64(*decision);
            }
            Message::TableInfo {
                table,
                index_tables,
            } => {
                put_table(out, table);
                out.put_u32(index_tables.len() as u32);
                for t in index_tables {
                    put_table(out, t);
                }
            }
            Message::DropTable { name }
            | Message::GetTable { name }
            | Message::DropDatabase { name } => out.put_bytes(name.as_bytes()),
            Message::CreateDatabase { name, collation }
            | Message::AlterDatabase { name, collation } => {
                out.put_bytes(name.as_bytes());
                out.put_u8(*collation as u8);
            }
            Message::DatabaseList { databases } => {
                out.put_u32(databases.len() as u32);
                for (name, collation) in databases {
                    out.put_bytes(name.as_bytes());
                    out.put_u8(*collation as u8);
                }
            }
            Message::AddIndex {
                table,
                version,
                name,
                kind,
                columns,
                prefixes,
            } => {
                out.put_bytes(table.as_bytes());
                out.put_u32(*version);
                out.put_bytes(name.as_bytes());
                put_index_columns(out, *kind, columns, prefixes);
            }
            Message::AlterTable { table, change } => {
                out.put_bytes(table.as_bytes());
                match change {
                    TableChange::DropIndex { name } => {
                        out.put_u8(1);
                        out.put_bytes(name.as_bytes());
                    }
                    TableChange::Rename { to } => {
                        out.put_u8(2);
                        out.put_bytes(to.as_bytes());
                    }
                    TableChange::Options { options, comment } => {
                        out.put_u8(3);
                        put_options(out, options, false);
                        out.put_bytes(comment.as_bytes());
                    }
                    TableChange::Columns { version, columns } => {
                        out.put_u8(4);
                        out.put_u32(*version);
                        out.put_u32(columns.len() as u32);
                        for c in columns {
                            put_column(out, &c.column);
                            match &c.source {
                                ColumnSource::Kept(position) => {
                                    out.put_u8(1);
                                    out.put_u16(*position);
                                }
                                ColumnSource::Filled(value) => {
                                    out.put_u8(2);
                                    out.put_value(value);
                                }
                            }
                        }
                    }
                    TableChange::Constraints {
                        version,
                        foreign_keys,
                        checks,
                    } => {
                        out.put_u8(5);
                        out.put_u32(*version);
                        put_constraints(out, foreign_keys, checks);
                    }
                }
            }
            Message::Execute {
                transaction,
                statement,
                keep_from,
                exec,
                operations,
            } => {
                out.put_u64(*transaction);
                out.put_u32(*statement);
                out.put_u32(*keep_from);
                out.put_u8(*exec as u8);
                out.put_u32(operations.len() as u32);
                for op in operations {
                    out.put_u8(op.kind.code());
                    out.put_u32(op.table);
                    out.put_u32(op.version);
                    out.put_u16(op.index.map_or(u16::MAX, |i| i));
                    out.put_values(&op.key);
                    out.put_u32(op.values.len() as u32);
                    for (c, v) in &op.values {
                        out.put_u16(*c);
                        out.put_value(v);
                    }
                    out.put_u16s(&op.projection);
                }
            }
            Message::ExecuteReply(outcome) => match outcome {
                ExecuteOutcome::Ok(results) => put_results(out, results),
                ExecuteOutcome::Aborted { op_index, error } => {
                    out.put_u8(1);
                    out.put_u32(*op_index);
                    put_error(out, error);
                }
                ExecuteOutcome::StatementUndone { op_index, error } => {
                    out.put_u8(2);
                    out.put_u32(*op_index);
                    put_error(out, error);
                }
            },
            Message::Scan(s) => put_scan_request(out, s),
            Message::ScanRows { rows } => {
                out.put_u32(rows.len() as u32);
                for r in rows {
                    out.put_values(r);
                }
            }
            Message::Failure(e) => put_error(out, e),
            Message::Ping { payload } | Message::Pong { payload } => out.put_bytes(payload),
            Message::ListTables
            | Message::ListDatabases
            | Message::Status
            | Message::Done
            | Message::Checkpoint
            | Message::ScanNext
            | Message::ScanClose => {}
            Message::CheckpointReply(c) => {
                out.put_u64(c.id);
                out.put_u8(c.full as u8);
                out.put_u64(c.entries);
                out.put_u64(c.bytes);
                out.put_u64(c.micros);
            }
            Message::TableList { names } => {
                out.put_u32(names.len() as u32);
                for n in names {
                    out.put_bytes(n.as_bytes());
                }
            }
            Message::StatusReply(s) => {
                out.put_u32(s.node_id);
                out.put_u32(s.worker_count);
                out.put_u64(s.resident_bytes);
                out.put_u32(s.table_count);
                out.put_u64(s.row_count);
                out.put_u64(s.data_memory_bytes);
                out.put_u64(s.data_memory_limit);
                out.put_u32(s.tables.len() as u32);
                for t in &s.tables {
                    out.put_u32(t.id);
                    out.put_u64(t.rows);
                    out.put_u64(t.data_bytes);
                    out.put_u64(t.index_bytes);
                }
                out.put_u64(s.view_epoch);
                for list in [&s.group, &s.members] {
                    out.put_u32(list.len() as u32);
                    for n in list {
                        out.put_u32(*n);
                    }
                }
                out.put_u32(s.copies.len() as u32);
                for c in &s.copies {
                    out.put_u32(c.node);
                    out.put_u64(c.rows);
                    out.put_u32(c.partitions_done);
                    out.put_u32(c.partitions);
                    out.put_u64(c.micros);
                    out.put_u8(u8::from(c.done));
                }
                out.put_u64(s.backup_reads);
                out.put_u32(s.held_parts);
                out.put_u32(s.in_doubt);
            }
        }
    }
}
