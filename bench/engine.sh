#!/usr/bin/env bash
# Engine benchmark: iofit against fio on the same jobs, in one run, printing ratios.
#   (a) null engine, 1 job, 4k randread: IOPS                       goal >= 1.2x fio
#   (b) io_uring 4k randread QD32 direct, local-disk file: IOPS and
#       CPU time (user+sys of the whole process) per IO             goal >= 1.0x IOPS, <= 0.9x CPU/IO
#   (c) psync 4k randread on a page-cached file: IOPS               goal >= 1.0x
#   (d) io_uring 4k randread QD32 direct on a RAM-backed file (tmpfs,
#       which takes O_DIRECT): the device is not the limit, the loop is  goal >= 1.1x IOPS
#   (e) as (d), fio with force_async=1: like for like, since iofit flags IOs IOSQE_ASYNC
#       itself on a file with no non-blocking path (tmpfs), and fio does only when told
#   (z) null engine, 4k randread, random_distribution=zipf:1.2: IOPS goal >= 1.2x fio
#   (v) write then verify (verify=crc32c and md5; bs 4k and 128k; psync on a page-cached
#       256 MiB file): bytes written and read back per second of wall time  goal >= 1.0x
#   (k) sequential write of compressible data (buffer_compress_percentage=50, refill_buffers,
#       bs 128k, page-cached file): write MB/s                              goal >= 1.0x
# Then Little's law for both tools: IOPS x mean total latency / iodepth at QD 1, 4, 32, 128
# on the RAM-backed file and the disk file (1.00 = the latencies account for every IO in
# flight; below 1 = latencies stamped short).
# Each case runs fio and iofit alternately ROUNDS times; ratios are per round (adjacent runs,
# because a shared VM disk drifts), the table shows their median and each of them.
# Usage: bench/engine.sh [DIR] (DIR on the local disk; default /var/tmp/iofit-bench)
# Env: RUNTIME (seconds per run, default 5), ROUNDS (default 5), RAM_DIR (a tmpfs directory,
# default /dev/shm/iofit-bench), LITTLE_RUNTIME (seconds per Little's law run, default 3; 0
# skips that table), CASES (letters of the cases to run, default abcdezvk).
set -euo pipefail
cd "$(dirname "$0")/.."

DIR="${1:-/var/tmp/iofit-bench}"
RUNTIME="${RUNTIME:-5}"
ROUNDS="${ROUNDS:-5}"
RAM_DIR="${RAM_DIR:-/dev/shm/iofit-bench}"
LITTLE_RUNTIME="${LITTLE_RUNTIME:-3}"
CASES="${CASES:-abcdezvk}"

if ! command -v fio >/dev/null; then
    echo "bench: installing fio"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null && apt-get install -y -qq fio >/dev/null
fi
cargo build --release -p iofit >/dev/null 2>&1 || cargo build --release -p iofit
IOFIT="$PWD/target/release/iofit"
mkdir -p "$DIR" "$RAM_DIR"

# The data files: created by iofit (so it owns them), read by both tools.
DISK_FILE="$DIR/disk.dat"
CACHED_FILE="$DIR/cached.dat"
RAM_FILE="$RAM_DIR/ram.dat"
# Only the files the chosen cases (and the Little's law table) read are laid out.
if [[ "$CASES" == *b* ]] || [[ "$LITTLE_RUNTIME" != 0 ]]; then
    "$IOFIT" run --quiet --name=layout --rw=read --bs=1m --size=1g --filename="$DISK_FILE" >/dev/null
fi
if [[ "$CASES" == *[cvk]* ]]; then
    "$IOFIT" run --quiet --name=layout --rw=read --bs=1m --size=256m --filename="$CACHED_FILE" >/dev/null
fi
if [[ "$CASES" == *[de]* ]] || [[ "$LITTLE_RUNTIME" != 0 ]]; then
    "$IOFIT" run --quiet --name=layout --rw=read --bs=1m --size=1g --filename="$RAM_FILE" >/dev/null
fi

