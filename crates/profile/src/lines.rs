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
    /// Bytes of the input returned so far, line ends included.
    pub bytes_read: u64,
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
            bytes_read: 0,
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
            self.bytes_read += self.pending as u64;
            // The buffer is still filled: this returns it again without reading.
            let available = self.reader.fill_buf()?;
            return Ok(Some((self.line_no, trim_newline(&available[..newline]))));
        }
        self.buffer.clear();
        self.reader.read_until(b'\n', &mut self.buffer)?;
        self.bytes_read += self.buffer.len() as u64;
        Ok(Some((self.line_no, trim_newline(&self.buffer))))
    }
}

/// Which bytes of a line are blanks (space or tab), one bit per byte, found 16 bytes at a
/// time, and the line's cells (runs of non-blanks) read from those bits: the row scanners
/// spent most of their time finding cell edges a byte at a time (18 % of `iofit profile` in
/// `perf record`, as much as parsing the numbers). Lines of [`BlankMask::MAX_BYTES`] or more
/// are not masked (`new` returns `None`); callers then scan byte by byte.
pub struct BlankMask {
    /// One word more than a masked line can fill, so that a cell ending at the line's end
    /// always has a blank (past the end) after it.
    words: [u64; BlankMask::WORDS + 1],
    len: usize,
}

impl BlankMask {
    const WORDS: usize = 8;
    /// Longest line masked, plus one: sysstat rows are ~200 bytes; 511 covers the widest.
    pub const MAX_BYTES: usize = Self::WORDS * 64;

    #[inline]
    pub fn new(line: &[u8]) -> Option<BlankMask> {
        if line.len() >= Self::MAX_BYTES {
            return None;
        }
        let mut words = [0u64; Self::WORDS + 1];
        let mut chunks = line.chunks_exact(16);
        for (index, chunk) in chunks.by_ref().enumerate() {
            let bits = blank_bits_16(chunk.try_into().expect("chunks of 16"));
            words[index / 4] |= u64::from(bits) << ((index % 4) * 16);
        }
        let tail = chunks.remainder();
        let index = line.len() / 16;
        if !tail.is_empty() {
            let mut padded = [b'x'; 16];
            padded[..tail.len()].copy_from_slice(tail);
            words[index / 4] |= u64::from(blank_bits_16(&padded)) << ((index % 4) * 16);
        }
        // Everything past the end reads as blank: the last cell ends at `len`.
        let (word, bit) = (line.len() / 64, line.len() % 64);
        words[word] |= u64::MAX << bit;
        for rest in &mut words[word + 1..] {
            *rest = u64::MAX;
        }
        Some(BlankMask {
            words,
            len: line.len(),
        })
    }

    /// Where cells start: bit i of word w is set when a cell starts at byte 64 w + i.
    #[inline]
    pub fn starts(&self) -> [u64; BlankMask::WORDS + 1] {
        let mut starts = [0u64; BlankMask::WORDS + 1];
        let mut carry_blank = 1u64;
        for (out, &blank) in starts.iter_mut().zip(&self.words) {
            *out = !blank & ((blank << 1) | carry_blank);
            carry_blank = blank >> 63;
        }
        starts
    }

    /// The end of the cell that starts at `start`: the first blank at or after it (the bytes
    /// past the line's end read as blanks, so there always is one).
    #[inline]
    pub fn cell_end(&self, start: usize) -> usize {
        let mut word = start / 64;
        let bits = self.words[word] >> (start % 64);
        if bits != 0 {
            return start + bits.trailing_zeros() as usize;
        }
        loop {
            word += 1;
            let bits = self.words[word];
            if bits != 0 {
                return word * 64 + bits.trailing_zeros() as usize;
            }
        }
    }

    /// The line's cells as byte ranges, in order.
    #[inline]
    pub fn cells(&self) -> Cells<'_> {
        Cells {
            mask: self,
            word: 0,
            events: 0,
            starts: 0,
            carry_blank: 1,
            open: 0,
        }
    }
}

