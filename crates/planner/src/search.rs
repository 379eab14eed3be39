//! The exact search: the cheapest combination of one disk option per volume that fits one
//! VM's shared limits, by branch and bound.
//!
//! Each volume's options are priced and sized on their own (the planner checks every option
//! alone with predict before it reaches here); what couples the volumes is the VM: its
//! data-disk slots and its four shared rate limits (uncached and cached IOPS and MB/s), each
//! an additive budget. The search is a multiple-choice knapsack over those budgets, solved
//! exactly by depth-first branch and bound:
//!
//! - **cost bound**: the cost so far plus, for the volumes still open, the least they can cost
//!   within the slots left (a dynamic programme over slots, which ignores the rate limits):
//!   never more than any completion costs, so no cheaper combination is ever pruned;
//! - **budget bounds**: the use of each shared limit so far plus the least each open volume
//!   can add to it; over the limit, no completion fits;
//! - **priced budgets**: each shared limit (and each pool's two together) priced into the cost
//!   bound by Lagrangian relaxation ([`Relaxed`]), so a bound no longer assumes every open
//!   volume takes its cheap option when their uses together would overrun the limit (a VM
//!   whose uncached IOPS hold half the load made the slots-only bound prune nothing: a
//!   45-volume plan took minutes, now well under a second).
//!
//! Volumes are searched most demanding first (their choices fail soonest), and volumes with
//! the same choices are taken in one order only (swapping them gives the same combination).
//! No cap on tries: the search returns the cheapest fitting combination or proves there is
//! none; a VM whose shared limits bind tightly may take longer to prove (the budgets make a
//! partition problem), never give a wrong answer. Ranking costs have tiers (fully priced, operations unpriced, unpriced); one round
//! per tier, cheapest tier first, as [`RankCost`] orders them.

use std::cmp::Ordering;
use std::collections::HashSet;

/// A cost for ranking: fully priced first, then priced but without a sourced operations
/// charge (value = what is known), then unpriced (value = a capacity proxy, not a price).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RankCost {
    pub(crate) tier: u8,
    pub(crate) value: f64,
}

impl RankCost {
    /// The cost of nothing: what combinations are summed from.
    #[cfg(test)]
    pub(crate) const ZERO: RankCost = RankCost {
        tier: 0,
        value: 0.0,
    };

    #[cfg(test)]
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

/// The VM's shared rate limits, in [`Choice::uses`] order.
pub(crate) const SHARED_LIMITS: usize = 4;
/// Index of each shared limit in [`Choice::uses`] and [`Budget::limits`].
pub(crate) const UNCACHED_IOPS: usize = 0;
pub(crate) const UNCACHED_MB_S: usize = 1;
pub(crate) const CACHED_IOPS: usize = 2;
pub(crate) const CACHED_MB_S: usize = 3;

/// One volume option as the search sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Choice {
    /// Index of the option in the volume's full option list (what the search returns).
    pub(crate) option: usize,
    pub(crate) cost: RankCost,
    /// Data-disk slots it takes.
    pub(crate) slots: u32,
    /// What it adds to each of the VM's shared limits ([`UNCACHED_IOPS`] ...).
    pub(crate) uses: [f64; SHARED_LIMITS],
}

impl Choice {
    /// Whether `self` is never worse than `other` for the search: no dearer in any round, no
    /// more slots, no more of any shared limit. A combination using `other` then fits, as
    /// cheaply or more so, with `self` in its place.
    pub(crate) fn dominates(&self, other: &Choice) -> bool {
        self.cost.tier <= other.cost.tier
            && self.cost.value <= other.cost.value
            && self.slots <= other.slots
            && self.uses.iter().zip(&other.uses).all(|(a, b)| a <= b)
    }
}

/// What one VM lets a combination use: slots, and each shared limit (`None`: unpublished,
/// so it never rules a combination out, as in predict).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Budget {
    pub(crate) slots: u32,
    pub(crate) limits: [Option<f64>; SHARED_LIMITS],
}

/// Relative tolerance below which two costs are the same (prices are cents; sums of the same
/// prices in another order differ by ~1e-16 relative).
const SAME_COST: f64 = 1e-9;

