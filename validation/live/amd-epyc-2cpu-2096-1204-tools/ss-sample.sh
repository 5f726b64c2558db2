#!/bin/sh
# ss-sample.sh MTU SIZE REPS [DURATION [RAWDIR]]: the sender's window and both
# sockets' buffers on this machine.  iperf3 over lo in a namespace of its own
# (cubic set on the namespace and its local routes, as tools/measure-live
# does: no other algorithm initialises the socket), client on CPU 0, server
# on CPU 1, -l SIZE, DURATION s (default 6); `ss -tinmH` of both sockets
# every 0.5 s (kept in RAWDIR/MTU-SIZE-REP.ss with the run's Mbit/s as its
# first line, if given).  Prints a row per run from the run's middle
# sample: Mbit/s, the sender's cwnd, ssthresh ("-": still in slow start) and
# send buffer (skmem tb), the receiver's buffer (rb), rcv_ssthresh and the
# bytes it held unread (skmem r).  Root, iperf3 (make live installs it).
#
# ss-sample.sh --parse FILE.ss MTU SIZE REP: the same row from a kept file.
set -eu

row() { # FILE MTU SIZE REP: the middle sample's row (the first line is the Mbit/s)
	awk -v mtu="$2" -v l="$3" -v r="$4" '
		NR == 1 { mbps = $1; next }
		/^== / { n++; cur = n; next }
		{ line[cur] = line[cur] "\n" $0 }
		function f(s, k,   v) { if (match(s, k "[0-9]+")) return substr(s, RSTART + length(k), RLENGTH - length(k)); return "-" }
		END {
			m = int((n + 1) / 2); k = split(line[m], ls, "\n")
			for (i = 1; i <= k; i++) {
				s = ls[i]; sent = f(s, "bytes_sent:") + 0; rcvd = f(s, "bytes_received:") + 0
				if (sent > bs) { bs = sent; snd = s }
				if (rcvd > br) { br = rcvd; rcv = s }
			}
			# the sender line carries its own rcv_ssthresh: ssthresh is the
			# one not preceded by "rcv_"
			t = snd; gsub(/rcv_ssthresh:[0-9]+/, "", t)
			printf "%-6s %-5s %3s %8s %5s %8s %8s %8s %12s %8s\n", mtu, l, r, mbps, f(snd, "cwnd:"), f(t, "ssthresh:"),
				f(snd, ",tb"), f(rcv, ",rb"), f(rcv, "rcv_ssthresh:"), f(rcv, "skmem:.r")
		}' "$1"
}
header() { printf '%-6s %-5s %3s %8s %5s %8s %8s %8s %12s %8s\n' mtu size rep mbps cwnd ssthresh snd_tb rcv_rb rcv_ssthresh rcv_r; }

if [ "${1:-}" = --parse ]; then
	[ $# -eq 5 ] || { echo "ss-sample.sh: --parse wants FILE.ss MTU SIZE REP" >&2; exit 2; }
	[ -r "$2" ] || { echo "ss-sample.sh: cannot read $2" >&2; exit 2; }
	header
	row "$2" "$3" "$4" "$5"
	exit 0
fi
[ $# -ge 3 ] || { echo "ss-sample.sh: want MTU SIZE REPS [DURATION [RAWDIR]] (or --parse FILE.ss MTU SIZE REP)" >&2; exit 2; }
MTU=$1 L=$2 REPS=$3 DUR=${4:-6} RAW=${5:-}
command -v iperf3 >/dev/null || { echo "ss-sample.sh: no iperf3 (make live installs it)" >&2; exit 2; }
allowed=$(cat /proc/sys/net/ipv4/tcp_allowed_congestion_control)
T=$(mktemp -d)
N=sss$$
cleanup() { ip netns del $N 2>/dev/null || true; echo "$allowed" >/proc/sys/net/ipv4/tcp_allowed_congestion_control; rm -rf "$T"; }
trap cleanup EXIT INT TERM
case " $allowed " in *" cubic "*) ;; *) echo "$allowed cubic" >/proc/sys/net/ipv4/tcp_allowed_congestion_control ;; esac
header
r=1
while [ "$r" -le "$REPS" ]; do
	ip netns add $N
	ip netns exec $N ip link set lo up mtu "$MTU"
	ip netns exec $N sysctl -qw net.ipv4.tcp_congestion_control=cubic
	for d in 127.0.0.0/8 127.0.0.1; do
		ip netns exec $N ip route replace local $d dev lo table local proto kernel scope host src 127.0.0.1 congctl cubic
	done
	ip netns exec $N taskset -c 1 iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
	sleep 0.5
	ip netns exec $N taskset -c 0 iperf3 -c 127.0.0.1 -p 5201 -l "$L" -t "$DUR" -J >"$T/run.json" 2>&1 &
	c=$!
	i=0
	while [ $i -lt $((DUR * 2)) ]; do
		sleep 0.5
		echo "== $i"
		ip netns exec $N ss -tinmH state established '( sport = :5201 or dport = :5201 )'
		i=$((i + 1))
	done >"$T/ss.txt"
	wait $c
	python3 -c 'import json,sys; print("%.0f" % (json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"] / 1e6))' "$T/run.json" >"$T/run.ss"
	cat "$T/ss.txt" >>"$T/run.ss"
	[ -n "$RAW" ] && cp "$T/run.ss" "$RAW/$MTU-$L-$r.ss"
	row "$T/run.ss" "$MTU" "$L" "$r"
	ip netns del $N
	r=$((r + 1))
done
