use super::*;

/// Every row names a table that says where its numbers come from and when they were read.
#[test]
fn every_row_has_a_table_with_source_and_date() {
    let catalog = GcpCatalog::embedded().unwrap();
    let tables: Vec<&str> = catalog
        .machine_types
        .iter()
        .map(|r| r.table.as_str())
        .chain(catalog.disk_types.iter().map(|r| r.table.as_str()))
        .chain(catalog.vm_limits.iter().map(|r| r.table.as_str()))
        .chain(catalog.disk_prices.iter().map(|r| r.table.as_str()))
        .chain(catalog.machine_prices.iter().map(|r| r.table.as_str()))
        .collect();
    assert!(tables.len() > 100, "{}", tables.len());
    for id in tables {
        let table = catalog
            .table(id)
            .unwrap_or_else(|| panic!("row names {id}"));
        assert!(
            table.source.contains("github.com/"),
            "{id}: {}",
            table.source
        );
        assert!(table.source.contains("read 2026-11-27"), "{id}");
        assert_eq!(table.date.len(), 10, "{id}");
    }
    // Every machine type has a sourced limit for every disk type (c3 takes no pd-standard: the
    // source gives it none) and a price in each region.
    for machine in &catalog.machine_types {
        for disk in &catalog.disk_types {
            let skipped = machine.family == "c3" && disk.name == "pd-standard";
            assert_eq!(
                catalog.vm_limit(machine, &disk.name).is_some(),
                !skipped,
                "{} {}",
                machine.name,
                disk.name
            );
        }
        for region in SOURCED_REGIONS {
            assert!(catalog.machine_price(&machine.name, region).is_some());
        }
    }
    assert_eq!(
        catalog.priced_regions(),
        vec!["asia-northeast1", "europe-west3", "us-central1"]
    );
}

#[test]
fn the_tables_hold_googles_figures() {
    let catalog = GcpCatalog::embedded().unwrap();
    // limits_per_gb.json: pd-ssd 30 IOPS and 0.48 MiB/s per GiB, 6,000 IOPS / 240 MiB/s baseline.
    let ssd = catalog.disk_type("PD-SSD").unwrap();
    assert_eq!(
        (ssd.read_iops_per_gib, ssd.throughput_mib_s_per_gib),
        (30.0, 0.48)
    );
    assert_eq!(
        (ssd.baseline_iops.get(), ssd.baseline_mib_s.get()),
        (6000.0, 240.0)
    );
    // n-family.json: an N2 with 16-31 vCPUs takes 25,000 pd-ssd IOPS, 1,200 MiB/s; with 64 or
    // more 100,000.
    let n2_16 = catalog.machine_type("n2-standard-16").unwrap();
    let limit = catalog.vm_limit(n2_16, "pd-ssd").unwrap();
    assert_eq!(
        (limit.read_iops.get(), limit.read_mib_s.get()),
        (25_000.0, 1200.0)
    );
    let n2_128 = catalog.machine_type("n2-standard-128").unwrap();
    assert_eq!(
        catalog.vm_limit(n2_128, "pd-ssd").unwrap().read_iops.get(),
        100_000.0
    );
    // pricing.yml: n2-standard-8 in us-central1 is 8 x $0.031611 + 32 x $0.004237 an hour.
    let price = catalog
        .machine_price("n2-standard-8", DEFAULT_REGION)
        .unwrap();
    assert!((price.price_per_hour - (8.0 * 0.031611 + 32.0 * 0.004237)).abs() < 1e-9);
    assert!((price.price_per_month() - 0.388472 * 730.0).abs() < 1e-9);
    let balanced = catalog.disk_price("pd-balanced", "europe-west3").unwrap();
    assert_eq!(balanced.price_per_gib_month, 0.12);
    // pricing.yml holds pd-extreme's capacity rate, Infracost's golden file its IOPS rate (in
    // us-central1 only).
    let extreme = catalog.disk_price("pd-extreme", DEFAULT_REGION).unwrap();
    assert_eq!(extreme.price_per_gib_month, 0.125);
    assert_eq!(extreme.price_per_iops_month, Some(0.065));
    let frankfurt = catalog.disk_price("pd-extreme", "europe-west3").unwrap();
    assert_eq!(frankfurt.price_per_iops_month, None);
    // gcpdiag vm_performance.py: pd-standard below 100 GiB performs as 100 GiB.
    let standard = catalog.disk_type("pd-standard").unwrap();
    assert_eq!(standard.rated_gib(GiB(32.0)), GiB(100.0));
    assert_eq!(standard.rated_gib(GiB(250.0)), GiB(250.0));
    assert_eq!(ssd.rated_gib(GiB(32.0)), GiB(32.0));
}

