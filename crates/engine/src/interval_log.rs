//! fio's interval logs — averaged logs (`write_bw_log`, `write_iops_log`, `write_lat_log` with
//! `log_avg_msec`) and histogram logs (`write_hist_log` with `log_hist_msec`) — written while
//! the run goes, with bounded memory, in fio 3.33's lines ([`iofit_stats::fio_log`]).
//!
//! Each clone renders a window's lines as the window closes, into a small buffer of its own,
//! and hands full buffers (or every second's) to one writer thread through a queue bounded in
//! bytes. A clone never waits for the disk: when the queue is full it keeps the windows that
//! follow as one (their counts added up) and writes that window as one line once the writer
//! has caught up — a longer window in fio's columns, as fio's own windows are when no IO
//! completes on time — and the run's end says how many windows were merged so. At the clone's
//! end (also after Ctrl-C) what it holds is queued whole, so the logs cover the run up to the
//! stop; the files are published (safefs's door: a temporary file renamed into place) when the
//! writer has written everything.
//!
//! A run whose logs would take more than [`LOG_BYTES_PER_S_MAX`] (a 1 ms histogram log at 64
//! clones asks for 340 MiB/s) gets longer windows up front ([`paced_intervals`]), said before
//! the run ([`pacing_note`]).

use crate::error::LogError;
use iofit_model::job::JobSpec;
use iofit_safefs::output::{OutputFile, OutputKind};
use iofit_stats::fio_log::{
    directions_of, render_sample, LogKind, LogStyle, AVERAGED_LINE_BYTES, HISTOGRAM_LINE_BYTES,
};
use iofit_stats::IntervalBucket;
use std::collections::VecDeque;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// The most the interval logs of one run write per second, about: 8 MiB/s (1,500 histogram
/// lines a second), which any disk takes beside the run's own IO.
pub const LOG_BYTES_PER_S_MAX: u64 = 8 << 20;

/// The most log bytes queued for the writer; a clone that finds the queue full merges windows.
const QUEUE_BYTES_MAX: usize = 8 << 20;
/// A clone hands its lines over once it holds this many bytes...
const CLONE_FLUSH_BYTES: usize = 32 << 10;
/// ...or its lines cover this much of the run, so that the files grow as the run goes.
const CLONE_FLUSH_EVERY_NS: u64 = 1_000_000_000;

/// The logs a job's clones write per window: (kind, bytes of its lines per window).
fn interval_kinds(job: &JobSpec) -> Vec<(LogKind, &str)> {
    let logs = &job.logs;
    let mut kinds = Vec::new();
    if !logs.per_io {
        for (prefix, kind) in [
            (&logs.bw_prefix, LogKind::Bandwidth),
            (&logs.iops_prefix, LogKind::Iops),
            (&logs.lat_prefix, LogKind::Latency),
            (&logs.lat_prefix, LogKind::CompletionLatency),
            (&logs.lat_prefix, LogKind::SubmissionLatency),
        ] {
            if let Some(prefix) = prefix {
                kinds.push((kind, prefix.as_str()));
            }
        }
    }
    if let Some(prefix) = &logs.hist_prefix {
        kinds.push((LogKind::Histogram, prefix.as_str()));
    }
    kinds
}

/// Bytes a second `job`'s interval logs write at `interval`, about.
fn log_bytes_per_s(job: &JobSpec, interval: Duration) -> f64 {
    let directions = directions_of(job.rw).iter().filter(|&&d| d).count() as u64;
    let per_window: u64 = interval_kinds(job)
        .iter()
        .map(|(kind, _)| match kind {
            LogKind::Histogram => HISTOGRAM_LINE_BYTES,
            _ => AVERAGED_LINE_BYTES,
        })
        .sum::<u64>()
        * directions.max(1)
        * u64::from(job.numjobs.max(1));
    per_window as f64 / interval.as_secs_f64().max(1e-6)
}

