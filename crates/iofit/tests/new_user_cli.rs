//! What a new user meets first (issue 11): plans and predictions that do not overstate, and
//! the small command-line things that trip a newcomer. Each test runs the real binary.

use iofit_testkit::iofit;

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let output = iofit().args(args).output().unwrap();
    (
        output.status.code(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

#[test]
fn an_impossible_design_says_so_first_and_exits_1() {
    let (code, stdout, _) = run(&["predict", "--vm", "Standard_D4s_v5", "--disk", "20xP30"]);
    assert_eq!(code, Some(1), "{stdout}");
    let first = stdout.lines().next().unwrap();
    assert!(
        first.starts_with("IMPOSSIBLE DESIGN: 20 data disks but Standard_D4s_v5 allows 8"),
        "{first}"
    );
    assert!(stdout.contains("(cannot be built)"), "{stdout}");
}

#[test]
fn a_buildable_design_without_targets_exits_0() {
    let (code, stdout, _) = run(&["predict", "--vm", "Standard_D4s_v5", "--disk", "2xP30"]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(
        stdout.starts_with("iofit predict: Standard_D4s_v5"),
        "{stdout}"
    );
}

/// Standard_D4s_v5 publishes no cached limits: plan refuses ReadOnly there, and predict counts
/// the volume as uncached (the VM's 6,400 uncached IOPS bind), not a cache of any speed.
#[test]
fn predict_treats_an_unpublished_cache_as_plan_does() {
    let (code, stdout, _) = run(&[
        "predict",
        "--vm",
        "Standard_D4s_v5",
        "--disk",
        "2xP30:readonly",
    ]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("delivers:  6,400 IOPS"), "{stdout}");
    assert!(
        stdout.contains("by VM uncached IOPS (Standard_D4s_v5)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("whose cached limits are not published: predicted as uncached"),
        "{stdout}"
    );
}

/// An iostat -x capture (sysstat 12.6's columns) of a disk that did no IO at all.
fn idle_capture() -> String {
    let header = "Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     \
                  wkB/s   wrqm/s  %wrqm w_await wareq-sz     d/s     dkB/s   drqm/s  %drqm \
                  d_await dareq-sz     f/s f_await  aqu-sz  %util";
    let row = format!("sdb{}", "    0.00".repeat(22));
    let mut text = "Linux 6.1.0 (idle) \t11/22/26 \t_x86_64_\t(2 CPU)\n\n".to_string();
    for _ in 0..6 {
        text.push_str("avg-cpu:  %user   %nice %system %iowait  %steal   %idle\n");
        text.push_str("           0.50    0.00    0.20    0.00    0.00   99.30\n\n");
        text.push_str(&format!("{header}\n{row}\n\n\n"));
    }
    text
}

#[test]
fn an_idle_capture_sizes_zero_and_guesses_no_role() {
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("idle.txt");
    std::fs::write(&capture, idle_capture()).unwrap();
    let out = dir.path().join("req.toml");
    let output = iofit()
        .args(["profile", "--device", "sdb", "--label", "db", "-o"])
        .arg(&out)
        .arg(&capture)
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(!stdout.contains("-0.00"), "{stdout}");
    assert!(!stdout.contains("(guessed)"), "{stdout}");
    assert!(
        stdout.contains("role data (default): no IO in the capture"),
        "{stdout}"
    );
    assert!(
        stdout.contains("read_pct 0: no IO in the capture, a placeholder"),
        "{stdout}"
    );
    let toml = std::fs::read_to_string(&out).unwrap();
    assert!(toml.contains("iops = 0.0"), "{toml}");
}

#[test]
fn contradictory_requirements_are_pointed_out_with_which_one_sizes() {
    let (code, stdout, _) = run(&[
        "plan",
        "--iops",
        "16000",
        "--throughput-mb-s",
        "300",
        "--io-size",
        "8k",
        "--capacity-gib",
        "2000",
        "--top",
        "1",
    ]);
    assert_eq!(code, Some(0), "{stdout}");
    let warning = stdout
        .lines()
        .take(6)
        .find(|l| l.starts_with("warning: volume 'data': the requirements disagree"))
        .unwrap_or_else(|| panic!("no warning on the first lines:\n{stdout}"));
    // 16,000 x 8,192 B = 131.1 MB/s; 300 MB/s at 8 KiB = 36,621 IOPS.
    assert!(
        warning.contains("16,000 IOPS x 8 KiB = 131 MB/s, but 300 MB/s"),
        "{warning}"
    );
    assert!(warning.contains("36,621 IOPS"), "{warning}");
    assert!(
        warning.contains("is what sizes design #1's disks"),
        "{warning}"
    );
    assert!(!stdout.contains("no capacity given"), "{stdout}");
}

#[test]
fn a_missing_capacity_is_a_warning_on_the_first_lines() {
    let (code, stdout, _) = run(&["plan", "--iops", "5000", "--io-size", "8k", "--top", "1"]);
    assert_eq!(code, Some(0), "{stdout}");
    let head: Vec<&str> = stdout.lines().take(6).collect();
    assert!(
        head.iter()
            .any(|l| l.starts_with("warning: volume 'data': no capacity given")),
        "{stdout}"
    );
    // Consistent requirements (MB/s derived from IOPS x IO size) are not a contradiction.
    assert!(!stdout.contains("disagree"), "{stdout}");
}

#[test]
fn ignore_unknown_warns_naming_each_option_it_drops() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    let filename = format!("--filename={}", file.display());
    let (code, stdout, stderr) = run(&[
        "run",
        "--ignore-unknown",
        "--parse-only",
        "--name=a",
        "--rw=read",
        "--foo=1",
        "--bar=2",
        &filename,
        "--size=1m",
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    let all = format!("{stdout}{stderr}");
    assert!(
        all.contains("unknown option 'foo' ignored (--ignore-unknown)"),
        "{all}"
    );
    assert!(
        all.contains("unknown option 'bar' ignored (--ignore-unknown)"),
        "{all}"
    );
}

#[test]
fn command_line_errors_cite_the_argument_not_a_line() {
    let (code, _, stderr) = run(&[
        "run",
        "--parse-only",
        "--name=a",
        "--rw=read",
        "--iodepth=-1",
    ]);
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("command line, argument 3: iodepth=-1"),
        "{stderr}"
    );
    assert!(stderr.contains("'-1' is negative"), "{stderr}");
    assert!(!stderr.contains("not a whole number"), "{stderr}");
}

#[test]
fn fio_program_options_are_named_as_such_not_matched_to_a_job_option() {
    // (--eta and --eta-newline are accepted with a note, as fio runs them: fio_oracle.rs.)
    for option in ["--showcmd=1", "--max-jobs=4"] {
        let (code, _, stderr) = run(&["run", "--parse-only", "--name=a", "--rw=read", option]);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.contains("an option of the fio program"), "{stderr}");
        assert!(!stderr.contains("did you mean"), "{stderr}");
    }
}

#[test]
fn a_number_flag_with_a_suffix_says_what_to_write() {
    let (code, _, stderr) = run(&["plan", "--iops", "5k"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("write a plain number such as 5000"),
        "{stderr}"
    );
    assert!(!stderr.contains("invalid float literal"), "{stderr}");
}

#[test]
fn results_json_given_as_requirements_is_named_for_what_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results.json");
    std::fs::write(&results, "{\"fio version\": \"iofit\", \"jobs\": []}\n").unwrap();
    let (code, _, stderr) = run(&["plan", "--requirements", results.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("this is a JSON document"), "{stderr}");
    assert!(stderr.contains("iofit compare"), "{stderr}");
    assert!(!stderr.contains("invalid key"), "{stderr}");
}

#[test]
fn help_lists_the_steps_in_the_method_s_order_and_says_where_to_start() {
    let (code, stdout, _) = run(&["--help"]);
    assert_eq!(code, Some(0));
    let position = |name: &str| {
        stdout
            .lines()
            .position(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("{name} missing:\n{stdout}"))
    };
    let order = ["demo ", "profile ", "plan ", "predict ", "run ", "compare "];
    let positions: Vec<usize> = order.iter().map(|n| position(n)).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{stdout}");
    assert!(stdout.contains("Start with `iofit demo`"), "{stdout}");
    let (_, run_help, _) = run(&["run", "--help"]);
    assert!(run_help.contains("--iodepth=32"), "{run_help}");
}

/// The demo's plan (cold cache) and prediction (warm cache) name the same first limit to bind
/// for design #1.
#[test]
fn plan_and_predict_name_the_same_binding_limit_in_the_demo() {
    let (code, stdout, _) = run(&["demo", "--no-run"]);
    assert_eq!(code, Some(0), "{stdout}");
    let limit_of = |line: &str| -> String {
        let after = line
            .split("the first limit to bind as load grows is ")
            .nth(1)
            .unwrap_or_else(|| panic!("{line}"));
        after.split(" (").next().unwrap().to_string()
    };
    let plan_line = stdout
        .lines()
        .find(|l| l.contains("the first limit to bind as load grows is"))
        .unwrap_or_else(|| panic!("{stdout}"));
    let predict_line = stdout.lines().find(|l| l.starts_with("binding:")).unwrap();
    assert_eq!(limit_of(plan_line), limit_of(predict_line), "{stdout}");
}

/// The demo's report draws each volume's profiled IOPS over the capture with the sized IOPS and
/// design #1's limits across it.
#[test]
fn the_demo_report_shows_the_workload_over_time_against_the_design_s_limits() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("demo.html");
    let output = iofit()
        .args(["demo", "--no-run", "--report"])
        .arg(&report)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let html = std::fs::read_to_string(&report).unwrap();
    // Design #1 as the demo prints it (a Premium SSD v2 data volume at 14,341 IOPS: the
    // 12,905.6 sized with 10% headroom).
    let (_, stdout, _) = run(&["demo", "--no-run"]);
    let first = stdout
        .lines()
        .find_map(|l| l.strip_prefix("#1  "))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("{stdout}"))
        .to_string();
    for label in ["data", "log"] {
        let title = format!("<h2>{label}: IOPS over the capture</h2>");
        assert!(html.contains(&title), "{title}");
        let verdict = format!("design #1 ({first}) would never have throttled {label}");
        assert!(html.contains(&verdict), "{verdict}");
    }
    assert!(html.contains("sized: 12,905.6 IOPS (p95 of 10-minute peaks x 1.3)"));
    assert!(html.contains(&format!(
        "design #1 ({first}): data: per disk PremiumV2 IOPS 14,341"
    )));
    assert!(html.contains(&format!(
        "VM uncached IOPS ({first}) (all uncached volumes together)"
    )));
    // The limit bars: what is used beside each limit, and which volume a limit belongs to.
    assert!(html.contains("12,906.5 of 14,341 IOPS used — binding"));
    assert!(html.contains(">data: per disk PremiumV2 IOPS<"));
    assert_eq!(html.matches("— binding").count(), 1);
    assert!(html.contains(">log: per disk PremiumV2 IOPS<"));
}
