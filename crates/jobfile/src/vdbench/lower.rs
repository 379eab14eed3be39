//! Lowering an expanded vdbench run to [`JobSpec`]s: a (wd, sd) pair's region and skew, the
//! reporting intervals vdbench counts, the clones and IOs in flight that its threads become,
//! and the IO rate split between them.

use super::{data, Arrivals, Run, RunWorkload, Seek, SyncFlag};
use iofit_model::job::JobNote;
use iofit_model::job::{
    AccessZone, EngineKind, JobSpec, PerDirection, RandomDistribution, RwMode, SizeSpec, Target,
    ZoneSize,
};
use iofit_model::units::Bytes;
use std::time::Duration;

impl RunWorkload {
    /// `offset=`, `range=`, `hitarea=` with `rhpct`/`whpct`, and `hotband=` as the job's
    /// region and offset distribution. Needs the sd's size (given or read from the lun by the
    /// runner); without it the whole lun is used and a note says so.
    fn apply_region(&self, job: &mut JobSpec) {
        let wants_region = self.range.is_some()
            || self.hotband.is_some()
            || self.sd.offset > Bytes::ZERO
            || self.rhpct > 0.0
            || self.whpct > 0.0;
        if let Some(align) = self.sd.align {
            job.block_align = Some(align);
        }
        let Some(size) = self.sd.size else {
            if wants_region {
                job.notes.push(JobNote::Accepted {
                    option: "range",
                    how: "range/offset/hitarea/hotband need the lun's size; give size= on the sd",
                });
            }
            return;
        };
        let usable = size.as_u64().saturating_sub(self.sd.offset.as_u64());
        let (start_pct, end_pct) = self.hotband.or(self.range).unwrap_or((0.0, 100.0));
        let block = self.xfersize.block_size().max_size().as_u64().max(1);
        let round = |bytes: f64| (bytes as u64) / block * block;
        let start = round(usable as f64 * start_pct / 100.0);
        let end = round(usable as f64 * end_pct / 100.0).max(start + block);
        job.offset = Bytes(self.sd.offset.as_u64() + start);
        job.size = Some(SizeSpec::Bytes(Bytes(end - start)));
        let region = end - start;
        if let Some((lo, hi)) = self.hotband {
            job.random_distribution = hotband_zones(region);
            job.notes.push(JobNote::Hotband {
                low_pct: lo,
                high_pct: hi,
            });
        } else if self.rhpct > 0.0 || self.whpct > 0.0 {
            let hit_pct = (self.rdpct * self.rhpct + (100.0 - self.rdpct) * self.whpct) / 100.0;
            // hitarea=0: vdbench's hits land at the start of the area; one block here.
            let hitarea = self
                .hitarea
                .unwrap_or(Bytes::mib(1))
                .as_u64()
                .max(block)
                .min(region);
            job.random_distribution = RandomDistribution::Zoned(vec![
                AccessZone {
                    access_pct: hit_pct,
                    size: ZoneSize::Bytes(Bytes(hitarea)),
                },
                AccessZone {
                    access_pct: 100.0 - hit_pct,
                    size: ZoneSize::Bytes(Bytes(region - hitarea)),
                },
            ]);
            if self.rhpct != self.whpct && self.rdpct > 0.0 && self.rdpct < 100.0 {
                job.notes.push(JobNote::HitArea {
                    rhpct: self.rhpct,
                    whpct: self.whpct,
                    hit_pct,
                });
            }
        }
    }

    /// `stride=(min,max)` (given when the IOs are random): each IO starts min plus a random
    /// 0..(max-min) in whole transfer sizes after the end of the last one, wrapping to the
    /// start at the end of the region, as vdbench's WG_entry does.
    fn apply_stride(&self, stride: Option<(Bytes, Bytes)>, job: &mut JobSpec) {
        if let Some((min, max)) = stride {
            job.seq_add_bytes = min.as_u64().min(i64::MAX as u64) as i64;
            job.seq_add_jitter_bytes = max - min;
            if let Seek::RandomPct(p) = self.seek {
                if p < 100.0 {
                    job.notes.push(JobNote::StrideMixed { seek_pct: p });
                }
            }
        } else if self.stride.is_some() {
            job.notes.push(JobNote::Accepted {
                option: "stride",
                how: "stride= is used by random IOs only (vdbench); this workload is sequential",
            });
        }
    }

    /// Streams this pair runs as: `streams=` when the sd's size is known, else 1.
    fn stream_count(&self) -> u32 {
        match (self.streams, self.sd.size) {
            (Some(n), Some(_)) if n > 1 => n,
            _ => 1,
        }
    }

