//! fio's error options: `continue_on_error` (which error types a job goes on after),
//! `ignore_error` (per type, the errno values that are not fatal) and `error_dump`, read as
//! fio's options.c reads them.

use super::apply::{Arg, Ctx};
use crate::error::JobFileError;
use iofit_model::job::ErrorPolicy;

type R = Result<(), JobFileError>;

/// `continue_on_error=none|read|write|io|verify|all` (or 0/1): replaces the types set so far,
/// as fio's option does.
pub(crate) fn continue_on_error(c: &mut Ctx, arg: &Arg) -> R {
    c.job.thread_control.errors.continue_on = match arg.value()? {
        "none" | "0" => 0,
        "read" => ErrorPolicy::READ,
        "write" => ErrorPolicy::WRITE,
        "io" => ErrorPolicy::READ | ErrorPolicy::WRITE,
        "verify" => ErrorPolicy::VERIFY,
        "all" | "1" => ErrorPolicy::READ | ErrorPolicy::WRITE | ErrorPolicy::VERIFY,
        _ => {
            return Err(arg.invalid(
                "not one of fio's error types",
                "write none, read, write, io, verify or all (0 = none, 1 = all)",
            ))
        }
    };
    Ok(())
}

/// `ignore_error=READ_LIST,WRITE_LIST,VERIFY_LIST`, each list errno names or numbers joined by
/// `:`. A type given a list continues on exactly those errors (fio sets its continue bit).
pub(crate) fn ignore_error(c: &mut Ctx, arg: &Arg) -> R {
    let value = arg.value()?;
    let lists: Vec<&str> = value.split(',').collect();
    if lists.len() > 3 {
        return Err(arg.invalid(
            "more than three lists",
            "write ignore_error=READ_ERRORS,WRITE_ERRORS,VERIFY_ERRORS, e.g. ignore_error=,ENOSPC",
        ));
    }
    let policy = &mut c.job.thread_control.errors;
    for (error_type, list) in lists.iter().enumerate() {
        let mut errnos = Vec::new();
        // fio stops a list at its first empty entry.
        for entry in list.split(':').map(str::trim).take_while(|e| !e.is_empty()) {
            errnos.push(errno_of(entry).ok_or_else(|| {
                arg.invalid(
                    format!("'{entry}' is not an errno name or number"),
                    "write names such as ENOSPC or EIO, or numbers such as 28, joined by ':'",
                )
            })?);
        }
        if !errnos.is_empty() {
            policy.continue_on |= 1 << error_type;
            policy.ignore[error_type] = Some(errnos);
        }
    }
    Ok(())
}

/// fio `error_dump` (default 1): with 0, no line is kept for an error that was not fatal.
pub(crate) fn error_dump(c: &mut Ctx, arg: &Arg) -> R {
    c.job.thread_control.errors.quiet = !arg.flag()?;
    Ok(())
}

/// An errno as fio's `str2error` reads it: a name from its table (the name's position + 1 is
/// its Linux number; EWOULDBLOCK and EDEADLOCK are aliases) or a decimal/hex number.
fn errno_of(entry: &str) -> Option<i32> {
    if entry.starts_with('E') {
        return match entry {
            "EWOULDBLOCK" => Some(libc::EAGAIN),
            "EDEADLOCK" => Some(libc::EDEADLK),
            _ => ERRNO_NAMES
                .iter()
                .position(|name| *name == entry)
                .map(|i| i as i32 + 1),
        };
    }
    let number = match entry
        .strip_prefix("0x")
        .or_else(|| entry.strip_prefix("0X"))
    {
        Some(hex) => i32::from_str_radix(hex, 16).ok()?,
        None => entry.parse::<i32>().ok()?,
    };
    Some(number.abs()).filter(|&n| n != 0)
}

