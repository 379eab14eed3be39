#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 600) each, JOBS (default 4) at a time, from the
# binaries `cargo fuzz build -O` made, on the seeded corpus (./seed-corpus.sh first). Prints one
# line per target: runs executed, corpus size, crashes (files in artifacts/TARGET/).
# Usage: fuzz/run-all.sh [SECONDS] [JOBS]   (run it under `nice -n 10` on a shared machine)
set -uo pipefail
cd "$(dirname "$0")"
SECONDS_EACH="${1:-600}"
JOBS="${2:-4}"
BIN=target/x86_64-unknown-linux-gnu/release
mkdir -p logs
targets=$(sed -n 's/^name = "\(.*\)"$/\1/p' Cargo.toml | grep -v '^iofit-fuzz$')
run_one() {
    local t=$1
    mkdir -p "corpus/$t" "artifacts/$t"
    "$BIN/$t" "corpus/$t" -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -timeout=10 \
        -artifact_prefix="artifacts/$t/" -print_final_stats=1 >"logs/$t.log" 2>&1
    local runs
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "logs/$t.log" | tail -1)
    echo "$t: ${runs:-?} runs in ${SECONDS_EACH} s, corpus $(ls "corpus/$t" | wc -l), crashes $(ls "artifacts/$t" | wc -l)"
}
export -f run_one
export SECONDS_EACH BIN
printf '%s\n' $targets | xargs -P "$JOBS" -I{} bash -c 'run_one {}'
