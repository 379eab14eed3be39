//! The picture a reader of the method wants most: a volume's profiled workload over the
//! capture (IOPS, MB/s, latency, queue depth), with the sizing line and the limits of the
//! planned design and of the next cheaper one drawn across it, the intervals over a limit
//! shaded and counted, so one look shows when and by how much the workload would have
//! throttled on each.
//!
//! ```
//! use iofit_report::workload_chart::{throttling, Limit};
//!
//! // Three 10-second intervals; the middle one is 20% over a 250 IOPS limit.
//! let points = [(0.0, 100.0), (10.0, 300.0), (20.0, 200.0)];
//! let limit = Limit { name: "disk IOPS".into(), value: 250.0, shared: false };
//! let over = throttling(&points, "design #1", &limit);
//! assert_eq!((over.intervals_over, over.intervals), (1, 3));
//! assert!((over.worst_over_pct - 20.0).abs() < 1e-9);
//! ```

use crate::chart::{Band, Series, BAND_AMBER, BAND_RED};
use crate::html::{HtmlReport, Table};
use iofit_model::requirements::SizingTarget;
use iofit_model::timeline::TimelinePoint;
use iofit_predict::{LimitKind, Prediction};

/// One limit drawn across the chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Limit {
    pub name: String,
    /// In the chart's unit (IOPS or MB/s).
    pub value: f64,
    /// A VM limit every volume on the same path (cached or uncached) shares: compared with
    /// those volumes' rates added up, not with this volume's alone.
    pub shared: bool,
}

/// Which rate a limit caps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rate {
    Iops,
    ThroughputMbS,
}

impl Rate {
    fn kinds(self) -> [LimitKind; 4] {
        match self {
            Rate::Iops => [
                LimitKind::VolumeIops,
                LimitKind::DiskIops,
                LimitKind::VmCachedIops,
                LimitKind::VmUncachedIops,
            ],
            Rate::ThroughputMbS => [
                LimitKind::VolumeThroughput,
                LimitKind::DiskThroughput,
                LimitKind::VmCachedThroughput,
                LimitKind::VmUncachedThroughput,
            ],
        }
    }
}

/// The limits of `prediction` that cap `label`'s `rate`: the volume's own (its stripe, or its
/// one disk) and the VM's cached limit for a volume with host caching, its uncached one
/// otherwise (shared by every such volume of the VM, so the volume alone reaches it only when
/// the others are idle).
pub fn limits_of(prediction: &Prediction, label: &str, rate: Rate) -> Vec<Limit> {
    let [volume, disk, vm_cached, vm_uncached] = rate.kinds();
    let mut limits = Vec::new();
    let own = [volume, disk]
        .iter()
        .find_map(|kind| prediction.limit(*kind, label));
    if let Some(value) = own.and_then(|check| check.limit) {
        let name = own.map(|c| c.name.as_str()).unwrap_or_default();
        limits.push(Limit {
            name: format!("{label}: {name}"),
            value,
            shared: false,
        });
    }
    let cached = prediction
        .volumes
        .iter()
        .find(|v| v.label == label)
        .is_some_and(|v| v.caching.is_cached());
    let vm_kind = if cached { vm_cached } else { vm_uncached };
    if let Some(check) = prediction.limit(vm_kind, "vm") {
        if let Some(value) = check.limit {
            limits.push(Limit {
                name: format!(
                    "{} (all {} volumes together)",
                    check.name,
                    if cached { "cached" } else { "uncached" }
                ),
                value,
                shared: true,
            });
        }
    }
    limits
}

/// The IOPS limits of [`limits_of`] as `(name, IOPS)` pairs.
pub fn iops_limits_of(prediction: &Prediction, label: &str) -> Vec<(String, f64)> {
    limits_of(prediction, label, Rate::Iops)
        .into_iter()
        .map(|l| (l.name, l.value))
        .collect()
}

/// How often, and how far, a workload went over one limit.
#[derive(Clone, Debug, PartialEq)]
pub struct Throttling {
    pub design: String,
    pub limit: String,
    pub limit_value: f64,
    /// Intervals whose rate was above the limit.
    pub intervals_over: usize,
    pub intervals: usize,
    /// The highest interval's rate above the limit, percent of the limit (0 when never over).
    pub worst_over_pct: f64,
}

