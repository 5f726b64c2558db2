#!/bin/sh
# outfile.test.sh ASAN_DIR: -o never harms the node it names (model/base/outfile.h).
#
# A device (/dev/null, /dev/stdout, a node made here with mknod as root) and
# a FIFO are written into, never replaced; a symlink is followed and stays a
# link; an output that is one of the inputs is refused with exit 2 and the
# input left as it was; an output that cannot be written exits 3 with one
# line, and calibrate/validate find that out before they fit or predict.
# One line per check; exit status 1 if any check failed.
#
# The machine's own /dev/null and /dev/stdout are tried only after the same
# checks passed on a node made here (so are /dev/full's), and a node a
# broken binary replaced anyway is put back.
set -u
ASAN_DIR=${1:?usage: outfile.test.sh ASAN_DIR}
cd "$(dirname "$0")/.." || exit 1
TCPSIM="$ASAN_DIR/tcpsim"
FILTER=${RUNS_FILTER:-tools/bin/runs-filter}
CFG=tests/data/cli/good.cfg
RUNS=validation/myri10ge-sendfile.csv
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tcpsim-outfile.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
. tests/lib.sh
skip() { echo "skip - $1"; }

[ -x "$TCPSIM" ] || { echo "FAIL - no binary $TCPSIM"; exit 1; }
root=0
[ "$(id -u)" -eq 0 ] && root=1

"$TCPSIM" run "$CFG" >"$TMP/want" 2>"$TMP/err" || { echo "FAIL - $CFG does not run: $(cat "$TMP/err")"; exit 1; }

# expect NAME STATUS NEEDLE -- ARGS...: exit STATUS, one stderr line with NEEDLE, empty stdout
expect() {
	name=$1 want=$2 needle=$3
	shift 4
	"$@" >"$TMP/out" 2>"$TMP/err"
	st=$?
	if [ "$st" -ne "$want" ]; then bad "$name" "exit $st, want $want (stderr: $(head -c 300 "$TMP/err"))"
	elif [ -s "$TMP/out" ]; then bad "$name" "stdout not empty: $(head -c 200 "$TMP/out")"
	elif [ "$(wc -l <"$TMP/err")" -ne 1 ]; then bad "$name" "stderr has $(wc -l <"$TMP/err") lines: $(head -c 300 "$TMP/err")"
	elif ! grep -qF -- "$needle" "$TMP/err"; then bad "$name" "stderr lacks '$needle': $(cat "$TMP/err")"
	else ok "$name: $(cat "$TMP/err")"; fi
}

# --- a character device: written into, left a device ----------------------------
own_dev_ok=0
if [ $root -eq 1 ]; then
	if mknod "$TMP/null" c 1 3 2>"$TMP/err"; then
		"$TCPSIM" run "$CFG" -o "$TMP/null" >"$TMP/out" 2>"$TMP/err"
		st=$?
		if [ $st -eq 0 ] && test -c "$TMP/null" && [ ! -s "$TMP/out" ] && [ -z "$(ls "$TMP" | grep '\.tmp\.')" ]; then
			ok "-o NODE (mknod c 1 3, as root): exit 0, still a character device"
			own_dev_ok=1
		else
			bad "-o NODE (mknod c 1 3, as root)" "exit $st; $(ls -l "$TMP/null"); $(head -c 200 "$TMP/err")"
		fi
	else
		skip "mknod refused here ($(cat "$TMP/err")): no device node of our own"
	fi
else
	skip "not root: no mknod device node of our own (the /dev/null case below runs anyway)"
	own_dev_ok=1   # /dev is not ours to replace, so nothing is at risk
fi

if [ $own_dev_ok -eq 1 ]; then
	"$TCPSIM" run "$CFG" -o /dev/null >"$TMP/out" 2>"$TMP/err"
	st=$?
	if ! test -c /dev/null; then
		bad "-o /dev/null" "/dev/null is no longer a character device: $(ls -l /dev/null)"
		[ $root -eq 1 ] && rm -f /dev/null && mknod -m 666 /dev/null c 1 3
	elif [ $st -ne 0 ] || [ -s "$TMP/out" ]; then bad "-o /dev/null" "exit $st: $(head -c 300 "$TMP/err")"
	else ok "-o /dev/null: exit 0, /dev/null still a character device"; fi

	"$TCPSIM" run "$CFG" -o /dev/stdout >"$TMP/out" 2>"$TMP/err"
	st=$?
	if [ $st -ne 0 ]; then bad "-o /dev/stdout" "exit $st: $(head -c 300 "$TMP/err")"
	elif ! cmp -s "$TMP/out" "$TMP/want"; then bad "-o /dev/stdout" "stdout is not the report"
	elif ! test -L /dev/stdout && ! test -c /dev/stdout; then bad "-o /dev/stdout" "/dev/stdout was replaced: $(ls -l /dev/stdout)"
	else ok "-o /dev/stdout: the report on stdout (a file here), /dev/stdout left in place"; fi

	# appended to, as a shell's >> would: the report after what stdout already had
	echo "before" >"$TMP/appended"
	"$TCPSIM" run "$CFG" -o /dev/stdout >>"$TMP/appended" 2>"$TMP/err"
	{ echo "before"; cat "$TMP/want"; } >"$TMP/both"
	cmp -s "$TMP/appended" "$TMP/both" && ok "-o /dev/stdout >>FILE appends (the descriptor is written, not the file replaced)" \
		|| bad "-o /dev/stdout >>FILE" "$(head -c 200 "$TMP/appended")"
