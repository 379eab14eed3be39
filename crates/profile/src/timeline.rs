//! A volume's workload over the capture, report by report: what a report draws beside the
//! sizing percentile and a design's limits, so that one look shows when (and by how much) the
//! workload would have throttled.

use crate::{Capture, VolumeSpec};

/// One report of one volume: its devices added up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimelinePoint {
    /// Seconds since the capture's start (the report's index x interval when the source has
    /// no times).
    pub time_s: f64,
    pub read_iops: f64,
    pub write_iops: f64,
    /// MB/s with 1 MB = 10^6 bytes (Azure's unit); NaN when the source has no byte counters.
    pub throughput_mb_s: f64,
}

impl TimelinePoint {
    pub fn iops(&self) -> f64 {
        self.read_iops + self.write_iops
    }
}

/// The reports in which every device of `spec` has a sample, in order. `iostat -z` leaves an
/// idle device out of a report; such a report is left out here too (the chart shows what
/// was measured, never a filled-in zero).
pub fn volume_timeline(capture: &Capture, spec: &VolumeSpec) -> Vec<TimelinePoint> {
    let reports = capture.reports();
    let mut sums = vec![(0u32, 0.0f64, 0.0f64, 0.0f64); reports];
    for name in &spec.devices {
        let Some(series) = capture.devices.iter().find(|d| &d.name == name) else {
            return Vec::new();
        };
        for sample in &series.samples {
            if let Some(sum) = sums.get_mut(sample.report as usize) {
                sum.0 += 1;
                sum.1 += sample.read_iops;
                sum.2 += sample.write_iops;
                sum.3 += sample.read_bytes_s + sample.write_bytes_s;
            }
        }
    }
    let interval = capture.interval_s.unwrap_or(1.0);
    sums.iter()
        .enumerate()
        .filter(|(_, sum)| sum.0 as usize == spec.devices.len())
        .map(|(report, sum)| {
            let time = capture
                .report_time_s
                .get(report)
                .copied()
                .unwrap_or(f64::NAN);
            TimelinePoint {
                time_s: if time.is_finite() {
                    time
                } else {
                    report as f64 * interval
                },
                read_iops: sum.1,
                write_iops: sum.2,
                throughput_mb_s: sum.3 / 1e6,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example server's capture: 720 reports of 10 s; the timeline adds sdb's reads and
    /// writes per report, and its IOPS agree with the profile's p50 of the same samples.
    #[test]
    fn the_example_capture_gives_one_point_per_report() {
        let capture = crate::example::db_server_capture().unwrap();
        let data = &crate::example::db_server_volumes()[0];
        let points = volume_timeline(&capture, data);
        assert_eq!(points.len(), capture.reports());
        assert!(points.windows(2).all(|w| w[1].time_s > w[0].time_s));
        let mut iops: Vec<f64> = points.iter().map(TimelinePoint::iops).collect();
        let median = crate::summarize::percentile(&mut iops, 50.0).unwrap();
        assert!((median - 3605.83).abs() < 1.0, "{median}");
        for point in &points {
            assert!(point.read_iops >= 0.0 && point.write_iops >= 0.0);
            assert!(point.throughput_mb_s.is_finite());
        }
    }

    #[test]
    fn a_device_not_in_the_capture_gives_no_points() {
        let capture = crate::example::db_server_capture().unwrap();
        let spec = VolumeSpec {
            label: "x".into(),
            devices: vec!["nvme9n1".into()],
        };
        assert!(volume_timeline(&capture, &spec).is_empty());
    }
}
