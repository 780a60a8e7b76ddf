//! NDB's angel process for data nodes of a cluster: `cairn datanode --mgm` runs the node in a
//! child process and starts it again when it fails (a node restart: from its own files, which
//! its node group's primary brings level), at most `RESTARTS_MAX` times in `RESTART_WINDOW`; and the
//! policy `cairn start` applies to the data nodes it runs (`Restarts`).

use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

/// A data node that fails is started again, unless it failed this many times already within
/// `RESTART_WINDOW` (then something is wrong that a restart does not mend).
pub const RESTARTS_MAX: usize = 3;
pub const RESTART_WINDOW: Duration = Duration::from_secs(60);

/// What to do once a data node's process has exited.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It stopped cleanly, as asked (`cairn admin stop`, SIGTERM): it stays stopped.
    Stopped,
    /// Start it again (`counted`: a failure, not a requested restart): from its own files,
    /// brought level by its group's copy, or (`initial`: they could not be used) empty.
    Restart { counted: bool, initial: bool },
    /// It failed `RESTARTS_MAX` times within `RESTART_WINDOW` already: it stays down.
    GiveUp,
    /// Its restart cannot go on (`EXIT_NO_COPY_SOURCE`: no node of its group to copy from):
    /// starting it again would not mend that, so it stays down.
    NoCopySource,
}

/// One data node's recent restarts.
#[derive(Debug, Default)]
pub struct Restarts {
    at: VecDeque<Instant>,
}

impl Restarts {
    /// Decides, and counts a restart for a failure.
    pub fn on_exit(&mut self, status: &ExitStatus) -> Verdict {
        if status.success() {
            return Verdict::Stopped;
        }
        // Asked to restart (`cairn admin restart`, exit 75): not a failure, so not counted.
        if status.code() == Some(crate::EXIT_RESTART) {
            return Verdict::Restart {
                counted: false,
                initial: false,
            };
        }
        if status.code() == Some(crate::EXIT_RESTART_INITIAL) {
            return Verdict::Restart {
                counted: false,
                initial: true,
            };
        }
        if status.code() == Some(crate::EXIT_NO_COPY_SOURCE) {
            return Verdict::NoCopySource;
        }
        while self
            .at
            .front()
            .is_some_and(|t| t.elapsed() > RESTART_WINDOW)
        {
            self.at.pop_front();
        }
        if self.at.len() >= RESTARTS_MAX {
            return Verdict::GiveUp;
        }
        self.at.push_back(Instant::now());
        Verdict::Restart {
            counted: true,
            initial: status.code() == Some(crate::EXIT_NEEDS_INITIAL),
        }
    }
}

/// The arguments a data node started with, made into the ones it starts again with: a node
/// restart, from its own files (a system restart's flags dropped), or with `initial` empty
/// (`--initial --yes`), copying every partition from its group.
pub fn restart_args(args: &[String], initial: bool) -> Vec<String> {
    let mut kept: Vec<String> = Vec::new();
    let mut skip_value = false;
    for a in args {
        if std::mem::take(&mut skip_value) {
            continue;
        }
        match a.as_str() {
            "--system-restart" | "--initial" | "--yes" => {}
            "--restore-round" => skip_value = true,
            _ if a.starts_with("--restore-round=") => {}
            _ => kept.push(a.clone()),
        }
    }
    if initial {
        kept.extend(["--initial".into(), "--yes".into()]);
    }
    kept
}

/// Runs `cairn ARGS --no-angel` (a data node) as a child, passing its output on, and starts it
/// again when it fails; a first start that fails before it was ready (bad flags, a data
/// directory it refuses) is not started again, so no restart adds `--yes` to a first start's
/// `--initial`. SIGTERM and Ctrl-C go to the node, which stops as asked, and nothing is started
/// after one. Returns the exit code to end with: the node's.
pub fn run(node_id: u32, mut args: Vec<String>) -> Result<i32> {
    args.push("--no-angel".into());
    let signal = crate::stop_signal()?;
    let mut restarts = Restarts::default();
    let mut first = true;
    loop {
        let (status, was_ready, stopping) = run_once(&args, &signal)?;
        if stopping {
            println!("angel: data node {node_id} stopped as asked ({status})");
            return Ok(status.code().unwrap_or(0));
        }
        let first_start = std::mem::replace(&mut first, false);
        if first_start
            && !was_ready
            && !status.success()
            && status.code() != Some(crate::EXIT_RESTART)
        {
            println!(
                "angel: data node {node_id} exited ({status}) before it was ready; not started again"
            );
            return Ok(status.code().unwrap_or(crate::EXIT_FAILED));
        }
        match restarts.on_exit(&status) {
            Verdict::Stopped => return Ok(0),
            Verdict::NoCopySource => {
                println!(
                    "angel: data node {node_id} cannot restart while no other node of its group serves: it is not started again (start the whole cluster again)"
                );
                return Ok(crate::EXIT_NO_COPY_SOURCE);
            }
            Verdict::GiveUp => {
                println!(
                    "angel: data node {node_id} exited ({status}), its {} failure in {} s: it is not started again",
                    RESTARTS_MAX + 1,
                    RESTART_WINDOW.as_secs()
                );
                return Ok(status.code().unwrap_or(crate::EXIT_FAILED));
            }
            Verdict::Restart { initial, .. } => {
                if initial {
                    println!(
                        "angel: data node {node_id} exited ({status}); starting it again empty (--initial): it copies its partitions from its node group's primary, then serves as a backup"
                    );
                } else {
                    println!(
                        "angel: data node {node_id} exited ({status}); starting it again from its own files: its node group's primary brings them level, then it serves as a backup"
                    );
                }
                args = restart_args(&args, initial);
            }
        }
    }
}

