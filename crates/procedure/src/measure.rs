//! Figures of a measured job that the procedures share.

use iofit_stats::JobResult;

/// IOs per second of both directions over the measured window.
pub fn iops_of(job: &JobResult) -> f64 {
    (job.read.iops + job.write.iops).get()
}

/// Mean total latency over both directions, nanoseconds (0 when nothing completed).
pub fn mean_latency_ns(job: &JobResult) -> f64 {
    let (r, w) = (&job.read.total_latency, &job.write.total_latency);
    let count = (r.count + w.count) as f64;
    if count == 0.0 {
        return 0.0;
    }
    (r.mean_ns.get() * r.count as f64 + w.mean_ns.get() * w.count as f64) / count
}
