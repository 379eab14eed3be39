//! Exit codes and how errors reach the user.
//!
//! - 0: success (for `compare`: every requirement met).
//! - 1: the work ran but did not succeed (for `compare`: a requirement failed), or an
//!   operating error (an IO error during a run).
//! - 2: bad input: a file, line, key or flag the user must fix. Never a panic.
//! - 3: a multi-host run lost a host after the start
//!   (`iofit_procedure::ending::Exit::Incomplete`); the other
//!   hosts' results are written.
//! - 4: data verification (fio `verify=`, vdbench `validate=yes`) found bad data; the results
//!   name every bad unit's file, offset, length, what was expected and what was found.
//! - 130: a signal (Ctrl-C) stopped the work; what ran before it is reported.

use std::process::ExitCode;

pub const FAILED: u8 = 1;
pub const BAD_INPUT: u8 = 2;
/// The run was interrupted by Ctrl-C (128 + SIGINT, as shells report it).
pub const INTERRUPTED: u8 = 130;

/// Prints the error chain on one line to stderr and picks the exit code.
pub fn report(error: &anyhow::Error) -> ExitCode {
    eprintln!("iofit: error: {}", one_line(error));
    ExitCode::from(if is_bad_input(error) {
        BAD_INPUT
    } else {
        FAILED
    })
}

/// The error and its causes on one line, each said once: a library error that shows its cause
/// in its own text (`"{label}: {source}"`) would otherwise print the cause twice.
pub fn one_line(error: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

/// Whether any cause is the user's to fix. This is the one place that maps the libraries'
/// typed errors to exit codes: the engine's, file safety's and remote runs' refusals (a file
/// iofit did not create, a job that cannot run as written, a host to fix) and a procedure's bad
/// input are 2, everything else 1.
pub fn is_bad_input(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<iofit_engine::EngineError>()
            .is_some_and(|e| e.is_bad_input())
            || cause
                .downcast_ref::<iofit_procedure::ProcedureError>()
                .is_some_and(|e| e.is_bad_input())
            || cause
                .downcast_ref::<iofit_safefs::SafeFsError>()
                .is_some_and(|e| e.is_bad_input())
            || cause
                .downcast_ref::<iofit_remote::RemoteError>()
                .is_some_and(|e| e.is_bad_input())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("the run failed: {source}")]
    struct Labelled {
        #[source]
        source: std::io::Error,
    }

    #[test]
    fn a_cause_shown_in_its_errors_text_is_said_once() {
        let error = anyhow::Error::new(Labelled {
            source: std::io::Error::other("the disk is full"),
        })
        .context("job 'a'");
        assert_eq!(
            one_line(&error),
            "job 'a': the run failed: the disk is full"
        );
    }
}
