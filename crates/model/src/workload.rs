//! What an application (or a benchmark job) asks of storage, in the method's own terms.

use crate::units::Bytes;
use serde::{Deserialize, Serialize};

/// The shape of an IO workload as the method describes it: mix, randomness, size, concurrency.
/// This is what `predict` reasons about; a runnable job is a [`crate::job::JobSpec`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Workload {
    /// Share of IOs that are reads, 0..=100.
    pub read_pct: f64,
    /// Share of IOs that go to a random offset, 0..=100.
    pub random_pct: f64,
    /// Size of one read request.
    pub read_io_size: Bytes,
    /// Size of one write request.
    pub write_io_size: Bytes,
    /// IOs each thread keeps in flight.
    pub queue_depth: u32,
    /// Threads (fio jobs, vdbench threads, Iometer workers) issuing IO at once.
    pub threads: u32,
}

impl Workload {
    /// A workload with one IO size for both directions.
    pub fn new(
        read_pct: f64,
        random_pct: f64,
        io_size: Bytes,
        queue_depth: u32,
        threads: u32,
    ) -> Self {
        Workload {
            read_pct,
            random_pct,
            read_io_size: io_size,
            write_io_size: io_size,
            queue_depth,
            threads,
        }
    }

    /// IOs in flight across all threads: what Little's law calls the queue depth of the system.
    pub fn outstanding_ios(&self) -> u32 {
        self.queue_depth.saturating_mul(self.threads)
    }

    /// The mean IO size weighted by the read/write mix.
    pub fn mean_io_size(&self) -> Bytes {
        let read_share = self.read_pct / 100.0;
        let mean = read_share * self.read_io_size.as_f64()
            + (1.0 - read_share) * self.write_io_size.as_f64();
        Bytes(mean.round() as u64)
    }

    pub fn write_pct(&self) -> f64 {
        100.0 - self.read_pct
    }

    /// Checks the invariants every constructor must keep; returns the first one broken.
    pub fn validate(&self) -> Result<(), WorkloadError> {
        if !(0.0..=100.0).contains(&self.read_pct) {
            return Err(WorkloadError::ReadPct(self.read_pct));
        }
        if !(0.0..=100.0).contains(&self.random_pct) {
            return Err(WorkloadError::RandomPct(self.random_pct));
        }
        if self.read_io_size.0 == 0 || self.write_io_size.0 == 0 {
            return Err(WorkloadError::IoSize);
        }
        if self.queue_depth == 0 || self.threads == 0 {
            return Err(WorkloadError::Outstanding);
        }
        Ok(())
    }
}

/// The invariant of a [`Workload`] that is broken.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WorkloadError {
    #[error("read_pct {0} is outside 0..=100")]
    ReadPct(f64),
    #[error("random_pct {0} is outside 0..=100")]
    RandomPct(f64),
    #[error("IO size must be at least one byte")]
    IoSize,
    #[error("queue depth and threads must be at least 1")]
    Outstanding,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_size_weights_the_mix() {
        let mut workload = Workload::new(70.0, 100.0, Bytes::kib(8), 32, 4);
        workload.write_io_size = Bytes::kib(64);
        assert_eq!(workload.outstanding_ios(), 128);
        let expected = 0.7 * 8192.0 + 0.3 * 65536.0;
        assert_eq!(workload.mean_io_size(), Bytes(expected as u64));
        assert!(workload.validate().is_ok());
        workload.threads = 0;
        assert!(workload.validate().is_err());
    }
}
