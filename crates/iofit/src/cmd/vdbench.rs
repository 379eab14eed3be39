//! Running vdbench parameter files: called by `iofit run` when the file is a vdbench file.
//!
//! Each expanded run (one per rd and for-loop value) runs on the engine with all its (wd, sd)
//! jobs at once, reported as one group; the output is a vdbench-style summary per run (interval
//! lines and an `avg` line) plus, when asked, iofit's JSON written after every run so an
//! interrupted file keeps what finished. `iorate=curve` runs max first, then each curve point as
//! a fraction of the measured max, and prints the latency-versus-IO-rate table with its knee.

// `iofit run` (run.rs, another owner) is to dispatch vdbench files to `check_file` (--parse-only)
// and `run_file`; until it does, the binary itself does not call this module, only its tests.
#![allow(dead_code)]

use crate::exit::bad_input;
use anyhow::Context;
use iofit_engine::{run_jobs, Observer, Progress, RunOptions};
use iofit_jobfile::vdbench::{self, IoRate, Run};
use iofit_model::units::Bytes;
use iofit_report::vdbench_summary::{render_curve, render_run, AvgLine, CurvePoint, RunHeader};
use iofit_stats::{JobResult, RunResult};
use serde::Serialize;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How `iofit run` runs a vdbench file.
#[derive(Clone, Debug)]
pub struct VdbenchRunOptions {
    /// Replaces every run's `elapsed=`.
    pub elapsed: Option<Duration>,
    /// Replaces every run's `warmup=`.
    pub warmup: Option<Duration>,
    /// Multiplies elapsed and warmup (after the overrides); 1.0 runs them as written.
    pub scale: f64,
    /// Replaces every SD's `size=` (the seed's 693g is not for a laptop).
    pub sd_size: Option<Bytes>,
    /// Where to write iofit's JSON of every run.
    pub json_output: Option<PathBuf>,
    pub allow_overwrite: bool,
    /// No progress line.
    pub quiet: bool,
    /// Set by a Ctrl-C handler: stops the current run cleanly, skips the rest.
    pub stop: Arc<AtomicBool>,
    /// iofit on the hosts when an `hd=` has no `vdbench=` (default: this binary's path).
    pub remote_iofit: Option<String>,
    /// ssh config file for reaching the hosts (ssh -F).
    pub ssh_config: Option<PathBuf>,
}

impl Default for VdbenchRunOptions {
    fn default() -> Self {
        VdbenchRunOptions {
            elapsed: None,
            warmup: None,
            scale: 1.0,
            sd_size: None,
            json_output: None,
            allow_overwrite: false,
            quiet: false,
            stop: Arc::new(AtomicBool::new(false)),
            remote_iofit: None,
            ssh_config: None,
        }
    }
}

/// iofit's JSON for a vdbench file.
#[derive(Serialize, Debug, Default)]
pub struct VdbenchJson {
    pub tool: String,
    pub dialect: String,
    pub file: String,
    pub runs: Vec<RunJson>,
    pub curves: Vec<CurveJson>,
}

#[derive(Serialize, Debug)]
pub struct RunJson {
    pub rd: String,
    pub for_label: String,
    pub iorate: String,
    pub target_iops: Option<f64>,
    pub threads_per_sd: u32,
    pub total_threads: u32,
    pub elapsed_s: f64,
    pub warmup_s: f64,
    pub avg_iops: f64,
    pub avg_mib_per_s: f64,
    pub avg_read_pct: f64,
    pub avg_resp_ms: f64,
    pub result: RunResult,
    /// Per host of a multi-host run (empty on one machine); `result` is their combination.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<RunResult>,
}

#[derive(Serialize, Debug)]
pub struct CurveJson {
    pub rd: String,
    pub for_label: String,
    pub max_iops: f64,
    /// (label, target IO/s, measured IO/s, response ms)
    pub points: Vec<(String, Option<f64>, f64, f64)>,
    pub knee: Option<String>,
}

/// What one executed run measured.
pub struct RunOutcome {
    pub avg: AvgLine,
    pub job: JobResult,
    pub text: String,
}

