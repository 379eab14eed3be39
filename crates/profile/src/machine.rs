//! sysstat's machine-readable forms: `iostat -o JSON`, `sadf -j` (JSON), `sadf -x` (XML) and
//! `sadf -p` (one tab-separated line per value). They hold what the text forms hold, so they
//! feed the same summary: iostat's JSON keys are its text column names (read with the text
//! reader's own column table), and sadf's disk records are split into reads and writes by
//! byte share exactly as `sar -d` rows are. The same counters give the same requirements in
//! every form (tests/data/*/sysstat-12.6.1_same-counters_*).

use crate::capture::{Capture, DiskSample, Tool};
use crate::clock::{time_of_day_s, Timeline};
use crate::error::{excerpt, ProfileError};
use crate::iostat::{drop_first_report, slot_meaning, slot_of, store, Slot};
use crate::lines::LineReader;
use crate::num::parse_decimal;
use serde_json::Value;
use std::io::BufRead;

/// The 1-based line of byte `offset` in `bytes`.
fn line_at(bytes: &[u8], offset: usize) -> u64 {
    1 + memchr::memchr_iter(b'\n', &bytes[..offset.min(bytes.len())]).count() as u64
}

/// Where in a JSON file the `nth` (0-based) occurrence of `needle` sits, as a line number:
/// serde_json's tree keeps no positions, and an error must name the line.
fn line_of_nth(bytes: &[u8], needle: &[u8], nth: usize, from: usize) -> (u64, usize) {
    let mut at = from;
    for _ in 0..=nth {
        match memchr::memmem::find(&bytes[at..], needle) {
            Some(found) => at += found + 1,
            None => return (0, from),
        }
    }
    (line_at(bytes, at - 1), at - 1)
}

fn json_tree(bytes: &[u8], file: &str) -> Result<Value, ProfileError> {
    serde_json::from_slice(bytes).map_err(|e| {
        ProfileError::syntax(
            file,
            e.line() as u64,
            None,
            format!("not valid JSON (column {}): {e}", e.column()),
            "give the unedited output of `iostat -x -t -o JSON INTERVAL COUNT` or \
             `sadf -j SA_FILE -- -d`",
        )
    })
}

/// The `statistics` array of the first host: `{"sysstat": {"hosts": [{"statistics": [...]}]}}`.
fn statistics<'a>(tree: &'a Value, file: &str, fix: &str) -> Result<&'a [Value], ProfileError> {
    tree.pointer("/sysstat/hosts/0/statistics")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .ok_or_else(|| {
            ProfileError::content(
                file,
                "no sysstat.hosts[0].statistics array in the JSON",
                fix.to_string(),
            )
        })
}

/// A number of a record: JSON numbers as they are; a string holding one (older sadf wrote
/// some that way) parsed.
fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => parse_decimal(s.as_bytes()),
        _ => None,
    }
}

/// A value that is not a number, located by the record's line.
fn not_a_number(file: &str, line: u64, key: &str, value: &Value, fix: &str) -> ProfileError {
    ProfileError::syntax(
        file,
        line,
        Some(key),
        format!("'{}' is not a number", excerpt(&value.to_string())),
        fix,
    )
}

