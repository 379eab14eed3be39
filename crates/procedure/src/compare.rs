//! `iofit compare RESULTS.json --requirements req.toml` apart from the command line: benchmark
//! results against requirements, metric by metric, with the method's advice where one fails.
//! The binary fills a [`CompareRequest`], calls [`compare`] and prints the
//! [`CompareOutcome`] in the format asked for; exit 0 when every requirement is met
//! ([`CompareOutcome::passed`]), 1 when any fails, 2 on bad input.

use crate::ProcedureError;
use iofit_model::design::{HostCaching, VolumeDesign};
use iofit_model::requirements::{Requirements, VolumeRequirements};
use iofit_model::units::Millis;
use iofit_predict::Prediction;
use iofit_report::compare::{self as verdict, CompareContext, Comparison, JobSelection};
use iofit_report::html::HtmlReport;
use iofit_safefs::input::caps;
use std::path::{Path, PathBuf};

type Result<T> = std::result::Result<T, ProcedureError>;

fn bad(message: impl Into<String>) -> ProcedureError {
    ProcedureError::BadInput(message.into())
}

/// Everything `iofit compare` asks for.
#[derive(Clone, Debug, Default)]
pub struct CompareRequest {
    /// Results in fio's JSON format (a `--status-interval` stream is read at its last report).
    pub results: PathBuf,
    /// A requirements TOML, as `iofit profile -o` writes it.
    pub requirements: PathBuf,
    /// `--volume`: the requirements' volume the results are for (needed when there are several).
    pub volume: Option<String>,
    /// `--group`: only jobs of this fio group.
    pub group: Option<u32>,
    /// `--job-name`: only jobs with these names.
    pub jobs: Vec<String>,
    /// `--disk`: the measured volume's disks, as written.
    pub disks: Option<String>,
    /// `--caching` as written; overrides the one in `--disk`.
    pub caching: Option<String>,
    /// `--vm`: with `--disk`, the design's limits are predicted for the advice.
    pub vm: Option<String>,
    /// `--edition` and `--catalog`: for `--vm` and `--disk`.
    pub edition: String,
    pub catalog: Vec<PathBuf>,
    /// `--latency-p99-ms`.
    pub latency_p99_ms: Option<Millis>,
    /// `--report FILE`: a self-contained HTML report, written whole.
    pub report: Option<PathBuf>,
    pub allow_overwrite: bool,
}

/// The comparison, as `compare` prints it in any of its formats.
#[derive(Clone, Debug)]
pub struct CompareOutcome {
    pub comparison: Comparison,
}

impl CompareOutcome {
    /// Whether every requirement is met (exit 0), or any fails (exit 1).
    pub fn passed(&self) -> bool {
        self.comparison.passed
    }
    pub fn text(&self) -> String {
        verdict::render_text(&self.comparison)
    }
    pub fn json(&self) -> Result<String> {
        serde_json::to_string_pretty(&self.comparison)
            .map(|json| json + "\n")
            .map_err(|e| ProcedureError::Internal(format!("rendering JSON: {e}")))
    }
    pub fn markdown(&self) -> String {
        iofit_report::markdown::render_comparison(&self.comparison)
    }
    pub fn csv(&self) -> String {
        iofit_report::csv::render_comparison(&self.comparison)
    }
}

/// Compares the results with the requirements; writes the `--report` if asked (its path
/// checked before any work).
pub fn compare(request: &CompareRequest) -> Result<CompareOutcome> {
    if let Some(path) = &request.report {
        let mut inputs = vec![request.results.clone(), request.requirements.clone()];
        inputs.extend(request.catalog.iter().cloned());
        iofit_safefs::guard::check_output_allowing(
            path,
            &inputs,
            "--report",
            request.allow_overwrite,
        )?;
    }
    let results_name = request.results.display().to_string();
    let text = iofit_safefs::input::read_capped_string(
        &request.results,
        caps::RESULTS_BYTES,
        "results JSON",
    )?;
    let (document, reports) = last_report(&text);
    let run = verdict::read_results(document, &results_name).map_err(|e| bad(e.to_string()))?;
    let requirements = crate::plan::read_requirements(&request.requirements)?;
    let volume = pick_volume(request, &requirements)?;
    let mut context = context_of(request)?;
    let selection = JobSelection {
        group: request.group,
        names: request.jobs.clone(),
    };
    let jobs = verdict::select_jobs(&run, &selection)
        .map_err(|error| bad(format!("{results_name}: {error}")))?;
    let predicted = predict_design(request, &jobs, volume, &mut context)?;
    let mut comparison = verdict::compare(
        &jobs,
        volume,
        &context,
        &results_name,
        &request.requirements.display().to_string(),
    );
    if reports > 1 {
        comparison.warnings.insert(
            0,
            verdict::ResultsWarning::FinalOfStream {
                reports,
                results: results_name.clone(),
            },
        );
    }
    if let Some(path) = &request.report {
        let report = HtmlReport::new(format!(
            "iofit compare: {} against volume {}",
            file_name(&request.results),
            volume.label
        ))
        .summary(iofit_report::summary::Summary::for_comparison(
            &comparison,
            predicted.as_ref(),
        ))
        .comparison(&comparison)
        .run_result(&run)
        .requirements(&requirements);
        let report = match &predicted {
            Some(prediction) => report.prediction(prediction),
            None => report,
        };
        iofit_safefs::atomic::write_atomic(path, report.render().as_bytes())?;
    }
    Ok(CompareOutcome { comparison })
}

