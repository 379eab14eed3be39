//! Multi-host procedures without ssh: which hosts run what (fio `${HOST}`, vdbench hd/sd/jvms),
//! and a vdbench file's runs through a [`HostRunner`] that runs each host's jobs here on the
//! null engine with a fake clock (a stand-in for the ssh controller, which `multihost_cli.rs`
//! tests against real sshd hosts).

use iofit_engine::{run_jobs, ClockChoice, RunOptions, Silent};
use iofit_model::job::EngineKind;
use iofit_procedure::hosts::{
    fio_jobs_for, host_name, parse_hosts, vdbench_host_specs, HostRunner, Reach,
};
use iofit_procedure::observer::{Event, Observer};
use iofit_procedure::vdbench::VdbenchOptions;
use iofit_procedure::vdbench_hosts::run_vdbench_hosts;
use iofit_procedure::ProcedureError;
use iofit_remote::{HostFailure, HostRun, HostSpec, MultiRun};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

fn reach() -> Reach {
    Reach {
        remote_iofit: Some("/usr/local/bin/iofit".into()),
        ssh_config: None,
        allow_overwrite: false,
        stop: Arc::new(AtomicBool::new(false)),
        slurm_tasks_per_node: None,
    }
}

#[test]
fn hosts_from_a_list_or_a_file() {
    assert_eq!(
        parse_hosts("a, root@b ,c").unwrap(),
        vec!["a", "root@b", "c"]
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hosts");
    std::fs::write(&file, "# lab\n10.0.0.1\n\nroot@10.0.0.2  # second\n").unwrap();
    assert_eq!(
        parse_hosts(file.to_str().unwrap()).unwrap(),
        vec!["10.0.0.1", "root@10.0.0.2"]
    );
    assert!(parse_hosts(" , ").unwrap_err().is_bad_input());
    assert!(parse_hosts("-oProxyCommand=x").unwrap_err().is_bad_input());
    assert_eq!(host_name("root@vm1"), "vm1");
}

#[test]
fn each_host_gets_its_own_target() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("j.fio");
    std::fs::write(
        &job,
        "[j]\nrw=randread\nsize=1m\nfilename=/data/${HOST}/f\n",
    )
    .unwrap();
    let a = fio_jobs_for("10.0.0.1", std::slice::from_ref(&job), &[], false).unwrap();
    let b = fio_jobs_for("10.0.0.2", &[job], &[], false).unwrap();
    assert_ne!(a[0].target, b[0].target);
    assert!(format!("{:?}", a[0].target).contains("/data/10.0.0.1/f"));
}

const TWO_HOSTS: &str = "hd=default,jvms=2,shell=ssh\nhd=vm1,system=10.0.0.1,user=root\nhd=vm2,system=10.0.0.2,jvms=1,vdbench=/opt/iofit\n\
sd=a,host=vm1,lun=/d/a,size=1m\nsd=b,host=vm1,lun=/d/b,size=1m\nsd=c,host=vm1,lun=/d/c,size=1m\nsd=s,host=*,lun=/d/s,size=1m\n\
wd=w,sd=*,seekpct=100\nrd=r,wd=w,iorate=400,elapsed=2,threads=3\n";

#[test]
fn hosts_get_their_sds_and_jvms_split_them() {
    let file = iofit_jobfile::vdbench::parse_str(TWO_HOSTS, "m.vdb").unwrap();
    let run = file.runs().unwrap().remove(0);
    let specs = vdbench_host_specs(&file, &run, Some(400.0), &reach(), None).unwrap();
    assert!(specs.iter().all(|s| s.keys.is_none()));
    // validate=yes: each worker keeps its keys in its own directory of the file's name.
    let keyed = vdbench_host_specs(&file, &run, Some(400.0), &reach(), Some(("k", true))).unwrap();
    let dirs: Vec<(&str, bool)> = keyed
        .iter()
        .map(|s| {
            let keys = s.keys.as_ref().unwrap();
            (keys.dir_name.as_str(), keys.last)
        })
        .collect();
    assert_eq!(
        dirs,
        vec![("k-vm1_1", true), ("k-vm1_2", true), ("k-vm2", true)]
    );
    assert!(keyed.iter().all(|s| s.keys.as_ref().unwrap().dir().is_ok()));
    let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, vec!["vm1#1", "vm1#2", "vm2"]);
    assert_eq!(specs[0].destination, "root@10.0.0.1");
    // --remote-iofit wins over hd=vm2,vdbench=/opt/iofit; without it the hd's iofit path runs.
    assert_eq!(specs[0].remote_iofit, "/usr/local/bin/iofit");
    assert_eq!(specs[2].remote_iofit, "/usr/local/bin/iofit");
    let no_flag = Reach {
        remote_iofit: None,
        ..reach()
    };
    let specs_no_flag = vdbench_host_specs(&file, &run, Some(400.0), &no_flag, None).unwrap();
    assert_eq!(specs_no_flag[2].remote_iofit, "/opt/iofit");
    assert_ne!(specs_no_flag[0].remote_iofit, "/opt/iofit");
    // vm1's four SDs (a, b, c and the shared s) dealt to its two workers; vm2 runs s only.
    // A paced pair may be two jobs (some clones one IO a second faster): count SDs, and
    // each SD's 3 threads.
    let sds = |spec: &HostSpec| {
        let mut names: Vec<String> = spec
            .jobs
            .iter()
            .map(|j| j.name.trim_end_matches('+').to_string())
            .collect();
        names.dedup();
        names
    };
    assert_eq!(sds(&specs[0]).len() + sds(&specs[1]).len(), 4);
    assert_eq!(sds(&specs[2]).len(), 1);
    for spec in &specs {
        for sd in sds(spec) {
            let threads: u32 = spec
                .jobs
                .iter()
                .filter(|j| j.name.trim_end_matches('+') == sd)
                .map(|j| j.numjobs)
                .sum();
            assert_eq!(threads, 3, "{sd}");
        }
    }
    // The whole iorate kept in total: the shared SD's share is split between its two hosts.
    let total_rate: f64 = specs
        .iter()
        .flat_map(|s| &s.jobs)
        .map(|j| {
            (j.rate_iops.read.unwrap_or(0) + j.rate_iops.write.unwrap_or(0)) as f64
                * f64::from(j.numjobs)
        })
        .sum();
    // Per-clone caps are whole IO/s, spread so that they add up to the file's iorate=400.
    assert!((total_rate - 400.0).abs() <= 2.0, "{total_rate}");
}

