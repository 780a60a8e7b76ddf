//! `cairn bench floor`: a server that answers HandlerSocket finds and MySQL queries with one fixed
//! row and does no other work. A load run against it measures what the load generator and the
//! kernel's loopback cost on this machine by themselves: the most any server could serve here
//! with that client, and the least CPU per request a server's sockets cost.
//!
//! It is not a database: it reads no table, and a statement's text only decides whether the
//! answer is a row (a SELECT) or an OK.

use std::collections::HashMap;
use std::io::{self, ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::mpsc;
use std::sync::Arc;

use mio::{Events, Interest, Poll, Token, Waker};
use myproto::handshake::{cap, initial_handshake, status, HandshakeResponse, NATIVE_PASSWORD};
use myproto::response::{self, types, Column};
use myproto::{binary, command, packet};

/// The protocol answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// Request lines: `P` and `A` answer `0\t1`, a find answers one row of one column.
    HandlerSocket,
    /// The MySQL protocol: any login is accepted; SELECTs (text or prepared) answer one row of
    /// one column, every other statement an OK.
    Mysql,
}

/// How connections are served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    /// This many event loops (epoll), connections dealt to them in turn: Cairn's front ends' way.
    Loops(usize),
    /// A blocking thread per connection: MariaDB's default way.
    ThreadPerConnection,
}

/// What to serve.
#[derive(Debug, Clone)]
pub struct Options {
    pub protocol: Protocol,
    pub model: Model,
    /// The value every row holds (as long as a sysbench `c` by default).
    pub value: Vec<u8>,
}

/// The default value: 119 bytes, the length of a sysbench table's `c`.
pub fn sysbench_c() -> Vec<u8> {
    let mut v = Vec::with_capacity(119);
    for group in 0..10 {
        if group > 0 {
            v.push(b'-');
        }
        v.extend_from_slice(b"83868641912");
    }
    v
}

/// Longest request kept buffered; a connection sending more without a whole request is closed.
const REQUEST_BYTES_MAX: usize = 1 << 20;
const WAKER: Token = Token(usize::MAX);

/// Serves `listener` until the process ends.
pub fn serve(opts: &Options, listener: TcpListener) -> io::Result<()> {
    let opts = Arc::new(opts.clone());
    match opts.model {
        Model::ThreadPerConnection => loop {
            let (stream, _) = listener.accept()?;
            let opts = opts.clone();
            std::thread::spawn(move || {
                if let Err(e) = blocking(&opts, stream) {
                    eprintln!("floor: connection closed: {e}");
                }
            });
        },
        Model::Loops(n) => {
            let mut loops = Vec::new();
            for i in 0..n.max(1) {
                let poll = Poll::new()?;
                let waker = Arc::new(Waker::new(poll.registry(), WAKER)?);
                let (tx, rx) = mpsc::channel::<TcpStream>();
                let opts = opts.clone();
                std::thread::Builder::new()
                    .name(format!("floor-loop-{i}"))
                    .spawn(move || {
                        if let Err(e) = event_loop(&opts, poll, rx) {
                            eprintln!("floor: loop {i} failed: {e}");
                            std::process::exit(1);
                        }
                    })?;
                loops.push((tx, waker));
            }
            let mut next = 0;
            loop {
                let (stream, _) = listener.accept()?;
                let (tx, waker) = &loops[next % loops.len()];
                next += 1;
                if tx.send(stream).is_err() {
                    return Err(io::Error::other("an event loop ended"));
                }
                waker.wake()?;
            }
        }
    }
}

/// Binds `address` and prints where it listens, then serves.
pub fn run(opts: &Options, address: &str) -> io::Result<()> {
    let listener = TcpListener::bind(address)?;
    let local: SocketAddr = listener.local_addr()?;
    println!("floor server listening on {local}");
    serve(opts, listener)
}

fn blocking(opts: &Options, mut stream: TcpStream) -> io::Result<()> {
    stream.set_nodelay(true)?;
    let mut conn = Answerer::new(opts);
    let mut out = Vec::with_capacity(4096);
    conn.greeting(&mut out);
    stream.write_all(&out)?;
    let mut input = Vec::with_capacity(4096);
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        let n = stream.read(&mut chunk)?;
        if n == 0 {
            return Ok(());
        }
        input.extend_from_slice(&chunk[..n]);
        out.clear();
        let open = conn
            .answer(&mut input, &mut out)
            .map_err(io::Error::other)?;
        stream.write_all(&out)?;
        if !open {
            return Ok(());
        }
    }
}

