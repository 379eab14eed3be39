//! The files job options name besides the jobs' data files: what each option with a path role
//! in the table (`Role::Output`, `Role::Input`) makes the run write or read, named as the
//! engine names them. The output guard checks the outputs against the inputs and targets from
//! this one list, so an option given a path role is guarded without another list to edit.

use crate::fio_options::{table, PathKind, Role, Takes};
use iofit_model::job::JobSpec;
use std::path::PathBuf;

/// One file an option of a job names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedPath {
    pub path: PathBuf,
    /// The option that names it, as the table names it (`write_iolog`).
    pub option: &'static str,
    pub kind: PathKind,
    /// The job whose option it is.
    pub job: String,
}

/// The files the jobs' options make the run write and read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JobPaths {
    pub outputs: Vec<NamedPath>,
    pub inputs: Vec<NamedPath>,
}

/// An option of the table that names a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathOption {
    pub name: &'static str,
    pub kind: PathKind,
    /// The run writes the file (else it reads it).
    pub output: bool,
    /// The option takes the file's name as its value (else it is a flag and the name follows
    /// from the job's name).
    pub takes_value: bool,
}

/// Every option of the table with a path role.
pub fn path_options() -> Vec<PathOption> {
    table()
        .rows()
        .filter_map(|o| {
            let (kind, output) = match o.role {
                Role::Output(kind) => (kind, true),
                Role::Input(kind) => (kind, false),
                _ => return None,
            };
            Some(PathOption {
                name: o.name,
                kind,
                output,
                takes_value: o.takes == Takes::Value,
            })
        })
        .collect()
}

/// The files `option` of `job` names; `first_clone` is the run-wide number of the job's first
/// clone (fio numbers log files by thread, counting from 1 over every job of the run).
/// `None` for an option without a path role.
pub(crate) fn files_of(option: &str, job: &JobSpec, first_clone: u32) -> Option<Vec<PathBuf>> {
    let logs = &job.logs;
    let clones = job.numjobs.max(1);
    let log_files = |prefix: &Option<String>, suffixes: &[&str]| -> Vec<PathBuf> {
        let Some(prefix) = prefix else {
            return Vec::new();
        };
        let mut files = Vec::new();
        for suffix in suffixes {
            if logs.shared_file {
                files.push(PathBuf::from(format!("{prefix}_{suffix}.log")));
                continue;
            }
            for number in first_clone..first_clone + clones {
                files.push(PathBuf::from(format!("{prefix}_{suffix}.{number}.log")));
            }
        }
        files
    };
    let verify = &job.data.verify;
    let states = |dir: &Option<PathBuf>| -> Vec<PathBuf> {
        let Some(dir) = dir else { return Vec::new() };
        let stem = verify.state_name.as_deref().unwrap_or(&job.name);
        (0..clones)
            .map(|clone| dir.join(format!("{stem}-{clone}-verify.state")))
            .collect()
    };
    Some(match option {
        "write_iolog" => job.write_iolog.iter().cloned().collect(),
        "write_bw_log" => log_files(&logs.bw_prefix, &["bw"]),
        "write_iops_log" => log_files(&logs.iops_prefix, &["iops"]),
        "write_lat_log" => log_files(&logs.lat_prefix, &["lat", "clat", "slat"]),
        "write_hist_log" => log_files(&logs.hist_prefix, &["clat_hist"]),
        "verify_state_save" => states(&verify.state_save),
        "read_iolog" => job.replay.iter().flat_map(|r| r.logs.clone()).collect(),
        "verify_state_load" => states(&verify.state_load),
        _ => return None,
    })
}

/// Every file the options of `jobs` name, outputs and inputs, from the table's path roles.
pub fn job_paths(jobs: &[JobSpec]) -> JobPaths {
    let options = path_options();
    let mut paths = JobPaths::default();
    let mut first_clone = 1;
    for job in jobs {
        for option in &options {
            let list = if option.output {
                &mut paths.outputs
            } else {
                &mut paths.inputs
            };
            for path in files_of(option.name, job, first_clone).unwrap_or_default() {
                let named = NamedPath {
                    path,
                    option: option.name,
                    kind: option.kind,
                    job: job.name.clone(),
                };
                if !list
                    .iter()
                    .any(|n| n.path == named.path && n.option == named.option)
                {
                    list.push(named);
                }
            }
        }
        first_clone += job.numjobs.max(1);
    }
    paths
}
