//! What each fio option does to the job being built: one small function per option, named by
//! the table in `fio_options.rs`. Values whose final meaning depends on other options (sizes per
//! file, block sizes, the target) are collected in [`Builder`] and settled by `finish`.

use crate::error::{nearest, ErrorKind, JobFileError, Location};
use crate::fio_engines::{self, EngineChoice};
use crate::option_bounds::{Bounds, Unit};
use crate::values::{
    parse_bool, parse_percent, parse_size, parse_time, parse_u32, parse_u64, split_per_ddir,
    split_per_direction,
};
use iofit_model::job::{
    AccessZone, BlockSizeShare, JobSpec, RandomDistribution, RwMode, SizeSpec, ZoneSize,
};
use iofit_model::placement::FileAmount;
use iofit_model::units::{Bytes, SizeBase};
use std::time::Duration;

const SIZE_FIX: &str = "write a number with an optional suffix such as 4k, 64KiB, 1m or 30g";
const TIME_FIX: &str = "write a number of seconds or a number with a unit: 30, 30s, 500ms, 2m, 1h";
const COUNT_FIX: &str = "write a whole number";

/// A value with where it was set, for errors found once the whole job is known.
pub(crate) struct Placed<T> {
    pub value: T,
    pub loc: Location,
}

impl<T> Placed<T> {
    fn at(value: T, arg: &Arg) -> Placed<T> {
        Placed {
            value,
            loc: arg.loc.clone(),
        }
    }
}

/// Dedupe keys settled together at the end (fio takes them in any order).
#[derive(Default)]
pub(crate) struct DedupeKeys {
    pub pct: Option<f64>,
    pub working_set_mode: bool,
    pub working_set_pct: Option<f64>,
    /// fio `dedupe_global`.
    pub global: bool,
}

/// Options whose final effect depends on others.
#[derive(Default)]
pub(crate) struct Builder {
    pub filename: Option<Placed<String>>,
    pub directory: Option<Placed<String>>,
    pub size: Option<Placed<SizeSpec>>,
    pub filesize: Option<Placed<Bytes>>,
    pub bs_read: Option<Placed<Bytes>>,
    pub bs_write: Option<Placed<Bytes>>,
    /// fio's third `bs` value: the size of trims.
    pub bs_trim: Option<Placed<Bytes>>,
    /// The trim values of `rate`, `rate_iops`, `rate_min`, `rate_iops_min` (by
    /// [`super::control::RateKind`]), when the option was given.
    pub trim_rates: [Option<Option<u64>>; 4],
    /// Read, write and trim shares (bssplit, or a bsrange as one).
    pub bssplit: Option<Placed<[Vec<BlockSizeShare>; 3]>>,
    pub blockalign: Option<Placed<Bytes>>,
    pub number_ios: Option<Placed<u64>>,
    pub rw: Option<RwMode>,
    pub rwmix_read_pct: Option<f64>,
    pub percentage_random: Option<f64>,
    pub nrfiles: Option<u32>,
    pub time_based: Option<Location>,
    pub buffered: Option<bool>,
    pub direct: Option<bool>,
    pub new_group: bool,
    pub invalidate: Option<Placed<bool>>,
    /// fio `fadvise_hint`: `None` for fio's default (1, the pattern of the job's rw).
    pub fadvise_hint: Option<FadviseChoice>,
    /// fio `--readonly`: where it was set.
    pub readonly: Option<Location>,
    /// Where the first write_*_log was set, and log_avg_msec (0: per-IO logs).
    pub log_at: Option<Location>,
    pub log_avg_msec: u64,
    /// fio's dedupe keys, settled together (`fio::data`).
    pub dedupe: DedupeKeys,
    /// log_hist_msec (0: not set).
    pub log_hist_msec: u64,
    /// fio `steadystate` (criterion and limit), `ss_dur`, `ss_ramp`: settled in `finish`.
    pub steady: Option<Placed<iofit_model::job::SteadyStateSpec>>,
    pub ss_dur: Option<Duration>,
    pub ss_ramp: Option<Duration>,
    /// fio `latency_target` and its companions: settled in `finish`.
    pub latency_target: Option<Placed<Duration>>,
    pub latency_window: Option<Duration>,
    pub latency_percentile: Option<f64>,
    pub latency_run: bool,
}

