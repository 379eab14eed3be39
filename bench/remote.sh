#!/usr/bin/env bash
# Multi-host controller benchmarks.
#  1. Controller scale: 1,000 simulated workers in-process (no ssh): per-interval merge time,
#     end-of-run merge time, peak memory (crates/remote/examples/controller_scale.rs).
#  2. Network cost per host: a real 4-host run over ssh on namespace hosts
#     (examples/multihost/netns-hosts.sh), bytes on each host's veth per second of run, against
#     the peer: fio's own client/server mode (`fio --server` in each namespace, `fio --client`)
#     on the same hosts and job. Needs root, iproute2, openssh-server and fio.
# Usage: bench/remote.sh [WORKERS] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
WORKERS=${1:-1000}
SECONDS_RUN=${2:-10}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(uname -r)"
cargo build --release -q -p iofit
cargo build --release -q -p iofit-remote --example controller_scale
echo "== controller scale: $WORKERS simulated workers, $SECONDS_RUN intervals"
target/release/examples/controller_scale "$WORKERS" "$SECONDS_RUN"

DIR=$(mktemp -d /tmp/iofit-bench-remote.XXXXXX)
cleanup() {
    [ -f "$DIR/fio-pids" ] && while read -r pid; do kill "$pid" 2>/dev/null || true; done < "$DIR/fio-pids"
    examples/multihost/netns-hosts.sh down "$DIR" || true
    rm -rf "$DIR"
}
trap cleanup EXIT
examples/multihost/netns-hosts.sh up 4 "$DIR"
SET=$(cat "$DIR/set")
cat > "$DIR/job.fio" <<JOB
[global]
ioengine=psync
rw=randread
bs=4k
size=16m
runtime=$SECONDS_RUN
time_based=1
[rr]
filename=$DIR/data/\${HOST}/f
JOB

# Bytes through every host's veth (both directions), summed.
veth_bytes() {
    local total=0
    for i in 1 2 3 4; do
        local dev="iofit-$SET-$i"
        total=$(( total + $(cat /sys/class/net/$dev/statistics/rx_bytes) + $(cat /sys/class/net/$dev/statistics/tx_bytes) ))
    done
    echo "$total"
}

echo "== iofit run --hosts (4 namespace hosts over ssh), ${SECONDS_RUN}s"
before=$(veth_bytes)
start=$(date +%s%N)
target/release/iofit run -q --hosts "$DIR/hosts" --ssh-config "$DIR/ssh_config" \
    --remote-iofit "$PWD/target/release/iofit" --output-format json "$DIR/job.fio" > "$DIR/iofit.json"
end=$(date +%s%N)
after=$(veth_bytes)
iofit_bps=$(( (after - before) * 1000000000 / (end - start) / 4 ))
echo "iofit: $(( after - before )) bytes on the 4 veths in $(( (end - start) / 1000000 )) ms (setup included): $iofit_bps bytes per host per second"
python3 - "$DIR/iofit.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for h in doc["iofit"]["hosts"]:
    print(f"  {h['name']}: protocol bytes received {h['channel_bytes_received']}, clock offset {h['clock_offset_ms']:+.3f} ms")
PY

echo "== peer: fio --client against fio --server in each namespace, ${SECONDS_RUN}s"
if command -v fio >/dev/null; then
    : > "$DIR/fio-hosts"
    for i in 1 2 3 4; do
        address="10.231.$SET.$i"
        ip netns exec "iofit-$SET-$i" fio --server="ip:$address" --daemonize="$DIR/fio-$i.pid"
        echo "$address" >> "$DIR/fio-hosts"
    done
    sleep 0.5
    for i in 1 2 3 4; do cat "$DIR/fio-$i.pid" >> "$DIR/fio-pids"; done
    # fio's job file has no per-host substitution: each server gets its own --client block.
    args=()
    for i in 1 2 3 4; do
        address="10.231.$SET.$i"
        sed "s#\${HOST}#$address#" "$DIR/job.fio" > "$DIR/job-$i.fio"
        args+=(--client="$address" "$DIR/job-$i.fio")
    done
    before=$(veth_bytes)
    start=$(date +%s%N)
    fio --output-format=json "${args[@]}" > "$DIR/fio.json"
    end=$(date +%s%N)
    after=$(veth_bytes)
    fio_bps=$(( (after - before) * 1000000000 / (end - start) / 4 ))
    echo "fio: $(( after - before )) bytes on the 4 veths in $(( (end - start) / 1000000 )) ms: $fio_bps bytes per host per second"
    echo "ratio iofit/fio bytes per host per second: $(awk -v a=$iofit_bps -v b=$fio_bps 'BEGIN { printf "%.2f", a / b }')"
else
    echo "fio not installed: no peer measurement"
fi
