//! The worker side of the protocol, in-process (the ssh path is tested with real hosts in
//! crates/iofit/tests/multihost_cli.rs): version refusal, and a whole job on the null engine
//! whose `done` histograms count every IO.

use iofit_model::job::{EngineKind, JobSpec, RwMode, SizeSpec, Target};
use iofit_model::units::Bytes;
use iofit_remote::protocol::{encode, FromWorker, ToWorker, PROTOCOL_VERSION};
use iofit_remote::worker::{serve, WorkerLimits};
use std::io::Write;
use std::sync::{Arc, Mutex};

/// A writer the test can read back after the worker is done.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn messages(out: &Shared) -> Vec<FromWorker> {
    String::from_utf8(out.0.lock().unwrap().clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_worker_of_another_protocol_says_hello_then_refuses_naming_both() {
    let out = Shared::default();
    let error = serve(
        PROTOCOL_VERSION + 1,
        &WorkerLimits::default(),
        std::io::Cursor::new(Vec::new()),
        out.clone(),
    )
    .unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains(&format!("protocol {}", PROTOCOL_VERSION + 1))
            && text.contains(&format!("speaks {PROTOCOL_VERSION}")),
        "{text}"
    );
    let got = messages(&out);
    assert!(matches!(got[0], FromWorker::Hello { protocol, .. } if protocol == PROTOCOL_VERSION));
    assert!(matches!(
        &got[1],
        FromWorker::Error {
            bad_input: true,
            ..
        }
    ));
}

#[test]
fn a_null_engine_job_runs_after_start_and_its_histograms_count_every_io() {
    let mut job = JobSpec::new("n", Target::Files(vec!["unused".into()])).with_rw(RwMode::RandRead);
    job.engine = EngineKind::Null;
    job.size = Some(SizeSpec::Bytes(Bytes::mib(4)));
    let input: String = [
        ToWorker::Hello {
            protocol: PROTOCOL_VERSION,
            version: "test".into(),
        },
        ToWorker::Ping { id: 0 },
        ToWorker::Job {
            host: "h".into(),
            jobs: vec![job],
            allow_overwrite: false,
            interval_ms: 1000,
            keys: None,
            fs: None,
        },
        ToWorker::Start { at_unix_ns: 0 },
    ]
    .iter()
    .map(|m| encode(m) + "\n")
    .collect();
    let out = Shared::default();
    // A pipe that stays open until the worker has answered (end of input would stop the run).
    let (reader, mut writer) = std::io::pipe().unwrap();
    writer.write_all(input.as_bytes()).unwrap();
    let worker_out = out.clone();
    let worker = std::thread::spawn(move || {
        serve(
            PROTOCOL_VERSION,
            &WorkerLimits::default(),
            std::io::BufReader::new(reader),
            worker_out,
        )
    });
    worker.join().unwrap().unwrap();
    drop(writer);
    let got = messages(&out);
    assert!(got
        .iter()
        .any(|m| matches!(m, FromWorker::Pong { id: 0, .. })));
    assert!(got.iter().any(|m| matches!(m, FromWorker::Ready { .. })));
    let Some(FromWorker::Done { result, stats, .. }) =
        got.iter().find(|m| matches!(m, FromWorker::Done { .. }))
    else {
        panic!("no done: {got:?}")
    };
    let read = stats[0][0].decode().unwrap();
    assert_eq!(read.ios, result.jobs[0].read.ios);
    assert_eq!(read.completion.count(), read.ios);
    assert_eq!(read.io_bytes, iofit_model::Bytes(read.ios * 4096));
}

#[test]
fn a_keys_directory_is_a_plain_name_in_the_hosts_temp_dir() {
    use iofit_remote::protocol::HostKeys;
    let keys = |name: &str| HostKeys {
        dir_name: name.into(),
        last: false,
    };
    assert_eq!(
        keys("iofit-validate-hosts-1-2-vm1").dir().unwrap(),
        std::env::temp_dir().join("iofit-validate-hosts-1-2-vm1")
    );
    for bad in ["", "..", ".hidden", "a/b", "/etc", "a b"] {
        assert!(keys(bad).dir().is_err(), "{bad:?}");
    }
}

