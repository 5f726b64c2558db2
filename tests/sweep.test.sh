#!/bin/sh
# sweep.test.sh ASAN_DIR: tcpsim sweep through the real binary.
#
# The acceptance sweep (4 MTUs x TSO on/off x TCP_STREAM/TCP_SENDFILE, a short
# run) must be byte-identical with -j1 and -j2; shards 1/3, 2/3, 3/3 run by
# GNU parallel (tools/sweep-parallel) on localhost, by the Slurm script and
# over a stand-in ssh, merged, must equal the one-machine CSV and sidecar; a
# row must be reproduced by `tcpsim run OUT.csv.cfg -s ... -s run.seed=`;
# a sweep stopped by SIGINT and resumed must equal an uninterrupted one.
# Bad input exits 2 with one "tcpsim: " line.  CSV fields are only ever
# read through `tcpsim sweep --columns` (libcsv); whole rows are compared
# as bytes.  One line per check; exit status 1 if any failed.
set -u
ASAN_DIR=$(cd "${1:?usage: sweep.test.sh ASAN_DIR}" && pwd) || exit 1
TCPSIM="$ASAN_DIR/tcpsim"
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
D="$HERE/data/sweep"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tcpsim-sweep.XXXXXX") || exit 1
trap 'umount "$TMP/mnt" 2>/dev/null; rm -rf "$TMP"' EXIT INT TERM

. "$HERE/lib.sh"
skip() { n=$((n + 1)); echo "ok $n - # SKIP $1: $2"; }

# same NAME A B: files A and B (and their sidecars A.cfg B.cfg) byte-identical
same() {
	if ! cmp -s "$2" "$3"; then bad "$1" "$2 and $3 differ: $(cmp "$2" "$3" 2>&1 | head -1)"; return 1; fi
	if ! cmp -s "$2.cfg" "$3.cfg"; then bad "$1" "$2.cfg and $3.cfg differ"; return 1; fi
	ok "$1"
}

lines() { if [ -f "$1" ]; then wc -l <"$1" | tr -d ' '; else echo 0; fi; }

# bad_input NAME NEEDLE -- ARGS...: exit 2, one stderr line "tcpsim: ..." containing NEEDLE
bad_input() {
	name=$1 needle=$2
	shift 3
	"$TCPSIM" "$@" >"$TMP/out" 2>"$TMP/err"
	st=$?
	if [ "$st" -ne 2 ]; then bad "$name" "exit status $st, want 2 ($(head -c 300 "$TMP/err"))"; return; fi
	if [ "$(lines "$TMP/err")" -ne 1 ]; then bad "$name" "stderr not one line: $(head -c 300 "$TMP/err")"; return; fi
	if ! grep -q '^tcpsim: ' "$TMP/err"; then bad "$name" "stderr: $(cat "$TMP/err")"; return; fi
	if ! grep -qF -- "$needle" "$TMP/err"; then bad "$name" "stderr lacks '$needle': $(cat "$TMP/err")"; return; fi
	ok "$name: $(cat "$TMP/err")"
}

[ -x "$TCPSIM" ] || { echo "FAIL - no binary $TCPSIM"; exit 1; }
if ! "$TCPSIM" run "$D/fast.cfg" >/dev/null 2>"$TMP/err"; then
	echo "FAIL - the simulator does not run $D/fast.cfg: $(head -c 300 "$TMP/err")"
	exit 1
fi

# the acceptance sweep
set -- --vary link.mtu=1500,9000,16436,65536 --vary offload.tso=on,off \
	--vary app.test=TCP_STREAM,TCP_SENDFILE
cd "$TMP" || exit 1

