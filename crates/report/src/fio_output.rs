//! A whole fio run's output in the format asked for (`--output-format`): the text, JSON and
//! terse writers, alone or combined, in fio's order.

use crate::fio_common::{FioFormat, FioOutput};
use crate::{fio_json, fio_terse, fio_text};

/// A whole run's output in `format`: `jobs` are the run's job definitions, `job_index[i]` the
/// definition of `run.jobs[i]`, `derived_options[i]` its options as iofit would write them
/// (for jobs that came from no job file, such as presets).
pub fn render_run(
    format: FioFormat,
    run: &iofit_stats::RunResult,
    jobs: &[iofit_model::JobSpec],
    job_index: &[usize],
    derived_options: &[Vec<(String, String)>],
) -> String {
    let output = FioOutput {
        reporting: job_index
            .iter()
            .map(|&i| jobs.get(i).map(|j| j.reporting.clone()).unwrap_or_default())
            .collect(),
        json_plus: format == FioFormat::JsonPlus
            || matches!(format, FioFormat::Combined(b) if b & FioFormat::JSON_PLUS != 0),
    };
    match format {
        FioFormat::Combined(bits) => {
            let mut text = String::new();
            if bits & FioFormat::NORMAL != 0 {
                text.push_str(&fio_text::header(jobs, &run.version));
                text.push('\n');
            }
            if bits & FioFormat::TERSE != 0 {
                text.push_str(&fio_terse::render(run, &output));
            }
            if bits & (FioFormat::JSON | FioFormat::JSON_PLUS) != 0 {
                text.push_str(&fio_json::render_with(run, derived_options, &output));
            }
            if bits & FioFormat::NORMAL != 0 {
                text.push_str(&fio_text::render_with(run, &output));
            }
            text
        }
        FioFormat::Json | FioFormat::JsonPlus => {
            fio_json::render_with(run, derived_options, &output)
        }
        FioFormat::Normal => {
            let mut text = fio_text::header(jobs, &run.version);
            text.push('\n');
            text.push_str(&fio_text::render_with(run, &output));
            text
        }
        FioFormat::Terse => fio_terse::render(run, &output),
    }
}
