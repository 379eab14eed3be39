//! `iofit catalog fetch --cloud aws` against a local HTTP server on 127.0.0.1 that serves an EC2
//! offer file in the Price List Bulk API's documented shape at its documented path
//! (`/offers/v1.0/aws/AmazonEC2/current/REGION/index.json`); `catalog import --aws-prices` on
//! a saved copy; and a plan priced from what was written. The live API is never contacted; the
//! prices are written here for the test (not AWS's).

use iofit_procedure::catalog_aws_prices::{import_aws_prices, AwsPricesRequest, OfferSource};
use iofit_procedure::plan::{CatalogChoice, PlanRequest, RequirementsSource, VolumeFlags};
use iofit_procedure::plan_clouds::{plan_clouds, CloudChoice, CloudsPlanOutcome};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

const REGION: &str = "eu-central-1";

fn product(sku: &str, family: &str, attributes: &[(&str, String)]) -> String {
    let attrs: Vec<String> = attributes
        .iter()
        .map(|(k, v)| format!("\"{k}\":\"{v}\""))
        .collect();
    format!(
        "\"{sku}\":{{\"sku\":\"{sku}\",\"productFamily\":\"{family}\",\"attributes\":{{{}}}}}",
        attrs.join(",")
    )
}

fn term(sku: &str, unit: &str, usd: f64) -> String {
    format!(
        "\"{sku}\":{{\"{sku}.JRTCKXETXF\":{{\"offerTermCode\":\"JRTCKXETXF\",\"priceDimensions\":\
         {{\"{sku}.JRTCKXETXF.6YS6EN2CT7\":{{\"unit\":\"{unit}\",\"beginRange\":\"0\",\
         \"endRange\":\"Inf\",\"pricePerUnit\":{{\"USD\":\"{usd:.10}\"}}}}}}}}}}"
    )
}

/// m6i.large .. m6i.8xlarge Linux at 0.12 per vCPU-hour / 2, gp3 and io2 rates.
fn offer() -> String {
    let mut products = Vec::new();
    let mut terms = Vec::new();
    for (i, (size, vcpu)) in [
        ("large", 2),
        ("xlarge", 4),
        ("2xlarge", 8),
        ("4xlarge", 16),
        ("8xlarge", 32),
    ]
    .iter()
    .enumerate()
    {
        let name = format!("m6i.{size}");
        let sku = format!("I{i}");
        products.push(product(
            &sku,
            "Compute Instance",
            &[
                ("regionCode", REGION.into()),
                ("instanceType", name.clone()),
                ("operatingSystem", "Linux".into()),
                ("licenseModel", "No License required".into()),
                ("tenancy", "Shared".into()),
                ("preInstalledSw", "NA".into()),
                ("capacitystatus", "Used".into()),
                ("usagetype", format!("EUC1-BoxUsage:{name}")),
            ],
        ));
        // 0.04 per vCPU-hour: below every built-in eu-central-1 rate (the least, c6i's, is
        // $0.0485), so the plan's cheapest instance is one this file prices.
        terms.push(term(&sku, "Hrs", 0.04 * f64::from(*vcpu)));
    }
    for (sku, family, volume, usage, unit, usd) in [
        (
            "V1",
            "Storage",
            "gp3",
            "EUC1-EBS:VolumeUsage.gp3",
            "GB-Mo",
            0.0952,
        ),
        (
            "V2",
            "System Operation",
            "gp3",
            "EUC1-EBS:VolumeP-IOPS.gp3",
            "IOPS-Mo",
            0.006,
        ),
        (
            "V3",
            "Provisioned Throughput",
            "gp3",
            "EUC1-EBS:VolumeP-Throughput.gp3",
            "GiBps-mo",
            48.7424,
        ),
        (
            "V4",
            "Storage",
            "io2",
            "EUC1-EBS:VolumeUsage.io2",
            "GB-Mo",
            0.149,
        ),
        (
            "V5",
            "System Operation",
            "io2",
            "EUC1-EBS:VolumeP-IOPS.io2",
            "IOPS-Mo",
            0.078,
        ),
    ] {
        products.push(product(
            sku,
            family,
            &[
                ("regionCode", REGION.into()),
                ("volumeApiName", volume.into()),
                ("usagetype", usage.into()),
            ],
        ));
        terms.push(term(sku, unit, usd));
    }
    format!(
        "{{\"formatVersion\":\"v1.0\",\"offerCode\":\"AmazonEC2\",\"version\":\"20261120000000\",\
         \"publicationDate\":\"2026-11-20T00:00:00Z\",\"products\":{{{}}},\
         \"terms\":{{\"OnDemand\":{{{}}}}}}}",
        products.join(","),
        terms.join(",")
    )
}

/// Serves the offer file at its path, 404 elsewhere; `truncated`: the body stops halfway.
fn serve(truncated: bool) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
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
            let wanted = format!("/offers/v1.0/aws/AmazonEC2/current/{REGION}/index.json");
            let (status, mut body) = if target == wanted {
                ("200 OK", offer())
            } else {
                ("404 Not Found", String::from("<Error>NoSuchKey</Error>"))
            };
            if truncated {
                body.truncate(body.len() / 2);
            }
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{body}"
            );
        }
    });
    base
}

