//! The vocabulary every iofit crate shares: unit newtypes, the method's formulas, workloads,
//! runnable jobs, requirements, designs and the catalog's rows (`catalog`, `catalog_import`:
//! the types only; `iofit_catalog` loads them). It depends on nothing else in the workspace; every
//! other crate's arrows point down to it.
//!
//! ```
//! use iofit_model::units::{Bytes, Iops, Latency};
//! use iofit_model::formulas::littles_law_queue_depth;
//!
//! // throughput = IOPS x IO size: 5,000 IOPS of 8 KiB is 40 MiB/s.
//! let throughput = Iops(5000.0) * Bytes::parse("8k").unwrap();
//! assert_eq!(throughput.to_mib_s().get(), 5000.0 * 8.0 / 1024.0);
//!
//! // Little's law: 1 ms at 5,000 IOPS needs 5 IOs in flight.
//! let depth = littles_law_queue_depth(Iops(5000.0), Latency::from_millis(1.0));
//! assert!((depth - 5.0).abs() < 1e-9);
//! ```

pub mod catalog;
pub mod catalog_import;
pub mod data;
pub mod design;
pub mod emulation;
pub mod formulas;
pub mod job;
pub mod limits;
pub mod placement;
pub mod replay;
pub mod requirements;
pub mod timeline;
pub mod units;
pub mod workload;

pub use design::{Design, HostCaching, VolumeDesign};
pub use job::{
    BlockSizeSpec, Direction, EngineKind, JobSpec, PerDirection, RwMode, SizeSpec, Target,
};
pub use requirements::{
    Percentiles, Requirements, RequirementsError, SizingTarget, VolumeRequirements, VolumeRole,
};
pub use units::{Bytes, BytesPerSecond, Iops, Latency, MBps, MiBps};
pub use workload::{Workload, WorkloadError};
