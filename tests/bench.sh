#!/bin/sh
# bench.sh DIR: tcpsim's speed beside ns-3's on the same wire work, the
# loopback LKP scenario at scale, and the event queue alone (docs/bench.md
# says how to read what it prints).
#
#   1. engine: DIR/tests/bench_engine (the hold model, tests/bench_engine.c),
#      the median of its rounds.
#   2. wire: bench/*.cfg, one bulk flow over a NIC pair for 1 simulated
#      second (10G/1500 with 4 MB and with 128 KB buffers, 10G/9000,
#      40G/65535, 100G/1500), each run by tcpsim, by the old tcpsim and by
#      DIR/bench/ns3-bulk (bench/ns3-bulk.cc) on the same link, 3 runs of
#      each interleaved (tcpsim, old, ns-3, tcpsim, ...), medians printed
#      (ns-3's long runs once).
#   3. lkp: scenarios/loopback-64k.cfg on 128 CPUs with 8, 64 and 256
#      instances, 0.1 s warm-up + 0.9 s measured, no early stop, the same
#      interleaving.
#   4. goals: each figure the speed work must reach, PASS or MISS with the
#      measured value (SKIP when a column it needs is missing).
#
# Every run is a whole process timed by DIR/bench/rusage (wall clock, CPU
# and peak RSS from wait4); figures are per simulated second.  The
# environment chooses:
#   TCPSIM      the binary measured (default ./tcpsim)
#   TCPSIM_OLD  the old-vs-new column: a tcpsim binary, or a git revision
#               built once into build/rev-SHA/ (default 0d60f55, the tree
#               before the speed work); empty: no such column
#   NS3_BULK    the ns-3 program (default DIR/bench/ns3-bulk); empty or
#               missing: the ns-3 column is skipped, saying so
#   BENCH_REPS  runs of each (default 3); ns-3 runs once where its first
#               run took more than BENCH_NS3_LONG wall seconds (default 20:
#               10G/1500 with 4 MB buffers takes ns-3 some 2 minutes of CPU)
#   BENCH_QUICK 1: a dry run that times nothing worth reading (0.01
#               simulated s per run, 1 run each unless BENCH_REPS says, a
#               short engine run), for make check to run the script itself
#
# Runs from the repository root.  Exit status 1 if the engine benchmark or
# a run of TCPSIM fails (the old binary's and ns-3's failures are reported
# in their columns), 2 on bad usage.  A goal's MISS is a measurement, not
# a failure.  The machines are shared: read ratios from one run.
set -u

