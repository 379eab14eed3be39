//! The combination search: which disk option per volume to try first on one VM.
//!
//! Every volume has its options sorted cheapest first. The plan tries the cheapest
//! combinations (one option per volume) in order of total cost until one fits the VM's shared
//! limits. Building every combination is exponential in the number of volumes (6 options per
//! volume: 6^8 = 1.7 M combinations for 8 volumes); [`cheapest_combinations`] finds the same
//! first few, in the same order, best-first from a heap, in time polynomial in the volumes.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A cost for ranking: fully priced first, then priced but without a sourced operations
/// charge (value = what is known), then unpriced (value = a capacity proxy, not a price).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RankCost {
    pub(crate) tier: u8,
    pub(crate) value: f64,
}

impl RankCost {
    /// The cost of nothing: what combinations are summed from.
    pub(crate) const ZERO: RankCost = RankCost {
        tier: 0,
        value: 0.0,
    };

    pub(crate) fn add(self, other: RankCost) -> RankCost {
        RankCost {
            tier: self.tier.max(other.tier),
            value: self.value + other.value,
        }
    }

    pub(crate) fn cmp(&self, other: &RankCost) -> Ordering {
        self.tier
            .cmp(&other.tier)
            .then(self.value.total_cmp(&other.value))
    }
}

/// The total cost of one combination, summed in volume order from [`RankCost::ZERO`] (the
/// order fixes the floating-point rounding, so equal combinations tie exactly).
pub(crate) fn combination_cost(costs: &[Vec<RankCost>], indices: &[usize]) -> RankCost {
    indices
        .iter()
        .zip(costs)
        .fold(RankCost::ZERO, |sum, (&index, list)| sum.add(list[index]))
}

/// One combination on the frontier of the search.
struct Candidate {
    cost: RankCost,
    /// Option index per volume, in the volume's list (cheapest first).
    indices: Vec<usize>,
    /// Position per volume in that volume's list for this round (see [`best_first_round`]).
    positions: Vec<usize>,
    /// The position raised last; only positions from here on are raised further, so every
    /// combination is reached from exactly one parent.
    last_raised: usize,
}

impl Candidate {
    /// Within one round every combination's tier is at most the round's, so the value alone
    /// orders them (then the option indices lexicographically, the order of the full product
    /// with volume 0 outermost, sorted stably).
    fn order(&self, other: &Candidate) -> Ordering {
        self.cost
            .value
            .total_cmp(&other.cost.value)
            .then_with(|| self.indices.cmp(&other.indices))
    }
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.order(other) == Ordering::Equal
    }
}
impl Eq for Candidate {}
impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Candidate {
    // Reversed: `BinaryHeap` pops its greatest element, the search wants the cheapest.
    fn cmp(&self, other: &Self) -> Ordering {
        other.order(self)
    }
}

/// The `limit` cheapest combinations of one option per volume, as option indices, in the
/// order (total cost, indices lexicographically) — exactly the first `limit` of the full
/// product sorted stably by cost, without building the product.
///
/// `costs[v]` are volume `v`'s option costs, sorted cheapest first. A combination's tier is
/// its worst option's and its value the sum, so a combination can sort before one of its
/// "raised" neighbours (a tier-1 option cheaper in value than a tier-0 one): the search runs
/// one round per tier `t`, over the options of tier `t` or below sorted by value, keeping the
/// combinations whose tier is `t`. A round is reached only when the earlier ones found fewer
/// than `limit` combinations, so it skips fewer than `limit` lower-tier ones.
///
/// Each round is best-first over a heap (see [`best_first_round`]). With `n` volumes of at
/// most `m` options: O(n x m log m) to sort, then O(limit x n^2 + limit x n x log(limit x n))
/// time and O(limit x n^2) memory per round — polynomial, where the product is `m^n`.
pub(crate) fn cheapest_combinations(costs: &[Vec<RankCost>], limit: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::with_capacity(limit);
    if limit == 0 || costs.iter().any(Vec::is_empty) {
        return out;
    }
    if costs.is_empty() {
        // No volumes: one combination, the empty one.
        out.push(Vec::new());
        return out;
    }
    let mut tiers: Vec<u8> = costs.iter().flatten().map(|c| c.tier).collect();
    tiers.sort_unstable();
    tiers.dedup();
    for tier in tiers {
        // Each volume's options of this tier or below, by value; equal values keep list order.
        let lists: Vec<Vec<usize>> = costs
            .iter()
            .map(|list| {
                let mut kept: Vec<usize> =
                    (0..list.len()).filter(|&i| list[i].tier <= tier).collect();
                kept.sort_by(|&a, &b| list[a].value.total_cmp(&list[b].value).then(a.cmp(&b)));
                kept
            })
            .collect();
        if lists.iter().any(Vec::is_empty) {
            continue;
        }
        best_first_round(costs, &lists, tier, limit, &mut out);
        if out.len() == limit {
            break;
        }
    }
    out
}

