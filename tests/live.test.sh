#!/bin/sh
# live.test.sh: the live-measurement tools without root and without a run:
# tools/bin/procstat, live-row and live-agg on recorded data, and
# tools/measure-live's planning (--dry-run) and refusals.
#
# Oracles: tests/data/live/lo-before, lo-after and iperf3-lo.json are one
# recorded 3 s iperf3 run over a namespace's loopback; the figures expected
# from them were computed independently from the same files (a Python
# script; see tests/test_procstat.c).  tests/data/live/reps.csv is a
# hand-made repetitions file whose medians and CVs are worked out by hand
# below.  Every bad input must exit 2 with one line naming the file.
#
#   sh tests/live.test.sh ASAN_DIR     (run by run-tests.sh; ASAN_DIR/tcpsim checks the scenarios)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
BIN=${LIVE_BIN:-$ROOT/tools/bin}
TCPSIM=${1:+$1/tcpsim}
[ -n "$TCPSIM" ] && [ -x "$TCPSIM" ] || TCPSIM=$ROOT/tcpsim
D=tests/data/live
T=$(mktemp -d)
WM=live-test-$$ # --write-scenarios' machine below, whose files go with the test's
trap 'rm -rf "$T"; rm -f scenarios/live/$WM.cfg scenarios/live/$WM-lo.cfg scenarios/live/$WM-veth.cfg scenarios/live/$WM.primcost.cfg' EXIT INT TERM
pass=0
fail=0

for b in procstat live-row live-agg live-diff primcost cpuspeed; do
	[ -x "$BIN/$b" ] || { echo "live.test: $BIN/$b not built (run make)" >&2; exit 1; }
done

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# field CSV KEYCOL KEY COLUMN: the cell in COLUMN of the row whose KEYCOL is KEY
# (every field quoted, as libcsv's csv_fwrite writes them; no comma inside).
field() {
	awk -v keycol="$2" -v key="$3" -v col="$4" '
		function unq(s) { sub(/^"/, "", s); sub(/"$/, "", s); return s }
		BEGIN { FS = "\",\"" }
		NR == 1 { for (i = 1; i <= NF; i++) c[unq($i)] = i; next }
		unq($c[keycol]) == key { if (!(col in c)) { print "<no column>"; exit } print unq($c[col]); exit }
	' "$1"
}

# expect_num CSV KEYCOL KEY COLUMN WANT REL: |got - want| <= REL * |want|
expect_num() {
	got=$(field "$1" "$2" "$3" "$4")
	if awk -v g="$got" -v w="$5" -v r="$6" 'BEGIN { d = g - w; if (d < 0) d = -d; a = w < 0 ? -w : w; exit !(g != "" && d <= r * a + 1e-12) }'; then
		ok
	else
		bad "$1 $3 $4: got '$got', want $5 (within $6)"
	fi
}

expect_eq() { if [ "$1" = "$2" ]; then ok; else bad "$3: got '$1', want '$2'"; fi; }

# expect_fail NAME STATUS WANT CMD...: exit STATUS, WANT in stderr, one line
expect_fail() {
	name=$1 want_st=$2 want=$3
	shift 3
	"$@" >"$T/out" 2>"$T/err"
	st=$?
	if [ $st -ne "$want_st" ]; then
		bad "$name: exit $st, want $want_st ($(cat "$T/err"))"
	elif ! grep -qF -- "$want" "$T/err"; then
		bad "$name: stderr '$(cat "$T/err")' lacks '$want'"
	elif [ "$(grep -v -e '^usage' -e '^  ' "$T/err" | wc -l)" -ne 1 ]; then
		bad "$name: want one line, got: $(cat "$T/err")"
	else
		ok
	fi
}

ROW="$BIN/live-row --json $D/iperf3-lo.json --before $D/lo-before --after $D/lo-after --scenario scenarios/live/x.cfg --cc cubic"

# --- live-row: the recorded run ------------------------------------------
# other processes took 21.19% of the machine during it: disturbed at 5%, ok at 50%
$ROW -o "$T/reps.csv" --point p1 >"$T/out" 2>&1
expect_eq "$?" 3 "live-row exit status of a disturbed run"
expect_eq "$(field "$T/reps.csv" point p1 status)" disturbed "p1 status"
$ROW -o "$T/reps.csv" --point p2 --rep 1 --attempt 2 --other-max 50 >"$T/out" 2>&1
expect_eq "$?" 0 "live-row exit status of an undisturbed run"
expect_eq "$(field "$T/reps.csv" point p2 status)" ok "p2 status"
expect_eq "$(wc -l <"$T/reps.csv" | tr -d ' ')" 3 "rows after two appends (header + 2)"
R=$T/reps.csv
expect_num "$R" point p2 other_cpu_pct 21.194440729158764 1e-5
expect_num "$R" point p2 throughput_mbps 17773.499403030644 1e-5
expect_num "$R" point p2 throughput_total_mbps 17773.499403030644 1e-5
expect_num "$R" point p2 cpu_send_pct 76.23400365630712 1e-5
expect_num "$R" point p2 cpu_recv_pct 76.23400365630712 1e-5
expect_num "$R" point p2 sd_send_us_per_kb 0.7027416985154652 1e-5
expect_num "$R" point p2 netrx_softirqs_per_s 69006.60493509304 1e-5
expect_num "$R" point p2 res_ipis_per_s 950.1209652639988 1e-5
expect_num "$R" point p2 cal_ipis_per_s 7026.093562443776 1e-5
expect_num "$R" point p2 cs_per_s 16621.690448393132 1e-5
expect_num "$R" point p2 intr_per_s 8639.556163892436 1e-5
expect_num "$R" point p2 pgalloc_per_s 543023.2371192737 1e-5
expect_num "$R" point p2 pgfree_per_s 543033.1033805953 1e-5
expect_num "$R" point p2 segs_per_s 54343.696234402356 1e-5
expect_num "$R" point p2 frames_per_s 54282.19653883144 1e-5
expect_num "$R" point p2 acks_per_s 21911.97976900119 1e-5
expect_num "$R" point p2 segs_per_frame 1.0011329625455911 1e-5
expect_num "$R" point p2 acks_per_frame 0.40366789050856083 1e-5
expect_eq "$(field "$R" point p2 cc_sender)" cubic "cc_sender"
expect_eq "$(field "$R" point p2 blksize_bytes)" 65536 "blksize"
# per CPU, by role: the sender on CPU 0 and the receiver on CPU 1 (the defaults)
expect_eq "$(field "$R" point p2 send_cpu)/$(field "$R" point p2 recv_cpu)" 0/1 "send_cpu/recv_cpu"
expect_num "$R" point p2 snd_cpu_busy_pct 65.61264822134387 1e-5
expect_num "$R" point p2 rcv_cpu_busy_pct 85.08474576271186 1e-5
expect_num "$R" point p2 snd_cpu_netrx_per_s 52318.48166046823 1e-5
expect_num "$R" point p2 rcv_cpu_netrx_per_s 16688.123274624813 1e-5
expect_num "$R" point p2 snd_cpu_timer_per_s 150.62492284212925 1e-5
expect_num "$R" point p2 rcv_cpu_hrtimer_per_s 26.310030190764934 1e-5
expect_num "$R" point p2 snd_cpu_loc_per_s 349.2656507824045 1e-5
expect_num "$R" point p2 rcv_cpu_res_per_s 888.6212696930857 1e-5
expect_num "$R" point p2 rcv_cpu_cal_per_s 6853.105113939497 1e-5
expect_num "$R" point p2 writes_per_s 33902.68918223887 1e-5
expect_num "$R" point p2 tcpext_TCPHPHits_per_s 15706.759148509282 1e-5
expect_num "$R" point p2 tcpext_TCPBacklogCoalesce_per_s 199.62735407242894 1e-5
expect_eq "$(field "$R" point p2 pace_kicks_per_s)" "" "pace kicks not given: empty"
# both pinned to CPU 1: the two roles read the same CPU
$ROW -o "$T/one.csv" --point p9 --other-max 50 --send-cpu 1 --recv-cpu 1 --pace-kicks 300 \
	--pacing paced --cc-ss cubic --run-note "a note" >"$T/out" 2>&1
expect_eq "$?" 0 "live-row pinned together"
expect_num "$T/one.csv" point p9 snd_cpu_busy_pct 85.08474576271186 1e-5
expect_num "$T/one.csv" point p9 rcv_cpu_busy_pct 85.08474576271186 1e-5
expect_num "$T/one.csv" point p9 pace_kicks_per_s 98.66261321536851 1e-5
expect_eq "$(field "$T/one.csv" point p9 pacing)/$(field "$T/one.csv" point p9 cc_sender_ss)/$(field "$T/one.csv" point p9 run_note)" "paced/cubic/a note" "pacing, ss cc, note"
expect_fail "live-row CPU the snapshots lack" 2 "2 CPUs, no CPU 5" $ROW -o "$T/one.csv" --point p8 --send-cpu 5
expect_fail "live-row bad --pacing" 2 "--pacing takes unpaced or paced" $ROW -o "$T/one.csv" --point p8 --pacing maybe
# the host-speed canary: recorded as given, and above --slow-max (40 by default) the run is disturbed
$ROW -o "$T/slow.csv" --point s1 --other-max 50 --host-slow 12.5 >"$T/out" 2>&1
expect_eq "$?" 0 "live-row host 12.5% slow: ok"
expect_eq "$(field "$T/slow.csv" point s1 host_slow_pct)" 12.5 "host_slow_pct recorded"
grep -q 'host_slow=12.5 ' "$T/out" && ok || bad "live-row's line lacks host_slow=12.5: $(cat "$T/out")"
$ROW -o "$T/slow.csv" --point s2 --other-max 50 --host-slow 55 >"$T/out" 2>&1
expect_eq "$?" 3 "live-row host 55% slow: disturbed"
expect_eq "$(field "$T/slow.csv" point s2 status)" disturbed "s2 status"
$ROW -o "$T/slow.csv" --point s3 --other-max 50 --host-slow 55 --slow-max 60 >"$T/out" 2>&1
expect_eq "$?" 0 "live-row host 55% slow with --slow-max 60: ok"
expect_eq "$(field "$T/slow.csv" point s1 host_slow_pct)/$(field "$R" point p2 host_slow_pct)" "12.5/" "no canary: empty"
expect_fail "live-row bad --host-slow" 2 "--host-slow takes a percentage" $ROW -o "$T/one.csv" --point p8 --host-slow fast
expect_fail "live-row bad --slow-max" 2 "--slow-max takes a percentage" $ROW -o "$T/one.csv" --point p8 --slow-max -3
# the window-limited share (tcp_info, measured by the caller): recorded as given, empty when not measured
$ROW -o "$T/rwnd.csv" --point w1 --other-max 50 --rwnd-pct 87.25 >"$T/out" 2>&1
expect_eq "$?" 0 "live-row --rwnd-pct"
expect_eq "$(field "$T/rwnd.csv" point w1 snd_rwnd_limited_pct)/$(field "$T/slow.csv" point s1 snd_rwnd_limited_pct)" "87.25/" "snd_rwnd_limited_pct recorded, empty without"
expect_fail "live-row bad --rwnd-pct" 2 "--rwnd-pct takes a percentage" $ROW -o "$T/one.csv" --point p8 --rwnd-pct 120
"$BIN/live-agg" "$T/rwnd.csv" -o "$T/rwnd-agg.csv" --source test >/dev/null 2>&1
expect_eq "$?:$(field "$T/rwnd-agg.csv" id w1 snd_rwnd_limited_pct)" "0:87.25" "live-agg carries snd_rwnd_limited_pct (the model's metric) to the point's row"

# --- cpuspeed: the canary ---------------------------------------------------
"$BIN/cpuspeed" --cpus 0 --ms 1 --rounds 3 >"$T/cs.out" 2>"$T/err"
expect_eq "$?:$(cat "$T/err")" "0:" "cpuspeed --cpus 0"
if awk 'NR == 1 && NF == 4 && $1 == "cpu" && $2 == 0 && $3 > 0.05 && $3 < 100 && $4 >= 1 { ok = 1 } END { exit !(ok && NR == 1) }' "$T/cs.out"; then ok
else bad "cpuspeed: want 'cpu 0 NS RATIO' (NS a plausible ns per step, RATIO >= 1), got: $(cat "$T/cs.out")"; fi
# --work: one line per CPU and work, in the order asked, the work named last;
# a system call or a 4 KB copy takes longer than one multiply-add of the
# chain on any machine.  --together on two threads pinned to one CPU (so
# that the test needs one CPU) runs the barriers with more than one thread.
"$BIN/cpuspeed" --cpus 0,0 --ms 1 --rounds 3 --work syscall,chain,copy,ilp --together >"$T/cs.out" 2>"$T/err"
expect_eq "$?:$(cat "$T/err")" "0:" "cpuspeed --work ... --together"
expect_eq "$(awk '{ printf "%s%s/%s/%s", (NR > 1 ? " " : ""), $1, $2, $5 } END { printf " NF=%d", NF }' "$T/cs.out")" \
	"cpu/0/syscall cpu/0/syscall cpu/0/chain cpu/0/chain cpu/0/copy cpu/0/copy cpu/0/ilp cpu/0/ilp NF=5" "cpuspeed --work: a line per CPU and work, named"
if awk '$5 == "chain" { ch = $3 } $5 == "syscall" { sc = $3 } $5 == "copy" { cp = $3 } $4 < 1 { low = 1 }
	END { exit !(ch > 0.05 && sc > ch && cp > ch && !low) }' "$T/cs.out"; then ok
else bad "cpuspeed --work: want a syscall and a 4 KB copy each slower than a chain step, RATIO >= 1; got: $(cat "$T/cs.out")"; fi
expect_fail "cpuspeed bad --work" 2 "--work takes chain, ilp, copy or syscall" "$BIN/cpuspeed" --work chain,memcpy
expect_fail "cpuspeed empty --work item" 2 "--work takes chain, ilp, copy or syscall" "$BIN/cpuspeed" --work chain,
expect_fail "cpuspeed CPU out of range" 2 "--cpus takes online CPU numbers" "$BIN/cpuspeed" --cpus 0,9999
expect_fail "cpuspeed bad --ms" 2 "--ms takes whole milliseconds" "$BIN/cpuspeed" --ms 0
expect_fail "cpuspeed bad --rounds" 2 "--rounds takes 1 to 64" "$BIN/cpuspeed" --rounds 65
# --wander: two threads on CPU 0 (the test needs one CPU; they take turns,
# so some bins of one are empty and it says so on stderr): a line per CPU,
# one for the pair, and the model's keys, which tcpsim takes as they are.
# The bins are the span both threads timed: 2 s of 1 ms bins at most, and
# less when the second started late on a CPU other tests load (990 once in
# make check): at least a quarter of them.
"$BIN/cpuspeed" --wander 2 --bin 1000 --cpus 0,0 --work chain >"$T/cs.out" 2>"$T/err"
expect_eq "$?:$(awk '{ printf "%s%s/%s/%s", (NR > 1 ? " " : ""), $1, $2, $3 }' "$T/cs.out")" \
	"0:wander/cpu/0 wander/cpu/0 wander/pair/0 model/host.speed_sd/=" "cpuspeed --wander: its lines"
# A thread the loaded CPU starved keeps one value: s.d. 0, and its
# correlations "-" (none), never nan.
if awk 'function corr(v, sd) { return v == "-" ? sd == 0 : (v >= -1 && v <= 1) }
	$2 == "cpu" && !($5 == "chain" && $7 >= 0 && $7 < 5 && corr($9, $7) && $11 != "" && $13 >= 0 && $13 <= 100 && $15 >= 500 && $15 <= 2000) { b = 1 }
	$2 == "pair" && !($6 == "chain" && $8 >= 0 && corr($10, $8) && corr($12, $8)) { b = 1 } END { exit b || NR != 4 }' "$T/cs.out"; then ok
else bad "cpuspeed --wander: want s.d. >= 0, stops 0-100%, 500-2000 bins of 1 ms, correlations in [-1, 1] (\"-\" only with s.d. 0); got: $(cat "$T/cs.out")"; fi
wsd=$(awk '$1 == "model" { print $4 }' "$T/cs.out")
wtau=$(awk '$1 == "model" && $7 ~ /ms$/ { print $7 }' "$T/cs.out") # "-": no correlation time within the run
"$TCPSIM" run scenarios/loopback-64k.cfg -s run.duration=50ms -s run.warmup=0 -s "host.speed_sd=$wsd" ${wtau:+-s "host.speed_tau=$wtau"} --format json >/dev/null 2>"$T/err"
expect_eq "$?:$(cat "$T/err")" "0:" "tcpsim takes cpuspeed --wander's host.speed_sd = $wsd and host.speed_tau = ${wtau:--}"
# --reps 3 --cfg: three runs' lines, and their median model keys as a
# fragment that tcpsim reads back: a scenario including it runs as the same
# scenario with those keys set, and not as one without them
"$BIN/cpuspeed" --wander 1 --bin 1000 --cpus 0,0 --work chain --reps 3 --cfg "$T/wander.cfg" >"$T/cs.out" 2>/dev/null
expect_eq "$?:$(grep -c '^model ' "$T/cs.out"):$(grep -c '^\[host\]$' "$T/wander.cfg")" "0:3:1" "cpuspeed --wander --reps 3 --cfg: three model lines, one fragment"
wsd=$(awk -F' = ' '$1 == "speed_sd" { print $2 }' "$T/wander.cfg")
wtau=$(awk -F' = ' '$1 == "speed_tau" { print $2 }' "$T/wander.cfg")
want=$(awk '$1 == "model" { print $4 }' "$T/cs.out" | sort -n | sed -n 2p)
expect_eq "$wsd" "$want" "cpuspeed --cfg: speed_sd is the median of the runs' model lines"
printf 'include = %s\ninclude = wander.cfg\n' "$ROOT/scenarios/loopback-64k.cfg" >"$T/with-wander.cfg"
"$TCPSIM" run "$T/with-wander.cfg" -s run.duration=50ms -s run.warmup=0 --format json >"$T/w1.json" 2>"$T/err"
expect_eq "$?:$(cat "$T/err")" "0:" "tcpsim runs a scenario including cpuspeed's fragment"
"$TCPSIM" run scenarios/loopback-64k.cfg -s run.duration=50ms -s run.warmup=0 -s "host.speed_sd=$wsd" ${wtau:+-s "host.speed_tau=$wtau"} --format json >"$T/w2.json" 2>/dev/null
"$TCPSIM" run scenarios/loopback-64k.cfg -s run.duration=50ms -s run.warmup=0 --format json >"$T/w0.json" 2>/dev/null
# (two chains on one CPU can wander together to a speed_sd that prints as
# 0.0000: a steady speed, which runs as the scenario without the keys)
if awk -v s="$wsd" 'BEGIN { exit !(s + 0 == 0) }'; then
	if cmp -s "$T/w1.json" "$T/w2.json" && cmp -s "$T/w1.json" "$T/w0.json"; then ok
	else bad "cpuspeed --cfg: speed_sd 0: the fragment's run should equal both the run with its keys set and one without"; fi
