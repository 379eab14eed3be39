#!/usr/bin/env bash
# vdbench workloads under iofit against fio running the equivalent job, in one run:
#  1. raw: 4k random reads of a page-cached 1 GiB file, THREADS synchronous threads (vdbench
#     threads= is one IO in flight each; fio: psync, numjobs=THREADS, invalidate=0 so that fio
#     reads the same cached pages instead of dropping them first: like for like);
#  2. fsd: creating 4 KiB files (create, write 4k, close; fio: create_on_open, one 4k write per
#     file) and deleting them (fio's filedelete engine), on tmpfs and on a disk file system
#     (DISK_DIR; by default, as root, a journaled ext4 made for the run on a loop device over a
#     sparse file in /var/tmp, else /var/tmp itself). Both tools create right after making and
#     deleting the same number of files there (iofit's format and rd=empty; fio an untimed
#     create and delete).
# vdbench itself needs Oracle's download (a licence click-through), so fio is the peer here.
# Prints one line per case with both rates and iofit/fio. Needs a release build (built here).
# Usage: bench/vdbench.sh   Env: SECONDS_PER_RUN (10), THREADS (4), FILES (20000),
#        DISK_DIR (where the disk case's files go; default: see 2. above)
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${SECONDS_PER_RUN:-10}
THREADS=${THREADS:-4}
FILES=${FILES:-20000}
cargo build -q --release -p iofit
IOFIT="$PWD/target/release/iofit"
WORK=$(mktemp -d /tmp/iofit-vdbbench.XXXXXX)
SHM=$(mktemp -d /dev/shm/iofit-vdbbench.XXXXXX)
# Why a journaled ext4 by default: this VM's root file system is ext4 without a journal, where
# the inode allocator skips every inode deleted in the last 60-360 s, one buffer lookup each
# (recently_deleted() in find_inode_bit, only without a journal). A create then costs what the
# last minutes deleted, not what the tool does: fio alone, right after its own untimed create
# and delete of 20,000 files, created 1,702 files/s there and 9,775/s in another run (perf: 70 %
# of either tool's time in recently_deleted). Servers run journaled file systems, where the
# check is off and both tools' rates repeat.
IMG="" MNT=""
if [ -z "${DISK_DIR:-}" ] && [ "$(id -u)" = 0 ] && command -v mkfs.ext4 > /dev/null; then
    IMG=$(mktemp /var/tmp/iofit-vdbbench.XXXXXX.img)
    truncate -s 8G "$IMG"
    mkfs.ext4 -q -F "$IMG"
    MNT=$(mktemp -d /tmp/iofit-vdbbench-mnt.XXXXXX)
    mount -o loop "$IMG" "$MNT"
fi
DISK=$(mktemp -d "${DISK_DIR:-${MNT:-/var/tmp}}/iofit-vdbbench.XXXXXX")
cleanup() {
    rm -rf "$WORK" "$SHM" "$DISK"
    if [ -n "$MNT" ]; then umount "$MNT" && rmdir "$MNT"; fi
    if [ -n "$IMG" ]; then rm -f "$IMG"; fi
}
trap cleanup EXIT

# 1. raw random read, page cached.
fio --name=lay --filename="$WORK/data" --size=1g --rw=write --bs=1m --output=/dev/null
cat "$WORK/data" > /dev/null
cat > "$WORK/raw.vdb" <<VDB
sd=sd1,lun=$WORK/data,size=1g
wd=wd1,sd=sd1,xfersize=4k,rdpct=100,seekpct=100
rd=rd1,wd=wd1,iorate=max,elapsed=$SECS,interval=1,threads=$THREADS
VDB
"$IOFIT" run --quiet --output "$WORK/raw.json" "$WORK/raw.vdb" > /dev/null
iofit_raw=$(python3 -c "import json;print(json.load(open('$WORK/raw.json'))['runs'][0]['avg_iops'])")
fio --name=raw --filename="$WORK/data" --size=1g --rw=randread --bs=4k --ioengine=psync \
    --invalidate=0 --numjobs="$THREADS" --group_reporting --time_based --runtime="$SECS" \
    --output-format=json --output="$WORK/fio_raw.json" > /dev/null
fio_raw=$(python3 -c "import json;print(json.load(open('$WORK/fio_raw.json'))['jobs'][0]['read']['iops'])")

# 2. fsd create then delete: FILES files in 10 directories, one thread, under $1; prints
#    "iofit_create iofit_delete fio_create fio_delete" (per second).
fs_case() {
local base=$1
local per_dir=$((FILES / 10))
# Each phase is its own run, and both tools sync before each timed phase, so that neither
# times the journal writing back what the phase before it did (without: one run of 200,000
# deletes on a journaled ext4 went 53,384/s and the next 65,182/s while fio's stayed at
# 63-65k; with the sync, 3 runs in a row were 1.11-1.15x of fio's).
for phase in empty create delete; do
    case $phase in
        empty) rd="rd=empty,fwd=fwdd,fwdrate=max,format=yes,elapsed=$SECS,interval=1" ;;
        create) rd="rd=create,fwd=fwdc,fwdrate=max,format=no,elapsed=$SECS,interval=0.1" ;;
        delete) rd="rd=delete,fwd=fwdd,fwdrate=max,format=no,elapsed=$SECS,interval=0.1" ;;
    esac
    cat > "$WORK/fs-$phase.vdb" <<VDB
