//! `iofit emulate`: run a command with its IO throttled to a design's limits by the kernel.

use super::shared::CatalogArgs;
use crate::exit::bad_input;
use iofit_emulate::journal::{Journal, STATE_DIR};
use iofit_emulate::session::{self, EmulateOptions, Observer, Outcome, Second};
use iofit_emulate::volume::PreparedVolume;
use iofit_emulate::{resolve, DesignLimits, EmulateError, ScratchOptions, VolumeSource};
use iofit_report::emulate_text;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:\n  \
  iofit emulate --vm Standard_D4s_v5 --disk data=1xP10 --mount-root /mnt/rehearsal -- \\\n      \
  iofit run --name=r --rw=randread --bs=4k --direct=1 --size=64m --runtime=10 --time_based --directory={data}\n  \
  iofit emulate --vm Standard_DS13 --disk data=2xP30 --map data=/dev/loop3 -- pgbench -c 16 -T 60\n  \
  iofit emulate --cleanup\n\n\
Each volume's path is given to the command as {LABEL} in its arguments and as the environment \
variable IOFIT_VOLUME_LABEL. Emulate writes nothing to stdout: its limits, per-second lines and \
summary go to stderr (--json FILE, --report FILE for files). Exit codes: the command's own exit \
code (1 when it was killed by a signal); 130 interrupted; 2 bad input; 1 emulation failed (then \
the summary says why).")]
pub struct Args {
    /// The VM size, e.g. Standard_DS14 (any case; the Standard_ prefix may be left out). Its
    /// uncached IOPS and MB/s are enforced across all volumes together.
    #[arg(long, required_unless_present_any = ["cleanup", "plan"], conflicts_with = "plan")]
    pub vm: Option<String>,
    /// Take the design from `iofit plan --json` output (with --design N) instead of --vm/--disk.
    #[arg(long, value_name = "PLAN_JSON", requires = "design")]
    pub plan: Option<PathBuf>,
    /// Which design of --plan: 1 is the cheapest.
    #[arg(long, value_name = "N")]
    pub design: Option<usize>,
    /// A volume: [LABEL=]COUNTxSKU[:CACHING], e.g. data=2xP30:none; Premium SSD v2 and Ultra add
    /// what is bought per disk (,size_gib=N,iops=N,mb_s=N). Repeat per volume.
    #[arg(long = "disk", value_name = "SPEC")]
    pub disks: Vec<String>,
    /// Use an existing block device for a volume (never formatted): LABEL=/dev/DEVICE.
    #[arg(long = "map", value_name = "LABEL=DEVICE")]
    pub maps: Vec<String>,
    /// Volumes without --map become scratch volumes (loop device on a sparse image, ext4)
    /// mounted at MOUNT_ROOT/LABEL, removed afterwards.
    #[arg(long, value_name = "DIR")]
    pub mount_root: Option<PathBuf>,
    /// Directory for scratch images (default: /var/tmp).
    #[arg(long, value_name = "DIR", default_value = "/var/tmp")]
    pub image_dir: PathBuf,
    /// Size of each scratch volume (k/m/g = 1024 based).
    #[arg(long, default_value = "1g")]
    pub scratch_size: String,
    /// Multiply every limit by this factor (e.g. 0.1 when this machine's disk is slower than the
    /// design).
    #[arg(long = "limit-scale", alias = "scale", default_value_t = 1.0)]
    pub scale: f64,
    /// Shorten the 30-minute credit-burst buckets by this factor (60: 30 s of burst).
    #[arg(long, default_value_t = 1.0)]
    pub burst_time_scale: f64,
    /// Percent of its credits every burst bucket (disks' and the VM's) starts with: Azure starts
    /// full (100); 0 rehearses the sustained state after a long burst, as `predict` gives it.
    #[arg(long, value_name = "PCT", default_value_t = 100.0)]
    pub start_credits: f64,
    /// No credit bursting: the sustained limits only (the disks' and the VM's). Enforces them as
    /// `predict --no-burst` shows them.
    #[arg(long)]
    pub no_burst: bool,
    /// Control interval in milliseconds (how often shared limits are divided again).
    #[arg(long, default_value_t = 100)]
    pub tick_ms: u64,
    /// No progress on stderr. No per-second lines while the command runs.
    #[arg(long)]
    pub quiet: bool,
    /// Write the result to FILE. The outcome as JSON: every second (per volume IOPS and MB/s
    /// against the caps in force) and the summary. Emulate never writes to stdout: the command's
    /// output is left as it is.
    #[arg(long, value_name = "FILE", alias = "json")]
    pub output: Option<PathBuf>,
    /// Also write a self-contained HTML report to FILE, the answer first. The limits table and, per
    /// volume and for the VM, the IOPS and MB/s of every second drawn beside the cap in force.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Allow replacing files iofit did not create. --output and --report when they exist.
    #[arg(long = "allow-overwrite")]
    pub allow_overwrite: bool,
    /// Remove what earlier emulations left behind when they were killed (cgroups, mounts,
    /// loop devices, images), then exit.
    #[arg(long)]
    pub cleanup: bool,
    /// The cloud: azure, aws, gcp, or all (plan only: the cheapest design of each side by
    /// side) [default: azure].
    #[arg(long, default_value = "azure")]
    pub cloud: String,
    #[command(flatten)]
    pub catalog: CatalogArgs,
    /// The command to run under the limits, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.cleanup {
        return cleanup();
    }
    let options = options(&args)?;
    // Checked before anything is made: a bad --report or --json must not cost a rehearsal.
    if let Some(path) = &args.report {
        super::files::check_output_allowing(path, &[], "--report", args.allow_overwrite)?;
    }
    if let Some(path) = &args.output {
        super::files::check_output_allowing(path, &[], "--output", args.allow_overwrite)?;
    }
    let stop = Arc::new(AtomicBool::new(false));
    // Every press only asks to stop: the command is ended and everything made is removed.
    crate::stop::arm(stop.clone(), crate::stop::Armed::Cleanup);
    let mut printer = Printer {
        quiet: args.quiet,
        labels: options
            .limits
            .volumes
            .iter()
            .map(|v| v.label.clone())
            .collect(),
    };
    // Everything emulate says goes to stderr: the command's stdout is its own (a fio JSON
    // document piped to a file stays a JSON document).
    eprint!("{}", emulate_text::header(&options.limits));
    let outcome = session::run(&options, &mut printer, &stop).map_err(emulate_error)?;
    if let Some(path) = &args.report {
        iofit_procedure::plan::write_report(
            path,
            iofit_report::ReportFormat::Html,
            &emulate_text::html(&options.limits, &outcome),
        )?;
    }
    if let Some(path) = &args.output {
        let text = format!("{}\n", serde_json::to_string_pretty(&outcome)?);
        super::files::write_output(path, text.as_bytes())?;
    }
    eprint!("{}", emulate_text::summary(&outcome));
    Ok(exit_code(&outcome))
}

