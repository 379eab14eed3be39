//! Options of how the job runs: engine and queue depth, direct or buffered IO, clones, run
//! time and start, loops, syncs, groups, IO counts, submission, cache hints, and the flags
//! iofit accepts as they are.

use super::context::{Arg, Ctx, FadviseChoice, Placed, COUNT_FIX, R};
use crate::error::ErrorKind;
use crate::fio_engines;
use crate::fio_engines::EngineChoice;
use crate::values::parse_u64;
use iofit_model::job::JobNote;
use iofit_model::units::Bytes;

pub(crate) fn nothing(_: &mut Ctx, _: &Arg) -> R {
    Ok(())
}
pub(crate) fn check_flag(_: &mut Ctx, arg: &Arg) -> R {
    arg.flag().map(|_| ())
}
/// fio's `thread`: any non-negative number, non-zero meaning on (fio reads it as an int).
pub(crate) fn thread(_: &mut Ctx, arg: &Arg) -> R {
    match arg.value.map(str::trim) {
        None | Some("") => Ok(()),
        Some(v) if v.parse::<u64>().is_ok() => Ok(()),
        Some(_) => arg.flag().map(|_| ()),
    }
}
/// fio's `mem`/`iomem`: where IO buffers come from. iofit's buffers are its own aligned
/// allocation (as malloc, fio's default); the note says so for the others.
pub(crate) fn mem(c: &mut Ctx, arg: &Arg) -> R {
    let value = arg.value()?.to_ascii_lowercase();
    let kind = value.split(':').next().unwrap_or("");
    match kind {
        "malloc" => Ok(()),
        "shm" | "shmhuge" | "mmap" | "mmaphuge" | "mmapshared" => {
            c.note(JobNote::Mem { value });
            Ok(())
        }
        "cudamalloc" => Err(arg.unsupported(
            "GPU memory for IO buffers needs CUDA, which iofit does not use",
            "drop mem= (iofit allocates its own buffers, as mem=malloc)",
        )),
        _ => Err(arg.invalid(
            "not a memory type fio knows",
            "write malloc, shm, shmhuge, mmap, mmaphuge or mmapshared",
        )),
    }
}
/// fio's `write_hint`: the write-life hint (RWH_WRITE_LIFE_*) set on each file at open.
pub(crate) fn write_hint(c: &mut Ctx, arg: &Arg) -> R {
    let hint = match arg.value()?.to_ascii_lowercase().as_str() {
        "none" => 1,
        "short" => 2,
        "medium" => 3,
        "long" => 4,
        "extreme" => 5,
        _ => {
            return Err(arg.invalid(
                "not a write-life hint fio knows",
                "write none, short, medium, long or extreme",
            ))
        }
    };
    c.job.file_sync.write_hint = Some(hint);
    Ok(())
}
/// fio's `readonly` (the program's `--readonly`): a job that writes or trims is refused.
pub(crate) fn readonly(c: &mut Ctx, arg: &Arg) -> R {
    c.b.readonly = arg.flag()?.then(|| arg.loc.clone());
    Ok(())
}
/// fio's `allow_file_create`: 1 (its default) lets a job create its files. iofit creates only
/// files that do not exist and never destroys one, so 0 is noted.
pub(crate) fn allow_file_create(c: &mut Ctx, arg: &Arg) -> R {
    if !arg.flag()? {
        c.accepted("allow_file_create", "allow_file_create=0: iofit still creates a job's missing files (fio would stop the job instead); existing files are never replaced");
    }
    Ok(())
}
/// fio's `atomic`: O_DIRECT with atomic writes. iofit runs the job direct, without an atomic
/// write flag (fio 3.33 passes none on Linux either).
pub(crate) fn atomic(c: &mut Ctx, arg: &Arg) -> R {
    if arg.flag()? {
        c.b.direct = Some(true);
        c.accepted("atomic", "atomic=1: the job runs with direct=1, as in fio; no atomic-write flag is passed (fio 3.33 passes none on Linux either)");
    }
    Ok(())
}

