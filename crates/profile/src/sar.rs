//! `sar -d` text output and `sadf -d` (semicolon-separated) output of sysstat 10 to 12.
//!
//! sar reports transfers (`tps`) and bytes per direction but no reads/s and writes/s apart, so
//! the read and write IOPS are split from `tps` by byte share and marked as estimates. Columns are
//! found by name: sysstat 12 (`rkB/s wkB/s areq-sz aqu-sz`), older (`rd_sec/s wr_sec/s avgrq-sz
//! avgqu-sz`, sectors of 512 B), with `-p` device names (sda) or without (dev8-0), and with DEV
//! before or after the numbers (`sar -d -p` of sysstat 12.6 puts it last). CPU (`-u`) and
//! memory (`-r`) sections in the same file feed the host metrics.

use crate::capture::{Capture, DiskSample, Tool};
use crate::clock::time_of_day_s;
use crate::error::{excerpt, ProfileError};
use crate::lines::{is_blank, split_fields, LineReader};
use crate::num::{human_cell, parse_decimal};
use crate::sanity::{check, Meaning};
use std::collections::HashMap;
use std::io::BufRead;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Slot {
    Name,
    Tps,
    ReadBytes(f64),
    WriteBytes(f64),
    Latency,
    QueueDepth,
    Idle,
    MemUsed,
    Ignore,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Section {
    Disk,
    Cpu,
    Memory,
    Other,
}

struct Table {
    section: Section,
    slots: Vec<Slot>,
    names: Vec<String>,
    /// Index of the DEV / CPU column.
    name_column: Option<usize>,
}

fn table_from(names: Vec<String>, file: &str, line_no: u64) -> Result<Table, ProfileError> {
    let has = |n: &str| names.iter().any(|x| x == n);
    let section = if has("DEV") {
        Section::Disk
    } else if has("CPU") && has("%idle") {
        Section::Cpu
    } else if has("%memused") {
        Section::Memory
    } else {
        Section::Other
    };
    let slots: Vec<Slot> = names
        .iter()
        .map(|name| match (section, name.as_str()) {
            (Section::Disk, "DEV") | (Section::Cpu, "CPU") => Slot::Name,
            (Section::Disk, "tps") => Slot::Tps,
            (Section::Disk, "rkB/s") => Slot::ReadBytes(1024.0),
            (Section::Disk, "wkB/s") => Slot::WriteBytes(1024.0),
            (Section::Disk, "rd_sec/s") => Slot::ReadBytes(512.0),
            (Section::Disk, "wr_sec/s") => Slot::WriteBytes(512.0),
            (Section::Disk, "await") => Slot::Latency,
            (Section::Disk, "aqu-sz" | "avgqu-sz") => Slot::QueueDepth,
            (Section::Cpu, "%idle") => Slot::Idle,
            (Section::Memory, "%memused") => Slot::MemUsed,
            _ => Slot::Ignore,
        })
        .collect();
    if section == Section::Disk {
        let missing = if !slots.contains(&Slot::Tps) {
            Some("tps")
        } else if !slots.iter().any(|s| matches!(s, Slot::ReadBytes(_))) {
            Some("rkB/s")
        } else if !slots.iter().any(|s| matches!(s, Slot::WriteBytes(_))) {
            Some("wkB/s")
        } else {
            None
        };
        if let Some(column) = missing {
            return Err(ProfileError::syntax(
                file,
                line_no,
                Some(column),
                format!("the DEV header has no {column} column"),
                "capture the disk report unedited with `sar -d -p INTERVAL COUNT` or \
                 `sadf -d FILE -- -d -p`",
            ));
        }
    }
    let name_column = slots.iter().position(|s| *s == Slot::Name);
    Ok(Table {
        section,
        slots,
        names,
        name_column,
    })
}

/// Seconds since the capture's first time, counting days: within a section a clock going
/// backwards is midnight; a new file (banner after data) starts the day after the latest seen.
#[derive(Default)]
struct DayCounter {
    first: Option<f64>,
    base_day: u64,
    section_day: u64,
    max_day: u64,
    last: Option<f64>,
    rows: bool,
}

impl DayCounter {
    fn new_section(&mut self) {
        self.section_day = 0;
        self.last = None;
    }

    fn new_file(&mut self) {
        if self.rows {
            self.base_day = self.max_day + 1;
        }
        self.new_section();
    }

    fn elapsed_s(&mut self, time_of_day_s: f64) -> f64 {
        if self.last.is_some_and(|last| time_of_day_s + 1.0 < last) {
            self.section_day += 1;
        }
        self.last = Some(time_of_day_s);
        self.rows = true;
        let day = self.base_day + self.section_day;
        self.max_day = self.max_day.max(day);
        let first = *self.first.get_or_insert(time_of_day_s);
        day as f64 * 86400.0 + time_of_day_s - first
    }
}

/// What one row's cells hold.
struct Cells {
    tps: f64,
    sample: DiskSample,
    idle: f64,
    mem: f64,
}

/// Reads the cells of a data row after its first `skip_columns` (time, host, interval),
/// refusing what no device reports (see `sanity`).
fn read_cells(
    line: &[u8],
    fields: &[(usize, usize)],
    table: &Table,
    skip_columns: usize,
    report: u32,
    file: &str,
    line_no: u64,
) -> Result<Cells, ProfileError> {
    let mut cells = Cells {
        tps: f64::NAN,
        sample: DiskSample::empty(report),
        idle: f64::NAN,
        mem: f64::NAN,
    };
    for (index, (&(a, b), &slot)) in fields.iter().zip(&table.slots).enumerate() {
        if index < skip_columns || matches!(slot, Slot::Name | Slot::Ignore) {
            continue;
        }
        // `sar -h` prints sizes with a unit letter (7.9k, 40.5M) and shares with a `%`.
        let (value, unit_bytes) = human_cell(
            &line[a..b],
            file,
            line_no,
            &table.names[index],
            "remove the damaged line or re-capture",
        )?;
        if !(0.0..900_000.0).contains(&value) {
            let meaning = match slot {
                Slot::Tps => Meaning::Iops,
                Slot::ReadBytes(scale) | Slot::WriteBytes(scale) => {
                    Meaning::Bytes(unit_bytes.unwrap_or(scale))
                }
                Slot::Latency => Meaning::LatencyMs,
                Slot::QueueDepth => Meaning::Queue,
                _ => Meaning::Other,
            };
            check(meaning, value, file, line_no, &table.names[index])?;
        }
        let sample = &mut cells.sample;
        match slot {
            Slot::Tps => cells.tps = value,
            Slot::ReadBytes(scale) => {
                sample.read_bytes_s =
                    iofit_model::BytesPerSecond(value * unit_bytes.unwrap_or(scale))
            }
            Slot::WriteBytes(scale) => {
                sample.write_bytes_s =
                    iofit_model::BytesPerSecond(value * unit_bytes.unwrap_or(scale))
            }
            Slot::Latency => sample.latency_ms = iofit_model::units::Millis(value),
            Slot::QueueDepth => sample.queue_depth = value,
            Slot::Idle => cells.idle = value,
            Slot::MemUsed => cells.mem = value,
            Slot::Name | Slot::Ignore => {}
        }
    }
    Ok(cells)
}

#[cold]
fn broken_stamp(clock_text: &[u8], file: &str, line_no: u64) -> ProfileError {
    ProfileError::syntax(
        file,
        line_no,
        Some("time stamp"),
        format!(
            "'{}' is not a time of day",
            excerpt(&String::from_utf8_lossy(clock_text))
        ),
        "the time stamp is damaged or edited (hours 0-23, minutes and seconds 0-59); remove \
         the line or re-capture with `sar -d -p INTERVAL COUNT`",
    )
}

/// Which of the two layouts is read.
#[derive(Clone, Copy, PartialEq)]
enum Dialect {
    Sar,
    Sadf,
}

/// Parses `sar -d` text.
pub fn parse_sar<R: BufRead>(reader: R, file: &str) -> Result<Capture, ProfileError> {
    parse(reader, file, Dialect::Sar)
}

/// Parses `sadf -d` output (semicolon-separated, `# hostname;interval;timestamp;DEV;...`).
pub fn parse_sadf<R: BufRead>(reader: R, file: &str) -> Result<Capture, ProfileError> {
    parse(reader, file, Dialect::Sadf)
}

fn split_semicolons(line: &[u8], out: &mut Vec<(usize, usize)>) {
    out.clear();
    let mut start = 0;
    for (i, &b) in line.iter().enumerate() {
        if b == b';' {
            out.push((start, i));
            start = i + 1;
        }
    }
    out.push((start, line.len()));
}

fn parse<R: BufRead>(reader: R, file: &str, dialect: Dialect) -> Result<Capture, ProfileError> {
    let tool = match dialect {
        Dialect::Sar => Tool::Sar,
        Dialect::Sadf => Tool::Sadf,
    };
    let mut capture = Capture::new(file.to_string(), tool);
    capture.read_split_estimated = true;
    let mut lines = LineReader::new(reader);
    let mut fields: Vec<(usize, usize)> = Vec::with_capacity(32);
    let mut table: Option<Table> = None;
    // Sections (-u, -d, -r) each list the same times; a report is one (day, time). The day
    // counts midnights within a section (`sar -d 10 60480` runs for a week) and days files
    // appended one after the other (a banner line after data starts the next day).
    let mut days = DayCounter::default();
    let mut reports = Reports::default();
    let mut device_hint = 0usize;
    let mut disk_tables = 0;

    loop {
        let (line_no, line) = match lines.next_line() {
            Ok(Some(next)) => next,
            Ok(None) => break,
            Err(source) => {
                return Err(ProfileError::Io {
                    file: file.to_string(),
                    source,
                })
            }
        };
        if is_blank(line) || line.windows(7).any(|w| w == b"RESTART") {
            continue; // "LINUX RESTART" marks a reboot inside the sa file
        }
        if let Some(names) = header_names(dialect, line, &mut fields) {
            let built = table_from(names, file, line_no)?;
            if built.section == Section::Disk {
                disk_tables += 1;
            }
            table = Some(built);
            days.new_section();
            device_hint = 0;
            continue;
        }
        if dialect == Dialect::Sadf {
            split_semicolons(line, &mut fields);
        }
        // Data rows: the time comes first (sar) or in the timestamp column (sadf).
        let clock_text = clock_text(dialect, line, &fields);
        let stamp = |text: &str| match dialect {
            Dialect::Sar => time_of_day_s(text),
            Dialect::Sadf => crate::clock::sadf_time_of_day_s(text),
        };
        let Some(time_of_day) = std::str::from_utf8(clock_text).ok().and_then(stamp) else {
            untimed_row(dialect, line, clock_text, &mut days, file, line_no)?;
            continue;
        };
        let Some(table) = table.as_ref() else {
            if dialect == Dialect::Sadf {
                return Err(ProfileError::syntax(
                    file,
                    line_no,
                    None,
                    "a data row before any `# hostname;interval;timestamp;...` header",
                    "give unedited `sadf -d FILE -- -d -p` output, header line included",
                ));
            }
            continue;
        };
        if table.section == Section::Other {
            continue;
        }
        if fields.len() != table.slots.len() {
            return Err(ProfileError::syntax(
                file,
                line_no,
                table.names.get(fields.len()).map(String::as_str),
                format!(
                    "the row has {} fields but its header has {}",
                    fields.len(),
                    table.slots.len()
                ),
                "the file looks truncated or edited; remove the damaged line or re-capture",
            ));
        }
        // One report per distinct time; sections of the same interval share it.
        let report = reports.of(&mut capture, days.elapsed_s(time_of_day));
        if dialect == Dialect::Sadf {
            if let Some(interval) = fields
                .get(1)
                .and_then(|&(a, b)| parse_decimal(&line[a..b]))
                .filter(|v| *v > 0.0)
            {
                capture
                    .interval_s
                    .get_or_insert(iofit_model::units::Seconds(interval));
            }
        }
        let name = table.name_column.map(|c| &line[fields[c].0..fields[c].1]);
        let skip_columns = match dialect {
            Dialect::Sar => 1,
            Dialect::Sadf => 3,
        };
        let cells = read_cells(line, &fields, table, skip_columns, report, file, line_no)?;
        store(&mut capture, table, name, cells, report, &mut device_hint);
    }
    if disk_tables == 0 {
        let fix = match dialect {
            Dialect::Sar => "capture the disk report with `sar -d -p INTERVAL COUNT`",
            Dialect::Sadf => "export the disk report with `sadf -d SA_FILE -- -d -p`",
        };
        return Err(ProfileError::content(
            file,
            "no disk (DEV) report found",
            fix,
        ));
    }
    if capture.reports() == 0 {
        return Err(ProfileError::content(
            file,
            "the disk report has a header but no samples",
            "capture at least one interval, e.g. `sar -d -p 1 600`",
        ));
    }
    Ok(capture)
}

/// The column names when `line` is a header line (sadf's `# ...` line; sar's line naming DEV,
/// CPU, memory or network columns, or a time followed by words only).
fn header_names(
    dialect: Dialect,
    line: &[u8],
    fields: &mut Vec<(usize, usize)>,
) -> Option<Vec<String>> {
    match dialect {
        Dialect::Sadf if line.starts_with(b"# ") => {
            split_semicolons(&line[2..], fields);
            Some(
                fields
                    .iter()
                    .map(|&(a, b)| String::from_utf8_lossy(&line[2 + a..2 + b]).into_owned())
                    .collect(),
            )
        }
        Dialect::Sar => {
            split_fields(line, fields);
            let names: Vec<&[u8]> = fields.iter().map(|&(a, b)| &line[a..b]).collect();
            let is_header = names
                .iter()
                .any(|n| matches!(*n, b"DEV" | b"CPU" | b"%memused" | b"kbmemfree" | b"IFACE"))
                || (names.len() > 1
                    && names[1..].iter().all(|n| parse_decimal(n).is_none())
                    && time_of_day_s(&String::from_utf8_lossy(names[0])).is_some());
            is_header.then(|| {
                names
                    .iter()
                    .map(|n| String::from_utf8_lossy(n).into_owned())
                    .collect()
            })
        }
        Dialect::Sadf => None,
    }
}

/// A data row's time text: its first field (two with a 12-hour clock, sar) or the timestamp
/// column (sadf).
fn clock_text<'a>(dialect: Dialect, line: &'a [u8], fields: &[(usize, usize)]) -> &'a [u8] {
    match dialect {
        Dialect::Sar => match fields.get(1) {
            // A 12-hour clock takes two fields: "05:10:02 PM".
            Some(&(a, b)) if matches!(&line[a..b], b"AM" | b"PM" | b"am" | b"pm") => {
                &line[fields[0].0..b]
            }
            _ => &line[fields[0].0..fields[0].1],
        },
        Dialect::Sadf => match fields.get(2) {
            Some(&(a, b)) => &line[a..b],
            None => &line[..0],
        },
    }
}

