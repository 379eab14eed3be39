//! Reading one stream of iostat reports: the state of each line (timestamp, CPU block, device
//! header, rows), the first report since boot dropped or kept, and the pretty (`-p`) layout
//! refused with a fix.

use super::rows::{is_header_line, read_header, read_row, scan_row};
use super::{
    needed_bits, State, Table, NEED_ALL, NEED_READ_BYTES, NEED_READ_IOPS, NEED_WRITE_BYTES,
    NEED_WRITE_IOPS,
};
use crate::capture::{Capture, DiskSample, Tool};
use crate::clock::{stamp_line, Timeline};
use crate::error::{excerpt, ProfileError};
use crate::lines::{is_blank, logger_prefix, split_fields, LineReader};
use crate::notes::CaptureNote;
use crate::num::human_cell;
use std::io::BufRead;

/// Times of day seen in a piece of a capture, so pieces parsed apart can be joined in time.
#[derive(Default)]
pub(super) struct ChunkClock {
    timeline: Timeline,
    pub(super) first_tod: Option<f64>,
    pub(super) last_tod: f64,
    pub(super) last_elapsed: f64,
}

impl ChunkClock {
    pub(super) fn elapsed_s(&mut self, time_of_day_s: f64) -> f64 {
        let elapsed = self.timeline.elapsed_s(time_of_day_s);
        self.first_tod.get_or_insert(time_of_day_s);
        self.last_tod = time_of_day_s;
        self.last_elapsed = elapsed;
        elapsed
    }
}

/// What parsing a piece of a capture leaves for joining and finishing.
pub(super) struct Chunk {
    pub(super) timestamps: u64,
    pub(super) prefixed: bool,
    pub(super) clock: ChunkClock,
    pub(super) lines: u64,
    /// Report 0 (iostat's since-boot averages) was dropped while parsing, when report 1 began.
    pub(super) first_dropped: bool,
}

/// The reports of `reader`, a whole capture or a piece starting at a report.
/// `size_bytes`, when known, is how much `reader` holds: after the first reports the rest are
/// counted ahead and their room reserved (see [`Capture::reserve_reports`]).
/// With `drop_first`, report 0 is dropped as soon as report 1 begins (see [`drop_report_zero`]).
pub(super) fn parse_reports<R: BufRead>(
    reader: R,
    file: &str,
    size_bytes: Option<u64>,
    drop_first: bool,
) -> Result<(Capture, Chunk), ProfileError> {
    let mut lines = LineReader::new(reader);
    let mut capture = Capture::new(file.to_string(), Tool::Iostat);
    let mut fields: Vec<(usize, usize)> = Vec::with_capacity(32);
    let mut place = Place::new(drop_first, size_bytes.is_none());
    // Decided on the first non-blank line (the banner): does a line logger prefix every line?
    let mut prefixed: Option<bool> = None;
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
        let at = At {
            file,
            line_no,
            logged_at,
        };
        if place.read_line(&mut capture, line, &mut fields, &at)? == Read::DeviceHeader {
            place.reserve_rest(&mut capture, lines.bytes_read, size_bytes);
        }
    }
    if place.table.is_none() {
        return Err(ProfileError::content(
            file,
            "no `Device` table found",
            "this is not `iostat -x` output; capture with `iostat -x -t 1 600 > FILE`",
        ));
    }
    check_pretty(place.pretty_bits, file, &mut place.pretty_checked)?;
    let chunk = Chunk {
        timestamps: place.timestamps,
        prefixed: prefixed == Some(true),
        clock: place.timeline,
        lines: lines.line_no,
        first_dropped: place.first_dropped,
    };
    Ok((capture, chunk))
}

/// Where a line is: its file, number and the logger's time stamp when lines carry one.
struct At<'a> {
    file: &'a str,
    line_no: u64,
    logged_at: Option<f64>,
}

/// What a line was, as far as the caller needs to know.
#[derive(PartialEq, Eq)]
enum Read {
    DeviceHeader,
    Other,
}

