//! `iofit catalog`: lists what the catalog knows (VM sizes, disks, NetApp Files service levels,
//! and the tables they come from), each listing naming its tables and their sources.

use crate::exit::bad_input;
use iofit_catalog::{
    Catalog, DiskKind, DiskSku, NetAppServiceLevel, ProvisionedDiskType, TableInfo, VmSize,
    EDITIONS, EDITION_CURRENT,
};
use iofit_model::units::group_thousands;
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::ExitCode;

/// What to list.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listing {
    /// VM sizes and their storage limits.
    Vms,
    /// Fixed-size disks (P, E, S tiers) and provisioned disk types (Premium SSD v2, Ultra).
    Disks,
    /// Azure NetApp Files service levels.
    Netapp,
    /// The tables themselves: id, edition, source and date.
    Tables,
    /// Write a catalog file from `az vm list-skus` output and Retail Prices API pages
    /// (--skus, --prices, --region, -o).
    Import,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// What to list.
    #[arg(value_enum)]
    pub listing: Listing,
    /// Catalog edition: `current` (Azure's current pages; the default) or `seed-2016` (the seed
    /// guide's dated figures). `tables` lists every edition unless this is given.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(EDITIONS))]
    pub edition: Option<String>,
    /// Show only rows whose name, family, kind or table contains this text (any case).
    #[arg(long)]
    pub filter: Option<String>,
    /// Show only VM sizes with at least this many vCPUs.
    #[arg(long)]
    pub min_vcpu: Option<u32>,
    /// Extra catalog file(s) whose rows add to or override the built-in ones (repeatable).
    #[arg(long = "catalog", value_name = "FILE")]
    pub catalog_files: Vec<PathBuf>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub import: ImportArgs,
}

/// The flags of `iofit catalog import`.
#[derive(clap::Args, Debug, Default)]
pub struct ImportArgs {
    /// `az vm list-skus --output json` output (VM sizes; repeat for `--resource-type disks`).
    #[arg(long, value_name = "FILE")]
    pub skus: Vec<PathBuf>,
    /// A page of the Azure Retail Prices API as saved (`{"Items": [...]}`); repeatable.
    #[arg(long, value_name = "FILE")]
    pub prices: Vec<PathBuf>,
    /// The region to import (Azure's name: eastus, westeurope, japaneast...).
    #[arg(long)]
    pub region: Option<String>,
    /// The catalog file to write.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The written table's id (default import-REGION-DATE).
    #[arg(long = "table-id")]
    pub table_id: Option<String>,
    /// Replace FILE when it exists.
    #[arg(long = "allow-overwrite")]
    pub allow_overwrite: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let import_flags = !args.import.skus.is_empty()
        || !args.import.prices.is_empty()
        || args.import.region.is_some()
        || args.import.output.is_some();
    if import_flags && args.listing != Listing::Import {
        return Err(bad_input(
            "--skus, --prices, --region and -o belong to `iofit catalog import`",
        ));
    }
    // The built-in files are tested to load, so any error here comes from a --catalog file.
    let catalog = Catalog::embedded_with_files(&args.catalog_files).map_err(bad_input)?;
    let filter = args.filter.as_deref().map(str::to_lowercase);
    let matches = |texts: &[&str]| match &filter {
        None => true,
        Some(wanted) => texts.iter().any(|t| t.to_lowercase().contains(wanted)),
    };
    let edition = args.edition.as_deref().unwrap_or(EDITION_CURRENT);
    if args.min_vcpu.is_some() && args.listing != Listing::Vms {
        return Err(bad_input(
            "--min-vcpu applies only to `iofit catalog vms`; leave it out for other listings",
        ));
    }