# --- -j1 and -j2 -----------------------------------------------------------
"$TCPSIM" sweep "$D/fast.cfg" "$@" -o j1.csv -j1 2>err1
st1=$?
"$TCPSIM" sweep "$D/fast.cfg" "$@" -o j2.csv -j 2 2>err2
st2=$?
if [ $st1 -ne 0 ] || [ $st2 -ne 0 ]; then
	bad "sweep -j1, -j2" "exit $st1, $st2: $(head -c 300 err1) $(head -c 300 err2)"
else
	[ "$(lines j1.csv)" -eq 17 ] && ok "16 points and a header" || bad "16 points" "$(lines j1.csv) lines"
	same "-j1 and -j2 byte-identical" j1.csv j2.csv
	# nothing but the note on runs whose buffers never settled (fast.cfg's
	# runs are short)
	if grep -v "autotuning still changed socket buffers" err1 err2 | grep -q .; then
		bad "no progress when stderr is not a terminal" "$(cat err1 err2)"
	else ok "no progress when stderr is not a terminal"; fi
	grep -q "j1.csv: in [0-9]* of 16 runs autotuning still changed socket buffers" err1 &&
		ok "the sweep says how many of its runs never settled" ||
		bad "the sweep says how many runs never settled" "$(cat err1)"

fi

# --- progress on a terminal ---------------------------------------------------
if command -v script >/dev/null 2>&1; then
	script -qec "'$TCPSIM' sweep '$D/fast.cfg' --vary link.mtu=1500,9000 -o tty.csv" /dev/null >tty.out 2>&1
	if grep -q 'sweep: 2/2 runs (100.0%) .* runs/s  ETA' tty.out; then ok "progress on a terminal"
	else bad "progress on a terminal" "$(head -c 300 tty.out)"; fi
else
	skip "progress on a terminal" "no script(1)"
fi

# --- a row reproduced by tcpsim run -------------------------------------------
# point 13 = (65536, on, TCP_SENDFILE); its seed from the CSV through libcsv
"$TCPSIM" sweep --columns point,seed,link.mtu,offload.tso,app.test j1.csv >cols.tsv
row=$(grep '^13	' cols.tsv)
seed=$(printf '%s\n' "$row" | cut -f2)
if [ "$(printf '%s\n' "$row" | cut -f3-5)" != "65536	on	TCP_SENDFILE" ]; then
	bad "point 13 is 65536/on/TCP_SENDFILE" "got '$row'"
else
	"$TCPSIM" run j1.csv.cfg -s link.mtu=65536 -s offload.tso=on -s app.test=TCP_SENDFILE \
		-s run.seed="$seed" --format csv -o rerun.csv
	want="\"13\",\"0\",\"$seed\",\"65536\",\"on\",\"TCP_SENDFILE\",$(tail -n 1 rerun.csv)"
	if grep -qxF -- "$want" j1.csv; then ok "tcpsim run OUT.csv.cfg -s ... -s run.seed=$seed reproduces row 13"
	else bad "row 13 reproduced" "rerun gives $want"; fi
fi

# --- shards through GNU parallel on localhost, merged -------------------------
if command -v parallel >/dev/null 2>&1; then
	"$ROOT/tools/sweep-parallel" --tcpsim "$TCPSIM" -j 3 --shards 3 "$D/fast.cfg" par.csv "$@" 2>perr
	st=$?
	if [ $st -ne 0 ]; then bad "sweep-parallel -j 3 --shards 3" "exit $st: $(head -c 400 perr)"
	else same "shards 1/3 2/3 3/3 through GNU parallel, merged == one machine" par.csv j1.csv; fi
	[ -e par.csv.shards ] && bad "shard files cleaned up" "par.csv.shards left" || ok "shard files cleaned up"
	# --sshlogin through a stand-in ssh (rsync does --return)
	if command -v rsync >/dev/null 2>&1; then
		FAKESSH_ROOT="$TMP/remote" PARALLEL_SSH="$D/fakessh" \
			"$ROOT/tools/sweep-parallel" --tcpsim "$TCPSIM" -S 2/hostA -S 1/hostB --shards 5 \
			"$D/fast.cfg" ssh.csv "$@" 2>serr
		st=$?
		if [ $st -ne 0 ]; then bad "sweep-parallel --sshlogin" "exit $st: $(head -c 400 serr)"
		else same "5 shards over --sshlogin (2/hostA, 1/hostB), merged == one machine" ssh.csv j1.csv; fi
		left=$(find "$TMP/remote" -type f | head -3)
		[ -z "$left" ] && ok "remote shard files removed" || bad "remote shard files removed" "$left"
	else
		skip "sweep-parallel --sshlogin" "no rsync"
	fi
