//! iofit-jobfile: reads the inputs of the load generators users already have — fio job files
//! and fio-style command lines, vdbench parameter files, Iometer access specifications — and
//! lowers each into [`iofit_model::JobSpec`]s, the fully resolved jobs the engine runs.
//!
//! Every error is a [`JobFileError`] naming the file, the line and the key, what is wrong and how
//! to fix it, on one line.
//!
//! ```
//! use iofit_jobfile::fio::{parse_str, ParseOptions};
//! use iofit_model::job::RwMode;
//!
//! let text = "[global]\nbs=8k\nsize=1g\n[reader]\nrw=randread\ndirectory=/tmp\n";
//! let jobs = parse_str(text, "example.fio", &ParseOptions::default()).unwrap();
//! assert_eq!(jobs.len(), 1);
//! assert_eq!(jobs[0].rw, RwMode::RandRead);
//! assert_eq!(jobs[0].block_size.max_size().as_u64(), 8192);
//!
//! // A typo is an error with file, line and a suggestion.
//! let error = parse_str("[a]\nsize=1g\niodepht=4\n", "typo.fio", &ParseOptions::default())
//!     .unwrap_err();
//! assert_eq!(error.line, 3);
//! assert!(error.to_string().contains("did you mean 'iodepth'"));
//! ```

pub mod error;
pub mod fio;
mod fio_engines;
pub(crate) mod fio_options;
pub mod iometer;
mod option_bounds;
mod values;
pub mod vdbench;

pub use error::{ErrorKind, JobFileError};
pub use fio::ParseOptions;
pub use values::parse_time;

use std::path::Path;

/// Which generator's language a file is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Fio,
    Vdbench,
}

/// Tells a fio job file from a vdbench parameter file by its first meaningful line: vdbench
/// files are lines of `hd=`/`sd=`/`wd=`/`rd=` (or other vdbench keywords) with `*` comments; fio
/// files open a `[section]`. A `.fio`/`.ini` extension decides when the text does not.
pub fn detect(path: &Path) -> Result<Dialect, JobFileError> {
    let source_name = path.display().to_string();
    let text = fio::read_text(path, &source_name)?;
    Ok(
        detect_text(&text).unwrap_or_else(|| match path.extension().and_then(|e| e.to_str()) {
            Some("vdb") | Some("vdbench") | Some("parm") => Dialect::Vdbench,
            _ => Dialect::Fio,
        }),
    )
}

/// The dialect of `text`, when its first meaningful line says.
pub fn detect_text(text: &str) -> Option<Dialect> {
    const VDBENCH_KEYS: &[&str] = &[
        "hd=",
        "sd=",
        "wd=",
        "rd=",
        "fsd=",
        "fwd=",
        "include=",
        "data_errors=",
        "messagescan=",
        "compratio=",
        "debug=",
        "validate=",
        "concatenate=",
        "histogram=",
        "report=",
        "dedupratio=",
        "dedupunit=",
        "dedupsets=",
        "pattern=",
        "formatxfersize=",
        "create_anchors=",
        "concatenatesds=",
        "monitor=",
        "port=",
    ];
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with(';') || line.starts_with('#') {
            continue;
        }
        if line.starts_with('*') || line.starts_with("/*") {
            return Some(Dialect::Vdbench);
        }
        if line.starts_with('[') {
            return Some(Dialect::Fio);
        }
        let lower = line.to_ascii_lowercase();
        if VDBENCH_KEYS.iter().any(|key| lower.starts_with(key)) {
            return Some(Dialect::Vdbench);
        }
        return None;
    }
    None
}

#[cfg(test)]
mod detect_tests {
    use super::*;

    #[test]
    fn tells_dialects_apart() {
        assert_eq!(detect_text("[global]\nbs=4k\n"), Some(Dialect::Fio));
        assert_eq!(detect_text("; fio\n[job]\n"), Some(Dialect::Fio));
        assert_eq!(
            detect_text("* vdbench\nsd=sd1,lun=/tmp/x\n"),
            Some(Dialect::Vdbench)
        );
        assert_eq!(
            detect_text("hd=default,vdbench=/opt\n"),
            Some(Dialect::Vdbench)
        );
        assert_eq!(detect_text("size=1g\n"), None);
    }
}
