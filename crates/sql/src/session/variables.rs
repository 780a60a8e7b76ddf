//! The system variables Cairn knows, in one list: `SELECT @@name` and `SHOW VARIABLES` both
//! read it, so they cannot disagree. A value SET in the session overrides the server's for that
//! session. Booleans read as 1/0 and show as ON/OFF, as in MariaDB. Nothing here changes state.
//! Also the settings a session's variables make (its timeouts, time limits, sql_mode flags).

use base::Value;
use myproto::handshake::status;

use crate::foundation::charset::{default_collation, named, named_collation, Wire};
use crate::foundation::error::{Result, SqlError};
use crate::parse::starts_with_word;
use crate::session::Session;
use base::types::Charset;

/// How SHOW VARIABLES writes a value, and what type `SELECT @@name` announces.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shown {
    /// 1/0 read (an integer), ON/OFF shown.
    Bool,
    /// A number: an integer column, as MariaDB's (a client must not read '0' as a true string).
    Int,
    Plain,
}

struct Variable {
    name: &'static str,
    shown: Shown,
    value: fn(&Session) -> Value,
}

fn text(s: &str) -> Value {
    Value::Bytes(s.as_bytes().to_vec())
}

macro_rules! variables {
    ($($name:literal $shown:ident |$s:ident| $value:expr;)*) => {
        &[$(Variable {
            name: $name,
            shown: Shown::$shown,
            value: |$s: &Session| -> Value {
                let _ = $s;
                $value
            },
        }),*]
    };
}

/// Every variable, in name order.
const VARIABLES: &[Variable] = variables! {
    "autocommit" Bool |s| Value::Int((s.status_flags() & status::AUTOCOMMIT != 0) as i64);
    "cairn_aggregate_pushdown" Bool |s| Value::Int(1);
    "cairn_join_pushdown" Bool |s| Value::Int(1);
    "character_set_client" Plain |s| text(s.charsets.client.name());
    "character_set_connection" Plain |s| text(s.charsets.connection.name());
    "character_set_database" Plain |s| text(s.database_collation.charset().name());
    "character_set_results" Plain |s| s.charsets.results.map_or(Value::Null, |c| text(c.name()));
    "character_set_server" Plain |s| text("utf8mb4");
    "check_constraint_checks" Bool |s| Value::Int(1);
    "collation_connection" Plain |s| text(s.charsets.collation);
    "collation_database" Plain |s| text(s.database_collation.name());
    "collation_server" Plain |s| text("utf8mb4_general_ci");
    "connect_timeout" Int |s| Value::Int(crate::foundation::limits::CONNECT_TIMEOUT.as_secs() as i64);
    "default_storage_engine" Plain |s| text(crate::catalog::definition::ENGINE);
    "div_precision_increment" Int |s| Value::Int(4);
    "error_count" Int |s| Value::UInt(s.diagnostics.error_count() as u64);
    "explicit_defaults_for_timestamp" Bool |s| Value::Int(1);
    "foreign_key_checks" Bool |s| Value::Int(1);
    "group_concat_max_len" Int |s| Value::UInt(crate::foundation::limits::GROUP_CONCAT_MAX_LEN_DEFAULT as u64);
    "have_openssl" Plain |s| text("DISABLED");
    "have_ssl" Plain |s| text("DISABLED");
    "init_connect" Plain |s| text("");
    "interactive_timeout" Int |s| Value::Int(crate::foundation::limits::WAIT_TIMEOUT.as_secs() as i64);
    "license" Plain |s| text("Apache-2.0");
    // 2: names are kept as written and compared without regard to case, which is how the
    // catalog finds databases and tables (MariaDB on Linux says 0 and compares them exactly).
    "lower_case_table_names" Int |s| Value::Int(2);
    "max_allowed_packet" Int |s| Value::Int(s.shared.config.max_packet as i64);
    "max_connections" Int |s| Value::Int(s.shared.config.max_connections as i64);
    "max_error_count" Int |s| Value::Int(crate::exec::diagnostics::CONDITIONS_MAX as i64);
    "max_execution_time" Int |s| Value::Int(0);
    "max_prepared_stmt_count" Int |s| Value::Int(crate::session::PREPARED_MAX as i64);
    "max_recursive_iterations" Int |s| Value::Int(crate::plan::derived::RECURSION_STEPS_MAX as i64);
    "max_statement_time" Plain |s| text("0.000000");
    "net_buffer_length" Int |s| Value::Int(16_384);
    "net_read_timeout" Int |s| Value::Int(crate::foundation::limits::NET_READ_TIMEOUT.as_secs() as i64);
    "net_write_timeout" Int |s| Value::Int(crate::foundation::limits::NET_WRITE_TIMEOUT.as_secs() as i64);
    "performance_schema" Bool |s| Value::Int(0);
    "protocol_version" Int |s| Value::Int(10);
    "query_cache_size" Int |s| Value::Int(0);
    "query_cache_type" Int |s| Value::Int(0);
    "socket" Plain |s| s.shared.config.socket.as_ref().map_or(Value::Null, |p| text(&p.display().to_string()));
    "sql_auto_is_null" Bool |s| Value::Int(0);
    "sql_mode" Plain |s| text("STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION");
    "system_time_zone" Plain |s| text("SYSTEM");
    "time_zone" Plain |s| text("SYSTEM");
    "transaction_isolation" Plain |s| text("READ-COMMITTED");
    "transaction_read_only" Bool |s| Value::Int(s.session_read_only as i64);
    "tx_isolation" Plain |s| text("READ-COMMITTED");
    "tx_read_only" Bool |s| Value::Int(s.session_read_only as i64);
    "version" Plain |s| text(crate::foundation::limits::SERVER_VERSION);
    "version_comment" Plain |s| text("Cairn");
    "wait_timeout" Int |s| Value::Int(crate::foundation::limits::WAIT_TIMEOUT.as_secs() as i64);
    "warning_count" Int |s| Value::UInt(s.diagnostics.warning_count() as u64);
};

