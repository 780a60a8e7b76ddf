//! Account statements, which sqlparser does not read as MySQL writes them (`'u'@'h'` names,
//! IDENTIFIED clauses): CREATE/ALTER/DROP/RENAME USER, SET PASSWORD, GRANT and REVOKE of
//! privileges on everything (`ON *.*`), on a database or database pattern (`ON db.*`) and on a
//! table (`ON db.t`), and SHOW GRANTS. Each is recognised here on its own small lexer
//! before the text reaches sqlparser, checked against the session's privileges, and applied to
//! the accounts table (`catalog/users.rs`). Errors and notes are MariaDB 10.11's. The lexer and cursor
//! serve the other statements read before sqlparser too (SHOW CREATE DATABASE, ALTER DATABASE).

use crate::catalog::privilege::{self, Privileges, GRANT_OPTION};
use crate::catalog::users::{self, Account, Grant, Plugin};
use crate::foundation::error::Result;
use crate::foundation::error::SqlError;
use crate::session::{done, Outcome, Session};

/// Words of an account statement at most (a bound on what the lexer keeps).
const TOKENS_MAX: usize = 4_096;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Token {
    Word(String),
    /// A quoted string or identifier (its quote character).
    Quoted(String, char),
    Punct(char),
}

/// The text's tokens up to the first `;` outside quotes, and the text after it; None when the
/// text does not lex (then it is left to sqlparser, which reports the error).
pub(crate) fn lex(sql: &str) -> Option<(Vec<Token>, &str)> {
    lex_ends(sql).map(|(tokens, _, rest)| (tokens, rest))
}

/// `lex`, with the byte each token ends at (to take the raw text after one).
pub(crate) fn lex_ends(sql: &str) -> Option<(Vec<Token>, Vec<usize>, &str)> {
    let bytes = sql.as_bytes();
    let mut tokens = Vec::new();
    let mut ends = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if tokens.len() > TOKENS_MAX {
            return None;
        }
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if (c == b'-' && bytes.get(i + 1) == Some(&b'-')) || c == b'#' {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && bytes.get(i + 1) == Some(&b'*') {
            let end = sql.get(i + 2..)?.find("*/")?;
            i += end + 4;
        } else if c == b';' {
            return Some((tokens, ends, &sql[i + 1..]));
        } else if matches!(c, b'\'' | b'"' | b'`') {
            let mut text = Vec::new();
            i += 1;
            loop {
                let b = *bytes.get(i)?;
                if b == c {
                    if bytes.get(i + 1) == Some(&c) {
                        text.push(c);
                        i += 2;
                        continue;
                    }
                    i += 1;
                    break;
                }
                if b == b'\\' && c != b'`' {
                    let next = *bytes.get(i + 1)?;
                    if matches!(next, b'_' | b'%') {
                        // MySQL keeps `\_` and `\%` as written: LIKE reads them.
                        text.push(b);
                    }
                    text.push(match next {
                        b'n' => b'\n',
                        b't' => b'\t',
                        b'r' => b'\r',
                        b'b' => 8,
                        b'Z' => 26,
                        b'0' => 0,
                        other => other,
                    });
                    i += 2;
                    continue;
                }
                text.push(b);
                i += 1;
            }
            tokens.push(Token::Quoted(String::from_utf8(text).ok()?, char::from(c)));
            ends.push(i);
        } else if c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'%') || c >= 0x80 {
            let start = i;
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric()
                    || matches!(bytes[i], b'_' | b'$' | b'%' | b'.')
                    || bytes[i] >= 0x80)
            {
                i += 1;
            }
            tokens.push(Token::Word(sql.get(start..i)?.to_string()));
            ends.push(i);
        } else {
            tokens.push(Token::Punct(char::from(c)));
            i += 1;
            ends.push(i);
        }
    }
    Some((tokens, ends, ""))
}

/// A cursor over a statement's tokens.
pub(crate) struct Cursor {
    tokens: Vec<Token>,
    at: usize,
}

impl Cursor {
    pub(crate) fn new(tokens: Vec<Token>) -> Cursor {
        Cursor { tokens, at: 0 }
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    pub(crate) fn word(&mut self, w: &str) -> bool {
        match self.peek() {
            Some(Token::Word(x)) if x.eq_ignore_ascii_case(w) => {
                self.at += 1;
                true
            }
            _ => false,
        }
    }

    pub(crate) fn words(&mut self, ws: &[&str]) -> bool {
        let at = self.at;
        if ws.iter().all(|w| self.word(w)) {
            return true;
        }
        self.at = at;
        false
    }

    /// Whether the next token is the word `w` (not taking it).
    pub(crate) fn at_word(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Token::Word(x)) if x.eq_ignore_ascii_case(w))
    }

    pub(crate) fn punct(&mut self, p: char) -> bool {
        if self.peek() == Some(&Token::Punct(p)) {
            self.at += 1;
            return true;
        }
        false
    }

    /// Which token the cursor is at (an index into `lex_ends`'s ends).
    pub(crate) fn index(&self) -> usize {
        self.at
    }

    pub(crate) fn done(&self) -> bool {
        self.at >= self.tokens.len()
    }

    /// A name or host: a quoted string or identifier, or a bare word.
    pub(crate) fn name(&mut self) -> Result<String> {
        match self.tokens.get(self.at).cloned() {
            Some(Token::Word(w)) | Some(Token::Quoted(w, _)) => {
                self.at += 1;
                Ok(w)
            }
            _ => Err(self.syntax()),
        }
    }

    /// An identifier: a bare word or a backquoted name.
    pub(crate) fn identifier(&mut self) -> Option<String> {
        match self.tokens.get(self.at).cloned() {
            Some(Token::Word(w)) | Some(Token::Quoted(w, '`')) => {
                self.at += 1;
                Some(w)
            }
            _ => None,
        }
    }

    /// A string literal ('...' or "..."), if one is next.
    pub(crate) fn quoted(&mut self) -> Option<String> {
        self.string().ok()
    }

    /// Steps over the next token.
    pub(crate) fn skip(&mut self) {
        self.at = (self.at + 1).min(self.tokens.len());
    }

    /// A string literal ('...' or "...").
    fn string(&mut self) -> Result<String> {
        match self.tokens.get(self.at).cloned() {
            Some(Token::Quoted(s, '\'' | '"')) => {
                self.at += 1;
                Ok(s)
            }
            _ => Err(self.syntax()),
        }
    }

    pub(crate) fn syntax(&self) -> SqlError {
        let near = self
            .tokens
            .get(self.at)
            .map(|t| match t {
                Token::Word(w) => w.clone(),
                Token::Quoted(s, q) => format!("{q}{s}{q}"),
                Token::Punct(p) => p.to_string(),
            })
            .unwrap_or_default();
        SqlError::new(
            1064,
            "42000",
            format!("You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '{near}'"),
        )
    }
}

