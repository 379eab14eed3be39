//! Google Cloud designs under the same throttle: a Compute Engine VM with Persistent Disks as
//! `predict --cloud gcp` models it ([`iofit_predict::gcp`]). A disk type's performance is the
//! VM's, `baseline + rate x the total GiB of that type attached`, up to the VM's limit for its
//! vCPU count, reads and writes limited apart; the disks of one type share it by demand. So
//! each disk type is one [`SharedGroup`] with four caps (read and write IOPS and MB/s), and a
//! volume has no cap of its own. Nothing bursts.
//!
//! A disk of a provisioned type (pd-extreme; Hyperdisk when a `--catalog` file adds what no
//! source gave) has caps of its own, reads and writes together: the IOPS and MiB/s it is given
//! or its rules bring ([`iofit_predict::gcp_provisioned::check_spec`]). Its type's group holds
//! the VM's limit of the type (and, for pd-extreme, the MiB/s by size its disks share), which
//! the type's disks share by demand.

use crate::limits::{DesignLimits, EmulationNote, SharedGroup, VmLimits, VolumeLimits};
use crate::EmulateError;
use iofit_catalog::clouds::gcp::{GcpCatalog, GcpMachineType};
use iofit_model::units::{GiB, Iops, MBps};
use iofit_predict::gcp::{type_budget, GcpDiskSpec};
use iofit_predict::gcp_provisioned::check_spec;

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
        // Alone, a disk may take both directions of its type's caps; a provisioned disk no
        // more than it is given, reads and writes together.
        let mut iops = (group.read_iops + group.write_iops).get();
        let mut throughput_mb_s = (group.read_mb_s + group.write_mb_s).get();
        let mut given = String::new();
        if let Some(row) = catalog.provisioned_type(&disk.disk_type) {
            let own = check_spec(row, disk)
                .map_err(|e| EmulateError::Input(format!("--disk {}: {e}", disk.label)))?;
            iops = iops.min(own.iops.get() * scale);
            given = format!(", {:.0} IOPS", own.iops.get());
            if let Some((mib_s, _)) = own.mib_s {
                throughput_mb_s = throughput_mb_s.min(mib_s * MB_PER_MIB * scale);
                given.push_str(&format!(", {mib_s:.0} MiB/s"));
            }
        }
        volumes.push(VolumeLimits {
            label: disk.label.clone(),
            design: format!(
                "1 x {} {} GiB{given} (shares the {} caps of {})",
                disk.disk_type,
                disk.size_gib.get(),
                group.name,
                machine.name
            ),
            iops: Iops(iops),
            throughput_mb_s: MBps(throughput_mb_s),
            burst_iops: None,
            burst_throughput_mb_s: None,
            host_cached: false,
        });
    }
    let mut notes = vec![
        EmulationNote::GcpSharedTypeCaps {
            machine: machine.name.clone(),
            vcpu: machine.vcpu,
        },
        EmulationNote::GcpOneIoPerRequest,
    ];
    if disks
        .iter()
        .any(|d| catalog.provisioned_type(&d.disk_type).is_some())
    {
        notes.push(EmulationNote::GcpProvisionedCaps);
    }
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
/// the type attached, each direction at the lower of its by-size figure and the VM's (a
/// provisioned type: the VM's limit of the type, and the MiB/s by size it follows, if any).
fn type_groups(
    catalog: &GcpCatalog,
    machine: &GcpMachineType,
    disks: &[GcpDiskSpec],
    scale: f64,
) -> Result<Vec<SharedGroup>, EmulateError> {
    let mut groups: Vec<SharedGroup> = Vec::new();
    for (index, disk) in disks.iter().enumerate() {
        let refuse = |why: String| {
            EmulateError::Input(format!(
                "--disk {}: {why}; choose another --vm or disk type",
                disk.label
            ))
        };
        let name = match catalog.provisioned_type(&disk.disk_type) {
            Some(row) => row.name.clone(),
            None => catalog
                .disk_type(&disk.disk_type)
                .map_err(|e| EmulateError::Input(format!("--disk {}: {e}", disk.label)))?
                .name
                .clone(),
        };
        if let Some(group) = groups.iter_mut().find(|g| g.name == name) {
            group.volumes.push(index);
            continue;
        }
        let members: Vec<usize> = (0..disks.len())
            .filter(|i| disks[*i].disk_type.eq_ignore_ascii_case(&name))
            .collect();
        let total_gib: GiB = members.iter().map(|i| disks[*i].size_gib).sum();
        let no_limit = || {
            refuse(format!(
                "no sourced {name} limit for {} ({} family, {} vCPU)",
                machine.name, machine.family, machine.vcpu
            ))
        };
        // (read IOPS, write IOPS, read MiB/s, write MiB/s) the type's disks share.
        let caps = match catalog.provisioned_type(&name) {
            Some(row) => {
                let gaps = catalog.model_gaps(row);
                if !gaps.is_empty() {
                    return Err(refuse(format!(
                        "{name} is not modelled: {} not sourced",
                        gaps.join("; ")
                    )));
                }
                let least = row
                    .vcpu_min_by_family
                    .get(&machine.family.to_ascii_lowercase());
                if let Some(least) = least.filter(|least| machine.vcpu < **least) {
                    return Err(refuse(format!(
                        "{} takes {name} with {least} vCPUs or more only; {} has {}",
                        machine.family, machine.name, machine.vcpu
                    )));
                }
                let vm = catalog.vm_limit(machine, &name).ok_or_else(no_limit)?;
                let by_size = row
                    .throughput_by_size_as
                    .as_deref()
                    .and_then(|as_type| catalog.disk_type(as_type).ok())
                    .map(|rules| {
                        rules.baseline_mib_s.get()
                            + rules.throughput_mib_s_per_gib * rules.rated_gib(total_gib).get()
                    })
                    .unwrap_or(f64::INFINITY);
                (
                    vm.read_iops.get(),
                    vm.write_iops.get(),
                    by_size.min(vm.read_mib_s.get()),
                    by_size.min(vm.write_mib_s.get()),
                )
            }
            None => {
                let rules = catalog
                    .disk_type(&name)
                    .map_err(|e| EmulateError::Input(format!("--disk {}: {e}", disk.label)))?;
                let budget =
                    type_budget(catalog, machine, rules, total_gib).ok_or_else(no_limit)?;
                let vm = &budget.vm;
                (
                    budget.read_iops_by_size.min(vm.read_iops.get()),
                    budget.write_iops_by_size.min(vm.write_iops.get()),
                    budget.mib_s_by_size.min(vm.read_mib_s.get()),
                    budget.mib_s_by_size.min(vm.write_mib_s.get()),
                )
            }
        };
        groups.push(SharedGroup {
            name,
            volumes: vec![index],
            read_iops: Iops(caps.0 * scale),
            write_iops: Iops(caps.1 * scale),
            read_mb_s: MBps(caps.2 * MB_PER_MIB * scale),
            write_mb_s: MBps(caps.3 * MB_PER_MIB * scale),
        });
    }
    Ok(groups)
}

#[cfg(test)]
#[path = "gcp_tests.rs"]
mod tests;
