//! Text rendering of an `iofit plan` result: the requirements, the designs ranked by monthly
//! cost (VM and disks apart), each volume's choices with reasons, headroom per limit, what
//! ruled out the cheaper VMs, and the NetApp Files option.

use crate::predict_text::num;
use iofit_model::catalog::TableInfo;
use iofit_model::Requirements;
use iofit_planner::{Plan, PlannedDesign};
use iofit_predict::LimitStatus;
use std::fmt::Write;

/// `$1,548.00`; "price not sourced" for `None`.
pub fn money(value: Option<f64>) -> String {
    money_in(value, "USD")
}

/// An amount in `currency` (ISO 4217): `$1,548.00` in US dollars, `EUR 1,548.00` in any
/// other (the code names it: prices are never converted); "price not sourced" for `None`.
pub fn money_in(value: Option<f64>, currency: &str) -> String {
    match value {
        None => "price not sourced".into(),
        Some(v) => {
            let cents = (v * 100.0).round() as i64;
            let whole = iofit_model::units::group_thousands((cents / 100) as f64);
            let symbol = if currency == "USD" {
                "$".to_string()
            } else {
                format!("{currency} ")
            };
            format!("{symbol}{whole}.{:02}", (cents % 100).abs())
        }
    }
}

/// The requirements as the planner read them (after growth). A derived MB/s is shown in MB/s
/// (10^6 B, Azure's current tables) and MiB/s (2^20 B, what the seed edition calls MB), since
/// the caller does not say which catalog edition the plan uses.
pub fn render_requirements(requirements: &Requirements) -> String {
    render_requirements_inner(requirements, None)
}

/// [`render_requirements`] for a plan whose tables count `bytes_per_mb` bytes in a MB.
pub fn render_requirements_mb(requirements: &Requirements, bytes_per_mb: f64) -> String {
    render_requirements_inner(requirements, Some(bytes_per_mb))
}

/// MB/s of a volume as the plan sizes it: the given MB/s, or IOPS x IO size when that is more
/// (the plan's operating point meets both). `(value, derived)`.
pub fn sized_throughput_mb_s(sizing: &iofit_model::SizingTarget, bytes_per_mb: f64) -> (f64, bool) {
    let derived = sizing.iops.get() * sizing.io_size_bytes.as_f64() / bytes_per_mb;
    if derived > sizing.throughput_mb_s.get() {
        (derived, true)
    } else {
        (sizing.throughput_mb_s.get(), false)
    }
}

fn render_requirements_inner(requirements: &Requirements, bytes_per_mb: Option<f64>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "requirements ({}; growth x{})",
        if requirements.source.is_empty() {
            "no source given"
        } else {
            &requirements.source
        },
        requirements.growth_factor
    );
    for volume in &requirements.volumes {
        let s = &volume.sizing;
        let (mb_s, derived) = sized_throughput_mb_s(s, bytes_per_mb.unwrap_or(1e6));
        let value = match bytes_per_mb {
            Some(_) => format!("{} MB/s", num(mb_s)),
            None => format!(
                "{} MB/s ({} MiB/s)",
                num(mb_s),
                num(sized_throughput_mb_s(s, 1_048_576.0).0)
            ),
        };
        let mb_text = if !derived {
            format!("{} MB/s", num(mb_s))
        } else if s.throughput_mb_s.get() > 0.0 {
            format!(
                "{value} derived (IOPS x IO size; {} MB/s given)",
                num(s.throughput_mb_s.get())
            )
        } else {
            format!("{value} derived (IOPS x IO size)")
        };
        let _ = writeln!(
            out,
            "  {} ({}): {} IOPS, {mb_text}, {} IO, {}% read, {}% random{}{}",
            volume.label,
            volume.role.name(),
            num(s.iops.get()),
            s.io_size_bytes.readable(),
            num(s.read_pct),
            num(s.random_pct),
            s.latency_ms
                .map(|l| format!(", latency <= {} ms", num(l.get())))
                .unwrap_or_default(),
            s.capacity_gib
                .map(|c| format!(", {} GiB", num(c.get())))
                .unwrap_or_default()
        );
        // The IO size is the capture's mean; when the sized MB/s need larger IOs at the sized
        // IOPS, designs and predictions run at that size: say so here, under its own name.
        let (_, per_io) = s.operating_point(bytes_per_mb.unwrap_or(1e6));
        if per_io != s.io_size_bytes {
            let _ = writeln!(
                out,
                "    designs run it at {} per IO: the MB/s over the IOPS, more than the IO \
                 size above",
                per_io.readable()
            );
        }
    }
    out
}