/// A row without a time of day: sar's "Average:" lines (localised: "Durchschn.:", "平均値:")
/// and banners are passed over (a banner after data starts the next day's file); anything
/// else is damage.
fn untimed_row(
    dialect: Dialect,
    line: &[u8],
    clock_text: &[u8],
    days: &mut DayCounter,
    file: &str,
    line_no: u64,
) -> Result<(), ProfileError> {
    // A row whose first field starts with a digit but is no time of day: a damaged stamp
    // (`17:-5:10`), never one of sar's own lines.
    if dialect == Dialect::Sar && line.first().is_some_and(u8::is_ascii_digit) {
        return Err(broken_stamp(clock_text, file, line_no));
    }
    if dialect == Dialect::Sar || line_no == 1 {
        if line.starts_with(b"Linux") {
            days.new_file();
        }
        return Ok(());
    }
    Err(ProfileError::syntax(
        file,
        line_no,
        Some("timestamp"),
        format!(
            "no time stamp in '{}'",
            excerpt(&String::from_utf8_lossy(line))
        ),
        "give unedited `sadf -d FILE -- -d -p` output",
    ))
}

/// The reports by time: sections (-u, -d, -r) each list the same times, and one (day, time)
/// is one report.
#[derive(Default)]
struct Reports {
    by_time_ms: HashMap<u64, u32>,
    last: Option<(u64, u32)>,
}

