//! Unknown stays unknown: for every VM of every catalog edition and every rate limit the
//! catalog leaves empty (uncached / cached IOPS and MB/s), a volume that runs into it flat out
//! is predicted with that limit unpublished, and no output (predict's text and its limits
//! table, its JSON, the report's volume and limits tables, its CSV) turns the empty field into
//! a number: the rates, the load on the limits and their headroom are "unknown" (`null` in
//! JSON). A plan on such a VM keeps its flat-out figures unknown the same way.

use iofit_catalog::{Catalog, DiskKind, VmSize, EDITIONS};
use iofit_model::{Bytes, HostCaching, VolumeDesign, Workload};
use iofit_predict::{predict, Assumptions, DiskPerf, LimitKind, LimitStatus, VolumeLoad};
use iofit_procedure::predict::PredictOutcome;
use serde_json::Value;

/// Every number in `value`, with the key it sits under, outside the published limits
/// themselves (`limit`: the catalog's figure) and the queue's own facts.
fn numbers(value: &Value, key: &str, out: &mut Vec<(String, f64)>) {
    match value {
        Value::Number(n) if key != "limit" => out.push((key.to_string(), n.as_f64().unwrap())),
        Value::Array(items) => items.iter().for_each(|item| numbers(item, key, out)),
        Value::Object(map) => {
            for (k, v) in map {
                if k != "queue" && k != "assumptions" {
                    numbers(v, k, out);
                }
            }
        }
        _ => {}
    }
}

/// The JSON of a prediction whose volume runs flat out into the unpublished `check_name`:
/// every figure the published limits alone would give is `null`, and no number in the
/// document is one of them.
fn json_keeps_unknown(what: &str, json: &Value, prediction: &iofit_predict::Prediction) {
    let p = &json["prediction"];
    for key in [
        "total_iops",
        "total_throughput_mb_s",
        "max_total_iops",
        "max_total_throughput_mb_s",
    ] {
        assert!(p[key].is_null(), "{what}: {key} = {}", p[key]);
    }
    let volume = &p["volumes"][0];
    for key in [
        "max_iops",
        "max_throughput_mb_s",
        "iops",
        "throughput_mb_s",
        "read_iops",
        "write_iops",
        "cache_read_iops",
        "disk_iops",
        "latency_ms",
    ] {
        assert!(
            volume[key].is_null(),
            "{what}: volume {key} = {}",
            volume[key]
        );
    }
    let mut unknown_loads = 0;
    for (check, shown) in prediction
        .limits
        .iter()
        .zip(p["limits"].as_array().unwrap())
    {
        if check.unpublished() {
            assert!(shown["limit"].is_null(), "{what}: {shown}");
            assert_eq!(shown["status"], "unknown", "{what}: {shown}");
        }
        if check.load_unknown {
            unknown_loads += 1;
            for key in ["used", "headroom", "headroom_pct"] {
                assert!(shown[key].is_null(), "{what}: {key} of {shown}");
            }
            // A published limit whose load is unknown has no verdict: no status at all.
            if !check.unpublished() {
                assert!(shown["status"].is_null(), "{what}: status of {shown}");
            }
        }
    }
    assert!(unknown_loads >= 1, "{what}: the unpublished limit's load");
    if let (Some(binding), Some(check)) = (
        &prediction.binding,
        prediction
            .binding
            .as_ref()
            .and_then(|b| prediction.limit(b.kind, &b.scope)),
    ) {
        if check.load_unknown {
            assert!(p["binding"]["used"].is_null(), "{what}: {}", p["binding"]);
            // The words name the published limit, never a load (unless the two coincide).
            if fmt(binding.used) != fmt(binding.limit) {
                assert!(!binding.words.contains(&fmt(binding.used)), "{what}");
            }
        }
    }
    // The figures the solver holds for the unknown rates appear nowhere as numbers.
    let held = &prediction.volumes[0];
    let mut derived = vec![held.max_iops.get(), held.max_throughput_mb_s.get()];
    derived.extend(
        prediction
            .limits
            .iter()
            .filter(|c| c.status == LimitStatus::Unknown)
            .map(|c| c.used),
    );
    let mut found = Vec::new();
    numbers(&json["prediction"], "", &mut found);
    for value in derived.into_iter().filter(|v| *v > 0.0) {
        let same = |x: f64| (x - value).abs() <= 1e-9 * value.abs();
        assert!(
            !found.iter().any(|(_, x)| same(*x)),
            "{what}: {value} is shown under {:?}",
            found.iter().find(|(_, x)| same(*x))
        );
    }
}

/// A figure as the text shows it (thousands grouped).
fn fmt(value: f64) -> String {
    iofit_model::units::group_thousands(value)
}