impl Session {
    /// Whether grouped SELECTs may have the data node fold their rows (pushed aggregation):
    /// cairn_aggregate_pushdown, ON unless the session SET it OFF (or 0).
    pub(crate) fn aggregate_pushdown(&self) -> bool {
        match self.vars.get("cairn_aggregate_pushdown") {
            None => true,
            Some(Value::Bytes(b)) => !(b.eq_ignore_ascii_case(b"OFF") || b == b"0"),
            Some(v) => crate::expr::truthy(v),
        }
    }

    /// Whether joins may have the data node read their first tables (pushed joins):
    /// cairn_join_pushdown, ON unless the session SET it OFF (or 0), as NDB's
    /// ndb_join_pushdown.
    pub(crate) fn join_pushdown(&self) -> bool {
        self.switch_on("cairn_join_pushdown")
    }

    /// Whether the session checks foreign keys: foreign_key_checks, ON unless the session SET
    /// it OFF (or 0), as a dump's loading does.
    pub(crate) fn foreign_key_checks(&self) -> bool {
        self.switch_on("foreign_key_checks")
    }

    /// Whether the session checks CHECK constraints: check_constraint_checks, as
    /// foreign_key_checks.
    pub(crate) fn check_constraint_checks(&self) -> bool {
        self.switch_on("check_constraint_checks")
    }

    /// A switch variable: ON unless the session SET it OFF (or 0).
    fn switch_on(&self, name: &str) -> bool {
        match self.vars.get(name) {
            None => true,
            Some(Value::Bytes(b)) => !(b.eq_ignore_ascii_case(b"OFF") || b == b"0"),
            Some(v) => crate::expr::truthy(v),
        }
    }

    /// The session's sql_mode holds NO_BACKSLASH_ESCAPES: a backslash in a string literal is
    /// an ordinary character.
    pub(crate) fn no_backslash_escapes(&self) -> bool {
        self.vars.get("sql_mode").is_some_and(|v| match v {
            Value::Bytes(b) => b
                .split(|c| *c == b',')
                .any(|m| m.trim_ascii().eq_ignore_ascii_case(b"NO_BACKSLASH_ESCAPES")),
            _ => false,
        })
    }

