#!/bin/sh
# call-prices.sh KEY PROFILE[,PROFILE...] GHZ
#
# A cost key priced per call from `tools/wakeups-live --profile` runs: the
# key's share of the writer's CPU's busy samples ("by tcpsim cost key")
# times its busy share times GHz over the writer's calls a second (the
# run's writes column, /proc/PID/io syscw), and the same of the reader's
# CPU over its read calls (reads, syscr).  Prints each run and the medians
# of both sides, in cycles a call (the model's cost.user and
# cost.recv_user are priced so).
set -eu
[ $# -eq 3 ] || {
	echo "call-prices.sh: want 3 arguments, got $#" >&2
	echo "usage: call-prices.sh KEY PROFILE[,PROFILE...] GHZ" >&2
	exit 2
}
KEY=$1 PROFILES=$2 GHZ=$3
awk -v g="$GHZ" 'BEGIN { exit !(g ~ /^[0-9]*[.]?[0-9]+$/ && g + 0 > 0) }' ||
	{ echo "call-prices.sh: GHZ must be a clock in GHz, not '$GHZ'" >&2; exit 2; }
OLDIFS=$IFS
IFS=,
set -- $PROFILES
IFS=$OLDIFS
for p; do
	[ -f "$p" ] || { echo "call-prices.sh: no such profile: $p" >&2; exit 2; }
done
awk -v key="$KEY" -v ghz="$GHZ" '
function med(a, n,   i, j, x) {
	for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# a run line of the counters: mtu size rep mbps snd% rcv% ... reads writes
$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+[KMG]?$/ && $3 ~ /^[0-9]+$/ && NF >= 8 {
	r = FILENAME SUBSEP $1 SUBSEP $2 SUBSEP $3
	sb[r] = $5; rb[r] = $6; rd[r] = $(NF - 1); wr[r] = $NF
}
/^# by tcpsim cost key, MTU / {
	m = $7; s = $8; sub(/,$/, "", m); sub(/,$/, "", s)
	cur = FILENAME SUBSEP m SUBSEP s SUBSEP $10
	next
}
cur != "" && $1 == "#" && $2 == key && NF >= 4 {
	split(cur, c, SUBSEP)
	if (!(cur in sb) || wr[cur] <= 0 || rd[cur] <= 0) {
		print "call-prices.sh: " c[1] ": MTU " c[2] ", " c[3] ", rep " c[4] ": no counters line with calls" > "/dev/stderr"
		bad = 1
		cur = ""
		next
	}
	w = $3 / 100 * sb[cur] / 100 * ghz * 1e9 / wr[cur]
	x = $4 / 100 * rb[cur] / 100 * ghz * 1e9 / rd[cur]
	printf "%-40s MTU %-6s %-5s rep %s  writer %6.0f cycles a write  reader %6.0f a read\n", c[1], c[2], c[3], c[4], w, x
	wv[++n] = w; rv[n] = x
	cur = ""
}
END {
	if (bad) exit 2
	if (n == 0) { print "call-prices.sh: no " key " line in the profiles" > "/dev/stderr"; exit 2 }
	printf "%s: median %.0f cycles a write, %.0f a read, over %d runs\n", key, med(wv, n), med(rv, n), n
}' "$@"
