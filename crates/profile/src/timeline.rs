//! A volume's workload over the capture, report by report: what a report draws beside the
//! sizing percentile and a design's limits, so that one look shows when (and by how much) the
//! workload would have throttled.

use crate::{Capture, VolumeSpec};
use iofit_model::units::{Iops, MBps, Millis, Seconds};

/// Where the points live: the result type is the model's, so a renderer needs no capture reader.
pub use iofit_model::timeline::TimelinePoint;

/// The reports in which every device of `spec` has a sample, in order. `iostat -z` leaves an
/// idle device out of a report; such a report is left out here too (the chart shows what
/// was measured, never a filled-in zero).
pub fn volume_timeline(capture: &Capture, spec: &VolumeSpec) -> Vec<TimelinePoint> {
    let reports = capture.reports();
    let mut sums = vec![Sums::default(); reports];
    for name in &spec.devices {
        let Some(series) = capture.devices.iter().find(|d| &d.name == name) else {
            return Vec::new();
        };
        for sample in &series.samples {
            if let Some(sum) = sums.get_mut(sample.report as usize) {
                sum.add(sample);
            }
        }
    }
    let interval = capture.interval_s.map_or(1.0, |s| s.get());
    sums.iter()
        .enumerate()
        .filter(|(_, sum)| sum.devices as usize == spec.devices.len())
        .map(|(report, sum)| {
            let time = capture
                .report_time_s
                .get(report)
                .copied()
                .unwrap_or(f64::NAN);
            TimelinePoint {
                time_s: Seconds(if time.is_finite() {
                    time
                } else {
                    report as f64 * interval
                }),
                read_iops: Iops(sum.read_iops),
                write_iops: Iops(sum.write_iops),
                throughput_mb_s: MBps(sum.bytes_s / 1e6),
                latency_ms: Millis(if sum.latency_weight > 0.0 {
                    sum.latency_weighted_ms / sum.latency_weight
                } else {
                    f64::NAN
                }),
                queue_depth: sum.queue_depth,
            }
        })
        .collect()
}

/// One report's devices added up.
#[derive(Clone, Copy, Debug, Default)]
struct Sums {
    devices: u32,
    read_iops: f64,
    write_iops: f64,
    bytes_s: f64,
    /// Sum of latency x IOPS over the devices and directions that have both.
    latency_weighted_ms: f64,
    /// Sum of the IOPS those latencies weigh.
    latency_weight: f64,
    queue_depth: f64,
}

impl Sums {
    fn add(&mut self, sample: &crate::DiskSample) {
        self.devices += 1;
        let (read_iops, write_iops) = (sample.read_iops.get(), sample.write_iops.get());
        self.read_iops += read_iops;
        self.write_iops += write_iops;
        self.bytes_s += sample.read_bytes_s.0 + sample.write_bytes_s.0;
        let split = [
            (sample.read_latency_ms.get(), read_iops),
            (sample.write_latency_ms.get(), write_iops),
        ];
        if split.iter().any(|(latency, _)| latency.is_finite()) {
            for (latency, iops) in split {
                self.weigh(latency, iops);
            }
        } else {
            self.weigh(sample.latency_ms.get(), read_iops + write_iops);
        }
        self.queue_depth += sample.queue_depth;
    }

    fn weigh(&mut self, latency_ms: f64, iops: f64) {
        if latency_ms.is_finite() && iops.is_finite() && iops > 0.0 {
            self.latency_weighted_ms += latency_ms * iops;
            self.latency_weight += iops;
        }
    }
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
            assert!(point.read_iops >= Iops(0.0) && point.write_iops >= Iops(0.0));
            assert!(point.throughput_mb_s.get().is_finite());
            assert!(point.latency_ms.get().is_finite() && point.latency_ms.get() >= 0.0);
            assert!(point.queue_depth.is_finite() && point.queue_depth >= 0.0);
        }
    }

    /// Little's law on each report: IOs outstanding = IOPS x mean time per IO. iostat computes
    /// aqu-sz from the time IOs spent queued and r_await/w_await from the same counters, so
    /// the timeline's queue depth and its IOPS x latency agree up to iostat's rounding (two
    /// decimals) wherever the volume is busy enough for the rounding not to dominate.
    #[test]
    fn queue_depth_is_iops_times_latency_on_every_busy_report() {
        let capture = crate::example::db_server_capture().unwrap();
        for spec in crate::example::db_server_volumes() {
            for point in volume_timeline(&capture, &spec) {
                if point.queue_depth < 0.5 {
                    continue;
                }
                let littles_law = point.iops() * point.latency_ms.get() / 1000.0;
                let error = (littles_law - point.queue_depth).abs() / point.queue_depth;
                assert!(
                    error < 0.05,
                    "{} at {}s: {point:?}",
                    spec.label,
                    point.time_s.get()
                );
            }
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
