//! vdbench file system workloads across hosts: fsd/fwd files whose fwds name hds run on those
//! hosts over ssh (network namespaces with their own sshd, support/netns.rs), each host its
//! fwds against its own fsd anchor, formatted before the common start; the total of all hosts
//! is the sum of the hosts (operations, interval by interval). Needs root, iproute2 and
//! openssh-server; without them these tests fail with the reason.

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::netns::NetnsHosts;

const IOFIT: &str = env!("CARGO_BIN_EXE_iofit");

/// Two hds, each with its own fsd (under the host's data directory) and a fwd naming it.
fn parm(hosts: &NetnsHosts, fwd: &str, rd: &str) -> PathBuf {
    let mut text = String::from("hd=default,shell=ssh,user=root\n");
    for (i, address) in hosts.addresses.iter().enumerate() {
        text.push_str(&format!("hd=hd{},system={address}\n", i + 1));
    }
    for i in 0..hosts.addresses.len() {
        text.push_str(&format!(
            "fsd=fsd{n},anchor={},depth=1,width=2,files=10,size=16k\n",
            hosts.data_dir(i).join("fs").display(),
            n = i + 1
        ));
    }
    for i in 0..hosts.addresses.len() {
        text.push_str(&format!(
            "fwd=fwd{n},fsd=fsd{n},host=hd{n},{fwd}\n",
            n = i + 1
        ));
    }
    text.push_str(rd);
    text.push('\n');
    let path = hosts.dir.path().join("fs.vdb");
    std::fs::write(&path, text).unwrap();
    path
}

fn run_json(hosts: &NetnsHosts, parm: &Path) -> (std::process::Output, Value) {
    let json = hosts.dir.path().join("fs.json");
    let output = Command::new(IOFIT)
        .args(["run", "-q", "--ssh-config"])
        .arg(hosts.ssh_config())
        .arg("--output")
        .arg(&json)
        .arg(parm)
        .output()
        .unwrap();
    let doc = std::fs::read_to_string(&json)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    (output, doc)
}

