//! The I/O engines fio names and what iofit does with each: runs it, runs another of its
//! engines in its place (with a note), or refuses it with the reason. Apart from the option
//! table so that the functions applying `ioengine=` and the table need not import each other.

/// The engines fio names, and what iofit does with each.
pub(crate) enum EngineChoice {
    Run(iofit_model::job::EngineKind),
    /// Runs as another engine of iofit's, with this note.
    Mapped(iofit_model::job::EngineKind, &'static str),
    Refused(&'static str),
}

pub(crate) fn engine(name: &str) -> EngineChoice {
    use iofit_model::job::EngineKind as K;
    use EngineChoice::{Mapped, Refused as No, Run};
    // The engines iofit runs come from the one name table in `model::job`.
    if let Some(kind) = K::from_fio_name(name) {
        return Run(kind);
    }
    match name {
        "vsync" => Run(K::Pvsync),
        "pvsync2" => Mapped(K::Pvsync, "ioengine=pvsync2 runs as pvsync (preadv/pwritev without per-IO flags)"),
        "posixaio" => Mapped(K::IoUring, "ioengine=posixaio runs on io_uring with the same iodepth (asynchronous IO, kernel queue instead of glibc's threads)"),
        "mmap" => Mapped(K::Psync, "ioengine=mmap runs as psync: iofit copies with pread/pwrite instead of memcpy through a mapping"),
        "splice" => Mapped(K::Psync, "ioengine=splice runs as psync: iofit moves data with pread/pwrite instead of splice and vmsplice through a pipe (the storage sees the same reads and writes)"),
        "rdma" | "rdmaio" => No("RDMA needs an RDMA network and a peer; iofit has no RDMA engine"),
        "spdk" | "spdk_bdev" | "xnvme" | "io_uring_cmd" | "sg" | "nvme" | "libblkio" | "bsg" =>
            No("it needs a raw device or passthrough access (SPDK, NVMe/SCSI commands); iofit does IO through files only"),
        "net" | "netsplice" | "http" | "nbd" | "nfs" | "libiscsi" | "rados" | "rbd" | "gfapi"
        | "gfapi_async" | "libhdfs" | "dfs" | "ime_psync" | "ime_psyncv" | "ime_aio"
        | "windowsaio" | "solarisaio" =>
            No("it is a network, cluster or other-platform engine, and iofit runs local file IO only"),
        "libzbc" => No("zoned block devices need hardware and zone handling iofit does not have"),
        "dev-dax" | "libpmem" | "pmemblk" | "mtd" | "libcufile" | "libhipfile" | "gpudirect" =>
            No("it needs special hardware (persistent memory, flash, GPU) iofit has no engine for"),
        "cpuio" => No("iofit has no such engine (it burns CPU with cpuload and cpuchunks and does no storage IO); iofit measures storage only: drop the job or run it with fio"),
        "exec" => No("iofit has no such engine (it runs an outside program: program=, arguments=); iofit runs no programs from job files: start it yourself or run the file with fio"),
        "filecreate" | "filestat" | "filedelete" | "dircreate" | "dirstat" | "dirdelete" =>
            No("iofit has no such engine (it times file-system metadata calls: create, stat, unlink per file); iofit measures data IO only: run it with fio"),
        _ => No("iofit has no such engine"),
    }
}
