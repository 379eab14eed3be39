//! fio-compatible JSON for run results: the structure and field names of fio 3.x's
//! `--output-format=json` (`jobs[].read/write` with `iops`, `bw` in KiB/s, `bw_bytes`,
//! `io_bytes`, `io_kbytes`, `total_ios`, `runtime` in ms, `slat_ns`/`clat_ns`/`lat_ns` with a
//! `percentile` map keyed like `"99.000000"`, per-interval `bw_*`/`iops_*` statistics,
//! `usr_cpu`, `sys_cpu`, `ctx`), so tools that read fio's JSON read iofit's. iofit's additions
//! sit under each job's `"iofit"` object (engine requested and used, clones, seed, syncs,
//! interrupted, error, the time series) and the top-level `"iofit"` object.

use crate::fio_common::{
    self, depth_shares, directions, latency_range_shares, percentile_list, to_pretty, BATCH_LABELS,
    DEPTH_LABELS,
};
pub use crate::fio_common::{interval_rates, FioOutput};
use crate::format_keys as keys;
use iofit_model::job::{EngineKind, Reporting};
use iofit_stats::{
    fio_bins, Ddir, DirectionResult, IntervalSample, JobResult, LatencySummary, RunResult,
};
use serde_json::{json, Map, Value};

/// Renders `run` as a fio JSON document. `job_options[i]` are the options of `run.jobs[i]` as
/// fio names them (missing entries are derived from the result: rw, ioengine, iodepth).
pub fn render(run: &RunResult, job_options: &[Vec<(String, String)>]) -> String {
    render_with(run, job_options, &FioOutput::default())
}

/// Renders `run` with each job's reporting options (`output`): percentile lists, unified
/// reporting, the options as written, and json+ bins.
pub fn render_with(
    run: &RunResult,
    job_options: &[Vec<(String, String)>],
    output: &FioOutput,
) -> String {
    to_pretty(&to_value_with(run, job_options, output))
}

/// The document as a JSON value.
pub fn to_value(run: &RunResult, job_options: &[Vec<(String, String)>]) -> Value {
    to_value_with(run, job_options, &FioOutput::default())
}

/// The document as a JSON value, with each job's reporting options.
pub fn to_value_with(
    run: &RunResult,
    job_options: &[Vec<(String, String)>],
    output: &FioOutput,
) -> Value {
    let group_bw: std::collections::BTreeMap<u32, [f64; 3]> =
        run.jobs.iter().fold(Default::default(), |mut acc, job| {
            let entry = acc.entry(job.group_id).or_insert([0.0; 3]);
            entry[0] += job.read.bandwidth_bytes_per_second;
            entry[1] += job.write.bandwidth_bytes_per_second;
            entry[2] += job.trim.bandwidth_bytes_per_second;
            acc
        });
    let jobs: Vec<Value> = run
        .jobs
        .iter()
        .enumerate()
        .map(|(index, job)| {
            let group = group_bw.get(&job.group_id).copied().unwrap_or_default();
            let reporting = output.job(index);
            let options = options_value(job, job_options.get(index), &reporting);
            job_value(job, options, &reporting, output.json_plus, group)
        })
        .collect();
    let mut doc = json!({
        "fio version": format!("iofit-{}", run.version),
        "timestamp": run.timestamp_s.get(),
        "timestamp_ms": run.timestamp_s.get() * 1000,
        "time": ctime_utc(run.timestamp_s.get()),
        "jobs": jobs,
        "disk_util": run.disk_util.iter().map(|d| json!({
            "name": d.name,
            "read_ios": d.read_ios,
            "write_ios": d.write_ios,
            "read_merges": d.read_merges,
            "write_merges": d.write_merges,
            "read_ticks": d.read_ticks,
            "write_ticks": d.write_ticks,
            "in_queue": d.in_queue,
            "util": d.util,
        })).collect::<Vec<_>>(),
        "iofit": {
            "tool": run.tool,
            "version": run.version,
            "hostname": run.hostname,
        },
    });
    if let Some(first) = output
        .reporting
        .first()
        .filter(|r| !r.global_options.is_empty())
    {
        doc["global options"] = pairs(&first.global_options);
    }
    doc
}

