//! Multi-host runs against REAL hosts: network namespaces on this machine, each with its own
//! address and OpenSSH sshd, reached through the real ssh client (support/netns.rs). Needs
//! root, iproute2 and openssh-server (CI installs it); without them these tests fail with the
//! reason.

mod support;

use iofit_testkit::assert_exit;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use support::netns::{kill, NetnsHosts};

const IOFIT: &str = env!("CARGO_BIN_EXE_iofit");

/// A fio job whose file is in each host's own directory under `base` (`${HOST}`).
fn job_file(dir: &Path, base: &Path, runtime_s: u32) -> std::path::PathBuf {
    let path = dir.join("multi.fio");
    std::fs::write(
        &path,
        format!(
            "[global]\nioengine=psync\nbs=4k\nsize=4m\nruntime={runtime_s}\ntime_based=1\n\n[rr]\nrw=randrw\nfilename={}/${{HOST}}/f\n",
            base.display()
        ),
    )
    .unwrap();
    path
}

fn iofit(hosts: &NetnsHosts, args: &[&str]) -> Command {
    let mut command = Command::new(IOFIT);
    command
        .arg("run")
        .arg("--hosts")
        .arg(hosts.hosts_file())
        .arg("--ssh-config")
        .arg(hosts.ssh_config())
        .args(args);
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

#[test]
fn fio_job_runs_on_four_hosts_with_per_host_targets_and_a_combined_total() {
    let hosts = NetnsHosts::up(4);
    let job = job_file(hosts.dir.path(), &hosts.dir.path().join("data"), 1);
    let report = hosts.dir.path().join("report.html");
    let output = iofit(&hosts, &["--output-format=json", "-q", "--report"])
        .arg(&report)
        .arg(&job)
        .output()
        .unwrap();
    assert_exit(&output, 0);
    // The HTML report: the hosts table and a chart with one line per host.
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(
        html.contains("IOPS per host") && html.contains("<svg"),
        "no per-host chart"
    );
    for address in &hosts.addresses {
        assert!(
            html.matches(address.as_str()).count() >= 2,
            "{address} not in table and chart"
        );
    }
    let doc = json_of(&output);
    let stats = doc["client_stats"].as_array().unwrap();
    assert_eq!(stats.len(), 5, "4 hosts and All clients");
    for (i, address) in hosts.addresses.iter().enumerate() {
        assert_eq!(stats[i]["hostname"], address.as_str());
        assert!(ios(&stats[i]) > 0, "host {address} did no IO");
        // Each host wrote its own file, in its own directory.
        assert!(
            hosts.data_dir(i).join("f").is_file(),
            "no file on {address}"
        );
    }
    let all = &stats[4];
    assert_eq!(all["jobname"], "All clients");
    // Per-host sums equal the combined total, for IOs, bytes and histogram counts.
    let host_ios: u64 = stats[..4].iter().map(ios).sum();
    assert_eq!(ios(all), host_ios);
    let bytes = |j: &Value| {
        j["read"]["io_bytes"].as_u64().unwrap() + j["write"]["io_bytes"].as_u64().unwrap()
    };
    assert_eq!(bytes(all), stats[..4].iter().map(bytes).sum::<u64>());
    assert_eq!(bytes(all), ios(all) * 4096);
    let clat_count = |j: &Value| {
        j["read"]["clat_ns"]["N"].as_u64().unwrap_or(0)
            + j["write"]["clat_ns"]["N"].as_u64().unwrap_or(0)
    };
    if all["read"]["clat_ns"].get("N").is_some() {
        assert_eq!(clat_count(all), ios(all));
    }
    // Clock offsets were measured over the channel (same machine: well under a second).
    for host in doc["iofit"]["hosts"].as_array().unwrap() {
        assert_eq!(host["complete"], true);
        assert!(host["clock_offset_ms"].as_f64().unwrap().abs() < 1000.0);
    }
    // The combined series is the sum of the hosts' aligned intervals.
    let series = |j: &Value| j["iofit"]["series"].as_array().cloned().unwrap_or_default();
    let combined = series(all);
    if !combined.is_empty() {
        let sum_first: u64 = stats[..4]
            .iter()
            .filter_map(|j| {
                series(j)
                    .first()
                    .map(|s| s["read_ios"].as_u64().unwrap() + s["write_ios"].as_u64().unwrap())
            })
            .sum();
        let first = &combined[0];
        assert_eq!(
            first["read_ios"].as_u64().unwrap() + first["write_ios"].as_u64().unwrap(),
            sum_first
        );
    }
}

#[test]
fn trims_on_two_hosts_add_up_in_the_combined_trim_block() {
    let hosts = NetnsHosts::up(2);
    let base = hosts.dir.path().join("data");
    let job = hosts.dir.path().join("trim.fio");
    std::fs::write(
        &job,
        format!(
            "[t]\nioengine=psync\nbs=4k,4k,16k\nsize=1m\nrw=randtrim\nfilename={}/${{HOST}}/f\n",
            base.display()
        ),
    )
    .unwrap();
    let output = iofit(&hosts, &["--output-format=json", "-q"])
        .arg(&job)
        .output()
        .unwrap();
    assert_exit(&output, 0);
    let doc = json_of(&output);
    let stats = doc["client_stats"].as_array().unwrap();
    let trim = |j: &Value, key: &str| j["trim"][key].as_u64().unwrap();
    // Each host trims its own 1 MiB file in 64 trims of 16 KiB; the combination is their sum,
    // with a latency histogram that counts every trim.
    for host in &stats[..2] {
        assert_eq!(
            (trim(host, "total_ios"), trim(host, "io_bytes")),
            (64, 1 << 20)
        );
    }
    let all = &stats[2];
    assert_eq!(all["jobname"], "All clients");
    assert_eq!(
        (trim(all, "total_ios"), trim(all, "io_bytes")),
        (128, 2 << 20)
    );
    assert_eq!(all["trim"]["clat_ns"]["N"].as_u64(), Some(128));
}

#[test]
fn an_unauthenticated_host_stops_everything_before_any_io() {
    let hosts = NetnsHosts::up(2);
    // Host 2 is reached with a key it does not authorise.
    let wrong = hosts.dir.path().join("wrong_key");
    assert!(Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-f"])
        .arg(&wrong)
        .status()
        .unwrap()
        .success());
    // IdentityFile accumulates over matching Host blocks, so each host gets its own block.
    let config = hosts.dir.path().join("ssh_config_wrong");
    let dir = hosts.dir.path().display();
    let block = |address: &str, key: String| {
        format!(
            "Host {address}\n    User root\n    IdentityFile {key}\n    IdentitiesOnly yes\n    UserKnownHostsFile {dir}/known_hosts\n    StrictHostKeyChecking accept-new\n    LogLevel ERROR\n\n"
        )
    };
    std::fs::write(
        &config,
        block(&hosts.addresses[0], format!("{dir}/id_ed25519"))
            + &block(&hosts.addresses[1], wrong.display().to_string()),
    )
    .unwrap();
    let job = job_file(hosts.dir.path(), &hosts.dir.path().join("data"), 1);
    let output = Command::new(IOFIT)
        .args(["run", "-q", "--hosts"])
        .arg(hosts.hosts_file())
        .arg("--ssh-config")
        .arg(&config)
        .arg(&job)
        .env("SSH_AUTH_SOCK", "/nonexistent")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no host started IO"), "{stderr}");
    assert!(
        stderr.contains(&hosts.addresses[1]) && stderr.contains("Permission denied"),
        "{stderr}"
    );
    // Nothing started: not even the reachable host laid out its file.
    assert!(!hosts.data_dir(0).join("f").exists());
    assert!(!hosts.data_dir(1).join("f").exists());
    assert!(hosts.workers(0).is_empty());
}

#[test]
fn a_remote_binary_of_another_version_is_refused_naming_both() {
    let hosts = NetnsHosts::up(1);
    let fake = hosts.dir.path().join("fake-iofit");
    std::fs::write(
        &fake,
        "#!/bin/sh\necho '{\"type\":\"hello\",\"protocol\":99,\"version\":\"9.9.9\",\"hostname\":\"fake\"}'\ncat >/dev/null\n",
    )
    .unwrap();
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(&fake)
        .status()
        .unwrap();
    let job = job_file(hosts.dir.path(), &hosts.dir.path().join("data"), 1);
    let output = iofit(&hosts, &["-q", "--remote-iofit"])
        .arg(&fake)
        .arg(&job)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("version mismatch"), "{stderr}");
    assert!(
        stderr.contains("9.9.9") && stderr.contains("protocol 99"),
        "{stderr}"
    );
    assert!(
        stderr.contains(env!("CARGO_PKG_VERSION"))
            && stderr.contains(&format!(
                "protocol {}",
                iofit_remote::protocol::PROTOCOL_VERSION
            )),
        "{stderr}"
    );
    assert!(!hosts.data_dir(0).join("f").exists());
}