else
	bad "GNU parallel" "not installed (make deps)"
fi

# --- a 64-value axis: its sidecar line is 300 characters --------------------------
# The sidecar names every value in one "# sweep.vary" comment; the .cfg reader
# reads lines longer than inih's 200-byte buffer itself.
LONG="--vary app.send_size=1K:64K:1K"
"$TCPSIM" sweep "$D/fast.cfg" $LONG -o long.csv -j 2 2>lerr || bad "64-value sweep" "exit $?: $(head -c 300 lerr)"
w=$(awk 'length > 199' long.csv.cfg | wc -l)
[ "$w" -ge 1 ] && ok "the 64-value sidecar has a line longer than 199 characters" ||
	bad "64-value sidecar" "no line over 199 characters"
row=$("$TCPSIM" sweep --columns point,seed,app.send_size long.csv | grep '^40	')
seed=$(printf '%s\n' "$row" | cut -f2)
if [ "$(printf '%s\n' "$row" | cut -f3)" != "41K" ]; then
	bad "point 40 of the 64-value axis is 41K" "got '$row'"
elif ! "$TCPSIM" run long.csv.cfg -s app.send_size=41K -s run.seed="$seed" --format csv -o lrerun.csv 2>lerr; then
	bad "tcpsim run OUT.csv.cfg with a 64-value axis" "$(head -c 300 lerr)"
else
	want="\"40\",\"0\",\"$seed\",\"41K\",$(tail -n 1 lrerun.csv)"
	if grep -qxF -- "$want" long.csv; then ok "tcpsim run OUT.csv.cfg reproduces a row of a 64-value axis"
	else bad "a row of the 64-value axis reproduced" "rerun gives $want"; fi
fi
"$TCPSIM" sweep "$D/fast.cfg" $LONG --shard 1/2 -o long1.csv 2>lerr &&
	"$TCPSIM" sweep "$D/fast.cfg" $LONG --shard 2/2 -o long2.csv 2>>lerr &&
	"$TCPSIM" sweep --merge -o longm.csv long2.csv long1.csv 2>>lerr
st=$?
if [ $st -ne 0 ]; then bad "sweep --merge with a 64-value axis" "exit $st: $(head -c 300 lerr)"
else same "sweep --merge of two shards of a 64-value axis == one machine" longm.csv long.csv; fi
if command -v parallel >/dev/null 2>&1; then
	"$ROOT/tools/sweep-parallel" --tcpsim "$TCPSIM" -j 2 --shards 3 "$D/fast.cfg" longp.csv $LONG 2>lerr
	st=$?
	if [ $st -ne 0 ]; then bad "sweep-parallel with a 64-value axis" "exit $st: $(head -c 400 lerr)"
	else same "sweep-parallel with a 64-value axis, merged == one machine" longp.csv long.csv; fi
fi
"$TCPSIM" sweep "$D/fast.cfg" $LONG -o long.csv --resume 2>lerr &&
	cmp -s long.csv longm.csv && ok "--resume of a finished 64-value sweep reads its sidecar" ||
	bad "--resume with a 64-value axis" "$(head -c 300 lerr)"

