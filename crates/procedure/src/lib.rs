//! iofit-procedure: iofit's procedures as library functions, apart from the command line.
//!
//! A procedure is a sequence of runs with decisions between them: the Azure Premium Storage
//! benchmark suite ([`bench`]), the NetApp seed's thread sizing ([`size_threads`]), a vdbench
//! file with its `iorate=curve` and knee ([`vdbench`]), and the demo's loop from a capture to a
//! verdict ([`demo`]). Each takes an options struct, runs its jobs through an
//! [`Executor`](execute::Executor) (the real engines, or the null engine with a fake clock in
//! tests), tells an [`Observer`](observer::Observer) what it is doing (steps, typed warnings,
//! progress) and returns a typed outcome; none of them prints.
//!
//! ```
//! use iofit_procedure::execute::EngineExecutor;
//! use iofit_procedure::observer::Quiet;
//! use iofit_procedure::size_threads::{size_threads, SizeThreadsOptions};
//! use iofit_model::{job::RwMode, units::{Bytes, Iops, Seconds}};
//!
//! let dir = std::env::temp_dir();
//! let options = SizeThreadsOptions {
//!     target_iops: Iops(2_000.0),
//!     target: dir,
//!     rw: RwMode::RandRead,
//!     io_size: Bytes::kib(8),
//!     rwmix_read_pct: 50.0,
//!     file_size: Bytes::mib(1),
//!     duration_s: Seconds(0.05),
//!     buffered: false,
//!     max_threads: 64,
//! };
//! // The null engine with a clock that advances 10 us per reading: no IO, exact numbers.
//! let mut executor = EngineExecutor::null_with_fake_clock(10_000);
//! let result = size_threads(&options, &mut executor, &mut Quiet).unwrap();
//! assert_eq!(result.threads as f64, result.threads_exact.ceil());
//! ```

pub mod bench;
pub mod bench_end;
pub mod catalog_aws_import;
pub mod catalog_aws_prices;
pub mod catalog_fetch;
pub mod catalog_file;
pub mod catalog_gcp_import;
pub mod catalog_gcp_prices;
pub mod catalog_import;
pub mod catalog_list;
mod cloud_inputs;
pub mod clouds_gcp;
pub mod compare;
pub mod demo;
pub mod design_input;
pub mod emulate_lines;
pub mod emulate_request;
pub mod ending;
pub mod execute;
pub mod fio_run;
pub mod fleet_plan;
pub mod fleet_profile;
pub mod hosts;
pub mod hosts_ending;
pub mod inputs;
pub mod measure;
pub mod observer;
pub mod plan;
pub mod plan_clouds;
pub mod plan_cmd;
pub mod predict;
pub mod predict_clouds;
pub mod predict_cmd;
pub mod profile_capture;
pub mod profile_flags;
pub mod profile_live;
pub mod run_display;
pub mod run_flow;
pub mod run_progress;
pub mod run_request;
pub mod size_threads;
pub mod slurm_script;
pub mod so_far;
pub mod vdbench;
pub mod vdbench_cmd;
mod vdbench_execute;
mod vdbench_flat;
mod vdbench_fs;
pub mod vdbench_fs_hosts;
mod vdbench_fs_run;
pub mod vdbench_hosts;
mod vdbench_options;
mod vdbench_outcome;
pub mod vdbench_output;
mod vdbench_save;
pub mod vm_filters;
pub mod workload;

mod error;

pub use error::{shown, ProcedureError};
