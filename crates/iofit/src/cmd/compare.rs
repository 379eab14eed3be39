//! `iofit compare RESULTS.json --requirements req.toml`: benchmark results against requirements
//! ([`iofit_procedure::compare`]). Exit 0 when every requirement is met, 1 when any fails, 2 on
//! bad input.

use iofit_procedure::compare::{compare, CompareRequest};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Markdown,
    Csv,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Results in fio's JSON format: `fio --output-format=json` or `iofit run --output-format json`.
    pub results: PathBuf,
    /// A requirements TOML, as `iofit profile -o` writes it.
    #[arg(long, value_name = "FILE")]
    pub requirements: PathBuf,
    /// A volume, by its label. The volume of the requirements the results are for (needed when
    /// there are several).
    #[arg(long, value_name = "LABEL")]
    pub volume: Option<String>,
    /// Compare only jobs of this group (fio's groupid; needed when stonewall made several).
    #[arg(long, value_name = "N")]
    pub group: Option<u32>,
    /// Compare only jobs with this name (fio's jobname; repeatable).
    #[arg(long = "job-name", alias = "job", value_name = "NAME")]
    pub jobs: Vec<String>,
    /// A volume: [LABEL=]COUNTxSKU[:CACHING], e.g. data=2xP30:none; Premium SSD v2 and Ultra add
    /// what is bought per disk (,size_gib=N,iops=N,mb_s=N). The measured volume's disks, so the
    /// advice can check the stripe's queue depth and the host cache.
    #[arg(long = "disk", alias = "disks", value_name = "SPEC")]
    pub disks: Option<String>,
    /// Host caching of the data disks: none, readonly or readwrite. The measured volume's;
    /// overrides the one in --disk.
    #[arg(long, value_name = "none|readonly|readwrite")]
    pub caching: Option<String>,
    /// The VM size, e.g. Standard_DS14 (any case; the Standard_ prefix may be left out). The one
    /// the benchmark ran on; with --disk, compare predicts the design's limits so the advice can
    /// tell a VM cap from a disk cap.
    #[arg(long, value_name = "SIZE", requires = "disks")]
    pub vm: Option<String>,
    /// Catalog edition: current (Azure's current pages) or seed-2016 (the seed's dated tables).
    /// For --vm and --disk.
    #[arg(long, value_name = "EDITION", default_value = iofit_catalog::EDITION_CURRENT)]
    pub edition: String,
    /// Extra catalog file(s) that add or override rows. Repeatable.
    #[arg(long = "catalog", value_name = "FILE")]
    pub catalog: Vec<PathBuf>,
    /// Highest acceptable 99th percentile latency, ms (requirements carry only the average).
    #[arg(long, value_name = "MS")]
    pub latency_p99_ms: Option<f64>,
    /// Print the result as JSON on stdout. The same as --format json.
    #[arg(long)]
    pub json: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Also write a self-contained HTML report to FILE, the answer first. Results, charts,
    /// comparison.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Allow replacing files iofit did not create. --report when it exists.
    #[arg(long = "allow-overwrite")]
    pub allow_overwrite: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let format = if args.json { Format::Json } else { args.format };
    let outcome = compare(&CompareRequest {
        results: args.results,
        requirements: args.requirements,
        volume: args.volume,
        group: args.group,
        jobs: args.jobs,
        disks: args.disks,
        caching: args.caching,
        vm: args.vm,
        edition: args.edition,
        catalog: args.catalog,
        latency_p99_ms: args.latency_p99_ms.map(iofit_model::units::Millis),
        report: args.report,
        allow_overwrite: args.allow_overwrite,
    })?;
    let output = match format {
        Format::Text => outcome.text(),
        Format::Json => outcome.json()?,
        Format::Markdown => outcome.markdown(),
        Format::Csv => outcome.csv(),
    };
    print!("{output}");
    Ok(super::exit_for(outcome.passed()))
}
