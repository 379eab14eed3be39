//! What a plan must say before its designs: requirements that disagree with each other
//! (IOPS x IO size against the MB/s given) and requirements left out (capacity), so that a
//! plan never looks more certain than its input.

use crate::PlannedDesign;
use iofit_model::units::group_thousands;
use iofit_model::{Bytes, Requirements};
use iofit_predict::LimitKind;

/// How far the MB/s given may exceed IOPS x IO size before the two contradict each other. A
/// profile sizes IOPS and MB/s each at its own percentile (their peaks fall at different
/// moments, with larger IOs at the MB/s peak) and the IO size as the capture's average, so
/// profiled requirements differ by tens of percent without being wrong; half again more MB/s
/// than the IOs can carry is no mix of peaks.
const AGREE_WITHIN: f64 = 0.5;

fn num(value: f64) -> String {
    if value.abs() < 100.0 {
        format!("{value:.1}")
    } else {
        group_thousands(value.round())
    }
}

/// The warnings a plan prints on its first lines: per volume, MB/s given that IOPS x IO size
/// cannot reach (and which of the two sizes `best`, the cheapest design), and a capacity not
/// given. `bytes_per_mb` is the plan's MB.
pub fn requirement_warnings(
    requirements: &Requirements,
    bytes_per_mb: f64,
    best: Option<&PlannedDesign>,
) -> Vec<String> {
    let mut warnings = Vec::new();
    for volume in &requirements.volumes {
        let s = &volume.sizing;
        let label = &volume.label;
        if s.iops > 0.0 && s.io_size_bytes > 0 && s.throughput_mb_s > 0.0 {
            let derived = s.iops * s.io_size_bytes as f64 / bytes_per_mb;
            if s.throughput_mb_s > derived * (1.0 + AGREE_WITHIN) {
                let iops_for_mb = s.throughput_mb_s * bytes_per_mb / s.io_size_bytes as f64;
                let size_for_both = s.throughput_mb_s * bytes_per_mb / s.iops;
                warnings.push(format!(
                    "volume '{label}': the requirements disagree: {} IOPS x {} = {} MB/s, but {} \
                     MB/s is required (at {} per IO that takes {} IOPS; at {} IOPS, {} \
                     IOs); \
                     the plan meets both, each limit sized for its own number{}; check the IO \
                     size",
                    num(s.iops),
                    Bytes(s.io_size_bytes).readable(),
                    num(derived),
                    num(s.throughput_mb_s),
                    Bytes(s.io_size_bytes).readable(),
                    num(iops_for_mb),
                    num(s.iops),
                    Bytes(size_for_both.ceil() as u64).readable(),
                    which_sizes(best, label, s.iops, s.throughput_mb_s),
                ));
            }
        }
        if s.capacity_gib.is_none() {
            warnings.push(format!(
                "volume '{label}': no capacity given, so its disks are sized for IO only (the \
                 smallest that carry it) and may not hold the data; add sizing.capacity_gib to \
                 the requirements (or --capacity-gib)"
            ));
        }
    }
    warnings
}

/// ", so IOPS sizes design #1" or ", so MB/s ...": the one of the two with less headroom on
/// the volume's own disks in the cheapest design.
fn which_sizes(best: Option<&PlannedDesign>, label: &str, iops: f64, mb_s: f64) -> String {
    let Some(design) = best else {
        return String::new();
    };
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
        return String::new();
    }
    if iops_room <= mb_room {
        format!(", and {} IOPS is what sizes design #1's disks", num(iops))
    } else {
        format!(", and {} MB/s is what sizes design #1's disks", num(mb_s))
    }
}
