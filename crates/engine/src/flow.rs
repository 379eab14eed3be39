//! fio's flow control between jobs (`flow`, `flow_id`, `flow_sleep`; fio's flow.c): jobs
//! sharing a flow id keep their IO counts in the ratio of their weights. Before each IO a
//! clone compares its share of the group's IOs with its share of the group's weight; when it is
//! ahead it does not issue, and waits `flow_sleep` first.

use iofit_model::units::Nanos;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// One flow id's counters, shared by every clone in it.
#[derive(Debug)]
pub struct FlowGroup {
    /// IOs issued by the group's clones, plus one (fio starts the counter at 1, so the first
    /// IO of a group is never held).
    ios: AtomicU64,
    total_weight: AtomicU64,
}

impl Default for FlowGroup {
    fn default() -> Self {
        FlowGroup {
            ios: AtomicU64::new(1),
            total_weight: AtomicU64::new(0),
        }
    }
}

/// The groups of one run, by flow id.
#[derive(Debug, Default)]
pub struct FlowGroups(HashMap<u32, Arc<FlowGroup>>);

impl FlowGroups {
    pub fn get(&mut self, id: u32) -> Arc<FlowGroup> {
        Arc::clone(self.0.entry(id).or_default())
    }
}

/// A clone's place in a flow group (in its `ClonePlan`).
#[derive(Clone, Debug)]
pub struct FlowPlan {
    pub group: Arc<FlowGroup>,
    pub weight: u64,
    /// How long a clone that is ahead waits before it looks again (fio `flow_sleep`).
    pub sleep_ns: Nanos<u64>,
}

/// A running clone's membership: joins the group's weight when made, leaves it (with its IOs)
/// when dropped, as fio's flow_init_job and flow_exit_job.
pub struct FlowMember {
    plan: FlowPlan,
    own_ios: u64,
}

impl FlowMember {
    pub fn join(plan: &FlowPlan) -> FlowMember {
        plan.group
            .total_weight
            .fetch_add(plan.weight, Ordering::Relaxed);
        FlowMember {
            plan: plan.clone(),
            own_ios: 0,
        }
    }

    /// fio's `flow_threshold_exceeded`: `Some(wait_ns)` when this clone is ahead of its share
    /// (it must not issue now); otherwise counts one IO for it and returns `None`.
    pub fn hold(&mut self) -> Option<u64> {
        let group = &self.plan.group;
        let ios = group.ios.load(Ordering::Relaxed).max(1);
        let total_weight = group.total_weight.load(Ordering::Relaxed).max(1);
        let own_share = self.own_ios as f64 / ios as f64;
        let weight_share = self.plan.weight as f64 / total_weight as f64;
        if own_share > weight_share {
            return Some(self.plan.sleep_ns.get());
        }
        group.ios.fetch_add(1, Ordering::Relaxed);
        self.own_ios += 1;
        None
    }
}

impl Drop for FlowMember {
    fn drop(&mut self) {
        let group = &self.plan.group;
        group.ios.fetch_sub(self.own_ios, Ordering::Relaxed);
        group
            .total_weight
            .fetch_sub(self.plan.weight, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_alternate_in_the_ratio_of_their_weights() {
        let mut groups = FlowGroups::default();
        let group = groups.get(7);
        let plan = |weight| FlowPlan {
            group: Arc::clone(&group),
            weight,
            sleep_ns: Nanos(1000),
        };
        let (one, eight) = (plan(1), plan(8));
        let mut a = FlowMember::join(&one);
        let mut b = FlowMember::join(&eight);
        let (mut done_a, mut done_b) = (0, 0);
        for _ in 0..9000 {
            done_a += u32::from(a.hold().is_none());
            done_b += u32::from(b.hold().is_none());
        }
        assert!(
            (7.9..8.1).contains(&(done_b as f64 / done_a as f64)),
            "{done_a} {done_b}"
        );
        drop(a);
        drop(b);
        let group = groups.get(7);
        assert_eq!(
            group.ios.load(Ordering::Relaxed),
            1,
            "members leave with their IOs"
        );
        assert_eq!(group.total_weight.load(Ordering::Relaxed), 0);
    }
}