fn render_design(out: &mut String, design: &PlannedDesign, currency: &str) {
    let money = |value: Option<f64>| money_in(value, currency);
    let price = match design.total_usd_month {
        Some(total) => {
            let operations = match design.operations_usd_month {
                Some(ops) if ops > 0.0 => format!(" + disk operations {}", money(Some(ops))),
                Some(_) => String::new(),
                None => "; disk operations charge not sourced (cost incomplete)".to_string(),
            };
            format!(
                "{}/month = VM {} + disks {}{operations}",
                money(Some(total)),
                money(design.vm_price_usd_month),
                money(design.disks_price_usd_month)
            )
        }
        None => design
            .price_note
            .clone()
            .unwrap_or_else(|| "price not sourced".into()),
    };
    let _ = writeln!(out, "#{}  {}  {price}", design.rank, design.vm);
    // Architecture and burstable CPU where the catalog's rules know them; an announced
    // retirement (a size kept with --include-retiring, or beyond the plan's horizon) is said.
    let (traits, retiring) = match &design.vm_traits {
        Some(t) => (
            format!(", {}", t.words()),
            match (&t.retirement_date, &t.retirement_announced) {
                (Some(date), Some(announced)) => {
                    format!("; Azure retires it on {date} (announced {announced})")
                }
                (Some(date), None) => format!("; Azure retires it on {date}"),
                _ => String::new(),
            },
        ),
        None => (String::new(), String::new()),
    };
    let _ = writeln!(
        out,
        "    VM: {} vCPU, {} GiB{traits} ({}){retiring}",
        design.vm_vcpu,
        num(design.vm_memory_gib.get()),
        design.vm_table
    );
    for volume in &design.volumes {
        let provisioned = match (volume.provisioned_iops, volume.provisioned_throughput_mb_s) {
            (Some(iops), Some(mb)) => format!(
                ", provisioned {} GiB / {} IOPS / {} MB/s each",
                num(volume.disk_size_gib.get()),
                num(iops.get()),
                num(mb.get())
            ),
            _ => format!(", {} GiB each", num(volume.disk_size_gib.get())),
        };
        let _ = writeln!(
            out,
            "    {}: {} x {}{provisioned}, {} ({})",
            volume.label,
            volume.disk_count,
            volume.disk_sku,
            volume.caching,
            match volume.price_usd_month {
                Some(price) => format!("{}/month", money(Some(price))),
                None => "price not sourced".into(),
            }
        );
        if let Some(note) = &volume.operations_note {
            let _ = writeln!(out, "        disk operations: {note}");
        }
        if let Some(note) = &volume.performance_note {
            let _ = writeln!(out, "        note: {note}");
        }
        let _ = writeln!(out, "        caching {}", volume.caching_reason);
        if let (Some(stripe), Some(reason)) = (volume.stripe_size_bytes, &volume.stripe_reason) {
            let _ = writeln!(
                out,
                "        stripe {} over {} disks: {reason}",
                stripe.readable(),
                volume.disk_count
            );
        }
        let _ = writeln!(
            out,
            "        run at {} outstanding IOs ({} thread(s) x {}): {}",
            volume.queue_depth_total,
            volume.threads,
            volume.queue_depth_per_thread,
            volume.queue_depth_reason
        );
    }
    let prediction = &design.prediction;
    // Flat out, an unpublished limit's room is unknown: no number is made of it.
    let flat_out = if prediction.max_known() {
        format!(
            "up to {} IOPS flat out",
            num(prediction.max_total_iops.get())
        )
    } else {
        format!(
            "flat out unknown ({}: not published)",
            prediction.unpublished_limits().join(", ")
        )
    };
    let _ = writeln!(
        out,
        "    delivers {} IOPS, {} MB/s at the targets; {flat_out}",
        num(prediction.total_iops.get()),
        num(prediction.total_throughput_mb_s.get()),
    );
    if let Some(binding) = &prediction.binding {
        let _ = writeln!(out, "    {}", binding.words);
    }
    // Headroom per limit, one line per scope (the VM, then each volume).
    let vm_suffix = format!(" ({})", design.vm);
    let mut scopes: Vec<(String, Vec<String>)> = Vec::new();
    for check in &prediction.limits {
        let Some(pct) = check.headroom_pct else {
            continue;
        };
        if !(check.kind.caps_sustained_rate() || check.status == LimitStatus::Ok) {
            continue;
        }
        let name = check.name.replace(&vm_suffix, "");
        let item = if check.load_unknown {
            format!("{name} unknown")
        } else {
            format!("{name} {pct:.0}%")
        };
        match scopes.iter_mut().find(|(scope, _)| *scope == check.scope) {
            Some((_, items)) => items.push(item),
            None => scopes.push((check.scope.clone(), vec![item])),
        }
    }
    if !scopes.is_empty() {
        let _ = writeln!(out, "    headroom:");
        for (scope, items) in scopes {
            let _ = writeln!(out, "      {scope}: {}", items.join(" | "));
        }
    }
    if !design.unknown_limits.is_empty() {
        let _ = writeln!(
            out,
            "    not published, not checked: {}",
            design.unknown_limits.join("; ")
        );
    }
}