    /// `streams=N` (vdbench StreamContext): the job's region split into N equal parts (each
    /// truncated to the largest transfer size), each its own job with threads/N of the pair's
    /// threads and 1/N of its IO rate.
    fn split_streams(&self, job: JobSpec) -> Vec<JobSpec> {
        let n = self.stream_count();
        let Some(SizeSpec::Bytes(region)) = job.size else {
            let mut job = job;
            if self.streams.is_some() {
                job.notes.push(JobNote::Accepted {
                    option: "streams",
                    how: "streams= needs the lun's size; give size= on the sd",
                });
            }
            return vec![job];
        };
        if n < 2 {
            return vec![job];
        }
        let block = self.xfersize.block_size().max_size().as_u64().max(1);
        let stream_bytes = region.as_u64() / u64::from(n) / block * block;
        if stream_bytes == 0 {
            let mut job = job;
            job.notes.push(JobNote::StreamsTooSmall { streams: n });
            return vec![job];
        }
        let clones_before = job.numjobs.max(1);
        let mut template = job;
        if clones_before > 1 {
            template.numjobs = (clones_before / n).max(1);
        } else {
            template.iodepth = (template.iodepth / n).max(1);
        }
        // The pair's rate was split over its clones; now each stream gets 1/n of it.
        let scale = f64::from(clones_before) / (f64::from(n) * f64::from(template.numjobs));
        let scaled = |rate: Option<u64>| rate.map(|r| ((r as f64 * scale).round() as u64).max(1));
        template.rate_iops = PerDirection {
            read: scaled(template.rate_iops.read),
            write: scaled(template.rate_iops.write),
        };
        if !self.threads.is_multiple_of(n) {
            template.notes.push(JobNote::StreamThreads {
                streams: n,
                threads: self.threads,
                per_stream: (self.threads / n).max(1),
            });
        }
        (0..n)
            .map(|k| {
                let mut job = template.clone();
                job.name = format!("{}.stream{}", job.name, k + 1);
                job.offset = Bytes(job.offset.as_u64() + u64::from(k) * stream_bytes);
                job.size = Some(SizeSpec::Bytes(Bytes(stream_bytes)));
                job.random_seed = job.random_seed.wrapping_add(u64::from(k) << 20);
                job
            })
            .collect()
    }

    /// `openflags=o_dsync`/`o_sync`: a data sync (or full sync) after every write.
    fn apply_sync(&self, job: &mut JobSpec) {
        match self.sync_writes {
            Some(SyncFlag::DataSync) => {
                job.fdatasync_every = 1;
                job.notes.push(JobNote::Accepted {
                    option: "openflags",
                    how: "openflags=o_dsync: an fdatasync after every write",
                });
            }
            Some(SyncFlag::Sync) => {
                job.fsync_every = 1;
                job.notes.push(JobNote::Accepted {
                    option: "openflags",
                    how: "openflags=o_sync: an fsync after every write",
                });
            }
            None => {}
        }
    }
}

/// vdbench's hot band (HotBand.java, Steven A. Johnson): the probability of an access within
/// the first N MB of the band, a curve of (MB, cumulative probability) points, as zones.
fn hotband_zones(region_bytes: u64) -> RandomDistribution {
    const CACHE_MB: [u64; 12] = [0, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384];
    const PB: [f64; 12] = [
        0.0, 0.087217, 0.10101, 0.132206, 0.159946, 0.201713, 0.262602, 0.32645, 0.366902,
        0.386175, 0.436941, 0.482631,
    ];
    let mut zones = Vec::new();
    let mut used = 0u64;
    let mut used_pct = 0.0;
    for i in 1..CACHE_MB.len() {
        let end = (CACHE_MB[i] << 20).min(region_bytes);
        if end <= used {
            break;
        }
        let pct = (PB[i] - PB[i - 1]) * 100.0;
        zones.push(AccessZone {
            access_pct: pct,
            size: ZoneSize::Bytes(Bytes(end - used)),
        });
        used = end;
        used_pct += pct;
    }
    if used < region_bytes || zones.is_empty() {
        zones.push(AccessZone {
            access_pct: 100.0 - used_pct,
            size: ZoneSize::Bytes(Bytes(region_bytes - used)),
        });
    } else if let Some(last) = zones.last_mut() {
        last.access_pct += 100.0 - used_pct;
    }
    RandomDistribution::Zoned(zones)
}

/// vdbench's reporting intervals of one run (Reporter.java): the warm-up intervals are printed
/// and left out of the average; the run ends after the last measured one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntervalPlan {
    pub interval: Duration,
    /// `warmup/interval`, at least 1 (no warmup: the first interval is the warm-up).
    pub warmup_intervals: u64,
    /// Every interval of the run, warm-up included: warmup + `elapsed/interval` intervals, or
    /// `elapsed/interval` when there is no warmup (vdbench counts the implied one in it).
    pub total_intervals: u64,
}

