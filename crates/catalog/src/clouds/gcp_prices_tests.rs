//! Pages written here in the Cloud Billing Catalog API's documented shape (the rates are made
//! up for the test, not Google's).

use super::*;

/// One SKU as the API lists it; `units` as the string JSON gives an int64.
pub(crate) fn sku(
    id: &str,
    description: &str,
    usage: &str,
    regions: &[&str],
    unit: &str,
    units: &str,
    nanos: i64,
) -> String {
    let regions: Vec<String> = regions.iter().map(|r| format!("\"{r}\"")).collect();
    format!(
        r#"{{"name":"services/6F81-5844-456A/skus/{id}","skuId":"{id}","description":"{description}",
        "category":{{"serviceDisplayName":"Compute Engine","resourceFamily":"Compute","resourceGroup":"CPU","usageType":"{usage}"}},
        "serviceRegions":[{}],
        "pricingInfo":[{{"summary":"","pricingExpression":{{"usageUnit":"{unit}","usageUnitDescription":"x",
        "displayQuantity":1,"tieredRates":[{{"startUsageAmount":0,"unitPrice":{{"currencyCode":"USD","units":"{units}","nanos":{nanos}}}}}]}},
        "currencyConversionRate":1,"effectiveTime":"2026-11-01T00:00:00Z"}}],"serviceProviderName":"Google"}}"#,
        regions.join(",")
    )
}

pub(crate) fn page(skus: &[String], next: &str) -> String {
    format!(
        "{{\"skus\":[{}],\"nextPageToken\":\"{next}\"}}",
        skus.join(",")
    )
}

const R: &str = "europe-west3";

fn first_page() -> String {
    page(
        &[
            sku(
                "AAAA-0001",
                "N2 Instance Core running in Frankfurt",
                "OnDemand",
                &[R],
                "h",
                "0",
                40_000_000,
            ),
            sku(
                "AAAA-0002",
                "N2 Instance Core running in Frankfurt",
                "Preemptible",
                &[R],
                "h",
                "0",
                9_000_000,
            ),
            sku(
                "AAAA-0003",
                "N2 Custom Instance Core running in Frankfurt",
                "OnDemand",
                &[R],
                "h",
                "0",
                50_000_000,
            ),
            sku(
                "AAAA-0004",
                "N2 Instance Core running in Americas",
                "OnDemand",
                &["us-central1"],
                "h",
                "0",
                31_611_000,
            ),
            sku(
                "AAAA-0005",
                "N2D AMD Instance Core running in Frankfurt",
                "OnDemand",
                &[R],
                "h",
                "0",
                30_000_000,
            ),
        ],
        "page-2",
    )
}

fn second_page() -> String {
    page(
        &[
            sku(
                "BBBB-0001",
                "N2 Instance Ram running in Frankfurt",
                "OnDemand",
                &[R, "europe-west4"],
                "GiBy.h",
                "0",
                5_000_000,
            ),
            sku(
                "BBBB-0002",
                "Balanced PD Capacity in Frankfurt",
                "OnDemand",
                &[R],
                "GiBy.mo",
                "0",
                120_000_000,
            ),
            sku(
                "BBBB-0003",
                "Regional Balanced PD Capacity in Frankfurt",
                "OnDemand",
                &[R],
                "GiBy.mo",
                "0",
                240_000_000,
            ),
            sku(
                "BBBB-0004",
                "Extreme PD Capacity in Frankfurt",
                "OnDemand",
                &[R],
                "GiBy.mo",
                "0",
                150_000_000,
            ),
            sku(
                "BBBB-0005",
                "Extreme PD IOPS in Frankfurt",
                "OnDemand",
                &[R],
                "mo",
                "0",
                80_000_000,
            ),
            sku(
                "BBBB-0006",
                "Hyperdisk Balanced Throughput in Frankfurt",
                "OnDemand",
                &[R],
                "MBy/s.mo",
                "0",
                50_000_000,
            ),
            sku(
                "BBBB-0007",
                "SSD backed PD Capacity in Frankfurt",
                "OnDemand",
                &[R],
                "GiBy.mo",
                "1",
                0,
            ),
        ],
        "",
    )
}

