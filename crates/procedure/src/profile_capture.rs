//! `iofit profile` apart from the command line, once the capture is read (from files, or
//! sampled live by the binary): the notes on what was sized, the requirements, the checklist
//! text, and the `-o` TOML and `--report` written whole (their paths checked before any
//! capture is read, by [`check_outputs`]).

use crate::ProcedureError;
use iofit_model::requirements::Requirements;
use iofit_profile::{
    left_out_notes, requirements, Capture, CaptureNote, DeviceKind, SizingOptions,
};
use std::path::{Path, PathBuf};

type Result<T> = std::result::Result<T, ProcedureError>;

fn bad(message: impl Into<String>) -> ProcedureError {
    ProcedureError::BadInput(message.into())
}

/// Where `profile` writes besides stdout, and the captures they may not replace.
#[derive(Clone, Copy, Debug)]
pub struct ProfileOutputs<'a> {
    /// `-o FILE`: the requirements TOML.
    pub output: Option<&'a Path>,
    /// `--report FILE`: the HTML report.
    pub report: Option<&'a Path>,
    pub allow_overwrite: bool,
    /// The capture files read.
    pub inputs: &'a [PathBuf],
}

/// Refuses, before reading anything, an output that would replace a capture it reads, or
/// `-o` and `--report` naming the same file.
pub fn check_outputs(outputs: &ProfileOutputs<'_>) -> Result<()> {
    use iofit_safefs::guard::check_output_allowing;
    if let Some(path) = outputs.output {
        check_output_allowing(path, outputs.inputs, "-o", outputs.allow_overwrite)?;
    }
    if let Some(path) = outputs.report {
        check_output_allowing(path, outputs.inputs, "--report", outputs.allow_overwrite)?;
        if outputs.output == Some(path) {
            return Err(bad("--report and -o name the same file; give each its own"));
        }
    }
    Ok(())
}

/// The capture the files hold (iostat -x, sar -d, sadf -d, PerfMon CSV, Azure Monitor).
pub fn read_captures(files: &[PathBuf], parse: &iofit_profile::ParseOptions) -> Result<Capture> {
    if files.is_empty() {
        return Err(bad(
            "no capture given; name a FILE (iostat -x, sar -d, sadf -d, PerfMon CSV) or \
             use --live 60s",
        ));
    }
    let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    iofit_profile::parse_files(&paths, parse).map_err(|e| bad(e.to_string()))
}

/// What the user is told about the capture before it is sized: its own notes, and which
/// devices are left out (every device sized) or which stacked volume stands for its disks.
pub fn notes_of(capture: &Capture, options: &SizingOptions) -> Vec<CaptureNote> {
    let mut notes = capture.notes.clone();
    if options.volumes.is_empty() {
        notes.extend(left_out_notes(capture));
    } else {
        notes.extend(chosen_stacked_notes(capture, options));
    }
    notes
}

/// The requirements and what `profile` prints (the checklist, then what was written).
#[derive(Clone, Debug)]
pub struct ProfileOutcome {
    pub requirements: Requirements,
    pub text: String,
}

/// Sizes `capture`; `cut_short` (a live capture a signal ended, in words) goes into the
/// requirements' source. Writes the report and the TOML when asked.
pub fn size_capture(
    capture: &Capture,
    cut_short: Option<&str>,
    options: &SizingOptions,
    outputs: &ProfileOutputs<'_>,
) -> Result<ProfileOutcome> {
    let mut requirements = requirements(capture, options).map_err(|e| bad(e.to_string()))?;
    if let Some(words) = cut_short {
        // The file itself says it is short: whoever plans from it sees it in the source.
        requirements.source = format!("{} ({words})", requirements.source);
    }
    requirements
        .validate()
        .map_err(|e| ProcedureError::Internal(format!("the requirements do not validate: {e}")))?;
    let title = format!(
        "Requirements checklist from {} ({} reports)",
        requirements.source,
        capture.reports()
    );
    let mut text = iofit_report::checklist::render(&requirements, &title, true);
    if let Some(verdict) = &capture.azure {
        text.push_str("\nAzure limits (consumed-percentage metrics)\n");
        for line in verdict.lines() {
            text.push_str(&format!("  {line}\n"));
        }
        if verdict.binding().is_some() {
            text.push_str(
                "  while throttled the metrics show the limit, not the demand: the sized \
                 numbers (percentile x comfort) ask for more than the limit; check the design \
                 with `iofit predict --vm CURRENT_VM --disk ... --requirements FILE` and let \
                 `iofit plan --requirements FILE` pick one without it\n",
            );
        }
    }
    if let Some(path) = outputs.report {
        let html = crate::workload::profile_report(
            &title,
            capture,
            &requirements,
            &crate::workload::sized_words(options),
        );
        iofit_safefs::atomic::write_atomic(path, html.render().as_bytes())?;
        text.push_str(&format!("\nwrote {}\n", path.display()));
    }
    match outputs.output {
        Some(path) => {
            write_toml(&requirements, path)?;
            text.push_str(&format!(
                "\nwrote {}; next: iofit plan --requirements {}\n",
                path.display(),
                path.display()
            ));
        }
        None => text.push_str(
            "\nwrite these requirements with -o req.toml, then: iofit plan --requirements req.toml\n",
        ),
    }
    Ok(ProfileOutcome { requirements, text })
}

