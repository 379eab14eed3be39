#!/usr/bin/env bash
# Generates the NetApp seed's vdbench parameter files for ONE local machine, with the seed's own
# script (netapp-seed-script.sh, extracted verbatim from the seed "Azure NetApp Files benchmarks",
# section "Example scripts").
#
# Usage: generate.sh [OUT_DIR] [DATA_DIR]
#   OUT_DIR   where the parameter files are written (default: .)
#   DATA_DIR  replaces /mnt: the six "mounts" become DATA_DIR/vdb1 .. DATA_DIR/vdb6
#             (default: /tmp/iofit-vdbench)
#
# The only changes made to the seed's script, all by the sed below:
#   {1..24}                               -> {1..1}            one VM instead of 24
#   /mnt/vdb                              -> DATA_DIR/vdb      mount points in a local directory
#   system=vdbench-vnet${vnet}-${vm}      -> system=localhost  the one "VM" is this machine
#                                                              (one host here; iofit runs hd= hosts over ssh too)
# Everything else (693g sizes, threads, elapsed=600, warmup=60, the FillWrite elapsed=259200)
# stays as the seed wrote it; a local run shortens and shrinks them through the runner's
# options (VdbenchRunOptions: elapsed, warmup, scale, sd_size), see README.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-.}
data=${2:-/tmp/iofit-vdbench}
mkdir -p "$out"
sed -e 's/{1\.\.24}/{1..1}/g' \
    -e "s#/mnt/vdb#${data}/vdb#g" \
    -e 's/system=vdbench-vnet\${vnet}-\${vm}/system=localhost/' \
    "$here/netapp-seed-script.sh" > "$out/.localized-script.sh"
(cd "$out" && bash ./.localized-script.sh)
rm -f "$out/.localized-script.sh"
