//! LOAD DATA LOCAL INFILE: the statement read (file name, REPLACE or IGNORE, table, character
//! set, FIELDS and LINES options, IGNORE n LINES, the column and variable list, SET), the
//! client's file split into rows as MySQL splits it, and the rows turned into INSERT batches
//! the session runs. The connection (server/conn.rs) asks the client for the file and feeds it here.

use std::collections::HashMap;

use crate::commands::account::{lex_ends, Cursor, Token};
use crate::foundation::error::Result;
use crate::foundation::error::SqlError;

/// Rows a batch INSERT carries at most.
pub(crate) const BATCH_ROWS: usize = 1000;
/// Bytes of values a batch INSERT carries at most (it closes at the row that passes them).
pub(crate) const BATCH_BYTES: usize = 1 << 20;
/// The longest row of a file, in bytes: one longer fails the statement.
pub(crate) const ROW_BYTES_MAX: usize = 64 << 20;

/// Whether the text is a LOAD statement (the connection reads it itself).
pub(crate) fn is_load(body: &[u8]) -> bool {
    let text = String::from_utf8_lossy(body.get(..body.len().min(64)).unwrap_or_default());
    crate::parse::starts_with_word(&text, "load")
}

/// How duplicates of a unique key are met.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Duplicates {
    /// Skipped with a warning (what LOCAL does unless REPLACE is said).
    Ignore,
    Replace,
}

/// Where one field of a row goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    Column(String),
    Variable(String),
}

/// How the file is split: MySQL's FIELDS and LINES options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Format {
    pub field_end: Vec<u8>,
    pub enclosed: Option<u8>,
    pub escaped: Option<u8>,
    pub line_start: Vec<u8>,
    pub line_end: Vec<u8>,
}

impl Default for Format {
    fn default() -> Format {
        Format {
            field_end: b"\t".to_vec(),
            enclosed: None,
            escaped: Some(b'\\'),
            line_start: Vec::new(),
            line_end: b"\n".to_vec(),
        }
    }
}

/// A piece of a SET expression's text: as written, or a user variable a row's field fills.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Piece {
    Text(String),
    Variable(String),
}

/// A LOAD DATA LOCAL INFILE statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Load {
    pub file: String,
    pub duplicates: Duplicates,
    /// The table as written (`db`.`t` or `t`), backquoted.
    pub table: String,
    /// The file's character set, when named.
    pub charset: Option<String>,
    pub format: Format,
    pub skip_lines: u64,
    /// Fields in order; empty: every column of the table.
    pub targets: Vec<Target>,
    /// SET column = expression, the expression in pieces.
    pub set: Vec<(String, Vec<Piece>)>,
}

