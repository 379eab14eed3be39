//! Data verification through the front ends: fio job files run by the `iofit` binary (exit 4
//! and the JSON's bad units when data is corrupted between the write and the verify, exit 0
//! and no bad unit on a clean run), and vdbench `validate=yes` files (the CLI on a clean run;
//! the parsed file's jobs through the engine with faults injected between two runs, since a
//! vdbench file's runs share one process).

use iofit_blockdata::inject::{self, Fault, FaultKind};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

const BLOCK: u64 = 4096;
const MIB: u64 = 4;
const BLOCKS: u64 = MIB * 1024 * 1024 / BLOCK;

fn iofit(dir: &Path) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("iofit"));
    // fio keeps verify state files in the working directory.
    cmd.current_dir(dir);
    cmd
}

/// Runs `body` as a fio job file `w`; returns the exit code and the JSON.
fn run_fio(dir: &Path, name: &str, body: &str) -> (i32, Value) {
    let file = dir.join(name);
    let text = format!(
        "[global]\ndirectory={}\nsize={MIB}m\nbs=4k\nverify=crc32c\nioengine=io_uring\niodepth=8\n[w]\n{body}",
        dir.display()
    );
    std::fs::write(&file, text).unwrap();
    let out = dir.join(format!("{name}.json"));
    let status = iofit(dir)
        .args(["run", "--quiet", "--output-format=json", "--output"])
        .arg(&out)
        .arg(&file)
        .status()
        .unwrap();
    let json = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    (status.code().unwrap_or(-1), json)
}

fn reported(job: &Value) -> Vec<(u64, u64)> {
    job["iofit"]["verify"]["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["offset"].as_u64().unwrap(), e["length"].as_u64().unwrap()))
        .collect()
}

#[test]
fn fio_verify_finds_every_injected_fault_and_exits_4() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A clean write + verify: every block checked, nothing bad, exit 0.
    let (code, json) = run_fio(d, "clean.fio", "rw=randwrite\n");
    assert_eq!(code, 0);
    let v = &json["jobs"][0]["iofit"]["verify"];
    assert_eq!(v["mode"], "crc32c");
    assert_eq!(v["units_checked"], BLOCKS);
    assert_eq!(v["bad_units"], 0);
    assert_eq!(json["jobs"][0]["read"]["total_ios"], BLOCKS);
    // Generation 1, a copy of it, generation 2 (random order), each saving its state.
    let (code, _) = run_fio(
        d,
        "gen1.fio",
        "rw=write\ndo_verify=0\nverify_state_save=1\n",
    );
    assert_eq!(code, 0);
    let target = d.join("w.0.0");
    let previous = inject::snapshot(&target).unwrap();
    let gen2 = "rw=randwrite\ndo_verify=0\nverify_state_load=1\nverify_state_save=1\n";
    assert_eq!(run_fio(d, "gen2.fio", gen2).0, 0);
    let check = "rw=write\nverify_only=1\nverify_state_load=1\n";
    let (code, json) = run_fio(d, "check.fio", check);
    assert_eq!(code, 0, "no false positives: {json}");
    assert_eq!(json["jobs"][0]["iofit"]["verify"]["units_checked"], BLOCKS);
    let pristine = d.join("pristine");
    std::fs::copy(&target, &pristine).unwrap();
    let faults = inject::plan(0, BLOCKS, BLOCK, 400, 11);
    let mut detected = 0;
    for batch in faults.chunks(80) {
        inject::apply(&target, &previous, batch, 5).unwrap();
        let (code, json) = run_fio(d, "check.fio", check);
        assert_eq!(code, 4, "data errors have their exit code");
        let job = &json["jobs"][0];
        assert_eq!(job["error"], 84, "fio's EILSEQ");
        let errors = &job["iofit"]["verify"]["errors"];
        assert!(errors[0]["file"].as_str().unwrap().ends_with("w.0.0"));
        assert!(!errors[0]["expected"].as_str().unwrap().is_empty());
        assert!(!errors[0]["found"].as_str().unwrap().is_empty());
        let score = inject::score(batch, &reported(job));
        assert_eq!(score.missed, Vec::<Fault>::new());
        assert_eq!(score.false_positives, Vec::<(u64, u64)>::new());
        detected += score.detected;
        std::fs::copy(&pristine, &target).unwrap();
    }
    assert_eq!(detected, 400);
    // verify_fatal stops at the first bad unit.
    inject::apply(&target, &previous, &faults[..10], 5).unwrap();
    let (code, json) = run_fio(d, "fatal.fio", &format!("{check}verify_fatal=1\n"));
    assert_eq!(code, 4);
    assert_eq!(json["jobs"][0]["iofit"]["verify"]["bad_units"], 1);
}

