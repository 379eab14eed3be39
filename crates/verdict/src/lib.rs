//! iofit-verdict: benchmark results against requirements, metric by metric, with the method's
//! advice where a metric fails. Domain logic only: `iofit-report` renders the [`Comparison`]
//! (text, JSON, CSV, Markdown, HTML) and re-exports this crate as `iofit_report::compare`.
//!
//! Two halves:
//! - [`read_results`] reads a results file in fio's JSON format, from real fio 3.x (and the
//!   microsecond fields of fio 2.x) or from `iofit run --output-format json`, into the engine's
//!   [`RunResult`]. It is tolerant: only what compare needs must be present, everything else
//!   defaults; a missing key is named with its path (`jobs[0].read.iops`).
//! - [`compare`] turns a [`RunResult`] and one volume's [`VolumeRequirements`] into a
//!   [`Comparison`]: required vs measured for IOPS, MB/s, latency (avg, p99), read share, IO size
//!   and queue depth, pass/fail with margin, and advice that names the likely cause of a failure.
//!
//! ```
//! use iofit_model::requirements::{SizingTarget, VolumeRequirements};
//! use iofit_verdict::{compare, read_results, CompareContext, Metric, Verdict};
//!
//! // A fio 3.x JSON document, cut down to what compare needs: 4,000 IOPS of 8 KiB reads at
//! // 0.8 ms on one job with iodepth 4.
//! let json = r#"{"fio version": "fio-3.33", "jobs": [{"jobname": "r", "groupid": 0,
//!   "job options": {"rw": "randread", "bs": "8k", "iodepth": "4", "ioengine": "libaio"},
//!   "read": {"io_bytes": 327680000, "bw_bytes": 32768000, "iops": 4000.0, "runtime": 10000,
//!            "total_ios": 40000, "lat_ns": {"min": 1, "max": 9, "mean": 800000.0}},
//!   "write": {"io_bytes": 0, "bw_bytes": 0, "iops": 0.0, "runtime": 0, "total_ios": 0}}]}"#;
//! let run = read_results(json, "results.json").unwrap();
//! let volume = VolumeRequirements {
//!     label: "data".into(),
//!     sizing: SizingTarget { iops: 5000.0, throughput_mb_s: 30.0, latency_ms: Some(1.0),
//!         io_size_bytes: 8192, read_pct: 100.0, ..Default::default() },
//!     ..Default::default()
//! };
//! let jobs: Vec<_> = run.jobs.iter().collect();
//! let comparison = compare(&jobs, &volume, &CompareContext::default(), "results.json", "req.toml");
//! assert!(!comparison.passed);
//! let iops = comparison.check(Metric::Iops).unwrap();
//! assert_eq!(iops.verdict, Verdict::Fail);
//! assert_eq!(iops.margin_text(), "-20.0%");
//! // Little's law: 5,000 IOPS x 0.8 ms = 4 outstanding, and the job kept exactly 4 in flight.
//! assert_eq!(comparison.check(Metric::QueueDepth).unwrap().verdict, Verdict::Pass);
//! ```

mod fio_keys;
mod limits;
use iofit_model::design::HostCaching;
use iofit_model::formulas::outstanding_ios;
use iofit_model::job::{EngineKind, RwMode};
use iofit_model::requirements::{VolumeRequirements, VolumeRole};
use iofit_model::units::group_thousands;
use iofit_stats::{DirectionResult, IntervalSample, JobResult, LatencySummary, RunResult};
pub use limits::{limit_bars_from_prediction, LimitBar, LimitScope};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// How far the benchmark's read share may stray from the application's before the mix counts
/// as a different workload, in percentage points. iofit's choice: fio's own `rwmixread` runs
/// land within a point or two, so 5 points only flags a job written for another mix.
pub const READ_PCT_TOLERANCE_POINTS: f64 = 5.0;
/// How far the benchmark's average IO size may stray from the application's, percent. iofit's
/// choice; the seed's IO-size table shows a different size is a different workload.
pub const IO_SIZE_TOLERANCE_PCT: f64 = 10.0;
/// Outstanding IOs per member disk a stripe needs to be busy (SPEC: "8-16+ outstanding IOs per
/// attached disk"); the low end is the floor below which compare advises.
pub const STRIPE_QD_PER_DISK: u32 = 8;
/// Average read latency above which reads on a host-cached disk look like cache misses. The
/// seed says ReadOnly caching gives "very low read latency"; sub-millisecond is iofit's reading
/// of that, a heuristic threshold, not a published number.
pub const CACHE_HIT_LATENCY_MS: f64 = 1.0;
/// A run shorter than this on a cached volume measures a cold cache (the seed warms it for 2 h
/// with 1 MB random writes then reads before measuring). iofit's threshold.
pub const SHORT_RUN_S: f64 = 300.0;
/// A measured rate within this share of a predicted limit (either side) counts as "at the limit".
pub const AT_LIMIT_FRACTION: f64 = 0.9;

/// Why a results file could not be read. Every message names the file and, where it applies,
/// the key.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ResultsError {
    #[error("{file}: not a JSON document: {message}; give the output of `fio --output-format=json` or `iofit run --output-format json`")]
    NotJson { file: String, message: String },
    #[error("{file}: missing key '{key}'; {hint}")]
    MissingKey {
        file: String,
        key: String,
        hint: String,
    },
    #[error("{file}: key '{key}': {message}")]
    BadValue {
        file: String,
        key: String,
        message: String,
    },
}

/// Reads fio-format JSON results. `file` only names the source in errors.
///
/// Text before the document (fio prints warnings such as `fio: ...` to stdout ahead of the
/// JSON when stderr and stdout are joined) is skipped up to the first line that opens an object.
pub fn read_results(text: &str, file: &str) -> Result<RunResult, ResultsError> {
    let start = json_start(text).ok_or_else(|| ResultsError::NotJson {
        file: file.to_string(),
        message: if text.trim().is_empty() {
            "the file is empty".to_string()
        } else {
            "no line starts a JSON object ('{')".to_string()
        },
    })?;
    // The first JSON value; anything after it (fio may print warnings once the document is
    // done) is left alone.
    let not_json = |error: serde_json::Error| ResultsError::NotJson {
        file: file.to_string(),
        message: format!(
            "{} at line {}, column {}",
            error_text(&error),
            error.line() + text[..start].lines().count(),
            error.column()
        ),
    };
    let document: Value = serde_json::Deserializer::from_str(&text[start..])
        .into_iter::<Value>()
        .next()
        .ok_or_else(|| ResultsError::NotJson {
            file: file.to_string(),
            message: "no JSON value".to_string(),
        })?
        .map_err(not_json)?;
    FioReader { file }.run(&document)
}

fn error_text(error: &serde_json::Error) -> String {
    // serde_json appends " at line L column C" itself; the message above says where once.
    let full = error.to_string();
    match full.rfind(" at line ") {
        Some(index) => full[..index].to_string(),
        None => full,
    }
}

fn json_start(text: &str) -> Option<usize> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.trim_start().starts_with('{') {
            return Some(offset + (line.len() - line.trim_start().len()));
        }
        offset += line.len();
    }
    None
}

struct FioReader<'a> {
    file: &'a str,
}

