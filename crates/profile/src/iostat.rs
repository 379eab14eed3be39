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
use crate::clock::{stamp_line, Timeline};
use crate::error::{excerpt, ProfileError};
use crate::lines::{is_blank, logger_prefix, split_fields, BlankMask, LineReader};
use crate::num::{human_cell, parse_cell_in_line};
use std::io::BufRead;

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

/// Times of day seen in a piece of a capture, so pieces parsed apart can be joined in time.
#[derive(Default)]
struct ChunkClock {
    timeline: Timeline,
    first_tod: Option<f64>,
    last_tod: f64,
    last_elapsed: f64,
}

impl ChunkClock {
    fn elapsed_s(&mut self, time_of_day_s: f64) -> f64 {
        let elapsed = self.timeline.elapsed_s(time_of_day_s);
        self.first_tod.get_or_insert(time_of_day_s);
        self.last_tod = time_of_day_s;
        self.last_elapsed = elapsed;
        elapsed
    }
}

/// What parsing a piece of a capture leaves for joining and finishing.
struct Chunk {
    timestamps: u64,
    prefixed: bool,
    clock: ChunkClock,
    lines: u64,
    /// Report 0 (iostat's since-boot averages) was dropped while parsing, when report 1 began.
    first_dropped: bool,
}

/// Below this size a file is parsed on one core: splitting costs more than it saves.
pub const PARALLEL_MIN_BYTES: u64 = 16 << 20;

/// Parses a large `iostat -x` file on up to `threads` cores: the file is cut at report starts
/// (an `avg-cpu:` line, with the `-t` stamp before it), the pieces are parsed at the same time,
/// each streaming from its own offset, and joined in order (times continued across pieces,
/// over midnight too). The result equals [`parse_iostat`]'s, errors included (their line
/// numbers count from the start of the file). Files without `avg-cpu:` lines (`iostat -d`)
/// or with a logger prefix on every line are parsed on one core.
pub fn parse_iostat_parallel(
    path: &std::path::Path,
    file: &str,
    options: IostatOptions,
    threads: usize,
) -> Result<Capture, ProfileError> {
    parse_pieces(path, file, options, threads, PARALLEL_MIN_BYTES)
}