# --- a write that fails part way (a full disk) leaves whole rows ------------------
# A file size limit stands in for the full disk: with SIGXFSZ ignored, write(2)
# writes up to the limit and then fails (EFBIG), as at ENOSPC.  ulimit -f
# counts 512-byte blocks in dash (1024 in bash): 8 or 16 KB, past the sidecar
# (4 KB with the 64 values in its comment) and the header, far short of the
# 64-value sweep.
sh -c 'trap "" XFSZ; ulimit -f 16 && exec "$0" "$@"' "$TCPSIM" sweep "$D/fast.cfg" $LONG -o full.csv -j 2 2>ferr
st=$?
size=$(wc -c <full.csv 2>/dev/null || echo 0)
if [ $st -ne 3 ] || ! grep -q "cannot write 'full.csv'" ferr; then
	bad "a sweep that cannot write" "exit $st: $(head -c 300 ferr)"
elif [ "$size" -eq 0 ] || [ "$(tail -c 1 full.csv | od -An -c | tr -d ' ')" != '\n' ] ||
	! head -c "$size" long.csv | cmp -s - full.csv; then
	bad "a failed write leaves whole rows" "$size bytes, last: $(tail -c 40 full.csv)"
else
	ok "a write failing part way (file size limit) leaves $(($(lines full.csv) - 1)) whole rows: $(head -1 ferr)"
fi
"$TCPSIM" sweep --columns point full.csv >/dev/null 2>ferr && ok "--columns reads the file a failed write left" ||
	bad "--columns after a failed write" "$(cat ferr)"
"$TCPSIM" sweep "$D/fast.cfg" $LONG -o full.csv -j 2 --resume 2>ferr
same "--resume after a failed write == uninterrupted" full.csv long.csv
# a real full disk: a 12 KB tmpfs (root only): the sidecar takes a page, the
# rows two, then ENOSPC
: >ferr
if [ "$(id -u)" -eq 0 ] && mkdir -p mnt && mount -t tmpfs -o size=12k tcpsim-test mnt 2>ferr; then
	"$TCPSIM" sweep "$D/fast.cfg" $LONG -o mnt/full.csv -j 2 2>ferr
	st=$?
	size=$(wc -c <mnt/full.csv 2>/dev/null || echo 0)
	cp mnt/full.csv enospc.csv 2>/dev/null
	umount mnt
	if [ $st -ne 3 ] || ! grep -q "No space left on device" ferr; then
		bad "a sweep on a full tmpfs" "exit $st: $(head -c 300 ferr)"
	elif [ "$size" -eq 0 ] || [ "$(tail -c 1 enospc.csv | od -An -c | tr -d ' ')" != '\n' ] ||
		! head -c "$size" long.csv | cmp -s - enospc.csv; then
		bad "a full disk leaves whole rows" "$size bytes, last: $(tail -c 40 enospc.csv)"
	else
		ok "a full tmpfs (ENOSPC) leaves $(($(lines enospc.csv) - 1)) whole rows: $(head -1 ferr)"
	fi
else
	skip "a sweep on a full tmpfs" "needs root and mount -t tmpfs ($(head -c 100 ferr))"
fi
# a torn last line (a crash, a file copied half) is named as such
head -c "$(($(wc -c <long.csv) - 37))" long.csv >tornc.csv
cp long.csv.cfg tornc.csv.cfg
bad_input "--columns of a file with a torn last line" "incomplete (an interrupted run): finish it with tcpsim sweep --resume" -- \
	sweep --columns point tornc.csv

# --- the Slurm job-array script (its environment faked) -------------------------
for id in 4 5 6; do
	SLURM_ARRAY_TASK_ID=$id SLURM_ARRAY_TASK_MIN=4 SLURM_ARRAY_TASK_COUNT=3 SLURM_CPUS_PER_TASK=2 \
		TCPSIM="$TCPSIM" sh "$ROOT/tools/sweep-slurm.sh" "$D/fast.cfg" slurm.csv "$@" 2>>slerr || echo "task $id: $?" >>slerr
