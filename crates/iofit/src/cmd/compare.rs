//! `iofit compare RESULTS.json --requirements req.toml`: benchmark results against requirements,
//! metric by metric, with the method's advice where one fails. Exit 0 when every requirement is
//! met, 1 when any fails, 2 on bad input.

use crate::exit::bad_input;
use anyhow::Context as _;
use iofit_model::design::{HostCaching, VolumeDesign};
use iofit_model::requirements::{Requirements, VolumeRequirements};
use iofit_report::compare::{self, CompareContext, JobSelection};
use iofit_report::html::HtmlReport;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Markdown,
    Csv,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Results in fio's JSON format: `fio --output-format=json` or `iofit run --output-format json`.
    pub results: PathBuf,
    /// A requirements TOML, as `iofit profile -o` writes it.
    #[arg(long, value_name = "FILE")]
    pub requirements: PathBuf,
    /// A volume, by its label. The volume of the requirements the results are for (needed when
    /// there are several).
    #[arg(long, value_name = "LABEL")]
    pub volume: Option<String>,
    /// Compare only jobs of this group (fio's groupid; needed when stonewall made several).
    #[arg(long, value_name = "N")]
    pub group: Option<u32>,
    /// Compare only jobs with this name (fio's jobname; repeatable).
    #[arg(long = "job-name", alias = "job", value_name = "NAME")]
    pub jobs: Vec<String>,
    /// A volume: [LABEL=]COUNTxSKU[:CACHING], e.g. data=2xP30:none; Premium SSD v2 and Ultra add
    /// what is bought per disk (,size_gib=N,iops=N,mb_s=N). The measured volume's disks, so the
    /// advice can check the stripe's queue depth and the host cache.
    #[arg(long = "disk", alias = "disks", value_name = "SPEC")]
    pub disks: Option<String>,
    /// Host caching of the data disks: none, readonly or readwrite. The measured volume's;
    /// overrides the one in --disk.
    #[arg(long, value_name = "none|readonly|readwrite")]
    pub caching: Option<String>,
    /// The VM size, e.g. Standard_DS14 (any case; the Standard_ prefix may be left out). The one
    /// the benchmark ran on; with --disk, compare predicts the design's limits so the advice can
    /// tell a VM cap from a disk cap.
    #[arg(long, value_name = "SIZE", requires = "disks")]
    pub vm: Option<String>,
    /// Catalog edition: current (Azure's current pages) or seed-2016 (the seed's dated tables).
    /// For --vm and --disk.
    #[arg(long, value_name = "EDITION", default_value = iofit_catalog::EDITION_CURRENT)]
    pub edition: String,
    /// Extra catalog file(s) that add or override rows. Repeatable.
    #[arg(long = "catalog", value_name = "FILE")]
    pub catalog: Vec<PathBuf>,
    /// Highest acceptable 99th percentile latency, ms (requirements carry only the average).
    #[arg(long, value_name = "MS")]
    pub latency_p99_ms: Option<f64>,
    /// Print the result as JSON on stdout. The same as --format json.
    #[arg(long)]
    pub json: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Also write a self-contained HTML report to FILE, the answer first. Results, charts,
    /// comparison.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Allow replacing files iofit did not create. --report when it exists.
    #[arg(long = "allow-overwrite")]
    pub allow_overwrite: bool,
}

