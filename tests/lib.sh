# tests/lib.sh: what the shell tests share, sourced (`. "$ROOT/tests/lib.sh"`).
#
#   ok NAME          a check passed: "ok N - NAME"
#   bad NAME WHY     a check failed: "FAIL N - NAME: WHY", counted in $fails
#
# $n counts the checks and $fails the failures; each test prints its own
# summary and exits non-zero when $fails is.
n=0
fails=0
ok()  { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "FAIL $n - $1: $2"; }