/// Runs a 4 s job on 3 hosts, calls `fault` on host 2 after 1.5 s, returns the JSON and exit.
fn run_with_fault(hosts: &NetnsHosts, fault: impl FnOnce()) -> (Option<i32>, Value, String) {
    let job = job_file(hosts.dir.path(), &hosts.dir.path().join("data"), 4);
    let child = iofit(hosts, &["--output-format=json", "-q"])
        .arg(&job)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the timed phase runs on every host (each laid out its file), then 2 s more.
    let deadline = Instant::now() + Duration::from_secs(20);
    while !(0..3).all(|i| hosts.data_dir(i).join("f").is_file()) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(2000));
    fault();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.code(), json_of(&output), stderr)
}

fn check_lost_host(code: Option<i32>, doc: &Value, stderr: &str, lost: &str) {
    assert_eq!(code, Some(3), "incomplete run: {stderr}");
    assert!(stderr.contains(&format!("host {lost} stopped")), "{stderr}");
    let host_info = doc["iofit"]["hosts"].as_array().unwrap();
    assert_eq!(host_info[1]["complete"], false);
    let after = host_info[1]["stopped_after_s"].as_f64().unwrap();
    assert!(after > 0.5 && after < 4.0, "stopped after {after} s");
    assert!(host_info[1]["live_ios"].as_u64().unwrap() > 0);
    // The other hosts finished and their results are kept and combined.
    let stats = doc["client_stats"].as_array().unwrap();
    assert_eq!(stats.len(), 3, "2 finished hosts and All clients");
    assert_eq!(ios(&stats[2]), ios(&stats[0]) + ios(&stats[1]));
    assert!(
        stats[0]["job_runtime"].as_u64().unwrap_or(4000) >= 3500
            || stats[0]["read"]["runtime"].as_u64().unwrap() >= 3500
    );
}

