//! The one door for outputs: every file iofit writes that is not a job's data file (reports,
//! `write_iolog`, per-IO and histogram logs, verify state, flatfiles, dumps) is checked and
//! written here, under one policy:
//!
//! - never a device or other non-regular file: a FIFO, `/dev/null` or a terminal is written
//!   as a stream; another character device only with `--allow-overwrite`; a block device,
//!   socket or directory never;
//! - never through or over a symbolic link (the final name is opened `O_NOFOLLOW`; the bytes
//!   go to an `O_EXCL|O_NOFOLLOW` temporary file in the same directory that is renamed into
//!   place, so nothing is written through any name a user planted);
//! - never onto an input of the run (any file read through [`crate::input`]: job file,
//!   includes, captures, `read_iolog`, verify state being loaded, catalog files), not even
//!   with `--allow-overwrite`;
//! - an existing file is replaced only when it is an earlier iofit output of the same kind,
//!   otherwise refused naming `--allow-overwrite`.
//!
//! "An earlier output of the same kind" is recognised by a stamp iofit writes when it
//! publishes an output: the kind, inode, birth time, size, modification time and a checksum
//! of the first and last 64 KiB, in the extended attribute `user.iofit.output` (or, where
//! xattrs do not work, a sidecar `.NAME.iofit-output`). A file written since (a user's `cp`
//! into the same inode keeps the xattr but not the size, time and checksum), a copy (new
//! inode) or a file of another kind does not match, so it is foreign.

use crate::atomic_file::AtomicFile;
use crate::error::SafeFsError;
use crate::{input, sys};
use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileExt, FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// What an output is; an existing file is replaced only by an output of its own kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputKind {
    /// `--output`, `-o`, `--report`, `--flatfile`, plans and catalogs: a result file.
    Report,
    /// fio `write_iolog`.
    IoLog,
    /// fio `write_bw_log`/`write_lat_log`/`write_iops_log`/`write_hist_log` files.
    StatsLog,
    /// The verify state a write job leaves for a later verify job.
    VerifyState,
    /// fio `verify_dump`'s `.received`/`.expected` files.
    VerifyDump,
}

impl OutputKind {
    fn tag(self) -> &'static str {
        match self {
            OutputKind::Report => "report",
            OutputKind::IoLog => "iolog",
            OutputKind::StatsLog => "stats-log",
            OutputKind::VerifyState => "verify-state",
            OutputKind::VerifyDump => "verify-dump",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            OutputKind::Report => "result file",
            OutputKind::IoLog => "write_iolog file",
            OutputKind::StatsLog => "log file",
            OutputKind::VerifyState => "verify state file",
            OutputKind::VerifyDump => "verify dump",
        }
    }
}

/// What is at an output's name now, and may be done with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Existing {
    /// Nothing: the output is created.
    Absent,
    /// An earlier iofit output of the same kind: it is replaced.
    EarlierOutput,
    /// A regular file iofit did not write, replaced because `--allow-overwrite` was given.
    Overwrite,
    /// A FIFO, `/dev/null`, a terminal (or, with `--allow-overwrite`, another character
    /// device): written as a stream, never replaced.
    Stream,
}

const STAMP_XATTR: &str = "user.iofit.output";
const STAMP_MAGIC: &str = "iofit-output v1";
const SAMPLE_BYTES: u64 = 64 << 10;
const MAX_STAMP_BYTES: usize = 512;