    /// How long the connection may sit idle between commands before it is closed: the
    /// session's wait_timeout (MariaDB's), 1 s to a year.
    pub(crate) fn wait_timeout(&self) -> std::time::Duration {
        self.seconds_variable("wait_timeout", crate::foundation::limits::WAIT_TIMEOUT)
    }

    /// How long the client may take to send the rest of a command it began: the session's
    /// net_read_timeout (MariaDB's, 30 s by default).
    pub(crate) fn net_read_timeout(&self) -> std::time::Duration {
        self.seconds_variable(
            "net_read_timeout",
            crate::foundation::limits::NET_READ_TIMEOUT,
        )
    }

    /// How long a write of the session's answers may wait for the client to take them: the
    /// session's net_write_timeout (MariaDB's, 60 s by default).
    pub(crate) fn net_write_timeout(&self) -> std::time::Duration {
        self.seconds_variable(
            "net_write_timeout",
            crate::foundation::limits::NET_WRITE_TIMEOUT,
        )
    }

    /// The time the command `cmd` (with `body`) may run and the error past it: MariaDB's
    /// max_statement_time (seconds, every statement; 1969), else for a SELECT sent as text
    /// MySQL's `/*+ MAX_EXECUTION_TIME(ms) */` hint or max_execution_time (ms; 3024). None: no
    /// limit (0, the default).
    pub(crate) fn statement_time_limit(
        &self,
        cmd: u8,
        body: &[u8],
    ) -> Option<(std::time::Duration, SqlError)> {
        use std::time::Duration;
        let seconds = self
            .vars
            .get("max_statement_time")
            .map_or(0.0, crate::expr::as_double);
        if seconds > 0.0 {
            return Some((
                Duration::from_secs_f64(seconds.min(365.0 * 24.0 * 3600.0)),
                SqlError::new(
                    1969,
                    "70100",
                    "Query execution was interrupted (max_statement_time exceeded)",
                ),
            ));
        }
        if cmd != myproto::command::QUERY {
            return None;
        }
        let text = String::from_utf8_lossy(&body[..body.len().min(256)]);
        if !starts_with_word(&text, "select") {
            return None;
        }
        let hinted = text.find("/*+").and_then(|at| {
            let hint = &text[at..];
            let hint = &hint[..hint.find("*/")?];
            let upper = hint.to_ascii_uppercase();
            let from = upper.find("MAX_EXECUTION_TIME(")? + "MAX_EXECUTION_TIME(".len();
            let to = upper[from..].find(')')? + from;
            upper[from..to].trim().parse::<u64>().ok()
        });
        let millis = hinted.unwrap_or_else(|| {
            self.vars
                .get("max_execution_time")
                .map_or(0.0, crate::expr::as_double) as u64
        });
        (millis > 0).then(|| {
            (
                Duration::from_millis(millis),
                SqlError::new(
                    3024,
                    "HY000",
                    "Query execution was interrupted, maximum statement execution time exceeded",
                ),
            )
        })
    }

    /// A timeout variable the session SET (1 s to a year), else `default`.
    fn seconds_variable(&self, name: &str, default: std::time::Duration) -> std::time::Duration {
        match self.vars.get(name) {
            Some(v) => std::time::Duration::from_secs_f64(
                crate::expr::as_double(v).clamp(1.0, 365.0 * 24.0 * 3600.0),
            ),
            None => default,
        }
    }

    /// The bytes a GROUP_CONCAT keeps: the session's group_concat_max_len, within 4 (MariaDB's
    /// least) and `STRING_RESULT_BYTES_MAX`.
    pub(crate) fn group_concat_max_len(&self) -> usize {
        self.vars.get("group_concat_max_len").map_or(
            crate::foundation::limits::GROUP_CONCAT_MAX_LEN_DEFAULT,
            group_concat_max_len,
        )
    }
}