impl FioReader<'_> {
    fn missing(&self, key: &str, hint: &str) -> ResultsError {
        ResultsError::MissingKey {
            file: self.file.to_string(),
            key: key.to_string(),
            hint: hint.to_string(),
        }
    }

    fn bad(&self, key: &str, message: impl Into<String>) -> ResultsError {
        ResultsError::BadValue {
            file: self.file.to_string(),
            key: key.to_string(),
            message: message.into(),
        }
    }

    fn run(&self, document: &Value) -> Result<RunResult, ResultsError> {
        let root = document
            .as_object()
            .ok_or_else(|| self.bad("(document)", "expected a JSON object with a \"jobs\" list"))?;
        let jobs = root.get("jobs").ok_or_else(|| {
            self.missing(
                "jobs",
                "fio's JSON output has a top-level \"jobs\" list; was this written with --output-format=json?",
            )
        })?;
        let jobs = jobs
            .as_array()
            .ok_or_else(|| self.bad("jobs", "expected a list of job objects"))?;
        if jobs.is_empty() {
            return Err(self.bad("jobs", "the list is empty; the run produced no job results"));
        }
        let empty = Map::new();
        let global_options = root
            .get("global options")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let mut results = Vec::with_capacity(jobs.len());
        for (index, job) in jobs.iter().enumerate() {
            results.push(self.job(index, job, global_options)?);
        }
        // fio repeats "numjobs" in every clone's options; without group_reporting each clone is
        // its own entry, with it one entry covers them all. Count entries per (group, name).
        for index in 0..results.len() {
            let same = results
                .iter()
                .filter(|other| {
                    other.group_id == results[index].group_id && other.name == results[index].name
                })
                .count() as u32;
            // iofit writes the exact clone count in its own object; only fio's needs guessing.
            let exact = jobs[index]
                .get("iofit")
                .and_then(|extra| extra.get("clones"))
                .is_some();
            if !exact && results[index].clones > 1 && same > 1 {
                results[index].clones = (results[index].clones / same).max(1);
            }
        }
        // iofit's own top-level object names the tool, version and host exactly.
        let extra = root.get("iofit").and_then(Value::as_object);
        let extra_text = |key: &str| {
            extra
                .and_then(|object| object.get(key))
                .and_then(Value::as_str)
                .filter(|text| !text.is_empty())
                .map(str::to_string)
        };
        let tool_version = root
            .get("fio version")
            .and_then(Value::as_str)
            .unwrap_or("");
        let (tool, version) = match tool_version.split_once('-') {
            Some((tool, version)) if !tool.is_empty() => (tool.to_string(), version.to_string()),
            _ => ("fio".to_string(), tool_version.to_string()),
        };
        Ok(RunResult {
            disk_util: Default::default(),
            tool: extra_text("tool").unwrap_or(tool),
            version: extra_text("version").unwrap_or(version),
            timestamp_s: root.get("timestamp").and_then(Value::as_u64).unwrap_or(0),
            hostname: extra_text("hostname").unwrap_or_else(|| {
                root.get("hostname")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()
            }),
            jobs: results,
        })
    }

    fn job(
        &self,
        index: usize,
        job: &Value,
        global_options: &Map<String, Value>,
    ) -> Result<JobResult, ResultsError> {
        let at = format!("jobs[{index}]");
        let job = job
            .as_object()
            .ok_or_else(|| self.bad(&at, "expected a job object"))?;
        let empty = Map::new();
        let options = job
            .get("job options")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let option = |name: &str| -> Option<String> {
            options
                .get(name)
                .or_else(|| global_options.get(name))
                .map(|value| match value {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                })
        };
        let name = job
            .get("jobname")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| format!("job{index}"));
        let has_read = job.get("read").is_some();
        let has_write = job.get("write").is_some();
        if !has_read && !has_write {
            return Err(self.missing(
                &format!("{at}.read"),
                "each fio job result has \"read\" and \"write\" objects",
            ));
        }
        let read = match job.get("read") {
            Some(value) => self.direction(&format!("{at}.read"), value)?,
            None => DirectionResult::default(),
        };
        let write = match job.get("write") {
            Some(value) => self.direction(&format!("{at}.write"), value)?,
            None => DirectionResult::default(),
        };
        let engine_requested =
            option("ioengine").and_then(|name| EngineKind::from_reported_name(&name));
        let iodepth = match option(fio_keys::IODEPTH) {
            Some(text) => text.trim().parse::<u32>().map_err(|_| {
                self.bad(
                    &format!("{at}.job options.iodepth"),
                    format!("'{text}' is not a whole number"),
                )
            })?,
            None => 1,
        };
        let clones = match option(fio_keys::NUMJOBS) {
            Some(text) => text.trim().parse::<u32>().map_err(|_| {
                self.bad(
                    &format!("{at}.job options.numjobs"),
                    format!("'{text}' is not a whole number"),
                )
            })?,
            None => 1,
        }
        .max(1);
        let mut result = JobResult {
            fio: Default::default(),
            name,
            group_id: job.get("groupid").and_then(Value::as_u64).unwrap_or(0) as u32,
            clones,
            engine_requested,
            engine_used: engine_requested,
            rw: option("rw")
                .or_else(|| option("readwrite"))
                .and_then(|text| rw_from_fio(&text)),
            iodepth,
            read,
            write,
            // compare judges reads and writes against requirements; trims are not read back.
            trim: Default::default(),
            syncs: 0,
            sync_latency: Default::default(),
            series: Vec::new(),
            usr_cpu_pct: job.get("usr_cpu").and_then(Value::as_f64).unwrap_or(0.0),
            sys_cpu_pct: job.get("sys_cpu").and_then(Value::as_f64).unwrap_or(0.0),
            context_switches: job.get("ctx").and_then(Value::as_u64).unwrap_or(0),
            random_seed: 0,
            error: match job.get("error").and_then(Value::as_i64) {
                Some(0) | None => None,
                Some(code) => Some(format!("fio error {code}")),
            },
            interrupted: false,
            verify: None,
            steadystate: None,
            latency_depth_found: None,
        };
        if let Some(extra) = job.get("iofit") {
            self.iofit_extension(&format!("{at}.iofit"), extra, &mut result)?;
        }
        Ok(result)
    }

    /// iofit's own additions to a job (its time series, the engine that really ran, clones).
    /// Read field by field so that a newer writer with more fields still reads.
    fn iofit_extension(
        &self,
        at: &str,
        extra: &Value,
        result: &mut JobResult,
    ) -> Result<(), ResultsError> {
        let Some(extra) = extra.as_object() else {
            return Err(self.bad(at, "expected an object"));
        };
        if let Some(series) = extra.get("series") {
            result.series = serde_json::from_value::<Vec<IntervalSample>>(series.clone())
                .map_err(|error| self.bad(&format!("{at}.series"), error.to_string()))?;
        }
        for (key, slot) in [
            ("engine_used", &mut result.engine_used),
            ("engine_requested", &mut result.engine_requested),
        ] {
            if let Some(text) = extra.get(key).and_then(Value::as_str) {
                *slot = EngineKind::from_reported_name(text).or(*slot);
            }
        }
        if let Some(iodepth) = extra.get(fio_keys::IODEPTH).and_then(Value::as_u64) {
            result.iodepth = iodepth.max(1) as u32;
        }
        if let Some(clones) = extra.get("clones").and_then(Value::as_u64) {
            result.clones = clones.max(1) as u32;
        }
        if let Some(seed) = extra.get("random_seed").and_then(Value::as_u64) {
            result.random_seed = seed;
        }
        if let Some(syncs) = extra.get("syncs").and_then(Value::as_u64) {
            result.syncs = syncs;
        }
        if let Some(interrupted) = extra.get("interrupted").and_then(Value::as_bool) {
            result.interrupted = interrupted;
        }
        if let Some(error) = extra.get("error").and_then(Value::as_str) {
            result.error = Some(error.to_string());
        }
        Ok(())
    }

    fn direction(&self, at: &str, value: &Value) -> Result<DirectionResult, ResultsError> {
        let direction = value
            .as_object()
            .ok_or_else(|| self.bad(at, "expected an object"))?;
        let number = |key: &str| -> Result<Option<f64>, ResultsError> {
            match direction.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(value) => value
                    .as_f64()
                    .map(Some)
                    .ok_or_else(|| self.bad(&format!("{at}.{key}"), "expected a number")),
            }
        };
        let runtime_ms = number(fio_keys::RUNTIME)?
            .ok_or_else(|| self.missing(&format!("{at}.runtime"), "fio gives the runtime in ms"))?;
        let iops = number("iops")?
            .ok_or_else(|| self.missing(&format!("{at}.iops"), "fio gives IOPS per direction"))?;
        let io_bytes = match (number("io_bytes")?, number("io_kbytes")?) {
            (Some(bytes), _) => bytes,
            (None, Some(kib)) => kib * 1024.0,
            (None, None) => {
                return Err(self.missing(
                    &format!("{at}.io_bytes"),
                    "fio gives the bytes moved as io_bytes (or io_kbytes)",
                ))
            }
        };
        let bandwidth = match (number("bw_bytes")?, number("bw")?) {
            (Some(bytes), _) => bytes,
            // fio's "bw" is KiB/s.
            (None, Some(kib)) => kib * 1024.0,
            (None, None) => {
                return Err(self.missing(
                    &format!("{at}.bw_bytes"),
                    "fio gives bandwidth as bw_bytes (bytes/s) or bw (KiB/s)",
                ))
            }
        };
        let ios = match number("total_ios")? {
            Some(ios) => ios,
            // fio 2.x has no total_ios; runtime x IOPS is what it measured.
            None => (iops * runtime_ms / 1000.0).round(),
        };
        // fio 3.x: *_ns in nanoseconds; fio 2.x: slat/clat/lat in microseconds.
        let latency = |ns_key: &str, us_key: &str| -> Result<LatencySummary, ResultsError> {
            if let Some(value) = direction.get(ns_key) {
                self.latency(&format!("{at}.{ns_key}"), value, 1.0)
            } else if let Some(value) = direction.get(us_key) {
                self.latency(&format!("{at}.{us_key}"), value, 1000.0)
            } else {
                Ok(LatencySummary::default())
            }
        };
        Ok(DirectionResult {
            ios: ios.max(0.0) as u64,
            io_bytes: io_bytes.max(0.0) as u64,
            runtime_ns: (runtime_ms.max(0.0) * 1e6) as u64,
            iops,
            bandwidth_bytes_per_second: bandwidth,
            submission_latency: latency("slat_ns", "slat")?,
            completion_latency: latency("clat_ns", "clat")?,
            total_latency: latency("lat_ns", "lat")?,
            prios: Vec::new(),
        })
    }

    fn latency(&self, at: &str, value: &Value, scale: f64) -> Result<LatencySummary, ResultsError> {
        let object = value
            .as_object()
            .ok_or_else(|| self.bad(at, "expected an object with min, max, mean"))?;
        let number = |key: &str| object.get(key).and_then(Value::as_f64).unwrap_or(0.0);
        let mut percentiles_ns = Vec::new();
        if let Some(map) = object.get("percentile").and_then(Value::as_object) {
            for (key, value) in map {
                let percentile: f64 = key.trim().parse().map_err(|_| {
                    self.bad(
                        &format!("{at}.percentile"),
                        format!("'{key}' is not a percentile"),
                    )
                })?;
                let value = value.as_f64().ok_or_else(|| {
                    self.bad(&format!("{at}.percentile.{key}"), "expected a number")
                })?;
                percentiles_ns.push((percentile, (value * scale).round() as u64));
            }
            percentiles_ns.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        // fio 3.x gives N (samples); fio 2.x has none. Without it the summary still carries the
        // mean and percentiles; count then stays 0 and the mean is taken as given.
        let count = object.get("N").and_then(Value::as_u64).unwrap_or(0);
        // json+ carries every sample in fio's bins (keys in ns); unreadable entries are
        // skipped rather than refused, as the bins only add precision to what is above.
        let mut fio_bins: Vec<(u64, u64)> = object
            .get("bins")
            .and_then(Value::as_object)
            .map(|bins| {
                bins.iter()
                    .filter_map(|(key, n)| Some((key.trim().parse().ok()?, n.as_u64()?)))
                    .collect()
            })
            .unwrap_or_default();
        fio_bins.sort_unstable();
        Ok(LatencySummary {
            fio_ranges: Default::default(),
            count,
            min_ns: (number("min") * scale).round() as u64,
            max_ns: (number("max") * scale).round() as u64,
            mean_ns: number("mean") * scale,
            stdev_ns: number("stddev") * scale,
            percentiles_ns,
            fio_bins,
        })
    }
}

fn rw_from_fio(text: &str) -> Option<RwMode> {
    // fio allows a suffix such as "randread:8" (sequential stride); the mode is before ':'.
    let mode = text
        .split(':')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    RwMode::from_fio_name(&mode)
}