struct Client {
    stream: mio::net::TcpStream,
    conn: Answerer,
    input: Vec<u8>,
    /// Answers not yet written (the socket was full).
    pending: Vec<u8>,
}

fn event_loop(
    opts: &Options,
    mut poll: Poll,
    incoming: mpsc::Receiver<TcpStream>,
) -> io::Result<()> {
    let mut events = Events::with_capacity(256);
    let mut clients: Vec<Option<Client>> = Vec::new();
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        match poll.poll(&mut events, None) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
        for event in events.iter() {
            if event.token() == WAKER {
                while let Ok(stream) = incoming.try_recv() {
                    stream.set_nodelay(true)?;
                    stream.set_nonblocking(true)?;
                    let slot = clients.iter().position(Option::is_none).unwrap_or_else(|| {
                        clients.push(None);
                        clients.len() - 1
                    });
                    let mut client = Client {
                        stream: mio::net::TcpStream::from_std(stream),
                        conn: Answerer::new(opts),
                        input: Vec::with_capacity(4096),
                        pending: Vec::new(),
                    };
                    poll.registry().register(
                        &mut client.stream,
                        Token(slot),
                        Interest::READABLE | Interest::WRITABLE,
                    )?;
                    client.conn.greeting(&mut client.pending);
                    clients[slot] = Some(client);
                    if !turn(&mut clients, slot, &mut chunk, false) {
                        close(&poll, &mut clients, slot);
                    }
                }
                continue;
            }
            let slot = event.token().0;
            if clients.get(slot).is_some_and(Option::is_some)
                && !turn(&mut clients, slot, &mut chunk, event.is_readable())
            {
                close(&poll, &mut clients, slot);
            }
        }
    }
}

fn close(poll: &Poll, clients: &mut [Option<Client>], slot: usize) {
    if let Some(mut c) = clients[slot].take() {
        let _ = poll.registry().deregister(&mut c.stream);
    }
}

