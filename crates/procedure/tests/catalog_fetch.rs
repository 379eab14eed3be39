//! `iofit catalog fetch` against a local HTTP server on 127.0.0.1 that answers in the Retail
//! Prices API's documented shape (`{"BillingCurrency", "Items": [...], "NextPageLink",
//! "Count"}`): a query spread over two pages, a page first answered 429 with Retry-After, and
//! a broken page. The live API is never contacted. The items are written here for the test.

use iofit_planner::PlanNote;
use iofit_procedure::catalog_fetch::{fetch_catalog, FetchRequest};
use iofit_procedure::plan::{self, CatalogChoice, PlanRequest, RequirementsSource, VolumeFlags};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The currency the API answers in: the request's `currencyCode` (USD when absent).
fn currency_of(target: &str) -> String {
    target
        .split("currencyCode=%27")
        .nth(1)
        .and_then(|rest| rest.get(..3))
        .unwrap_or("USD")
        .to_string()
}

/// What the test's prices become in another currency: the same numbers x 0.9 in EUR, so a
/// plan that read USD where it asked EUR shows (the figures are written here, not Azure's).
fn in_currency(price: f64, currency: &str) -> f64 {
    if currency == "EUR" {
        price * 0.9
    } else {
        price
    }
}

thread_local! {
    static CURRENCY: std::cell::RefCell<String> = std::cell::RefCell::new("USD".into());
}

fn item(
    sku: &str,
    product: &str,
    kind: &str,
    term: Option<&str>,
    price: f64,
    unit: &str,
) -> String {
    let arm = format!("Standard_{}", sku.replace(' ', "_"));
    let (service, arm) = if product.contains("Disks") {
        ("Storage", String::new())
    } else {
        ("Virtual Machines", arm)
    };
    let meter = if service == "Storage" {
        format!("{sku} Disk")
    } else {
        sku.to_string()
    };
    let term = term
        .map(|t| format!(",\"reservationTerm\":\"{t}\""))
        .unwrap_or_default();
    let currency = CURRENCY.with(|c| c.borrow().clone());
    let price = in_currency(price, &currency);
    format!(
        "{{\"currencyCode\":\"{currency}\",\"tierMinimumUnits\":0.0,\"retailPrice\":{price},\
         \"unitPrice\":{price},\"armRegionName\":\"westeurope\",\"location\":\"EU West\",\
         \"effectiveStartDate\":\"2026-10-01T00:00:00Z\",\"meterId\":\"m-{sku}\",\
         \"meterName\":\"{meter}\",\"productId\":\"p\",\"skuId\":\"p/1\",\
         \"productName\":\"{product}\",\"skuName\":\"{sku}\",\"serviceName\":\"{service}\",\
         \"serviceId\":\"s\",\"serviceFamily\":\"Compute\",\"unitOfMeasure\":\"{unit}\",\
         \"type\":\"{kind}\",\"isPrimaryMeterRegion\":true,\"armSkuName\":\"{arm}\"{term}}}"
    )
}

/// A Premium SSD v2 meter item: per hour, tiered (`tierMinimumUnits`).
fn v2_meter(meter: &str, tier: f64, price: f64, unit: &str) -> String {
    let currency = CURRENCY.with(|c| c.borrow().clone());
    let price = in_currency(price, &currency);
    format!(
        "{{\"currencyCode\":\"{currency}\",\"tierMinimumUnits\":{tier},\"retailPrice\":{price},\
         \"unitPrice\":{price},\"armRegionName\":\"westeurope\",\"location\":\"EU West\",\
         \"effectiveStartDate\":\"2026-10-01T00:00:00Z\",\"meterId\":\"m-{meter}\",\
         \"meterName\":\"Premium LRS Provisioned {meter}\",\"productId\":\"p2\",\
         \"skuId\":\"p2/1\",\"productName\":\"Azure Premium SSD v2\",\
         \"skuName\":\"Premium LRS\",\"serviceName\":\"Storage\",\"serviceId\":\"s\",\
         \"serviceFamily\":\"Storage\",\"unitOfMeasure\":\"{unit}\",\
         \"type\":\"Consumption\",\"isPrimaryMeterRegion\":true,\"armSkuName\":\"\"}}"
    )
}