/// Hyperdisk Throughput takes up to 2,400 MiB/s and 9,600 IOPS per volume since Google's
/// release of 2025-08-05 (600 MiB/s and 2,400 IOPS before): the row holds the current limits
/// and names the page and the release note; its least MiB/s (10 per TiB, at least 20) stays.
#[test]
fn hyperdisk_throughput_holds_the_limits_raised_on_2025_08_05() {
    let catalog = GcpCatalog::embedded().unwrap();
    let throughput = catalog.provisioned_type("hyperdisk-throughput").unwrap();
    assert_eq!(
        (throughput.mib_s_max, throughput.iops_max),
        (Some(2_400.0), Some(9_600.0))
    );
    // 4 IOPS come with each MiB/s: the most MiB/s bring the most IOPS.
    assert_eq!(
        throughput.iops_per_mib_s.unwrap() * throughput.mib_s_max.unwrap(),
        throughput.iops_max.unwrap()
    );
    assert_eq!(
        (throughput.mib_s_min, throughput.mib_s_min_per_tib),
        (Some(20.0), Some(10.0))
    );
    assert!(throughput.source.contains("2025-08-05"));
    assert!(throughput.source.contains("up to 9,600 IOPS"));
}

/// The provisioned types hold what Google's pages state, each row naming its pages and the
/// date read. pd-extreme lacks nothing in us-central1 (its IOPS price is Infracost's), only its
/// IOPS price elsewhere; each Hyperdisk type names the facts missing (no per-VM limit, and for
/// Hyperdisk Balanced no IOPS or throughput price and no bounds by size).
#[test]
fn provisioned_types_hold_the_pages_rules_and_say_what_is_missing() {
    let catalog = GcpCatalog::embedded().unwrap();
    let names: Vec<&str> = catalog
        .provisioned_types
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "pd-extreme",
            "hyperdisk-balanced",
            "hyperdisk-extreme",
            "hyperdisk-throughput"
        ]
    );
    for row in &catalog.provisioned_types {
        assert!(row.source.contains("read 2026-11-27"), "{}", row.name);
        assert_eq!(row.table, "gcp-provisioned-disk");
        assert!(row.bills.iter().any(|b| b == "capacity"), "{}", row.name);
    }
    let balanced = catalog.provisioned_type("Hyperdisk-Balanced").unwrap();
    assert_eq!(
        (balanced.iops_max, balanced.mib_s_max),
        (Some(160_000.0), Some(2_400.0))
    );
    assert_eq!(
        (balanced.included_iops, balanced.included_mib_s),
        (Some(Iops(3_000.0)), Some(MiBps(140.0)))
    );
    // Not on the stored pages: left out, not guessed.
    assert_eq!(balanced.iops_max_per_gib, None);
    let extreme = catalog.provisioned_type("hyperdisk-extreme").unwrap();
    // 2 IOPS per GiB at the least size, 64 GiB, is the least IOPS the page states, 128.
    assert_eq!(
        extreme.iops_min_per_gib.unwrap() * extreme.size_min_gib.unwrap().get(),
        extreme.iops_min.unwrap()
    );
    assert_eq!(extreme.vcpu_min_by_family.get("c3"), Some(&88));
    let n2_64 = catalog.machine_type("n2-standard-64").unwrap();
    let limit = catalog.vm_limit(n2_64, "pd-extreme").unwrap();
    assert_eq!(
        (limit.read_iops.get(), limit.write_mib_s.get()),
        (120_000.0, 3_000.0)
    );
    let pd_extreme = catalog.provisioned_type("pd-extreme").unwrap();
    assert!(catalog.planning_gaps(pd_extreme, "us-central1").is_empty());
    // 100,000 provisioned IOPS were $6,500.00 a month in Infracost's us-central1 golden file.
    let rate = catalog.disk_price("pd-extreme", "us-central1").unwrap();
    assert_eq!(rate.price_per_iops_month.unwrap() * 100_000.0, 6_500.0);
    assert_eq!(
        (pd_extreme.size_min_gib, pd_extreme.iops_min),
        (Some(GiB(500.0)), Some(2_500.0))
    );
    assert_eq!(pd_extreme.throughput_by_size_as.as_deref(), Some("pd-ssd"));
    assert_eq!(
        catalog.planning_gaps(pd_extreme, "europe-west3"),
        ["provisioned IOPS price per IOPS-month in europe-west3"]
    );
    let names: Vec<&str> = catalog
        .plannable_provisioned("us-central1")
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(names, ["pd-extreme"]);
    let gaps = catalog.planning_gaps(balanced, "europe-west3");
    assert_eq!(
        gaps,
        [
            "IOPS bounds by size",
            "throughput bounds by size and IOPS",
            "per-VM limits by machine type",
            "capacity price per GiB-month in europe-west3",
            "provisioned IOPS price per IOPS-month in europe-west3",
            "provisioned throughput price per MiB/s-month in europe-west3"
        ]
    );
    assert_eq!(
        (balanced.size_min_gib, balanced.size_max_gib),
        (Some(GiB(4.0)), Some(GiB(65_536.0)))
    );
    // Hyperdisk Extreme: every per-disk rule and its us-central1 prices, no per-VM limit.
    let gaps = catalog.planning_gaps(extreme, "us-central1");
    assert_eq!(gaps, ["per-VM limits by machine type"]);
}

