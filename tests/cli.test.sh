#!/bin/sh
# cli.test.sh ASAN_DIR: the real tcpsim binary on bad and good input.
#
# Bad input must exit 2 with exactly one line on stderr, "tcpsim: ...",
# naming where (file:line, or the -s argument / option) and what (the key),
# and must print nothing on stdout.  A good run exits 0; --format csv is a
# header and one row; -o writes the file whole.  One line per check; exit
# status 1 if any check failed.
set -u
ASAN_DIR=${1:?usage: cli.test.sh ASAN_DIR}
TCPSIM="$ASAN_DIR/tcpsim"
HERE=$(cd "$(dirname "$0")" && pwd)
D="$HERE/data/cli"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tcpsim-cli.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM

. "$HERE/lib.sh"

# bad_input NAME NEEDLE... -- ARGS...: exit 2, one stderr line containing
# every NEEDLE (fixed strings), empty stdout.
bad_input() {
	name=$1; shift
	needles=""
	while [ "$1" != "--" ]; do needles="$needles
$1"; shift; done
	shift
	"$TCPSIM" "$@" >"$TMP/out" 2>"$TMP/err"
	st=$?
	lines=$(wc -l <"$TMP/err")
	if [ "$st" -ne 2 ]; then bad "$name" "exit status $st, want 2 (stderr: $(head -c 300 "$TMP/err"))"; return; fi
	if [ -s "$TMP/out" ]; then bad "$name" "stdout not empty: $(head -c 200 "$TMP/out")"; return; fi
	if [ "$lines" -ne 1 ]; then bad "$name" "stderr has $lines lines, want 1: $(head -c 300 "$TMP/err")"; return; fi
	if ! grep -q '^tcpsim: ' "$TMP/err"; then bad "$name" "stderr does not start with 'tcpsim: ': $(cat "$TMP/err")"; return; fi
	missing=$(printf '%s\n' "$needles" | while IFS= read -r w; do
		[ -z "$w" ] && continue
		grep -qiF -- "$w" "$TMP/err" || printf "'%s' " "$w"
	done)
	if [ -n "$missing" ]; then bad "$name" "stderr lacks $missing: $(cat "$TMP/err")"; return; fi
	ok "$name: $(cat "$TMP/err")"
}

[ -x "$TCPSIM" ] || { echo "FAIL - no binary $TCPSIM"; exit 1; }

# --- bad input -----------------------------------------------------------
bad_input "unknown section" "unknown-section.cfg:2" "linkk" "did you mean" "[link]" -- run "$D/unknown-section.cfg"
bad_input "unknown key, did you mean" "unknown-key.cfg:3" "mtuu" "did you mean" "mtu" -- run "$D/unknown-key.cfg"
bad_input "bad number" "bad-number.cfg:2" "instances" -- run "$D/bad-number.cfg"
bad_input "bad unit" "bad-unit.cfg:2" "sndbuf" -- run "$D/bad-unit.cfg"
bad_input "out of range" "out-of-range.cfg:2" "mtu" -- run "$D/out-of-range.cfg"
bad_input "missing file" "no-such-file.cfg" -- run "$D/no-such-file.cfg"
bad_input "missing file, bare form" "no-such-file.cfg" -- "$D/no-such-file.cfg"
bad_input "unknown -s key" "-s link.mtuu=1500" "mtuu" -- run "$D/good.cfg" -s link.mtuu=1500
bad_input "malformed -s" "-s linkmtu" -- run "$D/good.cfg" -s linkmtu
bad_input "bad -s value" "-s link.mtu=12" "mtu" -- run "$D/good.cfg" -s link.mtu=12
bad_input "unknown option" "--bogus" -- run "$D/good.cfg" --bogus
bad_input "unknown global option" "--bogus" -- --bogus
bad_input "bad --format" "--format" "xml" -- run "$D/good.cfg" --format xml
bad_input "missing -s argument" "-s" "needs an argument" -- run "$D/good.cfg" -s
bad_input "missing --format argument" "--format" "needs an argument" -- run "$D/good.cfg" --format
bad_input "missing scenario" "missing scenario" -- run
bad_input "two scenarios to run" "unexpected argument" -- run "$D/good.cfg" "$D/good.cfg"
bad_input "unknown command" "swep" -- swep
bad_input "backlog the model cannot honour" "backlog" "link.backlog" -- run "$D/good.cfg" -s link.backlog=1 -s app.instances=4
bad_input "compare: -s before a file" "-s link.mtu=1500" -- compare -s link.mtu=1500 "$D/good.cfg" "$D/good.cfg"
bad_input "compare: one file" "two scenario files" -- compare "$D/good.cfg"
bad_input "compare: bad second file" "unknown-key.cfg:3" "mtuu" -- compare "$D/good.cfg" "$D/unknown-key.cfg"

