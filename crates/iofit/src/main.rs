//! The `iofit` command: parse options, call the library crates, print. This binary is the only
//! place in the workspace that prints; every subcommand lives in its own file under `cmd/`.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod cmd;
mod exit;
mod observe;
mod stop;

/// Size, predict and benchmark cloud storage for IO-heavy applications.
///
/// The loop: profile what an application does today, plan the cheapest VM and disks that meet
/// it, predict where a design throttles, run a real benchmark, and compare.
#[derive(Parser, Debug)]
#[command(
    name = "iofit",
    version,
    about,
    long_about = None,
    arg_required_else_help = true,
    after_help = "Start with `iofit demo`: the whole loop on an example server in about 10 s. \
                  Then on your own application, in the method's order: 1. profile, 2. plan, \
                  3. predict, 4. run (or bench), 5. compare."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// In the method's order (clap lists them as declared): the demo first, then steps 1 to 5,
/// then the tools around them.
#[derive(Subcommand, Debug)]
enum Command {
    /// Start here: the whole loop on an example server (profile, plan, predict, a short real
    /// run, compare, report).
    Demo(cmd::demo::Args),
    /// Step 1: turn iostat, sar, PerfMon or live /proc/diskstats samples into requirements.
    Profile(cmd::profile::Args),
    /// Step 2: rank designs (VM, disks, caching, striping, queue depth) that meet requirements
    /// by cost.
    Plan(cmd::plan::Args),
    /// Step 3: say what a design delivers for a workload and which limit binds.
    Predict(cmd::predict::Args),
    /// Step 4: run fio job files, vdbench parameter files or Iometer presets with a real IO
    /// engine.
    Run(Box<cmd::run::Args>),
    /// Step 4: run a whole benchmark procedure from the seeds (azure-premium).
    Bench(cmd::bench::Args),
    /// Step 4: find the thread count that reaches a target IOPS by Little's law, measured.
    SizeThreads(cmd::size_threads::Args),
    /// Step 5: compare benchmark results against requirements, metric by metric.
    Compare(cmd::compare::Args),
    /// Rehearse a design here: run a command with its IO throttled to the design's limits.
    Emulate(Box<cmd::emulate::Args>),
    /// List the VM sizes, disks and NetApp service levels iofit knows.
    Catalog(cmd::catalog::Args),
    /// Serve a multi-host controller on stdin/stdout (started by iofit over ssh).
    #[command(hide = true)]
    Worker(cmd::remote::WorkerArgs),
}

fn main() -> ExitCode {
    // First: from here on no signal finds iofit without its handler (see `stop`).
    stop::install();
    restore_default_sigpipe();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            // clap prints help and version to stdout with success, usage errors to stderr.
            let _ = error.print();
            return if error.use_stderr() {
                ExitCode::from(exit::BAD_INPUT)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let result = match cli.command {
        Command::Demo(args) => cmd::demo::run(args),
        Command::Plan(args) => cmd::plan::run(args),
        Command::Predict(args) => cmd::predict::run(args),
        Command::Catalog(args) => cmd::catalog::run(args),
        Command::Run(args) => cmd::run::run(*args),
        Command::Bench(args) => cmd::bench::run(args),
        Command::SizeThreads(args) => cmd::size_threads::run(args),
        Command::Emulate(args) => cmd::emulate::run(*args),
        Command::Profile(args) => cmd::profile::run(args),
        Command::Compare(args) => cmd::compare::run(args),
        Command::Worker(args) => cmd::remote::worker(args),
    };
    match result {
        Ok(code) => code,
        Err(error) => exit::report(&error),
    }
}

/// Rust ignores SIGPIPE, so `iofit plan | head` would turn every later `println!` into a panic.
/// Like other Unix filters, iofit ends quietly when the reader goes away; results a run writes
/// with `--output` are on disk after every job, so nothing measured is lost.
fn restore_default_sigpipe() {
    // SAFETY: called once at start-up, before any thread exists; SIG_DFL is a valid handler.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
