//! From the jobs to each clone's plan: the checks a job must pass, its block size and offset
//! pickers, each clone's regions and seed, measurement and pacing, and dedupe shared between
//! jobs.

use crate::distribution::BlockPicker;
use crate::error::EngineError;
use crate::layout::regions_for_clone;
use crate::random::mix64;
use crate::sequence::Sequence;
use crate::worker::{ClonePlan, LatencyTargetPlan, MeasurePlan, PacingPlan, SizePicker};
use iofit_model::job::{BlockSizeSpec, EngineKind, JobSpec, SizeSpec};
use iofit_model::units::{Bytes, Nanos};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub(super) fn check_job(job: &JobSpec) -> Result<(), EngineError> {
    if job.iodepth == 0 {
        return Err(EngineError::invalid(
            &job.name,
            "iodepth must be at least 1",
        ));
    }
    if job.numjobs == 0 {
        return Err(EngineError::invalid(
            &job.name,
            "numjobs must be at least 1",
        ));
    }
    if job.loops == 0 {
        return Err(EngineError::invalid(&job.name, "loops must be at least 1"));
    }
    if job.block_size.max_size().as_u64() == 0 {
        return Err(EngineError::invalid(
            &job.name,
            "bs must be at least 1 byte",
        ));
    }
    if job.block_size.max_size().as_u64() > iofit_model::limits::MAX_BLOCK_SIZE_BYTES {
        return Err(EngineError::invalid(
            &job.name,
            format!(
                "bs is larger than {} bytes, the most Linux moves in one IO",
                iofit_model::limits::MAX_BLOCK_SIZE_BYTES
            ),
        ));
    }
    if job.iodepth > iofit_model::limits::MAX_IODEPTH {
        return Err(EngineError::invalid(
            &job.name,
            format!(
                "iodepth above {} is more than an io_uring ring holds; lower iodepth",
                iofit_model::limits::MAX_IODEPTH
            ),
        ));
    }
    if job.direct && job.engine != EngineKind::Null {
        let sizes: Vec<u64> = match &job.block_size {
            BlockSizeSpec::Fixed(s) => vec![s.read.as_u64(), s.write.as_u64()],
            BlockSizeSpec::Split { read, write } => read
                .iter()
                .chain(write.iter())
                .map(|share| share.size.as_u64())
                .collect(),
        };
        if let Some(bad) = sizes.iter().find(|&&size| size & 511 != 0) {
            return Err(EngineError::invalid(
                &job.name,
                format!("direct=1 needs block sizes in whole 512-byte sectors, and bs {bad} is not; use a multiple of 512 (4k is usual) or direct=0"),
            ));
        }
        let increment_bytes = match job.start.increment {
            Some(iofit_model::placement::FileAmount::Bytes(bytes)) => bytes,
            _ => 0,
        };
        if (job.offset.as_u64() | increment_bytes) & 511 != 0 {
            return Err(EngineError::invalid(
                &job.name,
                "direct=1 needs offset= and offset_increment= in whole 512-byte sectors; use a multiple of 4k",
            ));
        }
    }
    crate::data::check_job(job)?;
    if !(0.0..=100.0).contains(&job.rwmix_read_pct) {
        return Err(EngineError::invalid(
            &job.name,
            "rwmixread must be within 0..100",
        ));
    }
    Ok(())
}

fn size_picker(spec: &BlockSizeSpec) -> SizePicker {
    match spec {
        BlockSizeSpec::Fixed(sizes) => SizePicker::Fixed {
            read: sizes.read.as_u64() as u32,
            write: sizes.write.as_u64() as u32,
        },
        BlockSizeSpec::Split { read, write } => {
            let table = |shares: &Vec<iofit_model::job::BlockSizeShare>| {
                let total: f64 = shares
                    .iter()
                    .map(|s| s.pct)
                    .sum::<f64>()
                    .max(f64::MIN_POSITIVE);
                let mut acc = 0.0;
                shares
                    .iter()
                    .map(|s| {
                        acc += s.pct * 100.0 / total;
                        (acc, s.size.as_u64() as u32)
                    })
                    .collect::<Vec<_>>()
            };
            let (mut r, mut w) = (table(read), table(write));
            // A direction without a split uses the other's (fio applies one list to both).
            if r.is_empty() {
                r = w.clone();
            }
            if w.is_empty() {
                w = r.clone();
            }
            SizePicker::Split { read: r, write: w }
        }
    }
}