/// The job being built.
pub(crate) struct Ctx {
    pub job: JobSpec,
    pub b: Builder,
    pub base: SizeBase,
}

impl Ctx {
    pub fn note(&mut self, text: impl Into<String>) {
        let text = text.into();
        if !self.job.notes.contains(&text) {
            self.job.notes.push(text);
        }
    }
}

/// One option as written: `key` is the name as written (an alias stays an alias in errors).
pub(crate) struct Arg<'a> {
    pub key: &'a str,
    pub value: Option<&'a str>,
    pub loc: &'a Location,
    /// The option's bounds in the table, which [`Arg::bounded`] applies.
    pub bounds: Option<Bounds>,
}

impl Arg<'_> {
    /// The value, which must be present and not empty.
    pub fn value(&self) -> Result<&str, JobFileError> {
        match self.value.map(str::trim) {
            Some(value) if !value.is_empty() => Ok(value),
            _ => Err(self
                .loc
                .error(Some(self.key), ErrorKind::MissingValue(self.key.into()))),
        }
    }
    /// A boolean; bare is 1.
    pub fn flag(&self) -> Result<bool, JobFileError> {
        let value = self.value.map(str::trim);
        parse_bool(value).map_err(|why| self.invalid_as(value.unwrap_or(""), why, "write 1 or 0"))
    }
    pub fn invalid(&self, why: impl Into<String>, fix: &str) -> JobFileError {
        self.invalid_as(self.value.unwrap_or("").trim(), why, fix)
    }
    fn invalid_as(&self, value: &str, why: impl Into<String>, fix: &str) -> JobFileError {
        self.loc.invalid(self.key, value, why, fix)
    }
    pub fn unsupported(&self, why: impl Into<String>, fix: &str) -> JobFileError {
        self.loc
            .unsupported_value(self.key, self.value.unwrap_or("").trim(), why, fix)
    }
    pub(crate) fn size(&self, base: SizeBase) -> Result<Bytes, JobFileError> {
        let value = self.value()?;
        parse_size(value, base).map_err(|why| {
            if value.contains(['*', '+', '/', '^']) {
                // fio reads 10*1000 as 10 (the rest is an unknown suffix); only (10*1000) is
                // arithmetic.
                self.invalid(why, "fio evaluates arithmetic only inside parentheses: write (EXPRESSION), e.g. (10*1000)k")
            } else {
                self.invalid(why, SIZE_FIX)
            }
        })
    }
    pub(crate) fn time(&self) -> Result<Duration, JobFileError> {
        parse_time(self.value()?, Duration::from_secs(1)).map_err(|why| self.invalid(why, TIME_FIX))
    }
    pub(crate) fn count(&self) -> Result<u32, JobFileError> {
        parse_u32(self.value()?).map_err(|why| self.invalid(why, COUNT_FIX))
    }
    pub(crate) fn positive_count(&self, what: &str) -> Result<u32, JobFileError> {
        let count = self.count()?;
        if count == 0 {
            return Err(self.invalid(what.to_string(), &format!("write {}=1 or more", self.key)));
        }
        self.bounded(u64::from(count), what)?;
        Ok(count)
    }
    /// `value` checked against the option's bounds in the table (none: any value); `below`
    /// says what a value under the minimum means.
    pub(crate) fn bounded(&self, value: u64, below: &str) -> Result<u64, JobFileError> {
        self.bounded_with(value, below, None)
    }
    /// [`Arg::bounded`] with the fix to print (default: the range).
    pub(crate) fn bounded_with(
        &self,
        value: u64,
        below: &str,
        fix: Option<&str>,
    ) -> Result<u64, JobFileError> {
        let Some(bounds) = self.bounds else {
            return Ok(value);
        };
        let unit = match bounds.unit {
            Unit::Count => "",
            Unit::Bytes => " bytes",
            Unit::Percent => "%",
        };
        let range = format!("write {}={}..{}{unit}", self.key, bounds.min, bounds.max);
        let fix = fix.unwrap_or(&range);
        if value < bounds.min {
            return Err(self.invalid(below.to_string(), fix));
        }
        if value > bounds.max {
            let noun = bounds.noun;
            return Err(self.invalid(
                format!(
                    "{value}{unit}{noun} is above the largest {} iofit runs, {}{unit}",
                    self.key, bounds.max
                ),
                fix,
            ));
        }
        Ok(value)
    }
}

