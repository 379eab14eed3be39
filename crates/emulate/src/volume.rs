//! The volumes that stand in for a design's disks: block devices the user names, or scratch
//! volumes iofit makes itself (a sparse image file, a loop device on it, an ext4 file system
//! mounted where the user asked), each recorded in the journal before it is made.

use crate::journal::{is_mounted, loop_backing, run_tool, Journal, Made};
use crate::throttle::device_number_of;
use crate::EmulateError;
use iofit_model::units::Bytes;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Where one volume of the design comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum VolumeSource {
    /// An existing block device; used as it is, never formatted.
    Mapped(PathBuf),
    /// A loop device on an image iofit creates, formatted ext4 and mounted.
    Scratch,
}

/// Where scratch volumes are made.
#[derive(Clone, Debug)]
pub struct ScratchOptions {
    /// Directory for the image files (sparse; they take what the command writes).
    pub image_dir: PathBuf,
    /// Each scratch volume is mounted at `mount_root/LABEL`.
    pub mount_root: PathBuf,
    pub size_bytes: Bytes,
}

pub use iofit_model::emulation::PreparedVolume;

pub fn prepare(
    label: &str,
    source: &VolumeSource,
    scratch: &ScratchOptions,
    journal: &mut Journal,
) -> Result<PreparedVolume, EmulateError> {
    match source {
        VolumeSource::Mapped(device_path) => {
            let device = device_number_of(device_path)?;
            Ok(PreparedVolume {
                label: label.into(),
                device_path: device_path.clone(),
                device,
                path: device_path.clone(),
                scratch: false,
            })
        }
        VolumeSource::Scratch => prepare_scratch(label, scratch, journal),
    }
}

fn prepare_scratch(
    label: &str,
    options: &ScratchOptions,
    journal: &mut Journal,
) -> Result<PreparedVolume, EmulateError> {
    let image = options
        .image_dir
        .join(format!("iofit-emulate-{}-{label}.img", std::process::id()));
    journal.record(Made::Image {
        path: image.clone(),
    })?;
    // create_new: never reuse or truncate a file that is already there.
    let file = iofit_safefs::scratch::create_sized_file(&image, options.size_bytes.as_u64())
        .map_err(|e| EmulateError::Io {
            what: format!("creating scratch image {}", image.display()),
            source: e,
        })?;
    drop(file);
    let device_text = tool(
        "losetup",
        &[
            "--find".as_ref(),
            "--show".as_ref(),
            "--direct-io=on".as_ref(),
            image.as_os_str(),
        ],
    )?;
    let device_path = PathBuf::from(device_text);
    journal.record(Made::LoopDevice {
        device: device_path.clone(),
    })?;
    // Format only the loop device just made on our own image.
    let backing = loop_backing(&device_path).unwrap_or_default();
    if !backing.ends_with(&*image.to_string_lossy()) {
        return Err(EmulateError::Unsupported(format!(
            "{} is backed by '{backing}', not by the image iofit made; refusing to format it",
            device_path.display()
        )));
    }
    tool(
        "mkfs.ext4",
        &[
            "-q".as_ref(),
            "-F".as_ref(),
            "-E".as_ref(),
            "nodiscard,lazy_itable_init=1,lazy_journal_init=1".as_ref(),
            device_path.as_os_str(),
        ],
    )?;
    let mount_point = make_mount_point(label, options, journal)?;
    journal.record(Made::Mount {
        target: mount_point.clone(),
    })?;
    // noinit_itable: no background zeroing of inode tables (ext4lazyinit) while the command
    // runs: writes nobody submitted from the cgroup would hide its queued ones from the
    // device's view (`Controller::waiting_on_devices`) and use the device besides.
    tool(
        "mount",
        &[
            "-o".as_ref(),
            "noinit_itable".as_ref(),
            device_path.as_os_str(),
            mount_point.as_os_str(),
        ],
    )?;
    Ok(PreparedVolume {
        label: label.into(),
        device: device_number_of(&device_path)?,
        device_path,
        path: mount_point,
        scratch: true,
    })
}

fn make_mount_point(
    label: &str,
    options: &ScratchOptions,
    journal: &mut Journal,
) -> Result<PathBuf, EmulateError> {
    if !options.mount_root.exists() {
        journal.record(Made::Directory {
            path: options.mount_root.clone(),
        })?;
        iofit_safefs::scratch::create_output_dirs(&options.mount_root).map_err(|e| {
            EmulateError::Io {
                what: format!("creating {}", options.mount_root.display()),
                source: e.into_io(),
            }
        })?;
    }
    let mount_point = options.mount_root.join(label);
    if mount_point.exists() || is_mounted(&mount_point) {
        return Err(EmulateError::Input(format!(
            "{} already exists: --mount-root must be a directory without a '{label}' entry \
             (iofit mounts each scratch volume at MOUNT_ROOT/LABEL and never mounts over \
             something that is there)",
            mount_point.display()
        )));
    }
    journal.record(Made::Directory {
        path: mount_point.clone(),
    })?;
    iofit_safefs::scratch::create_dir(&mount_point).map_err(|e| EmulateError::Io {
        what: format!("creating {}", mount_point.display()),
        source: e,
    })?;
    Ok(mount_point)
}

fn tool(name: &str, args: &[&OsStr]) -> Result<String, EmulateError> {
    run_tool(name, args).map_err(EmulateError::Tool)
}

/// Whether `path` lies on a scratch volume mount (used to refuse mapping a device twice).
pub fn same_device(a: &Path, b: &Path) -> bool {
    a.canonicalize().ok() == b.canonicalize().ok()
}
