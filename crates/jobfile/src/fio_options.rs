//! The one table of fio options, as fio keeps one in `options.c`: every name (and alias) fio
//! knows, whether it takes a value, and what iofit does with it — apply it to the job, accept it
//! with a note saying how iofit's behaviour differs, or refuse it with the reason.
//!
//! The refused names are every option of fio's `options.c` (and the io_uring, libaio, null and
//! sync engines' options) as of fio's master in November 2026 (read from axboe/fio) that iofit
//! does not honour, so that a real fio option is reported as exactly that, never as a typo and
//! never silently ignored. A new option is one row here plus its `apply` function.

use crate::error::JobFileError;
use crate::fio::apply::{self as a, Arg, Ctx};
use crate::fio::compat as cm;
use crate::fio::control as ctl;
use crate::fio::data as d;
use crate::fio::engine_opts as eo;
use crate::fio::errors as er;
use crate::fio::replay as rp;
pub(crate) use crate::fio_engines::{engine, EngineChoice};
pub use crate::option_bounds::{Bounds, Unit};
use std::collections::HashMap;
use std::sync::OnceLock;

/// Sets the option's effect on the job being built.
/// The options other code names (presets, overrides, the clone check, messages): one
/// spelling each, beside the table that defines them, so a name outside the registry is a
/// constant, never a literal that could drift from the table's.
pub mod names {
    pub const IODEPTH: &str = "iodepth";
    pub const NUMJOBS: &str = "numjobs";
    pub const RUNTIME: &str = "runtime";
    pub const RAMP_TIME: &str = "ramp_time";
    pub const SIZE: &str = "size";
    pub const DIRECTORY: &str = "directory";
    pub const FILENAME: &str = "filename";
}

pub(crate) type Apply = fn(&mut Ctx, &Arg) -> Result<(), JobFileError>;

/// Whether the option may be written bare (`time_based`), which also means on the command line
/// it never swallows the next argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Takes {
    /// A boolean: bare means 1.
    Flag,
    Value,
}

/// What iofit does with an option.
#[derive(Clone, Copy)]
pub(crate) enum Status {
    /// Honoured: `apply` gives it its effect.
    Supported(Apply),
    /// Accepted; the note (printed with the job) says how iofit's behaviour differs. `apply`
    /// still checks the value, and may refuse values iofit cannot honour.
    Noted(Apply, &'static str),
    /// Refused with this reason.
    Refused(&'static str),
}

pub(crate) struct FioOption {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub takes: Takes,
    pub status: Status,
    /// What the option is about (filled in by [`table`] from [`role_of`]).
    pub role: Role,
    /// The numbers it accepts, where it is numeric (from [`bounds_of`]); parsing checks them.
    pub bounds: Option<Bounds>,
    /// How a parsed job's value is written back as fio text (from `fio::render`).
    pub render: crate::fio::render::Render,
    /// The value is a time (an arithmetic expression's result is then in microseconds, as
    /// fio reads it); from [`takes_time`].
    pub takes_time: bool,
}

/// The options whose value is a time.
fn takes_time(name: &str) -> bool {
    matches!(
        name,
        "runtime"
            | "ramp_time"
            | "startdelay"
            | "thinktime"
            | "max_latency"
            | "latency_target"
            | "latency_window"
            | "steadystate_duration"
            | "steadystate_ramp_time"
    )
}

/// What an option is about: the output guard reads the path roles, readers the rest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Shapes the IO the job issues (pattern, sizes, depth, pacing, data).
    Workload,
    /// Names the files or directory the job does IO on.
    Target,
    /// Names a file the run writes besides the job's data files.
    Output(PathKind),
    /// Names a file the run reads besides the job's data files.
    Input(PathKind),
    /// Changes only how results are reported.
    Reporting,
    /// Accepted without effect on what iofit runs; the option's note says why.
    Ignored,
    /// Refused; the option's reason says why.
    Refused,
}

/// The kinds of files job options name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathKind {
    /// fio's text IO log (`write_iolog` writes one, `read_iolog` replays one).
    IoLog,
    /// bandwidth, IOPS, latency and histogram logs (`PREFIX_KIND.N.log`).
    StatsLog,
    /// A verify state file (`NAME-CLONE-verify.state`).
    VerifyState,
}

