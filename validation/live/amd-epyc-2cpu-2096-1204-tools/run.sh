#!/bin/sh
# the tools side by side on three rows, one quiet session
set -u
cd /work/main
L=/tmp/x/live
M=amd-epyc-2cpu-2096-1204
mark() { { echo "== $1 $(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)"; tools/bin/cpuspeed --cpus 0,1; } >> $L/marks.txt; }
mark start
tools/measure-live --machine $M --topology lo --set link.mtu=65536 --vary app.send_size=4K --topology lo --set link.mtu=16436 --set offload.tso=off --set offload.gso=off --vary app.send_size=64K --topology lo --set link.mtu=1500 --vary app.send_size=16K --reps 3 --max-reps 3 -o $L/ml3.csv > $L/ml3.log 2>&1
mark after-ml3
tools/wakeups-live --duration 8 --window 2 --mtu 1500,65536 --sizes 4K,16K --reps 2 -o $L/wl-lo.txt > $L/wl-lo.log 2>&1
tools/wakeups-live --duration 8 --window 2 --mtu 16436 --sizes 64K --offload tso=off,gso=off --reps 2 -o $L/wl-16436.txt > $L/wl-16436.log 2>&1
mark after-wl
mkdir -p $L/ps
tools/wakeups-live --profile --duration 8 --window 2 --mtu 65536 --sizes 4K --reps 2 --perf-script $L/ps -o $L/prof-65536-4k.txt > $L/prof.log 2>&1
mark after-profile
tools/wakeups-live --growth --hands-off --duration 8 --mtu 1500,65536 --sizes 4K,16K --reps 2 -o $L/ho-lo.txt > $L/ho-lo.log 2>&1
tools/wakeups-live --growth --hands-off --duration 8 --mtu 16436 --sizes 64K --offload tso=off,gso=off --reps 2 -o $L/ho-16436.txt > $L/ho-16436.log 2>&1
mark after-handsoff
tools/measure-live --machine $M --duration 8 --topology lo --set link.mtu=65536 --vary app.send_size=4K --topology lo --set link.mtu=16436 --set offload.tso=off --set offload.gso=off --vary app.send_size=64K --topology lo --set link.mtu=1500 --vary app.send_size=16K --reps 2 --max-reps 2 -o $L/ml8.csv > $L/ml8.log 2>&1
mark end
echo done > $L/done