impl Throttling {
    pub fn share_pct(&self) -> f64 {
        if self.intervals == 0 {
            0.0
        } else {
            100.0 * self.intervals_over as f64 / self.intervals as f64
        }
    }
}

/// Counts the `points` (time, rate) above `limit`.
pub fn throttling(points: &[(f64, f64)], design: &str, limit: &Limit) -> Throttling {
    let over: Vec<f64> = points
        .iter()
        .map(|p| p.1)
        .filter(|rate| *rate > limit.value)
        .collect();
    let worst = over.iter().copied().fold(limit.value, f64::max);
    Throttling {
        design: design.to_string(),
        limit: limit.name.clone(),
        limit_value: limit.value,
        intervals_over: over.len(),
        intervals: points.iter().filter(|p| p.1.is_finite()).count(),
        worst_over_pct: if limit.value > 0.0 {
            100.0 * (worst - limit.value) / limit.value
        } else {
            0.0
        },
    }
}

/// Bands over the intervals (x in minutes) whose rate is above `threshold`: each interval runs
/// from its time to the next sample's (the last one as long as the one before); touching
/// intervals merge into one band.
pub fn bands_over(
    points: &[(f64, f64)],
    threshold: f64,
    name: &str,
    colour: &'static str,
) -> Vec<Band> {
    let mut bands: Vec<Band> = Vec::new();
    for (index, (x, rate)) in points.iter().enumerate() {
        if rate.partial_cmp(&threshold) != Some(std::cmp::Ordering::Greater) {
            continue;
        }
        let to = match (
            points.get(index + 1),
            index.checked_sub(1).map(|i| points[i]),
        ) {
            (Some(next), _) => next.0,
            (None, Some(previous)) => x + (x - previous.0),
            (None, None) => *x,
        };
        match bands.last_mut() {
            Some(last) if (last.to_x - x).abs() < 1e-9 => last.to_x = to,
            _ => bands.push(Band {
                from_x: *x,
                to_x: to,
                name: name.to_string(),
                colour,
            }),
        }
    }
    bands
}

/// A design whose limits the charts draw.
pub struct DesignOnChart<'a> {
    /// e.g. "design #1 (Standard_DS3)".
    pub name: String,
    pub prediction: &'a Prediction,
    /// The planned design (drawn solid, shaded red) or a cheaper one (dashed, amber).
    pub planned: bool,
}

/// One volume's timeline and what it was sized to.
pub struct VolumeTimeline<'a> {
    pub label: &'a str,
    pub points: &'a [TimelinePoint],
    pub sizing: &'a SizingTarget,
    /// How the sized figures were derived, e.g. "p95 x 1.3".
    pub sized_words: &'a str,
    /// IOs the planned design keeps outstanding on the volume, when known.
    pub planned_queue_depth: Option<f64>,
    /// The other volumes on the same VM path (host-cached or not) in the planned design: the
    /// VM's limit for that path caps their rates added up.
    pub shared_with: Vec<&'a [TimelinePoint]>,
}

