//! `iofit plan`: requirements (from flags or a TOML file) + catalog -> designs ranked by cost.

use super::shared::{CatalogArgs, OutputArgs};
use super::{emit, exit_for, print_json_or_text};
use iofit_catalog::clouds::Cloud;
use iofit_planner::EXAMPLE_REQUIREMENTS;
use iofit_procedure::plan::{
    CatalogChoice, PlanRequest, ReportRequest, RequirementsSource, VolumeFlags,
};
use iofit_procedure::plan_clouds::CloudChoice;
use iofit_procedure::plan_cmd;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Exit codes: 0 designs found, 1 no design meets the requirements, 2 bad input."
)]
pub struct Args {
    /// IOPS the volume must sustain.
    #[arg(long, allow_negative_numbers = true, value_parser = plan_cmd::plain_number)]
    pub iops: Option<f64>,
    /// Throughput the volume must sustain, MB/s (1 MB = 10^6 bytes).
    #[arg(long = "throughput-mb-s", allow_negative_numbers = true, value_parser = plan_cmd::plain_number)]
    pub throughput_mb_s: Option<f64>,
    /// Highest acceptable average latency per IO, ms.
    #[arg(long = "latency-ms", allow_negative_numbers = true, value_parser = plan_cmd::plain_number)]
    pub latency_ms: Option<f64>,
    /// Capacity the volume must hold, GiB.
    #[arg(long = "capacity-gib", allow_negative_numbers = true, value_parser = plan_cmd::plain_number)]
    pub capacity_gib: Option<f64>,
    /// Share of reads, 0..100.
    #[arg(
        long = "read-pct",
        allow_negative_numbers = true,
        default_value_t = 50.0
    )]
    pub read_pct: f64,
    /// Share of random IO, 0..100.
    #[arg(
        long = "random-pct",
        allow_negative_numbers = true,
        default_value_t = 100.0
    )]
    pub random_pct: f64,
    /// Typical IO size (8k, 64KiB, 1m; k = 1024).
    #[arg(long = "io-size", default_value = "8k")]
    pub io_size: String,
    /// What the volume is for: data, log, temp, os, other (logs get caching None).
    #[arg(long, default_value = "data")]
    pub role: String,
    /// A requirements TOML, as `iofit profile -o` writes it. One or more volumes, instead of the
    /// flags above.
    #[arg(long, value_name = "FILE")]
    pub requirements: Option<PathBuf>,
    /// Expected growth factor of the requirements (1.3 = 30 % more). Multiplies IOPS, MB/s and
    /// capacity [default: 1, none].
    #[arg(long, allow_negative_numbers = true)]
    pub growth: Option<f64>,
    /// How many designs the plan shows.
    #[arg(long, default_value_t = 5)]
    pub top: usize,
    /// Host caching of the data disks: none, readonly or readwrite. Forced on every volume
    /// (ReadWrite only this way).
    #[arg(long)]
    pub caching: Option<String>,
    /// Share of reads on cached disks that the host cache serves, %. When sizing; 0 is a cold cache.
    #[arg(
        long = "cache-hit-pct",
        allow_negative_numbers = true,
        default_value_t = 0.0
    )]
    pub cache_hit_pct: f64,
    /// Service time of one IO on an unthrottled SSD disk, ms (Little's law): replaces the 1 ms
    /// assumed for Premium SSD, Premium SSD v2 and Ultra and the 10 ms bound taken for Standard
    /// SSD (Azure: "single-digit millisecond"). Standard HDD keeps Azure's < 20/10 ms bounds
    /// [default: 1 ms on Premium SSD, v2 and Ultra; 10 ms on Standard SSD].
    #[arg(long = "service-latency-ms", allow_negative_numbers = true)]
    pub service_latency_ms: Option<f64>,
    #[command(flatten)]
    pub catalog: CatalogArgs,
    #[command(flatten)]
    pub filters: VmFilterArgs,
    /// Headroom to keep below every limit the plan sizes against (disk and stripe IOPS and
    /// MB/s, the VM's uncached and cached IOPS and MB/s, data-disk slots), percent of the limit.
    /// Default 10: measured workloads fluctuate around the figures they are sized for, and
    /// Azure limits throttle rather than fail, so a design at 0% headroom is throttled by the
    /// first peak. 0 restores the strict fit. Capacity is sized without headroom.
    #[arg(
        long = "min-headroom-pct",
        allow_negative_numbers = true,
        default_value_t = iofit_planner::DEFAULT_MIN_HEADROOM_PCT
    )]
    pub min_headroom_pct: f64,
    /// Hours a month the volumes run at the sized IOPS, for the per-operation charge Standard
    /// SSD and Standard HDD bill on top of their monthly price. Default 730 (Azure's month,
    /// i.e. sustained load: an upper bound for a workload busy only part of the day).
    #[arg(
        long = "busy-hours-per-month",
        allow_negative_numbers = true,
        default_value_t = iofit_planner::HOURS_PER_MONTH
    )]
    pub busy_hours_per_month: f64,
    #[command(flatten)]
    pub output: OutputArgs,
    /// With --report: the capture(s) the requirements were profiled from (iostat, sar, sadf,
    /// PerfMon, Azure Monitor; repeatable). The report then draws each volume's IOPS, MB/s,
    /// latency and queue depth over the capture against design #1's limits and the next
    /// cheaper VM's, and counts the intervals that would have throttled. The requirements
    /// must name their devices (a file from `iofit profile CAPTURE -o FILE`).
    #[arg(long, value_name = "FILE", requires = "report")]
    pub capture: Vec<PathBuf>,
    /// The cloud: azure, aws, gcp, or all (plan only: the cheapest design of each side by
    /// side) [default: azure].
    #[arg(long, default_value = "azure")]
    pub cloud: CloudChoice,
    /// With --cloud aws|all: the sized peak lasts at most the instance's burst window (30
    /// minutes per 24 hours), so an instance's EBS maximum may carry it, not only its baseline.
    #[arg(long = "burst-tolerant")]
    pub burst_tolerant: bool,
    /// Print a documented requirements file (that --requirements reads back) and exit.
    #[arg(long = "example-requirements")]
    pub example_requirements: bool,
    /// Plan a fleet: every *.toml in DIR (from `iofit profile --fleet-out DIR`) is one server;
    /// prints one table (server, volumes, VM, disks, monthly cost, binding limit, headroom).
    #[arg(long, value_name = "DIR", conflicts_with = "requirements")]
    pub fleet: Option<PathBuf>,
    /// With --fleet: also write the table as CSV to FILE.
    #[arg(long = "fleet-csv", value_name = "FILE", requires = "fleet")]
    pub fleet_csv: Option<PathBuf>,
    /// With --fleet: also write the table as a self-contained HTML page to FILE.
    #[arg(long = "fleet-html", value_name = "FILE", requires = "fleet")]
    pub fleet_html: Option<PathBuf>,
}

