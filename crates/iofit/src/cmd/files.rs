//! The commands' file inputs and outputs, all through `iofit_safefs`: inputs must be regular
//! files under a size cap per format; an output is checked before any work (a file name in a
//! writable directory, not one of the command's own inputs or targets) and written whole, through
//! a random temporary name, or not at all.

use iofit_safefs::{atomic, guard, input, SafeFsError};
use std::path::{Path, PathBuf};

/// A safefs error as the CLI reports it; `exit::is_bad_input` reads its kind (exit 2 when
/// the user must fix something), as for every library error.
pub(crate) fn cli_error(error: SafeFsError) -> anyhow::Error {
    anyhow::Error::new(error)
}

/// Reads a text input (regular file, at most `cap_bytes`); `what` names it in messages.
pub(crate) fn read_input(path: &Path, cap_bytes: u64, what: &str) -> anyhow::Result<String> {
    input::read_capped_string(path, cap_bytes, what).map_err(cli_error)
}

/// Refuses, before any work, an output `flag` that cannot be written or names one of
/// `protected` (the command's inputs and targets). An existing file iofit did not write is
/// replaced only with `allow_overwrite` (the command's `--allow-overwrite`, which every
/// command that writes outputs has: the refusal names it); one of `protected` never is.
pub(crate) fn check_output_allowing(
    path: &Path,
    protected: &[PathBuf],
    flag: &str,
    allow_overwrite: bool,
) -> anyhow::Result<()> {
    guard::check_output_allowing(path, protected, flag, allow_overwrite).map_err(cli_error)
}

/// Writes an output whole or not at all.
pub(crate) fn write_output(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    atomic::write_atomic(path, bytes).map_err(cli_error)
}