impl PathKind {
    /// Whether an output of this kind may be the very file an input of the same kind named:
    /// a verify state is loaded and saved again by design (fio's chain of verify runs); any
    /// other input replaced by an output would be lost.
    pub fn output_may_replace_same_kind(self) -> bool {
        self == PathKind::VerifyState
    }
}

/// The options that are not plain workload tuning; every other honoured option shapes the IO.
fn role_of(name: &str, status: Status) -> Role {
    use PathKind as K;
    match (name, status) {
        (_, Status::Refused(_)) => Role::Refused,
        ("filename" | "directory" | "nrfiles" | "filename_format" | "unique_filename", _) => {
            Role::Target
        }
        ("write_iolog", _) => Role::Output(K::IoLog),
        ("write_bw_log" | "write_iops_log" | "write_lat_log" | "write_hist_log", _) => {
            Role::Output(K::StatsLog)
        }
        ("verify_state_save", _) => Role::Output(K::VerifyState),
        ("read_iolog", _) => Role::Input(K::IoLog),
        ("verify_state_load", _) => Role::Input(K::VerifyState),
        (
            "name"
            | "description"
            | "group_reporting"
            | "new_group"
            | "clat_percentiles"
            | "lat_percentiles"
            | "slat_percentiles"
            | "percentile_list"
            | "unified_rw_reporting"
            | "significant_figures"
            | "log_avg_msec"
            | "log_hist_msec"
            | "per_job_logs"
            | "log_offset"
            | "log_unix_epoch"
            | "log_prio"
            | "log_max_value"
            | "error_dump"
            | "disk_util"
            | "bwavgtime"
            | "iopsavgtime"
            | "eta-newline",
            _,
        ) => Role::Reporting,
        (
            "clocksource"
            | "threads"
            | "flow_watermark"
            | "verify_async"
            | "verify_async_cpus"
            | "gtod_reduce"
            | "create_on_open"
            | "experimental_verify"
            | "trim_verify_zero"
            | "create_serialize"
            | "random_generator"
            | "fallocate"
            | "iodepth_batch_complete_min"
            | "iodepth_batch_complete_max"
            | "iodepth_low"
            | "io_submit_mode"
            | "ioscheduler"
            | "openfiles"
            | "overwrite"
            | "thread"
            | "mem"
            | "allow_file_create",
            _,
        ) => Role::Ignored,
        _ => Role::Workload,
    }
}

/// The bounds of the numeric options whose limits iofit shares (`iofit_model::limits`) or
/// that fio bounds itself (percentages).
fn bounds_of(name: &str) -> Option<Bounds> {
    use iofit_model::limits as l;
    let count = |min: u64, max: u64, noun: &'static str| Bounds {
        min,
        max,
        unit: Unit::Count,
        noun,
    };
    let percent = Bounds {
        min: 0,
        max: 100,
        unit: Unit::Percent,
        noun: "",
    };
    Some(match name {
        "iodepth" => count(1, u64::from(l::MAX_IODEPTH), " IOs in flight"),
        "numjobs" => count(1, u64::from(l::MAX_NUMJOBS), " clones"),
        "loops" => count(1, u64::from(u32::MAX), " loops"),
        "nrfiles" => count(1, u64::from(u32::MAX), " files"),
        "bs" => Bounds {
            min: 1,
            max: l::MAX_BLOCK_SIZE_BYTES,
            unit: Unit::Bytes,
            noun: "",
        },
        "rwmixread" | "rwmixwrite" => percent,
        // fio's own ranges: significant_figures 1..10, FLOW_MAX_WEIGHT 1000, ioprio levels
        // 0..7 and classes 0..3.
        "significant_figures" => count(1, 10, " digits"),
        "flow" => count(0, u64::from(crate::fio::compat::FLOW_MAX_WEIGHT), ""),
        "prio" => count(0, 7, ""),
        "prioclass" => count(0, 3, ""),
        _ => return None,
    })
}

use Status::{Noted, Refused, Supported};
use Takes::{Flag, Value};

