//! Executing one raw vdbench run at a rate and rendering its summary (interval lines and the
//! `avg` line), with the machine's CPU sampled at every interval boundary as vdbench does.

use crate::execute::Executor;
use crate::observer::Observer;
use crate::ProcedureError;
use iofit_jobfile::vdbench::Run;
use iofit_model::units::{Seconds, UnixSeconds};
use iofit_report::vdbench_summary::{render_run, AvgLine, Cpu, RunHeader};
use iofit_stats::JobResult;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// What one executed run measured.
pub struct RunOutcome {
    pub avg: AvgLine,
    /// The summary's header (start time, interval plan) the lines were numbered by.
    pub header: RunHeader,
    pub job: JobResult,
    pub text: String,
}

/// Runs one run at `rate` (None: uncontrolled) and renders its summary.
pub fn execute(
    run: &Run,
    rate: Option<f64>,
    iorate_label: &str,
    executor: &mut dyn Executor,
    observer: &mut dyn Observer,
) -> Result<RunOutcome, ProcedureError> {
    let jobs = run.to_jobs(rate);
    let started = std::time::SystemTime::now();
    let cpu = CpuSampler::start(run.interval);
    let result = executor.execute(&jobs, &format!("RD={}", run.rd), observer);
    let cpu = cpu.finish(run.interval_plan().total_intervals);
    let result = result?;
    // Every job of a run shares group 0 with group_reporting: one merged result.
    let job = result.jobs.first().cloned().ok_or_else(|| {
        ProcedureError::NothingMeasured(format!("rd={}: the run produced no result", run.rd))
    })?;
    let header = run_header(run, iorate_label, started);
    let (text, avg) = render_run(&header, &job.series, &cpu);
    Ok(RunOutcome {
        avg,
        header,
        job,
        text,
    })
}

/// The machine's CPU use, sampled from /proc/stat at every interval boundary while a run
/// runs (vdbench's `cpu% sys+u` and `cpu% sys` columns, which are the machine's too).
struct CpuSampler {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<Vec<Option<Cpu>>>>,
}

impl CpuSampler {
    fn start(interval: Duration) -> CpuSampler {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let interval = interval.max(Duration::from_millis(10));
        let thread = std::thread::Builder::new()
            .name("vdbench-cpu".into())
            .spawn(move || {
                use iofit_fswork::interval::{cpu_between, cpu_ticks};
                let start = std::time::Instant::now();
                let mut before = cpu_ticks();
                let mut out = Vec::new();
                'intervals: for k in 1u32.. {
                    let boundary = start + interval * k;
                    loop {
                        if flag.load(Ordering::Relaxed) {
                            // The time since the last boundary: the CPU of the intervals the
                            // sampler did not see end (all of them on a fake clock).
                            let tail = cpu_between(before, cpu_ticks());
                            out.push(tail.map(|c| Cpu {
                                total_pct: c.total_pct,
                                sys_pct: c.sys_pct,
                            }));
                            break 'intervals;
                        }
                        let now = std::time::Instant::now();
                        if now >= boundary {
                            break;
                        }
                        std::thread::sleep((boundary - now).min(Duration::from_millis(50)));
                    }
                    let after = cpu_ticks();
                    out.push(cpu_between(before, after).map(|c| Cpu {
                        total_pct: c.total_pct,
                        sys_pct: c.sys_pct,
                    }));
                    before = after;
                }
                out
            })
            .ok();
        CpuSampler { stop, thread }
    }

    /// One value per interval of `intervals`: those the sampler saw end, then the last
    /// stretch's for the rest.
    fn finish(mut self, intervals: u64) -> Vec<Option<Cpu>> {
        self.stop.store(true, Ordering::Relaxed);
        let mut cpu: Vec<Option<Cpu>> = self
            .thread
            .take()
            .and_then(|t| t.join().ok())
            .unwrap_or_default();
        let tail = cpu.last().copied().flatten();
        cpu.resize(intervals as usize, tail);
        cpu
    }
}

/// The summary's header of `run`, started at `started`.
pub(crate) fn run_header(
    run: &Run,
    iorate_label: &str,
    started: std::time::SystemTime,
) -> RunHeader {
    let start_unix_s = UnixSeconds(
        started
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or(0.0),
    );
    vdbench_header(run, iorate_label, start_unix_s)
}

/// The summary's header of `run` started at `start_unix_s`, with vdbench's interval plan.
pub fn vdbench_header(run: &Run, iorate_label: &str, start_unix_s: UnixSeconds<f64>) -> RunHeader {
    let plan = run.interval_plan();
    RunHeader {
        rd: run.rd.clone(),
        for_label: run.for_label.clone(),
        iorate_label: iorate_label.to_string(),
        elapsed_s: Seconds(run.elapsed.as_secs_f64()),
        warmup_s: Seconds(run.warmup.as_secs_f64()),
        interval_s: Seconds(run.interval.as_secs_f64()),
        start_unix_s,
        warmup_intervals: plan.warmup_intervals,
        total_intervals: plan.total_intervals,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::execute::EngineExecutor;
    use crate::observer::Quiet;
    use iofit_jobfile::vdbench;

    /// Real IO: this test checks what vdbench's iorate= does on a real file.
    fn real() -> EngineExecutor {
        EngineExecutor::new(false, Arc::new(AtomicBool::new(false)))
    }

    #[test]
    fn summary_has_avg_line_and_iorate_is_capped() {
        let dir = tempfile::tempdir().unwrap();
        let param = dir.path().join("capped.vdb");
        std::fs::write(
            &param,
            format!(
                "sd=sd1,lun={}/f1,size=4m\nwd=w,sd=sd1,rdpct=100,xfersize=4k\nrd=r,wd=w,iorate=400,elapsed=2,interval=1,threads=4\n",
                dir.path().display()
            ),
        )
        .unwrap();
        let file = vdbench::parse_file(&param).unwrap();
        let run = file.runs().unwrap().remove(0);
        let outcome = execute(&run, Some(400.0), "400", &mut real(), &mut Quiet).unwrap();
        let avg_lines: Vec<&str> = outcome
            .text
            .lines()
            .filter(|l| l.contains("avg_"))
            .collect();
        assert_eq!(avg_lines.len(), 1, "{}", outcome.text);
        assert!(outcome.text.contains("Starting RD=r; I/O rate: 400"));
        assert!(
            outcome
                .text
                .lines()
                .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
                .count()
                >= 2
        );
        // iorate=400 is the run's total, split over 4 threads: within 5%. (A mixed rdpct caps
        // each direction separately, as fio's rate_iops does, and lands a few % lower.)
        assert!(
            (outcome.avg.line.iops.get() - 400.0).abs() <= 20.0,
            "{}",
            outcome.avg.line.iops.get()
        );
        assert_eq!(outcome.job.clones, 4);
    }
}
