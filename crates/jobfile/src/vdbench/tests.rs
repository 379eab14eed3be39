use iofit_model::job::RwMode;
use std::path::Path;

use super::*;
use std::process::Command;

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/vdbench")
}

/// Runs the seed's own script (via examples/vdbench/generate.sh) into a temp dir.
fn generate(data_dir: &Path) -> tempfile::TempDir {
    let out = tempfile::tempdir().unwrap();
    let status = Command::new("bash")
        .arg(examples_dir().join("generate.sh"))
        .arg(out.path())
        .arg(data_dir)
        .status()
        .expect("bash runs");
    assert!(status.success());
    out
}

struct Expect {
    pattern: &'static str,
    runs: usize,
    threads: &'static [u32],
    rdpct: f64,
    seek: Seek,
    xfer: Bytes,
}

const SEED_RUNS: &[Expect] = &[
    Expect {
        pattern: "FillWrite",
        runs: 1,
        threads: &[1],
        rdpct: 0.0,
        seek: Seek::Eof,
        xfer: Bytes::kib(64),
    },
    Expect {
        pattern: "SeqRead",
        runs: 1,
        threads: &[20],
        rdpct: 100.0,
        seek: Seek::RandomPct(0.0),
        xfer: Bytes::kib(64),
    },
    Expect {
        pattern: "SeqWrite",
        runs: 3,
        threads: &[26, 32, 40],
        rdpct: 0.0,
        seek: Seek::RandomPct(0.0),
        xfer: Bytes::kib(64),
    },
    Expect {
        pattern: "RndRead",
        runs: 1,
        threads: &[25],
        rdpct: 100.0,
        seek: Seek::RandomPct(100.0),
        xfer: Bytes::kib(8),
    },
    Expect {
        pattern: "RndWrite",
        runs: 1,
        threads: &[20],
        rdpct: 0.0,
        seek: Seek::RandomPct(100.0),
        xfer: Bytes::kib(8),
    },
    Expect {
        pattern: "SeqMix",
        runs: 2,
        threads: &[6, 7],
        rdpct: 50.0,
        seek: Seek::RandomPct(0.0),
        xfer: Bytes::kib(64),
    },
    Expect {
        pattern: "RndMix",
        runs: 1,
        threads: &[25],
        rdpct: 50.0,
        seek: Seek::RandomPct(100.0),
        xfer: Bytes::kib(8),
    },
];

#[test]
fn seed_script_files_parse_into_the_seed_runs() {
    let data = tempfile::tempdir().unwrap();
    let out = generate(data.path());
    for expect in SEED_RUNS {
        let path = out
            .path()
            .join(format!("vnet1-{}-workload", expect.pattern));
        let file = parse_file(&path).unwrap();
        assert_eq!(file.sds.len(), 6, "{}: one VM x 6 mounts", expect.pattern);
        assert!(file
            .sds
            .iter()
            .all(|sd| sd.size == Some(Bytes::gib(693)) && sd.direct));
        assert!(file.sds[0].lun.starts_with(data.path()));
        assert_eq!(file.hosts.len(), 1);
        file.check_hosts(is_local_host).unwrap();
        let runs = file.runs().unwrap();
        assert_eq!(runs.len(), expect.runs, "{}", expect.pattern);
        for (run, threads) in runs.iter().zip(expect.threads) {
            assert_eq!(run.threads, *threads, "{}", expect.pattern);
            assert_eq!(
                run.total_threads(),
                threads * 6,
                "{}: threads are per SD",
                expect.pattern
            );
            assert_eq!(run.iorate, IoRate::Max);
            for w in &run.workloads {
                assert_eq!(w.rdpct, expect.rdpct);
                assert_eq!(w.seek, expect.seek);
                assert_eq!(w.xfersize, XferSize::Fixed(expect.xfer));
            }
            if expect.pattern == "FillWrite" {
                assert_eq!(run.elapsed, Duration::from_secs(259_200));
                assert_eq!(run.warmup, Duration::ZERO);
            } else {
                assert_eq!(run.elapsed, Duration::from_secs(600));
                assert_eq!(run.warmup, Duration::from_secs(60));
            }
            let jobs = run.to_jobs(None);
            assert_eq!(jobs.len(), 6);
            let in_flight: u32 = jobs.iter().map(|j| j.numjobs * j.effective_iodepth()).sum();
            assert_eq!(in_flight, threads * 6);
            for job in &jobs {
                if expect.seek == Seek::RandomPct(100.0) {
                    assert_eq!(job.effective_iodepth(), 1, "one thread = one IO in flight");
                    assert_eq!(job.numjobs, *threads);
                } else {
                    assert_eq!(job.numjobs, 1, "sequential threads share one stream");
                    assert_eq!(job.effective_iodepth(), *threads);
                }
                assert_eq!(job.rwmix_read_pct, expect.rdpct);
                assert!(job.direct);
                assert_eq!(job.time_based, expect.seek != Seek::Eof);
            }
        }
    }
}

