//! The option registry: every row is rendered, bounds decide parsing, and parse -> render ->
//! parse gives the same jobs (property test, and real fio's `--parse-only` on the text).

use super::render::Render;
use super::{job_file_text, parse_str, ParseOptions};
use crate::fio_options::{table, Role, Unit};
use iofit_model::job::JobSpec;
use proptest::prelude::*;

fn parse_only() -> ParseOptions {
    ParseOptions {
        skip_target_checks: true,
        ..ParseOptions::default()
    }
}

/// A job as parsed, without what describes the text it came from rather than the job: the
/// options as written, and the notes (a note says how iofit differs from what the text asked,
/// and the rendered text asks it in iofit's own terms, e.g. a bsrange as its bssplit).
fn comparable(mut job: JobSpec) -> JobSpec {
    job.reporting.job_options.clear();
    job.reporting.global_options.clear();
    job.notes.clear();
    job
}

/// The fields in which two jobs differ, for a readable failure.
fn differences(a: &[JobSpec], b: &[JobSpec]) -> Vec<String> {
    let json = |jobs: &[JobSpec]| serde_json::to_value(jobs).unwrap_or_default();
    let (a, b) = (json(a), json(b));
    let mut out = Vec::new();
    for (index, (a, b)) in a
        .as_array()
        .into_iter()
        .flatten()
        .zip(b.as_array().into_iter().flatten())
        .enumerate()
    {
        for (key, value) in a.as_object().into_iter().flatten() {
            if b.get(key) != Some(value) {
                out.push(format!(
                    "job {index} {key}: {value} became {:?}",
                    b.get(key)
                ));
            }
        }
    }
    out
}

fn round_trip(text: &str) -> Result<(Vec<JobSpec>, Vec<JobSpec>, String), String> {
    let first = parse_str(text, "generated.fio", &parse_only()).map_err(|e| e.to_string())?;
    let rendered = job_file_text(&first);
    let second = parse_str(&rendered, "rendered.fio", &parse_only())
        .map_err(|e| format!("the rendered text does not parse: {e}\n{rendered}"))?;
    let strip = |jobs: Vec<JobSpec>| jobs.into_iter().map(comparable).collect::<Vec<_>>();
    Ok((strip(first), strip(second), rendered))
}

#[test]
fn every_row_says_how_it_is_rendered_and_refused_rows_never_are() {
    let t = table();
    for option in t.rows() {
        match (option.render, option.role) {
            (Render::Never, Role::Refused) => {}
            (Render::Never | Render::Pending, role) => {
                panic!("{} ({role:?}) has no renderer", option.name)
            }
            (_, Role::Refused) => panic!("{} is refused but rendered", option.name),
            (Render::Via(other), _) => {
                let target = t
                    .find(other)
                    .unwrap_or_else(|| panic!("{other} is no option"));
                assert!(
                    matches!(target.render, Render::Value(_)),
                    "{} is rendered via {other}, which writes nothing",
                    option.name
                );
            }
            (Render::Value(_) | Render::NoState | Render::Group, _) => {}
        }
    }
}

#[test]
fn the_table_holds_every_option_once_with_its_bounds_from_model_limits() {
    let t = table();
    let rows: Vec<_> = t.rows().collect();
    assert!(rows.len() >= 170, "{} rows", rows.len());
    let iodepth = t.find("iodepth").expect("iodepth");
    let bounds = iodepth.bounds.expect("iodepth is bounded");
    assert_eq!(
        (bounds.min, bounds.max, bounds.unit),
        (1, u64::from(iofit_model::limits::MAX_IODEPTH), Unit::Count)
    );
    let numjobs = t.find("numjobs").and_then(|o| o.bounds).expect("numjobs");
    assert_eq!(numjobs.max, u64::from(iofit_model::limits::MAX_NUMJOBS));
    let bs = t
        .find("blocksize")
        .and_then(|o| o.bounds)
        .expect("bs by alias");
    assert_eq!(bs.max, iofit_model::limits::MAX_BLOCK_SIZE_BYTES);
    let role = |name: &str| t.find(name).map(|o| o.role);
    use crate::fio_options::PathKind as K;
    assert_eq!(role("filename"), Some(Role::Target));
    assert_eq!(role("write_iolog"), Some(Role::Output(K::IoLog)));
    assert_eq!(role("read_iolog"), Some(Role::Input(K::IoLog)));
    assert_eq!(role("percentile_list"), Some(Role::Reporting));
    assert_eq!(role("clocksource"), Some(Role::Ignored));
    assert_eq!(role("zonemode"), Some(Role::Refused));
    assert_eq!(role("rw"), Some(Role::Workload));
    // The refused rows are exactly the table's refusals.
    for option in t.rows() {
        let refused = matches!(option.status, crate::fio_options::Status::Refused(_));
        assert_eq!(option.role == Role::Refused, refused, "{}", option.name);
    }
}

