//! fio's IO-log options: `read_iolog` (replay a log, with `replay_no_stall`,
//! `replay_time_scale`, `replay_redirect`, `replay_align`, `replay_scale`, `replay_skip`,
//! `read_iolog_chunked`) and `write_iolog` (record one). The engine reads and writes the logs
//! (`iofit_engine::replay`); here the options become a `ReplaySpec`.

use super::apply::{Arg, Ctx};
use crate::error::JobFileError;
use crate::values::parse_u32;
use iofit_model::job::JobNote;
use iofit_model::replay::ReplaySpec;
use std::path::PathBuf;

type R = Result<(), JobFileError>;

/// The replay being built; its log list stays empty until `read_iolog` is seen.
fn spec(c: &mut Ctx) -> &mut ReplaySpec {
    c.job.replay.get_or_insert_with(|| ReplaySpec {
        logs: Vec::new(),
        ..ReplaySpec::new("")
    })
}

/// fio `read_iolog=FILE[:FILE...]`: clone N replays the Nth log.
pub(crate) fn read_iolog(c: &mut Ctx, arg: &Arg) -> R {
    let logs: Vec<PathBuf> = arg
        .value()?
        .split(':')
        .filter(|s| !s.trim().is_empty())
        .map(|s| PathBuf::from(s.trim()))
        .collect();
    if logs.iter().any(|l| l.as_os_str() == "-") {
        return Err(arg.unsupported(
            "iofit does not read an IO log from standard input",
            "write the log to a file and give its name",
        ));
    }
    spec(c).logs = logs;
    Ok(())
}

/// fio `read_iolog_chunked`: iofit streams every log, so this is accepted as it is.
pub(crate) fn read_iolog_chunked(c: &mut Ctx, arg: &Arg) -> R {
    spec(c).chunked = arg.flag()?;
    Ok(())
}

pub(crate) fn replay_no_stall(c: &mut Ctx, arg: &Arg) -> R {
    spec(c).no_stall = arg.flag()?;
    Ok(())
}

/// fio `replay_time_scale=PCT`: the log's gaps replayed at PCT percent of real time.
pub(crate) fn replay_time_scale(c: &mut Ctx, arg: &Arg) -> R {
    let pct = parse_u32(arg.value()?)
        .ok()
        .filter(|&p| p > 0)
        .ok_or_else(|| {
            arg.invalid(
                "not a positive whole percent",
                "write replay_time_scale=200 to replay twice as fast",
            )
        })?;
    spec(c).time_scale_pct = pct;
    Ok(())
}

pub(crate) fn replay_redirect(c: &mut Ctx, arg: &Arg) -> R {
    spec(c).redirect = Some(PathBuf::from(arg.value()?));
    Ok(())
}

/// fio `replay_align=N`: offsets rounded down to a multiple of N, a power of two.
pub(crate) fn replay_align(c: &mut Ctx, arg: &Arg) -> R {
    let align = arg.size(c.base)?;
    if !align.as_u64().is_power_of_two() {
        return Err(arg.invalid(
            "not a power of two",
            "write replay_align=4k (fio masks offsets with it)",
        ));
    }
    spec(c).align = Some(align);
    Ok(())
}

/// fio `replay_scale=N`: offsets divided by N.
pub(crate) fn replay_scale(c: &mut Ctx, arg: &Arg) -> R {
    let scale = parse_u32(arg.value()?)
        .ok()
        .filter(|&s| s > 0)
        .ok_or_else(|| {
            arg.invalid(
                "not a positive whole number",
                "write replay_scale=2 to halve every offset",
            )
        })?;
    spec(c).scale = u64::from(scale);
    Ok(())
}

/// fio `replay_skip=read,write,sync,trim`.
pub(crate) fn replay_skip(c: &mut Ctx, arg: &Arg) -> R {
    let mut skip = iofit_model::replay::ReplaySkip::default();
    for kind in arg.value()?.split(',').map(str::trim) {
        match kind {
            "read" => skip.read = true,
            "write" => skip.write = true,
            "sync" => skip.sync = true,
            "trim" => skip.trim = true,
            _ => {
                return Err(arg.invalid(
                    format!("{kind:?} is not read, write, sync or trim"),
                    "write replay_skip=read,sync",
                ))
            }
        }
    }
    spec(c).skip = skip;
    Ok(())
}

/// fio `write_iolog=FILE`: record every IO issued in fio's version 3 log.
pub(crate) fn write_iolog(c: &mut Ctx, arg: &Arg) -> R {
    c.job.write_iolog = Some(PathBuf::from(arg.value()?));
    Ok(())
}

/// Once the job is known: `replay_*` without `read_iolog` do nothing (as in fio), and
/// `read_iolog` overrides `write_iolog` (fio: "read iolog overrides write_iolog").
pub(crate) fn finish_replay(job: &mut iofit_model::JobSpec) {
    if job.replay.as_ref().is_some_and(|r| r.logs.is_empty()) {
        job.replay = None;
    }
    // A log's trims are replayed on every engine, the null engine too (it completes them as
    // any IO), as fio does since 3.34; fio 3.33 dropped them ("bad ddir: 2").
    if let Some(replay) = &job.replay {
        job.notes.push(JobNote::Replay {
            logs: replay.logs.clone(),
        });
    }
    if job.replay.is_some() && job.write_iolog.take().is_some() {
        job.notes.push(JobNote::Accepted {
            option: "write_iolog",
            how: "write_iolog is dropped: read_iolog overrides it (as fio does)",
        });
    }
    if job.replay.as_ref().is_some_and(|r| r.chunked) {
        job.notes.push(JobNote::Accepted {
            option: "read_iolog_chunked",
            how: "read_iolog_chunked: iofit always reads the log in pieces as the replay goes",
        });
    }
}
