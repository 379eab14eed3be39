//! iofit-profile: turns what an application does today into the seed's requirements
//! checklist. It reads `iostat -x` (sysstat 7-12, text or `-o JSON`), `sar -d` / `sadf -d`
//! (and sadf's `-j`, `-x`, `-p` forms, see [`machine`]) and Windows PerfMon CSV
//! (typeperf, relog; English, German and Japanese counter names), or samples Linux's
//! /proc/diskstats, /proc/stat and /proc/meminfo live; then summarises each metric at
//! p50/p90/p99 per device or volume and sizes the numbers a design must meet
//! ([`iofit_model::Requirements`], the TOML `iofit plan --requirements` reads).
//!
//! ```
//! use iofit_profile::{parse_bytes, requirements, CaptureNote, ParseOptions, SizingOptions};
//!
//! let text = "Linux 6.1.0 (db01) \t11/22/2026 \t_x86_64_\t(2 CPU)
//!
//! Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   wrqm/s  %wrqm w_await wareq-sz  aqu-sz  %util
//! sdb              1.00      8.00     0.00   0.00    0.20     8.00    1.00      8.00     0.00   0.00    0.30     8.00    0.01   0.10
//!
//! Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   wrqm/s  %wrqm w_await wareq-sz  aqu-sz  %util
//! sdb            900.00   7200.00     0.00   0.00    1.00     8.00  100.00    800.00     0.00   0.00    2.00     8.00    1.20  60.00
//! ";
//! let capture = parse_bytes(text.as_bytes(), "iostat.txt", &ParseOptions::default()).unwrap();
//! // The first report (since boot) is skipped, and the capture says so.
//! assert!(matches!(capture.notes[0], CaptureNote::FirstReportSkipped { .. }));
//! let req = requirements(&capture, &SizingOptions::default()).unwrap();
//! let data = &req.volumes[0];
//! assert_eq!(data.sizing.iops.get(), 1300.0); // 1000 IOPS x comfort 1.3
//! assert_eq!(data.sizing.read_pct, 90.0);
//! assert_eq!(data.sizing.io_size_bytes, iofit_model::Bytes(8192));
//! ```

pub mod azure;
pub mod capture;
pub mod clock;
pub mod cloud_monitoring;
pub mod cloudwatch;
mod commands;
pub mod devices;
pub mod error;
pub mod example;
pub mod iostat;
mod lines;
pub mod machine;
pub mod notes;
pub mod num;
pub mod perfmon;
pub mod procfs;
mod sanity;
pub mod sar;
pub mod summarize;
pub mod throttling;
pub mod timeline;

pub use capture::{Capture, DeviceSeries, DiskSample, HostSample, Samples, Tool};
pub use devices::{left_out, left_out_notes, DeviceKind};
pub use error::ProfileError;
pub use iostat::IostatOptions;
pub use notes::{CaptureNote, EbsBalance};
pub use summarize::{partitions_left_out, requirements, SizingOptions, VolumeSpec};
pub use timeline::{volume_timeline, TimelinePoint};

use std::io::{BufReader, Read};
use std::path::Path;

/// Options that apply while reading a capture.
#[derive(Clone, Copy, Debug, Default)]
pub struct ParseOptions {
    /// Keep iostat's first report (for `iostat -y` captures).
    pub keep_first_report: bool,
}

/// The input formats, recognised from the content rather than the file name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Iostat,
    Sar,
    Sadf,
    PerfMon,
    /// `az monitor metrics list --output json` / the Metrics REST response.
    AzureJson,
    /// Azure metrics explorer's CSV download.
    AzureCsv,
    /// `aws cloudwatch get-metric-data --output json` (EBS volume and instance metrics).
    CloudWatchJson,
    /// Google Cloud Monitoring's timeSeries.list response (Compute Engine disk metrics).
    CloudMonitoringJson,
    /// `iostat -x -o JSON`.
    IostatJson,
    /// `sadf -j` (JSON).
    SadfJson,
    /// `sadf -x` (XML).
    SadfXml,
    /// `sadf -p` (one tab-separated line per value).
    SadfP,
}

