//! `iofit plan` apart from the command line: the catalog an edition and the price flags
//! choose, requirements from a TOML file or from one volume's numbers, the checks of every
//! option, the plan, and its `--report` written whole. The binary parses flags into a
//! [`PlanRequest`], calls [`plan`] and prints [`PlanOutcome::text`] or
//! [`PlanOutcome::json`]. The helpers here (catalog loading, requirements reading, sizes,
//! caching, growth, report formats) are shared with `predict`, `compare`, `fleet` and the demo.

use crate::error::shown;
use crate::ProcedureError;
use iofit_catalog::{Catalog, PriceChoice, TableInfo, DEFAULT_CURRENCY, EDITIONS, EDITION_SEED};
use iofit_model::units::{GiB, Iops, MBps, Millis};
use iofit_model::{Bytes, HostCaching, Requirements, SizingTarget, VolumeRequirements, VolumeRole};
use iofit_planner::{Plan, PlanNote, PlanOptions};
use iofit_report::html::HtmlReport;
use iofit_report::ReportFormat;
use iofit_safefs::input::caps;
use std::path::{Path, PathBuf};

type Result<T> = std::result::Result<T, ProcedureError>;

fn bad(message: impl Into<String>) -> ProcedureError {
    ProcedureError::BadInput(message.into())
}

/// Which catalog rows and prices a planning command uses (`--edition`, `--catalog`,
/// `--region`, `--pricing`, `--os`).
#[derive(Clone, Debug, Default)]
pub struct CatalogChoice {
    pub edition: String,
    pub files: Vec<PathBuf>,
    pub region: Option<String>,
    pub pricing: Option<String>,
    pub os: Option<String>,
    /// Which VM sizes `plan` may use (`--arch`, `--family`, ...); a requirements file's
    /// `[filters]` fills what the command line leaves out.
    pub filters: crate::vm_filters::VmFilters,
}

impl CatalogChoice {
    /// The embedded catalog plus the extra files; the edition checked. The embedded regional
    /// price lists are read only when a region, pricing or OS asks for them.
    pub fn load(&self) -> Result<Catalog> {
        let with_prices = self.region.is_some() || self.pricing.is_some() || self.os.is_some();
        load_catalog_with(&self.edition, &self.files, with_prices)
    }

    /// The price choice of region/pricing/OS; `None` when none of them is given.
    pub fn price_choice(&self) -> Result<Option<PriceChoice>> {
        if self.region.is_none() && self.pricing.is_none() && self.os.is_none() {
            return Ok(None);
        }
        let region = self.region.as_deref().unwrap_or("eastus").trim();
        if region.is_empty() || !region.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(bad(format!(
                "--region '{region}': write Azure's region name, e.g. eastus, westeurope, japaneast"
            )));
        }
        let flag =
            |name: &str, error: iofit_catalog::UnknownChoice| bad(format!("--{name}: {error}"));
        Ok(Some(PriceChoice {
            region: region.to_ascii_lowercase(),
            pricing: (self.pricing.as_deref().unwrap_or("payg").parse())
                .map_err(|e| flag("pricing", e))?,
            os: (self.os.as_deref().unwrap_or("linux").parse()).map_err(|e| flag("os", e))?,
        }))
    }

    /// The catalog as the plan sees it: with a price choice, only the VM sizes priced so,
    /// each carrying that price (see `Catalog::priced_for`), and notes saying which prices
    /// were used and which were missing; without one, the catalog as loaded.
    pub fn load_priced(&self) -> Result<(Catalog, Vec<String>)> {
        self.load_priced_in()
            .map(|(catalog, notes, _)| (catalog, notes))
    }

    /// [`Self::load_priced`] and the one currency of its prices (ISO 4217). Prices in two
    /// currencies are never added up: a catalog whose region's prices come in two currencies
    /// other than US dollars is refused, and so is a catalog file priced in another currency
    /// without `--region` (the built-in prices are US dollars).
    pub fn load_priced_in(&self) -> Result<(Catalog, Vec<String>, String)> {
        let catalog = self.load()?;
        let Some(choice) = self.price_choice()? else {
            if let Some(table) = catalog
                .tables
                .iter()
                .find(|t| t.edition == self.edition && t.currency() != DEFAULT_CURRENCY)
            {
                return Err(bad(format!(
                    "catalog table {} prices in {}, the built-in tables in USD: a plan adds \
                     one currency; give --region {} so only its {} prices are used",
                    table.id,
                    table.currency(),
                    table.price_region.as_deref().unwrap_or("REGION"),
                    table.currency()
                )));
            }
            return Ok((catalog, Vec::new(), DEFAULT_CURRENCY.to_string()));
        };
        check_region(&catalog, &self.edition, &choice)?;
        check_currency(&catalog, &self.edition, &choice)?;
        let view = catalog.priced_for(&self.edition, &choice);
        if view.catalog.vms.is_empty() {
            return Err(bad(no_vm_price_message(&catalog, &self.edition, &choice)));
        }
        let notes = view.notes();
        Ok((view.catalog, notes, view.currency))
    }
}

