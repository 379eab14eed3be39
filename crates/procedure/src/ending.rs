//! How a command ends: the exit status it returns and the lines it says on stderr before, as
//! the procedure decided them. The binary prints each line after `iofit: ` and exits with
//! [`Exit::code`]; nothing else in it chooses an exit code. Each line is a [`Note`]: its kind
//! and figures as data, its sentence as `Display`.

use std::fmt;
use std::path::PathBuf;

/// The exit status of a command (see the binary's `exit` module for what each means to a
/// script).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// 0: the work ran and succeeded.
    Success,
    /// 1: the work ran and did not succeed (a job stopped on an IO error).
    Failed,
    /// 3: a multi-host run lost a host after the start; the other hosts' results are kept.
    Incomplete,
    /// 4: data verification found bad data.
    DataErrors,
    /// 130: a signal stopped the work; what ran before it is reported.
    Interrupted,
    /// A command run under iofit (`emulate`) ended with this code, passed on.
    Command(u8),
}

impl Exit {
    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Failed => 1,
            Exit::Incomplete => 3,
            Exit::DataErrors => 4,
            Exit::Interrupted => 130,
            Exit::Command(code) => code,
        }
    }
}

/// The exit status and what to say on stderr first, in order (each line without the
/// `iofit: ` the binary puts before it).
#[derive(Clone, Debug, PartialEq)]
pub struct Ending {
    pub exit: Exit,
    pub notes: Vec<Note>,
}

impl Ending {
    /// Ends with `exit` and nothing to say.
    pub fn quiet(exit: Exit) -> Self {
        Ending {
            exit,
            notes: Vec::new(),
        }
    }

    /// Exit 0 when the outcome `succeeded` (designs found, requirements met), 1 otherwise;
    /// nothing to say.
    pub fn passed(succeeded: bool) -> Self {
        Ending::quiet(if succeeded {
            Exit::Success
        } else {
            Exit::Failed
        })
    }

    /// Ends with `exit` after one line.
    pub fn with(exit: Exit, note: Note) -> Self {
        Ending {
            exit,
            notes: vec![note],
        }
    }
}

