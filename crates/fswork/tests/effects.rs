//! File system workloads checked by their effects on real file systems: tmpfs (/dev/shm) and
//! the disk (the temp dir), as the directory tree, the files and the operation counts.

use iofit_fswork::stats::index;
use iofit_fswork::{run, FsOptions, FsOutcome};
use iofit_jobfile::vdbench::{parse_str, FileOp};
use iofit_model::units::Bytes;
use std::path::Path;

fn roots() -> Vec<tempfile::TempDir> {
    let mut dirs = vec![tempfile::tempdir().unwrap()];
    if Path::new("/dev/shm").is_dir() {
        dirs.push(tempfile::tempdir_in("/dev/shm").unwrap());
    }
    dirs
}

fn run_text(text: &str) -> Vec<FsOutcome> {
    let file = parse_str(text, "test.vdb").unwrap();
    let options = FsOptions {
        allow_overwrite: false,
        stop: Default::default(),
    };
    file.fs_runs()
        .unwrap()
        .iter()
        .map(|r| run(r, &options).unwrap())
        .collect()
}

/// (directories, files) below `dir`, not counting iofit's anchor mark.
fn count_tree(dir: &Path) -> (usize, usize) {
    let mut dirs = 0;
    let mut files = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().to_string();
        if entry.file_type().unwrap().is_dir() {
            dirs += 1;
            let (d, f) = count_tree(&entry.path());
            dirs += d;
            files += f;
        } else if name.starts_with("vdb_f") {
            files += 1;
        }
    }
    (dirs, files)
}

fn count(outcome: &FsOutcome, op: FileOp) -> u64 {
    outcome.run.as_ref().unwrap().stats.ops[index(op)].count
}

#[test]
fn format_yes_creates_width_to_the_depth_directories_of_files() {
    for root in roots() {
        let anchor = root.path().join("anchor");
        let text = format!(
            "fsd=fsd1,anchor={},depth=3,width=3,files=4,size=4k\n\
             fwd=fwd1,fsd=fsd1,operation=getattr,threads=2\n\
             rd=rd1,fwd=fwd1,fwdrate=max,format=only,elapsed=1\n",
            anchor.display()
        );
        let outcome = &run_text(&text)[0];
        let (dirs, files) = count_tree(&anchor);
        // 3 + 9 + 27 directories; files only in the 27 deepest ones.
        assert_eq!(dirs, 3 + 9 + 27, "{}", root.path().display());
        assert_eq!(files, 27 * 4);
        let format = outcome.format.as_ref().unwrap();
        assert_eq!(format.stats.ops[index(FileOp::Mkdir)].count, 39);
        assert_eq!(format.stats.ops[index(FileOp::Create)].count, 108);
        // Each 4k file is one 128k-format write, then its close.
        assert_eq!(format.stats.ops[index(FileOp::Write)].count, 108);
        assert_eq!(
            format.stats.ops[index(FileOp::Write)].bytes,
            Bytes(108 * 4096)
        );
        assert!(
            outcome.run.is_none(),
            "format=only runs nothing after the format"
        );
        for dir in walk_leaf_sizes(&anchor) {
            assert_eq!(dir, 4096);
        }
    }
}

fn walk_leaf_sizes(dir: &Path) -> Vec<u64> {
    let mut sizes = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            sizes.extend(walk_leaf_sizes(&entry.path()));
        } else if entry.file_name().to_string_lossy().starts_with("vdb_f") {
            sizes.push(entry.metadata().unwrap().len());
        }
    }
    sizes
}

