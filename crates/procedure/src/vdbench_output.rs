//! vdbench's output directory (`iofit vdbench -o DIR`, default `output/`): summary.html,
//! totals.html, flatfile.html, logfile.html, parmfile.html, errorlog.html and histogram.html,
//! each opened as vdbench opens its html reports (Report.java: a `<title>Vdbench DIR/FILE
//! </title><pre>` line, then plain text), so `grep avg output/summary.html` and the parsers
//! written for vdbench's files read them. Every file is rewritten (atomically, through safefs)
//! after each run, so an interrupted file keeps what finished.

use crate::vdbench_outcome::{Reports, VdbenchOutcome};
use crate::ProcedureError;
use iofit_report::vdbench_flatfile::FlatRow;
use iofit_safefs::atomic::{output_dir, write_atomic};
use iofit_stats::JobResult;
use std::fmt::Write;
use std::path::Path;

/// The first line of one of vdbench's html reports.
fn title(dir: &Path, file: &str) -> String {
    let parent = dir
        .canonicalize()
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "output".into());
    format!("<title>Vdbench {parent}/{file}</title><pre>\n")
}

/// The lines of totals.html: each run's Starting line, column headers and `avg_` line.
pub fn totals(summaries: &[String]) -> String {
    let mut out = String::new();
    for summary in summaries {
        let lines: Vec<&str> = summary.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let label = line.get(12..).and_then(|l| l.split_whitespace().next());
            let header = line.contains(" interval ") && line.contains("i/o")
                || i > 0 && lines[i - 1].contains(" interval ") && line.contains("rate");
            if line.contains("Starting RD=") {
                let _ = writeln!(out, "\n{line}\n");
            } else if header || label.is_some_and(|l| l.starts_with("avg_")) {
                let _ = writeln!(out, "{line}");
            }
        }
    }
    out
}

/// vdbench's default histogram buckets (BucketRanges.setDefaultHistogram), in microseconds.
const BUCKETS_US: [u64; 26] = [
    20, 40, 60, 80, 100, 200, 400, 600, 800, 1_000, 2_000, 4_000, 6_000, 8_000, 10_000, 20_000,
    40_000, 60_000, 80_000, 100_000, 200_000, 400_000, 600_000, 800_000, 1_000_000, 2_000_000,
];

fn ms(us: u64) -> String {
    format!("{:.3}", us as f64 / 1000.0)
}

/// One run's response time histogram in vdbench's layout (Histogram.printHistogram) and
/// buckets, from the run's read and write latency distributions (warm-up included).
pub fn histogram(rd: &str, job: &JobResult) -> String {
    let mut counts = [0u64; BUCKETS_US.len() + 1];
    for (value_ns, count) in job
        .read
        .total_latency
        .fio_bins
        .iter()
        .chain(&job.write.total_latency.fio_bins)
    {
        let us = value_ns / 1000;
        let slot = BUCKETS_US
            .iter()
            .position(|b| us < *b)
            .unwrap_or(BUCKETS_US.len());
        counts[slot] += count;
    }
    let total: u64 = counts.iter().sum();
    let mut out =
        format!("\nrd={rd}: total response time histogram (the whole run, warm-up included).\n");
    if total == 0 {
        out.push_str("  no IO completed\n");
        return out;
    }
    let _ = writeln!(
        out,
        " {:>8} <  {:>10}   {:>10} {:>8} {:>8}  '+': Individual%; '+-': Cumulative%\n",
        "min(ms)", "max(ms)", "count", "%", "cum%"
    );
    let mut cumulative = 0u64;
    for (i, count) in counts.iter().enumerate() {
        let low = if i == 0 { 0 } else { BUCKETS_US[i - 1] };
        let high = BUCKETS_US.get(i).map_or("max".to_string(), |h| ms(*h));
        cumulative += count;
        let pct = *count as f64 * 100.0 / total as f64;
        let cum_pct = cumulative as f64 * 100.0 / total as f64;
        let plus = "+".repeat((pct * 0.5) as usize);
        let stars = "-".repeat(((cum_pct - pct) * 0.5) as usize);
        let _ = writeln!(
            out,
            " {:>8} < {:>11} {:>12} {:>8.4} {:>8.4}  {plus}{stars}",
            ms(low),
            high,
            count,
            pct,
            cum_pct
        );
    }
    out
}

