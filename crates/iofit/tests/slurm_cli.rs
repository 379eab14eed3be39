//! `iofit run --hosts slurm` against a REAL Slurm cluster on this machine: slurmctld and one
//! slurmd per node, each node a network namespace (support/slurm.rs). Workers start as job
//! steps inside an allocation made with `salloc`/`sbatch`; nothing of iofit listens on a port
//! and no ssh key is involved. Needs root, iproute2, slurm-wlm and munge (.ci/run installs
//! them); without them these tests fail with the reason.

mod support;

use iofit_testkit::assert_exit;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use support::slurm::SlurmCluster;

const IOFIT: &str = env!("CARGO_BIN_EXE_iofit");

/// A fio job whose file is in each node's own directory (`${HOST}` is the worker's name).
fn job_file(cluster: &SlurmCluster, runtime_s: u32) -> PathBuf {
    let path = cluster.dir.path().join("job.fio");
    std::fs::write(
        &path,
        format!(
            "[global]\nioengine=psync\nbs=4k\nsize=4m\nruntime={runtime_s}\ntime_based=1\n\n\
             [rr]\nrw=randrw\nfilename={}/${{HOST}}/f\n",
            cluster.dir.path().join("data").display()
        ),
    )
    .unwrap();
    path
}

/// `salloc -N{nodes} iofit run --hosts slurm ARGS`.
fn salloc_run(cluster: &SlurmCluster, nodes: usize, args: &[&str]) -> Command {
    let mut command = cluster.command("salloc");
    command
        .args([
            &format!("-N{nodes}"),
            "--quiet",
            IOFIT,
            "run",
            "--hosts",
            "slurm",
        ])
        .args(args)
        .current_dir(cluster.dir.path());
    command
}

fn json_of(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}); stderr: {}",
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

fn ios(job: &Value) -> u64 {
    job["read"]["total_ios"].as_u64().unwrap() + job["write"]["total_ios"].as_u64().unwrap()
}

fn bytes(job: &Value) -> u64 {
    job["read"]["io_bytes"].as_u64().unwrap() + job["write"]["io_bytes"].as_u64().unwrap()
}

fn completions(job: &Value) -> u64 {
    job["read"]["clat_ns"]["N"].as_u64().unwrap_or(0)
        + job["write"]["clat_ns"]["N"].as_u64().unwrap_or(0)
}

/// Per-worker blocks, then "All clients" = their exact sums (IOs, bytes, completions).
fn check_combined(doc: &Value, workers: &[&str]) {
    let stats = doc["client_stats"].as_array().unwrap();
    assert_eq!(stats.len(), workers.len() + 1, "{doc}");
    for (i, name) in workers.iter().enumerate() {
        assert_eq!(stats[i]["hostname"], *name);
        assert!(ios(&stats[i]) > 0, "{name} did no IO");
        assert_eq!(completions(&stats[i]), ios(&stats[i]), "{name}");
    }
    let all = &stats[workers.len()];
    assert_eq!(all["jobname"], "All clients");
    let part = &stats[..workers.len()];
    assert_eq!(ios(all), part.iter().map(ios).sum::<u64>());
    assert_eq!(bytes(all), part.iter().map(bytes).sum::<u64>());
    assert_eq!(bytes(all), ios(all) * 4096);
    assert_eq!(completions(all), ios(all));
}

/// Every worker of the run was a task of ONE srun step (the issue's "with one srun step").
fn check_one_step(cluster: &SlurmCluster) {
    let steps = cluster.launched_steps();
    assert_eq!(steps.len(), 1, "job steps launched: {steps:?}");
}

fn wait_no_workers(cluster: &SlurmCluster) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while (0..cluster.nodes.len()).any(|i| !cluster.workers(i).is_empty())
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    for i in 0..cluster.nodes.len() {
        assert!(
            cluster.workers(i).is_empty(),
            "a worker outlived its step on {}",
            cluster.nodes[i]
        );
    }
}

#[test]
fn a_fio_job_runs_on_both_allocated_nodes_and_combines_exactly() {
    let cluster = SlurmCluster::up(2);
    let job = job_file(&cluster, 1);
    let output = salloc_run(&cluster, 2, &["--output-format=json", "-q"])
        .arg(&job)
        .output()
        .unwrap();
    assert_exit(&output, 0);
    let doc = json_of(&output);
    check_combined(&doc, &["node1", "node2"]);
    for host in doc["iofit"]["hosts"].as_array().unwrap() {
        assert_eq!(host["complete"], true);
        assert!(host["clock_offset_ms"].as_f64().unwrap().abs() < 1000.0);
    }
    // Each node's worker wrote its own file.
    for i in 0..2 {
        assert!(
            cluster.data_dir(i).join("f").is_file(),
            "no file on node {i}"
        );
    }
    check_one_step(&cluster);
    wait_no_workers(&cluster);
}

