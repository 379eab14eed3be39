//! iofit-fleet: profiles and plans many servers at once, as migration projects size them
//! (Azure Migrate assesses groups of machines). Captures are grouped into servers (one file
//! each, named by its stem, or several files per server through a mapping file), each server is
//! profiled into requirements, and each requirements file is planned; the servers run on every
//! core, and one bad capture is reported and skipped without losing the others. The result is
//! one table (server, volumes, VM, disks, monthly cost, binding limit, headroom) with totals:
//! typed data ([`FleetPlan`], [`ServerFailure`]) that `iofit_report::fleet_table` renders as
//! text, CSV and HTML.
//!
//! ```
//! use iofit_fleet::group_servers;
//! use std::path::PathBuf;
//!
//! let files = vec![PathBuf::from("db01.txt"), PathBuf::from("web02.csv")];
//! let servers = group_servers(&files, None).unwrap();
//! assert_eq!(servers[0].label, "db01");
//! assert_eq!(servers[1].files, vec![PathBuf::from("web02.csv")]);
//! ```

use iofit_model::Requirements;
use iofit_planner::{CatalogRows, PlanError, PlanOptions};
use iofit_profile::{ParseOptions, ProfileError, SizingOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Why a fleet could not even start (one server's failure is a [`Failed`] row instead).
#[derive(Debug, thiserror::Error)]
pub enum FleetError {
    #[error("{path}: cannot read: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}:{line}: {message}; {fix}")]
    Mapping {
        file: String,
        line: usize,
        message: String,
        fix: String,
    },
    #[error("{0}")]
    Empty(String),
}

/// The files of `inputs`: files as given, directories' regular, non-hidden files sorted by name
/// (not recursive).
pub fn expand(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, FleetError> {
    let mut files = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let entries = std::fs::read_dir(input).map_err(|source| FleetError::Io {
                path: input.display().to_string(),
                source,
            })?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .filter(|p| {
                    !p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with('.'))
                })
                .collect();
            found.sort();
            files.extend(found);
        } else {
            files.push(input.clone());
        }
    }
    if files.is_empty() {
        return Err(FleetError::Empty(
            "no capture files found; name files or directories holding iostat, sar, sadf, \
             PerfMon or Azure Monitor captures"
                .into(),
        ));
    }
    Ok(files)
}

/// One server: its label and the captures that describe it (appended, in order).
#[derive(Clone, Debug, PartialEq)]
pub struct Server {
    pub label: String,
    pub files: Vec<PathBuf>,
}

/// A file's default server label: its stem, the name without the last extension
/// (`db01.iostat.txt` -> `db01.iostat`, `web02.csv` -> `web02`).
pub fn label_of(path: &Path) -> String {
    path.file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Groups files into servers: by `mapping` (a text file of `FILE,SERVER` lines, FILE being a
/// file name or its stem; `#` starts a comment) where it names a file, else by [`label_of`].
/// Servers keep the order of their first file.
pub fn group_servers(files: &[PathBuf], mapping: Option<&Path>) -> Result<Vec<Server>, FleetError> {
    let map = match mapping {
        Some(path) => read_mapping(path)?,
        None => Vec::new(),
    };
    let mut servers: Vec<Server> = Vec::new();
    for file in files {
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let stem = label_of(file);
        let label = map
            .iter()
            .find(|(key, _)| *key == name || *key == stem)
            .map(|(_, server)| server.clone())
            .unwrap_or(stem);
        match servers.iter_mut().find(|s| s.label == label) {
            Some(server) => server.files.push(file.clone()),
            None => servers.push(Server {
                label,
                files: vec![file.clone()],
            }),
        }
    }
    Ok(servers)
}

fn read_mapping(path: &Path) -> Result<Vec<(String, String)>, FleetError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| FleetError::Io {
        path: file.clone(),
        source,
    })?;
    let mut map = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let Some((capture, server)) = line.split_once(',') else {
            return Err(FleetError::Mapping {
                file: file.clone(),
                line: index + 1,
                message: format!("'{line}' is not FILE,SERVER"),
                fix: "write one capture per line: file name (or its stem), comma, server label"
                    .into(),
            });
        };
        let (capture, server) = (capture.trim(), server.trim());
        if capture.is_empty() || server.is_empty() || server.contains(['/', '\\']) {
            return Err(FleetError::Mapping {
                file: file.clone(),
                line: index + 1,
                message: format!("'{line}' needs a file and a server label without slashes"),
                fix: "e.g. db01-peak.iostat.txt,db01".into(),
            });
        }
        map.push((capture.to_string(), server.to_string()));
    }
    Ok(map)
}

/// What happened to one server.
#[derive(Clone, Debug)]
pub struct ServerResult<T> {
    pub label: String,
    pub result: Result<T, ServerFailure>,
}