/// One line a command says on stderr before it ends, as data: its kind and the figures behind
/// it, so a caller (and a test) tells the lines apart without reading words. Its `Display` is
/// the sentence the binary prints after `iofit: `.
#[derive(Clone, Debug, PartialEq)]
pub enum Note {
    /// The HTML report was written to `path`.
    ReportWritten { path: PathBuf },
    /// `skipped` of `offered` `--status-interval` reports were not printed: stdout did not
    /// take them.
    StatusReportsSkipped { skipped: u64, offered: u64 },
    /// stdout took nothing within `bound_ms` of the run's end, so the results are not printed.
    StdoutStalled { bound_ms: u128 },
    /// After Ctrl-C, stdout did not take the results within the stop's bound (`why`).
    StdoutRefusedAfterStop { why: String },
    /// Ctrl-C while the test files were laid out: no job ran.
    InterruptedInLayout,
    /// Ctrl-C during `bench`'s cache warm-up: no benchmark ran.
    InterruptedInWarmup,
    /// Ctrl-C stopped the jobs; the results cover what ran.
    Interrupted,
    /// Ctrl-C stopped a multi-host run; every worker was stopped.
    HostsInterrupted,
    /// A signal stopped a vdbench file; the results cover the runs before it.
    VdbenchInterrupted,
    /// `profile`'s sampling was cut short (`words` say how); what was sampled is sized.
    SamplingCutShort { words: String },
    /// `profile --live` stopped before two samples: nothing sized.
    NothingSampled,
    /// Verification found bad data in these jobs (each `name (N bad units)`).
    BadData { jobs: Vec<String> },
    /// These jobs stopped on an IO error.
    JobsFailed { jobs: Vec<String> },
    /// A job of a multi-host run stopped on an IO error.
    HostJobFailed,
    /// A host of a multi-host run stopped `after_s` seconds after the start.
    HostLost {
        host: String,
        after_s: f64,
        message: String,
    },
    /// A multi-host run lost a host: incomplete, the other hosts' results kept.
    Incomplete,
    /// One bad block a host's validate=yes found, as the host said it.
    HostDataError { line: String },
    /// validate=yes found `count` bad blocks over the hosts.
    HostsBadBlocks { count: u64 },
    /// One bad block validate=yes found in run `rd`.
    DataError {
        rd: String,
        error: iofit_stats::DataError,
    },
    /// validate=yes found `count` bad blocks.
    BadBlocks { count: u64 },
    /// `failed` servers of a fleet failed and were skipped.
    ServersFailed { failed: usize },
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Note::ReportWritten { path } => write!(f, "wrote the report {}", path.display()),
            Note::StatusReportsSkipped { skipped, offered } => write!(
                f,
                "skipped {skipped} of {offered} --status-interval reports: stdout did not take them"
            ),
            Note::StdoutStalled { bound_ms } => write!(
                f,
                "error: stdout took nothing within {bound_ms} ms of the run's end (its reader is \
                 not reading), so the results are not printed; give --output FILE to keep them"
            ),
            Note::StdoutRefusedAfterStop { why } => write!(
                f,
                "interrupted; stdout did not take the results in time: {why}"
            ),
            Note::InterruptedInLayout => {
                f.write_str("interrupted while laying out test files; no job ran")
            }
            Note::InterruptedInWarmup => {
                f.write_str("interrupted during the warm-up; no benchmark ran")
            }
            Note::Interrupted => {
                f.write_str("interrupted; the results cover what ran before Ctrl-C")
            }
            Note::HostsInterrupted => {
                f.write_str("interrupted; every worker was stopped and the results cover what ran")
            }
            Note::VdbenchInterrupted => {
                f.write_str("interrupted; the results cover the runs before the signal")
            }
            Note::SamplingCutShort { words } => {
                write!(f, "{words}; the requirements cover what was sampled")
            }
            Note::NothingSampled => {
                f.write_str("stopped before two samples: nothing to size, no file written")
            }
            Note::BadData { jobs } => write!(
                f,
                "error: data verification found bad data in job(s) {} (see the results)",
                jobs.join(", ")
            ),
            Note::JobsFailed { jobs } => write!(
                f,
                "error: job(s) {} stopped on an IO error (see the results)",
                jobs.join(", ")
            ),
            Note::HostJobFailed => {
                f.write_str("error: a job stopped on an IO error (see the results)")
            }
            Note::HostLost {
                host,
                after_s,
                message,
            } => write!(
                f,
                "host {host} stopped {after_s:.1} s after the start: {message}"
            ),
            Note::Incomplete => write!(
                f,
                "the run is incomplete (exit code {}); the other hosts' results are kept",
                Exit::Incomplete.code()
            ),
            Note::HostDataError { line } => write!(f, "data error: {line}"),
            Note::HostsBadBlocks { count } => write!(
                f,
                "error: validate=yes found {count} bad block(s) over the hosts (see the results)"
            ),
            Note::DataError { rd, error: e } => write!(
                f,
                "data error: rd={rd} lun={} offset {} length {}: {}: expected {}, found {}",
                e.file, e.offset, e.length, e.kind, e.expected, e.found
            ),
            Note::BadBlocks { count } => write!(
                f,
                "error: validate=yes found {count} bad block(s) (see the results)"
            ),
            Note::ServersFailed { failed } => write!(
                f,
                "{failed} servers failed and were skipped; exit code {}",
                Exit::Failed.code()
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_the_documented_ones() {
        assert_eq!(Exit::Success.code(), 0);
        assert_eq!(Exit::Failed.code(), 1);
        assert_eq!(Exit::Incomplete.code(), 3);
        assert_eq!(Exit::DataErrors.code(), 4);
        assert_eq!(Exit::Interrupted.code(), 130);
        assert_eq!(Exit::Command(42).code(), 42);
        let ending = Ending::with(Exit::Failed, Note::HostJobFailed);
        assert_eq!(ending.notes, vec![Note::HostJobFailed]);
        assert!(Ending::quiet(Exit::Success).notes.is_empty());
        assert_eq!(Ending::passed(true), Ending::quiet(Exit::Success));
        assert_eq!(Ending::passed(false), Ending::quiet(Exit::Failed));
    }

    /// The sentences of the kinds no other test reads back in words: each is the line the
    /// binary printed before the notes were typed.
    #[test]
    fn each_kind_says_its_sentence() {
        let said = [
            (
                Note::HostsInterrupted,
                "interrupted; every worker was stopped and the results cover what ran",
            ),
            (
                Note::HostJobFailed,
                "error: a job stopped on an IO error (see the results)",
            ),
            (
                Note::StdoutRefusedAfterStop {
                    why: "Broken pipe".into(),
                },
                "interrupted; stdout did not take the results in time: Broken pipe",
            ),
            (
                Note::JobsFailed {
                    jobs: vec!["a".into(), "b".into()],
                },
                "error: job(s) a, b stopped on an IO error (see the results)",
            ),
        ];
        for (note, sentence) in said {
            assert_eq!(note.to_string(), sentence, "{note:?}");
        }
    }
}
