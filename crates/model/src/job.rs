//! A runnable job: the typed form that every job-file dialect (fio ini, vdbench parameter files,
//! Iometer access specs, the command line) is lowered into, and that the engine executes.
//! It lives in `model` so that `jobfile` (which writes it) and `engine` (which runs it) meet only
//! here, the way ripgrep's crates meet through one small type.

use crate::units::Bytes;
use crate::workload::Workload;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

mod io;
mod note;
mod options;
mod reporting;

use reporting::is_default_reporting;

pub use note::JobNote;

pub use io::{
    BlockSizeShare, BlockSizeSpec, Direction, EngineKind, PerDirection, RwMode, SizeSpec, Target,
    UnknownName,
};
pub use options::{
    AccessZone, ErrorPolicy, FadviseHint, FileService, FileServiceKind, FileSync, IoPriority,
    LatencyTargetSpec, Measurement, OpenSync, Pacing, RandomDistribution, SteadyMetric,
    SteadyStateSpec, ThreadControl, UringOptions, ZoneSize,
};
pub use reporting::{FioLogs, Reporting, UnifiedRw};

fn is_no_logs(logs: &FioLogs) -> bool {
    !logs.any()
}

fn is_zero_i64(value: &i64) -> bool {
    *value == 0
}

fn is_zero_bytes(value: &Bytes) -> bool {
    *value == Bytes::ZERO
}

fn one() -> u32 {
    1
}