/// The limits table of `text`: no row whose load is unknown shows a number as used.
fn table_keeps_unknown(what: &str, text: &str, prediction: &iofit_predict::Prediction) {
    for check in prediction.limits.iter().filter(|c| c.load_unknown) {
        let label = format!("  {}: {}", check.scope, check.name);
        let row = text
            .lines()
            .find(|l| l.starts_with(&label))
            .unwrap_or_else(|| panic!("{what}: no row {label}: {text}"));
        let columns: Vec<&str> = row[label.len()..]
            .split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        // value, used, headroom, status
        assert_eq!(columns[1], "unknown", "{what}: {row}");
        assert_eq!(columns[2], "unknown", "{what}: {row}");
        let status = columns[3..].join(" ");
        if check.unpublished() {
            assert_eq!(status, "unknown (not published)", "{what}: {row}");
        } else {
            // No verdict ("BINDING", "at limit", "ok") on a load nobody knows.
            assert_eq!(status, "unknown", "{what}: {row}");
        }
    }
}

/// Disks no VM limit comes near: whatever binds is the VM's.
fn boundless_disk() -> DiskPerf {
    DiskPerf {
        name: "Boundless".into(),
        table: "test".into(),
        kind: DiskKind::PremiumSsd,
        size_gib: iofit_model::units::GiB(1024.0),
        iops: iofit_model::units::Iops(1e7),
        throughput_mb_s: iofit_model::units::MBps(1e6),
        burst_iops: None,
        burst_throughput_mb_s: None,
        price_usd_month: None,
        price_usd_per_10k_operations: None,
        operation_unit_kib: None,
    }
}

/// A flat-out volume (no target) on 8 striped disks with `caching`.
fn flat_out(caching: HostCaching) -> VolumeLoad {
    let mut design = VolumeDesign::new("vol", "Boundless", 8, caching);
    design.stripe_size = Some(Bytes::kib(64));
    VolumeLoad {
        design,
        disk: boundless_disk(),
        workload: Workload::new(100.0, 100.0, Bytes::kib(64), 64, 8),
        target: None,
    }
}

/// The empty rate-limit fields of `vm` and the caching that makes a volume run into each
/// (a cached volume runs under the cached limits only where the VM publishes one of them;
/// where it publishes neither, it is predicted uncached and no cached limit applies).
fn empty_fields(vm: &VmSize) -> Vec<(LimitKind, HostCaching)> {
    let cached_published = vm.cached_iops.is_some() || vm.cached_throughput_mb_s.is_some();
    let mut out = Vec::new();
    if vm.uncached_iops.is_none() {
        out.push((LimitKind::VmUncachedIops, HostCaching::None));
    }
    if vm.uncached_throughput_mb_s.is_none() {
        out.push((LimitKind::VmUncachedThroughput, HostCaching::None));
    }
    if cached_published && vm.cached_iops.is_none() {
        out.push((LimitKind::VmCachedIops, HostCaching::ReadOnly));
    }
    if cached_published && vm.cached_throughput_mb_s.is_none() {
        out.push((LimitKind::VmCachedThroughput, HostCaching::ReadOnly));
    }
    out
}

