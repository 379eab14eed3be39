//! What a plan must say before its designs: requirements that disagree with each other
//! (IOPS x IO size against the MB/s given) and requirements left out (capacity), so that a
//! plan never looks more certain than its input.

use crate::requirement_warning::{RequirementWarning, SizedBy};
use crate::types::PlannedDesign;
use iofit_model::Requirements;
use iofit_predict::LimitKind;

/// How far the MB/s given may exceed IOPS x IO size before the two contradict each other. A
/// profile sizes IOPS and MB/s each at its own percentile (their peaks fall at different
/// moments, with larger IOs at the MB/s peak) and the IO size as the capture's average, so
/// profiled requirements differ by tens of percent without being wrong; half again more MB/s
/// than the IOs can carry is no mix of peaks.
const AGREE_WITHIN: f64 = 0.5;

/// The warnings a plan prints on its first lines: per volume, MB/s given that IOPS x IO size
/// cannot reach (and which of the two sizes `best`, the cheapest design), and a capacity not
/// given. `bytes_per_mb` is the plan's MB.
pub fn requirement_warnings(
    requirements: &Requirements,
    bytes_per_mb: f64,
    best: Option<&PlannedDesign>,
) -> Vec<RequirementWarning> {
    let mut warnings = Vec::new();
    for volume in &requirements.volumes {
        let s = &volume.sizing;
        let label = &volume.label;
        let (io_size_bytes, required_mb_s) = (s.io_size_bytes.as_u64(), s.throughput_mb_s.get());
        let iops = s.iops.get();
        if iops > 0.0 && io_size_bytes > 0 && required_mb_s > 0.0 {
            let derived = iops * io_size_bytes as f64 / bytes_per_mb;
            if required_mb_s > derived * (1.0 + AGREE_WITHIN) {
                let size_for_both = required_mb_s * bytes_per_mb / iops;
                warnings.push(RequirementWarning::Disagree {
                    volume: label.clone(),
                    iops,
                    io_size_bytes,
                    derived_mb_s: derived,
                    required_mb_s,
                    iops_for_required_mb_s: required_mb_s * bytes_per_mb / io_size_bytes as f64,
                    io_size_for_both_bytes: size_for_both.ceil() as u64,
                    sized_by: which_sizes(best, label),
                });
            }
        }
        if s.capacity_gib.is_none() {
            warnings.push(RequirementWarning::NoCapacity {
                volume: label.clone(),
            });
        }
    }
    warnings
}

/// The one of the two rates with less headroom on the volume's own disks in the cheapest
/// design.
fn which_sizes(best: Option<&PlannedDesign>, label: &str) -> Option<SizedBy> {
    let design = best?;
    let headroom = |kinds: &[LimitKind]| {
        design
            .prediction
            .limits
            .iter()
            .filter(|c| c.scope == label && kinds.contains(&c.kind))
            .filter_map(|c| c.headroom_pct)
            .fold(f64::INFINITY, f64::min)
    };
    let iops_room = headroom(&[LimitKind::VolumeIops, LimitKind::DiskIops]);
    let mb_room = headroom(&[LimitKind::VolumeThroughput, LimitKind::DiskThroughput]);
    if !iops_room.is_finite() && !mb_room.is_finite() {
        return None;
    }
    Some(if iops_room <= mb_room {
        SizedBy::Iops
    } else {
        SizedBy::ThroughputMbS
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use iofit_model::{SizingTarget, VolumeRequirements};

    fn requirements(throughput_mb_s: f64, capacity_gib: Option<f64>) -> Requirements {
        Requirements {
            volumes: vec![VolumeRequirements {
                label: "data".into(),
                sizing: SizingTarget {
                    iops: iofit_model::Iops(16000.0),
                    throughput_mb_s: iofit_model::MBps(throughput_mb_s),
                    io_size_bytes: iofit_model::Bytes(8192),
                    read_pct: 70.0,
                    capacity_gib: capacity_gib.map(iofit_model::units::GiB),
                    ..Default::default()
                },
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn disagreeing_rates_and_a_missing_capacity_are_told_apart_by_kind() {
        // 16,000 IOPS x 8 KiB = 131 MB/s; 300 MB/s is more than half again as much.
        let warnings = requirement_warnings(&requirements(300.0, None), 1e6, None);
        assert_eq!(warnings.len(), 2);
        let RequirementWarning::Disagree {
            volume,
            derived_mb_s,
            iops_for_required_mb_s,
            io_size_for_both_bytes,
            sized_by,
            ..
        } = &warnings[0]
        else {
            panic!("{:?}", warnings[0]);
        };
        assert_eq!(volume, "data");
        assert!((derived_mb_s - 16000.0 * 8192.0 / 1e6).abs() < 1e-9);
        assert!((iops_for_required_mb_s - 300e6 / 8192.0).abs() < 1e-9);
        assert_eq!(*io_size_for_both_bytes, 18750);
        assert_eq!(*sized_by, None);
        assert_eq!(
            warnings[1],
            RequirementWarning::NoCapacity {
                volume: "data".into()
            }
        );
        assert!(warnings[0]
            .to_string()
            .starts_with("volume 'data': the requirements disagree: 16,000 IOPS x 8 KiB = 131 MB/s, but 300 MB/s"));
        // Within half again, with a capacity: nothing to say.
        assert!(requirement_warnings(&requirements(190.0, Some(100.0)), 1e6, None).is_empty());
    }

    #[test]
    fn in_json_a_warning_is_its_sentence_and_reads_back_as_recorded() {
        let warning = RequirementWarning::NoCapacity {
            volume: "logs".into(),
        };
        let json = serde_json::to_string(&warning).unwrap();
        assert_eq!(json, serde_json::to_string(&warning.to_string()).unwrap());
        let back: RequirementWarning = serde_json::from_str(&json).unwrap();
        assert_eq!(back, RequirementWarning::Recorded(warning.to_string()));
        assert_eq!(back.volume(), None);
    }
}
