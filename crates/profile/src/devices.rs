//! The device tree of a capture: which devices are physical disks, which are partitions of
//! a disk, and which are volumes stacked on disks (device-mapper / LVM, md RAID). A disk's
//! counters include the IO of everything stacked on it, so sizing both would count the same IO
//! twice: by default each physical disk is a volume and what sits on it is left out.
//!
//! Kinds come from the names the tools print: kernel names (`sda1`, `nvme0n1p2`, `mmcblk0p1`,
//! `dm-0`, `md127`), `sar -d` without `-p` (`devM-N`, read with the kernel's major/minor
//! scheme from Documentation/admin-guide/devices.txt), `sar -p` / `iostat -N` device-mapper
//! names (`vg-lv`) and `sar -j ID` persistent names (`ata-...-part3`, `dm-name-...`,
//! `md-uuid-...`).

use crate::capture::{Capture, Tool};
use crate::notes::CaptureNote;

/// What a device is, as far as its name tells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceKind {
    /// A whole disk (or a device of unknown kind, sized as one).
    Disk,
    /// A partition of the disk named `parent` (the name as the capture spells it).
    Partition { parent: String },
    /// A volume stacked on one or more disks; `what` says which kind, for the note.
    Stacked { what: &'static str },
}

/// One device left out of the default sizing, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeftOut {
    pub device: String,
    /// The disk (partitions) or "the disks" (stacked volumes) whose counters include its IO.
    pub under: String,
    pub kind: DeviceKind,
}

/// Block majors of SCSI disks (`sd`): 16 minors per disk, the low 4 bits the partition.
fn is_sd_major(major: u32) -> bool {
    major == 8 || (65..=71).contains(&major) || (128..=135).contains(&major)
}

/// Minors per disk of the majors whose partitions share the disk's major, by devices.txt:
/// sd 16, Xen xvd (202) 16, IDE hd (3, 22, 33, 34, ...) 64, mmcblk (179) 8.
fn minors_per_disk(major: u32) -> Option<u32> {
    match major {
        m if is_sd_major(m) => Some(16),
        202 => Some(16),
        3 | 22 | 33 | 34 | 56 | 57 | 88..=91 => Some(64),
        179 => Some(8),
        _ => None,
    }
}

/// `devM-N` as `sar -d` prints a device without `-p`.
pub fn major_minor(name: &str) -> Option<(u32, u32)> {
    let rest = name.strip_prefix("dev")?;
    let (major, minor) = rest.split_once('-')?;
    if major.is_empty() || minor.is_empty() {
        return None;
    }
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// A filesystem UUID (`sar -j UUID`): a leaf of its own, never a disk holding others.
fn is_uuid(name: &str) -> bool {
    let groups: Vec<&str> = name.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.chars().all(|c| c.is_ascii_hexdigit()))
}

/// Prefixes of /dev/disk/by-id and by-path names (`sar -j ID`, `-j PATH`) of whole disks.
const PERSISTENT_DISK_PREFIXES: [&str; 12] = [
    "ata-",
    "scsi-",
    "wwn-",
    "nvme-",
    "usb-",
    "virtio-",
    "mmc-",
    "pci-",
    "xen-",
    "ieee1394-",
    "platform-",
    "acpi-",
];

/// The kind of `name` in a capture whose device names are `all`. `linux` is false for
/// Windows and Azure captures, whose names (`1 E:`, LUNs) carry no tree.
pub fn classify(name: &str, all: &[&str], linux: bool) -> DeviceKind {
    if !linux {
        return DeviceKind::Disk;
    }
    if let Some((major, minor)) = major_minor(name) {
        return classify_numbers(major, minor, all);
    }
    if let Some(parent) = partition_parent(name) {
        return DeviceKind::Partition {
            parent: parent.to_string(),
        };
    }
    if name.starts_with("dm-") || name.starts_with("dm-name-") || name.starts_with("dm-uuid-") {
        return DeviceKind::Stacked {
            what: "device-mapper (LVM) volume",
        };
    }
    let md = name
        .strip_prefix("md")
        .is_some_and(|rest| !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit()))
        || name.starts_with("md-name-")
        || name.starts_with("md-uuid-")
        || name.starts_with("md/");
    if md {
        return DeviceKind::Stacked {
            what: "md RAID volume",
        };
    }
    // DRBD, bcache and ZFS volumes: their IO reaches the disks under them as well.
    let numbered = |prefix: &str| {
        name.strip_prefix(prefix)
            .is_some_and(|rest| !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit()))
    };
    if numbered("drbd") || numbered("bcache") || numbered("zd") {
        return DeviceKind::Stacked {
            what: "volume on other disks (DRBD, bcache or a ZFS zvol)",
        };
    }
    // `sar -d -p` and `iostat -N` print device-mapper volumes by their /dev/mapper name,
    // VG-LV (`centos-root`, `ubuntu--vg-ubuntu--lv`); kernel disk names have no dash.
    let mapper_name = name.contains('-')
        && !name.contains(':')
        && !is_uuid(name)
        && !PERSISTENT_DISK_PREFIXES.iter().any(|p| name.starts_with(p))
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+'));
    if mapper_name {
        return DeviceKind::Stacked {
            what: "device-mapper (LVM) volume",
        };
    }
    DeviceKind::Disk
}

