//! What every option's function works with: the job being built ([`Ctx`], with the values
//! settled later collected in [`Builder`]), the option as written ([`Arg`]) and its readers, and
//! where a value was written ([`Placed`]).

use crate::error::{ErrorKind, JobFileError, Location};
use crate::option_bounds::{Bounds, Unit};
use crate::values::{parse_bool, parse_size, parse_time, parse_u32};
use iofit_model::job::{BlockSizeShare, JobNote, JobSpec, RwMode, SizeSpec};
use iofit_model::units::{Bytes, SizeBase};
use std::time::Duration;

pub(super) const SIZE_FIX: &str =
    "write a number with an optional suffix such as 4k, 64KiB, 1m or 30g";
const TIME_FIX: &str = "write a number of seconds or a number with a unit: 30, 30s, 500ms, 2m, 1h";
pub(super) const COUNT_FIX: &str = "write a whole number";

/// A value with where it was set, for errors found once the whole job is known.
pub(crate) struct Placed<T> {
    pub value: T,
    pub loc: Location,
}

impl<T> Placed<T> {
    pub(super) fn at(value: T, arg: &Arg) -> Placed<T> {
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
    /// [`crate::fio::control::RateKind`]), when the option was given.
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
    /// Adds `note` to the job's notes once (an option given twice says it once).
    pub fn note(&mut self, note: JobNote) {
        if !self.job.notes.contains(&note) {
            self.job.notes.push(note);
        }
    }

    /// An option accepted with the table's (or its reader's) words on how iofit differs.
    pub fn accepted(&mut self, option: &'static str, how: &'static str) {
        self.note(JobNote::Accepted { option, how });
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

pub(super) type R = Result<(), JobFileError>;

/// A size as fio 3.33 reads it: like [`Arg::size`], but arithmetic without parentheses
/// (`size=10*1000*24105`, PerfKitBenchmarker's job file) is what fio makes of it, the leading
/// number in bytes, with a note saying so (fio evaluates only `(EXPRESSION)`).
pub(super) fn size_as_fio(c: &mut Ctx, arg: &Arg) -> Result<Bytes, JobFileError> {
    let value = arg.value()?;
    match crate::values::fio_unparenthesized_size(value) {
        Some(bytes) => {
            c.note(JobNote::UnparenthesizedSize {
                option: arg.key.to_string(),
                value: value.to_string(),
                bytes: Bytes(bytes),
            });
            Ok(Bytes(bytes))
        }
        None => arg.size(c.base),
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
