//! `iofit vdbench -f PARMFILE [-o DIR] [-e SEC] [-i SEC] [-w SEC] [-s] [-v] [name=value ...]`:
//! vdbench's own command line (Vdbmain.check_args), so a script that runs vdbench runs iofit
//! by changing the command's name. The output directory (default `output/`, as vdbench's)
//! gets vdbench's report files; stdout shows the summary lines vdbench prints.

use iofit_procedure::run_request::duration_flag;
use iofit_procedure::vdbench::VdbenchOptions;
use iofit_report::vdbench_summary::{starting_line, RunHeader};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The parameter file (vdbench's -f).
    #[arg(short = 'f', value_name = "PARMFILE")]
    pub parmfile: PathBuf,
    /// Output directory for summary.html, totals.html, flatfile.html, logfile.html,
    /// parmfile.html, errorlog.html and histogram.html.
    #[arg(short = 'o', value_name = "DIR", default_value = "output")]
    pub output: PathBuf,
    /// Override every run's elapsed= (seconds, or 30s, 2m).
    #[arg(short = 'e', value_name = "SEC")]
    pub elapsed: Option<String>,
    /// Override every run's interval=.
    #[arg(short = 'i', value_name = "SEC")]
    pub interval: Option<String>,
    /// Override every run's warmup=.
    #[arg(short = 'w', value_name = "SEC")]
    pub warmup: Option<String>,
    /// Simulate: parse the file and show the runs it would start, without IO.
    #[arg(short = 's')]
    pub simulate: bool,
    /// Data validation for every run (validate=yes).
    #[arg(short = 'v')]
    pub validate: bool,
    /// Allow replacing files iofit did not create. vdbench: also IO to luns and anchors it did
    /// not create.
    #[arg(long)]
    pub allow_overwrite: bool,
    /// Path of iofit on the hosts [default: this binary's path]. Wins over an hd's vdbench=.
    #[arg(long, value_name = "PATH")]
    pub remote_iofit: Option<String>,
    /// An ssh config file for reaching the hosts (ssh -F).
    #[arg(long, value_name = "FILE")]
    pub ssh_config: Option<PathBuf>,
    /// `name=value` substitutions for `$name` in the file, as vdbench takes them.
    #[arg(value_name = "NAME=VALUE")]
    pub substitutions: Vec<String>,
}

fn seconds(flag: &str, text: &Option<String>) -> anyhow::Result<Option<std::time::Duration>> {
    text.as_deref()
        .map(|t| duration_flag(flag, t))
        .transpose()
        .map_err(crate::exit::bad_input)
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    for s in &args.substitutions {
        if !s.contains('=') {
            return Err(crate::exit::bad_input(format!(
                "'{s}': after the options vdbench takes name=value substitutions; write {s}=VALUE"
            )));
        }
    }
    let options = VdbenchOptions {
        elapsed: seconds("-e", &args.elapsed)?,
        warmup: seconds("-w", &args.warmup)?,
        interval: seconds("-i", &args.interval)?,
        validate: args.validate,
        substitutions: args.substitutions.clone(),
        allow_overwrite: args.allow_overwrite,
        output_dir: Some(args.output.clone()),
        ..Default::default()
    };
    if args.simulate {
        return simulate(&args, &options);
    }
    iofit_safefs::atomic::output_dir(&args.output).map_err(crate::exit::bad_input)?;
    iofit_safefs::guard::check_output_allowing(
        &args.output.join("summary.html"),
        std::slice::from_ref(&args.parmfile),
        "-o",
        args.allow_overwrite,
    )
    .map_err(crate::exit::bad_input)?;
    let stop = Arc::clone(&options.stop);
    crate::cmd::run::install_ctrl_c(Arc::clone(&stop));
    let code = super::vdbench::run_file(
        &args.parmfile,
        &options,
        args.allow_overwrite,
        false,
        stop,
        (args.remote_iofit.clone(), args.ssh_config.clone(), None),
    )?;
    // vdbench's last console line names its output directory.
    println!(
        "iofit execution ended. Output directory: {}",
        args.output.display()
    );
    Ok(code)
}

/// `-s`: each run's "Simulating RD=..." line (vdbench's display_run), nothing run.
fn simulate(args: &Args, options: &VdbenchOptions) -> anyhow::Result<ExitCode> {
    let checked = iofit_procedure::vdbench::check_file(&args.parmfile, &args.substitutions)?;
    for note in &checked.notes {
        println!("note: {note}");
    }
    for run in checked.runs {
        let run = iofit_procedure::vdbench::adjust(run, options)?;
        let label = match &run.iorate {
            iofit_jobfile::vdbench::IoRate::Max => "Uncontrolled MAX".to_string(),
            iofit_jobfile::vdbench::IoRate::Fixed(rate) => format!("{rate}"),
            iofit_jobfile::vdbench::IoRate::Curve(_) => "Uncontrolled curve".to_string(),
        };
        let header: RunHeader = iofit_procedure::vdbench::vdbench_header(&run, &label, 0.0);
        println!("{}", starting_line(&header, true));
    }
    for run in checked.fs_runs {
        println!(
            "Simulating RD={}; elapsed={}; {}",
            run.rd,
            run.elapsed.as_secs_f64(),
            run.for_label
        );
    }
    Ok(ExitCode::SUCCESS)
}
