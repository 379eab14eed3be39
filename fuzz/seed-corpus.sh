#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ from the repository's real inputs: example job files, the
# bad-input corpora, the vdbench examples, the Iometer spec file and the profile test data.
set -euo pipefail
cd "$(dirname "$0")"
root=..
copy() { local target=$1; shift; mkdir -p "corpus/$target"; for f in "$@"; do [ -f "$f" ] && cp "$f" "corpus/$target/$(echo "${f#../}" | tr '/' '_')"; done; true; }
copy fio_ini $root/examples/fio/* $root/tests/bad-input/jobfile/*.fio
copy fio_command_line $root/examples/fio/*
copy vdbench $root/examples/vdbench/vnet1-* $root/tests/bad-input/jobfile/vdbench/*.vdb
copy iometer_specs $root/examples/iometer/*.toml
copy profile_capture $(find $root/tests/data $root/crates/profile -type f \( -name '*.txt' -o -name '*.csv' -o -name '*.log' -o -name '*.json' \) 2>/dev/null)
copy azure_metrics $(find $root/tests/data/azure -type f 2>/dev/null)
copy procfs $(find $root/tests/data $root/crates/profile -type f -path '*diskstats*' 2>/dev/null)
copy iostat $(find $root/tests/data/iostat -type f 2>/dev/null)
copy sar $(find $root/tests/data/sar -type f 2>/dev/null)
copy perfmon $(find $root/tests/data/perfmon -type f 2>/dev/null)
copy requirements $root/crates/planner/src/example-requirements.toml $root/tests/data/results/req-*.toml $root/tests/bad-input/design/*.toml
copy fio_json $root/tests/data/results/*.json
copy catalog_import $root/tests/data/azure/list-skus-*.json $root/tests/data/azure/retail-prices-*.json
copy catalog_file $root/catalog/*.toml $root/tests/bad-input/design/bad-catalog-row.toml
# The vdbench examples use include=; give the fuzzer whole files with the includes inlined.
for f in $root/examples/vdbench/vnet1-*-workload; do
  cat $root/examples/vdbench/vnet1-hosts-nfs $root/examples/vdbench/vnet1-luns-nfs "$f" | grep -v '^include=' > "corpus/vdbench/inlined-$(basename "$f")"
done
ls corpus | while read -r t; do echo "$t: $(ls corpus/$t | wc -l) seeds"; done