/// An AWS design's limits (`--cloud aws`): the instance's EBS baseline shared, its maximum as
/// the 30-minute window, each volume's EBS caps.
fn aws_limits(args: &Args) -> anyhow::Result<DesignLimits> {
    if args.plan.is_some() {
        return Err(bad_input(
            "--plan reads Azure plans; with --cloud aws give --vm INSTANCE and --disk SPEC (the `check:` line of `plan --cloud aws`)",
        ));
    }
    let catalog = super::catalog_aws::aws_catalog(&args.catalog.files)?;
    let instance = catalog
        .instance(args.vm.as_deref().unwrap_or_default())
        .map_err(bad_input)?;
    let rules_of = |name: &str| catalog.volume_type(name).ok().cloned();
    let mut volumes = Vec::new();
    for (index, text) in args.disks.iter().enumerate() {
        volumes.push(
            iofit_predict::aws::parse_volume_spec(text, index, &rules_of).map_err(bad_input)?,
        );
    }
    iofit_emulate::aws::aws_design_limits(instance, &volumes, args.scale).map_err(emulate_error)
}

fn options(args: &Args) -> anyhow::Result<EmulateOptions> {
    let aws = match args.cloud.trim().to_ascii_lowercase().as_str() {
        "azure" => false,
        "aws" => true,
        other => {
            return Err(bad_input(format!(
            "--cloud {other}: emulate knows azure and aws (Google Cloud is not in the catalog yet)"
        )))
        }
    };
    if aws && args.disks.is_empty() {
        return Err(bad_input(
            "give at least one --disk [LABEL=]COUNTxTYPE[,size_gib=N][,iops=N][,mib_s=N]",
        ));
    }
    let mut limits = if aws {
        aws_limits(args)?
    } else {
        azure_limits(args)?
    };
    if args.no_burst {
        limits = limits.sustained();
    }
    finish_options(args, limits)
}