fn pairs(list: &[(String, String)]) -> Value {
    Value::Object(
        list.iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect(),
    )
}

/// fio's `"job options"`: the job's options as written when known, else as `job_options`
/// gives them, else derived from the result.
fn options_value(
    job: &JobResult,
    given: Option<&Vec<(String, String)>>,
    reporting: &Reporting,
) -> Value {
    if !reporting.job_options.is_empty() {
        return pairs(&reporting.job_options);
    }
    let mut opts = Map::new();
    opts.insert("name".into(), Value::String(job.name.clone()));
    match given {
        Some(list) => {
            for (key, value) in list {
                opts.insert(key.clone(), Value::String(value.clone()));
            }
        }
        None => {
            if let Some(rw) = job.rw {
                opts.insert("rw".into(), Value::String(rw.fio_name().into()));
            }
            if let Some(engine) = job.engine_requested {
                opts.insert("ioengine".into(), Value::String(engine.fio_name().into()));
            }
            opts.insert(
                keys::FIO_IODEPTH.into(),
                Value::String(job.iodepth.to_string()),
            );
        }
    }
    Value::Object(opts)
}

fn job_value(
    job: &JobResult,
    options: Value,
    reporting: &Reporting,
    json_plus: bool,
    group_bw: [f64; 3],
) -> Value {
    let runtime_ms = job
        .read
        .runtime_ns
        .max(job.write.runtime_ns)
        .max(job.trim.runtime_ns)
        .max(job.fio.job_runtime_ns)
        .get()
        / 1_000_000;
    let mut value = json!({
        "jobname": job.name,
        "groupid": job.group_id,
        // fio reports a verify failure as EILSEQ (84), other failures by their errno.
        "error": if job.verify.as_ref().is_some_and(|v| v.bad_units > 0) {
            84
        } else if let Some(error) = &job.error {
            errno_of(error)
        } else {
            0
        },
        "eta": 0,
        "elapsed": runtime_ms.div_ceil(1000),
        "job options": options,
        "trim": direction_value(
            &job.trim,
            &job.series,
            Some(Ddir::Trim),
            group_bw[2],
            reporting,
            json_plus,
        ),
        // fio's sync block: each timed fsync/fdatasync of fsync=/fdatasync=, with the job's
        // percentiles (the end_fsync is not in it, as in fio).
        "sync": {
            "total_ios": job.sync_latency.count,
            "lat_ns": latency_value(
                &job.sync_latency,
                Some(&percentile_list(reporting)),
                false,
            ),
        },
        "job_runtime": runtime_ms,
        "usr_cpu": job.usr_cpu_pct,
        "sys_cpu": job.sys_cpu_pct,
        "ctx": job.context_switches,
        "majf": job.fio.major_faults,
        "minf": job.fio.minor_faults,
        "iofit": {
            "engine_requested": job.engine_requested.map(EngineKind::fio_name),
            "engine_used": job.engine_used.map(EngineKind::fio_name),
            "clones": job.clones,
            (keys::FIO_IODEPTH): job.iodepth,
            "random_seed": job.random_seed,
            "syncs": job.syncs,
            "interrupted": job.interrupted,
            "error": job.error,
            "series": job.series,
        },
    });
    if job.fio.continue_on_error {
        // fio adds these two only for a job with continue_on_error (stat.c).
        value["total_err"] = json!(job.fio.total_err);
        value["first_error"] = json!(job.fio.first_error);
    }
    if !job.fio.error_lines.is_empty() {
        value["iofit"]["error_lines"] = json!(job.fio.error_lines);
    }
    let mut labels = vec!["trim"];
    if reporting.unified_rw_reporting == iofit_model::job::UnifiedRw::Mixed {
        // fio's unified_rw_reporting=1 writes the mixed block alone: no trim, no sync.
        if let Some(map) = value.as_object_mut() {
            map.remove("trim");
            map.remove("sync");
        }
        labels.clear();
    }
    for (label, direction) in directions(job, reporting.unified_rw_reporting) {
        let (ddir, bw) = match label {
            "read" => (Some(Ddir::Read), group_bw[0]),
            "write" => (Some(Ddir::Write), group_bw[1]),
            _ => (None, group_bw.iter().sum()),
        };
        value[label] = direction_value(&direction, &job.series, ddir, bw, reporting, json_plus);
        labels.push(label);
    }
    for label in labels {
        if job.fio.bw_measurement_off {
            // fio's disable_bw_measurement keeps no bandwidth samples: their statistics are 0
            // (the job's bw, bytes over runtime, stays).
            for key in [
                "bw_min",
                "bw_max",
                "bw_agg",
                "bw_mean",
                "bw_dev",
                "bw_samples",
            ] {
                value[label][key] = json!(0);
            }
        }
    }
    // Only a job that verified says so (the key is iofit's; fio prints verify errors).
    if let Some(verify) = &job.verify {
        value["iofit"]["verify"] = json!(verify);
    }
    add_distributions(&mut value, job);
    value
}