/// Parses `iostat -x [-t] -o JSON` (sysstat 11.5+). The first report is iostat's averages since
/// boot and is left out, as in the text form, unless `keep_first`.
pub fn parse_iostat_json(
    bytes: &[u8],
    file: &str,
    keep_first: bool,
) -> Result<Capture, ProfileError> {
    const FIX: &str = "give the unedited output of `iostat -x -t -o JSON INTERVAL COUNT`";
    let tree = json_tree(bytes, file)?;
    let reports = statistics(&tree, file, FIX)?;
    let mut capture = Capture::new(file.to_string(), Tool::IostatJson);
    let mut timeline = Timeline::default();
    let mut hint = 0usize;
    let mut disk_seen = false;
    let mut search_from = 0usize;
    for (index, entry) in reports.iter().enumerate() {
        let time = entry
            .get("timestamp")
            .and_then(Value::as_str)
            .and_then(time_of_day_s)
            .map_or(f64::NAN, |t| timeline.elapsed_s(t));
        let report = capture.push_report(time);
        if let Some(idle) = entry.pointer("/avg-cpu/idle").and_then(number) {
            capture.host[report as usize].cpu_pct = (100.0 - idle).clamp(0.0, 100.0);
        }
        let Some(disks) = entry.get("disk").and_then(Value::as_array) else {
            continue;
        };
        disk_seen = true;
        for disk in disks {
            let Some(object) = disk.as_object() else {
                continue;
            };
            let name = object
                .get("disk_device")
                .and_then(Value::as_str)
                .unwrap_or("");
            let (line, at) = line_of_nth(bytes, b"\"disk_device\"", 0, search_from);
            search_from = at + 1;
            if name.is_empty() {
                return Err(ProfileError::syntax(
                    file,
                    line,
                    Some("disk_device"),
                    format!("report {} has a disk without a disk_device name", index + 1),
                    FIX,
                ));
            }
            let mut sample = DiskSample::empty(report);
            let mut found = [false; 4];
            for (key, value) in object {
                let slot = slot_of(key.as_bytes());
                if matches!(slot, Slot::Device | Slot::Ignore) {
                    continue;
                }
                let v = number(value).ok_or_else(|| not_a_number(file, line, key, value, FIX))?;
                crate::sanity::check(slot_meaning(slot), v, file, line, key)?;
                match slot {
                    Slot::ReadIops => found[0] = true,
                    Slot::WriteIops => found[1] = true,
                    Slot::ReadBytes(_) => found[2] = true,
                    Slot::WriteBytes(_) => found[3] = true,
                    _ => {}
                }
                store(&mut sample, slot, v, None);
            }
            if let Some(missing) = ["r/s", "w/s", "rkB/s", "wkB/s"]
                .iter()
                .zip(found)
                .find_map(|(k, f)| (!f).then_some(*k))
            {
                return Err(ProfileError::syntax(
                    file,
                    line,
                    Some(missing),
                    format!("device '{name}' has no {missing}"),
                    "capture with `iostat -x -o JSON` (extended statistics)",
                ));
            }
            let device = capture.device_index(name.as_bytes(), hint);
            hint = device + 1;
            capture.devices[device].samples.push(sample);
        }
    }
    if !disk_seen {
        return Err(ProfileError::content(
            file,
            "no disk statistics in the JSON",
            "capture the disks too: `iostat -x -t -o JSON INTERVAL COUNT` (without -c)",
        ));
    }
    if !keep_first {
        drop_first_report(&mut capture, file)?;
    }
    Ok(capture)
}

/// One disk record of sadf's JSON, XML or `-p` form: the values `sar -d` prints.
#[derive(Default)]
struct DiskRecord {
    tps: Option<f64>,
    read_bytes_s: Option<f64>,
    write_bytes_s: Option<f64>,
    latency_ms: Option<f64>,
    queue_depth: Option<f64>,
}

impl DiskRecord {
    fn is_disk_field(key: &str) -> bool {
        matches!(
            key,
            "tps"
                | "rkB"
                | "rkB/s"
                | "wkB"
                | "wkB/s"
                | "rd_sec"
                | "rd_sec/s"
                | "wr_sec"
                | "wr_sec/s"
                | "await"
                | "aqu-sz"
                | "avgqu-sz"
        )
    }

    /// Takes one field by its name in any of the forms (`rkB` in JSON and XML, `rkB/s` in
    /// `-p`, `rd_sec` before sysstat 11.7); false when the field is not one of the disk's.
    fn set(&mut self, key: &str, value: f64, file: &str, line: u64) -> Result<bool, ProfileError> {
        use crate::sanity::{check, Meaning};
        let (slot, meaning, scale) = match key {
            "tps" => (&mut self.tps, Meaning::Iops, 1.0),
            "rkB" | "rkB/s" => (&mut self.read_bytes_s, Meaning::Bytes(1024.0), 1024.0),
            "wkB" | "wkB/s" => (&mut self.write_bytes_s, Meaning::Bytes(1024.0), 1024.0),
            "rd_sec" | "rd_sec/s" => (&mut self.read_bytes_s, Meaning::Bytes(512.0), 512.0),
            "wr_sec" | "wr_sec/s" => (&mut self.write_bytes_s, Meaning::Bytes(512.0), 512.0),
            "await" => (&mut self.latency_ms, Meaning::LatencyMs, 1.0),
            "aqu-sz" | "avgqu-sz" => (&mut self.queue_depth, Meaning::Queue, 1.0),
            _ => return Ok(false),
        };
        check(meaning, value, file, line, key)?;
        // sysstat 12's JSON and XML write both rkB and rd_sec, each rounded to 2 decimals, so
        // they differ in the last digit. kB wins in any order: it is what `sar -d`, `sadf -d`
        // and `sadf -p` print, so every form of the same counters gives the same requirements.
        if scale == 512.0 {
            slot.get_or_insert(value * scale);
        } else {
            *slot = Some(value * scale);
        }
        Ok(true)
    }
}