/// A group_concat_max_len SET to `v`, within 4 (MariaDB's least) and `STRING_RESULT_BYTES_MAX`.
pub(crate) fn group_concat_max_len(v: &Value) -> usize {
    let n = crate::expr::as_double(v);
    n.clamp(
        4.0,
        crate::foundation::limits::STRING_RESULT_BYTES_MAX as f64,
    ) as usize
}

/// The server's value of a variable (ignoring the session's SETs), if Cairn knows it.
pub(crate) fn server_value(session: &Session, name: &str) -> Option<Value> {
    VARIABLES
        .iter()
        .find(|v| v.name == name)
        .map(|v| (v.value)(session))
}

/// A value as SHOW VARIABLES writes it.
fn shown_text(shown: Shown, v: &Value) -> String {
    if shown == Shown::Bool {
        let on = match v {
            Value::Bytes(b) => {
                let t = String::from_utf8_lossy(b).to_ascii_lowercase();
                t == "on" || t == "1" || t == "true"
            }
            other => crate::expr::truthy(other),
        };
        return if on { "ON" } else { "OFF" }.into();
    }
    String::from_utf8_lossy(&base::text::value_text(v).unwrap_or_default()).into_owned()
}

/// Every variable as (name, shown value), in name order: the session's values (its SETs
/// included), or the server's for `global`.
pub(crate) fn shown(session: &Session, global: bool) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = VARIABLES
        .iter()
        .map(|v| {
            let value = match session.vars.get(v.name) {
                Some(set) if !global => set.clone(),
                _ => (v.value)(session),
            };
            (v.name.to_string(), shown_text(v.shown, &value))
        })
        .collect();
    if !global {
        // Variables the session SET that Cairn does not know keep their values too.
        for (name, value) in &session.vars {
            if !VARIABLES.iter().any(|v| v.name == name) {
                out.push((name.clone(), shown_text(Shown::Plain, value)));
            }
        }
        out.sort();
    }
    out
}

impl crate::session::Session {
    /// SET of character_set_client, _results, _connection or collation_connection (false for
    /// any other variable). DEFAULT and NULL results as MariaDB: utf8mb4, and as stored.
    pub(crate) fn set_charset_variable(&mut self, name: &str, v: &base::Value) -> Result<bool> {
        let text = match v {
            base::Value::Null => None,
            v => Some(
                String::from_utf8_lossy(&base::text::value_text(v).unwrap_or_default())
                    .into_owned(),
            ),
        };
        let default = text
            .as_deref()
            .is_some_and(|t| t.eq_ignore_ascii_case("default"));
        let charset = |t: &Option<String>| -> Result<Wire> {
            match t.as_deref() {
                Some(t) if !default => named(t),
                _ => Ok(Wire::Stored(Charset::Utf8mb4)),
            }
        };
        match name {
            "character_set_client" => self.charsets.client = charset(&text)?,
            "character_set_results" => {
                self.charsets.results = match text {
                    None => None,
                    t => Some(charset(&t)?),
                }
            }
            "character_set_connection" => {
                let c = charset(&text)?;
                self.charsets.connection = c;
                self.charsets.collation = default_collation(c).0;
            }
            "collation_connection" => {
                let (c, name) = match text.as_deref() {
                    Some(t) if !default => named_collation(t)?,
                    _ => {
                        let c = Wire::Stored(Charset::Utf8mb4);
                        (c, default_collation(c).0)
                    }
                };
                self.charsets.connection = c;
                self.charsets.collation = name;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typing_announces_the_numbers_and_booleans_as_integers() {
        let listed: Vec<&str> = VARIABLES
            .iter()
            .filter(|v| matches!(v.shown, Shown::Bool | Shown::Int))
            .map(|v| v.name)
            .collect();
        assert_eq!(listed, crate::expr::typing::INTEGER_VARIABLES);
        assert!(VARIABLES.windows(2).all(|w| w[0].name < w[1].name));
    }
}
