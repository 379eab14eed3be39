//! Windows PerfMon CSV as `typeperf -o` and `relog -f csv` write it:
//!
//! ```text
//! "(PDH-CSV 4.0) (W. Europe Standard Time)(-60)","\\DB01\PhysicalDisk(1 E:)\Disk Reads/sec",...
//! "11/22/2026 17:18:26.123","1234.5",...
//! ```
//!
//! Counter paths are `\\HOST\Object(Instance)\Counter`. English, German and Japanese object and
//! counter names are recognised (a German Windows writes "Physikalischer Datenträger" and
//! "Lesevorgänge/s"; a Japanese Windows keeps most disk counters in English). Values may use a
//! decimal comma ("0,0123"); a blank value (" ") is a missing sample. Files in UTF-16 (with BOM),
//! UTF-8 or the Windows ANSI code page (read as Windows-1252) are accepted.

use crate::capture::{Capture, DiskSample, Tool};
use crate::clock::{time_of_day_s, Timeline};
use crate::error::{excerpt, ProfileError};
use crate::notes::CaptureNote;
use crate::num::parse_decimal;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Object {
    Physical,
    Logical,
    Processor,
    Memory,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Counter {
    Reads,
    Writes,
    ReadBytes,
    WriteBytes,
    SecPerRead,
    SecPerWrite,
    CurrentQueue,
    AvgQueue,
    ProcessorTime,
    CommittedPct,
}

fn normalise(name: &str) -> String {
    name.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

fn object_of(name: &str) -> Option<Object> {
    Some(match normalise(name).as_str() {
        "physicaldisk" | "physikalischer datenträger" | "物理ディスク" | "физический диск" => {
            Object::Physical
        }
        "logicaldisk" | "logischer datenträger" | "論理ディスク" | "логический диск" => {
            Object::Logical
        }
        "processor"
        | "processor information"
        | "prozessor"
        | "prozessorinformationen"
        | "プロセッサ"
        | "процессор"
        | "сведения о процессоре" => Object::Processor,
        "memory" | "arbeitsspeicher" | "speicher" | "メモリ" | "память" => Object::Memory,
        _ => return None,
    })
}

fn counter_of(name: &str) -> Option<Counter> {
    Some(match normalise(name).as_str() {
        // Russian: older Windows says "Обращений ... /с", newer "Операций ... в секунду".
        "disk reads/sec"
        | "lesevorgänge/s"
        | "ディスク読み取り/秒"
        | "обращений чтения с диска/с"
        | "операций чтения с диска в секунду" => Counter::Reads,
        "disk writes/sec"
        | "schreibvorgänge/s"
        | "ディスク書き込み/秒"
        | "обращений записи на диск/с"
        | "операций записи на диск в секунду" => Counter::Writes,
        "disk read bytes/sec"
        | "bytes gelesen/s"
        | "byte gelesen/s"
        | "ディスク読み取りバイト/秒"
        | "скорость чтения с диска (байт/с)" => Counter::ReadBytes,
        "disk write bytes/sec"
        | "bytes geschrieben/s"
        | "byte geschrieben/s"
        | "ディスク書き込みバイト/秒"
        | "скорость записи на диск (байт/с)" => Counter::WriteBytes,
        "avg. disk sec/read"
        | "average disk sec/read"
        | "mittlere sek./lesevorgänge"
        | "mittlere sek./lesevorgang"
        | "среднее время чтения с диска (с)"
        | "среднее время чтения с диска (сек)" => Counter::SecPerRead,
        "avg. disk sec/write"
        | "average disk sec/write"
        | "mittlere sek./schreibvorgänge"
        | "mittlere sek./schreibvorgang"
        | "среднее время записи на диск (с)"
        | "среднее время записи на диск (сек)" => Counter::SecPerWrite,
        "current disk queue length"
        | "aktuelle warteschlangenlänge"
        | "現在のディスク キューの長さ"
        | "текущая длина очереди диска" => Counter::CurrentQueue,
        "avg. disk queue length" | "average disk queue length" | "средняя длина очереди диска" => {
            Counter::AvgQueue
        }
        "% processor time"
        | "prozessorzeit (%)"
        | "% prozessorzeit"
        | "% プロセッサ時間"
        | "% загруженности процессора" => Counter::ProcessorTime,
        "% committed bytes in use"
        | "zugesicherte verwendete bytes (%)"
        | "% 使用中のコミット バイト"
        | "% использования выделенной памяти" => Counter::CommittedPct,
        // IO sizes (Avg. Disk Bytes/Read...) and % Disk Read/Write Time are recognised but not
        // needed: sizes are computed exactly as bytes/IOs, and shares from the IO counts.
        _ => return None,
    })
}

/// `\\HOST\Object(Instance)\Counter` -> (object, instance, counter).
fn split_path(path: &str) -> Option<(&str, &str, &str)> {
    let rest = path.strip_prefix("\\\\").unwrap_or(path);
    let rest = rest.strip_prefix('\\').unwrap_or(rest);
    // Skip the host (absent in some relog output: "\Object(...)\Counter").
    let rest = match rest.find('\\') {
        Some(slash) if !rest[..slash].contains('(') => &rest[slash + 1..],
        _ => rest,
    };
    let counter_at = rest.rfind('\\')?;
    let (object_instance, counter) = (&rest[..counter_at], &rest[counter_at + 1..]);
    match (object_instance.find('('), object_instance.rfind(')')) {
        (Some(open), Some(close)) if close > open => Some((
            &object_instance[..open],
            &object_instance[open + 1..close],
            counter,
        )),
        _ => Some((object_instance, "", counter)),
    }
}

/// Decodes the file: UTF-16 LE/BE with BOM (typeperf and relog's `-f csv` on some builds),
/// UTF-8 (BOM stripped), else the Windows ANSI code page the file was written in. A CSV does
/// not say which code page, so the candidates (1252 Western, 1251 Cyrillic, 932 Japanese) are
/// tried on the header row and the one naming the most known counters wins.
pub fn decode(bytes: &[u8]) -> String {
    if let Some((encoding, bom_length)) = encoding_rs::Encoding::for_bom(bytes) {
        let (text, _) = encoding.decode_without_bom_handling(&bytes[bom_length..]);
        return text.into_owned();
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        return text.to_string();
    }
    let header_end = bytes
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or(bytes.len());
    let header = &bytes[..header_end];
    let candidates = [
        encoding_rs::WINDOWS_1252,
        encoding_rs::WINDOWS_1251,
        encoding_rs::SHIFT_JIS,
    ];
    let best = candidates
        .iter()
        .copied()
        .enumerate()
        .max_by_key(|&(index, encoding)| {
            let (text, _, malformed) = encoding.decode(header);
            // Known counters first, then clean decoding; on a tie the earlier candidate
            // (max_by_key keeps the last maximum, hence the reversed index).
            let known = text
                .split("\",\"")
                .filter(|path| {
                    split_path(path.trim_matches('"'))
                        .is_some_and(|(o, _, c)| object_of(o).is_some() && counter_of(c).is_some())
                })
                .count();
            (known, !malformed, std::cmp::Reverse(index))
        })
        .map_or(encoding_rs::WINDOWS_1252, |(_, encoding)| encoding);
    let (text, _, _) = best.decode(bytes);
    text.into_owned()
}

/// Splits one CSV record: fields separated by commas, optionally quoted with `""` escapes.
fn split_csv(line: &str, out: &mut Vec<String>) -> Result<(), &'static str> {
    out.clear();
    let mut chars = line.chars().peekable();
    loop {
        let mut field = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            loop {
                match chars.next() {
                    Some('"') if chars.peek() == Some(&'"') => {
                        chars.next();
                        field.push('"');
                    }
                    Some('"') => break,
                    Some(c) => field.push(c),
                    None => return Err("a quoted field is not closed"),
                }
            }
            out.push(field);
            match chars.next() {
                Some(',') => {}
                None => return Ok(()),
                Some(_) => return Err("text after a closing quote"),
            }
        } else {
            let mut ended_with_comma = false;
            for c in chars.by_ref() {
                if c == ',' {
                    ended_with_comma = true;
                    break;
                }
                field.push(c);
            }
            out.push(field);
            if !ended_with_comma {
                return Ok(());
            }
        }
        if chars.peek().is_none() {
            out.push(String::new()); // a trailing comma ends with one empty field
            return Ok(());
        }
    }
}

