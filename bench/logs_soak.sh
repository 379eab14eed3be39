#!/usr/bin/env bash
# Logs soak: the issue's worst case, a 1 ms histogram log (write_hist_log, log_hist_msec=1) at
# numjobs=64 on the null engine, for RUNTIME seconds (default 600: ten minutes). It checks:
#   - the run ended within runtime + END_SLACK_S (default 1 s, plus START_S for starting 64
#     clones) and exited 0;
#   - its peak resident memory (VmHWM, read every 5 s while it runs) stayed under RSS_MAX_MIB
#     (default 256) and did not grow after the first minute by more than GROWTH_MAX_MIB
#     (default 32): bounded, not merely small for a short run;
#   - the logs grew while the run went (their temporary files, sampled every 5 s);
#   - every clone's log is whole, in fio's 3 + 1856 columns, times not descending, and holds
#     exactly the IOs the JSON reports for that clone.
# With STOP_AT=N it sends SIGINT N seconds in instead, and checks exit 130, the end within 1 s
# of the signal (plus SLACK_MS), and the same whole logs up to the stop.
# Usage: bench/logs_soak.sh [RUNTIME_SECONDS] [WORKDIR]   (env IOFIT=path/to/iofit, default the
#        release build; KEEP=1 keeps the directory made here, which is otherwise deleted at the
#        end; a WORKDIR given as $2 is the user's and is never deleted)
# Disk: about 8 MiB/s of logs (4.8 GB for ten minutes). Prints a summary; exit 1 on a failure.
set -uo pipefail
cd "$(dirname "$0")/.."

RUNTIME="${1:-600}"
MADE_DIR=$(mktemp -d /var/tmp/iofit-logs-soak.XXXXXX)
WORK="${2:-$MADE_DIR}"
RSS_MAX_MIB="${RSS_MAX_MIB:-256}"
GROWTH_MAX_MIB="${GROWTH_MAX_MIB:-32}"
END_SLACK_S="${END_SLACK_S:-1}"
START_S="${START_S:-1}"
SLACK_MS="${SLACK_MS:-700}"
STOP_AT="${STOP_AT:-}"
if [[ -z "${IOFIT:-}" ]]; then
    cargo build -q --release -p iofit || exit 1
    IOFIT="$PWD/target/release/iofit"
fi
command -v python3 >/dev/null || { echo "logs_soak: needs python3"; exit 1; }
mkdir -p "$WORK"
cd "$WORK" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Times in ms from bash's own clock: a python start per sample is slow on a loaded machine.
now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }
started=$(now_ms)
"$IOFIT" run --output-format=json --output=out.json --name=h --ioengine=null --size=64m \
    --bs=4k --rw=randread --time_based --runtime="$RUNTIME" --numjobs=64 \
    --write_hist_log=h --log_hist_msec=1 2>stderr.txt &
pid=$!
samples=()
hwm_first_minute=0
hwm=0
last_bytes=0
grew=0
signalled=""
# Polls every 0.2 s so that the end is seen within 0.2 s; samples every 5 s.
tick=0
while kill -0 "$pid" 2>/dev/null; do
    sleep 0.2
    tick=$((tick + 1))
    (( tick % 25 == 0 )) || continue
    elapsed=$((($(now_ms) - started) / 1000))
    kib=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
    [[ -n "$kib" ]] || kib=0
    (( kib > hwm )) && hwm=$kib
    (( elapsed <= 60 && kib > hwm_first_minute )) && hwm_first_minute=$kib
    bytes=$(find . -maxdepth 1 -name '*h_clat_hist*' -printf '%s\n' | awk '{s += $1} END {printf "%.0f\n", s}')
    (( bytes > last_bytes )) && grew=$((grew + 1))
    last_bytes=$bytes
    samples+=("${elapsed}s hwm=$((kib / 1024))MiB logs=$((bytes >> 20))MiB")
    if [[ -n "$STOP_AT" && -z "$signalled" ]] && (( elapsed >= STOP_AT )); then
        kill -INT "$pid"
        signalled=$(now_ms)
        break
    fi
done
wait "$pid"
code=$?
ended=$(now_ms)
took_ms=$((ended - started))
took="$((took_ms / 1000)).$(printf '%03d' $((took_ms % 1000)))"
printf '%s\n' "${samples[@]}" | tail -5

if [[ -n "$signalled" ]]; then
    [[ $code -eq 130 ]] || fail "exit $code after SIGINT, not 130"
    after_ms=$((ended - signalled))
    (( after_ms <= 1000 + SLACK_MS )) || fail "ended $after_ms ms after SIGINT"
    echo "stopped ${after_ms} ms after SIGINT"
else
    [[ $code -eq 0 ]] || fail "exit $code"
    (( took_ms <= (RUNTIME + END_SLACK_S + START_S) * 1000 )) ||
        fail "took ${took} s for a ${RUNTIME} s run"
fi
(( hwm / 1024 <= RSS_MAX_MIB )) || fail "peak RSS $((hwm / 1024)) MiB > ${RSS_MAX_MIB} MiB"
if (( RUNTIME > 120 )) && [[ -z "$STOP_AT" ]]; then
    (( (hwm - hwm_first_minute) / 1024 <= GROWTH_MAX_MIB )) ||
        fail "peak RSS grew $(((hwm - hwm_first_minute) / 1024)) MiB after the first minute"
fi
(( grew >= 2 )) || fail "the logs did not grow while the run went"
grep -q "h (64 clone(s)): 1 ms -> " stderr.txt || fail "no note on the windows on stderr"

python3 - <<'EOF' || fail "the logs do not hold the JSON's IOs (see above)"
import json, sys
jobs = json.load(open("out.json"))["jobs"]
bad = 0
for n, job in enumerate(jobs, 1):
    want = job["read"]["total_ios"]
    got, last, lines = 0, 0, 0
    with open(f"h_clat_hist.{n}.log") as f:
        for line in f:
            if not line.endswith("\n"):
                print(f"clone {n}: a line is cut"); bad += 1; break
            fields = line.split(", ")
            if len(fields) != 1859:
                print(f"clone {n}: {len(fields)} columns"); bad += 1; break
            t = int(fields[0])
            if t < last:
                print(f"clone {n}: time {t} after {last}"); bad += 1; break
            last = t
            got += sum(int(x) for x in fields[3:])
            lines += 1
    if got != want:
        print(f"clone {n}: the log holds {got} IOs, the JSON {want}"); bad += 1
print(f"{len(jobs)} clones, {lines} lines in the last log, every IO logged: {bad == 0}")
sys.exit(1 if bad else 0)
EOF
leftovers=$(find . -maxdepth 1 -name '*.iofit-tmp' | wc -l)
(( leftovers == 0 )) || fail "$leftovers temporary files left"

echo "logs_soak: ${RUNTIME} s run took ${took} s, peak RSS $((hwm / 1024)) MiB (first minute" \
    "$((hwm_first_minute / 1024)) MiB), logs $((last_bytes >> 20)) MiB, failures: $failures"
cd / || exit 1
if [[ -z "${KEEP:-}" && "$WORK" == "$MADE_DIR" ]]; then
    rm -rf "$MADE_DIR"
elif [[ "$WORK" != "$MADE_DIR" ]]; then
    rmdir -- "$MADE_DIR"
fi
(( failures == 0 ))
