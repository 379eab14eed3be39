//! Reading job-file text into sections: lines and continuations, `include`, `$VAR` and
//! `${VAR}` expansion, quoting, and each option where it was written.

use super::{read_text, RawOption, Section, MAX_EXPANDED_BYTES, MAX_INCLUDE_DEPTH};
use crate::error::{ErrorKind, JobFileError, Location};
use crate::{fio_options, values};
use iofit_model::job::JobNote;
use std::path::{Path, PathBuf};

/// Splits job text into sections, following includes within the depth and size budgets.
pub(super) struct Reader<'a> {
    pub(super) sections: Vec<Section>,
    pub(super) expanded_bytes: u64,
    pub(super) vars: &'a values::SystemVars,
    /// Notes on `${NAME}`s that were not set (fio reads them as empty).
    pub(super) unset_env: Vec<JobNote>,
}

impl Reader<'_> {
    pub(super) fn read_sections(
        &mut self,
        text: &str,
        source_name: &str,
        base_dir: Option<&Path>,
        depth: usize,
    ) -> Result<(), JobFileError> {
        if text.contains('\0') {
            return Err(JobFileError::new(source_name, 0, None, ErrorKind::Binary));
        }
        for (index, raw_line) in text.lines().enumerate() {
            let loc = Location::new(source_name, index + 1);
            // fio (parse.c strip_blank_end) ends a line at its first ';' or '#'.
            let line = raw_line.split([';', '#']).next().unwrap_or_default().trim();
            if line.is_empty() {
                continue;
            }
            if line.chars().any(|c| c.is_control() && c != '\t') {
                return Err(loc.error(None, ErrorKind::Binary));
            }
            if let Some(rest) = line.strip_prefix('[') {
                let Some(inner) = rest.strip_suffix(']') else {
                    return Err(loc.error(None, ErrorKind::UnclosedSection(quote(line))));
                };
                let name = inner.trim();
                if name.is_empty() {
                    return Err(loc.error(None, ErrorKind::EmptySectionName));
                }
                self.sections.push(Section {
                    name: name.to_string(),
                    loc,
                    options: Vec::new(),
                });
                continue;
            }
            if let Some(include) = line.strip_prefix("include ") {
                self.include(include.trim(), &loc, base_dir, depth)?;
                continue;
            }
            let (key, value) = match line.split_once('=') {
                Some((key, value)) => {
                    let key = key.trim();
                    let value = expand_env(value.trim(), key, &loc, &mut self.unset_env)?;
                    let substituted = self.vars.substitute(&value);
                    let value = values::bc_after_keywords(&value, substituted);
                    let value = values::evaluate_arithmetic(&value, is_time_option(key)).map_err(
                        |why| {
                            loc.invalid(
                                key,
                                &value,
                                why,
                                "write (EXPRESSION) with + - * / % ^ and numbers, e.g. (1024*8)k",
                            )
                        },
                    )?;
                    (key, Some(value))
                }
                None => (line, None),
            };
            if key.is_empty() || key.contains(char::is_whitespace) {
                return Err(loc.error(
                    None,
                    ErrorKind::Other(format!(
                        "'{}' is not an option line; write key=value, a bare flag, or [section]",
                        quote(line)
                    )),
                ));
            }
            let Some(section) = self.sections.last_mut() else {
                return Err(loc.error(Some(key), ErrorKind::OptionOutsideSection(key.to_string())));
            };
            section.options.push(RawOption {
                key: key.to_string(),
                value,
                loc,
            });
        }
        Ok(())
    }

    fn include(
        &mut self,
        include: &str,
        loc: &Location,
        base_dir: Option<&Path>,
        depth: usize,
    ) -> Result<(), JobFileError> {
        if depth >= MAX_INCLUDE_DEPTH {
            return Err(loc.error(
                Some("include"),
                ErrorKind::Other(format!(
                    "include {} nests more than {MAX_INCLUDE_DEPTH} deep; an include loop?",
                    quote(include)
                )),
            ));
        }
        let path = match base_dir {
            Some(dir) if Path::new(include).is_relative() => dir.join(include),
            _ => PathBuf::from(include),
        };
        let included_name = path.display().to_string();
        let included = read_text(&path, &included_name).map_err(|e| {
            loc.error(
                Some("include"),
                ErrorKind::Other(format!(
                    "cannot include {}: {}",
                    quote(&included_name),
                    e.kind
                )),
            )
        })?;
        self.expanded_bytes += included.len() as u64;
        if self.expanded_bytes > MAX_EXPANDED_BYTES {
            return Err(loc.error(
                Some("include"),
                ErrorKind::Other(format!(
                    "the includes add up to more than {} MiB of job text; an include fan-out? include each file once",
                    MAX_EXPANDED_BYTES >> 20
                )),
            ));
        }
        let included_dir = path.parent().map(Path::to_path_buf);
        self.read_sections(
            &included,
            &included_name,
            included_dir.as_deref(),
            depth + 1,
        )
    }
}

/// At most ~80 characters of what the user wrote, for error messages.
pub(super) fn quote(text: &str) -> String {
    const MAX_CHARS: usize = 80;
    if text.chars().count() <= MAX_CHARS {
        return text.to_string();
    }
    let cut: String = text.chars().take(MAX_CHARS).collect();
    format!("{cut}...")
}

/// fio reads an expression's result for a time option in microseconds (HOWTO, "Parameter
/// types"); the table says which options take a time.
fn is_time_option(key: &str) -> bool {
    fio_options::table().find(key).is_some_and(|o| o.takes_time)
}

/// fio expands `${NAME}` in option values from the environment, an unset variable to nothing
/// (`write_bw_log=${TESTNAME}` then logs under the job's name); iofit does the same and says so
/// in a note (`notes`), since the job may not be the one its author meant.
fn expand_env(
    value: &str,
    key: &str,
    loc: &Location,
    notes: &mut Vec<JobNote>,
) -> Result<String, JobFileError> {
    if !value.contains("${") {
        return Ok(value.to_string());
    }
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(loc.invalid(key, &quote(value), "a '${' is not closed", "write ${NAME}"));
        };
        let name = &after[..end];
        if name.is_empty() {
            return Err(loc.invalid(
                key,
                value,
                "'${}' names no variable",
                "write ${NAME} with the variable's name",
            ));
        }
        match std::env::var(name) {
            Ok(expanded) => out.push_str(&expanded),
            Err(_) => notes.push(JobNote::UnsetEnv {
                file: loc.file.clone(),
                line: loc.line,
                option: key.to_string(),
                variable: quote(name),
            }),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}