#[test]
fn a_preset_flag_is_bounded_by_the_same_row_as_the_job_option() {
    let max = iofit_model::limits::MAX_IODEPTH;
    assert_eq!(
        super::check_count_option("iodepth", &max.to_string()).ok(),
        Some(max)
    );
    let above = super::check_count_option("iodepth", &(max + 1).to_string())
        .expect_err("above the bound")
        .to_string();
    assert!(above.contains(&max.to_string()), "{above}");
    assert!(super::check_count_option("numjobs", "0").is_err());
}

/// Every bounded option: its largest value parses, one more is refused naming the option and
/// the range, and (where the minimum is above 0) one less is refused.
#[test]
fn the_table_bounds_decide_what_parsing_accepts() {
    let base = "[j]\nrw=randrw\nfilename=/tmp/iofit-registry-bounds\nsize=16g\n";
    for option in table().rows() {
        let Some(bounds) = option.bounds else {
            continue;
        };
        let job = |value: u64| format!("{base}{}={value}\n", option.name);
        let jobs = parse_str(&job(bounds.max), "b.fio", &parse_only())
            .unwrap_or_else(|e| panic!("{}={} is refused: {e}", option.name, bounds.max));
        assert_eq!(jobs.len(), 1);
        let above = parse_str(&job(bounds.max + 1), "b.fio", &parse_only()).expect_err(&format!(
            "{}={} is accepted",
            option.name,
            bounds.max + 1
        ));
        let text = above.to_string();
        assert!(text.contains(option.name), "{text}");
        if bounds.min > 0 {
            parse_str(&job(bounds.min - 1), "b.fio", &parse_only()).expect_err(&format!(
                "{}={} is accepted",
                option.name,
                bounds.min - 1
            ));
        }
    }
}

#[test]
fn job_options_renders_what_the_old_renderer_left_out() {
    let text = "[j]\nrw=randwrite\nfilename=/tmp/x\nsize=1m\nthinktime=250us\nverify=crc32c\nverify_backlog=16\ncpus_allowed=0,2\nnice=5\nlat_percentiles=1\nwrite_iolog=/tmp/x.log\nfsync=8\nsync=dsync\n";
    let jobs = parse_str(text, "j.fio", &parse_only()).expect("parses");
    let options = super::job_options(&jobs[0]);
    for (key, value) in [
        ("thinktime", "250us"),
        ("verify", "crc32c"),
        ("verify_backlog", "16"),
        ("cpus_allowed", "0,2"),
        ("nice", "5"),
        ("lat_percentiles", "1"),
        ("write_iolog", "/tmp/x.log"),
        ("fsync", "8"),
        ("sync", "dsync"),
    ] {
        assert!(
            options.contains(&(key.to_string(), value.to_string())),
            "{key}={value} missing from {options:?}"
        );
    }
}

/// One generated option: `key=value` lines (some options need a companion).
fn line(key: &str, value: impl std::fmt::Display) -> String {
    format!("{key}={value}\n")
}

