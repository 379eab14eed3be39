#!/usr/bin/env bash
# fio job-file compatibility: for every file under DIR (recursively), fio's --parse-only
# verdict, iofit's, and for the files both accept whose jobs use only regular files and engines
# iofit runs, a short real run with size, runtime and directory overridden. Prints one line per
# file, the counts, and a table of the reasons behind every refusal.
#   A file another file `include`s is a fragment, not a job file: it is not counted.
#   Refusals fall in three kinds: the job needs hardware, a cluster or a raw device iofit has
#   no engine for (left out of the goal, each named); fio has an engine iofit does not
#   implement (counted against the goal); an option iofit does not honour (counted against it).
#   Goal: iofit accepts >= 95% of what fio --parse-only accepts, leaving out only the first
#   kind; every accepted job on regular files runs.
# Usage: bench/compat.sh DIR [DIR...]   (job files are read, never written; runs use a temp dir)
# Env: IOFIT (binary; default: builds target/debug/iofit), KEEP=1 keeps the run directory,
#      RUNS=0 skips the short real runs (parse verdicts only).
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
import collections, json, os, re, shutil, signal, subprocess, sys, tempfile

iofit, dirs = sys.argv[1], sys.argv[2:]
if not dirs:
    sys.exit("usage: bench/compat.sh DIR [DIR...]")
runs_wanted = os.environ.get("RUNS", "1") != "0"

# Reasons that mean "needs other hardware, a cluster or a raw device": left out of the goal.
HARDWARE = ("needs special hardware", "network, cluster or other-platform engine",
            "raw device or passthrough", "zoned block devices", "NUMA placement",
            "passthrough features", "cgroup placement")
NO_ENGINE = "iofit has no such engine"

def reasons(text):
    """Every refusal iofit lists (one per line after the count line), without file:line."""
    out = []
    for line in text.splitlines():
        line = re.sub(r"^iofit: error: ", "", line.strip())
        if not line or line.startswith("note:") or re.search(r"\d+ options? iofit refuses", line):
            continue
        out.append(re.sub(r"^\S+?:\d+: ", "", line))
    return out

def reason_key(why):
    """A short name for a refusal: the option or engine it is about."""
    m = (re.search(r"^ioengine=([\w-]+)", why) or re.search(r"fio option '([^']+)'", why)
         or re.search(r"unknown option '([^']+)'", why) or re.search(r"^([a-z_]+)=", why))
    if m:
        return m.group(0) if why.startswith("ioengine=") else m.group(1)
    return why[:70]

def sh(args, timeout, cwd=None):
    # In a session of its own, so that a timeout ends fio's forked job processes too (left
    # running, they kept writing into a directory already removed).
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         cwd=cwd, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return 124, "", "timed out after %ss" % timeout

paths = []
for d in dirs:
    for root, _, names in os.walk(d):
        for name in names:
            if not name.endswith((".png", ".md", ".jpg", ".svg")) and not name.startswith(".compat-"):
                paths.append(os.path.abspath(os.path.join(root, name)))
paths.sort()
fragments = set()
for path in paths:
    try:
        text = open(path, errors="replace").read()
    except OSError:
        continue
    for inc in re.findall(r"^\s*include\s+(\S+)", text, re.M):
        fragments.add(os.path.normpath(os.path.join(os.path.dirname(path), inc)))

loadable = {}
def fio_loads(engine):
    """Whether this fio can load `engine` (its --parse-only does not try)."""
    if engine not in loadable:
        probe = tempfile.mkdtemp(prefix="iofit-compat-probe-")
        _, out, err = sh(["fio", "--name=probe", "--ioengine=" + engine, "--size=4k", "--rw=read",
                          "--filename=" + os.path.join(probe, "f"), "--output=/dev/null"], 20, probe)
        loadable[engine] = "not loadable" not in out + err
        shutil.rmtree(probe, ignore_errors=True)
    return loadable[engine]

def fio_json(text):
    at = text.find("\n{") + 1 if not text.startswith("{") else 0
    try:
        return json.loads(text[at:])
    except ValueError:
        return None

def total_iops(report):
    return [(j["jobname"], sum(j.get(d, {}).get("iops", 0) for d in ("read", "write", "trim")))
            for j in report["jobs"]]

