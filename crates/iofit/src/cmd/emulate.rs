//! `iofit emulate`: run a command with its IO throttled to a design's limits by the kernel.

use super::shared::CatalogArgs;
use iofit_emulate::journal::STATE_DIR;
use iofit_emulate::session;
use iofit_procedure::emulate_lines::EmulateLines;
use iofit_procedure::emulate_request::{self as emulate, EmulateRequest};
use iofit_procedure::ProcedureError;
use iofit_report::emulate_text;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

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
    /// what is bought per disk (,size_gib=N,iops=N,mb_s=N). With --cloud aws or gcp, the syntax
    /// `predict --cloud aws|gcp` takes: data=2xgp3,iops=6000,mib_s=250; data=pd-ssd,size_gib=500.
    /// Repeat per volume.
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

impl Args {
    /// The request as the procedure takes it (no clap types).
    fn request(self) -> EmulateRequest {
        EmulateRequest {
            vm: self.vm,
            plan: self.plan,
            design: self.design,
            disks: self.disks,
            maps: self.maps,
            mount_root: self.mount_root,
            image_dir: self.image_dir,
            scratch_size: self.scratch_size,
            scale: self.scale,
            burst_time_scale: self.burst_time_scale,
            start_credits_pct: self.start_credits,
            no_burst: self.no_burst,
            tick_ms: iofit_model::units::Millis(self.tick_ms),
            output: self.output,
            report: self.report,
            allow_overwrite: self.allow_overwrite,
            cloud: self.cloud,
            catalog: self.catalog.choice(),
            command: self.command,
            state_dir: PathBuf::from(STATE_DIR),
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (cleanup, quiet, request) = (args.cleanup, args.quiet, args.request());
    if cleanup {
        let (lines, ending) = emulate::cleanup(&request.state_dir);
        for line in lines {
            println!("{line}");
        }
        return Ok(super::end(ending));
    }
    let options = emulate::prepare(&request)?;
    let stop = Arc::new(AtomicBool::new(false));
    // Every press only asks to stop: the command is ended and everything made is removed.
    crate::stop::arm(stop.clone(), crate::stop::Armed::Cleanup);
    let labels = options.limits.volumes.iter().map(|v| v.label.clone());
    let mut printer = EmulateLines::new(quiet, labels.collect(), |line: &str| eprintln!("{line}"));
    // Everything emulate says goes to stderr: the command's stdout is its own (a fio JSON
    // document piped to a file stays a JSON document).
    eprint!("{}", emulate_text::header(&options.limits));
    let outcome = session::run(&options, &mut printer, &stop).map_err(ProcedureError::from)?;
    emulate::write_outputs(&request, &options.limits, &outcome)?;
    eprint!("{}", emulate_text::summary(&outcome));
    Ok(ExitCode::from(emulate::ending(&outcome).code()))
}
