#!/bin/sh
# bench.sh DIR: throughput of the engine, then of the whole model.
#
#   1. DIR/tests/bench_engine: the event queue alone under the hold model,
#      next to the first binary heap ("ref") in the same process; see
#      tests/bench_engine.c.  Its absence or failure fails this script.
#   2. ./tcpsim scenarios/loopback-64k.cfg --format json, timed with the wall
#      clock around the call; the JSON's "events", "measured_s" and
#      "warmup_s" give events per wall second and simulated seconds per wall
#      second.  If tcpsim or the scenario is missing, or the run fails, this
#      part says so and is skipped; it never fails the script.
#
# Runs from the repository root.  The machines are shared: compare ratios
# from one run, not absolute rates from different runs.
set -u

if [ $# -ne 1 ]; then
	echo "usage: sh tests/bench.sh BUILD_DIR   (e.g. build/rel)" >&2
	exit 2
fi
dir=$1
case $dir in /*) ;; *) dir=$(pwd)/$dir ;; esac
cd "$(dirname "$0")/.." || exit 1

status=0
echo "== engine: $1/tests/bench_engine"
if [ -x "$dir/tests/bench_engine" ]; then
	"$dir/tests/bench_engine" || { echo "bench: bench_engine failed"; status=1; }
else
	echo "bench: no $1/tests/bench_engine (make $1/tests/bench_engine)"
	status=1
fi

# First value of KEY anywhere in the JSON file (jq if present, else sed).
json_num() {
	if command -v jq >/dev/null 2>&1; then
		jq -r --arg k "$1" 'first(.. | objects | select(has($k)) | .[$k]) // empty' "$2" 2>/dev/null
	else
		tr -d '\n' <"$2" | grep -o "\"$1\"[[:space:]]*:[[:space:]]*[-+0-9.eE]*" | head -n 1 |
			sed 's/.*:[[:space:]]*//'
	fi
}

cfg=scenarios/loopback-64k.cfg
echo "== model: ./tcpsim $cfg --format json"
if [ ! -x ./tcpsim ]; then
	echo "model: ./tcpsim not built (make tcpsim); skipped"
elif [ ! -f "$cfg" ]; then
	echo "model: no $cfg; skipped"
else
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench.XXXXXX") || exit 1
	trap 'rm -rf "$tmp"' EXIT
	t0=$(date +%s.%N)
	./tcpsim "$cfg" --format json >"$tmp/out.json" 2>"$tmp/err"
	rc=$?
	t1=$(date +%s.%N)
	events=$(json_num events "$tmp/out.json")
	measured=$(json_num measured_s "$tmp/out.json")
	warmup=$(json_num warmup_s "$tmp/out.json")
	if [ $rc -ne 0 ]; then
		echo "model: tcpsim exited $rc: $(head -n 1 "$tmp/err"); skipped"
	elif [ -z "$events" ] || [ -z "$measured" ] || [ -z "$warmup" ]; then
		echo "model: no \"events\", \"measured_s\" or \"warmup_s\" in tcpsim's JSON; skipped"
	else
		awk -v t0="$t0" -v t1="$t1" -v ev="$events" -v ms="$measured" -v wu="$warmup" 'BEGIN {
			wall = t1 - t0
			if (wall <= 0) wall = 1e-9
			printf "model: %.0f events in %.3f s wall: %.2f Mev/s\n", ev, wall, ev / wall / 1e6
			printf "model: %.3f s simulated (%.3f warm-up + %.3f measured): %.3f simulated s per wall s\n",
			       ms + wu, wu, ms, (ms + wu) / wall
		}'
	fi
fi
exit $status