/// The seed a job's clones derive theirs from: fixed with randrepeat, else from the clock.
pub(super) fn base_seed(job: &JobSpec, job_index: usize) -> u64 {
    if job.randrepeat {
        // Repeatable, yet different per job (as fio seeds by thread number), so jobs sharing a
        // file do not issue the same offsets in lockstep.
        mix64(job.random_seed.wrapping_add(job_index as u64))
    } else {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        mix64(nanos ^ job.random_seed)
    }
}

/// One picker per file for a non-uniform `random_distribution`, over the file's blocks of the
/// job's smallest block size (the alignment of random offsets).
fn block_pickers(
    job: &JobSpec,
    regions: &[(std::path::PathBuf, u64, u64)],
    align: u64,
    seed: u64,
) -> Result<Vec<Option<BlockPicker>>, EngineError> {
    regions
        .iter()
        .enumerate()
        .map(|(index, (_, _, len))| {
            let blocks = (len / align.max(1)).max(1);
            BlockPicker::new(
                &job.random_distribution,
                blocks,
                align,
                seed ^ mix64(index as u64 + 7),
            )
            .map_err(|why| EngineError::invalid(&job.name, format!("random_distribution: {why}")))
        })
        .collect()
}

/// The clone's (file, offset, length) regions: from the layout's rules, or for the null
/// engine (no file is touched) the job's absolute size at the clone's offset.
fn clone_regions(job: &JobSpec, clone: u32) -> Result<Vec<(PathBuf, u64, u64)>, EngineError> {
    Ok(if job.engine == EngineKind::Null {
        // The null engine touches no file, so it needs an explicit size and nothing on disk.
        let length = match job.size {
            Some(SizeSpec::Bytes(b)) => b.as_u64(),
            _ => {
                return Err(EngineError::invalid(
                    &job.name,
                    "ioengine=null needs an absolute size= (for example size=1g)",
                ))
            }
        };
        let min_bs = job.block_size.min_size().as_u64().max(1);
        let offset = job
            .start
            .for_clone(job.offset.as_u64(), clone, length, min_bs);
        job.files_for_clone(clone)
            .into_iter()
            .map(|path| (path, offset, length))
            .collect::<Vec<_>>()
    } else {
        regions_for_clone(job, clone)?
            .into_iter()
            .map(|r| (r.path, r.offset, r.length))
            .collect()
    })
}

/// Bytes one pass over `regions` moves: each file's length in whole blocks, or for sequential
/// IO with holes the IOs that fit in one pass.
fn pass_bytes(job: &JobSpec, regions: &[(PathBuf, u64, u64)]) -> u64 {
    let mut region_bytes: u64 = regions.iter().map(|(_, _, len)| *len).sum();
    // fio rounds each file's IO size down to whole blocks: a 300k file read in 64k blocks is
    // 4 IOs (256k), not a fifth past its end.
    if let BlockSizeSpec::Fixed(sizes) = &job.block_size {
        let (read, write) = (sizes.read.as_u64(), sizes.write.as_u64());
        let bs = match (job.rw.has_reads(), job.rw.has_writes()) {
            (true, false) => read,
            (false, true) => write,
            _ if read == write => read,
            _ => 0,
        };
        if bs > 0 {
            region_bytes = regions.iter().map(|(_, _, len)| len / bs * bs).sum();
        }
    }
    // Sequential IO with holes (rw=read:8k) makes one pass over each file and ends, as fio's
    // does: the bytes moved are the IOs that fit in one pass, not the region's size.
    if let (BlockSizeSpec::Fixed(sizes), true) = (
        &job.block_size,
        job.seq_add_bytes > 0 && !job.rw.is_random() && job.io_limit.is_none(),
    ) {
        let bs = sizes.read.as_u64().max(sizes.write.as_u64()).max(1);
        let step = bs + job.seq_add_bytes as u64;
        region_bytes = regions
            .iter()
            .map(|(_, _, len)| {
                if *len < bs {
                    0
                } else {
                    ((len - bs) / step + 1) * bs
                }
            })
            .sum();
    }
    region_bytes
}