/// What a run measured, summed over its jobs. `None` where the results cannot tell.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    pub jobs: usize,
    pub runtime_s: f64,
    pub read_ios: u64,
    pub write_ios: u64,
    pub iops: f64,
    pub read_iops: f64,
    pub write_iops: f64,
    pub throughput_mb_s: f64,
    pub read_pct: Option<f64>,
    pub io_size_bytes: Option<f64>,
    pub latency_ms_avg: Option<f64>,
    pub read_latency_ms_avg: Option<f64>,
    pub write_latency_ms_avg: Option<f64>,
    pub latency_ms_p99: Option<f64>,
    /// "total" when p99 comes from total latency (iofit, fio with lat_percentiles), else
    /// "completion" (fio's default percentiles are of completion latency).
    pub latency_p99_kind: String,
    /// IOs the jobs kept outstanding as configured: iodepth x clones (1 per clone for
    /// synchronous engines), summed over jobs.
    pub outstanding_ios: Option<u32>,
    /// Little's law on what was measured: IOPS x average latency.
    pub effective_queue_depth: Option<f64>,
}

/// The one name of each latency kind in every command and format, by what it measures and
/// fio's own word for it: `lat` is submission to completion, `clat` leaves out the submission.
pub fn latency_kind_words(kind: &str) -> &'static str {
    match kind {
        "total" => TOTAL_LATENCY_WORDS,
        "completion" => "completion latency (fio's clat)",
        _ => "latency",
    }
}

/// The name of the latency iofit measures and reports by default (see [`latency_kind_words`]).
pub const TOTAL_LATENCY_WORDS: &str = "total latency (fio's lat)";

/// The mean and 99th percentile of a direction's latency as compare uses it: total latency when
/// present, completion latency otherwise; percentile from the same, else from completion.
fn direction_latency(direction: &DirectionResult) -> (Option<f64>, Option<(f64, &'static str)>) {
    let mean_ns = if direction.total_latency.mean_ns > 0.0 {
        Some(direction.total_latency.mean_ns)
    } else if direction.completion_latency.mean_ns > 0.0 {
        Some(direction.completion_latency.mean_ns + direction.submission_latency.mean_ns)
    } else {
        None
    };
    let p99 = direction
        .total_latency
        .percentile_ns(99.0)
        .map(|value| (value as f64, "total"))
        .or_else(|| {
            direction
                .completion_latency
                .percentile_ns(99.0)
                .map(|value| (value as f64, "completion"))
        });
    (mean_ns, p99)
}

impl Measured {
    /// Sums the given jobs. Jobs of one group run at the same time, so their rates add.
    pub fn from_jobs<'a>(jobs: impl IntoIterator<Item = &'a JobResult>) -> Measured {
        let mut measured = Measured::default();
        let mut latency_weighted = [0.0f64; 2];
        let mut latency_ios = [0u64; 2];
        let mut p99: Option<(f64, &'static str)> = None;
        let mut outstanding: u32 = 0;
        let mut io_bytes: u64 = 0;
        for job in jobs {
            measured.jobs += 1;
            let per_clone = match job.engine_used.or(job.engine_requested) {
                Some(engine) if engine.is_synchronous() => 1,
                _ => job.iodepth.max(1),
            };
            outstanding = outstanding.saturating_add(per_clone.saturating_mul(job.clones.max(1)));
            for (slot, direction) in [&job.read, &job.write].into_iter().enumerate() {
                if direction.ios == 0 {
                    continue;
                }
                measured.runtime_s = measured.runtime_s.max(direction.runtime_ns as f64 / 1e9);
                measured.throughput_mb_s += direction.bandwidth_bytes_per_second / 1e6;
                io_bytes += direction.io_bytes;
                let (mean_ns, direction_p99) = direction_latency(direction);
                if let Some(mean_ns) = mean_ns {
                    latency_weighted[slot] += mean_ns * direction.ios as f64;
                    latency_ios[slot] += direction.ios;
                }
                if let Some((value, kind)) = direction_p99 {
                    // Percentiles of several distributions do not merge exactly without their
                    // histograms; the highest is an upper bound on the combined p99.
                    if p99.is_none_or(|(current, _)| value > current) {
                        p99 = Some((value, kind));
                    }
                }
                if slot == 0 {
                    measured.read_ios += direction.ios;
                    measured.read_iops += direction.iops;
                } else {
                    measured.write_ios += direction.ios;
                    measured.write_iops += direction.iops;
                }
            }
        }
        measured.iops = measured.read_iops + measured.write_iops;
        let total_ios = measured.read_ios + measured.write_ios;
        if total_ios > 0 {
            measured.read_pct = Some(measured.read_ios as f64 * 100.0 / total_ios as f64);
            measured.io_size_bytes = Some(io_bytes as f64 / total_ios as f64);
        }
        let ms = |weighted: f64, ios: u64| (ios > 0).then(|| weighted / ios as f64 / 1e6);
        measured.read_latency_ms_avg = ms(latency_weighted[0], latency_ios[0]);
        measured.write_latency_ms_avg = ms(latency_weighted[1], latency_ios[1]);
        measured.latency_ms_avg = ms(
            latency_weighted[0] + latency_weighted[1],
            latency_ios[0] + latency_ios[1],
        );
        if let Some((value, kind)) = p99 {
            measured.latency_ms_p99 = Some(value / 1e6);
            measured.latency_p99_kind = kind.to_string();
        }
        if measured.jobs > 0 {
            measured.outstanding_ios = Some(outstanding);
        }
        measured.effective_queue_depth = measured
            .latency_ms_avg
            .map(|latency_ms| outstanding_ios(measured.iops, latency_ms));
        measured
    }
}

/// Which jobs of a run to compare.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JobSelection {
    /// Only jobs of this group (fio's `groupid`; stonewall/new_group start a new one).
    pub group: Option<u32>,
    /// Only jobs with one of these names (empty: all).
    pub names: Vec<String>,
}

/// Why a selection of jobs cannot be compared.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SelectionError {
    #[error("the results hold groups {0} that ran one after another (stonewall/new_group), so their rates do not add; pick one with --group N")]
    SeveralGroups(String),
    #[error("no job matches {0}; the results hold {1}")]
    NoMatch(String, String),
}

/// The jobs `selection` picks, all of one group.
pub fn select_jobs<'a>(
    run: &'a RunResult,
    selection: &JobSelection,
) -> Result<Vec<&'a JobResult>, SelectionError> {
    let listing = || {
        run.jobs
            .iter()
            .map(|job| format!("'{}' (group {})", job.name, job.group_id))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let picked: Vec<&JobResult> = run
        .jobs
        .iter()
        .filter(|job| selection.group.is_none_or(|group| job.group_id == group))
        .filter(|job| selection.names.is_empty() || selection.names.contains(&job.name))
        .collect();
    if picked.is_empty() {
        let mut wanted = Vec::new();
        if let Some(group) = selection.group {
            wanted.push(format!("group {group}"));
        }
        if !selection.names.is_empty() {
            wanted.push(format!("name {}", selection.names.join(" or ")));
        }
        return Err(SelectionError::NoMatch(wanted.join(" and "), listing()));
    }
    let mut groups: Vec<u32> = picked.iter().map(|job| job.group_id).collect();
    groups.sort_unstable();
    groups.dedup();
    if groups.len() > 1 {
        let names = groups
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        return Err(SelectionError::SeveralGroups(names));
    }
    Ok(picked)
}

/// What the design under test is, as far as the advice needs it. Everything optional: compare
/// advises on what it knows and says nothing about what it does not.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompareContext {
    /// Member disks of the volume (a stripe when > 1).
    pub disks: Option<u32>,
    /// Host caching of the volume's disks.
    pub caching: Option<HostCaching>,
    /// The design's limits from a prediction (VM, disks, cache), the binding one marked.
    pub limits: Vec<LimitBar>,
    /// Highest acceptable 99th percentile latency, ms (requirements carry only the average).
    pub latency_ms_p99: Option<f64>,
    /// The design in words ("Standard_DS13, 4 x P30, caching None; binding: ..."), for the
    /// heading.
    pub design: Option<String>,
}

/// A metric compare checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    Iops,
    ThroughputMbS,
    LatencyMsAvg,
    LatencyMsP99,
    ReadPct,
    IoSizeBytes,
    QueueDepth,
}

impl Metric {
    pub fn label(self) -> &'static str {
        match self {
            Metric::Iops => "IOPS",
            Metric::ThroughputMbS => "throughput",
            Metric::LatencyMsAvg => "latency avg",
            Metric::LatencyMsP99 => "latency p99",
            Metric::ReadPct => "read share",
            Metric::IoSizeBytes => "IO size",
            Metric::QueueDepth => "queue depth",
        }
    }

    pub fn unit(self) -> &'static str {
        match self {
            Metric::Iops => "IOPS",
            Metric::ThroughputMbS => "MB/s",
            Metric::LatencyMsAvg | Metric::LatencyMsP99 => "ms",
            Metric::ReadPct => "%",
            Metric::IoSizeBytes => "KiB",
            Metric::QueueDepth => "IOs",
        }
    }

    /// A value of this metric as printed (IO size is stored in bytes and printed in KiB).
    pub fn format(self, value: f64) -> String {
        match self {
            Metric::Iops | Metric::ThroughputMbS => group_thousands(value),
            Metric::LatencyMsAvg | Metric::LatencyMsP99 => format!("{value:.3}"),
            Metric::ReadPct => format!("{value:.1}"),
            Metric::IoSizeBytes => group_thousands(value / 1024.0),
            Metric::QueueDepth => group_thousands(value),
        }
    }
}

/// How the measured value must relate to the required one.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Rule {
    /// measured >= required (rates).
    AtLeast,
    /// measured <= required (latency).
    AtMost,
    /// |measured - required| <= tolerance, in percent of required.
    WithinPct { tolerance: f64 },
    /// |measured - required| <= tolerance, in percentage points (shares).
    WithinPoints { tolerance: f64 },
}

