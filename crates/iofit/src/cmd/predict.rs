//! `iofit predict`: what a design (VM + volumes) delivers for a workload, every limit with its
//! headroom, and the one that binds.

use super::plan::{
    assumptions_for, emit, parse_size, read_requirements, tables_of, write_report, CatalogArgs,
    OutputArgs,
};
use crate::exit::bad_input;
use iofit_catalog::{Catalog, DiskSku, VmSize};
use iofit_model::{RwMode, SizingTarget, VolumeDesign, Workload};
use iofit_predict::{Alternatives, DiskPerf, VolumeLoad};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Exit codes: 0 predicted (and requirements met, if given), 1 requirements not met, 2 bad input."
)]
pub struct Args {
    /// VM size, e.g. Standard_DS14 (any case; the Standard_ prefix may be left out).
    #[arg(long)]
    pub vm: String,
    /// A volume: COUNTxSKU[:CACHING], e.g. 10xP30:none or 1xP30:readonly. Repeat per volume.
    #[arg(long = "disk", required = true, value_name = "SPEC")]
    pub disks: Vec<String>,
    /// Stripe unit of multi-disk volumes (64k for small random IO, 256k for sequential).
    #[arg(long)]
    pub stripe: Option<String>,
    /// IO pattern, as fio names it: read, write, randread, randwrite, rw, randrw. Once for
    /// every volume, or once per --disk in the same order (e.g. writes to an uncached stripe,
    /// reads to a cached disk, as the seed's DS14 benchmark does).
    #[arg(long, default_value = "randread")]
    pub rw: Vec<String>,
    /// Share of reads for rw/randrw, 0..100.
    #[arg(long, allow_negative_numbers = true, default_value_t = 50.0)]
    pub rwmixread: f64,
    /// IO size (8k, 64k, 1m; k = 1024). Once for every volume, or once per --disk.
    #[arg(long, default_value = "8k")]
    pub bs: Vec<String>,
    /// IOs in flight per job [default: with --requirements, what Little's law needs for the
    /// target (or the application's own queue depth), at least one per disk; otherwise 32].
    #[arg(long, allow_negative_numbers = true)]
    pub iodepth: Option<i64>,
    /// Jobs (threads) per volume [default: 1].
    #[arg(long, allow_negative_numbers = true)]
    pub numjobs: Option<i64>,
    /// Targets per volume from a requirements TOML, matched to --disk in order.
    #[arg(long, value_name = "FILE")]
    pub requirements: Option<PathBuf>,
    /// A fio job file as the workload: its jobs are grouped by the directory they do IO in
    /// (in order of first appearance), one --disk per directory; rw, bs/bssplit,
    /// iodepth x numjobs and rate limits come from the file.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["requirements", "iodepth", "numjobs"])]
    pub job: Option<PathBuf>,
    /// Service time of one IO on an unthrottled SSD disk, ms (Little's law): replaces the 1 ms
    /// assumed for Premium SSD, Premium SSD v2 and Ultra and the 10 ms bound taken for Standard
    /// SSD (Azure: "single-digit millisecond"). Standard HDD keeps Azure's < 20/10 ms bounds
    /// [default: 1 ms on Premium SSD, v2 and Ultra; 10 ms on Standard SSD].
    #[arg(long = "service-latency-ms", allow_negative_numbers = true)]
    pub service_latency_ms: Option<f64>,
    /// Share of reads on cached disks that the warm host cache serves.
    #[arg(
        long = "cache-hit-pct",
        allow_negative_numbers = true,
        default_value_t = 100.0
    )]
    pub cache_hit_pct: f64,
    /// For Premium SSD v2 / Ultra volumes: size, IOPS and MB/s provisioned per disk.
    #[arg(long = "provisioned-size-gib")]
    pub provisioned_size_gib: Option<f64>,
    #[arg(long = "provisioned-iops")]
    pub provisioned_iops: Option<f64>,
    #[arg(long = "provisioned-mb-s")]
    pub provisioned_mb_s: Option<f64>,
    #[command(flatten)]
    pub catalog: CatalogArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// fio's largest iodepth, and a thread count beyond any host.
