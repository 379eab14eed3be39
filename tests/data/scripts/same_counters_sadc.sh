#!/usr/bin/env bash
# Captures of tests/data/*/sysstat-12.6.1_same-counters_* (see tests/data/README.md). Run as root
# inside a private mount namespace: copy this folder to /tmp/capwork/iostat, save /proc/diskstats,
# /proc/uptime, /proc/stat, /sys/block/vda/stat and /sys/block/loop0/stat there as *.orig (and
# loop0.stat), then: unshare -m --propagation private bash same_counters_sadc.sh
cd /tmp/capwork/iostat
rm -f ready go sa.bin
python3 writer.py 0.5 > writer.log 2>&1 &
while [ ! -e ready ]; do sleep 0.05; done
for pair in diskstats:/proc/diskstats uptime:/proc/uptime stat:/proc/stat vda.stat:/sys/block/vda/stat loop0.stat:/sys/block/loop0/stat; do
  mount --bind /tmp/capwork/iostat/${pair%%:*} ${pair#*:} || exit 1
done
touch go
/usr/lib/sysstat/sadc -S DISK 1 5 sa.bin
wait