/// Options whose values are independent of the rest of the job.
fn free_options() -> Vec<BoxedStrategy<Option<String>>> {
    let pct = || 0u32..=100;
    let ms = || 1u64..5000;
    let opt = |s: BoxedStrategy<String>| proptest::option::of(s).boxed();
    vec![
        opt((1u32..64).prop_map(|v| line("iodepth", v)).boxed()),
        opt((1u32..8).prop_map(|v| line("numjobs", v)).boxed()),
        opt(ms().prop_map(|v| format!("runtime={v}ms\ntime_based=1\n")).boxed()),
        opt(ms().prop_map(|v| line("ramp_time", format!("{v}ms"))).boxed()),
        opt(ms().prop_map(|v| line("startdelay", format!("{v}ms"))).boxed()),
        opt((1u64..1000).prop_map(|v| line("rate_iops", v)).boxed()),
        opt((1u64..1000, 1u64..1000).prop_map(|(r, w)| line("rate", format!("{}k,{}k", r, w))).boxed()),
        opt((1u64..100).prop_map(|v| line("rate_iops_min", v)).boxed()),
        opt((100u64..5000).prop_map(|v| line("rate_cycle", v)).boxed()),
        opt(Just("rate_process=poisson\n".to_string()).boxed()),
        opt(Just("norandommap=1\n".to_string()).boxed()),
        opt(Just("randrepeat=0\n".to_string()).boxed()),
        // fio 3.33 reads randseed as a signed 64-bit number.
        opt((0..=i64::MAX as u64).prop_map(|v| line("randseed", v)).boxed()),
        opt((2u32..5).prop_map(|v| line("loops", v)).boxed()),
        opt((1u32..64).prop_map(|v| line("fsync", v)).boxed()),
        opt((1u32..64).prop_map(|v| line("fdatasync", v)).boxed()),
        opt(Just("end_fsync=1\n".to_string()).boxed()),
        opt(prop_oneof![Just("sync"), Just("dsync")].prop_map(|v| line("sync", v)).boxed()),
        opt(Just("fsync_on_close=1\n".to_string()).boxed()),
        opt(Just("end_syncfs=1\n".to_string()).boxed()),
        opt((1u64..64).prop_map(|v| line("io_size", format!("{v}m"))).boxed()),
        opt((1u64..4000).prop_map(|v| line("thinktime", format!("{v}us"))).boxed()),
        opt((1u32..16).prop_map(|v| line("thinktime_blocks", v)).boxed()),
        opt((1u32..8).prop_map(|v| line("iodepth_batch", v)).boxed()),
        opt(pct().prop_map(|v| line("buffer_compress_percentage", v)).boxed()),
        opt(Just("refill_buffers=1\n".to_string()).boxed()),
        opt(Just("scramble_buffers=0\n".to_string()).boxed()),
        opt((1u64..100).prop_map(|v| format!("dedupe_percentage={v}\ndedupe_mode=working_set\ndedupe_working_set_percentage=20\ndedupe_global=1\n")).boxed()),
        opt(prop_oneof![Just("crc32c"), Just("md5"), Just("sha256"), Just("xxhash"), Just("meta")]
            .prop_map(|v| format!("verify={v}\nverify_fatal=1\nverify_backlog=16\nverify_interval=4k\n")).boxed()),
        opt(Just("verify_pattern=0xdeadbeef%o\n".to_string()).boxed()),
        opt(Just("buffer_pattern=0x0102\n".to_string()).boxed()),
        opt(Just("group_reporting=1\n".to_string()).boxed()),
        opt(Just("lat_percentiles=1\nclat_percentiles=0\nslat_percentiles=1\n".to_string()).boxed()),
        opt(Just("percentile_list=50:99:99.9\n".to_string()).boxed()),
        opt(prop_oneof![Just("mixed"), Just("both")].prop_map(|v| line("unified_rw_reporting", v)).boxed()),
        opt((1u8..=10).prop_map(|v| line("significant_figures", v)).boxed()),
        opt(prop::collection::btree_set(0usize..4, 1..3).prop_map(|cpus| {
            let list: Vec<String> = cpus.iter().map(usize::to_string).collect();
            format!("cpus_allowed={}\ncpus_allowed_policy=split\n", list.join(","))
        }).boxed()),
        opt((-20i32..=19).prop_map(|v| line("nice", v)).boxed()),
        opt((0u8..=7, 1u8..=3).prop_map(|(level, class)| format!("prio={level}\nprioclass={class}\n")).boxed()),
        opt(Just("exitall=1\nexitall_on_error=1\n".to_string()).boxed()),
        opt(prop_oneof![Just("read"), Just("write"), Just("io"), Just("all")].prop_map(|v| line("continue_on_error", v)).boxed()),
        opt(Just("ignore_error=EIO:ENOSPC,,EILSEQ\n".to_string()).boxed()),
        opt(Just("error_dump=0\n".to_string()).boxed()),
        opt(Just("ioengine=io_uring\nfixedbufs=1\nregisterfiles=0\nsqthread_poll=1\nsqthread_poll_cpu=1\nforce_async=4\nnonvectored=0\nhipri=1\n".to_string()).boxed()),
        opt(Just("disable_lat=1\ndisable_slat=1\n".to_string()).boxed()),
        opt((1u64..500).prop_map(|v| line("max_latency", format!("{v}ms"))).boxed()),
        opt(Just("unlink=1\n".to_string()).boxed()),
        opt(Just("pre_read=1\n".to_string()).boxed()),
        opt(Just("fadvise_hint=0\n".to_string()).boxed()),
        opt(Just("invalidate=0\n".to_string()).boxed()),
        opt(prop_oneof![Just("short"), Just("long")].prop_map(|v| line("write_hint", v)).boxed()),
        opt((1u32..100, 1u32..1000, 1u32..10).prop_map(|(id, w, s)| format!("flow_id={id}\nflow={w}\nflow_sleep={s}\n")).boxed()),
        opt(Just("serialize_overlap=1\n".to_string()).boxed()),
        opt((1u64..50).prop_map(|v| format!("steadystate=iops:{v}%\nss_dur=5s\nss_ramp=2s\n")).boxed()),
        opt((100u64..5000).prop_map(|v| format!("latency_target={v}us\nlatency_window=1s\nlatency_percentile=99.5\nlatency_run=1\n")).boxed()),
        opt((1u64..10).prop_map(|v| line("offset_increment", format!("{v}m"))).boxed()),
        opt(prop_oneof![Just("offset=10%\n".to_string()), (1u64..8).prop_map(|v| line("offset", format!("{v}m")))].boxed()),
        opt(Just("filename_format=$jobname.$filenum\n".to_string()).boxed()),
        opt(Just("stonewall=1\n".to_string()).boxed()),
        opt(Just("new_group=1\n".to_string()).boxed()),
        opt(Just("atomic=1\n".to_string()).boxed()),
        opt(prop_oneof![Just("random:4"), Just("sequential"), Just("zipf:1.2")].prop_map(|v| line("file_service_type", v)).boxed()),
        opt(Just("write_iolog=/tmp/iofit-registry-iolog\n".to_string()).boxed()),
        opt(Just(1000u64).prop_map(|ms| format!("write_bw_log=/tmp/bw\nwrite_iops_log=/tmp/iops\nlog_avg_msec={ms}\nlog_offset=1\nlog_unix_epoch=1\nper_job_logs=0\nlog_prio=1\nlog_max_value=1\n")).boxed()),
        opt(Just("write_hist_log=/tmp/hist\nlog_hist_msec=1000\n".to_string()).boxed()),
        opt(Just("write_lat_log=/tmp/lat\n".to_string()).boxed()),
        opt((1u32..400).prop_map(|scale| format!("read_iolog=/tmp/a.log:/tmp/b.log\nreplay_no_stall=1\nreplay_time_scale={scale}\nreplay_redirect=/tmp/dev\nreplay_align=4k\nreplay_scale=2\nreplay_skip=read,sync\nread_iolog_chunked=1\n")).boxed()),
        opt((0u32..=100, 1u8..=3, 0u8..=7).prop_map(|(pct, class, level)| format!("ioengine=io_uring\ncmdprio_percentage={pct},10\ncmdprio_class={class},2\ncmdprio={level},3\n")).boxed()),
        opt(Just("ioengine=io_uring\ncmdprio_bssplit=64k/25/1/1:1m/50,4k/100\n".to_string()).boxed()),
        opt(Just("verify=crc32c\nverify_state_save=1\nverify_dump=1\nverify_header_seed=0\ndo_verify=0\nverify_offset=512\nverify_backlog_batch=8\n".to_string()).boxed()),
        opt(Just("verify=md5\nverify_state_load=1\nverify_only=1\n".to_string()).boxed()),
        opt((1u64..16).prop_map(|k| format!("blockalign={}k\noffset_align={}k\n", 4 * k, 4 * k)).boxed()),
        opt(Just("disable_clat=1\ndisable_bw_measurement=1\n".to_string()).boxed()),
        opt(Just("zero_buffers=1\nbuffer_compress_chunk=4k\n".to_string()).boxed()),
        opt(Just("unlink_each_loop=1\ncreate_only=1\nfill_device=1\n".to_string()).boxed()),
        opt((1u64..64).prop_map(|m| line("filesize", format!("{m}m"))).boxed()),
        opt(Just("thinktime_spin=100us\nthinktime=2ms\n".to_string()).boxed()),
        opt((1u64..100).prop_map(|v| line("rate_min", format!("{v}k"))).boxed()),
    ]
}

