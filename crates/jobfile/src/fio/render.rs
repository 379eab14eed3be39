//! How each option of the table is written back as fio job text from a parsed [`JobSpec`]:
//! the inverse of parsing, one entry per option name. `job_options` (fio's JSON "job options",
//! `--parse-only`) walks the table and writes every option whose value differs from fio's
//! default, so parsing the text again gives the same job.
//!
//! Values are written in the units parsing reads without a suffix ambiguity: sizes in bytes,
//! times with an explicit unit, so `kb_base` and each option's default time unit do not matter.

use iofit_model::data::{DedupeSpec, PatternPart, VerifyMode};
use iofit_model::job::{
    BlockSizeSpec, EngineKind, FadviseHint, FileServiceKind, JobSpec, OpenSync, PerDirection,
    RandomDistribution, SteadyMetric, Target, UnifiedRw, ZoneSize,
};
use iofit_model::placement::FileAmount;
use std::time::Duration;

/// How one option is written back.
#[derive(Clone, Copy)]
pub(crate) enum Render {
    /// The option's text in `job`; `None` when the job holds fio's default (nothing to write).
    Value(fn(&JobSpec) -> Option<String>),
    /// Written through another option that sets the same part of the job (an inverse option
    /// such as `buffered` for `direct`, or a second spelling such as `cpumask`). The registry's
    /// tests check that the named option writes a value.
    Via(#[allow(dead_code)] &'static str),
    /// Leaves nothing in the job but a note (or nothing at all); nothing to write back.
    NoState,
    /// Written by [`crate::fio::job_file_text`] from the jobs' group ids: whether a job starts
    /// a new reporting group depends on the job before it.
    Group,
    /// A refused option: never part of a parsed job.
    Never,
    /// Set while the table is built, replaced by [`of`] before the table is used.
    Pending,
}

use Render::{NoState, Value, Via};

/// The renderer of the option named `name`.
pub(crate) fn of(name: &str) -> Render {
    if let Some(render) = target_or_size(name)
        .or_else(|| pattern(name))
        .or_else(|| timing(name))
        .or_else(|| control(name))
        .or_else(|| engine(name))
        .or_else(|| data(name))
        .or_else(|| reporting(name))
    {
        return render;
    }
    match name {
        "description"
        | "kb_base"
        | "thread"
        | "mem"
        | "allow_file_create"
        | "clocksource"
        | "bwavgtime"
        | "iopsavgtime"
        | "eta-newline"
        | "io_submit_mode"
        | "random_generator"
        | "fallocate"
        | "threads"
        | "gtod_reduce"
        | "disk_util"
        | "create_on_open"
        | "unique_filename"
        | "iodepth_batch_complete_min"
        | "iodepth_batch_complete_max"
        | "iodepth_low"
        | "overwrite"
        | "openfiles"
        | "ioscheduler"
        | "exit_what"
        | "bs_unaligned"
        | "flow_watermark"
        | "verify_async"
        | "verify_async_cpus"
        | "experimental_verify"
        | "trim_verify_zero"
        | "create_serialize"
        | "readonly" => NoState,
        // Options whose effect is another option's value.
        "wait_for" => Via("stonewall"),
        "atomic" => Via("direct"),
        "number_ios" => Via("io_size"),
        _ => Render::Never,
    }
}

fn on(flag: bool) -> Option<String> {
    flag.then(|| "1".to_string())
}

fn off(flag: bool) -> Option<String> {
    (!flag).then(|| "0".to_string())
}

/// A time with the largest unit that holds it exactly.
pub(crate) fn time_text(d: Duration) -> String {
    if d.subsec_nanos() == 0 {
        format!("{}s", d.as_secs())
    } else if d.as_nanos().is_multiple_of(1_000_000) {
        format!("{}ms", d.as_millis())
    } else {
        format!("{}us", d.as_micros())
    }
}

fn nonzero_time(d: Duration) -> Option<String> {
    (!d.is_zero()).then(|| time_text(d))
}

/// `READ,WRITE` of a per-direction rate (one value when both agree; 0 for none). A trim job
/// paces its trims by the write entry, which parsing takes from the third (trim) value.
fn per_direction(job: &JobSpec, values: &PerDirection<Option<u64>>) -> Option<String> {
    if values.read.is_none() && values.write.is_none() {
        return None;
    }
    let text = |v: Option<u64>| v.unwrap_or(0).to_string();
    Some(if job.rw.has_trims() && !job.rw.is_trimwrite() {
        format!(
            "{},{},{}",
            text(values.read),
            text(values.write),
            text(values.write)
        )
    } else if values.read == values.write {
        text(values.read)
    } else {
        format!("{},{}", text(values.read), text(values.write))
    })
}

/// `bs` as stated: the read, write and trim sizes (the job's own sizes when it came from
/// elsewhere), one value when all agree.
fn block_sizes(job: &JobSpec) -> Option<String> {
    let BlockSizeSpec::Fixed(sizes) = &job.block_size else {
        return None;
    };
    let [r, w, t] = match job.stated_block_sizes {
        Some([(r, _), (w, _), (t, _)]) => [r, w, t].map(|b| b.as_u64()),
        None => [sizes.read, sizes.write, sizes.write].map(|b| b.as_u64()),
    };
    Some(if r == w && w == t {
        r.to_string()
    } else {
        format!("{r},{w},{t}")
    })
}

fn target_or_size(name: &str) -> Option<Render> {
    Some(match name {
        "name" => Value(|j| Some(j.name.clone())),
        "filename" => Value(|j| match &j.target {
            Target::Files(files) => Some(
                files
                    .iter()
                    .map(|p| p.display().to_string().replace(':', "\\:"))
                    .collect::<Vec<_>>()
                    .join(":"),
            ),
            Target::Directory { .. } => None,
        }),
        "directory" => Value(|j| match &j.target {
            Target::Directory { path, .. } => Some(path.display().to_string()),
            Target::Files(_) => None,
        }),
        "nrfiles" => Value(|j| match &j.target {
            Target::Directory { nrfiles, .. } if *nrfiles > 1 => Some(nrfiles.to_string()),
            _ => None,
        }),
        "filename_format" => Value(|j| j.filename_format.clone()),
        // `size` is per clone over all files in fio; the job keeps it per file.
        "size" => Value(|j| match j.size? {
            iofit_model::job::SizeSpec::Bytes(per_file) => {
                let files = match &j.target {
                    Target::Files(files) => files.len() as u64,
                    Target::Directory { nrfiles, .. } => u64::from(*nrfiles),
                };
                Some((per_file.as_u64() * files.max(1)).to_string())
            }
            iofit_model::job::SizeSpec::PercentOfTarget(p) => Some(format!("{p}%")),
        }),
        "filesize" => Via("size"),
        "offset" => Value(|j| match j.start.percent {
            Some(pct) => Some(format!("{pct}%")),
            None => (j.offset.as_u64() > 0).then(|| j.offset.as_u64().to_string()),
        }),
        "offset_increment" => Value(|j| match j.start.increment? {
            FileAmount::Bytes(b) => Some(b.to_string()),
            FileAmount::Percent(p) => Some(format!("{p}%")),
        }),
        "offset_align" => Value(|j| j.start.align_bytes.map(|b| b.as_u64().to_string())),
        "io_size" => Value(|j| j.io_limit.map(|b| b.as_u64().to_string())),
        "fill_device" => Value(|j| on(j.fill_device)),
        _ => return None,
    })
}

fn pattern(name: &str) -> Option<Render> {
    Some(match name {
        "rw" => Value(|j| {
            let modifier = if j.rw.is_random() && j.random_run > 1 {
                format!(":{}", j.random_run)
            } else if !j.rw.is_random() && j.seq_add_bytes != 0 {
                format!(":{}", j.seq_add_bytes)
            } else {
                String::new()
            };
            Some(format!("{}{modifier}", j.rw.fio_name()))
        }),
        "rw_sequencer" => Value(|j| j.repeat_offset_in_run.then(|| "identical".into())),
        "rwmixread" => Value(|j| j.rw.is_mixed().then(|| format!("{}", j.rwmix_read_pct))),
        "rwmixwrite" => Via("rwmixread"),
        "percentage_random" => Value(|j| {
            (j.rw.is_random() && j.random_pct != 100.0).then(|| format!("{}", j.random_pct))
        }),
        "percentage_sequential" => Via("percentage_random"),
        "bs" => Value(block_sizes),
        "bssplit" => Value(|j| match &j.block_size {
            BlockSizeSpec::Split { read, write } => {
                let list = |v: &Vec<iofit_model::job::BlockSizeShare>| {
                    v.iter()
                        .map(|s| format!("{}/{}", s.size.as_u64(), s.pct))
                        .collect::<Vec<_>>()
                        .join(":")
                };
                Some(format!("{},{}", list(read), list(write)))
            }
            BlockSizeSpec::Fixed(_) => None,
        }),
        "bsrange" => Via("bssplit"),
        "blockalign" => Value(|j| j.block_align.map(|a| a.as_u64().to_string())),
        "ioengine" => Value(|j| Some(j.engine.fio_name().to_string())),
        "iodepth" => Value(|j| Some(j.iodepth.to_string())),
        "direct" => Value(|j| Some(u8::from(j.direct).to_string())),
        "buffered" => Via("direct"),
        "numjobs" => Value(|j| Some(j.numjobs.to_string())),
        "norandommap" => Value(|j| on(j.norandommap)),
        "randrepeat" => Value(|j| off(j.randrepeat)),
        "randseed" => Value(|j| {
            let default = JobSpec::new("", j.target.clone()).random_seed;
            (j.random_seed != default).then(|| j.random_seed.to_string())
        }),
        "random_distribution" => Value(|j| distribution(&j.random_distribution)),
        "loops" => Value(|j| (j.loops != 1).then(|| j.loops.to_string())),
        "serialize_overlap" => Value(|j| on(j.serialize_overlap)),
        "write_hint" => Value(|j| {
            let names = ["none", "short", "medium", "long", "extreme"];
            let hint = j.file_sync.write_hint?;
            names
                .get(hint.checked_sub(1)? as usize)
                .map(|n| n.to_string())
        }),
        _ => return None,
    })
}

fn timing(name: &str) -> Option<Render> {
    Some(match name {
        "runtime" => Value(|j| j.runtime.map(time_text)),
        "time_based" => Value(|j| on(j.time_based)),
        "ramp_time" => Value(|j| nonzero_time(j.ramp_time)),
        "startdelay" => Value(|j| nonzero_time(j.start_delay)),
        "rate" => Value(|j| per_direction(j, &j.rate_bytes_per_second)),
        "rate_iops" => Value(|j| per_direction(j, &j.rate_iops)),
        "rate_min" => Value(|j| per_direction(j, &j.pacing.min_bytes_per_second)),
        "rate_iops_min" => Value(|j| per_direction(j, &j.pacing.min_iops)),
        "rate_cycle" => Value(|j| j.pacing.rate_cycle.map(|d| d.as_millis().to_string())),
        "rate_process" => Value(|j| j.pacing.poisson.then(|| "poisson".into())),
        "thinktime" => Value(|j| nonzero_time(j.pacing.think_time)),
        "thinktime_spin" => Value(|j| nonzero_time(j.pacing.think_spin)),
        "thinktime_blocks" => {
            Value(|j| (j.pacing.think_blocks != 0).then(|| j.pacing.think_blocks.to_string()))
        }
        "thinktime_blocks_type" => NoState,
        "iodepth_batch" => Value(|j| j.pacing.submit_batch.map(|b| b.to_string())),
        "steadystate" => Value(|j| {
            let s = j.steady_state.as_ref()?;
            let metric = match (s.metric, s.slope) {
                (SteadyMetric::Iops, false) => "iops",
                (SteadyMetric::Iops, true) => "iops_slope",
                (SteadyMetric::Bw, false) => "bw",
                (SteadyMetric::Bw, true) => "bw_slope",
            };
            Some(match (s.percent, s.metric) {
                (true, _) => format!("{metric}:{}%", s.limit),
                (false, SteadyMetric::Iops) => format!("{metric}:{}", s.limit),
                // Kept in KiB/s; written back in bytes per second as fio reads it.
                (false, SteadyMetric::Bw) => format!("{metric}:{}", s.limit * 1024.0),
            })
        }),
        "steadystate_duration" => Value(|j| j.steady_state.as_ref().map(|s| time_text(s.duration))),
        "steadystate_ramp_time" => {
            Value(|j| j.steady_state.as_ref().and_then(|s| nonzero_time(s.ramp)))
        }
        "latency_target" => Value(|j| j.latency_target.as_ref().map(|l| time_text(l.target))),
        "latency_window" => Value(|j| j.latency_target.as_ref().map(|l| time_text(l.window))),
        "latency_percentile" => Value(|j| {
            let l = j.latency_target.as_ref()?;
            (l.percentile != 100.0).then(|| format!("{}", l.percentile))
        }),
        "latency_run" => Value(|j| j.latency_target.as_ref().and_then(|l| on(l.keep_running))),
        "flow" => Value(|j| j.flow.as_ref().map(|f| f.weight.to_string())),
        "flow_id" => Value(|j| j.flow.as_ref().map(|f| f.id.to_string())),
        "flow_sleep" => Value(|j| j.flow.as_ref().map(|f| f.sleep.as_micros().to_string())),
        "max_latency" => Value(|j| {
            let m = &j.measurement.max_latency;
            let text = |d: Option<Duration>| d.map_or("0".to_string(), time_text);
            match (m.read, m.write) {
                (None, None) => None,
                (r, w) if r == w => Some(text(r)),
                (r, w) => Some(format!("{},{}", text(r), text(w))),
            }
        }),
        _ => return None,
    })
}

fn control(name: &str) -> Option<Render> {
    Some(match name {
        "fsync" => Value(|j| (j.fsync_every != 0).then(|| j.fsync_every.to_string())),
        "fdatasync" => Value(|j| (j.fdatasync_every != 0).then(|| j.fdatasync_every.to_string())),
        "end_fsync" => Value(|j| on(j.end_fsync)),
        "stonewall" => Value(|j| on(j.stonewall)),
        "sync" => Value(|j| match j.file_sync.open_sync {
            OpenSync::None => None,
            OpenSync::Sync => Some("sync".into()),
            OpenSync::Dsync => Some("dsync".into()),
        }),
        "fsync_on_close" => Value(|j| on(j.file_sync.fsync_on_close)),
        "end_syncfs" => Value(|j| on(j.file_sync.end_syncfs)),
        "unlink" => Value(|j| on(j.file_sync.unlink)),
        "unlink_each_loop" => Value(|j| on(j.file_sync.unlink_each_loop)),
        "pre_read" => Value(|j| on(j.file_sync.pre_read)),
        "create_only" => Value(|j| on(j.file_sync.create_only)),
        "invalidate" => Value(|j| {
            let buffered = !j.direct && j.engine != EngineKind::Null;
            off(!buffered || j.file_sync.invalidate || j.file_sync.pre_read)
        }),
        "fadvise_hint" => Value(|j| {
            if j.direct || j.engine == EngineKind::Null {
                return None;
            }
            let pattern = if j.rw.is_random() {
                FadviseHint::Random
            } else {
                FadviseHint::Sequential
            };
            match j.file_sync.fadvise {
                None => Some("0".into()),
                Some(hint) if hint == pattern => None,
                Some(FadviseHint::Random) => Some("random".into()),
                Some(FadviseHint::Sequential) => Some("sequential".into()),
            }
        }),
        "file_service_type" => Value(|j| {
            let fs = &j.file_service;
            let count = |name: &str| match fs.ios_per_choice {
                1 => name.to_string(),
                n => format!("{name}:{n}"),
            };
            match &fs.kind {
                FileServiceKind::RoundRobin if fs.ios_per_choice == 1 => None,
                FileServiceKind::RoundRobin => Some(count("roundrobin")),
                FileServiceKind::Sequential => Some(count("sequential")),
                FileServiceKind::Random => Some(count("random")),
                FileServiceKind::Skewed(d) => distribution(d),
            }
        }),
        "exitall" => Value(|j| on(j.thread_control.exit_all)),
        "exitall_on_error" => Value(|j| on(j.thread_control.exit_all_on_error)),
        "cpus_allowed" => Value(|j| {
            let cpus = &j.thread_control.cpus;
            (!cpus.is_empty()).then(|| {
                cpus.iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(",")
            })
        }),
        "cpumask" => Via("cpus_allowed"),
        "cpus_allowed_policy" => Value(|j| j.thread_control.split_cpus.then(|| "split".into())),
        "nice" => {
            Value(|j| (j.thread_control.nice != 0).then(|| j.thread_control.nice.to_string()))
        }
        "prio" => Value(|j| j.thread_control.io_priority.map(|p| p.level.to_string())),
        "prioclass" => Value(|j| j.thread_control.io_priority.map(|p| p.class.to_string())),
        "continue_on_error" => Value(|j| {
            let errors = &j.thread_control.errors;
            // Types with their own ignore_error list get their bit from that list.
            let listed = (0..3).fold(0u8, |bits, t| {
                bits | (u8::from(errors.ignore[t].is_some()) << t)
            });
            Some(
                match errors.continue_on & !listed {
                    0 => return None,
                    1 => "read",
                    2 => "write",
                    3 => "io",
                    4 => "verify",
                    7 => "all",
                    _ => return None,
                }
                .to_string(),
            )
        }),
        "ignore_error" => Value(|j| {
            let lists = &j.thread_control.errors.ignore;
            if lists.iter().all(Option::is_none) {
                return None;
            }
            let text = |l: &Option<Vec<i32>>| {
                l.as_ref()
                    .map(|v| v.iter().map(i32::to_string).collect::<Vec<_>>().join(":"))
                    .unwrap_or_default()
            };
            Some(lists.iter().map(text).collect::<Vec<_>>().join(","))
        }),
        "error_dump" => Value(|j| off(!j.thread_control.errors.quiet)),
        _ => return None,
    })
}

/// io_uring's options, measurement switches, command priorities and IO logs.
fn engine(name: &str) -> Option<Render> {
    Some(match name {
        // io_uring engine options.
        "fixedbufs" => Value(|j| j.uring.fixed_buffers.map(|b| u8::from(b).to_string())),
        "registerfiles" => Value(|j| j.uring.register_files.map(|b| u8::from(b).to_string())),
        "sqthread_poll" => Value(|j| on(j.uring.sq_thread_poll)),
        "sqthread_poll_cpu" => Value(|j| j.uring.sq_thread_cpu.map(|c| c.to_string())),
        "hipri" => Value(|j| on(j.uring.hipri)),
        "force_async" => Value(|j| {
            (j.uring.force_async_every != 0).then(|| j.uring.force_async_every.to_string())
        }),
        "nonvectored" => Value(|j| j.uring.nonvectored.map(|b| u8::from(b).to_string())),
        "disable_lat" => Value(|j| on(j.measurement.disable_lat)),
        "disable_clat" => Value(|j| on(j.measurement.disable_clat)),
        "disable_slat" => Value(|j| on(j.measurement.disable_slat)),
        "disable_bw_measurement" => Value(|j| on(j.measurement.disable_bw)),
        "cmdprio_percentage" => Value(|j| cmdprio(j, |d| format!("{}", d.percentage))),
        "cmdprio_class" => Value(|j| cmdprio(j, |d| d.class.to_string())),
        "cmdprio" => Value(|j| cmdprio(j, |d| d.level.to_string())),
        "cmdprio_bssplit" => Value(|j| {
            let c = j.cmdprio.as_ref()?;
            if c.per_direction.iter().all(|d| d.bssplit.is_empty()) {
                return None;
            }
            cmdprio(j, |d| {
                d.bssplit
                    .iter()
                    .map(|s| match s.class_level {
                        Some((class, level)) => {
                            format!("{}/{}/{class}/{level}", s.bs_bytes.as_u64(), s.pct)
                        }
                        None => format!("{}/{}", s.bs_bytes.as_u64(), s.pct),
                    })
                    .collect::<Vec<_>>()
                    .join(":")
            })
        }),
        "log_prio" => Value(|j| on(j.logs.with_prio)),
        "log_max_value" => Value(|j| on(j.logs.max_value)),
        "read_iolog" => Value(|j| {
            let logs = &j.replay.as_ref()?.logs;
            Some(
                logs.iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(":"),
            )
        }),
        "write_iolog" => Value(|j| j.write_iolog.as_ref().map(|p| p.display().to_string())),
        _ => return None,
    })
}

/// `READ,WRITE` of one field of the job's per-direction command priorities.
fn cmdprio(
    job: &JobSpec,
    field: impl Fn(&iofit_model::placement::CmdPrioDirection) -> String,
) -> Option<String> {
    let [read, write] = &job.cmdprio.as_ref()?.per_direction;
    Some(format!("{},{}", field(read), field(write)))
}

fn data(name: &str) -> Option<Render> {
    Some(match name {
        "verify" => Value(|j| {
            let mode = j.data.verify.mode;
            (mode != VerifyMode::None).then(|| verify_name(mode).to_string())
        }),
        "do_verify" => Value(|j| off(j.data.verify.do_verify)),
        "verify_only" => Value(|j| on(j.data.verify.only)),
        "verify_fatal" => Value(|j| on(j.data.verify.max_errors == Some(1))),
        "verify_dump" => Value(|j| on(j.data.verify.dump)),
        "verify_header_seed" => Value(|j| off(j.data.verify.header_seed)),
        "verify_state_save" => Value(|j| on(j.data.verify.state_save.is_some())),
        "verify_state_load" => Value(|j| on(j.data.verify.state_load.is_some())),
        "verify_interval" => {
            Value(|j| j.data.verify.interval_bytes.map(|b| b.as_u64().to_string()))
        }
        "verify_offset" => Value(|j| {
            let offset = j.data.verify.header_offset_bytes.as_u64();
            (offset != 0).then(|| offset.to_string())
        }),
        "verify_backlog" => Value(|j| j.data.verify.backlog.map(|n| n.to_string())),
        "verify_backlog_batch" => Value(|j| j.data.verify.backlog_batch.map(|n| n.to_string())),
        "verify_pattern" => Value(|j| {
            let parts = &j.data.verify.pattern;
            (!parts.is_empty()).then(|| {
                parts
                    .iter()
                    .map(|p| match p {
                        PatternPart::Bytes(bytes) => hex(bytes),
                        PatternPart::Offset => "%o".to_string(),
                    })
                    .collect::<String>()
            })
        }),
        "buffer_pattern" => {
            Value(|j| (!j.data.content.pattern.is_empty()).then(|| hex(&j.data.content.pattern)))
        }
        "buffer_compress_percentage" => Value(|j| {
            let pct = j.data.content.compress_pct;
            (pct != 0.0).then(|| format!("{pct}"))
        }),
        "buffer_compress_chunk" => Value(|j| {
            let bytes = j.data.content.compress_chunk_bytes.as_u64();
            (bytes != 512).then(|| bytes.to_string())
        }),
        "refill_buffers" => Value(|j| on(j.data.content.refill)),
        "scramble_buffers" => Value(|j| off(j.data.content.scramble)),
        "zero_buffers" => Value(|j| on(j.data.content.zero)),
        "dedupe_percentage" => Value(|j| match j.data.content.dedupe.as_ref()? {
            DedupeSpec::Fio { pct, .. } => Some(format!("{pct}")),
            _ => None,
        }),
        "dedupe_mode" => Value(|j| match j.data.content.dedupe.as_ref()? {
            DedupeSpec::Fio {
                working_set_pct: Some(_),
                ..
            } => Some("working_set".into()),
            _ => None,
        }),
        "dedupe_working_set_percentage" => Value(|j| match j.data.content.dedupe.as_ref()? {
            DedupeSpec::Fio {
                working_set_pct: Some(pct),
                ..
            } => Some(format!("{pct}")),
            _ => None,
        }),
        "dedupe_global" => Value(|j| match j.data.content.dedupe.as_ref()? {
            DedupeSpec::Fio { global: true, .. } => Some("1".into()),
            _ => None,
        }),
        "read_iolog_chunked" => Value(|j| on(j.replay.as_ref()?.chunked)),
        "replay_no_stall" => Value(|j| on(j.replay.as_ref()?.no_stall)),
        "replay_time_scale" => Value(|j| {
            let scale = j.replay.as_ref()?.time_scale_pct;
            (scale != 100).then(|| scale.to_string())
        }),
        "replay_redirect" => Value(|j| {
            j.replay
                .as_ref()?
                .redirect
                .as_ref()
                .map(|p| p.display().to_string())
        }),
        "replay_align" => Value(|j| j.replay.as_ref()?.align.map(|b| b.as_u64().to_string())),
        "replay_scale" => Value(|j| {
            let scale = j.replay.as_ref()?.scale;
            (scale != 1).then(|| scale.to_string())
        }),
        "replay_skip" => Value(|j| {
            let skip = &j.replay.as_ref()?.skip;
            let names: Vec<&str> = [
                (skip.read, "read"),
                (skip.write, "write"),
                (skip.sync, "sync"),
                (skip.trim, "trim"),
            ]
            .into_iter()
            .filter_map(|(on, name)| on.then_some(name))
            .collect();
            (!names.is_empty()).then(|| names.join(","))
        }),
        _ => return None,
    })
}

fn reporting(name: &str) -> Option<Render> {
    Some(match name {
        "group_reporting" => Value(|j| on(j.group_reporting)),
        "new_group" => Render::Group,
        "write_bw_log" => Value(|j| j.logs.bw_prefix.clone()),
        "write_iops_log" => Value(|j| j.logs.iops_prefix.clone()),
        "write_lat_log" => Value(|j| j.logs.lat_prefix.clone()),
        "write_hist_log" => Value(|j| j.logs.hist_prefix.clone()),
        "log_avg_msec" => Value(|j| {
            let averaged = j.logs.bw_prefix.is_some()
                || j.logs.iops_prefix.is_some()
                || j.logs.lat_prefix.is_some();
            (averaged && !j.logs.per_io).then(|| j.log_interval.as_millis().to_string())
        }),
        "log_hist_msec" => Value(|j| {
            j.logs
                .hist_prefix
                .is_some()
                .then(|| j.log_interval.as_millis().to_string())
        }),
        "per_job_logs" => Value(|j| off(!j.logs.shared_file)),
        "log_offset" => Value(|j| on(j.logs.with_offset)),
        "log_unix_epoch" => Value(|j| on(j.logs.unix_epoch)),
        "clat_percentiles" => Value(|j| off(j.reporting.clat_percentiles)),
        "lat_percentiles" => Value(|j| on(j.reporting.lat_percentiles)),
        "slat_percentiles" => Value(|j| on(j.reporting.slat_percentiles)),
        "percentile_list" => Value(|j| {
            let list = &j.reporting.percentile_list;
            (!list.is_empty()).then(|| {
                list.iter()
                    .map(|p| format!("{p}"))
                    .collect::<Vec<_>>()
                    .join(":")
            })
        }),
        "unified_rw_reporting" => Value(|j| match j.reporting.unified_rw_reporting {
            UnifiedRw::None => None,
            UnifiedRw::Mixed => Some("mixed".into()),
            UnifiedRw::Both => Some("both".into()),
        }),
        "significant_figures" => Value(|j| {
            let digits = j.reporting.significant_figures;
            (digits != 4).then(|| digits.to_string())
        }),
        _ => return None,
    })
}

/// fio's name of a verify mode.
fn verify_name(mode: VerifyMode) -> &'static str {
    match mode {
        VerifyMode::None => "0",
        VerifyMode::Crc32c => "crc32c",
        VerifyMode::Md5 => "md5",
        VerifyMode::Sha1 => "sha1",
        VerifyMode::Sha256 => "sha256",
        VerifyMode::Sha512 => "sha512",
        VerifyMode::Xxhash => "xxhash",
        VerifyMode::Meta => "meta",
        VerifyMode::Pattern => "pattern",
        VerifyMode::Null => "null",
    }
}

