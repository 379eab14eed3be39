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
use crate::protocol::{
    encode, read_line, unix_ns, FromWorker, HostKeys, ToWorker, PROTOCOL_VERSION,
};
use crate::slurm_stdio::{address, task_of_line, Demux, Demuxed};
use crate::RemoteError;
use iofit_model::job::JobSpec;
use iofit_stats::compact::{CompactDirection, CompactError};
use iofit_stats::{DirectionStats, RunResult};
use std::collections::VecDeque;
use std::io::{BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
    pub after_s: f64,
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
    pub clock_offset_ns: i64,
    pub rtt_ns: u64,
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
    pub wall_s: f64,
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

enum Event {
    Message(FromWorker, usize),
    Garbage(String),
    Eof,
}

/// How the controller reaches one worker.
enum Link {
    /// The worker's own client process (ssh): closing its input stops the worker.
    Own {
        child: Child,
        stdin: Option<ChildStdin>,
    },
    /// Task `task` of the one srun step every worker of a Slurm run is part of.
    Task { step: Arc<SlurmStep>, task: usize },
}

/// The one `srun` of a Slurm run: its stdin reaches every task (lines carry the task they are
/// for), its labelled stdout carries every task's framed messages (see [`crate::slurm_stdio`]).
struct SlurmStep {
    child: Mutex<Child>,
    stdin: Mutex<Option<ChildStdin>>,
    /// A task was given up on (its node failed): srun waits for it forever, so its end does
    /// not wait for srun to end by itself.
    task_lost: AtomicBool,
}

impl SlurmStep {
    /// Closes srun's stdin (every task reads the end of its input and stops), waits for srun
    /// to end, then signals it: SIGTERM, which srun forwards to the step's tasks (each sends
    /// what it measured and exits), and SIGKILL when even that does not end it (a failed
    /// node's tasks never report their end, and srun would wait for them).
    fn end(&self) {
        *self.stdin.lock().unwrap_or_else(|e| e.into_inner()) = None;
        let mut child = self.child.lock().unwrap_or_else(|e| e.into_inner());
        let patience = if self.task_lost.load(Ordering::SeqCst) {
            Duration::ZERO
        } else {
            STEP_END_WAIT
        };
        if wait_for(&mut child, patience) {
            return;
        }
        // SAFETY: kill(2) on the pid of our own child, which has not been reaped (try_wait
        // said it runs), so the pid is still that process.
        unsafe {
            libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
        }
        if !wait_for(&mut child, STEP_END_WAIT) {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// How long the end of a Slurm step waits for srun at each stage (closed input, SIGTERM).
const STEP_END_WAIT: Duration = Duration::from_secs(1);

/// Whether `child` ended within `patience`.
fn wait_for(child: &mut Child, patience: Duration) -> bool {
    let deadline = Instant::now() + patience;
    loop {
        match child.try_wait() {
            Ok(Some(_)) | Err(_) => return true,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            Ok(None) => return false,
        }
    }
}

struct Connection {
    link: Link,
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// Set when ssh's stderr is closed (everything it said is in `stderr`).
    stderr_closed: Arc<AtomicBool>,
}

impl Connection {
    fn send(&mut self, message: &ToWorker) -> bool {
        match &mut self.link {
            Link::Own {
                stdin: Some(stdin), ..
            } => writeln!(stdin, "{}", encode(message))
                .and_then(|_| stdin.flush())
                .is_ok(),
            Link::Own { stdin: None, .. } => false,
            Link::Task { step, task } => {
                let mut stdin = step.stdin.lock().unwrap_or_else(|e| e.into_inner());
                match stdin.as_mut() {
                    Some(stdin) => writeln!(stdin, "{}", address(*task, &encode(message)))
                        .and_then(|_| stdin.flush())
                        .is_ok(),
                    None => false,
                }
            }
        }
    }

    /// Stops the worker for good: its own client is closed and killed; a task of the shared
    /// step is told to stop (the step and the other tasks go on).
    fn abandon(&mut self) {
        match &mut self.link {
            Link::Own { child, stdin } => {
                *stdin = None;
                let _ = child.kill();
                let _ = child.wait();
            }
            Link::Task { step, .. } => {
                step.task_lost.store(true, Ordering::SeqCst);
                self.send(&ToWorker::Stop);
            }
        }
    }

    /// The last lines ssh wrote to stderr (for a task of the Slurm step: its own labelled
    /// lines and srun's). Waits a moment for the stream to close, so an authentication error
    /// printed just before ssh exits is not missed.
    fn stderr_tail(&self) -> String {
        let deadline = Instant::now() + Duration::from_secs(2);
        while !self.stderr_closed.load(Ordering::SeqCst) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        let lines = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        let mine = |line: &&String| match &self.link {
            Link::Own { .. } => true,
            Link::Task { task, .. } => task_of_line(line).is_none_or(|t| t == *task),
        };
        let mine: Vec<&String> = lines.iter().filter(mine).collect();
        let from = mine.len().saturating_sub(8);
        mine[from..]
            .iter()
            .map(|l| l.as_str())
            .collect::<Vec<_>>()
            .join(" / ")
    }
}

/// Quotes `word` for the remote shell ssh hands the command to.
fn shell_quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+=:,@".contains(&b))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Why the ssh client for a host could not be started.
#[derive(Debug, thiserror::Error)]
enum StartError {
    #[error("no ssh or srun command")]
    NoSshCommand,
    #[error("no host to start")]
    NoHosts,
    #[error(
        "one Slurm step runs one iofit on every node, and the hosts name two ({first} and \
         {other}); give --remote-iofit PATH"
    )]
    MixedBinaries { first: String, other: String },
    #[error("cannot run {program}: {source}")]
    Spawn {
        program: String,
        #[source]
        source: std::io::Error,
    },
}

/// Starts host `i`'s session and says hello; a failure to start is the host's problem.
fn connect(
    i: usize,
    host: &HostSpec,
    options: &ControllerOptions,
    tx: &Sender<(usize, Event)>,
    state: &mut Handshake,
) -> Option<Connection> {
    match start(i, host, options, tx.clone()) {
        Ok(mut connection) => {
            connection.send(&ToWorker::Hello {
                protocol: PROTOCOL_VERSION,
                version: env!("CARGO_PKG_VERSION").to_string(),
            });
            Some(connection)
        }
        Err(error) => {
            state.problem = Some(error.to_string());
            None
        }
    }
}

fn start(
    index: usize,
    host: &HostSpec,
    options: &ControllerOptions,
    events: Sender<(usize, Event)>,
) -> Result<Connection, StartError> {
    let (program, command) = ssh_session(host, options)?;
    let (mut child, stdout, stderr, stderr_closed) = spawn_piped(program, command, 8)?;
    std::thread::spawn(move || {
        let mut input = BufReader::new(stdout);
        loop {
            let event = match read_line(&mut input) {
                Ok(Some(line)) => parse_event(line),
                Ok(None) | Err(_) => Event::Eof,
            };
            let end = matches!(event, Event::Eof);
            if events.send((index, event)).is_err() || end {
                break;
            }
        }
    });
    let stdin = child.stdin.take();
    Ok(Connection {
        link: Link::Own { child, stdin },
        stderr,
        stderr_closed,
    })
}

fn parse_event(line: String) -> Event {
    match serde_json::from_str::<FromWorker>(&line) {
        Ok(message) => Event::Message(message, line.len() + 1),
        Err(_) => Event::Garbage(line),
    }
}

type Spawned = (
    Child,
    std::process::ChildStdout,
    Arc<Mutex<VecDeque<String>>>,
    Arc<AtomicBool>,
);

/// Starts `command` with piped stdio in its own process group, and keeps the last
/// `stderr_lines` lines of its stderr.
fn spawn_piped(
    program: String,
    mut command: Command,
    stderr_lines: usize,
) -> Result<Spawned, StartError> {
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group: a Ctrl-C at the terminal reaches iofit, which stops every
        // worker through the protocol and keeps their results, instead of killing ssh mid-line.
        .process_group(0);
    let mut child = command
        .spawn()
        .map_err(|source| StartError::Spawn { program, source })?;
    let stdout = child.stdout.take().expect("piped stdout");
    let stderr_pipe = child.stderr.take().expect("piped stderr");
    let stderr = Arc::new(Mutex::new(VecDeque::new()));
    let tail = stderr.clone();
    let stderr_closed = Arc::new(AtomicBool::new(false));
    let closed = stderr_closed.clone();
    std::thread::spawn(move || {
        let mut input = BufReader::new(stderr_pipe);
        while let Ok(Some(line)) = read_line(&mut input) {
            let mut lines = tail.lock().unwrap_or_else(|e| e.into_inner());
            if lines.len() == stderr_lines {
                lines.pop_front();
            }
            lines.push_back(line);
        }
        closed.store(true, Ordering::SeqCst);
    });
    Ok((child, stdout, stderr, stderr_closed))
}

/// Starts every worker as a task of ONE srun step (task `i` is host `i`, on the host's node)
/// and says hello to each. Reads srun's labelled stdout back into each task's messages; the
/// end of that stdout is the end of every task's channel.
fn start_slurm_step(
    hosts: &[HostSpec],
    slurm: &SlurmLaunch,
    options: &ControllerOptions,
    events: Sender<(usize, Event)>,
) -> Result<Vec<Connection>, StartError> {
    let (program, command) = slurm_step(hosts, slurm, options.allow_overwrite)?;
    // Every task's stderr comes through this one srun: keep enough lines for each to name
    // its own failure.
    let (mut child, stdout, stderr, stderr_closed) =
        spawn_piped(program, command, 8 * hosts.len().max(8))?;
    let tasks = hosts.len();
    std::thread::spawn(move || {
        let mut input = BufReader::new(stdout);
        let mut demux = Demux::default();
        while let Ok(Some(line)) = read_line(&mut input) {
            let (task, event) = match demux.push(&line) {
                Demuxed::Message(task, text) => (task, parse_event(text)),
                Demuxed::Garbage(task, text) => (task, Event::Garbage(text)),
                Demuxed::Partial | Demuxed::Unlabelled(_) => continue,
            };
            if task < tasks && events.send((task, event)).is_err() {
                return;
            }
        }
        for task in 0..tasks {
            let _ = events.send((task, Event::Eof));
        }
    });
    let step = Arc::new(SlurmStep {
        stdin: Mutex::new(child.stdin.take()),
        child: Mutex::new(child),
        task_lost: AtomicBool::new(false),
    });
    Ok((0..tasks)
        .map(|task| {
            let mut connection = Connection {
                link: Link::Task {
                    step: Arc::clone(&step),
                    task,
                },
                stderr: Arc::clone(&stderr),
                stderr_closed: Arc::clone(&stderr_closed),
            };
            connection.send(&ToWorker::Hello {
                protocol: PROTOCOL_VERSION,
                version: env!("CARGO_PKG_VERSION").to_string(),
            });
            connection
        })
        .collect())
}

/// `ssh HOST 'IOFIT worker --protocol N'`, with keep-alives so a dead host is noticed.
fn ssh_session(
    host: &HostSpec,
    options: &ControllerOptions,
) -> Result<(String, Command), StartError> {
    let (program, leading) = options
        .ssh_command
        .split_first()
        .ok_or(StartError::NoSshCommand)?;
    let timeout_s = options.connect_timeout.as_secs().max(1);
    let mut command = Command::new(program);
    command
        .args(leading)
        .args(["-T", "-o", "BatchMode=yes", "-o"])
        .arg(format!("ConnectTimeout={timeout_s}"))
        .args([
            "-o",
            "ServerAliveInterval=2",
            "-o",
            "ServerAliveCountMax=3",
            "--",
        ])
        .arg(&host.destination)
        .arg(format!(
            "{} worker --protocol {PROTOCOL_VERSION}{}",
            shell_quote(&host.remote_iofit),
            // The worker decides for itself: asked here, it still refuses unless it was started
            // with it (a forced command in authorized_keys replaces this command line).
            if options.allow_overwrite {
                " --allow-overwrite"
            } else {
                ""
            }
        ));
    Ok((program.clone(), command))
}

/// `srun --ntasks=T --distribution=arbitrary --nodelist=N1,N2,N1... IOFIT worker --protocol N
/// --slurm-step`: ONE job step whose task `i` runs on host `i`'s node (the node list in task
/// order, a node repeated for each of its workers). `--label` prefixes each task's output lines
/// with its task id, `--input=all` sends the controller's lines to every task. `--no-kill`
/// keeps srun from ending the whole step when one node fails: the surviving workers measure on
/// and send what they measured (`--kill-on-bad-exit=0` likewise for a worker that fails).
/// `--overlap` and `--overcommit` let several workers share a node's allocated CPUs.
fn slurm_step(
    hosts: &[HostSpec],
    slurm: &SlurmLaunch,
    allow_overwrite: bool,
) -> Result<(String, Command), StartError> {
    let (program, leading) = slurm
        .srun_command
        .split_first()
        .ok_or(StartError::NoSshCommand)?;
    let remote_iofit = &hosts.first().ok_or(StartError::NoHosts)?.remote_iofit;
    if let Some(other) = hosts.iter().find(|h| &h.remote_iofit != remote_iofit) {
        return Err(StartError::MixedBinaries {
            first: remote_iofit.clone(),
            other: other.remote_iofit.clone(),
        });
    }
    let mut nodes: Vec<&str> = hosts.iter().map(|h| h.destination.as_str()).collect();
    let layout = nodes.join(",");
    nodes.sort_unstable();
    nodes.dedup();
    let mut command = Command::new(program);
    command
        .args(leading)
        .arg(format!("--nodes={}", nodes.len()))
        .arg(format!("--ntasks={}", hosts.len()))
        .args([
            "--distribution=arbitrary",
            "--overlap",
            "--overcommit",
            "--quiet",
            "--label",
            "--input=all",
            "--no-kill",
            "--kill-on-bad-exit=0",
            "--job-name=iofit-worker",
        ])
        .arg(format!("--nodelist={layout}"))
        // These would override the layout (a host file) or give the tasks a terminal and
        // unbuffered output (lines no longer whole); iofit's own options decide both.
        .env_remove("SLURM_HOSTFILE")
        .env_remove("SLURM_UNBUFFEREDIO")
        .env_remove("SLURM_NTASKS_PER_NODE")
        .arg("--")
        .arg(remote_iofit)
        .args([
            "worker",
            "--protocol",
            &PROTOCOL_VERSION.to_string(),
            "--slurm-step",
        ]);
    if allow_overwrite {
        command.arg("--allow-overwrite");
    }
    Ok((program.clone(), command))
}

/// OpenSSH's sshd refuses unauthenticated connections beyond `MaxStartups` (default
/// 10:30:100: from 10 pending, 30% of new ones are dropped, rising to all at 100). The ssh
/// sessions to one destination start in waves of at most this many, each wave authenticated
/// (its workers answered hello) before the next starts.
pub const SSH_WAVE: usize = 8;
/// Tries per session when the server resets or closes it before the worker answers (a
/// MaxStartups drop from other clients of the same server).
pub const SSH_ATTEMPTS: u32 = 4;

/// The hosts' indices in start waves: wave k holds, for every destination, its k-th group of
/// at most `per_wave` sessions (destinations progress side by side).
pub fn waves(destinations: &[&str], per_wave: usize) -> Vec<Vec<usize>> {
    let per_wave = per_wave.max(1);
    let mut seen: Vec<(&str, usize)> = Vec::new();
    let mut out: Vec<Vec<usize>> = Vec::new();
    for (i, destination) in destinations.iter().enumerate() {
        let count = match seen.iter_mut().find(|(d, _)| d == destination) {
            Some((_, n)) => {
                *n += 1;
                *n - 1
            }
            None => {
                seen.push((destination, 1));
                0
            }
        };
        let wave = count / per_wave;
        if out.len() <= wave {
            out.resize(wave + 1, Vec::new());
        }
        out[wave].push(i);
    }
    out
}

/// Whether a session's failure before hello is the server dropping it (worth another try),
/// not a refusal (authentication, no iofit there).
pub fn is_reset(problem: &str) -> bool {
    let lower = problem.to_ascii_lowercase();
    [
        "connection reset",
        "kex_exchange_identification",
        "connection closed by",
    ]
    .iter()
    .any(|needle| lower.contains(needle))
}

/// Per-host state while connecting.
#[derive(Default)]
struct Handshake {
    /// Not started yet (a later wave): nothing to wait for.
    waiting: bool,
    hello: bool,
    pings_done: u32,
    ping_sent: Option<(Instant, u64)>,
    best_rtt_ns: Option<u64>,
    ready: bool,
    problem: Option<String>,
    bad_input: bool,
    garbage: Vec<String>,
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
    let max_rtt = runs.iter().map(|r| r.rtt_ns).max().unwrap_or(0);
    let start_at = unix_ns() + 2 * max_rtt + 200_000_000;
    for (i, connection) in connections.iter_mut().enumerate() {
        let at = (start_at as i128 + runs[i].clock_offset_ns as i128).max(0) as u64;
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

/// Everything the start of a run works on.
struct Phase<'a> {
    rx: &'a Receiver<(usize, Event)>,
    connections: &'a mut [Option<Connection>],
    states: &'a mut [Handshake],
    runs: &'a mut [HostRun],
    options: &'a ControllerOptions,
}

impl Phase<'_> {
    fn pump_hello(&mut self) -> Result<(), RemoteError> {
        let deadline = Instant::now() + self.options.connect_timeout + Duration::from_secs(5);
        let pings = self.options.pings;
        pump(
            self.rx,
            self.connections,
            self.states,
            self.runs,
            self.options,
            deadline,
            |s: &Handshake| s.waiting || s.problem.is_some() || s.pings_done >= pings,
            "answer hello",
        )
    }

    /// One ssh session per host, in waves per destination; sessions the server dropped
    /// before they authenticated start again.
    fn hello_ssh(
        &mut self,
        hosts: &[HostSpec],
        tx: Sender<(usize, Event)>,
    ) -> Result<(), RemoteError> {
        let destinations: Vec<&str> = hosts.iter().map(|h| h.destination.as_str()).collect();
        let mut attempts = vec![0u32; hosts.len()];
        for wave in waves(&destinations, SSH_WAVE) {
            let mut pending = wave;
            while !pending.is_empty() {
                for &i in &pending {
                    attempts[i] += 1;
                    self.states[i] = Handshake::default();
                    self.connections[i] =
                        connect(i, &hosts[i], self.options, &tx, &mut self.states[i]);
                }
                self.pump_hello()?;
                let states = &*self.states;
                pending.retain(|&i| {
                    !states[i].hello
                        && attempts[i] < SSH_ATTEMPTS
                        && states[i].problem.as_deref().is_some_and(is_reset)
                });
                for &i in &pending {
                    if let Some(mut old) = self.connections[i].take() {
                        old.abandon();
                    }
                }
                if !pending.is_empty() {
                    std::thread::sleep(Duration::from_millis(200) * attempts[pending[0]]);
                }
            }
        }
        Ok(())
    }

    /// Every host a task of one srun step.
    fn hello_slurm(
        &mut self,
        hosts: &[HostSpec],
        slurm: &SlurmLaunch,
        tx: Sender<(usize, Event)>,
    ) -> Result<(), RemoteError> {
        for state in self.states.iter_mut() {
            *state = Handshake::default();
        }
        match start_slurm_step(hosts, slurm, self.options, tx) {
            Ok(tasks) => {
                for (slot, task) in self.connections.iter_mut().zip(tasks) {
                    *slot = Some(task);
                }
                self.pump_hello()
            }
            Err(error) => {
                // Two binaries for one step is the command line's to fix.
                let bad_input = matches!(error, StartError::MixedBinaries { .. });
                for state in self.states.iter_mut() {
                    state.problem = Some(error.to_string());
                    state.bad_input = bad_input;
                }
                Ok(())
            }
        }
    }
}

/// Reads events until every host is `done` (by `done`), a deadline passes or Ctrl-C.
#[allow(clippy::too_many_arguments)]
fn pump(
    rx: &Receiver<(usize, Event)>,
    connections: &mut [Option<Connection>],
    states: &mut [Handshake],
    runs: &mut [HostRun],
    options: &ControllerOptions,
    deadline: Instant,
    done: impl Fn(&Handshake) -> bool,
    what: &str,
) -> Result<(), RemoteError> {
    while !states.iter().all(&done) {
        if options.stop.load(Ordering::SeqCst) {
            shut_down(connections);
            return Err(RemoteError::NotStarted {
                problems: vec!["interrupted before the start".into()],
                bad_input: false,
            });
        }
        let now = Instant::now();
        if now >= deadline {
            for (i, s) in states.iter_mut().enumerate() {
                if !done(s) {
                    s.problem = Some(format!(
                        "did not {what} within {:.0} s",
                        options.connect_timeout.as_secs_f64() + 5.0
                    ));
                    if let Some(c) = connections[i].as_ref() {
                        let tail = c.stderr_tail();
                        if !tail.is_empty() {
                            s.problem = Some(format!("did not {what} in time: {tail}"));
                        }
                    }
                }
            }
            return Ok(());
        }
        let (i, event) = match rx.recv_timeout((deadline - now).min(Duration::from_millis(100))) {
            Ok(x) => x,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => break,
        };
        handshake_event(
            event,
            &mut connections[i],
            &mut states[i],
            &mut runs[i],
            options,
        );
    }
    Ok(())
}

fn handshake_event(
    event: Event,
    connection: &mut Option<Connection>,
    state: &mut Handshake,
    run: &mut HostRun,
    options: &ControllerOptions,
) {
    match event {
        Event::Message(
            FromWorker::Hello {
                protocol,
                version,
                hostname,
            },
            _,
        ) => {
            run.hostname = hostname;
            run.remote_version = version.clone();
            if protocol != PROTOCOL_VERSION {
                state.problem.get_or_insert(format!(
                    "version mismatch: this controller is iofit {} speaking protocol {PROTOCOL_VERSION}, the host runs iofit {version} speaking protocol {protocol}; install the same iofit on every host",
                    env!("CARGO_PKG_VERSION")
                ));
                state.bad_input = true;
                return;
            }
            state.hello = true;
            send_ping(connection, state);
        }
        Event::Message(
            FromWorker::Pong {
                id,
                unix_ns: remote_ns,
            },
            _,
        ) => {
            if let Some((sent, sent_ns)) = state.ping_sent.take() {
                let rtt_ns = sent.elapsed().as_nanos() as u64;
                if id == state.pings_done as u64 && state.best_rtt_ns.is_none_or(|b| rtt_ns < b) {
                    state.best_rtt_ns = Some(rtt_ns);
                    run.rtt_ns = rtt_ns;
                    run.clock_offset_ns = remote_ns as i64 - (sent_ns + rtt_ns / 2) as i64;
                }
                state.pings_done += 1;
                if state.pings_done < options.pings {
                    send_ping(connection, state);
                }
            }
        }
        Event::Message(FromWorker::Ready { .. }, _) => state.ready = true,
        Event::Message(FromWorker::Error { message, bad_input }, _) => {
            state.problem.get_or_insert(message);
            state.bad_input |= bad_input;
        }
        Event::Message(other, _) => {
            state.problem.get_or_insert(format!(
                "unexpected message before the start: {}",
                encode(&other)
            ));
        }
        Event::Garbage(line) => {
            // Login scripts that print to stdout are common; keep a few lines for the message.
            if !state.hello && state.garbage.len() < 3 {
                state.garbage.push(line);
            } else if state.hello {
                state
                    .problem
                    .get_or_insert(format!("not a protocol line: {line:.120}"));
            }
        }
        Event::Eof => {
            if state.problem.is_none() {
                let tail = connection
                    .as_ref()
                    .map(|c| c.stderr_tail())
                    .unwrap_or_default();
                let mut message = if state.hello {
                    "the connection closed".to_string()
                } else if options.slurm.is_some() {
                    "could not start iofit worker as a task of the srun step".to_string()
                } else {
                    "could not start iofit worker over ssh".to_string()
                };
                if !tail.is_empty() {
                    message.push_str(&format!(": {tail}"));
                }
                if !state.garbage.is_empty() {
                    message.push_str(&format!(
                        " (the host printed: {})",
                        state.garbage.join(" / ")
                    ));
                }
                state.problem = Some(message);
            }
        }
    }
}

fn send_ping(connection: &mut Option<Connection>, state: &mut Handshake) {
    if let Some(c) = connection.as_mut() {
        state.ping_sent = Some((Instant::now(), unix_ns()));
        c.send(&ToWorker::Ping {
            id: state.pings_done as u64,
        });
    }
}

/// Stops everything and names every host that failed to start.
fn refuse_if_any(
    connections: &mut [Option<Connection>],
    states: &[Handshake],
    runs: &[HostRun],
) -> Result<(), RemoteError> {
    let problems: Vec<String> = states
        .iter()
        .zip(runs)
        .filter_map(|(s, r)| {
            s.problem
                .as_ref()
                .map(|p| format!("{} ({}): {p}", r.name, r.destination))
        })
        .collect();
    if problems.is_empty() {
        return Ok(());
    }
    shut_down(connections);
    Err(RemoteError::NotStarted {
        problems,
        bad_input: states.iter().any(|s| s.bad_input),
    })
}

/// The timed phase: intervals and results until every host is done or lost. Returns whether
/// the run was interrupted.
fn collect(
    rx: &Receiver<(usize, Event)>,
    connections: &mut [Option<Connection>],
    runs: &mut [HostRun],
    options: &ControllerOptions,
    start_at_ns: u64,
    combiner: &mut Combiner,
) -> bool {
    let mut finished = vec![false; runs.len()];
    let mut stop_sent = false;
    // With Slurm, the first host lost (its node failed) ends the run: Slurm ends a job whose
    // node fails, and the other workers send what they measured until then.
    let mut lost_first: Option<usize> = None;
    let since_start = || (unix_ns() as f64 - start_at_ns as f64).max(0.0) / 1e9;
    // A running worker writes an interval line every interval; one silent much longer than
    // that lost its node, network or process even where the channel stays open (a failed
    // Slurm node's task never ends its part of the step's output).
    let silence_limit = (options.interval * SILENT_INTERVALS).max(MIN_SILENCE);
    let mut last_heard = vec![Instant::now(); runs.len()];
    while !finished.iter().all(|f| *f) {
        if options.stop.load(Ordering::SeqCst) && !stop_sent {
            for c in connections.iter_mut().flatten() {
                c.send(&ToWorker::Stop);
            }
            stop_sent = true;
        }
        let lost = give_up_on_silent(
            &mut finished,
            &last_heard,
            silence_limit,
            start_at_ns,
            connections,
            runs,
        );
        if let Some(i) = lost {
            end_run_for_loss(i, &mut lost_first, &finished, connections, options);
        }
        let (i, event) = match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(x) => x,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => break,
        };
        last_heard[i] = Instant::now();
        if finished[i] {
            continue;
        }
        let stopped_for = lost_first.map(|l| runs[l].name.clone());
        let run = &mut runs[i];
        match event {
            Event::Message(message, bytes) => {
                run.bytes_received += bytes as u64;
                match message {
                    FromWorker::Interval { ios, bytes, .. } => run.live.push((ios, bytes)),
                    FromWorker::Done {
                        started_unix_ns,
                        result,
                        stats,
                        trims,
                    } => {
                        let done = Done {
                            started_unix_ns,
                            result,
                            stats: &stats,
                            trims: &trims,
                        };
                        on_done(run, done, options, start_at_ns, combiner, stopped_for);
                        finished[i] = true;
                    }
                    FromWorker::FsDone { outcome, .. } => {
                        fs_done(run, &outcome, options, since_start(), stopped_for);
                        finished[i] = true;
                    }
                    FromWorker::Error { message, .. } => {
                        run.failure.get_or_insert(HostFailure {
                            after_s: since_start(),
                            message,
                        });
                        finished[i] = true;
                    }
                    _ => {}
                }
            }
            Event::Garbage(line) => {
                run.failure.get_or_insert(HostFailure {
                    after_s: since_start(),
                    message: format!("not a protocol line: {line:.120}"),
                });
            }
            Event::Eof => {
                let tail = connections[i]
                    .as_ref()
                    .map(|c| c.stderr_tail())
                    .unwrap_or_default();
                let mut message =
                    format!("connection lost after {} live interval(s)", run.live.len());
                if let Some(previous) = run.failure.take() {
                    message = format!("{message}; {}", previous.message);
                }
                if !tail.is_empty() {
                    message.push_str(&format!(": {tail}"));
                }
                run.failure = Some(HostFailure {
                    after_s: since_start(),
                    message,
                });
                finished[i] = true;
                end_run_for_loss(i, &mut lost_first, &finished, connections, options);
            }
        }
    }
    stop_sent
}

/// A worker's `done`, as it came.
struct Done<'a> {
    started_unix_ns: u64,
    result: RunResult,
    stats: &'a [[CompactDirection; 2]],
    trims: &'a [CompactDirection],
}

