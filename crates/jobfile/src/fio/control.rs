//! fio options for pacing (`thinktime*`, `rate_min`, `rate_process`, `iodepth_batch*`), syncs
//! (`sync`, `fsync_on_close`, `end_syncfs`), files (`overwrite`, `openfiles`,
//! `file_service_type`) and run control (`exitall`, `cpus_allowed`, `nice`, `prio`): one small
//! function per option, as in `apply.rs`.

use super::apply::{Arg, Ctx};
use crate::error::JobFileError;
use crate::values::{parse_size, parse_time, parse_u32, parse_u64, split_per_ddir};
use iofit_model::job::JobNote;
use iofit_model::job::{
    IoPriority, JobSpec, LatencyTargetSpec, OpenSync, PerDirection, SteadyMetric, SteadyStateSpec,
};
use std::time::Duration;

type R = Result<(), JobFileError>;

/// fio reads `thinktime`, `thinktime_spin` in microseconds when no unit is given.
fn micros(arg: &Arg) -> Result<Duration, JobFileError> {
    parse_time(arg.value()?, Duration::from_micros(1)).map_err(|why| {
        arg.invalid(
            why,
            "write microseconds or a time with a unit: 100 (us), 500us, 2ms",
        )
    })
}

pub(crate) fn thinktime(c: &mut Ctx, arg: &Arg) -> R {
    c.job.pacing.think_time = micros(arg)?;
    Ok(())
}
pub(crate) fn thinktime_spin(c: &mut Ctx, arg: &Arg) -> R {
    c.job.pacing.think_spin = micros(arg)?;
    Ok(())
}
pub(crate) fn thinktime_blocks(c: &mut Ctx, arg: &Arg) -> R {
    c.job.pacing.think_blocks = arg.count()?;
    Ok(())
}
/// fio counts the IOs between pauses as completed (`complete`, its default) or issued.
pub(crate) fn thinktime_blocks_type(c: &mut Ctx, arg: &Arg) -> R {
    match arg.value()? {
        "complete" => Ok(()),
        "issue" => {
            c.accepted("thinktime_blocks_type", "thinktime_blocks_type=issue: iofit counts completed IOs between pauses (fio's default, complete); with iodepth=1 the two are the same");
            Ok(())
        }
        _ => Err(arg.invalid("not a thinktime_blocks_type", "write complete or issue")),
    }
}

/// Which of a job's rates an option sets (fio's `rate`, `rate_iops`, `rate_min`,
/// `rate_iops_min`): the index of its trim value in [`super::apply::Builder::trim_rates`].
#[derive(Clone, Copy)]
pub(crate) enum RateKind {
    Bytes = 0,
    Iops = 1,
    MinBytes = 2,
    MinIops = 3,
}

/// fio `rate=`: bytes per second per direction (0: no limit).
pub(crate) fn rate(c: &mut Ctx, arg: &Arg) -> R {
    let fix = "write bytes per second with a size suffix such as rate=10m (10 MiB/s), or rate=READ,WRITE[,TRIM]";
    c.job.rate_bytes_per_second = per_direction_rate(c, arg, RateKind::Bytes, fix)?;
    Ok(())
}
/// fio `rate_iops=`: IOs per second per direction (0: no limit).
pub(crate) fn rate_iops(c: &mut Ctx, arg: &Arg) -> R {
    let fix =
        "write a whole number of IOs per second such as rate_iops=12500, or READ,WRITE[,TRIM]";
    c.job.rate_iops = per_direction_rate(c, arg, RateKind::Iops, fix)?;
    Ok(())
}

/// A rate option's `READ,WRITE,TRIM` values (0: no limit): the read and write ones, and the
/// trim one kept for `finish`, which makes it a trim job's write entry (iofit paces a trim
/// job's trims by its write entry).
pub(crate) fn per_direction_rate(
    c: &mut Ctx,
    arg: &Arg,
    kind: RateKind,
    fix: &str,
) -> Result<PerDirection<Option<u64>>, JobFileError> {
    let bytes = matches!(kind, RateKind::Bytes | RateKind::MinBytes);
    let (read, write, trim) = split_per_ddir(arg.value()?).map_err(|why| arg.invalid(why, fix))?;
    let parse = |text: String| -> Result<Option<u64>, JobFileError> {
        let value = if bytes {
            parse_size(&text, c.base)
                .map_err(|why| arg.invalid(why, fix))?
                .as_u64()
        } else {
            // fio reads rate_iops as an integer option, which takes the size suffixes:
            // `3k` is 3 x kb_base (3,072 IOs per second by default).
            parse_u64(&text)
                .or_else(|why| {
                    parse_size(&text, c.base)
                        .map(|n| n.as_u64())
                        .map_err(|_| why)
                })
                .map_err(|why| arg.invalid(why, fix))?
        };
        Ok((value != 0).then_some(value))
    };
    let rates = PerDirection {
        read: read.map(parse).transpose()?.flatten(),
        write: write.map(parse).transpose()?.flatten(),
    };
    c.b.trim_rates[kind as usize] = Some(trim.map(parse).transpose()?.flatten());
    Ok(rates)
}

