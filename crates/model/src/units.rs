//! Unit newtypes. Every quantity that crosses a crate boundary carries its unit in its type,
//! so that `Iops * Bytes = BytesPerSecond` type-checks and a MB/s can never be added to a MiB/s.
//!
//! Decimal versus binary units are the most common source of wrong storage numbers, so the
//! convention is fixed here once:
//! - [`MBps`] is 10^6 bytes per second. Azure's VM and disk tables use it.
//! - [`MiBps`] is 2^20 bytes per second. Azure NetApp Files' service levels use it.
//! - [`Bytes::parse`] reads sizes the way fio does by default (`kb_base=1024`): `8k` = 8 KiB =
//!   8192 bytes, `1m` = 1 MiB. The seed's IO-size table uses the same convention ("1 MB = 1024 KB").
//! - [`Bytes::parse_with_base`] takes an explicit base for the odd places (fio's `KB` with
//!   `kb_base=1000`, sar's kB) that count in powers of ten.
//! - Time: [`Seconds`], [`Millis`], [`Micros`] and [`Nanos`] are spans (generic over `f64` or
//!   `u64`, so JSON keeps its form); [`UnixSeconds`] and [`UnixMillis`] are instants;
//!   [`Latency`] is one request's time, printed in whichever unit reads best.
//! - Capacities: [`KiB`], [`GiB`] and [`TiB`] (powers of 1024, fractional) for sizes as clouds
//!   state them; [`Bytes`] for whole counts.

/// The arithmetic every generic unit (spans, capacities) shares: `+`, `+=` and `-` in the unit
/// for any number type, and for `f64` `* f64`, `/ f64`, unit / unit = plain ratio, and `Sum`.
macro_rules! generic_unit_arithmetic {
    ($name:ident) => {
        impl<T: ::std::ops::Add<Output = T>> ::std::ops::Add for $name<T> {
            type Output = $name<T>;
            fn add(self, other: $name<T>) -> $name<T> {
                $name(self.0 + other.0)
            }
        }

        impl<T: ::std::ops::AddAssign> ::std::ops::AddAssign for $name<T> {
            fn add_assign(&mut self, other: $name<T>) {
                self.0 += other.0;
            }
        }

        impl<T: ::std::ops::Sub<Output = T>> ::std::ops::Sub for $name<T> {
            type Output = $name<T>;
            fn sub(self, other: $name<T>) -> $name<T> {
                $name(self.0 - other.0)
            }
        }

        impl ::std::ops::Mul<f64> for $name<f64> {
            type Output = $name<f64>;
            fn mul(self, factor: f64) -> $name<f64> {
                $name(self.0 * factor)
            }
        }

        impl ::std::ops::Div<f64> for $name<f64> {
            type Output = $name<f64>;
            fn div(self, divisor: f64) -> $name<f64> {
                $name(self.0 / divisor)
            }
        }

        /// One amount over another of the same unit is a plain ratio.
        impl ::std::ops::Div for $name<f64> {
            type Output = f64;
            fn div(self, other: $name<f64>) -> f64 {
                self.0 / other.0
            }
        }

        impl ::std::iter::Sum for $name<f64> {
            fn sum<I: Iterator<Item = $name<f64>>>(items: I) -> $name<f64> {
                $name(items.map(|item| item.0).sum())
            }
        }
    };
}

mod size;
mod time;
pub use size::{GiB, KiB, TiB};
pub use time::{Micros, Millis, Nanos, Seconds, UnixMillis, UnixSeconds};

use serde::{Deserialize, Serialize};
use std::fmt;

/// `value` in a unit of `from` base units, in a unit of `to` base units: one multiplication or
/// division by their ratio (a power of ten for time, of two for capacity), the larger over the
/// smaller so that the ratio itself is exact.
fn convert(value: f64, from: f64, to: f64) -> f64 {
    if from >= to {
        value * (from / to)
    } else {
        value / (to / from)
    }
}
use std::ops::{Add, AddAssign, Div, Mul, Sub};
use std::time::Duration;

/// A number of bytes. Used for IO sizes, file sizes, capacities and stripe sizes.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Bytes(pub u64);