/// The exact command that captures what a requirement needs, for the messages.
pub use crate::commands::BYTES_COMMAND;

struct Column {
    /// Index into the capture's devices, or None for host counters.
    device: Option<usize>,
    counter: Counter,
    name: String,
}

/// Parses PerfMon CSV bytes; `file` names it in errors.
pub fn parse_perfmon(bytes: &[u8], file: &str) -> Result<Capture, ProfileError> {
    let text = decode(bytes);
    let mut capture = Capture::new(file.to_string(), Tool::PerfMon);
    let mut cells: Vec<String> = Vec::new();
    let mut columns: Vec<Option<Column>> = Vec::new();
    let mut header_seen = false;
    let mut timeline = Timeline::default();
    let mut physical: Vec<bool> = Vec::new();
    let mut complete: Vec<bool> = Vec::new();

    for (index, raw) in text.split('\n').enumerate() {
        let line_no = index as u64 + 1;
        let line = raw.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        if let Err(problem) = split_csv(line, &mut cells) {
            return Err(ProfileError::syntax(
                file,
                line_no,
                None,
                format!("{problem} in '{}'", excerpt(line)),
                "give the CSV unedited as typeperf or relog wrote it; the file may be truncated",
            ));
        }
        if !header_seen {
            header_seen = true;
            Header {
                columns,
                physical,
                complete,
            } = read_header(&cells, &mut capture, file, line_no)?;
            continue;
        }
        if cells.len() != columns.len() + 1 {
            return Err(ProfileError::syntax(
                file,
                line_no,
                None,
                format!(
                    "the row has {} values but the header names {} columns",
                    cells.len(),
                    columns.len() + 1
                ),
                "the file looks truncated or edited; remove the damaged row or re-capture",
            ));
        }
        let Some(time_of_day) = time_of_day_s(&cells[0]) else {
            return Err(ProfileError::syntax(
                file,
                line_no,
                Some("(PDH-CSV 4.0)"),
                format!("'{}' is not a time stamp", excerpt(&cells[0])),
                "each row starts with a time such as \"11/22/2026 17:18:26.123\"; re-capture",
            ));
        };
        let report = capture.push_report(timeline.elapsed_s(time_of_day));
        read_row(&cells, &columns, report, &mut capture, file, line_no)?;
    }
    if !header_seen {
        return Err(ProfileError::content(
            file,
            "the file is empty",
            "give a CSV written by `typeperf -f CSV -o FILE` or `relog LOG.blg -f csv -o FILE`",
        ));
    }
    if capture.reports() == 0 {
        return Err(ProfileError::content(
            file,
            "the header has no sample rows after it",
            "capture some samples: `typeperf -cf counters.txt -si 1 -sc 600 -o FILE`",
        ));
    }
    // Physical disks first; logical volumes are kept (selectable with --device) but marked.
    for (series, is_physical) in capture.devices.iter_mut().zip(&physical) {
        if !is_physical {
            series.logical = true;
        }
    }
    let mut keep = complete.into_iter();
    capture.devices.retain(|_| keep.next().unwrap_or(false));
    Ok(capture)
}

