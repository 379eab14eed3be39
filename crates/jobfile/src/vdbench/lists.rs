//! vdbench list values: numeric ranges (`(1k-64k,d)` doubling, `(10-100,10)` stepping,
//! `(64k-1k,d)` halving), alphanumeric ranges (`sd=(sd1-sd8)`), and command-line parameter
//! substitution (`vdbench -f parm lun=/dev/x` replaces `$lun` and `!lun`), after vdbench's
//! `Var_parms` and `InsertHosts.substituteLine`.

use crate::values::ValueError;

/// The most values one list may expand to (vdbench allocates 10,240).
pub const MAX_LIST_VALUES: usize = 10_240;

/// Why a list or a substitution cannot be read, without its place (the caller adds the file,
/// line and key).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ListError {
    /// An item that is not a number of the list's kind (the item parser's reason).
    #[error(transparent)]
    Item(#[from] ValueError),
    #[error("the range {0} needs a step after it: ({0},d) doubles, ({0},N) steps by N")]
    NoStep(String),
    #[error("the doubling range {0} must start above 0")]
    DoublingFromZero(String),
    #[error("the range {item} with step {step} never reaches its end; write a step above 0")]
    StepNotPositive { item: String, step: f64 },
    #[error("the list expands to more than {MAX_LIST_VALUES} values")]
    TooManyValues,
    #[error("the name range {0} must count up (sd1-sd8) and hold at most {MAX_LIST_VALUES} names")]
    NameRange(String),
    #[error(
        "'{0}' is not a substitution; write name=value to replace $name in the parameter file"
    )]
    NotASubstitution(String),
    /// `=$name` with no `name=value` given on the command line.
    #[error("{0}")]
    Unresolved(String),
}

/// Expands numeric ranges in a list: an item `LOW-HIGH` followed by `d` doubles from LOW up
/// to HIGH (halves when HIGH < LOW), followed by a number steps by it. `parse` turns an item
/// into its number (sizes with k/m/g, percentages). Errors are text for the caller to place.
pub fn expand_numeric(
    items: &[String],
    parse: impl Fn(&str) -> Result<f64, ValueError>,
) -> Result<Vec<f64>, ListError> {
    let mut out: Vec<f64> = Vec::new();
    let mut index = 0;
    while index < items.len() {
        let item = items[index].trim();
        let range = item
            .char_indices()
            .skip(1)
            .find(|(_, c)| *c == '-')
            .map(|(i, _)| (&item[..i], &item[i + 1..]));
        match range {
            Some((low, high)) if !high.is_empty() => {
                let low = parse(low)?;
                let high = parse(high)?;
                let step = items
                    .get(index + 1)
                    .ok_or_else(|| ListError::NoStep(item.to_string()))?
                    .trim()
                    .to_ascii_lowercase();
                index += 2;
                out.push(low);
                if step == "d" {
                    if low <= 0.0 {
                        return Err(ListError::DoublingFromZero(item.to_string()));
                    }
                    let mut value = low;
                    loop {
                        value = if high >= low {
                            value * 2.0
                        } else {
                            value / 2.0
                        };
                        let inside = if high >= low {
                            value <= high
                        } else {
                            value >= high
                        };
                        if !inside {
                            break;
                        }
                        push(&mut out, value)?;
                    }
                } else {
                    let step = parse(&step)?;
                    if step <= 0.0 {
                        return Err(ListError::StepNotPositive {
                            item: item.to_string(),
                            step,
                        });
                    }
                    // (100-0,10) steps down: 100, 90, ... 0.
                    let down = high < low;
                    let mut value = if down { low - step } else { low + step };
                    while (!down && value <= high + 1e-9) || (down && value >= high - 1e-9) {
                        push(&mut out, value)?;
                        value = if down { value - step } else { value + step };
                    }
                }
            }
            _ => {
                push(&mut out, parse(item)?)?;
                index += 1;
            }
        }
    }
    Ok(out)
}

fn push(out: &mut Vec<f64>, value: f64) -> Result<(), ListError> {
    if out.len() >= MAX_LIST_VALUES {
        return Err(ListError::TooManyValues);
    }
    out.push(value);
    Ok(())
}

/// Expands `sd1-sd8` into `sd1`..`sd8` (same prefix, increasing number); other items stay.
pub fn expand_names(items: &[String]) -> Result<Vec<String>, ListError> {
    let mut out = Vec::new();
    for item in items {
        let Some((first, last)) = item.split_once('-') else {
            out.push(item.clone());
            continue;
        };
        let (prefix1, n1) = split_number(first);
        let (prefix2, n2) = split_number(last);
        match (n1, n2) {
            (Some(n1), Some(n2)) if prefix1 == prefix2 && !prefix1.is_empty() => {
                if n2 <= n1 || n2 - n1 >= MAX_LIST_VALUES as u64 {
                    return Err(ListError::NameRange(item.clone()));
                }
                out.extend((n1..=n2).map(|n| format!("{prefix1}{n}")));
            }
            // A name that merely contains '-' (a file name): kept as written.
            _ => out.push(item.clone()),
        }
    }
    Ok(out)
}

