//! What a worker may touch and how it answers: its own limits (from its command line, never
//! from the controller), the check that a path is inside its allowed directories, and the
//! shared output every message goes out on. Used by the worker and by its file system runs.

use crate::protocol::{encode, FromWorker};
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

pub(crate) type SharedOut = Arc<Mutex<Box<dyn Write + Send>>>;

/// What this worker may do, from its own command line (`iofit worker --allow-dir DIR
/// --allow-overwrite`), never from the controller: with an ssh forced command
/// (`command="iofit worker --protocol N --allow-dir /mnt/test"` in `authorized_keys`) the
/// key's holder cannot make the worker touch anything else.
#[derive(Clone, Debug, Default)]
pub struct WorkerLimits {
    /// Directories every file the jobs read or write must be in (empty: no limit).
    pub allowed_dirs: Vec<PathBuf>,
    /// Whether a controller may ask to overwrite devices and files iofit did not create.
    pub allow_overwrite: bool,
}

/// `path` made absolute (against the working directory), without `.`; `None` with `..`.
fn absolute(path: &Path) -> Option<PathBuf> {
    let base = if path.is_absolute() {
        PathBuf::new()
    } else {
        std::env::current_dir().ok()?
    };
    let mut out = base;
    for component in path.components() {
        match component {
            Component::ParentDir => return None,
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

/// `path` with its longest existing ancestor's links resolved (the rest does not exist yet).
fn resolved(path: &Path) -> Option<PathBuf> {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            return Some(rest.iter().rev().fold(real, |p, name| p.join(name)));
        }
        rest.push(existing.file_name()?.to_os_string());
        existing = existing.parent()?.to_path_buf();
    }
}

pub(crate) fn inside(path: &Path, dirs: &[PathBuf]) -> bool {
    let Some(path) = absolute(path).and_then(|p| resolved(&p)) else {
        return false;
    };
    dirs.iter()
        .filter_map(|d| d.canonicalize().ok())
        .any(|dir| path.starts_with(dir))
}

pub(crate) fn send(out: &SharedOut, message: &FromWorker) -> std::io::Result<()> {
    let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
    writeln!(out, "{}", encode(message))?;
    out.flush()
}
