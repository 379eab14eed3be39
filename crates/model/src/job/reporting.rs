//! How a job's results are reported (fio's reporting options and log files). Nothing here
//! changes the IO; the renderers and the engine's log writers read it.

use serde::{Deserialize, Serialize};
/// How a job's results are reported (fio's reporting options). Nothing here changes the IO;
/// the renderers read it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Reporting {
    /// The job section's own options as written (`key`, `value`), in order: fio's JSON
    /// `"job options"`. Bare flags are left out, as fio leaves them out.
    pub job_options: Vec<(String, String)>,
    /// The `[global]` options the job inherited, as written: fio's JSON `"global options"`.
    pub global_options: Vec<(String, String)>,
    /// fio `percentile_list`, ascending; empty means fio's default list.
    pub percentile_list: Vec<f64>,
    /// fio `clat_percentiles` (default on), `lat_percentiles`, `slat_percentiles`.
    pub clat_percentiles: bool,
    pub lat_percentiles: bool,
    pub slat_percentiles: bool,
    /// fio `unified_rw_reporting`: reads and writes reported apart, together as `mixed`, or
    /// both.
    pub unified_rw_reporting: UnifiedRw,
    /// fio `significant_figures` (1..=10, default 4): digits of the text output's rates.
    pub significant_figures: u8,
}

impl Default for Reporting {
    fn default() -> Self {
        Reporting {
            job_options: Vec::new(),
            global_options: Vec::new(),
            percentile_list: Vec::new(),
            clat_percentiles: true,
            lat_percentiles: false,
            slat_percentiles: false,
            unified_rw_reporting: UnifiedRw::None,
            significant_figures: 4,
        }
    }
}

/// fio's `unified_rw_reporting` values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnifiedRw {
    /// `none`/`0`: read and write apart (fio's default).
    #[default]
    None,
    /// `mixed`/`1`: one `mixed` direction instead of read and write.
    Mixed,
    /// `both`/`2`: read, write, and `mixed` as well.
    Both,
}

pub(super) fn is_default_reporting(reporting: &Reporting) -> bool {
    *reporting == Reporting::default()
}

/// fio's `write_bw_log`, `write_iops_log`, `write_lat_log`: file-name prefixes of the logs a
/// job writes (`PREFIX_bw.N.log`, N the clone's number in the run), averaged over
/// `JobSpec::log_interval` (fio `log_avg_msec`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FioLogs {
    pub bw_prefix: Option<String>,
    pub iops_prefix: Option<String>,
    pub lat_prefix: Option<String>,
    /// fio `write_hist_log`: prefix of `PREFIX_clat_hist.N.log`.
    #[serde(default)]
    pub hist_prefix: Option<String>,
    /// fio `log_offset=1`: an offset column (0 in averaged logs) before the priority.
    #[serde(default)]
    pub with_offset: bool,
    /// fio `log_unix_epoch=1`: times in ms since the Unix epoch, not since the job's start.
    #[serde(default)]
    pub unix_epoch: bool,
    /// fio `per_job_logs=0`: one `PREFIX_bw.log` shared by every clone, not one per clone.
    #[serde(default)]
    pub shared_file: bool,
    /// No `log_avg_msec`: the bw, iops and lat logs get one line per IO (fio's default),
    /// written by the engine as IOs complete.
    #[serde(default)]
    pub per_io: bool,
    /// fio `log_prio=1`: the logs' last column is the IO's ioprio value, not 0/1.
    #[serde(default)]
    pub with_prio: bool,
    /// fio `log_max_value=1`: an averaged latency log (`log_avg_msec`) holds each window's
    /// longest latency instead of its mean (bw and iops logs have one sample per window, so
    /// their lines are the same either way).
    #[serde(default)]
    pub max_value: bool,
}

impl FioLogs {
    pub fn any(&self) -> bool {
        self.bw_prefix.is_some()
            || self.iops_prefix.is_some()
            || self.lat_prefix.is_some()
            || self.hist_prefix.is_some()
    }
}
