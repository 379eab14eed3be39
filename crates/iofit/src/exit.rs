//! Exit codes and how errors reach the user.
//!
//! - 0: success (for `compare`: every requirement met).
//! - 1: the work ran but did not succeed (for `compare`: a requirement failed), or an
//!   operating error (an IO error during a run).
//! - 2: bad input: a file, line, key or flag the user must fix. Never a panic.
//! - 3: a multi-host run lost a host after the start (`cmd::remote::INCOMPLETE`); the other
//!   hosts' results are written.

use std::fmt;
use std::process::ExitCode;

pub const FAILED: u8 = 1;
pub const BAD_INPUT: u8 = 2;

/// Marks an error as the user's input to fix; `report` then exits with code 2.
#[derive(Debug)]
pub struct BadInput(pub String);

impl fmt::Display for BadInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

/// Wraps any displayable error as bad input: `parse(...).map_err(bad_input)?`.
pub fn bad_input(error: impl fmt::Display) -> anyhow::Error {
    anyhow::Error::new(BadInput(error.to_string()))
}

/// Prints the error chain on one line to stderr and picks the exit code.
pub fn report(error: &anyhow::Error) -> ExitCode {
    eprintln!("iofit: error: {error:#}");
    let is_bad_input = error.chain().any(|cause| cause.is::<BadInput>());
    ExitCode::from(if is_bad_input { BAD_INPUT } else { FAILED })
}