/// The pattern, sizes and target, which other options depend on.
fn shape() -> impl Strategy<Value = String> {
    let rw = prop_oneof![
        Just("read"),
        Just("write"),
        Just("randread"),
        Just("randwrite"),
        Just("randrw"),
        Just("rw"),
        Just("randtrim"),
        Just("trimwrite")
    ];
    let bs = prop_oneof![
        (1u64..16).prop_map(|k| format!("bs={}k\n", 4 * k)),
        (1u64..16, 1u64..16).prop_map(|(r, w)| format!("bs={}k,{}k\n", 4 * r, 4 * w)),
        Just("bssplit=4k/20:64k/80,8k/50:128k/50\n".to_string()),
        Just("bsrange=4k-16k\n".to_string()),
    ];
    let target = prop_oneof![
        (1usize..4).prop_map(|n| {
            let names: Vec<String> = (0..n).map(|i| format!("/tmp/iofit-registry-{i}")).collect();
            format!("filename={}\n", names.join(":"))
        }),
        (1u32..4).prop_map(|n| format!("directory=/tmp/iofit-registry-dir\nnrfiles={n}\n")),
    ];
    let random = prop_oneof![
        Just(String::new()),
        Just("random_distribution=zipf:1.2\n".to_string()),
        Just("random_distribution=pareto:0.3:0.5\n".to_string()),
        Just("random_distribution=zoned:60/10:30/20:10/70\n".to_string()),
        (1u32..100).prop_map(|p| line("percentage_random", p)),
        (2u32..8).prop_map(|n| format!("rw_sequencer=identical\nrandom_run_marker={n}\n")),
    ];
    (rw, bs, target, random, 1u64..256, 0u32..=100, any::<bool>()).prop_map(
        |(rw, bs, target, random, size_mib, mix, direct)| {
            let random = match random.strip_prefix("rw_sequencer=identical\nrandom_run_marker=") {
                // rw=randread:N: N IOs per random offset.
                Some(n) if rw.starts_with("rand") => {
                    format!("rw_sequencer=identical\nrw={rw}:{}", n)
                }
                Some(_) => String::new(),
                None => random,
            };
            // A trim job keeps only its trims' split (and the stated extremes of the others),
            // so a split's read and write lists are not in the job to write back.
            let bs = if rw.contains("trim") && bs.starts_with("bs=") {
                bs
            } else if rw.contains("trim") {
                "bs=8k\n".to_string()
            } else {
                bs
            };
            format!(
                "rw={rw}\n{bs}{target}size={size_mib}m\nrwmixread={mix}\ndirect={}\n{random}",
                u8::from(direct)
            )
        },
    )
}

