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
//!     sizing: SizingTarget { iops: iofit_model::Iops(5000.0), throughput_mb_s: iofit_model::MBps(30.0), latency_ms: Some(iofit_model::units::Millis(1.0)),
//!         io_size_bytes: iofit_model::Bytes(8192), read_pct: 100.0, ..Default::default() },
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

mod advice;
mod checks;
mod fio_keys;
mod limits;
mod measured;
mod results;
mod warnings;
use advice::advise;
pub use advice::{Advice, AdviceKind};
pub use checks::{Check, CompareContext, Metric, Rule, Verdict};
use iofit_model::formulas::outstanding_ios;
use iofit_model::requirements::{VolumeRequirements, VolumeRole};
use iofit_model::units::group_thousands;
use iofit_stats::{JobResult, RunResult};
pub use limits::{limit_bars_from_prediction, LimitBar, LimitScope};
pub use measured::{
    latency_kind_words, select_jobs, JobSelection, Measured, SelectionError, TOTAL_LATENCY_WORDS,
};
pub use results::{read_results, ResultsError};
use serde::{Deserialize, Serialize};
pub use warnings::ResultsWarning;

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
    pub warnings: Vec<ResultsWarning>,
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
            Some(sizing.iops.get()),
            (measured.jobs > 0).then_some(measured.iops.get()),
            Rule::AtLeast,
            None,
        ),
        Check::judge(
            Metric::ThroughputMbS,
            Some(sizing.throughput_mb_s.get()),
            (measured.jobs > 0).then_some(measured.throughput_mb_s.get()),
            Rule::AtLeast,
            Some("1 MB = 10^6 bytes, as Azure counts".to_string()),
        ),
        Check::judge(
            Metric::LatencyMsAvg,
            sizing.latency_ms.map(|ms| ms.get()),
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
            Some(sizing.io_size_bytes.as_f64()),
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
        .map(|latency_ms| outstanding_ios(sizing.iops.get(), latency_ms).ceil());
    let queue_note = match (needed_queue_depth, measured.latency_ms_avg) {
        (Some(_), Some(latency_ms)) => Some(format!(
            "Little's law: {} IOPS x {latency_ms:.3} ms; measured = iodepth x jobs",
            group_thousands(sizing.iops.get())
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
            warnings.push(ResultsWarning::JobError {
                job: job.name.clone(),
                error: error.clone(),
            });
        }
        if job.interrupted {
            warnings.push(ResultsWarning::JobInterrupted {
                job: job.name.clone(),
            });
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::advice::fio_mix;
    use iofit_model::design::HostCaching;
    use iofit_model::job::{EngineKind, RwMode};
    use iofit_model::requirements::SizingTarget;
    use iofit_model::units::Nanos;
    use iofit_stats::{DirectionResult, LatencySummary};

    const FIO_RANDRW: &str = include_str!("../../../tests/data/results/fio-randrw-8k.json");
    const FIO_GROUPED: &str =
        include_str!("../../../tests/data/results/fio-randread-4k-libaio-qd16-2jobs.json");
    const FIO_CLONES: &str = include_str!("../../../tests/data/results/fio-write-64k-2clones.json");

    fn latency(mean_ms: f64, p99_ms: f64) -> LatencySummary {
        LatencySummary {
            fio_ranges: Default::default(),
            count: 1,
            min_ns: Nanos(0),
            max_ns: Nanos((p99_ms * 2e6) as u64),
            mean_ns: Nanos(mean_ms * 1e6),
            stdev_ns: Nanos(0.0),
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
            io_bytes: iofit_model::Bytes(ios * io_size),
            runtime_ns: Nanos((seconds * 1e9) as u64),
            iops: iofit_model::Iops(iops),
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
                iops: iofit_model::Iops(iops),
                throughput_mb_s: iofit_model::MBps(mb_s),
                latency_ms: latency_ms.map(iofit_model::units::Millis),
                io_size_bytes: iofit_model::Bytes(io_size),
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
        let name = stopped.name.clone();
        assert_eq!(
            comparison.warnings,
            vec![
                ResultsWarning::JobError {
                    job: name.clone(),
                    error: "EIO on /data/f".into()
                },
                ResultsWarning::JobInterrupted { job: name },
            ]
        );
        // In JSON the warnings are the sentences the reports print.
        let json = serde_json::to_value(&comparison).unwrap();
        assert_eq!(
            json["warnings"][1],
            format!(
                "job '{}' was interrupted before its planned end; its numbers cover what completed",
                stopped.name
            )
        );
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
        assert_eq!(job.read.iops.get(), 7000.0);
        assert_eq!(job.read.ios, 7007);
        assert_eq!(job.read.io_bytes, iofit_model::Bytes(57_401_344));
        assert_eq!(job.read.io_bytes, iofit_model::Bytes(job.read.ios * 8192));
        assert_eq!(job.read.runtime_ns, Nanos(1_001_000_000));
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
        let sum: f64 = clones.jobs.iter().map(|job| job.write.iops.get()).sum();
        assert!((measured.iops.get() - sum).abs() < 1e-9);
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
        assert_eq!(read.total_latency.mean_ns, Nanos(210_000.0));
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