/// Who a statement names: an account, or the session's own (CURRENT_USER).
#[derive(Debug, Clone, PartialEq)]
enum Who {
    Named(String, String),
    Current,
}

/// How a statement sets a password.
#[derive(Debug, Clone, PartialEq)]
enum Password {
    /// Cleartext, hashed with the plugin.
    Clear(Plugin, String),
    /// A stored form given as is (`AS 'hash'`, `BY PASSWORD 'hash'`).
    Stored(Plugin, String),
}

#[derive(Debug, Clone, PartialEq)]
struct Spec {
    who: Who,
    password: Option<Password>,
}

#[derive(Debug, Clone, PartialEq)]
enum AccountStatement {
    CreateUser {
        if_not_exists: bool,
        specs: Vec<Spec>,
    },
    AlterUser {
        if_exists: bool,
        specs: Vec<Spec>,
    },
    DropUser {
        if_exists: bool,
        users: Vec<Who>,
    },
    /// Pairs of (from, to), renamed in order.
    RenameUser(Vec<(Who, Who)>),
    SetPassword {
        who: Who,
        password: Password,
    },
    Grant {
        privileges: Privileges,
        target: Target,
        specs: Vec<Spec>,
    },
    /// No target: every privilege at every level (`REVOKE ALL PRIVILEGES, GRANT OPTION`).
    Revoke {
        privileges: Privileges,
        target: Option<Target>,
        users: Vec<Who>,
    },
    ShowGrants(Who),
}

/// What GRANT and REVOKE apply to.
#[derive(Debug, Clone, PartialEq)]
enum Target {
    /// `*.*`.
    Global,
    /// `db.*` (a name or a pattern with `%` and `_`), or `*`: the current database (None).
    Database(Option<String>),
    /// `db.t`, or `t` in the current database (None).
    Table(Option<String>, String),
    /// `PROCEDURE db.p` or `FUNCTION db.f`: Cairn has no stored routines, so none exists.
    Routine(Option<String>, String),
}

/// ER_ILLEGAL_GRANT_FOR_TABLE's text.
const ILLEGAL_GRANT: &str =
    "Illegal GRANT/REVOKE command; please consult the manual to see which privileges can be used";

fn who(c: &mut Cursor) -> Result<Who> {
    if c.word("CURRENT_USER") {
        if c.punct('(') && !c.punct(')') {
            return Err(c.syntax());
        }
        return Ok(Who::Current);
    }
    let user = c.name()?;
    // `u@host` lexes as one word.
    if let Some((u, h)) = user.split_once('@') {
        if !h.is_empty() {
            return Ok(Who::Named(u.to_string(), h.to_string()));
        }
        return Ok(Who::Named(u.to_string(), c.name()?));
    }
    if c.punct('@') {
        return Ok(Who::Named(user, c.name()?));
    }
    Ok(Who::Named(user, "%".into()))
}

fn plugin(name: &str) -> Result<Plugin> {
    Plugin::by_name(name)
        .ok_or_else(|| SqlError::new(1524, "HY000", format!("Plugin '{name}' is not loaded")))
}

fn spec(c: &mut Cursor) -> Result<Spec> {
    let who = who(c)?;
    let password = if c.word("IDENTIFIED") {
        if c.word("BY") {
            if c.word("PASSWORD") {
                Some(Password::Stored(Plugin::Native, c.string()?))
            } else {
                Some(Password::Clear(Plugin::Native, c.string()?))
            }
        } else if c.word("WITH") || c.word("VIA") {
            let p = plugin(&c.name()?)?;
            if c.word("BY") {
                Some(Password::Clear(p, c.string()?))
            } else if c.word("AS") || c.word("USING") {
                if c.word("PASSWORD") {
                    if !c.punct('(') {
                        return Err(c.syntax());
                    }
                    let pw = c.string()?;
                    if !c.punct(')') {
                        return Err(c.syntax());
                    }
                    Some(Password::Clear(p, pw))
                } else {
                    Some(Password::Stored(p, c.string()?))
                }
            } else {
                Some(Password::Stored(p, String::new()))
            }
        } else {
            return Err(c.syntax());
        }
    } else {
        None
    };
    Ok(Spec { who, password })
}