/// Why a host whose jobs were stopped on its side did not run to the end: the controller
/// stopped it because `stopped_for` was lost (a Slurm run), else a signal on the host.
fn stopped_message(stopped_for: Option<&str>) -> String {
    match stopped_for {
        Some(lost) => format!(
            "stopped when {lost} was lost (Slurm ends a job whose node fails, so the run ends \
             with it); its results so far are kept"
        ),
        None => "stopped on the host before the end (a signal to the worker, such as a \
                 cancelled Slurm step); its results so far are kept"
            .to_string(),
    }
}

/// A host's run ended: its histograms decoded and merged at once (the controller keeps one set
/// of histograms per job, not one per host), its result kept.
fn on_done(
    run: &mut HostRun,
    done: Done<'_>,
    options: &ControllerOptions,
    start_at_ns: u64,
    combiner: &mut Combiner,
    stopped_for: Option<String>,
) {
    let after_s = (unix_ns() as f64 - start_at_ns as f64).max(0.0) / 1e9;
    let mut result = done.result;
    result.hostname.clone_from(&run.name);
    let started = done.started_unix_ns as i128 - run.clock_offset_ns as i128;
    let late_ns = (started - start_at_ns as i128).max(0) as f64;
    run.shift_intervals = (late_ns / options.interval.as_nanos() as f64).round() as usize;
    let trims: Result<Vec<DirectionStats>, CompactError> =
        done.trims.iter().map(CompactDirection::decode).collect();
    match decode_all(done.stats).and_then(|d| Ok((d, trims?))) {
        Ok((decoded, trims)) => {
            combiner.add(&result, &decoded, run.shift_intervals);
            combiner.add_trims(&trims);
            // Stopped before its end, not by the user's stop: what it measured is kept and
            // merged, and the host did not run to the end.
            if result.jobs.iter().any(|j| j.interrupted) && !options.stop.load(Ordering::SeqCst) {
                run.failure = Some(HostFailure {
                    after_s,
                    message: stopped_message(stopped_for.as_deref()),
                });
            }
            run.result = Some(result);
        }
        Err(e) => {
            run.failure = Some(HostFailure {
                after_s,
                message: e.to_string(),
            })
        }
    }
}