/// An Azure design's limits, from --vm/--disk or --plan/--design.
fn azure_limits(args: &Args) -> anyhow::Result<DesignLimits> {
    let catalog = args.catalog.load()?;
    let (vm_name, disks) = match (&args.plan, args.design) {
        (Some(path), Some(number)) => {
            let text = super::files::read_input(path, 64 << 20, "plan JSON")?;
            iofit_procedure::design_input::design_from_plan_json(&text, path, number)?
        }
        _ => (args.vm.clone().unwrap_or_default(), args.disks.clone()),
    };
    if disks.is_empty() {
        return Err(bad_input(
            "give at least one --disk [LABEL=]COUNTxSKU[:CACHING]",
        ));
    }
    let (vm, volumes) =
        resolve(&catalog, &args.catalog.edition, &vm_name, &disks).map_err(emulate_error)?;
    DesignLimits::from_design(&vm, &volumes, args.scale).map_err(emulate_error)
}

fn finish_options(args: &Args, limits: DesignLimits) -> anyhow::Result<EmulateOptions> {
    let sources = sources(args, &limits)?;
    let needs_scratch = sources.contains(&VolumeSource::Scratch);
    let mount_root = match (&args.mount_root, needs_scratch) {
        (Some(root), _) => root.clone(),
        (None, false) => PathBuf::from("/nonexistent"),
        (None, true) => {
            return Err(bad_input(
                "volumes without --map are scratch volumes: give --mount-root DIR (each is \
                 mounted at DIR/LABEL), or --map LABEL=/dev/DEVICE for each",
            ))
        }
    };
    if !(1..=10_000).contains(&args.tick_ms) {
        return Err(bad_input("--tick-ms must be within 1..=10000"));
    }
    if !(args.burst_time_scale.is_finite() && args.burst_time_scale > 0.0) {
        return Err(bad_input("--burst-time-scale must be a positive number"));
    }
    if !(0.0..=100.0).contains(&args.start_credits) {
        return Err(bad_input(
            "--start-credits must be a percent within 0..=100",
        ));
    }
    if args.command.is_empty() {
        return Err(bad_input(
            "no command: put it after `--`, e.g. iofit emulate ... -- iofit run job.fio",
        ));
    }
    Ok(EmulateOptions {
        limits,
        sources,
        scratch: ScratchOptions {
            image_dir: args.image_dir.clone(),
            mount_root,
            size_bytes: scratch_size(&args.scratch_size)?,
        },
        command: args.command.clone(),
        tick: Duration::from_millis(args.tick_ms),
        time_scale: args.burst_time_scale,
        start_credits: args.start_credits / 100.0,
        state_dir: PathBuf::from(STATE_DIR),
    })
}

