#!/bin/sh
# loss.sh [VALIDATE.txt [C]]: a validate report's training rows (MTU 1500
# and 65536) as the fit weighs them (validate.sh's weights: throughput 3,
# each CPU's busy share, frames and ACKs 1): the weighted sum of squared
# relative errors (the fit's chisq) and of the Cauchy loss C^2 ln(1 +
# (e/C)^2), C default 0.1; and the median |error| of throughput, fitted
# and held out.  Run from the checkout's top.
set -eu
F=${1:-validation/live/amd-epyc-2cpu-2096-1204.validate-lo.txt}
C=${2:-0.1}
awk -v c="$C" '
function med(a, m,   i, j, x) {
	for (i = 2; i <= m; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
	return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
BEGIN { w["throughput_mbps"] = 3; w["snd_cpu_busy_pct"] = 1; w["rcv_cpu_busy_pct"] = 1; w["frames_per_s"] = 1; w["acks_per_s"] = 1 }
$1 ~ /-lo-/ && ($2 in w) && $6 ~ /%$/ {
	e = $6; sub(/%/, "", e); e /= 100
	t = $1 ~ /-mtu(1500|65536)-/
	if (t) { n++; sq += w[$2] * e * e; ca += w[$2] * c * c * log(1 + (e / c) * (e / c)) }
	if ($2 == "throughput_mbps") { a = e < 0 ? -e : e; if (t) tr[++nt] = a; else ho[++nh] = a }
}
END {
	if (!n) { print "loss.sh: no training rows in the report" > "/dev/stderr"; exit 1 }
	printf "%d training residuals: squares %.2f, Cauchy (C %g) %.3f; throughput median |error| %.1f%% fitted (%d), %.1f%% held out (%d)\n",
		n, sq, c, ca, 100 * med(tr, nt), nt, nh ? 100 * med(ho, nh) : 0, nh
}' "$F"