done
TCPSIM="$TCPSIM" sh "$ROOT/tools/sweep-slurm.sh" --merge slurm.csv 2>>slerr
if [ -f slurm.csv ]; then same "Slurm array tasks 4..6 as shards 1/3..3/3, merged == one machine" slurm.csv j1.csv
else bad "Slurm array" "$(head -c 400 slerr)"; fi

# --- merge refuses what is not one whole sweep -----------------------------------
bad_input "merge: a shard missing" "is in no input" -- sweep --merge -o m.csv \
	slurm.shard-1-of-3.csv slurm.shard-3-of-3.csv
bad_input "merge: a shard twice" "in another input too" -- sweep --merge -o m.csv \
	slurm.shard-1-of-3.csv slurm.shard-2-of-3.csv slurm.shard-3-of-3.csv slurm.shard-2-of-3.csv
"$TCPSIM" sweep "$D/fast.cfg" --vary link.mtu=1500,9000 --shard 2/3 -o other.csv 2>/dev/null
bad_input "merge: shards of two sweeps" "not shards of one sweep" -- sweep --merge -o m.csv \
	slurm.shard-1-of-3.csv other.csv slurm.shard-3-of-3.csv
[ -e m.csv ] && bad "a failed merge writes nothing" "m.csv exists" || ok "a failed merge writes nothing"

# --- SIGINT, then --resume ------------------------------------------------------
# 172 runs of 500 ms simulated (no early stop): seconds of work; the
# signal comes once 10 rows are on disk, so the sweep is well under way
set -- -s run.duration=500ms -s run.ci_target=0 --vary link.mtu=1500:65536:1500 \
	--vary offload.tso=on,off --vary app.test=TCP_STREAM,TCP_SENDFILE
"$TCPSIM" sweep "$D/fast.cfg" "$@" -o whole.csv -j 2 2>/dev/null || bad "uninterrupted sweep" "exit $?"
# a background job of a script may inherit SIGINT ignored: reset it when env can
if env --default-signal=INT true 2>/dev/null; then dflt="env --default-signal=INT"; else dflt=""; fi
$dflt "$TCPSIM" sweep "$D/fast.cfg" "$@" -o cut.csv -j 2 2>int.err &
pid=$!
tries=0
while [ "$tries" -lt 300 ] && [ "$(lines cut.csv)" -lt 11 ]; do
	sleep 0.1
	tries=$((tries + 1))
done
kill -INT "$pid" 2>/dev/null
wait "$pid"
st=$?
rows=$(($(lines cut.csv) - 1))
if [ $st -eq 130 ] && [ "$rows" -lt 172 ]; then ok "SIGINT: exit 130 with $rows of 172 rows kept"
else bad "SIGINT stops the sweep" "exit $st, $rows rows: $(head -c 300 int.err)"; fi
if [ -f cut.csv ] && ! head -c "$(wc -c <cut.csv)" whole.csv | cmp -s - cut.csv; then
	bad "the interrupted file is a prefix of the whole one" "it is not"
else
	ok "the interrupted file is whole rows, a prefix of the uninterrupted one"