/// Renders a plan. `edition` and `tables` name the catalog it was made from.
pub fn render(plan: &Plan, edition: &str, tables: &[&TableInfo]) -> String {
    let mut out = String::new();
    for warning in &plan.requirement_warnings {
        let _ = writeln!(out, "warning: {warning}");
    }
    if !plan.requirement_warnings.is_empty() {
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "iofit plan: {} volume(s), {} IOPS, {} MB/s, {} GiB in total",
        plan.totals.volumes,
        num(plan.totals.iops.get()),
        num(plan.totals.throughput_mb_s.get()),
        num(plan.totals.capacity_gib.get())
    );
    let _ = writeln!(out, "catalog edition {edition}:");
    for table in tables {
        let _ = writeln!(out, "  {} ({}, {})", table.id, table.title, table.date);
    }
    let _ = writeln!(
        out,
        "{} VM sizes considered, {} designs meet every requirement and limit",
        plan.vms_considered, plan.designs_meeting
    );
    if plan.designs.is_empty() {
        let _ = writeln!(out, "\nNO DESIGN meets the requirements:");
        for reason in &plan.impossible {
            let _ = writeln!(out, "  - {reason}");
        }
    } else {
        let headroom = if plan.min_headroom_pct > 0.0 {
            format!(
                "each with at least {}% headroom on every sized limit",
                num(plan.min_headroom_pct)
            )
        } else {
            "strict fit (a design may sit at 0% headroom on a limit)".to_string()
        };
        let _ = writeln!(
            out,
            "\ndesigns, cheapest first (totals = VM + disks + disk operations), {headroom}; \
             designs whose operations charge is not sourced follow, then designs whose price is \
             not sourced, smallest VM first (a proxy, not a price):"
        );
        for design in &plan.designs {
            out.push('\n');
            render_design(&mut out, design, &plan.currency);
        }
    }
    let money = |value: Option<f64>| money_in(value, &plan.currency);
    if !plan.rejected.is_empty() {
        let _ = writeln!(
            out,
            "\nruled out{}:",
            match plan.designs.first().and_then(|d| d.total_usd_month) {
                Some(_) => " (VMs cheaper than #1, or unpriced and not bigger)",
                None if plan.designs.is_empty() => " (cheapest or smallest VMs first)",
                None => " (smallest VMs first; prices not sourced)",
            }
        );
        for rejected in &plan.rejected {
            let _ = writeln!(
                out,
                "  {} (VM {}): {}",
                rejected.vm,
                money(rejected.vm_price_usd_month),
                rejected.reason
            );
        }
    }
    if !plan.netapp.is_empty() {
        let _ = writeln!(
            out,
            "\nAzure NetApp Files option (volume only; the VM's network limit is not in the catalog):"
        );
        for option in &plan.netapp {
            let _ = writeln!(
                out,
                "  {}: quota {:.2} TiB -> {} MiB/s, {}{}  [{}]",
                option.level,
                option.quota_tib.get(),
                num(option.throughput_mib_s.get()),
                money(option.price_usd_month),
                if option.fits { "" } else { " (does not fit)" },
                option.note
            );
        }
    }
    if !plan.notes.is_empty() {
        let _ = writeln!(out, "\nnotes:");
        for note in &plan.notes {
            let _ = writeln!(out, "  - {note}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::money;

    #[test]
    fn money_has_cents_and_groups() {
        assert_eq!(money(Some(1548.0)), "$1,548.00");
        assert_eq!(money(Some(3208.98)), "$3,208.98");
        assert_eq!(money(Some(136.085 * 4.0)), "$544.34");
        assert_eq!(money(None), "price not sourced");
    }
}
