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
//! let limits = iofit_emulate::limits::from_design(&vm, &volumes, 1.0).unwrap();
//! let options = session::EmulateOptions {
//!     limits,
//!     sources: vec![VolumeSource::Scratch],
//!     scratch: ScratchOptions { image_dir: "/var/tmp".into(), mount_root: "/mnt/rehearsal".into(), size_bytes: iofit_model::Bytes(1 << 30) },
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

pub mod aws;
pub mod backlog;
pub mod bucket;
pub mod controller;
pub mod divide;
pub mod gcp;
pub mod journal;
pub mod limits;
pub mod session;
pub mod throttle;
pub mod volume;

pub use limits::{DesignLimits, SharedGroup, VmLimits, VolumeLimits};
pub use volume::{ScratchOptions, VolumeSource};

use iofit_catalog::{Catalog, VmSize};
use iofit_model::VolumeDesign;
use iofit_predict::disk_spec::{resolve_volume, Bought};
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
    #[error(transparent)]
    Tool(#[from] journal::ToolError),
}

/// The VM and the volumes of a design named on the command line: `--disk` specs are
/// `[LABEL=]COUNTxSKU[:CACHING]` (labels default to vol1, vol2, ...). A provisioned type
/// (Premium SSD v2, Ultra) adds what is bought per disk:
/// `data=2xPremiumV2,size_gib=512,iops=6000,mb_s=250` ([`iofit_predict::disk_spec`], the
/// reader `predict` uses too).
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
    let mut volumes: Vec<(VolumeDesign, DiskPerf)> = Vec::new();
    for (index, spec) in disk_specs.iter().enumerate() {
        let (design, disk) = resolve_volume(catalog, edition, spec, index, Bought::default())
            .map_err(|e| EmulateError::Input(e.to_string()))?;
        if volumes.iter().any(|(v, _)| v.label == design.label) {
            return Err(EmulateError::Input(format!(
                "--disk '{spec}': label '{}' is used twice; give each volume its own label",
                design.label
            )));
        }
        volumes.push((design, disk));
    }
    Ok((vm, volumes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalog() -> Catalog {
        Catalog::embedded().unwrap()
    }

    #[test]
    fn a_provisioned_volume_takes_the_figures_bought_per_disk() {
        let specs = vec!["data=2xPremiumV2,size_gib=512,iops=6000,mb_s=250".to_string()];
        let (_, volumes) = resolve(&catalog(), "current", "Standard_D8s_v5", &specs).unwrap();
        let (design, disk) = &volumes[0];
        assert_eq!(
            (
                design.label.as_str(),
                design.disk_count,
                design.disk_sku.as_str()
            ),
            ("data", 2, "PremiumV2")
        );
        assert_eq!(
            (disk.iops.get(), disk.throughput_mb_s.get()),
            (6000.0, 250.0)
        );
        assert_eq!(
            design.provisioned_size_gib,
            Some(iofit_model::units::GiB(512.0))
        );
        let (_, volumes) = resolve(
            &catalog(),
            "current",
            "Standard_D8s_v5",
            &["u=1xUltra:none,mb_s=400,iops=20000,size_gib=1024".to_string()],
        )
        .unwrap();
        assert_eq!(volumes[0].1.iops.get(), 20000.0);
    }

    #[test]
    fn provisioned_specs_that_break_the_rules_are_refused_with_the_fix() {
        let refused = |spec: &str| match resolve(
            &catalog(),
            "current",
            "Standard_D8s_v5",
            &[spec.to_string()],
        ) {
            Err(EmulateError::Input(text)) => text,
            other => panic!("{spec}: {other:?}"),
        };
        assert!(refused("d=1xPremiumV2").contains("size_gib=N,iops=N,mb_s=N"));
        assert!(refused("d=1xPremiumV2,size_gib=10,iops=80000,mb_s=100").contains("IOPS"));
        assert!(refused("d=1xPremiumV2,size_gib=10,iops=3000").contains("each needed"));
        assert!(refused("d=1xPremiumV2,size_gib=10,iops=3000,mb_s=1,iops=4").contains("twice"));
        assert!(refused("d=1xPremiumV2,size=10").contains("unknown key 'size'"));
        assert!(refused("d=1xPremiumV2,size_gib=-1,iops=3000,mb_s=125").contains("positive"));
        assert!(
            refused("d=1xPremiumV2:readonly,size_gib=64,iops=3000,mb_s=125")
                .contains("no host caching")
        );
        assert!(refused("d=1xP30,size_gib=64,iops=3000,mb_s=125").contains("fixed limits"));
    }
}
