//! fio options that real job files use for how jobs share a device: flow control between jobs
//! (`flow`, `flow_id`, `flow_sleep`), `serialize_overlap`, and per-IO priorities
//! (`cmdprio*`, `log_prio`). One small function per option, as in `apply.rs`.

use super::apply::{Arg, Ctx};
use crate::error::JobFileError;
use crate::values::parse_u32;
use iofit_model::placement::FlowSpec;
use std::time::Duration;

type R = Result<(), JobFileError>;

/// fio's FLOW_MAX_WEIGHT (flow.h).
pub(crate) const FLOW_MAX_WEIGHT: u32 = 1000;

fn flow_spec(c: &mut Ctx) -> &mut FlowSpec {
    c.job.flow.get_or_insert(FlowSpec {
        id: 0,
        weight: 0,
        sleep: Duration::ZERO,
    })
}

fn whole(arg: &Arg, fix: &str) -> Result<u32, JobFileError> {
    parse_u32(arg.value()?).map_err(|why| arg.invalid(why, fix))
}

/// fio `flow=N`: the job's weight in its flow group (0: no flow control).
pub(crate) fn flow(c: &mut Ctx, arg: &Arg) -> R {
    let weight = whole(arg, "write flow=N with a weight from 0 to 1000")?;
    // The table bounds it by fio's FLOW_MAX_WEIGHT.
    flow_spec(c).weight = arg.bounded(u64::from(weight), "a negative weight")? as u32;
    Ok(())
}
/// fio `flow_id=N`: which flow group the job is in (default 0).
pub(crate) fn flow_id(c: &mut Ctx, arg: &Arg) -> R {
    flow_spec(c).id = whole(arg, "write flow_id=N with a whole number")?;
    Ok(())
}
/// fio `flow_sleep=N`: microseconds a job ahead of its share waits before it looks again.
pub(crate) fn flow_sleep(c: &mut Ctx, arg: &Arg) -> R {
    let micros = whole(
        arg,
        "write flow_sleep=N in microseconds, e.g. flow_sleep=1000",
    )?;
    flow_spec(c).sleep = Duration::from_micros(u64::from(micros));
    Ok(())
}
/// Once the job is known: flow control applies only with a weight (fio: `flow` unset or 0
/// leaves the job out of its group).
pub(crate) fn finish_flow(job: &mut iofit_model::JobSpec) {
    if job.flow.as_ref().is_some_and(|f| f.weight == 0) {
        job.flow = None;
    }
}

/// fio `serialize_overlap`: never two IOs in flight on overlapping bytes.
pub(crate) fn serialize_overlap(c: &mut Ctx, arg: &Arg) -> R {
    c.job.serialize_overlap = arg.flag()?;
    Ok(())
}

/// fio `log_max_value=1`: averaged latency logs hold each window's maximum, not its mean.
pub(crate) fn log_max_value(c: &mut Ctx, arg: &Arg) -> R {
    c.job.logs.max_value = arg.flag()?;
    Ok(())
}

/// fio `log_prio=1`: the logs' last column is each IO's ioprio value (`0x%04x`), not 0/1.
pub(crate) fn log_prio(c: &mut Ctx, arg: &Arg) -> R {
    c.job.logs.with_prio = arg.flag()?;
    Ok(())
}

use crate::values::ValueError;
use iofit_model::placement::{CmdPrio, CmdPrioDirection, CmdPrioSplit};

/// The two directions' values of a per-direction option (`N` or `READ,WRITE`).
fn per_direction<T>(
    arg: &Arg,
    fix: &str,
    parse: impl Fn(&str) -> Result<T, ValueError>,
) -> Result<[Option<T>; 2], JobFileError> {
    let (read, write) =
        crate::values::split_per_direction(arg.value()?).map_err(|why| arg.invalid(why, fix))?;
    let one = |v: Option<String>| -> Result<Option<T>, JobFileError> {
        v.map(|v| parse(v.trim()).map_err(|why| arg.invalid(why, fix)))
            .transpose()
    };
    Ok([one(read)?, one(write)?])
}

fn cmdprio_rules(c: &mut Ctx) -> &mut [CmdPrioDirection; 2] {
    &mut c
        .job
        .cmdprio
        .get_or_insert_with(CmdPrio::default)
        .per_direction
}