/// Writes the TOML whole or not at all (a random temporary name, then a rename).
fn write_toml(requirements: &Requirements, path: &Path) -> Result<()> {
    let body = toml::to_string_pretty(requirements)
        .map_err(|e| ProcedureError::Internal(format!("serialising the requirements: {e}")))?;
    let text = format!(
        "# Requirements written by `iofit profile` from {}.\n# `sizing` is what a design must \
         meet; `observed` is what was measured; `derivation` says how.\n\n{body}",
        requirements.source
    );
    Ok(iofit_safefs::atomic::write_atomic(path, text.as_bytes())?)
}

/// When --device names a stacked volume (a striped md or dm device), the disks under it are
/// not sized: say so, so the user knows its IO is counted once.
fn chosen_stacked_notes(capture: &Capture, options: &SizingOptions) -> Vec<CaptureNote> {
    let names: Vec<&str> = capture.devices.iter().map(|d| d.name.as_str()).collect();
    let linux = iofit_profile::devices::is_linux(capture.tool);
    options
        .volumes
        .iter()
        .flat_map(|v| v.devices.iter())
        .filter_map(|device| {
            let wanted = device.trim_start_matches("/dev/");
            let name = names.iter().find(|n| n.eq_ignore_ascii_case(wanted))?;
            match iofit_profile::devices::classify(name, &names, linux) {
                DeviceKind::Stacked { what } => Some(CaptureNote::StackedChosen {
                    volume: name.to_string(),
                    what: what.to_string(),
                }),
                _ => None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use iofit_profile::ParseOptions;

    fn iostat() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/data/iostat/sysstat-12.6.1_x_pretty_1s.txt")
    }

    #[test]
    fn a_capture_is_sized_and_its_toml_and_report_written() {
        let dir = tempfile::tempdir().unwrap();
        let inputs = [iostat()];
        let capture = read_captures(&inputs, &ParseOptions::default()).unwrap();
        let toml_path = dir.path().join("req.toml");
        let report = dir.path().join("profile.html");
        let outputs = ProfileOutputs {
            output: Some(&toml_path),
            report: Some(&report),
            allow_overwrite: false,
            inputs: &inputs,
        };
        check_outputs(&outputs).unwrap();
        let options = SizingOptions::default();
        let outcome = size_capture(&capture, Some("cut short"), &options, &outputs).unwrap();
        assert!(!outcome.requirements.volumes.is_empty());
        assert!(outcome.requirements.source.ends_with(" (cut short)"));
        assert!(outcome.text.starts_with("Requirements checklist from "));
        assert!(outcome.text.contains(&format!(
            "\nwrote {}; next: iofit plan --requirements {}\n",
            toml_path.display(),
            toml_path.display()
        )));
        // The TOML reads back as plan reads it, the same requirements.
        let back = crate::plan::read_requirements(&toml_path).unwrap();
        assert_eq!(back.volumes.len(), outcome.requirements.volumes.len());
        assert_eq!(back.source, outcome.requirements.source);
        assert!(std::fs::read_to_string(&report)
            .unwrap()
            .contains("Requirements checklist"));
    }

    #[test]
    fn an_output_onto_a_capture_or_both_outputs_on_one_file_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let inputs = [iostat()];
        let onto_capture = ProfileOutputs {
            output: Some(&inputs[0]),
            report: None,
            allow_overwrite: true,
            inputs: &inputs,
        };
        let error = check_outputs(&onto_capture).unwrap_err();
        assert!(
            error.is_bad_input() && error.to_string().contains("-o"),
            "{error}"
        );
        let same = dir.path().join("same");
        let both = ProfileOutputs {
            output: Some(&same),
            report: Some(&same),
            allow_overwrite: false,
            inputs: &inputs,
        };
        assert_eq!(
            check_outputs(&both).unwrap_err().to_string(),
            "--report and -o name the same file; give each its own"
        );
        let none = read_captures(&[], &ParseOptions::default()).unwrap_err();
        assert!(none.is_bad_input() && none.to_string().starts_with("no capture given"));
    }
}