const MAX_IODEPTH: u32 = 65_536;
const MAX_NUMJOBS: u32 = 4096;

/// A count flag within 1..=max (IOs in flight per job, jobs per volume).
fn positive(flag: &str, value: Option<i64>, default: u32, max: u32) -> anyhow::Result<u32> {
    match value {
        None => Ok(default),
        Some(v) if v >= 1 && v <= i64::from(max) => Ok(v as u32),
        Some(v) => Err(bad_input(format!(
            "{flag} {v}: write a whole number 1..{max}"
        ))),
    }
}

/// The disk row of a volume: a fixed SKU, or a provisioned type with the --provisioned flags.
fn disk_for(catalog: &Catalog, args: &Args, design: &mut VolumeDesign) -> anyhow::Result<DiskPerf> {
    match catalog.disk(&design.disk_sku, &args.catalog.edition) {
        Ok(sku) => {
            design.disk_sku = sku.name.clone();
            Ok(DiskPerf::from(sku))
        }
        Err(fixed_error) => {
            let Ok(kind) = catalog.provisioned_disk(&design.disk_sku, &args.catalog.edition) else {
                return Err(bad_input(fixed_error));
            };
            let (Some(size), Some(iops), Some(mb)) = (
                args.provisioned_size_gib,
                args.provisioned_iops,
                args.provisioned_mb_s,
            ) else {
                return Err(bad_input(format!(
                    "{} is provisioned per disk: give --provisioned-size-gib, \
                     --provisioned-iops and --provisioned-mb-s",
                    kind.name
                )));
            };
            design.disk_sku = kind.name.clone();
            design.provisioned_size_gib = Some(size);
            design.provisioned_iops = Some(iops);
            design.provisioned_throughput_mb_s = Some(mb);
            DiskPerf::from_provisioned(kind, size, iops, mb).map_err(bad_input)
        }
    }
}

/// The job file's load per place (parse-only: the job's targets need not exist here).
fn job_loads(path: &std::path::Path) -> anyhow::Result<Vec<iofit_model::job::TargetLoad>> {
    let options = iofit_jobfile::ParseOptions {
        skip_target_checks: true,
        ..Default::default()
    };
    let jobs = iofit_jobfile::fio::parse_file(path, &options).map_err(bad_input)?;
    Ok(iofit_model::job::loads_by_place(&jobs))
}

