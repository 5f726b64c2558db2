#!/bin/sh
# Regenerate the recorded-run CSVs in validation/ from the raw report tables
# in validation/raw/ with the importers (tools/bin/import-*; `make` builds
# them).  Each CSV is rebuilt from scratch in a temporary directory and
# moved into place only when its importer succeeded.
#
#   sh tools/import-all.sh [OUTDIR]     (default OUTDIR: validation)
#
# IMPORT_BIN overrides the directory of the importer binaries (tests point
# it at sanitizer builds).
set -eu
cd "$(dirname "$0")/.."
BIN=${IMPORT_BIN:-tools/bin}
OUT=${1:-validation}
RAW=validation/raw
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# LKP report on Linux commit 0cf833aefaa8 (loopback MTU 16436 -> 65536).
# The 2012 report does not print the run length: 300 s is LKP's netperf job
# (-l 300), the importer's default, given here explicitly.
"$BIN/import-lkp" -o "$tmp/lkp-loopback-atom.csv" \
	--source "Linux commit 0cf833aefaa8 'net: loopback: set default mtu to 64K', LKP report [net/loopback] +46% netperf.Throughput_Mbps, 2012" \
	--base-id lkp-atom-loopback-16k --base-scenario scenarios/loopback-16k.cfg \
	--new-id lkp-atom-loopback-64k --new-scenario scenarios/loopback-64k.cfg \
	--seconds 300 \
	"$RAW/lkp-loopback-mtu64k.table" 2>"$tmp/lkp.log" || { cat "$tmp/lkp.log" >&2; exit 2; }

# FreeBSD sendfile/TSO report over Myri10GE: five netperf rows, in table order.
"$BIN/import-netperf" -o "$tmp/myri10ge-sendfile.csv" \
	--source "A. Gallatin, 'Much improved sendfile(2) kernel implementation', freebsd-current list, date not given in the report (2006: the receiver runs Linux 2.6.17.7)" \
	--id myri10ge-old-notso     --scenario scenarios/myri10ge/old-notso.cfg \
	--id myri10ge-old-tso       --scenario scenarios/myri10ge/old-tso.cfg \
	--id myri10ge-new-notso     --scenario scenarios/myri10ge/new-notso.cfg \
	--id myri10ge-new-tso       --scenario scenarios/myri10ge/new-tso.cfg \
	--id myri10ge-linux-2.6.9   --scenario scenarios/myri10ge/linux-2.6.9.cfg \
	"$RAW/freebsd-sendfile-tso-myri10ge.table"

mkdir -p "$OUT"
mv "$tmp/lkp-loopback-atom.csv" "$OUT/lkp-loopback-atom.csv"
mv "$tmp/myri10ge-sendfile.csv" "$OUT/myri10ge-sendfile.csv"
echo "import-all: wrote $OUT/lkp-loopback-atom.csv $OUT/myri10ge-sendfile.csv"