impl Rule {
    /// The requirement as a reader should see it: ">= 16,000", "<= 5.000", "8 ±10%".
    pub fn describe(self, metric: Metric, required: f64) -> String {
        let value = metric.format(required);
        match self {
            Rule::AtLeast => format!(">= {value}"),
            Rule::AtMost => format!("<= {value}"),
            Rule::WithinPct { tolerance } => format!("{value} ±{tolerance}%"),
            Rule::WithinPoints { tolerance } => format!("{value} ±{tolerance}"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Pass,
    Fail,
    /// No requirement, or nothing measured: shown, not judged.
    NotChecked,
}

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "FAIL",
            Verdict::NotChecked => "-",
        }
    }
}

/// One row: required vs measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Check {
    pub metric: Metric,
    pub unit: String,
    pub required: Option<f64>,
    pub measured: Option<f64>,
    pub rule: Rule,
    pub verdict: Verdict,
    /// AtLeast/AtMost: headroom in percent of the requirement, negative when short.
    /// WithinPct: deviation in percent; WithinPoints: deviation in percentage points.
    pub margin: Option<f64>,
    /// Where the number came from when that is not obvious.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Check {
    fn judge(
        metric: Metric,
        required: Option<f64>,
        measured: Option<f64>,
        rule: Rule,
        note: Option<String>,
    ) -> Check {
        let (verdict, margin) = match (required, measured) {
            (Some(required), Some(measured)) => judge(rule, required, measured),
            _ => (Verdict::NotChecked, None),
        };
        Check {
            metric,
            unit: metric.unit().to_string(),
            required,
            measured,
            rule,
            verdict,
            margin,
            note,
        }
    }

    /// "+7.7%", "-2.0 pts", or "" when there is no margin.
    pub fn margin_text(&self) -> String {
        match (self.margin, self.rule) {
            (None, _) => String::new(),
            (Some(margin), Rule::WithinPoints { .. }) => format!("{margin:+.1} pts"),
            (Some(margin), _) => format!("{margin:+.1}%"),
        }
    }

    pub fn required_text(&self) -> String {
        self.required
            .map(|required| self.rule.describe(self.metric, required))
            .unwrap_or_else(|| "-".to_string())
    }

    pub fn measured_text(&self) -> String {
        self.measured
            .map(|measured| self.metric.format(measured))
            .unwrap_or_else(|| "-".to_string())
    }
}

fn judge(rule: Rule, required: f64, measured: f64) -> (Verdict, Option<f64>) {
    let relative = |difference: f64| (required > 0.0).then(|| difference / required * 100.0);
    match rule {
        Rule::AtLeast => {
            let verdict = if measured >= required {
                Verdict::Pass
            } else {
                Verdict::Fail
            };
            (verdict, relative(measured - required))
        }
        Rule::AtMost => {
            let verdict = if measured <= required {
                Verdict::Pass
            } else {
                Verdict::Fail
            };
            (verdict, relative(required - measured))
        }
        Rule::WithinPct { tolerance } => {
            let deviation = relative(measured - required).unwrap_or(0.0);
            let verdict = if deviation.abs() <= tolerance + 1e-9 {
                Verdict::Pass
            } else {
                Verdict::Fail
            };
            (verdict, Some(deviation))
        }
        Rule::WithinPoints { tolerance } => {
            let deviation = measured - required;
            let verdict = if deviation.abs() <= tolerance + 1e-9 {
                Verdict::Pass
            } else {
                Verdict::Fail
            };
            (verdict, Some(deviation))
        }
    }
}

/// Which rule of the method a piece of advice comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AdviceKind {
    /// Little's law: the run kept too few IOs outstanding for the IOPS asked.
    TooFewOutstandingIos,
    /// A stripe needs disks x 8 outstanding IOs to keep every member busy.
    StripeQueueDepth,
    /// Reads on a host-cached volume looked like misses or the run was short.
    CacheNotWarmed,
    /// Measured at the VM's limit: more or faster disks will not help.
    CappedByVm,
    /// Measured at the disks' limit: more disks or a larger SKU.
    CappedByDisks,
    /// The benchmark used another IO size than the application.
    IoSizeUnlikeApplication,
    /// The benchmark used another read/write mix than the application.
    MixUnlikeApplication,
    /// Writes on a host-cached disk are slow; logs belong on caching None.
    WriteLatencyOnCachedDisk,
    /// More IOs outstanding than the target needs: they queue and add latency.
    QueueDepthRaisesLatency,
    /// A failure with no cause iofit can see in the results.
    NoCauseFound,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Advice {
    pub kind: AdviceKind,
    /// The failed metrics this advice explains.
    pub metrics: Vec<Metric>,
    pub message: String,
}

/// The verdict of one results file against one volume's requirements.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The results file (or "run") and the requirements' source, for the heading.
    pub results_source: String,
    pub requirements_source: String,
    pub volume: String,
    pub role: VolumeRole,
    /// The design under test in words, when the caller named it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub design: Option<String>,
    pub measured: Measured,
    pub checks: Vec<Check>,
    pub advice: Vec<Advice>,
    /// What a reader must know about the results themselves (jobs that stopped on an error or
    /// were interrupted: their numbers cover only what completed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    pub passed: bool,
}

impl Comparison {
    pub fn failed_metrics(&self) -> Vec<Metric> {
        self.checks
            .iter()
            .filter(|check| check.verdict == Verdict::Fail)
            .map(|check| check.metric)
            .collect()
    }

    pub fn check(&self, metric: Metric) -> Option<&Check> {
        self.checks.iter().find(|check| check.metric == metric)
    }
}

/// Compares what `jobs` measured with `volume`'s sizing target.
pub fn compare(
    jobs: &[&JobResult],
    volume: &VolumeRequirements,
    context: &CompareContext,
    results_source: &str,
    requirements_source: &str,
) -> Comparison {
    let measured = Measured::from_jobs(jobs.iter().copied());
    let sizing = &volume.sizing;
    let mut checks = vec![
        Check::judge(
            Metric::Iops,
            Some(sizing.iops),
            (measured.jobs > 0).then_some(measured.iops),
            Rule::AtLeast,
            None,
        ),
        Check::judge(
            Metric::ThroughputMbS,
            Some(sizing.throughput_mb_s),
            (measured.jobs > 0).then_some(measured.throughput_mb_s),
            Rule::AtLeast,
            Some("1 MB = 10^6 bytes, as Azure counts".to_string()),
        ),
        Check::judge(
            Metric::LatencyMsAvg,
            sizing.latency_ms,
            measured.latency_ms_avg,
            Rule::AtMost,
            sizing
                .latency_ms
                .is_none()
                .then(|| "no latency target in the requirements".to_string()),
        ),
        Check::judge(
            Metric::LatencyMsP99,
            context.latency_ms_p99,
            measured.latency_ms_p99,
            Rule::AtMost,
            Some(
                match (measured.latency_p99_kind.as_str(), context.latency_ms_p99) {
                    ("", _) => "the results hold no 99th percentile".to_string(),
                    (kind, None) => format!(
                        "{}; no p99 target given (--latency-p99-ms)",
                        latency_kind_words(kind)
                    ),
                    (kind, Some(_)) if jobs.len() > 1 => format!(
                        "{}, highest over {} jobs",
                        latency_kind_words(kind),
                        jobs.len()
                    ),
                    (kind, Some(_)) => latency_kind_words(kind).to_string(),
                },
            ),
        ),
        Check::judge(
            Metric::ReadPct,
            Some(sizing.read_pct),
            measured.read_pct,
            Rule::WithinPoints {
                tolerance: READ_PCT_TOLERANCE_POINTS,
            },
            None,
        ),
        Check::judge(
            Metric::IoSizeBytes,
            Some(sizing.io_size_bytes as f64),
            measured.io_size_bytes,
            Rule::WithinPct {
                tolerance: IO_SIZE_TOLERANCE_PCT,
            },
            Some("bytes moved / IOs completed".to_string()),
        ),
    ];
    // Queue depth: Little's law says how many IOs must be outstanding to reach the required IOPS
    // at the latency this storage showed; the run must have kept at least that many in flight.
    let needed_queue_depth = measured
        .latency_ms_avg
        .map(|latency_ms| outstanding_ios(sizing.iops, latency_ms).ceil());
    let queue_note = match (needed_queue_depth, measured.latency_ms_avg) {
        (Some(_), Some(latency_ms)) => Some(format!(
            "Little's law: {} IOPS x {latency_ms:.3} ms; measured = iodepth x jobs",
            group_thousands(sizing.iops)
        )),
        _ => Some("no latency measured, so Little's law cannot say".to_string()),
    };
    checks.push(Check::judge(
        Metric::QueueDepth,
        needed_queue_depth,
        measured.outstanding_ios.map(f64::from),
        Rule::AtLeast,
        queue_note,
    ));

    let advice = advise(&checks, &measured, volume, context);
    let mut warnings = Vec::new();
    for job in jobs {
        if let Some(error) = &job.error {
            warnings.push(format!(
                "job '{}' stopped on an error ({error}); its numbers cover what completed before it",
                job.name
            ));
        }
        if job.interrupted {
            warnings.push(format!(
                "job '{}' was interrupted before its planned end; its numbers cover what completed",
                job.name
            ));
        }
    }
    let passed = checks.iter().all(|check| check.verdict != Verdict::Fail);
    Comparison {
        results_source: results_source.to_string(),
        requirements_source: requirements_source.to_string(),
        volume: volume.label.clone(),
        role: volume.role,
        design: context.design.clone(),
        measured,
        checks,
        advice,
        warnings,
        passed,
    }
}

/// [`compare`] on every job of `run` (which must all be of one group, as a single fio job file
/// without stonewall is): what `iofit demo` and `bench` call after a run.
pub fn compare_run(
    run: &RunResult,
    volume: &VolumeRequirements,
    context: &CompareContext,
    results_source: &str,
    requirements_source: &str,
) -> Result<Comparison, SelectionError> {
    let jobs = select_jobs(run, &JobSelection::default())?;
    Ok(compare(
        &jobs,
        volume,
        context,
        results_source,
        requirements_source,
    ))
}

/// Which metrics failed their check, for the advice that explains them.
struct Failed<'a>(&'a [Check]);