#[test]
fn tasks_per_node_starts_that_many_workers_on_every_node() {
    let cluster = SlurmCluster::up(2);
    let job = job_file(&cluster, 1);
    for node in &cluster.nodes {
        for task in 1..=2 {
            std::fs::create_dir_all(
                cluster
                    .dir
                    .path()
                    .join("data")
                    .join(format!("{node}.{task}")),
            )
            .unwrap();
        }
    }
    let output = salloc_run(
        &cluster,
        2,
        &["--tasks-per-node", "2", "--output-format=json", "-q"],
    )
    .arg(&job)
    .output()
    .unwrap();
    assert_exit(&output, 0);
    check_combined(
        &json_of(&output),
        &["node1.1", "node1.2", "node2.1", "node2.2"],
    );
    // The four workers were the four tasks of one step, two on each node.
    check_one_step(&cluster);
    let ran_on = |node: &str| {
        std::fs::read_to_string(cluster.dir.path().join(format!("log/slurmd-{node}.log")))
            .unwrap()
            .contains("launch task StepId=")
    };
    assert!(ran_on("node1") && ran_on("node2"));
}

/// Starts a long run under salloc and waits until both workers run their timed phase.
fn start_long_run(cluster: &SlurmCluster) -> std::process::Child {
    let job = job_file(cluster, 60);
    let child = salloc_run(cluster, 2, &["--output-format=json", "-q"])
        .arg(&job)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !(0..2).all(|i| cluster.data_dir(i).join("f").is_file() && !cluster.workers(i).is_empty())
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        (0..2).all(|i| !cluster.workers(i).is_empty()),
        "the workers did not start"
    );
    std::thread::sleep(Duration::from_millis(1500));
    child
}

#[test]
fn a_cancelled_job_ends_at_once_with_every_node_s_results_marked_incomplete() {
    let cluster = SlurmCluster::up(2);
    let child = start_long_run(&cluster);
    let jobs = cluster.jobs();
    assert_eq!(jobs.len(), 1, "{jobs:?}");
    let cancelled = Instant::now();
    assert!(cluster
        .command("scancel")
        .arg(&jobs[0])
        .status()
        .unwrap()
        .success());
    let output = child.wait_with_output().unwrap();
    let took = cancelled.elapsed();
    // The stop bound: 1 s after the signal the run is over.
    assert!(took < Duration::from_secs(2), "took {took:?} after scancel");
    assert_exit(&output, 3);
    let doc = json_of(&output);
    // What every worker measured until the cancel is kept, merged and marked.
    check_combined(&doc, &["node1", "node2"]);
    for stat in doc["client_stats"].as_array().unwrap() {
        assert_eq!(stat["iofit"]["interrupted"], true);
    }
    for host in doc["iofit"]["hosts"].as_array().unwrap() {
        assert_eq!(host["complete"], false);
        assert!(host["failure"]
            .as_str()
            .unwrap()
            .contains("stopped on the host"));
    }
    check_one_step(&cluster);
    wait_no_workers(&cluster);
}

#[test]
fn a_failed_node_is_reported_and_the_other_node_s_results_are_kept() {
    let cluster = SlurmCluster::up(2);
    let job = job_file(&cluster, 4);
    let child = salloc_run(&cluster, 2, &["--output-format=json", "-q"])
        .arg(&job)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !(0..2).all(|i| !cluster.workers(i).is_empty()) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(1500));
    let failed = Instant::now();
    cluster.fail_node(1);
    let output = child.wait_with_output().unwrap();
    // A failed node is declared lost after 10 s without a word from it.
    assert!(
        failed.elapsed() < Duration::from_secs(15),
        "{:?}",
        failed.elapsed()
    );
    assert_exit(&output, 3);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("host node2 stopped"), "{stderr}");
    let doc = json_of(&output);
    let hosts = doc["iofit"]["hosts"].as_array().unwrap();
    assert_eq!(hosts[0]["complete"], true);
    assert_eq!(hosts[1]["complete"], false);
    assert!(hosts[1]["live_ios"].as_u64().unwrap() > 0);
    check_combined(&doc, &["node1"]);
    check_one_step(&cluster);
    wait_no_workers(&cluster);
}