/// Runs every host's jobs here on the null engine with a fake clock; the combined result is
/// all hosts' jobs run together. `lose` names a host reported lost after 1 s.
struct LocalRunner {
    lose: Option<String>,
    calls: usize,
}

impl HostRunner for LocalRunner {
    fn run(&mut self, hosts: Vec<HostSpec>) -> Result<MultiRun, ProcedureError> {
        self.calls += 1;
        let options = RunOptions {
            clock: ClockChoice::Fake { step_ns: 100_000 },
            ..RunOptions::default()
        };
        let null = |jobs: &[iofit_model::job::JobSpec]| {
            let mut jobs = jobs.to_vec();
            for job in &mut jobs {
                job.engine = EngineKind::Null;
            }
            run_jobs(&jobs, &options, &mut Silent).map(|r| r.result)
        };
        let mut all = Vec::new();
        let mut runs = Vec::new();
        for host in &hosts {
            all.extend(host.jobs.iter().cloned());
            let lost = self.lose.as_deref() == Some(host.name.as_str());
            runs.push(HostRun {
                name: host.name.clone(),
                destination: host.destination.clone(),
                result: if lost {
                    None
                } else {
                    Some(null(&host.jobs).unwrap())
                },
                failure: lost.then(|| HostFailure {
                    after_s: iofit_model::units::Seconds(1.0),
                    message: "ssh: connection closed".into(),
                }),
                ..HostRun::default()
            });
        }
        Ok(MultiRun {
            hosts: runs,
            combined: null(&all).unwrap(),
            ..MultiRun::default()
        })
    }
}

#[derive(Default)]
struct Collect(Vec<String>);

impl Observer for Collect {
    fn event(&mut self, event: &Event) {
        self.0.push(event.to_string());
    }
}

#[test]
fn a_vdbench_file_on_hosts_writes_json_after_every_run_and_names_lost_hosts() {
    let dir = tempfile::tempdir().unwrap();
    let text = TWO_HOSTS.replace(
        "rd=r,wd=w,iorate=400,elapsed=2,threads=3\n",
        "rd=r1,wd=w,iorate=max,elapsed=1,threads=2\nrd=r2,wd=w,iorate=200,elapsed=1,threads=1\n",
    );
    let path = dir.path().join("m.vdb");
    let file = iofit_jobfile::vdbench::parse_str(&text, "m.vdb").unwrap();
    let runs = file.runs().unwrap();
    let json = dir.path().join("out.json");
    let options = VdbenchOptions {
        json_output: Some(json.clone()),
        ..VdbenchOptions::default()
    };
    let mut runner = LocalRunner {
        lose: Some("vm2".into()),
        calls: 0,
    };
    let mut observer = Collect::default();
    let statuses = run_vdbench_hosts(
        &path,
        &file,
        runs,
        &options,
        &reach(),
        &mut runner,
        &mut observer,
    )
    .unwrap();
    assert_eq!(runner.calls, 2);
    assert_eq!(statuses.len(), 2);
    for status in &statuses {
        assert!(!status.complete);
        assert_eq!(status.lost.len(), 1);
        assert_eq!(status.lost[0].name, "vm2");
    }
    assert_eq!(observer.0.len(), 2, "one summary per run");
    assert!(observer.0[0].contains("hd=vm2 (10.0.0.2)"));
    assert!(observer.0[0].contains("LOST after 1.0 s"));
    assert!(observer.0[0].contains("Total of all hosts"));
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let written = doc["runs"].as_array().unwrap();
    assert_eq!(written.len(), 2);
    assert_eq!(written[0]["rd"], "r1");
    assert_eq!(written[1]["rd"], "r2");
    // Per-host results are the hosts that finished (vm1's two workers).
    assert_eq!(written[0]["hosts"].as_array().unwrap().len(), 2);
}