#[test]
fn read_counts_add_up_and_a_mix_holds_within_five_percent() {
    for root in roots() {
        let anchor = root.path().join("a");
        // 16k files read and written whole in 4k transfers: 4 transfers per open.
        let text = format!(
            "fsd=fsd1,anchor={},depth=1,width=4,files=25,size=16k\n\
             fwd=fwd1,fsd=fsd1,rdpct=70,xfersize=4k,fileselect=random,threads=2\n\
             rd=rd1,fwd=fwd1,fwdrate=max,format=yes,elapsed=1\n",
            anchor.display()
        );
        let outcome = &run_text(&text)[0];
        let (reads, writes) = (count(outcome, FileOp::Read), count(outcome, FileOp::Write));
        let (opens, closes) = (count(outcome, FileOp::Open), count(outcome, FileOp::Close));
        assert!(opens > 100, "{opens} opens");
        // Every open is closed (a thread stops between whole files).
        assert_eq!(opens, closes);
        assert_eq!(reads + writes, 4 * opens);
        let stats = &outcome.run.as_ref().unwrap().stats;
        assert_eq!(stats.total_ops(), reads + writes + opens + closes);
        assert_eq!(stats.ops[index(FileOp::Read)].bytes, Bytes(reads * 4096));
        let read_share = reads as f64 / (reads + writes) as f64;
        assert!((read_share - 0.70).abs() < 0.05, "read share {read_share}");
        // The latency histogram counted every operation.
        assert_eq!(stats.ops[index(FileOp::Read)].latency.count(), reads);
    }
}

#[test]
fn create_and_delete_change_the_file_count_by_their_difference() {
    for root in roots() {
        let anchor = root.path().join("cd");
        let text = format!(
            "fsd=fsd1,anchor={},depth=2,width=2,files=50,size=1k\n\
             fwd=fwdc,fsd=fsd1,operation=create,threads=1\n\
             fwd=fwdd,fsd=fsd1,operation=delete,threads=1\n\
             rd=rd1,fwd=fwd*,fwdrate=max,format=yes,elapsed=1\n",
            anchor.display()
        );
        let outcome = &run_text(&text)[0];
        let (creates, deletes) = (
            count(outcome, FileOp::Create),
            count(outcome, FileOp::Delete),
        );
        assert!(
            creates + deletes > 50,
            "{creates} creates, {deletes} deletes"
        );
        let (_, files) = count_tree(&anchor);
        // format=yes made all 200; creates add, deletes remove.
        assert_eq!(files as i64, 200 + creates as i64 - deletes as i64);
        assert_eq!(outcome.files_per_fsd[0].1, files);
    }
}

#[test]
fn metadata_operations_and_fwdrate() {
    let root = tempfile::tempdir().unwrap();
    let anchor = root.path().join("m");
    let text = format!(
        "fsd=fsd1,anchor={},depth=1,width=2,files=10,size=1k\n\
         fwd=default,fsd=fsd1,threads=1\n\
         fwd=g,operation=getattr\n\
         fwd=s,operation=setattr\n\
         fwd=a,operation=access\n\
         fwd=o,operation=open\n\
         rd=rd1,fwd=*,fwdrate=200,format=yes,elapsed=1\n",
        anchor.display()
    );
    let outcome = &run_text(&text)[0];
    let total: u64 = [
        FileOp::Getattr,
        FileOp::Setattr,
        FileOp::Access,
        FileOp::Open,
    ]
    .iter()
    .map(|op| count(outcome, *op))
    .sum();
    // fwdrate=200 over 1 s, 50 each: scheduled, so at most 200 (+1 per thread at time 0).
    assert!(
        (150..=204).contains(&total),
        "{total} operations at fwdrate=200"
    );
    assert_eq!(count(outcome, FileOp::Open), count(outcome, FileOp::Close));
}