    let output = match args.listing {
        Listing::Vms => {
            let rows: Vec<&VmSize> = catalog
                .vms_in(edition)
                .filter(|vm| matches(&[&vm.name, &vm.family, &vm.table]))
                .filter(|vm| vm.vcpu >= args.min_vcpu.unwrap_or(0))
                .collect();
            let tables = used_tables(&catalog, rows.iter().map(|vm| vm.table.as_str()));
            if args.json {
                json(edition, &tables, &rows)?
            } else {
                render_vms(edition, &rows, &tables)
            }
        }
        Listing::Disks => {
            let disks: Vec<&DiskSku> = catalog
                .disks_in(edition)
                .filter(|d| matches(&[&d.name, kind_name(d.kind), &d.table]))
                .collect();
            let provisioned: Vec<&ProvisionedDiskType> = catalog
                .provisioned_in(edition)
                .filter(|d| matches(&[&d.name, kind_name(d.kind), &d.table]))
                .collect();
            let tables = used_tables(
                &catalog,
                disks
                    .iter()
                    .map(|d| d.table.as_str())
                    .chain(provisioned.iter().map(|d| d.table.as_str())),
            );
            if args.json {
                #[derive(Serialize)]
                struct Disks<'a> {
                    disks: &'a [&'a DiskSku],
                    provisioned: &'a [&'a ProvisionedDiskType],
                }
                json(
                    edition,
                    &tables,
                    &Disks {
                        disks: &disks,
                        provisioned: &provisioned,
                    },
                )?
            } else {
                render_disks(edition, &disks, &provisioned, &tables)
            }
        }
        Listing::Netapp => {
            let rows: Vec<&NetAppServiceLevel> = catalog
                .netapp
                .iter()
                .filter(|level| catalog.edition_of(&level.table) == Some(edition))
                .filter(|level| matches(&[&level.name, &level.table]))
                .collect();
            let tables = used_tables(&catalog, rows.iter().map(|l| l.table.as_str()));
            if args.json {
                json(edition, &tables, &rows)?
            } else {
                render_netapp(edition, &rows, &tables)
            }
        }
        Listing::Import => return import(&args.import),
        Listing::Tables => {
            let rows: Vec<&TableInfo> = catalog
                .tables
                .iter()
                .filter(|t| {
                    args.edition.is_none() || args.edition.as_deref() == Some(t.edition.as_str())
                })
                .filter(|t| matches(&[&t.id, &t.title, &t.source]))
                .collect();
            if args.json {
                format!("{}\n", serde_json::to_string_pretty(&rows)?)
            } else {
                render_tables(&rows)
            }
        }
    };
    print!("{output}");
    Ok(ExitCode::SUCCESS)
}

/// The tables the listed rows come from, in catalog order.
fn used_tables<'a>(catalog: &'a Catalog, ids: impl Iterator<Item = &'a str>) -> Vec<&'a TableInfo> {
    let ids: BTreeSet<&str> = ids.collect();
    catalog
        .tables
        .iter()
        .filter(|t| ids.contains(t.id.as_str()))
        .collect()
}

fn json<T: Serialize + ?Sized>(
    edition: &str,
    tables: &[&TableInfo],
    rows: &T,
) -> anyhow::Result<String> {
    #[derive(Serialize)]
    struct Listing<'a, T: ?Sized> {
        edition: &'a str,
        tables: &'a [&'a TableInfo],
        rows: &'a T,
    }
    let listing = Listing {
        edition,
        tables,
        rows,
    };
    Ok(format!("{}\n", serde_json::to_string_pretty(&listing)?))
}

fn kind_name(kind: DiskKind) -> &'static str {
    match kind {
        DiskKind::PremiumSsd => "premium_ssd",
        DiskKind::StandardSsd => "standard_ssd",
        DiskKind::StandardHdd => "standard_hdd",
        DiskKind::PremiumSsdV2 => "premium_ssd_v2",
        DiskKind::UltraDisk => "ultra_disk",
    }
}

/// A number for a table cell: thousands grouped, "-" when not published.
fn num(value: Option<f64>) -> String {
    value.map(group_thousands).unwrap_or_else(|| "-".into())
}

/// A monthly price (a money amount): cents, "-" when not sourced.
fn price(value: Option<f64>) -> String {
    value
        .map(|p| format!("{p:.2}"))
        .unwrap_or_else(|| "-".into())
}