fn sources(args: &Args, limits: &DesignLimits) -> anyhow::Result<Vec<VolumeSource>> {
    let mut sources = vec![VolumeSource::Scratch; limits.volumes.len()];
    for map in &args.maps {
        let Some((label, device)) = map.split_once('=') else {
            return Err(bad_input(format!("--map '{map}': write LABEL=/dev/DEVICE")));
        };
        let Some(index) = limits.volumes.iter().position(|v| v.label == label) else {
            let labels: Vec<&str> = limits.volumes.iter().map(|v| v.label.as_str()).collect();
            return Err(bad_input(format!(
                "--map '{map}': no volume is labelled '{label}' (volumes: {})",
                labels.join(", ")
            )));
        };
        // A mapped volume must be a block device; checked before anything is made.
        iofit_emulate::throttle::DeviceNumber::of_block_device(std::path::Path::new(device))
            .map_err(|e| bad_input(format!("--map '{map}': {e}")))?;
        sources[index] = VolumeSource::Mapped(PathBuf::from(device));
    }
    Ok(sources)
}

fn scratch_size(text: &str) -> anyhow::Result<u64> {
    let bytes = iofit_procedure::plan::parse_size("--scratch-size", text)?.0;
    if !(16 << 20..=1 << 44).contains(&bytes) {
        return Err(bad_input(format!(
            "--scratch-size '{text}': must be between 16m and 16t"
        )));
    }
    Ok(bytes)
}

fn emulate_error(error: EmulateError) -> anyhow::Error {
    match error {
        EmulateError::Input(_) | EmulateError::Unsupported(_) => bad_input(error),
        other => anyhow::Error::new(other),
    }
}

fn cleanup() -> anyhow::Result<ExitCode> {
    let orphans = Journal::orphans(std::path::Path::new(STATE_DIR));
    if orphans.is_empty() {
        println!("nothing to clean up: no emulation left anything behind");
        return Ok(ExitCode::SUCCESS);
    }
    let mut failed = false;
    for journal in orphans {
        let pid = journal.pid;
        let things = journal.made.len();
        let failures = journal.undo();
        if failures.is_empty() {
            println!("emulation {pid}: removed {things} thing(s) it had made");
        } else {
            failed = true;
            for failure in failures {
                println!("emulation {pid}: could not undo: {failure}");
            }
        }
    }
    Ok(if failed {
        ExitCode::from(crate::exit::FAILED)
    } else {
        ExitCode::SUCCESS
    })
}

struct Printer {
    quiet: bool,
    labels: Vec<String>,
}

impl Observer for Printer {
    fn ready(&mut self, volumes: &[PreparedVolume]) {
        if self.quiet {
            return;
        }
        for volume in volumes {
            eprintln!(
                "  {} -> {} ({})",
                volume.label,
                volume.path.display(),
                if volume.scratch { "scratch" } else { "mapped" }
            );
        }
    }

    fn second(&mut self, second: &Second) {
        if self.quiet {
            return;
        }
        let mut line = format!("{:>6.1}s", second.t_s);
        for (label, usage) in self.labels.iter().zip(&second.volumes) {
            line.push_str(&format!(
                "  {label}: {:.0} IOPS ({:.0}%) {:.1} MB/s ({:.0}%)",
                usage.iops(),
                100.0 * usage.iops() / usage.cap_iops.max(1e-9),
                usage.mb_s(),
                100.0 * usage.mb_s() / usage.cap_mb_s.max(1e-9)
            ));
        }
        line.push_str(&format!(
            "  most used: {} {:.0}%",
            second.binding, second.binding_consumed_pct
        ));
        eprintln!("{line}");
    }
}

fn exit_code(outcome: &Outcome) -> ExitCode {
    if outcome.interrupted {
        return ExitCode::from(crate::exit::INTERRUPTED);
    }
    match (outcome.exit_code, outcome.signal) {
        (Some(0), _) if outcome.cleaned_up => ExitCode::SUCCESS,
        (Some(0), _) => ExitCode::from(crate::exit::FAILED),
        (Some(code), _) => ExitCode::from(code.clamp(1, 255) as u8),
        _ => ExitCode::from(crate::exit::FAILED),
    }
}