def agrees(ours, theirs):
    """The suite's measure for a short real run: the same jobs in the same order, each within
    the time-bound suite's 4x IOPS band (one 1 s run each on a shared machine)."""
    if not ours or not theirs:
        return False, "no JSON"
    a, b = total_iops(ours), total_iops(theirs)
    if [n for n, _ in a] != [n for n, _ in b]:
        return False, "job names %s against fio's %s" % ([n for n, _ in a][:4], [n for n, _ in b][:4])
    for (name, x), (_, y) in zip(a, b):
        if max(x, y) > 4 * max(min(x, y), 1e-9) and max(x, y) > 50:
            return False, "%s: %.0f IOPS against fio's %.0f" % (name, x, y)
    return True, ""

def with_overrides(text, overrides):
    """The job file with `overrides` (key=value) appended to every job section."""
    out, in_job = [], False
    for line in text.splitlines():
        m = re.match(r"^\s*\[([^\]]+)\]", line)
        if m:
            if in_job:
                out.extend(overrides)
            in_job = not m.group(1).strip().startswith("global")
        out.append(line)
    if in_job:
        out.extend(overrides)
    return "\n".join(out) + "\n"

def fio_run(path, options, work, theirs):
    """fio on `path` with iofit's `--key=value` overrides, in `theirs`: (exit code, stdout).
    fio reads command-line options before the file (a file's own runtime=900 would win), so
    they go at the end of each job section of a copy next to the original (where its includes
    resolve as before)."""
    overrides = [a[2:].replace(work, theirs) for a in options]
    copy = os.path.join(os.path.dirname(path), ".compat-" + os.path.basename(path))
    with open(copy, "w") as out_file:
        out_file.write(with_overrides(open(path, errors="replace").read(), overrides))
    rc, out, _ = sh(["fio", "--output-format=json", copy], 120, cwd=theirs)
    os.unlink(copy)
    return rc, out

rows = []
for path in paths:
    if path in fragments:
        continue
    name = os.path.relpath(path, os.path.commonpath([os.path.abspath(d) for d in dirs]))
    # Both tools read the file from its own directory, where its includes are.
    cwd = os.path.dirname(path)
    fio_rc, _, _ = sh(["fio", "--parse-only", path], 20, cwd)
    rc, out, err = sh([iofit, "run", "--parse-only", path], 20, cwd)
    row = {"file": name, "fio": fio_rc == 0, "iofit": rc == 0, "why": reasons(err), "run": "-"}
    if fio_rc == 0:
        text = open(path, errors="replace").read()
        engines = set(re.findall(r"^\s*ioengine\s*=\s*([\w-]+)", text, re.M))
        row["fio_cannot_load"] = sorted(e for e in engines if not fio_loads(e))
    if rc == 0 and fio_rc == 0 and runs_wanted:
        targets = re.findall(r" on (\S+)$", out, re.M)
        free = shutil.disk_usage(tempfile.gettempdir()).free
        if any(t.startswith("/dev/") for t in targets):
            row["run"] = "skipped: block device target"
        elif free < 8 << 30:
            row["run"] = "skipped: %d GiB free in %s" % (free >> 30, tempfile.gettempdir())
        else:
            work = tempfile.mkdtemp(prefix="iofit-compat-")
            # io_size and filesize too: a file that sets them (io_size=400M x numjobs=128 in
            # one public kit) would otherwise write tens of GB in its "short" run.
            args = [iofit, "run", "--quiet", path, "--runtime=1", "--size=4m", "--io_size=4m",
                    "--filesize=4m", "--ramp_time=0", "--startdelay=0", "--directory=" + work]
            if any(not t.endswith("/") for t in targets):
                args.append("--filename=" + os.path.join(work, "data"))
            # In the run directory: log files (write_*_log prefixes) land there, not here.
            run_rc, run_out, run_err = sh(args + ["--output-format=json"], 120, cwd=work)
            first = (reasons(run_err) or [""])[0]
            row["run"] = "ok" if run_rc == 0 else "FAILED: " + first[:160]
            if run_rc == 0:
                # fio on the same file with the same overrides, in a directory of its own.
                theirs = tempfile.mkdtemp(prefix="iofit-compat-fio-")
                f_rc, f_out = fio_run(path, args[4:], work, theirs)
                if f_rc == 0:
                    ok, why = agrees(fio_json(run_out), fio_json(f_out))
                    row["agrees"] = ok
                    if not ok:
                        row["run"] = "ok, differs from fio: " + why
                shutil.rmtree(theirs, ignore_errors=True)
            if run_rc != 0:
                # Does fio run it with the same overrides? (Then iofit is the odd one out.)
                theirs = tempfile.mkdtemp(prefix="iofit-compat-fio-")
                fio_run_rc, _ = fio_run(path, args[4:], work, theirs)
                shutil.rmtree(theirs, ignore_errors=True)
                row["fio_run_fails"] = fio_run_rc != 0
                if fio_run_rc != 0:
                    row["run"] = "FAILED as fio does: " + first[:140]
            if not os.environ.get("KEEP"):
                shutil.rmtree(work, ignore_errors=True)
    rows.append(row)