fn page(items: &[String], next: Option<String>) -> String {
    let next = next
        .map(|n| format!("\"{n}\""))
        .unwrap_or_else(|| "null".into());
    let currency = CURRENCY.with(|c| c.borrow().clone());
    format!(
        "{{\"BillingCurrency\":\"{currency}\",\"CustomerEntityId\":\"Default\",\
         \"CustomerEntityType\":\"Retail\",\"Items\":[{}],\"NextPageLink\":{next},\
         \"Count\":{}}}",
        items.join(","),
        items.len()
    )
}

/// Serves until the test ends: the VM query's first page links to /vm-2, which answers 429
/// (Retry-After: 1) once; the disk query is one page. `broken`: every page is not JSON.
fn serve(broken: bool) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let throttled = Arc::new(AtomicUsize::new(0));
    let seen = throttled.clone();
    let next = format!("{base}/api/vm-2");
    // A page links onward with the query's currency, as the API's NextPageLink does.
    let next_in = move |currency: &str| format!("{next}?currencyCode=%27{currency}%27&$skip=100");
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request_line = String::new();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            reader.read_line(&mut request_line).unwrap();
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).unwrap() == 0 || header == "\r\n" {
                    break;
                }
            }
            let target = request_line.split(' ').nth(1).unwrap_or("").to_string();
            let currency = currency_of(&target);
            CURRENCY.with(|c| *c.borrow_mut() = currency.clone());
            let (status, extra, body) = if broken {
                ("200 OK", "", "{\"Items\": [ not json".to_string())
            } else if currency == "GBP" && !target.contains("Virtual%20Machines") {
                // A mixed answer: one item in US dollars among the asked currency's.
                let mut items = vec![item(
                    "P30 LRS",
                    "Premium SSD Managed Disks",
                    "Consumption",
                    None,
                    148.68,
                    "1/Month",
                )];
                CURRENCY.with(|c| *c.borrow_mut() = "USD".into());
                items.push(item(
                    "P20 LRS",
                    "Premium SSD Managed Disks",
                    "Consumption",
                    None,
                    80.53,
                    "1/Month",
                ));
                ("200 OK", "", page(&items, None))
            } else if target.starts_with("/api/vm-2") {
                if seen.fetch_add(1, Ordering::SeqCst) == 0 {
                    ("429 Too Many Requests", "Retry-After: 1\r\n", String::new())
                } else {
                    let items = [
                        item(
                            "E4s v5",
                            "Virtual Machines Esv5 Series",
                            "Consumption",
                            None,
                            0.28,
                            "1 Hour",
                        ),
                        item(
                            "E4s v5",
                            "Virtual Machines Esv5 Series Windows",
                            "Consumption",
                            None,
                            0.464,
                            "1 Hour",
                        ),
                        item(
                            "E4s v5",
                            "Virtual Machines Esv5 Series",
                            "Reservation",
                            Some("3 Years"),
                            3200.0,
                            "1 Hour",
                        ),
                        item(
                            "E4s v5 Spot",
                            "Virtual Machines Esv5 Series",
                            "Consumption",
                            None,
                            0.03,
                            "1 Hour",
                        ),
                    ];
                    ("200 OK", "", page(&items, None))
                }
            } else if target.contains("Virtual%20Machines") {
                let items = [
                    item(
                        "D4s v5",
                        "Virtual Machines Dsv5 Series",
                        "Consumption",
                        None,
                        0.23,
                        "1 Hour",
                    ),
                    item(
                        "D4s v5",
                        "Virtual Machines Dsv5 Series Windows",
                        "Consumption",
                        None,
                        0.414,
                        "1 Hour",
                    ),
                    item(
                        "D4s v5",
                        "Virtual Machines Dsv5 Series",
                        "Reservation",
                        Some("1 Year"),
                        1250.0,
                        "1 Hour",
                    ),
                    item(
                        "D4s v5",
                        "Virtual Machines Dsv5 Series",
                        "Reservation",
                        Some("3 Years"),
                        2400.0,
                        "1 Hour",
                    ),
                    item(
                        "D4s v5 Low Priority",
                        "Virtual Machines Dsv5 Series",
                        "Consumption",
                        None,
                        0.046,
                        "1 Hour",
                    ),
                ];
                ("200 OK", "", page(&items, Some(next_in(&currency))))
            } else {
                let items = [
                    item(
                        "P30 LRS",
                        "Premium SSD Managed Disks",
                        "Consumption",
                        None,
                        148.68,
                        "1/Month",
                    ),
                    item(
                        "P20 LRS",
                        "Premium SSD Managed Disks",
                        "Consumption",
                        None,
                        80.53,
                        "1/Month",
                    ),
                    v2_meter("Capacity", 0.0, 0.00013, "1 GiB/Hour"),
                    v2_meter("IOPS", 0.0, 0.0, "1/Hour"),
                    v2_meter("IOPS", 3000.0, 0.000009, "1/Hour"),
                    v2_meter("Throughput (MBps)", 0.0, 0.0, "1/Hour"),
                    v2_meter("Throughput (MBps)", 125.0, 0.000065, "1/Hour"),
                ];
                ("200 OK", "", page(&items, None))
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Type: application/json\r\n{extra}\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (format!("{base}/api/retail/prices"), throttled)
}

