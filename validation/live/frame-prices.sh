#!/bin/sh
# frame-prices.sh KEY PROFILE[,PROFILE...] MATRIX.csv GHZ
#
# A cost key the model charges once per data frame and once per pure ACK
# (rx_frame: netif_receive_skb to tcp_v4_rcv's socket lookup, netdev.c),
# priced from `tools/wakeups-live --profile` runs of write() on lo: the
# key's share of each CPU's busy samples ("by tcpsim cost key") times that
# CPU's busy share times GHz, both CPUs summed, over the frames and ACKs a
# second of the matrix's row for the same MTU and write size (TSO and GSO
# on), scaled by the run's throughput over the row's.  Prints each run and
# the median, in cycles.  sendfile() profiles are refused (their rows'
# ids differ).
set -eu
[ $# -eq 4 ] || {
	echo "frame-prices.sh: want 4 arguments, got $#" >&2
	echo "usage: frame-prices.sh KEY PROFILE[,PROFILE...] MATRIX.csv GHZ" >&2
	exit 2
}
KEY=$1 PROFILES=$2 MATRIX=$3 GHZ=$4
[ -f "$MATRIX" ] || { echo "frame-prices.sh: no such matrix: $MATRIX" >&2; exit 2; }
awk -v g="$GHZ" 'BEGIN { exit !(g ~ /^[0-9]*[.]?[0-9]+$/ && g + 0 > 0) }' ||
	{ echo "frame-prices.sh: GHZ must be a clock in GHz, not '$GHZ'" >&2; exit 2; }
M=$(basename "$MATRIX" .csv)
OLDIFS=$IFS
IFS=,
set -- $PROFILES
IFS=$OLDIFS
for p; do
	[ -f "$p" ] || { echo "frame-prices.sh: no such profile: $p" >&2; exit 2; }
	if sed -n '1,4p' "$p" | grep -q 'sendfile()'; then
		echo "frame-prices.sh: $p profiles sendfile(); give write() profiles" >&2
		exit 2
	fi
done
awk -v key="$KEY" -v ghz="$GHZ" -v m="$M" -v matrix="$MATRIX" '
BEGIN {
	FS = "\",\""
	while ((getline line < matrix) > 0) {
		n = split(line, f, "\",\"")
		gsub(/^"|"$/, "", f[1]); gsub(/"$/, "", f[n])
		if (!hdr) {
			for (i = 1; i <= n; i++) col[f[i]] = i
			hdr = 1
			if (!("throughput_mbps" in col) || !("frames_per_s" in col) || !("acks_per_s" in col)) {
				print "frame-prices.sh: " matrix ": no throughput_mbps, frames_per_s or acks_per_s column" > "/dev/stderr"
				exit 2
			}
			continue
		}
		thr[f[1]] = f[col["throughput_mbps"]]
		fa[f[1]] = f[col["frames_per_s"]] + f[col["acks_per_s"]]
	}
	FS = " "
}
FNR == 1 { file = FILENAME }
# a run line of the counters: mtu size rep mbps snd% rcv% ...
$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+K$/ && $3 ~ /^[0-9]+$/ && NF >= 6 {
	r = file SUBSEP $1 SUBSEP $2 SUBSEP $3
	mbps[r] = $4; sb[r] = $5; rb[r] = $6
}
/^# by tcpsim cost key, MTU / {
	mtu = $7; size = $8; sub(/,$/, "", mtu); sub(/,$/, "", size)
	cur = file SUBSEP mtu SUBSEP size SUBSEP $10
	next
}
cur != "" && $1 == "#" && $2 == key && NF >= 4 {
	split(cur, c, SUBSEP)
	r = c[1] SUBSEP c[2] SUBSEP c[3] SUBSEP c[4]
	id = m "-lo-mtu" c[2] "-tso_on-gso_on-send" c[3]
	if (!(r in mbps) || !(id in thr) || thr[id] <= 0 || fa[id] <= 0) {
		print "frame-prices.sh: " c[1] ": MTU " c[2] ", " c[3] ", rep " c[4] ": no counters line or no matrix row " id > "/dev/stderr"
		bad = 1
		cur = ""
		next
	}
	cyc = ($3 / 100 * sb[r] / 100 + $4 / 100 * rb[r] / 100) * ghz * 1e9
	per = cyc / (fa[id] * mbps[r] / thr[id])
	printf "%-40s MTU %-6s %-5s rep %s  %7.0f Mbit/s  %6.0f cycles\n", c[1], c[2], c[3], c[4], mbps[r], per
	v[++nv] = per
	cur = ""
}
END {
	if (bad) exit 2
	if (nv == 0) { print "frame-prices.sh: no " key " line in the profiles" > "/dev/stderr"; exit 2 }
	for (i = 2; i <= nv; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
	med = nv % 2 ? v[(nv + 1) / 2] : (v[nv / 2] + v[nv / 2 + 1]) / 2
	printf "%s: median %.0f cycles a frame or ACK over %d runs (%.0f-%.0f)\n", key, med, nv, v[1], v[nv]
}' "$@"
