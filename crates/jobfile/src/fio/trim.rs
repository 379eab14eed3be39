//! fio's trim modes (`rw=trim`, `randtrim`, `trimwrite`, `randtrimwrite`): what a trim job may
//! be combined with, settled once the section is read.

use crate::error::{JobFileError, Location};
use iofit_model::data::VerifyMode;
use iofit_model::job::JobNote;
use iofit_model::job::{JobSpec, Target};

/// Checks a trim job's other options. fio verifies only blocks it wrote, so `verify=` on a job
/// that only trims checks nothing and is switched off with a note; what iofit cannot do for
/// trims is an error that says why.
pub(crate) fn finish(job: &mut JobSpec, section: &Location) -> Result<(), JobFileError> {
    if !job.rw.has_trims() {
        return Ok(());
    }
    let mode = job.rw.fio_name();
    let on_devices = match &job.target {
        Target::Files(files) => files.iter().all(|f| f.starts_with("/dev")),
        _ => false,
    };
    if !on_devices {
        job.notes.push(JobNote::TrimOnFile {
            mode: mode.to_string(),
        });
    }
    let refuse = |why: &str, fix: &str| section.unsupported_value("rw", mode, why, fix);
    if job.data.verify.mode.is_on() {
        if job.rw.is_trimwrite() {
            return Err(refuse(
                "data verification of a trimwrite job is not implemented in iofit",
                "verify with a write job (rw=write or randwrite), or drop verify= from this one",
            ));
        }
        job.data.verify.mode = VerifyMode::None;
        job.notes.push(JobNote::TrimNotVerified {
            mode: mode.to_string(),
        });
    }
    Ok(())
}