/// A fully resolved job. Every field has its final value: defaults were applied by the parser.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobSpec {
    pub name: String,
    /// Reporting group: jobs with the same group are summed under `group_reporting`.
    pub group_id: u32,
    /// Wait for all earlier jobs to finish before starting (fio `stonewall`/`wait_for_previous`).
    pub stonewall: bool,
    pub group_reporting: bool,
    pub target: Target,
    /// Region size per file; `None` means "use the existing file's size" (an error when absent).
    pub size: Option<SizeSpec>,
    pub offset: Bytes,
    pub rw: RwMode,
    /// Share of reads in a mixed job (fio `rwmixread`), 0..=100; 100 or 0 for pure modes.
    pub rwmix_read_pct: f64,
    /// Share of random IOs, 0..=100 (fio `percentage_random`, vdbench `seekpct`).
    pub random_pct: f64,
    pub block_size: BlockSizeSpec,
    /// The (smallest, largest) IO size of reads, writes and trims as the job file stated them
    /// (fio's `bs=(R) .., (W) .., (T) ..` header line). `block_size` holds what the job issues:
    /// a trim job's trims are in its write slot, so the stated sizes cannot be read back from
    /// it. `None` when the job came from elsewhere (the header then shows `block_size`).
    #[serde(default)]
    pub stated_block_sizes: Option<[(Bytes, Bytes); 3]>,
    pub engine: EngineKind,
    pub iodepth: u32,
    pub direct: bool,
    /// Clones of this job, each an independent thread (fio `numjobs`).
    pub numjobs: u32,
    pub runtime: Option<Duration>,
    /// Keep going until `runtime` even when the region has been covered.
    pub time_based: bool,
    /// Run but do not measure for this long first (fio `ramp_time`, vdbench `warmup`).
    pub ramp_time: Duration,
    pub start_delay: Duration,
    /// IOPS cap per direction per clone; `None` is unlimited.
    pub rate_iops: PerDirection<Option<u64>>,
    /// Bytes-per-second cap per direction per clone.
    pub rate_bytes_per_second: PerDirection<Option<u64>>,
    pub norandommap: bool,
    /// fio `rw=read:-8k` / `rw=write:4k`: bytes between the end of one sequential IO and the
    /// start of the next (negative: backwards).
    // Stays a bare i64: a signed step (backwards skips), which `Bytes` (unsigned) cannot hold.
    #[serde(default, skip_serializing_if = "is_zero_i64")]
    pub seq_add_bytes: i64,
    /// vdbench `stride=(min,max)`: on top of `seq_add_bytes` (the minimum) a random skip of
    /// 0..this many bytes, in whole IO lengths, after each sequential IO.
    #[serde(default, skip_serializing_if = "is_zero_bytes")]
    pub seq_add_jitter_bytes: Bytes,
    /// fio `rw=randread:N`: a new random offset every N IOs (1: every IO).
    #[serde(default = "one")]
    pub random_run: u32,
    /// fio `rw_sequencer=identical`: the IOs of a random run repeat its offset instead of
    /// following on.
    #[serde(default)]
    pub repeat_offset_in_run: bool,
    /// Random offsets are multiples of this (fio `blockalign`); `None`: the smallest block size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_align: Option<Bytes>,
    /// How random offsets are spread (fio `random_distribution`).
    #[serde(default)]
    pub random_distribution: RandomDistribution,
    pub randrepeat: bool,
    /// Seed of the job's PRNG; printed in results so a run can be replayed.
    pub random_seed: u64,
    pub loops: u32,
    /// Issue fsync after every N writes (0: never).
    pub fsync_every: u32,
    /// Issue fdatasync after every N writes (0: never).
    pub fdatasync_every: u32,
    pub end_fsync: bool,
    /// Stop after this many bytes of IO per clone (fio `io_size`/`io_limit`), else `size`.
    pub io_limit: Option<Bytes>,
    /// Per-second (or `interval`) sampling period for the time series.
    pub log_interval: Duration,
    /// fio-format logs to write after the run.
    #[serde(default, skip_serializing_if = "is_no_logs")]
    pub logs: FioLogs,
    /// What the job writes in its blocks and how it checks them (verify, compressibility,
    /// dedupe).
    #[serde(default, skip_serializing_if = "crate::data::DataSpec::is_default")]
    pub data: crate::data::DataSpec,
    /// How the results are reported (fio's percentile, unified and option-echo settings).
    #[serde(default, skip_serializing_if = "is_default_reporting")]
    pub reporting: Reporting,
    /// What iofit does differently from what the job file asked, one sentence each (an option
    /// accepted with a note, an engine run as another): printed with the job, never silent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<JobNote>,
    /// Pauses between IOs and minimum rates (fio `thinktime*`, `rate_min`, `rate_process`).
    #[serde(default, skip_serializing_if = "Pacing::is_default")]
    pub pacing: Pacing,
    /// How files are opened and synced beyond `fsync`/`end_fsync` (fio `sync`,
    /// `fsync_on_close`, `end_syncfs`).
    #[serde(default, skip_serializing_if = "FileSync::is_default")]
    pub file_sync: FileSync,
    /// Scheduling of the job's threads (fio `cpus_allowed`, `nice`, `prio`/`prioclass`) and
    /// `exitall`.
    #[serde(default, skip_serializing_if = "ThreadControl::is_default")]
    pub thread_control: ThreadControl,
    /// End the job once its throughput is steady (fio `steadystate`, `ss_dur`, `ss_ramp`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_state: Option<SteadyStateSpec>,
    /// Search for the deepest queue that meets a latency target (fio `latency_target`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_target: Option<LatencyTargetSpec>,
    /// io_uring ring setup and per-IO flags (fio's io_uring engine options).
    #[serde(default, skip_serializing_if = "UringOptions::is_default")]
    pub uring: UringOptions,
    /// What the job measures, and the latency that fails it (fio `disable_*`, `max_latency`).
    #[serde(default, skip_serializing_if = "Measurement::is_default")]
    pub measurement: Measurement,
    /// Which of the job's files the next IO goes to (fio `file_service_type`).
    #[serde(default, skip_serializing_if = "FileService::is_default")]
    pub file_service: FileService,
    /// How the files of a `Target::Directory` are named (fio `filename_format`; `$jobname`,
    /// `$jobnum`, `$filenum`, `$clientuid`); `None`: fio's `$jobname.$jobnum.$filenum`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename_format: Option<String>,
    /// Where each clone starts beyond `offset` (fio `offset=N%`, `offset_increment`,
    /// `offset_align`).
    #[serde(
        default,
        skip_serializing_if = "crate::placement::StartOffset::is_default"
    )]
    pub start: crate::placement::StartOffset,
    /// Flow control with other jobs of the same flow id (fio `flow`, `flow_id`, `flow_sleep`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow: Option<crate::placement::FlowSpec>,
    /// Never more than one IO in flight on overlapping bytes (fio `serialize_overlap`).
    #[serde(default)]
    pub serialize_overlap: bool,
    /// Per-IO priorities (fio `cmdprio*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cmdprio: Option<crate::placement::CmdPrio>,
    /// fio `fill_device`/`fill_fs`: write until the file system is full (ENOSPC ends the job,
    /// not as an error); the file is created empty, not laid out first.
    #[serde(default)]
    pub fill_device: bool,
    /// Replay an IO log instead of drawing IOs (fio `read_iolog`, `replay_*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<crate::replay::ReplaySpec>,
    /// Record every IO issued in fio's version 3 IO log at this path (fio `write_iolog`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_iolog: Option<PathBuf>,
}