#[test]
fn a_stop_before_the_first_run_runs_nothing() {
    let file = iofit_jobfile::vdbench::parse_str(TWO_HOSTS, "m.vdb").unwrap();
    let runs = file.runs().unwrap();
    let reach = reach();
    reach.stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let mut runner = LocalRunner {
        lose: None,
        calls: 0,
    };
    let statuses = run_vdbench_hosts(
        std::path::Path::new("m.vdb"),
        &file,
        runs,
        &VdbenchOptions::default(),
        &reach,
        &mut runner,
        &mut Collect::default(),
    )
    .unwrap();
    assert!(statuses.is_empty());
    assert_eq!(runner.calls, 0);
}

#[test]
fn validate_verdicts_of_the_hosts_are_summed_once_and_named_by_host() {
    use iofit_procedure::hosts::HostsStatus;
    use iofit_stats::{DataError, JobResult, RunResult, VerifyResult};
    let verified = |bad: u64, file: &str| RunResult {
        jobs: vec![JobResult {
            verify: Some(VerifyResult {
                mode: "meta".into(),
                units_checked: 100,
                bad_units: bad,
                errors: (0..bad)
                    .map(|i| DataError {
                        file: file.into(),
                        offset: i * 4096,
                        length: 4096,
                        kind: "bad checksum".into(),
                        ..DataError::default()
                    })
                    .collect(),
            }),
            ..JobResult::default()
        }],
        ..RunResult::default()
    };
    let host = |name: &str, result: RunResult| HostRun {
        name: name.into(),
        destination: name.into(),
        result: Some(result),
        ..HostRun::default()
    };
    let run = MultiRun {
        hosts: vec![
            host("vm1", verified(2, "/data/a")),
            host("vm2", verified(3, "/data/b")),
        ],
        // The combined result is the hosts' merge: counting it too would give 10.
        combined: verified(5, "/data/a"),
        ..MultiRun::default()
    };
    let status = HostsStatus::of(&run);
    assert_eq!(status.data_errors, 5);
    assert_eq!(status.data_error_lines.len(), 5);
    assert!(status.data_error_lines[0].starts_with("hd=vm1 lun=/data/a offset 0"));
    assert!(status.data_error_lines[4].starts_with("hd=vm2 lun=/data/b offset 8192"));
    let clean = MultiRun {
        hosts: vec![host("vm1", verified(0, "/data/a"))],
        ..MultiRun::default()
    };
    assert_eq!(HostsStatus::of(&clean).data_errors, 0);
}

#[test]
fn fio_jobs_on_hosts_run_each_hosts_own_jobs_after_the_stop_is_armed() {
    use iofit_procedure::hosts_ending::fio_on_hosts;
    use iofit_procedure::run_request::{OutputFormat, RunRequest};
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("job.fio");
    let data = dir.path().join("${HOST}.dat");
    std::fs::write(
        &job,
        format!(
            "[a]\nrw=read\nbs=4k\nsize=64k\nfilename={}\n",
            data.display()
        ),
    )
    .unwrap();
    let mut request = RunRequest {
        output_format: OutputFormat::Json,
        ..RunRequest::default()
    };
    let inputs = request
        .take_rest(vec![job.display().to_string(), "--size=32k".into()])
        .unwrap();
    let reach = reach();
    let armed = std::cell::Cell::new(false);
    let mut runner = LocalRunner {
        lose: None,
        calls: 0,
    };
    let ran = fio_on_hosts(&request, "h1,h2", &inputs, &reach, &mut runner, &|stop| {
        assert!(Arc::ptr_eq(&stop, &reach.stop));
        armed.set(true);
    })
    .unwrap();
    assert!(armed.get() && runner.calls == 1);
    assert_eq!(ran.run.hosts.len(), 2);
    // The override reached every host: 32 KiB read per host, 64 KiB together.
    for host in &ran.run.hosts {
        let result = host.result.as_ref().unwrap();
        assert_eq!(
            result.jobs[0].read.io_bytes,
            iofit_model::Bytes(32 << 10),
            "{}",
            host.name
        );
    }
    assert_eq!(
        ran.run
            .combined
            .jobs
            .iter()
            .map(|j| j.read.io_bytes.as_u64())
            .sum::<u64>(),
        64 << 10
    );
    let json: serde_json::Value = serde_json::from_str(&ran.text).unwrap();
    assert!(json.is_object(), "{}", ran.text);
    // With --output the results are written there, whole.
    let output = dir.path().join("results.json");
    request.output = Some(output.clone());
    let ran = fio_on_hosts(&request, "h1,h2", &inputs, &reach, &mut runner, &|_| {}).unwrap();
    assert_eq!(std::fs::read_to_string(&output).unwrap(), ran.text);
}
