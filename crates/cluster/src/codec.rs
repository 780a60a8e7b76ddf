//! The protocol messages as bytes: one frame type (`CLUSTER_MESSAGE`) in the native protocol's
//! 32-byte framed, checksummed format, its body a tag and the message's fields, little-endian.
//! Decoding checks every count against a named limit before allocating.

use std::collections::BTreeSet;

use wire::codec::{DecodeError, DecodeResult, Reader, Writer};

use crate::layout::{Epoch, Membership, NodeId, DATA_NODES_MAX};
use crate::msg::{Ballot, ClientReply, Gci, Msg, Op, Refusal, TxnId, Versioned};

/// The frame type of every cluster protocol message.
pub const CLUSTER_MESSAGE: u16 = 0x7c01;
/// The most operations one partition's part of a transaction may carry.
pub const OPS_MAX: usize = 4096;
/// The most rows one partition copy may carry.
pub const ROWS_MAX: usize = 1 << 20;
/// The most transactions one takeover message may name.
pub const TXNS_MAX: usize = 1 << 20;

/// Appends `msg` as one whole frame.
pub fn encode(msg: &Msg, out: &mut Vec<u8>) {
    wire::frame::write_frame(out, CLUSTER_MESSAGE, 0, 0, 0, |b| body(msg, b));
}

/// Appends `msg`'s body alone (its tag and fields), as a frame carries it: for a file that
/// keeps messages (the management node's votes), whose format does not follow the wire's
/// protocol version.
pub fn encode_body(msg: &Msg, out: &mut Vec<u8>) {
    body(msg, out);
}

fn put_members(b: &mut Vec<u8>, membership: &Membership) {
    for set in [&membership.members, &membership.starting] {
        b.put_u32(set.len() as u32);
        for m in set {
            b.put_u16(*m);
        }
    }
}

fn put_versions(b: &mut Vec<u8>, versions: &[(u64, u64)]) {
    b.put_u32(versions.len() as u32);
    for (key, version) in versions {
        b.put_u64(*key);
        b.put_u64(*version);
    }
}

fn put_ballot(b: &mut Vec<u8>, ballot: Ballot) {
    b.put_u64(ballot.round);
    b.put_u16(ballot.node);
}

fn put_txn(b: &mut Vec<u8>, txn: TxnId) {
    b.put_u16(txn.coordinator);
    b.put_u64(txn.seq);
}

fn put_txns(b: &mut Vec<u8>, txns: &[TxnId]) {
    b.put_u32(txns.len() as u32);
    for t in txns {
        put_txn(b, *t);
    }
}

fn put_txn_gcis(b: &mut Vec<u8>, txns: &[(TxnId, Gci)]) {
    b.put_u32(txns.len() as u32);
    for (t, gci) in txns {
        put_txn(b, *t);
        b.put_u64(*gci);
    }
}

fn put_versioned(b: &mut Vec<u8>, v: Option<Versioned>) {
    match v {
        None => b.put_u8(0),
        Some(v) => {
            b.put_u8(1);
            b.put_u64(v.value);
            b.put_u64(v.version);
        }
    }
}

fn put_reads(b: &mut Vec<u8>, reads: &[(u64, Option<Versioned>)]) {
    b.put_u32(reads.len() as u32);
    for (key, v) in reads {
        b.put_u64(*key);
        put_versioned(b, *v);
    }
}

/// The fields every per-partition transaction message shares.
fn put_step(b: &mut Vec<u8>, tag: u8, epoch: u64, txn: TxnId, partition: u32) {
    b.put_u8(tag);
    b.put_u64(epoch);
    put_txn(b, txn);
    b.put_u32(partition);
}

