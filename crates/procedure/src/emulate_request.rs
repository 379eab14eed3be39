//! `iofit emulate`: what the flags ask for, checked and turned into the rehearsal's options
//! (the design's limits from --vm/--disk, --plan/--design, AWS or Google Cloud, each volume's source, the
//! scratch volumes), the outputs checked before anything is made and written after, the
//! per-second line, `--cleanup`, and the exit status. The binary prints and arms Ctrl-C.

use crate::ending::{Ending, Exit};
use crate::plan::{parse_size, write_report, CatalogChoice};
use crate::ProcedureError;
use iofit_emulate::journal::Journal;
use iofit_emulate::session::{EmulateOptions, Outcome, Second};
use iofit_emulate::{resolve, DesignLimits, ScratchOptions, VolumeSource};
use iofit_model::units::Millis;
use std::path::{Path, PathBuf};

/// `iofit emulate`'s flags, as the binary parsed them (no clap types).
#[derive(Clone, Debug, Default)]
pub struct EmulateRequest {
    pub vm: Option<String>,
    /// `--plan PLAN_JSON` with `--design N`: the design from `iofit plan --json` output.
    pub plan: Option<PathBuf>,
    pub design: Option<usize>,
    pub disks: Vec<String>,
    /// `--map LABEL=DEVICE`: an existing block device for a volume.
    pub maps: Vec<String>,
    pub mount_root: Option<PathBuf>,
    pub image_dir: PathBuf,
    pub scratch_size: String,
    /// `--limit-scale`: every limit times this.
    pub scale: f64,
    pub burst_time_scale: f64,
    pub start_credits_pct: f64,
    pub no_burst: bool,
    pub tick_ms: Millis<u64>,
    pub output: Option<PathBuf>,
    pub report: Option<PathBuf>,
    pub allow_overwrite: bool,
    pub cloud: String,
    pub catalog: CatalogChoice,
    pub command: Vec<String>,
    /// Where rehearsals keep their journals ([`iofit_emulate::journal::STATE_DIR`]).
    pub state_dir: PathBuf,
}

fn bad(message: impl Into<String>) -> ProcedureError {
    ProcedureError::bad_input(message)
}

/// The rehearsal's options, every flag checked; then the outputs, before anything is made (a
/// bad --report or --output must not cost a rehearsal).
pub fn prepare(request: &EmulateRequest) -> Result<EmulateOptions, ProcedureError> {
    let mut limits = match request.cloud.trim().to_ascii_lowercase().as_str() {
        "azure" => azure_limits(request)?,
        "aws" => {
            if request.disks.is_empty() {
                return Err(bad(
                    "give at least one --disk [LABEL=]COUNTxTYPE[,size_gib=N][,iops=N][,mib_s=N]",
                ));
            }
            aws_limits(request)?
        }
        "gcp" => gcp_limits(request)?,
        other => {
            return Err(bad(format!(
                "--cloud {other}: emulate knows azure, aws and gcp"
            )))
        }
    };
    if request.no_burst {
        limits = limits.sustained();
    }
    let options = finish_options(request, limits)?;
    for (path, flag) in [(&request.report, "--report"), (&request.output, "--output")] {
        if let Some(path) = path {
            iofit_safefs::guard::check_output_allowing(path, &[], flag, request.allow_overwrite)?;
        }
    }
    Ok(options)
}

/// An AWS design's limits (`--cloud aws`): the instance's EBS baseline shared, its maximum as
/// the 30-minute window, each volume's EBS caps.
fn aws_limits(request: &EmulateRequest) -> Result<DesignLimits, ProcedureError> {
    if request.plan.is_some() {
        return Err(bad(
            "--plan reads Azure plans and Google Cloud ones (plan --cloud gcp --json); with --cloud aws give --vm INSTANCE and --disk SPEC (the `check:` line of `plan --cloud aws`)",
        ));
    }
    let catalog = crate::plan_clouds::aws_catalog(&request.catalog.files)?;
    let instance = catalog
        .instance(request.vm.as_deref().unwrap_or_default())
        .map_err(|e| bad(e.to_string()))?;
    let rules_of = |name: &str| catalog.volume_type(name).ok().cloned();
    let mut volumes = Vec::new();
    for (index, text) in request.disks.iter().enumerate() {
        volumes.push(
            iofit_predict::aws::parse_volume_spec(text, index, &rules_of)
                .map_err(|e| bad(e.to_string()))?,
        );
    }
    Ok(iofit_emulate::aws::aws_design_limits(
        instance,
        &volumes,
        request.scale,
    )?)
}