/// The cheapest combination (one choice per volume, as option indices) that fits `budget`
/// and is not in `excluded`, or `None` when no combination does. `choices[v]` are volume
/// `v`'s choices in the order that breaks ties (cheapest first).
pub(crate) fn cheapest_fitting(
    choices: &[Vec<Choice>],
    budget: &Budget,
    excluded: &HashSet<Vec<usize>>,
) -> Option<Vec<usize>> {
    if choices.iter().any(Vec::is_empty) {
        return None;
    }
    let order = search_order(choices);
    let choices: Vec<Vec<Choice>> = order.iter().map(|&v| choices[v].clone()).collect();
    let mut tiers: Vec<u8> = choices.iter().flatten().map(|c| c.cost.tier).collect();
    tiers.sort_unstable();
    tiers.dedup();
    // A round per tier: the combinations whose worst option is of that tier. Any combination
    // of a lower tier that fits was found in an earlier round, so the first round that finds
    // one has the cheapest by [`RankCost::cmp`].
    for tier in tiers {
        let lists: Vec<Vec<Choice>> = choices
            .iter()
            .map(|list| {
                let kept: Vec<Choice> = list
                    .iter()
                    .filter(|c| c.cost.tier <= tier)
                    .copied()
                    .collect();
                kept
            })
            .collect();
        if lists.iter().any(Vec::is_empty) {
            continue;
        }
        if let Some(found) = Round::new(&lists, &order, budget, excluded).solve() {
            return Some(found);
        }
    }
    None
}

/// The order volumes are searched in: the most demanding first (their choices fail soonest),
/// volumes with identical choices next to each other (see [`Round::same_as_previous`]).
fn search_order(choices: &[Vec<Choice>]) -> Vec<usize> {
    let demand = |list: &[Choice]| {
        list.iter()
            .map(|c| c.uses[UNCACHED_IOPS] + c.uses[CACHED_IOPS])
            .fold(f64::INFINITY, f64::min)
    };
    let class: Vec<usize> = (0..choices.len())
        .map(|v| (0..v).find(|&u| choices[u] == choices[v]).unwrap_or(v))
        .collect();
    let mut order: Vec<usize> = (0..choices.len()).collect();
    order.sort_by(|&a, &b| {
        demand(&choices[class[b]])
            .total_cmp(&demand(&choices[class[a]]))
            .then(class[a].cmp(&class[b]))
            .then(a.cmp(&b))
    });
    order
}

/// `combination` (options in volume order) as the search would reach it (see
/// [`Round::excluded`]); `None` when a choice is not in this round's lists.
fn canonical(
    lists: &[Vec<Choice>],
    order: &[usize],
    same_as_previous: &[bool],
    combination: &[usize],
) -> Option<Vec<usize>> {
    let mut positions: Vec<usize> = order
        .iter()
        .zip(lists)
        .map(|(&volume, list)| list.iter().position(|c| c.option == combination[volume]))
        .collect::<Option<_>>()?;
    let mut start = 0;
    for end in 1..=positions.len() {
        if end == positions.len() || !same_as_previous[end] {
            positions[start..end].sort_unstable();
            start = end;
        }
    }
    Some(
        positions
            .iter()
            .zip(lists)
            .map(|(&position, list)| list[position].option)
            .collect(),
    )
}

/// One round of the branch and bound.
struct Round<'a> {
    lists: &'a [Vec<Choice>],
    /// `order[i]`: the volume searched `i`th (results are given back in volume order).
    order: &'a [usize],
    /// Whether volume `i` has the same choices as volume `i - 1`: the two are interchangeable,
    /// so only combinations where `i` takes a choice no earlier in its list than `i - 1`'s are
    /// searched (the others are the same combinations with the two swapped).
    same_as_previous: Vec<bool>,
    /// Position in its list of the choice each searched volume took.
    positions: Vec<usize>,
    budget: Budget,
    /// The excluded combinations in the form the search reaches them: options in search order,
    /// interchangeable volumes' choices in list order (a combination is excluded together
    /// with its swaps, which predict cannot tell apart).
    excluded: HashSet<Vec<usize>>,
    /// `least_cost[i][s]`: the least value volumes `i..` can cost within `s` slots (infinite
    /// when they cannot fit in `s`). Ignores the rate limits, so it never overestimates.
    least_cost: Vec<Vec<f64>>,
    /// `least_use[i][k]`: the least volumes `i..` add to shared limit `k`.
    least_use: Vec<[f64; SHARED_LIMITS]>,
    /// `least_io[i]`: the least IOPS and MB/s volumes `i..` add to the VM's two pools together
    /// (a volume uses one pool or the other, whichever its caching gives).
    least_io: Vec<[f64; 2]>,
    /// The shared budgets priced into the cost bound (see [`Relaxed`]).
    relaxed: Vec<Relaxed>,
    best_value: f64,
    best: Option<Vec<usize>>,
    path: Vec<usize>,
}