/// The parser's place in an iostat capture between lines.
struct Place {
    state: State,
    table: Option<Table>,
    /// The last `Device` header's bytes and cells: every report repeats it.
    header_line: Vec<u8>,
    header_fields: Vec<(usize, usize)>,
    timeline: ChunkClock,
    report: Option<u32>,
    report_has_cpu: bool,
    report_has_disk: bool,
    seen_content: bool,
    device_hint: usize,
    timestamps: u64,
    /// `--pretty`: the columns seen over the sub-tables of the first report, and where it began.
    pretty_bits: Option<(u8, u64)>,
    pretty_checked: bool,
    drop_first: bool,
    first_dropped: bool,
    /// Whether the room for the rest of the reports has been reserved (or need not be).
    reserved: bool,
}

impl Place {
    fn new(drop_first: bool, reserved: bool) -> Place {
        Place {
            state: State::TopLevel,
            table: None,
            header_line: Vec::new(),
            header_fields: Vec::new(),
            timeline: ChunkClock::default(),
            report: None,
            report_has_cpu: false,
            report_has_disk: false,
            seen_content: false,
            device_hint: 0,
            timestamps: 0,
            pretty_bits: None,
            pretty_checked: false,
            drop_first,
            first_dropped: false,
            reserved,
        }
    }

    /// Reads one line (without a logger's prefix) into `capture`.
    fn read_line(
        &mut self,
        capture: &mut Capture,
        line: &[u8],
        fields: &mut Vec<(usize, usize)>,
        at: &At,
    ) -> Result<Read, ProfileError> {
        if is_blank(line) {
            if self.state == State::Devices {
                self.state = State::TopLevel;
            }
            return Ok(Read::Other);
        }
        // Device rows, the bulk of a capture: one pass finds and parses the cells.
        if self.state == State::Devices {
            if let (Some(table), Some(report)) = (self.table.as_ref(), self.report) {
                if !table.continues_report && !is_header_line(line) {
                    let mut sample = DiskSample::empty(report);
                    let (a, b) = scan_row(line, table, &mut sample, at.file, at.line_no)?;
                    let index = capture.device_index(&line[a..b], self.device_hint);
                    self.device_hint = index + 1;
                    capture.devices[index].samples.push(sample);
                    return Ok(Read::Other);
                }
            }
        }
        // Every report repeats its `Device` header: its cells are known from the last time.
        if !self.header_line.is_empty() && line == self.header_line.as_slice() {
            fields.clear();
            fields.extend_from_slice(&self.header_fields);
        } else {
            split_fields(line, fields);
        }
        let first = &line[fields[0].0..fields[0].1];
        if first == b"avg-cpu:" {
            self.cpu_header(capture, line, fields, at);
            return Ok(Read::Other);
        }
        if let State::CpuValues { idle_column } = self.state {
            self.cpu_values(capture, line, fields, idle_column, at)?;
            return Ok(Read::Other);
        }
        let last = &line[fields[fields.len() - 1].0..fields[fields.len() - 1].1];
        let pretty_header = fields.len() > 1 && last == b"Device" && first != b"Device";
        if first == b"Device" || first == b"Device:" || pretty_header {
            self.device_header(capture, line, fields, pretty_header, at)?;
            return Ok(Read::DeviceHeader);
        }
        if self.state == State::Devices {
            self.device_row(capture, line, fields, at)?;
            return Ok(Read::Other);
        }
        self.top_level(capture, line, first, at)?;
        Ok(Read::Other)
    }

    /// Starts a report; reports without iostat's own -t stamp take the logger's time.
    fn new_report(&mut self, capture: &mut Capture, at: &At) {
        let began = match at.logged_at {
            Some(time) => {
                self.timestamps += 1;
                capture.push_report(self.timeline.elapsed_s(time))
            }
            None => capture.push_report(f64::NAN),
        };
        self.report = Some(begin(
            capture,
            began,
            self.drop_first,
            &mut self.first_dropped,
        ));
    }

    fn cpu_header(
        &mut self,
        capture: &mut Capture,
        line: &[u8],
        fields: &[(usize, usize)],
        at: &At,
    ) {
        if self.report.is_none() || self.report_has_cpu || self.report_has_disk {
            self.new_report(capture, at);
            self.report_has_disk = false;
        }
        self.report_has_cpu = true;
        self.seen_content = true;
        let idle_column = fields[1..]
            .iter()
            .position(|&(a, b)| &line[a..b] == b"%idle");
        self.state = State::CpuValues { idle_column };
    }