/// One round of [`cheapest_combinations`]: pops combinations of `lists` (per volume, option
/// indices sorted by value) in (value, indices) order and appends those of tier `tier` to `out`
/// until it holds `limit`.
///
/// Popping a combination pushes its successors, each raising one volume to its next option at
/// or after the position its parent raised, so each combination is pushed once. A successor
/// never sorts before its parent: its value is not lower (each list is sorted by value and
/// float addition is monotone) and, at an equal value, its raised index is the greater one.
/// (Exact unless a price difference is below the rounding of the sum, ~1e-16 relative: not
/// the case for prices in dollars.)
fn best_first_round(
    costs: &[Vec<RankCost>],
    lists: &[Vec<usize>],
    tier: u8,
    limit: usize,
    out: &mut Vec<Vec<usize>>,
) {
    let candidate = |positions: Vec<usize>, last_raised: usize| {
        let indices: Vec<usize> = positions.iter().zip(lists).map(|(&p, l)| l[p]).collect();
        Candidate {
            cost: combination_cost(costs, &indices),
            indices,
            positions,
            last_raised,
        }
    };
    let mut heap = BinaryHeap::new();
    heap.push(candidate(vec![0; lists.len()], 0));
    while let Some(best) = heap.pop() {
        for volume in best.last_raised..lists.len() {
            if best.positions[volume] + 1 < lists[volume].len() {
                let mut positions = best.positions.clone();
                positions[volume] += 1;
                heap.push(candidate(positions, volume));
            }
        }
        if best.cost.tier == tier {
            out.push(best.indices);
            if out.len() == limit {
                return;
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod oracle {
    use super::*;

    /// The search as the planner first did it, kept as the test oracle: every combination of
    /// the product (volume 0 outermost), sorted stably by total cost, the first `limit` taken.
    /// Exponential in the number of volumes: tests only, on small cases.
    pub(crate) fn exhaustive_combinations(
        costs: &[Vec<RankCost>],
        limit: usize,
    ) -> Vec<Vec<usize>> {
        let mut combos: Vec<(RankCost, Vec<usize>)> = vec![(RankCost::ZERO, Vec::new())];
        for list in costs {
            let mut next = Vec::new();
            for (cost, chosen) in &combos {
                for (index, option) in list.iter().enumerate() {
                    let mut with = chosen.clone();
                    with.push(index);
                    next.push((cost.add(*option), with));
                }
            }
            combos = next;
        }
        combos.sort_by(|a, b| a.0.cmp(&b.0));
        combos.into_iter().take(limit).map(|(_, c)| c).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::oracle::exhaustive_combinations;
    use super::*;
    use proptest::prelude::*;

    fn sorted(mut list: Vec<RankCost>) -> Vec<RankCost> {
        list.sort_by(|a, b| a.cmp(b));
        list
    }

    /// Costs from a small set of values and tiers, so ties (within and across tiers) are common.
    fn cost() -> impl Strategy<Value = RankCost> {
        (0u8..3, 0u32..6).prop_map(|(tier, value)| RankCost {
            tier,
            value: value as f64 * 0.1,
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn best_first_equals_the_sorted_product(
            lists in prop::collection::vec(prop::collection::vec(cost(), 0..7), 0..5),
            limit in 0usize..40,
        ) {
            let costs: Vec<Vec<RankCost>> = lists.into_iter().map(sorted).collect();
            let want = exhaustive_combinations(&costs, limit);
            let got = cheapest_combinations(&costs, limit);
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn sixty_four_volumes_need_no_product() {
        // 6^64 combinations exist; the search touches O(limit x n) of them.
        let list: Vec<RankCost> = (0..6)
            .map(|i| RankCost {
                tier: 0,
                value: i as f64,
            })
            .collect();
        let costs = vec![list; 64];
        let got = cheapest_combinations(&costs, 12);
        assert_eq!(got.len(), 12);
        assert_eq!(got[0], vec![0; 64]);
        // Second cheapest: one volume on its second option; the lexicographically first of
        // those raises the last volume.
        let mut second = vec![0; 64];
        second[63] = 1;
        assert_eq!(got[1], second);
        let totals: Vec<f64> = got
            .iter()
            .map(|c| combination_cost(&costs, c).value)
            .collect();
        assert!(totals.windows(2).all(|w| w[0] <= w[1]), "{totals:?}");
    }
}
