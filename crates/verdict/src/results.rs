//! Reading fio-format JSON results (real fio 3.x, fio 2.x microsecond fields, iofit's own
//! output) into the engine's `RunResult`.

use crate::fio_keys;
use iofit_model::job::{EngineKind, RwMode};
use iofit_model::units::{Iops, Nanos, UnixSeconds};
use iofit_stats::{DirectionResult, IntervalSample, JobResult, LatencySummary, RunResult};
use serde_json::{Map, Value};

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
            timestamp_s: UnixSeconds(root.get("timestamp").and_then(Value::as_u64).unwrap_or(0)),
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
            io_bytes: iofit_model::Bytes(io_bytes.max(0.0) as u64),
            runtime_ns: Nanos((runtime_ms.max(0.0) * 1e6) as u64),
            iops: Iops(iops),
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
            min_ns: Nanos((number("min") * scale).round() as u64),
            max_ns: Nanos((number("max") * scale).round() as u64),
            mean_ns: Nanos(number("mean") * scale),
            stdev_ns: Nanos(number("stddev") * scale),
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
