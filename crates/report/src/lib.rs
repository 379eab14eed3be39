//! iofit-report: turns results into bytes: fio-style text and fio-compatible JSON of a run, a
//! vdbench-style summary, plan and prediction text, the comparison of results with
//! requirements (`compare`), and one self-contained HTML report with inline SVG charts (with
//! Markdown and CSV forms of the same tables). It does no IO of its own, so every format is
//! snapshot-tested; the binary decides where the bytes go.
//!
//! ```
//! use iofit_report::html::HtmlReport;
//! use iofit_stats::{JobResult, RunResult};
//!
//! let run = RunResult {
//!     tool: "iofit".into(),
//!     jobs: vec![JobResult { name: "reader1".into(), clones: 1, ..Default::default() }],
//!     ..Default::default()
//! };
//! // fio-compatible JSON: tools that read fio's output read iofit's.
//! let json: serde_json::Value = serde_json::from_str(&iofit_report::fio_json::render(&run, &[])).unwrap();
//! assert_eq!(json["jobs"][0]["jobname"], "reader1");
//! // One self-contained HTML page: no script or style is loaded from the network.
//! let html = HtmlReport::new("example").section("Notes", "a short run").render();
//! assert!(html.contains("<svg") || html.contains("a short run"));
//! assert!(!html.contains("src=\"http"));
//! ```

pub mod catalog_listing;
pub mod chart;
pub mod checklist;
pub mod columns;
/// Results against requirements: the verdict and advice are `iofit-verdict`'s (domain logic);
/// this crate adds their text rendering. Kept as `iofit_report::compare` for callers.
pub mod compare {
    pub use crate::compare_text::render_text;
    pub use iofit_verdict::*;
}
mod compare_text;
pub mod csv;
pub mod document;
pub mod emulate_text;
pub mod fio_common;
pub mod fio_json;
pub mod fio_log;
pub mod fio_output;
pub mod fio_terse;
pub mod fio_text;
pub mod fleet_table;
pub mod format_keys;
pub mod html;
pub mod markdown;
mod markup;
pub mod multihost;
pub mod plan_report;
pub mod plan_text;
pub mod predict_text;
mod run_series;
pub mod summary;
mod tables;
pub mod vdbench_flatfile;
pub mod vdbench_summary;
pub mod workload_chart;

pub use document::ReportFormat;
