//! Captures as users bring them (issue 13): each written sample under tests/data (see its
//! README) parses to the numbers it was written with, and sizes into requirements.

use iofit_profile::{
    parse_file, partitions_left_out, requirements, CaptureNote, ParseOptions, SizingOptions,
};
use std::path::PathBuf;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(name)
}

fn parse(name: &str) -> iofit_profile::Capture {
    parse_file(&data(name), &ParseOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

#[test]
fn iostat_pretty_sub_tables_join_into_one_sample_per_device() {
    let capture = parse("iostat/sysstat-12.6.1_x_pretty_1s.txt");
    assert_eq!(capture.reports(), 2, "the since-boot report is skipped");
    let sda = capture.devices.iter().find(|d| d.name == "sda").unwrap();
    assert_eq!(sda.samples.len(), 2);
    let s = sda.samples[1];
    assert_eq!((s.read_iops.get(), s.write_iops.get()), (300.0, 100.0));
    assert_eq!(s.read_bytes_s, iofit_model::BytesPerSecond(2400.0 * 1024.0));
    assert_eq!(s.write_bytes_s, iofit_model::BytesPerSecond(800.0 * 1024.0));
    assert_eq!(
        (s.read_latency_ms.get(), s.write_latency_ms.get()),
        (1.5, 2.5)
    );
    // aqu-sz comes from the flush sub-table: Little's law, 300 x 1.5 ms + 100 x 2.5 ms.
    assert!(close(s.queue_depth, 0.7), "{}", s.queue_depth);
    let sdb = capture.devices.iter().find(|d| d.name == "sdb").unwrap();
    assert_eq!(sdb.samples[0].write_iops, iofit_model::Iops(200.0));
    assert_eq!(
        sdb.samples[1].read_bytes_s,
        iofit_model::BytesPerSecond(640.0 * 1024.0)
    );
    let req = requirements(&capture, &SizingOptions::default()).unwrap();
    let sda = req.volumes.iter().find(|v| v.label == "sda").unwrap();
    // 150 + 400 IOs of 8 KiB each.
    assert_eq!(sda.sizing.io_size_bytes, iofit_model::Bytes(8192));
    assert_eq!(sda.sizing.read_pct, 72.7273); // 400 / 550, to 4 decimals
}

#[test]
fn iostat_without_x_in_pretty_layout_names_the_fix() {
    let text = "Linux 6.1 (h) \t11/22/26 \t_x86_64_\t(2 CPU)\n\n     tps    kB_read/s    kB_wrtn/s Device\n    1.00    2.00    3.00 sda\n";
    let error = iofit_profile::parse_bytes(text.as_bytes(), "p.txt", &ParseOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("p.txt:3") && error.contains("iostat -x --pretty"),
        "{error}"
    );
}

#[test]
fn iostat_p_all_sizes_disks_not_their_partitions() {
    let capture = parse("iostat/sysstat-12.6.1_x_p-ALL_1s.txt");
    assert_eq!(
        partitions_left_out(&capture),
        vec![
            ("sda1".to_string(), "sda".to_string()),
            ("sda2".to_string(), "sda".to_string())
        ]
    );
    let req = requirements(&capture, &SizingOptions::default()).unwrap();
    let labels: Vec<&str> = req.volumes.iter().map(|v| v.label.as_str()).collect();
    assert_eq!(labels, ["sda", "sdb"]);
    // The disk's counters are the sum of its partitions' (400 + 100, 600 + 200).
    let sda = &req.volumes[0].observed.as_ref().unwrap();
    assert_eq!(sda.iops_max, 800.0);
    let sda1 = capture.devices.iter().find(|d| d.name == "sda1").unwrap();
    let sda2 = capture.devices.iter().find(|d| d.name == "sda2").unwrap();
    let disk = capture.devices.iter().find(|d| d.name == "sda").unwrap();
    for i in 0..2 {
        let parts = sda1.samples[i].read_iops
            + sda1.samples[i].write_iops
            + sda2.samples[i].read_iops
            + sda2.samples[i].write_iops;
        assert_eq!(
            parts,
            disk.samples[i].read_iops + disk.samples[i].write_iops
        );
    }
}

#[test]
fn logger_prefixed_old_sysstat_with_sectors_and_short_banner() {
    let capture = parse("iostat/sysstat-7.0.2_x_logger-prefixed_10s.txt");
    assert_eq!(capture.reports(), 2);
    // Times come from the logger's stamps: reports 10 s apart.
    assert_eq!(capture.report_time_s, vec![0.0, 10.0]);
    let s = capture.devices[0].samples[1];
    assert_eq!(capture.devices[0].name, "sdb");
    assert_eq!((s.read_iops.get(), s.write_iops.get()), (450.0, 150.0));
    // rsec/s: 512-byte sectors.
    assert_eq!(s.read_bytes_s, iofit_model::BytesPerSecond(7200.0 * 512.0));
    assert_eq!(s.latency_ms.get(), 2.0);
    assert_eq!(capture.host[1].cpu_pct, 7.0);
    assert!(capture
        .notes
        .iter()
        .any(|n| matches!(n, CaptureNote::LoggerTimeStamps { .. })));
    let req = requirements(
        &capture,
        &SizingOptions {
            window_s: Some(iofit_model::units::Seconds(20.0)),
            ..SizingOptions::default()
        },
    )
    .unwrap();
    assert_eq!(
        req.volumes[0].sizing.io_size_bytes,
        iofit_model::Bytes(8192)
    );
    // One 20 s window: its peak, 600 IOPS, x comfort 1.3.
    assert!(close(req.volumes[0].sizing.iops.get(), 780.0));
}

#[test]
fn sar_human_units_are_powers_of_1024_bytes() {
    let capture = parse("sar/sysstat-12.6.1_sar-d-h_10s.txt");
    assert_eq!(capture.reports(), 3);
    let sdb = capture.devices.iter().find(|d| d.name == "sdb").unwrap();
    let s = sdb.samples[0];
    assert!(close(s.read_bytes_s.0, 7.9 * 1024.0 * 1024.0));
    assert!(close(s.write_bytes_s.0, 40.5 * 1024.0 * 1024.0));
    let sda = capture.devices.iter().find(|d| d.name == "sda").unwrap();
    assert!(close(sda.samples[0].read_bytes_s.0, 8.0 * 1024.0));
    // tps split by byte share; the total stays tps.
    assert!(close((s.read_iops + s.write_iops).get(), 1000.0));
    assert!(close(
        s.read_iops.get() / 1000.0,
        7.9 / (7.9 + 40.5) // read bytes / all bytes
    ));
}

#[test]
fn sar_persistent_names_and_their_partitions() {
    let capture = parse("sar/sysstat-12.6.1_sar-d-h-j-ID_10s.txt");
    let disk = "ata-ST4000NM0035-1V4107_ZC1A2B3C";
    assert_eq!(capture.devices[0].name, disk);
    assert_eq!(
        partitions_left_out(&capture),
        vec![(format!("{disk}-part1"), disk.to_string())]
    );
    let s = capture.devices[0].samples[1];
    assert!(close(s.read_bytes_s.0, 4.7 * 1024.0 * 1024.0));
    assert_eq!(s.read_iops, iofit_model::Iops(600.0));
    let req = requirements(&capture, &SizingOptions::default()).unwrap();
    assert_eq!(req.volumes.len(), 1);
}

#[test]
fn perfmon_lower_case_total_only_ops_only_sizes_iops_and_read_share() {
    let capture = parse("perfmon/export-counter_dtu-calculator_1s.csv");
    assert!(capture.bytes_missing);
    assert_eq!(capture.devices.len(), 1);
    assert_eq!(capture.devices[0].name, "_total");
    assert_eq!(capture.host[4].cpu_pct, 24.0);
    let no_bytes = capture
        .notes
        .iter()
        .find(|n| matches!(n, CaptureNote::PerfmonNoBytes { .. }))
        .expect("the capture says its bytes are missing");
    let note = no_bytes.to_string();
    assert!(
        note.contains("Disk Read Bytes/sec") && note.contains("typeperf"),
        "{note}"
    );
    let req = requirements(&capture, &SizingOptions::default()).unwrap();
    let v = &req.volumes[0];
    // IOPS 125, 250, 375, 500, 1250: p95 of 5 = the largest, x 1.3.
    assert!(close(v.sizing.iops.get(), 1625.0));
    assert_eq!(v.sizing.read_pct, 80.0);
    assert_eq!(v.sizing.throughput_mb_s, iofit_model::MBps(0.0));
    assert!(v
        .derivation
        .iter()
        .any(|l| l.starts_with(iofit_profile::summarize::BYTES_NOT_MEASURED)));
}

#[test]
fn perfmon_ops_without_reads_names_the_capture_command() {
    let text = "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\h\\logicaldisk(c:)\\disk writes/sec\"\r\n\"11/22/2026 17:00:00.000\",\"1\"\r\n";
    let error = iofit_profile::parse_bytes(text.as_bytes(), "w.csv", &ParseOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("w.csv:1")
            && error.contains("Disk Reads/sec")
            && error.contains("typeperf \"\\PhysicalDisk(*)\\Disk Reads/sec\""),
        "{error}"
    );
}

#[test]
fn russian_perfmon_in_cp1251_and_utf16_reads_like_english() {
    let english = parse("perfmon/typeperf_en-US_15s.csv");
    for name in [
        "perfmon/typeperf_ru-RU_15s.csv",
        "perfmon/relog_ru-RU_15s_utf16.csv",
    ] {
        let russian = parse(name);
        assert_eq!(russian.devices.len(), english.devices.len(), "{name}");
        for (r, e) in russian.devices.iter().zip(&english.devices) {
            assert_eq!(r.name, e.name, "{name}");
            // Debug text: NaN (a counter neither file has) must match NaN.
            assert_eq!(
                format!("{:?}", r.samples),
                format!("{:?}", e.samples),
                "{name} {}",
                r.name
            );
        }
        assert_eq!(russian.host, english.host, "{name}");
        let req = requirements(&russian, &SizingOptions::default()).unwrap();
        let e = req.volumes.iter().find(|v| v.label == "1 E:").unwrap();
        assert_eq!(e.sizing.io_size_bytes, iofit_model::Bytes(8192));
        assert_eq!(e.sizing.read_pct, 80.0);
    }
}

#[test]
fn cp1251_bytes_decode_to_cyrillic() {
    // "Физический диск" in Windows-1251, the ANSI code page typeperf writes on Russian Windows.
    let header = b"\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\h\\\xd4\xe8\xe7\xe8\xf7\xe5\xf1\xea\xe8\xe9 \xe4\xe8\xf1\xea(0 C:)\\\xd2\xe5\xea\xf3\xf9\xe0\xff \xe4\xeb\xe8\xed\xe0 \xee\xf7\xe5\xf0\xe5\xe4\xe8 \xe4\xe8\xf1\xea\xe0\"";
    let text = iofit_profile::perfmon::decode(header);
    assert!(
        text.contains("Физический диск(0 C:)\\Текущая длина очереди диска"),
        "{text}"
    );
}

#[test]
fn azure_monitor_json_per_lun_numbers_and_verdict() {
    let capture = parse("azure/metrics-rest-api_D2s_v5_PT1M.json");
    assert_eq!(capture.reports(), 60);
    assert_eq!(capture.interval_s, Some(iofit_model::units::Seconds(60.0)));
    assert_eq!(capture.report_time_s[59], 59.0 * 60.0);
    let names: Vec<&str> = capture.devices.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["os", "lun0", "lun1"]);
    let lun0 = &capture.devices[1].samples[59];
    assert_eq!(
        (lun0.read_iops.get(), lun0.write_iops.get()),
        (2282.0, 978.0)
    );
    assert_eq!(
        lun0.read_bytes_s,
        iofit_model::BytesPerSecond(2282.0 * 8192.0)
    );
    // bytes = IOs x block size, for every sample of every disk.
    for device in &capture.devices {
        for s in &device.samples {
            let size = (s.read_bytes_s.0 + s.write_bytes_s.0) / (s.read_iops + s.write_iops).get();
            assert!(
                [8192.0, 16384.0, 65536.0].contains(&size),
                "{}",
                device.name
            );
        }
    }
    let verdict = capture.azure.as_ref().unwrap();
    let binding = verdict.binding().unwrap();
    assert_eq!(
        binding.limit,
        iofit_profile::azure::AzureLimit::VmUncachedIops
    );
    assert_eq!((binding.throttled_intervals, binding.intervals), (18, 60));
    assert_eq!(binding.throttled_share_pct, 30.0);
    // The metrics agree with themselves: at the limit the three disks do 3,750 IOPS.
    let total: f64 = capture
        .devices
        .iter()
        .map(|d| (d.samples[59].read_iops + d.samples[59].write_iops).get())
        .sum();
    assert_eq!(total, 3750.0);
    let lun1 = verdict
        .limits
        .iter()
        .find(|l| l.scope == "LUN 1" && l.limit == iofit_profile::azure::AzureLimit::DiskIops)
        .unwrap();
    assert_eq!((lun1.throttled_intervals, lun1.max_consumed_pct), (0, 92.0));
    assert_eq!(capture.host[0].cpu_pct, 30.0);
}

/// sysstat 7 (RHEL 5) `iostat -x -t` stamps each report `Time: %X` with the label translated
/// and %X in the locale's form: `Time: 23:59:41`, `Time: 11:59:41 PM`, `時間: 23時59分41秒`.
/// All three read as the same times, 10 s apart across midnight, and size the same.
#[test]
fn sysstat7_time_labels_in_every_locale() {
    let mut sized = Vec::new();
    for name in [
        "iostat/sysstat-7.0.2_xt_C_time-label_10s.txt",
        "iostat/sysstat-7.0.2_xt_en_US_time-label_10s.txt",
        "iostat/sysstat-7.0.2_xt_ja_JP_time-label_10s.txt",
    ] {
        let capture = parse(name);
        // The since-boot report is left out; the three left are 10 s apart over midnight.
        assert_eq!(capture.reports(), 3, "{name}");
        let times = &capture.report_time_s;
        assert!(
            times.windows(2).all(|w| (w[1] - w[0] - 10.0).abs() < 1e-9),
            "{name}: {times:?}"
        );
        let options = SizingOptions {
            window_s: Some(iofit_model::units::Seconds(20.0)),
            ..SizingOptions::default()
        };
        let mut req = requirements(&capture, &options).unwrap();
        req.source.clear();
        assert_eq!(req.volumes.len(), 2, "{name}");
        // sdb: 200, 600, 400 IOPS; p95 of the peaks of two 20 s windows (600, 400) = 600.
        assert_eq!(req.volumes[1].sizing.iops.get(), 780.0, "{name}");
        sized.push(req);
    }
    assert_eq!(sized[0], sized[1]);
    assert_eq!(sized[0], sized[2]);
}

/// `sadf -r` prints raw counters since boot (and each twice), not rates: refused by name,
/// with the command that exports rates.
#[test]
fn sadf_raw_counters_are_refused_with_the_export_that_works() {
    let text = "# uptime_cs; 722372; ust_time; 1764298810; extra_next; 0; record_type; 1; \
                HH:MM:SS; 03:00:10\n\
                03:00:10 UTC; major; 8; minor; 0; DEV; vda; tps; 61781; 61781; rkB/s; 3195498; \
                3195498; wkB/s; 821088; 821088;\n";
    let error = iofit_profile::parse_bytes(text.as_bytes(), "r.txt", &ParseOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("r.txt: this is `sadf -r` output: raw counters since boot")
            && error.contains("sadf -d SA_FILE -- -d -p"),
        "{error}"
    );
}

/// `sadf -r` without `-O debug` (records start with their time) and `sadf -g` (SVG) are
/// named too, not "not a recognised capture".
#[test]
fn sadf_raw_without_debug_and_sadf_svg_are_named() {
    let cases = [
        (
            "08:16:11 UTC; LINUX-RESTART (8 CPU)\n13:20:19 UTC; CPU; -1; %user; 96005; 96538;\n",
            "this is `sadf -r` output",
        ),
        (
            "13:20:19 UTC; CPU; -1; %user; 96005; 96538; %nice; 2578701;\n",
            "this is `sadf -r` output",
        ),
        (
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE svg>\n<svg xmlns=\"x\">\n",
            "this is `sadf -g` output",
        ),
        (
            "<text x=\"0\" y=\"10\">13:20:19</text>\n",
            "this is `sadf -g` output",
        ),
    ];
    for (text, says) in cases {
        let error = iofit_profile::parse_bytes(text.as_bytes(), "f.txt", &ParseOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with(&format!("f.txt: {says}")),
            "{text}: {error}"
        );
        assert!(error.contains("sadf -d SA_FILE -- -d -p"), "{error}");
    }
}

/// Another sysstat report (here `sar -q`) under the banner iostat and sar share is named as
/// such, and a `sadf -p` file holding only a restart record is read as `sadf -p` (with no disks).
#[test]
fn sysstat_reports_without_disks_say_which_report_to_capture() {
    let sar_q = "Linux 6.1.0 (h) \t11/28/26 \t_x86_64_\t(2 CPU)\n\n\
                 03:00:01     runq-sz  plist-sz   ldavg-1\n03:00:02           1       300      0.10\n";
    let error = iofit_profile::parse_bytes(sar_q.as_bytes(), "q.txt", &ParseOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("q.txt: a sysstat report without a disk table")
            && error.contains("sar -d -p INTERVAL COUNT"),
        "{error}"
    );
    let restart_only = "vm\t-1\t2026-11-28 03:00:05 UTC\tLINUX-RESTART\t(2 CPU)\n";
    let error =
        iofit_profile::parse_bytes(restart_only.as_bytes(), "p.txt", &ParseOptions::default())
            .unwrap_err()
            .to_string();
    assert!(error.contains("sadf -p SA_FILE -- -d"), "{error}");
}