/// In a Slurm run, the first host lost ends the run: every worker still running is told to
/// stop and sends what it measured (as Slurm itself would end the job once it marks the node
/// down, only later). Over ssh the other hosts run on.
fn end_run_for_loss(
    lost: usize,
    lost_first: &mut Option<usize>,
    finished: &[bool],
    connections: &mut [Option<Connection>],
    options: &ControllerOptions,
) {
    if options.slurm.is_none() || lost_first.is_some() {
        return;
    }
    *lost_first = Some(lost);
    for (c, _) in connections
        .iter_mut()
        .zip(finished)
        .filter(|(_, done)| !**done)
    {
        if let Some(c) = c.as_mut() {
            c.send(&ToWorker::Stop);
        }
    }
}

/// A host's file system run ended: its outcome decoded and kept; stopped on the host (not by
/// the controller's stop), it is also the host's failure, its results kept.
fn fs_done(
    run: &mut HostRun,
    outcome: &iofit_fswork::wire::WireOutcome,
    options: &ControllerOptions,
    after_s: f64,
    stopped_for: Option<String>,
) {
    match outcome.decode() {
        Ok(result) => {
            run.fs_result = Some(result);
            run.fs_interrupted = outcome.interrupted;
            if outcome.interrupted && !options.stop.load(Ordering::SeqCst) {
                run.failure = Some(HostFailure {
                    after_s,
                    message: match stopped_for {
                        Some(_) => stopped_message(stopped_for.as_deref()),
                        None => "stopped on the host before the end (a signal to the \
                                 worker); its results so far are kept"
                            .to_string(),
                    },
                });
            }
        }
        Err(e) => {
            run.failure = Some(HostFailure {
                after_s,
                message: e.to_string(),
            })
        }
    }
}