if [ $# -ne 1 ]; then
	echo "usage: sh tests/bench.sh BUILD_DIR   (e.g. build/rel)" >&2
	exit 2
fi
arg=$1
dir=$1
case $dir in /*) ;; *) dir=$(pwd)/$dir ;; esac
cd "$(dirname "$0")/.." || exit 1
top=$(pwd)

abspath() { case $1 in /*) echo "$1" ;; *) echo "$top/${1#./}" ;; esac; }

quick=${BENCH_QUICK:-0}
if [ "$quick" = 1 ]; then reps=${BENCH_REPS:-1}; else reps=${BENCH_REPS:-3}; fi
case $reps in '' | *[!0-9]* | 0) echo "bench: BENCH_REPS must be a positive integer, not '$reps'" >&2; exit 2 ;; esac
tcpsim=$(abspath "${TCPSIM:-./tcpsim}")
rusage=$dir/bench/rusage
ns3=${NS3_BULK-$dir/bench/ns3-bulk}
ns3_long=${BENCH_NS3_LONG:-20}
old=${TCPSIM_OLD-0d60f55}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
status=0

if [ ! -x "$rusage" ]; then
	echo "bench: no $rusage (make $arg/bench/rusage)" >&2
	exit 1
fi
if [ ! -x "$tcpsim" ]; then
	echo "bench: no tcpsim binary $tcpsim (make tcpsim)" >&2
	exit 1
fi

# tsq_off BIN: TCP Small Queues out of the way for a tcpsim that models it
# (bench/common.cfg says why); nothing for one that has no such key
tsq_off() { "$1" --help-config 2>/dev/null | grep -q 'limit_output_bytes' && echo "-s tcp.limit_output_bytes=1G"; }

# ---- the columns: ns-3, the old binary ----
if [ -z "$ns3" ]; then
	echo "ns-3: NS3_BULK is empty; the ns-3 column is skipped"
elif [ ! -x "$ns3" ]; then
	echo "ns-3: no program $ns3 (make bench installs libns3-dev and builds it:" \
		"sh tools/install-deps.sh bench); the ns-3 column is skipped"
	ns3=""
else
	ns3=$(abspath "$ns3")
fi

# old_from_git REV: build the tree at REV once into build/rev-SHA/, set old
old_from_git() {
	sha=$(git rev-parse --short=12 "$1^{commit}")
	odir=$top/build/rev-$sha
	if [ ! -x "$odir/tcpsim" ]; then
		echo "old: building tcpsim at $sha into build/rev-$sha/ (once)"
		rm -rf "$odir" && mkdir -p "$odir" &&
			git archive "$sha" | tar -x -C "$odir" &&
			env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$odir" -j2 tcpsim >"$odir/build.log" 2>&1 ||
			{ echo "old: the build at $sha failed ($odir/build.log); the old column is skipped"; old=""; return; }
	fi
	old=$odir/tcpsim
	old_name=$sha
}
old_name=""
if [ -z "$old" ]; then
	:
elif [ -f "$old" ] && [ -x "$old" ]; then
	old=$(abspath "$old")
	old_name=$old
elif git rev-parse --verify -q "$old^{commit}" >/dev/null 2>&1; then
	old_from_git "$old"
else
	echo "old: TCPSIM_OLD='$old' is neither a program nor a git revision here; the old column is skipped"
	old=""
fi
[ -n "$old" ] && echo "old: the old column is $old_name"

# ---- 1. the engine ----
engine_mevs=""
echo "== engine: $arg/tests/bench_engine"
if [ -x "$dir/tests/bench_engine" ]; then
	if [ "$quick" = 1 ]; then set -- 0.03; else set --; fi
	if "$dir/tests/bench_engine" "$@" >"$tmp/engine"; then
		cat "$tmp/engine"
		engine_mevs=$(awk '$1 == "hold" && $2 == "N=1000" && $3 == "evq" { print $4; exit }' "$tmp/engine")
	else
		echo "bench: bench_engine failed"
		status=1
	fi
else
	echo "bench: no $arg/tests/bench_engine (make $arg/tests/bench_engine)"
	status=1
fi

# First number after "KEY": in tcpsim's JSON.
json_num() {
	tr -d '\n' <"$2" | grep -o "\"$1\"[[:space:]]*:[[:space:]]*[-+0-9.eE]*" | head -n 1 | sed 's/.*:[[:space:]]*//'
}

# measure GROUP WORK TOOL CMD...: run CMD once under rusage and append
# "GROUP WORK TOOL wall cpu events sim_s mbps rss_kb" to $tmp/rows, or
# "GROUP WORK TOOL failed" with the reason on stdout.
measure() {
	group=$1 work=$2 tool=$3
	shift 3
	"$rusage" "$tmp/ru" "$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ $st -ne 0 ]; then
		echo "bench: $tool on $work exited $st: $(head -n 1 "$tmp/err")"
		echo "$group $work $tool failed" >>"$tmp/rows"
		[ "$tool" = tcpsim ] && status=1
		return
	fi
	wall=$(sed -n 's/.*wall_s=\([0-9.]*\).*/\1/p' "$tmp/ru")
	cpu=$(sed -n 's/.*cpu_s=\([0-9.]*\).*/\1/p' "$tmp/ru")
	rss=$(sed -n 's/.*maxrss_kb=\([0-9]*\).*/\1/p' "$tmp/ru")
	if [ "$tool" = ns-3 ]; then
		events=$(sed -n 's/^events=//p' "$tmp/out")
		sim=$(sed -n 's/^simulated_s=//p' "$tmp/out")
		mbps=$(sed -n 's/^goodput_mbps=//p' "$tmp/out")
	else
		events=$(json_num events "$tmp/out")
		ms=$(json_num measured_s "$tmp/out")
		wu=$(json_num warmup_s "$tmp/out")
		sim=""
		[ -n "$ms" ] && [ -n "$wu" ] && sim=$(awk -v a="$ms" -v b="$wu" 'BEGIN { printf "%.9g", a + b }')
		mbps=$(json_num throughput_total_mbps "$tmp/out")
	fi
	if [ -z "$wall" ] || [ -z "$cpu" ] || [ -z "$events" ] || [ -z "$sim" ] || [ -z "$mbps" ]; then
		echo "bench: $tool on $work printed no events, simulated seconds or goodput"
		echo "$group $work $tool failed" >>"$tmp/rows"
		[ "$tool" = tcpsim ] && status=1
		return
	fi
	echo "$group $work $tool $wall $cpu $events $sim $mbps ${rss:-0}" >>"$tmp/rows"
}

