#!/bin/sh
# the second study: the two rows interleaved (a: MTU 65536, 4 KB; b: MTU 1500,
# 64 KB), a mark before every run
set -u
cd /work/main
L=validation/live/amd-epyc-2cpu-2096-1204-canary/s2
mark() { { echo "== $1 $(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)"
	tools/bin/cpuspeed --cpus 0,1 --work chain,ilp,copy,syscall
	echo "-- together"
	tools/bin/cpuspeed --cpus 0,1 --work chain,ilp,copy,syscall --together; } >> $L/marks.txt; }
: > $L/marks.txt
for i in $(seq 1 12); do
	mark a$i
	tools/wakeups-live --duration 6 --window 2 --mtu 65536 --sizes 4K --reps 1 -o $L/a$i.txt > $L/a$i.log 2>&1
	mark b$i
	tools/wakeups-live --duration 6 --window 2 --mtu 1500 --sizes 64K --reps 1 -o $L/b$i.txt > $L/b$i.log 2>&1
done
mark end
echo done > $L/done
