//! What each fio option does to the job being built: one small function per option, named by
//! the table in `fio_options.rs`. Values whose final meaning depends on other options (sizes per
//! file, block sizes, the target) are collected in [`Builder`] and settled by `finish`.

mod context;
mod pattern;
mod reporting;
mod run;
mod target;

pub(crate) use context::{Arg, Builder, Ctx, DedupeKeys, FadviseChoice, Placed};
pub(crate) use pattern::{
    blockalign, bs, bsrange, bssplit, percentage_random, percentage_sequential,
    random_distribution, random_generator, rw, rw_sequencer, rwmix,
};
pub(crate) use reporting::{
    clat_percentiles, lat_percentiles, log_avg_msec, log_flag, log_hist_msec, percentile_list,
    significant_figures, slat_percentiles, unified_rw_reporting, write_log,
};
pub(crate) use run::{
    allow_file_create, atomic, buffered, check_flag, direct, end_fsync, fadvise_hint, fdatasync,
    fsync, group_reporting, invalidate, io_size, io_submit_mode, iodepth, ioengine, loops, mem,
    new_group, norandommap, nothing, number_ios, numjobs, ramp_time, randrepeat, randseed,
    readonly, runtime, startdelay, stonewall, thread, time_based, write_hint,
};
pub(crate) use target::{
    directory, fallocate, filename, filesize, name, nrfiles, offset, offset_align,
    offset_increment, size,
};
