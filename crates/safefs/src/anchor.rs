//! Anchors: the directories file system workloads (vdbench `fsd=`) build their trees in.
//! iofit creates an anchor (or takes an empty one) and puts a marked file, [`ANCHOR_MARK`], in
//! it; only an anchor holding that mark (the exact file iofit created, see [`crate::marker`])
//! is iofit's to fill, format and clear. An existing non-empty directory without it may hold a
//! user's data and is refused unless `--allow-overwrite`.

use crate::error::SafeFsError;
use crate::{marker, target};
use std::path::{Path, PathBuf};

/// The marked file inside every anchor iofit owns.
pub const ANCHOR_MARK: &str = ".iofit-anchor";

/// How iofit came to hold an anchor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnchorClaim {
    /// iofit created the directory now.
    Created,
    /// The directory existed empty; iofit marked it.
    AdoptedEmpty,
    /// The directory holds iofit's mark from an earlier run.
    Owned,
    /// Not iofit's, used because `--allow-overwrite` was given.
    Overwrite,
}

fn mark_path(anchor: &Path) -> PathBuf {
    anchor.join(ANCHOR_MARK)
}

/// Bytes at the start of the mark file holding the anchor directory's identity.
const RECORD_BYTES: u64 = 256;
const RECORD_MAGIC: &str = "iofit-anchor v1";

/// The identity of the anchor directory itself (opened without following a link).
fn dir_identity(anchor: &Path) -> Option<marker::Identity> {
    let dir = crate::sys::open(
        anchor,
        libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW,
        0,
    )
    .ok()?;
    marker::Identity::of(&dir).ok()
}

fn record_text(dir: &marker::Identity) -> String {
    let btime = match dir.btime {
        Some((s, ns)) => format!("{s}.{ns:09}"),
        None => "-".to_string(),
    };
    format!("{RECORD_MAGIC} dir-ino={} dir-btime={btime}\n", dir.ino)
}

/// True when `anchor` holds iofit's mark (the exact file iofit created there) AND the mark's
/// content names this very directory: a hard-link copy of an anchor (`cp -al`) shares the
/// marked file, but the directory it names is the original, so the copy is foreign.
pub fn is_owned(anchor: &Path) -> bool {
    use std::os::unix::fs::FileExt;
    let path = mark_path(anchor);
    let flags = libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK;
    let Ok(file) = crate::sys::open(&path, flags, 0) else {
        return false;
    };
    if marker::ownership(&file, &path).is_none() {
        return false;
    }
    let Some(dir) = dir_identity(anchor) else {
        return false;
    };
    let want = record_text(&dir);
    let mut buf = vec![0u8; want.len()];
    matches!(file.read_at(&mut buf, 0), Ok(n) if n == want.len()) && buf == want.as_bytes()
}

/// Names in `anchor` other than iofit's mark and its sidecar.
fn foreign_entries(anchor: &Path) -> Result<usize, SafeFsError> {
    let sidecar = marker::sidecar_path(&mark_path(anchor));
    let sidecar_name = sidecar.file_name().map(|n| n.to_os_string());
    let entries = std::fs::read_dir(anchor)
        .map_err(|e| SafeFsError::io("cannot read directory", anchor, e))?;
    let mut count = 0;
    for entry in entries {
        let entry = entry.map_err(|e| SafeFsError::io("cannot read directory", anchor, e))?;
        let name = entry.file_name();
        if name != ANCHOR_MARK && Some(&name) != sidecar_name.as_ref() {
            count += 1;
        }
    }
    Ok(count)
}

/// Creates or takes `anchor` for iofit. Its parent must exist (as vdbench's default,
/// `create_anchors=no`, would have it). Refuses a non-directory, and a non-empty directory
/// iofit did not mark unless `allow_overwrite`.
pub fn claim(anchor: &Path, allow_overwrite: bool) -> Result<AnchorClaim, SafeFsError> {
    match std::fs::symlink_metadata(anchor) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let parent = anchor.parent().filter(|p| !p.as_os_str().is_empty());
            if let Some(parent) = parent {
                if !parent.is_dir() {
                    return Err(SafeFsError::bad(
                        anchor,
                        format!(
                            "the anchor's parent {} does not exist; create it (mount the share there) or point anchor= elsewhere",
                            parent.display()
                        ),
                    ));
                }
            }
            std::fs::create_dir(anchor)
                .map_err(|e| SafeFsError::io("cannot create anchor", anchor, e))?;
            mark(anchor)?;
            Ok(AnchorClaim::Created)
        }
        Err(e) => Err(SafeFsError::io("cannot inspect anchor", anchor, e)),
        Ok(meta) if !meta.is_dir() => Err(SafeFsError::bad(
            anchor,
            "the anchor is not a directory (a symbolic link or a file); point anchor= at a directory",
        )),
        Ok(_) if is_owned(anchor) => Ok(AnchorClaim::Owned),
        Ok(_) => {
            if foreign_entries(anchor)? == 0 {
                mark(anchor)?;
                return Ok(AnchorClaim::AdoptedEmpty);
            }
            if allow_overwrite {
                return Ok(AnchorClaim::Overwrite);
            }
            Err(SafeFsError::refused(
                anchor,
                "the anchor directory is not empty and iofit did not create it, so its files may be a user's data that format= and delete operations would destroy. Point anchor= at a new or empty directory, or pass --allow-overwrite",
            ))
        }
    }
}