python3 - "$IOFIT" "$DIR" "$RUNTIME" "$ROUNDS" "$DISK_FILE" "$CACHED_FILE" "$RAM_FILE" "$LITTLE_RUNTIME" "$CASES" <<'PY'
import json, os, resource, statistics, subprocess, sys, platform

iofit, bench_dir, runtime, rounds, disk_file, cached_file, ram_file, little_runtime, wanted = sys.argv[1:]
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
    """Alternates fio and iofit ROUNDS times. The disk of a shared VM drifts by 2x within
    minutes, so ratios are taken per round (adjacent runs) and the median of those is shown."""
    rows = {"fio": [], "iofit": []}
    for _ in range(rounds):
        for tool in ("fio", "iofit"):
            if warm:
                subprocess.run(["cat", warm], stdout=subprocess.DEVNULL, check=True)
            rows[tool].append(run(tool, args, list(fio_only)))
    cpu = lambda r: r[1] / r[2] * 1e9
    return {
        "fio_iops": statistics.median(r[0] for r in rows["fio"]),
        "iofit_iops": statistics.median(r[0] for r in rows["iofit"]),
        "fio_cpu": statistics.median(cpu(r) for r in rows["fio"]),
        "iofit_cpu": statistics.median(cpu(r) for r in rows["iofit"]),
        "iops_ratio": statistics.median(i[0] / f[0] for f, i in zip(rows["fio"], rows["iofit"])),
        "cpu_ratio": statistics.median(cpu(i) / cpu(f) for f, i in zip(rows["fio"], rows["iofit"])),
        "iops_ratios": [i[0] / f[0] for f, i in zip(rows["fio"], rows["iofit"])],
    }

common = ["--name=bench", "--rw=randread", "--bs=4k", f"--runtime={runtime}", "--time_based"]
cases = [
    ("(a) null, 1 job, 4k", common + ["--ioengine=null", "--size=1g"], None, []),
    ("(b) io_uring QD32 direct", common + ["--ioengine=io_uring", "--iodepth=32", "--direct=1",
                                           f"--filename={disk_file}", "--size=1g"], None, []),
    # Both tools drop the file's pages from the cache before a job (invalidate=1 by default);
    # invalidate=0 keeps them, so both read the same page-cached file.
    ("(c) psync page-cached", common + ["--ioengine=psync", f"--filename={cached_file}",
                                        "--size=256m", "--invalidate=0"], cached_file, []),
    ("(d) io_uring QD32 direct, tmpfs", common + ["--ioengine=io_uring", "--iodepth=32", "--direct=1",
                                                  f"--filename={ram_file}", "--size=1g"], None, []),
    ("(e) as (d), fio force_async=1", common + ["--ioengine=io_uring", "--iodepth=32", "--direct=1",
                                                f"--filename={ram_file}", "--size=1g"], None,
     ["--force_async=1"]),
    # Non-uniform offsets: the per-IO cost of the zipf draw (one pow() per IO in both tools).
    ("(z) null, zipf:1.2", common + ["--ioengine=null", "--size=1g",
                                      "--random_distribution=zipf:1.2", "--norandommap"], None, []),
]
cases = [c for c in cases if c[0][1] in wanted]
print(f"machine: {platform.node()} {os.cpu_count()} CPUs, {platform.platform()}")
print(f"fio: {subprocess.run(['fio', '--version'], capture_output=True, text=True).stdout.strip()}; "
      f"runtime {runtime}s x {rounds} rounds per tool, median shown; dir {bench_dir}")
print()
if cases:
    print("| case | fio IOPS | iofit IOPS | IOPS ratio (median of rounds) | per-round IOPS ratios | fio CPU ns/IO | iofit CPU ns/IO | CPU/IO ratio |")
    print("|---|---:|---:|---:|---|---:|---:|---:|")
for name, args, warm, fio_only in cases:
    m = case(name, args, warm=warm, fio_only=fio_only)
    rounds_text = " ".join(f"{r:.2f}" for r in m["iops_ratios"])
    print(f"| {name} | {m['fio_iops']:,.0f} | {m['iofit_iops']:,.0f} | {m['iops_ratio']:.2f}x | {rounds_text} "
          f"| {m['fio_cpu']:,.0f} | {m['iofit_cpu']:,.0f} | {m['cpu_ratio']:.2f}x |")

