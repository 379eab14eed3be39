//! The controller: starts `iofit worker` on every host through the OpenSSH client (the user's
//! config, keys and agent; `BatchMode=yes` so a missing key fails instead of prompting), checks
//! versions and measures clock offsets, sends the jobs, holds the barrier, collects intervals
//! and results, and merges them. Inside a Slurm allocation ([`ControllerOptions::slurm`]) the
//! workers are instead the tasks of one `srun` step, all spoken to over that step's stdio
//! ([`crate::slurm_stdio`]).
//!
//! Nothing starts IO until every host has answered, agreed on the protocol and laid out its
//! files: a host that cannot be reached or authenticated, a mismatched binary or a refused job
//! stops the whole run before any IO. A host lost after the start is recorded with the time it
//! stopped; over ssh the others run to the end and keep their results, in a Slurm run the
//! others are stopped and keep what they measured until then (Slurm ends a job whose node
//! fails).

use crate::merge::Combiner;
use crate::protocol::{unix_ns, HostKeys, ToWorker};
use crate::RemoteError;
use iofit_model::job::JobSpec;
use iofit_model::units::{Nanos, Seconds};
use iofit_stats::{DirectionStats, RunResult};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

mod collect;
mod connect;
mod handshake;

pub use connect::{is_reset, waves, SSH_ATTEMPTS, SSH_WAVE};

use collect::{collect, finish};
use connect::{shut_down, Connection};
use handshake::{pump, refuse_if_any, Handshake, Phase};

/// One worker to start: a name for reports, where ssh connects, and what it runs there.
#[derive(Clone, Debug)]
pub struct HostSpec {
    /// The name in reports (`vm1`, or the address when given by address).
    pub name: String,
    /// What ssh connects to: `[user@]host`, resolved by the user's ssh config.
    pub destination: String,
    /// The iofit binary on the host.
    pub remote_iofit: String,
    pub jobs: Vec<JobSpec>,
    /// validate=yes keys kept on the host between the runs of one file (None: the run's
    /// verification state, if any, is the jobs' own).
    pub keys: Option<HostKeys>,
    /// A vdbench file system run for this host (its fwds and fsds) instead of `jobs`.
    pub fs: Option<iofit_jobfile::vdbench::FsRun>,
}

/// How the controller runs.
#[derive(Clone, Debug)]
pub struct ControllerOptions {
    /// The ssh client and arguments before the destination (e.g. `-F FILE`); `ssh` by default.
    pub ssh_command: Vec<String>,
    /// How long a host has to connect, authenticate and answer `hello`.
    pub connect_timeout: Duration,
    pub allow_overwrite: bool,
    /// Length of the live interval records.
    pub interval: Duration,
    /// Set by a Ctrl-C handler: every worker is told to stop; results so far are kept.
    pub stop: Arc<AtomicBool>,
    /// Pings per host for the clock offset (the fastest round trip wins).
    pub pings: u32,
    /// Start the workers as the tasks of one Slurm job step instead of over ssh (see
    /// [`SlurmLaunch`]).
    pub slurm: Option<SlurmLaunch>,
}

/// Workers started by Slurm inside the caller's allocation: ONE `srun` step for all of them,
/// task `i` on host `i`'s node (`--distribution=arbitrary` over the node list in task order),
/// sharing the allocation's resources (`--overlap`), their stdio forwarded by Slurm and
/// addressed by task id (see [`crate::slurm_stdio`]). The destination of a [`HostSpec`] is
/// then a node name; no ssh key, known host or listening port is involved, and Slurm ends the
/// step when the allocation ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlurmLaunch {
    /// The srun client and arguments before iofit's own (`srun` by default).
    pub srun_command: Vec<String>,
}

impl Default for SlurmLaunch {
    fn default() -> Self {
        SlurmLaunch {
            srun_command: vec!["srun".to_string()],
        }
    }
}

impl Default for ControllerOptions {
    fn default() -> Self {
        ControllerOptions {
            ssh_command: vec!["ssh".to_string()],
            connect_timeout: Duration::from_secs(10),
            allow_overwrite: false,
            interval: Duration::from_secs(1),
            stop: Arc::new(AtomicBool::new(false)),
            pings: 5,
            slurm: None,
        }
    }
}

/// A host that stopped before the end of the run.
#[derive(Clone, Debug, PartialEq)]
pub struct HostFailure {
    /// Seconds after the common start when the controller lost the host.
    pub after_s: Seconds,
    pub message: String,
}

