//! Options of the IO pattern: read/write mix and sequence, block sizes (single, split,
//! ranges, alignment), the random share and the offset distribution.

use super::context::{Arg, Ctx, Placed, R, SIZE_FIX};
use crate::error::{nearest, ErrorKind, JobFileError};
use crate::values::{
    parse_percent, parse_size, parse_u32, parse_u64, split_per_ddir, split_per_direction,
};
use iofit_model::job::{AccessZone, BlockSizeShare, RandomDistribution, RwMode, ZoneSize};
use iofit_model::units::{Bytes, SizeBase};

pub(crate) fn rw(c: &mut Ctx, arg: &Arg) -> R {
    let (rw, modifier) = parse_rw(arg)?;
    c.job.seq_add_bytes = 0;
    c.job.random_run = 1;
    if let Some(modifier) = modifier {
        if rw.is_random() {
            // rw=randread:N: a new random offset every N IOs.
            let count = parse_u32(modifier).map_err(|why| {
                arg.invalid(
                    why,
                    "write rw=randread:N with N IOs per random offset, e.g. rw=randread:8",
                )
            })?;
            c.job.random_run = count.max(1);
        } else {
            // rw=write:4k (holes) or rw=read:-8k (backwards).
            let (negative, size) = match modifier.trim().strip_prefix('-') {
                Some(rest) => (true, rest),
                None => (false, modifier.trim()),
            };
            let bytes = parse_size(size, c.base).map_err(|why| {
                arg.invalid(
                    why,
                    "write rw=write:4k (skip 4 KiB after each IO) or rw=read:-8k (backwards)",
                )
            })?;
            let bytes = i64::try_from(bytes.as_u64())
                .map_err(|_| arg.invalid("the offset modifier is too large", SIZE_FIX))?;
            c.job.seq_add_bytes = if negative { -bytes } else { bytes };
        }
    }
    c.b.rw = Some(rw);
    Ok(())
}
/// fio's `rw_sequencer`: what the IOs between random offsets of `rw=randread:N` do.
pub(crate) fn rw_sequencer(c: &mut Ctx, arg: &Arg) -> R {
    c.job.repeat_offset_in_run = match arg.value()? {
        "sequential" => false,
        "identical" => true,
        _ => {
            return Err(arg.invalid(
                "not a sequencer",
                "write rw_sequencer=sequential or identical",
            ))
        }
    };
    Ok(())
}
pub(crate) fn rwmix(c: &mut Ctx, arg: &Arg) -> R {
    let pct = parse_u64(arg.value()?)
        .map_err(|why| arg.invalid(why, "write a whole percentage 0..100"))?;
    let pct = arg.bounded(pct, "a share below 0%")?;
    let read_pct = if arg.key == "rwmixread" {
        pct
    } else {
        100 - pct
    };
    c.b.rwmix_read_pct = Some(read_pct as f64);
    Ok(())
}
pub(crate) fn bs(c: &mut Ctx, arg: &Arg) -> R {
    let (read, write, trim) = split_per_ddir(arg.value()?)
        .map_err(|why| arg.invalid(why, "write bs=4k or bs=READ,WRITE[,TRIM] such as bs=4k,64k"))?;
    // fio's bs also takes a range (bs=4k-512k), which is bsrange.
    if [&read, &write, &trim]
        .into_iter()
        .flatten()
        .any(|part| part.contains('-'))
    {
        c.accepted("bs", "a bs range runs as a bssplit of the multiples of its smallest size, in the shares fio draws them");
        return bsrange(c, arg);
    }
    let parse_one = |text: String| -> Result<Bytes, JobFileError> {
        let bytes = parse_size(&text, c.base).map_err(|why| arg.invalid(why, SIZE_FIX))?;
        if bytes == Bytes::ZERO {
            return Err(arg.invalid("a block size of 0", "write a block size such as 4k"));
        }
        arg.bounded(bytes.as_u64(), "a block size of 0").map(Bytes)
    };
    // An empty entry means fio's default (4 KiB) for that direction.
    let read = read.map(parse_one).transpose()?.unwrap_or(Bytes::kib(4));
    let write = write.map(parse_one).transpose()?.unwrap_or(Bytes::kib(4));
    let trim = trim.map(parse_one).transpose()?.unwrap_or(Bytes::kib(4));
    c.b.bs_read = Some(Placed::at(read, arg));
    c.b.bs_write = Some(Placed::at(write, arg));
    c.b.bs_trim = Some(Placed::at(trim, arg));
    c.b.bssplit = None;
    Ok(())
}
pub(crate) fn bssplit(c: &mut Ctx, arg: &Arg) -> R {
    let (read, write, trim) = split_per_ddir(arg.value()?)
        .map_err(|why| arg.invalid(why, "write bssplit=4k/10:64k/90 or READ,WRITE[,TRIM] lists"))?;
    let parse_list = |text: Option<String>| -> Result<Vec<BlockSizeShare>, JobFileError> {
        match text {
            None => Ok(vec![BlockSizeShare {
                size: Bytes::kib(4),
                pct: 100.0,
            }]),
            Some(text) => parse_bssplit(&text, c.base).map_err(|why| {
                arg.invalid(
                    why,
                    "write size/percent pairs joined by ':' such as 4k/10:64k/90",
                )
            }),
        }
    };
    let split = [parse_list(read)?, parse_list(write)?, parse_list(trim)?];
    c.b.bssplit = Some(Placed::at(split, arg));
    c.b.bs_read = None;
    c.b.bs_write = None;
    c.b.bs_trim = None;
    Ok(())
}