fn classify_numbers(major: u32, minor: u32, all: &[&str]) -> DeviceKind {
    if major == 9 {
        return DeviceKind::Stacked {
            what: "md RAID volume",
        };
    }
    // Device-mapper's major is dynamic: 253 on most distributions; 252 where 253 went to
    // another driver first (zram). A capture holding both has 253 for device-mapper and 252
    // for a disk driver (RHEL 7's virtio disks are 252).
    let both = all
        .iter()
        .filter_map(|n| major_minor(n))
        .any(|(m, _)| m == 253);
    if major == 253 || (major == 252 && !both) {
        return DeviceKind::Stacked {
            what: "device-mapper (LVM) volume",
        };
    }
    // Virtio disks (a dynamic major, 252 or 254) number like sd: 16 minors per disk.
    let per_disk = minors_per_disk(major).or(matches!(major, 252 | 254).then_some(16));
    if let Some(per_disk) = per_disk {
        let part = minor % per_disk;
        if part != 0 {
            return DeviceKind::Partition {
                parent: format!("dev{major}-{}", minor - part),
            };
        }
    }
    DeviceKind::Disk
}

pub fn is_linux(tool: Tool) -> bool {
    !matches!(
        tool,
        Tool::PerfMon | Tool::AzureMonitor | Tool::CloudWatch | Tool::CloudMonitoring
    )
}

/// The devices left out of the default sizing: partitions whose disk is in the capture, and
/// stacked volumes when a physical disk is in the capture (its counters hold their IO). A
/// capture of stacked volumes alone (iostat of dm devices only) sizes them.
pub fn left_out(capture: &Capture) -> Vec<LeftOut> {
    let names: Vec<&str> = capture.devices.iter().map(|d| d.name.as_str()).collect();
    let linux = is_linux(capture.tool);
    let kinds: Vec<DeviceKind> = names.iter().map(|n| classify(n, &names, linux)).collect();
    let any_disk = kinds.contains(&DeviceKind::Disk);
    names
        .iter()
        .zip(&kinds)
        .filter_map(|(name, kind)| {
            let under = match kind {
                DeviceKind::Disk => return None,
                DeviceKind::Partition { parent } => {
                    if !names.contains(&parent.as_str()) {
                        return None;
                    }
                    parent.clone()
                }
                DeviceKind::Stacked { .. } => {
                    if !any_disk {
                        return None;
                    }
                    "the disks".to_string()
                }
            };
            Some(LeftOut {
                device: name.to_string(),
                under,
                kind: kind.clone(),
            })
        })
        .collect()
}

/// The notes telling what the default sizing left out, one per disk or kind.
pub fn left_out_notes(capture: &Capture) -> Vec<CaptureNote> {
    let left = left_out(capture);
    let mut notes = Vec::new();
    let mut disks: Vec<(&str, Vec<&str>)> = Vec::new();
    let mut stacked: Vec<&str> = Vec::new();
    for item in &left {
        match &item.kind {
            DeviceKind::Partition { .. } => {
                match disks.iter_mut().find(|(d, _)| *d == item.under) {
                    Some((_, parts)) => parts.push(&item.device),
                    None => disks.push((&item.under, vec![&item.device])),
                }
            }
            DeviceKind::Stacked { .. } => stacked.push(&item.device),
            DeviceKind::Disk => {}
        }
    }
    for (disk, parts) in disks {
        notes.push(CaptureNote::PartitionsLeftOut {
            disk: disk.to_string(),
            partitions: parts.iter().map(|p| p.to_string()).collect(),
        });
    }
    // blkext (259) numbers NVMe namespaces and partitions alike, in the order they appear:
    // the numbers cannot say which is which, so each is sized; the names can.
    let blkext: Vec<&str> = capture
        .devices
        .iter()
        .map(|d| d.name.as_str())
        .filter(|n| major_minor(n).is_some_and(|(major, _)| major == 259))
        .collect();
    if blkext.len() > 1 {
        notes.push(CaptureNote::BlockExtended {
            devices: blkext.iter().map(|d| d.to_string()).collect(),
        });
    }
    if !stacked.is_empty() {
        notes.push(CaptureNote::StackedLeftOut {
            volumes: stacked.iter().map(|v| v.to_string()).collect(),
        });
    }
    notes
}

