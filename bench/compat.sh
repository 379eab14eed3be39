#!/usr/bin/env bash
# fio job-file compatibility: for every file in DIR, fio's --parse-only verdict, iofit's, and
# for the files both accept whose jobs use only regular files and engines iofit runs, a short
# real run with size, runtime and directory overridden. Prints one line per file, the counts,
# and the reason for every refusal.
#   Goal: iofit accepts >= 95% of what fio --parse-only accepts, apart from jobs that need
#   hardware or an engine iofit does not have (those say exactly why); every accepted job on
#   regular files runs.
# Usage: bench/compat.sh DIR [DIR...]   (job files are read, never written; runs use a temp dir)
# Env: IOFIT (binary; default: builds target/debug/iofit), KEEP=1 keeps the run directory.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v fio >/dev/null; then
    echo "compat: installing fio"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null && apt-get install -y -qq fio >/dev/null
fi
if [ -z "${IOFIT:-}" ]; then
    cargo build -q -p iofit
    IOFIT="$PWD/target/debug/iofit"
fi

python3 - "$IOFIT" "$@" <<'PY'
import collections, os, re, shutil, subprocess, sys, tempfile

iofit, dirs = sys.argv[1], sys.argv[2:]
if not dirs:
    sys.exit("usage: bench/compat.sh DIR [DIR...]")

ENGINE_OR_HARDWARE = ("iofit cannot run this engine", "zoned block devices", "NUMA placement",
                      "passthrough features", "cgroup placement")

def first_error(text):
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("note:"):
            return line
    return ""

def sh(args, timeout, cwd=None):
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=timeout, cwd=cwd)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, "", "timed out after %ss" % timeout

rows = []
for d in dirs:
    for name in sorted(os.listdir(d)):
        path = os.path.abspath(os.path.join(d, name))
        if not os.path.isfile(path) or name.endswith((".png", ".md")):
            continue
        fio_rc, _, fio_err = sh(["fio", "--parse-only", path], 20)
        rc, out, err = sh([iofit, "run", "--parse-only", path], 20)
        row = {"file": name, "fio": fio_rc == 0, "iofit": rc == 0, "why": "", "run": "-"}
        if rc != 0:
            row["why"] = re.sub(r"^iofit: error: ", "", first_error(err))
        elif fio_rc == 0:
            targets = re.findall(r" on (\S+)$", out, re.M)
            if any(t.startswith("/dev/") for t in targets):
                row["run"] = "skipped: block device target"
            else:
                work = tempfile.mkdtemp(prefix="iofit-compat-")
                args = [iofit, "run", "--quiet", path, "--runtime=1", "--size=4m",
                        "--ramp_time=0", "--startdelay=0", "--directory=" + work]
                if any(not t.endswith("/") for t in targets):
                    args.append("--filename=" + os.path.join(work, "data"))
                # In the run directory: log files (write_*_log prefixes) land there, not here.
                run_rc, _, run_err = sh(args, 300, cwd=work)
                row["run"] = "ok" if run_rc == 0 else "FAILED: " + first_error(run_err)[:160]
                if run_rc != 0:
                    # Does fio run it with the same overrides? (Then iofit is the odd one out.)
                    fio_args = ["fio", "--output=/dev/null"] + args[3:]
                    fio_run_rc, _, _ = sh(fio_args, 300, cwd=work)
                    row["fio_run_fails"] = fio_run_rc != 0
                    if fio_run_rc != 0:
                        row["run"] = "FAILED as fio does: " + first_error(run_err)[:140]
                if not os.environ.get("KEEP"):
                    shutil.rmtree(work, ignore_errors=True)
        rows.append(row)

for r in rows:
    print("%-55s fio=%-3s iofit=%-3s run=%s %s" % (
        r["file"][:55], "ok" if r["fio"] else "no", "ok" if r["iofit"] else "no", r["run"],
        ("| " + r["why"][:200]) if r["why"] and r["fio"] else ""))

fio_ok = [r for r in rows if r["fio"]]
both = [r for r in fio_ok if r["iofit"]]
hw = [r for r in fio_ok if not r["iofit"] and any(k in r["why"] for k in ENGINE_OR_HARDWARE)]
opt = [r for r in fio_ok if not r["iofit"] and r not in hw]
runs = [r for r in both if r["run"] != "-" and not r["run"].startswith("skipped")]
runs_ok = [r for r in runs if r["run"] == "ok"]
pct = lambda a, b: 100.0 * a / b if b else 0.0
print()
print("files: %d; fio --parse-only accepts %d; iofit accepts %d of those (%.0f%%)" % (
    len(rows), len(fio_ok), len(both), pct(len(both), len(fio_ok))))
print("refused, need hardware or an engine iofit does not have: %d" % len(hw))
print("refused for an option iofit does not honour: %d" % len(opt))
print("iofit accepts %d of the %d that need no other engine or hardware (%.0f%%)" % (
    len(both), len(fio_ok) - len(hw), pct(len(both), len(fio_ok) - len(hw))))
as_fio = [r for r in runs if r.get("fio_run_fails")]
print("short real runs on regular files: %d of %d ran; %d of the rest fail under fio too" % (
    len(runs_ok), len(runs), len(as_fio)))
reasons = collections.Counter()
for r in opt:
    m = re.search(r"fio option '([^']+)'|^[^:]+:\d+: ([a-z_]+=)", r["why"])
    reasons[(m.group(1) or m.group(2)) if m else r["why"][:60]] += 1
print("options behind the refusals: " + ", ".join("%s (%d)" % kv for kv in reasons.most_common()))
PY