impl JobSpec {
    /// A job with fio's defaults: sequential read, 4 KiB, psync, iodepth 1, one clone.
    pub fn new(name: impl Into<String>, target: Target) -> JobSpec {
        JobSpec {
            name: name.into(),
            group_id: 0,
            stonewall: false,
            group_reporting: false,
            target,
            size: None,
            offset: Bytes::ZERO,
            rw: RwMode::Read,
            rwmix_read_pct: 100.0,
            random_pct: 0.0,
            block_size: BlockSizeSpec::fixed(Bytes::kib(4)),
            stated_block_sizes: None,
            engine: EngineKind::Psync,
            iodepth: 1,
            direct: false,
            numjobs: 1,
            runtime: None,
            time_based: false,
            ramp_time: Duration::ZERO,
            start_delay: Duration::ZERO,
            rate_iops: PerDirection::both(None),
            rate_bytes_per_second: PerDirection::both(None),
            norandommap: false,
            seq_add_bytes: 0,
            seq_add_jitter_bytes: Bytes::ZERO,
            random_run: 1,
            repeat_offset_in_run: false,
            block_align: None,
            random_distribution: RandomDistribution::Uniform,
            randrepeat: true,
            random_seed: 0x5eed_10f1_7000_0001,
            loops: 1,
            fsync_every: 0,
            fdatasync_every: 0,
            end_fsync: false,
            io_limit: None,
            log_interval: Duration::from_secs(1),
            logs: FioLogs::default(),
            data: crate::data::DataSpec::default(),
            reporting: Reporting::default(),
            notes: Vec::new(),
            pacing: Pacing::default(),
            file_sync: FileSync::default(),
            thread_control: ThreadControl::default(),
            steady_state: None,
            latency_target: None,
            uring: UringOptions::default(),
            measurement: Measurement::default(),
            file_service: FileService::default(),
            filename_format: None,
            start: crate::placement::StartOffset::default(),
            flow: None,
            serialize_overlap: false,
            cmdprio: None,
            fill_device: false,
            replay: None,
            write_iolog: None,
        }
    }

    /// Sets `rw` and the read share and random share that follow from it.
    pub fn with_rw(mut self, rw: RwMode) -> JobSpec {
        self.rw = rw;
        self.rwmix_read_pct = if rw.is_mixed() {
            50.0
        } else if rw.has_reads() {
            100.0
        } else {
            0.0
        };
        self.random_pct = if rw.is_random() { 100.0 } else { 0.0 };
        self
    }

    /// The files clone `clone_index` of this job uses, named as fio names them.
    pub fn files_for_clone(&self, clone_index: u32) -> Vec<PathBuf> {
        match &self.target {
            Target::Files(files) => files.clone(),
            Target::Directory { path, nrfiles } => (0..(*nrfiles).max(1))
                .map(|file_index| path.join(self.file_name(clone_index, file_index)))
                .collect(),
        }
    }

    /// The name of file `file_index` of clone `clone_index` in the job's directory: fio's
    /// `make_filename`, keywords matched without regard to case. `$clientuid` is the client's
    /// address in fio's client/server mode and empty otherwise; iofit has no such mode (its
    /// multi-host runs give each host its own files), so it is empty here too.
    pub fn file_name(&self, clone_index: u32, file_index: u32) -> String {
        let Some(format) = self.filename_format.as_deref().filter(|f| !f.is_empty()) else {
            return format!("{}.{}.{}", self.name, clone_index, file_index);
        };
        let values = [
            ("$jobname", self.name.clone()),
            ("$clientuid", String::new()),
            ("$jobnum", clone_index.to_string()),
            ("$filenum", file_index.to_string()),
        ];
        // One pass from the left, so a value holding a keyword is not expanded again.
        let mut name = String::with_capacity(format.len() + self.name.len());
        let mut rest = format;
        while let Some(ch) = rest.chars().next() {
            let hit = values.iter().find(|(keyword, _)| {
                rest.get(..keyword.len())
                    .is_some_and(|head| head.eq_ignore_ascii_case(keyword))
            });
            match hit {
                Some((keyword, value)) => {
                    name.push_str(value);
                    rest = &rest[keyword.len()..];
                }
                None => {
                    name.push(ch);
                    rest = &rest[ch.len_utf8()..];
                }
            }
        }
        name
    }