/// CREATE and ALTER USER's options that ask for what Cairn's accounts are anyway: a password
/// that never expires (`PASSWORD EXPIRE NEVER` or `DEFAULT`, MySQL 8's test setups write it) and
/// an unlocked account (`ACCOUNT UNLOCK`). Others (an expiry, a lock, TLS requirements,
/// resource limits) are refused naming them, never ignored.
fn account_options(c: &mut Cursor) -> Result<()> {
    loop {
        if c.words(&["PASSWORD", "EXPIRE", "NEVER"])
            || c.words(&["PASSWORD", "EXPIRE", "DEFAULT"])
            || c.words(&["ACCOUNT", "UNLOCK"])
        {
            continue;
        }
        if c.word("PASSWORD") || c.word("ACCOUNT") || c.word("REQUIRE") || c.word("WITH") {
            return Err(SqlError::unsupported(
                "account options other than PASSWORD EXPIRE NEVER and ACCOUNT UNLOCK",
            ));
        }
        return Ok(());
    }
}

fn list<T>(c: &mut Cursor, item: impl Fn(&mut Cursor) -> Result<T>) -> Result<Vec<T>> {
    let mut items = vec![item(c)?];
    while c.punct(',') {
        items.push(item(c)?);
    }
    Ok(items)
}

/// A GRANT or REVOKE privilege list up to ON (or FROM, for REVOKE ALL ..., GRANT OPTION).
fn privileges(c: &mut Cursor) -> Result<Privileges> {
    let mut bits = 0;
    loop {
        if c.word("ALL") {
            c.word("PRIVILEGES");
            bits |= privilege::ALL;
        } else if c.words(&["GRANT", "OPTION"]) {
            bits |= GRANT_OPTION;
        } else if c.word("USAGE") {
        } else {
            let mut name = Vec::new();
            while let Some(Token::Word(w)) = c.peek() {
                if w.eq_ignore_ascii_case("ON") || w.eq_ignore_ascii_case("FROM") {
                    break;
                }
                name.push(w.to_ascii_uppercase());
                c.at += 1;
            }
            if name.is_empty() {
                return Err(c.syntax());
            }
            if c.peek() == Some(&Token::Punct('(')) {
                return Err(SqlError::unsupported(
                    "column privileges (grant on the table instead)",
                ));
            }
            match privilege::by_name(&name.join(" ")) {
                Some(p) => bits |= p,
                None => return Err(c.syntax()),
            }
        }
        if !c.punct(',') {
            return Ok(bits);
        }
    }
}

/// The object of GRANT/REVOKE ... ON, up to TO or FROM.
fn target(c: &mut Cursor) -> Result<Target> {
    #[derive(PartialEq)]
    enum Part {
        Name(String),
        Dot,
        Star,
    }
    let routine = c.word("PROCEDURE") || c.word("FUNCTION");
    if !routine {
        c.word("TABLE");
    }
    let mut parts = Vec::new();
    while let Some(t) = c.peek() {
        match t {
            Token::Word(w) if w.eq_ignore_ascii_case("TO") || w.eq_ignore_ascii_case("FROM") => {
                break
            }
            // `db.t` and `db.` lex as one word.
            Token::Word(w) => {
                for (n, piece) in w.split('.').enumerate() {
                    if n > 0 {
                        parts.push(Part::Dot);
                    }
                    if !piece.is_empty() {
                        parts.push(Part::Name(piece.to_string()));
                    }
                }
            }
            Token::Quoted(s, '`') => parts.push(Part::Name(s.clone())),
            Token::Punct('.') => parts.push(Part::Dot),
            Token::Punct('*') => parts.push(Part::Star),
            _ => return Err(c.syntax()),
        }
        c.at += 1;
    }
    use Part::{Dot, Name, Star};
    if routine {
        return match parts.as_mut_slice() {
            [Name(name)] => Ok(Target::Routine(None, std::mem::take(name))),
            [Name(db), Dot, Name(name)] => Ok(Target::Routine(
                Some(std::mem::take(db)),
                std::mem::take(name),
            )),
            _ => Err(SqlError::new(1144, "42000", ILLEGAL_GRANT)),
        };
    }
    match parts.as_mut_slice() {
        [Star, Dot, Star] => Ok(Target::Global),
        [Star] => Ok(Target::Database(None)),
        [Name(db), Dot, Star] => Ok(Target::Database(Some(std::mem::take(db)))),
        [Name(table)] => Ok(Target::Table(None, std::mem::take(table))),
        [Name(db), Dot, Name(table)] => Ok(Target::Table(
            Some(std::mem::take(db)),
            std::mem::take(table),
        )),
        _ => Err(c.syntax()),
    }
}

/// Parses an account statement; None when the text is no account statement.
fn parse(sql: &str) -> Option<(Result<AccountStatement>, &str)> {
    let head: Vec<String> = sql
        .split_whitespace()
        .take(2)
        .map(|w| w.to_ascii_uppercase())
        .collect();
    let head: Vec<&str> = head.iter().map(|s| s.trim_end_matches(';')).collect();
    let ours = matches!(
        head.as_slice(),
        ["CREATE" | "ALTER" | "DROP" | "RENAME", "USER"]
            | ["SET", "PASSWORD"]
            | ["SHOW", "GRANTS"]
            | ["GRANT", _]
            | ["REVOKE", _]
    ) || (head.first() == Some(&"SET")
        && head.get(1).is_some_and(|w| w.starts_with("PASSWORD")));
    if !ours {
        return None;
    }
    let (tokens, rest) = lex(sql)?;
    let mut c = Cursor::new(tokens);
    let statement = statement(&mut c).and_then(|s| if c.done() { Ok(s) } else { Err(c.syntax()) });
    Some((statement, rest))
}

