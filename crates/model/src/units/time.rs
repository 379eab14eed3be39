//! Spans and instants of time, in the unit their name says.
//!
//! A span type is generic over its number so that a field keeps the JSON it always had:
//! `Seconds<u64>` serializes as `60`, `Seconds` (`f64`) as `60.0`, and fio's whole-nanosecond
//! minimums stay `Nanos<u64>` while its means are `Nanos` (`f64`). The types have no `Display`:
//! every place that prints one says which unit and how many decimals, so adding the type to a
//! field can never change what a report prints.
//!
//! ```
//! use iofit_model::units::{Millis, Nanos, Seconds};
//! let runtime = Seconds(60.0);
//! assert_eq!(runtime.to_millis(), Millis(60_000.0));
//! let min_latency = Nanos(1_500u64);
//! assert_eq!(min_latency.as_f64().to_micros().get(), 1.5);
//! ```

use serde::{Deserialize, Serialize};
use std::time::Duration;

// Conversions multiply or divide once by the exact ratio of the units, a power of ten, so
// that `Millis(x).to_seconds()` is exactly `x / 1e3` (a detour through nanoseconds would round
// twice).
use super::convert;

macro_rules! span {
    ($(#[$doc:meta])* $name:ident, $nanos_per_unit:expr) => {
        $(#[$doc])*
        #[derive(
            Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
        )]
        #[serde(transparent)]
        pub struct $name<T = f64>(pub T);

        impl $name<f64> {
            /// Nanoseconds in one of this unit.
            pub const NANOS_PER_UNIT: f64 = $nanos_per_unit;

            pub fn get(self) -> f64 {
                self.0
            }
            pub fn to_seconds(self) -> Seconds {
                Seconds(convert(self.0, Self::NANOS_PER_UNIT, 1e9))
            }
            pub fn to_millis(self) -> Millis {
                Millis(convert(self.0, Self::NANOS_PER_UNIT, 1e6))
            }
            pub fn to_micros(self) -> Micros {
                Micros(convert(self.0, Self::NANOS_PER_UNIT, 1e3))
            }
            pub fn to_nanos(self) -> Nanos {
                Nanos(convert(self.0, Self::NANOS_PER_UNIT, 1.0))
            }
            /// The span as a `Duration`; negative and non-finite spans become zero, because a
            /// `Duration` cannot hold them.
            pub fn to_duration(self) -> Duration {
                let seconds = self.to_seconds().0;
                if seconds.is_finite() && seconds > 0.0 {
                    Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX)
                } else {
                    Duration::ZERO
                }
            }
            pub fn from_duration(duration: Duration) -> Self {
                $name(duration.as_secs_f64() * 1e9 / Self::NANOS_PER_UNIT)
            }
            pub fn max(self, other: Self) -> Self {
                $name(self.0.max(other.0))
            }
            pub fn min(self, other: Self) -> Self {
                $name(self.0.min(other.0))
            }
        }

        impl $name<u64> {
            pub fn get(self) -> u64 {
                self.0
            }
            /// The same span as a float, for arithmetic that keeps fractions.
            pub fn as_f64(self) -> $name<f64> {
                $name(self.0 as f64)
            }
        }

        /// A signed span: a clock's offset from another, which may be behind.
        impl $name<i64> {
            pub fn get(self) -> i64 {
                self.0
            }
            /// The same span as a float, for arithmetic that keeps fractions.
            pub fn as_f64(self) -> $name<f64> {
                $name(self.0 as f64)
            }
        }

        generic_unit_arithmetic!($name);
    };
}

span!(
    /// A span in seconds: run times, ramp times, sampling intervals, burst windows.
    Seconds,
    1e9
);
span!(
    /// A span in milliseconds: service times and latencies as sysstat and Azure state them.
    Millis,
    1e6
);
span!(
    /// A span in microseconds: latencies as vdbench and fio's `clat_us` state them.
    Micros,
    1e3
);
span!(
    /// A span in nanoseconds: fio's JSON latencies and the engine's clock.
    Nanos,
    1.0
);

impl Nanos<u64> {
    pub fn from_duration(duration: Duration) -> Nanos<u64> {
        Nanos(u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX))
    }
    pub fn to_duration(self) -> Duration {
        Duration::from_nanos(self.0)
    }
}

impl Seconds<u64> {
    pub fn from_duration(duration: Duration) -> Seconds<u64> {
        Seconds(duration.as_secs())
    }
    pub fn to_duration(self) -> Duration {
        Duration::from_secs(self.0)
    }
}

