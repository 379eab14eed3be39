//! vdbench's keyword abbreviations. vdbench accepts any leading part of a keyword (`xf` for
//! `xfersize`, `el` for `elapsed`, `forth` for `forthreads`) and, when several keywords start
//! with what was written, takes the first in the order its parser tests them. These tables
//! keep that order per line type (from vdbench 5.04's `WD_entry`, `SD_entry`, `RD_entry`,
//! `For_loop`, `FsdEntry`, `FwdEntry`, `HostParms` and `MiscParms`), so `iofit` resolves every
//! short form to the keyword vdbench would.

/// One keyword: its canonical name and whether only the full name is accepted.
pub(crate) struct Key {
    pub name: &'static str,
    pub exact: bool,
    /// The canonical keyword this is an alias of (`readpct` -> `rdpct`).
    pub alias_of: Option<&'static str>,
}

const fn p(name: &'static str) -> Key {
    Key {
        name,
        exact: false,
        alias_of: None,
    }
}
const fn x(name: &'static str) -> Key {
    Key {
        name,
        exact: true,
        alias_of: None,
    }
}
const fn a(name: &'static str, of: &'static str) -> Key {
    Key {
        name,
        exact: false,
        alias_of: Some(of),
    }
}

pub(crate) const HD: &[Key] = &[
    p("system"),
    p("vdbench"),
    p("shell"),
    p("user"),
    p("jvms"),
    p("clients"),
    p("mount"),
];

pub(crate) const SD: &[Key] = &[
    p("host"),
    a("hd", "host"),
    p("lun"),
    p("count"),
    p("size"),
    p("threads"),
    p("hitarea"),
    p("offset"),
    p("align"),
    p("kstat"),
    p("instance"),
    p("replay"),
    p("journal"),
    p("resetlun"),
    p("resetbus"),
    p("openflags"),
    p("range"),
    p("streams"),
];

pub(crate) const WD: &[Key] = &[
    x("sd"),
    p("skew"),
    p("xfersize"),
    a("readpct", "rdpct"),
    p("rdpct"),
    p("writepct"),
    a("wrpct", "writepct"),
    p("range"),
    p("hotband"),
    p("seekpct"),
    p("stride"),
    p("priority"),
    p("iorate"),
    p("rhpct"),
    p("whpct"),
    p("host"),
    a("hd", "host"),
    p("openflags"),
    x("user"),
    p("threads"),
    p("streams"),
    // Data content keys on a wd (parsed; the data helper runs them).
    p("compratio"),
    p("dedupratio"),
];

pub(crate) const RD: &[Key] = &[
    x("wd"),
    x("sd"),
    x("fsd"),
    p("iorate"),
    x("maxdata"),
    x("maxdataread"),
    x("maxdatawritten"),
    p("curve"),
    p("stopcurve"),
    p("elapsed"),
    p("interval"),
    p("warmup"),
    x("replay"),
    p("pause"),
    // For_loop.checkForLoop, in its order.
    p("forxfersize"),
    p("forthreads"),
    p("forrdpct"),
    p("forrhpct"),
    p("forwhpct"),
    p("forseekpct"),
    p("forhitarea"),
    p("forcompratio"),
    p("forcompression"),
    p("fordepth"),
    p("forwidth"),
    p("forfiles"),
    p("forsizes"),
    p("fortotalsize"),
    p("forwss"),
    a("forworkingsetsize", "forwss"),
    p("foroperations"),
    a("xfersize", "forxfersize"),
    a("threads", "forthreads"),
    a("rdpct", "forrdpct"),
    a("rhpct", "forrhpct"),
    a("whpct", "forwhpct"),
    a("seekpct", "forseekpct"),
    a("hitarea", "forhitarea"),
    a("compratio", "forcompratio"),
    a("compression", "forcompression"),
    a("depth", "fordepth"),
    a("width", "forwidth"),
    a("files", "forfiles"),
    a("sizes", "forsizes"),
    a("totalsize", "fortotalsize"),
    a("wss", "forwss"),
    a("workingsetsize", "forwss"),
    p("distribution"),
    p("startcmd"),
    a("start_cmd", "startcmd"),
    p("endcmd"),
    a("end_cmd", "endcmd"),
    x("fwd"),
    p("fwdrate"),
    p("operations"),
    p("format"),
    p("openflags"),
    p("mount"),
];

pub(crate) const FSD: &[Key] = &[
    p("anchor"),
    p("journal"),
    p("host"),
    a("hd", "host"),
    p("width"),
    p("depth"),
    p("sizes"),
    p("shared"),
    p("wss"),
    a("workingsetsize", "wss"),
    a("total_size", "totalsize"),
    p("totalsize"),
    p("files"),
    p("distribution"),
    p("cleanup"),
    p("openflags"),
    x("log"),
    p("count"),
];

