//! `iofit plan`: requirements (from flags or a TOML file) + catalog -> designs ranked by cost.
//! Also holds the catalog/requirements helpers `predict` and `demo` share.

use crate::exit::bad_input;
use anyhow::Context;
use iofit_catalog::{Catalog, TableInfo, EDITIONS, EDITION_CURRENT, EDITION_SEED};
use iofit_model::{Bytes, HostCaching, Requirements, SizingTarget, VolumeRequirements, VolumeRole};
use iofit_planner::{CatalogRows, PlanOptions, EXAMPLE_REQUIREMENTS};
use iofit_predict::Assumptions;
use iofit_procedure::shown;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Exit codes: 0 designs found, 1 no design meets the requirements, 2 bad input."
)]
pub struct Args {
    /// IOPS the volume must sustain.
    #[arg(long, allow_negative_numbers = true, value_parser = plain_number)]
    pub iops: Option<f64>,
    /// Throughput the volume must sustain, MB/s (1 MB = 10^6 bytes).
    #[arg(long = "throughput-mb-s", allow_negative_numbers = true, value_parser = plain_number)]
    pub throughput_mb_s: Option<f64>,
    /// Highest acceptable average latency per IO, ms.
    #[arg(long = "latency-ms", allow_negative_numbers = true, value_parser = plain_number)]
    pub latency_ms: Option<f64>,
    /// Capacity the volume must hold, GiB.
    #[arg(long = "capacity-gib", allow_negative_numbers = true, value_parser = plain_number)]
    pub capacity_gib: Option<f64>,
    /// Share of reads, 0..100.
    #[arg(
        long = "read-pct",
        allow_negative_numbers = true,
        default_value_t = 50.0
    )]
    pub read_pct: f64,
    /// Share of random IO, 0..100.
    #[arg(
        long = "random-pct",
        allow_negative_numbers = true,
        default_value_t = 100.0
    )]
    pub random_pct: f64,
    /// Typical IO size (8k, 64KiB, 1m; k = 1024).
    #[arg(long = "io-size", default_value = "8k")]
    pub io_size: String,
    /// What the volume is for: data, log, temp, os, other (logs get caching None).
    #[arg(long, default_value = "data")]
    pub role: String,
    /// Read requirements (one or more volumes) from a TOML file instead of the flags above.
    #[arg(long, value_name = "FILE")]
    pub requirements: Option<PathBuf>,
    /// Multiply IOPS, MB/s and capacity by this factor for expected growth [default: 1, none].
    #[arg(long, allow_negative_numbers = true)]
    pub growth: Option<f64>,
    /// How many designs to show.
    #[arg(long, default_value_t = 5)]
    pub top: usize,
    /// Force host caching on every volume: none, readonly, readwrite (ReadWrite only this way).
    #[arg(long)]
    pub caching: Option<String>,
    /// Share of reads on cached disks the host cache serves when sizing (default 0: cold cache).
    #[arg(
        long = "cache-hit-pct",
        allow_negative_numbers = true,
        default_value_t = 0.0
    )]
    pub cache_hit_pct: f64,
    /// Service time of one IO on an unthrottled SSD disk, ms (Little's law): replaces the 1 ms
    /// assumed for Premium SSD, Premium SSD v2 and Ultra and the 10 ms bound taken for Standard
    /// SSD (Azure: "single-digit millisecond"). Standard HDD keeps Azure's < 20/10 ms bounds
    /// [default: 1 ms on Premium SSD, v2 and Ultra; 10 ms on Standard SSD].
    #[arg(long = "service-latency-ms", allow_negative_numbers = true)]
    pub service_latency_ms: Option<f64>,
    #[command(flatten)]
    pub catalog: CatalogArgs,
    /// Headroom to keep below every limit the plan sizes against (disk and stripe IOPS and
    /// MB/s, the VM's uncached and cached IOPS and MB/s, data-disk slots), percent of the limit.
    /// Default 10: measured workloads fluctuate around the figures they are sized for, and
    /// Azure limits throttle rather than fail, so a design at 0% headroom is throttled by the
    /// first peak. 0 restores the strict fit. Capacity is sized without headroom.
    #[arg(
        long = "min-headroom-pct",
        allow_negative_numbers = true,
        default_value_t = iofit_planner::DEFAULT_MIN_HEADROOM_PCT
    )]
    pub min_headroom_pct: f64,
    /// Hours a month the volumes run at the sized IOPS, for the per-operation charge Standard
    /// SSD and Standard HDD bill on top of their monthly price. Default 730 (Azure's month,
    /// i.e. sustained load: an upper bound for a workload busy only part of the day).
    #[arg(
        long = "busy-hours-per-month",
        allow_negative_numbers = true,
        default_value_t = iofit_planner::HOURS_PER_MONTH
    )]
    pub busy_hours_per_month: f64,
    #[command(flatten)]
    pub output: OutputArgs,
    /// With --report: the capture(s) the requirements were profiled from (iostat, sar, sadf,
    /// PerfMon, Azure Monitor; repeatable). The report then draws each volume's IOPS, MB/s,
    /// latency and queue depth over the capture against design #1's limits and the next
    /// cheaper VM's, and counts the intervals that would have throttled. The requirements
    /// must name their devices (a file from `iofit profile CAPTURE -o FILE`).
    #[arg(long, value_name = "FILE", requires = "report")]
    pub capture: Vec<PathBuf>,
    /// Print a documented requirements file (that --requirements reads back) and exit.
    #[arg(long = "example-requirements")]
    pub example_requirements: bool,
    /// Plan a fleet: every *.toml in DIR (from `iofit profile --fleet-out DIR`) is one server;
    /// prints one table (server, volumes, VM, disks, monthly cost, binding limit, headroom).
    #[arg(long, value_name = "DIR", conflicts_with = "requirements")]
    pub fleet: Option<PathBuf>,
    /// With --fleet: also write the table as CSV to FILE.
    #[arg(long = "fleet-csv", value_name = "FILE", requires = "fleet")]
    pub fleet_csv: Option<PathBuf>,
    /// With --fleet: also write the table as a self-contained HTML page to FILE.
    #[arg(long = "fleet-html", value_name = "FILE", requires = "fleet")]
    pub fleet_html: Option<PathBuf>,
}