/// `iodepth_level`, `iodepth_submit`, `iodepth_complete`, `latency_ns/us/ms`, the latency
/// target's fields and, when the job had a criterion, `steadystate`.
fn add_distributions(value: &mut Value, job: &JobResult) {
    let labelled = |labels: &[&str], shares: &[f64]| -> Value {
        Value::Object(
            labels
                .iter()
                .zip(shares)
                .map(|(label, share)| (label.to_string(), json!(share)))
                .collect(),
        )
    };
    let [depth, submit, complete] = depth_shares(job);
    value["iodepth_level"] = labelled(&DEPTH_LABELS, &depth);
    value["iodepth_submit"] = labelled(&BATCH_LABELS, &submit);
    value["iodepth_complete"] = labelled(&BATCH_LABELS, &complete);
    let ranges = latency_range_shares(job);
    let labels = &fio_bins::RANGE_LABELS;
    value["latency_ns"] = labelled(&labels[..10], &ranges[..10]);
    value["latency_us"] = labelled(&labels[..10], &ranges[10..20]);
    value["latency_ms"] = labelled(labels, &ranges[20..]);
    let target = job.fio.latency_target.clone().unwrap_or_default();
    // The depth a latency_target search settled on, else the job's iodepth.
    let depth = job
        .latency_depth_found
        .or(job.fio.latency_target.as_ref().map(|t| t.depth))
        .unwrap_or(job.iodepth);
    value["latency_depth"] = json!(depth);
    // fio echoes the target in ns and the window in us (its own units for each).
    value["latency_target"] = json!(target.target_us.get() * 1000);
    value["latency_percentile"] = json!(if job.fio.latency_target.is_some() {
        target.percentile
    } else {
        100.0
    });
    value["latency_window"] = json!(target.window_us);
    if let Some(ss) = &job.steadystate {
        value["steadystate"] = steadystate_value(ss);
    }
}

/// fio's `steadystate` block, with fio's key names and types.
fn steadystate_value(ss: &iofit_stats::SteadyStateResult) -> Value {
    json!({
        "ss": ss.ss,
        "duration": ss.duration_s,
        "attained": u8::from(ss.attained),
        "criterion": format!("{:.6}{}", ss.criterion, if ss.percent { "%" } else { "" }),
        "max_deviation": ss.max_deviation,
        "slope": ss.slope,
        "data": {
            "bw_mean": ss.bw_mean_kib_s,
            "iops_mean": ss.iops_mean,
            "iops": ss.iops,
            "bw": ss.bw_kib_s,
        },
    })
}

/// fio's percentile keys: six decimals, `"99.900000"`.
pub fn percentile_key(percentile: f64) -> String {
    format!("{percentile:.6}")
}

