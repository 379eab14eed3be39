#!/usr/bin/env bash
# Soak: randomized valid `iofit run` jobs (engines psync/io_uring, depths, block sizes, sizes,
# rates, mixes, direct or buffered) for DURATION seconds, each hit at a random moment by
# nothing, SIGINT, SIGTERM or SIGKILL. After every run it checks:
#   - the run ended within its deadline: runtime + LAYOUT_S (layout) + 2 s drain after its start,
#     or, after SIGINT/SIGTERM, BOUND_MS (iofit's stop bound, 1 s) + SLACK_MS (the kernel's
#     tear-down of the process, and python's wake-up) after the signal; the time from every
#     signal to the exit is kept (python, monotonic clock), and the summary prints its median,
#     p99 and maximum;
#   - the output file is absent or one whole valid JSON document (never a partial result);
#   - the precious tree (files, symlinks and hard links planted among the targets, and a
#     foreign file jobs sometimes name) is unchanged, by checksum and link target;
#   - no iofit process is left;
#   - a run whose --output names its own target (one in six) is refused.
# Usage: bench/soak.sh DURATION_SECONDS [WORKDIR]   (env IOFIT=path/to/iofit; default debug build;
#        KEEP=1 keeps WORKDIR, otherwise it is deleted at the end after the summary;
#        CONTEND=1 runs a peer writer the whole time: dd rewriting a 1 GiB file in WORKDIR with
#        O_DIRECT 1 MiB writes, so every run meets a disk another process saturates)
# Prints one line per failure and a summary of counts at the end; exit 1 if any check failed.
set -uo pipefail
cd "$(dirname "$0")/.."

DURATION="${1:?usage: bench/soak.sh DURATION_SECONDS [WORKDIR]}"
# Only the directory made here is ever removed: a WORKDIR given as $2 is the user's and stays.
MADE_DIR=$(mktemp -d /var/tmp/iofit-soak.XXXXXX)
WORK="${2:-$MADE_DIR}"
BOUND_MS="${BOUND_MS:-1000}"
SLACK_MS="${SLACK_MS:-250}"
LAYOUT_S="${LAYOUT_S:-10}"
if [[ -z "${IOFIT:-}" ]]; then
    cargo build -q -p iofit || exit 1
    IOFIT="$PWD/target/debug/iofit"
fi
command -v python3 >/dev/null || { echo "soak: needs python3 to validate JSON"; exit 1; }

TARGETS="$WORK/targets"
PRECIOUS="$WORK/precious"
OUT="$WORK/out"
mkdir -p "$TARGETS" "$PRECIOUS" "$OUT"
# The precious tree: data iofit must never change.
for i in 1 2 3; do head -c $((1 << 20)) /dev/urandom >"$PRECIOUS/data$i.db"; done
ln -sf "$PRECIOUS/data1.db" "$TARGETS/link-to-data1"      # a symlink among the targets
ln -f "$PRECIOUS/data2.db" "$TARGETS/hard-data2"          # a hard link among the targets
head -c $((4 << 20)) /dev/urandom >"$TARGETS/foreign.dat" # a file iofit did not create
ln -sf "$PRECIOUS/data3.db" "$TARGETS/.own0.iofit"        # a planted sidecar link
snapshot() {
    (cd "$WORK" && find precious targets/link-to-data1 targets/hard-data2 targets/foreign.dat \
        targets/.own0.iofit -maxdepth 1 \( -type f -o -type l \) -print0 | sort -z |
        while IFS= read -r -d '' f; do
            if [[ -L "$f" ]]; then echo "link $f -> $(readlink "$f")"; else echo "file $f $(sha256sum <"$f" | cut -c1-64)"; fi
        done; sha256sum <targets/link-to-data1 | cut -c1-64)
}
BEFORE="$(snapshot)"
contender=""
if [[ "${CONTEND:-0}" == 1 ]]; then
    (while :; do
        dd if=/dev/zero of="$WORK/contend.bin" bs=1M count=1024 oflag=direct conv=notrunc status=none
    done) &
    contender=$!
