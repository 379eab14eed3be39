//! The names fio knows, split into the ones iofit implements and the ones it does not yet.
//!
//! The second list is every option name (and alias) in fio's `options.c` plus the options of the
//! io_uring, libaio, null and sync engines, as of fio's master in August 2026 (read from
//! axboe/fio). It exists so that a real fio option iofit cannot honour yet is reported as exactly
//! that, instead of as a typo or, worse, silently ignored.

/// Options iofit implements, with their aliases, as fio spells them.
pub const SUPPORTED: &[&str] = &[
    "name",
    "description",
    "thread",
    "filename",
    "directory",
    "size",
    "offset",
    "rw",
    "readwrite",
    "rwmixread",
    "rwmixwrite",
    "bs",
    "blocksize",
    "bssplit",
    "ioengine",
    "iodepth",
    "direct",
    "buffered",
    "numjobs",
    "group_reporting",
    "runtime",
    "timeout",
    "time_based",
    "ramp_time",
    "startdelay",
    "rate",
    "rate_iops",
    "norandommap",
    "randrepeat",
    "randseed",
    "loops",
    "fsync",
    "fdatasync",
    "end_fsync",
    "stonewall",
    "wait_for_previous",
    "new_group",
    "io_size",
    "io_limit",
    "percentage_random",
    "nrfiles",
    "nr_files",
    "kb_base",
];

