#!/bin/sh
# install.test.sh ASAN_DIR: make install, and paths that do not depend on
# the current directory.
#
# `make install PREFIX=TMP` (and a DESTDIR stage), then from another
# directory the installed tcpsim runs a shipped scenario by its relative
# name, validates and calibrates (one parameter, two runs) a shipped
# recorded-run file, and the installed scripts find the installed tcpsim.
# The checkout's binary, from another directory, validates the checkout's
# recorded runs (their scenario paths resolve beside the CSV, not in the
# current directory).  Last, `make all` rebuilds ./tcpsim for the default
# PREFIX again.  One line per check; exit status 1 if any check failed.
set -u
ASAN_DIR=${1:?usage: install.test.sh ASAN_DIR}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tcpsim-install.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
. "$ROOT/tests/lib.sh"

# check NAME CMD...: exit 0 expected; output in $TMP/out, $TMP/err
check() {
	name=$1; shift
	if "$@" >"$TMP/out" 2>"$TMP/err"; then ok "$name"
	else bad "$name" "exit $? ($(head -c 400 "$TMP/err"))"; fi
}

if [ ! -w "$ROOT" ] || { [ -e "$ROOT/build" ] && [ ! -w "$ROOT/build" ]; }; then
	echo "install.test.sh: $ROOT is not writable by $(id -un): make install not tried (skipped)"
	exit 0
fi
P="$TMP/prefix"
check "make install PREFIX" make -C "$ROOT" --no-print-directory install PREFIX="$P"
for f in bin/tcpsim libexec/tcpsim/runs-filter libexec/tcpsim/plot-sweep libexec/tcpsim/sweep-parallel \
	 share/tcpsim/scenarios/loopback-64k.cfg share/tcpsim/scenarios/profiles/atom-lkp.cfg \
	 share/tcpsim/validation/lkp-loopback-atom.csv share/doc/tcpsim/tcpsim.txt share/doc/tcpsim/README.md \
	 share/doc/tcpsim/docs/architecture.md share/doc/tcpsim/docs/loopback-mtu-tso.png; do
	if [ -e "$P/$f" ]; then ok "installed $f"; else bad "installed $f" "missing"; fi
done
grep -q '^\[link\]' "$P/share/doc/tcpsim/tcpsim.txt" 2>/dev/null && grep -q 'usage: tcpsim sweep' "$P/share/doc/tcpsim/tcpsim.txt" &&
	ok "help text has the commands and --help-config" || bad "help text" "$(head -c 200 "$P/share/doc/tcpsim/tcpsim.txt")"

mkdir "$TMP/elsewhere" && cd "$TMP/elsewhere" || exit 1
check "installed tcpsim runs scenarios/loopback-64k.cfg from elsewhere" \
	"$P/bin/tcpsim" run scenarios/loopback-64k.cfg -s run.duration=500ms --format csv
[ "$(wc -l <"$TMP/out")" -eq 2 ] && ok "  ... a header and a row" || bad "  ... a header and a row" "$(cat "$TMP/out")"
check "installed tcpsim validates a shipped recorded-run file" \
	"$P/bin/tcpsim" validate "$P/share/tcpsim/validation/lkp-loopback-atom.csv"
check "installed tcpsim calibrates it (one parameter)" \
	"$P/bin/tcpsim" calibrate "$P/share/tcpsim/validation/lkp-loopback-atom.csv" --fit cost.copy_byte \
	--weight throughput_mbps=1,others=0 -o "$TMP/elsewhere/fitted.cfg"
grep -q '^copy_byte' "$TMP/elsewhere/fitted.cfg" 2>/dev/null && ok "  ... the profile sets cost.copy_byte" ||
	bad "  ... the profile sets cost.copy_byte" "$(head -c 300 "$TMP/elsewhere/fitted.cfg" 2>&1)"
check "  ... and the fitted profile is read back" \
	"$P/bin/tcpsim" validate "$P/share/tcpsim/validation/lkp-loopback-atom.csv" --profile fitted.cfg
check "an own CSV naming a shipped scenario finds it in the data directory" sh -c '
	sed -n 1,2p "$1/share/tcpsim/validation/lkp-loopback-atom.csv" >own.csv && "$1/bin/tcpsim" validate own.csv' sh "$P"
check "installed sweep-merge finds the installed tcpsim" env PATH=/usr/bin:/bin sh -c '
	"$1/bin/tcpsim" sweep scenarios/loopback-64k.cfg -s run.duration=500ms --vary link.mtu=1500,9000 \
		--shard 1/2 -o s1.csv && "$1/bin/tcpsim" sweep scenarios/loopback-64k.cfg -s run.duration=500ms \
		--vary link.mtu=1500,9000 --shard 2/2 -o s2.csv && "$1/libexec/tcpsim/sweep-merge" -o all.csv s1.csv s2.csv &&
	[ "$(wc -l <all.csv)" -eq 3 ]' sh "$P"

# the checkout's own binary, elsewhere: scenarios beside the CSV (or above it)
check "checkout tcpsim validates validation/*.csv from another directory" \
	"$ASAN_DIR/tcpsim" validate "$ROOT/validation/lkp-loopback-atom.csv"
mkdir -p "$TMP/mine/runs/cfg" && cp "$ROOT/scenarios/loopback-64k.cfg" "$TMP/mine/runs/cfg/lo.cfg" &&
	sed -i 's|^include = .*|include = '"$ROOT"'/scenarios/profiles/atom-lkp.cfg|' "$TMP/mine/runs/cfg/lo.cfg"
printf 'id,source,scenario,overrides,throughput_mbps\nr1,test,cfg/lo.cfg,run.duration=500ms,1800\n' >"$TMP/mine/runs/r.csv"
check "a scenario path relative to its CSV's directory" "$ASAN_DIR/tcpsim" validate "$TMP/mine/runs/r.csv"
printf 'id,source,scenario,overrides,throughput_mbps\nr1,test,nowhere.cfg,,1800\n' >"$TMP/mine/missing.csv"
"$ASAN_DIR/tcpsim" validate "$TMP/mine/missing.csv" >"$TMP/out" 2>"$TMP/err"
st=$?
if [ $st -eq 2 ] && grep -q "missing.csv:2: run 'r1': scenario: cannot find 'nowhere.cfg' beside" "$TMP/err"; then
	ok "a missing scenario names the CSV, the run and where it looked"
else bad "a missing scenario" "exit $st: $(cat "$TMP/err")"; fi

# DESTDIR stages under another root; the binary keeps the final directory
S="$TMP/stage"
check "make install DESTDIR PREFIX=/opt/tcpsim-test" make -C "$ROOT" --no-print-directory install DESTDIR="$S" PREFIX=/opt/tcpsim-test
[ -x "$S/opt/tcpsim-test/bin/tcpsim" ] && [ -f "$S/opt/tcpsim-test/share/tcpsim/scenarios/loopback-16k.cfg" ] &&
	[ ! -e /opt/tcpsim-test ] && ok "  ... staged under DESTDIR only" || bad "  ... staged under DESTDIR only" "$(find "$S" | head -5)"
grep -q /opt/tcpsim-test/share/tcpsim "$S/opt/tcpsim-test/bin/tcpsim" && ok "  ... and looks in /opt/tcpsim-test/share/tcpsim" ||
	bad "  ... compiled-in data directory" "not /opt/tcpsim-test/share/tcpsim"

cd "$ROOT" && make --no-print-directory all >/dev/null 2>"$TMP/err" || bad "make all again" "$(cat "$TMP/err")"
echo "install.test.sh: $n checks, $fails failed"
[ $fails -eq 0 ]