/// A trim job's rates are its trims' (the third value of each rate option), in the write
/// entry that paces its trims. In trimwrite the writes set the pace of the pairs (the trims
/// go unpaced), so their own values stay.
pub(crate) fn finish_trim_rates(job: &mut JobSpec, trim_rates: &[Option<Option<u64>>; 4]) {
    if !job.rw.has_trims() || job.rw.is_trimwrite() {
        return;
    }
    for (kind, trim) in trim_rates.iter().enumerate() {
        let Some(trim) = *trim else { continue };
        let slot = match kind {
            0 => &mut job.rate_bytes_per_second.write,
            1 => &mut job.rate_iops.write,
            2 => &mut job.pacing.min_bytes_per_second.write,
            _ => &mut job.pacing.min_iops.write,
        };
        *slot = trim;
    }
}
pub(crate) fn rate_min(c: &mut Ctx, arg: &Arg) -> R {
    let fix = "write bytes per second with a size suffix such as rate_min=1m, or READ,WRITE[,TRIM]";
    c.job.pacing.min_bytes_per_second = per_direction_rate(c, arg, RateKind::MinBytes, fix)?;
    Ok(())
}
pub(crate) fn rate_iops_min(c: &mut Ctx, arg: &Arg) -> R {
    let fix =
        "write a whole number of IOs per second such as rate_iops_min=100, or READ,WRITE[,TRIM]";
    c.job.pacing.min_iops = per_direction_rate(c, arg, RateKind::MinIops, fix)?;
    Ok(())
}
/// fio's `rate_cycle`: milliseconds when no unit is given.
pub(crate) fn rate_cycle(c: &mut Ctx, arg: &Arg) -> R {
    let cycle = parse_time(arg.value()?, Duration::from_millis(1))
        .map_err(|why| arg.invalid(why, "write milliseconds such as rate_cycle=1000"))?;
    if cycle.is_zero() {
        return Err(arg.invalid("a window of 0 ms", "write rate_cycle=1000 (fio's default)"));
    }
    c.job.pacing.rate_cycle = Some(cycle);
    Ok(())
}
pub(crate) fn rate_process(c: &mut Ctx, arg: &Arg) -> R {
    c.job.pacing.poisson = match arg.value()? {
        "linear" => false,
        "poisson" => true,
        _ => return Err(arg.invalid("not a rate process", "write rate_process=linear or poisson")),
    };
    Ok(())
}
/// `iodepth_batch` (alias `iodepth_batch_submit`): IOs per submit call; 0 means iodepth.
pub(crate) fn iodepth_batch(c: &mut Ctx, arg: &Arg) -> R {
    let batch = arg.count()?;
    c.job.pacing.submit_batch = Some(if batch == 0 { c.job.iodepth } else { batch });
    Ok(())
}
/// Completion batching and the refill watermark: iofit reaps whatever is complete and refills
/// to the full depth, which is fio's behaviour with these options at their defaults.
pub(crate) fn completion_batching(c: &mut Ctx, arg: &Arg) -> R {
    parse_u32(arg.value()?).map_err(|why| arg.invalid(why, "write a whole number"))?;
    c.note(JobNote::CompletionBatching {
        option: arg.key.to_string(),
    });
    Ok(())
}

/// fio's `sync`: 0/none, 1/sync (O_SYNC) or dsync (O_DSYNC).
pub(crate) fn sync(c: &mut Ctx, arg: &Arg) -> R {
    c.job.file_sync.open_sync = match arg.value.map(str::trim).unwrap_or("1") {
        "0" | "none" => OpenSync::None,
        "1" | "sync" => OpenSync::Sync,
        "dsync" => OpenSync::Dsync,
        _ => {
            return Err(arg.invalid(
                "not a sync mode",
                "write sync=1 (O_SYNC), sync=dsync (O_DSYNC) or sync=0",
            ))
        }
    };
    Ok(())
}
pub(crate) fn fsync_on_close(c: &mut Ctx, arg: &Arg) -> R {
    c.job.file_sync.fsync_on_close = arg.flag()?;
    Ok(())
}
pub(crate) fn end_syncfs(c: &mut Ctx, arg: &Arg) -> R {
    c.job.file_sync.end_syncfs = arg.flag()?;
    Ok(())
}

