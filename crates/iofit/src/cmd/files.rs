//! The commands' file inputs and outputs, all through `iofit_safefs`: inputs must be regular
//! files under a size cap per format; an output is checked before any work (a file name in a
//! writable directory, not one of the command's own inputs or targets) and written whole, through
//! a random temporary name, or not at all.

use iofit_safefs::{atomic, SafeFsError};
use std::path::Path;

/// A safefs error as the CLI reports it; `exit::is_bad_input` reads its kind (exit 2 when
/// the user must fix something), as for every library error.
pub(crate) fn cli_error(error: SafeFsError) -> anyhow::Error {
    anyhow::Error::new(error)
}

/// Writes an output whole or not at all.
pub(crate) fn write_output(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    atomic::write_atomic(path, bytes).map_err(cli_error)
}