/// At most this many sizes in a bsrange (512 B to 2 MiB in 512 B steps is 4096).
const MAX_BSRANGE_SIZES: u64 = 4096;

/// fio's `bsrange=MIN-MAX[,MIN-MAX]` (io_u.c `get_next_buflen`): a length `MIN + MAX x u`
/// (u uniform in [0, 1)) rounded down to a multiple of MIN and capped at MAX. With r = MAX/MIN
/// that is every multiple k x MIN (k = 1..floor(r)) with probability 1/r each, and MAX itself
/// with what is left when r is not whole. The same distribution as a bssplit.
pub(crate) fn bsrange(c: &mut Ctx, arg: &Arg) -> R {
    const FIX: &str = "write bsrange=MIN-MAX such as bsrange=4k-64k (or READ,WRITE[,TRIM] ranges)";
    let (read, write, trim) = split_per_ddir(arg.value()?).map_err(|why| arg.invalid(why, FIX))?;
    let lower = |text: Option<String>| -> Result<Vec<BlockSizeShare>, JobFileError> {
        let Some(text) = text else {
            return Ok(vec![BlockSizeShare {
                size: Bytes::kib(4),
                pct: 100.0,
            }]);
        };
        // fio takes MIN-MAX and MIN:MAX alike.
        let (min_text, max_text) = text.split_once(['-', ':']).unwrap_or((&text, &text));
        let min = parse_size(min_text, c.base).map_err(|why| arg.invalid(why, FIX))?;
        let max = parse_size(max_text, c.base).map_err(|why| arg.invalid(why, FIX))?;
        if min == Bytes::ZERO || max < min {
            return Err(arg.invalid(format!("the range {min_text}-{max_text} is empty"), FIX));
        }
        let (min, max) = (min.as_u64(), max.as_u64());
        let whole = max / min;
        if whole > MAX_BSRANGE_SIZES {
            return Err(arg.unsupported(
                format!("a range of {whole} sizes"),
                "use a narrower range or a larger minimum, or a bssplit",
            ));
        }
        let ratio = max as f64 / min as f64;
        let mut shares: Vec<BlockSizeShare> = (1..=whole)
            .map(|k| BlockSizeShare {
                size: Bytes(k * min),
                pct: 100.0 / ratio,
            })
            .collect();
        if max % min != 0 {
            shares.push(BlockSizeShare {
                size: Bytes(max),
                pct: 100.0 * (ratio - whole as f64) / ratio,
            });
        }
        Ok(shares)
    };
    let split = [lower(read)?, lower(write)?, lower(trim)?];
    c.b.bssplit = Some(Placed::at(split, arg));
    c.b.bs_read = None;
    c.b.bs_write = None;
    c.b.bs_trim = None;
    Ok(())
}
/// Checked in `finish`: iofit aligns random offsets to the smallest block size, fio's default.
pub(crate) fn blockalign(c: &mut Ctx, arg: &Arg) -> R {
    let (read, write) =
        split_per_direction(arg.value()?).map_err(|why| arg.invalid(why, "write blockalign=4k"))?;
    if read != write {
        return Err(arg.unsupported(
            "different alignments for reads and writes",
            "give one alignment",
        ));
    }
    let text = read.unwrap_or_default();
    let align = parse_size(&text, c.base).map_err(|why| arg.invalid(why, SIZE_FIX))?;
    c.b.blockalign = Some(Placed::at(align, arg));
    Ok(())
}