elif cmp -s "$T/w1.json" "$T/w2.json" && ! cmp -s "$T/w1.json" "$T/w0.json"; then ok
else bad "cpuspeed --cfg: the fragment's run should equal the run with its keys set ($wsd, ${wtau:--}) and differ from one without"; fi
expect_fail "cpuspeed --cfg without --wander" 2 "--reps and --cfg go with --wander" "$BIN/cpuspeed" --cfg "$T/x.cfg"
expect_fail "cpuspeed bad --reps" 2 "--reps takes 1 to 9" "$BIN/cpuspeed" --wander 1 --reps 10
expect_fail "cpuspeed --cfg into a missing directory" 1 "cannot write" "$BIN/cpuspeed" --wander 1 --cpus 0,0 --cfg "$T/none/w.cfg"
expect_fail "cpuspeed bad --wander" 2 "--wander takes whole seconds, 1 to 20" "$BIN/cpuspeed" --wander 0
expect_fail "cpuspeed --wander with two works" 2 "--wander times one work" "$BIN/cpuspeed" --wander 1 --work ilp,copy
expect_fail "cpuspeed --wander on one CPU" 2 "--wander needs two CPUs or more" "$BIN/cpuspeed" --wander 1 --cpus 0
expect_fail "cpuspeed bad --bin" 2 "--bin takes whole microseconds, 50 to 1000" "$BIN/cpuspeed" --wander 1 --bin 5000
expect_fail "cpuspeed stray argument" 2 "unexpected argument" "$BIN/cpuspeed" extra

# --- live-row: refusals ----------------------------------------------------
cp "$R" "$T/keep.csv"
expect_fail "live-row wrong cc" 2 "congestion control 'bbr' was asked for, but the sender used 'cubic'" \
	$BIN/live-row -o "$R" --json $D/iperf3-lo.json --before $D/lo-before --after $D/lo-after \
	--scenario s.cfg --point p3 --cc bbr
expect_fail "live-row swapped snapshots" 2 "is not later than the first" \
	$BIN/live-row -o "$R" --json $D/iperf3-lo.json --before $D/lo-after --after $D/lo-before \
	--scenario s.cfg --point p3
head -c 300 $D/iperf3-lo.json >"$T/cut.json"
expect_fail "live-row truncated JSON" 2 "$T/cut.json:" \
	$BIN/live-row -o "$R" --json "$T/cut.json" --before $D/lo-before --after $D/lo-after \
	--scenario s.cfg --point p3
expect_fail "live-row snapshots of another namespace" 2 "TCP counters went backwards" \
	$BIN/live-row -o "$R" --json $D/iperf3-lo.json --before $D/lo-before --after $D/lo-after \
	--rx-before $D/lo-after --rx-after $D/lo-before --scenario s.cfg --point p3
expect_fail "live-row missing option" 2 "are required" $BIN/live-row -o "$R" --json x
printf '"a","b"\n"1","2"\n' >"$T/other.csv"
expect_fail "live-row foreign file" 2 "$T/other.csv:1: not a repetitions file" \
	$BIN/live-row -o "$T/other.csv" --json $D/iperf3-lo.json --before $D/lo-before \
	--after $D/lo-after --scenario s.cfg --point p3
expect_eq "$(cat "$T/other.csv")" "$(printf '"a","b"\n"1","2"')" "a refused file is left alone"
if cmp -s "$R" "$T/keep.csv"; then ok; else bad "refused runs changed $R"; fi

# --- live-agg: medians and spreads ---------------------------------------
# pA: good 100, 120, 110 (a disturbed 5 left out): median 110, sd 10, CV 10/110;
#     cpu 50, 70, 60: median 60, CV 10/60
# pB: good 100, 200: median 150, CV 70.71/150; pC 100, 150, 200: CV 50/150; pD 100 x3: CV 0
A=$T/agg.csv
"$BIN/live-agg" $D/reps.csv -o "$A" --source "test source" 2>"$T/err"
expect_eq "$?" 0 "live-agg exit status"
expect_num "$A" id pA throughput_mbps 110 1e-12
expect_num "$A" id pA throughput_mbps_cv 0.0909090909090909 1e-9
expect_num "$A" id pA cpu_send_pct 60 1e-12
expect_num "$A" id pA cpu_send_pct_cv 0.16666666666666666 1e-9
expect_num "$A" id pB throughput_mbps 150 1e-12
expect_num "$A" id pB throughput_mbps_cv 0.4714045207910317 1e-9
expect_num "$A" id pC throughput_mbps_cv 0.3333333333333333 1e-9
expect_num "$A" id pD throughput_mbps_cv 0 1e-12
expect_eq "$(field "$A" id pA sd_send_us_per_kb)" "" "a metric not measured stays empty"
expect_eq "$(field "$A" id pA source)" "test source" "source"
expect_eq "$(field "$A" id pA overrides)" "link.mtu=1500;offload.tso=on" "overrides"
case $(field "$A" id pA note) in
*"median of 3 runs (1 disturbed"*SYSTEM-WIDE*"iperf3's own process accounting"*) ok ;;
*) bad "pA note: $(field "$A" id pA note)" ;;
esac
# which points need another run
expect_eq "$("$BIN/live-agg" $D/reps.csv --need-more | tr '\n' ' ')" "pA pB pC " "need-more (CV 0.05)"
expect_eq "$("$BIN/live-agg" $D/reps.csv --need-more --cv-max 0.1 | tr '\n' ' ')" "pB pC " "need-more (CV 0.1)"
expect_eq "$("$BIN/live-agg" $D/reps.csv --need-more --cv-max 0.1 --max-attempts 3 | tr '\n' ' ')" "pB " "need-more (3 attempts)"
expect_eq "$("$BIN/live-agg" $D/reps.csv --need-more --cv-max 0.1 --max-reps 3 | tr '\n' ' ')" "pB " "need-more (max 3 good)"
# the live-row file of the recorded runs aggregates too: only p2 is good
"$BIN/live-agg" "$R" -o "$T/agg2.csv" --source s 2>"$T/err"
expect_eq "$(awk 'END { print NR }' "$T/agg2.csv")" 2 "aggregate of live-row output: header + p2"
grep -q "point 'p1': no undisturbed repetition" "$T/err" && ok || bad "p1 not reported as left out"
# the per-CPU, pacing and TcpExt columns: median and CV carried into the
# per-point file (two runs of p9 with 300 and 600 tcp_pace_kick hits: median
# 147.99, CV 70.71/147.99), and tcpsim's runs reader takes that file
$ROW -o "$T/one.csv" --point p9 --other-max 50 --send-cpu 1 --recv-cpu 1 --pace-kicks 600 >"$T/out" 2>&1
$ROW -o "$T/one.csv" --point p10 --other-max 50 >"$T/out" 2>&1
"$BIN/live-agg" "$T/one.csv" -o "$T/agg3.csv" --source s 2>"$T/err"
expect_eq "$?" 0 "live-agg with per-CPU columns"
expect_num "$T/agg3.csv" id p9 pace_kicks_per_s 147.99391982305277 1e-5
expect_num "$T/agg3.csv" id p9 pace_kicks_per_s_cv 0.47140452079103173 1e-5
expect_num "$T/agg3.csv" id p9 snd_cpu_busy_pct 85.08474576271186 1e-5
expect_num "$T/agg3.csv" id p9 snd_cpu_busy_pct_cv 0 1e-12
expect_num "$T/agg3.csv" id p9 tcpext_TCPHPHits_per_s 15706.759148509282 1e-5
expect_num "$T/agg3.csv" id p10 snd_cpu_busy_pct 65.61264822134387 1e-5
expect_eq "$(field "$T/agg3.csv" id p10 pace_kicks_per_s)" "" "p10: no pace kicks given"
expect_num "$T/agg3.csv" id p9 throughput_mbps 17773.499403030644 1e-5
"$BIN/runs-filter" "$T/agg3.csv" -o "$T/filtered.csv" 2>"$T/err"
expect_eq "$?:$(cat "$T/err")" "0:" "tcpsim's runs reader takes live-agg's per-CPU columns"
# the old repetitions files (no per-CPU columns) give the old columns only
expect_eq "$(head -1 "$A" | grep -c snd_cpu)" 0 "no per-CPU columns from an old repetitions file"
# refusals
sed '3s/"100","100","50"/"x","100","50"/' $D/reps.csv >"$T/badnum.csv"
expect_fail "live-agg bad number" 2 "$T/badnum.csv:3: column 'throughput_mbps': 'x' is not a number" \
	"$BIN/live-agg" "$T/badnum.csv" -o "$T/o.csv" --source s
sed '4s/link.mtu=1500/link.mtu=9000/' $D/reps.csv >"$T/mixed.csv"
expect_fail "live-agg inconsistent point" 2 "$T/mixed.csv:9: point 'pC': overrides" \
	"$BIN/live-agg" "$T/mixed.csv" -o "$T/o.csv" --source s
printf '"point","x\n' >"$T/quote.csv"
expect_fail "live-agg unterminated quote" 2 "$T/quote.csv:1: unterminated quoted field" \
	"$BIN/live-agg" "$T/quote.csv" -o "$T/o.csv" --source s
expect_fail "live-agg not a reps file" 2 "no column 'point'" \
	"$BIN/live-agg" "$T/other.csv" -o "$T/o.csv" --source s
[ ! -e "$T/o.csv" ] && ok || bad "a refused aggregate wrote its output"

# --- procstat -------------------------------------------------------------
"$BIN/procstat" delta $D/lo-before $D/lo-after >"$T/delta" 2>&1
expect_eq "$(sed -n 's/^netrx_softirqs_per_s //p' "$T/delta")" 69006.605 "procstat delta NET_RX"
expect_eq "$(sed -n 's/^ns_dev_lo_tx_packets //p' "$T/delta")" 231866 "procstat delta lo packets"
expect_eq "$(sed -n 's/^cpu1_cal_per_s //p' "$T/delta")" 6853.105 "procstat delta CAL received by CPU 1"
expect_eq "$(sed -n 's/^ns_tcpext_TCPHPHits_per_s //p' "$T/delta")" 15706.759 "procstat delta TcpExt"
# what /proc/stat counts of each CPU's wall clock: cpu0's 253 ticks of 304.07
expect_eq "$(sed -n 's/^cpu0_counted_pct //p' "$T/delta")" 83.2055 "procstat delta: the share of CPU 0's clock /proc/stat counts"
"$BIN/procstat" snap "$T/s1" && "$BIN/procstat" snap "$T/s2" && "$BIN/procstat" delta "$T/s1" "$T/s2" >"$T/delta" 2>&1
expect_eq "$?" 0 "procstat snap + delta on this machine"
[ ! -e "$T/s1.tmp" ] && ok || bad "snapshot left its temporary directory"
expect_fail "procstat snap over a snapshot" 2 "exists already" "$BIN/procstat" snap "$T/s1"
expect_fail "procstat bad command" 2 "unknown command 'snapshot'" "$BIN/procstat" snapshot x
mkdir "$T/half" && cp $D/lo-before/time $D/lo-before/stat "$T/half/"
expect_fail "procstat incomplete snapshot" 1 "$T/half/softirqs" "$BIN/procstat" delta "$T/half" $D/lo-after

# --- primcost: the machine's primitive costs (a quick run) -----------------
"$BIN/primcost" --quick -o "$T/pc.csv" >"$T/pc.out" 2>"$T/err"
expect_eq "$?:$(cat "$T/err")" "0:" "primcost --quick"
expect_eq "$(awk 'END { print NR }' "$T/pc.csv")" 16 "primcost: header + 15 primitives"
for p in idle_poll idle_exit; do # a window and a latency: zero is a measurement
	v=$(field "$T/pc.csv" primitive $p ns)
	if awk -v v="$v" 'BEGIN { exit !(v ~ /^[0-9.e+-]+$/ && v + 0 >= 0) }'; then ok; else bad "primcost $p: ns '$v' is not a number >= 0"; fi
done
for p in timer_irq wake_idle_waker wake_idle_latency wake_busy_waker wake_busy_latency \
	wake_same_waker wake_same_latency syscall copy_byte line_xfer pipe_rw; do
	v=$(field "$T/pc.csv" primitive $p ns)
	if awk -v v="$v" 'BEGIN { exit !(v ~ /^[0-9.e+-]+$/ && v + 0 > 0) }'; then ok; else bad "primcost $p: ns '$v' is not a positive number"; fi
	grep -q "^$p " "$T/pc.out" && ok || bad "primcost table lacks $p"
done
# a switch and a wakeup are differences of two timings (a quick run on a busy
# machine may take them below zero): numbers, in the table
for p in ctxsw wakeup; do
	v=$(field "$T/pc.csv" primitive $p ns)
	if awk -v v="$v" 'BEGIN { exit !(v ~ /^-?[0-9.e+-]+$/) }'; then ok; else bad "primcost $p: ns '$v' is not a number"; fi
	grep -q "^$p " "$T/pc.out" && ok || bad "primcost table lacks $p"
done
# its profile fragment reads back: a scenario that includes it runs
"$BIN/primcost" --quick --cfg "$T/pc.cfg" >/dev/null 2>"$T/err"
expect_eq "$?:$(cat "$T/err")" "0:" "primcost --quick --cfg"
printf 'include = %s\n[run]\nduration = 20ms\nwarmup = 5ms\nbatch = 5ms\n[host]\ncpus = 2\nkernel = 6.18\n' "$T/pc.cfg" >"$T/pcrun.cfg"
if "$TCPSIM" "$T/pcrun.cfg" --format csv >"$T/sim" 2>"$T/err"; then ok; else bad "tcpsim with primcost's fragment: $(cat "$T/err")"; fi
for k in host.idle_poll host.idle_exit cost.ipi_send cost.timer_irq cost.syscall cost.ctxsw cost.wakeup; do
	grep -q "^${k#*.} = " "$T/pc.cfg" && ok || bad "primcost --cfg lacks $k"
done
# a guest that never polls (cpuidle-haltpoll at 0 ns, or no cpuidle driver):
# idle_exit is the halted CPU's extra wakeup latency over a busy one's, the
# two medians its comment names, not the sweep's edge
if grep -q "^idle_poll = 0ns" "$T/pc.cfg"; then
	want=$(awk '/^; wake_idle_latency [0-9]+ ns - wake_busy_latency [0-9]+ ns/ { d = $3 - $7; print (d > 0 ? d : 0) "ns" }' "$T/pc.cfg")
	expect_eq "$(sed -n 's/^idle_exit = //p' "$T/pc.cfg")" "${want:-no comment}" "primcost --cfg: a never-polling guest's idle_exit"
fi
# --split-same: a host's switch and wakeup from its recorded same-CPU wakeup
# (latency less a syscall, the mean over the files), split as a measured run
# splits its own: (5000 - 2000 + 6000 - 3000) / 2 = 3000 cycles, 60% ctxsw
printf '"primitive","ns","cycles"\n"wake_same_latency","1","5000"\n"syscall","1","2000"\n' >"$T/ps1.csv"
printf '"primitive","ns","cycles"\n"syscall","1","3000"\n"wake_same_latency","1","6000"\n' >"$T/ps2.csv"
printf '"primitive","ns","cycles"\n"ctxsw","1","1200"\n"wakeup","1","800"\n' >"$T/psby.csv"
"$BIN/primcost" --split-same "$T/ps1.csv,$T/ps2.csv" --by "$T/psby.csv" >"$T/ps.out" 2>"$T/err"
expect_eq "$?:$(cat "$T/err")" "0:" "primcost --split-same"
expect_eq "$(sed -n 's/^ctxsw = //p; s/^wakeup = //p' "$T/ps.out" | paste -s -d' ' -)" "1200 1800" "primcost --split-same: wakeup and ctxsw"
expect_fail "primcost --split-same without --by" 2 "needs --by" "$BIN/primcost" --split-same "$T/ps1.csv"
expect_fail "primcost --split-same, a row missing" 1 "no row 'ctxsw'" "$BIN/primcost" --split-same "$T/ps1.csv" --by "$T/ps1.csv"
printf '"primitive","ns","cycles"\n"ctxsw","1","x"\n"wakeup","1","800"\n' >"$T/psbad.csv"
expect_fail "primcost --split-same, not a number" 1 "psbad.csv:2: ctxsw" "$BIN/primcost" --split-same "$T/ps1.csv" --by "$T/psbad.csv"
# --sweep: the polling sweep after the table, a row per gap (0..200 us), a
# waker's cost and a latency per round (3 with --quick), all positive
"$BIN/primcost" --quick --sweep --cfg "$T/pcs.cfg" >"$T/pcs.out" 2>"$T/err"
expect_eq "$?:$(cat "$T/err")" "0:" "primcost --quick --sweep"
# --sweep --cfg: the law fitted to the cheap shares, a fragment that reads back
grep -q '^idle_poll_dist = exp$' "$T/pcs.cfg" && ok || bad "primcost --sweep --cfg lacks idle_poll_dist = exp"
v=$(awk -F' = ' '$1 == "idle_poll_share" { print $2 }' "$T/pcs.cfg")
if awk -v v="$v" 'BEGIN { exit !(v ~ /^[0-9.]+$/ && v >= 0 && v <= 1) }'; then ok; else bad "primcost idle_poll_share '$v'"; fi
grep -q '^fitted share \* exp(-gap / mean) (least squares), per round: .* ns; pooled share [0-9.]*, mean [0-9]* ns$' "$T/pcs.out" && ok || bad "primcost --sweep: the fitted law"
printf 'include = %s\n[run]\nduration = 20ms\nwarmup = 5ms\nbatch = 5ms\n[host]\ncpus = 2\nkernel = 6.18\n' "$T/pcs.cfg" >"$T/pcsrun.cfg"
if "$TCPSIM" "$T/pcsrun.cfg" --format csv >"$T/sim" 2>"$T/err"; then ok; else bad "tcpsim with primcost's --sweep fragment: $(cat "$T/err")"; fi
# --fit-cheap: a known law comes back; bad lists are refused
v=$("$BIN/primcost" --fit-cheap 60,49.1,40.2,32.9,27.0,18.1,12.1,5.4,2.4,0.5,0.1,0,0,0,0)
if echo "$v" | awk '{ exit !($1 == "share" && $2 >= 0.595 && $2 <= 0.605 && $4 >= 4950 && $4 <= 5050) }'; then ok
else bad "primcost --fit-cheap of 60% x exp(-g / 5 us): $v"; fi
expect_eq "$("$BIN/primcost" --fit-cheap 58.5,11.5,42,17.5,20,5.5,8,6,0.5,1,1,1,1.5,4.5,2)" "share 0.298 mean 6824 ns" \
	"primcost --fit-cheap: the profile's figures from the two recorded sweeps"
