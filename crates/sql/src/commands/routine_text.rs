//! The text of stored procedures: a lexer of their own (sqlparser has no procedural SQL), CREATE
//! PROCEDURE's body parsed into `Stmt`s (DECLARE, SET, IF, WHILE, LOOP, LEAVE, SELECT ... INTO, and
//! any other statement as text), and CALL with its arguments.

use crate::foundation::error::Result;
use crate::foundation::error::SqlError;

/// Statements a procedure body may hold (its parse is bounded by its text too).
const STATEMENTS_MAX: usize = 10_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Word,
    /// A quoted string or name, by its quote.
    Quoted(u8),
    Punct(u8),
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Tok {
    pub(crate) kind: Kind,
    pub(crate) start: usize,
    pub(crate) end: usize,
}

/// The tokens of `text` (comments and spaces dropped), each with its byte span; None when a
/// quote or comment does not end.
pub(crate) fn lex(text: &str) -> Option<Vec<Tok>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b'#' || (c == b'-' && b.get(i + 1) == Some(&b'-')) {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2 + text.get(i + 2..)?.find("*/")? + 2;
        } else if matches!(c, b'\'' | b'"' | b'`') {
            let start = i;
            i += 1;
            loop {
                let x = *b.get(i)?;
                if (x == b'\\' && c != b'`') || (x == c && b.get(i + 1) == Some(&c)) {
                    i += 2;
                } else if x == c {
                    i += 1;
                    break;
                } else {
                    i += 1;
                }
            }
            out.push(Tok {
                kind: Kind::Quoted(c),
                start,
                end: i,
            });
        } else if c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$') || c >= 0x80 {
            let start = i;
            while i < b.len()
                && (b[i].is_ascii_alphanumeric()
                    || matches!(b[i], b'_' | b'$' | b'.')
                    || b[i] >= 0x80)
            {
                i += 1;
            }
            out.push(Tok {
                kind: Kind::Word,
                start,
                end: i,
            });
        } else {
            out.push(Tok {
                kind: Kind::Punct(c),
                start: i,
                end: i + 1,
            });
            i += 1;
        }
    }
    Some(out)
}

/// A cursor over a text's tokens.
pub(crate) struct Cur<'a> {
    pub(crate) text: &'a str,
    pub(crate) toks: Vec<Tok>,
    pub(crate) at: usize,
}

impl<'a> Cur<'a> {
    fn new(text: &'a str) -> Result<Cur<'a>> {
        let toks = lex(text).ok_or_else(|| syntax_near(text))?;
        Ok(Cur { text, toks, at: 0 })
    }

    fn src(&self, t: Tok) -> &'a str {
        &self.text[t.start..t.end]
    }

    fn peek_word(&self, n: usize) -> Option<String> {
        let t = self.toks.get(self.at + n)?;
        (t.kind == Kind::Word).then(|| self.src(*t).to_ascii_uppercase())
    }

    fn word(&mut self, w: &str) -> bool {
        if self.peek_word(0).as_deref() == Some(w) {
            self.at += 1;
            return true;
        }
        false
    }

    fn words(&mut self, ws: &[&str]) -> bool {
        let at = self.at;
        if ws.iter().all(|w| self.word(w)) {
            return true;
        }
        self.at = at;
        false
    }

    fn punct(&mut self, p: u8) -> bool {
        if self.toks.get(self.at).map(|t| t.kind) == Some(Kind::Punct(p)) {
            self.at += 1;
            return true;
        }
        false
    }

    fn done(&self) -> bool {
        self.at >= self.toks.len()
    }

    /// Where the next token starts (the text's end when none is left).
    fn offset(&self) -> usize {
        self.toks.get(self.at).map_or(self.text.len(), |t| t.start)
    }

    fn syntax(&self) -> SqlError {
        syntax_near(&self.text[self.offset()..])
    }

