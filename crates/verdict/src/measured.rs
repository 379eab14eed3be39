//! What a run measured, summed over the jobs a selection picks.

use iofit_model::formulas::outstanding_ios;
use iofit_model::units::{Iops, MBps, Seconds};
use iofit_stats::{DirectionResult, JobResult, RunResult};
use serde::{Deserialize, Serialize};

/// What a run measured, summed over its jobs. `None` where the results cannot tell.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    pub jobs: usize,
    pub runtime_s: Seconds,
    pub read_ios: u64,
    pub write_ios: u64,
    pub iops: Iops,
    pub read_iops: Iops,
    pub write_iops: Iops,
    pub throughput_mb_s: MBps,
    pub read_pct: Option<f64>,
    /// Bare: the mean of the jobs' IO sizes (bytes moved / IOs), fractional; `Bytes` is whole.
    pub io_size_bytes: Option<f64>,
    pub latency_ms_avg: Option<f64>,
    pub read_latency_ms_avg: Option<f64>,
    pub write_latency_ms_avg: Option<f64>,
    pub latency_ms_p99: Option<f64>,
    /// "total" when p99 comes from total latency (iofit, fio with lat_percentiles), else
    /// "completion" (fio's default percentiles are of completion latency).
    pub latency_p99_kind: String,
    /// IOs the jobs kept outstanding as configured: iodepth x clones (1 per clone for
    /// synchronous engines), summed over jobs.
    pub outstanding_ios: Option<u32>,
    /// Little's law on what was measured: IOPS x average latency.
    pub effective_queue_depth: Option<f64>,
}

/// The one name of each latency kind in every command and format, by what it measures and
/// fio's own word for it: `lat` is submission to completion, `clat` leaves out the submission.
pub fn latency_kind_words(kind: &str) -> &'static str {
    match kind {
        "total" => TOTAL_LATENCY_WORDS,
        "completion" => "completion latency (fio's clat)",
        _ => "latency",
    }
}

/// The name of the latency iofit measures and reports by default (see [`latency_kind_words`]).
pub const TOTAL_LATENCY_WORDS: &str = "total latency (fio's lat)";

