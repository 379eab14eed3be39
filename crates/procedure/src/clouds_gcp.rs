//! Google Cloud for `plan --cloud gcp|all` and `predict --cloud gcp`, apart from the command
//! line: the catalog (built-in tables plus `--catalog` files), the plan's text, and what a
//! Compute Engine VM with Persistent Disks delivers ([`iofit_predict::gcp`]).

use crate::ProcedureError;
use iofit_catalog::clouds::gcp::GcpCatalog;
use iofit_model::units::group_thousands;
use iofit_model::{Bytes, Iops};
use iofit_planner::clouds_gcp::{demand_of, GcpDesign, GcpPlan, GcpPlannedDisk};
use iofit_planner::GcpPlanNote;
use iofit_predict::gcp::{self as model, GcpDemand, GcpPrediction};
use std::path::{Path, PathBuf};

type Result<T> = std::result::Result<T, ProcedureError>;

fn bad(message: impl Into<String>) -> ProcedureError {
    ProcedureError::BadInput(message.into())
}

/// The largest Google Cloud catalog input read (a machine-types list of every zone is a few MB).
pub const GCP_INPUT_BYTES: u64 = 512 << 20;

/// A Google Cloud catalog input file's text, read within [`GCP_INPUT_BYTES`].
pub fn read_gcp_input(path: &Path) -> Result<String> {
    Ok(iofit_safefs::input::read_capped_string(
        path,
        GCP_INPUT_BYTES,
        "Google Cloud catalog input",
    )?)
}

/// The built-in Google Cloud tables plus `files` (Google-Cloud-shaped catalog files).
pub fn gcp_catalog(files: &[PathBuf]) -> Result<GcpCatalog> {
    let mut catalog = GcpCatalog::embedded().map_err(|e| bad(e.to_string()))?;
    for file in files {
        let text = read_gcp_input(file)?;
        catalog
            .add_text(&file.display().to_string(), &text)
            .map_err(|e| bad(e.to_string()))?;
    }
    Ok(catalog)
}

fn money(amount: f64) -> String {
    format!("${amount:.2}")
}