#[test]
fn committed_examples_are_the_generated_files() {
    let out = generate(Path::new("/tmp/iofit-vdbench"));
    let mut count = 0;
    for entry in std::fs::read_dir(out.path()).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        let committed = std::fs::read_to_string(examples_dir().join(&name))
            .unwrap_or_else(|_| panic!("examples/vdbench/{} missing", name.to_string_lossy()));
        assert_eq!(committed, std::fs::read_to_string(entry.path()).unwrap());
        count += 1;
    }
    assert_eq!(count, 9, "7 workloads + hosts + luns");
}

#[test]
fn script_is_the_seeds_verbatim() {
    // The seed lives beside the repository in this workspace; skip the comparison elsewhere.
    let seed = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/seeds/003_49c858f924217374.txt");
    let Ok(text) = std::fs::read_to_string(&seed) else {
        return;
    };
    let start = text.find("#LUN CONFIG FILES").unwrap();
    let from_seed: Vec<&str> = text[start..]
        .lines()
        .map(|l| l.strip_prefix("    ").unwrap_or(l))
        .collect();
    let ours = std::fs::read_to_string(examples_dir().join("netapp-seed-script.sh")).unwrap();
    let ours: Vec<&str> = ours.lines().collect();
    assert_eq!(from_seed, ours);
}

#[test]
fn remote_hosts_are_refused() {
    let text = "hd=default,jvms=1,shell=ssh\nhd=vm1,system=vdbench-vnet1-1,user=root\nsd=sd1,host=vm1,lun=/tmp/x,size=1m\nwd=w,sd=sd*\nrd=r,wd=w,iorate=max\n";
    let file = parse_str(text, "remote.vdb").unwrap();
    let error = file.check_hosts(|name| name == "localhost").unwrap_err();
    assert_eq!(error.line, 2);
    assert!(error.to_string().contains("not this machine"), "{error}");
    // hd=localhost is this machine.
    let text = "hd=localhost\nsd=sd1,lun=/tmp/x,size=1m\nwd=w,sd=sd1\nrd=r,wd=w,iorate=max\n";
    parse_str(text, "local.vdb")
        .unwrap()
        .check_hosts(is_local_host)
        .unwrap();
    assert!(is_local_host("localhost"));
    assert!(is_local_host("127.0.0.1"));
    let hostname = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    assert!(is_local_host(hostname.trim()));
}

