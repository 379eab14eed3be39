//! What reading a capture told the user, as data: one kind per note with the figures and
//! names behind it, so a caller (and a test) tells the notes apart without reading words.
//! `Display` is the sentence `profile` prints after `iofit: note: `.

use crate::commands::{AZ_COMMAND, BYTES_COMMAND};
use crate::error::excerpt;
use iofit_model::units::Seconds;
use std::fmt;

/// One note on a capture: what a parser did, what the capture lacks, or what a cloud's
/// throttling metrics say.
#[derive(Clone, Debug, PartialEq)]
pub enum CaptureNote {
    /// iostat's first report (averages since boot) was dropped.
    FirstReportSkipped { file: String },
    /// Only `stamped` of the `reports` iostat reports carry a time stamp.
    FewTimeStamps {
        file: String,
        stamped: u64,
        reports: usize,
    },
    /// Every line carries a logger's time stamp, which reports without `-t` take.
    LoggerTimeStamps { file: String },
    /// A PerfMon capture holds only the disks' `_Total` instance: sized as one volume.
    PerfmonTotalOnly { file: String },
    /// A PerfMon capture has IO counts but no byte counters.
    PerfmonNoBytes { file: String },
    /// PerfMon disks left out because not all four IO counters were captured.
    PerfmonIncompleteDisks { file: String, disks: Vec<String> },
    /// Azure metrics that had no points in the time span.
    AzureNoValues { file: String, metrics: Vec<String> },
    /// `points` Azure points without a value were left out.
    AzureGaps { file: String, points: usize },
    /// Azure metrics for which Azure returned no data.
    AzureNoData { file: String, metrics: Vec<String> },
    /// Some Azure disks lack Read/Write Bytes/sec.
    AzureNoBytes { file: String },
    /// No consumed-percentage metrics: no throttling verdict.
    AzureNoConsumedPct { file: String },
    /// Captures of two tools were combined (their names, as `Tool::name` says them).
    CombinedTools {
        first: &'static str,
        then: &'static str,
    },
    /// `file` is sampled at another interval than the files before it.
    MixedIntervals {
        file: String,
        interval_s: Seconds,
        before_s: Seconds,
    },
    /// The partitions of `disk` were left out (the disk's counters include their IO).
    PartitionsLeftOut {
        disk: String,
        partitions: Vec<String>,
    },
    /// Several block-extended (major 259) numbers, each sized as a disk.
    BlockExtended { devices: Vec<String> },
    /// The stacked volumes were left out (their disks' counters include their IO).
    StackedLeftOut { volumes: Vec<String> },
    /// `--device` named a stacked volume (`what` it is): the disks under it are left out.
    StackedChosen { volume: String, what: String },
    /// A Cloud Monitoring series (`index`, `metric`) that is no disk metric iofit reads.
    GcpSeriesLeftOut {
        file: String,
        index: usize,
        metric: String,
    },
    /// No `throttled_*` disk metrics: no Cloud Monitoring verdict.
    GcpNoThrottledMetrics { file: String },
    /// The Cloud Monitoring verdict for a disk that was never throttled.
    GcpNeverThrottled { device: String },
    /// The Cloud Monitoring verdict for a disk throttled in `held` of `periods` periods,
    /// `throttled_per_100` throttled operations per 100 done.
    GcpThrottled {
        device: String,
        held: usize,
        periods: usize,
        throttled_per_100: f64,
    },
    /// A CloudWatch result (`index`, `name`) that names no EBS metric iofit reads.
    CloudWatchResultLeftOut {
        file: String,
        index: usize,
        name: String,
    },
    /// A CloudWatch result whose StatusCode is not Complete.
    CloudWatchIncomplete {
        file: String,
        name: String,
        status_code: String,
    },
    /// The CloudWatch verdict for a balance that ran empty in `empty` of `periods` periods.
    BalanceEmpty {
        balance: EbsBalance,
        empty: usize,
        periods: usize,
    },
    /// The CloudWatch verdict for a balance that never ran out (lowest `lowest_pct`).
    BalanceKept {
        balance: EbsBalance,
        lowest_pct: f64,
    },
    /// No EBS balance metrics: no CloudWatch verdict.
    CloudWatchNoBalances { file: String },
    /// `profile --live` was cut short by a signal after `elapsed_s` of `duration_s`.
    CutShort {
        elapsed_s: Seconds,
        duration_s: Seconds,
        samples: u64,
    },
}