/// fio's str2error table (options.c), in Linux errno order from EPERM (1).
#[rustfmt::skip]
const ERRNO_NAMES: &[&str] = &[
    "EPERM", "ENOENT", "ESRCH", "EINTR", "EIO", "ENXIO", "E2BIG", "ENOEXEC", "EBADF",
    "ECHILD", "EAGAIN", "ENOMEM", "EACCES", "EFAULT", "ENOTBLK", "EBUSY", "EEXIST",
    "EXDEV", "ENODEV", "ENOTDIR", "EISDIR", "EINVAL", "ENFILE", "EMFILE", "ENOTTY",
    "ETXTBSY", "EFBIG", "ENOSPC", "ESPIPE", "EROFS", "EMLINK", "EPIPE", "EDOM", "ERANGE",
    "EDEADLK", "ENAMETOOLONG", "ENOLCK", "ENOSYS", "ENOTEMPTY", "ELOOP", "EWOULDBLOCK",
    "ENOMSG", "EIDRM", "ECHRNG", "EL2NSYNC", "EL3HLT", "EL3RST", "ELNRNG", "EUNATCH",
    "ENOCSI", "EL2HLT", "EBADE", "EBADR", "EXFULL", "ENOANO", "EBADRQC", "EBADSLT",
    "EDEADLOCK", "EBFONT", "ENOSTR", "ENODATA", "ETIME", "ENOSR", "ENONET", "ENOPKG",
    "EREMOTE", "ENOLINK", "EADV", "ESRMNT", "ECOMM", "EPROTO", "EMULTIHOP", "EDOTDOT",
    "EBADMSG", "EOVERFLOW", "ENOTUNIQ", "EBADFD", "EREMCHG", "ELIBACC", "ELIBBAD",
    "ELIBSCN", "ELIBMAX", "ELIBEXEC", "EILSEQ", "ERESTART", "ESTRPIPE", "EUSERS",
    "ENOTSOCK", "EDESTADDRREQ", "EMSGSIZE", "EPROTOTYPE", "ENOPROTOOPT",
    "EPROTONOSUPPORT", "ESOCKTNOSUPPORT", "EOPNOTSUPP", "EPFNOSUPPORT", "EAFNOSUPPORT",
    "EADDRINUSE", "EADDRNOTAVAIL", "ENETDOWN", "ENETUNREACH", "ENETRESET",
    "ECONNABORTED", "ECONNRESET", "ENOBUFS", "EISCONN", "ENOTCONN", "ESHUTDOWN",
    "ETOOMANYREFS", "ETIMEDOUT", "ECONNREFUSED", "EHOSTDOWN", "EHOSTUNREACH", "EALREADY",
    "EINPROGRESS", "ESTALE", "EUCLEAN", "ENOTNAM", "ENAVAIL", "EISNAM", "EREMOTEIO",
    "EDQUOT", "ENOMEDIUM", "EMEDIUMTYPE", "ECANCELED", "ENOKEY", "EKEYEXPIRED",
    "EKEYREVOKED", "EKEYREJECTED", "EOWNERDEAD", "ENOTRECOVERABLE", "ERFKILL",
    "EHWPOISON",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fio::{parse_str, ParseOptions};

    fn policy(options: &str) -> Result<ErrorPolicy, String> {
        let text = format!("[j]\nfilename=/tmp/iofit-never-created\nsize=1m\n{options}\n");
        parse_str(&text, "test.fio", &ParseOptions::default())
            .map(|jobs| jobs[0].thread_control.errors.clone())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn continue_on_error_and_ignore_error_read_as_fio_reads_them() {
        let w = ErrorPolicy::WRITE;
        let all = ErrorPolicy::READ | w | ErrorPolicy::VERIFY;
        assert_eq!(policy("continue_on_error=write").unwrap().continue_on, w);
        assert_eq!(policy("continue_on_error=1").unwrap().continue_on, all);
        assert_eq!(policy("continue_on_error=io").unwrap().continue_on, 3);
        assert_eq!(policy("continue_on_error=0").unwrap().continue_on, 0);
        // enospc-pressure.fio: no read list, ENOSPC for writes.
        let p = policy("continue_on_error=write\nignore_error=,ENOSPC\nerror_dump=0").unwrap();
        assert_eq!(p.ignore, [None, Some(vec![libc::ENOSPC]), None]);
        assert!(p.quiet && p.non_fatal(1, libc::ENOSPC) && !p.non_fatal(1, libc::EIO));
        // fio's example: EAGAIN for reads, ENOSPC and 122 (EDQUOT) for writes; a list turns
        // its type's continue bit on.
        let p = policy("ignore_error=EAGAIN,ENOSPC:122").unwrap();
        assert_eq!(p.continue_on, ErrorPolicy::READ | w);
        assert_eq!(p.ignore[1], Some(vec![libc::ENOSPC, 122]));
        assert!(p.non_fatal(0, libc::EAGAIN) && !p.non_fatal(0, libc::EIO));
        // A later continue_on_error replaces the bits, as in fio.
        let p = policy("ignore_error=EAGAIN\ncontinue_on_error=none").unwrap();
        assert!(!p.non_fatal(0, libc::EAGAIN));
        for (bad, says) in [
            (
                "continue_on_error=sometimes",
                "none, read, write, io, verify or all",
            ),
            ("ignore_error=,ENOSUCH", "'ENOSUCH' is not an errno"),
            ("ignore_error=a,b,c,d", "more than three lists"),
        ] {
            let e = policy(bad).unwrap_err();
            assert!(e.contains(says) && e.contains("test.fio:4"), "{e}");
        }
    }

    #[test]
    fn names_map_to_linux_numbers_as_fio_reads_them() {
        assert_eq!(errno_of("ENOSPC"), Some(libc::ENOSPC));
        assert_eq!(errno_of("EIO"), Some(libc::EIO));
        assert_eq!(errno_of("EILSEQ"), Some(libc::EILSEQ));
        assert_eq!(errno_of("EDQUOT"), Some(libc::EDQUOT));
        assert_eq!(errno_of("EHWPOISON"), Some(libc::EHWPOISON));
        assert_eq!(errno_of("ECANCELED"), Some(libc::ECANCELED));
        assert_eq!(errno_of("EWOULDBLOCK"), Some(libc::EAGAIN));
        assert_eq!(errno_of("122"), Some(122));
        assert_eq!(errno_of("0x1c"), Some(28));
        assert_eq!(errno_of("-5"), Some(5));
        assert_eq!(errno_of("ENOSUCH"), None);
        assert_eq!(errno_of("0"), None);
    }
}
