//! iofit-report: turns results into bytes (text, fio-compatible JSON, CSV, Markdown, HTML).
//! It does no IO of its own, so every format can be snapshot-tested. (Being built; each module
//! below has one owner while the team builds it.)

pub mod chart;
pub mod compare;
pub mod csv;
pub mod fio_json;
pub mod fio_text;
pub mod html;
pub mod markdown;
pub mod plan_text;
pub mod predict_text;
pub mod vdbench_summary;
