//! vdbench's `iorate=curve` procedure on the null engine with a fake clock: the max run, then
//! each point as a share of the measured max, the JSON after every run, and the knee.

use iofit_procedure::execute::EngineExecutor;
use iofit_procedure::observer::{Event, Observer};
use iofit_procedure::vdbench::{run_file, VdbenchOptions};
use std::time::Duration;

#[derive(Default)]
struct Events(Vec<Event>);

impl Observer for Events {
    fn event(&mut self, event: &Event) {
        self.0.push(event.clone());
    }
}

fn curve_file(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("curve.vdb");
    std::fs::write(
        &path,
        format!(
            "sd=sd1,lun={}/f1,size=4m\nwd=w,sd=sd1,rdpct=100,xfersize=4k\nrd=c,wd=w,iorate=curve,curve=(25,50,75),elapsed=1,interval=1,threads=2\n",
            dir.display()
        ),
    )
    .unwrap();
    path
}

#[test]
fn curve_points_are_shares_of_the_measured_max() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("curve.json");
    let options = VdbenchOptions {
        elapsed: Some(Duration::from_millis(200)),
        warmup: Some(Duration::ZERO),
        json_output: Some(json.clone()),
        ..Default::default()
    };
    let mut events = Events::default();
    let mut executor = EngineExecutor::null_with_fake_clock(10_000);
    let outcome = run_file(
        &curve_file(dir.path()),
        &options,
        &mut executor,
        &mut events,
    )
    .unwrap();
    assert!(!outcome.failed && !outcome.interrupted);
    let runs = &outcome.doc.runs;
    assert_eq!(runs.len(), 4, "max, then 25%, 50% and 75% of it");
    let max = outcome.doc.curves[0].max_iops.get();
    assert!(max > 0.0);
    for (run, pct) in runs[1..].iter().zip([25.0, 50.0, 75.0]) {
        let target = run.target_iops.unwrap().get();
        let avg_iops = run.avg_iops.get();
        assert!((target - max * pct / 100.0).abs() < 1e-6);
        // On the fake clock the rate limit is exact: within 2% of the target, never above 1%.
        assert!(
            avg_iops <= target * 1.01 && avg_iops >= target * 0.98,
            "{pct}%: {avg_iops} against {target}"
        );
    }
    // One summary per run, the curve table, then the totals of every run, in that order.
    assert_eq!(events.0.len(), 6);
    assert!(matches!(events.0[4], Event::VdbenchCurve { .. }));
    assert!(matches!(&events.0[5], Event::VdbenchRun { rd, .. } if rd == "totals"));
    // The JSON on disk holds every run and the curve.
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["runs"].as_array().unwrap().len(), 4);
    assert_eq!(doc["curves"][0]["points"].as_array().unwrap().len(), 4);
    // The same file on the same fake clock measures the same max.
    let again = run_file(
        &curve_file(dir.path()),
        &options,
        &mut EngineExecutor::null_with_fake_clock(10_000),
        &mut Events::default(),
    )
    .unwrap();
    assert_eq!(again.doc.curves[0].max_iops.get(), max);
    // The null engine touched no file: only the parameter file and the JSON are there.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}
