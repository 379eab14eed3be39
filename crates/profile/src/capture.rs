//! The common shape every parser produces: per device a series of interval samples, per report
//! the host's CPU and memory, and the times of the reports.

use iofit_model::units::{BytesPerSecond, Iops, Millis, Seconds};

/// Which tool wrote a capture; decides which metrics are exact and which are estimates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    Iostat,
    Sar,
    Sadf,
    PerfMon,
    Live,
    AzureMonitor,
    /// AWS CloudWatch EBS metrics (`aws cloudwatch get-metric-data`).
    CloudWatch,
    /// Google Cloud Monitoring disk metrics (the timeSeries.list response).
    CloudMonitoring,
    /// `iostat -x -o JSON`: read as iostat's text (the same columns).
    IostatJson,
    /// `sadf -j`, `sadf -x`, `sadf -p`: read as sar's rows.
    SadfJson,
    SadfXml,
    SadfP,
}

impl Tool {
    pub fn name(self) -> &'static str {
        match self {
            Tool::Iostat => "iostat -x",
            Tool::Sar => "sar -d",
            Tool::Sadf => "sadf -d",
            Tool::PerfMon => "PerfMon CSV",
            Tool::Live => "live /proc/diskstats",
            Tool::AzureMonitor => "Azure Monitor metrics",
            Tool::CloudWatch => "CloudWatch EBS metrics",
            Tool::CloudMonitoring => "Cloud Monitoring disk metrics",
            Tool::IostatJson => "iostat -x -o JSON",
            Tool::SadfJson => "sadf -j",
            Tool::SadfXml => "sadf -x",
            Tool::SadfP => "sadf -p",
        }
    }
}

/// One device over one interval. Rates are per second; `NaN` marks a value the source lacks
/// (kept as NaN rather than `Option` so a sample stays small and the parse loop branch-free).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DiskSample {
    /// Index of the report (interval) this sample belongs to, shared by all devices.
    pub report: u32,
    pub read_iops: Iops,
    pub write_iops: Iops,
    pub read_bytes_s: BytesPerSecond,
    pub write_bytes_s: BytesPerSecond,
    /// Average time per read, ms (iostat r_await, PerfMon Avg. Disk sec/Read x 1000).
    pub read_latency_ms: Millis,
    pub write_latency_ms: Millis,
    /// Average time per IO when the source gives only one figure (old iostat's and sar's await).
    pub latency_ms: Millis,
    /// Average number of IOs outstanding (aqu-sz, Current Disk Queue Length).
    pub queue_depth: f64,
    /// Requests merged into adjacent ones per second (rrqm/s, wrqm/s): a sign of sequential IO.
    pub read_merges_per_s: f64,
    pub write_merges_per_s: f64,
}

impl DiskSample {
    pub const fn empty(report: u32) -> DiskSample {
        DiskSample {
            report,
            read_iops: Iops(f64::NAN),
            write_iops: Iops(f64::NAN),
            read_bytes_s: BytesPerSecond(f64::NAN),
            write_bytes_s: BytesPerSecond(f64::NAN),
            read_latency_ms: Millis(f64::NAN),
            write_latency_ms: Millis(f64::NAN),
            latency_ms: Millis(f64::NAN),
            queue_depth: f64::NAN,
            read_merges_per_s: f64::NAN,
            write_merges_per_s: f64::NAN,
        }
    }
}

/// All samples of one device (an iostat device, a sar DEV, a PerfMon disk instance).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeviceSeries {
    pub name: String,
    /// A PerfMon LogicalDisk volume (C:, E:) rather than a physical disk; by default only
    /// physical disks are profiled when both are present.
    pub logical: bool,
    pub samples: Samples,
}

/// A device's samples in report order. A file parsed on several cores leaves one chunk per
/// piece, and the pieces are joined by moving their chunks, not their samples: copying them
/// into one vector was a serial pass that touched a fifth of `iofit profile`'s memory on a
/// 100 MB capture (3,800 of its 24,000 page faults). Compares and prints as one list, so how
/// a series is chunked never shows.
#[derive(Clone, Default)]
pub struct Samples {
    /// Never an empty chunk but the last one.
    chunks: Vec<Vec<DiskSample>>,
}

impl Samples {
    pub fn new() -> Samples {
        Samples::default()
    }

