//! The picture a reader of the method wants most: a volume's profiled workload over the
//! capture, with the sizing line and a design's limits drawn across it, so one look shows when
//! and by how much the workload would have throttled on that design.

use crate::chart::Series;
use iofit_predict::{LimitKind, Prediction};

/// The limits of `prediction` that cap `label`'s IOPS: the volume's own (its stripe, or its one
/// disk) and the VM's cached IOPS for a volume with host caching, its uncached IOPS otherwise
/// (shared by every such volume of the VM, so the volume alone reaches it only when the others
/// are idle). `(name, IOPS)`.
pub fn iops_limits_of(prediction: &Prediction, label: &str) -> Vec<(String, f64)> {
    let mut limits = Vec::new();
    let own = [LimitKind::VolumeIops, LimitKind::DiskIops];
    let volume_limit = own.iter().find_map(|kind| prediction.limit(*kind, label));
    if let Some(check) = volume_limit {
        if let Some(value) = check.limit {
            limits.push((format!("{label}: {}", check.name), value));
        }
    }
    let cached = prediction
        .volumes
        .iter()
        .find(|v| v.label == label)
        .is_some_and(|v| v.caching.is_cached());
    let vm_kind = if cached {
        LimitKind::VmCachedIops
    } else {
        LimitKind::VmUncachedIops
    };
    if let Some(check) = prediction.limit(vm_kind, "vm") {
        if let Some(value) = check.limit {
            limits.push((format!("{} (whole VM)", check.name), value));
        }
    }
    limits
}

/// The series of the chart: the workload's IOPS per sample (`points`: seconds since the
/// capture's start, IOPS), the sized IOPS and each limit as a horizontal line over the same
/// time span, the x axis in minutes.
pub fn iops_over_time(
    points: &[(f64, f64)],
    sized_iops: f64,
    sized_words: &str,
    limits: &[(String, f64)],
) -> Vec<Series> {
    let minutes: Vec<(f64, f64)> = points.iter().map(|(t, y)| (t / 60.0, *y)).collect();
    let (Some(first), Some(last)) = (minutes.first(), minutes.last()) else {
        return Vec::new();
    };
    let across = |value: f64| vec![(first.0, value), (last.0, value)];
    let over = |limit: f64| minutes.iter().filter(|(_, y)| *y > limit).count();
    let mut series = vec![
        Series::new("profiled IOPS", minutes.clone()),
        Series::new(format!("sized: {sized_words}"), across(sized_iops)),
    ];
    for (name, value) in limits {
        let above = over(*value);
        let words = if above == 0 {
            format!("{name} (never reached)")
        } else {
            format!("{name} (above in {above} of {} samples)", minutes.len())
        };
        series.push(Series::new(words, across(*value)));
    }
    series
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_flat_lines_over_the_capture_and_say_how_often_they_were_passed() {
        let points = [(0.0, 100.0), (60.0, 300.0), (120.0, 200.0)];
        let limits = vec![("disk".to_string(), 250.0), ("vm".to_string(), 1000.0)];
        let series = iops_over_time(&points, 260.0, "p95 x 1.3", &limits);
        assert_eq!(series.len(), 4);
        assert_eq!(
            series[0].points,
            vec![(0.0, 100.0), (1.0, 300.0), (2.0, 200.0)]
        );
        assert_eq!(series[1].points, vec![(0.0, 260.0), (2.0, 260.0)]);
        assert_eq!(series[2].name, "disk (above in 1 of 3 samples)");
        assert_eq!(series[3].name, "vm (never reached)");
    }

    #[test]
    fn no_samples_no_series() {
        assert!(iops_over_time(&[], 1.0, "x", &[]).is_empty());
    }
}
