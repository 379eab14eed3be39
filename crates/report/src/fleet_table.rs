//! The fleet table (`iofit plan --fleet`) as text, CSV (RFC 4180) and a self-contained HTML
//! page, from `iofit_fleet`'s typed plan: each server's volumes, binding limit and failure are
//! put in words here. The plan's types are `iofit_planner::fleet_plan`'s, generic over the
//! failure type (`iofit_fleet::ServerFailure`), of which a table shows the `Display`.

use crate::html::escape;
use iofit_planner::fleet_plan::{FleetPlan, FleetRow};
use std::fmt::Display;

const HEADERS: [&str; 7] = [
    "server",
    "volumes",
    "VM",
    "disks",
    "monthly USD",
    "binding limit",
    "headroom %",
];

/// The fleet's currency (ISO 4217; USD when the plan names none).
fn currency<F>(plan: &FleetPlan<F>) -> &str {
    if plan.currency.is_empty() {
        "USD"
    } else {
        &plan.currency
    }
}

/// The column headers, the cost column naming the fleet's currency.
fn headers<F>(plan: &FleetPlan<F>) -> [String; 7] {
    HEADERS.map(|h| {
        if h == "monthly USD" {
            format!("monthly {}", currency(plan))
        } else {
            h.to_string()
        }
    })
}

fn cost(value: Option<f64>) -> String {
    value.map_or("not sourced".to_string(), |v| format!("{v:.2}"))
}

fn headroom(value: Option<f64>) -> String {
    value.map_or("-".to_string(), |v| format!("{v:.1}"))
}

/// Per volume `label: COUNTxSKU`, joined by `; `.
fn disks(row: &FleetRow) -> String {
    row.disks
        .iter()
        .map(|v| format!("{}: {}x{}", v.label, v.disk_count, v.disk_sku))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The limit that caps the design first, by name.
fn binding(row: &FleetRow) -> String {
    row.binding
        .as_ref()
        .map_or_else(|| "none".to_string(), |b| b.name.clone())
}

/// The table with totals and the failed servers, for a terminal.
pub fn render_text<F: Display>(plan: &FleetPlan<F>) -> String {
    let rows: Vec<[String; 7]> = plan
        .rows
        .iter()
        .map(|r| {
            [
                r.server.clone(),
                r.volumes.to_string(),
                r.vm.clone(),
                disks(r),
                cost(r.price_per_month),
                binding(r),
                headroom(r.headroom_pct),
            ]
        })
        .collect();
    let headers = headers(plan);
    let mut widths = headers.clone().map(|h| h.len());
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let mut out = String::new();
        for (i, (cell, width)) in cells.iter().zip(widths).enumerate() {
            let numeric = matches!(i, 1 | 4 | 6);
            if numeric {
                out.push_str(&format!("{cell:>width$}  "));
            } else {
                out.push_str(&format!("{cell:<width$}  "));
            }
        }
        out.trim_end().to_string() + "\n"
    };
    let mut out = line(&headers);
    for row in &rows {
        out.push_str(&line(row));
    }
    out.push_str(&format!(
        "\ntotal: {} servers planned, {} volumes, {:.2} {} a month{}\n",
        plan.rows.len(),
        plan.total_volumes,
        plan.total_price_per_month,
        currency(plan),
        if plan.unpriced > 0 {
            format!(
                " ({} servers' cost not sourced, not in the total)",
                plan.unpriced
            )
        } else {
            String::new()
        }
    ));
    if !plan.failed.is_empty() {
        out.push_str(&format!("failed: {} servers\n", plan.failed.len()));
        for failed in &plan.failed {
            out.push_str(&format!("  {}: {}\n", failed.server, failed.failure));
        }
    }
    if !plan.notes.is_empty() {
        out.push_str("\nnotes:\n");
        for note in &plan.notes {
            out.push_str(&format!("  - {note}\n"));
        }
    }
    out
}

fn csv_cell(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// One row per server and a final `TOTAL` row; failed servers as rows with the reason in the
/// binding column and empty numbers.
pub fn render_csv<F: Display>(plan: &FleetPlan<F>) -> String {
    let mut out = format!(
        "server,volumes,vm,disks,monthly_{},binding_limit,headroom_pct,status\r\n",
        currency(plan).to_ascii_lowercase()
    );
    for r in &plan.rows {
        let cells = [
            r.server.clone(),
            r.volumes.to_string(),
            r.vm.clone(),
            disks(r),
            r.price_per_month
                .map_or(String::new(), |v| format!("{v:.2}")),
            binding(r),
            r.headroom_pct.map_or(String::new(), |v| format!("{v:.1}")),
            "planned".to_string(),
        ];
        let joined: Vec<String> = cells.iter().map(|c| csv_cell(c)).collect();
        out.push_str(&joined.join(","));
        out.push_str("\r\n");
    }
    for failed in &plan.failed {
        out.push_str(&format!(
            "{},,,,,{},,failed\r\n",
            csv_cell(&failed.server),
            csv_cell(&failed.failure.to_string())
        ));
    }
    out.push_str(&format!(
        "TOTAL,{},,,{:.2},,,{} planned {} failed\r\n",
        plan.total_volumes,
        plan.total_price_per_month,
        plan.rows.len(),
        plan.failed.len()
    ));
    out
}

/// A self-contained HTML page: the table, totals, failed servers.
pub fn render_html<F: Display>(plan: &FleetPlan<F>, title: &str) -> String {
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\n\
         <style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}\
         td,th{{border:1px solid #ccc;padding:.25em .6em}}td.n{{text-align:right}}\
         tr.total td{{font-weight:bold}}.failed{{color:#a00}}</style></head><body>\n<h1>{}</h1>\n\
         <table>\n<tr>",
        escape(title),
        escape(title)
    );
    for header in headers(plan) {
        out.push_str(&format!("<th>{}</th>", escape(&header)));
    }
    out.push_str("</tr>\n");
    for r in &plan.rows {
        out.push_str(&format!(
            "<tr><td>{}</td><td class=\"n\">{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td>\
             <td>{}</td><td class=\"n\">{}</td></tr>\n",
            escape(&r.server),
            r.volumes,
            escape(&r.vm),
            escape(&disks(r)),
            escape(&cost(r.price_per_month)),
            escape(&binding(r)),
            escape(&headroom(r.headroom_pct))
        ));
    }
    out.push_str(&format!(
        "<tr class=\"total\"><td>total ({} servers)</td><td class=\"n\">{}</td><td></td><td></td>\
         <td class=\"n\">{:.2}</td><td></td><td></td></tr>\n</table>\n",
        plan.rows.len(),
        plan.total_volumes,
        plan.total_price_per_month
    ));
    if plan.unpriced > 0 {
        out.push_str(&format!(
            "<p>{} servers' cost is not sourced and not in the total.</p>\n",
            plan.unpriced
        ));
    }
    if !plan.failed.is_empty() {
        out.push_str(&format!(
            "<h2 class=\"failed\">Failed: {} servers</h2>\n<ul>\n",
            plan.failed.len()
        ));
        for failed in &plan.failed {
            out.push_str(&format!(
                "<li><b>{}</b>: {}</li>\n",
                escape(&failed.server),
                escape(&failed.failure.to_string())
            ));
        }
        out.push_str("</ul>\n");
    }
    if !plan.notes.is_empty() {
        out.push_str("<h2>Notes</h2>\n<ul>\n");
        for note in &plan.notes {
            out.push_str(&format!("<li>{}</li>\n", escape(&note.to_string())));
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</body></html>\n");
    out
}
