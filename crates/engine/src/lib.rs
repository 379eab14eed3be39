//! iofit-engine: runs [`JobSpec`](iofit_model::job::JobSpec)s with real IO and measures them.
//!
//! Engines: `null` (no IO; measures the harness), `psync`/`sync`/`pvsync` (the system calls
//! fio's engines of those names make), `io_uring` (fixed slots sized by iodepth, registered
//! buffers and files; `libaio` jobs run here and the result says so). The runner lays out test
//! files before timing, refuses to write where it could destroy data, runs one thread per
//! clone, and merges HDR histograms per job or reporting group.
//!
//! ```
//! use iofit_engine::{run_jobs, RunOptions, Silent};
//! use iofit_model::job::{EngineKind, JobSpec, RwMode, SizeSpec, Target};
//! use iofit_model::units::Bytes;
//!
//! let mut job = JobSpec::new("harness", Target::Files(vec!["unused".into()])).with_rw(RwMode::RandRead);
//! job.engine = EngineKind::Null; // no file is touched
//! job.size = Some(SizeSpec::Bytes(Bytes::mib(4)));
//! let report = run_jobs(&[job], &RunOptions::default(), &mut Silent).unwrap();
//! let read = &report.result.jobs[0].read;
//! assert_eq!(read.ios, 1024); // 4 MiB in 4 KiB IOs
//! assert_eq!(read.io_bytes.as_u64(), read.ios * 4096);
//! assert_eq!(read.completion_latency.count, read.ios);
//! ```

pub mod buffer;
pub mod clock;
mod clone_plan;
mod clone_run;
mod data;
mod diskstats;
mod distribution;
mod each_loop;
pub mod engine;
mod error;
mod file_service;
mod flow;
mod gate;
pub mod interval_log;
mod iolog;
mod latency_target;
pub mod layout;
mod live;
mod loops;
mod null;
mod psync;
mod random;
mod read_back;
pub mod replay;
mod resources;
mod run_report;
mod runner;
mod sequence;
mod steadystate;
mod threads;
pub mod uring;
pub mod worker;

pub use error::EngineError;
pub use live::LiveResults;
pub use runner::{
    engine_used, run_jobs, ClockChoice, Observer, Progress, RunOptions, RunReport, Silent,
    STOP_GRACE,
};