type R = Result<(), JobFileError>;

/// A size as fio 3.33 reads it: like [`Arg::size`], but arithmetic without parentheses
/// (`size=10*1000*24105`, PerfKitBenchmarker's job file) is what fio makes of it, the leading
/// number in bytes, with a note saying so (fio evaluates only `(EXPRESSION)`).
fn size_as_fio(c: &mut Ctx, arg: &Arg) -> Result<Bytes, JobFileError> {
    let value = arg.value()?;
    match crate::values::fio_unparenthesized_size(value) {
        Some(bytes) => {
            c.note(format!(
                "{}={value}: fio 3.33 reads this as {bytes} bytes (it evaluates arithmetic only inside parentheses) and so does iofit; write {}=({value}) for the product",
                arg.key, arg.key
            ));
            Ok(Bytes(bytes))
        }
        None => arg.size(c.base),
    }
}

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
            c.note(format!("mem={value}: iofit's IO buffers are one page-aligned allocation of its own, as fio's mem=malloc; where a buffer lives does not change what the storage sees"));
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
        c.note("allow_file_create=0: iofit still creates a job's missing files (fio would stop the job instead); existing files are never replaced");
    }
    Ok(())
}
/// fio's `atomic`: O_DIRECT with atomic writes. iofit runs the job direct, without an atomic
/// write flag (fio 3.33 passes none on Linux either).
pub(crate) fn atomic(c: &mut Ctx, arg: &Arg) -> R {
    if arg.flag()? {
        c.b.direct = Some(true);
        c.note("atomic=1: the job runs with direct=1, as in fio; no atomic-write flag is passed (fio 3.33 passes none on Linux either)");
    }
    Ok(())
}
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
        c.note(format!("filesize={value}: iofit drew one size for all the job's files, {drawn} bytes (fio draws one per file)"));
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
    let bytes = arg.size(c.base)?.as_u64();
    c.job.start.align_bytes = (bytes > 0).then_some(bytes);
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
        c.note("a bs range runs as a bssplit of the multiples of its smallest size, in the shares fio draws them");
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
pub(crate) fn ioengine(c: &mut Ctx, arg: &Arg) -> R {
    let value = arg.value()?;
    // fio accepts `external:path.so` and a trailing engine-specific `:option`.
    let name = value.split(':').next().unwrap_or(value);
    match fio_engines::engine(name) {
        EngineChoice::Run(kind) => c.job.engine = kind,
        EngineChoice::Mapped(kind, note) => {
            c.job.engine = kind;
            c.note(note);
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
/// fio's `percentage_sequential`: the complement of `percentage_random`.
pub(crate) fn percentage_sequential(c: &mut Ctx, arg: &Arg) -> R {
    let pct =
        parse_percent(arg.value()?).map_err(|why| arg.invalid(why, "write a percentage 0..100"))?;
    c.b.percentage_random = Some(100.0 - pct);
    Ok(())
}
pub(crate) fn nrfiles(c: &mut Ctx, arg: &Arg) -> R {
    c.b.nrfiles = Some(arg.positive_count("0 files")?);
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
pub(crate) fn io_submit_mode(c: &mut Ctx, arg: &Arg) -> R {
    match arg.value()? {
        "inline" => Ok(()),
        "offload" => {
            c.note("io_submit_mode=offload: iofit submits from the job's own thread (inline); with a rate limit each IO is still issued at its scheduled time");
            Ok(())
        }
        _ => Err(arg.invalid(
            "not a submit mode",
            "write io_submit_mode=inline or offload",
        )),
    }
}
/// Settled in `finish`: dropping the page cache matters only to buffered jobs.
/// fio's `fadvise_hint` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FadviseChoice {
    /// 0: no hint.
    None,
    /// 1: random for a random rw, sequential otherwise.
    Pattern,
    Fixed(iofit_model::job::FadviseHint),
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
        c.note("random_distribution: each random IO is drawn independently from the distribution (no random map), the hot blocks scattered over the file by a hash, as fio does");
    }
    c.job.random_distribution = dist;
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
