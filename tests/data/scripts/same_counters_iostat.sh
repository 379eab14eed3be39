#!/usr/bin/env bash
# Captures of tests/data/*/sysstat-12.6.1_same-counters_* (see tests/data/README.md). Run as root
# inside a private mount namespace: copy this folder to /tmp/capwork/iostat, save /proc/diskstats,
# /proc/uptime, /proc/stat, /sys/block/vda/stat and /sys/block/loop0/stat there as *.orig (and
# loop0.stat), then: unshare -m --propagation private bash same_counters_iostat.sh (its writer: same_counters_writer.py, here as writer.py)
cd /tmp/capwork/iostat
rm -f ready go
python3 writer.py 0.5 > writer.log 2>&1 &
while [ ! -e ready ]; do sleep 0.05; done
for pair in diskstats:/proc/diskstats uptime:/proc/uptime stat:/proc/stat vda.stat:/sys/block/vda/stat loop0.stat:/sys/block/loop0/stat; do
  mount --bind /tmp/capwork/iostat/${pair%%:*} ${pair#*:} || exit 1
done
export LOCPATH=/tmp/cap_loc
touch go
iostat -x -t 1 5 > out_xt_C.txt &
iostat -x -t -o JSON 1 5 > out_xt_json.json &
iostat -x -t -h 1 5 > out_xth_C.txt &
LC_ALL=ja_JP.UTF-8 iostat -x -t 1 5 > out_xt_ja_JP.txt &
LC_ALL=de_DE.UTF-8 iostat -x -t 1 5 > out_xt_de_DE.txt &
LC_ALL=ru_RU.UTF-8 iostat -x -t 1 5 > out_xt_ru_RU.txt &
LC_ALL=en_US.UTF-8 iostat -x -t 1 5 > out_xt_en_US.txt &
wait