/// Reads the header row: the columns iofit reads (device and counter), which devices are
/// physical disks, and which have every counter sizing needs.
fn read_header(
    cells: &[String],
    capture: &mut Capture,
    file: &str,
    line_no: u64,
) -> Result<Header, ProfileError> {
    let mut columns: Vec<Option<Column>> = Vec::new();
    let mut physical: Vec<bool> = Vec::new();
    if !cells[0].starts_with("(PDH-CSV") {
        return Err(ProfileError::syntax(
            file,
            line_no,
            None,
            format!(
                "the first row does not start with \"(PDH-CSV 4.0)\" but '{}'",
                excerpt(&cells[0])
            ),
            "give a CSV written by `typeperf -f CSV -o FILE` or `relog LOG.blg -f csv -o FILE`",
        ));
    }
    // Only `_Total` captured for a disk object (Azure's DTU calculator records
    // `\LogicalDisk(_Total)\Disk Reads/sec`): then the total is the one volume.
    let total_only = |object: Object| {
        let mut paths = cells[1..]
            .iter()
            .filter_map(|p| split_path(p))
            .filter(|(o, _, c)| object_of(o) == Some(object) && counter_of(c).is_some());
        paths.clone().next().is_some() && paths.all(|(_, instance, _)| is_total(instance))
    };
    let keep_total = [total_only(Object::Physical), total_only(Object::Logical)];
    for path in &cells[1..] {
        columns.push(classify(path, capture, &mut physical, keep_total));
    }
    if keep_total.contains(&true) {
        capture.notes.push(CaptureNote::PerfmonTotalOnly {
            file: file.to_string(),
        });
    }
    if !columns.iter().flatten().any(|c| c.device.is_some()) {
        return Err(ProfileError::content(
            file,
            "no PhysicalDisk or LogicalDisk counters (Disk Reads/sec, Disk Writes/sec, ...)",
            "capture the disk counters too, e.g. `typeperf \"\\PhysicalDisk(*)\\Disk \
             Reads/sec\" \"\\PhysicalDisk(*)\\Disk Writes/sec\" \"\\PhysicalDisk(*)\\Disk \
             Read Bytes/sec\" \"\\PhysicalDisk(*)\\Disk Write Bytes/sec\" -si 1 -o perf.csv`",
        ));
    }
    let complete = check_required(&columns, capture, file)?;
    Ok(Header {
        columns,
        physical,
        complete,
    })
}

