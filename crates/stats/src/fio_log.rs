//! The lines of fio's interval logs, as fio 3.33 writes them. Averaged logs (`write_bw_log`,
//! `write_iops_log`, `write_lat_log` with `log_avg_msec`): one line per window and direction,
//! `TIME_MS, VALUE, DDIR, 0, 0` — the window's end in milliseconds from the job's start (from
//! the Unix epoch with `log_unix_epoch=1`), the value (bandwidth in KiB/s, IOs per second, or
//! mean latency in ns), 0 for reads, 1 for writes and 2 for trims, then block size and
//! priority, both 0 in averaged logs; `log_offset=1` adds an offset column (0) before the
//! priority. A window without IO in a direction gets 0 for bandwidth and IOPS and no latency
//! line, as in fio. `write_lat_log` writes fio's three latency logs: `lat` (total), `clat`
//! (completion) and `slat` (submission; empty for synchronous engines, as fio leaves it).
//! Histogram logs (`write_hist_log` with `log_hist_msec`): `TIME_MS, DDIR, BS, C0, ..., C1855`,
//! the window's latency counts in fio's 1856 bins (`FIO_IO_U_PLAT_NR`), which
//! `fiologparser_hist.py` reads.
//!
//! The engine renders these lines from each clone's intervals as they close and streams them
//! to disk; the report crate renders a whole series with the same functions.

use crate::result::IntervalSample;
use crate::{fio_bins, Ddir};
use iofit_model::job::RwMode;
use iofit_model::units::Millis;
use std::fmt::Write;

/// Which log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogKind {
    Bandwidth,
    Iops,
    Latency,
    /// fio's `clat` and `slat` logs, written with `write_lat_log` beside the `lat` log.
    CompletionLatency,
    SubmissionLatency,
    /// fio's `clat_hist` log.
    Histogram,
}

impl LogKind {
    /// fio's file-name part: `PREFIX_bw.N.log`.
    pub fn suffix(self) -> &'static str {
        match self {
            LogKind::Bandwidth => "bw",
            LogKind::Iops => "iops",
            LogKind::Latency => "lat",
            LogKind::CompletionLatency => "clat",
            LogKind::SubmissionLatency => "slat",
            LogKind::Histogram => "clat_hist",
        }
    }
}

/// How the lines are written: fio's `log_offset` and `log_unix_epoch`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LogStyle {
    pub with_offset: bool,
    /// Added to every time: the job's start in ms since the epoch, or 0.
    pub time_base_ms: Millis<u64>,
    /// The block size written in histogram lines.
    pub block_size: u64,
    /// fio `log_prio=1`: the priority column in fio's `0x%04x` form (0x0000 in averaged lines).
    pub with_prio: bool,
    /// fio `log_max_value=1`: latency lines hold the window's longest latency, which is kept
    /// per direction (the series must be taken with its directions).
    pub log_max: bool,
}

/// The directions a job's logs have lines for (fio's `td_read`/`td_write`/`td_trim`): a
/// trim job's "writes" are its trims, and trimwrite does both.
pub fn directions_of(rw: RwMode) -> [bool; 3] {
    let trims = rw.has_trims();
    let writes = rw.has_writes() && (!trims || rw.is_trimwrite());
    [rw.has_reads(), writes, trims]
}

/// The log text for one clone's series; `wanted[ddir]` says which directions ([`Ddir`]: read,
/// write, trim) the job does.
pub fn render(series: &[IntervalSample], kind: LogKind, wanted: [bool; 3]) -> String {
    render_with(series, kind, wanted, &LogStyle::default())
}

/// As [`render`], in `style`.
pub fn render_with(
    series: &[IntervalSample],
    kind: LogKind,
    wanted: [bool; 3],
    style: &LogStyle,
) -> String {
    let mut out = String::new();
    for sample in series {
        render_sample(&mut out, sample, kind, wanted, style);
    }
    out
}

/// Appends one window's lines (one per direction the job does) to `out`.
pub fn render_sample(
    out: &mut String,
    sample: &IntervalSample,
    kind: LogKind,
    wanted: [bool; 3],
    style: &LogStyle,
) {
    let seconds = sample.interval_ms.get().max(1) as f64 / 1000.0;
    let end_ms = (style.time_base_ms + sample.start_ms + sample.interval_ms).get();
    for direction in Ddir::ALL {
        if !wanted[direction.index()] {
            continue;
        }
        let (ios, bytes) = sample.of(direction);
        let ddir = direction.index() as u8;
        // A job of several directions keeps its latency per direction (fio's line per
        // direction); otherwise the interval's own numbers are the one direction's.
        let own = sample
            .by_direction
            .as_ref()
            .and_then(|d| d.get(direction.index()));
        let (latency_ns, clat_ns, slat_ns) = match own {
            // fio keeps a max only where it takes samples: the slat log of a synchronous
            // engine stays empty (no samples), so a max of 0 is written as no line.
            Some(d) if style.log_max => (
                d.latency_max_ns.as_f64(),
                d.clat_max_ns.as_f64(),
                d.slat_max_ns.as_f64(),
            ),
            Some(d) => (d.latency_mean_ns, d.clat_mean_ns, d.slat_mean_ns),
            None => (
                sample.latency_mean_ns,
                sample.clat_mean_ns,
                sample.slat_mean_ns,
            ),
        };
        let value = match kind {
            LogKind::Histogram => {
                let bins = own.map_or(&sample.latency_bins, |d| &d.latency_bins);
                histogram_line(out, end_ms, ddir, style.block_size, bins);
                continue;
            }
            LogKind::Bandwidth => (bytes as f64 / 1024.0 / seconds).round() as u64,
            LogKind::Iops => (ios as f64 / seconds).round() as u64,
            LogKind::Latency | LogKind::CompletionLatency | LogKind::SubmissionLatency
                if ios == 0 =>
            {
                continue
            }
            LogKind::Latency => latency_ns.get().round() as u64,
            LogKind::CompletionLatency => clat_ns.get().round() as u64,
            // Synchronous engines have no submission latency: fio's slat log is empty.
            LogKind::SubmissionLatency if slat_ns.get() == 0.0 => continue,
            LogKind::SubmissionLatency => slat_ns.get().round() as u64,
        };
        let offset = if style.with_offset { "0, " } else { "" };
        let prio = if style.with_prio { "0x0000" } else { "0" };
        let _ = writeln!(out, "{end_ms}, {value}, {ddir}, 0, {offset}{prio}");
    }
}

/// One histogram line: time, direction, block size, then the count of every fio bin. Most
/// bins are empty: they are written without formatting (a line is 1,859 numbers).
fn histogram_line(out: &mut String, end_ms: u64, ddir: u8, bs: u64, bins: &[(u64, u64)]) {
    let mut counts = vec![0u64; fio_bins::PLAT_NR as usize];
    for &(value, count) in bins {
        counts[fio_bins::index_of(value) as usize] += count;
    }
    out.reserve(counts.len() * 3 + 32);
    let _ = write!(out, "{end_ms}, {ddir}, {bs}");
    for count in counts {
        if count == 0 {
            out.push_str(", 0");
        } else {
            let _ = write!(out, ", {count}");
        }
    }
    out.push('\n');
}

/// Bytes of one histogram line with every bin empty (its usual size: `", 0"` per bin).
pub const HISTOGRAM_LINE_BYTES: u64 = fio_bins::PLAT_NR * 3 + 24;

/// Bytes of one averaged line, about (time, value and the four small columns).
pub const AVERAGED_LINE_BYTES: u64 = 28;
