//! Atomic output files: the bytes go to a temporary file with a random name, created with
//! `O_CREAT|O_EXCL|O_NOFOLLOW` in the output's own directory (so a planted symbolic link or a
//! file of that name is never written through), are synced, and then renamed over the output.
//! A reader sees the old file or the whole new one; an interrupted writer leaves nothing.
//!
//! An output that is a character device or a FIFO (`/dev/null`, `/dev/stdout`, a pipe) is a
//! stream, not a file to replace: it is opened and written as it is (renaming over `/dev/null`
//! would replace the device node with a regular file). A block device is refused.

use crate::error::SafeFsError;
use std::io::Write;
use std::path::Path;

pub use crate::atomic_file::{output_dir, remove_unfinished, stop_syncing, AtomicFile};

/// Writes `bytes` to `path` atomically, stamped as an iofit result file
/// ([`crate::output::OutputKind::Report`]) so that a later run may replace it. The caller
/// checked the name first ([`crate::guard::check_output`]); this never writes through it.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), SafeFsError> {
    write_stamped(path, bytes, true)
}

/// [`write_atomic`] without the syncs ([`AtomicFile::commit_unsynced`]).
pub fn write_atomic_unsynced(path: &Path, bytes: &[u8]) -> Result<(), SafeFsError> {
    write_stamped(path, bytes, false)
}

fn write_stamped(path: &Path, bytes: &[u8], synced: bool) -> Result<(), SafeFsError> {
    use crate::output::{stamp_file, stamp_sidecar, OutputKind};
    // Whatever the caller allowed (--allow-overwrite), a file this run reads is never replaced
    // by what it writes: `-o` naming the input, by any name or hard link.
    if let Some(input) = std::fs::metadata(path)
        .ok()
        .and_then(|meta| crate::input::input_named(&meta))
    {
        return Err(SafeFsError::refused(
            path,
            format!(
                "it is {}, which this run reads; the output would replace it. Write it to another file name",
                input.display()
            ),
        ));
    }
    let mut file = AtomicFile::create(path)?;
    file.write_all(bytes)
        .map_err(|e| SafeFsError::io("cannot write", path, e))?;
    let stream = file.is_stream();
    let stamped = stream || stamp_file(file.file(), OutputKind::Report);
    file.publish(synced)?;
    if !stamped {
        stamp_sidecar(path, OutputKind::Report);
    }
    Ok(())
}