# -o must leave nothing behind when the input is bad
"$TCPSIM" run "$D/unknown-key.cfg" -o "$TMP/bad.out" >/dev/null 2>&1
if [ -e "$TMP/bad.out" ] || ls "$TMP"/bad.out.* >/dev/null 2>&1; then bad "-o on bad input" "file left behind"; else ok "-o on bad input leaves no file"; fi

# --- good input ----------------------------------------------------------
"$TCPSIM" --help >"$TMP/out" 2>"$TMP/err"
if [ $? -eq 0 ] && grep -q '^  run ' "$TMP/out" && grep -q '^  compare ' "$TMP/out"; then ok "--help lists run and compare"; else bad "--help" "$(head -c 300 "$TMP/out" "$TMP/err")"; fi
"$TCPSIM" --version >"$TMP/out" 2>"$TMP/err"
if [ $? -eq 0 ] && grep -q '^tcpsim ' "$TMP/out"; then ok "--version"; else bad "--version" "$(cat "$TMP/out" "$TMP/err")"; fi

# needs the simulator (tcpsim_run) and a real config module
"$TCPSIM" run "$D/good.cfg" >"$TMP/out" 2>"$TMP/err"
st=$?
if [ $st -eq 0 ] && [ ! -s "$TMP/err" ] && grep -q 'Throughput' "$TMP/out" && grep -q 'netperf.Throughput_Mbps' "$TMP/out"; then
	ok "good run exits 0 with a table"
else
	bad "good run" "exit $st, stderr: $(head -c 300 "$TMP/err")"
fi
"$TCPSIM" run "$D/good.cfg" --format csv >"$TMP/out" 2>"$TMP/err"
st=$?; lines=$(wc -l <"$TMP/out")
if [ $st -eq 0 ] && [ "$lines" -eq 2 ] && head -1 "$TMP/out" | grep -q '^"throughput_mbps","throughput_total_mbps",'; then
	ok "--format csv prints 2 lines"
else
	bad "--format csv" "exit $st, $lines lines: $(head -c 300 "$TMP/out" "$TMP/err")"
fi
"$TCPSIM" "$D/good.cfg" --format csv -o "$TMP/good.csv" >"$TMP/out" 2>"$TMP/err"
st=$?
if [ $st -eq 0 ] && [ ! -s "$TMP/out" ] && [ "$(wc -l <"$TMP/good.csv")" -eq 2 ] && ! ls "$TMP"/good.csv.* >/dev/null 2>&1; then
	ok "bare FILE.cfg form, -o writes the file whole"
else
	bad "-o" "exit $st: $(head -c 300 "$TMP/err")"
