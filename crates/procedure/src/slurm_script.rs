//! `iofit slurm-script`: an sbatch script that runs a job file on every node of its
//! allocation (`iofit run --hosts slurm`), to start from when a cluster is scheduled by Slurm.

use crate::error::ProcedureError;
use std::path::{Path, PathBuf};

/// Most nodes a script asks for (Slurm's own limit is far higher; this catches a typo such as
/// a job count given as nodes).
pub const MAX_NODES: u32 = 10_000;

/// What the script allocates and runs.
#[derive(Clone, Debug)]
pub struct SlurmScriptRequest {
    /// The fio job file or vdbench parameter file.
    pub file: PathBuf,
    /// Nodes to allocate; None: the vdbench file's `hd=` count, else 1.
    pub nodes: Option<u32>,
    /// Slurm's time limit (`MM`, `MM:SS`, `HH:MM:SS`, `D-HH`, `D-HH:MM`, `D-HH:MM:SS`).
    pub time: String,
    pub tasks_per_node: u32,
    /// The iofit the nodes run (absolute; the allocation's nodes share the file system);
    /// None: this process's own binary.
    pub iofit: Option<PathBuf>,
}

fn bad(message: impl Into<String>) -> ProcedureError {
    ProcedureError::bad_input(message)
}

/// The sbatch script for `request`. The file must exist; paths in the script are absolute so
/// that it runs from any directory; results go to `iofit-JOBID.json` and `.html` in the
/// directory sbatch was started from.
pub fn slurm_script(request: &SlurmScriptRequest) -> Result<String, ProcedureError> {
    let iofit = match &request.iofit {
        Some(path) => path.clone(),
        None => std::env::current_exe().map_err(|e| {
            ProcedureError::Internal(format!(
                "cannot find this binary's path ({e}); give --iofit"
            ))
        })?,
    };
    let file = std::fs::canonicalize(&request.file).map_err(|e| {
        bad(format!(
            "{}: cannot read the job file ({e}); check the path",
            request.file.display()
        ))
    })?;
    let nodes = match request.nodes {
        Some(n) => n,
        None => default_nodes(&file)?,
    };
    if !(1..=MAX_NODES).contains(&nodes) {
        return Err(bad(format!("--nodes {nodes}: give 1 to {MAX_NODES}")));
    }
    if !(1..=crate::hosts::MAX_TASKS_PER_NODE).contains(&request.tasks_per_node) {
        return Err(bad(format!(
            "--tasks-per-node {}: give 1 to {}",
            request.tasks_per_node,
            crate::hosts::MAX_TASKS_PER_NODE
        )));
    }
    check_time(&request.time)?;
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "job".into());
    let name: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let tasks = if request.tasks_per_node > 1 {
        format!(" --tasks-per-node {}", request.tasks_per_node)
    } else {
        String::new()
    };
    Ok(format!(
        "#!/bin/bash\n\
         #SBATCH --job-name=iofit-{name}\n\
         #SBATCH --nodes={nodes}\n\
         #SBATCH --ntasks-per-node={tpn}\n\
         #SBATCH --time={time}\n\
         #SBATCH --output=iofit-%j.log\n\
         # iofit starts one worker per allocated node, all tasks of one job step (srun), and\n\
         # merges their results: per-node blocks and the combined total in the JSON, a report\n\
         # beside it.\n\
         # Exit code 3: a node or step was lost (its results so far are kept and marked).\n\
         set -euo pipefail\n\
         {iofit} run --hosts slurm{tasks} --output-format=json \\\n    \
         --output \"iofit-${{SLURM_JOB_ID}}.json\" --report \"iofit-${{SLURM_JOB_ID}}.html\" \\\n    \
         {file}\n",
        tpn = request.tasks_per_node,
        time = request.time,
        iofit = shell_word(&iofit),
        file = shell_word(&file),
    ))
}

/// A vdbench file needs a node per `hd=`; a fio file runs on one node unless told.
fn default_nodes(file: &Path) -> Result<u32, ProcedureError> {
    if iofit_jobfile::detect(file)? != iofit_jobfile::Dialect::Vdbench {
        return Ok(1);
    }
    let parsed =
        iofit_jobfile::vdbench::parse_file_with(file, &[]).map_err(|e| bad(e.to_string()))?;
    Ok((parsed.hosts.len() as u32).max(1))
}

/// Slurm's time formats: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS.
fn check_time(time: &str) -> Result<(), ProcedureError> {
    let (days, rest) = match time.split_once('-') {
        Some((d, r)) => (Some(d), r),
        None => (None, time),
    };
    let numbers = |s: &str| !s.is_empty() && s.len() <= 6 && s.bytes().all(|b| b.is_ascii_digit());
    let parts: Vec<&str> = rest.split(':').collect();
    let ok = days.is_none_or(numbers)
        && parts.iter().all(|p| numbers(p))
        && parts.len() <= 3
        && !(days.is_none() && parts.len() > 3);
    if ok {
        Ok(())
    } else {
        Err(bad(format!(
            "--time {time}: not a Slurm time limit; write minutes (30), HH:MM:SS (01:00:00) or D-HH:MM:SS"
        )))
    }
}

/// Quotes a path for the script's shell.
fn shell_word(path: &Path) -> String {
    let text = path.display().to_string();
    if text
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"/._-+=:,@".contains(&b))
    {
        text
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slurm_time_formats() {
        for ok in ["30", "30:00", "01:00:00", "1-12", "1-12:30", "2-00:00:00"] {
            assert!(check_time(ok).is_ok(), "{ok}");
        }
        for wrong in ["", "1h", "1:2:3:4", "-5", "a-1", "1-", "1--2"] {
            assert!(check_time(wrong).is_err(), "{wrong}");
        }
    }

    #[test]
    fn a_vdbench_file_asks_for_a_node_per_hd_and_paths_are_quoted() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("rnd read.vdb");
        std::fs::write(
            &file,
            "hd=default,vdbench=/opt/vdbench,shell=ssh\nhd=hd1,system=vm1\nhd=hd2,system=vm2\n\
             hd=hd3,system=vm3\nsd=sd1,host=hd*,lun=/mnt/f,size=1m\nwd=wd1,sd=sd*,xfersize=4k,rdpct=100\n\
             rd=rd1,wd=wd1,iorate=max,elapsed=10,interval=1\n",
        )
        .unwrap();
        let script = slurm_script(&SlurmScriptRequest {
            file: file.clone(),
            nodes: None,
            time: "30".into(),
            tasks_per_node: 1,
            iofit: Some("/usr/local/bin/iofit".into()),
        })
        .unwrap();
        assert!(script.contains("#SBATCH --nodes=3\n"), "{script}");
        assert!(script.contains("#SBATCH --time=30\n"), "{script}");
        let canonical = std::fs::canonicalize(&file).unwrap();
        assert!(
            script.contains(&format!("'{}'", canonical.display())),
            "{script}"
        );
        assert!(script.contains("run --hosts slurm --output-format=json"));
        assert!(script.contains("/usr/local/bin/iofit "), "{script}");
        // Without --iofit the nodes run this binary (the test's own, here).
        let own = slurm_script(&SlurmScriptRequest {
            file,
            nodes: Some(1),
            time: "30".into(),
            tasks_per_node: 1,
            iofit: None,
        })
        .unwrap();
        let exe = std::env::current_exe().unwrap();
        assert!(own.contains(&exe.display().to_string()), "{own}");
    }
}
