//! What a procedure tells whoever runs it, as it goes: steps, warnings, engine progress. The
//! procedures never print; the binary implements [`Observer`] and decides what reaches the
//! terminal.

use iofit_engine::Progress;
use iofit_model::units::{Bytes, Iops};
use std::fmt;
use std::path::PathBuf;

/// Receives a procedure's events. Every method has a default that does nothing.
pub trait Observer {
    /// A step starts (the binary prints these as the procedure's narrative).
    fn event(&mut self, _event: &Event) {}
    /// Something the user should know that does not stop the procedure.
    fn warning(&mut self, _warning: &Warning) {}
    /// Test files are being laid out before timing starts.
    fn layout(&mut self, _label: &str, _files: usize, _bytes: u64) {}
    /// Right after `layout`: the bytes laid out so far, counted while the layout runs.
    fn layout_written(
        &mut self,
        _label: &str,
        _written: std::sync::Arc<std::sync::atomic::AtomicU64>,
    ) {
    }
    /// A run is under way (about four times a second).
    fn progress(&mut self, _label: &str, _progress: &Progress) {}
    /// The run that reported progress ended.
    fn run_done(&mut self, _label: &str) {}
    /// A `--status-interval` report: the results so far, rendered in the run's output format.
    fn status_report(&mut self, _label: &str, _text: &str) {}
}

/// An observer that ignores everything.
pub struct Quiet;

impl Observer for Quiet {}

/// The steps of the procedures, in the words the binary prints.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// `bench azure-premium` starts, with its effective settings.
    BenchStart {
        nocache: PathBuf,
        readcache: PathBuf,
        workers: u32,
        iodepth: u32,
        file_bytes: Bytes,
        runtime_s: f64,
        scale: f64,
    },
    /// A cache warm-up spec starts.
    Warmup {
        spec: String,
        seconds: f64,
        scale: f64,
    },
    /// A benchmark scenario starts.
    Scenario {
        name: String,
        specs: Vec<String>,
        targets: Vec<String>,
    },
    /// `size-threads` step 1: one thread to find the best latency.
    SingleThread {
        rw: &'static str,
        io_size_bytes: Bytes,
        buffered: bool,
        seconds: f64,
    },
    /// `size-threads` step 2: Little's law gave the thread count.
    ThreadsSized {
        best_latency_us: f64,
        single_thread_iops: Iops,
        target_iops: Iops,
        threads_exact: f64,
        threads: u32,
        /// Little's law asked for more than `--max-threads`; `threads` is the cap.
        capped_at_max_threads: bool,
        seconds: f64,
    },
    /// A vdbench run finished: its vdbench-style summary (and the error it stopped on).
    VdbenchRun {
        summary: String,
        rd: String,
        error: Option<String>,
    },
    /// Lines of a vdbench run printed while it goes (a file system run's format summary and
    /// its interval lines, each when it ends).
    VdbenchLines { text: String },
    /// An `iorate=curve` finished: the latency-versus-IO-rate table with its knee.
    VdbenchCurve { table: String },
    /// The demo's real run starts.
    DemoRun { seconds_per_volume: f64 },
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use iofit_model::units::group_thousands;
        match self {
            Event::BenchStart {
                nocache,
                readcache,
                workers,
                iodepth,
                file_bytes,
                runtime_s,
                scale,
            } => write!(
                f,
                "azure-premium: NoCacheWrites={} CacheReads={} workers={workers} QD={iodepth} test file {} runtime {runtime_s:.1}s (scale {scale})",
                nocache.display(),
                readcache.display(),
                file_bytes,
            ),
            Event::Warmup {
                spec,
                seconds,
                scale,
            } => write!(
                f,
                "warm-up: {spec} on CacheReads for {seconds:.1}s (seed: 2 h x scale {scale})"
            ),
            Event::Scenario {
                name,
                specs,
                targets,
            } => write!(f, "{name}: {} on {}", specs.join(" + "), targets.join(" + ")),
            Event::SingleThread {
                rw,
                io_size_bytes,
                buffered,
                seconds,
            } => write!(
                f,
                "step 1: one thread ({rw} {} {}) for {seconds:.1} s to find the best latency",
                io_size_bytes,
                if *buffered { "buffered" } else { "direct" },
            ),
            Event::ThreadsSized {
                best_latency_us,
                single_thread_iops,
                target_iops,
                threads_exact,
                threads,
                capped_at_max_threads,
                seconds,
            } => write!(
                f,
                "  best latency {best_latency_us:.1} us ({} IOPS with one thread)\nstep 2: threads = latency_s x IOPS = {:.6} x {} = {threads_exact:.2} -> {}{}\nstep 3: {} for {seconds:.1} s",
                group_thousands(single_thread_iops.get().round()),
                best_latency_us / 1e6,
                group_thousands(target_iops.get()),
                if *capped_at_max_threads {
                    threads_exact.ceil()
                } else {
                    f64::from(*threads)
                },
                if *capped_at_max_threads {
                    format!(", capped at --max-threads {threads} (raise it to run them all)")
                } else {
                    String::new()
                },
                threads_text(*threads),
            ),
            Event::VdbenchRun { summary, rd, error } => {
                write!(f, "{summary}")?;
                if let Some(error) = error {
                    write!(f, "\nrd={rd}: stopped on an error: {error}")?;
                }
                Ok(())
            }
            Event::VdbenchCurve { table } => write!(f, "{table}"),
            Event::VdbenchLines { text } => write!(f, "{text}"),
            Event::DemoRun { seconds_per_volume } => write!(
                f,
                "iofit demo: running the planned workload for {seconds_per_volume:.1}s per volume on a temp directory..."
            ),
        }
    }
}

