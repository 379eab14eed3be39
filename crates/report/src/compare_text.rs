//! A [`Comparison`] as a plain-text table for a terminal (the verdict itself is
//! `iofit-verdict`'s).

use iofit_verdict::{Comparison, Verdict};

/// The comparison as a plain-text table for a terminal.
pub fn render_text(comparison: &Comparison) -> String {
    let mut rows = vec![[
        "metric".to_string(),
        "unit".to_string(),
        "required".to_string(),
        "measured".to_string(),
        "verdict".to_string(),
        "margin".to_string(),
    ]];
    for check in &comparison.checks {
        rows.push([
            check.metric.label().to_string(),
            check.unit.clone(),
            check.required_text(),
            check.measured_text(),
            check.verdict.word().to_string(),
            check.margin_text(),
        ]);
    }
    let mut widths = [0usize; 6];
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = format!(
        "compare: {} against volume '{}' ({}) of {}\n\n",
        comparison.results_source,
        comparison.volume,
        comparison.role.name(),
        comparison.requirements_source
    );
    if let Some(design) = &comparison.design {
        out.insert_str(out.len() - 1, &format!("design: {design}\n"));
    }
    for row in &rows {
        let mut line = String::new();
        for (index, (cell, width)) in row.iter().zip(widths).enumerate() {
            let pad = width - cell.chars().count();
            // Text columns left, number columns right.
            if index == 0 || index == 1 || index == 4 {
                line.push_str(cell);
                line.push_str(&" ".repeat(pad));
            } else {
                line.push_str(&" ".repeat(pad));
                line.push_str(cell);
            }
            line.push_str("  ");
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    let notes: Vec<String> = comparison
        .checks
        .iter()
        .filter_map(|check| {
            check
                .note
                .as_ref()
                .map(|note| format!("  {}: {note}", check.metric.label()))
        })
        .collect();
    if !notes.is_empty() {
        out.push_str("\nnotes:\n");
        for note in notes {
            out.push_str(&note);
            out.push('\n');
        }
    }
    if !comparison.warnings.is_empty() {
        out.push_str("\nwarnings:\n");
        for warning in &comparison.warnings {
            out.push_str(&format!("  - {warning}\n"));
        }
    }
    if !comparison.advice.is_empty() {
        out.push_str("\nadvice:\n");
        for advice in &comparison.advice {
            out.push_str(&format!("  - {}\n", advice.message));
        }
    }
    let failed = comparison.failed_metrics();
    out.push('\n');
    if comparison.passed {
        out.push_str("verdict: PASS (every requirement met)\n");
    } else {
        let names: Vec<&str> = failed.iter().map(|metric| metric.label()).collect();
        out.push_str(&format!(
            "verdict: FAIL ({} of {} checks failed: {})\n",
            failed.len(),
            comparison
                .checks
                .iter()
                .filter(|check| check.verdict != Verdict::NotChecked)
                .count(),
            names.join(", ")
        ));
    }
    out
}