/// Creates the mark: a file iofit marks as its own whose content names the anchor directory
/// (inode and birth time), so only this directory is proven iofit's by it.
fn mark(anchor: &Path) -> Result<(), SafeFsError> {
    use std::os::unix::fs::FileExt;
    let path = mark_path(anchor);
    let dir = dir_identity(anchor).ok_or_else(|| {
        SafeFsError::bad(
            anchor,
            "the anchor is not a directory iofit can open; point anchor= at a directory",
        )
    })?;
    let (_target, file) = target::create(&path, RECORD_BYTES)?;
    file.write_all_at(record_text(&dir).as_bytes(), 0)
        .map_err(|e| SafeFsError::io("cannot write the anchor mark", &path, e))
}

/// Removes everything in a claimed anchor but iofit's mark (vdbench `format=yes`/`clean`).
/// Entries are removed without following symbolic links.
pub fn clear(anchor: &Path, claim: AnchorClaim) -> Result<u64, SafeFsError> {
    if claim != AnchorClaim::Overwrite && !is_owned(anchor) {
        return Err(SafeFsError::refused(
            anchor,
            "iofit's mark is gone from the anchor; iofit clears only anchors it owns",
        ));
    }
    let sidecar = marker::sidecar_path(&mark_path(anchor));
    let mut removed = 0;
    let entries = std::fs::read_dir(anchor)
        .map_err(|e| SafeFsError::io("cannot read directory", anchor, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| SafeFsError::io("cannot read directory", anchor, e))?;
        let path = entry.path();
        if entry.file_name() == ANCHOR_MARK || path == sidecar {
            continue;
        }
        let kind = entry
            .file_type()
            .map_err(|e| SafeFsError::io("cannot inspect", &path, e))?;
        let result = if kind.is_dir() {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
        result.map_err(|e| SafeFsError::io("cannot remove", &path, e))?;
        removed += 1;
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_adopts_owns_and_refuses() {
        let dir = tempfile::tempdir().unwrap();
        let fresh = dir.path().join("anchor");
        assert_eq!(claim(&fresh, false).unwrap(), AnchorClaim::Created);
        assert!(is_owned(&fresh));
        std::fs::write(fresh.join("f"), b"x").unwrap();
        assert_eq!(claim(&fresh, false).unwrap(), AnchorClaim::Owned);
        assert_eq!(clear(&fresh, AnchorClaim::Owned).unwrap(), 1);
        assert!(!fresh.join("f").exists() && is_owned(&fresh));

        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        assert_eq!(claim(&empty, false).unwrap(), AnchorClaim::AdoptedEmpty);

        let users = dir.path().join("users");
        std::fs::create_dir(&users).unwrap();
        std::fs::write(users.join("thesis.tex"), b"precious").unwrap();
        let error = claim(&users, false).unwrap_err();
        assert!(error.is_bad_input(), "{error}");
        assert!(error.to_string().contains("--allow-overwrite"), "{error}");
        assert!(users.join("thesis.tex").exists());
        assert_eq!(claim(&users, true).unwrap(), AnchorClaim::Overwrite);

        // A copied mark (not the file iofit created there) is not trusted.
        let copy = dir.path().join("copy");
        std::fs::create_dir(&copy).unwrap();
        std::fs::copy(fresh.join(ANCHOR_MARK), copy.join(ANCHOR_MARK)).unwrap();
        std::fs::write(copy.join("data"), b"x").unwrap();
        assert!(!is_owned(&copy));
        assert!(claim(&copy, false).is_err());

        let missing_parent = dir.path().join("no/such/anchor");
        assert!(claim(&missing_parent, false).unwrap_err().is_bad_input());
    }
}
