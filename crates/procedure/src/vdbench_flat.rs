//! Rows of vdbench's flatfile (`report::vdbench_flatfile`) from iofit's runs: one per
//! reporting interval and one `avg` row per raw run, one total row per file system run.

use iofit_fswork::interval::{CpuPct, Interval};
use iofit_jobfile::vdbench::{FileOp, Run, Seek, XferSize};
use iofit_model::units::UnixMillis;
use iofit_report::vdbench_flatfile::{Cell, FlatRow};
use iofit_report::vdbench_summary::{run_intervals, AvgLine, RunHeader, SummaryLine};
use iofit_stats::JobResult;

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// The requested settings of a raw run (the same on every row of it).
fn requested(run: &Run, rate: Option<f64>) -> Vec<(&'static str, Cell)> {
    let first = run.workloads.first();
    let same = |f: &dyn Fn(&iofit_jobfile::vdbench::RunWorkload) -> String| -> Cell {
        let values: Vec<String> = run.workloads.iter().map(f).collect();
        match values.first() {
            Some(v) if values.iter().all(|x| x == v) => Cell::Text(v.clone()),
            _ => Cell::Text("n/a".into()),
        }
    };
    let lun_bytes: u64 = run
        .workloads
        .iter()
        .map(|w| w.sd.size.map(|s| s.as_u64()).unwrap_or(0))
        .sum();
    vec![
        ("Run", Cell::Text(run.rd.clone())),
        (
            "reqrate",
            match rate {
                Some(r) => Cell::Num(r),
                None => Cell::Text("max".into()),
            },
        ),
        (
            "xfersize",
            same(&|w| match &w.xfersize {
                XferSize::Fixed(s) => s.as_u64().to_string(),
                XferSize::Distribution(_) => "dist".into(),
            }),
        ),
        ("threads", Cell::Int(i64::from(run.threads))),
        ("rdpct", same(&|w| format!("{}", w.rdpct))),
        ("rhpct", same(&|w| format!("{}", w.rhpct))),
        ("whpct", same(&|w| format!("{}", w.whpct))),
        (
            "seekpct",
            same(&|w| match w.seek {
                Seek::Eof => "eof".into(),
                Seek::RandomPct(p) => format!("{p}"),
            }),
        ),
        ("lunsize", Cell::Num(lun_bytes as f64 / (1u64 << 30) as f64)),
        (
            "version",
            Cell::Text(format!("iofit-{}", env!("CARGO_PKG_VERSION"))),
        ),
    ]
    .into_iter()
    .filter(|_| first.is_some())
    .collect()
}

fn measured(line: &SummaryLine) -> Vec<(&'static str, Cell)> {
    let mut cells = vec![
        ("rate", Cell::Num(line.iops.get())),
        ("MB/sec", Cell::Num(line.mib_per_s)),
        ("bytes/io", Cell::Num(line.bytes_per_io)),
        ("read%", Cell::Num(line.read_pct)),
        ("resp", Cell::Num(line.resp_ms.get())),
        ("read_resp", Cell::Num(line.read_resp_ms.get())),
        ("write_resp", Cell::Num(line.write_resp_ms.get())),
        ("resp_max", Cell::Num(line.resp_max_ms.get())),
        ("resp_std", Cell::Num(line.resp_stddev_ms.get())),
        ("queue_depth", Cell::Num(line.queue_depth)),
    ];
    if let Some(cpu) = line.cpu {
        cells.extend([
            ("cpu_used", Cell::Num(cpu.total_pct)),
            ("cpu_user", Cell::Num(cpu.total_pct - cpu.sys_pct)),
            ("cpu_kernel", Cell::Num(cpu.sys_pct)),
        ]);
    }
    cells
}

/// One row per interval of the run (warm-up ones included, as vdbench writes them), then the
/// `avg_FIRST-LAST` row: the same numbers as the summary's lines.
pub fn raw_rows(
    run: &Run,
    rate: Option<f64>,
    job: &JobResult,
    header: &RunHeader,
    avg: &AvgLine,
) -> Vec<FlatRow> {
    let base = requested(run, rate);
    let start_ms = UnixMillis((header.start_unix_s.get() * 1000.0) as u64);
    let series = run_intervals(header, &job.series);
    let mut rows: Vec<FlatRow> = series
        .iter()
        .enumerate()
        .map(|(i, sample)| {
            let mut cells = base.clone();
            cells.push(("Interval", Cell::Int(i as i64 + 1)));
            cells.extend(measured(&SummaryLine::from_interval(sample)));
            FlatRow {
                unix_ms: UnixMillis(start_ms.get() + (sample.start_ms + sample.interval_ms).get()),
                cells,
            }
        })
        .collect();
    let mut cells = base;
    cells.push(("Interval", Cell::Text(avg.label())));
    cells.extend(measured(&avg.line));
    rows.push(FlatRow {
        unix_ms: rows.last().map_or(start_ms, |r| r.unix_ms),
        cells,
    });
    rows
}