# the live profile's polling law is the fit to the traced gaps it names
v=$(sed -n 's/^#   fit points: [^,]*,//p' validation/live/amd-epyc-2cpu.wakegaps.txt | tail -1)
expect_eq "$("$BIN/primcost" --fit-cheap-normal "$v")" "share 0.864 mean 9217 ns sd 2111 ns" \
	"primcost --fit-cheap-normal: the profile's figures from the traced gaps"
grep -q '^idle_poll_share = 0.864$' scenarios/live/amd-epyc-2cpu.primcost.cfg && ok || bad "the live profile's idle_poll_share is not the traced gaps' fit"
# the 2026-12-02 host's law: its pooled points without the 0-1 us bin
v=$(grep 'fit points' validation/live/amd-epyc-2cpu-2096.wakegaps.txt | tail -1 | sed 's/.*fit points: //' | tr ',' '\n' | grep -v '^0.00:' | paste -sd, -)
expect_eq "$("$BIN/primcost" --fit-cheap-normal "$v")" "share 0.130 mean 1060 ns sd 809 ns" \
	"primcost --fit-cheap-normal: amd-epyc-2cpu-2096's figures from its traced gaps"
grep -q '^idle_poll_share = 0.130$' scenarios/live/amd-epyc-2cpu-2096.primcost.cfg && ok || bad "amd-epyc-2cpu-2096's idle_poll_share is not its traced gaps' fit"
# --wake-gaps: a row per gap, the waker's cost and the latency per round and their medians
"$BIN/primcost" --quick --wake-gaps 5,50 >"$T/wg.out" 2>"$T/err"
expect_eq "$?:$(cat "$T/err")" "0:" "primcost --quick --wake-gaps 5,50"
expect_eq "$(awk '$1 == "5" || $1 == "50" { n++; if (NF != 9 || $(NF - 1) <= 0 || $NF <= 0) bad = 1 } END { print n + 0, bad + 0 }' "$T/wg.out")" "2 0" \
	"primcost --wake-gaps: two rows of 3 rounds, positive medians"
expect_fail "primcost --wake-gaps not a number" 2 "--wake-gaps '5,x'" "$BIN/primcost" --wake-gaps 5,x
expect_fail "primcost --wake-gaps negative" 2 "from 0 to 1000000" "$BIN/primcost" --wake-gaps -1
# --fit-cheap-normal recovers a known law: 80% x P(N(9 us, 2 us) > g)
v=$(awk 'BEGIN { n = split("0 1 2 3 4 5 6 8 10 12 16 24", g, " ")
	for (i = 1; i <= n; i++) { z = (g[i] - 9) / 2; q = 0.5 * erfc(z / sqrt(2)); printf "%s%g:%.3f:100", (i > 1 ? "," : ""), g[i], 80 * q } }
	# erfc by Chebyshev fitting (Numerical Recipes erfcc, |error| < 1.2e-7)
	function erfc(x,   t, y) { t = 1 / (1 + 0.5 * (x < 0 ? -x : x)); y = t * exp(-x * x - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))))); return x >= 0 ? y : 2 - y }')
v=$("$BIN/primcost" --fit-cheap-normal "$v")
if echo "$v" | awk '{ exit !($2 >= 0.79 && $2 <= 0.81 && $4 >= 8900 && $4 <= 9100 && $7 >= 1950 && $7 <= 2050) }'; then ok
else bad "primcost --fit-cheap-normal of 80% x P(N(9, 2) > g): $v"; fi
# the 0 us gap is not fitted (the sleeper has not blocked yet)
expect_eq "$("$BIN/primcost" --fit-cheap 100,0,0,0,0,0,0,0,0,0,0,0,0,0,0 | cut -d' ' -f1,2)" "share 0.000" \
	"primcost --fit-cheap leaves the 0 us gap out"
expect_fail "primcost --fit-cheap too few" 2 "takes 15 comma-separated percentages" "$BIN/primcost" --fit-cheap 44,22
expect_fail "primcost --fit-cheap not a share" 2 "takes 15 comma-separated percentages" "$BIN/primcost" --fit-cheap 44,22,53,25,23,9,15,12,1,2,1,1,2,9,300
expect_eq "$(awk '/^polling sweep/ { s = 1; next } s && $1 ~ /^[0-9]+$/ && NF == 7 && $2 > 0 && $3 > 0 { n++ } END { print n + 0 }' "$T/pcs.out")" 15 \
	"primcost --sweep: 15 gaps of 3 rounds"
expect_eq "$(awk '/^polling sweep/ { s = 1; next } /^$/ { s = 0 } s && $1 ~ /^[0-9]+$/ { print $1 }' "$T/pcs.out" | tr '\n' ' ')" \
	"0 1 2 3 4 6 8 12 16 24 32 48 64 100 200 " "primcost --sweep: the gaps"
# and the cheap wakeups' shares: per gap, from rest and from busy for each
# round, then over all rounds, each a percentage
expect_eq "$(awk '/^cheap wakeups/ { s = 1; next } s && $1 ~ /^[0-9]+$/ && NF == 9 { ok = 1; for (i = 2; i <= NF; i++) if ($i < 0 || $i > 100) ok = 0; n += ok } END { print n + 0 }' "$T/pcs.out")" 15 \
	"primcost --sweep: 15 gaps of cheap-wakeup shares"
expect_fail "primcost one CPU twice" 2 "two different CPU numbers" "$BIN/primcost" --cpus 0,0
expect_fail "primcost a CPU the machine lacks" 2 "this machine has CPUs" "$BIN/primcost" --cpus 0,4095 --quick

# --- measure-live: the plan and the refusals -----------------------------
ML=tools/measure-live
$ML --dry-run --machine m >"$T/plan" 2>"$T/err"
expect_eq "$?" 0 "measure-live --dry-run"
expect_eq "$(grep -vc '^#' "$T/plan")" 104 "the default matrix has 96 loopback + 8 veth points"
expect_eq "$(grep -c '^m-lo-' "$T/plan")" 96 "loopback points"
expect_eq "$(grep -c 'app.test=TCP_STREAM;link.mtu=[0-9]*;offload.tso=o[nf]*;offload.gso=' "$T/plan")" 80 "stream, pinned apart: 4 sizes x 5 MTUs x TSO x GSO"
expect_eq "$(grep -c -- '-sendfile	.*app.test=TCP_SENDFILE' "$T/plan")" 12 "sendfile points"
expect_eq "$(grep -c -- '-rcpu0	.*app.recv_cpu=0;.*app.send_cpu=0' "$T/plan")" 4 "pinned together, both CPUs in the overrides"
expect_eq "$(grep -v '^#' "$T/plan" | sed -n 1p | tr '\t' ' ')" "m-lo-mtu1500-tso_on-gso_on-send4K scenarios/live/m-lo.cfg offload.gro=on;app.test=TCP_STREAM;link.mtu=1500;offload.tso=on;offload.gso=on;app.send_size=4K;app.recv_size=4K" "first point"
expect_eq "$(tail -1 "$T/plan" | tr '\t' ' ')" "m-veth-mtu9000-tso_off-gro_off scenarios/live/m-veth.cfg offload.gso=on;app.send_size=64K;link.mtu=9000;offload.tso=off;offload.gro=off;app.recv_size=64K" "last point"
grep -q '^# 104 points, 3..5 good runs each of 3 s, cc cubic (unpaced' "$T/plan" && ok || bad "plan header: $(head -1 "$T/plan")"
grep -q '^# output: validation/live/m.csv (+ m.reps.csv, m.txt, m.primcost.csv, m.primcost-end.csv, m.wander.txt, m.sockets.txt)$' "$T/plan" && ok ||
	bad "default outputs: $(grep '^# output' "$T/plan")"
# --parse-ss: what one_run takes from the sender's `ss -Htim` (the data
# connection of a kept sample, beside the control one): its algorithm, its
# window-limited share, cwnd, ssthresh ("-": still in slow start) and send
# buffer
S=validation/live/amd-epyc-2cpu-2695-sockets
for f in 9000-4K-2 65536-4K-1; do
	awk '/^== 6$/ { on = 1; next } /^== / { on = 0 } on' $S/$f.ss |
		awk '/^[0-9]/ { keep = ($4 ~ /:5201$/) } keep' >"$T/ss-$f"
done
expect_eq "$(bash $ML --parse-ss "$T/ss-9000-4K-2")" "cubic|94.69|47|32|1564160" "measure-live --parse-ss: out of slow start"
expect_eq "$(bash $ML --parse-ss "$T/ss-65536-4K-1")" "cubic|99.46|10|-|2626560" "measure-live --parse-ss: still in slow start"
expect_eq "$(bash $ML --parse-ss /dev/null)" "||||" "measure-live --parse-ss: no socket, every field empty"
expect_fail "measure-live --parse-ss a missing file" 2 "--parse-ss wants a readable file" bash $ML --parse-ss "$T/none"
# the host-speed canary: the dependent chain and 40% by default, another
# work 12% (timed on both CPUs at once); --slow-max wins
expect_eq "$(sed -n 2p "$T/plan")" "# host-speed canary: cpuspeed --work chain, a run disturbed above 40% slower than the baseline" "default canary"
$ML --dry-run --machine m --canary ilp >"$T/plan2" 2>"$T/err"
expect_eq "$?:$(sed -n 2p "$T/plan2")" "0:# host-speed canary: cpuspeed --work ilp --together, a run disturbed above 12% slower than the baseline" "--canary ilp"
$ML --dry-run --machine m --canary copy --slow-max 20 >"$T/plan2" 2>"$T/err"
expect_eq "$?:$(sed -n 2p "$T/plan2")" "0:# host-speed canary: cpuspeed --work copy --together, a run disturbed above 20% slower than the baseline" "--canary copy --slow-max 20"
expect_fail "measure-live bad --canary" 2 "--canary: 'lcg' is not ilp, chain, copy or syscall" $ML --dry-run --canary lcg
# the paced set: its own ids, tcp.pacing=on, its own default file
$ML --dry-run --machine m --paced >"$T/plan" 2>"$T/err"
expect_eq "$(grep -vc '^#' "$T/plan")" 12 "the paced set"
expect_eq "$(grep -v '^#' "$T/plan" | grep -vc -- '-paced	.*;tcp.pacing=on$')" 0 "every paced point says so"
grep -q '^# output: validation/live/m-paced.csv' "$T/plan" && ok || bad "paced default output: $(sed -n 2p "$T/plan")"
$ML --dry-run --machine m --topology lo --set app.recv_cpu=1 --vary app.test=TCP_STREAM,TCP_SENDFILE >"$T/plan"
expect_eq "$(grep -v '^#' "$T/plan" | cut -f1,3 | tr '\t\n' '  ')" "m-lo-stream link.mtu=65536;offload.tso=on;offload.gso=on;offload.gro=on;app.recv_cpu=1;app.test=TCP_STREAM;app.send_cpu=0 m-lo-sendfile link.mtu=65536;offload.tso=on;offload.gso=on;offload.gro=on;app.recv_cpu=1;app.test=TCP_SENDFILE;app.send_cpu=0 " "app.test and app.recv_cpu"
# a device key a point does not set is put back to its topology's default
# (the scenario's), not left as the point before set it
$ML --dry-run --machine m --topology lo --set link.mtu=16436 --set offload.tso=off --vary app.send_size=64K --topology lo --vary app.send_size=16K --topology veth --vary app.send_size=64K >"$T/plan"
expect_eq "$(grep -v '^#' "$T/plan" | cut -f3 | tr '\n' ' ')" "offload.gso=on;offload.gro=on;link.mtu=16436;offload.tso=off;app.send_size=64K;app.recv_size=64K link.mtu=65536;offload.tso=on;offload.gso=on;offload.gro=on;app.send_size=16K;app.recv_size=16K link.mtu=1500;offload.tso=on;offload.gso=on;offload.gro=off;app.send_size=64K;app.recv_size=64K " "device keys a point does not set, at the topology's defaults"
expect_fail "measure-live bad app.test" 2 "app.test: 'UDP_STREAM' is not TCP_STREAM or TCP_SENDFILE" $ML --dry-run --topology lo --vary app.test=UDP_STREAM
expect_fail "measure-live bad app.recv_cpu" 2 "app.recv_cpu: '4096' is not a CPU" $ML --dry-run --topology lo --set app.recv_cpu=4096
$ML --dry-run --machine m --topology lo --vary link.mtu=1500,9000 --vary offload.gro=on,off >"$T/plan"
expect_eq "$(grep -v '^#' "$T/plan" | cut -f1 | tr '\n' ' ')" "m-lo-mtu1500-gro_on m-lo-mtu1500-gro_off m-lo-mtu9000-gro_on m-lo-mtu9000-gro_off " "first axis slowest"
# --trace: one traced run a point, a text table, the window inside the run
$ML --dry-run --machine m --trace --topology lo --vary link.mtu=1500,65536 >"$T/plan"
grep -q '^# --trace: one traced run per point, 1 s traced; output: validation/live/m.trace.txt' "$T/plan" && ok \
	|| bad "trace plan: $(sed -n 2p "$T/plan")"
expect_eq "$(grep -vc '^#' "$T/plan")" 2 "trace points"
expect_fail "measure-live trace window longer than the run" 2 "--trace-window 3: must be above 0 and at most --duration - 1" \
	$ML --dry-run --trace --trace-window 3 --topology lo --vary link.mtu=1500
expect_fail "measure-live bad --slow-max" 2 "--slow-max: 'much' is not a percentage" $ML --dry-run --slow-max much
# --write-scenarios for a machine never measured: the profile includes its
# primitive costs, a placeholder until a measurement writes them (it writes
# into the checkout's scenarios/live: a name of its own, removed after)
$ML --write-scenarios --machine "$WM" >"$T/out" 2>&1
expect_eq "$?" 0 "measure-live --write-scenarios"
grep -qx "include = $WM.primcost.cfg" "scenarios/live/$WM.cfg" && ok || bad "the profile does not include $WM.primcost.cfg"
# the hardware behind the model name: family, model, stepping and the copies' flags
grep -Eq '^; family [0-9?]+ model [0-9?]+ stepping [0-9?]+; (no )?avx2 (no )?avx512f (no )?erms (no )?fsrm,$' "scenarios/live/$WM.cfg" &&
	ok || bad "the profile does not name the CPU's family, model, stepping and flags: $(grep -m1 '^; family' "scenarios/live/$WM.cfg")"
expect_eq "$(head -1 "scenarios/live/$WM.primcost.cfg")" "; $WM: primitive costs not measured yet" "the placeholder"
if "$TCPSIM" "scenarios/live/$WM-lo.cfg" -s run.duration=0.1s -s run.warmup=0 --format csv >"$T/sim" 2>"$T/err"; then ok
else bad "tcpsim on the new machine's loopback scenario: $(cat "$T/err")"; fi
echo "; measured" >"scenarios/live/$WM.primcost.cfg"
$ML --write-scenarios --machine "$WM" >"$T/out" 2>&1
expect_eq "$(cat "scenarios/live/$WM.primcost.cfg")" "; measured" "--write-scenarios keeps a measured fragment"
rm -f "scenarios/live/$WM.cfg" "scenarios/live/$WM-lo.cfg" "scenarios/live/$WM-veth.cfg" "scenarios/live/$WM.primcost.cfg"
expect_fail "measure-live unknown key" 2 "cannot set 'tcp.sndbuf' on a live machine" $ML --dry-run --topology lo --vary tcp.sndbuf=64K,1M
expect_fail "measure-live --vary first" 2 "give --topology first" $ML --dry-run --vary link.mtu=1500
expect_fail "measure-live bad mtu" 2 "link.mtu: '99999' is not an MTU" $ML --dry-run --topology lo --vary link.mtu=1500,99999
expect_fail "measure-live bad topology" 2 "--topology: 'wifi' is not lo or veth" $ML --dry-run --topology wifi
expect_fail "measure-live twice the same point" 2 "appears twice" $ML --dry-run --topology lo --topology lo
# groups that differ only in --set: their points carry the --set values in
# their ids (all of such a group's points); another group's ids stay short
$ML --dry-run --machine m --topology lo --set link.mtu=16436 --set offload.tso=off --vary app.send_size=64K \
	--topology lo --set link.mtu=1500 --vary app.send_size=64K,16K --topology lo --vary app.send_size=4K >"$T/plan2" 2>"$T/err"
expect_eq "$?:$(grep -v '^#' "$T/plan2" | cut -f1 | tr '\n' ' ')" "0:m-lo-mtu16436-tso_off-send64K m-lo-mtu1500-send64K m-lo-mtu1500-send16K m-lo-send4K " "ids of groups that differ only in --set"
expect_fail "measure-live twice the same point with --set" 2 "point 'm-lo-mtu1500-send4K' appears twice" \
	$ML --dry-run --machine m --topology lo --set link.mtu=1500 --vary app.send_size=4K --topology lo --set link.mtu=1500 --vary app.send_size=4K