impl Reports {
    /// The report at `elapsed` seconds, begun when the time is new.
    fn of(&mut self, capture: &mut Capture, elapsed: f64) -> u32 {
        let key = (elapsed * 1000.0).round() as i64 as u64;
        match self.last {
            Some((k, r)) if k == key => r,
            _ => {
                let r = *self
                    .by_time_ms
                    .entry(key)
                    .or_insert_with(|| capture.push_report(elapsed));
                self.last = Some((key, r));
                r
            }
        }
    }
}

/// Stores a data row's cells: a device's sample (its transfers split into reads and writes by
/// byte share, as sar gives transfers only), the host's CPU or memory share.
fn store(
    capture: &mut Capture,
    table: &Table,
    name: Option<&[u8]>,
    cells: Cells,
    report: u32,
    device_hint: &mut usize,
) {
    let Cells {
        tps,
        mut sample,
        idle,
        mem,
    } = cells;
    match table.section {
        Section::Disk => {
            let Some(name) = name else { return };
            let bytes = sample.read_bytes_s.0 + sample.write_bytes_s.0;
            let read_share = if bytes > 0.0 {
                sample.read_bytes_s.0 / bytes
            } else {
                0.0
            };
            sample.read_iops = iofit_model::Iops(tps * read_share);
            sample.write_iops = iofit_model::Iops(tps) - sample.read_iops;
            let index = capture.device_index(name, *device_hint);
            *device_hint = index + 1;
            capture.devices[index].samples.push(sample);
        }
        Section::Cpu => {
            if matches!(name, Some(b"all") | Some(b"-1")) {
                capture.host[report as usize].cpu_pct = (100.0 - idle).clamp(0.0, 100.0);
            }
        }
        Section::Memory => capture.host[report as usize].memory_pct = mem,
        Section::Other => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAR12: &str = "Linux 6.18.44 (vm) \t11/22/26 \t_x86_64_\t(2 CPU)

17:20:07          tps     rkB/s     wkB/s     dkB/s   areq-sz    aqu-sz     await     %util DEV
17:20:08       400.00   2400.00    800.00      0.00      8.00      1.00      2.00     50.00 sdb
17:20:08       100.00      0.00    400.00      0.00      4.00      0.10      0.50     10.00 sdc
17:20:09       200.00   1600.00      0.00      0.00      8.00      0.50      1.00     30.00 sdb
17:20:09         0.00      0.00      0.00      0.00      0.00      0.00      0.00      0.00 sdc
Average:       300.00   2000.00    400.00      0.00      8.00      0.75      1.50     40.00 sdb
Average:        50.00      0.00    200.00      0.00      4.00      0.05      0.25      5.00 sdc
";

    #[test]
    fn a_week_of_sar_counts_days() {
        let mut text = String::from("Linux 6.1 (h) \t11/16/26 \t_x86_64_\t(2 CPU)\n\n00:00:00          tps     rkB/s     wkB/s   areq-sz    aqu-sz     await     %util DEV\n");
        for i in 1..=(3 * 24) {
            let t = i * 3600 % 86_400;
            text.push_str(&format!(
                "{:02}:00:00 {} 8.00 0.00 8.00 0.01 1.00 1.00 sda\n",
                t / 3600,
                i
            ));
        }
        let capture = parse_sar(text.as_bytes(), "week.txt").unwrap();
        assert_eq!(
            capture.reports(),
            72,
            "three days of hourly samples, no time merged"
        );
        assert_eq!(capture.report_time_s[71], 71.0 * 3600.0);
        assert_eq!(capture.devices[0].samples.len(), 72);
        assert_eq!(
            capture.devices[0].samples[71].read_iops,
            iofit_model::Iops(72.0)
        );
        // The same days as two files appended: the second banner starts day 2.
        let half = text.find("00:00:00 24 ").unwrap();
        let split = format!(
            "{}Linux 6.1 (h) \t11/17/26 \t_x86_64_\t(2 CPU)\n\n00:00:00          tps     rkB/s     wkB/s   areq-sz    aqu-sz     await     %util DEV\n{}",
            &text[..half],
            &text[half..]
        );
        let capture = parse_sar(split.as_bytes(), "days.txt").unwrap();
        assert_eq!(capture.reports(), 72);
    }

    #[test]
    fn sar_splits_tps_by_bytes() {
        let capture = parse_sar(SAR12.as_bytes(), "sar.txt").unwrap();
        assert_eq!(capture.reports(), 2);
        assert_eq!(capture.report_time_s, vec![0.0, 1.0]);
        let sdb = &capture.devices[0];
        assert_eq!(sdb.name, "sdb");
        assert_eq!(sdb.samples[0].read_iops, iofit_model::Iops(300.0));
        assert_eq!(sdb.samples[0].write_iops, iofit_model::Iops(100.0));
        assert_eq!(sdb.samples[1].read_iops, iofit_model::Iops(200.0));
        assert_eq!(
            capture.devices[1].samples[0].write_iops,
            iofit_model::Iops(100.0)
        );
        assert!(capture.read_split_estimated);
    }

    #[test]
    fn sar_old_12_hour_clock_with_cpu() {
        let text = "Linux 3.10.0 (db01) \t03/14/2019 \t_x86_64_\t(8 CPU)

05:10:01 PM     CPU     %user     %nice   %system   %iowait    %steal     %idle
05:10:02 PM     all     10.00      0.00      5.00      1.00      0.00     84.00

05:10:01 PM       DEV       tps  rd_sec/s  wr_sec/s  avgrq-sz  avgqu-sz     await     svctm     %util
05:10:02 PM  dev8-16     10.00     80.00     80.00     16.00      0.10      1.00      0.50      1.00
";
        let capture = parse_sar(text.as_bytes(), "old.txt").unwrap();
        assert_eq!(capture.reports(), 1);
        assert_eq!(capture.devices[0].name, "dev8-16");
        assert_eq!(
            capture.devices[0].samples[0].read_bytes_s,
            iofit_model::BytesPerSecond(80.0 * 512.0)
        );
        assert_eq!(
            capture.devices[0].samples[0].read_iops,
            iofit_model::Iops(5.0)
        );
        assert_eq!(capture.host[0].cpu_pct, 16.0);
    }

    #[test]
    fn sar_memory_and_cpu_sections_feed_the_host() {
        let text = "Linux 6.18.44 (vm) \t11/22/26 \t_x86_64_\t(2 CPU)

17:20:07        CPU     %user     %nice   %system   %iowait    %steal     %idle
17:20:08        all     10.00      0.00      5.00      1.00      0.00     84.00

17:20:07    kbmemfree   kbavail kbmemused  %memused kbbuffers  kbcached  kbcommit   %commit  kbactive   kbinact   kbdirty
17:20:08     20000000  22000000   3000000     12.50    100000   2000000   4000000     15.00   1000000   2000000       100

17:20:07          DEV       tps     rkB/s     wkB/s     dkB/s   areq-sz    aqu-sz     await     %util
17:20:08          vda     10.00     40.00     40.00      0.00      8.00      0.01      1.00      1.00
";
        let capture = parse_sar(text.as_bytes(), "r.txt").unwrap();
        assert_eq!(capture.reports(), 1);
        assert_eq!(capture.host[0].cpu_pct, 16.0);
        assert_eq!(capture.host[0].memory_pct, 12.5);
        assert_eq!(
            capture.devices[0].samples[0].read_iops,
            iofit_model::Iops(5.0)
        );
    }

    #[test]
    fn sadf_reads_interval_and_devices() {
        let text =
            "# hostname;interval;timestamp;DEV;tps;rkB/s;wkB/s;dkB/s;areq-sz;aqu-sz;await;%util
vm;1;2026-11-22 17:20:13 UTC;vda;100.00;400.00;400.00;0.00;8.00;1.56;0.09;88.40
vm;1;2026-11-22 17:20:14 UTC;vda;50.00;0.00;400.00;0.00;8.00;1.57;0.09;88.80
";
        let capture = parse_sadf(text.as_bytes(), "s.csv").unwrap();
        assert_eq!(capture.interval_s, Some(iofit_model::units::Seconds(1.0)));
        assert_eq!(
            capture.devices[0].samples[0].read_iops,
            iofit_model::Iops(50.0)
        );
        assert_eq!(
            capture.devices[0].samples[1].write_iops,
            iofit_model::Iops(50.0)
        );
    }

    #[test]
    fn sadf_short_row_is_an_error() {
        let text = "# hostname;interval;timestamp;DEV;tps;rkB/s;wkB/s\nvm;1;2026-11-22 17:20:13 UTC;vda;100.00\n";
        let error = parse_sadf(text.as_bytes(), "s.csv")
            .unwrap_err()
            .to_string();
        assert!(error.contains("s.csv:2, column 'rkB/s'"), "{error}");
    }
}