/// What the header row says about the columns and devices.
struct Header {
    /// Per column after the time: what iofit reads from it (None: a column it does not use).
    columns: Vec<Option<Column>>,
    /// Per device: a physical disk (else a logical volume).
    physical: Vec<bool>,
    /// Per device: has every counter sizing needs.
    complete: Vec<bool>,
}

/// Reads a sample row into the report `report`: a device's sample is kept when it has its
/// IO counts (and bytes, unless the capture has none).
fn read_row(
    cells: &[String],
    columns: &[Option<Column>],
    report: u32,
    capture: &mut Capture,
    file: &str,
    line_no: u64,
) -> Result<(), ProfileError> {
    let mut row: Vec<DiskSample> = vec![DiskSample::empty(report); capture.devices.len()];
    for (column, cell) in columns.iter().zip(&cells[1..]) {
        let Some(column) = column else { continue };
        let trimmed = cell.trim();
        if trimmed.is_empty() {
            continue; // a missing sample
        }
        let Some(value) = parse_decimal(trimmed.as_bytes()) else {
            return Err(ProfileError::syntax(
                file,
                line_no,
                Some(&column.name),
                format!("'{}' is not a number", excerpt(trimmed)),
                "values must be numbers (a decimal comma is fine); remove the damaged row",
            ));
        };
        match (column.device, column.counter) {
            (Some(d), counter) => apply(&mut row[d], counter, value),
            (None, Counter::ProcessorTime) => capture.host[report as usize].cpu_pct = value,
            (None, Counter::CommittedPct) => capture.host[report as usize].memory_pct = value,
            (None, _) => {}
        }
    }
    for (d, sample) in row.into_iter().enumerate() {
        let bytes_known = !(sample.read_bytes_s.0.is_nan() || sample.write_bytes_s.0.is_nan());
        let complete = !(sample.read_iops.get().is_nan() || sample.write_iops.get().is_nan())
            && (bytes_known || capture.bytes_missing);
        if complete {
            capture.devices[d].samples.push(sample);
        }
    }
    Ok(())
}

