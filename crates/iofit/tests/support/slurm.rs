//! A real Slurm cluster on this machine for the `--hosts slurm` tests: slurmctld on a bridge
//! address, and compute nodes that are network namespaces each running its own slurmd, built by
//! `examples/slurm/slurm-cluster.sh` (the script the README names). Dropping a `SlurmCluster`
//! stops every daemon and removes the namespaces, also when the test failed. Where Slurm,
//! munge or namespaces are missing the constructor panics with the reason: such a test fails,
//! it never passes silently.

#![allow(dead_code)] // each test binary uses a different part of the harness

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct SlurmCluster {
    pub dir: tempfile::TempDir,
    /// Node names, in order (node1 first).
    pub nodes: Vec<String>,
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/slurm/slurm-cluster.sh")
}

impl SlurmCluster {
    /// Builds a cluster of `count` nodes. Panics with the script's reason when that is not
    /// possible here.
    pub fn up(count: usize) -> SlurmCluster {
        let dir = tempfile::Builder::new()
            .prefix("iofit-slurm-")
            .tempdir()
            .expect("temp dir");
        let mut cluster = SlurmCluster {
            dir,
            nodes: Vec::new(),
        };
        let output = Command::new("bash")
            .arg(script())
            .args(["up", &count.to_string()])
            .arg(cluster.dir.path())
            .output()
            .expect("bash runs");
        assert!(
            output.status.success(),
            "cannot build a {count}-node Slurm cluster (the Slurm tests need root, network \
             namespaces, slurm-wlm and munge; .ci/run installs them): {}",
            String::from_utf8_lossy(&output.stderr)
        );
        cluster.nodes = std::fs::read_to_string(cluster.dir.path().join("nodes"))
            .expect("nodes file")
            .lines()
            .map(str::to_string)
            .collect();
        assert_eq!(cluster.nodes.len(), count);
        cluster
    }

    pub fn conf(&self) -> PathBuf {
        self.dir.path().join("slurm.conf")
    }

    /// A Slurm client command (`salloc`, `srun`, `squeue`, ...) talking to this cluster.
    pub fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command.env("SLURM_CONF", self.conf());
        command
    }

    /// The target directory of node `i` (from 0).
    pub fn data_dir(&self, i: usize) -> PathBuf {
        self.dir.path().join("data").join(&self.nodes[i])
    }

    /// The network namespace of node `i` (from 0).
    pub fn namespace(&self, i: usize) -> String {
        let set = std::fs::read_to_string(self.dir.path().join("set")).expect("set");
        format!("iofit-s{}-{}", set.trim(), i + 1)
    }

    /// Pids of every process in node `i`'s namespace (slurmd, its step daemons and tasks).
    pub fn pids(&self, i: usize) -> Vec<u32> {
        let output = Command::new("ip")
            .args(["netns", "pids", &self.namespace(i)])
            .output()
            .expect("ip runs");
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|l| l.trim().parse::<u32>().ok())
            .collect()
    }

    /// iofit workers running on node `i`.
    pub fn workers(&self, i: usize) -> Vec<u32> {
        self.pids(i)
            .into_iter()
            .filter(|pid| {
                std::fs::read(format!("/proc/{pid}/cmdline"))
                    .map(|c| String::from_utf8_lossy(&c).contains("worker\0--protocol"))
                    .unwrap_or(false)
            })
            .collect()
    }

    /// Kills every process of node `i` (slurmd, step daemons, tasks): the node fails.
    pub fn fail_node(&self, i: usize) {
        for pid in self.pids(i) {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        }
    }

    /// The job steps the nodes launched tasks for, as `JOB.STEP`, each once (every slurmd
    /// logs `launch task StepId=JOB.STEP` when a step starts tasks on its node).
    pub fn launched_steps(&self) -> Vec<String> {
        let mut steps: Vec<String> = self
            .nodes
            .iter()
            .filter_map(|node| {
                std::fs::read_to_string(self.dir.path().join(format!("log/slurmd-{node}.log"))).ok()
            })
            .flat_map(|log| {
                log.lines()
                    .filter_map(|line| line.split("launch task StepId=").nth(1))
                    .filter_map(|rest| rest.split_whitespace().next())
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect();
        steps.sort();
        steps.dedup();
        steps
    }

    /// Ids of the jobs the cluster has (pending or running).
    pub fn jobs(&self) -> Vec<String> {
        let output = self
            .command("squeue")
            .args(["-h", "-o", "%i"])
            .output()
            .expect("squeue runs");
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(|l| l.trim().to_string())
            .filter(|l| !l.is_empty())
            .collect()
    }
}

impl Drop for SlurmCluster {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(script())
            .arg("down")
            .arg(self.dir.path())
            .status();
    }
}
