#!/bin/sh
# transmit.sh PERF_SCRIPT[.xz] CPU ack|data: of one CPU's busy samples in a
# `tools/wakeups-live --profile --perf-script` run, the share under a
# transmit (__tcp_transmit_skb) of an ACK (called from tcp_recvmsg_locked,
# __tcp_cleanup_rbuf, __tcp_send_ack and the rest of keys_table's ACK
# origins) or of a data frame (tcp_write_xmit, tcp_sendmsg_locked, ...);
# of those, the samples in a softirq it runs below (handle_softirqs under
# __dev_queue_xmit's local_bh_enable: lo's NET_RX of the frame) and the
# transmit itself, and the transmit's leaf functions, largest first.
#
#   sh transmit.sh perf-1500-4K-1.txt.xz 1 ack
set -eu
[ $# -eq 3 ] || {
	echo "transmit.sh: want PERF_SCRIPT CPU ack|data, got $# arguments" >&2
	echo "usage: transmit.sh PERF_SCRIPT[.xz] CPU ack|data" >&2
	exit 2
}
[ -f "$1" ] || { echo "transmit.sh: no such perf script: $1" >&2; exit 2; }
case $2 in '' | *[!0-9]*) echo "transmit.sh: CPU must be a CPU number, not '$2'" >&2; exit 2 ;; esac
case $3 in ack | data) ;; *) echo "transmit.sh: want ack or data, not '$3'" >&2; exit 2 ;; esac
case $1 in *.xz) cat_ () { xz -dc "$1"; } ;; *) cat_ () { cat "$1"; } ;; esac
cat_ "$1" | awk -v R="$2" -v W="$3" '
function flush(   i, t, hit, sirq) {
	if (cpu != R || nfr == 0) { nfr = 0; cpu = ""; return }
	if (fr[1] ~ /^(do_idle|default_idle|pvm_safe_halt_hc|cpuidle_idle_call)$/) { idle++; nfr = 0; cpu = ""; return }
	busy++
	for (i = 1; i <= nfr; i++) if (fr[i] == "__tcp_transmit_skb") break
	if (i <= nfr) {
		hit = 0
		for (t = i + 1; t <= nfr; t++) {
			if (fr[t] in ackfrom) { hit = W == "ack"; break }
			if (fr[t] in datafrom) { hit = W == "data"; break }
		}
		if (hit) {
			sirq = 0
			for (t = 1; t < i; t++) if (fr[t] == "handle_softirqs") { sirq = 1; break }
			n++
			if (sirq) ns++; else { nt++; leaf[fr[1]]++ }
		}
	}
	nfr = 0; cpu = ""
}
BEGIN {
	split("__tcp_send_ack tcp_send_ack tcp_send_delayed_ack __tcp_cleanup_rbuf tcp_cleanup_rbuf tcp_recvmsg_locked tcp_rcv_established tcp_v4_do_rcv tcp_delack_timer_handler", w, " ")
	for (j in w) ackfrom[w[j]] = 1
	split("tcp_write_xmit __tcp_push_pending_frames tcp_push tcp_push_one tcp_sendmsg_locked tcp_retransmit_skb", w, " ")
	for (j in w) datafrom[w[j]] = 1
}
/^[^ \t]/ { flush(); if (match($0, /\[[0-9]+\]/)) cpu = substr($0, RSTART + 1, RLENGTH - 2) + 0; next }
cpu != "" && NF >= 2 { f = $2; sub(/\.(part|isra|constprop|cold)(\.[0-9]+)*$/, "", f); fr[++nfr] = f }
END {
	flush()
	if (!busy) { print "transmit.sh: no busy samples on CPU " R > "/dev/stderr"; exit 1 }
	printf "CPU %d: %d busy samples (%d idle); under %s transmit %d (%.1f%%): in the softirq it runs %d (%.1f%%), the transmit itself %d (%.1f%%)\n",
		R, busy, idle, W == "ack" ? "an ACK" : "a data frame", n, 100 * n / busy, ns, 100 * ns / busy, nt, 100 * nt / busy
	for (f in leaf) printf "  %5.1f%%  %s\n", 100 * leaf[f] / busy, f | "sort -rn | head -12"
}'
