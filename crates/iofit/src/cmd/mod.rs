//! One module per subcommand; each has `Args` (clap derive) and `run(Args) -> Result<ExitCode>`.

pub mod bench;
pub mod catalog;
pub mod compare;
pub mod demo;
pub mod emulate;
pub mod fleet;
pub mod plan;
pub mod predict;
pub mod profile;
pub(crate) mod progress;
pub mod remote;
pub mod run;
pub(crate) mod shared;
pub mod size_threads;
pub mod slurm_script;
pub mod vdbench;
pub mod vdbench_cli;

/// Writes a command's output to stdout. A closed pipe (`iofit plan | head`) ends the output
/// quietly instead of panicking the way `print!` does.
pub(crate) fn emit(text: &str) -> anyhow::Result<()> {
    use anyhow::Context;
    use std::io::Write;
    // Whatever std's stdout holds goes first; the text goes past it, never blocking past a
    // stop's bound (`stop::print_results`).
    match std::io::stdout()
        .lock()
        .flush()
        .and_then(|_| crate::stop::print_results(text))
    {
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("writing to stdout"),
    }
}

/// Prints pretty JSON (`--json`) or the text rendering; only the one asked for is built.
pub(crate) fn print_json_or_text<J: serde::Serialize>(
    as_json: bool,
    json: impl FnOnce() -> J,
    text: impl FnOnce() -> String,
) -> anyhow::Result<()> {
    if as_json {
        emit(&format!("{}\n", serde_json::to_string_pretty(&json())?))
    } else {
        emit(&text())
    }
}

/// Exit 0 when the outcome `succeeded` (designs found, requirements met), 1 otherwise.
pub(crate) fn exit_for(succeeded: bool) -> std::process::ExitCode {
    end(iofit_procedure::ending::Ending::passed(succeeded))
}

/// Says the ending's notes on stderr (each after `iofit: `) and returns its exit code.
pub(crate) fn end(ending: iofit_procedure::ending::Ending) -> std::process::ExitCode {
    say(&ending.notes);
    std::process::ExitCode::from(ending.exit.code())
}

/// Each line on stdout (a check's or a simulation's lines); the command succeeded.
pub(crate) fn print_lines(lines: &[String]) -> anyhow::Result<std::process::ExitCode> {
    for line in lines {
        println!("{line}");
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// Each note on stderr after `iofit: `.
pub(crate) fn say<N: std::fmt::Display>(notes: &[N]) {
    for note in notes {
        eprintln!("iofit: {note}");
    }
}

/// Ctrl-C/SIGTERM set `stop` (jobs end cleanly, results cover what ran); a second signal, or
/// the stop bound passing, ends the process at once ([`crate::stop`]).
pub(crate) fn install_ctrl_c(stop: std::sync::Arc<std::sync::atomic::AtomicBool>) {
    crate::stop::arm(stop, crate::stop::Armed::Bounded);
}
