//! A job's options settled once all are read: the IO mode, block sizes, the target and its
//! size, direct-IO alignment, logs, `number_ios`, cache hints and start delay.

use super::apply::{Builder, Ctx, Placed};
use super::{apply, compat, control, data, replay, split_filenames, trim, ParseOptions, RawOption};
use crate::error::{ErrorKind, JobFileError, Location};
use crate::fio_options::names as option_names;
use iofit_model::job::JobNote;
use iofit_model::job::{BlockSizeSpec, JobSpec, PerDirection, RwMode, SizeSpec, Target};
use iofit_model::units::Bytes;
use iofit_model::units::Seconds;
use std::path::{Path, PathBuf};

/// The group id a job that asked for `new_group` is given while its options are settled here;
/// `build_jobs` replaces it with the real number.
pub(super) const NEW_GROUP_MARK: u32 = u32::MAX;

pub(super) fn finish(
    ctx: Ctx,
    section_loc: &Location,
    opts: &ParseOptions,
) -> Result<JobSpec, JobFileError> {
    let Ctx { mut job, mut b, .. } = ctx;
    job = finish_mode(job, &b, opts)?;
    let bs_loc = finish_block_sizes(&mut job, &mut b);
    let (file_count, target_loc) = finish_target(&mut job, &b)?;
    check_blockalign(&mut job, &b)?;
    control::settle_steady_state(&mut job, &mut b)?;
    control::settle_latency_target(&mut job, &mut b)?;
    if job.file_sync.pre_read && job.direct {
        let note = JobNote::Accepted {
            option: "pre_read",
            how: "pre_read with direct=1: the job's IO bypasses the page cache, so iofit reads nothing ahead (fio's pre-read through the job's O_DIRECT descriptor leaves nothing cached either)",
        };
        if !job.notes.contains(&note) {
            job.notes.push(note);
        }
    }
    settle_cache_hints(&mut job, &b);
    if let Some(at) = &b.readonly {
        if job.rw.has_writes() || job.rw.has_trims() {
            return Err(at.unsupported_value(
                "readonly",
                "1",
                format!("job {} has rw={}, which writes, and fio's --readonly refuses every job that writes or trims", job.name, job.rw.fio_name()),
                "drop --readonly, or give the job a read-only rw (read, randread)",
            ));
        }
    }
    let placed = Layout {
        file_count,
        bs_loc,
        target_loc,
    };
    finish_size(&mut job, &mut b, opts, &placed, section_loc)?;
    check_direct_sizes(&job, placed.bs_loc, section_loc)?;
    if let Some(at) = &b.log_at {
        check_logs(&mut job, &b, at)?;
    }
    trim::finish(&mut job, section_loc)?;
    if let Some(count) = b.number_ios {
        apply_number_ios(&mut job, count)?;
    }
    if b.new_group {
        job.group_id = NEW_GROUP_MARK;
    }
    Ok(job)
}

/// Where a job's block size and target were given, and how many files the target has: what
/// the size checks need to point at the right line.
struct Layout {
    file_count: u32,
    bs_loc: Option<Location>,
    target_loc: Option<Location>,
}

