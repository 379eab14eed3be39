//! Rehearse a planned Azure design on this machine: run any command with its IO to each
//! volume throttled by the kernel's block layer (cgroup v2 `io.max`, or v1 `blkio.throttle.*`)
//! at the design's limits, the VM's shared limits divided between the volumes by demand every
//! tick, credit-based bursting as Azure describes it, and a per-second record of the consumed
//! share of every limit, as Azure Monitor's consumed-percentage metrics show it.
//!
//! ```no_run
//! use iofit_emulate::{resolve, session, DesignLimits, ScratchOptions, VolumeSource};
//! use std::sync::atomic::AtomicBool;
//! let catalog = iofit_catalog::Catalog::embedded().unwrap();
//! let (vm, volumes) = resolve(&catalog, "current", "Standard_D4s_v5", &["data=1xP10".into()]).unwrap();
//! let limits = DesignLimits::from_design(&vm, &volumes, 1.0).unwrap();
//! let options = session::EmulateOptions {
//!     limits,
//!     sources: vec![VolumeSource::Scratch],
//!     scratch: ScratchOptions { image_dir: "/var/tmp".into(), mount_root: "/mnt/rehearsal".into(), size_bytes: 1 << 30 },
//!     command: vec!["fio".into(), "--name=a".into(), "--directory={data}".into(), "--size=64m".into()],
//!     tick: std::time::Duration::from_millis(100),
//!     time_scale: 1.0,
//!     start_credits: 1.0,
//!     state_dir: iofit_emulate::journal::STATE_DIR.into(),
//! };
//! struct Quiet;
//! impl session::Observer for Quiet {}
//! let outcome = session::run(&options, &mut Quiet, &AtomicBool::new(false)).unwrap();
//! println!("binding: {:?}", outcome.binding);
//! ```

pub mod bucket;
pub mod controller;
pub mod divide;
pub mod journal;
pub mod limits;
pub mod session;
pub mod throttle;
pub mod volume;

pub use limits::{DesignLimits, VmLimits, VolumeLimits};
pub use volume::{ScratchOptions, VolumeSource};

use iofit_catalog::{Catalog, VmSize};
use iofit_model::VolumeDesign;
use iofit_predict::DiskPerf;

#[derive(Debug, thiserror::Error)]
pub enum EmulateError {
    /// The user's input is wrong (exit 2).
    #[error("{0}")]
    Input(String),
    /// This machine lacks what emulation needs (root, a throttling controller).
    #[error("{0}")]
    Unsupported(String),
    #[error("{what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
    /// A system tool (losetup, mkfs.ext4, mount) failed; its own message.
    #[error("{0}")]
    Tool(String),
}

/// The VM and the volumes of a design named on the command line: `--disk` specs are
/// `[LABEL=]COUNTxSKU[:CACHING]` (labels default to vol1, vol2, ...).
pub fn resolve(
    catalog: &Catalog,
    edition: &str,
    vm_name: &str,
    disk_specs: &[String],
) -> Result<(VmSize, Vec<(VolumeDesign, DiskPerf)>), EmulateError> {
    let vm = catalog
        .vm(vm_name, edition)
        .map_err(|e| EmulateError::Input(e.to_string()))?
        .clone();
    let mut volumes = Vec::new();
    for (index, spec) in disk_specs.iter().enumerate() {
        let (label, design_text) = match spec.split_once('=') {
            Some((label, rest)) if valid_label(label) => (label.to_string(), rest),
            Some((label, _)) => {
                return Err(EmulateError::Input(format!(
                    "--disk '{spec}': label '{label}' must be letters, digits, '-' or '_'"
                )))
            }
            None => (format!("vol{}", index + 1), spec.as_str()),
        };
        let mut design: VolumeDesign = design_text
            .parse()
            .map_err(|e| EmulateError::Input(format!("--disk '{spec}': {e}")))?;
        design.label = label;
        if volumes
            .iter()
            .any(|(v, _): &(VolumeDesign, DiskPerf)| v.label == design.label)
        {
            return Err(EmulateError::Input(format!(
                "--disk '{spec}': label '{}' is used twice; give each volume its own label",
                design.label
            )));
        }
        let sku = catalog.disk(&design.disk_sku, edition).map_err(|e| {
            EmulateError::Input(format!(
                "--disk '{spec}': {e} (emulate takes fixed-size SKUs such as P10, P30, E30)"
            ))
        })?;
        design.disk_sku = sku.name.clone();
        volumes.push((design, DiskPerf::from(sku)));
    }
    Ok((vm, volumes))
}

fn valid_label(label: &str) -> bool {
    !label.is_empty()
        && label.len() <= 32
        && label
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}
