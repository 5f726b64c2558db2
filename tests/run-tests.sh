#!/bin/sh
# run-tests.sh ASAN_DIR [FUZZ_DIR]: run every test program and shell test,
# count them.
#
#   ASAN_DIR/tests/test_*   cmocka programs built under ASan+UBSan (make check)
#   tests/*.test.sh         shell tests, each run as `sh tests/X.test.sh ASAN_DIR`
#   FUZZ_DIR/fuzz_NAME      fuzz targets (tests/fuzz/), each given every file of
#                           its seed corpus tests/fuzz/corpus/NAME/ once
#
# Runs from the repository root.  A program passes when it exits 0.  Prints
# one line per program, the output tail of each failure, the failures' names,
# and last a line "N passed, N failed".  Exit status 1 if anything failed or
# if no test was found at all, 0 otherwise.
#
# LeakSanitizer needs ptrace-free execution (it stops the process to scan
# it); a probe checks that it works here and otherwise turns leak checking
# off, saying so.
set -u

if [ $# -ne 1 ] && [ $# -ne 2 ]; then
	echo "usage: sh tests/run-tests.sh ASAN_DIR [FUZZ_DIR]" >&2
	exit 2
fi
if [ ! -d "$1" ]; then
	echo "run-tests: no directory '$1' (build it with make check)" >&2
	echo "0 passed, 0 failed"
	exit 1
fi
dir=$(cd "$1" && pwd)
fuzzdir=""
[ $# -eq 2 ] && fuzzdir=$(cd "$2" && pwd)
cd "$(dirname "$0")/.." || exit 1

tmp=$(mktemp -d "${TMPDIR:-/tmp}/run-tests.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1

# Probe LeakSanitizer with a program that leaks on purpose: it must report
# the leak.  If it cannot run (e.g. under ptrace), fall back and say so.
probe_lsan() {
	printf '#include <stdlib.h>\nvoid *volatile p;\nint main(void) { p = malloc(7); p = 0; return 0; }\n' >"$tmp/leak.c"
	if ! ${CC:-cc} -fsanitize=address -g -o "$tmp/leak" "$tmp/leak.c" 2>/dev/null; then
		echo "run-tests: cannot build the LeakSanitizer probe; leak checking stays on"
		return
	fi
	"$tmp/leak" >"$tmp/leak.out" 2>&1
	if grep -q "LeakSanitizer: detected memory leaks" "$tmp/leak.out"; then
		return
	fi
	export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
	echo "run-tests: LeakSanitizer does not work here ($(grep -m1 -i 'leaksanitizer\|ptrace' "$tmp/leak.out" || echo 'no report')); running with detect_leaks=0"
}
probe_lsan

if command -v timeout >/dev/null 2>&1; then
	limit="timeout 600"
else
	limit=""
fi

passed=0
failed=0
failures=""

# show FILE: a failure's output, indented; the middle cut when very long.
show() {
	awk -v n="$(wc -l <"$1")" '
		n <= 200 || NR <= 100 || NR > n - 100 { print "     | " $0; next }
		NR == 101 { print "     | ... (" n - 200 " lines omitted)" }' "$1"
}

# run NAME CMD...: run one test program, record the result.
run() {
	name=$1
	shift
	$limit "$@" >"$tmp/out" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		passed=$((passed + 1))
		echo "ok   $name"
	else
		failed=$((failed + 1))
		failures="$failures $name"
		[ $rc -eq 124 ] && [ -n "$limit" ] && echo "     (timed out after 600 s)"
		echo "FAIL $name (exit $rc)"
		show "$tmp/out"
	fi
}

for t in "$dir"/tests/test_*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	run "tests/$(basename "$t")" "$t"
done
for t in tests/*.test.sh; do
	[ -f "$t" ] || continue
	run "$t" sh "$t" "$dir"
done

for t in ${fuzzdir:+"$fuzzdir"/fuzz_*}; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	name=${t##*/fuzz_}
	run "tests/fuzz/$name (corpus)" "$t" tests/fuzz/corpus/"$name"/*
done

if [ $((passed + failed)) -eq 0 ]; then
	echo "run-tests: no test found (no $dir/tests/test_* program, no tests/*.test.sh)"
fi
if [ $failed -gt 0 ]; then
	echo "failed:$failures"
fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ] && [ $passed -gt 0 ]