fn job_file() -> impl Strategy<Value = String> {
    (shape(), free_options(), shape(), free_options()).prop_map(|(shape_a, a, shape_b, b)| {
        let body = |options: Vec<Option<String>>| {
            let mut text: String = options.into_iter().flatten().collect();
            // Combinations iofit refuses: a log per clone needs results per clone.
            if text.contains("_log=") {
                text = text.replace("group_reporting=1\n", "");
            }
            text
        };
        // Verifying a trimwrite job is not implemented: such a job verifies nothing.
        let fix = |shape: String, body: &str| {
            if body.contains("verify") {
                shape.replace("rw=trimwrite", "rw=randwrite")
            } else {
                shape
            }
        };
        let (a, b) = (body(a), body(b));
        let (shape_a, shape_b) = (fix(shape_a, &a), fix(shape_b, &b));
        format!("[first]\n{shape_a}{a}[second]\n{shape_b}{b}")
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// parse -> render -> parse gives the same jobs, for files drawn over ~80 options.
    #[test]
    fn parse_render_parse_gives_the_same_jobs(text in job_file()) {
        let (first, second, rendered) = match round_trip(&text) {
            Ok(jobs) => jobs,
            Err(e) if e.starts_with("the rendered text") => {
                return Err(TestCaseError::fail(format!("{e}\ntext:\n{text}")))
            }
            // A drawn combination iofit refuses (a latency log on a mixed job...) is no job file.
            Err(e) => {
                prop_assume!(false, "{}", e);
                unreachable!()
            }
        };
        prop_assert!(first == second, "{:?}\ntext:\n{}\nrendered:\n{}", differences(&first, &second), text, rendered);
    }
}

/// Job files over many options; their rendered text must be a job file fio itself accepts.
const FIO_ACCEPTS: &[&str] = &[
    "[a]\nrw=randrw\nrwmixread=70\nbs=4k,16k\nfilename=/tmp/iofit-a:/tmp/iofit-b\nsize=64m\nioengine=io_uring\niodepth=32\ndirect=1\nnumjobs=2\nruntime=1500ms\ntime_based=1\nramp_time=2s\nrate_iops=500,200\nnorandommap=1\nrandrepeat=0\nrandseed=42\nrandom_distribution=zipf:1.2\nthinktime=250us\nthinktime_blocks=4\nfsync=8\nsync=dsync\nverify=crc32c\nverify_backlog=16\nlat_percentiles=1\npercentile_list=50:99:99.9\ncpus_allowed=0,1\ncpus_allowed_policy=split\nnice=5\nprio=3\nprioclass=2\nexitall_on_error=1\ncontinue_on_error=io\nfixedbufs=1\nhipri=1\n",
    "[b]\nrw=write:8k\nbssplit=4k/20:64k/80,8k/50:128k/50\ndirectory=/tmp/iofit-dir\nnrfiles=3\nsize=32m\noffset=10%\noffset_increment=1m\nio_size=16m\nloops=2\nend_fsync=1\nfsync_on_close=1\nbuffer_compress_percentage=50\nbuffer_compress_chunk=4k\nrefill_buffers=1\nwrite_bw_log=/tmp/iofit-bw\nwrite_iops_log=/tmp/iofit-iops\nlog_avg_msec=500\nlog_offset=1\nwrite_iolog=/tmp/iofit-iolog\nunified_rw_reporting=mixed\nsignificant_figures=6\nstonewall=1\nflow_id=3\nflow=10\nflow_sleep=5\n",
    "[c]\nrw=randread:4\nrw_sequencer=identical\nbs=8k\nfilename=/tmp/iofit-c\nsize=8m\nrandom_distribution=zoned:60/10:30/20:10/70\nsteadystate=iops:5%\nss_dur=10s\nss_ramp=2s\nmax_latency=20ms\ndisable_slat=1\nfadvise_hint=0\ninvalidate=0\nread_iolog=/tmp/iofit-log\nreplay_time_scale=200\nreplay_skip=read,sync\n[d]\nrw=randwrite\nbs=64k\nfilename=/tmp/iofit-d\nsize=8m\nnumber_ios=100\nnew_group=1\nlatency_target=2ms\nlatency_window=1s\nlatency_percentile=99.5\ndedupe_percentage=30\ndedupe_mode=working_set\ndedupe_working_set_percentage=20\nverify=md5\nverify_pattern=0xdeadbeef%o\nverify_state_save=1\nioengine=io_uring\ncmdprio_percentage=20,10\ncmdprio_class=1,2\ncmdprio=2,3\nwrite_hint=short\nignore_error=EIO:ENOSPC,,EILSEQ\n",
];

#[test]
fn real_fio_parse_only_accepts_the_rendered_text() {
    if std::process::Command::new("fio")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("fio is not installed; skipped");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    for (index, text) in FIO_ACCEPTS.iter().enumerate() {
        let (first, second, rendered) = round_trip(text).expect("parses and renders");
        assert_eq!(first, second, "{:?}", differences(&first, &second));
        let path = dir.path().join(format!("rendered-{index}.fio"));
        std::fs::write(&path, &rendered).expect("write the rendered job file");
        let out = std::process::Command::new("fio")
            .arg("--parse-only")
            .arg(&path)
            .output()
            .expect("run fio");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success()
                && !stderr.contains("bad option")
                && !stderr.contains("failed parsing"),
            "fio --parse-only refused the rendered text ({}):\n{stderr}\n{rendered}",
            out.status
        );
    }
}

/// A job that turns `option` on the generic way (its value names a file, or a flag is 1), with
/// what every path option needs around it.
pub(crate) fn enabling(option: &super::PathOption, section: &str, dir: &str) -> String {
    let value = if option.takes_value {
        format!("{dir}/{section}-{}", option.name)
    } else {
        "1".to_string()
    };
    format!(
        "[{section}]\nrw=randwrite\nbs=4k\nsize=1m\nfilename={dir}/{section}.data\nverify=crc32c\nlog_avg_msec=1000\nlog_hist_msec=1000\n{}={value}\n",
        option.name
    )
}

#[test]
fn every_option_with_a_path_role_lists_the_files_it_names() {
    let options = super::path_options();
    let names: Vec<&str> = options.iter().map(|o| o.name).collect();
    for expected in [
        "write_iolog",
        "write_bw_log",
        "write_lat_log",
        "write_iops_log",
        "write_hist_log",
        "verify_state_save",
        "read_iolog",
        "verify_state_load",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} has no path role: {names:?}"
        );
    }
    for option in &options {
        assert!(
            super::paths::files_of(
                option.name,
                &JobSpec::new("x", iofit_model::job::Target::Files(vec![])),
                1
            )
            .is_some(),
            "{} has a path role but no file lister",
            option.name
        );
        let jobs = parse_str(&enabling(option, "j", "/tmp/d"), "p.fio", &parse_only())
            .unwrap_or_else(|e| panic!("{}: {e}", option.name));
        let paths = super::job_paths(&jobs);
        let listed = if option.output {
            &paths.outputs
        } else {
            &paths.inputs
        };
        assert!(
            listed
                .iter()
                .any(|p| p.option == option.name && p.kind == option.kind),
            "{} lists no file: {paths:?}",
            option.name
        );
    }
}