/// The mean and 99th percentile of a direction's latency as compare uses it: total latency when
/// present, completion latency otherwise; percentile from the same, else from completion.
fn direction_latency(direction: &DirectionResult) -> (Option<f64>, Option<(f64, &'static str)>) {
    let (total, completion, submission) = (
        direction.total_latency.mean_ns,
        direction.completion_latency.mean_ns,
        direction.submission_latency.mean_ns,
    );
    let mean_ns = if total.get() > 0.0 {
        Some(total.get())
    } else if completion.get() > 0.0 {
        Some((completion + submission).get())
    } else {
        None
    };
    let p99 = direction
        .total_latency
        .percentile_ns(99.0)
        .map(|value| (value as f64, "total"))
        .or_else(|| {
            direction
                .completion_latency
                .percentile_ns(99.0)
                .map(|value| (value as f64, "completion"))
        });
    (mean_ns, p99)
}

impl Measured {
    /// Sums the given jobs. Jobs of one group run at the same time, so their rates add.
    pub fn from_jobs<'a>(jobs: impl IntoIterator<Item = &'a JobResult>) -> Measured {
        let mut measured = Measured::default();
        let mut latency_weighted = [0.0f64; 2];
        let mut latency_ios = [0u64; 2];
        let mut p99: Option<(f64, &'static str)> = None;
        let mut outstanding: u32 = 0;
        let mut io_bytes: u64 = 0;
        for job in jobs {
            measured.jobs += 1;
            let per_clone = match job.engine_used.or(job.engine_requested) {
                Some(engine) if engine.is_synchronous() => 1,
                _ => job.iodepth.max(1),
            };
            outstanding = outstanding.saturating_add(per_clone.saturating_mul(job.clones.max(1)));
            for (slot, direction) in [&job.read, &job.write].into_iter().enumerate() {
                if direction.ios == 0 {
                    continue;
                }
                measured.runtime_s = measured
                    .runtime_s
                    .max(direction.runtime_ns.as_f64().to_seconds());
                measured.throughput_mb_s =
                    measured.throughput_mb_s + MBps(direction.bandwidth_bytes_per_second / 1e6);
                io_bytes += direction.io_bytes.as_u64();
                let (mean_ns, direction_p99) = direction_latency(direction);
                if let Some(mean_ns) = mean_ns {
                    latency_weighted[slot] += mean_ns * direction.ios as f64;
                    latency_ios[slot] += direction.ios;
                }
                if let Some((value, kind)) = direction_p99 {
                    // Percentiles of several distributions do not merge exactly without their
                    // histograms; the highest is an upper bound on the combined p99.
                    if p99.is_none_or(|(current, _)| value > current) {
                        p99 = Some((value, kind));
                    }
                }
                if slot == 0 {
                    measured.read_ios += direction.ios;
                    measured.read_iops = measured.read_iops + direction.iops;
                } else {
                    measured.write_ios += direction.ios;
                    measured.write_iops = measured.write_iops + direction.iops;
                }
            }
        }
        measured.iops = measured.read_iops + measured.write_iops;
        let total_ios = measured.read_ios + measured.write_ios;
        if total_ios > 0 {
            measured.read_pct = Some(measured.read_ios as f64 * 100.0 / total_ios as f64);
            measured.io_size_bytes = Some(io_bytes as f64 / total_ios as f64);
        }
        let ms = |weighted: f64, ios: u64| (ios > 0).then(|| weighted / ios as f64 / 1e6);
        measured.read_latency_ms_avg = ms(latency_weighted[0], latency_ios[0]);
        measured.write_latency_ms_avg = ms(latency_weighted[1], latency_ios[1]);
        measured.latency_ms_avg = ms(
            latency_weighted[0] + latency_weighted[1],
            latency_ios[0] + latency_ios[1],
        );
        if let Some((value, kind)) = p99 {
            measured.latency_ms_p99 = Some(value / 1e6);
            measured.latency_p99_kind = kind.to_string();
        }
        if measured.jobs > 0 {
            measured.outstanding_ios = Some(outstanding);
        }
        measured.effective_queue_depth = measured
            .latency_ms_avg
            .map(|latency_ms| outstanding_ios(measured.iops.get(), latency_ms));
        measured
    }
}

/// Which jobs of a run to compare.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JobSelection {
    /// Only jobs of this group (fio's `groupid`; stonewall/new_group start a new one).
    pub group: Option<u32>,
    /// Only jobs with one of these names (empty: all).
    pub names: Vec<String>,
}

/// Why a selection of jobs cannot be compared.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SelectionError {
    #[error("the results hold groups {0} that ran one after another (stonewall/new_group), so their rates do not add; pick one with --group N")]
    SeveralGroups(String),
    #[error("no job matches {0}; the results hold {1}")]
    NoMatch(String, String),
}

/// The jobs `selection` picks, all of one group.
pub fn select_jobs<'a>(
    run: &'a RunResult,
    selection: &JobSelection,
) -> Result<Vec<&'a JobResult>, SelectionError> {
    let listing = || {
        run.jobs
            .iter()
            .map(|job| format!("'{}' (group {})", job.name, job.group_id))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let picked: Vec<&JobResult> = run
        .jobs
        .iter()
        .filter(|job| selection.group.is_none_or(|group| job.group_id == group))
        .filter(|job| selection.names.is_empty() || selection.names.contains(&job.name))
        .collect();
    if picked.is_empty() {
        let mut wanted = Vec::new();
        if let Some(group) = selection.group {
            wanted.push(format!("group {group}"));
        }
        if !selection.names.is_empty() {
            wanted.push(format!("name {}", selection.names.join(" or ")));
        }
        return Err(SelectionError::NoMatch(wanted.join(" and "), listing()));
    }
    let mut groups: Vec<u32> = picked.iter().map(|job| job.group_id).collect();
    groups.sort_unstable();
    groups.dedup();
    if groups.len() > 1 {
        let names = groups
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        return Err(SelectionError::SeveralGroups(names));
    }
    Ok(picked)
}