/// One latency object; `percentiles` lists the percentiles to give (None: none), and
/// `bins` adds json+'s histogram.
fn latency_value(summary: &LatencySummary, percentiles: Option<&[f64]>, bins: bool) -> Value {
    let mut map = Map::new();
    map.insert("min".into(), json!(summary.min_ns));
    map.insert("max".into(), json!(summary.max_ns));
    map.insert("mean".into(), json!(summary.mean_ns));
    map.insert("stddev".into(), json!(summary.stdev_ns));
    map.insert("N".into(), json!(summary.count));
    let Some(list) = percentiles.filter(|_| summary.count > 0) else {
        return Value::Object(map);
    };
    let percentiles: Map<String, Value> = list
        .iter()
        .map(|&p| (percentile_key(p), json!(summary.percentile_or_bins_ns(p))))
        .collect();
    map.insert("percentile".into(), Value::Object(percentiles));
    if bins {
        let bins: Map<String, Value> = summary
            .fio_bins
            .iter()
            .map(|(value, count)| (value.to_string(), json!(count)))
            .collect();
        map.insert("bins".into(), Value::Object(bins));
    }
    Value::Object(map)
}

/// min, max, mean, sample standard deviation and count of per-interval rates, as fio reports
/// them in both its JSON and its text output; all zero when there are none.
pub(crate) fn rate_stats(values: &[f64]) -> (f64, f64, f64, f64, usize) {
    if values.is_empty() {
        return (0.0, 0.0, 0.0, 0.0, 0);
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let dev = if values.len() > 1 {
        (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
    } else {
        0.0
    };
    (min, max, mean, dev, values.len())
}

/// fio's `error` field: the errno of a failed IO or of `max_latency` (ETIMEDOUT, 110), read
/// from the message's "(os error N)"; 1 for a failure without one.
fn errno_of(message: &str) -> i32 {
    message
        .rsplit_once("(os error ")
        .and_then(|(_, tail)| tail.split(')').next()?.parse().ok())
        .unwrap_or(1)
}

/// One direction; `ddir` picks the interval series' side (None: all, for `mixed`).
fn direction_value(
    d: &DirectionResult,
    series: &[IntervalSample],
    ddir: Option<Ddir>,
    group_bw: f64,
    reporting: &Reporting,
    json_plus: bool,
) -> Value {
    let (bw_samples, iops_samples) = if d.ios == 0 {
        (Vec::new(), Vec::new())
    } else {
        match ddir {
            Some(ddir) => interval_rates(series, ddir),
            None => fio_common::mixed_rates(series),
        }
    };
    let (bw_min, bw_max, bw_mean, bw_dev, bw_n) = rate_stats(&bw_samples);
    let (iops_min, iops_max, iops_mean, iops_dev, iops_n) = rate_stats(&iops_samples);
    let bw_agg = if group_bw > 0.0 {
        d.bandwidth_bytes_per_second * 100.0 / group_bw
    } else {
        0.0
    };
    let list = percentile_list(reporting);
    let pick = |on: bool| on.then_some(list.as_slice());
    let mut value = json!({
        "io_bytes": d.io_bytes,
        "io_kbytes": d.io_bytes.as_u64() / 1024,
        "bw_bytes": d.bandwidth_bytes_per_second.round() as u64,
        "bw": (d.bandwidth_bytes_per_second / 1024.0).round() as u64,
        "iops": d.iops,
        (keys::FIO_RUNTIME): d.runtime_ns.get() / 1_000_000,
        "total_ios": d.ios,
        "short_ios": 0,
        "drop_ios": 0,
        "slat_ns": latency_value(&d.submission_latency, pick(reporting.slat_percentiles), json_plus),
        "clat_ns": latency_value(&d.completion_latency, pick(reporting.clat_percentiles), json_plus),
        "lat_ns": latency_value(&d.total_latency, pick(reporting.lat_percentiles), json_plus),
        "bw_min": bw_min.round() as u64,
        "bw_max": bw_max.round() as u64,
        "bw_agg": bw_agg,
        "bw_mean": bw_mean,
        "bw_dev": bw_dev,
        "bw_samples": bw_n,
        "iops_min": iops_min.round() as u64,
        "iops_max": iops_max.round() as u64,
        "iops_mean": iops_mean,
        "iops_stddev": iops_dev,
        "iops_samples": iops_n,
    });
    if let Some(prios) = prios_value(d, reporting, json_plus) {
        value["prios"] = prios;
    }
    value
}

/// fio's `prios` (stat.c, add_ddir_status_json): per IO priority of a cmdprio job, its class,
/// level and completion latency (total latency with `lat_percentiles`); only when at least two
/// priorities have samples, as fio prints it.
fn prios_value(d: &DirectionResult, reporting: &Reporting, json_plus: bool) -> Option<Value> {
    let with_samples: Vec<_> = d
        .prios
        .iter()
        .filter(|p| p.completion_latency.count > 0)
        .collect();
    if with_samples.len() < 2 {
        return None;
    }
    let list = percentile_list(reporting);
    let percentiles =
        (reporting.clat_percentiles || reporting.lat_percentiles).then_some(list.as_slice());
    let entries = with_samples
        .iter()
        .map(|p| {
            let (key, summary) = if reporting.lat_percentiles {
                ("lat_ns", &p.total_latency)
            } else {
                ("clat_ns", &p.completion_latency)
            };
            let mut entry = Map::new();
            entry.insert("prioclass".into(), json!(p.ioprio >> 13));
            entry.insert("prio".into(), json!(p.ioprio & 7));
            entry.insert(key.into(), latency_value(summary, percentiles, json_plus));
            Value::Object(entry)
        })
        .collect();
    Some(Value::Array(entries))
}

/// `Sun Nov 22 17:26:33 2026` in UTC (fio prints local time in the same layout).
pub fn ctime_utc(timestamp_s: u64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = (timestamp_s / 86_400) as i64;
    let secs = timestamp_s % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{} {} {:2} {:02}:{:02}:{:02} {}",
        DAYS[(days.rem_euclid(7)) as usize],
        MONTHS[(month - 1) as usize],
        day,
        secs / 3600,
        secs % 3600 / 60,
        secs % 60,
        year
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use iofit_model::job::RwMode;

    /// A real histogram's summary: `count` samples spread evenly over base..40 x base.
    fn latency(base: u64, count: u64) -> LatencySummary {
        let mut h = iofit_stats::LatencyHistogram::new();
        for i in 0..count {
            h.record(base + i * 39 * base / count.max(1));
        }
        h.summary()
    }

    /// A fixed two-job run: a rate-limited writer and a reader, as the seed's fioreadwrite.ini.
    pub(crate) fn sample_run() -> RunResult {
        let series = |reads: u64, writes: u64| -> Vec<IntervalSample> {
            (0..3)
                .map(|i| IntervalSample {
                    clat_mean_ns: Default::default(),
                    slat_mean_ns: Default::default(),
                    latency_bins: Default::default(),
                    by_direction: None,
                    start_ms: iofit_model::units::Millis(i * 1000),
                    interval_ms: iofit_model::units::Millis(1000),
                    read_ios: reads + i * 10,
                    read_bytes: iofit_model::Bytes((reads + i * 10) * 4096),
                    write_ios: writes,
                    write_bytes: iofit_model::Bytes(writes * 4096),
                    trim_ios: 0,
                    trim_bytes: iofit_model::Bytes(0),
                    latency_mean_ns: iofit_model::units::Nanos(80_000.0),
                    latency_p99_ns: iofit_model::units::Nanos(250_000),
                    ..Default::default()
                })
                .collect()
        };
        let reader = JobResult {
            // Depth 128 all along: every IO issued at >=64, submitted and reaped 9-16 a call.
            fio: iofit_stats::FioJobExtras {
                pid: 4242,
                io_depths: iofit_stats::IoDepthCounts {
                    issued: [0, 0, 0, 0, 0, 0, 30_030],
                    submit: [0, 0, 0, 3_003, 0, 0, 0],
                    complete: [0, 10, 0, 2_993, 0, 0, 0],
                },
                major_faults: 1,
                minor_faults: 120,
                ..Default::default()
            },
            name: "reader1".into(),
            group_id: 0,
            clones: 1,
            engine_requested: Some(EngineKind::Libaio),
            engine_used: Some(EngineKind::IoUring),
            rw: Some(RwMode::RandRead),
            iodepth: 128,
            read: DirectionResult {
                ios: 30_030,
                io_bytes: iofit_model::Bytes(30_030 * 4096),
                runtime_ns: iofit_model::units::Nanos(3_000_000_000),
                iops: iofit_model::units::Iops(10_010.0),
                bandwidth_bytes_per_second: 10_010.0 * 4096.0,
                submission_latency: latency(1_000, 30_030),
                completion_latency: latency(40_000, 30_030),
                total_latency: latency(41_000, 30_030),
                prios: Vec::new(),
            },
            write: DirectionResult::default(),
            trim: DirectionResult::default(),
            syncs: 0,
            sync_latency: Default::default(),
            series: series(10_000, 0),
            usr_cpu_pct: 3.5,
            sys_cpu_pct: 12.25,
            context_switches: 4321,
            random_seed: 42,
            error: None,
            interrupted: false,
            verify: None,
            steadystate: None,
            latency_depth_found: None,
        };
        let writer = JobResult {
            name: "writer1".into(),
            rw: Some(RwMode::RandWrite),
            read: DirectionResult::default(),
            write: DirectionResult {
                ios: 37_500,
                io_bytes: iofit_model::Bytes(37_500 * 4096),
                runtime_ns: iofit_model::units::Nanos(3_000_000_000),
                iops: iofit_model::units::Iops(12_500.0),
                bandwidth_bytes_per_second: 12_500.0 * 4096.0,
                submission_latency: latency(900, 37_500),
                completion_latency: latency(300, 37_500),
                total_latency: latency(1_200, 37_500),
                prios: Vec::new(),
            },
            series: series(0, 12_500),
            syncs: 1,
            sync_latency: Default::default(),
            interrupted: true,
            ..reader.clone()
        };
        RunResult {
            disk_util: Default::default(),
            tool: "iofit".into(),
            version: "0.1.0".into(),
            timestamp_s: iofit_model::units::UnixSeconds(1_795_368_393),
            hostname: "testhost".into(),
            jobs: vec![reader, writer],
        }
    }

    #[test]
    fn iofit_run_json_reads_back_whole() {
        // The iofit extension (clones, engines, per-interval series) survives the round trip
        // through the verdict's reader, and so does what compare measures from it.
        let mut run = sample_run();
        run.hostname = "vm1".into();
        run.jobs[0].clones = 4;
        let text = render(&run, &[]);
        let back = iofit_verdict::read_results(&text, "iofit.json").unwrap();
        assert_eq!(
            (back.tool.as_str(), back.hostname.as_str()),
            (run.tool.as_str(), "vm1")
        );
        let (job, original) = (&back.jobs[0], &run.jobs[0]);
        assert_eq!((job.clones, job.iodepth), (4, original.iodepth));
        assert_eq!(job.engine_used, Some(EngineKind::IoUring));
        assert_eq!(job.engine_requested, Some(EngineKind::Libaio));
        assert_eq!(job.series, original.series);
        assert_eq!(job.read.ios, original.read.ios);
        assert_eq!(job.write.io_bytes, original.write.io_bytes);
        assert_eq!(
            job.read.completion_latency.percentile_ns(99.0),
            original.read.completion_latency.percentile_ns(99.0)
        );
        let measured = iofit_verdict::Measured::from_jobs(&back.jobs);
        let expected = iofit_verdict::Measured::from_jobs(&run.jobs);
        assert_eq!(measured.outstanding_ios, expected.outstanding_ios);
        assert!((measured.iops - expected.iops).get().abs() < 1e-6);
    }

    #[test]
    fn fio_fields_and_units() {
        let run = sample_run();
        let value = to_value(&run, &[]);
        let read = &value["jobs"][0]["read"];
        assert_eq!(read["total_ios"], 30_030);
        assert_eq!(read["io_kbytes"], 30_030 * 4);
        // bw is KiB/s as fio has it: 10010 IOPS x 4 KiB.
        assert_eq!(read["bw"], 40_040);
        assert_eq!(read["runtime"], 3000);
        assert!(read["clat_ns"]["percentile"]["99.000000"].is_u64());
        assert!(read["lat_ns"].get("percentile").is_none());
        assert_eq!(read["bw_samples"], 3);
        assert_eq!(value["jobs"][0]["iofit"]["engine_used"], "io_uring");
        assert_eq!(value["jobs"][0]["job options"]["ioengine"], "libaio");
        assert_eq!(value["jobs"][1]["iofit"]["interrupted"], true);
        assert_eq!(value["time"], "Sun Nov 22 17:26:33 2026");
    }

    #[test]
    fn snapshot() {
        let run = sample_run();
        let options = vec![
            vec![
                ("rw".to_string(), "randread".to_string()),
                ("ioengine".to_string(), "libaio".to_string()),
                ("iodepth".to_string(), "128".to_string()),
            ],
            vec![("rate_iops".to_string(), "12500".to_string())],
        ];
        insta::assert_snapshot!(render(&run, &options));
    }

    #[test]
    fn the_compare_reader_reads_it_back() {
        let run = sample_run();
        let back = crate::compare::read_results(&render(&run, &[]), "x.json").unwrap();
        assert_eq!(back.jobs.len(), 2);
        assert_eq!(back.jobs[0].read.ios, run.jobs[0].read.ios);
        assert_eq!(back.jobs[1].write.io_bytes, run.jobs[1].write.io_bytes);
        assert_eq!(back.jobs[0].engine_used, Some(EngineKind::IoUring));
        assert_eq!(back.jobs[0].series, run.jobs[0].series);
        assert_eq!(back.jobs[0].random_seed, 42);
    }

    #[test]
    fn reporting_options_shape_the_document() {
        use iofit_model::job::{Reporting, UnifiedRw};
        let mut run = sample_run();
        run.jobs[0].fio.latency_target = Some(iofit_stats::LatencyTargetResult {
            target_us: iofit_model::units::Micros(2_000),
            window_us: iofit_model::units::Micros(1_000_000),
            percentile: 99.0,
            depth: 12,
        });
        run.jobs[0].steadystate = Some(iofit_stats::SteadyStateResult {
            ss: "iops_slope".into(),
            duration_s: iofit_model::units::Seconds(3),
            attained: true,
            criterion: 0.1,
            percent: true,
            iops: vec![10_000, 10_010, 10_020],
            ..Default::default()
        });
        let reporting = Reporting {
            percentile_list: vec![50.0, 99.0, 99.999],
            lat_percentiles: true,
            unified_rw_reporting: UnifiedRw::Mixed,
            job_options: vec![("bs".into(), "4k".into())],
            global_options: vec![("ioengine".into(), "libaio".into())],
            ..Default::default()
        };
        let output = FioOutput {
            reporting: vec![reporting.clone(), reporting],
            json_plus: true,
        };
        let value = to_value_with(&run, &[], &output);
        let job = &value["jobs"][0];
        assert!(job.get("read").is_none() && job.get("write").is_none());
        let mixed = &job["mixed"];
        assert_eq!(mixed["total_ios"], 30_030);
        let keys: Vec<&String> = mixed["clat_ns"]["percentile"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(keys.len(), 3);
        assert!(mixed["lat_ns"]["percentile"]["99.999000"].is_u64());
        let bins: u64 = mixed["clat_ns"]["bins"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum();
        assert_eq!(bins, 30_030);
        assert_eq!(job["latency_depth"], 12);
        assert_eq!(job["latency_target"], 2_000_000);
        assert_eq!(job["latency_percentile"], 99.0);
        assert_eq!(job["steadystate"]["attained"], 1);
        assert_eq!(job["steadystate"]["data"]["iops"][2], 10_020);
        assert_eq!(job["job options"], json!({"bs": "4k"}));
        assert_eq!(value["global options"], json!({"ioengine": "libaio"}));
        // The writer: fio's depth shares add up to 100% (none counted: all zero).
        assert_eq!(value["jobs"][0]["iodepth_level"][">=64"], 100.0);
    }

    #[test]
    fn ctime_matches_known_dates() {
        assert_eq!(ctime_utc(0), "Thu Jan  1 00:00:00 1970");
        assert_eq!(ctime_utc(951_782_400), "Tue Feb 29 00:00:00 2000");
    }
}