/// Runs the node once, until it exits; forwards a stop signal to it. Says whether it printed
/// `ready`, and whether a stop was asked (a signal that came before it started stops it too).
fn run_once(args: &[String], signal: &mpsc::Receiver<()>) -> Result<(ExitStatus, bool, bool)> {
    let mut stopping = signal.try_recv().is_ok();
    let exe = std::env::current_exe().context("finding the cairn executable")?;
    let mut command = Command::new(exe);
    command.args(args).stdout(Stdio::piped());
    // SAFETY: prctl is async-signal-safe and touches no memory of the parent.
    unsafe {
        command.pre_exec(|| {
            // The node dies with its angel, as abruptly (a SIGKILL of the angel is one of it).
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = command.spawn().context("starting the data node")?;
    let stdout = child.stdout.take().context("the data node's output")?;
    let (ready_tx, ready_rx) = mpsc::channel();
    let relay = std::thread::Builder::new()
        .name("angel-output".into())
        .spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(|l| l.ok()) {
                println!("{line}");
                if line == "ready" {
                    let _ = ready_tx.send(());
                }
            }
        })
        .context("starting the output relay")?;
    let mut told = false;
    let status = loop {
        match signal.recv_timeout(Duration::from_millis(100)) {
            Ok(()) => stopping = true,
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {}
        }
        if stopping && !told {
            told = true;
            // SAFETY: kill(2) on our child's pid, not yet reaped.
            unsafe {
                libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
            }
        }
        if let Some(status) = child.try_wait().context("waiting for the data node")? {
            break status;
        }
    };
    let _ = relay.join();
    Ok((status, ready_rx.try_recv().is_ok(), stopping))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    fn exited(code: i32) -> ExitStatus {
        ExitStatus::from_raw(code << 8)
    }

    #[test]
    fn failures_restart_three_times_a_minute_and_requests_always() {
        let mut r = Restarts::default();
        assert_eq!(r.on_exit(&exited(0)), Verdict::Stopped);
        for _ in 0..RESTARTS_MAX {
            assert_eq!(
                r.on_exit(&exited(crate::EXIT_FAILED)),
                Verdict::Restart {
                    counted: true,
                    initial: false
                }
            );
            assert_eq!(
                r.on_exit(&exited(crate::EXIT_RESTART)),
                Verdict::Restart {
                    counted: false,
                    initial: false
                }
            );
        }
        // Killed by a signal counts as a failure too.
        assert_eq!(r.on_exit(&ExitStatus::from_raw(9)), Verdict::GiveUp);
        assert_eq!(
            r.on_exit(&exited(crate::EXIT_NO_COPY_SOURCE)),
            Verdict::NoCopySource
        );
        assert_eq!(
            r.on_exit(&exited(crate::EXIT_RESTART)),
            Verdict::Restart {
                counted: false,
                initial: false
            }
        );
    }

    #[test]
    fn a_restart_comes_back_from_its_own_files_unless_they_cannot_be_used() {
        let args: Vec<String> = [
            "datanode",
            "--mgm",
            "m:1",
            "--system-restart",
            "--restore-round",
            "7",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(restart_args(&args, false), ["datanode", "--mgm", "m:1"]);
        let empty = restart_args(&args, true);
        assert_eq!(empty, ["datanode", "--mgm", "m:1", "--initial", "--yes"]);
        assert_eq!(restart_args(&empty, true), empty);
        // After a restart with --initial, the next comes back from its files again.
        assert_eq!(restart_args(&empty, false), ["datanode", "--mgm", "m:1"]);
        let mut r = Restarts::default();
        assert_eq!(
            r.on_exit(&exited(crate::EXIT_RESTART_INITIAL)),
            Verdict::Restart {
                counted: false,
                initial: true
            }
        );
        assert_eq!(
            r.on_exit(&exited(crate::EXIT_NEEDS_INITIAL)),
            Verdict::Restart {
                counted: true,
                initial: true
            }
        );
    }
}