# Refusals, whatever is installed: stand-ins for iperf3 and ethtool on a
# PATH made here, so "unknown cc" is reached without the real tools, and the
# tools' absence is tested with a PATH that has every command but them.
mkdir "$T/stub" "$T/noiperf" "$T/noethtool"
for n in iperf3 ethtool; do
	printf '#!/bin/sh\necho "stand-in %s $*"\nexit 0\n' "$n" >"$T/stub/$n"
	chmod 755 "$T/stub/$n"
done
for d in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
	for f in "$d"/*; do
		n=${f##*/}
		case $n in iperf3|ethtool) continue ;; esac
		[ -e "$T/noiperf/$n" ] || ln -s "$f" "$T/noiperf/$n" 2>/dev/null
		[ -e "$T/noethtool/$n" ] || ln -s "$f" "$T/noethtool/$n" 2>/dev/null
	done
done
ln -s "$T/stub/ethtool" "$T/noiperf/ethtool"
ln -s "$T/stub/iperf3" "$T/noethtool/iperf3"
expect_fail "measure-live unknown cc" 2 "congestion control 'nosuchcc' is not available" \
	env PATH="$T/stub:$PATH" bash $ML --machine m -o "$T/x.csv" --cc nosuchcc
# the not-root check from a copy any user can read, wherever this checkout is
PUB=$(mktemp -d)
chmod 755 "$PUB"
mkdir "$PUB/tools" && cp $ML "$PUB/tools/measure-live" && chmod 755 "$PUB/tools" "$PUB/tools/measure-live"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	expect_fail "measure-live not root" 2 "must run as root" \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		env -C "$PUB" PATH="$PATH" bash "$PUB/tools/measure-live" --machine m -o "$PUB/x.csv"
fi
rm -rf "$PUB"
if [ "$(id -u)" != 0 ]; then
	expect_fail "measure-live not root" 2 "must run as root" bash $ML --machine m -o "$T/x.csv"
else
	expect_fail "measure-live without iperf3" 2 "apt-get install -y iperf3" \
		env PATH="$T/noiperf" bash $ML --machine m -o "$T/x.csv"
	expect_fail "measure-live without ethtool" 2 "apt-get install -y ethtool" \
		env PATH="$T/noethtool" bash $ML --machine m -o "$T/x.csv"
fi

# --- tools/wakeups-live: its refusals, before anything is measured ---------
WL=tools/wakeups-live
expect_fail "wakeups-live unknown argument" 2 "unknown argument '--bogus'" bash $WL --bogus
expect_fail "wakeups-live bad reps" 2 "--reps must be at least 1" bash $WL --reps 0
expect_fail "wakeups-live bad number" 2 "not a whole number" bash $WL --duration 5s
expect_fail "wakeups-live window too long" 2 "must be at least 1 s and leave 1 s" bash $WL --duration 3 --window 2
expect_fail "wakeups-live bad mtu" 2 "--mtu '99999': not an MTU" bash $WL --mtu 1500,99999
expect_fail "wakeups-live bad size" 2 "--sizes '4 K': not a size" bash $WL --sizes "4 K"
expect_fail "wakeups-live output directory" 2 "does not exist or is not writable" bash $WL -o "$T/no/such/dir/x.txt"
expect_fail "wakeups-live bad pause" 2 "--pause-reader '0': not a whole number of ms" bash $WL --pause-reader 0
expect_fail "wakeups-live pause with counters" 2 "--pause-reader: not with --counters or --startup" bash $WL --pause-reader 50 --counters 64M
expect_fail "wakeups-live bad interval" 2 "--interval 'x': not a whole number of seconds" bash $WL --interval x
expect_fail "wakeups-live veth with counters" 2 "--veth: not with --counters" bash $WL --veth --counters 64M
# --parse-gaps: a trace's sleeps of the reader (pid 100, CPU 1) matched with
# the wakeup sent to its CPU after each: a preemption (R+) is no sleep, a
# send to another CPU or a second send is not the match, a switch on
# another CPU is not the reader's CPU's
cat >"$T/gaps.trace" <<'EOF_TRACE'
# tracer: nop
          iperf3-100     [001] d..2.    10.000000: sched_switch: prev_comm=iperf3 prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
          iperf3-99      [000] d.s3.    10.000002: sched_wake_idle_without_ipi: cpu=1
          iperf3-100     [001] .....    10.000004: sys_pselect6 -> 0x1
          <idle>-0       [001] d..2.    10.000003: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=iperf3 next_pid=100 next_prio=120
          iperf3-100     [001] d..2.    10.000010: sched_switch: prev_comm=iperf3 prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
          iperf3-99      [000] d.s3.    10.000030: ipi_send_cpu: cpu=1 callsite=__smp_call_single_queue+0x5d/0x80 callback=generic_smp_call_function_single_interrupt+0x0/0x20
          iperf3-99      [000] d.s3.    10.000031: ipi_send_cpu: cpu=1 callsite=x callback=y
          <idle>-0       [001] d.h1.    10.000045: call_function_single_entry: vector=251
          <idle>-0       [001] d.h1.    10.000046: call_function_single_entry: vector=251
          <idle>-0       [001] d..2.    10.000050: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=iperf3 next_pid=100 next_prio=120
          iperf3-100     [001] .....    10.000052: sys_pselect6 -> 0x1
          iperf3-100     [001] d..2.    10.000060: sched_switch: prev_comm=iperf3 prev_pid=100 prev_prio=120 prev_state=R+ ==> next_comm=swapper/1 next_pid=0 next_prio=120
          iperf3-99      [000] d.s3.    10.000061: sched_wake_idle_without_ipi: cpu=0
          iperf3-100     [000] d..2.    10.000070: sched_switch: prev_comm=iperf3 prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
          iperf3-99      [000] d.s3.    10.000071: sched_wake_idle_without_ipi: cpu=1
EOF_TRACE
bash $WL --parse-gaps "$T/gaps.trace" --server-pid 100 --recv-cpu 1 >"$T/gaps.out" 2>"$T/err"
expect_eq "$?:$(cat "$T/err")" "0:" "wakeups-live --parse-gaps"
expect_eq "$(awk '$2 ~ /^[0-9]/ { print $2, $3, $4 }' "$T/gaps.out" | tr '\n' ';')" "2-3 1 1;16-24 1 0;" "wakeups-live --parse-gaps: the bins"
grep -q '^#   sleeps 2, matched with a wakeup sent to the CPU 2, of them without an IPI 1 (50.0%)$' "$T/gaps.out" && ok || bad "wakeups-live --parse-gaps: $(cat "$T/gaps.out")"
grep -q '^#   fit points: 2.00:100.0:1,20.00:0.0:1$' "$T/gaps.out" && ok || bad "wakeups-live --parse-gaps: the fit points"
# each matched wakeup: from its send to its IPI taken (the first only), then
# to the reader back from select()
expect_eq "$(awk '$2 ~ /^(ipi_|no_ipi)/ { print $2, $3, $5 }' "$T/gaps.out" | tr '\n' ';')" "ipi_1us+ 1 15.00;ipi_1us+ 1 22.00;no_ipi 1 2.00;" "wakeups-live --parse-gaps: the latencies"
# which primcost --fit-cheap-at takes
v=$(sed -n 's/^#   fit points: //p' "$T/gaps.out")
"$BIN/primcost" --fit-cheap-at "$v" >"$T/fit.out" 2>"$T/err"
expect_eq "$?:$(cat "$T/err")" "0:" "primcost --fit-cheap-at the parsed points"
expect_fail "wakeups-live --parse-gaps without a pid" 2 "needs --server-pid" bash $WL --parse-gaps "$T/gaps.trace"
expect_fail "primcost --fit-cheap-at one point" 2 "take GAP_US:PERCENT" "$BIN/primcost" --fit-cheap-at 1:50
# --parse-stalls: the writer's CPU's intervals between two lo transmits,
# classed by the wakeup of the reader's CPU (1) sent in them: an IPI to
# another CPU and another device's transmit do not count
cat >"$T/stall.trace" <<'EOF_TRACE'
# tracer: nop
          iperf3-99      [000] d.s3.    10.000000: net_dev_xmit: dev=lo skbaddr=0000 len=100 rc=0
          iperf3-99      [000] d.s3.    10.000003: net_dev_xmit: dev=lo skbaddr=0000 len=100 rc=0
          iperf3-99      [000] d.s3.    10.000004: ipi_send_cpu: cpu=1 callsite=x callback=y
          iperf3-99      [000] d.s3.    10.000018: net_dev_xmit: dev=lo skbaddr=0000 len=100 rc=0
          iperf3-99      [000] d.s3.    10.000019: sched_wake_idle_without_ipi: cpu=1
          iperf3-99      [000] d.s3.    10.000023: net_dev_xmit: dev=lo skbaddr=0000 len=100 rc=0
          iperf3-99      [000] d.s3.    10.000024: ipi_send_cpu: cpu=0 callsite=x callback=y
          iperf3-99      [000] d.s3.    10.000026: net_dev_xmit: dev=eth0 skbaddr=0000 len=100 rc=0
          iperf3-99      [000] d.s3.    10.000027: net_dev_xmit: dev=lo skbaddr=0000 len=100 rc=0
EOF_TRACE
bash $WL --parse-stalls "$T/stall.trace" --recv-cpu 1 >"$T/stall.out" 2>"$T/err"
expect_eq "$?:$(cat "$T/err")" "0:" "wakeups-live --parse-stalls"
expect_eq "$(awk '$2 ~ /^(ipi|no_ipi|plain)$/ { print $2, $3, $5, $7 }' "$T/stall.out" | tr '\n' ';')" "ipi 1 15.00 15.00;no_ipi 1 5.00 5.00;plain 2 3.00 3.50;" "wakeups-live --parse-stalls: the classes"
grep -q '^#   an IPI costs the waker 10.00 us in the flow' "$T/stall.out" && ok || bad "wakeups-live --parse-stalls: $(cat "$T/stall.out")"
printf '# tracer: nop\n' >"$T/empty.trace"
expect_fail "wakeups-live --parse-stalls without a transmit" 1 "no lo transmit" bash $WL --parse-stalls "$T/empty.trace"
expect_fail "wakeups-live --stalls with --gaps" 2 "one at a time" bash $WL --stalls --gaps
# --parse-wchan: each process's share of the samples per place it was,
# largest first (the writer: 0 three times, select() once)
printf '0 0\n0 0\npoll_schedule_timeout.constprop.0 0\n0 do_select\n0 0\n' >"$T/wchan.txt"
bash $WL --parse-wchan "$T/wchan.txt" >"$T/wchan.out" 2>"$T/err"
expect_eq "$?:$(cat "$T/err")" "0:" "wakeups-live --parse-wchan"
expect_eq "$(tr '\n' ';' <"$T/wchan.out")" "#   5 samples;#   writer   0 80.0%  poll_schedule_timeout.constprop.0 20.0%;#   reader   0 80.0%  do_select 20.0%;" "wakeups-live --parse-wchan: the shares"
: >"$T/wchan-empty.txt"
expect_fail "wakeups-live --parse-wchan without a sample" 1 "no samples" bash $WL --parse-wchan "$T/wchan-empty.txt"
expect_fail "wakeups-live --wchan with --frames" 2 "one at a time" bash $WL --wchan --frames
# --parse-sched: the writer (the iperf3 that is not the server) slept 3
# times in 300 us and was woken twice, once running 2 us later (within
# 10 us), once 50 us later; the reader was preempted twice and ran 52 and
# 100 us
cat >"$T/sched.trace" <<'EOF_TRACE'
# tracer: nop
          iperf3-20      [000] d..2.    10.000000: sched_switch: prev_comm=iperf3 prev_pid=20 prev_prio=120 prev_state=S ==> next_comm=iperf3 next_pid=10 next_prio=120
          iperf3-10      [000] dNs6.    10.000050: sched_wakeup: comm=iperf3 pid=20 prio=120 target_cpu=000
          iperf3-10      [000] d..2.    10.000052: sched_switch: prev_comm=iperf3 prev_pid=10 prev_prio=120 prev_state=R ==> next_comm=iperf3 next_pid=20 next_prio=120
          iperf3-20      [000] d..2.    10.000100: sched_switch: prev_comm=iperf3 prev_pid=20 prev_prio=120 prev_state=S ==> next_comm=iperf3 next_pid=10 next_prio=120
          iperf3-10      [000] dNs6.    10.000150: sched_wakeup: comm=iperf3 pid=20 prio=120 target_cpu=000
          iperf3-10      [000] d..2.    10.000200: sched_switch: prev_comm=iperf3 prev_pid=10 prev_prio=120 prev_state=R ==> next_comm=iperf3 next_pid=20 next_prio=120
          iperf3-20      [000] d..2.    10.000300: sched_switch: prev_comm=iperf3 prev_pid=20 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
EOF_TRACE
bash $WL --parse-sched "$T/sched.trace" --server-pid 10 >"$T/sched.out" 2>"$T/err"
expect_eq "$?:$(cat "$T/err")" "0:" "wakeups-live --parse-sched"
expect_eq "$(awk '$2 == "writer" || $2 == "reader" { print $2, $3, $4, $5, $6, $7, $8 }' "$T/sched.out" | tr '\n' ';')" \
	"writer 10000 0 6667 50.0% 26.0 74.0;reader 0 6667 0 0.0% 0.0 76.0;" "wakeups-live --parse-sched: the table"
expect_fail "wakeups-live --parse-sched without the server's pid" 2 "needs --server-pid" bash $WL --parse-sched "$T/sched.trace"
expect_fail "wakeups-live --parse-sched, a pid not in the trace" 1 "no sched_switch of the server (pid 99)" bash $WL --parse-sched "$T/sched.trace" --server-pid 99
expect_fail "wakeups-live --sched with --wchan" 2 "one at a time" bash $WL --sched --wchan
# --parse-preempt: over 10.35 ms the reader (pid 10) was switched out
# runnable twice, 600 us for kworker/1:2 and 50 us for ksoftirqd/1 (its
# sleeps not counted); the writer (pid 20) once, 150 us for kdamond.0.  The
# reader slept once in the first 10 ms (behind: B) and three times in the
# next (keeping up: K), one change, both long preemptions in the bin before
cat >"$T/preempt.trace" <<'EOF_TRACE'
# tracer: nop
          iperf3-10      [001] d..2.    10.000000: sched_switch: prev_comm=iperf3 prev_pid=10 prev_prio=120 prev_state=R+ ==> next_comm=kworker/1:2 next_pid=30 next_prio=120
          iperf3-20      [000] d..2.    10.000100: sched_switch: prev_comm=iperf3 prev_pid=20 prev_prio=120 prev_state=R ==> next_comm=kdamond.0 next_pid=40 next_prio=120
       kdamond.0-40      [000] d..2.    10.000250: sched_switch: prev_comm=kdamond.0 prev_pid=40 prev_prio=120 prev_state=S ==> next_comm=iperf3 next_pid=20 next_prio=120
     kworker/1:2-30      [001] d..2.    10.000600: sched_switch: prev_comm=kworker/1:2 prev_pid=30 prev_prio=120 prev_state=I ==> next_comm=iperf3 next_pid=10 next_prio=120
          iperf3-10      [001] d..2.    10.000700: sched_switch: prev_comm=iperf3 prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
       swapper/1-0       [001] d..2.    10.000800: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=iperf3 next_pid=10 next_prio=120
          iperf3-10      [001] d..2.    10.000900: sched_switch: prev_comm=iperf3 prev_pid=10 prev_prio=120 prev_state=R ==> next_comm=ksoftirqd/1 next_pid=50 next_prio=120
     ksoftirqd/1-50      [001] d..2.    10.000950: sched_switch: prev_comm=ksoftirqd/1 prev_pid=50 prev_prio=120 prev_state=S ==> next_comm=iperf3 next_pid=10 next_prio=120
          iperf3-20      [000] d..2.    10.001000: sched_switch: prev_comm=iperf3 prev_pid=20 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
          iperf3-10      [001] d..2.    10.010100: sched_switch: prev_comm=iperf3 prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
       swapper/1-0       [001] d..2.    10.010150: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=iperf3 next_pid=10 next_prio=120
          iperf3-10      [001] d..2.    10.010200: sched_switch: prev_comm=iperf3 prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
       swapper/1-0       [001] d..2.    10.010250: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=iperf3 next_pid=10 next_prio=120
          iperf3-10      [001] d..2.    10.010300: sched_switch: prev_comm=iperf3 prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
       swapper/1-0       [001] d..2.    10.010350: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=iperf3 next_pid=10 next_prio=120
EOF_TRACE
bash $WL --parse-preempt "$T/preempt.trace" --server-pid 10 >"$T/preempt.out" 2>"$T/err"
expect_eq "$?:$(cat "$T/err")" "0:" "wakeups-live --parse-preempt"
expect_eq "$(awk '($2 == "writer" || $2 == "reader") && $3 != "by" { print $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 }' "$T/preempt.out" | tr '\n' ';')" \
	"writer 96.6 150 150 150 150 96.6 0.0 - 1.45;reader 193.2 50 600 600 600 96.6 96.6 600 6.28;" "wakeups-live --parse-preempt: the table"
