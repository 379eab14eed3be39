//! Definitions that lines refer to by name (`sd=`, `wd=`, `hd=`, `fsd=`, `fwd=`): adding one,
//! refusing a duplicate, and matching the patterns (vdbench wildcards) that refer to them.

use super::{HostDef, RunDef, StorageDef, WorkloadDef};
use crate::error::{nearest, ErrorKind, JobFileError, Location};

/// vdbench wildcards: `*` matches any run of characters, `?` one character.
///
/// The greedy two-pointer match: on a mismatch it retries from the last `*`, one character
/// further, so it takes at most pattern x name steps whatever the stars (a recursive match
/// took exponential time on `s********d-` against a long name: found by fuzzing).
pub fn wildcard_match(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    let (mut pi, mut ni) = (0, 0);
    // The last star's position in the pattern, and where in the name its run now ends.
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ni));
                pi += 1;
            }
            Some(&c) if c == '?' || c == n[ni] => {
                pi += 1;
                ni += 1;
            }
            _ => match star {
                Some((star_pi, star_ni)) => {
                    star = Some((star_pi, star_ni + 1));
                    pi = star_pi + 1;
                    ni = star_ni + 1;
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// A definition other lines refer to by name.
pub(super) trait Named {
    fn name(&self) -> &str;
}

macro_rules! named {
    ($($t:ty),*) => {
        $(impl Named for $t {
            fn name(&self) -> &str {
                &self.name
            }
        })*
    };
}
named!(HostDef, StorageDef, WorkloadDef, RunDef);

/// Adds a definition, refusing a second one of the same name.
pub(super) fn push_new<T: Named>(
    defined: &mut Vec<T>,
    item: T,
    kind: &str,
    loc: &Location,
) -> Result<(), JobFileError> {
    if defined.iter().any(|d| d.name() == item.name()) {
        return Err(duplicate(kind, item.name(), loc));
    }
    defined.push(item);
    Ok(())
}

/// Every pattern (`sd=sd*`, a list) matches a `kind` defined before the line.
pub(super) fn check_references<T: Named>(
    patterns: &[String],
    defined: &[T],
    kind: &str,
    loc: &Location,
) -> Result<(), JobFileError> {
    for pattern in patterns {
        if !defined.iter().any(|d| wildcard_match(pattern, d.name())) {
            return Err(unknown_reference(
                kind,
                pattern,
                defined.iter().map(|d| d.name()),
                loc,
            ));
        }
    }
    Ok(())
}

fn duplicate(kind: &str, name: &str, loc: &Location) -> JobFileError {
    loc.error(
        Some(kind),
        ErrorKind::Duplicate {
            kind: kind.to_string(),
            name: name.to_string(),
        },
    )
}

pub(super) fn unknown_reference<'a>(
    kind: &str,
    pattern: &str,
    known: impl Iterator<Item = &'a str> + Clone,
    loc: &Location,
) -> JobFileError {
    let list: Vec<&str> = known.clone().collect();
    let hint = match nearest(pattern, known) {
        Some(near) => format!(" (did you mean '{near}'?)"),
        None => String::new(),
    };
    loc.error(
        Some(kind),
        ErrorKind::UnknownReference {
            kind: kind.to_string(),
            name: pattern.to_string(),
            detail: format!(
                "{hint}; defined: {}",
                if list.is_empty() {
                    "none".to_string()
                } else {
                    list.join(", ")
                }
            ),
        },
    )
}
