//! What iofit reads differently from the letter of a vdbench parameter file, as data: one kind
//! per note with where it was written and the values it is about, so a caller (and a test)
//! tells them apart without reading words. `Display` is the sentence `iofit vdbench` prints
//! after `note: `.

use crate::error::Location;
use iofit_model::units::Seconds;
use std::fmt;

/// One note on a parameter file.
#[derive(Clone, Debug, PartialEq)]
pub enum VdbenchNote {
    /// `shell=` (as `written`) names a way vdbench reaches its hosts that iofit does not use:
    /// iofit starts its worker over ssh instead.
    ShellOverSsh {
        at: Location,
        written: String,
        shell: RemoteShell,
    },
    /// `hd=host vdbench=path` names vdbench's own binary: iofit ignores it.
    VdbenchPathIgnored {
        at: Location,
        host: String,
        path: String,
    },
    /// `rd=run` has `elapsed=` under twice `interval=`: vdbench refuses it, iofit averages
    /// the one interval.
    ShortElapsed {
        at: Location,
        run: String,
        elapsed_s: Seconds,
        interval_s: Seconds,
    },
}

/// The `shell=` values iofit replaces by ssh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RemoteShell {
    /// `shell=rsh`.
    Rsh,
    /// `shell=vdbench`: vdbench's RMI daemon.
    VdbenchRmi,
}

impl RemoteShell {
    /// Why iofit does not use it.
    fn why_not(self) -> &'static str {
        match self {
            RemoteShell::Rsh => "rsh is not used: it sends everything in clear text",
            RemoteShell::VdbenchRmi => {
                "vdbench's RMI daemon is not used: nothing needs to listen on the hosts"
            }
        }
    }
}

impl fmt::Display for VdbenchNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // The place as `file:line` whatever the file (a `{loc}` would say "argument N"
            // for the command line, which no hd= line comes from).
            VdbenchNote::ShellOverSsh { at, written, shell } => write!(
                f,
                "{}:{}: shell={written} runs over ssh: iofit starts its worker on each host \
                 through the OpenSSH client ({}); the hosts need sshd and a key login for user=",
                at.file,
                at.line,
                shell.why_not()
            ),
            VdbenchNote::VdbenchPathIgnored { at, host, path } => write!(
                f,
                "{at}: hd={host} vdbench={path} is vdbench's path: iofit ignores it and starts \
                 iofit on the host from --remote-iofit (default: this binary's path)"
            ),
            VdbenchNote::ShortElapsed {
                at,
                run,
                elapsed_s,
                interval_s,
            } => write!(
                f,
                "{at}: rd={run} elapsed={}s is less than twice interval={}s (vdbench refuses \
                 it): iofit averages the run's only measured interval",
                elapsed_s.0, interval_s.0
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each kind's sentence is the one the parser printed as a string before the notes were
    /// typed.
    #[test]
    fn each_kind_says_its_sentence() {
        let at = Location::new("f.vdb", 3);
        assert_eq!(
            VdbenchNote::ShellOverSsh {
                at: at.clone(),
                written: "RSH".into(),
                shell: RemoteShell::Rsh
            }
            .to_string(),
            "f.vdb:3: shell=RSH runs over ssh: iofit starts its worker on each host through the \
             OpenSSH client (rsh is not used: it sends everything in clear text); the hosts \
             need sshd and a key login for user="
        );
        assert_eq!(
            VdbenchNote::VdbenchPathIgnored {
                at: at.clone(),
                host: "a".into(),
                path: "/root/vdbench/vdbench".into()
            }
            .to_string(),
            "f.vdb:3: hd=a vdbench=/root/vdbench/vdbench is vdbench's path: iofit ignores it \
             and starts iofit on the host from --remote-iofit (default: this binary's path)"
        );
        assert_eq!(
            VdbenchNote::ShortElapsed {
                at,
                run: "r1".into(),
                elapsed_s: Seconds(1.5),
                interval_s: Seconds(1.0)
            }
            .to_string(),
            "f.vdb:3: rd=r1 elapsed=1.5s is less than twice interval=1s (vdbench refuses it): \
             iofit averages the run's only measured interval"
        );
    }
}
