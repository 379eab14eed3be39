//! The headroom rule: every sized limit keeps `min_headroom_pct` below it.

use crate::disk_rules::fmt_num;
use iofit_catalog::VmSize;
use iofit_predict::{LimitKind, LimitStatus, Prediction};

/// The limit kinds the headroom rule applies to: every limit the plan sizes against.
pub(crate) const HEADROOM_KINDS: &[LimitKind] = &[
    LimitKind::VmUncachedIops,
    LimitKind::VmUncachedThroughput,
    LimitKind::VmCachedIops,
    LimitKind::VmCachedThroughput,
    LimitKind::VolumeIops,
    LimitKind::VolumeThroughput,
    LimitKind::DiskIops,
    LimitKind::DiskThroughput,
    LimitKind::VmDataDisks,
];

/// The first sized limit whose headroom at the targets is below `min_pct`.
pub(crate) fn headroom_shortfall(
    prediction: &Prediction,
    min_pct: f64,
) -> Option<(LimitKind, String)> {
    if min_pct <= 0.0 {
        return None;
    }
    prediction
        .limits
        .iter()
        .filter(|c| HEADROOM_KINDS.contains(&c.kind) && c.limit.is_some())
        .filter(|c| !matches!(c.status, LimitStatus::Unknown | LimitStatus::Burst))
        .find_map(|c| {
            let pct = c.headroom_pct?;
            (pct < min_pct - 1e-9).then(|| {
                (
                    c.kind,
                    format!(
                        "{} has {:.0}% headroom at the targets ({} of {}{}), below the {}% kept \
                         (--min-headroom-pct)",
                        c.name,
                        pct,
                        fmt_num(c.used),
                        fmt_num(c.limit.unwrap_or(0.0)),
                        c.unit.suffix(),
                        fmt_num(min_pct)
                    ),
                )
            })
        })
}

/// Data-disk slots a design may use with the headroom kept: `floor(slots x (1 - h))`, at least 1.
pub(crate) fn slots_allowed(vm: &VmSize, min_headroom_pct: f64) -> u32 {
    let room = 1.0 - min_headroom_pct / 100.0;
    ((vm.max_data_disks as f64 * room + 1e-9).floor() as u32)
        .max(1)
        .min(vm.max_data_disks)
}