fn body(msg: &Msg, b: &mut Vec<u8>) {
    match msg {
        Msg::Heartbeat {
            epoch,
            ready,
            sent,
            echo,
            done_below,
        } => {
            b.put_u8(1);
            b.put_u64(*epoch);
            b.put_u8(u8::from(*ready));
            b.put_u64(*sent);
            b.put_u64(echo.map_or(u64::MAX, |e| e));
            b.put_u64(*done_below);
        }
        Msg::ViewPrepare { epoch, ballot } => {
            b.put_u8(2);
            b.put_u64(*epoch);
            put_ballot(b, *ballot);
        }
        Msg::ViewPromise {
            epoch,
            ballot,
            accepted,
        } => {
            b.put_u8(3);
            b.put_u64(*epoch);
            put_ballot(b, *ballot);
            match accepted {
                None => b.put_u8(0),
                Some((ballot, members)) => {
                    b.put_u8(1);
                    put_ballot(b, *ballot);
                    put_members(b, members);
                }
            }
        }
        Msg::ViewAccept {
            epoch,
            ballot,
            members,
        } => {
            b.put_u8(4);
            b.put_u64(*epoch);
            put_ballot(b, *ballot);
            put_members(b, members);
        }
        Msg::ViewAccepted { epoch, ballot } => {
            b.put_u8(5);
            b.put_u64(*epoch);
            put_ballot(b, *ballot);
        }
        Msg::ViewNack { epoch, promised } => {
            b.put_u8(6);
            b.put_u64(*epoch);
            put_ballot(b, *promised);
        }
        Msg::ViewChosen {
            epoch,
            members,
            installer,
        } => {
            b.put_u8(7);
            b.put_u64(*epoch);
            put_members(b, members);
            b.put_u16(*installer);
        }
        Msg::ViewQuery { epoch } => {
            b.put_u8(8);
            b.put_u64(*epoch);
        }
        Msg::InDoubt {
            epoch,
            prepared,
            committed,
        } => {
            b.put_u8(9);
            b.put_u64(*epoch);
            put_txns(b, prepared);
            put_txn_gcis(b, committed);
        }
        Msg::Resolve {
            epoch,
            commit,
            abort,
        } => {
            b.put_u8(10);
            b.put_u64(*epoch);
            put_txn_gcis(b, commit);
            put_txns(b, abort);
        }
        Msg::ResolveAck { epoch } => {
            b.put_u8(11);
            b.put_u64(*epoch);
        }
        Msg::Ready { epoch } => {
            b.put_u8(12);
            b.put_u64(*epoch);
        }
        Msg::TxPrepare {
            epoch,
            txn,
            partition,
            ops,
            primary,
        } => {
            put_step(b, 13, *epoch, *txn, *partition);
            b.put_u8(u8::from(*primary));
            put_ops(b, ops);
        }
        Msg::TxPrepared {
            epoch,
            txn,
            partition,
            reads,
            versions,
            gci,
        } => {
            put_step(b, 14, *epoch, *txn, *partition);
            put_reads(b, reads);
            put_versions(b, versions);
            b.put_u64(*gci);
        }
        Msg::TxRefused {
            epoch,
            txn,
            partition,
        } => put_step(b, 15, *epoch, *txn, *partition),
        Msg::TxCommit {
            epoch,
            txn,
            partition,
            versions,
            gci,
        } => {
            put_step(b, 16, *epoch, *txn, *partition);
            put_versions(b, versions);
            b.put_u64(*gci);
        }
        Msg::Join => b.put_u8(26),
        Msg::CopyRequest { epoch, partition } => {
            b.put_u8(27);
            b.put_u64(*epoch);
            b.put_u32(*partition);
        }
        Msg::CopyRows {
            epoch,
            partition,
            rows,
            gci,
        } => {
            b.put_u8(28);
            b.put_u64(*epoch);
            b.put_u32(*partition);
            b.put_u64(*gci);
            b.put_u32(rows.len() as u32);
            for (key, v) in rows {
                b.put_u64(*key);
                b.put_u64(v.value);
                b.put_u64(v.version);
            }
        }
        Msg::GcpStart { epoch, gci } => put_gcp(b, 30, *epoch, *gci),
        Msg::GcpStarted { epoch, gci } => put_gcp(b, 31, *epoch, *gci),
        Msg::GcpSave { epoch, gci } => put_gcp(b, 32, *epoch, *gci),
        Msg::GcpSaved { epoch, gci } => put_gcp(b, 33, *epoch, *gci),
        Msg::CaughtUp { epoch } => {
            b.put_u8(29);
            b.put_u64(*epoch);
        }
        Msg::TxCommitted {
            epoch,
            txn,
            partition,
        } => put_step(b, 17, *epoch, *txn, *partition),
        Msg::TxAbort {
            epoch,
            txn,
            partition,
        } => put_step(b, 18, *epoch, *txn, *partition),
        Msg::TxAborted {
            epoch,
            txn,
            partition,
        } => put_step(b, 19, *epoch, *txn, *partition),
        Msg::TxComplete {
            epoch,
            txn,
            partition,
        } => put_step(b, 20, *epoch, *txn, *partition),
        Msg::TxCompleted {
            epoch,
            txn,
            partition,
        } => put_step(b, 21, *epoch, *txn, *partition),
        Msg::TxStatus {
            epoch,
            txn,
            partition,
        } => put_step(b, 22, *epoch, *txn, *partition),
        Msg::ClientTxn { request, ops } => {
            b.put_u8(23);
            b.put_u64(*request);
            put_ops(b, ops);
        }
        Msg::ClientRead {
            request,
            key,
            backup_ok,
        } => {
            b.put_u8(24);
            b.put_u64(*request);
            b.put_u64(*key);
            b.put_u8(u8::from(*backup_ok));
        }
        Msg::ClientReply { request, reply } => {
            b.put_u8(25);
            b.put_u64(*request);
            match reply {
                ClientReply::Committed { reads } => {
                    b.put_u8(0);
                    put_reads(b, reads);
                }
                ClientReply::Refused(why) => {
                    b.put_u8(1);
                    b.put_u8(match why {
                        Refusal::Busy => 0,
                        Refusal::ViewChanged => 1,
                        Refusal::NotServing => 2,
                    });
                }
                ClientReply::Value(v) => {
                    b.put_u8(2);
                    put_versioned(b, *v);
                }
            }
        }
    }
}

