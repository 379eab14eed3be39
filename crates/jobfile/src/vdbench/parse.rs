//! Reading a vdbench parameter file: logical lines, `include=`, general parameters, the order
//! of line types, `default` entries and abbreviated keys. What each definition line sets is in
//! `definitions.rs`, its values in `params.rs`, the names lines define and refer to in
//! `names.rs`.

use super::params::{paren_depth, single, split_params, yes_no, Param};
use super::{keys, lists, DataParam, ParamFile, MAX_INCLUDE_DEPTH};
use crate::error::{nearest, ErrorKind, JobFileError, Location};
use std::path::{Path, PathBuf};

/// Parses a parameter file (following `include=`).
pub fn parse_file(path: &Path) -> Result<ParamFile, JobFileError> {
    parse_file_with(path, &[])
}

/// Parses a parameter file with command-line substitutions (`lun=/tmp/x` replaces `$lun` and
/// `!lun`, as `vdbench -f FILE lun=/tmp/x`). A substitution the file never uses is an error,
/// as in vdbench.
pub fn parse_file_with(path: &Path, substitutions: &[String]) -> Result<ParamFile, JobFileError> {
    let source_name = path.display().to_string();
    let text = crate::fio::read_text(path, &source_name)?;
    let mut parser = Parser::with_substitutions(substitutions, &source_name)?;
    parser.read(&text, &source_name, path.parent(), 0)?;
    parser.finish(&source_name)
}

/// Parses parameter-file text; `include=` resolves against the current directory.
pub fn parse_str(text: &str, source_name: &str) -> Result<ParamFile, JobFileError> {
    parse_str_with(text, source_name, &[])
}

/// [`parse_str`] with command-line substitutions.
pub fn parse_str_with(
    text: &str,
    source_name: &str,
    substitutions: &[String],
) -> Result<ParamFile, JobFileError> {
    let mut parser = Parser::with_substitutions(substitutions, source_name)?;
    parser.read(text, source_name, None, 0)?;
    parser.finish(source_name)
}

/// Line types iofit does not run, with the reason.
const LINE_UNSUPPORTED: &[(&str, &str)] = &[
    (
        "rg",
        "replaying a Swat I/O trace (rg= replay groups with replay= on the sd and rd; Swat is Sun's StorageTek Workload Analysis Tool and iofit has no reader for its flatfile.bin)",
    ),
    ("wg", "workload groups"),
];
const HD_UNSUPPORTED: &[(&str, &str)] = &[
    ("mount", "mounting file systems on hosts"),
    ("clients", "simulated clients per host"),
];
const SD_UNSUPPORTED: &[(&str, &str)] = &[
    (
        "count",
        "count= (one sd= line standing for several numbered luns)",
    ),
    ("kstat", "Solaris kstat statistics"),
    ("instance", "Solaris kstat instances"),
    ("replay", "replay of an I/O trace"),
    ("resetlun", "SCSI resets"),
    ("resetbus", "SCSI resets"),
    (
        "streams",
        "streams= on an sd (vdbench 5.04 moved it to the wd: give streams= on the wd=)",
    ),
];
const WD_UNSUPPORTED: &[(&str, &str)] = &[
    ("priority", "workload priorities"),
    (
        "threads",
        "threads= on a wd (give threads= on the rd or the sd)",
    ),
    ("user", "user-written workload classes"),
    ("writepct", "writepct= (write rdpct= as 100 minus it)"),
];
const RD_UNSUPPORTED: &[(&str, &str)] = &[
    (
        "maxdataread",
        "maxdataread= (stopping on read bytes alone; maxdata= works)",
    ),
    (
        "maxdatawritten",
        "maxdatawritten= (stopping on written bytes alone; maxdata= works)",
    ),
    ("stopcurve", "stopping a curve on a response time"),
    ("replay", "replay of an I/O trace"),
    ("startcmd", "running shell commands from a parameter file"),
    ("endcmd", "running shell commands from a parameter file"),
    ("mount", "mounting file systems"),
    ("fortotalsize", "fortotalsize= on file system runs"),
    (
        "forwss",
        "forwss= (a working set smaller than the file tree)",
    ),
];
const FSD_UNSUPPORTED: &[(&str, &str)] = &[
    ("journal", "journaling of file system data"),
    (
        "count",
        "count= (one fsd= line standing for several numbered anchors)",
    ),
    ("log", "fsd logging"),
];
const FWD_UNSUPPORTED: &[(&str, &str)] = &[("target", "target= (copy/move to another fsd)")];

