#!/bin/sh
# keys-side-by-side.sh PROFILE_OUTPUT MTU SIZE REP SCENARIO [-s KEY=VALUE ...]
#
# One run of `tools/wakeups-live --profile` beside the model's run of the
# same row, cost key by cost key, in cycles a write on each CPU: the
# machine's key share of a CPU's busy samples ("by tcpsim cost key, MTU
# MTU, SIZE, rep REP") times that CPU's busy share (the run's snd% and
# rcv%) times the clock (the profile's cpu MHz is not in the file: GHZ,
# default 2.596) over the run's writes a second; the model's from `tcpsim
# run SCENARIO -s link.mtu=MTU -s app.send_size=SIZE -s app.recv_size=SIZE
# --folded F --folded-cpus` (cpu0 the writer's, cpu1 the reader's, as
# measure-live pins them), each key's cycles over its measured seconds and
# writes.  A key one side has and the other lacks reads 0 there: perf counts
# a read's entry and its fragment walk in syscall, the model in
# recv_syscall and recv_copy_piece; the model's nohz_exit is time /proc/stat
# counts as neither busy nor idle.  Prints the TOTAL of each column too.
#
#   GHZ=2.596 sh validation/live/keys-side-by-side.sh \
#     validation/live/amd-epyc-2cpu-2596-1207b.profile-lock.txt 1500 4K 1 \
#     scenarios/live/amd-epyc-2cpu-2596-1207b-lo-fitted.cfg
set -eu
[ $# -ge 5 ] || {
	echo "keys-side-by-side.sh: want PROFILE_OUTPUT MTU SIZE REP SCENARIO, got $# arguments" >&2
	echo "usage: keys-side-by-side.sh PROFILE_OUTPUT MTU SIZE REP SCENARIO [-s KEY=VALUE ...]" >&2
	exit 2
}
P=$1 MTU=$2 SIZE=$3 REP=$4 SC=$5
shift 5
GHZ=${GHZ:-2.596}
[ -f "$P" ] || { echo "keys-side-by-side.sh: no profile output $P" >&2; exit 2; }
[ -f "$SC" ] || { echo "keys-side-by-side.sh: no scenario $SC" >&2; exit 2; }
TCPSIM=${TCPSIM:-./tcpsim}
[ -x "$TCPSIM" ] || { echo "keys-side-by-side.sh: build tcpsim first (make)" >&2; exit 2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM

# the run's line of the table: mtu size rep mbps snd% rcv% ... writes (the last column)
RUN=$(awk -v m="$MTU" -v s="$SIZE" -v r="$REP" '$1 == m && $2 == s && $3 == r && NF > 10 { print $5, $6, $NF; exit }' "$P")
[ -n "$RUN" ] || { echo "keys-side-by-side.sh: $P has no run MTU $MTU, $SIZE, rep $REP" >&2; exit 2; }
HDR="MTU $MTU, $SIZE, rep $REP"
grep -q "^# by tcpsim cost key, $HDR (" "$P" || { echo "keys-side-by-side.sh: $P has no cost-key table for $HDR (tools/wakeups-live --profile)" >&2; exit 2; }

"$TCPSIM" run "$SC" -s link.mtu="$MTU" -s app.send_size="$SIZE" -s app.recv_size="$SIZE" "$@" \
	--folded "$T/f.txt" --folded-cpus >"$T/run.txt" || { echo "keys-side-by-side.sh: tcpsim run failed" >&2; exit 1; }
# the netperf table's row: ... Message Size, Elapsed Time, Throughput
MODEL=$(awk '/^ *[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+ / { print $3, $4, $5; exit }' "$T/run.txt")
[ -n "$MODEL" ] || { echo "keys-side-by-side.sh: no result line in tcpsim's report" >&2; exit 1; }

set -- $RUN
SB=$1 RB=$2 W=$3
set -- $MODEL
MSIZE=$1 MSEC=$2 MMBPS=$3
echo "# $P, $HDR: the machine's writer $SB% busy, reader $RB%, $W writes a second"
echo "# $SC at MTU $MTU, $SIZE: $MMBPS Mbit/s over $MSEC s; cycles a write, cpu0 the writer's and cpu1 the reader's"
awk -v hdr="$HDR" -v sb="$SB" -v rb="$RB" -v w="$W" -v ghz="$GHZ" -v msec="$MSEC" \
	-v mmbps="$MMBPS" -v msize="$MSIZE" '
BEGIN { mw = mmbps * 1e6 / 8 / msize } # writes a second in the model run
FNR == NR { n = split($1, a, ";"); m[a[2], a[n]] += $2; keys[a[n]] = 1; next }
index($0, "# by tcpsim cost key, " hdr " (") == 1 { on = 1; next }
on && /^#   cost key/ { next }
on && /^#   [a-z_]+ +[0-9.]+ +[0-9.]+ *$/ { s[$2] = $3; r[$2] = $4; keys[$2] = 1; next }
on { on = 0 }
END {
	printf "%-16s %10s %10s   %10s %10s\n", "key", "writer", "model", "reader", "model"
	for (k in keys) {
		ms = s[k] / 100 * sb / 100 * ghz * 1e9 / w; mr = r[k] / 100 * rb / 100 * ghz * 1e9 / w
		ps = m["cpu0", k] / msec / mw; pr = m["cpu1", k] / msec / mw
		ts += ms; tr += mr; tps += ps; tpr += pr
		if (ms + mr + ps + pr >= 0.5)
			printf "%-16s %10.0f %10.0f   %10.0f %10.0f\n", k, ms, ps, mr, pr | "sort"
	}
	close("sort")
	printf "%-16s %10.0f %10.0f   %10.0f %10.0f\n", "TOTAL", ts, tps, tr, tpr
}' "$T/f.txt" "$P"
