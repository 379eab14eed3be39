//! A `--hosts` run's jobs are the single-host run's: the controller parses the job file as
//! `iofit run` does (includes next to the file, overrides, every option), and the `job`
//! message carries each `JobSpec` whole to the worker, so the worker runs, and the report
//! shows, the same job options as a run on one host.

use iofit_jobfile::fio::job_options;
use iofit_model::job::JobSpec;
use iofit_procedure::hosts::fio_jobs_for;
use iofit_procedure::run_request::{load_jobs, Inputs, RunRequest};
use iofit_remote::protocol::{encode, ToWorker};

/// A job file over many options, with an include beside it (resolved against the file's
/// directory, not the working directory).
const JOB: &str = "[global]\ninclude common.fio\nioengine=io_uring\niodepth=48\ndirect=1\n\
[mixed]\nrw=randrw:4\nrw_sequencer=identical\nrwmixread=70\nbssplit=4k/30:64k/70,16k/100\n\
filename=/data/${HOST}/a:/data/${HOST}/b\nsize=96m\nnumjobs=3\nruntime=1500ms\ntime_based=1\n\
ramp_time=2s\nrate_iops=900,300\nrandom_distribution=zoned:60/10:40/90\nthinktime=250us\n\
thinktime_blocks=8\nverify=crc32c\nverify_backlog=32\ncpus_allowed=0,1\nnice=3\nprio=2\n\
prioclass=2\nfixedbufs=1\nlat_percentiles=1\npercentile_list=50:99:99.99\n\
write_bw_log=/tmp/${HOST}-bw\nlog_avg_msec=500\ncontinue_on_error=io\nsteadystate=iops:3%\n\
ss_dur=10s\n[seq]\nstonewall\nrw=write:8k\nbs=128k\ndirectory=/data/${HOST}\nnrfiles=2\n\
size=64m\nfsync=16\nsync=dsync\nend_fsync=1\nbuffer_compress_percentage=40\n";

const COMMON: &str = "randrepeat=0\nrandseed=1234\nclat_percentiles=0\n";

#[test]
fn a_hosts_run_sends_each_worker_the_jobs_a_single_host_run_parses() {
    let dir = tempfile::tempdir().expect("tempdir");
    let jobs_dir = dir.path().join("jobs");
    std::fs::create_dir(&jobs_dir).expect("jobs dir");
    let file = jobs_dir.join("job.fio");
    // What a host named h1 reads, and what `iofit run` reads on that host.
    std::fs::write(&file, JOB.replace("${HOST}", "h1")).expect("job file");
    std::fs::write(jobs_dir.join("common.fio"), COMMON).expect("include");
    let request = RunRequest {
        runtime: Some("3s".into()),
        ..RunRequest::default()
    };
    let local = load_jobs(
        &request,
        &Inputs {
            files: vec![file.clone()],
            ..Inputs::default()
        },
    )
    .expect("single-host parse");
    let hosts = fio_jobs_for("h1", &[file], &request.overrides(&[]), false)
        .expect("the controller's parse");
    assert_eq!(local, hosts);
    assert_eq!(local.len(), 2);
    assert_eq!(local[0].iodepth, 48, "the [global] options apply");
    assert_eq!(local[0].random_seed, 1234, "the include is read");

    // The controller's `job` message, as the worker reads it.
    let line = encode(&ToWorker::Job {
        host: "h1".into(),
        jobs: hosts.clone(),
        allow_overwrite: false,
        interval_ms: 1000,
        keys: None,
        fs: None,
    });
    let worker: Vec<JobSpec> = match serde_json::from_str::<ToWorker>(&line).expect("decodes") {
        ToWorker::Job { jobs, .. } => jobs,
        other => panic!("not a job message: {other:?}"),
    };
    assert_eq!(worker, local);
    for (job, sent) in local.iter().zip(&worker) {
        assert_eq!(job_options(job), job_options(sent));
    }
    // The options the worker's report names include those beyond the old 29 renderable ones.
    let has = |job: &JobSpec, key: &str, value: &str| {
        job_options(job).contains(&(key.to_string(), value.to_string()))
    };
    assert!(has(&worker[0], "thinktime", "250us"));
    assert!(has(&worker[0], "steadystate", "iops:3%"));
    assert!(has(&worker[0], "cpus_allowed", "0,1"));
    assert!(has(&worker[0], "verify", "crc32c"));
    assert!(has(&worker[1], "sync", "dsync"));
    assert!(has(&worker[1], "buffer_compress_percentage", "40"));
}

/// The `--hosts` JSON names each job's options (and renders its percentiles) as the
/// single-host JSON does: both come from the job's own options.
#[test]
fn a_hosts_runs_json_job_options_are_the_single_host_runs() {
    use iofit_engine::{run_jobs, ClockChoice, RunOptions, Silent};
    use iofit_procedure::run_request::OutputFormat;
    use iofit_remote::{HostRun, MultiRun};
    let text = "[global]\nioengine=null\nsize=4m\nfilename=/tmp/iofit-hosts-options\n\
[a]\nrw=randread\nbs=8k\niodepth=4\nthinktime=20us\npercentile_list=50:99.5\n\
[b]\nrw=write\nbs=64k\nunified_rw_reporting=mixed\nfsync=4\n";
    let jobs = iofit_jobfile::fio::parse_str(text, "h.fio", &Default::default()).expect("parses");
    let options = RunOptions {
        clock: ClockChoice::Fake { step_ns: 100_000 },
        ..RunOptions::default()
    };
    let report = run_jobs(&jobs, &options, &mut Silent).expect("null run");
    let single: serde_json::Value = serde_json::from_str(&iofit_procedure::fio_run::render(
        OutputFormat::Json,
        &report,
        &jobs,
    ))
    .expect("single-host JSON");
    let multi = MultiRun {
        hosts: vec![HostRun {
            name: "h1".into(),
            destination: "h1".into(),
            result: Some(report.result.clone()),
            ..HostRun::default()
        }],
        combined: report.result.clone(),
        ..MultiRun::default()
    };
    let hosts: serde_json::Value =
        serde_json::from_str(&iofit_procedure::hosts::render_fio(&multi, true, &jobs))
            .expect("hosts JSON");
    let stats = hosts["client_stats"].as_array().expect("client_stats");
    assert_eq!(stats.len(), 4, "two jobs on h1 and two All clients");
    for (index, job) in single["jobs"].as_array().expect("jobs").iter().enumerate() {
        let options = &job["job options"];
        assert!(options.as_object().is_some_and(|o| !o.is_empty()), "{job}");
        assert_eq!(
            &stats[index]["job options"], options,
            "host h1, job {index}"
        );
        assert_eq!(
            &stats[index + 2]["job options"],
            options,
            "All clients, job {index}"
        );
        // Reporting options follow the job too: the percentiles asked for, the mixed direction.
        assert_eq!(
            stats[index]["read"]["clat_ns"]["percentile"]
                .as_object()
                .map(|p| p.len()),
            job["read"]["clat_ns"]["percentile"]
                .as_object()
                .map(|p| p.len())
        );
        assert_eq!(
            stats[index].get("mixed").is_some(),
            job.get("mixed").is_some()
        );
    }
}