fn statement(c: &mut Cursor) -> Result<AccountStatement> {
    if c.words(&["CREATE", "USER"]) {
        let if_not_exists = c.words(&["IF", "NOT", "EXISTS"]);
        let specs = list(c, spec)?;
        account_options(c)?;
        return Ok(AccountStatement::CreateUser {
            if_not_exists,
            specs,
        });
    }
    if c.words(&["ALTER", "USER"]) {
        let if_exists = c.words(&["IF", "EXISTS"]);
        let specs = list(c, spec)?;
        account_options(c)?;
        return Ok(AccountStatement::AlterUser { if_exists, specs });
    }
    if c.words(&["DROP", "USER"]) {
        let if_exists = c.words(&["IF", "EXISTS"]);
        let users = list(c, who)?;
        return Ok(AccountStatement::DropUser { if_exists, users });
    }
    if c.words(&["RENAME", "USER"]) {
        let pairs = list(c, |c| {
            let from = who(c)?;
            if !c.word("TO") {
                return Err(c.syntax());
            }
            Ok((from, who(c)?))
        })?;
        return Ok(AccountStatement::RenameUser(pairs));
    }
    if c.words(&["SET", "PASSWORD"]) {
        let target = if c.word("FOR") { who(c)? } else { Who::Current };
        if !c.punct('=') {
            return Err(c.syntax());
        }
        let password = if c.word("PASSWORD") {
            if !c.punct('(') {
                return Err(c.syntax());
            }
            let pw = c.string()?;
            if !c.punct(')') {
                return Err(c.syntax());
            }
            Password::Clear(Plugin::Native, pw)
        } else {
            Password::Stored(Plugin::Native, c.string()?)
        };
        return Ok(AccountStatement::SetPassword {
            who: target,
            password,
        });
    }
    if c.words(&["SHOW", "GRANTS"]) {
        let target = if c.word("FOR") { who(c)? } else { Who::Current };
        return Ok(AccountStatement::ShowGrants(target));
    }
    if c.word("GRANT") {
        let mut privileges = privileges(c)?;
        if !c.word("ON") {
            return Err(c.syntax());
        }
        let target = target(c)?;
        if !c.word("TO") {
            return Err(c.syntax());
        }
        let specs = list(c, spec)?;
        if c.word("WITH") {
            if c.words(&["GRANT", "OPTION"]) {
                privileges |= GRANT_OPTION;
            } else {
                return Err(SqlError::unsupported(
                    "GRANT ... WITH resource limits (only WITH GRANT OPTION)",
                ));
            }
        }
        if c.word("REQUIRE") {
            return Err(SqlError::unsupported("GRANT ... REQUIRE"));
        }
        return Ok(AccountStatement::Grant {
            privileges,
            target,
            specs,
        });
    }
    if c.word("REVOKE") {
        let privileges = privileges(c)?;
        // Only `REVOKE ALL PRIVILEGES, GRANT OPTION FROM ...` goes without ON: it takes every
        // grant, at every level (no target).
        let target = if c.word("ON") {
            Some(target(c)?)
        } else if privileges & privilege::ALL != privilege::ALL || privileges & GRANT_OPTION == 0 {
            return Err(c.syntax());
        } else {
            None
        };
        if !c.word("FROM") {
            return Err(c.syntax());
        }
        let users = list(c, who)?;
        return Ok(AccountStatement::Revoke {
            privileges,
            target,
            users,
        });
    }
    Err(c.syntax())
}

/// `'u'@'h'` as MariaDB's messages name an account.
fn quoted(user: &str, host: &str) -> String {
    format!("'{user}'@'{host}'")
}