fn disks_line(design: &GcpDesign) -> String {
    design
        .disks
        .iter()
        .map(|d| {
            let mut line = format!(
                "{} {} {} GiB",
                d.spec.label,
                d.spec.disk_type,
                d.spec.size_gib.get()
            );
            if let Some(iops) = d.spec.provisioned_iops {
                line.push_str(&format!(" {} IOPS", group_thousands(iops.get())));
            }
            if let Some(mib_s) = d.spec.provisioned_mib_s {
                line.push_str(&format!(" {} MiB/s", group_thousands(mib_s.get())));
            }
            line
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// One disk's line: what it is given and its month's price split into the GiB, the IOPS and
/// the MiB/s it is billed for.
fn disk_line(disk: &GcpPlannedDisk) -> String {
    let spec = &disk.spec;
    let mut given = format!("{} GiB", spec.size_gib.get());
    let mut split = format!(
        "{} GiB x ${}/GiB-month",
        spec.size_gib.get(),
        disk.price_per_gib_month
    );
    if let Some(iops) = spec.provisioned_iops {
        given.push_str(&format!(", {} IOPS", group_thousands(iops.get())));
        if let Some(rate) = disk.price_per_iops_month {
            split = format!(
                "capacity {} ({split}) + IOPS {} (${rate}/IOPS-month)",
                money(disk.capacity_price_per_month),
                money(disk.iops_price_per_month)
            );
        }
    }
    if let Some(mib_s) = spec.provisioned_mib_s {
        given.push_str(&format!(", {} MiB/s", group_thousands(mib_s.get())));
        if let Some(rate) = disk.price_per_mib_s_month {
            split.push_str(&format!(
                " + throughput {} (${rate}/MiB/s-month)",
                money(disk.throughput_price_per_month)
            ));
        }
    }
    format!(
        "    {}: {}, {given}  {}/month ({split})\n",
        spec.label,
        spec.disk_type,
        money(disk.price_per_month),
    )
}

fn design_text(design: &GcpDesign) -> String {
    let mut text = format!(
        "#{}  {} ({} vCPU, {} GiB)  {}/month = machine {} + disks {}\n",
        design.rank,
        design.machine_type,
        design.vcpu,
        design.memory_gib.get(),
        money(design.total_price_per_month),
        money(design.machine_price_per_month),
        money(design.disks_price_per_month),
    );
    for disk in &design.disks {
        text.push_str(&disk_line(disk));
    }
    let p = &design.prediction;
    text.push_str(&format!(
        "    delivers {:.0} IOPS, {:.1} MB/s, sustained; binding: {} (headroom {:.1}%)\n",
        p.delivered_iops.get(),
        p.delivered_mb_s.get(),
        p.binding,
        p.headroom_pct
    ));
    let disks: Vec<String> = design
        .disks
        .iter()
        .map(|d| format!("--disk {}", d.disk_arg))
        .collect();
    text.push_str(&format!(
        "    check: iofit predict --cloud gcp --vm {} {}\n",
        design.machine_type,
        disks.join(" ")
    ));
    text.push_str(&format!("    price basis: {}\n", design.price_basis));
    text
}

/// `plan --cloud gcp`'s text: the ranked designs and the notes.
pub fn plan_text(plan: &GcpPlan) -> String {
    let mut text = format!(
        "Google Cloud: {} design(s) meet the requirements ({} machine types in the catalog)\n\n",
        plan.designs.len(),
        plan.machine_types_considered
    );
    text.push_str(&iofit_planner::warning_lines(&plan.requirement_warnings));
    for design in &plan.designs {
        text.push_str(&design_text(design));
        text.push('\n');
    }
    if plan.designs.is_empty() {
        text.push_str("no Google Cloud design meets the requirements\n\n");
    }
    text.push_str("notes:\n");
    for note in &plan.notes {
        text.push_str(&format!("  - {note}\n"));
    }
    text
}

/// `plan --cloud all`'s Google Cloud block: the cheapest design, its cost split, binding limit,
/// headroom and price basis.
pub fn plan_block(plan: &GcpPlan) -> String {
    let Some(design) = plan.designs.first() else {
        let why = plan
            .notes
            .iter()
            .find(|n| matches!(n, GcpPlanNote::NoneFits { .. }))
            .map(ToString::to_string)
            .unwrap_or_default();
        return format!("Google Cloud: no design meets the requirements ({why})\n");
    };
    let mut text = format!(
        "Google Cloud: {} + {}\n  {}/month = machine {} + disks {}\n",
        design.machine_type,
        disks_line(design),
        money(design.total_price_per_month),
        money(design.machine_price_per_month),
        money(design.disks_price_per_month),
    );
    let [capacity, iops, throughput] = design.disks.iter().fold([0.0; 3], |sum, d| {
        [
            sum[0] + d.capacity_price_per_month,
            sum[1] + d.iops_price_per_month,
            sum[2] + d.throughput_price_per_month,
        ]
    });
    if iops + throughput > 0.0 {
        text.push_str(&format!(
            "  disks = capacity {} + provisioned IOPS {} + provisioned throughput {}\n",
            money(capacity),
            money(iops),
            money(throughput)
        ));
    }
    text.push_str(&format!(
        "  binding: {} (sustained); headroom {:.1}%\n  price basis: {}\n",
        design.prediction.binding, design.prediction.headroom_pct, design.price_basis
    ));
    text
}

/// Demand that no Persistent Disk limit reaches: the design runs flat out.
const FLAT_OUT_IOPS: f64 = 1e12;

/// Everything `iofit predict --cloud gcp` asks for.
#[derive(Clone, Debug, Default)]
pub struct GcpPredictRequest {
    /// `--vm`: the machine type.
    pub vm: String,
    /// `--disk`: `[LABEL=]TYPE,size_gib=N` each.
    pub disks: Vec<String>,
    /// `--bs`: once for every volume or once per `--disk` [default: 8k].
    pub bs: Vec<String>,
    /// `--rw`: once for every volume or once per `--disk` [default: randread].
    pub rw: Vec<String>,
    /// `--rwmixread`, % (rw and randrw).
    pub rwmixread: f64,
    /// `--requirements`: targets per volume, matched to `--disk` in order.
    pub requirements: Option<PathBuf>,
    /// `--catalog`: Google-Cloud-shaped catalog files added to the built-in tables.
    pub catalog_files: Vec<PathBuf>,
    /// Azure predict's `--job` and `--stripe` were given (refused here).
    pub azure_only_flags: bool,
}

/// A prediction on Google Cloud.
#[derive(Clone, Debug)]
pub struct GcpPredictOutcome {
    pub prediction: GcpPrediction,
    /// Whether requirements were given (the exit code then says whether they are met).
    pub with_targets: bool,
}

impl GcpPredictOutcome {
    /// Exit 0 when no requirements were given or they are met.
    pub fn passes(&self) -> bool {
        !self.with_targets || self.prediction.meets
    }

    /// What `--json` prints.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({ "cloud": "gcp", "sustained": &self.prediction })
    }

    /// What the command prints.
    pub fn text(&self) -> String {
        predict_text(&self.prediction, self.with_targets)
    }
}

/// The share of reads fio's `rw` means, %.
fn read_pct_of(rw: &str, rwmixread: f64) -> Result<f64> {
    match rw.trim() {
        "read" | "randread" => Ok(100.0),
        "write" | "randwrite" => Ok(0.0),
        "rw" | "readwrite" | "randrw" if (0.0..=100.0).contains(&rwmixread) => Ok(rwmixread),
        "rw" | "readwrite" | "randrw" => Err(bad(format!(
            "--rwmixread {rwmixread}: must be within 0..100"
        ))),
        other => Err(bad(format!(
            "--rw {other}: use read, write, randread, randwrite, rw or randrw"
        ))),
    }
}

/// Each `--disk` with its demand (the requirements' volume, or flat out at `--bs`/`--rw`).
fn volume_inputs(
    request: &GcpPredictRequest,
    catalog: &GcpCatalog,
    targets: Option<&iofit_model::Requirements>,
) -> Result<Vec<(model::GcpDiskSpec, GcpDemand)>> {
    let mut inputs = Vec::new();
    for (index, text) in request.disks.iter().enumerate() {
        let spec = model::parse_disk_spec(text, index, catalog).map_err(|e| bad(e.to_string()))?;
        let pick = |values: &[String], default: &'static str| {
            values
                .get(index)
                .or(values.first())
                .cloned()
                .unwrap_or_else(|| default.to_string())
        };
        let bs_text = pick(&request.bs, "8k");
        let io_size_bytes =
            Bytes::parse(&bs_text).map_err(|e| bad(format!("--bs {bs_text}: {e}")))?;
        let demand = match targets.and_then(|t| t.volumes.get(index)) {
            Some(volume) => demand_of(volume),
            None => GcpDemand {
                iops: Iops(FLAT_OUT_IOPS),
                io_size_bytes,
                read_pct: read_pct_of(&pick(&request.rw, "randread"), request.rwmixread)?,
            },
        };
        inputs.push((spec, demand));
    }
    crate::cloud_inputs::check_one_disk_per_volume(targets, inputs.len())?;
    Ok(inputs)
}

/// Predicts the design `request` describes on Google Cloud.
pub fn predict_gcp(request: &GcpPredictRequest) -> Result<GcpPredictOutcome> {
    // Azure's flags are refused before any file is read.
    let targets = crate::cloud_inputs::checked_targets(
        "gcp",
        request.azure_only_flags,
        request.requirements.as_ref(),
    )?;
    let catalog = gcp_catalog(&request.catalog_files)?;
    let machine = catalog
        .machine_type(&request.vm)
        .map_err(|e| bad(e.to_string()))?;
    let inputs = volume_inputs(request, &catalog, targets.as_ref())?;
    let prediction = model::predict(&catalog, machine, &inputs).map_err(|e| bad(e.to_string()))?;
    Ok(GcpPredictOutcome {
        prediction,
        with_targets: targets.is_some(),
    })
}

fn predict_text(prediction: &GcpPrediction, with_targets: bool) -> String {
    let mut text = format!(
        "Google Cloud {}: sustained (Persistent Disk and Hyperdisk do not burst)\n",
        prediction.machine_type
    );
    for volume in &prediction.volumes {
        let target = if with_targets {
            format!(" of {:.0} IOPS required", volume.demand.iops.get())
        } else {
            String::new()
        };
        text.push_str(&format!(
            "  {} ({} {} GiB): {:.0} IOPS{target}, {:.1} MB/s at {} KiB IOs, {:.0}% reads; binding: {}\n",
            volume.label,
            volume.disk_type,
            volume.size_gib.get(),
            volume.delivered_iops.get(),
            volume.delivered_mb_s.get(),
            volume.demand.io_size_bytes.as_kib_f64(),
            volume.demand.read_pct,
            volume.binding
        ));
        for limit in &volume.limits {
            text.push_str(&format!(
                "      {:<44} {:>40}  allows {:.0} IOPS\n",
                limit.name, limit.stated, limit.iops_allowed
            ));
        }
    }
    text.push_str(&crate::cloud_inputs::delivers_line(
        prediction.delivered_iops.get(),
        prediction.delivered_mb_s.get(),
        &prediction.binding,
        with_targets.then_some((prediction.headroom_pct, prediction.meets)),
    ));
    text.push_str(
        "limits: Google's Persistent Disk rates per GiB and per-VM limits by vCPU count (catalog/gcp-persistent-disk.toml); \
         a type's budget is the VM's, shared by its disks; one IO counts as one operation\n",
    );
    if prediction
        .volumes
        .iter()
        .any(|v| v.limits.iter().any(|l| l.name.ends_with(" disk IOPS")))
    {
        text.push_str(
            "provisioned disks: each gets the IOPS and MiB/s it is given (or its rules bring), reads and writes together; \
             the VM's limit of its type is shared by the type's disks (catalog/gcp-provisioned-disk.toml)\n",
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(disks: &[&str]) -> GcpPredictRequest {
        GcpPredictRequest {
            vm: "n2-standard-8".into(),
            disks: disks.iter().map(|d| d.to_string()).collect(),
            rwmixread: 50.0,
            ..Default::default()
        }
    }

    #[test]
    fn flat_out_the_least_limit_shows_for_the_rw_given() {
        let outcome = predict_gcp(&request(&["data=pd-ssd,size_gib=100"])).unwrap();
        assert!(outcome.passes() && !outcome.with_targets);
        // 6,000 + 30 x 100 = 9,000 read IOPS by size, under the VM's 15,000.
        assert_eq!(outcome.prediction.delivered_iops.get().round(), 9000.0);
        let text = outcome.text();
        assert!(
            text.starts_with("Google Cloud n2-standard-8: sustained"),
            "{text}"
        );
        assert!(text.contains("binding: pd-ssd read IOPS by size"), "{text}");
        assert_eq!(outcome.json()["cloud"], "gcp");
        let writes = GcpPredictRequest {
            rw: vec!["randwrite".into()],
            ..request(&["data=pd-standard,size_gib=1000"])
        };
        // pd-standard writes 1.5 IOPS per GiB: 1,500.
        let outcome = predict_gcp(&writes).unwrap();
        assert_eq!(outcome.prediction.delivered_iops.get().round(), 1500.0);
    }

    /// `plan --cloud all`'s block of a pd-extreme design splits the disks' month into the GiB
    /// and the provisioned IOPS; the design's line names what each disk is given.
    #[test]
    fn a_provisioned_design_shows_its_cost_split() {
        let requirements: iofit_model::Requirements = toml::from_str(
            "[[volumes]]\nlabel = \"db\"\n[volumes.sizing]\niops = 100000\nthroughput_mb_s = 0\n\
             io_size_bytes = 8192\nread_pct = 100\nrandom_pct = 100\ncapacity_gib = 1000\n",
        )
        .unwrap();
        let catalog = gcp_catalog(&[]).unwrap();
        let plan =
            iofit_planner::clouds_gcp::plan_gcp(&requirements, &catalog, &Default::default());
        let block = plan_block(&plan);
        let disk = &plan.designs[0].disks[0];
        assert!(
            block.contains(&format!(
                "db pd-extreme {} GiB 111,112 IOPS",
                disk.spec.size_gib.get()
            )),
            "{block}"
        );
        assert!(
            block.contains(&format!(
                "disks = capacity {} + provisioned IOPS {} + provisioned throughput $0.00",
                money(disk.capacity_price_per_month),
                money(disk.iops_price_per_month)
            )),
            "{block}"
        );
        let text = plan_text(&plan);
        assert!(
            text.contains("+ IOPS $7222.28 ($0.065/IOPS-month)"),
            "{text}"
        );
    }

    #[test]
    fn bad_requests_are_bad_input_naming_the_flag() {
        let error = predict_gcp(&GcpPredictRequest {
            vm: "n2-standard-7".into(),
            ..request(&["pd-ssd,size_gib=10"])
        })
        .unwrap_err();
        assert!(error.is_bad_input() && error.to_string().contains("n2-standard-"));
        let error = predict_gcp(&GcpPredictRequest {
            rw: vec!["trim".into()],
            ..request(&["pd-ssd,size_gib=10"])
        })
        .unwrap_err();
        assert!(error.to_string().starts_with("--rw trim: use read"));
        let error = predict_gcp(&request(&["pd-ssd"])).unwrap_err();
        assert!(error.to_string().contains("add size_gib=N"), "{error}");
        let error = predict_gcp(&GcpPredictRequest {
            azure_only_flags: true,
            ..request(&["pd-ssd,size_gib=10"])
        })
        .unwrap_err();
        assert!(error.to_string().starts_with("--job and --stripe"));
    }
}