/// One shared budget (a limit, or a pool's two limits together) in the cost bound, by
/// Lagrangian relaxation: for a price `λ >= 0` per unit of it, any completion of volumes `i..`
/// that fits the `room` left costs at least `least(λ)[i][s] - λ x room`, where `least(λ)` is
/// the least of `cost + λ x use` over the completions within `s` slots (a completion that fits
/// uses at most `room`, so `λ x use <= λ x room`). Where the slots alone would let the open
/// volumes take the cheap options that use the budget up, this bound sees that they cannot
/// all do so; it never overestimates, so the search stays exact.
struct Relaxed {
    /// Weight of each of [`Choice::uses`] in this budget (1 for the limits it adds).
    weights: [f64; SHARED_LIMITS],
    capacity: f64,
    /// `(λ, least)` per price tried: `least[i][s]` as above.
    tables: Vec<(f64, Vec<Vec<f64>>)>,
}

/// Prices tried per budget: the trade-offs the volumes' own options offer (cost saved per unit
/// of the budget used), a spread of them.
const PRICES_TRIED: usize = 6;

impl Relaxed {
    fn new(
        lists: &[Vec<Choice>],
        slots: usize,
        weights: [f64; SHARED_LIMITS],
        capacity: f64,
    ) -> Relaxed {
        let use_of = |c: &Choice| c.uses.iter().zip(&weights).map(|(u, w)| u * w).sum::<f64>();
        // Cost per unit of the budget one option saves over another that uses more of it.
        let mut ratios: Vec<f64> = Vec::new();
        for list in lists {
            for a in list {
                for b in list {
                    let (used, saved) = (use_of(a) - use_of(b), b.cost.value - a.cost.value);
                    if used > 0.0 && saved > 0.0 {
                        ratios.push(saved / used);
                    }
                }
            }
        }
        ratios.sort_by(f64::total_cmp);
        ratios.dedup();
        let prices: Vec<f64> = if ratios.len() <= PRICES_TRIED {
            ratios
        } else {
            (0..PRICES_TRIED)
                .map(|q| ratios[q * (ratios.len() - 1) / (PRICES_TRIED - 1)])
                .collect()
        };
        let n = lists.len();
        let tables = prices
            .into_iter()
            .map(|price| {
                let mut least = vec![vec![0.0; slots + 1]; n + 1];
                for i in (0..n).rev() {
                    for s in 0..=slots {
                        least[i][s] = lists[i]
                            .iter()
                            .filter(|c| c.slots as usize <= s)
                            .map(|c| {
                                c.cost.value
                                    + price * use_of(c)
                                    + least[i + 1][s - c.slots as usize]
                            })
                            .fold(f64::INFINITY, f64::min);
                    }
                }
                (price, least)
            })
            .collect();
        Relaxed {
            weights,
            capacity,
            tables,
        }
    }

    /// The least volumes `next..` can cost within `left` slots once `used` of the limits is
    /// taken (`-inf` when this budget says nothing).
    fn least(&self, next: usize, left: usize, used: &[f64; SHARED_LIMITS]) -> f64 {
        let room = self.capacity
            - used
                .iter()
                .zip(&self.weights)
                .map(|(u, w)| u * w)
                .sum::<f64>();
        self.tables
            .iter()
            .map(|(price, least)| least[next][left] - price * room)
            .fold(f64::NEG_INFINITY, f64::max)
    }
}