/// Why one server has no row in the fleet's table. The lower crates' errors are kept as they
/// are (shared, so a failure can be copied into the plan); `Display` gives the one line the
/// table and the terminal show.
#[derive(Clone, Debug, thiserror::Error, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ServerFailure {
    /// Its captures could not be read or summarised.
    #[error("{error}")]
    Capture {
        #[serde(serialize_with = "as_text")]
        error: Arc<ProfileError>,
    },
    /// Its requirements file could not be read.
    #[error("{}: cannot read: {error}", path.display())]
    Unreadable {
        path: PathBuf,
        #[serde(serialize_with = "as_text")]
        error: Arc<std::io::Error>,
    },
    /// Its requirements file is not requirements TOML (line and column where known).
    #[error("{}: {}{message}", path.display(), at(*line, *column))]
    NotRequirements {
        path: PathBuf,
        line: Option<usize>,
        column: Option<usize>,
        message: String,
    },
    /// Its requirements are out of range (or the planner refused them).
    #[error("{}{error}", path.as_ref().map(|p| format!("{}: ", p.display())).unwrap_or_default())]
    Invalid {
        path: Option<PathBuf>,
        #[serde(serialize_with = "as_text")]
        error: PlanError,
    },
    /// No design meets the requirements; what ruled out each VM the planner gave up on.
    #[error("no design meets the requirements{}", joined(impossible))]
    NoDesign {
        impossible: Vec<iofit_planner::ImpossibleReason>,
    },
}

/// ": reason; reason" after "no design meets the requirements", or nothing without reasons.
fn joined(impossible: &[iofit_planner::ImpossibleReason]) -> String {
    if impossible.is_empty() {
        return String::new();
    }
    let reasons: Vec<String> = impossible.iter().map(ToString::to_string).collect();
    format!(": {}", reasons.join("; "))
}

fn at(line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(line), Some(column)) => format!("line {line}, column {column}: "),
        (Some(line), None) => format!("line {line}: "),
        _ => String::new(),
    }
}

fn as_text<T: std::fmt::Display, S: serde::Serializer>(
    value: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

impl ServerFailure {
    /// A requirements file's TOML error, with the line and column of its span.
    fn toml(path: &Path, text: &str, error: &toml::de::Error) -> ServerFailure {
        let (line, column) = match error.span() {
            Some(span) => {
                let before = &text[..span.start.min(text.len())];
                let line = before.matches('\n').count() + 1;
                let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
                (Some(line), Some(column))
            }
            None => (None, None),
        };
        ServerFailure::NotRequirements {
            path: path.to_path_buf(),
            line,
            column,
            message: error
                .message()
                .replace('\n', " ")
                .trim_end_matches('.')
                .to_string(),
        }
    }
}

/// Runs `work` on every item with `threads` workers (at least 1), results in input order;
/// `done` is called after each item (for a progress bar).
pub fn run_parallel<I: Sync, T: Send>(
    items: &[I],
    threads: usize,
    work: impl Fn(&I) -> T + Sync,
    done: &(dyn Fn() + Sync),
) -> Vec<T> {
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<T>>> = items.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, items.len().max(1)) {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(index) else { break };
                let value = work(item);
                *slots[index].lock().unwrap_or_else(|e| e.into_inner()) = Some(value);
                done();
            });
        }
    });
    slots
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every item ran")
        })
        .collect()
}

/// Profiles every server into requirements (one server's error does not stop the others).
/// Each server's capture is parsed on one core; servers run in parallel.
pub fn profile_fleet(
    servers: &[Server],
    parse: &ParseOptions,
    sizing: &SizingOptions,
    threads: usize,
    done: &(dyn Fn() + Sync),
) -> Vec<ServerResult<Requirements>> {
    run_parallel(
        servers,
        threads,
        |server| {
            let paths: Vec<&Path> = server.files.iter().map(PathBuf::as_path).collect();
            let result = iofit_profile::parse_files_serial(&paths, parse)
                .and_then(|capture| iofit_profile::requirements(&capture, sizing))
                .map_err(|error| ServerFailure::Capture {
                    error: Arc::new(error),
                });
            ServerResult {
                label: server.label.clone(),
                result,
            }
        },
        done,
    )
}

