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

/// A time flag (30, 30s, 500ms, 2m, 1h): [`iofit_procedure::run_request::duration_flag`], the
/// one time-flag reader every command uses; the error names the flag.
pub(crate) fn duration_flag(flag: &str, text: &str) -> Result<std::time::Duration, String> {
    iofit_procedure::run_request::duration_flag(flag, text).map_err(|e| e.to_string())
}

/// Results to `path` (whole or not at all) or, without one, to stdout.
pub(crate) fn write_or_print(path: Option<&std::path::Path>, text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    match path {
        Some(path) => files::write_output(path, text.as_bytes()),
        None => {
            // Whatever std's stdout holds goes first (the results are written past it).
            std::io::stdout().lock().flush()?;
            Ok(crate::stop::print_results(text)?)
        }
    }
}
