#!/bin/sh
# bench.test.sh ASAN_DIR: tests/bench.sh itself, in its dry mode.
#
# BENCH_QUICK=1 runs every row for 0.01 simulated s, once, with ASAN_DIR's
# tcpsim, bench_engine and rusage: nothing is timed worth reading, but the
# script's runs, its parsing of tcpsim's JSON and of the ns-3 program's
# lines, its tables and its goal lines are.  ns-3 is a stub printing what
# bench/ns3-bulk.cc prints; the old column is the same tcpsim.  Then the
# script without ns-3 and without the old binary (their columns and goals
# skipped, saying so), with an ns-3 that prints nothing (its cells say
# failed), and with a tcpsim that fails (exit 1).
set -u
ASAN_DIR=${1:?usage: bench.test.sh ASAN_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tcpsim-bench.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM

. "$HERE/lib.sh"

# the ns-3 stub: the program's four lines, simulated_s from --duration;
# each call is logged to $NS3_LOG if set
cat >"$TMP/ns3" <<'STUB'
#!/bin/sh
[ -n "${NS3_LOG:-}" ] && echo "$*" >>"$NS3_LOG"
d=1
for a; do case $a in --duration=*) d=${a#--duration=} ;; esac; done
echo bytes_delivered=1234
echo goodput_mbps=4321.0
echo events=5000
echo simulated_s=$d
STUB
printf '#!/bin/sh\necho nothing\n' >"$TMP/ns3-mute"
printf '#!/bin/sh\necho "tcpsim: broken" >&2\nexit 1\n' >"$TMP/tcpsim-bad"
chmod +x "$TMP/ns3" "$TMP/ns3-mute" "$TMP/tcpsim-bad"

# bench NAME OUT VAR=VALUE...: run tests/bench.sh quick with the settings
bench() {
	name=$1 out=$2
	shift 2
	env BENCH_QUICK=1 TCPSIM="$ASAN_DIR/tcpsim" TCPSIM_OLD="$ASAN_DIR/tcpsim" NS3_BULK="$TMP/ns3" "$@" \
		sh "$HERE/bench.sh" "$ASAN_DIR" >"$out" 2>&1
}

# has NAME FILE ERE: FILE has a line matching ERE
has() {
	if grep -Eq -- "$3" "$2"; then ok "$1"; else bad "$1" "no line matching '$3' in: $(tail -n 30 "$2")"; fi
}

num='[0-9]+\.[0-9]+'
bench full "$TMP/full"
st=$?
[ $st -eq 0 ] && ok "quick run exits 0" || bad "quick run exits 0" "exit $st: $(tail -n 20 "$TMP/full")"
has "the engine's median figure" "$TMP/full" '^hold N=1000 +evq +[0-9.]+ Mev/s'
for w in 10G/1500-4MB 10G/1500-128KB 10G/9000 40G/65535 100G/1500; do
	# ns-3 wall, CPU, tcpsim wall, CPU, ratio, sim-s/wall-s, both Mev/s, goodputs (stub's 4321), old wall, ratio
	has "wire row $w, every column" "$TMP/full" \
		"^\| $w +\| +$num  \| +$num  \| +$num \| +$num \| +$num""x \| +$num""x \| +$num \| +$num \| +$num \| +[0-9]+ \| +4321 \| +$num \| +$num""x \| +$num""x \|$"
done
for i in 8 64 256; do
	has "lkp row $i instances, with the old column" "$TMP/full" \
		"^\| +$i \| +$num \| +$num \| +$num \| +$num \| +$num \| +$num \| +$num""x \| +$num""x \| +$num \|$"
done
for g in '10G/1500 4 MB: >= 10 simulated s' '10G/1500 4 MB: >= 300x ns-3' '10G/1500 128 KB: >= 60x ns-3' \
	'100G/1500: >= 1 simulated s' '256 loopback instances: >= 3x faster' 'engine alone'; do
	has "goal '$g' judged with its figure" "$TMP/full" "^  (PASS|MISS)  .*$g.* measured [0-9.]+"
done
has "says the figures time nothing" "$TMP/full" '^\(BENCH_QUICK'

# two runs each, ns-3's first run "long" (over 0 s): ns-3 runs once per row
bench once "$TMP/once" BENCH_REPS=2 BENCH_NS3_LONG=0 NS3_LOG="$TMP/ns3.log" TCPSIM_OLD=
st=$?
[ $st -eq 0 ] && ok "long ns-3 runs: exits 0" || bad "long ns-3 runs: exits 0" "exit $st: $(tail -n 20 "$TMP/once")"
calls=$(wc -l <"$TMP/ns3.log")
[ "$calls" -eq 5 ] && ok "long ns-3 runs: ns-3 ran once per row" || bad "long ns-3 runs: ns-3 ran once per row" "$calls calls"
has "long ns-3 runs: the cells say so" "$TMP/once" "^\| 10G/9000 +\| +$num\+ \| +$num\+ \|"
has "long ns-3 runs: the note says so" "$TMP/once" '^\+ ns-3 ran once \(its first run was long\), the others 2 times'
has "long ns-3 runs: tcpsim ran twice" "$TMP/once" '^wire work, 1 simulated s, medians of 2'

bench bare "$TMP/bare" NS3_BULK="$TMP/none" TCPSIM_OLD=
st=$?
[ $st -eq 0 ] && ok "no ns-3, no old: exits 0" || bad "no ns-3, no old: exits 0" "exit $st: $(tail -n 20 "$TMP/bare")"
has "no ns-3: says so" "$TMP/bare" "^ns-3: no program $TMP/none .*the ns-3 column is skipped"
has "no ns-3: its cells empty" "$TMP/bare" '^\| 10G/1500-4MB +\| +- +\| +- +\| +[0-9.]+ \|'
has "no ns-3: its goals skipped" "$TMP/bare" '^  SKIP  10G/1500 4 MB: >= 300x ns-3 .*\(no ns-3\)'
has "no old: its goal skipped" "$TMP/bare" '^  SKIP  .*3x faster.*\(no old binary'
has "no old: tcpsim's goals still judged" "$TMP/bare" '^  (PASS|MISS)  100G/1500: >= 1 simulated s'
if grep -q 'old wall' "$TMP/bare"; then bad "no old: no old column" "$(grep 'old wall' "$TMP/bare")"; else ok "no old: no old column"; fi

bench mute "$TMP/mute" NS3_BULK="$TMP/ns3-mute" TCPSIM_OLD=
st=$?
[ $st -eq 0 ] && ok "a mute ns-3 does not fail the bench" || bad "a mute ns-3 does not fail the bench" "exit $st"
has "a mute ns-3: said" "$TMP/mute" '^bench: ns-3 on 10G/9000 printed no events'
has "a mute ns-3: its cells say failed" "$TMP/mute" '^\| 10G/9000 +\| +failed +\| +failed +\|'

bench badsim "$TMP/badsim" TCPSIM="$TMP/tcpsim-bad" TCPSIM_OLD= NS3_BULK=
st=$?
[ $st -eq 1 ] && ok "a failing tcpsim: exit 1" || bad "a failing tcpsim: exit 1" "exit $st"
has "a failing tcpsim: names the work and the message" "$TMP/badsim" \
	'^bench: tcpsim on 10G/1500-4MB exited 1: tcpsim: broken'

bench badold "$TMP/badold" TCPSIM_OLD=no-such-revision-or-file NS3_BULK=
has "TCPSIM_OLD neither file nor revision: said" "$TMP/badold" "^old: TCPSIM_OLD='no-such-revision-or-file' is neither"

env BENCH_REPS=x sh "$HERE/bench.sh" "$ASAN_DIR" >"$TMP/reps" 2>&1
st=$?
[ $st -eq 2 ] && ok "BENCH_REPS=x: exit 2" || bad "BENCH_REPS=x: exit 2" "exit $st"
has "BENCH_REPS=x: said" "$TMP/reps" "BENCH_REPS must be a positive integer, not 'x'"

echo "$n checks, $fails failed"
[ "$fails" -eq 0 ]