/// iofit writes every file in full before timing starts, so writes always land on allocated
/// blocks: fio's `overwrite=1`.
pub(crate) fn overwrite(c: &mut Ctx, arg: &Arg) -> R {
    if !arg.flag()? {
        c.accepted("overwrite", "overwrite=0: iofit lays out every file in full before timing starts, so writes overwrite allocated blocks (fio's overwrite=1) instead of extending a new file");
    }
    Ok(())
}
pub(crate) fn openfiles(c: &mut Ctx, arg: &Arg) -> R {
    let open = arg.count()?;
    if open == 0 {
        return Err(arg.invalid("no file open", "write openfiles=1 or more"));
    }
    c.note(JobNote::OpenFiles {
        count: u64::from(open),
    });
    Ok(())
}
/// iofit moves from file to file round-robin, one IO each: fio's default `roundrobin`.
/// fio's `file_service_type`: `roundrobin`, `sequential` or `random`, each with `:N` IOs per
/// choice; `zipf[:THETA]`, `pareto[:H]`, `normal[:DEV%]` (`gauss`), each with `:CENTER`
/// optional. fio's defaults: zipf 1.1, pareto 0.2, normal 0.
pub(crate) fn file_service_type(c: &mut Ctx, arg: &Arg) -> R {
    use iofit_model::job::{FileService, FileServiceKind, RandomDistribution};
    const FIX: &str = "write roundrobin, sequential or random (each with :N IOs per file, e.g. random:8), or zipf:1.2, pareto:0.2, normal:10 (gauss), each with an optional :CENTER in 0..1";
    let value = arg.value()?;
    let (kind, rest) = value
        .split_once(':')
        .map_or((value, None), |(k, r)| (k, Some(r)));
    let number = |text: &str| -> Result<f64, JobFileError> {
        text.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| arg.invalid(format!("'{text}' is not a number"), FIX))
    };
    // The skewed forms: the input, then an optional center.
    let skew = |default: f64| -> Result<(f64, Option<f64>), JobFileError> {
        let mut parts = rest
            .unwrap_or("")
            .split(':')
            .filter(|p| !p.trim().is_empty());
        let input = parts.next().map(number).transpose()?.unwrap_or(default);
        let center = parts.next().map(number).transpose()?;
        if center.is_some_and(|c| c > 1.0) {
            return Err(arg.invalid("the center is outside 0..1", FIX));
        }
        Ok((input, center))
    };
    let mut ios_per_choice = 1;
    let kind = match kind.trim() {
        name @ ("roundrobin" | "sequential" | "random") => {
            if let Some(count) = rest {
                // fio reads the suffix with atoi: a count of IOs per choice.
                ios_per_choice = crate::values::parse_u32(count)
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| arg.invalid(format!("'{count}' is not a count of IOs"), FIX))?;
            }
            match name {
                "roundrobin" => FileServiceKind::RoundRobin,
                "sequential" => FileServiceKind::Sequential,
                _ => FileServiceKind::Random,
            }
        }
        "zipf" => {
            let (theta, center) = skew(1.1)?;
            if theta == 0.0 || theta == 1.0 {
                return Err(arg.invalid("zipf needs a theta above 0 and not 1", FIX));
            }
            FileServiceKind::Skewed(RandomDistribution::Zipf { theta, center })
        }
        "pareto" => {
            let (h, center) = skew(0.2)?;
            if !(h > 0.0 && h < 1.0) {
                return Err(arg.invalid("pareto needs h between 0 and 1", FIX));
            }
            FileServiceKind::Skewed(RandomDistribution::Pareto { h, center })
        }
        "normal" | "gauss" => {
            let (deviation_pct, center) = skew(0.0)?;
            if deviation_pct > 100.0 {
                return Err(arg.invalid("the deviation is a percentage 0..100", FIX));
            }
            FileServiceKind::Skewed(RandomDistribution::Normal {
                deviation_pct,
                center,
            })
        }
        _ => return Err(arg.invalid("not a file service type", FIX)),
    };
    c.job.file_service = FileService {
        kind,
        ios_per_choice,
    };
    Ok(())
}

