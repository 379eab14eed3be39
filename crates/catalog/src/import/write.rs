//! The imported rows as a catalog file (see catalog/README.md for the format).

use super::prices::{Candidate, Rows};
use super::skus::Read;
use super::{Input, Options};
use crate::types::{DiskKind, Pricing};
use std::fmt::Write;

/// TOML text of a string, quoted and escaped.
fn quote(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

/// A number as TOML: at most 6 decimals, no trailing zeros (85, 70.08, 27.694444).
fn number(value: f64) -> String {
    let text = format!("{value:.6}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    text.to_string()
}

fn names(inputs: &[Input]) -> String {
    inputs
        .iter()
        .map(|i| i.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

pub(crate) fn catalog_toml(
    options: &Options,
    region: &str,
    currency: &str,
    skus: &[Input],
    prices: &[Input],
    read: &Read,
    rows: &Rows,
) -> String {
    let mut out = String::new();
    let id = options
        .table_id
        .clone()
        .unwrap_or_else(|| format!("import-{region}-{}", options.date));
    let _ = writeln!(
        out,
        "# Written by `iofit catalog import` on {}. See catalog/README.md for the format.\n",
        options.date
    );
    let _ = writeln!(out, "[table]");
    let _ = writeln!(out, "id = {}", quote(&id));
    let _ = writeln!(out, "edition = \"current\"");
    let _ = writeln!(
        out,
        "title = {}",
        quote(&format!(
            "Imported for {region}: Resource SKUs and Retail Prices"
        ))
    );
    let _ = writeln!(
        out,
        "source = {}",
        quote(&format!(
            "az vm list-skus --output json (Azure Resource SKUs API), read from {}",
            names(skus)
        ))
    );
    let _ = writeln!(out, "date = {}", quote(&options.date));
    let _ = writeln!(
        out,
        "price_basis = {}",
        quote(&format!(
            "{region}, {currency}, pay-as-you-go (Consumption) retail price, Linux, per VM; \
             monthly = hourly x 730 h. The [[prices]] rows hold every way of paying and OS \
             found{}",
            if currency == crate::types::DEFAULT_CURRENCY {
                String::new()
            } else {
                format!("; every price is in {currency}")
            }
        ))
    );
    if currency != crate::types::DEFAULT_CURRENCY {
        let _ = writeln!(out, "currency = {}", quote(currency));
    }
    let _ = writeln!(out, "price_region = {}", quote(region));
    let _ = writeln!(out, "price_pricing = \"payg\"");
    let _ = writeln!(out, "price_os = \"linux\"");
    if !prices.is_empty() {
        let _ = writeln!(
            out,
            "price_source = {}",
            quote(&format!(
                "Azure Retail Prices API pages (prices.azure.com/api/retail/prices), read from {}",
                names(prices)
            ))
        );
        let _ = writeln!(out, "price_date = {}", quote(&options.date));
    }
    let _ = writeln!(out, "notes = {}", quote(&notes(region, read, rows)));
    let payg_linux = |name: &str| {
        rows.prices
            .iter()
            .find(|((n, p, os), _)| {
                n.eq_ignore_ascii_case(name)
                    && *p == Pricing::Payg
                    && *os == Some(crate::types::Os::Linux)
            })
            .map(|(_, c)| c.usd_month)
    };
    for vm in &read.vms {
        write_vm(&mut out, vm, payg_linux(&vm.row.name));
    }
    let disk_payg = |name: &str| {
        rows.prices
            .iter()
            .find(|((n, p, os), _)| n == name && *p == Pricing::Payg && os.is_none())
            .map(|(_, c)| c.usd_month)
    };
    for disk in &read.disks {
        write_disk(&mut out, disk, disk_payg(&disk.row.name));
    }
    for ((name, pricing, os), price) in &rows.prices {
        write_price(&mut out, region, name, *pricing, *os, price);
    }
    for (name, rates) in &rows.provisioned {
        let _ = writeln!(out, "\n[[provisioned_prices]]");
        let _ = writeln!(out, "name = {}", quote(name));
        let _ = writeln!(out, "region = {}", quote(region));
        // The API's meters are per hour; the catalog's rates per month of 730 h.
        let month = |hour: Option<f64>| hour.map(|h| h * 730.0);
        optional(
            &mut out,
            "price_per_gib_month",
            month(rates.usd_per_gib_hour),
        );
        optional(
            &mut out,
            "price_per_iops_month",
            month(rates.usd_per_iops_hour),
        );
        optional(
            &mut out,
            "price_per_mb_s_month",
            month(rates.usd_per_mb_s_hour),
        );
        optional(
            &mut out,
            "retail_price_per_gib_hour",
            rates.usd_per_gib_hour,
        );
        optional(
            &mut out,
            "retail_price_per_iops_hour",
            rates.usd_per_iops_hour,
        );
        optional(
            &mut out,
            "retail_price_per_mb_s_hour",
            rates.usd_per_mb_s_hour,
        );
        let _ = writeln!(out, "source = {}", quote(&rates.file));
    }
    out
}

fn notes(region: &str, read: &Read, rows: &Rows) -> String {
    let counts = &read.counts;
    let restricted: Vec<String> = counts
        .restricted
        .iter()
        .map(|(name, code)| format!("{name} ({code})"))
        .collect();
    let p = &rows.counts;
    format!(
        "Units converted once: UncachedDiskBytesPerSecond and \
         CombinedTempDiskAndCachedReadBytesPerSecond bytes/s / 10^6 = MB/s; MemoryGB is GiB as \
         Azure means it; CachedDiskBytes / 2^30 = GiB; MaxResourceVolumeMB / 1,024 = GiB; disk \
         MaxBandwidthMBps is MB/s already. Burst limits are not in the Resource SKUs API and stay \
         empty. Left out: {} SKUs restricted in {region}{}{}; {} VM records without vCPUs, \
         MemoryGB or MaxDataDiskCount; {} disk SKUs of other kinds (ZRS, Premium SSD v2, Ultra). \
         {} sizes are restricted in some zones only and kept; {} records had no locations and \
         were taken as offered in {region}. {} sizes say UltraSSDAvailable \
         True (not modelled). Prices: Consumption per hour x 730 h; a Reservation's retailPrice \
         is the whole term's price (the API still says '1 Hour'), so monthly = price / 12 or / \
         36; disks at their '<tier> LRS' '1/Month' meter. {} price items read: {} of other \
         regions, {} Spot or Low Priority (never taken as on-demand), {} for sizes not offered \
         here, {} with units not converted, {} not used, {} duplicates with another price (the \
         primary meter region's kept); {} Windows reservation prices derived (see each row's \
         notes).",
        counts.restricted.len(),
        if restricted.is_empty() { "" } else { ": " },
        restricted.join(", "),
        counts.incomplete.len(),
        counts.other_disk_kinds,
        counts.zone_limited.len(),
        counts.without_locations,
        counts.ultra_ssd_available,
        p.items,
        p.other_regions,
        p.spot_or_low_priority,
        p.sizes_not_offered,
        p.unit_not_understood,
        p.not_used,
        p.conflicts,
        p.windows_reservations_derived,
    )
}

fn optional(out: &mut String, key: &str, value: Option<f64>) {
    if let Some(value) = value {
        let _ = writeln!(out, "{key} = {}", number(value));
    }
}

fn write_vm(out: &mut String, vm: &super::skus::Sourced<crate::VmSize>, price: Option<f64>) {
    let row = &vm.row;
    let _ = writeln!(out, "\n# from {} {}", vm.file, vm.path);
    let _ = writeln!(out, "[[vms]]");
    let _ = writeln!(out, "name = {}", quote(&row.name));
    let _ = writeln!(out, "family = {}", quote(&row.family));
    let _ = writeln!(out, "vcpu = {}", row.vcpu);
    let _ = writeln!(out, "memory_gib = {}", number(row.memory_gib.get()));
    let _ = writeln!(out, "max_data_disks = {}", row.max_data_disks);
    let _ = writeln!(out, "premium_storage = {}", row.premium_storage);
    optional(out, "uncached_iops", row.uncached_iops.map(|v| v.0));
    optional(
        out,
        "uncached_throughput_mb_s",
        row.uncached_throughput_mb_s.map(|v| v.0),
    );
    optional(out, "cached_iops", row.cached_iops.map(|v| v.0));
    optional(
        out,
        "cached_throughput_mb_s",
        row.cached_throughput_mb_s.map(|v| v.0),
    );
    optional(
        out,
        "cache_size_gib",
        row.cache_size_gib.map(|gib| gib.get()),
    );
    optional(
        out,
        "temp_storage_gib",
        row.temp_storage_gib.map(|gib| gib.get()),
    );
    optional(out, "price_per_month", price);
}

fn write_disk(out: &mut String, disk: &super::skus::Sourced<crate::DiskSku>, price: Option<f64>) {
    let row = &disk.row;
    let kind = match row.kind {
        DiskKind::PremiumSsd => "premium_ssd",
        DiskKind::StandardSsd => "standard_ssd",
        _ => "standard_hdd",
    };
    let _ = writeln!(out, "\n# from {} {}", disk.file, disk.path);
    let _ = writeln!(out, "[[disks]]");
    let _ = writeln!(out, "name = {}", quote(&row.name));
    let _ = writeln!(out, "kind = \"{kind}\"");
    let _ = writeln!(out, "size_gib = {}", number(row.size_gib.get()));
    let _ = writeln!(out, "iops = {}", number(row.iops.0));
    let _ = writeln!(out, "throughput_mb_s = {}", number(row.throughput_mb_s.0));
    optional(out, "burst_iops", row.burst_iops.map(|v| v.0));
    optional(
        out,
        "burst_throughput_mb_s",
        row.burst_throughput_mb_s.map(|v| v.0),
    );
    optional(out, "price_per_month", price);
}

fn write_price(
    out: &mut String,
    region: &str,
    name: &str,
    pricing: Pricing,
    os: Option<crate::types::Os>,
    price: &Candidate,
) {
    let _ = writeln!(out, "\n[[prices]]");
    let _ = writeln!(out, "name = {}", quote(name));
    let _ = writeln!(out, "region = {}", quote(region));
    let _ = writeln!(out, "pricing = \"{}\"", pricing.name());
    if let Some(os) = os {
        let _ = writeln!(out, "os = \"{}\"", os.name());
    }
    let _ = writeln!(out, "price_per_month = {}", number(price.usd_month));
    let _ = writeln!(out, "retail_price = {}", number(price.retail_price_usd));
    let _ = writeln!(out, "retail_unit = {}", quote(&price.retail_unit));
    let _ = writeln!(out, "source = {}", quote(&price.file));
    if let Some(date) = price.date.as_deref().filter(|d| crate::load::is_date(d)) {
        let _ = writeln!(out, "date = {}", quote(date));
    }
    if let Some(notes) = &price.notes {
        let _ = writeln!(out, "notes = {}", quote(notes));
    }
}
