//! `iofit predict` apart from the command line: a VM and its volumes (`COUNTxSKU[:CACHING]`)
//! under a workload given by flags, by a requirements file (one target per volume) or by a
//! fio job file (one volume per directory its jobs do IO in), predicted limit by limit. The
//! binary parses flags into a [`PredictRequest`], calls [`predict`] and prints
//! [`PredictOutcome::text`] or [`PredictOutcome::json`].

use crate::error::shown;
use crate::plan::ReportRequest;
use crate::plan::{check_report, parse_size, read_requirements, write_report, CatalogChoice};
use crate::ProcedureError;
use iofit_catalog::{Catalog, DiskSku, TableInfo, VmSize};
use iofit_model::job::TargetLoad;
use iofit_model::units::Millis;
use iofit_model::{Bytes, Requirements, RwMode, SizingTarget, Workload};
use iofit_predict::disk_spec::resolve_volume;
use iofit_predict::{Alternatives, Assumptions, DiskPerf, Prediction, VolumeLoad};
use iofit_report::html::HtmlReport;
use std::path::{Path, PathBuf};

type Result<T> = std::result::Result<T, ProcedureError>;

fn bad(message: impl Into<String>) -> ProcedureError {
    ProcedureError::BadInput(message.into())
}

/// The bounds of `--iodepth` and `--numjobs`: those of the job options (`model::limits`).
pub use iofit_model::limits::{MAX_IODEPTH, MAX_NUMJOBS};

/// Size, IOPS and MB/s per disk of a Premium SSD v2 or Ultra volume (the `--provisioned-*`
/// flags), for the specs that do not say it themselves.
pub use iofit_predict::disk_spec::Bought as Provisioned;

/// Everything `iofit predict` asks for; texts are as the user wrote them.
#[derive(Clone, Debug, Default)]
pub struct PredictRequest {
    pub vm: String,
    /// One `[LABEL=]COUNTxSKU[:CACHING][,size_gib=N,iops=N,mb_s=N]` per volume.
    pub disks: Vec<String>,
    /// Stripe unit: none, once for every volume or once per volume.
    pub stripe: Vec<String>,
    /// IO pattern: once for every volume or once per volume.
    pub rw: Vec<String>,
    pub rwmixread: f64,
    /// IO size: once for every volume or once per volume.
    pub bs: Vec<String>,
    pub iodepth: Option<i64>,
    pub numjobs: Option<i64>,
    pub requirements: Option<PathBuf>,
    pub job: Option<PathBuf>,
    pub service_latency_ms: Option<Millis>,
    pub cache_hit_pct: f64,
    pub provisioned: Provisioned,
    pub catalog: CatalogChoice,
    pub report: Option<ReportRequest>,
}

/// A prediction with what it was made from.
#[derive(Clone, Debug)]
pub struct PredictOutcome {
    pub edition: String,
    /// The catalog tables the prediction used.
    pub tables: Vec<TableInfo>,
    pub prediction: Prediction,
    pub requirements: Option<Requirements>,
    /// The job file's loads, one per volume, with `--job`.
    pub job_loads: Option<Vec<TargetLoad>>,
    /// Which prices the alternatives were given at, with a price choice.
    pub price_notes: Vec<String>,
    /// The disks as given, for the report's title.
    pub disks: Vec<String>,
    /// The design's monthly cost, VM and disks apart, when the catalog prices them.
    pub cost: Option<iofit_report::summary::CostSplit>,
}

impl PredictOutcome {
    /// What `iofit predict` prints.
    pub fn text(&self) -> String {
        let mut out = iofit_report::predict_text::render(&self.prediction);
        if let Some(cost) = &self.cost {
            let split = match cost.total_usd_month {
                Some(_) => format!(" = {}", cost.split_text()),
                // Premium SSD v2 and Ultra are priced by what is bought: plan prices them.
                None => " (Premium SSD v2 and Ultra disks: iofit plan prices them)".into(),
            };
            out.push_str(&format!(
                "cost: {}{split} ({})\n",
                cost.total_text(),
                cost.basis
            ));
        }
        for note in &self.price_notes {
            out.push_str(&format!("note: {note}\n"));
        }
        if let Some(loads) = &self.job_loads {
            out.push_str(&iofit_report::predict_text::job_lines(
                loads,
                &self.prediction,
            ));
        }
        out
    }