/// A Google Cloud design's limits (`--cloud gcp`): each disk type's budget on the machine type,
/// as `predict --cloud gcp` computes it, shared by that type's disks per direction. From
/// --vm/--disk, or --plan/--design with `plan --cloud gcp --json` output.
fn gcp_limits(request: &EmulateRequest) -> Result<DesignLimits, ProcedureError> {
    let (machine_name, disks) = match (&request.plan, request.design) {
        (Some(path), Some(number)) => {
            let text = iofit_safefs::input::read_capped_string(path, 64 << 20, "plan JSON")?;
            gcp_design_from_plan_json(&text, path, number)?
        }
        (Some(_), None) => return Err(bad("--plan needs --design N (a rank of the plan)")),
        _ => (
            request.vm.clone().unwrap_or_default(),
            request.disks.clone(),
        ),
    };
    if disks.is_empty() {
        return Err(bad(
            "give at least one --disk [LABEL=]TYPE,size_gib=N (as predict --cloud gcp takes it)",
        ));
    }
    let catalog = crate::clouds_gcp::gcp_catalog(&request.catalog.files)?;
    let machine = catalog
        .machine_type(&machine_name)
        .map_err(|e| bad(format!("--vm {machine_name}: {e}")))?;
    let mut specs = Vec::new();
    for (index, text) in disks.iter().enumerate() {
        specs.push(
            iofit_predict::gcp::parse_disk_spec(text, index, &catalog)
                .map_err(|e| bad(e.to_string()))?,
        );
    }
    Ok(iofit_emulate::gcp::gcp_design_limits(
        &catalog,
        machine,
        &specs,
        request.scale,
    )?)
}

/// The machine type and `--disk` texts of design `number` (its rank, from 1) of a
/// `plan --cloud gcp --json` document (or the Google Cloud part of `plan --cloud all --json`).
fn gcp_design_from_plan_json(
    text: &str,
    path: &Path,
    number: usize,
) -> Result<(String, Vec<String>), ProcedureError> {
    let bad_plan = |why: String| bad(format!("{}: {why}", path.display()));
    let doc: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        bad_plan(format!(
            "not JSON ({e}); give the output of `iofit plan --cloud gcp --json`"
        ))
    })?;
    let designs = doc["designs"]
        .as_array()
        .or_else(|| doc["gcp"]["designs"].as_array())
        .ok_or_else(|| {
            bad_plan(
                "no Google Cloud designs array; give the output of `iofit plan --cloud gcp \
                 --json`, or --vm and --disk from a plan's `check:` line"
                    .into(),
            )
        })?;
    let design = number
        .checked_sub(1)
        .and_then(|i| designs.get(i))
        .ok_or_else(|| {
            bad(format!(
                "--design {number}: {} holds designs 1..={}",
                path.display(),
                designs.len()
            ))
        })?;
    let machine = design["machine_type"]
        .as_str()
        .ok_or_else(|| bad_plan(format!("design {number} has no 'machine_type'")))?;
    let mut disks = Vec::new();
    for disk in design["disks"].as_array().into_iter().flatten() {
        let arg = disk["disk_arg"]
            .as_str()
            .ok_or_else(|| bad_plan(format!("design {number}: a disk has no 'disk_arg'")))?;
        disks.push(arg.to_string());
    }
    Ok((machine.to_string(), disks))
}

/// An Azure design's limits, from --vm/--disk or --plan/--design.
fn azure_limits(request: &EmulateRequest) -> Result<DesignLimits, ProcedureError> {
    let catalog = request.catalog.load()?;
    let (vm_name, disks) = match (&request.plan, request.design) {
        (Some(path), Some(number)) => {
            let text = iofit_safefs::input::read_capped_string(path, 64 << 20, "plan JSON")?;
            crate::design_input::design_from_plan_json(&text, path, number)?
        }
        _ => (
            request.vm.clone().unwrap_or_default(),
            request.disks.clone(),
        ),
    };
    if disks.is_empty() {
        return Err(bad("give at least one --disk [LABEL=]COUNTxSKU[:CACHING]"));
    }
    let (vm, volumes) = resolve(&catalog, &request.catalog.edition, &vm_name, &disks)?;
    Ok(iofit_emulate::limits::from_design(
        &vm,
        &volumes,
        request.scale,
    )?)
}

fn finish_options(
    request: &EmulateRequest,
    limits: DesignLimits,
) -> Result<EmulateOptions, ProcedureError> {
    let sources = sources(&request.maps, &limits)?;
    let needs_scratch = sources.contains(&VolumeSource::Scratch);
    let mount_root = match (&request.mount_root, needs_scratch) {
        (Some(root), _) => root.clone(),
        (None, false) => PathBuf::from("/nonexistent"),
        (None, true) => {
            return Err(bad(
                "volumes without --map are scratch volumes: give --mount-root DIR (each is \
                 mounted at DIR/LABEL), or --map LABEL=/dev/DEVICE for each",
            ))
        }
    };
    if !(1..=10_000).contains(&request.tick_ms.get()) {
        return Err(bad("--tick-ms must be within 1..=10000"));
    }
    if !(request.burst_time_scale.is_finite() && request.burst_time_scale > 0.0) {
        return Err(bad("--burst-time-scale must be a positive number"));
    }
    if !(0.0..=100.0).contains(&request.start_credits_pct) {
        return Err(bad("--start-credits must be a percent within 0..=100"));
    }
    if request.command.is_empty() {
        return Err(bad(
            "no command: put it after `--`, e.g. iofit emulate ... -- iofit run job.fio",
        ));
    }
    Ok(EmulateOptions {
        limits,
        sources,
        scratch: ScratchOptions {
            image_dir: request.image_dir.clone(),
            mount_root,
            size_bytes: iofit_model::Bytes(scratch_size(&request.scratch_size)?),
        },
        command: request.command.clone(),
        tick: request.tick_ms.to_duration(),
        time_scale: request.burst_time_scale,
        start_credits: request.start_credits_pct / 100.0,
        state_dir: request.state_dir.clone(),
    })
}