pub(crate) fn percentage_random(c: &mut Ctx, arg: &Arg) -> R {
    let fix = "write a percentage 0..100";
    let (read, write) = split_per_direction(arg.value()?).map_err(|why| arg.invalid(why, fix))?;
    let pct = |text: Option<String>| -> Result<Option<f64>, JobFileError> {
        text.map(|t| parse_percent(&t))
            .transpose()
            .map_err(|why| arg.invalid(why, fix))
    };
    let pct = match (pct(read)?, pct(write)?) {
        (Some(r), Some(w)) if (r - w).abs() > f64::EPSILON => {
            return Err(arg.unsupported(
                "different random shares for reads and writes",
                "give one percentage for both",
            ))
        }
        (Some(r), _) => r,
        (None, Some(w)) => w,
        (None, None) => 100.0,
    };
    c.b.percentage_random = Some(pct);
    Ok(())
}

/// fio's `percentage_sequential`: the complement of `percentage_random`.
pub(crate) fn percentage_sequential(c: &mut Ctx, arg: &Arg) -> R {
    let pct =
        parse_percent(arg.value()?).map_err(|why| arg.invalid(why, "write a percentage 0..100"))?;
    c.b.percentage_random = Some(100.0 - pct);
    Ok(())
}

/// fio's `random_distribution`: `random`, `zipf:THETA[:CENTER]`, `pareto:H[:CENTER]`,
/// `normal:DEV%[:CENTER]` (also `gauss`), `zoned:ACCESS/SIZE%:...`, `zoned_abs:ACCESS/BYTES:...`.
pub(crate) fn random_distribution(c: &mut Ctx, arg: &Arg) -> R {
    const FIX: &str =
        "write random, zipf:1.2, pareto:0.2, normal:10, zoned:60/10:40/90 or zoned_abs:60/1g:40/9g";
    let value = arg.value()?;
    let (name, params) = value.split_once(':').unwrap_or((value, ""));
    let number = |text: &str| -> Result<f64, JobFileError> {
        text.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| arg.invalid(format!("'{text}' is not a number"), FIX))
    };
    let input_and_center = || -> Result<(f64, Option<f64>), JobFileError> {
        let mut parts = params.split(':');
        let input = number(parts.next().unwrap_or_default())?;
        let center = parts.next().map(number).transpose()?;
        if let Some(center) = center.filter(|c| !(0.0..=1.0).contains(c)) {
            return Err(arg.invalid(format!("the center {center} is outside 0..1"), FIX));
        }
        Ok((input, center))
    };
    let dist = match name.trim() {
        "random" => RandomDistribution::Uniform,
        "zipf" => {
            let (theta, center) = input_and_center()?;
            if theta <= 0.0 || theta == 1.0 {
                return Err(arg.invalid("zipf needs a theta above 0 and not 1", FIX));
            }
            RandomDistribution::Zipf { theta, center }
        }
        "pareto" => {
            let (h, center) = input_and_center()?;
            if !(h > 0.0 && h < 1.0) {
                return Err(arg.invalid("pareto needs h between 0 and 1", FIX));
            }
            RandomDistribution::Pareto { h, center }
        }
        "normal" | "gauss" => {
            let (deviation_pct, center) = input_and_center()?;
            if !(0.0..=100.0).contains(&deviation_pct) {
                return Err(arg.invalid("the deviation is a percentage 0..100", FIX));
            }
            RandomDistribution::Normal {
                deviation_pct,
                center,
            }
        }
        "zoned" | "zoned_abs" => {
            let (read, write) = split_per_direction(params).map_err(|why| arg.invalid(why, FIX))?;
            if read != write {
                return Err(arg.unsupported(
                    "different zones for reads and writes",
                    "give one zone list for both",
                ));
            }
            let list = read.unwrap_or_default();
            let mut zones = Vec::new();
            let mut total = 0.0;
            let mut size_pct_total: f64 = 0.0;
            for entry in list.split(':') {
                let (access, size) = entry
                    .split_once('/')
                    .ok_or_else(|| arg.invalid(format!("'{entry}' is not ACCESS/SIZE"), FIX))?;
                let access_pct = parse_percent(access).map_err(|why| arg.invalid(why, FIX))?;
                let size = if name == "zoned" && size.trim().is_empty() {
                    // fio: a zone without a size takes what the zones before it left.
                    ZoneSize::Percent((100.0 - size_pct_total).max(0.0))
                } else if name == "zoned" {
                    let pct = parse_percent(size).map_err(|why| arg.invalid(why, FIX))?;
                    size_pct_total += pct;
                    ZoneSize::Percent(pct)
                } else {
                    ZoneSize::Bytes(parse_size(size, c.base).map_err(|why| arg.invalid(why, FIX))?)
                };
                total += access_pct;
                zones.push(AccessZone { access_pct, size });
            }
            if (total - 100.0).abs() > 1e-6 {
                return Err(arg.invalid(
                    format!("the access shares add up to {total}%, not 100%"),
                    FIX,
                ));
            }
            RandomDistribution::Zoned(zones)
        }
        other => {
            return Err(arg.invalid(format!("'{other}' is not one of fio's distributions"), FIX))
        }
    };
    if dist != RandomDistribution::Uniform {
        c.accepted("random_distribution", "random_distribution: each random IO is drawn independently from the distribution (no random map), the hot blocks scattered over the file by a hash, as fio does");
    }
    c.job.random_distribution = dist;
    Ok(())
}

