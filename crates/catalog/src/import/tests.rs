use super::*;
use crate::types::{Os, Pricing};
use crate::{Catalog, PriceChoice, EDITION_CURRENT};
use iofit_model::units::GiB;

const VMS: &str = include_str!("../../../../tests/data/azure/list-skus-vms.json");
const DISKS: &str = include_str!("../../../../tests/data/azure/list-skus-disks.json");
const WESTUS3: &str = include_str!("../../../../tests/data/azure/retail-prices-westus3.json");
const NORTHEUROPE: &str =
    include_str!("../../../../tests/data/azure/retail-prices-northeurope.json");

fn run(region: &str) -> Imported {
    let skus = [
        Input::new("list-skus-vms.json", VMS),
        Input::new("list-skus-disks.json", DISKS),
    ];
    let prices = [
        Input::new("retail-prices-westus3.json", WESTUS3),
        Input::new("retail-prices-northeurope.json", NORTHEUROPE),
    ];
    let options = Options {
        region: region.into(),
        date: "2026-11-22".into(),
        table_id: None,
        currency: None,
    };
    import(&skus, &prices, &options).unwrap()
}

fn loaded(imported: &Imported) -> Catalog {
    let mut catalog = Catalog::default();
    catalog.load_str("imported.toml", &imported.toml).unwrap();
    catalog
}

fn price(catalog: &Catalog, name: &str, pricing: Pricing, os: Option<Os>) -> Option<f64> {
    catalog
        .prices
        .iter()
        .find(|p| p.name == name && p.pricing == pricing && p.os == os)
        .map(|p| p.usd_month)
}

#[test]
fn restricted_sizes_are_left_out_and_counted() {
    let imported = run("northeurope");
    let catalog = loaded(&imported);
    let names: Vec<&str> = catalog.vms.iter().map(|v| v.name.as_str()).collect();
    // D4as_v5 has a Location restriction there; E8as_v5 is offered but has no price there.
    assert_eq!(
        names,
        ["Standard_D4s_v5", "Standard_E4s_v5", "Standard_E8as_v5"]
    );
    assert_eq!(
        imported.skus.restricted,
        [(
            "Standard_D4as_v5".to_string(),
            "NotAvailableForSubscription".to_string()
        )]
    );
    let notes = catalog.tables[0].notes.clone().unwrap();
    assert!(
        notes.contains("1 SKUs restricted in northeurope: Standard_D4as_v5"),
        "{notes}"
    );
    // No price row for a restricted size either.
    assert!(catalog.prices.iter().all(|p| p.name != "Standard_D4as_v5"));

    // In westus3 a restriction of one zone keeps the size; of every zone leaves it out.
    let imported = run("westus3");
    assert_eq!(imported.skus.zone_limited, ["Standard_E4s_v5"]);
    assert_eq!(imported.skus.restricted.len(), 1);
    assert!(imported.skus.restricted[0].1.contains("every zone"));
    assert_eq!(loaded(&imported).vms.len(), 3);
}

#[test]
fn units_are_converted_once_and_rows_name_their_source() {
    let imported = run("westus3");
    let catalog = loaded(&imported);
    let d4 = catalog
        .vms
        .iter()
        .find(|v| v.name == "Standard_D4s_v5")
        .unwrap();
    // 145,000,000 bytes/s = 145 MB/s (10^6).
    assert_eq!(d4.uncached_throughput_mb_s.unwrap().0, 145.0);
    assert_eq!(
        (d4.vcpu, d4.memory_gib, d4.max_data_disks),
        (4, GiB(16.0), 8)
    );
    assert_eq!(d4.family, "DSv5");
    assert!(d4.premium_storage);
    assert!(imported
        .toml
        .contains("# from list-skus-vms.json $[0]\n[[vms]]\nname = \"Standard_D4s_v5\""));
    let table = &catalog.tables[0];
    assert_eq!(table.id, "import-westus3-2026-11-22");
    assert_eq!(table.date, "2026-11-22");
    assert!(table
        .source
        .contains("list-skus-vms.json, list-skus-disks.json"));
    // Disks: LRS tiers only; ZRS and Ultra counted.
    let disks: Vec<&str> = catalog.disks.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(disks, ["P10", "P20", "P30"]);
    assert_eq!(imported.skus.other_disk_kinds, 2);
    let p10 = &catalog.disks[0];
    assert_eq!(p10.burst_iops.unwrap().0, 3500.0);
    assert_eq!(p10.price_usd_month, Some(19.71));
    // Every price row names its file and date.
    assert!(catalog.prices.iter().all(|p| p.source.as_deref()
        == Some("retail-prices-westus3.json")
        && p.date.as_deref() == Some("2026-10-01")));
}