fn wait_no_workers(hosts: &NetnsHosts, i: usize) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !hosts.workers(i).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        hosts.workers(i).is_empty(),
        "worker left behind: {:?}",
        hosts.workers(i)
    );
}

#[test]
fn a_host_whose_sshd_dies_mid_run_is_reported_and_the_others_finish() {
    let hosts = NetnsHosts::up(3);
    let (code, doc, stderr) = run_with_fault(&hosts, || hosts.kill_sshd(1));
    check_lost_host(code, &doc, &stderr, &hosts.addresses[1]);
    wait_no_workers(&hosts, 1);
}

#[test]
fn a_killed_remote_worker_is_reported_and_the_others_finish() {
    let hosts = NetnsHosts::up(3);
    let (code, doc, stderr) = run_with_fault(&hosts, || {
        let workers = hosts.workers(1);
        assert_eq!(workers.len(), 1, "{workers:?}");
        kill(workers[0].0, 9);
    });
    check_lost_host(code, &doc, &stderr, &hosts.addresses[1]);
}

#[test]
fn ctrl_c_stops_every_remote_worker_and_keeps_the_results() {
    let hosts = NetnsHosts::up(2);
    let job = job_file(hosts.dir.path(), &hosts.dir.path().join("data"), 60);
    let child = iofit(&hosts, &["--output-format=json", "-q"])
        .arg(&job)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until both workers run their timed phase (each laid out its file), then 1.5 s more.
    let deadline = Instant::now() + Duration::from_secs(20);
    while !(0..2).all(|i| hosts.data_dir(i).join("f").is_file() && !hosts.workers(i).is_empty())
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        !hosts.workers(0).is_empty() && !hosts.workers(1).is_empty(),
        "workers did not start"
    );
    std::thread::sleep(Duration::from_millis(1500));
    let started = Instant::now();
    kill(child.id(), 2);
    let output = child.wait_with_output().unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_exit(&output, 130);
    let doc = json_of(&output);
    let stats = doc["client_stats"].as_array().unwrap();
    assert_eq!(stats.len(), 3);
    assert!(ios(&stats[2]) > 0);
    // The remote side's process list: no worker left on any host.
    wait_no_workers(&hosts, 0);
    wait_no_workers(&hosts, 1);
}

