//! The flag groups several commands share: the catalog choice and the report outputs.

use iofit_catalog::EDITION_CURRENT;
use iofit_procedure::plan::CatalogChoice;
use iofit_procedure::plan_cmd::ReportFlags;
use std::path::PathBuf;

/// The catalog flags `plan` and `predict` share.
#[derive(clap::Args, Debug)]
pub struct CatalogArgs {
    /// Catalog edition: current (Azure's current pages) or seed-2016 (the seed's dated tables).
    #[arg(long, default_value = EDITION_CURRENT)]
    pub edition: String,
    /// Extra catalog file(s) that add or override rows. Repeatable.
    #[arg(long = "catalog", value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The Azure region of the prices (eastus, westeurope, japaneast...). Only VM sizes with a
    /// price there (for --pricing and --os) are considered [default: eastus when --pricing or --os
    /// is given; without all three, the rows' own prices as they are]. With `plan --cloud gcp`:
    /// us-central1, europe-west3 or asia-northeast1 [default: us-central1].
    #[arg(long)]
    pub region: Option<String>,
    /// How the VMs are paid: payg, ri-1y or ri-3y (1- or 3-year reservation, per month).
    /// Disks stay at pay-as-you-go [default: payg].
    #[arg(long)]
    pub pricing: Option<String>,
    /// The VMs' operating system: linux (no licence) or windows (licence included)
    /// [default: linux].
    #[arg(long)]
    pub os: Option<String>,
}

impl CatalogArgs {
    /// The flags as the library takes them.
    pub(crate) fn choice(&self) -> CatalogChoice {
        CatalogChoice {
            edition: self.edition.clone(),
            files: self.files.clone(),
            region: self.region.clone(),
            pricing: self.pricing.clone(),
            os: self.os.clone(),
            filters: Default::default(),
        }
    }
}

/// The output flags `plan` and `predict` share.
#[derive(clap::Args, Debug)]
pub struct OutputArgs {
    /// Also write a self-contained HTML report to FILE, the answer first. What the command prints,
    /// with the limits charted and the binding one marked (Markdown with --report-format markdown).
    /// Written whole or not at all.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Format of --report: html or markdown [default: html]. (`--format` is compare's output
    /// format; the old `--format` here still works.)
    #[arg(long = "report-format", alias = "format", value_name = "FORMAT")]
    pub format: Option<String>,
    /// Print the result as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Allow replacing files iofit did not create. --report (and plan's --fleet-csv and
    /// --fleet-html) when it exists.
    #[arg(long = "allow-overwrite")]
    pub allow_overwrite: bool,
}

impl OutputArgs {
    /// `--report FILE` with its `--format`, as given.
    pub(crate) fn report_flags(&self) -> ReportFlags {
        ReportFlags {
            path: self.report.clone(),
            format: self.format.clone(),
            allow_overwrite: self.allow_overwrite,
        }
    }
}