def kind(r):
    if any(any(h in w for h in HARDWARE) for w in r["why"]):
        return "hardware"
    if any(NO_ENGINE in w for w in r["why"]):
        return "engine"
    return "option"

for r in rows:
    print("%-60s fio=%-3s iofit=%-3s run=%s %s" % (  # fio=eng: fio cannot load the engine
        r["file"][-60:], ("eng" if r.get("fio_cannot_load") else "ok") if r["fio"] else "no",
        "ok" if r["iofit"] else "no", r["run"],
        ("| " + r["why"][0][:200]) if r["why"] and r["fio"] else ""))

# A file whose engine this fio cannot load is not one fio runs (its --parse-only does not
# load engines): counted apart, out of "accepted by fio".
unloadable = [r for r in rows if r["fio"] and r.get("fio_cannot_load")]
fio_ok = [r for r in rows if r["fio"] and not r.get("fio_cannot_load")]
both = [r for r in fio_ok if r["iofit"]]
refused = [r for r in fio_ok if not r["iofit"]]
by_kind = collections.defaultdict(list)
for r in refused:
    by_kind[kind(r)].append(r)
runs = [r for r in both if r["run"] != "-" and not r["run"].startswith("skipped")]
runs_ok = [r for r in runs if r["run"].startswith("ok")]
as_fio = [r for r in runs if r.get("fio_run_fails")]
pct = lambda a, b: 100.0 * a / b if b else 0.0
goal_base = len(fio_ok) - len(by_kind["hardware"])
print()
print("| measure | count |")
print("|---|---|")
print("| job files (include fragments left out) | %d |" % len(rows))
print("| accepted by fio --parse-only, but fio cannot load the engine (%s) | %d |" % (
    ", ".join(sorted({e for r in unloadable for e in r["fio_cannot_load"]})), len(unloadable)))
print("| accepted by fio --parse-only, engine loadable | %d |" % len(fio_ok))
print("| accepted by iofit, of those | %d (%.1f %%) |" % (len(both), pct(len(both), len(fio_ok))))
print("| refused: need hardware, a cluster or a raw device (left out of the goal) | %d |"
      % len(by_kind["hardware"]))
print("| refused: an fio engine iofit does not implement | %d |" % len(by_kind["engine"]))
print("| refused: an option iofit does not honour | %d |" % len(by_kind["option"]))
print("| **goal measure**: accepted of those that need no other hardware | %d of %d (%.1f %%) |"
      % (len(both), goal_base, pct(len(both), goal_base)))
if runs_wanted:
    print("| short real runs on regular files that ran | %d of %d (%d of the rest fail under fio too) |"
          % (len(runs_ok), len(runs), len(as_fio)))
    compared = [r for r in runs if "agrees" in r]
    print("| of those, fio ran too: same jobs, IOPS within the suite's 4x band | %d of %d |"
          % (sum(1 for r in compared if r["agrees"]), len(compared)))
print()
print("| kind | reason (first refusal of each file) | files |")
print("|---|---|---|")
for k in ("hardware", "engine", "option"):
    counts = collections.Counter(reason_key(r["why"][0]) if r["why"] else "?" for r in by_kind[k])
    for key, n in counts.most_common():
        example = next(r["why"][0] for r in by_kind[k] if r["why"] and reason_key(r["why"][0]) == key)
        print("| %s | %s: %s | %d |" % (k, key, example.split(": ", 1)[-1][:110], n))
PY