impl Failed<'_> {
    fn any(&self, metric: Metric) -> bool {
        self.0
            .iter()
            .any(|check| check.metric == metric && check.verdict == Verdict::Fail)
    }
    fn of(&self, metrics: &[Metric]) -> Vec<Metric> {
        metrics.iter().copied().filter(|m| self.any(*m)).collect()
    }
}

/// The causes of the failed checks visible in the results, most basic first (a workload unlike
/// the application's makes every other number moot), then one line for what none explains.
fn advise(
    checks: &[Check],
    measured: &Measured,
    volume: &VolumeRequirements,
    context: &CompareContext,
) -> Vec<Advice> {
    let failed = Failed(checks);
    let mut advice = Vec::new();
    workload_advice(&failed, measured, &volume.sizing, &mut advice);
    queue_advice(&failed, measured, &volume.sizing, context, &mut advice);
    cache_advice(&failed, measured, volume, context, &mut advice);
    limit_advice(&failed, measured, context, &mut advice);
    unexplained_advice(checks, context, &mut advice);
    advice
}

/// An IO size or read share unlike the application's.
fn workload_advice(
    failed: &Failed,
    measured: &Measured,
    sizing: &iofit_model::requirements::SizingTarget,
    advice: &mut Vec<Advice>,
) {
    let rate_failures = failed.of(&[Metric::Iops, Metric::ThroughputMbS]);
    // IO size and mix first: with another workload the other numbers do not describe the app.
    if failed.any(Metric::IoSizeBytes) {
        if let Some(size) = measured.io_size_bytes {
            advice.push(Advice {
                kind: AdviceKind::IoSizeUnlikeApplication,
                metrics: [vec![Metric::IoSizeBytes], rate_failures.clone()].concat(),
                message: format!(
                    "the benchmark moved {} KiB per IO, the application {} KiB: IOPS and MB/s at \
                     another IO size describe another workload (smaller IOs give more IOPS, larger \
                     more MB/s); run again with bs={}",
                    Metric::IoSizeBytes.format(size),
                    Metric::IoSizeBytes.format(sizing.io_size_bytes as f64),
                    fio_size(sizing.io_size_bytes)
                ),
            });
        }
    }
    if failed.any(Metric::ReadPct) {
        if let Some(read_pct) = measured.read_pct {
            advice.push(Advice {
                kind: AdviceKind::MixUnlikeApplication,
                metrics: vec![Metric::ReadPct],
                message: format!(
                    "the benchmark read {read_pct:.1}% of its IOs, the application {:.1}%: run \
                     again with {}",
                    sizing.read_pct,
                    fio_mix(sizing.read_pct, sizing.random_pct)
                ),
            });
        }
    }
}

/// Too few IOs in flight for the IOPS, too many for the latency, or too few for a stripe.
fn queue_advice(
    failed: &Failed,
    measured: &Measured,
    sizing: &iofit_model::requirements::SizingTarget,
    context: &CompareContext,
    advice: &mut Vec<Advice>,
) {
    let rate_failures = failed.of(&[Metric::Iops, Metric::ThroughputMbS]);
    // Little's law: to reach the required IOPS at the latency measured, IOPS x latency IOs must
    // be outstanding.
    if failed.any(Metric::Iops) || failed.any(Metric::QueueDepth) {
        if let (Some(latency_ms), Some(outstanding)) =
            (measured.latency_ms_avg, measured.outstanding_ios)
        {
            let needed = outstanding_ios(sizing.iops, latency_ms);
            if (outstanding as f64) < needed {
                advice.push(Advice {
                    kind: AdviceKind::TooFewOutstandingIos,
                    metrics: failed.of(&[Metric::Iops, Metric::QueueDepth]),
                    message: format!(
                        "too few IOs in flight: Little's law needs {} IOPS x {latency_ms:.3} ms = \
                         {needed:.1} outstanding, the run kept {outstanding} (iodepth x jobs); \
                         raise iodepth or numjobs (threads) to at least {}",
                        group_thousands(sizing.iops),
                        needed.ceil()
                    ),
                });
            }
        }
    }

    // The other side of Little's law: IOs beyond what the target needs only wait in a queue,
    // and the method's factor table says lower queue depth gives lower latency.
    let latency_failures_now = failed.of(&[Metric::LatencyMsAvg, Metric::LatencyMsP99]);
    if let (Some(target_ms), Some(outstanding)) = (sizing.latency_ms, measured.outstanding_ios) {
        let enough = outstanding_ios(sizing.iops, target_ms).ceil().max(1.0);
        if !latency_failures_now.is_empty() && f64::from(outstanding) > enough {
            advice.push(Advice {
                kind: AdviceKind::QueueDepthRaisesLatency,
                metrics: latency_failures_now.clone(),
                message: format!(
                    "the run kept {outstanding} IOs outstanding where Little's law needs only {} \
                     IOPS x {target_ms} ms = {enough:.0} for the target; the extra IOs wait in \
                     queues and add latency: measure latency at iodepth x numjobs = {enough:.0} \
                     (or run each test once with 1 thread to find the best latency, as the \
                     NetApp report does)",
                    group_thousands(sizing.iops)
                ),
            });
        }
    }

    // A stripe needs every member busy: disks x 8 outstanding IOs at least.
    if let (Some(disks), Some(outstanding)) = (context.disks, measured.outstanding_ios) {
        let floor = disks.saturating_mul(STRIPE_QD_PER_DISK);
        if disks > 1 && outstanding < floor && !rate_failures.is_empty() {
            advice.push(Advice {
                kind: AdviceKind::StripeQueueDepth,
                metrics: rate_failures.clone(),
                message: format!(
                    "queue depth {outstanding} is below {disks} disks x {STRIPE_QD_PER_DISK} = \
                     {floor} on this {disks}-disk stripe: the method wants {STRIPE_QD_PER_DISK} or \
                     more IOs outstanding per member disk to keep each busy; raise iodepth x \
                     numjobs to {floor} or more"
                ),
            });
        }
    }
}

/// A host cache not warmed, or writes through a host cache that slows them.
fn cache_advice(
    failed: &Failed,
    measured: &Measured,
    volume: &VolumeRequirements,
    context: &CompareContext,
    advice: &mut Vec<Advice>,
) {
    let sizing = &volume.sizing;
    let cached = context.caching.is_some_and(HostCaching::is_cached);
    let caching_name = context.caching.unwrap_or_default();

    // Host cache not warm: reads slower than a cache hit, or too short a run to fill the cache.
    let read_failures = failed.of(&[
        Metric::Iops,
        Metric::ThroughputMbS,
        Metric::LatencyMsAvg,
        Metric::LatencyMsP99,
    ]);
    if cached && measured.read_ios > 0 && !read_failures.is_empty() {
        let slow_reads = measured
            .read_latency_ms_avg
            .filter(|latency| *latency > CACHE_HIT_LATENCY_MS);
        let short = measured.runtime_s < SHORT_RUN_S;
        if slow_reads.is_some() || short {
            let mut evidence = Vec::new();
            if let Some(latency) = slow_reads {
                evidence.push(format!(
                    "reads averaged {latency:.3} ms where cache hits take under \
                     {CACHE_HIT_LATENCY_MS} ms"
                ));
            }
            if short {
                evidence.push(format!(
                    "the run lasted {:.0} s (under {SHORT_RUN_S:.0} s)",
                    measured.runtime_s
                ));
            }
            advice.push(Advice {
                kind: AdviceKind::CacheNotWarmed,
                metrics: read_failures.clone(),
                message: format!(
                    "the {caching_name} host cache was probably not warm: {}; warm it as the seed \
                     does (RandomWrites_1MB then RandomReads_1MB, 2 h each, 3 workers at QD 128, \
                     after every VM restart) and measure again",
                    evidence.join(" and ")
                ),
            });
        }
    }

    // Writes through a host cache are slower than on an uncached disk; logs belong on None.
    let latency_failures = failed.of(&[Metric::LatencyMsAvg, Metric::LatencyMsP99]);
    let write_heavy = measured.read_pct.is_some_and(|read_pct| read_pct < 50.0);
    let writes_slow = match (measured.write_latency_ms_avg, sizing.latency_ms) {
        (Some(write), Some(target)) => write > target,
        (Some(_), None) => true,
        (None, _) => false,
    };
    let caching_wrong_for_writes = volume.role == VolumeRole::Log
        || write_heavy
        || context.caching == Some(HostCaching::ReadWrite);
    if cached
        && measured.write_ios > 0
        && writes_slow
        && caching_wrong_for_writes
        && !latency_failures.is_empty()
    {
        let write_latency = measured
            .write_latency_ms_avg
            .map(|latency| format!("writes averaged {latency:.3} ms on "))
            .unwrap_or_default();
        let role_text = if volume.role == VolumeRole::Log {
            "a log volume belongs on host caching None"
        } else {
            "write-heavy disks (database logs) belong on host caching None, ReadOnly only where reads dominate"
        };
        advice.push(Advice {
            kind: AdviceKind::WriteLatencyOnCachedDisk,
            metrics: latency_failures.clone(),
            message: format!(
                "{write_latency}a disk with host caching {caching_name}: {role_text} (changing it \
                 detaches and reattaches the disk)"
            ),
        });
    }
}