/// The volume's four charts (IOPS and MB/s with the designs' limits and the intervals over
/// them shaded, latency, queue depth) and a table of how often each limit would have been
/// passed.
pub fn volume_charts(
    mut html: HtmlReport,
    volume: &VolumeTimeline,
    designs: &[DesignOnChart],
) -> HtmlReport {
    let minutes = |value: fn(&TimelinePoint) -> f64| -> Vec<(f64, f64)> {
        volume
            .points
            .iter()
            .map(|p| (p.time_s.get() / 60.0, value(p)))
            .filter(|p| p.1.is_finite())
            .collect()
    };
    let mut table = Table::new(
        format!(
            "{}: intervals of the capture over each limit (the workload would have been \
             throttled there)",
            volume.label
        ),
        &[
            "design",
            "limit",
            "value",
            "intervals over",
            "share",
            "worst interval",
        ],
    );
    let mut charts = Vec::new();
    let mut verdicts = Vec::new();
    for (rate, unit, sized) in [
        (Rate::Iops, "IOPS", volume.sizing.iops.get()),
        (
            Rate::ThroughputMbS,
            "MB/s",
            volume.sizing.throughput_mb_s.get(),
        ),
    ] {
        let points = match rate {
            Rate::Iops => minutes(TimelinePoint::iops),
            Rate::ThroughputMbS => minutes(|p| p.throughput_mb_s.get()),
        };
        if points.is_empty() {
            continue;
        }
        let above_sized = points.iter().filter(|p| p.1 > sized).count();
        verdicts.push(format!(
            "{unit}: above the sized {} in {above_sized} of {} intervals ({:.1}%); highest \
             interval {}.",
            number(sized),
            points.len(),
            100.0 * above_sized as f64 / points.len() as f64,
            number(points.iter().map(|p| p.1).fold(0.0, f64::max))
        ));
        let shared = shared_points(&points, &volume.shared_with, rate);
        let chart = rate_chart(volume, designs, &points, &shared, rate, unit, sized);
        for row in chart.rows {
            table = table.row(row);
        }
        verdicts.extend(chart.verdicts);
        charts.push((
            format!("{}: {unit} over the capture", volume.label),
            unit,
            chart.series,
            chart.bands,
        ));
    }
    let explained = if designs.is_empty() {
        "The sized figure is what a design must sustain; intervals above it are the peaks the \
         sizing percentile leaves out (a design's headroom absorbs them or they are throttled)."
    } else {
        "Each interval of the capture whose rate is above a design's limit would have been \
         throttled on that design (shaded: red for design #1, amber for the next cheaper VM)."
    };
    html = html.section(
        format!("{}: the workload over the capture", volume.label),
        format!("{explained}\n\n{}", verdicts.join("\n\n")),
    );
    for (title, unit, series, bands) in charts {
        html = html.chart_banded(
            title,
            "minutes since the capture's start",
            unit,
            series,
            bands,
        );
    }
    html = latency_and_queue_depth(
        html,
        volume,
        &minutes(|p| p.latency_ms.get()),
        &minutes(|p| p.queue_depth),
    );
    if table.rows.is_empty() {
        html
    } else {
        html.table(table)
    }
}

/// `points` (minutes, rate) with the rates of `others` at the same moments added: what a VM
/// limit shared by these volumes sees. A volume missing from a report (`iostat -z` leaves an
/// idle device out) adds nothing there.
fn shared_points(
    points: &[(f64, f64)],
    others: &[&[TimelinePoint]],
    rate: Rate,
) -> Vec<(f64, f64)> {
    let value = |p: &TimelinePoint| match rate {
        Rate::Iops => p.iops(),
        Rate::ThroughputMbS => p.throughput_mb_s.get(),
    };
    points
        .iter()
        .map(|&(minute, own)| {
            let rest: f64 = others
                .iter()
                .filter_map(|timeline| {
                    timeline
                        .iter()
                        .find(|p| (p.time_s.get() / 60.0 - minute).abs() < 1e-9)
                        .map(value)
                        .filter(|v| v.is_finite())
                })
                .sum();
            (minute, own + rest)
        })
        .collect()
}

/// One rate's chart and what it says.
struct RateChart {
    series: Vec<Series>,
    bands: Vec<Band>,
    /// The table's rows: one per design and limit.
    rows: Vec<Vec<String>>,
    /// One sentence per design: how often, and how far, it would have throttled.
    verdicts: Vec<String>,
}

