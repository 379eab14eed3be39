//! Google Cloud designs under the same throttle: a Compute Engine VM with Persistent Disks as
//! `predict --cloud gcp` models it ([`iofit_predict::gcp`]). A disk type's performance is the
//! VM's, `baseline + rate x the total GiB of that type attached`, up to the VM's limit for its
//! vCPU count, reads and writes limited apart; the disks of one type share it by demand. So
//! each disk type is one [`SharedGroup`] with four caps (read and write IOPS and MB/s), and a
//! volume has no cap of its own. Nothing bursts.

use crate::limits::{DesignLimits, SharedGroup, VmLimits, VolumeLimits};
use crate::EmulateError;
use iofit_catalog::clouds::gcp::{GcpCatalog, GcpMachineType};
use iofit_predict::gcp::{type_budget, GcpDiskSpec};

/// MB per MiB: Google states MiB/s, the throttle counts MB/s (10^6 B/s).
const MB_PER_MIB: f64 = 1.048_576;

/// The limits of `machine` with `disks` (one Persistent Disk each), every figure times `scale`.
pub fn gcp_design_limits(
    catalog: &GcpCatalog,
    machine: &GcpMachineType,
    disks: &[GcpDiskSpec],
    scale: f64,
) -> Result<DesignLimits, EmulateError> {
    if !(scale.is_finite() && scale > 0.0 && scale <= 1e6) {
        return Err(EmulateError::Input(format!(
            "--limit-scale {scale}: must be a number in (0, 1000000]"
        )));
    }
    if disks.is_empty() {
        return Err(EmulateError::Input(
            "a design needs at least one volume (--disk)".into(),
        ));
    }
    for (index, disk) in disks.iter().enumerate() {
        if disks[..index].iter().any(|d| d.label == disk.label) {
            return Err(EmulateError::Input(format!(
                "--disk: label '{}' is used twice; give each volume its own label",
                disk.label
            )));
        }
    }
    let groups = type_groups(catalog, machine, disks, scale)?;
    let mut volumes = Vec::new();
    for (index, disk) in disks.iter().enumerate() {
        let group = groups
            .iter()
            .find(|g| g.volumes.contains(&index))
            .ok_or_else(|| EmulateError::Input(format!("--disk {}: no group", disk.label)))?;
        volumes.push(VolumeLimits {
            label: disk.label.clone(),
            design: format!(
                "1 x {} {} GiB (shares the {} caps of {})",
                disk.disk_type, disk.size_gib, group.name, machine.name
            ),
            // No cap of its own: alone, it may take both directions of its type's caps.
            iops: group.read_iops + group.write_iops,
            throughput_mb_s: group.read_mb_s + group.write_mb_s,
            burst_iops: None,
            burst_throughput_mb_s: None,
            host_cached: false,
        });
    }
    let notes = vec![
        format!(
            "Google Cloud {}: each disk type's caps (baseline + rate x the GiB of that type \
             attached, up to the VM's limit for {} vCPU) are shared by that type's disks by \
             demand, reads and writes apart; nothing bursts",
            machine.name, machine.vcpu
        ),
        "each request counts as one IO against the IOPS caps, whatever its size, as predict \
         --cloud gcp counts it (Google's splitting of large IOs is not sourced)"
            .into(),
    ];
    Ok(DesignLimits {
        vm: VmLimits {
            name: machine.name.clone(),
            uncached_iops: None,
            uncached_throughput_mb_s: None,
            burst_uncached_iops: None,
            burst_uncached_throughput_mb_s: None,
        },
        volumes,
        scale,
        notes,
        groups,
        one_io_per_request: true,
    })
}

/// One group per disk type, in the order the types first appear: the budget of every GiB of
/// the type attached, each direction at the lower of its by-size figure and the VM's.
fn type_groups(
    catalog: &GcpCatalog,
    machine: &GcpMachineType,
    disks: &[GcpDiskSpec],
    scale: f64,
) -> Result<Vec<SharedGroup>, EmulateError> {
    let mut groups: Vec<SharedGroup> = Vec::new();
    for (index, disk) in disks.iter().enumerate() {
        let rules = catalog
            .disk_type(&disk.disk_type)
            .map_err(|e| EmulateError::Input(format!("--disk {}: {e}", disk.label)))?;
        let name = rules.name.clone();
        if let Some(group) = groups.iter_mut().find(|g| g.name == name) {
            group.volumes.push(index);
            continue;
        }
        let members: Vec<usize> = (0..disks.len())
            .filter(|i| disks[*i].disk_type.eq_ignore_ascii_case(&rules.name))
            .collect();
        let total_gib: f64 = members.iter().map(|i| disks[*i].size_gib).sum();
        let budget = type_budget(catalog, machine, rules, total_gib).ok_or_else(|| {
            EmulateError::Input(format!(
                "--disk {}: no sourced {} limit for {} ({} family, {} vCPU); choose another \
                 --vm or disk type",
                disk.label, rules.name, machine.name, machine.family, machine.vcpu
            ))
        })?;
        let vm = &budget.vm;
        groups.push(SharedGroup {
            name,
            volumes: vec![index],
            read_iops: budget.read_iops_by_size.min(vm.read_iops.get()) * scale,
            write_iops: budget.write_iops_by_size.min(vm.write_iops.get()) * scale,
            read_mb_s: budget.mib_s_by_size.min(vm.read_mib_s.get()) * MB_PER_MIB * scale,
            write_mb_s: budget.mib_s_by_size.min(vm.write_mib_s.get()) * MB_PER_MIB * scale,
        });
    }
    Ok(groups)
}

#[cfg(test)]
#[path = "gcp_tests.rs"]
mod tests;
