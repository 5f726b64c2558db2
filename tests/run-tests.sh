#!/bin/sh
# Run every test of `make check`: each cmocka program ASAN_DIR/tests/test_*
# and each shell test tests/*.test.sh (called with ASAN_DIR), from the
# repository root.  Ends with "N passed, N failed"; exits 1 on any failure
# or when no test was found.
set -u
dir=${1:?usage: run-tests.sh ASAN_BUILD_DIR}
cd "$(dirname "$0")/.." || exit 1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
pass=0 fail=0 failed=""
for t in "$dir"/tests/test_*; do
	[ -x "$t" ] || continue
	case $t in *.o|*.d) continue ;; esac
	echo "== $t"
	if "$t"; then pass=$((pass + 1)); else fail=$((fail + 1)); failed="$failed $t"; fi
done
for t in tests/*.test.sh; do
	[ -f "$t" ] || continue
	echo "== $t"
	if sh "$t" "$dir"; then pass=$((pass + 1)); else fail=$((fail + 1)); failed="$failed $t"; fi
done
[ -n "$failed" ] && echo "failed:$failed"
if [ $((pass + fail)) -eq 0 ]; then
	echo "no tests found under $dir/tests or tests/*.test.sh"
	echo "0 passed, 1 failed"
	exit 1
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
