//! A bare MySQL client for tests: enough of the protocol to log in as root and send raw
//! commands, reading answers as OK, ERR or rows.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// A bare MySQL client: enough of the protocol to log in as root and send raw commands.
pub struct Raw {
    pub s: TcpStream,
}

/// One answer, as the test needs it.
#[derive(Debug, PartialEq)]
pub enum Answer {
    Ok,
    Err(u16),
    /// The payloads of the rows.
    Rows(Vec<Vec<u8>>),
}

impl Raw {
    /// How long a read waits for the server (10 s after login).
    pub fn wait_up_to(&self, timeout: Duration) {
        self.s.set_read_timeout(Some(timeout)).unwrap();
    }

    /// Logs in as root, in database `db` if given.
    pub fn login_to(port: u16, db: Option<&str>) -> Raw {
        Raw::login_with(port, db, 0)
    }

    /// Logs in as root, in database `db` if given, with capability flags `more` besides the
    /// ones every login has (CLIENT_MULTI_STATEMENTS is 0x10000).
    pub fn login_with(port: u16, db: Option<&str>, more: u32) -> Raw {
        let s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut raw = Raw { s };
        raw.packet().expect("greeting");
        // HandshakeResponse41: PROTOCOL_41 | SECURE_CONNECTION | PLUGIN_AUTH (| CONNECT_WITH_DB).
        let caps: u32 = 0x200 | 0x8000 | 0x80000 | more | if db.is_some() { 0x8 } else { 0 };
        let mut p = Vec::new();
        p.extend_from_slice(&caps.to_le_bytes());
        p.extend_from_slice(&(1u32 << 24).to_le_bytes());
        p.push(45);
        p.extend_from_slice(&[0; 23]);
        p.extend_from_slice(b"root\0");
        p.push(0);
        if let Some(db) = db {
            p.extend_from_slice(db.as_bytes());
            p.push(0);
        }
        p.extend_from_slice(b"mysql_native_password\0");
        raw.send(1, &p);
        assert_eq!(raw.answer(), Answer::Ok, "login");
        raw
    }

    pub fn login(port: u16) -> Raw {
        Raw::login_to(port, Some("d"))
    }

    pub fn send(&mut self, seq: u8, payload: &[u8]) {
        let mut b = (payload.len() as u32).to_le_bytes()[..3].to_vec();
        b.push(seq);
        b.extend_from_slice(payload);
        self.s.write_all(&b).unwrap();
    }

    pub fn packet(&mut self) -> Option<Vec<u8>> {
        self.packet_with_seq().map(|(_, p)| p)
    }

    /// Reads one whole answer (OK, ERR, or a result set with EOF packets).
    pub fn answer(&mut self) -> Answer {
        let first = self.packet().expect("an answer");
        match first[0] {
            0x00 => return Answer::Ok,
            0xff => return Answer::Err(u16::from_le_bytes([first[1], first[2]])),
            _ => {}
        }
        // A length-encoded column count (one byte below 251, else 0xfc and two bytes).
        let columns = match first[0] {
            0xfc => u16::from_le_bytes([first[1], first[2]]) as usize,
            n => n as usize,
        };
        for _ in 0..columns {
            self.packet().unwrap();
        }
        assert_eq!(self.packet().unwrap()[0], 0xfe, "EOF after the columns");
        let mut rows = Vec::new();
        loop {
            let p = self.packet().unwrap();
            if p[0] == 0xfe && p.len() < 9 {
                return Answer::Rows(rows);
            }
            rows.push(p);
        }
    }

    pub fn query(&mut self, sql: &str) -> Answer {
        let mut p = vec![0x03];
        p.extend_from_slice(sql.as_bytes());
        self.send(0, &p);
        self.answer()
    }

    /// COM_STMT_PREPARE; returns the statement id (after reading its definitions).
    /// COM_RESET_CONNECTION.
    pub fn reset_connection(&mut self) -> Answer {
        self.send(0, &[0x1f]);
        self.answer()
    }

    pub fn prepare(&mut self, sql: &str) -> u32 {
        let mut p = vec![0x16];
        p.extend_from_slice(sql.as_bytes());
        self.send(0, &p);
        let ok = self.packet().unwrap();
        assert_eq!(ok[0], 0, "prepare answered {ok:?}");
        let id = u32::from_le_bytes([ok[1], ok[2], ok[3], ok[4]]);
        let columns = u16::from_le_bytes([ok[5], ok[6]]);
        let params = u16::from_le_bytes([ok[7], ok[8]]);
        for n in [params, columns] {
            if n > 0 {
                for _ in 0..n {
                    self.packet().unwrap();
                }
                assert_eq!(self.packet().unwrap()[0], 0xfe);
            }
        }
        id
    }

