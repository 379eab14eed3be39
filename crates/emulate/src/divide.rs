//! Dividing one shared limit among claimants by demand (max-min fair water-filling).
//!
//! The kernel throttles each device and each direction on its own, while Azure caps a disk's
//! reads and writes together and a VM's IO across all its disks together. Every control tick
//! the shared cap is divided again: each claimant gets what it asked for, up to its own ceiling
//! and an equal share of what is left; capacity nobody asked for is spread by headroom so that a
//! claimant whose demand grows can take it at once on the next IO.

/// Splits `cap` over claimants. `demands[i]` is what claimant `i` is estimated to want,
/// `ceilings[i]` the most it may ever get. Invariants (tested): every allotment is within
/// `0..=ceilings[i]`, and the allotments add up to `min(cap, sum of ceilings)`.
pub fn divide(cap: f64, demands: &[f64], ceilings: &[f64]) -> Vec<f64> {
    assert_eq!(demands.len(), ceilings.len(), "one ceiling per demand");
    let count = demands.len();
    let cap = cap.max(0.0);
    let wants: Vec<f64> = demands
        .iter()
        .zip(ceilings)
        .map(|(d, c)| d.max(0.0).min(c.max(0.0)))
        .collect();
    let mut allot = water_fill(cap, &wants);
    // Spread what is left over by each claimant's remaining headroom.
    let used: f64 = allot.iter().sum();
    let left = (cap - used).max(0.0);
    let headroom: Vec<f64> = (0..count)
        .map(|i| (ceilings[i].max(0.0) - allot[i]).max(0.0))
        .collect();
    let headroom_sum: f64 = headroom.iter().sum();
    if left > 0.0 && headroom_sum > 0.0 {
        let share = (left / headroom_sum).min(1.0);
        for i in 0..count {
            allot[i] += headroom[i] * share;
        }
    }
    allot
}

/// Max-min fair levels: each claimant gets `min(want, level)` with the level chosen so the sum
/// is `min(cap, sum of wants)`.
fn water_fill(cap: f64, wants: &[f64]) -> Vec<f64> {
    let total: f64 = wants.iter().sum();
    if total <= cap {
        return wants.to_vec();
    }
    let mut order: Vec<usize> = (0..wants.len()).collect();
    order.sort_by(|a, b| wants[*a].total_cmp(&wants[*b]));
    let mut allot = vec![0.0; wants.len()];
    let mut left = cap;
    let mut remaining = wants.len();
    for index in order {
        let level = left / remaining as f64;
        let give = wants[index].min(level);
        allot[index] = give;
        left -= give;
        remaining -= 1;
    }
    allot
}

/// What a claimant is estimated to want next tick from what it used of what it was allotted:
/// one that used (nearly) all of its allotment is held back by it and may want more, so it asks
/// for twice as much, or what it used if that is more (found within a few ticks); one that
/// left room wants what it used.
pub fn demand_estimate(used: f64, allotted: f64, floor: f64) -> f64 {
    const SATURATED: f64 = 0.9;
    let used = used.max(0.0);
    let want = if allotted > 0.0 && used >= SATURATED * allotted {
        // What was asked of the kernel (counted as submitted) may already say more.
        (allotted * 2.0).max(used)
    } else {
        used
    };
    want.max(floor)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn idle_claimant_leaves_capacity_to_the_busy_one() {
        let allot = divide(1000.0, &[2000.0, 0.0], &[800.0, 800.0]);
        assert_eq!(allot[0], 800.0);
        assert!((allot[1] - 200.0).abs() < 1e-9);
    }

    #[test]
    fn two_hungry_claimants_share_equally() {
        let allot = divide(1000.0, &[2000.0, 2000.0], &[5000.0, 5000.0]);
        assert_eq!(allot, vec![500.0, 500.0]);
    }

    #[test]
    fn small_demand_is_met_and_the_rest_goes_to_the_big_one() {
        let allot = divide(1000.0, &[100.0, 5000.0], &[5000.0, 5000.0]);
        assert!((allot[0] - 100.0).abs() < 1e-9 && (allot[1] - 900.0).abs() < 1e-9);
    }

    #[test]
    fn saturated_claimant_asks_for_more() {
        assert_eq!(demand_estimate(95.0, 100.0, 1.0), 200.0);
        assert_eq!(demand_estimate(40.0, 100.0, 1.0), 40.0);
        assert_eq!(demand_estimate(0.0, 100.0, 5.0), 5.0);
    }

    proptest! {
        #[test]
        fn allotments_respect_ceilings_and_the_cap(
            cap in 0.0f64..1e6,
            pairs in proptest::collection::vec((0.0f64..1e6, 0.0f64..1e6), 1..8),
        ) {
            let demands: Vec<f64> = pairs.iter().map(|p| p.0).collect();
            let ceilings: Vec<f64> = pairs.iter().map(|p| p.1).collect();
            let allot = divide(cap, &demands, &ceilings);
            let sum: f64 = allot.iter().sum();
            let ceiling_sum: f64 = ceilings.iter().sum();
            for (a, c) in allot.iter().zip(&ceilings) {
                prop_assert!(*a >= 0.0 && *a <= c + 1e-6);
            }
            prop_assert!((sum - cap.min(ceiling_sum)).abs() <= 1e-6 * (1.0 + cap));
        }
    }
}