/// Checks, before any work, that `path` may be written as an output of `kind`.
pub fn check(
    path: &Path,
    kind: OutputKind,
    allow_overwrite: bool,
) -> Result<Existing, SafeFsError> {
    let text = path.as_os_str().as_bytes();
    if text.is_empty() {
        return Err(SafeFsError::bad(
            path,
            "the output name is empty; give a file name",
        ));
    }
    if text.ends_with(b"/") {
        return Err(SafeFsError::bad(
            path,
            "is a directory; give the output a file name",
        ));
    }
    let (dir, _) = sys::split(path)
        .map_err(|_| SafeFsError::bad(path, "needs a file name; give the output a file name"))?;
    let meta = match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if !dir.is_dir() {
                return Err(SafeFsError::bad(
                    path,
                    format!(
                    "the directory {} does not exist; create it first or write the {} elsewhere",
                    dir.display(),
                    kind.describe()
                ),
                ));
            }
            return Ok(Existing::Absent);
        }
        Err(e) => return Err(SafeFsError::io("cannot inspect", path, e)),
        Ok(meta) => meta,
    };
    let ft = meta.file_type();
    if ft.is_symlink() {
        // A link to a stream (/dev/stdout to a pipe or terminal) writes nothing anyone keeps.
        if std::fs::metadata(path).is_ok_and(|m| is_harmless_stream(&m)) {
            return Ok(Existing::Stream);
        }
        return Err(SafeFsError::refused(path, format!(
            "it is a symbolic link; iofit never writes through or replaces a link. Name the {} directly (a new file)",
            kind.describe()
        )));
    }
    if ft.is_dir() {
        return Err(SafeFsError::bad(
            path,
            format!("is a directory; give the {} a file name", kind.describe()),
        ));
    }
    if is_harmless_stream(&meta) || (ft.is_char_device() && allow_overwrite) {
        return Ok(Existing::Stream);
    }
    if !ft.is_file() {
        return Err(SafeFsError::refused(
            path,
            format!(
                "it is {}, not a file; an iofit {} goes to a regular file. Give a file name",
                describe_type(&meta),
                kind.describe()
            ),
        ));
    }
    if let Some(input) = input::input_named(&meta) {
        return Err(SafeFsError::refused(path, format!(
            "it is {}, which this run reads; the {} would replace it. Write it to another file name",
            input.display(),
            kind.describe()
        )));
    }
    if is_earlier_output(path, kind) {
        return Ok(Existing::EarlierOutput);
    }
    if allow_overwrite {
        return Ok(Existing::Overwrite);
    }
    Err(SafeFsError::refused(path, format!(
        "the file exists and is not an earlier iofit {} (iofit stamps each output it writes), so it may be a user's data. Give another name, delete it yourself, or pass --allow-overwrite",
        kind.describe()
    )))
}

fn describe_type(meta: &std::fs::Metadata) -> &'static str {
    let ft = meta.file_type();
    if ft.is_block_device() {
        "a block device"
    } else if ft.is_char_device() {
        "a character device"
    } else if ft.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// FIFOs, the null device and terminals: writing a stream to them destroys nothing.
fn is_harmless_stream(meta: &std::fs::Metadata) -> bool {
    let ft = meta.file_type();
    if ft.is_fifo() {
        return true;
    }
    if !ft.is_char_device() {
        return false;
    }
    let (major, minor) = (libc::major(meta.rdev()), libc::minor(meta.rdev()));
    // 1:3 /dev/null; 4 and 136-143 terminals and pseudo-terminals; 5:0 /dev/tty.
    (major, minor) == (1, 3)
        || major == 4
        || (136..=143).contains(&major)
        || (major, minor) == (5, 0)
}

/// An output being written: the bytes go to a temporary file beside it and are published
/// with a stamp of their kind ([`OutputFile::commit`]). With [`OutputFile::keep_on_drop`] a
/// log is published when dropped too, so a run stopped early keeps what it wrote.
#[derive(Debug)]
pub struct OutputFile {
    inner: Option<AtomicFile>,
    kind: OutputKind,
    existing: Existing,
    allow_overwrite: bool,
    keep_on_drop: bool,
}

impl OutputFile {
    /// Checks `path` ([`check`]) and starts writing it.
    pub fn create(
        path: &Path,
        kind: OutputKind,
        allow_overwrite: bool,
    ) -> Result<OutputFile, SafeFsError> {
        let existing = check(path, kind, allow_overwrite)?;
        let inner = AtomicFile::create(path)?;
        Ok(OutputFile {
            inner: Some(inner),
            kind,
            existing,
            allow_overwrite,
            keep_on_drop: false,
        })
    }

    /// Publish what was written when dropped uncommitted (logs of a run that stopped), and
    /// also when the process ends at once ([`crate::atomic::remove_unfinished`]).
    pub fn keep_on_drop(mut self) -> OutputFile {
        self.keep_on_drop = true;
        if let Some(inner) = &self.inner {
            if !inner.is_stream() {
                let kind = self.kind;
                crate::atomic_file::publish_at_exit(
                    inner.temp_path(),
                    inner.path().to_path_buf(),
                    Box::new(move |file| {
                        stamp_file(file, kind);
                    }),
                );
            }
        }
        self
    }

    /// The file being written (the temporary file, or the stream).
    pub fn file(&self) -> &File {
        self.inner.as_ref().expect("not committed").file()
    }

    /// Stamps the output as an iofit output of its kind and puts it in place.
    pub fn commit(mut self) -> Result<(), SafeFsError> {
        self.publish(true)
    }