/// Sets the sample's field that `counter` measures (seconds become ms; the current queue wins
/// over the average one).
fn apply(sample: &mut DiskSample, counter: Counter, value: f64) {
    match counter {
        Counter::Reads => sample.read_iops = iofit_model::Iops(value),
        Counter::Writes => sample.write_iops = iofit_model::Iops(value),
        Counter::ReadBytes => sample.read_bytes_s = iofit_model::BytesPerSecond(value),
        Counter::WriteBytes => sample.write_bytes_s = iofit_model::BytesPerSecond(value),
        Counter::SecPerRead => sample.read_latency_ms = iofit_model::units::Millis(value * 1000.0),
        Counter::SecPerWrite => {
            sample.write_latency_ms = iofit_model::units::Millis(value * 1000.0)
        }
        Counter::CurrentQueue => sample.queue_depth = value,
        Counter::AvgQueue => {
            if sample.queue_depth.is_nan() {
                sample.queue_depth = value
            }
        }
        Counter::ProcessorTime | Counter::CommittedPct => {}
    }
}

fn is_total(instance: &str) -> bool {
    matches!(
        instance.to_lowercase().as_str(),
        "_total" | "_gesamt" | "_合計"
    )
}

/// `keep_total`: use the `_Total` instance of PhysicalDisk, LogicalDisk as a device.
fn classify(
    path: &str,
    capture: &mut Capture,
    physical: &mut Vec<bool>,
    keep_total: [bool; 2],
) -> Option<Column> {
    let (object, instance, counter) = split_path(path)?;
    let object = object_of(object)?;
    let counter = counter_of(counter)?;
    let total = is_total(instance);
    let device = match object {
        Object::Physical | Object::Logical => {
            let keep = keep_total[usize::from(object == Object::Logical)];
            if total && !keep {
                return None;
            }
            let index = capture.device_index(instance.as_bytes(), usize::MAX);
            if physical.len() <= index {
                physical.resize(index + 1, object == Object::Physical);
            }
            Some(index)
        }
        Object::Processor if total || instance.eq_ignore_ascii_case("0,_Total") => None,
        Object::Processor => return None, // single CPUs: _Total stands for the host
        Object::Memory => None,
    };
    if device.is_some() && matches!(counter, Counter::ProcessorTime | Counter::CommittedPct) {
        return None;
    }
    if device.is_none() && !matches!(counter, Counter::ProcessorTime | Counter::CommittedPct) {
        return None;
    }
    Some(Column {
        device,
        counter,
        name: path.to_string(),
    })
}

