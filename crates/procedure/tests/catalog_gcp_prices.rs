//! `iofit catalog fetch --cloud gcp` against a local HTTP server on 127.0.0.1 that serves
//! Compute Engine's SKUs in the Cloud Billing Catalog API's documented shape at its documented
//! path (`/v1/services/6F81-5844-456A/skus?key=KEY`, pages chained by `nextPageToken` and
//! `pageToken`); a refused key, a page cut short and an endless token; `catalog import
//! --gcp-prices` on saved pages; and a plan priced from what was written. The live API is never
//! contacted; the rates are written here for the test (not Google's).

use iofit_procedure::catalog_gcp_prices::{import_gcp_prices, GcpPricesRequest, SkuSource};
use iofit_procedure::plan::{CatalogChoice, PlanRequest, RequirementsSource, VolumeFlags};
use iofit_procedure::plan_clouds::{plan_clouds, CloudChoice, CloudsPlanOutcome};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

const REGION: &str = "asia-northeast1";
const KEY: &str = "test-key-0123";

fn sku(id: &str, description: &str, unit: &str, units: &str, nanos: i64) -> String {
    format!(
        r#"{{"name":"services/6F81-5844-456A/skus/{id}","skuId":"{id}","description":"{description}",
        "category":{{"serviceDisplayName":"Compute Engine","resourceFamily":"Compute","resourceGroup":"N1Standard","usageType":"OnDemand"}},
        "serviceRegions":["{REGION}"],"pricingInfo":[{{"summary":"","pricingExpression":{{"usageUnit":"{unit}",
        "displayQuantity":1,"tieredRates":[{{"startUsageAmount":0,"unitPrice":{{"currencyCode":"USD","units":"{units}","nanos":{nanos}}}}}]}},
        "effectiveTime":"2026-11-01T00:00:00Z"}}],"serviceProviderName":"Google"}}"#
    )
}

/// Page 1: E2 core and RAM; page 2: the three Persistent Disk capacities.
fn pages() -> [String; 2] {
    [
        format!(
            "{{\"skus\":[{},{}],\"nextPageToken\":\"tok/2=\"}}",
            sku(
                "E2C-1",
                "E2 Instance Core running in Tokyo",
                "h",
                "0",
                1_000_000
            ),
            sku(
                "E2R-1",
                "E2 Instance Ram running in Tokyo",
                "GiBy.h",
                "0",
                100_000
            ),
        ),
        format!(
            "{{\"skus\":[{},{},{}],\"nextPageToken\":\"\"}}",
            sku(
                "PDB-1",
                "Balanced PD Capacity in Tokyo",
                "GiBy.mo",
                "0",
                130_000_000
            ),
            sku(
                "PDS-1",
                "SSD backed PD Capacity in Tokyo",
                "GiBy.mo",
                "0",
                221_000_000
            ),
            sku(
                "PDH-1",
                "Storage PD Capacity in Tokyo",
                "GiBy.mo",
                "0",
                52_000_000
            ),
        ),
    ]
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Good,
    TruncatedSecondPage,
    EndlessToken,
}

/// Serves the pages at their path; a wrong key gets Google's 403 shape. Records each target.
fn serve(mode: Mode) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut line = String::new();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            reader.read_line(&mut line).unwrap();
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).unwrap() == 0 || header == "\r\n" {
                    break;
                }
            }
            let target = line.split(' ').nth(1).unwrap_or("").to_string();
            log.lock().unwrap().push(target.clone());
            let (path, query) = target.split_once('?').unwrap_or((&target, ""));
            let param = |name: &str| {
                query
                    .split('&')
                    .find_map(|p| p.strip_prefix(&format!("{name}=")))
                    .map(str::to_string)
            };
            let [first, second] = pages();
            let (status, mut body) = if path != "/v1/services/6F81-5844-456A/skus" {
                ("404 Not Found", "{}".to_string())
            } else if param("key").as_deref() != Some(KEY) {
                (
                    "403 Forbidden",
                    "{\"error\":{\"code\":403,\"message\":\"The request is missing a valid API key.\",\"status\":\"PERMISSION_DENIED\"}}".to_string(),
                )
            } else if mode == Mode::EndlessToken {
                ("200 OK", first.replace("tok/2=", "same"))
            } else {
                match param("pageToken").as_deref() {
                    None => ("200 OK", first),
                    Some("tok%2F2%3D") => ("200 OK", second),
                    Some(_) => ("400 Bad Request", "{}".to_string()),
                }
            };
            if mode == Mode::TruncatedSecondPage && target.contains("pageToken") {
                body.truncate(body.len() / 2);
            }
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{body}"
            );
        }
    });
    (base, seen)
}

fn request(source: SkuSource, output: &std::path::Path) -> GcpPricesRequest {
    GcpPricesRequest {
        source,
        region: Some(REGION.into()),
        output: Some(output.to_path_buf()),
        table_id: None,
        allow_overwrite: false,
        date: "2026-11-27".into(),
    }
}

fn api(base: &str, key: &str) -> SkuSource {
    SkuSource::Api {
        base: base.into(),
        key: key.into(),
    }
}

