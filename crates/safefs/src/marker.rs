//! Ownership markers: how iofit recognises the exact file it created.
//!
//! A marker holds a random 128-bit id, the file's device and inode, and its birth time where
//! the filesystem records one (the inode and birth time are compared; see
//! [`Identity::same_inode`]). It lives in the extended attribute `user.iofit`, which exists
//! only as long as that very inode does. Where user xattrs do not work, the marker goes to a
//! sidecar `.NAME.iofit` (created with `O_EXCL|O_NOFOLLOW`, read with `O_NOFOLLOW`), and the
//! id is ALSO written into a trailer block at the end of the file: a user's file that later
//! reuses the inode number (or a forged sidecar) has no such trailer, so it is not trusted.
//! Every check is made on an open descriptor, never on a name.

use crate::error::SafeFsError;
use crate::sys;
use std::fs::File;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// The extended attribute holding the marker.
pub const XATTR_NAME: &str = "user.iofit";
/// Bytes of the trailer block a sidecar-marked file carries after its data.
pub const TRAILER_BYTES: u64 = 4096;
const MAGIC: &str = "iofit-owner v1";
/// A sidecar or trailer larger than this is not ours.
const MAX_MARKER_BYTES: usize = 512;

/// What identifies one inode for as long as it exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Identity {
    pub dev: u64,
    pub ino: u64,
    /// Birth time (s, ns) where the filesystem gives it (statx).
    pub btime: Option<(i64, u32)>,
}

impl Identity {
    /// The same inode as recorded: inode number and birth time (where both were recorded).
    /// The device number is recorded but not compared: device-mapper and md volumes (striped
    /// Azure disks) can get another number after a reboot, and an xattr or trailer cannot move
    /// to another file system without a copy, which gets a new inode and birth time.
    pub fn same_inode(&self, other: &Identity) -> bool {
        self.ino == other.ino
            && match (self.btime, other.btime) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            }
    }

    pub fn of(file: &File) -> io::Result<Identity> {
        let st = sys::fstat(file)?;
        Ok(Identity {
            dev: st.st_dev,
            ino: st.st_ino,
            btime: sys::birth_time(file),
        })
    }
}

/// Where a file's marker lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkKind {
    /// In the `user.iofit` extended attribute; the file's bytes are all data.
    Xattr,
    /// In a sidecar plus a trailer of [`TRAILER_BYTES`] at the end of the file.
    Sidecar,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Marker {
    id: u128,
    identity: Identity,
}

impl Marker {
    fn encode(&self) -> String {
        let btime = match self.identity.btime {
            Some((s, ns)) => format!("{s}.{ns:09}"),
            None => "-".to_string(),
        };
        format!(
            "{MAGIC} id={:032x} dev={} ino={} btime={btime}\n",
            self.id, self.identity.dev, self.identity.ino
        )
    }

    fn decode(bytes: &[u8]) -> Option<Marker> {
        let text = std::str::from_utf8(bytes).ok()?;
        let line = text.trim_end_matches('\0').trim();
        let rest = line.strip_prefix(MAGIC)?;
        let (mut id, mut dev, mut ino, mut btime) = (None, None, None, None);
        for field in rest.split_whitespace() {
            let (key, value) = field.split_once('=')?;
            match key {
                "id" => id = u128::from_str_radix(value, 16).ok(),
                "dev" => dev = value.parse().ok(),
                "ino" => ino = value.parse().ok(),
                "btime" if value == "-" => btime = Some(None),
                "btime" => {
                    let (s, ns) = value.split_once('.')?;
                    btime = Some(Some((s.parse().ok()?, ns.parse().ok()?)));
                }
                _ => return None,
            }
        }
        Some(Marker {
            id: id?,
            identity: Identity {
                dev: dev?,
                ino: ino?,
                btime: btime?,
            },
        })
    }
}

fn sidecar_name(path: &Path) -> io::Result<(std::path::PathBuf, std::ffi::OsString)> {
    let (dir, name) = sys::split(path)?;
    let mut sidecar = std::ffi::OsString::from(".");
    sidecar.push(name);
    sidecar.push(".iofit");
    Ok((dir, sidecar))
}

/// The sidecar path of `path` (for messages and tests).
pub fn sidecar_path(path: &Path) -> std::path::PathBuf {
    match sidecar_name(path) {
        Ok((dir, name)) => dir.join(name),
        Err(_) => path.to_path_buf(),
    }
}