/// What one host did.
#[derive(Clone, Debug, Default)]
pub struct HostRun {
    pub name: String,
    pub destination: String,
    /// The name the host gave itself.
    pub hostname: String,
    pub remote_version: String,
    /// Host clock minus controller clock, nanoseconds (NTP-style, from the fastest ping).
    /// Signed: a host's clock may be behind the controller's.
    pub clock_offset_ns: Nanos<i64>,
    pub rtt_ns: Nanos<u64>,
    pub result: Option<RunResult>,
    /// Live (IOs, bytes) per interval as the host streamed them.
    pub live: Vec<(u64, u64)>,
    /// Whole intervals this host started after the earliest one.
    pub shift_intervals: usize,
    pub failure: Option<HostFailure>,
    /// Bytes the host sent over the channel during the timed phase.
    pub bytes_received: u64,
    /// What a file system run measured on the host (decoded from its `fs_done`).
    pub fs_result: Option<iofit_fswork::FsOutcome>,
    /// The host's file system run was stopped before its end (a signal on the host, or the
    /// controller's stop).
    pub fs_interrupted: bool,
}

/// The whole multi-host run.
#[derive(Clone, Debug, Default)]
pub struct MultiRun {
    pub hosts: Vec<HostRun>,
    /// Every finished host merged ("All clients").
    pub combined: RunResult,
    pub combined_stats: Vec<(DirectionStats, DirectionStats)>,
    /// Seconds from the start until the last host finished.
    pub wall_s: Seconds,
    pub interrupted: bool,
}

impl MultiRun {
    /// True when every host finished.
    pub fn complete(&self) -> bool {
        self.hosts
            .iter()
            .all(|h| h.failure.is_none() && (h.result.is_some() || h.fs_result.is_some()))
    }
}

/// Runs every host's jobs together and merges the results.
pub fn run(hosts: &[HostSpec], options: &ControllerOptions) -> Result<MultiRun, RemoteError> {
    let (tx, rx) = mpsc::channel();
    let mut runs: Vec<HostRun> = hosts
        .iter()
        .map(|h| HostRun {
            name: h.name.clone(),
            destination: h.destination.clone(),
            ..HostRun::default()
        })
        .collect();
    let mut connections: Vec<Option<Connection>> = (0..hosts.len()).map(|_| None).collect();
    let mut states: Vec<Handshake> = (0..hosts.len())
        .map(|_| Handshake {
            waiting: true,
            ..Handshake::default()
        })
        .collect();
    // Phase 1: hello and clock offsets, within the connect timeout.
    let mut phase = Phase {
        rx: &rx,
        connections: &mut connections,
        states: &mut states,
        runs: &mut runs,
        options,
    };
    match &options.slurm {
        Some(slurm) => phase.hello_slurm(hosts, slurm, tx)?,
        None => phase.hello_ssh(hosts, tx)?,
    }
    refuse_if_any(&mut connections, &states, &runs)?;
    // Phase 2: the jobs; every host lays out its files and checks it may write them.
    for (i, host) in hosts.iter().enumerate() {
        let sent = connections[i].as_mut().is_some_and(|c| {
            c.send(&ToWorker::Job {
                host: host.name.clone(),
                jobs: host.jobs.clone(),
                allow_overwrite: options.allow_overwrite,
                interval_ms: options.interval.as_millis().max(1) as u64,
                keys: host.keys.clone(),
                fs: host.fs.clone().map(Box::new),
            })
        });
        if !sent {
            states[i].problem = Some("the connection closed before the job was sent".into());
        }
    }
    let far = Instant::now() + Duration::from_secs(30 * 24 * 3600);
    pump(
        &rx,
        &mut connections,
        &mut states,
        &mut runs,
        options,
        far,
        |s| s.problem.is_some() || s.ready,
        "lay out its files",
    )?;
    if options.stop.load(Ordering::SeqCst) {
        shut_down(&mut connections);
        return Err(RemoteError::NotStarted {
            problems: vec!["interrupted before the start".into()],
            bad_input: false,
        });
    }
    refuse_if_any(&mut connections, &states, &runs)?;
    // Phase 3: the barrier. Everyone starts at one instant of the controller's clock, told to
    // each host in its own clock.
    let max_rtt = runs.iter().map(|r| r.rtt_ns.get()).max().unwrap_or(0);
    let start_at = unix_ns() + 2 * max_rtt + 200_000_000;
    for (i, connection) in connections.iter_mut().enumerate() {
        let at = (start_at as i128 + runs[i].clock_offset_ns.get() as i128).max(0) as u64;
        if let Some(c) = connection.as_mut() {
            c.send(&ToWorker::Start { at_unix_ns: at });
        }
    }
    let mut combiner = Combiner::default();
    let interrupted = collect(
        &rx,
        &mut connections,
        &mut runs,
        options,
        start_at,
        &mut combiner,
    );
    shut_down(&mut connections);
    Ok(finish(runs, combiner, start_at, interrupted))
}