impl Millis<u64> {
    pub fn to_duration(self) -> Duration {
        Duration::from_millis(self.0)
    }
}

impl Micros<u64> {
    pub fn to_duration(self) -> Duration {
        Duration::from_micros(self.0)
    }
}

/// An instant: seconds since 1970-01-01 00:00 UTC, whole (`u64`, sar's and Azure Monitor's
/// timestamps) or fractional (`f64`, a run's start to the microsecond).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct UnixSeconds<T = u64>(pub T);

/// An instant: whole milliseconds since 1970-01-01 00:00 UTC (fio's `timestamp_ms`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct UnixMillis(pub u64);

impl UnixSeconds {
    pub fn get(self) -> u64 {
        self.0
    }
    /// The span from `earlier` to this instant; zero when `earlier` is later.
    pub fn since(self, earlier: UnixSeconds) -> Seconds<u64> {
        Seconds(self.0.saturating_sub(earlier.0))
    }
}

impl UnixSeconds<f64> {
    pub fn get(self) -> f64 {
        self.0
    }
}

impl UnixMillis {
    pub fn get(self) -> u64 {
        self.0
    }
    /// The span from `earlier` to this instant; zero when `earlier` is later.
    pub fn since(self, earlier: UnixMillis) -> Millis<u64> {
        Millis(self.0.saturating_sub(earlier.0))
    }
    pub fn to_unix_seconds(self) -> UnixSeconds {
        UnixSeconds(self.0 / 1000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_convert_between_units_exactly_for_round_numbers() {
        assert_eq!(Seconds(1.5).to_millis(), Millis(1500.0));
        assert_eq!(Millis(2.0).to_micros(), Micros(2000.0));
        assert_eq!(Micros(3.0).to_nanos(), Nanos(3000.0));
        assert_eq!(Nanos(4_000_000_000.0).to_seconds(), Seconds(4.0));
        assert_eq!(Nanos(7u64).as_f64(), Nanos(7.0));
        assert_eq!(Millis(250.0).to_duration(), Duration::from_millis(250));
        assert_eq!(Seconds(-1.0).to_duration(), Duration::ZERO);
        assert_eq!(Seconds(f64::NAN).to_duration(), Duration::ZERO);
        assert_eq!(
            Nanos::<u64>::from_duration(Duration::from_micros(5)),
            Nanos(5000u64)
        );
        assert_eq!(
            Micros::from_duration(Duration::from_millis(1)),
            Micros(1000.0)
        );
    }

    #[test]
    fn conversions_round_once_as_the_division_they_stand_for() {
        for x in [0.1, 1.0 / 3.0, 123.456_789, 8.7e-3, 1e300] {
            assert_eq!(Millis(x).to_seconds().get(), x / 1e3);
            assert_eq!(Micros(x).to_millis().get(), x / 1e3);
            assert_eq!(Nanos(x).to_millis().get(), x / 1e6);
            assert_eq!(Seconds(x).to_millis().get(), x * 1e3);
            assert_eq!(Millis(x).to_nanos().get(), x * 1e6);
        }
    }

    #[test]
    fn spans_keep_their_json_number_form() {
        assert_eq!(serde_json::to_string(&Seconds(60u64)).unwrap(), "60");
        assert_eq!(serde_json::to_string(&Seconds(60.0)).unwrap(), "60.0");
        assert_eq!(serde_json::to_string(&Nanos(1234u64)).unwrap(), "1234");
        assert_eq!(serde_json::from_str::<Millis>("2.5").unwrap(), Millis(2.5));
        assert_eq!(serde_json::to_string(&UnixMillis(17)).unwrap(), "17");
    }

    #[test]
    fn arithmetic_stays_in_the_unit() {
        assert_eq!(Seconds(1.0) + Seconds(2.0), Seconds(3.0));
        assert_eq!(Nanos(5u64) - Nanos(2u64), Nanos(3u64));
        let mut total = Millis(1.0);
        total += Millis(0.5);
        assert_eq!(total, Millis(1.5));
        assert_eq!(Seconds(3.0) / Seconds(1.5), 2.0);
        assert_eq!(Micros(2.0) * 1.5, Micros(3.0));
        assert_eq!(UnixMillis(5_000).since(UnixMillis(2_000)), Millis(3_000u64));
        assert_eq!(UnixSeconds(1).since(UnixSeconds(9)), Seconds(0u64));
        assert_eq!(UnixMillis(61_999).to_unix_seconds(), UnixSeconds(61));
    }
}
