//! What a vdbench file's runs measured: iofit's JSON document of the file and the text of
//! vdbench's reports so far. The procedure ([`crate::vdbench`]) fills it and
//! [`crate::vdbench_output`] writes it out; neither needs the other to read it.

use iofit_jobfile::vdbench::Run;
use iofit_model::units::{Iops, Millis, Seconds};
use iofit_report::vdbench_summary::AvgLine;
use iofit_stats::RunResult;
use serde::Serialize;

/// iofit's JSON for a vdbench file.
#[derive(Serialize, Debug, Default)]
pub struct VdbenchJson {
    pub tool: String,
    pub dialect: String,
    pub file: String,
    /// A signal stopped the file: the last run holds what it had measured until then, and
    /// the runs after it did not run.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    pub runs: Vec<RunJson>,
    pub curves: Vec<CurveJson>,
    /// File system runs (fsd/fwd): per operation, as vdbench's file system summary.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub fs_runs: Vec<FsRunJson>,
}

/// One file system run: its format phase and its measured run, one line per operation.
#[derive(Serialize, Debug)]
pub struct FsRunJson {
    pub rd: String,
    pub for_label: String,
    pub format: Option<FsPhaseJson>,
    pub run: Option<FsPhaseJson>,
    /// (fsd, files present after the run, files in the tree)
    pub files: Vec<(String, usize, usize)>,
    /// A signal stopped the format or the run before its end: the numbers cover what ran
    /// until then.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub interrupted: bool,
    /// A run on several hosts: each host's part (`rd` holds the hd's name); the run's own
    /// figures are their total.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub hosts: Vec<FsRunJson>,
}

#[derive(Serialize, Debug)]
pub struct FsPhaseJson {
    pub seconds: Seconds,
    /// Until the last operation (shorter when the workload ran out of files).
    pub busy_seconds: Seconds,
    pub operations: Vec<iofit_fswork::report::OpLine>,
    /// Attempts that found no file or directory in the state the operation needs.
    pub no_candidate: u64,
    /// vdbench's interval lines (empty for the format phase); the non-warmup ones add up to
    /// `operations`.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub intervals: Vec<iofit_fswork::interval::Interval>,
}

#[derive(Serialize, Debug)]
pub struct RunJson {
    pub rd: String,
    pub for_label: String,
    pub iorate: String,
    pub target_iops: Option<Iops>,
    pub threads_per_sd: u32,
    pub total_threads: u32,
    pub elapsed_s: Seconds,
    pub warmup_s: Seconds,
    pub avg_iops: Iops,
    pub avg_mib_per_s: f64,
    pub avg_read_pct: f64,
    pub avg_resp_ms: Millis,
    pub result: RunResult,
    /// Per host of a multi-host run (empty on one machine); `result` is their combination.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub hosts: Vec<RunResult>,
}

impl RunJson {
    /// One run's record: its settings, the averages of its summary, its result and (for a
    /// multi-host run) each host's.
    pub fn new(
        run: &Run,
        label: &str,
        rate: Option<f64>,
        avg: &AvgLine,
        result: RunResult,
        hosts: Vec<RunResult>,
    ) -> RunJson {
        RunJson {
            rd: run.rd.clone(),
            for_label: run.for_label.clone(),
            iorate: label.to_string(),
            target_iops: rate.map(Iops),
            threads_per_sd: run.threads,
            total_threads: run.total_threads(),
            elapsed_s: Seconds(run.elapsed.as_secs_f64()),
            warmup_s: Seconds(run.warmup.as_secs_f64()),
            avg_iops: avg.line.iops,
            avg_mib_per_s: avg.line.mib_per_s,
            avg_read_pct: avg.line.read_pct,
            avg_resp_ms: avg.line.resp_ms,
            result,
            hosts,
        }
    }
}

#[derive(Serialize, Debug)]
pub struct CurveJson {
    pub rd: String,
    pub for_label: String,
    pub max_iops: Iops,
    /// (label, target IO/s, measured IO/s, response ms)
    pub points: Vec<(String, Option<f64>, f64, f64)>,
    pub knee: Option<String>,
}

/// What a whole file's runs measured.
#[derive(Debug)]
pub struct VdbenchOutcome {
    pub doc: VdbenchJson,
    /// vdbench flatfile rows so far (raw runs' intervals and averages, file system totals).
    pub flat_rows: Vec<iofit_report::vdbench_flatfile::FlatRow>,
    /// A run stopped on an IO error.
    pub failed: bool,
    /// A stop (Ctrl-C) ended the file early.
    pub interrupted: bool,
    /// Bad units validate=yes found over every run.
    pub data_errors: u64,
    /// What vdbench's output directory holds, so far.
    pub reports: Reports,
}

/// The text of vdbench's reports so far (written by [`crate::vdbench_output`]).
#[derive(Debug, Default)]
pub struct Reports {
    /// Each run's summary: Starting line, headers, interval lines, avg/std/max lines.
    pub summaries: Vec<String>,
    /// logfile.html's lines: notes, each run's start, the end.
    pub log: Vec<String>,
    /// errorlog.html's lines: IO and data errors.
    pub errors: Vec<String>,
    /// Each raw run's response time histogram.
    pub histograms: Vec<String>,
    /// The parameter file as read.
    pub parmfile: String,
}

impl Reports {
    pub(crate) fn log(&mut self, line: String) {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or(0.0);
        self.log.push(format!(
            "{} {line}",
            iofit_report::vdbench_summary::time_of_day(now)
        ));
    }
}