    /// What `iofit predict --json` prints.
    pub fn json(&self) -> serde_json::Value {
        let mut value = serde_json::json!({
            "edition": self.edition,
            "tables": self.tables,
            "prediction": self.prediction,
        });
        if !self.price_notes.is_empty() {
            value["price_notes"] = serde_json::json!(self.price_notes);
        }
        if let Some(cost) = &self.cost {
            value["cost"] = serde_json::json!(cost);
        }
        value
    }

    /// The `--report` document.
    pub fn report(&self) -> HtmlReport {
        let mut report = HtmlReport::new(format!(
            "iofit predict: {} with {}",
            self.prediction.vm,
            self.disks.join(", ")
        ))
        .summary(iofit_report::summary::Summary {
            cost: self.cost.clone(),
            ..iofit_report::summary::Summary::for_prediction(&self.prediction)
        });
        if let Some(requirements) = &self.requirements {
            report = report.requirements(requirements);
        }
        report.prediction(&self.prediction)
    }

    /// Whether the design can be built (exit 0); an impossible one (too many disks for the
    /// VM, premium disks on a standard VM) fails like a missed requirement.
    pub fn fits(&self) -> bool {
        self.prediction.fits()
    }
}

/// The design's monthly cost from `catalog` (the priced view with --region/--pricing/--os):
/// the VM's price and each fixed-size disk's times its count. `None` when the VM has no price;
/// disks the catalog does not price (Premium SSD v2, Ultra: priced by what is bought) leave the
/// disks' part unknown and say so through `price not sourced`. `priced_view`: `catalog` is the
/// priced view, whose prices are all in its one currency.
fn design_cost(
    catalog: &Catalog,
    priced_view: bool,
    edition: &str,
    vm_name: &str,
    loads: &[VolumeLoad],
) -> Option<iofit_report::summary::CostSplit> {
    let vm = catalog.vm(vm_name, edition).ok()?;
    let vm_usd_month = vm.price_usd_month?;
    let currency = catalog.currency_of(&vm.table);
    // A disk priced in another currency than the VM leaves the disks' part unknown: prices
    // are never converted or added across currencies. (In a priced view every price is in
    // the view's currency, whatever the disk table's own.)
    let disks_usd_month = loads.iter().try_fold(0.0, |sum, load| {
        let disk = catalog.disk(&load.design.disk_sku, edition).ok()?;
        let price = disk
            .price_usd_month
            .filter(|_| priced_view || catalog.currency_of(&disk.table) == currency)?;
        Some(sum + price * f64::from(load.design.disk_count))
    });
    // Standard SSD/HDD disks are also charged per operation, which a prediction does not count.
    let charged_per_operation = loads.iter().any(|load| {
        catalog
            .disk(&load.design.disk_sku, edition)
            .is_ok_and(|disk| disk.price_usd_per_10k_operations.is_some())
    });
    let tables: Vec<&TableInfo> = catalog.tables_in(edition).collect();
    Some(iofit_report::summary::CostSplit {
        vm_usd_month: Some(vm_usd_month),
        disks_usd_month,
        operations_usd_month: None,
        total_usd_month: disks_usd_month.map(|disks| vm_usd_month + disks),
        complete: disks_usd_month.is_some() && !charged_per_operation,
        basis: iofit_report::summary::table_price_basis(&vm.table, &tables),
        currency: currency.to_string(),
    })
}

/// A count flag within 1..=max (IOs in flight per job, jobs per volume).
fn positive(flag: &str, value: Option<i64>, default: u32, max: u32) -> Result<u32> {
    match value {
        None => Ok(default),
        Some(v) if v >= 1 && v <= i64::from(max) => Ok(v as u32),
        Some(v) => Err(bad(format!("{flag} {v}: write a whole number 1..{max}"))),
    }
}