fn put_gcp(b: &mut Vec<u8>, tag: u8, epoch: Epoch, gci: Gci) {
    b.put_u8(tag);
    b.put_u64(epoch);
    b.put_u64(gci);
}

fn put_ops(b: &mut Vec<u8>, ops: &[Op]) {
    b.put_u32(ops.len() as u32);
    for op in ops {
        match *op {
            Op::Read(key) => {
                b.put_u8(0);
                b.put_u64(key);
            }
            Op::Write(key, value) => {
                b.put_u8(1);
                b.put_u64(key);
                b.put_u64(value);
            }
        }
    }
}

fn bool_at(r: &mut Reader) -> DecodeResult<bool> {
    match r.u8()? {
        0 => Ok(false),
        1 => Ok(true),
        tag => Err(DecodeError::BadTag { what: "flag", tag }),
    }
}

fn ballot_at(r: &mut Reader) -> DecodeResult<Ballot> {
    Ok(Ballot {
        round: r.u64()?,
        node: r.u16()?,
    })
}

fn txn_at(r: &mut Reader) -> DecodeResult<TxnId> {
    Ok(TxnId {
        coordinator: r.u16()?,
        seq: r.u64()?,
    })
}

fn members_at(r: &mut Reader) -> DecodeResult<Membership> {
    let mut set = || -> DecodeResult<BTreeSet<NodeId>> {
        let n = r.count("view members", DATA_NODES_MAX as usize, 2)?;
        (0..n).map(|_| r.u16()).collect()
    };
    Ok(Membership {
        members: set()?,
        starting: set()?,
    })
}

fn versions_at(r: &mut Reader) -> DecodeResult<Vec<(u64, u64)>> {
    let n = r.count("versions", OPS_MAX, 16)?;
    (0..n).map(|_| Ok((r.u64()?, r.u64()?))).collect()
}

fn txns_at(r: &mut Reader) -> DecodeResult<Vec<TxnId>> {
    let n = r.count("transactions", TXNS_MAX, 10)?;
    (0..n).map(|_| txn_at(r)).collect()
}

fn txn_gcis_at(r: &mut Reader) -> DecodeResult<Vec<(TxnId, Gci)>> {
    let n = r.count("transactions", TXNS_MAX, 18)?;
    (0..n).map(|_| Ok((txn_at(r)?, r.u64()?))).collect()
}

fn versioned_at(r: &mut Reader) -> DecodeResult<Option<Versioned>> {
    Ok(if bool_at(r)? {
        Some(Versioned {
            value: r.u64()?,
            version: r.u64()?,
        })
    } else {
        None
    })
}

fn reads_at(r: &mut Reader) -> DecodeResult<Vec<(u64, Option<Versioned>)>> {
    let n = r.count("reads", OPS_MAX, 9)?;
    (0..n).map(|_| Ok((r.u64()?, versioned_at(r)?))).collect()
}

