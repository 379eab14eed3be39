//! Snapshots of every rendering of one fixed comparison and report: text, Markdown, CSV, JSON
//! and HTML. Inputs are constructed here (deterministic); a change in output shows as a diff.

use iofit_model::design::HostCaching;
use iofit_model::job::{EngineKind, RwMode};
use iofit_model::requirements::{
    ObservedMetrics, Percentiles, Requirements, SizingTarget, VolumeRequirements, VolumeRole,
};
use iofit_model::units::GiB;
use iofit_report::chart::{LimitBar, LimitScope};
use iofit_report::compare::{compare, render_text, CompareContext, Comparison};
use iofit_report::html::{HtmlReport, Table};
use iofit_stats::{DirectionResult, IntervalSample, JobResult, LatencySummary, RunResult};

fn latency(mean_us: f64, p: &[(f64, u64)]) -> LatencySummary {
    LatencySummary {
        fio_ranges: Default::default(),
        count: 1000,
        min_ns: iofit_model::units::Nanos(90_000),
        max_ns: iofit_model::units::Nanos(25_000_000),
        mean_ns: iofit_model::units::Nanos(mean_us * 1e3),
        stdev_ns: iofit_model::units::Nanos(400_000.0),
        percentiles_ns: p.iter().map(|(pct, us)| (*pct, us * 1000)).collect(),
        fio_bins: Vec::new(),
    }
}

fn direction(iops: f64, seconds: u64, mean_us: f64, scale: u64) -> DirectionResult {
    let ios = iops as u64 * seconds;
    let percentiles: Vec<(f64, u64)> = [
        (1.0, 180),
        (5.0, 220),
        (10.0, 260),
        (50.0, 640),
        (90.0, 1400),
        (99.0, 4200),
        (99.9, 9800),
        (99.99, 21000),
    ]
    .iter()
    .map(|(p, us)| (*p, us * scale))
    .collect();
    DirectionResult {
        ios,
        io_bytes: iofit_model::Bytes(ios * 8192),
        runtime_ns: iofit_model::units::Nanos(seconds * 1_000_000_000),
        iops: iofit_model::units::Iops(iops),
        bandwidth_bytes_per_second: iops * 8192.0,
        submission_latency: LatencySummary::default(),
        completion_latency: latency(mean_us - 5.0, &percentiles),
        total_latency: latency(mean_us, &percentiles),
        prios: Vec::new(),
    }
}

fn run() -> RunResult {
    let series = (0..20u64)
        .map(|second| IntervalSample {
            clat_mean_ns: Default::default(),
            slat_mean_ns: Default::default(),
            latency_bins: Default::default(),
            by_direction: None,
            start_ms: iofit_model::units::Millis(second * 1000),
            interval_ms: iofit_model::units::Millis(1000),
            read_ios: 5400 + (second % 4) * 150,
            read_bytes: iofit_model::Bytes((5400 + (second % 4) * 150) * 8192),
            write_ios: 2300 + (second % 3) * 100,
            write_bytes: iofit_model::Bytes((2300 + (second % 3) * 100) * 8192),
            trim_ios: 0,
            trim_bytes: iofit_model::Bytes(0),
            latency_mean_ns: iofit_model::units::Nanos(800_000.0 + (second % 5) as f64 * 50_000.0),
            latency_p99_ns: iofit_model::units::Nanos(4_000_000 + (second % 6) * 250_000),
            ..Default::default()
        })
        .collect();
    RunResult {
        disk_util: Default::default(),
        tool: "iofit".into(),
        version: "0.1.0".into(),
        timestamp_s: iofit_model::units::UnixSeconds(1_795_000_000),
        hostname: "bench-vm".into(),
        jobs: vec![JobResult {
            name: "oltp <8k>".into(),
            group_id: 0,
            clones: 4,
            engine_requested: Some(EngineKind::Libaio),
            engine_used: Some(EngineKind::IoUring),
            rw: Some(RwMode::RandRw),
            iodepth: 2,
            read: direction(5600.0, 20, 820.0, 1),
            write: direction(2400.0, 20, 910.0, 2),
            series,
            ..Default::default()
        }],
    }
}

fn requirements() -> Requirements {
    Requirements {
        source: "iostat -x capture of db01 (fixed test data)".into(),
        growth_factor: 1.3,
        host: Default::default(),
        volumes: vec![VolumeRequirements {
            label: "data".into(),
            role: VolumeRole::Data,
            devices: vec!["sdb".into(), "sdc".into()],
            sizing: SizingTarget {
                iops: iofit_model::Iops(12_000.0),
                throughput_mb_s: iofit_model::MBps(90.0),
                latency_ms: Some(iofit_model::units::Millis(2.0)),
                io_size_bytes: iofit_model::Bytes(8192),
                read_pct: 70.0,
                random_pct: 100.0,
                capacity_gib: Some(GiB(1024.0)),
                queue_depth: None,
            },
            observed: Some(ObservedMetrics {
                samples: 1440,
                iops: Percentiles {
                    p50: 4200.0,
                    p90: 7900.0,
                    p99: 9100.0,
                },
                read_pct: Percentiles {
                    p50: 71.0,
                    p90: 78.0,
                    p99: 85.0,
                },
                io_size_bytes: Percentiles {
                    p50: 8192.0,
                    p90: 8192.0,
                    p99: 16384.0,
                },
                throughput_mb_s: Percentiles {
                    p50: 34.0,
                    p90: 64.0,
                    p99: 74.0,
                },
                throughput_mb_s_avg: 38.0,
                throughput_mb_s_max: 81.0,
                latency_ms: Some(Percentiles {
                    p50: 1.1,
                    p90: 1.8,
                    p99: 3.2,
                }),
                queue_depth: Some(Percentiles {
                    p50: 3.0,
                    p90: 7.5,
                    p99: 11.0,
                }),
                iops_max: 9800.0,
                ..Default::default()
            }),
            derivation: vec!["IOPS: p95 of 10-minute peaks x comfort 1.3 x growth 1.3".into()],
        }],
    }
}