    pub fn len(&self) -> usize {
        self.chunks.iter().map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.chunks.iter().all(Vec::is_empty)
    }

    pub fn iter(&self) -> impl Iterator<Item = &DiskSample> + '_ {
        self.chunks.iter().flatten()
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut DiskSample> + '_ {
        self.chunks.iter_mut().flatten()
    }

    pub fn push(&mut self, sample: DiskSample) {
        match self.chunks.last_mut() {
            Some(last) => last.push(sample),
            None => self.chunks.push(vec![sample]),
        }
    }

    pub fn last_mut(&mut self) -> Option<&mut DiskSample> {
        self.chunks.last_mut().and_then(|chunk| chunk.last_mut())
    }

    /// Room for `more` samples at the end.
    pub fn reserve(&mut self, more: usize) {
        if self.chunks.is_empty() {
            self.chunks.push(Vec::new());
        }
        self.chunks.last_mut().expect("a chunk").reserve(more);
    }

    pub fn retain(&mut self, mut keep: impl FnMut(&DiskSample) -> bool) {
        for chunk in &mut self.chunks {
            chunk.retain(&mut keep);
        }
        self.chunks.retain(|chunk| !chunk.is_empty());
    }

    /// Appends `other`'s samples by moving its chunks.
    pub fn append(&mut self, other: Samples) {
        self.chunks.retain(|chunk| !chunk.is_empty());
        self.chunks
            .extend(other.chunks.into_iter().filter(|chunk| !chunk.is_empty()));
    }

    /// The samples in one vector (a copy).
    pub fn to_vec(&self) -> Vec<DiskSample> {
        self.iter().copied().collect()
    }
}

impl From<Vec<DiskSample>> for Samples {
    fn from(samples: Vec<DiskSample>) -> Samples {
        Samples {
            chunks: vec![samples],
        }
    }
}

impl<'a> IntoIterator for &'a Samples {
    type Item = &'a DiskSample;
    type IntoIter = std::iter::Flatten<std::slice::Iter<'a, Vec<DiskSample>>>;

    fn into_iter(self) -> Self::IntoIter {
        self.chunks.iter().flatten()
    }
}

impl<'a> IntoIterator for &'a mut Samples {
    type Item = &'a mut DiskSample;
    type IntoIter = std::iter::Flatten<std::slice::IterMut<'a, Vec<DiskSample>>>;

    fn into_iter(self) -> Self::IntoIter {
        self.chunks.iter_mut().flatten()
    }
}

impl std::ops::Index<usize> for Samples {
    type Output = DiskSample;

    fn index(&self, mut index: usize) -> &DiskSample {
        for chunk in &self.chunks {
            match chunk.get(index) {
                Some(sample) => return sample,
                None => index -= chunk.len(),
            }
        }
        panic!("sample index out of range")
    }
}