/// Reads what a client sent, answers it and writes; false when the client is done.
fn turn(clients: &mut [Option<Client>], slot: usize, chunk: &mut [u8], readable: bool) -> bool {
    let Some(c) = clients[slot].as_mut() else {
        return false;
    };
    let mut open = true;
    if readable {
        loop {
            match c.stream.read(chunk) {
                Ok(0) => {
                    open = false;
                    break;
                }
                Ok(n) => c.input.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => return false,
            }
        }
        match c.conn.answer(&mut c.input, &mut c.pending) {
            Ok(keep) => open &= keep,
            Err(e) => {
                eprintln!("floor: {e}");
                return false;
            }
        }
    }
    while !c.pending.is_empty() {
        match c.stream.write(&c.pending) {
            Ok(0) => return false,
            Ok(n) => {
                c.pending.drain(..n);
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => break,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
    open
}

enum Phase {
    /// MySQL: waiting for the handshake response.
    Login,
    Commands,
}

/// One connection's protocol state: turns whole requests into answers.
struct Answerer {
    protocol: Protocol,
    value: Vec<u8>,
    phase: Phase,
    capabilities: u32,
    /// Prepared statements: whether each answers a row.
    statements: HashMap<u32, bool>,
    next_statement: u32,
}

impl Answerer {
    fn new(opts: &Options) -> Answerer {
        Answerer {
            protocol: opts.protocol,
            value: opts.value.clone(),
            phase: Phase::Login,
            capabilities: 0,
            statements: HashMap::new(),
            next_statement: 1,
        }
    }

    /// What the server says first (MySQL's handshake; nothing for HandlerSocket).
    fn greeting(&mut self, out: &mut Vec<u8>) {
        if self.protocol == Protocol::Mysql {
            let payload = initial_handshake(
                "10.11.99-floor",
                1,
                b"abcdefghijklmnopqrst",
                status::AUTOCOMMIT,
                false,
                NATIVE_PASSWORD,
            );
            packet::write_packet(out, &mut 0, &payload);
        }
    }

    /// Answers every whole request at the front of `input` (removing them); false when the
    /// client asked to quit.
    fn answer(&mut self, input: &mut Vec<u8>, out: &mut Vec<u8>) -> Result<bool, String> {
        let (used, open) = match self.protocol {
            Protocol::HandlerSocket => (self.lines(input, out), true),
            Protocol::Mysql => self.packets(input, out)?,
        };
        input.drain(..used);
        if input.len() > REQUEST_BYTES_MAX {
            return Err(format!("a request longer than {REQUEST_BYTES_MAX} bytes"));
        }
        Ok(open)
    }

    fn lines(&mut self, input: &[u8], out: &mut Vec<u8>) -> usize {
        let mut at = 0;
        while let Some(end) = input[at..].iter().position(|b| *b == b'\n') {
            match input[at] {
                b'P' | b'A' => out.extend_from_slice(b"0\t1\n"),
                b'0'..=b'9' => {
                    out.extend_from_slice(b"0\t1\t");
                    out.extend_from_slice(&self.value);
                    out.push(b'\n');
                }
                _ => out.extend_from_slice(b"2\t1\tcmd\n"),
            }
            at += end + 1;
        }
        at
    }

    fn packets(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<(usize, bool), String> {
        let mut at = 0;
        while let Some((_, payload, used)) =
            packet::parse_payload(&input[at..], REQUEST_BYTES_MAX).map_err(|e| e.to_string())?
        {
            at += used;
            let mut w = packet::PacketWriter::default();
            if let Phase::Login = self.phase {
                let hello = HandshakeResponse::parse(&payload).map_err(|e| e.to_string())?;
                self.capabilities = hello.capabilities;
                self.phase = Phase::Commands;
                w.seq = 2;
                self.ok(&mut w);
            } else {
                w.seq = 1;
                let Some((&code, body)) = payload.split_first() else {
                    return Err("an empty command packet".into());
                };
                match code {
                    command::QUIT => return Ok((at, false)),
                    command::QUERY => {
                        if is_select(body) {
                            self.result_set(&mut w, false);
                        } else {
                            self.ok(&mut w);
                        }
                    }
                    command::STMT_PREPARE => self.prepare(&mut w, body),
                    command::STMT_EXECUTE => {
                        let id = binary::statement_id(body).map_err(|e| e.to_string())?;
                        if self.statements.get(&id).copied().unwrap_or(false) {
                            self.result_set(&mut w, true);
                        } else {
                            self.ok(&mut w);
                        }
                    }
                    command::STMT_CLOSE => {
                        if let Ok(id) = binary::statement_id(body) {
                            self.statements.remove(&id);
                        }
                        continue;
                    }
                    command::STMT_SEND_LONG_DATA => continue,
                    _ => self.ok(&mut w),
                }
            }
            w.flush_to(out).map_err(|e| e.to_string())?;
        }
        Ok((at, true))
    }

    fn ok(&self, w: &mut packet::PacketWriter) {
        response::ok(w.begin(), 0, 0, 0, status::AUTOCOMMIT, 0, "");
        w.finish();
    }

    fn column() -> Column {
        Column {
            schema: "sbtest".into(),
            table: "sbtest1".into(),
            org_table: "sbtest1".into(),
            name: "c".into(),
            org_name: "c".into(),
            collation: response::UTF8MB4_GENERAL_CI_ID,
            length: 480,
            column_type: types::STRING,
            flags: response::flags::NOT_NULL,
            decimals: 0,
        }
    }

    fn metadata_end(&self, w: &mut packet::PacketWriter) {
        if self.capabilities & cap::DEPRECATE_EOF == 0 {
            response::eof(w.begin(), status::AUTOCOMMIT, 0);
            w.finish();
        }
    }

    fn prepare(&mut self, w: &mut packet::PacketWriter, text: &[u8]) {
        let params = text.iter().filter(|b| **b == b'?').count() as u16;
        let select = is_select(text);
        let id = self.next_statement;
        self.next_statement += 1;
        self.statements.insert(id, select);
        binary::prepare_ok(w.begin(), id, select as u16, params, 0);
        w.finish();
        if params > 0 {
            let param = Column::computed("?", types::VAR_STRING, 0, 0);
            for _ in 0..params {
                param.encode(w.begin());
                w.finish();
            }
            self.metadata_end(w);
        }
        if select {
            Self::column().encode(w.begin());
            w.finish();
            self.metadata_end(w);
        }
    }

    fn result_set(&self, w: &mut packet::PacketWriter, binary_rows: bool) {
        myproto::codec::put_lenenc(w.begin(), 1);
        w.finish();
        Self::column().encode(w.begin());
        w.finish();
        self.metadata_end(w);
        if binary_rows {
            binary::BinaryRow::begin(w.begin(), 1).bytes(&self.value);
        } else {
            response::text_row(w.begin(), [Some(&self.value[..])]);
        }
        w.finish();
        response::end_of(w.begin(), self.capabilities, status::AUTOCOMMIT, 0);
        w.finish();
    }
}

fn is_select(text: &[u8]) -> bool {
    let start = text
        .iter()
        .position(|b| !b.is_ascii_whitespace() && *b != b'(');
    start.is_some_and(|s| text[s..].len() >= 6 && text[s..s + 6].eq_ignore_ascii_case(b"select"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(protocol: Protocol) -> Options {
        Options {
            protocol,
            model: Model::Loops(1),
            value: b"v".to_vec(),
        }
    }

    #[test]
    fn handlersocket_lines_are_answered_in_order() {
        let mut a = Answerer::new(&opts(Protocol::HandlerSocket));
        let mut input = b"P\t0\tdb\tt\tPRIMARY\tc\n0\t=\t1\t5\nX\n0\t=\t1".to_vec();
        let mut out = Vec::new();
        assert!(a.answer(&mut input, &mut out).unwrap());
        assert_eq!(out, b"0\t1\n0\t1\tv\n2\t1\tcmd\n");
        assert_eq!(input, b"0\t=\t1");
    }

    #[test]
    fn mysql_login_prepare_execute_quit() {
        let mut a = Answerer::new(&opts(Protocol::Mysql));
        let mut out = Vec::new();
        a.greeting(&mut out);
        assert_eq!(out[3], 0, "the handshake is packet 0");
        // A HandshakeResponse41: capabilities, max packet, collation, filler, user, auth.
        let mut hello = Vec::new();
        hello.extend_from_slice(&(cap::PROTOCOL_41 | cap::SECURE_CONNECTION).to_le_bytes());
        hello.extend_from_slice(&(1u32 << 24).to_le_bytes());
        hello.push(45);
        hello.extend_from_slice(&[0; 23]);
        hello.extend_from_slice(b"root\0");
        hello.push(0);
        let mut input = Vec::new();
        packet::write_packet(&mut input, &mut 1, &hello);
        out.clear();
        assert!(a.answer(&mut input, &mut out).unwrap());
        assert_eq!((out[3], out[4]), (2, 0), "OK as packet 2");
        let mut input = Vec::new();
        packet::write_packet(&mut input, &mut 0, b"\x16SELECT c FROM t WHERE id=?");
        out.clear();
        a.answer(&mut input, &mut out).unwrap();
        // prepare OK (id 1, 1 column, 1 param), the param, EOF, the column, EOF.
        assert_eq!(&out[4..11], &[0, 1, 0, 0, 0, 1, 0]);
        let mut input = Vec::new();
        let mut exec = vec![command::STMT_EXECUTE, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
        exec.extend_from_slice(&[types::LONGLONG, 0]);
        exec.extend_from_slice(&7i64.to_le_bytes());
        packet::write_packet(&mut input, &mut 0, &exec);
        packet::write_packet(&mut input, &mut 0, &[command::QUIT]);
        out.clear();
        assert!(!a.answer(&mut input, &mut out).unwrap());
        assert_eq!(&out[..5], &[1, 0, 0, 1, 1], "column count 1 as packet 1");
        assert!(
            out.windows(2).any(|w| w == [1, b'v']),
            "the row holds the value"
        );
        assert!(input.is_empty());
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        let mut a = Answerer::new(&opts(Protocol::Mysql));
        let mut input = Vec::new();
        packet::write_packet(&mut input, &mut 1, b"\x01\x02");
        assert!(a.answer(&mut input, &mut Vec::new()).is_err());
    }
}