pub(crate) fn exitall(c: &mut Ctx, arg: &Arg) -> R {
    c.job.thread_control.exit_all = arg.flag()?;
    Ok(())
}
/// `cpus_allowed=0-3,6`: CPU numbers and ranges.
pub(crate) fn cpus_allowed(c: &mut Ctx, arg: &Arg) -> R {
    const FIX: &str = "write CPU numbers and ranges such as cpus_allowed=0-3,6";
    let mut cpus = Vec::new();
    for part in arg.value()?.split(',').map(str::trim) {
        let (low, high) = part.split_once('-').unwrap_or((part, part));
        let parse = |t: &str| {
            t.trim()
                .parse::<usize>()
                .map_err(|_| arg.invalid(format!("'{part}' is not a CPU or a range"), FIX))
        };
        let (low, high) = (parse(low)?, parse(high)?);
        if high < low || high >= MAX_CPUS {
            return Err(arg.invalid(format!("'{part}' is not a CPU range below {MAX_CPUS}"), FIX));
        }
        cpus.extend(low..=high);
    }
    cpus.sort_unstable();
    cpus.dedup();
    c.job.thread_control.cpus = cpus;
    Ok(())
}
/// `cpumask=0xf`: a bit per CPU.
pub(crate) fn cpumask(c: &mut Ctx, arg: &Arg) -> R {
    let mask = parse_u64(arg.value()?)
        .map_err(|why| arg.invalid(why, "write a bit mask such as cpumask=0xf"))?;
    if mask == 0 {
        return Err(arg.invalid(
            "a mask with no CPU",
            "write a mask with at least one bit set",
        ));
    }
    c.job.thread_control.cpus = (0..64).filter(|bit| mask >> bit & 1 == 1).collect();
    Ok(())
}
/// A CPU set covers this many CPUs (glibc's CPU_SETSIZE).
pub(crate) const MAX_CPUS: usize = 1024;

/// `cpus_allowed_policy`: `shared` (every thread may use every CPU of the set) or `split`
/// (each thread one CPU of it, in turn).
pub(crate) fn cpus_allowed_policy(c: &mut Ctx, arg: &Arg) -> R {
    c.job.thread_control.split_cpus = match arg.value()? {
        "shared" => false,
        "split" => true,
        _ => {
            return Err(arg.invalid(
                "not a CPU policy",
                "write cpus_allowed_policy=shared or split",
            ))
        }
    };
    Ok(())
}
pub(crate) fn nice(c: &mut Ctx, arg: &Arg) -> R {
    let value: i32 = arg
        .value()?
        .parse()
        .map_err(|_| arg.invalid("not a nice value", "write a whole number from -20 to 19"))?;
    if !(-20..=19).contains(&value) {
        return Err(arg.invalid("outside -20..19", "write a whole number from -20 to 19"));
    }
    c.job.thread_control.nice = value;
    Ok(())
}
/// `prioclass`: 1 realtime, 2 best-effort, 3 idle (0: the kernel's default, none set).
pub(crate) fn prioclass(c: &mut Ctx, arg: &Arg) -> R {
    let class = parse_u32(arg.value()?)
        .map_err(|why| arg.invalid(why, "write 1 (realtime), 2 (best-effort) or 3 (idle)"))?;
    let fix = Some("write 1 (realtime), 2 (best-effort) or 3 (idle)");
    let class = arg.bounded_with(u64::from(class), "not an IO priority class", fix)? as u8;
    let level = c.job.thread_control.io_priority.map_or(4, |p| p.level);
    c.job.thread_control.io_priority = (class > 0).then_some(IoPriority { class, level });
    Ok(())
}
/// `prio`: level 0 (highest) to 7, in the best-effort class unless `prioclass` says otherwise.
pub(crate) fn prio(c: &mut Ctx, arg: &Arg) -> R {
    let level =
        parse_u32(arg.value()?).map_err(|why| arg.invalid(why, "write 0 (highest) to 7"))?;
    let fix = Some("write 0 (highest) to 7");
    let level = arg.bounded_with(u64::from(level), "not an IO priority level", fix)? as u8;
    let class = c.job.thread_control.io_priority.map_or(2, |p| p.class);
    c.job.thread_control.io_priority = Some(IoPriority { class, level });
    Ok(())
}
/// Changing the device's IO scheduler needs root and a block device, and outlives the run.
pub(crate) fn ioscheduler(c: &mut Ctx, arg: &Arg) -> R {
    let wanted = arg.value()?;
    c.note(JobNote::IoScheduler {
        scheduler: wanted.to_string(),
    });
    Ok(())
}