fn ops_at(r: &mut Reader) -> DecodeResult<Vec<Op>> {
    let n = r.count("operations", OPS_MAX, 9)?;
    (0..n)
        .map(|_| match r.u8()? {
            0 => Ok(Op::Read(r.u64()?)),
            1 => Ok(Op::Write(r.u64()?, r.u64()?)),
            tag => Err(DecodeError::BadTag {
                what: "operation",
                tag,
            }),
        })
        .collect()
}

/// Decodes a frame's body (the header and checksum are checked by the reader of frames).
pub fn decode(body: &[u8]) -> DecodeResult<Msg> {
    let mut r = Reader::new(body);
    let tag = r.u8()?;
    let msg = match tag {
        1 => {
            let epoch = r.u64()?;
            let ready = bool_at(&mut r)?;
            let sent = r.u64()?;
            let echo = Some(r.u64()?).filter(|e| *e != u64::MAX);
            Msg::Heartbeat {
                epoch,
                ready,
                sent,
                echo,
                done_below: r.u64()?,
            }
        }
        2 => Msg::ViewPrepare {
            epoch: r.u64()?,
            ballot: ballot_at(&mut r)?,
        },
        3 => {
            let epoch = r.u64()?;
            let ballot = ballot_at(&mut r)?;
            let accepted = if bool_at(&mut r)? {
                Some((ballot_at(&mut r)?, members_at(&mut r)?))
            } else {
                None
            };
            Msg::ViewPromise {
                epoch,
                ballot,
                accepted,
            }
        }
        4 => Msg::ViewAccept {
            epoch: r.u64()?,
            ballot: ballot_at(&mut r)?,
            members: members_at(&mut r)?,
        },
        5 => Msg::ViewAccepted {
            epoch: r.u64()?,
            ballot: ballot_at(&mut r)?,
        },
        6 => Msg::ViewNack {
            epoch: r.u64()?,
            promised: ballot_at(&mut r)?,
        },
        7 => Msg::ViewChosen {
            epoch: r.u64()?,
            members: members_at(&mut r)?,
            installer: r.u16()?,
        },
        8 => Msg::ViewQuery { epoch: r.u64()? },
        9 => Msg::InDoubt {
            epoch: r.u64()?,
            prepared: txns_at(&mut r)?,
            committed: txn_gcis_at(&mut r)?,
        },
        10 => Msg::Resolve {
            epoch: r.u64()?,
            commit: txn_gcis_at(&mut r)?,
            abort: txns_at(&mut r)?,
        },
        11 => Msg::ResolveAck { epoch: r.u64()? },
        12 => Msg::Ready { epoch: r.u64()? },
        13..=22 => {
            let (epoch, txn, partition) = (r.u64()?, txn_at(&mut r)?, r.u32()?);
            match tag {
                13 => {
                    let primary = bool_at(&mut r)?;
                    Msg::TxPrepare {
                        epoch,
                        txn,
                        partition,
                        ops: ops_at(&mut r)?,
                        primary,
                    }
                }
                14 => Msg::TxPrepared {
                    epoch,
                    txn,
                    partition,
                    reads: reads_at(&mut r)?,
                    versions: versions_at(&mut r)?,
                    gci: r.u64()?,
                },
                15 => Msg::TxRefused {
                    epoch,
                    txn,
                    partition,
                },
                16 => Msg::TxCommit {
                    epoch,
                    txn,
                    partition,
                    versions: versions_at(&mut r)?,
                    gci: r.u64()?,
                },
                17 => Msg::TxCommitted {
                    epoch,
                    txn,
                    partition,
                },
                18 => Msg::TxAbort {
                    epoch,
                    txn,
                    partition,
                },
                19 => Msg::TxAborted {
                    epoch,
                    txn,
                    partition,
                },
                20 => Msg::TxComplete {
                    epoch,
                    txn,
                    partition,
                },
                21 => Msg::TxCompleted {
                    epoch,
                    txn,
                    partition,
                },
                _ => Msg::TxStatus {
                    epoch,
                    txn,
                    partition,
                },
            }
        }
        23 => Msg::ClientTxn {
            request: r.u64()?,
            ops: ops_at(&mut r)?,
        },
        24 => Msg::ClientRead {
            request: r.u64()?,
            key: r.u64()?,
            backup_ok: bool_at(&mut r)?,
        },
        25 => {
            let request = r.u64()?;
            let reply = match r.u8()? {
                0 => ClientReply::Committed {
                    reads: reads_at(&mut r)?,
                },
                1 => ClientReply::Refused(match r.u8()? {
                    0 => Refusal::Busy,
                    1 => Refusal::ViewChanged,
                    2 => Refusal::NotServing,
                    tag => {
                        return Err(DecodeError::BadTag {
                            what: "refusal",
                            tag,
                        })
                    }
                }),
                2 => ClientReply::Value(versioned_at(&mut r)?),
                tag => {
                    return Err(DecodeError::BadTag {
                        what: "client reply",
                        tag,
                    })
                }
            };
            Msg::ClientReply { request, reply }
        }
        26 => Msg::Join,
        27 => Msg::CopyRequest {
            epoch: r.u64()?,
            partition: r.u32()?,
        },
        28 => {
            let (epoch, partition, gci) = (r.u64()?, r.u32()?, r.u64()?);
            let n = r.count("copied rows", ROWS_MAX, 24)?;
            let rows = (0..n)
                .map(|_| {
                    let key = r.u64()?;
                    Ok((
                        key,
                        Versioned {
                            value: r.u64()?,
                            version: r.u64()?,
                        },
                    ))
                })
                .collect::<DecodeResult<_>>()?;
            Msg::CopyRows {
                epoch,
                partition,
                rows,
                gci,
            }
        }
        29 => Msg::CaughtUp { epoch: r.u64()? },
        30..=33 => {
            let (epoch, gci) = (r.u64()?, r.u64()?);
            match tag {
                30 => Msg::GcpStart { epoch, gci },
                31 => Msg::GcpStarted { epoch, gci },
                32 => Msg::GcpSave { epoch, gci },
                _ => Msg::GcpSaved { epoch, gci },
            }
        }
        tag => {
            return Err(DecodeError::BadTag {
                what: "cluster message",
                tag,
            })
        }
    };
    r.finish()?;
    Ok(msg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wire::frame::{FrameHeader, HEADER_BYTES};

    fn round_trip(msg: Msg) {
        let mut bytes = Vec::new();
        encode(&msg, &mut bytes);
        let header: [u8; HEADER_BYTES] = bytes[..HEADER_BYTES].try_into().unwrap();
        let h = FrameHeader::decode(&header).unwrap();
        assert_eq!(h.message_type, CLUSTER_MESSAGE);
        h.verify(&header, &bytes[HEADER_BYTES..]).unwrap();
        assert_eq!(decode(&bytes[HEADER_BYTES..]).unwrap(), msg);
        // Every cut of the body fails cleanly.
        for cut in 0..bytes.len() - HEADER_BYTES {
            assert!(decode(&bytes[HEADER_BYTES..HEADER_BYTES + cut]).is_err());
        }
    }

    /// One message of every kind, optional parts present and absent.
    fn every_kind() -> Vec<Msg> {
        let txn = TxnId {
            coordinator: 3,
            seq: 99,
        };
        let ballot = Ballot { round: 7, node: 2 };
        let v = Some(Versioned {
            value: 5,
            version: 6,
        });
        let members = Membership {
            members: [1, 2, 4].into(),
            starting: [3].into(),
        };
        vec![
            Msg::Heartbeat {
                epoch: 3,
                ready: true,
                sent: 10,
                echo: None,
                done_below: 4,
            },
            Msg::Heartbeat {
                epoch: 3,
                ready: false,
                sent: 10,
                echo: Some(8),
                done_below: 4,
            },
            Msg::ViewPrepare { epoch: 2, ballot },
            Msg::ViewPromise {
                epoch: 2,
                ballot,
                accepted: Some((ballot, members.clone())),
            },
            Msg::ViewPromise {
                epoch: 2,
                ballot,
                accepted: None,
            },
            Msg::ViewAccept {
                epoch: 2,
                ballot,
                members: members.clone(),
            },
            Msg::ViewAccepted { epoch: 2, ballot },
            Msg::ViewNack {
                epoch: 2,
                promised: ballot,
            },
            Msg::ViewChosen {
                epoch: 2,
                members,
                installer: 1,
            },
            Msg::ViewQuery { epoch: 2 },
            Msg::InDoubt {
                epoch: 2,
                prepared: vec![txn],
                committed: vec![(txn, 4)],
            },
            Msg::Resolve {
                epoch: 2,
                commit: vec![(txn, 5)],
                abort: vec![txn, txn],
            },
            Msg::ResolveAck { epoch: 2 },
            Msg::Ready { epoch: 2 },
            Msg::TxPrepare {
                epoch: 1,
                txn,
                partition: 3,
                ops: vec![Op::Read(1), Op::Write(2, 3)],
                primary: true,
            },
            Msg::TxPrepared {
                epoch: 1,
                txn,
                partition: 3,
                reads: vec![(1, v), (2, None)],
                versions: vec![(2, 7)],
                gci: 9,
            },
            Msg::Join,
            Msg::CopyRequest {
                epoch: 3,
                partition: 1,
            },
            Msg::CopyRows {
                epoch: 3,
                partition: 1,
                rows: vec![(
                    4,
                    Versioned {
                        value: 1,
                        version: 2,
                    },
                )],
                gci: 6,
            },
            Msg::GcpStart { epoch: 3, gci: 10 },
            Msg::GcpStarted { epoch: 3, gci: 10 },
            Msg::GcpSave { epoch: 3, gci: 9 },
            Msg::GcpSaved { epoch: 3, gci: 9 },
            Msg::CaughtUp { epoch: 3 },
            Msg::TxRefused {
                epoch: 1,
                txn,
                partition: 3,
            },
            Msg::TxCommit {
                epoch: 1,
                txn,
                partition: 3,
                versions: vec![(2, 7)],
                gci: 2,
            },
            Msg::TxCommitted {
                epoch: 1,
                txn,
                partition: 3,
            },
            Msg::TxAbort {
                epoch: 1,
                txn,
                partition: 3,
            },
            Msg::TxAborted {
                epoch: 1,
                txn,
                partition: 3,
            },
            Msg::TxComplete {
                epoch: 1,
                txn,
                partition: 3,
            },
            Msg::TxCompleted {
                epoch: 1,
                txn,
                partition: 3,
            },
            Msg::TxStatus {
                epoch: 1,
                txn,
                partition: 3,
            },
            Msg::ClientTxn {
                request: 1,
                ops: vec![Op::Write(9, 9)],
            },
            Msg::ClientRead {
                request: 1,
                key: 9,
                backup_ok: true,
            },
            Msg::ClientReply {
                request: 1,
                reply: ClientReply::Committed {
                    reads: vec![(9, v)],
                },
            },
            Msg::ClientReply {
                request: 1,
                reply: ClientReply::Refused(Refusal::ViewChanged),
            },
            Msg::ClientReply {
                request: 1,
                reply: ClientReply::Value(None),
            },
        ]
    }

    #[test]
    fn every_message_survives_a_round_trip() {
        for msg in every_kind() {
            round_trip(msg);
        }
    }

    #[test]
    fn forged_counts_and_tags_are_refused() {
        let mut body = vec![9u8];
        body.extend_from_slice(&2u64.to_le_bytes());
        body.extend_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(decode(&body), Err(DecodeError::TooLong { .. })));
        assert!(matches!(decode(&[200]), Err(DecodeError::BadTag { .. })));
        let mut trailing = Vec::new();
        body_of(&Msg::Ready { epoch: 1 }, &mut trailing);
        trailing.push(0);
        assert!(matches!(decode(&trailing), Err(DecodeError::Trailing(1))));
    }

    /// Bytes from the network never panic the decoder: every valid message with bytes flipped,
    /// and random bodies behind every tag, decode or fail cleanly.
    #[test]
    fn damaged_and_random_bodies_never_panic() {
        let seed = 0x5eed_c0de_u64;
        println!("seed {seed}");
        let mut state = seed;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let samples = every_kind();
        for msg in &samples {
            let mut body = Vec::new();
            body_of(msg, &mut body);
            for _ in 0..2000 {
                let mut damaged = body.clone();
                let at = (next() as usize) % damaged.len();
                damaged[at] = next() as u8;
                let _ = decode(&damaged);
            }
        }
        for _ in 0..20_000 {
            let len = (next() % 64) as usize;
            let mut body: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            if let Some(tag) = body.first_mut() {
                *tag %= 32;
            }
            let _ = decode(&body);
        }
    }

    fn body_of(msg: &Msg, out: &mut Vec<u8>) {
        body(msg, out);
    }
}
