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
# One round in three is an attack instead (ATTACKS=0 turns them off), each on a fresh directory
# with user files planted where iofit must not write; after each, every planted byte and a loop
# device's bytes (when losetup works) must be as they were:
#   log-links   per-IO, averaged and histogram log names (P_bw.1.log, ...) planted as symlinks
#               to user files, and write_iolog naming the loop device;
#   inputs      --output naming the job's include file, write_iolog naming the job file (also
#               with --allow-overwrite), and --output naming the read_iolog;
#   anchor-link format=restart over an fsd anchor whose first subdirectory became a symlink to
#               a user directory holding files named as the tree's;
#   anchor-copy format=yes over a `cp -al` copy of an anchor holding a user file;
#   copy-over   a user file copied (cp: same inode, iofit's marker kept) over an iofit data
#               file, then a write job on it;
#   clones      numjobs=256 on the null engine, runtime=1: ends within runtime + 1 s (+ SLACK_MS),
#               and the group's IOPS x runtime = its total IOs (within 1 %).
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
trap 'stop_contender; [[ -n "${loopdev:-}" ]] && losetup -d "$loopdev" 2>/dev/null' EXIT
PRECIOUS_BYTES=$(( 3 * (1 << 20) + (4 << 20) ))

pick() { local a=("$@"); echo "${a[RANDOM % ${#a[@]}]}"; }
before_handler=0; bounded=0; temps_after_kill=0
self_outputs=0; runs=0; fails=0; outputs_valid=0; outputs_absent=0; refused=0; overruns=0; leftover=0
declare -A sent=([none]=0 [INT]=0 [TERM]=0 [KILL]=0)
declare -A codes=()
fail() { echo "FAIL run $runs: $*"; fails=$((fails + 1)); }

# --- Attacks (one round in three) ---
declare -A attacks=()
attack_changed=0; device_changed=0; attack_overruns=0; wrong_iops=0
loopdev=""; DEVICE_SUM=""
head -c $((1 << 20)) /dev/urandom >"$WORK/device.img"
if loopdev=$(losetup -f --show "$WORK/device.img" 2>/dev/null); then
    DEVICE_SUM=$(sha256sum <"$loopdev" | cut -c1-64)
else
    loopdev=""
