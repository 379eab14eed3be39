//! `iofit size-threads`: the NetApp seed's thread-sizing method, run for real.
//!
//! 1. Run the workload with ONE thread (one IO in flight) to measure the best latency.
//! 2. Little's law in vdbench's form: `threads = latency_seconds x desired IOPS`
//!    ([`iofit_model::formulas::vdbench_threads`]), rounded up.
//! 3. Run at that thread count and report whether the target IOPS was reached (exit 0 when it
//!    was, 1 when it was not).

use super::bench::{run_engine, EngineRun};
use crate::exit::bad_input;
use iofit_model::formulas::vdbench_threads;
use iofit_model::job::{EngineKind, JobSpec, RwMode, SizeSpec, Target};
use iofit_model::units::{group_thousands, Bytes, Iops, Latency};
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The IO rate to reach, IOs per second.
    #[arg(long, value_name = "IOPS")]
    pub target_iops: f64,
    /// Directory to test in (a file iofit-size-threads.0.0 is created there).
    #[arg(long, value_name = "DIR")]
    pub target: PathBuf,
    /// IO pattern (fio names): randread, randwrite, randrw, read, write, rw.
    #[arg(long, default_value = "randread")]
    pub rw: String,
    /// IO size (k = 1024).
    #[arg(long, default_value = "8k")]
    pub bs: String,
    /// Share of reads for mixed patterns, percent.
    #[arg(long, default_value_t = 50.0)]
    pub rwmixread: f64,
    /// Test file size (k/m/g = powers of 1024).
    #[arg(long, default_value = "64m")]
    pub size: String,
    /// Length of each of the two measurements, seconds (fractions allowed).
    #[arg(long, default_value_t = 5.0)]
    pub duration: f64,
    /// Buffered IO instead of direct IO.
    #[arg(long)]
    pub buffered: bool,
    /// Refuse to run more threads than this.
    #[arg(long, default_value_t = 256)]
    pub max_threads: u32,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
    /// Write into an existing file iofit did not create.
    #[arg(long)]
    pub allow_overwrite: bool,
}

/// What the method found.
#[derive(Serialize, Debug)]
pub struct SizeThreadsResult {
    pub target_iops: f64,
    pub rw: String,
    pub io_size_bytes: u64,
    /// Mean completion-to-submission latency with one IO in flight.
    pub best_latency_us: f64,
    pub single_thread_iops: f64,
    /// `latency_s x target IOPS`, unrounded.
    pub threads_exact: f64,
    /// Rounded up: the thread count that was run.
    pub threads: u32,
    pub measured_iops: f64,
    pub measured_latency_us: f64,
    pub reached: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if !(args.target_iops.is_finite() && args.target_iops > 0.0) {
        return Err(bad_input(format!(
            "--target-iops {}: write a positive number of IOs per second such as 5000",
            args.target_iops
        )));
    }
    if !(args.duration.is_finite() && args.duration > 0.0) {
        return Err(bad_input(format!(
            "--duration {}: write a positive number of seconds",
            args.duration
        )));
    }
    if !args.target.is_dir() {
        return Err(bad_input(format!(
            "--target {}: not a directory; give an existing directory to test in",
            args.target.display()
        )));
    }
    let rw = parse_rw(&args.rw)?;
    let io_size =
        Bytes::parse(&args.bs).map_err(|e| bad_input(format!("--bs {}: {e}", args.bs)))?;
    let size =
        Bytes::parse(&args.size).map_err(|e| bad_input(format!("--size {}: {e}", args.size)))?;
    if io_size == Bytes::ZERO || size < io_size {
        return Err(bad_input(format!(
            "--bs {} and --size {}: the IO size must be above 0 and no larger than the file",
            args.bs, args.size
        )));
    }
    if !(0.0..=100.0).contains(&args.rwmixread) {
        return Err(bad_input(format!(
            "--rwmixread {}: write 0..100",
            args.rwmixread
        )));
    }
    let job_for = |threads: u32| {
        // Every clone uses the same file: the threads share one data set, as vdbench's do.
        let mut job = JobSpec::new(
            "iofit-size-threads",
            Target::Files(vec![args.target.join("iofit-size-threads.0.0")]),
        )
        .with_rw(rw);
        if rw.is_mixed() {
            job.rwmix_read_pct = args.rwmixread;
        }
        job.block_size = iofit_model::job::BlockSizeSpec::fixed(io_size);
        // One vdbench thread = one synchronous IO in flight.
        job.engine = EngineKind::Psync;
        job.numjobs = threads;
        job.direct = !args.buffered;
        job.size = Some(SizeSpec::Bytes(size));
        job.runtime = Some(Duration::from_secs_f64(args.duration));
        job.time_based = true;
        job.group_reporting = true;
        job
    };
    let engine_run = EngineRun {
        allow_overwrite: args.allow_overwrite,
        quiet: args.json,
    };

