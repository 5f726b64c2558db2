#!/bin/sh
# same-outputs.sh: show that a change to the tree moved code and changed no
# output.
#
#   tools/same-outputs.sh collect DIR [--validate]
#       run, from the top of a built tree (./tcpsim), every scenario under
#       scenarios/ (table and csv), the sweep of `make plots` (the CSV, not
#       the PNG), the compare commands the docs quote, --help-config and
#       every --help text, and with --validate
#       `make validate`'s result files and fitted profiles, each output into
#       its own file under DIR.  validate runs in a copy under DIR, so the
#       tree itself is never written.
#   tools/same-outputs.sh diff BEFORE AFTER
#       compare two such directories; print each file that differs or is in
#       one only, then "same: N files" or "DIFFERENT: N of M files"; exit 1
#       if any differs.  validate.log (what validate.sh said while it ran)
#       is kept for reading, not compared.
#
# A scenario that exits non-zero (a fragment, such as a profile, that is not
# a whole scenario) is recorded too: its stderr and exit status are part of
# the output.
set -u
usage() { echo "usage: same-outputs.sh collect DIR [--validate] | diff BEFORE AFTER" >&2; exit 2; }

# out NAME CMD...: stdout to DIR/NAME.out, stderr and status to DIR/NAME.err
out() {
	name=$1; shift
	"$@" >"$dir/$name.out" 2>"$dir/$name.err"
	echo "exit $?" >>"$dir/$name.err"
}

collect() {
	dir=$1; validate=${2:-}
	T=./tcpsim
	[ -x "$T" ] || { echo "same-outputs: no ./tcpsim here; run make first" >&2; exit 2; }
	rm -rf "$dir" && mkdir -p "$dir" || exit 2
	for f in $(find scenarios -name '*.cfg' | LC_ALL=C sort); do
		n=$(echo "$f" | tr / _)
		out "$n.table" "$T" "$f"
		out "$n.csv" "$T" "$f" --format csv
	done
	# the key table and every help text
	out help-config "$T" --help-config
	out help "$T" --help
	for c in run compare sweep calibrate validate; do out "help-$c" "$T" "$c" --help; done
	# the sweep of `make plots`
	"$T" sweep scenarios/loopback-64k.cfg -s offload.gso=off \
		--vary link.mtu=1500,4096,9000,16436,32768,65536 --vary offload.tso=on,off \
		-o "$dir/plots-loopback-mtu.csv" >"$dir/plots-sweep.out" 2>"$dir/plots-sweep.err"
	echo "exit $?" >>"$dir/plots-sweep.err"
	# the compare commands the docs quote
	out compare-loopback "$T" compare scenarios/loopback-16k.cfg scenarios/loopback-64k.cfg
	out compare-commit "$T" compare scenarios/commit/0cf833aefaa8-16k.cfg \
		scenarios/commit/0cf833aefaa8-64k.cfg
	out compare-llc-reps "$T" compare scenarios/loopback-16k.cfg -s sched.domains=llc -s host.kswapd=off \
		scenarios/loopback-64k.cfg -s sched.domains=llc -s host.kswapd=off --reps 12
	if [ "$validate" = --validate ]; then
		v=$dir/validate-tree
		mkdir -p "$v" && cp -R tcpsim README.md tools validation scenarios "$v"/ || exit 2
		(cd "$v" && sh tools/validate.sh ./tcpsim) >"$dir/validate.log" 2>&1
		echo "exit $?" >"$dir/validate.status"
		mkdir -p "$dir/validate"
		cp "$v"/validation/results/*.txt "$dir/validate/" 2>/dev/null
		cp "$v"/scenarios/profiles/*-fitted.cfg "$dir/validate/" 2>/dev/null
		rm -rf "$v"
	fi
	echo "same-outputs: $(find "$dir" -type f | wc -l) files in $dir"
}

differ() {
	a=$1; b=$2; n=0; bad=0
	for f in $( { (cd "$a" && find . -type f ! -name '*.log'); (cd "$b" && find . -type f ! -name '*.log'); } | LC_ALL=C sort -u); do
		n=$((n + 1))
		if [ ! -f "$a/$f" ]; then echo "only in $b: $f"; bad=$((bad + 1))
		elif [ ! -f "$b/$f" ]; then echo "only in $a: $f"; bad=$((bad + 1))
		elif ! cmp -s "$a/$f" "$b/$f"; then echo "differs: $f"; bad=$((bad + 1))
		fi
	done
	if [ $bad -eq 0 ]; then echo "same: $n files"; else echo "DIFFERENT: $bad of $n files"; exit 1; fi
}

case ${1:-} in
collect) [ $# -ge 2 ] || usage; collect "$2" "${3:-}" ;;
diff) [ $# -eq 3 ] || usage; differ "$2" "$3" ;;
*) usage ;;
esac