/// [`parse_iostat_parallel`], splitting files of at least `min_bytes` (tests split small ones).
fn parse_pieces(
    path: &std::path::Path,
    file: &str,
    options: IostatOptions,
    threads: usize,
    min_bytes: u64,
) -> Result<Capture, ProfileError> {
    use std::io::{Read, Seek};
    let io_error = |source| ProfileError::Io {
        file: file.to_string(),
        source,
    };
    let handle = std::fs::File::open(path).map_err(io_error)?;
    // A capture is an input: no output may replace it.
    iofit_safefs::input::note_input(&handle, path);
    let size = handle.metadata().map_err(io_error)?.len();
    let starts = report_starts(&handle, size, threads.max(1), min_bytes).map_err(io_error)?;
    let mut ends: Vec<u64> = starts[1..].to_vec();
    ends.push(size);
    let results: Vec<Result<(Capture, Chunk), ProfileError>> = std::thread::scope(|scope| {
        let workers: Vec<_> = starts
            .iter()
            .zip(&ends)
            .map(|(&start, &end)| {
                scope.spawn(move || {
                    let mut piece = std::fs::File::open(path).map_err(io_error)?;
                    piece
                        .seek(std::io::SeekFrom::Start(start))
                        .map_err(io_error)?;
                    let reader =
                        std::io::BufReader::with_capacity(1 << 20, piece.take(end - start));
                    // Only the first piece holds the since-boot report.
                    let drop_first = start == 0 && !options.keep_first_report;
                    parse_reports(reader, file, Some(end - start), drop_first)
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a parser thread does not panic"))
            .collect()
    });
    let mut joined: Option<(Capture, Chunk)> = None;
    let mut line_base = 0u64;
    for result in results {
        let (capture, chunk) = result.map_err(|error| shift_line(error, line_base))?;
        line_base += chunk.lines;
        match joined.as_mut() {
            None => joined = Some((capture, chunk)),
            Some((all, total)) => {
                let offset = match (chunk.clock.first_tod, total.clock.first_tod) {
                    (Some(first), Some(_)) => {
                        total.clock.last_elapsed
                            + (first - total.clock.last_tod).rem_euclid(86400.0)
                    }
                    _ => 0.0,
                };
                all.join(capture, offset);
                if chunk.clock.first_tod.is_some() {
                    total.clock.first_tod.get_or_insert(0.0);
                    total.clock.last_elapsed = offset + chunk.clock.last_elapsed;
                    total.clock.last_tod = chunk.clock.last_tod;
                }
                total.timestamps += chunk.timestamps;
                total.prefixed |= chunk.prefixed;
                total.lines += chunk.lines;
            }
        }
    }
    let (capture, chunk) = joined.expect("at least one piece");
    finish(capture, &chunk, file, options)
}

/// A syntax error of a piece, its line counted from the start of the file.
fn shift_line(error: ProfileError, line_base: u64) -> ProfileError {
    match error {
        ProfileError::Syntax {
            mut at,
            message,
            fix,
        } if at.line > 0 => {
            at.line += line_base;
            ProfileError::Syntax { at, message, fix }
        }
        other => other,
    }
}

/// Byte offsets where the pieces start: 0, then near each `k / pieces` of the file the start
/// of the next report (its `-t` stamp line, else its `avg-cpu:` line). Found by reading a
/// window at each cut, not the whole file.
fn report_starts(
    handle: &std::fs::File,
    size: u64,
    pieces: usize,
    min_bytes: u64,
) -> std::io::Result<Vec<u64>> {
    use std::os::unix::fs::FileExt;
    let mut starts = vec![0u64];
    if pieces < 2 || size < min_bytes {
        return Ok(starts);
    }
    let mut window = vec![0u8; 1 << 20];
    let mut head = vec![0u8; 64 << 10];
    let head_len = handle.read_at(&mut head, 0)?;
    // A logger prefix before every line hides `avg-cpu:` from the search: one piece.
    let first_line = head[..head_len]
        .split(|&b| b == b'\n')
        .find(|l| !is_blank(l))
        .unwrap_or(&[]);
    if logger_prefix(first_line).is_some() {
        return Ok(starts);
    }
    for k in 1..pieces as u64 {
        let target = size * k / pieces as u64;
        let read = handle.read_at(&mut window, target)?;
        if let Some(start) = report_start_in(&window[..read]) {
            let absolute = target + start as u64;
            if absolute > *starts.last().expect("starts with 0") && absolute < size {
                starts.push(absolute);
            }
        }
    }
    Ok(starts)
}

/// Offset in `hay` (a window of the file starting anywhere) of the first report start whose
/// whole beginning is inside the window: an `avg-cpu:` line, or the `-t` stamp line before it
/// (blank lines between). A candidate whose look-back reaches the window's start is skipped:
/// its stamp may begin before the window.
fn report_start_in(hay: &[u8]) -> Option<usize> {
    const MARK: &[u8] = b"\navg-cpu:";
    let mut from = 0;
    while let Some(found) = hay[from..].windows(MARK.len()).position(|w| w == MARK) {
        let at = from + found;
        from = at + 1;
        let mut end = at;
        // Until the look-back reaches the window's start (then: not sure, try the next one).
        while let Some(line_start) = hay[..end].iter().rposition(|&b| b == b'\n').map(|i| i + 1) {
            let line = &hay[line_start..end];
            if is_blank(line) {
                end = line_start - 1;
                continue;
            }
            let stamp = std::str::from_utf8(line)
                .ok()
                .and_then(stamp_line)
                .is_some();
            return Some(if stamp { line_start } else { at + 1 });
        }
    }
    None
}

/// Notes, and the since-boot report dropped: what follows the parse of the whole file.
fn finish(
    mut capture: Capture,
    chunk: &Chunk,
    file: &str,
    options: IostatOptions,
) -> Result<Capture, ProfileError> {
    let timestamps = chunk.timestamps;
    let reports = capture.reports() + usize::from(chunk.first_dropped);
    if timestamps > 0 && timestamps < reports as u64 {
        capture.notes.push(format!(
            "{file}: only {timestamps} of {reports} reports carry a time stamp"
        ));
    }
    if chunk.prefixed {
        capture.notes.push(format!(
            "{file}: every line carries a logger's time stamp; reports without iostat's own -t \
             stamp take it"
        ));
    }
    if chunk.first_dropped {
        first_report_dropped(&mut capture, file);
    } else if !options.keep_first_report {
        drop_first_report(&mut capture, file)?;
    }
    Ok(capture)
}

/// The reports of `reader`, a whole capture or a piece starting at a report.
/// `size_bytes`, when known, is how much `reader` holds: after the first reports the rest are
/// counted ahead and their room reserved (see [`Capture::reserve_reports`]).
/// With `drop_first`, report 0 is dropped as soon as report 1 begins (see [`drop_report_zero`]).
fn parse_reports<R: BufRead>(
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

/// What [`drop_first_report`] does after the parse, for a capture whose report 0 went while
/// parsing ([`drop_report_zero`]): times from the first kept report, devices seen only in the
/// dropped report removed, and the note.
fn first_report_dropped(capture: &mut Capture, file: &str) {
    if let Some(&start) = capture.report_time_s.first() {
        for time in &mut capture.report_time_s {
            *time -= start;
        }
    }
    capture.devices.retain(|d| !d.samples.is_empty());
    capture.notes.push(first_report_note(file));
}

fn first_report_note(file: &str) -> String {
    format!(
        "{file}: skipped the first report (iostat's averages since boot); pass --keep-first if \
         the capture was made with `iostat -y`"
    )
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
            read: columns_read(&slots),
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
        read: columns_read(&slots),
        slots,
        names,
        device_column: 0,
        continues_report: false,
    })
}

fn columns_read(slots: &[Slot]) -> Vec<(usize, Slot)> {
    slots
        .iter()
        .enumerate()
        .filter(|(_, slot)| **slot != Slot::Ignore)
        .map(|(column, slot)| (column, *slot))
        .collect()
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
        sane(slot, value, unit_bytes, file, line_no, &table.names[index])?;
        store(sample, slot, value, unit_bytes);
    }
    check_row(sample, table, file, line_no)
}

/// The value a slot holds in a sample (NaN when its column was not read).
fn stored(sample: &DiskSample, slot: Slot) -> f64 {
    match slot {
        Slot::ReadIops => sample.read_iops,
        Slot::WriteIops => sample.write_iops,
        Slot::ReadBytes(_) => sample.read_bytes_s,
        Slot::WriteBytes(_) => sample.write_bytes_s,
        Slot::ReadLatency => sample.read_latency_ms,
        Slot::WriteLatency => sample.write_latency_ms,
        Slot::Latency => sample.latency_ms,
        Slot::QueueDepth => sample.queue_depth,
        Slot::ReadMerges => sample.read_merges_s,
        Slot::WriteMerges => sample.write_merges_s,
        Slot::Device | Slot::Ignore => f64::NAN,
    }
}

/// The largest value a slot can hold on any device: far beyond what any disk does (100 M
/// IOPS, 1 TB/s, a 3-hour average wait, a million IOs queued), so a value above it is damage.
fn most_possible(slot: Slot) -> (f64, &'static str) {
    match slot {
        Slot::ReadIops | Slot::WriteIops | Slot::ReadMerges | Slot::WriteMerges => {
            (1e8, "100 million per second")
        }
        Slot::ReadBytes(_) | Slot::WriteBytes(_) => (1e12, "1 TB/s"),
        Slot::ReadLatency | Slot::WriteLatency | Slot::Latency => (1e7, "10,000 s"),
        Slot::QueueDepth => (1e6, "a million IOs"),
        Slot::Device | Slot::Ignore => (f64::INFINITY, ""),
    }
}

/// Refuses a row with a value no device can show: a negative count, rate or wait, or one
/// beyond [`most_possible`]; the error names file, line and column.
fn check_row(
    sample: &DiskSample,
    table: &Table,
    file: &str,
    line_no: u64,
) -> Result<(), ProfileError> {
    for &(column, slot) in &table.read {
        let value = stored(sample, slot);
        if value.is_nan() {
            continue;
        }
        let (most, said) = most_possible(slot);
        let problem = if value < 0.0 {
            "is negative, which no counter, rate or wait can be".to_string()
        } else if value > most || value.is_infinite() {
            format!("is beyond any device (more than {said})")
        } else {
            continue;
        };
        let name = &table.names[column];
        let shown = match slot {
            Slot::ReadBytes(_) | Slot::WriteBytes(_) => format!("{:.3e} MB/s", value / 1e6),
            _ => format!("{value}"),
        };
        return Err(ProfileError::syntax(
            file,
            line_no,
            Some(name),
            format!("{name} ({shown}) {problem}"),
            "the capture is damaged or edited; remove the line or re-capture",
        ));
    }
    Ok(())
}

/// Whether the line starts a new table or CPU block rather than being a device row.
#[inline]
fn is_header_line(line: &[u8]) -> bool {
    let start = line
        .iter()
        .position(|&b| b != b' ' && b != b'\t')
        .unwrap_or(line.len());
    let rest = &line[start..];
    rest.starts_with(b"Device") || rest.starts_with(b"avg-cpu:")
}

/// Parses a device row in one pass over its bytes: each cell is found and, when its column is
/// read, parsed at once (no field list). Returns the device name's byte range. A row with
/// another number of cells than its header gets the same error as [`read_row`] gives.
#[inline]
fn scan_row(
    line: &[u8],
    table: &Table,
    sample: &mut DiskSample,
    file: &str,
    line_no: u64,
) -> Result<(usize, usize), ProfileError> {
    // Cells from the mask's bits (eight bytes at a time) or, for a very long line, byte by
    // byte; one generic body so each kind of cell source is compiled into a tight loop.
    match BlankMask::new(line) {
        Some(mask) => scan_read_cells(line, &mask, table, sample, file, line_no),
        None => scan_cells(
            line,
            ByteCells { line, pos: 0 },
            table,
            sample,
            file,
            line_no,
        ),
    }
}

/// [`scan_cells`] for a masked line that has as many cells as its header, visiting only the
/// columns read: the n-th cell is found by counting cell starts in the mask (a word at a time),
/// not by walking every cell; in sysstat 12's 23 columns 13 are read past. A row with another
/// number of cells goes the plain way, which finds its error as before.
#[inline]
fn scan_read_cells(
    line: &[u8],
    mask: &BlankMask,
    table: &Table,
    sample: &mut DiskSample,
    file: &str,
    line_no: u64,
) -> Result<(usize, usize), ProfileError> {
    let starts = mask.starts();
    // Only the words the line reaches can hold a start.
    let cells: u32 = starts[..=line.len() / 64]
        .iter()
        .map(|w| w.count_ones())
        .sum();
    if cells as usize != table.slots.len() || cells == 0 {
        return scan_cells(line, mask.cells(), table, sample, file, line_no);
    }
    let mut name = (0, 0);
    // `bits`: the starts not yet passed in word `word`, the lowest one that of cell `at`.
    let (mut word, mut bits, mut at) = (0, starts[0], 0);
    while bits == 0 {
        word += 1;
        bits = starts[word];
    }
    for &(column, slot) in &table.read {
        while at < column {
            bits &= bits - 1;
            at += 1;
            while bits == 0 {
                word += 1;
                bits = starts[word];
            }
        }
        let start = word * 64 + bits.trailing_zeros() as usize;
        let end = mask.cell_end(start);
        if slot == Slot::Device {
            name = (start, end);
            continue;
        }
        let (value, unit) = match parse_cell_in_line(line, start, end) {
            Some(value) => (value, None),
            None => human_cell(
                &line[start..end],
                file,
                line_no,
                &table.names[column],
                "every column but Device must be a number; remove the damaged line or re-capture",
            )?,
        };
        sane(slot, value, unit, file, line_no, &table.names[column])?;
        store(sample, slot, value, unit);
    }
    check_row(sample, table, file, line_no)?;
    Ok(name)
}

/// Refuses a value no device reports (see `sanity`). Nearly every cell is a small
/// non-negative number and passes one comparison; the rest are checked by their meaning.
#[inline]
fn sane(
    slot: Slot,
    value: f64,
    unit: Option<f64>,
    file: &str,
    line_no: u64,
    column: &str,
) -> Result<(), ProfileError> {
    if (0.0..900_000.0).contains(&value) {
        return Ok(());
    }
    sane_slow(slot, value, unit, file, line_no, column)
}

#[cold]
fn sane_slow(
    slot: Slot,
    value: f64,
    unit: Option<f64>,
    file: &str,
    line_no: u64,
    column: &str,
) -> Result<(), ProfileError> {
    let meaning = match slot {
        Slot::ReadBytes(scale) | Slot::WriteBytes(scale) => {
            crate::sanity::Meaning::Bytes(unit.unwrap_or(scale))
        }
        other => slot_meaning(other),
    };
    crate::sanity::check(meaning, value, file, line_no, column)
}

/// Puts a parsed cell where its column goes; `unit` (from `-h` output) overrides the
/// column's own unit.
#[inline]
pub(crate) fn store(sample: &mut DiskSample, slot: Slot, value: f64, unit: Option<f64>) {
    match slot {
        Slot::ReadIops => sample.read_iops = value,
        Slot::WriteIops => sample.write_iops = value,
        Slot::ReadBytes(scale) => sample.read_bytes_s = value * unit.unwrap_or(scale),
        Slot::WriteBytes(scale) => sample.write_bytes_s = value * unit.unwrap_or(scale),
        Slot::ReadLatency => sample.read_latency_ms = value,
        Slot::WriteLatency => sample.write_latency_ms = value,
        Slot::Latency => sample.latency_ms = value,
        Slot::QueueDepth => sample.queue_depth = value,
        Slot::ReadMerges => sample.read_merges_s = value,
        Slot::WriteMerges => sample.write_merges_s = value,
        Slot::Device | Slot::Ignore => {}
    }
}

/// The cells of a line found a byte at a time (lines too long for a [`BlankMask`]).
struct ByteCells<'a> {
    line: &'a [u8],
    pos: usize,
}

impl Iterator for ByteCells<'_> {
    type Item = (usize, usize);

    fn next(&mut self) -> Option<(usize, usize)> {
        let blank = |b: u8| b == b' ' || b == b'\t';
        let line = self.line;
        let mut start = self.pos;
        while start < line.len() && blank(line[start]) {
            start += 1;
        }
        let mut end = start;
        while end < line.len() && !blank(line[end]) {
            end += 1;
        }
        self.pos = end;
        (start < end).then_some((start, end))
    }
}