/// The catalog flags `plan` and `predict` share.
#[derive(clap::Args, Debug)]
pub struct CatalogArgs {
    /// Catalog edition: current (default) or seed-2016 (the seed's dated tables).
    #[arg(long, default_value = EDITION_CURRENT)]
    pub edition: String,
    /// Extra catalog file(s) that add or override rows.
    #[arg(long = "catalog", value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Price in this Azure region (eastus, westeurope, japaneast...): only VM sizes with a
    /// price there (for --pricing and --os) are considered [default: eastus when --pricing or
    /// --os is given; without all three, the rows' own prices as they are].
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
    /// The embedded catalog plus the --catalog files; the edition checked. The embedded
    /// regional price lists are read only when --region/--pricing/--os ask for them.
    pub(crate) fn load(&self) -> anyhow::Result<Catalog> {
        let with_prices = self.region.is_some() || self.pricing.is_some() || self.os.is_some();
        load_catalog_with(&self.edition, &self.files, with_prices)
    }

    /// The price choice of --region/--pricing/--os; `None` when none of them is given.
    pub(crate) fn price_choice(&self) -> anyhow::Result<Option<iofit_catalog::PriceChoice>> {
        if self.region.is_none() && self.pricing.is_none() && self.os.is_none() {
            return Ok(None);
        }
        let region = self.region.as_deref().unwrap_or("eastus").trim();
        if region.is_empty() || !region.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(bad_input(format!(
                "--region '{region}': write Azure's region name, e.g. eastus, westeurope, japaneast"
            )));
        }
        let flag = |name: &str, error: iofit_catalog::UnknownChoice| {
            bad_input(format!("--{name}: {error}"))
        };
        Ok(Some(iofit_catalog::PriceChoice {
            region: region.to_ascii_lowercase(),
            pricing: self
                .pricing
                .as_deref()
                .unwrap_or("payg")
                .parse()
                .map_err(|e| flag("pricing", e))?,
            os: self
                .os
                .as_deref()
                .unwrap_or("linux")
                .parse()
                .map_err(|e| flag("os", e))?,
        }))
    }

    /// The catalog as the plan sees it: with --region/--pricing/--os, only the VM sizes priced
    /// so, each carrying that price (see `Catalog::priced_for`), and notes saying which prices
    /// were used and which were missing; without them, the catalog as loaded.
    pub(crate) fn load_priced(&self) -> anyhow::Result<(Catalog, Vec<String>)> {
        let catalog = self.load()?;
        match self.price_choice()? {
            None => Ok((catalog, Vec::new())),
            Some(choice) => {
                let view = catalog.priced_for(&self.edition, &choice);
                if view.catalog.vms.is_empty() {
                    return Err(bad_input(format!(
                        "--region {} --pricing {} --os {}: no VM size in the {} catalog has such \
                         a price ({} have {} prices of another kind); import them with `iofit \
                         catalog import` and give --catalog FILE, or choose another way of paying",
                        choice.region,
                        choice.pricing.name(),
                        choice.os.name(),
                        self.edition,
                        view.vms_without_this_price.len(),
                        choice.region
                    )));
                }
                let notes = view.notes();
                Ok((view.catalog, notes))
            }
        }
    }
}

