//! Parsing of the pacing, sync, file and run-control options into the job (their effects on a
//! run are tested in crates/engine/tests/pacing.rs).

use iofit_model::job::SizeSpec;

use super::*;
use iofit_model::job::JobNote;
use iofit_model::job::{IoPriority, OpenSync};
use std::time::Duration;

fn job(options: &str) -> Result<JobSpec, JobFileError> {
    let text = format!("[j]\nfilename=/tmp/iofit-never-created\nsize=1m\n{options}\n");
    parse_str(&text, "test.fio", &ParseOptions::default()).map(|mut jobs| jobs.remove(0))
}

fn error(options: &str) -> String {
    job(options).unwrap_err().to_string()
}

#[test]
fn thinktime_is_microseconds_unless_a_unit_is_given() {
    let j = job("thinktime=250\nthinktime_spin=2ms\nthinktime_blocks=8").unwrap();
    assert_eq!(j.pacing.think_time, Duration::from_micros(250));
    assert_eq!(j.pacing.think_spin, Duration::from_millis(2));
    assert_eq!(j.pacing.think_blocks, 8);
    assert!(job("thinktime_blocks_type=complete")
        .unwrap()
        .notes
        .is_empty());
    assert!(error("thinktime_blocks_type=later").contains("write complete or issue"));
}

#[test]
fn minimum_rates_and_rate_cycle() {
    let j = job("ratemin=1m,2m\nrate_iops_min=100\nrate_cycle=250").unwrap();
    assert_eq!(j.pacing.min_bytes_per_second.read, Some(1 << 20));
    assert_eq!(j.pacing.min_bytes_per_second.write, Some(2 << 20));
    assert_eq!(j.pacing.min_iops.read, Some(100));
    assert_eq!(j.pacing.min_iops.write, Some(100));
    assert_eq!(j.pacing.rate_cycle, Some(Duration::from_millis(250)));
    assert!(error("rate_cycle=0").contains("rate_cycle"));
}

#[test]
fn iops_rates_take_fio_size_suffixes() {
    // fio 3.33 runs rate_iops=100k at 102,400 IOs per second: k is kb_base, 1024 by default.
    let j = job("rate_iops=3k,500\nrate_iops_min=1k").unwrap();
    assert_eq!(j.rate_iops.read, Some(3072));
    assert_eq!(j.rate_iops.write, Some(500));
    assert_eq!(j.pacing.min_iops.read, Some(1024));
    let j = job("kb_base=1000\nrate_iops=3k").unwrap();
    assert_eq!(j.rate_iops.read, Some(3000));
    assert!(error("rate_iops=fast").contains("rate_iops"));
}

#[test]
fn rate_process_and_submit_batches() {
    assert!(job("rate_process=poisson").unwrap().pacing.poisson);
    assert!(!job("rate_process=linear").unwrap().pacing.poisson);
    assert!(error("rate_process=bursty").contains("linear or poisson"));
    let j = job("iodepth=16\niodepth_batch=0").unwrap();
    assert_eq!(j.pacing.submit_batch, Some(16), "0 means the whole depth");
    let j = job("iodepth_batch_submit=4\niodepth_low=8").unwrap();
    assert_eq!(j.pacing.submit_batch, Some(4));
    // The reader's note, then the table's.
    assert_eq!(
        j.notes,
        [
            JobNote::CompletionBatching {
                option: "iodepth_low".into()
            },
            JobNote::Accepted {
            option: "iodepth_low",
            how: "iodepth_low: iofit refills the queue to iodepth as soon as a slot frees (fio's default iodepth_low=iodepth)"
            }
        ]
    );
}

#[test]
fn sync_modes_and_end_syncs() {
    assert_eq!(job("sync=1").unwrap().file_sync.open_sync, OpenSync::Sync);
    assert_eq!(job("sync").unwrap().file_sync.open_sync, OpenSync::Sync);
    assert_eq!(
        job("sync=dsync").unwrap().file_sync.open_sync,
        OpenSync::Dsync
    );
    assert_eq!(
        job("sync=none").unwrap().file_sync.open_sync,
        OpenSync::None
    );
    assert!(error("sync=maybe").contains("sync=dsync"));
    let j = job("fsync_on_close=1\nend_syncfs=1").unwrap();
    assert!(j.file_sync.fsync_on_close && j.file_sync.end_syncfs);
}

#[test]
fn file_options_say_what_iofit_does() {
    assert!(job("overwrite=1").unwrap().notes.is_empty());
    assert_eq!(
        job("overwrite=0").unwrap().notes[0].accepted_option(),
        Some("overwrite")
    );
    assert_eq!(
        job("openfiles=1").unwrap().notes,
        [JobNote::OpenFiles { count: 1 }]
    );
    assert!(job("file_service_type=roundrobin").is_ok());
    assert!(error("file_service_type=later").contains("write roundrobin, sequential or random"));
}

#[test]
fn thread_control() {
    let j = job("cpus_allowed=0-2,5\nnice=5\nprioclass=3\nprio=1\nexitall").unwrap();
    assert_eq!(j.thread_control.cpus, vec![0, 1, 2, 5]);
    assert_eq!(j.thread_control.nice, 5);
    assert_eq!(
        j.thread_control.io_priority,
        Some(IoPriority { class: 3, level: 1 })
    );
    assert!(j.thread_control.exit_all);
    assert_eq!(job("cpumask=0x5").unwrap().thread_control.cpus, vec![0, 2]);
    assert_eq!(
        job("prio=0").unwrap().thread_control.io_priority,
        Some(IoPriority { class: 2, level: 0 }),
        "prio alone is best-effort"
    );
    assert!(error("nice=40").contains("-20 to 19"));
    assert!(error("cpus_allowed=3-1").contains("cpus_allowed"));
    assert!(error("prio=9").contains("0 (highest) to 7"));
    assert!(error("cpus_allowed_policy=half").contains("shared or split"));
    let split = job("cpus_allowed=1,3\ncpus_allowed_policy=split").unwrap();
    assert!(split.thread_control.split_cpus);
    assert_eq!(split.thread_control.for_thread(0).cpus, vec![1]);
    assert_eq!(split.thread_control.for_thread(3).cpus, vec![3]);
}