/// Each volume's source: scratch, or the block device `--map LABEL=DEVICE` gives it.
fn sources(maps: &[String], limits: &DesignLimits) -> Result<Vec<VolumeSource>, ProcedureError> {
    let mut sources = vec![VolumeSource::Scratch; limits.volumes.len()];
    for map in maps {
        let Some((label, device)) = map.split_once('=') else {
            return Err(bad(format!("--map '{map}': write LABEL=/dev/DEVICE")));
        };
        let Some(index) = limits.volumes.iter().position(|v| v.label == label) else {
            let labels: Vec<&str> = limits.volumes.iter().map(|v| v.label.as_str()).collect();
            return Err(bad(format!(
                "--map '{map}': no volume is labelled '{label}' (volumes: {})",
                labels.join(", ")
            )));
        };
        // A mapped volume must be a block device; checked before anything is made.
        iofit_emulate::throttle::device_number_of(Path::new(device))
            .map_err(|e| bad(format!("--map '{map}': {e}")))?;
        sources[index] = VolumeSource::Mapped(PathBuf::from(device));
    }
    Ok(sources)
}

fn scratch_size(text: &str) -> Result<u64, ProcedureError> {
    let bytes = parse_size("--scratch-size", text)?.0;
    if !(16 << 20..=1 << 44).contains(&bytes) {
        return Err(bad(format!(
            "--scratch-size '{text}': must be between 16m and 16t"
        )));
    }
    Ok(bytes)
}

/// After the rehearsal: the HTML report and the JSON outcome, when asked for.
pub fn write_outputs(
    request: &EmulateRequest,
    limits: &DesignLimits,
    outcome: &Outcome,
) -> Result<(), ProcedureError> {
    if let Some(path) = &request.report {
        write_report(
            path,
            iofit_report::ReportFormat::Html,
            &iofit_report::emulate_text::html(limits, outcome),
        )?;
    }
    if let Some(path) = &request.output {
        let json = serde_json::to_string_pretty(outcome)
            .map_err(|e| ProcedureError::Internal(e.to_string()))?;
        iofit_safefs::atomic::write_atomic(path, format!("{json}\n").as_bytes())?;
    }
    Ok(())
}

/// One second's line: each volume's IOPS and MB/s with its share of the cap, and the limit
/// most used.
pub fn second_line(labels: &[String], second: &Second) -> String {
    let mut line = format!("{:>6.1}s", second.t_s.get());
    for (label, usage) in labels.iter().zip(&second.volumes) {
        line.push_str(&format!(
            "  {label}: {:.0} IOPS ({:.0}%) {:.1} MB/s ({:.0}%)",
            usage.iops(),
            100.0 * usage.iops() / usage.cap_iops.get().max(1e-9),
            usage.mb_s(),
            100.0 * usage.mb_s() / usage.cap_mb_s.get().max(1e-9)
        ));
    }
    line.push_str(&format!(
        "  most used: {} {:.0}%",
        second.binding, second.binding_consumed_pct
    ));
    line
}

/// The rehearsal's exit: 130 interrupted; the command's own code when it ran and everything
/// made was removed (0 with something left behind is a failure); 1 when a signal killed it.
pub fn ending(outcome: &Outcome) -> Exit {
    if outcome.interrupted {
        return Exit::Interrupted;
    }
    match outcome.exit_code {
        Some(0) if outcome.cleaned_up => Exit::Success,
        Some(0) => Exit::Failed,
        Some(code) => Exit::Command(code.clamp(1, 255) as u8),
        None => Exit::Failed,
    }
}

/// `--cleanup`: undoes what killed rehearsals left in `state_dir`; one line per rehearsal
/// (or per thing that could not be undone), 1 when anything could not be.
pub fn cleanup(state_dir: &Path) -> (Vec<String>, Ending) {
    let orphans = Journal::orphans(state_dir);
    if orphans.is_empty() {
        let line = "nothing to clean up: no emulation left anything behind".to_string();
        return (vec![line], Ending::quiet(Exit::Success));
    }
    let (mut lines, mut failed) = (Vec::new(), false);
    for journal in orphans {
        let (pid, things) = (journal.pid, journal.made.len());
        let failures = journal.undo();
        if failures.is_empty() {
            lines.push(format!(
                "emulation {pid}: removed {things} thing(s) it had made"
            ));
        } else {
            failed = true;
            for failure in failures {
                lines.push(format!("emulation {pid}: could not undo: {failure}"));
            }
        }
    }
    let exit = if failed { Exit::Failed } else { Exit::Success };
    (lines, Ending::quiet(exit))
}

#[cfg(test)]
#[path = "emulate_request_tests.rs"]
mod tests;