/// Intervals a running worker may stay silent before it counts as lost.
const SILENT_INTERVALS: u32 = 10;
/// The shortest silence that counts as lost, whatever the interval.
const MIN_SILENCE: Duration = Duration::from_secs(10);

/// Marks lost every unfinished host not heard from for `limit` since the common start (or its
/// last message), and ends its local client (ssh) or stops its task (srun) so nothing waits
/// on it. Returns one of the hosts it gave up on.
fn give_up_on_silent(
    finished: &mut [bool],
    last_heard: &[Instant],
    limit: Duration,
    start_at_ns: u64,
    connections: &mut [Option<Connection>],
    runs: &mut [HostRun],
) -> Option<usize> {
    let now_ns = unix_ns();
    if now_ns < start_at_ns {
        return None;
    }
    let mut lost = None;
    let since_start = Duration::from_nanos(now_ns - start_at_ns);
    for i in 0..runs.len() {
        let silent = last_heard[i].elapsed().min(since_start);
        if finished[i] || silent < limit {
            continue;
        }
        runs[i].failure.get_or_insert(HostFailure {
            after_s: since_start.as_secs_f64(),
            message: format!(
                "no message from the host for {:.0} s after {} live interval(s): its node, \
                 network or worker failed",
                silent.as_secs_f64(),
                runs[i].live.len()
            ),
        });
        finished[i] = true;
        lost.get_or_insert(i);
        if let Some(connection) = connections[i].as_mut() {
            connection.abandon();
        }
    }
    lost
}