#[test]
fn bsrange_takes_a_colon_too() {
    let dash = job("bsrange=4k-16k").unwrap();
    let colon = job("blocksize_range=4k:16k").unwrap();
    assert_eq!(dash.block_size, colon.block_size);
}

#[test]
fn steady_state_criteria() {
    use iofit_model::job::SteadyMetric;
    let j = job("ss=iops_slope:0.3%\nss_dur=30s\nss_ramp=10").unwrap();
    let ss = j.steady_state.unwrap();
    assert_eq!(ss.metric, SteadyMetric::Iops);
    assert!(ss.slope && ss.percent);
    assert_eq!(ss.limit, 0.3);
    assert_eq!(ss.duration, Duration::from_secs(30));
    assert_eq!(ss.ramp, Duration::from_secs(10));
    let bw = job("steadystate=bw:2m\nsteadystate_duration=5s")
        .unwrap()
        .steady_state
        .unwrap();
    assert_eq!(bw.metric, SteadyMetric::Bw);
    assert!(!bw.percent && !bw.slope);
    assert_eq!(bw.limit, 2048.0, "bytes per second become KiB/s");
    let no_window = job("ss=iops:5%").unwrap();
    assert!(no_window.steady_state.is_none());
    assert_eq!(no_window.notes[0].accepted_option(), Some("steadystate"));
    assert!(no_window.notes[0].to_string().contains("ss_dur"));
    assert!(error("ss=iops:5%\nss_dur=1s").contains("two one-second samples"));
    assert!(error("ss=lat:5ms\nss_dur=5s").contains("latency"));
    assert!(error("ss=iops").contains("no limit"));
}

#[test]
fn latency_target_options() {
    let j = job("latency_target=500000\nlatency_window=5000000\nlatency_percentile=99.9").unwrap();
    let t = j.latency_target.unwrap();
    assert_eq!(
        t.target,
        Duration::from_millis(500),
        "microseconds without a unit"
    );
    assert_eq!(t.window, Duration::from_secs(5));
    assert_eq!(t.percentile, 99.9);
    assert!(!t.keep_running);
    let j = job("latency_target=2ms\nlatency_run=1").unwrap();
    let t = j.latency_target.unwrap();
    assert_eq!(t.window, Duration::from_secs(1));
    assert!(t.keep_running);
    assert_eq!(j.notes[0].accepted_option(), Some("latency_target"));
    assert!(j.notes[0].to_string().contains("latency_window"));
    assert!(error("latency_target=1ms\nlatency_percentile=120").contains("0 to 100"));
}

#[test]
fn wait_for_is_a_stonewall_with_a_note() {
    let text = "[a]\nfilename=/tmp/x\nsize=1m\n[b]\nfilename=/tmp/x\nsize=1m\nwait_for=a\n";
    let jobs = parse_str(text, "t.fio", &ParseOptions::default()).unwrap();
    assert!(!jobs[0].stonewall);
    assert!(jobs[1].stonewall, "b starts after a");
    assert_eq!(jobs[1].notes, [JobNote::WaitFor { job: "a".into() }]);
    assert!(jobs[1].notes[0].to_string().starts_with("wait_for=a: "));
}

#[test]
fn buffered_and_direct_the_later_wins_as_in_fio() {
    assert!(job("direct=0\nbuffered=0").unwrap().direct);
    assert!(!job("buffered=0\ndirect=0").unwrap().direct);
    assert!(!job("direct=1\nbuffered=1").unwrap().direct);
}

#[test]
fn exit_what_and_bs_unaligned() {
    assert!(job("exitall\nexit_what=stonewall")
        .unwrap()
        .notes
        .is_empty());
    let all = &job("exitall\nexit_what=all").unwrap().notes[0];
    assert_eq!(all.accepted_option(), Some("exit_what"));
    assert!(all.to_string().contains("later stonewall"));
    assert!(error("exit_what=some").contains("group, stonewall or all"));
    let notes = job("bsrange=4k-16k\nbs_unaligned").unwrap().notes;
    assert!(
        notes
            .iter()
            .any(|n| n.accepted_option() == Some("bs_unaligned")),
        "{notes:?}"
    );
}

#[test]
fn filesize_range_draws_one_size_in_it() {
    let text = "[r]\nfilename=/tmp/iofit-never-created\nfilesize=10m:20m\nbs=4k\n";
    let j = parse_str(text, "t.fio", &ParseOptions::default())
        .unwrap()
        .remove(0);
    let Some(SizeSpec::Bytes(size)) = j.size else {
        panic!("{:?}", j.size)
    };
    assert!((10 << 20..=20 << 20).contains(&size.as_u64()), "{size:?}");
    assert_eq!(size.as_u64() % 4096, 0);
    assert!(j.notes.iter().any(|n| matches!(
        n,
        JobNote::FileSizeDrawn { range, drawn } if range == "10m:20m" && *drawn == size
    )));
    let again = parse_str(text, "t.fio", &ParseOptions::default())
        .unwrap()
        .remove(0);
    assert_eq!(again.size, j.size, "repeatable");
    assert!(error("filesize=20m-10m").contains("empty"));
}