impl Session {
    /// Runs `sql` when it begins with an account statement: its outcome and the text after
    /// it (the rest of a multi-statement query); None for any other statement.
    pub(crate) fn run_account_statement<'a>(&mut self, sql: &'a str) -> Option<(Outcome, &'a str)> {
        let (statement, rest) = parse(sql)?;
        self.begin_statement(crate::exec::diagnostics::Kind::Other { tables: true });
        // Like DDL, an account statement (but SHOW GRANTS) commits the transaction in
        // progress first.
        let outcome = statement
            .and_then(|s| {
                if !matches!(s, AccountStatement::ShowGrants(_)) {
                    self.end_transaction(true)?;
                }
                self.account_statement(s)
            })
            .unwrap_or_else(Outcome::Failed);
        if !matches!(outcome, Outcome::Failed(_)) {
            // Every session reads its grants again before its next statement.
            self.shared
                .grants_epoch
                .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        }
        Some((outcome, rest))
    }

    fn named(&self, who: &Who) -> (String, String) {
        match who {
            Who::Named(u, h) => (u.clone(), h.to_ascii_lowercase()),
            Who::Current => (self.user.clone(), self.account_host.clone()),
        }
    }

    fn is_self(&self, who: &Who) -> bool {
        let (u, h) = self.named(who);
        u == self.user && h == self.account_host
    }

    /// The stored form and plugin a password clause sets; 1372 or 1827 for a bad hash.
    fn stored(password: &Password) -> Result<(Plugin, String)> {
        match password {
            Password::Clear(p, pw) => Ok((*p, p.stored(pw.as_bytes())?)),
            Password::Stored(p, hash) => {
                // SET PASSWORD = 'hash' takes either plugin's form.
                let plugin = if *p == Plugin::Native && auth_is_sha2(hash) {
                    Plugin::CachingSha2
                } else {
                    *p
                };
                if plugin.valid_stored(hash) {
                    Ok((plugin, hash.clone()))
                } else if plugin == Plugin::Native {
                    Err(SqlError::new(
                        1372,
                        "HY000",
                        "Password hash should be a 41-digit hexadecimal number",
                    ))
                } else {
                    Err(SqlError::new(
                        1827,
                        "HY000",
                        "The password hash doesn't have the expected format.",
                    ))
                }
            }
        }
    }

    /// Puts the fast-path digest of a cleartext caching_sha2 password in this node's cache.
    fn remember(&self, account: &Account, password: &Password) {
        if let Password::Clear(Plugin::CachingSha2, pw) = password {
            self.shared.sha2_cache.put(account, pw.as_bytes());
        }
    }

    fn account_statement(&mut self, s: AccountStatement) -> Result<Outcome> {
        let cluster = self.shared.cluster().clone();
        match s {
            AccountStatement::CreateUser {
                if_not_exists,
                specs,
            } => {
                self.need_global(privilege::CREATE_USER, "CREATE USER")?;
                let mut failed = Vec::new();
                for spec in &specs {
                    let (user, host) = self.named(&spec.who);
                    let mut account = Account::new(&user, &host);
                    if let Some(p) = &spec.password {
                        (account.plugin, account.auth) = Self::stored(p)?;
                    }
                    if users::insert(&cluster, &account)? {
                        if let Some(p) = &spec.password {
                            self.remember(&account, p);
                        }
                    } else if if_not_exists {
                        self.note(
                            1973,
                            format!(
                                "Can't create user {}; it already exists",
                                quoted(&user, &host)
                            ),
                        );
                    } else {
                        failed.push(quoted(&user, &host));
                    }
                }
                operation_failed("CREATE USER", &failed)
            }
            AccountStatement::AlterUser { if_exists, specs } => {
                let mut failed = Vec::new();
                for spec in &specs {
                    if !self.is_self(&spec.who) {
                        self.need_global(privilege::CREATE_USER, "CREATE USER")?;
                    }
                    let (user, host) = self.named(&spec.who);
                    let Some(mut account) = users::find(&cluster, &user, &host)? else {
                        if if_exists {
                            self.note(
                                1974,
                                format!(
                                    "Can't drop user {}; it doesn't exist",
                                    quoted(&user, &host)
                                ),
                            );
                        } else {
                            failed.push(quoted(&user, &host));
                        }
                        continue;
                    };
                    if let Some(p) = &spec.password {
                        (account.plugin, account.auth) = Self::stored(p)?;
                        users::update(&cluster, &account)?;
                        self.remember(&account, p);
                    }
                }
                operation_failed("ALTER USER", &failed)
            }
            AccountStatement::DropUser { if_exists, users } => {
                self.need_global(privilege::CREATE_USER, "CREATE USER")?;
                let mut failed = Vec::new();
                for who in &users {
                    let (user, host) = self.named(who);
                    if users::delete(&cluster, &user, &host)? {
                        users::drop_grants(&cluster, &user, &host)?;
                        continue;
                    }
                    if if_exists {
                        self.note(
                            1974,
                            format!("Can't drop user {}; it doesn't exist", quoted(&user, &host)),
                        );
                    } else {
                        failed.push(quoted(&user, &host));
                    }
                }
                operation_failed("DROP USER", &failed)
            }
            AccountStatement::RenameUser(pairs) => {
                self.need_global(privilege::CREATE_USER, "CREATE USER")?;
                // Each pair in turn, as MariaDB: a pair that fails (no such account, or the new
                // name taken) is named in the error, and the pairs before it stay renamed.
                let mut failed = Vec::new();
                for (from, to) in &pairs {
                    let (user, host) = self.named(from);
                    let (new_user, new_host) = self.named(to);
                    let Some(mut account) = users::find(&cluster, &user, &host)? else {
                        failed.push(quoted(&user, &host));
                        continue;
                    };
                    account.user = new_user;
                    account.host = new_host;
                    if !users::insert(&cluster, &account)? {
                        failed.push(quoted(&user, &host));
                        continue;
                    }
                    users::delete(&cluster, &user, &host)?;
                    users::rename_grants(&cluster, (&user, &host), (&account.user, &account.host))?;
                }
                operation_failed("RENAME USER", &failed)
            }
            AccountStatement::SetPassword { who, password } => {
                // Another account's password: CREATE USER, not MariaDB's UPDATE on `mysql`,
                // since Cairn's grants are global and UPDATE would cover every account.
                if !self.is_self(&who) && !self.holds(privilege::CREATE_USER) {
                    return Err(privilege::database_denied(&self.user, &self.host, "mysql"));
                }
                let (user, host) = self.named(&who);
                let Some(mut account) = users::find(&cluster, &user, &host)? else {
                    return Err(SqlError::new(
                        1133,
                        "28000",
                        "Can't find any matching row in the user table",
                    ));
                };
                let password = match password {
                    // PASSWORD('x') hashes for the account's own plugin.
                    Password::Clear(_, pw) => Password::Clear(account.plugin, pw),
                    stored => stored,
                };
                (account.plugin, account.auth) = Self::stored(&password)?;
                users::update(&cluster, &account)?;
                self.remember(&account, &password);
                Ok(done(0))
            }
            AccountStatement::Grant {
                privileges,
                target,
                specs,
            } => {
                let scope = self.scope(target, privileges, None)?;
                let privileges = scope.privileges(privileges)?;
                self.may_grant(&scope, privileges)?;
                for spec in &specs {
                    let (user, host) = self.named(&spec.who);
                    let found = users::find(&cluster, &user, &host)?;
                    let mut account = match (found, &spec.password) {
                        (Some(a), None) => a,
                        // A new password for an existing account is ALTER USER's work.
                        (Some(a), Some(_)) => {
                            if !self.is_self(&spec.who) {
                                self.need_global(privilege::CREATE_USER, "CREATE USER")?;
                            }
                            a
                        }
                        (None, Some(_)) => {
                            self.need_global(privilege::CREATE_USER, "CREATE USER")?;
                            Account::new(&user, &host)
                        }
                        (None, None) => {
                            return Err(SqlError::new(
                                1133,
                                "28000",
                                "Can't find any matching row in the user table",
                            ))
                        }
                    };
                    if let Some(p) = &spec.password {
                        (account.plugin, account.auth) = Self::stored(p)?;
                    }
                    // The account's row changes with global privileges or a password (which a
                    // new account has).
                    let changed = match scope.object() {
                        None => {
                            account.privileges |= privileges;
                            true
                        }
                        Some(object) => {
                            let mut grant = grant_of(&cluster, &account, object)?;
                            grant.privileges |= privileges;
                            users::put_grants(&cluster, &[grant])?;
                            spec.password.is_some()
                        }
                    };
                    if changed && !users::update(&cluster, &account)? {
                        users::insert(&cluster, &account)?;
                    }
                    if let Some(p) = &spec.password {
                        self.remember(&account, p);
                    }
                }
                Ok(done(0))
            }
            AccountStatement::Revoke {
                privileges,
                target,
                users,
            } => {
                let Some(target) = target else {
                    // REVOKE ALL PRIVILEGES, GRANT OPTION: everything, at every level.
                    self.need_global(privilege::CREATE_USER, "CREATE USER")?;
                    for who in &users {
                        let (user, host) = self.named(who);
                        let Some(mut account) = users::find(&cluster, &user, &host)? else {
                            return Err(no_grant(&user, &host));
                        };
                        account.privileges = 0;
                        users::update(&cluster, &account)?;
                        users::drop_grants(&cluster, &user, &host)?;
                    }
                    return Ok(done(0));
                };
                let scope = self.scope(target, privileges, users.first())?;
                let privileges = scope.privileges(privileges)?;
                self.may_grant(&scope, privileges)?;
                for who in &users {
                    let (user, host) = self.named(who);
                    let Some(mut account) = users::find(&cluster, &user, &host)? else {
                        return Err(no_grant(&user, &host));
                    };
                    match scope.object() {
                        None => {
                            account.privileges &= !privileges;
                            users::update(&cluster, &account)?;
                        }
                        Some(object) => {
                            let mut grant = grant_of(&cluster, &account, object)?;
                            if grant.privileges == 0 {
                                return Err(if grant.table.is_empty() {
                                    no_grant(&user, &host)
                                } else {
                                    no_table_grant(&user, &host, &grant.table)
                                });
                            }
                            grant.privileges &= !privileges;
                            users::put_grants(&cluster, &[grant])?;
                        }
                    }
                }
                Ok(done(0))
            }
            AccountStatement::ShowGrants(who) => {
                // Another account's grants print its password hash: CREATE USER, not MariaDB's
                // SELECT on `mysql`, since Cairn's grants are global.
                if !self.is_self(&who) && !self.holds(privilege::CREATE_USER) {
                    return Err(privilege::database_denied(&self.user, &self.host, "mysql"));
                }
                let (user, host) = self.named(&who);
                let Some(account) = users::find(&cluster, &user, &host)? else {
                    return Err(no_grant(&user, &host));
                };
                let mut lines = vec![grant_text(&account)];
                for g in users::grants_of(&cluster, &user, &host)? {
                    lines.push(scoped_grant_text(&g));
                }
                Ok(crate::commands::ddl::one_column(
                    &format!("Grants for {user}@{host}"),
                    lines,
                ))
            }
        }
    }
}

