//! Options of where the job's IO goes: its name, files and directory, sizes, offsets, the
//! number of files and their allocation.

use super::context::{size_as_fio, Arg, Ctx, Placed, R, SIZE_FIX};
use crate::error::JobFileError;
use crate::values::{parse_percent, parse_size};
use iofit_model::job::JobNote;
use iofit_model::job::SizeSpec;
use iofit_model::placement::FileAmount;
use iofit_model::units::Bytes;

pub(crate) fn name(c: &mut Ctx, arg: &Arg) -> R {
    c.job.name = arg.value()?.to_string();
    Ok(())
}
pub(crate) fn filename(c: &mut Ctx, arg: &Arg) -> R {
    c.b.filename = Some(Placed::at(arg.value()?.to_string(), arg));
    Ok(())
}
pub(crate) fn directory(c: &mut Ctx, arg: &Arg) -> R {
    c.b.directory = Some(Placed::at(arg.value()?.to_string(), arg));
    Ok(())
}
pub(crate) fn size(c: &mut Ctx, arg: &Arg) -> R {
    let value = arg.value()?;
    let spec = if let Some(pct) = value.strip_suffix('%') {
        let pct = parse_percent(pct)
            .map_err(|why| arg.invalid(why, "write a percentage such as size=50%"))?;
        if pct <= 0.0 {
            return Err(arg.invalid(
                "a size of 0% has nothing to do IO on",
                "write a percentage above 0",
            ));
        }
        SizeSpec::PercentOfTarget(pct)
    } else {
        let bytes = size_as_fio(c, arg)?;
        if bytes == Bytes::ZERO {
            return Err(arg.invalid("a size of 0 has nothing to do IO on", SIZE_FIX));
        }
        SizeSpec::Bytes(bytes)
    };
    c.b.size = Some(Placed::at(spec, arg));
    Ok(())
}
/// fio's `filesize`: the size of each file. A range `LOW-HIGH` (or `LOW:HIGH`) draws a size in
/// it; fio draws one per file, iofit one per job (its files share one size), and says so.
pub(crate) fn filesize(c: &mut Ctx, arg: &Arg) -> R {
    let value = arg.value()?;
    if let Some((low, high)) = value.split_once(['-', ':']) {
        const FIX: &str = "write filesize=LOW-HIGH such as filesize=1g-2g, or one size";
        let low = parse_size(low, c.base).map_err(|why| arg.invalid(why, FIX))?;
        let high = parse_size(high, c.base).map_err(|why| arg.invalid(why, FIX))?;
        if low == Bytes::ZERO || high < low {
            return Err(arg.invalid("the range is empty", FIX));
        }
        let drawn = draw_in_range(low.as_u64(), high.as_u64(), c.job.random_seed);
        c.note(JobNote::FileSizeDrawn {
            range: value.to_string(),
            drawn: Bytes(drawn),
        });
        c.b.filesize = Some(Placed::at(Bytes(drawn), arg));
        return Ok(());
    }
    let bytes = size_as_fio(c, arg)?;
    if bytes == Bytes::ZERO {
        return Err(arg.invalid("a file size of 0", SIZE_FIX));
    }
    c.b.filesize = Some(Placed::at(bytes, arg));
    Ok(())
}
/// A size in `low..=high` from the job's seed (repeatable with randrepeat), rounded down to
/// whole 4 KiB but never below `low`.
fn draw_in_range(low: u64, high: u64, seed: u64) -> u64 {
    // splitmix64's finaliser: one well-mixed draw from the seed.
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    let drawn = low + z % (high - low + 1);
    (drawn / 4096 * 4096).max(low)
}
/// fio's `offset`: bytes, or `N%` of the file's size (settled per file when the run knows it;
/// `engine::layout`).
pub(crate) fn offset(c: &mut Ctx, arg: &Arg) -> R {
    match file_amount(c, arg, "offset=1g or offset=25%")? {
        FileAmount::Percent(pct) => {
            c.job.offset = Bytes::ZERO;
            c.job.start.percent = Some(pct);
        }
        FileAmount::Bytes(bytes) => {
            c.job.offset = Bytes(bytes);
            c.job.start.percent = None;
        }
    }
    Ok(())
}
/// fio's `offset_increment`: clone N of the job starts N increments further (bytes or `N%`).
pub(crate) fn offset_increment(c: &mut Ctx, arg: &Arg) -> R {
    let amount = file_amount(c, arg, "offset_increment=1g or offset_increment=10%")?;
    c.job.start.increment = match amount {
        FileAmount::Bytes(0) => None,
        amount => Some(amount),
    };
    Ok(())
}
/// fio's `offset_align`: what a start from a percentage is rounded up to.
pub(crate) fn offset_align(c: &mut Ctx, arg: &Arg) -> R {
    let bytes = arg.size(c.base)?;
    c.job.start.align_bytes = (bytes > Bytes::ZERO).then_some(bytes);
    Ok(())
}
/// Bytes, or a percentage of the file's size from 0 to 100 (`N%`).
fn file_amount(c: &mut Ctx, arg: &Arg, example: &str) -> Result<FileAmount, JobFileError> {
    let value = arg.value()?;
    if let Some(pct) = value.strip_suffix('%') {
        let pct =
            parse_percent(pct).map_err(|why| arg.invalid(why, &format!("write {example}")))?;
        return Ok(FileAmount::Percent(pct));
    }
    Ok(FileAmount::Bytes(size_as_fio(c, arg)?.as_u64()))
}

pub(crate) fn nrfiles(c: &mut Ctx, arg: &Arg) -> R {
    c.b.nrfiles = Some(arg.positive_count("0 files")?);
    Ok(())
}

/// iofit lays every file out in full (written) before timing starts, whatever fio's
/// `fallocate` mode would have reserved.
pub(crate) fn fallocate(_: &mut Ctx, arg: &Arg) -> R {
    match arg.value()? {
        "none" | "posix" | "native" | "keep" | "truncate" | "0" | "1" => Ok(()),
        _ => Err(arg.invalid(
            "not a fallocate mode",
            "write none, posix, native, keep or truncate",
        )),
    }
}
