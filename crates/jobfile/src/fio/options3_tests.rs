//! Parsing of the third pass of fio options (io_uring engine options, max_latency,
//! exitall_on_error, disable_*) into the job; their effects on a run are tested in
//! crates/engine/tests/uring_options.rs and crates/engine/tests/options3.rs.

use super::*;
use iofit_model::job::UringOptions;

fn job(options: &str) -> Result<JobSpec, JobFileError> {
    let text =
        format!("[j]\nfilename=/tmp/iofit-never-created\nsize=1m\nioengine=io_uring\n{options}\n");
    parse_str(&text, "test.fio", &ParseOptions::default()).map(|mut jobs| jobs.remove(0))
}

#[test]
fn io_uring_options_set_the_ring_up_as_fio_names_them() {
    let j = job("fixedbufs\nregisterfiles=1\nsqthread_poll=1\nsqthread_poll_cpu=0\nhipri\nforce_async=4\nnonvectored=0").unwrap();
    assert_eq!(
        j.uring,
        UringOptions {
            fixed_buffers: Some(true),
            register_files: Some(true),
            sq_thread_poll: true,
            sq_thread_cpu: Some(0),
            hipri: true,
            force_async_every: 4,
            nonvectored: Some(false),
        }
    );
    assert!(
        j.notes
            .iter()
            .any(|n| n.accepted_option() == Some("hipri") && n.to_string().contains("EOPNOTSUPP")),
        "{:?}",
        j.notes
    );
    assert!(job("").unwrap().uring.is_default());
    assert_eq!(job("fixedbufs=0").unwrap().uring.fixed_buffers, Some(false));
    let bad = job("sqthread_poll_cpu=100000").unwrap_err().to_string();
    assert!(
        bad.contains("sqthread_poll_cpu") && bad.contains("CPU number"),
        "{bad}"
    );
    let bad = job("nonvectored=2").unwrap_err().to_string();
    assert!(
        bad.contains("nonvectored") && bad.contains("write 0"),
        "{bad}"
    );
}

#[test]
fn max_latency_is_microseconds_per_direction_and_disable_switches_set_the_measurement() {
    use std::time::Duration;
    let j = job("max_latency=250\ndisable_lat\ndisable_clat=1\ndisable_slat=0\ndisable_bw=1\nexitall_on_error").unwrap();
    let m = j.measurement;
    assert_eq!(m.max_latency.read, Some(Duration::from_micros(250)));
    assert_eq!(m.max_latency.write, Some(Duration::from_micros(250)));
    assert!(m.disable_lat && m.disable_clat && !m.disable_slat && m.disable_bw);
    assert!(j.thread_control.exit_all_on_error);
    let j = job("max_latency=2ms,0").unwrap();
    assert_eq!(
        j.measurement.max_latency.read,
        Some(Duration::from_millis(2))
    );
    assert_eq!(
        j.measurement.max_latency.write, None,
        "0 turns the check off"
    );
    let bad = job("max_latency=soon").unwrap_err().to_string();
    assert!(
        bad.contains("max_latency") && bad.contains("microseconds"),
        "{bad}"
    );
}

#[test]
fn file_service_type_takes_fios_forms_and_defaults() {
    use iofit_model::job::{FileServiceKind as K, RandomDistribution as D};
    let service = |v: &str| job(&format!("file_service_type={v}")).unwrap().file_service;
    assert!(service("roundrobin").is_default());
    assert_eq!(service("random:8").kind, K::Random);
    assert_eq!(service("random:8").ios_per_choice, 8);
    assert_eq!(service("sequential").kind, K::Sequential);
    assert_eq!(service("roundrobin:4").ios_per_choice, 4);
    assert_eq!(
        service("zipf").kind,
        K::Skewed(D::Zipf {
            theta: 1.1,
            center: None
        })
    );
    assert_eq!(
        service("zipf:1.4:0.5").kind,
        K::Skewed(D::Zipf {
            theta: 1.4,
            center: Some(0.5)
        })
    );
    assert_eq!(
        service("pareto").kind,
        K::Skewed(D::Pareto {
            h: 0.2,
            center: None
        })
    );
    assert_eq!(
        service("gauss:10").kind,
        K::Skewed(D::Normal {
            deviation_pct: 10.0,
            center: None
        })
    );
    for bad in ["random:x", "zipf:1", "pareto:2", "normal:10:3", "fastest"] {
        let e = job(&format!("file_service_type={bad}"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("file_service_type") && e.contains("write roundrobin"),
            "{bad}: {e}"
        );
    }
}

#[test]
fn file_options_filename_format_pre_read_create_only() {
    let text = "[j]\ndirectory=/tmp/never\nsize=4m\nnrfiles=2\nnumjobs=2\nfilename_format=$jobname-$JOBNUM-$filenum$clientuid\nunique_filename=0\n";
    let j = &parse_str(text, "t.fio", &ParseOptions::default()).unwrap()[0];
    let names: Vec<String> = (0..2)
        .flat_map(|c| j.files_for_clone(c))
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["j-0-0", "j-0-1", "j-1-0", "j-1-1"]);
    assert!(
        j.notes
            .iter()
            .any(|n| n.accepted_option() == Some("filename_format")),
        "{:?}",
        j.notes
    );
    let j = job("pre_read=1\ncreate_only=1").unwrap();
    assert!(j.file_sync.pre_read && j.file_sync.create_only);
    // fio's pre_read clears invalidate: what was read ahead stays cached.
    assert!(job("invalidate=1").unwrap().file_sync.invalidate);
    assert!(
        !job("invalidate=1\npre_read=1")
            .unwrap()
            .file_sync
            .invalidate
    );
    // fadvise_hint: 1 (fio's default) declares the job's own pattern; 0 declares none.
    use iofit_model::job::FadviseHint as H;
    assert_eq!(job("").unwrap().file_sync.fadvise, Some(H::Sequential));
    assert_eq!(
        job("rw=randread").unwrap().file_sync.fadvise,
        Some(H::Random)
    );
    assert_eq!(job("fadvise_hint=0").unwrap().file_sync.fadvise, None);
    let fixed = job("rw=randread\nfadvise_hint=sequential").unwrap();
    assert_eq!(fixed.file_sync.fadvise, Some(H::Sequential));
    assert!(job("fadvise_hint=sometimes").is_err());
    let direct = job("pre_read=1\ndirect=1").unwrap();
    assert!(
        direct
            .notes
            .iter()
            .any(|n| n.accepted_option() == Some("pre_read")),
        "{:?}",
        direct.notes
    );
}
