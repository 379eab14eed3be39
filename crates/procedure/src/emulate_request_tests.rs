use super::*;
use iofit_emulate::controller::VolumeUsage;
use iofit_emulate::throttle::CgroupVersion;
use iofit_model::units::{Iops, MBps};
use std::time::Duration;

/// A DS13 with one P10 scratch volume, everything else as the flags' defaults.
fn request() -> EmulateRequest {
    EmulateRequest {
        vm: Some("Standard_DS13".into()),
        disks: vec!["data=1xP10".into()],
        mount_root: Some(PathBuf::from("/mnt/rehearsal")),
        image_dir: PathBuf::from("/var/tmp"),
        scratch_size: "1g".into(),
        scale: 1.0,
        burst_time_scale: 1.0,
        start_credits_pct: 50.0,
        tick_ms: iofit_model::units::Millis(100),
        cloud: "azure".into(),
        catalog: CatalogChoice {
            edition: iofit_catalog::EDITION_CURRENT.into(),
            ..CatalogChoice::default()
        },
        command: vec!["true".into()],
        state_dir: PathBuf::from("/run/iofit-emulate"),
        ..EmulateRequest::default()
    }
}

fn message(request: &EmulateRequest) -> String {
    let error = prepare(request).unwrap_err();
    assert!(error.is_bad_input(), "{error}");
    error.to_string()
}

#[test]
fn a_design_becomes_the_rehearsals_options() {
    let options = prepare(&request()).unwrap();
    assert_eq!(options.limits.volumes.len(), 1);
    assert_eq!(options.limits.volumes[0].label, "data");
    // A P10 is 500 IOPS, 100 MB/s: the limit as the catalog has it at scale 1.
    assert_eq!(options.limits.volumes[0].iops.get(), 500.0);
    assert_eq!(options.sources, vec![VolumeSource::Scratch]);
    assert_eq!(options.scratch.size_bytes, iofit_model::Bytes(1 << 30));
    assert_eq!(options.scratch.mount_root, PathBuf::from("/mnt/rehearsal"));
    assert_eq!(options.tick, Duration::from_millis(100));
    assert_eq!(options.start_credits, 0.5);
    let scaled = prepare(&EmulateRequest {
        scale: 0.1,
        ..request()
    })
    .unwrap();
    assert!((scaled.limits.volumes[0].iops.get() - 50.0).abs() < 1e-9);
}

#[test]
fn each_flag_out_of_range_is_named() {
    let no_root = EmulateRequest {
        mount_root: None,
        ..request()
    };
    assert!(message(&no_root).contains("give --mount-root DIR"));
    let tick = EmulateRequest {
        tick_ms: iofit_model::units::Millis(0),
        ..request()
    };
    assert_eq!(message(&tick), "--tick-ms must be within 1..=10000");
    let credits = EmulateRequest {
        start_credits_pct: 101.0,
        ..request()
    };
    assert!(message(&credits).starts_with("--start-credits"));
    let burst = EmulateRequest {
        burst_time_scale: 0.0,
        ..request()
    };
    assert!(message(&burst).starts_with("--burst-time-scale"));
    let small = EmulateRequest {
        scratch_size: "1m".into(),
        ..request()
    };
    assert_eq!(
        message(&small),
        "--scratch-size '1m': must be between 16m and 16t"
    );
    let no_command = EmulateRequest {
        command: vec![],
        ..request()
    };
    assert!(message(&no_command).starts_with("no command"));
    let other = EmulateRequest {
        cloud: "oracle".into(),
        ..request()
    };
    assert_eq!(
        message(&other),
        "--cloud oracle: emulate knows azure, aws and gcp"
    );
    // An Azure disk spec with --cloud gcp: the Persistent Disk reader names it.
    let gcp = EmulateRequest {
        cloud: "gcp".into(),
        vm: Some("n2-standard-8".into()),
        ..request()
    };
    assert!(
        message(&gcp).starts_with("--disk data=1xP10: unknown Persistent Disk type '1xP10'"),
        "{}",
        message(&gcp)
    );
    let no_disk = EmulateRequest {
        disks: vec![],
        ..request()
    };
    assert!(message(&no_disk).starts_with("give at least one --disk"));
    let aws_plan = EmulateRequest {
        cloud: "aws".into(),
        plan: Some(PathBuf::from("plan.json")),
        ..request()
    };
    assert!(message(&aws_plan).starts_with("--plan reads Azure plans"));
}