/// The IO pattern: rw and its mix, direct or buffered, and time_based with its runtime.
fn finish_mode(
    mut job: JobSpec,
    b: &Builder,
    opts: &ParseOptions,
) -> Result<JobSpec, JobFileError> {
    let rw = b.rw.unwrap_or(RwMode::Read);
    job = job.with_rw(rw);
    data::finish(&mut job, &b.dedupe);
    compat::finish_flow(&mut job);
    replay::finish_replay(&mut job);
    if rw.is_mixed() {
        if let Some(read_pct) = b.rwmix_read_pct {
            job.rwmix_read_pct = read_pct;
        }
    }
    if rw.is_random() {
        if let Some(pct) = b.percentage_random {
            job.random_pct = pct;
        }
    }
    // fio: `buffered` is the inverse of `direct` (one option underneath), so the later of the
    // two wins; each clears the other as it is applied.
    job.direct = match (b.direct, b.buffered) {
        (Some(direct), _) => direct,
        (None, Some(buffered)) => !buffered,
        (None, None) => false,
    };
    if let Some(loc) = &b.time_based {
        if job.runtime.is_none() && opts.skip_target_checks {
            // fio's --parse-only accepts it too: the runtime may come from the command line of
            // the run, so only a run refuses it.
            job.notes.push(JobNote::Accepted { option: "time_based", how: "time_based is set but no runtime: fio --parse-only accepts this, a run refuses it until runtime= or --runtime is given" });
        } else if job.runtime.is_none() {
            return Err(loc.error(
                Some("time_based"),
                ErrorKind::InvalidJob {
                    job: job.name.clone(),
                    what: "time_based is set but no runtime".into(),
                    fix: "add runtime= (for example runtime=30) or pass --runtime".into(),
                },
            ));
        }
        job.time_based = true;
    }

    Ok(job)
}

/// The block sizes (bssplit, or bs per direction); returns where bs was given.
fn finish_block_sizes(job: &mut JobSpec, b: &mut Builder) -> Option<Location> {
    job.stated_block_sizes = Some(stated_block_sizes(b));
    let (bs_loc, block_size) = if let Some(split) = b.bssplit.take() {
        let [read, write, trim] = split.value;
        let block_size = if job.rw.has_trims() {
            BlockSizeSpec::Split {
                read: trim.clone(),
                write: trim,
            }
        } else {
            BlockSizeSpec::Split { read, write }
        };
        (Some(split.loc), block_size)
    } else {
        let size = |p: &Option<Placed<Bytes>>| p.as_ref().map(|p| p.value).unwrap_or(Bytes::kib(4));
        let sizes = if job.rw.has_trims() {
            PerDirection::both(size(&b.bs_trim))
        } else {
            PerDirection {
                read: size(&b.bs_read),
                write: size(&b.bs_write),
            }
        };
        (
            b.bs_read.as_ref().map(|p| p.loc.clone()),
            BlockSizeSpec::Fixed(sizes),
        )
    };
    trim_sizes_note(job, b);
    control::finish_trim_rates(job, &b.trim_rates);
    job.block_size = block_size;
    bs_loc
}

/// The files or directory the job does IO on; returns how many files and where it was given.
fn finish_target(job: &mut JobSpec, b: &Builder) -> Result<(u32, Option<Location>), JobFileError> {
    let nrfiles = b.nrfiles.unwrap_or(1);
    let (target, file_count, target_loc) = match (&b.filename, &b.directory) {
        (Some(filename), directory) => {
            let files: Vec<PathBuf> = split_filenames(&filename.value)
                .into_iter()
                .map(|name| match directory {
                    Some(dir) if Path::new(&name).is_relative() => Path::new(&dir.value).join(name),
                    _ => PathBuf::from(name),
                })
                .collect();
            if files.is_empty() {
                return Err(filename
                    .loc
                    .error(Some("filename"), ErrorKind::MissingValue("filename".into())));
            }
            let count = files.len() as u32;
            (Target::Files(files), count, Some(filename.loc.clone()))
        }
        (None, Some(directory)) => {
            if directory.value.contains(':') {
                return Err(directory.loc.unsupported_value(
                    "directory",
                    &directory.value,
                    "several directories in one job",
                    "give one directory per job",
                ));
            }
            (
                Target::Directory {
                    path: PathBuf::from(&directory.value),
                    nrfiles,
                },
                nrfiles,
                Some(directory.loc.clone()),
            )
        }
        (None, None) => (
            Target::Directory {
                path: PathBuf::from("."),
                nrfiles,
            },
            nrfiles,
            None,
        ),
    };
    job.target = target;
    Ok((file_count, target_loc))
}