/// Recognises the format from the first bytes of a file.
pub fn detect(head: &[u8], file: &str) -> Result<Format, ProfileError> {
    let utf16 = head.starts_with(&[0xFF, 0xFE]) || head.starts_with(&[0xFE, 0xFF]);
    if utf16 {
        return Ok(Format::PerfMon);
    }
    if head.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(ProfileError::content(
            file,
            "the file is empty",
            "give the output of `iostat -x -t INTERVAL COUNT`, `sar -d -p`, `sadf -d` or a \
             PerfMon CSV (typeperf -o FILE)",
        ));
    }
    if lines::looks_binary(head) {
        return Err(ProfileError::content(
            file,
            "the file is binary, not text",
            "give text output; a sar data file (saDD) must be exported first with \
             `sadf -d FILE -- -d -p > FILE.csv`, a PerfMon .blg with `relog FILE.blg -f csv -o FILE.csv`",
        ));
    }
    let body = head.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(head);
    let text = String::from_utf8_lossy(body);
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if first.trim_start().starts_with("\"(PDH-CSV") {
        return Ok(Format::PerfMon);
    }
    let opening = first.trim_start();
    if opening.starts_with('{') && text.contains("\"sysstat\"") {
        // iostat's disk records say "disk_device", sadf's "disk-device".
        return Ok(
            if text.contains("\"disk_device\"") || text.contains("\"avg-cpu\"") {
                Format::IostatJson
            } else {
                Format::SadfJson
            },
        );
    }
    if (opening.starts_with("<?xml") || opening.starts_with("<sysstat"))
        && text.contains("<sysstat")
    {
        return Ok(Format::SadfXml);
    }
    if text.contains("<svg") || opening.starts_with("<text ") {
        return Err(ProfileError::content(
            file,
            "this is `sadf -g` output: an SVG picture of the counters, not the counters",
            "export the disk report with `sadf -d SA_FILE -- -d -p` (or -j, -x, -p)",
        ));
    }
    // `sadf -r`: `# uptime_cs; ...` with `-O debug`, else `13:20:19 UTC; CPU; -1; %user; ...`.
    let raw_record = opening
        .split_once("; ")
        .is_some_and(|(stamp, rest)| clock::time_of_day_s(stamp).is_some() && rest.contains(';'))
        || opening.contains("; LINUX-RESTART");
    if opening.starts_with("# uptime_cs;") || raw_record {
        return Err(ProfileError::content(
            file,
            "this is `sadf -r` output: raw counters since boot, not rates per interval",
            "export the disk report as rates with `sadf -d SA_FILE -- -d -p` (or -j, -x, -p)",
        ));
    }
    // sadf -p: a file that begins at boot opens with a restart record (interval -1).
    let first_sadf_p_record = text
        .lines()
        .find(|l| !l.trim().is_empty() && l.split('\t').nth(1) != Some("-1"))
        .unwrap_or("");
    let restart: Vec<&str> = first.split('\t').collect();
    if restart.len() >= 4 && restart[1] == "-1" && clock::sadf_time_of_day_s(restart[2]).is_some() {
        return Ok(Format::SadfP);
    }
    let cells: Vec<&str> = first_sadf_p_record.split('\t').collect();
    if cells.len() == 6
        && num::parse_decimal(cells[1].as_bytes()).is_some()
        && clock::sadf_time_of_day_s(cells[2]).is_some()
    {
        return Ok(Format::SadfP);
    }
    if (opening.starts_with('{') || opening.starts_with('['))
        && text.contains(cloud_monitoring::METRIC_PREFIX)
    {
        return Ok(Format::CloudMonitoringJson);
    }
    if opening.starts_with('{') && text.contains("\"MetricDataResults\"") {
        return Ok(Format::CloudWatchJson);
    }
    if opening.starts_with('{') && text.contains("\"timeseries\"") {
        return Ok(Format::AzureJson);
    }
    let lower = text.to_lowercase();
    if [
        "disk read operations/sec",
        "disk read bytes/sec",
        "consumed percentage",
    ]
    .iter()
    .any(|name| lower.contains(name))
        && text.lines().take(20).any(|l| l.contains(','))
    {
        return Ok(Format::AzureCsv);
    }
    for line in text.lines() {
        // A line logger's stamp (`2016-04-08 01:06:59 `) may lead every line.
        let line = match lines::logger_prefix(line.as_bytes()) {
            Some((length, _)) => &line[length..],
            None => line,
        };
        let trimmed = line.trim_start();
        // `iostat -x --pretty`: sub-table headers end with the device column.
        if trimmed.contains("/s ") && trimmed.trim_end().ends_with(" Device") {
            return Ok(Format::Iostat);
        }
        if trimmed.starts_with("# hostname;") {
            return Ok(Format::Sadf);
        }
        if trimmed.starts_with("avg-cpu:") || trimmed.starts_with("Device") {
            return Ok(Format::Iostat);
        }
        let mut words = trimmed.split_whitespace();
        if let Some(word) = words.next() {
            if clock::time_of_day_s(word).is_some()
                && words.any(|w| matches!(w, "DEV" | "CPU" | "kbmemfree"))
            {
                return Ok(Format::Sar);
            }
        }
    }
    // The banner iostat and sar both print (`Linux 6.1.0 (host) 11/28/26 _x86_64_ (2 CPU)`)
    // with no disk table after it: another of their reports (sar -q, -I, -n ...).
    if first.starts_with("Linux ") && first.contains("CPU)") {
        return Err(ProfileError::content(
            file,
            "a sysstat report without a disk table (iostat -x's `Device` or sar -d's `DEV`)",
            "capture the disk report with `iostat -x -t INTERVAL COUNT` or \
             `sar -d -p INTERVAL COUNT`",
        ));
    }
    Err(ProfileError::content(
        file,
        format!(
            "not a recognised capture (first line: '{}')",
            error::excerpt(first)
        ),
        "give unedited output of `iostat -x -t INTERVAL COUNT`, `sar -d -p INTERVAL COUNT`, \
         `sadf -d SA_FILE -- -d -p` or a PerfMon CSV from typeperf/relog",
    ))
}