#[test]
fn mkdir_rmdir_copy_move() {
    let root = tempfile::tempdir().unwrap();
    let anchor = root.path().join("d");
    let text = format!(
        "fsd=fsd1,anchor={},depth=2,width=3,files=2,size=2k\n\
         fwd=c,fsd=fsd1,operation=copy\n\
         fwd=m,fsd=fsd1,operation=move\n\
         fwd=d,fsd=fsd1,operation=delete\n\
         rd=rd1,fwd=*,fwdrate=max,format=yes,elapsed=1\n\
         fwd=mk,fsd=fsd1,operation=mkdir\n\
         fwd=rm,fsd=fsd1,operation=rmdir\n",
        anchor.display()
    );
    // Lines after the rd are refused by vdbench's order; write them as two files instead.
    assert!(parse_str(&text, "t").is_err());
    let first = format!(
        "fsd=fsd1,anchor={},depth=2,width=3,files=2,size=2k\n\
         fwd=c,fsd=fsd1,operation=copy\n\
         fwd=m,fsd=fsd1,operation=move\n\
         fwd=d,fsd=fsd1,operation=delete\n\
         fwd=mk,fsd=fsd1,operation=mkdir\n\
         fwd=rm,fsd=fsd1,operation=rmdir\n\
         rd=rd1,fwd=(c,d),fwdrate=40,format=yes,elapsed=1\n\
         rd=rd2,fwd=(m,d),fwdrate=40,format=yes,elapsed=1\n\
         rd=rd3,fwd=(d,rm,mk),fwdrate=max,format=no,elapsed=1\n",
        anchor.display()
    );
    let outcomes = run_text(&first);
    assert!(count(&outcomes[0], FileOp::Copy) > 0);
    assert!(count(&outcomes[1], FileOp::Move) > 0);
    assert!(
        count(&outcomes[2], FileOp::Rmdir) > 0,
        "emptied directories are removed"
    );
    assert!(count(&outcomes[2], FileOp::Mkdir) > 0);
    let (dirs, files) = count_tree(&anchor);
    let leaf_present = dirs - 3;
    assert!(leaf_present <= 9);
    assert_eq!(files, outcomes[2].files_per_fsd[0].1);
}

#[test]
fn a_foreign_anchor_is_refused_and_left_alone() {
    let root = tempfile::tempdir().unwrap();
    let anchor = root.path().join("users");
    std::fs::create_dir(&anchor).unwrap();
    std::fs::write(anchor.join("report.doc"), b"keep me").unwrap();
    let text = format!(
        "fsd=fsd1,anchor={},depth=1,width=1,files=1,size=4k\n\
         fwd=fwd1,fsd=fsd1,operation=read\n\
         rd=rd1,fwd=fwd1,fwdrate=max,format=yes,elapsed=1\n",
        anchor.display()
    );
    let file = parse_str(&text, "t").unwrap();
    let options = FsOptions {
        allow_overwrite: false,
        stop: Default::default(),
    };
    let error = run(&file.fs_runs().unwrap()[0], &options).unwrap_err();
    assert!(error.is_bad_input(), "{error}");
    assert!(error.to_string().contains("--allow-overwrite"), "{error}");
    assert_eq!(
        std::fs::read(anchor.join("report.doc")).unwrap(),
        b"keep me"
    );
}

#[test]
fn a_create_run_that_fills_the_tree_stops_its_busy_time_at_the_last_file() {
    let root = tempfile::tempdir().unwrap();
    let anchor = root.path().join("fill");
    let text = format!(
        "fsd=fsd1,anchor={},depth=1,width=2,files=10,size=1k\n\
         fwd=c,fsd=fsd1,operation=create,threads=2\n\
         fwd=d,fsd=fsd1,operation=delete,threads=2\n\
         rd=empty,fwd=d,fwdrate=max,format=yes,elapsed=1\n\
         rd=fill,fwd=c,fwdrate=max,format=no,elapsed=1\n",
        anchor.display()
    );
    let outcomes = run_text(&text);
    // The first run formatted 20 files and deleted them all, keeping the directories.
    assert_eq!(count(&outcomes[0], FileOp::Delete), 20);
    let outcome = &outcomes[1];
    let run = outcome.run.as_ref().unwrap();
    assert_eq!(count(outcome, FileOp::Create), 20);
    assert!(run.stats.no_candidate > 0);
    assert!(
        run.busy_seconds < run.seconds,
        "{} vs {}",
        run.busy_seconds.get(),
        run.seconds.get()
    );
    assert_eq!(count_tree(&anchor).1, 20);
}