pub const KIB: u64 = 1024;
pub const MIB: u64 = 1024 * 1024;
pub const GIB: u64 = 1024 * 1024 * 1024;
pub const TIB: u64 = 1024 * GIB;

/// Which power a size suffix stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeBase {
    /// k = 1024 (fio's default, Linux tools, the seed's IO-size table).
    Binary,
    /// k = 1000 (SI).
    Decimal,
}

/// Why a size string could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SizeParseError {
    #[error("empty size; write a number with an optional suffix such as 8k, 64KiB, 1m or 30g")]
    Empty,
    #[error(
        "'{0}' is not a size; write a number with an optional suffix such as 8k, 64KiB, 1m or 30g"
    )]
    Invalid(String),
    #[error("'{0}' has an unknown size suffix '{1}'; use k, m, g, t, p (powers of 1024) or KB, MB, GB (powers of 1000 only with kb_base=1000)")]
    UnknownSuffix(String, String),
    #[error("'{0}' is too large to count in bytes")]
    Overflow(String),
}

impl Bytes {
    pub const ZERO: Bytes = Bytes(0);

    pub const fn kib(n: u64) -> Bytes {
        Bytes(n * KIB)
    }
    pub const fn mib(n: u64) -> Bytes {
        Bytes(n * MIB)
    }
    pub const fn gib(n: u64) -> Bytes {
        Bytes(n * GIB)
    }
    pub const fn tib(n: u64) -> Bytes {
        Bytes(n * TIB)
    }
    pub fn as_u64(self) -> u64 {
        self.0
    }
    pub fn as_f64(self) -> f64 {
        self.0 as f64
    }
    pub fn as_kib_f64(self) -> f64 {
        self.0 as f64 / KIB as f64
    }
    pub fn as_mib_f64(self) -> f64 {
        self.0 as f64 / MIB as f64
    }
    pub fn as_gib_f64(self) -> f64 {
        self.0 as f64 / GIB as f64
    }

    /// Parses a size the way fio does with its default `kb_base=1024`: a plain number is bytes;
    /// `k`/`K`/`KiB`/`KB` multiply by 1024, `m` by 1024^2, and so on. (fio counts `KB` as 1024
    /// too unless `kb_base=1000` is set; that is why [`SizeBase`] is explicit.)
    pub fn parse(text: &str) -> Result<Bytes, SizeParseError> {
        Self::parse_with_base(text, SizeBase::Binary)
    }

    /// Parses a size with the given base for suffixes. `KiB`/`MiB`... are always binary.
    pub fn parse_with_base(text: &str, base: SizeBase) -> Result<Bytes, SizeParseError> {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(SizeParseError::Empty);
        }
        let split_at = trimmed
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(trimmed.len());
        let (number_text, suffix) = trimmed.split_at(split_at);
        if number_text.is_empty() {
            return Err(SizeParseError::Invalid(text.to_string()));
        }
        let suffix_lower = suffix.trim().to_ascii_lowercase();
        let explicit_binary = suffix_lower.ends_with("ib");
        let step: f64 = if explicit_binary || base == SizeBase::Binary {
            1024.0
        } else {
            1000.0
        };
        let power = match suffix_lower.as_str() {
            "" | "b" => 0,
            "k" | "kb" | "kib" => 1,
            "m" | "mb" | "mib" => 2,
            "g" | "gb" | "gib" => 3,
            "t" | "tb" | "tib" => 4,
            "p" | "pb" | "pib" => 5,
            _ => {
                return Err(SizeParseError::UnknownSuffix(
                    text.to_string(),
                    suffix.to_string(),
                ))
            }
        };
        let number: f64 = number_text
            .parse()
            .map_err(|_| SizeParseError::Invalid(text.to_string()))?;
        let value = number * step.powi(power);
        if !value.is_finite() || value > u64::MAX as f64 {
            return Err(SizeParseError::Overflow(text.to_string()));
        }
        Ok(Bytes(value.round() as u64))
    }
}

impl fmt::Display for Bytes {
    /// Prints the shortest exact binary form: 8192 -> "8KiB", 1048576 -> "1MiB", 1000 -> "1000B".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let units = [(TIB, "TiB"), (GIB, "GiB"), (MIB, "MiB"), (KIB, "KiB")];
        for (size, name) in units {
            if self.0 >= size && self.0.is_multiple_of(size) {
                return write!(f, "{}{}", self.0 / size, name);
            }
        }
        write!(f, "{}B", self.0)
    }
}