/// Two selected devices that hold the same IO: a partition and its disk (a stacked volume's
/// members are not named in any capture, so only this pair is known for certain).
pub fn counted_twice<'a>(capture: &Capture, selected: &[&'a str]) -> Option<(&'a str, &'a str)> {
    let names: Vec<&str> = capture.devices.iter().map(|d| d.name.as_str()).collect();
    let linux = is_linux(capture.tool);
    for (i, a) in selected.iter().enumerate() {
        if selected[..i].contains(a) {
            return Some((a, a));
        }
        if let DeviceKind::Partition { parent } = classify(a, &names, linux) {
            if let Some(disk) = selected.iter().find(|s| **s == parent) {
                return Some((a, disk));
            }
        }
    }
    None
}

/// The disk a partition belongs to, by Linux naming: `sda1` of `sda`, `nvme0n1p2` and
/// `mmcblk0p1` of `nvme0n1` and `mmcblk0`, `...-part3` of a persistent name (`sar -j ID`).
pub fn partition_parent(name: &str) -> Option<&str> {
    let stem = name.trim_end_matches(|c: char| c.is_ascii_digit());
    if stem.len() == name.len() || stem.is_empty() {
        return None;
    }
    if let Some(parent) = stem.strip_suffix("-part") {
        return (!parent.is_empty()).then_some(parent);
    }
    if let Some(parent) = stem.strip_suffix('p') {
        // nvme0n1p2, mmcblk0p1: the disk name itself ends in a digit.
        if parent.ends_with(|c: char| c.is_ascii_digit()) {
            return Some(parent);
        }
    }
    // sda1, vdb2, xvdf1: letters then the partition number.
    if stem.ends_with(|c: char| c.is_ascii_alphabetic())
        && ["sd", "vd", "xvd", "hd"]
            .iter()
            .any(|p| stem.starts_with(p))
    {
        return Some(stem);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(name: &str, all: &[&str]) -> DeviceKind {
        classify(name, all, true)
    }

    fn part(parent: &str) -> DeviceKind {
        DeviceKind::Partition {
            parent: parent.into(),
        }
    }

    #[test]
    fn kernel_numbers() {
        let all = ["dev8-0", "dev8-2", "dev253-0"];
        assert_eq!(kind("dev8-0", &all), DeviceKind::Disk);
        assert_eq!(kind("dev8-2", &all), part("dev8-0"));
        assert_eq!(kind("dev8-17", &all), part("dev8-16"));
        assert_eq!(kind("dev65-33", &all), part("dev65-32"));
        assert_eq!(kind("dev202-1", &all), part("dev202-0"));
        assert_eq!(kind("dev3-65", &all), part("dev3-64"));
        assert_eq!(kind("dev179-9", &all), part("dev179-8"));
        assert!(matches!(kind("dev253-0", &all), DeviceKind::Stacked { .. }));
        assert!(matches!(kind("dev9-1", &all), DeviceKind::Stacked { .. }));
        // 252 is device-mapper alone, a virtio disk beside 253 (RHEL 7).
        assert!(matches!(
            kind("dev252-0", &all[..2]),
            DeviceKind::Stacked { .. }
        ));
        assert_eq!(kind("dev252-0", &all), DeviceKind::Disk);
        assert_eq!(kind("dev252-1", &all), part("dev252-0"));
        // blkext (259) numbers NVMe namespaces and partitions alike: no tree from numbers.
        assert_eq!(kind("dev259-1", &all), DeviceKind::Disk);
        assert_eq!(major_minor("dev8"), None);
        let mut capture = Capture::new("s.txt".into(), Tool::Sar);
        for name in ["dev259-0", "dev259-1", "dev8-0"] {
            capture.device_index(name.as_bytes(), 0);
        }
        let notes = left_out_notes(&capture);
        assert_eq!(
            notes,
            [CaptureNote::BlockExtended {
                devices: vec!["dev259-0".to_string(), "dev259-1".to_string()]
            }]
        );
        assert!(notes[0]
            .to_string()
            .starts_with("dev259-0, dev259-1 are block-extended numbers"));
        assert_eq!(major_minor("dev-8-0"), None);
    }

    #[test]
    fn names() {
        assert_eq!(kind("sda2", &[]), part("sda"));
        assert_eq!(kind("nvme0n1p2", &[]), part("nvme0n1"));
        assert_eq!(kind("mmcblk0p1", &[]), part("mmcblk0"));
        assert_eq!(kind("nvme0n1", &[]), DeviceKind::Disk);
        for stacked in [
            "dm-0",
            "md127",
            "centos-root",
            "ubuntu--vg-ubuntu--lv",
            "dm-name-vg0-data",
            "md-uuid-3b1a2c",
            "drbd0",
            "bcache1",
            "zd16",
        ] {
            assert!(
                matches!(kind(stacked, &[]), DeviceKind::Stacked { .. }),
                "{stacked}"
            );
        }
        for disk in [
            "sda",
            "vdb",
            "ata-Hitachi_HDS723020BLA642_MN1240F33J1XND",
            "pci-0000:00:04.0-virtio-pci-virtio1",
            "3e6be9de-8139-11d1-9106-a43f08d823a6",
            "zram0",
            "rbd0",
            "nbd0",
        ] {
            assert_eq!(kind(disk, &[]), DeviceKind::Disk, "{disk}");
        }
        assert_eq!(classify("1 E:", &[], false), DeviceKind::Disk);
    }

    /// `iostat -x -p ALL` of a host with an LVM volume on sda2 and an md RAID 0 over two NVMe
    /// disks: by default the three disks are sized and the rest left out; naming md0 sizes the
    /// stripe alone (its members' IO added up is its IO); naming sda and sda2 is refused.
    #[test]
    fn disks_by_default_a_named_stripe_instead() {
        let header = "Device            r/s     w/s     rkB/s     wkB/s  aqu-sz  %util";
        let rows = [
            ("sda", 300.0, 100.0),
            ("sda1", 0.0, 0.0),
            ("sda2", 300.0, 100.0),
            ("dm-0", 300.0, 100.0),
            ("nvme0n1", 1000.0, 500.0),
            ("nvme1n1", 1000.0, 500.0),
            ("md0", 2000.0, 1000.0),
        ];
        let mut text = String::from("Linux 6.1 (db) \t11/27/26 \t_x86_64_\t(8 CPU)\n\n");
        for _ in 0..3 {
            text.push_str(header);
            text.push('\n');
            for (name, r, w) in rows {
                text.push_str(&format!(
                    "{name:<13} {r:7.2} {w:7.2} {:9.2} {:9.2} {:7.2} {:6.2}\n",
                    r * 8.0,
                    w * 8.0,
                    1.0,
                    50.0
                ));
            }
            text.push('\n');
        }
        let capture = crate::parse_bytes(text.as_bytes(), "p.txt", &Default::default()).unwrap();
        let left: Vec<(String, String)> = left_out(&capture)
            .into_iter()
            .map(|l| (l.device, l.under))
            .collect();
        let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
        assert_eq!(
            left,
            [
                pair("sda1", "sda"),
                pair("sda2", "sda"),
                pair("dm-0", "the disks"),
                pair("md0", "the disks")
            ]
        );
        let notes = left_out_notes(&capture);
        assert_eq!(
            notes,
            [
                CaptureNote::PartitionsLeftOut {
                    disk: "sda".to_string(),
                    partitions: vec!["sda1".to_string(), "sda2".to_string()]
                },
                CaptureNote::StackedLeftOut {
                    volumes: vec!["dm-0".to_string(), "md0".to_string()]
                }
            ]
        );
        let req = crate::requirements(&capture, &Default::default()).unwrap();
        let sized: Vec<(&str, f64)> = req
            .volumes
            .iter()
            .map(|v| (v.label.as_str(), v.sizing.iops.get()))
            .collect();
        assert_eq!(
            sized,
            [("sda", 520.0), ("nvme0n1", 1950.0), ("nvme1n1", 1950.0)]
        );

        let stripe = crate::SizingOptions {
            volumes: vec![crate::VolumeSpec {
                label: "data".into(),
                devices: vec!["md0".into()],
            }],
            ..Default::default()
        };
        let req = crate::requirements(&capture, &stripe).unwrap();
        assert_eq!(req.volumes.len(), 1);
        assert_eq!(req.volumes[0].sizing.iops.get(), 3900.0);

        let twice = crate::SizingOptions {
            volumes: vec![crate::VolumeSpec {
                label: "root".into(),
                devices: vec!["sda".into(), "sda2".into()],
            }],
            ..Default::default()
        };
        let error = crate::requirements(&capture, &twice)
            .unwrap_err()
            .to_string();
        assert!(error.contains("'sda2' is a partition of 'sda'"), "{error}");
    }
}
