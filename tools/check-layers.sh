#!/bin/sh
# check-layers.sh [TOP]: the library's layering, checked over #include lines.
#
# model/ is one folder per layer; a file may include headers of its own
# layer and of the layers below it, never of one above (docs/architecture.md
# draws the picture).  From the bottom:
#
#   base      helpers every layer uses: errors, allocation, files, CSV
#   scenario  what a run is given (struct scenario, the cost table) and
#             what it returns (struct metrics)
#   engine    time, the event queue, struct sim, the random stream
#   kernel    CPU contexts and their vectors, the scheduler
#   net       skbs and memory, devices (loopback, veth, NIC), TCP
#   app       the programs tasks run: netperf, netserver, monitors
#   top       model/*.c: run.c builds a sim, runs and measures it
#   config    model/config: the key table and the .cfg parser (base, scenario)
#   study     model/study: reports, recorded runs, sweeps, calibration
#   tools/lib the readers only tools use (base only)
#
# cli/, tools/*.c and tests/ sit above everything and are not checked.  A
# header is named without its folder ("tcp.h"); its layer is the folder it
# is found in.  Every violation is printed with the rule it breaks; the exit
# status is 1 if there is any.  TOP (default .) is the tree to check.
set -u
top=${1:-.}
cd "$top" || exit 2

# layer FOLDER -> the layers it may include (its own first)
allowed() {
	case $1 in
	base) echo "base" ;;
	scenario) echo "scenario base" ;;
	engine) echo "engine scenario base" ;;
	kernel) echo "kernel engine scenario base" ;;
	net) echo "net kernel engine scenario base" ;;
	app) echo "app net kernel engine scenario base" ;;
	top) echo "top app net kernel engine scenario base" ;;
	config) echo "config scenario base" ;;
	study) echo "study config top app net kernel engine scenario base" ;;
	lib) echo "lib base" ;;
	*) echo "" ;;
	esac
}

# the layer of a file path
layer_of() {
	case $1 in
	model/*/*) l=${1#model/}; echo "${l%%/*}" ;;
	model/*) echo top ;;
	tools/lib/*) echo lib ;;
	*) echo "" ;;
	esac
}

files=$(ls model/*.[ch] model/*/*.[ch] tools/lib/*.[ch] 2>/dev/null)
# header name -> its layer, one "name layer" a line
map=$(for f in $files; do case $f in *.h) echo "$(basename "$f") $(layer_of "$f")" ;; esac; done)

bad=0
for f in $files; do
	me=$(layer_of "$f")
	ok=$(allowed "$me")
	if [ -z "$ok" ]; then
		echo "check-layers: $f: folder '$me' is not a layer (tools/check-layers.sh lists them)"
		bad=$((bad + 1))
		continue
	fi
	for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		hl=$(echo "$map" | awk -v h="$(basename "$h")" '$1 == h { print $2; exit }')
		[ -n "$hl" ] || continue # not a library header
		case " $ok " in
		*" $hl "*) ;;
		*)
			n=$(grep -n "#[[:space:]]*include[[:space:]]*\"$h\"" "$f" | head -1 | cut -d: -f1)
			echo "check-layers: $f:$n: includes \"$h\" of layer '$hl'; layer '$me' may include only: $ok"
			bad=$((bad + 1))
			;;
		esac
	done
done
if [ $bad -ne 0 ]; then
	echo "check-layers: $bad include(s) against the layering"
	exit 1
fi
echo "check-layers: $(echo "$files" | wc -l) files, every include within its layer or below"
