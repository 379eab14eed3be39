//! `iofit catalog import --aws-instance-types FILE`: an AWS catalog file from the output of
//! `aws ec2 describe-instance-types --output json` (`{"InstanceTypes": [...]}`), the shape of
//! AWS's DescribeInstanceTypes API: `InstanceType`, `VCpuInfo.DefaultVCpus`,
//! `MemoryInfo.SizeInMiB`, `ProcessorInfo.SupportedArchitectures`, `Hypervisor` and
//! `EbsInfo.EbsOptimizedInfo` (`BaselineBandwidthInMbps`, `BaselineThroughputInMBps`,
//! `BaselineIops`, `MaximumBandwidthInMbps`, `MaximumThroughputInMBps`, `MaximumIops`).
//!
//! What the API does not say is derived and the table's notes say how: a type whose maximum is
//! above its baseline holds the maximum 30 minutes once every 24 hours (AWS's EBS-optimized
//! page says so of every such size); a Nitro type takes 26 data volumes (28 attachments, one
//! network interface, the root volume). Types without EBS-optimized figures, or not on Nitro,
//! are left out and named.

use super::aws::AwsCatalog;
use crate::error::CatalogError;
use serde_json::Value;

/// The written file and what was kept and left out.
#[derive(Clone, Debug, PartialEq)]
pub struct AwsImport {
    pub toml: String,
    pub kept: Vec<String>,
    pub left_out: Vec<(String, String)>,
}

fn bad(file: &str, path: &str, problem: String) -> CatalogError {
    CatalogError::File {
        file: file.to_string(),
        problem: format!("{path}: {problem}"),
    }
}

fn number(
    file: &str,
    path: &str,
    value: Option<&Value>,
    key: &str,
) -> Result<Option<f64>, CatalogError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => match n.as_f64() {
            Some(x) if x.is_finite() && x >= 0.0 => Ok(Some(x)),
            _ => Err(bad(
                file,
                path,
                format!("key {key}: expected a number >= 0, found {n}"),
            )),
        },
        Some(other) => Err(bad(
            file,
            path,
            format!("key {key}: expected a number >= 0, found {other}"),
        )),
    }
}

/// One instance type's row, or why it is left out.
fn row(
    file: &str,
    index: usize,
    item: &Value,
) -> Result<Result<String, (String, String)>, CatalogError> {
    let path = format!("$.InstanceTypes[{index}]");
    let name = item
        .get("InstanceType")
        .and_then(Value::as_str)
        .filter(|n| !n.trim().is_empty())
        .ok_or_else(|| {
            bad(
                file,
                &path,
                "key InstanceType: expected a name such as \"m6i.large\"".into(),
            )
        })?;
    if name.contains('"') || name.contains('\\') {
        return Err(bad(
            file,
            &path,
            format!("key InstanceType: '{name}' is not an instance type name"),
        ));
    }
    let ebs = item.get("EbsInfo").and_then(|e| e.get("EbsOptimizedInfo"));
    let Some(ebs) = ebs else {
        return Ok(Err((
            name.into(),
            "no EbsInfo.EbsOptimizedInfo (not EBS-optimized)".into(),
        )));
    };
    let ebs_path = format!("{path}.EbsInfo.EbsOptimizedInfo");
    let field = |key: &str| number(file, &ebs_path, ebs.get(key), key);
    let (Some(b_iops), Some(b_mb_s), Some(m_iops), Some(m_mb_s)) = (
        field("BaselineIops")?,
        field("BaselineThroughputInMBps")?,
        field("MaximumIops")?,
        field("MaximumThroughputInMBps")?,
    ) else {
        return Ok(Err((
            name.into(),
            "EbsOptimizedInfo lacks baseline or maximum IOPS/throughput".into(),
        )));
    };
    if item.get("Hypervisor").and_then(Value::as_str) != Some("nitro") {
        return Ok(Err((
            name.into(),
            "not a Nitro type: its EBS volume limit is not the 28-attachment rule".into(),
        )));
    }
    let vcpu = number(
        file,
        &path,
        item.get("VCpuInfo").and_then(|v| v.get("DefaultVCpus")),
        "VCpuInfo.DefaultVCpus",
    )?
    .ok_or_else(|| bad(file, &path, "key VCpuInfo.DefaultVCpus: missing".into()))?;
    let memory_mib = number(
        file,
        &path,
        item.get("MemoryInfo").and_then(|m| m.get("SizeInMiB")),
        "MemoryInfo.SizeInMiB",
    )?
    .ok_or_else(|| bad(file, &path, "key MemoryInfo.SizeInMiB: missing".into()))?;
    let arch = item
        .get("ProcessorInfo")
        .and_then(|p| p.get("SupportedArchitectures"))
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .and_then(Value::as_str)
        .and_then(|a| match a {
            "x86_64" => Some("x64"),
            "arm64" => Some("arm64"),
            _ => None,
        });
    let family = name.split('.').next().unwrap_or(name);
    let mut text = format!(
        "[[instances]]\nname = \"{name}\"\nfamily = \"{family}\"\nvcpu = {}\nmemory_gib = {}\n",
        vcpu as u64,
        memory_mib / 1024.0
    );
    if let Some(arch) = arch {
        text.push_str(&format!("arch = \"{arch}\"\n"));
    }
    text.push_str("ebs_volume_slots = 26\n");
    if let Some(mbps) = field("BaselineBandwidthInMbps")? {
        text.push_str(&format!("baseline_bandwidth_mbps = {mbps}\n"));
    }
    text.push_str(&format!(
        "baseline_throughput_mb_s = {b_mb_s}\nbaseline_iops = {b_iops}\n"
    ));
    if let Some(mbps) = field("MaximumBandwidthInMbps")? {
        text.push_str(&format!("maximum_bandwidth_mbps = {mbps}\n"));
    }
    text.push_str(&format!(
        "maximum_throughput_mb_s = {m_mb_s}\nmaximum_iops = {m_iops}\n"
    ));
    if m_iops > b_iops || m_mb_s > b_mb_s {
        text.push_str("burst_minutes_per_24h = 30\n");
    }
    Ok(Ok(text))
}