/// The cells of a masked line, found from the bits where blanks start and stop.
pub struct Cells<'a> {
    mask: &'a BlankMask,
    /// Index of the next word to load.
    word: usize,
    /// Cell starts and ends left in the word loaded last (bit i: byte `64 * (word - 1) + i`).
    events: u64,
    starts: u64,
    /// 1 when the byte before the next word is a blank (or the line's start).
    carry_blank: u64,
    open: usize,
}

impl Iterator for Cells<'_> {
    type Item = (usize, usize);

    #[inline]
    fn next(&mut self) -> Option<(usize, usize)> {
        loop {
            while self.events != 0 {
                let bit = self.events.trailing_zeros() as usize;
                let lowest = self.events & self.events.wrapping_neg();
                self.events ^= lowest;
                let at = (self.word - 1) * 64 + bit;
                if self.starts & lowest != 0 {
                    self.open = at;
                } else {
                    return Some((self.open, at));
                }
            }
            // The word after the line's last byte has been read: no cell is left open.
            if self.word * 64 > self.mask.len {
                return None;
            }
            let blank = self.mask.words[self.word];
            let before_blank = (blank << 1) | self.carry_blank;
            self.starts = !blank & before_blank;
            self.events = self.starts | (blank & !before_blank);
            self.carry_blank = blank >> 63;
            self.word += 1;
        }
    }
}

/// One bit per byte of a 16-byte block: set where the byte is a space or a tab.
#[inline]
fn blank_bits_16(block: &[u8; 16]) -> u16 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
            _mm_set1_epi8,
        };
        // SAFETY: SSE2 is part of the x86_64 baseline, so these intrinsics are always
        // available; the load is unaligned and reads exactly the 16 bytes of `block`.
        unsafe {
            let bytes = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
            let space = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(b' ' as i8));
            let tab = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(b'\t' as i8));
            _mm_movemask_epi8(_mm_or_si128(space, tab)) as u16
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        block.iter().enumerate().fold(0u16, |bits, (i, &b)| {
            bits | (u16::from(b == b' ' || b == b'\t') << i)
        })
    }
}

/// Splits on spaces and tabs, writing each field's byte range into `out` (reused between
/// calls; ranges rather than slices so the buffer can be refilled while `out` lives on).
#[inline]
pub fn split_fields(line: &[u8], out: &mut Vec<(usize, usize)>) {
    out.clear();
    if let Some(mask) = BlankMask::new(line) {
        out.extend(mask.cells());
        return;
    }
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

#[cfg(test)]
mod blank_mask_tests {
    use super::*;

    fn naive(line: &[u8]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut start = None;
        for (i, &b) in line.iter().enumerate() {
            match (b == b' ' || b == b'\t', start) {
                (true, Some(s)) => {
                    out.push((s, i));
                    start = None;
                }
                (false, None) => start = Some(i),
                _ => {}
            }
        }
        if let Some(s) = start {
            out.push((s, line.len()));
        }
        out
    }

    #[test]
    fn the_mask_splits_as_a_byte_by_byte_scan_does() {
        // Every length up to past one mask word and past the mask's end, with blanks, tabs and
        // bytes one off a blank (0x1f, 0x21, 0x08, 0x0a, 0xa0) in a fixed pseudo-random mix.
        let alphabet = [b' ', b'\t', b'a', b'1', 0x1f, 0x21, 0x08, 0x0a, 0xa0, b'.'];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut out = Vec::new();
        for len in 0..=600 {
            for _ in 0..8 {
                let line: Vec<u8> = (0..len)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        alphabet[(state % alphabet.len() as u64) as usize]
                    })
                    .collect();
                split_fields(&line, &mut out);
                assert_eq!(out, naive(&line), "{line:?}");
            }
        }
    }
}