#[derive(Default)]
pub(super) struct Parser {
    pub(super) file: ParamFile,
    /// Each line type's `default` parameters (`sd=default,...`), indexed by [`Line`].
    defaults: [Vec<Param>; 6],
    /// 0 = hd, 1 = sd/fsd, 2 = wd/fwd, 3 = rd: vdbench requires this order.
    stage: u8,
    substitutions: Vec<lists::Substitution>,
}

impl Parser {
    fn read(
        &mut self,
        text: &str,
        source_name: &str,
        base_dir: Option<&Path>,
        depth: usize,
    ) -> Result<(), JobFileError> {
        if text.contains('\0') {
            return Err(JobFileError::new(source_name, 0, None, ErrorKind::Binary));
        }
        for (line_no, line) in self.logical_lines(text, source_name)? {
            let loc = Location::new(source_name, line_no);
            for params in split_definitions(split_params(&line, &loc)?) {
                self.definition(params, &loc, base_dir, depth)?;
            }
        }
        Ok(())
    }

    /// One `hd=`/`sd=`/`wd=`/`rd=`/`fsd=`/`fwd=` definition, include or general parameter.
    fn definition(
        &mut self,
        params: Vec<Param>,
        loc: &Location,
        base_dir: Option<&Path>,
        depth: usize,
    ) -> Result<(), JobFileError> {
        let loc = loc.clone();
        {
            let first_key = params[0].key.clone();
            match first_key.as_str() {
                "include" => self.include(&params[0], &loc, base_dir, depth)?,
                "hd" | "host" => {
                    self.order(0, "hd", &loc)?;
                    self.host(params, &loc)?
                }
                "sd" => {
                    self.order(1, "sd", &loc)?;
                    self.storage(params, &loc)?
                }
                "fsd" => {
                    self.order(1, "fsd", &loc)?;
                    self.fsd(params, &loc)?
                }
                "wd" => {
                    self.order(2, "wd", &loc)?;
                    self.workload(params, &loc)?
                }
                "fwd" => {
                    self.order(2, "fwd", &loc)?;
                    self.fwd(params, &loc)?
                }
                "rd" => {
                    self.order(3, "rd", &loc)?;
                    self.run(params, &loc)?
                }
                kind if LINE_UNSUPPORTED.iter().any(|(k, _)| *k == kind) => {
                    let why = LINE_UNSUPPORTED
                        .iter()
                        .find(|(k, _)| *k == kind)
                        .map(|(_, w)| *w)
                        .unwrap_or_default();
                    return Err(loc.unsupported_value(
                        kind,
                        &params[0].raw,
                        why,
                        if kind == "rg" {
                            "describe the traced mix with wd= lines instead (xfersize=, rdpct=, seekpct=, skew=), or take the traced host's iostat/sar capture through `iofit profile` and `iofit plan`"
                        } else {
                            "remove those lines; iofit runs sd/wd/rd and fsd/fwd files"
                        },
                    ));
                }
                written => self.general(written, params, &loc)?,
            }
        }
        Ok(())
    }