/// Imports the `(file name, text)` inputs into one AWS catalog file, checked to load.
pub fn import_instance_types(
    inputs: &[(String, String)],
    date: &str,
    table_id: Option<&str>,
) -> Result<AwsImport, CatalogError> {
    let mut rows = Vec::new();
    let mut kept = Vec::new();
    let mut left_out = Vec::new();
    for (file, text) in inputs {
        let json: Value = serde_json::from_str(text).map_err(|e| CatalogError::Syntax {
            file: file.clone(),
            line: e.line(),
            message: format!(
                "{e}; expected the output of `aws ec2 describe-instance-types --output json`"
            ),
        })?;
        let items = json
            .get("InstanceTypes")
            .and_then(Value::as_array)
            .ok_or_else(|| bad(file, "$", "expected {\"InstanceTypes\": [...]} (aws ec2 describe-instance-types --output json)".into()))?;
        for (index, item) in items.iter().enumerate() {
            match row(file, index, item)? {
                Ok(text) => {
                    kept.push(
                        text.lines()
                            .nth(1)
                            .unwrap_or_default()
                            .trim_start_matches("name = ")
                            .trim_matches('"')
                            .to_string(),
                    );
                    rows.push(text);
                }
                Err(reason) => left_out.push(reason),
            }
        }
    }
    let id = table_id
        .map(str::to_string)
        .unwrap_or_else(|| format!("aws-import-{date}"));
    let files: Vec<&str> = inputs.iter().map(|(f, _)| f.as_str()).collect();
    let mut toml = format!(
        "[table]\nid = \"{id}\"\nedition = \"current\"\ntitle = \"EC2 instance types imported from aws ec2 describe-instance-types\"\n\
         source = \"aws ec2 describe-instance-types --output json: {}\"\ndate = \"{date}\"\n\
         notes = \"Derived, not in the API output: burst_minutes_per_24h = 30 where the maximum is above the baseline (AWS, Amazon EBS-optimized instances: such sizes 'can support maximum performance for 30 minutes at least once every 24 hours'); ebs_volume_slots = 26 for Nitro types (28 attachments shared with network interfaces, minus one interface and the root volume; AWS, Instance volume limits).\"\n\n",
        files.join(", ").replace('"', "'")
    );
    toml.push_str(&rows.join("\n"));
    // The file must load as the planner will load it.
    AwsCatalog::default().add_text("imported file", &toml)?;
    Ok(AwsImport {
        toml,
        kept,
        left_out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-written sample in the documented shape (DescribeInstanceTypes' InstanceTypeInfo):
    /// one bursting Nitro size, one that sustains its maximum, one Xen type, one without
    /// EBS-optimized figures.
    const SAMPLE: &str = r#"{
      "InstanceTypes": [
        {"InstanceType": "m6i.large", "Hypervisor": "nitro",
         "VCpuInfo": {"DefaultVCpus": 2}, "MemoryInfo": {"SizeInMiB": 8192},
         "ProcessorInfo": {"SupportedArchitectures": ["x86_64"]},
         "EbsInfo": {"EbsOptimizedSupport": "default", "EbsOptimizedInfo": {
            "BaselineBandwidthInMbps": 650, "BaselineThroughputInMBps": 81.25, "BaselineIops": 3600,
            "MaximumBandwidthInMbps": 10000, "MaximumThroughputInMBps": 1250.0, "MaximumIops": 40000}}},
        {"InstanceType": "m6g.8xlarge", "Hypervisor": "nitro",
         "VCpuInfo": {"DefaultVCpus": 32}, "MemoryInfo": {"SizeInMiB": 131072},
         "ProcessorInfo": {"SupportedArchitectures": ["arm64"]},
         "EbsInfo": {"EbsOptimizedInfo": {
            "BaselineBandwidthInMbps": 9500, "BaselineThroughputInMBps": 1187.5, "BaselineIops": 40000,
            "MaximumBandwidthInMbps": 9500, "MaximumThroughputInMBps": 1187.5, "MaximumIops": 40000}}},
        {"InstanceType": "m4.large", "Hypervisor": "xen",
         "VCpuInfo": {"DefaultVCpus": 2}, "MemoryInfo": {"SizeInMiB": 8192},
         "EbsInfo": {"EbsOptimizedInfo": {
            "BaselineBandwidthInMbps": 450, "BaselineThroughputInMBps": 56.25, "BaselineIops": 3600,
            "MaximumBandwidthInMbps": 450, "MaximumThroughputInMBps": 56.25, "MaximumIops": 3600}}},
        {"InstanceType": "t2.micro", "Hypervisor": "xen",
         "VCpuInfo": {"DefaultVCpus": 1}, "MemoryInfo": {"SizeInMiB": 1024},
         "EbsInfo": {"EbsOptimizedSupport": "unsupported"}}
      ]
    }"#;

    #[test]
    fn imports_the_documented_shape() {
        let inputs = vec![("types.json".to_string(), SAMPLE.to_string())];
        let imported = import_instance_types(&inputs, "2026-11-27", None).unwrap();
        assert_eq!(imported.kept, vec!["m6i.large", "m6g.8xlarge"]);
        assert_eq!(imported.left_out.len(), 2);
        assert!(imported
            .left_out
            .iter()
            .any(|(n, why)| n == "m4.large" && why.contains("Nitro")));
        let mut catalog = AwsCatalog::default();
        catalog.add_text("imported", &imported.toml).unwrap();
        let large = catalog.instance("m6i.large").unwrap();
        // The same figures AWS's EBS-optimized table gives m6i.large.
        assert_eq!(
            (large.baseline_iops.get(), large.maximum_iops.get()),
            (3600.0, 40000.0)
        );
        assert_eq!(large.burst_minutes_per_24h, Some(30.0));
        assert_eq!(
            (large.vcpu, large.memory_gib),
            (2, iofit_model::units::GiB(8.0))
        );
        let graviton = catalog.instance("m6g.8xlarge").unwrap();
        assert!(!graviton.bursts());
        assert_eq!(graviton.arch, Some(crate::Arch::Arm64));
        assert!(catalog.tables[0].source.contains("types.json"));
    }

    #[test]
    fn bad_input_names_file_path_and_key() {
        let broken = SAMPLE.replace("\"BaselineIops\": 3600,", "\"BaselineIops\": \"x\",");
        let error = import_instance_types(&[("t.json".into(), broken)], "2026-11-27", None)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("t.json")
                && error.contains("$.InstanceTypes[0].EbsInfo.EbsOptimizedInfo")
                && error.contains("BaselineIops"),
            "{error}"
        );
        let error = import_instance_types(
            &[("t.json".into(), "{\"Reservations\": []}".into())],
            "2026-11-27",
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("InstanceTypes"), "{error}");
        let error = import_instance_types(&[("t.json".into(), "{".into())], "2026-11-27", None)
            .unwrap_err()
            .to_string();
        assert!(error.contains("t.json: line 1"), "{error}");
    }
}