/// Generates the NetApp seed's vdbench files with the seed's own script, changing only the
/// host count (3 VMs), the luns per VM (2), the mount points (each host's own directory) and
/// the host names (the namespace addresses).
fn seed_files(hosts: &NetnsHosts) -> std::path::PathBuf {
    let out = hosts.dir.path().join("seed");
    std::fs::create_dir_all(&out).unwrap();
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/vdbench/netapp-seed-script.sh");
    let data = hosts.dir.path().join("data");
    let prefix = hosts.addresses[0].rsplit_once('.').unwrap().0.to_string();
    let text = std::fs::read_to_string(script)
        .unwrap()
        .replace("{1..24}", "{1..3}")
        .replace("{1..6}", "{1..2}")
        .replace(
            "/mnt/vdb",
            &format!("{}/{prefix}.${{vm}}/vdb", data.display()),
        )
        .replace(
            "system=vdbench-vnet${vnet}-${vm}",
            &format!("system={prefix}.${{vm}}"),
        );
    std::fs::write(out.join("script.sh"), text).unwrap();
    assert!(Command::new("bash")
        .arg("script.sh")
        .current_dir(&out)
        .status()
        .unwrap()
        .success());
    for (i, _) in hosts.addresses.iter().enumerate() {
        for vol in 1..=2 {
            std::fs::create_dir_all(hosts.data_dir(i).join(format!("vdb{vol}"))).unwrap();
        }
    }
    out
}