fn request(api: String, output: std::path::PathBuf) -> FetchRequest {
    FetchRequest {
        region: Some("westeurope".into()),
        currency: None,
        api,
        output: Some(output),
        table_id: Some("fetched-westeurope".into()),
        allow_overwrite: false,
        unix_seconds: iofit_model::units::UnixSeconds(1_795_000_000),
        max_wait_s: iofit_model::units::Seconds(2),
    }
}

#[test]
fn fetch_follows_pages_waits_out_429_refuses_spot_and_writes_a_catalog_plan_ranks_with() {
    let dir = tempfile::tempdir().unwrap();
    let (api, throttled) = serve(false);
    let output = dir.path().join("westeurope.toml");
    let outcome = fetch_catalog(&request(api, output.clone())).unwrap();
    // The throttled page was asked twice: once refused, once answered.
    assert_eq!(throttled.load(Ordering::SeqCst), 2);
    let text = std::fs::read_to_string(&output).unwrap();
    // The source names the queries; the date is the day of the fetch.
    assert!(
        text.contains("armRegionName%20eq%20%27westeurope%27"),
        "{text}"
    );
    assert!(text.contains("date = \"2026-11-18\""), "{text}");
    // Spot and Low Priority are never on-demand prices.
    assert!(
        !text.contains("= 0.046\n") && !text.contains("= 0.03\n"),
        "{text}"
    );
    assert!(outcome.imported.prices.spot_or_low_priority >= 2);
    // Both pages of the VM query and the disk page arrived.
    for wanted in ["Standard_D4s_v5", "Standard_E4s_v5", "\"P30\""] {
        assert!(text.contains(wanted), "{wanted}: {text}");
    }

    // The Premium SSD v2 meters: the charged tiers (not the free first ones), x 730 h, and a
    // plan for westeurope reads them over the built-in ones.
    assert!(
        text.contains("[[provisioned_prices]]\nname = \"PremiumV2\""),
        "{text}"
    );
    let choice = CatalogChoice {
        edition: "current".into(),
        files: vec![output.clone()],
        region: Some("westeurope".into()),
        ..Default::default()
    };
    let (catalog, _) = choice.load_priced().unwrap();
    let v2 = catalog
        .provisioned
        .iter()
        .find(|d| d.name == "PremiumV2")
        .unwrap();
    assert!((v2.price_usd_per_iops_month.unwrap() - 0.000009 * 730.0).abs() < 1e-9);
    assert!((v2.price_usd_per_mb_s_month.unwrap() - 0.000065 * 730.0).abs() < 1e-9);
    assert!((v2.price_usd_per_gib_month.unwrap() - 0.00013 * 730.0).abs() < 1e-9);

    // plan --catalog FILE --region westeurope --pricing ri-3y --os windows ranks with it, and
    // the cheapest design changes with the way of paying and the OS.
    let total = |pricing: &str, os: &str| {
        let outcome = plan::plan(&PlanRequest {
            requirements: RequirementsSource::Flags(VolumeFlags {
                iops: Some(iofit_model::units::Iops(3000.0)),
                throughput_mb_s: None,
                latency_ms: None,
                capacity_gib: Some(iofit_model::units::GiB(500.0)),
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
                files: vec![output.clone()],
                region: Some("westeurope".into()),
                pricing: Some(pricing.into()),
                os: Some(os.into()),
                filters: Default::default(),
            },
            report: None,
            capture: Vec::new(),
        })
        .unwrap();
        assert!(outcome.found());
        let first = &outcome.plan.designs[0];
        assert!(first
            .vm_table
            .contains(&format!("westeurope {pricing} {os}")));
        (first.vm.clone(), first.vm_price_usd_month.unwrap())
    };
    // Only the fetched sizes have reservation prices: D4s_v5 at 2,400 / 36 a month.
    let (vm_ri3, linux_ri3) = total("ri-3y", "linux");
    assert_eq!(vm_ri3, "Standard_D4s_v5");
    assert!((linux_ri3 - 2400.0 / 36.0).abs() < 0.01, "{linux_ri3}");
    // Windows under a reservation: the compute reservation + the licence (Windows - Linux
    // pay-as-you-go, x 730 h), derived by the importer.
    let (vm_win, windows_ri3) = total("ri-3y", "windows");
    assert_eq!(vm_win, "Standard_D4s_v5");
    let licence = (0.414 - 0.23) * 730.0;
    assert!(
        (windows_ri3 - (linux_ri3 + licence)).abs() < 0.01,
        "{windows_ri3}"
    );
    // Pay-as-you-go, the built-in westeurope prices rank too: another size comes first.
    let (vm_payg, _) = total("payg", "linux");
    assert_ne!(vm_payg, vm_ri3);
    // Another region (eastus, built-in prices) gives another cheapest design: the same size
    // at another price.
    let design = |region: &str| {
        let outcome = plan_in(region, std::slice::from_ref(&output), "payg", "linux").unwrap();
        let first = &outcome.plan.designs[0];
        (first.vm.clone(), first.total_usd_month.unwrap())
    };
    let (west, east) = (design("westeurope"), design("eastus"));
    assert!(west != east, "{west:?} {east:?}");
    assert!((west.1 - east.1).abs() > 0.01, "{west:?} {east:?}");
}

#[test]
fn a_broken_page_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (api, _) = serve(true);
    let output = dir.path().join("broken.toml");
    let error = fetch_catalog(&request(api.clone(), output.clone())).unwrap_err();
    assert!(error.is_bad_input());
    let text = error.to_string();
    assert!(text.contains("not a Retail Prices page"), "{text}");
    assert!(text.contains("nothing was written"), "{text}");
    assert!(!output.exists());
}