/// Reads a LOAD statement.
pub(crate) fn parse(sql: &str) -> Result<Load> {
    let (tokens, ends, rest) = lex_ends(sql).ok_or_else(|| syntax(sql))?;
    if !rest.trim().is_empty() {
        return Err(SqlError::unsupported(
            "LOAD DATA followed by other statements in one text",
        ));
    }
    let mut c = Cursor::new(tokens.clone());
    if !c.word("LOAD") {
        return Err(syntax(sql));
    }
    if c.word("XML") {
        return Err(SqlError::unsupported("LOAD XML"));
    }
    if !c.word("DATA") {
        return Err(c.syntax());
    }
    let _ = c.word("LOW_PRIORITY") || c.word("CONCURRENT");
    if !c.word("LOCAL") {
        return Err(SqlError::unsupported(
            "LOAD DATA INFILE from the server's disk (LOAD DATA LOCAL INFILE sends the client's file)",
        ));
    }
    if !c.word("INFILE") {
        return Err(c.syntax());
    }
    let file = string(&mut c)?;
    let duplicates = if c.word("REPLACE") {
        Duplicates::Replace
    } else {
        let _ = c.word("IGNORE");
        Duplicates::Ignore
    };
    if !c.words(&["INTO", "TABLE"]) {
        return Err(c.syntax());
    }
    let first = c.identifier().ok_or_else(|| c.syntax())?;
    let table = match first.split_once('.') {
        Some((db, t)) => format!("`{}`.`{}`", quote_name(db), quote_name(t)),
        None if c.punct('.') => {
            let t = c.identifier().ok_or_else(|| c.syntax())?;
            format!("`{}`.`{}`", quote_name(&first), quote_name(&t))
        }
        None => format!("`{}`", quote_name(&first)),
    };
    if c.at_word("PARTITION") {
        return Err(SqlError::unsupported("LOAD DATA into named partitions"));
    }
    let mut load = Load {
        file,
        duplicates,
        table,
        charset: None,
        format: Format::default(),
        skip_lines: 0,
        targets: Vec::new(),
        set: Vec::new(),
    };
    if c.words(&["CHARACTER", "SET"]) || c.word("CHARSET") {
        load.charset = Some(c.name()?);
    }
    if c.word("FIELDS") || c.word("COLUMNS") {
        let mut any = false;
        loop {
            if c.words(&["TERMINATED", "BY"]) {
                load.format.field_end = string(&mut c)?.into_bytes();
            } else if c.words(&["OPTIONALLY", "ENCLOSED", "BY"]) || c.words(&["ENCLOSED", "BY"]) {
                load.format.enclosed = one_byte(&string(&mut c)?)?;
            } else if c.words(&["ESCAPED", "BY"]) {
                load.format.escaped = one_byte(&string(&mut c)?)?;
            } else {
                break;
            }
            any = true;
        }
        if !any {
            return Err(c.syntax());
        }
    }
    if c.word("LINES") {
        let mut any = false;
        loop {
            if c.words(&["STARTING", "BY"]) {
                load.format.line_start = string(&mut c)?.into_bytes();
            } else if c.words(&["TERMINATED", "BY"]) {
                load.format.line_end = string(&mut c)?.into_bytes();
            } else {
                break;
            }
            any = true;
        }
        if !any {
            return Err(c.syntax());
        }
    }
    if load.format.line_end.is_empty() {
        return Err(SqlError::unsupported("LINES TERMINATED BY ''"));
    }
    if load.format.field_end.is_empty() {
        return Err(SqlError::unsupported(
            "FIELDS TERMINATED BY '' (fixed-width rows)",
        ));
    }
    if c.word("IGNORE") {
        let n = c.name()?;
        load.skip_lines = n.parse().map_err(|_| c.syntax())?;
        if !(c.word("LINES") || c.word("ROWS")) {
            return Err(c.syntax());
        }
    }
    if c.punct('(') && !c.punct(')') {
        loop {
            let target = if c.punct('@') {
                Target::Variable(c.name()?.to_ascii_lowercase())
            } else {
                Target::Column(c.identifier().ok_or_else(|| c.syntax())?)
            };
            load.targets.push(target);
            if c.punct(')') {
                break;
            }
            if !c.punct(',') {
                return Err(c.syntax());
            }
        }
    }
    if c.word("SET") {
        loop {
            let column = c.identifier().ok_or_else(|| c.syntax())?;
            if !c.punct('=') {
                return Err(c.syntax());
            }
            // The expression runs to the next comma outside parentheses.
            let start = c.index();
            let mut depth = 0usize;
            let mut end = start;
            while end < tokens.len() {
                match &tokens[end] {
                    Token::Punct('(') => depth += 1,
                    Token::Punct(')') => depth = depth.saturating_sub(1),
                    Token::Punct(',') if depth == 0 => break,
                    _ => {}
                }
                end += 1;
            }
            if end == start {
                return Err(c.syntax());
            }
            let from = if start == 0 { 0 } else { ends[start - 1] };
            let text = &sql[from..ends[end - 1]];
            load.set.push((column, pieces(text)?));
            while c.index() < end {
                c.skip();
            }
            if !c.punct(',') {
                break;
            }
        }
    }
    if !c.done() {
        return Err(c.syntax());
    }
    Ok(load)
}

fn syntax(sql: &str) -> SqlError {
    SqlError::parse(format!(
        "near '{}'",
        sql.chars().take(40).collect::<String>()
    ))
}

fn string(c: &mut Cursor) -> Result<String> {
    match c.quoted() {
        Some(s) => Ok(s),
        None => Err(c.syntax()),
    }
}