grep -q '^#   per 10 ms, B the reader behind (at most 2 sleeps), K keeping up: BK$' "$T/preempt.out" && ok || bad "wakeups-live --parse-preempt: the states ($(cat "$T/preempt.out"))"
grep -q "^#   1 changes of state; a preemption of 100 us or more began in the 30 ms before on the writer's CPU at 1, on the reader's at 1$" "$T/preempt.out" && ok || bad "wakeups-live --parse-preempt: the changes"
grep -q '^#   reader by task: kworker 1 x 600 us, ksoftirqd 1 x 50 us$' "$T/preempt.out" && ok || bad "wakeups-live --parse-preempt: by task ($(cat "$T/preempt.out"))"
grep -q '^#   writer by task: kdamond.0 1 x 150 us$' "$T/preempt.out" && ok || bad "wakeups-live --parse-preempt: the writer by task"
expect_fail "wakeups-live --parse-preempt without the server's pid" 2 "needs --server-pid" bash $WL --parse-preempt "$T/preempt.trace"
expect_fail "wakeups-live --parse-preempt, a pid not in the trace" 1 "no sched_switch of the server (pid 99)" bash $WL --parse-preempt "$T/preempt.trace" --server-pid 99
expect_fail "wakeups-live --preempt with --sched" 2 "one at a time" bash $WL --preempt --sched
# --parse-calls: the reader (pid 10) read three times, 2, 2 and 4 us (and
# once found nothing, EAGAIN: left out); the writer (pid 20) wrote twice,
# 6 us each (two calls: no spread); the trace spans 44 us from the first
# exit to the last.  Fewer than 100 calls: nothing trimmed, no sums of 100
cat >"$T/calls.trace" <<'EOF_TRACE'
# tracer: nop
          iperf3-10      [001] .....    10.000000: sys_read(fd: 5, buf: 0x1, count: 0x1000)
          iperf3-10      [001] .....    10.000002: sys_read -> 0x1000
          iperf3-20      [000] .....    10.000003: sys_write(fd: 5, buf: 0x1, count: 0x1000)
          iperf3-20      [000] .....    10.000009: sys_write -> 0x1000
          iperf3-10      [001] .....    10.000010: sys_read(fd: 5, buf: 0x1, count: 0x1000)
          iperf3-10      [001] .....    10.000012: sys_read -> 0x1000
          iperf3-10      [001] .....    10.000020: sys_read(fd: 5, buf: 0x1, count: 0x1000)
          iperf3-10      [001] .....    10.000024: sys_read -> 0x1000
          iperf3-10      [001] .....    10.000030: sys_read(fd: 5, buf: 0x1, count: 0x1000)
          iperf3-10      [001] .....    10.000031: sys_read -> 0xfffffffffffffff5
          iperf3-20      [000] .....    10.000040: sys_write(fd: 5, buf: 0x1, count: 0x1000)
          iperf3-20      [000] .....    10.000046: sys_write -> 0x1000
EOF_TRACE
bash $WL --parse-calls "$T/calls.trace" --server-pid 10 >"$T/calls.out" 2>"$T/err"
expect_eq "$?:$(cat "$T/err")" "0:" "wakeups-live --parse-calls"
expect_eq "$(awk '$2 == "writer" || $2 == "reader" { print $2, $3, $4, $5, $6, $7 }' "$T/calls.out" | tr '\n' ';')" \
	"writer write 45455 6.00 - -;reader read 68182 2.00 0.433 -;" "wakeups-live --parse-calls: the table"
# the same calls on a TSC clock (whole cycles; 1 GHz: a us is 1000)
awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^10\.[0-9]+:$/) { split(substr($i, 1, length($i) - 1), t, "."); $i = sprintf("%.0f:", (t[1] * 1000000 + t[2]) * 1000) } print }' "$T/calls.trace" >"$T/calls-tsc.trace"
expect_eq "$(bash $WL --parse-calls "$T/calls-tsc.trace" --server-pid 10 --ghz 1 2>&1 | awk '$2 == "writer" || $2 == "reader" { print $2, $3, $4, $5, $6, $7 }' | tr '\n' ';')" \
	"writer write 45455 6.00 - -;reader read 68182 2.00 0.433 -;" "wakeups-live --parse-calls: a TSC trace"
expect_fail "wakeups-live --parse-calls without the server's pid" 2 "needs --server-pid" bash $WL --parse-calls "$T/calls.trace"
expect_fail "wakeups-live --calls with --preempt" 2 "one at a time" bash $WL --calls --preempt
# --parse-cwnd-steps: the bulk connection's (the cookie towards 5201 with the
# most probes) cwnd changes, the bytes in flight and the longest ACK gap before
P='iperf3-1 [000] ..s2. 100.%s: tcp_probe: family=AF_INET src=127.0.0.1:40000 dest=127.0.0.1:5201 mark=0x0 data_len=0 snd_nxt=%s snd_una=%s snd_cwnd=%s ssthresh=2147483647 snd_wnd=65536 srtt=20 rcv_wnd=65536 sock_cookie=%s skbaddr=0 skaddr=0\n'
{
	printf "$P" 000000 0x10 0x10 10 7
	printf "$P" 000100 0x00001000 0x00000000 10 9
	printf "$P" 000110 0x00002000 0x00001000 10 9
	printf 'iperf3-2 [001] ..s2. 100.000120: tcp_probe: family=AF_INET src=127.0.0.1:5201 dest=127.0.0.1:40000 data_len=4096 snd_nxt=0x1 snd_una=0x1 snd_cwnd=10 sock_cookie=8\n'
	printf "$P" 001110 0x00010000 0x00004000 12 9
	printf "$P" 001200 0xfffff000 0xffffe000 4 9
	printf "$P" 001210 0x00000100 0xffffff00 12 9
} >"$T/cwnd.trace"
expect_eq "$(bash $WL --parse-cwnd-steps "$T/cwnd.trace" 2>&1)" "#         t_ms   cwnd     to  in_flight most_in_flight  longest_gap
#        1.010     10     12      49152          49152      1000 us
#        1.100     12      4       4096           4096        90 us
#        1.110      4     12        512            512        10 us
#   3 changes of cwnd, 2 up, 1 down, over 1.1 ms of ACKs" "wakeups-live --parse-cwnd-steps: the bulk connection's steps, across a wrap of the sequence"
printf 'x\n' >"$T/cwnd-none.trace"
expect_fail "wakeups-live --parse-cwnd-steps without probes" 1 "no tcp_probe of a connection to port 5201" bash $WL --parse-cwnd-steps "$T/cwnd-none.trace"
# --parse-series: each interval's sum, not its streams' own figures
cat >"$T/series.json" <<'EOF_JSON'
{
	"start":	{
		"connecting_to":	{
			"host":	"127.0.0.1"
		}
	},
	"intervals":	[{
			"streams":	[{
					"socket":	5,
					"bits_per_second":	1
				}],
			"sum":	{
				"start":	0,
				"end":	0.1,
				"bits_per_second":	4500000000.5
			}
		}, {
			"streams":	[{
					"socket":	5,
					"bits_per_second":	2
				}],
			"sum":	{
				"start":	0.1,
				"end":	0.2,
				"bits_per_second":	1.25e+10
			}
		}],
	"end":	{
		"sum_sent":	{
			"bits_per_second":	9e+09
		}
	}
}
EOF_JSON
expect_eq "$(bash $WL --parse-series "$T/series.json" 2>&1)" "#   2 intervals, Mbit/s: 4500 12500" "wakeups-live --parse-series"
# ... and, where each interval's first stream has its tcp_info, the sender's cwnd at its end
sed 's/"bits_per_second":\t1$/"bits_per_second":\t1,\n\t\t\t\t\t"snd_cwnd":\t2654208/; s/"bits_per_second":\t2$/"bits_per_second":\t2,\n\t\t\t\t\t"snd_cwnd":\t3538944/' "$T/series.json" >"$T/series-cwnd.json"
expect_eq "$(bash $WL --parse-series "$T/series-cwnd.json" 2>&1)" "#   2 intervals, Mbit/s: 4500 12500
#   the sender's cwnd at each interval's end, KB: 2592 3456" "wakeups-live --parse-series: the cwnd series"
printf '{\n\t"end":\t{\n\t}\n}\n' >"$T/series-none.json"
expect_fail "wakeups-live --parse-series without intervals" 1 "no intervals in the iperf3 output" bash $WL --parse-series "$T/series-none.json"
expect_fail "wakeups-live --series out of range" 2 "--series '0.05': not a number of seconds from 0.1 to 10" bash $WL --series 0.05
expect_fail "wakeups-live --series with --interval" 2 "--series: not with --interval" bash $WL --series 0.1 --interval 1
# --parse-acks: each pure ACK of a `perf script` of net:net_dev_xmit by
# CPU, context (a softirq frame in the chain: softirq; __release_sock:
# backlog; else process), task (the server's pid is the reader's, another
# iperf3 the writer) and caller (the first frame past the innermost
# __tcp_transmit_skb that is not tcp_send_ack's own), a second over the
# 0.25 s window and as a share
cat >"$T/acks.trace" <<'EOF_TRACE'
iperf3 10 [001] 
	ffffffff81ead7fe dev_hard_start_xmit
	ffffffff8207e2b4 __tcp_transmit_skb
	ffffffff820673e0 tcp_recvmsg_locked
	ffffffff82067000 tcp_recvmsg
	ffffffff8223df91 do_syscall_64

iperf3 10 [001] 
	ffffffff81ead7fe dev_hard_start_xmit
	ffffffff8207e2b4 __tcp_transmit_skb
	ffffffff8207fa80 __tcp_send_ack
	ffffffff820673e0 tcp_recvmsg_locked
	ffffffff8223df91 do_syscall_64

iperf3 10 [001] 
	ffffffff81ead7fe dev_hard_start_xmit
	ffffffff8207e2b4 __tcp_transmit_skb
	ffffffff8208ae40 tcp_v4_do_rcv
	ffffffff81e7e000 __release_sock
	ffffffff81e7e100 release_sock
	ffffffff8223df91 do_syscall_64

iperf3 20 [000] 
	ffffffff81ead7fe dev_hard_start_xmit
	ffffffff8207e2b4 __tcp_transmit_skb
	ffffffff8208ae40 tcp_v4_do_rcv
	ffffffff81eb1bfe net_rx_action
	ffffffff81369c4d handle_softirqs
	ffffffff8207e2b4 __tcp_transmit_skb
	ffffffff8207fe7d tcp_write_xmit

swapper 0 [001] 
	ffffffff81ead7fe dev_hard_start_xmit
	ffffffff8207e2b4 __tcp_transmit_skb
	ffffffff82084860 tcp_delack_timer_handler
	ffffffff81369c4d handle_softirqs
EOF_TRACE
bash $WL --parse-acks "$T/acks.trace" --server-pid 10 >"$T/acks.out" 2>"$T/err"
expect_eq "$?:$(cat "$T/err")" "0:" "wakeups-live --parse-acks"
expect_eq "$(awk '$2 ~ /^[0-9]+$/ { print $2, $3, $4, $5, $6, $7 }' "$T/acks.out" | tr '\n' ';')" \
	"0 softirq writer tcp_v4_do_rcv 4 20.0%;1 process reader tcp_recvmsg_locked 8 40.0%;1 backlog reader tcp_v4_do_rcv 4 20.0%;1 softirq idle tcp_delack_timer_handler 4 20.0%;" \
	"wakeups-live --parse-acks: by CPU, context, task and caller"
grep -q '^#   all .* 20 100.0%$' "$T/acks.out" && ok || bad "wakeups-live --parse-acks: the sum: $(cat "$T/acks.out")"
expect_fail "wakeups-live --parse-acks without the server's pid" 2 "needs --server-pid" bash $WL --parse-acks "$T/acks.trace"
expect_fail "wakeups-live --parse-acks without an ACK" 1 "no ACK transmit" bash $WL --parse-acks "$T/empty.trace" --server-pid 10
expect_fail "wakeups-live --acks with --frames" 2 "one at a time" bash $WL --acks --frames
# --parse-frames: every lo transmit's payload (the length less 66 header
# bytes), per CPU and over both: data frames and ACKs a second over the
# trace's span, mean payload and MSS segments, the short frames' share and
# the commonest payloads; another device's transmit does not count
cat >"$T/frames.trace" <<'EOF_TRACE'
# tracer: nop
          iperf3-99      [000] d.s3.    10.000000: net_dev_xmit: dev=lo skbaddr=0000 len=65226 rc=0
          iperf3-99      [000] d.s3.    10.000003: net_dev_xmit: dev=lo skbaddr=0000 len=442 rc=0
          iperf3-98      [001] d.s3.    10.000004: net_dev_xmit: dev=lo skbaddr=0000 len=66 rc=0
          iperf3-99      [000] d.s3.    10.000018: net_dev_xmit: dev=lo skbaddr=0000 len=65226 rc=0
          iperf3-99      [000] d.s3.    10.000026: net_dev_xmit: dev=eth0 skbaddr=0000 len=1000 rc=0
          iperf3-98      [001] d.s3.    10.000100: net_dev_xmit: dev=lo skbaddr=0000 len=1514 rc=0
EOF_TRACE
bash $WL --parse-frames "$T/frames.trace" --mtu 1500 >"$T/frames.out" 2>"$T/err"
expect_eq "$?:$(cat "$T/err")" "0:" "wakeups-live --parse-frames"
expect_eq "$(awk '$2 ~ /^(0|1|all)$/ { print $2, $3, $4, $5, $6, $7, $8 }' "$T/frames.out" | tr '\n' ';')" \
	"0 30000 0 43565 30.33 33.3 65160:66.7%;1 10000 10000 1448 1.00 0.0 1448:100.0%;all 40000 10000 33036 23.00 25.0 65160:50.0%;" \
	"wakeups-live --parse-frames: per CPU and over both"
expect_fail "wakeups-live --parse-frames without a transmit" 1 "no lo transmit" bash $WL --parse-frames "$T/empty.trace"
expect_fail "wakeups-live --parse-frames of two MTUs" 2 "is not one MTU" bash $WL --parse-frames "$T/frames.trace" --mtu 1500,9000
expect_fail "wakeups-live --frames with --stalls" 2 "one at a time" bash $WL --frames --stalls
# --parse-growth: each tcp_rcvbuf_grow of the server's socket (sport 5201:
# the filter is the tracing instance's), its time from the first, and the
# count, the last one's time and the RTT estimate's range
cat >"$T/growth.trace" <<'EOF_TRACE'
# tracer: nop
          iperf3-98      [001] ..s1.    10.000100: tcp_rcvbuf_grow: time=40 rtt_us=681 copied=46373 inq=19200 space=14480 ooo=0 scaling_ratio=229 rcvbuf=131072 family=AF_INET6 sport=5201 dport=50000
          iperf3-98      [001] ..s1.    10.000183: tcp_rcvbuf_grow: time=25 rtt_us=25 copied=328056 inq=148464 space=139720 ooo=0 scaling_ratio=229 rcvbuf=5716164 family=AF_INET6 sport=5201 dport=50000
          iperf3-98      [001] ..s1.    13.268100: tcp_rcvbuf_grow: time=271 rtt_us=271 copied=2162688 inq=65912 space=394208 ooo=0 scaling_ratio=229 rcvbuf=5716164 family=AF_INET6 sport=5201 dport=50000
EOF_TRACE
bash $WL --parse-growth "$T/growth.trace" >"$T/growth.out" 2>"$T/err"
expect_eq "$?:$(cat "$T/err")" "0:" "wakeups-live --parse-growth"
expect_eq "$(awk '$1 == "#" && $2 ~ /^[0-9]/ && NF == 7 { print $2, $3, $7 }' "$T/growth.out" | tr '\n' ';')" \
	"0.000 681 131072;0.083 25 5716164;3268.000 271 5716164;" "wakeups-live --parse-growth: each growth from the first"
grep -q '^#   3 growths, the last 3268.000 ms after the first; rtt_us 25..681$' "$T/growth.out" && ok || bad "wakeups-live --parse-growth summary: $(tail -1 "$T/growth.out")"
expect_fail "wakeups-live --parse-growth without a growth" 1 "no tcp_rcvbuf_grow" bash $WL --parse-growth "$T/empty.trace"
expect_fail "wakeups-live --hands-off alone" 2 "only with --growth" bash $WL --hands-off
expect_fail "wakeups-live --growth with --frames" 2 "one at a time" bash $WL --growth --frames
# --parse-tcpinfo: the bulk connection in `ss -tmniO state established`
# output is the client's socket with the most bytes acked (not the control
# connection's) and the :5201 socket with the most bytes received;
# rwnd_limited and sndbuf_limited are absent until nonzero
cat >"$T/ss.txt" <<'SS'
0      0               127.0.0.1:41622          127.0.0.1:5201  skmem:(r0,rb131072,t0,tb332800,f0,w0,o0,bl0,d0) cubic wscale:10,10 rto:204 rtt:0.065/0.051 mss:8948 cwnd:10 bytes_sent:162 bytes_acked:163 bytes_received:4 busy:44ms app_limited snd_wnd:63488
0      0               127.0.0.1:41638          127.0.0.1:5201  skmem:(r0,rb131072,t0,tb2196480,f0,w0,o0,bl0,d0) cubic wscale:10,10 rto:204 rtt:0.015/0.007 mss:8948 cwnd:66 ssthresh:27 bytes_sent:1795256357 bytes_acked:1795248166 busy:2020ms rwnd_limited:1940ms(96.0%) snd_wnd:130048
0      0      [::ffff:127.0.0.1]:5201  [::ffff:127.0.0.1]:41638 skmem:(r0,rb594005,t0,tb332800,f0,w0,o0,bl0,d1) cubic wscale:10,10 rto:204 mss:8948 cwnd:10 bytes_received:1795248165 rcv_space:208140
0      0      [::ffff:127.0.0.1]:5201  [::ffff:127.0.0.1]:41622 skmem:(r0,rb131072,t0,tb332800,f0,w0,o0,bl0,d0) cubic wscale:10,10 rto:208 mss:8948 cwnd:10 bytes_sent:4 bytes_acked:4 bytes_received:162 busy:44ms
SS
bash $WL --parse-tcpinfo "$T/ss.txt" >"$T/ti.out" 2>"$T/err"
expect_eq "$?:$(cat "$T/err")" "0:" "wakeups-live --parse-tcpinfo"
expect_eq "$(tr '\n' ';' <"$T/ti.out")" "ti_busy 2020;ti_rwnd 1940;ti_sndbuf 0;ti_rb 594005;" "wakeups-live --parse-tcpinfo: the bulk connection's chrono and rcvbuf"
head -2 "$T/ss.txt" >"$T/ss-nosrv.txt"
expect_fail "wakeups-live --parse-tcpinfo without a receiver" 1 "no bulk connection" bash $WL --parse-tcpinfo "$T/ss-nosrv.txt"
# --parse-profile: perf script samples (comm [cpu], then the call chain, leaf
# first); per CPU the share of samples with each function on the stack, a
# function counted once per sample however often it appears in the chain
cat >"$T/perf.txt" <<'PERF'
iperf3 [000]
	ffffffff81000001 ip_rcv
	ffffffff81000002 net_rx_action
	ffffffff81000003 __tcp_transmit_skb
	ffffffff81000004 ksys_write