else
	skip "-o /dev/null and /dev/stdout: not tried, the same binary replaced a node of our own"
fi

"$TCPSIM" run "$CFG" -o - >"$TMP/out" 2>"$TMP/err" && cmp -s "$TMP/out" "$TMP/want" \
	&& ok "-o -: the report on stdout" || bad "-o -" "$(head -c 300 "$TMP/err")"

# --- a symlink: its target written, the link kept ------------------------------
mkdir "$TMP/d"
echo old >"$TMP/d/target.txt"
ln -s d/target.txt "$TMP/link"
"$TCPSIM" run "$CFG" -o "$TMP/link" >"$TMP/out" 2>"$TMP/err"
st=$?
if [ $st -ne 0 ]; then bad "-o LINK" "exit $st: $(head -c 300 "$TMP/err")"
elif ! test -L "$TMP/link" || [ "$(readlink "$TMP/link")" != d/target.txt ]; then bad "-o LINK" "the link was replaced: $(ls -l "$TMP/link")"
elif ! cmp -s "$TMP/d/target.txt" "$TMP/want"; then bad "-o LINK" "the target does not hold the report"
elif ls "$TMP" "$TMP/d" | grep -q '\.tmp\.'; then bad "-o LINK" "temporary left: $(ls "$TMP" "$TMP/d")"
else ok "-o LINK (relative): the target replaced whole, the link still a link"; fi

ln -s "$TMP/d/new.txt" "$TMP/dangling"
"$TCPSIM" run "$CFG" -o "$TMP/dangling" >/dev/null 2>"$TMP/err" && test -L "$TMP/dangling" && cmp -s "$TMP/d/new.txt" "$TMP/want" \
	&& ok "-o DANGLING-LINK: its target created, the link kept" || bad "-o DANGLING-LINK" "$(ls -l "$TMP/dangling" "$TMP/d"; head -c 200 "$TMP/err")"

# --- a FIFO: the report delivered to a reader ----------------------------------
if mkfifo "$TMP/fifo" 2>/dev/null; then
	timeout 30 cat "$TMP/fifo" >"$TMP/got" &
	reader=$!
	timeout 30 "$TCPSIM" run "$CFG" -o "$TMP/fifo" >"$TMP/out" 2>"$TMP/err"
	st=$?
	if [ $st -ne 0 ]; then
		kill $reader 2>/dev/null
		wait $reader 2>/dev/null
		bad "-o FIFO" "exit $st: $(head -c 300 "$TMP/err")"
	else
		wait $reader
		if ! test -p "$TMP/fifo"; then bad "-o FIFO" "the FIFO was replaced: $(ls -l "$TMP/fifo")"
		elif ! cmp -s "$TMP/got" "$TMP/want"; then bad "-o FIFO" "the reader got $(wc -c <"$TMP/got") bytes, not the report"
		else ok "-o FIFO: a reader (cat) got the whole report, the FIFO still a FIFO"; fi
	fi
else
	skip "mkfifo fails here"
fi

# --- permission bits of a replaced file are kept ---------------------------------
echo old >"$TMP/mode.txt"
chmod 600 "$TMP/mode.txt"
"$TCPSIM" run "$CFG" -o "$TMP/mode.txt" >/dev/null 2>&1
m=$(stat -c %a "$TMP/mode.txt")
[ "$m" = 600 ] && cmp -s "$TMP/mode.txt" "$TMP/want" && ok "-o FILE (mode 600): replaced, mode kept" || bad "-o FILE mode" "mode $m"