/// Which EBS burst balance a CloudWatch verdict is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EbsBalance {
    /// The instance's EBS IO balance (EBSIOBalance%).
    InstanceIo,
    /// The instance's EBS byte balance (EBSByteBalance%).
    InstanceBytes,
    /// A volume's burst credits (BurstBalance); `None` when the series names no volume.
    Volume(Option<String>),
}

impl EbsBalance {
    /// What holds IO back while the balance is empty.
    fn baseline(&self) -> &'static str {
        match self {
            EbsBalance::Volume(_) => "the volume's baseline IOPS",
            _ => "the instance's EBS baseline",
        }
    }
}

impl fmt::Display for EbsBalance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EbsBalance::InstanceIo => f.write_str("the instance's EBS IO balance (EBSIOBalance%)"),
            EbsBalance::InstanceBytes => {
                f.write_str("the instance's EBS byte balance (EBSByteBalance%)")
            }
            EbsBalance::Volume(volume) => write!(
                f,
                "{}'s burst credits (BurstBalance)",
                volume.as_deref().unwrap_or("a volume")
            ),
        }
    }
}

impl fmt::Display for CaptureNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CaptureNote::FirstReportSkipped { file } => write!(
                f,
                "{file}: skipped the first report (iostat's averages since boot); pass \
                 --keep-first if the capture was made with `iostat -y`"
            ),
            CaptureNote::FewTimeStamps {
                file,
                stamped,
                reports,
            } => write!(
                f,
                "{file}: only {stamped} of {reports} reports carry a time stamp"
            ),
            CaptureNote::LoggerTimeStamps { file } => write!(
                f,
                "{file}: every line carries a logger's time stamp; reports without iostat's own \
                 -t stamp take it"
            ),
            CaptureNote::PerfmonTotalOnly { file } => write!(
                f,
                "{file}: only the _Total instance of the disks was captured: all disks are sized \
                 together as one volume; capture `\\PhysicalDisk(*)\\...` to size each disk"
            ),
            CaptureNote::PerfmonNoBytes { file } => write!(
                f,
                "{file}: no Disk Read Bytes/sec or Disk Write Bytes/sec: IOPS and read % are \
                 sized, throughput and IO size are not measured; capture them too with \
                 {BYTES_COMMAND}"
            ),
            CaptureNote::PerfmonIncompleteDisks { file, disks } => write!(
                f,
                "{file}: left out {} (not all of Disk Reads/sec, Disk Writes/sec, Disk Read \
                 Bytes/sec, Disk Write Bytes/sec captured)",
                disks.join(", ")
            ),
            CaptureNote::AzureNoValues { file, metrics } => write!(
                f,
                "{file}: no values for {} (Azure returned no points in the time span)",
                metrics.join(", ")
            ),
            CaptureNote::AzureGaps { file, points } => write!(
                f,
                "{file}: {points} points without a value were left out (the interval still open \
                 when the metrics were listed, or gaps); a report lacking a disk's IOPS is not \
                 sized for it"
            ),
            CaptureNote::AzureNoData { file, metrics } => write!(
                f,
                "{file}: Azure returned no data for {}",
                metrics.join(", ")
            ),
            CaptureNote::AzureNoBytes { file } => write!(
                f,
                "{file}: no Read/Write Bytes/sec for some disks: throughput and IO size are not \
                 measured there; add them to {AZ_COMMAND}"
            ),
            CaptureNote::AzureNoConsumedPct { file } => write!(
                f,
                "{file}: no consumed-percentage metrics, so no throttling verdict; add 'VM \
                 Uncached IOPS Consumed Percentage' and the other five to {AZ_COMMAND}"
            ),
            CaptureNote::CombinedTools { first, then } => {
                write!(f, "combined {first} with {then}")
            }
            CaptureNote::MixedIntervals {
                file,
                interval_s,
                before_s,
            } => write!(
                f,
                "{file} is sampled every {} s, the files before it every {} s: percentiles mix \
                 both; compare like with like (profile each file alone, or use --window)",
                interval_s.0, before_s.0
            ),
            CaptureNote::PartitionsLeftOut { disk, partitions } => write!(
                f,
                "left out the partitions of {disk} ({}): the disk's counters include their IO; \
                 name one with --device to size it alone",
                partitions.join(", ")
            ),
            CaptureNote::BlockExtended { devices } => write!(
                f,
                "{} are block-extended numbers (major 259: NVMe disks and their partitions \
                 alike), each sized as a disk; if some are partitions of others their IO counts \
                 twice: capture with `sar -d -p` for names, or pick with --device",
                devices.join(", ")
            ),
            CaptureNote::StackedLeftOut { volumes } => write!(
                f,
                "left out the stacked volumes {} (device-mapper/LVM, md RAID, DRBD, bcache or \
                 zvols, stacked on the disks in the capture): the disks' counters include their \
                 IO; name one with --device to size it instead of its disks",
                volumes.join(", ")
            ),
            CaptureNote::StackedChosen { volume, what } => write!(
                f,
                "sizing {volume} ({what}) instead of the disks under it: they are left out, so \
                 its IO is counted once"
            ),
            CaptureNote::GcpSeriesLeftOut { .. }
            | CaptureNote::GcpNoThrottledMetrics { .. }
            | CaptureNote::GcpNeverThrottled { .. }
            | CaptureNote::GcpThrottled { .. }
            | CaptureNote::CloudWatchResultLeftOut { .. }
            | CaptureNote::CloudWatchIncomplete { .. }
            | CaptureNote::BalanceEmpty { .. }
            | CaptureNote::BalanceKept { .. }
            | CaptureNote::CloudWatchNoBalances { .. }
            | CaptureNote::CutShort { .. } => self.fmt_cloud(f),
        }
    }
}