iperf3 [000]
	ffffffff81000005 _copy_from_iter
	ffffffff81000004 ksys_write

iperf3 [001]
	ffffffff81000006 tcp_add_backlog
	ffffffff81000007 tcp_v4_rcv
	ffffffff81000002 net_rx_action
	ffffffff81000003 __tcp_transmit_skb
	ffffffff81000002 net_rx_action
	ffffffff81000003 __tcp_transmit_skb
	ffffffff81000008 ksys_read

iperf3 [001]
	ffffffff81000009 do_select
	ffffffff8100000a __x64_sys_pselect6

iperf3 [003]
	ffffffff81000008 ksys_read
PERF
bash $WL --parse-profile "$T/perf.txt" >"$T/prof.out" 2>"$T/err"
expect_eq "$?:$(cat "$T/err")" "0:" "wakeups-live --parse-profile"
expect_eq "$(awk '$2 == "samples" || $2 == "ksys_write" || $2 == "net_rx_action" || $2 == "ksys_read" || $2 == "__x64_sys_pselect6" { print $2, $3, $4 }' "$T/prof.out" | tr '\n' ';')" \
	"samples 2 2;__x64_sys_pselect6 0.0 50.0;ksys_read 0.0 50.0;ksys_write 100.0 0.0;net_rx_action 50.0 50.0;" "wakeups-live --parse-profile: the shares per CPU"
bash $WL --parse-profile "$T/perf.txt" --send-cpu 3 --recv-cpu 1 >"$T/prof.out" 2>"$T/err"
expect_eq "$(awk '$2 == "samples" || $2 == "ksys_read" { print $2, $3, $4 }' "$T/prof.out" | tr '\n' ';')" \
	"samples 1 2;ksys_read 100.0 50.0;" "wakeups-live --parse-profile --send-cpu 3"
# --functions adds functions to the table (ip_rcv and do_select are no default's)
bash $WL --parse-profile "$T/perf.txt" --functions ip_rcv,do_select >"$T/prof.out" 2>"$T/err"
expect_eq "$(awk '$2 == "ip_rcv" || $2 == "do_select" || $2 == "ksys_read" { print $2, $3, $4 }' "$T/prof.out" | tr '\n' ';')" \
	"ksys_read 0.0 50.0;ip_rcv 50.0 0.0;do_select 0.0 50.0;" "wakeups-live --parse-profile --functions"