/// Sends hello and one job to a worker started with `limits`; returns what it answered.
fn ask(limits: WorkerLimits, job: JobSpec, allow_overwrite: bool) -> Vec<FromWorker> {
    let input: String = [
        ToWorker::Hello {
            protocol: PROTOCOL_VERSION,
            version: "test".into(),
        },
        ToWorker::Job {
            host: "h".into(),
            jobs: vec![job],
            allow_overwrite,
            interval_ms: 1000,
            keys: None,
            fs: None,
        },
    ]
    .iter()
    .map(|m| encode(m) + "\n")
    .collect();
    let out = Shared::default();
    let (reader, mut writer) = std::io::pipe().unwrap();
    writer.write_all(input.as_bytes()).unwrap();
    let worker_out = out.clone();
    let worker = std::thread::spawn(move || {
        serve(
            PROTOCOL_VERSION,
            &limits,
            std::io::BufReader::new(reader),
            worker_out,
        )
    });
    // A refused job ends the worker; a ready one waits for start, which end of input stops.
    std::thread::sleep(std::time::Duration::from_millis(300));
    drop(writer);
    let _ = worker.join().unwrap();
    messages(&out)
}

fn refusal(got: &[FromWorker]) -> Option<String> {
    got.iter().find_map(|m| match m {
        FromWorker::Error {
            message,
            bad_input: true,
        } => Some(message.clone()),
        _ => None,
    })
}

#[test]
fn a_controller_cannot_grant_overwrite_the_worker_was_not_started_with() {
    let dir = tempfile::tempdir().unwrap();
    let user = dir.path().join("user.db");
    let precious = b"precious".repeat(8192);
    std::fs::write(&user, &precious).unwrap();
    let mut job = JobSpec::new("w", Target::Files(vec![user.clone()])).with_rw(RwMode::Write);
    job.size = Some(SizeSpec::Bytes(Bytes::kib(64)));
    let got = ask(WorkerLimits::default(), job.clone(), true);
    let message = refusal(&got).expect("refused");
    assert!(message.contains("--allow-overwrite"), "{message}");
    assert!(!got.iter().any(|m| matches!(m, FromWorker::Ready { .. })));
    assert_eq!(std::fs::read(&user).unwrap(), precious);
    // Started with it, the same request is honoured (the layout takes the file).
    let limits = WorkerLimits {
        allowed_dirs: Vec::new(),
        allow_overwrite: true,
    };
    let got = ask(limits, job, true);
    assert!(refusal(&got).is_none(), "{got:?}");
}

#[test]
fn a_worker_limited_to_a_directory_refuses_files_elsewhere() {
    let allowed = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let limits = || WorkerLimits {
        allowed_dirs: vec![allowed.path().to_path_buf()],
        allow_overwrite: false,
    };
    let outside = elsewhere.path().join("data");
    let job = |path: &std::path::Path| {
        let mut job =
            JobSpec::new("w", Target::Files(vec![path.to_path_buf()])).with_rw(RwMode::Write);
        job.size = Some(SizeSpec::Bytes(Bytes::kib(64)));
        job
    };
    let message = refusal(&ask(limits(), job(&outside), false)).expect("refused");
    assert!(message.contains("--allow-dir"), "{message}");
    assert!(!outside.exists());
    // A link inside the allowed directory to elsewhere is elsewhere.
    std::os::unix::fs::symlink(elsewhere.path(), allowed.path().join("link")).unwrap();
    let through = allowed.path().join("link/data");
    assert!(refusal(&ask(limits(), job(&through), false)).is_some());
    assert!(!outside.exists());
    // `..` out of it too.
    let up = allowed.path().join("../escape");
    assert!(refusal(&ask(limits(), job(&up), false)).is_some());
    // Inside, the job is prepared.
    let inside = allowed.path().join("data");
    let got = ask(limits(), job(&inside), false);
    assert!(refusal(&got).is_none(), "{got:?}");
    assert!(got.iter().any(|m| matches!(m, FromWorker::Ready { .. })));
}
