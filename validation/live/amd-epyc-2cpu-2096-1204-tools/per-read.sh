#!/bin/sh
# per-read.sh: the cycles a read on the reader's CPU (CPU 1) that
# validation/live/README.md quotes ("One row, five ways"; "Every key priced
# from perf"), from the kept perf scripts: by tcpsim cost key
# (tools/wakeups-live --parse-profile), and by function on the stack or at
# the leaf.  A run's cycles a read: its reader CPU's busy share x 2.096 GHz
# / its reads a second (the rows of prof-65536-4k.txt and of
# ../amd-epyc-2cpu-2096-1204.profile-keys.txt).  Run from the checkout's top.
set -eu
D=validation/live/amd-epyc-2cpu-2096-1204-tools
K=validation/live/perf-1204-keys
T=$(mktemp)
trap 'rm -f "$T"' EXIT
run() { # SCRIPT.xz BUSY% READS/S NAME
	xz -dc "$1" >"$T"
	cyc=$(awk -v b="$2" -v r="$3" 'BEGIN { printf "%.1f", b / 100 * 2.096e9 / r }')
	echo "== $4: $cyc cycles a read"
	tools/wakeups-live --parse-profile "$T" |
		awk -v c="$cyc" '/by tcpsim cost key/ { on = 1; next }
			on && /^#   [a-z_]+ +[0-9.]+ +[0-9.]+$/ { printf "  key %-16s %6.0f\n", $2, $4 / 100 * c }'
	awk -v c="$cyc" 'BEGIN { RS = "" }
		{ split($0, L, "\n"); if (L[1] !~ /\[001\]/) next
		  leaf = L[2]; sub(/^[ \t]*[0-9a-f]+ /, "", leaf)
		  if (leaf ~ /pvm_safe_halt|default_idle/) next
		  n++
		  if (leaf ~ /^_copy_to_iter/) cp++
		  if (leaf ~ /check_object_size|virt_addr_valid/) ck++
		  if (leaf ~ /__skb_datagram_iter|skb_copy_datagram_iter|simple_copy_to_iter/) it++
		  if ($0 ~ /ksys_read/) kr++
		  if ($0 ~ /tcp_recvmsg_locked/) rm++
		  if ($0 ~ /do_select/) ds++
		  if ($0 ~ /__pollwait/) pw++
		  if ($0 ~ /poll_freewait/) pf++ }
		END { printf "  leaf _copy_to_iter %.0f; check_object_size + __virt_addr_valid %.0f; the fragment walk %.0f\n", cp / n * c, ck / n * c, it / n * c
		      printf "  on the stack: ksys_read %.0f, tcp_recvmsg_locked %.0f, do_select %.0f, __pollwait %.0f, poll_freewait %.0f\n", kr / n * c, rm / n * c, ds / n * c, pw / n * c, pf / n * c }' "$T"
}
run $D/perf-65536-4K-1.txt.xz 98.0 235018 "MTU 65536, 4 KB, rep 1 (7,710 Mbit/s)"
run $D/perf-65536-4K-2.txt.xz 98.5 173889 "MTU 65536, 4 KB, rep 2 (5,606 Mbit/s)"
run $K/perf-1500-4K-1.txt.xz 83.1 85982 "MTU 1500, 4 KB, rep 1"
run $K/perf-1500-4K-2.txt.xz 83.9 94208 "MTU 1500, 4 KB, rep 2"
run $K/perf-1500-16K-1.txt.xz 89.5 102562 "MTU 1500, 16 KB, rep 1"
run $K/perf-1500-16K-2.txt.xz 94.7 113804 "MTU 1500, 16 KB, rep 2"
