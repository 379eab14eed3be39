//! Per-operation counters: operations, bytes and an HDR latency histogram for each of
//! vdbench's file operations, kept per thread and merged after the run.

use crate::interval::IntervalCounters;
use iofit_jobfile::vdbench::FileOp;
use iofit_model::units::Bytes;
use iofit_stats::LatencyHistogram;
use std::sync::Arc;

/// One operation's totals.
#[derive(Clone, Debug, Default)]
pub struct OpCounter {
    pub count: u64,
    pub bytes: Bytes,
    pub latency: LatencyHistogram,
}

/// Counters for every operation, indexed by [`FileOp::ALL`] position.
#[derive(Clone, Debug, Default)]
pub struct OpStats {
    pub ops: [OpCounter; 13],
    /// Operations that failed (an IO error), per operation.
    pub errors: [u64; 13],
    /// Attempts that found no file or directory in the state the operation needs (no file to
    /// delete, no empty directory to remove).
    pub no_candidate: u64,
    /// A worker's per-interval counters: every record and error is added there too.
    pub(crate) interval: Option<Arc<IntervalCounters>>,
}

pub fn index(op: FileOp) -> usize {
    FileOp::ALL
        .iter()
        .position(|o| *o == op)
        .expect("every op is in ALL")
}

impl OpStats {
    pub fn record(&mut self, op: FileOp, bytes: u64, latency_ns: u64) {
        let counter = &mut self.ops[index(op)];
        counter.count += 1;
        counter.bytes += Bytes(bytes);
        counter.latency.record(latency_ns.max(1));
        if let Some(interval) = &self.interval {
            interval.add(index(op), bytes, latency_ns.max(1));
        }
    }

    pub fn error(&mut self, op: FileOp) {
        self.errors[index(op)] += 1;
        if let Some(interval) = &self.interval {
            interval.error(index(op));
        }
    }

    pub fn merge(&mut self, other: &OpStats) {
        for (mine, theirs) in self.ops.iter_mut().zip(other.ops.iter()) {
            mine.count += theirs.count;
            mine.bytes += theirs.bytes;
            mine.latency.merge(&theirs.latency);
        }
        for (mine, theirs) in self.errors.iter_mut().zip(other.errors.iter()) {
            *mine += theirs;
        }
        self.no_candidate += other.no_candidate;
    }

    pub fn total_ops(&self) -> u64 {
        self.ops.iter().map(|c| c.count).sum()
    }

    pub fn total_errors(&self) -> u64 {
        self.errors.iter().sum()
    }
}
