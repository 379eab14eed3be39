//! The protocol over ONE Slurm job step: the controller starts every worker as a task of a
//! single `srun` and talks to all of them over that step's stdio.
//!
//! - **Controller -> workers.** srun sends its stdin to every task (`--input=all`), so each
//!   controller line carries the task it is for: `TASK JSON` (or `* JSON` for every task). A
//!   worker reads only the lines for its own `SLURM_PROCID` ([`AddressedInput`]); the byte
//!   stream reaches every task whole and in order, so no further framing is needed this way.
//! - **Workers -> controller.** With `--label` srun prefixes every line a task writes with
//!   `TASK: `. slurmstepd packs a task's output into messages of at most 1024 bytes, whole
//!   lines when they fit; a longer line is cut into 1024-byte pieces and srun writes each piece
//!   as a line of its own (label, piece, added newline), between other tasks' lines. A `done`
//!   with histograms is hundreds of KiB, so a worker writes every message as frames
//!   ([`FramedOutput`]): lines of at most [`FRAME_CHUNK_BYTES`] of the message each, well under
//!   1024 bytes, so that every frame reaches the controller as one whole labelled line. A
//!   frame is `~TASK+LEN CHUNK` (more follows) or `~TASK=LEN CHUNK` (the message's last
//!   piece): the task inside the frame must match srun's label and LEN the chunk's length, so
//!   a frame cut or mixed on the way is detected, never merged into another message
//!   ([`Demux`]).
//!
//! Nothing here depends on srun's `-u` (which gives the tasks a terminal and sends output
//! without line buffering): the controller never asks for it and clears `SLURM_UNBUFFEREDIO`.

use std::io::{BufRead, Write};

/// The most bytes of a message in one frame: with the frame's header and srun's label the
/// line stays far below slurmstepd's 1024-byte message, so srun never cuts it.
pub const FRAME_CHUNK_BYTES: usize = 900;

/// The line the controller writes to srun's stdin for `task`.
pub fn address(task: usize, json: &str) -> String {
    format!("{task} {json}")
}

/// A worker's input from the shared step: only the lines for `task` (or for every task), with
/// the address taken off. Lines for other tasks are skipped.
pub struct AddressedInput<R> {
    inner: R,
    task: String,
    line: Vec<u8>,
    pos: usize,
}

impl<R: BufRead> AddressedInput<R> {
    pub fn new(inner: R, task: usize) -> Self {
        AddressedInput {
            inner,
            task: task.to_string(),
            line: Vec::new(),
            pos: 0,
        }
    }

    /// The payload of `line` when it is addressed to this task (newline kept).
    fn payload<'a>(&self, line: &'a [u8]) -> Option<&'a [u8]> {
        let space = line.iter().position(|b| *b == b' ')?;
        let (to, rest) = (&line[..space], &line[space + 1..]);
        (to == b"*" || to == self.task.as_bytes()).then_some(rest)
    }
}

impl<R: BufRead> std::io::Read for AddressedInput<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for AddressedInput<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        while self.pos >= self.line.len() {
            let mut raw = Vec::new();
            // Bounded as every protocol line is; a longer one ends the input as an error.
            let limit = crate::protocol::MAX_LINE_BYTES as u64 + 64;
            let read = <&mut R as std::io::Read>::take(&mut self.inner, limit)
                .read_until(b'\n', &mut raw)?;
            if read == 0 {
                return Ok(&[]);
            }
            if let Some(payload) = self.payload(&raw) {
                self.line = payload.to_vec();
                if self.line.last() != Some(&b'\n') {
                    self.line.push(b'\n');
                }
                self.pos = 0;
            }
        }
        Ok(&self.line[self.pos..])
    }

    fn consume(&mut self, amount: usize) {
        self.pos = (self.pos + amount).min(self.line.len());
    }
}

/// A worker's output to the shared step: every line written becomes frames of at most
/// [`FRAME_CHUNK_BYTES`], written and flushed together.
pub struct FramedOutput<W: Write> {
    inner: W,
    task: usize,
    pending: Vec<u8>,
}

impl<W: Write> FramedOutput<W> {
    pub fn new(inner: W, task: usize) -> Self {
        FramedOutput {
            inner,
            task,
            pending: Vec::new(),
        }
    }

