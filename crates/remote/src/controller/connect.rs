//! Reaching the workers: one ssh session per host (in waves, retried on a reset) or one Slurm
//! step for all of them, each worker's stdin and event stream, and how a worker is stopped.

use super::{ControllerOptions, HostSpec, SlurmLaunch};

use crate::protocol::{encode, read_line, FromWorker, ToWorker, PROTOCOL_VERSION};
use crate::slurm_stdio::{address, task_of_line, Demux, Demuxed};
use std::collections::VecDeque;
use std::io::BufReader;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub(super) enum Event {
    Message(FromWorker, usize),
    Garbage(String),
    Eof,
}

/// How the controller reaches one worker.
pub(super) enum Link {
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
pub(super) struct SlurmStep {
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
    pub(super) fn end(&self) {
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
pub(super) fn wait_for(child: &mut Child, patience: Duration) -> bool {
    let deadline = Instant::now() + patience;
    loop {
        match child.try_wait() {
            Ok(Some(_)) | Err(_) => return true,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            Ok(None) => return false,
        }
    }
}

pub(super) struct Connection {
    pub(super) link: Link,
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// Set when ssh's stderr is closed (everything it said is in `stderr`).
    stderr_closed: Arc<AtomicBool>,
}

impl Connection {
    pub(super) fn send(&mut self, message: &ToWorker) -> bool {
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
    pub(super) fn abandon(&mut self) {
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
    pub(super) fn stderr_tail(&self) -> String {
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
pub(super) enum StartError {
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

pub(super) fn start(
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
pub(super) fn start_slurm_step(
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

/// Closes every worker's input (which stops it), waits briefly, then kills what is left of the
/// local ssh processes (or of the one srun step).
pub(super) fn shut_down(connections: &mut [Option<Connection>]) {
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