/// `iofit run --parse-only` for a vdbench file: parses it, checks hosts and expands its runs,
/// printing one line per run; errors are bad input naming file, line and key.
pub fn check_file(path: &Path) -> anyhow::Result<ExitCode> {
    let file = vdbench::parse_file(path).map_err(bad_input)?;
    if !file
        .is_multi_host(vdbench::is_local_host)
        .map_err(bad_input)?
    {
        file.check_hosts(vdbench::is_local_host)
            .map_err(bad_input)?;
    }
    let runs = file.runs().map_err(bad_input)?;
    for run in &runs {
        println!(
            "rd={} {}: {} wd/sd pairs, {} threads per SD ({} in flight), elapsed={}s warmup={}s",
            run.rd,
            run.for_label,
            run.workloads.len(),
            run.threads,
            run.total_threads(),
            run.elapsed.as_secs_f64(),
            run.warmup.as_secs_f64()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs every run of the vdbench file at `path`.
pub fn run_file(path: &Path, common: &VdbenchRunOptions) -> anyhow::Result<ExitCode> {
    let file = vdbench::parse_file(path).map_err(bad_input)?;
    if file
        .is_multi_host(vdbench::is_local_host)
        .map_err(bad_input)?
    {
        // hd= lines name other machines: each run goes to its hosts over ssh.
        let runs = file.runs().map_err(bad_input)?;
        return crate::cmd::vdbench_hosts::run_file(path, &file, runs, common);
    }
    file.check_hosts(vdbench::is_local_host)
        .map_err(bad_input)?;
    let runs = file.runs().map_err(bad_input)?;
    // vdbench does not create directories; neither does iofit. Say which sd= line to fix.
    for sd in &file.sds {
        if let Some(parent) = sd.lun.parent().filter(|p| !p.as_os_str().is_empty()) {
            if !parent.is_dir() {
                return Err(bad_input(format!(
                    "{}: sd={} lun={}: directory {} does not exist; create it (the seed mounts a volume there) or point lun= elsewhere",
                    sd.loc,
                    sd.name,
                    sd.lun.display(),
                    parent.display()
                )));
            }
        }
    }
    let mut doc = VdbenchJson {
        tool: format!("iofit {}", env!("CARGO_PKG_VERSION")),
        dialect: "vdbench".into(),
        file: path.display().to_string(),
        ..Default::default()
    };
    let mut failed = false;
    let stdout = std::io::stdout();
    for run in runs {
        if common.stop.load(Ordering::Relaxed) {
            break;
        }
        let run = adjust(run, common).map_err(bad_input)?;
        match run.iorate.clone() {
            IoRate::Max => {
                let outcome = execute(&run, None, "Uncontrolled MAX", common)?;
                failed |= finish(&run, None, "max", &outcome, &mut doc, common, &stdout)?;
            }
            IoRate::Fixed(rate) => {
                let outcome = execute(&run, Some(rate), &format!("{rate}"), common)?;
                failed |= finish(
                    &run,
                    Some(rate),
                    &format!("{rate}"),
                    &outcome,
                    &mut doc,
                    common,
                    &stdout,
                )?;
            }
            IoRate::Curve(pcts) => {
                let max = execute(&run, None, "Uncontrolled curve (max)", common)?;
                failed |= finish(&run, None, "curve max", &max, &mut doc, common, &stdout)?;
                let max_iops = max.avg.line.iops;
                let mut points = vec![CurvePoint {
                    label: "max".into(),
                    target_iops: None,
                    iops: max_iops,
                    resp_ms: max.avg.line.resp_ms,
                }];
                for pct in pcts {
                    if common.stop.load(Ordering::Relaxed) || max_iops <= 0.0 {
                        break;
                    }
                    let target = max_iops * pct / 100.0;
                    let label = format!("curve {pct}% of max ({target:.0})");
                    let outcome = execute(&run, Some(target), &label, common)?;
                    failed |= finish(
                        &run,
                        Some(target),
                        &label,
                        &outcome,
                        &mut doc,
                        common,
                        &stdout,
                    )?;
                    points.push(CurvePoint {
                        label: format!("{pct}%"),
                        target_iops: Some(target),
                        iops: outcome.avg.line.iops,
                        resp_ms: outcome.avg.line.resp_ms,
                    });
                }
                let knee = find_knee(&points);
                let text = render_curve(&run.rd, &points, knee);
                writeln!(stdout.lock(), "{text}")?;
                doc.curves.push(CurveJson {
                    rd: run.rd.clone(),
                    for_label: run.for_label.clone(),
                    max_iops,
                    points: points
                        .iter()
                        .map(|p| (p.label.clone(), p.target_iops, p.iops, p.resp_ms))
                        .collect(),
                    knee: knee.map(|k| points[k].label.clone()),
                });
                write_json(&doc, common)?;
            }
        }
    }
    Ok(if failed {
        ExitCode::from(crate::exit::FAILED)
    } else {
        ExitCode::SUCCESS
    })
}

/// Applies the command line's overrides to a run.
pub fn adjust(mut run: Run, common: &VdbenchRunOptions) -> Result<Run, String> {
    if let Some(elapsed) = common.elapsed {
        run.elapsed = elapsed;
    }
    if let Some(warmup) = common.warmup {
        run.warmup = warmup;
    }
    if !(common.scale > 0.0 && common.scale.is_finite()) {
        return Err(format!(
            "--scale {} must be a positive number",
            common.scale
        ));
    }
    run.elapsed = run.elapsed.mul_f64(common.scale);
    run.warmup = run.warmup.mul_f64(common.scale);
    if run.elapsed.is_zero() {
        return Err(format!(
            "rd={}: elapsed is 0 after scaling; raise --scale or --elapsed",
            run.rd
        ));
    }
    if run.warmup >= run.elapsed {
        return Err(format!(
            "rd={}: warmup {:.1}s is not shorter than elapsed {:.1}s; lower --warmup or raise --elapsed",
            run.rd,
            run.warmup.as_secs_f64(),
            run.elapsed.as_secs_f64()
        ));
    }
    if let Some(size) = common.sd_size {
        for w in &mut run.workloads {
            w.sd.size = Some(size);
        }
    }
    Ok(run)
}

struct ProgressLine {
    label: String,
    enabled: bool,
}

impl Observer for ProgressLine {
    fn progress(&mut self, progress: &Progress) {
        if !self.enabled {
            return;
        }
        let seconds = progress.elapsed.as_secs_f64().max(1e-9);
        let planned = progress
            .planned
            .map(|p| format!("/{:.0}s", p.as_secs_f64()))
            .unwrap_or_default();
        eprint!(
            "\r{}: {:.0}s{} {:.0} IO/s {:.1} MiB/s   ",
            self.label,
            seconds,
            planned,
            progress.ios as f64 / seconds,
            progress.bytes as f64 / seconds / 1_048_576.0
        );
    }
}

/// Runs one run at `rate` (None: uncontrolled) and renders its summary.
pub fn execute(
    run: &Run,
    rate: Option<f64>,
    iorate_label: &str,
    common: &VdbenchRunOptions,
) -> anyhow::Result<RunOutcome> {
    let jobs = run.to_jobs(rate);
    let options = RunOptions {
        allow_overwrite: common.allow_overwrite,
        stop: common.stop.clone(),
        ..RunOptions::default()
    };
    let mut observer = ProgressLine {
        label: format!("RD={}", run.rd),
        enabled: !common.quiet && std::io::stderr().is_terminal(),
    };
    let started = std::time::SystemTime::now();
    let report = run_jobs(&jobs, &options, &mut observer).map_err(|e| {
        if e.is_bad_input() {
            bad_input(e)
        } else {
            anyhow::Error::new(e).context(format!("rd={}", run.rd))
        }
    })?;
    if observer.enabled {
        eprint!("\r\x1b[K");
    }
    // Every job of a run shares group 0 with group_reporting: one merged result.
    let job = report
        .result
        .jobs
        .first()
        .cloned()
        .with_context(|| format!("rd={}: the run produced no result", run.rd))?;
    let avg = AvgLine::from_job(&job);
    let start_unix_s = started
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
        + run.warmup.as_secs_f64();
    let header = RunHeader {
        rd: run.rd.clone(),
        for_label: run.for_label.clone(),
        iorate_label: iorate_label.to_string(),
        elapsed_s: run.elapsed.as_secs_f64(),
        warmup_s: run.warmup.as_secs_f64(),
        interval_s: run.interval.as_secs_f64(),
        start_unix_s,
    };
    let text = render_run(&header, &job.series, &avg);
    Ok(RunOutcome { avg, job, text })
}

#[allow(clippy::too_many_arguments)]
fn finish(
    run: &Run,
    rate: Option<f64>,
    label: &str,
    outcome: &RunOutcome,
    doc: &mut VdbenchJson,
    common: &VdbenchRunOptions,
    stdout: &std::io::Stdout,
) -> anyhow::Result<bool> {
    {
        let mut out = stdout.lock();
        writeln!(out, "{}", outcome.text)?;
        if let Some(error) = &outcome.job.error {
            writeln!(out, "rd={}: stopped on an error: {error}", run.rd)?;
        }
        out.flush()?;
    }
    doc.runs.push(RunJson {
        rd: run.rd.clone(),
        for_label: run.for_label.clone(),
        iorate: label.to_string(),
        target_iops: rate,
        threads_per_sd: run.threads,
        total_threads: run.total_threads(),
        elapsed_s: run.elapsed.as_secs_f64(),
        warmup_s: run.warmup.as_secs_f64(),
        avg_iops: outcome.avg.line.iops,
        avg_mib_per_s: outcome.avg.line.mib_per_s,
        avg_read_pct: outcome.avg.line.read_pct,
        avg_resp_ms: outcome.avg.line.resp_ms,
        result: RunResult {
            jobs: vec![outcome.job.clone()],
            tool: "iofit".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            ..Default::default()
        },
        hosts: Vec::new(),
    });
    write_json(doc, common)?;
    Ok(outcome.job.error.is_some())
}

fn write_json(doc: &VdbenchJson, common: &VdbenchRunOptions) -> anyhow::Result<()> {
    if let Some(path) = &common.json_output {
        // A random O_EXCL temporary name and a rename: a reader never sees half a document,
        // and a link planted at a fixed temporary name is never written through.
        super::files::write_output(path, serde_json::to_string_pretty(doc)?.as_bytes())?;
    }
    Ok(())
}

/// The knee of a latency-versus-IO-rate curve (Kneedle): with IO rate and response time each
/// scaled to 0..1, the point furthest below the straight line from the lowest to the highest
/// point. Beyond it response time grows faster than the rate. Needs three distinct rates and a
/// response time that rises by more than 10% over the curve.
pub fn find_knee(points: &[CurvePoint]) -> Option<usize> {
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&a, &b| points[a].iops.total_cmp(&points[b].iops));
    if order.len() < 3 {
        return None;
    }
    let (x0, x1) = (points[order[0]].iops, points[*order.last()?].iops);
    let y0 = order
        .iter()
        .map(|&i| points[i].resp_ms)
        .fold(f64::INFINITY, f64::min);
    let y1 = order
        .iter()
        .map(|&i| points[i].resp_ms)
        .fold(f64::NEG_INFINITY, f64::max);
    // A latency that varies less than 10% over the curve has no knee in the measured range.
    if x1 - x0 <= 0.0 || y1 <= y0 * 1.1 {
        return None;
    }
    order
        .iter()
        .map(|&i| {
            let x = (points[i].iops - x0) / (x1 - x0);
            let y = (points[i].resp_ms - y0) / (y1 - y0);
            (i, x - y)
        })
        .filter(|(_, d)| *d > 0.0)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(iops: f64, resp_ms: f64) -> CurvePoint {
        CurvePoint {
            label: format!("{iops}"),
            target_iops: Some(iops),
            iops,
            resp_ms,
        }
    }

    #[test]
    fn knee_of_a_hockey_stick() {
        // Flat latency up to 8,000 IO/s, then a wall: the knee is the last flat point.
        let points = vec![
            point(10_000.0, 9.0),
            point(1_000.0, 0.5),
            point(5_000.0, 0.6),
            point(8_000.0, 0.8),
            point(9_000.0, 2.0),
        ];
        assert_eq!(find_knee(&points), Some(3));
        assert_eq!(find_knee(&points[..2]), None);
        // Flat latency: no knee.
        let flat = vec![
            point(1_000.0, 0.5),
            point(5_000.0, 0.51),
            point(9_000.0, 0.52),
        ];
        assert_eq!(find_knee(&flat), None);
    }

    #[test]
    fn overrides_apply_and_scale() {
        let file = iofit_jobfile::vdbench::parse_str(
            "sd=sd1,lun=/tmp/x,size=693g\nwd=w,sd=sd1\nrd=r,wd=w,iorate=max,elapsed=600,warmup=60\n",
            "t",
        )
        .unwrap();
        let run = file.runs().unwrap().remove(0);
        let common = VdbenchRunOptions {
            scale: 0.01,
            sd_size: Some(Bytes::mib(8)),
            ..Default::default()
        };
        let run = adjust(run, &common).unwrap();
        assert_eq!(run.elapsed, Duration::from_secs(6));
        assert_eq!(run.warmup, Duration::from_millis(600));
        assert_eq!(run.workloads[0].sd.size, Some(Bytes::mib(8)));
        let bad = VdbenchRunOptions {
            warmup: Some(Duration::from_secs(700)),
            ..Default::default()
        };
        assert!(adjust(file.runs().unwrap().remove(0), &bad).is_err());
    }

    /// Generates the seed's files with the seed's own script into a temp dir (one VM, mounts
    /// under the temp dir), creates the six mount directories, and returns (files dir, data dir).
    fn seed_files() -> (tempfile::TempDir, tempfile::TempDir) {
        let out = tempfile::tempdir().unwrap();
        let data = tempfile::tempdir().unwrap();
        let script =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/vdbench/generate.sh");
        let status = std::process::Command::new("bash")
            .arg(script)
            .arg(out.path())
            .arg(data.path())
            .status()
            .unwrap();
        assert!(status.success());
        for vol in 1..=6 {
            std::fs::create_dir_all(data.path().join(format!("vdb{vol}"))).unwrap();
        }
        (out, data)
    }

    fn run_seed(pattern: &str) -> serde_json::Value {
        let (out, _data) = seed_files();
        let json = out.path().join("result.json");
        let common = VdbenchRunOptions {
            elapsed: Some(Duration::from_secs(1)),
            warmup: Some(Duration::ZERO),
            sd_size: Some(Bytes::mib(4)),
            json_output: Some(json.clone()),
            quiet: true,
            ..Default::default()
        };
        let file = out.path().join(format!("vnet1-{pattern}-workload"));
        let code = run_file(&file, &common).unwrap();
        assert_eq!(code, ExitCode::SUCCESS);
        serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap()
    }

    /// Checks one run of the JSON: threads, read share, that IO happened.
    fn check_run(run: &serde_json::Value, threads_per_sd: u64, read_pct: f64, random: bool) {
        assert_eq!(run["threads_per_sd"], threads_per_sd);
        assert_eq!(run["total_threads"], threads_per_sd * 6);
        let job = &run["result"]["jobs"][0];
        let clones = job["clones"].as_u64().unwrap();
        let iodepth = job["iodepth"].as_u64().unwrap();
        if random {
            // One thread = one synchronous IO in flight: threads x 6 SDs clones.
            assert_eq!(clones, threads_per_sd * 6);
        } else {
            // Sequential: one stream per SD with `threads` IOs in flight.
            assert_eq!(clones, 6);
            assert_eq!(iodepth, threads_per_sd);
        }
        let reads = job["read"]["ios"].as_f64().unwrap();
        let writes = job["write"]["ios"].as_f64().unwrap();
        assert!(reads + writes > 0.0, "no IO done");
        let measured = reads * 100.0 / (reads + writes);
        assert!(
            (measured - read_pct).abs() <= 5.0,
            "read share {measured}% against rdpct={read_pct}"
        );
        assert!((run["avg_read_pct"].as_f64().unwrap() - measured).abs() < 1e-6);
    }

    #[test]
    fn seed_fillwrite_is_one_sequential_pass() {
        let doc = run_seed("FillWrite");
        let runs = doc["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 1);
        check_run(&runs[0], 1, 0.0, false);
        // seekpct=eof: exactly one pass of each 4 MiB SD in 64 KiB writes, then stop.
        let write = &runs[0]["result"]["jobs"][0]["write"];
        assert_eq!(write["io_bytes"], 6 * 4 * 1024 * 1024);
        assert_eq!(write["ios"], 6 * 64);
    }

    #[test]
    fn seed_random_runs() {
        for (pattern, threads, read_pct) in [
            ("RndRead", 25, 100.0),
            ("RndWrite", 20, 0.0),
            ("RndMix", 25, 50.0),
        ] {
            let doc = run_seed(pattern);
            let runs = doc["runs"].as_array().unwrap();
            assert_eq!(runs.len(), 1, "{pattern}");
            check_run(&runs[0], threads, read_pct, true);
        }
    }

    fn check_sequential(pattern: &str, threads: &[u64], read_pct: f64) {
        let doc = run_seed(pattern);
        let runs = doc["runs"].as_array().unwrap();
        assert_eq!(runs.len(), threads.len(), "{pattern}");
        for (run, t) in runs.iter().zip(threads) {
            check_run(run, *t, read_pct, false);
        }
    }

    #[test]
    fn seed_seqread() {
        check_sequential("SeqRead", &[20], 100.0);
    }

    #[test]
    fn seed_seqwrite_three_runs() {
        check_sequential("SeqWrite", &[26, 32, 40], 0.0);
    }

    #[test]
    fn seed_seqmix_two_runs() {
        check_sequential("SeqMix", &[6, 7], 50.0);
    }

    #[test]
    fn summary_has_avg_line_and_iorate_is_capped() {
        let dir = tempfile::tempdir().unwrap();
        let param = dir.path().join("capped.vdb");
        std::fs::write(
            &param,
            format!(
                "sd=sd1,lun={}/f1,size=4m\nwd=w,sd=sd1,rdpct=100,xfersize=4k\nrd=r,wd=w,iorate=400,elapsed=2,interval=1,threads=4\n",
                dir.path().display()
            ),
        )
        .unwrap();
        let file = vdbench::parse_file(&param).unwrap();
        let run = file.runs().unwrap().remove(0);
        let outcome = execute(
            &run,
            Some(400.0),
            "400",
            &VdbenchRunOptions {
                quiet: true,
                ..Default::default()
            },
        )
        .unwrap();
        let avg_lines: Vec<&str> = outcome
            .text
            .lines()
            .filter(|l| l.contains("avg_"))
            .collect();
        assert_eq!(avg_lines.len(), 1, "{}", outcome.text);
        assert!(outcome.text.contains("Starting RD=r; I/O rate: 400"));
        assert!(
            outcome
                .text
                .lines()
                .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
                .count()
                >= 2
        );
        // iorate=400 is the run's total, split over 4 threads: within 5%. (A mixed rdpct caps
        // each direction separately, as fio's rate_iops does, and lands a few % lower.)
        assert!(
            (outcome.avg.line.iops - 400.0).abs() <= 20.0,
            "{}",
            outcome.avg.line.iops
        );
        assert_eq!(outcome.job.clones, 4);
    }

    #[test]
    fn iorate_curve_runs_fractions_of_the_measured_max() {
        let dir = tempfile::tempdir().unwrap();
        let param = dir.path().join("curve.vdb");
        std::fs::write(
            &param,
            format!(
                "sd=sd1,lun={}/f1,size=4m,openflags=o_direct\nwd=w,sd=sd1,rdpct=100,xfersize=4k\nrd=c,wd=w,iorate=curve,curve=(25,50),elapsed=1,threads=1\n",
                dir.path().display()
            ),
        )
        .unwrap();
        let json = dir.path().join("curve.json");
        let common = VdbenchRunOptions {
            json_output: Some(json.clone()),
            quiet: true,
            ..Default::default()
        };
        assert_eq!(run_file(&param, &common).unwrap(), ExitCode::SUCCESS);
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
        let runs = doc["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 3, "max, then 25% and 50% of it");
        let curve = &doc["curves"][0];
        let max = curve["max_iops"].as_f64().unwrap();
        assert!(max > 0.0);
        assert_eq!(curve["points"].as_array().unwrap().len(), 3);
        for (run, pct) in runs[1..].iter().zip([25.0, 50.0]) {
            let target = run["target_iops"].as_f64().unwrap();
            assert!((target - max * pct / 100.0).abs() < 1e-6);
            let measured = run["avg_iops"].as_f64().unwrap();
            // The cap holds. (How close a point comes to its target from below depends on what
            // else shares the disk: other tests run in parallel, so only the cap is asserted.)
            assert!(
                measured > 0.0 && measured <= target * 1.05,
                "{pct}%: measured {measured} against target {target}"
            );
        }
    }

    #[test]
    fn missing_lun_directory_is_bad_input() {
        let dir = tempfile::tempdir().unwrap();
        let param = dir.path().join("nodir.vdb");
        std::fs::write(
            &param,
            format!(
                "sd=sd1,lun={}/no-such-dir/f1,size=1m\nwd=w,sd=sd1\nrd=r,wd=w,iorate=max,elapsed=1\n",
                dir.path().display()
            ),
        )
        .unwrap();
        let error = run_file(&param, &VdbenchRunOptions::default()).unwrap_err();
        assert!(error.chain().any(|c| c.is::<crate::exit::BadInput>()));
        let text = error.to_string();
        assert!(text.contains("nodir.vdb:1: sd=sd1"), "{text}");
    }

    #[test]
    fn check_file_accepts_the_seed_files_and_refuses_the_corpus() {
        let (out, _data) = seed_files();
        for pattern in ["FillWrite", "SeqWrite", "RndMix"] {
            let path = out.path().join(format!("vnet1-{pattern}-workload"));
            assert_eq!(check_file(&path).unwrap(), ExitCode::SUCCESS);
        }
        let corpus =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/bad-input/jobfile/vdbench");
        let error = check_file(&corpus.join("10-remote-shell-rsh.vdb")).unwrap_err();
        assert!(error.chain().any(|c| c.is::<crate::exit::BadInput>()));
        assert!(error.to_string().contains("10-remote-shell-rsh.vdb:1:"));
    }
}