    /// COM_STMT_PREPARE that must fail: the error number.
    pub fn prepare_error(&mut self, sql: &str) -> u16 {
        let mut p = vec![0x16];
        p.extend_from_slice(sql.as_bytes());
        self.send(0, &p);
        let err = self.packet().unwrap();
        assert_eq!(err[0], 0xff, "prepare answered {err:?}");
        u16::from_le_bytes([err[1], err[2]])
    }

    /// COM_STMT_EXECUTE of a statement with one BIGINT parameter; binary rows are read as the
    /// text rows are (their payloads).
    pub fn execute(&mut self, id: u32, param: i64) -> Answer {
        self.execute_with(id, &[param])
    }

    /// COM_STMT_EXECUTE of a statement with a BIGINT parameter and then a BLOB one.
    pub fn execute_int_and_bytes(&mut self, id: u32, int: i64, bytes: &[u8]) -> Answer {
        let mut p = vec![0x17];
        p.extend_from_slice(&id.to_le_bytes());
        p.push(0);
        p.extend_from_slice(&1u32.to_le_bytes());
        p.push(0); // null bitmap
        p.push(1);
        p.extend_from_slice(&[8, 0, 0xfc, 0]); // LONGLONG, BLOB
        p.extend_from_slice(&int.to_le_bytes());
        // A length-encoded string: a 3-byte length, or an 8-byte one from 16 MiB.
        if bytes.len() < 1 << 24 {
            p.push(0xfd);
            p.extend_from_slice(&(bytes.len() as u32).to_le_bytes()[..3]);
        } else {
            p.push(0xfe);
            p.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        }
        p.extend_from_slice(bytes);
        self.send_split(&p);
        self.answer()
    }

    /// Sends a payload of any size as the protocol splits it (packets of 16 MiB - 1 bytes and a
    /// shorter last one, numbered from 0); the sequence id of the last.
    pub fn send_split(&mut self, payload: &[u8]) -> u8 {
        const CHUNK: usize = 0xFF_FFFF;
        let mut seq = 0u8;
        let mut rest = payload;
        loop {
            let n = rest.len().min(CHUNK);
            self.send(seq, &rest[..n]);
            rest = &rest[n..];
            if n < CHUNK {
                return seq;
            }
            seq = seq.wrapping_add(1);
        }
    }

    /// The next packet's sequence id and payload.
    pub fn packet_with_seq(&mut self) -> Option<(u8, Vec<u8>)> {
        let mut h = [0u8; 4];
        self.s.read_exact(&mut h).ok()?;
        let len = u32::from_le_bytes([h[0], h[1], h[2], 0]) as usize;
        let mut p = vec![0u8; len];
        self.s.read_exact(&mut p).ok()?;
        Some((h[3], p))
    }

    /// COM_STMT_EXECUTE of a statement with BIGINT parameters.
    pub fn execute_with(&mut self, id: u32, params: &[i64]) -> Answer {
        let mut p = vec![0x17];
        p.extend_from_slice(&id.to_le_bytes());
        // No cursor, one iteration.
        p.push(0);
        p.extend_from_slice(&1u32.to_le_bytes());
        p.extend(std::iter::repeat_n(0u8, params.len().div_ceil(8))); // null bitmap
        p.push(1); // new parameter types
        for _ in params {
            p.extend_from_slice(&[8, 0]); // LONGLONG, signed
        }
        for v in params {
            p.extend_from_slice(&v.to_le_bytes());
        }
        self.send(0, &p);
        self.answer()
    }
}

/// A text row's values (None for NULL).
pub fn values(row: &[u8]) -> Vec<Option<String>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < row.len() {
        let first = row[at];
        at += 1;
        let len = match first {
            0xfb => {
                out.push(None);
                continue;
            }
            0xfc => {
                let n = u16::from_le_bytes([row[at], row[at + 1]]) as usize;
                at += 2;
                n
            }
            0xfd => {
                let n = u32::from_le_bytes([row[at], row[at + 1], row[at + 2], 0]) as usize;
                at += 3;
                n
            }
            n => n as usize,
        };
        out.push(Some(
            String::from_utf8_lossy(&row[at..at + len]).into_owned(),
        ));
        at += len;
    }
    out
}