#[test]
fn no_output_turns_an_unpublished_limit_into_a_number() {
    let catalog = Catalog::embedded().unwrap();
    let mut walked = Vec::new();
    for &edition in EDITIONS {
        for vm in catalog.vms_in(edition) {
            for (kind, caching) in empty_fields(vm) {
                let what = format!("{edition} {} {kind:?}", vm.name);
                let prediction =
                    predict(vm, &[flat_out(caching)], &Assumptions::default(), None).unwrap();
                let check = prediction
                    .limit(kind, "vm")
                    .unwrap_or_else(|| panic!("{what}: the limit is checked"));
                assert_eq!(check.status, LimitStatus::Unknown, "{what}");
                assert_eq!(check.limit, None, "{what}");
                let volume = &prediction.volumes[0];
                assert!(volume.unpublished_limits.contains(&check.name), "{what}");
                assert!(
                    !prediction.max_known() && !prediction.delivered_known(),
                    "{what}"
                );

                let outcome = PredictOutcome {
                    edition: edition.into(),
                    tables: Vec::new(),
                    prediction: prediction.clone(),
                    requirements: None,
                    job_loads: None,
                    price_notes: Vec::new(),
                    disks: vec!["8xBoundless".into()],
                    cost: None,
                };
                let text = outcome.text();
                let delivers = text
                    .lines()
                    .find(|l| l.starts_with("delivers:"))
                    .unwrap_or_else(|| panic!("{what}: {text}"));
                assert!(
                    delivers.starts_with("delivers:  unknown ("),
                    "{what}: {delivers}"
                );
                assert!(delivers.contains(&check.name), "{what}: {delivers}");
                assert!(
                    text.contains("    IOPS and MB/s unknown: "),
                    "{what}: {text}"
                );
                assert!(!text.contains("io size: "), "{what}: {text}");
                assert!(!text.contains("burst: "), "{what}: {text}");
                table_keeps_unknown(&what, &text, &prediction);
                json_keeps_unknown(&what, &outcome.json(), &prediction);
                let report = outcome.report();
                let html = report.render();
                assert!(html.contains(">unknown<"), "{what}: the volume table");
                // The limits table's row of the unpublished limit: no load, no headroom.
                let row_start = html
                    .find(&format!("<td>{}</td>", check.name))
                    .unwrap_or_else(|| panic!("{what}: {html}"));
                let row = &html[row_start..row_start + html[row_start..].find("</tr>").unwrap()];
                assert_eq!(row.matches(">unknown<").count(), 2, "{what}: {row}");
                let csv = report.render_csv();
                for metric in ["iops", "throughput"] {
                    let row = csv
                        .lines()
                        .find(|l| {
                            l.starts_with("prediction,vol,") && l.contains(&format!(",{metric},"))
                        })
                        .unwrap_or_else(|| panic!("{what}: {csv}"));
                    assert!(row.contains(",unknown,"), "{what}: {row}");
                }
                let used = csv
                    .lines()
                    .find(|l| l.contains(&format!("{},used,", check.name)))
                    .unwrap_or_else(|| panic!("{what}: {csv}"));
                assert!(used.contains(",used,unknown,"), "{what}: {used}");
                walked.push(what);
            }
        }
    }
    // The case is among them: the seed publishes DS14's cached IOPS, not its MB/s.
    assert!(
        walked.contains(&"seed-2016 Standard_DS14 VmCachedThroughput".to_string()),
        "{walked:?}"
    );
}

#[test]
fn published_limits_still_give_numbers() {
    let catalog = Catalog::embedded().unwrap();
    let vm = catalog.vm("Standard_DS14", "seed-2016").unwrap();
    let prediction = predict(
        vm,
        &[flat_out(HostCaching::None)],
        &Assumptions::default(),
        None,
    )
    .unwrap();
    assert!(prediction.max_known() && prediction.delivered_known());
    assert!(prediction.volumes[0].unpublished_limits.is_empty());
    assert!(prediction.total_iops.get() > 0.0);
}

/// A plan on a VM with an unpublished rate limit: its designs meet their targets (rates
/// known), but flat out the volumes run into the unpublished limit, so the plan's JSON keeps
/// the flat-out figures `null` and its text says "unknown" rather than a number.
#[test]
fn a_plan_keeps_flat_out_figures_unknown_in_json_and_text() {
    use iofit_model::{Requirements, SizingTarget, VolumeRequirements};
    use iofit_procedure::plan::PlanOutcome;
    let catalog = Catalog::embedded().unwrap();
    let requirements = Requirements {
        source: "test".into(),
        growth_factor: 1.0,
        volumes: vec![VolumeRequirements {
            label: "data".into(),
            sizing: SizingTarget {
                iops: iofit_model::Iops(400.0),
                throughput_mb_s: iofit_model::MBps(0.0),
                latency_ms: None,
                io_size_bytes: iofit_model::Bytes(8192),
                read_pct: 70.0,
                random_pct: 100.0,
                capacity_gib: Some(iofit_model::units::GiB(100.0)),
                queue_depth: None,
            },
            ..Default::default()
        }],
        ..Default::default()
    };
    let mut planned = 0;
    for &edition in EDITIONS {
        let mut rows = iofit_procedure::inputs::rows_for(&catalog, edition);
        let all_vms = std::mem::take(&mut rows.vms);
        for vm in all_vms.iter().filter(|vm| !empty_fields(vm).is_empty()) {
            rows.vms = vec![vm.clone()];
            let options = iofit_planner::PlanOptions {
                top: 1,
                assumptions: iofit_procedure::inputs::assumptions_for(edition, None, 0.0).unwrap(),
                ..Default::default()
            };
            let plan = iofit_planner::plan(&requirements, &rows, &options).unwrap();
            let Some(design) = plan.designs.first() else {
                continue;
            };
            if design.prediction.max_known() {
                continue;
            }
            let what = format!("{edition} {}", vm.name);
            let outcome = PlanOutcome {
                edition: edition.into(),
                tables: Vec::new(),
                requirements: requirements.clone(),
                options,
                plan: plan.clone(),
            };
            let json = outcome.json();
            let shown = &json["plan"]["designs"][0]["prediction"];
            // The targets stand; what every volume does flat out is unknown.
            assert!(shown["total_iops"].is_number(), "{what}");
            for key in ["max_total_iops", "max_total_throughput_mb_s"] {
                assert!(shown[key].is_null(), "{what}: {key} = {}", shown[key]);
            }
            for key in ["max_iops", "max_throughput_mb_s"] {
                assert!(shown["volumes"][0][key].is_null(), "{what}: {key}");
            }
            assert!(shown["volumes"][0]["iops"].is_number(), "{what}");
            for check in shown["limits"].as_array().unwrap() {
                if check["status"] == "unknown" {
                    assert!(check["limit"].is_null(), "{what}: {check}");
                    assert!(check["headroom"].is_null(), "{what}: {check}");
                }
            }
            let text = outcome.text();
            assert!(text.contains("unknown"), "{what}: {text}");
            planned += 1;
        }
    }
    assert!(
        planned > 0,
        "some VM with an unpublished limit is planned on"
    );
}