    /// A name: a bare word or a backquoted one (its quotes taken off).
    fn name(&mut self) -> Result<String> {
        let t = *self.toks.get(self.at).ok_or_else(|| self.syntax())?;
        let name = match t.kind {
            Kind::Word => self.src(t).to_string(),
            Kind::Quoted(b'`') => {
                let inner = &self.text[t.start + 1..t.end - 1];
                inner.replace("``", "`")
            }
            _ => return Err(self.syntax()),
        };
        self.at += 1;
        Ok(name)
    }

    /// `[db.]name`, a backquoted part with a dot in it being one name.
    fn qualified(&mut self) -> Result<(Option<String>, String)> {
        let t = *self.toks.get(self.at).ok_or_else(|| self.syntax())?;
        if t.kind == Kind::Word {
            self.at += 1;
            let w = self.src(t);
            return Ok(match w.split_once('.') {
                Some((db, name)) if !db.is_empty() && !name.is_empty() => {
                    (Some(db.to_string()), name.to_string())
                }
                Some(_) => return Err(self.syntax()),
                None if self.punct(b'.') => (Some(w.to_string()), self.name()?),
                None => (None, w.to_string()),
            });
        }
        let first = self.name()?;
        if self.punct(b'.') {
            return Ok((Some(first), self.name()?));
        }
        Ok((None, first))
    }

    /// The text from the cursor up to (not taking) the first token at parenthesis depth 0
    /// that `stop` accepts; the cursor is left on that token.
    fn until(&mut self, stop: impl Fn(&Cur) -> bool) -> &'a str {
        let from = self.offset();
        let mut depth = 0usize;
        while !self.done() {
            if depth == 0 && stop(self) {
                break;
            }
            match self.toks[self.at].kind {
                Kind::Punct(b'(') => depth += 1,
                Kind::Punct(b')') => depth = depth.saturating_sub(1),
                _ => {}
            }
            self.at += 1;
        }
        self.text[from..self.offset()].trim()
    }
}

pub(crate) fn syntax_near(text: &str) -> SqlError {
    let near: String = text.chars().take(40).collect();
    SqlError::new(
        1064,
        "42000",
        format!("You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '{near}'"),
    )
}

pub(crate) fn is_semicolon(c: &Cur) -> bool {
    c.toks[c.at].kind == Kind::Punct(b';')
}

// ---------------------------------------------------------------- statements

/// A statement about procedures, read from the start of a text.
#[derive(Debug)]
pub(crate) enum Statement {
    Create {
        or_replace: bool,
        if_not_exists: bool,
        procedure: Procedure,
    },
    Drop {
        if_exists: bool,
        db: Option<String>,
        name: String,
    },
    Call {
        db: Option<String>,
        name: String,
        /// The arguments' expression texts.
        args: Vec<String>,
    },
    ShowCreate {
        db: Option<String>,
        name: String,
    },
}

