//! The worker side of the protocol, in-process (the ssh path is tested with real hosts in
//! crates/iofit/tests/multihost_cli.rs): version refusal, and a whole job on the null engine
//! whose `done` histograms count every IO.

use iofit_model::job::{EngineKind, JobSpec, RwMode, SizeSpec, Target};
use iofit_model::units::Bytes;
use iofit_remote::protocol::{encode, FromWorker, ToWorker, PROTOCOL_VERSION};
use iofit_remote::worker::serve;
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
    assert_eq!(read.io_bytes, read.ios * 4096);
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
