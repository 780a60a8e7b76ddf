//! HandlerSocket's text protocol, byte for byte as the plugin speaks it: lines of TAB-separated
//! fields, the 0x01-escape for bytes below 0x10, NULL as a lone 0x00, digit-only numbers, and the
//! requests parsed in the plugin's fixed order, so a malformed request gets the same error the
//! plugin gives (see ../shared/reference/handlersocket.md).

/// Longest request line accepted; a longer one closes the connection with a logged reason.
pub const LINE_BYTES_MAX: usize = 4 * 1024 * 1024;
/// Highest index id a connection may open (the plugin allocates up to the id and aborts on huge
/// ones; Cairn answers `2\t1\tstmtnum` above this).
pub const INDEX_ID_MAX: u32 = 65_535;
/// Most values one request may carry (key values, IN values, modify values).
pub const VALUES_MAX: u32 = 16_384;

/// A request field after unescaping: None is NULL (a field that is exactly 0x00).
pub type Field = Option<Vec<u8>>;

/// Splits a line (without its LF; a trailing CR is dropped) into raw TAB-separated fields.
pub fn split(line: &[u8]) -> Vec<&[u8]> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.split(|b| *b == b'\t').collect()
}

/// A number as the plugin reads it: only the digit characters count, wrapping as u32.
pub fn number(field: &[u8]) -> u32 {
    field
        .iter()
        .filter(|b| b.is_ascii_digit())
        .fold(0u32, |n, b| {
            n.wrapping_mul(10).wrapping_add((b - b'0') as u32)
        })
}

/// Decodes a value field: a lone 0x00 is NULL; `0x01 c` is `c - 0x40` for c >= 0x40; a 0x01
/// followed by a smaller byte, or a trailing 0x01, ends the value there.
pub fn unescape(field: &[u8]) -> Field {
    if field == [0] {
        return None;
    }
    Some(unescape_bytes(field))
}

/// Like [`unescape`], but a lone 0x00 is a one-byte string (IN values are never NULL).
pub fn unescape_bytes(field: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(field.len());
    let mut bytes = field.iter();
    while let Some(&b) = bytes.next() {
        if b == 0x01 {
            match bytes.next() {
                Some(&c) if c >= 0x40 => {
                    out.push(c - 0x40);
                    continue;
                }
                _ => break,
            }
        }
        out.push(b);
    }
    out
}

/// Appends a value as the server sends it: NULL as 0x00, bytes below 0x10 escaped.
pub fn escape_into(out: &mut Vec<u8>, value: Option<&[u8]>) {
    match value {
        None => out.push(0),
        Some(bytes) => {
            for &b in bytes {
                if b < 0x10 {
                    out.push(0x01);
                    out.push(b + 0x40);
                } else {
                    out.push(b);
                }
            }
        }
    }
}

/// An error answer: `<code>\t1\t<message>\n`.
pub fn error(code: u8, message: &str) -> Vec<u8> {
    format!("{code}\t1\t{message}\n").into_bytes()
}

/// `0\t1\n`.
pub fn ok() -> Vec<u8> {
    b"0\t1\n".to_vec()
}

/// `0\t1\t<n>\n`.
pub fn ok_number(n: u64) -> Vec<u8> {
    format!("0\t1\t{n}\n").into_bytes()
}

/// A result set: `0\t<columns>` then each value of each row, then LF.
pub fn rows(columns: usize, rows: &[Vec<Option<Vec<u8>>>]) -> Vec<u8> {
    let mut out = format!("0\t{columns}").into_bytes();
    for row in rows {
        for v in row {
            out.push(b'\t');
            escape_into(&mut out, v.as_deref());
        }
    }
    out.push(b'\n');
    out
}

/// The find operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FindOp {
    Eq,
    Gt,
    Ge,
    Lt,
    Le,
}

