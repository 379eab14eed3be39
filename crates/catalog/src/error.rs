//! The one error type of the catalog. Every variant names where the problem is (file, row,
//! field) and says how to fix it, so the CLI can print it on one line and exit 2.

/// Why a catalog file could not be loaded or a name could not be found.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CatalogError {
    /// The file could not be read at all.
    #[error("{file}: cannot read the catalog file: {message}")]
    Read { file: String, message: String },

    /// The file is not valid TOML.
    #[error("{file}: line {line}: {message}; fix the TOML syntax (see catalog/README.md)")]
    Syntax {
        file: String,
        line: usize,
        message: String,
    },

    /// A problem with the file as a whole (a missing `[table]`, an unknown section...).
    #[error("{file}: {problem}")]
    File { file: String, problem: String },

    /// A field of the file's `[table]` is missing or wrong.
    #[error("{file}:{}: [table]: field {field}: {problem}", line_suffix(*.line))]
    Table {
        file: String,
        line: Option<usize>,
        field: String,
        problem: String,
    },

    /// A field of one row is missing or wrong. `index` counts from 0 within its section, as
    /// TOML arrays do; `line` is where the field (or the row) starts when it could be found.
    #[error("{file}:{}: {section}[{index}] ({name}): field {field}: {problem}", line_suffix(*.line))]
    Row {
        file: String,
        line: Option<usize>,
        section: String,
        index: usize,
        name: String,
        field: String,
        problem: String,
    },

    /// A name looked up in the catalog does not exist in the chosen edition.
    #[error("unknown {what} '{name}' in the {edition} catalog; nearest: {}{hint}", nearest.join(", "))]
    Unknown {
        what: String,
        name: String,
        edition: String,
        nearest: Vec<String>,
        /// Extra advice, e.g. that the name exists in another edition.
        hint: String,
    },

    /// An edition other than the known ones was asked for.
    #[error("unknown catalog edition '{edition}'; use one of: {}", known.join(", "))]
    UnknownEdition { edition: String, known: Vec<String> },
}

fn line_suffix(line: Option<usize>) -> String {
    match line {
        Some(line) => format!(" line {line}"),
        None => String::new(),
    }
}