/// Parses a capture held in memory.
pub fn parse_bytes(
    bytes: &[u8],
    file: &str,
    options: &ParseOptions,
) -> Result<Capture, ProfileError> {
    let head = &bytes[..bytes.len().min(64 * 1024)];
    match detect(head, file)? {
        Format::Iostat => iostat::parse_iostat(
            bytes,
            file,
            IostatOptions {
                keep_first_report: options.keep_first_report,
            },
        ),
        Format::Sar => sar::parse_sar(bytes, file),
        Format::Sadf => sar::parse_sadf(bytes, file),
        Format::PerfMon => perfmon::parse_perfmon(bytes, file),
        Format::AzureJson => azure::parse_azure_json(bytes, file),
        Format::AzureCsv => azure::parse_azure_csv(&perfmon::decode(bytes), file),
        Format::CloudWatchJson => cloudwatch::parse_cloudwatch_json(bytes, file),
        Format::CloudMonitoringJson => cloud_monitoring::parse_cloud_monitoring_json(bytes, file),
        Format::IostatJson => machine::parse_iostat_json(bytes, file, options.keep_first_report),
        Format::SadfJson => machine::parse_sadf_json(bytes, file),
        Format::SadfXml => machine::parse_sadf_xml(&String::from_utf8_lossy(bytes), file),
        Format::SadfP => machine::parse_sadf_p(bytes, file),
    }
}

/// Parses a capture file, streaming line by line (iostat, sar, sadf) so a large file is never
/// held whole in memory; PerfMon CSV is decoded whole (it may be UTF-16). A large iostat file
/// is parsed on every core (see [`iostat::parse_iostat_parallel`]).
pub fn parse_file(path: &Path, options: &ParseOptions) -> Result<Capture, ProfileError> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    parse_file_on(path, options, threads)
}

