//! The NetApp seed's thread-sizing method, run for real:
//! 1. run the workload with ONE thread (one IO in flight) to measure the best latency;
//! 2. Little's law in vdbench's form: `threads = latency_seconds x desired IOPS`
//!    ([`iofit_model::formulas::vdbench_threads`]), rounded up;
//! 3. run at that thread count and say whether the target IOPS was reached.

use crate::error::shown;
use crate::execute::{first_job_error, Executor};
use crate::measure::{iops_of, mean_latency_ns};
use crate::observer::{threads_text, Event, Observer};
use crate::ProcedureError;
use iofit_model::formulas::vdbench_threads;
use iofit_model::job::{BlockSizeSpec, EngineKind, JobSpec, RwMode, SizeSpec, Target};
use iofit_model::units::{Bytes, Iops, Latency, Micros, Seconds};
use iofit_stats::JobResult;
use serde::Serialize;
use std::path::PathBuf;
use std::time::Duration;

/// What to size, checked by [`SizeThreadsOptions::validate`].
#[derive(Clone, Debug)]
pub struct SizeThreadsOptions {
    pub target_iops: Iops,
    /// Directory to test in (a file `iofit-size-threads.0.0` is created there).
    pub target: PathBuf,
    pub rw: RwMode,
    pub io_size: Bytes,
    /// Share of reads for mixed patterns, percent.
    pub rwmix_read_pct: f64,
    pub file_size: Bytes,
    /// Length of each of the two measurements.
    pub duration_s: Seconds,
    pub buffered: bool,
    pub max_threads: u32,
}

/// `size-threads`' flags as written; [`SizeThreadsFlags::options`] reads the workload's
/// `--rw`, `--bs` and `--size` as fio reads them.
#[derive(Clone, Debug, Default)]
pub struct SizeThreadsFlags {
    pub target_iops: Iops,
    pub target: PathBuf,
    pub rw: String,
    pub bs: String,
    pub rwmixread: f64,
    pub size: String,
    pub duration_s: Seconds,
    pub buffered: bool,
    pub max_threads: u32,
}

impl SizeThreadsFlags {
    /// The options, each bad value naming its flag (exit 2).
    pub fn options(&self) -> Result<SizeThreadsOptions, ProcedureError> {
        let bad = ProcedureError::bad_input;
        let bytes = |flag: &str, text: &str| {
            Bytes::parse(text).map_err(|e| bad(format!("{flag} {text}: {e}")))
        };
        Ok(SizeThreadsOptions {
            target_iops: self.target_iops,
            target: self.target.clone(),
            rw: RwMode::parse(&self.rw).map_err(|e| bad(format!("--rw {e}")))?,
            io_size: bytes("--bs", &self.bs)?,
            rwmix_read_pct: self.rwmixread,
            file_size: bytes("--size", &self.size)?,
            duration_s: self.duration_s,
            buffered: self.buffered,
            max_threads: self.max_threads,
        })
    }
}

/// The largest IO rate worth sizing for (10^9 IO/s is beyond any storage there is).
pub const MAX_TARGET_IOPS: f64 = 1e9;
/// The longest measurement: a day.
pub const MAX_DURATION_S: f64 = 86_400.0;
/// The most threads the method will start: the job's clones, bounded as `numjobs` is.
pub const MAX_THREADS: u32 = iofit_model::limits::MAX_NUMJOBS;

impl SizeThreadsOptions {
    /// Every number in range, each error naming its flag and the allowed range.
    pub fn validate(&self) -> Result<(), ProcedureError> {
        let bad = ProcedureError::bad_input;
        let target_iops = self.target_iops.get();
        if !(target_iops > 0.0 && target_iops <= MAX_TARGET_IOPS) {
            return Err(bad(format!(
                "--target-iops {}: write a number of IOs per second above 0 and at most {MAX_TARGET_IOPS:e}, such as 5000",
                shown(target_iops)
            )));
        }
        let duration_s = self.duration_s.get();
        if !(duration_s > 0.0 && duration_s <= MAX_DURATION_S) {
            return Err(bad(format!(
                "--runtime {}: write a number of seconds above 0 and at most {MAX_DURATION_S}",
                shown(duration_s)
            )));
        }
        if !self.target.is_dir() {
            return Err(bad(format!(
                "--target {}: not a directory; give an existing directory to test in",
                self.target.display()
            )));
        }
        if self.io_size == Bytes::ZERO || self.file_size < self.io_size {
            return Err(bad(format!(
                "--bs {} and --size {}: the IO size must be above 0 and no larger than the file",
                self.io_size, self.file_size
            )));
        }
        if !(0.0..=100.0).contains(&self.rwmix_read_pct) {
            return Err(bad(format!(
                "--rwmixread {}: write 0..100",
                self.rwmix_read_pct
            )));
        }
        if !(1..=MAX_THREADS).contains(&self.max_threads) {
            return Err(bad(format!(
                "--max-threads {}: write 1..{MAX_THREADS}",
                self.max_threads
            )));
        }
        Ok(())
    }

