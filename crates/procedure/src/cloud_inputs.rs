//! What `predict --cloud aws` and `predict --cloud gcp` share: the flags that are Azure's
//! alone, the optional requirements file, one `--disk` per required volume, and the line that
//! says what the design delivers.

use crate::ProcedureError;
use iofit_model::Requirements;
use std::path::PathBuf;

fn bad(message: impl Into<String>) -> ProcedureError {
    ProcedureError::BadInput(message.into())
}

/// `--job` and `--stripe` are refused on `cloud` (aws, gcp), and `--requirements` is read.
pub(crate) fn checked_targets(
    cloud: &str,
    azure_only_flags: bool,
    requirements: Option<&PathBuf>,
) -> Result<Option<Requirements>, ProcedureError> {
    if azure_only_flags {
        return Err(bad(format!(
            "--job and --stripe are Azure predict's; with --cloud {cloud} give --disk, --bs, --rw and optionally --requirements"
        )));
    }
    requirements
        .map(|path| crate::plan::read_requirements(path))
        .transpose()
}

/// A requirements file names as many volumes as `--disk` gives, in order.
pub(crate) fn check_one_disk_per_volume(
    targets: Option<&Requirements>,
    disks: usize,
) -> Result<(), ProcedureError> {
    match targets {
        Some(t) if t.volumes.len() != disks => Err(bad(format!(
            "--requirements has {} volume(s) but {disks} --disk given; give one --disk per volume, in order",
            t.volumes.len(),
        ))),
        _ => Ok(()),
    }
}

/// `  delivers N IOPS, M MB/s; binding: B[; headroom H%; meets the requirements]` and a newline.
pub(crate) fn delivers_line(
    iops: f64,
    mb_s: f64,
    binding: &str,
    targets: Option<(f64, bool)>,
) -> String {
    let mut text = format!("  delivers {iops:.0} IOPS, {mb_s:.1} MB/s; binding: {binding}");
    if let Some((headroom_pct, meets)) = targets {
        text.push_str(&format!(
            "; headroom {headroom_pct:.1}%; {}",
            if meets {
                "meets the requirements"
            } else {
                "does NOT meet the requirements"
            }
        ));
    }
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use iofit_model::requirements::VolumeRequirements;

    #[test]
    fn azure_only_flags_are_refused_naming_the_cloud_and_disks_match_volumes() {
        let err = checked_targets("gcp", true, None).unwrap_err();
        assert!(err.is_bad_input());
        assert!(
            err.to_string().contains("with --cloud gcp give --disk"),
            "{err}"
        );
        assert!(checked_targets("aws", false, None).unwrap().is_none());
        let two = Requirements {
            volumes: vec![VolumeRequirements::default(), VolumeRequirements::default()],
            ..Default::default()
        };
        let err = check_one_disk_per_volume(Some(&two), 1).unwrap_err();
        assert!(
            err.to_string()
                .contains("has 2 volume(s) but 1 --disk given"),
            "{err}"
        );
        assert!(check_one_disk_per_volume(Some(&two), 2).is_ok());
        assert!(check_one_disk_per_volume(None, 5).is_ok());
    }
}