fn split_number(text: &str) -> (&str, Option<u64>) {
    let digits = text.len() - text.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (prefix, number) = text.split_at(text.len() - digits);
    (prefix, number.parse().ok())
}

/// A command-line substitution `name=value` and how often it was used.
#[derive(Clone, Debug)]
pub struct Substitution {
    pub name: String,
    pub value: String,
    pub used: usize,
}

/// Parses `name=value` items from the command line (`iofit run parm lun=/tmp/x`).
pub fn substitutions(items: &[String]) -> Result<Vec<Substitution>, ListError> {
    items
        .iter()
        .map(|item| match item.split_once('=') {
            Some((name, value)) if !name.is_empty() && !name.starts_with('-') => Ok(Substitution {
                name: name.to_string(),
                value: value.to_string(),
                used: 0,
            }),
            _ => Err(ListError::NotASubstitution(item.clone())),
        })
        .collect()
}

/// Replaces `$name`, `${name}` and `!name` of every substitution in `line`; a name ends at
/// the first character that cannot be part of one, so `$lun` leaves `$lun2` alone. Returns
/// the unresolved `$name` when one is left (`$host` stays: it is vdbench's per-host
/// repetition, not a substitution).
pub fn substitute(line: &str, subs: &mut [Substitution]) -> Result<String, ListError> {
    let is_name = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let mut index = 0;
    while index < chars.len() {
        let c = chars[index];
        if c == '$' || c == '!' {
            let braced = chars.get(index + 1) == Some(&'{');
            let start = index + 1 + usize::from(braced);
            let mut end = start;
            while end < chars.len() && is_name(chars[end]) {
                end += 1;
            }
            let name: String = chars[start..end].iter().collect();
            let closed = !braced || chars.get(end) == Some(&'}');
            if !name.is_empty() && closed {
                if let Some(sub) = subs.iter_mut().find(|s| s.name == name) {
                    sub.used += 1;
                    out.push_str(&sub.value);
                    index = end + usize::from(braced);
                    continue;
                }
                // Only `=$name` is a request vdbench refuses when unresolved; `!` elsewhere
                // is ordinary text.
                if c == '$' && name != "host" && out.ends_with('=') {
                    return Err(ListError::Unresolved(name));
                }
            }
        }
        out.push(c);
        index += 1;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn size(text: &str) -> Result<f64, ValueError> {
        crate::values::parse_size(text, iofit_model::units::SizeBase::Binary)
            .map(|b| b.as_u64() as f64)
    }
    fn items(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn doubling_stepping_and_halving() {
        let k = 1024.0;
        assert_eq!(
            expand_numeric(&items(&["1k-64k", "d"]), size).unwrap(),
            vec![k, 2.0 * k, 4.0 * k, 8.0 * k, 16.0 * k, 32.0 * k, 64.0 * k]
        );
        assert_eq!(
            expand_numeric(&items(&["10-100", "10"]), size).unwrap(),
            (1..=10).map(|i| f64::from(i * 10)).collect::<Vec<_>>()
        );
        assert_eq!(
            expand_numeric(&items(&["64k-16k", "d"]), size).unwrap(),
            vec![64.0 * k, 32.0 * k, 16.0 * k]
        );
        assert_eq!(
            expand_numeric(&items(&["4k", "1-4", "d"]), size).unwrap(),
            vec![4.0 * k, 1.0, 2.0, 4.0]
        );
        assert!(expand_numeric(&items(&["1-10"]), size).is_err());
        assert_eq!(
            expand_numeric(&items(&["100-0", "25"]), size).unwrap(),
            vec![100.0, 75.0, 50.0, 25.0, 0.0]
        );
        assert!(expand_numeric(&items(&["1-100000000", "1"]), size)
            .unwrap_err()
            .to_string()
            .contains("more than"));
    }

    #[test]
    fn name_ranges() {
        assert_eq!(
            expand_names(&items(&["sd1-sd3", "x"])).unwrap(),
            items(&["sd1", "sd2", "sd3", "x"])
        );
        assert_eq!(expand_names(&items(&["a-b"])).unwrap(), items(&["a-b"]));
        assert!(expand_names(&items(&["sd3-sd1"])).is_err());
    }

    #[test]
    fn substitution_replaces_and_reports_missing() {
        let mut subs = substitutions(&items(&["lun=/tmp/x", "lun2=/tmp/y"])).unwrap();
        assert_eq!(
            substitute("sd=sd1,lun=$lun2,size=!lun", &mut subs).unwrap(),
            "sd=sd1,lun=/tmp/y,size=/tmp/x"
        );
        assert_eq!(subs[0].used, 1);
        assert_eq!(substitute("x=${lun}y", &mut subs).unwrap(), "x=/tmp/xy");
        let mut only_lun = substitutions(&items(&["lun=/a"])).unwrap();
        assert_eq!(
            substitute("lun=$lun2", &mut only_lun).unwrap_err(),
            ListError::Unresolved("lun2".into())
        );
        assert_eq!(
            substitute("sd=a,lun=$other", &mut subs).unwrap_err(),
            ListError::Unresolved("other".into())
        );
        assert!(substitute("fsd=fsd_$host,anchor=/x", &mut subs).is_ok());
        assert!(substitutions(&items(&["novalue"])).is_err());
    }
}