pub(crate) fn random_generator(_: &mut Ctx, arg: &Arg) -> R {
    match arg.value()? {
        "tausworthe" | "lfsr" | "tausworthe64" => Ok(()),
        _ => Err(arg.invalid(
            "not one of fio's generators",
            "write tausworthe, lfsr or tausworthe64",
        )),
    }
}

/// `rw=MODE[:MODIFIER]`: the mode and fio's offset modifier, if any.
pub(crate) fn parse_rw<'a>(arg: &Arg<'a>) -> Result<(RwMode, Option<&'a str>), JobFileError> {
    let value = arg
        .value
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| {
            arg.loc
                .error(Some(arg.key), ErrorKind::MissingValue(arg.key.into()))
        })?;
    let (mode, modifier) = match value.split_once(':') {
        Some((mode, modifier)) => (mode.trim(), Some(modifier)),
        None => (value.trim(), None),
    };
    if let Some(rw) = RwMode::from_fio_name(mode) {
        return Ok((rw, modifier));
    }
    const MODES: [&str; 11] = [
        "read",
        "write",
        "randread",
        "randwrite",
        "rw",
        "readwrite",
        "randrw",
        "trim",
        "randtrim",
        "trimwrite",
        "randtrimwrite",
    ];
    Err(arg.loc.invalid(
        arg.key,
        mode,
        "not an IO pattern",
        match nearest(mode, MODES) {
            Some(near) => format!("did you mean rw={near}? ({})", RwMode::FIO_NAMES),
            None => format!("use {}", RwMode::FIO_NAMES),
        },
    ))
}

/// `4k/10:64k/90`; entries without a percentage share what is left evenly, as fio does.
pub(crate) fn parse_bssplit(
    text: &str,
    base: SizeBase,
) -> Result<Vec<BlockSizeShare>, crate::values::ValueError> {
    let mut shares = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    for entry in text.split(':') {
        let entry = entry.trim();
        if entry.is_empty() {
            return Err("an empty entry".into());
        }
        let (size_text, pct_text) = match entry.split_once('/') {
            Some((size, pct)) => (size, Some(pct.trim())),
            None => (entry, None),
        };
        let size = parse_size(size_text, base)?;
        if size == Bytes::ZERO {
            return Err("a block size of 0".into());
        }
        let pct = match pct_text {
            Some(p) if !p.is_empty() => parse_percent(p)?,
            _ => {
                open.push(shares.len());
                0.0
            }
        };
        shares.push(BlockSizeShare { size, pct });
    }
    let given: f64 = shares.iter().map(|s| s.pct).sum();
    if given > 100.0 + 1e-9 {
        return Err(format!("the percentages add up to {given}, more than 100").into());
    }
    if open.is_empty() {
        if (given - 100.0).abs() > 1e-9 {
            return Err(format!("the percentages add up to {given}, not 100").into());
        }
    } else {
        let each = (100.0 - given) / open.len() as f64;
        for index in open {
            shares[index].pct = each;
        }
    }
    Ok(shares)
}