impl IntervalPlan {
    pub fn new(elapsed: Duration, warmup: Duration, interval: Duration) -> IntervalPlan {
        let interval_ns = interval.as_nanos().max(1);
        let elapsed_intervals = (elapsed.as_nanos() / interval_ns) as u64;
        let warmup_intervals = (warmup.as_nanos() / interval_ns) as u64;
        let (warmup_intervals, total_intervals) = if warmup_intervals == 0 {
            (1, elapsed_intervals)
        } else {
            (warmup_intervals, warmup_intervals + elapsed_intervals)
        };
        IntervalPlan {
            interval,
            warmup_intervals,
            // At least one interval runs; a run of a single interval averages that one
            // (vdbench refuses elapsed < 2 intervals; iofit runs it and says so).
            total_intervals: total_intervals.max(1),
        }
    }

    /// The first interval of the average, 1-based.
    pub fn first_measured(&self) -> u64 {
        if self.warmup_intervals >= self.total_intervals {
            1
        } else {
            self.warmup_intervals + 1
        }
    }

    /// How long the run lasts: every interval, warm-up included.
    pub fn runtime(&self) -> Duration {
        self.interval
            .saturating_mul(self.total_intervals.min(u32::MAX as u64) as u32)
    }
}

impl Run {
    /// The run's reporting intervals, as vdbench counts them.
    pub fn interval_plan(&self) -> IntervalPlan {
        IntervalPlan::new(self.elapsed, self.warmup, self.interval)
    }

    /// Total outstanding IOs (threads over every SD); equals the sum over [`Run::to_jobs`] of
    /// clones x IOs in flight per clone.
    pub fn total_threads(&self) -> u32 {
        self.workloads.iter().map(|w| w.threads).sum()
    }

    /// The jobs of this run at `total_iops` (None: uncontrolled, as `iorate=max`).
    /// `run_index` makes file-independent seeds differ between runs.
    pub fn to_jobs(&self, total_iops: Option<f64>) -> Vec<JobSpec> {
        let sequential_pass = self.workloads.iter().any(|w| w.seek == Seek::Eof);
        let mut jobs = self
            .workloads
            .iter()
            .enumerate()
            .flat_map(|(index, w)| {
                let random_pct = match w.seek {
                    Seek::RandomPct(p) => p,
                    Seek::Eof => 0.0,
                };
                // vdbench's stride replaces the random seek (WG_entry.blockBoundarySeek): one
                // forward-skipping stream through the SD instead of random offsets.
                let stride = w.stride.filter(|_| random_pct > 0.0);
                let random_pct = if stride.is_some() { 0.0 } else { random_pct };
                let random = random_pct > 0.0;
                let rw = RwMode::from_mix(w.rdpct, random);
                let mut job = JobSpec::new(
                    format!("{}.{}.{}", self.rd, w.wd, w.sd.name),
                    Target::Files(vec![w.sd.lun.clone()]),
                )
                .with_rw(rw);
                job.rwmix_read_pct = w.rdpct;
                job.random_pct = random_pct;
                job.block_size = w.xfersize.block_size();
                let many = (w.stream_count() == 1)
                    .then(|| many_threads_split(w.threads))
                    .flatten();
                if let (true, false, Some((clones, depth))) =
                    (random, self.data.verify.mode.is_on(), many)
                {
                    // Hundreds of vdbench threads are as many IOs in flight: a few io_uring
                    // clones keep them (a thousand synchronous threads took 13 s to start
                    // and stop around a 1 s run on two cores; vdbench's threads are its IO
                    // queue, not CPU work).
                    job.engine = EngineKind::IoUring;
                    job.iodepth = depth;
                    job.numjobs = clones;
                } else if random && !self.data.verify.mode.is_on() {
                    // One vdbench thread is one synchronous IO in flight.
                    job.engine = EngineKind::Psync;
                    job.iodepth = 1;
                    job.numjobs = w.threads.max(1);
                } else {
                    // vdbench's threads on a sequential workload share one stream through the
                    // SD (IOs issued in order, completing in any order): one clone keeping
                    // `threads` IOs in flight, not `threads` streams that each start at 0.
                    // With validate=yes random workloads run so too: one clone keeps the SD's
                    // keys, as vdbench keeps one key table per SD for all its threads.
                    job.engine = EngineKind::IoUring;
                    job.iodepth = w.threads.max(1);
                    job.numjobs = 1;
                    if random {
                        job.notes
                            .push(JobNote::ValidateOneClone { threads: w.threads });
                    }
                }
                w.apply_stride(stride, &mut job);
                job.direct = w.direct;
                job.size = w.sd.size.map(SizeSpec::Bytes);
                w.apply_region(&mut job);
                w.apply_sync(&mut job);
                job.group_reporting = true;
                // No ramp: the warm-up intervals are measured and printed (as vdbench prints
                // them); the summary leaves them out of its average.
                job.ramp_time = Duration::ZERO;
                job.runtime = Some(self.interval_plan().runtime());
                // seekpct=eof ends at end of file; everything else runs for the elapsed time.
                job.time_based = !sequential_pass;
                job.log_interval = self.interval;
                job.random_seed = job.random_seed.wrapping_add(index as u64);
                job.data = self.data.clone();
                if job.data.verify.mode.is_on() {
                    // Keys per smallest transfer size: every xfersize is a multiple of it.
                    job.data.verify.interval_bytes = Some(Bytes(data::min_block(&job.block_size)));
                    job.data.verify.state_name = Some(format!("sd-{}", w.sd.name));
                }
                if self.arrivals != Arrivals::Deterministic
                    && (total_iops.is_some() || w.iorate.is_some())
                {
                    job.notes.push(JobNote::Arrivals {
                        distribution: format!("{:?}", self.arrivals),
                    });
                }
                let pair_iops = match (w.iorate, total_iops) {
                    (Some(own), _) => Some(own),
                    (None, Some(total)) => Some(total * w.rate_share),
                    (None, None) => None,
                };
                if let (Some(pair), true) = (pair_iops, job.numjobs > 1 && w.stream_count() == 1) {
                    if let Some(jobs) = exact_clone_rates(&job, pair) {
                        return jobs;
                    }
                }
                if let Some(pair) = pair_iops {
                    // rate_iops is per clone: split the pair's share between its clones.
                    let per_thread = pair / f64::from(job.numjobs);
                    let read = per_thread * w.rdpct / 100.0;
                    let write = per_thread - read;
                    let cap = |iops: f64| (iops > 0.0).then(|| iops.round().max(1.0) as u64);
                    job.rate_iops = PerDirection {
                        read: cap(read),
                        write: cap(write),
                    };
                }
                w.split_streams(job)
            })
            .collect::<Vec<JobSpec>>();
        if let Some(limit) = self.maxdata {
            // maxdata is the run's total: each clone's share of it.
            let clones: u64 = jobs.iter().map(|j| u64::from(j.numjobs.max(1))).sum();
            for job in &mut jobs {
                job.io_limit = Some(Bytes((limit.as_u64() / clones.max(1)).max(1)));
                job.time_based = false;
            }
        }
        jobs
    }
}