const fn opt(
    name: &'static str,
    aliases: &'static [&'static str],
    takes: Takes,
    status: Status,
) -> FioOption {
    FioOption {
        name,
        aliases,
        takes,
        status,
        role: Role::Workload,
        bounds: None,
        render: crate::fio::render::Render::Pending,
        takes_time: false,
    }
}

/// Options iofit honours or accepts with a note.
#[rustfmt::skip]
const HONOURED: &[FioOption] = &[
    opt("name", &[], Value, Supported(a::name)),
    opt("description", &[], Value, Supported(a::nothing)),
    opt("kb_base", &[], Value, Supported(a::nothing)), // read before the others, see resolve_job
    opt("thread", &[], Flag, Supported(a::thread)),
    opt("mem", &["iomem"], Value, Supported(a::mem)),
    opt("readonly", &[], Flag, Supported(a::readonly)),
    opt("allow_file_create", &[], Flag, Supported(a::allow_file_create)),
    opt("atomic", &[], Flag, Supported(a::atomic)),
    opt("clocksource", &[], Value, Noted(a::nothing,
        "clocksource: iofit times with clock_gettime(CLOCK_MONOTONIC) whatever is named (fio's clock_gettime source)")),
    opt("bwavgtime", &[], Value, Noted(a::nothing,
        "bwavgtime: iofit's bandwidth samples are its per-interval series (log_avg_msec, else 1 s), not fio's bwavgtime windows")),
    opt("iopsavgtime", &[], Value, Noted(a::nothing,
        "iopsavgtime: iofit's IOPS samples are its per-interval series (log_avg_msec, else 1 s), not fio's iopsavgtime windows")),
    opt("write_hint", &[], Value, Supported(a::write_hint)),
    // fio program options that reach the job parser from iofit's command line.
    opt("eta-newline", &["eta_newline", "eta-interval", "eta_interval", "eta"], Value, Noted(a::nothing,
        "fio's --eta options set how fio shows progress; iofit shows its own progress line on a terminal")),
    opt("filename", &[], Value, Supported(a::filename)),
    opt("directory", &[], Value, Supported(a::directory)),
    opt("size", &[], Value, Supported(a::size)),
    opt("filesize", &[], Value, Supported(a::filesize)),
    opt("offset", &["fileoffset"], Value, Supported(a::offset)),
    opt("rw", &["readwrite"], Value, Supported(a::rw)),
    opt("write_bw_log", &[], Value, Supported(a::write_log)),
    opt("write_iops_log", &[], Value, Supported(a::write_log)),
    // Averaged latency logs of a mixed job are refused in check_logs (one series latency).
    opt("write_lat_log", &[], Value, Supported(a::write_log)),
    opt("log_avg_msec", &[], Value, Supported(a::log_avg_msec)),
    opt("per_job_logs", &[], Flag, Supported(a::log_flag)),
    opt("log_offset", &[], Flag, Supported(a::log_flag)),
    opt("log_unix_epoch", &[], Flag, Supported(a::log_flag)),
    opt("percentage_sequential", &[], Value, Supported(a::percentage_sequential)),
    opt("rw_sequencer", &[], Value, Supported(a::rw_sequencer)),
    opt("rwmixread", &[], Value, Supported(a::rwmix)),
    opt("rwmixwrite", &[], Value, Supported(a::rwmix)),
    opt("bs", &["blocksize"], Value, Supported(a::bs)),
    opt("bssplit", &[], Value, Supported(a::bssplit)),
    opt("bsrange", &["blocksize_range"], Value, Noted(a::bsrange,
        "bsrange runs as a bssplit with equal shares of every multiple of the smallest size in the range, the sizes fio's bsrange draws")),
    opt("blockalign", &["ba"], Value, Supported(a::blockalign)),
    opt("ioengine", &[], Value, Supported(a::ioengine)),
    opt("iodepth", &[], Value, Supported(a::iodepth)),
    opt("direct", &[], Flag, Supported(a::direct)),
    opt("buffered", &[], Flag, Supported(a::buffered)),
    opt("numjobs", &[], Value, Supported(a::numjobs)),
    opt("group_reporting", &[], Flag, Supported(a::group_reporting)),
    opt("runtime", &["timeout"], Value, Supported(a::runtime)),
    opt("time_based", &[], Flag, Supported(a::time_based)),
    opt("ramp_time", &[], Value, Supported(a::ramp_time)),
    opt("startdelay", &[], Value, Supported(a::startdelay)),
    opt("rate", &[], Value, Supported(ctl::rate)),
    opt("rate_iops", &[], Value, Supported(ctl::rate_iops)),
    opt("norandommap", &[], Flag, Supported(a::norandommap)),
    opt("randrepeat", &["allrandrepeat"], Flag, Supported(a::randrepeat)),
    opt("randseed", &[], Value, Supported(a::randseed)),
    opt("loops", &[], Value, Supported(a::loops)),
    opt("fsync", &[], Value, Supported(a::fsync)),
    opt("fdatasync", &[], Value, Supported(a::fdatasync)),
    opt("end_fsync", &[], Flag, Supported(a::end_fsync)),
    opt("stonewall", &["wait_for_previous"], Flag, Supported(a::stonewall)),
    opt("new_group", &[], Flag, Supported(a::new_group)),
    opt("io_size", &["io_limit"], Value, Supported(a::io_size)),
    opt("number_ios", &[], Value, Supported(a::number_ios)),
    opt("percentage_random", &[], Value, Supported(a::percentage_random)),
    opt("nrfiles", &["nr_files"], Value, Supported(a::nrfiles)),
    opt("clat_percentiles", &[], Flag, Supported(a::clat_percentiles)),
    opt("continue_on_error", &[], Value, Supported(er::continue_on_error)),
    opt("ignore_error", &[], Value, Supported(er::ignore_error)),
    opt("error_dump", &[], Flag, Supported(er::error_dump)),
    opt("io_submit_mode", &[], Value, Supported(a::io_submit_mode)),
    opt("random_generator", &[], Value, Noted(a::random_generator,
        "random_generator: iofit draws random offsets with splitmix64 through a seeded permutation of the blocks (every block once per pass, as fio's random map or lfsr), whichever generator is named")),
    opt("random_distribution", &[], Value, Supported(a::random_distribution)),
    opt("verify", &[], Value, Supported(d::verify)),
    opt("do_verify", &[], Flag, Supported(d::do_verify)),
    opt("invalidate", &[], Flag, Supported(a::invalidate)),
    opt("fadvise_hint", &[], Value, Supported(a::fadvise_hint)),
    opt("fallocate", &[], Value, Noted(a::fallocate,
        "fallocate: iofit writes every file in full before timing starts, so how space is reserved does not change what is measured")),
    opt("threads", &[], Value, Noted(a::nothing,
        "threads= is an option of fio's tiobench profile and changes nothing in a plain job (fio ignores it too); use numjobs for more threads")),
    opt("gtod_reduce", &[], Flag, Noted(a::check_flag,
        "gtod_reduce: iofit still times every IO (its clock read costs are in BENCHMARKS.md) and reports the latencies fio would have left out")),
    opt("disable_lat", &[], Flag, Supported(eo::disable_lat)),
    opt("disable_clat", &[], Flag, Supported(eo::disable_clat)),
    opt("disable_slat", &[], Flag, Supported(eo::disable_slat)),
    opt("disable_bw_measurement", &["disable_bw"], Flag, Supported(eo::disable_bw_measurement)),
    opt("max_latency", &[], Value, Supported(eo::max_latency)),
    opt("exitall_on_error", &[], Flag, Supported(eo::exitall_on_error)),
    opt("filename_format", &[], Value, Supported(eo::filename_format)),
    opt("unique_filename", &[], Flag, Supported(eo::unique_filename)),
    opt("pre_read", &[], Flag, Supported(eo::pre_read)),
    opt("create_only", &[], Flag, Supported(eo::create_only)),
    opt("disk_util", &[], Flag, Noted(a::check_flag, "disk_util: iofit does not report disk utilisation")),
    opt("create_on_open", &[], Flag, Noted(a::check_flag,
        "create_on_open: iofit creates and lays out every file before timing starts, so creation is never timed")),
    // io_uring engine options (fio/engine_opts.rs).
    opt("fixedbufs", &[], Flag, Supported(eo::fixedbufs)),
    opt("registerfiles", &[], Flag, Supported(eo::registerfiles)),
    opt("nonvectored", &[], Value, Supported(eo::nonvectored)),
    opt("sqthread_poll", &[], Flag, Supported(eo::sqthread_poll)),
    opt("sqthread_poll_cpu", &[], Value, Supported(eo::sqthread_poll_cpu)),
    opt("hipri", &[], Flag, Supported(eo::hipri)),
    opt("force_async", &[], Value, Supported(eo::force_async)),
    // Data verification and buffer content (fio/data.rs).
    opt("verify_only", &[], Flag, Supported(d::verify_only)),
    opt("verify_fatal", &[], Flag, Supported(d::verify_fatal)),
    opt("verify_dump", &[], Flag, Supported(d::verify_dump)),
    opt("verify_header_seed", &[], Flag, Supported(d::verify_header_seed)),
    opt("verify_state_save", &[], Flag, Supported(d::verify_state_save)),
    opt("verify_state_load", &[], Flag, Supported(d::verify_state_load)),
    opt("verify_interval", &[], Value, Supported(d::verify_interval)),
    opt("verify_offset", &[], Value, Supported(d::verify_offset)),
    opt("verify_backlog", &[], Value, Supported(d::verify_backlog)),
    opt("verify_backlog_batch", &[], Value, Supported(d::verify_backlog_batch)),
    opt("verify_pattern", &[], Value, Supported(d::verify_pattern)),
    opt("buffer_compress_percentage", &[], Value, Supported(d::buffer_compress_percentage)),
    opt("buffer_compress_chunk", &[], Value, Supported(d::buffer_compress_chunk)),
    opt("refill_buffers", &[], Flag, Supported(d::refill_buffers)),
    opt("scramble_buffers", &[], Flag, Supported(d::scramble_buffers)),
    opt("zero_buffers", &[], Flag, Supported(d::zero_buffers)),
    opt("buffer_pattern", &[], Value, Supported(d::buffer_pattern)),
    opt("dedupe_percentage", &[], Value, Supported(d::dedupe_percentage)),
    opt("dedupe_mode", &[], Value, Supported(d::dedupe_mode)),
    opt("dedupe_working_set_percentage", &[], Value, Supported(d::dedupe_working_set_percentage)),
    opt("percentile_list", &[], Value, Supported(a::percentile_list)),
    opt("lat_percentiles", &[], Flag, Supported(a::lat_percentiles)),
    opt("slat_percentiles", &[], Flag, Supported(a::slat_percentiles)),
    opt("unified_rw_reporting", &[], Value, Supported(a::unified_rw_reporting)),
    opt("significant_figures", &[], Value, Supported(a::significant_figures)),
    opt("write_hist_log", &[], Value, Noted(a::write_log,
        "write_hist_log: iofit's histogram log holds total latency in fio's bins (completion latency with psync; with io_uring it adds the submission time)")),
    opt("log_hist_msec", &[], Value, Supported(a::log_hist_msec)),
    // Pacing, syncs, files and run control (crates/jobfile/src/fio/control.rs).
    opt("thinktime", &[], Value, Supported(ctl::thinktime)),
    opt("thinktime_spin", &[], Value, Supported(ctl::thinktime_spin)),
    opt("thinktime_blocks", &[], Value, Supported(ctl::thinktime_blocks)),
    opt("thinktime_blocks_type", &[], Value, Supported(ctl::thinktime_blocks_type)),
    opt("rate_min", &["ratemin"], Value, Supported(ctl::rate_min)),
    opt("rate_iops_min", &[], Value, Supported(ctl::rate_iops_min)),
    opt("rate_cycle", &["ratecycle"], Value, Supported(ctl::rate_cycle)),
    opt("rate_process", &[], Value, Supported(ctl::rate_process)),
    opt("iodepth_batch", &["iodepth_batch_submit"], Value, Supported(ctl::iodepth_batch)),
    opt("iodepth_batch_complete_min", &["iodepth_batch_complete"], Value, Noted(ctl::completion_batching,
        "iodepth_batch_complete_min: iofit reaps every completed IO at once, waiting for at least one")),
    opt("iodepth_batch_complete_max", &[], Value, Noted(ctl::completion_batching,
        "iodepth_batch_complete_max: iofit reaps every completed IO at once")),
    opt("iodepth_low", &[], Value, Noted(ctl::completion_batching,
        "iodepth_low: iofit refills the queue to iodepth as soon as a slot frees (fio's default iodepth_low=iodepth)")),
    opt("sync", &[], Flag, Supported(ctl::sync)),
    opt("fsync_on_close", &[], Flag, Supported(ctl::fsync_on_close)),
    opt("end_syncfs", &[], Flag, Supported(ctl::end_syncfs)),
    opt("overwrite", &[], Flag, Supported(ctl::overwrite)),
    opt("openfiles", &[], Value, Supported(ctl::openfiles)),
    opt("file_service_type", &[], Value, Supported(ctl::file_service_type)),
    opt("exitall", &[], Flag, Supported(ctl::exitall)),
    opt("cpus_allowed", &[], Value, Supported(ctl::cpus_allowed)),
    opt("cpumask", &[], Value, Supported(ctl::cpumask)),
    opt("cpus_allowed_policy", &[], Value, Supported(ctl::cpus_allowed_policy)),
    opt("nice", &[], Value, Supported(ctl::nice)),
    opt("prio", &[], Value, Supported(ctl::prio)),
    opt("prioclass", &[], Value, Supported(ctl::prioclass)),
    opt("ioscheduler", &[], Value, Supported(ctl::ioscheduler)),
    opt("steadystate", &["ss"], Value, Supported(ctl::steadystate)),
    opt("steadystate_duration", &["ss_dur"], Value, Supported(ctl::ss_dur)),
    opt("steadystate_ramp_time", &["ss_ramp"], Value, Supported(ctl::ss_ramp)),
    opt("latency_target", &[], Value, Supported(ctl::latency_target)),
    opt("latency_window", &[], Value, Supported(ctl::latency_window)),
    opt("latency_percentile", &[], Value, Supported(ctl::latency_percentile)),
    opt("latency_run", &[], Flag, Supported(ctl::latency_run)),
    opt("wait_for", &[], Value, Supported(ctl::wait_for)),
    opt("unlink", &[], Flag, Supported(ctl::unlink)),
    opt("unlink_each_loop", &[], Flag, Supported(ctl::unlink_each_loop)),
    opt("exit_what", &[], Value, Supported(ctl::exit_what)),
    opt("bs_unaligned", &["blocksize_unaligned"], Flag, Supported(ctl::bs_unaligned)),
    // Start offsets, flow control, overlap, priorities (fio compatibility pass, issue 12).
    opt("offset_increment", &[], Value, Supported(a::offset_increment)),
    opt("offset_align", &[], Value, Supported(a::offset_align)),
    opt("flow", &[], Value, Supported(cm::flow)),
    opt("flow_id", &[], Value, Supported(cm::flow_id)),
    opt("flow_sleep", &[], Value, Supported(cm::flow_sleep)),
    opt("flow_watermark", &[], Value, Noted(a::nothing,
        "flow_watermark is deprecated in fio, which ignores it; so does iofit")),
    opt("serialize_overlap", &[], Flag, Supported(cm::serialize_overlap)),
    opt("log_prio", &[], Flag, Supported(cm::log_prio)),
    opt("log_max_value", &[], Flag, Supported(cm::log_max_value)),
    opt("cmdprio_percentage", &[], Value, Supported(cm::cmdprio_percentage)),
    opt("cmdprio_class", &[], Value, Supported(cm::cmdprio_class)),
    opt("cmdprio", &[], Value, Supported(cm::cmdprio)),
    opt("cmdprio_bssplit", &[], Value, Supported(cm::cmdprio_bssplit)),
    opt("dedupe_global", &[], Flag, Supported(d::dedupe_global)),
    opt("fill_device", &["fill_fs"], Flag, Supported(cm::fill_device)),
    opt("verify_async", &[], Value, Noted(a::nothing,
        "verify_async: iofit verifies in the job's own thread as each read completes; no verify threads are started")),
    opt("verify_async_cpus", &[], Value, Noted(a::nothing,
        "verify_async_cpus: iofit starts no verify threads to pin")),
    // IO logs (crates/jobfile/src/fio/replay.rs).
    opt("read_iolog", &[], Value, Supported(rp::read_iolog)),
    opt("read_iolog_chunked", &[], Flag, Supported(rp::read_iolog_chunked)),
    opt("replay_no_stall", &[], Flag, Supported(rp::replay_no_stall)),
    opt("replay_time_scale", &[], Value, Supported(rp::replay_time_scale)),
    opt("replay_redirect", &[], Value, Supported(rp::replay_redirect)),
    opt("replay_align", &[], Value, Supported(rp::replay_align)),
    opt("replay_scale", &[], Value, Supported(rp::replay_scale)),
    opt("replay_skip", &[], Value, Supported(rp::replay_skip)),
    opt("write_iolog", &[], Value, Supported(rp::write_iolog)),
    opt("experimental_verify", &[], Flag, Noted(a::check_flag,
        "experimental_verify: iofit checks the written blocks from its own record of the writes (fio replays its random sequence instead); every block is checked the same")),
    opt("trim_verify_zero", &[], Flag, Noted(a::check_flag,
        "trim_verify_zero: it only acts in fio's verify-trim (trim_percentage), which iofit refuses; trim jobs run without it")),
    opt("create_serialize", &[], Flag, Noted(a::check_flag,
        "create_serialize: iofit lays out every file before any job starts, one at a time, whatever it says")),
];

