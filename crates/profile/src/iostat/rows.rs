//! One device table: its header's columns by name, each row's cells scanned and stored in
//! their units, and the sanity checks of a row (counts, limits a disk cannot pass).

use super::{slot_meaning, slot_of, Slot, Table};
use crate::capture::DiskSample;
use crate::error::ProfileError;
use crate::lines::{split_fields, BlankMask};
use crate::num::{human_cell, parse_cell_in_line};

pub(super) fn read_header(
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
pub(super) fn read_row(
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
        Slot::ReadIops => sample.read_iops.get(),
        Slot::WriteIops => sample.write_iops.get(),
        Slot::ReadBytes(_) => sample.read_bytes_s.0,
        Slot::WriteBytes(_) => sample.write_bytes_s.0,
        Slot::ReadLatency => sample.read_latency_ms.get(),
        Slot::WriteLatency => sample.write_latency_ms.get(),
        Slot::Latency => sample.latency_ms.get(),
        Slot::QueueDepth => sample.queue_depth,
        Slot::ReadMerges => sample.read_merges_per_s,
        Slot::WriteMerges => sample.write_merges_per_s,
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
pub(super) fn is_header_line(line: &[u8]) -> bool {
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
pub(super) fn scan_row(
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
pub(super) fn scan_read_cells(
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
        Slot::ReadIops => sample.read_iops = iofit_model::Iops(value),
        Slot::WriteIops => sample.write_iops = iofit_model::Iops(value),
        Slot::ReadBytes(scale) => {
            sample.read_bytes_s = iofit_model::BytesPerSecond(value * unit.unwrap_or(scale))
        }
        Slot::WriteBytes(scale) => {
            sample.write_bytes_s = iofit_model::BytesPerSecond(value * unit.unwrap_or(scale))
        }
        Slot::ReadLatency => sample.read_latency_ms = iofit_model::units::Millis(value),
        Slot::WriteLatency => sample.write_latency_ms = iofit_model::units::Millis(value),
        Slot::Latency => sample.latency_ms = iofit_model::units::Millis(value),
        Slot::QueueDepth => sample.queue_depth = value,
        Slot::ReadMerges => sample.read_merges_per_s = value,
        Slot::WriteMerges => sample.write_merges_per_s = value,
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
pub(super) fn scan_cells(
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
        store(sample, slot, value, unit);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lines::{split_fields, BlankMask};

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
}
