#!/bin/sh
# costfit.test.sh ASAN_DIR: tools/bin/costfit recovers the cycles per event
# a set of runs was made with, honours --scenario/--where/--unless and the
# @condition of a term, and refuses bad input with a message naming it.
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
F=tools/bin/costfit
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
[ -x "$F" ] || { echo "costfit.test.sh: $F not built"; echo "costfit: 0 passed, 1 failed"; exit 1; }

# Runs made by a known rule on a 2 GHz CPU: 3000 cycles per write, 500 per
# ACK, and 1000 per segment only where offload.tso=off; busy% = cycles/2e7.
# One row of another scenario and one with app.recv_cpu=0 break the rule
# and must be left out.
awk 'BEGIN {
	print "\"id\",\"source\",\"scenario\",\"overrides\",\"writes_per_s\",\"acks_per_s\",\"segs_per_s\",\"snd_cpu_busy_pct\""
	for (i = 1; i <= 12; i++) {
		w = 10000 * i; a = 7000 * ((i * 7) % 11 + 1); s = 3000 * ((i * 5) % 7 + 1)
		tso = (i % 2) ? "off" : "on"
		cyc = 3000 * w + 500 * a + (tso == "off" ? 1000 * s : 0)
		printf "\"r%d\",\"t\",\"lo.cfg\",\"offload.tso=%s;link.mtu=1500\",%d,%d,%d,%.9g\n", i, tso, w, a, s, cyc / 2e7
	}
	print "\"other\",\"t\",\"veth.cfg\",\"offload.tso=on\",10000,1000,1000,99"
	print "\"pinned\",\"t\",\"lo.cfg\",\"offload.tso=on;app.recv_cpu=0\",10000,1000,1000,99"
}' >"$T/runs.csv"

"$F" "$T/runs.csv" --ghz 2 --y snd_cpu_busy_pct --scenario lo.cfg --unless app.recv_cpu=0 \
	--x write=writes_per_s --x ack=acks_per_s --x seg=segs_per_s@offload.tso=off >"$T/out" 2>"$T/err"
st=$?
coef() { awk -v t="$1" '$1 == t && $NF ~ /\]$/ { for (i = 2; i <= NF; i++) if ($i ~ /^-?[0-9.]+$/) { print $i; exit } }' "$T/out"; }
near() { awk -v g="$1" -v w="$2" 'BEGIN { exit !(g > w * 0.999 && g < w * 1.001) }'; }
if [ $st -eq 0 ] && near "$(coef write)" 3000 && near "$(coef ack)" 500 && near "$(coef seg)" 1000; then
	ok "the rule's costs recovered (write 3000, ack 500, seg 1000 only where tso=off)"
else bad "costs recovered" "exit $st, write=$(coef write) ack=$(coef ack) seg=$(coef seg): $(cat "$T/err")"; fi
grep -q "^costfit: 12 rows" "$T/out" && ! grep -q '^other\|^pinned' "$T/out" \
	&& ok "--scenario and --unless leave out the rows that break the rule" \
	|| bad "row selection" "$(head -1 "$T/out")"
grep -q "median 0.0%, max 0.0%" "$T/out" && ok "an exact rule fits every row exactly" \
	|| bad "exact fit" "$(tail -1 "$T/out")"

# without the condition the segment term is wrong and the fit says so
"$F" "$T/runs.csv" --ghz 2 --y snd_cpu_busy_pct --scenario lo.cfg --unless app.recv_cpu=0 \
	--x write=writes_per_s --x ack=acks_per_s --x seg=segs_per_s >"$T/out2" 2>&1
! grep -q "median 0.0%, max 0.0%" "$T/out2" && ok "a wrong rule shows as error" || bad "wrong rule" "$(tail -1 "$T/out2")"

"$F" "$T/runs.csv" --ghz 2 --y snd_cpu_busy_pct --x write=no_such_col >/dev/null 2>"$T/err"
st=$?
[ $st -eq 2 ] && grep -q "runs.csv:1: --x write: no column 'no_such_col'" "$T/err" \
	&& ok "unknown column: exit 2 naming file, line and column" || bad "unknown column" "exit $st: $(cat "$T/err")"

"$F" "$T/runs.csv" --ghz 2 --y snd_cpu_busy_pct --x 'w=writes_per_s*x' >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q "NAME=COLUMN" "$T/err" && ok "bad factor: usage, exit 2" || bad "bad factor" "$(cat "$T/err")"

"$F" "$T/runs.csv" --ghz 2 --y snd_cpu_busy_pct --where link.mtu=9000 --x w=writes_per_s >/dev/null 2>"$T/err"
[ $? -eq 1 ] && grep -q "0 rows" "$T/err" && ok "no row left: exit 1, said" || bad "no rows" "$(cat "$T/err")"

printf '"id","source","scenario","overrides","writes_per_s","snd_cpu_busy_pct"\n"a","s","x.cfg","","12\n' >"$T/broken.csv"
"$F" "$T/broken.csv" --ghz 2 --y snd_cpu_busy_pct --x w=writes_per_s >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q "broken.csv" "$T/err" && ok "broken CSV: exit 2 naming the file" || bad "broken CSV" "$(cat "$T/err")"

echo "costfit: $((n - fails)) passed, $fails failed"
[ $fails -eq 0 ]