impl Bytes {
    /// The one form iofit shows an IO (or stripe) size in to a reader, in every command and
    /// format: whole KiB or MiB as "8 KiB" / "1 MiB", anything else in KiB with one decimal and
    /// the exact bytes, "12.1 KiB (12,351 B)"; under 1 KiB, "512 B". ([`Display`](fmt::Display)
    /// keeps the compact "8KiB" that job files and fio's options read back.)
    pub fn readable(self) -> String {
        let bytes = self.0;
        if bytes >= MIB && bytes.is_multiple_of(MIB) {
            format!("{} MiB", group_thousands((bytes / MIB) as f64))
        } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
            format!("{} KiB", group_thousands((bytes / KIB) as f64))
        } else if bytes >= KIB {
            format!(
                "{:.1} KiB ({} B)",
                bytes as f64 / KIB as f64,
                group_thousands(bytes as f64)
            )
        } else {
            format!("{bytes} B")
        }
    }
}

impl Add for Bytes {
    type Output = Bytes;
    fn add(self, rhs: Bytes) -> Bytes {
        Bytes(self.0 + rhs.0)
    }
}
impl AddAssign for Bytes {
    fn add_assign(&mut self, rhs: Bytes) {
        self.0 += rhs.0;
    }
}
impl Sub for Bytes {
    type Output = Bytes;
    fn sub(self, rhs: Bytes) -> Bytes {
        Bytes(self.0.saturating_sub(rhs.0))
    }
}
impl Mul<u64> for Bytes {
    type Output = Bytes;
    fn mul(self, rhs: u64) -> Bytes {
        Bytes(self.0 * rhs)
    }
}

/// IO operations per second.
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Iops(pub f64);

impl Iops {
    pub fn get(self) -> f64 {
        self.0
    }
    pub fn min(self, other: Iops) -> Iops {
        Iops(self.0.min(other.0))
    }
}

impl fmt::Display for Iops {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} IOPS", group_thousands(self.0))
    }
}

impl Add for Iops {
    type Output = Iops;
    fn add(self, rhs: Iops) -> Iops {
        Iops(self.0 + rhs.0)
    }
}
impl Sub for Iops {
    type Output = Iops;
    fn sub(self, rhs: Iops) -> Iops {
        Iops(self.0 - rhs.0)
    }
}
impl Mul<f64> for Iops {
    type Output = Iops;
    fn mul(self, rhs: f64) -> Iops {
        Iops(self.0 * rhs)
    }
}

/// Throughput in bytes per second; the exact form from which MB/s and MiB/s are derived.
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(transparent)]
pub struct BytesPerSecond(pub f64);

impl BytesPerSecond {
    pub fn to_mb_s(self) -> MBps {
        MBps(self.0 / 1e6)
    }
    pub fn to_mib_s(self) -> MiBps {
        MiBps(self.0 / MIB as f64)
    }
}

/// `IOPS x IO size = throughput`.
impl Mul<Bytes> for Iops {
    type Output = BytesPerSecond;
    fn mul(self, rhs: Bytes) -> BytesPerSecond {
        BytesPerSecond(self.0 * rhs.0 as f64)
    }
}

/// `throughput / IO size = IOPS`.
impl Div<Bytes> for BytesPerSecond {
    type Output = Iops;
    fn div(self, rhs: Bytes) -> Iops {
        assert!(rhs.0 > 0, "IO size must be positive");
        Iops(self.0 / rhs.0 as f64)
    }
}

/// Megabytes per second, 1 MB = 10^6 bytes, as Azure's VM and disk tables count.
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(transparent)]
pub struct MBps(pub f64);

impl MBps {
    pub fn get(self) -> f64 {
        self.0
    }
    pub fn to_bytes_per_second(self) -> BytesPerSecond {
        BytesPerSecond(self.0 * 1e6)
    }
    pub fn min(self, other: MBps) -> MBps {
        MBps(self.0.min(other.0))
    }
}

impl fmt::Display for MBps {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} MB/s", group_thousands(self.0))
    }
}

