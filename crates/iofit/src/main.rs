//! The `iofit` command: parse options, call the library crates, print. This binary is the only
//! place in the workspace that prints; every subcommand lives in its own file under `cmd/`.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod cmd;
mod exit;
mod observe;
mod resident;
mod signals;
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
    /// Step 4: run a vdbench parameter file with vdbench's command line and output directory
    /// (`iofit vdbench -f PARMFILE -o DIR`).
    Vdbench(cmd::vdbench_cli::Args),
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
    /// Print an sbatch script that runs a job file on every node of a Slurm allocation.
    SlurmScript(cmd::slurm_script::Args),
    /// Serve a multi-host controller on stdin/stdout (started by iofit over ssh).
    #[command(hide = true)]
    Worker(cmd::remote::WorkerArgs),
}

impl Command {
    /// Whether the command runs IO here (and so may be stopped while the disk is saturated).
    fn runs_io(&self) -> bool {
        matches!(
            self,
            Command::Run(_)
                | Command::Vdbench(_)
                | Command::Bench(_)
                | Command::Emulate(_)
                | Command::Worker(_)
        )
    }
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
    if cli.command.runs_io() {
        // The stop bound's code must not wait for the disk the run saturates (see `resident`).
        let kept = resident::keep_code_resident();
        if let Some(error) = kept.unexpected_refusal() {
            eprintln!(
                "warning: could not lock iofit's code in memory ({error}); it was read in \
                 instead, so a stop under heavy IO may wait for the disk"
            );
        }
    }
    let result = match cli.command {
        Command::Demo(args) => cmd::demo::run(args),
        Command::Plan(args) => cmd::plan::run(args),
        Command::Predict(args) => cmd::predict::run(args),
        Command::Catalog(args) => cmd::catalog::run(args),
        Command::Run(args) => cmd::run::run(*args),
        Command::Vdbench(args) => cmd::vdbench_cli::run(args),
        Command::Bench(args) => cmd::bench::run(args),
        Command::SizeThreads(args) => cmd::size_threads::run(args),
        Command::Emulate(args) => cmd::emulate::run(*args),
        Command::Profile(args) => cmd::profile::run(args),
        Command::Compare(args) => cmd::compare::run(args),
        Command::SlurmScript(args) => cmd::slurm_script::run(args),
        Command::Worker(args) => cmd::remote::worker(args),
    };
    let code = match result {
        Ok(code) => code,
        Err(error) => exit::report(&error),
    };
    // No output of this process is left half-written by its end (see `stop::before_exit`).
    stop::before_exit();
    code
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

#[cfg(test)]
mod help_tests {
    use clap::CommandFactory;

    /// Every flag that takes a value and has a default shows it in --help: clap's
    /// `[default: X]` for a clap default (never hidden), and for a default the code computes
    /// (an `Option` filled in later), the doc says `[default: X]` itself. A help text that
    /// mentions a default in any other form fails, naming the command and the flag.
    fn missing_defaults(command: &clap::Command, path: &str, out: &mut Vec<String>) {
        for arg in command.get_arguments() {
            if !arg.get_action().takes_values() || arg.is_hide_set() {
                continue;
            }
            let Some(long) = arg.get_long() else { continue };
            let help = [arg.get_help(), arg.get_long_help()]
                .into_iter()
                .flatten()
                .map(|h| h.to_string())
                .collect::<Vec<_>>()
                .join(" ");
            let has_clap_default = !arg.get_default_values().is_empty();
            if has_clap_default && arg.is_hide_default_value_set() {
                out.push(format!("{path} --{long}: its default is hidden"));
            }
            if !has_clap_default
                && help.to_ascii_lowercase().contains("default")
                && !help.contains("[default: ")
            {
                out.push(format!(
                    "{path} --{long}: the help mentions a default but does not show it as \
                     [default: X]: {help}"
                ));
            }
        }
        for sub in command.get_subcommands() {
            missing_defaults(sub, &format!("{path} {}", sub.get_name()), out);
        }
    }

    #[test]
    fn every_flag_with_a_default_shows_it() {
        let mut missing = Vec::new();
        missing_defaults(&super::Cli::command(), "iofit", &mut missing);
        assert!(missing.is_empty(), "{}", missing.join("\n"));
    }

    /// The rendered help says it too: `run --help` shows `[default: ...]` for --runtime-less
    /// flags with clap defaults (checked on the text a user reads, not only on the model).
    #[test]
    fn rendered_help_shows_the_defaults() {
        let mut command = super::Cli::command();
        let help = command
            .find_subcommand_mut("plan")
            .expect("plan")
            .render_long_help()
            .to_string();
        for default in ["[default: 8k]", "[default: 5]", "[default: current]"] {
            assert!(help.contains(default), "plan --help lacks {default}");
        }
    }
}