/// A per-unit rate (USD per GiB, IOPS, MB/s or 10,000 operations): rates are fractions of a
/// cent, so cents would hide them (0.04964 is not 0.05). Six significant digits, trailing zeros
/// dropped down to two decimals; "-" when not sourced.
fn rate(value: Option<f64>) -> String {
    let Some(rate) = value else {
        return "-".into();
    };
    if rate == 0.0 || !rate.is_finite() {
        return format!("{rate:.2}");
    }
    let magnitude = rate.abs().log10().floor() as i32;
    let decimals = (5 - magnitude).max(2) as usize;
    let mut text = format!("{rate:.decimals$}");
    while text.ends_with('0') && text.len() - text.find('.').unwrap_or(text.len()) > 3 {
        text.pop();
    }
    text
}

/// Whether a disk has anything to show in the operations columns.
fn has_operations(disk: &DiskSku) -> bool {
    disk.kind.bills_operations()
        || disk.price_usd_per_10k_operations.is_some()
        || disk.operation_unit_kib.is_some()
}

/// The operations columns of a fixed-size disk: its price per 10,000 operations and the size of
/// one billable operation. A value the row has is shown whatever the kind; otherwise kinds
/// Azure does not bill per operation show "n/a" (not billed, as opposed to "-", not sourced),
/// and an empty unit on a billed kind means every IO is one operation whatever its size.
fn operations(disk: &DiskSku) -> [String; 2] {
    let billed = disk.kind.bills_operations();
    let price = match disk.price_usd_per_10k_operations {
        Some(_) => rate(disk.price_usd_per_10k_operations),
        None if billed => "-".into(),
        None => "n/a".into(),
    };
    let unit = match disk.operation_unit_kib {
        Some(kib) => kib.to_string(),
        None if billed => "per IO".into(),
        None => "n/a".into(),
    };
    [price, unit]
}

/// Renders rows as aligned columns: text left-aligned, numbers right-aligned.
struct Grid {
    header: Vec<&'static str>,
    numeric: Vec<bool>,
    rows: Vec<Vec<String>>,
}