#[test]
fn for_loops_and_rates_expand() {
    let text = "\
* a comment
sd=default,size=4m,openflags=o_direct
sd=sd1,lun=/tmp/a
sd=sd2,lun=/tmp/b
wd=default,xfersize=(4k,30,8k,70)
wd=wr,sd=(sd1,sd2),rdpct=70,seekpct=40,skew=25
wd=seq,sd=sd2,rdpct=100,seekpct=0,skew=75
rd=default,elapsed=10m,warmup=30,interval=5
rd=loop,wd=(wr,s*),iorate=1000,forthreads=(1-8,d),forrdpct=(0,100)
rd=curve,wd=wr,iorate=curve,curve=(50,100),threads=4
rd=list,wd=seq,iorate=(100,200),forxfersize=(4k,64k),forseekpct=(0,eof)
";
    let file = parse_str(text, "loops.vdb").unwrap();
    let runs = file.runs().unwrap();
    // loop: 4 thread counts x 2 rdpcts; curve: 1; list: 2 rates x 2 sizes x 2 seeks.
    assert_eq!(runs.len(), 8 + 1 + 8);
    let first = &runs[0];
    assert_eq!(first.threads, 1);
    assert_eq!(first.for_label, "threads=1 rdpct=0");
    assert_eq!(first.elapsed, Duration::from_secs(600));
    assert_eq!(first.interval, Duration::from_secs(5));
    assert_eq!(runs[1].for_label, "threads=1 rdpct=100");
    assert_eq!(runs[7].threads, 8);
    // sd2 is shared by two wds: 8 threads split 4 + 4; sd1 has wr alone.
    let wr_sd1 = runs[7]
        .workloads
        .iter()
        .find(|w| w.wd == "wr" && w.sd.name == "sd1")
        .unwrap();
    let wr_sd2 = runs[7]
        .workloads
        .iter()
        .find(|w| w.wd == "wr" && w.sd.name == "sd2")
        .unwrap();
    assert_eq!((wr_sd1.threads, wr_sd2.threads), (8, 4));
    // iorate=1000 split by skew: wr 25% over two sds, seq 75% on one.
    let shares: f64 = runs[0].workloads.iter().map(|w| w.rate_share).sum();
    assert!((shares - 1.0).abs() < 1e-9);
    let jobs = runs[1].to_jobs(Some(1000.0));
    let total_read_cap: u64 = jobs
        .iter()
        .map(|j| j.rate_iops.read.unwrap_or(0) * u64::from(j.numjobs))
        .sum();
    assert!((990..=1010).contains(&total_read_cap), "{total_read_cap}");
    let wr_job = jobs.iter().find(|j| j.name == "loop.wr.sd1").unwrap();
    assert_eq!(wr_job.random_pct, 40.0);
    assert_eq!(
        wr_job.rw,
        RwMode::RandRead,
        "forrdpct=100 overrides the wd's rdpct"
    );
    assert_eq!(
        wr_job.block_size.mean_size(iofit_model::Direction::Read),
        Bytes(6963)
    );
    // vdbench runs warmup=30 (6 intervals of 5 s) before elapsed=10m (120 intervals) and
    // prints the warm-up intervals: no ramp, all 630 s measured (the summary leaves the first
    // 6 intervals out of its average).
    assert_eq!(wr_job.ramp_time, Duration::ZERO);
    assert_eq!(wr_job.runtime, Some(Duration::from_secs(630)));
    let plan = runs[1].interval_plan();
    assert_eq!((plan.warmup_intervals, plan.total_intervals), (6, 126));
    assert_eq!(plan.first_measured(), 7);
    assert_eq!(runs[8].iorate, IoRate::Curve(vec![50.0, 100.0]));
    assert_eq!(runs[9].iorate, IoRate::Fixed(100.0));
    assert_eq!(runs[9].for_label, "xfersize=4k seekpct=0");
    assert_eq!(runs[10].for_label, "xfersize=4k seekpct=eof");
    assert!(!runs[10].to_jobs(None)[0].time_based);
}

#[test]
fn continuation_lines_and_quotes() {
    let text = "sd=sd1,lun=\"/tmp/with space\",\n   size=1m\nwd=w,sd=(\"sd1\"),\n  xfersize=8k\nrd=r,wd=w,iorate=max,\n  elapsed=5\n";
    let file = parse_str(text, "cont.vdb").unwrap();
    assert_eq!(file.sds[0].lun, PathBuf::from("/tmp/with space"));
    assert_eq!(file.sds[0].size, Some(Bytes::mib(1)));
    assert_eq!(file.rds[0].elapsed, Duration::from_secs(5));
}

#[test]
fn wildcards() {
    assert!(wildcard_match("sd*", "sd-1-1"));
    assert!(wildcard_match("*", "x"));
    assert!(wildcard_match("sd?", "sd1"));
    assert!(!wildcard_match("sd?", "sd12"));
    assert!(!wildcard_match("wd*", "sd1"));
}

#[test]
fn runaway_for_loops_are_refused() {
    let text = "sd=sd1,lun=/tmp/x,size=1m\nwd=w,sd=sd1\nrd=r,wd=w,iorate=max,forthreads=(1-1000,1),forrdpct=(0,10,20,30,40,50,60,70,80,90,100)\n";
    let error = parse_str(text, "big.vdb").unwrap().runs().unwrap_err();
    assert_eq!(error.line, 3);
    assert!(
        error.to_string().contains("more than 10000 runs"),
        "{error}"
    );
}

