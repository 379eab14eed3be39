#!/usr/bin/env bash
# Reads sysstat's own expected outputs (the tests/ directory of a sysstat checkout, e.g.
# https://github.com/sysstat/sysstat) with `iofit profile` and counts what it reads, what it
# refuses and why; then checks that the forms sysstat's tests print from one sa file give the
# same requirements (the peer is the oracle: sadf's forms hold the same counters).
#
#   bench/compat-sysstat.sh SYSSTAT/tests
#
# Files: every expected.* and expectedN.* of iostat, sar and sadf (cifsiostat, mpstat, pidstat
# and the others hold no block-device report). A refusal must name its reason; a crash or a
# signal counts as a failure. Agreement groups (from sysstat's test scripts):
#   sadf -d/-j/-x/-p tests/data.tmp -C -- -A   (tests 00500-00530): identical requirements;
#   sar --pretty -d -f tests/data.tmp (00170), sar --dev=sda -dp (00810): the same sizing as
#   sadf -d for every volume both name;
#   iostat -x, -x --pretty --compact, -x -p ALL, -o JSON -x -p ALL, -x ALL over tests/root1
#   (02110-02150, 02615, 02740): the same sizing for every volume both name.
set -euo pipefail
dir=${1:?usage: bench/compat-sysstat.sh SYSSTAT/tests}
here=$(cd "$(dirname "$0")/.." && pwd)
iofit=${IOFIT:-$here/target/release/iofit}
[ -x "$iofit" ] || (cd "$here" && cargo build --release -q)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

read_ok=0 refused=0 failed=0
: > "$work/reasons"
for f in "$dir"/expected*; do
  name=$(basename "$f")
  case "$name" in *iostat*|*sar*|*sadf*) ;; *) continue ;; esac
  case "$name" in *cifsiostat*) continue ;; esac
  set +e
  "$iofit" profile "$f" --json > "$work/$name.json" 2> "$work/$name.err"
  rc=$?
  set -e
  if [ $rc -eq 0 ]; then
    read_ok=$((read_ok + 1))
  elif [ $rc -eq 2 ] && grep -q "^iofit: error: " "$work/$name.err"; then
    refused=$((refused + 1))
    # The reason without the file name, line and numbers.
    grep -m1 "^iofit: error: " "$work/$name.err" | sed -E 's/^iofit: error: [^ ]+ //; s/[0-9]+/N/g' \
      | cut -c1-90 >> "$work/reasons"
  else
    failed=$((failed + 1))
    echo "FAILED ($rc): $name: $(head -c 300 "$work/$name.err")"
  fi
done
total=$((read_ok + refused + failed))
echo "sysstat expected outputs of iostat, sar, sadf: $total; read $read_ok, refused with a reason $refused, failed $failed"
echo "refusals by reason:"
sort "$work/reasons" | uniq -c | sort -rn | sed 's/^/  /'

# The sizing of each volume, without the source line.
sizing() {
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(json.dumps({v["label"]: v["sizing"] for v in d["volumes"]}, sort_keys=True))' "$1"
}
agree=0 disagree=0
same() { # same A B [subset]: B's volumes have A's sizing (all of A's volumes unless subset)
  local a=$work/$1.json b=$work/$2.json
  if [ ! -s "$a" ] || [ ! -s "$b" ]; then
    echo "  $1 ~ $2: not both read"; disagree=$((disagree + 1)); return
  fi
  if python3 - "$(sizing "$a")" "$(sizing "$b")" "${3:-all}" <<'PY'
import json, sys
a, b, mode = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]
shared = [k for k in b if k in a]
bad = [k for k in shared if a[k] != b[k]]
missing = [] if mode == "subset" else [k for k in a if k not in b]
print(f"  {len(shared)} volumes compared, {len(bad)} differ {bad}, {len(missing)} missing {missing}")
sys.exit(1 if bad or missing or not shared else 0)
PY
  then agree=$((agree + 1)); else disagree=$((disagree + 1)); echo "  ^ $1 ~ $2"; fi
}
echo "agreement between forms of the same counters:"
for form in expected.sadf-j expected.sadf-x expected.sadf-p; do same expected.sadf-d "$form"; done
same expected.sadf-d expected.sar-pretty subset
same expected.sadf-d expected.sar-dev subset
# iostat over one fake /proc (sysstat's tests/root1): text, --pretty --compact, -p ALL, JSON.
for form in expected.iostat-compact expected.iostat-x-p-ALL expected.iostat-x-p-ALL-JSON \
    expected.iostat-x-ALL; do
  same expected.iostat-x "$form" subset
done
echo "pairs that agree: $agree of $((agree + disagree))"
[ $failed -eq 0 ] && [ $disagree -eq 0 ]