# --- an output that is an input: refused, the input unchanged -----------------------
cp "$CFG" "$TMP/x.cfg"
cp "$CFG" "$TMP/y.cfg"
ln -s x.cfg "$TMP/x-link.cfg"
ln "$TMP/x.cfg" "$TMP/x-hard.cfg"
expect "run X.cfg -o X.cfg" 2 "is the input '$TMP/x.cfg'" -- "$TCPSIM" run "$TMP/x.cfg" -o "$TMP/x.cfg"
cmp -s "$TMP/x.cfg" "$CFG" && ok "... X.cfg unchanged" || bad "run X.cfg -o X.cfg" "X.cfg was changed"
expect "run X.cfg -o LINK-TO-X" 2 "is the input" -- "$TCPSIM" run "$TMP/x.cfg" -o "$TMP/x-link.cfg"
expect "run X.cfg -o HARD-LINK-OF-X" 2 "is the input" -- "$TCPSIM" run "$TMP/x-hard.cfg" -o "$TMP/x.cfg"
expect "bare X.cfg -o X.cfg" 2 "is the input" -- "$TCPSIM" "$TMP/x.cfg" -o "$TMP/x.cfg"
expect "compare X.cfg Y.cfg -o Y.cfg" 2 "is the input '$TMP/y.cfg'" -- "$TCPSIM" compare "$TMP/x.cfg" "$TMP/y.cfg" -o "$TMP/y.cfg"
cmp -s "$TMP/x.cfg" "$CFG" && cmp -s "$TMP/y.cfg" "$CFG" && ok "... inputs unchanged" || bad "output = input" "an input was changed"
cp "$RUNS" "$TMP/runs.csv"
expect "calibrate RUNS.csv -o RUNS.csv" 2 "is the input" -- "$TCPSIM" calibrate "$TMP/runs.csv" --fit cost.tx_frame -o "$TMP/runs.csv"
expect "validate RUNS.csv -o RUNS.csv" 2 "is the input" -- "$TCPSIM" validate "$TMP/runs.csv" -o "$TMP/runs.csv"
if [ -x "$FILTER" ]; then
	expect "runs-filter IN -o IN" 2 "is the input" -- "$FILTER" "$TMP/runs.csv" -o "$TMP/runs.csv"
fi
cmp -s "$TMP/runs.csv" "$RUNS" && ok "... RUNS.csv unchanged" || bad "output = input" "RUNS.csv was changed"

# --- an output that cannot be written: exit 3, one line ---------------------------
expect "-o into a missing directory" 3 "cannot write '$TMP/no/x.txt'" -- "$TCPSIM" run "$CFG" -o "$TMP/no/x.txt"
expect "-o a directory" 3 "Is a directory" -- "$TCPSIM" run "$CFG" -o "$TMP/d"
if [ $own_dev_ok -eq 1 ]; then
	expect "-o /dev/full" 3 "cannot write '/dev/full'" -- "$TCPSIM" run "$CFG" -o /dev/full
	expect "compare -o /dev/full" 3 "cannot write '/dev/full'" -- "$TCPSIM" compare "$CFG" "$CFG" -o /dev/full
	if ! test -c /dev/full; then
		bad "-o /dev/full" "/dev/full is no longer a character device"
		[ $root -eq 1 ] && rm -f /dev/full && mknod -m 666 /dev/full c 1 7
	fi
fi
if [ -x "$FILTER" ]; then
	expect "runs-filter -o into a missing directory" 3 "cannot write recorded runs" -- "$FILTER" "$RUNS" -o "$TMP/no/x.csv"
fi
"$TCPSIM" run "$CFG" >/dev/full 2>"$TMP/err"
st=$?
[ $st -eq 3 ] && grep -q "cannot write standard output" "$TMP/err" && ok "stdout on /dev/full: exit 3" || bad "stdout full" "exit $st: $(cat "$TMP/err")"

# --- calibrate / validate: an unwritable -o fails before any simulation ------------
# -v prints a line per iteration: one stderr line means no fit was started.
expect "calibrate -o into a missing directory" 3 "cannot write profile '$TMP/no/p.cfg'" -- \
	"$TCPSIM" calibrate "$RUNS" --fit cost.tx_frame -v -o "$TMP/no/p.cfg"
expect "validate -o into a missing directory" 3 "cannot write '$TMP/no/v.txt'" -- \
	"$TCPSIM" validate "$RUNS" -o "$TMP/no/v.txt"
if [ $root -eq 0 ]; then
	mkdir "$TMP/ro" && chmod 555 "$TMP/ro"
	expect "calibrate -o into a read-only directory" 3 "cannot write profile '$TMP/ro/p.cfg'" -- \
		"$TCPSIM" calibrate "$RUNS" --fit cost.tx_frame -v -o "$TMP/ro/p.cfg"
	[ -z "$(ls "$TMP/ro")" ] && ok "... nothing left in it" || bad "read-only dir" "$(ls "$TMP/ro")"
	chmod 755 "$TMP/ro"
