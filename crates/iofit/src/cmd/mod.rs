//! One module per subcommand; each has `Args` (clap derive) and `run(Args) -> Result<ExitCode>`.

pub mod bench;
pub mod catalog;
pub mod compare;
pub mod demo;
pub mod emulate;
pub(crate) mod files;
pub mod fleet;
pub mod plan;
pub mod predict;
pub mod profile;
pub mod remote;
pub mod run;
pub mod size_threads;
pub mod vdbench;
pub mod vdbench_hosts;
