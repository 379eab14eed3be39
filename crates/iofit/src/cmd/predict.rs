//! `iofit predict`: what a design (VM + volumes) delivers for a workload, every limit with its
//! headroom, and the one that binds.

use super::shared::{CatalogArgs, OutputArgs};
use super::{exit_for, print_json_or_text};
use iofit_jobfile::fio::option_names as opt;
use iofit_procedure::predict::{PredictRequest, Provisioned};
use iofit_procedure::predict_cmd::{predict_any, PredictFlags};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Exit codes: 0 predicted (and requirements met, if given), 1 requirements not met, 2 bad input."
)]
pub struct Args {
    /// The VM size, e.g. Standard_DS14 (any case; the Standard_ prefix may be left out).
    #[arg(long)]
    pub vm: String,
    /// A volume: [LABEL=]COUNTxSKU[:CACHING], e.g. data=2xP30:none; Premium SSD v2 and Ultra add
    /// what is bought per disk (,size_gib=N,iops=N,mb_s=N). Repeat per volume. With --cloud aws
    /// (and --vm an EC2 instance type such as m6i.2xlarge):
    /// [LABEL=]COUNTxTYPE[,size_gib=N][,iops=N][,mb_s=N|mib_s=N], TYPE gp3, gp2, io2 or st1.
    /// With --cloud gcp (--vm a machine type such as n2-standard-8): [LABEL=]TYPE,size_gib=N,
    /// TYPE pd-balanced, pd-ssd or pd-standard.
    #[arg(long = "disk", required = true, value_name = "SPEC")]
    pub disks: Vec<String>,
    /// Stripe unit of multi-disk volumes (64k for small random IO, 256k for sequential). Once
    /// for every volume, or once per --disk in the same order (as `plan` sizes them).
    #[arg(long)]
    pub stripe: Vec<String>,
    /// No credit bursting: the sustained limits only (the disks' and the VM's). Shows them as
    /// `emulate --no-burst` enforces them; without it a design that can burst shows a `burst:` line
    /// with how long credits last.
    #[arg(long)]
    pub no_burst: bool,
    /// The workload's IO pattern, as fio's rw: read, write, randread, randwrite, rw, randrw. Once
    /// for every volume, or once per --disk in the same order (e.g. writes to an uncached stripe,
    /// reads to a cached disk, as the seed's DS14 benchmark does).
    #[arg(long, default_value = "randread")]
    pub rw: Vec<String>,
    /// The workload's share of reads for rw/randrw, % (fio's rwmixread).
    #[arg(long, allow_negative_numbers = true, default_value_t = 50.0)]
    pub rwmixread: f64,
    /// The workload's IO size, as fio's bs (k = 1024). Once for every volume, or once per --disk.
    #[arg(long, default_value = "8k")]
    pub bs: Vec<String>,
    /// IOs in flight per job (fio's iodepth) [default: with --requirements, plan's rule: the
    /// depth at which the disks reach their limits (Little's law at the service time, at least
    /// the target's), split into jobs of at most 32; otherwise 32].
    #[arg(long, allow_negative_numbers = true)]
    pub iodepth: Option<i64>,
    /// Jobs (threads) per volume [default: 1].
    #[arg(long, allow_negative_numbers = true)]
    pub numjobs: Option<i64>,
    /// A requirements TOML, as `iofit profile -o` writes it. Targets per volume, matched to --disk
    /// in order.
    #[arg(long, value_name = "FILE")]
    pub requirements: Option<PathBuf>,
    /// A fio job file as the workload: its jobs are grouped by the directory they do IO in
    /// (in order of first appearance), one --disk per directory; rw, bs/bssplit,
    /// iodepth x numjobs and rate limits come from the file.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = ["requirements", opt::IODEPTH, opt::NUMJOBS]
    )]
    pub job: Option<PathBuf>,
    /// Service time of one IO on an unthrottled SSD disk, ms (Little's law): replaces the 1 ms
    /// assumed for Premium SSD, Premium SSD v2 and Ultra and the 10 ms bound taken for Standard
    /// SSD (Azure: "single-digit millisecond"). Standard HDD keeps Azure's < 20/10 ms bounds
    /// [default: 1 ms on Premium SSD, v2 and Ultra; 10 ms on Standard SSD].
    #[arg(long = "service-latency-ms", allow_negative_numbers = true)]
    pub service_latency_ms: Option<f64>,
    /// Share of reads on cached disks that the host cache serves, %. 100 is a warm cache.
    #[arg(
        long = "cache-hit-pct",
        allow_negative_numbers = true,
        default_value_t = 100.0
    )]
    pub cache_hit_pct: f64,
    /// For Premium SSD v2 / Ultra volumes whose --disk does not say it: size provisioned per
    /// disk, GiB.
    #[arg(long = "provisioned-size-gib")]
    pub provisioned_size_gib: Option<f64>,
    /// For Premium SSD v2 / Ultra volumes whose --disk does not say it: IOPS provisioned per
    /// disk (within the type's range for the size; e.g. 3000).
    #[arg(long = "provisioned-iops")]
    pub provisioned_iops: Option<f64>,
    /// For Premium SSD v2 / Ultra volumes whose --disk does not say it: throughput provisioned
    /// per disk, MB/s (10^6 bytes/s; e.g. 125).
    #[arg(long = "provisioned-mb-s")]
    pub provisioned_mb_s: Option<f64>,
    /// The cloud: azure, aws, gcp, or all (plan only: the cheapest design of each side by
    /// side) [default: azure].
    #[arg(long, default_value = "azure")]
    pub cloud: String,
    /// With --cloud aws|all: the sized peak lasts at most the instance's burst window (30
    /// minutes per 24 hours), so an instance's EBS maximum may carry it, not only its baseline.
    #[arg(long = "burst-tolerant")]
    pub burst_tolerant: bool,
    #[command(flatten)]
    pub catalog: CatalogArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let request = PredictRequest {
        vm: args.vm,
        disks: args.disks,
        stripe: args.stripe,
        rw: args.rw,
        rwmixread: args.rwmixread,
        bs: args.bs,
        iodepth: args.iodepth,
        numjobs: args.numjobs,
        requirements: args.requirements,
        job: args.job,
        service_latency_ms: args.service_latency_ms.map(iofit_model::units::Millis),
        cache_hit_pct: args.cache_hit_pct,
        provisioned: Provisioned {
            size_gib: args.provisioned_size_gib.map(iofit_model::units::GiB),
            iops: args.provisioned_iops.map(iofit_model::Iops),
            mb_s: args.provisioned_mb_s.map(iofit_model::MBps),
        },
        catalog: args.catalog.choice(),
        report: None,
    };
    let flags = PredictFlags {
        cloud: args.cloud,
        no_burst: args.no_burst,
        burst_tolerant: args.burst_tolerant,
        report: args.output.report_flags(),
    };
    let outcome = predict_any(request, &flags)?;
    print_json_or_text(args.output.json, || outcome.json(), || outcome.text())?;
    Ok(exit_for(outcome.passes()))
}