/// A procedure statement at the start of `sql`, and the text after it; None when the text
/// starts with none (FUNCTION, TRIGGER and EVENT are refused as not supported).
pub(crate) fn parse_statement(sql: &str) -> Option<(Result<Statement>, &str)> {
    let first = ["create", "drop", "call", "show"];
    if !first.iter().any(|w| crate::parse::starts_with_word(sql, w)) {
        return None;
    }
    let mut c = match Cur::new(sql) {
        Ok(c) => c,
        Err(_) => return None,
    };
    if c.word("CALL") {
        return Some(finish(call(&mut c), &c, sql));
    }
    if c.word("SHOW") {
        if !c.words(&["CREATE", "PROCEDURE"]) {
            return None;
        }
        let parsed = c
            .qualified()
            .map(|(db, name)| Statement::ShowCreate { db, name });
        return Some(finish(parsed, &c, sql));
    }
    if c.word("DROP") {
        if c.word("FUNCTION") || c.word("TRIGGER") || c.word("EVENT") {
            return Some((
                Err(SqlError::unsupported(
                    "stored functions, triggers and events",
                )),
                rest_after_statement(&mut c, sql),
            ));
        }
        if !c.word("PROCEDURE") {
            return None;
        }
        let if_exists = c.words(&["IF", "EXISTS"]);
        let parsed = c.qualified().map(|(db, name)| Statement::Drop {
            if_exists,
            db,
            name,
        });
        return Some(finish(parsed, &c, sql));
    }
    // CREATE [OR REPLACE] [DEFINER = who] PROCEDURE ...
    c.word("CREATE");
    let or_replace = c.words(&["OR", "REPLACE"]);
    if c.word("DEFINER") {
        if !c.punct(b'=') {
            return Some((Err(c.syntax()), ""));
        }
        // user[@host], or CURRENT_USER[()]
        let _ = c.name();
        if c.punct(b'(') && !c.punct(b')') {
            return Some((Err(c.syntax()), ""));
        }
        if c.punct(b'@') {
            let _ = c.name().or_else(|_| {
                // A quoted host.
                c.at += 1;
                Ok::<String, SqlError>(String::new())
            });
        }
    }
    if c.word("FUNCTION") || c.word("TRIGGER") || c.word("EVENT") || c.word("AGGREGATE") {
        return Some((
            Err(SqlError::unsupported(
                "stored functions, triggers and events",
            )),
            "",
        ));
    }
    if !c.word("PROCEDURE") {
        return None;
    }
    let if_not_exists = c.words(&["IF", "NOT", "EXISTS"]);
    let start = 0;
    let parsed = create(&mut c).map(|(procedure_of, end)| {
        let text = sql[start..end].trim().to_string();
        (procedure_of(text), end)
    });
    match parsed {
        Ok((procedure, end)) => Some((
            Ok(Statement::Create {
                or_replace,
                if_not_exists,
                procedure,
            }),
            sql[end..]
                .trim_start()
                .strip_prefix(';')
                .unwrap_or(&sql[end..]),
        )),
        Err(e) => Some((Err(e), "")),
    }
}

/// A parsed statement ends at a `;` or the text's end: the text after it.
pub(crate) fn finish<'s>(
    parsed: Result<Statement>,
    c: &Cur,
    sql: &'s str,
) -> (Result<Statement>, &'s str) {
    let at = c.offset();
    let rest = &sql[at..];
    let trimmed = rest.trim_start();
    if trimmed.is_empty() {
        return (parsed, "");
    }
    match trimmed.strip_prefix(';') {
        Some(after) => (parsed, after),
        None => (parsed.and_then(|_| Err(c.syntax())), ""),
    }
}

pub(crate) fn rest_after_statement<'s>(c: &mut Cur, sql: &'s str) -> &'s str {
    c.until(is_semicolon);
    let at = c.offset();
    sql[at..].strip_prefix(';').unwrap_or(&sql[at..])
}

pub(crate) fn call(c: &mut Cur) -> Result<Statement> {
    let (db, name) = c.qualified()?;
    let mut args = Vec::new();
    if c.punct(b'(') && !c.punct(b')') {
        loop {
            let arg =
                c.until(|c| matches!(c.toks[c.at].kind, Kind::Punct(b',') | Kind::Punct(b')')));
            if arg.is_empty() {
                return Err(c.syntax());
            }
            args.push(arg.to_string());
            if c.punct(b')') {
                break;
            }
            if !c.punct(b',') {
                return Err(c.syntax());
            }
        }
    }
    Ok(Statement::Call { db, name, args })
}

// ---------------------------------------------------------------- procedures

/// How a parameter passes its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    In,
    Out,
    InOut,
}

#[derive(Debug, Clone)]
pub(crate) struct Param {
    pub mode: Mode,
    pub name: String,
    /// The type as declared.
    pub ty: String,
}

/// A procedure: its name, parameters, body and the CREATE text it came from.
#[derive(Debug, Clone)]
pub(crate) struct Procedure {
    pub db: Option<String>,
    pub name: String,
    pub params: Vec<Param>,
    pub(crate) body: Vec<Stmt>,
    pub text: String,
    /// Where the body starts in `text` (information_schema.ROUTINES shows it).
    pub body_at: usize,
}