/// A file that adds what is missing makes a type plannable: the gaps are computed, not listed.
#[test]
fn a_file_with_the_missing_prices_closes_the_gaps() {
    let mut catalog = GcpCatalog::embedded().unwrap();
    let text = format!(
        "{}\n[[disk_prices]]\nname = \"pd-extreme\"\nregion = \"europe-west3\"\nprice_per_gib_month = 0.15\nprice_per_iops_month = 0.5\n",
        HEAD.replace("\"x\"", "\"mine\"")
    );
    catalog.add_text("mine.toml", &text).unwrap();
    let row = catalog.provisioned_type("pd-extreme").unwrap();
    assert!(catalog.planning_gaps(row, "europe-west3").is_empty());
    assert_eq!(catalog.planning_gaps(row, "asia-northeast1").len(), 1);
    // A row naming a throughput rule of a disk type nobody lists is a gap, not a guess.
    let text = format!(
        "{}\n[[provisioned_types]]\nname = \"pd-extreme\"\nsource = \"s\"\nbills = [\"capacity\", \"iops\"]\nthroughput_by_size_as = \"pd-fast\"\n",
        HEAD.replace("\"x\"", "\"other\"")
    );
    catalog.add_text("other.toml", &text).unwrap();
    let row = catalog.provisioned_type("pd-extreme").unwrap();
    assert_eq!(
        catalog.planning_gaps(row, "us-central1"),
        ["the Persistent Disk type pd-fast its MiB/s follow"]
    );
}

#[test]
fn unknown_names_suggest_nearest() {
    let catalog = GcpCatalog::embedded().unwrap();
    let error = catalog
        .machine_type("n2-standard-7")
        .unwrap_err()
        .to_string();
    assert!(error.contains("n2-standard-"), "{error}");
    let error = catalog.disk_type("pd-balance").unwrap_err().to_string();
    assert!(error.contains("pd-balanced"), "{error}");
}

