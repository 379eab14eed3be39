//! Capacities in the binary unit their name says: KiB, GiB and TiB (powers of 1024).
//!
//! Clouds state disk sizes, memory and quotas in GiB or TiB, often with fractions (a VM's
//! 0.5 GiB, a NetApp quota of 1.5 TiB, a per-GiB rate applied to 4,095.5 GiB), so these types
//! hold a fraction where [`Bytes`] holds a whole count. Like the time spans, each is generic over
//! its number so that a field keeps its JSON form (`KiB<u64>` serializes as `256`, `GiB` as
//! `1024.0`), and none has `Display`: each place that prints one says how many decimals, so typing
//! a field cannot change printed output.
//!
//! ```
//! use iofit_model::units::{Bytes, GiB, TiB};
//! let disk = GiB(1024.0);
//! assert_eq!(disk.to_tib(), TiB(1.0));
//! assert_eq!(disk.to_bytes_f64(), 1024.0 * 1024.0 * 1024.0 * 1024.0);
//! assert_eq!(GiB::from_bytes(Bytes(3 * 1024 * 1024 * 1024)), GiB(3.0));
//! assert_eq!(GiB(2048.0) / GiB(512.0), 4.0);
//! ```

use super::Bytes;
use serde::{Deserialize, Serialize};

// Conversions multiply or divide once by the exact ratio of the units, a power of two, so
// that `GiB(x).to_tib()` is exactly `x / 1024` (a detour through bytes would round twice).
use super::convert;

macro_rules! capacity {
    ($(#[$doc:meta])* $name:ident, $bytes_per_unit:expr) => {
        $(#[$doc])*
        #[derive(
            Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
        )]
        #[serde(transparent)]
        pub struct $name<T = f64>(pub T);

        impl $name<f64> {
            /// Bytes in one of this unit.
            pub const BYTES_PER_UNIT: f64 = $bytes_per_unit;

            pub fn get(self) -> f64 {
                self.0
            }
            /// The capacity in bytes, as a float (a fractional capacity need not be whole bytes).
            pub fn to_bytes_f64(self) -> f64 {
                self.0 * Self::BYTES_PER_UNIT
            }
            pub fn from_bytes(bytes: Bytes) -> Self {
                $name(bytes.0 as f64 / Self::BYTES_PER_UNIT)
            }
            pub fn to_kib(self) -> KiB {
                KiB(convert(self.0, Self::BYTES_PER_UNIT, KiB::BYTES_PER_UNIT))
            }
            pub fn to_gib(self) -> GiB {
                GiB(convert(self.0, Self::BYTES_PER_UNIT, GiB::BYTES_PER_UNIT))
            }
            pub fn to_tib(self) -> TiB {
                TiB(convert(self.0, Self::BYTES_PER_UNIT, TiB::BYTES_PER_UNIT))
            }
            pub fn max(self, other: Self) -> Self {
                $name(self.0.max(other.0))
            }
            pub fn min(self, other: Self) -> Self {
                $name(self.0.min(other.0))
            }
            /// The next whole unit at or above this one (clouds sell whole GiB).
            pub fn ceil(self) -> Self {
                $name(self.0.ceil())
            }
        }

        impl $name<u64> {
            pub fn get(self) -> u64 {
                self.0
            }
            /// The same capacity as a float, for arithmetic that keeps fractions.
            pub fn as_f64(self) -> $name<f64> {
                $name(self.0 as f64)
            }
            /// The capacity in bytes, or `None` past `u64::MAX`.
            pub fn to_bytes(self) -> Option<Bytes> {
                self.0.checked_mul($bytes_per_unit as u64).map(Bytes)
            }
        }

        generic_unit_arithmetic!($name);
    };
}

capacity!(
    /// A capacity in kibibytes (2^10 bytes): IO-size limits and the units clouds count IOs in.
    KiB,
    1024.0
);
capacity!(
    /// A capacity in gibibytes (2^30 bytes): disk sizes, memory, cache and temporary storage.
    GiB,
    1024.0 * 1024.0 * 1024.0
);
capacity!(
    /// A capacity in tebibytes (2^40 bytes): NetApp quotas and capacity pools.
    TiB,
    1024.0 * 1024.0 * 1024.0 * 1024.0
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_are_exact_powers_of_two() {
        assert_eq!(GiB(1.5).to_tib(), TiB(1.5 / 1024.0));
        assert_eq!(TiB(4.0).to_gib(), GiB(4096.0));
        assert_eq!(KiB(256.0).to_gib(), GiB(256.0 / 1024.0 / 1024.0));
        assert_eq!(GiB(1.0).to_kib(), KiB(1024.0 * 1024.0));
        // A round trip through two conversions returns the value it started with.
        for value in [0.5, 1.0, 3.0, 4095.5, 65_536.0, 1e9] {
            assert_eq!(GiB(value).to_tib().to_gib(), GiB(value));
            assert_eq!(GiB(value).to_kib().to_gib(), GiB(value));
        }
    }

    #[test]
    fn bytes_in_and_out_agree() {
        let bytes = Bytes(5 * 1024 * 1024 * 1024 + 512 * 1024 * 1024);
        assert_eq!(GiB::from_bytes(bytes), GiB(5.5));
        assert_eq!(GiB(5.5).to_bytes_f64(), bytes.0 as f64);
        assert_eq!(KiB(256u64).to_bytes(), Some(Bytes(262_144)));
        assert_eq!(TiB(u64::MAX).to_bytes(), None);
    }

    #[test]
    fn capacities_keep_their_json_number_form() {
        assert_eq!(serde_json::to_string(&KiB(256u64)).unwrap(), "256");
        assert_eq!(serde_json::to_string(&GiB(1024.0)).unwrap(), "1024.0");
        let read: GiB = serde_json::from_str("32").unwrap();
        assert_eq!(read, GiB(32.0));
        let read: Option<TiB> = toml::from_str::<toml::Value>("q = 2")
            .unwrap()
            .get("q")
            .map(|value| value.clone().try_into().unwrap());
        assert_eq!(read, Some(TiB(2.0)));
    }

    #[test]
    fn arithmetic_keeps_the_unit() {
        let disks = [GiB(512.0), GiB(1024.0), GiB(0.5)];
        assert_eq!(disks.iter().copied().sum::<GiB>(), GiB(1536.5));
        assert_eq!(GiB(1024.0) * 2.0, GiB(2048.0));
        assert_eq!(GiB(1024.0) / 4.0, GiB(256.0));
        assert_eq!(GiB(100.2).ceil(), GiB(101.0));
        assert_eq!(GiB(3.0) - GiB(1.0) + GiB(0.5), GiB(2.5));
    }
}
