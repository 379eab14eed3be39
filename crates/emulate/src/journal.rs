//! A record of everything an emulation made (cgroup, images, loop devices, mounts,
//! directories), written before each thing is made, so that `iofit emulate --cleanup` can undo
//! the work of a run that was killed before it could clean up itself.

use crate::EmulateError;
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One thing the emulation made, undone in reverse order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Made {
    Cgroup { dir: PathBuf },
    Image { path: PathBuf },
    LoopDevice { device: PathBuf },
    Mount { target: PathBuf },
    Directory { path: PathBuf },
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Journal {
    pub pid: u32,
    pub made: Vec<Made>,
    #[serde(skip)]
    path: PathBuf,
}

/// Where journals live: root's runtime directory.
pub const STATE_DIR: &str = "/run/iofit-emulate";

impl Journal {
    pub fn create(state_dir: &Path) -> Result<Journal, EmulateError> {
        iofit_safefs::scratch::create_output_dirs(state_dir)
            .map_err(|e| io(format!("creating {}", state_dir.display()), e.into_io()))?;
        let pid = std::process::id();
        let journal = Journal {
            pid,
            made: Vec::new(),
            path: state_dir.join(format!("{pid}.json")),
        };
        journal.save()?;
        Ok(journal)
    }

    /// Records `made` before it is made (a crash in between leaves a harmless entry).
    pub fn record(&mut self, made: Made) -> Result<(), EmulateError> {
        self.made.push(made);
        self.save()
    }

    fn save(&self) -> Result<(), EmulateError> {
        let text = serde_json::to_string_pretty(self).expect("journal serializes");
        // A random O_EXCL|O_NOFOLLOW temporary name and a rename (iofit_safefs::atomic): a
        // crash leaves the old journal or the new one, never half of one, and no fixed
        // temporary name can be planted as a link.
        iofit_safefs::atomic::write_atomic(&self.path, text.as_bytes()).map_err(|e| {
            io(
                format!("writing {}", self.path.display()),
                std::io::Error::other(e.detail()),
            )
        })
    }

    /// Undoes everything recorded, newest first; returns what could not be undone.
    pub fn undo(mut self) -> Vec<String> {
        let mut failures = Vec::new();
        while let Some(made) = self.made.pop() {
            if let Err(problem) = undo_one(&made) {
                failures.push(problem.to_string());
            }
            let _ = self.save();
        }
        if failures.is_empty() {
            let _ = iofit_safefs::scratch::remove_name(&self.path);
        }
        failures
    }

    /// Journals of emulations whose process is gone (killed before cleaning up).
    pub fn orphans(state_dir: &Path) -> Vec<Journal> {
        let Ok(entries) = fs::read_dir(state_dir) else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
            .filter_map(|e| {
                let text = fs::read_to_string(e.path()).ok()?;
                let mut journal: Journal = serde_json::from_str(&text).ok()?;
                journal.path = e.path();
                (!process_alive(journal.pid)).then_some(journal)
            })
            .collect()
    }
}

fn process_alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// Why something made could not be undone, or a system tool failed.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The tool could not be started.
    #[error("running {tool}: {source} (is it installed?)")]
    Spawn {
        tool: String,
        #[source]
        source: std::io::Error,
    },
    /// The tool ran and failed; its stderr says why.
    #[error("{tool} {args}: {stderr}")]
    Failed {
        tool: String,
        args: String,
        stderr: String,
    },
    /// Removing a cgroup or an image failed.
    #[error("removing {}: {source}", path.display())]
    Remove {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A loop device stayed attached after `losetup -d`.
    #[error("{} is still attached 2 s after `losetup -d`", device.display())]
    StillAttached { device: PathBuf },
}

fn undo_one(made: &Made) -> Result<(), ToolError> {
    match made {
        Made::Cgroup { dir } => {
            if dir.exists() {
                kill_members(dir);
                iofit_safefs::control::remove_control_dir(dir).map_err(|e| ToolError::Remove {
                    path: dir.clone(),
                    source: e.into_io(),
                })?;
            }
            Ok(())
        }
        Made::Mount { target } => {
            if is_mounted(target) {
                run_tool("umount", &[target.as_os_str()])
                    .or_else(|_| run_tool("umount", &["-l".as_ref(), target.as_os_str()]))?;
            }
            Ok(())
        }
        Made::LoopDevice { device } => {
            // A loop device that was already detached and reused by someone else must not be
            // detached again: only detach it while it is still backed by our image.
            if loop_backing(device).is_some_and(|b| b.contains("iofit-emulate-")) {
                run_tool("losetup", &["-d".as_ref(), device.as_os_str()])?;
                // A device still held for a moment (an unmount finishing) is only marked to
                // detach when released: wait for that, so "cleaned up" means gone.
                for _ in 0..100 {
                    if loop_backing(device).is_none() {
                        return Ok(());
                    }
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                return Err(ToolError::StillAttached {
                    device: device.clone(),
                });
            }
            Ok(())
        }
        Made::Image { path } => match iofit_safefs::scratch::remove_name(path) {
            Err(source) if source.kind() != std::io::ErrorKind::NotFound => {
                Err(ToolError::Remove {
                    path: path.clone(),
                    source,
                })
            }
            _ => Ok(()),
        },
        Made::Directory { path } => {
            // Only an empty directory we made is removed; anything put there stays.
            let _ = iofit_safefs::scratch::remove_empty_dir(path);
            Ok(())
        }
    }
}

fn kill_members(dir: &Path) {
    for _ in 0..50 {
        let members: Vec<i32> = fs::read_to_string(dir.join("cgroup.procs"))
            .map(|t| t.lines().filter_map(|l| l.trim().parse().ok()).collect())
            .unwrap_or_default();
        if members.is_empty() {
            return;
        }
        for pid in members {
            // SAFETY: kill(2) on a pid read from the cgroup's member list.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

pub(crate) fn is_mounted(target: &Path) -> bool {
    let Ok(canonical) = target.canonicalize() else {
        return false;
    };
    fs::read_to_string("/proc/self/mounts")
        .map(|t| {
            t.lines()
                .any(|l| l.split_whitespace().nth(1) == Some(&*canonical.to_string_lossy()))
        })
        .unwrap_or(false)
}

/// The backing file of a loop device, from sysfs.
pub(crate) fn loop_backing(device: &Path) -> Option<String> {
    let name = device.file_name()?.to_str()?;
    fs::read_to_string(format!("/sys/block/{name}/loop/backing_file"))
        .ok()
        .map(|s| s.trim().to_string())
}

/// Runs a system tool (losetup, mkfs.ext4, mount, umount); its stderr becomes the error.
pub(crate) fn run_tool(tool: &str, args: &[&std::ffi::OsStr]) -> Result<String, ToolError> {
    let output = Command::new(tool)
        .args(args)
        .output()
        .map_err(|source| ToolError::Spawn {
            tool: tool.to_string(),
            source,
        })?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
    } else {
        Err(ToolError::Failed {
            tool: tool.to_string(),
            args: args
                .iter()
                .map(|a| a.to_string_lossy())
                .collect::<Vec<_>>()
                .join(" "),
            stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
        })
    }
}

fn io(what: String, source: std::io::Error) -> EmulateError {
    EmulateError::Io { what, source }
}
