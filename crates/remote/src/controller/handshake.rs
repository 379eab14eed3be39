//! The handshake phase: every worker says hello and is ready before any starts, a ping keeps
//! slow hosts in, and one refusal ends the run on every host.

use super::connect::{
    is_reset, shut_down, start, start_slurm_step, waves, Connection, Event, StartError,
    SSH_ATTEMPTS, SSH_WAVE,
};
use super::{ControllerOptions, HostRun, HostSpec, SlurmLaunch};

use crate::protocol::{encode, unix_ns, FromWorker, ToWorker, PROTOCOL_VERSION};
use crate::RemoteError;
use iofit_model::units::Nanos;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

/// Per-host state while connecting.
#[derive(Default)]
pub(super) struct Handshake {
    /// Not started yet (a later wave): nothing to wait for.
    pub(super) waiting: bool,
    pub(super) hello: bool,
    pub(super) pings_done: u32,
    pub(super) ping_sent: Option<(Instant, u64)>,
    pub(super) best_rtt_ns: Option<u64>,
    pub(super) ready: bool,
    pub(super) problem: Option<String>,
    pub(super) bad_input: bool,
    pub(super) garbage: Vec<String>,
}

/// Everything the start of a run works on.
pub(super) struct Phase<'a> {
    pub(super) rx: &'a Receiver<(usize, Event)>,
    pub(super) connections: &'a mut [Option<Connection>],
    pub(super) states: &'a mut [Handshake],
    pub(super) runs: &'a mut [HostRun],
    pub(super) options: &'a ControllerOptions,
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
    pub(super) fn hello_ssh(
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
    pub(super) fn hello_slurm(
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
pub(super) fn pump(
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
                    run.rtt_ns = Nanos(rtt_ns);
                    run.clock_offset_ns = Nanos(remote_ns as i64 - (sent_ns + rtt_ns / 2) as i64);
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
pub(super) fn refuse_if_any(
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

/// Starts host `i`'s session and says hello; a failure to start is the host's problem.
pub(super) fn connect(
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