/// fio's `steadystate`/`ss`: `iops:10%`, `iops_slope:0.3%`, `bw:5%`, `bw_slope:1%`, or an
/// absolute limit (`iops:50` IOPS, `bw:1m` bytes per second).
pub(crate) fn steadystate(c: &mut Ctx, arg: &Arg) -> R {
    const FIX: &str = "write iops:10%, iops_slope:0.3%, bw:5%, bw_slope:1% or an absolute limit such as iops:50 or bw:10m";
    let value = arg.value()?;
    let (criterion, limit) = value
        .split_once(':')
        .ok_or_else(|| arg.invalid("no limit after the criterion", FIX))?;
    let (metric, slope) = match criterion {
        "iops" => (SteadyMetric::Iops, false),
        "iops_slope" => (SteadyMetric::Iops, true),
        "bw" => (SteadyMetric::Bw, false),
        "bw_slope" => (SteadyMetric::Bw, true),
        "lat" | "lat_slope" => {
            return Err(arg.unsupported(
                "a latency steady-state criterion",
                "use an iops or bw criterion",
            ))
        }
        _ => return Err(arg.invalid(format!("'{criterion}' is not a criterion"), FIX)),
    };
    let limit = limit.trim();
    let (limit, percent) = match limit.strip_suffix('%') {
        Some(pct) => (pct.trim().parse::<f64>().ok(), true),
        None if metric == SteadyMetric::Iops => (limit.parse::<f64>().ok(), false),
        // Bytes per second; iofit samples bandwidth in KiB/s, as fio's JSON shows it.
        None => (
            parse_size(limit, c.base)
                .ok()
                .map(|b| b.as_u64() as f64 / 1024.0),
            false,
        ),
    };
    let limit = limit
        .filter(|l| l.is_finite() && *l >= 0.0)
        .ok_or_else(|| arg.invalid("the limit is not a number", FIX))?;
    c.b.steady = Some(super::apply::Placed {
        value: SteadyStateSpec {
            metric,
            slope,
            limit,
            percent,
            duration: Duration::ZERO,
            ramp: Duration::ZERO,
        },
        loc: arg.loc.clone(),
    });
    Ok(())
}
pub(crate) fn ss_dur(c: &mut Ctx, arg: &Arg) -> R {
    c.b.ss_dur = Some(arg.time()?);
    Ok(())
}
pub(crate) fn ss_ramp(c: &mut Ctx, arg: &Arg) -> R {
    c.b.ss_ramp = Some(arg.time()?);
    Ok(())
}

/// The steady-state spec once the job is whole: fio checks nothing without `ss_dur`, and
/// needs at least two one-second samples to judge a window.
pub(crate) fn settle_steady_state(
    job: &mut JobSpec,
    b: &mut super::apply::Builder,
) -> Result<(), JobFileError> {
    let Some(steady) = b.steady.take() else {
        return Ok(());
    };
    let duration = b.ss_dur.unwrap_or_default();
    if duration.is_zero() {
        job.notes.push(JobNote::Accepted {
            option: "steadystate",
            how: "steadystate without ss_dur: fio checks nothing (ss_dur=0), and neither does iofit; add ss_dur=30s to end the job when steady",
        });
        return Ok(());
    }
    if duration < Duration::from_secs(2) {
        return Err(steady.loc.invalid(
            "ss_dur",
            &format!("{}s", duration.as_secs_f64()),
            "a window of fewer than two one-second samples",
            "write ss_dur=2s or longer (fio samples once a second)",
        ));
    }
    job.steady_state = Some(SteadyStateSpec {
        duration,
        ramp: b.ss_ramp.unwrap_or_default(),
        ..steady.value
    });
    Ok(())
}

/// fio's `latency_target` and `latency_window`: microseconds when no unit is given.
pub(crate) fn latency_target(c: &mut Ctx, arg: &Arg) -> R {
    let target = micros(arg)?;
    c.b.latency_target = (!target.is_zero()).then(|| super::apply::Placed {
        value: target,
        loc: arg.loc.clone(),
    });
    Ok(())
}
pub(crate) fn latency_window(c: &mut Ctx, arg: &Arg) -> R {
    c.b.latency_window = Some(micros(arg)?);
    Ok(())
}
pub(crate) fn latency_percentile(c: &mut Ctx, arg: &Arg) -> R {
    let value = arg.value()?.trim_end_matches('%');
    let pct = value
        .parse::<f64>()
        .ok()
        .filter(|p| (0.0..=100.0).contains(p))
        .ok_or_else(|| arg.invalid("not a percentage", "write a share from 0 to 100, e.g. 99.9"))?;
    c.b.latency_percentile = Some(pct);
    Ok(())
}
pub(crate) fn latency_run(c: &mut Ctx, arg: &Arg) -> R {
    c.b.latency_run = arg.flag()?;
    Ok(())
}