/// A GRANT or REVOKE target with its database resolved.
#[derive(Debug, Clone, PartialEq)]
enum Scope {
    Global,
    Database(String),
    Table(String, String),
}

impl Scope {
    /// What ALL PRIVILEGES means at this level, and every privilege the level may hold.
    fn all(&self) -> Privileges {
        match self {
            Scope::Global => privilege::ALL,
            Scope::Database(_) => privilege::DATABASE_LEVEL,
            Scope::Table(..) => privilege::TABLE_LEVEL,
        }
    }

    /// A statement's privilege list at this level (ALL as the level's all); 1221 or 1144
    /// when it names one the level cannot hold.
    fn privileges(&self, named: Privileges) -> Result<Privileges> {
        let option = named & GRANT_OPTION;
        let named = named & privilege::ALL;
        let named = if named == privilege::ALL {
            self.all()
        } else {
            named
        };
        if named & !self.all() != 0 {
            return Err(match self {
                Scope::Table(..) => SqlError::new(1144, "42000", ILLEGAL_GRANT),
                _ => SqlError::new(
                    1221,
                    "HY000",
                    "Incorrect usage of DB GRANT and GLOBAL PRIVILEGES",
                ),
            });
        }
        Ok(named | option)
    }

    /// The (database, table) a grant below the global level names (table empty for a
    /// database); None for `*.*`.
    fn object(&self) -> Option<(&str, &str)> {
        match self {
            Scope::Global => None,
            Scope::Database(db) => Some((db, "")),
            Scope::Table(db, t) => Some((db, t)),
        }
    }
}

/// The account's grant on `(database, table)` (with no privileges when it has none).
fn grant_of(
    cluster: &client::Cluster,
    account: &Account,
    (database, table): (&str, &str),
) -> Result<Grant> {
    let held = users::grants_of(cluster, &account.user, &account.host)?
        .into_iter()
        .find(|g| g.database == database && g.table.eq_ignore_ascii_case(table));
    Ok(held.unwrap_or(Grant {
        user: account.user.clone(),
        host: account.host.clone(),
        database: database.into(),
        table: table.into(),
        privileges: 0,
    }))
}

