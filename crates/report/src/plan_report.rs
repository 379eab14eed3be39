//! The plan as one report (HTML or Markdown through [`HtmlReport`]): the requirements, the
//! ranked designs with their costs, the top design's prediction with its limits charted, what
//! ruled out cheaper VMs, and the notes.

use crate::html::{HtmlReport, Table};
use crate::plan_text::money_in;
use iofit_model::Requirements;
use iofit_planner::PlanOptions;
use iofit_predict::LimitKind;

/// The plan as one report: requirements, the ranked designs, the top design's prediction
/// (its limits charted, the binding one marked), what ruled out cheaper VMs, the notes.
pub fn report(
    requirements: &Requirements,
    plan: &iofit_planner::Plan,
    edition: &str,
    options: &PlanOptions,
    tables: &[impl std::borrow::Borrow<iofit_model::catalog::TableInfo>],
) -> HtmlReport {
    let group = iofit_model::units::group_thousands;
    // Every amount names the plan's currency ("$" for US dollars, else its ISO code).
    let money = |value: Option<f64>| money_in(value, &plan.currency);
    let unit = if plan.currency == "USD" {
        "$".to_string()
    } else {
        plan.currency.clone()
    };
    let per_month = |what: &str| format!("{what} {unit}/month");
    let mut report = HtmlReport::new(format!(
        "iofit plan: {} IOPS, {} MB/s, {} GiB",
        group(plan.totals.iops.get()),
        group(plan.totals.throughput_mb_s.get()),
        group(plan.totals.capacity_gib.get())
    ))
    .summary(crate::summary::Summary::for_plan(plan, tables))
    .requirements(requirements)
    .section(
        "How the plan was made",
        format!(
            "Catalog edition {edition}; {} VM sizes considered, {} designs meet every requirement \
             and limit. Every design keeps at least {}% headroom below each limit it is sized \
             against. Standard SSD/HDD disk operations are charged at the sized IOPS for {} \
             hours a month.",
            plan.vms_considered,
            plan.designs_meeting,
            group(options.min_headroom_pct),
            group(options.busy_hours_per_month)
        ),
    );
    if plan.designs.is_empty() {
        report = report.section(
            "No design meets the requirements",
            plan.impossible
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n\n"),
        );
    } else {
        let headers = [
            "#".to_string(),
            "VM".to_string(),
            "volumes".to_string(),
            per_month("VM"),
            per_month("disks"),
            per_month("operations"),
            per_month("total"),
            "binding limit".to_string(),
            "least headroom on a sized limit".to_string(),
        ];
        let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
        let mut table = Table::new(
            "Designs, cheapest first (total = VM + disks + disk operations)",
            &headers,
        )
        .sortable();
        for design in &plan.designs {
            let volumes: Vec<String> = design
                .volumes
                .iter()
                .map(|v| {
                    format!(
                        "{}: {} x {} ({})",
                        v.label, v.disk_count, v.disk_sku, v.caching
                    )
                })
                .collect();
            let least = design
                .prediction
                .limits
                .iter()
                .filter(|c| c.kind.caps_sustained_rate() || c.kind == LimitKind::VmDataDisks)
                .filter(|c| c.kind != LimitKind::QueueDepth)
                .filter_map(|c| c.headroom_pct.map(|p| (p, c.name.clone())))
                .min_by(|a, b| a.0.total_cmp(&b.0))
                .map(|(p, name)| format!("{p:.0}% ({name})"))
                .unwrap_or_else(|| "-".into());
            table = table.row(vec![
                design.rank.to_string(),
                design.vm.clone(),
                volumes.join("; "),
                money(design.vm_price_usd_month),
                money(design.disks_price_usd_month),
                match design.operations_usd_month {
                    Some(ops) => money(Some(ops)),
                    None => "not sourced".into(),
                },
                match (design.total_usd_month, design.cost_complete) {
                    (Some(total), true) => money(Some(total)),
                    (Some(total), false) => {
                        format!("{} + operations (incomplete)", money(Some(total)))
                    }
                    (None, _) => "price not sourced".into(),
                },
                binding_name(&design.prediction),
                least,
            ]);
        }
        report = report.table(table);
        let top = &plan.designs[0];
        let mut notes: Vec<String> = Vec::new();
        for volume in &top.volumes {
            for note in [&volume.operations_note, &volume.performance_note]
                .into_iter()
                .flatten()
            {
                notes.push(format!("{}: {note}", volume.label));
            }
        }
        if let Some(note) = &top.price_note {
            notes.push(note.clone());
        }
        if !notes.is_empty() {
            report = report.section(format!("Design #1: {}", top.vm), notes.join("\n\n"));
        }
        report = report.prediction(&top.prediction);
    }
    if !plan.rejected.is_empty() {
        let vm_per_month = per_month("VM");
        let mut table = Table::new("Ruled out", &["VM", vm_per_month.as_str(), "why"]);
        for rejected in &plan.rejected {
            table = table.row(vec![
                rejected.vm.clone(),
                money(rejected.vm_price_usd_month),
                rejected.reason.clone(),
            ]);
        }
        report = report.table(table);
    }
    let notes: Vec<String> = plan.notes.iter().map(ToString::to_string).collect();
    report.section("Notes", notes.join("\n\n"))
}

/// The name of the limit that binds a prediction as every section of a report names it
/// ([`crate::summary::binding_label`]), `-` when none does.
pub fn binding_name(prediction: &iofit_predict::Prediction) -> String {
    crate::summary::binding_label(prediction)
}
