//! `iostat -x` output of sysstat 10, 11 and 12.
//!
//! Columns are found by name, so the old layout (`rrqm/s wrqm/s r/s w/s rkB/s wkB/s avgrq-sz
//! avgqu-sz await r_await w_await svctm %util`), the 11.5+ layout (`... aqu-sz rareq-sz
//! wareq-sz ...`) and sysstat 12's (with `d/s dkB/s ...` discard and `f/s f_await` flush
//! columns, which are read past) all parse the same way. Throughput columns may be in sectors
//! (`rsec/s`, 512 B), kB (`rkB/s`, 1024 B, `-k`) or MB (`rMB/s`, 1 MiB, `-m`). IO sizes are not
//! read from `avgrq-sz`/`rareq-sz` (whose unit changed between versions) but computed exactly as
//! throughput / IOPS.
//!
//! The first report iostat prints covers the time since boot, not an interval; it is skipped
//! (and a note says so) unless the caller keeps it (a capture made with `iostat -y`).

use crate::capture::Capture;
use crate::error::ProfileError;
use crate::notes::CaptureNote;
use std::io::BufRead;

mod parallel;
mod reports;
mod rows;

pub use parallel::{parse_iostat_parallel, PARALLEL_MIN_BYTES};
pub(crate) use rows::store;

use parallel::finish;
use reports::parse_reports;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Slot {
    Device,
    ReadIops,
    WriteIops,
    ReadBytes(f64),
    WriteBytes(f64),
    ReadLatency,
    WriteLatency,
    Latency,
    QueueDepth,
    ReadMerges,
    WriteMerges,
    Ignore,
}

pub(crate) fn slot_of(name: &[u8]) -> Slot {
    match name {
        b"Device" | b"Device:" => Slot::Device,
        b"r/s" => Slot::ReadIops,
        b"w/s" => Slot::WriteIops,
        b"rkB/s" => Slot::ReadBytes(1024.0),
        b"wkB/s" => Slot::WriteBytes(1024.0),
        b"rMB/s" => Slot::ReadBytes(1024.0 * 1024.0),
        b"wMB/s" => Slot::WriteBytes(1024.0 * 1024.0),
        b"rsec/s" => Slot::ReadBytes(512.0),
        b"wsec/s" => Slot::WriteBytes(512.0),
        b"r_await" => Slot::ReadLatency,
        b"w_await" => Slot::WriteLatency,
        b"await" => Slot::Latency,
        b"aqu-sz" | b"avgqu-sz" => Slot::QueueDepth,
        b"rrqm/s" => Slot::ReadMerges,
        b"wrqm/s" => Slot::WriteMerges,
        _ => Slot::Ignore,
    }
}

/// How to read the current device table.
struct Table {
    slots: Vec<Slot>,
    /// The columns read (all but `Ignore`), in order, with their slots.
    read: Vec<(usize, Slot)>,
    names: Vec<String>,
    /// Where the device name is: first, or last under `--pretty`.
    device_column: usize,
    /// A `--pretty` sub-table after the first of a report (w/s, d/s, f/s): its rows add to the
    /// samples the report's first sub-table started.
    continues_report: bool,
}

/// Bits of the columns a report needs, collected over `--pretty` sub-tables.
const NEED_READ_IOPS: u8 = 1;
const NEED_WRITE_IOPS: u8 = 2;
const NEED_READ_BYTES: u8 = 4;
const NEED_WRITE_BYTES: u8 = 8;
const NEED_ALL: u8 = 15;

fn needed_bits(slots: &[Slot]) -> u8 {
    slots.iter().fold(0, |bits, slot| {
        bits | match slot {
            Slot::ReadIops => NEED_READ_IOPS,
            Slot::WriteIops => NEED_WRITE_IOPS,
            Slot::ReadBytes(_) => NEED_READ_BYTES,
            Slot::WriteBytes(_) => NEED_WRITE_BYTES,
            _ => 0,
        }
    })
}