/// A statement of a procedure's body.
#[derive(Debug, Clone)]
pub(crate) enum Stmt {
    Block(Option<String>, Vec<Stmt>),
    Sql(String),
    Declare(Vec<String>, Option<String>),
    Set(Vec<(String, String)>),
    If(Vec<(String, Vec<Stmt>)>, Vec<Stmt>),
    While(Option<String>, String, Vec<Stmt>),
    Leave(String),
    Iterate(String),
    Signal {
        sqlstate: String,
        message: Option<String>,
        errno: Option<String>,
    },
}

/// Reads `name (params) [characteristics] body` after CREATE PROCEDURE: a function making the
/// procedure from its whole text, and where the statement ends.
#[allow(clippy::type_complexity)]
pub(crate) fn create(c: &mut Cur) -> Result<(Box<dyn FnOnce(String) -> Procedure>, usize)> {
    let (db, name) = c.qualified()?;
    if name.len() > 64 {
        return Err(SqlError::new(
            1059,
            "42000",
            format!("Identifier name '{name}' is too long"),
        ));
    }
    if !c.punct(b'(') {
        return Err(c.syntax());
    }
    let mut params = Vec::new();
    if !c.punct(b')') {
        loop {
            let mode = if c.word("INOUT") {
                Mode::InOut
            } else if c.word("OUT") {
                Mode::Out
            } else {
                c.word("IN");
                Mode::In
            };
            let pname = c.name()?;
            let ty =
                c.until(|c| matches!(c.toks[c.at].kind, Kind::Punct(b',') | Kind::Punct(b')')));
            if ty.is_empty() {
                return Err(c.syntax());
            }
            if params
                .iter()
                .any(|p: &Param| p.name.eq_ignore_ascii_case(&pname))
            {
                return Err(SqlError::new(
                    1330,
                    "42000",
                    format!("Duplicate parameter: {pname}"),
                ));
            }
            params.push(Param {
                mode,
                name: pname,
                ty: ty.to_string(),
            });
            if c.punct(b')') {
                break;
            }
            if !c.punct(b',') {
                return Err(c.syntax());
            }
        }
    }
    // Characteristics: COMMENT '...', LANGUAGE SQL, [NOT] DETERMINISTIC, CONTAINS SQL, NO SQL,
    // READS SQL DATA, MODIFIES SQL DATA, SQL SECURITY {DEFINER | INVOKER}.
    loop {
        if c.word("COMMENT") {
            if !matches!(c.toks.get(c.at).map(|t| t.kind), Some(Kind::Quoted(_))) {
                return Err(c.syntax());
            }
            c.at += 1;
        } else if c.words(&["LANGUAGE", "SQL"])
            || c.words(&["NOT", "DETERMINISTIC"])
            || c.word("DETERMINISTIC")
            || c.words(&["CONTAINS", "SQL"])
            || c.words(&["NO", "SQL"])
            || c.words(&["READS", "SQL", "DATA"])
            || c.words(&["MODIFIES", "SQL", "DATA"])
            || c.words(&["SQL", "SECURITY", "DEFINER"])
            || c.words(&["SQL", "SECURITY", "INVOKER"])
        {
        } else {
            break;
        }
    }
    let mut locals: Vec<String> = params.iter().map(|p| p.name.to_ascii_lowercase()).collect();
    let mut count = 0;
    let body_at = c.offset();
    let body = statement(c, &mut locals, &mut count)?;
    let end = match c.toks.get(c.at.wrapping_sub(1)) {
        Some(t) if c.at > 0 => t.end,
        _ => c.text.len(),
    };
    if !c.done() && !is_semicolon(c) {
        return Err(c.syntax());
    }
    Ok((
        Box::new(move |text| Procedure {
            db,
            name,
            params,
            body: vec![body],
            text,
            body_at,
        }),
        end,
    ))
}

