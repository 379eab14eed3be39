//! Multi-host results: fio's client/server JSON layout (`client_stats`: every host's jobs with
//! a `hostname`, then the `All clients` aggregate), and a per-host text table that puts each
//! host next to the combined total so a slow or lost host stands out.

use crate::chart::Series;
use crate::fio_common::FioOutput;
use crate::fio_json;
use crate::html::Table;
use iofit_model::units::Millis;
use iofit_stats::RunResult;
use serde_json::{json, Value};
use std::fmt::Write as _;

/// One host's line in a multi-host report.
#[derive(Clone, Debug)]
pub struct HostRow<'a> {
    pub name: &'a str,
    /// Where ssh connected (`[user@]address`).
    pub destination: &'a str,
    /// None when the host stopped before sending its result.
    pub result: Option<&'a RunResult>,
    /// Host clock minus controller clock, milliseconds (negative when the host is behind).
    pub clock_offset_ms: Millis,
    pub rtt_ms: Millis,
    /// (seconds after the start, what happened) for a host lost mid-run.
    pub failure: Option<(f64, &'a str)>,
    /// IOs the host reported live before it stopped (for a lost host: what it did).
    pub live_ios: u64,
    /// Protocol bytes the host sent during the timed phase.
    pub bytes_received: u64,
}

