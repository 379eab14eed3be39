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

use crate::capture::{Capture, DiskSample, Tool};
use crate::clock::{time_of_day_s, Timeline};
use crate::error::{excerpt, ProfileError};
use crate::lines::{is_blank, logger_prefix, split_fields, LineReader};
use crate::num::{human_cell, number_cell};
use std::io::BufRead;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Slot {
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

fn slot_of(name: &[u8]) -> Slot {
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
    let mut lines = LineReader::new(reader);
    let mut capture = Capture::new(file.to_string(), Tool::Iostat);
    let mut fields: Vec<(usize, usize)> = Vec::with_capacity(32);
    let mut state = State::TopLevel;
    let mut table: Option<Table> = None;
    let mut timeline = Timeline::default();
    let mut report: Option<u32> = None;
    let mut report_has_cpu = false;
    let mut report_has_disk = false;
    let mut seen_content = false;
    let mut device_hint = 0usize;
    let mut timestamps = 0u64;
    // Decided on the first non-blank line (the banner): does a line logger prefix every line?
    let mut prefixed: Option<bool> = None;
    // `--pretty`: the columns seen over the sub-tables of the first report, and where it began.
    let mut pretty_bits: Option<(u8, u64)> = None;
    let mut pretty_checked = false;

    loop {
        let (line_no, raw) = match lines.next_line() {
            Ok(Some(next)) => next,
            Ok(None) => break,
            Err(source) => {
                return Err(ProfileError::Io {
                    file: file.to_string(),
                    source,
                })
            }
        };
        if prefixed.is_none() && !is_blank(raw) {
            prefixed = Some(logger_prefix(raw).is_some());
        }
        let (line, logged_at) = match prefixed {
            Some(true) => match logger_prefix(raw) {
                Some((length, time)) => (&raw[length..], Some(time)),
                None => (raw, None),
            },
            _ => (raw, None),
        };
        if is_blank(line) {
            if state == State::Devices {
                state = State::TopLevel;
            }
            continue;
        }
        split_fields(line, &mut fields);
        let first = &line[fields[0].0..fields[0].1];
        // Reports without iostat's own -t stamp take the logger's time.
        let mut new_report = |capture: &mut Capture, timestamps: &mut u64| match logged_at {
            Some(time) => {
                *timestamps += 1;
                capture.push_report(timeline.elapsed_s(time))
            }
            None => capture.push_report(f64::NAN),
        };

        if first == b"avg-cpu:" {
            if report.is_none() || report_has_cpu || report_has_disk {
                report = Some(new_report(&mut capture, &mut timestamps));
                report_has_disk = false;
            }
            report_has_cpu = true;
            seen_content = true;
            let idle_column = fields[1..]
                .iter()
                .position(|&(a, b)| &line[a..b] == b"%idle");
            state = State::CpuValues { idle_column };
            continue;
        }
        if let State::CpuValues { idle_column } = state {
            if let (Some(column), Some(report)) = (idle_column, report) {
                let Some(&(a, b)) = fields.get(column) else {
                    return Err(ProfileError::syntax(
                        file,
                        line_no,
                        Some("%idle"),
                        format!("the avg-cpu row has {} values, fewer than its header", fields.len()),
                        "the file looks truncated or edited; re-capture with `iostat -x INTERVAL COUNT`",
                    ));
                };
                let idle = number_cell(
                    &line[a..b],
                    file,
                    line_no,
                    "%idle",
                    "the avg-cpu row must hold numbers; re-capture with `iostat -x INTERVAL COUNT`",
                )?;
                capture.host[report as usize].cpu_pct = (100.0 - idle).clamp(0.0, 100.0);
            }
            state = State::TopLevel;
            continue;
        }
        let last = &line[fields[fields.len() - 1].0..fields[fields.len() - 1].1];
        let pretty_header = fields.len() > 1 && last == b"Device" && first != b"Device";
        if first == b"Device" || first == b"Device:" || pretty_header {
            let read = read_header(line, &fields, file, line_no, pretty_header)?;
            let starts_report = !read.continues_report;
            if pretty_header {
                let bits = needed_bits(&read.slots);
                match pretty_bits.as_mut() {
                    Some((seen, _)) if !starts_report => *seen |= bits,
                    _ => {
                        check_pretty(pretty_bits, file, &mut pretty_checked)?;
                        pretty_bits = Some((bits, line_no));
                    }
                }
            }
            table = Some(read);
            if report.is_none() || (starts_report && report_has_disk) {
                report = Some(new_report(&mut capture, &mut timestamps));
                report_has_cpu = false;
            }
            report_has_disk = true;
            seen_content = true;
            device_hint = 0;
            state = State::Devices;
            continue;
        }
        if state == State::Devices {
            let table = table.as_ref().expect("a device table follows its header");
            let report = report.expect("a device table belongs to a report");
            let (a, b) = fields[table.device_column.min(fields.len() - 1)];
            let index = capture.device_index(&line[a..b], device_hint);
            device_hint = index + 1;
            let samples = &mut capture.devices[index].samples;
            match samples.last_mut() {
                Some(sample) if table.continues_report && sample.report == report => {
                    read_row(line, &fields, table, sample, file, line_no)?
                }
                _ => {
                    let mut sample = DiskSample::empty(report);
                    read_row(line, &fields, table, &mut sample, file, line_no)?;
                    samples.push(sample);
                }
            }
            continue;
        }
        // Top level: a time stamp (`-t`) or the banner line ("Linux 6.1.0 (host) ...").
        if first[0].is_ascii_digit() {
            if let Some(seconds) = std::str::from_utf8(line).ok().and_then(time_of_day_s) {
                let elapsed = timeline.elapsed_s(seconds);
                report = Some(capture.push_report(elapsed));
                report_has_cpu = false;
                report_has_disk = false;
                seen_content = true;
                timestamps += 1;
                continue;
            }
        }
        if !seen_content && line_no <= 3 {
            continue; // the banner: kernel, host, date, architecture, CPUs
        }
        if first == b"Linux" && line.contains(&b'(') {
            continue; // the banner again: captures of several runs appended to one file
        }
        return Err(ProfileError::syntax(
            file,
            line_no,
            None,
            format!(
                "unexpected line '{}'",
                excerpt(&String::from_utf8_lossy(line))
            ),
            "expected a time stamp, an `avg-cpu:` or a `Device` header, or a device row; \
             give the unedited output of `iostat -x [-t] INTERVAL COUNT`",
        ));
    }

    if table.is_none() {
        return Err(ProfileError::content(
            file,
            "no `Device` table found",
            "this is not `iostat -x` output; capture with `iostat -x -t 1 600 > FILE`",
        ));
    }
    check_pretty(pretty_bits, file, &mut pretty_checked)?;
    if timestamps > 0 && timestamps < capture.reports() as u64 {
        capture.notes.push(format!(
            "{file}: only {timestamps} of {} reports carry a time stamp",
            capture.reports()
        ));
    }
    if prefixed == Some(true) {
        capture.notes.push(format!(
            "{file}: every line carries a logger's time stamp; reports without iostat's own -t \
             stamp take it"
        ));
    }
    if !options.keep_first_report {
        drop_first_report(&mut capture, file)?;
    }
    Ok(capture)
}

/// The first `--pretty` report must have had r/s, w/s and read and write throughput over its
/// sub-tables (checked once: later reports repeat the same headers).
fn check_pretty(
    bits: Option<(u8, u64)>,
    file: &str,
    checked: &mut bool,
) -> Result<(), ProfileError> {
    let Some((seen, line_no)) = bits else {
        return Ok(());
    };
    if *checked || seen == NEED_ALL {
        *checked = true;
        return Ok(());
    }
    let column = [
        (NEED_READ_IOPS, "r/s"),
        (NEED_WRITE_IOPS, "w/s"),
        (NEED_READ_BYTES, "rkB/s"),
        (NEED_WRITE_BYTES, "wkB/s"),
    ]
    .into_iter()
    .find(|(bit, _)| seen & bit == 0)
    .map_or("r/s", |(_, name)| name);
    Err(ProfileError::syntax(
        file,
        line_no,
        Some(column),
        format!("the `--pretty` report starting here has no {column} column in any sub-table"),
        "capture the extended report with `iostat -x --pretty INTERVAL COUNT` (or without \
         --pretty), unedited",
    ))
}

fn read_header(
    line: &[u8],
    fields: &[(usize, usize)],
    file: &str,
    line_no: u64,
    pretty: bool,
) -> Result<Table, ProfileError> {
    let names: Vec<String> = fields
        .iter()
        .map(|&(a, b)| String::from_utf8_lossy(&line[a..b]).into_owned())
        .collect();
    let slots: Vec<Slot> = fields.iter().map(|&(a, b)| slot_of(&line[a..b])).collect();
    if pretty {
        // sysstat 12's `-x --pretty` splits each report into read, write, discard and flush
        // sub-tables, the device name last; the read one (r/s) opens a report.
        return Ok(Table {
            continues_report: !slots.contains(&Slot::ReadIops),
            device_column: slots.len() - 1,
            slots,
            names,
        });
    }
    let has = |wanted: fn(&Slot) -> bool| slots.iter().any(wanted);
    if !has(|s| *s == Slot::ReadIops) || !has(|s| *s == Slot::WriteIops) {
        let basic = names.iter().any(|n| n == "tps");
        let message = if basic {
            "this is iostat output without -x (only tps, no r/s and w/s columns)"
        } else {
            "the Device header has no r/s and w/s columns"
        };
        return Err(ProfileError::syntax(
            file,
            line_no,
            Some(if basic { "tps" } else { "r/s" }),
            message,
            "capture the extended report with `iostat -x INTERVAL COUNT` (not -s); iofit needs \
             reads and writes apart",
        ));
    }
    if !has(|s| matches!(s, Slot::ReadBytes(_))) || !has(|s| matches!(s, Slot::WriteBytes(_))) {
        return Err(ProfileError::syntax(
            file,
            line_no,
            Some("rkB/s"),
            "the Device header has no read/write throughput columns (rkB/s, rMB/s or rsec/s)",
            "capture with `iostat -x INTERVAL COUNT` (optionally -k or -m)",
        ));
    }
    if slots[0] != Slot::Device {
        return Err(ProfileError::syntax(
            file,
            line_no,
            Some("Device"),
            "the Device column is not first (human-readable `iostat -h` output?)",
            "capture without -h: `iostat -x INTERVAL COUNT`",
        ));
    }
    Ok(Table {
        slots,
        names,
        device_column: 0,
        continues_report: false,
    })
}

#[inline]
fn read_row(
    line: &[u8],
    fields: &[(usize, usize)],
    table: &Table,
    sample: &mut DiskSample,
    file: &str,
    line_no: u64,
) -> Result<(), ProfileError> {
    if fields.len() != table.slots.len() {
        return Err(ProfileError::syntax(
            file,
            line_no,
            table.names.get(fields.len()).map(String::as_str),
            format!(
                "the device row has {} fields but its Device header has {}",
                fields.len(),
                table.slots.len()
            ),
            "the file looks truncated or edited; remove the damaged line or re-capture",
        ));
    }
    for (index, (&(a, b), &slot)) in fields.iter().zip(&table.slots).enumerate() {
        if matches!(slot, Slot::Device | Slot::Ignore) {
            continue;
        }
        // `-h` (--human) prints sizes with a unit letter that overrides the column's unit.
        let (value, unit_bytes) = human_cell(
            &line[a..b],
            file,
            line_no,
            &table.names[index],
            "every column but Device must be a number; remove the damaged line or re-capture",
        )?;
        match slot {
            Slot::ReadIops => sample.read_iops = value,
            Slot::WriteIops => sample.write_iops = value,
            Slot::ReadBytes(scale) => sample.read_bytes_s = value * unit_bytes.unwrap_or(scale),
            Slot::WriteBytes(scale) => sample.write_bytes_s = value * unit_bytes.unwrap_or(scale),
            Slot::ReadLatency => sample.read_latency_ms = value,
            Slot::WriteLatency => sample.write_latency_ms = value,
            Slot::Latency => sample.latency_ms = value,
            Slot::QueueDepth => sample.queue_depth = value,
            Slot::ReadMerges => sample.read_merges_s = value,
            Slot::WriteMerges => sample.write_merges_s = value,
            Slot::Device | Slot::Ignore => {}
        }
    }
    Ok(())
}

/// Removes report 0 (iostat's since-boot averages) and renumbers the rest.
fn drop_first_report(capture: &mut Capture, file: &str) -> Result<(), ProfileError> {
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
    capture.notes.push(format!(
        "{file}: skipped the first report (iostat's averages since boot); pass --keep-first if \
         the capture was made with `iostat -y`"
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
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
        assert_eq!(samples[0].read_iops, 300.0);
        assert_eq!(samples[0].write_iops, 100.0);
        assert_eq!(samples[0].read_bytes_s, 2400.0 * 1024.0);
        assert_eq!(samples[0].write_latency_ms, 8.0);
        assert_eq!(samples[0].queue_depth, 2.0);
        assert_eq!(samples[0].write_merges_s, 3.0);
        assert_eq!(capture.host[0].cpu_pct, 35.0);
        assert_eq!(capture.host[1].cpu_pct, 20.0);
        assert!(capture.notes[0].contains("skipped the first report"));
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
    fn bad_number_names_column() {
        let text = OLD.replace("300.00", "3x0.00");
        let error = parse_iostat(text.as_bytes(), "bad.txt", IostatOptions::default())
            .unwrap_err()
            .to_string();
        assert!(error.contains("bad.txt:13, column 'r/s'"), "{error}");
    }
}
