//! `iofit bench azure-premium`: the Premium Storage seed's benchmark procedure
//! ([`iofit_procedure::bench`]) as one command. The JSON and the report are written after every
//! benchmark, so a failure or Ctrl-C keeps what finished.

use crate::observe::CliObserver;
use iofit_catalog::{EDITIONS, EDITION_SEED};
use iofit_procedure::bench::{self, BenchOptions};
use iofit_procedure::bench_end::{bench_end, size_flag, JSON_FILE_DEPRECATED};
use iofit_procedure::execute::EngineExecutor;
use iofit_procedure::so_far::SoFar;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Suite {
    /// The Azure Premium Storage guide's procedure: cache warm-up, max IOPS, max MB/s.
    AzurePremium,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Which procedure to run.
    #[arg(value_enum)]
    pub suite: Suite,
    /// Directory on the uncached volume (the seed's NoCacheWrites, /mnt/nocache).
    #[arg(long, value_name = "DIR")]
    pub nocache: PathBuf,
    /// Directory on the ReadOnly-cached volume (the seed's CacheReads, /mnt/readcache).
    #[arg(long, value_name = "DIR")]
    pub readcache: PathBuf,
    /// The VM size, e.g. Standard_DS14 (any case; the Standard_ prefix may be left out). The
    /// prediction's; the seed's is Standard_DS14.
    #[arg(long, default_value = "Standard_DS14")]
    pub vm: String,
    /// Disk SKU of every disk, for the prediction. The seed does not name its disk size; P30 is an
    /// assumption the output states.
    #[arg(long = "disk-sku", alias = "disk", default_value = "P30")]
    pub disk: String,
    /// Disks striped into NoCacheWrites (the seed: 10).
    #[arg(long, default_value_t = 10)]
    pub nocache_disks: u32,
    /// Catalog edition: current (Azure's current pages) or seed-2016 (the seed's dated tables). The prediction's.
    #[arg(long, default_value = EDITION_SEED, value_parser = clap::builder::PossibleValuesParser::new(EDITIONS))]
    pub edition: String,
    /// Multiplies the seed's durations (2 h warm-ups, 30 s benchmarks) and its 200 GB test file.
    #[arg(long, default_value_t = 1.0)]
    pub scale: f64,
    /// How long the IO runs. Seconds per benchmark, used as given [default: the seed's 30 s x
    /// --scale, at least 1 s].
    #[arg(long)]
    pub runtime: Option<f64>,
    /// Size of the test file region per job, as fio's size (k/m/g = powers of 1024). Per volume
    /// [default: the seed's 200 GB x --scale, at least 16 MiB].
    #[arg(long)]
    pub size: Option<String>,
    /// Workers (threads) per target volume of a preset; the seed says at least 3. Each worker is
    /// one job.
    #[arg(long, default_value_t = 3)]
    pub workers: u32,
    /// IOs in flight per job (fio's iodepth). Each worker is one job; the seed uses 128.
    #[arg(long, default_value_t = 128)]
    pub iodepth: u32,
    /// Do not warm the cache (allowed when this boot already warmed it; else results are warned).
    #[arg(long)]
    pub skip_warmup: bool,
    /// Print the result as JSON on stdout. Instead of the table. The old form `--json FILE`
    /// still writes FILE, with a deprecation note: use --output FILE.
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = JSON_TO_STDOUT)]
    pub json: Option<PathBuf>,
    /// Write the result to FILE. The results as JSON, after every benchmark (so a failure or Ctrl-C
    /// keeps what finished).
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Allow replacing files iofit did not create. The existing test files.
    #[arg(long)]
    pub allow_overwrite: bool,
    /// No progress on stderr.
    #[arg(long)]
    pub quiet: bool,
    /// Also write a self-contained HTML report to FILE, the answer first. The results table, the
    /// runs over time, the prediction's limits with the binding one marked; written after Ctrl-C
    /// too.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
}

/// What `--json` without a value stands for.
const JSON_TO_STDOUT: &str = "-";

/// `--json` alone prints JSON on stdout; `--json FILE` is the deprecated spelling of
/// `--output FILE`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let Suite::AzurePremium = args.suite;
    let json =
        bench::json_destination(args.json.as_deref(), JSON_TO_STDOUT, args.output.as_deref())?;
    if json.deprecated {
        eprintln!("iofit: {JSON_FILE_DEPRECATED}");
    }
    let so_far = Arc::new(SoFar::default());
    let options = BenchOptions {
        nocache: args.nocache,
        readcache: args.readcache,
        vm: args.vm,
        disk: args.disk,
        edition: args.edition,
        nocache_disks: args.nocache_disks,
        scale: args.scale,
        runtime_s: args.runtime.map(iofit_model::units::Seconds),
        file_size: size_flag(args.size.as_deref())?,
        workers: args.workers,
        iodepth: args.iodepth,
        skip_warmup: args.skip_warmup,
        json: json.file.clone(),
        report: args.report,
        allow_overwrite: args.allow_overwrite,
        so_far: Some(Arc::clone(&so_far)),
        so_far_as_json: json.stdout || json.file.is_some(),
    };
    options.validate()?;
    let stop = Arc::new(AtomicBool::new(false));
    super::install_ctrl_c(Arc::clone(&stop));
    let mut executor = EngineExecutor::new(args.allow_overwrite, stop);
    // Should the stop bound end the process before the suite has put out its results, it
    // prints (or writes to --output) the rows so far and what the running benchmark had
    // measured.
    let live = crate::stop::set_last_word_so_far(Arc::clone(&so_far), json.file.as_deref());
    executor.options.live = Some(live);
    // With --json, stdout holds only the JSON: the step lines are left out.
    let mut observer = CliObserver::new(!json.stdout, args.quiet);
    let outcome = bench::run_suite(&options, &mut executor, &mut observer)?;
    if json.file.is_some() {
        // The results are in the output file, whole: the bound must not replace them.
        crate::stop::clear_last_word();
    }
    let end = bench_end(&outcome, &json, options.report.as_deref())?;
    if let Some(text) = &end.stdout {
        super::emit(text)?;
    }
    Ok(super::end(end.ending))
}