/// Which jobs each volume carries, and the rate limits the job file itself sets.
fn job_lines(
    loads: &[iofit_model::job::TargetLoad],
    prediction: &iofit_predict::Prediction,
) -> String {
    let mut out = String::from("\nJob file\n");
    for (load, volume) in loads.iter().zip(&prediction.volumes) {
        let w = &load.workload;
        let sizes = match (w.read_pct > 0.0, w.read_pct < 100.0) {
            (true, true) => format!(
                "{} reads / {} writes",
                w.read_io_size.readable(),
                w.write_io_size.readable()
            ),
            (true, false) => format!("{} reads", w.read_io_size.readable()),
            _ => format!("{} writes", w.write_io_size.readable()),
        };
        out.push_str(&format!(
            "  {} <- {} ({}): {:.0}% reads, {:.0}% random, {sizes}, {} threads x QD {}\n",
            volume.label,
            load.place.display(),
            load.jobs.join(", "),
            w.read_pct,
            w.random_pct,
            w.threads,
            w.queue_depth,
        ));
        if let Some(cap) = load.rate_iops_cap {
            out.push_str(&format!(
                "    rate_iops x numjobs caps this volume at {} IOPS: the job gets {} IOPS (the design's {} or the cap, the lower)\n",
                iofit_model::units::group_thousands(cap),
                iofit_model::units::group_thousands(cap.min(volume.max_iops)),
                iofit_model::units::group_thousands(volume.max_iops),
            ));
        }
        if let Some(cap) = load.rate_bytes_per_second_cap {
            out.push_str(&format!(
                "    rate x numjobs caps this volume at {:.1} MiB/s whatever the design delivers\n",
                cap / (1024.0 * 1024.0)
            ));
        }
    }
    out
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let catalog = args.catalog.load()?;
    let mut alternatives: Option<iofit_catalog::Catalog> = None;
    let vm: &VmSize = catalog
        .vm(&args.vm, &args.catalog.edition)
        .map_err(bad_input)?;
    let assumptions = assumptions_for(
        &args.catalog.edition,
        args.service_latency_ms,
        args.cache_hit_pct,
    )?;
    let format = args.output.report_format()?;
    if let Some(path) = &args.output.report {
        let mut inputs: Vec<PathBuf> = args.requirements.iter().cloned().collect();
        inputs.extend(args.catalog.files.iter().cloned());
        inputs.extend(args.job.iter().cloned());
        super::files::check_output(path, &inputs, "--report")?;
    }
    let stripe = args
        .stripe
        .as_deref()
        .map(|s| parse_size("--stripe", s))
        .transpose()?;
    let requirements = args
        .requirements
        .as_deref()
        .map(read_requirements)
        .transpose()?;
    if let Some(requirements) = &requirements {
        if requirements.volumes.len() != args.disks.len() {
            return Err(bad_input(format!(
                "{} has {} volume(s) but {} --disk given; give one --disk per [[volumes]] entry, in order",
                args.requirements.as_ref().unwrap().display(),
                requirements.volumes.len(),
                args.disks.len()
            )));
        }
    }
    let job_loads = args.job.as_deref().map(job_loads).transpose()?;
    if let Some(loads) = &job_loads {
        if loads.len() != args.disks.len() {
            let places: Vec<String> = loads
                .iter()
                .map(|l| l.place.display().to_string())
                .collect();
            return Err(bad_input(format!(
                "--job: the jobs do IO in {} place(s) ({}) but {} --disk given; give one --disk per place, in this order",
                loads.len(),
                places.join(", "),
                args.disks.len()
            )));
        }
    }
    let volumes = args.disks.len();
    let per_volume = |flag: &str, values: &[String]| -> anyhow::Result<Vec<String>> {
        match values.len() {
            1 => Ok(vec![values[0].clone(); volumes]),
            n if n == volumes => Ok(values.to_vec()),
            n => Err(bad_input(format!(
                "{flag} given {n} times for {volumes} --disk; give it once (every volume) or \
                 once per --disk, in order"
            ))),
        }
    };
    let rws = per_volume("--rw", &args.rw)?
        .iter()
        .map(|text| RwMode::parse(text).map_err(|e| bad_input(format!("--rw {e}"))))
        .collect::<anyhow::Result<Vec<RwMode>>>()?;
    let sizes = per_volume("--bs", &args.bs)?
        .iter()
        .map(|text| parse_size("--bs", text))
        .collect::<anyhow::Result<Vec<_>>>()?;
    if !(0.0..=100.0).contains(&args.rwmixread) {
        return Err(bad_input(format!(
            "--rwmixread {}: must be within 0..=100",
            iofit_procedure::shown(args.rwmixread)
        )));
    }
    let read_pct_of = |rw: RwMode| match (rw.has_reads(), rw.has_writes()) {
        (true, false) => 100.0,
        (false, true) => 0.0,
        _ => args.rwmixread,
    };
    let mut loads = Vec::with_capacity(args.disks.len());
    for (index, spec) in args.disks.iter().enumerate() {
        let mut design: VolumeDesign = spec.parse().map_err(bad_input)?;
        let requirement = requirements.as_ref().map(|r| &r.volumes[index]);
        design.label = match requirement {
            Some(volume) => volume.label.clone(),
            None => format!("vol{}", index + 1),
        };
        if design.disk_count > 1 {
            design.stripe_size = stripe;
        }
        let disk = disk_for(&catalog, &args, &mut design)?;
        let (workload, target): (Workload, Option<SizingTarget>) = match requirement {
            Some(volume) => {
                let sizing = &volume.sizing;
                // One operating point meets both the IOPS and the MB/s of the target.
                let (wanted, io_size) =
                    iofit_planner::operating_point(sizing, assumptions.mb.bytes_per_mb());
                // Without --iodepth: the app's own depth, else what Little's law asks for.
                let service_ms = assumptions.service_latency_ms_for(disk.kind, sizing.read_pct);
                let by_law = (wanted * service_ms / 1e3).ceil().max(1.0);
                let outstanding = sizing.queue_depth.unwrap_or(by_law).ceil().max(1.0) as u32;
                let depth = positive(
                    "--iodepth",
                    args.iodepth,
                    outstanding.max(design.disk_count),
                    MAX_IODEPTH,
                )?;
                let jobs = positive("--numjobs", args.numjobs, 1, MAX_NUMJOBS)?;
                (
                    Workload::new(sizing.read_pct, sizing.random_pct, io_size, depth, jobs),
                    Some(sizing.clone()),
                )
            }
            None if job_loads.is_some() => (
                job_loads.as_ref().expect("checked")[index].workload.clone(),
                None,
            ),
            None => (
                Workload::new(
                    read_pct_of(rws[index]),
                    if rws[index].is_random() { 100.0 } else { 0.0 },
                    sizes[index],
                    positive("--iodepth", args.iodepth, 32, MAX_IODEPTH)?,
                    positive("--numjobs", args.numjobs, 1, MAX_NUMJOBS)?,
                ),
                None,
            ),
        };
        loads.push(VolumeLoad {
            design,
            disk,
            workload,
            target,
        });
    }
    // With --region/--pricing/--os the alternatives are the sizes priced so (the named VM is
    // predicted whatever its price).
    let price_notes = match args.catalog.price_choice()? {
        Some(choice) => {
            let view = catalog.priced_for(&args.catalog.edition, &choice);
            alternatives = Some(view.catalog.clone());
            view.notes()
        }
        None => Vec::new(),
    };
    let source = alternatives.as_ref().unwrap_or(&catalog);
    let vms: Vec<VmSize> = source.vms_in(&args.catalog.edition).cloned().collect();
    let disks: Vec<DiskSku> = source.disks_in(&args.catalog.edition).cloned().collect();
    let prediction = iofit_predict::predict(
        vm,
        &loads,
        &assumptions,
        Some(Alternatives {
            vms: &vms,
            disks: &disks,
        }),
    )
    .map_err(bad_input)?;
    if let (Some(path), Some(format)) = (&args.output.report, format) {
        let mut report = iofit_report::html::HtmlReport::new(format!(
            "iofit predict: {} with {}",
            prediction.vm,
            args.disks.join(", ")
        ));
        if let Some(requirements) = &requirements {
            report = report.requirements(requirements);
        }
        write_report(path, format, &report.prediction(&prediction))?;
    }
    if args.output.json {
        let tables: Vec<_> = tables_of(&catalog, &args.catalog.edition)
            .into_iter()
            .filter(|t| prediction.tables.contains(&t.id))
            .collect();
        let mut value = serde_json::json!({
            "edition": args.catalog.edition,
            "tables": tables,
            "prediction": prediction,
        });
        if !price_notes.is_empty() {
            value["price_notes"] = serde_json::json!(price_notes);
        }
        emit(&format!("{}\n", serde_json::to_string_pretty(&value)?))?;
    } else {
        emit(&iofit_report::predict_text::render(&prediction))?;
        for note in &price_notes {
            emit(&format!("note: {note}\n"))?;
        }
        if let Some(loads) = &job_loads {
            emit(&job_lines(loads, &prediction))?;
        }
    }
    // An impossible design (too many disks for the VM, premium disks on a standard VM) fails
    // like a missed requirement: exit 1, whatever it would deliver.
    Ok(if !prediction.fits() {
        ExitCode::from(crate::exit::FAILED)
    } else {
        ExitCode::SUCCESS
    })
}
