//! `iofit predict --job FILE`: the seed's three fio job files predicted on the seed's DS14
//! design (10 x P30 uncached stripe for writes, 1 x P30 read-cached for reads).

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/fio")
        .join(name)
}

fn predict(file: &str, disks: &[&str], json: bool) -> (Option<i32>, String, String) {
    let mut cmd = Command::cargo_bin("iofit").unwrap();
    cmd.args(["predict", "--vm", "DS14", "--job"])
        .arg(example(file));
    for disk in disks {
        cmd.args(["--disk", disk]);
    }
    if json {
        cmd.arg("--json");
    }
    let out = cmd.output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn seed_job_files_predict_on_ds14() {
    // fiowrite: 4 writers x QD256, 8k random writes on /mnt/nocache.
    let (code, out, err) = predict("fiowrite.ini", &["10xP30:none"], true);
    assert_eq!(code, Some(0), "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let volume = &json["prediction"]["volumes"][0];
    assert_eq!(volume["read_pct"], 0.0);
    assert_eq!(volume["random_pct"], 100.0);
    assert_eq!(volume["write_io_size_bytes"], 8192);
    // 10 x P30 at 5,000 IOPS each bind at 50,000 IOPS.
    assert_eq!(volume["max_iops"], 50_000.0);

    let (code, out, err) = predict("fioread.ini", &["1xP30:readonly"], false);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("vol1 <- /mnt/readcache (reader1, reader2, reader3, reader4): 100% reads, 100% random, 8 KiB reads, 4 threads x QD 256"), "{out}");

    // fioreadwrite: readers and rate-limited writers on two places, one --disk each.
    let (code, out, err) = predict(
        "fioreadwrite.ini",
        &["1xP30:readonly", "10xP30:none"],
        false,
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("vol2 <- /mnt/nocache"), "{out}");
    assert!(
        out.contains("rate_iops x numjobs caps this volume at 50,000 IOPS"),
        "{out}"
    );

    // One --disk for two places is bad input that names both.
    let (code, _, err) = predict("fioreadwrite.ini", &["10xP30:none"], false);
    assert_eq!(code, Some(2));
    assert!(err.contains("/mnt/readcache, /mnt/nocache"), "{err}");
}