fi
bad_input "no overwrite without --resume" "--resume" -- sweep "$D/fast.cfg" "$@" -o cut.csv
"$TCPSIM" sweep "$D/fast.cfg" "$@" -o cut.csv -j 2 --resume 2>res.err
st=$?
if [ $st -ne 0 ]; then bad "--resume" "exit $st: $(head -c 300 res.err)"
else same "SIGINT then --resume == uninterrupted (every point once)" cut.csv whole.csv; fi
"$TCPSIM" sweep --columns point,rep cut.csv | grep -v '^#' | sort | uniq -d >dups
[ -s dups ] && bad "no duplicate rows" "$(head -3 dups)" || ok "no duplicate (point, rep)"
# a torn last line (a crash mid-write) is cut, the rest runs
head -c "$(($(wc -c <whole.csv) - 37))" whole.csv >torn.csv
cp whole.csv.cfg torn.csv.cfg
"$TCPSIM" sweep "$D/fast.cfg" "$@" -o torn.csv -j 2 --resume 2>torn.err
same "--resume after a torn last line" torn.csv whole.csv
grep -q "incomplete last line" torn.err && ok "the torn line is reported" || bad "torn line reported" "$(cat torn.err)"
# resuming as another sweep is refused and touches nothing
cp cut.csv before.csv
bad_input "--resume of another sweep" "not the sidecar of this sweep" -- \
	sweep "$D/fast.cfg" -s run.duration=400ms --vary link.mtu=1500:65536:1500 --vary offload.tso=on,off \
	--vary app.test=TCP_STREAM,TCP_SENDFILE -o cut.csv --resume
cmp -s cut.csv before.csv && ok "refused resume leaves the file alone" || bad "refused resume" "cut.csv changed"

# --- bad input --------------------------------------------------------------------
bad_input "unknown axis key" "did you mean" -- sweep "$D/fast.cfg" --vary link.mut=1500 -o x.csv
bad_input "axis value out of range" "link.mtu" -- sweep "$D/fast.cfg" --vary link.mtu=10,1500 -o x.csv
bad_input "range without step" "start:stop:step" -- sweep "$D/fast.cfg" --vary link.mtu=1500:9000 -o x.csv
bad_input "geometric factor" "factor" -- sweep "$D/fast.cfg" --vary tcp.sndbuf=64K:1M*0.5 -o x.csv
bad_input "bad shard" "--shard" -- sweep "$D/fast.cfg" --vary link.mtu=1500 --shard 4/3 -o x.csv
bad_input "no axis" "no --vary" -- sweep "$D/fast.cfg" -o x.csv
bad_input "no output" "-o" -- sweep "$D/fast.cfg" --vary link.mtu=1500
bad_input "a point fails validation" "sweep point 1" -- sweep "$D/fast.cfg" --vary app.send_cpu=0,7 -o x.csv
[ -e x.csv ] && bad "bad input writes nothing" "x.csv exists" || ok "bad input writes nothing"