fn limits() -> Vec<LimitBar> {
    vec![
        LimitBar::new("Standard_DS13 uncached IOPS", 25_600.0, "IOPS", false).scope(LimitScope::Vm),
        LimitBar::new("2 x P20 IOPS", 4_600.0, "IOPS", true).scope(LimitScope::Disk),
        LimitBar::new("required", 12_000.0, "IOPS", false).scope(LimitScope::Requirement),
        LimitBar::new("Standard_DS13 uncached MB/s", 384.0, "MB/s", false).scope(LimitScope::Vm),
        LimitBar::new("2 x P20 MB/s", 300.0, "MB/s", false).scope(LimitScope::Disk),
    ]
}

fn comparison() -> Comparison {
    let run = run();
    let requirements = requirements();
    let jobs: Vec<&JobResult> = run.jobs.iter().collect();
    let context = CompareContext {
        disks: Some(2),
        caching: Some(HostCaching::ReadOnly),
        limits: limits(),
        latency_ms_p99: Some(5.0),
        design: Some("Standard_DS13, 2 x P20 striped, host caching ReadOnly".into()),
    };
    compare(
        &jobs,
        &requirements.volumes[0],
        &context,
        "results.json",
        "req.toml",
    )
}

/// The SPEC's worked example: 4,000 IOPS needed, one P30 (5,000) on a DS1 (3,200): capped at
/// 3,200 by the VM. Rows are written here (not read from the catalog) so the snapshot does not
/// move when the catalog is updated.
fn prediction() -> iofit_predict::Prediction {
    use iofit_catalog::{DiskKind, DiskSku, VmSize};
    use iofit_model::units::{Bytes, Iops, MBps};
    use iofit_model::{VolumeDesign, Workload};
    let p30 = DiskSku {
        name: "P30".into(),
        table: "seed-2016 disks (test copy)".into(),
        kind: DiskKind::PremiumSsd,
        size_gib: GiB(1024.0),
        iops: Iops(5000.0),
        throughput_mb_s: MBps(200.0),
        burst_iops: None,
        burst_throughput_mb_s: None,
        price_usd_month: None,
        price_usd_per_10k_operations: None,
        operation_unit_kib: None,
    };
    let vm = VmSize {
        name: "Standard_DS1".into(),
        table: "seed-2016 VMs (test copy)".into(),
        family: "DS".into(),
        vcpu: 1,
        memory_gib: GiB(3.5),
        max_data_disks: 2,
        premium_storage: true,
        uncached_iops: Some(Iops(3200.0)),
        uncached_throughput_mb_s: Some(MBps(32.0)),
        cached_iops: None,
        cached_throughput_mb_s: None,
        cache_size_gib: None,
        temp_storage_gib: None,
        burst_uncached_iops: None,
        burst_uncached_throughput_mb_s: None,
        price_usd_month: None,
        traits: None,
    };
    let volume = iofit_predict::VolumeLoad {
        design: VolumeDesign::new("data", "P30", 1, HostCaching::None),
        disk: iofit_predict::DiskPerf::from(&p30),
        workload: Workload::new(100.0, 100.0, Bytes::kib(8), 32, 1),
        target: None,
    };
    iofit_predict::predict(&vm, &[volume], &iofit_predict::Assumptions::default(), None).unwrap()
}

fn report() -> HtmlReport {
    HtmlReport::new("Snapshot report: DS13 & 2 x P20")
        .section(
            "Design",
            "Two P20 disks striped (64 KiB), host caching ReadOnly.\n\nQueue depth 2 per job, 4 jobs.",
        )
        .requirements(&requirements())
        .limits(&limits())
        .prediction(&prediction())
        .comparison(&comparison())
        .run_result(&run())
        .table(
            Table::new("Ranked designs", &["rank", "VM", "disks", "$/month"])
                .row(vec!["1".into(), "Standard_DS13".into(), "4 x P30".into(), "1,548.00".into()]),
        )
}

#[test]
fn comparison_text() {
    insta::assert_snapshot!(render_text(&comparison()));
}

#[test]
fn comparison_markdown() {
    insta::assert_snapshot!(iofit_report::markdown::render_comparison(&comparison()));
}

#[test]
fn comparison_csv() {
    insta::assert_snapshot!(iofit_report::csv::render_comparison(&comparison()));
}

#[test]
fn comparison_json() {
    insta::assert_json_snapshot!(comparison());
}

#[test]
fn report_html() {
    insta::assert_snapshot!(report().render());
}

#[test]
fn report_markdown() {
    insta::assert_snapshot!(report().render_markdown());
}

#[test]
fn report_csv() {
    insta::assert_snapshot!(report().render_csv());
}
