//! A large iostat file parsed on every core: cut at report starts into pieces, each piece
//! parsed on its own thread with its clock carried over, and the pieces joined in order.

use super::reports::{first_report_dropped, parse_reports, Chunk};
use super::{drop_first_report, IostatOptions};
use crate::capture::Capture;
use crate::clock::stamp_line;
use crate::error::ProfileError;
use crate::lines::{is_blank, logger_prefix};
use crate::notes::CaptureNote;

/// Below this size a file is parsed on one core: splitting costs more than it saves.
pub const PARALLEL_MIN_BYTES: u64 = 16 << 20;

/// Parses a large `iostat -x` file on up to `threads` cores: the file is cut at report starts
/// (an `avg-cpu:` line, with the `-t` stamp before it), the pieces are parsed at the same time,
/// each streaming from its own offset, and joined in order (times continued across pieces,
/// over midnight too). The result equals [`parse_iostat`](super::parse_iostat)'s, errors included (their line
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
pub(super) fn parse_pieces(
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
pub(super) fn report_starts(
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
pub(super) fn finish(
    mut capture: Capture,
    chunk: &Chunk,
    file: &str,
    options: IostatOptions,
) -> Result<Capture, ProfileError> {
    let timestamps = chunk.timestamps;
    let reports = capture.reports() + usize::from(chunk.first_dropped);
    if timestamps > 0 && timestamps < reports as u64 {
        capture.notes.push(CaptureNote::FewTimeStamps {
            file: file.to_string(),
            stamped: timestamps,
            reports,
        });
    }
    if chunk.prefixed {
        capture.notes.push(CaptureNote::LoggerTimeStamps {
            file: file.to_string(),
        });
    }
    if chunk.first_dropped {
        first_report_dropped(&mut capture, file);
    } else if !options.keep_first_report {
        drop_first_report(&mut capture, file)?;
    }
    Ok(capture)
}