#[test]
fn o_direct_reads_on_disk_and_unaligned_sizes_are_refused() {
    // The temp dir is on the disk (ext4 here); tmpfs may refuse O_DIRECT.
    let root = tempfile::tempdir().unwrap();
    let text = format!(
        "fsd=fsd1,anchor={}/dio,depth=1,width=2,files=4,size=8k\n\
         fwd=r,fsd=fsd1,operation=read,xfersize=4k,openflags=o_direct\n\
         rd=rd1,fwd=r,fwdrate=max,format=yes,elapsed=1\n",
        root.path().display()
    );
    let outcome = &run_text(&text)[0];
    let measured = outcome.run.as_ref().unwrap();
    assert!(count(outcome, FileOp::Read) > 0);
    assert_eq!(measured.stats.total_errors(), 0);
    let bad = text.replace("size=8k", "size=5000");
    let file = parse_str(&bad, "t").unwrap();
    let options = FsOptions {
        allow_overwrite: false,
        stop: Default::default(),
    };
    let error = run(&file.fs_runs().unwrap()[0], &options).unwrap_err();
    assert!(error.to_string().contains("o_direct"), "{error}");
}

#[test]
fn interval_lines_add_up_to_the_run_totals() {
    let root = tempfile::tempdir_in(if Path::new("/dev/shm").is_dir() {
        "/dev/shm"
    } else {
        "/tmp"
    })
    .unwrap();
    let text = format!(
        "fsd=fsd1,anchor={}/i,depth=1,width=2,files=20,size=8k\n\
         fwd=default,fsd=fsd1,threads=2\n\
         fwd=r,operation=read,xfersize=4k\n\
         fwd=g,operation=getattr\n\
         rd=rd1,fwd=*,fwdrate=400,format=yes,elapsed=2,interval=0.5\n",
        root.path().display()
    );
    let outcome = &run_text(&text)[0];
    let run = outcome.run.as_ref().unwrap();
    // 2 s at 0.5 s: four intervals (the last one collected after the workers stop); with no
    // warmup= the first is the warm-up (vdbench's Reporter), left out of the totals.
    assert_eq!(run.intervals.len(), 4, "{:?}", run.intervals);
    for (n, interval) in run.intervals.iter().enumerate() {
        assert_eq!(interval.index, n + 1);
        assert_eq!(interval.warmup, n == 0);
        assert!((interval.seconds.get() - 0.5).abs() < 0.2, "{interval:?}");
        // Paced at 400/s over 4 threads: every interval did some work.
        assert!(interval.counts.total_ops() > 0, "{interval:?}");
    }
    // The measured intervals add up to the totals, within the few operations between the
    // workers' switch to measuring and the reporter's boundary (10% on a loaded machine).
    for op in FileOp::ALL {
        let i = index(op);
        let measured = run.intervals.iter().filter(|v| !v.warmup);
        let per_interval: u64 = measured.map(|v| v.counts.count[i]).sum();
        let total = run.stats.ops[i].count;
        assert!(
            per_interval.abs_diff(total) <= 3 + total / 10,
            "{}: {per_interval} vs {total}",
            op.name()
        );
    }
    let reads = run.stats.ops[index(FileOp::Read)].count;
    assert!(reads > 0);
    assert_eq!(
        run.stats.ops[index(FileOp::Read)].bytes,
        Bytes(reads * 4096)
    );
}

#[test]
fn warmup_intervals_are_marked_and_left_out_of_the_totals() {
    let root = tempfile::tempdir().unwrap();
    let text = format!(
        "fsd=fsd1,anchor={}/w,depth=1,width=1,files=10,size=4k\n\
         fwd=g,fsd=fsd1,operation=getattr,threads=1\n\
         rd=rd1,fwd=g,fwdrate=200,format=yes,elapsed=2,warmup=1,interval=1\n",
        root.path().display()
    );
    let outcome = &run_text(&text)[0];
    let run = outcome.run.as_ref().unwrap();
    // warmup=1 runs before elapsed=2 (vdbench): one warm-up interval, then two measured.
    let warm: Vec<bool> = run.intervals.iter().map(|v| v.warmup).collect();
    assert_eq!(warm, [true, false, false]);
    let measured: u64 = run.intervals[1..]
        .iter()
        .map(|v| v.counts.total_ops())
        .sum();
    // The worker's switch to measuring and the reporter's boundary are apart by the
    // reporter's wake-up delay: a few operations on a quiet machine, allow 10% for a loaded one.
    let total = run.stats.total_ops();
    assert!(
        measured.abs_diff(total) <= 3 + total / 10,
        "{measured} vs {total}"
    );
    assert!(
        (200..=404).contains(&total),
        "{total} at fwdrate=200 over 2 s"
    );
}