#[test]
fn hosts_lists_and_shells() {
    let text = "hd=default,jvms=2,shell=ssh,vdbench=/opt/iofit/bin/iofit\nhd=vm1,system=10.0.0.1,user=root\nhd=vm2,system=10.0.0.2\nhd=vm3,system=10.0.0.3,jvms=1\n\
sd=a,host=vm1,lun=/d/a,size=1m\nsd=b,host=(vm2,vm3),lun=/d/b,size=1m\nsd=c,host=*,lun=/d/c,size=1m\nsd=d,lun=/d/d,size=1m\n\
wd=w,sd=*\nrd=r,wd=w,iorate=max,elapsed=2,threads=4\n";
    let file = parse_str(text, "multi.vdb").unwrap();
    assert_eq!(file.hosts[0].user.as_deref(), Some("root"));
    assert_eq!(file.hosts[0].jvms, 2);
    assert_eq!(file.hosts[2].jvms, 1);
    assert_eq!(
        file.hosts[1].remote_binary.as_deref(),
        Some("/opt/iofit/bin/iofit")
    );
    let names = |sd: usize| -> Vec<String> {
        file.sd_hosts(&file.sds[sd])
            .unwrap()
            .iter()
            .map(|h| h.name.clone())
            .collect()
    };
    assert_eq!(names(0), vec!["vm1"]);
    assert_eq!(names(1), vec!["vm2", "vm3"]);
    assert_eq!(names(2), vec!["vm1", "vm2", "vm3"]);
    assert_eq!(names(3), vec!["vm1", "vm2", "vm3"]);
    assert!(file.is_multi_host(is_local_host).unwrap());
    let run = file.runs().unwrap().remove(0);
    let sds = |host: &str| -> Vec<String> {
        run.on_host(&file, host)
            .unwrap()
            .unwrap()
            .workloads
            .iter()
            .map(|w| w.sd.name.clone())
            .collect()
    };
    assert_eq!(sds("vm1"), vec!["a", "c", "d"]);
    assert_eq!(sds("vm2"), vec!["b", "c", "d"]);
    // Unknown hd in host=: an error naming the sd line.
    let bad = "hd=vm1,system=x\nsd=a,host=vm9,lun=/d/a,size=1m\nwd=w,sd=a\nrd=r,wd=w,iorate=max\n";
    let error = parse_str(bad, "bad.vdb")
        .unwrap()
        .is_multi_host(is_local_host)
        .unwrap_err();
    assert_eq!(error.line, 2, "{error}");
    // shell=rsh and shell=vdbench run over ssh, as shell=ssh does, and a note says so.
    let with_shell = |shell: &str| {
        parse_str(
            &format!("hd=default,user=u,shell={shell}\nhd=vm1,system=x\nsd=a,host=vm1,lun=/d/a,size=1m\nwd=w,sd=a\nrd=r,wd=w,iorate=max\n"),
            "shell.vdb",
        )
    };
    let ssh = with_shell("ssh").unwrap();
    assert!(ssh.notes.is_empty(), "{:?}", ssh.notes);
    for (shell, kind, why) in [
        ("rsh", RemoteShell::Rsh, "clear text"),
        ("vdbench", RemoteShell::VdbenchRmi, "RMI daemon"),
    ] {
        let file = with_shell(shell).unwrap();
        assert_eq!(file.hosts, ssh.hosts, "shell={shell}");
        assert_eq!(file.runs().unwrap(), ssh.runs().unwrap(), "shell={shell}");
        assert_eq!(
            file.notes,
            [VdbenchNote::ShellOverSsh {
                at: Location::new("shell.vdb", 1),
                written: shell.to_string(),
                shell: kind
            }]
        );
        let note = file.notes[0].to_string();
        assert!(note.starts_with("shell.vdb:1: "), "{note}");
        assert!(
            note.contains("runs over ssh") && note.contains(why),
            "{note}"
        );
    }
    let error = with_shell("telnet").unwrap_err();
    assert_eq!(error.line, 1);
    assert!(error.to_string().contains("use shell=ssh"), "{error}");
    // hd=localhost alone is a local run.
    let local = parse_str(
        "hd=localhost\nsd=a,lun=/d/a,size=1m\nwd=w,sd=a\nrd=r,wd=w,iorate=max\n",
        "l.vdb",
    )
    .unwrap();
    assert!(!local.is_multi_host(is_local_host).unwrap());
}

#[test]
fn swat_replay_groups_are_refused_naming_the_line_and_what_to_use() {
    let text = "rg=group1,devices=(123,456)\nsd=sd1,lun=/d/a,replay=group1\nwd=wd1,sd=sd1\nrd=run1,wd=wd1,elapsed=10,replay=/tmp/flatfile.bin.gz\n";
    let error = parse_str(text, "swat.vdb").unwrap_err();
    assert_eq!(error.line, 1, "{error}");
    let message = error.to_string();
    assert!(message.contains("rg=group1"), "{message}");
    assert!(message.contains("Swat"), "{message}");
    assert!(message.contains("wd= lines"), "{message}");
}