# ---- 2. the wire works ----
# name, scenario, ns-3 arguments, ns-3 simulated seconds (100G: ns-3 needs
# some 5 minutes per simulated second here, so it runs 0.02 s, scaled)
works="10G/1500-4MB:10g-1500-4m:--rate=10Gbps,--mtu=1500,--buf=4194304:1
10G/1500-128KB:10g-1500-128k:--rate=10Gbps,--mtu=1500,--buf=131072:1
10G/9000:10g-9000:--rate=10Gbps,--mtu=9000,--buf=4194304:1
40G/65535:40g-65535:--rate=40Gbps,--mtu=65535,--buf=4194304:1
100G/1500:100g-1500:--rate=100Gbps,--mtu=1500,--buf=4194304:0.02"
if [ "$quick" = 1 ]; then
	sim_args="-s run.duration=10ms -s run.batch=1ms"
else
	sim_args=""
fi

echo "== wire: bench/*.cfg, $reps interleaved run(s) each"
: >"$tmp/rows"
: >"$tmp/ns3once"
for w in $works; do
	name=${w%%:*}; rest=${w#*:}
	cfg=bench/${rest%%:*}.cfg; rest=${rest#*:}
	nargs=$(echo "${rest%%:*}" | tr , ' '); nsim=${rest#*:}
	[ "$quick" = 1 ] && nsim=0.001
	r=0
	while [ $r -lt "$reps" ]; do
		# shellcheck disable=SC2086
		measure wire "$name" tcpsim "$tcpsim" "$cfg" --format json $sim_args $(tsq_off "$tcpsim")
		# shellcheck disable=SC2086
		[ -n "$old" ] && measure wire "$name" old "$old" "$cfg" --format json $sim_args $(tsq_off "$old")
		# shellcheck disable=SC2086
		if [ -n "$ns3" ] && ! grep -q "^once $name\$" "$tmp/ns3once" 2>/dev/null; then
			measure wire "$name" ns-3 "$ns3" $nargs --duration="$nsim"
			awk -v long="$ns3_long" -v w="$name" '$2 == w && $3 == "ns-3" && $4 > long + 0 { f = 1 }
				END { if (f) print "once " w }' "$tmp/rows" >>"$tmp/ns3once"
		fi
		r=$((r + 1))
	done
done

# ---- 3. the loopback LKP scenario on 128 CPUs ----
if [ "$quick" = 1 ]; then
	lkp_args="-s run.warmup=2ms -s run.duration=8ms -s run.batch=1ms"
else
	lkp_args="-s run.warmup=0.1s -s run.duration=0.9s"
fi
echo "== lkp: scenarios/loopback-64k.cfg on 128 CPUs, $reps interleaved run(s) each"
for inst in 8 64 256; do
	r=0
	while [ $r -lt "$reps" ]; do
		for tool in tcpsim old; do
			bin=$tcpsim
			if [ $tool = old ]; then [ -n "$old" ] || continue; bin=$old; fi
			# shellcheck disable=SC2086
			measure lkp "$inst" $tool "$bin" scenarios/loopback-64k.cfg --format json \
				-s host.cpus=128 -s app.instances="$inst" -s run.ci_target=0 $lkp_args
		done
		r=$((r + 1))
	done
done

# ---- the tables and the goals, from the rows ----
[ "$quick" = 1 ] && echo "(BENCH_QUICK: 0.01 simulated s per run, one run each: these figures time nothing)"
awk -v old="$old" -v oldname="$old_name" -v ns3="$ns3" -v engine="$engine_mevs" -v reps="$reps" '
function median(list,   n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function have(k) { return (k in wall) }
function num(x, fmt) { return x == "" ? "-" : sprintf(fmt, x) }
# per simulated second: wall and CPU of key k
function wps(k) { return median(wall[k]) / median(sim[k]) }
function cps(k) { return median(cpu[k]) / median(sim[k]) }
$4 == "failed" { failed[$1 SUBSEP $2 SUBSEP $3] = 1; if (!(($1 SUBSEP $2) in seen)) { seen[$1 SUBSEP $2] = 1; order[$1] = order[$1] " " $2 } next }
{
	k = $1 SUBSEP $2 SUBSEP $3
	wall[k] = wall[k] " " $4; cpu[k] = cpu[k] " " $5; ev[k] = ev[k] " " $6
	sim[k] = sim[k] " " $7; mbps[k] = mbps[k] " " $8; rss[k] = rss[k] " " $9
	if (!(($1 SUBSEP $2) in seen)) { seen[$1 SUBSEP $2] = 1; order[$1] = order[$1] " " $2 }
}
function cell(k, what,   v) {
	if (!have(k)) return (k in failed) ? "failed" : "-"
	if (what == "wall") v = sprintf("%.3f", wps(k))
	else if (what == "cpu") v = sprintf("%.3f", cps(k))
	else if (what == "simps") v = sprintf("%.2f", 1 / wps(k))
	else if (what == "mevs") v = sprintf("%.2f", median(ev[k]) / median(wall[k]) / 1e6)
	else if (what == "mbps") v = sprintf("%.0f", median(mbps[k]))
	else if (what == "rss") v = sprintf("%.1f", median(rss[k]) / 1024)
	return v
}
function ratio(a, b) { return (have(a) && have(b)) ? sprintf("%.1fx", wps(a) / wps(b)) : "-" }
function cratio(a, b) { return (have(a) && have(b)) ? sprintf("%.1fx", cps(a) / cps(b)) : "-" }
function cnote(a, b) { return (have(a) && have(b)) ? sprintf(" (CPU %.2fx)", cps(a) / cps(b)) : "" }
END {
	print ""
	printf "wire work, 1 simulated s, medians of %d: wall and CPU s per simulated s; ratios of wall and of CPU time\n", reps
	printf "| %-14s | %9s | %8s | %11s | %10s | %11s | %10s | %12s | %12s | %10s | %13s | %11s |", "work", "ns-3 wall", "ns-3 CPU",
		"tcpsim wall", "tcpsim CPU", "ns-3/tcpsim", "(CPU)", "sim-s/wall-s", "tcpsim Mev/s", "ns-3 Mev/s", "tcpsim Mbit/s",
		"ns-3 Mbit/s"
	if (old != "") printf " %8s | %10s | %6s |", "old wall", "old/tcpsim", "(CPU)"
	printf "\n"
	n = split(order["wire"], works, " ")
	for (i = 1; i <= n; i++) {
		w = works[i]; t = "wire" SUBSEP w SUBSEP "tcpsim"; s = "wire" SUBSEP w SUBSEP "ns-3"; o = "wire" SUBSEP w SUBSEP "old"
		mark = (have(s) && median(sim[s]) < 0.999 && median(sim[t]) >= 0.999) ? "*" : " "
		if (mark == "*") scaled = sprintf("%.3g", median(sim[s]))
		if (have(s) && split(wall[s], tmpa, " ") == 1 && reps > 1) { mark = mark == "*" ? "%" : "+"; once = 1 }
		printf "| %-14s | %8s%s | %7s%s | %11s | %10s | %11s | %10s | %12s | %12s | %10s | %13s | %11s |", w, cell(s, "wall"),
			mark, cell(s, "cpu"), mark, cell(t, "wall"), cell(t, "cpu"), ratio(s, t), cratio(s, t), cell(t, "simps"),
			cell(t, "mevs"), cell(s, "mevs"), cell(t, "mbps"), cell(s, "mbps")
		if (old != "") printf " %8s | %10s | %6s |", cell(o, "wall"), ratio(o, t), cratio(o, t)
		printf "\n"
	}
	if (scaled != "") printf "* ns-3 ran %s simulated s, scaled to 1 s\n", scaled
	if (once) print "+ ns-3 ran once (its first run was long), the others " reps " times (% marks both notes)"
	if (ns3 == "") print "(no ns-3 column: see the ns-3 line above)"

	print ""
	printf "loopback LKP (scenarios/loopback-64k.cfg), 128 CPUs, 1 simulated s, medians of %d\n", reps
	printf "| %-9s | %11s | %10s | %12s | %12s | %9s |", "instances", "tcpsim wall", "tcpsim CPU", "sim-s/wall-s",
		"tcpsim Mev/s", "peak RSS MB"
	if (old != "") printf " %8s | %10s | %6s | %10s |", "old wall", "old/tcpsim", "(CPU)", "old RSS MB"
	printf "\n"
	n = split(order["lkp"], insts, " ")
	for (i = 1; i <= n; i++) {
		w = insts[i]; t = "lkp" SUBSEP w SUBSEP "tcpsim"; o = "lkp" SUBSEP w SUBSEP "old"
		printf "| %9s | %11s | %10s | %12s | %12s | %11s |", w, cell(t, "wall"), cell(t, "cpu"), cell(t, "simps"),
			cell(t, "mevs"), cell(t, "rss")
		if (old != "") printf " %8s | %10s | %6s | %10s |", cell(o, "wall"), ratio(o, t), cratio(o, t), cell(o, "rss")
		printf "\n"
	}

	print ""
	print "goals"
	t = "wire" SUBSEP "10G/1500-4MB" SUBSEP "tcpsim"; s = "wire" SUBSEP "10G/1500-4MB" SUBSEP "ns-3"
	goal("10G/1500 4 MB: >= 10 simulated s per wall s", have(t), have(t) ? 1 / wps(t) : 0, 10, "%.2f", "")
	goal("10G/1500 4 MB: >= 300x ns-3", have(t) && have(s), have(t) && have(s) ? wps(s) / wps(t) : 0, 300,
		"%.1fx" cnote(s, t), "no ns-3")
	t = "wire" SUBSEP "10G/1500-128KB" SUBSEP "tcpsim"; s = "wire" SUBSEP "10G/1500-128KB" SUBSEP "ns-3"
	goal("10G/1500 128 KB: >= 60x ns-3", have(t) && have(s), have(t) && have(s) ? wps(s) / wps(t) : 0, 60,
		"%.1fx" cnote(s, t), "no ns-3")
	t = "wire" SUBSEP "100G/1500" SUBSEP "tcpsim"
	goal("100G/1500: >= 1 simulated s per wall s", have(t), have(t) ? 1 / wps(t) : 0, 1, "%.2f", "")
	t = "lkp" SUBSEP "256" SUBSEP "tcpsim"; o = "lkp" SUBSEP "256" SUBSEP "old"
	goal("128 CPUs, 256 loopback instances: >= 3x faster than " (oldname != "" ? oldname : "the old binary"),
		have(t) && have(o), have(t) && have(o) ? wps(o) / wps(t) : 0, 3, "%.2fx" cnote(o, t), "no old binary (TCPSIM_OLD)")
	goal("engine alone (hold N=1000): >= 40 M events/s, median round", engine != "", engine + 0, 40, "%.2f M events/s",
		"no engine figure")
}
function goal(what, known, value, want, fmt, why) {
	if (!known) printf "  SKIP  %-70s (%s)\n", what, (why == "" ? "the run failed" : why)
	else printf "  %-4s  %-70s measured " fmt "\n", (value >= want ? "PASS" : "MISS"), what, value
}' "$tmp/rows"
exit $status
