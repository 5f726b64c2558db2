#!/bin/sh
# by-state.sh [VALIDATE-LO.txt]: median |error| of throughput by the state
# the machine's row is in (measured snd_rwnd_limited_pct 50 or more: the
# reader behind its data) and by fitted (MTU 1500 and 65536) or held out,
# from a validate.sh report (default: the committed one).  The priced
# model's: apply ../held-back/priced-by-perf.patch, run validate.sh, then
# this on its report.  Run from the checkout's top.
set -eu
F=${1:-validation/live/amd-epyc-2cpu-2096-1204.validate-lo.txt}
awk '$1 ~ /-lo-/ && $2 == "throughput_mbps" && $6 ~ /%$/ { x = $6; sub(/%/, "", x); x += 0; e[$1] = x < 0 ? -x : x }
     $1 ~ /-lo-/ && $2 == "snd_rwnd_limited_pct" { w[$1] = $3 }
     END { for (r in e) {
             g = (r ~ /-mtu(1500|65536)-/ ? "fitted" : "held out") ((r in w) && w[r] >= 50 ? ", reader behind" : ", writer-bound")
             n[g]++; v[g, n[g]] = e[r] }
           for (g in n) {
             m = n[g]
             for (i = 1; i <= m; i++) a[i] = v[g, i]
             for (i = 2; i <= m; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
             med = m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
             printf "%-26s %3d rows, median |error| %.1f%%\n", g, m, med } }' "$F" | sort
