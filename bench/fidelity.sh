#!/usr/bin/env bash
# Fidelity of `iofit emulate` against `iofit predict`: for each design x workload pair, predict
# with the service latency measured on the unthrottled device, then run the same workload with
# `iofit run` under `iofit emulate` and compare IOPS, MB/s and the binding limit.
# Goal: measured within 10 % of predicted on every pair, the binding limit named the same (or,
# "ok (tie)", a limit the prediction comes within 10 % of: either may bind in a measurement).
# Needs root (cgroups, loop devices). Volumes are loop devices on /dev/shm (RAM), so the
# throttle, not the disk, sets the pace. RUNTIME=S sets each run's length (default 8 s);
# ONLY=REGEX runs the pairs whose "VM DISKS RW BS QDn" matches (e.g. ONLY=randrw).
# Then, with fio's per-second logs (the command's own view, not emulate's): every 1-second
# window from the first on against the cap + 5 %, for one volume, mixed reads and writes, two
# volumes in two directions sharing the VM's cap, the VM's MB/s cap on large reads, and a
# Google Cloud disk type's read IOPS. ONLY=gcp runs the Google Cloud pairs alone.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNTIME="${RUNTIME:-8}"
# IOFIT_BIN=PATH measures that binary instead of building target/release/iofit.
if [ -n "${IOFIT_BIN:-}" ]; then
    BIN=$(realpath "$IOFIT_BIN")
else
    cargo build --release -p iofit >/dev/null 2>&1 || cargo build --release -p iofit
    BIN="$PWD/target/release/iofit"
fi
WORK=$(mktemp -d /tmp/iofit-fidelity.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

emulate() { # emulate OUT_JSON DESIGN_ARGS... -- RUN_ARGS...
    local out=$1; shift
    # --no-burst: predict gives the sustained limits (no VM or disk credit bursting).
    "$BIN" emulate --image-dir /dev/shm --scratch-size 256m --mount-root "$WORK/m$RANDOM" \
        --no-burst --quiet --json "$out" "$@" > /dev/null 2>&1
}

# 1. Service latency of one 4 KiB random read at QD1 on the unthrottled loop device.
emulate "$WORK/probe.json" --vm Standard_D8s_v5 --disk data=1xP30 --limit-scale 1000 -- \
    "$BIN" run --name=p --rw=randread --bs=4k --ioengine=psync --direct=1 --size=64m \
    --runtime=4 --time_based --directory={data} --output-format=json --output="$WORK/probe-run.json" --quiet
LAT_MS=$(python3 -c "import json;j=json.load(open('$WORK/probe-run.json'))['jobs'][0]['read'];print(round(j['lat_ns']['mean']/1e6,4))")
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), kernel $(uname -r)"
echo "service latency (4 KiB randread QD1, unthrottled loop device on /dev/shm): $LAT_MS ms"
printf '%-34s %-34s %10s %10s %7s %9s %9s %7s  %-22s %-22s %s\n' design workload pred_IOPS meas_IOPS err pred_MB/s meas_MB/s err pred_binding emul_binding verdict