/// Builds a capture from sadf's records as `sar -d` does from its rows: one report per time,
/// devices in order of appearance, reads and writes split from tps by byte share.
struct SarBuilder {
    capture: Capture,
    timeline: Timeline,
    last_time: Option<f64>,
    report: u32,
    hint: usize,
    disks: usize,
}

impl SarBuilder {
    fn new(file: &str, tool: Tool) -> SarBuilder {
        let mut capture = Capture::new(file.to_string(), tool);
        capture.read_split_estimated = true;
        SarBuilder {
            capture,
            timeline: Timeline::default(),
            last_time: None,
            report: 0,
            hint: 0,
            disks: 0,
        }
    }

    /// The report of a record stamped `time_of_day_s`, the previous one's when the stamp is
    /// the same.
    fn at(&mut self, time_of_day_s: f64, interval_s: Option<f64>) -> u32 {
        if self.last_time != Some(time_of_day_s) {
            let elapsed = self.timeline.elapsed_s(time_of_day_s);
            self.report = self.capture.push_report(elapsed);
            self.last_time = Some(time_of_day_s);
            self.hint = 0;
        }
        if let Some(interval) = interval_s.filter(|v| *v > 0.0) {
            self.capture
                .interval_s
                .get_or_insert(iofit_model::units::Seconds(interval));
        }
        self.report
    }

    fn disk(
        &mut self,
        name: &str,
        record: &DiskRecord,
        file: &str,
        line: u64,
    ) -> Result<(), ProfileError> {
        let (Some(tps), Some(read), Some(write)) =
            (record.tps, record.read_bytes_s, record.write_bytes_s)
        else {
            let missing = if record.tps.is_none() {
                "tps"
            } else if record.read_bytes_s.is_none() {
                "rkB"
            } else {
                "wkB"
            };
            return Err(ProfileError::syntax(
                file,
                line,
                Some(missing),
                format!("disk '{name}' has no {missing}"),
                "export the disk report unedited with `sadf -j|-x|-p SA_FILE -- -d`",
            ));
        };
        let mut sample = DiskSample::empty(self.report);
        sample.read_bytes_s = iofit_model::BytesPerSecond(read);
        sample.write_bytes_s = iofit_model::BytesPerSecond(write);
        sample.latency_ms = iofit_model::units::Millis(record.latency_ms.unwrap_or(f64::NAN));
        sample.queue_depth = record.queue_depth.unwrap_or(f64::NAN);
        // As `sar -d` (see sar.rs): transfers split into reads and writes by byte share.
        let bytes = read + write;
        let read_share = if bytes > 0.0 { read / bytes } else { 0.0 };
        sample.read_iops = iofit_model::Iops(tps * read_share);
        sample.write_iops = iofit_model::Iops(tps) - sample.read_iops;
        let index = self.capture.device_index(name.as_bytes(), self.hint);
        self.hint = index + 1;
        self.capture.devices[index].samples.push(sample);
        self.disks += 1;
        Ok(())
    }

    // A CPU or memory record before any report's time stamp belongs to no report: it is
    // left out (fuzzing found a file with one; indexing the empty list panicked).
    fn cpu_idle(&mut self, idle: f64) {
        if let Some(host) = self.capture.host.get_mut(self.report as usize) {
            host.cpu_pct = (100.0 - idle).clamp(0.0, 100.0);
        }
    }