/// Per job, the interval its series and logs use: the job's own (`log_avg_msec`,
/// `log_hist_msec`, else 1 s), or longer when the run's interval logs together would write
/// more than [`LOG_BYTES_PER_S_MAX`]: the budget is shared out so that the jobs that ask for
/// less than an equal share keep their windows, and the others get windows long enough for
/// an equal share of what is left (rounded up to whole ms).
pub fn paced_intervals(jobs: &[JobSpec]) -> Vec<Duration> {
    let mut rates: Vec<f64> = jobs
        .iter()
        .filter(|job| !interval_kinds(job).is_empty())
        .map(|job| log_bytes_per_s(job, job.log_interval))
        .collect();
    rates.sort_by(f64::total_cmp);
    let mut budget = LOG_BYTES_PER_S_MAX as f64;
    let mut share = f64::INFINITY;
    for (k, rate) in rates.iter().enumerate() {
        let left = (rates.len() - k) as f64;
        if rate * left <= budget {
            budget -= rate;
        } else {
            share = budget / left;
            break;
        }
    }
    jobs.iter()
        .map(|job| {
            let rate = log_bytes_per_s(job, job.log_interval);
            if interval_kinds(job).is_empty() || rate <= share {
                return job.log_interval;
            }
            let ms = (job.log_interval.as_secs_f64() * 1000.0 * rate / share).ceil() as u64;
            Duration::from_millis(ms.max(1))
        })
        .collect()
}

/// What to tell the user before the run when [`paced_intervals`] stretched the logs' windows.
pub fn pacing_note(jobs: &[JobSpec]) -> Option<String> {
    let paced = paced_intervals(jobs);
    let stretched: Vec<String> = jobs
        .iter()
        .zip(&paced)
        .filter(|(job, used)| **used != job.log_interval)
        .map(|(job, used)| {
            format!(
                "{} ({} clone(s)): {} ms -> {} ms",
                job.name,
                job.numjobs.max(1),
                job.log_interval.as_millis(),
                used.as_millis()
            )
        })
        .collect();
    if stretched.is_empty() {
        return None;
    }
    let asked: f64 = jobs
        .iter()
        .filter(|job| !interval_kinds(job).is_empty())
        .map(|job| log_bytes_per_s(job, job.log_interval))
        .sum();
    Some(format!(
        "the interval logs asked for (log_avg_msec/log_hist_msec) would write about {} a second; \
         iofit writes at most {} a second of them, so their windows are longer: {}. The lines \
         keep fio's columns (each line's time is its window's end); give a longer interval or \
         fewer jobs to choose the windows yourself",
        iofit_safefs::human_bytes(asked as u64),
        iofit_safefs::human_bytes(LOG_BYTES_PER_S_MAX),
        stretched.join(", ")
    ))
}

/// Chunks of whole lines waiting for the writer, per file; `None`: a clone that writes the
/// file is done with it.
struct Queue {
    chunks: VecDeque<(usize, Option<Vec<u8>>)>,
    bytes: usize,
    closed: bool,
}

struct Shared {
    queue: Mutex<Queue>,
    ready: Condvar,
    /// The first write error, naming the file; set once, then the writer drops what comes.
    error: Mutex<Option<String>>,
    failed: AtomicBool,
    /// Windows merged into the next because the writer was behind.
    merged_windows: AtomicU64,
}