/// fio's `--client` JSON: `client_stats` holds each host's jobs (with `hostname`) and then the
/// combined jobs named `All clients`; `iofit.hosts` adds offsets and failures.
pub fn render_clients_json(
    hosts: &[HostRow<'_>],
    combined: &RunResult,
    job_options: &[Vec<(String, String)>],
) -> String {
    render_clients_json_with(hosts, combined, job_options, &FioOutput::default())
}

/// [`render_clients_json`] with the jobs' reporting options (their options as written,
/// percentiles, unified reporting), as a single-host run's JSON renders them.
pub fn render_clients_json_with(
    hosts: &[HostRow<'_>],
    combined: &RunResult,
    job_options: &[Vec<(String, String)>],
    output: &FioOutput,
) -> String {
    let mut doc = fio_json::to_value_with(combined, job_options, output);
    let mut client_stats = Vec::new();
    for host in hosts {
        let Some(result) = host.result else { continue };
        let value = fio_json::to_value_with(result, job_options, output);
        for mut job in value["jobs"].as_array().cloned().unwrap_or_default() {
            job["hostname"] = json!(host.name);
            client_stats.push(job);
        }
    }
    for mut job in doc["jobs"].as_array().cloned().unwrap_or_default() {
        job["iofit_job"] = job["jobname"].clone();
        job["jobname"] = json!("All clients");
        job["hostname"] = json!("All clients");
        client_stats.push(job);
    }
    let object = doc.as_object_mut().expect("fio JSON is an object");
    object.remove("jobs");
    object.insert("client_stats".into(), Value::Array(client_stats));
    object["iofit"]["hosts"] = Value::Array(
        hosts
            .iter()
            .map(|h| {
                json!({
                    "name": h.name,
                    "destination": h.destination,
                    "clock_offset_ms": h.clock_offset_ms,
                    "rtt_ms": h.rtt_ms,
                    "complete": h.failure.is_none() && h.result.is_some(),
                    "stopped_after_s": h.failure.map(|f| f.0),
                    "failure": h.failure.map(|f| f.1),
                    "live_ios": h.live_ios,
                    "channel_bytes_received": h.bytes_received,
                })
            })
            .collect(),
    );
    let mut text = serde_json::to_string_pretty(&doc).expect("a JSON value always serialises");
    text.push('\n');
    text
}

/// Totals of a result: (IOs, bytes, IOPS, MB/s, mean completion latency us, p99 us).
fn totals(result: &RunResult) -> (u64, u64, f64, f64, f64, f64) {
    let mut out = (0, 0, 0.0, 0.0, 0.0, 0.0);
    let mut latency_weight = 0.0;
    for job in &result.jobs {
        for d in [&job.read, &job.write] {
            out.0 += d.ios;
            out.1 += d.io_bytes.as_u64();
            out.2 += d.iops.get();
            out.3 += d.bandwidth_bytes_per_second / 1e6;
            out.4 += d.completion_latency.mean_ns.get() * d.ios as f64;
            latency_weight += d.ios as f64;
            let p99 = d.completion_latency.percentile_ns(99.0).unwrap_or(0) as f64 / 1e3;
            out.5 = f64::max(out.5, p99);
        }
    }
    if latency_weight > 0.0 {
        out.4 = out.4 / latency_weight / 1e3;
    }
    out
}

/// A table of hosts and the combined total. The p99 column of a host is that host's; the
/// total's is from the merged histograms (the largest over the jobs).
pub fn render_hosts_table(hosts: &[HostRow<'_>], combined: &RunResult) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<20} {:>12} {:>12} {:>10} {:>10} {:>10} {:>11}  state",
        "host", "IOs", "IOPS", "MB/s", "mean us", "p99 us", "offset ms"
    );
    for host in hosts {
        let state = match (host.failure, host.result) {
            (Some((after_s, why)), _) => format!("LOST after {after_s:.1} s: {why}"),
            (None, Some(_)) => "complete".to_string(),
            (None, None) => "no result".to_string(),
        };
        match host.result {
            Some(result) => {
                let t = totals(result);
                let _ = writeln!(
                    out,
                    "{:<20} {:>12} {:>12.1} {:>10.2} {:>10.1} {:>10.1} {:>+11.3}  {state}",
                    host.name,
                    t.0,
                    t.2,
                    t.3,
                    t.4,
                    t.5,
                    host.clock_offset_ms.get()
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "{:<20} {:>12} {:>12} {:>10} {:>10} {:>10} {:>+11.3}  {state}",
                    host.name,
                    host.live_ios,
                    "-",
                    "-",
                    "-",
                    "-",
                    host.clock_offset_ms.get()
                );
            }
        }
    }
    let t = totals(combined);
    let _ = writeln!(
        out,
        "{:<20} {:>12} {:>12.1} {:>10.2} {:>10.1} {:>10.1} {:>11}  combined (merged histograms)",
        "All clients", t.0, t.2, t.3, t.4, t.5, ""
    );
    out
}

/// IOPS per second of every host that finished (x: seconds from the common start), so a slow
/// host is a visibly lower line; the last series is the combined total.
pub fn iops_per_host(hosts: &[HostRow<'_>], combined: &RunResult) -> Vec<Series> {
    let line = |name: &str, result: &RunResult| {
        let mut points: Vec<(f64, f64)> = Vec::new();
        for job in &result.jobs {
            for (k, sample) in job.series.iter().enumerate() {
                let seconds = (sample.interval_ms.get().max(1)) as f64 / 1000.0;
                let iops = sample.ios() as f64 / seconds;
                if k == points.len() {
                    points.push((sample.start_ms.get() as f64 / 1000.0, 0.0));
                }
                points[k].1 += iops;
            }
        }
        Series::new(name, points)
    };
    let mut out: Vec<Series> = hosts
        .iter()
        .filter_map(|h| h.result.map(|r| line(h.name, r)))
        .collect();
    out.push(line("All clients", combined));
    out
}

/// The hosts table as an HTML/Markdown/CSV table.
pub fn hosts_table(hosts: &[HostRow<'_>], combined: &RunResult) -> Table {
    let mut table = Table::new(
        "Hosts and their combination",
        &[
            "host",
            "IOs",
            "IOPS",
            "MB/s",
            "mean us",
            "p99 us",
            "clock offset ms",
            "state",
        ],
    );
    for host in hosts {
        let state = match (host.failure, host.result) {
            (Some((after_s, why)), _) => format!("lost after {after_s:.1} s: {why}"),
            (None, Some(_)) => "complete".to_string(),
            (None, None) => "no result".to_string(),
        };
        let cells = match host.result {
            Some(result) => {
                let t = totals(result);
                vec![
                    t.0.to_string(),
                    format!("{:.1}", t.2),
                    format!("{:.2}", t.3),
                    format!("{:.1}", t.4),
                    format!("{:.1}", t.5),
                ]
            }
            None => vec![
                host.live_ios.to_string(),
                "-".into(),
                "-".into(),
                "-".into(),
                "-".into(),
            ],
        };
        let mut row = vec![host.name.to_string()];
        row.extend(cells);
        row.push(format!("{:+.3}", host.clock_offset_ms.get()));
        row.push(state);
        table = table.row(row);
    }
    let t = totals(combined);
    table.row(vec![
        "All clients".into(),
        t.0.to_string(),
        format!("{:.1}", t.2),
        format!("{:.2}", t.3),
        format!("{:.1}", t.4),
        format!("{:.1}", t.5),
        String::new(),
        "merged histograms".into(),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use iofit_stats::{DirectionResult, JobResult, LatencySummary};

    fn result(host: &str, ios: u64) -> RunResult {
        RunResult {
            hostname: host.into(),
            version: "0.1.0".into(),
            jobs: vec![JobResult {
                name: "rr".into(),
                clones: 1,
                read: DirectionResult {
                    ios,
                    io_bytes: iofit_model::Bytes(ios * 4096),
                    runtime_ns: iofit_model::units::Nanos(1_000_000_000),
                    iops: iofit_model::units::Iops(ios as f64),
                    bandwidth_bytes_per_second: ios as f64 * 4096.0,
                    completion_latency: LatencySummary {
                        count: ios,
                        mean_ns: iofit_model::units::Nanos(100_000.0),
                        ..Default::default()
                    },
                    ..Default::default()
                },
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn client_layout_lists_every_host_then_all_clients() {
        let (a, b, all) = (
            result("a", 100),
            result("b", 50),
            result("All clients", 150),
        );
        let rows = [
            HostRow {
                name: "a",
                destination: "root@10.0.0.1",
                result: Some(&a),
                clock_offset_ms: Millis(0.1),
                rtt_ms: Millis(0.2),
                failure: None,
                live_ios: 100,
                bytes_received: 0,
            },
            HostRow {
                name: "b",
                destination: "10.0.0.2",
                result: Some(&b),
                clock_offset_ms: Millis(-0.1),
                rtt_ms: Millis(0.2),
                failure: None,
                live_ios: 50,
                bytes_received: 0,
            },
            HostRow {
                name: "c",
                destination: "10.0.0.3",
                result: None,
                clock_offset_ms: Millis(0.0),
                rtt_ms: Millis(0.2),
                failure: Some((2.5, "connection lost")),
                live_ios: 7,
                bytes_received: 0,
            },
        ];
        let doc: Value = serde_json::from_str(&render_clients_json(&rows, &all, &[])).unwrap();
        let stats = doc["client_stats"].as_array().unwrap();
        assert_eq!(stats.len(), 3);
        assert_eq!(stats[0]["hostname"], "a");
        assert_eq!(stats[1]["hostname"], "b");
        assert_eq!(stats[2]["jobname"], "All clients");
        // Per-host sums equal the combined total.
        let ios = |v: &Value| v["read"]["total_ios"].as_u64().unwrap();
        assert_eq!(ios(&stats[0]) + ios(&stats[1]), ios(&stats[2]));
        assert_eq!(doc["iofit"]["hosts"][2]["stopped_after_s"], 2.5);
        assert!(doc.get("jobs").is_none());
        let chart = iops_per_host(&rows, &all);
        assert_eq!(chart.len(), 3, "two finished hosts and All clients");
        assert_eq!(hosts_table(&rows, &all).rows.len(), 4);
        let table = render_hosts_table(&rows, &all);
        assert!(
            table.contains("LOST after 2.5 s: connection lost"),
            "{table}"
        );
        assert!(table.lines().last().unwrap().starts_with("All clients"));
    }
}
