//! Capped input reads: a file the user names as an input must be a regular file (not
//! `/dev/zero`, a FIFO or a directory) no larger than what its format can sensibly be, so a
//! wrong path is a one-line error and never a read that fills memory or hangs.

use crate::error::SafeFsError;
use crate::sys;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Every input this process has read: its device, inode and birth time, and the path it was
/// named by. No output may replace or write into one of them ([`crate::output`] checks here),
/// whichever spelling, hard link or include brought it in.
///
/// The birth time is kept because an inode number is reused once its file is deleted: a file
/// made later (a test's output in a fresh directory, in a process that read and deleted an
/// input earlier) can have the number of a deleted input. Its birth time is later, so it is
/// not taken for that input. A file system that does not keep birth times compares by device
/// and inode alone (refusing more, never less).
static INPUTS: Mutex<Vec<Identity>> = Mutex::new(Vec::new());

#[derive(Clone, Debug)]
struct Identity {
    dev: u64,
    ino: u64,
    born: Option<std::time::SystemTime>,
    path: PathBuf,
}

impl Identity {
    fn of(meta: &std::fs::Metadata, path: &Path) -> Identity {
        Identity {
            dev: meta.dev(),
            ino: meta.ino(),
            born: meta.created().ok(),
            path: path.to_path_buf(),
        }
    }

    /// Whether `meta` is this input's inode: same device and inode, and the same birth time
    /// where both are known.
    fn is(&self, meta: &std::fs::Metadata) -> bool {
        let same_birth = match (self.born, meta.created().ok()) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        };
        self.dev == meta.dev() && self.ino == meta.ino() && same_birth
    }
}

fn inputs() -> std::sync::MutexGuard<'static, Vec<Identity>> {
    INPUTS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Records `file` (opened from `path`) as an input of this run: job files, includes,
/// captures, `read_iolog` logs, verify state being loaded, catalog files. Readers that open
/// an input themselves call this; [`open_input`] and [`read_capped`] do it on their own.
pub fn note_input(file: &std::fs::File, path: &Path) {
    if let Ok(meta) = file.metadata() {
        note_identity(&meta, path);
    }
}

/// Records the file at `path`, if there is one, as an input of this run ([`note_input`]).
pub fn note_input_path(path: &Path) {
    if let Ok(meta) = std::fs::metadata(path) {
        note_identity(&meta, path);
    }
}

fn note_identity(meta: &std::fs::Metadata, path: &Path) {
    let mut known = inputs();
    if !known.iter().any(|k| k.is(meta)) {
        known.push(Identity::of(meta, path));
    }
}

/// The input of this run whose inode `meta` describes, by the path it was read from.
pub fn input_named(meta: &std::fs::Metadata) -> Option<PathBuf> {
    inputs().iter().find(|k| k.is(meta)).map(|k| k.path.clone())
}

/// Size caps per input format, in bytes.
pub mod caps {
    /// fio job files, vdbench parameter files, Iometer specs (a real one is a few KiB).
    pub const JOB_FILE_BYTES: u64 = 16 << 20;
    /// Requirements TOML.
    pub const REQUIREMENTS_BYTES: u64 = 4 << 20;
    /// Catalog TOML files (`--catalog`).
    pub const CATALOG_BYTES: u64 = 16 << 20;
    /// Result JSON (fio or iofit): per-second logs of a long run fit well inside.
    pub const RESULTS_BYTES: u64 = 512 << 20;
    /// Captured iostat / sar / PerfMon / diskstats text: days of one-second samples.
    pub const CAPTURE_BYTES: u64 = 2 << 30;
}

/// Opens `path` for streaming if it is a regular file of at most `cap_bytes` (a streaming
/// parser still needs the cap: a file without line breaks is one endless line). `what` names
/// the input in messages ("job file", "results JSON").
pub fn open_input(path: &Path, cap_bytes: u64, what: &str) -> Result<std::fs::File, SafeFsError> {
    let file = open_checked(path, cap_bytes, what)?;
    note_input(&file, path);
    Ok(file)
}

/// Reads one of iofit's own small state files that it rewrites itself (the bench's warm-up
/// marker) with [`open_input`]'s checks, without recording it as an input: an input is never
/// replaced by an output ([`crate::atomic::write_atomic`] refuses), and this file is meant to be.
pub fn read_own_state(path: &Path, cap_bytes: u64, what: &str) -> Result<String, SafeFsError> {
    let file = open_checked(path, cap_bytes, what)?;
    utf8(path, read_to_cap(file, path, cap_bytes, what)?, what)
}

fn open_checked(path: &Path, cap_bytes: u64, what: &str) -> Result<std::fs::File, SafeFsError> {
    // O_NONBLOCK: opening a FIFO must not wait for a writer.
    let file = sys::open(path, libc::O_RDONLY | libc::O_NONBLOCK, 0).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            SafeFsError::bad(
                path,
                format!("cannot read {what}: no such file; check the path"),
            )
        } else {
            SafeFsError::io("cannot open", path, e)
        }
    })?;
    let st = sys::fstat(&file).map_err(|e| SafeFsError::io("cannot inspect", path, e))?;
    if st.st_mode & libc::S_IFMT != libc::S_IFREG {
        let kind = match st.st_mode & libc::S_IFMT {
            libc::S_IFDIR => "a directory",
            libc::S_IFIFO => "a FIFO",
            libc::S_IFCHR => "a character device",
            libc::S_IFBLK => "a block device",
            _ => "not a regular file",
        };
        return Err(SafeFsError::bad(
            path,
            format!("is {kind}, not a {what}; give the path of a regular file"),
        ));
    }
    sys::clear_nonblock(&file).map_err(|e| SafeFsError::io("cannot read", path, e))?;
    if st.st_size as u64 > cap_bytes {
        return Err(too_big(path, cap_bytes, what));
    }
    Ok(file)
}

fn too_big(path: &Path, cap_bytes: u64, what: &str) -> SafeFsError {
    SafeFsError::bad(
        path,
        format!(
            "is larger than {}, more than a {what} can sensibly be; check the path (or split the input)",
            crate::human_bytes(cap_bytes)
        ),
    )
}

/// Reads the whole of `path` if it is a regular file of at most `cap_bytes`.
pub fn read_capped(path: &Path, cap_bytes: u64, what: &str) -> Result<Vec<u8>, SafeFsError> {
    read_to_cap(open_input(path, cap_bytes, what)?, path, cap_bytes, what)
}

fn read_to_cap(
    file: std::fs::File,
    path: &Path,
    cap_bytes: u64,
    what: &str,
) -> Result<Vec<u8>, SafeFsError> {
    // The file may grow while read: never read past the cap.
    let mut bytes = Vec::new();
    file.take(cap_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| SafeFsError::io("cannot read", path, e))?;
    if bytes.len() as u64 > cap_bytes {
        return Err(too_big(path, cap_bytes, what));
    }
    Ok(bytes)
}

/// [`read_capped`] for text formats: the bytes must be UTF-8.
pub fn read_capped_string(path: &Path, cap_bytes: u64, what: &str) -> Result<String, SafeFsError> {
    utf8(path, read_capped(path, cap_bytes, what)?, what)
}

fn utf8(path: &Path, bytes: Vec<u8>, what: &str) -> Result<String, SafeFsError> {
    String::from_utf8(bytes).map_err(|e| {
        SafeFsError::bad(
            path,
            format!(
                "is not UTF-8 text (bad byte at offset {}); is this really a {what}?",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}