/// Which VM sizes the plan may use (also a requirements file's `[filters]` table; the flags
/// win).
#[derive(clap::Args, Debug, Default)]
pub struct VmFilterArgs {
    /// CPU architecture of the VM sizes: x64, arm64 or any [default: any; x64 for requirements
    /// profiled from a PerfMon (Windows) capture].
    #[arg(long)]
    pub arch: Option<String>,
    /// Only these VM families (Dsv5, Esv5, ...; repeatable or comma-separated).
    #[arg(long = "family", value_delimiter = ',')]
    pub families: Vec<String>,
    /// Leave out these VM families (repeatable or comma-separated).
    #[arg(long = "exclude-family", value_delimiter = ',')]
    pub exclude_families: Vec<String>,
    /// Leave out burstable sizes (B-series: CPU credits, not a sustained vCPU).
    #[arg(long = "no-burstable")]
    pub no_burstable: bool,
    /// Only VM sizes with at least this many vCPUs.
    #[arg(long = "min-vcpu")]
    pub min_vcpu: Option<u32>,
    /// Only sizes with at least this much memory, GiB.
    #[arg(long = "min-memory-gib", allow_negative_numbers = true)]
    pub min_memory_gib: Option<f64>,
    /// Keep sizes Azure has announced to retire within the plan's horizon (36 months); each
    /// design names its retirement date.
    #[arg(long = "include-retiring")]
    pub include_retiring: bool,
}

impl VmFilterArgs {
    fn filters(&self) -> iofit_procedure::vm_filters::VmFilters {
        iofit_procedure::vm_filters::VmFilters {
            arch: self.arch.clone(),
            families: self.families.clone(),
            exclude_families: self.exclude_families.clone(),
            no_burstable: self.no_burstable,
            min_vcpu: self.min_vcpu,
            min_memory_gib: self.min_memory_gib.map(iofit_model::units::GiB),
            include_retiring: self.include_retiring,
        }
    }
}

/// The plan request the flags describe, with `report` (none for `--fleet`).
fn request(args: &Args, report: Option<ReportRequest>) -> anyhow::Result<PlanRequest> {
    let flags = VolumeFlags {
        iops: args.iops.map(iofit_model::units::Iops),
        throughput_mb_s: args.throughput_mb_s.map(iofit_model::units::MBps),
        latency_ms: args.latency_ms.map(iofit_model::units::Millis),
        capacity_gib: args.capacity_gib.map(iofit_model::units::GiB),
        read_pct: args.read_pct,
        random_pct: args.random_pct,
        io_size: args.io_size.clone(),
        role: args.role.clone(),
    };
    let requirements = RequirementsSource::choose(args.requirements.clone(), flags)?;
    Ok(PlanRequest {
        requirements,
        growth: args.growth,
        top: args.top,
        caching: args.caching.clone(),
        cache_hit_pct: args.cache_hit_pct,
        service_latency_ms: args.service_latency_ms.map(iofit_model::units::Millis),
        min_headroom_pct: args.min_headroom_pct,
        busy_hours_per_month: args.busy_hours_per_month,
        catalog: CatalogChoice {
            filters: args.filters.filters(),
            ..args.catalog.choice()
        },
        report,
        capture: args.capture.clone(),
    })
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.example_requirements && args.cloud == CloudChoice::One(Cloud::Azure) {
        emit(EXAMPLE_REQUIREMENTS)?;
        return Ok(ExitCode::SUCCESS);
    }
    let (fleet, report) = (args.fleet.is_some(), args.output.report.is_some());
    plan_cmd::check_cloud_flags(args.cloud, args.burst_tolerant, fleet, report)?;
    if let Some(dir) = &args.fleet {
        let threads = crate::cmd::fleet::threads();
        let request = plan_cmd::fleet_request(dir.clone(), &request(&args, None)?, threads);
        let outputs = iofit_procedure::fleet_plan::FleetOutputs {
            csv: args.fleet_csv.clone(),
            html: args.fleet_html.clone(),
            allow_overwrite: args.output.allow_overwrite,
        };
        return crate::cmd::fleet::plan(&request, &outputs, args.output.json);
    }
    let request = request(&args, args.output.report_flags().request()?)?;
    let outcome = plan_cmd::plan_on(args.cloud, &request, args.burst_tolerant)?;
    print_json_or_text(args.output.json, || outcome.json(), || outcome.text())?;
    Ok(exit_for(outcome.found()))
}
