//! The words of a summary: the workload's shape (read share, random share, IO sizes), its
//! latency and queue, and the volume's guessed role.

use super::stats::{fmt_num, sequential_share, tidy, RANDOM_METHOD};
use super::volumes::{AtPercentile, Totals};
use super::{SizingOptions, ASSUMED_IO_SIZE_BYTES};

use crate::capture::Capture;
use iofit_model::requirements::VolumeRole;
use iofit_model::requirements::BYTES_NOT_MEASURED;

/// The workload's shape over the whole capture.
pub(super) struct Shape {
    pub(super) io_size_bytes: f64,
    pub(super) read_pct: f64,
    pub(super) random_pct: f64,
    /// Share of sequential IO, 0..1 (the role guess uses it).
    pub(super) sequential: f64,
}

/// IO size, read % and random % over the whole capture, each with its derivation line.
pub(super) fn describe_shape(
    capture: &Capture,
    totals: &Totals,
    bytes_known: bool,
    derivation: &mut Vec<String>,
) -> Shape {
    let io_size_bytes = if !bytes_known {
        ASSUMED_IO_SIZE_BYTES
    } else if totals.ios > 0.0 {
        (totals.bytes / totals.ios).round().max(1.0)
    } else {
        4096.0
    };
    if !bytes_known {
        derivation.push(format!(
            "{BYTES_NOT_MEASURED}: the capture has IO counts but no byte counters (Disk Read \
             Bytes/sec, Disk Write Bytes/sec); throughput_mb_s 0 and io_size_bytes {} are \
             placeholders (8 KiB, SQL Server's page), not measurements: capture the byte \
             counters and profile again",
            ASSUMED_IO_SIZE_BYTES
        ));
    } else if totals.ios > 0.0 {
        derivation.push(format!(
            "io_size_bytes {} = all bytes / all IOs over the capture ({:.1} KiB)",
            io_size_bytes,
            io_size_bytes / 1024.0
        ));
    } else {
        derivation.push("io_size_bytes 4096: no IO in the capture, a placeholder".into());
    }
    let read_pct = if totals.ios > 0.0 {
        tidy(totals.reads / totals.ios * 100.0)
    } else {
        0.0
    };
    if totals.ios > 0.0 {
        derivation.push(format!(
            "read_pct {} = reads / all IOs over the capture{}",
            fmt_num(read_pct),
            if capture.read_split_estimated {
                " (an estimate: sar gives transfers only, split into reads and writes by byte \
                 share)"
            } else {
                ""
            }
        ));
    } else {
        derivation.push("read_pct 0: no IO in the capture, a placeholder".into());
    }
    let merged_total = if totals.merges_known {
        totals.merges
    } else {
        f64::NAN
    };
    let sequential = if totals.ios > 0.0 {
        sequential_share(totals.bytes / totals.ios, merged_total, totals.ios)
    } else {
        0.0
    };
    let random_pct = tidy(100.0 * (1.0 - sequential));
    if !bytes_known {
        derivation.push(
            "random_pct 100: assumed (no IO sizes or merges to estimate it from)".to_string(),
        );
    } else {
        derivation.push(format!(
            "random_pct {} estimated from the capture's IO size{} ({RANDOM_METHOD})",
            fmt_num(random_pct),
            if totals.merges_known {
                " and merges (rrqm/s + wrqm/s)"
            } else {
                " only (this source has no merge counts)"
            }
        ));
    }
    Shape {
        io_size_bytes,
        read_pct,
        random_pct,
        sequential,
    }
}