#[test]
fn log_files_are_numbered_by_clone_over_the_whole_run() {
    let text = "[a]\nrw=write\nsize=1m\nfilename=/tmp/a\nnumjobs=2\nwrite_bw_log=/tmp/p\nlog_avg_msec=1000\n[b]\nrw=write\nsize=1m\nfilename=/tmp/b\nwrite_lat_log=/tmp/q\nwrite_iolog=/tmp/io.log\n";
    let jobs = parse_str(text, "l.fio", &parse_only()).expect("parses");
    let outputs: Vec<String> = super::job_paths(&jobs)
        .outputs
        .iter()
        .map(|p| p.path.display().to_string())
        .collect();
    assert_eq!(
        outputs,
        [
            "/tmp/p_bw.1.log",
            "/tmp/p_bw.2.log",
            "/tmp/q_lat.3.log",
            "/tmp/q_clat.3.log",
            "/tmp/q_slat.3.log",
            "/tmp/io.log"
        ]
    );
}

/// The property test's files write every option the table renders (so a renderer without a
/// generator is noticed): a fixed sample of them, rendered, names each such option.
#[test]
fn the_generated_files_exercise_every_renderer() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut written = std::collections::BTreeSet::new();
    for _ in 0..400 {
        let text = job_file().new_tree(&mut runner).expect("a file").current();
        if let Ok((_, _, rendered)) = round_trip(&text) {
            written.extend(
                rendered
                    .lines()
                    .filter_map(|l| Some(l.split_once('=')?.0.to_string())),
            );
        }
    }
    let missing: Vec<&str> = table()
        .rows()
        .filter(|o| matches!(o.render, Render::Value(_)) && o.name != "name")
        .filter(|o| !written.contains(o.name))
        .map(|o| o.name)
        .collect();
    assert!(missing.is_empty(), "no generated file writes {missing:?}");
}