/// The job file's load per place (parse-only: the job's targets need not exist here).
fn job_loads(path: &Path) -> Result<Vec<TargetLoad>> {
    let options = iofit_jobfile::ParseOptions {
        skip_target_checks: true,
        ..Default::default()
    };
    let jobs = iofit_jobfile::fio::parse_file(path, &options)?;
    Ok(iofit_model::job::loads_by_place(&jobs))
}

/// A flag given once (every volume) or once per volume, as one value per volume.
fn per_volume(flag: &str, values: &[String], volumes: usize) -> Result<Vec<String>> {
    match values.len() {
        1 => Ok(vec![values[0].clone(); volumes]),
        n if n == volumes => Ok(values.to_vec()),
        n => Err(bad(format!(
            "{flag} given {n} times for {volumes} --disk; give it once (every volume) or \
             once per --disk, in order"
        ))),
    }
}

/// The workload of every volume as the flags describe it: patterns and sizes.
struct FlagWorkloads {
    rws: Vec<RwMode>,
    sizes: Vec<Bytes>,
}

fn flag_workloads(request: &PredictRequest) -> Result<FlagWorkloads> {
    let volumes = request.disks.len();
    let rws = per_volume("--rw", &request.rw, volumes)?
        .iter()
        .map(|text| RwMode::parse(text).map_err(|e| bad(format!("--rw {e}"))))
        .collect::<Result<Vec<RwMode>>>()?;
    let sizes = per_volume("--bs", &request.bs, volumes)?
        .iter()
        .map(|text| parse_size("--bs", text))
        .collect::<Result<Vec<_>>>()?;
    if !(0.0..=100.0).contains(&request.rwmixread) {
        return Err(bad(format!(
            "--rwmixread {}: must be within 0..=100",
            shown(request.rwmixread)
        )));
    }
    Ok(FlagWorkloads { rws, sizes })
}

/// Checks that a requirements file and a job file each describe as many volumes as --disk.
fn check_volume_counts(
    request: &PredictRequest,
    requirements: Option<&Requirements>,
    loads: Option<&[TargetLoad]>,
) -> Result<()> {
    let disks = request.disks.len();
    if let (Some(requirements), Some(path)) = (requirements, &request.requirements) {
        if requirements.volumes.len() != disks {
            return Err(bad(format!(
                "{} has {} volume(s) but {disks} --disk given; give one --disk per [[volumes]] entry, in order",
                path.display(),
                requirements.volumes.len(),
            )));
        }
    }
    if let Some(loads) = loads {
        if loads.len() != disks {
            let places: Vec<String> = loads
                .iter()
                .map(|l| l.place.display().to_string())
                .collect();
            return Err(bad(format!(
                "--job: the jobs do IO in {} place(s) ({}) but {disks} --disk given; give one --disk per place, in this order",
                loads.len(),
                places.join(", "),
            )));
        }
    }
    Ok(())
}

/// The workload a requirement asks of a volume: one operating point that meets both its IOPS
/// and its MB/s, at the queue depth `plan` checks its designs at (one rule for both,
/// [`iofit_planner::queue_depths`]: the depth where the disks reach their limits), so a plan's
/// design predicted from the same requirements gives the plan's answer. --iodepth and
/// --numjobs, when given, win. The application's own average queue (a capture's aqu-sz, in
/// `sizing.queue_depth`) was measured at the old disks' latency; it is not the depth here.
fn requirement_workload(
    request: &PredictRequest,
    sizing: &SizingTarget,
    disk: &DiskPerf,
    disk_count: u32,
    assumptions: &Assumptions,
) -> Result<Workload> {
    let (wanted, io_size) = iofit_planner::operating_point(sizing, assumptions.mb.bytes_per_mb());
    let service_ms = assumptions
        .service_latency_ms_for(disk.kind, sizing.read_pct)
        .get();
    let queue = iofit_planner::queue_depths(wanted, service_ms, disk.iops.get(), disk_count);
    let (default_depth, default_jobs) = match request.numjobs {
        None if request.iodepth.is_none() => (queue.limit_depth, queue.limit_threads),
        None => (queue.limit_depth, 1),
        Some(jobs) => (
            queue
                .to_limits
                .div_ceil(jobs.clamp(1, MAX_NUMJOBS as i64) as u32),
            1,
        ),
    };
    let depth = positive("--iodepth", request.iodepth, default_depth, MAX_IODEPTH)?;
    let jobs = positive("--numjobs", request.numjobs, default_jobs, MAX_NUMJOBS)?;
    Ok(Workload::new(
        sizing.read_pct,
        sizing.random_pct,
        io_size,
        depth,
        jobs,
    ))
}