/// With `--vm` and `--disk`: the design's limits for the measured shape, set in `context`
/// (its limit bars and a line naming the design and its binding limit). With `--disk` alone:
/// the disks named.
fn predict_design(
    request: &CompareRequest,
    jobs: &[&iofit_stats::JobResult],
    volume: &VolumeRequirements,
    context: &mut CompareContext,
) -> Result<Option<Prediction>> {
    let (Some(vm), Some(spec)) = (&request.vm, &request.disks) else {
        if let Some(spec) = &request.disks {
            context.design = Some(format!("disks {spec}"));
        }
        return Ok(None);
    };
    let measured = verdict::Measured::from_jobs(jobs.iter().copied());
    let catalog = crate::plan::load_catalog(&request.edition, &request.catalog)?;
    let shape = crate::design_input::MeasuredShape {
        read_pct: measured.read_pct,
        // A measured mean size is fractional; the prediction takes whole bytes.
        io_size_bytes: measured
            .io_size_bytes
            .map(|size| iofit_model::units::Bytes(size.round() as u64)),
        outstanding_ios: measured.outstanding_ios,
    };
    let prediction = crate::design_input::predict_measured(
        &catalog,
        &request.edition,
        vm,
        spec,
        volume,
        shape,
        context.caching,
    )?;
    context.limits = iofit_report::chart::limit_bars_from_prediction(&prediction);
    context.design = Some(format!(
        "{} with {spec} ({} tables); binding: {}",
        prediction.vm,
        request.edition,
        iofit_report::summary::binding_line(&prediction)
            .map(|line| format!("{} ({})", line.name, line.detail))
            .unwrap_or_else(|| "none found".to_string())
    ));
    Ok(Some(prediction))
}

/// The requirements' volume the results are for: `--volume`, or the only one.
fn pick_volume<'a>(
    request: &CompareRequest,
    requirements: &'a Requirements,
) -> Result<&'a VolumeRequirements> {
    Ok(match &request.volume {
        Some(label) => requirements
            .volumes
            .iter()
            .find(|volume| &volume.label == label)
            .ok_or_else(|| {
                bad(format!(
                    "{}: no volume '{label}'; it has {}",
                    request.requirements.display(),
                    labels(requirements)
                ))
            })?,
        None if requirements.volumes.len() == 1 => &requirements.volumes[0],
        None => {
            return Err(bad(format!(
                "{} has {} volumes ({}); say which one the results are for with --volume",
                request.requirements.display(),
                requirements.volumes.len(),
                labels(requirements)
            )))
        }
    })
}

/// What the request says about the measured design: disks, host caching, the p99 limit.
fn context_of(request: &CompareRequest) -> Result<CompareContext> {
    let mut context = CompareContext {
        latency_ms_p99: request.latency_p99_ms.map(|ms| ms.get()),
        ..Default::default()
    };
    if let Some(p99) = request.latency_p99_ms.map(|ms| ms.get()) {
        if !(p99.is_finite() && p99 > 0.0) {
            return Err(bad(format!(
                "--latency-p99-ms {p99}: must be a number of milliseconds > 0"
            )));
        }
    }
    if let Some(spec) = &request.disks {
        let design: VolumeDesign = spec
            .parse()
            .map_err(|error| bad(format!("--disk: {error}")))?;
        context.disks = Some(design.disk_count);
        // Caching only counts when the spec names it; "10xP30" says nothing about the cache.
        if spec.contains(':') {
            context.caching = Some(design.caching);
        }
    }
    if let Some(caching) = &request.caching {
        let caching: HostCaching = caching
            .parse()
            .map_err(|error| bad(format!("--caching: {error}")))?;
        context.caching = Some(caching);
    }
    Ok(context)
}

