//! One way out of a refused output: every command that writes a file refuses to replace a
//! user's existing file, leaves it as it was, and names the way out; every flag the refusal
//! names is one the command accepts (`--allow-overwrite` on profile, plan, predict, compare,
//! emulate, demo as on run, bench, vdbench); and, where the command is cheap enough to run
//! here, passing it replaces the file.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

const PRECIOUS: &str = "a user's notes, not an iofit output\n";

fn data(path: &str) -> String {
    format!("{}/../../tests/data/{path}", env!("CARGO_MANIFEST_DIR"))
}

fn help(command: &str) -> String {
    let out = Command::cargo_bin("iofit")
        .unwrap()
        .args([command, "--help"])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// The long flags a message names (`--allow-overwrite`, `--report`...).
fn named_flags(message: &str) -> Vec<String> {
    let mut flags = Vec::new();
    let mut rest = message;
    while let Some(at) = rest.find("--") {
        let name: String = rest[at + 2..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '-')
            .collect();
        if !name.is_empty() {
            flags.push(format!("--{name}"));
        }
        rest = &rest[at + 2 + name.len()..];
    }
    flags
}

/// One command writing `output`: its arguments, with `{out}` standing for the output's path.
struct Case {
    command: &'static str,
    args: Vec<String>,
    /// Cheap enough to run again with --allow-overwrite and see the file replaced.
    rerun: bool,
}

fn case(command: &'static str, args: &[&str], rerun: bool) -> Case {
    Case {
        command,
        args: args.iter().map(|a| a.to_string()).collect(),
        rerun,
    }
}

fn run(case: &Case, out: &Path, extra: &[&str]) -> std::process::Output {
    let args: Vec<String> = case
        .args
        .iter()
        .map(|a| a.replace("{out}", &out.display().to_string()))
        .collect();
    // Flags go before a `--` that ends the command's own (emulate's command to run).
    let split = args.iter().position(|a| a == "--").unwrap_or(args.len());
    Command::cargo_bin("iofit")
        .unwrap()
        .current_dir(out.parent().unwrap())
        .arg(case.command)
        .args(&args[..split])
        .args(extra)
        .args(&args[split..])
        .output()
        .unwrap()
}

#[test]
fn every_refused_output_names_a_flag_its_command_accepts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let capture = data("iostat/example-db-server_sysstat-12.6.1_xt_10s.txt");
    let requirements = data("results/req-oltp-pass.toml");
    let results = data("results/iofit-randrw-8k.json");
    // A fleet directory for plan --fleet, made by profile --fleet-out.
    let fleet = d.join("fleet");
    let made = Command::cargo_bin("iofit")
        .unwrap()
        .args(["profile", &capture, "--fleet-out"])
        .arg(&fleet)
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    let parm = d.join("parm.vdb");
    std::fs::write(
        &parm,
        format!(
            "sd=sd1,lun={}/lun,size=1m\nwd=wd1,sd=sd1,xfersize=4k,rdpct=100\n\
             rd=rd1,wd=wd1,iorate=max,elapsed=1,interval=1\n",
            d.display()
        ),
    )
    .unwrap();
    let fleet = fleet.display().to_string();
    let mount_root = d.join("mnt").display().to_string();
    let parm = parm.display().to_string();
    let cases = [
        case("profile", &[&capture, "-o", "{out}"], true),
        case("profile", &[&capture, "--report", "{out}"], true),
        case(
            "plan",
            &["--requirements", &requirements, "--report", "{out}"],
            true,
        ),
        case("plan", &["--fleet", &fleet, "--fleet-csv", "{out}"], true),
        case(
            "predict",
            &[
                "--vm",
                "Standard_D16s_v5",
                "--disk",
                "1xP30",
                "--report",
                "{out}",
            ],
            true,
        ),
        case(
            "compare",
            &[
                &results,
                "--requirements",
                &requirements,
                "--report",
                "{out}",
            ],
            true,
        ),
        case(
            "emulate",
            &[
                "--vm",
                "Standard_D4s_v5",
                "--disk",
                "1xE10",
                "--mount-root",
                &mount_root,
                "--report",
                "{out}",
                "--",
                "true",
            ],
            false,
        ),
        case("demo", &["--report", "{out}"], false),
        case(
            "run",
            &[
                "--name=a",
                "--ioengine=null",
                "--size=1m",
                "--output",
                "{out}",
            ],
            true,
        ),
        case("vdbench", &["-f", &parm, "-o", "{dir}"], false),
    ];
    let mut problems = Vec::new();
    for (n, case) in cases.iter().enumerate() {
        let out: PathBuf = if case.command == "vdbench" {
            // vdbench -o DIR writes DIR/summary.html.
            let out_dir = d.join(format!("vdb{n}"));
            std::fs::create_dir(&out_dir).unwrap();
            out_dir.join("summary.html")
        } else {
            d.join(format!("user{n}.txt"))
        };
        std::fs::write(&out, PRECIOUS).unwrap();
        let case = Case {
            command: case.command,
            args: case
                .args
                .iter()
                .map(|a| a.replace("{dir}", &out.parent().unwrap().display().to_string()))
                .collect(),
            rerun: case.rerun,
        };
        let refused = run(&case, &out, &[]);
        let stderr = String::from_utf8_lossy(&refused.stderr);
        let what = format!("iofit {} {:?}", case.command, case.args);
        if refused.status.code() != Some(2) || !stderr.contains("--allow-overwrite") {
            problems.push(format!(
                "{what}: not refused naming --allow-overwrite ({:?}): {stderr}",
                refused.status.code()
            ));
            continue;
        }
        if std::fs::read_to_string(&out).unwrap() != PRECIOUS {
            problems.push(format!("{what}: the user's file was changed"));
        }
        let accepted = help(case.command);
        for flag in named_flags(&stderr) {
            if !accepted.contains(&format!("{flag} ")) && !accepted.contains(&format!("{flag}\n")) {
                problems.push(format!(
                    "{what}: the refusal names {flag}, which it does not take"
                ));
            }
        }
        if case.rerun {
            let replaced = run(&case, &out, &["--allow-overwrite"]);
            let text = std::fs::read_to_string(&out).unwrap_or_default();
            if !replaced.status.success() || text == PRECIOUS || text.is_empty() {
                problems.push(format!(
                    "{what} --allow-overwrite: exit {:?}, file replaced: {}: {}",
                    replaced.status.code(),
                    text != PRECIOUS,
                    String::from_utf8_lossy(&replaced.stderr)
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn named_flags_reads_the_flags_of_a_message() {
    assert_eq!(
        named_flags("-o: the file exists (...). Give another name, or pass --allow-overwrite"),
        ["--allow-overwrite"]
    );
    assert_eq!(
        named_flags("--report and --fleet-csv name one file"),
        ["--report", "--fleet-csv"]
    );
}