impl CaptureNote {
    /// The sentences of the cloud metrics' notes and verdicts, and of a live capture.
    fn fmt_cloud(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CaptureNote::GcpSeriesLeftOut {
                file,
                index,
                metric,
            } => write!(
                f,
                "{file}: timeSeries[{index}] ('{}') is no disk metric iofit reads; left out",
                excerpt(metric)
            ),
            CaptureNote::GcpNoThrottledMetrics { file } => write!(
                f,
                "{file}: no throttled_* disk metrics, so no throttling verdict; add \
                 throttled_read_ops_count and throttled_write_ops_count to the query"
            ),
            CaptureNote::GcpNeverThrottled { device } => write!(
                f,
                "Cloud Monitoring verdict: {device} was never throttled: not held to its \
                 Persistent Disk limit"
            ),
            CaptureNote::GcpThrottled {
                device,
                held,
                periods,
                throttled_per_100,
            } => write!(
                f,
                "Cloud Monitoring verdict: {device} was throttled in {held} of {periods} periods \
                 ({throttled_per_100:.1} throttled operations per 100 done): held to its \
                 Persistent Disk limit (the VM's or the disk's) then; the sized numbers there \
                 are the limit, not the demand"
            ),
            CaptureNote::CloudWatchResultLeftOut { file, index, name } => write!(
                f,
                "{file}: MetricDataResults[{index}] ('{}') names no EBS metric iofit reads; left \
                 out",
                excerpt(name)
            ),
            CaptureNote::CloudWatchIncomplete {
                file,
                name,
                status_code,
            } => write!(
                f,
                "{file}: '{}' has StatusCode {status_code}: more points may exist (NextToken); \
                 the ones given are used",
                excerpt(name)
            ),
            CaptureNote::BalanceEmpty {
                balance,
                empty,
                periods,
            } => write!(
                f,
                "CloudWatch verdict: {balance} was empty in {empty} of {periods} periods ({:.1} \
                 % of the time): held to {} then; the sized numbers there are the limit, not the \
                 demand",
                100.0 * *empty as f64 / (*periods).max(1) as f64,
                balance.baseline()
            ),
            CaptureNote::BalanceKept {
                balance,
                lowest_pct,
            } => write!(
                f,
                "CloudWatch verdict: {balance} never ran out (lowest {lowest_pct:.1} %): not \
                 held to {}",
                balance.baseline()
            ),
            CaptureNote::CloudWatchNoBalances { file } => write!(
                f,
                "{file}: no EBSIOBalance%, EBSByteBalance% or BurstBalance, so no throttling \
                 verdict; add them to the queries"
            ),
            CaptureNote::CutShort {
                elapsed_s,
                duration_s,
                samples,
            } => write!(
                f,
                "cut short by a signal after {:.1} of {} s, {samples} samples",
                elapsed_s.0, duration_s.0
            ),
            // The parsers' and the devices' kinds are written by `fmt`, which sends only the
            // kinds above here.
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|n| n.to_string()).collect()
    }

    /// Each kind's sentence is the one the parsers printed as a string before the notes were
    /// typed, figures and all.
    #[test]
    fn each_kind_says_its_sentence() {
        let said = |note: CaptureNote| note.to_string();
        assert_eq!(
            said(CaptureNote::FewTimeStamps {
                file: "io.txt".into(),
                stamped: 3,
                reports: 10
            }),
            "io.txt: only 3 of 10 reports carry a time stamp"
        );
        assert_eq!(
            said(CaptureNote::MixedIntervals {
                file: "b.json".into(),
                interval_s: Seconds(300.0),
                before_s: Seconds(60.0)
            }),
            "b.json is sampled every 300 s, the files before it every 60 s: percentiles mix \
             both; compare like with like (profile each file alone, or use --window)"
        );
        assert_eq!(
            said(CaptureNote::CombinedTools {
                first: crate::Tool::Iostat.name(),
                then: crate::Tool::Sar.name()
            }),
            "combined iostat -x with sar -d"
        );
        assert_eq!(
            said(CaptureNote::PerfmonIncompleteDisks {
                file: "p.csv".into(),
                disks: names(&["1 D:", "2 E:"])
            }),
            "p.csv: left out 1 D:, 2 E: (not all of Disk Reads/sec, Disk Writes/sec, Disk Read \
             Bytes/sec, Disk Write Bytes/sec captured)"
        );
        assert_eq!(
            said(CaptureNote::AzureGaps {
                file: "az.json".into(),
                points: 16
            }),
            "az.json: 16 points without a value were left out (the interval still open when the \
             metrics were listed, or gaps); a report lacking a disk's IOPS is not sized for it"
        );
        assert_eq!(
            said(CaptureNote::StackedChosen {
                volume: "dm-0".into(),
                what: "device-mapper (LVM) volume".into()
            }),
            "sizing dm-0 (device-mapper (LVM) volume) instead of the disks under it: they are \
             left out, so its IO is counted once"
        );
        assert_eq!(
            said(CaptureNote::CutShort {
                elapsed_s: Seconds(12.345),
                duration_s: Seconds(60.0),
                samples: 13
            }),
            "cut short by a signal after 12.3 of 60 s, 13 samples"
        );
    }

    #[test]
    fn verdicts_say_their_figures() {
        assert_eq!(
            CaptureNote::GcpThrottled {
                device: "data".into(),
                held: 1,
                periods: 3,
                throttled_per_100: 7.692
            }
            .to_string(),
            "Cloud Monitoring verdict: data was throttled in 1 of 3 periods (7.7 throttled \
             operations per 100 done): held to its Persistent Disk limit (the VM's or the \
             disk's) then; the sized numbers there are the limit, not the demand"
        );
        assert_eq!(
            CaptureNote::BalanceEmpty {
                balance: EbsBalance::Volume(Some("vol-1".into())),
                empty: 1,
                periods: 3
            }
            .to_string(),
            "CloudWatch verdict: vol-1's burst credits (BurstBalance) was empty in 1 of 3 \
             periods (33.3 % of the time): held to the volume's baseline IOPS then; the sized \
             numbers there are the limit, not the demand"
        );
        assert_eq!(
            CaptureNote::BalanceKept {
                balance: EbsBalance::InstanceBytes,
                lowest_pct: 42.04
            }
            .to_string(),
            "CloudWatch verdict: the instance's EBS byte balance (EBSByteBalance%) never ran out \
             (lowest 42.0 %): not held to the instance's EBS baseline"
        );
        // A long metric name is shortened as the errors shorten it.
        let long = "x".repeat(70);
        let said = CaptureNote::GcpSeriesLeftOut {
            file: "gcm.json".into(),
            index: 4,
            metric: long,
        }
        .to_string();
        assert_eq!(
            said,
            format!(
                "gcm.json: timeSeries[4] ('{}...') is no disk metric iofit reads; left out",
                "x".repeat(60)
            )
        );
    }
}
