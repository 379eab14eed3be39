//! iofit-stats: measurement of IO runs. HDR latency histograms in nanoseconds with exact
//! mean/stdev and fio's percentile list, per-direction counters, per-interval time series, and
//! the result types (`result`) that the engine writes and the reports read.
//!
//! ```
//! use iofit_stats::LatencyHistogram;
//! let mut h = LatencyHistogram::new();
//! for latency_ns in [1_000, 2_000, 3_000] {
//!     h.record(latency_ns);
//! }
//! let summary = h.summary();
//! assert_eq!(summary.count, 3);
//! assert_eq!(summary.mean_ns.get(), 2_000.0);
//! assert_eq!(summary.percentile_ns(50.0), Some(2_000));
//! ```

pub mod compact;
pub mod ddir;
pub mod direction;
pub mod fio_bins;
pub mod fio_log;
pub mod histogram;
pub mod result;
pub mod series;

pub use ddir::Ddir;
pub use direction::DirectionStats;
pub use histogram::{LatencyHistogram, FIO_PERCENTILES};
pub use result::*;
pub use series::{IntervalAccumulator, IntervalBucket, SeriesMerger};