impl Add for MBps {
    type Output = MBps;
    fn add(self, rhs: MBps) -> MBps {
        MBps(self.0 + rhs.0)
    }
}
impl Mul<f64> for MBps {
    type Output = MBps;
    fn mul(self, rhs: f64) -> MBps {
        MBps(self.0 * rhs)
    }
}

/// Mebibytes per second, 1 MiB = 2^20 bytes, as Azure NetApp Files' service levels count.
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(transparent)]
pub struct MiBps(pub f64);

impl MiBps {
    pub fn get(self) -> f64 {
        self.0
    }
    pub fn to_bytes_per_second(self) -> BytesPerSecond {
        BytesPerSecond(self.0 * MIB as f64)
    }
    pub fn to_mb_s(self) -> MBps {
        self.to_bytes_per_second().to_mb_s()
    }
}

impl fmt::Display for MiBps {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} MiB/s", group_thousands(self.0))
    }
}

/// The time one request takes, stored in nanoseconds as a float so that averages keep fractions.
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Latency(pub f64);

impl Latency {
    pub fn from_nanos(nanos: f64) -> Latency {
        Latency(nanos)
    }
    pub fn from_micros(micros: f64) -> Latency {
        Latency(micros * 1e3)
    }
    pub fn from_millis(millis: f64) -> Latency {
        Latency(millis * 1e6)
    }
    pub fn from_secs(secs: f64) -> Latency {
        Latency(secs * 1e9)
    }
    pub fn from_duration(duration: Duration) -> Latency {
        Latency(duration.as_nanos() as f64)
    }
    pub fn as_nanos(self) -> f64 {
        self.0
    }
    pub fn as_micros(self) -> f64 {
        self.0 / 1e3
    }
    pub fn as_millis(self) -> f64 {
        self.0 / 1e6
    }
    pub fn as_secs(self) -> f64 {
        self.0 / 1e9
    }
}

impl fmt::Display for Latency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let nanos = self.0;
        if nanos >= 1e9 {
            write!(f, "{:.2} s", nanos / 1e9)
        } else if nanos >= 1e6 {
            write!(f, "{:.2} ms", nanos / 1e6)
        } else if nanos >= 1e3 {
            write!(f, "{:.1} us", nanos / 1e3)
        } else {
            write!(f, "{nanos:.0} ns")
        }
    }
}

/// Formats a number with thousands separators and at most one decimal: 51200 -> "51,200",
/// 3.25 -> "3.3" (rounded half away from zero), 0.5 -> "0.5".
pub fn group_thousands(value: f64) -> String {
    if !value.is_finite() {
        return format!("{value}");
    }
    let rounded = (value * 10.0).round() / 10.0;
    let negative = rounded < 0.0;
    let abs = rounded.abs();
    let whole = abs.trunc() as u64;
    let tenth = ((abs - abs.trunc()) * 10.0).round() as u64;
    let digits = whole.to_string();
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3 + 3);
    for (index, ch) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(ch);
    }
    if tenth > 0 && tenth < 10 {
        grouped.push('.');
        grouped.push_str(&tenth.to_string());
    }
    if negative {
        format!("-{grouped}")
    } else {
        grouped
    }
}

