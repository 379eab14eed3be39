//! `iofit vdbench -f PARMFILE [-o DIR] [-e SEC] [-i SEC] [-w SEC] [-s] [-v] [name=value ...]`:
//! vdbench's own command line (Vdbmain.check_args), so a script that runs vdbench runs iofit
//! by changing the command's name. The output directory (default `output/`, as vdbench's)
//! gets vdbench's report files; stdout shows the summary lines vdbench prints.

use iofit_procedure::vdbench_cmd::{
    cli_options, prepare_output_dir, simulate_lines, VdbenchCliRequest,
};
use std::path::PathBuf;
use std::process::ExitCode;

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

impl Args {
    /// The request as the procedure takes it (no clap types).
    fn request(&self) -> VdbenchCliRequest {
        VdbenchCliRequest {
            parmfile: self.parmfile.clone(),
            output: self.output.clone(),
            elapsed: self.elapsed.clone(),
            interval: self.interval.clone(),
            warmup: self.warmup.clone(),
            validate: self.validate,
            substitutions: self.substitutions.clone(),
            allow_overwrite: self.allow_overwrite,
            remote_iofit: self.remote_iofit.clone(),
            ssh_config: self.ssh_config.clone(),
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let request = args.request();
    let options = cli_options(&request)?;
    if args.simulate {
        return super::print_lines(&simulate_lines(&request, &options)?);
    }
    prepare_output_dir(&request)?;
    let code = super::vdbench::run_file(&args.parmfile, &options, &request.reach(&options), false)?;
    // vdbench's last console line names its output directory.
    println!(
        "iofit execution ended. Output directory: {}",
        args.output.display()
    );
    Ok(code)
}
