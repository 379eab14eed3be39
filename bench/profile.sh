#!/usr/bin/env bash
# `iofit profile` on a large generated `iostat -x -t` capture (sysstat 12 layout, 4 devices per
# report, numbers varied per report) against two peers on the same file in the same run:
#   - mawk summing one column, the one-liner a user would write:
#       awk '$1 ~ /^sd/ {s+=$2} END {print s}'
#   - jc --iostat, the Python parser people use (pip install jc).
# Medians of RUNS runs (jc: of JC_RUNS, it is slow); ratios = peer time / iofit time.
# Goal: iofit >= 2x mawk. Large files are split across cores (bench on >= 2 cores).
#   bench/profile.sh [SIZE_MB] [RUNS] [JC_RUNS]   (default 100 5 3)
set -euo pipefail
cd "$(dirname "$0")/.."
size_mb=${1:-100}
runs=${2:-5}
jc_runs=${3:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
big="$work/iostat-big.txt"
command -v mawk >/dev/null || { echo "mawk missing: apt-get install mawk" >&2; exit 2; }
command -v jc >/dev/null || { echo "jc missing: pip install jc" >&2; exit 2; }

python3 - "$big" "$size_mb" <<'PY'
import random, sys
path, size_mb = sys.argv[1], int(sys.argv[2])
rnd = random.Random(1)
header = ("Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   "
          "wrqm/s  %wrqm w_await wareq-sz     d/s     dkB/s   drqm/s  %drqm d_await dareq-sz     "
          "f/s f_await  aqu-sz  %util\n")
# A pool of pre-formatted reports, cycled with a fresh time stamp each, keeps generation fast
# while the parser still sees varied numbers.
pool = []
for _ in range(512):
    rows = []
    for dev in ("sda", "sdb", "sdc", "nvme0n1"):
        r, w = rnd.uniform(0, 9000), rnd.uniform(0, 3000)
        rs, ws = rnd.choice([4, 8, 16, 64]), rnd.choice([4, 8, 60, 256])
        rows.append("%-13s %7.2f %9.2f %8.2f %6.2f %7.2f %8.2f %7.2f %9.2f %8.2f %6.2f %7.2f %8.2f"
                    " %7.2f %9.2f %8.2f %6.2f %7.2f %8.2f %7.2f %7.2f %6.2f %6.2f\n"
                    % (dev, r, r * rs, r * 0.01, 1.0, rnd.uniform(0.1, 3), rs, w, w * ws, w * 0.3,
                       23.0, rnd.uniform(0.1, 3), ws, 0, 0, 0, 0, 0, 0, 1.0, 0.05,
                       rnd.uniform(0, 30), rnd.uniform(0, 100)))
    cpu = "avg-cpu:  %%user   %%nice %%system %%iowait  %%steal   %%idle\n         %6.2f  %6.2f  %6.2f  %6.2f  %6.2f  %6.2f\n\n" % (
        rnd.uniform(0, 50), 0, rnd.uniform(0, 20), rnd.uniform(0, 10), 0, rnd.uniform(20, 90))
    pool.append(cpu + header + "".join(rows) + "\n\n")
target = size_mb * 1_000_000
written = 0
i = 0
with open(path, "w") as f:
    f.write("Linux 6.1.0 (bench) \t11/22/26 \t_x86_64_\t(16 CPU)\n\n")
    while written < target:
        t = i % 86400
        chunk = "11/22/26 %02d:%02d:%02d\n" % (t // 3600, t // 60 % 60, t % 60) + pool[i % len(pool)]
        f.write(chunk)
        written += len(chunk)
        i += 1
PY

cargo build --release -p iofit >/dev/null 2>&1 || cargo build --release -p iofit
bytes=$(stat -c %s "$big")
cat "$big" > /dev/null  # page cache: parse speed, not disk speed

# time_s NAME CMD...: wall seconds of one run, output discarded. With GNU time installed, the
# run's user+sys CPU seconds and minor page faults are appended to $work/NAME.cpu: they do not
# depend on how busy the machine is, the wall time does.
time_s() {
  local name=$1 start end
  shift
  start=$(date +%s.%N)
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "%U %S %R" -a -o "$work/$name.cpu" "$@" > /dev/null 2>> "$work/stderr"
  else
    "$@" > /dev/null 2>> "$work/stderr"
  fi
  end=$(date +%s.%N)
  awk "BEGIN { printf \"%.3f\", $end - $start }"
}
# cpu NAME: "CPU median X s (user+sys), minor faults median N" over NAME's runs.
cpu() {
  [ -s "$work/$1.cpu" ] || { echo "CPU not measured (no /usr/bin/time)"; return; }
  local c f
  c=$(grep -E '^[0-9]' "$work/$1.cpu" | awk '{ printf "%.2f ", $1 + $2 }' | median)
  f=$(grep -E '^[0-9]' "$work/$1.cpu" | awk '{ printf "%d ", $3 }' | median)
  echo "CPU median $c s (user+sys), minor page faults median $f"
}
median() { tr ' ' '\n' | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

iofit_t=() mawk_t=() jc_t=()
for run in $(seq 1 "$runs"); do
  # Interleaved, so a busy moment on a shared machine hits both.
  iofit_t+=("$(time_s iofit ./target/release/iofit profile "$big" -o "$work/req.toml")")
  mawk_t+=("$(time_s mawk mawk '$1 ~ /^sd/ {s+=$2} END {print s}' "$big")")
done
for run in $(seq 1 "$jc_runs"); do
  jc_t+=("$(time_s jc jc --iostat < "$big")")
done
iofit_m=$(echo "${iofit_t[@]}" | median)
mawk_m=$(echo "${mawk_t[@]}" | median)
jc_m=$(echo "${jc_t[@]}" | median)
mb=$(awk "BEGIN { printf \"%.1f\", $bytes / 1000000 }")
echo "file: $mb MB, $(grep -c '^avg-cpu' "$big") reports x 4 devices"
echo "iofit profile  runs ${iofit_t[*]} s  median $iofit_m s  $(awk "BEGIN { printf \"%.0f\", $bytes / $iofit_m / 1e6 }") MB/s"
echo "  iofit: $(cpu iofit)"
echo "mawk one-liner runs ${mawk_t[*]} s  median $mawk_m s  $(awk "BEGIN { printf \"%.0f\", $bytes / $mawk_m / 1e6 }") MB/s"
echo "  mawk: $(cpu mawk)"
if [ "$jc_runs" -gt 0 ]; then
  echo "jc --iostat    runs ${jc_t[*]} s  median $jc_m s  $(awk "BEGIN { printf \"%.1f\", $bytes / $jc_m / 1e6 }") MB/s"
fi
vs_jc="not run (JC_RUNS=0)"
[ "$jc_runs" -gt 0 ] && vs_jc="$(awk "BEGIN { printf \"%.1f\", $jc_m / $iofit_m }")x"
echo "ratio iofit vs mawk: $(awk "BEGIN { printf \"%.2f\", $mawk_m / $iofit_m }")x (goal >= 2x); vs jc: $vs_jc"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r); load $(cut -d' ' -f1-3 /proc/loadavg)"