/// Groups of fio options iofit refuses, with the reason each group shares.
#[rustfmt::skip]
const REFUSED: &[(&[&str], &str)] = &[
    (&["verify_pattern_interval", "verify_policy",
       "verify_write_sequence", "verifysort", "verifysort_nr",
       "verify_bytchk", "verify_mode"],
     "iofit verifies in the job's own thread, in offset order, with every block's full header (verify= and its family are supported); this variant is not implemented"),
    (&["zonemode", "zonesize", "zonerange", "zoneskip", "zonecapacity", "max_open_zones",
       "job_max_open_zones", "ignore_zone_limits", "zone_reset_frequency",
       "zone_reset_threshold", "read_beyond_wp", "write_zone_remainder",
       "recover_zbd_write_error"],
     "zoned block devices (and fio's zone modes) need hardware and zone handling iofit does not have"),
    (&["fdp", "fdp_pli", "plids", "fdp_pli_select", "plid_select", "dataplacement",
       "data_placement", "dp_scheme", "apptag", "apptag_mask", "cdb_len", "cmd_type", "deac",
       "md_per_io_size", "pi_act", "pi_chk", "read_mode", "write_mode", "readfua", "writefua"],
     "NVMe/SCSI passthrough features (placement, protection information, FUA) need an engine iofit does not have"),
    (&["merge_blktrace_file", "merge_blktrace_iters", "merge_blktrace_scalars"],
     "merging blktrace binary logs is not implemented: iofit replays fio's text IO logs (read_iolog) only"),
    (&["cmdprio_hint", "priohint"],
     "IO priority hints (command duration limits) need drives with CDL, and iofit sets only the class and level of an IO priority"),
    (&["numa_cpu_nodes", "numa_mem_policy"], "NUMA placement needs libnuma, which iofit does not use"),
    (&["cgroup", "cgroup_nodelete", "cgroup_weight"], "cgroup placement is not implemented in iofit"),
    (&["exec_prerun", "exec_postrun"], "iofit does not run commands from job files"),
    (&["trim_percentage", "trim_backlog", "trim_backlog_batch"],
     "fio's verify-trim (trimming a share of the blocks a verify job wrote, then checking that they read back as zeros) is not implemented in iofit; rw=trim, randtrim, trimwrite and randtrimwrite run"),
    (&["uid", "gid", "lockmem", "hugepage-size", "iomem_align",
       "mem_align", "gtod_cpu", "lockfile", "profile", "sprandom", "spr_cs",
       "spr_num_regions", "spr_op", "gpu_dev_id", "comm",        "job_start_clock_id", "uncached", "nowait", "userspace_reap",
       "hipri_percentage", 
       "softrandommap", "random_sequence_stride", "num_range", "thinkcycles",
       "allow_mounted_write", "create_fsync", "opendir",
       "file_append", "filetype", "write_barrier",
              "bs_is_seq_rand",
       "rwmixcycle",        "thinktime_iotime",        "rate_ignore_thinktime",        "sync_file_range",
                    "steadystate_check_interval",
       "ss_interval",        
       "block_error_percentiles", 
       "log_hist_coarseness", "log_alternate_epoch",
       "log_alternate_epoch_clock_id",
       "log_compression", "log_compression_cpus", "log_store_compressed", "log_entries",
       "log_window_value", "log_issue_time",
       "stats", "ramp_size", "unit_base"],
     "iofit does not implement it yet"),
];

