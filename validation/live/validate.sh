#!/bin/sh
# validate.sh [MACHINE]: calibrate tcpsim on the loopback MTU 1500 and 65536
# rows of validation/live/MACHINE.csv and predict every other row.
#
#   1. tcpsim validate on the loopback rows, --train-where link.mtu=1500,65536:
#      one fit on those 8 points, the 12 others (MTU 9000, 16436, 32768)
#      predicted -> MACHINE.validate-lo.txt
#   2. tcpsim calibrate on the same 8 points -> MACHINE.fitted.cfg, and
#      tcpsim validate of the veth rows with that profile (no fit: all 8
#      predicted) -> MACHINE.validate-veth.txt
# The veth rows are kept out of the fit: --train-where matches link.mtu
# alone, and veth MTU 1500 would otherwise be fitted.
#
# Run from anywhere after `make`; writes its results beside the CSV.
set -eu
cd "$(dirname "$0")/../.."
M=${1:-amd-epyc-2cpu}
CSV=validation/live/$M.csv
[ -f "$CSV" ] || { echo "validate.sh: no $CSV (run make live)" >&2; exit 2; }
[ -x ./tcpsim ] || { echo "validate.sh: build tcpsim first (make)" >&2; exit 2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM

# The costs fitted: the per-byte copy, the per-call and per-frame work on
# both sides, and the scheduler's wakeup and switch -- what a TCP_STREAM
# over loopback spends its CPU on (see model/cost.h).
FIT=${FIT:-cost.copy_byte,cost.syscall,cost.tx_frame,cost.rx_frame,cost.ack_tx,cost.ack_rx,cost.wakeup,cost.ctxsw}
# Fitted on throughput and CPU, and on the mechanics the namespace counters
# measure exactly (frames, ACKs) plus the two system-wide counters the test
# dominates (NET_RX, context switches); IPIs, interrupts and page counts
# are predicted, not fitted (system-wide, and the machine's background
# moves them).
WEIGHT=${WEIGHT:-throughput_mbps=3,cpu_send_pct=1,frames_per_s=1,acks_per_s=1,netrx_softirqs_per_s=1,cs_per_s=1,others=0}

# split the matrix with tools/bin/runs-filter (libcsv through model/runs.c)
F=tools/bin/runs-filter
[ -x "$F" ] || { echo "validate.sh: build tools first (make)" >&2; exit 2; }
"$F" "$CSV" --scenario "scenarios/live/$M-lo.cfg" -o "$T/lo.csv"
"$F" "$CSV" --scenario "scenarios/live/$M-veth.cfg" -o "$T/veth.csv"
"$F" "$T/lo.csv" --where link.mtu=1500,65536 -o "$T/train.csv"
# the response switches regime (which CPU binds, who sleeps): scan starts
STARTS=${STARTS:-8}

./tcpsim validate "$T/lo.csv" --fit "$FIT" --weight "$WEIGHT" --starts "$STARTS" --train-where link.mtu=1500,65536 \
	--title "$M loopback: fitted on MTU 1500 and 65536, the rest predicted" \
	>"validation/live/$M.validate-lo.txt"
./tcpsim calibrate "$T/train.csv" --fit "$FIT" --weight "$WEIGHT" --starts "$STARTS" -o "validation/live/$M.fitted.cfg"
./tcpsim validate "$T/veth.csv" --profile "validation/live/$M.fitted.cfg" \
	--title "$M veth: predicted with the loopback fit" \
	>"validation/live/$M.validate-veth.txt"
echo "wrote validation/live/$M.validate-lo.txt, $M.fitted.cfg, $M.validate-veth.txt"