#[test]
fn a_map_names_a_volume_and_a_block_device() {
    let wrong_label = EmulateRequest {
        maps: vec!["logs=/dev/null".into()],
        ..request()
    };
    assert_eq!(
        message(&wrong_label),
        "--map 'logs=/dev/null': no volume is labelled 'logs' (volumes: data)"
    );
    let no_device = EmulateRequest {
        maps: vec!["data".into()],
        ..request()
    };
    assert_eq!(message(&no_device), "--map 'data': write LABEL=/dev/DEVICE");
    // /dev/null is a character device: refused before anything is made.
    let not_block = EmulateRequest {
        maps: vec!["data=/dev/null".into()],
        ..request()
    };
    assert!(message(&not_block).starts_with("--map 'data=/dev/null': "));
}

fn outcome(exit_code: Option<i32>, interrupted: bool, cleaned_up: bool) -> Outcome {
    Outcome {
        cgroup: CgroupVersion::V2,
        volumes: vec![],
        seconds: vec![],
        limits: vec![],
        binding: None,
        exit_code,
        signal: None,
        interrupted,
        burst_seconds: None,
        notes: vec![],
        cleaned_up,
    }
}

#[test]
fn the_exit_is_the_commands_unless_something_was_left() {
    assert_eq!(ending(&outcome(Some(0), false, true)), Exit::Success);
    assert_eq!(ending(&outcome(Some(0), false, false)), Exit::Failed);
    assert_eq!(ending(&outcome(Some(7), false, true)), Exit::Command(7));
    assert_eq!(ending(&outcome(Some(300), false, true)), Exit::Command(255));
    assert_eq!(ending(&outcome(None, false, true)), Exit::Failed);
    assert_eq!(ending(&outcome(Some(0), true, true)), Exit::Interrupted);
}

#[test]
fn a_second_shows_each_volumes_share_of_its_cap() {
    let second = Second {
        t_s: iofit_model::units::Seconds(3.0),
        volumes: vec![VolumeUsage {
            read_iops: Iops(250.0),
            write_iops: Iops(0.0),
            read_mb_s: MBps(50.0),
            write_mb_s: MBps(0.0),
            cap_iops: Iops(500.0),
            cap_mb_s: MBps(100.0),
            burst_seconds_left: None,
        }],
        vm_iops: Iops(250.0),
        vm_mb_s: MBps(50.0),
        vm_cap_iops: None,
        vm_cap_mb_s: None,
        vm_burst_seconds_left: None,
        binding: "data IOPS".into(),
        binding_consumed_pct: 50.0,
    };
    assert_eq!(
        second_line(&["data".to_string()], &second),
        "   3.0s  data: 250 IOPS (50%) 50.0 MB/s (50%)  most used: data IOPS 50%"
    );
}

#[test]
fn cleanup_with_nothing_left_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let (lines, end) = cleanup(dir.path());
    assert_eq!(
        lines,
        vec!["nothing to clean up: no emulation left anything behind".to_string()]
    );
    assert_eq!(end.exit, Exit::Success);
}

#[test]
fn the_outcome_is_written_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.json");
    let options = prepare(&request()).unwrap();
    let with_output = EmulateRequest {
        output: Some(path.clone()),
        ..request()
    };
    write_outputs(
        &with_output,
        &options.limits,
        &outcome(Some(0), false, true),
    )
    .unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(json["exit_code"], 0);
    assert_eq!(json["cleaned_up"], true);
}

fn gcp_request(disks: &[&str]) -> EmulateRequest {
    EmulateRequest {
        cloud: "gcp".into(),
        vm: Some("n2-standard-8".into()),
        disks: disks.iter().map(|d| d.to_string()).collect(),
        ..request()
    }
}