/// Two pages chained by nextPageToken become the region's rows: every built-in n2 type priced
/// as vCPUs x the core rate + GiB x the RAM rate, naming both SKUs; disk rates per GiB-month
/// (pd-extreme with its IOPS rate); other regions, Spot, custom and regional SKUs left out; a
/// SKU in a unit iofit does not expect named, not converted.
#[test]
fn pages_become_the_regions_rows_each_naming_its_skus() {
    let mut collector = GcpSkuCollector::new(R);
    assert_eq!(
        collector.add_page("p1.json", &first_page()).unwrap(),
        Some("page-2".to_string())
    );
    assert_eq!(collector.add_page("p2.json", &second_page()).unwrap(), None);
    let builtin = GcpCatalog::embedded().unwrap();
    let imported = collector.render(&builtin, "2026-11-27", None).unwrap();
    let n2 = builtin
        .machine_types
        .iter()
        .filter(|m| m.family == "n2")
        .count();
    assert_eq!(imported.machine_rows, n2);
    assert_eq!(imported.pages, 2);
    assert!(imported.families_unpriced.contains(&"n2d".to_string()));
    assert!(!imported.families_unpriced.contains(&"n2".to_string()));
    assert_eq!(imported.disk_types, ["pd-balanced", "pd-ssd", "pd-extreme"]);
    assert_eq!(imported.left_out.len(), 1, "{:?}", imported.left_out);
    assert!(imported.left_out[0].contains("BBBB-0006"));

    let mut catalog = GcpCatalog::embedded().unwrap();
    catalog.add_text("fetched.toml", &imported.toml).unwrap();
    let price = catalog.machine_price("n2-standard-8", R).unwrap();
    // 8 x 0.04 + 32 x 0.005 = 0.48 an hour, replacing the built-in europe-west3 row.
    assert!(
        (price.price_per_hour - 0.48).abs() < 1e-12,
        "{}",
        price.price_per_hour
    );
    assert_eq!(price.sku.as_deref(), Some("AAAA-0001+BBBB-0001"));
    assert_eq!(price.table, "gcp-prices-europe-west3-2026-11-27");
    assert!(price
        .source
        .as_deref()
        .unwrap()
        .contains("N2 Instance Core running in Frankfurt"));
    assert_eq!(
        catalog
            .disk_price("pd-balanced", R)
            .unwrap()
            .price_per_gib_month,
        0.12
    );
    assert_eq!(
        catalog.disk_price("pd-ssd", R).unwrap().price_per_gib_month,
        1.0
    );
    let extreme = catalog.disk_price("pd-extreme", R).unwrap();
    assert_eq!(
        (extreme.price_per_gib_month, extreme.price_per_iops_month),
        (0.15, Some(0.08))
    );
    assert_eq!(extreme.sku.as_deref(), Some("BBBB-0004+BBBB-0005"));
    // With its IOPS rate fetched, pd-extreme lacks nothing in this region but nothing else.
    let row = catalog.provisioned_type("pd-extreme").unwrap();
    assert!(catalog.planning_gaps(row, R).is_empty());
    // The us-central1 core rate on page 1 is not this region's: the built-in row stays.
    let iowa = catalog
        .machine_price("n2-standard-8", "us-central1")
        .unwrap();
    assert_eq!(iowa.table, "gcp-prices");
}

/// A response cut short, not a SKU page, or priced in another currency is refused naming the
/// page and what is wrong.
#[test]
fn bad_pages_are_refused_naming_the_page() {
    let mut collector = GcpSkuCollector::new(R);
    let whole = second_page();
    let cut = &whole[..whole.len() / 2];
    let error = collector.add_page("p2.json", cut).unwrap_err().to_string();
    assert!(error.starts_with("p2.json: line "), "{error}");
    assert!(
        error.contains("not a Cloud Billing Catalog SKU page"),
        "{error}"
    );
    let error = collector
        .add_page("other.json", "{\"services\":[]}")
        .unwrap_err()
        .to_string();
    assert!(error.contains("missing field `skus`"), "{error}");
    let euros = page(
        &[sku(
            "CCCC-0001",
            "E2 Instance Core running in Frankfurt",
            "OnDemand",
            &[R],
            "h",
            "0",
            1,
        )
        .replace("\"USD\"", "\"EUR\"")],
        "",
    );
    let error = collector
        .add_page("eur.json", &euros)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("CCCC-0001") && error.contains("currencyCode 'EUR'"),
        "{error}"
    );
    let odd = page(
        &[sku(
            "CCCC-0002",
            "E2 Instance Core running in Frankfurt",
            "OnDemand",
            &[R],
            "h",
            "1.5",
            0,
        )],
        "",
    );
    let error = collector
        .add_page("odd.json", &odd)
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("odd.json: line 1")
            && error.contains("CCCC-0002: unitPrice.units '1.5' is not an integer"),
        "{error}"
    );
}

#[test]
fn a_prefix_is_a_whole_word_run() {
    assert!(starts(
        "N2 Instance Core running in Americas",
        "N2 Instance Core"
    ));
    assert!(!starts(
        "N2D AMD Instance Core running in Americas",
        "N2 Instance Core"
    ));
    assert!(!starts(
        "Regional Storage PD Capacity in Iowa",
        "Storage PD Capacity"
    ));
    assert_eq!(
        wanted_prefix("Hyperdisk Throughput Throughput Capacity in Iowa"),
        None
    );
}
