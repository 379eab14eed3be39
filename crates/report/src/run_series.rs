//! The chart series of a run: per-interval IOPS, MB/s and latency of each job and direction
//! (short last intervals left out), latency percentile curves, and one colour per job direction
//! shared by every chart of the run.

use crate::chart::Series;
use iofit_stats::{Ddir, DirectionResult, IntervalSample, JobResult, RunResult};

/// The percentile curve of a direction: total latency where the results have its percentiles,
/// else completion latency (fio's default).
pub(crate) fn percentile_curve(direction: &DirectionResult) -> Vec<(f64, f64)> {
    let summary = if direction.total_latency.percentiles_ns.is_empty() {
        &direction.completion_latency
    } else {
        &direction.total_latency
    };
    summary
        .percentiles_ns
        .iter()
        .map(|(p, ns)| (*p, *ns as f64 / 1e6))
        .collect()
}

/// The samples worth drawing: a run's last interval is often a sliver (a few ms, or 0 ms when
/// the run stops just after a boundary), and a rate over a sliver is noise. Samples shorter than
/// half the longest interval are left out.
pub(crate) fn full_intervals(series: &[IntervalSample]) -> impl Iterator<Item = &IntervalSample> {
    let longest = series
        .iter()
        .map(|s| s.interval_ms.get())
        .max()
        .unwrap_or(0);
    series.iter().filter(move |s| {
        let interval_ms = s.interval_ms.get();
        interval_ms > 0 && interval_ms * 2 >= longest
    })
}

/// Per-interval IOPS, MB/s, mean and p99 latency of every job, x in seconds at interval end.
pub(crate) struct TimeSeries {
    pub iops: Vec<Series>,
    pub throughput_mb_s: Vec<Series>,
    pub latency_ms: Vec<Series>,
}

#[cfg(test)]
/// A mixed job and a write-only job, two one-second intervals each.
pub(crate) fn mixed_run() -> RunResult {
    let sample = |start_ms: u64, read_ios: u64, write_ios: u64| IntervalSample {
        start_ms: iofit_model::units::Millis(start_ms),
        interval_ms: iofit_model::units::Millis(1000),
        read_ios,
        read_bytes: iofit_model::Bytes(read_ios * 8192),
        write_ios,
        write_bytes: iofit_model::Bytes(write_ios * 8192),
        latency_mean_ns: iofit_model::units::Nanos(500_000.0),
        latency_p99_ns: iofit_model::units::Nanos(2_000_000),
        ..Default::default()
    };
    let job = |name: &str, read_ios: u64, write_ios: u64| JobResult {
        name: name.into(),
        read: DirectionResult {
            ios: 2 * read_ios,
            ..Default::default()
        },
        write: DirectionResult {
            ios: 2 * write_ios,
            ..Default::default()
        },
        series: vec![
            sample(0, read_ios, write_ios),
            sample(1000, read_ios, write_ios),
        ],
        ..Default::default()
    };
    RunResult {
        tool: "iofit".into(),
        timestamp_s: iofit_model::units::UnixSeconds(1_795_398_650),
        jobs: vec![job("data", 800, 200), job("log", 0, 300)],
        ..Default::default()
    }
}

#[cfg(test)]
pub(crate) fn time_series(run: &RunResult) -> TimeSeries {
    let jobs: Vec<&JobResult> = run.jobs.iter().collect();
    time_series_of(&jobs, &SeriesColours::of(run))
}

/// The directions a job did IO in, in words: "reads", "writes", "reads and writes".
fn directions_words(job: &JobResult) -> String {
    let mut words = Vec::new();
    for (ios, word) in [
        (job.read.ios, "reads"),
        (job.write.ios, "writes"),
        (job.trim.ios, "trims"),
    ] {
        if ios > 0 {
            words.push(word);
        }
    }
    match words.len() {
        0 => "no IO".into(),
        1 => words[0].to_string(),
        _ => format!(
            "{} and {}",
            words[..words.len() - 1].join(", "),
            words[words.len() - 1]
        ),
    }
}

/// [`time_series`] of some of a run's jobs, coloured as in every chart of the run.
pub(crate) fn time_series_of(jobs: &[&JobResult], colours: &SeriesColours) -> TimeSeries {
    let mut series = TimeSeries {
        iops: Vec::new(),
        throughput_mb_s: Vec::new(),
        latency_ms: Vec::new(),
    };
    for job in jobs {
        let samples: Vec<&IntervalSample> = full_intervals(&job.series).collect();
        if samples.is_empty() {
            continue;
        }
        let at =
            |sample: &IntervalSample| (sample.start_ms + sample.interval_ms).get() as f64 / 1e3;
        let seconds = |sample: &IntervalSample| (sample.interval_ms.get().max(1)) as f64 / 1e3;
        // Directions apart: a mixed job's directions meet different limits.
        for (direction, ddir) in [
            ("read", Ddir::Read),
            ("write", Ddir::Write),
            ("trim", Ddir::Trim),
        ] {
            let Some(colour) = colours.index(&job.name, direction) else {
                continue;
            };
            let ios = |s: &IntervalSample| s.of(ddir).0;
            let bytes = |s: &IntervalSample| s.of(ddir).1;
            let name = format!("{} {direction}", job.name);
            series.iops.push(
                Series::new(
                    name.clone(),
                    samples
                        .iter()
                        .map(|s| (at(s), ios(s) as f64 / seconds(s)))
                        .collect(),
                )
                .coloured(colour),
            );
            series.throughput_mb_s.push(
                Series::new(
                    name,
                    samples
                        .iter()
                        .map(|s| (at(s), bytes(s) as f64 / seconds(s) / 1e6))
                        .collect(),
                )
                .coloured(colour),
            );
        }
        // Interval latency (fio's lat) covers every direction of the job: the legend says
        // which it did. Mean and p99 each have a colour of their own (p99 dashed too).
        let with_ios = || samples.iter().filter(|s| s.ios() > 0);
        let words = directions_words(job);
        let (mean_colour, p99_colour) = colours.latency(&job.name);
        series.latency_ms.push(
            Series::new(
                format!("{} mean lat ({words})", job.name),
                with_ios()
                    .map(|s| (at(s), s.latency_mean_ns.get() / 1e6))
                    .collect(),
            )
            .coloured(mean_colour),
        );
        series.latency_ms.push(
            Series::new(
                format!("{} p99 lat ({words})", job.name),
                with_ios()
                    .map(|s| (at(s), s.latency_p99_ns.get() as f64 / 1e6))
                    .collect(),
            )
            .coloured(p99_colour)
            .dashed(),
        );
    }
    series
}