#[test]
fn prices_convert_hours_and_terms_to_months_and_skip_spot() {
    let imported = run("westus3");
    let catalog = loaded(&imported);
    let d4 = "Standard_D4s_v5";
    let close = |a: Option<f64>, b: f64| (a.unwrap() - b).abs() < 1e-4;
    // Pay-as-you-go: hourly x 730; the Linux one is also the VM row's price_usd_month.
    assert!(close(
        price(&catalog, d4, Pricing::Payg, Some(Os::Linux)),
        0.192 * 730.0
    ));
    assert!(close(
        price(&catalog, d4, Pricing::Payg, Some(Os::Windows)),
        0.376 * 730.0
    ));
    let row = catalog.vms.iter().find(|v| v.name == d4).unwrap();
    assert!(close(row.price_usd_month, 0.192 * 730.0));
    // Reservations: the term's total / 12 or / 36, not x 730.
    assert!(close(
        price(&catalog, d4, Pricing::Ri1y, Some(Os::Linux)),
        1030.0 / 12.0
    ));
    assert!(close(
        price(&catalog, d4, Pricing::Ri3y, Some(Os::Linux)),
        1960.0 / 36.0
    ));
    // Windows reservation: the Linux reservation + the licence at pay-as-you-go.
    let licence = (0.376 - 0.192) * 730.0;
    assert!(close(
        price(&catalog, d4, Pricing::Ri3y, Some(Os::Windows)),
        1960.0 / 36.0 + licence
    ));
    let derived = catalog
        .prices
        .iter()
        .find(|p| p.name == d4 && p.pricing == Pricing::Ri3y && p.os == Some(Os::Windows))
        .unwrap();
    assert!(derived.notes.as_deref().unwrap().starts_with("derived"));
    // Spot and Low Priority (0.024, 0.0384 per hour) were never taken as on-demand.
    let counts = &imported.prices;
    assert_eq!(counts.spot_or_low_priority, 8);
    assert!(catalog
        .prices
        .iter()
        .all(|p| p.usd_month > 50.0 || p.os.is_none()));
    // The other region's page and the DevTest and operations items are counted, not used.
    assert_eq!(counts.other_regions, 25);
    assert_eq!(counts.not_used, 4, "{counts:?}");
    assert_eq!(
        counts.sizes_not_offered, 5,
        "E8as_v5 is restricted in every zone"
    );
}

#[test]
fn a_plan_view_uses_the_chosen_price_and_leaves_out_what_has_none() {
    let mut catalog = loaded(&run("westus3"));
    catalog
        .load_str("ne.toml", &run("northeurope").toml)
        .unwrap();
    let choose = |region: &str, pricing| PriceChoice {
        region: region.into(),
        pricing,
        os: Os::Linux,
    };
    let cheapest = |view: &crate::PricedView| {
        view.catalog
            .vms
            .iter()
            .min_by(|a, b| {
                a.price_usd_month
                    .unwrap()
                    .total_cmp(&b.price_usd_month.unwrap())
            })
            .unwrap()
            .name
            .clone()
    };
    let payg = catalog.priced_for(EDITION_CURRENT, &choose("westus3", Pricing::Payg));
    assert_eq!(cheapest(&payg), "Standard_D4as_v5");
    let ri3 = catalog.priced_for(EDITION_CURRENT, &choose("westus3", Pricing::Ri3y));
    assert_eq!(cheapest(&ri3), "Standard_D4s_v5");
    let d4 = ri3
        .catalog
        .vms
        .iter()
        .find(|v| v.name == "Standard_D4s_v5")
        .unwrap();
    // The row came from the northeurope file (loaded last), its price from the westus3 file.
    assert_eq!(
        d4.table,
        "import-northeurope-2026-11-22 @ westus3 ri-3y linux from import-westus3-2026-11-22"
    );
    let table = ri3.catalog.table(&d4.table).unwrap();
    assert!(table
        .price_basis
        .as_deref()
        .unwrap()
        .contains("3-year reservation"));
    assert_eq!(table.price_date.as_deref(), Some("2026-10-01"));

    // northeurope: D4as_v5 is restricted there, so it has no price and is left out.
    let ne = catalog.priced_for(EDITION_CURRENT, &choose("northeurope", Pricing::Payg));
    assert_eq!(cheapest(&ne), "Standard_D4s_v5");
    assert!(ne
        .vms_not_in_region
        .contains(&"Standard_D4as_v5".to_string()));
    let notes = ne.notes().join("\n");
    assert!(notes.contains("no price in northeurope"), "{notes}");
    // A region nobody priced keeps no VM and says so.
    let none = catalog.priced_for(EDITION_CURRENT, &choose("brazilsouth", Pricing::Payg));
    assert!(none.catalog.vms.is_empty());
    assert_eq!(none.disks_unpriced.len(), 3);
}