#[test]
fn wss_limits_a_run_to_a_fixed_subset_of_that_many_bytes() {
    let root = tempfile::tempdir().unwrap();
    let anchor = root.path().join("wss");
    // 40 files of 4k (160k); wss=40k: the run may touch 10 of them, the same 10 every run.
    let text = |rd: &str| {
        format!(
            "fsd=fsd1,anchor={},depth=1,width=2,files=20,size=4k,wss=40k\n\
             fwd=d,fsd=fsd1,operation=delete,fileselect=random,threads=2\n\
             rd={rd},fwd=d,fwdrate=max,format=yes,elapsed=1\n",
            anchor.display()
        )
    };
    let outcome = &run_text(&text("rd1"))[0];
    // format ignores wss (as vdbench): every file was made; the run deleted only the set.
    assert!(outcome.format.as_ref().unwrap().stats.total_ops() > 0);
    assert_eq!(count(outcome, FileOp::Delete), 10);
    assert_eq!(count_tree(&anchor), (2, 30));
    let left = |dir: &Path| -> Vec<String> {
        let mut names: Vec<String> = walk(dir);
        names.sort();
        names
    };
    let first = left(&anchor);
    run_text(&text("rd2"));
    assert_eq!(
        left(&anchor),
        first,
        "the working set is the same files every run"
    );
    // A working set beyond the files' bytes is refused, naming the fsd.
    let file = parse_str(
        &format!(
            "fsd=fsd1,anchor={}/x,depth=1,width=1,files=2,size=4k,wss=1m\n\
             fwd=g,fsd=fsd1,operation=getattr\n\
             rd=r,fwd=g,fwdrate=max,format=yes,elapsed=1\n",
            root.path().display()
        ),
        "w.vdb",
    )
    .unwrap();
    let options = FsOptions {
        allow_overwrite: false,
        stop: Default::default(),
    };
    let error = run(&file.fs_runs().unwrap()[0], &options).unwrap_err();
    assert!(
        error.is_bad_input() && error.to_string().contains("fsd=fsd1: wss="),
        "{error}"
    );
}

/// Paths of the files below `dir`, relative to it.
fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().to_string();
        if entry.file_type().unwrap().is_dir() {
            out.extend(
                walk(&entry.path())
                    .into_iter()
                    .map(|n| format!("{name}/{n}")),
            );
        } else if name.starts_with("vdb_f") {
            out.push(name);
        }
    }
    out
}

#[test]
fn fwdrate_paces_each_read_not_each_file() {
    let root = tempfile::tempdir().unwrap();
    // 64 KiB files read in 4 KiB transfers: 16 reads per open. fwdrate=50 is 50 reads a
    // second (vdbench: one permit per operation), not 50 files (800 reads).
    let text = format!(
        "fsd=fsd1,anchor={}/p,depth=1,width=1,files=8,size=64k\n\
         fwd=r,fsd=fsd1,operation=read,xfersize=4k,threads=2\n\
         rd=rd1,fwd=r,fwdrate=50,format=yes,elapsed=2,warmup=1,interval=1\n",
        root.path().display()
    );
    let outcome = &run_text(&text)[0];
    let run = outcome.run.as_ref().unwrap();
    let reads = run.stats.ops[index(FileOp::Read)].count as f64;
    let opens = run.stats.ops[index(FileOp::Open)].count as f64;
    let rate = reads / run.seconds.get();
    assert!(
        rate > 35.0 && rate <= 55.0,
        "{reads} reads over {} s",
        run.seconds.get()
    );
    // About one open per 16 reads (the file being read when the run starts adds one).
    assert!(
        opens <= reads / 16.0 + 3.0,
        "{opens} opens for {reads} reads"
    );
}