/// Reads and checks a requirements file as `plan` and `predict` do (one reader: errors name
/// the file, line, column and key; a results document given instead is named as such).
pub fn load_requirements(path: &Path) -> anyhow::Result<Requirements> {
    Ok(iofit_procedure::plan::read_requirements(path)?)
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if let Some(path) = &args.report {
        let mut inputs = vec![args.results.clone(), args.requirements.clone()];
        inputs.extend(args.catalog.iter().cloned());
        super::files::check_output_allowing(path, &inputs, "--report", args.allow_overwrite)?;
    }
    let results_name = args.results.display().to_string();
    let text = super::files::read_input(
        &args.results,
        super::files::caps::RESULTS_BYTES,
        "results JSON",
    )?;
    let (document, reports) = last_report(&text);
    let run = compare::read_results(document, &results_name).map_err(bad_input)?;
    let requirements = load_requirements(&args.requirements)?;

    let volume = pick_volume(&args, &requirements)?;
    let mut context = context_from_args(&args)?;

    let selection = JobSelection {
        group: args.group,
        names: args.jobs.clone(),
    };
    let jobs = compare::select_jobs(&run, &selection)
        .map_err(|error| bad_input(format!("{results_name}: {error}")))?;
    let mut predicted = None;
    if let (Some(vm), Some(spec)) = (&args.vm, &args.disks) {
        let measured = compare::Measured::from_jobs(jobs.iter().copied());
        let catalog = iofit_procedure::plan::load_catalog(&args.edition, &args.catalog)?;
        let shape = iofit_procedure::design_input::MeasuredShape {
            read_pct: measured.read_pct,
            io_size_bytes: measured.io_size_bytes,
            outstanding_ios: measured.outstanding_ios,
        };
        let prediction = iofit_procedure::design_input::predict_measured(
            &catalog,
            &args.edition,
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
            args.edition,
            iofit_report::summary::binding_line(&prediction)
                .map(|line| format!("{} ({})", line.name, line.detail))
                .unwrap_or_else(|| "none found".to_string())
        ));
        predicted = Some(prediction);
    } else if let Some(spec) = &args.disks {
        context.design = Some(format!("disks {spec}"));
    }

    let mut comparison = compare::compare(
        &jobs,
        volume,
        &context,
        &results_name,
        &args.requirements.display().to_string(),
    );
    if reports > 1 {
        comparison.warnings.insert(
            0,
            format!(
                "read the final report of {reports} in {results_name} (a --status-interval stream: the reports before it are interim, measured while the jobs ran)"
            ),
        );
    }

    let format = if args.json { Format::Json } else { args.format };
    let output = match format {
        Format::Text => compare::render_text(&comparison),
        Format::Json => serde_json::to_string_pretty(&comparison).context("rendering JSON")? + "\n",
        Format::Markdown => iofit_report::markdown::render_comparison(&comparison),
        Format::Csv => iofit_report::csv::render_comparison(&comparison),
    };

    if let Some(path) = &args.report {
        let report = HtmlReport::new(format!(
            "iofit compare: {} against volume {}",
            file_name(&args.results),
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
        super::files::write_output(path, report.render().as_bytes())?;
    }

    print!("{output}");
    Ok(if comparison.passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(crate::exit::FAILED)
    })
}

/// The requirements' volume the results are for: `--volume`, or the only one.
fn pick_volume<'a>(
    args: &Args,
    requirements: &'a Requirements,
) -> anyhow::Result<&'a VolumeRequirements> {
    Ok(match &args.volume {
        Some(label) => requirements
            .volumes
            .iter()
            .find(|volume| &volume.label == label)
            .ok_or_else(|| {
                bad_input(format!(
                    "{}: no volume '{label}'; it has {}",
                    args.requirements.display(),
                    labels(requirements)
                ))
            })?,
        None if requirements.volumes.len() == 1 => &requirements.volumes[0],
        None => {
            return Err(bad_input(format!(
                "{} has {} volumes ({}); say which one the results are for with --volume",
                args.requirements.display(),
                requirements.volumes.len(),
                labels(requirements)
            )))
        }
    })
}

/// What the flags say about the measured design: disks, host caching, the p99 limit.
fn context_from_args(args: &Args) -> anyhow::Result<CompareContext> {
    let mut context = CompareContext {
        latency_ms_p99: args.latency_p99_ms,
        ..Default::default()
    };
    if let Some(p99) = args.latency_p99_ms {
        if !(p99.is_finite() && p99 > 0.0) {
            return Err(bad_input(format!(
                "--latency-p99-ms {p99}: must be a number of milliseconds > 0"
            )));
        }
    }
    if let Some(spec) = &args.disks {
        let design: VolumeDesign = spec
            .parse()
            .map_err(|error| bad_input(format!("--disk: {error}")))?;
        context.disks = Some(design.disk_count);
        // Caching only counts when the spec names it; "10xP30" says nothing about the cache.
        if spec.contains(':') {
            context.caching = Some(design.caching);
        }
    }
    if let Some(caching) = &args.caching {
        let caching: HostCaching = caching
            .parse()
            .map_err(|error| bad_input(format!("--caching: {error}")))?;
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
    use super::last_report;

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