pass=0; total=0
pair() { # pair NAME VM "DISKS" "RUN ARGS" rw bs iodepth numjobs [rwmixread]
    local vm=$1 disks=$2 run=$3 rw=$4 bs=$5 qd=$6 jobs=$7 mix=${8:-50}
    if [ -n "${ONLY:-}" ] && ! [[ "$vm $disks $rw $bs QD$qd" =~ $ONLY ]]; then return 0; fi
    local dargs=() pargs=() first=""
    for d in $disks; do dargs+=(--disk "$d"); pargs+=(--disk "${d#*=}"); first=${first:-${d%%=*}}; done
    "$BIN" predict --vm "$vm" "${pargs[@]}" --rw "$rw" --bs "$bs" --iodepth "$qd" --numjobs "$jobs" \
        --rwmixread "$mix" --service-latency-ms "$LAT_MS" --json > "$WORK/pred.json"
    local cmd="" ; local labels=""
    for d in $disks; do
        local l=${d%%=*}
        cmd+="$BIN run --name=$l --rw=$rw --bs=$bs --rwmixread=$mix --ioengine=io_uring --iodepth=$qd --numjobs=$jobs --direct=1 --size=64m --runtime=$RUNTIME --time_based --directory=\$IOFIT_VOLUME_${l^^} --output-format=json --output=$WORK/run-$l.json --quiet & "
        labels+="$l "
    done
    emulate "$WORK/emu.json" --vm "$vm" "${dargs[@]}" -- sh -c "${cmd} wait"
    python3 - "$WORK" "$vm" "$disks" "$rw $bs QD$qd x$jobs${run:+ $run}" $labels <<'PY'
import json, sys
work, vm, disks, workload, labels = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
pred = json.load(open(f"{work}/pred.json"))["prediction"]
emu = json.load(open(f"{work}/emu.json"))
iops = mb = 0.0
for l in labels:
    for job in json.load(open(f"{work}/run-{l}.json"))["jobs"]:
        for d in ("read", "write"):
            iops += job[d]["iops"]
            mb += job[d]["bw_bytes"] / 1e6
kinds = {"IOPS": "disk_iops", "MB/s": "disk_throughput"}
b = emu.get("binding") or "none"
emu_kind = ("vm_uncached_iops" if b == "VM uncached IOPS" else "vm_uncached_throughput" if b == "VM uncached MB/s"
            else "disk_iops" if b.endswith(" IOPS") else "disk_throughput" if b.endswith(" MB/s") else "none")
pk = pred["binding"]["kind"] if pred.get("binding") else "none"
pk_norm = {"disk_throughput_mb_s": "disk_throughput", "vm_uncached_throughput_mb_s": "vm_uncached_throughput", "volume_iops": "disk_iops", "volume_throughput_mb_s": "disk_throughput", "volume_throughput": "disk_throughput",
           "stripe_iops": "disk_iops", "stripe_throughput_mb_s": "disk_throughput"}.get(pk, pk)
pi, pm = pred["total_iops"], pred["total_throughput_mb_s"]
ei = (iops - pi) / pi * 100 if pi else 0
em = (mb - pm) / pm * 100 if pm else 0
same = pk_norm == emu_kind or (pk_norm.startswith("queue") and emu_kind == "none")
# A tie: a limit the prediction uses to within 10 % (the error band above) may bind in a
# measurement as well as the predicted one (QD1 / 0.053 ms = 18,797 IOPS against a P80's 20,000).
near = {{"disk_throughput_mb_s": "disk_throughput"}.get(l["kind"], l["kind"])
        for l in pred.get("limits", []) if l.get("headroom_pct", 100) <= 10}
tie = not same and emu_kind in near
same = same or tie
ok = abs(ei) <= 10 and abs(em) <= 10 and same
print(f"{vm + ' ' + disks:<34} {workload:<34} {pi:10.0f} {iops:10.0f} {ei:6.1f}% {pm:9.1f} {mb:9.1f} {em:6.1f}%  {pk:<22} {b:<22} {('ok (tie)' if tie else 'ok') if ok else 'MISS'}")
open(f"{work}/verdict", "w").write("ok" if ok else "miss")
PY
    total=$((total + 1)); [ "$(cat "$WORK/verdict")" = ok ] && pass=$((pass + 1)); return 0
}

pair Standard_D8s_v5 "data=1xP30" "" randread 4k 32 1          # disk IOPS
pair Standard_D8s_v5 "data=2xP30" "" randread 4k 32 1          # stripe IOPS (2 x 5,000)
pair Standard_D2s_v5 "data=2xP30" "" randread 4k 32 1          # VM uncached IOPS 3,750
pair Standard_D2s_v5 "a=1xP30 b=1xP30" "" randread 4k 32 1     # VM cap shared by two volumes
pair Standard_D8s_v5 "data=1xP30" "" randwrite 4k 32 1         # disk IOPS, writes
pair Standard_D8s_v5 "data=1xP30" "" randrw 4k 32 1 70         # mixed 70/30
pair Standard_D8s_v5 "data=1xP30" "" read 1m 8 1               # disk MB/s, large IO
pair Standard_D2s_v5 "data=2xP30" "" read 1m 8 1               # VM MB/s 85
pair Standard_D8s_v5 "data=1xP30" "" write 256k 8 1            # disk MB/s, writes
pair Standard_D8s_v5 "data=1xP40" "" randread 8k 64 1          # disk IOPS 7,500
pair Standard_D32s_v5 "data=1xP80" "" randread 4k 1 1          # queue depth: QD1 / latency
pair Standard_D8s_v5 "data=1xP30" "" randread 4k 2 1           # queue depth 2

