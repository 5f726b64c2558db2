#!/bin/sh
# readers.test.sh ASAN_DIR: inputs that are not what a reader expects, and
# sizes a sweep cannot have, through the real tcpsim binary.
#
# Each bad input must exit 2 within seconds with one line on stderr naming
# the file and line (or the option); a UTF-8 byte-order mark in a recorded-
# runs CSV is accepted.  Progress lines appear on a terminal only (script(1)
# gives the command a pseudo-terminal).  One line per check; exit status 1
# if any check failed.
set -u
ASAN_DIR=${1:?usage: readers.test.sh ASAN_DIR}
TCPSIM="$ASAN_DIR/tcpsim"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tcpsim-readers.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
. "$ROOT/tests/lib.sh"

# refused NAME NEEDLE -- ARGS...: exit 2 within 60 s, one stderr line with NEEDLE.
refused() {
	name=$1 needle=$2; shift 3
	timeout 60 "$TCPSIM" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	st=$?
	if [ $st -eq 124 ]; then bad "$name" "still running after 60 s"; return; fi
	if [ $st -ne 2 ]; then bad "$name" "exit $st, want 2: $(head -c 300 "$TMP/err")"; return; fi
	if [ "$(wc -l <"$TMP/err")" -ne 1 ]; then bad "$name" "want one line: $(head -c 300 "$TMP/err")"; return; fi
	grep -qF -- "$needle" "$TMP/err" || { bad "$name" "no '$needle' in: $(cat "$TMP/err")"; return; }
	ok "$name: $(cat "$TMP/err")"
}

cfg="$ROOT/scenarios/loopback-64k.cfg"

# --- .cfg files ----------------------------------------------------------
printf '[run]\n# note\nduration = 1s\0junk\n[link]\nmtuu = 1\n' >"$TMP/nul.cfg"
refused "NUL byte in a .cfg: its own line" "nul.cfg:3: NUL byte" -- run "$TMP/nul.cfg"
refused "tcpsim /dev/zero" "/dev/zero:1: NUL byte" -- /dev/zero
printf '[run]\ninclude = /dev/zero\n' >"$TMP/inc.cfg"
refused "include = /dev/zero" "/dev/zero:1: NUL byte" -- run "$TMP/inc.cfg"
refused "host.kernel=4294967295.0" "'4294967295.0' is not a kernel version" -- run "$cfg" -s host.kernel=4294967295.0
refused "host.kernel=3.1000" "MAJOR 2..99, MINOR and PATCH 0..999" -- run "$cfg" -s host.kernel=3.1000
if printf '[run]\nduration = 500ms\n' | timeout 60 "$TCPSIM" run /dev/stdin --format csv >"$TMP/out" 2>"$TMP/err" &&
	[ "$(wc -l <"$TMP/out")" -eq 2 ]; then ok "a scenario piped through /dev/stdin still reads"
else bad "a scenario through /dev/stdin" "$(cat "$TMP/err")"; fi

# --- recorded-runs CSV ---------------------------------------------------
cd "$ROOT" || exit 1
{ printf '\357\273\277'; cat validation/lkp-loopback-atom.csv; } >"$TMP/bom.csv"
if timeout 120 "$TCPSIM" validate "$TMP/bom.csv" >"$TMP/out" 2>"$TMP/err"; then ok "a BOM in a recorded-runs CSV is skipped"
else bad "a BOM in a recorded-runs CSV" "$(cat "$TMP/err")"; fi
printf 'id,source,scenario,overrides,throughput_mbps\nr1,s,scenarios/loopback-64k.cfg,,18\00005\n' >"$TMP/nul.csv"
refused "NUL in a numeric CSV cell" "nul.csv:2: NUL byte" -- validate "$TMP/nul.csv"
refused "validate /dev/zero" "/dev/zero:1: NUL byte" -- validate /dev/zero

# --- a sweep's sidecar: numbers read whole ---------------------------------
for k in 1 2; do
	"$TCPSIM" sweep "$cfg" -s run.duration=300ms --vary link.mtu=1500,9000 --shard $k/2 -o "$TMP/s$k.csv" 2>/dev/null ||
		bad "shard $k/2" "sweep failed"
	sed -i 's/^# sweep.reps = 1$/# sweep.reps = 1x/' "$TMP/s$k.csv.cfg"
done
refused "sweep.reps = 1x in a sidecar" "s1.csv.cfg: bad sweep.reps" -- sweep --merge -o "$TMP/m.csv" "$TMP/s1.csv" "$TMP/s2.csv"

# --- sweep sizes and progress ----------------------------------------------
refused "a sweep of 4e9 points is refused at once" "points x 1 reps = 4.19e+09 runs, more than the 100000000" -- \
	sweep "$cfg" --vary link.mtu=1500:65535:1 --vary tcp.sndbuf=64K:64M:1K -o "$TMP/huge.csv"
[ ! -e "$TMP/huge.csv" ] && ok "  ... and writes nothing" || bad "  ... and writes nothing" "huge.csv exists"
: >"$TMP/big.csv"
refused "--resume of a big sharded sweep: the shard's size, no allocation" "in shard 2/4" -- \
	sweep "$cfg" --vary link.mtu=1500:65535:1 --vary tcp.sndbuf=64K:64M:1K --shard 2/4 --resume -o "$TMP/big.csv"
if command -v script >/dev/null 2>&1; then
	# 64036 x 4 points checked, then refused (the output exists): the pre-check shows progress
	script -qec "'$TCPSIM' sweep '$cfg' --vary link.mtu=1500:65535:1 --vary tcp.sndbuf=64K:256K:64K -o '$TMP/big.csv'" \
		/dev/null >"$TMP/tty" 2>&1 </dev/null
	grep -q "sweep: checking point [0-9]*/256144" "$TMP/tty" && ok "the sweep pre-check shows progress on a terminal" ||
		bad "sweep pre-check progress" "$(tr '\r' '\n' <"$TMP/tty" | tail -3)"
	"$TCPSIM" sweep "$cfg" --vary link.mtu=1500:65535:1 --vary tcp.sndbuf=64K:256K:64K -o "$TMP/big.csv" 2>"$TMP/err"
	grep -q "checking point" "$TMP/err" && bad "no progress off a terminal" "$(head -c 200 "$TMP/err")" ||
		ok "  ... and none when stderr is not a terminal"
	script -qec "'$TCPSIM' validate validation/lkp-loopback-atom.csv -j1 -o '$TMP/v.txt'" /dev/null >"$TMP/tty" 2>&1 </dev/null
	grep -q "[12]/2 runs simulated" "$TMP/tty" && ok "validate shows progress on a terminal" ||
		bad "validate progress" "$(tr '\r' '\n' <"$TMP/tty" | tail -3)"
	"$TCPSIM" validate validation/lkp-loopback-atom.csv >"$TMP/out" 2>"$TMP/err"
	[ ! -s "$TMP/err" ] && ok "  ... and none when stderr is not a terminal" || bad "validate off a terminal" "$(cat "$TMP/err")"
else
	echo "readers.test.sh: no script(1): progress on a terminal not checked"
fi

echo "readers.test.sh: $n checks, $fails failed"
[ $fails -eq 0 ]