/// The latency requirement (only with --latency-target) and the queue depth's derivation.
pub(super) fn describe_latency_and_queue(
    options: &SizingOptions,
    at: &AtPercentile,
    derivation: &mut Vec<String>,
) -> Option<f64> {
    let p = options.percentile;
    let observed_latency = at.latency_ms.filter(|l| *l > 0.0).map(tidy);
    // Today's latency often comes from local disks far faster than any cloud disk, so it is a
    // hard requirement only when asked for; otherwise it stays in `observed` for comparison.
    let latency_ms = observed_latency.filter(|_| options.latency_target);
    match (observed_latency, options.latency_target) {
        (Some(l), true) => derivation.push(format!(
            "latency_ms {} = p{} of the per-sample average latency (IO-weighted r_await/w_await; \
             --latency-target): the design must be at least as fast; comfort and growth do \
             not apply to latency",
            fmt_num(l),
            fmt_num(p)
        )),
        (Some(l), false) => derivation.push(format!(
            "latency_ms: not required; the application sees {} ms at p{} today (observed; \
             pass --latency-target to require it, or set sizing.latency_ms by hand)",
            fmt_num(l),
            fmt_num(p)
        )),
        (None, _) => {
            derivation.push("latency_ms: none, the capture has no latency counters".into())
        }
    }
    if let Some(q) = at.queue_depth {
        derivation.push(format!(
            "queue_depth {} = p{} of the average queue size (aqu-sz / Current Disk Queue Length)",
            fmt_num(q),
            fmt_num(p)
        ));
    }
    latency_ms
}

/// An idle volume's role: from its label's words, else data by default, never guessed from an
/// IO pattern it does not have.
pub(super) fn idle_role(label: &str) -> (VolumeRole, String) {
    let (role, words) = guess_role(label, 0.0, None, 0.0);
    if words.contains("(guessed)") {
        (
            VolumeRole::Data,
            "role data (default): no IO in the capture, so no pattern to tell a log from \
             data; name the volume (--label log) or set role by hand"
                .into(),
        )
    } else {
        (role, words)
    }
}

/// Role from the label's words, else from the IO pattern: mostly sequential small writes are a
/// database log.
/// `sequential` is `None` when the source has no merge counts (PerfMon, sar): then a
/// write-only volume of small IOs is taken for a log.
pub(super) fn guess_role(
    label: &str,
    write_pct: f64,
    sequential: Option<f64>,
    io_size_bytes: f64,
) -> (VolumeRole, String) {
    let lower = label.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    if has(&["log", "wal", "redo", "journal", "xlog"]) {
        return (
            VolumeRole::Log,
            format!("role log: from the label '{label}'"),
        );
    }
    if has(&["temp", "tmp"]) {
        return (
            VolumeRole::Temp,
            format!("role temp: from the label '{label}'"),
        );
    }
    if lower == "os" || has(&["boot", "system"]) {
        return (VolumeRole::Os, format!("role os: from the label '{label}'"));
    }
    let small = io_size_bytes <= 256.0 * 1024.0;
    let Some(sequential) = sequential else {
        if write_pct >= 90.0 && small {
            return (
                VolumeRole::Log,
                format!(
                    "role log (guessed): {write_pct:.0} % writes of {:.0} KiB; this source has no \
                     merge counts to show sequential IO, so a write-only disk of small IOs is \
                     taken for a log; pass --label to override",
                    io_size_bytes / 1024.0
                ),
            );
        }
        return (
            VolumeRole::Data,
            format!(
                "role data (guessed): {write_pct:.0} % writes; a log would be nearly all writes"
            ),
        );
    };
    if write_pct >= 80.0 && sequential >= 0.5 && small {
        return (
            VolumeRole::Log,
            format!(
                "role log (guessed): {:.0} % writes, {:.0} % sequential (estimated), {:.0} KiB \
                 IOs: the pattern of a database log",
                write_pct,
                sequential * 100.0,
                io_size_bytes / 1024.0
            ),
        );
    }
    (
        VolumeRole::Data,
        format!(
            "role data (guessed): {:.0} % writes, {:.0} % sequential (estimated); a log would be \
             mostly sequential small writes",
            write_pct,
            sequential * 100.0
        ),
    )
}
