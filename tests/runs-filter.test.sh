#!/bin/sh
# runs-filter.test.sh ASAN_DIR: tools/bin/runs-filter keeps the matching
# recorded runs, reads and writes through libcsv, refuses bad input.
set -u
cd "$(dirname "$0")/.." || exit 1
F=tools/bin/runs-filter
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0 fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "FAIL $n - $1"; }
[ -x "$F" ] || { echo "runs-filter.test.sh: $F not built"; echo "runs-filter: 0 passed, 1 failed"; exit 1; }

"$F" validation/lkp-loopback-atom.csv --scenario scenarios/loopback-64k.cfg -o "$T/a.csv" 2>"$T/err"
if [ $? -eq 0 ] && grep -q 'lkp-atom-loopback-64k' "$T/a.csv" && ! grep -q 'loopback-16k' "$T/a.csv"; then
	ok "--scenario keeps the matching run only"
else bad "--scenario keeps the matching run only"; fi

"$F" validation/myri10ge-sendfile.csv -o "$T/all.csv" && cmp -s "$T/all.csv" validation/myri10ge-sendfile.csv \
	&& ok "no filter: the file read and written back byte for byte" || bad "no filter round trip"

"$F" validation/lkp-loopback-atom.csv --scenario nope.cfg -o "$T/none.csv" 2>"$T/err"
st=$?
[ $st -eq 1 ] && [ ! -e "$T/none.csv" ] && grep -q "no run" "$T/err" && ok "no match: exit 1, no file" \
	|| bad "no match: exit 1, no file (got $st)"

printf '"id","source","scenario","overrides","throughput_mbps"\n"a","s","x.cfg","","12\n' >"$T/broken.csv"
"$F" "$T/broken.csv" -o "$T/out.csv" 2>"$T/err"
st=$?
[ $st -eq 2 ] && [ ! -e "$T/out.csv" ] && grep -q "broken.csv" "$T/err" && ok "broken CSV: exit 2 naming the file" \
	|| bad "broken CSV: exit 2 naming the file (got $st: $(cat "$T/err"))"

"$F" validation/lkp-loopback-atom.csv --where linkmtu -o "$T/x.csv" 2>/dev/null
[ $? -eq 2 ] && ok "malformed --where: exit 2" || bad "malformed --where: exit 2"

echo "runs-filter: $((n - fails)) passed, $fails failed"
[ $fails -eq 0 ]
