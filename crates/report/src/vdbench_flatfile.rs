//! vdbench's `flatfile.html`: the column file that vdbench parsers and exporters read
//! (vdbench2influxdb, parser_vdbench, vdbench's own `ParseFlat`). Comment lines start with
//! `*`; the header line starts with a blank and names the columns (`tod`, `timestamp`, then
//! vdbench's column names); each data line is the time, the date and one value per column,
//! `n/a` where iofit has no such value. Column names and order are vdbench 5.04's
//! (`Flat.define_column_headers`): [`RAW_COLUMNS`] for sd/wd runs, [`FS_COLUMNS`] for fsd/fwd.

use iofit_model::units::UnixMillis;

/// Columns of a raw (sd/wd) run, in vdbench's order.
pub const RAW_COLUMNS: &[&str] = &[
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
    "cpu_used",
    "cpu_user",
    "cpu_kernel",
    "cpu_wait",
    "cpu_idle",
];

/// Columns of a file system (fsd/fwd) run, in vdbench's order.
pub const FS_COLUMNS: &[&str] = &[
    "Run",
    "Interval",
    "reqrate",
    "rate",
    "resp",
    "MB/sec",
    "Read_rate",
    "Read_resp",
    "Write_rate",
    "Write_resp",
    "MB_read",
    "MB_write",
    "Xfersize",
    "Mkdir_rate",
    "Mkdir_resp",
    "Rmdir_rate",
    "Rmdir_resp",
    "Create_rate",
    "Create_resp",
    "Open_rate",
    "Open_resp",
    "Close_rate",
    "Close_resp",
    "Delete_rate",
    "Delete_resp",
    "Getattr_rate",
    "Getattr_resp",
    "Setattr_rate",
    "Setattr_resp",
    "Access_rate",
    "Access_resp",
    "Copy_rate",
    "Copy_resp",
    "Move_rate",
    "Move_resp",
    "compratio",
    "dedupratio",
    "cpu_used",
    "cpu_user",
    "cpu_kernel",
    "cpu_wait",
    "cpu_idle",
];

/// One value, formatted as vdbench formats its column types.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Int(i64),
    Num(f64),
    Text(String),
}

/// One line of the flatfile: when, and the values by column name (others are `n/a`).
#[derive(Clone, Debug, PartialEq)]
pub struct FlatRow {
    pub unix_ms: UnixMillis,
    pub cells: Vec<(&'static str, Cell)>,
}

/// The whole flatfile for `columns`.
pub fn render(columns: &[&str], rows: &[FlatRow]) -> String {
    let mut out = String::from(
        "*\n* 'flatfile.html' contains iofit generated information in vdbench's column by column ASCII format.\n* The first line after these comments names the columns; 'n/a' is data iofit does not have.\n*\n",
    );
    let mut header = format!("{:>12} {:>23} ", "tod", "timestamp");
    for c in columns {
        header.push_str(&format!("{c:>10} "));
    }
    out.push_str(header.trim_end());
    out.push('\n');
    for row in rows {
        let (time, date) = times(row.unix_ms.get());
        let mut line = format!("{time:>12} {date:>24}");
        for c in columns {
            let cell = row.cells.iter().find(|(name, _)| name == c).map(|(_, v)| v);
            let text = match cell {
                Some(Cell::Int(n)) => format!("{n:>10} "),
                Some(Cell::Num(x)) => format!("{x:>10.4} "),
                Some(Cell::Text(t)) => format!("{:>10} ", t.replace(char::is_whitespace, "_")),
                None => format!("{:>10} ", "n/a"),
            };
            line.push_str(&text);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// `HH:mm:ss.SSS` and `MM/dd/yyyy-HH:mm:ss-UTC` (vdbench prints the local zone's name).
fn times(unix_ms: u64) -> (String, String) {
    let secs = unix_ms / 1000;
    let ctime = crate::fio_json::ctime_utc(secs);
    // ctime: "Sun Nov 22 17:26:33 2026"
    let parts: Vec<&str> = ctime.split_whitespace().collect();
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|m| *m == parts[1]).unwrap_or(0) + 1;
    let day: u32 = parts[2].parse().unwrap_or(1);
    let hms = parts[3];
    (
        format!("{hms}.{:03}", unix_ms % 1000),
        format!("{month:02}/{day:02}/{}-{hms}-UTC", parts[4]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_vdbenchs_and_lines_line_up() {
        let rows = vec![FlatRow {
            unix_ms: UnixMillis(1_795_000_000_123),
            cells: vec![
                ("Run", Cell::Text("run1".into())),
                ("Interval", Cell::Int(1)),
                ("rate", Cell::Num(1234.5)),
                ("MB/sec", Cell::Num(4.82)),
            ],
        }];
        let text = render(RAW_COLUMNS, &rows);
        let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('*')).collect();
        // vdbench's ParseFlat finds the header by its leading blank.
        assert!(lines[0].starts_with(' '));
        let header: Vec<&str> = lines[0].split_whitespace().collect();
        assert_eq!(header[..2], ["tod", "timestamp"]);
        assert_eq!(&header[2..], RAW_COLUMNS);
        let data: Vec<&str> = lines[1].split_whitespace().collect();
        assert_eq!(data.len(), header.len());
        let at = |name: &str| data[header.iter().position(|h| *h == name).unwrap()];
        assert_eq!(at("Run"), "run1");
        assert_eq!(at("rate"), "1234.5000");
        assert_eq!(at("resp"), "n/a");
        assert!(at("timestamp").ends_with("-UTC"), "{}", at("timestamp"));
        assert!(FS_COLUMNS.contains(&"Create_rate") && FS_COLUMNS.contains(&"Move_resp"));
    }
}