/// The conditions Azure sets for the provisioned disk kinds the listed designs use, with
/// their source: a design on them is buildable only so.
fn provisioned_conditions(plan: &iofit_planner::Plan) -> Vec<PlanNote> {
    use iofit_catalog::DiskKind;
    let uses = |kind: DiskKind| {
        plan.designs
            .iter()
            .any(|d| d.volumes.iter().any(|v| v.disk.kind == kind))
    };
    let mut notes = Vec::new();
    if uses(DiskKind::PremiumSsdV2) {
        notes.push(PlanNote::PremiumV2Conditions);
    }
    if uses(DiskKind::UltraDisk) {
        notes.push(PlanNote::UltraConditions);
    }
    notes
}

/// Azure's conditions for Premium SSD v2 and Ultra Disk, with their source (the fleet plan
/// says them too).
pub use iofit_planner::plan_note::{PREMIUM_V2_CONDITIONS, ULTRA_CONDITIONS};

/// Refuses a region whose prices come in two currencies other than US dollars: a plan adds
/// one currency and never converts (see `Catalog::price_currency`).
pub fn check_currency(catalog: &Catalog, edition: &str, choice: &PriceChoice) -> Result<()> {
    catalog
        .price_currency(edition, &choice.region)
        .map(|_| ())
        .map_err(|mixed| {
            bad(format!(
                "--region {}: prices in {mixed}; a plan adds one currency and never converts: \
                 leave out the --catalog files of all but one currency",
                choice.region
            ))
        })
}

/// An error naming the nearest known regions when no price of the edition is for the
/// choice's region (`--region westeu` is a typo, not a region without prices).
pub fn check_region(catalog: &Catalog, edition: &str, choice: &PriceChoice) -> Result<()> {
    let known = catalog.known_regions(edition);
    if known.contains(&choice.region) {
        return Ok(());
    }
    let nearest = catalog.nearest_regions(edition, &choice.region);
    Err(bad(format!(
        "unknown region '{}'; did you mean {}? (the {edition} catalog has prices for {}; for \
         another region give --catalog FILE with its prices, from `iofit catalog import`)",
        choice.region,
        nearest.first().map(String::as_str).unwrap_or("eastus"),
        known.join(", ")
    )))
}

