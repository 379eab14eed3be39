//! How `iofit bench` reads its `--size` and ends: the deprecated `--json FILE`'s note, a
//! warm-up cut short (nothing to print), where the report's line goes, and the exit status.

use crate::bench::{BenchOutcome, JsonDestination};
use crate::ending::{Ending, Exit};
use crate::ProcedureError;
use iofit_model::units::Bytes;
use std::path::Path;

/// Said when `--json FILE` names the JSON file (`--output FILE` does now).
pub const JSON_FILE_DEPRECATED: &str = "note: `bench --json FILE` is deprecated; use `--output FILE` (`--json` alone prints the JSON on stdout, as on the other commands)";

/// `--size`: each test file's size, as fio's (k/m/g = powers of 1024).
pub fn size_flag(text: Option<&str>) -> Result<Option<Bytes>, ProcedureError> {
    text.map(|text| {
        Bytes::parse(text).map_err(|e| ProcedureError::bad_input(format!("--size {text}: {e}")))
    })
    .transpose()
}

/// Ctrl-C during the cache warm-up, before any benchmark ran: no results to print, 130.
pub fn warmup_ending(outcome: &BenchOutcome) -> Option<Ending> {
    outcome.interrupted_in_warmup().then(|| {
        Ending::with(
            Exit::Interrupted,
            "interrupted during the warm-up; no benchmark ran",
        )
    })
}

/// Where the "wrote the report" line goes: stdout with the text, stderr when stdout holds
/// only the JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReportLine {
    Stdout(String),
    Stderr(String),
}

/// The line for the report written to `path` (None without one).
pub fn report_line(json: &JsonDestination, path: Option<&Path>) -> Option<ReportLine> {
    let path = path?;
    Some(if json.stdout {
        ReportLine::Stderr(format!("iofit: wrote the report {}", path.display()))
    } else {
        ReportLine::Stdout(format!("wrote the report {}", path.display()))
    })
}

/// After the results: 130 when Ctrl-C stopped the suite, else 0.
pub fn suite_exit(outcome: &BenchOutcome) -> Exit {
    if outcome.interrupted() {
        Exit::Interrupted
    } else {
        Exit::Success
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn size_is_read_as_fio_reads_it() {
        assert_eq!(size_flag(Some("64m")).unwrap(), Some(Bytes::mib(64)));
        assert_eq!(size_flag(None).unwrap(), None);
        let error = size_flag(Some("lots")).unwrap_err();
        assert!(error.is_bad_input() && error.to_string().starts_with("--size lots: "));
    }

    fn outcome(status: crate::bench::Status, warmed: bool) -> BenchOutcome {
        BenchOutcome {
            json: crate::bench::BenchJson {
                suite: "azure-premium".into(),
                status,
                scenarios_planned: 4,
                vm: "Standard_DS14".into(),
                disk_assumed: "P30".into(),
                scale: 1.0,
                runtime_s: 30.0,
                warmup_s_each: 60.0,
                cache_warmed: warmed,
                test_file_bytes: 1 << 30,
                prediction_note: String::new(),
                rows: vec![],
            },
            measured_jobs: vec![],
            combined_prediction: None,
        }
    }

    #[test]
    fn a_warm_up_cut_short_prints_nothing_and_exits_130() {
        use crate::bench::Status;
        let cut = warmup_ending(&outcome(Status::Interrupted, false)).unwrap();
        assert_eq!(cut.exit, Exit::Interrupted);
        assert_eq!(
            cut.notes,
            vec!["interrupted during the warm-up; no benchmark ran".to_string()]
        );
        // Warmed, then interrupted: the rows so far are printed, and the exit says 130.
        assert!(warmup_ending(&outcome(Status::Interrupted, true)).is_none());
        assert_eq!(
            suite_exit(&outcome(Status::Interrupted, true)),
            Exit::Interrupted
        );
        assert_eq!(suite_exit(&outcome(Status::Complete, true)), Exit::Success);
    }

    #[test]
    fn the_report_line_leaves_a_json_stdout_alone() {
        let to_stdout = JsonDestination {
            stdout: true,
            file: None,
            deprecated: false,
        };
        let path = PathBuf::from("r.html");
        assert_eq!(
            report_line(&to_stdout, Some(&path)),
            Some(ReportLine::Stderr("iofit: wrote the report r.html".into()))
        );
        let text = JsonDestination {
            stdout: false,
            ..to_stdout
        };
        assert_eq!(
            report_line(&text, Some(&path)),
            Some(ReportLine::Stdout("wrote the report r.html".into()))
        );
        assert_eq!(report_line(&text, None), None);
    }
}
