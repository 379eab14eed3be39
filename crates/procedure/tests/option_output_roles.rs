//! The output guard from the option table's path roles: for every option that writes a file
//! and every option that reads one (taken from the table, so an option given a role later is
//! covered without editing this test), a job file where the first names the second's file is
//! refused before any IO, even with --allow-overwrite. One test function: it changes the
//! working directory (verify state files are named relative to it).

use iofit_jobfile::fio::{job_paths, parse_str, path_options, PathOption};
use iofit_jobfile::ParseOptions;
use iofit_procedure::run_request::{check_outputs, RunRequest};
use std::path::{Path, PathBuf};

/// A job section that turns `option` on: its value names a file in `dir` (a flag is 1, its
/// file named after the section), with what every path option needs around it.
fn enabling(option: &PathOption, section: &str, dir: &Path) -> String {
    let value = if option.takes_value {
        dir.join(format!("{section}-{}", option.name))
            .display()
            .to_string()
    } else {
        "1".to_string()
    };
    format!(
        "[{section}]\nrw=randwrite\nbs=4k\nsize=1m\nfilename={}\nverify=crc32c\nlog_avg_msec=1000\nlog_hist_msec=1000\n{}={value}\n",
        dir.join(format!("{section}.data")).display(),
        option.name
    )
}

fn jobs(text: &str) -> Vec<iofit_model::job::JobSpec> {
    parse_str(text, "roles.fio", &ParseOptions::default()).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn first_path(text: &str, option: &str, output: bool) -> PathBuf {
    let paths = job_paths(&jobs(text));
    let list = if output { paths.outputs } else { paths.inputs };
    let found = list.into_iter().find(|p| p.option == option);
    found
        .unwrap_or_else(|| panic!("{option} names no file in\n{text}"))
        .path
}

fn request(allow_overwrite: bool) -> RunRequest {
    RunRequest {
        allow_overwrite,
        ..RunRequest::default()
    }
}

#[test]
fn an_output_option_naming_an_input_options_file_is_refused_for_every_pair_of_roles() {
    let root = tempfile::tempdir().expect("tempdir");
    let options = path_options();
    let outputs: Vec<&PathOption> = options.iter().filter(|o| o.output).collect();
    let inputs: Vec<&PathOption> = options.iter().filter(|o| !o.output).collect();
    assert!(outputs.len() >= 6 && inputs.len() >= 2, "{options:?}");
    let mut pairs = 0;
    for output in &outputs {
        for input in &inputs {
            let dir = root.path().join(format!("{}-{}", output.name, input.name));
            std::fs::create_dir(&dir).expect("pair directory");
            // Verify state files are named relative to the working directory.
            std::env::set_current_dir(&dir).expect("cd");
            let writer = enabling(output, "writer", &dir);
            let reader = enabling(input, "reader", &dir);
            let written = first_path(&writer, output.name, true);
            let read = first_path(&reader, input.name, false);
            std::fs::write(&read, "the input\n").expect("input file");
            // Different names reach the same file through a hard link.
            if dir.join(&written) != dir.join(&read) {
                std::fs::hard_link(&read, &written).expect("link");
            }
            let both = jobs(&format!("{writer}{reader}"));
            let result = check_outputs(&request(true), &[], &both);
            if output.kind == input.kind && output.kind.output_may_replace_same_kind() {
                // A verify state is loaded and saved again by design.
                result.unwrap_or_else(|e| panic!("{} over {}: {e}", output.name, input.name));
            } else {
                let error = result
                    .expect_err(&format!("{} over {} is accepted", output.name, input.name))
                    .to_string();
                assert!(
                    error.contains(output.name) && error.contains(input.name),
                    "{} over {}: {error}",
                    output.name,
                    input.name
                );
                assert_eq!(std::fs::read_to_string(&read).expect("read"), "the input\n");
            }
            pairs += 1;
        }
    }
    assert_eq!(pairs, outputs.len() * inputs.len());
    std::env::set_current_dir(root.path()).expect("cd");
    outputs_never_replace_targets_job_files_or_each_other(root.path());
}

/// The same list guards the rest: a data file, another option's output, `--output` over a
/// file an option writes or reads.
fn outputs_never_replace_targets_job_files_or_each_other(root: &Path) {
    let data = root.join("data");
    std::fs::write(&data, vec![7u8; 4096]).expect("data file");
    let job = |extra: &str| {
        format!(
            "[j]\nrw=read\nbs=4k\nsize=4k\nfilename={}\n{extra}",
            data.display()
        )
    };
    let refused = |text: String, request: RunRequest, words: &[&str]| {
        let error = check_outputs(&request, &[], &jobs(&text))
            .expect_err(&text)
            .to_string();
        for word in words {
            assert!(error.contains(word), "{error} lacks {word}");
        }
    };
    // A log over the job's own data file.
    refused(
        job(&format!("write_iolog={}\n", data.display())),
        request(true),
        &["write_iolog", "reads or tests"],
    );
    // Two options writing one file.
    let log = root.join("x_bw.1.log");
    refused(
        job(&format!(
            "write_bw_log={}\nlog_avg_msec=1000\nwrite_iolog={}\n",
            root.join("x").display(),
            log.display()
        )),
        request(true),
        &["write_bw_log", "write_iolog"],
    );
    // --output over the IO log a job writes, and over the log a job replays.
    let iolog = root.join("io.log");
    let mut to_iolog = request(true);
    to_iolog.output = Some(iolog.clone());
    refused(
        job(&format!("write_iolog={}\n", iolog.display())),
        to_iolog.clone(),
        &["--output"],
    );
    std::fs::write(&iolog, "fio version 3 iolog\n").expect("log");
    refused(
        job(&format!("read_iolog={}\n", iolog.display())),
        to_iolog,
        &["--output"],
    );
    // An IO log over the job file itself.
    let job_file = root.join("self.fio");
    let text = job(&format!("write_iolog={}\n", job_file.display()));
    std::fs::write(&job_file, &text).expect("job file");
    let error = check_outputs(
        &request(true),
        std::slice::from_ref(&job_file),
        &jobs(&text),
    )
    .expect_err("write_iolog over its own job file");
    assert!(error.to_string().contains("write_iolog"), "{error}");
    // A user's file named like a log the run writes: refused unless --allow-overwrite (it is
    // no input, so the flag may replace it).
    let user = root.join("u_bw.1.log");
    std::fs::write(&user, "a user's notes\n").expect("user file");
    let text = job(&format!(
        "write_bw_log={}\nlog_avg_msec=1000\n",
        root.join("u").display()
    ));
    refused(
        text.clone(),
        request(false),
        &["write_bw_log", "--allow-overwrite"],
    );
    check_outputs(&request(true), &[], &jobs(&text)).expect("--allow-overwrite replaces it");
}