else
	skip "calibrate -o into a read-only directory: root writes there anyway"
fi

# --- sweep --merge: an input as the output refused, a link followed ---------------
SW=tests/data/sweep/fast.cfg
if "$TCPSIM" sweep "$SW" --vary link.mtu=1500,9000 --shard 1/2 -o "$TMP/s1.csv" 2>"$TMP/err" &&
	"$TCPSIM" sweep "$SW" --vary link.mtu=1500,9000 --shard 2/2 -o "$TMP/s2.csv" 2>"$TMP/err"; then
	cp "$TMP/s1.csv" "$TMP/s1.keep"
	cp "$TMP/s1.csv.cfg" "$TMP/s1.cfg.keep"
	expect "sweep --merge -o SHARD" 2 "is the input '$TMP/s1.csv'" -- \
		"$TCPSIM" sweep --merge -o "$TMP/s1.csv" "$TMP/s1.csv" "$TMP/s2.csv"
	cmp -s "$TMP/s1.csv" "$TMP/s1.keep" && cmp -s "$TMP/s1.csv.cfg" "$TMP/s1.cfg.keep" \
		&& ok "... the shard and its sidecar unchanged" || bad "merge -o SHARD" "the shard was changed"
	ln -s m.csv "$TMP/mlink.csv"
	"$TCPSIM" sweep --merge -o "$TMP/mlink.csv" "$TMP/s1.csv" "$TMP/s2.csv" 2>"$TMP/err"
	st=$?
	if [ $st -eq 0 ] && test -L "$TMP/mlink.csv" && [ "$(wc -l <"$TMP/m.csv")" -eq 3 ]; then
		ok "sweep --merge -o LINK: the target holds the merge, the link kept"
	else bad "sweep --merge -o LINK" "exit $st: $(ls -l "$TMP/mlink.csv"; head -c 200 "$TMP/err")"; fi
	expect "sweep --merge -o into a missing directory" 3 "cannot write '$TMP/no/m.csv'" -- \
		"$TCPSIM" sweep --merge -o "$TMP/no/m.csv" "$TMP/s1.csv" "$TMP/s2.csv"
else
	bad "sweep shards" "$(head -c 300 "$TMP/err")"
fi

# sweep -o BASE: its sidecar BASE.cfg would be the scenario being swept
cp "$CFG" "$TMP/base.cfg"
expect "sweep BASE.cfg -o BASE (sidecar = the scenario)" 2 "is the input '$TMP/base.cfg'" -- \
	"$TCPSIM" sweep "$TMP/base.cfg" --vary link.mtu=1500 -o "$TMP/base"
cmp -s "$TMP/base.cfg" "$CFG" && [ ! -e "$TMP/base" ] && ok "... the scenario unchanged, no CSV" \
	|| bad "sweep -o BASE" "the scenario was changed or a CSV written"

# --- tools/bin/live-row: its -o LINK followed -----------------------------------
LIVE_ROW=${LIVE_ROW:-tools/bin/live-row}
L=tests/data/live
if [ -x "$LIVE_ROW" ]; then
	ln -s reps.csv "$TMP/reps-link.csv"
	"$LIVE_ROW" --json $L/iperf3-lo.json --before $L/lo-before --after $L/lo-after --scenario scenarios/live/x.cfg \
		--cc cubic --other-max 50 --point p1 -o "$TMP/reps-link.csv" >"$TMP/out" 2>"$TMP/err"
	st=$?
	if [ $st -eq 0 ] && test -L "$TMP/reps-link.csv" && [ "$(wc -l <"$TMP/reps.csv")" -eq 2 ]; then
		ok "live-row -o LINK: the row in the target, the link kept"
	else bad "live-row -o LINK" "exit $st: $(ls -l "$TMP/reps-link.csv"; head -c 200 "$TMP/err")"; fi
	cp $L/iperf3-lo.json "$TMP/ip.json"
	expect "live-row -o JSON (its input)" 2 "is the input" -- "$LIVE_ROW" --json "$TMP/ip.json" --before $L/lo-before \
		--after $L/lo-after --scenario scenarios/live/x.cfg --cc cubic --point p1 -o "$TMP/ip.json"
	cmp -s "$TMP/ip.json" $L/iperf3-lo.json && ok "... the JSON unchanged" || bad "live-row -o JSON" "the JSON was changed"
fi

echo "outfile: $((n - fails)) passed, $fails failed"
[ $fails -eq 0 ]
