#!/usr/bin/env bash
# vdbench parameter-file compatibility: for every file in DIR, iofit's --parse-only verdict
# (luns and anchors are not looked at), and for the files it accepts whose targets can be
# pointed at temp files, a short real run: every lun= and anchor= rewritten into a temp dir,
# fsd trees shrunk (depth=1,width=2,files=4,sizes=8k), --elapsed 1 --warmup 0 --size 4m.
# `$name` substitutions the file asks for are given on the command line (paths for names like
# lun/anchor/dir, 1 otherwise), as `vdbench -f FILE name=VALUE` needs them too.
# Prints one line per file, the counts, and the reason for every refusal.
#   Goal: iofit parses >= 90% of the files; every one it parses whose targets are files or
#   directories runs; a refusal names the parameter and why. A short run's time limit (a hang
#   guard) is 60 s plus 5 s a run, counting each point of an iorate=curve as a run.
# Usage: bench/compat-vdbench.sh DIR [DIR...]   (files are read, never written)
# Env: IOFIT (binary; default: builds target/debug/iofit), MAX_RUNS (runs per file for the
#      short run, default 12), KEEP=1 keeps the run directories.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${IOFIT:-}" ]; then
    cargo build -q -p iofit
    IOFIT="$PWD/target/debug/iofit"
fi

python3 - "$IOFIT" "$@" <<'PY'
import os, re, shutil, subprocess, sys, tempfile

iofit, dirs = sys.argv[1], sys.argv[2:]
if not dirs:
    sys.exit("usage: bench/compat-vdbench.sh DIR [DIR...]")
max_runs = int(os.environ.get("MAX_RUNS", "12"))
PATHISH = ("lun", "dev", "disk", "anchor", "dir", "path", "mount", "file", "mnt", "target")

def sh(args, timeout):
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, "", "timed out after %ss" % timeout

def first_error(text):
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("note:"):
            return re.sub(r"^iofit: error: ", "", line)
    return ""

def substitutions(text, work):
    names = sorted(set(re.findall(r"=\$\{?([A-Za-z_][A-Za-z0-9_]*)", text)) - {"host"})
    subs = []
    for n in names:
        value = os.path.join(work, "sub_" + n) if any(p in n.lower() for p in PATHISH) else "1"
        subs.append("%s=%s" % (n, value))
    return subs

def curve_points(text):
    """Runs an iorate=curve rd adds beyond the one --parse-only lists: one per curve point."""
    extra = 0
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("rd=") and re.search(r"\b(iorate|io)=curve\b", s):
            m = re.search(r"\bcurve=\(([^)]*)\)", s)
            extra += len(m.group(1).split(",")) if m else 6
    return extra

def rewrite(text, work):
    """Every lun= and anchor= into the work dir; fsd trees small."""
    counter = [0]
    def lun(m):
        counter[0] += 1
        return "%s=%s" % (m.group(1), os.path.join(work, "t%d" % counter[0]))
    out = []
    for line in text.splitlines():
        s = line.strip()
        if not s.startswith(("*", "#", "/")):
            line = re.sub(r"\b(lun|anchor)=(\"[^\"]*\"|[^,\s]+)", lun, line)
            if s.startswith("fsd="):
                line = re.sub(r"\b(depth|width|files)=(\([^)]*\)|[^,\s]+)", lambda m: m.group(1) + ("=1" if m.group(1) == "depth" else "=2" if m.group(1) == "width" else "=4"), line)
                line = re.sub(r"\bsizes?=(\([^)]*\)|[^,\s]+)", "sizes=8k", line)
        out.append(line)
    return "\n".join(out) + "\n"

