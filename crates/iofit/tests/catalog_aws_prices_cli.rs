//! `iofit catalog import --aws-prices FILE --region R -o FILE` on an EC2 offer file written
//! here in the Price List Bulk API's documented shape (not AWS's prices), then `plan --cloud aws
//! --region R --catalog FILE` priced from it; the flags' misuses exit 2 with the fix.
//! (`catalog fetch --cloud aws` against a local server is tested in procedure.)

use assert_cmd::Command;
use predicates::str::contains;

fn iofit() -> Command {
    Command::cargo_bin("iofit").unwrap()
}

/// m6i.large and m6i.xlarge (Linux) and gp3 in eu-central-1.
fn offer() -> String {
    let instance = |sku: &str, name: &str| {
        format!(
            "\"{sku}\":{{\"sku\":\"{sku}\",\"productFamily\":\"Compute Instance\",\"attributes\":{{\
             \"regionCode\":\"eu-central-1\",\"instanceType\":\"{name}\",\"operatingSystem\":\"Linux\",\
             \"licenseModel\":\"No License required\",\"tenancy\":\"Shared\",\"preInstalledSw\":\"NA\",\
             \"capacitystatus\":\"Used\",\"usagetype\":\"EUC1-BoxUsage:{name}\"}}}}"
        )
    };
    let ebs = |sku: &str, family: &str, usage: &str| {
        format!(
            "\"{sku}\":{{\"sku\":\"{sku}\",\"productFamily\":\"{family}\",\"attributes\":{{\
             \"regionCode\":\"eu-central-1\",\"volumeApiName\":\"gp3\",\"usagetype\":\"EUC1-EBS:{usage}\"}}}}"
        )
    };
    let term = |sku: &str, unit: &str, usd: &str| {
        format!(
            "\"{sku}\":{{\"{sku}.T\":{{\"priceDimensions\":{{\"{sku}.T.R\":{{\"unit\":\"{unit}\",\
             \"beginRange\":\"0\",\"endRange\":\"Inf\",\"pricePerUnit\":{{\"USD\":\"{usd}\"}}}}}}}}}}"
        )
    };
    format!(
        "{{\"offerCode\":\"AmazonEC2\",\"version\":\"20261120000000\",\"publicationDate\":\"2026-11-20T00:00:00Z\",\
         \"products\":{{{},{},{},{},{}}},\"terms\":{{\"OnDemand\":{{{},{},{},{},{}}}}}}}",
        instance("I1", "m6i.large"),
        instance("I2", "m6i.xlarge"),
        ebs("V1", "Storage", "VolumeUsage.gp3"),
        ebs("V2", "System Operation", "VolumeP-IOPS.gp3"),
        ebs("V3", "Provisioned Throughput", "VolumeP-Throughput.gp3"),
        term("I1", "Hrs", "0.1150000000"),
        term("I2", "Hrs", "0.2300000000"),
        term("V1", "GB-Mo", "0.0952000000"),
        term("V2", "IOPS-Mo", "0.0060000000"),
        term("V3", "GiBps-mo", "48.7424000000"),
    )
}

#[test]
fn an_imported_region_prices_plan_cloud_aws_there() {
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("index.json");
    std::fs::write(&saved, offer()).unwrap();
    let prices = dir.path().join("aws-eu.toml");
    iofit()
        .args(["catalog", "import", "--aws-prices"])
        .arg(&saved)
        .args(["--region", "eu-central-1", "-o"])
        .arg(&prices)
        .assert()
        .success()
        .stdout(contains(
            "AWS eu-central-1 on-demand prices: 2 instance price row(s)",
        ))
        .stdout(contains("volume types gp3"));
    iofit()
        .args([
            "plan",
            "--cloud",
            "aws",
            "--region",
            "eu-central-1",
            "--catalog",
        ])
        .arg(&prices)
        .args([
            "--iops",
            "3000",
            "--throughput-mb-s",
            "20",
            "--capacity-gib",
            "200",
        ])
        .assert()
        .success()
        .stdout(contains("m6i.large (2 vCPU, 8 GiB)  $"))
        .stdout(contains(
            "price basis: AWS eu-central-1, USD, on-demand, linux; month = 730 h\n",
        ));
}

#[test]
fn misused_price_flags_exit_2_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("index.json");
    std::fs::write(&saved, offer()).unwrap();
    let out = dir.path().join("o.toml");
    iofit()
        .args([
            "catalog",
            "fetch",
            "--cloud",
            "aws",
            "--region",
            "eu-central-1",
            "--aws-prices",
        ])
        .arg(&saved)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(2)
        .stderr(contains(
            "--aws-prices FILE belongs to `iofit catalog import`",
        ));
    iofit()
        .args(["catalog", "import", "--cloud", "aws", "--aws-prices"])
        .arg(&saved)
        .args(["--region", "eu-central-1", "-o"])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(contains("--cloud belongs to `iofit catalog fetch`"));
    iofit()
        .args(["catalog", "import", "--aws-prices"])
        .arg(&saved)
        .args(["--region", "westeurope", "-o"])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(contains("write AWS's region code, e.g. us-east-1"));
    iofit()
        .args([
            "plan",
            "--cloud",
            "aws",
            "--region",
            "westeurope",
            "--iops",
            "3000",
        ])
        .assert()
        .code(2)
        .stderr(contains("write AWS's region code"));
    iofit()
        .args([
            "catalog",
            "fetch",
            "--cloud",
            "gcp",
            "--region",
            "us-central1",
            "-o",
        ])
        .arg(&out)
        .env_remove("IOFIT_GCP_API_KEY")
        .assert()
        .code(2)
        .stderr(contains(
            "set IOFIT_GCP_API_KEY or give --api-key-file FILE",
        ));
    // -o onto the offer file itself: refused, the file unchanged.
    iofit()
        .args(["catalog", "import", "--allow-overwrite", "--aws-prices"])
        .arg(&saved)
        .args(["--region", "eu-central-1", "-o"])
        .arg(&saved)
        .assert()
        .code(2)
        .stderr(contains("which this run reads"));
    assert_eq!(std::fs::read_to_string(&saved).unwrap(), offer());
    assert!(!out.exists());
}