impl Shared {
    fn queue(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues `bytes` for file `file`; refused (given back) when the queue is full, unless
    /// `force` (a clone's last lines: bounded by its buffer).
    fn push(&self, file: usize, bytes: Vec<u8>, force: bool) -> Result<(), Vec<u8>> {
        let mut queue = self.queue();
        if queue.closed {
            return Ok(());
        }
        if !force && queue.bytes + bytes.len() > QUEUE_BYTES_MAX && queue.bytes > 0 {
            return Err(bytes);
        }
        queue.bytes += bytes.len();
        queue.chunks.push_back((file, Some(bytes)));
        drop(queue);
        self.ready.notify_one();
        Ok(())
    }

    /// A clone is done with `file`: the file is published once its last writer is.
    fn done(&self, file: usize) {
        let mut queue = self.queue();
        if !queue.closed {
            queue.chunks.push_back((file, None));
            drop(queue);
            self.ready.notify_one();
        }
    }

    fn error(&self) -> Option<String> {
        self.error.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// The run's interval-log files and the thread that writes them.
pub struct LogWriter {
    shared: Arc<Shared>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// How the writing went, when the writer is done.
#[derive(Debug, Default)]
pub struct LogSummary {
    pub error: Option<String>,
    /// Windows merged into longer ones because the disk did not take the lines in time.
    pub merged_windows: u64,
}

impl LogWriter {
    /// Starts the files at `paths` through safefs's door (a new file, or an earlier iofit log
    /// replaced as fio does; never a device, a link or a user's file unless
    /// `allow_overwrite`) and the thread that writes them. `writers[i]`: how many clones
    /// will say they are done with file i (it is published then, else at the run's end).
    pub fn open(
        paths: &[PathBuf],
        writers: Vec<u32>,
        allow_overwrite: bool,
    ) -> Result<LogWriter, LogError> {
        let mut files = Vec::with_capacity(paths.len());
        for (path, writers) in paths.iter().zip(writers) {
            let file =
                OutputFile::create(path, OutputKind::StatsLog, allow_overwrite)?.keep_on_drop();
            files.push(OpenLog {
                path: path.clone(),
                file: Some(file),
                writers_left: writers,
            });
        }
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue {
                chunks: VecDeque::new(),
                bytes: 0,
                closed: false,
            }),
            ready: Condvar::new(),
            error: Mutex::new(None),
            failed: AtomicBool::new(false),
            merged_windows: AtomicU64::new(0),
        });
        let for_thread = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("log-writer".into())
            .spawn(move || write_until_closed(&for_thread, files))
            .map_err(LogError::Thread)?;
        Ok(LogWriter {
            shared,
            thread: Some(thread),
        })
    }

    /// Writes what is queued, publishes the files and says how it went. Clones queue their
    /// last lines when they end, so call this once they have.
    pub fn finish(mut self) -> LogSummary {
        self.close();
        LogSummary {
            error: self.shared.error(),
            merged_windows: self.shared.merged_windows.load(Ordering::Relaxed),
        }
    }

    fn close(&mut self) {
        self.shared.queue().closed = true;
        self.shared.ready.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for LogWriter {
    fn drop(&mut self) {
        self.close();
    }
}

/// A log file the writer writes.
struct OpenLog {
    path: PathBuf,
    /// None once published.
    file: Option<OutputFile>,
    /// Clones still writing it; at 0 it is published (dropped: it keeps what was written).
    writers_left: u32,
}

/// The writer thread: writes chunks in the order they came until the queue is closed and
/// empty; publishes each file when its last clone is done with it, and every file at the end.
fn write_until_closed(shared: &Shared, mut files: Vec<OpenLog>) {
    loop {
        let batch = {
            let mut queue = shared.queue();
            while queue.chunks.is_empty() && !queue.closed {
                queue = shared.ready.wait(queue).unwrap_or_else(|e| e.into_inner());
            }
            if queue.chunks.is_empty() {
                break;
            }
            queue.bytes = 0;
            std::mem::take(&mut queue.chunks)
        };
        for (file, bytes) in batch {
            let log = &mut files[file];
            let Some(bytes) = bytes else {
                // Published as soon as no clone writes it: a run's end waits for few files.
                log.writers_left = log.writers_left.saturating_sub(1);
                if log.writers_left == 0 {
                    log.file = None;
                }
                continue;
            };
            if shared.failed.load(Ordering::Relaxed) {
                continue;
            }
            let Some(out) = log.file.as_mut() else {
                continue;
            };
            if let Err(e) = out.write_all(&bytes) {
                *shared.error.lock().unwrap_or_else(|e| e.into_inner()) = Some(format!(
                    "writing the log {} failed: {e}",
                    log.path.display()
                ));
                shared.failed.store(true, Ordering::Relaxed);
            }
        }
    }
    drop(files);
}

/// The run's end: the writer writes what is queued and publishes the files; a write error
/// becomes the error of every result that wrote interval logs, and windows merged because the
/// disk was slow are said (the lines stayed fio's, some windows are longer).
pub fn finish_run(
    writer: LogWriter,
    jobs: &[JobSpec],
    report: &mut crate::RunReport,
    observer: &mut dyn crate::Observer,
) {
    let summary = writer.finish();
    if let Some(error) = &summary.error {
        for (result, &j) in report.result.jobs.iter_mut().zip(&report.job_index) {
            if jobs
                .get(j)
                .is_some_and(|job| !interval_kinds(job).is_empty())
            {
                result.error.get_or_insert_with(|| error.clone());
            }
        }
    }
    if summary.merged_windows > 0 {
        observer.note(&format!(
            "the disk did not take the interval logs' lines as fast as the run made them, so \
             {} window(s) were merged into longer ones (fio's columns; each line's time is its \
             window's end): give a longer log_avg_msec/log_hist_msec or write the logs to a \
             faster disk",
            summary.merged_windows
        ));
    }
}

/// A clone's interval logs: what it renders each window into and hands to the writer.
#[derive(Clone, Debug)]
pub struct CloneLog(Arc<Mutex<CloneLogState>>);

struct CloneLogState {
    shared: Arc<Shared>,
    /// Per log: its kind, the writer's file index, and the lines not yet handed over.
    logs: Vec<(LogKind, usize, Vec<u8>)>,
    buffered: usize,
    wanted: [bool; 3],
    style: LogStyle,
    unix_epoch: bool,
    keep_directions: bool,
    interval_ns: u64,
    /// Windows kept as one while the writer is behind: (first interval, their sum).
    held: Option<(u64, IntervalBucket)>,
    /// The end (ns into the run) of the lines last handed over.
    flushed_to_ns: u64,
    text: String,
    /// The clone runs once (not loops as separate passes): its end is the end of its lines.
    single_pass: bool,
}

impl std::fmt::Debug for CloneLogState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CloneLogState")
            .field("logs", &self.logs.len())
            .field("buffered", &self.buffered)
            .finish()
    }
}

impl CloneLog {
    /// The first clone's measured window begins at `epoch_ms` (ms since the Unix epoch): the
    /// time base of `log_unix_epoch=1` lines. Later passes keep the first's.
    pub fn begin(&self, epoch_ms: u64) {
        let mut state = self.lock();
        if state.unix_epoch && state.style.time_base_ms.get() == 0 {
            state.style.time_base_ms = iofit_model::units::Millis(epoch_ms);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, CloneLogState> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A closed window of the clone, interval `bucket.index + shift` of the run.
    pub fn add(&self, bucket: &IntervalBucket, shift: u64) {
        let mut state = self.lock();
        let state = &mut *state;
        if state.shared.failed.load(Ordering::Relaxed) {
            return;
        }
        let index = bucket.index + shift;
        let end_ns = (index + 1) * state.interval_ns;
        match &mut state.held {
            Some((_, held)) => {
                held.absorb_next(bucket);
                state.shared.merged_windows.fetch_add(1, Ordering::Relaxed);
            }
            None if state.buffered >= 2 * CLONE_FLUSH_BYTES => {
                // The writer is behind: hold this window and merge the next ones into it.
                state.held = Some((index, bucket.clone()));
            }
            None => state.render(index, bucket),
        }
        if state.buffered >= CLONE_FLUSH_BYTES
            || end_ns.saturating_sub(state.flushed_to_ns) >= CLONE_FLUSH_EVERY_NS
        {
            if state.hand_over(false) {
                if let Some((first, held)) = state.held.take() {
                    state.render(first, &held);
                }
            }
            state.flushed_to_ns = end_ns;
        }
    }

    /// The clone's end (also after a stop): every line it holds goes to the writer. The
    /// writer's error, if writing a log failed.
    pub fn finish(&self) -> Result<(), LogError> {
        let mut state = self.lock();
        if let Some((first, held)) = state.held.take() {
            state.render(first, &held);
        }
        state.hand_over(true);
        if state.single_pass {
            for (_, file, _) in &state.logs {
                state.shared.done(*file);
            }
        }
        match state.shared.error() {
            Some(e) => Err(LogError::WriterFailed(e)),
            None => Ok(()),
        }
    }
}

impl CloneLogState {
    fn render(&mut self, index: u64, bucket: &IntervalBucket) {
        let keep_bins = self.logs.iter().any(|(k, _, _)| *k == LogKind::Histogram);
        let sample = bucket.to_sample(self.interval_ns, index, keep_bins, self.keep_directions);
        for (kind, _, buffer) in &mut self.logs {
            self.text.clear();
            render_sample(&mut self.text, &sample, *kind, self.wanted, &self.style);
            buffer.extend_from_slice(self.text.as_bytes());
            self.buffered += self.text.len();
        }
    }

    /// Hands every buffer to the writer; false when the queue was full for one of them (it
    /// stays buffered).
    fn hand_over(&mut self, force: bool) -> bool {
        let mut all = true;
        for (_, file, buffer) in &mut self.logs {
            if buffer.is_empty() {
                continue;
            }
            let bytes = std::mem::take(buffer);
            let len = bytes.len();
            match self.shared.push(*file, bytes, force) {
                Ok(()) => self.buffered -= len,
                Err(back) => {
                    *buffer = back;
                    all = false;
                }
            }
        }
        all
    }
}

/// Per job, per clone: the clone's interval logs, if it writes some.
pub type CloneLogs = Vec<Vec<Option<CloneLog>>>;

/// Opens the interval logs of every clone that writes some: `PREFIX_KIND.N.log`, N the clone's
/// number in the run as fio counts threads (clones of every job, in job order), or one
/// `PREFIX_KIND.log` for every clone with `per_job_logs=0`. `intervals[j]` is job j's
/// interval ([`paced_intervals`]). Returns the writer (None: no interval logs) and each
/// clone's logs, per job.
pub fn open(
    jobs: &[JobSpec],
    intervals: &[Duration],
    allow_overwrite: bool,
) -> Result<(Option<LogWriter>, CloneLogs), crate::error::EngineError> {
    let mut paths: Vec<PathBuf> = Vec::new();
    // Per file: the clones that will say they are done with it (MAX: one never will).
    let mut writers: Vec<u32> = Vec::new();
    // Per job, per clone: (kind, file index).
    let mut planned: Vec<Vec<Vec<(LogKind, usize)>>> = Vec::new();
    let mut number = 0u32;
    for job in jobs {
        let kinds = interval_kinds(job);
        let mut clones = Vec::new();
        for _ in 0..job.numjobs.max(1) {
            number += 1;
            let mut logs = Vec::new();
            for &(kind, prefix) in &kinds {
                let path = PathBuf::from(if job.logs.shared_file {
                    format!("{prefix}_{}.log", kind.suffix())
                } else {
                    format!("{prefix}_{}.{number}.log", kind.suffix())
                });
                let file = match paths.iter().position(|p| *p == path) {
                    Some(i) => i,
                    None => {
                        paths.push(path);
                        writers.push(0);
                        paths.len() - 1
                    }
                };
                writers[file] = if single_pass(job) {
                    writers[file].saturating_add(1)
                } else {
                    u32::MAX
                };
                logs.push((kind, file));
            }
            clones.push(logs);
        }
        planned.push(clones);
    }
    if paths.is_empty() {
        return Ok((None, jobs.iter().map(|_| Vec::new()).collect()));
    }
    let writer = LogWriter::open(&paths, writers, allow_overwrite).map_err(|e| {
        let job = jobs
            .iter()
            .find(|j| !interval_kinds(j).is_empty())
            .map_or(String::new(), |j| j.name.clone());
        crate::error::EngineError::invalid(&job, format!("log file: {e}"))
    })?;
    let per_job = jobs
        .iter()
        .zip(planned)
        .zip(intervals)
        .map(|((job, clones), interval)| {
            clones
                .into_iter()
                .map(|logs| (!logs.is_empty()).then(|| clone_log(&writer, job, *interval, logs)))
                .collect()
        })
        .collect();
    Ok((Some(writer), per_job))
}

/// A clone that runs its loops as separate passes ends each one: only the run's end is its
/// lines' end.
fn single_pass(job: &JobSpec) -> bool {
    crate::loops::passes(job).is_none()
}

fn clone_log(
    writer: &LogWriter,
    job: &JobSpec,
    interval: Duration,
    logs: Vec<(LogKind, usize)>,
) -> CloneLog {
    let has_latency = logs.iter().any(|(k, _)| {
        matches!(
            k,
            LogKind::Latency
                | LogKind::CompletionLatency
                | LogKind::SubmissionLatency
                | LogKind::Histogram
        )
    });
    CloneLog(Arc::new(Mutex::new(CloneLogState {
        shared: Arc::clone(&writer.shared),
        logs: logs
            .into_iter()
            .map(|(kind, file)| (kind, file, Vec::new()))
            .collect(),
        buffered: 0,
        wanted: directions_of(job.rw),
        style: LogStyle {
            with_offset: job.logs.with_offset,
            time_base_ms: iofit_model::units::Millis(0),
            block_size: job.block_size.max_size().as_u64(),
            with_prio: job.logs.with_prio,
            log_max: job.logs.max_value,
        },
        unix_epoch: job.logs.unix_epoch,
        // fio writes a latency line per direction for a job of several directions.
        // log_max_value: the window's maxima are kept per direction only.
        keep_directions: (job.rw.is_mixed() || job.rw.is_trimwrite() || job.logs.max_value)
            && has_latency,
        interval_ns: interval.as_nanos().max(1) as u64,
        held: None,
        flushed_to_ns: 0,
        text: String::new(),
        single_pass: single_pass(job),
    })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use iofit_model::job::{RwMode, Target};

    fn hist_job(numjobs: u32, hist_ms: u64) -> JobSpec {
        let mut job = JobSpec::new("h", Target::Files(vec!["x".into()])).with_rw(RwMode::RandRead);
        job.numjobs = numjobs;
        job.logs.hist_prefix = Some("h".into());
        job.log_interval = Duration::from_millis(hist_ms);
        job
    }

    #[test]
    fn fine_logs_of_many_clones_get_longer_windows_and_a_note() {
        // One clone at 1 ms: 5.6 KB a ms is within the budget; it keeps its windows.
        assert_eq!(
            paced_intervals(&[hist_job(1, 1)]),
            [Duration::from_millis(1)]
        );
        assert_eq!(pacing_note(&[hist_job(1, 1)]), None);
        // 64 clones at 1 ms would write 64 x 5.6 KB a ms (about 340 MiB/s): stretched to fit.
        let jobs = [hist_job(64, 1)];
        let paced = paced_intervals(&jobs);
        let rate = log_bytes_per_s(&jobs[0], paced[0]);
        assert!(rate <= LOG_BYTES_PER_S_MAX as f64, "{rate}");
        assert!(paced[0] >= Duration::from_millis(40) && paced[0] <= Duration::from_millis(50));
        let note = pacing_note(&jobs).unwrap();
        assert!(note.contains("h (64 clone(s)): 1 ms -> "), "{note}");
        assert!(note.contains("8.00 MiB a second"), "{note}");
        // Beside it, a 100 ms averaged log of two clones (2 x 28 B per 100 ms) keeps its
        // windows: only the job that asks for more than its share gets longer ones.
        let mut cheap = hist_job(2, 100);
        cheap.logs.hist_prefix = None;
        cheap.logs.bw_prefix = Some("b".into());
        let jobs = [cheap, hist_job(64, 1)];
        let paced = paced_intervals(&jobs);
        assert_eq!(paced[0], Duration::from_millis(100));
        let total: f64 = jobs
            .iter()
            .zip(&paced)
            .map(|(job, interval)| log_bytes_per_s(job, *interval))
            .sum();
        assert!(total <= LOG_BYTES_PER_S_MAX as f64, "{total}");
        assert!(paced[1] >= Duration::from_millis(40) && paced[1] <= Duration::from_millis(50));
    }

    #[test]
    fn lines_reach_the_file_in_fio_columns_as_the_windows_close() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x_clat_hist.1.log");
        let mut job = hist_job(1, 100);
        job.logs.hist_prefix = Some(dir.path().join("x").display().to_string());
        let intervals = paced_intervals(std::slice::from_ref(&job));
        let (writer, logs) = open(std::slice::from_ref(&job), &intervals, false).unwrap();
        let log = logs[0][0].clone().unwrap();
        let interval_ns = 100_000_000;
        let mut acc = iofit_stats::IntervalAccumulator::new(interval_ns);
        let mut sink = |b: &IntervalBucket| log.add(b, 0);
        for step in 0..30u64 {
            acc.advance(step * interval_ns / 3, &mut sink);
            acc.record(iofit_stats::Ddir::Read, 4096, 1, 2_000);
        }
        acc.finish(10 * interval_ns, &mut sink);
        log.finish().unwrap();
        let summary = writer.unwrap().finish();
        assert!(summary.error.is_none());
        let text = std::fs::read_to_string(&path).unwrap();
        let mut counted = 0;
        let mut times = Vec::new();
        for line in text.lines() {
            let fields: Vec<u64> = line.split(", ").map(|f| f.parse().unwrap()).collect();
            assert_eq!(fields.len(), 3 + 1856);
            times.push(fields[0]);
            counted += fields[3..].iter().sum::<u64>();
        }
        assert_eq!(counted, 30, "every IO in the log");
        assert_eq!(times, (1..=10).map(|i| i * 100).collect::<Vec<_>>());
        assert_eq!(summary.merged_windows, 0);
    }
    #[test]
    fn a_writer_behind_gets_longer_windows_never_a_waiting_clone() {
        // The queue is full (a writer that does not keep up): the clone does not wait; once
        // it holds two flushes' worth, the next windows are kept as one, and that window is
        // one line when the writer has caught up. Every IO is in the log all the same.
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue {
                chunks: VecDeque::from([(0, Some(vec![b'x'; QUEUE_BYTES_MAX]))]),
                bytes: QUEUE_BYTES_MAX,
                closed: false,
            }),
            ready: Condvar::new(),
            error: Mutex::new(None),
            failed: AtomicBool::new(false),
            merged_windows: AtomicU64::new(0),
        });
        let mut job = hist_job(1, 1);
        job.logs.hist_prefix = None;
        job.logs.iops_prefix = Some("i".into());
        let writer = LogWriter {
            shared: Arc::clone(&shared),
            thread: None,
        };
        let log = clone_log(
            &writer,
            &job,
            Duration::from_millis(1),
            vec![(LogKind::Iops, 0)],
        );
        let ms = 1_000_000;
        let windows = 6_000u64;
        for i in 0..windows {
            let mut bucket = IntervalBucket::empty_at(i);
            bucket.length_ns = iofit_model::units::Nanos(ms);
            bucket.ios[0] = 2;
            log.add(&bucket, 0);
        }
        let merged = shared.merged_windows.load(Ordering::Relaxed);
        assert!(merged > 1_000, "{merged}");
        // The writer catches up; the next window's hand-over writes the held one first.
        {
            let mut queue = shared.queue();
            queue.chunks.clear();
            queue.bytes = 0;
        }
        let mut bucket = IntervalBucket::empty_at(windows);
        bucket.length_ns = iofit_model::units::Nanos(ms);
        bucket.ios[0] = 2;
        log.add(&bucket, 0);
        log.finish().unwrap();
        let text: Vec<u8> = shared
            .queue()
            .chunks
            .iter()
            .flat_map(|(_, b)| b.clone().unwrap_or_default())
            .collect();
        let lines: Vec<(u64, u64)> = String::from_utf8(text)
            .unwrap()
            .lines()
            .map(|l| {
                let f: Vec<u64> = l.split(", ").map(|v| v.parse().unwrap()).collect();
                assert_eq!(f.len(), 5, "fio's columns: {l}");
                (f[0], f[1])
            })
            .collect();
        // Times ascend to the last window's end; IOPS x window length adds up to every IO.
        let mut previous_ms = 0;
        let mut ios = 0;
        for &(end_ms, iops) in &lines {
            assert!(end_ms > previous_ms, "{end_ms} after {previous_ms}");
            ios += iops * (end_ms - previous_ms) / 1000;
            previous_ms = end_ms;
        }
        assert_eq!(previous_ms, windows + 1);
        assert_eq!(ios, 2 * (windows + 1));
        // Each run of merged windows is one line (the last window joined the held ones too).
        let merged = shared.merged_windows.load(Ordering::Relaxed);
        assert_eq!(lines.len() as u64, windows + 1 - merged);
        drop(writer);
    }
}