/// ENCLOSED BY and ESCAPED BY take one character, or none.
fn one_byte(s: &str) -> Result<Option<u8>> {
    match s.as_bytes() {
        [] => Ok(None),
        [b] => Ok(Some(*b)),
        _ => Err(SqlError::new(
            1083,
            "42000",
            "Field separator argument is not what is expected; check the manual",
        )),
    }
}

fn quote_name(name: &str) -> String {
    name.replace('`', "``")
}

/// A SET expression's text cut where it names user variables.
fn pieces(text: &str) -> Result<Vec<Piece>> {
    let (tokens, ends, _) = lex_ends(text).ok_or_else(|| syntax(text))?;
    let mut out = Vec::new();
    let mut at = 0;
    let mut i = 0;
    while i < tokens.len() {
        if let (Token::Punct('@'), Some(Token::Word(name))) = (&tokens[i], tokens.get(i + 1)) {
            let start = ends[i] - 1;
            out.push(Piece::Text(text[at..start].to_string()));
            out.push(Piece::Variable(name.to_ascii_lowercase()));
            at = ends[i + 1];
            i += 2;
            continue;
        }
        i += 1;
    }
    out.push(Piece::Text(text[at..].to_string()));
    Ok(out)
}

/// What a load did so far: rows read, rows the batches changed, and their warnings (the first
/// CONDITIONS_MAX kept, all counted).
#[derive(Debug, Default)]
pub(crate) struct Loaded {
    pub records: u64,
    pub affected: u64,
    pub warnings: Vec<(u16, String)>,
    pub warning_total: usize,
}

/// A batch's warning renumbered for the file: `at row N` of the batch is the file's row
/// `first + N - 1`.
pub(crate) fn renumbered(message: String, first: u64) -> String {
    let Some(at) = message.rfind(" at row ") else {
        return message;
    };
    match message[at + 8..].parse::<u64>() {
        Ok(n) => format!("{} at row {}", &message[..at], first + n.saturating_sub(1)),
        Err(_) => message,
    }
}

impl Loaded {
    pub(crate) fn warn(&mut self, code: u16, message: String) {
        self.warning_total += 1;
        if self.warnings.len() < crate::exec::diagnostics::CONDITIONS_MAX {
            self.warnings.push((code, message));
        }
    }

    /// The statement's answer: rows changed, and MySQL's `Records: .. Deleted: .. Skipped: ..
    /// Warnings: ..` (a replaced row counts twice in the affected rows and once as deleted).
    pub(crate) fn outcome(&self, duplicates: Duplicates) -> crate::session::Outcome {
        let (deleted, skipped) = match duplicates {
            Duplicates::Replace => (self.affected.saturating_sub(self.records), 0),
            Duplicates::Ignore => (0, self.records.saturating_sub(self.affected)),
        };
        crate::session::Outcome::Done {
            affected: self.affected,
            last_insert_id: 0,
            info: format!(
                "Records: {}  Deleted: {deleted}  Skipped: {skipped}  Warnings: {}",
                self.records, self.warning_total
            ),
        }
    }
}

/// One row of the file: its fields, None for a NULL (`\N`, or the word NULL when fields are
/// enclosed).
pub(crate) type Row = Vec<Option<Vec<u8>>>;

/// What the bytes at the front of the buffer hold.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Next {
    /// A row, how many bytes it took, and whether its last field is an empty one a field
    /// terminator right before the line's end made (`1,2,`), which MySQL drops when the row
    /// has a field more than its columns.
    Row(Row, usize, bool),
    /// Bytes that are no row (before a line's STARTING BY prefix), to drop.
    Skip(usize),
    /// The row goes on past the buffer's end.
    More,
}