/// Marks `file`, which iofit has just created at `path` with `O_EXCL`, as iofit's own.
/// With [`MarkKind::Sidecar`] the caller must keep the trailer as the file's last block: it is
/// written here at offset `data_bytes`, so the file is `data_bytes + TRAILER_BYTES` long.
pub fn mark_new_file(file: &File, path: &Path, data_bytes: u64) -> Result<MarkKind, SafeFsError> {
    let identity = Identity::of(file).map_err(|e| SafeFsError::io("cannot inspect", path, e))?;
    let id = sys::random_u128().map_err(|e| SafeFsError::io("no random id for", path, e))?;
    let marker = Marker { id, identity };
    let text = marker.encode();
    match sys::fsetxattr(file, XATTR_NAME, text.as_bytes()) {
        Ok(()) => return Ok(MarkKind::Xattr),
        Err(e) if !xattr_unsupported(&e) => {
            return Err(SafeFsError::io("cannot mark as iofit's", path, e))
        }
        Err(_) => {}
    }
    write_trailer(file, path, data_bytes, &text)?;
    write_sidecar(path, &text)?;
    Ok(MarkKind::Sidecar)
}

fn xattr_unsupported(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::ENOTSUP) | Some(libc::EPERM) | Some(libc::EACCES) | Some(libc::ENOSYS)
    )
}

/// Writes the trailer block (marker text, zero padded) at `data_bytes`.
pub(crate) fn write_trailer(
    file: &File,
    path: &Path,
    data_bytes: u64,
    text: &str,
) -> Result<(), SafeFsError> {
    let mut block = vec![0u8; TRAILER_BYTES as usize];
    block[..text.len()].copy_from_slice(text.as_bytes());
    file.write_all_at(&block, data_bytes)
        .map_err(|e| SafeFsError::io("cannot write the iofit marker into", path, e))
}

/// Moves the trailer of a sidecar-marked file of ours to a new end (after extending it).
pub fn move_trailer(file: &File, path: &Path, new_data_bytes: u64) -> Result<(), SafeFsError> {
    let Some(marker) = read_trailer(file) else {
        return Err(SafeFsError::refused(
            path,
            "its iofit marker is gone; delete the file yourself or pass --allow-overwrite",
        ));
    };
    write_trailer(file, path, new_data_bytes, &marker.encode())
}

fn write_sidecar(path: &Path, text: &str) -> Result<(), SafeFsError> {
    let (dir, name) = sidecar_name(path).map_err(|e| SafeFsError::io("bad path", path, e))?;
    let dirfd =
        sys::open_dir(&dir).map_err(|e| SafeFsError::io("cannot open directory", &dir, e))?;
    // The data file was just created with O_EXCL, so anything under the sidecar name is stale
    // or planted. unlinkat removes a name (a symbolic link itself, never what it points to).
    match sys::unlinkat(&dirfd, &name) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(SafeFsError::io(
                "cannot replace the stale marker",
                dir.join(&name),
                e,
            ))
        }
    }
    let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW;
    let sidecar = sys::openat(&dirfd, &name, flags, 0o644)
        .map_err(|e| SafeFsError::io("cannot create the iofit marker", dir.join(&name), e))?;
    sidecar
        .write_all_at(text.as_bytes(), 0)
        .and_then(|_| sidecar.sync_all())
        .map_err(|e| SafeFsError::io("cannot write the iofit marker", dir.join(&name), e))
}

fn read_trailer(file: &File) -> Option<Marker> {
    let len = sys::fstat(file).ok()?.st_size as u64;
    if len < TRAILER_BYTES {
        return None;
    }
    let mut block = [0u8; MAX_MARKER_BYTES];
    let n = file.read_at(&mut block, len - TRAILER_BYTES).ok()?;
    Marker::decode(&block[..n])
}

fn read_sidecar(path: &Path) -> Option<Marker> {
    let (dir, name) = sidecar_name(path).ok()?;
    let dirfd = sys::open_dir(&dir).ok()?;
    // O_NOFOLLOW: a sidecar that is a symbolic link is not ours. O_NONBLOCK: a FIFO cannot hang.
    let flags = libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK;
    let sidecar = sys::openat(&dirfd, &name, flags, 0).ok()?;
    let st = sys::fstat(&sidecar).ok()?;
    if st.st_mode & libc::S_IFMT != libc::S_IFREG || st.st_size as usize > MAX_MARKER_BYTES {
        return None;
    }
    let mut buf = [0u8; MAX_MARKER_BYTES];
    let n = sidecar.read_at(&mut buf, 0).ok()?;
    Marker::decode(&buf[..n])
}

/// The extended attribute sealing an xattr-marked file's content as iofit last left it.
pub const SEAL_XATTR: &str = "user.iofit.seal";

