//! The statistics a summary is made of: percentiles (by selection, not a full sort), the
//! rounding and printing of reported figures, the sequential share of a volume's IO, and the
//! scratch column the percentiles are selected in.

use iofit_model::requirements::Percentiles;

/// Nearest-rank percentile of `values` (sorted in place). `None` when empty.
pub fn percentile(values: &mut [f64], p: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * values.len() as f64).ceil() as usize;
    // Selection, not a full sort: O(n) per percentile (long captures have 10^5+ samples).
    let (_, value, _) =
        values.select_nth_unstable_by(rank.clamp(1, values.len()) - 1, |a, b| a.total_cmp(b));
    Some(*value)
}

/// p50, p90 and p99 by nested selection (see [`select_percentiles`]).
pub(super) fn percentiles(values: &mut [f64]) -> Option<Percentiles> {
    let [p50, p90, p99] = select_percentiles(values, [50.0, 90.0, 99.0])?;
    Some(Percentiles {
        p50: tidy(p50),
        p90: tidy(p90),
        p99: tidy(p99),
    })
}

/// p50, p90, p99 and the sizing percentile `p` of one series in one nested selection.
pub(super) fn percentiles_and(values: &mut [f64], p: f64) -> Option<(Percentiles, f64)> {
    let [p50, p90, p99, at] = select_percentiles(values, [50.0, 90.0, 99.0, p])?;
    Some((
        Percentiles {
            p50: tidy(p50),
            p90: tidy(p90),
            p99: tidy(p99),
        },
        at,
    ))
}

/// Nearest-rank percentiles `ps` of `values` by nested selection: the ranks are selected in
/// ascending order, each among the values above the one before (after selecting a rank every
/// value above it is larger), so p50, p90, p95 and p99 cost one pass over n, then n/2, n/10
/// and n/20 values instead of four passes over n; the same nearest ranks as [`percentile`].
/// `None` when empty.
fn select_percentiles<const N: usize>(values: &mut [f64], ps: [f64; N]) -> Option<[f64; N]> {
    if values.is_empty() {
        return None;
    }
    let len = values.len();
    let rank = |p: f64| ((p / 100.0) * len as f64).ceil().clamp(1.0, len as f64) as usize - 1;
    let mut order: [usize; N] = std::array::from_fn(|i| i);
    order.sort_by_key(|&i| rank(ps[i]));
    let mut found = [0.0; N];
    let mut from = 0;
    let mut last = 0.0;
    for i in order {
        let index = rank(ps[i]);
        if index >= from {
            let (_, value, _) =
                values[from..].select_nth_unstable_by(index - from, |a, b| a.total_cmp(b));
            last = *value;
            from = index + 1;
        }
        // A rank equal to the one before: the same value.
        found[i] = last;
    }
    Some(found)
}

/// Rounds to 4 decimals so the TOML reads well; far below any measurement's precision.
pub(super) fn tidy(value: f64) -> f64 {
    (value * 1e4).round() / 1e4
}

/// Rounds a sized rate up to 2 decimals (up: a requirement must not shrink by rounding).
pub(super) fn round_up(value: f64) -> f64 {
    // `+ 0.0` turns the -0.0 that ceil(-1e-9) gives for an idle volume into 0.
    (value * 100.0 - 1e-9).ceil() / 100.0 + 0.0
}