pub(crate) fn clone_plan(job: &JobSpec, clone: u32, seed: u64) -> Result<ClonePlan, EngineError> {
    let regions = clone_regions(job, clone)?;
    let region_bytes = pass_bytes(job, &regions);
    // fio loops: each loop is its own pass (each_loop.rs), with one loop's budget.
    let loops = match crate::each_loop::passes(job) {
        Some(_) => 1,
        None => job.loops.max(1) as u64,
    };
    let budget_bytes = if (job.time_based && job.runtime.is_some()) || job.replay.is_some() {
        // A replay ends with its log.
        None
    } else {
        Some(job.io_limit.unwrap_or(Bytes(region_bytes)) * loops)
    };
    let depth = job.effective_iodepth();
    let sizes = size_picker(&job.block_size);
    let align = job
        .block_align
        .map(|a| a.as_u64())
        .unwrap_or(sizes.min_size() as u64)
        .max(1);
    let pickers = block_pickers(job, &regions, align, seed)?;
    let lengths: Vec<u64> = regions.iter().map(|(_, _, len)| *len).collect();
    crate::file_service::FileChooser::new(&job.file_service, &lengths, seed)
        .map_err(|why| EngineError::invalid(&job.name, format!("file_service_type: {why}")))?;
    Ok(ClonePlan {
        errors: job.thread_control.errors.clone(),
        trim: match (job.rw.has_trims(), job.rw.is_trimwrite()) {
            (false, _) => crate::worker::TrimMode::Off,
            (true, false) => crate::worker::TrimMode::Trim,
            (true, true) => crate::worker::TrimMode::TrimWrite,
        },
        job_name: job.name.clone(),
        clone_index: clone,
        files: regions,
        sizes,
        rwmix_read_pct: job.rwmix_read_pct,
        random_pct: job.random_pct,
        norandommap: job.norandommap,
        align,
        sequence: Sequence {
            seq_add_bytes: job.seq_add_bytes,
            seq_add_jitter_bytes: job.seq_add_jitter_bytes,
            random_run: job.random_run.max(1),
            identical: job.repeat_offset_in_run,
        },
        pickers,
        seed: seed ^ mix64(clone as u64 + 1),
        depth,
        start_delay_ns: Nanos::<u64>::from_duration(job.start_delay),
        ramp_ns: Nanos::<u64>::from_duration(job.ramp_time),
        runtime_ns: job.runtime.map(Nanos::<u64>::from_duration),
        budget_bytes,
        rate_iops: [job.rate_iops.read, job.rate_iops.write],
        rate_bytes_per_second: [
            job.rate_bytes_per_second.read,
            job.rate_bytes_per_second.write,
        ],
        fsync_every: job.fsync_every,
        fdatasync_every: job.fdatasync_every,
        end_fsync: job.end_fsync,
        interval_ns: Nanos::<u64>::from_duration(job.log_interval).max(Nanos(1)),
        // At most a 32nd of the queue per submit call: at QD32 each IO goes to the kernel as
        // soon as it is prepared (as fio does by default), deeper queues share a syscall among
        // a few IOs. Measured on a virtio disk at QD32 (BENCHMARKS.md): whole-queue batches
        // added ~100 us to every IO and cost IOPS; batches of 4 saved 15% CPU per IO but
        // lost ~3% IOPS; one IO per call matched fio's IOPS at 0.83x its CPU per IO.
        submit_batch: job
            .pacing
            .submit_batch
            .map_or((depth as usize / 32).max(1), |b| b.max(1) as usize),
        pacing: PacingPlan {
            latency_target: job.latency_target.as_ref().map(|t| LatencyTargetPlan {
                target_ns: Nanos::<u64>::from_duration(t.target),
                window_ns: Nanos::<u64>::from_duration(t.window),
                percentile: t.percentile,
                keep_running: t.keep_running,
            }),
            serialize_overlap: job.serialize_overlap,
            ..pacing_plan(&job.pacing)
        },
        fsync_on_close: job.file_sync.fsync_on_close,
        end_syncfs: job.file_sync.end_syncfs,
        invalidate: job.file_sync.invalidate,
        io_log: None,
        interval_log: None,
        cmdprio: job.cmdprio.clone(),
        fill_device: job.fill_device,
        replay: job.replay.clone(),
        write_iolog: None,
        ioprio: job
            .thread_control
            .io_priority
            .map_or(0, |p| (u16::from(p.class) << 13) | u16::from(p.level)),
        data: crate::data::data_plan(job, clone)?,
        measure: measure_plan(&job.measurement),
        file_service: job.file_service.clone(),
        earlier_loops: Default::default(),
        earlier_measured: None,
    })
}

