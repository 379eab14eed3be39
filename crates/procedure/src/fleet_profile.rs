//! `iofit profile CAPTURES... --fleet-out DIR [--servers MAP]` apart from the command line:
//! the captures grouped into servers, each profiled on its own (a server that fails is
//! skipped, named with why), and one requirements file per server written into DIR for
//! `iofit plan --fleet DIR`.

use crate::ProcedureError;
use iofit_profile::{ParseOptions, SizingOptions};
use std::fmt::Display;
use std::path::{Path, PathBuf};

type Result<T> = std::result::Result<T, ProcedureError>;

fn bad(message: impl Into<String>) -> ProcedureError {
    ProcedureError::BadInput(message.into())
}

/// Everything `iofit profile --fleet-out` asks for.
#[derive(Clone, Debug)]
pub struct FleetProfileRequest<'a> {
    /// Capture files or directories of them.
    pub inputs: &'a [PathBuf],
    /// `--servers MAP`: which capture is which server [default: a server per file name].
    pub mapping: Option<&'a Path>,
    /// `--fleet-out DIR`.
    pub out: &'a Path,
    /// The requirements files may replace files iofit did not write.
    pub allow_overwrite: bool,
    pub parse: &'a ParseOptions,
    pub sizing: &'a SizingOptions,
    /// Servers profiled at once.
    pub threads: usize,
}

/// What was profiled and written.
#[derive(Clone, Debug, PartialEq)]
pub struct FleetProfileOutcome {
    /// Servers the captures make.
    pub servers: usize,
    /// Capture files read.
    pub files: usize,
    /// Requirements files written.
    pub written: usize,
    /// Each server skipped, with why.
    pub skipped: Vec<(String, String)>,
    pub out: PathBuf,
}

impl FleetProfileOutcome {
    /// The line `profile --fleet-out` prints.
    pub fn summary(&self) -> String {
        format!(
            "profiled {} of {} servers ({} capture files) into {}; next: iofit plan --fleet {}\n",
            self.written,
            self.servers,
            self.files,
            self.out.display(),
            self.out.display()
        )
    }

    /// What is said on stderr of each server skipped, before the summary.
    pub fn skipped_notes(&self) -> Vec<String> {
        skipped_notes(self.skipped.iter().map(|(server, why)| (server, why)))
    }
}

/// `skipped server SERVER: WHY` for each server a fleet command skipped.
pub fn skipped_notes<S: Display, W: Display>(
    skipped: impl IntoIterator<Item = (S, W)>,
) -> Vec<String> {
    skipped
        .into_iter()
        .map(|(server, why)| format!("skipped server {server}: {why}"))
        .collect()
}

/// Profiles the fleet: `start` is told how many servers there are, `done` is called once
/// per server profiled.
pub fn profile_fleet(
    request: &FleetProfileRequest<'_>,
    start: &dyn Fn(usize),
    done: &(dyn Fn() + Sync),
) -> Result<FleetProfileOutcome> {
    let files = iofit_fleet::expand(request.inputs).map_err(|e| bad(e.to_string()))?;
    let servers =
        iofit_fleet::group_servers(&files, request.mapping).map_err(|e| bad(e.to_string()))?;
    start(servers.len());
    let profiles = iofit_fleet::profile_fleet(
        &servers,
        request.parse,
        request.sizing,
        request.threads,
        done,
    );
    let written = iofit_fleet::write_requirements(request.out, &profiles, request.allow_overwrite)
        .map_err(|e| bad(e.to_string()))?;
    let skipped = profiles
        .iter()
        .filter_map(|server| {
            let why = server.result.as_ref().err()?;
            Some((server.label.clone(), why.to_string()))
        })
        .collect();
    Ok(FleetProfileOutcome {
        servers: servers.len(),
        files: files.len(),
        written: written.len(),
        skipped,
        out: request.out.to_path_buf(),
    })
}

/// A fleet's end: `Ok(true)` when every server was done, `Ok(false)` when some failed and
/// were skipped (exit 1), bad input when none could be done (exit 2).
pub fn fleet_passed(done: usize, failed: usize) -> Result<bool> {
    match (done, failed) {
        (0, _) => Err(bad(format!(
            "all {failed} servers failed (each named above); fix their captures"
        ))),
        (_, 0) => Ok(true),
        _ => Ok(false),
    }
}