/// The most threads of one (wd, sd) pair that run as one synchronous clone each.
pub const SYNC_THREADS_MAX: u32 = 64;
/// IOs in flight per io_uring clone when a pair has more threads than that.
const URING_DEPTH_MAX: u32 = 64;

/// (clones, IOs in flight each) for a pair of more than [`SYNC_THREADS_MAX`] threads: the
/// fewest clones of at most [`URING_DEPTH_MAX`] in flight whose product is exactly `threads`.
/// None for fewer threads, or a count with no such split (a prime above 64: one synchronous
/// clone per thread, as always).
pub fn many_threads_split(threads: u32) -> Option<(u32, u32)> {
    if threads <= SYNC_THREADS_MAX {
        return None;
    }
    (threads.div_ceil(URING_DEPTH_MAX)..threads)
        .find(|c| threads.is_multiple_of(*c))
        .map(|c| (c, threads / c))
        .filter(|(_, depth)| *depth > 1)
}

/// A paced one-direction pair on several psync clones, its rate exact: the engine paces each
/// clone at a whole number of IOs a second, so 1,372 IO/s over 512 threads rounded to 3 each
/// ran 1,536. Instead some clones run one IO a second more than the others (two jobs, both in
/// the run's one reporting group), and a rate below one IO a second per thread runs on as many
/// clones as it has IOs a second. None for a read/write mix (each direction would need its own
/// split; it keeps the rounded share).
fn exact_clone_rates(job: &JobSpec, pair_iops: f64) -> Option<Vec<JobSpec>> {
    let read = match job.rwmix_read_pct {
        p if p >= 100.0 => true,
        p if p <= 0.0 => false,
        _ => return None,
    };
    let total = pair_iops.round().max(1.0) as u64;
    let clones = u64::from(job.numjobs).min(total);
    let (low, faster) = (total / clones, total % clones);
    let part = |numjobs: u64, rate: u64, seed_offset: u64| {
        let mut part = job.clone();
        part.numjobs = numjobs as u32;
        part.rate_iops = if read {
            PerDirection {
                read: Some(rate),
                write: None,
            }
        } else {
            PerDirection {
                read: None,
                write: Some(rate),
            }
        };
        part.random_seed = part.random_seed.wrapping_add(seed_offset << 40);
        part
    };
    let mut jobs = vec![part(clones - faster, low, 0)];
    if faster > 0 {
        let mut more = part(faster, low + 1, 1);
        more.name = format!("{}+", more.name);
        jobs.push(more);
    }
    Some(jobs)
}