expect_fail "wakeups-live --parse-profile of a file without those CPUs" 1 "no samples on CPU 5" bash $WL --parse-profile "$T/perf.txt" --send-cpu 5 --recv-cpu 6
# --prices: a profile output's prices (oracle: arithmetic).  8,192 Mbit/s
# = 1.024e9 bytes (250,000 pages) a second at 1 GHz; the writer 50% busy,
# the reader 80%: the writer's copy 10% x 0.5 x 1e9 / 1.024e9 = 0.0488 a
# byte (none with sendfile), the reader's 25% x 0.8 / 1.024 = 0.1953,
# sendfile's page (60 - 40 + 5)% x 0.5 x 1e9 / 250,000 = 500 cycles
cat >"$T/prices.txt" <<'PROF'
# tools/wakeups-live --profile --sendfile --mtu 1500 --sizes 64K --reps 1 --functions do_splice_direct,tcp_sendmsg,skb_splice_from_iter
1500   64K      1    8192   50.0   80.0     9410     4488      70      62      65        72    3374      78      47     1114    0.8     0.0 33554432  122218  101360
#
# profile, MTU 1500, 64K, rep 1 (% of each CPU's samples with the function on the stack):
#   function                       snd%       rcv%   (MTU 1500, 64K, rep 1)
#   samples                        1000       1000
#   idle samples                      0        200
#   _copy_to_iter                   0.0       25.0
#   _copy_from_iter                10.0        0.0
#   do_splice_direct               60.0        0.0
#   tcp_sendmsg                    40.0        0.0
#   skb_splice_from_iter            5.0        0.0
# by tcpsim cost key, MTU 1500, 64K, rep 1 (% of each CPU's busy samples, by the leaf-most known function):
#   syscall                        60.0       10.0
PROF
bash $WL --prices "$T/prices.txt" --ghz 1 >"$T/prices.out" 2>"$T/err"
expect_eq "$?:$(cat "$T/err")" "0:" "wakeups-live --prices"
expect_eq "$(awk '/^#   1500, 64K, rep 1 / { print $6, $7, $8, $9 }' "$T/prices.out")" "- 0.1953 - 500" "wakeups-live --prices: the run's prices"
expect_eq "$(awk '/^#   median/ { print $3, $5, $6, $7, $8 }' "$T/prices.out")" "(1 - 0.1953 - 500" "wakeups-live --prices: the median of one run"
# without --sendfile on its command line: the writer's copy, no page
sed '1s/ --sendfile//' "$T/prices.txt" >"$T/prices-stream.txt"
expect_eq "$(bash $WL --prices "$T/prices-stream.txt" --ghz 1 | awk '/^#   1500, 64K, rep 1 / { print $6, $9 }')" "0.0488 -" "wakeups-live --prices: a write()'s copy, no page"
# the median over two files' runs; the committed profiles give the figures
# the amd-epyc-2cpu-2596 profile sets (the reader's copy of sendfile's pages
# 0.099, sendfile's page 391)
bash $WL --prices validation/live/amd-epyc-2cpu-2596.profile-sendfile.txt,validation/live/amd-epyc-2cpu-2596.profile-sendfile-iter.txt --ghz 2.596 >"$T/prices.out" 2>"$T/err"
expect_eq "$?:$(awk '/^#   median/ { print $3, $6, $8 }' "$T/prices.out")" "0:(8 0.0992 391" "wakeups-live --prices of two committed profiles"
# the writer's call and the reader's read against their bytes (oracle:
# arithmetic).  At 1 GHz, 8,192 Mbit/s = 1.024e9 bytes a second, the writer
# 50% busy, the reader 80%: 4 KB calls (250,000 a second), the writer's
# syscall key 60% = 1,200 cycles a call, the reader's 40% less its walk
# (skb_copy_datagram_iter 30% - _copy_to_iter 25%) = 1,120 a read; 64 KB
# calls (15,625 a second), 10% = 3,200 and (10 - 5)% = 2,560.  The lines:
# 1,200 + (3,200 - 1,200) / 61,440 = 0.0326 a byte from 4,096 bytes on,
# so 1,067 + 0.0326 a byte; the reader's 1,024 + 0.0234
cat >"$T/calls.txt" <<'PROF'
# tools/wakeups-live --profile --mtu 1500 --sizes 4K,64K --reps 1 --functions skb_copy_datagram_iter
1500   4K       1    8192   50.0   80.0     9410     4488      70      62      65        72    3374      78      47     1114    0.8     0.0 33554432  250000  250000
1500   64K      1    8192   50.0   80.0     9410     4488      70      62      65        72    3374      78      47     1114    0.8     0.0 33554432   15625   15625
#
# profile, MTU 1500, 4K, rep 1 (% of each CPU's samples with the function on the stack):
#   function                       snd%       rcv%   (MTU 1500, 4K, rep 1)
#   samples                        1000       1000
#   idle samples                      0        200
#   _copy_to_iter                   0.0       25.0
#   _copy_from_iter                10.0        0.0
#   skb_copy_datagram_iter          0.0       30.0
# by tcpsim cost key, MTU 1500, 4K, rep 1 (% of each CPU's busy samples, by the leaf-most known function):
#   syscall                        60.0       40.0
# profile, MTU 1500, 64K, rep 1 (% of each CPU's samples with the function on the stack):
#   function                       snd%       rcv%   (MTU 1500, 64K, rep 1)
#   samples                        1000       1000
#   idle samples                      0        200
#   _copy_to_iter                   0.0       25.0
#   _copy_from_iter                10.0        0.0
#   skb_copy_datagram_iter          0.0       30.0
# by tcpsim cost key, MTU 1500, 64K, rep 1 (% of each CPU's busy samples, by the leaf-most known function):
#   syscall                        10.0       10.0
PROF
bash $WL --prices "$T/calls.txt" --ghz 1 >"$T/calls.out" 2>"$T/err"
expect_eq "$?:$(cat "$T/err")" "0:" "wakeups-live --prices: calls"
expect_eq "$(awk '/^#   1500, 4K, rep 1 / { print $10, $11, $12, $13 }' "$T/calls.out")" "4.0 1200 4.0 1120" "wakeups-live --prices: a 4 KB call and read"
expect_eq "$(awk '/^#   1500, 64K, rep 1 / { print $10, $11, $12, $13 }' "$T/calls.out")" "64.0 3200 64.0 2560" "wakeups-live --prices: a 64 KB call and read"
expect_eq "$(grep "writer's call" "$T/calls.out")" "#   the writer's call over these 2 runs: 1067 cycles + 0.0326 a byte (cost.send_byte)" "wakeups-live --prices: the writer's line"
expect_eq "$(grep "reader's read" "$T/calls.out")" "#   the reader's read over these 2 runs: 1024 cycles + 0.0234 a byte (the read's own, beside cost.syscall)" "wakeups-live --prices: the reader's line"
# with --sendfile the call is priced less its page only where the page is
sed '1s/--profile/--profile --sendfile/' "$T/calls.txt" >"$T/calls-sf.txt"
expect_eq "$(bash $WL --prices "$T/calls-sf.txt" --ghz 1 | awk '/^#   1500, 4K, rep 1 / { print $11 }'; bash $WL --prices "$T/calls-sf.txt" --ghz 1 | grep -c "writer's call")" "-
0" "wakeups-live --prices: sendfile without its page's functions, no call price"
# refused: a profile without the idle-samples row, a bad --ghz, no run
grep -v 'idle samples' "$T/prices.txt" >"$T/prices-old.txt"
expect_fail "wakeups-live --prices of a profile before the idle samples" 1 'no "idle samples" row' bash $WL --prices "$T/prices-old.txt" --ghz 1
expect_fail "wakeups-live --prices bad ghz" 2 "--ghz 'x': not a positive number of GHz" bash $WL --prices "$T/prices.txt" --ghz x
expect_fail "wakeups-live --prices unreadable" 2 "cannot read it" bash $WL --prices "$T/no-such-file"
echo "# a file with no run" >"$T/noprof.txt"
expect_fail "wakeups-live --prices of no profile" 1 "no --profile run in" bash $WL --prices "$T/noprof.txt" --ghz 1
# and by tcpsim cost key: each sample to the key of its leaf-most known
# function, so each CPU's shares add up to 100 (idle samples left out)
expect_eq "$(bash $WL --parse-profile "$T/perf.txt" | sed -n '/by tcpsim cost key/,$p' | awk '$2 ~ /^[a-z_]+$/ && $3 ~ /^[0-9.]+$/ { print $2, $3, $4 }' | tr '\n' ';')" \
	"poll 0.0 50.0;copy_byte 50.0 0.0;rx_frame 50.0 0.0;rx_tcp 0.0 50.0;" "wakeups-live --parse-profile: the shares by cost key"
# the reader's read() and its socket: of the reader CPU's busy samples,
# those with ksys_read on the stack, the share of them inside lock_sock ..
# release_sock (tcp_recvmsg_locked, lock_sock_nested or release_sock on
# the stack), and the same for those of the syscall key; idle samples and
# the writer's CPU left out
cat >"$T/perf-owned.txt" <<'PERF'
iperf3 [001]
	ffffffff81000006 _copy_to_iter
	ffffffff81000007 tcp_recvmsg_locked
	ffffffff81000008 ksys_read

iperf3 [001]
	ffffffff81000007 tcp_recvmsg_locked
	ffffffff81000009 tcp_recvmsg
	ffffffff81000008 ksys_read

iperf3 [001]
	ffffffff8100000a vfs_read
	ffffffff81000008 ksys_read

iperf3 [001]
	ffffffff8100000b do_select
	ffffffff8100000c __x64_sys_pselect6

swapper [001]
	ffffffff8100000d do_idle

iperf3 [000]
	ffffffff8100000a vfs_read
	ffffffff81000008 ksys_read
PERF
expect_eq "$(bash $WL --parse-profile "$T/perf-owned.txt" 2>&1 | sed -n 's/^#   read(): \([0-9.]*\)% .*; \([0-9.]*\)% of them hold the socket; of its syscall-key ones, \([0-9.]*\)% of the busy samples, \([0-9.]*\)% do .*/\1 \2 \3 \4/p')" \
	"75.0 66.7 50.0 50.0" "wakeups-live --parse-profile: the reader's read() and its socket"
# an idle CPU's samples (the idle loop's leaf-most known function) are
# counted apart and left out of the shares; an interrupt taken in the idle
# loop is busy
cat >"$T/perf-idle.txt" <<'PERF'
iperf3 [001]
	ffffffff81000006 _copy_to_iter
	ffffffff81000008 ksys_read

swapper [001]
	ffffffff8100000b poll_idle
	ffffffff8100000c cpuidle_enter_state
	ffffffff8100000d do_idle

swapper [001]
	ffffffff8100000e pvm_safe_halt_hc
	ffffffff8100000f default_idle
	ffffffff8100000d do_idle

swapper [001]
	ffffffff81000007 tcp_v4_rcv
	ffffffff81000002 net_rx_action
	ffffffff8100000c cpuidle_enter_state
	ffffffff8100000d do_idle
PERF
expect_eq "$(bash $WL --parse-profile "$T/perf-idle.txt" | awk '$2 == "samples" || $3 == "samples" || $2 == "_copy_to_iter" || $2 == "net_rx_action" { print $2, $3, $4, $5 }' | tr '\n' ';')" \
	"samples 0 2 ;idle samples 0 2;net_rx_action 0.0 50.0 ;_copy_to_iter 0.0 50.0 ;" "wakeups-live --parse-profile: idle samples apart, shares of the busy ones"
# a transmit under __tcp_send_ack is the ACK's, under tcp_write_xmit a data
# frame's; an unknown kernel function is other, a user-only chain user
cat >"$T/perf-keys.txt" <<'PERF'
iperf3 [001]
	ffffffff81000011 loopback_xmit
	ffffffff81000003 __tcp_transmit_skb
	ffffffff81000012 __tcp_send_ack.part.0
	ffffffff81000013 tcp_recvmsg_locked
	ffffffff81000008 ksys_read

iperf3 [000]
	ffffffff81000011 loopback_xmit
	ffffffff81000003 __tcp_transmit_skb
	ffffffff81000014 tcp_write_xmit
	ffffffff81000015 tcp_sendmsg_locked
	ffffffff81000004 ksys_write

iperf3 [001]
	ffffffff81000003 __tcp_transmit_skb
	ffffffff81000013 tcp_recvmsg_locked
	ffffffff81000008 ksys_read

iperf3 [001]
	ffffffff81000003 __tcp_transmit_skb
	ffffffff81000014 tcp_write_xmit
	ffffffff81000019 tcp_rcv_established
	ffffffff81000008 ksys_read

iperf3 [000]
	ffffffff81000016 mystery_fn

iperf3 [001]
	           d4ad7 iperf_recv

swapper [000]
	ffffffff81000017 pvm_safe_halt_hc
	ffffffff81000018 do_idle
PERF
bash $WL --parse-profile "$T/perf-keys.txt" >"$T/prof.out" 2>"$T/err"
expect_eq "$?:$(sed -n '/by tcpsim cost key/,$p' "$T/prof.out" | awk '$2 ~ /^[a-z_]+$/ && $3 ~ /^[0-9.]+$/ { print $2, $3, $4 }' | tr '\n' ';')" \
	"0:ack_tx 0.0 50.0;tx_frame 50.0 25.0;user 0.0 25.0;other 50.0 0.0;" "wakeups-live --parse-profile: ACKs (under __tcp_send_ack, tcp_recvmsg_locked), data frames (under tcp_write_xmit), user and other"
grep -q '^#   (other: the largest is mystery_fn, 1 samples)$' "$T/prof.out" && ok || bad "wakeups-live --parse-profile: other's largest: $(tail -3 "$T/prof.out")"
# the reader's copy: its bytes (_copy_to_iter) are recv_copy_byte; the walk
# over the fragments and hardened usercopy's check are the read()'s own
cat >"$T/perf-copy.txt" <<'PERF'
iperf3 [001]
	ffffffff81000021 _copy_to_iter
	ffffffff81000022 simple_copy_to_iter
	ffffffff81000023 __skb_datagram_iter
	ffffffff81000024 skb_copy_datagram_iter
	ffffffff81000013 tcp_recvmsg_locked
	ffffffff81000008 ksys_read

iperf3 [001]
	ffffffff81000025 __virt_addr_valid
	ffffffff81000026 __check_object_size
	ffffffff81000022 simple_copy_to_iter
	ffffffff81000023 __skb_datagram_iter
	ffffffff81000024 skb_copy_datagram_iter
	ffffffff81000013 tcp_recvmsg_locked
	ffffffff81000008 ksys_read

iperf3 [001]
	ffffffff81000023 __skb_datagram_iter
	ffffffff81000024 skb_copy_datagram_iter
	ffffffff81000013 tcp_recvmsg_locked
	ffffffff81000008 ksys_read

iperf3 [000]
	ffffffff81000004 ksys_write
PERF
bash $WL --parse-profile "$T/perf-copy.txt" >"$T/prof.out" 2>"$T/err"
expect_eq "$?:$(sed -n '/by tcpsim cost key/,$p' "$T/prof.out" | awk '$2 ~ /^[a-z_]+$/ && $3 ~ /^[0-9.]+$/ { print $2, $3, $4 }' | tr '\n' ';')" \
	"0:syscall 100.0 66.7;recv_copy_byte 0.0 33.3;" "wakeups-live --parse-profile: the reader's byte copy apart from its fragment walk and usercopy check"
# --parse-folded: the model's side, from tcpsim run --folded-cpus lines
cat >"$T/model.folded" <<'FOLDED'
sender+receiver:h;cpu0;process;tcp/ip;syscall 300
sender+receiver:h;cpu0;softirq;tcp/ip;tx_frame 100
sender+receiver:h;cpu1;process;etc;poll 50
sender+receiver:h;cpu1;process;data_copy;copy_xcpu 150
sender+receiver:h;cpu2;process;etc;poll 999
FOLDED
bash $WL --parse-folded "$T/model.folded" >"$T/fold.out" 2>"$T/err"
expect_eq "$?:$(awk '$2 ~ /^[a-z_]+$/ && $3 ~ /^[0-9.]+$/ { print $2, $3, $4 }' "$T/fold.out" | tr '\n' ';')" \
	"0:syscall 75.0 0.0;poll 0.0 25.0;tx_frame 25.0 0.0;copy_xcpu 0.0 75.0;" "wakeups-live --parse-folded: each CPU's keys as shares"
printf 'sender:h;softirq;tcp/ip;tx_frame 100\n' >"$T/host.folded"
expect_fail "wakeups-live --parse-folded of stacks without cpuN" 1 "not a tcpsim --folded-cpus line" bash $WL --parse-folded "$T/host.folded"
expect_fail "wakeups-live --gaps --profile" 2 "one at a time" bash $WL --gaps --profile
expect_fail "wakeups-live --perf-script without --profile" 2 "--perf-script: only with --profile" bash $WL --perf-script "$T"
expect_fail "wakeups-live --perf-script into a missing directory" 2 "not a writable directory" bash $WL --profile --perf-script "$T/no/such"
expect_fail "wakeups-live --gaps --startup" 2 "one at a time" bash $WL --gaps --startup 10
expect_fail "wakeups-live --startup 0" 2 "--startup '0': not a whole number of ms" bash $WL --startup 0
expect_fail "wakeups-live --startup-step 0" 2 "--startup-step '0'" bash $WL --startup 10 --startup-step 0
expect_fail "wakeups-live --startup too many steps" 2 "more than 10000 steps" bash $WL --startup 1000 --startup-step 1
# --parse-startup: the bulk connection (cookies 3 and 4) told from the
# control one (1 and 2) by its volume; time 0 at its first data segment;
# per 100 us the segments, kB and ACKs, the sender's last cwnd, ssthresh,
# srtt, snd_wnd, the receiver's rcv_wnd and rcvbuf after its growth
cat >"$T/start.trace" <<'EOF_TRACE'
# tracer: nop
          iperf3-200     [001] ..s1.   100.000000: tcp_probe: family=AF_INET src=127.0.0.1:5201 dest=127.0.0.1:40000 mark=0x0 data_len=37 snd_nxt=0x1 snd_una=0x1 snd_cwnd=10 ssthresh=2147483647 snd_wnd=65536 srtt=0 rcv_wnd=65536 sock_cookie=1 skbaddr=0 skaddr=0
          iperf3-201     [000] ..s1.   100.000010: tcp_probe: family=AF_INET src=127.0.0.1:40000 dest=127.0.0.1:5201 mark=0x0 data_len=0 snd_nxt=0x1 snd_una=0x1 snd_cwnd=10 ssthresh=2147483647 snd_wnd=65536 srtt=9 rcv_wnd=65536 sock_cookie=2 skbaddr=0 skaddr=0
          iperf3-201     [000] ..s1.   100.001000: tcp_probe: family=AF_INET src=127.0.0.1:5201 dest=127.0.0.1:40002 mark=0x0 data_len=14480 snd_nxt=0x1 snd_una=0x1 snd_cwnd=10 ssthresh=2147483647 snd_wnd=65536 srtt=0 rcv_wnd=65160 sock_cookie=3 skbaddr=0 skaddr=0
          iperf3-201     [000] ..s1.   100.001020: tcp_probe: family=AF_INET src=127.0.0.1:40002 dest=127.0.0.1:5201 mark=0x0 data_len=0 snd_nxt=0x1 snd_una=0x1 snd_cwnd=10 ssthresh=2147483647 snd_wnd=65536 srtt=30 rcv_wnd=65536 sock_cookie=4 skbaddr=0 skaddr=0
          iperf3-201     [000] ..s1.   100.001150: tcp_probe: family=AF_INET src=127.0.0.1:5201 dest=127.0.0.1:40002 mark=0x0 data_len=14480 snd_nxt=0x1 snd_una=0x1 snd_cwnd=10 ssthresh=2147483647 snd_wnd=65536 srtt=0 rcv_wnd=50680 sock_cookie=3 skbaddr=0 skaddr=0
          iperf3-201     [000] ..s1.   100.001160: tcp_probe: family=AF_INET src=127.0.0.1:40002 dest=127.0.0.1:5201 mark=0x0 data_len=0 snd_nxt=0x1 snd_una=0x1 snd_cwnd=20 ssthresh=2147483647 snd_wnd=65536 srtt=31 rcv_wnd=65536 sock_cookie=4 skbaddr=0 skaddr=0
          iperf3-200     [001] .....   100.001250: tcp_rcvbuf_grow: time=200 rtt_us=200 copied=28960 inq=0 space=14600 ooo=0 scaling_ratio=200 rcvbuf=262144 rcv_ssthresh=64000 window_clamp=200000 rcv_wnd=65160 family=AF_INET sport=5201 dport=40002 saddr=127.0.0.1 daddr=127.0.0.1 saddrv6=::1 daddrv6=::1 skaddr=0 sock_cookie=3
          iperf3-201     [000] ..s1.   100.001300: tcp_probe: family=AF_INET src=127.0.0.1:40002 dest=127.0.0.1:5201 mark=0x0 data_len=0 snd_nxt=0x1 snd_una=0x1 snd_cwnd=18 ssthresh=14 snd_wnd=131072 srtt=33 rcv_wnd=65536 sock_cookie=4 skbaddr=0 skaddr=0
          iperf3-201     [000] ..s1.   100.002500: tcp_probe: family=AF_INET src=127.0.0.1:40002 dest=127.0.0.1:5201 mark=0x0 data_len=0 snd_nxt=0x1 snd_una=0x1 snd_cwnd=99 ssthresh=14 snd_wnd=131072 srtt=33 rcv_wnd=65536 sock_cookie=4 skbaddr=0 skaddr=0
EOF_TRACE
bash $WL --parse-startup "$T/start.trace" --startup 1 >"$T/start.out" 2>"$T/err"
expect_eq "$?:$(cat "$T/err")" "0:" "wakeups-live --parse-startup"
expect_eq "$(awk '$2 ~ /^[0-9]+\.[0-9]+$/ && NF == 11 { print $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 }' "$T/start.out" | sed -n '1p;2p;3p;4p;10p' | tr '\n' ';')" \
	"0.100 1 14.1 1 10 2147483647 30 65536 65160 -;0.200 1 14.1 1 20 2147483647 31 65536 50680 -;0.300 0 0.0 0 20 2147483647 31 65536 50680 262144;0.400 0 0.0 1 18 14 33 131072 50680 262144;1.000 0 0.0 0 18 14 33 131072 50680 262144;" \
	"wakeups-live --parse-startup: the steps"
grep -q '^#   slow start ended at 0.300 ms, cwnd 18, ssthresh 14; the largest cwnd in 1 ms: 20$' "$T/start.out" && ok || bad "wakeups-live --parse-startup: $(tail -3 "$T/start.out")"
grep -q '^#        0.250      200     28960         0     14600     262144      0    200     200000$' "$T/start.out" && ok || bad "wakeups-live --parse-startup: the growth $(grep -A2 grows "$T/start.out")"
# with the scheduler's and the calls' tracepoints: per step the writer's
# write()s and sendfile()s (before time 0: not counted), the reader's
# read()s, its sleeps (a switch out in S; in R it is no sleep), wakeups,
# the IPIs to its CPU and its wakeups without one; then their sums (time
# 0 at 100.001000: a step is [0, 100) us)
{
	sed '$d' "$T/start.trace"
	cat <<'EOF_SCHED'
          iperf3-201     [000] .....   100.000900: sys_write(fd: 5, buf: 7f0000, count: 1000)
          iperf3-201     [000] .....   100.001050: sys_write(fd: 5, buf: 7f0000, count: 1000)
          iperf3-200     [001] .....   100.001100: sys_read(fd: 5, buf: 7f0000, count: 1000)
          iperf3-200     [001] d..2.   100.001120: sched_switch: prev_comm=iperf3 prev_pid=200 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
          iperf3-201     [000] d.s3.   100.001140: ipi_send_cpu: cpu=1 callsite=ttwu_queue_wakelist+0x0/0x0 callback=0x0
          iperf3-201     [000] d.s4.   100.001145: sched_wakeup: comm=iperf3 pid=200 prio=120 target_cpu=001
          iperf3-201     [000] d.s3.   100.001210: sched_wake_idle_without_ipi: cpu=1
          iperf3-200     [001] d..2.   100.001300: sched_switch: prev_comm=iperf3 prev_pid=200 prev_prio=120 prev_state=R+ ==> next_comm=ksoftirqd/1 next_pid=22 next_prio=120
          iperf3-201     [000] .....   100.001310: sys_sendfile64(out_fd: 5, in_fd: 6, offset: 0, count: 1000)
EOF_SCHED
	tail -1 "$T/start.trace"
} >"$T/sched.trace"
bash $WL --parse-startup "$T/sched.trace" --startup 1 >"$T/sched.out" 2>"$T/err"
expect_eq "$?:$(cat "$T/err")" "0:" "wakeups-live --parse-startup with the scheduler's events"
expect_eq "$(awk '$2 ~ /^[0-9]+\.[0-9]+$/ && NF == 17 { print $2, $3, $12, $13, $14, $15, $16, $17 }' "$T/sched.out" | sed -n '1,4p' | tr '\n' ';')" \
	"0.100 1 1 0 0 0 0 0;0.200 1 0 1 1 1 1 0;0.300 0 0 0 0 0 0 1;0.400 0 1 0 0 0 0 0;" \
	"wakeups-live --parse-startup: the calls, sleeps, wakeups and IPIs per step"
grep -q '^#   in 1 ms: the writer 2 writes, the reader 1 reads, 1 sleeps (0.50 a write), 1 wakeups; IPIs to its CPU 1, wakeups without one 1$' "$T/sched.out" &&
	ok || bad "wakeups-live --parse-startup: the sums $(grep 'in 1 ms' "$T/sched.out")"
# without them, the columns are left out (the steps above: 11 fields)
[ "$(grep -c 'writes' "$T/start.out")" = 0 ] && ok || bad "wakeups-live --parse-startup: a writes column without the events"
printf '# tracer: nop\n' >"$T/empty.trace"
expect_fail "wakeups-live --parse-startup of a trace without the connection" 1 "no data connection in the trace" bash $WL --parse-startup "$T/empty.trace"
expect_fail "wakeups-live --offload with a bad value" 2 "not tso=, gso= or gro= with on or off" bash $WL --offload tso=maybe
expect_fail "wakeups-live --counters with a bad size" 2 "--counters '64X': not a number of bytes" bash $WL --counters 64X
expect_fail "wakeups-live --counters --startup" 2 "one at a time" bash $WL --counters 64M --startup 10
expect_fail "wakeups-live --offload with an unknown feature" 2 "not tso=, gso= or gro= with on or off" bash $WL --offload lro=off
if [ "$(id -u)" = 0 ]; then
	expect_fail "wakeups-live without iperf3" 2 "iperf3 is not installed" env PATH="$T/noiperf" bash $WL
fi

# --- validation/live/held-back: each patch still applies to this tree -------
# (validation/live/README.md quotes what each does; in a git checkout only),
# and the C files it touches still compile with it (syntax and warnings, as
# the Makefile's flags: a patch that applies can still call what changed)
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	SYN="-std=c11 -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter -D_GNU_SOURCE -fsyntax-only"
	for d in model model/base model/scenario model/engine model/kernel model/net model/app model/config model/study tools/lib tests; do
		SYN="$SYN -iquote $d"
	done
	# shellcheck disable=SC2046
	SYN="$SYN $(pkg-config --cflags gsl inih jansson 2>/dev/null)"
	for p in validation/live/held-back/*.patch; do
		[ -f "$p" ] || continue
		git apply --check "$p" 2>"$T/err" && ok || { bad "held-back patch $p no longer applies: $(cat "$T/err")"; continue; }
		rm -rf "$T/hb" && mkdir "$T/hb" && cp -R model tools tests "$T/hb/" &&
			(cd "$T/hb" && git apply --include='model/*' --include='tools/lib/*' --include='tests/*' "$ROOT/$p") 2>"$T/err" ||
			{ bad "held-back patch $p: could not apply it to a copy: $(cat "$T/err")"; continue; }
		cfail=""
		for f in $(sed -n 's|^+++ b/||p' "$p" | grep -E '^(model|tools/lib|tests)/.*[.]c$'); do
			# shellcheck disable=SC2086
			(cd "$T/hb" && cc $SYN "$f") >"$T/err" 2>&1 || cfail="$cfail $f: $(head -3 "$T/err" | tr '\n' ' ')"
		done
		[ -z "$cfail" ] && ok || bad "held-back patch $p no longer compiles:$cfail"
	done
fi

# --- validation/live/amd-epyc-2cpu-2096-1204-tools: the README's figures ---
# per-read.sh reads the kept perf scripts (fixed data): its first run's
# cycles a read and the keys of README's fast-mode column
D=validation/live/amd-epyc-2cpu-2096-1204-tools
if command -v xz >/dev/null 2>&1; then
	sh $D/per-read.sh >"$T/per-read.out" 2>"$T/err"
	expect_eq "$?:$(sed -n 1p "$T/per-read.out")" "0:== MTU 65536, 4 KB, rep 1 (7,710 Mbit/s): 8740.1 cycles a read" "per-read.sh: the fast run's cycles a read"
	expect_eq "$(sed -n '2,20p' "$T/per-read.out" | awk '$2 ~ /^(syscall|poll|user|recv_copy_byte)$/ { printf "%s %s;", $2, $3 }')" \
		"syscall 3339;poll 1634;recv_copy_byte 778;user 2412;" "per-read.sh: the fast run's keys"
fi
# by-state.sh: the median |error| by the machine's state, on a made report
cat >"$T/vlo.txt" <<'VLO'
h-lo-mtu1500-a   throughput_mbps        100  +-1%   90   -10.0%  no  x
h-lo-mtu1500-a   snd_rwnd_limited_pct   0    -      0    +0.0%   no  x
h-lo-mtu1500-b   throughput_mbps        100  +-1%   70   -30.0%  no  x
h-lo-mtu1500-b   snd_rwnd_limited_pct   99   -      0    -100.0% no  x
h-lo-mtu9000-c   throughput_mbps        100  +-1%   120  +20.0%  yes x
h-lo-mtu9000-c   snd_rwnd_limited_pct   10   -      0    -100.0% yes x
h-lo-mtu9000-d   throughput_mbps        100  +-1%   95   -5.0%   yes x
h-lo-mtu9000-d   snd_rwnd_limited_pct   0    -      0    +0.0%   yes x
VLO
expect_eq "$(sh $D/by-state.sh "$T/vlo.txt" | tr -s ' ' | tr '\n' ';')" \
	"fitted, reader behind 1 rows, median |error| 30.0%;fitted, writer-bound 1 rows, median |error| 10.0%;held out, writer-bound 2 rows, median |error| 12.5%;" "by-state.sh: by state, fitted and held out"
# ss-sample.sh --parse: a kept run's middle sample (fixed data), one that
# left slow start and one still in it (no ssthresh: "-")
S=validation/live/amd-epyc-2cpu-2695-sockets
expect_eq "$(sh $D/ss-sample.sh --parse $S/9000-4K-2.ss 9000 4K 2 | sed -n 2p | tr -s ' ')" \
	"9000 4K 2 7893 47 32 1564160 442893 401018 0" "ss-sample.sh --parse: cwnd, ssthresh and both buffers"
expect_eq "$(sh $D/ss-sample.sh --parse $S/65536-4K-1.ss 65536 4K 1 | sed -n 2p | tr -s ' ')" \
	"65536 4K 1 6385 10 - 2626560 147972 140808 131798" "ss-sample.sh --parse: still in slow start"
expect_fail "ss-sample.sh --parse: its arguments" 2 "ss-sample.sh: --parse wants FILE.ss MTU SIZE REP" sh $D/ss-sample.sh --parse
expect_fail "ss-sample.sh --parse: a missing file" 2 "ss-sample.sh: cannot read $T/none.ss" sh $D/ss-sample.sh --parse $T/none.ss 9000 4K 1
# loss.sh: the training rows' throughput errors (weight 3) squared and under
# the Cauchy loss: 3 (0.01 + 0.09) = 0.30; 3 (0.01 ln 2 + 0.01 ln 10) = 0.090
expect_eq "$(sh $D/loss.sh "$T/vlo.txt")" \
	"2 training residuals: squares 0.30, Cauchy (C 0.1) 0.090; throughput median |error| 20.0% fitted (2), 12.5% held out (2)" "loss.sh: the fit's measures"
# toward.sh: its arguments and a fit without the key (before any run)
expect_fail "toward.sh: its arguments" 2 "toward.sh: want MACHINE FITTED.cfg T KEY=V..." sh $D/toward.sh
expect_fail "toward.sh: a missing fit" 2 "toward.sh: cannot read $T/none.cfg" \
	sh $D/toward.sh amd-epyc-2cpu-2096-1204 "$T/none.cfg" 0.5 tx_frame=1
printf '[cost]\nsyscall = 1\n' >"$T/fit1.cfg"
expect_fail "toward.sh: a key the fit lacks" 2 "toward.sh: $T/fit1.cfg has no [cost] rx_frame" \
	sh $D/toward.sh amd-epyc-2cpu-2096-1204 "$T/fit1.cfg" 0.5 rx_frame=1
# key-prices.sh: a key priced per frame and ACK, and per call, from
# committed profiles and their matrix (fixed data): the medians the
# amd-epyc-2cpu-2596 profile holds (rx_frame tried, user and recv_user
# kept), a run's line of each mode, and its refusals
KP=validation/live/key-prices.sh
L=validation/live/amd-epyc-2cpu-2596
expect_eq "$(sh $KP frame rx_frame $L.profile-send.txt,$L.profile-recv.txt $L.csv 2.59614 | tail -1)" \
	"rx_frame: median 1600 cycles a frame or ACK over 16 runs (1308-1878)" "key-prices.sh frame: rx_frame over two profiles"
expect_eq "$(sh $KP frame rx_frame $L.profile-send.txt $L.csv 2.59614 | sed -n 1p | tr -s ' ')" \
	"$L.profile-send.txt MTU 1500 4K rep 1 3717 Mbit/s 1691 cycles" "key-prices.sh frame: a run's line"
expect_eq "$(sh $KP call user $L.profile-send.txt,$L.profile-recv.txt 2.59614 | tail -1)" \
	"user: median 405 cycles a write, 627 a read, over 16 runs" "key-prices.sh call: user over two profiles"
expect_eq "$(sh $KP call user $L.profile-send.txt 2.59614 | sed -n 1p | tr -s ' ')" \
	"$L.profile-send.txt MTU 1500 4K rep 1 writer 394 cycles a write reader 622 a read" "key-prices.sh call: a run's line"
# an ACK's keys over the ACKs alone and tx_frame over the data frames alone
# (netdev.c charges tx_frame for data, tcp_send_ack ack_tx for each ACK):
# amd-epyc-2cpu-2596-1207b's eight runs
L7=validation/live/amd-epyc-2cpu-2596-1207b
expect_eq "$(sh $KP frame ack_tx $L7.profile-send.txt $L7.csv 2.596 | tail -1)" \
	"ack_tx: median 2106 cycles an ACK over 8 runs (1195-2677)" "key-prices.sh frame: ack_tx over the ACKs"
expect_eq "$(sh $KP frame tx_frame $L7.profile-send.txt $L7.csv 2.596 | tail -1)" \
	"tx_frame: median 3021 cycles a frame over 8 runs (1310-6841)" "key-prices.sh frame: tx_frame over the frames"
expect_fail "key-prices.sh: no mode" 2 "key-prices.sh: want frame or call, and its arguments" sh $KP
expect_fail "key-prices.sh: a mode it lacks" 2 "key-prices.sh: want frame or call, not 'page'" sh $KP page user
expect_fail "key-prices.sh frame: its arguments" 2 "key-prices.sh: frame wants 4 arguments, got 1" sh $KP frame rx_frame
expect_fail "key-prices.sh call: its arguments" 2 "key-prices.sh: call wants 3 arguments, got 1" sh $KP call user
expect_fail "key-prices.sh: a missing matrix" 2 "key-prices.sh: no such matrix: $T/none.csv" sh $KP frame rx_frame $L.profile-send.txt "$T/none.csv" 2.6
expect_fail "key-prices.sh: a missing profile" 2 "key-prices.sh: no such profile: $T/none.txt" sh $KP call user "$T/none.txt" 2.6
expect_fail "key-prices.sh: a clock that is no number" 2 "key-prices.sh: GHZ must be a clock in GHz, not 'fast'" sh $KP call user $L.profile-send.txt fast
expect_fail "key-prices.sh: sendfile profiles" 2 "profiles sendfile()" sh $KP frame rx_frame $L.profile-send-sendfile.txt $L.csv 2.6
expect_fail "key-prices.sh: a key the profile lacks" 2 "key-prices.sh: no no_such_key line in the profiles" sh $KP call no_such_key $L.profile-send.txt 2.6
# transmit.sh: a committed perf script (fixed data): the reader's ACK
# transmit and the writer's data transmit at MTU 1500 with 4 KB writes,
# the softirq they run apart; its refusals
TX=validation/live/amd-epyc-2cpu-2596-1207b-ack
expect_eq "$(sh $TX/transmit.sh $TX/perf-1500-4K-1.txt.xz 1 ack | sed -n 1p)" \
	"CPU 1: 1967 busy samples (22 idle); under an ACK transmit 603 (30.7%): in the softirq it runs 321 (16.3%), the transmit itself 282 (14.3%)" \
	"transmit.sh: the reader's ACK transmit"
expect_eq "$(sh $TX/transmit.sh $TX/perf-1500-4K-1.txt.xz 0 data | sed -n 1p)" \
	"CPU 0: 1997 busy samples (0 idle); under a data frame transmit 1076 (53.9%): in the softirq it runs 710 (35.6%), the transmit itself 366 (18.3%)" \
	"transmit.sh: the writer's data transmit"
expect_fail "transmit.sh: its arguments" 2 "transmit.sh: want PERF_SCRIPT CPU ack|data, got 0 arguments" sh $TX/transmit.sh
expect_fail "transmit.sh: a kind it lacks" 2 "transmit.sh: want ack or data, not 'syn'" sh $TX/transmit.sh $TX/perf-1500-4K-1.txt.xz 1 syn
expect_fail "transmit.sh: a CPU without samples" 1 "transmit.sh: no busy samples on CPU 7" sh $TX/transmit.sh $TX/perf-1500-4K-1.txt.xz 7 ack
# keys-side-by-side.sh: a committed profile's run (fixed data) beside a
# short model run: the machine's column (its writer's syscall key, 2,648
# cycles a write at MTU 1500, 4 KB, rep 1) and a TOTAL line with numbers in
# all four columns; its refusals
KS=validation/live/keys-side-by-side.sh
LB=validation/live/amd-epyc-2cpu-2596-1207b
sh $KS $LB.profile-lock.txt 1500 4K 1 scenarios/live/amd-epyc-2cpu-2596-1207b-lo-fitted.cfg -s run.duration=50ms -s run.warmup=20ms >"$T/ks.out" 2>"$T/err"
expect_eq "$?:$(awk '$1 == "syscall" { print $2 }' "$T/ks.out"):$(awk '$1 == "TOTAL" && NF == 5 && $3 > 0 && $5 > 0 { print "total" }' "$T/ks.out")" \
	"0:2648:total" "keys-side-by-side.sh: the machine's syscall key and the totals"
expect_fail "keys-side-by-side.sh: its arguments" 2 "keys-side-by-side.sh: want PROFILE_OUTPUT MTU SIZE REP SCENARIO, got 2 arguments" sh $KS $LB.profile-lock.txt 1500
expect_fail "keys-side-by-side.sh: a run the profile lacks" 2 "has no run MTU 9000, 4K, rep 1" \
	sh $KS $LB.profile-lock.txt 9000 4K 1 scenarios/live/amd-epyc-2cpu-2596-1207b-lo-fitted.cfg
expect_fail "keys-side-by-side.sh: a missing profile" 2 "keys-side-by-side.sh: no profile output $T/none.txt" \
	sh $KS "$T/none.txt" 1500 4K 1 scenarios/live/amd-epyc-2cpu-2596-1207b-lo-fitted.cfg
# the canary study's table (kept runs and marks, fixed data): a slow run's
# cycles a read and slow%, and the best canary's rank correlation
C=validation/live/amd-epyc-2cpu-2096-1204-canary
sh $C/analyse.sh $C/s2 >"$T/canary.out" 2>"$T/err"
expect_eq "$?:$(awk '$1 == "a10" { print $2, $5, $6 }' "$T/canary.out")" "0:5623 11804 20.6" "canary analyse.sh: a slow run"
expect_eq "$(grep -c '^[ab][0-9]' "$T/canary.out"):$(grep -o 'a runs (12):.*' "$T/canary.out" | grep -o 'T-ilp/1 [+-][0-9.]*')" "24:T-ilp/1 +0.92" "canary analyse.sh: the runs and the eight chains' correlation"
# behind.sh: the kept profile's rep 3 (fixed data) beside a model run
sh $C/behind.sh >"$T/behind.out" 2>"$T/err"
expect_eq "$?:$(sed -n 1p "$T/behind.out")" "0:machine (rep 3, reader behind): 56358 Mbit/s, 16824 cycles a write, 17076 a read" "behind.sh: the machine's side"
if sed -n 2p "$T/behind.out" | grep -Eq '^model \(committed fit, reader behind\): [0-9]+ Mbit/s, [0-9]+ cycles a write, [0-9]+ a read$' &&
	awk '$1 == "user" && $2 == 1884 && $3 == 0 && $4 == 2800 && $5 == 0 { u = 1 } END { exit !u }' "$T/behind.out"; then ok
else bad "behind.sh: want the model's line and the user row 1884 0 2800 0; got: $(head -4 "$T/behind.out")"; fi

# --- the scenarios: tcpsim takes them with the overrides a recorded run has --
# (tcp.pacing=on marks the paced set, and the model takes it as it is)
for f in validation/live/*.csv; do
	case $f in *.reps.csv|*.primcost.csv|*.primcost-end.csv) continue ;; esac
	[ -f "$f" ] || continue
	# the first loopback row and the first veth row
	for kind in -lo.cfg -veth.cfg; do
		line=$(awk -F'","' -v k="$kind" 'NR > 1 && index($3, k) { print $3 "\t" $4; exit }' "$f")
		[ -n "$line" ] || continue
		scen=${line%%	*} ov=${line#*	}
		set --
		for a in $(echo "$ov" | tr ';' ' '); do set -- "$@" -s "$a"; done
		if "$TCPSIM" "$scen" "$@" -s run.duration=20ms -s run.batch=5ms -s run.warmup=5ms --format csv >"$T/sim" 2>"$T/err"; then
			ok
		else
			bad "$f: tcpsim $scen $*: $(cat "$T/err")"
		fi
	done
done

# --- a host's own run settings (validation/live/MACHINE.validate-run.cfg,
# which validate.sh reads instead of validate-run.cfg): each names a host
# with a matrix, its -lo-fitted scenario includes it, and the scenario runs
# for the duration the file (or the file it includes) sets --
run_duration() ( # FILE: the [run] duration the file sets, else its include's
	d=$(awk -F' *= *' '/^\[/ { run = ($0 == "[run]") } run && $1 == "duration" { v = $2 } END { print v }' "$1")
	if [ -n "$d" ]; then echo "$d"; exit 0; fi
	inc=$(sed -n 's/^include *= *//p' "$1" | tail -1)
	[ -n "$inc" ] && run_duration "$(dirname "$1")/$inc"
)
for f in validation/live/*.validate-run.cfg; do
	[ -f "$f" ] || continue
	h=${f##*/}
	h=${h%.validate-run.cfg}
	[ -f "validation/live/$h.csv" ] || { bad "$f: no validation/live/$h.csv for its host"; continue; }
	scen=scenarios/live/$h-lo-fitted.cfg
	grep -q "^include = ../../validation/live/$h.validate-run.cfg" "$scen" 2>/dev/null ||
		{ bad "$scen does not include $f (validate.sh's runs and the scenario's would differ)"; continue; }
	want=$(run_duration "$f")
	[ -n "$want" ] || { bad "$f: no [run] duration in it or the files it includes"; continue; }
	if "$TCPSIM" "$scen" -s app.send_size=64K -s run.warmup=1ms --format json >"$T/sim" 2>"$T/err"; then
		# the run ends 1 ms (the warm-up asked) plus the duration after
		# its start, however far autotuning moved the warm-up's end
		got=$(awk -F': *' '/"(warmup|measured)_s"/ { s += $2 } END { printf "%.6f", s - 0.001 }' "$T/sim")
		expect_eq "$(awk -v g="$got" -v w="${want%s}" 'BEGIN { d = g - w; print (d < 1e-6 && d > -1e-6) ? "same" : g " against " w }')" same \
			"$scen: the run's seconds against $f's duration"
	else
		bad "$scen: $(cat "$T/err")"
	fi