    /// The one file every run uses.
    pub fn test_file(&self) -> std::path::PathBuf {
        self.target.join("iofit-size-threads.0.0")
    }

    /// The job at `threads` threads: every clone uses the same file, as vdbench's threads
    /// share one data set; one thread = one synchronous IO in flight.
    pub fn job(&self, threads: u32) -> JobSpec {
        let mut job = JobSpec::new("iofit-size-threads", Target::Files(vec![self.test_file()]))
            .with_rw(self.rw);
        if self.rw.is_mixed() {
            job.rwmix_read_pct = self.rwmix_read_pct;
        }
        job.block_size = BlockSizeSpec::fixed(self.io_size);
        job.engine = EngineKind::Psync;
        job.numjobs = threads;
        job.direct = !self.buffered;
        job.size = Some(SizeSpec::Bytes(self.file_size));
        job.runtime = Some(Duration::from_secs_f64(self.duration_s.get()));
        job.time_based = true;
        job.group_reporting = true;
        job
    }
}

/// What the method found.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct SizeThreadsResult {
    pub target_iops: Iops,
    pub rw: String,
    pub io_size_bytes: Bytes,
    /// Mean completion-to-submission latency with one IO in flight.
    pub best_latency_us: Micros,
    pub single_thread_iops: Iops,
    /// `latency_s x target IOPS`, unrounded.
    pub threads_exact: f64,
    /// Rounded up: the thread count that was run (at most `--max-threads`).
    pub threads: u32,
    /// `threads_exact` was above `--max-threads`, so `threads` is that cap.
    pub capped_at_max_threads: bool,
    pub measured_iops: Iops,
    pub measured_latency_us: Micros,
    pub reached: bool,
    /// The test file the runs used; left in place (as fio leaves its files), so the next run
    /// need not lay it out again.
    pub test_file: std::path::PathBuf,
}

/// The closing lines `iofit size-threads` prints after the steps: what the sized run measured,
/// whether the target was reached and, if not, why.
pub fn render_text(result: &SizeThreadsResult) -> String {
    use iofit_model::units::group_thousands;
    let threads = threads_text(result.threads);
    let target = group_thousands(result.target_iops.get());
    let mut text = format!(
        "  measured {} IOPS at {:.1} us mean latency with {threads}\n",
        group_thousands(result.measured_iops.get().round()),
        result.measured_latency_us.get()
    );
    if result.reached {
        text += &format!("target {target} IOPS reached with {threads}\n");
    } else if result.capped_at_max_threads {
        text += &format!(
            "target {target} IOPS NOT reached with {threads}, the --max-threads cap ({} were \
             needed); raise --max-threads to run them all\n",
            result.threads_exact.ceil()
        );
    } else {
        let latency_s = result.measured_latency_us.get() / 1e6;
        text += &format!(
            "target {target} IOPS NOT reached with {threads}: latency rose from {:.1} us to {:.1} \
             us under load (Little's law: {} / {latency_s:.6} s = {} IOPS); the storage \
             saturates below the target\n",
            result.best_latency_us.get(),
            result.measured_latency_us.get(),
            result.threads,
            group_thousands((f64::from(result.threads) / latency_s.max(1e-12)).round())
        );
    }
    text + &format!(
        "test file {} left for the next run (remove it when done)\n",
        result.test_file.display()
    )
}