#[derive(PartialEq)]
enum State {
    TopLevel,
    CpuValues { idle_column: Option<usize> },
    Devices,
}

/// Options of the iostat parser.
#[derive(Clone, Copy, Debug, Default)]
pub struct IostatOptions {
    /// Keep the first report (only right for `iostat -y` captures, whose first report is an
    /// interval, not the since-boot average).
    pub keep_first_report: bool,
}

/// Parses `iostat -x` text from `reader`; `file` names it in errors.
pub fn parse_iostat<R: BufRead>(
    reader: R,
    file: &str,
    options: IostatOptions,
) -> Result<Capture, ProfileError> {
    let (capture, chunk) = parse_reports(reader, file, None, !options.keep_first_report)?;
    finish(capture, &chunk, file, options)
}

/// Removes report 0 (iostat's since-boot averages) and renumbers the rest.
pub(crate) fn drop_first_report(capture: &mut Capture, file: &str) -> Result<(), ProfileError> {
    if capture.reports() < 2 {
        return Err(ProfileError::content(
            file,
            "only one report, and iostat's first report is the average since boot, not a sample",
            "capture several intervals, e.g. `iostat -x -t 1 600`; if the capture was made with \
             `iostat -y` (first report skipped already), pass --keep-first",
        ));
    }
    capture.report_time_s.remove(0);
    capture.report_segment.remove(0);
    capture.host.remove(0);
    if let Some(&start) = capture.report_time_s.first() {
        for time in &mut capture.report_time_s {
            *time -= start;
        }
    }
    for series in &mut capture.devices {
        series.samples.retain(|s| s.report != 0);
        for sample in &mut series.samples {
            sample.report -= 1;
        }
    }
    capture.devices.retain(|d| !d.samples.is_empty());
    capture.notes.push(CaptureNote::FirstReportSkipped {
        file: file.to_string(),
    });
    Ok(())
}