/// The first row in `buf`, read as MySQL reads a LOAD DATA file; `end`: nothing follows the
/// buffer.
pub(crate) fn next_row(f: &Format, buf: &[u8], end: bool) -> Next {
    let mut i = 0;
    if !f.line_start.is_empty() {
        match find(buf, &f.line_start) {
            Some(p) => i = p + f.line_start.len(),
            None if end => return Next::Skip(buf.len()),
            // Keep what may be the prefix's start.
            None => return Next::Skip(buf.len().saturating_sub(f.line_start.len() - 1)),
        }
    }
    if buf[i..].is_empty() {
        return if end {
            Next::Skip(buf.len())
        } else {
            Next::More
        };
    }
    let mut row = Vec::new();
    loop {
        let field_start = i;
        let mut value = Vec::new();
        let quoted = f.enclosed.is_some() && buf.get(i) == f.enclosed.as_ref();
        if quoted {
            i += 1;
        }
        // How the field ended: at a field's end, at the line's end, or at the file's end.
        let ended_line = loop {
            let Some(&b) = buf.get(i) else {
                if !end {
                    return Next::More;
                }
                break true;
            };
            if Some(b) == f.escaped {
                let Some(&next) = buf.get(i + 1) else {
                    if !end {
                        return Next::More;
                    }
                    value.push(b);
                    i += 1;
                    continue;
                };
                value.push(unescape(next));
                i += 2;
                continue;
            }
            if quoted && Some(b) == f.enclosed {
                if buf.get(i + 1) == Some(&b) {
                    value.push(b);
                    i += 2;
                    continue;
                }
                // The closing quote ends the field only before a terminator or the end.
                let after = &buf[i + 1..];
                if after.starts_with(&f.field_end) {
                    i += 1 + f.field_end.len();
                    break false;
                }
                if after.starts_with(&f.line_end) {
                    i += 1 + f.line_end.len();
                    break true;
                }
                if after.is_empty() && end {
                    i += 1;
                    break true;
                }
                if !end && (is_prefix(after, &f.field_end) || is_prefix(after, &f.line_end)) {
                    return Next::More;
                }
                value.push(b);
                i += 1;
                continue;
            }
            if !quoted {
                let rest = &buf[i..];
                if rest.starts_with(&f.field_end) {
                    i += f.field_end.len();
                    break false;
                }
                if rest.starts_with(&f.line_end) {
                    i += f.line_end.len();
                    break true;
                }
                if !end && (is_prefix(rest, &f.field_end) || is_prefix(rest, &f.line_end)) {
                    return Next::More;
                }
            }
            value.push(b);
            i += 1;
        };
        let raw = &buf[field_start..i];
        let raw = raw
            .strip_suffix(if ended_line {
                &f.line_end[..]
            } else {
                &f.field_end[..]
            })
            .unwrap_or(raw);
        let null = !quoted
            && (f.escaped.is_some_and(|e| raw == [e, b'N'])
                || (f.enclosed.is_some() && raw == b"NULL"));
        // An empty field right before the line's end, after another field's terminator.
        let trailing = ended_line
            && !quoted
            && !row.is_empty()
            && i >= f.line_end.len()
            && field_start == i - f.line_end.len();
        row.push(if null { None } else { Some(value) });
        if ended_line {
            return Next::Row(row, i, trailing);
        }
    }
}

