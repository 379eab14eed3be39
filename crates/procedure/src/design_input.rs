//! Designs that other commands take as input: one design of `iofit plan --json` output (for
//! `emulate --plan FILE --design N`), and the prediction of a design for the workload a
//! benchmark measured (for `compare --vm --disk`).

use crate::ProcedureError;
use iofit_catalog::Catalog;
use iofit_model::requirements::VolumeRequirements;
use iofit_model::units::Bytes;
use iofit_model::HostCaching;
use iofit_predict::disk_spec::{resolve_volume, Bought};
use iofit_predict::{Prediction, VolumeLoad};
use std::path::Path;

/// Design `number` (1 = cheapest) of `iofit plan --json` output read from `path`, as a VM name
/// and `LABEL=COUNTxSKU:CACHING[,size_gib=N,iops=N,mb_s=N]` volume specs.
pub fn design_from_plan_json(
    text: &str,
    path: &Path,
    number: usize,
) -> Result<(String, Vec<String>), ProcedureError> {
    let bad = |why: String| ProcedureError::bad_input(format!("{}: {why}", path.display()));
    let doc: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        bad(format!(
            "not JSON ({e}); give the output of `iofit plan --json`"
        ))
    })?;
    let designs = doc["plan"]["designs"].as_array().ok_or_else(|| {
        bad("no plan.designs array; give the output of `iofit plan --json`".into())
    })?;
    let entry = number
        .checked_sub(1)
        .and_then(|i| designs.get(i))
        .ok_or_else(|| {
            ProcedureError::bad_input(format!(
                "--design {number}: {} holds designs 1..={}",
                path.display(),
                designs.len()
            ))
        })?;
    let design = &entry["design"];
    let field = |value: &serde_json::Value, key: &str| -> Result<String, ProcedureError> {
        value[key]
            .as_str()
            .map(str::to_string)
            .or_else(|| value[key].as_u64().map(|n| n.to_string()))
            .ok_or_else(|| bad(format!("design {number} has no '{key}'")))
    };
    let vm = field(design, "vm")?;
    let mut disks = Vec::new();
    for volume in design["volumes"].as_array().into_iter().flatten() {
        let mut spec = format!(
            "{}={}x{}:{}",
            field(volume, "label")?,
            field(volume, "disk_count")?,
            field(volume, "disk_sku")?,
            field(volume, "caching")?.to_ascii_lowercase()
        );
        // A provisioned volume (Premium SSD v2, Ultra) carries what was bought per disk.
        for (key, name) in [
            ("provisioned_size_gib", "size_gib"),
            ("provisioned_iops", "iops"),
            ("provisioned_throughput_mb_s", "mb_s"),
        ] {
            if let Some(value) = volume[key].as_f64() {
                spec.push_str(&format!(",{name}={value}"));
            }
        }
        disks.push(spec);
    }
    Ok((vm, disks))
}

/// What a benchmark measured that shapes the workload to predict: the read share, the IO
/// size and the outstanding IOs (`None`: take the requirement's).
#[derive(Clone, Copy, Debug, Default)]
pub struct MeasuredShape {
    pub read_pct: Option<f64>,
    pub io_size_bytes: Option<Bytes>,
    pub outstanding_ios: Option<u32>,
}

/// The design a benchmark ran on (`vm_name` with one `--disk` spec, as `predict --disk`
/// takes it), predicted for the workload it ran, against the volume's sizing target.
pub fn predict_measured(
    catalog: &Catalog,
    edition: &str,
    vm_name: &str,
    spec: &str,
    volume: &VolumeRequirements,
    measured: MeasuredShape,
    caching: Option<HostCaching>,
) -> Result<Prediction, ProcedureError> {
    let bad = |flag: &str, why: String| ProcedureError::bad_input(format!("{flag}: {why}"));
    let vm = catalog
        .vm(vm_name, edition)
        .map_err(|e| bad("--vm", e.to_string()))?;
    let (mut design, disk) = resolve_volume(catalog, edition, spec, 0, Bought::default())
        .map_err(|e| ProcedureError::bad_input(format!("--disk '{}': {}", e.spec, e.reason)))?;
    design.label = volume.label.clone();
    if let Some(caching) = caching {
        design.caching = caching;
    }
    let io_size = measured
        .io_size_bytes
        .map(|size| size.max(Bytes(1)).as_u64())
        .unwrap_or(volume.sizing.io_size_bytes.as_u64());
    let workload = iofit_model::Workload::new(
        measured.read_pct.unwrap_or(volume.sizing.read_pct),
        volume.sizing.random_pct,
        iofit_model::Bytes(io_size),
        measured.outstanding_ios.unwrap_or(1).max(1),
        1,
    );
    let load = VolumeLoad {
        design,
        disk,
        workload,
        target: Some(volume.sizing.clone()),
    };
    // The seed edition counts 1 MB = 1024 KB, as the seed does; plan and predict agree.
    let assumptions = crate::inputs::assumptions_for(edition, None, 100.0)?;
    iofit_predict::predict(vm, &[load], &assumptions, None)
        .map_err(|e| bad("--vm/--disk", e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_design_becomes_vm_and_volume_specs_and_bad_input_names_the_fix() {
        let plan = r#"{"plan":{"designs":[
            {"design":{"vm":"Standard_D4s_v5","volumes":[
                {"label":"data","disk_count":2,"disk_sku":"P30","caching":"ReadOnly"},
                {"label":"log","disk_count":1,"disk_sku":"PremiumV2","caching":"None",
                 "provisioned_size_gib":64.0,"provisioned_iops":4000.0,
                 "provisioned_throughput_mb_s":150.0}]}}]}}"#;
        let path = Path::new("plan.json");
        let (vm, disks) = design_from_plan_json(plan, path, 1).unwrap();
        assert_eq!(vm, "Standard_D4s_v5");
        assert_eq!(
            disks,
            [
                "data=2xP30:readonly",
                "log=1xPremiumV2:none,size_gib=64,iops=4000,mb_s=150"
            ]
        );
        // The specs read back as predict and emulate take them.
        let catalog = Catalog::embedded().unwrap();
        for (index, spec) in disks.iter().enumerate() {
            resolve_volume(&catalog, "current", spec, index, Bought::default()).unwrap();
        }
        let cases = [
            ("not json", 1, "plan.json: not JSON"),
            ("{}", 1, "no plan.designs array"),
            (plan, 2, "--design 2: plan.json holds designs 1..=1"),
            (plan, 0, "--design 0"),
            (
                r#"{"plan":{"designs":[{"design":{}}]}}"#,
                1,
                "design 1 has no 'vm'",
            ),
        ];
        for (text, number, expected) in cases {
            let error = design_from_plan_json(text, path, number).unwrap_err();
            assert!(error.is_bad_input());
            assert!(error.to_string().contains(expected), "{error}");
        }
    }
}