/// The size per file (fio's size is per clone and divided among the files; filesize is per
/// file), or the note or error when none can be known.
fn finish_size(
    job: &mut JobSpec,
    b: &mut Builder,
    opts: &ParseOptions,
    placed: &Layout,
    section_loc: &Location,
) -> Result<(), JobFileError> {
    let Layout {
        file_count,
        bs_loc,
        target_loc,
    } = placed;
    let file_count = *file_count;
    // fio's filesize is the size of each file; size is then the total the job does IO over.
    let size = match (b.size.take(), &b.filesize) {
        (_, Some(filesize)) => {
            let total = Bytes(
                filesize
                    .value
                    .as_u64()
                    .saturating_mul(u64::from(file_count.max(1))),
            );
            Some(Placed {
                value: SizeSpec::Bytes(total),
                loc: filesize.loc.clone(),
            })
        }
        (size, None) => size,
    };
    // Size: fio's size is per clone and divided among the job's files; JobSpec's is per file.
    match size {
        Some(Placed {
            value: SizeSpec::Bytes(total),
            loc,
        }) => {
            let per_file = Bytes(total.as_u64() / u64::from(file_count.max(1)));
            let max_bs = job.block_size.max_size();
            if per_file < max_bs && opts.skip_target_checks {
                // fio checks this when it sets up the files, so its --parse-only accepts it.
                job.notes.push(JobNote::SizeTooSmall {
                    block: max_bs,
                    per_file,
                });
            } else if per_file < max_bs {
                let (key, at) = match bs_loc {
                    Some(bs_loc) if bs_loc.line >= loc.line || loc.file != bs_loc.file => {
                        ("bs", bs_loc.clone())
                    }
                    _ => ("size", loc.clone()),
                };
                return Err(at.error(
                    Some(key),
                    ErrorKind::InvalidJob {
                        job: job.name.clone(),
                        what: format!(
                            "block size {max_bs} is larger than the size per file {per_file} (size={total} over {file_count} file(s))"
                        ),
                        fix: "make size larger or bs smaller".into(),
                    },
                ));
            }
            job.size = Some(SizeSpec::Bytes(per_file));
        }
        Some(Placed { value, .. }) => job.size = Some(value),
        None => {
            match &job.target {
                // fio's --parse-only does not ask where the size comes from; a run does.
                // fio fill_device: the size is the file system's free space, found at run time.
                Target::Directory { .. } | Target::Files(_) if job.fill_device => {}
                // read_iolog: the log names the files and their extents, read at run time.
                Target::Directory { .. } | Target::Files(_) if job.replay.is_some() => {}
                Target::Directory { .. } if opts.skip_target_checks => job.notes.push(JobNote::Accepted { option: "size", how: "no size= and no existing file to take the size from: fio --parse-only accepts this, a run refuses it until size= is given" }),
                Target::Directory { .. } => {
                    return Err(target_loc.clone().unwrap_or_else(|| section_loc.clone()).error(
                        Some("size"),
                        ErrorKind::InvalidJob {
                            job: job.name.clone(),
                            what: "no size= and no existing file to take the size from (iofit lays the files out itself)".into(),
                            fix: "add size= (for example size=1g) or filename= of an existing file".into(),
                        },
                    ))
                }
                // fio's --parse-only does not look at targets; neither does iofit's.
                Target::Files(_) if opts.skip_target_checks => {}
                Target::Files(files) => {
                    if let Some(missing) = files.iter().find(|f| !f.exists()) {
                        return Err(target_loc.clone().unwrap_or_else(|| section_loc.clone()).error(
                            Some("filename"),
                            ErrorKind::InvalidJob {
                                job: job.name.clone(),
                                what: format!("{} does not exist and no size= is given", missing.display()),
                                fix: "add size= so iofit can create it, or name an existing file".into(),
                            },
                        ));
                    }
                }
            }
        }
    }

    Ok(())
}