/// One colour per (job, direction) for every chart of a run: its position among the
/// directions that did IO, in job order, reads first.
pub(crate) struct SeriesColours(Vec<(String, &'static str)>);

impl SeriesColours {
    pub(crate) fn of(run: &RunResult) -> SeriesColours {
        let mut keys = Vec::new();
        for job in &run.jobs {
            if job.read.ios > 0 {
                keys.push((job.name.clone(), "read"));
            }
            if job.write.ios > 0 {
                keys.push((job.name.clone(), "write"));
            }
            if job.trim.ios > 0 {
                keys.push((job.name.clone(), "trim"));
            }
        }
        SeriesColours(keys)
    }

    pub(crate) fn index(&self, job: &str, direction: &str) -> Option<usize> {
        self.0.iter().position(|(j, d)| j == job && *d == direction)
    }

    /// The mean and p99 latency colours of a job: the mean in the colour of the job's first
    /// direction, the p99 in a palette colour no direction uses (when the palette has one).
    fn latency(&self, job: &str) -> (usize, usize) {
        let first = ["read", "write", "trim"]
            .iter()
            .find_map(|d| self.index(job, d))
            .unwrap_or(0);
        let jobs: Vec<&str> = self.0.iter().fold(Vec::new(), |mut names, (j, _)| {
            if !names.contains(&j.as_str()) {
                names.push(j.as_str());
            }
            names
        });
        let job_index = jobs.iter().position(|j| *j == job).unwrap_or(0);
        (first, self.0.len() + job_index)
    }
}

/// The jobs of a run by group, in order: groups run one after another (fio's stonewall), and
/// each group's clock starts at its own zero, so each gets charts of its own.
pub(crate) fn job_groups(run: &RunResult) -> Vec<(u32, Vec<&JobResult>)> {
    let mut groups: Vec<(u32, Vec<&JobResult>)> = Vec::new();
    for job in &run.jobs {
        match groups.iter_mut().find(|(id, _)| *id == job.group_id) {
            Some((_, jobs)) => jobs.push(job),
            None => groups.push((job.group_id, vec![job])),
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart;

    #[test]
    fn a_trim_job_has_its_own_series() {
        let mut run = mixed_run();
        let trims = IntervalSample {
            interval_ms: iofit_model::units::Millis(1000),
            trim_ios: 50,
            trim_bytes: iofit_model::Bytes(50 * 65536),
            latency_mean_ns: iofit_model::units::Nanos(3_000_000.0),
            ..Default::default()
        };
        run.jobs.push(JobResult {
            name: "discard".into(),
            trim: DirectionResult {
                ios: 50,
                ..Default::default()
            },
            series: vec![trims],
            ..Default::default()
        });
        let series = time_series(&run);
        let trim = series
            .iops
            .iter()
            .find(|s| s.name == "discard trim")
            .unwrap();
        assert_eq!(trim.points, vec![(1.0, 50.0)]);
        assert_eq!(trim.colour, Some(chart::PALETTE[3]));
        let mb = &series.throughput_mb_s[3];
        assert!((mb.points[0].1 - 50.0 * 65536.0 / 1e6).abs() < 1e-9);
        assert!(series
            .latency_ms
            .iter()
            .any(|s| s.name.starts_with("discard mean")));
    }

    #[test]
    fn reads_and_writes_apart_one_colour_each_across_charts() {
        let series = time_series(&mixed_run());
        let names: Vec<&str> = series.iops.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["data read", "data write", "log write"]);
        // 800 reads a second: IOPS and MB/s (x 8,192 B) of the read direction alone.
        assert_eq!(series.iops[0].points, vec![(1.0, 800.0), (2.0, 800.0)]);
        assert!((series.throughput_mb_s[0].points[0].1 - 800.0 * 8192.0 / 1e6).abs() < 1e-9);
        let colours: Vec<_> = series.iops.iter().map(|s| s.colour).collect();
        let mb_colours: Vec<_> = series.throughput_mb_s.iter().map(|s| s.colour).collect();
        assert_eq!(colours, mb_colours);
        assert_eq!(colours[0], Some(chart::PALETTE[0]));
        assert_eq!(colours[2], Some(chart::PALETTE[2]));
        // The write-only log's latency is named for its writes; its mean is in the colour of
        // its only direction, its p99 in a colour of its own and dashed.
        let find = |name: &str| series.latency_ms.iter().find(|s| s.name == name).unwrap();
        let log_mean = find("log mean lat (writes)");
        let log_p99 = find("log p99 lat (writes)");
        assert_eq!(log_mean.colour, colours[2]);
        assert!(log_p99.dashed && log_p99.colour != log_mean.colour);
        assert!(!colours.contains(&log_p99.colour));
        let data_p99 = find("data p99 lat (reads and writes)");
        assert_ne!(data_p99.colour, log_p99.colour);
    }
}