# --- plot ---------------------------------------------------------------------------
if command -v gnuplot >/dev/null 2>&1; then
	TCPSIM="$TCPSIM" sh "$ROOT/tools/plot-sweep" j1.csv --x link.mtu --y throughput_mbps --by offload.tso \
		--where app.test=TCP_SENDFILE --logx --png plot.png --ascii >plot.txt 2>plot.err
	st=$?
	if [ $st -eq 0 ] && [ "$(head -c 4 plot.png | od -An -c | tr -d ' ')" = "211PNG" ]; then ok "plot-sweep writes a PNG"
	else bad "plot-sweep PNG" "exit $st: $(head -c 300 plot.err)"; fi
	grep -q 'offload.tso=off' plot.txt && grep -q 'link.mtu' plot.txt && ok "plot-sweep prints an ASCII chart" ||
		bad "plot-sweep ASCII" "$(head -c 300 plot.txt)"
	TCPSIM="$TCPSIM" sh "$ROOT/tools/plot-sweep" j1.csv --x link.mtu --y throughput_mbps --by offload.tso \
		--where app.test=TCP_SENDFILE >plotlin.txt 2>plot.err
	st=$?
	[ $st -eq 0 ] && grep -q 'offload.tso=off' plotlin.txt && ok "plot-sweep without --logx prints the chart" ||
		bad "plot-sweep without --logx" "exit $st: $(head -c 300 plot.err)"
	# an axis with units (64K ... 1M), with and without --logx
	"$TCPSIM" sweep "$D/fast.cfg" --vary tcp.sndbuf=64K:1M*2 --vary link.delay=1us,10us -o sb.csv 2>plot.err ||
		bad "sweep over tcp.sndbuf=64K:1M*2" "$(cat plot.err)"
	"$TCPSIM" sweep --columns tcp.sndbuf,link.delay,point --numeric tcp.sndbuf,link.delay,point sb.csv >sb.tsv 2>plot.err
	[ "$(sed -n '1p;3p' sb.tsv | tr '\t\n' ',;')" = "# tcp.sndbuf (bytes),link.delay (ns),point;65536,10000,1;" ] &&
		ok "sweep --columns --numeric: 64K is 65536 bytes, 10us 10000 ns, other columns as written" ||
		bad "sweep --columns --numeric" "$(head -3 sb.tsv) $(cat plot.err)"
	for lx in "" --logx; do
		TCPSIM="$TCPSIM" sh "$ROOT/tools/plot-sweep" sb.csv --x tcp.sndbuf --y throughput_mbps --by link.delay \
			$lx --png "sb$lx.png" --ascii >"sb$lx.txt" 2>plot.err
		st=$?
		size=$(wc -c <"sb$lx.png" 2>/dev/null || echo 0)
		if [ $st -eq 0 ] && [ "$(head -c 4 "sb$lx.png" | od -An -c | tr -d ' ')" = "211PNG" ] && [ "$size" -gt 10000 ]; then
			ok "plot-sweep ${lx:-without --logx}: x with units, a $size-byte PNG"
		else
			bad "plot-sweep ${lx:-without --logx} PNG" "exit $st, $size bytes: $(head -c 300 plot.err)"
		fi
		# the chart: x label with the unit, both legends, and the x axis out to
		# 1M = 1048576 bytes (its last tick label at least 1e+06)
		last=$(grep -B1 'tcp.sndbuf (bytes)' "sb$lx.txt" | head -1 | awk '{ print $NF }')
		if grep -q 'tcp.sndbuf (bytes)' "sb$lx.txt" && grep -q 'link.delay=1us' "sb$lx.txt" &&
			grep -q 'link.delay=10us' "sb$lx.txt" && awk -v t="$last" 'BEGIN { exit !(t + 0 >= 1e6) }'; then
			ok "plot-sweep ${lx:-without --logx}: ASCII chart with x label, legend, x axis to $last"
		else
			bad "plot-sweep ${lx:-without --logx} ASCII" "last x tick '$last': $(head -c 600 "sb$lx.txt")"
		fi
	done
	grep -q '131072' sb--logx.txt && ok "--logx: ticks at the powers of two of the axis" ||
		bad "--logx ticks" "$(tail -6 sb--logx.txt)"
	grep -q '131072' sb.txt && bad "linear x axis" "ticks at powers of two: $(tail -6 sb.txt)" ||
		ok "without --logx: a linear x axis"
	TCPSIM="$TCPSIM" sh "$ROOT/tools/plot-sweep" sb.csv --x tcp.sndbuf --y throughput_mbps \
		--where link.delay=10us >sbw.txt 2>plot.err
	# one line: one legend entry (before, each x value was a line of its own)
	[ $? -eq 0 ] && [ "$(grep -c 'throughput_mbps \*\*\*A\*\*\*' sbw.txt)" -eq 1 ] && ! grep -q 'B' sbw.txt &&
		ok "plot-sweep without --by: one line" || bad "plot-sweep without --by" "$(head -c 900 sbw.txt) $(cat plot.err)"
	TCPSIM="$TCPSIM" sh "$ROOT/tools/plot-sweep" j1.csv --x app.test --y throughput_mbps >/dev/null 2>plot.err
	[ $? -eq 2 ] && grep -q "not a number" plot.err && ok "plot-sweep: non-numeric x refused" ||
		bad "plot-sweep non-numeric x" "$(cat plot.err)"
else
	bad "gnuplot" "not installed (make deps)"
fi

echo "sweep.test.sh: $n checks, $fails failed"
[ "$fails" -eq 0 ]