fsd=fsd1,anchor=$base/anchor,depth=1,width=10,files=$per_dir,size=4k
fwd=fwdc,fsd=fsd1,operation=create,fileselect=sequential,xfersize=4k,threads=1
fwd=fwdd,fsd=fsd1,operation=delete,fileselect=sequential,threads=1
$rd
VDB
    # interval=0.1: the phase may last under a second; its rate is timed to 0.1 s.
    sync
    "$IOFIT" run --quiet --output "$WORK/fs-$phase.json" "$WORK/fs-$phase.vdb" > /dev/null
done
local iofit_rates fio_rates
iofit_rates=$(python3 - "$WORK/fs-create.json" "$WORK/fs-delete.json" <<'PY'
import json, sys
created, deleted = (json.load(open(f)) for f in sys.argv[1:3])
CREATE, DELETE = 6, 7  # FileOp::ALL's order (crates/jobfile/src/vdbench/fs.rs)
def rate(run, op):
    # The whole phase, its warm-up interval included (fio times its whole job too): every
    # interval's operations, over the intervals up to the last that did one (0.1 s each).
    # That last one is partial: its time is its count at the rate of the fullest interval
    # before it (counting it whole rounded a 0.35 s phase up to 0.4 s, -12 % on iofit).
    intervals = run["run"]["intervals"]
    counts = [iv["counts"]["count"][op] for iv in intervals]
    last = max(i for i, c in enumerate(counts) if c > 0)
    full = max(counts[:last]) if last > 0 else 0
    seconds = sum(iv["seconds"] for iv in intervals[:last])
    share = min(1.0, counts[last] / full) if full else 1.0
    return sum(counts) / (seconds + intervals[last]["seconds"] * share)
# fs-empty formats the tree and empties it (directories stay); then create, then delete.
print(rate(created["fs_runs"][0], CREATE), rate(deleted["fs_runs"][0], DELETE))
PY
)
mkdir -p "$base/fio"
# Like for like: fio's timed create follows the same history as iofit's, FILES files just
# made and deleted there (iofit's format and rd=empty). On ext4 without a journal (the VM's
# root file system), the inode allocator skips every inode deleted in the last 60 s (360 s
# while its inode table block is dirty), one buffer lookup each (recently_deleted() in
# find_inode_bit; perf shows 70 % of either tool's create time there after a mass delete), so
# a create right after deletions runs several times slower whoever does it.
fio_create() {
    fio --name=create --directory="$base/fio" --nrfiles="$FILES" --filesize=4k --bs=4k --rw=write \
        --create_on_open=1 --openfiles=1 --file_service_type=sequential --ioengine=psync \
        --output-format=json --output="$1" > /dev/null
}
fio_create /dev/null
fio --name=create --directory="$base/fio" --nrfiles="$FILES" --filesize=4k --ioengine=filedelete \
    --output=/dev/null > /dev/null
sync
fio_create "$WORK/fio_create.json"
sync
fio --name=create --directory="$base/fio" --nrfiles="$FILES" --filesize=4k --ioengine=filedelete \
    --output-format=json --output="$WORK/fio_delete.json" > /dev/null
fio_rates=$(python3 - "$WORK" "$FILES" <<'PY'
import json, sys
work, files = sys.argv[1], int(sys.argv[2])
c = json.load(open(work + "/fio_create.json"))["jobs"][0]
d = json.load(open(work + "/fio_delete.json"))["jobs"][0]
# fio reports the job's run time in ms; every file is one create (or delete).
print(files / (c["job_runtime"] / 1000.0), files / (d["job_runtime"] / 1000.0))
PY
)
echo "$iofit_rates $fio_rates"
}
read -r iofit_create iofit_delete fio_create fio_delete < <(fs_case "$SHM")
read -r disk_iofit_create disk_iofit_delete disk_fio_create disk_fio_delete < <(fs_case "$DISK")
disk_fs=$(df --output=fstype "$DISK" | tail -1)
disk_dev=$(df --output=source "$DISK" | tail -1)
journal=$(dumpe2fs -h "$disk_dev" 2>/dev/null | grep -q has_journal && echo "with journal" || echo "no journal or not ext4")
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)  cpus: $(nproc)  threads=$THREADS seconds=$SECS files=$FILES"
echo "disk case: $disk_fs on $disk_dev ($journal)"
printf "%-34s %14s %14s %8s\n" case iofit fio iofit/fio
ratio() { python3 -c "print('%.2f' % ($1 / $2))"; }
printf "%-34s %14.0f %14.0f %8s\n" "raw 4k randread, cached (IO/s)" "$iofit_raw" "$fio_raw" "$(ratio "$iofit_raw" "$fio_raw")"
printf "%-34s %14.0f %14.0f %8s\n" "fsd create 4k files, tmpfs (/s)" "$iofit_create" "$fio_create" "$(ratio "$iofit_create" "$fio_create")"
printf "%-34s %14.0f %14.0f %8s\n" "fsd delete files, tmpfs (/s)" "$iofit_delete" "$fio_delete" "$(ratio "$iofit_delete" "$fio_delete")"
printf "%-34s %14.0f %14.0f %8s\n" "fsd create 4k files, disk (/s)" "$disk_iofit_create" "$disk_fio_create" "$(ratio "$disk_iofit_create" "$disk_fio_create")"
printf "%-34s %14.0f %14.0f %8s\n" "fsd delete files, disk (/s)" "$disk_iofit_delete" "$disk_fio_delete" "$(ratio "$disk_iofit_delete" "$disk_fio_delete")"
