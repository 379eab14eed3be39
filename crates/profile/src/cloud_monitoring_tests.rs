use super::*;

/// A point of a DELTA count over one minute ending at `end` (HH:MM).
fn point(end: &str, start: &str, count: u64) -> String {
    format!(
        r#"{{"interval": {{"startTime": "2026-11-20T00:{start}:00Z", "endTime": "2026-11-20T00:{end}:00Z"}}, "value": {{"int64Value": "{count}"}}}}"#
    )
}

fn series(metric: &str, device: &str, counts: [u64; 3]) -> String {
    // Newest first, as the API lists them.
    format!(
        r#"{{"metric": {{"type": "compute.googleapis.com/instance/disk/{metric}", "labels": {{"device_name": "{device}", "device_type": "permanent", "storage_type": "pd-ssd"}}}},
          "resource": {{"type": "gce_instance", "labels": {{"instance_id": "1234567890", "zone": "us-central1-a", "project_id": "p"}}}},
          "metricKind": "DELTA", "valueType": "INT64",
          "points": [{}, {}, {}]}}"#,
        point("03", "02", counts[2]),
        point("02", "01", counts[1]),
        point("01", "00", counts[0])
    )
}

/// A hand-written response in timeSeries.list's documented shape: one pd-ssd disk `data`,
/// 1-minute DELTA counts, throttled reads in the last minute; a CPU series that is left out.
fn sample() -> String {
    let all = [
        series("read_ops_count", "data", [60_000, 120_000, 900_000]),
        series("write_ops_count", "data", [30_000, 30_000, 30_000]),
        series(
            "read_bytes_count",
            "data",
            [491_520_000, 983_040_000, 7_372_800_000],
        ),
        series(
            "write_bytes_count",
            "data",
            [245_760_000, 245_760_000, 245_760_000],
        ),
        series("throttled_read_ops_count", "data", [0, 0, 90_000]),
        series("throttled_write_ops_count", "data", [0, 0, 0]),
        r#"{"metric": {"type": "compute.googleapis.com/instance/cpu/utilization"}, "points": []}"#
            .to_string(),
    ];
    format!("{{\"timeSeries\": [{}], \"unit\": \"1\"}}", all.join(",\n"))
}

#[test]
fn reads_disks_rates_and_the_throttling_verdict() {
    let capture = parse_cloud_monitoring_json(sample().as_bytes(), "gcm.json").unwrap();
    assert_eq!(capture.tool, Tool::CloudMonitoring);
    assert_eq!(capture.interval_s, Some(iofit_model::units::Seconds(60.0)));
    assert_eq!(capture.reports(), 3);
    assert_eq!(capture.devices.len(), 1);
    let disk = &capture.devices[0];
    assert_eq!(disk.name, "data");
    // 60,000 reads in the first minute -> 1,000/s; 491,520,000 B -> 8,192,000 B/s (8 KiB IOs).
    let first = disk.samples[0];
    assert_eq!(
        (first.read_iops.get(), first.write_iops.get()),
        (1000.0, 500.0)
    );
    assert_eq!(first.read_bytes_s, iofit_model::BytesPerSecond(8_192_000.0));
    assert_eq!(disk.samples[2].read_iops, iofit_model::Iops(15_000.0));
    let verdict: Vec<&CaptureNote> = capture
        .notes
        .iter()
        .filter(|n| {
            matches!(
                n,
                CaptureNote::GcpThrottled { .. } | CaptureNote::GcpNeverThrottled { .. }
            )
        })
        .collect();
    assert_eq!(verdict.len(), 1, "{:?}", capture.notes);
    // 90,000 throttled of 1,170,000 done: 7.7 per 100, in 1 of 3 periods.
    let CaptureNote::GcpThrottled {
        device,
        held,
        periods,
        throttled_per_100,
    } = verdict[0]
    else {
        panic!("{verdict:?}")
    };
    assert_eq!((device.as_str(), *held, *periods), ("data", 1, 3));
    assert!((throttled_per_100 - 100.0 * 90_000.0 / 1_170_000.0).abs() < 1e-9);
    assert!(
        verdict[0]
            .to_string()
            .contains("data was throttled in 1 of 3 periods (7.7 throttled"),
        "{verdict:?}"
    );
    assert!(capture.notes.iter().any(|n| matches!(
        n,
        CaptureNote::GcpSeriesLeftOut { metric, .. } if metric.ends_with("cpu/utilization")
    )));
}

#[test]
fn detected_by_content_and_sized_as_any_capture() {
    let text = sample();
    let capture = crate::parse_bytes(text.as_bytes(), "gcm.json", &Default::default()).unwrap();
    assert_eq!(capture.tool, Tool::CloudMonitoring);
    let requirements = crate::requirements(&capture, &Default::default()).unwrap();
    assert_eq!(requirements.volumes.len(), 1);
    let sizing = &requirements.volumes[0].sizing;
    assert_eq!(sizing.io_size_bytes, iofit_model::Bytes(8192));
    assert!(sizing.iops.get() > 1_500.0, "{}", sizing.iops.get());
    // A bare array of TimeSeries reads the same.
    let start = text.find('[').unwrap();
    let end = text.rfind(']').unwrap();
    let bare = &text[start..=end];
    let again = parse_cloud_monitoring_json(bare.as_bytes(), "bare.json").unwrap();
    assert_eq!(
        again.devices[0].samples[0].read_iops,
        iofit_model::Iops(1000.0)
    );
}

#[test]
fn no_throttled_metrics_says_so_and_bad_input_names_the_series() {
    let text = sample()
        .replace("throttled_read_ops_count", "reserved_cores")
        .replace("throttled_write_ops_count", "reserved_cores");
    let capture = parse_cloud_monitoring_json(text.as_bytes(), "gcm.json").unwrap();
    assert!(
        capture.notes.contains(&CaptureNote::GcpNoThrottledMetrics {
            file: "gcm.json".to_string()
        }),
        "{:?}",
        capture.notes
    );
    let unnamed = sample().replacen("\"device_name\": \"data\", ", "", 1);
    let error = parse_cloud_monitoring_json(unnamed.as_bytes(), "gcm.json")
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("gcm.json")
            && error.contains("timeSeries[0]")
            && error.contains("device_name"),
        "{error}"
    );
    let bad_value = sample().replacen("\"int64Value\": \"900000\"", "\"int64Value\": \"lots\"", 1);
    let error = parse_cloud_monitoring_json(bad_value.as_bytes(), "gcm.json")
        .unwrap_err()
        .to_string();
    assert!(error.contains("not a count"), "{error}");
    let error = parse_cloud_monitoring_json(b"{\"timeSeries\": 3}", "gcm.json")
        .unwrap_err()
        .to_string();
    assert!(error.contains("timeSeries.list"), "{error}");
}