/// One rate's chart: the workload, the sized line, each design's limits, the bands over them,
/// the table rows and one sentence per design saying how often it would have throttled.
fn rate_chart(
    volume: &VolumeTimeline,
    designs: &[DesignOnChart],
    points: &[(f64, f64)],
    shared: &[(f64, f64)],
    rate: Rate,
    unit: &str,
    sized: f64,
) -> RateChart {
    let (first, last) = (points[0].0, points[points.len() - 1].0);
    let across = |value: f64| vec![(first, value), (last, value)];
    let mut series = vec![
        Series::new(format!("profiled {unit}"), points.to_vec()).coloured(0),
        Series::new(
            format!("sized: {} {unit} ({})", number(sized), volume.sized_words),
            across(sized),
        )
        .coloured(6)
        .dashed(),
    ];
    if volume.shared_with.is_empty() {
        // Alone on its VM path: the VM limit sees this volume's rate.
    } else {
        series.push(
            Series::new(
                format!("{unit} of the volumes sharing its VM limit, together"),
                shared.to_vec(),
            )
            .coloured(4),
        );
    }
    let mut bands = Vec::new();
    let mut rows = Vec::new();
    let mut verdicts = Vec::new();
    let mut drawn: Vec<f64> = Vec::new();
    for (index, design) in designs.iter().enumerate() {
        let limits = limits_of(design.prediction, volume.label, rate);
        if limits.is_empty() {
            continue;
        }
        let seen = |limit: &Limit| if limit.shared { shared } else { points };
        let counts: Vec<Throttling> = limits
            .iter()
            .map(|limit| throttling(seen(limit), &design.name, limit))
            .collect();
        // An interval throttles when any limit is passed: 1 where it does, for the bands.
        let over: Vec<(f64, f64)> = points
            .iter()
            .enumerate()
            .map(|(i, (minute, _))| {
                let passed = limits
                    .iter()
                    .any(|l| seen(l).get(i).is_some_and(|p| p.1 > l.value));
                (*minute, if passed { 1.0 } else { 0.0 })
            })
            .collect();
        let intervals_over = over.iter().filter(|p| p.1 > 0.5).count();
        verdicts.push(design_verdict(
            volume.label,
            unit,
            design,
            &limits,
            &counts,
            intervals_over,
            points.len(),
        ));
        let colour = if design.planned { BAND_RED } else { BAND_AMBER };
        let band_name = format!("over {}'s limits", design.name);
        // The planned design's bands go last, drawn over the cheaper design's.
        let design_bands = bands_over(&over, 0.5, &band_name, colour);
        if design.planned {
            bands.extend(design_bands);
        } else {
            bands.splice(0..0, design_bands);
        }
        for (limit_index, (limit, counted)) in limits.iter().zip(&counts).enumerate() {
            rows.push(vec![
                design.name.clone(),
                limit.name.clone(),
                format!("{} {unit}", number(limit.value)),
                format!("{} of {}", counted.intervals_over, counted.intervals),
                format!("{:.1}%", counted.share_pct()),
                if counted.intervals_over == 0 {
                    "never over".to_string()
                } else {
                    format!("{:.0}% over the limit", counted.worst_over_pct)
                },
            ]);
            // A cheaper design with the same disks has the same volume limit: draw it once.
            if drawn.iter().any(|v| (v - limit.value).abs() < 1e-9) {
                continue;
            }
            drawn.push(limit.value);
            let line = Series::new(
                format!("{}: {} {}", design.name, limit.name, number(limit.value)),
                across(limit.value),
            )
            .coloured([5, 3, 1, 2][(index * 2 + limit_index) % 4]);
            series.push(if design.planned { line } else { line.dashed() });
        }
    }
    RateChart {
        series,
        bands,
        rows,
        verdicts,
    }
}

/// One sentence: whether, how often and how far `design` would have throttled the volume.
fn design_verdict(
    label: &str,
    unit: &str,
    design: &DesignOnChart,
    limits: &[Limit],
    counts: &[Throttling],
    intervals_over: usize,
    intervals: usize,
) -> String {
    let worst = limits
        .iter()
        .zip(counts)
        .filter(|(_, c)| c.intervals_over > 0)
        .max_by(|a, b| a.1.worst_over_pct.total_cmp(&b.1.worst_over_pct));
    match worst {
        None => format!(
            "{unit}: {} would never have throttled {label} (every {unit} limit above every \
             interval).",
            design.name
        ),
        Some((limit, count)) => format!(
            "{unit}: {} would have throttled {label} in {intervals_over} of {intervals} \
             intervals ({:.1}% of the capture), at worst {:.0}% over {} ({} {unit}).",
            design.name,
            100.0 * intervals_over as f64 / intervals.max(1) as f64,
            count.worst_over_pct,
            limit.name,
            number(limit.value)
        ),
    }
}