pub(crate) const FWD: &[Key] = &[
    x("fsd"),
    a("readpct", "rdpct"),
    p("rdpct"),
    p("stopafter"),
    p("operation"),
    p("fileselect"),
    x("fileio"),
    p("xfersizes"),
    p("skew"),
    p("threads"),
    p("target"),
    p("host"),
    a("hd", "host"),
    p("openflags"),
];

/// General parameters (vdbench's `MiscParms`, plus the dedup keys of `Dedup`), in order.
pub(crate) const GENERAL: &[Key] = &[
    p("compratio"),
    p("compressionseed"),
    p("port"),
    p("pattern"),
    p("data_errors"),
    a("dataerrors", "data_errors"),
    p("swat"),
    p("validate"),
    x("journal"),
    x("startcmd"),
    x("start_cmd"),
    x("endcmd"),
    x("end_cmd"),
    x("heartbeat_error"),
    x("debug"),
    p("formatxfersize"),
    p("create_anchors"),
    p("formatsds"),
    p("report"),
    p("report_run_totals"),
    p("histogram"),
    p("psrset"),
    p("auxreport"),
    p("monitor"),
    p("concatenatesds"),
    p("messagescan"),
    p("abort_failed_skew"),
    p("misc"),
    x("pattern_buffer"),
    x("showlba"),
    x("loop"),
    p("dedupratio"),
    p("dedupunit"),
    p("dedupsets"),
    p("deduphotsets"),
    p("dedupflipflop"),
];

/// The keyword `written` stands for among `table`, as vdbench resolves it: the first keyword
/// (in the table's order) that equals it or, unless it must be written in full, starts with
/// it. Aliases come back as their canonical keyword.
pub(crate) fn resolve(table: &[Key], written: &str) -> Option<&'static str> {
    if written.is_empty() {
        return None;
    }
    table
        .iter()
        .find(|key| key.name == written || (!key.exact && key.name.starts_with(written)))
        .map(|key| key.alias_of.unwrap_or(key.name))
}

/// Every keyword of a table (for "did you mean" suggestions).
pub(crate) fn names(table: &[Key]) -> impl Iterator<Item = &'static str> + Clone + '_ {
    table.iter().map(|key| key.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_forms_resolve_as_vdbench_does() {
        assert_eq!(resolve(WD, "xf"), Some("xfersize"));
        assert_eq!(resolve(WD, "rd"), Some("rdpct"));
        assert_eq!(resolve(WD, "s"), Some("skew"));
        assert_eq!(resolve(WD, "se"), Some("seekpct"));
        assert_eq!(resolve(WD, "sd"), Some("sd"));
        assert_eq!(resolve(RD, "el"), Some("elapsed"));
        assert_eq!(resolve(RD, "in"), Some("interval"));
        assert_eq!(resolve(RD, "io"), Some("iorate"));
        assert_eq!(resolve(RD, "i"), Some("iorate"));
        assert_eq!(resolve(RD, "th"), Some("forthreads"));
        assert_eq!(resolve(RD, "forth"), Some("forthreads"));
        assert_eq!(resolve(RD, "forx"), Some("forxfersize"));
        assert_eq!(resolve(RD, "xf"), Some("forxfersize"));
        assert_eq!(resolve(RD, "w"), Some("warmup"));
        assert_eq!(resolve(RD, "fwdr"), Some("fwdrate"));
        assert_eq!(resolve(RD, "form"), Some("format"));
        assert_eq!(resolve(RD, "fo"), Some("forxfersize"));
        assert_eq!(resolve(SD, "l"), Some("lun"));
        assert_eq!(resolve(SD, "o"), Some("offset"));
        assert_eq!(resolve(SD, "op"), Some("openflags"));
        assert_eq!(resolve(FSD, "size"), Some("sizes"));
        assert_eq!(resolve(FSD, "a"), Some("anchor"));
        assert_eq!(resolve(FWD, "xfersize"), Some("xfersizes"));
        assert_eq!(resolve(FWD, "op"), Some("operation"));
        assert_eq!(resolve(FWD, "fileio"), Some("fileio"));
        assert_eq!(resolve(FWD, "filei"), None);
        assert_eq!(resolve(GENERAL, "concatenate"), Some("concatenatesds"));
        assert_eq!(resolve(GENERAL, "data"), Some("data_errors"));
        assert_eq!(resolve(WD, "bogus"), None);
    }
}