    fn cpu_values(
        &mut self,
        capture: &mut Capture,
        line: &[u8],
        fields: &[(usize, usize)],
        idle_column: Option<usize>,
        at: &At,
    ) -> Result<(), ProfileError> {
        if let (Some(column), Some(report)) = (idle_column, self.report) {
            let Some(&(a, b)) = fields.get(column) else {
                return Err(ProfileError::syntax(
                    at.file,
                    at.line_no,
                    Some("%idle"),
                    format!("the avg-cpu row has {} values, fewer than its header", fields.len()),
                    "the file looks truncated or edited; re-capture with `iostat -x INTERVAL COUNT`",
                ));
            };
            // `iostat -h` prints shares with a `%` (`18.7%`).
            let (idle, _) = human_cell(
                &line[a..b],
                at.file,
                at.line_no,
                "%idle",
                "the avg-cpu row must hold numbers; re-capture with `iostat -x INTERVAL COUNT`",
            )?;
            capture.host[report as usize].cpu_pct = (100.0 - idle).clamp(0.0, 100.0);
        }
        self.state = State::TopLevel;
        Ok(())
    }

    fn device_header(
        &mut self,
        capture: &mut Capture,
        line: &[u8],
        fields: &[(usize, usize)],
        pretty_header: bool,
        at: &At,
    ) -> Result<(), ProfileError> {
        // Every report repeats its header: the same bytes map to the same table.
        let read = match self.table.take() {
            Some(same) if self.header_line == line => same,
            _ => {
                self.header_line.clear();
                self.header_line.extend_from_slice(line);
                self.header_fields.clear();
                self.header_fields.extend_from_slice(fields);
                read_header(line, fields, at.file, at.line_no, pretty_header)?
            }
        };
        let starts_report = !read.continues_report;
        if pretty_header {
            let bits = needed_bits(&read.slots);
            match self.pretty_bits.as_mut() {
                Some((seen, _)) if !starts_report => *seen |= bits,
                _ => {
                    check_pretty(self.pretty_bits, at.file, &mut self.pretty_checked)?;
                    self.pretty_bits = Some((bits, at.line_no));
                }
            }
        }
        self.table = Some(read);
        if self.report.is_none() || (starts_report && self.report_has_disk) {
            self.new_report(capture, at);
            self.report_has_cpu = false;
        }
        self.report_has_disk = true;
        self.seen_content = true;
        self.device_hint = 0;
        self.state = State::Devices;
        Ok(())
    }

    /// After the first reports, counts the rest ahead from the bytes they took and reserves
    /// their room.
    fn reserve_rest(&mut self, capture: &mut Capture, bytes_read: u64, size_bytes: Option<u64>) {
        // Reports seen before the room for the rest is reserved: enough to know the devices.
        const RESERVE_AFTER_REPORTS: usize = 3;
        let reports_seen = capture.reports() + usize::from(self.first_dropped);
        if !self.reserved && reports_seen > RESERVE_AFTER_REPORTS {
            self.reserved = true;
            let size = size_bytes.unwrap_or(0);
            let per_report = bytes_read / (reports_seen as u64 - 1);
            let left = size.saturating_sub(bytes_read) / per_report.max(1);
            // A tenth more: reports vary a little in length (device names, wider numbers).
            capture.reserve_reports((left + left / 10 + 1) as usize);
        }
    }

    /// A device row of a table that continues a report (`--pretty`'s sub-tables) or that the
    /// fast path did not take.
    fn device_row(
        &mut self,
        capture: &mut Capture,
        line: &[u8],
        fields: &[(usize, usize)],
        at: &At,
    ) -> Result<(), ProfileError> {
        let table = self
            .table
            .as_ref()
            .expect("a device table follows its header");
        let report = self.report.expect("a device table belongs to a report");
        let (a, b) = fields[table.device_column.min(fields.len() - 1)];
        let index = capture.device_index(&line[a..b], self.device_hint);
        self.device_hint = index + 1;
        let samples = &mut capture.devices[index].samples;
        match samples.last_mut() {
            Some(sample) if table.continues_report && sample.report == report => {
                read_row(line, fields, table, sample, at.file, at.line_no)?
            }
            _ => {
                let mut sample = DiskSample::empty(report);
                read_row(line, fields, table, &mut sample, at.file, at.line_no)?;
                samples.push(sample);
            }
        }
        Ok(())
    }