    /// IOs in flight per clone: synchronous engines keep one whatever `iodepth` says.
    pub fn effective_iodepth(&self) -> u32 {
        if self.engine.is_synchronous() {
            1
        } else {
            self.iodepth.max(1)
        }
    }

    /// The abstract workload this job presents to storage.
    pub fn workload(&self) -> Workload {
        Workload {
            read_pct: self.rwmix_read_pct,
            random_pct: self.random_pct,
            read_io_size: self.block_size.mean_size(Direction::Read),
            write_io_size: self.block_size.mean_size(Direction::Write),
            queue_depth: self.effective_iodepth(),
            threads: self.numjobs.max(1),
        }
    }
}

/// The load a set of jobs puts on one place (a directory or a file's directory): what
/// `predict --job` sizes a volume for.
#[derive(Clone, Debug, PartialEq)]
pub struct TargetLoad {
    /// The directory the jobs do IO in.
    pub place: PathBuf,
    /// Jobs (by name) that run there.
    pub jobs: Vec<String>,
    pub workload: Workload,
    /// Sum over the jobs' clones of their `rate_iops` (both directions), when every job there
    /// has one: the IOPS the job file will not exceed whatever the storage does.
    pub rate_iops_cap: Option<f64>,
    /// Likewise for `rate` (bytes per second).
    pub rate_bytes_per_second_cap: Option<f64>,
}

/// Groups jobs by the directory they do IO in, in order of first appearance, and combines each
/// group into one workload: threads add up; queue depth, read share, random share and IO sizes
/// are averaged weighted by each job's outstanding IOs (numjobs x iodepth), which is how the
/// jobs share the volume's IOs when their latencies are alike.
pub fn loads_by_place(jobs: &[JobSpec]) -> Vec<TargetLoad> {
    let mut groups: Vec<(PathBuf, Vec<&JobSpec>)> = Vec::new();
    for job in jobs {
        let place = match &job.target {
            Target::Directory { path, .. } => path.clone(),
            Target::Files(files) => files
                .first()
                .and_then(|f| f.parent())
                .map(PathBuf::from)
                .unwrap_or_default(),
        };
        match groups.iter_mut().find(|(p, _)| *p == place) {
            Some((_, members)) => members.push(job),
            None => groups.push((place, vec![job])),
        }
    }
    groups
        .into_iter()
        .map(|(place, members)| combine(place, &members))
        .collect()
}