/// Whether `text` shows an amount in dollars (`$` and a digit; `$filter` in a source URL is
/// not one).
fn dollar_amount(text: &str) -> bool {
    text.match_indices('$')
        .any(|(at, _)| text[at + 1..].starts_with(|c: char| c.is_ascii_digit()))
}

/// `plan` with the fetched catalog: the first design's VM, its VM price and the outcome.
fn plan_with(
    files: &[std::path::PathBuf],
    pricing: &str,
    os: &str,
) -> Result<plan::PlanOutcome, iofit_procedure::ProcedureError> {
    plan_in("westeurope", files, pricing, os)
}

fn plan_in(
    region: &str,
    files: &[std::path::PathBuf],
    pricing: &str,
    os: &str,
) -> Result<plan::PlanOutcome, iofit_procedure::ProcedureError> {
    plan::plan(&PlanRequest {
        requirements: RequirementsSource::Flags(VolumeFlags {
            iops: Some(iofit_model::units::Iops(3000.0)),
            throughput_mb_s: None,
            latency_ms: None,
            capacity_gib: Some(iofit_model::units::GiB(500.0)),
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
            files: files.to_vec(),
            region: Some(region.into()),
            pricing: Some(pricing.into()),
            os: Some(os.into()),
            filters: Default::default(),
        },
        report: None,
        capture: Vec::new(),
    })
}

/// `--currency EUR`: the query asks the API for euros (`currencyCode='EUR'`), the catalog
/// names its currency, and a plan with it adds euros only: its prices and totals say EUR in
/// text, JSON, HTML and CSV; the built-in westeurope prices (US dollars) are left out, never
/// converted, so the sizes the fetch did not price stay unpriced.
#[test]
fn fetch_in_eur_gives_a_catalog_whose_plan_names_eur_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let (api, _) = serve(false);
    let output = dir.path().join("westeurope-eur.toml");
    let mut euro = request(api, output.clone());
    euro.currency = Some("eur".into());
    fetch_catalog(&euro).unwrap();
    let text = std::fs::read_to_string(&output).unwrap();
    assert!(text.contains("currencyCode=%27EUR%27"), "{text}");
    assert!(text.contains("currency = \"EUR\""), "{text}");
    assert!(text.contains("westeurope, EUR, pay-as-you-go"), "{text}");

    let outcome = plan_with(std::slice::from_ref(&output), "ri-3y", "windows").unwrap();
    let first = &outcome.plan.designs[0];
    assert_eq!(first.vm, "Standard_D4s_v5");
    // The euro figures the server gave (x 0.9 of the USD ones): reservation / 36 + licence.
    let licence = (0.414 - 0.23) * 0.9 * 730.0;
    let vm_month = first.vm_price_usd_month.unwrap();
    assert!(
        (vm_month - (2400.0 * 0.9 / 36.0 + licence)).abs() < 0.01,
        "{vm_month}"
    );
    assert_eq!(outcome.plan.currency, "EUR");
    // Only the fetched sizes are priced in euros: every other size stays out.
    for design in &outcome.plan.designs {
        assert!(
            ["Standard_D4s_v5", "Standard_E4s_v5"].contains(&design.vm.as_str()),
            "{}",
            design.vm
        );
    }
    assert!(
        outcome
            .plan
            .notes
            .iter()
            .any(|n| matches!(n, PlanNote::Prices(words) if words.contains("in another currency than EUR left out"))),
        "{:?}",
        outcome.plan.notes
    );

    // Text: every amount names EUR, none is in dollars.
    let shown = outcome.text();
    let line = shown
        .lines()
        .find(|l| l.starts_with("#1  Standard_D4s_v5"))
        .unwrap_or_else(|| panic!("{shown}"));
    assert!(
        line.contains("EUR ") && line.contains("= VM EUR "),
        "{line}"
    );
    assert!(!dollar_amount(&shown), "{shown}");
    // JSON names the currency of the plan's figures.
    let json = outcome.json();
    assert_eq!(json["plan"]["currency"], "EUR");
    // HTML and CSV: the cost columns say EUR/month, the card's total EUR.
    let report = outcome.report();
    let html = report.render();
    assert!(html.contains("total EUR/month"), "the designs table");
    assert!(html.contains("VM EUR "), "the card's split");
    assert!(!dollar_amount(&html), "no dollar amount in the HTML");
    let csv = report.render_csv();
    assert!(csv.contains("total EUR/month"), "{csv}");
    assert!(!dollar_amount(&csv), "{csv}");
}

