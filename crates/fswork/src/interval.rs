//! Per-interval counters of a file system run, as vdbench prints one line per `interval=`:
//! every worker adds each operation to its own atomic counters (no lock, one cache line per
//! worker), and the thread that started the workers swaps them to zero at every interval
//! boundary, so an operation is counted in exactly one interval and the intervals add up to
//! the run's totals.

use iofit_model::units::{Seconds, UnixMillis};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};

const OPS: usize = 13;

/// One worker's counters since the last interval boundary.
#[derive(Debug, Default)]
pub struct IntervalCounters {
    count: [AtomicU64; OPS],
    bytes: [AtomicU64; OPS],
    latency_ns: [AtomicU64; OPS],
    errors: [AtomicU64; OPS],
}

impl IntervalCounters {
    pub(crate) fn add(&self, op: usize, bytes: u64, latency_ns: u64) {
        // Relaxed: the counts are read once per interval; a count landing in the next
        // interval instead is the same as the operation finishing a moment later.
        self.count[op].fetch_add(1, Ordering::Relaxed);
        self.bytes[op].fetch_add(bytes, Ordering::Relaxed);
        self.latency_ns[op].fetch_add(latency_ns, Ordering::Relaxed);
    }

    pub(crate) fn error(&self, op: usize) {
        self.errors[op].fetch_add(1, Ordering::Relaxed);
    }

    /// Everything counted since the last call, leaving zero.
    pub(crate) fn take(&self) -> IntervalCounts {
        let swap = |a: &[AtomicU64; OPS]| -> [u64; OPS] {
            std::array::from_fn(|i| a[i].swap(0, Ordering::Relaxed))
        };
        IntervalCounts {
            count: swap(&self.count),
            bytes: swap(&self.bytes),
            latency_ns: swap(&self.latency_ns),
            errors: swap(&self.errors),
        }
    }
}

/// Operations, bytes, summed response time and errors per operation (indexed as
/// [`iofit_jobfile::vdbench::FileOp::ALL`]) over one interval.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IntervalCounts {
    pub count: [u64; OPS],
    pub bytes: [u64; OPS],
    pub latency_ns: [u64; OPS],
    pub errors: [u64; OPS],
}

impl IntervalCounts {
    pub fn merge(&mut self, other: &IntervalCounts) {
        for i in 0..OPS {
            self.count[i] += other.count[i];
            self.bytes[i] += other.bytes[i];
            self.latency_ns[i] += other.latency_ns[i];
            self.errors[i] += other.errors[i];
        }
    }

    pub fn total_ops(&self) -> u64 {
        self.count.iter().sum()
    }

    /// Mean response time of operation `op` in ms (0 when none ran).
    pub fn resp_ms(&self, op: usize) -> f64 {
        if self.count[op] == 0 {
            0.0
        } else {
            self.latency_ns[op] as f64 / self.count[op] as f64 / 1e6
        }
    }

    /// Mean response time over every operation in ms.
    pub fn total_resp_ms(&self) -> f64 {
        let ops = self.total_ops();
        if ops == 0 {
            0.0
        } else {
            self.latency_ns.iter().sum::<u64>() as f64 / ops as f64 / 1e6
        }
    }
}

/// CPU use of the whole machine over an interval, percent (vdbench's `cpu% total sys`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuPct {
    pub total_pct: f64,
    pub sys_pct: f64,
}

/// One interval of a run: its 1-based number, length and counts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub index: usize,
    /// When it ended, Unix milliseconds (vdbench's time-of-day column).
    pub end_unix_ms: UnixMillis,
    pub seconds: Seconds,
    /// Ended before the warmup did: reported, not part of the run's totals.
    pub warmup: bool,
    pub counts: IntervalCounts,
    /// None where /proc/stat cannot be read.
    pub cpu: Option<CpuPct>,
}

pub(crate) fn now_unix_ms() -> UnixMillis {
    UnixMillis(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0),
    )
}

/// (busy, system, total) clock ticks of /proc/stat's `cpu` line.
pub fn cpu_ticks() -> Option<(u64, u64, u64)> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let values: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .take(8)
        .map(|v| v.parse().ok())
        .collect::<Option<_>>()?;
    // user nice system idle iowait irq softirq steal
    let total: u64 = values.iter().sum();
    let idle = values.get(3)? + values.get(4).copied().unwrap_or(0);
    let sys =
        values.get(2)? + values.get(5).copied().unwrap_or(0) + values.get(6).copied().unwrap_or(0);
    Some((total - idle, sys, total))
}

/// CPU percentages between two [`cpu_ticks`] samples.
pub fn cpu_between(
    before: Option<(u64, u64, u64)>,
    after: Option<(u64, u64, u64)>,
) -> Option<CpuPct> {
    let (b, a) = (before?, after?);
    let total = a.2.checked_sub(b.2).filter(|t| *t > 0)? as f64;
    Some(CpuPct {
        total_pct: a.0.saturating_sub(b.0) as f64 * 100.0 / total,
        sys_pct: a.1.saturating_sub(b.1) as f64 * 100.0 / total,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn take_leaves_zero_and_counts_once() {
        let c = IntervalCounters::default();
        c.add(0, 4096, 1000);
        c.add(0, 4096, 3000);
        c.error(1);
        let first = c.take();
        assert_eq!(first.count[0], 2);
        assert_eq!(first.bytes[0], 8192);
        assert_eq!(first.resp_ms(0), 0.002);
        assert_eq!(first.errors[1], 1);
        assert_eq!(c.take(), IntervalCounts::default());
    }

    #[test]
    fn cpu_of_this_machine_is_a_percentage() {
        let before = cpu_ticks();
        let mut x = 0u64;
        for i in 0..2_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        std::thread::sleep(std::time::Duration::from_millis(30));
        if let Some(cpu) = cpu_between(before, cpu_ticks()) {
            assert!((0.0..=100.0).contains(&cpu.total_pct), "{cpu:?}");
            assert!(cpu.sys_pct <= cpu.total_pct, "{cpu:?}");
        }
    }
}