/// Where a capture's own average queue (`sizing.queue_depth`) is below what Little's law
/// needs for the target at the service time: the prediction runs at plan's depth, and the
/// application must keep that many IOs in flight on the new disks to reach its target.
fn own_depth_warnings(
    requirements: &Requirements,
    loads: &[VolumeLoad],
    assumptions: &Assumptions,
) -> Vec<iofit_predict::Warning> {
    use iofit_predict::Warning;
    let mb = assumptions.mb.bytes_per_mb();
    requirements
        .volumes
        .iter()
        .zip(loads)
        .filter_map(|(volume, load)| {
            let own = volume.sizing.queue_depth?;
            let (wanted, _) = iofit_planner::operating_point(&volume.sizing, mb);
            let service_ms = assumptions
                .service_latency_ms_for(load.disk.kind, volume.sizing.read_pct)
                .get();
            let queue = iofit_planner::queue_depths(
                wanted,
                service_ms,
                load.disk.iops.get(),
                load.design.disk_count,
            );
            (own < f64::from(queue.littles_law)).then(|| Warning::CapturedDepthShort {
                volume: load.design.label.clone(),
                captured_depth: own,
                target_iops: wanted,
                service_ms,
                littles_law_depth: queue.littles_law,
                plan_depth: queue.to_limits,
            })
        })
        .collect()
}

/// The workload the flags give volume `index`.
fn flag_workload(
    request: &PredictRequest,
    flags: &FlagWorkloads,
    index: usize,
) -> Result<Workload> {
    let rw = flags.rws[index];
    let read_pct = match (rw.has_reads(), rw.has_writes()) {
        (true, false) => 100.0,
        (false, true) => 0.0,
        _ => request.rwmixread,
    };
    Ok(Workload::new(
        read_pct,
        if rw.is_random() { 100.0 } else { 0.0 },
        flags.sizes[index],
        positive("--iodepth", request.iodepth, 32, MAX_IODEPTH)?,
        positive("--numjobs", request.numjobs, 1, MAX_NUMJOBS)?,
    ))
}

/// Each volume's design, disk row and workload.
fn volume_loads(
    request: &PredictRequest,
    catalog: &Catalog,
    assumptions: &Assumptions,
    requirements: Option<&Requirements>,
    job_loads: Option<&[TargetLoad]>,
) -> Result<Vec<VolumeLoad>> {
    let stripes: Vec<Option<Bytes>> = if request.stripe.is_empty() {
        vec![None; request.disks.len()]
    } else {
        per_volume("--stripe", &request.stripe, request.disks.len())?
            .iter()
            .map(|s| parse_size("--stripe", s).map(Some))
            .collect::<Result<_>>()?
    };
    let flags = flag_workloads(request)?;
    let mut loads = Vec::with_capacity(request.disks.len());
    for (index, spec) in request.disks.iter().enumerate() {
        let (mut design, disk) = resolve_volume(
            catalog,
            &request.catalog.edition,
            spec,
            index,
            request.provisioned,
        )
        .map_err(|e| match e.missing_figures {
            true => bad(format!(
                "{e}, or give --provisioned-size-gib, --provisioned-iops and --provisioned-mb-s"
            )),
            false => bad(e.to_string()),
        })?;
        let requirement = requirements.map(|r| &r.volumes[index]);
        // A label the spec gives wins; otherwise the requirement's volume names it.
        let labelled = spec.split_once('=').is_some_and(|(l, _)| !l.contains(','));
        if let (Some(volume), false) = (requirement, labelled) {
            design.label = volume.label.clone();
        }
        if design.disk_count > 1 {
            design.stripe_size = stripes[index];
        }
        let (workload, target) = match (requirement, job_loads) {
            (Some(volume), _) => (
                requirement_workload(
                    request,
                    &volume.sizing,
                    &disk,
                    design.disk_count,
                    assumptions,
                )?,
                Some(volume.sizing.clone()),
            ),
            (None, Some(loads)) => (loads[index].workload.clone(), None),
            (None, None) => (flag_workload(request, &flags, index)?, None),
        };
        loads.push(VolumeLoad {
            design,
            disk,
            workload,
            target,
        });
    }
    Ok(loads)
}