/// The report to judge in `text` and how many reports it holds. `iofit run --status-interval`
/// (as fio's) prints a report every interval and the final one last, one JSON document after
/// another: the last is the run's result; every one before it is interim. Text before the
/// first document (warnings fio prints to stdout) is skipped as `read_results` skips it, and
/// what follows the last document that parses is left alone.
fn last_report(text: &str) -> (&str, usize) {
    let Some(first) = text
        .split_inclusive('\n')
        .scan(0usize, |offset, line| {
            let start = *offset;
            *offset += line.len();
            Some((start, line))
        })
        .find(|(_, line)| line.trim_start().starts_with('{'))
        .map(|(start, line)| start + line.len() - line.trim_start().len())
    else {
        return (text, 0);
    };
    let rest = &text[first..];
    let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<serde_json::Value>();
    let (mut reports, mut last_start, mut at) = (0usize, 0usize, 0usize);
    loop {
        let start = at + (rest[at..].len() - rest[at..].trim_start().len());
        match stream.next() {
            Some(Ok(value)) if value.is_object() => {
                reports += 1;
                last_start = start;
                at = stream.byte_offset();
            }
            _ => break,
        }
    }
    if reports > 1 {
        (&rest[last_start..], reports)
    } else {
        (text, reports)
    }
}

fn labels(requirements: &Requirements) -> String {
    requirements
        .volumes
        .iter()
        .map(|volume| format!("'{}'", volume.label))
        .collect::<Vec<_>>()
        .join(", ")
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/data/results")
            .join(name)
    }

    fn request(requirements: &str) -> CompareRequest {
        CompareRequest {
            results: data("fio-randrw-8k.json"),
            requirements: data(requirements),
            edition: iofit_catalog::EDITION_CURRENT.into(),
            ..Default::default()
        }
    }

    #[test]
    fn results_meeting_the_requirements_pass() {
        let outcome = compare(&request("req-oltp-pass.toml")).unwrap();
        assert!(outcome.passed());
        let text = outcome.text();
        assert!(text.contains("verdict: PASS"), "{text}");
        let json: serde_json::Value = serde_json::from_str(&outcome.json().unwrap()).unwrap();
        assert_eq!(json["passed"], true);
        assert!(outcome.csv().lines().count() > 1);
    }

    #[test]
    fn a_failing_volume_gets_the_stripes_advice_and_a_report() {
        let dir = tempfile::tempdir().unwrap();
        let report = dir.path().join("compare.html");
        let outcome = compare(&CompareRequest {
            volume: Some("data".into()),
            disks: Some("4xP30:none".into()),
            report: Some(report.clone()),
            ..request("req-oltp-fail.toml")
        })
        .unwrap();
        assert!(!outcome.passed());
        // psync keeps one IO in flight; the stripe of 4 disks wants 4 x 8 = 32.
        let text = outcome.text();
        assert!(text.contains("4 disks x 8 = 32"), "{text}");
        let html = std::fs::read_to_string(&report).unwrap();
        assert!(html.contains("against volume data"), "{}", &html[..200]);
    }

    #[test]
    fn a_status_interval_stream_is_judged_at_its_last_report_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let one = std::fs::read_to_string(data("fio-randrw-8k.json")).unwrap();
        let stream = dir.path().join("stream.json");
        std::fs::write(&stream, format!("{one}\n{one}\n")).unwrap();
        let outcome = compare(&CompareRequest {
            results: stream,
            ..request("req-oltp-pass.toml")
        })
        .unwrap();
        assert!(matches!(
            &outcome.comparison.warnings[0],
            verdict::ResultsWarning::FinalOfStream { reports: 2, results } if results.ends_with("stream.json")
        ));
    }

    #[test]
    fn bad_requests_are_bad_input_naming_the_flag_or_file() {
        let several = compare(&request("req-oltp-fail.toml")).unwrap_err();
        assert!(several.is_bad_input());
        assert!(several.to_string().ends_with(
            "has 2 volumes ('data', 'log'); say which one the results are for with --volume"
        ));
        let missing = compare(&CompareRequest {
            volume: Some("temp".into()),
            ..request("req-oltp-fail.toml")
        })
        .unwrap_err();
        assert!(missing
            .to_string()
            .ends_with("no volume 'temp'; it has 'data', 'log'"));
        let p99 = compare(&CompareRequest {
            latency_p99_ms: Some(Millis(-1.0)),
            ..request("req-oltp-pass.toml")
        })
        .unwrap_err();
        assert_eq!(
            p99.to_string(),
            "--latency-p99-ms -1: must be a number of milliseconds > 0"
        );
        // The report may not replace one of the inputs.
        let onto_input = compare(&CompareRequest {
            report: Some(data("fio-randrw-8k.json")),
            ..request("req-oltp-pass.toml")
        })
        .unwrap_err();
        assert!(onto_input.is_bad_input() && onto_input.to_string().contains("--report"));
    }

    #[test]
    fn a_stream_is_read_at_its_last_report_and_counted() {
        let stream =
            "fio: a warning first\n{\"n\": 1}\n{\"n\": 2}\n  {\"n\": 3}\nfio: a warning after\n";
        let (document, reports) = last_report(stream);
        assert_eq!(reports, 3);
        assert!(document.starts_with("{\"n\": 3}"), "{document}");
        // One document: the text as it is, for `read_results` to read and to place its errors.
        let one = "fio: warning\n{\"n\": 1}\n";
        assert_eq!(last_report(one), (one, 1));
        assert_eq!(last_report("no json here").1, 0);
    }
}