/// Writes every file of the output directory from what the file's runs produced so far.
pub fn write(dir: &Path, outcome: &VdbenchOutcome) -> Result<(), ProcedureError> {
    let file_system = outcome.doc.runs.is_empty() && !outcome.doc.fs_runs.is_empty();
    write_reports(
        dir,
        &outcome.doc.file,
        &outcome.reports,
        &outcome.flat_rows,
        file_system,
    )
}

/// [`write`] from its parts (a multi-host file keeps them itself).
pub fn write_reports(
    dir: &Path,
    parmfile_name: &str,
    reports: &Reports,
    flat_rows: &[FlatRow],
    file_system: bool,
) -> Result<(), ProcedureError> {
    output_dir(dir)?;
    let file = |name: &str, body: &str| -> Result<(), ProcedureError> {
        let text = format!("{}{body}", title(dir, name));
        write_atomic(&dir.join(name), text.as_bytes())?;
        Ok(())
    };
    let summary = format!(
        "iofit {} running vdbench parameter file {}\nLink to logfile:  logfile.html\nRun totals:       totals.html\nParameter file:   parmfile.html\nError log:        errorlog.html\nFlatfile:         flatfile.html\nHistogram:        histogram.html\n{}",
        env!("CARGO_PKG_VERSION"),
        parmfile_name,
        reports.summaries.join("")
    );
    file("summary.html", &summary)?;
    file("totals.html", &totals(&reports.summaries))?;
    file("logfile.html", &(reports.log.join("\n") + "\n"))?;
    file("parmfile.html", &reports.parmfile)?;
    let errors = if reports.errors.is_empty() {
        "No errors.\n".to_string()
    } else {
        reports.errors.join("\n") + "\n"
    };
    file("errorlog.html", &errors)?;
    file("histogram.html", &reports.histograms.join(""))?;
    use iofit_report::vdbench_flatfile::{render, FS_COLUMNS, RAW_COLUMNS};
    let columns = if file_system { FS_COLUMNS } else { RAW_COLUMNS };
    file("flatfile.html", &render(columns, flat_rows))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use iofit_stats::{DirectionResult, LatencySummary};

    #[test]
    fn totals_keep_the_starting_headers_and_avg_lines() {
        let summary = "\n13:00:00.000 Starting RD=r; I/O rate: 100; elapsed=2;\n\nNov 27, 2026  interval        i/o   MB/sec\n                             rate  1024**2\n13:00:01.000         1     100.00     0.39\n13:00:02.000         2     100.00     0.39\n13:00:02.000   avg_2-2     100.00     0.39\n13:00:02.000   std_2-2       0.00     0.00\n";
        let text = totals(&[summary.to_string()]);
        let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(lines[0].contains("Starting RD=r"));
        assert!(lines[3].contains("avg_2-2"));
    }

    #[test]
    fn histogram_buckets_are_vdbenchs() {
        let direction = |bins: Vec<(u64, u64)>| DirectionResult {
            total_latency: LatencySummary {
                fio_bins: bins,
                ..Default::default()
            },
            ..Default::default()
        };
        let job = JobResult {
            read: direction(vec![(50_000, 3), (150_000, 1)]),
            write: direction(vec![(3_000_000_000, 1)]),
            ..Default::default()
        };
        let text = histogram("r", &job);
        // 50 µs falls in 40-60 µs, 150 µs in 100-200 µs, 3 s beyond the last bucket.
        let row = |low: &str| {
            text.lines()
                .find(|l| l.split_whitespace().next() == Some(low))
                .unwrap_or_else(|| panic!("{low}: {text}"))
                .split_whitespace()
                .nth(3)
                .unwrap()
                .to_string()
        };
        assert_eq!(row("0.040"), "3");
        assert_eq!(row("0.100"), "1");
        assert_eq!(row("2000.000"), "1");
    }
}