/// Latency (with the latency target, when the requirements have one) and queue depth (with
/// the outstanding IOs the planned design keeps, when known) over the capture.
fn latency_and_queue_depth(
    mut html: HtmlReport,
    volume: &VolumeTimeline,
    latency: &[(f64, f64)],
    queue_depth: &[(f64, f64)],
) -> HtmlReport {
    let across = |points: &[(f64, f64)], value: f64| {
        vec![(points[0].0, value), (points[points.len() - 1].0, value)]
    };
    if !latency.is_empty() {
        let mut series =
            vec![Series::new("profiled latency, ms (await)", latency.to_vec()).coloured(0)];
        if let Some(target) = volume.sizing.latency_ms.map(|ms| ms.get()) {
            series.push(
                Series::new(
                    format!("latency target {} ms", number(target)),
                    across(latency, target),
                )
                .coloured(6)
                .dashed(),
            );
        }
        html = html.chart(
            format!(
                "{}: mean time per IO over the capture (iostat await)",
                volume.label
            ),
            "minutes since the capture's start",
            "ms",
            series,
        );
    }
    if !queue_depth.is_empty() {
        let mut series =
            vec![
                Series::new("profiled IOs outstanding (aqu-sz)", queue_depth.to_vec()).coloured(0),
            ];
        if let Some(planned) = volume.planned_queue_depth {
            series.push(
                Series::new(
                    format!(
                        "the plan's queue depth: {} outstanding IOs",
                        number(planned)
                    ),
                    across(queue_depth, planned),
                )
                .coloured(5),
            );
        }
        html = html.chart(
            format!("{}: IOs outstanding over the capture", volume.label),
            "minutes since the capture's start",
            "IOs outstanding",
            series,
        );
    }
    html
}

/// One volume of the requirements over a capture: the points its devices give there, empty
/// when the capture does not hold them. The caller reads them from the capture
/// (`iofit_profile::volume_timeline`), so this crate only draws.
#[derive(Clone, Debug)]
pub struct CapturedVolume {
    pub label: String,
    pub points: Vec<TimelinePoint>,
}

/// Every volume of `requirements` that names its devices, drawn from its `captured` points: its workload
/// over the capture with the sizing line, and the limits of the plan's design #1 and of
/// `cheaper` (design #1's volumes on the next cheaper VM) when given. A volume whose devices
/// are not in the capture is said so in one line rather than drawn empty.
pub fn capture_charts(
    mut html: HtmlReport,
    captured: &[CapturedVolume],
    requirements: &iofit_model::Requirements,
    sized_words: &str,
    plan: Option<&iofit_planner::Plan>,
    cheaper: Option<&iofit_planner::CheaperDesign>,
) -> HtmlReport {
    let top = plan.and_then(|p| p.designs.first());
    let mut designs = Vec::new();
    if let Some(top) = top {
        designs.push(DesignOnChart {
            name: format!("design #1 ({})", top.vm),
            prediction: &top.prediction,
            planned: true,
        });
    }
    if let Some(cheaper) = cheaper {
        designs.push(DesignOnChart {
            name: format!("{} (next cheaper VM, same disks)", cheaper.vm),
            prediction: &cheaper.prediction,
            planned: false,
        });
    }
    let mut missing = Vec::new();
    let mut drawn = Vec::new();
    for volume in &requirements.volumes {
        let points = captured
            .iter()
            .find(|c| c.label == volume.label)
            .map(|c| c.points.clone())
            .unwrap_or_default();
        if volume.devices.is_empty() || points.is_empty() {
            missing.push(format!(
                "{}: devices [{}] not in the capture",
                volume.label,
                volume.devices.join(", ")
            ));
        } else {
            drawn.push((volume, points));
        }
    }
    // The VM path (host-cached or not) of each volume in the planned design.
    let cached = |label: &str| {
        top.and_then(|t| t.volumes.iter().find(|v| v.label == label))
            .map(|v| v.caching.is_cached())
    };
    for (volume, points) in &drawn {
        let planned_queue_depth = top
            .and_then(|t| t.volumes.iter().find(|v| v.label == volume.label))
            .map(|v| f64::from(v.queue_depth_total));
        let path = cached(&volume.label);
        let shared_with = drawn
            .iter()
            .filter(|(other, _)| other.label != volume.label)
            .filter(|(other, _)| path.is_some() && cached(&other.label) == path)
            .map(|(_, other_points)| other_points.as_slice())
            .collect();
        let timeline = VolumeTimeline {
            label: &volume.label,
            points,
            sizing: &volume.sizing,
            sized_words,
            planned_queue_depth,
            shared_with,
        };
        html = volume_charts(html, &timeline, &designs);
    }
    if !missing.is_empty() {
        html = html.section("Volumes not drawn over time", missing.join("\n\n"));
    }
    html
}