impl<'a> Round<'a> {
    fn new(
        lists: &'a [Vec<Choice>],
        order: &'a [usize],
        budget: &Budget,
        excluded: &HashSet<Vec<usize>>,
    ) -> Round<'a> {
        let n = lists.len();
        // More slots than every volume's largest choice together are never needed.
        let most: u32 = lists
            .iter()
            .map(|l| l.iter().map(|c| c.slots).max().unwrap_or(0))
            .sum();
        let slots = budget.slots.min(most) as usize;
        let mut least_cost = vec![vec![0.0; slots + 1]; n + 1];
        for i in (0..n).rev() {
            for s in 0..=slots {
                least_cost[i][s] = lists[i]
                    .iter()
                    .filter(|c| c.slots as usize <= s)
                    .map(|c| c.cost.value + least_cost[i + 1][s - c.slots as usize])
                    .fold(f64::INFINITY, f64::min);
            }
        }
        let mut least_use = vec![[0.0; SHARED_LIMITS]; n + 1];
        let mut least_io = vec![[0.0; 2]; n + 1];
        for i in (0..n).rev() {
            let rest = least_use[i + 1];
            for (k, slot) in least_use[i].iter_mut().enumerate() {
                let least = lists[i]
                    .iter()
                    .map(|c| c.uses[k])
                    .fold(f64::INFINITY, f64::min);
                *slot = rest[k] + least;
            }
            for (m, (a, b)) in [(UNCACHED_IOPS, CACHED_IOPS), (UNCACHED_MB_S, CACHED_MB_S)]
                .into_iter()
                .enumerate()
            {
                let least = lists[i]
                    .iter()
                    .map(|c| c.uses[a] + c.uses[b])
                    .fold(f64::INFINITY, f64::min);
                least_io[i][m] = least_io[i + 1][m] + least;
            }
        }
        let same_as_previous: Vec<bool> =
            (0..n).map(|i| i > 0 && lists[i] == lists[i - 1]).collect();
        // Each published limit, and each pool whose two limits are published, as a budget.
        let mut relaxed = Vec::new();
        for k in 0..SHARED_LIMITS {
            if let Some(limit) = budget.limits[k] {
                let mut weights = [0.0; SHARED_LIMITS];
                weights[k] = 1.0;
                relaxed.push(Relaxed::new(lists, slots, weights, limit));
            }
        }
        for (a, b) in [(UNCACHED_IOPS, CACHED_IOPS), (UNCACHED_MB_S, CACHED_MB_S)] {
            if let (Some(x), Some(y)) = (budget.limits[a], budget.limits[b]) {
                let mut weights = [0.0; SHARED_LIMITS];
                weights[a] = 1.0;
                weights[b] = 1.0;
                relaxed.push(Relaxed::new(lists, slots, weights, x + y));
            }
        }
        relaxed.retain(|r| !r.tables.is_empty());
        let excluded = excluded
            .iter()
            .filter_map(|combination| canonical(lists, order, &same_as_previous, combination))
            .collect();
        Round {
            lists,
            order,
            same_as_previous,
            positions: vec![0; n],
            budget: Budget {
                slots: slots as u32,
                limits: budget.limits,
            },
            excluded,
            least_cost,
            least_use,
            least_io,
            relaxed,
            best_value: f64::INFINITY,
            best: None,
            path: Vec::with_capacity(n),
        }
    }

    fn solve(mut self) -> Option<Vec<usize>> {
        self.descend(0, 0.0, 0, [0.0; SHARED_LIMITS]);
        self.best
    }

    /// Whether a combination costing at least `bound` can still beat the best found.
    fn can_beat(&self, bound: f64) -> bool {
        if self.best.is_none() {
            return bound.is_finite();
        }
        bound < self.best_value - SAME_COST * self.best_value.abs().max(1.0)
    }

    /// Whether the shared limits, used `used` so far, leave room for volumes `next..`.
    fn room_left(&self, next: usize, used: &[f64; SHARED_LIMITS]) -> bool {
        let limits = &self.budget.limits;
        let each = (0..SHARED_LIMITS).all(|k| match limits[k] {
            Some(limit) => used[k] + self.least_use[next][k] <= limit,
            None => true,
        });
        let pools = [(UNCACHED_IOPS, CACHED_IOPS), (UNCACHED_MB_S, CACHED_MB_S)];
        each && pools
            .iter()
            .enumerate()
            .all(|(m, &(a, b))| match (limits[a], limits[b]) {
                (Some(x), Some(y)) => used[a] + used[b] + self.least_io[next][m] <= x + y,
                _ => true,
            })
    }

    fn descend(&mut self, i: usize, value: f64, slots: u32, used: [f64; SHARED_LIMITS]) {
        let lists = self.lists;
        if i == lists.len() {
            if self.can_beat(value) && !self.excluded.contains(&self.path) {
                let mut picked = vec![0; lists.len()];
                for (&volume, &option) in self.order.iter().zip(&self.path) {
                    picked[volume] = option;
                }
                self.best_value = value;
                self.best = Some(picked);
            }
            return;
        }
        let first_position = if self.same_as_previous[i] {
            self.positions[i - 1]
        } else {
            0
        };
        let free = self.budget.slots - slots;
        // Each choice with the least any completion through it can cost; tried least first,
        // so the first combination reached is the cheapest within the slots alone (when the
        // rate limits do not bind, the answer), and the rest is mostly pruned by it.
        let mut tries: Vec<(f64, usize, &Choice)> = lists[i]
            .iter()
            .enumerate()
            .skip(first_position)
            .filter(|(_, c)| c.slots <= free)
            .map(|(position, c)| {
                let left = (free - c.slots) as usize;
                (
                    value + c.cost.value + self.least_cost[i + 1][left],
                    position,
                    c,
                )
            })
            .filter(|(bound, _, _)| bound.is_finite())
            .collect();
        tries.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (bound, position, choice) in tries {
            if !self.can_beat(bound) {
                break;
            }
            let mut used_with = used;
            for (u, add) in used_with.iter_mut().zip(&choice.uses) {
                *u += add;
            }
            if !self.room_left(i + 1, &used_with) {
                continue;
            }
            // The shared budgets priced in: a stronger bound, checked once the choice's use
            // is known (the order stays the slots' bound's, so ties break as before).
            let left = (free - choice.slots) as usize;
            let priced = self
                .relaxed
                .iter()
                .map(|r| r.least(i + 1, left, &used_with))
                .fold(self.least_cost[i + 1][left], f64::max);
            if !self.can_beat(value + choice.cost.value + priced) {
                continue;
            }
            self.path.push(choice.option);
            self.positions[i] = position;
            self.descend(
                i + 1,
                value + choice.cost.value,
                slots + choice.slots,
                used_with,
            );
            self.path.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every combination of the product, the cheapest that fits and is not excluded.
    fn exhaustive(
        choices: &[Vec<Choice>],
        budget: &Budget,
        excluded: &HashSet<Vec<usize>>,
    ) -> Option<(RankCost, Vec<usize>)> {
        let mut combos: Vec<(RankCost, u32, [f64; SHARED_LIMITS], Vec<usize>)> =
            vec![(RankCost::ZERO, 0, [0.0; SHARED_LIMITS], Vec::new())];
        for list in choices {
            let mut next = Vec::new();
            for (cost, slots, used, chosen) in &combos {
                for c in list {
                    let mut used = *used;
                    for (u, a) in used.iter_mut().zip(&c.uses) {
                        *u += a;
                    }
                    let mut chosen = chosen.clone();
                    chosen.push(c.option);
                    next.push((cost.add(c.cost), slots + c.slots, used, chosen));
                }
            }
            combos = next;
        }
        combos
            .into_iter()
            .filter(|(_, slots, used, chosen)| {
                *slots <= budget.slots
                    && (0..SHARED_LIMITS)
                        .all(|k| budget.limits[k].is_none_or(|limit| used[k] <= limit))
                    && !excluded
                        .iter()
                        .any(|x| same_up_to_swaps(choices, x, chosen))
            })
            .map(|(cost, _, _, chosen)| (cost, chosen))
            .min_by(|a, b| a.0.cmp(&b.0))
    }

    /// Whether two combinations are the same once volumes with the same choices (which the
    /// planner's predict cannot tell apart but by label) are swapped: the search excludes a
    /// refused combination together with its swaps.
    fn same_up_to_swaps(choices: &[Vec<Choice>], a: &[usize], b: &[usize]) -> bool {
        let class = |v: usize| (0..v).find(|&u| choices[u] == choices[v]).unwrap_or(v);
        let picks = |combo: &[usize]| {
            let mut picks: Vec<(usize, usize)> = combo
                .iter()
                .enumerate()
                .map(|(v, &o)| (class(v), o))
                .collect();
            picks.sort_unstable();
            picks
        };
        picks(a) == picks(b)
    }

    fn choice() -> impl Strategy<Value = (u8, u32, u32, bool, u32, u32)> {
        (0u8..3, 0u32..8, 1u32..4, any::<bool>(), 0u32..5, 0u32..5)
    }

    fn cost_of(choices: &[Vec<Choice>], picked: &[usize]) -> RankCost {
        picked
            .iter()
            .zip(choices)
            .fold(RankCost::ZERO, |sum, (&o, list)| {
                sum.add(list.iter().find(|c| c.option == o).unwrap().cost)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn branch_and_bound_finds_the_exhaustive_cheapest(
            raw in prop::collection::vec(prop::collection::vec(choice(), 1..5), 1..6),
            slots in 1u32..12,
            limits in prop::collection::vec(prop_oneof![Just(None), (0u32..20).prop_map(Some)], 4),
            exclude_first in any::<bool>(),
            copies in 0usize..3,
        ) {
            let mut choices: Vec<Vec<Choice>> = raw
                .iter()
                .map(|list| {
                    let mut list: Vec<Choice> = list
                        .iter()
                        .enumerate()
                        .map(|(option, &(tier, value, slots, cached, iops, mb))| {
                            let mut uses = [0.0; SHARED_LIMITS];
                            let (a, b) = if cached { (CACHED_IOPS, CACHED_MB_S) } else { (UNCACHED_IOPS, UNCACHED_MB_S) };
                            uses[a] = iops as f64;
                            uses[b] = mb as f64;
                            Choice { option, cost: RankCost { tier, value: value as f64 * 0.1 }, slots, uses }
                        })
                        .collect();
                    list.sort_by(|a, b| a.cost.cmp(&b.cost));
                    list
                })
                .collect();
            // Interchangeable volumes (the same choices), which the search takes in one order.
            for _ in 0..copies {
                choices.push(choices[0].clone());
            }
            let budget = Budget {
                slots,
                limits: [limits[0].map(f64::from), limits[1].map(f64::from), limits[2].map(f64::from), limits[3].map(f64::from)],
            };
            let mut excluded = HashSet::new();
            if exclude_first {
                if let Some((_, first)) = exhaustive(&choices, &budget, &excluded) {
                    excluded.insert(first);
                }
            }
            let want = exhaustive(&choices, &budget, &excluded);
            let got = cheapest_fitting(&choices, &budget, &excluded);
            match (want, got) {
                (None, None) => {}
                (Some((cost, _)), Some(picked)) => {
                    let got_cost = cost_of(&choices, &picked);
                    prop_assert_eq!(got_cost.tier, cost.tier);
                    prop_assert!((got_cost.value - cost.value).abs() < 1e-9, "{:?} vs {:?}", got_cost, cost);
                    prop_assert!(!excluded.contains(&picked));
                }
                (want, got) => prop_assert!(false, "exhaustive {:?}, branch and bound {:?}", want, got),
            }
        }
    }

    #[test]
    fn two_hundred_volumes_fit_or_are_proved_not_to() {
        // 200 volumes, three choices each (one disk dear, two disks cheap, four disks
        // cheapest): the slots decide how many volumes may take the cheap ones.
        let list: Vec<Choice> = [(1u32, 30.0), (2, 20.0), (4, 12.0)]
            .iter()
            .enumerate()
            .map(|(option, &(slots, value))| Choice {
                option,
                cost: RankCost { tier: 0, value },
                slots,
                uses: [1.0, 0.0, 0.0, 0.0],
            })
            .rev()
            .collect();
        let choices = vec![list; 200];
        let budget = Budget {
            slots: 300,
            limits: [Some(200.0), None, None, None],
        };
        let picked = cheapest_fitting(&choices, &budget, &HashSet::new()).unwrap();
        let disks: u32 = picked.iter().map(|&o| [1, 2, 4][o]).sum();
        assert!(disks <= 300);
        // 100 volumes on two disks and 100 on one: 100 x 20 + 100 x 30 = 5,000, the least
        // within 300 slots (each step from one to two disks saves 10 per slot, from two to
        // four 4 per slot).
        assert!((cost_of(&choices, &picked).value - 5000.0).abs() < 1e-6);
        let tight = Budget {
            slots: 199,
            ..budget
        };
        assert_eq!(cheapest_fitting(&choices, &tight, &HashSet::new()), None);
    }
}
