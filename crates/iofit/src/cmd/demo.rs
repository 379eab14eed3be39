//! `iofit demo`: the method's loop on embedded defaults ([`iofit_procedure::demo`]): profile,
//! plan, predict, a short real run, compare, one HTML report. Exits 0 when every step ran (a
//! failed comparison on this machine's temp directory is information, not an error).

use super::print_json_or_text;
use crate::observe::CliObserver;
use iofit_catalog::EDITION_CURRENT;
use iofit_engine::uring::UringEngine;
use iofit_model::job::EngineKind;
use iofit_procedure::demo::{self, DemoOptions, DemoRequest, DemoRunOptions};
use iofit_procedure::execute::EngineExecutor;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Catalog edition: current (Azure's current pages) or seed-2016 (the seed's dated tables).
    #[arg(long, default_value = EDITION_CURRENT)]
    pub edition: String,
    /// Extra catalog file(s) that add or override rows. Repeatable.
    #[arg(long = "catalog", value_name = "FILE")]
    pub catalog: Vec<PathBuf>,
    /// How many designs the plan shows.
    #[arg(long, default_value_t = 3)]
    pub top: usize,
    /// Print the result as JSON on stdout. Every step's output, nothing else.
    #[arg(long)]
    pub json: bool,
    /// Skip the real run and the comparison (every other step is deterministic).
    #[arg(long)]
    pub no_run: bool,
    /// How long the IO runs. The real run's, per volume, seconds (fractions allowed).
    #[arg(
        long = iofit_jobfile::fio::option_names::RUNTIME,
        alias = "run-seconds",
        default_value_t = 1.5,
        value_name = "SECONDS"
    )]
    pub run_seconds: f64,
    /// IO engine of the real run: io_uring (falls back to psync when io_uring cannot be set
    /// up here) or psync.
    #[arg(long, value_enum, default_value_t = DemoEngine::IoUring)]
    pub engine: DemoEngine,
    /// Also write a self-contained HTML report to FILE, the answer first. [default: <temp
    /// dir>/iofit-demo/report.html].
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Allow replacing files iofit did not create. --report when it exists.
    #[arg(long = "allow-overwrite")]
    pub allow_overwrite: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DemoEngine {
    /// io_uring (also written io_uring, as fio names it).
    #[value(alias = "io_uring")]
    IoUring,
    Psync,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let request = DemoRequest {
        options: DemoOptions {
            edition: args.edition,
            top: args.top,
            run: (!args.no_run).then_some(DemoRunOptions {
                seconds: iofit_model::units::Seconds(args.run_seconds),
                engine: match args.engine {
                    DemoEngine::IoUring => EngineKind::IoUring,
                    DemoEngine::Psync => EngineKind::Psync,
                },
            }),
        },
        catalog_files: args.catalog,
        report: args.report,
        allow_overwrite: args.allow_overwrite,
    };
    let mut executor = EngineExecutor::without_stop(false);
    // The run's start goes to stderr (stdout holds the steps, or only JSON).
    let mut observer = CliObserver::new(!args.json, true);
    let outcome = demo::run_demo_to(&request, &mut executor, &mut observer, &UringEngine::probe)?;
    print_json_or_text(args.json, || &outcome.report, || outcome.text.clone())?;
    Ok(ExitCode::SUCCESS)
}