fi
"$TCPSIM" "$D/good.cfg" -o "$TMP/no-such-dir/x.txt" >"$TMP/out" 2>"$TMP/err"
st=$?
if [ $st -eq 3 ] && [ ! -s "$TMP/out" ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -qF "cannot write '$TMP/no-such-dir/x.txt'" "$TMP/err"; then
	ok "-o into a missing directory: exit 3, one line"
else
	bad "-o unwritable" "exit $st: $(head -c 300 "$TMP/err")"
fi
"$TCPSIM" "$D/good.cfg" --format json >"$TMP/out" 2>"$TMP/err"
st=$?
if [ $st -eq 0 ] && head -1 "$TMP/out" | grep -q '^{' && grep -q '"throughput_mbps"' "$TMP/out" && grep -q '"cpu"' "$TMP/out"; then
	ok "--format json"
else
	bad "--format json" "exit $st: $(head -c 300 "$TMP/err")"
fi
# --folded: folded stacks beside the report, each whole or not written
# side_file_unwritable OPTION FILE: `run --OPTION FILE -o OUT` with FILE in a
# missing directory exits 3 naming FILE, and writes OUT neither
side_file_unwritable() {
	rm -f "$TMP/side-out.txt"
	"$TCPSIM" run "$D/good.cfg" "$1" "$2" -o "$TMP/side-out.txt" >"$TMP/out" 2>"$TMP/err"
	st=$?
	if [ $st -eq 3 ] && [ ! -e "$TMP/side-out.txt" ] && grep -qF "cannot write '$2'" "$TMP/err"; then
		ok "$1 into a missing directory: exit 3, and -o is not written either"
	else
		bad "$1 unwritable" "exit $st: $(head -c 300 "$TMP/err")"
	fi
}
"$TCPSIM" run "$D/good.cfg" --folded "$TMP/cpu.folded" >"$TMP/out" 2>"$TMP/err"
st=$?
badlines=$(grep -cvE '^[^; ]+;(hardirq|softirq|process);(data_copy|tcp/ip|netdev|skb|mm|lock|sched|etc);[a-z_]+ [1-9][0-9]*$' "$TMP/cpu.folded")
if [ $st -eq 0 ] && grep -q 'Throughput' "$TMP/out" && [ -s "$TMP/cpu.folded" ] && [ "$badlines" -eq 0 ] &&
	grep -q '^sender+receiver:[^;]*;process;data_copy;copy_byte [0-9]*$' "$TMP/cpu.folded"; then
	ok "--folded writes host;context;category;cost lines ($(wc -l <"$TMP/cpu.folded") of them)"
else
	bad "--folded" "exit $st, $badlines bad lines: $(head -c 300 "$TMP/err" "$TMP/cpu.folded")"
fi
side_file_unwritable --folded "$TMP/no-such-dir/x.folded"
# --folded-cpus: the same with a cpuN frame after the host's; the CPUs'
# lines of a cost add up to the host's line (each rounded on its own)
"$TCPSIM" run "$D/good.cfg" --folded "$TMP/cpus.folded" --folded-cpus >"$TMP/out" 2>"$TMP/err"
st=$?
badlines=$(grep -cvE '^[^; ]+;cpu[0-9]+;(hardirq|softirq|process);(data_copy|tcp/ip|netdev|skb|mm|lock|sched|etc);[a-z_]+ [1-9][0-9]*$' "$TMP/cpus.folded")
host_copy=$(sed -n 's/^sender+receiver:[^;]*;process;data_copy;copy_byte \([0-9]*\)$/\1/p' "$TMP/cpu.folded")
cpus_copy=$(awk '/;process;data_copy;copy_byte / {s += $NF; n++} END {printf "%.0f %d\n", s, n}' "$TMP/cpus.folded")
if [ $st -eq 0 ] && [ -s "$TMP/cpus.folded" ] && [ "$badlines" -eq 0 ] && [ -n "$host_copy" ] &&
	awk -v h="$host_copy" -v c="$cpus_copy" 'BEGIN { split(c, a, " "); exit !(a[2] >= 1 && (a[1] - h) ^ 2 <= a[2] ^ 2) }'; then
	ok "--folded-cpus writes host;cpuN;context;category;cost lines, copy_byte's add up to the host's ($cpus_copy / $host_copy)"
else
	bad "--folded-cpus" "exit $st, $badlines bad lines, copy_byte per CPU '$cpus_copy' against '$host_copy': $(head -c 300 "$TMP/err" "$TMP/cpus.folded")"
fi

# --states: the run again with its receivers late; one steady state or two.
# The live Intel host's loopback at 4 KB writes with the costs fitted there
# (pinned, the reader's copy at 0.065 a byte: since the read() takes its socket after
# its entry, the pinned 0.093 leaves only the behind state at MTU 9000, the machine's;
# test_era.c says so): MTU 9000 has two (the late reader stays behind, window-limited,
# its CPU the busiest), MTU 1500 one on a kernel before 6.10 (since, tcp_grow_skb keeps a
# late reader behind there too: test_era.c, test_late_reader_finds_the_other_steady_state).
ST="-s run.warmup=100ms -s run.duration=200ms -s run.ci_target=0 -s app.send_size=4K -s app.recv_size=4K"
ST="$ST -s cost.syscall=979.585 -s cost.tx_frame=1439.72 -s cost.rx_frame=1647.11 -s cost.rx_tcp=868.604"
ST="$ST -s cost.ack_tx=801.352 -s cost.ack_rx=2195.62 -s cost.tx_seg=551.035 -s cost.wakeup=5683"
ST="$ST -s cost.ctxsw=4280.37 -s cost.rx_gso_seg=314.694 -s cost.recv_copy_byte=0.065 -s cost.recv_copy_cold_byte=0"
# shellcheck disable=SC2086
if "$TCPSIM" run scenarios/live/intel-xeon-2cpu-2600-lo.cfg $ST -s link.mtu=9000 --states 2ms >"$TMP/out" 2>"$TMP/err" &&
	grep -q "^Steady states (--states 2ms: " "$TMP/out" && grep -q "^Two steady states: " "$TMP/out" &&
	grep -Eq "^  late start .* window-limited +(9[0-9]|100)\.[0-9]% of their busy time  busiest CPU 1 " "$TMP/out" &&
	grep -Eq "^  as given .* window-limited +[0-9]\.[0-9]% of their busy time  busiest CPU 0 " "$TMP/out"; then
	ok "run --states: MTU 9000 at 4 KB writes has two steady states"
else
	bad "run --states (two)" "$(tail -6 "$TMP/out") $(head -c 300 "$TMP/err")"
fi
# shellcheck disable=SC2086
if "$TCPSIM" run scenarios/live/intel-xeon-2cpu-2600-lo.cfg $ST -s link.mtu=1500 -s host.kernel=6.9 --states 2ms >"$TMP/out" 2>"$TMP/err" &&
	grep -q "^One steady state: the late start returns to it.$" "$TMP/out"; then
	ok "run --states: MTU 1500 at 4 KB writes on 6.9 has one"
else
	bad "run --states (one)" "$(tail -6 "$TMP/out") $(head -c 300 "$TMP/err")"
fi
bad_input "run --states with csv" "--states" "table" -- run "$D/good.cfg" --states 2ms --format csv
bad_input "run --states with --reps" "--states" "--reps" -- run "$D/good.cfg" --states 2ms --reps 2
bad_input "run --states 0" "--states 0" "above 0" -- run "$D/good.cfg" --states 0
bad_input "run --states when the scenario starts late" "--states" "app.recv_start" -- run "$D/good.cfg" -s app.recv_start=1ms --states 2ms
bad_input "compare --states" "--states" "tcpsim run" -- compare "$D/good.cfg" "$D/good.cfg" --states 2ms
bad_input "--folded with --reps" "--folded" "--reps" -- run "$D/good.cfg" --reps 2 --folded "$TMP/r.folded"
bad_input "--folded-cpus without --folded" "--folded-cpus" "--folded" -- run "$D/good.cfg" --folded-cpus
bad_input "--folded-cpus to compare" "--folded-cpus" "tcpsim run" -- compare "$D/good.cfg" "$D/good.cfg" --folded-cpus
bad_input "--folded to compare" "--folded" "tcpsim run" -- compare "$D/good.cfg" "$D/good.cfg" --folded "$TMP/c.folded"
bad_input "--folded and -o the same file" "--folded" "$TMP/same" -- run "$D/good.cfg" --folded "$TMP/same" -o "$TMP/same"
# --timeline: the first connection's start as CSV beside the report, whole
# or not written; the step and length set the rows
"$TCPSIM" run "$D/good.cfg" --timeline "$TMP/start.csv" --timeline-ms 2 --timeline-step 250 >"$TMP/out" 2>"$TMP/err"
st=$?
if [ $st -eq 0 ] && grep -q 'Throughput' "$TMP/out" && [ "$(wc -l <"$TMP/start.csv")" -eq 9 ] &&
	head -1 "$TMP/start.csv" | grep -qx '"t_ms","segs","kB","acks","cwnd","ssthresh","srtt_us","snd_wnd","rcv_wnd","rcvbuf","writes","reads","sleeps","wakes","ipis","no_ipi"' &&
	sed -n 2p "$TMP/start.csv" | grep -q '^"0.250","[1-9][0-9]*",' && tail -1 "$TMP/start.csv" | grep -q '^"2.000",'; then
	ok "--timeline writes a header and 8 steps of 250 us"
else
	bad "--timeline" "exit $st: $(head -c 300 "$TMP/err" "$TMP/start.csv")"
fi
side_file_unwritable --timeline "$TMP/no-such-dir/x.csv"
bad_input "--timeline with --reps" "--timeline" "--reps" -- run "$D/good.cfg" --reps 2 --timeline "$TMP/r.csv"
bad_input "--timeline to compare" "--timeline" "tcpsim run" -- compare "$D/good.cfg" "$D/good.cfg" --timeline "$TMP/c.csv"
bad_input "--timeline and -o the same file" "--timeline" "$TMP/same" -- run "$D/good.cfg" --timeline "$TMP/same" -o "$TMP/same"
bad_input "--timeline-ms without --timeline" "--timeline-ms" "only with --timeline" -- run "$D/good.cfg" --timeline-ms 5
bad_input "--timeline-ms 0" "--timeline-ms 0" "1 to 1000" -- run "$D/good.cfg" --timeline "$TMP/z.csv" --timeline-ms 0
bad_input "--timeline-step longer than the timeline" "steps" "fewer than 1" -- run "$D/good.cfg" --timeline "$TMP/z.csv" --timeline-ms 1 --timeline-step 5000
# --charges: each CPU step's charges over a window as CSV beside the
# report; steps in the window only, in the order they ran
"$TCPSIM" run "$D/good.cfg" --charges "$TMP/chg.csv" --charges-at 20ms --charges-us 50 >"$TMP/out" 2>"$TMP/err"
st=$?
if [ $st -eq 0 ] && grep -q 'Throughput' "$TMP/out" && [ ! -s "$TMP/err" ] &&
	head -1 "$TMP/chg.csv" | grep -qx '"t_us","host","cpu","context","cost","cycles","step_us"' &&
	[ "$(wc -l <"$TMP/chg.csv")" -gt 5 ] &&
	awk -F'"' 'NR > 1 { t = $2 + 0; if (t < 20000 || t >= 20050 || t < last) bad = 1; last = t;
		if ($8 !~ /^(hardirq|softirq|process)$/ || $12 + 0 <= 0) bad = 1 } END { exit bad }' "$TMP/chg.csv"; then
	ok "--charges writes the steps of 50 us from 20 ms"