/// Records the file's size and modification time as iofit leaves it (after a layout or a
/// run that wrote it). Until the next [`unseal`], a file whose size or time differs was
/// written by someone else: `cp user.txt data.bin` keeps the inode and its marker xattr, but
/// not the size and time iofit sealed, so the file is no longer iofit's.
pub fn seal(file: &File) -> io::Result<()> {
    let st = sys::fstat(file)?;
    let text = format!(
        "iofit-seal v1 size={} mtime={}.{:09}",
        st.st_size, st.st_mtime, st.st_mtime_nsec
    );
    sys::fsetxattr(file, SEAL_XATTR, text.as_bytes())
}

/// Lifts the seal before iofit writes the file (a run killed before it seals again leaves the
/// file marked, and so still iofit's).
pub fn unseal(file: &File) {
    let _ = sys::fremovexattr(file, SEAL_XATTR);
}

/// True when the file has no seal, or its size and time are still the sealed ones.
fn seal_holds(file: &File) -> bool {
    let mut buf = [0u8; 128];
    let Ok(n) = sys::fgetxattr(file, SEAL_XATTR, &mut buf) else {
        return true;
    };
    let Ok(st) = sys::fstat(file) else {
        return false;
    };
    let want = format!(
        "iofit-seal v1 size={} mtime={}.{:09}",
        st.st_size, st.st_mtime, st.st_mtime_nsec
    );
    &buf[..n] == want.as_bytes()
}

/// How `file` (opened from `path`) is marked as iofit's, or `None` when it is not ours.
/// Checks the open descriptor: its xattr (and the seal of its content, [`seal`]), or a
/// sidecar matching its device, inode, birth time and the trailer id inside the file itself.
pub fn ownership(file: &File, path: &Path) -> Option<MarkKind> {
    let identity = Identity::of(file).ok()?;
    let mut buf = [0u8; MAX_MARKER_BYTES];
    if let Ok(n) = sys::fgetxattr(file, XATTR_NAME, &mut buf) {
        // An xattr belongs to its inode, but a copy (cp -a, rsync -X) carries it along: the
        // identity inside must be this file's. A copy INTO the file keeps inode and xattr:
        // the seal of the content iofit left tells it apart.
        return Marker::decode(&buf[..n])
            .filter(|m| m.identity.same_inode(&identity))
            .filter(|_| seal_holds(file))
            .map(|_| MarkKind::Xattr);
    }
    let sidecar = read_sidecar(path)?;
    let trailer = read_trailer(file)?;
    (sidecar.identity.same_inode(&identity) && sidecar.id == trailer.id)
        .then_some(MarkKind::Sidecar)
}

/// Removes the sidecar of `path`, if any (after iofit removed a file it created).
pub fn remove_sidecar(path: &Path) {
    if let Ok((dir, name)) = sidecar_name(path) {
        if let Ok(dirfd) = sys::open_dir(&dir) {
            let _ = sys::unlinkat(&dirfd, &name);
        }
    }
}

/// True when the name is one of iofit's sidecars (so listings can skip them).
pub fn is_sidecar_name(name: &std::ffi::OsStr) -> bool {
    let b = name.as_bytes();
    b.starts_with(b".") && b.ends_with(b".iofit")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marker_round_trips_and_junk_does_not_parse() {
        let m = Marker {
            id: 0x0123_4567_89ab_cdef_0011_2233_4455_6677,
            identity: Identity {
                dev: 2049,
                ino: 77,
                btime: Some((1_700_000_000, 5)),
            },
        };
        assert_eq!(Marker::decode(m.encode().as_bytes()), Some(m));
        let none = Marker {
            identity: Identity {
                btime: None,
                ..m.identity
            },
            ..m
        };
        assert_eq!(Marker::decode(none.encode().as_bytes()), Some(none));
        assert_eq!(Marker::decode(b"created-by-iofit"), None);
        assert_eq!(
            Marker::decode(b"iofit-owner v1 id=zz dev=1 ino=2 btime=-"),
            None
        );
    }

    use proptest::prelude::*;

    proptest! {
        // A sidecar or trailer is attacker-controlled bytes: decoding never panics, and what
        // does parse encodes back to the same marker.
        #[test]
        fn decoding_arbitrary_bytes_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
            if let Some(m) = Marker::decode(&bytes) {
                prop_assert_eq!(Marker::decode(m.encode().as_bytes()), Some(m));
            }
        }

        #[test]
        fn every_marker_round_trips(
            id in any::<u128>(),
            dev in any::<u64>(),
            ino in any::<u64>(),
            s in any::<i64>(),
            ns in 0u32..1_000_000_000,
        ) {
            let m = Marker { id, identity: Identity { dev, ino, btime: Some((s, ns)) } };
            prop_assert_eq!(Marker::decode(m.encode().as_bytes()), Some(m));
        }
    }
}