#[test]
fn the_netapp_seed_runs_across_three_hosts_with_two_luns_each() {
    let hosts = NetnsHosts::up(3);
    let seed = seed_files(&hosts);
    let hosts_file = std::fs::read_to_string(seed.join("vnet1-hosts-nfs")).unwrap();
    assert!(
        hosts_file.contains("hd=default,jvms=1,shell=ssh"),
        "{hosts_file}"
    );
    assert!(hosts_file.contains(&format!("hd=vm3,system={},user=root", hosts.addresses[2])));
    for (pattern, runs, clones_per_host) in [
        ("RndRead", 1, 2 * 25),
        ("SeqMix", 2, 2),
        ("FillWrite", 1, 2),
    ] {
        let json = hosts.dir.path().join(format!("{pattern}.json"));
        // FillWrite ends at the end of its luns (seekpct=eof); a 1 s bound would cut the pass
        // short on a loaded machine, so it gets time to finish and stops on its own.
        let elapsed_s = if pattern == "FillWrite" { "120" } else { "1" };
        let output = Command::new(IOFIT)
            .args([
                "run",
                "-q",
                "--elapsed",
                elapsed_s,
                "--warmup",
                "0",
                "--size",
                "4m",
                "--ssh-config",
            ])
            .arg(hosts.ssh_config())
            .arg("--output")
            .arg(&json)
            .arg(seed.join(format!("vnet1-{pattern}-workload")))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{pattern}: {}\n{stdout}",
            String::from_utf8_lossy(&output.stderr)
        );
        // vdbench-style summaries: one per host and the total, each with its avg line.
        assert!(stdout.contains("Total of all hosts"), "{stdout}");
        assert_eq!(stdout.matches("avg_").count(), runs * 4, "{stdout}");
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let done = doc["runs"].as_array().unwrap();
        assert_eq!(done.len(), runs, "{pattern}");
        for run in done {
            let per_host = run["hosts"].as_array().unwrap();
            assert_eq!(per_host.len(), 3);
            let total = &run["result"]["jobs"][0];
            let ios = |j: &Value| {
                j["read"]["ios"].as_u64().unwrap() + j["write"]["ios"].as_u64().unwrap()
            };
            let host_sum: u64 = per_host.iter().map(|h| ios(&h["jobs"][0])).sum();
            assert_eq!(ios(total), host_sum, "{pattern}: per-host sums = combined");
            assert!(host_sum > 0);
            for h in per_host {
                assert_eq!(h["jobs"][0]["clones"], clones_per_host, "{pattern}");
            }
        }
        if pattern == "FillWrite" {
            // seekpct=eof: one pass over each host's two 4 MiB luns in 64 KiB writes.
            assert_eq!(done[0]["result"]["jobs"][0]["write"]["ios"], 3 * 2 * 64);
        }
    }
    // Each host did IO only on its own luns, in its own directory.
    for (i, _) in hosts.addresses.iter().enumerate() {
        let vm = i + 1;
        for vol in 1..=2 {
            let own = hosts.data_dir(i).join(format!("vdb{vol}/file-{vm}-{vol}"));
            assert!(own.is_file(), "missing {}", own.display());
        }
        let entries = std::fs::read_dir(hosts.data_dir(i).join("vdb1"))
            .unwrap()
            .count();
        assert!(
            entries <= 2,
            "host {vm}'s directory holds another host's lun"
        );
    }
}

#[test]
fn each_host_refuses_to_overwrite_data_it_did_not_create() {
    let hosts = NetnsHosts::up(2);
    // Host 2 already has a file at the job's path that iofit did not make.
    let precious = hosts.data_dir(1).join("f");
    std::fs::write(&precious, b"someone's data").unwrap();
    let job = job_file(hosts.dir.path(), &hosts.dir.path().join("data"), 1);
    let output = iofit(&hosts, &["-q"]).arg(&job).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("no host started IO") && stderr.contains(&hosts.addresses[1]),
        "{stderr}"
    );
    assert!(stderr.contains("--allow-overwrite"), "{stderr}");
    assert_eq!(std::fs::read(&precious).unwrap(), b"someone's data");
}

#[test]
fn parse_only_shows_each_hosts_own_target_without_contacting_it() {
    let job = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/multihost/randread.fio");
    let output = Command::new(IOFIT)
        .args(["run", "--parse-only", "--hosts", "10.0.0.1,root@vm2"])
        .arg(&job)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("10.0.0.1: rr") && text.contains("/data/10.0.0.1/f"),
        "{text}"
    );
    assert!(
        text.contains("root@vm2: rr") && text.contains("/data/vm2/f"),
        "{text}"
    );
    // A host list with nothing in it is bad input, named.
    let output = Command::new(IOFIT)
        .args(["run", "--hosts", ",", "--parse-only"])
        .arg(&job)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--hosts"));
}