const HEAD: &str = "[table]\nid = \"x\"\ntitle = \"t\"\nsource = \"s\"\ndate = \"2026-01-01\"\n";

/// A bad row is refused with its file, line, section, row and key.
#[test]
fn bad_rows_name_file_line_and_key() {
    let text = format!(
        "{HEAD}\n[[machine_prices]]\nname = \"n2-standard-2\"\nregion = \"us-central1\"\nprice_per_hour = 0.1\n\n\
         [[machine_prices]]\nname = \"n2-standard-2\"\nregion = \"europe-west3\"\nprice_per_hour = -1\n"
    );
    let error = GcpCatalog::default()
        .add_text("p.toml", &text)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("p.toml: line 12") && error.contains("machine_prices[1] (n2-standard-2)"),
        "{error}"
    );
    assert!(error.contains("price_per_hour"), "{error}");
    let limits = format!(
        "{HEAD}\n[[vm_limits]]\nfamily = \"n2\"\ndisk_type = \"pd-ssd\"\nvcpu_min = 8\nvcpu_max = 4\n\
         read_iops = 1\nwrite_iops = 1\nread_mib_s = 1\nwrite_mib_s = 1\n"
    );
    let error = GcpCatalog::default()
        .add_text("l.toml", &limits)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("l.toml: line 7") && error.contains("vcpu_max"),
        "{error}"
    );
    let misspelt = format!(
        "{HEAD}\n[[disk_types]]\nname = \"pd-x\"\nread_iops_per_gib = 1\nwrite_iops_per_gib = 1\n\
         throughput_mib_s_per_gib = 1\nbaseline_iops = 0\nbaseline_mbs = 0\n"
    );
    let error = GcpCatalog::default()
        .add_text("d.toml", &misspelt)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("d.toml") && error.contains("line 13") && error.contains("baseline_mbs"),
        "{error}"
    );
    let provisioned = format!(
        "{HEAD}\n[[provisioned_types]]\nname = \"hyperdisk-balanced\"\nbills = [\"capacity\"]\nsource = \"s\"\n\n\
         [[provisioned_types]]\nname = \"hyperdisk-extreme\"\nbills = [\"capacity\", \"iops\"]\nsource = \"s\"\n\
         iops_min = 350000\niops_max = 128\n"
    );
    let error = GcpCatalog::default()
        .add_text("h.toml", &provisioned)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("h.toml: line 12")
            && error.contains("provisioned_types[1] (hyperdisk-extreme)")
            && error.contains("iops_max"),
        "{error}"
    );
    let price = format!(
        "{HEAD}\n[[disk_prices]]\nname = \"pd-extreme\"\nregion = \"us-central1\"\nprice_per_gib_month = 0.1\nprice_per_iops_month = -0.5\n"
    );
    let error = GcpCatalog::default()
        .add_text("q.toml", &price)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("q.toml: line 7") && error.contains("price_per_iops_month"),
        "{error}"
    );
    let undated = HEAD.replace("2026-01-01", "July 2026");
    let error = GcpCatalog::default()
        .add_text("t.toml", &undated)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("t.toml") && error.contains("date"),
        "{error}"
    );
}

/// A file's row replaces the built-in row of the same name and region.
#[test]
fn a_later_file_replaces_a_price() {
    let mut catalog = GcpCatalog::embedded().unwrap();
    let text = format!(
        "{}\n[[machine_prices]]\nname = \"n2-standard-8\"\nregion = \"us-central1\"\nprice_per_hour = 0.3\n",
        HEAD.replace("\"x\"", "\"mine\"")
    );
    catalog.add_text("mine.toml", &text).unwrap();
    let price = catalog
        .machine_price("n2-standard-8", "us-central1")
        .unwrap();
    assert_eq!((price.price_per_hour, price.table.as_str()), (0.3, "mine"));
    let error = catalog
        .add_text("again.toml", &text)
        .unwrap_err()
        .to_string();
    assert!(error.contains("already loaded"), "{error}");
}