/// Direct IO needs sector-aligned sizes.
fn check_direct_sizes(
    job: &JobSpec,
    bs_loc: Option<Location>,
    section_loc: &Location,
) -> Result<(), JobFileError> {
    if job.direct {
        let sizes: Vec<Bytes> = match &job.block_size {
            BlockSizeSpec::Fixed(sizes) => vec![sizes.read, sizes.write],
            BlockSizeSpec::Split { read, write } => {
                read.iter().chain(write.iter()).map(|s| s.size).collect()
            }
        };
        if let Some(odd) = sizes.iter().find(|s| !s.as_u64().is_multiple_of(512)) {
            return Err(bs_loc.unwrap_or_else(|| section_loc.clone()).error(
                Some("bs"),
                ErrorKind::InvalidJob {
                    job: job.name.clone(),
                    what: format!("direct IO needs block sizes that are multiples of 512 bytes, and {} is not", odd.as_u64()),
                    fix: "use a block size such as 4k, or direct=0".into(),
                },
            ));
        }
    }
    Ok(())
}

/// fio's `blockalign`: random offsets are multiples of it (default: the smallest block size).
/// Direct IO needs a multiple of 512 bytes.
fn check_blockalign(job: &mut JobSpec, b: &Builder) -> Result<(), JobFileError> {
    let Some(align) = &b.blockalign else {
        return Ok(());
    };
    let bytes = align.value.as_u64();
    if bytes == 0 {
        return Ok(());
    }
    if job.direct && !bytes.is_multiple_of(512) {
        return Err(align.loc.invalid(
            "blockalign",
            &bytes.to_string(),
            "direct IO needs offsets aligned to 512 bytes",
            "use a multiple of 512 such as blockalign=4k",
        ));
    }
    job.block_align = Some(align.value);
    Ok(())
}

/// The (smallest, largest) size of reads, writes and trims as stated, for fio's header line:
/// a bssplit's sizes per direction, else `bs`'s values (4 KiB where none was given).
fn stated_block_sizes(b: &Builder) -> [(Bytes, Bytes); 3] {
    if let Some(split) = &b.bssplit {
        return split.value.clone().map(|shares| {
            let sizes = shares.iter().map(|share| share.size);
            let low = sizes.clone().min().unwrap_or(Bytes::ZERO);
            (low, sizes.max().unwrap_or(Bytes::ZERO))
        });
    }
    [&b.bs_read, &b.bs_write, &b.bs_trim].map(|stated| {
        let size = stated.as_ref().map(|p| p.value).unwrap_or(Bytes::kib(4));
        (size, size)
    })
}

/// A trim job's sizes are its trims' (fio's third `bs` value); in trimwrite each write takes
/// the length of the trim before it (fio's randtrimwrite rule), so a different write size goes
/// unused, which the job's notes say.
fn trim_sizes_note(job: &mut JobSpec, b: &Builder) {
    let (Some(write), Some(trim)) = (&b.bs_write, &b.bs_trim) else {
        return;
    };
    if job.rw.is_trimwrite() && write.value != trim.value {
        job.notes.push(JobNote::TrimWriteSize {
            mode: job.rw.fio_name().to_string(),
            trim: trim.value,
            write: write.value,
        });
    }
}

