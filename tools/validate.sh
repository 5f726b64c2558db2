#!/bin/sh
# validate.sh [TCPSIM]: what `make validate` runs.
#
# Calibrates the machine profiles against the two recorded reports, predicts
# the recorded runs held out, checks the targets of validation/targets/, and
# writes every output to validation/results/ (each file whole: a temp file
# renamed), which docs/calibration.md links; it writes nothing else but the
# fitted profiles.
#
#   LKP loopback (2 runs, one Atom profile): the hand-set profile as it is;
#     a fit of cost.copy_byte to both runs' throughput (one level parameter,
#     so the %changes stay predictions of the mechanics, not fitted; 24
#     scanned starts, because the response switches regime) into
#     scenarios/profiles/atom-lkp-fitted.cfg and the runs predicted with
#     it; and leave-one-out (each run predicted by a fit to the other).
#   Myri10GE (5 runs): a fit of the FreeBSD sender's per-frame and per-page
#     costs (scoped to that host) and the Linux receiver's per-wire-frame and
#     per-wakeup costs into scenarios/profiles/myri10ge-fitted.cfg, and
#     leave-one-out prediction of every row.  (The receiver pair was chosen
#     among rx_seg with copy_byte, hardirq, napi_poll or wakeup by looking
#     at the leave-one-out errors, so those are slightly optimistic.)
#     Skipped, and said so, while scenarios/myri10ge/ does not exist.
#
# Every step runs even when an earlier one fails; the exit status is 1 if
# any step failed (a fit that did not converge included), else 0.  Misses
# of the targets are results, not failures.
set -u
T=${1:-./tcpsim}
R=validation/results
mkdir -p "$R"
failed=""

# step NAME OUT CMD...: run CMD, stdout to $R/OUT (whole), stderr kept beside it.
step() {
	name=$1; out=$2; shift 2
	printf 'validate: %-34s -> %s\n' "$name" "$R/$out"
	if "$@" >"$R/$out.tmp" 2>"$R/$out.err"; then
		rm -f "$R/$out.err"
	else
		st=$?
		failed="$failed $name"
		{ echo; echo "FAILED (exit $st):"; cat "$R/$out.err"; } >>"$R/$out.tmp"
		rm -f "$R/$out.err"
		echo "validate: $name FAILED (exit $st), see $R/$out" >&2
	fi
	mv "$R/$out.tmp" "$R/$out"
}

LKP=validation/lkp-loopback-atom.csv
LKP_T=validation/targets/lkp-loopback-atom.csv
LKP_FIT=cost.copy_byte=0.3:6
LKP_W=others=0,throughput_mbps=1
LKP_STARTS=24
LKP_PROFILE=scenarios/profiles/atom-lkp-fitted.cfg

step "LKP: hand-set profile" lkp-handset.txt \
	"$T" validate "$LKP" --targets "$LKP_T" \
	--title "LKP loopback, Atom: the hand-set profile (scenarios/profiles/atom-lkp.cfg), no fit"
step "LKP: calibrate" lkp-calibrate.txt \
	"$T" calibrate "$LKP" --fit "$LKP_FIT" --weight "$LKP_W" --starts $LKP_STARTS -o "$LKP_PROFILE"
if [ -f "$LKP_PROFILE" ]; then
	step "LKP: fitted profile" lkp-fitted.txt \
		"$T" validate "$LKP" --profile "$LKP_PROFILE" --targets "$LKP_T" \
		--title "LKP loopback, Atom: one fitted profile for both runs ($LKP_PROFILE; in-sample for the level, the changes are predicted)"
fi
step "LKP: leave-one-out" lkp-loo.txt \
	"$T" validate "$LKP" --fit "$LKP_FIT" --weight "$LKP_W" --starts $LKP_STARTS --holdout loo --targets "$LKP_T" \
	--title "LKP loopback, Atom: leave-one-out (each run predicted by cost.copy_byte fitted to the other run)"

MYRI=validation/myri10ge-sendfile.csv
MYRI_T=validation/targets/myri10ge-sendfile.csv
FB=athlon64-3000-freebsd
MYRI_FIT=cost.tx_frame@host.name=$FB,cost.sendfile_page@host.name=$FB,rcost.rx_seg,rcost.wakeup
MYRI_W=others=0,throughput_mbps=1,cpu_send_pct=1,cpu_recv_pct=1
MYRI_STARTS=16
MYRI_PROFILE=scenarios/profiles/myri10ge-fitted.cfg

if ls scenarios/myri10ge/*.cfg >/dev/null 2>&1; then
	step "Myri10GE: calibrate" myri10ge-calibrate.txt \
		"$T" calibrate "$MYRI" --fit "$MYRI_FIT" --weight "$MYRI_W" --starts $MYRI_STARTS -o "$MYRI_PROFILE"
	step "Myri10GE: leave-one-out" myri10ge-loo.txt \
		"$T" validate "$MYRI" --fit "$MYRI_FIT" --weight "$MYRI_W" --starts $MYRI_STARTS --holdout loo --targets "$MYRI_T" \
		--title "Myri10GE sendfile: leave-one-out (each row predicted by a fit to the other four)"
else
	echo "validate: scenarios/myri10ge/ does not exist yet: the Myri10GE report is not validated" \
		>"$R/myri10ge-loo.txt"
	echo "validate: scenarios/myri10ge/ missing: Myri10GE skipped"
fi

if [ -n "$failed" ]; then
	echo "validate: failed:$failed" >&2
	exit 1
fi
echo "validate: done; results in $R/ (docs/calibration.md links them)"
