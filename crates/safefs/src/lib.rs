//! iofit-safefs: the one place where iofit opens, creates or replaces files that may hold a
//! user's data. The other crates never open a target or write an output by name themselves:
//!
//! - [`marker`]: recognise the exact file iofit created (random id + device + inode + birth
//!   time, in an xattr, or a sidecar plus a trailer inside the file).
//! - [`target`]: open each target once, decide on the descriptor whether it may be written,
//!   and re-open that same inode for every job (never the name again).
//! - [`atomic`]: outputs through a random `O_EXCL|O_NOFOLLOW` temporary file and a rename.
//! - [`guard`]: refuse an output that names one of the command's inputs or targets, or that
//!   cannot be written, before any work.
//! - [`input`]: read inputs that must be regular files, with a size cap per format.
//! - [`anchor`]: the directories file system workloads fill: created and marked by iofit, a
//!   foreign non-empty one refused.
//!
//! ```
//! use iofit_safefs::{atomic::write_atomic, guard::check_output, input};
//! let dir = tempfile::tempdir().unwrap();
//! let job = dir.path().join("job.fio");
//! std::fs::write(&job, "[a]\nrw=read\n").unwrap();
//! let out = dir.path().join("result.json");
//! // The output may not replace the job file it came from...
//! assert!(check_output(&job, &[job.clone()], "--output").is_err());
//! // ...but a new result file is fine, and is written whole or not at all.
//! check_output(&out, &[job.clone()], "--output").unwrap();
//! write_atomic(&out, b"{}").unwrap();
//! let text = input::read_capped_string(&job, input::caps::JOB_FILE_BYTES, "job file").unwrap();
//! assert!(text.starts_with("[a]"));
//! assert!(input::read_capped(std::path::Path::new("/dev/zero"), 1 << 20, "job file").is_err());
//! ```

pub mod anchor;
pub mod atomic;
mod atomic_file;
pub mod beneath;
pub mod control;
pub mod error;
pub mod guard;
pub mod input;
pub mod marker;
pub mod output;
pub mod scratch;
mod sys;
pub mod target;

pub use error::SafeFsError;

/// Bytes in a unit that shows them: "512 B", "64.0 KiB", "1.5 MiB", "2.00 GiB".
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    let digits = if value < 10.0 { 2 } else { 1 };
    format!("{value:.digits$} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    #[test]
    fn human_bytes_shows_small_sizes() {
        assert_eq!(super::human_bytes(0), "0 B");
        assert_eq!(super::human_bytes(4096), "4.00 KiB");
        assert_eq!(super::human_bytes(146 << 20), "146.0 MiB");
        assert_eq!(super::human_bytes(3 << 30), "3.00 GiB");
    }
}
