//! Typed errors of the parsers: every one names the file, the line (1-based) and the column or
//! key at fault, and says how to fix it.

use std::fmt;

/// Where in the input a problem sits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    /// 1-based line number; 0 when the problem is the file as a whole.
    pub line: u64,
    /// Column name or key, when one is at fault.
    pub column: Option<String>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.file)?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
        }
        if let Some(column) = &self.column {
            write!(f, ", column '{column}'")?;
        }
        Ok(())
    }
}

/// Why a capture could not be read or summarised.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("{file}: cannot read: {source}")]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
    /// The input is malformed at a known place.
    #[error("{at}: {message}; {fix}")]
    Syntax {
        at: Location,
        message: String,
        fix: String,
    },
    /// The input parsed but lacks what a requirement needs (no disk counters, no reports...).
    #[error("{file}: {message}; {fix}")]
    Content {
        file: String,
        message: String,
        fix: String,
    },
    /// An option does not fit the capture (unknown device, window without timestamps...).
    #[error("{message}; {fix}")]
    Option { message: String, fix: String },
}

impl ProfileError {
    pub(crate) fn syntax(
        file: &str,
        line: u64,
        column: Option<&str>,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) -> ProfileError {
        ProfileError::Syntax {
            at: Location {
                file: file.to_string(),
                line,
                column: column.map(str::to_string),
            },
            message: message.into(),
            fix: fix.into(),
        }
    }

    pub(crate) fn content(
        file: &str,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) -> ProfileError {
        ProfileError::Content {
            file: file.to_string(),
            message: message.into(),
            fix: fix.into(),
        }
    }

    pub(crate) fn option(message: impl Into<String>, fix: impl Into<String>) -> ProfileError {
        ProfileError::Option {
            message: message.into(),
            fix: fix.into(),
        }
    }
}

/// Shortens a line for an error message so one bad binary line cannot flood the terminal.
pub(crate) fn excerpt(text: &str) -> String {
    let clean: String = text
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .take(60)
        .collect();
    if text.chars().count() > 60 {
        format!("{clean}...")
    } else {
        clean
    }
}