/// Predicts the design under the workload, checks the report's path before any work, and
/// writes the report if asked.
pub fn predict(request: &PredictRequest) -> Result<PredictOutcome> {
    let edition = request.catalog.edition.clone();
    let catalog = request.catalog.load()?;
    let vm: &VmSize = catalog
        .vm(&request.vm, &edition)
        .map_err(|e| bad(e.to_string()))?;
    let assumptions = crate::inputs::assumptions_for(
        &edition,
        request.service_latency_ms,
        request.cache_hit_pct,
    )?;
    let mut inputs: Vec<PathBuf> = request.requirements.iter().cloned().collect();
    inputs.extend(request.catalog.files.iter().cloned());
    inputs.extend(request.job.iter().cloned());
    check_report(request.report.as_ref(), &inputs)?;
    let requirements = request
        .requirements
        .as_deref()
        .map(read_requirements)
        .transpose()?;
    let job_loads = request.job.as_deref().map(job_loads).transpose()?;
    check_volume_counts(request, requirements.as_ref(), job_loads.as_deref())?;
    let loads = volume_loads(
        request,
        &catalog,
        &assumptions,
        requirements.as_ref(),
        job_loads.as_deref(),
    )?;
    // With a price choice the alternatives are the sizes priced so (the named VM is
    // predicted whatever its price).
    let (alternatives, price_notes) = match request.catalog.price_choice()? {
        Some(choice) => {
            crate::plan::check_region(&catalog, &edition, &choice)?;
            crate::plan::check_currency(&catalog, &edition, &choice)?;
            let view = catalog.priced_for(&edition, &choice);
            let notes = view.notes();
            (Some(view.catalog), notes)
        }
        None => (None, Vec::new()),
    };
    let source = alternatives.as_ref().unwrap_or(&catalog);
    let vms: Vec<VmSize> = source.vms_in(&edition).cloned().collect();
    let disks: Vec<DiskSku> = source.disks_in(&edition).cloned().collect();
    let prediction = iofit_predict::predict(
        vm,
        &loads,
        &assumptions,
        Some(Alternatives {
            vms: &vms,
            disks: &disks,
        }),
    )
    .map_err(|e| bad(e.to_string()))?;
    let mut prediction = prediction;
    if let (Some(requirements), None, None) = (&requirements, request.iodepth, request.numjobs) {
        prediction
            .warnings
            .extend(own_depth_warnings(requirements, &loads, &assumptions));
    }
    let cost = design_cost(
        alternatives.as_ref().unwrap_or(&catalog),
        alternatives.is_some(),
        &edition,
        &request.vm,
        &loads,
    );
    let outcome = PredictOutcome {
        cost,
        tables: (catalog.tables_in(&edition))
            .filter(|t| prediction.tables.contains(&t.id))
            .cloned()
            .collect(),
        edition,
        prediction,
        requirements,
        job_loads,
        price_notes,
        disks: request.disks.clone(),
    };
    if let Some(report) = &request.report {
        write_report(&report.path, report.format, &outcome.report())?;
    }
    Ok(outcome)
}