/// A list of statements, each ending with `;`, up to (not taking) a word `stop` accepts.
pub(crate) fn statements(
    c: &mut Cur,
    locals: &mut Vec<String>,
    count: &mut usize,
    stop: &dyn Fn(&Cur) -> bool,
) -> Result<Vec<Stmt>> {
    let mut out = Vec::new();
    loop {
        if c.done() {
            return Err(c.syntax());
        }
        if stop(c) {
            return Ok(out);
        }
        out.push(statement(c, locals, count)?);
        if !c.punct(b';') {
            return Err(c.syntax());
        }
    }
}

pub(crate) fn statement(c: &mut Cur, locals: &mut Vec<String>, count: &mut usize) -> Result<Stmt> {
    *count += 1;
    if *count > STATEMENTS_MAX {
        return Err(SqlError::unsupported(format!(
            "a procedure of more than {STATEMENTS_MAX} statements"
        )));
    }
    // A label: `name:` before BEGIN or WHILE.
    let label = if c.toks.get(c.at + 1).map(|t| t.kind) == Some(Kind::Punct(b':'))
        && c.toks.get(c.at).map(|t| t.kind) == Some(Kind::Word)
    {
        let l = c.name()?.to_ascii_lowercase();
        c.punct(b':');
        Some(l)
    } else {
        None
    };
    let end_label = |c: &mut Cur, label: &Option<String>| -> Result<()> {
        if let Some(l) = label {
            if c.peek_word(0).is_some_and(|w| w.eq_ignore_ascii_case(l)) {
                c.at += 1;
            }
        }
        Ok(())
    };
    if c.word("BEGIN") {
        let depth = locals.len();
        let body = statements(c, locals, count, &|c| {
            c.peek_word(0).as_deref() == Some("END")
        })?;
        c.word("END");
        end_label(c, &label)?;
        locals.truncate(depth);
        return Ok(Stmt::Block(label, body));
    }
    if c.word("WHILE") {
        let cond = c
            .until(|c| c.peek_word(0).as_deref() == Some("DO"))
            .to_string();
        if !c.word("DO") || cond.is_empty() {
            return Err(c.syntax());
        }
        let body = statements(c, locals, count, &|c| {
            c.peek_word(0).as_deref() == Some("END") && c.peek_word(1).as_deref() == Some("WHILE")
        })?;
        c.words(&["END", "WHILE"]);
        end_label(c, &label)?;
        return Ok(Stmt::While(label, cond, body));
    }
    if label.is_some() {
        return Err(SqlError::unsupported(
            "a label before anything but BEGIN or WHILE (LOOP and REPEAT are not supported)",
        ));
    }
    if c.word("IF") {
        let mut arms = Vec::new();
        let mut otherwise = Vec::new();
        loop {
            let cond = c
                .until(|c| c.peek_word(0).as_deref() == Some("THEN"))
                .to_string();
            if !c.word("THEN") || cond.is_empty() {
                return Err(c.syntax());
            }
            let body = statements(c, locals, count, &|c| {
                matches!(c.peek_word(0).as_deref(), Some("ELSEIF") | Some("ELSE"))
                    || (c.peek_word(0).as_deref() == Some("END")
                        && c.peek_word(1).as_deref() == Some("IF"))
            })?;
            arms.push((cond, body));
            if c.word("ELSEIF") {
                continue;
            }
            if c.word("ELSE") {
                otherwise = statements(c, locals, count, &|c| {
                    c.peek_word(0).as_deref() == Some("END")
                        && c.peek_word(1).as_deref() == Some("IF")
                })?;
            }
            if !c.words(&["END", "IF"]) {
                return Err(c.syntax());
            }
            return Ok(Stmt::If(arms, otherwise));
        }
    }
    if c.word("DECLARE") {
        let mut names = vec![c.name()?];
        while c.punct(b',') {
            names.push(c.name()?);
        }
        if matches!(
            c.peek_word(0).as_deref(),
            Some("CONDITION") | Some("CURSOR") | Some("HANDLER")
        ) || names
            .iter()
            .any(|n| ["CONTINUE", "EXIT", "UNDO"].contains(&n.to_ascii_uppercase().as_str()))
        {
            return Err(SqlError::unsupported(
                "DECLARE ... CONDITION, CURSOR or HANDLER in a procedure",
            ));
        }
        let ty = c.until(|c| is_semicolon(c) || c.peek_word(0).as_deref() == Some("DEFAULT"));
        if ty.is_empty() {
            return Err(c.syntax());
        }
        let default = if c.word("DEFAULT") {
            Some(c.until(is_semicolon).to_string())
        } else {
            None
        };
        locals.extend(names.iter().map(|n| n.to_ascii_lowercase()));
        return Ok(Stmt::Declare(names, default));
    }
    if c.word("LEAVE") {
        return Ok(Stmt::Leave(c.name()?.to_ascii_lowercase()));
    }
    if c.word("ITERATE") {
        return Ok(Stmt::Iterate(c.name()?.to_ascii_lowercase()));
    }
    if c.word("SIGNAL") {
        if !c.word("SQLSTATE") {
            return Err(SqlError::unsupported("SIGNAL of a named condition"));
        }
        c.word("VALUE");
        let t = *c.toks.get(c.at).ok_or_else(|| c.syntax())?;
        let sqlstate = match t.kind {
            Kind::Quoted(b'\'' | b'"') => c.text[t.start + 1..t.end - 1].to_string(),
            _ => return Err(c.syntax()),
        };
        c.at += 1;
        if sqlstate.len() != 5 || sqlstate.starts_with("00") {
            return Err(SqlError::new(
                1407,
                "42000",
                format!("Bad SQLSTATE: '{sqlstate}'"),
            ));
        }
        let (mut message, mut errno) = (None, None);
        if c.word("SET") {
            loop {
                let item = c.name()?.to_ascii_uppercase();
                if !c.punct(b'=') {
                    return Err(c.syntax());
                }
                let value = c
                    .until(|c| is_semicolon(c) || c.toks[c.at].kind == Kind::Punct(b','))
                    .to_string();
                match item.as_str() {
                    "MESSAGE_TEXT" => message = Some(value),
                    "MYSQL_ERRNO" => errno = Some(value),
                    // The other condition items change nothing a client reads here.
                    _ => {}
                }
                if !c.punct(b',') {
                    break;
                }
            }
        }
        return Ok(Stmt::Signal {
            sqlstate,
            message,
            errno,
        });
    }
    for refused in [
        "LOOP", "REPEAT", "CASE", "RESIGNAL", "OPEN", "FETCH", "CLOSE", "RETURN",
    ] {
        if c.peek_word(0).as_deref() == Some(refused) {
            return Err(SqlError::unsupported(format!("{refused} in a procedure")));
        }
    }
    // SET of variables the procedure declares (a SET of anything else is SQL).
    if c.peek_word(0).as_deref() == Some("SET")
        && c.peek_word(1)
            .is_some_and(|w| locals.contains(&w.to_ascii_lowercase()))
    {
        c.word("SET");
        let mut pairs = Vec::new();
        loop {
            let name = c.name()?.to_ascii_lowercase();
            if !locals.contains(&name) {
                return Err(SqlError::unsupported(
                    "a SET of procedure variables and other variables at once",
                ));
            }
            if !(c.punct(b'=') || (c.punct(b':') && c.punct(b'='))) {
                return Err(c.syntax());
            }
            let value = c
                .until(|c| is_semicolon(c) || c.toks[c.at].kind == Kind::Punct(b','))
                .to_string();
            pairs.push((name, value));
            if !c.punct(b',') {
                break;
            }
        }
        return Ok(Stmt::Set(pairs));
    }
    let sql = c.until(is_semicolon);
    if sql.is_empty() {
        return Err(c.syntax());
    }
    Ok(Stmt::Sql(sql.to_string()))
}

/// Parses a procedure's kept CREATE text again.
pub(crate) fn parse_procedure(text: &str) -> Result<Procedure> {
    match parse_statement(text) {
        Some((Ok(Statement::Create { procedure, .. }), _)) => Ok(procedure),
        Some((Err(e), _)) => Err(e),
        _ => Err(syntax_near(text)),
    }
}
