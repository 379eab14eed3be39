//! Diagnostic: the seed's fioreadwrite.ini shape (4 unthrottled readers, 4 writers at
//! rate_iops=12500, QD128, 4k, direct) on a directory, printing each job's IOPS.
//! Usage: cargo run --release -p iofit-engine --example rate_probe -- DIR [SIZE_MIB]

use iofit_engine::{run_jobs, RunOptions, Silent};
use iofit_model::job::{EngineKind, JobSpec, PerDirection, RwMode, SizeSpec, Target};
use iofit_model::units::Bytes;

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().expect("DIR");
    let size_mib: u64 = args.next().map(|s| s.parse().unwrap()).unwrap_or(32);
    let mut jobs = Vec::new();
    for (name, rw) in [
        ("reader1", RwMode::RandRead),
        ("reader2", RwMode::RandRead),
        ("reader3", RwMode::RandRead),
        ("reader4", RwMode::RandRead),
        ("writer1", RwMode::RandWrite),
        ("writer2", RwMode::RandWrite),
        ("writer3", RwMode::RandWrite),
        ("writer4", RwMode::RandWrite),
    ] {
        let mut job = JobSpec::new(
            name,
            Target::Directory {
                path: dir.clone().into(),
                nrfiles: 1,
            },
        )
        .with_rw(rw);
        job.engine = EngineKind::Libaio;
        job.iodepth = 128;
        job.direct = true;
        job.size = Some(SizeSpec::Bytes(Bytes::mib(size_mib)));
        if rw == RwMode::RandWrite {
            job.rate_iops = PerDirection::both(Some(12_500));
        }
        jobs.push(job);
    }
    let report = run_jobs(&jobs, &RunOptions::default(), &mut Silent).unwrap();
    for job in &report.result.jobs {
        let d = if job.read.ios > 0 {
            &job.read
        } else {
            &job.write
        };
        println!(
            "{} iops={:.0} runtime_ms={} lat_max_ms={:.1} lat_mean_ms={:.2} littles_qd_at_12500={:.0}",
            job.name,
            d.iops.get(),
            d.runtime_ns.get() / 1_000_000,
            d.total_latency.max_ns.get() as f64 / 1e6,
            d.total_latency.mean_ns.get() / 1e6,
            12_500.0 * d.total_latency.mean_ns.get() / 1e9
        );
    }
}