#[test]
fn a_failed_node_ends_a_long_run_with_what_the_other_node_measured_until_then() {
    // One step for both workers: node2's failure must not take node1's results with it, and
    // the run ends with the loss (as Slurm ends a job whose node fails), not 60 s later.
    let cluster = SlurmCluster::up(2);
    let child = start_long_run(&cluster);
    let failed = Instant::now();
    cluster.fail_node(1);
    let output = child.wait_with_output().unwrap();
    let took = failed.elapsed();
    // Lost after 10 s without a word from it; the other worker then stops within the bound.
    assert!(
        took < Duration::from_secs(15),
        "took {took:?} after the failure"
    );
    assert_exit(&output, 3);
    let doc = json_of(&output);
    let hosts = doc["iofit"]["hosts"].as_array().unwrap();
    assert_eq!(hosts[0]["complete"], false);
    let why = hosts[0]["failure"].as_str().unwrap();
    assert!(why.contains("stopped when node2 was lost"), "{why}");
    assert_eq!(hosts[1]["complete"], false);
    assert!(hosts[1]["failure"]
        .as_str()
        .unwrap()
        .contains("no message from the host"));
    // node1's measurements until the stop are whole: its block, the total = its own.
    check_combined(&doc, &["node1"]);
    let node1 = &doc["client_stats"][0];
    assert_eq!(node1["iofit"]["interrupted"], true);
    let runtime_ms = node1["job_runtime"].as_u64().unwrap();
    assert!(
        (5_000..30_000).contains(&runtime_ms),
        "node1 ran {runtime_ms} ms"
    );
    check_one_step(&cluster);
    wait_no_workers(&cluster);
}

/// The NetApp seed's own generator script, for 2 VMs with 2 volumes each, their mount points
/// in the test's directory; the hd= lines still name the seed's VMs.
fn seed_files(cluster: &SlurmCluster, vms: usize) -> PathBuf {
    let out = cluster.dir.path().join("seed");
    std::fs::create_dir_all(&out).unwrap();
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/vdbench/netapp-seed-script.sh");
    let data = cluster.dir.path().join("data");
    let text = std::fs::read_to_string(script)
        .unwrap()
        .replace("{1..24}", &format!("{{1..{vms}}}"))
        .replace("{1..6}", "{1..2}")
        .replace("/mnt/vdb", &format!("{}/vm${{vm}}/vdb", data.display()));
    std::fs::write(out.join("script.sh"), text).unwrap();
    assert!(Command::new("bash")
        .arg("script.sh")
        .current_dir(&out)
        .status()
        .unwrap()
        .success());
    for vm in 1..=vms {
        for vol in 1..=2 {
            std::fs::create_dir_all(data.join(format!("vm{vm}/vdb{vol}"))).unwrap();
        }
    }
    out
}

#[test]
fn the_netapp_seed_rndread_file_runs_on_the_allocation_s_nodes() {
    let cluster = SlurmCluster::up(2);
    let seed = seed_files(&cluster, 2);
    let json = cluster.dir.path().join("rndread.json");
    let output = salloc_run(
        &cluster,
        2,
        &[
            "-q",
            "--elapsed",
            "1",
            "--warmup",
            "0",
            "--size",
            "4m",
            "--output",
        ],
    )
    .arg(&json)
    .arg(seed.join("vnet1-RndRead-workload"))
    .output()
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}\n{stdout}");
    assert!(
        stderr.contains(
            "hd= lines run on the allocation's nodes in order (vm1 -> node1, vm2 -> node2)"
        ),
        "{stderr}"
    );
    assert!(stdout.contains("Total of all hosts"), "{stdout}");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    // One srun step per run of the file, every hd a task of it.
    let runs = doc["runs"].as_array().unwrap().len();
    let steps = cluster.launched_steps();
    assert_eq!(steps.len(), runs, "{runs} run(s), steps {steps:?}");
    let run = &doc["runs"][0];
    let per_host = run["hosts"].as_array().unwrap();
    assert_eq!(per_host.len(), 2);
    let ios = |j: &Value| j["read"]["ios"].as_u64().unwrap() + j["write"]["ios"].as_u64().unwrap();
    let host_sum: u64 = per_host.iter().map(|h| ios(&h["jobs"][0])).sum();
    assert!(host_sum > 0);
    assert_eq!(ios(&run["result"]["jobs"][0]), host_sum);
    // Each node did IO on its own VM's luns.
    for vm in 1..=2 {
        for vol in 1..=2 {
            let lun = cluster
                .dir
                .path()
                .join(format!("data/vm{vm}/vdb{vol}/file-{vm}-{vol}"));
            assert!(lun.is_file(), "{} missing", lun.display());
        }
    }
}