done

# --- validate.sh's start at perf's prices: each profile's "; perf prices:"
# line names [cost] keys with values tcpsim takes (validate.sh writes them
# into a profile as they stand) --
for f in scenarios/live/*.cfg; do
	pp=$(sed -n 's/^; perf prices: *//p' "$f")
	[ -n "$pp" ] || continue
	scen=${f%.cfg}-lo.cfg
	[ -f "$scen" ] || { bad "$f: perf prices but no $scen"; continue; }
	set --
	for kv in $pp; do
		case $kv in *=*) set -- "$@" -s "cost.$kv" ;; *) bad "$f: perf prices: '$kv' is not KEY=V" ;; esac
	done
	if "$TCPSIM" "$scen" "$@" -s run.duration=2ms -s run.batch=1ms -s run.warmup=1ms --format csv >"$T/sim" 2>"$T/err"; then
		ok
	else
		bad "$f: perf prices $pp: $(cat "$T/err")"
	fi
done

# --- live-diff: one matrix measured in two sessions -------------------------
# Two hand-made matrices of one machine under two names: the point ids match
# once the name is off; the changes are worked out by hand.
cat >"$T/a.csv" <<'CSV'
"id","source","scenario","overrides","throughput_mbps","cs_per_s","throughput_mbps_cv","cs_per_s_cv"
"m1-lo-mtu1500-send4K","s","scenarios/live/m1-lo.cfg","link.mtu=1500;app.send_size=4K","1000","200","0.1","0.01"
"m1-lo-mtu9000-send4K","s","scenarios/live/m1-lo.cfg","link.mtu=9000;app.send_size=4K","2000","0","0.01","0.01"
"m1-veth-mtu1500","s","scenarios/live/m1-veth.cfg","link.mtu=1500","500","100","",""
"m1-lo-only-in-a","s","scenarios/live/m1-lo.cfg","link.mtu=1500","1","1","",""
CSV
cat >"$T/b.csv" <<'CSV'
"id","source","scenario","overrides","throughput_mbps","cs_per_s","throughput_mbps_cv","cs_per_s_cv"
"m1-x-lo-mtu1500-send4K","s","scenarios/live/m1-x-lo.cfg","link.mtu=1500;app.send_size=4K","1100","300","0.02","0.01"
"m1-x-lo-mtu9000-send4K","s","scenarios/live/m1-x-lo.cfg","link.mtu=9000;app.send_size=4K","1500","10","0.01","0.01"
"m1-x-veth-mtu1500","s","scenarios/live/m1-x-veth.cfg","link.mtu=1500","500","100","",""
CSV
LD=$BIN/live-diff
"$LD" "$T/a.csv" "$T/b.csv" --metrics throughput_mbps,cs_per_s >"$T/out" 2>"$T/err"
expect_eq "$?" 0 "live-diff exit status"
line() { awk -v p="$1" -v m="$2" '$1 == p && $2 == m { $1 = ""; $2 = ""; sub(/^ +/, ""); print }' "$T/out"; }
expect_eq "$(line lo-mtu1500-send4K throughput_mbps)" "1000 1100 +10.0%" "live-diff: +10% inside twice the CV of 0.1 is not moved"
expect_eq "$(line lo-mtu1500-send4K cs_per_s)" "200 300 +50.0% moved" "live-diff: +50% against CVs of 0.01 moved"
expect_eq "$(line lo-mtu9000-send4K throughput_mbps)" "2000 1500 -25.0% moved" "live-diff: -25%"
expect_eq "$(line lo-mtu9000-send4K cs_per_s)" "0 10 -" "live-diff: no change from 0"
expect_eq "$(line veth-mtu1500 throughput_mbps)" "500 500 +0.0%" "live-diff: no spread given, no change, not moved"
expect_eq "$(grep -c only-in-a "$T/out")" 0 "live-diff: a point in A only is left out"
expect_eq "$(awk '$1 == "throughput_mbps" && NF == 5' "$T/out")" "throughput_mbps             3        10.0%        25.0%        1" \
	"live-diff summary: n, median and max |change|, moved"
expect_eq "$(grep '^Summary' "$T/out")" "Summary over the 3 points in both: |change| per metric" "live-diff summary line"
"$LD" "$T/a.csv" "$T/b.csv" --where link.mtu=9000 --metrics throughput_mbps >"$T/out" 2>&1
expect_eq "$(grep '^Summary' "$T/out")" "Summary over the 1 points in both: |change| per metric" "live-diff --where"
expect_fail "live-diff: unknown metric" 2 "no metric 'nope'" "$LD" "$T/a.csv" "$T/b.csv" --metrics nope
expect_fail "live-diff: one file" 2 "two files to compare" "$LD" "$T/a.csv"
expect_fail "live-diff: missing file" 2 "$T/none.csv" "$LD" "$T/a.csv" "$T/none.csv"
printf '"id","source","scenario","overrides","throughput_mbps"\n"q","s","scenarios/live/q-lo.cfg","","1"\n' >"$T/c.csv"
expect_fail "live-diff: no point in common" 1 "no point of" "$LD" "$T/a.csv" "$T/c.csv"
printf '"id","source","scenario","overrides","throughput_mbps"\n"q","s","x.cfg","","1\n' >"$T/bad.csv"
expect_fail "live-diff: a bad CSV names its file" 2 "$T/bad.csv" "$LD" "$T/a.csv" "$T/bad.csv"

# --- measure-live --write-scenarios: the files it writes read back ---------------
# (in a copy of the tree: it writes ROOT/scenarios/live; it reads /proc and
# uname only, no measurement)
mkdir -p "$T/tree/tools" && cp "$ML" "$T/tree/tools/measure-live"
m=$(printf 'm%.0s' $(seq 63))
if bash "$T/tree/tools/measure-live" --write-scenarios --machine "$m" >"$T/out" 2>"$T/err"; then
	for s in "$m" "$m-lo" "$m-veth"; do
		"$TCPSIM" run "$T/tree/scenarios/live/$s.cfg" -s run.duration=20ms -s run.batch=5ms -s run.warmup=5ms \
			--format csv >"$T/sim" 2>"$T/err" && ok || bad "measure-live --write-scenarios: $s.cfg: $(cat "$T/err")"
	done
else
	bad "measure-live --write-scenarios --machine (63 characters): $(cat "$T/err")"
fi
expect_fail "measure-live machine name longer than host.name" 2 "longer than 63 characters" \
	bash "$T/tree/tools/measure-live" --write-scenarios --machine "${m}m"

echo "live.test: $pass passed, $fail failed"
[ $fail -eq 0 ]
