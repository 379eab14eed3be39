#!/usr/bin/env bash
# A generated fleet: SERVERS servers x DAYS days of 10 s samples, profiled and planned:
#   iofit profile FLEET_DIR --fleet-out REQ_DIR     (every core, one server per file)
#   iofit plan --fleet REQ_DIR --fleet-csv F --fleet-html F
# The captures mix the formats users bring: iostat -x -t (sysstat 12 layout, 3 disks + avg-cpu),
# sar -d -p (sysstat 12) and PerfMon CSV (typeperf, 3 physical disks + CPU + memory). To keep
# the disk footprint small, DISTINCT different captures are generated and the servers are hard
# links to them (each server is still read and parsed in full; the page cache holds the
# distinct files, so this measures parsing and planning, not disk reads).
#   bench/fleet.sh [SERVERS] [DAYS] [DISTINCT]   (default 500 7 12)
set -euo pipefail
cd "$(dirname "$0")/.."
servers=${1:-500}
days=${2:-7}
distinct=${3:-12}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/gen" "$work/fleet"

python3 - "$work/gen" "$days" "$distinct" <<'PY'
import random, sys
out, days, distinct = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
samples = days * 86400 // 10
IOSTAT_HDR = ("Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   "
              "wrqm/s  %wrqm w_await wareq-sz     d/s     dkB/s   drqm/s  %drqm d_await dareq-sz     "
              "f/s f_await  aqu-sz  %util\n")