fi
stop_contender() {
    [[ -z "$contender" ]] && return
    kill "$contender" 2>/dev/null; pkill -f "of=$WORK/contend.bin" 2>/dev/null
    wait "$contender" 2>/dev/null; rm -f "$WORK/contend.bin"; contender=""
}
trap stop_contender EXIT
PRECIOUS_BYTES=$(( 3 * (1 << 20) + (4 << 20) ))

pick() { local a=("$@"); echo "${a[RANDOM % ${#a[@]}]}"; }
before_handler=0; bounded=0; temps_after_kill=0
self_outputs=0; runs=0; fails=0; outputs_valid=0; outputs_absent=0; refused=0; overruns=0; leftover=0
declare -A sent=([none]=0 [INT]=0 [TERM]=0 [KILL]=0)
declare -A codes=()
fail() { echo "FAIL run $runs: $*"; fails=$((fails + 1)); }

end=$((SECONDS + DURATION))
while (( SECONDS < end )); do
    runs=$((runs + 1))
    engine=$(pick psync io_uring)
    depth=$(pick 1 4 16 32 128)
    bs=$(pick 4k 8k 64k 128k)
    size=$(pick 1m 4m 16m 32m)
    rw=$(pick read write randread randwrite randrw rw)
    runtime=$((1 + RANDOM % 4))
    target=$(pick own0 own1 own2 "own$runs" foreign.dat link-to-data1 hard-data2)
    args=(run --quiet --name="soak$runs" --rw="$rw" --bs="$bs" --size="$size"
          --ioengine="$engine" --iodepth="$depth" --filename="$TARGETS/$target"
          --runtime="$runtime" --output-format=json)
    # One run in six names its own target (a precious link, hard link or foreign file, or
    # iofit's own data file) as its --output: refused before any IO, the target left as it was.
    output="$OUT/r$runs.json"
    if (( RANDOM % 6 == 0 )); then
        output="$TARGETS/$target"
    fi
    args+=(--output="$output")
    (( RANDOM % 2 )) && args+=(--time_based)
    (( RANDOM % 3 == 0 )) && args+=(--direct=1)
    (( RANDOM % 4 == 0 )) && args+=(--rate_iops=$((200 + RANDOM % 2000)))
    [[ "$rw" == randrw || "$rw" == rw ]] && args+=(--rwmixread=$((RANDOM % 101)))
    signal=$(pick none none INT TERM KILL)
    delivered=none
    # One run, timed by python (monotonic clock, a wait with a timeout): bash's own polling
    # (a fork per look) was late by hundreds of ms on a loaded machine and counted that as
    # iofit's. Prints: delivered signal, exit code, ms from the signal to the exit, overrun.
    delay=$(awk -v r=$RANDOM -v t=$runtime 'BEGIN{printf "%.2f", r / 32768 * (t + 1)}')
    read -r delivered code stop_ms overran < <(python3 - "$signal" "$delay" \
        "$(( (runtime + LAYOUT_S + 2) * 1000 ))" "$(( BOUND_MS + SLACK_MS ))" "$WORK/stderr" \
        "$IOFIT" "${args[@]}" <<'PY'
import os, signal, subprocess, sys, time
sig, delay, run_ms, stop_ms, err = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
with open(err, "wb") as stderr:
    p = subprocess.Popen(sys.argv[6:], stdout=subprocess.DEVNULL, stderr=stderr)
    delivered, signalled, deadline = "none", None, time.monotonic() + run_ms / 1000
    if sig != "none":
        time.sleep(delay)
        if p.poll() is None:
            signalled = time.monotonic()
            p.send_signal(getattr(signal, "SIG" + sig))
            delivered = sig
            deadline = signalled + stop_ms / 1000
    overran = 0
    try:
        p.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        overran = 1
        # Where each thread is (state, kernel stack), for the failure's line and the log.
        with open(err + ".overrun", "w") as where:
            for tid in sorted(os.listdir(f"/proc/{p.pid}/task")):
                base = f"/proc/{p.pid}/task/{tid}"
                try:
                    stat = open(base + "/stat").read().split(") ", 1)[1].split()[0]
                    name = open(base + "/comm").read().strip()
                    stack = open(base + "/stack").read().replace("\n", " | ")
                except OSError:
                    continue
                where.write(f"{tid} {name} {stat} {stack}\n")
        # And where each thread is in iofit's own code (gdb, when the machine has it).
        try:
            bt = subprocess.run(["gdb", "-p", str(p.pid), "-batch", "-ex", "thread apply all bt 40"],
                                capture_output=True, text=True, timeout=60).stdout
            with open(err + ".overrun", "a") as where:
                where.write(bt)
        except (OSError, subprocess.TimeoutExpired):
            pass
        p.kill()
        p.wait()
    ended = time.monotonic()
    took = -1 if signalled is None or sig == "KILL" else round((ended - signalled) * 1000)
    code = p.returncode if p.returncode >= 0 else 128 - p.returncode
    print(delivered, code, took, overran)
PY
)
    # The timer may still be ending after it printed; its command line names the run.
    wait $! 2>/dev/null
    if [[ "$overran" == 1 ]]; then
        overruns=$((overruns + 1)); fail "still running past its deadline (signal $signal, $stop_ms ms after it): ${args[*]}"
        # Where it was: each thread's state and kernel stack (kept in overruns.log).
        { echo "run $runs: ${args[*]}"; cat "$WORK/stderr.overrun" 2>/dev/null; } >>"$WORK/overruns.log"
        head -n 12 "$WORK/stderr.overrun" 2>/dev/null | sed "s/^/      /" | cut -c1-300
        # Killed by this script: its temporary output is SIGKILL's, not iofit's.
        temps_after_kill=$((temps_after_kill + $(find "$OUT" "$TARGETS" -maxdepth 1 -name '*.iofit-tmp' | wc -l)))
        find "$OUT" "$TARGETS" -maxdepth 1 -name '*.iofit-tmp' -delete
    fi
    if [[ "$stop_ms" != -1 ]]; then
        echo "$stop_ms" >>"$WORK/stop_ms"
    fi
    sent[$delivered]=$((sent[$delivered] + 1))
    codes[$code]=$(( ${codes[$code]:-0} + 1 ))
    if [[ "$code" == 2 ]]; then
        refused=$((refused + 1))
        echo "$target $rw: $(head -c 200 "$WORK/stderr")" >>"$WORK/refusals.log"
    fi
    # A signal that found iofit before its handler (the moments between exec and the first line
    # of main): the default action ends it (143 for SIGTERM; 130 for SIGINT, like iofit's own
    # exit, told apart by an empty stderr and no output). Nothing may have been written.
    if [[ ( "$delivered" == TERM && "$code" == 143 ) || ( "$delivered" == INT && "$code" == 130 && ! -s "$WORK/stderr" && ! -e "$OUT/r$runs.json" ) ]]; then
        before_handler=$((before_handler + 1))
        [[ -e "$OUT/r$runs.json" ]] && fail "output written by a run the default action ended"
    fi
    # A stop the run could not finish within iofit's bound (a loaded machine): ended by it.
    grep -q "did not end within" "$WORK/stderr" && bounded=$((bounded + 1))
    # No temporary output may be left, except by SIGKILL (which nothing can catch).
    temps=$(find "$OUT" "$TARGETS" -maxdepth 1 -name '*.iofit-tmp' | wc -l)
    if (( temps > 0 )); then
        if [[ "$delivered" == KILL ]]; then
            temps_after_kill=$((temps_after_kill + temps))
            find "$OUT" "$TARGETS" -maxdepth 1 -name '*.iofit-tmp' -delete
        else
            fail "$temps temporary output file(s) left after signal $delivered"
        fi
    fi
    if [[ "$delivered" == none && "$code" != 0 && "$code" != 2 ]]; then
        fail "exit $code without a signal: ${args[*]}: $(head -c 300 "$WORK/stderr")"
    fi
    if [[ "$code" == 2 && "$target" != foreign.dat && "$target" != link-to-data1 && "$target" != hard-data2 ]] \
        && ! [[ "$rw" == *read* && "$rw" != *rw ]]; then
        grep -q "refusing\|does not exist" "$WORK/stderr" || fail "exit 2 on an own target: $(head -c 300 "$WORK/stderr")"
    fi
    [[ "$output" != "$OUT/r$runs.json" ]] && self_outputs=$((self_outputs + 1))
    # Refused before any IO, unless a signal ended the run before the check (130, or 143 before
    # the handler): the precious tree's check below says whether anything was written.
    if [[ "$output" != "$OUT/r$runs.json" && "$delivered" != KILL && "$code" != 2 \
          && ! ( "$delivered" != none && ( "$code" == 130 || "$code" == 143 ) ) ]]; then
        fail "--output naming the run's own target $output was not refused: exit $code"
    fi
    if [[ -e "$OUT/r$runs.json" ]]; then
        if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$OUT/r$runs.json" 2>/dev/null; then
            outputs_valid=$((outputs_valid + 1))
        else
            fail "output r$runs.json is not valid JSON"
        fi
    else
        outputs_absent=$((outputs_absent + 1))
    fi
    if pgrep -f "name=soak$runs " >/dev/null || pgrep -x iofit -P $$ >/dev/null; then
        leftover=$((leftover + 1)); fail "a process was left behind"
    fi
    if [[ "$(snapshot)" != "$BEFORE" ]]; then
        fail "the precious tree changed after: ${args[*]}"; BEFORE="$(snapshot)"
    fi
    # Keep the targets directory small: drop per-run files now and then.
    if (( runs % 10 == 0 )); then
        find "$TARGETS" -maxdepth 1 \( -name 'own*' -o -name '.own*.iofit' \) \
            ! -name own0 ! -name own1 ! -name own2 ! -name .own0.iofit -delete
        rm -f "$OUT"/r*.json
    fi
