//! Scheduling of a clone's thread, set from inside it before its first IO: CPU affinity (fio
//! `cpus_allowed`/`cpumask`), nice value (`nice`) and IO priority (`prio`/`prioclass`).

use iofit_model::job::ThreadControl;

/// What the kernel refused when a clone set its own scheduling.
#[derive(Debug, thiserror::Error)]
pub enum ThreadControlError {
    #[error("cannot set IO priority class {class} level {level}: {error} (the realtime class needs root)")]
    IoPriority {
        class: u8,
        level: u8,
        error: std::io::Error,
    },
    #[error("cannot pin the job to CPUs {cpus:?}: {error} (are they online? see nproc)")]
    Affinity {
        cpus: Vec<usize>,
        error: std::io::Error,
    },
    #[error("cannot set nice {nice}: {error} (a negative nice needs root)")]
    Nice { nice: i32, error: std::io::Error },
}

/// `ioprio_set`'s "who" for one thread (IOPRIO_WHO_PROCESS takes a thread id).
const IOPRIO_WHO_PROCESS: libc::c_int = 1;
/// The class sits above the 13 bits of level data (linux/ioprio.h).
const IOPRIO_CLASS_SHIFT: u32 = 13;

/// Applies `control` to the calling thread. An error says what the kernel refused.
pub fn apply_to_current_thread(control: &ThreadControl) -> Result<(), ThreadControlError> {
    if !control.cpus.is_empty() {
        set_affinity(&control.cpus)?;
    }
    if control.nice != 0 {
        set_nice(control.nice)?;
    }
    if let Some(priority) = control.io_priority {
        let value = (i32::from(priority.class) << IOPRIO_CLASS_SHIFT) | i32::from(priority.level);
        // SAFETY: ioprio_set takes integers only and changes this thread's IO priority.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_ioprio_set,
                IOPRIO_WHO_PROCESS,
                current_tid(),
                value,
            )
        };
        if rc < 0 {
            return Err(ThreadControlError::IoPriority {
                class: priority.class,
                level: priority.level,
                error: std::io::Error::last_os_error(),
            });
        }
    }
    Ok(())
}

/// Sets the calling thread's IO priority to the ioprio value `ioprio` (class << 13 | level;
/// 0 is "none": the kernel derives it from the nice value again).
pub fn set_thread_ioprio(ioprio: u16) -> std::io::Result<()> {
    // SAFETY: ioprio_set takes integers only and changes this thread's IO priority.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_ioprio_set,
            IOPRIO_WHO_PROCESS,
            current_tid(),
            libc::c_int::from(ioprio),
        )
    };
    if rc < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

fn current_tid() -> libc::pid_t {
    // SAFETY: gettid has no arguments and cannot fail.
    unsafe { libc::gettid() }
}

fn set_affinity(cpus: &[usize]) -> Result<(), ThreadControlError> {
    // SAFETY: cpu_set_t is a plain bit array; all-zero is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &cpu in cpus {
        // SAFETY: CPU_SET writes one bit inside `set`; cpu is below CPU_SETSIZE (the parser
        // refuses larger numbers, and the check below skips them anyway).
        if cpu < libc::CPU_SETSIZE as usize {
            unsafe { libc::CPU_SET(cpu, &mut set) };
        }
    }
    // SAFETY: pid 0 is the calling thread; `set` lives for the call and its size is given.
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if rc < 0 {
        return Err(ThreadControlError::Affinity {
            cpus: cpus.to_vec(),
            error: std::io::Error::last_os_error(),
        });
    }
    Ok(())
}

fn set_nice(nice: i32) -> Result<(), ThreadControlError> {
    // SAFETY: setpriority takes integers only; for PRIO_PROCESS a thread id names one thread.
    let rc = unsafe { libc::setpriority(libc::PRIO_PROCESS, current_tid() as libc::id_t, nice) };
    if rc < 0 {
        return Err(ThreadControlError::Nice {
            nice,
            error: std::io::Error::last_os_error(),
        });
    }
    Ok(())
}