/// Why no VM size can be priced at a choice, naming what is missing and what is there: the
/// prices of the region that do exist (way of paying and OS), and how to add the others.
fn no_vm_price_message(catalog: &Catalog, edition: &str, choice: &PriceChoice) -> String {
    let mut present: Vec<String> = catalog
        .prices
        .iter()
        .filter(|p| p.os.is_some() && p.region.eq_ignore_ascii_case(&choice.region))
        .filter(|p| catalog.edition_of(&p.table) == Some(edition))
        .map(|p| {
            format!(
                "{} {}",
                p.pricing.name(),
                p.os.map(|os| os.name()).unwrap_or_default()
            )
        })
        .collect();
    present.sort();
    present.dedup();
    format!(
        "--region {} --pricing {} --os {}: no {} {} price of any VM size in {} is sourced in \
         the {edition} catalog (it has {} there: Azure's public price dumps hold few \
         reservation prices, and none was found for these); give --catalog FILE with them \
         (`iofit catalog import --prices PAGE.json --region {}`), or plan with one of those",
        choice.region,
        choice.pricing.name(),
        choice.os.name(),
        choice.pricing.words(),
        choice.os.name(),
        choice.region,
        if present.is_empty() {
            "no VM prices".to_string()
        } else {
            present.join(", ")
        },
        choice.region
    )
}

/// The embedded catalog plus extra catalog files; the edition checked.
pub fn load_catalog(edition: &str, extra: &[PathBuf]) -> Result<Catalog> {
    load_catalog_with(edition, extra, true)
}

/// [`load_catalog`], with or without the embedded regional price lists.
fn load_catalog_with(edition: &str, extra: &[PathBuf], regional_prices: bool) -> Result<Catalog> {
    if !EDITIONS.contains(&edition) {
        return Err(bad(format!(
            "--edition '{edition}' is unknown; use {}",
            EDITIONS.join(" or ")
        )));
    }
    let embedded = if regional_prices {
        Catalog::embedded()
    } else {
        Catalog::embedded_without_regional_prices()
    };
    // The embedded tables are part of the program: failing to read them is a defect.
    let mut catalog =
        embedded.map_err(|e| ProcedureError::Internal(format!("the embedded catalog: {e}")))?;
    for path in extra {
        catalog.load_file(path).map_err(|e| bad(e.to_string()))?;
    }
    Ok(catalog)
}

/// The tables of an edition, for headers and JSON.
pub fn tables_of(catalog: &Catalog, edition: &str) -> Vec<TableInfo> {
    catalog.tables_in(edition).cloned().collect()
}

/// Parses a size flag into bytes (at least 1).
pub fn parse_size(flag: &str, text: &str) -> Result<Bytes> {
    let size = Bytes::parse(text).map_err(|e| bad(format!("{flag}: {e}")))?;
    if size.0 == 0 {
        return Err(bad(format!(
            "{flag} {text}: must be at least 1 byte; write e.g. 8k or 64k"
        )));
    }
    Ok(size)
}

/// Parses host caching (`--caching`).
pub fn parse_caching(text: &str) -> Result<HostCaching> {
    text.parse().map_err(|e| bad(format!("--caching: {e}")))
}

/// Reads and validates a requirements TOML file (a regular file under the requirements
/// cap); every error is one line naming file, line and key.
pub fn read_requirements(path: &Path) -> Result<Requirements> {
    Ok(read_requirements_with_filters(path)?.0)
}

/// [`read_requirements`] with the file's `[filters]` table (which VM sizes a plan may use).
pub fn read_requirements_with_filters(
    path: &Path,
) -> Result<(Requirements, crate::vm_filters::VmFilters)> {
    let text = iofit_safefs::input::read_capped_string(
        path,
        caps::REQUIREMENTS_BYTES,
        "requirements TOML",
    )?;
    parse_requirements_with_filters(&path.display().to_string(), &text)
}

/// Parses requirements text with its optional `[filters]` table; `label` names it in errors.
pub fn parse_requirements_with_filters(
    label: &str,
    text: &str,
) -> Result<(Requirements, crate::vm_filters::VmFilters)> {
    let filters_at = |table: &toml::Table| table.contains_key("filters");
    let Ok(mut table) = text.parse::<toml::Table>() else {
        // Not TOML: the plain parse says where and why.
        return Ok((parse_requirements(label, text)?, Default::default()));
    };
    if !filters_at(&table) {
        return Ok((parse_requirements(label, text)?, Default::default()));
    }
    let filters_value = table
        .remove("filters")
        .unwrap_or(toml::Value::Boolean(false));
    let filters: crate::vm_filters::VmFilters = filters_value.try_into().map_err(|e| {
        bad(format!(
            "{label}: [filters]: {}; keys: arch, families, exclude_families, no_burstable, \
             min_vcpu, min_memory_gib, include_retiring",
            e.message().replace('\n', " ").trim_end_matches('.')
        ))
    })?;
    filters.check(&format!("{label}: [filters] "))?;
    let rest = toml::to_string(&table).map_err(|e| bad(format!("{label}: {e}")))?;
    Ok((parse_requirements(label, &rest)?, filters))
}

