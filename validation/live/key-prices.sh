#!/bin/sh
# key-prices.sh frame KEY PROFILE[,PROFILE...] MATRIX.csv GHZ
# key-prices.sh call KEY PROFILE[,PROFILE...] GHZ
#
# A cost key priced from `tools/wakeups-live --profile` runs of write(): the
# key's share of a CPU's busy samples ("by tcpsim cost key") times that
# CPU's busy share times GHz, over what the model charges it for.
#
#   frame  a key charged per frame or ACK: both CPUs summed, over the
#          events a second the model charges it for, from the matrix's row
#          for the same MTU and write size (TSO and GSO on), scaled by the
#          run's throughput over the row's.  tx_frame is a data frame's
#          transmit (netdev.c charges it for data alone; perf's samples of
#          an ACK's transmit are ack_tx): over the frames.  ack_tx and
#          ack_rx are the ACK's (tcp_send_ack, tcp_ack): over the ACKs.
#          Any other key (rx_frame: netif_receive_skb to tcp_v4_rcv's
#          socket lookup, charged for both; rx_tcp, whose functions take
#          an ACK's tcp_rcv_established too): over the frames and ACKs.
#   call   a key charged per call (cost.user and cost.recv_user): the
#          writer's CPU over its write calls a second (the run's writes
#          column, /proc/PID/io syscw), the reader's over its reads (syscr)
#
# Prints each run and the median(s), in cycles.  sendfile() profiles are
# refused (their rows' ids and calls differ).
set -eu
usage() {
	echo "key-prices.sh: $1" >&2
	echo "usage: key-prices.sh frame KEY PROFILE[,PROFILE...] MATRIX.csv GHZ" >&2
	echo "       key-prices.sh call KEY PROFILE[,PROFILE...] GHZ" >&2
	exit 2
}
[ $# -ge 1 ] || usage "want frame or call, and its arguments"
MODE=$1
shift
case $MODE in
frame) [ $# -eq 4 ] || usage "frame wants 4 arguments, got $#"; KEY=$1 PROFILES=$2 MATRIX=$3 GHZ=$4 ;;
call) [ $# -eq 3 ] || usage "call wants 3 arguments, got $#"; KEY=$1 PROFILES=$2 MATRIX="" GHZ=$3 ;;
*) usage "want frame or call, not '$MODE'" ;;
esac
[ -z "$MATRIX" ] || [ -f "$MATRIX" ] || { echo "key-prices.sh: no such matrix: $MATRIX" >&2; exit 2; }
awk -v g="$GHZ" 'BEGIN { exit !(g ~ /^[0-9]*[.]?[0-9]+$/ && g + 0 > 0) }' ||
	{ echo "key-prices.sh: GHZ must be a clock in GHz, not '$GHZ'" >&2; exit 2; }
OLDIFS=$IFS
IFS=,
set -- $PROFILES
IFS=$OLDIFS
for p; do
	[ -f "$p" ] || { echo "key-prices.sh: no such profile: $p" >&2; exit 2; }
	if sed -n '1,4p' "$p" | grep -q 'sendfile()'; then
		echo "key-prices.sh: $p profiles sendfile(); give write() profiles" >&2
		exit 2
	fi
done
awk -v mode="$MODE" -v key="$KEY" -v ghz="$GHZ" -v m="$(basename "${MATRIX:-x.csv}" .csv)" -v matrix="$MATRIX" '
function med(a, n,   i, j, x) {
	for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function skip(c, why) {
	print "key-prices.sh: " c[1] ": MTU " c[2] ", " c[3] ", rep " c[4] ": " why > "/dev/stderr"
	bad = 1
}
BEGIN {
	# the events the model charges a frame key for (the usage above)
	per = key == "tx_frame" ? "frame" : key ~ /^ack_(tx|rx)$/ ? "ACK" : "frame or ACK"
	while (mode == "frame" && (getline line < matrix) > 0) {
		n = split(line, f, "\",\"")
		gsub(/^"|"$/, "", f[1]); gsub(/"$/, "", f[n])
		if (!hdr) {
			for (i = 1; i <= n; i++) col[f[i]] = i
			hdr = 1
			if (!("throughput_mbps" in col) || !("frames_per_s" in col) || !("acks_per_s" in col)) {
				print "key-prices.sh: " matrix ": no throughput_mbps, frames_per_s or acks_per_s column" > "/dev/stderr"
				exit 2
			}
			continue
		}
		thr[f[1]] = f[col["throughput_mbps"]]
		fa[f[1]] = (per == "ACK" ? 0 : f[col["frames_per_s"]]) + (per == "frame" ? 0 : f[col["acks_per_s"]])
	}
}
# a run line of the counters: mtu size rep mbps snd% rcv% ... reads writes
$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+[KMG]?$/ && $3 ~ /^[0-9]+$/ && NF >= 8 {
	r = FILENAME SUBSEP $1 SUBSEP $2 SUBSEP $3
	mbps[r] = $4; sb[r] = $5; rb[r] = $6; rd[r] = $(NF - 1); wr[r] = $NF
}
/^# by tcpsim cost key, MTU / {
	mtu = $7; size = $8; sub(/,$/, "", mtu); sub(/,$/, "", size)
	cur = FILENAME SUBSEP mtu SUBSEP size SUBSEP $10
	next
}
cur != "" && $1 == "#" && $2 == key && NF >= 4 {
	split(cur, c, SUBSEP)
	snd = $3 / 100 * sb[cur] / 100 * ghz * 1e9
	rcv = $4 / 100 * rb[cur] / 100 * ghz * 1e9
	if (!(cur in mbps)) {
		skip(c, "no counters line")
	} else if (mode == "frame") {
		id = m "-lo-mtu" c[2] "-tso_on-gso_on-send" c[3]
		if (!(id in thr) || thr[id] <= 0 || fa[id] <= 0) {
			skip(c, "no matrix row " id)
		} else {
			v[++nv] = (snd + rcv) / (fa[id] * mbps[cur] / thr[id])
			printf "%-40s MTU %-6s %-5s rep %s  %7.0f Mbit/s  %6.0f cycles\n", c[1], c[2], c[3], c[4], mbps[cur], v[nv]
		}
	} else if (wr[cur] <= 0 || rd[cur] <= 0) {
		skip(c, "no calls in its counters line")
	} else {
		v[++nv] = snd / wr[cur]; u[nv] = rcv / rd[cur]
		printf "%-40s MTU %-6s %-5s rep %s  writer %6.0f cycles a write  reader %6.0f a read\n", c[1], c[2], c[3], c[4], v[nv], u[nv]
	}
	cur = ""
}
END {
	if (bad) exit 2
	if (nv == 0) { print "key-prices.sh: no " key " line in the profiles" > "/dev/stderr"; exit 2 }
	if (mode == "frame") {
		lo = hi = v[1]
		for (i = 2; i <= nv; i++) { if (v[i] < lo) lo = v[i]; if (v[i] > hi) hi = v[i] }
		printf "%s: median %.0f cycles %s %s over %d runs (%.0f-%.0f)\n", key, med(v, nv), per == "ACK" ? "an" : "a", per, nv, lo, hi
	} else
		printf "%s: median %.0f cycles a write, %.0f a read, over %d runs\n", key, med(v, nv), med(u, nv), nv
}' "$@"