/// Warnings: the procedure goes on, the user should know.
#[derive(Clone, Debug, PartialEq)]
pub enum Warning {
    /// `--skip-warmup`, and no warm-up of this boot is recorded on the cached volume.
    NotWarmedThisBoot { readcache: PathBuf },
    /// A scenario reads the cached volume, whose cache was not warmed.
    CacheNotWarmed { scenario: String },
    /// These jobs asked for libaio, which runs on io_uring with the same queue depth.
    LibaioOnIoUring { jobs: Vec<String> },
    /// A job's note (an option accepted with a difference from fio, said once per run).
    JobNote(String),
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::NotWarmedThisBoot { readcache } => write!(
                f,
                "--skip-warmup, and CacheReads ({}) was not warmed since this machine booted; read results reflect the disk, not a warm host cache",
                readcache.display()
            ),
            Warning::CacheNotWarmed { scenario } => write!(
                f,
                "{scenario} reads CacheReads, whose cache was not warmed"
            ),
            Warning::LibaioOnIoUring { jobs } => write!(
                f,
                "ioengine=libaio runs on io_uring with the same queue depth (jobs: {})",
                jobs.join(", ")
            ),
            Warning::JobNote(note) => write!(f, "note: {note}"),
        }
    }
}

/// "1 thread", "4 threads" (the size-threads steps and their events say it alike).
pub(crate) fn threads_text(threads: u32) -> String {
    match threads {
        1 => "1 thread".to_string(),
        n => format!("{n} threads"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The figures in typed units print as they did as bare numbers: sizes in the compact
    /// form, IOPS grouped by thousands, never a unit's own `Display` twice.
    #[test]
    fn sizing_and_bench_steps_print_their_figures() {
        let single = Event::SingleThread {
            rw: "randread",
            io_size_bytes: Bytes::kib(8),
            buffered: false,
            seconds: 5.0,
        };
        assert_eq!(
            single.to_string(),
            "step 1: one thread (randread 8KiB direct) for 5.0 s to find the best latency"
        );
        let sized = Event::ThreadsSized {
            best_latency_us: 200.0,
            single_thread_iops: Iops(4_999.6),
            target_iops: Iops(20_000.0),
            threads_exact: 4.0,
            threads: 4,
            capped_at_max_threads: false,
            seconds: 5.0,
        };
        assert_eq!(
            sized.to_string(),
            "  best latency 200.0 us (5,000 IOPS with one thread)\nstep 2: threads = latency_s x \
             IOPS = 0.000200 x 20,000 = 4.00 -> 4\nstep 3: 4 threads for 5.0 s"
        );
        let start = Event::BenchStart {
            nocache: "a".into(),
            readcache: "b".into(),
            workers: 3,
            iodepth: 128,
            file_bytes: Bytes::gib(1),
            runtime_s: 30.0,
            scale: 1.0,
        };
        assert_eq!(
            start.to_string(),
            "azure-premium: NoCacheWrites=a CacheReads=b workers=3 QD=128 test file 1GiB runtime \
             30.0s (scale 1)"
        );
    }
}