/// A filter: `F` skips a row that fails it, `W` ends the scan there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterSpec {
    pub stop: bool,
    /// The comparison as sent: `=`, `!=`, `<`, `<=`, `>`, `>=`; anything else is always false.
    pub op: Vec<u8>,
    /// Position in the open index's filter-column list.
    pub column: usize,
    pub value: Field,
}

/// What to do with the rows a find matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModifyKind {
    Update,
    Delete,
    Increment,
    Decrement,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Modify {
    pub kind: ModifyKind,
    /// `?`: answer with the rows as they were before.
    pub returning: bool,
    pub values: Vec<Field>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Find {
    pub index_id: u32,
    pub op: FindOp,
    pub key: Vec<Field>,
    pub limit: u32,
    pub offset: u32,
    /// IN: the key part replaced, and its values.
    pub in_list: Option<(usize, Vec<Vec<u8>>)>,
    pub filters: Vec<FilterSpec>,
    pub modify: Option<Modify>,
}

/// One parsed request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    OpenIndex {
        id: u32,
        db: Vec<u8>,
        table: Vec<u8>,
        index: Vec<u8>,
        columns: Vec<Vec<u8>>,
        filter_columns: Vec<Vec<u8>>,
    },
    Auth {
        kind: Vec<u8>,
        key: Vec<u8>,
    },
    Find(Find),
    Insert {
        index_id: u32,
        values: Vec<Field>,
    },
}

/// What the connection knows when parsing: how many columns and filter columns an open index
/// has (None: not opened).
pub trait OpenIndexes {
    fn shape(&self, id: u32) -> Option<(usize, usize)>;
    /// True on the write port, where modify ops are allowed.
    fn writable(&self) -> bool {
        true
    }
}

/// Parses one request line in the plugin's order; a malformed one gives its error answer.
pub fn parse(line: &[u8], open: &impl OpenIndexes) -> Result<Request, Vec<u8>> {
    let fields = split(line);
    let field = |i: usize| field(&fields, i);
    let first = field(0);
    match first {
        b"P" => {
            let id = number(field(1));
            let list = |f: &[u8]| -> Vec<Vec<u8>> {
                if f.is_empty() {
                    Vec::new()
                } else {
                    f.split(|b| *b == b',').map(|c| c.to_vec()).collect()
                }
            };
            Ok(Request::OpenIndex {
                id,
                db: field(2).to_vec(),
                table: field(3).to_vec(),
                index: field(4).to_vec(),
                columns: list(field(5)),
                filter_columns: list(field(6)),
            })
        }
        b"A" => Ok(Request::Auth {
            kind: field(1).to_vec(),
            key: field(2).to_vec(),
        }),
        f if f.first().is_some_and(|b| b.is_ascii_digit()) => parse_execute(&fields, open),
        _ => Err(error(2, "cmd")),
    }
}

/// Field `i` of a request line, empty past its end.
fn field<'f>(fields: &[&'f [u8]], i: usize) -> &'f [u8] {
    fields.get(i).copied().unwrap_or_default()
}

