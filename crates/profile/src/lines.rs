//! A line reader that reuses one buffer (no allocation per line) and splits fields in place.

use std::io::BufRead;

/// Reads lines into a reused buffer; strips the newline and a trailing carriage return.
pub struct LineReader<R> {
    reader: R,
    buffer: Vec<u8>,
    pub line_no: u64,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(reader: R) -> LineReader<R> {
        LineReader {
            reader,
            buffer: Vec::with_capacity(512),
            line_no: 0,
        }
    }

    /// The next line with its 1-based number, or `None` at the end.
    pub fn next_line(&mut self) -> std::io::Result<Option<(u64, &[u8])>> {
        self.buffer.clear();
        let read = self.reader.read_until(b'\n', &mut self.buffer)?;
        if read == 0 {
            return Ok(None);
        }
        self.line_no += 1;
        let mut end = self.buffer.len();
        while end > 0 && matches!(self.buffer[end - 1], b'\n' | b'\r') {
            end -= 1;
        }
        Ok(Some((self.line_no, &self.buffer[..end])))
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