pub(crate) fn ioengine(c: &mut Ctx, arg: &Arg) -> R {
    let value = arg.value()?;
    // fio accepts `external:path.so` and a trailing engine-specific `:option`.
    let name = value.split(':').next().unwrap_or(value);
    match fio_engines::engine(name) {
        EngineChoice::Run(kind) => c.job.engine = kind,
        EngineChoice::Mapped(kind, how) => {
            c.job.engine = kind;
            c.accepted("ioengine", how);
        }
        EngineChoice::Refused(why) => {
            return Err(arg.loc.error(
                Some(arg.key),
                ErrorKind::UnsupportedEngine {
                    engine: name.to_string(),
                    why: why.to_string(),
                },
            ))
        }
    }
    Ok(())
}
pub(crate) fn iodepth(c: &mut Ctx, arg: &Arg) -> R {
    c.job.iodepth = arg.positive_count("a queue depth of 0 never issues an IO")?;
    Ok(())
}
pub(crate) fn direct(c: &mut Ctx, arg: &Arg) -> R {
    c.b.direct = Some(arg.flag()?);
    c.b.buffered = None;
    Ok(())
}
pub(crate) fn buffered(c: &mut Ctx, arg: &Arg) -> R {
    c.b.buffered = Some(arg.flag()?);
    c.b.direct = None;
    Ok(())
}
pub(crate) fn numjobs(c: &mut Ctx, arg: &Arg) -> R {
    c.job.numjobs = arg.positive_count("0 clones run nothing")?;
    Ok(())
}
pub(crate) fn group_reporting(c: &mut Ctx, arg: &Arg) -> R {
    c.job.group_reporting = arg.flag()?;
    Ok(())
}
pub(crate) fn runtime(c: &mut Ctx, arg: &Arg) -> R {
    let runtime = arg.time()?;
    // fio: runtime=0 means no limit.
    c.job.runtime = (!runtime.is_zero()).then_some(runtime);
    Ok(())
}
pub(crate) fn time_based(c: &mut Ctx, arg: &Arg) -> R {
    c.b.time_based = arg.flag()?.then(|| arg.loc.clone());
    Ok(())
}
pub(crate) fn ramp_time(c: &mut Ctx, arg: &Arg) -> R {
    c.job.ramp_time = arg.time()?;
    Ok(())
}
pub(crate) fn startdelay(c: &mut Ctx, arg: &Arg) -> R {
    if arg.value()?.contains('-') {
        return Err(arg.unsupported(
            "a random start delay range",
            "give one delay such as startdelay=5",
        ));
    }
    c.job.start_delay = arg.time()?;
    Ok(())
}
pub(crate) fn norandommap(c: &mut Ctx, arg: &Arg) -> R {
    c.job.norandommap = arg.flag()?;
    Ok(())
}
pub(crate) fn randrepeat(c: &mut Ctx, arg: &Arg) -> R {
    c.job.randrepeat = arg.flag()?;
    Ok(())
}
pub(crate) fn randseed(c: &mut Ctx, arg: &Arg) -> R {
    c.job.random_seed = parse_u64(arg.value()?).map_err(|why| arg.invalid(why, COUNT_FIX))?;
    Ok(())
}
pub(crate) fn loops(c: &mut Ctx, arg: &Arg) -> R {
    c.job.loops = arg.positive_count("0 loops run nothing")?;
    Ok(())
}
pub(crate) fn fsync(c: &mut Ctx, arg: &Arg) -> R {
    c.job.fsync_every = arg.count()?;
    Ok(())
}
pub(crate) fn fdatasync(c: &mut Ctx, arg: &Arg) -> R {
    c.job.fdatasync_every = arg.count()?;
    Ok(())
}
pub(crate) fn end_fsync(c: &mut Ctx, arg: &Arg) -> R {
    c.job.end_fsync = arg.flag()?;
    Ok(())
}
pub(crate) fn stonewall(c: &mut Ctx, arg: &Arg) -> R {
    c.job.stonewall = arg.flag()?;
    Ok(())
}
pub(crate) fn new_group(c: &mut Ctx, arg: &Arg) -> R {
    c.b.new_group = arg.flag()?;
    Ok(())
}
pub(crate) fn io_size(c: &mut Ctx, arg: &Arg) -> R {
    if arg.value()?.ends_with('%') {
        return Err(arg.unsupported(
            "io_size in percent",
            "give io_size in bytes, e.g. io_size=1g",
        ));
    }
    let bytes = arg.size(c.base)?;
    c.job.io_limit = (bytes != Bytes::ZERO).then_some(bytes);
    Ok(())
}
/// Settled in `finish`: N IOs of one fixed size are N x bs bytes, an io_size.
pub(crate) fn number_ios(c: &mut Ctx, arg: &Arg) -> R {
    let count = parse_u64(arg.value()?).map_err(|why| arg.invalid(why, COUNT_FIX))?;
    c.b.number_ios = (count != 0).then(|| Placed::at(count, arg));
    Ok(())
}

pub(crate) fn io_submit_mode(c: &mut Ctx, arg: &Arg) -> R {
    match arg.value()? {
        "inline" => Ok(()),
        "offload" => {
            c.accepted("io_submit_mode", "io_submit_mode=offload: iofit submits from the job's own thread (inline); with a rate limit each IO is still issued at its scheduled time");
            Ok(())
        }
        _ => Err(arg.invalid(
            "not a submit mode",
            "write io_submit_mode=inline or offload",
        )),
    }
}

pub(crate) fn fadvise_hint(c: &mut Ctx, arg: &Arg) -> R {
    use iofit_model::job::FadviseHint as H;
    let value = arg.value.map(str::trim).unwrap_or("1");
    c.b.fadvise_hint = Some(match value.to_ascii_lowercase().as_str() {
        "0" => FadviseChoice::None,
        "1" => FadviseChoice::Pattern,
        "random" => FadviseChoice::Fixed(H::Random),
        "sequential" => FadviseChoice::Fixed(H::Sequential),
        _ => {
            return Err(arg.invalid(
                "fio's fadvise_hint takes 0, 1, random or sequential",
                "write fadvise_hint=1 (the job's own pattern), 0, random or sequential",
            ))
        }
    });
    Ok(())
}

pub(crate) fn invalidate(c: &mut Ctx, arg: &Arg) -> R {
    c.b.invalidate = Some(Placed::at(arg.flag()?, arg));
    Ok(())
}