else
	bad "--charges" "exit $st: $(head -c 300 "$TMP/err" "$TMP/chg.csv")"
fi
"$TCPSIM" run "$D/good.cfg" --charges "$TMP/late.csv" --charges-at 500s >"$TMP/out" 2>"$TMP/err"
st=$?
if [ $st -eq 0 ] && [ "$(wc -l <"$TMP/late.csv")" -eq 1 ] && grep -q -- "--charges: no step began in the window" "$TMP/err"; then
	ok "--charges past the run's end: the header and a word on stderr"
else
	bad "--charges past the end" "exit $st: $(head -c 300 "$TMP/err")"
fi
side_file_unwritable --charges "$TMP/no-such-dir/x.csv"
bad_input "--charges with --reps" "--charges" "--reps" -- run "$D/good.cfg" --reps 2 --charges "$TMP/r.csv"
bad_input "--charges to compare" "--charges" "tcpsim run" -- compare "$D/good.cfg" "$D/good.cfg" --charges "$TMP/c.csv"
bad_input "--charges and --timeline the same file" "--charges" "$TMP/same" -- run "$D/good.cfg" --charges "$TMP/same" --timeline "$TMP/same"
bad_input "--charges-us without --charges" "--charges-us" "only with --charges" -- run "$D/good.cfg" --charges-us 5
bad_input "--charges-us 0" "--charges-us 0" "1 to 10000" -- run "$D/good.cfg" --charges "$TMP/z.csv" --charges-us 0
bad_input "--charges-at not a time" "--charges-at soon" "a time" -- run "$D/good.cfg" --charges "$TMP/z.csv" --charges-at soon
"$TCPSIM" compare "$D/good.cfg" "$D/good.cfg" -s link.mtu=9000 >"$TMP/out" 2>"$TMP/err"
st=$?
if [ $st -eq 0 ] && grep -q '   netperf.Throughput_Mbps$' "$TMP/out" && grep -q 'new:  .*-s link.mtu=9000' "$TMP/out"; then
	ok "compare exits 0 with LKP rows"
else
	bad "compare" "exit $st: $(head -c 300 "$TMP/err")"
fi

echo "cli.test.sh: $n checks, $fails failed"
[ "$fails" -eq 0 ]