# Google Cloud (`--cloud gcp`): predict gives each design flat out (no queue-depth model), so the
# workloads run at a queue depth that reaches the limit. The binding is the same when emulate's
# (`pd-balanced read IOPS`) names predict's disk type, direction and kind (`pd-balanced read IOPS
# by size`, `VM n2-standard-4 pd-balanced read IOPS`; throughput is MB/s).
gcp_pair() { # gcp_pair MACHINE "DISKS" rw bs iodepth [rwmixread]
    local vm=$1 disks=$2 rw=$3 bs=$4 qd=$5 mix=${6:-50}
    if [ -n "${ONLY:-}" ] && ! [[ "gcp $vm $disks $rw $bs QD$qd" =~ $ONLY ]]; then return 0; fi
    local dargs=() cmd="" labels=""
    for d in $disks; do dargs+=(--disk "$d"); done
    "$BIN" predict --cloud gcp --vm "$vm" "${dargs[@]}" --rw "$rw" --bs "$bs" --rwmixread "$mix" \
        --json > "$WORK/pred.json"
    for d in $disks; do
        local l=${d%%=*}
        cmd+="$BIN run --name=$l --rw=$rw --bs=$bs --rwmixread=$mix --ioengine=io_uring --iodepth=$qd --direct=1 --size=64m --runtime=$RUNTIME --time_based --directory=\$IOFIT_VOLUME_${l^^} --output-format=json --output=$WORK/run-$l.json --quiet & "
        labels+="$l "
    done
    emulate "$WORK/emu.json" --cloud gcp --vm "$vm" "${dargs[@]}" -- sh -c "${cmd} wait"
    python3 - "$WORK" "$vm" "$disks" "$rw $bs QD$qd${6:+ $mix% reads}" $labels <<'PY'
import json, sys
work, vm, disks, workload, labels = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
pred = json.load(open(f"{work}/pred.json"))["sustained"]
emu = json.load(open(f"{work}/emu.json"))
iops = mb = 0.0
for l in labels:
    for job in json.load(open(f"{work}/run-{l}.json"))["jobs"]:
        for d in ("read", "write"):
            iops += job[d]["iops"]
            mb += job[d]["bw_bytes"] / 1e6
def kind(name):
    words = name.replace("throughput", "MB/s").split()
    types = [w for w in words if w.startswith("pd-")]
    return (types[0] if types else "", "read" if "read" in words else "write", "MB/s" if "MB/s" in words else "IOPS")
pb, b = pred["binding"], emu.get("binding") or "none"
pi, pm = pred["delivered_iops"], pred["delivered_mb_s"]
ei = (iops - pi) / pi * 100 if pi else 0
em = (mb - pm) / pm * 100 if pm else 0
same = kind(pb) == kind(b)
ok = abs(ei) <= 10 and abs(em) <= 10 and same
print(f"{'gcp ' + vm + ' ' + disks:<34} {workload:<34} {pi:10.0f} {iops:10.0f} {ei:6.1f}% {pm:9.1f} {mb:9.1f} {em:6.1f}%  {pb[:22]:<22} {b:<22} {'ok' if ok else 'MISS'}")
open(f"{work}/verdict", "w").write("ok" if ok else "miss")
PY
    total=$((total + 1)); [ "$(cat "$WORK/verdict")" = ok ] && pass=$((pass + 1)); return 0
}

