//! The fleet table as text, CSV (RFC 4180) and a self-contained HTML page.

use crate::FleetPlan;
use iofit_report::html::escape;

const HEADERS: [&str; 7] = [
    "server",
    "volumes",
    "VM",
    "disks",
    "monthly USD",
    "binding limit",
    "headroom %",
];

fn cost(value: Option<f64>) -> String {
    value.map_or("not sourced".to_string(), |v| format!("{v:.2}"))
}

fn headroom(value: Option<f64>) -> String {
    value.map_or("-".to_string(), |v| format!("{v:.1}"))
}

/// The table with totals and the failed servers, for a terminal.
pub fn render_text(plan: &FleetPlan) -> String {
    let rows: Vec<[String; 7]> = plan
        .rows
        .iter()
        .map(|r| {
            [
                r.server.clone(),
                r.volumes.to_string(),
                r.vm.clone(),
                r.disks.clone(),
                cost(r.monthly_usd),
                r.binding.clone(),
                headroom(r.headroom_pct),
            ]
        })
        .collect();
    let mut widths = HEADERS.map(str::len);
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
    let mut out = line(&HEADERS.map(str::to_string));
    for row in &rows {
        out.push_str(&line(row));
    }
    out.push_str(&format!(
        "\ntotal: {} servers planned, {} volumes, {:.2} USD a month{}\n",
        plan.rows.len(),
        plan.total_volumes,
        plan.total_monthly_usd,
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
        for (server, why) in &plan.failed {
            out.push_str(&format!("  {server}: {why}\n"));
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
pub fn render_csv(plan: &FleetPlan) -> String {
    let mut out =
        "server,volumes,vm,disks,monthly_usd,binding_limit,headroom_pct,status\r\n".to_string();
    for r in &plan.rows {
        let cells = [
            r.server.clone(),
            r.volumes.to_string(),
            r.vm.clone(),
            r.disks.clone(),
            r.monthly_usd.map_or(String::new(), |v| format!("{v:.2}")),
            r.binding.clone(),
            r.headroom_pct.map_or(String::new(), |v| format!("{v:.1}")),
            "planned".to_string(),
        ];
        let joined: Vec<String> = cells.iter().map(|c| csv_cell(c)).collect();
        out.push_str(&joined.join(","));
        out.push_str("\r\n");
    }
    for (server, why) in &plan.failed {
        out.push_str(&format!(
            "{},,,,,{},,failed\r\n",
            csv_cell(server),
            csv_cell(why)
        ));
    }
    out.push_str(&format!(
        "TOTAL,{},,,{:.2},,,{} planned {} failed\r\n",
        plan.total_volumes,
        plan.total_monthly_usd,
        plan.rows.len(),
        plan.failed.len()
    ));
    out
}

/// A self-contained HTML page: the table, totals, failed servers.
pub fn render_html(plan: &FleetPlan, title: &str) -> String {
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\n\
         <style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}\
         td,th{{border:1px solid #ccc;padding:.25em .6em}}td.n{{text-align:right}}\
         tr.total td{{font-weight:bold}}.failed{{color:#a00}}</style></head><body>\n<h1>{}</h1>\n\
         <table>\n<tr>",
        escape(title),
        escape(title)
    );
    for header in HEADERS {
        out.push_str(&format!("<th>{}</th>", escape(header)));
    }
    out.push_str("</tr>\n");
    for r in &plan.rows {
        out.push_str(&format!(
            "<tr><td>{}</td><td class=\"n\">{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td>\
             <td>{}</td><td class=\"n\">{}</td></tr>\n",
            escape(&r.server),
            r.volumes,
            escape(&r.vm),
            escape(&r.disks),
            escape(&cost(r.monthly_usd)),
            escape(&r.binding),
            escape(&headroom(r.headroom_pct))
        ));
    }
    out.push_str(&format!(
        "<tr class=\"total\"><td>total ({} servers)</td><td class=\"n\">{}</td><td></td><td></td>\
         <td class=\"n\">{:.2}</td><td></td><td></td></tr>\n</table>\n",
        plan.rows.len(),
        plan.total_volumes,
        plan.total_monthly_usd
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
        for (server, why) in &plan.failed {
            out.push_str(&format!(
                "<li><b>{}</b>: {}</li>\n",
                escape(server),
                escape(why)
            ));
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</body></html>\n");
    out
}
