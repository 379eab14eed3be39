//! vdbench's per-interval lines of a file system run: requested operations (rate and mean
//! response), CPU, read and write rates, MB/s, mean transfer size and the metadata operations,
//! then the `avg_F-L` line over the measured (non-warmup) intervals, as vdbench prints them.

use iofit_fswork::interval::{Interval, IntervalCounts};
use iofit_jobfile::vdbench::FileOp;
use iofit_report::vdbench_summary::time_of_day;
use std::fmt::Write;

/// The operations with their own column pair, in vdbench's order.
const META: [(FileOp, &str); 8] = [
    (FileOp::Mkdir, "...mkdir..."),
    (FileOp::Rmdir, "...rmdir..."),
    (FileOp::Create, "..create..."),
    (FileOp::Open, "....open..."),
    (FileOp::Close, "...close..."),
    (FileOp::Delete, "..delete..."),
    (FileOp::Getattr, "..getattr.."),
    (FileOp::Setattr, "..setattr.."),
];

fn slot(op: FileOp) -> usize {
    iofit_fswork::stats::index(op)
}

/// The two header lines over the interval lines.
pub fn header() -> String {
    let mut head1 =
        String::from("             .Interval. .ReqstdOps... ...cpu%...  ....read....  ...write....  ....mb/sec....  .xfer..");
    let mut head2 =
        String::from("                         rate    resp total  sys    rate   resp    rate   resp   read  write  total     size");
    for (_, title) in META {
        let _ = write!(head1, " {title:>14}");
        head2.push_str("     rate   resp");
    }
    format!("{head1}\n{head2}\n")
}

/// One interval's line (a warmup one marked `w`), as it is printed when the interval ends.
pub fn interval_line(interval: &Interval) -> String {
    // vdbench numbers warm-up intervals like the others (the avg_F-L label says which count).
    let label = interval.index.to_string();
    let time = time_of_day(interval.end_unix_ms.get() as f64 / 1000.0);
    let cpu = interval.cpu.map(|c| (c.total_pct, c.sys_pct));
    let mut out = String::new();
    line(
        &mut out,
        &time,
        &label,
        &interval.counts,
        interval.seconds.get(),
        cpu,
    );
    out
}

/// `avg_F-L`: the measured (non-warmup) intervals together; empty when there are none.
pub fn average_line(intervals: &[Interval]) -> String {
    let mut out = String::new();
    let measured: Vec<&Interval> = intervals.iter().filter(|i| !i.warmup).collect();
    if let (Some(first), Some(last)) = (measured.first(), measured.last()) {
        let mut sum = IntervalCounts::default();
        for i in &measured {
            sum.merge(&i.counts);
        }
        let seconds: f64 = measured.iter().map(|i| i.seconds.get()).sum();
        let cpus: Vec<(f64, f64)> = measured
            .iter()
            .filter_map(|i| i.cpu.map(|c| (c.total_pct, c.sys_pct)))
            .collect();
        let cpu = (!cpus.is_empty()).then(|| {
            let n = cpus.len() as f64;
            (
                cpus.iter().map(|c| c.0).sum::<f64>() / n,
                cpus.iter().map(|c| c.1).sum::<f64>() / n,
            )
        });
        let label = format!("avg_{}-{}", first.index, last.index);
        line(&mut out, "", &label, &sum, seconds, cpu);
    }
    out
}

fn line(
    out: &mut String,
    time: &str,
    label: &str,
    c: &IntervalCounts,
    seconds: f64,
    cpu: Option<(f64, f64)>,
) {
    let seconds = seconds.max(1e-9);
    let rate = |op: FileOp| c.count[slot(op)] as f64 / seconds;
    let mb = |op: FileOp| c.bytes[slot(op)] as f64 / 1_048_576.0 / seconds;
    let (r, w) = (slot(FileOp::Read), slot(FileOp::Write));
    let transfers = c.count[r] + c.count[w];
    let xfer = (c.bytes[r] + c.bytes[w])
        .checked_div(transfers)
        .unwrap_or(0);
    let (cpu_total, cpu_sys) = match cpu {
        Some((t, s)) => (format!("{t:.1}"), format!("{s:.1}")),
        None => ("n/a".into(), "n/a".into()),
    };
    let _ = write!(
        out,
        "{time:<12} {label:>9} {:>8.1} {:>7.3} {cpu_total:>5} {cpu_sys:>4} {:>7.1} {:>6.3} {:>7.1} {:>6.3} {:>6.2} {:>6.2} {:>6.2} {:>8}",
        c.total_ops() as f64 / seconds,
        c.total_resp_ms(),
        rate(FileOp::Read),
        c.resp_ms(r),
        rate(FileOp::Write),
        c.resp_ms(w),
        mb(FileOp::Read),
        mb(FileOp::Write),
        mb(FileOp::Read) + mb(FileOp::Write),
        xfer
    );
    for (op, _) in META {
        let _ = write!(out, " {:>8.1} {:>6.3}", rate(op), c.resp_ms(slot(op)));
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interval(index: usize, warmup: bool, creates: u64) -> Interval {
        let mut counts = IntervalCounts::default();
        counts.count[slot(FileOp::Create)] = creates;
        counts.latency_ns[slot(FileOp::Create)] = creates * 2_000_000;
        counts.count[slot(FileOp::Write)] = creates;
        counts.bytes[slot(FileOp::Write)] = creates * 4096;
        counts.latency_ns[slot(FileOp::Write)] = creates * 1_000_000;
        Interval {
            index,
            end_unix_ms: iofit_model::units::UnixMillis(3_600_000 * 13 + 1000 * index as u64),
            seconds: iofit_model::units::Seconds(1.0),
            warmup,
            counts,
            cpu: None,
        }
    }

    /// Header, one line per interval (warmup ones marked `w`) and the average of the others,
    /// as a run prints them.
    fn render_intervals(intervals: &[Interval]) -> String {
        let mut out = header();
        for interval in intervals {
            out.push_str(&interval_line(interval));
        }
        out + &average_line(intervals)
    }

    #[test]
    fn lines_per_interval_and_an_average_of_the_measured_ones() {
        let text = render_intervals(&[
            interval(1, true, 999),
            interval(2, false, 100),
            interval(3, false, 300),
        ]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2 + 3 + 1, "{text}");
        assert!(
            lines[2].starts_with("13:00:01.000")
                && lines[2][12..].split_whitespace().next() == Some("1")
        );
        let avg: Vec<&str> = lines[5].split_whitespace().collect();
        assert_eq!(avg[0], "avg_2-3");
        // ReqstdOps: creates + writes = 800 over 2 s; mean resp (2 ms + 1 ms) / 2.
        assert_eq!(avg[1], "400.0");
        assert_eq!(avg[2], "1.500");
        // write rate 200/s, MB/s 200 x 4096 / 2^20, transfer size 4096.
        assert_eq!(avg[7], "200.0");
        assert_eq!(avg[9], "0.00");
        assert_eq!(avg[10], "0.78");
        assert_eq!(avg[11], "0.78");
        assert_eq!(avg[12], "4096");
        // create column: the third metadata pair.
        assert_eq!(avg[13 + 4], "200.0");
        assert_eq!(avg[13 + 5], "2.000");
    }
}