impl Session {
    /// Resolves a target against the current database; 1046 without one. A table a GRANT
    /// names must exist (1146); information_schema takes no grants (1044).
    /// `revokes_from` is the first account a REVOKE names (None for GRANT).
    fn scope(
        &self,
        target: Target,
        privileges: Privileges,
        revokes_from: Option<&Who>,
    ) -> Result<Scope> {
        let granting = revokes_from.is_none();
        let current = || self.database.clone().ok_or_else(SqlError::no_database);
        let scope = match target {
            Target::Global => return Ok(Scope::Global),
            Target::Routine(db, name) => {
                let routine = privilege::EXECUTE | privilege::ALTER_ROUTINE | GRANT_OPTION;
                if privileges & !routine != 0 {
                    return Err(SqlError::new(1144, "42000", ILLEGAL_GRANT));
                }
                db.map_or_else(current, Ok)?;
                return Err(match revokes_from {
                    None => SqlError::new(
                        1305,
                        "42000",
                        format!("FUNCTION or PROCEDURE {name} does not exist"),
                    ),
                    Some(who) => {
                        let (user, host) = self.named(who);
                        SqlError::new(
                            1403,
                            "42000",
                            format!("There is no such grant defined for user '{user}' on host '{host}' on routine '{name}'"),
                        )
                    }
                });
            }
            Target::Database(db) => Scope::Database(db.map_or_else(current, Ok)?),
            Target::Table(db, table) => Scope::Table(db.map_or_else(current, Ok)?, table),
        };
        let (Scope::Database(db) | Scope::Table(db, _)) = &scope else {
            return Ok(scope);
        };
        if crate::catalog::infoschema::is_schema(db) {
            return Err(privilege::database_denied(&self.user, &self.host, db));
        }
        if let (Scope::Table(db, table), true) = (&scope, granting) {
            match self.shared.cluster().table(&format!("{db}/{table}")) {
                Ok(_) => {}
                Err(e) if e.code() == base::ErrorCode::NoSuchTable => {
                    return Err(SqlError::no_table(db, table))
                }
                Err(e) => return Err(SqlError::from_client(&e)),
            }
        }
        Ok(scope)
    }

    /// Fails unless the session may grant (or revoke) `privileges` at `scope`: it holds them
    /// and the grant option there (1045 globally, else 1044 or 1142 as MariaDB).
    fn may_grant(&self, scope: &Scope, privileges: Privileges) -> Result<()> {
        let needed = privileges | GRANT_OPTION;
        match scope {
            Scope::Global if self.holds(needed) => Ok(()),
            Scope::Global => Err(privilege::access_denied(
                &self.user,
                &self.host,
                self.with_password,
            )),
            Scope::Database(db) if self.on_database(db) & needed == needed => Ok(()),
            Scope::Database(db) => Err(privilege::database_denied(&self.user, &self.host, db)),
            Scope::Table(db, t) if self.on_table(db, t) & needed == needed => Ok(()),
            Scope::Table(db, t) => Err(privilege::table_denied(
                "GRANT", &self.user, &self.host, db, t,
            )),
        }
    }
}

fn auth_is_sha2(hash: &str) -> bool {
    hash.starts_with("$A$")
}

/// ER_NONEXISTING_GRANT.
fn no_grant(user: &str, host: &str) -> SqlError {
    SqlError::new(
        1141,
        "42000",
        format!("There is no such grant defined for user '{user}' on host '{host}'"),
    )
}

/// ER_NONEXISTING_TABLE_GRANT.
fn no_table_grant(user: &str, host: &str, table: &str) -> SqlError {
    SqlError::new(
        1147,
        "42000",
        format!(
            "There is no such grant defined for user '{user}' on host '{host}' on table '{table}'"
        ),
    )
}

/// ER_CANNOT_USER naming every account the statement failed for, or OK.
fn operation_failed(operation: &str, failed: &[String]) -> Result<Outcome> {
    if failed.is_empty() {
        return Ok(done(0));
    }
    Err(SqlError::new(
        1396,
        "HY000",
        format!("Operation {operation} failed for {}", failed.join(",")),
    ))
}

/// An account's SHOW GRANTS line, as MariaDB 10.11 prints it.
fn grant_text(a: &Account) -> String {
    let mut text = format!(
        "GRANT {} ON *.* TO `{}`@`{}`",
        privilege::grant_list(a.privileges),
        a.user.replace('`', "``"),
        a.host.replace('`', "``")
    );
    let quoted = |t: &str| t.replace('\\', "\\\\").replace('\'', "\\'");
    match (a.plugin, a.auth.is_empty()) {
        (Plugin::Native, true) => {}
        (Plugin::Native, false) => text.push_str(&format!(" IDENTIFIED BY PASSWORD '{}'", a.auth)),
        (plugin, true) => text.push_str(&format!(" IDENTIFIED VIA {}", plugin.name())),
        (plugin, false) => text.push_str(&format!(
            " IDENTIFIED VIA {} USING '{}'",
            plugin.name(),
            quoted(&a.auth)
        )),
    }
    if a.privileges & GRANT_OPTION != 0 {
        text.push_str(" WITH GRANT OPTION");
    }
    text
}

