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

# bench NAME A B: a sweep of A send sizes x B MTUs; sets peak_kb
bench() {
	name=$1 a=$2 b=$3
	points=$((a * b))
	rm -f "$TMP/b.csv" "$TMP/b.csv.cfg"
	t0=$(now)
	$TIMEV "$TCPSIM" sweep "$CFG" -s run.duration=2ms -s run.batch=1ms -s run.min_batches=2 \
		-s run.warmup=0 --vary "app.send_size=1K:${a}K:1K" --vary "link.mtu=1500:$((1500 + b - 1)):1" \
		-o "$TMP/b.csv" -j "$JOBS" 2>"$TMP/time.err"
	st=$?
	t1=$(now)
	if [ $st -ne 0 ]; then
		echo "bench-sweep: $name failed (exit $st): $(grep -v '^\s' "$TMP/time.err" | head -3)" >&2
		exit 1
	fi
	rows=$(($(wc -l <"$TMP/b.csv") - 1))
	[ "$rows" -eq "$points" ] || { echo "bench-sweep: $name wrote $rows rows, want $points" >&2; exit 1; }
	peak_kb=$(sed -n 's/.*Maximum resident set size (kbytes): *//p' "$TMP/time.err")
	awk -v n="$points" -v t0="$t0" -v t1="$t1" -v j="$JOBS" -v kb="${peak_kb:-}" -v name="$name" 'BEGIN {
		s = t1 - t0
		mem = kb != "" ? sprintf("peak RSS %.1f MB", kb / 1024) : "peak RSS unknown (no GNU time)"
		printf "sweep %-5s %7d points in %6.2f s = %8.0f points/s (-j %d), %s\n", name, n, s, n / s, j, mem
	}'
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