/// What an escape character followed by `b` stands for.
fn unescape(b: u8) -> u8 {
    match b {
        b'0' => 0,
        b'b' => 8,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        b'Z' => 26,
        other => other,
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Whether `rest` is a shorter start of `term`.
fn is_prefix(rest: &[u8], term: &[u8]) -> bool {
    !rest.is_empty() && rest.len() < term.len() && term.starts_with(rest)
}

/// A value as a string literal of the INSERT batches: quotes doubled, and backslashes too
/// unless the session reads them as characters (NO_BACKSLASH_ESCAPES).
pub(crate) fn literal(out: &mut Vec<u8>, value: Option<&[u8]>, escapes: bool) {
    let Some(value) = value else {
        out.extend_from_slice(b"NULL");
        return;
    };
    out.push(b'\'');
    for &b in value {
        match b {
            b'\'' => out.extend_from_slice(b"''"),
            b'\\' if escapes => out.extend_from_slice(b"\\\\"),
            other => out.push(other),
        }
    }
    out.push(b'\'');
}

/// The INSERT batches of a load: its head (`INSERT ... INTO t (columns) VALUES `) and how each
/// row's fields become a row of values.
pub(crate) struct Batches {
    head: Vec<u8>,
    /// Per column of the INSERT: the field it takes, or the SET expression it computes.
    columns: Vec<Source>,
    /// Fields a row should have.
    fields: usize,
    /// Fields by variable name.
    variables: HashMap<String, usize>,
    escapes: bool,
}

enum Source {
    Field(usize),
    Set(Vec<Piece>),
}

impl Batches {
    /// `columns`: the table's columns, for a load without a list.
    pub(crate) fn new(load: &Load, columns: &[String], escapes: bool) -> Batches {
        let targets: Vec<Target> = if load.targets.is_empty() {
            columns.iter().cloned().map(Target::Column).collect()
        } else {
            load.targets.clone()
        };
        let set: Vec<&String> = load.set.iter().map(|(c, _)| c).collect();
        let mut names = Vec::new();
        let mut sources = Vec::new();
        let mut variables = HashMap::new();
        for (i, t) in targets.iter().enumerate() {
            match t {
                // A column SET also computes takes SET's value.
                Target::Column(c) if !set.iter().any(|s| s.eq_ignore_ascii_case(c)) => {
                    names.push(c.clone());
                    sources.push(Source::Field(i));
                }
                Target::Column(_) => {}
                Target::Variable(v) => {
                    variables.insert(v.clone(), i);
                }
            }
        }
        for (c, pieces) in &load.set {
            names.push(c.clone());
            sources.push(Source::Set(pieces.clone()));
        }
        let verb = match load.duplicates {
            Duplicates::Ignore => "INSERT IGNORE",
            Duplicates::Replace => "REPLACE",
        };
        let list: Vec<String> = names
            .iter()
            .map(|n| format!("`{}`", quote_name(n)))
            .collect();
        let head = format!("{verb} INTO {} ({}) VALUES ", load.table, list.join(", ")).into_bytes();
        Batches {
            head,
            columns: sources,
            fields: targets.len(),
            variables,
            escapes,
        }
    }

    /// Fields a row should have.
    pub(crate) fn fields(&self) -> usize {
        self.fields
    }

    /// A new batch's text so far.
    pub(crate) fn start(&self) -> Vec<u8> {
        self.head.clone()
    }

    /// Adds `row` to `batch` (after a comma when it holds rows); returns the warnings MySQL
    /// gives a row with too few fields (1261, one per missing field) or too many (1262),
    /// numbered `line`.
    pub(crate) fn add(&self, batch: &mut Vec<u8>, row: &Row, line: u64) -> Vec<(u16, String)> {
        if batch.len() > self.head.len() {
            batch.push(b',');
        }
        batch.push(b'(');
        for (n, source) in self.columns.iter().enumerate() {
            if n > 0 {
                batch.push(b',');
            }
            match source {
                Source::Field(i) => match row.get(*i) {
                    Some(v) => literal(batch, v.as_deref(), self.escapes),
                    None => batch.extend_from_slice(b"DEFAULT"),
                },
                Source::Set(pieces) => {
                    for p in pieces {
                        match p {
                            Piece::Text(t) => batch.extend_from_slice(t.as_bytes()),
                            Piece::Variable(v) => {
                                let value = self.variables.get(v).and_then(|i| row.get(*i));
                                match value {
                                    Some(v) => literal(batch, v.as_deref(), self.escapes),
                                    None => batch.extend_from_slice(b"NULL"),
                                }
                            }
                        }
                    }
                }
            }
        }
        batch.push(b')');
        if row.len() < self.fields {
            let message = format!("Row {line} doesn't contain data for all columns");
            vec![(1261, message); self.fields - row.len()]
        } else if row.len() > self.fields {
            vec![(
                1262,
                format!("Row {line} was truncated; it contained more data than there were input columns"),
            )]
        } else {
            Vec::new()
        }
    }
}

impl crate::session::Session {
    /// The columns a load without a column list fills, in order: the table's, hidden ones
    /// left out. Fails as an INSERT into it would when the table is not there.
    pub(crate) fn load_columns(&self, table: &str) -> Result<Vec<String>> {
        let name = sqlparser::parser::Parser::new(&crate::parse::dialect::Cairn)
            .try_with_sql(table)
            .and_then(|mut p| p.parse_object_name(false))
            .map_err(SqlError::parse)?;
        let (t, _, _) = self.table(&name)?;
        Ok(t.def()
            .columns
            .iter()
            .filter(|c| !c.hidden)
            .map(|c| c.name.clone())
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(f: &Format, text: &[u8]) -> Vec<Row> {
        // Fed a byte at a time: a row is only taken once whole.
        let mut buf = Vec::new();
        let mut out = Vec::new();
        for (n, b) in text.iter().enumerate() {
            buf.push(*b);
            let end = n + 1 == text.len();
            loop {
                match next_row(f, &buf, end) {
                    Next::Row(r, used, _) => {
                        out.push(r);
                        buf.drain(..used);
                    }
                    Next::Skip(used) if used > 0 => {
                        buf.drain(..used);
                    }
                    Next::Skip(_) | Next::More => break,
                }
                if buf.is_empty() {
                    break;
                }
            }
        }
        out
    }

    fn s(v: &str) -> Option<Vec<u8>> {
        Some(v.as_bytes().to_vec())
    }

    #[test]
    fn tabs_and_newlines_with_escapes_and_nulls() {
        let f = Format::default();
        assert_eq!(
            rows(&f, b"1\ta\\tb\n2\t\\N\n3\tlast"),
            vec![
                vec![s("1"), s("a\tb")],
                vec![s("2"), None],
                vec![s("3"), s("last")]
            ]
        );
    }

    #[test]
    fn csv_with_quotes_commas_and_crlf() {
        let f = Format {
            field_end: b",".to_vec(),
            enclosed: Some(b'"'),
            line_end: b"\r\n".to_vec(),
            ..Format::default()
        };
        assert_eq!(
            rows(
                &f,
                b"1,\"a,b\",\"say \"\"hi\"\"\"\r\n2,NULL,\"line\r\nbreak\"\r\n"
            ),
            vec![
                vec![s("1"), s("a,b"), s("say \"hi\"")],
                vec![s("2"), None, s("line\r\nbreak")]
            ]
        );
    }

    #[test]
    fn lines_starting_by_skip_what_comes_before() {
        let f = Format {
            line_start: b"xxx".to_vec(),
            ..Format::default()
        };
        assert_eq!(
            rows(&f, b"xxx1\ta\nsomething\nzzxxx2\tb\n"),
            vec![vec![s("1"), s("a")], vec![s("2"), s("b")]]
        );
    }

    #[test]
    fn the_statement_reads_its_options() {
        let load = parse(
            "LOAD DATA LOCAL INFILE '/tmp/f.csv' REPLACE INTO TABLE d.t CHARACTER SET utf8mb4 \
             FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' ESCAPED BY '\\\\' \
             LINES STARTING BY '>' TERMINATED BY '\\r\\n' IGNORE 1 LINES (a, @x, c) \
             SET b = UPPER(@x), d = CONCAT(@x, '-', 1)",
        )
        .unwrap();
        assert_eq!(load.file, "/tmp/f.csv");
        assert_eq!(load.duplicates, Duplicates::Replace);
        assert_eq!(load.table, "`d`.`t`");
        assert_eq!(load.format.field_end, b",");
        assert_eq!(load.format.enclosed, Some(b'"'));
        assert_eq!(load.format.escaped, Some(b'\\'));
        assert_eq!(load.format.line_start, b">");
        assert_eq!(load.format.line_end, b"\r\n");
        assert_eq!(load.skip_lines, 1);
        assert_eq!(
            load.targets,
            vec![
                Target::Column("a".into()),
                Target::Variable("x".into()),
                Target::Column("c".into())
            ]
        );
        let b = Batches::new(&load, &[], true);
        let mut batch = b.start();
        assert!(b
            .add(&mut batch, &vec![s("1"), s("it's"), s("3")], 1)
            .is_empty());
        assert_eq!(
            String::from_utf8(batch).unwrap(),
            "REPLACE INTO `d`.`t` (`a`, `c`, `b`, `d`) VALUES ('1','3', UPPER('it''s'), CONCAT('it''s', '-', 1))"
        );
        assert!(parse("LOAD DATA INFILE '/etc/passwd' INTO TABLE t").is_err());
        assert!(parse("LOAD DATA LOCAL INFILE 'f' INTO TABLE t FIELDS").is_err());
    }
}