    fn memory(&mut self, used_pct: f64) {
        if let Some(host) = self.capture.host.get_mut(self.report as usize) {
            host.memory_pct = used_pct;
        }
    }

    fn finish(self, file: &str, fix: &str) -> Result<Capture, ProfileError> {
        if self.disks == 0 {
            return Err(ProfileError::content(
                file,
                "no disk (DEV) records found",
                fix.to_string(),
            ));
        }
        Ok(self.capture)
    }
}

/// Parses `sadf -j SA_FILE -- -d [-u] [-r]` (sysstat 10-12).
pub fn parse_sadf_json(bytes: &[u8], file: &str) -> Result<Capture, ProfileError> {
    const FIX: &str = "export the disk report with `sadf -j SA_FILE -- -d`";
    let tree = json_tree(bytes, file)?;
    let reports = statistics(&tree, file, FIX)?;
    let mut builder = SarBuilder::new(file, Tool::SadfJson);
    let mut search_from = 0usize;
    for entry in reports {
        let (line, at) = line_of_nth(bytes, b"\"timestamp\"", 0, search_from);
        search_from = at + 1;
        let stamp = entry.get("timestamp");
        let time = stamp
            .and_then(|s| s.get("time"))
            .and_then(Value::as_str)
            .and_then(time_of_day_s)
            .ok_or_else(|| {
                ProfileError::syntax(
                    file,
                    line,
                    Some("timestamp"),
                    "a statistics record without a readable timestamp.time",
                    FIX,
                )
            })?;
        let interval = stamp.and_then(|s| s.get("interval")).and_then(number);
        builder.at(time, interval);
        if let Some(cpus) = entry.get("cpu-load").and_then(Value::as_array) {
            let all = cpus
                .iter()
                .find(|c| matches!(c.get("cpu").and_then(Value::as_str), Some("all" | "-1")));
            if let Some(idle) = all.and_then(|c| c.get("idle")).and_then(number) {
                builder.cpu_idle(idle);
            }
        }
        if let Some(used) = entry.pointer("/memory/memused-percent").and_then(number) {
            builder.memory(used);
        }
        let Some(disks) = entry.get("disk").and_then(Value::as_array) else {
            continue;
        };
        for disk in disks {
            let Some(object) = disk.as_object() else {
                continue;
            };
            let name = object
                .get("disk-device")
                .and_then(Value::as_str)
                .unwrap_or("");
            let (line, at) = line_of_nth(bytes, b"\"disk-device\"", 0, search_from);
            search_from = at + 1;
            let mut record = DiskRecord::default();
            for (key, value) in object {
                if key == "disk-device" {
                    continue;
                }
                match number(value) {
                    Some(v) => {
                        record.set(key, v, file, line)?;
                    }
                    None if matches!(key.as_str(), "tps" | "rkB" | "wkB" | "await") => {
                        return Err(not_a_number(file, line, key, value, FIX))
                    }
                    None => {}
                }
            }
            builder.disk(name, &record, file, line)?;
        }
    }
    builder.finish(file, FIX)
}

/// The attributes of one XML start tag: `name="value"` pairs (sadf -x writes no entities in
/// the names and numbers read here).
fn attributes(tag: &str) -> impl Iterator<Item = (&str, &str)> + '_ {
    let mut rest = tag;
    std::iter::from_fn(move || {
        let eq = rest.find("=\"")?;
        let name = rest[..eq].rsplit(|c: char| c.is_whitespace()).next()?;
        let after = &rest[eq + 2..];
        let end = after.find('"')?;
        let value = &after[..end];
        rest = &after[end + 1..];
        Some((name, value))
    })
}