#[test]
fn a_gcp_design_becomes_one_group_per_disk_type() {
    let options = prepare(&gcp_request(&[
        "data=pd-ssd,size_gib=300",
        "more=pd-ssd,size_gib=200",
        "logs=pd-balanced,size_gib=100",
    ]))
    .unwrap();
    let limits = &options.limits;
    assert_eq!(limits.vm.name, "n2-standard-8");
    assert_eq!(limits.vm.uncached_iops, None);
    let names: Vec<&str> = limits.groups.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(names, vec!["pd-ssd", "pd-balanced"]);
    assert_eq!(limits.groups[0].volumes, vec![0, 1]);
    // 500 GiB of pd-ssd: 21,000 IOPS by size, the 8-vCPU VM's 15,000 bind.
    assert_eq!(limits.groups[0].read_iops, Iops(15_000.0));
    // 100 GiB of pd-balanced: 3,000 + 6 x 100.
    assert_eq!(limits.groups[1].read_iops, Iops(3_600.0));
    assert!(limits.one_io_per_request);
    assert_eq!(options.sources.len(), 3);
    let scaled = prepare(&EmulateRequest {
        scale: 0.1,
        ..gcp_request(&["logs=pd-balanced,size_gib=100"])
    })
    .unwrap();
    assert!((scaled.limits.groups[0].read_iops.get() - 360.0).abs() < 1e-9);
    assert!(message(&gcp_request(&[])).starts_with("give at least one --disk [LABEL=]TYPE"));
    assert!(message(&gcp_request(&["d=pd-ssd"])).contains("add size_gib=N"));
    let unknown = EmulateRequest {
        vm: Some("n2-standard-7".into()),
        ..gcp_request(&["d=pd-ssd,size_gib=10"])
    };
    assert!(message(&unknown).starts_with("--vm n2-standard-7: "));
}

#[test]
fn a_gcp_plan_gives_its_designs_machine_type_and_disks() {
    let text = r#"{"designs": [
        {"rank": 1, "machine_type": "n2-standard-4",
         "disks": [{"disk_arg": "data=pd-balanced,size_gib=500"}]},
        {"rank": 2, "machine_type": "n2-standard-8",
         "disks": [{"disk_arg": "data=pd-ssd,size_gib=300"}, {"disk_arg": "log=pd-ssd,size_gib=100"}]}
    ]}"#;
    let path = Path::new("plan.json");
    let (machine, disks) = gcp_design_from_plan_json(text, path, 2).unwrap();
    assert_eq!(machine, "n2-standard-8");
    assert_eq!(
        disks,
        vec!["data=pd-ssd,size_gib=300", "log=pd-ssd,size_gib=100"]
    );
    // `plan --cloud all --json` holds Google Cloud's designs under "gcp".
    let all = format!(r#"{{"azure": {{}}, "gcp": {text}}}"#);
    let (machine, _) = gcp_design_from_plan_json(&all, path, 1).unwrap();
    assert_eq!(machine, "n2-standard-4");
    let refused = |text: &str, number: usize| {
        let error = gcp_design_from_plan_json(text, path, number).unwrap_err();
        assert!(error.is_bad_input());
        error.to_string()
    };
    assert!(refused(text, 3).contains("--design 3: plan.json holds designs 1..=2"));
    // An Azure plan: no Google Cloud designs; the fix names the `check:` line.
    let azure = r#"{"plan": {"designs": []}}"#;
    let said = refused(azure, 1);
    assert!(
        said.contains("no Google Cloud designs") && said.contains("`check:` line"),
        "{said}"
    );
    assert!(refused("{", 1).contains("not JSON"));
}

/// A pd-extreme disk (as `plan --cloud gcp` prints it) has caps of its own, the IOPS it is
/// given; its group is the n2's pd-extreme limit. A Hyperdisk type the tables cannot model is
/// refused in one line naming what no source gave.
#[test]
fn a_gcp_provisioned_disk_is_capped_at_what_it_is_given() {
    let options = prepare(&EmulateRequest {
        vm: Some("n2-standard-64".into()),
        ..gcp_request(&["db=pd-extreme,size_gib=1309,iops=111112"])
    })
    .unwrap();
    let limits = &options.limits;
    assert_eq!(limits.volumes[0].iops.get(), 111_112.0);
    assert_eq!(limits.groups[0].name, "pd-extreme");
    assert_eq!(limits.groups[0].read_iops.get(), 120_000.0);
    let refused = message(&gcp_request(&[
        "db=hyperdisk-balanced,size_gib=100,iops=3000,mib_s=140",
    ]));
    assert!(
        refused.contains("not modelled: IOPS bounds by size") && !refused.contains('\n'),
        "{refused}"
    );
}