#[inline]
fn scan_cells(
    line: &[u8],
    mut cells: impl Iterator<Item = (usize, usize)>,
    table: &Table,
    sample: &mut DiskSample,
    file: &str,
    line_no: u64,
) -> Result<(usize, usize), ProfileError> {
    let mut name = (0, 0);
    for (index, &slot) in table.slots.iter().enumerate() {
        let Some((start, pos)) = cells.next() else {
            return Err(count_error(line, table, file, line_no));
        };
        let cell = &line[start..pos];
        let (value, unit) = match slot {
            Slot::Ignore => continue,
            Slot::Device => {
                name = (start, pos);
                continue;
            }
            // Nearly every cell is sysstat's `%.2f`: read in place; units and errors the slow way.
            _ => match parse_cell_in_line(line, start, pos) {
                Some(value) => (value, None),
                None => human_cell(
                    cell,
                    file,
                    line_no,
                    &table.names[index],
                    "every column but Device must be a number; remove the damaged line or re-capture",
                )?,
            },
        };
        sane(slot, value, unit, file, line_no, &table.names[index])?;
        match slot {
            Slot::ReadIops => sample.read_iops = value,
            Slot::WriteIops => sample.write_iops = value,
            Slot::ReadBytes(scale) => sample.read_bytes_s = value * unit.unwrap_or(scale),
            Slot::WriteBytes(scale) => sample.write_bytes_s = value * unit.unwrap_or(scale),
            Slot::ReadLatency => sample.read_latency_ms = value,
            Slot::WriteLatency => sample.write_latency_ms = value,
            Slot::Latency => sample.latency_ms = value,
            Slot::QueueDepth => sample.queue_depth = value,
            Slot::ReadMerges => sample.read_merges_s = value,
            Slot::WriteMerges => sample.write_merges_s = value,
            Slot::Device | Slot::Ignore => {}
        }
    }
    if cells.next().is_some() {
        return Err(count_error(line, table, file, line_no));
    }
    check_row(sample, table, file, line_no)?;
    Ok(name)
}

