//! `iofit size-threads`: the NetApp seed's thread-sizing method
//! ([`iofit_procedure::size_threads`]); exit 0 when the target IOPS was reached, 1 when not.

use crate::observe::CliObserver;
use iofit_procedure::execute::EngineExecutor;
use iofit_procedure::size_threads::{size_threads, SizeThreadsFlags};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The IO rate to reach, IOs per second.
    #[arg(long, value_name = "IOPS")]
    pub target_iops: f64,
    /// The directory (volume) the test file is in. A file iofit-size-threads.0.0 is created there.
    #[arg(long, value_name = "DIR")]
    pub target: PathBuf,
    /// The workload's IO pattern, as fio's rw: read, write, randread, randwrite, rw, randrw.
    #[arg(long, default_value = "randread")]
    pub rw: String,
    /// The workload's IO size, as fio's bs (k = 1024).
    #[arg(long, default_value = "8k")]
    pub bs: String,
    /// The workload's share of reads for rw/randrw, % (fio's rwmixread).
    #[arg(long, default_value_t = 50.0)]
    pub rwmixread: f64,
    /// Size of the test file region per job, as fio's size (k/m/g = powers of 1024).
    #[arg(long, default_value = "64m")]
    pub size: String,
    /// How long the IO runs. Each of the two measurements, seconds (fractions allowed).
    #[arg(
        long = iofit_jobfile::fio::option_names::RUNTIME,
        alias = "duration",
        default_value_t = 5.0
    )]
    pub duration: f64,
    /// Buffered IO instead of direct IO.
    #[arg(long)]
    pub buffered: bool,
    /// Refuse to run more threads than this.
    #[arg(long, default_value_t = 256)]
    pub max_threads: u32,
    /// Print the result as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Allow replacing files iofit did not create. An existing test file.
    #[arg(long)]
    pub allow_overwrite: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let options = SizeThreadsFlags {
        target_iops: iofit_model::units::Iops(args.target_iops),
        target: args.target.clone(),
        rw: args.rw,
        bs: args.bs,
        rwmixread: args.rwmixread,
        size: args.size,
        duration_s: iofit_model::units::Seconds(args.duration),
        buffered: args.buffered,
        max_threads: args.max_threads,
    }
    .options()?;
    let mut executor = EngineExecutor::without_stop(args.allow_overwrite);
    let mut observer = CliObserver::new(!args.json, args.json);
    let result = size_threads(&options, &mut executor, &mut observer)?;
    super::print_json_or_text(
        args.json,
        || &result,
        || iofit_procedure::size_threads::render_text(&result),
    )?;
    Ok(super::exit_for(result.reached))
}
