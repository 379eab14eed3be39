//! How a command ends: the exit status it returns and the lines it says on stderr before, as
//! the procedure decided them. The binary prints each line after `iofit: ` and exits with
//! [`Exit::code`]; nothing else in it chooses an exit code.

/// The exit status of a command (see the binary's `exit` module for what each means to a
/// script).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// 0: the work ran and succeeded.
    Success,
    /// 1: the work ran and did not succeed (a job stopped on an IO error).
    Failed,
    /// 3: a multi-host run lost a host after the start; the other hosts' results are kept.
    Incomplete,
    /// 4: data verification found bad data.
    DataErrors,
    /// 130: a signal stopped the work; what ran before it is reported.
    Interrupted,
    /// A command run under iofit (`emulate`) ended with this code, passed on.
    Command(u8),
}

impl Exit {
    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Failed => 1,
            Exit::Incomplete => 3,
            Exit::DataErrors => 4,
            Exit::Interrupted => 130,
            Exit::Command(code) => code,
        }
    }
}

/// The exit status and what to say on stderr first, in order (each line without the
/// `iofit: ` the binary puts before it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ending {
    pub exit: Exit,
    pub notes: Vec<String>,
}

impl Ending {
    /// Ends with `exit` and nothing to say.
    pub fn quiet(exit: Exit) -> Self {
        Ending {
            exit,
            notes: Vec::new(),
        }
    }

    /// Exit 0 when the outcome `succeeded` (designs found, requirements met), 1 otherwise;
    /// nothing to say.
    pub fn passed(succeeded: bool) -> Self {
        Ending::quiet(if succeeded {
            Exit::Success
        } else {
            Exit::Failed
        })
    }

    /// Ends with `exit` after one line.
    pub fn with(exit: Exit, note: impl Into<String>) -> Self {
        Ending {
            exit,
            notes: vec![note.into()],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_the_documented_ones() {
        assert_eq!(Exit::Success.code(), 0);
        assert_eq!(Exit::Failed.code(), 1);
        assert_eq!(Exit::Incomplete.code(), 3);
        assert_eq!(Exit::DataErrors.code(), 4);
        assert_eq!(Exit::Interrupted.code(), 130);
        assert_eq!(Exit::Command(42).code(), 42);
        let ending = Ending::with(Exit::Failed, "why");
        assert_eq!(ending.notes, vec!["why".to_string()]);
        assert!(Ending::quiet(Exit::Success).notes.is_empty());
        assert_eq!(Ending::passed(true), Ending::quiet(Exit::Success));
        assert_eq!(Ending::passed(false), Ending::quiet(Exit::Failed));
    }
}