/// Real fio options (and engine options) that iofit does not implement yet.
#[rustfmt::skip]
pub const FIO_UNSUPPORTED: &[&str] = &[
    "allow_file_create", "allow_mounted_write", "allrandrepeat", "atomic", "ba",
    "block_error_percentiles", "blockalign", "blocksize_range", "blocksize_unaligned",
    "bs_is_seq_rand", "bs_unaligned", "bsrange", "buffer_compress_chunk",
    "buffer_compress_percentage", "buffer_pattern", "bwavgtime", "cgroup", "cgroup_nodelete",
    "cgroup_weight", "clat_percentiles", "clocksource", "comm", "continue_on_error", "cpumask",
    "cpus_allowed", "cpus_allowed_policy", "create_fsync", "create_on_open", "create_only",
    "create_serialize", "data_placement", "dataplacement", "dedupe_global", "dedupe_mode",
    "dedupe_percentage", "dedupe_working_set_percentage", "disable_bw",
    "disable_bw_measurement", "disable_clat", "disable_lat", "disable_slat", "disk_util",
    "do_verify", "dp_scheme", "end_syncfs", "error_dump", "exec_postrun", "exec_prerun",
    "exit_what", "exitall", "exitall_on_error", "experimental_verify", "fadvise_hint",
    "fallocate", "fdp", "fdp_pli", "fdp_pli_select", "file_append", "file_service_type",
    "filename_format", "fileoffset", "filesize", "filetype", "fill_device", "fill_fs", "flow",
    "flow_id", "flow_sleep", "flow_watermark", "fsync_on_close", "gid", "gpu_dev_id", "gtod_cpu",
    "gtod_reduce", "hugepage-size", "ignore_error", "ignore_zone_limits", "invalidate",
    "io_submit_mode", "iodepth_batch", "iodepth_batch_complete", "iodepth_batch_complete_max",
    "iodepth_batch_complete_min", "iodepth_batch_submit", "iodepth_low", "iomem", "iomem_align",
    "iopsavgtime", "ioscheduler", "job_max_open_zones", "job_start_clock_id", "lat_percentiles",
    "latency_percentile", "latency_run", "latency_target", "latency_window", "lockfile",
    "lockmem", "log_alternate_epoch", "log_alternate_epoch_clock_id", "log_avg_msec",
    "log_compression", "log_compression_cpus", "log_entries", "log_hist_coarseness",
    "log_hist_msec", "log_issue_time", "log_max_value", "log_offset", "log_prio",
    "log_store_compressed", "log_unix_epoch", "log_window_value", "max_latency",
    "max_open_zones", "mem", "mem_align", "merge_blktrace_file", "merge_blktrace_iters",
    "merge_blktrace_scalars", "nice", "num_range", "numa_cpu_nodes", "numa_mem_policy",
    "number_ios", "offset_align", "offset_increment", "opendir", "openfiles", "overwrite",
    "per_job_logs", "percentage_sequential", "percentile_list", "plid_select", "plids",
    "pre_read", "prio", "prioclass", "priohint", "profile", "ramp_size", "random_distribution",
    "random_generator", "random_sequence_stride", "rate_cycle", "rate_ignore_thinktime",
    "rate_iops_min", "rate_min", "rate_process", "ratecycle", "ratemin", "read_beyond_wp",
    "read_iolog", "read_iolog_chunked", "recover_zbd_write_error", "refill_buffers",
    "replay_align", "replay_no_stall", "replay_redirect", "replay_scale", "replay_skip",
    "replay_time_scale", "rw_sequencer", "rwmixcycle", "scramble_buffers", "serialize_overlap",
    "significant_figures", "slat_percentiles", "softrandommap", "spr_cs", "spr_num_regions",
    "spr_op", "sprandom", "ss", "ss_dur", "ss_interval", "ss_ramp", "stats", "steadystate",
    "steadystate_check_interval", "steadystate_duration", "steadystate_ramp_time", "sync",
    "sync_file_range", "thinkcycles", "thinktime", "thinktime_blocks", "thinktime_blocks_type",
    "thinktime_iotime", "thinktime_spin", "trim_backlog", "trim_backlog_batch",
    "trim_percentage", "trim_verify_zero", "uid", "unified_rw_reporting", "unique_filename",
    "unit_base", "unlink", "unlink_each_loop", "verify", "verify_async", "verify_async_cpus",
    "verify_backlog", "verify_backlog_batch", "verify_dump", "verify_fatal",
    "verify_header_seed", "verify_interval", "verify_offset", "verify_only", "verify_pattern",
    "verify_pattern_interval", "verify_policy", "verify_state_load", "verify_state_save",
    "verify_write_sequence", "verifysort", "verifysort_nr", "wait_for", "write_barrier",
    "write_bw_log", "write_hint", "write_hist_log", "write_iolog", "write_iops_log",
    "write_lat_log", "write_zone_remainder", "zero_buffers", "zone_reset_frequency",
    "zone_reset_threshold", "zonecapacity", "zonemode", "zonerange", "zonesize", "zoneskip",
    // engine options (io_uring, libaio, null, sync)
    "apptag", "apptag_mask", "cdb_len", "cmd_type", "deac", "fixedbufs", "force_async", "hipri",
    "hipri_percentage", "md_per_io_size", "nonvectored", "nowait", "pi_act", "pi_chk",
    "read_mode", "readfua", "registerfiles", "sqthread_poll", "sqthread_poll_cpu", "uncached",
    "userspace_reap", "verify_bytchk", "verify_mode", "write_mode", "writefua",
];

pub fn is_supported(key: &str) -> bool {
    SUPPORTED.contains(&key)
}

pub fn is_fio_unsupported(key: &str) -> bool {
    FIO_UNSUPPORTED.contains(&key)
}

/// Every name fio knows, for "did you mean" hints.
pub fn all_known() -> impl Iterator<Item = &'static str> {
    SUPPORTED.iter().chain(FIO_UNSUPPORTED.iter()).copied()
}

/// Options that never take a value on fio's command line (`--time_based`), so that
/// `--time_based --name=x` does not swallow the next argument.
pub fn is_flag(key: &str) -> bool {
    matches!(
        key,
        "time_based"
            | "group_reporting"
            | "stonewall"
            | "wait_for_previous"
            | "new_group"
            | "norandommap"
            | "thread"
    )
}