def little(tool, qd, path):
    """IOPS, mean total latency (ns), and IOPS x latency / iodepth of one run."""
    args = ["--name=little", "--rw=randread", "--bs=4k", f"--runtime={little_runtime}", "--time_based",
            "--ioengine=io_uring", f"--iodepth={qd}", "--direct=1", f"--filename={path}", "--size=1g"]
    if tool == "fio":
        cmd = ["fio"] + args + ["--output-format=json"]
    else:
        cmd = [iofit, "run", "--quiet", "--output-format=json"] + args
    read = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)["jobs"][0]["read"]
    return read["iops"], read["lat_ns"]["mean"], read["iops"] * read["lat_ns"]["mean"] / 1e9 / qd

def wall(tool, args, fio_only=("--invalidate=0",)):
    """Seconds of wall time of one whole run (start-up, writes, verify), and its JSON job."""
    import time
    if tool == "fio":
        # invalidate=0: fio keeps the file's pages (iofit never drops them), so both write
        # into and verify from the page cache; fio fsyncs before verifying, and so does iofit.
        cmd = ["fio"] + args + list(fio_only) + ["--output-format=json"]
    else:
        cmd = [iofit, "run", "--quiet", "--output-format=json"] + args
    start = time.monotonic()
    out = subprocess.run(cmd, capture_output=True, text=True)
    elapsed = time.monotonic() - start
    if out.returncode != 0:
        sys.exit(f"{tool} failed: {' '.join(cmd)}\n{out.stderr}")
    return elapsed, json.loads(out.stdout)["jobs"][0]

data_cases = []
if "v" in wanted:
    for mode in ("crc32c", "md5"):
        for bs in ("4k", "128k"):
            data_cases.append((f"(v) write+verify {mode} bs={bs}", ["--name=vbench", "--rw=write", f"--bs={bs}",
                "--ioengine=psync", f"--filename={cached_file}", "--size=256m", f"--verify={mode}"], 2))
if "k" in wanted:
    data_cases.append(("(k) write compress 50% bs=128k", ["--name=kbench", "--rw=write", "--bs=128k",
        "--ioengine=psync", f"--filename={cached_file}", "--size=256m",
        "--buffer_compress_percentage=50", "--refill_buffers"], 1))
if data_cases:
    print()
    print("Data cases: MiB moved (written, plus read back when verifying) per second of wall time, "
          "page-cached 256 MiB file, fio and iofit alternately")
    print()
    print("| case | fio MiB/s | iofit MiB/s | ratio (median of rounds) | per-round ratios | iofit units checked |")
    print("|---|---:|---:|---:|---|---:|")
    for name, args, passes in data_cases:
        ratios, fio_rates, iofit_rates, checked = [], [], [], 0
        for _ in range(rounds):
            f, _ = wall("fio", args)
            i, job = wall("iofit", args)
            checked = (job.get("iofit", {}).get("verify") or {}).get("units_checked", 0)
            fio_rates.append(256 * passes / f)
            iofit_rates.append(256 * passes / i)
            ratios.append(f / i)
        print(f"| {name} | {statistics.median(fio_rates):,.0f} | {statistics.median(iofit_rates):,.0f} "
              f"| {statistics.median(ratios):.2f}x | {' '.join(f'{r:.2f}' for r in ratios)} | {checked:,} |")

if float(little_runtime) > 0:
    print()
    print(f"Little's law: IOPS x mean total latency / iodepth, 4k randread io_uring direct, {little_runtime} s per run, fio then iofit")
    print()
    print("| file | iodepth | fio IOPS | fio mean lat us | fio L/QD | iofit IOPS | iofit mean lat us | iofit L/QD |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for label, path in (("tmpfs", ram_file), ("disk", disk_file)):
        for qd in (1, 4, 32, 128):
            f = little("fio", qd, path)
            i = little("iofit", qd, path)
            print(f"| {label} | {qd} | {f[0]:,.0f} | {f[1]/1e3:,.1f} | {f[2]:.3f} | {i[0]:,.0f} | {i[1]/1e3:,.1f} | {i[2]:.3f} |")
PY
