//! What `predict --cloud aws` and `predict --cloud gcp` read the same way: the flags that are
//! Azure's alone, the optional requirements file, and one `--disk` per required volume.

use crate::ProcedureError;
use iofit_model::Requirements;
use std::path::PathBuf;

fn bad(message: impl Into<String>) -> ProcedureError {
    ProcedureError::BadInput(message.into())
}

/// `--job` and `--stripe` are refused on `cloud` (aws, gcp), and `--requirements` is read.
pub(crate) fn checked_targets(
    cloud: &str,
    azure_only_flags: bool,
    requirements: Option<&PathBuf>,
) -> Result<Option<Requirements>, ProcedureError> {
    if azure_only_flags {
        return Err(bad(format!(
            "--job and --stripe are Azure predict's; with --cloud {cloud} give --disk, --bs, --rw and optionally --requirements"
        )));
    }
    requirements
        .map(|path| crate::plan::read_requirements(path))
        .transpose()
}

/// A requirements file names as many volumes as `--disk` gives, in order.
pub(crate) fn check_one_disk_per_volume(
    targets: Option<&Requirements>,
    disks: usize,
) -> Result<(), ProcedureError> {
    match targets {
        Some(t) if t.volumes.len() != disks => Err(bad(format!(
            "--requirements has {} volume(s) but {disks} --disk given; give one --disk per volume, in order",
            t.volumes.len(),
        ))),
        _ => Ok(()),
    }
}