def load(rnd, i, base):
    # A daily cycle with a busy hour and noise: IOPS for sample i.
    hour = (i * 10 // 3600) % 24
    day = 0.3 + 0.7 * (1 if 8 <= hour < 18 else 0.2) + (1.5 if hour == 9 else 0)
    return base * day * rnd.uniform(0.7, 1.3)

def iostat(path, seed):
    rnd = random.Random(seed)
    pool_rows = {}
    with open(path, "w") as f:
        f.write("Linux 5.15.0 (srv) \t11/16/26 \t_x86_64_\t(8 CPU)\n\n")
        for i in range(samples + 1):
            t = i * 10 % 86400
            f.write("11/%02d/26 %02d:%02d:%02d\n" % (16 + i * 10 // 86400, t // 3600, t // 60 % 60, t % 60))
            f.write("avg-cpu:  %%user   %%nice %%system %%iowait  %%steal   %%idle\n         %6.2f    0.00  %6.2f  %6.2f    0.00  %6.2f\n\n"
                    % (rnd.uniform(5, 40), rnd.uniform(1, 10), rnd.uniform(0, 5), rnd.uniform(40, 90)))
            f.write(IOSTAT_HDR)
            for dev, base, rsz, wsz, rshare in (("sda", 20, 16, 16, 0.3), ("sdb", 1500 + seed * 50, 8, 8, 0.75), ("sdc", 300, 0, 32, 0.0)):
                io = load(rnd, i, base)
                r, w = io * rshare, io * (1 - rshare)
                f.write("%-13s %7.2f %9.2f %8.2f %6.2f %7.2f %8.2f %7.2f %9.2f %8.2f %6.2f %7.2f %8.2f"
                        "    0.00      0.00     0.00   0.00    0.00     0.00    0.00    0.00 %6.2f %6.2f\n"
                        % (dev, r, r * rsz, 0, 0, 0.8, rsz, w, w * wsz, w * 0.1, 9.0, 1.2, wsz,
                           io / 1000, min(100, io / 40)))
            f.write("\n\n")

def sar(path, seed):
    rnd = random.Random(seed)
    with open(path, "w") as f:
        f.write("Linux 5.15.0 (srv) \t11/16/26 \t_x86_64_\t(8 CPU)\n\n")
        f.write("00:00:00          tps     rkB/s     wkB/s     dkB/s   areq-sz    aqu-sz     await     %util DEV\n")
        for i in range(1, samples + 1):
            t = i * 10 % 86400
            stamp = "%02d:%02d:%02d" % (t // 3600, t // 60 % 60, t % 60)
            for dev, base, size, rshare in (("sda", 15, 16, 0.4), ("sdb", 900 + seed * 40, 8, 0.7), ("sdc", 200, 64, 0.0)):
                tps = load(rnd, i, base)
                kb = tps * size
                f.write("%-8s %12.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %s\n"
                        % (stamp, tps, kb * rshare, kb * (1 - rshare), 0, size, tps / 1000, 1.0, min(100, tps / 30), dev))

def perfmon(path, seed):
    rnd = random.Random(seed)
    cols = ['"(PDH-CSV 4.0) (Pacific Standard Time)(480)"']
    for inst in ("0 C:", "1 E:", "2 F:"):
        for c in ("Disk Reads/sec", "Disk Writes/sec", "Disk Read Bytes/sec", "Disk Write Bytes/sec", "Avg. Disk sec/Read", "Avg. Disk sec/Write", "Current Disk Queue Length"):
            cols.append('"\\\\SRV\\PhysicalDisk(%s)\\%s"' % (inst, c))
    cols += ['"\\\\SRV\\Processor(_Total)\\% Processor Time"', '"\\\\SRV\\Memory\\% Committed Bytes In Use"']
    with open(path, "w", newline="") as f:
        f.write(",".join(cols) + "\r\n")
        for i in range(samples):
            t = i * 10 % 86400
            cells = ['"11/%02d/2026 %02d:%02d:%02d.%03d"' % (16 + i * 10 // 86400, t // 3600, t // 60 % 60, t % 60, i % 1000)]
            for base, size, rshare in ((10, 16384, 0.5), (1200 + seed * 60, 8192, 0.8), (250, 61440, 0.0)):
                io = load(rnd, i, base)
                r, w = io * rshare, io * (1 - rshare)
                cells += ['"%.6f"' % v for v in (r, w, r * size, w * size, 0.0015, 0.0008, io / 1000)]
            cells += ['"%.6f"' % rnd.uniform(10, 60), '"%.6f"' % rnd.uniform(40, 70)]
            f.write(",".join(cells) + "\r\n")

for k in range(distinct):
    kind = ("iostat", "sar", "perfmon")[k % 3]
    ext = {"iostat": "txt", "sar": "sar.txt", "perfmon": "csv"}[kind]
    {"iostat": iostat, "sar": sar, "perfmon": perfmon}[kind]("%s/capture%02d.%s" % (out, k, ext), k)
PY

gen=("$work"/gen/*)
for i in $(seq 1 "$servers"); do
  src=${gen[$(( (i - 1) % ${#gen[@]} ))]}
  ext=${src##*/capture[0-9][0-9].}
  ln "$src" "$work/fleet/srv$(printf %03d "$i").$ext"
done
total_bytes=$(find "$work/fleet" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')
cat "$work"/gen/* > /dev/null  # page cache

cargo build --release -p iofit >/dev/null 2>&1 || cargo build --release -p iofit
start=$(date +%s.%N)
status=0
./target/release/iofit profile "$work/fleet" --fleet-out "$work/req" > "$work/profile.out" 2> "$work/profile.err" || status=$?
mid=$(date +%s.%N)
./target/release/iofit plan --fleet "$work/req" --fleet-csv "$work/fleet.csv" --fleet-html "$work/fleet.html" > "$work/plan.out" 2> "$work/plan.err" || echo "plan exit code $?"
end=$(date +%s.%N)
profile_s=$(awk "BEGIN { printf \"%.1f\", $mid - $start }")
plan_s=$(awk "BEGIN { printf \"%.1f\", $end - $mid }")
echo "fleet: $servers servers x $days days of 10 s samples ($(( days * 8640 )) samples each), $(ls "$work/gen" | wc -l) distinct captures (iostat -x / sar -d / PerfMon), $(awk "BEGIN { printf \"%.1f\", $total_bytes / 1e9 }") GB parsed"
cat "$work/profile.out"
echo "profile exit code $status; $(grep -c 'skipped server' "$work/profile.err" || true) servers skipped"
head -3 "$work/profile.err"
echo "profile: $profile_s s ($(awk "BEGIN { printf \"%.0f\", $total_bytes / ($mid - $start) / 1e6 }") MB/s); plan: $plan_s s; total $(awk "BEGIN { printf \"%.1f\", $end - $start }") s"
tail -3 "$work/plan.out"
echo "CSV rows: $(($(wc -l < "$work/fleet.csv") - 2)) servers + header + TOTAL; HTML $(stat -c %s "$work/fleet.html") bytes"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r); load $(cut -d' ' -f1-3 /proc/loadavg)"
