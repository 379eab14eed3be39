//! What `iofit emulate` says while the command runs: each volume's path once the volumes are
//! ready, then one line a second ([`crate::emulate_request::second_line`]); nothing when
//! quiet. The binary hands each line to stderr (the command's stdout is its own).

use crate::emulate_request::second_line;
use iofit_emulate::session::{Observer, Second};
use iofit_emulate::volume::PreparedVolume;

/// A session observer that turns its events into lines for `say`.
pub struct EmulateLines<F: FnMut(&str)> {
    quiet: bool,
    /// The volumes' labels, in the order of each second's usage.
    labels: Vec<String>,
    say: F,
}

impl<F: FnMut(&str)> EmulateLines<F> {
    pub fn new(quiet: bool, labels: Vec<String>, say: F) -> Self {
        EmulateLines { quiet, labels, say }
    }
}

impl<F: FnMut(&str)> Observer for EmulateLines<F> {
    fn ready(&mut self, volumes: &[PreparedVolume]) {
        if self.quiet {
            return;
        }
        for volume in volumes {
            let kind = if volume.scratch { "scratch" } else { "mapped" };
            (self.say)(&format!(
                "  {} -> {} ({kind})",
                volume.label,
                volume.path.display()
            ));
        }
    }

    fn second(&mut self, second: &Second) {
        if !self.quiet {
            (self.say)(&second_line(&self.labels, second));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iofit_emulate::controller::VolumeUsage;
    use iofit_emulate::throttle::DeviceNumber;
    use iofit_model::units::{Iops, MBps};
    use std::path::PathBuf;

    fn volume(label: &str, path: &str, scratch: bool) -> PreparedVolume {
        PreparedVolume {
            label: label.into(),
            device_path: PathBuf::from("/dev/loop9"),
            device: DeviceNumber { major: 7, minor: 9 },
            path: PathBuf::from(path),
            scratch,
        }
    }

    fn second() -> Second {
        Second {
            t_s: iofit_model::units::Seconds(1.0),
            volumes: vec![VolumeUsage {
                read_iops: Iops(100.0),
                write_iops: Iops(0.0),
                read_mb_s: MBps(1.0),
                write_mb_s: MBps(0.0),
                cap_iops: Iops(200.0),
                cap_mb_s: MBps(10.0),
                burst_seconds_left: None,
            }],
            vm_iops: Iops(100.0),
            vm_mb_s: MBps(1.0),
            vm_cap_iops: None,
            vm_cap_mb_s: None,
            vm_burst_seconds_left: None,
            binding: "data IOPS".into(),
            binding_consumed_pct: 50.0,
        }
    }

    #[test]
    fn each_volume_is_named_once_then_a_line_a_second() {
        let mut said = Vec::new();
        let mut lines = EmulateLines::new(false, vec!["data".into()], |l: &str| {
            said.push(l.to_string())
        });
        lines.ready(&[
            volume("data", "/mnt/r/data", true),
            volume("log", "/dev/loop3", false),
        ]);
        lines.second(&second());
        assert_eq!(
            said,
            vec![
                "  data -> /mnt/r/data (scratch)".to_string(),
                "  log -> /dev/loop3 (mapped)".to_string(),
                "   1.0s  data: 100 IOPS (50%) 1.0 MB/s (10%)  most used: data IOPS 50%"
                    .to_string(),
            ]
        );
    }

    #[test]
    fn quiet_says_nothing() {
        let mut said = 0;
        let mut lines = EmulateLines::new(true, vec!["data".into()], |_: &str| said += 1);
        lines.ready(&[volume("data", "/mnt/r/data", true)]);
        lines.second(&second());
        assert_eq!(said, 0);
    }
}