fn plan_in(catalog: &std::path::Path) -> iofit_planner::clouds_gcp::GcpPlan {
    let plan = PlanRequest {
        requirements: RequirementsSource::Flags(VolumeFlags {
            iops: Some(iofit_model::units::Iops(3_000.0)),
            throughput_mb_s: Some(iofit_model::units::MBps(20.0)),
            latency_ms: None,
            capacity_gib: Some(iofit_model::units::GiB(200.0)),
            read_pct: 70.0,
            random_pct: 100.0,
            io_size: "8k".into(),
            role: "data".into(),
        }),
        growth: None,
        top: 3,
        caching: None,
        cache_hit_pct: 0.0,
        service_latency_ms: None,
        min_headroom_pct: 10.0,
        busy_hours_per_month: iofit_planner::HOURS_PER_MONTH,
        catalog: CatalogChoice {
            edition: "current".into(),
            region: Some(REGION.into()),
            files: vec![catalog.to_path_buf()],
            ..Default::default()
        },
        report: None,
        capture: Vec::new(),
    };
    match plan_clouds(
        CloudChoice::One(iofit_catalog::clouds::Cloud::Gcp),
        &plan,
        false,
    )
    .unwrap()
    {
        CloudsPlanOutcome::Gcp(plan) => plan,
        _ => unreachable!(),
    }
}

/// Both pages are read (the second by its token, percent-encoded), the key is sent in the
/// query, the file holds e2 rows at vCPUs x core + GiB x RAM and three disk rates, and a plan
/// in the region is priced from it.
#[test]
fn fetch_reads_every_page_and_prices_a_plan() {
    let (base, seen) = serve(Mode::Good);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gcp-tokyo.toml");
    let outcome = import_gcp_prices(&request(api(&base, KEY), &out)).unwrap();
    let targets = seen.lock().unwrap().clone();
    assert_eq!(targets.len(), 2, "{targets:?}");
    assert!(targets[0].contains(&format!("key={KEY}")), "{targets:?}");
    assert!(targets[1].contains("pageToken=tok%2F2%3D"), "{targets:?}");
    let summary = outcome.summary();
    assert!(
        summary.contains("from 2 Cloud Billing Catalog page(s)")
            && summary.contains("disk types pd-balanced, pd-ssd, pd-standard"),
        "{summary}"
    );
    assert!(!summary.contains(KEY), "{summary}");
    let text = std::fs::read_to_string(&out).unwrap();
    // e2-standard-4: 4 x 0.001 + 16 x 0.0001 = 0.0056 an hour (a rate far below the built-in
    // Tokyo rows, so the plan's cheapest design is an e2 priced from this file).
    assert!(
        text.contains("name = \"e2-standard-4\"\nregion = \"asia-northeast1\"\nprice_per_hour = 0.0056\nsku = \"E2C-1+E2R-1\""),
        "{text}"
    );
    let plan = plan_in(&out);
    let best = &plan.designs[0];
    assert!(
        best.machine_type.starts_with("e2-"),
        "{}",
        best.machine_type
    );
    let machine = iofit_catalog::clouds::gcp::GcpCatalog::embedded().unwrap();
    let vcpu = f64::from(machine.machine_type(&best.machine_type).unwrap().vcpu);
    let memory = machine.machine_type(&best.machine_type).unwrap().memory_gib;
    let hourly = vcpu * 0.001 + memory.get() * 0.0001;
    assert!((best.machine_price_per_month - hourly * 730.0).abs() < 1e-6);
    assert!(best.price_basis.contains(REGION));
}

/// A refused key, a page cut short and a token that never ends: refused with the address (never
/// the key) and nothing written.
#[test]
fn failures_write_nothing_and_never_print_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.toml");
    let (base, _) = serve(Mode::Good);
    let error = import_gcp_prices(&request(api(&base, "wrong-key-987"), &out))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("HTTP 403: The request is missing a valid API key.")
            && error.contains("check the API key"),
        "{error}"
    );
    assert!(!error.contains("wrong-key-987"), "{error}");
    assert!(!out.exists());
    let (base, _) = serve(Mode::TruncatedSecondPage);
    let error = import_gcp_prices(&request(api(&base, KEY), &out))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("(page 2)") && error.contains("not a Cloud Billing Catalog SKU page"),
        "{error}"
    );
    assert!(
        error.contains("nothing written") && !error.contains(KEY),
        "{error}"
    );
    assert!(!out.exists());
    let (base, _) = serve(Mode::EndlessToken);
    let error = import_gcp_prices(&request(api(&base, KEY), &out))
        .unwrap_err()
        .to_string();
    assert!(error.contains("nextPageToken repeats"), "{error}");
    assert!(!out.exists());
}

/// Saved pages, given in order, write the same file the API does; a saved first page alone
/// writes its rows and says later pages are missing.
#[test]
fn saved_pages_import_as_the_api_fetches() {
    let dir = tempfile::tempdir().unwrap();
    let [first, second] = pages();
    let p1 = dir.path().join("p1.json");
    let p2 = dir.path().join("p2.json");
    std::fs::write(&p1, first).unwrap();
    std::fs::write(&p2, second).unwrap();
    let (base, _) = serve(Mode::Good);
    let fetched = dir.path().join("fetched.toml");
    import_gcp_prices(&request(api(&base, KEY), &fetched)).unwrap();
    let imported = dir.path().join("imported.toml");
    let outcome =
        import_gcp_prices(&request(SkuSource::Files(vec![p1.clone(), p2]), &imported)).unwrap();
    assert!(!outcome.more_pages);
    assert_eq!(
        std::fs::read_to_string(&fetched).unwrap(),
        std::fs::read_to_string(&imported).unwrap()
    );
    let partial = dir.path().join("partial.toml");
    let outcome = import_gcp_prices(&request(SkuSource::Files(vec![p1]), &partial)).unwrap();
    assert!(outcome.more_pages);
    assert!(outcome
        .summary()
        .contains("SKUs on later pages are missing"));
    assert!(outcome.summary().contains("disk types none"));
}