#[test]
fn wildcards_match_as_vdbench_does() {
    for (pattern, name, expected) in [
        ("sd*", "sd12", true),
        ("sd*", "sd", true),
        ("*", "", true),
        ("sd?", "sd1", true),
        ("sd?", "sd12", false),
        ("s*d-", "sd-", true),
        ("s*d-", "sxxd-", true),
        ("s*d-", "sxxd-x", false),
        ("*a*b", "xaybzb", true),
        ("*a*b", "xaybzc", false),
        ("wd1", "wd1", true),
        ("wd1", "wd10", false),
        ("", "x", false),
    ] {
        assert_eq!(
            wildcard_match(pattern, name),
            expected,
            "{pattern} ~ {name}"
        );
    }
}

/// Found by fuzzing: many stars against a long name that does not match took exponential
/// time (a 600-byte file ran past libFuzzer's 10 s). The match is now at most pattern x name
/// steps, and such a file is refused at once for its undefined SD.
#[test]
fn many_stars_against_a_long_name_fail_fast() {
    let name = format!("sd-{}-4", "O".repeat(5_000));
    let started = std::time::Instant::now();
    assert!(!wildcard_match("s********************d-", &name));
    assert!(wildcard_match("s********************-4", &name));
    let text = format!("sd={name},lun=/tmp/x\nwd=w,sd=s********d-\nrd=r,wd=w,iorate=max\n");
    let error = parse_str(&text, "stars.vdb").unwrap_err().to_string();
    assert!(error.contains("stars.vdb:2"), "{error}");
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
}

#[test]
fn iorate_ranges_expand_as_vdbench_lists() {
    let text = "sd=sd1,lun=/tmp/x,size=4m\nwd=w,sd=sd1\nrd=r,wd=w,iorate=(10000-30000,10000),elapsed=2\nrd=s,wd=w,iorate=(max,100-400,d,50),elapsed=2\n";
    let runs = parse_str(text, "t.vdb").unwrap().runs().unwrap();
    let rates: Vec<IoRate> = runs.iter().map(|r| r.iorate.clone()).collect();
    assert_eq!(
        rates,
        [
            IoRate::Fixed(10_000.0),
            IoRate::Fixed(20_000.0),
            IoRate::Fixed(30_000.0),
            IoRate::Max,
            IoRate::Fixed(100.0),
            IoRate::Fixed(200.0),
            IoRate::Fixed(400.0),
            IoRate::Fixed(50.0),
        ]
    );
    let bad = parse_str(
        "sd=sd1,lun=/tmp/x,size=4m\nwd=w,sd=sd1\nrd=r,wd=w,iorate=(10000-300000)\n",
        "t.vdb",
    )
    .unwrap_err()
    .to_string();
    assert!(bad.contains("t.vdb:3") && bad.contains("step"), "{bad}");
}