/// fio `dedupe_global`: one pool of contents for every clone of every job that sets it, its
/// working set a share of all their write blocks together.
pub(super) fn share_dedupe(jobs: &[JobSpec], plans: &mut [Vec<ClonePlan>]) {
    use iofit_model::data::DedupeSpec;
    let global_pct = |job: &JobSpec| match &job.data.content.dedupe {
        Some(DedupeSpec::Fio {
            global: true,
            working_set_pct,
            ..
        }) => Some(*working_set_pct),
        _ => None,
    };
    let mut blocks = 0u64;
    let mut working_set_pct = None;
    for (job, clones) in jobs.iter().zip(plans.iter()) {
        if let Some(pct) = global_pct(job) {
            working_set_pct = working_set_pct.or(pct);
            for plan in clones {
                let bytes: u64 = plan.files.iter().map(|f| f.2).sum();
                blocks += bytes / plan.data.write_bytes.as_u64().max(1);
            }
        }
    }
    if blocks == 0 {
        return;
    }
    let shared = Arc::new(iofit_blockdata::content::SharedDedupe::new(
        0x00de_d0be_910b_a100,
        blocks,
        working_set_pct,
    ));
    for (job, clones) in jobs.iter().zip(plans.iter_mut()) {
        if global_pct(job).is_some() {
            for plan in clones {
                plan.data.shared_dedupe = Some(Arc::clone(&shared));
            }
        }
    }
}

fn measure_plan(m: &iofit_model::job::Measurement) -> MeasurePlan {
    let ns = |d: Option<Duration>| d.map(|d| d.as_nanos().min(u64::MAX as u128) as u64);
    MeasurePlan {
        lat: !m.disable_lat,
        clat: !m.disable_clat,
        slat: !m.disable_slat,
        max_latency_ns: [ns(m.max_latency.read), ns(m.max_latency.write)],
    }
}

/// fio's default `rate_cycle`: minimum rates are checked over 1000 ms windows.
const DEFAULT_RATE_CYCLE: Duration = Duration::from_millis(1000);

fn pacing_plan(pacing: &iofit_model::job::Pacing) -> PacingPlan {
    PacingPlan {
        think_ns: Nanos::<u64>::from_duration(pacing.think_time),
        think_spin_ns: Nanos::<u64>::from_duration(pacing.think_spin),
        think_blocks: pacing.think_blocks.max(1),
        min_bytes_per_second: [
            pacing.min_bytes_per_second.read,
            pacing.min_bytes_per_second.write,
        ],
        min_iops: [pacing.min_iops.read, pacing.min_iops.write],
        rate_cycle_ns: Nanos::<u64>::from_duration(pacing.rate_cycle.unwrap_or(DEFAULT_RATE_CYCLE)),
        poisson: pacing.poisson,
        latency_target: None,
        flow: None,
        serialize_overlap: false,
    }
}

/// Every clone's plan, per job; fio's flow groups (global to the run: jobs join when they
/// start, leave when done) shared by the clones of the jobs that name them.
pub(super) fn plan_clones(
    jobs: &[JobSpec],
    seeds: &[u64],
) -> Result<Vec<Vec<ClonePlan>>, EngineError> {
    let mut plans: Vec<Vec<ClonePlan>> = Vec::with_capacity(jobs.len());
    let mut flow_groups = crate::flow::FlowGroups::default();
    for (job, seed) in jobs.iter().zip(seeds) {
        let mut clones = (0..job.numjobs.max(1))
            .map(|c| clone_plan(job, c, *seed))
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(flow) = job.flow.as_ref().filter(|f| f.weight > 0) {
            let group = flow_groups.get(flow.id);
            for plan in &mut clones {
                plan.pacing.flow = Some(crate::flow::FlowPlan {
                    group: std::sync::Arc::clone(&group),
                    weight: u64::from(flow.weight),
                    sleep_ns: Nanos::<u64>::from_duration(flow.sleep),
                });
            }
        }
        plans.push(clones);
    }
    Ok(plans)
}