rows = []
for d in dirs:
    for name in sorted(os.listdir(d)):
        path = os.path.join(d, name)
        if not os.path.isfile(path):
            continue
        text = open(path, errors="replace").read()
        work = tempfile.mkdtemp(prefix="iofit-vdbcompat-")
        subs = substitutions(text, work)
        rc, out, err = sh([iofit, "run", "--parse-only", path] + subs, 20)
        row = {"file": name, "parse": rc == 0, "why": "", "run": "-", "subs": len(subs)}
        if rc != 0:
            row["why"] = first_error(err)
        else:
            runs = [l for l in out.splitlines() if l.startswith("rd=")]
            notes = [l for l in out.splitlines() if "note:" in l]
            if re.search(r"^hd=", text, re.M) and re.search(r"system=", text):
                row["run"] = "skipped: multi-host (hd= system=)"
            elif notes:
                row["run"] = "skipped: data keys (the data feature)"
            elif len(runs) > max_runs:
                row["run"] = "skipped: %d runs > MAX_RUNS" % len(runs)
            else:
                copy = os.path.join(work, "parm.vdb")
                open(copy, "w").write(rewrite(text, work))
                args = [iofit, "run", "--quiet", "--elapsed", "1", "--warmup", "0", "--size", "4m", copy]
                args += substitutions(text, work)
                # The time limit guards against a hang: 60 s plus 5 s a run, where a curve
                # rd is its max run and every point (the default curve has 6: 10,50,70,80,90,100).
                timed = len(runs) + curve_points(text)
                run_rc, _, run_err = sh(args, 60 + 5 * timed)
                row["run"] = "ok" if run_rc == 0 else "FAILED: " + first_error(run_err)[:160]
        if not os.environ.get("KEEP"):
            shutil.rmtree(work, ignore_errors=True)
        rows.append(row)

for r in rows:
    print("%-62s parse=%-3s run=%s %s" % (r["file"][:62], "ok" if r["parse"] else "no",
          r["run"], ("| " + r["why"][:220]) if r["why"] else ""))
total = len(rows)
parsed = sum(r["parse"] for r in rows)
# Refusals that vdbench itself fails on too, each checked in vdbench's source (Vdb/*.java of
# vdbench 5.04, github itfanr/vdbench): counted apart, the rate given with and without them.
VDBENCH_FAILS = [
    ("cannot include", "include= file not published (Vdb_scan.readIncludeFile: 'include=%s file not found')"),
    ("is not keyword=value", "free text without '*' (Vdb_scan.specialize cuts at the first blank, parms_split: 'Expecting keyword=')"),
    ("no lun=", "sd without lun= (SD_entry: 'No lun name specified for sd=')"),
    ("matches no hd defined", "sd naming a host never defined (Host.findSelectedHosts: 'Could not find host=')"),
    ("matches no wd defined", "rd naming a wd not defined before it (RD_entry: 'Could not find WD=... for RD=', or a duplicate rd name)"),
    ("matches no sd defined", "wd naming an sd never defined (WD_entry.getSdsForHost: 'Could not find sd=... for wd=')"),
]
def vdbench_fails(r):
    if r["parse"]:
        return None
    for pattern, why in VDBENCH_FAILS:
        if pattern in r["why"]:
            return why
    return None
incomplete = [r for r in rows if vdbench_fails(r)]
ran = [r for r in rows if r["run"] == "ok"]
tried = [r for r in rows if r["run"] == "ok" or r["run"].startswith("FAILED")]
print()
print("files: %d; parsed: %d (%.1f%%); short runs: %d of %d tried ok" % (
    total, parsed, 100.0 * parsed / max(total, 1), len(ran), len(tried)))
complete = total - len(incomplete)
print("without the %d files vdbench also refuses: %d of %d parsed (%.1f%%)" % (
    len(incomplete), parsed, complete, 100.0 * parsed / max(complete, 1)))
reasons = {}
for r in incomplete:
    reasons[vdbench_fails(r)] = reasons.get(vdbench_fails(r), 0) + 1
for why, n in sorted(reasons.items()):
    print("  vdbench also fails: %s: %d" % (why, n))
skips = {}
for r in rows:
    if r["run"].startswith("skipped"):
        key = re.sub(r"\d+ runs", "N runs", r["run"])
        skips[key] = skips.get(key, 0) + 1
for k, v in sorted(skips.items()):
    print("  %s: %d" % (k, v))
PY