/// The case: DS14 (2016 seed) publishes its cached IOPS, not its cached MB/s, so a
/// cached volume run flat out leaves the load on the published cached IOPS limit unknown. That
/// limit gets no verdict in any renderer: "unknown" in the text, the HTML and the CSV, `null`
/// in JSON, where it was "at limit" or "BINDING" before.
#[test]
fn a_published_limit_with_an_unknown_load_has_no_verdict_in_any_output() {
    let catalog = Catalog::embedded().unwrap();
    let vm = catalog.vm("Standard_DS14", "seed-2016").unwrap();
    let prediction = predict(
        vm,
        &[flat_out(HostCaching::ReadOnly)],
        &Assumptions::default(),
        None,
    )
    .unwrap();
    let published_unknown: Vec<_> = prediction
        .limits
        .iter()
        .filter(|c| c.load_unknown && !c.unpublished())
        .collect();
    let cached_iops = prediction.limit(LimitKind::VmCachedIops, "vm").unwrap();
    assert!(cached_iops.limit.is_some() && cached_iops.load_unknown);
    assert!(!published_unknown.is_empty());
    let outcome = PredictOutcome {
        edition: "seed-2016".into(),
        tables: Vec::new(),
        prediction: prediction.clone(),
        requirements: None,
        job_loads: None,
        price_notes: Vec::new(),
        disks: vec!["8xBoundless".into()],
        cost: None,
    };
    let text = outcome.text();
    let json = outcome.json();
    let report = outcome.report();
    let html = report.render();
    let csv = report.render_csv();
    let verdicts = ["BINDING", "at limit", ">ok<", "OVER", "info"];
    for check in published_unknown {
        assert_eq!(check.status, LimitStatus::Unknown, "{check:?}");
        // Text: the row's last column.
        let label = format!("  {}: {}", check.scope, check.name);
        let row = text.lines().find(|l| l.starts_with(&label)).unwrap();
        assert!(row.ends_with("  unknown"), "{row}");
        assert!(!verdicts.iter().any(|v| row.contains(v)), "{row}");
        // JSON: the status is null, the limit stays the published figure.
        let shown = json["prediction"]["limits"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == check.name.as_str() && c["scope"] == check.scope.as_str())
            .unwrap();
        assert!(shown["status"].is_null(), "{shown}");
        assert_eq!(shown["limit"].as_f64(), check.limit, "{shown}");
        // Read back, it is still unknown.
        let back: iofit_predict::LimitCheck = serde_json::from_value(shown.clone()).unwrap();
        assert_eq!(back.status, LimitStatus::Unknown);
        assert!(back.load_unknown && !back.unpublished());
        // HTML: the limits table's row (the queue's depth is shown as the workload's, not
        // as a limit, and its name is escaped).
        if check.kind != LimitKind::QueueDepth {
            let start = html.find(&format!("<td>{}</td>", check.name)).unwrap();
            let row = &html[start..start + html[start..].find("</tr>").unwrap()];
            assert_eq!(row.matches(">unknown<").count(), 3, "{row}");
            assert!(!verdicts.iter().any(|v| row.contains(v)), "{row}");
        }
        // HTML chart: the limit's bar gives the limit alone, no load and no "binding".
        if check.kind != LimitKind::QueueDepth {
            let value = fmt(check.limit.unwrap());
            assert!(
                !html.contains(&format!("of {value} IOPS used"))
                    && !html.contains(&format!("of {value} MB/s used")),
                "{}: the chart draws a load",
                check.name
            );
        }
        // CSV: the status record.
        let status = csv
            .lines()
            .find(|l| l.contains(&format!("{},status,", check.name)))
            .unwrap();
        assert!(status.contains(",status,unknown,"), "{status}");
    }
    assert!(
        !html.contains("— binding"),
        "the chart marks a binding limit"
    );
    // The binding sentence says the load is unknown rather than giving it.
    let binding = prediction.binding.as_ref().unwrap();
    assert!(
        binding.words.contains("the load is unknown"),
        "{}",
        binding.words
    );
    assert!(json["prediction"]["binding"]["used"].is_null());
}
