//! Controller scale: what the controller does per interval and at the end of a run, for 1,000
//! simulated workers (in-process, no ssh): parse each worker's `interval` line and sum the
//! aligned intervals; decode and merge 1,000 per-second latency histograms (compact HDR, as a
//! histogram delta per interval would travel); at the end parse 1,000 `done` messages with
//! full histograms and combine them (merged HDR percentiles). Prints times, peak memory and the
//! bytes each worker sends per second.
//!
//! Run: `cargo run --release -p iofit-remote --example controller_scale [WORKERS] [SECONDS]`
//! (bench/remote.sh does).

use iofit_remote::merge::{sum_series, Combiner};
use iofit_remote::protocol::{encode, FromWorker};
use iofit_stats::compact::{CompactDirection, CompactHistogram};
use iofit_stats::{DirectionStats, IntervalSample, JobResult, LatencyHistogram, RunResult};
use std::time::Instant;

/// A deterministic spread of latencies around `base_ns` (a long tail every 97th IO).
fn latency(i: u64, base_ns: u64) -> u64 {
    let x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 44;
    base_ns
        + x % base_ns
        + if i.is_multiple_of(97) {
            20 * base_ns
        } else {
            0
        }
}

fn direction(worker: u64, ios: u64) -> DirectionStats {
    let mut d = DirectionStats::default();
    let base = 200_000 + worker * 100;
    for i in 0..ios {
        let ns = latency(i + worker * 1_000_003, base);
        d.ios += 1;
        d.io_bytes += iofit_model::Bytes(4096);
        d.submission.record(ns / 20);
        d.completion.record(ns);
        d.total.record(ns + ns / 20);
    }
    d
}

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let workers: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let seconds: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(10);
    let ios_per_second = 5_000u64;

    // What arrives each second: one interval line per worker (the wire format).
    let lines: Vec<String> = (0..workers)
        .map(|w| {
            encode(&FromWorker::Interval {
                index: 0,
                ios: ios_per_second + w,
                bytes: (ios_per_second + w) * 4096,
            })
        })
        .collect();
    // A histogram delta per worker per second, 5,000 IOs each.
    let deltas: Vec<String> = (0..workers)
        .map(|w| {
            serde_json::to_string(&CompactHistogram::encode(
                &direction(w, ios_per_second).completion,
            ))
            .unwrap()
        })
        .collect();

    let mut worst_interval_s: f64 = 0.0;
    let mut worst_hist_s: f64 = 0.0;
    let mut series: Vec<Vec<IntervalSample>> =
        vec![Vec::with_capacity(seconds as usize); workers as usize];
    for second in 0..seconds {
        let t = Instant::now();
        for (w, line) in lines.iter().enumerate() {
            let FromWorker::Interval { ios, bytes, .. } = serde_json::from_str(line).unwrap()
            else {
                unreachable!("interval lines")
            };
            series[w].push(IntervalSample {
                start_ms: iofit_model::units::Millis(second * 1000),
                interval_ms: iofit_model::units::Millis(1000),
                read_ios: ios,
                read_bytes: iofit_model::Bytes(bytes),
                ..Default::default()
            });
        }
        let parts: Vec<(usize, &[IntervalSample])> =
            series.iter().map(|s| (0, s.as_slice())).collect();
        let summed = sum_series(&parts);
        assert_eq!(summed.len() as u64, second + 1);
        worst_interval_s = worst_interval_s.max(t.elapsed().as_secs_f64());

        let t = Instant::now();
        let mut merged = LatencyHistogram::new();
        for delta in &deltas {
            let h: CompactHistogram = serde_json::from_str(delta).unwrap();
            merged.merge(&h.decode().unwrap());
        }
        assert_eq!(merged.count(), workers * ios_per_second);
        worst_hist_s = worst_hist_s.max(t.elapsed().as_secs_f64());
    }

    // The end: 1,000 done messages with full histograms (read and write), combined.
    let total_ios = ios_per_second * seconds;
    let done: Vec<String> = (0..workers)
        .map(|w| {
            let read = direction(w, total_ios / 2);
            let write = direction(w + 7, total_ios / 2);
            let job = JobResult {
                name: "j".into(),
                clones: 1,
                read: read.to_result(seconds * 1_000_000_000),
                write: write.to_result(seconds * 1_000_000_000),
                series: series[w as usize].clone(),
                ..Default::default()
            };
            encode(&FromWorker::Done {
                started_unix_ns: 0,
                result: RunResult {
                    hostname: format!("w{w}"),
                    jobs: vec![job],
                    ..Default::default()
                },
                stats: vec![[
                    CompactDirection::encode(&read),
                    CompactDirection::encode(&write),
                ]],
                trims: Vec::new(),
            })
        })
        .collect();
    // As the controller does: each host's histograms are merged as its `done` arrives.
    let t = Instant::now();
    let mut combiner = Combiner::default();
    for line in &done {
        let FromWorker::Done { result, stats, .. } = serde_json::from_str(line).unwrap() else {
            unreachable!("done lines")
        };
        let stats: Vec<(DirectionStats, DirectionStats)> = stats
            .iter()
            .map(|[r, w]| (r.decode().unwrap(), w.decode().unwrap()))
            .collect();
        combiner.add(&result, &stats, 0);
    }
    let (combined, _) = combiner.finish();
    let final_s = t.elapsed().as_secs_f64();
    let job = &combined.jobs[0];
    assert_eq!(job.read.ios + job.write.ios, workers * (total_ios / 2) * 2);

    let interval_line = lines.iter().map(|l| l.len() + 1).sum::<usize>() as f64 / workers as f64;
    let delta_line = deltas.iter().map(|l| l.len() + 1).sum::<usize>() as f64 / workers as f64;
    let done_line = done.iter().map(|l| l.len() + 1).sum::<usize>() as f64 / workers as f64;
    println!("workers: {workers}, seconds: {seconds}, IOs per worker per second: {ios_per_second}");
    println!(
        "per interval, parse {workers} interval lines + sum aligned series: worst {:.1} ms",
        worst_interval_s * 1e3
    );
    println!(
        "per interval, decode + merge {workers} latency histogram deltas: worst {:.1} ms",
        worst_hist_s * 1e3
    );
    println!(
        "end of run, parse + decode + combine {workers} done messages: {:.1} ms",
        final_s * 1e3
    );
    println!(
        "combined p99 completion latency: {} ns over {} IOs",
        job.read.completion_latency.percentile_ns(99.0).unwrap_or(0),
        job.read.ios + job.write.ios
    );
    println!("bytes per worker per second: interval line {interval_line:.0} B (+ {delta_line:.0} B if it carried a histogram delta); done message once: {done_line:.0} B");
    println!("peak memory (VmHWM): {:.0} MiB", peak_rss_mib());
}