    /// Lines as vdbench reads them: `$name`/`!name` substituted, `*`/`#`/`/` comments and
    /// blank lines skipped, everything after the first blank dropped (vdbench's tokenizer ends
    /// a line there, so trailing comments work), `eof` ending the file, and a line continued
    /// when it ends with ',' or an open parenthesis or the next starts with ','.
    fn logical_lines(
        &mut self,
        text: &str,
        source_name: &str,
    ) -> Result<Vec<(usize, String)>, JobFileError> {
        let mut logical: Vec<(usize, String)> = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let line_no = index + 1;
            let loc = Location::new(source_name, line_no);
            let line = raw.trim();
            if line.is_empty()
                || line.starts_with('*')
                || line.starts_with('/')
                || line.starts_with('#')
            {
                continue;
            }
            if line.eq_ignore_ascii_case("eof") {
                break;
            }
            if line.chars().any(|c| c.is_control() && c != '\t') {
                return Err(loc.error(None, ErrorKind::Binary));
            }
            let line = lists::substitute(line, &mut self.substitutions).map_err(|why| {
                let name = why.to_string();
                loc.error(
                    Some(&name),
                    ErrorKind::Other(format!(
                        "${name} is not given; add {name}=VALUE after the file on the command line (iofit run FILE {name}=VALUE), as vdbench -f FILE {name}=VALUE"
                    )),
                )
            })?;
            let line = cut_at_blank(&line);
            let continues = match logical.last() {
                Some((_, prev)) => {
                    prev.ends_with(',') || paren_depth(prev) > 0 || line.starts_with(',')
                }
                None => false,
            };
            if continues {
                let (_, prev) = logical.last_mut().expect("checked above");
                prev.push_str(&line);
            } else {
                logical.push((line_no, line));
            }
        }
        Ok(logical)
    }

    fn include(
        &mut self,
        first: &Param,
        loc: &Location,
        base_dir: Option<&Path>,
        depth: usize,
    ) -> Result<(), JobFileError> {
        if depth >= MAX_INCLUDE_DEPTH {
            return Err(loc.error(
                Some("include"),
                ErrorKind::Other(format!(
                    "include nests more than {MAX_INCLUDE_DEPTH} deep; an include loop?"
                )),
            ));
        }
        let target = single(first, loc)?;
        let path = match base_dir {
            Some(dir) if Path::new(&target).is_relative() => dir.join(&target),
            _ => PathBuf::from(&target),
        };
        let included_name = path.display().to_string();
        let text = crate::fio::read_text(&path, &included_name).map_err(|e| {
            loc.error(
                Some("include"),
                ErrorKind::Other(format!(
                    "cannot include {included_name}: {}; {}",
                    e.kind,
                    if Path::new(&target).is_relative() {
                        "the path is relative to the including file"
                    } else {
                        "the path is absolute and read as written: check it"
                    }
                )),
            )
        })?;
        self.read(&text, &included_name, path.parent(), depth + 1)
    }

    /// A general parameter line (`compratio=`, `messagescan=`, `concatenatesds=`...).
    fn general(
        &mut self,
        written: &str,
        params: Vec<Param>,
        loc: &Location,
    ) -> Result<(), JobFileError> {
        let Some(key) = keys::resolve(keys::GENERAL, written) else {
            let hint = match nearest(
                written,
                ["hd", "sd", "wd", "rd", "fsd", "fwd", "include"]
                    .into_iter()
                    .chain(keys::names(keys::GENERAL)),
            ) {
                Some(near) => format!(" (did you mean '{near}='?)"),
                None => String::new(),
            };
            return Err(loc.error(
                Some(written),
                ErrorKind::Syntax(format!(
                    "a vdbench line must start with hd=, sd=, wd=, rd=, fsd=, fwd=, include= or a general parameter, not '{written}='{hint}"
                )),
            ));
        };
        for p in &params[1..] {
            // Several general parameters may share a line; each is checked on its own.
            self.general(&p.written.clone(), vec![p.clone()], loc)?;
        }
        let first = &params[0];
        match key {
            k if is_data_key(k) => self.file.data.push(DataParam {
                key: k.to_string(),
                value: first.raw.clone(),
                loc: loc.clone(),
            }),
            "concatenatesds" => {
                self.file.concatenate = yes_no(&single(first, loc)?, key, loc)?;
            }
            // Reporting and housekeeping switches that change no IO: accepted.
            "messagescan" | "report" | "report_run_totals" | "histogram" | "monitor"
            | "formatxfersize" | "create_anchors" | "formatsds" | "abort_failed_skew"
            | "heartbeat_error" | "port" | "showlba" | "auxreport" | "psrset" | "swat"
            | "debug" | "misc" | "loop" | "pattern_buffer" => {}
            "startcmd" | "start_cmd" | "endcmd" | "end_cmd" => {
                return Err(loc.unsupported_value(
                    key,
                    &first.raw,
                    "running shell commands from a parameter file",
                    "run the command before or after iofit yourself and remove the parameter",
                ))
            }
            other => {
                return Err(loc.error(
                    Some(other),
                    ErrorKind::UnsupportedParameter {
                        place: String::new(),
                        key: other.to_string(),
                    },
                ))
            }
        }
        Ok(())
    }

    fn order(&mut self, stage: u8, key: &str, loc: &Location) -> Result<(), JobFileError> {
        if stage < self.stage {
            let after = ["hd", "sd", "wd", "rd"][self.stage as usize];
            return Err(loc.error(
                Some(key),
                ErrorKind::Other(format!(
                    "{key}= comes after {after}=; vdbench needs hd=, then sd=, then wd=, then rd= lines, move it up"
                )),
            ));
        }
        self.stage = stage;
        Ok(())
    }

    fn with_substitutions(items: &[String], source_name: &str) -> Result<Parser, JobFileError> {
        let substitutions = lists::substitutions(items).map_err(|why| {
            JobFileError::new(source_name, 0, None, ErrorKind::Other(why.to_string()))
        })?;
        Ok(Parser {
            substitutions,
            ..Parser::default()
        })
    }

    fn finish(self, source_name: &str) -> Result<ParamFile, JobFileError> {
        if let Some(unused) = self.substitutions.iter().find(|s| s.used == 0) {
            return Err(JobFileError::new(
                source_name,
                0,
                Some(&unused.name),
                ErrorKind::Other(format!(
                    "{}={} is given but the file has no ${} or !{}; check the name (vdbench refuses an unused substitution too)",
                    unused.name, unused.value, unused.name, unused.name
                )),
            ));
        }
        if self.file.rds.is_empty() {
            return Err(JobFileError::new(
                source_name,
                0,
                None,
                ErrorKind::Other(
                    "no run definitions; a vdbench file needs sd=, wd= and rd= lines (rd=run1,wd=wd1,iorate=max,elapsed=30)".into(),
                ),
            ));
        }
        Ok(self.file)
    }
}