    fn publish(&mut self, synced: bool) -> Result<(), SafeFsError> {
        let inner = self.inner.take().expect("committed once");
        if self.existing == Existing::Stream || inner.is_stream() {
            return inner.commit_unsynced();
        }
        let path = inner.path().to_path_buf();
        let (kind, allow) = (self.kind, self.allow_overwrite);
        let stamp =
            Stamp::of(inner.file(), kind).map_err(|e| SafeFsError::io("cannot stamp", &path, e))?;
        let xattr = sys::fsetxattr(inner.file(), STAMP_XATTR, stamp.encode().as_bytes()).is_ok();
        // Checked again at the rename: a file may have appeared, or been swapped, meanwhile.
        let replace = match check(&path, kind, allow)? {
            Existing::Absent => false,
            Existing::Stream => {
                return Err(SafeFsError::refused(
                    &path,
                    "a stream or link appeared at the output's name while the run wrote it; the output was not put there",
                ))
            }
            Existing::EarlierOutput | Existing::Overwrite => true,
        };
        inner.publish_as_output(synced, replace)?;
        if xattr {
            remove_sidecar(&path);
        } else {
            write_sidecar(&path, &stamp);
        }
        Ok(())
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.as_mut().expect("not committed").write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.as_mut().expect("not committed").flush()
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if self.keep_on_drop && self.inner.is_some() {
            // Nowhere to report a failure from a drop; the output is then simply not there.
            let _ = self.publish(false);
        }
    }
}

/// Checks `path` and writes `bytes` to it as an output of `kind`.
pub fn write(
    path: &Path,
    kind: OutputKind,
    allow_overwrite: bool,
    bytes: &[u8],
) -> Result<(), SafeFsError> {
    let mut out = OutputFile::create(path, kind, allow_overwrite)?;
    out.write_all(bytes)
        .map_err(|e| SafeFsError::io("cannot write", path, e))?;
    out.commit()
}

/// Stamps a just-written output of `kind` (through [`crate::atomic`]) so that a later run may
/// replace it. Best effort: an output that cannot be stamped is only refused next time.
pub(crate) fn stamp_file(file: &File, kind: OutputKind) -> bool {
    match Stamp::of(file, kind) {
        Ok(stamp) => sys::fsetxattr(file, STAMP_XATTR, stamp.encode().as_bytes()).is_ok(),
        Err(_) => false,
    }
}

/// Writes the sidecar stamp of an output published without an xattr.
pub(crate) fn stamp_sidecar(path: &Path, kind: OutputKind) {
    if let Ok(file) = sys::open(
        path,
        libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK,
        0,
    ) {
        if let Ok(stamp) = Stamp::of(&file, kind) {
            write_sidecar(path, &stamp);
        }
    }
}

/// True when `path` is, on its open descriptor, an output of `kind` that iofit published and
/// nobody has written since.
pub fn is_earlier_output(path: &Path, kind: OutputKind) -> bool {
    let flags = libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK;
    let Ok(file) = sys::open(path, flags, 0) else {
        return false;
    };
    let Ok(now) = Stamp::of(&file, kind) else {
        return false;
    };
    let mut buf = [0u8; MAX_STAMP_BYTES];
    let recorded = match sys::fgetxattr(&file, STAMP_XATTR, &mut buf) {
        Ok(n) => Stamp::decode(&buf[..n]),
        Err(_) => read_sidecar(path),
    };
    recorded.is_some_and(|r| r == now)
}

/// What iofit recorded about an output it published.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Stamp {
    kind: String,
    ino: u64,
    btime: Option<(i64, u32)>,
    size: u64,
    mtime: (i64, i64),
    sum: u64,
}

impl Stamp {
    fn of(file: &File, kind: OutputKind) -> io::Result<Stamp> {
        let st = sys::fstat(file)?;
        if st.st_mode & libc::S_IFMT != libc::S_IFREG {
            return Err(io::Error::other("not a regular file"));
        }
        let size = st.st_size as u64;
        Ok(Stamp {
            kind: kind.tag().to_string(),
            ino: st.st_ino,
            btime: sys::birth_time(file),
            size,
            mtime: (st.st_mtime, st.st_mtime_nsec),
            sum: content_sum(file, size)?,
        })
    }