    if !args.json {
        println!(
            "step 1: one thread ({} {} {}) for {:.1} s to find the best latency",
            rw.fio_name(),
            io_size,
            if args.buffered { "buffered" } else { "direct" },
            args.duration
        );
    }
    let single = run_engine(&[job_for(1)], &engine_run, "1 thread")?;
    let single = &single[0];
    let best_latency_ns = mean_latency_ns(single);
    if best_latency_ns <= 0.0 {
        anyhow::bail!("the one-thread run completed no IO; nothing to size from");
    }
    let best = Latency::from_nanos(best_latency_ns);
    let threads_exact = vdbench_threads(best, Iops(args.target_iops));
    let threads = threads_exact.ceil().max(1.0) as u32;
    if threads > args.max_threads {
        return Err(bad_input(format!(
            "{} IOPS at {:.3} ms needs {threads} threads, more than --max-threads {}; raise --max-threads or lower --target-iops",
            group_thousands(args.target_iops),
            best.as_millis(),
            args.max_threads
        )));
    }
    if !args.json {
        println!(
            "  best latency {:.1} us ({} IOPS with one thread)",
            best.as_micros(),
            group_thousands(iops_of(single).round())
        );
        println!(
            "step 2: threads = latency_s x IOPS = {:.6} x {} = {:.2} -> {threads}",
            best.as_secs(),
            group_thousands(args.target_iops),
            threads_exact
        );
        println!("step 3: {threads} threads for {:.1} s", args.duration);
    }
    let sized = run_engine(
        &[job_for(threads)],
        &engine_run,
        &format!("{threads} threads"),
    )?;
    let sized = &sized[0];
    let measured_iops = iops_of(sized);
    let result = SizeThreadsResult {
        target_iops: args.target_iops,
        rw: rw.fio_name().to_string(),
        io_size_bytes: io_size.as_u64(),
        best_latency_us: best.as_micros(),
        single_thread_iops: iops_of(single),
        threads_exact,
        threads,
        measured_iops,
        measured_latency_us: mean_latency_ns(sized) / 1e3,
        reached: measured_iops >= args.target_iops,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&result)?);
    } else {
        println!(
            "  measured {} IOPS at {:.1} us mean latency with {threads} threads",
            group_thousands(measured_iops.round()),
            result.measured_latency_us
        );
        if result.reached {
            println!(
                "target {} IOPS reached with {threads} threads",
                group_thousands(args.target_iops)
            );
        } else {
            println!(
                "target {} IOPS NOT reached with {threads} threads: latency rose from {:.1} us to {:.1} us under load (Little's law: {threads} / {:.6} s = {} IOPS); the storage saturates below the target",
                group_thousands(args.target_iops),
                result.best_latency_us,
                result.measured_latency_us,
                result.measured_latency_us / 1e6,
                group_thousands((f64::from(threads) / (result.measured_latency_us / 1e6).max(1e-12)).round())
            );
        }
    }
    Ok(if result.reached {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(crate::exit::FAILED)
    })
}

fn parse_rw(text: &str) -> anyhow::Result<RwMode> {
    RwMode::from_fio_name(text).ok_or_else(|| {
        bad_input(format!(
            "--rw {text}: use randread, randwrite, randrw, read, write or rw"
        ))
    })
}

/// IOs per second of both directions over the measured window.
pub fn iops_of(job: &iofit_stats::JobResult) -> f64 {
    job.read.iops + job.write.iops
}

/// Mean total latency over both directions, nanoseconds.
pub fn mean_latency_ns(job: &iofit_stats::JobResult) -> f64 {
    let (r, w) = (&job.read.total_latency, &job.write.total_latency);
    let count = (r.count + w.count) as f64;
    if count == 0.0 {
        return 0.0;
    }
    (r.mean_ns * r.count as f64 + w.mean_ns * w.count as f64) / count
}
