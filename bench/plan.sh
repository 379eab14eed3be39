#!/usr/bin/env bash
# Times `iofit plan` over the full current catalog (every VM size, every disk SKU, Premium SSD
# v2 / Ultra sizing and the NetApp option) as the number of volumes grows: 1, 2, 8, 16, 64 and
# 200 volumes, from requirement TOMLs this script writes. Goals: 16 volumes < 50 ms, 64 volumes
# < 500 ms, memory flat (max RSS from /usr/bin/time -v). The search is exact (branch and
# bound, no cap on tries): 200 volumes need more data disks than any VM size attaches (64 at
# most), so that case times the proof that no design exists, which must stay as quick.
# Uses hyperfine when installed (apt-get install hyperfine), else a loop timed with date +%s%N.
# IOFIT_BIN=path runs that binary instead of building a release one.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS="${RUNS:-20}"
COUNTS="${COUNTS:-1 2 8 16 64 200}"
# IOFIT_BIN=target/debug/iofit RUNS=1 checks that the script and the plans run (correctness
# only: times of a debug build say nothing about the goals) without a release build.
BIN="${IOFIT_BIN:-target/release/iofit}"
if [ -z "${IOFIT_BIN:-}" ]; then
    cargo build --release -p iofit >/dev/null 2>&1 || cargo build --release -p iofit
fi
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT

# A SQL Server / Oracle style host: data files, logs, tempdb, backup, archive, in a repeating
# pattern of five volume shapes (IOPS, MB/s, read %, IO size, capacity differ).
write_requirements() {
    local count=$1 file=$2 i
    {
        echo "source = \"bench/plan.sh: $count volumes\""
        echo "growth_factor = 1.0"
        for ((i = 0; i < count; i++)); do
            case $((i % 5)) in
                0) role=data; iops=3000; mb=0; read=70; size=8192; random=100; gib=512 ;;
                1) role=log; iops=800; mb=0; read=0; size=65536; random=0; gib=128 ;;
                2) role=temp; iops=1500; mb=0; read=50; size=8192; random=100; gib=256 ;;
                3) role=other; iops=0; mb=120; read=20; size=262144; random=0; gib=1024 ;;
                4) role=data; iops=500; mb=0; read=90; size=16384; random=100; gib=64 ;;
            esac
            printf '\n[[volumes]]\nlabel = "vol%02d"\nrole = "%s"\n[volumes.sizing]\n' "$i" "$role"
            printf 'iops = %s.0\nthroughput_mb_s = %s.0\nio_size_bytes = %s\n' "$iops" "$mb" "$size"
            printf 'read_pct = %s.0\nrandom_pct = %s.0\ncapacity_gib = %s.0\n' "$read" "$random" "$gib"
        done
    } >"$file"
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
commands=()
for count in $COUNTS; do
    file="$DIR/volumes-$count.toml"
    write_requirements "$count" "$file"
    # 64 volumes need 64 data disks at least: only a strict fit (no slot headroom) can carry
    # them on the largest VMs, so the 64-volume run plans with --min-headroom-pct 0.
    extra=""
    if [ "$count" -gt 32 ]; then extra="--min-headroom-pct 0"; fi
    cmd="$BIN plan --requirements $file --top 5 $extra"
    # shellcheck disable=SC2086
    designs=$($cmd | grep -c '^#[0-9]' || true)  # plan exits 1 when no design exists
    # shellcheck disable=SC2086
    rss_kib=$( { /usr/bin/time -v $cmd >/dev/null || true; } 2>&1 | awk -F': ' '/Maximum resident/ { print $2 }')
    echo "$count volumes: $designs designs shown, max RSS ${rss_kib} KiB  ($cmd)"
    commands+=("$cmd")
done

if command -v hyperfine >/dev/null 2>&1; then
    # -i: a plan that proves no design exists exits 1, and that is what is timed.
    hyperfine --warmup 2 --runs "$RUNS" -N -i "${commands[@]}"
else
    for cmd in "${commands[@]}"; do
        start=$(date +%s%N)
        # shellcheck disable=SC2086
        for _ in $(seq "$RUNS"); do $cmd >/dev/null || true; done
        end=$(date +%s%N)
        echo "$cmd: mean $(awk -v ns=$(( (end - start) / RUNS )) 'BEGIN { printf "%.2f", ns / 1e6 }') ms over $RUNS runs"
    done
fi