/// Runs the method: one thread, Little's law, the sized run.
pub fn size_threads(
    options: &SizeThreadsOptions,
    executor: &mut dyn Executor,
    observer: &mut dyn Observer,
) -> Result<SizeThreadsResult, ProcedureError> {
    options.validate()?;
    observer.event(&Event::SingleThread {
        rw: options.rw.fio_name(),
        io_size_bytes: options.io_size,
        buffered: options.buffered,
        seconds: options.duration_s.get(),
    });
    let single = run_one(options, 1, "1 thread", executor, observer)?;
    let best_latency_ns = mean_latency_ns(&single);
    if best_latency_ns <= 0.0 {
        return Err(ProcedureError::NothingMeasured(
            "the one-thread run completed no IO; nothing to size from".into(),
        ));
    }
    let best = Latency::from_nanos(best_latency_ns);
    let threads_exact = vdbench_threads(best, options.target_iops);
    // More threads than --max-threads allows: run at the cap and say so; the result is then
    // "not reached" if the cap cannot carry the target (a measurement, not bad input: a
    // starved CPU or a slow device can put the one-thread latency anywhere).
    let capped_at_max_threads = threads_exact > f64::from(options.max_threads);
    let threads = if capped_at_max_threads {
        options.max_threads
    } else {
        (threads_exact.ceil() as u32).max(1)
    };
    observer.event(&Event::ThreadsSized {
        best_latency_us: best.as_micros(),
        single_thread_iops: Iops(iops_of(&single)),
        target_iops: options.target_iops,
        threads_exact,
        threads,
        capped_at_max_threads,
        seconds: options.duration_s.get(),
    });
    let sized = run_one(options, threads, &threads_text(threads), executor, observer)?;
    let measured_iops = Iops(iops_of(&sized));
    Ok(SizeThreadsResult {
        target_iops: options.target_iops,
        rw: options.rw.fio_name().to_string(),
        io_size_bytes: options.io_size,
        best_latency_us: Micros(best.as_micros()),
        single_thread_iops: Iops(iops_of(&single)),
        threads_exact,
        threads,
        capped_at_max_threads,
        measured_iops,
        measured_latency_us: Micros(mean_latency_ns(&sized) / 1e3),
        reached: measured_iops >= options.target_iops,
        test_file: options.test_file(),
    })
}

