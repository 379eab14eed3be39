//! fio's latency bins (`FIO_IO_U_PLAT_*` in fio's `stat.h`): the bucket layout fio keeps its
//! latency histograms in, prints as `bins` in `--output-format=json+` and computes its
//! percentiles from. Values below 128 ns have one bucket each; above, every power of two is
//! split into 64 buckets (6 bits: a relative error of at most 1/128), up to 29 groups.
//!
//! iofit records latencies in HDR histograms (finer: 3 significant digits); this module maps
//! them onto fio's layout so that tools reading json+ (fio_jsonplus_clat2csv) see fio's keys,
//! and so that a percentile computed the way fio computes it can be given for any
//! `percentile_list`.

/// Bits of a value kept per bucket group (`FIO_IO_U_PLAT_BITS`).
pub const PLAT_BITS: u32 = 6;
/// Buckets per group (`FIO_IO_U_PLAT_VAL`).
pub const PLAT_VAL: u64 = 1 << PLAT_BITS;
/// Groups (`FIO_IO_U_PLAT_GROUP_NR`).
pub const PLAT_GROUP_NR: u64 = 29;
/// Buckets in all (`FIO_IO_U_PLAT_NR`, 1856).
pub const PLAT_NR: u64 = PLAT_GROUP_NR * PLAT_VAL;

/// The bucket index of `value_ns` (fio's `plat_val_to_idx`).
pub fn index_of(value_ns: u64) -> u64 {
    let msb = if value_ns == 0 {
        0
    } else {
        63 - value_ns.leading_zeros()
    };
    if msb <= PLAT_BITS {
        return value_ns;
    }
    let error_bits = msb - PLAT_BITS;
    let base = u64::from(error_bits + 1) << PLAT_BITS;
    let offset = (PLAT_VAL - 1) & (value_ns >> error_bits);
    (base + offset).min(PLAT_NR - 1)
}

/// The value fio reports for bucket `index` (fio's `plat_idx_to_val`: the bucket's middle).
pub fn value_of(index: u64) -> u64 {
    if index < (PLAT_VAL << 1) {
        return index;
    }
    let error_bits = (index >> PLAT_BITS) - 1;
    let base = 1u64 << (error_bits + u64::from(PLAT_BITS));
    let k = index % PLAT_VAL;
    base + ((k as f64 + 0.5) * (1u64 << error_bits) as f64) as u64
}

/// fio's latency ranges: 10 in ns, 10 in µs, 12 in ms.
pub const RANGES: usize = 32;
/// The upper bounds fio labels its ranges with (`2=` holds values below 2 of the unit, `4=`
/// values 2..4, ..., `1000=` 750..1000); ms adds `2000=` and `>=2000=`.
pub const RANGE_LABELS: [&str; 12] = [
    "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
];

/// Which of fio's latency ranges holds `value_ns` (fio's `io_u_mark_latency`): 0..10 in ns
/// below 1 µs, 10..20 in µs below 1 ms, 20..32 in ms.
pub fn range_index(value_ns: u64) -> usize {
    let (unit_value, base, last) = if value_ns < 1_000 {
        (value_ns, 0, 9)
    } else if value_ns < 1_000_000 {
        (value_ns / 1_000, 10, 9)
    } else {
        (value_ns / 1_000_000, 20, 11)
    };
    let index = match unit_value {
        0..=1 => 0,
        2..=3 => 1,
        4..=9 => 2,
        10..=19 => 3,
        20..=49 => 4,
        50..=99 => 5,
        100..=249 => 6,
        250..=499 => 7,
        500..=749 => 8,
        750..=999 => 9,
        1000..=1999 => 10,
        _ => 11,
    };
    base + index.min(last)
}

/// Adds `count` samples of `value_ns` to `bins` (bucket value -> count, ascending), merging
/// into the last entry when it is the same bucket (values arrive in ascending order).
pub(crate) fn push(bins: &mut Vec<(u64, u64)>, value_ns: u64, count: u64) {
    let bucket = value_of(index_of(value_ns));
    match bins.last_mut() {
        Some((last, n)) if *last == bucket => *n += count,
        _ => bins.push((bucket, count)),
    }
}

/// The value at `percentile` of `bins` as fio computes it (`calc_clat_percentiles`): the
/// first bucket whose running count reaches `percentile`% of all samples. 0 when empty.
pub fn percentile_ns(bins: &[(u64, u64)], percentile: f64) -> u64 {
    let total: u64 = bins.iter().map(|(_, n)| n).sum();
    if total == 0 {
        return 0;
    }
    let wanted = percentile / 100.0 * total as f64;
    let mut sum = 0u64;
    for &(value, n) in bins {
        sum += n;
        if sum as f64 >= wanted {
            return value;
        }
    }
    bins.last().map_or(0, |(value, _)| *value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_matches_fio() {
        // Values read from fio 3.33's json+ output: 1640 ns is its own bucket's middle.
        assert_eq!(value_of(index_of(1640)), 1640);
        assert_eq!(index_of(1640), 358);
        assert_eq!(index_of(100), 100);
        assert_eq!(value_of(127), 127);
        // 128..=129 share a bucket whose middle is 128 + 0.5 * 2 = 129.
        assert_eq!(value_of(index_of(128)), 129);
        assert_eq!(index_of(u64::MAX), PLAT_NR - 1);
        // Every bucket's value falls back into the same bucket.
        for index in 0..PLAT_NR - 1 {
            assert_eq!(index_of(value_of(index)), index, "bucket {index}");
        }
    }

    #[test]
    fn ranges_like_fio() {
        assert_eq!(range_index(1), 0);
        assert_eq!(range_index(999), 9);
        assert_eq!(range_index(1_000), 10);
        assert_eq!(range_index(249_999), 16);
        assert_eq!(range_index(250_000), 17);
        assert_eq!(range_index(1_000_000), 20);
        assert_eq!(range_index(1_999_999_999), 30);
        assert_eq!(range_index(2_000_000_000), 31);
    }

    #[test]
    fn percentiles_like_fio() {
        let bins = vec![(100, 50), (200, 40), (400, 10)];
        assert_eq!(percentile_ns(&bins, 50.0), 100);
        assert_eq!(percentile_ns(&bins, 50.1), 200);
        assert_eq!(percentile_ns(&bins, 99.0), 400);
        assert_eq!(percentile_ns(&[], 99.0), 0);
    }
}