/// fio's default window when `latency_target` comes without `latency_window` (fio would judge
/// after every IO, which makes its search follow single-IO noise): iofit judges each depth
/// over this long, and says so.
const DEFAULT_LATENCY_WINDOW: Duration = Duration::from_secs(1);

pub(crate) fn settle_latency_target(
    job: &mut JobSpec,
    b: &mut super::apply::Builder,
) -> Result<(), JobFileError> {
    let Some(target) = b.latency_target.take() else {
        return Ok(());
    };
    let window = match b.latency_window.filter(|w| !w.is_zero()) {
        Some(window) => window,
        None => {
            job.notes.push(JobNote::Accepted { option: "latency_target", how: "latency_target without latency_window: iofit tries each queue depth for 1 s (fio would judge after every IO)" });
            DEFAULT_LATENCY_WINDOW
        }
    };
    job.latency_target = Some(LatencyTargetSpec {
        target: target.value,
        window,
        percentile: b.latency_percentile.unwrap_or(100.0),
        keep_running: b.latency_run,
    });
    Ok(())
}

/// fio's `wait_for=NAME`: start after job NAME has finished. iofit's jobs run in sets that
/// each start when every earlier job is done (a stonewall), so the job waits for NAME and for
/// anything else still running before it, and the note says so.
pub(crate) fn wait_for(c: &mut Ctx, arg: &Arg) -> R {
    let name = arg.value()?;
    c.job.stonewall = true;
    c.note(JobNote::WaitFor {
        job: name.to_string(),
    });
    Ok(())
}

/// fio's `unlink`: remove the job's files when done. iofit removes only files the run created.
pub(crate) fn unlink(c: &mut Ctx, arg: &Arg) -> R {
    c.job.file_sync.unlink = arg.flag()?;
    if c.job.file_sync.unlink {
        c.accepted("unlink", "unlink: iofit removes the job's files after the run only if the run created them; files that existed before stay (never-destroy rule)");
    }
    Ok(())
}

/// fio `unlink_each_loop`: with loops=N, each loop is its own pass over fresh files. fio
/// unlinks the files before loops 2..N and lets the writes create them again (a read job then
/// fails with ENOENT); iofit lays them out again, as for the first loop, so reads work too.
pub(crate) fn unlink_each_loop(c: &mut Ctx, arg: &Arg) -> R {
    c.job.file_sync.unlink_each_loop = arg.flag()?;
    if c.job.file_sync.unlink_each_loop {
        c.accepted("unlink_each_loop", "unlink_each_loop: between loops iofit removes only the files it created and lays them out again (fio leaves a read job's file missing); a file without iofit's marker (reached with --allow-overwrite) is refused");
    }
    Ok(())
}

/// fio's `exit_what`: which jobs `exitall` ends. iofit's exitall ends every job of the running
/// stonewall set (fio's `stonewall`); the other scopes are accepted with a note.
pub(crate) fn exit_what(c: &mut Ctx, arg: &Arg) -> R {
    match arg.value()? {
        "stonewall" => Ok(()),
        "group" => {
            c.accepted("exit_what", "exit_what=group: iofit's exitall ends every job running with it (the stonewall set), not only those of the reporting group");
            Ok(())
        }
        "all" => {
            c.accepted("exit_what", "exit_what=all: iofit's exitall ends the jobs running with it (the stonewall set); jobs after a later stonewall still run");
            Ok(())
        }
        _ => Err(arg.invalid("not an exit scope", "write group, stonewall or all")),
    }
}
/// fio's `bs_unaligned`: block sizes from a range need not be multiples of the smallest.
pub(crate) fn bs_unaligned(c: &mut Ctx, arg: &Arg) -> R {
    if arg.flag()? {
        c.accepted("bs_unaligned", "bs_unaligned: iofit draws a range's block sizes as whole multiples of its smallest size (same mean size as fio's unaligned draw, coarser steps)");
    }
    Ok(())
}