impl Grid {
    fn new(columns: &[(&'static str, bool)]) -> Grid {
        Grid {
            header: columns.iter().map(|c| c.0).collect(),
            numeric: columns.iter().map(|c| c.1).collect(),
            rows: Vec::new(),
        }
    }

    fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    fn render(&self, out: &mut String) {
        let widths: Vec<usize> = (0..self.header.len())
            .map(|i| {
                self.rows
                    .iter()
                    .map(|r| r[i].chars().count())
                    .chain([self.header[i].len()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |cells: Vec<&str>| {
            let mut text = String::new();
            for (i, cell) in cells.iter().enumerate() {
                if i > 0 {
                    text.push_str("  ");
                }
                let pad = widths[i] - cell.chars().count();
                if self.numeric[i] {
                    text.push_str(&" ".repeat(pad));
                    text.push_str(cell);
                } else {
                    text.push_str(cell);
                    text.push_str(&" ".repeat(pad));
                }
            }
            text.trim_end().to_string()
        };
        out.push_str(&line(self.header.clone()));
        out.push('\n');
        for row in &self.rows {
            out.push_str(&line(row.iter().map(String::as_str).collect()));
            out.push('\n');
        }
    }
}

fn footer(out: &mut String, tables: &[&TableInfo]) {
    out.push_str("\n- : not published / not sourced\n");
    if !tables.is_empty() {
        out.push_str("Tables used:\n");
        for table in tables {
            out.push_str(&format!(
                "  {} ({}, {}): {}\n    source: {}\n",
                table.id, table.edition, table.date, table.title, table.source
            ));
            price_provenance(out, table);
        }
    }
}

/// Where a table's prices come from and when they were read: prices are often read from a
/// different source, on a different day, than the limits beside them.
fn price_provenance(out: &mut String, table: &TableInfo) {
    if let Some(basis) = &table.price_basis {
        out.push_str(&format!("    prices: {basis}\n"));
    }
    if let Some(source) = &table.price_source {
        out.push_str(&format!("    price source: {source}\n"));
    }
    if let Some(date) = &table.price_date {
        out.push_str(&format!("    price date: {date}\n"));
    }
}

fn render_vms(edition: &str, rows: &[&VmSize], tables: &[&TableInfo]) -> String {
    let mut out = format!("VM sizes, {edition} edition: {} shown\n", rows.len());
    if rows.is_empty() {
        out.push_str("No VM size matches; try another --filter or --edition.\n");
        return out;
    }
    out.push_str(
        "Limits are per VM: IOPS, MB/s (10^6 B/s); cached = host cache and temp storage.\n\n",
    );
    let mut grid = Grid::new(&[
        ("name", false),
        ("family", false),
        ("vCPU", true),
        ("mem GiB", true),
        ("disks", true),
        ("premium", false),
        ("uncached IOPS", true),
        ("uncached MB/s", true),
        ("burst IOPS", true),
        ("burst MB/s", true),
        ("cached IOPS", true),
        ("cached MB/s", true),
        ("cache GiB", true),
        ("temp GiB", true),
        ("USD/month", true),
        ("table", false),
    ]);
    for vm in rows {
        grid.push(vec![
            vm.name.clone(),
            vm.family.clone(),
            vm.vcpu.to_string(),
            group_thousands(vm.memory_gib),
            vm.max_data_disks.to_string(),
            if vm.premium_storage { "yes" } else { "no" }.to_string(),
            num(vm.uncached_iops.map(|v| v.0)),
            num(vm.uncached_throughput_mb_s.map(|v| v.0)),
            num(vm.burst_uncached_iops.map(|v| v.0)),
            num(vm.burst_uncached_throughput_mb_s.map(|v| v.0)),
            num(vm.cached_iops.map(|v| v.0)),
            num(vm.cached_throughput_mb_s.map(|v| v.0)),
            num(vm.cache_size_gib),
            num(vm.temp_storage_gib),
            price(vm.price_usd_month),
            vm.table.clone(),
        ]);
    }
    grid.render(&mut out);
    footer(&mut out, tables);
    out
}

fn render_disks(
    edition: &str,
    disks: &[&DiskSku],
    provisioned: &[&ProvisionedDiskType],
    tables: &[&TableInfo],
) -> String {
    let mut out = format!(
        "Disks, {edition} edition: {} sizes and {} provisioned types shown\n",
        disks.len(),
        provisioned.len()
    );
    if disks.is_empty() && provisioned.is_empty() {
        out.push_str("No disk matches; try another --filter or --edition.\n");
        return out;
    }
    if !disks.is_empty() {
        out.push_str("\nFixed sizes (limits per disk; MB/s = 10^6 B/s):\n");
        // The operations columns only when a listed disk has something to put in them, so a
        // Premium-only listing does not carry two columns of "n/a".
        let with_operations = disks.iter().any(|d| has_operations(d));
        let mut columns = vec![
            ("name", false),
            ("kind", false),
            ("size GiB", true),
            ("IOPS", true),
            ("MB/s", true),
            ("burst IOPS", true),
            ("burst MB/s", true),
            ("USD/month", true),
        ];
        if with_operations {
            columns.extend([("USD/10k ops", true), ("op KiB", true)]);
        }
        columns.push(("table", false));
        let mut grid = Grid::new(&columns);
        for disk in disks {
            let mut row = vec![
                disk.name.clone(),
                kind_name(disk.kind).to_string(),
                group_thousands(disk.size_gib),
                group_thousands(disk.iops.0),
                group_thousands(disk.throughput_mb_s.0),
                num(disk.burst_iops.map(|v| v.0)),
                num(disk.burst_throughput_mb_s.map(|v| v.0)),
                price(disk.price_usd_month),
            ];
            if with_operations {
                row.extend(operations(disk));
            }
            row.push(disk.table.clone());
            grid.push(row);
        }
        grid.render(&mut out);
        if with_operations {
            out.push_str(
                "USD/10k ops: disk operations billed on top of USD/month; op KiB: size of one \
                 billable operation (per IO: each IO counts as one); n/a: not billed.\n",
            );
        }
    }
    if !provisioned.is_empty() {
        out.push_str("\nProvisioned performance (rules per disk):\n");
        let mut grid = Grid::new(&[
            ("name", false),
            ("kind", false),
            ("size GiB", true),
            ("base IOPS", true),
            ("IOPS/GiB", true),
            ("max IOPS", true),
            ("base MB/s", true),
            ("MB/s per IOPS", true),
            ("max MB/s", true),
            ("USD/GiB", true),
            ("USD/IOPS", true),
            ("USD/MB/s", true),
            ("table", false),
        ]);
        for disk in provisioned {
            grid.push(vec![
                disk.name.clone(),
                kind_name(disk.kind).to_string(),
                format!(
                    "{}-{}",
                    group_thousands(disk.size_gib_min),
                    group_thousands(disk.size_gib_max)
                ),
                group_thousands(disk.iops_baseline.0),
                group_thousands(disk.iops_per_gib_max),
                group_thousands(disk.iops_max.0),
                group_thousands(disk.throughput_mb_s_baseline.0),
                format!("{}", disk.throughput_mb_s_per_iops_max),
                group_thousands(disk.throughput_mb_s_max.0),
                rate(disk.price_usd_per_gib_month),
                rate(disk.price_usd_per_iops_month),
                rate(disk.price_usd_per_mb_s_month),
                disk.table.clone(),
            ]);
        }
        grid.render(&mut out);
    }
    footer(&mut out, tables);
    out
}

fn render_netapp(edition: &str, rows: &[&NetAppServiceLevel], tables: &[&TableInfo]) -> String {
    let mut out = format!(
        "Azure NetApp Files service levels, {edition} edition: {} shown\n",
        rows.len()
    );
    if rows.is_empty() {
        out.push_str("No service level matches; try another --filter or --edition.\n");
        return out;
    }
    out.push_str("Volume throughput = rate x quota; MiB/s = 2^20 B/s as NetApp counts.\n\n");
    let mut grid = Grid::new(&[
        ("level", false),
        ("MiB/s per TiB", true),
        ("USD/TiB/month", true),
        ("quota TiB min", true),
        ("quota TiB max", true),
        ("volume max MiB/s", true),
        ("table", false),
    ]);
    for level in rows {
        grid.push(vec![
            level.name.clone(),
            group_thousands(level.throughput_mib_s_per_tib.0),
            price(level.price_usd_per_tib_month),
            num(level.quota_tib_min),
            num(level.quota_tib_max),
            num(level.volume_throughput_mib_s_max.map(|v| v.0)),
            level.table.clone(),
        ]);
    }
    grid.render(&mut out);
    footer(&mut out, tables);
    out
}

fn render_tables(rows: &[&TableInfo]) -> String {
    let mut out = format!("Catalog tables: {} shown\n\n", rows.len());
    let mut grid = Grid::new(&[
        ("id", false),
        ("edition", false),
        ("date", false),
        ("price date", false),
        ("title", false),
    ]);
    for table in rows {
        grid.push(vec![
            table.id.clone(),
            table.edition.clone(),
            table.date.clone(),
            table.price_date.clone().unwrap_or_else(|| "-".into()),
            table.title.clone(),
        ]);
    }
    grid.render(&mut out);
    out.push_str("\n- : no price date recorded\n");
    out.push_str("\nSources:\n");
    for table in rows {
        out.push_str(&format!("  {}: {}\n", table.id, table.source));
        price_provenance(&mut out, table);
        if let Some(notes) = &table.notes {
            out.push_str(&format!("    notes: {notes}\n"));
        }
    }
    out
}

/// `iofit catalog import`: reads the inputs, writes the catalog file whole (after checking it
/// loads), prints what was kept and left out.
fn import(args: &ImportArgs) -> anyhow::Result<ExitCode> {
    use iofit_catalog::import::{import, Input, Options};
    let (Some(region), Some(output)) = (&args.region, &args.output) else {
        return Err(bad_input(
            "give --region REGION and -o FILE, e.g. `iofit catalog import --skus skus.json \
             --prices prices.json --region eastus -o eastus.toml`",
        ));
    };
    if args.skus.is_empty() {
        return Err(bad_input(
            "give --skus FILE: the output of `az vm list-skus --location REGION --output json`",
        ));
    }
    let read = |path: &PathBuf| {
        std::fs::read_to_string(path)
            .map_err(|e| bad_input(format!("{}: cannot read: {e}", path.display())))
    };
    let sku_texts = args
        .skus
        .iter()
        .map(read)
        .collect::<anyhow::Result<Vec<_>>>()?;
    let price_texts = args
        .prices
        .iter()
        .map(read)
        .collect::<anyhow::Result<Vec<_>>>()?;
    fn inputs<'a>(paths: &[PathBuf], texts: &'a [String]) -> Vec<Input<'a>> {
        paths
            .iter()
            .zip(texts)
            .map(|(p, t)| Input::new(p.display().to_string(), t))
            .collect()
    }
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let options = Options {
        region: region.clone(),
        date: iofit_catalog::import::date_of_unix_seconds(seconds),
        table_id: args.table_id.clone(),
    };
    let imported = import(
        &inputs(&args.skus, &sku_texts),
        &inputs(&args.prices, &price_texts),
        &options,
    )
    .map_err(bad_input)?;
    // The file must load as the plan will load it (over the embedded catalog).
    Catalog::embedded()?
        .load_str(&output.display().to_string(), &imported.toml)
        .map_err(bad_input)?;
    write_new_file(output, &imported.toml, args.allow_overwrite)?;
    crate::cmd::plan::emit(&import_summary(output, region, &imported))?;
    Ok(ExitCode::SUCCESS)
}

/// What `iofit catalog import` prints: what was written, left out and skipped.
fn import_summary(
    output: &std::path::Path,
    region: &str,
    imported: &iofit_catalog::import::Imported,
) -> String {
    let (kept, disks, prices) = (imported.vm_rows, imported.disk_rows, imported.price_rows);
    let skus = &imported.skus;
    let counts = &imported.prices;
    format!(
        "wrote {}: {kept} VM sizes, {disks} disk tiers, {prices} prices for {}\n\
         left out: {} restricted in {}{}, {} incomplete VM records, {} other disk kinds; \
         {} sizes restricted in some zones kept\n\
         price items: {} read, {} other regions, {} Spot/Low Priority skipped, {} for sizes \
         not offered, {} not used, {} units not converted, {} Windows reservations derived\n",
        output.display(),
        region.to_ascii_lowercase(),
        skus.restricted.len(),
        region.to_ascii_lowercase(),
        if skus.restricted.is_empty() {
            String::new()
        } else {
            let names: Vec<String> = skus
                .restricted
                .iter()
                .map(|(name, code)| format!("{name}: {code}"))
                .collect();
            format!(" ({})", names.join(", "))
        },
        skus.incomplete.len(),
        skus.other_disk_kinds,
        skus.zone_limited.len(),
        counts.items,
        counts.other_regions,
        counts.spot_or_low_priority,
        counts.sizes_not_offered,
        counts.not_used,
        counts.unit_not_understood,
        counts.windows_reservations_derived,
    )
}

/// Writes `text` to `path` whole or not at all (a temporary file renamed over it). An existing
/// file is replaced only with `--allow-overwrite`: iofit never destroys data it did not make.
fn write_new_file(path: &std::path::Path, text: &str, allow_overwrite: bool) -> anyhow::Result<()> {
    use std::io::Write;
    if path.exists() && !allow_overwrite {
        return Err(bad_input(format!(
            "-o {}: exists; choose another name or add --allow-overwrite",
            path.display()
        )));
    }
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "catalog.toml".into());
    let temp = dir.join(format!(".{name}.iofit-{}.tmp", std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .and_then(|mut file| {
            file.write_all(text.as_bytes())
                .and_then(|_| file.sync_all())
        })
        .and_then(|_| std::fs::rename(&temp, path));
    if let Err(error) = written {
        // Only the temporary file this run created is removed.
        let _ = std::fs::remove_file(&temp);
        return Err(bad_input(format!(
            "-o {}: cannot write it: {error}",
            path.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::rate;

    #[test]
    fn rates_keep_their_significant_digits() {
        assert_eq!(rate(Some(0.04964)), "0.04964");
        assert_eq!(rate(Some(0.3495)), "0.3495");
        assert_eq!(rate(Some(0.0005)), "0.0005");
        assert_eq!(rate(Some(0.002)), "0.002");
        assert_eq!(rate(Some(0.08103)), "0.08103");
        assert_eq!(rate(Some(150.99904)), "150.999");
        assert_eq!(rate(Some(2.4)), "2.40");
        assert_eq!(rate(Some(0.0)), "0.00");
        assert_eq!(rate(None), "-");
    }
}