    /// Top level: a time stamp (`-t`), the banner line ("Linux 6.1.0 (host) ...") or damage.
    fn top_level(
        &mut self,
        capture: &mut Capture,
        line: &[u8],
        first: &[u8],
        at: &At,
    ) -> Result<(), ProfileError> {
        // sysstat 7's `Time: 20:44:31` and its translations begin with a word, not a digit.
        if first[0].is_ascii_digit() || !first[0].is_ascii_lowercase() {
            if let Some(seconds) = std::str::from_utf8(line).ok().and_then(stamp_line) {
                let elapsed = self.timeline.elapsed_s(seconds);
                let began = capture.push_report(elapsed);
                self.report = Some(begin(
                    capture,
                    began,
                    self.drop_first,
                    &mut self.first_dropped,
                ));
                self.report_has_cpu = false;
                self.report_has_disk = false;
                self.seen_content = true;
                self.timestamps += 1;
                return Ok(());
            }
        }
        if !self.seen_content && at.line_no <= 3 {
            // A line that starts like a time stamp but is not one is damage, not a banner.
            if first[0].is_ascii_digit() && line.contains(&b':') {
                return Err(ProfileError::syntax(
                    at.file,
                    at.line_no,
                    Some("time"),
                    format!(
                        "'{}' is not a time of day",
                        excerpt(&String::from_utf8_lossy(line))
                    ),
                    "the capture is damaged or edited; give the unedited output of `iostat -x -t INTERVAL COUNT`",
                ));
            }
            return Ok(()); // the banner: kernel, host, date, architecture, CPUs
        }
        if first == b"Linux" && line.contains(&b'(') {
            return Ok(()); // the banner again: captures of several runs appended to one file
        }
        if first[0].is_ascii_digit() && line.contains(&b':') {
            return Err(broken_stamp(line, at.file, at.line_no));
        }
        Err(ProfileError::syntax(
            at.file,
            at.line_no,
            None,
            format!(
                "unexpected line '{}'",
                excerpt(&String::from_utf8_lossy(line))
            ),
            "expected a time stamp, an `avg-cpu:` or a `Device` header, or a device row; \
             give the unedited output of `iostat -x [-t] INTERVAL COUNT`",
        ))
    }
}

/// A line that starts like a `-t` stamp but holds no time of day (`17:-5:10`).
#[cold]
fn broken_stamp(line: &[u8], file: &str, line_no: u64) -> ProfileError {
    ProfileError::syntax(
        file,
        line_no,
        Some("time stamp"),
        format!(
            "'{}' is not a time of day",
            excerpt(&String::from_utf8_lossy(line))
        ),
        "the time stamp is damaged or edited (hours 0-23, minutes and seconds 0-59); remove the \
         report or re-capture with `iostat -x -t INTERVAL COUNT`",
    )
}

/// `report` has just begun. With `drop_first`, when it is report 1, report 0 is dropped and
/// `report` becomes 0; returns its index.
fn begin(capture: &mut Capture, report: u32, drop_first: bool, dropped: &mut bool) -> u32 {
    if drop_first && !*dropped && report == 1 {
        drop_report_zero(capture);
        *dropped = true;
        return 0;
    }
    report
}

/// Removes report 0 (iostat's since-boot averages) while report 1 has just begun: it holds a
/// sample per device, so little moves. (Dropping it after the parse moved every sample of the
/// file once more, on one core: a tenth of `iofit profile`'s time on a 100 MB capture.)
/// Devices left without samples stay in place, so that one seen again keeps its position;
/// [`first_report_dropped`] removes those still empty at the end.
fn drop_report_zero(capture: &mut Capture) {
    capture.report_time_s.remove(0);
    capture.report_segment.remove(0);
    capture.host.remove(0);
    for series in &mut capture.devices {
        series.samples.retain(|s| s.report != 0);
        for sample in &mut series.samples {
            sample.report -= 1;
        }
    }
}

/// What [`drop_first_report`](super::drop_first_report) does after the parse, for a capture whose report 0 went while
/// parsing ([`drop_report_zero`]): times from the first kept report, devices seen only in the
/// dropped report removed, and the note.
pub(super) fn first_report_dropped(capture: &mut Capture, file: &str) {
    if let Some(&start) = capture.report_time_s.first() {
        for time in &mut capture.report_time_s {
            *time -= start;
        }
    }
    capture.devices.retain(|d| !d.samples.is_empty());
    capture.notes.push(CaptureNote::FirstReportSkipped {
        file: file.to_string(),
    });
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