#[test]
fn validate_keys_carry_from_one_rd_to_the_next_on_each_host() {
    let hosts = NetnsHosts::up(2);
    for i in 0..2 {
        std::fs::create_dir_all(hosts.data_dir(i)).unwrap();
    }
    // shell=rsh: runs over ssh, and a note says so.
    let file = hosts.dir.path().join("validate.vdb");
    std::fs::write(
        &file,
        format!(
            "validate=yes\nhd=default,user=root,shell=rsh\nhd=h1,system={}\nhd=h2,system={}\n\
             sd=sd1,host=h1,lun={}/lun,size=4m\nsd=sd2,host=h2,lun={}/lun,size=4m\n\
             wd=write,sd=sd*,xfersize=4k,rdpct=0,seekpct=eof\n\
             wd=read,sd=sd*,xfersize=4k,rdpct=100,seekpct=eof\n\
             rd=w,wd=write,iorate=max,elapsed=10,interval=1\n\
             rd=r,wd=read,iorate=max,elapsed=10,interval=1\n",
            hosts.addresses[0],
            hosts.addresses[1],
            hosts.data_dir(0).display(),
            hosts.data_dir(1).display()
        ),
    )
    .unwrap();
    let json = hosts.dir.path().join("validate.json");
    let child = Command::new(IOFIT)
        .args(["run", "-q", "--ssh-config"])
        .arg(hosts.ssh_config())
        .arg("--output")
        .arg(&json)
        .arg(&file)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("shell=rsh runs over ssh"),
        "no note: {stderr}"
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    // The read rd checks every block the write rd wrote, on each host: 4 MiB / 4 KiB.
    let read_hosts = runs[1]["hosts"].as_array().unwrap();
    assert_eq!(read_hosts.len(), 2);
    for host in read_hosts {
        let verify = &host["jobs"][0]["verify"];
        assert_eq!(verify["units_checked"], 1024, "{verify}");
        assert_eq!(verify["bad_units"], 0, "{verify}");
    }
    // The hosts' keys directories went with the file's last validating rd.
    let left: Vec<String> = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&format!("iofit-validate-hosts-{pid}-")))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn per_priority_latencies_of_every_host_add_up_in_the_combined_result() {
    // A cmdprio job on the null engine: each host's `prios` entries (fio 3.33's per-priority
    // clat) cross the protocol as histograms and merge into the combined result.
    let hosts = NetnsHosts::up(2);
    let job = hosts.dir.path().join("prios.fio");
    std::fs::write(
        &job,
        "[p]\nioengine=null\nsize=4m\nbs=4k\nrw=randread\niodepth=4\n\
         cmdprio_percentage=30\ncmdprio_class=2\ncmdprio=1\n",
    )
    .unwrap();
    let output = iofit(&hosts, &["--output-format=json", "-q"])
        .arg(&job)
        .output()
        .unwrap();
    assert_exit(&output, 0);
    let doc = json_of(&output);
    let stats = doc["client_stats"].as_array().unwrap();
    assert_eq!(stats.len(), 3, "2 hosts and All clients");
    let prios = |j: &Value| -> Vec<(u64, u64, u64)> {
        j["read"]["prios"]
            .as_array()
            .unwrap_or_else(|| panic!("no prios in {}", j["jobname"]))
            .iter()
            .map(|p| {
                let n = p["clat_ns"]["N"].as_u64().unwrap();
                (
                    p["prioclass"].as_u64().unwrap(),
                    p["prio"].as_u64().unwrap(),
                    n,
                )
            })
            .collect()
    };
    let (a, b, all) = (prios(&stats[0]), prios(&stats[1]), prios(&stats[2]));
    assert_eq!(all.len(), 2, "{all:?}");
    for (i, entry) in all.iter().enumerate() {
        assert_eq!((entry.0, entry.1), (a[i].0, a[i].1));
        assert_eq!((entry.0, entry.1), (b[i].0, b[i].1));
        assert_eq!(
            entry.2,
            a[i].2 + b[i].2,
            "per-host sums = combined for {entry:?}"
        );
    }
    let total = stats[2]["read"]["total_ios"].as_u64().unwrap();
    assert_eq!(total, 2 * 1024);
    assert_eq!(all.iter().map(|e| e.2).sum::<u64>(), total);
}