#[test]
fn bad_input_names_file_path_and_key() {
    let options = Options {
        region: "westus3".into(),
        date: "2026-11-22".into(),
        table_id: None,
        currency: None,
    };
    let bad = VMS.replacen("\"value\": \"4\"", "\"value\": \"four\"", 1);
    let error = import(&[Input::new("vms.json", &bad)], &[], &options)
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        "vms.json: $[0].capabilities[2].value: key vCPUs: expected a number >= 0 in quotes, \
         found \"four\""
    );
    let bad = WESTUS3.replacen("\"retailPrice\": 0.192", "\"retailPrice\": \"cheap\"", 1);
    let error = import(
        &[Input::new("vms.json", VMS)],
        &[Input::new("p.json", &bad)],
        &options,
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        error,
        "p.json: $.Items[0]: key retailPrice: expected a number >= 0, found \"cheap\""
    );
    let error = import(&[Input::new("x.json", "[{]")], &[], &options)
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("x.json: line 1, column 3: not valid JSON"),
        "{error}"
    );
    let error = import(&[Input::new("x.json", "{\"skus\": []}")], &[], &options)
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("x.json: $: key value: expected an array"),
        "{error}"
    );
    let options = Options {
        region: "West Europe".into(),
        ..options
    };
    let error = import(&[], &[], &options).unwrap_err().to_string();
    assert!(error.starts_with("--region 'West Europe'"), "{error}");
}

#[test]
fn dates_of_unix_seconds() {
    assert_eq!(date_of_unix_seconds(0), "1970-01-01");
    assert_eq!(date_of_unix_seconds(951_782_400), "2000-02-29");
    assert_eq!(date_of_unix_seconds(1_795_305_600), "2026-11-22");
}

/// Found by fuzzing: a record whose name had trailing blanks was a second VM row whose name
/// the loader trims, so the catalog written did not load ("appears twice"). Names are now
/// trimmed as they are read: one row, and the file loads.
#[test]
fn names_that_differ_only_in_blanks_are_one_row() {
    let record = |name: &str| {
        format!(
            r#"{{"resourceType":"virtualMachines","name":"{name}","capabilities":[
                {{"name":"vCPUs","value":"4"}},{{"name":"MemoryGB","value":"32"}},
                {{"name":"MaxDataDiskCount","value":"8"}}]}}"#
        )
    };
    let skus = format!(
        "[{},{}]",
        record("Standard_E4s_v5  "),
        record("Standard_E4s_v5")
    );
    let options = Options {
        region: "eastus".into(),
        date: "2026-11-23".into(),
        table_id: None,
        currency: None,
    };
    let imported = import(&[Input::new("skus.json", &skus)], &[], &options).unwrap();
    assert_eq!(imported.vm_rows, 1, "{}", imported.toml);
    let catalog = loaded(&imported);
    assert_eq!(catalog.vms.len(), 1);
    assert_eq!(catalog.vms[0].name, "Standard_E4s_v5");
}