/// The options the installed fio does not know (options of a newer fio than the machine's):
/// asked once each with `fio --cmdhelp`, the io_uring engine's from `fio --enghelp=io_uring`.
fn unknown_to_installed_fio(keys: &std::collections::BTreeSet<String>) -> Vec<String> {
    let engine = std::process::Command::new("fio")
        .arg("--enghelp=io_uring")
        .output()
        .expect("run fio --enghelp");
    let engine_options: Vec<String> = String::from_utf8_lossy(&engine.stdout)
        .lines()
        .filter_map(|l| Some(l.split_once(':')?.0.trim().to_string()))
        .collect();
    keys.iter()
        .filter(|key| !engine_options.contains(key))
        .filter(|key| {
            let out = std::process::Command::new("fio")
                .arg(format!("--cmdhelp={key}"))
                .output()
                .expect("run fio --cmdhelp");
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            text.contains("No such command")
        })
        .cloned()
        .collect()
}

/// Real fio accepts what the registry renders for generated job files too (options only a
/// newer fio than the installed one knows are left out of its copy, and listed).
#[test]
fn real_fio_parse_only_accepts_rendered_generated_files() {
    use proptest::strategy::ValueTree;
    if std::process::Command::new("fio")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("fio is not installed; skipped");
        return;
    }
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut rendered_files = Vec::new();
    while rendered_files.len() < 40 {
        let text = job_file().new_tree(&mut runner).expect("a file").current();
        if let Ok((_, _, rendered)) = round_trip(&text) {
            rendered_files.push(rendered);
        }
    }
    let keys = rendered_files
        .iter()
        .flat_map(|t| {
            t.lines()
                .filter_map(|l| Some(l.split_once('=')?.0.to_string()))
        })
        .collect();
    let newer = unknown_to_installed_fio(&keys);
    assert!(newer.len() < 5, "the installed fio lacks {newer:?}");
    let dir = tempfile::tempdir().expect("tempdir");
    for (index, rendered) in rendered_files.iter().enumerate() {
        let kept: String = rendered
            .lines()
            .filter(|l| {
                !l.split_once('=')
                    .is_some_and(|(k, _)| newer.iter().any(|n| n == k))
            })
            .map(|l| format!("{l}\n"))
            .collect();
        let path = dir.path().join(format!("generated-{index}.fio"));
        std::fs::write(&path, &kept).expect("write");
        let out = std::process::Command::new("fio")
            .arg("--parse-only")
            .arg(&path)
            .output()
            .expect("run fio");
        assert!(
            out.status.success(),
            "fio --parse-only refused:\n{}\n{kept}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The table's time options read an expression's result in microseconds, by name or alias;
/// other options read it as they read a number.
#[test]
fn time_options_from_the_table_read_expressions_in_microseconds() {
    let parse = |extra: &str| {
        let text = format!("[j]\nrw=read\nsize=1m\nfilename=/tmp/t\n{extra}\n");
        parse_str(&text, "t.fio", &parse_only())
            .expect("parses")
            .remove(0)
    };
    let second = std::time::Duration::from_secs(1);
    assert_eq!(parse("runtime=(2*1000000)").runtime, Some(2 * second));
    assert_eq!(parse("timeout=(3*1000000)").runtime, Some(3 * second));
    assert_eq!(parse("ramp_time=(500*1000)").ramp_time, second / 2);
    assert_eq!(parse("iodepth=(2*8)").iodepth, 16);
}