/// The output flags `plan` and `predict` share.
#[derive(clap::Args, Debug)]
pub struct OutputArgs {
    /// Also write one self-contained report to FILE: what the command prints, with the limits
    /// charted and the binding one marked. Written whole or not at all.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Format of --report: html or markdown [default: html].
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
    /// Print only JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

impl OutputArgs {
    /// The format of `--report FILE`; `None` when no report was asked for.
    pub(crate) fn report_format(&self) -> anyhow::Result<Option<ReportFormat>> {
        report_format(self.format.as_deref(), self.report.as_deref())
    }
}

/// The embedded catalog plus `--catalog` files; the edition checked.
pub(crate) fn load_catalog(edition: &str, extra: &[PathBuf]) -> anyhow::Result<Catalog> {
    load_catalog_with(edition, extra, true)
}

/// [`load_catalog`], with or without the embedded regional price lists.
fn load_catalog_with(
    edition: &str,
    extra: &[PathBuf],
    regional_prices: bool,
) -> anyhow::Result<Catalog> {
    if !EDITIONS.contains(&edition) {
        return Err(bad_input(format!(
            "--edition '{edition}' is unknown; use {}",
            EDITIONS.join(" or ")
        )));
    }
    let embedded = if regional_prices {
        Catalog::embedded()
    } else {
        Catalog::embedded_without_regional_prices()
    };
    let mut catalog = embedded.context("loading the embedded catalog")?;
    for path in extra {
        catalog.load_file(path).map_err(bad_input)?;
    }
    Ok(catalog)
}

/// The rows of one edition ([`iofit_procedure::inputs::rows_for`]).
pub(crate) fn rows_for(catalog: &Catalog, edition: &str) -> CatalogRows {
    iofit_procedure::inputs::rows_for(catalog, edition)
}

/// The tables of an edition, for headers and `--json`.
pub(crate) fn tables_of<'a>(catalog: &'a Catalog, edition: &'a str) -> Vec<&'a TableInfo> {
    catalog.tables_in(edition).collect()
}

/// Prediction assumptions for an edition ([`iofit_procedure::inputs::assumptions_for`]).
pub(crate) fn assumptions_for(
    edition: &str,
    service_latency_ms: Option<f64>,
    cache_hit_pct: f64,
) -> anyhow::Result<Assumptions> {
    Ok(iofit_procedure::inputs::assumptions_for(
        edition,
        service_latency_ms,
        cache_hit_pct,
    )?)
}

/// Parses a size flag into bytes (at least 1).
pub(crate) fn parse_size(flag: &str, text: &str) -> anyhow::Result<Bytes> {
    let size = Bytes::parse(text).map_err(|e| bad_input(format!("{flag}: {e}")))?;
    if size.0 == 0 {
        return Err(bad_input(format!(
            "{flag} {text}: must be at least 1 byte; write e.g. 8k or 64k"
        )));
    }
    Ok(size)
}

/// Parses host caching.
pub(crate) fn parse_caching(text: &str) -> anyhow::Result<HostCaching> {
    text.parse()
        .map_err(|e| bad_input(format!("--caching: {e}")))
}

/// Reads and validates a requirements TOML file; every error is one line naming file, line
/// and key.
pub(crate) fn read_requirements(path: &Path) -> anyhow::Result<Requirements> {
    let label = path.display();
    let text = super::files::read_input(
        path,
        super::files::caps::REQUIREMENTS_BYTES,
        "requirements TOML",
    )?;
    parse_requirements(&label.to_string(), &text)
}

/// A number flag (`--iops 5000`): clap's "invalid float literal" does not say what to write.
fn plain_number(text: &str) -> Result<f64, String> {
    text.trim().parse::<f64>().map_err(|_| {
        format!("write a plain number such as 5000 (no unit or suffix like k: '{text}' is not one)")
    })
}

/// Parses requirements text; `label` names it in errors.
pub(crate) fn parse_requirements(label: &str, text: &str) -> anyhow::Result<Requirements> {
    // A results document given where requirements belong: say what it is, not "invalid key".
    if text.trim_start().starts_with('{') {
        return Err(bad_input(format!(
            "{label}: this is a JSON document (a results file of iofit run or fio?), not \
             requirements; requirements are TOML from `iofit profile CAPTURE -o req.toml` or \
             `iofit plan --example-requirements`, and results are compared with them by \
             `iofit compare {label} --requirements req.toml`"
        )));
    }
    let requirements: Requirements = toml::from_str(text).map_err(|e| {
        let position = e
            .span()
            .map(|span| {
                let before = &text[..span.start.min(text.len())];
                let line = before.matches('\n').count() + 1;
                let column = before.len() - before.rfind('\n').map(|i| i + 1).unwrap_or(0) + 1;
                format!("line {line}, column {column}: ")
            })
            .unwrap_or_default();
        let message = e.message().replace('\n', " ");
        bad_input(format!(
            "{label}: {position}{}; see `iofit plan --example-requirements` for every key",
            message.trim_end_matches('.')
        ))
    })?;
    iofit_planner::validate(&requirements).map_err(|e| bad_input(format!("{label}: {e}")))?;
    Ok(requirements)
}

fn parse_role(text: &str) -> anyhow::Result<VolumeRole> {
    Ok(match text.to_ascii_lowercase().as_str() {
        "data" => VolumeRole::Data,
        "log" => VolumeRole::Log,
        "temp" => VolumeRole::Temp,
        "os" => VolumeRole::Os,
        "other" => VolumeRole::Other,
        _ => {
            return Err(bad_input(format!(
                "--role '{text}': use data, log, temp, os or other"
            )))
        }
    })
}

/// Requirements from the flags (one volume).
fn requirements_from_flags(args: &Args) -> anyhow::Result<Requirements> {
    if args.iops.is_none() && args.throughput_mb_s.is_none() {
        return Err(bad_input(
            "give --iops and/or --throughput-mb-s (or --requirements FILE; \
             `iofit plan --example-requirements` prints one)",
        ));
    }
    // Beyond any storage there is, and far inside f64's range, so every sum and product the
    // planner makes of them stays finite.
    for (flag, value, max) in [
        ("--iops", args.iops, 1e9),
        ("--throughput-mb-s", args.throughput_mb_s, 1e7),
        ("--latency-ms", args.latency_ms, 1e6),
        ("--capacity-gib", args.capacity_gib, 1e9),
    ] {
        if let Some(value) = value.filter(|v| v.is_nan() || *v > max) {
            return Err(bad_input(format!(
                "{flag} {}: must be a number from 0 to {max:e}",
                shown(value)
            )));
        }
    }
    let io_size = parse_size("--io-size", &args.io_size)?;
    let requirements = Requirements {
        source: "command line".into(),
        growth_factor: 1.0,
        host: Default::default(),
        volumes: vec![VolumeRequirements {
            label: "data".into(),
            role: parse_role(&args.role)?,
            sizing: SizingTarget {
                iops: args.iops.unwrap_or(0.0),
                throughput_mb_s: args.throughput_mb_s.unwrap_or(0.0),
                latency_ms: args.latency_ms,
                io_size_bytes: io_size.0,
                read_pct: args.read_pct,
                random_pct: args.random_pct,
                capacity_gib: args.capacity_gib,
                queue_depth: None,
            },
            ..Default::default()
        }],
    };
    // Name the flag, not the TOML key, when a flag is out of range.
    iofit_planner::validate(&requirements).map_err(|e| {
        let text = e.to_string();
        let flag = [
            ("sizing.iops", "--iops"),
            ("sizing.throughput_mb_s", "--throughput-mb-s"),
            ("sizing.latency_ms", "--latency-ms"),
            ("sizing.capacity_gib", "--capacity-gib"),
            ("sizing.read_pct", "--read-pct"),
            ("sizing.random_pct", "--random-pct"),
        ]
        .iter()
        .find(|(key, _)| text.contains(key))
        .map(|(_, flag)| *flag);
        match flag {
            Some(flag) => bad_input(format!(
                "{flag}: {}",
                text.rsplit(": ").next().unwrap_or(&text)
            )),
            None => bad_input(text),
        }
    })?;
    Ok(requirements)
}

/// Applies `--growth`.
pub(crate) fn apply_growth(
    requirements: &mut Requirements,
    growth: Option<f64>,
) -> anyhow::Result<()> {
    if let Some(factor) = growth {
        if !(factor > 0.0 && factor <= 100.0) {
            return Err(bad_input(format!(
                "--growth {}: must be a number above 0 and at most 100 (1.3 = 30% growth)",
                shown(factor)
            )));
        }
        requirements.apply_growth(factor);
    }
    Ok(())
}

/// The seed prints 1,544.34 $ as the total of its premium design; iofit computes totals from
/// the parts and says where that differs.
pub(crate) fn seed_total_note(catalog: &Catalog) -> Option<String> {
    const SEED_PRINTED_TOTAL: f64 = 1544.34;
    let vm = catalog
        .vm("Standard_DS13", EDITION_SEED)
        .ok()?
        .price_usd_month?;
    let disk = catalog.disk("P30", EDITION_SEED).ok()?.price_usd_month?;
    let total = vm + 4.0 * disk;
    ((total - SEED_PRINTED_TOTAL).abs() >= 0.005).then(|| {
        format!(
            "totals are computed from the parts: the seed prints {SEED_PRINTED_TOTAL:.2} $ for \
             Standard_DS13 + 4 x P30, but its parts add up to {vm:.2} + {:.2} = {total:.2} $",
            4.0 * disk
        )
    })
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.example_requirements {
        emit(EXAMPLE_REQUIREMENTS)?;
        return Ok(ExitCode::SUCCESS);
    }
    let (catalog, price_notes) = args.catalog.load_priced()?;
    let edition = args.catalog.edition.as_str();
    if let Some(dir) = &args.fleet {
        return crate::cmd::fleet::plan(crate::cmd::fleet::PlanFleet {
            dir,
            csv: args.fleet_csv.as_deref(),
            html: args.fleet_html.as_deref(),
            json: args.output.json,
            edition,
            catalog: &catalog,
            caching: args.caching.as_deref(),
            cache_hit_pct: args.cache_hit_pct,
            service_latency_ms: args.service_latency_ms,
            min_headroom_pct: args.min_headroom_pct,
            busy_hours_per_month: args.busy_hours_per_month,
        });
    }
    let mut requirements = match &args.requirements {
        Some(path) => {
            let flags_given = args.iops.is_some()
                || args.throughput_mb_s.is_some()
                || args.latency_ms.is_some()
                || args.capacity_gib.is_some();
            if flags_given {
                return Err(bad_input(
                    "--requirements FILE replaces --iops/--throughput-mb-s/--latency-ms/--capacity-gib; give one or the other",
                ));
            }
            read_requirements(path)?
        }
        None => requirements_from_flags(&args)?,
    };
    apply_growth(&mut requirements, args.growth)?;
    if !(1..=1000).contains(&args.top) {
        return Err(bad_input(format!(
            "--top {}: show 1..1000 designs",
            args.top
        )));
    }
    if !(args.min_headroom_pct.is_finite() && (0.0..100.0).contains(&args.min_headroom_pct)) {
        return Err(bad_input(format!(
            "--min-headroom-pct {}: must be within 0..100 (10 keeps every limit 10% above the \
             need; 0 is the strict fit)",
            shown(args.min_headroom_pct)
        )));
    }
    if !(args.busy_hours_per_month.is_finite()
        && args.busy_hours_per_month > 0.0
        && args.busy_hours_per_month <= 744.0)
    {
        return Err(bad_input(format!(
            "--busy-hours-per-month {}: must be within 0..=744 (730 = sustained all month)",
            shown(args.busy_hours_per_month)
        )));
    }
    let report_format = args.output.report_format()?;
    if let Some(path) = &args.output.report {
        let mut inputs: Vec<PathBuf> = args.requirements.iter().cloned().collect();
        inputs.extend(args.catalog.files.iter().cloned());
        inputs.extend(args.capture.iter().cloned());
        super::files::check_output(path, &inputs, "--report")?;
    }
    let options = PlanOptions {
        top: args.top,
        caching: args.caching.as_deref().map(parse_caching).transpose()?,
        assumptions: assumptions_for(edition, args.service_latency_ms, args.cache_hit_pct)?,
        min_headroom_pct: args.min_headroom_pct,
        busy_hours_per_month: args.busy_hours_per_month,
        ..PlanOptions::default()
    };
    let rows = rows_for(&catalog, edition);
    let mut plan = iofit_planner::plan(&requirements, &rows, &options).map_err(bad_input)?;
    plan.notes.extend(price_notes);
    if edition == EDITION_SEED {
        if let Some(note) = seed_total_note(&catalog) {
            plan.notes.push(note);
        }
    }
    let tables = tables_of(&catalog, edition);
    if let (Some(path), Some(format)) = (&args.output.report, report_format) {
        let mut report = iofit_report::plan_report::report(&requirements, &plan, edition, &options);
        if !args.capture.is_empty() {
            let paths: Vec<&Path> = args.capture.iter().map(PathBuf::as_path).collect();
            let capture =
                iofit_profile::parse_files(&paths, &iofit_profile::ParseOptions::default())
                    .map_err(bad_input)?;
            report = iofit_procedure::workload::plan_report_with_capture(
                report,
                &capture,
                &requirements,
                &plan,
                &rows,
            )?;
        }
        write_report(path, format, &report)?;
    }
    if args.output.json {
        let value = serde_json::json!({
            "edition": edition,
            "tables": tables,
            "requirements": requirements,
            "plan": plan,
        });
        emit(&format!("{}\n", serde_json::to_string_pretty(&value)?))?;
    } else {
        emit(&format!(
            "{}\n{}",
            iofit_report::plan_text::render_requirements_mb(
                &requirements,
                options.assumptions.mb.bytes_per_mb()
            ),
            iofit_report::plan_text::render(&plan, edition, &tables)
        ))?;
    }
    Ok(if plan.designs.is_empty() {
        ExitCode::from(crate::exit::FAILED)
    } else {
        ExitCode::SUCCESS
    })
}

/// Writes a command's output to stdout. A closed pipe (`iofit plan | head`) ends the output
/// quietly instead of panicking the way `print!` does.
pub(crate) fn emit(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush())
    {
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("writing to stdout"),
    }
}

