//! Real ssh hosts on this machine for multi-host tests: network namespaces, each with its own
//! address and OpenSSH sshd, built by `examples/multihost/netns-hosts.sh` (the same script the
//! README uses). Dropping a `NetnsHosts` stops every process in its namespaces and removes them,
//! also when the test failed. Where namespaces or sshd are not available the constructor
//! panics with the reason: such a test fails, it never passes silently.

#![allow(dead_code)] // each test binary uses a different part of the harness

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct NetnsHosts {
    pub dir: tempfile::TempDir,
    /// Addresses of the hosts, in order (host 1 first).
    pub addresses: Vec<String>,
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/multihost/netns-hosts.sh")
}

impl NetnsHosts {
    /// Builds `count` hosts. Panics with the script's reason when that is not possible here.
    pub fn up(count: usize) -> NetnsHosts {
        let dir = tempfile::Builder::new()
            .prefix("iofit-netns-")
            .tempdir()
            .expect("temp dir");
        // Constructed before the script runs, so a half-built set is torn down by Drop.
        let mut hosts = NetnsHosts {
            dir,
            addresses: Vec::new(),
        };
        let output = Command::new("bash")
            .arg(script())
            .args(["up", &count.to_string()])
            .arg(hosts.dir.path())
            .output()
            .expect("bash runs");
        assert!(
            output.status.success(),
            "cannot build {count} namespace hosts (multi-host tests need root, network namespaces and openssh-server): {}",
            String::from_utf8_lossy(&output.stderr)
        );
        hosts.addresses = std::fs::read_to_string(hosts.dir.path().join("hosts"))
            .expect("hosts file")
            .lines()
            .map(str::to_string)
            .collect();
        assert_eq!(hosts.addresses.len(), count);
        hosts
    }

    pub fn ssh_config(&self) -> PathBuf {
        self.dir.path().join("ssh_config")
    }

    pub fn hosts_file(&self) -> PathBuf {
        self.dir.path().join("hosts")
    }

    /// The target directory of host `i` (from 0).
    pub fn data_dir(&self, i: usize) -> PathBuf {
        self.dir.path().join("data").join(&self.addresses[i])
    }

    /// The network namespace of host `i` (from 0).
    pub fn namespace(&self, i: usize) -> String {
        let set = std::fs::read_to_string(self.dir.path().join("set")).expect("set");
        format!("iofit-{}-{}", set.trim(), i + 1)
    }

    /// (pid, command line) of every process in host `i`'s namespace.
    pub fn processes(&self, i: usize) -> Vec<(u32, String)> {
        let output = Command::new("ip")
            .args(["netns", "pids", &self.namespace(i)])
            .output()
            .expect("ip runs");
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|l| l.trim().parse::<u32>().ok())
            .filter_map(|pid| {
                let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
                let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
                Some((pid, text.trim().to_string()))
            })
            .collect()
    }

    /// iofit workers running on host `i`.
    pub fn workers(&self, i: usize) -> Vec<(u32, String)> {
        self.processes(i)
            .into_iter()
            .filter(|(_, cmd)| cmd.contains("worker --protocol"))
            .collect()
    }

    /// Kills (SIGKILL) every sshd of host `i`: the listener and the sessions, as when the host's
    /// ssh service dies.
    pub fn kill_sshd(&self, i: usize) {
        for (pid, cmd) in self.processes(i) {
            let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            if comm.trim() == "sshd" || cmd.starts_with("sshd") || cmd.contains("/sshd ") {
                kill(pid, 9);
            }
        }
    }
}

pub fn kill(pid: u32, signal: i32) {
    let _ = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status();
}

impl Drop for NetnsHosts {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(script())
            .arg("down")
            .arg(self.dir.path())
            .status();
    }
}