/// Parses `sadf -x SA_FILE -- -d [-u] [-r]` (sysstat 10-12): `<timestamp time="..."
/// interval="...">` elements holding `<disk-device dev="sda" tps="..." rkB="..." .../>`.
pub fn parse_sadf_xml(text: &str, file: &str) -> Result<Capture, ProfileError> {
    const FIX: &str = "export the disk report with `sadf -x SA_FILE -- -d`";
    let bytes = text.as_bytes();
    let mut builder = SarBuilder::new(file, Tool::SadfXml);
    let mut in_report = false;
    let mut in_memory = false;
    let mut pos = 0usize;
    while let Some(found) = memchr::memchr(b'<', &bytes[pos..]) {
        let start = pos + found;
        let Some(length) = memchr::memchr(b'>', &bytes[start..]) else {
            return Err(ProfileError::syntax(
                file,
                line_at(bytes, start),
                None,
                "an XML tag is not closed (the file is cut short)",
                FIX,
            ));
        };
        let tag = &text[start + 1..start + length];
        pos = start + length + 1;
        let name = tag
            .split(|c: char| c.is_whitespace() || c == '/')
            .next()
            .unwrap_or("");
        let line = || line_at(bytes, start);
        match name {
            "timestamp" => {
                let mut time = None;
                let mut interval = None;
                for (key, value) in attributes(tag) {
                    match key {
                        "time" => time = time_of_day_s(value),
                        "interval" => interval = parse_decimal(value.as_bytes()),
                        _ => {}
                    }
                }
                let time = time.ok_or_else(|| {
                    ProfileError::syntax(
                        file,
                        line(),
                        Some("time"),
                        "a <timestamp> without a readable time attribute",
                        FIX,
                    )
                })?;
                builder.at(time, interval);
                in_report = true;
            }
            "/timestamp" => in_report = false,
            "disk-device" if in_report => {
                let mut record = DiskRecord::default();
                let mut device = "";
                for (key, value) in attributes(tag) {
                    if key == "dev" {
                        device = value;
                        continue;
                    }
                    match parse_decimal(value.as_bytes()) {
                        Some(v) => {
                            record.set(key, v, file, line())?;
                        }
                        None if matches!(key, "tps" | "rkB" | "wkB" | "await") => {
                            return Err(ProfileError::syntax(
                                file,
                                line(),
                                Some(key),
                                format!("'{}' is not a number", excerpt(value)),
                                FIX,
                            ))
                        }
                        None => {}
                    }
                }
                builder.disk(device, &record, file, line())?;
            }
            "cpu" if in_report => {
                let mut all = false;
                let mut idle = None;
                for (key, value) in attributes(tag) {
                    match key {
                        "number" => all = matches!(value, "all" | "-1"),
                        "idle" => idle = parse_decimal(value.as_bytes()),
                        _ => {}
                    }
                }
                if let (true, Some(idle)) = (all, idle) {
                    builder.cpu_idle(idle);
                }
            }
            "memory" => in_memory = !tag.ends_with('/'),
            "/memory" => in_memory = false,
            "memused-percent" if in_memory => {
                let end = memchr::memchr(b'<', &bytes[pos..]).map_or(bytes.len(), |e| pos + e);
                if let Some(used) = parse_decimal(text[pos..end].trim().as_bytes()) {
                    builder.memory(used);
                }
            }
            _ => {}
        }
    }
    builder.finish(file, FIX)
}

