//! `iofit profile`: iostat / sar / sadf / PerfMon captures, or live /proc samples, into the
//! requirements checklist and the TOML `iofit plan --requirements` reads.

use super::print_json_or_text;
use iofit_procedure::profile_capture::{
    check_outputs, notes_of, read_captures, size_capture, ProfileOutcome, ProfileOutputs,
};
use iofit_procedure::profile_flags::{sizing_options, SizingFlags};
use iofit_procedure::profile_live::{nothing_sampled, profile_ending, LiveCapture, LiveSampling};
use iofit_profile::ParseOptions;

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Capture files: `iostat -x [-t] [-h] [-o JSON]`, `sar -d [-p]`, `sadf -d/-j/-x/-p`,
    /// PerfMon CSV (typeperf, relog), Azure Monitor metrics (`az monitor metrics list --output
    /// json`, metrics explorer CSV). The format is recognised from the content; several files
    /// are appended. Partitions and stacked volumes (dm/LVM, md) are left out in favour of
    /// their disks unless named with --device.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Sample /proc/diskstats, /proc/stat and /proc/meminfo for this long instead (e.g. 60s).
    #[arg(long, value_name = "DURATION", conflicts_with = "files")]
    pub live: Option<String>,
    /// Live: time between samples [default: 1s]. Files without time stamps: their interval,
    /// needed by --window (no default there).
    #[arg(long, value_name = "DURATION")]
    pub interval: Option<String>,
    /// A device to size (repeatable); pairs in order with --label.
    #[arg(long = "device", value_name = "NAME")]
    pub devices: Vec<String>,
    /// The label of the --device at the same position (data, log, ...) [default: the device's
    /// name].
    #[arg(long = "label", value_name = "LABEL")]
    pub labels: Vec<String>,
    /// A volume, by its label. LABEL=DEV,DEV makes one volume of several devices whose counters add
    /// up (repeatable).
    #[arg(long = "volume", value_name = "LABEL=DEV,DEV")]
    pub volumes: Vec<String>,
    /// Reduce samples to the peak of each window first (Azure Migrate style), e.g. 10m.
    #[arg(long, value_name = "DURATION")]
    pub window: Option<String>,
    /// The percentile sizing uses.
    #[arg(long, default_value_t = 95.0)]
    pub percentile: f64,
    /// Comfort factor on top of the percentile.
    #[arg(long, default_value_t = 1.3)]
    pub comfort: f64,
    /// Expected growth factor of the requirements (1.3 = 30 % more). Multiplies IOPS and MB/s.
    #[arg(long, default_value_t = 1.0)]
    pub growth: f64,
    /// Require today's latency (at the sizing percentile) of the new design; by default it is
    /// only reported, since local disks are often faster than any cloud disk.
    #[arg(long)]
    pub latency_target: bool,
    /// Keep iostat's first report (only for `iostat -y` captures; it is otherwise the
    /// average since boot).
    #[arg(long)]
    pub keep_first: bool,
    /// Write the result to FILE. The requirements TOML (what `iofit plan --requirements` reads).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also write a self-contained HTML report to FILE, the answer first. The checklist, then each
    /// volume's IOPS, MB/s, latency and queue depth over the capture with the sized figures drawn
    /// across. Written whole or not at all (`iofit plan --capture` adds the designs' limits).
    #[arg(long, value_name = "FILE", conflicts_with = "fleet_out")]
    pub report: Option<PathBuf>,
    /// Fleet mode: every FILE (directories are read for their files) is a server of its own,
    /// labelled by its name up to the first dot (or by --servers); writes DIR/SERVER.toml for
    /// each, on every core. A bad capture is reported and skipped (exit code 1).
    #[arg(long = "fleet-out", value_name = "DIR", conflicts_with_all = ["live", "output"])]
    pub fleet_out: Option<PathBuf>,
    /// With --fleet-out: a file of `FILE,SERVER` lines grouping several captures into one
    /// server (FILE is a file name or its stem).
    #[arg(long = "servers", value_name = "FILE", requires = "fleet_out")]
    pub servers: Option<PathBuf>,
    /// Allow replacing files iofit did not create. -o and --report when they exist; with
    /// --fleet-out, requirements files iofit did not write.
    #[arg(long = "allow-overwrite")]
    pub allow_overwrite: bool,
    /// Print the result as JSON on stdout. The requirements instead of the checklist (the same content as the
    /// TOML of -o).
    #[arg(long, conflicts_with = "fleet_out")]
    pub json: bool,
    /// Read live snapshots from this directory instead of /proc (tests).
    #[arg(long, hide = true, value_name = "DIR")]
    pub proc_root: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let options = sizing_options(&sizing_flags(&args))?;
    let parse = ParseOptions {
        keep_first_report: args.keep_first,
    };
    if let Some(out) = &args.fleet_out {
        return crate::cmd::fleet::profile(&iofit_procedure::fleet_profile::FleetProfileRequest {
            inputs: &args.files,
            mapping: args.servers.as_deref(),
            out,
            allow_overwrite: args.allow_overwrite,
            parse: &parse,
            sizing: &options,
            threads: crate::cmd::fleet::threads(),
        });
    }
    let outputs = ProfileOutputs {
        output: args.output.as_deref(),
        report: args.report.as_deref(),
        allow_overwrite: args.allow_overwrite,
        inputs: &args.files,
    };
    check_outputs(&outputs)?;
    // With --live, Ctrl-C ends the sampling early: `cut_short` says so in words.
    let LiveCapture { capture, cut_short } = match &args.live {
        None => LiveCapture::whole(read_captures(&args.files, &parse)?),
        Some(duration) => {
            let (interval, root) = (args.interval.as_deref(), args.proc_root.as_deref());
            match sample(&LiveSampling::from_flags(duration, interval, root)?)? {
                Some(live) => live,
                None => return Ok(super::end(nothing_sampled())),
            }
        }
    };
    for note in notes_of(&capture, &options) {
        eprintln!("iofit: note: {note}");
    }
    let ProfileOutcome { requirements, text } =
        size_capture(&capture, cut_short.as_deref(), &options, &outputs)?;
    let ending = profile_ending(cut_short.as_deref());
    super::say(&ending.notes);
    print_json_or_text(args.json, || &requirements, || text)?;
    Ok(ExitCode::from(ending.exit.code()))
}

/// `--live`: the sampling with Ctrl-C as its stop and a countdown on a terminal's stderr.
/// `None`: stopped before it had an interval to size.
fn sample(sampling: &LiveSampling) -> anyhow::Result<Option<LiveCapture>> {
    use std::io::IsTerminal;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    eprintln!("iofit: {}", sampling.start_line());
    let stop = Arc::new(AtomicBool::new(false));
    crate::stop::arm(Arc::clone(&stop), crate::stop::Armed::Unbounded);
    let terminal = std::io::stderr().is_terminal();
    let mut countdown = |left_s: u64, taken: u32| {
        if terminal {
            eprint!("\riofit: sampling, {left_s} s left, {taken} samples   ");
        }
    };
    let live = sampling.sample(&stop, &mut countdown)?;
    if terminal {
        eprintln!();
    }
    Ok(live)
}

/// The sizing flags as `procedure` reads them.
fn sizing_flags(args: &Args) -> SizingFlags<'_> {
    SizingFlags {
        devices: &args.devices,
        labels: &args.labels,
        volumes: &args.volumes,
        interval: args.interval.as_deref(),
        window: args.window.as_deref(),
        live: args.live.is_some(),
        percentile: args.percentile,
        comfort: args.comfort,
        growth: args.growth,
        latency_target: args.latency_target,
    }
}
