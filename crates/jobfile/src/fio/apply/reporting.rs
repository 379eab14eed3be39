//! Reporting options: logs and their intervals, percentiles, unified read/write reporting and
//! significant figures.

use super::context::{Arg, Ctx, R};
use crate::values::{parse_u32, parse_u64};
use std::time::Duration;

/// fio's `write_bw_log`/`write_iops_log`/`write_lat_log`: the value is the file prefix (bare:
/// the job's name, as fio does). Settled in `finish` (needs log_avg_msec).
pub(crate) fn write_log(c: &mut Ctx, arg: &Arg) -> R {
    let prefix = match arg.value.map(str::trim).filter(|v| !v.is_empty()) {
        Some("0") => None,
        Some(v) => Some(v.to_string()),
        None => Some(c.job.name.clone()),
    };
    match arg.key {
        "write_bw_log" => c.job.logs.bw_prefix = prefix,
        "write_iops_log" => c.job.logs.iops_prefix = prefix,
        "write_hist_log" => c.job.logs.hist_prefix = prefix,
        _ => c.job.logs.lat_prefix = prefix,
    }
    c.b.log_at.get_or_insert_with(|| arg.loc.clone());
    Ok(())
}
pub(crate) fn log_avg_msec(c: &mut Ctx, arg: &Arg) -> R {
    let msec = parse_u64(arg.value()?)
        .map_err(|why| arg.invalid(why, "write a number of milliseconds such as 1000"))?;
    c.b.log_avg_msec = msec;
    if msec > 0 {
        c.job.log_interval = Duration::from_millis(msec);
    }
    Ok(())
}
/// fio's `log_hist_msec`: the histogram log's interval (iofit's series interval).
pub(crate) fn log_hist_msec(c: &mut Ctx, arg: &Arg) -> R {
    let msec = parse_u64(arg.value()?)
        .map_err(|why| arg.invalid(why, "write a number of milliseconds such as 1000"))?;
    c.b.log_hist_msec = msec;
    Ok(())
}
/// fio's `log_offset`, `log_unix_epoch`, `per_job_logs`: how the log files are written.
pub(crate) fn log_flag(c: &mut Ctx, arg: &Arg) -> R {
    let on = arg.flag()?;
    let logs = &mut c.job.logs;
    match arg.key {
        "log_offset" => logs.with_offset = on,
        "log_unix_epoch" => logs.unix_epoch = on,
        _ => logs.shared_file = !on,
    }
    Ok(())
}

/// fio's `clat_percentiles`: completion-latency percentiles in the report (on by default).
pub(crate) fn clat_percentiles(c: &mut Ctx, arg: &Arg) -> R {
    c.job.reporting.clat_percentiles = arg.flag()?;
    Ok(())
}
pub(crate) fn lat_percentiles(c: &mut Ctx, arg: &Arg) -> R {
    c.job.reporting.lat_percentiles = arg.flag()?;
    Ok(())
}
pub(crate) fn slat_percentiles(c: &mut Ctx, arg: &Arg) -> R {
    c.job.reporting.slat_percentiles = arg.flag()?;
    Ok(())
}
/// fio's `percentile_list=99:99.9:99.99`: at most 20 percentiles, each above 0 and at most 100,
/// reported in ascending order as fio reports them.
pub(crate) fn percentile_list(c: &mut Ctx, arg: &Arg) -> R {
    const FIX: &str =
        "write up to 20 percentiles between 0 and 100 joined by ':', such as 50:99:99.9";
    let mut list = Vec::new();
    for part in arg.value()?.split(':').map(str::trim) {
        let pct: f64 = part
            .parse()
            .map_err(|_| arg.invalid(format!("'{part}' is not a number"), FIX))?;
        if !(pct > 0.0 && pct <= 100.0) {
            return Err(arg.invalid(format!("{part} is not above 0 and at most 100"), FIX));
        }
        list.push(pct);
    }
    if list.len() > 20 {
        return Err(arg.invalid(
            format!("{} percentiles (fio keeps at most 20)", list.len()),
            FIX,
        ));
    }
    list.sort_by(f64::total_cmp);
    list.dedup();
    c.job.reporting.percentile_list = list;
    Ok(())
}
pub(crate) fn unified_rw_reporting(c: &mut Ctx, arg: &Arg) -> R {
    use iofit_model::job::UnifiedRw;
    c.job.reporting.unified_rw_reporting = match arg.value.map(str::trim).unwrap_or("1") {
        "none" | "0" => UnifiedRw::None,
        "mixed" | "1" => UnifiedRw::Mixed,
        "both" | "2" => UnifiedRw::Both,
        _ => {
            return Err(arg.invalid(
                "not a unified_rw_reporting mode",
                "write unified_rw_reporting=none, mixed or both (or 0, 1, 2)",
            ))
        }
    };
    Ok(())
}
/// fio's `significant_figures` (1..=10): digits of the rates in the text output.
pub(crate) fn significant_figures(c: &mut Ctx, arg: &Arg) -> R {
    let digits =
        parse_u32(arg.value()?).map_err(|why| arg.invalid(why, "write significant_figures=4"))?;
    let digits = arg.bounded(u64::from(digits), "0 digits")?;
    c.job.reporting.significant_figures = digits as u8;
    Ok(())
}