gcp_pair n2-standard-4 "data=pd-balanced,size_gib=100" randread 4k 32      # read IOPS by size, 3,600
gcp_pair n2-standard-4 "data=pd-balanced,size_gib=100" randwrite 4k 32     # write IOPS by size
gcp_pair n2-standard-4 "data=pd-balanced,size_gib=100" randrw 4k 32 70     # reads bind: 3,600 / 0.7
gcp_pair n2-standard-4 "a=pd-balanced,size_gib=50 b=pd-balanced,size_gib=50" randread 4k 32 # one budget, two disks
gcp_pair n2-standard-4 "data=pd-balanced,size_gib=100" read 1m 8           # read MB/s by size, 168 MiB/s
echo "pairs within 10 % with the same binding limit: $pass of $total"

# 2. First-second compliance, measured by fio's per-second logs.
if ! command -v fio >/dev/null; then
    echo "compliance: skipped (fio is not installed)"
    exit 0
fi
echo
printf '%-50s %10s %10s %10s %10s %s\n' case cap first_s max_s over_5% verdict
comply_ok=0; comply_total=0
comply() { # comply NAME CAP KIND(iops|bw) "DESIGN ARGS" JOB...   (each JOB: "name volume rw bs")
    local name=$1 cap=$2 kind=$3 design=$4; shift 4
    local logs="$WORK/logs$RANDOM"; mkdir -p "$logs"
    local jobs=()
    for job in "$@"; do
        read -r jname vol rw bs <<<"$job"
        jobs+=(--name="$jname" --directory="{$vol}" --rw="$rw" --bs="$bs" --rwmixread=70 \
            --direct=1 --ioengine=libaio --iodepth=16 --size=32m --runtime="$RUNTIME" --time_based \
            --write_iops_log="$logs/$jname" --write_bw_log="$logs/$jname" --log_avg_msec=1000)
    done
    # shellcheck disable=SC2086
    emulate "$WORK/comply.json" $design -- fio --output-format=json "${jobs[@]}"
    python3 - "$logs" "$kind" "$cap" "$name" <<'PY'
import glob, sys
logs, kind, cap, name = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
windows = {}
for path in glob.glob(f"{logs}/*_{kind}.*.log"):
    for line in open(path):
        t, v = [float(x) for x in line.split(",")[:2]]
        w = max(int(round(t / 1000.0)), 1)
        windows[w] = windows.get(w, 0.0) + (v * 1024 / 1e6 if kind == "bw" else v)
seconds = [windows[w] for w in sorted(windows)]
over = sum(1 for v in seconds if v > cap * 1.05)
ok = bool(seconds) and over == 0
print(f"{name:<50} {cap:10.1f} {seconds[0] if seconds else 0:10.1f} {max(seconds or [0]):10.1f} {over:10d} {'ok' if ok else 'MISS'}")
open(f"{logs}/verdict", "w").write("ok" if ok else "miss")
PY
    comply_total=$((comply_total + 1)); [ "$(cat "$logs/verdict")" = ok ] && comply_ok=$((comply_ok + 1)); return 0
}
comply "DS3 3xP30 x0.1, 4k randread (VM 1,280 IOPS)" 1280 iops \
    "--vm Standard_DS3 --disk data=3xP30 --limit-scale 0.1" "r data randread 4k"
comply "DS3 3xP30 x0.1, 8k randrw 70/30 (VM 1,280 IOPS)" 1280 iops \
    "--vm Standard_DS3 --disk data=3xP30 --limit-scale 0.1" "m data randrw 8k"
comply "DS1 a,b=1xP30 x0.25, a reads, b writes (VM 800)" 800 iops \
    "--vm Standard_DS1 --disk a=1xP30 --disk b=1xP30 --limit-scale 0.25" "a a randread 4k" "b b randwrite 4k"
comply "DS3 3xP30 x0.1, 256k read (VM 12.8 MB/s)" 12.8 bw \
    "--vm Standard_DS3 --disk data=3xP30 --limit-scale 0.1" "s data read 256k"
comply "gcp n2-standard-4 pd-balanced 100 GiB x0.1, 4k randread (360 read IOPS)" 360 iops \
    "--cloud gcp --vm n2-standard-4 --disk data=pd-balanced,size_gib=100 --limit-scale 0.1" "g data randread 4k"
echo "compliance cases with no 1-second window over cap + 5 %: $comply_ok of $comply_total"