impl PartialEq for Samples {
    fn eq(&self, other: &Samples) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl std::fmt::Debug for Samples {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Host-wide metrics of one report; `NaN` where the source lacks them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HostSample {
    pub cpu_pct: f64,
    pub memory_pct: f64,
}

impl Default for HostSample {
    fn default() -> Self {
        HostSample {
            cpu_pct: f64::NAN,
            memory_pct: f64::NAN,
        }
    }
}

/// One parsed capture (or several appended).
#[derive(Clone, Debug, PartialEq)]
pub struct Capture {
    /// File names and tool, for the requirements' `source`.
    pub source: Vec<String>,
    pub tool: Tool,
    /// Seconds since the capture's start for each report; NaN when the source has no times.
    pub report_time_s: Vec<f64>,
    /// Which file each report came from: windows never span two files.
    pub report_segment: Vec<u16>,
    pub host: Vec<HostSample>,
    pub devices: Vec<DeviceSeries>,
    /// Sampling interval the tool states (sadf's interval column, live's --interval), seconds.
    pub interval_s: Option<Seconds>,
    /// True when read/write IOPS were split from one total by byte share (sar's tps).
    pub read_split_estimated: bool,
    /// True when the source has IO counts but no byte counters (a PerfMon capture of Disk
    /// Reads/sec and Disk Writes/sec only): bytes are NaN, throughput and IO size unknown.
    pub bytes_missing: bool,
    /// What the parser did that the user should know (skipped reports, ...).
    pub notes: Vec<crate::notes::CaptureNote>,
    /// Azure Monitor captures: which limits the deployment hit, and how often.
    pub azure: Option<crate::throttling::Verdict>,
}

impl Capture {
    /// Adds a cloud metric series of one volume: the samples that have both read and write
    /// IOPS; when none of them has bytes, the capture says its bytes are missing. A volume
    /// without such a sample is left out.
    pub(crate) fn push_metric_device(&mut self, name: String, samples: Vec<DiskSample>) {
        let kept: Vec<DiskSample> = samples
            .into_iter()
            .filter(|s| !(s.read_iops.get().is_nan() || s.write_iops.get().is_nan()))
            .collect();
        if kept
            .iter()
            .all(|s| s.read_bytes_s.0.is_nan() && s.write_bytes_s.0.is_nan())
        {
            self.bytes_missing = true;
        }
        if !kept.is_empty() {
            self.devices.push(DeviceSeries {
                name,
                logical: false,
                samples: kept.into(),
            });
        }
    }

    pub fn new(source: String, tool: Tool) -> Capture {
        Capture {
            source: vec![source],
            tool,
            report_time_s: Vec::new(),
            report_segment: Vec::new(),
            host: Vec::new(),
            devices: Vec::new(),
            interval_s: None,
            read_split_estimated: false,
            bytes_missing: false,
            notes: Vec::new(),
            azure: None,
        }
    }

    pub fn reports(&self) -> usize {
        self.report_time_s.len()
    }

    /// Starts a new report and returns its index.
    pub(crate) fn push_report(&mut self, time_s: f64) -> u32 {
        self.report_time_s.push(time_s);
        self.report_segment.push(0);
        self.host.push(HostSample::default());
        (self.report_time_s.len() - 1) as u32
    }

    /// Index of the device named `name`, adding it if new. `hint` is the index the previous
    /// lookup of the same position returned: reports list devices in the same order, so the
    /// hint almost always hits and no hashing is needed.
    pub(crate) fn device_index(&mut self, name: &[u8], hint: usize) -> usize {
        if let Some(series) = self.devices.get(hint) {
            if series.name.as_bytes() == name {
                return hint;
            }
        }
        if let Some(found) = self.devices.iter().position(|d| d.name.as_bytes() == name) {
            return found;
        }
        self.devices.push(DeviceSeries {
            name: String::from_utf8_lossy(name).into_owned(),
            logical: false,
            samples: Samples::new(),
        });
        self.devices.len() - 1
    }

    /// Makes room for `reports` more reports, and a sample of each device known so far in
    /// each: growing the sample vectors by doubling copied them and touched twice the memory
    /// (a third of `iofit profile`'s page faults on a 100 MB capture). Only room is reserved:
    /// pages never written are never touched.
    pub(crate) fn reserve_reports(&mut self, reports: usize) {
        self.report_time_s.reserve(reports);
        self.report_segment.reserve(reports);
        self.host.reserve(reports);
        for series in &mut self.devices {
            series.samples.reserve(reports);
        }
    }

    /// Joins the next piece of the same file (parsed apart, see `iostat::parse_iostat_parallel`):
    /// its reports continue this one's, in the same segment, its times shifted by
    /// `time_offset_s`; devices of the same name are joined.
    pub(crate) fn join(&mut self, other: Capture, time_offset_s: f64) {
        let offset = self.reports() as u32;
        let segment = self.report_segment.last().copied().unwrap_or(0);
        self.report_segment
            .extend(std::iter::repeat_n(segment, other.reports()));
        self.report_time_s
            .extend(other.report_time_s.iter().map(|t| t + time_offset_s));
        self.host.extend(other.host);
        for mut series in other.devices {
            for sample in &mut series.samples {
                sample.report += offset;
            }
            match self.devices.iter_mut().find(|d| d.name == series.name) {
                Some(existing) => existing.samples.append(series.samples),
                None => self.devices.push(series),
            }
        }
        self.notes.extend(other.notes);
    }

    /// Appends another capture (another file) after this one: its reports get new indexes and
    /// its own segment; devices of the same name are joined.
    pub fn append(&mut self, other: Capture) {
        let offset = self.reports() as u32;
        let segment = self
            .report_segment
            .iter()
            .copied()
            .max()
            .map_or(0, |s| s + 1);
        let other_name = other.source.join(", ");
        self.source.extend(other.source);
        self.report_time_s.extend(other.report_time_s);
        self.report_segment
            .extend(other.report_segment.iter().map(|s| s + segment));
        self.host.extend(other.host);
        for mut series in other.devices {
            for sample in &mut series.samples {
                sample.report += offset;
            }
            match self.devices.iter_mut().find(|d| d.name == series.name) {
                Some(existing) => existing.samples.append(series.samples),
                None => self.devices.push(series),
            }
        }
        if self.tool != other.tool {
            self.notes.push(crate::notes::CaptureNote::CombinedTools {
                first: self.tool.name(),
                then: other.tool.name(),
            });
        }
        if let (Some(a), Some(b)) = (
            self.interval_s.map(|s| s.get()),
            other.interval_s.map(|s| s.get()),
        ) {
            if (a - b).abs() >= 1e-9 {
                // Azure's time grains (PT1M, PT5M) or sadf's intervals differ between files.
                self.notes.push(crate::notes::CaptureNote::MixedIntervals {
                    file: other_name,
                    interval_s: iofit_model::units::Seconds(b),
                    before_s: iofit_model::units::Seconds(a),
                });
            }
        }
        self.interval_s = match (self.interval_s, other.interval_s) {
            (Some(a), Some(b)) if (a - b).get().abs() < 1e-9 => Some(a),
            (Some(a), None) | (None, Some(a)) => Some(a),
            _ => None,
        };
        self.read_split_estimated |= other.read_split_estimated;
        self.bytes_missing |= other.bytes_missing;
        self.notes.extend(other.notes);
        if let Some(theirs) = other.azure {
            match self.azure.as_mut() {
                Some(ours) => ours.limits.extend(theirs.limits),
                None => self.azure = Some(theirs),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Chunked samples behave as the one vector they replace: the same pushes, appends,
    /// retains and edits give the same samples in the same order, however they are chunked.
    #[test]
    fn chunked_samples_equal_one_vector() {
        // Numbers in every field: NaN never equals itself, in a vector or not.
        let sample = |report: u32| {
            let v = f64::from(report);
            DiskSample {
                report,
                read_iops: iofit_model::Iops(v * 1.5),
                write_iops: iofit_model::Iops(v),
                read_bytes_s: iofit_model::BytesPerSecond(v * 4096.0),
                write_bytes_s: iofit_model::BytesPerSecond(v * 8192.0),
                read_latency_ms: Millis(0.5),
                write_latency_ms: Millis(1.5),
                latency_ms: Millis(1.0),
                queue_depth: v / 10.0,
                read_merges_per_s: 0.0,
                write_merges_per_s: 2.0,
            }
        };
        let mut plain: Vec<DiskSample> = Vec::new();
        let mut chunked = Samples::new();
        chunked.reserve(4);
        for piece in 0..5u32 {
            let mut next = Samples::new();
            for report in piece * 7..piece * 7 + piece {
                next.push(sample(report));
                plain.push(sample(report));
            }
            chunked.append(next);
        }
        chunked.push(sample(99));
        plain.push(sample(99));
        assert_eq!(chunked.len(), plain.len());
        assert_eq!(chunked.to_vec(), plain);
        for (index, expected) in plain.iter().enumerate() {
            assert_eq!(&chunked[index], expected);
        }
        chunked.retain(|s| s.report % 3 != 0);
        plain.retain(|s| s.report % 3 != 0);
        for s in &mut chunked {
            s.report += 10;
        }
        for s in &mut plain {
            s.report += 10;
        }
        chunked.last_mut().unwrap().write_iops = iofit_model::Iops(2.0);
        plain.last_mut().unwrap().write_iops = iofit_model::Iops(2.0);
        assert_eq!(chunked.to_vec(), plain);
        assert_eq!(chunked, Samples::from(plain.clone()));
        assert_eq!(format!("{chunked:?}"), format!("{plain:?}"));
        chunked.retain(|_| false);
        assert!(chunked.is_empty() && chunked.last_mut().is_none());
        assert_ne!(chunked, Samples::from(plain));
    }
}