/// What `--report FILE` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReportFormat {
    Html,
    Markdown,
}

/// `--format` for `--report`: html (default) or markdown; `--format` alone is bad input.
pub(crate) fn report_format(
    format: Option<&str>,
    report: Option<&Path>,
) -> anyhow::Result<Option<ReportFormat>> {
    let format = match format.map(|f| f.to_ascii_lowercase()) {
        None => ReportFormat::Html,
        Some(f) if f == "html" => ReportFormat::Html,
        Some(f) if f == "markdown" || f == "md" => ReportFormat::Markdown,
        Some(f) => {
            return Err(bad_input(format!(
                "--format '{f}': use html or markdown (the format of --report FILE)"
            )))
        }
    };
    match report {
        Some(_) => Ok(Some(format)),
        None if format == ReportFormat::Markdown => Err(bad_input(
            "--format markdown applies to --report FILE; give --report too",
        )),
        None => Ok(None),
    }
}

/// Writes a report whole or not at all: a random temporary name next to `path` (created with
/// O_EXCL|O_NOFOLLOW), synced, then renamed over it.
pub(crate) fn write_report(
    path: &Path,
    format: ReportFormat,
    report: &iofit_report::html::HtmlReport,
) -> anyhow::Result<()> {
    let text = match format {
        ReportFormat::Html => report.render(),
        ReportFormat::Markdown => report.render_markdown(),
    };
    super::files::write_output(path, text.as_bytes())
}
