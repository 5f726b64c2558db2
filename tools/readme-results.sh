#!/bin/sh
# readme-results.sh README RESULTS_DIR: put the tables `make validate` wrote
# into README, between the lines
#     <!-- validate:begin -->
#     <!-- validate:end -->
# (everything between them is replaced; nothing else is touched).  The
# LKP calibration, fitted-profile and leave-one-out outputs and the Myri10GE
# leave-one-out output go in (the hand-set LKP run and the Myri10GE
# in-sample fit stay in RESULTS_DIR only), each as a fenced block under a
# heading; the "Simulation:"
# paragraph every file repeats is left out (the README says it once).
# README is rewritten through a temp file and a rename; if the markers are
# missing it is left alone and the exit status is 1.
set -u
readme=${1:?usage: readme-results.sh README RESULTS_DIR}
dir=${2:?usage: readme-results.sh README RESULTS_DIR}

if ! grep -q '^<!-- validate:begin -->$' "$readme" || ! grep -q '^<!-- validate:end -->$' "$readme"; then
	echo "readme-results: $readme has no <!-- validate:begin --> / <!-- validate:end --> lines" >&2
	exit 1
fi

block() { # TITLE FILE
	[ -f "$2" ] || return 0
	printf '\n#### %s\n\n```\n' "$1"
	# drop the Simulation: paragraph (it ends at the first line ending in '.')
	awk '/^Simulation:/ { skip = 1 } skip { if ($0 ~ /\.$/) skip = 0; next } { print }' "$2"
	printf '```\n'
}

gen="$readme.results.$$"
{
	block "LKP: calibration of cost.copy_byte" "$dir/lkp-calibrate.txt"
	block "LKP: the fitted profile" "$dir/lkp-fitted.txt"
	block "LKP: leave-one-out" "$dir/lkp-loo.txt"
	block "Myri10GE: leave-one-out" "$dir/myri10ge-loo.txt"
} >"$gen"

tmp="$readme.tmp.$$"
awk -v gen="$gen" '
	$0 == "<!-- validate:begin -->" { print; while ((getline line < gen) > 0) print line; skip = 1; next }
	$0 == "<!-- validate:end -->" { skip = 0 }
	!skip { print }
' "$readme" >"$tmp" && mv "$tmp" "$readme"
st=$?
rm -f "$gen" "$tmp"
exit $st
