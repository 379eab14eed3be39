//! The shipped example capture `iofit demo` profiles: `iostat -x -t 10 721` of a database
//! server over two hours (sda OS, sdb data files with 8 KiB random IO at about 80 % reads,
//! sdc the log with sequential small writes). Written to sysstat 12.6.1's exact layout; see
//! tests/data/README.md. Embedded so the demo runs from any directory.

use crate::{parse_bytes, Capture, ParseOptions, ProfileError};

/// The file's name, for `source` lines and messages.
pub const DB_SERVER_IOSTAT_NAME: &str = "example-db-server_sysstat-12.6.1_xt_10s.txt";

/// The capture's text.
pub const DB_SERVER_IOSTAT: &str =
    include_str!("../../../tests/data/iostat/example-db-server_sysstat-12.6.1_xt_10s.txt");

/// The example parsed (first since-boot report skipped, as for any iostat file).
pub fn db_server_capture() -> Result<Capture, ProfileError> {
    parse_bytes(
        DB_SERVER_IOSTAT.as_bytes(),
        DB_SERVER_IOSTAT_NAME,
        &ParseOptions::default(),
    )
}

/// How much each volume of the example server holds, GiB: part of the example, as a user adds
/// it by hand from `df -h` (IO counters say nothing about capacity). Without it a plan would
/// size the log for performance alone and could propose a 1 GiB disk.
pub const DB_SERVER_CAPACITY_GIB: [(&str, f64); 2] = [("data", 1536.0), ("log", 256.0)];

/// The volumes the demo sizes: the data disk and the log disk apart.
pub fn db_server_volumes() -> Vec<crate::VolumeSpec> {
    vec![
        crate::VolumeSpec {
            label: "data".into(),
            devices: vec!["sdb".into()],
        },
        crate::VolumeSpec {
            label: "log".into(),
            devices: vec!["sdc".into()],
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{requirements, SizingOptions};
    use iofit_model::VolumeRole;

    #[test]
    fn example_sizes_data_and_log_apart() {
        let capture = db_server_capture().unwrap();
        assert_eq!(capture.reports(), 720);
        let options = SizingOptions {
            volumes: db_server_volumes(),
            window_s: Some(iofit_model::units::Seconds(600.0)),
            ..SizingOptions::default()
        };
        let req = requirements(&capture, &options).unwrap();
        assert_eq!(req.volumes[0].role, VolumeRole::Data);
        assert_eq!(req.volumes[1].role, VolumeRole::Log);
        assert_eq!(
            req.volumes[0].sizing.io_size_bytes,
            iofit_model::Bytes(8192)
        );
        assert!(req.volumes[1].sizing.read_pct == 0.0);
        assert!(req.volumes[0].sizing.iops > req.volumes[1].sizing.iops);
    }
}