fn request(source: OfferSource, region: &str, output: &std::path::Path) -> AwsPricesRequest {
    AwsPricesRequest {
        source,
        region: Some(region.into()),
        output: Some(output.to_path_buf()),
        table_id: None,
        allow_overwrite: false,
        date: "2026-11-27".into(),
    }
}

fn plan_in(region: &str, catalog: &std::path::Path) -> iofit_planner::clouds::AwsPlan {
    let plan = PlanRequest {
        requirements: RequirementsSource::Flags(VolumeFlags {
            iops: Some(iofit_model::units::Iops(5_000.0)),
            throughput_mb_s: Some(iofit_model::units::MBps(30.0)),
            latency_ms: None,
            capacity_gib: Some(iofit_model::units::GiB(1024.0)),
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
            region: Some(region.into()),
            files: vec![catalog.to_path_buf()],
            ..Default::default()
        },
        report: None,
        capture: Vec::new(),
    };
    match plan_clouds(
        CloudChoice::One(iofit_catalog::clouds::Cloud::Aws),
        &plan,
        false,
    )
    .unwrap()
    {
        CloudsPlanOutcome::Aws(plan) => plan,
        _ => panic!("not an AWS plan"),
    }
}

#[test]
fn a_fetched_region_prices_the_plan_in_that_region() {
    let base = serve(false);
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("aws-eu.toml");
    let outcome = import_aws_prices(&request(OfferSource::Api(base), REGION, &output)).unwrap();
    assert_eq!(outcome.imported.instance_rows, 5);
    assert_eq!(outcome.imported.volume_types, vec!["gp3", "io2"]);
    let summary = outcome.summary();
    assert!(
        summary.contains("AWS eu-central-1 on-demand prices: 5 instance price row(s)"),
        "{summary}"
    );
    assert!(
        summary.contains("version 20261120000000, published 2026-11-20T00:00:00Z"),
        "{summary}"
    );

    let plan = plan_in(REGION, &output);
    let best = plan
        .designs
        .first()
        .unwrap_or_else(|| panic!("no design: {:?}", plan.notes));
    assert!(
        best.price_basis.starts_with("AWS eu-central-1, USD"),
        "{}",
        best.price_basis
    );
    assert!(best.instance.starts_with("m6i."), "{}", best.instance);
    assert!(
        !best.instance_price_derived,
        "priced from the file, not derived"
    );
    // The instance is priced from the file: 0.04 per vCPU-hour x 730 h.
    let vcpu = f64::from(best.vcpu);
    assert!((best.instance_usd_month - 0.04 * vcpu * 730.0).abs() < 1e-6);
    // gp3 storage at the file's 0.0952 per GiB-month: every volume costs at least its storage.
    assert!(
        best.volumes_usd_month >= 1024.0 * 0.0952 - 1e-6,
        "{}",
        best.volumes_usd_month
    );
    // us-east-1 is still priced by the built-in table, unchanged.
    let east = plan_in("us-east-1", &output);
    assert!(east
        .designs
        .first()
        .unwrap()
        .price_basis
        .starts_with("AWS us-east-1"));
}

#[test]
fn a_saved_offer_file_imports_the_same_and_is_never_overwritten_by_its_output() {
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("index.json");
    std::fs::write(&saved, offer()).unwrap();
    let output = dir.path().join("aws-eu.toml");
    let outcome =
        import_aws_prices(&request(OfferSource::File(saved.clone()), REGION, &output)).unwrap();
    assert_eq!(outcome.imported.instance_rows, 5);
    // -o naming the input itself is refused, and the input is unchanged.
    let mut onto_input = request(OfferSource::File(saved.clone()), REGION, &saved);
    onto_input.allow_overwrite = true;
    let err = import_aws_prices(&onto_input).unwrap_err();
    assert!(err.is_bad_input(), "{err}");
    assert_eq!(std::fs::read_to_string(&saved).unwrap(), offer());
}

#[test]
fn a_missing_region_a_broken_answer_or_a_bad_name_writes_nothing() {
    let base = serve(false);
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out.toml");
    let err = import_aws_prices(&request(
        OfferSource::Api(base.clone()),
        "eu-west-9",
        &output,
    ))
    .unwrap_err();
    assert!(err.to_string().contains("HTTP 404"), "{err}");
    let err =
        import_aws_prices(&request(OfferSource::Api(base), "westeurope", &output)).unwrap_err();
    assert!(err.to_string().contains("write AWS's region code"), "{err}");
    let broken = serve(true);
    let err = import_aws_prices(&request(OfferSource::Api(broken), REGION, &output)).unwrap_err();
    assert!(err.to_string().contains("offer file"), "{err}");
    assert!(!output.exists(), "nothing is written when the import fails");
}
