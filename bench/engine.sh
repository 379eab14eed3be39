#!/usr/bin/env bash
# Engine benchmark: iofit against fio on the same jobs, in one run, printing ratios.
#   (a) null engine, 1 job, 4k randread: IOPS                       goal >= 1.2x fio
#   (b) io_uring 4k randread QD32 direct, local-disk file: IOPS and
#       CPU time (user+sys of the whole process) per IO             goal >= 1.0x IOPS, <= 0.9x CPU/IO
#   (c) psync 4k randread on a page-cached file: IOPS               goal >= 1.0x
# Each case runs fio and iofit alternately ROUNDS times; the table shows the median.
# Usage: bench/engine.sh [DIR] (DIR on the local disk; default /var/tmp/iofit-bench)
# Env: RUNTIME (seconds per run, default 5), ROUNDS (default 3).
set -euo pipefail
cd "$(dirname "$0")/.."

DIR="${1:-/var/tmp/iofit-bench}"
RUNTIME="${RUNTIME:-5}"
ROUNDS="${ROUNDS:-3}"

if ! command -v fio >/dev/null; then
    echo "bench: installing fio"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null && apt-get install -y -qq fio >/dev/null
fi
cargo build --release -p iofit >/dev/null 2>&1 || cargo build --release -p iofit
IOFIT="$PWD/target/release/iofit"
mkdir -p "$DIR"

# The data files: created by iofit (so it owns them), read by both tools.
DISK_FILE="$DIR/disk.dat"
CACHED_FILE="$DIR/cached.dat"
"$IOFIT" run --quiet --name=layout --rw=read --bs=1m --size=1g --filename="$DISK_FILE" >/dev/null
"$IOFIT" run --quiet --name=layout --rw=read --bs=1m --size=256m --filename="$CACHED_FILE" >/dev/null

python3 - "$IOFIT" "$DIR" "$RUNTIME" "$ROUNDS" "$DISK_FILE" "$CACHED_FILE" <<'PY'
import json, os, resource, statistics, subprocess, sys, platform

iofit, bench_dir, runtime, rounds, disk_file, cached_file = sys.argv[1:]
rounds = int(rounds)

def run(tool, args, fio_only):
    """Runs one tool on one job; returns (IOPS, CPU seconds of the whole process, IOs)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    if tool == "fio":
        cmd = ["fio"] + args + fio_only + ["--output-format=json"]
    else:
        cmd = [iofit, "run", "--quiet", "--output-format=json"] + args
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    job = json.loads(out)["jobs"][0]
    return job["read"]["iops"], cpu, job["read"]["total_ios"]

def case(name, args, warm=None, fio_only=()):
    results = {"fio": [], "iofit": []}
    for _ in range(rounds):
        for tool in ("fio", "iofit"):
            if warm:
                subprocess.run(["cat", warm], stdout=subprocess.DEVNULL, check=True)
            results[tool].append(run(tool, args, list(fio_only)))
    med = {}
    for tool, rows in results.items():
        iops = statistics.median(r[0] for r in rows)
        cpu_per_io_ns = statistics.median(r[1] / r[2] * 1e9 for r in rows)
        med[tool] = (iops, cpu_per_io_ns)
    return med

common = ["--name=bench", "--rw=randread", "--bs=4k", f"--runtime={runtime}", "--time_based"]
cases = [
    ("(a) null, 1 job, 4k", common + ["--ioengine=null", "--size=1g"], None, []),
    ("(b) io_uring QD32 direct", common + ["--ioengine=io_uring", "--iodepth=32", "--direct=1",
                                           f"--filename={disk_file}", "--size=1g"], None, []),
    # fio drops the file's pages from the cache before a job (invalidate=1 by default);
    # invalidate=0 keeps them, so both tools read the same page-cached file.
    ("(c) psync page-cached", common + ["--ioengine=psync", f"--filename={cached_file}",
                                        "--size=256m"], cached_file, ["--invalidate=0"]),
]
print(f"machine: {platform.node()} {os.cpu_count()} CPUs, {platform.platform()}")
print(f"fio: {subprocess.run(['fio', '--version'], capture_output=True, text=True).stdout.strip()}; "
      f"runtime {runtime}s x {rounds} rounds per tool, median shown; dir {bench_dir}")
print()
print(f"| case | fio IOPS | iofit IOPS | IOPS ratio | fio CPU ns/IO | iofit CPU ns/IO | CPU/IO ratio |")
print(f"|---|---:|---:|---:|---:|---:|---:|")
for name, args, warm, fio_only in cases:
    m = case(name, args, warm=warm, fio_only=fio_only)
    (fi, fc), (ii, ic) = m["fio"], m["iofit"]
    print(f"| {name} | {fi:,.0f} | {ii:,.0f} | {ii/fi:.2f}x | {fc:,.0f} | {ic:,.0f} | {ic/fc:.2f}x |")
PY
