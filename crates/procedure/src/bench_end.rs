//! How `iofit bench` reads its `--size` and ends: the deprecated `--json FILE`'s note, a
//! warm-up cut short (nothing to print), where the report's line goes, and the exit status.

use crate::bench::{BenchOutcome, JsonDestination};
use crate::ending::{Ending, Exit, Note};
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
    outcome
        .interrupted_in_warmup()
        .then(|| Ending::with(Exit::Interrupted, Note::InterruptedInWarmup))
}

/// What `bench` puts out once the suite is done: on stdout the JSON (`--json`) or the table
/// followed by the report's line; then the ending, which says the report's line on stderr when
/// stdout holds only the JSON. A warm-up cut short puts out nothing.
#[derive(Debug)]
pub struct BenchEnd {
    pub stdout: Option<String>,
    pub ending: Ending,
}

/// The end of the suite's `outcome`, its JSON going where `json` says and the report written
/// to `report` (if asked for).
pub fn bench_end(
    outcome: &BenchOutcome,
    json: &JsonDestination,
    report: Option<&Path>,
) -> Result<BenchEnd, ProcedureError> {
    if let Some(ending) = warmup_ending(outcome) {
        return Ok(BenchEnd {
            stdout: None,
            ending,
        });
    }
    let mut ending = Ending::quiet(suite_exit(outcome));
    let wrote = report.map(|path| Note::ReportWritten {
        path: path.to_path_buf(),
    });
    let stdout = if json.stdout {
        ending.notes.extend(wrote);
        let text = serde_json::to_string_pretty(&outcome.json)
            .map_err(|e| ProcedureError::Internal(format!("the suite's JSON: {e}")))?;
        format!("{text}\n")
    } else {
        let mut text = crate::bench::render_text(outcome);
        if let Some(note) = wrote {
            text.push_str(&format!("{note}\n"));
        }
        text
    };
    Ok(BenchEnd {
        stdout: Some(stdout),
        ending,
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
                runtime_s: iofit_model::units::Seconds(30.0),
                warmup_s_each: 60.0,
                cache_warmed: warmed,
                test_file_bytes: iofit_model::units::Bytes::gib(1),
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
        assert_eq!(cut.notes, vec![Note::InterruptedInWarmup]);
        assert_eq!(
            cut.notes[0].to_string(),
            "interrupted during the warm-up; no benchmark ran"
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
        use crate::bench::Status;
        let to_stdout = JsonDestination {
            stdout: true,
            file: None,
            deprecated: false,
        };
        let path = PathBuf::from("r.html");
        let done = outcome(Status::Complete, true);
        let json = bench_end(&done, &to_stdout, Some(&path)).unwrap();
        let printed: serde_json::Value =
            serde_json::from_str(json.stdout.as_deref().unwrap()).unwrap();
        assert_eq!(printed["suite"], "azure-premium");
        assert_eq!(
            json.ending,
            Ending::with(Exit::Success, Note::ReportWritten { path: path.clone() })
        );
        let text = JsonDestination {
            stdout: false,
            ..to_stdout
        };
        let table = bench_end(&done, &text, Some(&path)).unwrap();
        let stdout = table.stdout.unwrap();
        assert!(stdout.starts_with(&crate::bench::render_text(&done)));
        assert!(stdout.ends_with("\nwrote the report r.html\n"), "{stdout}");
        assert_eq!(table.ending, Ending::quiet(Exit::Success));
        let without = bench_end(&done, &text, None).unwrap();
        assert_eq!(without.stdout.unwrap(), crate::bench::render_text(&done));
        let cut = bench_end(&outcome(Status::Interrupted, false), &text, Some(&path)).unwrap();
        assert!(cut.stdout.is_none());
        assert_eq!(cut.ending.exit, Exit::Interrupted);
    }
}
