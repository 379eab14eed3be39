#!/usr/bin/env bash
# Times `iofit plan` over the full current catalog (every VM size, every disk SKU, Premium SSD
# v2 / Ultra sizing and the NetApp option). Goal: < 50 ms per run.
# Uses hyperfine when installed (apt-get install hyperfine), else a loop timed with date +%s%N.
# Prints the mean wall time in ms and the machine it ran on.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS="${RUNS:-50}"
cargo build --release -p iofit >/dev/null 2>&1 || cargo build --release -p iofit
BIN=target/release/iofit
ARGS=(plan --iops 16000 --throughput-mb-s 300 --latency-ms 5 --capacity-gib 2000
      --read-pct 70 --io-size 8k --top 5)
REQ_ARGS=(plan --requirements crates/planner/src/example-requirements.toml --growth 1.3 --top 5)

"$BIN" "${ARGS[@]}" >/dev/null   # warm the page cache; also fails fast on an error

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "command: iofit ${ARGS[*]}"
if command -v hyperfine >/dev/null 2>&1; then
    hyperfine --warmup 3 --runs "$RUNS" -N "$BIN ${ARGS[*]}" "$BIN ${REQ_ARGS[*]}"
else
    for label in single requirements; do
        if [ "$label" = single ]; then set -- "${ARGS[@]}"; else set -- "${REQ_ARGS[@]}"; fi
        start=$(date +%s%N)
        for _ in $(seq "$RUNS"); do "$BIN" "$@" >/dev/null; done
        end=$(date +%s%N)
        echo "$label ($*): mean $(( (end - start) / RUNS / 1000 )) us over $RUNS runs" \
             "= $(awk -v ns=$(( (end - start) / RUNS )) 'BEGIN { printf "%.2f", ns / 1e6 }') ms"
    done
fi