/// A database or table grant's SHOW GRANTS line, as MariaDB 10.11 prints it.
fn scoped_grant_text(g: &Grant) -> String {
    let tick = |s: &str| format!("`{}`", s.replace('`', "``"));
    let (object, all) = if g.table.is_empty() {
        (
            format!("{}.*", tick(&g.database)),
            privilege::DATABASE_LEVEL,
        )
    } else {
        (
            format!("{}.{}", tick(&g.database), tick(&g.table)),
            privilege::TABLE_LEVEL,
        )
    };
    let mut text = format!(
        "GRANT {} ON {object} TO {}@{}",
        privilege::grant_list_of(g.privileges, all),
        tick(&g.user),
        tick(&g.host)
    );
    if g.privileges & GRANT_OPTION != 0 {
        text.push_str(" WITH GRANT OPTION");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(sql: &str) -> AccountStatement {
        let (s, _) = parse(sql).expect("an account statement");
        s.unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    #[test]
    fn names_parse_in_every_spelling() {
        for (sql, user, host) in [
            ("DROP USER 'u1'@'localhost'", "u1", "localhost"),
            ("DROP USER u1@localhost", "u1", "localhost"),
            ("DROP USER `u1`@`%`", "u1", "%"),
            ("DROP USER u1@'127.0.0.1'", "u1", "127.0.0.1"),
            ("DROP USER u1", "u1", "%"),
            ("drop user \"u1\"@\"h\";", "u1", "h"),
        ] {
            assert_eq!(
                parsed(sql),
                AccountStatement::DropUser {
                    if_exists: false,
                    users: vec![Who::Named(user.into(), host.into())]
                },
                "{sql}"
            );
        }
    }

    #[test]
    fn statements_parse() {
        assert_eq!(
            parsed("CREATE USER IF NOT EXISTS u IDENTIFIED WITH caching_sha2_password BY 'x'"),
            AccountStatement::CreateUser {
                if_not_exists: true,
                specs: vec![Spec {
                    who: Who::Named("u".into(), "%".into()),
                    password: Some(Password::Clear(Plugin::CachingSha2, "x".into()))
                }]
            }
        );
        assert_eq!(
            parsed("GRANT SELECT, insert, SHOW DATABASES ON *.* TO u WITH GRANT OPTION"),
            AccountStatement::Grant {
                privileges: privilege::SELECT
                    | privilege::INSERT
                    | privilege::by_name("SHOW DATABASES").unwrap()
                    | GRANT_OPTION,
                target: Target::Global,
                specs: vec![Spec {
                    who: Who::Named("u".into(), "%".into()),
                    password: None
                }]
            }
        );
        assert!(matches!(
            parsed("REVOKE ALL PRIVILEGES, GRANT OPTION FROM u"),
            AccountStatement::Revoke { .. }
        ));
        assert_eq!(
            parsed("SET PASSWORD = PASSWORD('p')"),
            AccountStatement::SetPassword {
                who: Who::Current,
                password: Password::Clear(Plugin::Native, "p".into())
            }
        );
        assert_eq!(
            parsed("SHOW GRANTS FOR CURRENT_USER()"),
            AccountStatement::ShowGrants(Who::Current)
        );
        let (s, rest) = parse("SHOW GRANTS; SELECT 1").unwrap();
        assert!(s.is_ok());
        assert_eq!(rest, " SELECT 1");
        assert!(parse("SELECT 1").is_none());
        assert!(parse("CREATE TABLE t (a int)").is_none());
    }

    #[test]
    fn grant_targets_parse_in_every_spelling() {
        let target = |sql: &str| match parsed(sql) {
            AccountStatement::Grant { target, .. } => target,
            other => panic!("{sql} parsed as {other:?}"),
        };
        let db = |d: &str| Target::Database(Some(d.into()));
        let table = |d: Option<&str>, t: &str| Target::Table(d.map(Into::into), t.into());
        assert_eq!(target("GRANT SELECT ON *.* TO u"), Target::Global);
        assert_eq!(target("GRANT SELECT ON * TO u"), Target::Database(None));
        assert_eq!(target("GRANT SELECT ON app.* TO u"), db("app"));
        assert_eq!(target("GRANT SELECT ON `app`.* TO u"), db("app"));
        assert_eq!(target("GRANT SELECT ON `a\\_%`.* TO u"), db("a\\_%"));
        assert_eq!(
            target("GRANT SELECT ON app.t TO u"),
            table(Some("app"), "t")
        );
        assert_eq!(
            target("GRANT SELECT ON TABLE `app`.`t 1` TO u"),
            table(Some("app"), "t 1")
        );
        assert_eq!(target("GRANT SELECT ON t TO u"), table(None, "t"));
        assert_eq!(
            target("GRANT EXECUTE ON PROCEDURE app.p TO u"),
            Target::Routine(Some("app".into()), "p".into())
        );
        assert!(matches!(
            parsed("REVOKE ALL PRIVILEGES, GRANT OPTION ON app.* FROM u"),
            AccountStatement::Revoke {
                target: Some(Target::Database(_)),
                ..
            }
        ));
    }

    #[test]
    fn rename_user_parses_pairs() {
        assert_eq!(
            parsed("RENAME USER a TO 'b'@'h', c@localhost TO d"),
            AccountStatement::RenameUser(vec![
                (
                    Who::Named("a".into(), "%".into()),
                    Who::Named("b".into(), "h".into())
                ),
                (
                    Who::Named("c".into(), "localhost".into()),
                    Who::Named("d".into(), "%".into())
                ),
            ])
        );
    }

    #[test]
    fn bad_statements_are_errors() {
        for (sql, code) in [
            ("GRANT FOO ON *.* TO u", 1064),
            ("GRANT SELECT (a) ON db.t TO u", 1235),
            ("GRANT SELECT ON 'db'.* TO u", 1064),
            ("GRANT SELECT ON db.*.* TO u", 1064),
            ("GRANT SELECT ON PROCEDURE db.* TO u", 1144),
            ("GRANT SELECT ON *.* TO u WITH MAX_QUERIES_PER_HOUR 1", 1235),
            ("CREATE USER u IDENTIFIED VIA ed25519", 1524),
            ("CREATE USER", 1064),
            ("CREATE USER 'u", 1064),
            ("REVOKE SELECT FROM u", 1064),
            ("RENAME USER a b", 1064),
            ("RENAME USER a TO", 1064),
        ] {
            match parse(sql) {
                Some((Err(e), _)) => assert_eq!(e.code, code, "{sql}: {e}"),
                // An unterminated quote does not lex: sqlparser reports it.
                None => assert_eq!(code, 1064, "{sql}"),
                Some((Ok(s), _)) => panic!("{sql} parsed as {s:?}"),
            }
        }
    }
}