/// Serde for a [`Bytes`] field whose JSON has always been a float (`8192.0`, from the days it
/// was an `f64`): `#[serde(with = "iofit_model::units::bytes_as_f64")]` keeps that JSON byte
/// for byte. Reading takes any non-negative number and rounds it to whole bytes.
pub mod bytes_as_f64 {
    use super::Bytes;
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &Bytes, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(bytes.as_f64())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Bytes, D::Error> {
        let value = f64::deserialize(deserializer)?;
        if !(value.is_finite() && value >= 0.0 && value <= u64::MAX as f64) {
            return Err(D::Error::custom(format!(
                "{value} is not a number of bytes; write a whole number of at least 0"
            )));
        }
        Ok(Bytes(value.round() as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readable_sizes_have_one_form() {
        assert_eq!(Bytes(8192).readable(), "8 KiB");
        assert_eq!(Bytes(12_351).readable(), "12.1 KiB (12,351 B)");
        assert_eq!(Bytes(16_231).readable(), "15.9 KiB (16,231 B)");
        assert_eq!(Bytes(1 << 20).readable(), "1 MiB");
        assert_eq!(Bytes(1536 * 1024).readable(), "1,536 KiB");
        assert_eq!(Bytes(512).readable(), "512 B");
    }

    #[test]
    fn sizes_parse_as_fio_reads_them() {
        assert_eq!(Bytes::parse("8k").unwrap(), Bytes(8192));
        assert_eq!(Bytes::parse("8K").unwrap(), Bytes(8192));
        assert_eq!(Bytes::parse("64KiB").unwrap(), Bytes(65536));
        assert_eq!(Bytes::parse("1m").unwrap(), Bytes(1 << 20));
        assert_eq!(Bytes::parse("30g").unwrap(), Bytes(30 << 30));
        assert_eq!(Bytes::parse("693g").unwrap(), Bytes(693 << 30));
        assert_eq!(Bytes::parse("4096").unwrap(), Bytes(4096));
        assert_eq!(Bytes::parse("1.5k").unwrap(), Bytes(1536));
        assert_eq!(
            Bytes::parse_with_base("8KB", SizeBase::Decimal).unwrap(),
            Bytes(8000)
        );
        assert_eq!(
            Bytes::parse_with_base("8KiB", SizeBase::Decimal).unwrap(),
            Bytes(8192)
        );
    }

    #[test]
    fn bad_sizes_say_what_to_write() {
        assert_eq!(Bytes::parse(""), Err(SizeParseError::Empty));
        assert!(matches!(Bytes::parse("k"), Err(SizeParseError::Invalid(_))));
        assert!(matches!(
            Bytes::parse("8x"),
            Err(SizeParseError::UnknownSuffix(_, _))
        ));
        assert!(matches!(
            Bytes::parse("99999999999p"),
            Err(SizeParseError::Overflow(_))
        ));
        assert!(Bytes::parse("1.2.3k").is_err());
    }

    #[test]
    fn iops_times_size_is_throughput() {
        // The seed's P30 table: 5,000 IOPS x 8 KB = 40 MB/s when 1 MB = 1024 KB.
        let throughput = Iops(5000.0) * Bytes::kib(8);
        assert_eq!(throughput.to_mib_s(), MiBps(5000.0 * 8.0 / 1024.0));
        assert!((throughput.to_mb_s().0 - 40.96).abs() < 1e-9);
        assert_eq!(throughput / Bytes::kib(8), Iops(5000.0));
    }

    #[test]
    fn display_forms() {
        assert_eq!(Bytes(8192).to_string(), "8KiB");
        assert_eq!(Bytes(1000).to_string(), "1000B");
        assert_eq!(Bytes::gib(30).to_string(), "30GiB");
        assert_eq!(Iops(51200.0).to_string(), "51,200 IOPS");
        assert_eq!(MBps(512.0).to_string(), "512 MB/s");
        assert_eq!(Latency::from_millis(1.0).to_string(), "1.00 ms");
        assert_eq!(Latency::from_micros(85.0).to_string(), "85.0 us");
        assert_eq!(group_thousands(1234567.25), "1,234,567.3");
        assert_eq!(group_thousands(-1000.0), "-1,000");
    }

    #[test]
    fn netapp_mib_is_not_mb() {
        assert!((MiBps(1.0).to_mb_s().0 - 1.048576).abs() < 1e-12);
    }

    #[test]
    fn bytes_as_f64_keeps_the_float_json() {
        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        struct Io {
            #[serde(with = "bytes_as_f64")]
            io_size_bytes: Bytes,
        }
        let io = Io {
            io_size_bytes: Bytes::kib(8),
        };
        let json = serde_json::to_string(&io).unwrap();
        assert_eq!(json, r#"{"io_size_bytes":8192.0}"#);
        assert_eq!(serde_json::from_str::<Io>(&json).unwrap(), io);
        assert_eq!(
            serde_json::from_str::<Io>(r#"{"io_size_bytes":4096}"#).unwrap(),
            Io {
                io_size_bytes: Bytes(4096)
            }
        );
        assert!(serde_json::from_str::<Io>(r#"{"io_size_bytes":-1.0}"#).is_err());
    }
}