/// Writes each server's requirements to `dir/LABEL.toml` through safefs's door (whole or not
/// at all); returns the paths written. An existing file is replaced only when it is an
/// earlier iofit output (safefs's stamp) unless `allow_overwrite`; every name is checked
/// before any file is written.
pub fn write_requirements(
    dir: &Path,
    profiles: &[ServerResult<Requirements>],
    allow_overwrite: bool,
) -> Result<Vec<PathBuf>, FleetError> {
    use iofit_safefs::output::{check, write, OutputKind};
    iofit_safefs::scratch::create_output_dirs(dir).map_err(|e| FleetError::Empty(e.to_string()))?;
    let mut texts = Vec::new();
    for profile in profiles {
        let Ok(requirements) = &profile.result else {
            continue;
        };
        let path = dir.join(format!("{}.toml", profile.label));
        check(&path, OutputKind::Report, allow_overwrite)
            .map_err(|e| FleetError::Empty(e.to_string()))?;
        let body = toml::to_string_pretty(requirements)
            .map_err(|e| FleetError::Empty(format!("internal: {e}")))?;
        let text = format!(
            "{HEADER} server '{}' from {}.\n\n{body}",
            profile.label, requirements.source
        );
        texts.push((path, text));
    }
    let mut written = Vec::new();
    for (path, text) in texts {
        write(&path, OutputKind::Report, allow_overwrite, text.as_bytes())
            .map_err(|e| FleetError::Empty(e.to_string()))?;
        written.push(path);
    }
    Ok(written)
}

/// First line of every requirements file the fleet writes.
const HEADER: &str = "# Requirements written by `iofit profile --fleet-out` for";

/// Reads every `*.toml` of `dir` (sorted) as one server's requirements, named by its stem.
pub fn read_requirements_dir(dir: &Path) -> Result<Vec<ServerResult<Requirements>>, FleetError> {
    let entries = std::fs::read_dir(dir).map_err(|source| FleetError::Io {
        path: dir.display().to_string(),
        source,
    })?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(FleetError::Empty(format!(
            "{}: no *.toml requirements files; write them with `iofit profile CAPTURES... \
             --fleet-out {}`",
            dir.display(),
            dir.display()
        )));
    }
    Ok(paths
        .iter()
        .map(|path| {
            let label = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let result = std::fs::read_to_string(path)
                .map_err(|error| ServerFailure::Unreadable {
                    path: path.clone(),
                    error: Arc::new(error),
                })
                .and_then(|text| {
                    toml::from_str::<Requirements>(&text)
                        .map_err(|e| ServerFailure::toml(path, &text, &e))
                })
                .and_then(|r| {
                    iofit_planner::validate(&r)
                        .map(|_| r)
                        .map_err(|error| ServerFailure::Invalid {
                            path: Some(path.clone()),
                            error,
                        })
                });
            ServerResult { label, result }
        })
        .collect())
}

/// The fleet's result types live in `iofit_planner::fleet_plan` (so that renderers need no
/// crate that reads files); here they are named with this crate's failure type.
pub use iofit_planner::fleet_plan::{FleetRow, FleetVolume};
/// A server with no row, and why.
pub type FailedServer = iofit_planner::fleet_plan::FailedServer<ServerFailure>;
/// The fleet's table, the servers that failed, and totals.
pub type FleetPlan = iofit_planner::fleet_plan::FleetPlan<ServerFailure>;

/// Plans every server (in parallel) and picks its cheapest design.
pub fn plan_fleet(
    servers: &[ServerResult<Requirements>],
    rows: &CatalogRows,
    options: &PlanOptions,
    threads: usize,
    done: &(dyn Fn() + Sync),
) -> FleetPlan {
    plan_fleet_per_server(
        servers,
        std::slice::from_ref(rows),
        &|_| 0,
        options,
        threads,
        done,
    )
}

/// [`plan_fleet`] with rows chosen per server: `choose` gives the index into `rows` of the
/// rows a server's requirements may use (e.g. x64 sizes only for a Windows capture).
pub fn plan_fleet_per_server(
    servers: &[ServerResult<Requirements>],
    rows: &[CatalogRows],
    choose: &(dyn Fn(&Requirements) -> usize + Sync),
    options: &PlanOptions,
    threads: usize,
    done: &(dyn Fn() + Sync),
) -> FleetPlan {
    let options = PlanOptions {
        top: 1,
        ..options.clone()
    };
    let results = run_parallel(
        servers,
        threads,
        |server| -> Result<FleetRow, ServerFailure> {
            let requirements = server.result.as_ref().map_err(Clone::clone)?;
            let rows = rows
                .get(choose(requirements))
                .ok_or(ServerFailure::Invalid {
                    path: None,
                    error: PlanError::NoVms,
                })?;
            let plan = iofit_planner::plan(requirements, rows, &options)
                .map_err(|error| ServerFailure::Invalid { path: None, error })?;
            let Some(best) = plan.designs.first() else {
                return Err(ServerFailure::NoDesign {
                    impossible: plan.impossible,
                });
            };
            Ok(row_of(&server.label, requirements, best))
        },
        done,
    );
    let mut fleet = FleetPlan {
        currency: options.currency.clone(),
        ..FleetPlan::default()
    };
    for (server, result) in servers.iter().zip(results) {
        match result {
            Ok(row) => {
                match row.price_per_month {
                    Some(cost) => fleet.total_price_per_month += cost,
                    None => fleet.unpriced += 1,
                }
                fleet.total_volumes += row.volumes;
                fleet.rows.push(row);
            }
            Err(failure) => fleet.failed.push(FailedServer {
                server: server.label.clone(),
                failure,
            }),
        }
    }
    fleet
}