pub(crate) struct Table {
    options: Vec<FioOption>,
    by_name: HashMap<&'static str, usize>,
    /// Sorted, so that "did you mean" picks the same name on every run.
    sorted_names: Vec<&'static str>,
}

impl Table {
    /// The option named `key` (by name or alias).
    pub fn find(&self, key: &str) -> Option<&FioOption> {
        self.by_name.get(key).map(|&index| &self.options[index])
    }

    /// Every option, in the table's order (honoured ones first).
    pub fn rows(&self) -> impl Iterator<Item = &FioOption> + '_ {
        self.options.iter()
    }

    /// Every name and alias, for "did you mean" hints.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.sorted_names.iter().copied()
    }
}

/// The table, built once.
pub(crate) fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut options: Vec<FioOption> = HONOURED
            .iter()
            .map(|o| opt(o.name, o.aliases, o.takes, o.status))
            .collect();
        for (names, why) in REFUSED {
            for name in *names {
                options.push(opt(name, &[], Value, Refused(why)));
            }
        }
        for option in &mut options {
            option.role = role_of(option.name, option.status);
            option.bounds = bounds_of(option.name);
            option.render = crate::fio::render::of(option.name);
            option.takes_time = takes_time(option.name);
        }
        let mut by_name = HashMap::new();
        for (index, option) in options.iter().enumerate() {
            for name in std::iter::once(option.name).chain(option.aliases.iter().copied()) {
                let earlier = by_name.insert(name, index);
                debug_assert!(earlier.is_none(), "fio option {name} is in the table twice");
            }
        }
        let mut sorted_names: Vec<&'static str> = by_name.keys().copied().collect();
        sorted_names.sort_unstable();
        Table {
            options,
            by_name,
            sorted_names,
        }
    })
}