/// Parses `sadf -p SA_FILE -- -d [-u] [-r]`: `host<TAB>interval<TAB>timestamp<TAB>device<TAB>
/// field<TAB>value`, one line per value; a device's lines follow each other.
pub fn parse_sadf_p<R: BufRead>(reader: R, file: &str) -> Result<Capture, ProfileError> {
    const FIX: &str = "export the disk report unedited with `sadf -p SA_FILE -- -d`";
    let mut lines = LineReader::new(reader);
    let mut builder = SarBuilder::new(file, Tool::SadfP);
    // The record being collected: (stamp text, device, its first line, fields).
    let mut current: Option<(Vec<u8>, String, u64, DiskRecord)> = None;
    let flush = |builder: &mut SarBuilder,
                 current: &mut Option<(Vec<u8>, String, u64, DiskRecord)>|
     -> Result<(), ProfileError> {
        if let Some((_, device, line, record)) = current.take() {
            builder.disk(&device, &record, file, line)?;
        }
        Ok(())
    };
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
        if crate::lines::is_blank(line) || line.starts_with(b"#") {
            continue;
        }
        let cells: Vec<&[u8]> = line.split(|&b| b == b'\t').collect();
        // A restart (`LINUX-RESTART<TAB>(9 CPU)`) or a comment (`COM text`, sadf -C) has the
        // interval -1 and fewer fields: it is no measurement.
        if cells.len() >= 4 && cells[1] == b"-1" {
            continue;
        }
        if cells.len() < 6 {
            return Err(ProfileError::syntax(
                file,
                line_no,
                None,
                format!(
                    "{} tab-separated fields, sadf -p writes 6 (host, interval, timestamp, \
                     device, field, value)",
                    cells.len()
                ),
                FIX,
            ));
        }
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        let stamp = cells[2];
        let time = std::str::from_utf8(stamp)
            .ok()
            .and_then(crate::clock::sadf_time_of_day_s)
            .ok_or_else(|| {
                ProfileError::syntax(
                    file,
                    line_no,
                    Some("timestamp"),
                    format!("'{}' is not a time stamp", excerpt(&text(stamp))),
                    FIX,
                )
            })?;
        let device = text(cells[3]);
        let field = text(cells[4]);
        let used = match field.as_str() {
            "%idle" => matches!(device.as_str(), "all" | "-1"),
            "%memused" => true,
            _ => device != "-" && DiskRecord::is_disk_field(&field),
        };
        // `sadf -p -- -A` writes every activity: texts (a battery's `status Full`, a USB
        // device's `manufact`) and the `-b` activity's system-wide `tps` with the device `-`
        // are not iofit's to read.
        if !used {
            continue;
        }
        let value = parse_decimal(cells[5].trim_ascii()).ok_or_else(|| {
            ProfileError::syntax(
                file,
                line_no,
                Some(&field),
                format!("'{}' is not a number", excerpt(&text(cells[5]))),
                FIX,
            )
        })?;
        let same = current
            .as_ref()
            .is_some_and(|(s, d, _, _)| s.as_slice() == stamp && *d == device);
        if !same {
            flush(&mut builder, &mut current)?;
            builder.at(time, parse_decimal(cells[1]));
        }
        match field.as_str() {
            "%idle" if matches!(device.as_str(), "all" | "-1") => builder.cpu_idle(value),
            "%memused" => builder.memory(value),
            _ if DiskRecord::is_disk_field(&field) => {
                let record = current.get_or_insert_with(|| {
                    (
                        stamp.to_vec(),
                        device.clone(),
                        line_no,
                        DiskRecord::default(),
                    )
                });
                record.3.set(&field, value, file, line_no)?;
            }
            // Fields of other activities (other CPU shares, discards, ...).
            _ => {}
        }
    }
    flush(&mut builder, &mut current)?;
    builder.finish(file, FIX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// sysstat 10/11 `sadf -j`: sectors (`rd_sec`, `wr_sec`) and `avgqu-sz`, CPU and memory in
    /// the same record; the split into reads and writes by byte share as `sar -d` does.
    #[test]
    fn old_sadf_json_with_sectors_cpu_and_memory() {
        let text = r#"{"sysstat": {
	"hosts": [
		{
			"nodename": "db01",
			"statistics": [
				{
					"timestamp": {"date": "2019-03-14", "time": "17:10:02", "utc": 0, "interval": 10},
					"cpu-load": [{"cpu": "all", "user": 10.00, "idle": 84.00}],
					"memory": {"memfree": 100, "memused-percent": 12.50},
					"disk": [
						{"disk-device": "dev8-16", "tps": 10.00, "rd_sec": 120.00, "wr_sec": 40.00, "avgrq-sz": 16.00, "avgqu-sz": 0.10, "await": 1.00, "svctm": 0.50, "util-percent": 1.00}
					]
				}
			]
		}
	]
}}"#;
        let capture = parse_sadf_json(text.as_bytes(), "j.json").unwrap();
        assert_eq!(capture.tool, Tool::SadfJson);
        assert_eq!(capture.interval_s, Some(iofit_model::units::Seconds(10.0)));
        let sample = capture.devices[0].samples[0];
        assert_eq!(capture.devices[0].name, "dev8-16");
        assert_eq!(
            sample.read_bytes_s,
            iofit_model::BytesPerSecond(120.0 * 512.0)
        );
        assert_eq!(sample.read_iops, iofit_model::Iops(7.5)); // 10 tps x 120 / 160
        assert_eq!(sample.write_iops, iofit_model::Iops(2.5));
        assert_eq!(sample.queue_depth, 0.1);
        assert_eq!(capture.host[0].cpu_pct, 16.0);
        assert_eq!(capture.host[0].memory_pct, 12.5);
        // A value that is not a number names the record's line.
        let bad = text.replace("\"tps\": 10.00", "\"tps\": \"ten\"");
        let error = parse_sadf_json(bad.as_bytes(), "j.json")
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("j.json:11, column 'tps': '\"ten\"' is not a number"),
            "{error}"
        );
    }

    #[test]
    fn broken_json_and_xml_name_the_line() {
        let error = parse_iostat_json(b"{\"sysstat\": {\n\"hosts\": [\n,]}}", "i.json", false)
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("i.json:3: not valid JSON"), "{error}");
        let xml = "<?xml version=\"1.0\"?>\n<sysstat>\n<timestamp date=\"2026-11-27\" time=\"05:30:40\" interval=\"1\">\n<disk-device dev=\"vda\" tps=\"1.00\"";
        let error = parse_sadf_xml(xml, "x.xml").unwrap_err().to_string();
        assert!(
            error.starts_with("x.xml:4: an XML tag is not closed"),
            "{error}"
        );
    }

    /// A CPU or memory record outside any `<timestamp>` (fuzzing found one) belongs to no
    /// report: it is left out, never an index past the reports, and the disks still count.
    #[test]
    fn host_records_before_any_report_are_left_out() {
        let xml = "<?xml version=\"1.0\"?>\n<sysstat>\n\
                   <cpu-load><cpu number=\"all\" user=\"20.00\" idle=\"65.00\"/></cpu-load>\n\
                   <memory unit=\"kB\"><memused-percent>4.74</memused-percent></memory>\n\
                   <timestamp date=\"2026-11-27\" time=\"05:30:40\" interval=\"1\">\n\
                   <disk-device dev=\"vda\" tps=\"100.00\" rkB=\"300.00\" wkB=\"100.00\" \
                   await=\"0.50\" aqu-sz=\"0.05\"/>\n</timestamp>\n</sysstat>\n";
        let capture = parse_sadf_xml(xml, "x.xml").unwrap();
        assert_eq!(capture.reports(), 1);
        assert_eq!(capture.devices[0].samples.len(), 1);
    }

    /// `sadf -p SA_FILE -- -A` writes every activity, grouped by activity so that time stamps
    /// start over with each: the `-b` activity's system-wide `tps` (device `-`), texts (a
    /// battery's `status`), restarts and comments (interval -1). Only the disks are read, and
    /// they give what `sadf -d` of the same counters gives.
    #[test]
    fn sadf_p_of_every_activity_reads_the_disks_alone() {
        let line = |stamp: &str, device: &str, field: &str, value: &str| {
            format!("vm\t10\t2026-11-28 03:00:{stamp} UTC\t{device}\t{field}\t{value}\n")
        };
        let mut text = String::new();
        for stamp in ["10", "20"] {
            text += &line(stamp, "-", "tps", "999.00");
            text += &line(stamp, "-", "bread/s", "12.00");
        }
        text += "vm\t-1\t2026-11-28 03:00:15 UTC\tLINUX-RESTART\t(2 CPU)\n";
        text += "vm\t-1\t2026-11-28 03:00:16 UTC\tCOM a comment\n";
        for (stamp, tps, read_kb) in [("10", "100.00", "300.00"), ("20", "50.00", "0.00")] {
            text += &line(stamp, "vda", "tps", tps);
            text += &line(stamp, "vda", "rkB/s", read_kb);
            text += &line(stamp, "vda", "wkB/s", "100.00");
            text += &line(stamp, "vda", "await", "0.50");
        }
        text += &line("10", "BAT0", "status", "Full");
        text += &line("10", "usb1", "manufact", "Some Vendor");
        let capture = parse_sadf_p(text.as_bytes(), "p.txt").unwrap();
        assert_eq!(capture.devices.len(), 1, "{:?}", capture.devices);
        // A file that starts at boot opens with the restart record; it is still `sadf -p`.
        let at_boot = format!("vm\t-1\t2026-11-28 03:00:05 UTC\tLINUX-RESTART\t(2 CPU)\n{text}");
        let format = crate::detect(at_boot.as_bytes(), "p.txt").unwrap();
        assert_eq!(format, crate::Format::SadfP);
        let samples = &capture.devices[0].samples;
        assert_eq!(samples.len(), 2);
        assert_eq!(
            (samples[0].read_iops.get(), samples[0].write_iops.get()),
            (75.0, 25.0)
        );
        assert_eq!(
            (samples[1].read_iops.get(), samples[1].write_iops.get()),
            (0.0, 50.0)
        );
    }

    /// sysstat 12's JSON and XML give each disk's bytes twice, as sectors and as kB, each
    /// rounded to 2 decimals: kB is read (what `sadf -d` prints), whichever comes first.
    #[test]
    fn kb_wins_over_sectors_so_every_form_agrees() {
        let xml = |attributes: &str| {
            format!(
                "<?xml version=\"1.0\"?>\n<sysstat>\n<timestamp date=\"2026-11-28\" \
                 time=\"03:00:10\" interval=\"10\">\n<disk-device dev=\"vda\" tps=\"6.40\" \
                 {attributes} await=\"1.00\" aqu-sz=\"0.00\"/>\n</timestamp>\n</sysstat>\n"
            )
        };
        // 3.21 sectors = 1.605 kB, which sysstat rounds to 1.60 kB in the kB field.
        let sectors_first = xml("rd_sec=\"3.21\" wr_sec=\"3.20\" rkB=\"1.60\" wkB=\"1.60\"");
        let kb_first = xml("rkB=\"1.60\" wkB=\"1.60\" rd_sec=\"3.21\" wr_sec=\"3.20\"");
        for text in [sectors_first, kb_first] {
            let capture = parse_sadf_xml(&text, "x.xml").unwrap();
            let sample = capture.devices[0].samples[0];
            assert_eq!(
                sample.read_bytes_s,
                iofit_model::BytesPerSecond(1.60 * 1024.0)
            );
        }
        // Sectors alone (sysstat before 11.7) are read as sectors.
        let capture = parse_sadf_xml(&xml("rd_sec=\"3.21\" wr_sec=\"3.20\""), "x.xml").unwrap();
        let sample = capture.devices[0].samples[0];
        assert_eq!(
            sample.read_bytes_s,
            iofit_model::BytesPerSecond(3.21 * 512.0)
        );
    }

    /// `sadf -p` lines of CPU and memory feed the host; a disk's lines make one record.
    #[test]
    fn sadf_p_groups_a_devices_lines() {
        let text = "vm\t1\t2026-11-27 05:30:40 UTC\tall\t%user\t20.00\n\
                    vm\t1\t2026-11-27 05:30:40 UTC\tall\t%idle\t65.00\n\
                    vm\t1\t2026-11-27 05:30:40 UTC\t-\t%memused\t4.74\n\
                    vm\t1\t2026-11-27 05:30:40 UTC\tvda\ttps\t100.00\n\
                    vm\t1\t2026-11-27 05:30:40 UTC\tvda\trkB/s\t300.00\n\
                    vm\t1\t2026-11-27 05:30:40 UTC\tvda\twkB/s\t100.00\n\
                    vm\t1\t2026-11-27 05:30:40 UTC\tvda\tawait\t0.50\n";
        let capture = parse_sadf_p(text.as_bytes(), "p.txt").unwrap();
        assert_eq!(capture.reports(), 1);
        assert_eq!(capture.host[0].cpu_pct, 35.0);
        assert_eq!(capture.host[0].memory_pct, 4.74);
        let sample = capture.devices[0].samples[0];
        assert_eq!(
            (sample.read_iops.get(), sample.write_iops.get()),
            (75.0, 25.0)
        );
        assert_eq!(sample.latency_ms, iofit_model::units::Millis(0.5));
        let short = "vm\t1\t2026-11-27 05:30:40 UTC\tvda\ttps\n";
        let error = parse_sadf_p(short.as_bytes(), "p.txt")
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("p.txt:1: 5 tab-separated fields"),
            "{error}"
        );
    }
}
