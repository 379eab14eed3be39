//! vdbench's flatfile as the parsers of vdbench output read it: comment lines start with `*`,
//! the header line starts with a blank and names vdbench's documented columns (vdbench 5.04
//! user guide, "flatfile.html"; `Flat.define_column_headers`), and every data line has one
//! value per column. Checked on a raw run (null engine, fake clock) and a file system run
//! (real files in a temp dir), against the run's own JSON.

use iofit_procedure::execute::EngineExecutor;
use iofit_procedure::observer::Quiet;
use iofit_procedure::vdbench::{run_file, VdbenchOptions};
use std::collections::HashMap;
use std::time::Duration;

/// What vdbench's `ParseFlat` does: the first line starting with a blank is the header.
fn parse_flat(text: &str) -> Vec<HashMap<String, String>> {
    let mut lines = text.lines().filter(|l| !l.starts_with('*'));
    let header = lines.find(|l| l.starts_with(' ')).expect("a header line");
    let names: Vec<&str> = header.split_whitespace().collect();
    lines
        .map(|l| {
            let values: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(values.len(), names.len(), "{l}");
            names
                .iter()
                .zip(values)
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

#[test]
fn raw_run_rows_carry_vdbenchs_columns() {
    let dir = tempfile::tempdir().unwrap();
    let parm = dir.path().join("p.vdb");
    std::fs::write(
        &parm,
        format!(
            "sd=sd1,lun={}/f1,size=4m\nwd=w,sd=sd1,rdpct=75,xfersize=8k\nrd=r1,wd=w,iorate=max,elapsed=1,interval=1,threads=2\n",
            dir.path().display()
        ),
    )
    .unwrap();
    let flat = dir.path().join("flatfile.html");
    let options = VdbenchOptions {
        elapsed: Some(Duration::from_millis(300)),
        warmup: Some(Duration::ZERO),
        flatfile: Some(flat.clone()),
        ..Default::default()
    };
    let mut executor = EngineExecutor::null_with_fake_clock(10_000);
    let outcome = run_file(&parm, &options, &mut executor, &mut Quiet).unwrap();
    let rows = parse_flat(&std::fs::read_to_string(&flat).unwrap());
    let documented = [
        "tod",
        "timestamp",
        "Run",
        "Interval",
        "reqrate",
        "rate",
        "MB/sec",
        "bytes/io",
        "read%",
        "resp",
        "read_resp",
        "write_resp",
        "resp_max",
        "resp_std",
        "xfersize",
        "threads",
        "rdpct",
        "rhpct",
        "whpct",
        "seekpct",
        "lunsize",
        "version",
        "compratio",
        "dedupratio",
        "queue_depth",
    ];
    for name in documented {
        assert!(rows[0].contains_key(name), "column {name} missing");
    }
    let avg = rows.last().unwrap();
    assert!(avg["Interval"].starts_with("avg_"));
    assert_eq!(avg["Run"], "r1");
    assert_eq!(avg["xfersize"], "8192");
    assert_eq!(avg["threads"], "2");
    let rate: f64 = avg["rate"].parse().unwrap();
    let json_rate = outcome.doc.runs[0].avg_iops.get();
    assert!(
        (rate - json_rate).abs() <= json_rate * 1e-4 + 1e-3,
        "{rate} vs {json_rate}"
    );
    assert_eq!(avg["bytes/io"].parse::<f64>().unwrap(), 8192.0);
    // One row per interval of the run (none for the IOs draining after it), then the
    // average: elapsed 300 ms of 1 s intervals is a run of one interval.
    let intervals: Vec<&str> = rows.iter().map(|r| r["Interval"].as_str()).collect();
    assert_eq!(intervals, ["1", "avg_1-1"]);
}

#[test]
fn file_system_run_row_has_a_rate_per_operation() {
    let dir = tempfile::tempdir().unwrap();
    let parm = dir.path().join("fs.vdb");
    std::fs::write(
        &parm,
        format!(
            "fsd=fsd1,anchor={}/a,depth=1,width=2,files=5,size=4k\nfwd=g,fsd=fsd1,operation=getattr\nrd=r1,fwd=g,fwdrate=max,format=yes,elapsed=1,interval=1\n",
            dir.path().display()
        ),
    )
    .unwrap();
    let flat = dir.path().join("flatfile.html");
    let options = VdbenchOptions {
        elapsed: Some(Duration::from_millis(300)),
        flatfile: Some(flat.clone()),
        ..Default::default()
    };
    let mut executor = EngineExecutor::null_with_fake_clock(10_000);
    let outcome = run_file(&parm, &options, &mut executor, &mut Quiet).unwrap();
    let rows = parse_flat(&std::fs::read_to_string(&flat).unwrap());
    let row = &rows[0];
    for name in [
        "Getattr_rate",
        "Getattr_resp",
        "Create_rate",
        "MB_read",
        "Xfersize",
    ] {
        assert!(row.contains_key(name), "column {name} missing");
    }
    let run = outcome.doc.fs_runs[0].run.as_ref().unwrap();
    let getattr = run
        .operations
        .iter()
        .find(|l| l.operation == "getattr")
        .unwrap();
    let rate: f64 = row["Getattr_rate"].parse().unwrap();
    assert!((rate - getattr.ops_per_s).abs() <= getattr.ops_per_s * 1e-4 + 1e-3);
    assert_eq!(row["Create_rate"], "0.0000");
}