/// Share of sequential IO, 0..=1, estimated from IO size and merges; see [`RANDOM_METHOD`].
pub fn sequential_share(io_size_bytes: f64, merged_per_s: f64, completed_per_s: f64) -> f64 {
    let kib = io_size_bytes / 1024.0;
    let size_score = if kib > 0.0 {
        ((kib / 16.0).log2() / 4.0).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let merge_score = if merged_per_s.is_finite() && merged_per_s + completed_per_s > 0.0 {
        (2.0 * merged_per_s / (merged_per_s + completed_per_s)).clamp(0.0, 1.0)
    } else {
        0.0
    };
    size_score.max(merge_score)
}

/// How random % is estimated; printed in the derivation.
pub const RANDOM_METHOD: &str = "method: random % = 100 x (1 - max(size score, merge \
score)); size score = log2(IO size / 16 KiB) / 4 in 0..1 (16 KiB or less: random, 256 KiB or \
more: sequential); merge score = 2 x merged / (merged + completed) in 0..1 (only adjacent \
requests merge)";

/// Refills `column` with `values` (at most `most` of them), keeping its memory.
pub(super) fn refill(
    column: &mut Vec<f64>,
    most: usize,
    values: impl Iterator<Item = f64>,
) -> &mut Vec<f64> {
    column.clear();
    column.reserve(most);
    column.extend(values);
    column
}

pub(super) fn fmt_num(value: f64) -> String {
    if value == value.trunc() && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        let text = format!("{value:.4}");
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

pub(super) fn fmt_duration(seconds: f64) -> String {
    if seconds >= 3600.0 && seconds % 3600.0 == 0.0 {
        format!("{} h", seconds / 3600.0)
    } else if seconds >= 60.0 && seconds % 60.0 == 0.0 {
        format!("{} min", seconds / 60.0)
    } else {
        format!("{} s", fmt_num(seconds))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_selection_gives_the_same_ranks_as_three_selections() {
        let mut state = 0x0bad_5eed_1234_5678u64;
        for len in 1..300usize {
            let values: Vec<f64> = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state % 50) as f64 // many ties
                })
                .collect();
            let mut one = values.clone();
            let got = super::percentiles(&mut one).unwrap();
            let mut three = values.clone();
            let expected =
                [50.0, 90.0, 99.0].map(|p| super::tidy(super::percentile(&mut three, p).unwrap()));
            assert_eq!([got.p50, got.p90, got.p99], expected, "{values:?}");
        }
    }

    /// The sizing percentile selected with p50/p90/p99 in one nested selection equals a
    /// selection of its own on the series in its original order (the plain path it replaces),
    /// for sizing percentiles below, between, at and above the three.
    #[test]
    fn sizing_percentile_from_the_nested_selection_equals_its_own_selection() {
        let mut state = 0x5eed_0000_abcd_ef01u64;
        for len in 1..200usize {
            let values: Vec<f64> = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state % 97) as f64 / 4.0
                })
                .collect();
            for p in [1.0, 37.5, 50.0, 90.0, 95.0, 99.0, 99.9, 100.0] {
                let mut nested = values.clone();
                let (found, at) = super::percentiles_and(&mut nested, p).unwrap();
                let mut own = values.clone();
                assert_eq!(
                    at,
                    super::percentile(&mut own, p).unwrap(),
                    "p{p} of {values:?}"
                );
                let mut three = values.clone();
                assert_eq!(found, super::percentiles(&mut three).unwrap());
            }
        }
        assert_eq!(super::percentiles_and(&mut [], 95.0), None);
    }

    #[test]
    fn nearest_rank() {
        let mut values = vec![400.0, 100.0, 300.0, 200.0];
        assert_eq!(percentile(&mut values, 50.0), Some(200.0));
        assert_eq!(percentile(&mut values, 90.0), Some(400.0));
        assert_eq!(percentile(&mut values, 25.0), Some(100.0));
        assert_eq!(percentile(&mut [], 50.0), None);
    }

    #[test]
    fn random_estimate() {
        // 8 KiB, no merges: random.
        assert_eq!(sequential_share(8192.0, 0.0, 100.0), 0.0);
        // 256 KiB: sequential by size.
        assert_eq!(sequential_share(262144.0, 0.0, 100.0), 1.0);
        // 64 KiB: half way in log scale.
        assert_eq!(sequential_share(65536.0, f64::NAN, 100.0), 0.5);
        // 8 KiB with one merge per three completed: 2 x 1/4 = 0.5.
        assert_eq!(sequential_share(8192.0, 100.0, 300.0), 0.5);
    }
}