/// Prices in two currencies are never added up: a catalog of euros beside one of pounds for
/// the same region is refused, and an answer mixing currencies writes no catalog.
#[test]
fn mixed_currencies_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (api, _) = serve(false);
    let euros = dir.path().join("eur.toml");
    let mut euro = request(api.clone(), euros.clone());
    euro.currency = Some("EUR".into());
    fetch_catalog(&euro).unwrap();
    let pounds = dir.path().join("gbp.toml");
    let text = std::fs::read_to_string(&euros)
        .unwrap()
        .replace("currency = \"EUR\"", "currency = \"GBP\"")
        .replace("fetched-westeurope", "fetched-westeurope-gbp");
    std::fs::write(&pounds, text).unwrap();
    let error = plan_with(&[euros.clone(), pounds], "payg", "linux")
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("EUR") && error.contains("GBP") && error.contains("one currency"),
        "{error}"
    );
    // One currency is fine.
    assert!(plan_with(&[euros], "payg", "linux").is_ok());

    // The server answers a GBP query with one USD item: the import refuses it.
    let output = dir.path().join("mixed.toml");
    let mut mixed = request(api, output.clone());
    mixed.currency = Some("GBP".into());
    let error = fetch_catalog(&mixed).unwrap_err().to_string();
    assert!(
        error.contains("currencyCode") && error.contains("USD, but the import is in GBP"),
        "{error}"
    );
    assert!(!output.exists());
}