/// Bytes as fio's `0x...` pattern syntax.
fn hex(bytes: &[u8]) -> String {
    let digits: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("0x{digits}")
}

/// A non-uniform distribution as fio writes it.
pub(crate) fn distribution(dist: &RandomDistribution) -> Option<String> {
    let center = |c: &Option<f64>| c.map(|c| format!(":{c}")).unwrap_or_default();
    Some(match dist {
        RandomDistribution::Uniform => return None,
        RandomDistribution::Zipf { theta, center: c } => format!("zipf:{theta}{}", center(c)),
        RandomDistribution::Pareto { h, center: c } => format!("pareto:{h}{}", center(c)),
        RandomDistribution::Normal {
            deviation_pct,
            center: c,
        } => format!("normal:{deviation_pct}{}", center(c)),
        RandomDistribution::Zoned(zones) => {
            let absolute = zones.iter().any(|z| matches!(z.size, ZoneSize::Bytes(_)));
            let list: Vec<String> = zones
                .iter()
                .map(|z| match z.size {
                    ZoneSize::Percent(p) => format!("{}/{p}", z.access_pct),
                    ZoneSize::Bytes(b) => format!("{}/{}", z.access_pct, b.as_u64()),
                })
                .collect();
            let kind = if absolute { "zoned_abs" } else { "zoned" };
            format!("{kind}:{}", list.join(":"))
        }
    })
}