fi
# A user's file: 8 KiB of random bytes, its checksum kept in the attack's ledger.
plant() { head -c 8192 /dev/urandom >"$1"; sha256sum "$1" >>"$A/ledger"; }
# Every planted file as it was; a changed or missing one counts its 8 KiB.
check_planted() {
    local bad
    bad=$(sha256sum -c --quiet "$A/ledger" 2>/dev/null | grep -c ': FAILED')
    if (( bad > 0 )); then
        attack_changed=$((attack_changed + bad * 8192)); fail "attack $1: $bad planted file(s) changed"
    fi
    if [[ -n "$loopdev" && "$(sha256sum <"$loopdev" | cut -c1-64)" != "$DEVICE_SUM" ]]; then
        device_changed=$((1 << 20)); fail "attack $1: the loop device changed"
        DEVICE_SUM=$(sha256sum <"$loopdev" | cut -c1-64)
    fi
}
# iofit in the attack's directory, bounded; an exit by the timeout is an overrun.
in_attack() {
    (cd "$A" && timeout -k 2 60 "$IOFIT" "$@") >"$A/stdout" 2>"$A/stderr"
    local code=$?
    if (( code == 124 || code == 137 )); then
        attack_overruns=$((attack_overruns + 1)); fail "attack ran past 60 s: $*"
    fi
    return $code
}
fs_parm() { # anchor format operation -> a vdbench file system parameter file
    printf 'fsd=fsd1,anchor=%s,depth=1,width=2,files=3,size=4k\nfwd=fwd1,fsd=fsd1,operation=%s,fileselect=sequential,xfersize=4k,threads=1\nrd=rd1,fwd=fwd1,fwdrate=max,format=%s,elapsed=1,interval=1\n' \
        "$1" "$3" "$2" >"$A/fs-$2-$3.vdb"
    echo "$A/fs-$2-$3.vdb"
}
lay_out() { in_attack run --quiet --name=w --rw=write --bs=4k --size=64k --ioengine=psync --filename="$A/data.bin"; }
attack_log_links() {
    lay_out || { fail "attack log-links: laying out data.bin failed: $(head -c 200 "$A/stderr")"; return; }
    mkdir "$A/users"
    local k
    for k in bw lat clat slat iops clat_hist; do
        plant "$A/users/$k"
        ln -s "users/$k" "$A/P_$k.1.log"
    done
    local device=""
    [[ -n "$loopdev" ]] && device="write_iolog=$loopdev"
    printf '[r]\nfilename=data.bin\nrw=read\nbs=4k\nsize=64k\nioengine=psync\nwrite_bw_log=P\nwrite_lat_log=P\nwrite_iops_log=P\nwrite_hist_log=P\nlog_hist_msec=10\n%s\n' \
        "$device" >"$A/job.fio"
    in_attack run --quiet job.fio
    printf '[r]\nfilename=data.bin\nrw=read\nbs=4k\nsize=64k\nioengine=psync\nwrite_bw_log=P\nwrite_lat_log=P\nlog_avg_msec=10\n' >"$A/avg.fio"
    in_attack run --quiet avg.fio
}
attack_inputs() {
    lay_out || { fail "attack inputs: laying out data.bin failed"; return; }
    printf 'bs=4k\n' >"$A/inc.fio"
    printf '[r]\nfilename=data.bin\nrw=read\nsize=64k\nioengine=psync\ninclude inc.fio\n' >"$A/job.fio"
    printf '[r]\nfilename=data.bin\nrw=read\nbs=4k\nsize=64k\nioengine=psync\nwrite_iolog=self.fio\n' >"$A/self.fio"
    printf '[r]\nfilename=data.bin\nrw=read\nbs=4k\nsize=64k\nioengine=psync\nwrite_iolog=trace.log\n' >"$A/trace.fio"
    in_attack run --quiet trace.fio || fail "attack inputs: writing an iolog failed: $(head -c 200 "$A/stderr")"
    printf '[r]\nread_iolog=trace.log\nioengine=psync\n' >"$A/replay.fio"
    sha256sum "$A/inc.fio" "$A/job.fio" "$A/self.fio" >>"$A/ledger"
    [[ -f "$A/trace.log" ]] && sha256sum "$A/trace.log" >>"$A/ledger"
    in_attack run --quiet --output=inc.fio job.fio && fail "attack inputs: --output naming an include was not refused"
    in_attack run --quiet self.fio && fail "attack inputs: write_iolog naming the job file was not refused"
    in_attack run --quiet --allow-overwrite self.fio && fail "attack inputs: write_iolog naming the job file was not refused with --allow-overwrite"
    in_attack run --quiet --output=trace.log replay.fio && fail "attack inputs: --output naming the read_iolog was not refused"
}
attack_anchor_link() {
    in_attack run --quiet "$(fs_parm "$A/anchor" yes read)" || { fail "attack anchor-link: format=yes failed: $(head -c 200 "$A/stderr")"; return; }
    [[ -d "$A/anchor/vdb.1_1.dir" ]] || { fail "attack anchor-link: no vdb.1_1.dir"; return; }
    rm -rf "$A/anchor/vdb.1_1.dir"
    mkdir "$A/users"
    local n
    for n in 1 2 3; do plant "$A/users/vdb_f000$n.file"; done
    ln -s "$A/users" "$A/anchor/vdb.1_1.dir"
    in_attack run --quiet "$(fs_parm "$A/anchor" restart delete)"
}
attack_anchor_copy() {
    in_attack run --quiet "$(fs_parm "$A/anchor" yes read)" || { fail "attack anchor-copy: format=yes failed"; return; }
    cp -al "$A/anchor" "$A/copy"
    plant "$A/copy/thesis.tex"
    in_attack run --quiet "$(fs_parm "$A/copy" yes read)" && fail "attack anchor-copy: a hard-link copy of an anchor was trusted"
}
attack_copy_over() {
    lay_out || { fail "attack copy-over: laying out data.bin failed"; return; }
    plant "$A/user.txt"
    cp "$A/user.txt" "$A/data.bin"
    sha256sum "$A/data.bin" >>"$A/ledger"
    in_attack run --quiet --name=w --rw=write --bs=4k --size=64k --ioengine=psync --filename="$A/data.bin" \
        && fail "attack copy-over: a write onto a user's copy was not refused"
}
attack_clones() {
    local start_ns end_ns took_ms
    start_ns=$(date +%s%N)
    in_attack run --quiet --name=clones --ioengine=null --rw=randread --bs=4k --size=1g --numjobs=256 \
        --runtime=1 --time_based --group_reporting --output-format=json --output=r.json
    local code=$?
    end_ns=$(date +%s%N); took_ms=$(( (end_ns - start_ns) / 1000000 ))
    if (( code != 0 )); then fail "attack clones: exit $code: $(head -c 200 "$A/stderr")"; return; fi
    if (( took_ms > 2000 + SLACK_MS )); then
        attack_overruns=$((attack_overruns + 1)); fail "attack clones: numjobs=256 runtime=1 took $took_ms ms"
    fi
    python3 - "$A/r.json" <<'PY' || { wrong_iops=$((wrong_iops + 1)); fail "attack clones: group IOPS x runtime != total IOs"; }
import json, sys
job = json.load(open(sys.argv[1]))["jobs"][0]["read"]
ios, implied = job["total_ios"], job["iops"] * job["runtime"] / 1000
sys.exit(0 if ios > 0 and abs(implied - ios) <= 0.01 * ios else 1)
PY
}
attack() {
    A=$(mktemp -d "$WORK/attack.XXXXXX"); : >"$A/ledger"
    attacks[$1]=$(( ${attacks[$1]:-0} + 1 ))
    "attack_${1//-/_}"
    check_planted "$1"
    rm -rf "$A"
}

end=$((SECONDS + DURATION))
while (( SECONDS < end )); do
    runs=$((runs + 1))
    if [[ "${ATTACKS:-1}" == 1 ]] && (( runs % 3 == 0 )); then
        attack "$(pick log-links inputs anchor-link anchor-copy copy-over clones)"
        continue
    fi
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
if [[ -n "$loopdev" ]]; then
    [[ "$(sha256sum <"$loopdev" | cut -c1-64)" != "$DEVICE_SUM" ]] && device_changed=$((1 << 20))
    losetup -d "$loopdev"
fi
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
attacks_text=""; for a in "${!attacks[@]}"; do attacks_text+="$a:${attacks[$a]} "; done
echo "      attacks {$attacks_text}: planted bytes changed $attack_changed, device bytes changed $device_changed,"
echo "      attack overruns $attack_overruns, wrong group IOPS $wrong_iops"
echo "      work dir $WORK"
# The run's files are deleted unless KEEP=1 or the work dir was given (the disk may be small); refusals.log is printed.
if [[ "${KEEP:-0}" != 1 ]]; then
    cut -d: -f1 "$WORK/refusals.log" 2>/dev/null | sort | uniq -c | sort -rn | head -20
    rm -rf "$MADE_DIR"
fi
(( fails == 0 ))