/// Grouped thousands for large figures, two decimals for small ones.
fn number(value: f64) -> String {
    if value.abs() < 100.0 {
        format!("{:.2}", value)
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    } else {
        iofit_model::units::group_thousands(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throttling_counts_the_intervals_over_and_the_worst_excess() {
        let points = [(0.0, 100.0), (1.0, 300.0), (2.0, 200.0), (3.0, 500.0)];
        let limit = Limit {
            name: "disk".into(),
            value: 250.0,
            shared: false,
        };
        let over = throttling(&points, "d", &limit);
        assert_eq!(over.intervals_over, 2);
        assert_eq!(over.intervals, 4);
        assert!((over.share_pct() - 50.0).abs() < 1e-9);
        assert!((over.worst_over_pct - 100.0).abs() < 1e-9);
        let never = throttling(
            &points,
            "d",
            &Limit {
                name: "vm".into(),
                value: 1000.0,
                shared: true,
            },
        );
        assert_eq!((never.intervals_over, never.worst_over_pct), (0, 0.0));
    }

    /// A VM limit shared by two volumes sees their rates added up, moment by moment; a
    /// volume missing from a report adds nothing there. Each volume alone stays under a
    /// 250 IOPS limit that the two together pass twice.
    #[test]
    fn a_shared_vm_limit_sees_the_volumes_together() {
        let point = |time_s: f64, iops: f64| TimelinePoint {
            time_s: iofit_model::units::Seconds(time_s),
            read_iops: iofit_model::Iops(iops),
            write_iops: iofit_model::Iops(0.0),
            throughput_mb_s: iofit_model::MBps(f64::NAN),
            latency_ms: iofit_model::units::Millis(f64::NAN),
            queue_depth: f64::NAN,
        };
        let own = [(0.0, 100.0), (1.0, 200.0), (2.0, 150.0)];
        let other = [point(0.0, 100.0), point(60.0, 100.0), point(120.0, 150.0)];
        let other_missing_a_report = [point(0.0, 10.0), point(120.0, 10.0)];
        let shared = shared_points(&own, &[&other, &other_missing_a_report], Rate::Iops);
        assert_eq!(shared, vec![(0.0, 210.0), (1.0, 300.0), (2.0, 310.0)]);
        let limit = Limit {
            name: "VM uncached IOPS".into(),
            value: 250.0,
            shared: true,
        };
        assert_eq!(throttling(&own, "d", &limit).intervals_over, 0);
        assert_eq!(throttling(&shared, "d", &limit).intervals_over, 2);
    }

    #[test]
    fn bands_cover_the_intervals_over_and_merge_touching_ones() {
        let points = [(0.0, 1.0), (1.0, 9.0), (2.0, 9.0), (3.0, 1.0), (4.0, 9.0)];
        let bands = bands_over(&points, 5.0, "over", BAND_RED);
        let spans: Vec<(f64, f64)> = bands.iter().map(|b| (b.from_x, b.to_x)).collect();
        // Intervals 1 and 2 touch: one band 1..3; the last interval lasts as long as the one
        // before it: 4..5.
        assert_eq!(spans, vec![(1.0, 3.0), (4.0, 5.0)]);
        // The band width adds up to the intervals over x their length.
        let width: f64 = spans.iter().map(|(a, b)| b - a).sum();
        assert_eq!(width, 3.0);
    }
}