/// The line types that define something by name, with their keys and what iofit refuses.
#[derive(Clone, Copy, Debug)]
pub(super) enum Line {
    Hd,
    Sd,
    Wd,
    Rd,
    Fsd,
    Fwd,
}

impl Line {
    fn kind(self) -> &'static str {
        ["hd", "sd", "wd", "rd", "fsd", "fwd"][self as usize]
    }

    fn keys(self) -> &'static [keys::Key] {
        [keys::HD, keys::SD, keys::WD, keys::RD, keys::FSD, keys::FWD][self as usize]
    }

    fn unsupported(self) -> &'static [(&'static str, &'static str)] {
        [
            HD_UNSUPPORTED,
            SD_UNSUPPORTED,
            WD_UNSUPPORTED,
            RD_UNSUPPORTED,
            FSD_UNSUPPORTED,
            FWD_UNSUPPORTED,
        ][self as usize]
    }
}

impl Parser {
    /// [`with_defaults`] for a line of type `line`: its name and parameters, `None` for a
    /// `default` line.
    pub(super) fn named(
        &mut self,
        line: Line,
        params: Vec<Param>,
        loc: &Location,
    ) -> Result<Option<(String, Vec<Param>)>, JobFileError> {
        with_defaults(
            &mut self.defaults[line as usize],
            params,
            line.keys(),
            line.unsupported(),
            line.kind(),
            loc,
        )
    }
}