/// One operation over a row's time: operations, rate, mean response (ms), bytes.
type OpCells = (u64, f64, f64, u64);

/// The total row of a file system run: rate and response per operation.
pub fn fs_row(
    rd: &str,
    reqrate: Cell,
    lines: &[iofit_fswork::report::OpLine],
    seconds: f64,
) -> FlatRow {
    let op = |name: &str| {
        lines
            .iter()
            .find(|l| l.operation == name)
            .map(|l| (l.ops, l.ops_per_s, l.resp_mean_ms.get(), l.bytes.as_u64()))
    };
    let total = op("total").map(|t| (t.1, t.2));
    fs_cells(rd, "avg".into(), reqrate, &op, total, seconds, None)
}

/// One interval's row of a file system run (`Interval` = its number, warmup ones too, as
/// vdbench writes them).
pub fn fs_interval_row(rd: &str, reqrate: Cell, interval: &Interval) -> FlatRow {
    let c = &interval.counts;
    let seconds = interval.seconds.get().max(1e-9);
    let op = |name: &str| {
        let i = FileOp::ALL.iter().position(|o| o.name() == name)?;
        Some((
            c.count[i],
            c.count[i] as f64 / seconds,
            c.resp_ms(i),
            c.bytes[i],
        ))
    };
    let total = Some((c.total_ops() as f64 / seconds, c.total_resp_ms()));
    let mut row = fs_cells(
        rd,
        interval.index.to_string(),
        reqrate,
        &op,
        total,
        seconds,
        interval.cpu,
    );
    row.unix_ms = interval.end_unix_ms;
    row
}

fn fs_cells(
    rd: &str,
    label: String,
    reqrate: Cell,
    op: &dyn Fn(&str) -> Option<OpCells>,
    total: Option<(f64, f64)>,
    seconds: f64,
    cpu: Option<CpuPct>,
) -> FlatRow {
    let mut cells = vec![
        ("Run", Cell::Text(rd.to_string())),
        ("Interval", Cell::Text(label)),
        ("reqrate", reqrate),
    ];
    const NAMES: [(&str, &str, &str); 13] = [
        ("read", "Read_rate", "Read_resp"),
        ("write", "Write_rate", "Write_resp"),
        ("mkdir", "Mkdir_rate", "Mkdir_resp"),
        ("rmdir", "Rmdir_rate", "Rmdir_resp"),
        ("create", "Create_rate", "Create_resp"),
        ("open", "Open_rate", "Open_resp"),
        ("close", "Close_rate", "Close_resp"),
        ("delete", "Delete_rate", "Delete_resp"),
        ("getattr", "Getattr_rate", "Getattr_resp"),
        ("setattr", "Setattr_rate", "Setattr_resp"),
        ("access", "Access_rate", "Access_resp"),
        ("copy", "Copy_rate", "Copy_resp"),
        ("move", "Move_rate", "Move_resp"),
    ];
    for (name, rate, resp) in NAMES {
        let (_, r, t, _) = op(name).unwrap_or_default();
        cells.push((rate, Cell::Num(r)));
        cells.push((resp, Cell::Num(t)));
    }
    let mib = |name: &str| {
        op(name)
            .map(|l| l.3 as f64 / 1_048_576.0 / seconds)
            .unwrap_or(0.0)
    };
    let (read, write) = (
        op("read").unwrap_or_default(),
        op("write").unwrap_or_default(),
    );
    if let Some((rate, resp)) = total {
        cells.push(("rate", Cell::Num(rate)));
        cells.push(("resp", Cell::Num(resp)));
    }
    cells.push(("MB/sec", Cell::Num(mib("read") + mib("write"))));
    cells.push(("MB_read", Cell::Num(mib("read"))));
    cells.push(("MB_write", Cell::Num(mib("write"))));
    if let Some(mean) = (read.3 + write.3).checked_div(read.0 + write.0) {
        cells.push(("Xfersize", Cell::Int(mean as i64)));
    }
    if let Some(cpu) = cpu {
        cells.push(("cpu_used", Cell::Num(cpu.total_pct)));
        cells.push(("cpu_kernel", Cell::Num(cpu.sys_pct)));
        cells.push(("cpu_user", Cell::Num(cpu.total_pct - cpu.sys_pct)));
    }
    FlatRow {
        unix_ms: UnixMillis(now_ms()),
        cells,
    }
}