    fn write_frames(&mut self, line: &[u8]) -> std::io::Result<()> {
        let mut frames = Vec::with_capacity(line.len() + line.len() / 8 + 32);
        let mut rest = line;
        loop {
            let mut cut = rest.len().min(FRAME_CHUNK_BYTES);
            // A cut inside a UTF-8 character would leave two invalid halves: move it back to
            // the character's first byte.
            while cut < rest.len() && cut > 0 && (rest[cut] & 0xC0) == 0x80 {
                cut -= 1;
            }
            let (chunk, after) = rest.split_at(cut);
            let more = if after.is_empty() { '=' } else { '+' };
            write!(frames, "~{}{more}{} ", self.task, chunk.len())?;
            frames.extend_from_slice(chunk);
            frames.push(b'\n');
            if after.is_empty() {
                break;
            }
            rest = after;
        }
        self.inner.write_all(&frames)
    }
}

impl<W: Write> Write for FramedOutput<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(buf);
        while let Some(end) = self.pending.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            self.write_frames(&line[..end])?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// What one labelled line of srun's stdout gave.
#[derive(Debug, PartialEq, Eq)]
pub enum Demuxed {
    /// A task's whole message (one protocol line).
    Message(usize, String),
    /// A task's line that is not a valid frame (or a frame that does not continue its
    /// message): the task's stream can no longer be trusted.
    Garbage(usize, String),
    /// A line without a task label (srun's own output).
    Unlabelled(String),
    /// A frame taken in; the message is not complete yet.
    Partial,
}

/// Splits srun's labelled stdout back into each task's messages.
#[derive(Default)]
pub struct Demux {
    /// Per task: the message being put together from its frames.
    partial: Vec<Vec<u8>>,
}

/// `TASK: REST` as srun's `--label` writes it (the task zero-padded to a common width).
fn label(line: &str) -> Option<(usize, &str)> {
    let (task, rest) = line.split_once(": ")?;
    if task.is_empty() || !task.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Slurm's task ids are 16-bit.
    let task: u16 = task.parse().ok()?;
    Some((task as usize, rest))
}

/// The task srun's `--label` names at the start of `line` (None: srun's own line).
pub fn task_of_line(line: &str) -> Option<usize> {
    label(line).map(|(task, _)| task)
}

/// `~TASK+LEN CHUNK` or `~TASK=LEN CHUNK`: (task, last, chunk), when the length matches.
fn frame(text: &str) -> Option<(usize, bool, &str)> {
    let body = text.strip_prefix('~')?;
    let sign = body.find(['+', '='])?;
    let task = body[..sign].parse().ok()?;
    let last = body.as_bytes()[sign] == b'=';
    let (len, chunk) = body[sign + 1..].split_once(' ')?;
    let len: usize = len.parse().ok()?;
    (chunk.len() == len).then_some((task, last, chunk))
}

