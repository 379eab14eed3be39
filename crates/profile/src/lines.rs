//! A line reader that reuses one buffer (no allocation per line) and splits fields in place.

use std::io::BufRead;

/// Reads lines; strips the newline and a trailing carriage return. A line that lies whole in
/// the reader's buffer is returned in place (no copy); one that spans a refill is gathered in a
/// reused buffer.
pub struct LineReader<R> {
    reader: R,
    buffer: Vec<u8>,
    /// Bytes of the reader's buffer the line returned last occupies, consumed on the next call.
    pending: usize,
    pub line_no: u64,
}

fn trim_newline(line: &[u8]) -> &[u8] {
    let mut end = line.len();
    while end > 0 && matches!(line[end - 1], b'\n' | b'\r') {
        end -= 1;
    }
    &line[..end]
}

impl<R: BufRead> LineReader<R> {
    pub fn new(reader: R) -> LineReader<R> {
        LineReader {
            reader,
            buffer: Vec::with_capacity(512),
            pending: 0,
            line_no: 0,
        }
    }

    /// The next line with its 1-based number, or `None` at the end.
    pub fn next_line(&mut self) -> std::io::Result<Option<(u64, &[u8])>> {
        if self.pending > 0 {
            self.reader.consume(self.pending);
            self.pending = 0;
        }
        let newline = {
            let available = self.reader.fill_buf()?;
            if available.is_empty() {
                return Ok(None);
            }
            memchr::memchr(b'\n', available)
        };
        self.line_no += 1;
        if let Some(newline) = newline {
            self.pending = newline + 1;
            // The buffer is still filled: this returns it again without reading.
            let available = self.reader.fill_buf()?;
            return Ok(Some((self.line_no, trim_newline(&available[..newline]))));
        }
        self.buffer.clear();
        self.reader.read_until(b'\n', &mut self.buffer)?;
        Ok(Some((self.line_no, trim_newline(&self.buffer))))
    }
}

/// Splits on spaces and tabs, writing each field's byte range into `out` (reused between
/// calls; ranges rather than slices so the buffer can be refilled while `out` lives on).
#[inline]
pub fn split_fields(line: &[u8], out: &mut Vec<(usize, usize)>) {
    out.clear();
    let mut start = usize::MAX;
    for (i, &b) in line.iter().enumerate() {
        let blank = b == b' ' || b == b'\t';
        if blank {
            if start != usize::MAX {
                out.push((start, i));
                start = usize::MAX;
            }
        } else if start == usize::MAX {
            start = i;
        }
    }
    if start != usize::MAX {
        out.push((start, line.len()));
    }
}

/// True when the line holds only spaces and tabs.
pub fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|&b| b == b' ' || b == b'\t')
}

/// True when the bytes look like a binary file rather than text (NUL bytes or many controls).
pub fn looks_binary(head: &[u8]) -> bool {
    if head.contains(&0) {
        // UTF-16 text has NULs too; callers check for its byte-order mark first.
        return true;
    }
    let controls = head
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\n' | b'\r' | b'\t'))
        .count();
    controls * 20 > head.len().max(1)
}

/// A time stamp a line logger put before the tool's own text: `2016-04-08 01:06:59 ` (as
/// `ts '%Y-%m-%d %H:%M:%S'`, cron wrappers and `logger`-style scripts write it, optionally with
/// a fraction, a `T` or brackets) or `Apr 08 01:06:59 ` (`ts`' default). Returns the prefix
/// length, trailing space included, and the time of day in seconds.
pub fn logger_prefix(line: &[u8]) -> Option<(usize, f64)> {
    let open = usize::from(line.first() == Some(&b'['));
    let rest = &line[open..];
    let digits = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
    let date_len = if rest.len() > 11
        && digits(&rest[..4])
        && rest[4] == b'-'
        && digits(&rest[5..7])
        && rest[7] == b'-'
        && digits(&rest[8..10])
        && matches!(rest[10], b' ' | b'T')
    {
        11
    } else if rest.len() > 7
        && rest[..3].iter().all(u8::is_ascii_alphabetic)
        && rest[3] == b' '
        && rest[4..6].iter().all(|b| b.is_ascii_digit() || *b == b' ')
        && rest[6] == b' '
    {
        7
    } else {
        return None;
    };
    let clock = &rest[date_len..];
    if clock.len() < 9 || !(digits(&clock[..2]) && clock[2] == b':' && clock[5] == b':') {
        return None;
    }
    if !(digits(&clock[3..5]) && digits(&clock[6..8])) {
        return None;
    }
    let mut end = 8;
    if matches!(clock.get(end), Some(b'.' | b',')) {
        end += 1;
        while clock.get(end).is_some_and(u8::is_ascii_digit) {
            end += 1;
        }
    }
    if open == 1 {
        if clock.get(end) != Some(&b']') {
            return None;
        }
        end += 1;
    }
    if clock.get(end) != Some(&b' ') {
        return None;
    }
    let time_of_day = crate::clock::time_of_day_s(std::str::from_utf8(&clock[..end]).ok()?)?;
    Some((open + date_len + end + 1, time_of_day))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logger_prefixes() {
        assert_eq!(
            logger_prefix(b"2016-04-08 01:06:59 Device: rrqm/s"),
            Some((20, 4019.0))
        );
        assert_eq!(logger_prefix(b"2016-04-08 01:06:59 "), Some((20, 4019.0)));
        assert_eq!(
            logger_prefix(b"[2016-04-08T01:06:59.5] sda 1.0"),
            Some((24, 4019.5))
        );
        assert_eq!(
            logger_prefix(b"Apr  8 01:06:59 sda 1.0"),
            Some((16, 4019.0))
        );
        // iostat's own -t stamps are not prefixes: no text follows them.
        assert_eq!(logger_prefix(b"2026-11-22T17:19:57+0000"), None);
        assert_eq!(logger_prefix(b"11/22/26 17:19:57"), None);
        assert_eq!(logger_prefix(b"sda 2016-04-08 01:06:59 "), None);
    }
}