/// A failed rate measured at the limit the prediction says binds: the VM's or the disks'.
fn limit_advice(
    failed: &Failed,
    measured: &Measured,
    context: &CompareContext,
    advice: &mut Vec<Advice>,
) {
    // A prediction says which limit binds; a measured rate at that limit names the cap.
    // Limits in MiB/s come from tables that count 1 MB = 2^20 bytes (the seed's); the measured
    // rate is converted to match rather than the published limit being restated.
    for (metric, unit, value) in [
        (Metric::Iops, "IOPS", measured.iops),
        (Metric::ThroughputMbS, "MB/s", measured.throughput_mb_s),
        (
            Metric::ThroughputMbS,
            "MiB/s",
            measured.throughput_mb_s * 1e6 / 1_048_576.0,
        ),
    ] {
        if !failed.any(metric) {
            continue;
        }
        let Some(limit) = context
            .limits
            .iter()
            .find(|limit| limit.binding && limit.unit == unit)
        else {
            continue;
        };
        // At the limit means within the band around it; far above it the prediction missed
        // something (cache hits, bursting) and naming it as the cap would mislead.
        if value < limit.value * AT_LIMIT_FRACTION
            || value > limit.value * (2.0 - AT_LIMIT_FRACTION)
        {
            continue;
        }
        let disk_limit = context
            .limits
            .iter()
            .filter(|other| other.unit == unit && other.scope == LimitScope::Disk)
            .map(|other| other.value)
            .reduce(f64::min);
        match limit.scope {
            LimitScope::Vm | LimitScope::Cache => advice.push(Advice {
                kind: AdviceKind::CappedByVm,
                metrics: vec![metric],
                message: format!(
                    "capped by the VM, not the disks: {} {unit} measured at the VM's limit '{}' \
                     ({} {unit}){}; more or larger disks will not help, pick a VM size whose \
                     limit is above the requirement",
                    group_thousands(value),
                    limit.name,
                    group_thousands(limit.value),
                    disk_limit
                        .map(|disks| format!(" while the disks allow {}", group_thousands(disks)))
                        .unwrap_or_default()
                ),
            }),
            LimitScope::Disk => advice.push(Advice {
                kind: AdviceKind::CappedByDisks,
                metrics: vec![metric],
                message: format!(
                    "capped by the disks: {} {unit} measured at the disks' limit '{}' ({} {unit}); \
                     stripe more disks or choose a larger disk size, within the VM's limit",
                    group_thousands(value),
                    limit.name,
                    group_thousands(limit.value)
                ),
            }),
            _ => {}
        }
    }
}

/// The failed metrics no advice explains, with where to look next.
fn unexplained_advice(checks: &[Check], context: &CompareContext, advice: &mut Vec<Advice>) {
    let explained: Vec<Metric> = advice
        .iter()
        .flat_map(|advice| advice.metrics.iter().copied())
        .collect();
    let unexplained: Vec<Metric> = checks
        .iter()
        .filter(|check| check.verdict == Verdict::Fail && !explained.contains(&check.metric))
        .map(|check| check.metric)
        .collect();
    if !unexplained.is_empty() {
        let names: Vec<&str> = unexplained.iter().map(|metric| metric.label()).collect();
        let mut message = format!(
            "{} failed with no cause visible in the results",
            names.join(", ")
        );
        if context.limits.is_empty() {
            message.push_str(
                "; give the design (--vm SIZE --disk COUNTxSKU:CACHING) so compare can predict \
                 its limits and name the one that binds",
            );
        } else {
            message.push_str(
                "; the storage itself is the likely limit at this load: compare the design's \
                 latency and limits with `iofit predict`",
            );
        }
        advice.push(Advice {
            kind: AdviceKind::NoCauseFound,
            metrics: unexplained,
            message,
        });
    }
}

/// The fio options that give a read share and randomness: `rw=randrw rwmixread=70`,
/// `rw=randread`, `rw=write`...
fn fio_mix(read_pct: f64, random_pct: f64) -> String {
    let random = random_pct >= 50.0;
    let read_pct = read_pct.round();
    match (read_pct as u32, random) {
        (100, true) => "rw=randread".to_string(),
        (100, false) => "rw=read".to_string(),
        (0, true) => "rw=randwrite".to_string(),
        (0, false) => "rw=write".to_string(),
        (share, true) => format!("rw=randrw rwmixread={share}"),
        (share, false) => format!("rw=rw rwmixread={share}"),
    }
}