/// The name a `hd=`/`sd=`/`wd=`/`rd=`/`fsd=`/`fwd=` line defines and its parameters (keys
/// resolved to vdbench's full keywords), with the `default` parameters of that line type first
/// so the line's own win (vdbench applies later values over earlier ones). A `default` line
/// returns `None`: its parameters are kept for the lines that follow it.
fn with_defaults(
    defaults: &mut Vec<Param>,
    mut params: Vec<Param>,
    table: &[keys::Key],
    unsupported: &[(&str, &str)],
    kind: &str,
    loc: &Location,
) -> Result<Option<(String, Vec<Param>)>, JobFileError> {
    let name = single(&params[0], loc)?;
    check_keys(&mut params[1..], table, unsupported, kind, loc)?;
    if name == "default" {
        defaults.extend(params.into_iter().skip(1));
        return Ok(None);
    }
    let all = defaults
        .iter()
        .cloned()
        .chain(params.into_iter().skip(1))
        .collect();
    Ok(Some((name, all)))
}

/// Resolves every key of `params` to its full keyword (vdbench's abbreviations), refusing
/// unknown keys with a suggestion and unsupported ones with the reason.
fn check_keys(
    params: &mut [Param],
    table: &[keys::Key],
    unsupported: &[(&str, &str)],
    kind: &str,
    loc: &Location,
) -> Result<(), JobFileError> {
    for p in params.iter_mut() {
        let Some(key) = keys::resolve(table, &p.written) else {
            let suggestion = nearest(&p.written, keys::names(table));
            return Err(loc.error(
                Some(&p.written),
                ErrorKind::UnknownOption {
                    key: format!("{kind} {}", p.key),
                    suggestion,
                },
            ));
        };
        p.key = key.to_string();
        if let Some((_, why)) = unsupported.iter().find(|(k, _)| *k == key) {
            return Err(loc.error(
                Some(&p.written),
                ErrorKind::UnsupportedValue {
                    key: format!("{kind} {key}"),
                    value: p.raw.clone(),
                    why: (*why).to_string(),
                    fix: "remove it to run without it".into(),
                },
            ));
        }
    }
    Ok(())
}

/// Data content and validation keys (kept in `ParamFile::data`; vdbench/data.rs runs some).
fn is_data_key(key: &str) -> bool {
    matches!(
        key,
        "compratio"
            | "compressionseed"
            | "compression"
            | "pattern"
            | "data_errors"
            | "validate"
            | "journal"
            | "dedupratio"
            | "dedupunit"
            | "dedupsets"
            | "deduphotsets"
            | "dedupflipflop"
            | "forcompratio"
            | "forcompression"
    )
}

/// vdbench reads parameters as one stream: `sd=a,lun=x,sd=b,lun=y` (or a line continued into
/// the next definition by a trailing comma) defines two sds. Splits a line's parameters at
/// each repeat of its first keyword.
fn split_definitions(params: Vec<Param>) -> Vec<Vec<Param>> {
    let kind = params[0].key.clone();
    if !matches!(kind.as_str(), "hd" | "sd" | "wd" | "rd" | "fsd" | "fwd") {
        return vec![params];
    }
    let mut groups: Vec<Vec<Param>> = Vec::new();
    for p in params {
        if p.key == kind || groups.is_empty() {
            groups.push(vec![p]);
        } else {
            groups.last_mut().expect("pushed above").push(p);
        }
    }
    groups
}

/// vdbench's tokenizer ends a line at the first blank outside quotes; a blank next to a
/// comma or parenthesis is only spacing.
fn cut_at_blank(line: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    let chars: Vec<char> = line.chars().collect();
    let mut index = 0;
    while index < chars.len() {
        let c = chars[index];
        if c == '"' {
            quoted = !quoted;
        }
        if c.is_whitespace() && !quoted {
            let rest: String = chars[index..].iter().collect();
            let rest = rest.trim_start();
            let spacing = out.ends_with([',', '(', '='])
                || rest.starts_with([',', ')', '='])
                || (paren_depth(&out) > 0 && !rest.is_empty());
            if !spacing {
                break;
            }
            index += 1;
            continue;
        }
        out.push(c);
        index += 1;
    }
    out
}