/// What a column slot holds, for the range checks of `sanity`.
pub(crate) fn slot_meaning(slot: Slot) -> crate::sanity::Meaning {
    use crate::sanity::Meaning;
    match slot {
        Slot::ReadIops | Slot::WriteIops | Slot::ReadMerges | Slot::WriteMerges => Meaning::Iops,
        Slot::ReadBytes(scale) | Slot::WriteBytes(scale) => Meaning::Bytes(scale),
        Slot::ReadLatency | Slot::WriteLatency | Slot::Latency => Meaning::LatencyMs,
        Slot::QueueDepth => Meaning::Queue,
        Slot::Device | Slot::Ignore => Meaning::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::parallel::{parse_pieces, report_starts};
    use super::*;

    const OLD: &str = "Linux 3.10.0-1160.el7.x86_64 (db01) \t03/14/2019 \t_x86_64_\t(8 CPU)

avg-cpu:  %user   %nice %system %iowait  %steal   %idle
           2.00    0.00    1.00    0.50    0.00   96.50

Device:         rrqm/s   wrqm/s     r/s     w/s    rkB/s    wkB/s avgrq-sz avgqu-sz   await r_await w_await  svctm  %util
sdb               0.00     0.00   10.00   10.00    80.00    80.00     8.00     0.10    1.00    1.00    1.00   0.50   1.00

avg-cpu:  %user   %nice %system %iowait  %steal   %idle
          20.00    0.00   10.00    5.00    0.00   65.00

Device:         rrqm/s   wrqm/s     r/s     w/s    rkB/s    wkB/s avgrq-sz avgqu-sz   await r_await w_await  svctm  %util
sdb               1.00     3.00  300.00  100.00  2400.00   800.00    16.00     2.00    5.00    4.00    8.00   2.00  80.00

avg-cpu:  %user   %nice %system %iowait  %steal   %idle
          10.00    0.00    5.00    5.00    0.00   80.00

Device:         rrqm/s   wrqm/s     r/s     w/s    rkB/s    wkB/s avgrq-sz avgqu-sz   await r_await w_await  svctm  %util
sdb               0.00     0.00  100.00    0.00   800.00     0.00    16.00     0.50    5.00    5.00    0.00   2.00  50.00

";

    #[test]
    fn old_format_skips_since_boot_report() {
        let capture = parse_iostat(OLD.as_bytes(), "old.txt", IostatOptions::default()).unwrap();
        assert_eq!(capture.reports(), 2);
        assert_eq!(capture.devices.len(), 1);
        let samples = &capture.devices[0].samples;
        assert_eq!(samples.len(), 2);
        assert_eq!(samples[0].report, 0);
        assert_eq!(samples[0].read_iops, iofit_model::Iops(300.0));
        assert_eq!(samples[0].write_iops, iofit_model::Iops(100.0));
        assert_eq!(
            samples[0].read_bytes_s,
            iofit_model::BytesPerSecond(2400.0 * 1024.0)
        );
        assert_eq!(samples[0].write_latency_ms, iofit_model::units::Millis(8.0));
        assert_eq!(samples[0].queue_depth, 2.0);
        assert_eq!(samples[0].write_merges_per_s, 3.0);
        assert_eq!(capture.host[0].cpu_pct, 35.0);
        assert_eq!(capture.host[1].cpu_pct, 20.0);
        assert_eq!(
            capture.notes,
            [CaptureNote::FirstReportSkipped {
                file: "old.txt".to_string()
            }]
        );
    }

    /// A `-t` capture over midnight with a device missing now and then (`-z`).
    fn long_capture() -> String {
        let mut text = String::from("Linux 6.1 (h) \t11/22/26 \t_x86_64_\t(2 CPU)\n\n");
        for i in 0..60u32 {
            let t = 86_340 + i * 7; // crosses midnight after 9 reports
            let t = t % 86_400;
            text.push_str(&format!(
                "11/22/26 {:02}:{:02}:{:02}\navg-cpu:  %user   %nice %system %iowait  %steal   %idle\n           1.00    0.00    1.00    0.00    0.00   {:.2}\n\n",
                t / 3600,
                t / 60 % 60,
                t % 60,
                90.0 - f64::from(i % 7)
            ));
            text.push_str("Device            r/s     w/s     rkB/s     wkB/s  aqu-sz  %util\n");
            for (d, name) in ["sda", "sdb", "nvme0n1"].iter().enumerate() {
                if (i + d as u32).is_multiple_of(5) {
                    continue;
                }
                let r = f64::from(i * 10 + d as u32);
                text.push_str(&format!(
                    "{name:<13} {r:7.2} {:7.2} {:9.2} {:9.2} {:7.2} {:6.2}\n",
                    r / 2.0,
                    r * 8.0,
                    r * 4.0,
                    0.5,
                    10.0
                ));
            }
            text.push('\n');
        }
        text
    }

    #[test]
    fn pieces_parsed_apart_join_into_the_serial_result() {
        let dir = std::env::temp_dir().join(format!("iofit-pieces-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("long.txt");
        let text = long_capture();
        std::fs::write(&path, &text).unwrap();
        let serial = parse_iostat(text.as_bytes(), "long.txt", IostatOptions::default()).unwrap();
        assert_eq!(serial.reports(), 59);
        assert_eq!(serial.report_time_s[58], 58.0 * 7.0, "over midnight");
        for threads in [2, 3, 5, 8, 13] {
            let handle = std::fs::File::open(&path).unwrap();
            let starts = report_starts(&handle, text.len() as u64, threads, 0).unwrap();
            assert!(starts.len() > 1, "{threads}: split");
            let parallel =
                parse_pieces(&path, "long.txt", IostatOptions::default(), threads, 0).unwrap();
            assert_eq!(
                format!("{parallel:?}"),
                format!("{serial:?}"),
                "{threads} pieces"
            );
        }
        // An error deep in the file names the same line either way.
        let damaged = text.replacen("290.00", "2x0.00", 1);
        std::fs::write(&path, &damaged).unwrap();
        let serial = parse_iostat(damaged.as_bytes(), "long.txt", IostatOptions::default())
            .unwrap_err()
            .to_string();
        let parallel = parse_pieces(&path, "long.txt", IostatOptions::default(), 4, 0)
            .unwrap_err()
            .to_string();
        assert_eq!(parallel, serial);
        assert!(serial.contains("long.txt:"), "{serial}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// sysstat 7's `Time: HH:MM:SS` stamps (and their Japanese form) start a report for the
    /// parallel parser's cuts as for the serial parse: the pieces join into the same capture,
    /// with the same times over midnight as the `%x %X` stamps give.
    #[test]
    fn labelled_stamps_split_and_join_like_dated_ones() {
        let dated = long_capture();
        let reference =
            parse_iostat(dated.as_bytes(), "long.txt", IostatOptions::default()).unwrap();
        let dir = std::env::temp_dir().join(format!("iofit-labels-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (label, kanji) in [("Time: ", false), ("時間: ", true)] {
            let text: String = dated
                .lines()
                .map(|line| match line.strip_prefix("11/22/26 ") {
                    Some(clock) if kanji => {
                        let parts: Vec<&str> = clock.split(':').collect();
                        format!("{label}{}時{}分{}秒\n", parts[0], parts[1], parts[2])
                    }
                    Some(clock) => format!("{label}{clock}\n"),
                    None => format!("{line}\n"),
                })
                .collect();
            let path = dir.join("labelled.txt");
            std::fs::write(&path, &text).unwrap();
            let serial =
                parse_iostat(text.as_bytes(), "long.txt", IostatOptions::default()).unwrap();
            assert_eq!(serial.report_time_s, reference.report_time_s, "{label}");
            assert_eq!(
                format!("{:?}", serial.devices),
                format!("{:?}", reference.devices)
            );
            for threads in [2, 3, 5] {
                let handle = std::fs::File::open(&path).unwrap();
                let starts = report_starts(&handle, text.len() as u64, threads, 0).unwrap();
                assert!(starts.len() > 1, "{label} {threads}: split");
                let parallel =
                    parse_pieces(&path, "long.txt", IostatOptions::default(), threads, 0).unwrap();
                assert_eq!(
                    format!("{parallel:?}"),
                    format!("{serial:?}"),
                    "{label} {threads}"
                );
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Dropping the since-boot report while parsing gives what dropping it after the parse
    /// gave (the plain path it replaces: parse everything, then [`drop_first_report`]): on
    /// every iostat sample, a `-z` capture over midnight, a device seen only in the first
    /// report, one missing from report 1 and back in report 2, and a one-report file (refused
    /// the same way).
    #[test]
    fn first_report_dropped_while_parsing_equals_dropped_after() {
        let first_row = "sdb               0.00     0.00   10.00";
        let third_row = "sdb               0.00     0.00  100.00";
        let row = |name: &str, from: &str| {
            let line = OLD.lines().find(|l| l.starts_with(from)).unwrap();
            format!("{line}\n{}{}\n", name, &line[3..])
        };
        let only_first = OLD.replacen(
            &format!(
                "{}\n",
                OLD.lines().find(|l| l.starts_with(first_row)).unwrap()
            ),
            &row("sdz", first_row),
            1,
        );
        let back_later = only_first.replacen(
            &format!(
                "{}\n",
                OLD.lines().find(|l| l.starts_with(third_row)).unwrap()
            ),
            &row("sdz", third_row),
            1,
        );
        let second = OLD.match_indices("avg-cpu").nth(1).unwrap().0;
        let one_report = OLD[..second].to_string();
        let mut texts = vec![
            OLD.to_string(),
            long_capture(),
            only_first,
            back_later,
            one_report,
        ];
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/iostat");
        for entry in std::fs::read_dir(root).unwrap() {
            texts.push(std::fs::read_to_string(entry.unwrap().path()).unwrap());
        }
        let mut compared = 0;
        for text in &texts {
            let plain = parse_reports(text.as_bytes(), "f.txt", None, false).and_then(
                |(capture, chunk)| {
                    assert!(!chunk.first_dropped);
                    finish(capture, &chunk, "f.txt", IostatOptions::default())
                },
            );
            let early = parse_iostat(text.as_bytes(), "f.txt", IostatOptions::default());
            assert_eq!(format!("{early:?}"), format!("{plain:?}"));
            compared += usize::from(plain.is_ok());
        }
        assert!(compared >= 14, "{compared} captures parsed");
        let sdz = |text: &str| {
            let capture = parse_iostat(text.as_bytes(), "f.txt", IostatOptions::default()).unwrap();
            capture
                .devices
                .iter()
                .map(|d| d.name.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            sdz(&texts[2]),
            ["sdb"],
            "seen only in the since-boot report"
        );
        assert_eq!(sdz(&texts[3]), ["sdb", "sdz"], "back in a later report");
        let refused = parse_iostat(texts[4].as_bytes(), "f.txt", IostatOptions::default());
        assert!(
            format!("{refused:?}").contains("only one report"),
            "{refused:?}"
        );
    }

    #[test]
    fn keep_first_keeps_it() {
        let options = IostatOptions {
            keep_first_report: true,
        };
        let capture = parse_iostat(OLD.as_bytes(), "old.txt", options).unwrap();
        assert_eq!(capture.reports(), 3);
    }

    #[test]
    fn without_x_is_refused_with_a_fix() {
        let text = "Linux 6.1 (h) \t11/22/26 \t_x86_64_\t(2 CPU)\n\nDevice             tps    kB_read/s    kB_wrtn/s    kB_read    kB_wrtn\nvda 1.0 2.0 3.0 4 5\n";
        let error = parse_iostat(text.as_bytes(), "f.txt", IostatOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("f.txt:3") && error.contains("without -x"),
            "{error}"
        );
    }

    #[test]
    fn truncated_row_names_line_and_column() {
        let cut = &OLD[..OLD.rfind("16.00").unwrap()];
        let error = parse_iostat(cut.as_bytes(), "cut.txt", IostatOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("cut.txt:19") && error.contains("avgrq-sz"),
            "{error}"
        );
    }

    #[test]
    fn rows_too_long_for_the_mask_parse_as_short_ones_do() {
        // The same rows with 600 blanks between two cells are read byte by byte (no mask):
        // the samples are equal, and a damaged long row gets the same error.
        let wide = OLD.replace("300.00", &format!("300.00{}", " ".repeat(600)));
        assert!(wide.lines().any(|l| l.len() > 600));
        let narrow = parse_iostat(OLD.as_bytes(), "n.txt", IostatOptions::default()).unwrap();
        let long = parse_iostat(wide.as_bytes(), "n.txt", IostatOptions::default()).unwrap();
        assert_eq!(format!("{narrow:?}"), format!("{long:?}"));
        let cut = &wide[..wide.rfind("16.00").unwrap()];
        let error = parse_iostat(cut.as_bytes(), "cut.txt", IostatOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("cut.txt:19") && error.contains("avgrq-sz"),
            "{error}"
        );
    }

    #[test]
    fn bad_number_names_column() {
        let text = OLD.replace("300.00", "3x0.00");
        let error = parse_iostat(text.as_bytes(), "bad.txt", IostatOptions::default())
            .unwrap_err()
            .to_string();
        assert!(error.contains("bad.txt:13, column 'r/s'"), "{error}");
    }
}