/// Parses requirements text; `label` names it in errors.
pub fn parse_requirements(label: &str, text: &str) -> Result<Requirements> {
    // A results document given where requirements belong: say what it is, not "invalid key".
    if text.trim_start().starts_with('{') {
        return Err(bad(format!(
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
        bad(format!(
            "{label}: {position}{}; see `iofit plan --example-requirements` for every key",
            message.trim_end_matches('.')
        ))
    })?;
    iofit_planner::validate(&requirements).map_err(|e| bad(format!("{label}: {e}")))?;
    Ok(requirements)
}

fn parse_role(text: &str) -> Result<VolumeRole> {
    Ok(match text.to_ascii_lowercase().as_str() {
        "data" => VolumeRole::Data,
        "log" => VolumeRole::Log,
        "temp" => VolumeRole::Temp,
        "os" => VolumeRole::Os,
        "other" => VolumeRole::Other,
        _ => {
            return Err(bad(format!(
                "--role '{text}': use data, log, temp, os or other"
            )))
        }
    })
}

/// One volume's requirements as `iofit plan`'s flags give them.
#[derive(Clone, Debug)]
pub struct VolumeFlags {
    pub iops: Option<Iops>,
    pub throughput_mb_s: Option<MBps>,
    pub latency_ms: Option<Millis>,
    pub capacity_gib: Option<GiB>,
    pub read_pct: f64,
    pub random_pct: f64,
    /// `--io-size` as written (8k, 64KiB; k = 1024).
    pub io_size: String,
    /// `--role` as written.
    pub role: String,
}

impl VolumeFlags {
    /// Whether any of the numbers a requirements file would replace is given.
    pub fn any_target(&self) -> bool {
        self.iops.is_some()
            || self.throughput_mb_s.is_some()
            || self.latency_ms.is_some()
            || self.capacity_gib.is_some()
    }
}

/// Requirements from the flags (one volume); errors name the flag, not the TOML key.
pub fn requirements_from_flags(flags: &VolumeFlags) -> Result<Requirements> {
    if flags.iops.is_none() && flags.throughput_mb_s.is_none() {
        return Err(bad(
            "give --iops and/or --throughput-mb-s (or --requirements FILE; \
             `iofit plan --example-requirements` prints one)",
        ));
    }
    // Beyond any storage there is, and far inside f64's range, so every sum and product the
    // planner makes of them stays finite.
    for (flag, value, max) in [
        ("--iops", flags.iops.map(Iops::get), 1e9),
        (
            "--throughput-mb-s",
            flags.throughput_mb_s.map(MBps::get),
            1e7,
        ),
        ("--latency-ms", flags.latency_ms.map(|ms| ms.get()), 1e6),
        (
            "--capacity-gib",
            flags.capacity_gib.map(|gib| gib.get()),
            1e9,
        ),
    ] {
        if let Some(value) = value.filter(|v| v.is_nan() || *v > max) {
            return Err(bad(format!(
                "{flag} {}: must be a number from 0 to {max:e}",
                shown(value)
            )));
        }
    }
    let io_size = parse_size("--io-size", &flags.io_size)?;
    let requirements = Requirements {
        source: "command line".into(),
        growth_factor: 1.0,
        host: Default::default(),
        volumes: vec![VolumeRequirements {
            label: "data".into(),
            role: parse_role(&flags.role)?,
            sizing: SizingTarget {
                iops: flags.iops.unwrap_or(Iops(0.0)),
                throughput_mb_s: flags.throughput_mb_s.unwrap_or(MBps(0.0)),
                latency_ms: flags.latency_ms,
                io_size_bytes: io_size,
                read_pct: flags.read_pct,
                random_pct: flags.random_pct,
                capacity_gib: flags.capacity_gib,
                queue_depth: None,
            },
            ..Default::default()
        }],
    };
    iofit_planner::validate(&requirements).map_err(|e| flag_error(&e.to_string()))?;
    Ok(requirements)
}

/// A validation message about a `sizing.*` key, with the key replaced by its flag.
fn flag_error(text: &str) -> ProcedureError {
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
        Some(flag) => bad(format!(
            "{flag}: {}",
            text.rsplit(": ").next().unwrap_or(text)
        )),
        None => bad(text),
    }
}

/// Applies `--growth` (above 0, at most 100).
pub fn apply_growth(requirements: &mut Requirements, growth: Option<f64>) -> Result<()> {
    if let Some(factor) = growth {
        if !(factor > 0.0 && factor <= 100.0) {
            return Err(bad(format!(
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
pub fn seed_total_note(catalog: &Catalog) -> Option<PlanNote> {
    const SEED_PRINTED_TOTAL: f64 = 1544.34;
    let vm = catalog
        .vm("Standard_DS13", EDITION_SEED)
        .ok()?
        .price_usd_month?;
    let disk = catalog.disk("P30", EDITION_SEED).ok()?.price_usd_month?;
    let total = vm + 4.0 * disk;
    ((total - SEED_PRINTED_TOTAL).abs() >= 0.005).then_some(PlanNote::SeedTotal {
        printed_usd: SEED_PRINTED_TOTAL,
        vm_usd: vm,
        disks_usd: 4.0 * disk,
    })
}

/// `--report-format` for `--report`: html (default) or markdown; markdown without a report is bad
/// input. `None` when no report was asked for.
pub fn report_format(format: Option<&str>, report: Option<&Path>) -> Result<Option<ReportFormat>> {
    let format = match format.map(|f| f.to_ascii_lowercase()) {
        None => ReportFormat::Html,
        Some(f) if f == "html" => ReportFormat::Html,
        Some(f) if f == "markdown" || f == "md" => ReportFormat::Markdown,
        Some(f) => {
            return Err(bad(format!(
                "--report-format '{f}': use html or markdown (the format of --report FILE)"
            )))
        }
    };
    match report {
        Some(_) => Ok(Some(format)),
        None if format == ReportFormat::Markdown => Err(bad(
            "--report-format markdown applies to --report FILE; give --report too",
        )),
        None => Ok(None),
    }
}

/// Writes a report whole or not at all (safefs's atomic write).
pub fn write_report(path: &Path, format: ReportFormat, report: &HtmlReport) -> Result<()> {
    let text = format.render(report);
    iofit_safefs::atomic::write_atomic(path, text.as_bytes()).map_err(|source| {
        ProcedureError::WriteResults {
            path: path.to_path_buf(),
            source,
        }
    })
}

/// A `--report FILE` with its format, checked before any work against the command's inputs.
#[derive(Clone, Debug)]
pub struct ReportRequest {
    pub path: PathBuf,
    pub format: ReportFormat,
    /// `--allow-overwrite`: the report may replace a file iofit did not write.
    pub allow_overwrite: bool,
}

/// Refuses, before any work, a report path that cannot be written or names an input.
pub fn check_report(report: Option<&ReportRequest>, inputs: &[PathBuf]) -> Result<()> {
    if let Some(report) = report {
        iofit_safefs::guard::check_output_allowing(
            &report.path,
            inputs,
            "--report",
            report.allow_overwrite,
        )?;
    }
    Ok(())
}

/// Where the requirements of a plan come from.
#[derive(Clone, Debug)]
pub enum RequirementsSource {
    /// A requirements TOML file.
    File(PathBuf),
    /// One volume's flags.
    Flags(VolumeFlags),
}

impl RequirementsSource {
    /// `--requirements FILE` or one volume's flags: a file replaces the flags' targets, so
    /// both together are refused.
    pub fn choose(file: Option<PathBuf>, flags: VolumeFlags) -> Result<Self> {
        match file {
            Some(_) if flags.any_target() => Err(bad(
                "--requirements FILE replaces --iops/--throughput-mb-s/--latency-ms/--capacity-gib; give one or the other",
            )),
            Some(path) => Ok(RequirementsSource::File(path)),
            None => Ok(RequirementsSource::Flags(flags)),
        }
    }
}

/// Everything `iofit plan` (without `--fleet`) asks for.
#[derive(Clone, Debug)]
pub struct PlanRequest {
    pub requirements: RequirementsSource,
    pub growth: Option<f64>,
    pub top: usize,
    pub caching: Option<String>,
    pub cache_hit_pct: f64,
    pub service_latency_ms: Option<Millis>,
    pub min_headroom_pct: f64,
    pub busy_hours_per_month: f64,
    pub catalog: CatalogChoice,
    pub report: Option<ReportRequest>,
    /// With a report: the capture(s) the requirements were profiled from, drawn over time
    /// against design #1's limits and the next cheaper VM's ([`crate::workload`]).
    pub capture: Vec<PathBuf>,
}

/// A plan with what it was made from.
#[derive(Clone, Debug)]
pub struct PlanOutcome {
    pub edition: String,
    pub tables: Vec<TableInfo>,
    pub requirements: Requirements,
    pub options: PlanOptions,
    pub plan: Plan,
}

impl PlanOutcome {
    /// What `iofit plan` prints: the requirements, then the ranked designs.
    pub fn text(&self) -> String {
        let tables: Vec<&TableInfo> = self.tables.iter().collect();
        format!(
            "{}\n{}",
            iofit_report::plan_text::render_requirements_mb(
                &self.requirements,
                self.options.assumptions.mb.bytes_per_mb()
            ),
            iofit_report::plan_text::render(&self.plan, &self.edition, &tables)
        )
    }

    /// What `iofit plan --json` prints.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "edition": self.edition,
            "tables": self.tables,
            "requirements": self.requirements,
            "plan": self.plan,
        })
    }

    /// The `--report` document.
    pub fn report(&self) -> HtmlReport {
        iofit_report::plan_report::report(
            &self.requirements,
            &self.plan,
            &self.edition,
            &self.options,
            &self.tables,
        )
    }

    /// Whether any design meets the requirements (exit 0), or none (exit 1).
    pub fn found(&self) -> bool {
        !self.plan.designs.is_empty()
    }
}

/// The options' ranges, checked before any work.
fn check_options(request: &PlanRequest) -> Result<()> {
    if !(1..=1000).contains(&request.top) {
        return Err(bad(format!("--top {}: show 1..1000 designs", request.top)));
    }
    let headroom = request.min_headroom_pct;
    if !(headroom.is_finite() && (0.0..100.0).contains(&headroom)) {
        return Err(bad(format!(
            "--min-headroom-pct {}: must be within 0..100 (10 keeps every limit 10% above the \
             need; 0 is the strict fit)",
            shown(headroom)
        )));
    }
    let hours = request.busy_hours_per_month;
    if !(hours.is_finite() && hours > 0.0 && hours <= 744.0) {
        return Err(bad(format!(
            "--busy-hours-per-month {}: must be within 0..=744 (730 = sustained all month)",
            shown(hours)
        )));
    }
    Ok(())
}

/// Plans a server: loads the catalog, reads the requirements, checks every option and the
/// report's path before any work, ranks the designs, and writes the report if asked.
pub fn plan(request: &PlanRequest) -> Result<PlanOutcome> {
    let (catalog, price_notes, currency) = request.catalog.load_priced_in()?;
    let edition = request.catalog.edition.clone();
    let (mut requirements, file_filters) = match &request.requirements {
        RequirementsSource::File(path) => read_requirements_with_filters(path)?,
        RequirementsSource::Flags(flags) => (requirements_from_flags(flags)?, Default::default()),
    };
    let filters = request.catalog.filters.over(&file_filters);
    apply_growth(&mut requirements, request.growth)?;
    check_options(request)?;
    let mut inputs: Vec<PathBuf> = match &request.requirements {
        RequirementsSource::File(path) => vec![path.clone()],
        RequirementsSource::Flags(_) => Vec::new(),
    };
    inputs.extend(request.catalog.files.iter().cloned());
    inputs.extend(request.capture.iter().cloned());
    check_report(request.report.as_ref(), &inputs)?;
    if !request.capture.is_empty() && request.report.is_none() {
        return Err(bad(
            "--capture draws into the report: give --report FILE too",
        ));
    }
    let options = PlanOptions {
        top: request.top,
        caching: request.caching.as_deref().map(parse_caching).transpose()?,
        assumptions: crate::inputs::assumptions_for(
            &edition,
            request.service_latency_ms,
            request.cache_hit_pct,
        )?,
        min_headroom_pct: request.min_headroom_pct,
        busy_hours_per_month: request.busy_hours_per_month,
        currency,
        ..PlanOptions::default()
    };
    let mut rows = crate::inputs::rows_for(&catalog, &edition);
    let filter_notes = crate::vm_filters::apply(
        &mut rows.vms,
        &filters,
        requirements.source.starts_with("PerfMon"),
        &crate::vm_filters::today(),
        "--",
    )?;
    if rows.vms.is_empty() {
        return Err(bad(format!(
            "no VM size is left to plan with: {}; loosen the filters",
            filter_notes.join("; ")
        )));
    }
    let mut plan =
        iofit_planner::plan(&requirements, &rows, &options).map_err(|e| bad(e.to_string()))?;
    plan.notes
        .extend(price_notes.into_iter().map(PlanNote::Prices));
    plan.notes
        .extend(filter_notes.into_iter().map(PlanNote::VmFilter));
    plan.notes.extend(provisioned_conditions(&plan));
    if edition == EDITION_SEED {
        plan.notes.extend(seed_total_note(&catalog));
    }
    let outcome = PlanOutcome {
        tables: tables_of(&catalog, &edition),
        edition,
        requirements,
        options,
        plan,
    };
    if let Some(report) = &request.report {
        let mut document = outcome.report();
        if !request.capture.is_empty() {
            let paths: Vec<&Path> = request.capture.iter().map(PathBuf::as_path).collect();
            let capture =
                iofit_profile::parse_files(&paths, &iofit_profile::ParseOptions::default())
                    .map_err(|e| bad(e.to_string()))?;
            document = crate::workload::plan_report_with_capture(
                document,
                &capture,
                &outcome.requirements,
                &outcome.plan,
                &rows,
            )?;
        }
        write_report(&report.path, report.format, &document)?;
    }
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(iops: Option<f64>) -> VolumeFlags {
        VolumeFlags {
            iops: iops.map(Iops),
            throughput_mb_s: None,
            latency_ms: None,
            capacity_gib: None,
            read_pct: 50.0,
            random_pct: 100.0,
            io_size: "8k".into(),
            role: "data".into(),
        }
    }

    #[test]
    fn a_requirements_file_or_the_flags_never_both() {
        let file = PathBuf::from("req.toml");
        assert!(matches!(
            RequirementsSource::choose(Some(file.clone()), flags(None)).unwrap(),
            RequirementsSource::File(path) if path == file
        ));
        assert!(matches!(
            RequirementsSource::choose(None, flags(Some(5000.0))).unwrap(),
            RequirementsSource::Flags(f) if f.iops == Some(Iops(5000.0))
        ));
        let both = RequirementsSource::choose(Some(file), flags(Some(5000.0))).unwrap_err();
        assert!(both.is_bad_input());
        assert!(both
            .to_string()
            .starts_with("--requirements FILE replaces --iops"));
    }
}