/// Two hosts of a `shared=yes` fsd, run here as two concurrent runs of the same anchor, each
/// with its host number (what `FsRun::on_host` gives each host): they make the directories
/// together without an error, each creates and reads only its own every-other file, and
/// between them every file is made exactly once.
#[test]
fn a_shared_fsd_splits_its_files_between_hosts_every_nth_file() {
    use iofit_jobfile::vdbench::FileShare;
    let root = tempfile::tempdir().unwrap();
    let anchor = root.path().join("shared");
    let text = format!(
        "fsd=fsd1,anchor={},depth=2,width=2,files=3,size=4k,shared=yes\n\
         fwd=fwd1,fsd=fsd1,operation=read,xfersize=4k,threads=2\n\
         rd=make,fwd=fwd1,fwdrate=max,format=(restart,only),elapsed=1,interval=1\n\
         rd=read,fwd=fwd1,fwdrate=max,format=no,elapsed=1,interval=1\n",
        anchor.display()
    );
    let file = parse_str(&text, "shared.vdb").unwrap();
    let runs = file.fs_runs().unwrap();
    assert_eq!(
        runs[0].format,
        iofit_jobfile::vdbench::FormatMode::RestartOnly
    );
    let options = FsOptions {
        allow_overwrite: false,
        stop: Default::default(),
    };
    let host_run = |run: &iofit_jobfile::vdbench::FsRun, slave: u32| {
        let mut run = run.clone();
        run.fsds[0].share = Some(FileShare { slave, slaves: 2 });
        run
    };
    // Both hosts claim the new anchor and format at once.
    let made: Vec<FsOutcome> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..2)
            .map(|slave| {
                let run = host_run(&runs[0], slave);
                let options = options.clone();
                scope.spawn(move || run_on(&run, &options))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    // 4 leaf directories x 3 files = 12 files: 6 each, all present.
    for outcome in &made {
        assert_eq!(outcome.files_per_fsd[0], ("fsd1".to_string(), 6, 6));
        let format = outcome.format.as_ref().unwrap();
        assert_eq!(format.stats.ops[index(FileOp::Create)].count, 6);
    }
    assert_eq!(count_tree(&anchor), (6, 12));
    // vdbench's order: leaf directories by J, then parent (1_1/2_1, 1_2/2_1, 1_1/2_2,
    // 1_2/2_2), files counted through them: host 0 has files 0, 2, 4, ... of that order
    // (counted parent by parent, as iofit lists them, 1_1/2_2 would start with f0002).
    let tree = iofit_fswork::tree::Tree::new(&runs[0].fsds[0]);
    let host0: Vec<String> = tree
        .shared_files(0, 2)
        .into_iter()
        .map(|i| {
            let path = tree.file_path(i);
            path.strip_prefix(&anchor).unwrap().display().to_string()
        })
        .collect();
    assert_eq!(
        host0,
        [
            "vdb.1_1.dir/vdb.2_1.dir/vdb_f0001.file",
            "vdb.1_1.dir/vdb.2_1.dir/vdb_f0003.file",
            "vdb.1_1.dir/vdb.2_2.dir/vdb_f0001.file",
            "vdb.1_1.dir/vdb.2_2.dir/vdb_f0003.file",
            "vdb.1_2.dir/vdb.2_1.dir/vdb_f0002.file",
            "vdb.1_2.dir/vdb.2_2.dir/vdb_f0002.file",
        ]
    );
    let host1 = tree.shared_files(1, 2);
    assert!(host1.iter().all(|i| !tree.shared_files(0, 2).contains(i)));
    assert_eq!(host1.len(), 6);
    // The measured run of one host finds its 6 files and reads only those: deleting the
    // other host's files changes nothing for it.
    for i in &host1 {
        std::fs::remove_file(tree.file_path(*i)).unwrap();
    }
    let read = run_on(&host_run(&runs[1], 0), &options);
    assert_eq!(read.files_per_fsd[0], ("fsd1".to_string(), 6, 6));
    assert!(count(&read, FileOp::Read) > 0);
    assert_eq!(read.run.as_ref().unwrap().stats.total_errors(), 0);
    assert_eq!(read.run.as_ref().unwrap().stats.no_candidate, 0);
}

fn run_on(fs_run: &iofit_jobfile::vdbench::FsRun, options: &FsOptions) -> FsOutcome {
    run(fs_run, options).unwrap()
}

/// Deletes and getattrs go through each directory opened once below the anchor: a
/// subdirectory replaced by a link to a user's directory holding files of the same names
/// before the run is never walked into (its operations fail and are counted), and the
/// user's files stay.
#[test]
fn deletes_never_reach_a_users_directory_linked_in_place_of_a_subdirectory() {
    for root in roots() {
        let anchor = root.path().join("anchor");
        let users = root.path().join("users");
        std::fs::create_dir(&users).unwrap();
        for n in 1..=4 {
            std::fs::write(users.join(format!("vdb_f{n:04}.file")), b"the user's").unwrap();
        }
        let text = |rd: &str| {
            format!(
                "fsd=fsd1,anchor={},depth=1,width=2,files=4,size=4k\n\
                 fwd=fwdd,fsd=fsd1,operation=delete,threads=2\n\
                 fwd=fwdg,fsd=fsd1,operation=getattr,threads=1\n\
                 {rd}\n",
                anchor.display()
            )
        };
        run_text(&text(
            "rd=make,fwd=fwdd,fwdrate=max,format=only,elapsed=1,interval=1",
        ));
        let sub = anchor.join("vdb.1_1.dir");
        std::fs::rename(&sub, root.path().join("moved")).unwrap();
        std::os::unix::fs::symlink(&users, &sub).unwrap();
        let outcome = &run_text(&text(
            "rd=del,fwd=(fwdd,fwdg),fwdrate=max,format=no,elapsed=1,interval=1",
        ))[0];
        // The scan found only vdb.1_2.dir's 4 files (the link is not a directory of the tree).
        assert_eq!(
            outcome.files_per_fsd[0].1, 0,
            "all that was found is deleted"
        );
        for n in 1..=4 {
            assert_eq!(
                std::fs::read(users.join(format!("vdb_f{n:04}.file"))).unwrap(),
                b"the user's"
            );
        }
        assert_eq!(
            std::fs::read_dir(anchor.join("vdb.1_2.dir"))
                .unwrap()
                .count(),
            0
        );
    }
}

/// A worker out of work (every file deleted in the first milliseconds of a 2 s run) waits
/// for work with growing sleeps instead of scanning the file states in a loop: it looks at
/// most about once a millisecond (it used to look tens of thousands of times, holding a core).
#[test]
fn a_worker_out_of_files_waits_rather_than_spins() {
    let root = tempfile::tempdir().unwrap();
    let outcomes = run_text(&format!(
        "fsd=fsd1,anchor={}/a,depth=1,width=2,files=20,size=4k\n\
         fwd=fwd1,fsd=fsd1,operation=delete,threads=1\n\
         rd=make,fwd=fwd1,fwdrate=max,format=only,elapsed=1,interval=1\n\
         rd=rd1,fwd=fwd1,fwdrate=max,format=no,elapsed=2,interval=1\n",
        root.path().display()
    ));
    let outcome = &outcomes[1];
    assert_eq!(outcome.files_per_fsd[0].1, 0);
    let run = outcome.run.as_ref().unwrap();
    let deleted: u64 = run
        .intervals
        .iter()
        .map(|i| i.counts.count[index(FileOp::Delete)])
        .sum();
    assert_eq!(deleted, 40);
    let looks = run.stats.no_candidate;
    assert!(
        (1..2_500).contains(&looks),
        "{looks} looks for a file to delete in 1 s"
    );
}