/// A byte count as fio's `bs=` writes it: 8192 -> "8k", 1048576 -> "1m", 1000 -> "1000".
fn fio_size(bytes: u64) -> String {
    for (size, suffix) in [(1u64 << 30, "g"), (1 << 20, "m"), (1 << 10, "k")] {
        if bytes >= size && bytes.is_multiple_of(size) {
            return format!("{}{suffix}", bytes / size);
        }
    }
    bytes.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use iofit_model::requirements::SizingTarget;

    const FIO_RANDRW: &str = include_str!("../../../tests/data/results/fio-randrw-8k.json");
    const FIO_GROUPED: &str =
        include_str!("../../../tests/data/results/fio-randread-4k-libaio-qd16-2jobs.json");
    const FIO_CLONES: &str = include_str!("../../../tests/data/results/fio-write-64k-2clones.json");

    fn latency(mean_ms: f64, p99_ms: f64) -> LatencySummary {
        LatencySummary {
            fio_ranges: Default::default(),
            count: 1,
            min_ns: 0,
            max_ns: (p99_ms * 2e6) as u64,
            mean_ns: mean_ms * 1e6,
            stdev_ns: 0.0,
            percentiles_ns: vec![
                (50.0, (mean_ms * 1e6) as u64),
                (99.0, (p99_ms * 1e6) as u64),
            ],
            fio_bins: Vec::new(),
        }
    }

    /// A direction that ran `seconds` at `iops` with `io_size` bytes per IO.
    fn direction(
        iops: f64,
        io_size: u64,
        seconds: f64,
        mean_ms: f64,
        p99_ms: f64,
    ) -> DirectionResult {
        let ios = (iops * seconds).round() as u64;
        DirectionResult {
            ios,
            io_bytes: ios * io_size,
            runtime_ns: (seconds * 1e9) as u64,
            iops,
            bandwidth_bytes_per_second: iops * io_size as f64,
            submission_latency: LatencySummary::default(),
            completion_latency: latency(mean_ms, p99_ms),
            total_latency: latency(mean_ms, p99_ms),
            prios: Vec::new(),
        }
    }

    fn job(read: DirectionResult, write: DirectionResult, iodepth: u32, clones: u32) -> JobResult {
        JobResult {
            name: "job".into(),
            clones,
            engine_requested: Some(EngineKind::Libaio),
            engine_used: Some(EngineKind::IoUring),
            rw: Some(RwMode::RandRw),
            iodepth,
            read,
            write,
            ..Default::default()
        }
    }

    fn volume(
        iops: f64,
        mb_s: f64,
        latency_ms: Option<f64>,
        io_size: u64,
        read_pct: f64,
    ) -> VolumeRequirements {
        VolumeRequirements {
            label: "data".into(),
            sizing: SizingTarget {
                iops,
                throughput_mb_s: mb_s,
                latency_ms,
                io_size_bytes: io_size,
                read_pct,
                random_pct: 100.0,
                capacity_gib: None,
                queue_depth: None,
            },
            ..Default::default()
        }
    }

    /// 7,000 read + 3,000 write IOPS of 8 KiB at 2 ms for 600 s, QD 32 x 1.
    fn good_job() -> JobResult {
        job(
            direction(7000.0, 8192, 600.0, 2.0, 6.0),
            direction(3000.0, 8192, 600.0, 2.0, 8.0),
            32,
            1,
        )
    }

    fn run(
        jobs: &[&JobResult],
        volume: &VolumeRequirements,
        context: &CompareContext,
    ) -> Comparison {
        compare(jobs, volume, context, "r.json", "req.toml")
    }

    fn kinds(comparison: &Comparison) -> Vec<AdviceKind> {
        comparison.advice.iter().map(|a| a.kind).collect()
    }

    #[test]
    fn all_pass_with_margins() {
        let job = good_job();
        // 10,000 IOPS x 8,192 B = 81.92 MB/s measured.
        let comparison = run(
            &[&job],
            &volume(8000.0, 80.0, Some(2.5), 8192, 70.0),
            &CompareContext::default(),
        );
        assert!(comparison.passed, "{comparison:?}");
        let iops = comparison.check(Metric::Iops).unwrap();
        assert_eq!(iops.verdict, Verdict::Pass);
        assert!((iops.margin.unwrap() - 25.0).abs() < 1e-9);
        let mb_s = comparison.check(Metric::ThroughputMbS).unwrap();
        assert!((mb_s.measured.unwrap() - 81.92).abs() < 1e-9);
        assert!((mb_s.margin.unwrap() - 2.4).abs() < 1e-9);
        let latency = comparison.check(Metric::LatencyMsAvg).unwrap();
        assert!((latency.measured.unwrap() - 2.0).abs() < 1e-9);
        assert!((latency.margin.unwrap() - 20.0).abs() < 1e-9);
        let read = comparison.check(Metric::ReadPct).unwrap();
        assert!((read.measured.unwrap() - 70.0).abs() < 1e-9);
        assert_eq!(read.margin_text(), "+0.0 pts");
        let size = comparison.check(Metric::IoSizeBytes).unwrap();
        assert_eq!(size.measured, Some(8192.0));
        // Little's law: 8,000 IOPS x 2 ms = 16 needed, 32 outstanding.
        let depth = comparison.check(Metric::QueueDepth).unwrap();
        assert_eq!((depth.required, depth.measured), (Some(16.0), Some(32.0)));
        assert_eq!(
            comparison.check(Metric::LatencyMsP99).unwrap().verdict,
            Verdict::NotChecked
        );
        assert_eq!(comparison.measured.latency_ms_p99, Some(8.0));
        assert!(comparison.advice.is_empty());
    }

    #[test]
    fn failures_have_negative_margins() {
        let job = good_job();
        let context = CompareContext {
            latency_ms_p99: Some(5.0),
            ..Default::default()
        };
        let comparison = run(
            &[&job],
            &volume(12500.0, 80.0, Some(1.0), 8192, 70.0),
            &context,
        );
        assert!(!comparison.passed);
        let iops = comparison.check(Metric::Iops).unwrap();
        assert_eq!(iops.verdict, Verdict::Fail);
        assert!((iops.margin.unwrap() + 20.0).abs() < 1e-9);
        let latency = comparison.check(Metric::LatencyMsAvg).unwrap();
        assert_eq!(latency.verdict, Verdict::Fail);
        assert!((latency.margin.unwrap() + 100.0).abs() < 1e-9);
        let p99 = comparison.check(Metric::LatencyMsP99).unwrap();
        assert_eq!((p99.verdict, p99.measured), (Verdict::Fail, Some(8.0)));
        assert_eq!(
            comparison.failed_metrics(),
            vec![Metric::Iops, Metric::LatencyMsAvg, Metric::LatencyMsP99]
        );
    }

    #[test]
    fn mix_and_io_size_tolerances() {
        let job = good_job();
        // 70% measured vs 75% required: exactly the 5-point tolerance, passes.
        let comparison = run(
            &[&job],
            &volume(1.0, 1.0, None, 8192, 75.0),
            &CompareContext::default(),
        );
        assert_eq!(
            comparison.check(Metric::ReadPct).unwrap().verdict,
            Verdict::Pass
        );
        // 70% vs 80%: fails with -10 points, and the mix advice says rwmixread=80.
        let comparison = run(
            &[&job],
            &volume(1.0, 1.0, None, 8192, 80.0),
            &CompareContext::default(),
        );
        let read = comparison.check(Metric::ReadPct).unwrap();
        assert_eq!(read.verdict, Verdict::Fail);
        assert!((read.margin.unwrap() + 10.0).abs() < 1e-9);
        assert!(kinds(&comparison).contains(&AdviceKind::MixUnlikeApplication));
        assert!(comparison.advice[0]
            .message
            .contains("rw=randrw rwmixread=80"));
        assert_eq!(fio_mix(100.0, 0.0), "rw=read");
        assert_eq!(fio_mix(0.0, 100.0), "rw=randwrite");
        assert_eq!(fio_mix(50.0, 0.0), "rw=rw rwmixread=50");
    }

    #[test]
    fn advice_io_size_unlike_application() {
        let job = job(
            direction(3000.0, 65536, 600.0, 2.0, 4.0),
            DirectionResult::default(),
            32,
            1,
        );
        let comparison = run(
            &[&job],
            &volume(5000.0, 10.0, None, 8192, 100.0),
            &CompareContext::default(),
        );
        let size = comparison.check(Metric::IoSizeBytes).unwrap();
        assert_eq!(size.verdict, Verdict::Fail);
        assert!((size.margin.unwrap() - 700.0).abs() < 1e-9);
        let advice = &comparison.advice[0];
        assert_eq!(advice.kind, AdviceKind::IoSizeUnlikeApplication);
        assert!(advice.message.contains("64 KiB"), "{}", advice.message);
        assert!(advice.message.contains("bs=8k"), "{}", advice.message);
        assert!(advice.metrics.contains(&Metric::Iops));
    }

    #[test]
    fn advice_too_few_outstanding_ios_by_littles_law() {
        // QD 2 x 1 job at 2 ms delivers 1,000 IOPS; 5,000 IOPS at 2 ms needs 10 outstanding.
        let job = job(
            direction(1000.0, 8192, 600.0, 2.0, 3.0),
            DirectionResult::default(),
            2,
            1,
        );
        let comparison = run(
            &[&job],
            &volume(5000.0, 1.0, None, 8192, 100.0),
            &CompareContext::default(),
        );
        assert_eq!(
            comparison.check(Metric::QueueDepth).unwrap().required,
            Some(10.0)
        );
        assert_eq!(
            comparison.check(Metric::QueueDepth).unwrap().verdict,
            Verdict::Fail
        );
        assert_eq!(kinds(&comparison), vec![AdviceKind::TooFewOutstandingIos]);
        assert!(comparison.advice[0]
            .message
            .contains("5,000 IOPS x 2.000 ms = 10.0"));
        assert!(comparison.advice[0].message.contains("kept 2"));
    }

    #[test]
    fn synchronous_engines_count_one_io_per_clone() {
        let mut job = job(
            direction(1000.0, 8192, 600.0, 2.0, 3.0),
            DirectionResult::default(),
            32,
            4,
        );
        job.engine_used = Some(EngineKind::Psync);
        let measured = Measured::from_jobs([&job]);
        assert_eq!(measured.outstanding_ios, Some(4));
        assert!((measured.effective_queue_depth.unwrap() - 2.0).abs() < 1e-9);
    }

    #[test]
    fn advice_stripe_queue_depth() {
        // The seed's point: an app at QD 2 on a 4-disk stripe leaves disks idle. Here 16
        // outstanding on 4 disks needs 32. Latency is low enough that Little's law is satisfied,
        // so only the stripe rule explains the shortfall.
        let job = job(
            direction(16000.0, 8192, 600.0, 0.5, 1.0),
            DirectionResult::default(),
            16,
            1,
        );
        let context = CompareContext {
            disks: Some(4),
            caching: Some(HostCaching::None),
            ..Default::default()
        };
        let comparison = run(&[&job], &volume(20000.0, 1.0, None, 8192, 100.0), &context);
        assert_eq!(kinds(&comparison), vec![AdviceKind::StripeQueueDepth]);
        assert!(comparison.advice[0].message.contains("4 disks x 8 = 32"));
        // A single disk is no stripe.
        let context = CompareContext {
            disks: Some(1),
            ..context
        };
        let comparison = run(&[&job], &volume(20000.0, 1.0, None, 8192, 100.0), &context);
        assert_eq!(kinds(&comparison), vec![AdviceKind::NoCauseFound]);
    }

    #[test]
    fn advice_cache_not_warmed() {
        // Reads at 4 ms on a ReadOnly volume: cache misses.
        let job = job(
            direction(4000.0, 8192, 600.0, 4.0, 9.0),
            DirectionResult::default(),
            64,
            1,
        );
        let context = CompareContext {
            caching: Some(HostCaching::ReadOnly),
            ..Default::default()
        };
        let comparison = run(&[&job], &volume(10000.0, 1.0, None, 8192, 100.0), &context);
        assert!(
            kinds(&comparison).contains(&AdviceKind::CacheNotWarmed),
            "{:?}",
            comparison.advice
        );
        let message = &comparison
            .advice
            .iter()
            .find(|a| a.kind == AdviceKind::CacheNotWarmed)
            .unwrap()
            .message;
        assert!(message.contains("reads averaged 4.000 ms"), "{message}");
        assert!(!message.contains("the run lasted"), "{message}");
        // Fast reads but a 30 s run: still cold by the short-run rule.
        let job = job_short(direction(4000.0, 8192, 30.0, 0.4, 0.9));
        let comparison = run(&[&job], &volume(10000.0, 1.0, None, 8192, 100.0), &context);
        let message = &comparison
            .advice
            .iter()
            .find(|a| a.kind == AdviceKind::CacheNotWarmed)
            .unwrap()
            .message;
        assert!(message.contains("the run lasted 30 s"), "{message}");
        // The same numbers on an uncached volume say nothing about a cache.
        let context = CompareContext {
            caching: Some(HostCaching::None),
            ..Default::default()
        };
        let comparison = run(&[&job], &volume(10000.0, 1.0, None, 8192, 100.0), &context);
        assert!(!kinds(&comparison).contains(&AdviceKind::CacheNotWarmed));
    }

    fn job_short(read: DirectionResult) -> JobResult {
        job(read, DirectionResult::default(), 64, 1)
    }

    #[test]
    fn advice_write_latency_on_cached_disk() {
        let job = job(
            DirectionResult::default(),
            direction(2000.0, 8192, 600.0, 6.0, 12.0),
            16,
            1,
        );
        let mut log = volume(1000.0, 1.0, Some(2.0), 8192, 0.0);
        log.role = VolumeRole::Log;
        let context = CompareContext {
            caching: Some(HostCaching::ReadWrite),
            ..Default::default()
        };
        let comparison = run(&[&job], &log, &context);
        assert!(
            kinds(&comparison).contains(&AdviceKind::WriteLatencyOnCachedDisk),
            "{:?}",
            comparison.advice
        );
        let write_advice = comparison
            .advice
            .iter()
            .find(|a| a.kind == AdviceKind::WriteLatencyOnCachedDisk)
            .unwrap();
        assert!(write_advice
            .message
            .contains("a log volume belongs on host caching None"));
        assert!(write_advice.message.contains("writes averaged 6.000 ms"));
    }

    #[test]
    fn read_mostly_data_on_readonly_keeps_its_cache() {
        // 70% reads on a ReadOnly data volume, latency short: the seed's recommended caching for
        // data files, so no advice to switch it off.
        let job = job(
            direction(7000.0, 8192, 600.0, 3.0, 9.0),
            direction(3000.0, 8192, 600.0, 3.0, 9.0),
            64,
            1,
        );
        let context = CompareContext {
            caching: Some(HostCaching::ReadOnly),
            ..Default::default()
        };
        let comparison = run(
            &[&job],
            &volume(1000.0, 1.0, Some(2.0), 8192, 70.0),
            &context,
        );
        assert!(!kinds(&comparison).contains(&AdviceKind::WriteLatencyOnCachedDisk));
        assert!(kinds(&comparison).contains(&AdviceKind::CacheNotWarmed));
    }

    #[test]
    fn advice_queue_depth_raises_latency() {
        // 128 outstanding for 2,000 IOPS at a 1 ms target, where 2 would do: latency 8 ms.
        let job = job(
            direction(16000.0, 8192, 600.0, 8.0, 20.0),
            DirectionResult::default(),
            128,
            1,
        );
        let comparison = run(
            &[&job],
            &volume(2000.0, 1.0, Some(1.0), 8192, 100.0),
            &CompareContext::default(),
        );
        assert_eq!(
            kinds(&comparison),
            vec![AdviceKind::QueueDepthRaisesLatency]
        );
        assert!(
            comparison.advice[0].message.contains("= 2 for the target"),
            "{}",
            comparison.advice[0].message
        );
    }

    #[test]
    fn advice_capped_by_vm_not_disks() {
        // SPEC: 4,000 IOPS needed, one P30 (5,000) on a DS1 (3,200): capped at 3,200 by the VM.
        let job = job(
            direction(3190.0, 8192, 600.0, 10.0, 20.0),
            DirectionResult::default(),
            32,
            1,
        );
        let context = CompareContext {
            limits: vec![
                LimitBar::new("Standard_DS1 uncached IOPS", 3200.0, "IOPS", true)
                    .scope(LimitScope::Vm),
                LimitBar::new("1 x P30 IOPS", 5000.0, "IOPS", false).scope(LimitScope::Disk),
            ],
            ..Default::default()
        };
        let comparison = run(&[&job], &volume(4000.0, 1.0, None, 8192, 100.0), &context);
        assert!(
            kinds(&comparison).contains(&AdviceKind::CappedByVm),
            "{:?}",
            comparison.advice
        );
        let message = &comparison
            .advice
            .iter()
            .find(|a| a.kind == AdviceKind::CappedByVm)
            .unwrap()
            .message;
        assert!(
            message.contains("3,200") && message.contains("5,000"),
            "{message}"
        );
        // Far below the binding limit, the VM is not what stopped it.
        let slow = job_short(direction(1000.0, 8192, 600.0, 10.0, 20.0));
        let comparison = run(&[&slow], &volume(4000.0, 1.0, None, 8192, 100.0), &context);
        assert!(!kinds(&comparison).contains(&AdviceKind::CappedByVm));
    }

    #[test]
    fn stopped_jobs_are_warned_about() {
        let mut stopped = good_job();
        stopped.error = Some("EIO on /data/f".into());
        stopped.interrupted = true;
        let comparison = run(
            &[&stopped],
            &volume(1.0, 1.0, None, 8192, 70.0),
            &CompareContext::default(),
        );
        assert_eq!(comparison.warnings.len(), 2);
        let text = comparison.warnings.join("\n");
        assert!(
            text.contains("stopped on an error (EIO on /data/f)"),
            "{text}"
        );
        assert!(text.contains("was interrupted"), "{text}");
    }

    #[test]
    fn advice_capped_by_disks() {
        // SPEC: 250 MB/s needed, DS4 (256 MB/s) with one P30 (200 MB/s): capped by the disk.
        let job = job(
            direction(199.0, 1_000_000, 600.0, 50.0, 80.0),
            DirectionResult::default(),
            16,
            1,
        );
        let context = CompareContext {
            limits: vec![
                LimitBar::new("Standard_DS4 uncached MB/s", 256.0, "MB/s", false)
                    .scope(LimitScope::Vm),
                LimitBar::new("1 x P30 MB/s", 200.0, "MB/s", true).scope(LimitScope::Disk),
            ],
            ..Default::default()
        };
        let comparison = run(
            &[&job],
            &volume(1.0, 250.0, None, 1_000_000, 100.0),
            &context,
        );
        assert_eq!(kinds(&comparison), vec![AdviceKind::CappedByDisks]);
    }

    #[test]
    fn binary_mb_limits_compare_in_mib() {
        // The seed's P30 "200 MB/s" counts 1 MB = 2^20 bytes: 200 MiB/s = 209.7 MB/s. A run at
        // 205 MB/s (195.5 MiB/s) is at that limit, not above it.
        let job = job(
            direction(205.0, 1_000_000, 600.0, 50.0, 80.0),
            DirectionResult::default(),
            16,
            1,
        );
        let context = CompareContext {
            limits: vec![
                LimitBar::new("1 x P30 MB/s", 200.0, "MiB/s", true).scope(LimitScope::Disk)
            ],
            ..Default::default()
        };
        let comparison = run(
            &[&job],
            &volume(1.0, 250.0, None, 1_000_000, 100.0),
            &context,
        );
        assert_eq!(kinds(&comparison), vec![AdviceKind::CappedByDisks]);
        assert!(
            comparison.advice[0].message.contains("195.5 MiB/s"),
            "{}",
            comparison.advice[0].message
        );
    }

    #[test]
    fn reads_real_fio_json() {
        let run = read_results(FIO_RANDRW, "fio-randrw-8k.json").unwrap();
        assert_eq!((run.tool.as_str(), run.version.as_str()), ("fio", "3.33"));
        assert_eq!(run.jobs.len(), 1);
        let job = &run.jobs[0];
        assert_eq!(job.name, "randrw8k");
        assert_eq!(job.rw, Some(RwMode::RandRw));
        assert_eq!(job.engine_requested, Some(EngineKind::Psync));
        assert_eq!(job.read.iops, 7000.0);
        assert_eq!(job.read.ios, 7007);
        assert_eq!(job.read.io_bytes, 57_401_344);
        assert_eq!(job.read.io_bytes, job.read.ios * 8192);
        assert_eq!(job.read.runtime_ns, 1_001_000_000);
        assert_eq!(job.read.completion_latency.percentile_ns(1.0), Some(55040));
        assert_eq!(job.read.completion_latency.count, 7007);
        let measured = Measured::from_jobs(&run.jobs);
        assert_eq!(measured.io_size_bytes, Some(8192.0));
        assert_eq!(measured.outstanding_ios, Some(1));
        assert_eq!(measured.latency_p99_kind, "completion");
        let read_pct = measured.read_pct.unwrap();
        assert!((60.0..80.0).contains(&read_pct), "{read_pct}");
    }

    #[test]
    fn group_reporting_and_clones_count_right() {
        let grouped = read_results(FIO_GROUPED, "g.json").unwrap();
        assert_eq!(grouped.jobs.len(), 1);
        assert_eq!((grouped.jobs[0].iodepth, grouped.jobs[0].clones), (16, 2));
        assert_eq!(Measured::from_jobs(&grouped.jobs).outstanding_ios, Some(32));
        let clones = read_results(FIO_CLONES, "c.json").unwrap();
        assert_eq!(clones.jobs.len(), 2);
        assert!(clones
            .jobs
            .iter()
            .all(|job| job.clones == 1 && job.iodepth == 4));
        let measured = Measured::from_jobs(&clones.jobs);
        assert_eq!(measured.outstanding_ios, Some(8));
        assert_eq!(measured.read_pct, Some(0.0));
        assert_eq!(measured.io_size_bytes, Some(65536.0));
        let sum: f64 = clones.jobs.iter().map(|job| job.write.iops).sum();
        assert!((measured.iops - sum).abs() < 1e-9);
    }

    #[test]
    fn tolerates_text_before_the_document_and_fio2_microseconds() {
        let text = "fio: this platform does not support process shared mutexes\n{\"fio version\":\"fio-2.2.10\",\"jobs\":[{\"jobname\":\"a\",\"groupid\":0,\
            \"read\":{\"io_bytes\":4096,\"bw\":4,\"iops\":1.0,\"runtime\":1000,\
            \"clat\":{\"min\":100,\"max\":300,\"mean\":200.5,\"stddev\":1,\"percentile\":{\"99.000000\":290}},\
            \"lat\":{\"min\":110,\"max\":310,\"mean\":210.0,\"stddev\":1}}}]}";
        let run = read_results(
            &format!("{text}\nfio: file hash not empty on exit\n"),
            "old.json",
        )
        .unwrap();
        let read = &run.jobs[0].read;
        assert_eq!(read.ios, 1);
        assert_eq!(read.bandwidth_bytes_per_second, 4096.0);
        assert_eq!(read.completion_latency.percentile_ns(99.0), Some(290_000));
        assert_eq!(read.total_latency.mean_ns, 210_000.0);
        assert_eq!(run.jobs[0].write, DirectionResult::default());
    }

    #[test]
    fn iofit_extension_brings_the_series() {
        let text = r#"{"jobs":[{"jobname":"a","read":{"io_bytes":8192,"bw_bytes":8192,"iops":2,"runtime":1000,"total_ios":2},
            "iofit":{"engine_used":"io_uring","series":[{"start_ms":0,"interval_ms":1000,"read_ios":2,"read_bytes":8192,
            "write_ios":0,"write_bytes":0,"latency_mean_ns":1000.0,"latency_p99_ns":2000}]}}]}"#;
        let run = read_results(text, "x.json").unwrap();
        assert_eq!(run.jobs[0].series.len(), 1);
        assert_eq!(run.jobs[0].engine_used, Some(EngineKind::IoUring));
        let bad = text.replace("\"read_ios\":2,", "\"read_ios\":\"two\",");
        let error = read_results(&bad, "x.json").unwrap_err().to_string();
        assert!(
            error.contains("x.json") && error.contains("jobs[0].iofit.series"),
            "{error}"
        );
    }

    #[test]
    fn errors_name_file_and_key() {
        let cases: [(&str, &str); 6] = [
            ("", "the file is empty"),
            ("iostat output, not json", "no line starts a JSON object"),
            ("{\"jobs\": [", "line 1"),
            ("{\"fio version\": \"fio-3.33\"}", "missing key 'jobs'"),
            ("{\"jobs\": [{\"jobname\": \"a\", \"read\": {\"runtime\": 1, \"io_bytes\": 1, \"bw\": 1}}]}", "missing key 'jobs[0].read.iops'"),
            ("{\"jobs\": [{\"jobname\": \"a\", \"read\": {\"runtime\": \"x\"}}]}", "key 'jobs[0].read.runtime': expected a number"),
        ];
        for (text, expected) in cases {
            let error = read_results(text, "r.json").unwrap_err().to_string();
            assert!(error.starts_with("r.json: "), "{error}");
            assert!(error.contains(expected), "{text:?}: {error}");
            assert!(!error.contains('\n'), "{error}");
        }
    }

    #[test]
    fn several_groups_need_a_choice() {
        let mut first = good_job();
        first.name = "a".into();
        let mut second = good_job();
        second.name = "b".into();
        second.group_id = 1;
        let run = RunResult {
            jobs: vec![first, second],
            ..Default::default()
        };
        let error = select_jobs(&run, &JobSelection::default()).unwrap_err();
        let volume = volume(1.0, 1.0, None, 8192, 70.0);
        assert!(compare_run(&run, &volume, &CompareContext::default(), "r", "q").is_err());
        assert!(error.to_string().contains("--group"), "{error}");
        let picked = select_jobs(
            &run,
            &JobSelection {
                group: Some(1),
                names: vec![],
            },
        )
        .unwrap();
        assert_eq!(picked.len(), 1);
        assert_eq!(picked[0].name, "b");
        let error = select_jobs(
            &run,
            &JobSelection {
                group: None,
                names: vec!["zz".into()],
            },
        )
        .unwrap_err();
        assert!(error.to_string().contains("'a' (group 0)"), "{error}");
    }
}
