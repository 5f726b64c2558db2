#!/bin/sh
# Install the Debian packages tcpsim needs, only those missing (idempotent).
# Called by `make run` and `make check`; safe to run by hand.  clang and
# libclang-rt-dev (libFuzzer's runtime, a separate package from clang-14) are
# for `make fuzz` and the corpus replay of `make check`.
set -eu
PKGS="gcc make pkg-config libgsl-dev libcsv-dev libcmocka-dev libinih-dev libjansson-dev gnuplot-nox parallel rsync clang libclang-rt-dev"
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