fn combine(place: PathBuf, jobs: &[&JobSpec]) -> TargetLoad {
    let weight = |j: &JobSpec| f64::from(j.numjobs.max(1)) * f64::from(j.effective_iodepth());
    let total: f64 = jobs.iter().map(|j| weight(j)).sum::<f64>().max(1.0);
    let mean =
        |f: &dyn Fn(&JobSpec) -> f64| jobs.iter().map(|j| f(j) * weight(j)).sum::<f64>() / total;
    let read_pct = mean(&|j| j.rwmix_read_pct);
    // IO sizes weighted by the IOs that go each way.
    let size = |direction: Direction, share: &dyn Fn(&JobSpec) -> f64| {
        let weights: f64 = jobs.iter().map(|j| weight(j) * share(j)).sum();
        if weights <= 0.0 {
            return Bytes::kib(4);
        }
        let bytes: f64 = jobs
            .iter()
            .map(|j| weight(j) * share(j) * j.block_size.mean_size(direction).as_f64())
            .sum();
        Bytes((bytes / weights).round() as u64)
    };
    let threads: u32 = jobs.iter().map(|j| j.numjobs.max(1)).sum();
    let depth = (mean(&|j| f64::from(j.effective_iodepth())))
        .round()
        .max(1.0) as u32;
    let cap = |rate: &dyn Fn(&JobSpec) -> Option<f64>| -> Option<f64> {
        jobs.iter()
            .map(|j| rate(j).map(|r| r * f64::from(j.numjobs.max(1))))
            .sum::<Option<f64>>()
    };
    let both = |p: &PerDirection<Option<u64>>, j: &JobSpec| -> Option<f64> {
        let read = if j.rw.has_reads() { p.read } else { Some(0) };
        let write = if j.rw.has_writes() { p.write } else { Some(0) };
        Some((read? + write?) as f64)
    };
    TargetLoad {
        place,
        jobs: jobs.iter().map(|j| j.name.clone()).collect(),
        workload: Workload {
            read_pct,
            random_pct: mean(&|j| j.random_pct),
            read_io_size: size(Direction::Read, &|j| j.rwmix_read_pct),
            write_io_size: size(Direction::Write, &|j| 100.0 - j.rwmix_read_pct),
            queue_depth: depth,
            threads,
        },
        rate_iops_cap: cap(&|j| both(&j.rate_iops, j)),
        rate_bytes_per_second_cap: cap(&|j| both(&j.rate_bytes_per_second, j)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_combine_per_place() {
        let dir = |d: &str| Target::Directory {
            path: PathBuf::from(d),
            nrfiles: 1,
        };
        let mut jobs = Vec::new();
        for i in 0..4 {
            let mut r = JobSpec::new(format!("r{i}"), dir("/a")).with_rw(RwMode::RandRead);
            r.engine = EngineKind::IoUring;
            r.iodepth = 128;
            jobs.push(r);
        }
        for i in 0..4 {
            let mut w = JobSpec::new(format!("w{i}"), dir("/b")).with_rw(RwMode::RandWrite);
            w.engine = EngineKind::IoUring;
            w.iodepth = 128;
            w.block_size = BlockSizeSpec::fixed(Bytes::kib(8));
            w.rate_iops = PerDirection {
                read: None,
                write: Some(12_500),
            };
            jobs.push(w);
        }
        let loads = loads_by_place(&jobs);
        assert_eq!(loads.len(), 2);
        assert_eq!(loads[0].place, PathBuf::from("/a"));
        assert_eq!(
            (loads[0].workload.threads, loads[0].workload.queue_depth),
            (4, 128)
        );
        assert_eq!(loads[0].workload.read_pct, 100.0);
        assert_eq!(loads[0].rate_iops_cap, None);
        assert_eq!(loads[1].workload.read_pct, 0.0);
        assert_eq!(loads[1].workload.write_io_size, Bytes::kib(8));
        assert_eq!(loads[1].rate_iops_cap, Some(50_000.0));
        // A reader and a writer on one place: half the outstanding IOs each way.
        let mut mixed = jobs[0].clone();
        mixed.target = dir("/b");
        let loads = loads_by_place(&[mixed, jobs[4].clone()]);
        assert_eq!(loads.len(), 1);
        assert_eq!(loads[0].workload.read_pct, 50.0);
        assert_eq!(loads[0].workload.threads, 2);
        assert_eq!(loads[0].rate_iops_cap, None);
    }

    #[test]
    fn directory_files_are_named_like_fio() {
        let job = JobSpec::new(
            "writer1",
            Target::Directory {
                path: PathBuf::from("/mnt/nocache"),
                nrfiles: 1,
            },
        );
        assert_eq!(
            job.files_for_clone(2),
            vec![PathBuf::from("/mnt/nocache/writer1.2.0")]
        );
    }

    #[test]
    fn rw_sets_mix_and_randomness() {
        let job = JobSpec::new("a", Target::Files(vec![])).with_rw(RwMode::RandRw);
        assert_eq!(job.rwmix_read_pct, 50.0);
        assert_eq!(job.random_pct, 100.0);
        let job = job.with_rw(RwMode::Write);
        assert_eq!(job.rwmix_read_pct, 0.0);
        assert_eq!(job.workload().read_pct, 0.0);
    }

    #[test]
    fn synchronous_engines_have_depth_one() {
        let mut job = JobSpec::new("a", Target::Files(vec![]));
        job.iodepth = 32;
        assert_eq!(job.effective_iodepth(), 1);
        job.engine = EngineKind::IoUring;
        assert_eq!(job.effective_iodepth(), 32);
    }
}