/// Options that never take a value on fio's command line (`--time_based`), so that
/// `--time_based --name=x` does not swallow the next argument.
pub(crate) fn is_flag(key: &str) -> bool {
    table().find(key).is_some_and(|o| o.takes == Flag)
}

/// Options of the fio program itself (its `--help`), not of a job: written on iofit's command
/// line they reach the job parser, where a "did you mean" among job options would mislead.
/// `None` for a name that is not one of them.
pub fn fio_program_option(key: &str) -> Option<&'static str> {
    const PROGRAM: &str = "it is an option of the fio program, not of a job, and iofit has no \
                           such option (iofit run --help lists iofit's own)";
    match key.to_ascii_lowercase().replace('_', "-").as_str() {
        "bandwidth-log"
        | "minimal"
        | "append-terse"
        | "terse-version"
        | "showcmd"
        | "alloc-size"
        | "warnings-fatal"
        | "max-jobs"
        | "server"
        | "daemonize"
        | "client"
        | "remote-config"
        | "idle-prof"
        | "inflate-log"
        | "trigger-file"
        | "trigger-timeout"
        | "trigger"
        | "trigger-remote"
        | "aux-path"
        | "debug"
        | "merge-blktrace-only"
        | "cmdhelp"
        | "enghelp"
        | "crctest" => Some(PROGRAM),
        _ => None,
    }
}
