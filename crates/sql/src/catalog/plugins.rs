//! The server plugins Cairn has built in (what SHOW PLUGINS lists) and INSTALL/UNINSTALL
//! PLUGIN and SONAME, answered as MariaDB answers for a library it cannot load or a built-in
//! plugin: Cairn loads no plugin libraries.

use crate::foundation::error::SqlError;

/// The built-in plugins: (name, type). Tools and drivers' suites read them to choose how to
/// log in (PyMySQL's looks for unix_socket).
pub(crate) const BUILT_IN: &[(&str, &str)] = &[
    ("mysql_native_password", "AUTHENTICATION"),
    ("caching_sha2_password", "AUTHENTICATION"),
    (crate::catalog::users::UNIX_SOCKET, "AUTHENTICATION"),
    ("ndbcluster", "STORAGE ENGINE"),
];

/// The answer to `INSTALL ...` / `UNINSTALL ...` when `sql` is one (None otherwise): MariaDB's
/// 1126 for a library to load, 1619 for removing a built-in plugin, 1305 for an unknown one.
pub(crate) fn statement(sql: &str) -> Option<SqlError> {
    let mut words = Words(sql.trim().trim_end_matches(';').trim());
    let install = match words.next()?.to_ascii_uppercase().as_str() {
        "INSTALL" => true,
        "UNINSTALL" => false,
        _ => return None,
    };
    let syntax = || SqlError::parse(format!("near '{}'", sql.trim()));
    let what = words.next().map(|w| w.to_ascii_uppercase());
    Some(match (install, what.as_deref()) {
        (true, Some("PLUGIN")) => {
            let (Some(_name), Some(soname), Some(library), None) =
                (words.next(), words.next(), words.next(), words.next())
            else {
                return Some(syntax());
            };
            if !soname.eq_ignore_ascii_case("SONAME") {
                return Some(syntax());
            }
            match unquoted(library) {
                Some(library) => cannot_load(&library),
                None => syntax(),
            }
        }
        (true, Some("SONAME")) => match (words.next().and_then(unquoted), words.next()) {
            (Some(library), None) => cannot_load(&with_so(&library)),
            _ => syntax(),
        },
        (false, Some("PLUGIN")) => match (words.next(), words.next()) {
            (Some(name), None) => {
                let name = unquoted(name).unwrap_or_else(|| name.to_string());
                if BUILT_IN.iter().any(|(n, _)| n.eq_ignore_ascii_case(&name)) {
                    SqlError::new(1619, "HY000", "Built-in plugins cannot be deleted")
                } else {
                    SqlError::new(1305, "42000", format!("PLUGIN {name} does not exist"))
                }
            }
            _ => syntax(),
        },
        (false, Some("SONAME")) => match (words.next().and_then(unquoted), words.next()) {
            (Some(library), None) => SqlError::new(
                1305,
                "42000",
                format!("SONAME {} does not exist", with_so(&library)),
            ),
            _ => syntax(),
        },
        _ => syntax(),
    })
}

fn cannot_load(library: &str) -> SqlError {
    SqlError::new(
        1126,
        "HY000",
        format!(
            "Can't open shared library '{library}' (errno: 2, Cairn loads no plugin libraries: its plugins are built in)"
        ),
    )
}

/// A library name as MariaDB completes it.
fn with_so(library: &str) -> String {
    if library.ends_with(".so") {
        library.to_string()
    } else {
        format!("{library}.so")
    }
}

/// A quoted word's text (None when it is not quoted).
fn unquoted(word: &str) -> Option<String> {
    let quote = word.chars().next().filter(|c| matches!(c, '\'' | '"'))?;
    let inner = word.strip_prefix(quote)?.strip_suffix(quote)?;
    Some(inner.to_string())
}

/// The statement's words: runs of non-space characters, a quoted string kept whole.
struct Words<'a>(&'a str);

impl<'a> Iterator for Words<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let rest = self.0.trim_start();
        if rest.is_empty() {
            return None;
        }
        let end = match rest.chars().next() {
            Some(q @ ('\'' | '"')) => rest[1..].find(q).map_or(rest.len(), |i| i + 2),
            _ => rest.find(char::is_whitespace).unwrap_or(rest.len()),
        };
        let (word, after) = rest.split_at(end);
        self.0 = after;
        Some(word)
    }
}

#[cfg(test)]
mod tests {
    use super::statement;

    #[test]
    fn plugin_statements_answer_as_mariadb_does_without_a_library() {
        let code = |sql: &str| statement(sql).map(|e| e.code);
        assert_eq!(
            code("INSTALL PLUGIN auth_socket SONAME 'auth_socket.so'"),
            Some(1126)
        );
        assert_eq!(code("install soname 'auth_socket'"), Some(1126));
        assert!(statement("INSTALL SONAME 'x'")
            .unwrap()
            .message
            .contains("'x.so'"));
        assert_eq!(code("UNINSTALL PLUGIN unix_socket"), Some(1619));
        assert_eq!(code("UNINSTALL PLUGIN nosuch"), Some(1305));
        assert_eq!(code("UNINSTALL SONAME 'nosuch'"), Some(1305));
        assert_eq!(code("INSTALL PLUGIN x"), Some(1064));
        assert_eq!(code("SELECT 1"), None);
    }
}