/// Which devices have the four counters a requirement needs. A disk or volume without them
/// (typically a LogicalDisk captured with Disk Reads/sec only) is left out with a note; only
/// when no disk has them all is the file refused.
fn check_required(
    columns: &[Option<Column>],
    capture: &mut Capture,
    file: &str,
) -> Result<Vec<bool>, ProfileError> {
    let mut complete = Vec::new();
    let mut first_missing: Option<(String, &str)> = None;
    for (index, series) in capture.devices.iter().enumerate() {
        let has = |wanted: Counter| {
            columns
                .iter()
                .flatten()
                .any(|c| c.device == Some(index) && c.counter == wanted)
        };
        let missing = [
            (Counter::Reads, "Disk Reads/sec"),
            (Counter::Writes, "Disk Writes/sec"),
            (Counter::ReadBytes, "Disk Read Bytes/sec"),
            (Counter::WriteBytes, "Disk Write Bytes/sec"),
        ]
        .into_iter()
        .find(|(counter, _)| !has(*counter))
        .map(|(_, name)| name);
        if let Some(name) = missing {
            first_missing.get_or_insert((series.name.clone(), name));
        }
        complete.push(missing.is_none());
    }
    if !complete.iter().any(|c| *c) {
        // No disk has bytes: with reads and writes per second, IOPS and read % can still be
        // sized; throughput and IO size cannot, and the capture says so.
        let with_ops: Vec<bool> = (0..capture.devices.len())
            .map(|index| {
                let has = |wanted: Counter| {
                    columns
                        .iter()
                        .flatten()
                        .any(|c| c.device == Some(index) && c.counter == wanted)
                };
                has(Counter::Reads) && has(Counter::Writes)
            })
            .collect();
        if with_ops.iter().any(|c| *c) {
            capture.bytes_missing = true;
            capture.notes.push(CaptureNote::PerfmonNoBytes {
                file: file.to_string(),
            });
            return Ok(with_ops);
        }
        let (disk, counter) = first_missing.expect("some disk is incomplete");
        return Err(ProfileError::syntax(
            file,
            1,
            Some(counter),
            format!("no disk has all four IO counters (disk '{disk}' lacks {counter})"),
            format!("capture at least Disk Reads/sec and Disk Writes/sec (better all four) for every disk: {BYTES_COMMAND}"),
        ));
    }
    let left_out: Vec<String> = capture
        .devices
        .iter()
        .zip(&complete)
        .filter(|(_, c)| !**c)
        .map(|(d, _)| d.name.clone())
        .collect();
    if !left_out.is_empty() {
        capture.notes.push(CaptureNote::PerfmonIncompleteDisks {
            file: file.to_string(),
            disks: left_out,
        });
    }
    Ok(complete)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_counter_paths() {
        assert_eq!(
            split_path(r"\\DB01\PhysicalDisk(1 E:)\Disk Reads/sec"),
            Some(("PhysicalDisk", "1 E:", "Disk Reads/sec"))
        );
        assert_eq!(
            split_path(r"\\DB01\Memory\% Committed Bytes In Use"),
            Some(("Memory", "", "% Committed Bytes In Use"))
        );
    }

    #[test]
    fn german_names_and_decimal_commas() {
        let text = "\"(PDH-CSV 4.0) (Mitteleuropäische Zeit)(-60)\",\"\\\\DB01\\Physikalischer Datenträger(1 E:)\\Lesevorgänge/s\",\"\\\\DB01\\Physikalischer Datenträger(1 E:)\\Schreibvorgänge/s\",\"\\\\DB01\\Physikalischer Datenträger(1 E:)\\Bytes gelesen/s\",\"\\\\DB01\\Physikalischer Datenträger(1 E:)\\Bytes geschrieben/s\",\"\\\\DB01\\Physikalischer Datenträger(1 E:)\\Mittlere Sek./Lesevorgänge\",\"\\\\DB01\\Prozessor(_Total)\\Prozessorzeit (%)\"\r\n\"11/22/2026 17:18:26.123\",\"100,5\",\"50\",\"823296\",\"409600\",\"0,0025\",\"12,5\"\r\n\"11/22/2026 17:18:27.123\",\" \",\"50\",\"0\",\"0\",\" \",\"10\"\r\n";
        let capture = parse_perfmon(text.as_bytes(), "de.csv").unwrap();
        assert_eq!(capture.devices.len(), 1);
        assert_eq!(capture.devices[0].name, "1 E:");
        let sample = capture.devices[0].samples[0];
        assert_eq!(sample.read_iops, iofit_model::Iops(100.5));
        assert_eq!(sample.read_latency_ms, iofit_model::units::Millis(2.5));
        assert_eq!(
            capture.devices[0].samples.len(),
            1,
            "the blank row is a missing sample"
        );
        assert_eq!(capture.host[0].cpu_pct, 12.5);
        assert_eq!(capture.report_time_s, vec![0.0, 1.0]);
    }

    #[test]
    fn windows_1252_is_decoded() {
        let bytes = b"Lesevorg\xe4nge/s";
        assert_eq!(decode(bytes), "Lesevorgänge/s");
    }

    #[test]
    fn csv_quotes() {
        let mut cells = Vec::new();
        split_csv("\"a,b\",\"c\"\"d\",e,", &mut cells).unwrap();
        assert_eq!(cells, vec!["a,b", "c\"d", "e", ""]);
        assert!(split_csv("\"open", &mut cells).is_err());
    }
}