    fn encode(&self) -> String {
        let btime = match self.btime {
            Some((s, ns)) => format!("{s}.{ns:09}"),
            None => "-".to_string(),
        };
        format!(
            "{STAMP_MAGIC} kind={} ino={} btime={btime} size={} mtime={}.{:09} sum={:016x}\n",
            self.kind, self.ino, self.size, self.mtime.0, self.mtime.1, self.sum
        )
    }

    fn decode(bytes: &[u8]) -> Option<Stamp> {
        let text = std::str::from_utf8(bytes).ok()?;
        let rest = text.trim().strip_prefix(STAMP_MAGIC)?;
        let mut stamp = Stamp {
            kind: String::new(),
            ino: 0,
            btime: None,
            size: 0,
            mtime: (0, 0),
            sum: 0,
        };
        let mut seen = 0;
        for field in rest.split_whitespace() {
            let (key, value) = field.split_once('=')?;
            match key {
                "kind" => stamp.kind = value.to_string(),
                "ino" => stamp.ino = value.parse().ok()?,
                "btime" if value == "-" => stamp.btime = None,
                "btime" => {
                    let (s, ns) = value.split_once('.')?;
                    stamp.btime = Some((s.parse().ok()?, ns.parse().ok()?));
                }
                "size" => stamp.size = value.parse().ok()?,
                "mtime" => {
                    let (s, ns) = value.split_once('.')?;
                    stamp.mtime = (s.parse().ok()?, ns.parse().ok()?);
                }
                "sum" => stamp.sum = u64::from_str_radix(value, 16).ok()?,
                _ => return None,
            }
            seen += 1;
        }
        (seen == 6).then_some(stamp)
    }
}

/// FNV-1a over the first and last 64 KiB: a file rewritten with other bytes does not match,
/// and a stamp is checked without reading a long log whole.
fn content_sum(file: &File, size: u64) -> io::Result<u64> {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut buf = vec![0u8; SAMPLE_BYTES as usize];
    let tail = size
        .saturating_sub(SAMPLE_BYTES)
        .max(SAMPLE_BYTES.min(size));
    for start in [0, tail] {
        let want = (size.saturating_sub(start)).min(SAMPLE_BYTES) as usize;
        let mut got = 0;
        while got < want {
            let n = file.read_at(&mut buf[got..want], start + got as u64)?;
            if n == 0 {
                break;
            }
            got += n;
        }
        for byte in &buf[..got] {
            hash ^= u64::from(*byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    Ok(hash)
}

fn sidecar_of(path: &Path) -> Option<(PathBuf, OsString)> {
    let (dir, name) = sys::split(path).ok()?;
    let mut sidecar = OsString::from(".");
    sidecar.push(name);
    sidecar.push(".iofit-output");
    Some((dir, sidecar))
}

fn read_sidecar(path: &Path) -> Option<Stamp> {
    let (dir, name) = sidecar_of(path)?;
    let dirfd = sys::open_dir(&dir).ok()?;
    let flags = libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK;
    let file = sys::openat(&dirfd, &name, flags, 0).ok()?;
    let st = sys::fstat(&file).ok()?;
    if st.st_mode & libc::S_IFMT != libc::S_IFREG || st.st_size as usize > MAX_STAMP_BYTES {
        return None;
    }
    let mut buf = [0u8; MAX_STAMP_BYTES];
    let n = file.read_at(&mut buf, 0).ok()?;
    Stamp::decode(&buf[..n])
}

/// The sidecar is iofit's name (`.NAME.iofit-output`), written like any output: a random
/// temporary file renamed into place, so a planted link there is replaced, never followed.
fn write_sidecar(path: &Path, stamp: &Stamp) {
    if let Some((dir, name)) = sidecar_of(path) {
        let _ = crate::atomic_file::write_plain(&dir.join(name), stamp.encode().as_bytes());
    }
}

fn remove_sidecar(path: &Path) {
    if let Some((dir, name)) = sidecar_of(path) {
        if let Ok(dirfd) = sys::open_dir(&dir) {
            let _ = sys::unlinkat(&dirfd, &name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_round_trips_and_junk_does_not_parse() {
        let stamp = Stamp {
            kind: "iolog".into(),
            ino: 12,
            btime: Some((1_700_000_000, 7)),
            size: 4096,
            mtime: (1_700_000_100, 999_999_999),
            sum: 0xdead_beef,
        };
        assert_eq!(Stamp::decode(stamp.encode().as_bytes()), Some(stamp));
        assert_eq!(Stamp::decode(b"iofit-output v1 kind=iolog"), None);
        assert_eq!(Stamp::decode(b"fio version 3 iolog"), None);
    }
}