impl Demux {
    /// Takes one line of srun's stdout (without its newline).
    pub fn push(&mut self, line: &str) -> Demuxed {
        let Some((task, rest)) = label(line) else {
            return Demuxed::Unlabelled(line.to_string());
        };
        if self.partial.len() <= task {
            self.partial.resize_with(task + 1, Vec::new);
        }
        match frame(rest) {
            Some((inner, last, chunk)) if inner == task => {
                let buffer = &mut self.partial[task];
                buffer.extend_from_slice(chunk.as_bytes());
                if buffer.len() > crate::protocol::MAX_LINE_BYTES {
                    buffer.clear();
                    return Demuxed::Garbage(
                        task,
                        format!(
                            "a message longer than {} bytes",
                            crate::protocol::MAX_LINE_BYTES
                        ),
                    );
                }
                if !last {
                    return Demuxed::Partial;
                }
                let whole = std::mem::take(buffer);
                match String::from_utf8(whole) {
                    Ok(text) => Demuxed::Message(task, text),
                    Err(_) => Demuxed::Garbage(task, "a message that is not UTF-8".into()),
                }
            }
            _ => {
                self.partial[task].clear();
                Demuxed::Garbage(task, rest.to_string())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    /// What srun does to a task's output with `--label`: slurmstepd cuts it into pieces of at
    /// most 1024 bytes (whole lines when they fit), srun writes each piece as a labelled line.
    fn through_srun(task: usize, width: usize, output: &[u8]) -> Vec<String> {
        let mut lines = Vec::new();
        let mut rest = output;
        while !rest.is_empty() {
            let take = match rest.iter().position(|b| *b == b'\n') {
                Some(end) if end < 1024 => end + 1,
                _ => rest.len().min(1024),
            };
            let piece = String::from_utf8_lossy(&rest[..take]);
            lines.push(format!("{task:0width$}: {}", piece.trim_end_matches('\n')));
            rest = &rest[take..];
        }
        lines
    }

    #[test]
    fn long_messages_of_several_tasks_interleaved_line_by_line_come_back_whole() {
        // A message far longer than slurmstepd's 1024-byte pieces, with multi-byte characters
        // where a cut could fall, from 12 tasks (labels two digits wide).
        let message = |t: usize| {
            format!(
                r#"{{"type":"done","task":{t},"data":"{}"}}"#,
                "é0123456789".repeat(400 + t)
            )
        };
        let mut per_task: Vec<Vec<String>> = (0..12)
            .map(|t| {
                let mut out = FramedOutput::new(Vec::new(), t);
                writeln!(out, "{}", message(t)).unwrap();
                writeln!(out, r#"{{"type":"interval","index":{t}}}"#).unwrap();
                out.flush().unwrap();
                for line in String::from_utf8(out.inner.clone()).unwrap().lines() {
                    assert!(line.len() < 1000, "a frame of {} bytes", line.len());
                }
                through_srun(t, 2, &out.inner)
            })
            .collect();
        // Round-robin: every task's lines between every other task's.
        let mut demux = Demux::default();
        let mut got: Vec<Vec<String>> = vec![Vec::new(); 12];
        while per_task.iter().any(|l| !l.is_empty()) {
            for lines in per_task.iter_mut().filter(|l| !l.is_empty()) {
                match demux.push(&lines.remove(0)) {
                    Demuxed::Message(task, text) => got[task].push(text),
                    Demuxed::Partial => {}
                    other => panic!("{other:?}"),
                }
            }
        }
        for (t, messages) in got.iter().enumerate() {
            assert_eq!(
                messages,
                &vec![message(t), format!(r#"{{"type":"interval","index":{t}}}"#)]
            );
        }
    }

    #[test]
    fn a_cut_or_misaddressed_frame_is_garbage_never_merged() {
        let mut demux = Demux::default();
        // Its length says 10, 4 bytes came: the frame was cut.
        assert!(matches!(
            demux.push("0: ~0=10 abcd"),
            Demuxed::Garbage(0, _)
        ));
        // The frame says task 1, srun's label says task 0.
        assert!(matches!(demux.push("0: ~1=2 ab"), Demuxed::Garbage(0, _)));
        // A half message then a line that is no frame: the half is dropped with it.
        assert_eq!(demux.push("3: ~3+2 {\""), Demuxed::Partial);
        assert!(matches!(
            demux.push("3: srun piece"),
            Demuxed::Garbage(3, _)
        ));
        assert_eq!(demux.push("3: ~3=2 {}"), Demuxed::Message(3, "{}".into()));
        assert_eq!(
            demux.push("srun: error: Node failure on node2"),
            Demuxed::Unlabelled("srun: error: Node failure on node2".into())
        );
    }

    #[test]
    fn a_worker_reads_only_the_lines_for_its_task() {
        let input =
            b"0 {\"a\":0}\n1 {\"a\":1}\n* {\"all\":true}\n10 {\"a\":10}\n1 {\"b\":1}".to_vec();
        let mut one = AddressedInput::new(std::io::Cursor::new(input.clone()), 1);
        let mut text = String::new();
        one.read_to_string(&mut text).unwrap();
        assert_eq!(text, "{\"a\":1}\n{\"all\":true}\n{\"b\":1}\n");
        let mut ten = AddressedInput::new(std::io::Cursor::new(input), 10);
        let mut lines = Vec::new();
        while let Some(line) = crate::protocol::read_line(&mut ten).unwrap() {
            lines.push(line);
        }
        assert_eq!(lines, ["{\"all\":true}", "{\"a\":10}"]);
        assert_eq!(address(10, "{}"), "10 {}");
    }
}