fn total_line(phase: &Value) -> &Value {
    phase["operations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["operation"] == "total")
        .unwrap()
}

fn op_count(phase: &Value, op: &str) -> u64 {
    phase["operations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["operation"] == op)
        .map(|l| l["ops"].as_u64().unwrap())
        .unwrap_or(0)
}

/// Every interval's count of operation slot `op` (FileOp::ALL order: read is 0).
fn interval_counts(phase: &Value, slot: usize) -> Vec<u64> {
    phase["intervals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["counts"]["count"][slot].as_u64().unwrap())
        .collect()
}

#[test]
fn fwds_run_on_their_hosts_against_their_own_fsds_and_add_up_to_the_total() {
    let hosts = NetnsHosts::up(2);
    let parm = parm(
        &hosts,
        "operation=read,xfersize=4k,threads=2",
        "rd=rd1,fwd=fwd*,fwdrate=max,format=yes,elapsed=3,interval=1",
    );
    let (output, doc) = run_json(&hosts, &parm);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Each host's interval lines and avg line, then the total's.
    assert!(
        stdout.contains("hd=hd1 (") && stdout.contains("hd=hd2 ("),
        "{stdout}"
    );
    assert!(stdout.contains("Total of all hosts"), "{stdout}");
    assert_eq!(stdout.matches("avg_2-3").count(), 3, "{stdout}");
    let run = &doc["fs_runs"][0];
    let per_host = run["hosts"].as_array().expect("per-host parts");
    assert_eq!(per_host.len(), 2, "{run}");
    let total = total_line(&run["run"])["ops"].as_u64().unwrap();
    let host_sum: u64 = per_host
        .iter()
        .map(|h| total_line(&h["run"])["ops"].as_u64().unwrap())
        .sum();
    assert_eq!(total, host_sum, "per-host sums = combined");
    for h in per_host {
        assert!(op_count(&h["run"], "read") > 0, "{h}");
        // format=yes on each host made its own 2 x 10 files.
        assert_eq!(h["files"][0][1], 20, "{h}");
    }
    // Interval by interval, the total is the hosts' sum.
    let totals = interval_counts(&run["run"], 0);
    let a = interval_counts(&per_host[0]["run"], 0);
    let b = interval_counts(&per_host[1]["run"], 0);
    assert_eq!(totals.len(), 3);
    for i in 0..totals.len() {
        assert_eq!(totals[i], a[i] + b[i], "interval {}", i + 1);
    }
    // Each host worked in its own anchor: both trees exist, each with its 20 files.
    for i in 0..2 {
        let anchor = hosts.data_dir(i).join("fs");
        let files: usize = std::fs::read_dir(&anchor)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_dir())
            .map(|d| std::fs::read_dir(d.path()).unwrap().count())
            .sum();
        assert_eq!(files, 20, "{}", anchor.display());
    }
}

#[test]
fn fwdrate_paces_the_operations_of_all_hosts_together() {
    let hosts = NetnsHosts::up(2);
    // 40 reads a second over the run: each fwd (one per host) takes half.
    let parm = parm(
        &hosts,
        "operation=read,xfersize=4k,threads=2",
        "rd=rd1,fwd=fwd*,fwdrate=40,format=yes,elapsed=4,interval=1",
    );
    let (output, doc) = run_json(&hosts, &parm);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let run = &doc["fs_runs"][0];
    let seconds = run["run"]["seconds"].as_f64().unwrap();
    let reads = op_count(&run["run"], "read") as f64;
    let rate = reads / seconds;
    assert!((25.0..=44.0).contains(&rate), "{rate} reads/s: {run}");
    for h in run["hosts"].as_array().unwrap() {
        let host_rate = op_count(&h["run"], "read") as f64 / h["run"]["seconds"].as_f64().unwrap();
        assert!(host_rate <= 22.0, "one host's half of 40/s: {host_rate}");
    }
}

#[test]
fn an_fsd_worked_on_from_two_hosts_is_refused_as_vdbench_does() {
    let dir = tempfile::tempdir().unwrap();
    let parm = dir.path().join("two.vdb");
    std::fs::write(
        &parm,
        format!(
            "hd=default,shell=ssh\nhd=hd1,system=192.0.2.1\nhd=hd2,system=192.0.2.2\n\
             fsd=fsd1,anchor={}/a,depth=1,width=2,files=4,size=8k\n\
             fwd=fwd1,fsd=fsd1,operation=read,threads=1\n\
             rd=rd1,fwd=fwd1,fwdrate=max,format=yes,elapsed=2,interval=1\n",
            dir.path().display()
        ),
    )
    .unwrap();
    let output = Command::new(IOFIT)
        .args(["run", "--parse-only"])
        .arg(&parm)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("two.vdb:5") && stderr.contains("shared=yes"),
        "{stderr}"
    );
}

#[test]
fn ctrl_c_stops_every_hosts_fwds_and_keeps_what_they_measured() {
    let hosts = NetnsHosts::up(2);
    let parm = parm(
        &hosts,
        "operation=read,xfersize=4k,threads=2",
        "rd=rd1,fwd=fwd*,fwdrate=max,format=yes,elapsed=60,interval=1",
    );
    let json = hosts.dir.path().join("fs.json");
    let child = Command::new(IOFIT)
        .args(["run", "-q", "--ssh-config"])
        .arg(hosts.ssh_config())
        .arg("--output")
        .arg(&json)
        .arg(&parm)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(4));
    let signalled = std::time::Instant::now();
    // SAFETY: kill with a child's pid and a valid signal number.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let output = child.wait_with_output().unwrap();
    assert!(
        signalled.elapsed() < std::time::Duration::from_secs(10),
        "stopped {:?} after the signal",
        signalled.elapsed()
    );
    assert_eq!(
        output.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["interrupted"], true);
    let run = &doc["fs_runs"][0];
    let per_host = run["hosts"].as_array().unwrap();
    assert_eq!(per_host.len(), 2, "{run}");
    let total = total_line(&run["run"])["ops"].as_u64().unwrap();
    let host_sum: u64 = per_host
        .iter()
        .map(|h| total_line(&h["run"])["ops"].as_u64().unwrap())
        .sum();
    assert!(total > 0);
    assert_eq!(total, host_sum);
    for i in 0..2 {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while !hosts.workers(i).is_empty() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        assert!(hosts.workers(i).is_empty(), "no worker left on host {i}");
    }
}

