#!/bin/sh
# install-deps.sh [bench]: install the Debian packages tcpsim needs, only
# those missing (idempotent).  Called by `make run` and `make check`; safe
# to run by hand.  clang and libclang-rt-dev (libFuzzer's runtime, a separate
# package from clang-14) are for `make fuzz` and the corpus replay of `make
# check`.
#
# `bench` installs the optional group `make bench` asks for instead: ns-3
# (libns3-dev, with g++ to build bench/ns3-bulk.cc against it) and GNU time
# (CPU seconds and peak RSS of whole processes).  Nothing else needs them;
# make bench goes on without ns-3 when this fails.
set -eu
case ${1:-} in
"") PKGS="gcc make pkg-config libgsl-dev libcsv-dev libcmocka-dev libinih-dev libjansson-dev gnuplot-nox parallel rsync clang libclang-rt-dev" ;;
bench) PKGS="libns3-dev g++ time" ;;
*) echo "usage: sh tools/install-deps.sh [bench]" >&2; exit 2 ;;
esac
missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing:$missing" >&2
SUDO=""
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null 2>&1 || { echo "install-deps: need root (or sudo) to install:$missing" >&2; exit 1; }
	SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq $missing >/dev/null