fn parse_execute(fields: &[&[u8]], open: &impl OpenIndexes) -> Result<Request, Vec<u8>> {
    let field = |i: usize| field(fields, i);
    let index_id = number(field(0));
    let Some((columns, filter_columns)) = open.shape(index_id) else {
        return Err(error(2, "stmtnum"));
    };
    let op_field = field(1);
    let vlen = number(field(2));
    if vlen > VALUES_MAX {
        return Err(error(2, "klen"));
    }
    let mut at = 3;
    let mut key = Vec::with_capacity(vlen as usize);
    for _ in 0..vlen {
        key.push(unescape(field(at)));
        at += 1;
    }
    let mut limit = 0;
    let mut offset = 0;
    let mut in_list = None;
    let mut filters = Vec::new();
    let mut modify = None;
    if at < fields.len() {
        limit = number(field(at));
        at += 1;
        if at < fields.len() {
            offset = number(field(at));
            at += 1;
        }
        if at < fields.len() && field(at).first() == Some(&b'@') {
            in_list = Some(in_values(fields, &mut at)?);
        }
        while at < fields.len() && matches!(field(at).first(), Some(b'F') | Some(b'W')) {
            filters.push(filter(fields, &mut at, filter_columns)?);
        }
        if at < fields.len() {
            // Any modify op on the read port, valid or not.
            if !open.writable() {
                return Err(error(2, "readonly"));
            }
            modify = Some(modify_op(fields, at, columns));
        }
    }
    let op = match op_field {
        b"=" => Some(FindOp::Eq),
        b">" => Some(FindOp::Gt),
        b">=" => Some(FindOp::Ge),
        b"<" => Some(FindOp::Lt),
        b"<=" => Some(FindOp::Le),
        b"+" | b"S" => None,
        _ => return Err(error(2, "op")),
    };
    if vlen == 0 {
        return Err(error(2, "klen"));
    }
    if op_field == b"S" {
        return Err(error(2, "notimpl"));
    }
    let Some(op) = op else {
        return Ok(Request::Insert {
            index_id,
            values: key,
        });
    };
    let modify = match modify {
        None => None,
        Some((None, _, _)) => return Err(error(2, "modop")),
        Some((Some(kind), returning, values)) => Some(Modify {
            kind,
            returning,
            values,
        }),
    };
    Ok(Request::Find(Find {
        index_id,
        op,
        key,
        limit: limit.max(1),
        offset,
        in_list,
        filters,
        modify,
    }))
}

/// A find's IN list (`@ icol ivlen v1 ... vn`) from field `*at` on; `*at` moves past it.
fn in_values(fields: &[&[u8]], at: &mut usize) -> Result<(usize, Vec<Vec<u8>>), Vec<u8>> {
    let field = |i: usize| field(fields, i);
    let icol = number(field(*at + 1)) as usize;
    let ivlen = number(field(*at + 2));
    *at += 3;
    if ivlen == 0 || ivlen > VALUES_MAX {
        return Err(error(2, "invalueslen"));
    }
    let mut values = Vec::with_capacity(ivlen as usize);
    for _ in 0..ivlen {
        values.push(unescape_bytes(field(*at)));
        *at += 1;
    }
    Ok((icol, values))
}

/// A find's filter (`F|W op column value`) at field `*at`; `*at` moves past it.
fn filter(fields: &[&[u8]], at: &mut usize, filter_columns: usize) -> Result<FilterSpec, Vec<u8>> {
    let field = |i: usize| field(fields, i);
    let kind = field(*at);
    if kind.len() != 1 {
        return Err(error(2, "filtertype"));
    }
    let column = number(field(*at + 2)) as usize;
    if column >= filter_columns {
        return Err(error(2, "filterfld"));
    }
    let spec = FilterSpec {
        stop: kind == b"W",
        op: field(*at + 1).to_vec(),
        column,
        value: unescape(field(*at + 3)),
    };
    *at += 4;
    Ok(spec)
}