/// fio `cmdprio_percentage=N[,N]`: that share of IOs gets the priority of `cmdprio_class`.
pub(crate) fn cmdprio_percentage(c: &mut Ctx, arg: &Arg) -> R {
    let values = per_direction(
        arg,
        "write cmdprio_percentage=20 or 20,0 (read,write)",
        crate::values::parse_percent,
    )?;
    for (rule, value) in cmdprio_rules(c).iter_mut().zip(values) {
        if let Some(pct) = value {
            rule.percentage = pct;
        }
    }
    Ok(())
}
/// fio `cmdprio_class=C[,C]`: 1 realtime, 2 best effort, 3 idle.
pub(crate) fn cmdprio_class(c: &mut Ctx, arg: &Arg) -> R {
    let values = per_direction(
        arg,
        "write cmdprio_class=1 (realtime), 2 or 3",
        |v| match parse_u32(v)? {
            class @ 1..=3 => Ok(class as u8),
            other => Err(ValueError(format!(
                "{other} is not an IO priority class (1, 2 or 3)"
            ))),
        },
    )?;
    for (rule, value) in cmdprio_rules(c).iter_mut().zip(values) {
        if let Some(class) = value {
            rule.class = class;
        }
    }
    Ok(())
}
/// fio `cmdprio=L[,L]`: the level within the class, 0 (highest) to 7.
pub(crate) fn cmdprio(c: &mut Ctx, arg: &Arg) -> R {
    let values = per_direction(arg, "write cmdprio=0 (highest) to 7", level)?;
    for (rule, value) in cmdprio_rules(c).iter_mut().zip(values) {
        if let Some(level) = value {
            rule.level = level;
        }
    }
    Ok(())
}
fn level(v: &str) -> Result<u8, ValueError> {
    match parse_u32(v)? {
        level @ 0..=7 => Ok(level as u8),
        other => Err(ValueError(format!(
            "{other} is not an IO priority level (0 to 7)"
        ))),
    }
}
/// fio `cmdprio_bssplit=BS/PCT[/CLASS/LEVEL[/HINT]]:...[,...]`: per block size, the share of
/// IOs that get a priority. Priority hints (CDL descriptors) are dropped, with a note.
pub(crate) fn cmdprio_bssplit(c: &mut Ctx, arg: &Arg) -> R {
    const FIX: &str = "write cmdprio_bssplit=64k/25/1/1:1m/0 (bs/percent[/class/level]), per direction with a comma";
    let base = c.base;
    let mut hints = false;
    let values = per_direction(arg, FIX, |v| {
        v.split(':')
            .filter(|e| !e.trim().is_empty())
            .map(|entry| {
                let fields: Vec<&str> = entry.trim().split('/').collect();
                if !(fields.len() == 2 || fields.len() == 4 || fields.len() == 5) {
                    return Err(ValueError(format!(
                        "'{entry}' is not bs/percent[/class/level[/hint]]"
                    )));
                }
                let bs_bytes = crate::values::parse_size(fields[0], base)?;
                let pct = crate::values::parse_percent(fields[1])?;
                let class_level = if fields.len() >= 4 {
                    let class = match parse_u32(fields[2])? {
                        class @ 1..=3 => class as u8,
                        other => {
                            return Err(ValueError(format!(
                                "{other} is not an IO priority class (1, 2 or 3)"
                            )))
                        }
                    };
                    Some((class, level(fields[3])?))
                } else {
                    None
                };
                Ok((
                    CmdPrioSplit {
                        bs_bytes,
                        pct,
                        class_level,
                    },
                    fields.len() == 5,
                ))
            })
            .collect::<Result<Vec<_>, ValueError>>()
    })?;
    for (rule, value) in cmdprio_rules(c).iter_mut().zip(values) {
        if let Some(entries) = value {
            hints |= entries.iter().any(|(_, hint)| *hint);
            rule.bssplit = entries.into_iter().map(|(e, _)| e).collect();
        }
    }
    if hints {
        c.accepted("cmdprio_bssplit", "cmdprio_bssplit: priority hints (CDL descriptors, the fifth field) are dropped; iofit sets the class and level only");
    }
    Ok(())
}

/// fio `fill_device`/`fill_fs`: write until the file system is full.
pub(crate) fn fill_device(c: &mut Ctx, arg: &Arg) -> R {
    c.job.fill_device = arg.flag()?;
    Ok(())
}