#[test]
fn the_printed_sbatch_script_runs_under_sbatch() {
    let cluster = SlurmCluster::up(2);
    let job = job_file(&cluster, 1);
    let script = Command::new(IOFIT)
        .args(["slurm-script", "--nodes", "2", "--time", "5"])
        .arg(&job)
        .output()
        .unwrap();
    assert_exit(&script, 0);
    let script_path = cluster.dir.path().join("batch.sh");
    std::fs::write(&script_path, &script.stdout).unwrap();
    let submit = cluster.dir.path().join("submit");
    std::fs::create_dir_all(&submit).unwrap();
    let status = cluster
        .command("sbatch")
        .args(["--wait", "--quiet"])
        .arg(&script_path)
        .current_dir(&submit)
        .status()
        .unwrap();
    assert!(status.success(), "sbatch --wait failed");
    let json = std::fs::read_dir(&submit)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .expect("the job wrote iofit-JOBID.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    check_combined(&doc, &["node1", "node2"]);
    assert!(std::fs::read_dir(&submit).unwrap().any(|e| e
        .unwrap()
        .path()
        .extension()
        .is_some_and(|e| e == "html")));
}

#[test]
fn hosts_slurm_outside_an_allocation_says_how_to_get_one() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("j.fio");
    std::fs::write(&job, "[j]\nrw=read\nsize=1m\nfilename=f\n").unwrap();
    let output = Command::new(IOFIT)
        .args(["run", "--hosts", "slurm"])
        .arg(&job)
        .env_remove("SLURM_JOB_NODELIST")
        .env_remove("SLURM_NODELIST")
        .output()
        .unwrap();
    assert_exit(&output, 2);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("inside a Slurm allocation") && stderr.contains("salloc"),
        "{stderr}"
    );
}

