//! ssh sessions start in waves below OpenSSH's default MaxStartups (10:30:100), and a session
//! the server resets before it authenticates is started again. The `ssh` on PATH here is a
//! stand-in server: it counts the sessions still authenticating, resets a new one when 10
//! are (as sshd's MaxStartups start=10 would, at worst), holds each for 0.3 s of
//! "authentication", then runs the remote command on this machine.

use std::path::Path;
use std::process::Command;

const FAKE_SSH: &str = r#"#!/bin/bash
dir="$FAKE_SSH_DIR"
cmd="${@: -1}"
touch "$dir/pending.$$"
n=$(ls "$dir" | grep -c '^pending\.')
echo "$n" >> "$dir/concurrent"
tries=1; while ! mkdir "$dir/ticket.$tries" 2>/dev/null; do tries=$((tries + 1)); done
if [ "$n" -gt 10 ] || [ "$tries" -le "${FAKE_SSH_RESET_FIRST:-0}" ]; then
    rm -f "$dir/pending.$$"
    echo "kex_exchange_identification: read: Connection reset by peer" >&2
    exit 255
fi
sleep 0.3
rm -f "$dir/pending.$$"
exec sh -c "$cmd"
"#;

fn parm(dir: &Path, jvms: u32) -> std::path::PathBuf {
    let data = dir.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let mut text = format!("hd=default,shell=ssh,jvms={jvms}\nhd=hd1,system=fakehost.invalid\n");
    for n in 1..=jvms {
        text.push_str(&format!(
            "sd=sd{n},host=hd*,lun={}/f{n},size=1m\n",
            data.display()
        ));
    }
    text.push_str(
        "wd=w,sd=sd*,xfersize=4k,rdpct=100\nrd=r,wd=w,iorate=max,elapsed=2,interval=1,threads=1\n",
    );
    let path = dir.join("jvms.vdb");
    std::fs::write(&path, text).unwrap();
    path
}

fn run(reset_first: u32) -> (std::process::Output, Vec<u32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    let state = dir.path().join("state");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&state).unwrap();
    let ssh = bin.join("ssh");
    std::fs::write(&ssh, FAKE_SSH).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&ssh, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = Command::new(assert_cmd::cargo::cargo_bin("iofit"))
        .current_dir(dir.path())
        .env("PATH", path)
        .env("FAKE_SSH_DIR", &state)
        .env("FAKE_SSH_RESET_FIRST", reset_first.to_string())
        .args(["vdbench", "-f"])
        .arg(parm(dir.path(), 32))
        .arg("-o")
        .arg(dir.path().join("output"))
        .output()
        .unwrap();
    let concurrent = std::fs::read_to_string(state.join("concurrent"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    let summary =
        std::fs::read_to_string(dir.path().join("output/summary.html")).unwrap_or_default();
    (output, concurrent, summary)
}

#[test]
fn thirty_two_jvms_start_in_waves_below_max_startups() {
    let (output, concurrent, summary) = run(0);
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{text}");
    assert_eq!(
        concurrent.len(),
        32,
        "one session per jvm, none reset: {concurrent:?}"
    );
    assert!(
        concurrent.iter().all(|&n| n <= 8),
        "at most 8 authenticating at once: {concurrent:?}"
    );
    assert!(text.contains("avg_"), "{text}");
    // summary.html holds the hosts' total, as vdbench's does: one avg line for the run.
    let avg: Vec<&str> = summary.lines().filter(|l| l.contains("avg_2-2")).collect();
    assert_eq!(avg.len(), 1, "{summary}");
}

#[test]
fn sessions_reset_before_authenticating_are_started_again() {
    // The server resets the first 5 sessions it sees.
    let (output, concurrent, _) = run(5);
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{text}");
    assert_eq!(
        concurrent.len(),
        37,
        "32 sessions and 5 retries: {concurrent:?}"
    );
}