/// How a fleet command ends: 0 when every server was done, 1 (saying how many failed) when
/// some were skipped, bad input when none could be done.
pub fn fleet_ending(done: usize, failed: usize) -> Result<crate::ending::Ending> {
    use crate::ending::{Ending, Exit, Note};
    if fleet_passed(done, failed)? {
        return Ok(Ending::quiet(Exit::Success));
    }
    Ok(Ending::with(Exit::Failed, Note::ServersFailed { failed }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_skipped_server_is_named_with_why() {
        let notes = skipped_notes([("web03", "no samples"), ("db02", "unreadable")]);
        assert_eq!(
            notes,
            vec![
                "skipped server web03: no samples".to_string(),
                "skipped server db02: unreadable".to_string()
            ]
        );
    }

    #[test]
    fn a_fleet_with_skipped_servers_ends_failed_and_counts_them() {
        use crate::ending::{Exit, Note};
        assert_eq!(fleet_ending(3, 0).unwrap().exit, Exit::Success);
        let some = fleet_ending(3, 2).unwrap();
        assert_eq!(some.exit, Exit::Failed);
        assert_eq!(some.notes, vec![Note::ServersFailed { failed: 2 }]);
        assert_eq!(
            some.notes[0].to_string(),
            "2 servers failed and were skipped; exit code 1"
        );
        assert!(fleet_ending(0, 2).unwrap_err().is_bad_input());
    }
    use crate::fleet_plan::{plan_fleet_to, FleetOutputs, FleetPlanRequest};
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Two servers with good captures and one whose capture has no samples.
    fn captures(dir: &Path) -> PathBuf {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
        let captures = dir.join("captures");
        std::fs::create_dir_all(&captures).unwrap();
        let iostat = data.join("iostat/sysstat-12.6.1_x_pretty_1s.txt");
        std::fs::copy(iostat, captures.join("db01.txt")).unwrap();
        let perfmon = data.join("perfmon/typeperf_en-US_15s.csv");
        std::fs::copy(perfmon, captures.join("sql02.csv")).unwrap();
        std::fs::write(captures.join("web03.txt"), "Device tps\n").unwrap();
        captures
    }

    #[test]
    fn a_fleet_is_profiled_skipping_a_bad_server_then_planned_into_its_outputs() {
        let dir = tempfile::tempdir().unwrap();
        let inputs = [captures(dir.path())];
        let out = dir.path().join("req");
        let (total, ticks) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let outcome = profile_fleet(
            &FleetProfileRequest {
                inputs: &inputs,
                mapping: None,
                out: &out,
                allow_overwrite: false,
                parse: &ParseOptions::default(),
                sizing: &SizingOptions::default(),
                threads: 2,
            },
            &|n| total.store(n, Ordering::SeqCst),
            &|| {
                ticks.fetch_add(1, Ordering::SeqCst);
            },
        )
        .unwrap();
        assert_eq!((outcome.servers, outcome.files, outcome.written), (3, 3, 2));
        assert_eq!(total.load(Ordering::SeqCst), 3);
        assert_eq!(ticks.load(Ordering::SeqCst), 3);
        assert_eq!(outcome.skipped.len(), 1);
        assert_eq!(outcome.skipped[0].0, "web03");
        let notes = outcome.skipped_notes();
        assert_eq!(notes.len(), 1);
        assert!(notes[0].starts_with("skipped server web03: "), "{notes:?}");
        assert!(outcome
            .summary()
            .starts_with("profiled 2 of 3 servers (3 capture files) into "));
        assert!(out.join("db01.toml").exists() && !out.join("web03.toml").exists());
        assert!(!fleet_passed(outcome.written, outcome.skipped.len()).unwrap());

        let outputs = FleetOutputs {
            csv: Some(dir.path().join("fleet.csv")),
            html: Some(dir.path().join("fleet.html")),
            allow_overwrite: false,
        };
        let request = FleetPlanRequest {
            dir: out.clone(),
            catalog: crate::plan::CatalogChoice {
                edition: iofit_catalog::EDITION_CURRENT.into(),
                ..Default::default()
            },
            caching: None,
            cache_hit_pct: 0.0,
            service_latency_ms: None,
            min_headroom_pct: 10.0,
            busy_hours_per_month: iofit_planner::HOURS_PER_MONTH,
            threads: 2,
        };
        let servers = AtomicUsize::new(0);
        let fleet = plan_fleet_to(
            &request,
            &outputs,
            &|n| servers.store(n, Ordering::SeqCst),
            &|| {},
        )
        .unwrap();
        assert_eq!(servers.load(Ordering::SeqCst), 2);
        assert_eq!(fleet.rows.len(), 2);
        assert!(fleet_passed(fleet.rows.len(), fleet.failed.len()).unwrap());
        let csv = std::fs::read_to_string(outputs.csv.as_ref().unwrap()).unwrap();
        assert!(csv.lines().any(|l| l.starts_with("db01,")), "{csv}");
        let html = std::fs::read_to_string(outputs.html.as_ref().unwrap()).unwrap();
        assert!(html.contains("iofit fleet plan: "));

        // An output onto the directory read is refused before any work.
        let onto_dir = FleetOutputs {
            csv: Some(out.clone()),
            ..Default::default()
        };
        let error = plan_fleet_to(&request, &onto_dir, &|_| panic!("no work"), &|| {}).unwrap_err();
        assert!(
            error.is_bad_input() && error.to_string().contains("--fleet-csv"),
            "{error}"
        );
    }

    #[test]
    fn a_fleet_where_no_server_could_be_done_is_bad_input() {
        let error = fleet_passed(0, 3).unwrap_err();
        assert!(error.is_bad_input());
        assert_eq!(
            error.to_string(),
            "all 3 servers failed (each named above); fix their captures"
        );
        assert!(fleet_passed(4, 0).unwrap());
    }
}