const VDB: &str = "validate=yes\ndata_errors=1000\n\
sd=sd1,lun=LUN,size=4m\n\
wd=write,sd=sd1,xfersize=4k,rdpct=0,seekpct=eof\n\
wd=read,sd=sd1,xfersize=4k,rdpct=100,seekpct=eof\n\
wd=mixed,sd=sd1,xfersize=4k,rdpct=50,seekpct=100\n\
rd=w,wd=write,iorate=max,elapsed=10,interval=1\n\
rd=r,wd=read,iorate=max,elapsed=10,interval=1\n\
rd=m,wd=mixed,iorate=max,elapsed=1,interval=1\n";

#[test]
fn vdbench_validate_runs_clean_through_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let lun = dir.path().join("lun1");
    let file = dir.path().join("v.vdb");
    std::fs::write(&file, VDB.replace("LUN", lun.to_str().unwrap())).unwrap();
    let out = dir.path().join("v.json");
    let status = iofit(dir.path())
        .args(["run", "--quiet", "--output"])
        .arg(&out)
        .arg(&file)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let runs = json["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3);
    // The read run checks every block the write run wrote (keys carry across runs).
    let read = &runs[1]["result"]["jobs"][0]["verify"];
    assert_eq!(read["units_checked"], BLOCKS, "{read}");
    assert_eq!(read["bad_units"], 0);
    let mixed = &runs[2]["result"]["jobs"][0]["verify"];
    assert!(mixed["units_checked"].as_u64().unwrap() > 0, "{mixed}");
    assert_eq!(mixed["bad_units"], 0);
}

#[test]
fn vdbench_validate_finds_every_injected_fault() {
    use iofit_engine::{run_jobs, RunOptions, Silent};
    let dir = tempfile::tempdir().unwrap();
    let keys = tempfile::tempdir().unwrap();
    let lun = dir.path().join("lun1");
    let text = VDB.replace("LUN", lun.to_str().unwrap());
    let file = iofit_jobfile::vdbench::parse_str(&text, "v.vdb").unwrap();
    let mut runs = file.runs().unwrap();
    // As the vdbench procedure does: each SD's keys carry from run to run.
    for run in &mut runs {
        run.data.verify.state_save = Some(keys.path().to_path_buf());
        run.data.verify.state_load = Some(keys.path().to_path_buf());
    }
    let run = |index: usize| {
        let jobs = runs[index].to_jobs(None);
        let report = run_jobs(&jobs, &RunOptions::default(), &mut Silent).unwrap();
        report.result.jobs.into_iter().next().unwrap()
    };
    let job = run(0);
    assert_eq!(job.error, None);
    let previous = inject::snapshot(&lun).unwrap();
    assert_eq!(run(0).error, None);
    let clean = run(1);
    assert_eq!(clean.verify.as_ref().unwrap().units_checked, BLOCKS);
    assert_eq!(clean.verify.as_ref().unwrap().bad_units, 0);
    let pristine = dir.path().join("pristine");
    std::fs::copy(&lun, &pristine).unwrap();
    let faults = inject::plan(0, BLOCKS, BLOCK, 400, 13);
    assert!(FaultKind::ALL
        .iter()
        .all(|k| faults.iter().any(|f| f.kind == *k)));
    let mut detected = 0;
    for batch in faults.chunks(80) {
        inject::apply(&lun, &previous, batch, 3).unwrap();
        let read = run(1);
        let v = read.verify.unwrap();
        let found: Vec<(u64, u64)> = v.errors.iter().map(|e| (e.offset, e.length)).collect();
        let score = inject::score(batch, &found);
        assert_eq!(score.missed, Vec::<Fault>::new());
        assert_eq!(score.false_positives, Vec::<(u64, u64)>::new());
        assert!(v.errors.iter().all(|e| e.file.ends_with("lun1")));
        detected += score.detected;
        std::fs::copy(&pristine, &lun).unwrap();
    }
    assert_eq!(detected, 400);
}