#[test]
fn a_step_task_answers_only_its_own_lines_in_frames() {
    use std::io::Write;
    // Task 1 of a step: the controller's lines reach every task, each names the task it is for.
    let protocol = iofit_remote::protocol::PROTOCOL_VERSION.to_string();
    let mut worker = Command::new(IOFIT)
        .args(["worker", "--protocol", &protocol, "--slurm-step"])
        .env("SLURM_PROCID", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = worker.stdin.take().unwrap();
    writeln!(stdin, r#"0 {{"type":"ping","id":100}}"#).unwrap();
    writeln!(stdin, r#"1 {{"type":"ping","id":7}}"#).unwrap();
    writeln!(stdin, r#"10 {{"type":"ping","id":110}}"#).unwrap();
    writeln!(stdin, r#"* {{"type":"ping","id":8}}"#).unwrap();
    drop(stdin);
    let output = worker.wait_with_output().unwrap();
    assert_exit(&output, 0);
    let stdout = String::from_utf8(output.stdout).unwrap();
    // Every line is one whole frame of task 1 (`~1=LEN JSON`: each message fits one frame).
    let messages: Vec<Value> = stdout
        .lines()
        .map(|line| {
            let (head, json) = line.split_once(' ').unwrap();
            assert_eq!(head, format!("~1={}", json.len()), "{line}");
            serde_json::from_str(json).unwrap()
        })
        .collect();
    assert_eq!(messages[0]["type"], "hello");
    let pongs: Vec<u64> = messages
        .iter()
        .filter(|m| m["type"] == "pong")
        .map(|m| m["id"].as_u64().unwrap())
        .collect();
    assert_eq!(pongs, [7, 8], "{stdout}");
}

#[test]
fn a_step_task_outside_a_step_says_what_starts_it() {
    let protocol = iofit_remote::protocol::PROTOCOL_VERSION.to_string();
    let output = Command::new(IOFIT)
        .args(["worker", "--protocol", &protocol, "--slurm-step"])
        .env_remove("SLURM_PROCID")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_exit(&output, 2);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("SLURM_PROCID") && stderr.contains("--hosts slurm"),
        "{stderr}"
    );
}

#[test]
fn three_hds_on_two_nodes_are_three_tasks_of_one_step_in_the_file_s_order() {
    // vm3 goes to node1 again: the step's tasks are laid out node1, node2, node1.
    let cluster = SlurmCluster::up(2);
    let seed = seed_files(&cluster, 3);
    let json = cluster.dir.path().join("rndread.json");
    let output = salloc_run(
        &cluster,
        2,
        &[
            "-q",
            "--elapsed",
            "1",
            "--warmup",
            "0",
            "--size",
            "4m",
            "--output",
        ],
    )
    .arg(&json)
    .arg(seed.join("vnet1-RndRead-workload"))
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("(vm1 -> node1, vm2 -> node2, vm3 -> node1)"),
        "{stderr}"
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let run = &doc["runs"][0];
    let per_host = run["hosts"].as_array().unwrap();
    assert_eq!(per_host.len(), 3);
    let ios = |j: &Value| j["read"]["ios"].as_u64().unwrap() + j["write"]["ios"].as_u64().unwrap();
    let host_sum: u64 = per_host.iter().map(|h| ios(&h["jobs"][0])).sum();
    assert_eq!(ios(&run["result"]["jobs"][0]), host_sum);
    for host in per_host {
        assert!(ios(&host["jobs"][0]) > 0, "{host}");
    }
    assert_eq!(cluster.launched_steps().len(), 1);
}

/// The run's one step while it runs (`JOB.STEP`), checked to be the only one: every worker is
/// one of its tasks.
fn the_one_running_step(cluster: &SlurmCluster) -> String {
    let listed = cluster
        .command("squeue")
        .args(["-h", "-s", "-o", "%i %j"])
        .output()
        .unwrap();
    let steps: Vec<String> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.contains(".extern") && !l.contains(".interactive"))
        .map(str::to_string)
        .collect();
    assert_eq!(steps.len(), 1, "{steps:?}");
    let (step, name) = steps[0].split_once(' ').unwrap();
    assert_eq!(name, "iofit-worker");
    step.to_string()
}

#[test]
fn a_step_signalled_to_stop_ends_with_every_worker_s_results() {
    let cluster = SlurmCluster::up(2);
    let child = start_long_run(&cluster);
    let step = the_one_running_step(&cluster);
    // SIGTERM to the step's tasks (what the job's cancel and time limit send first).
    let cancelled = Instant::now();
    assert!(cluster
        .command("scancel")
        .args(["--signal=TERM", &step])
        .status()
        .unwrap()
        .success());
    let output = child.wait_with_output().unwrap();
    let took = cancelled.elapsed();
    assert!(
        took < Duration::from_secs(2),
        "took {took:?} after scancel {step}"
    );
    assert_exit(&output, 3);
    let doc = json_of(&output);
    check_combined(&doc, &["node1", "node2"]);
    for host in doc["iofit"]["hosts"].as_array().unwrap() {
        assert_eq!(host["complete"], false);
        assert!(host["failure"]
            .as_str()
            .unwrap()
            .contains("stopped on the host"));
    }
    wait_no_workers(&cluster);
}

#[test]
fn a_cancelled_step_ends_the_run_at_once_naming_what_slurm_did() {
    // `scancel JOB.STEP` kills the step's tasks outright (SIGKILL, no SIGTERM first): no
    // worker can send its results; the run still ends at once, every host marked lost with
    // the live counts it had sent and Slurm's own words.
    let cluster = SlurmCluster::up(2);
    let child = start_long_run(&cluster);
    let step = the_one_running_step(&cluster);
    let cancelled = Instant::now();
    assert!(cluster
        .command("scancel")
        .arg(&step)
        .status()
        .unwrap()
        .success());
    let output = child.wait_with_output().unwrap();
    let took = cancelled.elapsed();
    assert!(
        took < Duration::from_secs(2),
        "took {took:?} after scancel {step}"
    );
    assert_exit(&output, 3);
    let doc = json_of(&output);
    for host in doc["iofit"]["hosts"].as_array().unwrap() {
        assert_eq!(host["complete"], false);
        assert!(host["live_ios"].as_u64().unwrap() > 0, "{host}");
        let why = host["failure"].as_str().unwrap();
        assert!(
            why.contains("connection lost") && why.contains("Killed"),
            "{why}"
        );
    }
    wait_no_workers(&cluster);
}
