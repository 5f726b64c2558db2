#!/bin/sh
# layers.test.sh [ASAN_DIR]: the layering check (tools/check-layers.sh)
# passes on the tree and fails, naming file, line and rule, on a copy with
# a wrong include planted: the kernel including TCP, the engine including
# the top, a tools-only reader including the simulator.
set -u
cd "$(dirname "$0")/.." || exit 1
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tcpsim-layers.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
. tests/lib.sh

if out=$(sh tools/check-layers.sh 2>&1); then ok "the tree keeps its layers"
else bad "the tree keeps its layers" "$out"; fi

# plant FILE HEADER WANT: a copy with #include "HEADER" added to FILE fails
# and prints WANT
plant() {
	rm -rf "$TMP/t" && mkdir -p "$TMP/t/tools" && cp -R model "$TMP/t/" && cp -R tools/lib "$TMP/t/tools/" || exit 1
	printf '#include "%s"\n' "$2" >>"$TMP/t/$1"
	if out=$(sh tools/check-layers.sh "$TMP/t" 2>&1); then
		bad "$1 including $2 is refused" "exit 0: $out"
	elif printf '%s\n' "$out" | grep -qF "$3"; then
		ok "$1 including $2 is refused"
	else
		bad "$1 including $2 is refused" "wanted '$3' in: $out"
	fi
}
plant model/kernel/cpu.c tcp.h \
	"check-layers: model/kernel/cpu.c:$(($(wc -l <model/kernel/cpu.c) + 1)): includes \"tcp.h\" of layer 'net'; layer 'kernel' may include only: kernel engine scenario base"
plant model/engine/sim.h tcpsim.h "model/engine/sim.h:"
plant model/net/tcp.c app.h "includes \"app.h\" of layer 'app'; layer 'net' may include only"
plant model/config/config.c sim.h "includes \"sim.h\" of layer 'engine'; layer 'config'"
plant tools/lib/procstat.c runs.h "includes \"runs.h\" of layer 'study'; layer 'lib'"

# a folder that is no layer is refused too
rm -rf "$TMP/t" && mkdir -p "$TMP/t/model/misc" && cp -R model "$TMP/t/" && echo 'int x;' >"$TMP/t/model/misc/x.c"
if out=$(sh tools/check-layers.sh "$TMP/t" 2>&1); then bad "a folder that is no layer is refused" "exit 0"
elif printf '%s\n' "$out" | grep -qF "model/misc/x.c: folder 'misc' is not a layer"; then ok "a folder that is no layer is refused"
else bad "a folder that is no layer is refused" "$out"; fi

[ $fails -eq 0 ] || { echo "$fails of $n failed"; exit 1; }
