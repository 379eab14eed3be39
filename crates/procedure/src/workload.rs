//! The workload over time in the profile's and the plan's reports: each volume's profiled
//! IOPS, MB/s, latency and queue depth across the capture, its sizing line, and (for a plan)
//! the limits of design #1 and of the next cheaper VM, with the intervals over them counted
//! (drawn by [`iofit_report::workload_chart`]).

use crate::error::ProcedureError;
use iofit_model::Requirements;
use iofit_planner::{CatalogRows, Plan};
use iofit_profile::Capture;
use iofit_report::html::HtmlReport;
use iofit_report::workload_chart::CapturedVolume;

/// How the profile sized: the words the sizing line carries ("p95 of 10-minute peaks x 1.3").
pub fn sized_words(options: &iofit_profile::SizingOptions) -> String {
    let mut words = match options.window_s.map(|s| s.get()) {
        Some(window) if window >= 60.0 && window % 60.0 == 0.0 => {
            format!("p{} of {}-minute peaks", options.percentile, window / 60.0)
        }
        Some(window) => format!("p{} of {window}-second peaks", options.percentile),
        None => format!("p{}", options.percentile),
    };
    words.push_str(&format!(" x {}", options.comfort));
    if options.growth != 1.0 {
        words.push_str(&format!(" x growth {}", options.growth));
    }
    words
}

/// Each volume of `requirements` over `capture`: the points of the devices it names (none when
/// it names none or the capture lacks them).
pub fn captured_volumes(capture: &Capture, requirements: &Requirements) -> Vec<CapturedVolume> {
    requirements
        .volumes
        .iter()
        .map(|volume| {
            let spec = iofit_profile::VolumeSpec {
                label: volume.label.clone(),
                devices: volume.devices.clone(),
            };
            let points = if spec.devices.is_empty() {
                Vec::new()
            } else {
                iofit_profile::volume_timeline(capture, &spec)
            };
            CapturedVolume {
                label: volume.label.clone(),
                points,
            }
        })
        .collect()
}

/// `iofit profile --report`: the requirements checklist, then every volume over the capture
/// with its sizing line.
pub fn profile_report(
    title: &str,
    capture: &Capture,
    requirements: &Requirements,
    sized_words: &str,
) -> HtmlReport {
    let html = HtmlReport::new(title).requirements(requirements);
    iofit_report::workload_chart::capture_charts(
        html,
        &captured_volumes(capture, requirements),
        requirements,
        sized_words,
        None,
        None,
    )
}

/// `iofit plan --capture`: the plan's report with every volume over the capture against design
/// #1's limits and the next cheaper VM's. Bad input when no volume of the requirements names
/// devices the capture holds (requirements typed as flags name none).
pub fn plan_report_with_capture(
    report: HtmlReport,
    capture: &Capture,
    requirements: &Requirements,
    plan: &Plan,
    rows: &CatalogRows,
) -> Result<HtmlReport, ProcedureError> {
    let captured = captured_volumes(capture, requirements);
    let drawn = captured.iter().any(|volume| !volume.points.is_empty());
    if !drawn {
        let captured: Vec<&str> = capture.devices.iter().map(|d| d.name.as_str()).collect();
        return Err(ProcedureError::BadInput(format!(
            "--capture: no volume of the requirements names a device of the capture (it holds \
             {}); give --requirements FILE written by `iofit profile CAPTURE -o FILE`, whose \
             volumes name their devices",
            if captured.is_empty() {
                "none".to_string()
            } else {
                captured.join(", ")
            }
        )));
    }
    let cheaper = iofit_planner::next_cheaper_design(plan, requirements, rows);
    Ok(iofit_report::workload_chart::capture_charts(
        report,
        &captured,
        requirements,
        "the requirements' sized figure",
        Some(plan),
        cheaper.as_ref(),
    ))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_sizing_words_name_every_factor() {
        let mut options = iofit_profile::SizingOptions {
            percentile: 95.0,
            comfort: 1.3,
            window_s: Some(iofit_model::units::Seconds(600.0)),
            ..Default::default()
        };
        assert_eq!(super::sized_words(&options), "p95 of 10-minute peaks x 1.3");
        options.window_s = None;
        options.growth = 1.5;
        assert_eq!(super::sized_words(&options), "p95 x 1.3 x growth 1.5");
    }
}
