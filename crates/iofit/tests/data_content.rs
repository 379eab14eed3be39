//! What writes hold, measured on the written file: compressed with zstd (a real compressor,
//! block by block as a compressing array does) the data lands within 5% of the ratio the job
//! asked for, and hashing its dedup units gives the requested dedupe ratio within 5%. Jobs
//! come from fio and vdbench text through the parsers and run on the engine with real files.

use iofit_engine::{run_jobs, RunOptions, Silent};
use iofit_model::job::JobSpec;
use std::collections::HashSet;
use std::path::Path;

const MIB: u64 = 8;

fn fio_job(dir: &Path, body: &str) -> JobSpec {
    let text = format!(
        "[w]\ndirectory={}\nsize={MIB}m\nrw=write\nioengine=io_uring\niodepth=4\n{body}",
        dir.display()
    );
    let jobs = iofit_jobfile::fio::parse_str(&text, "t.fio", &Default::default()).unwrap();
    jobs.into_iter().next().unwrap()
}

fn vdbench_job(dir: &Path, general: &str, xfersize: &str) -> JobSpec {
    let text = format!(
        "{general}\nsd=sd1,lun={}/lun,size={MIB}m\nwd=w,sd=sd1,xfersize={xfersize},rdpct=0,seekpct=eof\nrd=r,wd=w,iorate=max,elapsed=60,interval=1\n",
        dir.display()
    );
    let file = iofit_jobfile::vdbench::parse_str(&text, "t.vdb").unwrap();
    file.runs().unwrap()[0].to_jobs(None).remove(0)
}

/// Runs the job; returns the bytes of its region.
fn written(job: &JobSpec, path: &Path) -> Vec<u8> {
    let report = run_jobs(
        std::slice::from_ref(job),
        &RunOptions::default(),
        &mut Silent,
    )
    .unwrap();
    assert_eq!(report.result.jobs[0].error, None);
    let mut data = std::fs::read(path).unwrap();
    data.truncate((MIB << 20) as usize);
    data
}

/// Raw size over zstd's size, compressing each `block` bytes on its own.
fn compress_ratio(data: &[u8], block: usize) -> f64 {
    let compressed: usize = data
        .chunks(block)
        .map(|b| zstd::bulk::compress(b, 3).unwrap().len())
        .sum();
    data.len() as f64 / compressed as f64
}

/// Units over distinct units.
fn dedupe_ratio(data: &[u8], unit: usize) -> f64 {
    let distinct: HashSet<&[u8]> = data.chunks(unit).collect();
    (data.len() / unit) as f64 / distinct.len() as f64
}

fn within_5pct(measured: f64, wanted: f64, what: &str) {
    let off = (measured / wanted - 1.0).abs();
    assert!(
        off <= 0.05,
        "{what}: measured {measured:.3}, asked {wanted:.3} ({:.1}% off)",
        off * 100.0
    );
}

#[test]
fn fio_compression_and_dedupe_land_within_5_percent() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.0.0");
    for (pct, chunk) in [(50.0, "512"), (75.0, "4k"), (80.0, "512"), (0.0, "512")] {
        let job = fio_job(dir.path(), &format!("bs=128k\nbuffer_compress_percentage={pct}\nbuffer_compress_chunk={chunk}\nrefill_buffers=1\n"));
        let data = written(&job, &path);
        within_5pct(
            compress_ratio(&data, 128 << 10),
            100.0 / (100.0 - pct),
            &format!("compress {pct}% chunk {chunk}"),
        );
        // Refilled: no two blocks alike.
        assert_eq!(dedupe_ratio(&data, 128 << 10), 1.0);
    }
    for (pct, mode) in [(50.0, "repeat"), (75.0, "working_set"), (20.0, "repeat")] {
        let job = fio_job(dir.path(), &format!("bs=4k\ndedupe_percentage={pct}\ndedupe_mode={mode}\ndedupe_working_set_percentage=10\n"));
        let data = written(&job, &path);
        within_5pct(
            dedupe_ratio(&data, 4096),
            100.0 / (100.0 - pct),
            &format!("dedupe {pct}% {mode}"),
        );
    }
    // Both at once.
    let job = fio_job(
        dir.path(),
        "bs=8k\ndedupe_percentage=50\nbuffer_compress_percentage=50\n",
    );
    let data = written(&job, &path);
    within_5pct(dedupe_ratio(&data, 8192), 2.0, "dedupe with compression");
    within_5pct(compress_ratio(&data, 8192), 2.0, "compression with dedupe");
    // fio's default scrambles every write: a file of one buffer does not dedupe.
    let data = written(&fio_job(dir.path(), "bs=4k\n"), &path);
    assert_eq!(dedupe_ratio(&data, 4096), 1.0);
    let data = written(&fio_job(dir.path(), "bs=4k\nzero_buffers=1\n"), &path);
    assert!(data.iter().all(|&b| b == 0));
}

#[test]
fn vdbench_compratio_and_dedupratio_land_within_5_percent() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lun");
    for ratio in [2.0, 4.0] {
        let job = vdbench_job(dir.path(), &format!("compratio={ratio}"), "64k");
        within_5pct(
            compress_ratio(&written(&job, &path), 64 << 10),
            ratio,
            &format!("compratio={ratio}"),
        );
    }
    for (ratio, unit, sets) in [(2.0, 4096, "5%"), (3.0, 8192, "100"), (1.5, 4096, "1%")] {
        let job = vdbench_job(
            dir.path(),
            &format!("dedupratio={ratio}\ndedupunit={unit}\ndedupsets={sets}"),
            "32k",
        );
        within_5pct(
            dedupe_ratio(&written(&job, &path), unit),
            ratio,
            &format!("dedupratio={ratio} unit {unit} sets {sets}"),
        );
    }
}