fn run_one(
    options: &SizeThreadsOptions,
    threads: u32,
    label: &str,
    executor: &mut dyn Executor,
    observer: &mut dyn Observer,
) -> Result<JobResult, ProcedureError> {
    let result = executor.execute(&[options.job(threads)], label, observer)?;
    first_job_error(&result, label)?;
    result
        .jobs
        .into_iter()
        .next()
        .ok_or_else(|| ProcedureError::NothingMeasured(format!("{label}: no result")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_read_the_workload_as_fio_does_and_name_a_bad_one() {
        let flags = SizeThreadsFlags {
            target_iops: Iops(2_000.0),
            target: PathBuf::from("/tmp"),
            rw: "randrw".into(),
            bs: "8k".into(),
            rwmixread: 70.0,
            size: "64m".into(),
            duration_s: Seconds(5.0),
            buffered: true,
            max_threads: 256,
        };
        let options = flags.options().unwrap();
        assert_eq!(options.rw, RwMode::RandRw);
        assert_eq!(
            (options.io_size, options.file_size),
            (Bytes::kib(8), Bytes::mib(64))
        );
        assert_eq!((options.rwmix_read_pct, options.max_threads), (70.0, 256));
        assert!(options.buffered);
        for (bad, flag) in [
            (
                SizeThreadsFlags {
                    rw: "sideways".into(),
                    ..flags.clone()
                },
                "--rw ",
            ),
            (
                SizeThreadsFlags {
                    bs: "8q".into(),
                    ..flags.clone()
                },
                "--bs 8q: ",
            ),
            (
                SizeThreadsFlags {
                    size: "big".into(),
                    ..flags.clone()
                },
                "--size big: ",
            ),
        ] {
            let error = bad.options().unwrap_err();
            assert!(
                error.is_bad_input() && error.to_string().starts_with(flag),
                "{error}"
            );
        }
    }
    use crate::execute::EngineExecutor;
    use crate::observer::Quiet;

    fn options(dir: &std::path::Path, target_iops: f64) -> SizeThreadsOptions {
        SizeThreadsOptions {
            target_iops: Iops(target_iops),
            target: dir.to_path_buf(),
            rw: RwMode::RandRead,
            io_size: Bytes::kib(8),
            rwmix_read_pct: 50.0,
            file_size: Bytes::mib(1),
            duration_s: Seconds(0.05),
            buffered: false,
            max_threads: 256,
        }
    }

    #[test]
    fn threads_follow_littles_law_on_the_null_engine() {
        let dir = tempfile::tempdir().unwrap();
        // Fake clock: each reading 10 us later, so every IO's latency is the same few steps.
        let mut executor = EngineExecutor::null_with_fake_clock(10_000);
        let result =
            size_threads(&options(dir.path(), 5_000.0), &mut executor, &mut Quiet).unwrap();
        let latency_s = result.best_latency_us.get() / 1e6;
        assert!(latency_s > 0.0);
        assert!((result.threads_exact - latency_s * 5_000.0).abs() < 1e-9);
        assert_eq!(
            f64::from(result.threads),
            result.threads_exact.ceil().max(1.0)
        );
        // One thread with one IO in flight: IOPS x latency = 1 (Little's law), within 1%.
        assert!((result.single_thread_iops.get() * latency_s - 1.0).abs() < 0.01);
        assert_eq!(result.reached, result.measured_iops >= Iops(5_000.0));
        // Deterministic: the same inputs give the same numbers.
        let again = size_threads(&options(dir.path(), 5_000.0), &mut executor, &mut Quiet).unwrap();
        assert_eq!(result, again);
        // The null engine touches no file.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn more_threads_than_the_cap_runs_at_the_cap_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let mut executor = EngineExecutor::null_with_fake_clock(10_000);
        let mut capped = options(dir.path(), 1e6);
        capped.max_threads = 2;
        let result = size_threads(&capped, &mut executor, &mut Quiet).unwrap();
        assert!(result.threads_exact > 2.0, "{result:?}");
        assert!(result.capped_at_max_threads);
        assert_eq!(result.threads, 2);
        assert!(
            !result.reached,
            "two threads cannot carry 1e6 IOPS here: {result:?}"
        );
        let text = render_text(&result);
        assert!(
            text.contains("NOT reached with 2 threads, the --max-threads cap")
                && text.contains(&format!("{} were needed", result.threads_exact.ceil())),
            "{text}"
        );
        assert!(text.ends_with(&format!(
            "test file {} left for the next run (remove it when done)\n",
            dir.path().join("iofit-size-threads.0.0").display()
        )));
        let uncapped =
            size_threads(&options(dir.path(), 5_000.0), &mut executor, &mut Quiet).unwrap();
        assert!(!uncapped.capped_at_max_threads);
        assert_eq!(threads_text(1), "1 thread");
        assert_eq!(threads_text(3), "3 threads");
    }

    #[test]
    fn out_of_range_numbers_name_their_flag() {
        let dir = tempfile::tempdir().unwrap();
        let mut executor = EngineExecutor::null_with_fake_clock(10_000);
        for (change, flag) in [
            (
                Box::new(|o: &mut SizeThreadsOptions| o.target_iops = Iops(1e300))
                    as Box<dyn Fn(&mut SizeThreadsOptions)>,
                "--target-iops",
            ),
            (
                Box::new(|o| o.target_iops = Iops(f64::NAN)),
                "--target-iops",
            ),
            (Box::new(|o| o.duration_s = Seconds(1e20)), "--runtime"),
            (Box::new(|o| o.max_threads = 0), "--max-threads"),
            (Box::new(|o| o.rwmix_read_pct = 101.0), "--rwmixread"),
        ] {
            let mut o = options(dir.path(), 100.0);
            change(&mut o);
            let error = size_threads(&o, &mut executor, &mut Quiet).unwrap_err();
            assert!(error.is_bad_input(), "{error}");
            assert!(error.to_string().starts_with(flag), "{error}");
        }
        // A target that needs more threads than allowed is not bad input: it runs at the cap
        // (more_threads_than_the_cap_runs_at_the_cap_and_says_so).
    }
}