/// iofit writes fio's averaged logs (one line per window and direction) from its interval
/// series: that needs `log_avg_msec` (`log_hist_msec` for the histogram log, the same
/// interval when both are given), one result per clone, and one direction for latency.
fn check_logs(job: &mut JobSpec, b: &Builder, at: &Location) -> Result<(), JobFileError> {
    let refuse = |what: String, fix: &str| {
        Err(at.error(
            None,
            ErrorKind::InvalidJob {
                job: job.name.clone(),
                what,
                fix: fix.into(),
            },
        ))
    };
    if !job.logs.any() {
        return Ok(());
    }
    let averaged = job.logs.bw_prefix.is_some()
        || job.logs.iops_prefix.is_some()
        || job.logs.lat_prefix.is_some();
    if job.logs.hist_prefix.is_some() {
        if b.log_hist_msec == 0 {
            return refuse(
                "iofit writes fio's histogram log per interval, not per IO".into(),
                "add log_hist_msec=N (for example log_hist_msec=1000)",
            );
        }
        if b.log_avg_msec > 0 && b.log_avg_msec != b.log_hist_msec {
            return refuse(
                format!("iofit keeps one interval series, and log_avg_msec={} differs from log_hist_msec={}", b.log_avg_msec, b.log_hist_msec),
                "give log_avg_msec and log_hist_msec the same value",
            );
        }
        job.log_interval = std::time::Duration::from_millis(b.log_hist_msec);
    }
    // No log_avg_msec: fio's per-IO logs, which the engine writes per clone as IOs complete
    // (so group_reporting and mixed jobs are no obstacle).
    // Averaged and histogram logs: every clone writes its own from its own series as it runs
    // (engine/interval_log.rs), group_reporting or not, as fio's `PREFIX_KIND.N.log` per clone.
    job.logs.per_io = averaged && b.log_avg_msec == 0;
    Ok(())
}

/// fio's `number_ios=N`: the job ends after N IOs (or at the end of its region, if sooner). With
/// one block size that is N x bs bytes, an `io_size`.
fn apply_number_ios(job: &mut JobSpec, count: Placed<u64>) -> Result<(), JobFileError> {
    let size = match &job.block_size {
        BlockSizeSpec::Fixed(sizes) if sizes.read == sizes.write || !job.rw.is_mixed() => {
            if job.rw.has_reads() {
                sizes.read
            } else {
                sizes.write
            }
        }
        _ => {
            return Err(count.loc.unsupported_value(
                "number_ios",
                &count.value.to_string(),
                "a count of IOs with more than one block size",
                "give io_size= in bytes instead",
            ))
        }
    };
    let bytes = Bytes(count.value.saturating_mul(size.as_u64()));
    job.io_limit = Some(job.io_limit.map_or(bytes, |limit| limit.min(bytes)));
    Ok(())
}

/// fio's `invalidate` (default 1) and `fadvise_hint` (default 1: the job's pattern), for the
/// buffered jobs where they change what is measured: a direct job's IO bypasses the page cache
/// either way. fio's `pre_read` clears invalidate (dropping what was just read in would undo it).
fn settle_cache_hints(job: &mut JobSpec, b: &apply::Builder) {
    use apply::FadviseChoice as C;
    use iofit_model::job::FadviseHint as H;
    if job.direct || job.engine == iofit_model::job::EngineKind::Null {
        return;
    }
    let asked = b.invalidate.as_ref().map(|i| i.value).unwrap_or(true);
    job.file_sync.invalidate = asked && !job.file_sync.pre_read;
    job.file_sync.fadvise = match b.fadvise_hint.unwrap_or(C::Pattern) {
        C::None => None,
        C::Pattern if job.rw.is_random() => Some(H::Random),
        C::Pattern => Some(H::Sequential),
        C::Fixed(hint) => Some(hint),
    };
}

/// A `--runtime` given to shorten a file bounds its `startdelay` too: a job does not wait
/// longer than the run it was shortened to (with a note). A `--size` alone shortens the IO,
/// not the wait, and the note says how to bound that as well.
pub(super) fn bound_start_delay(job: &mut JobSpec, overrides: &[RawOption]) {
    if job.start_delay.is_zero() {
        return;
    }
    let given = |key: &str| overrides.iter().any(|o| o.key == key);
    let delay_s = job.start_delay.as_secs_f64();
    match job.runtime {
        Some(runtime) if given(option_names::RUNTIME) && job.start_delay > runtime => {
            job.notes.push(JobNote::StartDelayBounded {
                delay_s: Seconds(delay_s),
                runtime_s: Seconds(runtime.as_secs_f64()),
            });
            job.start_delay = runtime;
        }
        _ if given(option_names::SIZE) && !given(option_names::RUNTIME) => {
            job.notes.push(JobNote::StartDelayKept {
                delay_s: Seconds(delay_s),
            })
        }
        _ => {}
    }
}