#[cold]
fn count_error(line: &[u8], table: &Table, file: &str, line_no: u64) -> ProfileError {
    let mut fields = Vec::new();
    split_fields(line, &mut fields);
    let mut scratch = DiskSample::empty(0);
    match read_row(line, &fields, table, &mut scratch, file, line_no) {
        Err(error) => error,
        Ok(()) => ProfileError::syntax(
            file,
            line_no,
            None,
            "the device row does not match its Device header",
            "remove the damaged line or re-capture",
        ),
    }
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
    capture.notes.push(first_report_note(file));
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

    /// Rows scanned by counting cell starts ([`scan_read_cells`]) give what walking every
    /// cell gives (the plain path, [`scan_cells`]): the same samples, device names and errors,
    /// on random rows of two layouts with damaged, human-unit and signed cells, missing and
    /// extra cells, tabs and wide blanks.
    #[test]
    fn reading_only_the_read_columns_equals_walking_every_cell() {
        let headers = [
            "Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   \
             wrqm/s  %wrqm w_await wareq-sz     d/s     dkB/s   drqm/s  %drqm d_await dareq-sz     \
             f/s f_await  aqu-sz  %util",
            "Device:         rrqm/s   wrqm/s     r/s     w/s    rkB/s    wkB/s avgrq-sz avgqu-sz   \
             await r_await w_await  svctm  %util",
        ];
        let mut state = 0x1234_5678_9abc_def1u64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let (mut compared, mut parsed) = (0, 0);
        for header in headers {
            let mut fields = Vec::new();
            split_fields(header.as_bytes(), &mut fields);
            let table = read_header(header.as_bytes(), &fields, "f.txt", 1, false).unwrap();
            for _ in 0..20_000 {
                let mut cells: Vec<String> =
                    vec![["sda", "nvme0n1", "dm-0"][next(3) as usize].into()];
                for _ in 1..table.slots.len() {
                    cells.push(match next(20) {
                        0 => "x1".into(),
                        1 => format!("{}.{}k", next(100), next(10)),
                        2 => format!("-{}.{:02}", next(10), next(100)),
                        3 => format!("{}", next(1_000_000)),
                        _ => {
                            let digits = next(9) as u32;
                            format!("{}.{:02}", next(10u64.pow(digits)), next(100))
                        }
                    });
                }
                match next(10) {
                    0 => {
                        cells.pop();
                    }
                    1 => cells.push("1.00".into()),
                    _ => {}
                }
                let mut line = " ".repeat(next(3) as usize);
                for cell in &cells {
                    line.push_str(cell);
                    line.push_str(match next(8) {
                        0 => "\t",
                        1 => "                         ",
                        _ => "  ",
                    });
                }
                let line = line.trim_end().as_bytes();
                let Some(mask) = BlankMask::new(line) else {
                    continue;
                };
                let (mut fast, mut plain) = (DiskSample::empty(0), DiskSample::empty(0));
                let got = scan_read_cells(line, &mask, &table, &mut fast, "f.txt", 7);
                let want = scan_cells(line, mask.cells(), &table, &mut plain, "f.txt", 7);
                assert_eq!(
                    format!("{got:?} {fast:?}"),
                    format!("{want:?} {plain:?}"),
                    "{}",
                    String::from_utf8_lossy(line)
                );
                compared += 1;
                parsed += usize::from(want.is_ok());
            }
        }
        assert!(compared > 30_000, "{compared}");
        assert!(
            parsed > 3_000 && compared - parsed > 3_000,
            "{parsed} of {compared} parsed"
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
