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
const FLOW_MAX_WEIGHT: u32 = 1000;

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
    if weight > FLOW_MAX_WEIGHT {
        return Err(arg.invalid(
            format!("{weight} is above fio's largest flow weight {FLOW_MAX_WEIGHT}"),
            "write flow=N with a weight from 0 to 1000",
        ));
    }
    flow_spec(c).weight = weight;
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

/// fio `log_prio=1`: the logs' last column is each IO's ioprio value (`0x%04x`), not 0/1.
pub(crate) fn log_prio(c: &mut Ctx, arg: &Arg) -> R {
    c.job.logs.with_prio = arg.flag()?;
    Ok(())
}