fn finish(runs: Vec<HostRun>, combiner: Combiner, start_at_ns: u64, interrupted: bool) -> MultiRun {
    let (combined, combined_stats) = combiner.finish();
    MultiRun {
        wall_s: (unix_ns() as f64 - start_at_ns as f64).max(0.0) / 1e9,
        hosts: runs,
        combined,
        combined_stats,
        interrupted,
    }
}

type RawStats = Vec<(DirectionStats, DirectionStats)>;

fn decode_all(stats: &[[CompactDirection; 2]]) -> Result<RawStats, CompactError> {
    stats
        .iter()
        .map(|[r, w]| Ok((r.decode()?, w.decode()?)))
        .collect()
}

/// Closes every worker's input (which stops it), waits briefly, then kills what is left of the
/// local ssh processes (or of the one srun step).
fn shut_down(connections: &mut [Option<Connection>]) {
    let mut step: Option<Arc<SlurmStep>> = None;
    for c in connections.iter_mut().flatten() {
        c.send(&ToWorker::Stop);
        match &mut c.link {
            Link::Own { stdin, .. } => *stdin = None,
            Link::Task { step: shared, .. } => step = Some(Arc::clone(shared)),
        }
    }
    if let Some(step) = step {
        step.end();
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    for c in connections.iter_mut().flatten() {
        if let Link::Own { child, .. } = &mut c.link {
            if !wait_for(child, deadline.saturating_duration_since(Instant::now())) {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(node: &str, iofit: &str) -> HostSpec {
        HostSpec {
            name: node.into(),
            destination: node.into(),
            remote_iofit: iofit.into(),
            jobs: Vec::new(),
            keys: None,
            fs: None,
        }
    }

    #[test]
    fn one_srun_step_lays_task_i_on_host_i_s_node() {
        // Three workers on two nodes (a vdbench file with more hds than nodes): one step, the
        // node list in task order with node1 twice.
        let hosts = [
            host("node1", "/opt/iofit"),
            host("node2", "/opt/iofit"),
            host("node1", "/opt/iofit"),
        ];
        let (program, command) = slurm_step(&hosts, &SlurmLaunch::default(), true).unwrap();
        assert_eq!(program, "srun");
        let args: Vec<String> = command
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        for expected in [
            "--nodes=2",
            "--ntasks=3",
            "--distribution=arbitrary",
            "--nodelist=node1,node2,node1",
            "--label",
            "--input=all",
            "--no-kill",
        ] {
            assert!(args.iter().any(|a| a == expected), "{expected} in {args:?}");
        }
        let worker = args.iter().position(|a| a == "--").unwrap();
        assert_eq!(
            args[worker + 1..],
            [
                "/opt/iofit",
                "worker",
                "--protocol",
                &PROTOCOL_VERSION.to_string(),
                "--slurm-step",
                "--allow-overwrite"
            ]
        );
        // One step runs one binary: two different ones are refused, naming both.
        let mixed = [host("node1", "/opt/iofit"), host("node2", "/usr/bin/iofit")];
        let error = slurm_step(&mixed, &SlurmLaunch::default(), false)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("/opt/iofit") && error.contains("/usr/bin/iofit"),
            "{error}"
        );
    }

    #[test]
    fn remote_command_words_are_quoted() {
        assert_eq!(shell_quote("/usr/local/bin/iofit"), "/usr/local/bin/iofit");
        assert_eq!(shell_quote("/opt/my iofit/iofit"), "'/opt/my iofit/iofit'");
        assert_eq!(shell_quote("a'b"), r"'a'\''b'");
    }
}
