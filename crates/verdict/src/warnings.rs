//! What a reader must know about the results themselves, as data: each [`ResultsWarning`]
//! names its kind and the job or file it is about, so a caller can tell them apart without
//! reading words; its `Display` is the one sentence every report prints.
//!
//! In JSON each is that sentence (the format readers already have); one read back from JSON is
//! the `Recorded` kind, which keeps the sentence only.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A fact about the results that limits what their numbers mean.
#[derive(Clone, Debug, PartialEq)]
pub enum ResultsWarning {
    /// The job stopped on an error: its numbers cover what completed before it.
    JobError { job: String, error: String },
    /// The job was interrupted before its planned end.
    JobInterrupted { job: String },
    /// The results file is a `--status-interval` stream of `reports` reports; the last one was
    /// read.
    FinalOfStream { reports: usize, results: String },
    /// A warning read back from a comparison's JSON: its sentence only.
    Recorded(String),
}

impl ResultsWarning {
    /// The job the warning is about; `None` for the file's.
    pub fn job(&self) -> Option<&str> {
        match self {
            ResultsWarning::JobError { job, .. } | ResultsWarning::JobInterrupted { job } => {
                Some(job)
            }
            ResultsWarning::FinalOfStream { .. } | ResultsWarning::Recorded(_) => None,
        }
    }
}

impl fmt::Display for ResultsWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResultsWarning::JobError { job, error } => write!(
                f,
                "job '{job}' stopped on an error ({error}); its numbers cover what completed \
                 before it"
            ),
            ResultsWarning::JobInterrupted { job } => write!(
                f,
                "job '{job}' was interrupted before its planned end; its numbers cover what \
                 completed"
            ),
            ResultsWarning::FinalOfStream { reports, results } => write!(
                f,
                "read the final report of {reports} in {results} (a --status-interval stream: \
                 the reports before it are interim, measured while the jobs ran)"
            ),
            ResultsWarning::Recorded(sentence) => f.write_str(sentence),
        }
    }
}

/// In JSON a warning is its sentence; read back, it is the `Recorded` kind.
impl Serialize for ResultsWarning {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ResultsWarning {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(ResultsWarning::Recorded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_reads_as_the_sentence_reports_print_and_json_keeps_it() {
        let error = ResultsWarning::JobError {
            job: "oltp".into(),
            error: "EIO on /data/f".into(),
        };
        assert_eq!(
            error.to_string(),
            "job 'oltp' stopped on an error (EIO on /data/f); its numbers cover what completed \
             before it"
        );
        assert_eq!(error.job(), Some("oltp"));
        let stream = ResultsWarning::FinalOfStream {
            reports: 3,
            results: "r.json".into(),
        };
        assert!(stream
            .to_string()
            .starts_with("read the final report of 3 in r.json ("));
        assert_eq!(stream.job(), None);
        let json = serde_json::to_string(&error).unwrap();
        assert_eq!(json, serde_json::to_string(&error.to_string()).unwrap());
        let back: ResultsWarning = serde_json::from_str(&json).unwrap();
        assert_eq!(back, ResultsWarning::Recorded(error.to_string()));
        assert_eq!(back.to_string(), error.to_string());
    }
}