done
stop_contender
changed_bytes=0
[[ "$(snapshot)" != "$BEFORE" ]] && changed_bytes=$PRECIOUS_BYTES
codes_text=""; for c in "${!codes[@]}"; do codes_text+="$c:${codes[$c]} "; done
echo "soak: ${DURATION}s, runs $runs, signals none/INT/TERM/KILL ${sent[none]}/${sent[INT]}/${sent[TERM]}/${sent[KILL]} (delivered while running),"
echo "      exit codes {$codes_text}, refused (exit 2; reasons in refusals.log) $refused, outputs valid $outputs_valid, absent $outputs_absent,"
echo "      --output naming the run's own target: $self_outputs (each must be refused),"
echo "      overruns $overruns, processes left $leftover, precious bytes changed $changed_bytes (of $PRECIOUS_BYTES), failures $fails"
echo "      ended by the default action before iofit's handler $before_handler, ended by the stop bound $bounded, temporary files left by SIGKILL $temps_after_kill"
if [[ -s "$WORK/stop_ms" ]]; then
    sort -n "$WORK/stop_ms" | awk -v bound="$BOUND_MS" '{ v[NR] = $1; if ($1 > bound) over++ }
        END { p = int(NR * 0.99 + 0.999); if (p < 1) p = 1;
              printf "      SIGINT/SIGTERM to exit (ms, as this script sees it): %d stops, median %d, p99 %d, max %d, over %d ms: %d\n",
                     NR, v[int((NR + 1) / 2)], v[p], v[NR], bound, over + 0 }'
fi
echo "      work dir $WORK"
# The run's files are deleted unless KEEP=1 or the work dir was given (the disk may be small); refusals.log is printed.
if [[ "${KEEP:-0}" != 1 ]]; then
    cut -d: -f1 "$WORK/refusals.log" 2>/dev/null | sort | uniq -c | sort -rn | head -20
    rm -rf "$MADE_DIR"
fi
(( fails == 0 ))
