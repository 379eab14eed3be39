//! fio's io_uring engine options (`fixedbufs`, `registerfiles`, `sqthread_poll`,
//! `sqthread_poll_cpu`, `hipri`, `force_async`, `nonvectored`), read into
//! [`UringOptions`](iofit_model::job::UringOptions); the engine sets the ring up with them.

use super::apply::{Arg, Ctx};
use crate::error::JobFileError;
use crate::values::{parse_time, split_per_direction};
use iofit_model::job::PerDirection;
use std::time::Duration;

type R = Result<(), JobFileError>;

pub(crate) fn fixedbufs(c: &mut Ctx, arg: &Arg) -> R {
    c.job.uring.fixed_buffers = Some(arg.flag()?);
    Ok(())
}
pub(crate) fn registerfiles(c: &mut Ctx, arg: &Arg) -> R {
    c.job.uring.register_files = Some(arg.flag()?);
    Ok(())
}
pub(crate) fn sqthread_poll(c: &mut Ctx, arg: &Arg) -> R {
    c.job.uring.sq_thread_poll = arg.flag()?;
    if c.job.uring.sq_thread_poll {
        c.accepted("sqthread_poll", "sqthread_poll: a kernel thread submits the IOs, so submission latency is only the time to fill the queue entry (fio turns slat off for it); files are registered, as fio requires");
    }
    Ok(())
}
/// fio's `sqthread_poll_cpu` binds the SQ thread (IORING_SETUP_SQ_AFF); it needs
/// `sqthread_poll` to mean anything, as in fio.
pub(crate) fn sqthread_poll_cpu(c: &mut Ctx, arg: &Arg) -> R {
    let cpu = arg.count()?;
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
    if cpu >= cpus {
        return Err(arg.invalid(
            format!("CPU {cpu} is not one of this machine's {cpus}"),
            &format!("write a CPU number from 0 to {}", cpus - 1),
        ));
    }
    c.job.uring.sq_thread_cpu = Some(cpu);
    Ok(())
}
pub(crate) fn hipri(c: &mut Ctx, arg: &Arg) -> R {
    c.job.uring.hipri = arg.flag()?;
    if c.job.uring.hipri {
        c.accepted("hipri", "hipri: polled completions (IORING_SETUP_IOPOLL) work only with direct=1 on a device with poll queues (nvme poll_queues); elsewhere the kernel fails each IO with EOPNOTSUPP and the job stops with that error, as fio's does");
    }
    Ok(())
}
/// `force_async=N`: IOSQE_ASYNC on every Nth IO (0: never).
pub(crate) fn force_async(c: &mut Ctx, arg: &Arg) -> R {
    c.job.uring.force_async_every = arg.count()?;
    Ok(())
}
/// `nonvectored=0` uses readv/writev of one iovec, `1` read/write; fio's default (-1) probes
/// the kernel and uses read/write where it has them, which every kernel with iofit's io_uring
/// does.
pub(crate) fn nonvectored(c: &mut Ctx, arg: &Arg) -> R {
    c.job.uring.nonvectored = match arg.value()? {
        "-1" => None,
        "0" => Some(false),
        "1" => Some(true),
        _ => return Err(arg.invalid("not a nonvectored value", "write 0 (readv/writev), 1 (read/write) or -1 (fio's default: read/write when the kernel has them)")),
    };
    if c.job.uring.nonvectored == Some(false) && c.job.uring.fixed_buffers == Some(true) {
        c.accepted("nonvectored", "nonvectored=0 with fixedbufs: fio uses the fixed-buffer opcodes then, and so does iofit");
    }
    Ok(())
}

// What a job measures, and the latency that ends it (fio's `disable_*`, `max_latency`,
// `exitall_on_error`): kept here with the engine options, the other per-IO switches.

pub(crate) fn disable_lat(c: &mut Ctx, arg: &Arg) -> R {
    c.job.measurement.disable_lat = arg.flag()?;
    Ok(())
}
pub(crate) fn disable_clat(c: &mut Ctx, arg: &Arg) -> R {
    c.job.measurement.disable_clat = arg.flag()?;
    Ok(())
}
pub(crate) fn disable_slat(c: &mut Ctx, arg: &Arg) -> R {
    c.job.measurement.disable_slat = arg.flag()?;
    Ok(())
}
pub(crate) fn disable_bw_measurement(c: &mut Ctx, arg: &Arg) -> R {
    c.job.measurement.disable_bw = arg.flag()?;
    Ok(())
}
/// `max_latency=READ,WRITE`: microseconds when no unit is given (fio's HOWTO); 0 is off.
pub(crate) fn max_latency(c: &mut Ctx, arg: &Arg) -> R {
    const FIX: &str =
        "write microseconds or a time with a unit, such as max_latency=500ms, or READ,WRITE";
    let (read, write) = split_per_direction(arg.value()?).map_err(|why| arg.invalid(why, FIX))?;
    let parse = |text: Option<String>| -> Result<Option<Duration>, JobFileError> {
        let Some(text) = text else { return Ok(None) };
        let time =
            parse_time(&text, Duration::from_micros(1)).map_err(|why| arg.invalid(why, FIX))?;
        Ok((!time.is_zero()).then_some(time))
    };
    c.job.measurement.max_latency = PerDirection {
        read: parse(read)?,
        write: parse(write)?,
    };
    Ok(())
}
pub(crate) fn exitall_on_error(c: &mut Ctx, arg: &Arg) -> R {
    c.job.thread_control.exit_all_on_error = arg.flag()?;
    Ok(())
}

// Files: names, reading ahead, layout only (fio's `filename_format`, `unique_filename`,
// `pre_read`, `create_only`).

/// `filename_format`: the names of the files iofit makes in the job's directory.
pub(crate) fn filename_format(c: &mut Ctx, arg: &Arg) -> R {
    c.job.filename_format = Some(arg.value()?.to_string());
    if arg.value()?.to_ascii_lowercase().contains("$clientuid") {
        c.accepted("filename_format", "filename_format: $clientuid is the client's address in fio's client/server mode and empty otherwise; iofit has no such mode, so it is empty");
    }
    Ok(())
}
/// fio prefixes generated names with the connecting client's address only in its
/// client/server mode; everywhere else (and in iofit, whose multi-host runs give each host
/// its own files) the option changes nothing.
pub(crate) fn unique_filename(_: &mut Ctx, arg: &Arg) -> R {
    arg.flag().map(drop)
}
pub(crate) fn pre_read(c: &mut Ctx, arg: &Arg) -> R {
    c.job.file_sync.pre_read = arg.flag()?;
    Ok(())
}
pub(crate) fn create_only(c: &mut Ctx, arg: &Arg) -> R {
    c.job.file_sync.create_only = arg.flag()?;
    Ok(())
}