fn row_of(
    label: &str,
    requirements: &Requirements,
    best: &iofit_planner::PlannedDesign,
) -> FleetRow {
    let disks = best
        .design
        .volumes
        .iter()
        .map(|v| FleetVolume {
            label: v.label.clone(),
            disk_count: v.disk_count,
            disk_sku: v.disk_sku.clone(),
        })
        .collect();
    let binding = best.prediction.binding.clone();
    let headroom_pct = binding
        .as_ref()
        .and_then(|b| (b.limit > 0.0).then(|| (b.limit - b.used) / b.limit * 100.0));
    FleetRow {
        server: label.to_string(),
        volumes: requirements.volumes.len(),
        vm: best.vm.clone(),
        disks,
        price_per_month: best.total_usd_month,
        binding,
        headroom_pct,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/data")
            .join(name)
    }

    #[test]
    fn mapping_groups_captures_into_servers() {
        let dir = tempfile::tempdir().unwrap();
        let map = dir.path().join("servers.csv");
        std::fs::write(&map, "# capture,server\npeak.txt,db01\nnormal,db01\n").unwrap();
        let files: Vec<PathBuf> = ["normal.txt", "web.csv", "peak.txt"]
            .iter()
            .map(PathBuf::from)
            .collect();
        let servers = group_servers(&files, Some(&map)).unwrap();
        assert_eq!(servers.len(), 2);
        assert_eq!(servers[0].label, "db01");
        assert_eq!(
            servers[0].files,
            vec![PathBuf::from("normal.txt"), PathBuf::from("peak.txt")]
        );
        assert_eq!(servers[1].label, "web");
        std::fs::write(&map, "peak.txt db01\n").unwrap();
        let error = group_servers(&files, Some(&map)).unwrap_err().to_string();
        assert!(
            error.contains("servers.csv:1") && error.contains("FILE,SERVER"),
            "{error}"
        );
    }

    #[test]
    fn parallel_results_keep_input_order() {
        let items: Vec<u64> = (0..200).collect();
        let count = AtomicUsize::new(0);
        let done = || {
            count.fetch_add(1, Ordering::Relaxed);
        };
        let out = run_parallel(&items, 4, |x| x * 2, &done);
        assert_eq!(out, items.iter().map(|x| x * 2).collect::<Vec<_>>());
        assert_eq!(count.load(Ordering::Relaxed), 200);
    }

    #[test]
    fn a_bad_capture_is_skipped_and_the_rest_profiled() {
        let dir = tempfile::tempdir().unwrap();
        let bad = dir.path().join("broken.txt");
        std::fs::write(&bad, "this is not a capture\n").unwrap();
        let servers = group_servers(
            &[
                data("iostat/sysstat-12.6.1_x_pretty_1s.txt"),
                bad,
                data("perfmon/typeperf_en-US_15s.csv"),
            ],
            None,
        )
        .unwrap();
        let profiles = profile_fleet(
            &servers,
            &ParseOptions::default(),
            &SizingOptions::default(),
            2,
            &|| {},
        );
        assert_eq!(profiles.len(), 3);
        assert!(profiles[0].result.is_ok());
        let why = profiles[1].result.as_ref().unwrap_err();
        assert!(matches!(why, ServerFailure::Capture { .. }), "{why:?}");
        let why = why.to_string();
        assert!(
            why.contains("broken.txt") && why.contains("not a recognised capture"),
            "{why}"
        );
        assert!(profiles[2].result.is_ok());
        let out = dir.path().join("req");
        let written = write_requirements(&out, &profiles, false).unwrap();
        assert_eq!(written.len(), 2);
        // Written again: iofit's own files are replaced; a foreign one is not.
        assert_eq!(write_requirements(&out, &profiles, false).unwrap().len(), 2);
        std::fs::write(&written[0], "mine\n").unwrap();
        assert!(write_requirements(&out, &profiles, false).is_err());
        let read = read_requirements_dir(&out).unwrap();
        assert_eq!(read.len(), 2);
        assert_eq!(read[1].label, "typeperf_en-US_15s");
        // The foreign file does not parse: the failure says where.
        match &read[0].result {
            Err(ServerFailure::NotRequirements { line, path, .. }) => {
                assert_eq!(*line, Some(1));
                assert_eq!(path, &written[0]);
            }
            other => panic!("{other:?}"),
        }
        assert!(read[1].result.is_ok());
    }
}