#[test]
fn hitarea_zero_is_taken_and_hits_fall_on_one_block() {
    let text = "sd=sd1,lun=/tmp/x,size=4m,hitarea=0\nwd=w,sd=sd1,rhpct=50,rdpct=100,xfersize=4k\nrd=r,wd=w,iorate=max,elapsed=2\n";
    let file = parse_str(text, "t.vdb").unwrap();
    assert_eq!(file.sds[0].hitarea, Some(Bytes::ZERO));
    let job = &file.runs().unwrap()[0].to_jobs(None)[0];
    match &job.random_distribution {
        iofit_model::job::RandomDistribution::Zoned(zones) => {
            assert_eq!(zones[0].access_pct, 50.0);
            assert_eq!(
                zones[0].size,
                iofit_model::job::ZoneSize::Bytes(Bytes::kib(4))
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_missing_absolute_include_is_not_called_relative() {
    let error = parse_str("include=/no/such/dir/luns\n", "t.vdb")
        .unwrap_err()
        .to_string();
    assert!(error.contains("/no/such/dir/luns"), "{error}");
    assert!(!error.contains("relative to the including file"), "{error}");
    let relative = parse_str("include=no-such-luns\n", "t.vdb")
        .unwrap_err()
        .to_string();
    assert!(
        relative.contains("relative to the including file"),
        "{relative}"
    );
}

#[test]
fn host_wildcards_ranges_and_lists_pick_hds_as_vdbench_does() {
    let hds = "hd=default,shell=ssh\nhd=hd1,system=10.0.0.1\nhd=hd2,system=10.0.0.2\nhd=hd3,system=10.0.0.3\nhd=vm1,system=10.0.1.1\n";
    let picks = |host: &str| -> Vec<String> {
        let text = format!(
            "{hds}sd=sd1,lun=/tmp/x,size=1m,host={host}\nwd=w,sd=sd1\nrd=r,wd=w,iorate=max\n"
        );
        let file = parse_str(&text, "h.vdb").unwrap();
        file.sd_hosts(&file.sds[0])
            .unwrap()
            .iter()
            .map(|h| h.name.clone())
            .collect()
    };
    assert_eq!(picks("hd*"), ["hd1", "hd2", "hd3"]);
    assert_eq!(picks("(hd1-hd2)"), ["hd1", "hd2"]);
    assert_eq!(picks("(hd?,vm1)"), ["hd1", "hd2", "hd3", "vm1"]);
    assert_eq!(picks("*"), ["hd1", "hd2", "hd3", "vm1"]);
    assert_eq!(picks("(vm1,hd2)"), ["vm1", "hd2"]);
    let text =
        format!("{hds}sd=sd1,lun=/tmp/x,size=1m,host=db*\nwd=w,sd=sd1\nrd=r,wd=w,iorate=max\n");
    let file = parse_str(&text, "h.vdb").unwrap();
    let error = file.sd_hosts(&file.sds[0]).unwrap_err().to_string();
    assert!(
        error.contains("h.vdb:6") && error.contains("db*"),
        "{error}"
    );
}

#[test]
fn vdbench_path_in_hd_is_kept_only_when_it_names_iofit() {
    let text = "hd=default,shell=ssh\nhd=a,system=10.0.0.1,vdbench=/root/vdbench/vdbench\nhd=b,system=10.0.0.2,vdbench=/opt/iofit/bin/iofit\nsd=sd1,lun=/tmp/x,size=1m,host=*\nwd=w,sd=sd1\nrd=r,wd=w,iorate=max\n";
    let file = parse_str(text, "v.vdb").unwrap();
    assert_eq!(file.hosts[0].remote_binary, None);
    assert_eq!(
        file.hosts[1].remote_binary.as_deref(),
        Some("/opt/iofit/bin/iofit")
    );
    assert_eq!(
        file.notes,
        [VdbenchNote::VdbenchPathIgnored {
            at: Location::new("v.vdb", 2),
            host: "a".to_string(),
            path: "/root/vdbench/vdbench".to_string()
        }]
    );
}

#[test]
fn an_elapsed_under_two_intervals_runs_and_is_noted() {
    let text =
        "sd=sd1,lun=/tmp/x,size=1m\nwd=w,sd=sd1\nrd=r,wd=w,iorate=max,elapsed=3,interval=2\n";
    let file = parse_str(text, "e.vdb").unwrap();
    assert_eq!(
        file.notes,
        [VdbenchNote::ShortElapsed {
            at: Location::new("e.vdb", 3),
            run: "r".to_string(),
            elapsed_s: iofit_model::units::Seconds(3.0),
            interval_s: iofit_model::units::Seconds(2.0)
        }]
    );
    assert_eq!(file.runs().unwrap().len(), 1);
    // Two intervals or more: nothing to say.
    let enough = parse_str(&text.replace("elapsed=3", "elapsed=4"), "e.vdb").unwrap();
    assert!(enough.notes.is_empty(), "{:?}", enough.notes);
}

#[test]
fn many_threads_run_as_io_uring_clones_with_exactly_that_many_in_flight() {
    assert_eq!(many_threads_split(64), None);
    assert_eq!(many_threads_split(1024), Some((16, 64)));
    assert_eq!(many_threads_split(100), Some((2, 50)));
    // A prime above 64 has no split: one synchronous clone per thread.
    assert_eq!(many_threads_split(67), None);
    for threads in [8u32, 65, 100, 1000, 1024, 4096] {
        let text = format!(
            "sd=sd1,lun=/tmp/x,size=1m\nwd=w,sd=sd1,seekpct=100\nrd=r,wd=w,iorate=max,elapsed=2,interval=1,threads={threads}\n"
        );
        let run = &parse_str(&text, "t.vdb").unwrap().runs().unwrap()[0];
        let jobs = run.to_jobs(None);
        let in_flight: u32 = jobs.iter().map(|j| j.numjobs * j.iodepth).sum();
        assert_eq!(in_flight, threads);
        assert_eq!(run.total_threads(), threads);
        assert!(jobs.iter().all(|j| j.numjobs <= 64), "{threads}");
    }
}
