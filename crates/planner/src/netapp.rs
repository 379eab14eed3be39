//! Azure NetApp Files: sizing one service level's quota.

use crate::disk_rules::fmt_num;
use crate::types::NetAppOption;
use iofit_catalog::NetAppServiceLevel;
use iofit_model::units::{MiBps, TiB};

/// Sizes one NetApp Files service level: quota = max(throughput / rate per TiB, capacity,
/// minimum quota). 4,500 MiB/s at Premium's rate gives its quota in TiB.
pub fn netapp_option(
    level: &NetAppServiceLevel,
    throughput_mib_s: f64,
    capacity_tib: TiB,
) -> NetAppOption {
    let rate = level.throughput_mib_s_per_tib.0;
    let by_throughput = if rate > 0.0 {
        throughput_mib_s / rate
    } else {
        f64::INFINITY
    };
    let quota = TiB(by_throughput)
        .max(capacity_tib)
        .max(level.quota_tib_min.unwrap_or_default());
    let fits_quota = level.quota_tib_max.is_none_or(|max| quota <= max);
    let fits_throughput = level
        .volume_throughput_mib_s_max
        .is_none_or(|max| throughput_mib_s <= max.0 * (1.0 + 1e-9));
    let mut note = format!(
        "{} MiB/s / {} MiB/s per TiB = {:.2} TiB",
        fmt_num(throughput_mib_s),
        fmt_num(rate),
        by_throughput
    );
    if quota > TiB(by_throughput) {
        note.push_str(&format!(
            "; quota raised to {:.2} TiB for capacity or the minimum",
            quota.get()
        ));
    }
    if !fits_throughput {
        note.push_str(&format!(
            "; above the level's single-volume maximum of {} MiB/s",
            fmt_num(
                level
                    .volume_throughput_mib_s_max
                    .map(|m| m.0)
                    .unwrap_or(0.0)
            )
        ));
    }
    if !fits_quota {
        note.push_str("; above the largest quota of one volume");
    }
    note.push_str("; IOPS per quota is not published (unknown)");
    NetAppOption {
        level: level.name.clone(),
        table: level.table.clone(),
        throughput_mib_s_per_tib: rate,
        throughput_needed_mib_s: MiBps(throughput_mib_s),
        capacity_needed_tib: capacity_tib,
        quota_tib: quota,
        throughput_mib_s: MiBps(quota.get() * rate),
        price_usd_month: level.price_usd_per_tib_month.map(|p| p * quota.get()),
        fits: fits_quota && fits_throughput,
        note,
    }
}