#[test]
fn parse_only_shows_each_fwds_host_without_contacting_it() {
    let dir = tempfile::tempdir().unwrap();
    let parm = dir.path().join("two.vdb");
    std::fs::write(
        &parm,
        "hd=default,user=root\nhd=one,system=192.0.2.1\nhd=two,system=192.0.2.2\n\
         fsd=fsd1,anchor=/mnt/a,depth=2,width=2,files=2,size=128k\n\
         fsd=fsd2,anchor=/mnt/b,depth=2,width=2,files=2,size=128k\n\
         fwd=fwd1,host=one,fsd=fsd1,operation=read,threads=2\n\
         fwd=fwd2,host=two,fsd=fsd2,operation=read,threads=2\n\
         rd=rd1,fwd=fwd*,fwdrate=max,format=yes,elapsed=10,interval=1\n",
    )
    .unwrap();
    let output = Command::new(IOFIT)
        .args(["run", "--parse-only"])
        .arg(&parm)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("fwd=fwd1 read threads=2 on hd=one")
            && stdout.contains("fwd=fwd2 read threads=2 on hd=two"),
        "{stdout}"
    );
}

/// A `shared=yes` fsd worked on from two hosts, as vdbench runs it: one anchor (here one
/// directory both namespaces see, as an NFS share would be), formatted in vdbench's two steps,
/// each host making, reading and deleting only its own every-other file.
#[test]
fn a_shared_fsd_on_two_hosts_gives_each_host_every_other_file() {
    let hosts = NetnsHosts::up(2);
    let share = hosts.dir.path().join("share");
    std::fs::create_dir(&share).unwrap();
    let anchor = share.join("fs");
    let mut text = String::from("hd=default,shell=ssh,user=root\n");
    for (i, address) in hosts.addresses.iter().enumerate() {
        text.push_str(&format!("hd=hd{},system={address}\n", i + 1));
    }
    text.push_str(&format!(
        "fsd=fsd1,anchor={},depth=1,width=2,files=10,size=16k,shared=yes\n\
         fwd=fwd1,fsd=fsd1,operation=read,xfersize=4k,threads=2\n\
         fwd=fwdd,fsd=fsd1,operation=delete,fileselect=sequential,threads=1\n\
         rd=clean,fwd=fwd1,fwdrate=max,format=(clean,only),elapsed=2,interval=1\n\
         rd=make,fwd=fwd1,fwdrate=max,format=(restart,only),elapsed=2,interval=1\n\
         rd=read,fwd=fwd1,fwdrate=max,format=no,elapsed=2,interval=1\n\
         rd=delete,fwd=fwdd,fwdrate=max,format=no,elapsed=2,interval=1\n",
        anchor.display()
    ));
    let parm = hosts.dir.path().join("shared.vdb");
    std::fs::write(&parm, text).unwrap();
    let (output, doc) = run_json(&hosts, &parm);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    let runs = doc["fs_runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 4, "{doc}");
    let per_host = |run: &Value| run["hosts"].as_array().expect("per-host parts").clone();
    // The format: 20 files, 10 made by each host, the directories made without an error.
    for h in per_host(&runs[1]) {
        assert_eq!(op_count(&h["format"], "create"), 10, "{h}");
    }
    // The read: each host finds its own 10 files present (of its 10) and reads them.
    for h in per_host(&runs[2]) {
        assert_eq!(h["files"][0][1], 10, "{h}");
        assert_eq!(h["files"][0][2], 10, "{h}");
        assert!(op_count(&h["run"], "read") > 0, "{h}");
    }
    // The delete: each host deletes exactly its 10 (none of the other's, no failures), and
    // the share is empty after.
    // (Counted over every interval: they are done within the first, vdbench's warm-up.)
    for h in per_host(&runs[3]) {
        let deletes: u64 = interval_counts(&h["run"], 7).iter().sum();
        assert_eq!(deletes, 10, "{h}");
        let errors: u64 = h["run"]["intervals"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|i| i["counts"]["errors"].as_array().unwrap().clone())
            .map(|e| e.as_u64().unwrap())
            .sum();
        assert_eq!(errors, 0, "{h}");
        assert_eq!(h["files"][0][1], 0, "{h}");
    }
    let left: usize = std::fs::read_dir(&anchor)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|d| std::fs::read_dir(d.path()).unwrap().count())
        .sum();
    assert_eq!(left, 0);
}