/// [`parse_file`] on at most `threads` cores.
pub fn parse_file_on(
    path: &Path,
    options: &ParseOptions,
    threads: usize,
) -> Result<Capture, ProfileError> {
    let file = path.display().to_string();
    let io_error = |source| ProfileError::Io {
        file: file.clone(),
        source,
    };
    // A capture must be a regular file (not /dev/zero or a FIFO) of bounded size: the parsers
    // stream, but a file without line breaks is one endless line.
    let capture_cap = iofit_safefs::input::caps::CAPTURE_BYTES;
    let mut handle = iofit_safefs::input::open_input(
        path,
        capture_cap,
        "capture (iostat, sar, sadf or PerfMon)",
    )
    .map_err(|e| ProfileError::Content {
        file: file.clone(),
        message: e.detail(),
        fix: "name the capture file itself".to_string(),
    })?;
    let mut head = vec![0u8; 64 * 1024];
    let mut filled = 0;
    loop {
        let read = handle.read(&mut head[filled..]).map_err(io_error)?;
        if read == 0 {
            break;
        }
        filled += read;
        if filled == head.len() {
            break;
        }
    }
    head.truncate(filled);
    let format = detect(&head, &file)?;
    let iostat_options = IostatOptions {
        keep_first_report: options.keep_first_report,
    };
    if format == Format::Iostat && threads > 1 {
        let size = handle.metadata().map_err(io_error)?.len();
        if size >= iostat::PARALLEL_MIN_BYTES {
            return iostat::parse_iostat_parallel(path, &file, iostat_options, threads);
        }
    }
    let reader = BufReader::with_capacity(1 << 20, std::io::Cursor::new(head).chain(handle));
    match format {
        Format::Iostat => iostat::parse_iostat(
            reader,
            &file,
            IostatOptions {
                keep_first_report: options.keep_first_report,
            },
        ),
        Format::Sar => sar::parse_sar(reader, &file),
        Format::Sadf => sar::parse_sadf(reader, &file),
        Format::SadfP => machine::parse_sadf_p(reader, &file),
        Format::PerfMon
        | Format::AzureJson
        | Format::AzureCsv
        | Format::CloudWatchJson
        | Format::CloudMonitoringJson
        | Format::IostatJson
        | Format::SadfJson
        | Format::SadfXml => {
            let mut bytes = Vec::new();
            let mut reader = reader;
            reader.read_to_end(&mut bytes).map_err(io_error)?;
            parse_bytes(&bytes, &file, options)
        }
    }
}

/// Parses several files one after the other on this thread (for callers that run many
/// captures in parallel already, like a fleet) and appends them.
pub fn parse_files_serial(
    paths: &[&Path],
    options: &ParseOptions,
) -> Result<Capture, ProfileError> {
    parse_files_on(paths, options, 1)
}

/// Parses several files and appends them (normal, peak and off-hours captures together).
pub fn parse_files(paths: &[&Path], options: &ParseOptions) -> Result<Capture, ProfileError> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    parse_files_on(paths, options, threads)
}

fn parse_files_on(
    paths: &[&Path],
    options: &ParseOptions,
    threads: usize,
) -> Result<Capture, ProfileError> {
    let mut combined: Option<Capture> = None;
    for path in paths {
        let capture = parse_file_on(path, options, threads)?;
        match combined.as_mut() {
            Some(all) => all.append(capture),
            None => combined = Some(capture),
        }
    }
    combined.ok_or_else(|| {
        ProfileError::option(
            "no capture file given",
            "name an iostat, sar, sadf or PerfMon file, or use --live 60s",
        )
    })
}

#[cfg(test)]
mod robustness {
    use super::*;

    /// Every sample under tests/data, cut at many points and with bytes flipped, parses or
    /// fails with an error; it never panics.
    #[test]
    fn damaged_samples_never_panic() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
        let mut files = 0;
        for folder in ["iostat", "sar", "perfmon", "azure"] {
            for entry in std::fs::read_dir(root.join(folder)).unwrap() {
                let path = entry.unwrap().path();
                let bytes = std::fs::read(&path).unwrap();
                let bytes = &bytes[..bytes.len().min(20_000)];
                let name = path.display().to_string();
                for cut in (0..bytes.len()).step_by(97) {
                    let _ = parse_bytes(&bytes[..cut], &name, &ParseOptions::default())
                        .map(|c| requirements(&c, &SizingOptions::default()));
                }
                for (i, flip) in [b'x', b'\n', b'"', b';', 0xFF].iter().enumerate() {
                    let mut damaged = bytes.to_vec();
                    for at in (i * 13..damaged.len()).step_by(211) {
                        damaged[at] = *flip;
                    }
                    let _ = parse_bytes(&damaged, &name, &ParseOptions::default())
                        .map(|c| requirements(&c, &SizingOptions::default()));
                }
                files += 1;
            }
        }
        assert!(files >= 15, "{files} sample files");
    }
}