/// A find's modify op at field `at` and the index's `columns` values after it: its kind (None:
/// not one the plugin knows), whether it returns the rows (`U?`, ...), and the values.
fn modify_op(
    fields: &[&[u8]],
    at: usize,
    columns: usize,
) -> (Option<ModifyKind>, bool, Vec<Field>) {
    let field = |i: usize| field(fields, i);
    let mop = field(at);
    let values = (0..columns).map(|i| unescape(field(at + 1 + i))).collect();
    let kind = match mop.first() {
        Some(b'U') => Some(ModifyKind::Update),
        Some(b'D') => Some(ModifyKind::Delete),
        Some(b'+') => Some(ModifyKind::Increment),
        Some(b'-') => Some(ModifyKind::Decrement),
        _ => None,
    };
    (kind, mop.get(1) == Some(&b'?'), values)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Opened;
    impl OpenIndexes for Opened {
        fn shape(&self, id: u32) -> Option<(usize, usize)> {
            (id == 0).then_some((3, 2))
        }
    }

    fn parsed(line: &[u8]) -> Result<Request, Vec<u8>> {
        parse(line, &Opened)
    }

    #[test]
    fn escaping_round_trips_and_truncates_as_the_plugin_does() {
        let mut out = Vec::new();
        escape_into(&mut out, Some(b"a\tb\nc\x00\x0f\x10"));
        assert_eq!(out, b"a\x01\x49b\x01\x4ac\x01\x40\x01\x4f\x10");
        assert_eq!(unescape(&out), Some(b"a\tb\nc\x00\x0f\x10".to_vec()));
        assert_eq!(unescape(b"\x00"), None);
        assert_eq!(unescape(b""), Some(Vec::new()));
        assert_eq!(unescape(b"ab\x01\x20cd"), Some(b"ab".to_vec()));
        assert_eq!(unescape(b"ab\x01"), Some(b"ab".to_vec()));
        assert_eq!(unescape_bytes(b"\x00"), vec![0]);
        assert_eq!(number(b"01"), 1);
        assert_eq!(number(b"1x"), 1);
        assert_eq!(number(b""), 0);
        assert_eq!(number(b"4294967297"), 1);
    }

    #[test]
    fn requests_parse_in_the_plugins_order() {
        assert_eq!(parsed(b"X"), Err(error(2, "cmd")));
        assert_eq!(parsed(b""), Err(error(2, "cmd")));
        assert_eq!(parsed(b"p\t0"), Err(error(2, "cmd")));
        assert_eq!(parsed(b"1\t=\t1\tk"), Err(error(2, "stmtnum")));
        assert_eq!(parsed(b"0\t!\t1\tk"), Err(error(2, "op")));
        assert_eq!(parsed(b"0\t=\t0"), Err(error(2, "klen")));
        assert_eq!(parsed(b"0\tS\t1\tx"), Err(error(2, "notimpl")));
        assert_eq!(
            parsed(b"0\t=\t1\tk\t1\t0\t@\t0\t0"),
            Err(error(2, "invalueslen"))
        );
        assert_eq!(
            parsed(b"0\t=\t1\tk\t1\t0\tFF\t=\t0\tv"),
            Err(error(2, "filtertype"))
        );
        assert_eq!(
            parsed(b"0\t=\t1\tk\t1\t0\tF\t=\t2\tv"),
            Err(error(2, "filterfld"))
        );
        assert_eq!(parsed(b"0\t=\t1\tk\t1\t0\tX"), Err(error(2, "modop")));
        match parsed(b"0\t>=\t1\tk1\t10\t2\t@\t0\t2\ta\t\x00\tW\t<\t1\tz\tU?\tx\t\x00") {
            Ok(Request::Find(f)) => {
                assert_eq!(f.op, FindOp::Ge);
                assert_eq!(f.key, vec![Some(b"k1".to_vec())]);
                assert_eq!((f.limit, f.offset), (10, 2));
                assert_eq!(f.in_list, Some((0, vec![b"a".to_vec(), vec![0]])));
                assert_eq!(f.filters.len(), 1);
                assert!(f.filters[0].stop);
                let m = f.modify.unwrap();
                assert_eq!(m.kind, ModifyKind::Update);
                assert!(m.returning);
                assert_eq!(m.values, vec![Some(b"x".to_vec()), None, Some(Vec::new())]);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            parsed(b"0\t+\t2\ta\tb"),
            Ok(Request::Insert {
                index_id: 0,
                values: vec![Some(b"a".to_vec()), Some(b"b".to_vec())]
            })
        );
        match parsed(b"P\t3\tdb\tt\t\tk,v\tn\r") {
            Ok(Request::OpenIndex {
                id,
                index,
                columns,
                filter_columns,
                ..
            }) => {
                assert_eq!(id, 3);
                assert!(index.is_empty());
                assert_eq!(columns, vec![b"k".to_vec(), b"v".to_vec()]);
                assert_eq!(filter_columns, vec![b"n".to_vec()]);
            }
            other => panic!("{other:?}"),
        }
    }
}
