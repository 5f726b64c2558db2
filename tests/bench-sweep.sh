#!/bin/sh
# bench-sweep.sh [TCPSIM]: sweep throughput (points/s) and peak memory.
#
# Runs the same tiny scenario (2 ms simulated per point, so the engine,
# the CSV path and the simulator's set-up dominate) over 10,000 and
# 100,000 points with every core, and prints points/s and the peak
# resident set size of each.  The sweep streams, so the peak must stay
# about flat from 10k to 100k points: the script fails (status 1) if the
# 100k peak exceeds the 10k peak by more than 16 MB.
#
# Then the loopback LKP scenario (scenarios/loopback-64k.cfg, 8 instances)
# over 256 points (16 MTUs x 16 send sizes, 0.5 simulated s each, no early
# stop) at -j 2, as on a 2-core desktop, with its peak RSS: the sweep a
# user waits for.
#
# Peak memory comes from GNU time (/usr/bin/time -v, or `command time -v`);
# without it the line says so and only the rate is printed.
# POINTS_SMALL and POINTS_LARGE (axis sizes as A*B) can be overridden.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TCPSIM=${1:-"$HERE/../tcpsim"}
[ -x "$TCPSIM" ] || { echo "bench-sweep: no binary $TCPSIM (make)" >&2; exit 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tcpsim-bench-sweep.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
CFG="$HERE/data/sweep/fast.cfg"
JOBS=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)

# GNU time, if any
if [ -x /usr/bin/time ] && /usr/bin/time -v true >/dev/null 2>&1; then
	TIMEV="/usr/bin/time -v"
elif command time -v true >/dev/null 2>&1; then
	TIMEV="command time -v"
else
	TIMEV=""
fi

now() { date +%s.%N; }

# sweep NAME POINTS JOBS CFG ARGS...: time one sweep of POINTS points; sets
# peak_kb
sweep() {
	name=$1 points=$2 jobs=$3 cfg=$4
	shift 4
	rm -f "$TMP/b.csv" "$TMP/b.csv.cfg"
	t0=$(now)
	$TIMEV "$TCPSIM" sweep "$cfg" "$@" -o "$TMP/b.csv" -j "$jobs" 2>"$TMP/time.err"
	st=$?
	t1=$(now)
	if [ $st -ne 0 ]; then
		echo "bench-sweep: $name failed (exit $st): $(grep -v '^\s' "$TMP/time.err" | head -3)" >&2
		exit 1
	fi
	rows=$(($(wc -l <"$TMP/b.csv") - 1))
	[ "$rows" -eq "$points" ] || { echo "bench-sweep: $name wrote $rows rows, want $points" >&2; exit 1; }
	peak_kb=$(sed -n 's/.*Maximum resident set size (kbytes): *//p' "$TMP/time.err")
	awk -v n="$points" -v t0="$t0" -v t1="$t1" -v j="$jobs" -v kb="${peak_kb:-}" -v name="$name" 'BEGIN {
		s = t1 - t0
		mem = kb != "" ? sprintf("peak RSS %.1f MB", kb / 1024) : "peak RSS unknown (no GNU time)"
		printf "sweep %-6s %7d points in %6.2f s = %8.0f points/s (-j %d), %s\n", name, n, s, n / s, j, mem
	}'
}

# bench NAME A B: the tiny scenario over A send sizes x B MTUs, every core
bench() {
	sweep "$1" $(($2 * $3)) "$JOBS" "$CFG" -s run.duration=2ms -s run.batch=1ms -s run.min_batches=2 \
		-s run.warmup=0 --vary "app.send_size=1K:${2}K:1K" --vary "link.mtu=1500:$((1500 + $3 - 1)):1"
}

bench 10k 100 100
small=${peak_kb:-}
bench 100k 1000 100
large=${peak_kb:-}
if [ -n "$small" ] && [ -n "$large" ]; then
	growth=$((large - small))
	echo "sweep memory: 10x the points, $((growth / 1024)) MB more at peak (axis values only; rows stream)"
	[ "$growth" -le 16384 ] || { echo "bench-sweep: memory grows with the points" >&2; exit 1; }
fi
sweep lkp256 256 2 "$HERE/../scenarios/loopback-64k.cfg" -s run.warmup=0.1s -s run.duration=0.4s \
	-s run.batch=10ms -s run.ci_target=0 --vary "link.mtu=4096:65536:4096" --vary "app.send_size=1K:16K:1K"
