#!/bin/sh
# toward.sh MACHINE FITTED.cfg T KEY=V...: every loopback row of MACHINE
# predicted (tcpsim validate, no fit) with FITTED.cfg's prices, each KEY
# moved the fraction T of the way to V in log (T 0: FITTED.cfg's price, 1:
# V), and that report's training rows as the fit weighs them (loss.sh).
# The line from a fit to perf's prices ("The fit started from perf's
# prices" in validation/live/README.md), e.g. from the reference host's fit
# before that change:
#   git show f8fb86e:validation/live/amd-epyc-2cpu-2096-1204.fitted.cfg >old.cfg
#   sh validation/live/amd-epyc-2cpu-2096-1204-tools/toward.sh amd-epyc-2cpu-2096-1204 \
#       old.cfg 0.75 tx_frame=1850 rx_frame=1380 rx_tcp=1751 ack_tx=773 ack_rx=894
# The report goes to $OUT (default toward-MACHINE-T.txt).  Run from the
# checkout's top after make.
set -eu
[ $# -ge 3 ] || { echo "toward.sh: want MACHINE FITTED.cfg T KEY=V..." >&2; exit 2; }
M=$1 FITTED=$2 T=$3
shift 3
[ -r "$FITTED" ] || { echo "toward.sh: cannot read $FITTED" >&2; exit 2; }
[ -r "validation/live/$M.csv" ] || { echo "toward.sh: no validation/live/$M.csv" >&2; exit 2; }
OUT=${OUT:-toward-$M-$T.txt}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT INT TERM
tools/bin/runs-filter "validation/live/$M.csv" --scenario "scenarios/live/$M-lo.cfg" -o "$D/lo.csv"
{
	cat validation/live/validate-run.cfg
	echo
	cat "$FITTED"
	echo
	echo "[cost]"
	for kv in "$@"; do
		k=${kv%%=*} v=${kv#*=}
		from=$(awk -v k="$k" '/^\[/ { c = ($0 == "[cost]") } c && $1 == k && $2 == "=" { print $3 }' "$FITTED" | tail -1)
		[ -n "$from" ] || { echo "toward.sh: $FITTED has no [cost] $k" >&2; exit 2; }
		awk -v k="$k" -v a="$from" -v b="$v" -v t="$T" 'BEGIN { printf "%s = %.6g\n", k, exp((1 - t) * log(a) + t * log(b)) }'
	done
} >"$D/pred.cfg"
tail -n "$#" "$D/pred.cfg" # the moved prices
./tcpsim validate "$D/lo.csv" --reps "validation/live/$M.reps.csv" --profile "$D/pred.cfg" -o "$OUT" >/dev/null
sh "$(dirname "$0")/loss.sh" "$OUT"
